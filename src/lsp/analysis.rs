//! One analysis of an editor buffer: loaded like a file (its `extends:`
//! chain followed from its directory), checked and lowered by its engine,
//! with every diagnostic, and the names it and its bases define.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use crate::diag::Diag;
use crate::engines::schema::Schema;
use crate::engines::{compile, engine, Engine};
use crate::load::{load_buffer, LoadOptions, Overlay, BUNDLED_DIR};
use crate::source::{FileId, SourceMap, Span};
use crate::syntax::{ExprKind, Item, Section};

/// A name a rule file defines: a rank in `deck { ranks }`, a ball in
/// `ball "Red"`, a group, a player, a structure...
#[derive(Debug, Clone)]
pub struct Name {
    /// Its kind, from the schema (`rank`, `ball`).
    pub kind: &'static str,
    pub name: String,
    /// Where the name is written.
    pub span: Span,
    /// The section or property that defines it (shown on hover).
    pub context: Span,
}

/// The result of analysing one buffer.
pub struct Analysis {
    /// The buffer is file 0; the files it extends follow.
    pub sources: SourceMap,
    /// The merged items (the buffer over its bases), when loading worked.
    pub items: Option<Vec<Item>>,
    /// Every diagnostic, warnings included.
    pub diags: Vec<Diag>,
    /// The engine the merged file names.
    pub engine: Option<&'static Engine>,
    pub names: Vec<Name>,
    /// Every use of a name the lowering resolved (rename and references).
    pub uses: Vec<crate::check::Resolved>,
    /// The buffer's path on disk (its directory resolves `extends:`).
    pub path: PathBuf,
    /// The paths of the bases asked for (made canonical), read from the
    /// disk or from an open buffer: a change to one calls for a new
    /// analysis.
    pub deps: Vec<PathBuf>,
    /// The options it was loaded with (`--restrict-extends`).
    pub opts: LoadOptions,
}

impl Analysis {
    /// The buffer alone: its bases read from the disk.
    pub fn new(path: &Path, text: &str) -> Analysis {
        Analysis::with(path, text, &LoadOptions::default(), &|_| None)
    }

    /// The buffer with the loading options of the server and the texts of
    /// the other open buffers (`overlay`).
    pub fn with(path: &Path, text: &str, opts: &LoadOptions, overlay: Overlay) -> Analysis {
        let deps = RefCell::new(Vec::new());
        let asked = |p: &Path| {
            deps.borrow_mut().push(super::text::canonical(p));
            overlay(p)
        };
        let loaded = load_buffer(path, text, opts, &asked);
        let deps = deps.into_inner();
        match loaded {
            Ok(loaded) => {
                let ((_, diags), uses) = crate::check::record_names(|| compile(&loaded));
                let engine = engine_of(&loaded.items);
                let names = engine.map_or_else(Vec::new, |e| names(&loaded.items, e.schema));
                let sources = loaded.sources;
                let items = Some(loaded.items);
                Analysis { sources, items, diags, engine, names, uses, path: path.into(), deps, opts: *opts }
            }
            Err(e) => Analysis {
                sources: e.sources,
                items: None,
                diags: e.diags,
                engine: None,
                names: Vec::new(),
                uses: Vec::new(),
                path: path.into(),
                deps,
                opts: *opts,
            },
        }
    }

    /// The buffer compiled (for its figures and examples), when it
    /// compiles without an error.
    pub fn compile(path: &Path, text: &str, opts: &LoadOptions, overlay: Overlay) -> Option<crate::engines::Compiled> {
        let loaded = load_buffer(path, text, opts, overlay).ok()?;
        compile(&loaded).0
    }

    /// The buffer's text as analysed (line endings made `\n`).
    pub fn text(&self) -> &str {
        &self.sources.file(0).text
    }

    /// The path of file `id` on disk: for a bundled file, its read-only
    /// copy (`None` when there is none).
    pub fn file_path(&self, id: FileId) -> Option<PathBuf> {
        if id == 0 {
            return Some(self.path.clone());
        }
        let name = &self.sources.file(id).name;
        match name.strip_prefix(BUNDLED_DIR) {
            Some(rel) => super::bundled::copy(rel),
            None => Some(PathBuf::from(name)),
        }
    }

    /// The name of the bundled game file `id` is, if it is one.
    pub fn bundled_name(&self, id: FileId) -> Option<&str> {
        let name = self.sources.file(id).name.strip_prefix(BUNDLED_DIR)?;
        Some(name.trim_start_matches('/').trim_end_matches(".rules"))
    }

    /// The uses of names in the buffer itself, when they are all known: its
    /// file loaded and compiled without an error (a lowering stopped by an
    /// error may not reach every use). Byte ranges, with the kind when the
    /// lowering knew it.
    pub fn buffer_uses(&self) -> Option<Vec<(Option<&'static str>, usize, usize)>> {
        if self.items.is_none() || self.diags.iter().any(Diag::is_error) {
            return None;
        }
        let here = self.uses.iter().filter(|u| u.span.file == 0);
        Some(here.map(|u| (u.kind, u.span.start as usize, u.span.end as usize)).collect())
    }

    /// The names of the given kinds (every name when `kinds` is empty).
    pub fn names_of<'a>(&'a self, kinds: &'a [&str]) -> impl Iterator<Item = &'a Name> + 'a {
        self.names.iter().filter(move |n| kinds.is_empty() || kinds.contains(&n.kind))
    }

    /// The merged top-level section with this kind and labels.
    pub fn section(&self, kind: &str, labels: &[String]) -> Option<&Section> {
        self.items.as_ref()?.iter().find_map(|i| match i {
            Item::Section(s)
                if s.kind.name == kind
                    && s.labels.len() == labels.len()
                    && s.labels.iter().zip(labels).all(|(a, b)| a.value == *b) =>
            {
                Some(s)
            }
            _ => None,
        })
    }
}

/// The engine an item list names with `engine:`.
pub fn engine_of(items: &[Item]) -> Option<&'static Engine> {
    items.iter().find_map(|i| match i {
        Item::Property(p) if p.key.name == "engine" => p.values.first().and_then(|v| v.as_word()).and_then(engine),
        _ => None,
    })
}

/// The names the merged items define, as the schema says.
fn names(items: &[Item], schema: &Schema) -> Vec<Name> {
    let mut out = Vec::new();
    for item in items {
        let Item::Section(s) = item else { continue };
        let Some(sc) = schema.section(&s.kind.name) else { continue };
        if let (Some(kind), Some(label)) = (sc.names, s.name()) {
            out.push(Name { kind, name: label.value.clone(), span: label.span, context: s.span });
        }
        for i in &s.items {
            let Item::Property(p) = i else { continue };
            let Some(kind) = sc.key(&p.key.name).and_then(|k| k.defines) else { continue };
            for v in &p.values {
                let name = match &v.kind {
                    ExprKind::Word(w) => w.clone(),
                    ExprKind::Int(n) => n.to_string(),
                    ExprKind::Str(s) => s.value.clone(),
                    _ => continue,
                };
                out.push(Name { kind, name, span: v.span, context: p.span });
            }
        }
    }
    out
}
