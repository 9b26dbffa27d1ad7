//! Diagnostics in the protocol's terms, and publishing them: at most as
//! many per file as `arbiter check` shows ([`MAX_PER_FILE`]), then one
//! line saying how many more there are, so that a buffer with 40,000
//! problems costs what one with 50 does.

use std::collections::{HashMap, HashSet};

use lsp_server::Notification;
use lsp_types::{Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, NumberOrString, Range};
use serde_json::{json, Value};

use super::features::Locator;
use super::scan::Scan;
use super::text::Positions;
use crate::diag::codes;
use crate::diag::{Diag, Severity};
use crate::report::diag::{capped, MAX_PER_FILE};
use crate::source::LineIndex;

fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Advice => DiagnosticSeverity::INFORMATION,
    }
}

/// The diagnostics of an analysis, by the URI of the file they are in:
/// the buffer's own (those in its base files are also shown on its
/// `extends:` line), and those of each base file on disk; at most
/// [`MAX_PER_FILE`] per file as `check` shows them, then how many more.
pub fn diagnostics(loc: &Locator) -> Vec<(String, Vec<Diagnostic>)> {
    let analysis = loc.analysis;
    let text = analysis.text();
    let lines: &LineIndex = analysis.sources.file(0).lines();
    let extends = Scan::new(text).extends();
    let at_extends = extends.as_ref().map_or(Range::default(), |&(a, b, _)| lines.range(a, b));
    let mut out: Vec<(String, Vec<Diagnostic>)> = vec![(loc.uri.to_string(), Vec::new())];
    let (shown, more) = capped(&analysis.diags);
    for d in shown {
        let diag = to_lsp(loc, d, loc.range(d.span));
        if d.span.file == 0 {
            out[0].1.push(diag);
            continue;
        }
        // A problem in a base file: where it is, and on this file's
        // `extends:` (or its first line) pointing there.
        out[0].1.push(on_extends(loc, d, at_extends));
        if let Some(uri) = loc.uri_of(d.span.file) {
            match out.iter_mut().find(|(u, _)| *u == uri) {
                Some((_, v)) => v.push(diag),
                None => out.push((uri, vec![diag])),
            }
        }
    }
    for m in more {
        // Where the first diagnostic left out is.
        let first = analysis.diags.iter().filter(|d| d.span.file == m.file).nth(MAX_PER_FILE);
        let range = first.map_or(Range::default(), |d| loc.range(d.span));
        let note = more_note(range, m.message(&analysis.sources));
        let uri = if m.file == 0 { Some(loc.uri.to_string()) } else { loc.uri_of(m.file) };
        match out.iter_mut().find(|(u, _)| Some(u) == uri.as_ref()) {
            Some((_, v)) => v.push(note),
            None => out[0].1.push(note),
        }
    }
    out
}

/// A problem of a base file as the variant shows it, at `at` (its
/// `extends:`), pointing to where it is.
pub(super) fn on_extends(loc: &Locator, d: &Diag, at: Range) -> Diagnostic {
    let mut here = to_lsp(loc, d, at);
    here.message = format!("in the base rule file {}: {}", loc.place(d.span), here.message);
    let mut related = here.related_information.take().unwrap_or_default();
    if let Some(l) = loc.location(d.span) {
        related.insert(0, DiagnosticRelatedInformation { location: l, message: d.message.clone() });
    }
    here.related_information = Some(related).filter(|r| !r.is_empty());
    here
}

fn more_note(range: Range, message: String) -> Diagnostic {
    Diagnostic {
        range,
        severity: Some(DiagnosticSeverity::INFORMATION),
        code: Some(NumberOrString::String(codes::TOO_MANY_DIAGNOSTICS.as_str().to_string())),
        source: Some("arbiter".into()),
        message: format!("{message}\nhelp: at most {MAX_PER_FILE} diagnostics are shown per file: fix these first"),
        ..Diagnostic::default()
    }
}

pub(super) fn to_lsp(loc: &Locator, d: &Diag, range: Range) -> Diagnostic {
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str(&format!("\nhelp: {help}"));
    }
    let mut related = Vec::new();
    // The label says at the place what the message says in general; it is
    // kept when it adds something.
    if !d.label.is_empty() && !d.message.contains(&d.label) {
        if let Some(l) = loc.location(d.span) {
            related.push(DiagnosticRelatedInformation { location: l, message: d.label.clone() });
        }
    }
    for (span, note) in &d.notes {
        if let Some(l) = loc.location(*span) {
            related.push(DiagnosticRelatedInformation { location: l, message: note.clone() });
        }
    }
    Diagnostic {
        range,
        severity: Some(severity(d.severity)),
        code: Some(NumberOrString::String(d.code.as_str().to_string())),
        source: Some("arbiter".into()),
        message,
        related_information: Some(related).filter(|r| !r.is_empty()),
        ..Diagnostic::default()
    }
}

/// What has been published: per file, the diagnostics each open buffer's
/// analysis found there (a base file gets those of every open variant,
/// and its own), and what was last sent.
#[derive(Default)]
pub struct Publisher {
    found: HashMap<String, HashMap<String, Vec<Diagnostic>>>,
    sent: HashMap<String, Vec<Diagnostic>>,
}

impl Publisher {
    /// Records what the analysis of `source` found (`None`: the buffer was
    /// closed) and returns the files whose diagnostics may have changed.
    /// What other buffers found in `source`'s file is dropped too: they
    /// read an older text of it, and are being checked again.
    pub fn record(&mut self, source: &str, found: Option<Vec<(String, Vec<Diagnostic>)>>) -> Vec<String> {
        let mut touched: Vec<String> = Vec::new();
        for (target, by) in self.found.iter_mut() {
            if by.remove(source).is_some() {
                touched.push(target.clone());
            }
        }
        // (What runs of its own examples found stays: `source#...`.)
        if let Some(by) = self.found.get_mut(source) {
            let own = format!("{source}#");
            by.retain(|k, _| k.starts_with(&own));
        }
        for (target, diags) in found.into_iter().flatten() {
            self.found.entry(target.clone()).or_default().insert(source.to_string(), diags);
            if !touched.contains(&target) {
                touched.push(target);
            }
        }
        if !touched.iter().any(|t| t == source) {
            touched.push(source.to_string());
        }
        self.found.retain(|_, by| !by.is_empty());
        touched
    }

    /// Whether `source` has diagnostics recorded.
    pub fn has(&self, source: &str) -> bool {
        self.found.values().any(|by| by.contains_key(source))
    }

    /// The `publishDiagnostics` for a file whose set changed since it was
    /// last sent, or (`always`) for a buffer whose analysis just ended;
    /// `version`: the open buffer's.
    pub fn publish(&mut self, uri: &str, version: Option<&Value>, always: bool) -> Option<Notification> {
        let all = self.merged(uri);
        if !always && self.sent.get(uri).map_or(all.is_empty(), |s| *s == all) {
            return None;
        }
        let params = json!({ "uri": uri, "diagnostics": all, "version": version });
        if all.is_empty() {
            self.sent.remove(uri);
        } else {
            self.sent.insert(uri.to_string(), all);
        }
        Some(Notification { method: "textDocument/publishDiagnostics".into(), params })
    }

    /// The diagnostics of one file: its own analysis's first, then its
    /// variants', each once, at most [`MAX_PER_FILE`] and a note.
    fn merged(&self, uri: &str) -> Vec<Diagnostic> {
        let Some(by) = self.found.get(uri) else { return Vec::new() };
        let mut sources: Vec<&String> = by.keys().collect();
        sources.sort_by_key(|u| (u.as_str() != uri, u.as_str()));
        let mut seen = HashSet::new();
        let mut all: Vec<Diagnostic> = Vec::new();
        let mut left = 0usize;
        let too_many = Some(NumberOrString::String(codes::TOO_MANY_DIAGNOSTICS.as_str().to_string()));
        for d in sources.into_iter().flat_map(|s| &by[s]) {
            let key = (d.range.start.line, d.range.start.character, d.code.clone(), d.message.as_str());
            if d.code == too_many || !seen.insert(key) {
                continue;
            }
            if all.len() < MAX_PER_FILE {
                all.push(d.clone());
            } else {
                left += 1;
            }
        }
        let own_more = by.get(uri).and_then(|v| v.iter().find(|d| d.code == too_many));
        match (left, own_more) {
            (0, Some(note)) => all.push(note.clone()),
            (0, None) => {}
            (n, _) => all.push(more_note(
                all.last().map_or(Range::default(), |d| d.range),
                format!("{n} more diagnostics not shown"),
            )),
        }
        all
    }
}
