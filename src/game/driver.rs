//! The driver of games whose cases are independent ([`Cases`]): read a
//! case, solve it, write its lines, in input order, on one core or all of
//! them.
//!
//! In parallel (`RunOptions::jobs` above 1), cases are read in batches.
//! While worker threads solve one batch, the calling thread reads the next
//! (then helps them), so reading and solving overlap; the outputs are written in input order as each batch ends. A
//! batch stops early when the input has no complete line buffered, so an
//! interactive input (a terminal, a slow pipe) gets each answer as soon as
//! its case is typed. Memory holds at most two batches, whatever the input's
//! size. On an error at case k (in the input, or a search limit), every case
//! before k is written and none after.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::{Cases, Explanation, Input, InputError, Output, RunError, RunOptions};

/// Most cases read ahead in one batch.
const BATCH: usize = 16384;
/// Batches smaller than this are solved on the calling thread.
const SMALL: usize = 16;
/// Cases a thread takes at a time.
const BLOCK: usize = 16;

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
    /// The outputs, a block of `BLOCK` cases each (kept for their
    /// allocations too).
    blocks: Vec<BlockOutput>,
    /// How reading ended: `None` while more cases may follow.
    end: Option<Result<(), InputError>>,
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

impl<C: Cases> Batch<C> {
    fn new() -> Self {
        Batch { cases: Vec::new(), len: 0, blocks: Vec::new(), end: None }
    }

    /// Reads up to `limit` cases, stopping early when the input has no
    /// complete line at hand.
    fn fill(&mut self, game: &C, input: &mut Input, reader: &mut C::Reader, limit: usize) {
        self.len = 0;
        while self.len < limit {
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

    /// Writes the solved cases in order, up to the first error.
    fn write(&mut self, out: &mut Output) -> Result<(), RunError> {
        for block in &mut self.blocks[..self.len.div_ceil(BLOCK)] {
            let mut from = 0;
            for &end in &block.ends {
                out.buffer().extend_from_slice(&block.bytes[from..end]);
                out.end_case()?;
                from = end;
            }
            if let Some(e) = block.error.take() {
                return Err(e);
            }
        }
        Ok(())
    }
}

fn run_parallel<C: Cases>(game: &C, input: &mut Input, out: &mut Output, opts: &RunOptions) -> Result<(), RunError> {
    let scratches: Mutex<Vec<C::Scratch>> = Mutex::new(Vec::new());
    let mut reader = C::Reader::default();
    let (mut current, mut next) = (Batch::<C>::new(), Batch::<C>::new());
    // Batches grow while the input keeps up, so that a short input is
    // answered at once and a long one spawns few threads.
    let mut limit = SMALL;
    current.fill(game, input, &mut reader, limit);
    loop {
        let more = current.end.is_none();
        limit = (limit * 2).min(BATCH);
        if current.len < SMALL {
            solve_batch(game, &mut current, &scratches, opts, 0, || {});
            if more {
                next.fill(game, input, &mut reader, limit);
            }
        } else {
            // The workers solve this batch while this thread reads the next
            // one, then helps them.
            let read_next = || {
                if more {
                    next.fill(game, input, &mut reader, limit);
                }
            };
            solve_batch(game, &mut current, &scratches, opts, opts.jobs - 1, read_next);
        }
        current.write(out)?;
        if let Some(end) = current.end.take() {
            return end.map_err(RunError::from);
        }
        std::mem::swap(&mut current, &mut next);
    }
}

/// The cases of one block and where their outputs go.
type Block<'b, C> = (&'b [<C as Cases>::Case], &'b mut BlockOutput);

/// Solves every case of a batch in blocks: `workers` threads take blocks
/// while this thread does `first`, then takes blocks too.
fn solve_batch<C: Cases>(
    game: &C,
    batch: &mut Batch<C>,
    scratches: &Mutex<Vec<C::Scratch>>,
    opts: &RunOptions,
    workers: usize,
    first: impl FnOnce(),
) {
    let cases = &batch.cases[..batch.len];
    let n_blocks = cases.len().div_ceil(BLOCK);
    if batch.blocks.len() < n_blocks {
        batch.blocks.resize_with(n_blocks, BlockOutput::default);
    }
    let blocks: Vec<Mutex<Option<Block<C>>>> =
        cases.chunks(BLOCK).zip(batch.blocks.iter_mut()).map(|b| Mutex::new(Some(b))).collect();
    let taken = AtomicUsize::new(0);
    let work = || {
        let mut scratch = scratches.lock().ok().and_then(|mut s| s.pop()).unwrap_or_default();
        loop {
            let i = taken.fetch_add(1, Ordering::Relaxed);
            let Some(block) = blocks.get(i) else { break };
            let Some((cases, output)) = block.lock().ok().and_then(|mut b| b.take()) else { continue };
            output.bytes.clear();
            output.ends.clear();
            output.error = None;
            for case in cases {
                if let Err(e) = game.solve(case, &mut scratch, opts, &mut output.bytes) {
                    // Cases after an error are never written.
                    output.error = Some(e);
                    break;
                }
                output.ends.push(output.bytes.len());
            }
        }
        if let Ok(mut s) = scratches.lock() {
            s.push(scratch);
        }
    };
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(work);
        }
        first();
        work();
    });
}
