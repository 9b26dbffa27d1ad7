//! Lowering for the `referee` engine: the `ball`, `play`, `foul`,
//! `penalty`, `respot`, `end`, `tie`, `input` and `output` sections.
//! See docs/engines/referee.md.

use crate::check::{Block, Cx};
use crate::diag::codes;
use crate::diag::Diag;
use crate::engines::referee::schema::{NO_FOUL, NO_ON, SCHEMA};
use crate::engines::referee::words::Words;
use crate::engines::referee::{var, Foul, Next, Nominate, Referee, RefereeSpans, Tie, Wording, MAX_BALLS, MAX_SCORE};
use crate::engines::Engine;
use crate::expr::{compile_bool, compile_int, compile_set, BoolExpr, Env, IntExpr, Scope, SetExpr, Ty};
use crate::game::Game;
use crate::source::Span;
use crate::syntax::{Expr, Property, Section};
use crate::template::OutputLine;

mod endings;
mod explore;
use endings::{comes_back, counts_balls, key_reads, lower_endings, reads_frame, reads_stroke};

/// Most balls of one kind.
pub const MAX_COUNT: i64 = 1000;
/// The largest value of a ball: with 64 kinds of 1,000 balls, one stroke
/// scores at most 6.4 * 10^13, far inside 64-bit scores.
pub const MAX_VALUE: i64 = 1_000_000_000;

/// The referee engine in the registry.
pub const ENGINE: Engine = Engine {
    name: "referee",
    summary: "a frame of a cue sport followed stroke by stroke: fouls, scores, respots, turns",
    lower: |top, cx| lower(top, cx).map(|g| Box::new(g) as Box<dyn Game>),
    schema: &super::schema::SCHEMA,
};

struct Ball {
    name: String,
    value: i64,
    count: u32,
    cue: bool,
    head: Span,
}

/// One set of values of the expression variables, for the static checks.
struct Probe {
    sets: [u64; 4],
    ints: [i64; var::ALL],
}

impl Probe {
    /// The sets, `left` balls before the stroke, at the start of a frame
    /// otherwise (the first stroke of player 1, scores 0).
    fn new(sets: [u64; 4], left: i64) -> Probe {
        let mut ints = [0; var::ALL];
        for b in 0..MAX_BALLS {
            ints[var::TABLE_COUNTS + b] = i64::from(sets[3] >> b & 1 == 1);
            ints[var::POTTED_COUNTS + b] = i64::from(sets[1] >> b & 1 == 1);
        }
        ints[var::LEFT] = left;
        ints[var::STRIKER] = 1;
        ints[var::OPPONENT] = 2;
        ints[var::STROKES] = 1;
        ints[var::VISITS] = 1;
        Probe { sets, ints }
    }

    fn env(&self) -> Env<'_> {
        Env { sets: &self.sets, ints: &self.ints }
    }
}

/// Lowers the file into a [`Referee`].
pub fn lower(top: &Block, cx: &mut Cx) -> Option<Referee> {
    lower_with(top, cx, true)
}

/// [`lower`] without deciding whether a frame can get stuck (`explore`
/// false): for the tests that compare that decision with a simulation.
#[doc(hidden)]
pub fn lower_with(top: &Block, cx: &mut Cx, explore: bool) -> Option<Referee> {
    let balls = balls(top, cx);
    let play = top.require_section(cx, "play");
    let foul_sections = top.sections("foul");
    let penalty = top.require_section(cx, "penalty");
    let respot = top.require_section(cx, "respot");
    let end = top.require_section(cx, "end");
    let tie = top.require_section(cx, "tie");
    let ending_sections = top.named_sections(cx, "ending", "ending");
    let input = top.require_section(cx, "input");
    let output = top.require_section(cx, "output");
    let out = output.and_then(|s| output_section(s, cx));
    let (no_hit, play_again) = input_section(input, cx);
    let balls = balls?;
    let cue = balls.iter().position(|b| b.cue)?;
    let x = Exprs::new(&balls);
    let (play, phases) = lower_play(cx, play?, &x, &balls, cue)?;
    let fouls = lower_fouls(cx, &foul_sections, &x);
    let (penalty, penalty_rule) = lower_penalty(cx, penalty?, &x)?;
    let (respot, respots) = lower_respot(cx, respot?, &x, &phases)?;
    let (end, ends, end_prop) = lower_end(cx, end?, &x);
    let (tie, tie_rule) = lower_tie(cx, tie?, &x);
    let endings = lower_endings(cx, &ending_sections, &x);
    let (ends, mut out) = (ends?, out?);
    // The ball left last, when the second phase runs to its end.
    let last = phases.sequence.last().copied().or_else(|| {
        let alt = phases.alternate;
        (alt != 0).then(|| alt.trailing_zeros() as usize)
    });
    if let Some(b) = last {
        check_last_pot_ends(cx, &x, b, &ends, end_prop);
    }
    let tie_rule = tie_rule.settle(cx, tie, output, &mut out, &x, last)?;
    let endings = endings?;
    if cx.has_errors() {
        return None;
    }
    let full: i64 = balls.iter().filter(|b| !b.cue).map(|b| i64::from(b.count)).sum();
    let comes_back = comes_back(&x, &phases, &respots.first_phase, full);
    let stroke_rules = || [play.section, penalty, respot, end].into_iter().chain(foul_sections.iter().copied());
    let stroke_reads = stroke_rules().any(reads_frame);
    let reads_numbers = stroke_reads || reads_frame(tie) || ending_sections.iter().any(|(s, _)| reads_frame(s));
    let ending_heads: Vec<Span> = ending_sections.iter().map(|(s, _)| s.head).collect();
    let tracks = !endings.is_empty() || stroke_rules().chain([tie]).any(reads_frame);
    let counts_balls = stroke_rules().chain([tie]).chain(ending_sections.iter().map(|(s, _)| *s)).any(counts_balls);
    let mut by_value: Vec<usize> = (0..balls.len()).collect();
    by_value.sort_by_key(|&i| (x.values[i], i));
    let (no_hit, play_again) = (no_hit?, play_again?);
    let words = Words::new(&x.names, &no_hit, play_again.first().map_or("", String::as_str));
    let spans = spans(play.section, penalty, respot, end, tie, output);
    let Respots { first_phase, first_foul, second, second_foul } = respots;
    let referee = Referee {
        counts: balls.iter().map(|b| b.count).collect(),
        words,
        names: x.names,
        values: x.values,
        cue,
        alternate: phases.alternate,
        sequence_mask: phases.sequence.iter().fold(0u64, |m, &b| m | 1 << b),
        sequence: phases.sequence,
        nominate: phases.nominate,
        fouls,
        penalty: penalty_rule.value,
        penalty_min: penalty_rule.min,
        penalty_max: penalty_rule.max,
        respot_first: first_phase,
        respot_first_foul: first_foul,
        respot_second: second,
        respot_second_foul: second_foul,
        continues: play.continues,
        in_hand: play.in_hand,
        play_again_after: play.again_after,
        end: ends,
        tie: tie_rule,
        endings,
        reads_frame: stroke_reads,
        key_reads: key_reads(stroke_rules()),
        tracks,
        counts_balls,
        on_rule: play.on.map(|(on, _)| on),
        comes_back,
        by_value,
        no_hit,
        play_again,
        out,
        spans,
    };
    let stroke = ending_sections.iter().any(|(s, _)| reads_stroke(s));
    let reads = explore::Reads { numbers: reads_numbers, stroke };
    if explore {
        explore::check(cx, &referee, reads, &ending_heads);
    }
    (!cx.has_errors()).then_some(referee)
}

/// The names, values and scopes the rule expressions are compiled in.
struct Exprs {
    /// The state the expressions read (the schema's), in `Env` order.
    vars: Vec<(&'static str, Ty)>,
    /// The same, the names the `on` rule cannot read made empty.
    on_vars: Vec<(&'static str, Ty)>,
    names: Vec<String>,
    values: Vec<i64>,
    /// Every object ball (a mask).
    objects: u64,
}

impl Exprs {
    fn new(balls: &[Ball]) -> Self {
        let objects = (0..balls.len()).filter(|&i| !balls[i].cue).fold(0, |m, i| m | 1 << i);
        let vars = SCHEMA.vars();
        let on_vars = vars.iter().map(|&(n, t)| (if NO_ON.iter().any(|(m, _)| *m == n) { "" } else { n }, t)).collect();
        Exprs {
            on_vars,
            vars,
            names: balls.iter().map(|b| b.name.clone()).collect(),
            values: balls.iter().map(|b| b.value).collect(),
            objects,
        }
    }

    /// The largest value a count can take.
    const INT_MAX: i64 = MAX_BALLS as i64 * MAX_COUNT;

    fn scope(&self) -> Scope<'_> {
        Scope {
            vars: &self.vars,
            elements: &self.names,
            weights: &self.values,
            element: "a ball",
            int_range: (0, MAX_SCORE),
            unavailable: &[],
            // `first`: one ball; `potted`: the balls potted; `on` and
            // `table`: the balls of those kinds on the table.
            counts: &[
                None,
                Some((var::POTTED_COUNTS, MAX_COUNT)),
                Some((var::TABLE_COUNTS, MAX_COUNT)),
                Some((var::TABLE_COUNTS, MAX_COUNT)),
            ],
        }
    }

    /// The scope of the `on` rule: the state less `potted`, `on` and
    /// `foul` (not known before the stroke), which keep their places in
    /// `Env` under names no rule can write.
    fn on_scope(&self) -> Scope<'_> {
        Scope { vars: &self.on_vars, unavailable: NO_ON, ..self.scope() }
    }

    /// The scope of a foul condition: every variable but `foul`, which
    /// comes last in the state (a test holds it there), so the others keep
    /// their places in `Env`.
    fn foul_scope(&self) -> Scope<'_> {
        let n = self.vars.iter().take_while(|(v, _)| NO_FOUL.iter().all(|(u, _)| u != v)).count();
        Scope { vars: &self.vars[..n], unavailable: NO_FOUL, ..self.scope() }
    }

    fn cond(&self, cx: &mut Cx, p: Option<&Property>) -> Option<BoolExpr> {
        let e = cx.one(p?, "a condition")?;
        compile_bool(e, &self.scope(), cx)
    }

    fn set(&self, cx: &mut Cx, p: &Property) -> Option<(SetExpr, Span)> {
        let e: &Expr = cx.one(p, "a set of balls")?;
        compile_set(e, &self.scope(), cx).map(|f| (f, e.span))
    }
}

/// The `play` section's conditions.
struct Play<'a> {
    section: &'a Section,
    continues: BoolExpr,
    in_hand: BoolExpr,
    again_after: BoolExpr,
    /// The ball on by rule, where it is written.
    on: Option<(SetExpr, Span)>,
}

/// The two phases of a frame: the alternate balls (a mask), the sequence
/// of the second phase, and which ball is nominated after a foul.
struct Phases {
    alternate: u64,
    sequence: Vec<usize>,
    nominate: Nominate,
}

fn lower_play<'a>(cx: &mut Cx, play: &'a Section, x: &Exprs, balls: &[Ball], cue: usize) -> Option<(Play<'a>, Phases)> {
    let names = &x.names;
    let pb = Block::of_section(play);
    let alternate = pb.require(cx, "alternate", "BALL ...").and_then(|p| ball_list(p, names, cx));
    let sequence_prop = pb.prop(cx, "sequence");
    let sequence = match sequence_prop {
        Some(p) => ball_list(p, names, cx),
        None => Some(Vec::new()),
    };
    let nominate = pb.prop(cx, "nominate").map_or(Some(Nominate::Lowest), |p| {
        let e = cx.one(p, "`lowest`, `highest` or a ball")?;
        match e.as_word() {
            Some("lowest") => Some(Nominate::Lowest),
            Some("highest") => Some(Nominate::Highest),
            _ => ball(e, names, cx).map(Nominate::Ball),
        }
    });
    let on = pb.prop(cx, "on").map(|p| {
        let e = cx.one(p, "a set of balls")?;
        compile_set(e, &x.on_scope(), cx).map(|f| (f, p.span))
    });
    let mut cond = |key: &'static str, example: &str| {
        let p = pb.require(cx, key, example);
        x.cond(cx, p)
    };
    let continues = cond("continue", "not foul and potted - CUE != []");
    let in_hand = cond("in-hand", "CUE in potted");
    let again_after = cond("play-again-after", "foul");
    pb.finish(cx);
    let alternate = alternate_mask(cx, &alternate?, names, cue)?;
    let sequence = match sequence_prop {
        Some(p) => checked_sequence(cx, sequence?, p, balls, cue, alternate)?,
        None => {
            let mut v: Vec<usize> = (0..balls.len()).filter(|&i| i != cue && alternate >> i & 1 == 0).collect();
            v.sort_by_key(|&i| (x.values[i], i));
            v
        }
    };
    let nominate = nominate?;
    if let Nominate::Ball(b) = nominate {
        if !sequence.contains(&b) {
            let p = play.items.iter().find(|i| i.key().name == "nominate").map_or(play.head, |i| i.span());
            cx.push(
                Diag::error(codes::SEQUENCE, p, format!("`{}` can never be nominated", names[b]))
                    .label("not a ball of the sequence")
                    .help("nominate `lowest`, `highest` or a ball of the sequence"),
            );
            return None;
        }
    }
    let on = match on {
        Some(on) => Some(on?),
        None => None,
    };
    let play = Play { section: play, continues: continues?, in_hand: in_hand?, again_after: again_after?, on };
    Some((play, Phases { alternate, sequence, nominate }))
}

/// The alternate balls as a mask; the cue ball cannot be one.
fn alternate_mask(cx: &mut Cx, alternate: &[(usize, Span)], names: &[String], cue: usize) -> Option<u64> {
    let mut mask = 0u64;
    for &(b, span) in alternate {
        if b == cue {
            cx.push(
                Diag::error(
                    codes::PHASE_NEVER_LEFT,
                    span,
                    format!("the cue ball `{}` cannot be an alternate ball", names[b]),
                )
                .label("the cue ball never leaves the table, so the first phase would never end"),
            );
            return None;
        }
        mask |= 1 << b;
    }
    Some(mask)
}

/// A written `sequence`: each object ball that is not an alternate ball,
/// once.
fn checked_sequence(
    cx: &mut Cx,
    list: Vec<(usize, Span)>,
    p: &Property,
    balls: &[Ball],
    cue: usize,
    alt_mask: u64,
) -> Option<Vec<usize>> {
    let mut ok = true;
    for &(b, span) in &list {
        if b == cue || alt_mask >> b & 1 == 1 {
            cx.push(
                Diag::error(codes::SEQUENCE, span, format!("`{}` cannot be in the sequence", balls[b].name))
                    .label(if b == cue { "the cue ball" } else { "an alternate ball" }),
            );
            ok = false;
        }
        if let Some(&(_, first)) = list.iter().find(|(x, s)| *x == b && s.start < span.start) {
            cx.push(
                Diag::error(codes::DUPLICATE, span, format!("`{}` is in the sequence twice", balls[b].name))
                    .label("again here")
                    .note(first, "first here"),
            );
            ok = false;
        }
    }
    for (i, bl) in balls.iter().enumerate() {
        if i != cue && alt_mask >> i & 1 == 0 && !list.iter().any(|&(b, _)| b == i) {
            cx.push(
                Diag::error(
                    codes::SEQUENCE_NEVER_ENDS,
                    p.values_span(),
                    format!("`{}` is never on: the sequence can never end", bl.name),
                )
                .label(format!("`{}` is missing from the sequence", bl.name))
                .note(bl.head, "the ball is defined here")
                .help(format!("add `{}` to the sequence, or make it an alternate ball", bl.name)),
            );
            ok = false;
        }
    }
    ok.then(|| list.into_iter().map(|(b, _)| b).collect())
}

/// The `foul` sections: each a condition (which cannot read `foul`).
fn lower_fouls(cx: &mut Cx, fouls: &[&Section], x: &Exprs) -> Vec<Foul> {
    let scope = x.foul_scope();
    let mut out = Vec::new();
    for s in fouls {
        let b = Block::of_section(s);
        let name = s.name().map(|l| l.value.clone()).unwrap_or_default();
        let when = b
            .require(cx, "when", "first == []")
            .and_then(|p| cx.one(p, "a condition"))
            .and_then(|e| compile_bool(e, &scope, cx));
        b.finish(cx);
        if let Some(when) = when {
            out.push(Foul { name, when, span: s.head });
        }
    }
    out
}

/// The `penalty` section: a formula, bounded by `min` and `max`.
struct Penalty {
    value: IntExpr,
    min: i64,
    max: i64,
}

fn lower_penalty<'a>(cx: &mut Cx, penalty: &'a Section, x: &Exprs) -> Option<(&'a Section, Penalty)> {
    let pen = Block::of_section(penalty);
    let min = pen.require(cx, "min", "4").and_then(|p| cx.prop_int(p, 0, "the smallest penalty").map(|n| (n, p)));
    let max = pen.require(cx, "max", "7").and_then(|p| cx.prop_int(p, 0, "the largest penalty").map(|n| (n, p)));
    let value = pen
        .require(cx, "value", "highest(on + first + potted)")
        .and_then(|p| cx.one(p, "a number"))
        .and_then(|e| compile_int(e, &x.scope(), cx));
    pen.finish(cx);
    let ((min, min_p), (max, max_p)) = (min?, max?);
    if min > max {
        cx.push(
            Diag::error(
                codes::PENALTY_RANGE,
                min_p.values_span(),
                format!("the smallest penalty ({min}) is above the largest ({max})"),
            )
            .label("the minimum")
            .note(max_p.values_span(), "the maximum")
            .help("make `min` at most `max`"),
        );
        return None;
    }
    Some((penalty, Penalty { value: value?.0, min, max }))
}

/// The `respot` section: the balls put back after a stroke of each phase,
/// fair or foul (`None`: as after a fair stroke).
struct Respots {
    first_phase: SetExpr,
    first_foul: Option<SetExpr>,
    second: SetExpr,
    second_foul: Option<SetExpr>,
}

fn lower_respot<'a>(cx: &mut Cx, respot: &'a Section, x: &Exprs, phases: &Phases) -> Option<(&'a Section, Respots)> {
    let rb = Block::of_section(respot);
    let first_phase = rb.require(cx, "first-phase", "potted - BALL").and_then(|p| x.set(cx, p));
    let second = rb.require(cx, "second-phase", "[]").and_then(|p| x.set(cx, p));
    let first_foul = rb.prop(cx, "first-phase-foul").map(|p| x.set(cx, p));
    let second_foul = rb.prop(cx, "second-phase-foul").map(|p| x.set(cx, p));
    rb.finish(cx);
    let ((first_phase, fe), (second, se)) = (first_phase?, second?);
    let first_foul = first_foul.map_or(Some(None), |f| f.map(|(f, _)| Some(f)))?;
    let second_foul = second_foul.map_or(Some(None), |f| f.map(|(f, _)| Some(f)))?;
    check_respots_end(cx, x, phases, (&first_phase, fe), (&second, se));
    Some((respot, Respots { first_phase, first_foul, second, second_foul }))
}

/// A fair stroke that respots an alternate ball keeps the first phase
/// going forever; one that respots the ball on after a fair pot keeps the
/// sequence from ending.
fn check_respots_end(cx: &mut Cx, x: &Exprs, phases: &Phases, first: (&SetExpr, Span), second: (&SetExpr, Span)) {
    let names = &x.names;
    let worst = Probe::new([x.objects; 4], Exprs::INT_MAX);
    let back = first.0.eval(&worst.env()) & phases.alternate;
    if back != 0 {
        let b = back.trailing_zeros() as usize;
        cx.push(
            Diag::error(
                codes::PHASE_NEVER_LEFT,
                first.1,
                format!("`{}` can be respotted after a fair stroke, so the first phase can never be left", names[b]),
            )
            .label(format!("this set can hold `{}`", names[b]))
            .help(format!(
                "the first phase lasts while an alternate ball is on the table; remove them: `... - {}` (respotting \
                 them after a foul only is `first-phase-foul`)",
                names[b]
            )),
        );
    }
    for &b in &phases.sequence {
        let one = 1u64 << b;
        let fair = Probe::new([one; 4], 1);
        if second.0.eval(&fair.env()) & one != 0 {
            cx.push(
                Diag::error(
                    codes::SEQUENCE_NEVER_ENDS,
                    second.1,
                    format!("`{}` comes back after it is potted fairly: the sequence can never end", names[b]),
                )
                .label("a fair pot of the ball on is respotted")
                .help("fair pots of the second phase stay down: `[]`"),
            );
            break;
        }
    }
}

/// The `end` section's condition, and where it is written.
fn lower_end<'a>(cx: &mut Cx, end: &'a Section, x: &Exprs) -> (&'a Section, Option<BoolExpr>, Option<&'a Property>) {
    let eb = Block::of_section(end);
    let end_when = eb.require(cx, "when", "left == 1 and (foul or potted - CUE != [])");
    let ends = x.cond(cx, end_when);
    eb.finish(cx);
    (end, ends, end_when)
}

/// Potting the last ball fairly must end the frame.
fn check_last_pot_ends(cx: &mut Cx, x: &Exprs, b: usize, ends: &BoolExpr, end_when: Option<&Property>) {
    let probe = Probe::new([1 << b; 4], 1);
    if ends.eval(&probe.env()) {
        return;
    }
    let Some(p) = end_when else { return };
    cx.push(
        Diag::error(
            codes::FRAME_NEVER_ENDS,
            p.values_span(),
            format!("potting `{}`, the last ball, does not end the frame", x.names[b]),
        )
        .label("false when the last ball is potted fairly")
        .help("a frame whose table is empty can never end: make this hold then, e.g. `left == 1 and ...`"),
    );
}

/// The `tie` section as written: a draw, or a replay (its respot, who goes
/// next, and the cue ball in hand), each key `None` when absent.
struct TieKeys {
    draw: Option<bool>,
    respot: Option<Option<(SetExpr, Span)>>,
    next: Option<Option<Next>>,
    in_hand: Option<Option<bool>>,
}

fn lower_tie<'a>(cx: &mut Cx, tie: &'a Section, x: &Exprs) -> (&'a Section, TieKeys) {
    let tb = Block::of_section(tie);
    let draw = tb.prop(cx, "draw").map_or(Some(false), |p| cx.flag(p));
    let respot = tb.prop(cx, "respot").map(|p| x.set(cx, p));
    let next = tb.prop(cx, "next").map(|p| {
        let e = cx.one(p, "`lot`, `striker` or `opponent`")?;
        match cx.choice(e, &["lot", "striker", "opponent"], "`lot`, `striker` or `opponent`")? {
            "lot" => Some(Next::Lot),
            "striker" => Some(Next::Striker),
            _ => Some(Next::Opponent),
        }
    });
    let in_hand = tb.prop(cx, "in-hand").map(|p| cx.flag(p));
    tb.finish(cx);
    (tie, TieKeys { draw, respot, next, in_hand })
}

impl TieKeys {
    /// The tie rule: a draw needs the `draw` output line; a replay needs
    /// its three keys and the `tie` line, and must put the last ball back.
    /// The output line the rule does not use is dropped.
    fn settle(
        self,
        cx: &mut Cx,
        tie: &Section,
        output: Option<&Section>,
        out: &mut Wording,
        x: &Exprs,
        last: Option<usize>,
    ) -> Option<Tie> {
        if self.draw? {
            if out.draw.is_none() {
                cx.push(
                    missing_line(output, "draw", "\"Draw\"", "a tie ends the frame drawn")
                        .note(tie.span_of("draw"), "ties are draws here"),
                );
            }
            out.tie = None;
            return Some(Tie { draw: true, respot: SetExpr::Const(0), next: Next::Lot, in_hand: true });
        }
        let need = |key: &str, example: &str, cx: &mut Cx| {
            cx.push(
                Diag::error(codes::MISSING, tie.head, format!("the `tie` section has no `{key}`"))
                    .label(format!("`{key}` is missing here"))
                    .help(format!("add `{key}: {example}`, or `draw: yes` for a drawn frame")),
            );
        };
        if self.respot.is_none() {
            need("respot", "table", cx);
        }
        if self.next.is_none() {
            need("next", "lot", cx);
        }
        if self.in_hand.is_none() {
            need("in-hand", "yes", cx);
        }
        if out.tie.is_none() {
            cx.push(missing_line(output, "tie", "\"Tie\"", "a tie is replayed").note(tie.head, "the tie rule"));
        }
        out.draw = None;
        let (respot, respot_span) = self.respot.flatten()?;
        let rule = Tie { draw: false, respot, next: self.next.flatten()?, in_hand: self.in_hand.flatten()? };
        let Some(b) = last else { return Some(rule) };
        let probe = Probe::new([1 << b; 4], 1);
        if rule.respot.eval(&probe.env()) >> b & 1 == 0 {
            cx.push(
                Diag::error(
                    codes::FRAME_NEVER_ENDS,
                    respot_span,
                    format!("a tie on `{}`, the last ball, leaves the table empty", x.names[b]),
                )
                .label(format!("does not hold `{}` when it is potted last", x.names[b]))
                .help("put the last ball back (`respot: table`), or end a tie with `draw: yes`"),
            );
        }
        Some(rule)
    }
}

/// Where the rules an explanation cites are written.
fn spans(
    play: &Section,
    penalty: &Section,
    respot: &Section,
    end: &Section,
    tie: &Section,
    output: Option<&Section>,
) -> RefereeSpans {
    let output_span = |key: &str| output.map_or(Span::default(), |o| o.span_of(key));
    // A foul's respot rule is the fair one when the file has no foul rule.
    let or_fair = |foul: &str, fair: &str| {
        respot.span_of(if respot.items.iter().any(|i| i.key().name == foul) { foul } else { fair })
    };
    RefereeSpans {
        alternate: play.span_of("alternate"),
        on: play.span_of("on"),
        sequence: play.span_of("sequence"),
        nominate: play.span_of("nominate"),
        penalty: penalty.span_of("value"),
        min: penalty.span_of("min"),
        max: penalty.span_of("max"),
        respot: [
            respot.span_of("first-phase"),
            respot.span_of("second-phase"),
            or_fair("first-phase-foul", "first-phase"),
            or_fair("second-phase-foul", "second-phase"),
        ],
        frame: output_span("frame"),
        play_again: play.span_of("play-again-after"),
        foul: output_span("foul"),
        wins: output_span("wins"),
        end: end.span_of("when"),
        tie: tie.span_of("respot"),
        next: tie.span_of("next"),
        draw: tie.span_of("draw"),
    }
}

/// An output line the tie rule needs.
fn missing_line(output: Option<&Section>, key: &str, example: &str, because: &str) -> Diag {
    let at = output.map_or(Span::default(), |o| o.head);
    Diag::error(codes::MISSING, at, format!("the `output` section has no `{key}`"))
        .label(format!("`{key}` is missing here"))
        .help(format!("add `{key}: {example}`: {because}"))
}

fn balls(top: &Block, cx: &mut Cx) -> Option<Vec<Ball>> {
    let sections = top.sections("ball");
    let named = top.named_sections(cx, "ball", "ball");
    let mut out: Vec<Ball> = Vec::new();
    let mut ok = named.len() == sections.len();
    for (s, name) in named {
        let b = Block::of_section(s);
        let value = b.require(cx, "value", "1").and_then(|p| {
            let n = cx.prop_int(p, 0, "the value of the ball")?;
            if n > MAX_VALUE {
                cx.push(
                    Diag::error(
                        codes::TOO_LARGE,
                        p.values_span(),
                        format!("a ball is worth at most {MAX_VALUE} points"),
                    )
                    .label("too large")
                    .help("scores are 64-bit numbers: values are bounded so that no score can overflow"),
                );
                return None;
            }
            Some(n)
        });
        let count = b.prop(cx, "count").map_or(Some(1), |p| {
            let n = cx.prop_int(p, 1, "the number of such balls")?;
            if n > MAX_COUNT {
                cx.push(
                    Diag::error(codes::TOO_LARGE, p.values_span(), format!("at most {MAX_COUNT} balls of a kind"))
                        .label("too many"),
                );
                return None;
            }
            Some(n)
        });
        let cue = b.prop(cx, "cue").map_or(Some(false), |p| cx.flag(p));
        b.finish(cx);
        match (value, count, cue) {
            (Some(value), Some(count), Some(cue)) => {
                out.push(Ball { name: name.value.clone(), value, count: count as u32, cue, head: s.head })
            }
            _ => ok = false,
        }
    }
    if out.len() > MAX_BALLS {
        cx.push(
            Diag::error(codes::TOO_LARGE, sections[MAX_BALLS].head, format!("at most {MAX_BALLS} balls"))
                .label("one too many"),
        );
        return None;
    }
    let cues: Vec<&Ball> = out.iter().filter(|b| b.cue).collect();
    if ok && cues.is_empty() {
        cx.push(
            Diag::error(codes::MISSING, top.head, "no ball is the cue ball")
                .label("no `cue: yes`")
                .help("add `ball \"White\" { value: 0  cue: yes }`"),
        );
        return None;
    }
    if cues.len() > 1 {
        cx.push(
            Diag::error(codes::DUPLICATE, cues[1].head, "two cue balls")
                .label("a second `cue: yes`")
                .note(cues[0].head, "the first cue ball"),
        );
        return None;
    }
    ok.then_some(out)
}

fn ball(e: &Expr, names: &[String], cx: &mut Cx) -> Option<usize> {
    let w = cx.name(e, "a ball")?;
    match names.iter().position(|n| *n == w) {
        Some(i) => {
            crate::check::resolved(Some("ball"), e.span);
            Some(i)
        }
        None => {
            let w = w.to_string();
            cx.unknown(e.span, "a ball", &w, names.iter().map(String::as_str));
            None
        }
    }
}

fn ball_list(p: &Property, names: &[String], cx: &mut Cx) -> Option<Vec<(usize, Span)>> {
    let mut out = Vec::new();
    let mut ok = true;
    for v in &p.values {
        match ball(v, names, cx) {
            Some(b) => out.push((b, v.span)),
            None => ok = false,
        }
    }
    ok.then_some(out)
}

fn input_section(s: Option<&Section>, cx: &mut Cx) -> (Option<String>, Option<Vec<String>>) {
    let Some(s) = s else { return (None, None) };
    let b = Block::of_section(s);
    let mut word = |key: &'static str, example: &str| -> Option<String> {
        b.require(cx, key, example).and_then(|p| {
            let e = cx.one(p, "a string")?;
            let s = cx.string(e, "a string")?;
            if s.value.split_whitespace().next().is_none() {
                cx.push(Diag::error(codes::EMPTY, e.span, format!("`{key}` cannot be empty")).label("no words"));
                return None;
            }
            Some(s.value.clone())
        })
    };
    let no_hit = word("no-hit", "\"WORD\"");
    let again = word("play-again", "\"WORDS\"");
    if let Some(n) = &no_hit {
        if n.split_whitespace().count() != 1 {
            let p = s.items.iter().find(|i| i.key().name == "no-hit").map_or(s.head, |i| i.span());
            cx.push(
                Diag::error(codes::TYPE, p, "`no-hit` must be one word")
                    .label("it is read as the first word of a stroke"),
            );
        }
    }
    b.finish(cx);
    (no_hit, again.map(|a| a.split_whitespace().map(str::to_string).collect()))
}

fn output_section(s: &Section, cx: &mut Cx) -> Option<Wording> {
    let b = Block::of_section(s);
    let frame = b.require(cx, "frame", "\"frame {frame}\"").and_then(|p| cx.template(p));
    let turn = b.require(cx, "turn", "\"{player}'s turn\"").and_then(|p| cx.template(p));
    let in_hand = b.require(cx, "in-hand", "\"{player}'s turn, in-hand\"").and_then(|p| cx.template(p));
    let foul = b.require(cx, "foul", "\"foul\"").and_then(|p| cx.template(p));
    let score = b.require(cx, "score", "\"{first} : {second}\"").and_then(|p| cx.template(p));
    let respot = b.require(cx, "respot", "\"respot {balls}\"").and_then(|p| cx.template(p));
    let tie = b.prop(cx, "tie").map(|p| cx.template(p));
    let draw = b.prop(cx, "draw").map(|p| cx.template(p));
    let wins = b.require(cx, "wins", "\"{player} wins\"").and_then(|p| cx.template(p));
    let between = b.prop(cx, "between").map_or(Some(OutputLine::literal("")), |p| cx.template(p));
    b.finish(cx);
    Some(Wording {
        frame: frame?,
        turn: turn?,
        in_hand: in_hand?,
        foul: foul?,
        score: score?,
        respot: respot?,
        tie: tie.map_or(Some(None), |t| t.map(Some))?,
        draw: draw.map_or(Some(None), |t| t.map(Some))?,
        wins: wins?,
        between: between?,
    })
}

#[cfg(test)]
mod tests {
    use crate::engines::compile;
    use crate::load::load_text;

    /// A tiny game with neutral names: cue ball `Q`, two `A`s alternating
    /// with `X` and `Y`.
    const RULES: &str = r#"
engine: referee
ball "Q" { value: 0 cue: yes }
ball "A" { value: 1 count: 2 }
ball "X" { value: 2 }
ball "Y" { value: 3 }
play { alternate: A  continue: not foul and potted - Q != []  in-hand: Q in potted  play-again-after: foul }
foul "miss" { when: first == [] }
foul "wrong" { when: first != [] and first not in on or potted - Q not in on or Q in potted }
penalty { min: 2 max: 3 value: highest(on + first + potted) }
respot { first-phase: potted - A second-phase: [] second-phase-foul: potted }
end { when: left == 1 and (foul or potted - Q != []) }
tie { respot: table  next: lot  in-hand: yes }
input { no-hit: "-" play-again: "again" }
output { frame: "F{frame}" turn: "{player}" in-hand: "{player}*" foul: "!" score: "{first}-{second}"
         respot: "R {balls:|,}" tie: "=" wins: "W {player}" }
"#;

    /// The driver's hints (`ahead`: a frame's lines up to a blank one) and
    /// `boundary` find the same frame ends on every bundled rule file's
    /// cases.
    #[test]
    fn the_driver_s_hints_find_the_frame_ends_the_boundary_finds() {
        crate::engines::bundled_cases::each("snooker_referee", |top, cx, inputs| {
            let game = super::lower(top, cx).expect("the bundled file compiles");
            inputs.iter().for_each(|text| crate::game::assert_hints_agree(&game, text));
        });
    }

    /// A remembered verdict's key holds what the stroke rules read: the
    /// table when one reads it, `left` as the side of each number it is
    /// compared with, or whole when it is read otherwise.
    #[test]
    fn a_verdict_s_key_holds_what_the_stroke_rules_read() {
        use crate::engines::referee::KeyReads;
        let reads = |rules: &str| {
            let loaded = load_text("t.rules", rules, std::path::Path::new(".")).unwrap();
            let top = crate::check::Block::new(&loaded.items, "the rule file", crate::source::Span::new(0, 0, 0));
            super::lower(&top, &mut crate::check::Cx::new()).expect("compiles").key_reads
        };
        let cuts = |table, cuts: Option<Vec<i64>>| KeyReads { table, left_cuts: cuts };
        assert_eq!(reads(RULES), cuts(false, Some(vec![1])));
        let end = "end { when: left == 1 and (foul or potted - Q != []) }";
        // (never true: `left` is not negative)
        let two =
            RULES.replace(end, "end { when: left == 1 and (foul or potted - Q != []) or 3 >= left and left < 0 }");
        assert_eq!(reads(&two), cuts(false, Some(vec![0, 1, 3])));
        let whole = RULES.replace(end, "end { when: left - 1 == 0 and (foul or potted - Q != []) }");
        assert_eq!(reads(&whole), cuts(false, None));
        // Past eight numbers, `left` is held whole.
        let many = (0..9).map(|n| format!(" or left == {} and left < 0", n + 10)).collect::<String>();
        let many = RULES.replace(end, &format!("end {{ when: left == 1 and (foul or potted - Q != []){many} }}"));
        assert_eq!(reads(&many), cuts(false, None));
        let table = RULES.replace("highest(on + first + potted)", "highest(on + first + potted + (table - table))");
        assert_eq!(reads(&table), cuts(true, Some(vec![1])));
        // The same frames, the same lines, whatever the key holds.
        let input = "2\nP1 P2\nA A\nY Y\nA A X\n-\nX X\nY Y\n\nP3 P4\nA\nX\n-\nagain\nA A X\nY\n";
        let printed = |rules: &str| {
            let (printed, result) = try_run(rules, input);
            (printed, format!("{result:?}"))
        };
        let base = printed(RULES);
        assert!(base.0.contains("W P1") && base.1.contains("frame 2 has not ended"), "{base:?}");
        for other in [&two, &whole, &table, &many] {
            assert_eq!(printed(other), base);
        }
    }

    /// Every bundled rule file's cases print the same lines with its
    /// verdicts' keys narrowed (as loaded) and whole.
    #[test]
    fn narrowed_keys_print_what_whole_keys_print() {
        use crate::engines::referee::KeyReads;
        crate::engines::bundled_cases::each("snooker_referee", |top, cx, inputs| {
            let narrowed = super::lower(top, cx).expect("the bundled file compiles");
            assert!(narrowed.key_reads.left_cuts.is_some(), "the bundled files compare `left` with numbers only");
            let mut whole = super::lower(top, cx).expect("the bundled file compiles");
            whole.key_reads = KeyReads { table: true, left_cuts: None };
            for text in inputs {
                let run = |game: &super::Referee| {
                    let (printed, result) = crate::game::run_text(game, text, &Default::default());
                    (printed, format!("{result:?}"))
                };
                assert_eq!(run(&narrowed), run(&whole));
            }
        });
    }

    fn run(rules: &str, input: &str) -> String {
        let (printed, result) = try_run(rules, input);
        result.unwrap();
        printed
    }

    fn try_run(rules: &str, input: &str) -> (String, Result<(), crate::game::RunError>) {
        let loaded = load_text("t.rules", rules, std::path::Path::new(".")).unwrap();
        let (compiled, diags) = compile(&loaded);
        let game =
            compiled.unwrap_or_else(|| panic!("{:?}", diags.iter().map(|d| &d.message).collect::<Vec<_>>())).game;
        crate::game::run_text(game.as_ref(), input, &Default::default())
    }

    /// The tiny game where every foul ends the frame and costs nothing:
    /// the first foul is a tie at 0-0.
    fn ties_at_once(tie: &str) -> String {
        RULES
            .replace("min: 2 max: 3", "min: 0 max: 0")
            .replace(
                "end { when: left == 1 and (foul or potted - Q != []) }",
                "end { when: foul or left == 1 and potted - Q != [] }",
            )
            .replace("tie { respot: table  next: lot  in-hand: yes }", tie)
    }

    #[test]
    fn a_tie_names_the_next_player_by_lot_or_by_rule() {
        let lot = ties_at_once("tie { respot: table  next: lot  in-hand: yes }");
        let (got, r) = try_run(&lot, "1\nP1 P2\n-\nP2\n-\nP1\n");
        assert!(r.is_err(), "the frame has not ended");
        assert_eq!(got, "F1\nP1*\n!\n0-0\n=\nR A,A,X,Y\nP2*\n!\n0-0\n=\nR A,A,X,Y\nP1*\n");
        let opponent = ties_at_once("tie { respot: table  next: opponent  in-hand: no }");
        let (got, _) = try_run(&opponent, "1\nP1 P2\n-\n-\n");
        assert_eq!(got, "F1\nP1*\n!\n0-0\n=\nR A,A,X,Y\nP2\n!\n0-0\n=\nR A,A,X,Y\nP1\n");
        // The striker plays on after a tie in which both A went down: they
        // are back, and can be potted again.
        let striker = ties_at_once("tie { respot: table  next: striker  in-hand: yes }");
        let (got, _) = try_run(&striker, "1\nP1 P2\nA A A Q\nA A A\n");
        assert_eq!(got, "F1\nP1*\n!\n0-0\n=\nR A,A,X,Y\nP1*\n2-0\n");
    }

    #[test]
    fn a_tie_can_be_a_draw() {
        let draw = ties_at_once("tie { draw: yes }").replace("tie: \"=\"", "draw: \"D\"");
        assert_eq!(run(&draw, "2\nP1 P2\n-\nP3 P4\nA A\n-\n"), "F1\nP1*\n!\n0-0\nD\n\nF2\nP3*\n1-0\n!\n1-0\nW P3\n");
    }

    #[test]
    fn in_hand_and_play_again_follow_their_conditions() {
        let got =
            run(&RULES.replace("in-hand: Q in potted", "in-hand: foul"), "1\nP1 P2\nA A\nY Y\nA A X\n-\nX X\nY Y\n");
        assert_eq!(got, "F1\nP1*\n1-0\n4-0\nR Y\n!\n4-2\nR X\nP2*\n!\n6-2\nP1*\n8-2\n11-2\nW P1\n");
        let never = RULES.replace("play-again-after: foul", "play-again-after: no");
        let (got, r) = try_run(&never, "1\nP1 P2\n-\nagain\n");
        assert_eq!(got, "F1\nP1*\n!\n0-2\nP2\n");
        let Err(crate::game::RunError::Input(e)) = r else { panic!("{r:?}") };
        assert_eq!(e.message, "`again` may not follow this stroke");
    }

    #[test]
    fn a_small_frame_with_a_foul_a_respot_and_a_win() {
        let got = run(RULES, "1\nP1 P2\nA A\nY Y\nA A X\n-\nX X\nY Y\n");
        // A (1), Y (3, respotted), then a foul on the last A potting X
        // (penalty 2, X respotted), P2 hits nothing (X is on: penalty 2), P1
        // pots X, then Y, the last ball.
        assert_eq!(got, "F1\nP1*\n1-0\n4-0\nR Y\n!\n4-2\nR X\nP2\n!\n6-2\nP1\n8-2\n11-2\nW P1\n");
    }

    #[test]
    fn a_minimum_above_the_maximum_is_reported() {
        let broken = RULES.replace("min: 2 max: 3", "min: 5 max: 3");
        let loaded = load_text("t.rules", &broken, std::path::Path::new(".")).unwrap();
        let (compiled, diags) = compile(&loaded);
        assert!(compiled.is_none());
        assert!(diags.iter().any(|d| d.code == "penalty-range"));
    }
}
