//! Diagnostics about rule files: one type for every problem `check` can
//! report, as data (spans, message, labels, help). `crate::report` renders
//! them.
//!
//! Every diagnostic has a stable code from the registry in [`codes`]
//! (`arbiter::unknown-name`, ...), listed in docs/diagnostics.md with a test
//! file that triggers it.

pub mod codes;
pub mod suggest;

pub use codes::Code;
pub use miette::Severity;
pub use suggest::closest as did_you_mean;

use crate::source::Span;

/// One problem in a rule file.
#[derive(Debug, Clone)]
pub struct Diag {
    /// Stable code (printed `arbiter::unknown-name`).
    pub code: Code,
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
    pub fn error(code: Code, span: Span, message: impl Into<String>) -> Self {
        // Each diagnostic is a point where an editor's stale check stops.
        crate::cancel::point();
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

    pub fn warning(code: Code, span: Span, message: impl Into<String>) -> Self {
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

    /// Adds the help line of [`suggest::help`] for an unknown `name`.
    pub fn suggest_among<'a>(self, name: &str, known: impl IntoIterator<Item = &'a str> + Clone) -> Self {
        match suggest::help(name, known) {
            Some(h) => self.help(h),
            None => self,
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}
