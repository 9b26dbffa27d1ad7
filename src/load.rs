//! Loading a rule file: read, parse, follow `extends:` to the base file, and
//! merge the variant over its base.
//!
//! Merge rules (docs/language.md, "Variants"): at each level, a property
//! replaces the base property with the same key; a section merges into the
//! base section with the same kind and labels (recursively), or replaces it
//! when written `replace kind ...`; `remove: kind "label"` deletes a base
//! section; anything new is appended, unless it says where it goes with
//! `before: "label"` or `after: "label"` (next to the section of the same
//! kind with that label: a row inserted in the middle of a table).

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

use crate::diag::codes;
use crate::diag::Diag;
use crate::source::{SourceFile, SourceMap, Span};
use crate::syntax::parse::{normalize, MAX_FILE_SIZE};
use crate::syntax::{parse, ExprKind, Item, Property, Section};

/// Sections a variant does not take from its base.
pub const NOT_INHERITED: &str = "example";

/// Deepest chain of `extends:` accepted.
pub const MAX_EXTENDS: usize = 16;

/// A rule file after `extends:` is resolved: the merged items, and every
/// file involved for rendering diagnostics.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub sources: SourceMap,
    pub items: Vec<Item>,
    /// Warnings found while loading (a variant section that adds where it
    /// probably meant to change).
    pub warnings: Vec<Diag>,
}

mod bundled {
    include!(concat!(env!("OUT_DIR"), "/bundled.rs"));
}

/// Where a bundled rule file appears to live (shown in diagnostics).
pub const BUNDLED_DIR: &str = "<bundled>";

/// Where rule files are read from: the disk, or the files bundled into the
/// binary (their `extends:` resolve among the bundled files).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Files {
    Disk,
    Bundled,
}

/// How rule files may be loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LoadOptions {
    /// `extends:` may only name bundled games and `.rules` files inside the
    /// folder of the rule file given on the command line (after resolving
    /// `..` and symbolic links): for services that run rule files they do
    /// not trust (`--restrict-extends`).
    pub restrict_extends: bool,
}

/// Reads a rule file from disk: only a regular file (never a device, a
/// FIFO or a directory), and never more than the size limit plus one byte,
/// so that no path can make loading hang or fill the memory. The file is
/// opened without blocking (a FIFO with no writer would block `open`) and
/// checked to be a regular file before anything is read.
pub fn read_rule_file(path: &Path) -> std::io::Result<Vec<u8>> {
    read_opened(open_rule_file(path)?)
}

/// Opens a rule file for [`read_rule_file`]: a regular file only.
fn open_rule_file(path: &Path) -> std::io::Result<(std::fs::File, std::fs::Metadata)> {
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        open.custom_flags(libc::O_NONBLOCK);
    }
    let file = open.open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(std::io::Error::other("it is a directory"));
    }
    if !meta.is_file() {
        return Err(std::io::Error::other("it is not a regular file (a device, a FIFO or a socket)"));
    }
    Ok((file, meta))
}

/// Reads an opened rule file, at most the size limit plus one byte.
fn read_opened((file, meta): (std::fs::File, std::fs::Metadata)) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::with_capacity((meta.len() as usize).min(MAX_FILE_SIZE + 1));
    file.take(MAX_FILE_SIZE as u64 + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// A base that `--restrict-extends` refuses once opened: the file opened
/// is not the one inside the folder (a link swapped meanwhile).
#[derive(Debug)]
struct OutsideFolder;

impl std::fmt::Display for OutsideFolder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the file opened is not inside the folder of the rule file given")
    }
}

impl std::error::Error for OutsideFolder {}

/// [`read_rule_file`] for a base that must lie inside `root`: the file is
/// opened once, and what is read is that open file, accepted only when
/// its canonical path (taken after opening) lies inside `root` and names
/// the very file opened (same device and inode). A link swapped between
/// the check and the read can only make the read fail, never read a file
/// outside.
fn read_rule_file_within(path: &Path, root: &Path) -> std::io::Result<Vec<u8>> {
    let (file, meta) = open_rule_file(path)?;
    let canon = path.canonicalize()?;
    let same = std::fs::metadata(&canon).is_ok_and(|m| same_file(&m, &meta));
    if !canon.starts_with(root) || !same {
        return Err(std::io::Error::other(OutsideFolder));
    }
    read_opened((file, meta))
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok()
}

impl Files {
    /// Reads `path`; on disk, inside `root` when one is given.
    fn read(self, path: &Path, root: Option<&Path>) -> std::io::Result<Vec<u8>> {
        match self {
            Files::Disk => match root {
                Some(root) => read_rule_file_within(path, root),
                None => read_rule_file(path),
            },
            Files::Bundled => {
                let rel = normalize_path(path);
                let rel = rel.strip_prefix(BUNDLED_DIR).unwrap_or(&rel);
                let key = rel.to_string_lossy().replace('\\', "/");
                bundled::BUNDLED
                    .iter()
                    .find(|(name, _)| *name == key)
                    .map(|(_, text)| text.as_bytes().to_vec())
                    .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such bundled rule file"))
            }
        }
    }

    fn canonical(self, path: &Path) -> PathBuf {
        match self {
            Files::Disk => path.canonicalize().unwrap_or_else(|_| normalize_path(path)),
            Files::Bundled => normalize_path(path),
        }
    }
}

/// `a/b/../c` as `a/c`, without touching the disk.
fn normalize_path(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The names of the bundled games and variants (`get_straight`,
/// `get_straight/no-wrap`, ...).
pub fn bundled_names() -> Vec<&'static str> {
    bundled::BUNDLED.iter().map(|(name, _)| name.strip_suffix(".rules").unwrap_or(name)).collect()
}

/// The text of a bundled rule file, by name as [`bundled_names`] gives it
/// (`get_straight`, `get_straight/no-wrap`), with or without `.rules` and
/// the [`BUNDLED_DIR`] prefix a diagnostic shows.
pub fn bundled_text(name: &str) -> Option<&'static str> {
    let name = name.strip_prefix(BUNDLED_DIR).map_or(name, |n| n.trim_start_matches('/'));
    let file = if name.ends_with(".rules") { name.to_string() } else { format!("{name}.rules") };
    bundled::BUNDLED.iter().find(|(n, _)| *n == file).map(|(_, text)| *text)
}

/// Loads a bundled rule file by name (`get_straight`, `get_straight/no-wrap`).
pub fn load_bundled(name: &str) -> Option<Result<Loaded, LoadError>> {
    let file = format!("{name}.rules");
    bundled::BUNDLED.iter().find(|(n, _)| *n == file)?;
    let path = Path::new(BUNDLED_DIR).join(&file);
    let mut sources = SourceMap::new();
    let mut diags = Vec::new();
    let mut cx = Cx {
        opts: LoadOptions::default(),
        root: None,
        sources: &mut sources,
        diags: &mut diags,
        chain: Vec::new(),
        overlay: None,
    };
    let items = cx.load_file(Files::Bundled, &path, None, None);
    Some(match items {
        Some(items) if !diags.iter().any(Diag::is_error) => Ok(Loaded { sources, items, warnings: diags }),
        _ => Err(LoadError::new(sources, diags, items)),
    })
}

/// Loads the rule file `arg` names: a path, or, when no file can be read
/// there, the bundled game of that name (`get_straight`,
/// `get_straight/no-wrap.rules`).
pub fn load(arg: &Path) -> Result<Loaded, LoadError> {
    load_with(arg, &LoadOptions::default())
}

/// [`load`] with options.
pub fn load_with(arg: &Path, opts: &LoadOptions) -> Result<Loaded, LoadError> {
    // The file is read once: what is checked is what is loaded, even when
    // the file appears or changes meanwhile (an editor saving by rename).
    load_read_or_bundled(arg, read_rule_file(arg), opts)
}

/// [`load_with`] once the path was read (or not).
fn load_read_or_bundled(arg: &Path, read: std::io::Result<Vec<u8>>, opts: &LoadOptions) -> Result<Loaded, LoadError> {
    let name = arg.to_str().map(|n| n.strip_suffix(".rules").unwrap_or(n).trim_start_matches("./"));
    let no_file = read.as_ref().is_err_and(|e| names_no_file(arg, e));
    if no_file {
        if let Some(r) = name.and_then(load_bundled) {
            return r;
        }
    }
    let missing = no_file;
    let mut r = load_read(arg, read, opts);
    if let (Err(e), true) = (&mut r, missing) {
        let names = bundled_names();
        let asked = name.unwrap_or_default();
        let hint = match crate::diag::did_you_mean(asked, names.iter().copied()) {
            Some(s) => format!("did you mean the bundled game `{s}`?"),
            None => format!("bundled games: {}", names.join(", ")),
        };
        if let Some(d) = e.diags.first_mut() {
            d.help = Some(hint);
        }
    }
    r
}

/// Whether `arg`, which could not be read (`e`), names no rule file, so
/// that it may name a bundled game: nothing is there (not even a dangling
/// link), or a folder is and
/// `arg` does not end in `.rules` (a folder `get_straight` beside the user
/// does not hide the game). A file that is there but cannot be read, or a
/// folder `NAME.rules`, is an error, never silently another game.
fn names_no_file(arg: &Path, e: &std::io::Error) -> bool {
    let nothing = e.kind() == std::io::ErrorKind::NotFound && arg.symlink_metadata().is_err();
    nothing || (arg.extension().is_none_or(|x| x != "rules") && arg.is_dir())
}

/// Whether a bundled rule file is called `name` (without `.rules`).
fn is_bundled(name: &str) -> bool {
    let file = format!("{name}.rules");
    bundled::BUNDLED.iter().any(|(n, _)| *n == file)
}

/// A failed load: the diagnostics, with the files read so far.
#[derive(Debug)]
pub struct LoadError {
    pub sources: SourceMap,
    pub diags: Vec<Diag>,
    /// The items merged in spite of the errors, when every error is one of
    /// merging (a key or section twice, a `remove:` or `replace` of nothing,
    /// ...): each file was read and parsed, so `check` can go on and report
    /// the rules' own errors in the same run.
    pub merged: Option<Vec<Item>>,
}

impl LoadError {
    fn new(sources: SourceMap, diags: Vec<Diag>, items: Option<Vec<Item>>) -> LoadError {
        const MERGING: [crate::diag::codes::Code; 5] =
            [codes::DUPLICATE, codes::NOTHING_TO_REPLACE, codes::UNKNOWN_NAME, codes::CONFLICT, codes::TYPE];
        // An `extends:` that names no base leaves the variant alone: its
        // rules' errors would be noise.
        let of_extends = |d: &Diag| [&d.message, &d.label].iter().any(|t| t.contains("extends"));
        let only_merging = diags.iter().filter(|d| d.is_error()).all(|d| MERGING.contains(&d.code) && !of_extends(d));
        LoadError { merged: items.filter(|_| only_merging), sources, diags }
    }
}

/// Reads and merges the rule file at `path`.
pub fn load_path(path: &Path) -> Result<Loaded, LoadError> {
    load_read(path, read_rule_file(path), &LoadOptions::default())
}

/// Loads a rule file whose bytes were read as `read` (from standard input,
/// say; at most the size limit plus one byte), named `path` in diagnostics,
/// its `extends:` resolved from `path`'s folder.
pub fn load_bytes(path: &Path, read: std::io::Result<Vec<u8>>, opts: &LoadOptions) -> Result<Loaded, LoadError> {
    load_read(path, read, opts)
}

/// Loads the rule file at `path`, whose bytes were read as `read`.
fn load_read(path: &Path, read: std::io::Result<Vec<u8>>, opts: &LoadOptions) -> Result<Loaded, LoadError> {
    let mut sources = SourceMap::new();
    let mut diags = Vec::new();
    let root = opts.restrict_extends.then(|| Files::Disk.canonical(path).parent().map(Path::to_path_buf)).flatten();
    let mut cx = Cx { opts: *opts, root, sources: &mut sources, diags: &mut diags, chain: Vec::new(), overlay: None };
    let items = cx.load_file(Files::Disk, path, None, Some(read));
    match items {
        Some(items) if !diags.iter().any(Diag::is_error) => Ok(Loaded { sources, items, warnings: diags }),
        _ => Err(LoadError::new(sources, diags, items)),
    }
}

/// Parses and merges rule-file text that has no file of its own (`extends:`
/// is resolved relative to `dir`).
pub fn load_text(name: &str, text: &str, dir: &Path) -> Result<Loaded, LoadError> {
    let mut sources = SourceMap::new();
    let mut diags = Vec::new();
    let text = normalize(text.to_string());
    let id = sources.add(name, text.as_str());
    let mut cx = Cx {
        opts: LoadOptions::default(),
        root: None,
        sources: &mut sources,
        diags: &mut diags,
        chain: Vec::new(),
        overlay: None,
    };
    let items = match parse(id, &text) {
        Ok(items) => cx.extend(Files::Disk, items, dir),
        Err(d) => {
            cx.diags.push(d);
            None
        }
    };
    match items {
        Some(items) if !diags.iter().any(Diag::is_error) => Ok(Loaded { sources, items, warnings: diags }),
        _ => Err(LoadError::new(sources, diags, items)),
    }
}

/// What an editor has open: the text of a path, when a buffer stands for
/// it (the buffer, not the disk, is then the truth).
pub type Overlay<'a> = &'a dyn Fn(&Path) -> Option<String>;

/// An editor buffer standing for the rule file at `path` (which need not
/// exist): loaded as [`load_with`] loads that file, except that the text
/// is `text`, and a base for which `overlay` has a text is read from it.
pub fn load_buffer(path: &Path, text: &str, opts: &LoadOptions, overlay: Overlay) -> Result<Loaded, LoadError> {
    let mut sources = SourceMap::new();
    let mut diags = Vec::new();
    let text = normalize(text.to_string());
    let id = sources.add(path.display().to_string(), text.as_str());
    let root = opts.restrict_extends.then(|| Files::Disk.canonical(path).parent().map(Path::to_path_buf)).flatten();
    let chain = vec![Files::Disk.canonical(path)];
    let mut cx = Cx { opts: *opts, root, sources: &mut sources, diags: &mut diags, chain, overlay: Some(overlay) };
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let items = cx.load_root(id, &text, &dir);
    match items {
        Some(items) if !diags.iter().any(Diag::is_error) => Ok(Loaded { sources, items, warnings: diags }),
        _ => Err(LoadError::new(sources, diags, items)),
    }
}

/// One load in progress: its options, the files read, the diagnostics, and
/// the chain of files extending one another.
struct Cx<'a> {
    opts: LoadOptions,
    /// With `restrict_extends`: the folder bases must stay in.
    root: Option<PathBuf>,
    sources: &'a mut SourceMap,
    diags: &'a mut Vec<Diag>,
    chain: Vec<PathBuf>,
    /// Texts that stand for files on disk (an editor's open buffers).
    overlay: Option<Overlay<'a>>,
}

impl Cx<'_> {
    /// Parses the text of file `id` (normalized) and follows its
    /// `extends:` from `dir`.
    fn load_root(&mut self, id: u32, text: &str, dir: &Path) -> Option<Vec<Item>> {
        match parse(id, text) {
            Ok(items) => self.extend(Files::Disk, items, dir),
            Err(d) => {
                self.diags.push(d);
                None
            }
        }
    }

    /// Reads (unless `read` holds the bytes already), parses and merges the
    /// rule file at `path`; `from`: the `extends:` that names it.
    fn load_file(
        &mut self,
        files: Files,
        path: &Path,
        from: Option<Span>,
        read: Option<std::io::Result<Vec<u8>>>,
    ) -> Option<Vec<Item>> {
        let name = normalize_path(path).display().to_string();
        let bytes = match read.unwrap_or_else(|| files.read(path, self.root.as_deref())) {
            Ok(b) => b,
            Err(e) if e.get_ref().is_some_and(|e| e.is::<OutsideFolder>()) => {
                self.diags.push(outside_folder(from.unwrap_or_default()));
                return None;
            }
            Err(e) => {
                let msg = format!("cannot read rule file `{}`: {e}", path.display());
                self.diags.push(match from {
                    Some(span) => Diag::error(codes::UNREADABLE, span, msg).label("this file cannot be read"),
                    None => {
                        let id = self.sources.add(path.display().to_string(), "");
                        Diag::error(codes::UNREADABLE, Span::new(id, 0, 0), msg)
                    }
                });
                return None;
            }
        };
        // A base named by `extends:` that turns out not to be a rule file
        // (it is not UTF-8, or does not parse) is never shown: only where it
        // goes wrong. A rule file must not be able to print other files
        // through diagnostics.
        let guarded = from.is_some() && files == Files::Disk;
        let text = match String::from_utf8(bytes) {
            Ok(t) => normalize(t),
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
                let id = self.sources.add_file(SourceFile::new(name, lossy).guarded(guarded));
                let d = Diag::error(codes::NOT_UTF8, Span::new(id, at, at + 1), "rule file is not valid UTF-8")
                    .label("invalid byte here")
                    .help("save the file as UTF-8");
                self.diags.push(match from {
                    Some(via) if guarded => self.not_a_rule_file(d, via),
                    _ => d,
                });
                return None;
            }
        };
        let id = self.sources.len() as u32;
        let parsed = parse(id, &text);
        self.sources.add_file(SourceFile::new(name, text).guarded(guarded && parsed.is_err()));
        let items = match parsed {
            Ok(items) => items,
            Err(d) => {
                self.diags.push(match from {
                    Some(via) if guarded => self.not_a_rule_file(d, via),
                    _ => d,
                });
                return None;
            }
        };
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        self.chain.push(files.canonical(path));
        let r = self.extend(files, items, &dir);
        self.chain.pop();
        r
    }

    /// The diagnostic for a base named by `extends:` (at `via`) that is not
    /// a rule file: where it goes wrong, with none of its text (it could be
    /// any file the process can read, through a link).
    fn not_a_rule_file(&self, d: Diag, via: Span) -> Diag {
        let file = self.sources.file(d.span.file);
        let (line, column) = file.line_col(d.span.start as usize);
        Diag::error(
            d.code,
            via,
            format!("the base `{}` is not a rule file: it does not parse (line {line}, column {column})", file.name),
        )
        .label("this base")
        .help(format!("`arbiter check {}` shows the problem in that file", file.name))
    }

    /// Follows the `extends:` of parsed items (relative to `dir`) and merges
    /// them over their base.
    fn extend(&mut self, files: Files, items: Vec<Item>, dir: &Path) -> Option<Vec<Item>> {
        let (items, base) = base_of(self.opts, self.root.as_deref(), files, items, dir, self.diags, &self.chain)?;
        let Some((files, path, span)) = base else { return Some(items) };
        let open = self.overlay.filter(|_| files == Files::Disk).and_then(|o| o(&path));
        let mut base = self.load_file(files, &path, Some(span), open.map(|t| Ok(t.into_bytes())))?;
        // Worked examples belong to the file that writes them: a variant's
        // rules differ, so its base's examples are not its own.
        base.retain(|i| !matches!(i, Item::Section(s) if s.kind.name == NOT_INHERITED));
        merge(&mut base, items, self.diags);
        Some(base)
    }
}

/// The base a variant names: where to read it from, its path, and the
/// span of the `extends:` value.
type Base = (Files, PathBuf, Span);

/// Takes the `extends:` property out of `items`, checks it, and returns the
/// items with the base to load (none when the file extends nothing).
fn base_of(
    opts: LoadOptions,
    root: Option<&Path>,
    files: Files,
    mut items: Vec<Item>,
    dir: &Path,
    diags: &mut Vec<Diag>,
    chain: &[PathBuf],
) -> Option<(Vec<Item>, Option<Base>)> {
    let mut extends = items.iter().enumerate().filter_map(|(i, it)| match it {
        Item::Property(p) if p.key.name == "extends" => Some((i, p.clone())),
        _ => None,
    });
    let Some((at, prop)) = extends.next() else {
        check_removals(&items, diags);
        return Some((items, None));
    };
    if let Some((_, again)) = extends.next() {
        diags.push(
            Diag::error(codes::DUPLICATE, again.key.span, "a rule file extends at most one base")
                .label("second `extends`")
                .note(prop.key.span, "first `extends` here"),
        );
        return None;
    }
    items.remove(at);
    let written = match prop.values.as_slice() {
        [v] => match &v.kind {
            ExprKind::Str(s) => s.value.clone(),
            _ => {
                diags.push(
                    Diag::error(
                        codes::TYPE,
                        v.span,
                        format!("expected the path of the base rule file, found {}", v.describe()),
                    )
                    .label("expected a string")
                    .help("write `extends: \"../game.rules\"` (relative to this file)"),
                );
                return None;
            }
        },
        _ => {
            diags.push(
                Diag::error(codes::ARITY, prop.span, "`extends` takes one path")
                    .label("expected one string")
                    .help("write `extends: \"../game.rules\"` (relative to this file)"),
            );
            return None;
        }
    };
    let span = prop.values[0].span;
    let base_path = dir.join(&written);
    // `extends: "get_straight"` names a bundled game when no such file is
    // beside this one.
    let (files, base_path) = if files == Files::Disk && !base_path.is_file() && is_bundled(&written) {
        (Files::Bundled, Path::new(BUNDLED_DIR).join(format!("{written}.rules")))
    } else {
        (files, base_path)
    };
    if files == Files::Disk {
        // Only rule files: never `/etc/passwd`, `/proc/self/environ`, ...
        if base_path.extension().is_none_or(|e| e != "rules") {
            diags.push(
                Diag::error(
                    codes::EXTENDS_PATH,
                    span,
                    format!(
                        "`extends:` names a rule file (a path ending in `.rules`) or a bundled game, not `{}`",
                        crate::syntax::parse::visible(&written)
                    ),
                )
                .label("not a rule file")
                .help(format!(
                    "bundled games: {}",
                    bundled_names().into_iter().filter(|n| !n.contains('/')).collect::<Vec<_>>().join(", ")
                )),
            );
            return None;
        }
        if opts.restrict_extends {
            // A first look, for a clear error; the read checks again what
            // it opened (`read_rule_file_within`).
            let canon = base_path.canonicalize().unwrap_or_else(|_| normalize_path(&base_path));
            if Path::new(&written).is_absolute() || root.is_some_and(|r| !canon.starts_with(r)) {
                diags.push(outside_folder(span));
                return None;
            }
        }
    }
    let canon = files.canonical(&base_path);
    if chain.contains(&canon) {
        diags.push(
            Diag::error(codes::EXTENDS_CYCLE, span, "this rule file extends itself").label("leads back to this file"),
        );
        return None;
    }
    if chain.len() >= MAX_EXTENDS {
        diags.push(Diag::error(
            codes::EXTENDS_CYCLE,
            span,
            format!("more than {MAX_EXTENDS} files extend one another"),
        ));
        return None;
    }
    Some((items, Some((files, base_path, span))))
}

/// The error for a base outside the folder `--restrict-extends` allows.
fn outside_folder(span: Span) -> Diag {
    Diag::error(
        codes::EXTENDS_PATH,
        span,
        "with `--restrict-extends`, a base is a bundled game or a rule file inside the folder of the rule file given",
    )
    .label("outside that folder")
    .help("put the base beside the variant, or name a bundled game (`extends: \"get_straight\"`)")
}

fn same_section(a: &Section, b: &Section) -> bool {
    a.kind.name == b.kind.name
        && a.labels.len() == b.labels.len()
        && a.labels.iter().zip(&b.labels).all(|(x, y)| x.value == y.value)
}

/// Where a variant's section goes: `before: "label"` or `after: "label"`.
#[derive(Debug)]
struct Placement {
    after: bool,
    label: String,
    span: Span,
}

/// Takes the `before:`/`after:` property out of a variant's section.
fn take_placement(s: &mut Section, diags: &mut Vec<Diag>) -> Option<Placement> {
    let mut found: Option<Placement> = None;
    let mut keep = Vec::with_capacity(s.items.len());
    for item in std::mem::take(&mut s.items) {
        let Item::Property(p) = &item else {
            keep.push(item);
            continue;
        };
        let after = match p.key.name.as_str() {
            "before" => false,
            "after" => true,
            _ => {
                keep.push(item);
                continue;
            }
        };
        let label = match p.values.as_slice() {
            [v] => match &v.kind {
                ExprKind::Str(l) => Some(l.value.clone()),
                _ => None,
            },
            _ => None,
        };
        let Some(label) = label else {
            diags.push(
                Diag::error(codes::TYPE, p.values_span(), format!("`{}` names one section label", p.key.name))
                    .label("expected a label in quotes")
                    .help(format!("write `{}: \"label\"`, the label of a section of the same kind", p.key.name)),
            );
            continue;
        };
        if let Some(first) = &found {
            diags.push(
                Diag::error(codes::CONFLICT, p.span, "a section is placed once")
                    .label("placed again")
                    .note(first.span, "placed here first"),
            );
            continue;
        }
        found = Some(Placement { after, label, span: p.span });
    }
    s.items = keep;
    found
}

/// Moves `base[from]` (a section) next to the section of its kind labelled
/// as `place` says.
fn place(base: &mut Vec<Item>, from: usize, place: &Placement, diags: &mut Vec<Diag>) {
    let Item::Section(moved) = &base[from] else { return };
    let kind = moved.kind.name.clone();
    let head = moved.head;
    let anchor = base.iter().enumerate().position(|(i, b)| {
        i != from
            && matches!(b, Item::Section(t) if t.kind.name == kind && t.name().is_some_and(|l| l.value == place.label))
    });
    let Some(anchor) = anchor else {
        let labels: Vec<String> = base
            .iter()
            .filter_map(|b| match b {
                Item::Section(t) if t.kind.name == kind => t.name().map(|l| l.value.clone()),
                _ => None,
            })
            .collect();
        diags.push(
            Diag::error(
                codes::UNKNOWN_NAME,
                place.span,
                format!("there is no `{kind} \"{}\"` to place this section next to", place.label),
            )
            .label("not in the base rule file")
            .note(head, "the section to place")
            .suggest(crate::diag::did_you_mean(&place.label, labels.iter().map(String::as_str))),
        );
        return;
    };
    let item = base.remove(from);
    let anchor = if anchor > from { anchor - 1 } else { anchor };
    base.insert(if place.after { anchor + 1 } else { anchor }, item);
}

/// Merges `over` (a variant's items) into `base`. A key or a section
/// written twice at one level of the variant is the `duplicate` error a
/// file without `extends:` gets (the first one is kept), never a silent
/// "last one wins"; giving a key or a section of the base once overrides
/// the base's.
pub fn merge(base: &mut Vec<Item>, over: Vec<Item>, diags: &mut Vec<Diag>) {
    merge_in(base, over, "the rule file", diags);
}

/// [`merge`] at one level: `what` names it in messages ("the rule file",
/// "the `play` section").
fn merge_in(base: &mut Vec<Item>, over: Vec<Item>, what: &str, diags: &mut Vec<Diag>) {
    // The base's own sections (not the variant's), where a near miss of a
    // section the variant adds is looked for, and the kinds and labels of
    // every section in `base`: a section the variant adds is found new
    // without a look at each of the base's items (a variant of thousands
    // of sections took seconds, quadratic and cubic in their number).
    let mut merging = Merging {
        own: BaseSections::of(base, &Default::default()),
        present: base.iter().filter_map(item_key).collect(),
        added: Default::default(),
    };
    for item in without_repeats(over, what, diags) {
        match item {
            Item::Property(p) if p.key.name == "remove" => {
                remove(base, &p, diags);
                // A section removed is no near miss of one added after.
                merging.own = BaseSections::of(base, &merging.added);
            }
            Item::Property(p) => override_property(base, p),
            Item::Section(s) => merge_section(base, s, &mut merging, diags),
        }
    }
}

/// A section's kind and labels: what makes two sections the same one.
type SectionKey = (String, Vec<String>);

fn section_key(s: &Section) -> SectionKey {
    (s.kind.name.clone(), s.labels.iter().map(|l| l.value.clone()).collect())
}

/// The key of an item that is a section.
fn item_key(item: &Item) -> Option<SectionKey> {
    match item {
        Item::Section(s) => Some(section_key(s)),
        Item::Property(_) => None,
    }
}

/// What [`merge_in`] keeps of the base while it merges a variant's items.
struct Merging {
    own: BaseSections,
    /// The keys of the sections in the base, those added included (a key
    /// whose section was removed may stay: only a look finds it gone).
    present: HashSet<SectionKey>,
    /// The heads of the sections the variant added.
    added: HashSet<Span>,
}

/// The base's own labelled sections (not those in `added`), by kind and
/// number of labels: their first label, head and head text (for
/// [`near_miss`]).
struct BaseSections(HashMap<(String, usize), Vec<OwnSection>>);

/// A base section's first label, head and head text.
type OwnSection = (String, Span, String);

impl BaseSections {
    fn of(base: &[Item], added: &HashSet<Span>) -> BaseSections {
        let mut by_kind: HashMap<(String, usize), Vec<OwnSection>> = HashMap::new();
        for item in base {
            if let Item::Section(t) = item {
                if let Some(first) = t.labels.first().filter(|_| !added.contains(&t.head)) {
                    let entry = by_kind.entry((t.kind.name.clone(), t.labels.len())).or_default();
                    entry.push((first.value.clone(), t.head, head_text(t)));
                }
            }
        }
        BaseSections(by_kind)
    }
}

/// The variant's items at one level without the repeated ones, each repeat
/// reported as a file without `extends:` reports it (`check::Block`):
/// `remove:` is the one key that may be given many times.
fn without_repeats(over: Vec<Item>, what: &str, diags: &mut Vec<Diag>) -> Vec<Item> {
    let mut kept: Vec<Item> = Vec::with_capacity(over.len());
    // Where the first of each property and section is in `kept`.
    let mut first_of: HashMap<(bool, SectionKey), usize> = Default::default();
    for item in over {
        let key = match &item {
            Item::Property(p) if p.key.name == "remove" => None,
            Item::Property(p) => Some((false, (p.key.name.clone(), Vec::new()))),
            Item::Section(s) => Some((true, section_key(s))),
        };
        let first = key.as_ref().and_then(|k| first_of.get(k)).map(|&i| &kept[i]);
        match (first, &item) {
            (Some(Item::Property(first)), Item::Property(again)) => diags.push(
                Diag::error(codes::DUPLICATE, again.key.span, format!("`{}` is given twice in {what}", again.key.name))
                    .label("given again here")
                    .note(first.key.span, "first given here"),
            ),
            (Some(Item::Section(first)), Item::Section(again)) => diags.push(section_twice(first, again, what)),
            _ => {
                if let Some(k) = key {
                    first_of.insert(k, kept.len());
                }
                kept.push(item);
            }
        }
    }
    kept
}

/// The `duplicate` error for a section written twice at one level.
fn section_twice(first: &Section, again: &Section, what: &str) -> Diag {
    match again.name() {
        Some(name) => {
            Diag::error(codes::DUPLICATE, name.span, format!("{} `{}` is defined twice", again.kind.name, name.value))
                .label("defined again here")
                .note(first.head, "first defined here")
        }
        None => Diag::error(codes::DUPLICATE, again.head, format!("`{}` appears twice in {what}", again.kind.name))
            .label("second one")
            .note(first.head, "first one"),
    }
}

/// A variant's property replaces the base's property of the same key.
fn override_property(base: &mut Vec<Item>, p: Property) {
    match base.iter_mut().find(|b| matches!(b, Item::Property(q) if q.key.name == p.key.name)) {
        Some(slot) => *slot = Item::Property(p),
        None => base.push(Item::Property(p)),
    }
}

/// A variant's section merges into (or, written `replace`, replaces) the
/// base's section of the same kind and labels, or is added; then it moves
/// where its `before:`/`after:` says.
fn merge_section(base: &mut Vec<Item>, mut s: Section, merging: &mut Merging, diags: &mut Vec<Diag>) {
    let placement = take_placement(&mut s, diags);
    let key = section_key(&s);
    let found = if merging.present.contains(&key) {
        base.iter().position(|b| matches!(b, Item::Section(t) if same_section(t, &s)))
    } else {
        None
    };
    let at = match found {
        Some(i) => {
            match &mut base[i] {
                Item::Section(t) if !s.replace => {
                    let what = what_section(t);
                    merge_in(&mut t.items, s.items, &what, diags);
                }
                slot => {
                    *slot = Item::Section(Section { replace: false, ..s });
                    // The replacing section stands for the base's.
                    merging.own = BaseSections::of(base, &merging.added);
                }
            }
            i
        }
        None => {
            merging.present.insert(key);
            merging.added.insert(s.head);
            add_section(base, s, placement.is_none(), &merging.own, diags)
        }
    };
    if let Some(p) = placement {
        place(base, at, &p, diags);
    }
}

/// Appends a section the base does not have, and returns where it went.
/// `replace` has nothing to replace there; a label close to one of the
/// base's (and no placement, which says the section is meant to be new)
/// is probably a misspelling: a warning.
fn add_section(base: &mut Vec<Item>, s: Section, unplaced: bool, own: &BaseSections, diags: &mut Vec<Diag>) -> usize {
    if s.replace {
        diags.push(
            Diag::error(
                codes::NOTHING_TO_REPLACE,
                s.head,
                format!("there is no `{}` section to replace", head_text(&s)),
            )
            .label("not in the base rule file")
            .help("drop `replace` to add the section"),
        );
    } else if let Some((head, text)) = unplaced.then(|| near_miss(own, &s)).flatten() {
        diags.push(
            Diag::warning(
                codes::NEW_SECTION,
                s.head,
                format!("`{}` is not in the base rule file: it is added as a new section", head_text(&s)),
            )
            .label("a new section")
            .note(head, "the base has this one")
            .help(format!("to change the base's section, write `{text}`")),
        );
    }
    base.push(Item::Section(Section { replace: false, ..s }));
    base.len() - 1
}

/// A section as messages name it (as `check::Block` does).
fn what_section(s: &Section) -> String {
    match s.name() {
        Some(l) => format!("`{} \"{}\"`", s.kind.name, l.value),
        None => format!("the `{}` section", s.kind.name),
    }
}

/// A base section of the same kind whose label is close to the new
/// section's (a misspelt label in a variant would add a section silently):
/// its head and head text.
fn near_miss(own: &BaseSections, s: &Section) -> Option<(Span, String)> {
    if s.kind.name == NOT_INHERITED {
        return None;
    }
    let label = &s.labels.first()?.value;
    let same_kind = own.0.get(&(s.kind.name.clone(), s.labels.len()))?;
    let close = crate::diag::did_you_mean(label, same_kind.iter().map(|(l, _, _)| l.as_str()))?;
    same_kind.iter().find(|(l, _, _)| *l == close).map(|(_, head, text)| (*head, text.clone()))
}

fn head_text(s: &Section) -> String {
    let mut t = s.kind.name.clone();
    for l in &s.labels {
        t.push_str(&format!(" \"{}\"", l.value));
    }
    t
}

/// `remove: kind "label" ...` deletes the matching base section.
fn remove(base: &mut Vec<Item>, p: &Property, diags: &mut Vec<Diag>) {
    let mut words = p.values.iter();
    let Some(kind) = words.next().and_then(|v| v.as_word()) else {
        diags.push(
            Diag::error(codes::TYPE, p.values_span(), "`remove` names a section: `remove: kind \"label\"`")
                .label("expected a section kind"),
        );
        return;
    };
    let mut labels = Vec::new();
    for w in words {
        match &w.kind {
            ExprKind::Str(s) => labels.push(s.value.clone()),
            _ => {
                diags.push(Diag::error(
                    codes::TYPE,
                    w.span,
                    format!("expected a section label (a string), found {}", w.describe()),
                ));
                return;
            }
        }
    }
    let before = base.len();
    base.retain(|b| {
        !matches!(b, Item::Section(s) if s.kind.name == kind
            && s.labels.len() == labels.len()
            && s.labels.iter().zip(&labels).all(|(x, y)| &x.value == y))
    });
    if base.len() == before {
        let candidates: Vec<String> = base
            .iter()
            .filter_map(|b| match b {
                Item::Section(s) if s.kind.name == kind => s.labels.first().map(|l| l.value.clone()),
                _ => None,
            })
            .collect();
        let d = Diag::error(codes::UNKNOWN_NAME, p.values_span(), "no such section in the base rule file to remove")
            .label("not found")
            .suggest(crate::diag::did_you_mean(
                labels.first().map_or("", String::as_str),
                candidates.iter().map(String::as_str),
            ));
        diags.push(d);
    }
}

/// `remove:` outside a variant has nothing to remove.
fn check_removals(items: &[Item], diags: &mut Vec<Diag>) {
    for it in items {
        if let Item::Property(p) = it {
            if p.key.name == "remove" {
                diags.push(
                    Diag::error(
                        codes::NOTHING_TO_REPLACE,
                        p.key.span,
                        "`remove` is only meaningful in a file that `extends` another",
                    )
                    .label("nothing to remove from"),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(text: &str) -> Vec<Item> {
        parse(0, text).unwrap()
    }

    /// A variant of thousands of sections merges as one of a few: each
    /// added once, a repeat reported, a near miss of the base's labels
    /// warned of, and a label removed from the base first and added again
    /// no near miss of itself. (Each section added looked at every item of
    /// the base, and at every section added before: 8,000 took 33 s.)
    #[test]
    fn a_variant_of_thousands_of_sections_merges_each_once() {
        let n = 20_000;
        let mut base = items("row \"Straight\" { pays: 4 } row \"Flush\" { pays: 6 } row \"Pair\" { pays: 1 }");
        let mut text = String::from("remove: row \"Pair\"\nrow \"Pair\" { pays: 2 }\n");
        for i in 0..n {
            text.push_str(&format!("row \"r{i}\" {{ pays: {i} }}\n"));
        }
        text.push_str("row \"r7\" { pays: 0 }\nrow \"Flush\" { pays: 7 }\nrow \"Straigth\" { pays: 5 }\n");
        let mut diags = Vec::new();
        merge(&mut base, items(&text), &mut diags);
        let messages: Vec<&str> = diags.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "row `r7` is defined twice",
                "`row \"Straigth\"` is not in the base rule file: it is added as a new section"
            ]
        );
        assert_eq!(base.len(), 3 + n + 1);
        let pays = |label: &str| {
            base.iter().find_map(|i| match i {
                Item::Section(s) if s.labels[0].value == label => Some(s.items.len()),
                _ => None,
            })
        };
        assert_eq!(
            (pays("Flush"), pays("Pair"), pays("r19999"), pays("Straigth")),
            (Some(1), Some(1), Some(1), Some(1))
        );
    }

    #[test]
    fn variants_merge_sections_and_replace_properties() {
        let mut base = items("deck { ranks: A 2 wrap: yes } row \"a\" { pays: 1 } row \"b\" { pays: 2 }");
        let over = items("deck { wrap: no } row \"b\" { pays: 5 } row \"c\" { pays: 0 } remove: row \"a\"");
        let mut diags = Vec::new();
        merge(&mut base, over, &mut diags);
        assert!(diags.is_empty());
        let kinds: Vec<_> = base
            .iter()
            .map(|i| match i {
                Item::Section(s) => format!("{} {}", s.kind.name, s.labels.first().map_or("", |l| &l.value)),
                Item::Property(p) => p.key.name.clone(),
            })
            .collect();
        assert_eq!(kinds, ["deck ", "row b", "row c"]);
        let Item::Section(deck) = &base[0] else { panic!() };
        assert_eq!(deck.items.len(), 2, "ranks kept, wrap replaced");
    }

    fn labels(items: &[Item]) -> Vec<String> {
        items
            .iter()
            .filter_map(|i| match i {
                Item::Section(s) => s.name().map(|l| l.value.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_variant_places_a_new_section_before_or_after_a_named_one() {
        let mut base = items("row \"a\" { pays: 3 } row \"b\" { pays: 2 } row \"c\" { pays: 1 }");
        let over =
            items("row \"x\" { pays: 9 after: \"a\" } row \"y\" { before: \"a\" pays: 10 } row \"c\" { after: \"y\" }");
        let mut diags = Vec::new();
        merge(&mut base, over, &mut diags);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(labels(&base), ["y", "c", "a", "x", "b"]);
        // The placement is not left in the section for the engine to read.
        let Item::Section(x) = &base[3] else { panic!() };
        assert_eq!(x.items.len(), 1);
    }

    #[test]
    fn placing_next_to_an_unknown_section_is_an_error_with_a_suggestion() {
        let mut base = items("row \"Straight\" { pays: 3 }");
        let over = items("row \"x\" { pays: 9 after: \"Straight \" }");
        let mut diags = Vec::new();
        merge(&mut base, over, &mut diags);
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].code, codes::UNKNOWN_NAME);
        assert_eq!(labels(&base), ["Straight", "x"]);
    }

    /// The codes and messages of merging `over` into `base`.
    fn merged(base: &str, over: &str) -> (Vec<Item>, Vec<(codes::Code, String)>) {
        let mut base = items(base);
        let mut diags = Vec::new();
        merge(&mut base, items(over), &mut diags);
        (base, diags.into_iter().map(|d| (d.code, d.message)).collect())
    }

    #[test]
    fn a_key_or_a_section_written_twice_in_a_variant_is_a_duplicate() {
        let base = "play { hand: 5 } row \"a\" { pays: 1 } deck { ranks: A }";
        let (_, d) = merged(base, "play { hand: 5 hand: 6 }");
        assert_eq!(d, [(codes::DUPLICATE, "`hand` is given twice in the `play` section".to_string())]);
        let (_, d) = merged(base, "row \"a\" { pays: 2 } row \"a\" { pays: 3 }");
        assert_eq!(d, [(codes::DUPLICATE, "row `a` is defined twice".to_string())]);
        let (_, d) = merged(base, "row \"a\" { pays: 50 pays: 60 }");
        assert_eq!(d, [(codes::DUPLICATE, "`pays` is given twice in `row \"a\"`".to_string())]);
        let (_, d) = merged(base, "deck { ranks: B } replace deck { ranks: C }");
        assert_eq!(d, [(codes::DUPLICATE, "`deck` appears twice in the rule file".to_string())]);
        // New sections too: the second would merge into the first silently.
        let (_, d) = merged(base, "row \"new\" { pays: 2 } row \"new\" { pays: 3 }");
        assert_eq!(d, [(codes::DUPLICATE, "row `new` is defined twice".to_string())]);
        // The first one is kept, as in a file without `extends:`.
        let (merged_items, _) = merged(base, "play { hand: 4 hand: 6 }");
        let Item::Section(play) = &merged_items[0] else { panic!() };
        let Item::Property(hand) = &play.items[0] else { panic!() };
        assert!(matches!(hand.values[0].kind, ExprKind::Int(4)), "{hand:?}");
        assert_eq!(play.items.len(), 1);
    }

    #[test]
    fn overriding_the_base_once_and_removing_many_stay_legal() {
        let base = "play { hand: 5 } row \"a\" { pays: 1 } row \"b\" { pays: 2 } game: \"x\"";
        let (_, d) = merged(base, "play { hand: 6 } row \"a\" { pays: 3 } game: \"y\"");
        assert!(d.is_empty(), "{d:?}");
        let (merged_items, d) = merged(base, "remove: row \"a\" remove: row \"b\"");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(labels(&merged_items), Vec::<String>::new());
    }

    /// EXT-9: what `--restrict-extends` reads is checked on the file
    /// opened, so a link swapped after the first look cannot lead outside.
    #[cfg(unix)]
    #[test]
    fn a_restricted_read_refuses_what_it_opened_outside_the_folder() {
        let dir = std::env::temp_dir().join(format!("arbiter-load-within-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("in")).unwrap();
        std::fs::write(dir.join("secret.rules"), "secret: 1\n").unwrap();
        std::fs::write(dir.join("in/ok.rules"), "ok: 1\n").unwrap();
        std::os::unix::fs::symlink("../secret.rules", dir.join("in/out.rules")).unwrap();
        std::os::unix::fs::symlink("ok.rules", dir.join("in/fine.rules")).unwrap();
        let root = dir.join("in").canonicalize().unwrap();
        let e = read_rule_file_within(&dir.join("in/out.rules"), &root).unwrap_err();
        assert!(e.get_ref().is_some_and(|e| e.is::<OutsideFolder>()), "{e}");
        assert_eq!(read_rule_file_within(&dir.join("in/fine.rules"), &root).unwrap(), b"ok: 1\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn replace_drops_the_base_section() {
        let mut base = items("deck { ranks: A 2 wrap: yes }");
        let over = items("replace deck { ranks: A }");
        let mut diags = Vec::new();
        merge(&mut base, over, &mut diags);
        let Item::Section(deck) = &base[0] else { panic!() };
        assert_eq!(deck.items.len(), 1);
    }
}
