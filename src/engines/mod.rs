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
