//! Explanations (`arbiter run --explain`): for each output line, the rules
//! of the rule file that produced it, as source spans with what each one
//! contributed, and the values that decided.

use std::fmt;
use std::sync::Arc;

use miette::{Diagnostic, LabeledSpan, NamedSource, Severity, SourceCode};

use crate::game::RunError;
use crate::source::{SourceMap, Span};

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
}

/// An engine that can explain its outputs.
pub trait Explain {
    /// Runs the input like `Game::run`, handing one explanation per output.
    fn explain(&self, input: &str, each: &mut dyn FnMut(Explanation)) -> Result<(), RunError>;
}

/// An explanation rendered by miette: the output line as the message, the
/// rules as labels on the rule file, the values as help lines.
#[derive(Debug)]
pub struct Rendered {
    message: String,
    src: Arc<NamedSource<Arc<str>>>,
    labels: Vec<LabeledSpan>,
    help: String,
    related: Vec<Rendered>,
}

impl Explanation {
    pub fn render(&self, sources: &SourceMap) -> Rendered {
        let mut by_file: Vec<(u32, Vec<LabeledSpan>)> = Vec::new();
        for (span, label) in &self.rules {
            let l = LabeledSpan::new_with_span(Some(label.clone()), span.miette());
            match by_file.iter_mut().find(|(f, _)| *f == span.file) {
                Some((_, ls)) => ls.push(l),
                None => by_file.push((span.file, vec![l])),
            }
        }
        let values: Vec<String> = self.values.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        let help = std::iter::once(self.summary.clone())
            .chain(values)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n");
        let mut files = by_file.into_iter();
        let (first, labels) = files.next().unwrap_or((0, Vec::new()));
        let related = files
            .map(|(f, labels)| Rendered {
                message: format!("rules in {}", sources.file(f).name),
                src: sources.file(f).named.clone(),
                labels,
                help: String::new(),
                related: Vec::new(),
            })
            .collect();
        Rendered { message: self.output.clone(), src: sources.file(first).named.clone(), labels, help, related }
    }
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

impl Explanation {
    /// One JSON object (one line): output, summary, rules with file, line,
    /// column and source text, and values.
    pub fn to_json(&self, sources: &SourceMap) -> String {
        let rules: Vec<serde_json::Value> = self
            .rules
            .iter()
            .map(|(span, label)| {
                let file = sources.file(span.file);
                let before = &file.text[..(span.start as usize).min(file.text.len())];
                let line = before.matches('\n').count() + 1;
                let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                serde_json::json!({
                    "file": file.name, "line": line, "column": column,
                    "text": sources.slice(*span), "says": label,
                })
            })
            .collect();
        let values: Vec<serde_json::Value> =
            self.values.iter().map(|(k, v)| serde_json::json!({ "what": k, "value": v })).collect();
        serde_json::json!({ "output": self.output, "summary": self.summary, "rules": rules, "values": values })
            .to_string()
    }
}
