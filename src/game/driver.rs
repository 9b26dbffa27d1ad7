//! The driver of games whose cases are independent ([`Cases`]): read a
//! case, solve it, write its lines, in input order, on one core or all of
//! them.
//!
//! In parallel (`RunOptions::jobs` above 1), cases are read in batches and
//! solved in blocks by every thread. While the worker threads solve one
//! batch, the calling thread reads the next (then solves blocks too), so
//! reading and solving overlap; between its blocks it writes every block
//! finished in input order, so finished cases reach the output (and a
//! signal's last flush) while later ones are still being solved. A batch
//! stops early when the input has no complete line buffered, and the next
//! one is read ahead only when its lines are already buffered, so an
//! interactive input (a terminal, a program feeding cases through a pipe)
//! gets each answer as soon as its case is sent. Memory holds at most two
//! batches (of at most `BATCH` cases and about `BATCH_BYTES` of input
//! each), whatever the input's size. On an error at case k (in the
//! input, or a search limit), every case before k is written and none
//! after.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::{Cases, Explanation, Input, InputError, Output, RunError, RunOptions};

/// Most cases read ahead in one batch.
const BATCH: usize = 16384;
/// Most input bytes read ahead in one batch: cases with many lines (a game
/// of thousands of moves) make smaller batches, so memory holds at most
/// about two batches of this size, however large the cases.
const BATCH_BYTES: usize = 2 << 20;
/// Batches smaller than this are solved on the calling thread.
const SMALL: usize = 16;
/// Cases a thread takes at a time when cases are fast; a slow case (see
/// `SLOW`) is a block of its own, so that its output is written as soon as
/// the cases before it are done.
const BLOCK: usize = 16;
/// A case slower than this (on average in the last batch) makes blocks of
/// one case.
const SLOW: Duration = Duration::from_micros(100);
/// Cases at least this slow on average repay the threads' own cost.
const WORTH_THREADS: Duration = Duration::from_micros(20);
/// How long a run stays on the calling thread before it may use threads: an
/// input that takes less is answered before threads would have paid for
/// themselves (starting them, handing cases between cores, a second batch
/// in memory), and a wall-clock gain below a tenth of a second goes
/// unnoticed.
const WARM_UP: Duration = Duration::from_millis(100);
/// The least processor time between two reads of the clock.
const WINDOW: Duration = Duration::from_millis(1);

/// Reads, solves and writes every case of `input` in order.
///
/// With `opts.adaptive`, cases are solved on this thread first: threads
/// cost time of their own (handing cases and outputs between cores), which
/// only cases slower than `WORTH_THREADS` repay. Once the input has taken
/// `WARM_UP` and its recent cases average that long, the rest runs on
/// `opts.jobs` threads.
pub fn run_cases<C: Cases>(game: &C, input: &mut Input, out: &mut Output, opts: &RunOptions) -> Result<(), RunError> {
    let mut reader = C::Reader::default();
    if opts.jobs > 1 && !opts.adaptive {
        return run_parallel(game, input, &mut reader, out, opts);
    }
    let mut case = C::Case::default();
    let mut scratch = C::Scratch::default();
    let watch = opts.jobs > 1;
    let started = thread_time();
    // Cases since the clock was last read at `since`, and how many there
    // are between two reads: one at first, doubling until they take
    // `WINDOW` (a read of the clock costs as much as several fast cases).
    let (mut since, mut window, mut stride) = (started, 0u32, 1u32);
    while game.read(input, &mut reader, &mut case)? {
        game.solve(&case, &mut scratch, opts, out.buffer())?;
        out.end_case()?;
        if !watch {
            continue;
        }
        window += 1;
        if window == stride {
            let now = thread_time();
            if now.saturating_sub(started) >= WARM_UP && now.saturating_sub(since) >= WORTH_THREADS * window {
                return run_parallel(game, input, &mut reader, out, opts);
            }
            // Windows grow while they take less than `WINDOW`: reading
            // this clock is a system call.
            if now.saturating_sub(since) < WINDOW {
                stride = stride.saturating_mul(2);
            }
            (since, window) = (now, 0);
        }
    }
    Ok(())
}

/// The processor time this thread has used: unlike the wall clock, it does
/// not count time spent waiting for input or for a processor, so a busy
/// machine or a slow pipe does not look like slow cases.
#[cfg(unix)]
fn thread_time() -> Duration {
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
fn thread_time() -> Duration {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed()
}

/// Reads and explains every case of `input` in order.
pub fn explain_cases<C: Cases>(
    game: &C,
    input: &mut Input,
    opts: &RunOptions,
    each: &mut dyn FnMut(Explanation) -> Result<(), RunError>,
) -> Result<(), RunError> {
    let mut reader = C::Reader::default();
    let mut case = C::Case::default();
    let mut scratch = C::Scratch::default();
    while game.read(input, &mut reader, &mut case)? {
        game.explain(&case, &mut scratch, opts, each)?;
    }
    Ok(())
}

/// Cases read ahead, with their outputs once solved.
struct Batch<C: Cases> {
    cases: Vec<C::Case>,
    /// Cases in use (the rest are kept for their allocations).
    len: usize,
    /// The outputs, a block of cases each (kept for their allocations too).
    blocks: Vec<BlockOutput>,
    /// How reading ended: `None` while more cases may follow.
    end: Option<Result<(), InputError>>,
    /// The batch was cut by `BATCH_BYTES`: its cases are large.
    heavy: bool,
}

/// The output lines of a block of cases.
#[derive(Default)]
struct BlockOutput {
    bytes: Vec<u8>,
    /// Where each case's lines end in `bytes`.
    ends: Vec<usize>,
    /// The error that stopped the block: it comes right after the cases of
    /// `ends`.
    error: Option<RunError>,
}

impl BlockOutput {
    /// Writes the block's cases in order, then its error, if any.
    fn write(&mut self, out: &mut Output) -> Result<(), RunError> {
        let mut from = 0;
        for &end in &self.ends {
            out.buffer().extend_from_slice(&self.bytes[from..end]);
            out.end_case()?;
            from = end;
        }
        self.error.take().map_or(Ok(()), Err)
    }
}

impl<C: Cases> Batch<C> {
    fn new() -> Self {
        Batch { cases: Vec::new(), len: 0, blocks: Vec::new(), end: None, heavy: false }
    }

    /// Reads up to `limit` cases, stopping early when the input has no
    /// complete line at hand.
    fn fill(&mut self, game: &C, input: &mut Input, reader: &mut C::Reader, limit: usize) {
        self.len = 0;
        let start = input.offset();
        self.heavy = false;
        while self.len < limit {
            if input.offset() - start >= BATCH_BYTES {
                self.heavy = true;
                return;
            }
            if self.len == self.cases.len() {
                self.cases.push(C::Case::default());
            }
            match game.read(input, reader, &mut self.cases[self.len]) {
                Ok(true) => self.len += 1,
                Ok(false) => {
                    self.end = Some(Ok(()));
                    return;
                }
                Err(e) => {
                    self.end = Some(Err(e));
                    return;
                }
            }
            if !input.has_buffered_line() {
                return;
            }
        }
    }
}

fn run_parallel<C: Cases>(
    game: &C,
    input: &mut Input,
    reader: &mut C::Reader,
    out: &mut Output,
    opts: &RunOptions,
) -> Result<(), RunError> {
    let scratches: Mutex<Vec<C::Scratch>> = Mutex::new(Vec::new());
    let (mut current, mut next) = (Batch::<C>::new(), Batch::<C>::new());
    // Batches grow while the input keeps up, so that a short input is
    // answered at once and a long one spawns few threads.
    let mut limit = SMALL;
    let mut slow = false;
    current.fill(game, input, reader, limit);
    loop {
        let more = current.end.is_none();
        limit = (limit * 2).min(BATCH);
        let started = Instant::now();
        // Read the next batch while this one is solved only when its first
        // lines are already at hand: a read that has to wait (a program
        // feeding cases through a pipe, waiting for answers) comes after
        // this batch's outputs are written.
        // Large cases are worth a thread each, however few.
        let few = current.len < if current.heavy { 2 } else { SMALL };
        let ahead = more && !few && input.has_buffered_line();
        if few {
            // Few cases: solved here, each written as soon as it is done.
            let mut scratch = lock(&scratches).pop().unwrap_or_default();
            for case in &current.cases[..current.len] {
                game.solve(case, &mut scratch, opts, out.buffer())?;
                out.end_case()?;
            }
            lock(&scratches).push(scratch);
        } else {
            let block = if slow || current.heavy { 1 } else { BLOCK };
            let read_next = || {
                if ahead {
                    next.fill(game, input, reader, limit);
                }
            };
            solve_batch(game, &mut current, &scratches, opts, block, read_next, out)?;
            slow = started.elapsed() > SLOW * current.len as u32;
        }
        if let Some(end) = current.end.take() {
            return end.map_err(RunError::from);
        }
        if !ahead {
            next.fill(game, input, reader, limit);
        }
        std::mem::swap(&mut current, &mut next);
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A block of cases on its way from the batch to the output.
enum Slot<'b, C: Cases> {
    /// Not taken yet: the cases and where their outputs go.
    Todo(&'b [C::Case], &'b mut BlockOutput),
    /// Being solved.
    Taken,
    /// Solved, waiting to be written.
    Done(&'b mut BlockOutput),
}

/// Solves every case of a batch in blocks of `block` cases and writes them
/// in order: `opts.jobs - 1` threads take blocks while this thread does
/// `first`, then this thread takes blocks too, and after each one writes
/// every block finished in order so far (a signal loses no finished case
/// that is more than a block away). Stops at the first error, after
/// writing every case before it.
fn solve_batch<C: Cases>(
    game: &C,
    batch: &mut Batch<C>,
    scratches: &Mutex<Vec<C::Scratch>>,
    opts: &RunOptions,
    block: usize,
    first: impl FnOnce(),
    out: &mut Output,
) -> Result<(), RunError> {
    let cases = &batch.cases[..batch.len];
    let n_blocks = cases.len().div_ceil(block);
    if batch.blocks.len() < n_blocks {
        batch.blocks.resize_with(n_blocks, BlockOutput::default);
    }
    let slots: Vec<Mutex<Slot<C>>> =
        cases.chunks(block).zip(batch.blocks.iter_mut()).map(|(c, o)| Mutex::new(Slot::Todo(c, o))).collect();
    let taken = AtomicUsize::new(0);
    // Takes and solves one block; false when none is left.
    let solve_one = |scratch: &mut C::Scratch| -> bool {
        let i = taken.fetch_add(1, Ordering::Relaxed);
        let Some(slot) = slots.get(i) else { return false };
        let todo = std::mem::replace(&mut *lock(slot), Slot::Taken);
        if let Slot::Todo(cases, output) = todo {
            output.bytes.clear();
            output.ends.clear();
            output.error = None;
            for case in cases {
                if let Err(e) = game.solve(case, scratch, opts, &mut output.bytes) {
                    // Cases after an error are never written.
                    output.error = Some(e);
                    break;
                }
                output.ends.push(output.bytes.len());
            }
            *lock(slot) = Slot::Done(output);
        }
        true
    };
    let work = || {
        let mut scratch = lock(scratches).pop().unwrap_or_default();
        while solve_one(&mut scratch) {}
        lock(scratches).push(scratch);
    };
    let mut written = 0;
    // Writes the blocks finished in order so far.
    let mut write_ready = |out: &mut Output| -> Result<(), RunError> {
        while let Some(slot) = slots.get(written) {
            let mut slot = lock(slot);
            let Slot::Done(output) = &mut *slot else { break };
            output.write(out)?;
            written += 1;
        }
        Ok(())
    };
    let mut result = Ok(());
    std::thread::scope(|s| {
        for _ in 1..opts.jobs {
            s.spawn(work);
        }
        first();
        let mut scratch = lock(scratches).pop().unwrap_or_default();
        while result.is_ok() && solve_one(&mut scratch) {
            result = write_ready(out);
        }
        if result.is_err() {
            // No block after the error is needed.
            taken.store(usize::MAX / 2, Ordering::Relaxed);
        }
        lock(scratches).push(scratch);
    });
    result.and_then(|()| write_ready(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game whose cases are lines holding a number of microseconds to
    /// work; each case prints whether it ran on the thread that called
    /// `run_cases` (`main`, with that thread's processor time so far in
    /// microseconds) or on another (`other`).
    struct Spin(std::thread::ThreadId);

    impl Cases for Spin {
        type Case = u64;
        type Reader = ();
        type Scratch = ();

        fn read(&self, input: &mut Input, _: &mut (), case: &mut u64) -> Result<bool, InputError> {
            let Some(line) = input.next_line()? else { return Ok(false) };
            *case = line.trimmed().parse().map_err(|_| line.error("not a number"))?;
            Ok(true)
        }

        fn solve(&self, case: &u64, _: &mut (), _: &RunOptions, out: &mut Vec<u8>) -> Result<(), RunError> {
            let until = thread_time() + Duration::from_micros(*case);
            while thread_time() < until {}
            if std::thread::current().id() == self.0 {
                out.extend_from_slice(format!("main {}\n", thread_time().as_micros()).as_bytes());
            } else {
                out.extend_from_slice(b"other\n");
            }
            Ok(())
        }

        fn explain(
            &self,
            _: &u64,
            _: &mut (),
            _: &RunOptions,
            _: &mut dyn FnMut(Explanation) -> Result<(), RunError>,
        ) -> Result<(), RunError> {
            Ok(())
        }
    }

    /// How many cases ran on the calling thread before the first that ran
    /// on another, if any did, and the processor time the calling thread
    /// had used by the end of the last of them.
    fn first_on_another_thread(case_micros: u64, cases: usize, opts: RunOptions) -> Option<(usize, Duration)> {
        let text = format!("{case_micros}\n").repeat(cases);
        let start = thread_time();
        let mut printed = Vec::new();
        let mut out = Output::new(&mut printed);
        run_cases(&Spin(std::thread::current().id()), &mut Input::from_text(&text), &mut out, &opts).unwrap();
        out.flush().unwrap();
        drop(out);
        let text = String::from_utf8(printed).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), cases);
        let first = lines.iter().position(|&l| l == "other")?;
        let used = match first.checked_sub(1).map(|i| lines[i]) {
            Some(l) => Duration::from_micros(l["main ".len()..].parse().unwrap()).saturating_sub(start),
            None => Duration::ZERO,
        };
        Some((first, used))
    }

    #[test]
    fn by_default_fast_cases_stay_on_the_calling_thread() {
        let opts = RunOptions { jobs: 2, adaptive: true, ..Default::default() };
        assert_eq!(first_on_another_thread(0, 100_000, opts), None);
    }

    #[test]
    fn by_default_slow_cases_move_to_threads_after_the_warm_up() {
        let opts = RunOptions { jobs: 2, adaptive: true, ..Default::default() };
        let (first, used) = first_on_another_thread(200, 1200, opts).expect("no case on another thread");
        // The warm-up takes 100 ms of the calling thread's processor time,
        // at most 500 cases of 200 µs (fewer when the rest of a case costs
        // time too, as on a busy machine), and the clock is read after
        // cases 1, 3, 7, then every 8 or 16: the move comes soon after.
        // (The last case printed its time just before the driver read it.)
        assert!(used + WINDOW >= WARM_UP, "cases moved to threads after {used:?} of processor time");
        assert!(first <= 1100, "{first} cases on the calling thread first");
    }

    #[test]
    fn a_number_of_jobs_given_uses_threads_at_once() {
        let opts = RunOptions { jobs: 2, ..Default::default() };
        assert!(first_on_another_thread(0, 100_000, opts).is_some(), "no case on another thread");
    }
}
