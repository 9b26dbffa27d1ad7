//! The referee engines of the property tests (`prop_snooker_referee`,
//! `referee_state`), lowered from rule files once per test program: a
//! property runs its body for every generated case, and lowering a file
//! explores every table state its frames can reach (`frame-stuck`), which
//! costs far more than one case's strokes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use arbiter::check::{Block, Cx};
use arbiter::engines::referee::Referee;
use arbiter::load::load_path;
use arbiter::source::Span;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The referee `make` lowers, kept under `key` for the rest of the test
/// program: made once, while no other thread makes one.
fn kept(key: String, make: impl FnOnce() -> Referee) -> &'static Referee {
    static LOWERED: OnceLock<Mutex<HashMap<String, &'static Referee>>> = OnceLock::new();
    let mut lowered = LOWERED.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    lowered.entry(key).or_insert_with(|| Box::leak(Box::new(make())))
}

/// The referee lowered from the file at `path` (lowered once: the file
/// must not change during the test program).
pub fn referee_at(path: &Path) -> &'static Referee {
    kept(format!("file {}", path.display()), || lower(path))
}

fn lower(path: &Path) -> Referee {
    let loaded = load_path(path).unwrap();
    let top = Block::new(&loaded.items, "the rule file", Span::new(0, 0, 0));
    let mut cx = Cx::new();
    let _ = top.prop(&mut cx, "engine");
    let r = arbiter::engines::referee::lower::lower(&top, &mut cx);
    r.unwrap_or_else(|| panic!("{}: {:?}", path.display(), cx.diags.iter().map(|d| &d.message).collect::<Vec<_>>()))
}

/// A bundled rule file (`file`: its path under `rules/`).
pub fn referee(file: &str) -> &'static Referee {
    referee_at(&root().join("rules").join(file))
}

/// An unlisted variant: a rule file extending the base game, `body` after
/// its `extends` line, written as `NAME-PID.rules` under the system's
/// temporary directory.
pub fn variant(name: &str, body: &str) -> &'static Referee {
    kept(format!("variant {name}\n{body}"), || {
        let dir = std::env::temp_dir().join("arbiter-referee-variants");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}-{}.rules", std::process::id()));
        let base = root().join("rules/snooker_referee.rules");
        std::fs::write(&path, format!("extends: \"{}\"\n{body}\n", base.display())).unwrap();
        lower(&path)
    })
}
