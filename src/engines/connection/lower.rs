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
//! output { win: "Case #{case}: {structures|-} in move {move}"  none: "Case #{case}: none" }
//! ```

use crate::check::{Block, Cx};
use crate::diag::codes;
use crate::diag::Diag;
use crate::engines::connection::board::{Shape, MAX_SIDE, MIN_SIDE};
use crate::engines::connection::{
    Connection, ConnectionGame, ConnectionSpans, ConnectionSpec, Enclose, Goal, NoneFields, Primitive, WinFields,
    MAX_MEMBERS, MAX_STRUCTURES,
};
use crate::engines::Engine;
use crate::game::Game;
use crate::source::Span;
use crate::syntax::{BinOp, Expr, ExprKind, Section};
use crate::template::OutputLine;

const PRIMITIVES: [&str; 3] = ["corners", "sides", "sides-with-corners"];
const ENCLOSES: [&str; 2] = ["empty", "any"];

/// The connection engine in the registry.
pub const ENGINE: Engine = Engine {
    name: "connection",
    summary: "stones placed on a board; the first move that forms a winning structure",
    lower: |top, cx| lower(top, cx).map(|g| Box::new(g) as Box<dyn Game>),
    schema: &super::schema::SCHEMA,
};

/// Lowers the file into a [`ConnectionGame`].
pub fn lower(top: &Block, cx: &mut Cx) -> Option<ConnectionGame> {
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
    let ((shape, _), (min_side, max_side), families, (names, structures), (win, none)) =
        (shape?, sides?, families?, goals?, output?);
    if cx.has_errors() {
        return None;
    }
    let spec = ConnectionSpec {
        shape,
        families: families.into_iter().map(|f| f.primitive).collect(),
        structures,
        min_side,
        max_side,
    };
    Some(ConnectionGame { engine: Connection::new(spec), names, win, none, spans })
}

/// The board's shape and where the rule file says it.
type ShapeAt = (Shape, Span);

/// `shape: hexagon|rhombus|triangle` and `side: MIN..MAX`.
fn board_section(s: &Section, cx: &mut Cx) -> (Option<ShapeAt>, Option<(u32, u32)>) {
    let b = Block::of_section(s);
    let shape = b.require(cx, "shape", "hexagon").and_then(|p| {
        let e = cx.one(p, "a board shape")?;
        let names = Shape::ALL.map(Shape::name);
        cx.choice(e, &names, "a board shape").and_then(Shape::named).map(|s| (s, e.span))
    });
    let side = match b.prop(cx, "side") {
        None => Some((MIN_SIDE, MAX_SIDE)),
        Some(p) => (|| {
            let e = cx.one(p, "a range of board sides such as `2..3000`")?;
            let ExprKind::Range(lo, hi) = &e.kind else {
                return cx.expected(e, "a range of board sides such as `2..3000`");
            };
            let lo_n = cx.int(lo, "the smallest board side (a whole number)")?;
            let hi_n = cx.int(hi, "the largest board side (a whole number)")?;
            let mut ok = true;
            if lo_n < MIN_SIDE as i64 {
                cx.push(
                    Diag::error(codes::OUT_OF_RANGE, lo.span, format!("a board of side {lo_n} has no cells"))
                        .label(format!("the smallest side is {MIN_SIDE}"))
                        .help(format!(
                            "a board of side {MIN_SIDE} is one cell; write `side: {MIN_SIDE}..{}`",
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
                        format!("board side {hi_n} is above the largest supported side"),
                    )
                    .label(format!("at most {MAX_SIDE}")),
                );
                ok = false;
            }
            if ok && lo_n > hi_n {
                cx.push(
                    Diag::error(codes::OUT_OF_RANGE, e.span, format!("the range {lo_n}..{hi_n} holds no side"))
                        .label("the smallest side is above the largest")
                        .help(format!("write `side: {hi_n}..{lo_n}`")),
                );
                ok = false;
            }
            ok.then_some((lo_n as u32, hi_n as u32))
        })(),
    };
    b.finish(cx);
    (shape, side)
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
                .help("add a winning structure such as `structure \"bridge\" { connects: 2 of corner }`"),
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
    let connects = b.prop(cx, "connects");
    let encloses = b.prop(cx, "encloses");
    match (connects, encloses) {
        (Some(c), Some(e)) => {
            cx.push(
                Diag::error(codes::CONFLICT, e.key.span, "a structure either connects or encloses, not both")
                    .label("second goal")
                    .note(c.key.span, "first goal")
                    .help("define two structures"),
            );
            None
        }
        (None, None) => {
            cx.push(
                Diag::error(
                    codes::MISSING,
                    s.head,
                    format!("{} says neither what it connects nor what it encloses", b.what),
                )
                .label("no goal")
                .help("add `connects: 2 of corner` or `encloses: empty`"),
            );
            None
        }
        (Some(p), None) => connects_goal(p.values.as_slice(), p.key.span, families, shape, used, cx),
        (None, Some(p)) => cx.one(p, "`empty` or `any`").and_then(|e| {
            Some(Goal::Encloses(match cx.choice(e, &ENCLOSES, "what must be enclosed (`empty` or `any`)")? {
                "empty" => Enclose::Empty,
                _ => Enclose::Any,
            }))
        }),
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
