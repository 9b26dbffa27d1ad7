//! The open buffers: their text (the truth for every file of an
//! `extends:` chain while it is open), their versions, their latest
//! analyses, and which buffers must be checked again when a file changes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde_json::Value;

use super::analysis::Analysis;
use super::figures::{ExampleRun, Extra, Found, Lines};
use super::text::{canonical, uri_to_path, LineIndex, Positions};
use super::worker::{Done, Job, Overlays, Task};
use crate::load::LoadOptions;
use crate::syntax::parse::normalize;

/// An open buffer.
pub(super) struct Document {
    pub uri: String,
    /// Where `extends:` is resolved from: the file the URI names, or a
    /// name in the current directory for a buffer with no file.
    pub path: PathBuf,
    /// The file, made canonical, when the URI names one.
    pub canon: Option<PathBuf>,
    /// The text, line endings made `\n` (as the checker sees it).
    pub text: Arc<str>,
    /// The language of a buffer that is not a rule file (udev's and
    /// Snort's `.rules`): left alone.
    pub foreign: Option<&'static str>,
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
    /// The generation of the text of the latest analysis.
    analysed: u64,
    /// The figures of `arbiter analyze` and the generation they are of
    /// (`None` inside: the engine has none).
    pub figures: Option<(u64, Option<Lines>)>,
    /// Figures asked for (a save, the command): computed as soon as the
    /// text is checked.
    figures_asked: bool,
    figures_cancel: Option<Arc<AtomicBool>>,
    /// The examples as they last ran, and the generation they are of.
    pub examples: Option<(u64, Vec<ExampleRun>)>,
}

impl Document {
    /// The figures, when they are of the current text.
    pub(super) fn current_figures(&self) -> Option<&Option<Lines>> {
        self.figures.as_ref().filter(|(g, _)| *g == self.generation).map(|(_, f)| f)
    }

    /// The examples' runs, when they are of the current text.
    pub(super) fn current_examples(&self) -> Option<&[ExampleRun]> {
        self.examples.as_ref().filter(|(g, _)| *g == self.generation).map(|(_, e)| e.as_slice())
    }

    /// Whether the latest analysis is of the current text and compiles.
    fn compiles(&self) -> bool {
        self.analysed == self.generation
            && !self.dirty
            && self.analysis.as_ref().is_some_and(|a| a.items.is_some() && !a.diags.iter().any(|d| d.is_error()))
    }

    fn set_text(&mut self, text: String, generation: u64) {
        let text = normalize(text);
        self.foreign = super::detect::foreign(&text);
        self.lines = LineIndex::new(&text);
        self.text = Arc::from(text);
        self.generation = generation;
        self.dirty = true;
        self.edited = true;
    }
}

/// One change of a buffer: a range (in the client's positions) and the
/// text put there, or the whole text.
pub(super) struct Change {
    pub range: Option<lsp_types::Range>,
    pub text: String,
}

/// Every open buffer.
#[derive(Default)]
pub(super) struct Workspace {
    pub docs: HashMap<String, Document>,
    generation: u64,
}

impl Workspace {
    fn next_generation(&mut self) -> u64 {
        self.generation += 1;
        self.generation
    }

    /// Opens a buffer (or replaces an open one).
    pub(super) fn open(&mut self, uri: &str, text: String, version: Option<Value>) {
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
            foreign: None,
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
            analysed: 0,
            figures: None,
            figures_asked: false,
            figures_cancel: None,
            examples: None,
        };
        doc.set_text(text, generation);
        if let Some(old) = self.docs.insert(uri.to_string(), doc) {
            cancel(&old.cancel);
        }
        self.touched(uri);
    }

    /// Applies a buffer's changes in order (a range out of the text is
    /// clamped to it); `false` when the buffer is not open.
    pub(super) fn change(&mut self, uri: &str, changes: Vec<Change>, version: Option<Value>) -> bool {
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
    pub(super) fn close(&mut self, uri: &str) -> bool {
        let Some(doc) = self.docs.remove(uri) else { return false };
        cancel(&doc.cancel);
        if let Some(canon) = &doc.canon {
            self.file_changed(canon);
        }
        true
    }

    /// A buffer was changed (or opened, or saved): it and every buffer
    /// that read its file are checked again.
    pub(super) fn touched(&mut self, uri: &str) {
        let Some(doc) = self.docs.get_mut(uri) else { return };
        doc.dirty = true;
        if let Some(canon) = doc.canon.clone() {
            self.file_changed(&canon);
        }
    }

    /// The file at `path` changed (on disk, or its buffer): every other
    /// buffer that read it is checked again.
    pub(super) fn file_changed(&mut self, path: &Path) {
        let canon = canonical(path);
        for doc in self.docs.values_mut() {
            if doc.canon.as_ref() != Some(&canon) && doc.deps.contains(&canon) {
                doc.dirty = true;
            }
        }
    }

    /// The jobs for every buffer waiting for an analysis; a job already
    /// running for one of them is cancelled.
    pub(super) fn jobs(&mut self, opts: LoadOptions) -> Vec<Job> {
        if !self.docs.values().any(|d| d.dirty) {
            return Vec::new();
        }
        let overlays: Arc<Overlays> = Arc::new(
            self.docs.values().filter_map(|d| Some((d.canon.clone()?, (d.generation, d.text.clone())))).collect(),
        );
        // Checks come first: figures under way stop (they are computed
        // again at the next pause).
        for d in self.docs.values_mut() {
            cancel(&d.figures_cancel.take());
        }
        for d in self.docs.values_mut().filter(|d| d.foreign.is_some()) {
            d.dirty = false;
        }
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
                    task: Task::Check,
                    uri: doc.uri.clone(),
                    ticket,
                    generation: doc.generation,
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
    pub(super) fn finished(&mut self, done: Done) -> Option<&Document> {
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
            doc.analysed = done.generation;
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
        (mine && done.generation == doc.generation).then_some(&*doc)
    }

    /// Figures are wanted for `uri` as soon as its text is checked.
    pub(super) fn ask_figures(&mut self, uri: &str) {
        if let Some(d) = self.docs.get_mut(uri) {
            d.figures_asked = true;
        }
    }

    /// The figures jobs due: for buffers that asked for them, and (after a
    /// pause, `paused`) for every buffer whose figures are not of its
    /// text; only for a text that compiles.
    pub(super) fn figures_jobs(&mut self, opts: LoadOptions, paused: bool) -> Vec<Job> {
        let due: Vec<String> = self
            .docs
            .values()
            .filter(|d| d.compiles() && d.figures_cancel.is_none())
            .filter(|d| d.figures_asked || (paused && d.current_figures().is_none()))
            .map(|d| d.uri.clone())
            .collect();
        due.iter().filter_map(|u| self.extra_job(u, Task::Figures, opts)).collect()
    }

    /// Whether some buffer's figures would be computed after a pause.
    pub(super) fn figures_pending(&self) -> bool {
        self.docs.values().any(|d| d.compiles() && d.figures_cancel.is_none() && d.current_figures().is_none())
    }

    /// A figures or examples job for the buffer's current text.
    pub(super) fn extra_job(&mut self, uri: &str, task: Task, opts: LoadOptions) -> Option<Job> {
        let overlays = self.overlays();
        let doc = self.docs.get_mut(uri)?;
        let token = Arc::new(AtomicBool::new(false));
        if task == Task::Figures {
            doc.figures_asked = false;
            doc.figures_cancel = Some(token.clone());
        }
        Some(Job {
            task,
            uri: uri.to_string(),
            ticket: doc.generation,
            generation: doc.generation,
            path: doc.path.clone(),
            text: doc.text.clone(),
            overlays,
            opts,
            cancel: token,
        })
    }

    /// The text of the open buffer for the file at canonical `path`.
    pub(super) fn open_text(&self, path: &Path) -> Option<String> {
        self.docs.values().find(|d| d.canon.as_deref() == Some(path)).map(|d| d.text.to_string())
    }

    fn overlays(&self) -> Arc<Overlays> {
        Arc::new(self.docs.values().filter_map(|d| Some((d.canon.clone()?, (d.generation, d.text.clone())))).collect())
    }

    /// Takes a finished figures or examples job; returns the buffer when
    /// it is of its current text.
    pub(super) fn finished_extra(&mut self, e: Extra) -> Option<&Document> {
        let doc = self.docs.get_mut(&e.uri)?;
        if e.task == Task::Figures {
            doc.figures_cancel = None;
        }
        if doc.generation != e.generation {
            return None;
        }
        match e.found? {
            Found::Figures(f) => doc.figures = Some((e.generation, f)),
            Found::Examples(runs) => doc.examples = Some((e.generation, runs)),
        }
        Some(&*doc)
    }

    /// Whether an analysis is waiting or under way for some buffer.
    pub(super) fn busy(&self) -> bool {
        self.docs.values().any(|d| d.dirty || d.cancel.is_some())
    }

    /// The URI of the open buffer for a file, if any.
    pub(super) fn uri_of_file(&self, path: &Path) -> Option<String> {
        let canon = canonical(path);
        self.docs.values().find(|d| d.canon.as_ref() == Some(&canon)).map(|d| d.uri.clone())
    }
}

fn cancel(token: &Option<Arc<AtomicBool>>) {
    if let Some(t) = token {
        t.store(true, Ordering::Relaxed);
    }
}

/// A file of an `extends:` chain, as rename and references read it.
#[derive(Clone)]
pub(super) struct FileText {
    pub uri: String,
    pub text: Arc<str>,
    /// `None` when it can be edited; else why not (a bundled game).
    pub read_only: Option<String>,
    /// Where its `extends:` is resolved from (`None` for a bundled game).
    pub path: Option<PathBuf>,
}

/// Rule files looked at for variants on disk, at most.
const MAX_SCANNED: usize = 500;

impl Workspace {
    /// The files a name of `doc` may be written in: the buffer, its bases,
    /// the open buffers that read any of them, and the rule files beside
    /// them (and one folder down) that extend one of them.
    pub(super) fn family(&self, doc: &Document) -> Vec<FileText> {
        let mut out = vec![FileText {
            uri: doc.uri.clone(),
            text: doc.text.clone(),
            read_only: None,
            path: Some(doc.path.clone()),
        }];
        let mut chain: Vec<PathBuf> = doc.canon.iter().cloned().collect();
        if let Some(a) = &doc.analysis {
            for id in 1..a.sources.len() as u32 {
                let file = a.sources.file(id);
                if let Some(name) = a.bundled_name(id) {
                    let uri = format!("arbiter-bundled:{name}");
                    let why = format!("it is in the bundled game `{name}`");
                    out.push(FileText { uri, text: Arc::from(&*file.text), read_only: Some(why), path: None });
                    continue;
                }
                let Some(path) = a.file_path(id) else { continue };
                let canon = canonical(&path);
                let open = self.docs.values().find(|d| d.canon.as_ref() == Some(&canon));
                let (uri, text) = match open {
                    Some(d) => (d.uri.clone(), d.text.clone()),
                    None => (super::text::path_to_uri(&canon).unwrap_or_default(), Arc::from(&*file.text)),
                };
                chain.push(canon.clone());
                out.push(FileText { uri, text, read_only: None, path: Some(canon) });
            }
        }
        if doc.canon.as_deref().is_some_and(super::bundled::is_copy) {
            let why = "it is the read-only copy of a bundled game".to_string();
            out[0].read_only = Some(why);
        }
        for d in self.docs.values().filter(|d| d.uri != doc.uri && d.deps.iter().any(|p| chain.contains(p))) {
            if !out.iter().any(|f| f.uri == d.uri) {
                out.push(FileText {
                    uri: d.uri.clone(),
                    text: d.text.clone(),
                    read_only: None,
                    path: Some(d.path.clone()),
                });
            }
        }
        self.variants_on_disk(&chain, &mut out);
        out
    }

    /// Rule files beside the chain's files (and one folder down) whose
    /// `extends:` names one of them.
    fn variants_on_disk(&self, chain: &[PathBuf], out: &mut Vec<FileText>) {
        let mut dirs: Vec<PathBuf> = chain.iter().filter_map(|p| p.parent().map(Path::to_path_buf)).collect();
        dirs.sort();
        dirs.dedup();
        let mut candidates = Vec::new();
        for dir in &dirs {
            let Ok(entries) = std::fs::read_dir(dir) else { continue };
            for p in entries.flatten().map(|e| e.path()) {
                if p.is_dir() {
                    let Ok(sub) = std::fs::read_dir(&p) else { continue };
                    candidates.extend(sub.flatten().map(|e| e.path()));
                } else {
                    candidates.push(p);
                }
            }
        }
        candidates.retain(|p| p.extension().is_some_and(|e| e == "rules"));
        for p in candidates.into_iter().take(MAX_SCANNED) {
            let canon = canonical(&p);
            if chain.contains(&canon) || self.docs.values().any(|d| d.canon.as_ref() == Some(&canon)) {
                continue;
            }
            let Ok(bytes) = crate::load::read_rule_file(&p) else { continue };
            let Ok(text) = String::from_utf8(bytes) else { continue };
            let Some((_, _, base)) = super::scan::Scan::new(&text).extends() else { continue };
            let target = canonical(&p.parent().unwrap_or(Path::new("")).join(base));
            if chain.contains(&target) {
                let uri = super::text::path_to_uri(&canon).unwrap_or_default();
                out.push(FileText { uri, text: Arc::from(normalize(text)), read_only: None, path: Some(canon) });
            }
        }
    }
}
