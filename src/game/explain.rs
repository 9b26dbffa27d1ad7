//! Explanations (`arbiter run --explain`): for each output line, the rules
//! of the rule file that produced it, as source spans with what each one
//! contributed, and the values that decided. Rendering them is
//! `crate::report`'s business.

use crate::game::picture::Picture;
use crate::game::{Input, RunError, RunOptions};
use crate::source::Span;

/// Why one output line (or group of lines) is what it is.
#[derive(Debug, Clone, Default)]
pub struct Explanation {
    /// The output, as `run` prints it (without the final newline).
    pub output: String,
    /// One sentence: what was decided and why.
    pub summary: String,
    /// The rules that decided, each with what it contributed.
    pub rules: Vec<(Span, String)>,
    /// The values that decided, in order: (what, exact value).
    pub values: Vec<(String, String)>,
    /// What the engine's state looks like at the end of the case, when
    /// the engine draws it.
    pub picture: Option<Picture>,
    /// The options the engine weighed, ranked, each with its figures as
    /// exact numbers (empty for engines that weigh none: their values are
    /// the text of `values`).
    pub choices: Vec<Choice>,
}

/// One option an engine weighed for an output line: the line it would
/// print, whether it is the one chosen, its figures (exact where they
/// are), and how many of its equally likely outcomes end in each place
/// (a pay table's row, say).
#[derive(Debug, Clone, Default)]
pub struct Choice {
    pub output: String,
    pub chosen: bool,
    pub figures: Vec<crate::game::figures::Figure>,
    /// (where, how many), in the rule file's order.
    pub outcomes: Vec<(String, crate::game::figures::Value)>,
}

/// An engine that can explain its outputs.
pub trait Explain {
    /// Runs the input like `Game::run`, handing one explanation per output
    /// to `each`; an error from `each` (a closed output) ends the run.
    fn explain(
        &self,
        input: &mut Input,
        opts: &RunOptions,
        each: &mut dyn FnMut(Explanation) -> Result<(), RunError>,
    ) -> Result<(), RunError>;

    /// Whether its explanations come with a picture
    /// ([`Explanation::picture`]), so that `--format svg` has something to
    /// draw.
    fn pictures(&self) -> bool {
        false
    }
}
