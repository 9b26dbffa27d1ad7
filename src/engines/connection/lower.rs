//! Lowering for the `connection` engine (stones on a board of a named
//! shape, winning structures): the `board`, `cells`, `structure` and
//! `output` sections. See docs/engines/connection.md.
//!
//! ```text
//! board { shape: hexagon  side: 2..3000 }
//! cells "corner" { of: corners }
//! cells "side"   { of: sides-with-corners }
//! structure "bridge" { connects: 2 of corner }
//! structure "chain"  { connects: top-left and top-right of side }
//! structure "ring"   { encloses: empty }
//! structure "five"   { line: 5 }
//! play { players: 2 }
//! output { win: "Case #{case}: {structures|-} in move {move}"  none: "Case #{case}: none" }
//! ```

use crate::check::{Block, Cx};
use crate::diag::codes;
use crate::diag::Diag;
use crate::engines::connection::board::{Shape, Sizes, MAX_SIDE, MIN_SIDE};
use crate::engines::connection::{
    Connection, ConnectionGame, ConnectionSpans, ConnectionSpec, Enclose, Goal, NoneFields, Primitive, WinFields,
    MAX_LINE, MAX_MEMBERS, MAX_PLAYERS, MAX_STRUCTURES,
};
use crate::engines::Engine;
use crate::game::Game;
use crate::source::Span;
use crate::syntax::{BinOp, Expr, ExprKind, Property, Section};
use crate::template::OutputLine;

const PRIMITIVES: [&str; 3] = ["corners", "sides", "sides-with-corners"];
const ENCLOSES: [&str; 2] = ["empty", "any"];

/// The connection engine in the registry.
pub(crate) const ENGINE: Engine = Engine {
    name: "connection",
    summary: "stones placed on a board; the first move that forms a winning structure",
    lower: |top, cx| lower(top, cx).map(|g| Box::new(g) as Box<dyn Game>),
    schema: &super::schema::SCHEMA,
};

/// Lowers the file into a [`ConnectionGame`].
pub(crate) fn lower(top: &Block, cx: &mut Cx) -> Option<ConnectionGame> {
    let board = top.require_section(cx, "board");
    let families = top.sections("cells");
    let structures = top.sections("structure");
    let output = top.require_section(cx, "output");
    let mut spans = ConnectionSpans {
        structures: structures.iter().map(|s| s.head).collect(),
        families: families.iter().map(|s| s.head).collect(),
        family_names: families.iter().map(|s| s.name().map_or(String::new(), |n| n.value.clone())).collect(),
        ..Default::default()
    };
    if let Some(o) = output {
        (spans.win, spans.none) = (o.span_of("win"), o.span_of("none"));
    }
    let (shape, sides) = match board {
        Some(b) => board_section(b, cx),
        None => (None, None),
    };
    let families = cell_families(shape.map(|(s, _)| s), top, cx);
    let goals = families.as_ref().and_then(|f| structure_sections(&structures, f, shape, top, cx));
    let output = output.and_then(|o| output_section(o, cx));
    let players = top.section(cx, "play").map_or(Some(1), |s| play_section(s, cx));
    let ((shape, _), sizes, families, (names, structures), (win, none), players) =
        (shape?, sides?, families?, goals?, output?, players?);
    if cx.has_errors() {
        return None;
    }
    let spec = ConnectionSpec {
        shape,
        families: families.into_iter().map(|f| f.primitive).collect(),
        structures,
        sizes,
        players: players as usize,
    };
    Some(ConnectionGame { engine: Connection::new(spec), names, win, none, spans })
}

/// The board's shape and where the rule file says it.
type ShapeAt = (Shape, Span);

/// `shape: hexagon|rhombus|triangle` and `side: MIN..MAX`, or (a shape
/// of two sizes) `height: MIN..MAX` and `width: MIN..MAX`.
fn board_section(s: &Section, cx: &mut Cx) -> (Option<ShapeAt>, Option<Sizes>) {
    let b = Block::of_section(s);
    let shape = b.require(cx, "shape", "hexagon").and_then(|p| {
        let e = cx.one(p, "a board shape")?;
        let names = Shape::ALL.map(Shape::name);
        cx.choice(e, &names, "a board shape").and_then(Shape::named).map(|s| (s, e.span))
    });
    let side = b.prop(cx, "side");
    let (height, width) = (b.prop(cx, "height"), b.prop(cx, "width"));
    let sizes = match (side, height.or(width)) {
        (None, None) => Some(Sizes::Side { min: MIN_SIDE, max: MAX_SIDE }),
        (Some(p), None) => size_range(p, "side", cx).map(|(min, max)| Sizes::Side { min, max }),
        (Some(p), Some(q)) => {
            cx.push(
                Diag::error(codes::CONFLICT, q.key.span, "a board has one side, or a height and a width, not both")
                    .label("a second size")
                    .note(p.key.span, "the side")
                    .help("remove `side`, or `height` and `width`"),
            );
            None
        }
        (None, Some(_)) => two_sizes(&b, shape, height, width, cx),
    };
    b.finish(cx);
    (shape, sizes)
}

/// `height: MIN..MAX` and `width: MIN..MAX` (both), on a shape that has
/// two sizes.
fn two_sizes(
    b: &Block,
    shape: Option<ShapeAt>,
    height: Option<&Property>,
    width: Option<&Property>,
    cx: &mut Cx,
) -> Option<Sizes> {
    let (Some(h), Some(w)) = (height, width) else {
        let (given, missing) = if height.is_some() { ("height", "width") } else { ("width", "height") };
        let at = height.or(width).map_or(b.head, |p| p.key.span);
        cx.push(
            Diag::error(codes::MISSING, at, format!("a board with a `{given}` needs a `{missing}` too"))
                .label(format!("no `{missing}`"))
                .help(format!("add `{missing}: 2..10`, or give one `side` instead")),
        );
        return None;
    };
    let (shape, at) = shape?;
    if !shape.def().two_sizes {
        let two: Vec<&str> = Shape::ALL.iter().filter(|s| s.def().two_sizes).map(|s| s.name()).collect();
        cx.push(
            Diag::error(codes::CONFLICT, h.key.span, format!("a {} has one size, its side", shape.name()))
                .label("not a size of this shape")
                .note(at, format!("the board is a {}", shape.name()))
                .help(format!("write `side: MIN..MAX`; a height and a width are for a {}", two.join(" or a "))),
        );
        return None;
    }
    let height = size_range(h, "height", cx);
    let width = size_range(w, "width", cx);
    Some(Sizes::Rect { height: height?, width: width? })
}

/// `MIN..MAX`, one of the board's sizes (`what`: side, height or width).
fn size_range(p: &Property, what: &str, cx: &mut Cx) -> Option<(u32, u32)> {
    let e = cx.one(p, &format!("a range of board {what}s such as `2..3000`"))?;
    let ExprKind::Range(lo, hi) = &e.kind else {
        return cx.expected(e, &format!("a range of board {what}s such as `2..3000`"));
    };
    let lo_n = cx.int(lo, &format!("the smallest board {what} (a whole number)"))?;
    let hi_n = cx.int(hi, &format!("the largest board {what} (a whole number)"))?;
    let mut ok = true;
    if lo_n < MIN_SIDE as i64 {
        cx.push(
            Diag::error(codes::OUT_OF_RANGE, lo.span, format!("a board of {what} {lo_n} has no cells"))
                .label(format!("the smallest {what} is {MIN_SIDE}"))
                .help(format!(
                    "a board of {what} {MIN_SIDE} is one cell{}; write `{what}: {MIN_SIDE}..{}`",
                    if what == "side" { "" } else { " across" },
                    hi_n.max(MIN_SIDE as i64)
                )),
        );
        ok = false;
    }
    if hi_n > MAX_SIDE as i64 {
        cx.push(
            Diag::error(
                codes::TOO_LARGE,
                hi.span,
                format!("board {what} {hi_n} is above the largest supported {what}"),
            )
            .label(format!("at most {MAX_SIDE}")),
        );
        ok = false;
    }
    if ok && lo_n > hi_n {
        cx.push(
            Diag::error(codes::OUT_OF_RANGE, e.span, format!("the range {lo_n}..{hi_n} holds no {what}"))
                .label(format!("the smallest {what} is above the largest"))
                .help(format!("write `{what}: {hi_n}..{lo_n}`")),
        );
        ok = false;
    }
    ok.then_some((lo_n as u32, hi_n as u32))
}

/// `play { players: N }`: how many players take turns.
fn play_section(s: &Section, cx: &mut Cx) -> Option<u32> {
    let b = Block::of_section(s);
    let players = b.prop(cx, "players").map_or(Some(1), |p| {
        let n = cx.prop_int(p, 1, "the number of players (a whole number, 1 or more)")?;
        if n > MAX_PLAYERS as i64 {
            cx.push(
                Diag::error(codes::TOO_LARGE, p.values[0].span, format!("{n} players are too many"))
                    .label(format!("at most {MAX_PLAYERS}")),
            );
            return None;
        }
        Some(n as u32)
    });
    b.finish(cx);
    players
}

struct Family {
    name: String,
    span: Span,
    primitive: Primitive,
}

/// `cells "NAME" { of: corners }`, in order.
fn cell_families(shape: Option<Shape>, top: &Block, cx: &mut Cx) -> Option<Vec<Family>> {
    let named = top.named_sections(cx, "cells", "cell family");
    let mut ok = named.len() == top.sections("cells").len();
    let mut out: Vec<Family> = Vec::new();
    for (s, name) in named {
        let b = Block::of_section(s);
        let primitive = b.require(cx, "of", "corners").and_then(|p| {
            let e = cx.one(p, "a part of the board (`corners`, `sides` or `sides-with-corners`)")?;
            Some(match cx.choice(e, &PRIMITIVES, "a part of the board")? {
                "corners" => Primitive::Corners,
                "sides" => Primitive::Sides,
                _ => Primitive::SidesWithCorners,
            })
        });
        b.finish(cx);
        match primitive {
            Some(primitive) => out.push(Family { name: name.value.clone(), span: name.span, primitive }),
            None => ok = false,
        }
    }
    if let Some(shape) = shape {
        let members: usize = out.iter().map(|f| f.primitive.members(shape)).sum();
        if members > MAX_MEMBERS {
            cx.push(
                Diag::error(codes::TOO_LARGE, top.head, format!("the cell families have {members} members in all"))
                    .label(format!("at most {MAX_MEMBERS}")),
            );
            return None;
        }
    }
    ok.then_some(out)
}

/// `structure "NAME" { connects: K of FAMILY }`, `{ connects: A and B of
/// FAMILY }` or `{ encloses: empty|any }`.
fn structure_sections(
    sections: &[&Section],
    families: &[Family],
    shape: Option<ShapeAt>,
    top: &Block,
    cx: &mut Cx,
) -> Option<(Vec<String>, Vec<Goal>)> {
    if sections.is_empty() {
        cx.push(
            Diag::error(codes::MISSING, top.head, "the rule file has no `structure`")
                .label("nothing can win")
                .help("add a winning structure such as `structure \"NAME\" { connects: 2 of FAMILY }`"),
        );
        return None;
    }
    if sections.len() > MAX_STRUCTURES {
        cx.push(
            Diag::error(
                codes::TOO_LARGE,
                sections[MAX_STRUCTURES].head,
                format!("at most {MAX_STRUCTURES} structures"),
            )
            .label("one too many"),
        );
        return None;
    }
    let named = top.named_sections(cx, "structure", "structure");
    let mut ok = named.len() == sections.len();
    let mut names: Vec<String> = Vec::new();
    let mut goals = Vec::new();
    let mut used = vec![false; families.len()];
    for (s, name) in named {
        let b = Block::of_section(s);
        let goal = goal(cx, &b, s, families, shape, &mut used);
        b.finish(cx);
        names.push(name.value.clone());
        match goal {
            Some(g) => goals.push(g),
            None => ok = false,
        }
    }
    for (f, used) in families.iter().zip(&used) {
        if !used && ok {
            cx.push(
                Diag::warning(codes::UNUSED, f.span, format!("cell family `{}` is used by no structure", f.name))
                    .label("never used")
                    .help("remove it, or use it in a structure (`connects: 2 of ...`)"),
            );
        }
    }
    ok.then_some((names, goals))
}

/// A structure's goal: what it connects, or what it encloses.
fn goal(
    cx: &mut Cx,
    b: &Block,
    s: &Section,
    families: &[Family],
    shape: Option<ShapeAt>,
    used: &mut [bool],
) -> Option<Goal> {
    let goals =
        [("connects", b.prop(cx, "connects")), ("encloses", b.prop(cx, "encloses")), ("line", b.prop(cx, "line"))];
    let mut given = goals.iter().filter_map(|(k, p)| p.map(|p| (*k, p)));
    let Some((first, p)) = given.next() else {
        cx.push(
            Diag::error(
                codes::MISSING,
                s.head,
                format!("{} says neither what it connects, nor what it encloses, nor a line", b.what),
            )
            .label("no goal")
            .help("add `connects: 2 of corner`, `encloses: empty` or `line: 5`"),
        );
        return None;
    };
    if let Some((second, q)) = given.next() {
        cx.push(
            Diag::error(
                codes::CONFLICT,
                q.key.span,
                format!("a structure has one goal: `{first}` or `{second}`, not both"),
            )
            .label("second goal")
            .note(p.key.span, "first goal")
            .help("define two structures"),
        );
        return None;
    }
    match first {
        "connects" => connects_goal(p.values.as_slice(), p.key.span, families, shape, used, cx),
        "encloses" => cx.one(p, "`empty` or `any`").and_then(|e| {
            Some(Goal::Encloses(match cx.choice(e, &ENCLOSES, "what must be enclosed (`empty` or `any`)")? {
                "empty" => Enclose::Empty,
                _ => Enclose::Any,
            }))
        }),
        _ => {
            let n = cx.prop_int(p, 1, "the number of stones in a row (a whole number, 1 or more)")?;
            if n > MAX_LINE as i64 {
                cx.push(
                    Diag::error(codes::TOO_LARGE, p.values[0].span, format!("a line of {n} stones is too long"))
                        .label(format!("at most {MAX_LINE}")),
                );
                return None;
            }
            Some(Goal::Line { length: n as u32 })
        }
    }
}

/// The words of `a and b and c`, left to right; `None` when it is
/// anything else.
fn and_words<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) -> bool {
    match &e.kind {
        ExprKind::Word(_) => {
            out.push(e);
            true
        }
        ExprKind::Binary(BinOp::And, a, b) => and_words(a, out) && and_words(b, out),
        _ => false,
    }
}

/// `K of FAMILY` or `A and B of FAMILY`.
fn connects_goal(
    values: &[Expr],
    key: Span,
    families: &[Family],
    shape: Option<ShapeAt>,
    used: &mut [bool],
    cx: &mut Cx,
) -> Option<Goal> {
    let form = "a count and a cell family, such as `2 of corner`, or members by name, such as `top and bottom of side`";
    let [k, of, fam] = values else {
        let span = match (values.first(), values.last()) {
            (Some(a), Some(b)) => a.span.to(b.span),
            _ => key,
        };
        cx.push(Diag::error(codes::ARITY, span, format!("`connects` takes {form}")).label("expected `... of FAMILY`"));
        return None;
    };
    if of.as_word() != Some("of") {
        return cx.expected(of, "`of` (as in `2 of corner`)");
    }
    let mut named = Vec::new();
    let count = match k.kind {
        ExprKind::Int(_) => Some(cx.int(k, "the number of family members to connect")?),
        _ if and_words(k, &mut named) => None,
        _ => return cx.expected(k, "a count or the names of members (`2 of corner`, `top and bottom of side`)"),
    };
    let name = cx.name(fam, "a cell family")?;
    let Some(index) = families.iter().position(|f| f.name == name) else {
        cx.unknown(fam.span, "a cell family", &name, families.iter().map(|f| f.name.as_str()));
        return None;
    };
    crate::check::resolved(Some("cells"), fam.span);
    used[index] = true;
    // Without a shape (already reported), the members are unknown.
    let (shape, shape_at) = shape?;
    let on_shape = format!("the board is a {}", shape.name());
    let family = &families[index];
    let members = family.primitive.members(shape);
    let all = (1u64 << members) - 1;
    let Some(count) = count else {
        // Members by name: each one a member of the family on this shape, once.
        let member_names: Vec<&str> = (0..members).map(|i| family.primitive.member_name(shape, i)).collect();
        let mut mask = 0u64;
        let mut ok = true;
        for (at, w) in named.iter().enumerate() {
            let word = w.as_word().unwrap_or_default();
            let Some(i) = member_names.iter().position(|m| *m == word) else {
                let (part, other, other_of) = if family.primitive == Primitive::Corners {
                    ("corner", "side", "sides-with-corners")
                } else {
                    ("side", "corner", "corners")
                };
                let mut d =
                    Diag::error(codes::UNKNOWN_NAME, w.span, format!("a {} has no {part} `{word}`", shape.name()))
                        .label(format!("not a member of `{name}`"))
                        .note(family.span, format!("`{name}` has the {part}s {}", quoted_list(&member_names)))
                        .note(shape_at, on_shape.clone());
                let is_other = match family.primitive {
                    Primitive::Corners => shape.def().sides.iter().any(|s| s.name == word),
                    _ => shape.def().corners.contains(&word),
                };
                d = if is_other {
                    d.help(format!(
                        "`{word}` is a {other} of the {}: name it in a family `of: {other_of}`",
                        shape.name()
                    ))
                } else {
                    d.suggest_among(word, member_names.iter().copied())
                };
                cx.push(d);
                ok = false;
                continue;
            };
            if mask >> i & 1 == 1 {
                let first = named[..at].iter().find(|e| e.as_word() == Some(word)).map_or(w.span, |e| e.span);
                cx.push(
                    Diag::error(codes::DUPLICATE, w.span, format!("`{word}` is named twice"))
                        .label("named again here")
                        .note(first, "first named here")
                        .help("name each member once"),
                );
                ok = false;
            }
            mask |= 1 << i;
        }
        return ok.then_some(Goal::Connects { family: index, members: mask, count: mask.count_ones() });
    };
    if count < 1 {
        cx.push(
            Diag::error(codes::OUT_OF_RANGE, k.span, format!("connecting {count} members of `{name}` is no goal"))
                .label("at least 1")
                .help("a structure needs at least one member of its family"),
        );
        return None;
    }
    if count > members as i64 {
        cx.push(
            Diag::error(
                codes::UNFORMABLE,
                k.span,
                format!("`{name}` has {members} members on a {}; no group can connect {count} of them", shape.name()),
            )
            .label(format!("at most {members}"))
            .note(family.span, format!("`{name}` is defined here"))
            .note(shape_at, on_shape)
            .help(format!("use a count from 1 to {members}")),
        );
        return None;
    }
    Some(Goal::Connects { family: index, members: all, count: count as u32 })
}

/// `a`, `b` and `c`.
fn quoted_list(names: &[&str]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match q.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => q.join(""),
    }
}

type Lines = (OutputLine<WinFields<'static>>, OutputLine<NoneFields>);

fn output_section(s: &Section, cx: &mut Cx) -> Option<Lines> {
    let b = Block::of_section(s);
    let win = b.require(cx, "win", "\"Case #{case}: {structures|-} in move {move}\"").and_then(|p| cx.template(p));
    let none = b.require(cx, "none", "\"Case #{case}: none\"").and_then(|p| cx.template(p));
    b.finish(cx);
    Some((win?, none?))
}
