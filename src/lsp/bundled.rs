//! Read-only copies of the bundled rule files, so that an editor can open
//! a bundled base (go to definition on `extends: "video_poker"`, a name
//! defined there, a problem located there).
//!
//! The copies are written once, all together (a bundled variant's
//! `extends: "../game.rules"` then finds its base beside it), into a
//! folder of the user's own: `$XDG_CACHE_HOME/arbiter/bundled-VERSION`
//! (or `~/.cache/...`, else the system's temporary folder with the user's
//! id in its name). The folder must be a real folder (not a link) owned by
//! the user and writable by no one else; each file is written under a new
//! name (created exclusively), made read-only, then renamed into place.
//! When any of this fails, there are no copies, and the server says so by
//! answering nothing.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::load::{bundled_names, load_bundled};

/// The folder of the copies, once they are written.
fn folder() -> Option<&'static Path> {
    static FOLDER: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOLDER.get_or_init(|| write_all().ok()).as_deref()
}

/// The read-only copy of the bundled file `name` (`get_straight.rules`,
/// `get_straight/no-wrap.rules`).
pub(super) fn copy(name: &str) -> Option<PathBuf> {
    let name = name.trim_start_matches('/');
    let path = folder()?.join(name);
    path.is_file().then_some(path)
}

/// Whether `path` is one of the copies (never edited through rename).
pub(super) fn is_copy(path: &Path) -> bool {
    folder().is_some_and(|f| path.starts_with(f))
}

fn cache_root() -> PathBuf {
    let home = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .filter(|p| p.is_absolute());
    match home {
        Some(h) => h.join("arbiter"),
        None => std::env::temp_dir().join(format!("arbiter-{}", user_id())),
    }
}

#[cfg(unix)]
fn user_id() -> u32 {
    // SAFETY: `geteuid` reads the process's effective user id; it cannot fail.
    unsafe { libc::geteuid() }
}

#[cfg(not(unix))]
fn user_id() -> u32 {
    0
}

fn write_all() -> std::io::Result<PathBuf> {
    let dir = cache_root().join(format!("bundled-{}", env!("CARGO_PKG_VERSION")));
    private_dir(&dir)?;
    for name in bundled_names() {
        let Some(Ok(loaded)) = load_bundled(name) else { continue };
        let rel = format!("{name}.rules");
        if let Some(parent) = Path::new(&rel).parent().filter(|p| !p.as_os_str().is_empty()) {
            private_dir(&dir.join(parent))?;
        }
        write_read_only(&dir.join(&rel), &loaded.sources.file(0).text)?;
    }
    Ok(dir)
}

/// Creates `dir` (and its parents) for this user only, and checks it.
fn private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)?;
    let meta = std::fs::symlink_metadata(dir)?;
    if !meta.is_dir() {
        return Err(std::io::Error::other("not a folder"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.uid() != user_id() || meta.mode() & 0o022 != 0 {
            return Err(std::io::Error::other("a folder another user can write to"));
        }
    }
    Ok(())
}

/// Writes `text` at `path`, read-only, unless the same text is there.
fn write_read_only(path: &Path, text: &str) -> std::io::Result<()> {
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if meta.is_file() && std::fs::read(path).is_ok_and(|b| b == text.as_bytes()) {
            return Ok(());
        }
    }
    use std::io::Write;
    let tmp = path.with_extension(format!("{}.{}.tmp", std::process::id(), unique()));
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    f.write_all(text.as_bytes())?;
    let mut perms = f.metadata()?.permissions();
    perms.set_readonly(true);
    f.set_permissions(perms)?;
    drop(f);
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    t ^ (N.fetch_add(1, Ordering::Relaxed) << 48)
}
