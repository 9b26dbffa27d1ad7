//! Diagnostics as miette reports: rule-file problems with their source,
//! input errors with an excerpt of the offending line, and plain errors
//! (a file that cannot be written) with no source at all.

use std::fmt;
use std::sync::Arc;

use miette::{
    Diagnostic, LabeledSpan, MietteError, MietteSpanContents, Severity, SourceCode, SourceSpan, SpanContents,
};

use crate::diag::{codes, Code, Diag};
use crate::game::input::{InputError, InputErrorKind};
use crate::source::SourceMap;

/// Where a report's labels point.
#[derive(Debug, Clone)]
enum Src {
    None,
    File(Arc<crate::source::SourceFile>),
    Line(Arc<LineSource>),
}

/// A diagnostic ready for miette.
#[derive(Debug)]
pub struct Report {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    src: Src,
    labels: Vec<LabeledSpan>,
    pub help: Option<String>,
    related: Vec<Report>,
}

impl Report {
    /// An error with no place in a file (an output that cannot be written).
    pub fn plain(code: Code, message: impl Into<String>) -> Report {
        Report {
            code,
            severity: Severity::Error,
            message: escape(&message.into()),
            src: Src::None,
            labels: Vec::new(),
            help: None,
            related: Vec::new(),
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Report {
        self.help = Some(escape(&help.into()));
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Control characters escaped: no text from a file reaches a terminal raw.
fn escape(text: &str) -> String {
    if !text.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return text.to_string();
    }
    text.chars()
        .map(|c| if c.is_control() && c != '\n' && c != '\t' { c.escape_default().to_string() } else { c.to_string() })
        .collect()
}

/// A rule-file diagnostic with its files attached.
pub fn of_diag(d: &Diag, sources: &SourceMap) -> Report {
    let file = sources.file(d.span.file);
    let mut labels =
        vec![LabeledSpan::new_primary_with_span((!d.label.is_empty()).then(|| escape(&d.label)), d.span.miette())];
    let mut related = Vec::new();
    for (span, text) in &d.notes {
        if span.file == d.span.file {
            labels.push(LabeledSpan::new_with_span(Some(escape(text)), span.miette()));
        } else {
            related.push(Report {
                code: d.code,
                severity: Severity::Advice,
                message: escape(text),
                src: Src::File(sources.file(span.file).clone()),
                labels: vec![LabeledSpan::new_primary_with_span(None, span.miette())],
                help: None,
                related: Vec::new(),
            });
        }
    }
    Report {
        code: d.code,
        severity: d.severity,
        message: escape(&d.message),
        src: Src::File(file.clone()),
        labels,
        help: d.help.as_deref().map(escape),
        related,
    }
}

/// An input error, shown on its excerpt of the input named `name`.
pub fn of_input(e: &InputError, name: &str) -> Report {
    let code = match e.kind {
        InputErrorKind::Invalid => codes::INPUT,
        InputErrorKind::NotUtf8 => codes::INPUT_NOT_UTF8,
        InputErrorKind::LineTooLong => codes::INPUT_LINE_TOO_LONG,
        InputErrorKind::Unreadable(_) => codes::IO,
    };
    let place = e.place();
    let (src, labels, message) = match &e.excerpt {
        Some(x) => {
            // miette draws no label past the end of a line: a blank stands
            // there for the end of the line or of the input.
            let text = if x.start >= x.text.len() { format!("{} ", x.text) } else { x.text.clone() };
            let src = LineSource {
                name: name.to_string(),
                text,
                line: e.line.saturating_sub(1),
                column: e.column.saturating_sub(1),
            };
            let label = LabeledSpan::new_primary_with_span(Some(place.clone()), (x.start, x.len.max(1)));
            (Src::Line(Arc::new(src)), vec![label], e.message.clone())
        }
        None => (Src::None, Vec::new(), format!("{} ({name}, {place})", e.message)),
    };
    Report {
        code,
        severity: Severity::Error,
        message: escape(&message),
        src,
        labels,
        help: e.help.as_deref().map(escape),
        related: Vec::new(),
    }
}

/// One line of an input, shown with its own line number.
#[derive(Debug)]
struct LineSource {
    name: String,
    text: String,
    /// 0-based line number, and the error's 0-based column in the whole
    /// line (the excerpt may be cut).
    line: usize,
    column: usize,
}

impl SourceCode for LineSource {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        _after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        if span.offset() + span.len() > self.text.len() {
            return Err(MietteError::OutOfBounds);
        }
        // The header shows the span's column when no context is asked for.
        let column = if before == 0 { self.column } else { 0 };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            self.text.as_bytes(),
            (0, self.text.len()).into(),
            self.line,
            column,
            1,
        )))
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
        match &self.src {
            Src::None => None,
            Src::File(f) => Some(&**f),
            Src::Line(l) => Some(&**l),
        }
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        (!self.labels.is_empty()).then(|| Box::new(self.labels.iter().cloned()) as Box<dyn Iterator<Item = _>>)
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        if self.related.is_empty() {
            None
        } else {
            Some(Box::new(self.related.iter().map(|r| r as &dyn Diagnostic)))
        }
    }
}

/// Renders a report as plain text (no colours), as the snapshot tests and
/// `--color never` show it.
pub fn render_plain(report: &Report) -> String {
    render(report, false, 100)
}

/// Renders a report, in colour or not, wrapped at `width` columns.
pub fn render(report: &dyn Diagnostic, colour: bool, width: usize) -> String {
    let theme = if colour { miette::GraphicalTheme::unicode() } else { miette::GraphicalTheme::unicode_nocolor() };
    let handler =
        miette::GraphicalReportHandler::new_themed(theme).with_context_lines(1).with_width(width).with_links(false);
    let mut out = String::new();
    let _ = handler.render_report(&mut out, report);
    out
}
