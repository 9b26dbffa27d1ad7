//! Lowering for the `connection` engine (stones on a hexagonal board,
//! winning structures): the `board`, `cells`, `structure` and `output`
//! sections. See docs/language.md, "The connection engine".
//!
//! ```text
//! board { shape: hexagon  side: 2..3000 }
//! cells "corner" { of: corners }
//! structure "bridge" { connects: 2 of corner }
//! structure "ring"   { encloses: empty }
//! output { win: "Case #{case}: {structures|-} in move {move}"  none: "Case #{case}: none" }
//! ```

use crate::check::{Block, Cx};
use crate::diag::Diag;
use crate::engines::connection::board::{HexBoard, MAX_SIDE, MIN_SIDE};
use crate::engines::connection::{
    Connection, ConnectionSpec, Enclose, Goal, Outcome, Primitive, MAX_MEMBERS, MAX_STRUCTURES,
};
use crate::game::explain::Explanation;
use crate::game::{Game, Output, RunError};
use crate::source::Span;
use crate::syntax::{Expr, ExprKind, Section};
use crate::template::{Template, Val};
use std::collections::HashSet;

const SHAPES: [&str; 1] = ["hexagon"];
const PRIMITIVES: [&str; 3] = ["corners", "sides", "sides-with-corners"];
const ENCLOSES: [&str; 2] = ["empty", "any"];

/// A lowered connection game: the engine plus the output wording.
pub struct ConnectionGame {
    pub engine: Connection,
    /// Structure names, in rule-file order.
    pub names: Vec<String>,
    pub win: Template,
    pub none: Template,
    pub spans: ConnectionSpans,
}

/// Where the rules an explanation cites are written.
#[derive(Debug, Clone, Default)]
pub struct ConnectionSpans {
    /// Each structure's and each cell family's section header.
    pub structures: Vec<Span>,
    pub families: Vec<Span>,
    pub family_names: Vec<String>,
    pub win: Span,
    pub none: Span,
}

impl Game for ConnectionGame {
    fn run(&self, input: &str, out: &mut Output) -> Result<(), RunError> {
        let mut names: Vec<&str> = Vec::with_capacity(self.names.len());
        self.engine.run(input, |case, outcome: Outcome| {
            let buf = out.buffer();
            match outcome.win {
                None => self.none.line(buf, &[Val::Int(case as i64)]),
                Some(w) => {
                    names.clear();
                    names.extend(w.indices().map(|i| self.names[i].as_str()));
                    self.win.line(buf, &[Val::Int(case as i64), Val::Strs(&names), Val::Int(w.turn as i64)]);
                }
            }
            out.end_case()?;
            Ok::<(), RunError>(())
        })
    }

    fn explainer(&self) -> Option<&dyn crate::game::explain::Explain> {
        Some(self)
    }
}

type Cells = Vec<(u32, u32)>;

/// Cells a flood fill of an explanation visits at most.
const TRACE_CELLS: usize = 1 << 20;

fn cell((x, y): (u32, u32)) -> String {
    format!("({x}, {y})")
}

/// At most `n` cells, then how many more.
fn cells(list: &[(u32, u32)], n: usize) -> String {
    let mut s: Vec<String> = list.iter().take(n).map(|&c| cell(c)).collect();
    if list.len() > n {
        s.push(format!("... ({} in all)", list.len()));
    }
    s.join(" ")
}

/// The stones of the group holding `start` (which must be a stone).
fn group(stones: &HashSet<(u32, u32)>, start: (u32, u32)) -> Vec<(u32, u32)> {
    let mut seen: HashSet<(u32, u32)> = HashSet::from([start]);
    let mut todo = vec![start];
    let mut out = Vec::new();
    while let Some(c) = todo.pop() {
        out.push(c);
        for n in HexBoard::around(c.0, c.1) {
            if stones.contains(&n) && seen.insert(n) {
                todo.push(n);
            }
        }
    }
    out.sort_unstable();
    out
}

/// An empty region next to `at` that cannot reach the outside of the
/// board: its cells and the stones around it. `None` when every region
/// next to `at` escapes (or is too large to trace).
fn enclosed_near(board: &HexBoard, stones: &HashSet<(u32, u32)>, at: (u32, u32)) -> Option<(Cells, Cells)> {
    // A cell beyond the stones' bounding box reaches the outside in a
    // straight line, so the fill stops there as well as at the board's edge.
    let (lo_x, hi_x) = stones.iter().fold((u32::MAX, 0), |(a, b), c| (a.min(c.0), b.max(c.0)));
    let (lo_y, hi_y) = stones.iter().fold((u32::MAX, 0), |(a, b), c| (a.min(c.1), b.max(c.1)));
    let on_board = |c: (u32, u32)| {
        board.contains(c.0 as i64, c.1 as i64) && (lo_x..=hi_x).contains(&c.0) && (lo_y..=hi_y).contains(&c.1)
    };
    for start in HexBoard::around(at.0, at.1) {
        if !on_board(start) || stones.contains(&start) {
            continue;
        }
        let mut seen: HashSet<(u32, u32)> = HashSet::from([start]);
        let mut todo = vec![start];
        let mut wall: HashSet<(u32, u32)> = HashSet::new();
        let mut escapes = false;
        while let Some(c) = todo.pop() {
            for n in HexBoard::around(c.0, c.1) {
                if !on_board(n) {
                    escapes = true;
                    break;
                }
                if stones.contains(&n) {
                    wall.insert(n);
                } else if seen.insert(n) {
                    todo.push(n);
                }
            }
            if escapes || seen.len() > TRACE_CELLS {
                escapes = true;
                break;
            }
        }
        if !escapes {
            let mut region: Vec<_> = seen.into_iter().collect();
            let mut wall: Vec<_> = wall.into_iter().collect();
            region.sort_unstable();
            wall.sort_unstable();
            return Some((region, wall));
        }
    }
    None
}

impl crate::game::explain::Explain for ConnectionGame {
    /// For each case: the winning move, and for each structure it formed
    /// the group and the family members it touches, or the enclosed cells
    /// and the stones around them; when nothing wins, how close each
    /// connection came.
    fn explain(&self, input: &str, each: &mut dyn FnMut(Explanation)) -> Result<(), RunError> {
        let conn = &self.engine;
        let sp = &self.spans;
        self.engine.run_keeping_moves(input, |case, side, outcome, moves| {
            let board = HexBoard::new(side);
            let stones: HashSet<(u32, u32)> = moves.iter().copied().collect();
            let mut e = Explanation::default();
            let mut buf = Vec::new();
            // The family members a group touches, with a cell for each.
            let touched = |g: &[(u32, u32)], family: usize| -> Vec<(usize, (u32, u32))> {
                let base = conn.family_base(family);
                let mut out: Vec<(usize, (u32, u32))> = Vec::new();
                for &c in g {
                    let m = conn.cell_members(side, c.0, c.1) >> base & 0x3f;
                    for i in (0..6).filter(|i| m >> i & 1 == 1) {
                        if !out.iter().any(|&(j, _)| j == i) {
                            out.push((i, c));
                        }
                    }
                }
                out.sort_unstable();
                out
            };
            let members = |t: &[(usize, (u32, u32))], family: usize| -> String {
                t.iter()
                    .map(|&(i, c)| format!("{} {} at {}", sp.family_names[family], i + 1, cell(c)))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            match outcome.win {
                Some(w) => {
                    let names: Vec<&str> = w.indices().map(|i| self.names[i].as_str()).collect();
                    self.win.line(&mut buf, &[Val::Int(case as i64), Val::Strs(&names), Val::Int(w.turn as i64)]);
                    let last = moves[moves.len() - 1];
                    e.summary = format!("case {case}: move {} at {} forms {}", w.turn, cell(last), names.join(", "));
                    e.values
                        .push(("board".into(), format!("side {side}, {} stones after move {}", moves.len(), w.turn)));
                    for i in w.indices() {
                        match conn.spec.structures[i] {
                            Goal::Connects { family, count } => {
                                let g = group(&stones, last);
                                let t = touched(&g, family);
                                e.rules.push((
                                    sp.structures[i],
                                    format!(
                                        "formed: one group touches {} `{}` members ({count} needed)",
                                        t.len(),
                                        sp.family_names[family]
                                    ),
                                ));
                                e.rules.push((sp.families[family], members(&t, family)));
                                e.values.push((
                                    format!("{} group", self.names[i]),
                                    format!("{} stones: {}", g.len(), cells(&g, 24)),
                                ));
                            }
                            Goal::Encloses(_) => match enclosed_near(&board, &stones, last) {
                                Some((region, wall)) => {
                                    e.rules.push((
                                        sp.structures[i],
                                        format!("formed: {} cannot reach the outside", cells(&region, 3)),
                                    ));
                                    e.values.push((format!("{} encloses", self.names[i]), cells(&region, 24)));
                                    e.values.push((format!("{} stones around", self.names[i]), cells(&wall, 24)));
                                }
                                None => {
                                    // `any`: a stone with six stone neighbours.
                                    let inner =
                                        std::iter::once(last).chain(HexBoard::around(last.0, last.1)).find(|&c| {
                                            stones.contains(&c)
                                                && HexBoard::around(c.0, c.1).iter().all(|n| stones.contains(n))
                                        });
                                    let says = inner.map_or("formed".to_string(), |c| {
                                        format!("formed: the stone at {} is surrounded by stones", cell(c))
                                    });
                                    e.rules.push((sp.structures[i], says));
                                }
                            },
                        }
                    }
                    e.rules.push((sp.win, "writes the line".into()));
                }
                None => {
                    self.none.line(&mut buf, &[Val::Int(case as i64)]);
                    e.summary = format!("case {case}: after all {} moves no structure is formed", moves.len());
                    // Each connection goal: the best any group got.
                    let mut groups: Vec<Vec<(u32, u32)>> = Vec::new();
                    let mut seen: HashSet<(u32, u32)> = HashSet::new();
                    for &m in moves {
                        if !seen.contains(&m) {
                            let g = group(&stones, m);
                            seen.extend(g.iter().copied());
                            groups.push(g);
                        }
                    }
                    for (i, goal) in conn.spec.structures.iter().enumerate() {
                        let says = match *goal {
                            Goal::Connects { family, count } => {
                                let best = groups
                                    .iter()
                                    .map(|g| touched(g, family))
                                    .max_by_key(|t| t.len())
                                    .unwrap_or_default();
                                if !best.is_empty() {
                                    e.values.push((format!("closest to {}", self.names[i]), members(&best, family)));
                                }
                                format!(
                                    "not formed: one group touches at most {} `{}` members ({count} needed)",
                                    best.len(),
                                    sp.family_names[family]
                                )
                            }
                            Goal::Encloses(_) => "not formed: every cell can reach the outside".to_string(),
                        };
                        e.rules.push((sp.structures[i], says));
                    }
                    e.values.push((
                        "board".into(),
                        format!("side {side}, {} stones in {} group(s)", moves.len(), groups.len()),
                    ));
                    e.rules.push((sp.none, "writes the line".into()));
                }
            }
            e.output = String::from_utf8_lossy(&buf).trim_end().to_string();
            each(e);
            Ok::<(), RunError>(())
        })
    }
}

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
    let sides = board.and_then(|b| board_section(b, cx));
    let families = cell_families(&families, top, cx);
    let goals = families.as_ref().and_then(|f| structure_sections(&structures, f, top, cx));
    let output = output.and_then(|o| output_section(o, cx));
    let ((min_side, max_side), families, (names, structures), (win, none)) = (sides?, families?, goals?, output?);
    if cx.has_errors() {
        return None;
    }
    let spec = ConnectionSpec {
        families: families.into_iter().map(|f| f.primitive).collect(),
        structures,
        min_side,
        max_side,
    };
    Some(ConnectionGame { engine: Connection::new(spec), names, win, none, spans })
}

/// `shape: hexagon` and `side: MIN..MAX`; returns the side range.
fn board_section(s: &Section, cx: &mut Cx) -> Option<(u32, u32)> {
    let b = Block::of_section(s);
    let shape = b.require(cx, "shape", "hexagon").and_then(|p| {
        let e = cx.one(p, "a board shape")?;
        cx.choice(e, &SHAPES, "a board shape")
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
                    Diag::error("out-of-range", lo.span, format!("a hexagonal board of side {lo_n} makes no sense"))
                        .label(format!("the smallest side is {MIN_SIDE}"))
                        .help(format!(
                            "at side {MIN_SIDE} the six corners are six different cells; write `side: {MIN_SIDE}..{}`",
                            hi_n.max(MIN_SIDE as i64)
                        )),
                );
                ok = false;
            }
            if hi_n > MAX_SIDE as i64 {
                cx.push(
                    Diag::error("too-large", hi.span, format!("board side {hi_n} is above the largest supported side"))
                        .label(format!("at most {MAX_SIDE}")),
                );
                ok = false;
            }
            if ok && lo_n > hi_n {
                cx.push(
                    Diag::error("out-of-range", e.span, format!("the range {lo_n}..{hi_n} holds no side"))
                        .label("the smallest side is above the largest")
                        .help(format!("write `side: {hi_n}..{lo_n}`")),
                );
                ok = false;
            }
            ok.then_some((lo_n as u32, hi_n as u32))
        })(),
    };
    b.finish(cx);
    shape?;
    side
}

struct Family {
    name: String,
    span: Span,
    primitive: Primitive,
}

/// `cells "NAME" { of: corners }`, in order.
fn cell_families(sections: &[&Section], top: &Block, cx: &mut Cx) -> Option<Vec<Family>> {
    let mut out: Vec<Family> = Vec::new();
    let mut ok = true;
    for s in sections {
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
        let Some(name) = s.name() else {
            cx.push(
                Diag::error("missing", s.head, "a cell family needs a name")
                    .label("no name")
                    .help("write `cells \"corner\" { of: corners }`"),
            );
            ok = false;
            continue;
        };
        if let Some(first) = out.iter().find(|f| f.name == name.value) {
            cx.push(
                Diag::error("duplicate", name.span, format!("cell family `{}` is defined twice", name.value))
                    .label("defined again here")
                    .note(first.span, "first defined here"),
            );
            ok = false;
        }
        match primitive {
            Some(primitive) => out.push(Family { name: name.value.clone(), span: name.span, primitive }),
            None => ok = false,
        }
    }
    let members: usize = out.iter().map(|f| f.primitive.members()).sum();
    if members > MAX_MEMBERS {
        cx.push(
            Diag::error("too-large", top.head, format!("the cell families have {members} members in all"))
                .label(format!("at most {MAX_MEMBERS}")),
        );
        return None;
    }
    ok.then_some(out)
}

/// `structure "NAME" { connects: K of FAMILY }` or `{ encloses: empty|any }`.
fn structure_sections(
    sections: &[&Section],
    families: &[Family],
    top: &Block,
    cx: &mut Cx,
) -> Option<(Vec<String>, Vec<Goal>)> {
    if sections.is_empty() {
        cx.push(
            Diag::error("missing", top.head, "the rule file has no `structure`")
                .label("nothing can win")
                .help("add a winning structure such as `structure \"bridge\" { connects: 2 of corner }`"),
        );
        return None;
    }
    if sections.len() > MAX_STRUCTURES {
        cx.push(
            Diag::error("too-large", sections[MAX_STRUCTURES].head, format!("at most {MAX_STRUCTURES} structures"))
                .label("one too many"),
        );
        return None;
    }
    let mut names: Vec<(String, Span)> = Vec::new();
    let mut goals = Vec::new();
    let mut used = vec![false; families.len()];
    let mut ok = true;
    for s in sections {
        let b = Block::of_section(s);
        let connects = b.prop(cx, "connects");
        let encloses = b.prop(cx, "encloses");
        let goal = match (connects, encloses) {
            (Some(c), Some(e)) => {
                cx.push(
                    Diag::error("conflict", e.key.span, "a structure either connects or encloses, not both")
                        .label("second goal")
                        .note(c.key.span, "first goal")
                        .help("define two structures"),
                );
                None
            }
            (None, None) => {
                cx.push(
                    Diag::error(
                        "missing",
                        s.head,
                        format!("{} says neither what it connects nor what it encloses", b.what),
                    )
                    .label("no goal")
                    .help("add `connects: 2 of corner` or `encloses: empty`"),
                );
                None
            }
            (Some(p), None) => connects_goal(p.values.as_slice(), p.key.span, families, &mut used, cx),
            (None, Some(p)) => cx.one(p, "`empty` or `any`").and_then(|e| {
                Some(Goal::Encloses(match cx.choice(e, &ENCLOSES, "what must be enclosed (`empty` or `any`)")? {
                    "empty" => Enclose::Empty,
                    _ => Enclose::Any,
                }))
            }),
        };
        b.finish(cx);
        let Some(name) = s.name() else {
            cx.push(
                Diag::error("missing", s.head, "a structure needs a name")
                    .label("no name")
                    .help("write `structure \"bridge\" { ... }`; the name is printed in the output"),
            );
            ok = false;
            continue;
        };
        if let Some((_, first)) = names.iter().find(|(n, _)| *n == name.value) {
            cx.push(
                Diag::error("duplicate", name.span, format!("structure `{}` is defined twice", name.value))
                    .label("defined again here")
                    .note(*first, "first defined here"),
            );
            ok = false;
        }
        names.push((name.value.clone(), name.span));
        match goal {
            Some(g) => goals.push(g),
            None => ok = false,
        }
    }
    for (f, used) in families.iter().zip(&used) {
        if !used && ok {
            cx.push(
                Diag::warning("unused", f.span, format!("cell family `{}` is used by no structure", f.name))
                    .label("never used")
                    .help("remove it, or use it in a structure (`connects: 2 of ...`)"),
            );
        }
    }
    ok.then(|| (names.into_iter().map(|(n, _)| n).collect(), goals))
}

/// `K of FAMILY`.
fn connects_goal(values: &[Expr], key: Span, families: &[Family], used: &mut [bool], cx: &mut Cx) -> Option<Goal> {
    let shape = "a count and a cell family, such as `2 of corner`";
    let [k, of, fam] = values else {
        let span = match (values.first(), values.last()) {
            (Some(a), Some(b)) => a.span.to(b.span),
            _ => key,
        };
        cx.push(Diag::error("arity", span, format!("`connects` takes {shape}")).label(format!("expected {shape}")));
        return None;
    };
    if of.as_word() != Some("of") {
        return cx.expected(of, "`of` (as in `2 of corner`)");
    }
    let count = cx.int(k, "the number of family members to connect")?;
    let name = cx.name(fam, "a cell family")?;
    let Some(index) = families.iter().position(|f| f.name == name) else {
        cx.unknown(fam.span, "a cell family", name, families.iter().map(|f| f.name.as_str()));
        return None;
    };
    used[index] = true;
    let members = families[index].primitive.members() as i64;
    if count < 1 {
        cx.push(
            Diag::error("out-of-range", k.span, format!("connecting {count} members of `{name}` is no goal"))
                .label("at least 1")
                .help("a structure needs at least one member of its family"),
        );
        return None;
    }
    if count > members {
        cx.push(
            Diag::error(
                "unformable",
                k.span,
                format!("`{name}` has {members} members; no group can connect {count} of them"),
            )
            .label(format!("at most {members}"))
            .note(families[index].span, format!("`{name}` is defined here"))
            .help(format!("use a count from 1 to {members}")),
        );
        return None;
    }
    Some(Goal::Connects { family: index, count: count as u32 })
}

fn output_section(s: &Section, cx: &mut Cx) -> Option<(Template, Template)> {
    let b = Block::of_section(s);
    let win = b
        .require(cx, "win", "\"Case #{case}: {structures|-} in move {move}\"")
        .and_then(|p| cx.template(p, &["case", "structures", "move"]));
    let none = b.require(cx, "none", "\"Case #{case}: none\"").and_then(|p| cx.template(p, &["case"]));
    b.finish(cx);
    Some((win?, none?))
}
