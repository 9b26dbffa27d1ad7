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

/// Most lines of each side a diff compares past their common start and
/// end: the diff's time grows with the product of the lines that differ,
/// and a worked example of 30,000 lines all different took 17 s to show.
const DIFF_LINES: usize = 2000;

/// A unified line diff, `-` expected and `+` got. Where both differ over
/// more than 2,000 lines (`DIFF_LINES`) past their common first and last lines,
/// the diff shows the first of them and says how many more it leaves out.
pub fn diff(expected: &str, got: &str) -> String {
    let unified =
        |e: &str, g: &str| similar::TextDiff::from_lines(e, g).unified_diff().header("expected", "got").to_string();
    let e: Vec<&str> = expected.split_inclusive('\n').collect();
    let g: Vec<&str> = got.split_inclusive('\n').collect();
    let same_start = e.iter().zip(&g).take_while(|(a, b)| a == b).count();
    let same_end = e[same_start..].iter().rev().zip(g[same_start..].iter().rev()).take_while(|(a, b)| a == b).count();
    let (e_rest, g_rest) = (e.len() - same_start - same_end, g.len() - same_start - same_end);
    if e_rest + g_rest <= 2 * DIFF_LINES {
        return unified(expected, got);
    }
    let (e_shown, g_shown) = (e_rest.min(DIFF_LINES), g_rest.min(DIFF_LINES));
    let mut text = unified(&e[..same_start + e_shown].concat(), &g[..same_start + g_shown].concat());
    text.push_str(&format!(
        "... {} more expected lines (from line {}) and {} more lines got (from line {}), not compared\n",
        e.len() - same_start - e_shown,
        same_start + e_shown + 1,
        g.len() - same_start - g_shown,
        same_start + g_shown + 1,
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A diff of outputs that differ over thousands of lines compares the
    /// first of them and says how many more it leaves out; shorter ones are
    /// whole.
    #[test]
    fn long_diffs_compare_their_first_differing_lines() {
        let lines = |n: usize, tag: &str| (0..n).map(|i| format!("{tag}{}\n", (i * 7919) % n)).collect::<String>();
        let (start, end) = ("same start\n".repeat(3), "same end\n".repeat(3));
        let expected = format!("{start}{}{end}", lines(3 * DIFF_LINES, "a"));
        let got = format!("{start}{}{end}", lines(2 * DIFF_LINES + 5, "b"));
        let text = diff(&expected, &got);
        let removed = text.lines().filter(|l| l.starts_with('-') && !l.starts_with("---")).count();
        let added = text.lines().filter(|l| l.starts_with('+') && !l.starts_with("+++")).count();
        assert_eq!((removed, added), (DIFF_LINES, DIFF_LINES));
        let note = format!(
            "... {} more expected lines (from line {}) and {} more lines got (from line {}), not compared",
            2 * DIFF_LINES + 3,
            DIFF_LINES + 4,
            DIFF_LINES + 8,
            DIFF_LINES + 4
        );
        assert_eq!(text.lines().last(), Some(note.as_str()), "{}", &text[text.len() - 300..]);
        // Under the bound: the whole diff, as before.
        let (short_e, short_g) =
            (format!("{start}{}{end}", lines(900, "a")), format!("{start}{}{end}", lines(900, "b")));
        let whole =
            similar::TextDiff::from_lines(&short_e, &short_g).unified_diff().header("expected", "got").to_string();
        assert_eq!(diff(&short_e, &short_g), whole);
    }
}
