//! Figures in place and worked examples run from the editor.
//!
//! After a save or a pause in typing, the figures of `arbiter analyze`
//! (the same options: default samples, seed 1) are computed on the
//! analysis thread, stoppable at each progress report, and shown: each
//! row of a table as an inlay hint at the end of its line (a pay-table
//! row with its probability and its share of the return), and the game's
//! headline (the return to player, the rate of decks played out, the
//! first mover's advantage: the first figure in percent, else the first
//! figure) as a code lens on the file's first line. A code lens on each
//! example runs the examples; a failing one becomes a diagnostic at its
//! head (`example-fails`).

use lsp_types::{
    CodeLens, Command, Diagnostic, DiagnosticSeverity, InlayHint, InlayHintLabel, NumberOrString, Position, Range,
};
use serde_json::json;

use super::analysis::Analysis;
use super::text::{LineIndex, Positions};
use super::worker::{Job, Report, Task};
use crate::diag::codes;
use crate::example::{Verdict, TEST_MAX_NODES};
use crate::game::{AnalyzeOptions, RunOptions};
use crate::source::Span;
use crate::syntax::Item;

/// The seed of `arbiter analyze` when none is given.
const SEED: u64 = 1;

/// The command a code lens runs to run the examples of a buffer.
pub const RUN_EXAMPLES: &str = "arbiter.runExamples";
/// The command that computes the figures of a buffer now.
pub const ANALYZE: &str = "arbiter.analyze";

/// The lines of `arbiter analyze`: (label, figures).
pub type Lines = Vec<(String, String)>;

/// One worked example as it ran.
#[derive(Debug, Clone)]
pub struct ExampleRun {
    pub name: String,
    /// Its head in the buffer.
    pub head: Span,
    pub verdict: Verdict,
}

/// What a figures or examples job found.
#[derive(Debug, Clone)]
pub enum Found {
    /// `arbiter analyze`'s lines; `None` when the engine has none.
    Figures(Option<Lines>),
    Examples(Vec<ExampleRun>),
}

/// A finished figures or examples job, of the buffer's text at
/// `generation`; `found` is `None` when it was cancelled or the buffer
/// does not compile.
pub struct Extra {
    pub uri: String,
    pub generation: u64,
    pub task: Task,
    pub found: Option<Found>,
}

/// Runs a figures or examples job.
pub fn run(job: &Job) -> Report {
    let overlay = |p: &std::path::Path| job.overlays.get(&super::text::canonical(p)).map(|(_, t)| t.to_string());
    let work = || {
        let compiled = Analysis::compile(&job.path, &job.text, &job.opts, &overlay)?;
        let limits = RunOptions { max_nodes: Some(TEST_MAX_NODES), ..RunOptions::default() };
        Some(match job.task {
            Task::Examples => Found::Examples(
                compiled
                    .examples
                    .iter()
                    .map(|ex| {
                        crate::cancel::point();
                        // The node limit of `arbiter test`: a slow example
                        // stops as it does there.
                        let verdict = crate::example::run_with(compiled.game.as_ref(), ex, &limits);
                        ExampleRun { name: ex.name.clone(), head: ex.head, verdict }
                    })
                    .collect(),
            ),
            _ => Found::Figures(compiled.game.analysis().map(|a| {
                let samples = a.default_samples().unwrap_or(0);
                let opts = AnalyzeOptions { samples, seed: SEED, max_nodes: None, jobs: 1 };
                a.analyze(&opts, &mut |_, _| crate::cancel::point())
            })),
        })
    };
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| crate::cancel::run(&job.cancel, work)));
    let found = match run {
        Ok(Ok(found)) => found,
        _ => None,
    };
    Report::Extra(Extra { uri: job.uri.clone(), generation: job.ticket, task: job.task, found })
}

/// The headline of an analysis: the first figure in percent, else the
/// first figure after the line that says what was counted.
pub fn headline(lines: &[(String, String)]) -> Option<String> {
    let (k, v) = lines.iter().find(|(k, v)| !k.starts_with(' ') && v.contains('%')).or_else(|| lines.get(1))?;
    let v = v.split(" (").next().unwrap_or(v);
    Some(format!("{}: {}", k.trim(), v.split_whitespace().collect::<Vec<_>>().join(" ")))
}

/// A row's figures, as shown after it: without the exact fraction.
fn row_text(v: &str) -> String {
    let v = v.split(" = ").next().unwrap_or(v);
    v.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Inlay hints: each row of the analysis at the end of the line of the
/// buffer's section that writes it.
pub fn inlay_hints(a: &Analysis, lines: &LineIndex, figures: &[(String, String)]) -> Vec<InlayHint> {
    let mut out = Vec::new();
    let Some(items) = &a.items else { return out };
    for (k, v) in figures.iter().filter(|(k, _)| k.starts_with(' ')) {
        let label = k.trim();
        let section = items.iter().find_map(|i| match i {
            Item::Section(s) if s.head.file == 0 && s.name().is_some_and(|n| n.value == label) => Some(s),
            _ => None,
        });
        let Some(s) = section else { continue };
        let line = lines.line_of(s.head.start as usize);
        let end = lines.line_range(line).1;
        out.push(InlayHint {
            position: lines.position(end),
            label: InlayHintLabel::String(row_text(v)),
            kind: None,
            text_edits: None,
            tooltip: None,
            padding_left: Some(true),
            padding_right: None,
            data: None,
        });
    }
    out
}

/// The code lenses of a buffer: the headline on its first line (or how
/// to get it), and "run examples" on each example (or how they went).
pub fn code_lenses(
    uri: &str,
    text: &str,
    lines: &LineIndex,
    figures: Option<&Option<Lines>>,
    examples: Option<&[ExampleRun]>,
) -> Vec<CodeLens> {
    let mut out = Vec::new();
    let lens = |range: Range, title: String, command: &str| CodeLens {
        range,
        command: Some(Command { title, command: command.into(), arguments: Some(vec![json!(uri)]) }),
        data: None,
    };
    let top = Range::new(Position::new(0, 0), Position::new(0, 0));
    match figures {
        Some(Some(f)) => out.extend(headline(f).map(|h| lens(top, h, ANALYZE))),
        Some(None) => {}
        None => out.push(lens(top, "figures: computed after a save or a pause (run now)".into(), ANALYZE)),
    }
    let Ok(items) = crate::syntax::parse(0, text) else { return out };
    for s in items.iter().filter_map(|i| match i {
        Item::Section(s) if s.kind.name == crate::load::NOT_INHERITED => Some(s),
        _ => None,
    }) {
        let name = s.name().map(|n| n.value.as_str()).unwrap_or_default();
        let ran = examples.and_then(|e| e.iter().find(|r| r.name == name));
        let title = match ran.map(|r| &r.verdict) {
            None => "▶ run examples".to_string(),
            Some(Verdict::Pass) => "✓ passes (run examples again)".to_string(),
            Some(Verdict::Limit(_)) => "… stopped by a limit (run examples again)".to_string(),
            Some(_) => "✗ fails (run examples again)".to_string(),
        };
        out.push(lens(lines.range(s.head.start as usize, s.head.end as usize), title, RUN_EXAMPLES));
    }
    out
}

/// A failing example as a diagnostic at its head.
pub fn example_diagnostics(lines: &LineIndex, runs: &[ExampleRun]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for r in runs {
        let (message, help) = match &r.verdict {
            Verdict::Pass => continue,
            Verdict::Limit(why) => {
                out.push(Diagnostic {
                    range: lines.range(r.head.start as usize, r.head.end as usize),
                    severity: Some(DiagnosticSeverity::WARNING),
                    code: Some(NumberOrString::String(codes::LIMIT.as_str().to_string())),
                    source: Some("arbiter".into()),
                    message: format!(
                        "example `{}` stopped: {why}\n`arbiter test` allows {TEST_MAX_NODES} nodes per case; \
                         `arbiter test --max-nodes N` allows more",
                        r.name
                    ),
                    ..Diagnostic::default()
                });
                continue;
            }
            Verdict::Differs(want, got) => {
                let diff = crate::example::diff(want, got);
                let shown: Vec<&str> = diff.lines().take(12).collect();
                (format!("example `{}` fails: the output differs", r.name), shown.join("\n"))
            }
            Verdict::WrongError { expected, got } => {
                let show = |e: &Option<String>| {
                    e.as_deref().map_or("no input error".to_string(), |m| format!("an input error with `{m}`"))
                };
                (format!("example `{}` fails: expected {}, got {}", r.name, show(expected), show(got)), String::new())
            }
        };
        out.push(Diagnostic {
            range: lines.range(r.head.start as usize, r.head.end as usize),
            severity: Some(DiagnosticSeverity::ERROR),
            code: Some(NumberOrString::String(codes::EXAMPLE_FAILS.as_str().to_string())),
            source: Some("arbiter".into()),
            message: if help.is_empty() { message } else { format!("{message}\n{help}") },
            ..Diagnostic::default()
        });
    }
    out
}
