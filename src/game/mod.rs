//! Running a lowered rule file on an input: the [`Game`] every engine
//! implements, the buffered [`Output`] they write lines to, and the errors
//! a run can end with.

pub mod explain;
pub mod input;

use std::io::{self, Write};

use crate::game::input::InputError;

/// How a run can fail after it started.
#[derive(Debug)]
pub enum RunError {
    /// The input is malformed; outputs before it were written.
    Input(InputError),
    /// Writing the output failed (a closed pipe, a full disk).
    Io(io::Error),
    /// A resource limit stopped the run (`--max-nodes`); outputs before it
    /// were written. The message says which limit, and where.
    Limit(String),
}

/// The node budget of search engines per case (`arbiter run --max-nodes`);
/// 0 means no limit.
static MAX_NODES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Sets the search budget per case (0: none).
pub fn set_max_nodes(n: u64) {
    MAX_NODES.store(n, std::sync::atomic::Ordering::Relaxed);
}

/// The search budget per case, if any.
pub fn max_nodes() -> Option<u64> {
    match MAX_NODES.load(std::sync::atomic::Ordering::Relaxed) {
        0 => None,
        n => Some(n),
    }
}

impl From<InputError> for RunError {
    fn from(e: InputError) -> Self {
        RunError::Input(e)
    }
}

impl From<io::Error> for RunError {
    fn from(e: io::Error) -> Self {
        RunError::Io(e)
    }
}

/// Buffered output that engines write whole lines to. It is flushed when
/// the buffer grows past a threshold, when the run ends, and before any
/// diagnostic is printed, so no computed line is ever lost.
pub struct Output<'w> {
    buf: Vec<u8>,
    sink: &'w mut dyn Write,
    /// Flush after every case (interactive use).
    eager: bool,
}

const FLUSH_AT: usize = 1 << 16;

impl<'w> Output<'w> {
    pub fn new(sink: &'w mut dyn Write) -> Self {
        Output { buf: Vec::with_capacity(FLUSH_AT + 1024), sink, eager: false }
    }

    /// Flush after every write (for terminals and pipes read line by line).
    pub fn eager(mut self, eager: bool) -> Self {
        self.eager = eager;
        self
    }

    /// Appends bytes (one or more whole lines).
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.buf.extend_from_slice(bytes);
        if self.eager || self.buf.len() >= FLUSH_AT {
            self.flush()?;
        }
        Ok(())
    }

    /// The buffer to render into directly; call [`Output::end_case`] after.
    pub fn buffer(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// Marks the end of a case: flushes when due.
    pub fn end_case(&mut self) -> io::Result<()> {
        if self.eager || self.buf.len() >= FLUSH_AT {
            self.flush()?;
        }
        Ok(())
    }

    pub fn flush(&mut self) -> io::Result<()> {
        if !self.buf.is_empty() {
            let r = self.sink.write_all(&self.buf);
            self.buf.clear();
            r?;
        }
        self.sink.flush()
    }
}

impl Drop for Output<'_> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// A rule file compiled for one of the engines, ready to run.
pub trait Game: Send + Sync {
    /// Runs every case of `input`, writing the outputs to `out`.
    fn run(&self, input: &str, out: &mut Output) -> Result<(), RunError>;

    /// The engine's analysis, when it has one.
    fn analysis(&self) -> Option<&dyn Analyze> {
        None
    }

    /// The engine's explanations, when it has them.
    fn explainer(&self) -> Option<&dyn crate::game::explain::Explain> {
        None
    }
}

/// Options of `arbiter analyze`.
#[derive(Debug, Clone, Copy)]
pub struct AnalyzeOptions {
    /// Random samples for engines that sample (decks, deals).
    pub samples: u64,
    /// Seed of the sampler: the same seed gives the same figures.
    pub seed: u64,
}

/// What `arbiter analyze` reports: labelled figures, in order.
pub type Analysis = Vec<(String, String)>;

/// An engine that can analyse its rules as a whole (`arbiter analyze`).
/// `progress(done, total)` is called now and then for long runs.
pub trait Analyze {
    fn analyze(&self, opts: &AnalyzeOptions, progress: &mut dyn FnMut(u64, u64)) -> Analysis;
}
