//! Diagnostics about rule files: one type for every problem `check` can
//! report, rendered by miette with the file's source, labels and help.
//!
//! Every diagnostic has a stable code (`arbiter::unknown-name`, ...) listed in
//! docs/diagnostics.md with a rule file that triggers it.

use std::fmt;
use std::sync::Arc;

use miette::{Diagnostic, LabeledSpan, NamedSource, Severity, SourceCode};

use crate::source::{SourceMap, Span};

/// One problem in a rule file.
#[derive(Debug, Clone)]
pub struct Diag {
    /// Stable code, without the `arbiter::` prefix (e.g. `unknown-name`).
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    /// The primary place, and what to say there.
    pub span: Span,
    pub label: String,
    /// Secondary places ("first defined here").
    pub notes: Vec<(Span, String)>,
    pub help: Option<String>,
}

impl Diag {
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diag {
            code,
            severity: Severity::Error,
            message: message.into(),
            span,
            label: String::new(),
            notes: Vec::new(),
            help: None,
        }
    }

    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diag { severity: Severity::Warning, ..Diag::error(code, span, message) }
    }

    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    pub fn note(mut self, span: Span, label: impl Into<String>) -> Self {
        self.notes.push((span, label.into()));
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Adds `help: did you mean ...?` when a suggestion is known.
    pub fn suggest(self, suggestion: Option<&str>) -> Self {
        match suggestion {
            Some(s) => self.help(format!("did you mean `{s}`?")),
            None => self,
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Attaches the source files so miette can render the diagnostic.
    pub fn report(&self, sources: &SourceMap) -> Report {
        let file = sources.file(self.span.file);
        let mut labels = vec![LabeledSpan::new_primary_with_span(
            (!self.label.is_empty()).then(|| self.label.clone()),
            self.span.miette(),
        )];
        let mut related = Vec::new();
        for (span, text) in &self.notes {
            if span.file == self.span.file {
                labels.push(LabeledSpan::new_with_span(Some(text.clone()), span.miette()));
            } else {
                related.push(Report {
                    code: self.code,
                    severity: Severity::Advice,
                    message: text.clone(),
                    src: sources.file(span.file).named.clone(),
                    labels: vec![LabeledSpan::new_primary_with_span(None, span.miette())],
                    help: None,
                    related: Vec::new(),
                });
            }
        }
        Report {
            code: self.code,
            severity: self.severity,
            message: self.message.clone(),
            src: file.named.clone(),
            labels,
            help: self.help.clone(),
            related,
        }
    }
}

/// A diagnostic with its source attached, ready for miette.
#[derive(Debug)]
pub struct Report {
    code: &'static str,
    severity: Severity,
    message: String,
    src: Arc<NamedSource<Arc<str>>>,
    labels: Vec<LabeledSpan>,
    help: Option<String>,
    related: Vec<Report>,
}

impl Report {
    /// A report on any named text (used for input files too).
    pub fn on_text(
        code: &'static str,
        name: &str,
        text: Arc<str>,
        offset: usize,
        len: usize,
        message: String,
        label: Option<String>,
        help: Option<String>,
    ) -> Report {
        Report {
            code,
            severity: Severity::Error,
            message,
            src: Arc::new(NamedSource::new(name, text)),
            labels: vec![LabeledSpan::new_primary_with_span(label, (offset, len))],
            help,
            related: Vec::new(),
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Report {}

impl Diagnostic for Report {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(format!("arbiter::{}", self.code)))
    }
    fn severity(&self) -> Option<Severity> {
        Some(self.severity)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help.as_ref().map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&*self.src)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        if self.related.is_empty() {
            None
        } else {
            Some(Box::new(self.related.iter().map(|r| r as &dyn Diagnostic)))
        }
    }
}

/// The closest candidate to `name`, if any is close enough to suggest.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_lowercase();
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(&lower, &c.to_lowercase()), c))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::did_you_mean;

    #[test]
    fn suggestions_need_to_be_close() {
        assert_eq!(did_you_mean("rnaks", ["ranks", "suits"]), Some("ranks"));
        assert_eq!(did_you_mean("Blakc", ["Black", "Blue", "Brown"]), Some("Black"));
        assert_eq!(did_you_mean("zzz", ["ranks", "suits"]), None);
    }
}

/// Renders a report as plain text (no colours, ASCII art), as the
/// snapshot tests and `--color never` show it.
pub fn render_plain(report: &Report) -> String {
    let mut out = String::new();
    let handler = miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .with_context_lines(1)
        .with_width(100)
        .with_links(false);
    let _ = handler.render_report(&mut out, report);
    out
}
