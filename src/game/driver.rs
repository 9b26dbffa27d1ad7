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

/// Reads, solves and writes every case of `input` in order.
pub fn run_cases<C: Cases>(game: &C, input: &mut Input, out: &mut Output, opts: &RunOptions) -> Result<(), RunError> {
    if opts.jobs > 1 {
        return run_parallel(game, input, out, opts);
    }
    let mut reader = C::Reader::default();
    let mut case = C::Case::default();
    let mut scratch = C::Scratch::default();
    while game.read(input, &mut reader, &mut case)? {
        game.solve(&case, &mut scratch, opts, out.buffer())?;
        out.end_case()?;
    }
    Ok(())
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

fn run_parallel<C: Cases>(game: &C, input: &mut Input, out: &mut Output, opts: &RunOptions) -> Result<(), RunError> {
    let scratches: Mutex<Vec<C::Scratch>> = Mutex::new(Vec::new());
    let mut reader = C::Reader::default();
    let (mut current, mut next) = (Batch::<C>::new(), Batch::<C>::new());
    // Batches grow while the input keeps up, so that a short input is
    // answered at once and a long one spawns few threads.
    let mut limit = SMALL;
    let mut slow = false;
    current.fill(game, input, &mut reader, limit);
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
                    next.fill(game, input, &mut reader, limit);
                }
            };
            solve_batch(game, &mut current, &scratches, opts, block, read_next, out)?;
            slow = started.elapsed() > SLOW * current.len as u32;
        }
        if let Some(end) = current.end.take() {
            return end.map_err(RunError::from);
        }
        if !ahead {
            next.fill(game, input, &mut reader, limit);
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
