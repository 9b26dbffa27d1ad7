//! The engine contract: what a compiled rule file offers and how it is
//! driven. Every engine implements [`Game`]; engines whose cases are
//! independent implement [`Cases`] and let [`run_parts`] read, solve and
//! write them, on one thread or several. Nothing here renders anything:
//! presentation (miette, JSON, terminals) lives in `crate::report` and the
//! binary.

mod affinity;
mod breaks;
mod driver;
pub mod explain;
pub mod figures;
pub mod input;
mod log;
mod output;
pub mod picture;
mod pool;
pub mod records;
pub mod sampling;
mod split;
#[cfg(test)]
pub(crate) use split::assert_hints_agree;
pub mod strategy;

use std::io;

pub use driver::{explain_cases, run_parts};
pub use explain::{Explain, Explanation};
pub use figures::Report;
pub use input::{is_read_error, Input, InputError, Line, Scan, Token};
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
    /// Threads that solve cases (`--jobs`); 0 or 1: the calling thread
    /// only; [`RunOptions::EVERY`]: one per processor available, counted
    /// only when threads start (see [`RunOptions::threads`]).
    pub jobs: usize,
    /// `jobs` is a most, not a must: cases are solved on the calling
    /// thread until the input proves large enough for threads to pay (the
    /// default when `--jobs` is not given; see [`run_parts`]).
    pub adaptive: bool,
    /// Most bytes of input in one part of a parallel run; 0: the driver's
    /// own sizes. A test hook (`--part-bytes`): 1 makes every case a part
    /// of its own.
    pub part_bytes: usize,
}

/// The processors this process may use (its affinity and its cgroup's
/// quota; 1 when they cannot be read). Reads files: ask only when threads
/// are about to start.
pub fn processors() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl RunOptions {
    /// `jobs` for a thread per processor available, the default of `run`.
    pub const EVERY: usize = usize::MAX;

    /// The threads of a parallel run: `jobs`, or for [`RunOptions::EVERY`]
    /// the processors this process may use. Asked of the system only here,
    /// when threads are about to start: the count reads the cgroup's
    /// limits from files, which took a run that stays on one thread
    /// 0.03-0.1 ms longer than `--jobs 1` (on a run of 2 ms).
    pub fn threads(&self) -> usize {
        match self.jobs {
            RunOptions::EVERY => processors(),
            n => n,
        }
    }
}

/// What a line of the input is to the parallel driver, which cuts the
/// input into parts between cases without reading them (see
/// [`Cases::boundary`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// Inside a case, or before the first one (a blank line, a count
    /// line): the input is not cut after it.
    Inside,
    /// The last line of a case: the input may be cut after it.
    Last,
    /// No boundary is found cheaply from this line on: the end of the
    /// cases (a terminator line, a line after the last counted case) or a
    /// line the reader will refuse. The rest of the input is read on one
    /// thread, as it comes.
    Stop,
}

/// What the lines after the one just marked are, as far as the boundary
/// can tell from `within` alone (see [`Cases::ahead`]): the splitter then
/// passes over them without calling the boundary line by line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ahead {
    /// Nothing known: every line goes through the boundary.
    Unknown,
    /// The next `n` lines that are not blank are inside the case, and each
    /// only takes one from `within` (blank lines change nothing).
    NonBlank(u64),
    /// Every line up to the next blank one is inside the case and changes
    /// nothing.
    UntilBlank,
    /// (At a case's start.) Every line that is not blank is a whole case
    /// and changes nothing, but a line starting with `stop` (the first
    /// byte of the terminator line; 0xFF, which no text holds, for none),
    /// which goes through the boundary. Nothing of a case's output may
    /// depend on the cases before it: from a file, the driver's threads
    /// run parts whose lines before them are not known yet (see
    /// `driver`'s page).
    EachLine { stop: u8 },
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

    /// The engine's strategy charts, when it has them.
    fn strategy(&self) -> Option<&dyn strategy::Strategy> {
        None
    }
}

/// A game whose input is a sequence of independent cases: it says how to
/// read one case, where a case ends, and how to solve it; [`run_parts`]
/// does the rest.
pub trait Cases: Sync {
    /// One case as read (reused from case to case).
    type Case: Send + Default;
    /// What reading carries from case to case (a count from a first line,
    /// the case number). A part of the input run on another thread starts
    /// from a copy.
    type Reader: Default + Clone + Send + Sync;
    /// Working memory of a solver (search tables), reused across cases.
    type Scratch: Send + Default;

    /// Reads the next case into `case`; false at the end of the input.
    fn read(&self, input: &mut Input, reader: &mut Self::Reader, case: &mut Self::Case) -> Result<bool, InputError>;

    /// Where cases end, found without reading them. The parallel driver
    /// calls it on every line of the input in order (its bytes without the
    /// line terminator, a byte order mark left out) and may cut the input
    /// after a line it marks [`Mark::Last`]: each part is then read by
    /// [`Cases::read`] on a worker thread, from a copy of `reader` as this
    /// method left it at the part's start, and must hold exactly the cases
    /// marked. So it counts cases in `reader` as `read` does (the case
    /// number at a case's last line, the total at a count line) and
    /// changes `reader` nowhere else; `within` (0 at the start of each
    /// case) is its own progress through a case (lines or cards left).
    ///
    /// A wrong mark costs time, never a wrong output: a part whose cases
    /// do not end where marked is read again on one thread. The default
    /// marks [`Mark::Stop`] at once: the input is read on one thread.
    fn boundary(&self, reader: &mut Self::Reader, within: &mut u64, line: &[u8]) -> Mark {
        let _ = (reader, within, line);
        Mark::Stop
    }

    /// What the lines after a line marked [`Mark::Inside`] are, given
    /// `within` as the boundary left it: a hint that lets the driver pass
    /// over lines a few instructions each. It must agree with `boundary`
    /// (a wrong hint costs time, as a wrong mark does, never a wrong
    /// output). The default knows nothing.
    fn ahead(&self, within: u64) -> Ahead {
        let _ = within;
        Ahead::Unknown
    }

    /// Whether solving a case may run work on rayon's pool (a table built
    /// the first time a case needs it): the parallel driver then starts the
    /// pool before it holds its threads on processors, so that the pool's
    /// threads, which start with the processors of the thread that starts
    /// them, are not all held on one. Starting it costs a thread per
    /// processor, which a game that never uses it does not pay. The default
    /// says no.
    fn uses_pool(&self) -> bool {
        false
    }

    /// Told once, before the first case is read, how many bytes of input
    /// the run has (a regular file's size; `None` when it cannot be known,
    /// as from a pipe) and how many threads work: an engine whose tables
    /// pay back only over many cases may build them now (on rayon's pool),
    /// whole, instead of entry by entry as cases need them. A hint for
    /// speed only: the outputs are the same either way. The default does
    /// nothing.
    fn expect(&self, bytes: Option<usize>, jobs: usize) {
        let _ = (bytes, jobs);
    }

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

    /// Whether its explanations come with a picture ([`Explanation::picture`]).
    fn pictures(&self) -> bool {
        false
    }

    /// The engine's analysis, when it has one ([`Game::analysis`]).
    fn analyzer(&self) -> Option<&dyn Analyze> {
        None
    }

    /// The engine's strategy charts, when it has them ([`Game::strategy`]).
    fn strategist(&self) -> Option<&dyn strategy::Strategy> {
        None
    }
}

/// A game whose input the driver can cut into parts between cases, and
/// run on several threads ([`run_parts`]): every [`Cases`] game is one, and
/// so is an engine that reads its cases itself (the referee's frames).
pub trait Split: Sync {
    /// What reading carries from case to case (see [`Cases::Reader`]).
    type Reader: Default + Clone + Send + Sync;
    /// Working memory of one thread, reused from part to part.
    type Scratch: Default + Send;

    /// Where cases end (see [`Cases::boundary`]).
    fn boundary(&self, reader: &mut Self::Reader, within: &mut u64, line: &[u8]) -> Mark;

    /// The lines ahead (see [`Cases::ahead`]).
    fn ahead(&self, within: u64) -> Ahead {
        let _ = within;
        Ahead::Unknown
    }

    /// As [`Cases::uses_pool`].
    fn uses_pool(&self) -> bool {
        false
    }

    /// The input's size, before the first case (see [`Cases::expect`]).
    fn expect(&self, bytes: Option<usize>, jobs: usize) {
        let _ = (bytes, jobs);
    }

    /// Reads and runs up to `limit` cases of `input` (every one when
    /// `None`) from the reader state `reader` (left as it is after the last
    /// one), handing each case's lines to `out` ([`Output::end_case`]);
    /// the number of cases run, fewer than `limit` only at the end of the
    /// cases. On an error, every case before it has been handed over.
    fn run_part(
        &self,
        input: &mut Input,
        reader: &mut Self::Reader,
        scratch: &mut Self::Scratch,
        limit: Option<u64>,
        out: &mut Output,
        opts: &RunOptions,
    ) -> Result<u64, RunError>;
}

/// A case as read and a solver's memory: what a thread of a [`Cases`]
/// game keeps from case to case.
pub struct CaseScratch<C: Cases> {
    case: C::Case,
    scratch: C::Scratch,
}

impl<C: Cases> Default for CaseScratch<C> {
    fn default() -> Self {
        CaseScratch { case: C::Case::default(), scratch: C::Scratch::default() }
    }
}

impl<C: Cases> Split for C {
    type Reader = C::Reader;
    type Scratch = CaseScratch<C>;

    #[inline]
    fn boundary(&self, reader: &mut C::Reader, within: &mut u64, line: &[u8]) -> Mark {
        Cases::boundary(self, reader, within, line)
    }

    #[inline]
    fn ahead(&self, within: u64) -> Ahead {
        Cases::ahead(self, within)
    }

    fn uses_pool(&self) -> bool {
        C::uses_pool(self)
    }

    fn expect(&self, bytes: Option<usize>, jobs: usize) {
        Cases::expect(self, bytes, jobs);
    }

    fn run_part(
        &self,
        input: &mut Input,
        reader: &mut C::Reader,
        s: &mut CaseScratch<C>,
        limit: Option<u64>,
        out: &mut Output,
        opts: &RunOptions,
    ) -> Result<u64, RunError> {
        let limit = limit.unwrap_or(u64::MAX);
        let mut n = 0;
        while n < limit && self.read(input, reader, &mut s.case)? {
            self.solve(&s.case, &mut s.scratch, opts, out.buffer())?;
            out.end_case()?;
            n += 1;
        }
        Ok(n)
    }
}

/// A game of independent cases runs them with [`run_parts`] (in parallel
/// when asked) and explains them case by case.
impl<C: Cases + Send> Game for C {
    fn run(&self, input: &mut Input, out: &mut Output, opts: &RunOptions) -> Result<(), RunError> {
        run_parts(self, input, out, opts)
    }

    fn analysis(&self) -> Option<&dyn Analyze> {
        self.analyzer()
    }

    fn explainer(&self) -> Option<&dyn Explain> {
        Some(self)
    }

    fn strategy(&self) -> Option<&dyn strategy::Strategy> {
        self.strategist()
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

    fn pictures(&self) -> bool {
        Cases::pictures(self)
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
    /// Most search nodes of the whole analysis, for engines that search
    /// (`analyze --max-nodes`); `None`: the engine's own budget. An
    /// analysis that reaches it reports the figure `stopped`.
    pub max_nodes: Option<u64>,
    /// Threads a sampled analysis may use (`analyze --jobs`; at least 1):
    /// the figures are the same whatever the number.
    pub jobs: usize,
}

/// What `arbiter analyze` reports: labelled figures, in order.
pub type Analysis = Vec<(String, String)>;

/// An engine that can analyse its rules as a whole (`arbiter analyze`).
/// `progress(done, total)` is called now and then for long runs.
pub trait Analyze {
    /// The analysis as data: figures with their exact values, and tables
    /// (`--format json`, `arbiter diff`).
    fn report(&self, opts: &AnalyzeOptions, progress: &mut dyn FnMut(u64, u64)) -> Report;

    /// The analysis as labelled texts ([`Report::lines`]).
    fn analyze(&self, opts: &AnalyzeOptions, progress: &mut dyn FnMut(u64, u64)) -> Analysis {
        self.report(opts, progress).lines()
    }

    /// How many random samples an analysis takes when none are asked for
    /// (a few seconds' work); `None` for an exact analysis, which samples
    /// nothing.
    fn default_samples(&self) -> Option<u64> {
        None
    }

    /// The node budget of the whole analysis when it searches (`analyze
    /// --max-nodes` changes it); `None` when it does not search.
    fn node_budget(&self) -> Option<u64> {
        None
    }

    /// The analysis split into parts of its samples, when it samples.
    fn sampled(&self) -> Option<&dyn Sampled> {
        None
    }
}

/// A sampled analysis in parts, for batch systems (`arbiter analyze --shard
/// I/K --partial`, then `arbiter merge`). Sample j is drawn from a random
/// stream of its own ([`crate::rng::SplitMix64::for_sample`]), so a range
/// of samples gives the same partial result wherever it is computed, and
/// the partial results of disjoint ranges that cover every sample, merged
/// in order, give exactly the figures of the whole analysis. On several
/// threads, consecutive chunks of a range are sampled apart and joined
/// ([`sampling::sample_range`]).
pub trait Sampled: Sync {
    /// The exact partial result of the samples `range` (of the
    /// `opts.samples` of the whole analysis), as JSON (see docs/cli.md).
    fn sample(
        &self,
        opts: &AnalyzeOptions,
        range: std::ops::Range<u64>,
        progress: &mut dyn FnMut(u64, u64),
    ) -> serde_json::Value;

    /// The figures of the whole analysis from the partial results of
    /// every sample, in sample order; an error for data that is not such a
    /// part.
    fn report(&self, opts: &AnalyzeOptions, parts: &[serde_json::Value]) -> Result<Report, String>;

    /// The parts of consecutive ranges of samples, in sample order, as the
    /// one part [`Sampled::sample`] gives of their ranges together: equal
    /// to it, so that threads change nothing (a part that ends early ends
    /// the join there).
    fn join(&self, opts: &AnalyzeOptions, parts: &[serde_json::Value]) -> serde_json::Value;

    /// Whether `part` stopped before the end of its samples (an analysis
    /// that ran out of its budget): the samples after it are not needed.
    fn ended(&self, opts: &AnalyzeOptions, part: &serde_json::Value) -> bool {
        let _ = (opts, part);
        false
    }
}

/// The whole of a sampled analysis: the report of one part of every sample.
pub fn analyze_sampled(s: &dyn Sampled, opts: &AnalyzeOptions, progress: &mut dyn FnMut(u64, u64)) -> Report {
    let opts = AnalyzeOptions { samples: opts.samples.max(1), ..*opts };
    let part = sampling::sample_range(s, &opts, 0..opts.samples, progress);
    s.report(&opts, &[part]).unwrap_or_else(|e| {
        Report::from_lines(vec![("error".to_string(), format!("a part of the analysis is not its own: {e}"))])
    })
}
