//! Diagnostics as miette reports: rule-file problems with their source,
//! input errors with an excerpt of the offending line, and plain errors
//! (a file that cannot be written) with no source at all.

use std::fmt;
use std::sync::Arc;

use miette::{
    Diagnostic, LabeledSpan, MietteError, MietteSpanContents, Severity, SourceCode, SourceSpan, SpanContents,
};

use super::snippet::{snippet, Snippet};
use crate::diag::{codes, Code, Diag};
use crate::game::input::{InputError, InputErrorKind};
use crate::source::{FileId, SourceMap, Span};

/// Most diagnostics shown for one file; the rest are counted in one line.
pub const MAX_PER_FILE: usize = 50;

/// Where a report's labels point.
#[derive(Debug, Clone)]
enum Src {
    None,
    Snippet(Arc<Snippet>),
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

    /// A remark with no place in a file (not an error).
    pub fn advice(code: Code, message: impl Into<String>) -> Report {
        Report { severity: Severity::Advice, ..Report::plain(code, message) }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Report {
        self.help = Some(escape(&help.into()));
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Control and invisible characters escaped: no text from a file reaches a
/// terminal raw; and names too long to read shortened ([`shorten`]).
pub(crate) fn escape(text: &str) -> String {
    shorten(&crate::syntax::parse::visible(text))
}

/// A name in backquotes longer than this many characters is shown by its
/// first and last `NAME_END` characters.
pub const MAX_NAME_SHOWN: usize = 80;
const NAME_END: usize = 38;

/// `text` with every `` `name` `` over [`MAX_NAME_SHOWN`] characters cut in
/// its middle (`` `aaaa…bbbb` ``): a rule file's 3,000-character label is
/// named in a diagnostic by 77 characters, so that a few dozen diagnostics
/// stay a few kilobytes whatever the labels.
pub fn shorten(text: &str) -> String {
    let mut parts = text.split('`');
    let mut out = String::with_capacity(text.len().min(4096));
    out.push_str(parts.next().unwrap_or(""));
    for (k, part) in parts.enumerate() {
        out.push('`');
        // Odd pieces (the first after each opening backquote) are names.
        let n = if k % 2 == 0 { part.chars().count() } else { 0 };
        if n > MAX_NAME_SHOWN {
            out.extend(part.chars().take(NAME_END));
            out.push('…');
            out.extend(part.chars().skip(n - NAME_END));
        } else {
            out.push_str(part);
        }
    }
    out
}

/// Text shown within one line (a file name, a title, a cell of a table):
/// line breaks and tabs escaped too (`\n`, `\t`), with every other control
/// or invisible character (`\u{1b}`).
pub fn escape_line(text: &str) -> String {
    if !text.chars().any(|c| c == '\n' || c == '\t' || crate::syntax::parse::invisible(c)) {
        return text.to_string();
    }
    escape(&text.replace('\n', "\\n").replace('\t', "\\t"))
}

/// A rule-file diagnostic with the excerpts of its files attached.
pub fn of_diag(d: &Diag, sources: &SourceMap) -> Report {
    let file = sources.file(d.span.file);
    let here: Vec<&(Span, String)> = d.notes.iter().filter(|(span, _)| span.file == d.span.file).collect();
    // A file that could not be read has no text to show: no empty box (the
    // message names the file).
    let nothing_to_show = file.text.is_empty() && here.is_empty() && d.span.start == d.span.end;
    let spans: Vec<Span> = std::iter::once(d.span).chain(here.iter().map(|(s, _)| *s)).collect();
    let (excerpt, mapped) = snippet(file, &spans);
    let mut labels =
        vec![LabeledSpan::new_primary_with_span((!d.label.is_empty()).then(|| escape(&d.label)), mapped[0])];
    for ((_, text), span) in here.iter().zip(&mapped[1..]) {
        labels.push(LabeledSpan::new_with_span(Some(escape(text)), *span));
    }
    let related = d
        .notes
        .iter()
        .filter(|(span, _)| span.file != d.span.file)
        .map(|(span, text)| {
            let (excerpt, mapped) = snippet(sources.file(span.file), &[*span]);
            Report {
                code: d.code,
                severity: Severity::Advice,
                message: escape(text),
                src: Src::Snippet(Arc::new(excerpt)),
                labels: vec![LabeledSpan::new_primary_with_span(None, mapped[0])],
                help: None,
                related: Vec::new(),
            }
        })
        .collect();
    Report {
        code: d.code,
        severity: d.severity,
        message: escape(&d.message),
        src: if nothing_to_show { Src::None } else { Src::Snippet(Arc::new(excerpt)) },
        labels: if nothing_to_show { Vec::new() } else { labels },
        help: d.help.as_deref().map(escape),
        related,
    }
}

/// The diagnostics to show: at most [`MAX_PER_FILE`] per file, in order,
/// then for each file with more, how many more (errors, warnings).
pub fn capped(diags: &[Diag]) -> (Vec<&Diag>, Vec<More>) {
    let mut shown = Vec::new();
    let mut counts: Vec<(FileId, usize)> = Vec::new();
    let mut more: Vec<More> = Vec::new();
    for d in diags {
        let file = d.span.file;
        let n = match counts.iter_mut().find(|(f, _)| *f == file) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                counts.push((file, 1));
                1
            }
        };
        if n <= MAX_PER_FILE {
            shown.push(d);
            continue;
        }
        let m = match more.iter_mut().position(|m| m.file == file) {
            Some(i) => &mut more[i],
            None => {
                more.push(More { file, errors: 0, warnings: 0 });
                more.last_mut().expect("just pushed")
            }
        };
        if d.is_error() {
            m.errors += 1;
        } else {
            m.warnings += 1;
        }
    }
    (shown, more)
}

/// Diagnostics of one file left out by [`capped`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct More {
    pub file: FileId,
    pub errors: usize,
    pub warnings: usize,
}

impl More {
    /// What is said about them.
    pub fn message(&self, sources: &SourceMap) -> String {
        let n = self.errors + self.warnings;
        format!(
            "{n} more diagnostic{} in `{}` not shown ({} error{}, {} warning{})",
            if n == 1 { "" } else { "s" },
            escape_line(&sources.file(self.file).name),
            self.errors,
            if self.errors == 1 { "" } else { "s" },
            self.warnings,
            if self.warnings == 1 { "" } else { "s" },
        )
    }

    pub fn report(&self, sources: &SourceMap) -> Report {
        Report::advice(codes::TOO_MANY_DIAGNOSTICS, self.message(sources))
            .with_help(format!("at most {MAX_PER_FILE} diagnostics are shown per file: fix these first"))
    }
}

/// The reports of some diagnostics, at most [`MAX_PER_FILE`] per file,
/// then one line per file saying how many more there are.
pub fn reports(diags: &[Diag], sources: &SourceMap) -> Vec<Report> {
    let (shown, more) = capped(diags);
    shown.into_iter().map(|d| of_diag(d, sources)).chain(more.iter().map(|m| m.report(sources))).collect()
}

/// A span as JSON: file, 1-based line and column of its start and end.
fn span_json(span: Span, sources: &SourceMap) -> serde_json::Value {
    let file = sources.file(span.file);
    let (line, column) = file.line_col(span.start as usize);
    let (end_line, end_column) = file.line_col(span.end as usize);
    serde_json::json!({
        "file": file.name, "line": line, "column": column, "end_line": end_line, "end_column": end_column,
    })
}

fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Advice => "advice",
    }
}

/// A rule-file diagnostic as one JSON object (docs/cli.md): code, severity,
/// message, help, file, line, column, end_line, end_column, label, and the
/// related places (each with its file, lines, columns and message).
pub fn diag_json(d: &Diag, sources: &SourceMap) -> serde_json::Value {
    let mut v = span_json(d.span, sources);
    let related: Vec<serde_json::Value> = d
        .notes
        .iter()
        .map(|(span, text)| {
            let mut r = span_json(*span, sources);
            r["message"] = shorten(text).into();
            r
        })
        .collect();
    v["code"] = d.code.as_str().into();
    v["severity"] = severity_name(d.severity).into();
    v["message"] = shorten(&d.message).into();
    v["label"] = shorten(&d.label).into();
    v["help"] = d.help.as_deref().map(shorten).into();
    v["related"] = related.into();
    v
}

/// An error with no place in a file, as JSON (the same fields, with no
/// file, line or column).
pub fn plain_json(code: Code, severity: Severity, message: &str, help: Option<&str>) -> serde_json::Value {
    serde_json::json!({
        "code": code.as_str(), "severity": severity_name(severity), "message": message, "help": help,
        "file": null, "line": null, "column": null, "end_line": null, "end_column": null, "label": "", "related": [],
    })
}

/// An input error as JSON: `file` is the input's name, `line` and `column`
/// the place in it.
pub fn input_json(e: &InputError, name: &str) -> serde_json::Value {
    let (line, column) = (e.line.max(1), e.column.max(1));
    let end_column = column + e.excerpt.as_ref().map_or(0, |x| x.text[x.start..x.start + x.len].chars().count());
    serde_json::json!({
        "code": input_code(e).as_str(), "severity": "error", "message": e.message, "help": e.help,
        "file": name, "line": line, "column": column, "end_line": line, "end_column": end_column,
        "label": "", "related": [],
    })
}

fn input_code(e: &InputError) -> Code {
    match e.kind {
        InputErrorKind::Invalid => codes::INPUT,
        InputErrorKind::NotUtf8 => codes::INPUT_NOT_UTF8,
        InputErrorKind::LineTooLong => codes::INPUT_LINE_TOO_LONG,
        InputErrorKind::Unreadable(_) => codes::IO,
    }
}

/// An input error, shown on its excerpt of the input named `name`.
pub fn of_input(e: &InputError, name: &str) -> Report {
    let code = input_code(e);
    let place = e.place();
    let (src, labels, message) = match &e.excerpt {
        Some(x) => {
            // miette draws no label past the end of a line: a blank stands
            // there for the end of the line or of the input.
            let text = if x.start >= x.text.len() { format!("{} ", x.text) } else { x.text.clone() };
            let src = LineSource {
                name: escape_line(name),
                text,
                line: e.line.saturating_sub(1),
                column: e.column.saturating_sub(1),
            };
            let label = LabeledSpan::new_primary_with_span(Some(place.clone()), (x.start, x.len.max(1)));
            (Src::Line(Arc::new(src)), vec![label], e.message.clone())
        }
        None => (Src::None, Vec::new(), format!("{} ({}, {place})", e.message, escape_line(name))),
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
            Src::Snippet(f) => Some(&**f),
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
