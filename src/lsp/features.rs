//! What the server answers, over one analysed buffer: diagnostics in the
//! protocol's terms, hover, completion, go to definition, document symbols
//! and formatting.

use std::path::{Path, PathBuf};

use lsp_types::{
    CompletionItem, CompletionItemKind, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, DocumentSymbol,
    Documentation, Hover, HoverContents, InsertTextFormat, Location, MarkupContent, MarkupKind, NumberOrString,
    Position, Range, SymbolKind, TextEdit, Uri,
};

use super::analysis::{Analysis, Name};
use super::scan::{Place, Role, Scan};
use super::text::{path_to_uri, LineIndex};
use crate::diag::{Diag, Severity};
use crate::engines::schema::{top_key, Key, SectionSchema, TOP_KEYS};
use crate::engines::{Engine, ENGINES};
use crate::source::Span;
use crate::syntax::{Item, Property, Section};

/// Places in the files of an analysis, as protocol locations.
pub struct Locator<'a> {
    pub analysis: &'a Analysis,
    pub uri: &'a Uri,
    /// A line index per file of the analysis, built when first needed.
    lines: Vec<std::cell::OnceCell<LineIndex>>,
}

impl<'a> Locator<'a> {
    pub fn new(analysis: &'a Analysis, uri: &'a Uri) -> Self {
        Locator { analysis, uri, lines: (0..analysis.sources.len()).map(|_| std::cell::OnceCell::new()).collect() }
    }

    fn range(&self, span: Span) -> Range {
        let text = &self.analysis.sources.file(span.file).text;
        let index = match self.lines.get(span.file as usize) {
            Some(cell) => cell.get_or_init(|| LineIndex::new(text)),
            None => return Range::default(),
        };
        index.range(text, span.start as usize, span.end as usize)
    }

    /// The location of a span, when its file is on disk.
    pub fn location(&self, span: Span) -> Option<Location> {
        let uri = if span.file == 0 { self.uri.clone() } else { path_to_uri(&self.analysis.file_path(span.file)?)? };
        Some(Location { uri, range: self.range(span) })
    }

    /// `file.rules:12`
    fn place(&self, span: Span) -> String {
        let name = &self.analysis.sources.file(span.file).name;
        let short = Path::new(name).file_name().map_or(name.clone(), |n| n.to_string_lossy().into_owned());
        format!("{short}:{}", self.analysis.sources.line_col(span).0)
    }
}

fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Advice => DiagnosticSeverity::INFORMATION,
    }
}

/// Every diagnostic of an analysis, by the file it is in: the buffer's own
/// (those in its base files are also shown on its `extends:` line), and
/// those of each base file on disk.
pub fn diagnostics(loc: &Locator, text: &str) -> Vec<(Uri, Vec<Diagnostic>)> {
    let mut own = Vec::new();
    let mut bases: Vec<(Uri, Vec<Diagnostic>)> = Vec::new();
    let extends = Scan::new(text).extends();
    let index = LineIndex::new(text);
    for d in &loc.analysis.diags {
        let diag = to_lsp(loc, d, loc.range(d.span));
        if d.span.file == 0 {
            own.push(diag);
            continue;
        }
        // A problem in a base file: where it is, and on this file's
        // `extends:` (or its first line) pointing there.
        let at = extends.as_ref().map_or(Range::default(), |&(a, b, _)| index.range(text, a, b));
        let mut here = to_lsp(loc, d, at);
        here.message = format!("in the base rule file {}: {}", loc.place(d.span), here.message);
        let mut related = here.related_information.take().unwrap_or_default();
        if let Some(l) = loc.location(d.span) {
            related.insert(0, DiagnosticRelatedInformation { location: l, message: d.message.clone() });
        }
        here.related_information = Some(related).filter(|r| !r.is_empty());
        own.push(here);
        if let Some(l) = loc.location(d.span) {
            match bases.iter_mut().find(|(u, _)| *u == l.uri) {
                Some((_, v)) => v.push(diag),
                None => bases.push((l.uri, vec![diag])),
            }
        }
    }
    let mut out = vec![(loc.uri.clone(), own)];
    out.extend(bases);
    out
}

fn to_lsp(loc: &Locator, d: &Diag, range: Range) -> Diagnostic {
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

/// The schema of the section a frame list ends in, for this engine.
fn section_schema(engine: Option<&'static Engine>, kind: &str) -> Option<&'static SectionSchema> {
    match engine {
        Some(e) => e.schema.section(kind),
        None => crate::engines::schema::TOP.section(kind),
    }
}

fn key_schema(engine: Option<&'static Engine>, section: &str, key: &str) -> Option<&'static Key> {
    if section.is_empty() {
        top_key(key)
    } else {
        section_schema(engine, section)?.key(key)
    }
}

fn key_markdown(k: &Key, section: &str, engine: Option<&Engine>) -> String {
    let mut md = format!("**`{}`**: {}\n\n{}", k.name, k.ty, capital(k.doc));
    let place = match (section, engine) {
        ("", _) => "A top-level key of every rule file".to_string(),
        (s, Some(e)) => format!("In `{s}` (engine `{}`)", e.name),
        (s, None) => format!("In `{s}`"),
    };
    md.push_str(&format!(".\n\n{place}; "));
    md.push_str(&match (k.required, k.default) {
        (true, _) => "required.".to_string(),
        (false, Some(d)) => format!("default `{d}`."),
        (false, None) => "optional.".to_string(),
    });
    if !k.example.is_empty() && !k.example.contains('\n') {
        md.push_str(&format!("\n\n```arbiter\n{}: {}\n```", k.name, k.example));
    }
    if !k.words.is_empty() {
        md.push_str("\n\n");
        for (w, d) in k.words {
            md.push_str(&format!("- `{w}`: {d}\n"));
        }
    }
    md
}

fn section_markdown(s: &SectionSchema, engine: Option<&Engine>) -> String {
    let mut md = format!("**`{} {{ }}`**: {}", s.head(), s.doc);
    if let Some(e) = engine {
        md.push_str(&format!(" (engine `{}`)", e.name));
    }
    md.push_str(if s.required { ". Required." } else { "." });
    if !s.keys.is_empty() {
        md.push_str("\n\n");
        for k in s.keys {
            let need = if k.required { ", required" } else { "" };
            md.push_str(&format!("- `{}`: {}{need}\n", k.name, k.doc));
        }
    }
    md
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

fn name_markdown(loc: &Locator, n: &Name) -> String {
    let text = loc.analysis.sources.slice(n.context);
    let shown: Vec<&str> = text.lines().take(6).collect();
    let more = if text.lines().count() > 6 { "\n..." } else { "" };
    format!(
        "**{}** `{}`, defined at {}\n\n```arbiter\n{}{more}\n```",
        n.kind,
        n.name,
        loc.place(n.span),
        shown.join("\n")
    )
}

/// Hover at byte `offset` of the buffer.
pub fn hover(loc: &Locator, text: &str, offset: usize) -> Option<Hover> {
    let scan = Scan::new(text);
    let i = scan.at(offset)?;
    let t = scan.tokens[i];
    let (role, frames) = scan.role(i);
    let engine = loc.analysis.engine;
    let section = frames.last().map_or("", |f| f.kind.as_str());
    let md = match role {
        Role::Key(key) => {
            // The frames include the section the key is in.
            let k = key_schema(engine, section, &key)?;
            key_markdown(k, section, engine)
        }
        Role::Kind(kind) => {
            let s = section_schema(engine, &kind)?;
            let mut md = section_markdown(s, engine);
            if let Some(base) = base_section(loc, text, &kind, &scan, i) {
                md.push_str(&format!("\n\nMerges into the base's section at {}.", loc.place(base.head)));
            }
            md
        }
        Role::Label { kind, label } => {
            let s = section_schema(engine, &kind)?;
            let noun = s.names.unwrap_or(s.kind);
            let mut md = format!("**{noun}** `{label}`: {}", s.doc);
            if let Some(def) = loc.analysis.names.iter().find(|n| n.name == label && n.kind == noun && n.span.file != 0)
            {
                md.push_str(&format!("\n\nChanges the base's {noun} at {}.", loc.place(def.span)));
            }
            md
        }
        Role::Value { key, text: word, .. } => {
            let key = key?;
            if section.is_empty() && key == "engine" {
                let e = ENGINES.iter().find(|e| e.name == word)?;
                format!("**engine `{}`**: {}", e.name, e.summary)
            } else if section.is_empty() && key == "extends" {
                match resolve_extends(&loc.analysis.path, &word) {
                    Some(Target::File(p)) => format!("extends the rule file `{}`", p.display()),
                    Some(Target::Bundled(n)) => format!("extends the bundled game `{n}`"),
                    None => return None,
                }
            } else {
                let k = key_schema(engine, section, &key);
                if let Some((w, d)) = k.and_then(|k| k.words.iter().find(|(w, _)| *w == word)) {
                    format!("`{w}`: {d}")
                } else {
                    let n = find_name(loc.analysis, k, &word)?;
                    name_markdown(loc, n)
                }
            }
        }
        Role::Other => return None,
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: md }),
        range: Some(LineIndex::new(text).range(text, t.start, t.end)),
    })
}

/// The name `word` refers to: among the kinds the key takes, else any.
fn find_name<'a>(a: &'a Analysis, key: Option<&Key>, word: &str) -> Option<&'a Name> {
    let kinds = key.map_or(&[][..], |k| k.refers);
    a.names_of(kinds).find(|n| n.name == word).or_else(|| a.names.iter().find(|n| n.name == word))
}

enum Target {
    File(PathBuf),
    Bundled(String),
}

fn resolve_extends(path: &Path, value: &str) -> Option<Target> {
    let dir = path.parent().unwrap_or(Path::new(""));
    let p = dir.join(value);
    if p.is_file() {
        return Some(Target::File(p));
    }
    let name = value.strip_suffix(".rules").unwrap_or(value);
    crate::load::bundled_names().contains(&name).then(|| Target::Bundled(name.to_string()))
}

/// The base's section a variant's section (head token `i`) merges into.
fn base_section<'a>(loc: &Locator<'a>, _text: &str, kind: &str, scan: &Scan, i: usize) -> Option<&'a Section> {
    // The labels: the string tokens after the kind.
    let mut labels = Vec::new();
    for t in &scan.tokens[i + 1..] {
        match t.tok {
            super::scan::Tok::Str => labels.push(super::scan::unquote(&scan.text[t.start..t.end])),
            super::scan::Tok::Comment => {}
            _ => break,
        }
    }
    let s = loc.analysis.section(kind, &labels)?;
    (s.head.file != 0).then_some(s)
}

/// Go to definition at byte `offset`.
pub fn definition(loc: &Locator, text: &str, offset: usize) -> Option<Location> {
    let scan = Scan::new(text);
    let i = scan.at(offset)?;
    let (role, frames) = scan.role(i);
    let section = frames.last().map_or("", |f| f.kind.as_str());
    match role {
        Role::Value { key: Some(key), text: word, .. } if section.is_empty() && key == "extends" => {
            match resolve_extends(&loc.analysis.path, &word)? {
                Target::File(p) => {
                    let p = p.canonicalize().unwrap_or(p);
                    Some(Location { uri: path_to_uri(&p)?, range: Range::default() })
                }
                Target::Bundled(_) => None,
            }
        }
        Role::Value { key, text: word, .. } => {
            let k = key.as_deref().and_then(|k| key_schema(loc.analysis.engine, section, k));
            loc.location(find_name(loc.analysis, k, &word)?.span)
        }
        Role::Kind(kind) if frames.len() == 1 => loc.location(base_section(loc, text, &kind, &scan, i)?.head),
        Role::Label { kind, .. } if frames.len() == 1 => {
            // Back to the kind token of this head.
            let k = (0..i).rev().find(|&j| scan.tokens[j].tok == super::scan::Tok::Word)?;
            loc.location(base_section(loc, text, &kind, &scan, k)?.head)
        }
        _ => None,
    }
}

/// Completion at byte `offset`; `snippets` when the client takes them.
pub fn completion(a: &Analysis, text: &str, offset: usize, snippets: bool) -> Vec<CompletionItem> {
    let scan = Scan::new(text);
    let cursor = scan.cursor(offset);
    let Some(frame) = cursor.frames.last() else { return Vec::new() };
    let engine = a.engine;
    let mut out = Vec::new();
    let (keys_too, value_key) = match &cursor.place {
        Place::Nowhere => return out,
        Place::Key => (true, None),
        Place::Value { key, also_key } => (*also_key, key.clone()),
    };
    if let Some(key) = value_key {
        values(a, engine, &frame.kind, &key, &mut out);
    }
    if keys_too {
        let keys: Vec<&Key> = if frame.kind.is_empty() {
            TOP_KEYS.iter().collect()
        } else {
            section_schema(engine, &frame.kind).map_or_else(Vec::new, |s| s.keys.iter().collect())
        };
        for k in keys.into_iter().filter(|k| !frame.seen.iter().any(|s| s == k.name)) {
            let (insert, format) = if snippets && !k.example.is_empty() && !k.example.contains('\n') {
                (
                    format!("{}: ${{1:{}}}", k.name, k.example.replace('}', "\\}").replace('$', "\\$")),
                    InsertTextFormat::SNIPPET,
                )
            } else {
                (format!("{}: ", k.name), InsertTextFormat::PLAIN_TEXT)
            };
            out.push(CompletionItem {
                label: k.name.to_string(),
                kind: Some(CompletionItemKind::PROPERTY),
                detail: Some(k.ty.to_string()),
                documentation: Some(doc(k.doc)),
                insert_text: Some(insert),
                insert_text_format: Some(format),
                sort_text: Some(format!("{}{}", if k.required { 0 } else { 1 }, k.name)),
                ..CompletionItem::default()
            });
        }
        if frame.kind.is_empty() {
            let sections: Vec<&SectionSchema> = match engine {
                Some(e) => e.schema.all_sections().collect(),
                None => crate::engines::schema::TOP.sections.iter().collect(),
            };
            for s in sections.into_iter().filter(|s| s.repeated || !frame.seen.iter().any(|k| k == s.kind)) {
                let (insert, format) = match (snippets, s.names) {
                    (true, Some(_)) => (format!("{} \"${{1:NAME}}\" {{\n  $0\n}}", s.kind), InsertTextFormat::SNIPPET),
                    (true, None) => (format!("{} {{\n  $0\n}}", s.kind), InsertTextFormat::SNIPPET),
                    (false, _) => (s.kind.to_string(), InsertTextFormat::PLAIN_TEXT),
                };
                out.push(CompletionItem {
                    label: s.kind.to_string(),
                    kind: Some(CompletionItemKind::MODULE),
                    detail: Some(format!("{} {{ }}", s.head())),
                    documentation: Some(doc(s.doc)),
                    insert_text: Some(insert),
                    insert_text_format: Some(format),
                    sort_text: Some(format!("2{}", s.kind)),
                    ..CompletionItem::default()
                });
            }
        }
    }
    out
}

fn doc(s: &str) -> Documentation {
    Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value: capital(s) })
}

/// The values `key` of section `section` may take.
fn values(a: &Analysis, engine: Option<&'static Engine>, section: &str, key: &str, out: &mut Vec<CompletionItem>) {
    let item = |label: String, kind: CompletionItemKind, detail: String| CompletionItem {
        label,
        kind: Some(kind),
        detail: Some(detail),
        ..CompletionItem::default()
    };
    if section.is_empty() && key == "engine" {
        out.extend(ENGINES.iter().map(|e| item(e.name.into(), CompletionItemKind::ENUM_MEMBER, e.summary.into())));
        return;
    }
    if section.is_empty() && key == "remove" {
        // The base's named sections: `group "triple"`.
        for it in a.items.iter().flatten() {
            if let Item::Section(s) = it {
                if s.labels.is_empty() || s.head.file == 0 || s.kind.name == crate::load::NOT_INHERITED {
                    continue;
                }
                let text = s.labels.iter().fold(s.kind.name.clone(), |t, l| format!("{t} \"{}\"", l.value));
                out.push(item(text, CompletionItemKind::REFERENCE, "a section of the base".into()));
            }
        }
        return;
    }
    if section.is_empty() && key == "extends" {
        // Rule files beside this one and in the directory above, then the
        // bundled games.
        let dir = a.path.parent().unwrap_or(Path::new(""));
        for (sub, prefix) in [(dir.to_path_buf(), ""), (dir.join(".."), "../")] {
            let Ok(entries) = std::fs::read_dir(&sub) else { continue };
            let mut files: Vec<String> = entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "rules") && p.is_file())
                .filter(|p| p.file_name() != a.path.file_name() || !prefix.is_empty())
                .filter_map(|p| p.file_name().map(|n| format!("{prefix}{}", n.to_string_lossy())))
                .collect();
            files.sort();
            for f in files.into_iter().take(200) {
                let mut it = item(format!("\"{f}\""), CompletionItemKind::FILE, "a rule file".into());
                it.filter_text = Some(f);
                out.push(it);
            }
        }
        for n in crate::load::bundled_names() {
            let mut it = item(format!("\"{n}\""), CompletionItemKind::FILE, "a bundled game".into());
            it.filter_text = Some(n.to_string());
            out.push(it);
        }
        return;
    }
    let Some(k) = key_schema(engine, section, key) else { return };
    for (w, d) in k.words {
        out.push(item(w.to_string(), CompletionItemKind::KEYWORD, d.to_string()));
    }
    if k.refers.is_empty() {
        return;
    }
    let mut seen: Vec<&str> = Vec::new();
    for n in a.names_of(k.refers) {
        if seen.contains(&n.name.as_str()) {
            continue;
        }
        seen.push(&n.name);
        let written = if n.name.chars().all(|c| c.is_ascii_alphanumeric() || "_-'".contains(c)) {
            n.name.clone()
        } else {
            format!("\"{}\"", n.name)
        };
        out.push(item(written, CompletionItemKind::VALUE, n.kind.to_string()));
    }
}

/// The document's outline: sections, with their properties.
#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written.
pub fn symbols(text: &str) -> Option<Vec<DocumentSymbol>> {
    let parsed = crate::syntax::parse(0, text).ok()?;
    let index = LineIndex::new(text);
    fn prop(p: &Property, text: &str, index: &LineIndex) -> DocumentSymbol {
        DocumentSymbol {
            name: p.key.name.clone(),
            detail: Some(crate::syntax::fmt::values_text(p)),
            kind: SymbolKind::PROPERTY,
            tags: None,
            deprecated: None,
            range: index.range(text, p.span.start as usize, p.span.end as usize),
            selection_range: index.range(text, p.key.span.start as usize, p.key.span.end as usize),
            children: None,
        }
    }
    fn section(s: &Section, text: &str, index: &LineIndex) -> DocumentSymbol {
        let mut name = s.kind.name.clone();
        for l in &s.labels {
            name.push_str(&format!(" \"{}\"", l.value));
        }
        DocumentSymbol {
            name,
            detail: None,
            kind: if s.labels.is_empty() { SymbolKind::NAMESPACE } else { SymbolKind::STRUCT },
            tags: None,
            deprecated: None,
            range: index.range(text, s.span.start as usize, s.span.end as usize),
            selection_range: index.range(text, s.head.start as usize, s.head.end as usize),
            children: Some(items(&s.items, text, index)),
        }
    }
    fn items(items: &[Item], text: &str, index: &LineIndex) -> Vec<DocumentSymbol> {
        items
            .iter()
            .map(|i| match i {
                Item::Property(p) => prop(p, text, index),
                Item::Section(s) => section(s, text, index),
            })
            .collect()
    }
    Some(items(&parsed, text, &index))
}

/// The edit that puts the buffer in canonical layout, or the parse error.
pub fn formatting(text: &str) -> Result<Vec<TextEdit>, String> {
    let formatted = crate::syntax::fmt::format(text).map_err(|d| d.message)?;
    if formatted == text {
        return Ok(Vec::new());
    }
    let index = LineIndex::new(text);
    let end = index.position(text, text.len());
    Ok(vec![TextEdit { range: Range { start: Position::default(), end }, new_text: formatted }])
}
