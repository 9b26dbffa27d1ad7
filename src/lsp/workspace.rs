//! The open buffers: their text (the truth for every file of an
//! `extends:` chain while it is open), their versions, their latest
//! analyses, and which buffers must be checked again when a file changes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde_json::Value;

use super::analysis::Analysis;
use super::text::{canonical, uri_to_path, LineIndex, Positions};
use super::worker::{Done, Job, Overlays};
use crate::load::LoadOptions;
use crate::syntax::parse::normalize;

/// An open buffer.
pub struct Document {
    pub uri: String,
    /// Where `extends:` is resolved from: the file the URI names, or a
    /// name in the current directory for a buffer with no file.
    pub path: PathBuf,
    /// The file, made canonical, when the URI names one.
    pub canon: Option<PathBuf>,
    /// The text, line endings made `\n` (as the checker sees it).
    pub text: Arc<str>,
    pub lines: LineIndex,
    /// The client's version, as it wrote it (any JSON number).
    pub version: Option<Value>,
    pub generation: u64,
    /// The latest finished analysis (of this text or an earlier one).
    pub analysis: Option<Arc<Analysis>>,
    /// The last analysis whose file loaded (names and engine for
    /// completion while the buffer does not parse).
    pub good: Option<Arc<Analysis>>,
    /// Files this buffer's analyses read (bases), made canonical.
    deps: Vec<PathBuf>,
    /// Waiting for an analysis of its current text.
    dirty: bool,
    /// Its own text changed since its last job (not only a base's).
    edited: bool,
    /// The latest job for this buffer (its number, and its token while it
    /// runs).
    ticket: u64,
    cancel: Option<Arc<AtomicBool>>,
}

impl Document {
    fn set_text(&mut self, text: String, generation: u64) {
        let text = normalize(text);
        self.lines = LineIndex::new(&text);
        self.text = Arc::from(text);
        self.generation = generation;
        self.dirty = true;
        self.edited = true;
    }
}

/// One change of a buffer: a range (in the client's positions) and the
/// text put there, or the whole text.
pub struct Change {
    pub range: Option<lsp_types::Range>,
    pub text: String,
}

/// Every open buffer.
#[derive(Default)]
pub struct Workspace {
    pub docs: HashMap<String, Document>,
    generation: u64,
}

impl Workspace {
    fn next_generation(&mut self) -> u64 {
        self.generation += 1;
        self.generation
    }

    /// Opens a buffer (or replaces an open one).
    pub fn open(&mut self, uri: &str, text: String, version: Option<Value>) {
        let path = uri_to_path(uri);
        let canon = path.as_deref().map(canonical);
        let path = path.unwrap_or_else(|| {
            let name = uri.rsplit(['/', ':']).next().filter(|n| !n.is_empty()).unwrap_or("untitled");
            std::env::current_dir().unwrap_or_default().join(name)
        });
        let generation = self.next_generation();
        let mut doc = Document {
            uri: uri.to_string(),
            path,
            canon,
            text: Arc::from(""),
            lines: LineIndex::default(),
            version,
            generation,
            analysis: None,
            good: None,
            deps: Vec::new(),
            dirty: true,
            edited: true,
            ticket: 0,
            cancel: None,
        };
        doc.set_text(text, generation);
        if let Some(old) = self.docs.insert(uri.to_string(), doc) {
            cancel(&old.cancel);
        }
        self.touched(uri);
    }

    /// Applies a buffer's changes in order (a range out of the text is
    /// clamped to it); `false` when the buffer is not open.
    pub fn change(&mut self, uri: &str, changes: Vec<Change>, version: Option<Value>) -> bool {
        let generation = self.next_generation();
        let Some(doc) = self.docs.get_mut(uri) else { return false };
        let mut text = doc.text.to_string();
        for c in changes {
            match c.range {
                None => text = c.text,
                Some(r) => {
                    let lines = LineIndex::new(&text);
                    let (a, b) = (lines.offset(r.start), lines.offset(r.end));
                    text.replace_range(a.min(b)..a.max(b), &normalize(c.text));
                }
            }
        }
        doc.set_text(text, generation);
        if version.is_some() {
            doc.version = version;
        }
        self.touched(uri);
        true
    }

    /// Closes a buffer: the disk is the truth for its file again.
    pub fn close(&mut self, uri: &str) -> bool {
        let Some(doc) = self.docs.remove(uri) else { return false };
        cancel(&doc.cancel);
        if let Some(canon) = &doc.canon {
            self.file_changed(canon);
        }
        true
    }

    /// A buffer was changed (or opened, or saved): it and every buffer
    /// that read its file are checked again.
    pub fn touched(&mut self, uri: &str) {
        let Some(doc) = self.docs.get_mut(uri) else { return };
        doc.dirty = true;
        if let Some(canon) = doc.canon.clone() {
            self.file_changed(&canon);
        }
    }

    /// The file at `path` changed (on disk, or its buffer): every other
    /// buffer that read it is checked again.
    pub fn file_changed(&mut self, path: &Path) {
        let canon = canonical(path);
        for doc in self.docs.values_mut() {
            if doc.canon.as_ref() != Some(&canon) && doc.deps.contains(&canon) {
                doc.dirty = true;
            }
        }
    }

    /// The jobs for every buffer waiting for an analysis; a job already
    /// running for one of them is cancelled.
    pub fn jobs(&mut self, opts: LoadOptions) -> Vec<Job> {
        if !self.docs.values().any(|d| d.dirty) {
            return Vec::new();
        }
        let overlays: Arc<Overlays> = Arc::new(
            self.docs.values().filter_map(|d| Some((d.canon.clone()?, (d.generation, d.text.clone())))).collect(),
        );
        let mut dirty: Vec<&mut Document> = self.docs.values_mut().filter(|d| d.dirty).collect();
        // Buffers whose own text changed first, in the order they changed,
        // then the ones that read them.
        dirty.sort_by_key(|d| (!d.edited, d.generation));
        let mut ticket = self.generation;
        let jobs = dirty
            .into_iter()
            .map(|doc| {
                cancel(&doc.cancel);
                let token = Arc::new(AtomicBool::new(false));
                doc.cancel = Some(token.clone());
                doc.dirty = false;
                doc.edited = false;
                ticket += 1;
                doc.ticket = ticket;
                Job {
                    uri: doc.uri.clone(),
                    ticket,
                    path: doc.path.clone(),
                    text: doc.text.clone(),
                    overlays: overlays.clone(),
                    opts,
                    cancel: token,
                }
            })
            .collect();
        self.generation = ticket;
        jobs
    }

    /// Takes a finished analysis; returns the buffer when the analysis is
    /// of its current text and of the current texts of the buffers it read
    /// (then its diagnostics are to be published).
    pub fn finished(&mut self, done: Done) -> Option<&Document> {
        let stale_bases = done.used.iter().any(|(path, generation)| {
            self.docs.values().any(|d| d.canon.as_ref() == Some(path) && d.generation != *generation)
        });
        let opened_bases = done.analysis.as_ref().is_some_and(|a| {
            a.deps.iter().any(|p| {
                !done.used.iter().any(|(u, _)| u == p) && self.docs.values().any(|d| d.canon.as_ref() == Some(p))
            })
        });
        let doc = self.docs.get_mut(&done.uri)?;
        let mine = doc.ticket == done.ticket;
        if done.fallback {
            // Only when nothing loaded before: a buffer opened broken.
            if let Some(a) = done.analysis.filter(|a| mine && a.items.is_some() && doc.good.is_none()) {
                doc.good = Some(Arc::new(a));
            }
            return None;
        }
        if mine {
            doc.cancel = None;
        }
        let analysis = done.analysis.map(Arc::new)?;
        if mine {
            doc.deps = analysis.deps.clone();
        } else {
            doc.deps.extend(analysis.deps.iter().filter(|p| !doc.deps.contains(p)).cloned().collect::<Vec<_>>());
        }
        if analysis.items.is_some() {
            doc.good = Some(analysis.clone());
        }
        doc.analysis = Some(analysis);
        if mine && (stale_bases || opened_bases) {
            // A base changed while this ran: check again.
            doc.dirty = true;
            return None;
        }
        mine.then_some(&*doc)
    }

    /// Whether an analysis is waiting or under way for some buffer.
    pub fn busy(&self) -> bool {
        self.docs.values().any(|d| d.dirty || d.cancel.is_some())
    }

    /// The URI of the open buffer for a file, if any.
    pub fn uri_of_file(&self, path: &Path) -> Option<String> {
        let canon = canonical(path);
        self.docs.values().find(|d| d.canon.as_ref() == Some(&canon)).map(|d| d.uri.clone())
    }
}

fn cancel(token: &Option<Arc<AtomicBool>>) {
    if let Some(t) = token {
        t.store(true, Ordering::Relaxed);
    }
}
