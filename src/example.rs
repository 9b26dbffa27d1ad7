//! Worked examples kept inside rule files and run by `arbiter test`:
//!
//! ```text
//! example "the statement's sample" {
//!   input: """
//!     TH JH QH KH AH
//!     #
//!     """
//!   output: """
//!     Stay
//!     """
//! }
//! ```
//!
//! An example may also expect an input error: `error: "appears twice"`
//! (a part of the message); `output` then holds the lines printed before it.

use crate::check::{Block, Cx};
use crate::game::{run_text, Game, RunError, RunOptions};
use crate::source::Span;

#[derive(Debug, Clone)]
pub struct Example {
    pub name: String,
    pub input: String,
    pub output: String,
    /// A part of the input error the example expects, if any.
    pub error: Option<String>,
    pub head: Span,
}

/// How an example went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    /// The output differs: (expected, got).
    Differs(String, String),
    /// An input error was expected and none came, or another one came.
    WrongError {
        expected: Option<String>,
        got: Option<String>,
    },
    /// A resource limit stopped the example (the message says which).
    Limit(String),
}

/// Reads every `example` section of the file.
pub fn lower(top: &Block, cx: &mut Cx) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    for (s, name) in top.named_sections(cx, "example", "example") {
        let b = Block::of_section(s);
        let mut text = |key: &'static str, required: bool| {
            let p = if required { b.require(cx, key, "\"\"\"...\"\"\"") } else { b.prop(cx, key) }?;
            let e = cx.one(p, "a string")?;
            cx.string(e, "a string (\"\"\"...\"\"\" spans lines)").map(|s| s.value.clone())
        };
        let input = text("input", true);
        let output = text("output", true);
        let error = text("error", false);
        b.finish(cx);
        if let (Some(input), Some(output)) = (input, output) {
            out.push(Example { name: name.value.clone(), input, output, error, head: s.head });
        }
    }
    out
}

/// Search nodes allowed per case of an example by default (`arbiter
/// test`): a tenth of the tower engine's default for `run`. Worked
/// examples are small; one that needs more is stopped in well under a
/// second and reported as a limit, not left to search for many.
pub const TEST_MAX_NODES: u64 = 1_000_000;

/// Runs one example with the engine's own limits.
pub fn run(game: &dyn Game, ex: &Example) -> Verdict {
    run_with(game, ex, &RunOptions::default())
}

/// Runs one example with `opts` (`max_nodes`): a search stopped by a limit
/// is [`Verdict::Limit`], whatever the example expects.
pub fn run_with(game: &dyn Game, ex: &Example, opts: &RunOptions) -> Verdict {
    let (got, result) = run_text(game, &ex.input, opts);
    let error = match result {
        Ok(()) => None,
        Err(RunError::Input(e)) => Some(e.0.message),
        Err(RunError::Io(e)) => Some(e.to_string()),
        Err(RunError::Limit(m)) => return Verdict::Limit(m),
    };
    match (&ex.error, &error) {
        (None, None) => {}
        (Some(want), Some(got)) if got.contains(want.as_str()) => {}
        _ => return Verdict::WrongError { expected: ex.error.clone(), got: error },
    }
    if got == ex.output {
        Verdict::Pass
    } else {
        Verdict::Differs(ex.output.clone(), got)
    }
}

/// A unified line diff, `-` expected and `+` got.
pub fn diff(expected: &str, got: &str) -> String {
    similar::TextDiff::from_lines(expected, got).unified_diff().header("expected", "got").to_string()
}
