//! Explanations rendered for people (miette labels on the rule file) and
//! for tools (one JSON object per line).

use std::fmt;
use std::sync::Arc;

use miette::{Diagnostic, LabeledSpan, Severity, SourceCode};

use super::snippet::{snippet, Snippet};
use crate::game::figures::{fraction, Figure, Value};
use crate::game::Explanation;
use crate::source::{SourceMap, Span};

/// An explanation rendered by miette: the output line as the message, the
/// rules as labels on the rule file, the values as help lines.
#[derive(Debug)]
pub struct Rendered {
    message: String,
    src: Arc<Snippet>,
    labels: Vec<LabeledSpan>,
    help: String,
    related: Vec<Rendered>,
}

/// An explanation as a miette report: the output line as the message,
/// the rules as labels on the rule file, the values as help lines.
pub fn render(e: &Explanation, sources: &SourceMap) -> Rendered {
    // The rules, grouped by file in order of first appearance.
    let mut by_file: Vec<(u32, Vec<(Span, String)>)> = Vec::new();
    for (span, label) in &e.rules {
        match by_file.iter_mut().find(|(f, _)| *f == span.file) {
            Some((_, ls)) => ls.push((*span, label.clone())),
            None => by_file.push((span.file, vec![(*span, label.clone())])),
        }
    }
    // Each file's excerpt: only the lines the rules are on.
    let excerpt = |f: u32, rules: Vec<(Span, String)>| -> (Arc<Snippet>, Vec<LabeledSpan>) {
        let spans: Vec<Span> = rules.iter().map(|(s, _)| *s).collect();
        let (snip, mapped) = snippet(sources.file(f), &spans);
        let labels = rules
            .into_iter()
            .zip(mapped)
            .map(|((_, label), span)| LabeledSpan::new_with_span(Some(super::diag::escape(&label)), span))
            .collect();
        (Arc::new(snip), labels)
    };
    let values: Vec<String> = e.values.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    let help =
        std::iter::once(e.summary.clone()).chain(values).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("\n");
    let mut files = by_file.into_iter();
    let (first, rules) = files.next().unwrap_or((0, Vec::new()));
    let related = files
        .map(|(f, rules)| {
            let (src, labels) = excerpt(f, rules);
            Rendered {
                message: format!("rules in {}", super::diag::escape_line(&sources.file(f).name)),
                src,
                labels,
                help: String::new(),
                related: Vec::new(),
            }
        })
        .collect();
    let (src, labels) = excerpt(first, rules);
    Rendered { message: e.output.clone(), src, labels, help: super::diag::escape(&help), related }
}

impl fmt::Display for Rendered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Rendered {}

impl Diagnostic for Rendered {
    fn severity(&self) -> Option<Severity> {
        Some(Severity::Advice)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        (!self.help.is_empty()).then(|| Box::new(&self.help) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&*self.src)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        (!self.related.is_empty())
            .then(|| Box::new(self.related.iter().map(|r| r as &dyn Diagnostic)) as Box<dyn Iterator<Item = _>>)
    }
}

/// One JSON object (one line): output, summary, rules with file, line,
/// column and source text, and values.
pub fn to_json(e: &Explanation, sources: &SourceMap) -> String {
    let rules: Vec<serde_json::Value> = e
        .rules
        .iter()
        .map(|(span, label)| {
            let file = sources.file(span.file);
            let (line, column) = file.line_col(span.start as usize);
            serde_json::json!({
                "file": file.name, "line": line, "column": column,
                "text": sources.slice(*span), "says": label,
            })
        })
        .collect();
    let values: Vec<serde_json::Value> =
        e.values.iter().map(|(k, v)| serde_json::json!({ "what": k, "value": v })).collect();
    let choices: Vec<serde_json::Value> = e
        .choices
        .iter()
        .map(|c| {
            serde_json::json!({
                "output": c.output,
                "chosen": c.chosen,
                "figures": c.figures.iter().map(figure_json).collect::<Vec<_>>(),
                "outcomes": c.outcomes.iter().map(|(at, v)| {
                    let mut o = value_json(v);
                    o["at"] = at.as_str().into();
                    o
                }).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::json!({
        "output": e.output, "summary": e.summary, "rules": rules, "values": values, "choices": choices,
    })
    .to_string()
}

/// A number as JSON, as `analyze --format json` writes it (docs/cli.md):
/// `{"text", "value", "exact"}`, `value` a JSON number (an integer when it
/// is whole and fits 64 bits) or null, `exact` an `"n/d"` string or null.
pub fn value_json(v: &Value) -> serde_json::Value {
    use num_traits::ToPrimitive;
    let number = match v.exact.as_ref().filter(|x| x.is_integer()).and_then(|x| x.to_integer().to_i64()) {
        Some(n) => n.into(),
        None => v.number().filter(|x| x.is_finite()).map_or(serde_json::Value::Null, Into::into),
    };
    serde_json::json!({ "text": v.text, "value": number, "exact": v.exact.as_ref().map(fraction) })
}

/// A figure as JSON: its value with its `key` and `label`.
pub fn figure_json(f: &Figure) -> serde_json::Value {
    let mut o = value_json(&f.value);
    o["key"] = f.key.as_str().into();
    o["label"] = f.label.as_str().into();
    o
}
