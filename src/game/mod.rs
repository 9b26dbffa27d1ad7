//! The engine contract: what a compiled rule file offers and how it is
//! driven. Every engine implements [`Game`]; engines whose cases are
//! independent implement [`Cases`] and let [`run_cases`] read, solve and
//! write them. Nothing here renders anything: presentation (miette, JSON,
//! terminals) lives in `crate::report` and the binary.

mod driver;
pub mod explain;
pub mod figures;
pub mod input;
mod output;
pub mod records;

use std::io;

pub use driver::{explain_cases, run_cases};
pub use explain::{Explain, Explanation};
pub use figures::Report;
pub use input::{Input, InputError, Line, Scan, Token};
pub use output::{FlushBeforeRead, Output, Shared};

/// How a run can fail after it started.
#[derive(Debug)]
pub enum RunError {
    /// The input is malformed; outputs before it were written.
    Input(InputError),
    /// Reading the input or writing the output failed (a closed pipe, a
    /// full disk).
    Io(io::Error),
    /// A resource limit stopped the run (`--max-nodes`); outputs before it
    /// were written. The message says which limit, and where.
    Limit(String),
}

impl From<InputError> for RunError {
    fn from(e: InputError) -> Self {
        match e.kind {
            input::InputErrorKind::Unreadable(_) => RunError::Io(e.into()),
            _ => RunError::Input(e),
        }
    }
}

impl From<io::Error> for RunError {
    fn from(e: io::Error) -> Self {
        RunError::Io(e)
    }
}

/// Options of one run, passed down to the engines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RunOptions {
    /// Search nodes allowed per case (`--max-nodes`); `None`: no limit.
    pub max_nodes: Option<u64>,
    /// Threads that solve cases (`--jobs`); 0 or 1: the calling thread only.
    pub jobs: usize,
    /// `jobs` is a most, not a must: cases are solved on the calling
    /// thread until they prove slow enough for threads to pay (the default
    /// when `--jobs` is not given; see [`run_cases`]).
    pub adaptive: bool,
}

/// A rule file compiled for one of the engines, ready to run.
pub trait Game: Send + Sync {
    /// Runs every case of `input`, writing the outputs to `out` case by
    /// case; on an error, every case before it has been written.
    fn run(&self, input: &mut Input, out: &mut Output, opts: &RunOptions) -> Result<(), RunError>;

    /// The engine's analysis, when it has one.
    fn analysis(&self) -> Option<&dyn Analyze> {
        None
    }

    /// The engine's explanations, when it has them.
    fn explainer(&self) -> Option<&dyn Explain> {
        None
    }

    /// The engine's strategy charts, when it makes them.
    fn strategist(&self) -> Option<&dyn Strategy> {
        None
    }
}

/// A game whose input is a sequence of independent cases: it says how to
/// read one case and how to solve it; [`run_cases`] does the rest.
pub trait Cases: Sync {
    /// One case as read (reused from case to case).
    type Case: Send + Sync + Default;
    /// What reading carries from case to case (a count from a first line,
    /// the case number).
    type Reader: Default;
    /// Working memory of a solver (search tables), reused across cases.
    type Scratch: Send + Default;

    /// Reads the next case into `case`; false at the end of the input.
    fn read(&self, input: &mut Input, reader: &mut Self::Reader, case: &mut Self::Case) -> Result<bool, InputError>;

    /// Solves a case and appends its output line(s) to `out`. On an error
    /// nothing is appended.
    fn solve(
        &self,
        case: &Self::Case,
        scratch: &mut Self::Scratch,
        opts: &RunOptions,
        out: &mut Vec<u8>,
    ) -> Result<(), RunError>;

    /// Explains a case: one explanation per output line (or group of
    /// lines), whose outputs are exactly what `solve` appends.
    fn explain(
        &self,
        case: &Self::Case,
        scratch: &mut Self::Scratch,
        opts: &RunOptions,
        each: &mut dyn FnMut(Explanation) -> Result<(), RunError>,
    ) -> Result<(), RunError>;

    /// The engine's analysis, when it has one ([`Game::analysis`]).
    fn analyzer(&self) -> Option<&dyn Analyze> {
        None
    }

    /// The engine's strategy charts, when it makes them ([`Game::strategist`]).
    fn strategist(&self) -> Option<&dyn Strategy> {
        None
    }
}

/// A game of independent cases runs them with [`run_cases`] (in parallel
/// when asked) and explains them case by case.
impl<C: Cases + Send> Game for C {
    fn run(&self, input: &mut Input, out: &mut Output, opts: &RunOptions) -> Result<(), RunError> {
        run_cases(self, input, out, opts)
    }

    fn analysis(&self) -> Option<&dyn Analyze> {
        self.analyzer()
    }

    fn explainer(&self) -> Option<&dyn Explain> {
        Some(self)
    }

    fn strategist(&self) -> Option<&dyn Strategy> {
        Cases::strategist(self)
    }
}

impl<C: Cases> Explain for C {
    fn explain(
        &self,
        input: &mut Input,
        opts: &RunOptions,
        each: &mut dyn FnMut(Explanation) -> Result<(), RunError>,
    ) -> Result<(), RunError> {
        explain_cases(self, input, opts, each)
    }
}

/// Runs `game` on an input held in memory and returns what it printed,
/// with the error that ended the run, if any (tests, worked examples).
pub fn run_text(game: &dyn Game, input: &str, opts: &RunOptions) -> (String, Result<(), RunError>) {
    let mut printed = Vec::new();
    let result = {
        let mut out = Output::new(&mut printed);
        let r = game.run(&mut Input::from_text(input), &mut out, opts);
        r.and(out.flush().map_err(RunError::Io))
    };
    (String::from_utf8_lossy(&printed).into_owned(), result)
}

/// Options of `arbiter analyze`.
#[derive(Debug, Clone, Copy)]
pub struct AnalyzeOptions {
    /// Random samples for engines that sample (decks, deals); see
    /// [`Analyze::default_samples`].
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

    /// The analysis as data: figures with their exact values, and tables
    /// (`--format json`, `arbiter diff`). By default the labelled texts of
    /// [`Analyze::analyze`], without numbers.
    fn report(&self, opts: &AnalyzeOptions, progress: &mut dyn FnMut(u64, u64)) -> Report {
        Report::from_lines(self.analyze(opts, progress))
    }

    /// How many random samples an analysis takes when none are asked for
    /// (a few seconds' work); `None` for an exact analysis, which samples
    /// nothing.
    fn default_samples(&self) -> Option<u64> {
        None
    }
}

/// Options of `arbiter strategy`.
#[derive(Debug, Clone, Copy)]
pub struct StrategyOptions {
    /// Most lines of the chart.
    pub lines: usize,
}

/// An engine that writes a strategy chart for its rules (`arbiter
/// strategy`): classes of choices in the rule file's words, in the order a
/// player follows them, with the exact return of following the chart
/// literally. An error says why no chart can be made (the message names
/// the limit).
pub trait Strategy {
    fn chart(&self, opts: &StrategyOptions, progress: &mut dyn FnMut(u64, u64)) -> Result<Report, String>;
}
