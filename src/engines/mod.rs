//! The engines: one folder each, holding the engine's runtime type, its
//! [`crate::game::Game`] implementation, and its lowering
//! (`lower.rs`, the only file of an engine that sees the syntax tree).
//! [`ENGINES`] is the registry `engine:` chooses from; [`compile`] checks
//! and lowers a loaded rule file with the engine it names.

pub mod cards;
pub mod connection;
pub mod covering;
pub mod exchange;
pub mod lines;
pub mod referee;
pub mod schema;
pub mod tower;

use crate::check::{Block, Cx};
use crate::diag::Diag;
use crate::game::Game;
use crate::load::Loaded;
use crate::source::Span;

/// An engine a rule file can name with `engine:`.
pub struct Engine {
    pub name: &'static str,
    /// What the engine does, in one line (`arbiter list`, docs).
    pub summary: &'static str,
    /// Reads the engine's sections (reporting every problem to `cx`) and
    /// builds the game, or `None` when the file has errors.
    pub lower: fn(&Block, &mut Cx) -> Option<Box<dyn Game>>,
    /// The sections and keys the lowering reads, with their docs
    /// (`<engine>/schema.rs`; hover, completion, docs/reference.md).
    pub schema: &'static schema::Schema,
}

/// Every engine, by name.
pub const ENGINES: &[Engine] = &[
    connection::lower::ENGINE,
    covering::lower::ENGINE,
    exchange::lower::ENGINE,
    referee::lower::ENGINE,
    tower::lower::ENGINE,
];

/// The engine called `name`.
pub fn engine(name: &str) -> Option<&'static Engine> {
    ENGINES.iter().find(|e| e.name == name)
}

/// A checked, lowered rule file.
pub struct Compiled {
    /// The file's `game:` title, if any.
    pub title: Option<String>,
    pub engine: &'static Engine,
    pub game: Box<dyn Game>,
    /// The worked examples of the file (`arbiter test`).
    pub examples: Vec<crate::example::Example>,
}

/// The codes of the warnings the file's `allow:` silences (errors are
/// never silenced): each must be a warning's code (`codes::WARNINGS`).
fn allowed_codes(top: &Block, cx: &mut Cx) -> Vec<crate::diag::codes::Code> {
    use crate::diag::codes::WARNINGS;
    let Some(p) = top.prop(cx, "allow") else { return Vec::new() };
    let mut out = Vec::new();
    for e in &p.values {
        let Some(name) = cx.name(e, "a warning's code") else { continue };
        let name = name.strip_prefix("arbiter::").unwrap_or(&name).to_string();
        match WARNINGS.iter().find(|c| c.as_str() == name) {
            Some(code) => out.push(*code),
            None => cx.unknown(e.span, "a warning's code", &name, WARNINGS.iter().map(|c| c.as_str())),
        }
    }
    out
}

/// Checks and lowers a loaded rule file. Returns the game when there is no
/// error, and every diagnostic (warnings included) in source order.
/// A problem a variant causes in its base is shown in the variant, the file
/// checked (file 0), where the user can change it: when a diagnostic's
/// place is in a base file and one of its notes is in the file checked,
/// the two change places (the base's place becomes the related one).
fn in_checked_file(d: &mut Diag) {
    if d.span.file == 0 {
        return;
    }
    if let Some(i) = d.notes.iter().position(|(s, _)| s.file == 0) {
        let (span, label) = d.notes.remove(i);
        let base = (std::mem::replace(&mut d.span, span), std::mem::replace(&mut d.label, label));
        d.notes.insert(0, base);
    }
}

pub fn compile(loaded: &Loaded) -> (Option<Compiled>, Vec<Diag>) {
    let mut cx = Cx::new();
    cx.diags.extend(loaded.warnings.iter().cloned());
    let top = Block::new(&loaded.items, "the rule file", Span::new(0, 0, 0));
    let title = top.prop(&mut cx, "game").and_then(|p| {
        let e = cx.one(p, "the game's title")?;
        cx.string(e, "the game's title (a string)").map(|s| s.value.clone())
    });
    let names: Vec<&str> = ENGINES.iter().map(|e| e.name).collect();
    let engine = top.require(&mut cx, "engine", "exchange").and_then(|p| {
        let e = cx.one(p, "an engine name")?;
        cx.choice(e, &names, "an engine").and_then(engine)
    });
    let allowed = allowed_codes(&top, &mut cx);
    let game = engine.and_then(|e| (e.lower)(&top, &mut cx));
    let examples = crate::example::lower(&top, &mut cx);
    if engine.is_some() {
        top.finish(&mut cx);
    }
    let mut diags = cx.diags;
    diags.iter_mut().for_each(in_checked_file);
    diags.retain(|d| d.is_error() || !allowed.contains(&d.code));
    diags.sort_by_key(|d| (d.span.file, d.span.start));
    let ok = !diags.iter().any(Diag::is_error);
    let compiled = match (game, engine) {
        (Some(game), Some(engine)) if ok => Some(Compiled { title, engine, game, examples }),
        _ => None,
    };
    (compiled, diags)
}

/// For the engines' tests: every bundled rule file of a game and the
/// inputs of its cases under tests/cases.
#[cfg(test)]
pub(crate) mod bundled_cases {
    use std::path::{Path, PathBuf};

    use crate::check::{Block, Cx};
    use crate::source::Span;

    fn texts(dir: &Path) -> Vec<String> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|d| d.map(|e| e.expect("a readable folder").path()).collect())
            .unwrap_or_default();
        files.retain(|f| f.extension().is_some_and(|e| e == "in"));
        files.sort();
        files.iter().map(|f| std::fs::read_to_string(f).expect("a case file")).collect()
    }

    /// Calls `each` with the rule file's top block, a context to lower it
    /// in, and its cases' inputs: rules/GAME.rules with tests/cases/GAME,
    /// then each rules/GAME/VARIANT.rules with its variant's cases. Panics
    /// when there are none.
    pub(crate) fn each(game: &str, mut each: impl FnMut(&Block, &mut Cx, &[String])) {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let cases = root.join("tests/cases").join(game);
        let mut files = vec![(root.join("rules").join(format!("{game}.rules")), cases.clone())];
        if let Ok(dir) = std::fs::read_dir(root.join("rules").join(game)) {
            let mut variants: Vec<PathBuf> = dir.map(|e| e.expect("a readable folder").path()).collect();
            variants.sort();
            for v in variants {
                let name = v.file_stem().expect("a file name").to_string_lossy().into_owned();
                files.push((v, cases.join("variants").join(name)));
            }
        }
        let mut inputs = 0;
        for (rules, dir) in files {
            let loaded = crate::load::load_path(&rules).unwrap_or_else(|_| panic!("{} loads", rules.display()));
            let top = Block::new(&loaded.items, "the rule file", Span::new(0, 0, 0));
            let texts = texts(&dir);
            inputs += texts.len();
            each(&top, &mut Cx::new(), &texts);
        }
        assert!(inputs > 0, "no case inputs for {game}");
    }
}
