//! The referee's `ending` sections (whether a frame can get stuck is
//! `explore.rs`'s). Also what the runtime needs to
//! know of the expressions: whether a stroke rule reads the frame's state
//! (then verdicts are not remembered) and which sequence balls come back
//! after a fair pot (for `remaining`).

use super::{Exprs, Phases, Probe};
use crate::check::{Block, Cx};
use crate::diag::codes;
use crate::diag::Diag;
use crate::engines::referee::schema::STATE;
use crate::engines::referee::{var, EndingRule, KeyReads};
use crate::expr::{compile_int, SetExpr};
use crate::syntax::{BinOp, Expr, ExprKind, Item, Label, Section};

/// The `ending` sections: a condition, a winner or a draw, an output line.
pub(super) fn lower_endings(cx: &mut Cx, sections: &[(&Section, &Label)], x: &Exprs) -> Option<Vec<EndingRule>> {
    let mut out = Vec::new();
    let mut ok = true;
    for &(s, name) in sections {
        let b = Block::of_section(s);
        let when = b.require(cx, "when", "lead > remaining");
        let when = x.cond(cx, when);
        let winner = b.prop(cx, "winner").map(|p| {
            let e = cx.one(p, "a number")?;
            compile_int(e, &x.scope(), cx).map(|(f, _)| f)
        });
        let draw = b.prop(cx, "draw").map(|p| (cx.flag(p), p.span));
        let output = b.require(cx, "output", "\"{player} wins\"").and_then(|p| cx.template(p));
        b.finish(cx);
        let draws = match draw {
            Some((Some(true), span)) => {
                if winner.is_some() {
                    cx.push(
                        Diag::error(codes::CONFLICT, span, "an ending with a `winner` cannot also be a draw")
                            .label("`draw: yes` here")
                            .note(s.span_of("winner"), "the winner")
                            .help("keep `winner` (a value other than 1 or 2 is a draw), or `draw: yes`"),
                    );
                    ok = false;
                }
                true
            }
            Some((None, _)) => {
                ok = false;
                false
            }
            _ => false,
        };
        if winner.is_none() && !draws {
            cx.push(
                Diag::error(codes::MISSING, s.head, format!("the ending `{}` names no winner", name.value))
                    .label("no `winner` and no `draw: yes`")
                    .help("add `winner: leader` (or `striker`, `opponent`, 1, 2), or `draw: yes`"),
            );
            ok = false;
        }
        let winner = match winner {
            Some(w) => Some(w?),
            None => None,
        };
        match (when, output) {
            (Some(when), Some(output)) if ok => {
                out.push(EndingRule { name: name.value.clone(), when, winner, output, span: s.head })
            }
            _ => ok = false,
        }
    }
    ok.then_some(out)
}

/// Whether an expression of `s` (or of a section inside it) reads more
/// than a remembered verdict's key holds: a name of the frame's state other
/// than the stroke's sets, `left` and `foul`, or `count` (which counts
/// balls, not kinds).
pub(super) fn reads_frame(s: &Section) -> bool {
    any_expr(s, &|e| match &e.kind {
        ExprKind::Word(w) => {
            let i = STATE.iter().position(|v| v.name == w);
            i.is_some_and(|i| i >= 4 && i != 4 + var::LEFT && i != 4 + var::FOUL)
        }
        ExprKind::Call(f, _) => f.name == "count",
        _ => false,
    })
}

/// The most numbers `left` is compared with for a key to hold its sides.
const MOST_CUTS: usize = 8;

/// What a remembered verdict's key must hold of the table and of `left`,
/// read from the stroke rules `sections` (see [`KeyReads`]).
pub(super) fn key_reads<'s>(sections: impl IntoIterator<Item = &'s Section>) -> KeyReads {
    let (table, left) = (STATE[3].name, STATE[4 + var::LEFT].name);
    let mut reads = KeyReads { table: false, left_cuts: Some(Vec::new()) };
    let mut todo = Vec::new();
    for s in sections {
        each_expr(s, &mut |e| todo.push(e));
    }
    while let Some(e) = todo.pop() {
        match &e.kind {
            ExprKind::Word(w) if w == table => reads.table = true,
            // `left` anywhere but beside a number in a comparison: the key
            // holds it whole.
            ExprKind::Word(w) if w == left => reads.left_cuts = None,
            ExprKind::Binary(op, a, b) => {
                let compares = matches!(op, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge);
                let cut = match (&a.kind, &b.kind) {
                    (ExprKind::Word(w), ExprKind::Int(n)) | (ExprKind::Int(n), ExprKind::Word(w))
                        if compares && w == left =>
                    {
                        Some(*n)
                    }
                    _ => None,
                };
                match cut {
                    Some(n) => {
                        if let Some(cuts) = &mut reads.left_cuts {
                            cuts.push(n);
                        }
                    }
                    None => e.push_children(&mut todo),
                }
            }
            _ => e.push_children(&mut todo),
        }
    }
    if let Some(cuts) = &mut reads.left_cuts {
        cuts.sort_unstable();
        cuts.dedup();
    }
    // Each stroke sides `left` with every cut: past a few, it is held whole.
    if reads.left_cuts.as_ref().is_some_and(|c| c.len() > MOST_CUTS) {
        reads.left_cuts = None;
    }
    reads
}

/// Calls `f` on every expression of `s` (and of the sections inside it).
fn each_expr<'s>(s: &'s Section, f: &mut dyn FnMut(&'s Expr)) {
    for i in &s.items {
        match i {
            Item::Property(p) => p.values.iter().for_each(&mut *f),
            Item::Section(inner) => each_expr(inner, f),
        }
    }
}

/// Whether an expression of `s` counts balls (`count`).
pub(super) fn counts_balls(s: &Section) -> bool {
    any_expr(s, &|e| matches!(&e.kind, ExprKind::Call(f, _) if f.name == "count"))
}

/// Whether `hit` holds for a node of an expression of `s` (or of a
/// section inside it).
fn any_expr(s: &Section, hit: &dyn Fn(&Expr) -> bool) -> bool {
    let mut found = false;
    each_expr(s, &mut |e| found = found || any_node(e, hit));
    found
}

fn any_node(e: &Expr, hit: &dyn Fn(&Expr) -> bool) -> bool {
    // An explicit stack: expressions may be deep.
    let mut todo = vec![e];
    while let Some(e) = todo.pop() {
        if hit(e) {
            return true;
        }
        e.push_children(&mut todo);
    }
    false
}

/// The sequence balls that come back after a fair pot that follows an
/// alternate ball: the first phase's respot rule on the full table
/// (`left` balls).
pub(super) fn comes_back(x: &Exprs, phases: &Phases, first_phase: &SetExpr, left: i64) -> u64 {
    let mut back = 0;
    for &b in &phases.sequence {
        let one = 1u64 << b;
        let probe = Probe::new([one, one, one, x.objects], left);
        back |= first_phase.eval(&probe.env()) & one;
    }
    back
}

/// Whether an expression of `s` reads the stroke: `first`, `potted`, `on`
/// or `foul`.
pub(super) fn reads_stroke(s: &Section) -> bool {
    any_expr(s, &|e| match &e.kind {
        ExprKind::Word(w) => {
            let i = STATE.iter().position(|v| v.name == w);
            i.is_some_and(|i| i < 3 || i == 4 + var::FOUL)
        }
        _ => false,
    })
}
