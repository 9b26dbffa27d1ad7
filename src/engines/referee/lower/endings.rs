//! The referee's `ending` sections, and the checks that a frame cannot get
//! stuck: a stroke that empties the table without ending the frame, when
//! nothing ends a frame on an empty table. Also what the runtime needs to
//! know of the expressions: whether a stroke rule reads the frame's state
//! (then verdicts are not remembered) and which sequence balls come back
//! after a fair pot (for `remaining`).

use super::{Exprs, Phases, Probe, Respots};
use crate::check::{Block, Cx};
use crate::diag::codes;
use crate::diag::Diag;
use crate::engines::referee::schema::STATE;
use crate::engines::referee::{var, EndingRule, Foul};
use crate::expr::{compile_int, BoolExpr, Env, SetExpr};
use crate::source::Span;
use crate::syntax::{Expr, ExprKind, Item, Label, Section};

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

/// Whether an expression of `s` counts balls (`count`).
pub(super) fn counts_balls(s: &Section) -> bool {
    any_expr(s, &|e| matches!(&e.kind, ExprKind::Call(f, _) if f.name == "count"))
}

/// Whether `hit` holds for a node of an expression of `s` (or of a
/// section inside it).
fn any_expr(s: &Section, hit: &dyn Fn(&Expr) -> bool) -> bool {
    s.items.iter().any(|i| match i {
        Item::Property(p) => p.values.iter().any(|e| any_node(e, hit)),
        Item::Section(inner) => any_expr(inner, hit),
    })
}

fn any_node(e: &Expr, hit: &dyn Fn(&Expr) -> bool) -> bool {
    // An explicit stack: expressions may be deep.
    let mut todo = vec![e];
    while let Some(e) = todo.pop() {
        if hit(e) {
            return true;
        }
        match &e.kind {
            ExprKind::Word(_) => {}
            ExprKind::Call(_, args) | ExprKind::List(args) => todo.extend(args),
            ExprKind::Range(a, b) | ExprKind::Binary(_, a, b) => todo.extend([&**a, &**b]),
            ExprKind::Unary(_, a) | ExprKind::Field(a, _) => todo.push(a),
            ExprKind::Int(_) | ExprKind::Str(_) => {}
        }
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

/// What a frame that may get stuck is judged by.
pub(super) struct Stuck<'a> {
    pub x: &'a Exprs,
    pub phases: &'a Phases,
    pub respots: &'a Respots,
    pub fouls: &'a [Foul],
    pub end: &'a BoolExpr,
    pub endings: &'a [EndingRule],
    pub cue: usize,
}

/// A stroke that pots every object ball on the table.
struct Clearing {
    first_phase: bool,
    /// `first`, `potted`, `on`, `table`.
    sets: [u64; 4],
    left: i64,
}

impl Stuck<'_> {
    fn foul(&self, probe: &Probe) -> bool {
        self.fouls.iter().any(|f| f.when.eval(&probe.env()))
    }

    /// The respot rule a stroke of this phase follows, and its key.
    fn respot(&self, first_phase: bool, foul: bool) -> (&SetExpr, &'static str) {
        let r = self.respots;
        match (first_phase, foul) {
            (true, true) if r.first_foul.is_some() => {
                (r.first_foul.as_ref().unwrap_or(&r.first_phase), "first-phase-foul")
            }
            (true, _) => (&r.first_phase, "first-phase"),
            (false, true) if r.second_foul.is_some() => {
                (r.second_foul.as_ref().unwrap_or(&r.second), "second-phase-foul")
            }
            (false, _) => (&r.second, "second-phase"),
        }
    }

    /// Whether some stroke on an empty table ends the frame: `end` for the
    /// cue ball hitting nothing (potted or not), or an ending that holds
    /// after it whatever the scores.
    fn empty_table_ends(&self) -> bool {
        let cue = 1u64 << self.cue;
        for potted in [0, cue] {
            let mut probe = Probe::new([0, potted, 0, 0], 0);
            let foul = self.foul(&probe);
            probe.ints[var::FOUL] = i64::from(foul);
            if self.end.eval(&probe.env()) {
                return true;
            }
            probe.ints[var::STROKES] = 2;
            let always = |e: &EndingRule| {
                [(0, 0), (7, 0), (0, 7)].into_iter().all(|(a, b)| {
                    let mut p = Probe { sets: probe.sets, ints: probe.ints };
                    p.ints[var::SCORE] = a;
                    p.ints[var::OPPONENT_SCORE] = b;
                    p.ints[var::LEAD] = i64::abs(a - b);
                    p.ints[var::LEADER] = i64::from(a > b) + 2 * i64::from(b > a);
                    p.ints[var::FOULS] = i64::from(foul);
                    e.when.eval(&Env { sets: &p.sets, ints: &p.ints })
                })
            };
            if self.endings.iter().any(always) {
                return true;
            }
        }
        false
    }

    /// Strokes that pot the whole table: the last two (or the last) balls
    /// of the sequence together, the last alternate ball with every
    /// sequence ball, two alternate balls when there is no sequence; with
    /// and without the cue ball.
    fn clearings(&self) -> Vec<Clearing> {
        let (seq, alt) = (&self.phases.sequence, self.phases.alternate);
        let mask = |bs: &[usize]| bs.iter().fold(0u64, |m, &b| m | 1 << b);
        let mut out = Vec::new();
        for k in [1, 2] {
            if seq.len() >= k {
                let last = &seq[seq.len() - k..];
                let one = 1u64 << last[0];
                out.push(Clearing { first_phase: false, sets: [one, mask(last), one, mask(last)], left: k as i64 });
            }
        }
        if alt != 0 {
            let a = 1u64 << alt.trailing_zeros();
            let table = a | mask(seq);
            let left = 1 + seq.len() as i64;
            out.push(Clearing { first_phase: true, sets: [a, table, alt, table], left });
            if seq.is_empty() {
                out.push(Clearing { first_phase: true, sets: [a, a, alt, a], left: 2 });
            }
        }
        let cue = 1u64 << self.cue;
        let with_cue: Vec<Clearing> =
            out.iter().map(|c| Clearing { sets: [c.sets[0], c.sets[1] | cue, c.sets[2], c.sets[3]], ..*c }).collect();
        out.extend(with_cue);
        out
    }

    /// Refuses a file in which a stroke can empty the table without ending
    /// the frame, when no stroke on an empty table ends it.
    pub(super) fn check(&self, cx: &mut Cx, (respot, end): (&Section, &Section), endings: &[(&Section, &Label)]) {
        if self.empty_table_ends() {
            return;
        }
        for c in self.clearings() {
            let mut probe = Probe::new(c.sets, c.left);
            let foul = self.foul(&probe);
            probe.ints[var::FOUL] = i64::from(foul);
            if self.end.eval(&probe.env()) {
                continue;
            }
            let (rule, key) = self.respot(c.first_phase, foul);
            let objects = c.sets[1] & !(1u64 << self.cue);
            if rule.eval(&probe.env()) & objects != 0 {
                continue;
            }
            let names: Vec<&str> =
                (0..64).filter(|b| objects >> b & 1 == 1).map(|b| self.x.names[b].as_str()).collect();
            let stroke = format!(
                "a {} that pots {} ({} ball{} left)",
                if foul { "foul" } else { "fair stroke" },
                names.join(" and "),
                c.left,
                if c.left == 1 { "" } else { "s" }
            );
            let mut d = Diag::error(
                codes::FRAME_STUCK,
                end.span_of("when"),
                format!("the frame can get stuck: {stroke} empties the table, and nothing ends a frame then"),
            )
            .label("does not hold for that stroke, nor for any stroke on an empty table")
            .note(respot.span_of(key), format!("`{key}` puts none of them back"));
            for (s, _) in endings {
                d = d.note(s.head, "this ending does not hold on an empty table whatever the scores");
            }
            cx.push(d.help(
                "add an ending for an empty table, e.g. `ending \"cleared\" { when: left == 0  winner: leader  \
                 output: \"{player} wins\" }`, or put a ball back, or let `end` hold for that stroke",
            ));
            return;
        }
    }
}

/// The `on` rule must name a ball on the table whenever one is there: on
/// the full table and on every table of one ball (before any ball is hit).
pub(super) fn check_on(cx: &mut Cx, x: &Exprs, phases: &Phases, on: &SetExpr, span: Span) {
    let singles = (0..64).filter(|b| x.objects >> b & 1 == 1).map(|b| (1u64 << b, 1));
    let full = x.objects.count_ones() as i64;
    for (table, left) in std::iter::once((x.objects, full)).chain(singles) {
        let probe = Probe::new([0, 0, 0, table], left);
        let mut p = probe;
        p.ints[var::STROKES] = 2;
        let _ = phases;
        if on.eval(&p.env()) & table != 0 {
            continue;
        }
        let what = if table == x.objects {
            "the full table".to_string()
        } else {
            format!("a table of `{}` alone", x.names[table.trailing_zeros() as usize])
        };
        cx.push(
            Diag::error(
                codes::FRAME_STUCK,
                span,
                format!("the frame can get stuck: on {what}, no ball on the table is on"),
            )
            .label("names no ball of the table then")
            .help("the ball on must be on the table whenever a ball is: e.g. `if(Red in table, Red, ...)`"),
        );
        return;
    }
}
