//! What the server answers, over one analysed buffer: diagnostics in the
//! protocol's terms, hover, completion, go to definition, document symbols
//! and formatting.

use std::path::{Path, PathBuf};

use lsp_types::{Hover, HoverContents, Location, MarkupContent, MarkupKind, Range};

use super::analysis::{Analysis, Name};
use super::scan::{Role, Scan};
use super::text::{canonical, lsp_uri, path_to_uri, LineIndex, Positions};
use crate::engines::schema::{top_key, Key, SectionSchema};
use crate::engines::{Engine, ENGINES};
use crate::source::Span;
use crate::syntax::Section;

/// The URI of the open buffer standing for a file, if any.
pub type OpenUri<'a> = &'a dyn Fn(&Path) -> Option<String>;

/// Places in the files of an analysis, as protocol locations.
pub struct Locator<'a> {
    pub analysis: &'a Analysis,
    /// The buffer's URI (file 0 of the analysis).
    pub uri: &'a str,
    /// The URI of the open buffer standing for a file, if any.
    open: Option<OpenUri<'a>>,
}

impl<'a> Locator<'a> {
    pub fn new(analysis: &'a Analysis, uri: &'a str) -> Self {
        Locator { analysis, uri, open: None }
    }

    /// Files open in the editor are named by their buffers' URIs.
    pub fn with_open(mut self, open: OpenUri<'a>) -> Self {
        self.open = Some(open);
        self
    }

    pub fn range(&self, span: Span) -> Range {
        if span.file as usize >= self.analysis.sources.len() {
            return Range::default();
        }
        self.analysis.sources.file(span.file).lines().range(span.start as usize, span.end as usize)
    }

    /// The URI of file `id` of the analysis, when it is on disk.
    pub fn uri_of(&self, id: crate::source::FileId) -> Option<String> {
        if id == 0 {
            return Some(self.uri.to_string());
        }
        let path = self.analysis.file_path(id)?;
        self.open.and_then(|open| open(&path)).or_else(|| path_to_uri(&path))
    }

    /// The location of a span, when its file is on disk.
    pub fn location(&self, span: Span) -> Option<Location> {
        Some(Location { uri: lsp_uri(&self.uri_of(span.file)?)?, range: self.range(span) })
    }

    /// `file.rules:12`
    pub fn place(&self, span: Span) -> String {
        let name = &self.analysis.sources.file(span.file).name;
        let short = Path::new(name).file_name().map_or(name.clone(), |n| n.to_string_lossy().into_owned());
        format!("{short}:{}", self.analysis.sources.line_col(span).0)
    }
}

/// The schema of the section a frame list ends in, for this engine.
pub(super) fn section_schema(engine: Option<&'static Engine>, kind: &str) -> Option<&'static SectionSchema> {
    match engine {
        Some(e) => e.schema.section(kind),
        None => crate::engines::schema::TOP.section(kind),
    }
}

pub(super) fn key_schema(engine: Option<&'static Engine>, section: &str, key: &str) -> Option<&'static Key> {
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

/// Hover at byte `offset` of the buffer (`text`, indexed by `lines`).
pub fn hover(loc: &Locator, text: &str, lines: &LineIndex, offset: usize) -> Option<Hover> {
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
                match resolve_extends(loc.analysis, &word) {
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
        range: Some(lines.range(t.start, t.end)),
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

/// The base `extends: "value"` names, as loading finds it (with
/// `--restrict-extends`, a file outside the buffer's folder is none).
fn resolve_extends(a: &Analysis, value: &str) -> Option<Target> {
    let dir = a.path.parent().unwrap_or(Path::new(""));
    let p = dir.join(value);
    if p.is_file() {
        let inside = || canonical(&p).starts_with(canonical(dir)) && !Path::new(value).is_absolute();
        let allowed = p.extension().is_some_and(|e| e == "rules") && (!a.opts.restrict_extends || inside());
        return allowed.then_some(Target::File(p));
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
            match resolve_extends(loc.analysis, &word)? {
                Target::File(p) => {
                    let p = p.canonicalize().unwrap_or(p);
                    Some(Location { uri: lsp_uri(&path_to_uri(&p)?)?, range: Range::default() })
                }
                Target::Bundled(name) => {
                    let copy = super::bundled::copy(&format!("{name}.rules"))?;
                    Some(Location { uri: lsp_uri(&path_to_uri(&copy)?)?, range: Range::default() })
                }
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
