//! Code actions: a quick fix for each diagnostic whose fix is known, and
//! edits a designer often makes.
//!
//! - "did you mean `X`?" (a key, a name, a label, a section, a template
//!   field, an engine): the misspelt word is replaced by `X`;
//! - a missing key (`add `hand: 5``): the key with its example, in its
//!   section; a missing section: the section with its required keys;
//! - a row that can never be the best one: moved above the row that hides
//!   it (in the same file), or placed with `before:`/`after:` (across a
//!   variant and its base);
//! - a base row that is unformable or hidden, in a variant: `remove:` it;
//! - a table of named rows with a catch-all word (`pattern: any`) and no
//!   row using it: a row for every other hand.
//!
//! Fixes are offered only when the latest analysis is of the buffer's
//! current text, so that every edit lands where the diagnostic is.

use std::collections::HashMap;

use lsp_types::{CodeAction, CodeActionKind, Range, TextEdit, WorkspaceEdit};

use super::diagnostics::{on_extends, to_lsp};
use super::features::{section_schema, Locator};
use super::scan::{Scan, Tok};
use super::text::{lsp_uri, LineIndex, Positions};
use crate::diag::{codes, Diag};
use crate::source::Span;
use crate::syntax::{ExprKind, Item, Section};

/// One fix: a title and its edits in the buffer (byte ranges).
struct Fix {
    title: String,
    edits: Vec<(usize, usize, String)>,
    preferred: bool,
}

/// The code actions for `range` of the buffer (`text`, as analysed).
pub fn code_actions(loc: &Locator, text: &str, lines: &LineIndex, range: Range) -> Vec<CodeAction> {
    let a = loc.analysis;
    if a.text() != text {
        return Vec::new();
    }
    let Some(uri) = lsp_uri(loc.uri) else { return Vec::new() };
    let own = crate::syntax::parse(0, text).unwrap_or_default();
    let cx = Cx { loc, text, lines, own: &own };
    let extends_at = Scan::new(text).extends().map(|(a, b, _)| lines.range(a, b));
    let overlaps = |r: Range| r.start <= range.end && range.start <= r.end;
    let mut out = Vec::new();
    for d in &a.diags {
        let at = if d.span.file == 0 { loc.range(d.span) } else { extends_at.unwrap_or_default() };
        if !overlaps(at) {
            continue;
        }
        let shown = if d.span.file == 0 { to_lsp(loc, d, at) } else { on_extends(loc, d, at) };
        for fix in cx.fixes(d) {
            out.push(action(&uri, lines, fix, Some(shown.clone()), CodeActionKind::QUICKFIX));
        }
    }
    for fix in cx.refactors(range) {
        out.push(action(&uri, lines, fix, None, CodeActionKind::REFACTOR));
    }
    out
}

fn action(
    uri: &lsp_types::Uri,
    lines: &LineIndex,
    fix: Fix,
    diag: Option<lsp_types::Diagnostic>,
    kind: CodeActionKind,
) -> CodeAction {
    let edits = fix.edits.into_iter().map(|(a, b, t)| TextEdit { range: lines.range(a, b), new_text: t }).collect();
    CodeAction {
        title: fix.title,
        kind: Some(kind),
        diagnostics: diag.map(|d| vec![d]),
        edit: Some(WorkspaceEdit { changes: Some(HashMap::from([(uri.clone(), edits)])), ..WorkspaceEdit::default() }),
        is_preferred: Some(fix.preferred),
        ..CodeAction::default()
    }
}

/// What the fixes read: the analysis, the buffer, its own items.
struct Cx<'a> {
    loc: &'a Locator<'a>,
    text: &'a str,
    lines: &'a LineIndex,
    own: &'a [Item],
}

/// The texts between backquotes in `s`, and the quoted texts inside them
/// (`combination "Straight"` gives it and `Straight`).
fn quoted_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    for w in s.split('`').skip(1).step_by(2) {
        out.push(w.to_string());
        out.extend(w.split('"').skip(1).step_by(2).map(str::to_string));
    }
    out
}

/// The suggestion of a "did you mean `X`?" help line.
fn suggestion(help: &str) -> Option<&str> {
    let rest = help.split("did you mean ").nth(1)?;
    let rest = rest.strip_prefix('`')?;
    Some(&rest[..rest.find('`')?])
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'\'')
}

impl Cx<'_> {
    fn fixes(&self, d: &Diag) -> Vec<Fix> {
        let mut out = Vec::new();
        if let Some(f) = self.did_you_mean(d) {
            out.push(f);
        }
        if d.code == codes::MISSING || d.help.as_deref().is_some_and(|h| h.starts_with("add `")) {
            out.extend(self.add(d));
        }
        if d.code == codes::SHADOWED {
            out.extend(self.shadowed(d));
        }
        if d.code == codes::SHADOWED || d.code == codes::UNFORMABLE {
            out.extend(self.remove_base_row(d));
        }
        out
    }

    /// The misspelt word in the diagnostic's span, replaced by the
    /// suggestion.
    fn did_you_mean(&self, d: &Diag) -> Option<Fix> {
        let s = suggestion(d.help.as_deref()?)?;
        if d.span.file != 0 {
            return None;
        }
        let (start, end) = (d.span.start as usize, d.span.end as usize);
        let within = self.text.get(start..end)?;
        for w in quoted_words(&d.message) {
            let Some(i) = find_word(within, &w) else { continue };
            return Some(Fix {
                title: format!("Change `{w}` to `{s}`"),
                edits: vec![(start + i, start + i + w.len(), s.to_string())],
                preferred: true,
            });
        }
        None
    }

    /// What an "add `X`" help says to add: a section (at the end of the
    /// file), a key with its value (first in its section), or values
    /// (after the diagnostic's span). Not when `X` holds a placeholder
    /// (`PLAYER`) or the help goes on to say where (`to the sequence`).
    fn add(&self, d: &Diag) -> Vec<Fix> {
        let Some(help) = d.help.as_deref() else { return self.missing_section(d).into_iter().collect() };
        let Some(x) = addition(help) else { return Vec::new() };
        if d.span.file != 0 {
            return Vec::new();
        }
        let title = format!("Add `{x}`");
        let edit = if x.contains('{') {
            let at = self.text.len();
            let nl = if self.text.ends_with('\n') || self.text.is_empty() { "" } else { "\n" };
            (at, at, format!("{nl}{x}\n"))
        } else if is_key_value(x) {
            let section = self.section_at(d.span).or_else(|| self.section_around(d.span.start as usize));
            match section {
                Some(s) => match self.after_brace(s) {
                    Some((at, layout)) => (at, at, layout.replace("{}", x)),
                    None => return Vec::new(),
                },
                None => (top_insertion(self.text), top_insertion(self.text), format!("{x}\n")),
            }
        } else {
            let at = d.span.end as usize;
            (at, at, format!(" {x}"))
        };
        vec![Fix { title, edits: vec![edit], preferred: true }]
    }

    /// The innermost of the buffer's own sections holding byte `at`.
    fn section_around(&self, at: usize) -> Option<&Section> {
        fn find(items: &[Item], at: usize) -> Option<&Section> {
            items.iter().find_map(|i| match i {
                Item::Section(s) if (s.span.start as usize) < at && at < s.span.end as usize => {
                    find(&s.items, at).or(Some(s))
                }
                _ => None,
            })
        }
        find(self.own, at)
    }

    fn missing_section(&self, d: &Diag) -> Option<Fix> {
        let kind = d.message.strip_suffix("` section")?.rsplit('`').next()?;
        let schema = section_schema(self.loc.analysis.engine, kind)?;
        let mut body = String::new();
        for k in schema.keys.iter().filter(|k| k.required) {
            body.push_str(&format!("  {}: {}\n", k.name, k.example));
        }
        let at = self.text.len();
        let sep = if self.text.ends_with('\n') || self.text.is_empty() { "\n" } else { "\n\n" };
        Some(Fix {
            title: format!("Add the `{kind}` section"),
            edits: vec![(at, at, format!("{sep}{kind} {{\n{body}}}\n"))],
            preferred: true,
        })
    }

    /// The buffer's own section whose head is `head`.
    fn section_at(&self, head: Span) -> Option<&Section> {
        fn find(items: &[Item], head: Span) -> Option<&Section> {
            items.iter().find_map(|i| match i {
                Item::Section(s) if s.head == head => Some(s),
                Item::Section(s) => find(&s.items, head),
                Item::Property(_) => None,
            })
        }
        find(self.own, head)
    }

    /// Where a line goes first in a section's body, and its layout (`{}`
    /// stands for the line): after the `{`, on a line of its own when
    /// the section spans lines.
    fn after_brace(&self, s: &Section) -> Option<(usize, String)> {
        let brace = s.head.end as usize + self.text[s.head.end as usize..].find('{')?;
        let one_line = !self.text[brace..s.span.end as usize].contains('\n');
        let indent = " ".repeat(self.indent_of(s.head.start as usize) + 2);
        Some((brace + 1, if one_line { " {}".to_string() } else { format!("\n{indent}{{}}") }))
    }

    fn indent_of(&self, offset: usize) -> usize {
        let (start, _) = self.lines.line_range(self.lines.line_of(offset));
        self.text[start..].bytes().take_while(|b| *b == b' ').count()
    }

    /// Full lines of a section, with its newline.
    fn lines_of(&self, s: &Section) -> (usize, usize) {
        let (start, _) = self.lines.line_range(self.lines.line_of(s.span.start as usize));
        let (_, end) = self.lines.line_range(self.lines.line_of(s.span.end.saturating_sub(1) as usize));
        (start, (end + 1).min(self.text.len()))
    }

    /// A row hidden by one above it: moved above it, or placed there.
    fn shadowed(&self, d: &Diag) -> Vec<Fix> {
        let Some((other_head, _)) = d.notes.first() else { return Vec::new() };
        let name = |head: Span| self.loc.analysis.sources.slice(head).split('"').nth(1).map(str::to_string);
        let (Some(me), Some(other)) = (name(d.span), name(*other_head)) else { return Vec::new() };
        match (d.span.file, other_head.file) {
            (0, 0) => {
                let (Some(s), Some(o)) = (self.section_at(d.span), self.section_at(*other_head)) else {
                    return Vec::new();
                };
                let (from, to) = self.lines_of(s);
                let (at, _) = self.lines_of(o);
                let moved = self.text[from..to].to_string();
                let moved = if moved.ends_with('\n') { moved } else { format!("{moved}\n") };
                vec![Fix {
                    title: format!("Move `{me}` above `{other}`"),
                    edits: vec![(at, at, moved), (from, to, String::new())],
                    preferred: true,
                }]
            }
            (0, _) => self.place(d.span, "before", &other, &me),
            (_, 0) => self.place(*other_head, "after", &me, &other),
            _ => Vec::new(),
        }
    }

    /// `before: "label"` (or `after:`) added to the buffer's section at
    /// `head`.
    fn place(&self, head: Span, word: &str, label: &str, moved: &str) -> Vec<Fix> {
        let Some(s) = self.section_at(head) else { return Vec::new() };
        let Some((at, layout)) = self.after_brace(s) else { return Vec::new() };
        let line = format!("{word}: \"{label}\"");
        let title = match word {
            "before" => format!("Place `{moved}` above `{label}` (`before:`)"),
            _ => format!("Place `{moved}` below `{label}` (`after:`)"),
        };
        vec![Fix { title, edits: vec![(at, at, layout.replace("{}", &line))], preferred: true }]
    }

    /// In a variant, `remove: kind "label"` for a base row.
    fn remove_base_row(&self, d: &Diag) -> Vec<Fix> {
        if d.span.file == 0 {
            return Vec::new();
        }
        let head = self.loc.analysis.sources.slice(d.span).trim().to_string();
        let Some((_, end, _)) = Scan::new(self.text).extends() else { return Vec::new() };
        let at = self.lines.line_range(self.lines.line_of(end)).1;
        vec![Fix {
            title: format!("Remove `{head}` in this variant"),
            edits: vec![(at, at, format!("\nremove: {head}"))],
            preferred: false,
        }]
    }

    /// Edits offered where no diagnostic is: a catch-all row for a table
    /// that has none, on any of its rows.
    fn refactors(&self, range: Range) -> Vec<Fix> {
        let a = self.loc.analysis;
        let Some(items) = &a.items else { return Vec::new() };
        let at = self.lines.offset(range.start);
        let Some(s) = self.own.iter().find_map(|i| match i {
            Item::Section(s) if (s.span.start as usize..=s.span.end as usize).contains(&at) => Some(s),
            _ => None,
        }) else {
            return Vec::new();
        };
        let Some(schema) = section_schema(a.engine, &s.kind.name).filter(|sc| sc.repeated && sc.names.is_some()) else {
            return Vec::new();
        };
        let Some(key) = schema.keys.iter().find(|k| k.required && k.words.iter().any(|(w, _)| *w == "any")) else {
            return Vec::new();
        };
        let has_any = items.iter().any(|i| match i {
            Item::Section(r) if r.kind.name == s.kind.name => r.items.iter().any(|p| match p {
                Item::Property(p) if p.key.name == key.name => {
                    p.values.iter().any(|v| matches!(&v.kind, ExprKind::Word(w) if w == "any"))
                }
                _ => false,
            }),
            _ => false,
        });
        if has_any {
            return Vec::new();
        }
        // The least a row can give where a number is asked, since every
        // other row comes first; else the key's example.
        let mut body = format!("{}: any", key.name);
        for k in schema.keys.iter().filter(|k| k.required && k.name != key.name) {
            let value = if k.ty.starts_with("a whole number, 0 or more") { "0" } else { k.example };
            body.push_str(&format!(" {}: {value}", k.name));
        }
        let last = self.own.iter().rev().find_map(|i| match i {
            Item::Section(r) if r.kind.name == s.kind.name => Some(r),
            _ => None,
        });
        let at = last.map_or(self.text.len(), |r| self.lines_of(r).1);
        let row = format!("{} \"every other hand\" {{ {body} }}\n", s.kind.name);
        let nl = if at > 0 && !self.text[..at].ends_with('\n') { "\n" } else { "" };
        vec![Fix {
            title: format!("Add a last row for every other hand (`{}: any`)", key.name),
            edits: vec![(at, at, format!("{nl}{row}"))],
            preferred: false,
        }]
    }
}

/// `X` of a help line "add `X`" (then nothing, or ", or ...", or ": why"),
/// when `X` is to be written as it is (no placeholder in capitals).
pub fn addition(help: &str) -> Option<&str> {
    let rest = help.strip_prefix("add `")?;
    let end = rest.find('`')?;
    let (x, after) = (&rest[..end], &rest[end + 1..]);
    let whole = after.is_empty() || after.starts_with(", or ") || after.starts_with(": ");
    let placeholder =
        x.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| w.len() > 1 && w.bytes().all(|b| b.is_ascii_uppercase()));
    (whole && !placeholder).then_some(x)
}

/// `key: values`.
fn is_key_value(x: &str) -> bool {
    x.split_once(": ")
        .is_some_and(|(k, _)| !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'))
}

/// Where a top-level key goes: after the first lines of comments and the
/// `extends:` line, if any.
fn top_insertion(text: &str) -> usize {
    let scan = Scan::new(text);
    let first = scan.tokens.iter().find(|t| t.tok != Tok::Comment).map_or(text.len(), |t| t.start);
    match scan.extends() {
        Some((_, end, _)) => text[end..].find('\n').map_or(text.len(), |n| end + n + 1),
        None => text[..first].rfind('\n').map_or(0, |n| n + 1).min(first),
    }
}

/// The first occurrence of `w` in `s` as a whole word (or inside quotes).
fn find_word(s: &str, w: &str) -> Option<usize> {
    if w.is_empty() {
        return None;
    }
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(i) = s[from..].find(w).map(|i| from + i) {
        let before = i.checked_sub(1).map(|j| b[j]);
        let after = b.get(i + w.len()).copied();
        if !before.is_some_and(is_word_byte) && !after.is_some_and(is_word_byte) {
            return Some(i);
        }
        from = i + 1;
    }
    None
}
