//! Completion, at every place of a rule file: the keys a section may still
//! take and the sections of the file's engine; the values of a key (its
//! words, the names it refers to); `engine:`; `extends:` (rule files
//! around, bundled games, inside the quotes too); the base's labels after
//! a section's kind (`combination "|"`) and in `remove:`, `before:` and
//! `after:`; the fields of an output template after `{`.

use std::path::{Path, PathBuf};

use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionTextEdit, Documentation, InsertTextFormat, MarkupContent, MarkupKind,
    TextEdit,
};

use super::analysis::Analysis;
use super::features::{key_schema, section_schema};
use super::scan::{Frame, Place, Scan};
use super::text::{LineIndex, Positions};
use crate::engines::schema::{Key, SectionSchema, TOP_KEYS};
use crate::engines::{Engine, ENGINES};
use crate::syntax::Item;

/// Completion at byte `offset`; `snippets` when the client takes them.
pub fn completion(a: &Analysis, text: &str, lines: &LineIndex, offset: usize, snippets: bool) -> Vec<CompletionItem> {
    let scan = Scan::new(text);
    let cursor = scan.cursor(offset);
    let Some(frame) = cursor.frames.last() else { return Vec::new() };
    // (Inside an opening `"""`, the text starts at the cursor.)
    let clamp = |start: usize| start.min(offset);
    let mut out = Vec::new();
    // Text put between `start` and the cursor.
    let edit = |start: usize, label: String, kind: CompletionItemKind, detail: &str| CompletionItem {
        text_edit: Some(CompletionTextEdit::Edit(TextEdit {
            range: lines.range(start, offset),
            new_text: label.clone(),
        })),
        filter_text: Some(label.clone()),
        label,
        kind: Some(kind),
        detail: Some(detail.to_string()),
        ..CompletionItem::default()
    };
    match &cursor.place {
        Place::Nowhere => {}
        Place::Key => keys(a, frame, snippets, &mut out),
        Place::Value { key, also_key } => {
            if let Some(key) = key {
                values(a, &frame.kind, key, &mut out);
            }
            if *also_key {
                keys(a, frame, snippets, &mut out);
            }
        }
        Place::Head { kind } => {
            for l in base_labels(a, kind) {
                out.push(item(format!("\"{l}\""), CompletionItemKind::REFERENCE, &format!("a {kind} of the base")));
            }
        }
        Place::Label { kind, start } => {
            for l in base_labels(a, kind) {
                out.push(edit(clamp(*start), l, CompletionItemKind::REFERENCE, &format!("a {kind} of the base")));
            }
        }
        Place::Quoted { key, after_word, start } => {
            let start = &clamp(*start);
            let inside = &text[*start..offset];
            for (label, kind, detail) in quoted(a, frame, key.as_deref(), after_word.as_deref(), inside) {
                let from = match kind {
                    CompletionItemKind::FIELD => *start + inside.rfind('{').map_or(0, |n| n + 1),
                    _ => *start,
                };
                out.push(edit(from, label, kind, &detail));
            }
        }
    }
    out
}

fn item(label: String, kind: CompletionItemKind, detail: &str) -> CompletionItem {
    CompletionItem { label, kind: Some(kind), detail: Some(detail.to_string()), ..CompletionItem::default() }
}

fn doc(s: &str) -> Documentation {
    let mut c = s.chars();
    let capital = c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default();
    Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value: capital })
}

/// The keys a section may still take, and at the top level the sections
/// of the file's engine.
fn keys(a: &Analysis, frame: &Frame, snippets: bool, out: &mut Vec<CompletionItem>) {
    let engine = a.engine;
    let keys: Vec<&Key> = if frame.kind.is_empty() {
        TOP_KEYS.iter().collect()
    } else {
        section_schema(engine, &frame.kind).map_or_else(Vec::new, |s| s.keys.iter().collect())
    };
    for k in keys.into_iter().filter(|k| !frame.seen.iter().any(|s| s == k.name)) {
        let (insert, format) = if snippets && !k.example.is_empty() && !k.example.contains('\n') {
            let example = k.example.replace('}', "\\}").replace('$', "\\$");
            (format!("{}: ${{1:{example}}}", k.name), InsertTextFormat::SNIPPET)
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
        sections(engine, frame, snippets, out);
    }
}

fn sections(engine: Option<&'static Engine>, frame: &Frame, snippets: bool, out: &mut Vec<CompletionItem>) {
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

/// The labels of the base's sections of `kind` (a variant changes them).
fn base_labels<'a>(a: &'a Analysis, kind: &'a str) -> impl Iterator<Item = String> + 'a {
    labels(a, kind, true)
}

/// The labels of the merged file's sections of `kind` (`only_base`: those
/// its bases wrote).
fn labels<'a>(a: &'a Analysis, kind: &'a str, only_base: bool) -> impl Iterator<Item = String> + 'a {
    a.items.iter().flatten().filter_map(move |i| match i {
        Item::Section(s) if s.kind.name == kind && (!only_base || s.head.file != 0) => {
            s.name().map(|l| l.value.clone())
        }
        _ => None,
    })
}

/// What goes inside a string value of `key` whose text so far is
/// `inside`: (text, kind, detail).
fn quoted(
    a: &Analysis,
    frame: &Frame,
    key: Option<&str>,
    after_word: Option<&str>,
    inside: &str,
) -> Vec<(String, CompletionItemKind, String)> {
    let section = frame.kind.as_str();
    match (section, key, after_word) {
        ("", Some("extends"), _) => extends_targets(a)
            .into_iter()
            .map(|(t, bundled)| {
                let detail = if bundled { "a bundled game" } else { "a rule file" };
                (t, CompletionItemKind::FILE, detail.to_string())
            })
            .collect(),
        ("", Some("remove"), Some(kind)) => {
            base_labels(a, kind).map(|l| (l, CompletionItemKind::REFERENCE, format!("a {kind} of the base"))).collect()
        }
        (_, Some("before" | "after"), _) if !section.is_empty() => labels(a, section, false)
            .filter(|l| frame.labels.first() != Some(l))
            .map(|l| (l, CompletionItemKind::REFERENCE, format!("a {section}")))
            .collect(),
        (_, Some(k), _) => {
            // A template: its fields after an unclosed `{`.
            let open = inside.rfind('{').is_some_and(|i| !inside[i..].contains('}'));
            let key = key_schema(a.engine, section, k);
            match key.filter(|_| open) {
                Some(key) => template_fields(key)
                    .into_iter()
                    .map(|f| (f.to_string(), CompletionItemKind::FIELD, format!("a field of `{k}`")))
                    .collect(),
                None => Vec::new(),
            }
        }
        _ => Vec::new(),
    }
}

/// The fields an output template may use, as its schema lists them ("a
/// template; fields `cards`, `count` and `kept`").
pub fn template_fields(key: &Key) -> Vec<&'static str> {
    if !key.ty.starts_with("a template") {
        return Vec::new();
    }
    key.ty.split('`').skip(1).step_by(2).collect()
}

/// What `extends:` may name: rule files beside the buffer and in the
/// folder above (only beside it with `--restrict-extends`), then the
/// bundled games: (text, bundled).
fn extends_targets(a: &Analysis) -> Vec<(String, bool)> {
    let dir = a.path.parent().unwrap_or(Path::new(""));
    let mut around: Vec<(PathBuf, &str)> = vec![(dir.to_path_buf(), "")];
    if !a.opts.restrict_extends {
        around.push((dir.join(".."), "../"));
    }
    let mut out = Vec::new();
    for (sub, prefix) in around {
        let Ok(entries) = std::fs::read_dir(&sub) else { continue };
        let mut files: Vec<String> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "rules") && p.is_file())
            .filter(|p| p.file_name() != a.path.file_name() || !prefix.is_empty())
            .filter_map(|p| p.file_name().map(|n| format!("{prefix}{}", n.to_string_lossy())))
            .collect();
        files.sort();
        out.extend(files.into_iter().take(200).map(|f| (f, false)));
    }
    out.extend(crate::load::bundled_names().into_iter().map(|n| (n.to_string(), true)));
    out
}

/// The values `key` of section `section` may take.
fn values(a: &Analysis, section: &str, key: &str, out: &mut Vec<CompletionItem>) {
    if section.is_empty() && key == "engine" {
        out.extend(ENGINES.iter().map(|e| item(e.name.into(), CompletionItemKind::ENUM_MEMBER, e.summary)));
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
                out.push(item(text, CompletionItemKind::REFERENCE, "a section of the base"));
            }
        }
        return;
    }
    if section.is_empty() && key == "extends" {
        for (t, bundled) in extends_targets(a) {
            let detail = if bundled { "a bundled game" } else { "a rule file" };
            let mut it = item(format!("\"{t}\""), CompletionItemKind::FILE, detail);
            it.filter_text = Some(t);
            out.push(it);
        }
        return;
    }
    let Some(k) = key_schema(a.engine, section, key) else { return };
    for (w, d) in k.words {
        out.push(item(w.to_string(), CompletionItemKind::KEYWORD, d));
    }
    let mut seen: Vec<&str> = Vec::new();
    for n in a.names_of(k.refers).filter(|_| !k.refers.is_empty()) {
        if seen.contains(&n.name.as_str()) {
            continue;
        }
        seen.push(&n.name);
        let written = if n.name.chars().all(|c| c.is_ascii_alphanumeric() || "_-'".contains(c)) {
            n.name.clone()
        } else {
            format!("\"{}\"", n.name)
        };
        out.push(item(written, CompletionItemKind::VALUE, n.kind));
    }
}
