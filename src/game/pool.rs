//! The worker threads of a parallel run, and the parts they run. A part is
//! read and run on whichever worker takes it, into its own [`Log`]; the
//! driver (and a timer or a signal, through [`InFlight`]) writes the logs
//! in input order.
//!
//! A part's run is checked against what the splitter marked: it must read
//! exactly the cases marked and end at the part's end (blank lines aside).
//! When it does not (its boundaries were wrong, or an input error falls at
//! its end, where the rest of the input might have gone on), its cases
//! read so far are kept and the driver reads the rest again on one thread.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use super::input::{Positional, BOM};
use super::log::Log;
use super::output::{is_part_full, Pending};
use super::split::Part;
use super::{Input, Mark, Output, RunError, RunOptions, Split};

/// How a part's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Status {
    Running,
    /// Every case marked, and nothing else.
    Done,
    /// An error at a case inside the part: the run's error (its cases
    /// before it are in the log).
    Failed,
    /// The part does not hold the cases marked: the driver reads it again.
    Reread,
}

impl Status {
    fn of(code: u8) -> Status {
        match code {
            0 => Status::Running,
            1 => Status::Done,
            2 => Status::Failed,
            _ => Status::Reread,
        }
    }
}

/// What running a part gives.
///
/// On cache lines of its own (see [`crate::engines::lines`]): its log's
/// counters are stored to after every case, and a table that shared their
/// line would cost the threads reading it a miss each time.
#[derive(Default)]
#[repr(align(128))]
pub(super) struct Outcome {
    pub log: Log,
    status: AtomicU8,
    error: Mutex<Option<RunError>>,
    /// Processor time the run took, in nanoseconds.
    cpu: AtomicU64,
    /// The lines a part read from the file held (see [`Part::file`]).
    lines: AtomicU64,
    /// The part stopped because its output reached
    /// [`super::output::PART_OUTPUT`].
    full: std::sync::atomic::AtomicBool,
}

impl Outcome {
    pub(super) fn status(&self) -> Status {
        Status::of(self.status.load(Ordering::Acquire))
    }

    /// The error of a failed part.
    pub(super) fn take_error(&self) -> Option<RunError> {
        lock(&self.error).take()
    }

    /// Processor time the part took.
    pub(super) fn cpu(&self) -> Duration {
        Duration::from_nanos(self.cpu.load(Ordering::Relaxed))
    }

    /// The lines of a part read from the file, once it is done.
    pub(super) fn lines(&self) -> usize {
        usize::try_from(self.lines.load(Ordering::Relaxed)).unwrap_or(usize::MAX)
    }

    /// Whether the part stopped because its output was full.
    pub(super) fn full(&self) -> bool {
        self.full.load(Ordering::Relaxed)
    }

    /// Empties an outcome for another part.
    pub(super) fn clear(&mut self) {
        self.log.clear();
        *self.full.get_mut() = false;
        *self.status.get_mut() = 0;
        *self.error.get_mut().unwrap_or_else(PoisonError::into_inner) = None;
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A part to run and where its outcome goes.
pub(super) struct Job<R> {
    pub part: Arc<Part<R>>,
    pub outcome: Arc<Outcome>,
}

struct Queue<R> {
    jobs: VecDeque<Job<R>>,
    closing: bool,
}

/// The parts waiting for a worker, and the signals between the driver and
/// the workers.
pub(super) struct Pool<R> {
    queue: Mutex<Queue<R>>,
    /// A job came, or the pool closes.
    work: Condvar,
    /// A part was run.
    done: Condvar,
}

impl<R> Pool<R> {
    pub(super) fn new() -> Self {
        Pool {
            queue: Mutex::new(Queue { jobs: VecDeque::new(), closing: false }),
            work: Condvar::new(),
            done: Condvar::new(),
        }
    }

    pub(super) fn push(&self, job: Job<R>) {
        lock(&self.queue).jobs.push_back(job);
        self.work.notify_one();
    }

    /// Drops the jobs no worker has taken.
    pub(super) fn cancel(&self) {
        lock(&self.queue).jobs.clear();
    }

    /// Ends the workers once they are done with their parts.
    pub(super) fn close(&self) {
        let mut q = lock(&self.queue);
        q.closing = true;
        q.jobs.clear();
        drop(q);
        self.work.notify_all();
    }

    /// Waits until `outcome`'s part has run.
    pub(super) fn wait(&self, outcome: &Outcome) -> Status {
        let mut q = lock(&self.queue);
        loop {
            let status = outcome.status();
            if status != Status::Running {
                return status;
            }
            q = self.done.wait(q).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// The jobs no worker has taken yet.
    pub(super) fn waiting(&self) -> usize {
        lock(&self.queue).jobs.len()
    }

    /// A job no worker has taken yet, if any (for the driver to run).
    pub(super) fn try_take(&self) -> Option<Job<R>> {
        lock(&self.queue).jobs.pop_front()
    }

    fn next_job(&self) -> Option<Job<R>> {
        let mut q = lock(&self.queue);
        loop {
            if let Some(job) = q.jobs.pop_front() {
                return Some(job);
            }
            if q.closing {
                return None;
            }
            q = self.work.wait(q).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Tells the driver a part has run (under the lock it checks under).
    pub(super) fn finished(&self) {
        let _q = lock(&self.queue);
        self.done.notify_all();
    }
}

/// A worker: runs parts until the pool closes.
pub(super) fn work<S: Split>(game: &S, pool: &Pool<S::Reader>, opts: &RunOptions) {
    let mut scratch = S::Scratch::default();
    let mut reader = S::Reader::default();
    let mut bytes = Vec::new();
    while let Some(job) = pool.next_job() {
        run(game, job, &mut reader, &mut scratch, &mut bytes, opts);
        pool.finished();
    }
}

/// Runs one part into its outcome, from the part's reader state copied
/// into `reader`, the running thread's own: a thread's buffers are
/// allocated once, by that thread, rather than for every part. (A reader
/// cloned for every part put a line buffer, written after every case, in
/// the chunk the allocator had just freed, in some runs one beside a
/// rule's table that every thread reads: each case then cost the other
/// thread a cache miss.)
///
/// A part read from the file ([`Part::file`]) is read into `bytes`, the
/// thread's own buffer: its bytes come to this core's caches straight from
/// the system's, not through another core's. Cut by the splitter, it runs
/// as a part copied would. Cut where a line ends ([`Part::unmarked`]), its
/// cases are not marked: it is done when its cases end at its end and its
/// last line is not the game's last (a [`Mark::Stop`]); an error, or
/// anything else, has the driver read it again on one thread, where line
/// numbers are known.
pub(super) fn run<S: Split>(
    game: &S,
    job: Job<S::Reader>,
    reader: &mut S::Reader,
    scratch: &mut S::Scratch,
    bytes: &mut Vec<u8>,
    opts: &RunOptions,
) {
    let Job { part, outcome } = job;
    let started = thread_time();
    let status = match &part.file {
        Some(file) if part.unmarked() => run_read(game, &part, file, &outcome, reader, scratch, bytes, opts),
        Some(file) => match read_part(&part, file, bytes) {
            Some(bytes) => run_marked(game, &part, bytes, &outcome, reader, scratch, opts),
            None => Status::Reread,
        },
        None => run_marked(game, &part, &part.bytes[..part.len], &outcome, reader, scratch, opts),
    };
    let cpu = thread_time().saturating_sub(started);
    outcome.cpu.store(u64::try_from(cpu.as_nanos()).unwrap_or(u64::MAX), Ordering::Relaxed);
    // The driver takes the part's bytes back once the outcome is known.
    drop(part);
    let code = match status {
        Status::Running => 0,
        Status::Done => 1,
        Status::Failed => 2,
        Status::Reread => 3,
    };
    outcome.status.store(code, Ordering::Release);
}

/// Runs a part read from the file (see [`run`]).
#[allow(clippy::too_many_arguments)]
fn run_read<S: Split>(
    game: &S,
    part: &Part<S::Reader>,
    file: &Positional,
    outcome: &Outcome,
    reader: &mut S::Reader,
    scratch: &mut S::Scratch,
    bytes: &mut Vec<u8>,
    opts: &RunOptions,
) -> Status {
    let Some(bytes) = read_part(part, file, bytes) else { return Status::Reread };
    let mut input = Input::part(bytes, part.offset, 0);
    reader.clone_from(&part.reader);
    let mut out = Output::to_log(&outcome.log);
    // With no count of cases to stop at, the game reads on to the part's
    // end, and asks for a case more there: an error at the end is the
    // part's end (any other, or a case cut short, is found again on one
    // thread).
    let end = part.offset + part.len;
    let done = match game.run_part(&mut input, reader, scratch, None, &mut out, opts) {
        Ok(_) => matches!(input.next_nonblank(), Ok(None)),
        Err(RunError::Input(e)) => e.offset >= end,
        Err(RunError::Io(e)) if is_part_full(&e) => {
            outcome.full.store(true, Ordering::Relaxed);
            false
        }
        Err(_) => false,
    };
    if done && !ends_the_cases(game, &part.reader, bytes, part.offset == 0) {
        outcome.lines.store(input.line_number() as u64, Ordering::Relaxed);
        return Status::Done;
    }
    Status::Reread
}

/// The bytes of a part read from the file, read into `bytes` (the thread's
/// own buffer); `None` when the file no longer holds them all.
fn read_part<'b, R>(part: &Part<R>, file: &Positional, bytes: &'b mut Vec<u8>) -> Option<&'b [u8]> {
    if bytes.len() < part.len {
        bytes.resize(part.len, 0);
    }
    let bytes = &mut bytes[..part.len];
    matches!(file.read_at(part.offset, bytes), Ok(n) if n == part.len).then_some(bytes)
}

/// Runs a part whose cases the splitter marked, its `bytes` (see [`run`]).
fn run_marked<S: Split>(
    game: &S,
    part: &Part<S::Reader>,
    bytes: &[u8],
    outcome: &Outcome,
    reader: &mut S::Reader,
    scratch: &mut S::Scratch,
    opts: &RunOptions,
) -> Status {
    {
        let mut input = Input::part(bytes, part.offset, part.lines);
        reader.clone_from(&part.reader);
        let mut out = Output::to_log(&outcome.log);
        let end = part.offset + part.len;
        match game.run_part(&mut input, reader, scratch, Some(part.cases), &mut out, opts) {
            Ok(n) if n == part.cases && matches!(input.next_nonblank(), Ok(None)) => Status::Done,
            // An error at the part's end may be none in the whole input.
            Ok(_) => Status::Reread,
            Err(RunError::Input(e)) if e.offset >= end => Status::Reread,
            // Its output is full: the rest is read on one thread.
            Err(RunError::Io(e)) if is_part_full(&e) => {
                outcome.full.store(true, Ordering::Relaxed);
                Status::Reread
            }
            Err(e) => {
                // The lines of the case an error stopped (a frame up to the
                // bad stroke) come before the error, as on one thread.
                let partial = std::mem::take(out.buffer());
                if !partial.is_empty() {
                    outcome.log.push(&partial);
                }
                *lock(&outcome.error) = Some(e);
                Status::Failed
            }
        }
    }
}

/// Whether the last line of `bytes` that is not blank ends the game's
/// cases (a [`Mark::Stop`]: a terminator line), from reader state `start`.
/// `first`: the bytes are the input's first, whose byte order mark (if
/// any) every reader skips.
fn ends_the_cases<S: Split>(game: &S, start: &S::Reader, bytes: &[u8], first: bool) -> bool {
    let blank = |b: &u8| b.is_ascii_whitespace();
    let Some(last) = bytes.iter().rposition(|b| !blank(b)) else { return false };
    let from = memchr::memrchr2(b'\n', b'\r', &bytes[..last]).map_or(0, |i| i + 1);
    let to = memchr::memchr2(b'\n', b'\r', &bytes[last..]).map_or(bytes.len(), |i| last + i);
    let mut line = &bytes[from..to];
    if first && from == 0 {
        line = line.strip_prefix(BOM).unwrap_or(line);
    }
    let mut within = 0;
    game.boundary(&mut start.clone(), &mut within, line) == Mark::Stop
}

/// The outcomes of the parts in flight, in input order: whoever writes the
/// output writes the cases finished in order so far.
#[derive(Default)]
pub(super) struct InFlight {
    parts: Mutex<VecDeque<Arc<Outcome>>>,
}

impl InFlight {
    pub(super) fn push(&self, outcome: Arc<Outcome>) {
        lock(&self.parts).push_back(outcome);
    }

    pub(super) fn pop(&self) {
        lock(&self.parts).pop_front();
    }

    pub(super) fn clear(&self) {
        lock(&self.parts).clear();
    }
}

impl Pending for InFlight {
    fn write_new(&self, sink: &mut dyn Write) -> io::Result<bool> {
        let parts = lock(&self.parts);
        let mut wrote = false;
        for p in parts.iter() {
            // Known before its cases are written: a part still running may
            // add cases after them, and the parts after it wait (as after
            // a part stopped short).
            let done = p.status() == Status::Done;
            wrote |= p.log.write_new(sink)?;
            if !done {
                break;
            }
        }
        Ok(wrote)
    }
}

/// The processor time this thread has used: unlike the wall clock, it does
/// not count time spent waiting for input or for a processor, so a busy
/// machine or a slow pipe does not look like slow cases.
#[cfg(unix)]
pub(super) fn thread_time() -> Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec to write to; the clock id is a
    // constant every unix libc defines.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    if r != 0 {
        return Duration::ZERO;
    }
    Duration::new(u64::try_from(t.tv_sec).unwrap_or(0), u32::try_from(t.tv_nsec).unwrap_or(0))
}

/// Elsewhere, the wall clock since the first call.
#[cfg(not(unix))]
pub fn thread_time() -> Duration {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parts appended to and finished on one thread while another writes
    /// what is finished in order: every case comes out once, in order,
    /// never a later part's case before an earlier part's last one.
    #[test]
    fn finished_cases_are_written_in_order_across_parts() {
        for round in 0..200 {
            let parts: Vec<Arc<Outcome>> = (0..4).map(|_| Arc::new(Outcome::default())).collect();
            let flight = Arc::new(InFlight::default());
            parts.iter().for_each(|p| flight.push(p.clone()));
            let mut want = Vec::new();
            for (k, _) in parts.iter().enumerate() {
                for i in 0..50 + round {
                    want.extend_from_slice(format!("{k}:{i}\n").as_bytes());
                }
            }
            let appender = {
                let parts = parts.clone();
                std::thread::spawn(move || {
                    for (k, p) in parts.iter().enumerate() {
                        p.log.attach();
                        for i in 0..50 + round {
                            p.log.push(format!("{k}:{i}\n").as_bytes());
                        }
                        p.status.store(1, Ordering::Release);
                    }
                })
            };
            let mut seen = Vec::new();
            while !appender.is_finished() {
                flight.write_new(&mut seen).unwrap();
            }
            appender.join().unwrap();
            flight.write_new(&mut seen).unwrap();
            assert!(seen == want, "round {round}: the cases out of order");
        }
    }
}
