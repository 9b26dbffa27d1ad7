//! Lowering: from a merged rule file to a runnable [`Game`]. The top-level
//! `engine:` property picks the engine; each engine's lowering reads its
//! sections through [`crate::check`] and reports every problem it finds.

pub mod cards;
pub mod connection;
pub mod covering;
pub mod exchange;
pub mod referee;
pub mod tower;

use crate::check::{Block, Cx};
use crate::diag::Diag;
use crate::game::Game;
use crate::load::Loaded;
use crate::source::Span;

/// The engines a rule file can name with `engine:`.
pub const ENGINES: &[&str] = &["connection", "covering", "exchange", "referee", "tower"];

/// A checked, lowered rule file.
pub struct Compiled {
    /// The file's `game:` title, if any.
    pub title: Option<String>,
    pub engine: &'static str,
    pub game: Box<dyn Game>,
    /// The worked examples of the file (`arbiter test`).
    pub examples: Vec<crate::example::Example>,
}

/// Checks and lowers a loaded rule file. Returns the game when there is no
/// error, and every diagnostic (warnings included) in source order.
pub fn compile(loaded: &Loaded) -> (Option<Compiled>, Vec<Diag>) {
    let mut cx = Cx::new();
    let top = Block::new(&loaded.items, "the rule file", Span::new(0, 0, 0));
    let title = top.prop(&mut cx, "game").and_then(|p| {
        let e = cx.one(p, "the game's title")?;
        cx.string(e, "the game's title (a string)").map(|s| s.value.clone())
    });
    let engine = top.require(&mut cx, "engine", "exchange").and_then(|p| {
        let e = cx.one(p, "an engine name")?;
        cx.choice(e, ENGINES, "an engine")
    });
    let game: Option<Box<dyn Game>> = match engine {
        Some("exchange") => {
            let rows = top.sections("combination");
            exchange::lower::lower(&top, &mut cx).map(|(g, stats)| {
                exchange::lower::check_rows(&rows, &stats, &g, &mut cx);
                Box::new(g) as Box<dyn Game>
            })
        }
        Some("tower") => tower::lower::lower(&top, &mut cx).map(|g| Box::new(g) as Box<dyn Game>),
        Some("covering") => covering::lower::lower(&top, &mut cx).map(|g| Box::new(g) as Box<dyn Game>),
        Some("connection") => connection::lower::lower(&top, &mut cx).map(|g| Box::new(g) as Box<dyn Game>),
        Some("referee") => referee::lower::lower(&top, &mut cx).map(|g| Box::new(g) as Box<dyn Game>),
        _ => None,
    };
    let examples = crate::example::lower(&top, &mut cx);
    if engine.is_some() {
        top.finish(&mut cx);
    }
    let mut diags = cx.diags;
    diags.sort_by_key(|d| (d.span.file, d.span.start));
    let ok = !diags.iter().any(Diag::is_error);
    let compiled = match (game, engine) {
        (Some(game), Some(engine)) if ok => Some(Compiled { title, engine, game, examples }),
        _ => None,
    };
    (compiled, diags)
}
