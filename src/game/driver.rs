//! The driver of games whose input divides into independent cases
//! ([`Split`]: every [`Cases`] game, and the referee's frames): read and
//! run every case, and write each one's lines in input order, on one thread
//! or several.
//!
//! On several threads ([`RunOptions::jobs`]), the calling thread reads the
//! input in blocks and cuts it into parts between cases, where the game's
//! `boundary` says cases end (a line count, a count line, a terminator, a
//! blank line between frames), without reading the cases; a pool of worker
//! threads, started for the run (never per part), reads and runs whole
//! parts, each into its own log, while the calling thread reads on (and,
//! once it has read far enough ahead, runs parts too); the logs are written
//! in input order. The threads are as many as the work left promises to
//! repay, `jobs` at most: one per [`PER_THREAD`] of it, from the rate of
//! the cases run so far and the bytes left of an input of known size (all
//! of them for a stream), more starting as the parts written show more
//! work left ([`threads_for`]). Parts are sized by the processor time their
//! cases took so far (about [`PART_TIME`] each, at most [`PART_BYTES`],
//! smaller near the end of an input of known size: [`part_bytes`]), and
//! at most [`IN_FLIGHT`] parts per worker are read ahead: memory holds a few
//! parts, whatever the input's size.
//!
//! The promises of one thread hold:
//! - *Streaming*: the calling thread reads ahead only while the source has
//!   data at hand ([`Input::ready`]); before a read that would wait, every
//!   case read is run and written, and the cases that follow are read on
//!   this thread, one by one, until data is at hand again. A program that
//!   feeds cases one at a time through a pipe gets each answer before it
//!   sends the next.
//! - *Order and errors*: a part's cases are written only after every case
//!   before them. A part whose cases do not end where marked, or whose
//!   input error falls at its end (where the rest of the input might have
//!   gone on), keeps the cases it read and the rest is read again on this
//!   thread; so an error at case k is found as one thread finds it, after
//!   every case before k is written, and none after.
//! - *Signals*: the cases finished in input order so far, in parts still
//!   running too, are written by whoever writes the output (a read about
//!   to wait, a timer, a signal: see [`Output::set_pending`]).
//!
//! Where no boundary is found cheaply (a [`Mark::Stop`], a case longer than
//! `split::GIANT`), the rest is read on this thread, as without threads.
//!
//! *Parts read from the file.* When every line is a case
//! ([`Ahead::EachLine`]) and the input is a regular file
//! ([`Input::positional`]), the calling thread neither reads nor copies the
//! parts ([`Driver::read_up`]): it reads a few bytes where a part should
//! end, cuts it after the line end there, and the thread that runs the part
//! reads it from the file itself, so that its bytes come to that core's
//! caches from the system's rather than from the calling thread's (Get
//! Straight's million deals on two threads: 0.63 to 0.68 of one thread's
//! wall time and 1.12 to 1.19 of its processor time before, 0.59 and 1.05
//! to 1.06 after). The lines before such a part and its cases are not known
//! when it runs: a part whose cases do not end at its end, or that ends
//! with the terminator line, is read again from its start on this thread,
//! once every part before it is written and its lines before are known.
//!
//! By default (`RunOptions::adaptive`), cases are run on this thread first,
//! and threads are started only once the input proves large enough to repay
//! them: its size (when known) and the processor time per byte of the cases
//! after the first (over [`SAMPLE`] of work at least) promise at least
//! [`WORTH`] more work, or (a stream of unknown size) it has taken
//! [`WARM_UP`] already. The first case counts in the rate only when it
//! holds [`BIG_CASE`] bytes at least: it pays for what an engine builds
//! once, when the first case needs it (Get Straight's rank tables, about
//! 0.8 ms against a microsecond or two a deal: counted, they sent a
//! thousand deals to threads, 1.13 times the wall time of one thread). The
//! rate is of every case since, not of the last few: cases of one input may
//! differ much in work (House of Cards from M = 5 to M = 7).
//!
//! [`Mark::Stop`]: super::Mark::Stop

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use super::affinity::{self, Placement};
use super::input::{Positional, MAX_LINE};
use super::output::Pending;
use super::pool::{self, thread_time, InFlight, Job, Outcome, Pool, Status};
use super::split::{Found, Part, Splitter};
use super::{Ahead, Cases, Explanation, Input, Output, RunError, RunOptions, Split};

/// Processor time a part should take: long enough that handing it over
/// costs little, short enough that the last parts finish together.
const PART_TIME: Duration = Duration::from_millis(1);
/// Most input bytes in a part. The parts in flight and their logs pass
/// through the caches of the cores that read and run them, and evict a
/// game's tables: on two threads, Get Straight's reads of its table of
/// choices (371 KB) took 28 to 36 % more time than on one thread with
/// parts of 512 KiB, 20 % with parts of 128 KiB (profiles of five runs),
/// and the run 3 ms less processor time in all and 1 to 2 ms less wall
/// time (1,000,000 deals, medians of 15 and 21 interleaved runs).
const PART_BYTES: usize = 1 << 17;
/// Near the end of an input of known size, a part holds at most this
/// fraction of what is left per thread (see [`part_bytes`])...
const TAIL_SHARES: usize = 2;
/// ...and no less than this (unless [`PART_BYTES`] is).
const MIN_PART_BYTES: usize = 1 << 14;
/// Parts in flight per worker: waiting, running, or run and not yet written.
const IN_FLIGHT: usize = 2;
/// Cases run on this thread between two looks at the clock and the input,
/// at most (steps of one case, one case again, then doubling).
const MAX_STEP: u64 = 1 << 12;
/// The default starts threads when this much work is left...
const WORTH: Duration = Duration::from_millis(4);
/// ...as estimated from at least this much work done on the cases after
/// the first...
const SAMPLE: Duration = Duration::from_micros(500);
/// ...or from the first case too, when it holds this many bytes at least
/// (the tables an engine builds once weigh little against a case that
/// large; without it, Hex's large input, 88 KB a case, ran a case more on
/// one thread before threads started),
const BIG_CASE: usize = 64 << 10;
/// ...or, when the input's size is not known, once it has taken this long.
const WARM_UP: Duration = Duration::from_millis(10);
/// Threads start for the work an input of known size promises: one per
/// this much of it (two at least, and no more than `--jobs`). Each costs
/// its start, its first parts on cold caches and its share of the parts'
/// handing over: on a 16-core machine Havannah's large input (about 17 ms
/// of work) took 11.7 ms on four threads, 14.1 on eight and 23.7 on
/// sixteen (one thread: 17.6).
const PER_THREAD: Duration = Duration::from_millis(4);
/// The bytes of the first part read from the file (see
/// [`Driver::read_up`]), doubled for each part until one's processor time
/// is known.
const FIRST_FILE_PART: usize = 4 << 10;
/// Parts read again on one thread (their cases did not end where marked,
/// as when a frame holds a blank line) before the rest of the input is read
/// on one thread.
const REREADS: u32 = 4;

/// Reads, runs and writes every case of `input` in order (see the module's
/// documentation).
pub fn run_parts<S: Split>(game: &S, input: &mut Input, out: &mut Output, opts: &RunOptions) -> Result<(), RunError> {
    game.expect(input.size().map(|size| size.saturating_sub(input.offset())), opts.jobs);
    let mut reader = S::Reader::default();
    let mut scratch = S::Scratch::default();
    if opts.jobs <= 1 {
        game.run_part(input, &mut reader, &mut scratch, None, out, opts)?;
        return Ok(());
    }
    let pool = Pool::new();
    // Dropped after the workers end: the calling thread's processors back.
    let placement = Placement::new();
    std::thread::scope(|scope| {
        // Workers end once the driver is done, however it ends.
        let _close = Close(&pool);
        // A worker, held on processor `cpu` when there is one for each
        // thread the run may have.
        let spawn = |cpu: Option<usize>| {
            let pool = &pool;
            scope.spawn(move || {
                if let Some(cpu) = cpu {
                    affinity::hold(cpu);
                }
                pool::work(game, pool, opts)
            });
        };
        let mut driver = Driver {
            game,
            opts,
            pool: &pool,
            placement: &placement,
            spawn: &spawn,
            started: false,
            most: 0,
            jobs: 0,
            cpus: None,
            done_cpu: Duration::ZERO,
            done_bytes: 0,
            inflight: VecDeque::new(),
            registry: Arc::new(InFlight::default()),
            spare_bytes: Vec::new(),
            spare_outcomes: Vec::new(),
            want: 1,
            measured: false,
            first_rate: None,
            file_want: FIRST_FILE_PART,
            file_lines: 0,
            bytes: Vec::new(),
            rereads: 0,
            reader,
            part_reader: S::Reader::default(),
            scratch,
        };
        driver.run(input, out)
    })
}

/// Closes the pool when dropped.
struct Close<'p, R>(&'p Pool<R>);

impl<R> Drop for Close<'_, R> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// Why a parallel phase ended.
enum Leave {
    /// No boundary from here on: the rest is read on this thread.
    Done,
    /// The source has no data at hand.
    Blocked,
    /// A case longer than `split::GIANT`, which this thread reads; the
    /// offset the splitter had scanned to without finding its end.
    Giant(usize),
    /// A part's cases did not end where marked.
    Reread,
}

struct Driver<'a, S: Split> {
    game: &'a S,
    opts: &'a RunOptions,
    pool: &'a Pool<S::Reader>,
    placement: &'a Placement,
    /// Starts a worker, held on the processor given.
    spawn: &'a dyn Fn(Option<usize>),
    started: bool,
    /// The most threads of the run, this one included
    /// ([`RunOptions::threads`]), once they start...
    most: usize,
    /// ...and those started so far, as many as the work left promises to
    /// repay (see [`threads_for`]).
    jobs: usize,
    /// The processors of the run's threads, when each is held on one (see
    /// [`Placement::hold_caller`]).
    cpus: Option<Vec<usize>>,
    /// Processor time and input bytes of the parts written so far: the rate
    /// by which more threads start.
    done_cpu: Duration,
    done_bytes: usize,
    /// The parts in flight, in input order.
    inflight: VecDeque<Job<S::Reader>>,
    /// Their outcomes, for whoever writes the output.
    registry: Arc<InFlight>,
    spare_bytes: Vec<Vec<u8>>,
    spare_outcomes: Vec<Arc<Outcome>>,
    /// Cases the next part should hold: doubling from one until a part's
    /// processor time is known, then moved toward [`PART_TIME`] a part at
    /// a time (by a factor of 4 at most, so that one slow case or the
    /// costs of a tiny part do not swing it).
    want: u64,
    measured: bool,
    /// The rate of the cases run on this thread before threads started
    /// (processor time on that many bytes), when known.
    first_rate: Option<(Duration, usize)>,
    /// Bytes the next part read from the file should hold (see
    /// [`Driver::read_up`]): doubling from [`FIRST_FILE_PART`] until a
    /// part's processor time is known, then as `want`.
    file_want: usize,
    /// Lines before the first part in flight read from the file.
    file_lines: usize,
    /// This thread's buffer for the parts it reads from the file.
    bytes: Vec<u8>,
    rereads: u32,
    /// This thread's reader state (at the input's position between
    /// phases) and working memory.
    reader: S::Reader,
    /// The reader state of the part this thread runs (see [`pool::run`]).
    part_reader: S::Reader,
    scratch: S::Scratch,
}

impl<S: Split> Driver<'_, S> {
    fn run(&mut self, input: &mut Input, out: &mut Output) -> Result<(), RunError> {
        let start = (thread_time(), input.offset());
        // Where the cases that set the rate started (processor time,
        // offset): after the first, or at it when it has BIG_CASE bytes;
        // and their processor time and bytes so far (see the module's page).
        let (mut after_first, mut rate) = (None, None);
        let mut may_split = true;
        // A giant case read here: the offset the splitter had scanned to.
        let mut giant = None;
        let mut step = 1;
        loop {
            if !may_split {
                self.game.run_part(input, &mut self.reader, &mut self.scratch, None, out, self.opts)?;
                return Ok(());
            }
            let pays =
                self.started || !self.opts.adaptive || threads_pay(thread_time().saturating_sub(start.0), rate, input);
            if pays && (input.has_buffered_line() || input.ready()) {
                match self.parallel(input, out, rate)? {
                    Leave::Done => may_split = false,
                    Leave::Blocked => {}
                    Leave::Giant(scanned) => giant = Some(scanned),
                    Leave::Reread => {
                        self.rereads += 1;
                        may_split = self.rereads < REREADS;
                    }
                }
                // This thread reads on, a case at least: where the phase
                // left off, no part could be cut without more input.
                step = 1;
                if !may_split {
                    continue;
                }
            }
            let n = self.game.run_part(input, &mut self.reader, &mut self.scratch, Some(step), out, self.opts)?;
            if n < step {
                return Ok(());
            }
            let first = after_first.is_none();
            let now = (thread_time(), input.offset());
            let since = *after_first.get_or_insert(if now.1 - start.1 >= BIG_CASE { start } else { now });
            if now.1 > since.1 {
                rate = Some((now.0.saturating_sub(since.0), now.1 - since.1));
            }
            if let Some(scanned) = giant.take() {
                // The case ended before the point the splitter reached
                // without finding a boundary: its boundaries are not found.
                may_split = input.offset() >= scanned;
            }
            // The second step is one case too: the rate comes soon after
            // the first case (one of Havannah's large input is 0.4 ms).
            step = if first { 1 } else { (step * 2).min(MAX_STEP) };
        }
    }

    /// A phase on several threads, from the input's position to where it
    /// leaves the input again for this thread.
    fn parallel(
        &mut self,
        input: &mut Input,
        out: &mut Output,
        rate: Option<(Duration, usize)>,
    ) -> Result<Leave, RunError> {
        if !self.started {
            self.most = self.opts.threads();
            if self.most <= 1 {
                // One processor: this thread reads on alone.
                return Ok(Leave::Done);
            }
            self.started = true;
            self.first_rate = rate;
            self.cpus = self.placement.hold_caller(self.most, self.game.uses_pool());
            self.jobs = 1;
            let first = if self.opts.adaptive { threads_for(promised(rate, input), self.most) } else { self.most };
            self.grow_to(first);
        }
        out.set_pending(Some(self.registry.clone() as Arc<dyn Pending>));
        let file = input.positional_source().cloned();
        let result = match file {
            // Every line a case: the threads read their parts themselves.
            Some(file) if matches!(self.game.ahead(0), Ahead::EachLine { .. }) => self.read_up(&file, input, out),
            _ => {
                let buf = self.spare_bytes.pop().unwrap_or_default();
                let mut split = Splitter::new(input, self.reader.clone(), buf);
                let result = self.split_up(&mut split, input, out);
                self.spare_bytes.push(split.buf);
                result
            }
        };
        if result.is_err() {
            self.abandon();
        }
        out.set_pending(None);
        result
    }

    /// A phase whose parts are cut at line ends found by reading a few
    /// bytes of the input's file where each part should end, and read from
    /// the file by the threads that run them (see the module's page): this
    /// thread reads next to nothing and copies nothing. Ends at the last
    /// line end of the file as it was opened (or at a line longer than
    /// [`MAX_LINE`]), with every part written; this thread goes on there.
    fn read_up(&mut self, file: &Arc<Positional>, input: &mut Input, out: &mut Output) -> Result<Leave, RunError> {
        let mut next = input.offset();
        self.file_lines = input.line_number();
        let mut window = Vec::new();
        loop {
            if self.collect(out, IN_FLIGHT * self.jobs)? {
                return self.reread(&[], input);
            }
            let left = file.len().saturating_sub(next);
            self.grow(Some(left));
            let want = self.file_want.min(self.want_bytes(Some(left))).max(1);
            let Some(cut) = line_end_after(file, next, want, &mut window) else { break };
            let part = Part {
                bytes: Vec::new(),
                len: cut - next,
                offset: next,
                lines: 0,
                reader: self.reader.clone(),
                cases: 0,
                file: Some(file.clone()),
            };
            self.dispatch_part(part);
            next = cut;
        }
        if self.collect(out, 0)? {
            return self.reread(&[], input);
        }
        input.jump(next, self.file_lines)?;
        Ok(Leave::Done)
    }

    /// Cuts the input into parts and writes their cases, until the phase
    /// ends; the input is left where this thread goes on.
    fn split_up(
        &mut self,
        split: &mut Splitter<S::Reader>,
        input: &mut Input,
        out: &mut Output,
    ) -> Result<Leave, RunError> {
        loop {
            if self.collect(out, IN_FLIGHT * self.jobs)? {
                return self.reread(split.held(), input);
            }
            let left = input.size().map(|size| size.saturating_sub(split.next_offset()));
            self.grow(left);
            let found = split.scan(self.game, self.want_cases(), self.want_bytes(left), input.at_end());
            let leave = match found {
                Found::Part => {
                    self.dispatch(split);
                    continue;
                }
                Found::More if input.ready() => {
                    if let Err(e) = split.read_more(input, self.want_cases()) {
                        // What was read is still written.
                        self.finish(split, out)?;
                        return Err(e.into());
                    }
                    continue;
                }
                Found::More => Leave::Blocked,
                Found::Done => Leave::Done,
                Found::Giant => Leave::Giant(split.scanned_offset()),
            };
            if self.finish(split, out)? {
                return self.reread(split.held(), input);
            }
            input.rewind(split.held(), split.offset, split.lines);
            self.reader = split.start.clone();
            return Ok(leave);
        }
    }

    /// Sends the cases found as a last part, then waits for every part and
    /// writes it; true when a part must be read again.
    fn finish(&mut self, split: &mut Splitter<S::Reader>, out: &mut Output) -> Result<bool, RunError> {
        if split.cases > 0 {
            self.dispatch(split);
        }
        self.collect(out, 0)
    }

    /// Cuts the cases found into a part for the workers.
    fn dispatch(&mut self, split: &mut Splitter<S::Reader>) {
        let part = split.cut(self.spare_bytes.pop().unwrap_or_default());
        self.dispatch_part(part);
    }

    /// Hands `part` to the workers, or runs it on this thread.
    fn dispatch_part(&mut self, part: Part<S::Reader>) {
        let part = Arc::new(part);
        // Until a part's processor time is known, parts double, but not
        // past what the rate of the cases run on this thread says takes
        // PART_TIME: on sixteen threads, 33 parts are cut before the first
        // is done, and doubling alone cut House of Cards' thousand cases
        // into 13 parts (a few threads ran them all).
        if !self.measured && shorter_than_part_time(self.first_rate, part.len) {
            self.want = self.want.saturating_mul(2);
            self.file_want = self.file_want.saturating_mul(2);
        }
        let outcome = self.spare_outcomes.pop().unwrap_or_default();
        self.registry.push(outcome.clone());
        self.inflight.push_back(Job { part: part.clone(), outcome: outcome.clone() });
        let job = Job { part, outcome };
        if self.pool.waiting() + 1 >= self.jobs {
            // The workers have parts enough: this thread runs the one it
            // has just cut, its bytes still in this core's cache.
            pool::run(self.game, job, &mut self.part_reader, &mut self.scratch, &mut self.bytes, self.opts);
        } else {
            self.pool.push(job);
        }
    }

    /// Writes the parts run so far, in order, and waits for the first ones
    /// until at most `keep` are in flight; true when the first part must be
    /// read again (its cases before are written). A part's error is the
    /// run's, after its cases before it are written.
    fn collect(&mut self, out: &mut Output, keep: usize) -> Result<bool, RunError> {
        while let Some(head) = self.inflight.front() {
            let mut status = head.outcome.status();
            if status == Status::Running && self.inflight.len() > keep {
                // Rather than wait, this thread runs a part no worker took.
                if let Some(job) = self.pool.try_take() {
                    pool::run(self.game, job, &mut self.part_reader, &mut self.scratch, &mut self.bytes, self.opts);
                    continue;
                }
                status = self.pool.wait(&head.outcome);
            }
            match status {
                Status::Running => return Ok(false),
                Status::Done => {
                    if !head.outcome.log.all_written() {
                        out.flush()?;
                    }
                    self.retire();
                }
                Status::Failed => {
                    out.flush()?;
                    let e = head.outcome.take_error();
                    self.abandon();
                    return Err(e.unwrap_or_else(|| RunError::Limit("a part failed".into())));
                }
                Status::Reread => {
                    out.flush()?;
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// Drops the first part, written, keeping its memory for later parts
    /// and its processor time for their sizes.
    fn retire(&mut self) {
        let Some(Job { part, outcome }) = self.inflight.pop_front() else { return };
        self.registry.pop();
        self.done_cpu += outcome.cpu();
        self.done_bytes += part.len;
        let cpu = outcome.cpu().as_secs_f64().max(1e-7);
        if part.unmarked() {
            self.file_lines += outcome.lines();
            let aim = (part.len as f64 * PART_TIME.as_secs_f64() / cpu) as usize;
            self.file_want = aim.clamp((self.file_want / 4).max(1), self.file_want.saturating_mul(4));
        } else {
            let aim = (part.cases as f64 * PART_TIME.as_secs_f64() / cpu) as u64;
            self.want = aim.clamp((self.want / 4).max(1), self.want.saturating_mul(4));
        }
        self.measured = true;
        // A part read from the file has no buffer to keep.
        if let Ok(part) = Arc::try_unwrap(part) {
            if part.bytes.capacity() > 0 {
                self.spare_bytes.push(part.bytes);
            }
        }
        let mut outcome = outcome;
        if let Some(o) = Arc::get_mut(&mut outcome) {
            o.clear();
            self.spare_outcomes.push(outcome);
        }
    }

    /// Forgets every part in flight (after an error): none is written.
    fn abandon(&mut self) {
        self.registry.clear();
        self.pool.cancel();
        self.inflight.clear();
    }

    /// The first part's cases did not end where marked (or, read from the
    /// file, not at its end): its cases read so far are written; the input
    /// is rewound to its start (with `held`, the splitter's bytes after the
    /// parts; none for parts read from the file) and those cases read again
    /// unwritten, so that this thread goes on from the first case it did not
    /// read. Later parts are dropped.
    fn reread(&mut self, held: &[u8], input: &mut Input) -> Result<Leave, RunError> {
        let Some(Job { part, outcome }) = self.inflight.pop_front() else { return Ok(Leave::Reread) };
        let written = outcome.log.cases() as u64;
        // A part stopped by its output (see `output::PART_OUTPUT`): the
        // cases print too much for parts, the rest is read on this thread.
        let full = outcome.full();
        self.registry.clear();
        self.pool.cancel();
        if part.file.is_some() {
            // Read from the file: the input goes on from the part's start,
            // whose lines before are known (marked, or every part before it
            // is written).
            self.inflight.clear();
            let lines = if part.unmarked() { self.file_lines } else { part.lines };
            input.jump(part.offset, lines)?;
        } else {
            let mut bytes = part.bytes[..part.len].to_vec();
            for job in self.inflight.drain(..) {
                bytes.extend_from_slice(&job.part.bytes[..job.part.len]);
            }
            bytes.extend_from_slice(held);
            input.rewind(&bytes, part.offset, part.lines);
        }
        self.reader = part.reader.clone();
        let mut sink = std::io::sink();
        let mut quiet = Output::new(&mut sink);
        self.game.run_part(input, &mut self.reader, &mut self.scratch, Some(written), &mut quiet, self.opts)?;
        Ok(if full { Leave::Done } else { Leave::Reread })
    }

    /// Starts workers until the run has `n` threads (this one included).
    fn grow_to(&mut self, n: usize) {
        while self.jobs < n {
            (self.spawn)(self.cpus.as_ref().and_then(|c| c.get(self.jobs)).copied());
            self.jobs += 1;
        }
    }

    /// Starts more workers when the input `left` to cut into parts (`None`:
    /// not known), at the processor time per byte of the parts written so
    /// far, promises work for more threads than run (see [`threads_for`]).
    fn grow(&mut self, left: Option<usize>) {
        if self.jobs >= self.most || !self.opts.adaptive {
            return;
        }
        let work = match left {
            Some(left) => match at_rate(Some((self.done_cpu, self.done_bytes)), left) {
                Some(work) => Some(work),
                None => return,
            },
            None => None,
        };
        self.grow_to(threads_for(work, self.most));
    }

    /// Cases the next part should hold.
    fn want_cases(&self) -> u64 {
        self.want.max(1)
    }

    /// Most bytes of the next part, `left` bytes before the input's end
    /// when its size is known (see [`part_bytes`]).
    fn want_bytes(&self, left: Option<usize>) -> usize {
        let most = match self.opts.part_bytes {
            0 => PART_BYTES,
            n => n,
        };
        part_bytes(most, left, self.jobs)
    }
}

/// Most bytes of a part, `most` at most, `left` bytes before the input's
/// end (`None`: the size is not known) with `jobs` threads: near the end,
/// parts shrink with what is left, to a [`TAIL_SHARES`]-th of it per
/// thread (but no smaller than [`MIN_PART_BYTES`] unless `most` is), so
/// that the threads finish together rather than one running a long last
/// part while the others wait.
fn part_bytes(most: usize, left: Option<usize>, jobs: usize) -> usize {
    match left {
        Some(left) => most.min((left / (TAIL_SHARES * jobs.max(1))).max(MIN_PART_BYTES)),
        None => most,
    }
}

/// Whether `bytes` of input take less than [`PART_TIME`] at `rate`
/// (processor time on that many bytes; true when not known).
fn shorter_than_part_time(rate: Option<(Duration, usize)>, bytes: usize) -> bool {
    at_rate(rate, bytes).is_none_or(|took| took < PART_TIME)
}

/// The processor time `bytes` of input take at `rate` (processor time on
/// that many bytes; `None` when not known, or measured on no bytes), for
/// at most a million times the bytes measured.
fn at_rate(rate: Option<(Duration, usize)>, bytes: usize) -> Option<Duration> {
    let (took, per) = rate?;
    (per > 0).then(|| took.mul_f64((bytes as f64 / per as f64).min(1e6)))
}

/// The end of the first line that ends at or after `offset + want` in the
/// input's file (just past its `\n`), or of the last whole line before the
/// file's end when that comes first; `None` when no line ends past
/// `offset`, or none within [`MAX_LINE`] bytes or so of where the part
/// should end (a line that long is read on one thread, which says it is too
/// long). A few bytes are read, into `window`.
fn line_end_after(file: &Positional, offset: usize, want: usize, window: &mut Vec<u8>) -> Option<usize> {
    const WINDOW: usize = 4 << 10;
    let end = file.len();
    if offset >= end {
        return None;
    }
    window.resize(WINDOW, 0);
    let target = offset.saturating_add(want).min(end);
    // Forward from the byte before the target: a line that ends there ends
    // the part.
    let mut at = target - 1;
    while at < end && at - offset <= MAX_LINE {
        let n = file.read_at(at, &mut window[..WINDOW.min(end - at)]).ok()?;
        if n == 0 {
            break;
        }
        if let Some(i) = memchr::memchr(b'\n', &window[..n]) {
            return Some(at + i + 1);
        }
        at += n;
    }
    if at < end {
        // A line longer than any the input takes: read on one thread.
        return None;
    }
    // The file's last line has no `\n`: back to the last line end.
    let mut to = target;
    while to > offset {
        let from = to.saturating_sub(WINDOW).max(offset);
        let n = file.read_at(from, &mut window[..to - from]).ok()?;
        if let Some(i) = memchr::memrchr(b'\n', &window[..n]) {
            return Some(from + i + 1);
        }
        to = from;
    }
    None
}

/// Whether threads repay their cost, after `work` of processor time on
/// `input` (a stream's warm-up), the cases after the first (`rate`: none
/// before the second) taking that time on that many bytes.
fn threads_pay(work: Duration, rate: Option<(Duration, usize)>, input: &Input) -> bool {
    match (input.size(), rate) {
        (Some(_), Some((took, _))) if took >= SAMPLE => promised(rate, input).is_some_and(|left| left >= WORTH),
        (Some(_), _) => false,
        (None, _) => work >= WARM_UP,
    }
}

/// The processor time the rest of `input` promises, at `rate` (processor
/// time on that many bytes); `None` when its size or the rate is not known.
fn promised(rate: Option<(Duration, usize)>, input: &Input) -> Option<Duration> {
    at_rate(rate, input.size()?.saturating_sub(input.offset()))
}

/// The threads a run of at most `most` starts for `work` of processor
/// time left (`None`: not known, as for a stream): one per [`PER_THREAD`]
/// of it, two at least.
fn threads_for(work: Option<Duration>, most: usize) -> usize {
    match work {
        Some(work) => {
            let n = 1 + work.as_nanos() / PER_THREAD.as_nanos();
            usize::try_from(n).unwrap_or(usize::MAX).clamp(2.min(most), most)
        }
        None => most,
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Mark, Shared};
    use std::sync::{Condvar, Mutex};

    /// Near the end of an input of known size, parts shrink with what is
    /// left, to half of it per thread, never below the floor nor above the
    /// cap (a smaller cap given by `--part-bytes` holds); with the size
    /// unknown, the cap.
    /// The input `text` as a file of its own, read from byte `skip` on.
    fn positional(text: &[u8], skip: usize) -> Arc<Positional> {
        use std::io::Seek;
        let mut file = crate::game::input::temp_file(text);
        file.seek(std::io::SeekFrom::Start(skip as u64)).unwrap();
        let input = Input::new(std::io::empty()).positional(file);
        let file = input.positional_source().cloned().expect("a regular file");
        assert_eq!(file.len(), text.len() - skip);
        file
    }

    /// A part read from the file ends just past the first `\n` at or after
    /// the byte it should end at; near the file's end, at its last `\n`;
    /// never inside a line, and not at all past the last line end (nor
    /// within a line longer than any the input takes).
    #[test]
    fn parts_read_from_the_file_end_at_line_ends() {
        let mut window = Vec::new();
        let text = b"ab\ncdef\ng\nhij";
        let file = positional(text, 0);
        assert_eq!(line_end_after(&file, 0, 1, &mut window), Some(3));
        assert_eq!(line_end_after(&file, 0, 3, &mut window), Some(3));
        assert_eq!(line_end_after(&file, 0, 4, &mut window), Some(8));
        assert_eq!(line_end_after(&file, 3, 6, &mut window), Some(10));
        // Past the last `\n`: the last line (no `\n`) is this thread's.
        assert_eq!(line_end_after(&file, 8, 100, &mut window), Some(10));
        assert_eq!(line_end_after(&file, 10, 1, &mut window), None);
        assert_eq!(line_end_after(&file, 14, 1, &mut window), None);
        // From byte 3 of the file on: offsets are the input's.
        let file = positional(text, 3);
        assert_eq!(line_end_after(&file, 0, 1, &mut window), Some(5));
        assert_eq!(line_end_after(&file, 5, 1, &mut window), Some(7));
        // Every cut of a long input is a line end, whatever the part size.
        let lines: Vec<u8> = (0..2000).flat_map(|i| format!("{}\n", "x".repeat(i % 37)).into_bytes()).collect();
        let file = positional(&lines, 0);
        for want in [1, 7, 100, 5000] {
            let mut at = 0;
            while let Some(cut) = line_end_after(&file, at, want, &mut window) {
                assert!(cut > at && lines[cut - 1] == b'\n' && (cut - at >= want || cut == lines.len()));
                // The first line end from the byte the part should end at.
                let from = (at + want - 1).min(cut - 1);
                assert!(!lines[from..cut - 1].contains(&b'\n'), "parts of {want} bytes, cut at {cut}");
                at = cut;
            }
            assert_eq!(at, lines.len(), "parts of {want} bytes");
        }
        // A line far longer than MAX_LINE has no end the parts may use.
        let long: Vec<u8> = [b"a\n".as_slice(), &vec![b'x'; 2 * MAX_LINE], b"\nb\n"].concat();
        let file = positional(&long, 0);
        assert_eq!(line_end_after(&file, 0, 1, &mut window), Some(2));
        assert_eq!(line_end_after(&file, 2, 1, &mut window), None);
    }

    #[test]
    fn parts_shrink_near_the_end_of_the_input() {
        let most = PART_BYTES;
        assert_eq!(part_bytes(most, None, 2), most);
        assert_eq!(part_bytes(most, Some(100 << 20), 2), most);
        assert_eq!(part_bytes(most, Some(4 * most), 2), most);
        assert_eq!(part_bytes(most, Some(2 * most), 2), most / 2);
        assert_eq!(part_bytes(most, Some(2 * most), 4), most / 4);
        assert_eq!(part_bytes(most, Some(1000), 2), MIN_PART_BYTES);
        assert_eq!(part_bytes(most, Some(0), 0), MIN_PART_BYTES);
        assert_eq!(part_bytes(4096, Some(1000), 2), 4096);
        assert_eq!(part_bytes(1, Some(1 << 30), 2), 1);
    }

    /// A game whose cases are lines holding a number of microseconds to
    /// work (or `wait`: until the test opens the gate); each case prints
    /// whether it ran on the thread that called `run_parts` (`main`) or on
    /// another (`other`), after its number.
    struct Spin {
        main: std::thread::ThreadId,
        gate: Mutex<bool>,
        opened: Condvar,
        started: Mutex<Option<std::sync::mpsc::Sender<()>>>,
        /// The threads that ran a case.
        ran_on: Mutex<std::collections::HashSet<std::thread::ThreadId>>,
    }

    impl Spin {
        fn new() -> Spin {
            Spin {
                main: std::thread::current().id(),
                gate: Mutex::new(false),
                opened: Condvar::new(),
                started: Mutex::new(None),
                ran_on: Mutex::default(),
            }
        }
    }

    impl Cases for Spin {
        type Case = (u64, Option<u64>);
        type Reader = u64;
        type Scratch = ();

        fn read(&self, input: &mut Input, n: &mut u64, case: &mut (u64, Option<u64>)) -> Result<bool, InputError> {
            let Some(line) = input.next_line()? else { return Ok(false) };
            *n += 1;
            let work = match line.trimmed() {
                "wait" => None,
                t => Some(t.parse().map_err(|_| line.error("not a number"))?),
            };
            *case = (*n, work);
            Ok(true)
        }

        fn boundary(&self, n: &mut u64, _: &mut u64, _: &[u8]) -> Mark {
            *n += 1;
            Mark::Last
        }

        fn solve(
            &self,
            case: &(u64, Option<u64>),
            _: &mut (),
            _: &RunOptions,
            out: &mut Vec<u8>,
        ) -> Result<(), RunError> {
            match case.1 {
                Some(micros) => {
                    let until = thread_time() + Duration::from_micros(micros);
                    while thread_time() < until {}
                }
                None => {
                    if let Some(tx) = &*self.started.lock().unwrap() {
                        tx.send(()).unwrap();
                    }
                    let mut open = self.gate.lock().unwrap();
                    while !*open {
                        open = self.opened.wait(open).unwrap();
                    }
                }
            }
            self.ran_on.lock().unwrap().insert(std::thread::current().id());
            let on = if std::thread::current().id() == self.main { "main" } else { "other" };
            out.extend_from_slice(format!("{} {on}\n", case.0).as_bytes());
            Ok(())
        }

        fn explain(
            &self,
            _: &(u64, Option<u64>),
            _: &mut (),
            _: &RunOptions,
            _: &mut dyn FnMut(Explanation) -> Result<(), RunError>,
        ) -> Result<(), RunError> {
            Ok(())
        }
    }

    use super::super::InputError;

    /// The index of the first case that ran on another thread, if any.
    fn first_on_another_thread(input: &mut Input, cases: usize, opts: RunOptions) -> Option<usize> {
        let mut printed = Vec::new();
        let mut out = Output::new(&mut printed);
        run_parts(&Spin::new(), input, &mut out, &opts).unwrap();
        out.flush().unwrap();
        drop(out);
        let text = String::from_utf8(printed).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), cases);
        for (i, l) in lines.iter().enumerate() {
            assert!(l.starts_with(&format!("{} ", i + 1)), "case {} printed out of order: {l}", i + 1);
        }
        lines.iter().position(|l| l.ends_with("other"))
    }

    fn default_opts() -> RunOptions {
        RunOptions { jobs: 2, adaptive: true, ..Default::default() }
    }

    #[test]
    fn by_default_a_small_input_stays_on_the_calling_thread() {
        // 500 cases of a microsecond or two: less work in all than threads
        // need to pay.
        let text = "0\n".repeat(500);
        assert_eq!(first_on_another_thread(&mut Input::from_text(&text), 500, default_opts()), None);
    }

    /// The rate of work is of the cases after the first, over SAMPLE of
    /// work at least: a first case of 3 ms (an engine's tables built for
    /// it) on 6 bytes of 1,006 would promise 500 ms; the cases after it,
    /// 0.5 ms on 200 bytes, promise 2 ms. A large input at that rate pays;
    /// a rate from less work than SAMPLE is no estimate yet.
    #[test]
    fn threads_pay_by_the_rate_of_the_cases_after_the_first() {
        let (small, large) = ("x\n".repeat(503), "x\n".repeat(50_000));
        let (small, large): (&'static str, &'static str) = (small.leak(), large.leak());
        let at = |text: &'static str, offset: usize| {
            let mut input = Input::from_text(text);
            while input.offset() < offset {
                input.next_line().unwrap();
            }
            input
        };
        let ms = Duration::from_millis;
        assert!(!threads_pay(ms(3), None, &at(small, 6)));
        assert!(!threads_pay(ms(4), Some((SAMPLE, 200)), &at(small, 206)));
        assert!(threads_pay(ms(4), Some((SAMPLE, 200)), &at(large, 206)));
        assert!(!threads_pay(ms(4), Some((SAMPLE / 2, 100)), &at(large, 106)));
        // A stream: after WARM_UP of work, whatever its rate.
        let stream = Input::new(&b"x\n"[..]);
        assert!(!threads_pay(WARM_UP / 2, None, &stream));
        assert!(threads_pay(WARM_UP, None, &stream));
    }

    #[test]
    fn by_default_an_input_of_known_size_moves_to_threads_once_it_promises_enough_work() {
        // 400 cases of 100 µs of this thread's processor time: after the
        // first steps (1, 1, 2, 4 cases: 0.8 ms) the rest promises 39 ms.
        let text = "100\n".repeat(400);
        let first = first_on_another_thread(&mut Input::from_text(&text), 400, default_opts());
        let first = first.expect("no case on another thread");
        assert!((5..100).contains(&first), "{first} cases on the calling thread first");
    }

    #[test]
    fn by_default_a_stream_moves_to_threads_after_the_warm_up() {
        // Of unknown size: 100 cases (10 ms) at least on this thread, then
        // the next step's end (128 cases).
        let text = "100\n".repeat(400);
        let mut input = Input::new(text.as_bytes()).ready_when(|| true);
        let first = first_on_another_thread(&mut input, 400, default_opts()).expect("no case on another thread");
        assert!((100..300).contains(&first), "{first} cases on the calling thread first");
    }

    #[test]
    fn a_number_of_jobs_given_uses_threads_at_once() {
        let text = "0\n".repeat(100_000);
        let opts = RunOptions { jobs: 2, ..Default::default() };
        assert!(first_on_another_thread(&mut Input::from_text(&text), 100_000, opts).is_some());
    }

    /// Every processor (the default of `run`): counted when threads would
    /// start, and with one processor the calling thread reads on alone.
    #[test]
    fn every_processor_is_counted_when_threads_would_start() {
        let every = RunOptions { jobs: RunOptions::EVERY, adaptive: true, ..Default::default() };
        let cores = crate::game::processors();
        assert_eq!(every.threads(), cores);
        assert_eq!(RunOptions { jobs: 3, ..every }.threads(), 3);
        // 400 cases of 100 µs: enough work for threads, when there are two processors.
        let text = "100\n".repeat(400);
        let first = first_on_another_thread(&mut Input::from_text(&text), 400, every);
        assert_eq!(first.is_some(), cores > 1, "first case on another thread: {first:?}");
        // A small input never asks.
        let text = "0\n".repeat(500);
        assert_eq!(first_on_another_thread(&mut Input::from_text(&text), 500, every), None);
    }

    /// Before any part's time is known, parts double only while the rate
    /// of the cases run on the calling thread says they take less than
    /// PART_TIME.
    #[test]
    fn parts_double_only_up_to_the_part_time_the_first_rate_gives() {
        // 300 µs on 30 bytes: 10 µs a byte, PART_TIME in 100 bytes.
        let rate = Some((Duration::from_micros(300), 30));
        assert!(shorter_than_part_time(rate, 99));
        assert!(!shorter_than_part_time(rate, 100));
        assert!(!shorter_than_part_time(rate, 4000));
        assert!(shorter_than_part_time(None, usize::MAX));
        assert!(shorter_than_part_time(Some((Duration::from_secs(1), 0)), 10));
    }

    /// Threads start one per PER_THREAD of the work left (two at least, at
    /// most as many as allowed); all of them for a stream.
    #[test]
    fn threads_start_as_the_work_left_promises() {
        let ms = Duration::from_millis;
        assert_eq!(threads_for(None, 16), 16);
        assert_eq!(threads_for(Some(ms(0)), 16), 2);
        assert_eq!(threads_for(Some(PER_THREAD - ms(1)), 16), 2);
        assert_eq!(threads_for(Some(PER_THREAD * 2), 16), 3);
        assert_eq!(threads_for(Some(PER_THREAD * 100), 16), 16);
        assert_eq!(threads_for(Some(PER_THREAD * 100), 2), 2);
        assert_eq!(threads_for(Some(Duration::MAX), 1024), 1024);
        // 200 cases of 100 µs with sixteen threads allowed: about 20 ms of
        // work, which starts five or six threads, not sixteen.
        let text = "100\n".repeat(200);
        let game = Spin::new();
        let mut printed = Vec::new();
        let mut out = Output::new(&mut printed);
        let opts = RunOptions { jobs: 16, adaptive: true, ..Default::default() };
        run_parts(&game, &mut Input::from_text(&text), &mut out, &opts).unwrap();
        out.flush().unwrap();
        drop(out);
        assert_eq!(String::from_utf8(printed).unwrap().lines().count(), 200);
        let threads = game.ran_on.lock().unwrap().len();
        assert!(threads <= 8, "cases ran on {threads} threads");
    }

    #[test]
    fn an_input_that_would_block_is_answered_on_the_calling_thread() {
        // A source that never says it is ready (a pipe, a terminal): each
        // case is read here, and answered before the next is read.
        let text = "0\n".repeat(1000);
        let mut input = Input::new(text.as_bytes());
        let opts = RunOptions { jobs: 2, ..Default::default() };
        let first = first_on_another_thread(&mut input, 1000, opts);
        assert!(first.is_none_or(|i| i > 0));
    }

    /// What a signal does while a case runs (write what is finished, in
    /// order) writes every case before it, in parts still running too, and
    /// none after it.
    #[test]
    fn cases_finished_in_parts_still_running_are_written_while_a_later_one_runs() {
        #[derive(Clone, Default)]
        struct Seen(Arc<Mutex<Vec<u8>>>);
        impl std::io::Write for Seen {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let seen = Seen::default();
        let shared = Shared::new(seen.clone());
        let game = Arc::new(Spin::new());
        let (tx, started) = std::sync::mpsc::channel();
        *game.started.lock().unwrap() = Some(tx);
        let text = format!("{}wait\n{}", "1\n".repeat(99), "1\n".repeat(500));
        let runner = {
            let (game, shared) = (game.clone(), shared.clone());
            std::thread::spawn(move || {
                let mut out = Output::shared(shared);
                let opts = RunOptions { jobs: 2, ..Default::default() };
                run_parts(&*game, &mut Input::from_text(&text), &mut out, &opts).unwrap();
                out.flush().unwrap();
            })
        };
        started.recv().unwrap();
        let lines = || String::from_utf8(seen.0.lock().unwrap().clone()).unwrap();
        let since = std::time::Instant::now();
        while lines().lines().count() < 99 {
            assert!(shared.write_pending_within(Duration::from_secs(1)));
            assert!(since.elapsed() < Duration::from_secs(60), "cases 1 to 99 never written: {}", lines());
            std::thread::sleep(Duration::from_millis(1));
        }
        let text = lines();
        assert_eq!(text.lines().count(), 99, "nothing after the waiting case: {text}");
        for (i, l) in text.lines().enumerate() {
            assert!(l.starts_with(&format!("{} ", i + 1)), "{text}");
        }
        *game.gate.lock().unwrap() = true;
        game.opened.notify_all();
        runner.join().unwrap();
        let text = lines();
        assert_eq!(text.lines().count(), 600);
        for (i, l) in text.lines().enumerate() {
            assert!(l.starts_with(&format!("{} ", i + 1)), "{text}");
        }
    }
}
