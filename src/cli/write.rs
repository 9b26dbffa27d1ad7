//! Writing files so that nobody else can redirect the write: the one path
//! every command that writes a file takes (`fmt --write`, `new`).
//!
//! - The bytes go first to a temporary file created exclusively (`O_EXCL`,
//!   a random name, mode 0600) in the folder of the file written: a link
//!   planted at a guessable name is never followed, and a full disk or a
//!   crash never leaves a cut file.
//! - [`replace`] resolves symbolic links first, so the file a link points
//!   at is written and the link is kept; the temporary file is renamed over
//!   that target, with the target's permissions.
//! - [`create`] never replaces anything, not even a dangling link: the
//!   temporary file gets the new name by an exclusive rename (or a hard
//!   link), which fails when the name exists.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The folder a file is written in (`.` for a bare name).
fn folder(path: &Path) -> &Path {
    path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// A synced temporary file in `dir` holding `bytes`, named after `path`
/// (`.NAME.XXXXXX.tmp`) so that a leftover is recognisable; created with
/// `mode` less the umask (0600 when none is given).
fn temporary(dir: &Path, path: &Path, bytes: &[u8], mode: Option<u32>) -> io::Result<tempfile::NamedTempFile> {
    let name = path.file_name().map_or_else(|| "rules".into(), |n| n.to_string_lossy().into_owned());
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    if let Some(mode) = mode {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    let _ = mode;
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    Ok(tmp)
}

/// The file `path` names once symbolic links are followed (itself when it
/// is not a link).
fn target(path: &Path) -> io::Result<PathBuf> {
    if path.symlink_metadata()?.file_type().is_symlink() {
        std::fs::canonicalize(path)
    } else {
        Ok(path.to_path_buf())
    }
}

/// Replaces the contents of the existing file at `path` with `bytes` in one
/// step (a rename). Through a symbolic link, the link's target is replaced
/// and the link stays a link. The file keeps its permissions. (A file with
/// several hard links is replaced by a new file under this name: the other
/// names keep the old text, as with most editors' safe saves.)
pub fn replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let target = target(path)?;
    let permissions = std::fs::metadata(&target)?.permissions();
    let tmp = temporary(folder(&target), &target, bytes, None)?;
    tmp.as_file().set_permissions(permissions)?;
    tmp.persist(&target).map_err(|e| e.error)?;
    Ok(())
}

/// Creates the file `path` holding `bytes`, in one step, and never over
/// anything already there (a file, a directory, a link): that is an
/// `AlreadyExists` error. The new file gets the usual permissions (0666
/// less the umask).
pub fn create(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = temporary(folder(path), path, bytes, Some(0o666))?;
    match tmp.persist_noclobber(path) {
        Ok(_) => Ok(()),
        Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => Err(e.error),
        Err(e) => {
            // A file system with neither an exclusive rename nor links:
            // create the file exclusively (`O_EXCL` follows no link).
            drop(e.file);
            let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(path)?;
            f.write_all(bytes)?;
            f.sync_all()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    #[test]
    fn replace_writes_the_file_and_leaves_no_temporary_file() {
        let d = dir();
        let f = d.path().join("a.rules");
        std::fs::write(&f, "old").unwrap();
        replace(&f, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "new");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[test]
    fn create_never_replaces_anything() {
        let d = dir();
        let f = d.path().join("a.rules");
        create(&f, b"one").unwrap();
        assert_eq!(create(&f, b"two").unwrap_err().kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "one");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn links_are_kept_and_never_followed_into_other_files() {
        use std::os::unix::fs::symlink;
        let d = dir();
        let victim = d.path().join("victim.txt");
        std::fs::write(&victim, "victim").unwrap();
        // A dangling link at the new name: `create` refuses it.
        let dangling = d.path().join("new.rules");
        symlink(d.path().join("nowhere.txt"), &dangling).unwrap();
        assert_eq!(create(&dangling, b"x").unwrap_err().kind(), io::ErrorKind::AlreadyExists);
        assert!(!d.path().join("nowhere.txt").exists());
        // A link to a rule file: the target is written, the link stays.
        let sub = d.path().join("shared");
        std::fs::create_dir(&sub).unwrap();
        std::fs::write(sub.join("t.rules"), "old").unwrap();
        let link = d.path().join("link.rules");
        symlink("shared/t.rules", &link).unwrap();
        replace(&link, b"new").unwrap();
        assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(sub.join("t.rules")).unwrap(), "new");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "victim");
    }
}
