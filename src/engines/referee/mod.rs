//! The referee engine: a state machine that follows a frame of a cue sport
//! stroke by stroke and says, after each one, whether it was a foul, the
//! score, which balls come back to the table and who plays next.
//!
//! The mechanism (fixed here): balls with values and counts; a first phase
//! in which, while any `alternate` ball is on the table, a visit alternates
//! between the alternate balls (any number potted in one stroke) and one
//! nominated ball of the `sequence`; then a second phase in which the
//! sequence balls are on one after another; fair points to the striker, the
//! penalty to the opponent; the frame is won by the higher score. Everything
//! else is data from the rule file: the balls, the foul conditions, the
//! penalty formula and its bounds, the nomination default, the respot sets,
//! when a visit goes on, when the cue ball is in hand, when the offender may
//! be asked to play again, which stroke ends the frame and what a tie does
//! (a draw, or a replay after respotting a set and naming the next player),
//! other endings over the frame's state (`ending`: a condition, a winner or
//! a draw, a line), the ball on when the file gives it as an expression
//! (`play { on }`), and every output line's wording. See
//! docs/engines/referee.md.
//!
//! Balls are indices; sets of balls are `u64` bitmasks; rule expressions
//! are closures over an [`Env`] holding the sets `first`, `potted`, `on`,
//! `table` and the numbers of the frame's state, `foul` last
//! (`schema::STATE`, in that order: the sets are `Env::sets[0..4]`, the
//! numbers `Env::ints`, indexed by the constants of `var`).

mod explain;
pub mod lower;
pub(crate) mod memo;
mod read;
mod remaining;
pub(crate) mod schema;
pub(crate) mod words;

use crate::game::records::Counted;
use crate::game::{run_parts, Ahead, Explain, Explanation, Game, Mark, RunOptions, Split};

use crate::expr::{BoolExpr, Env, IntExpr, SetExpr};
use crate::game::{Input, Output, RunError};
use crate::source::Span;
use crate::template::{NoFields, OutputLine};
pub(crate) use memo::KeyReads;
use memo::{Memo, Verdict};
use words::Words;

/// Most balls a rule file may name (one bit each in a set).
pub const MAX_BALLS: usize = 64;
/// The largest score (and count of strokes or visits) the referee keeps:
/// 2^53. Every number an expression reads lies in `0..=MAX_SCORE`, so the
/// expressions' overflow bounds hold; a stroke that takes a score past it
/// stops the run with a limit error.
pub const MAX_SCORE: i64 = 1 << 53;

/// Where each number of the state is in `Env::ints` (the order of
/// `schema::STATE`'s numbers; a test holds them together).
pub(crate) mod var {
    pub(crate) const LEFT: usize = 0;
    pub(crate) const STRIKER: usize = 1;
    pub(crate) const OPPONENT: usize = 2;
    pub(crate) const SCORE: usize = 3;
    pub(crate) const OPPONENT_SCORE: usize = 4;
    pub(crate) const LEAD: usize = 5;
    pub(crate) const LEADER: usize = 6;
    pub(crate) const REMAINING: usize = 7;
    pub(crate) const FOULS: usize = 8;
    pub(crate) const OPPONENT_FOULS: usize = 9;
    pub(crate) const STROKES: usize = 10;
    pub(crate) const VISITS: usize = 11;
    pub(crate) const FOUL: usize = 12;
    /// How many numbers the state has.
    pub(crate) const INTS: usize = 13;
    /// With `count` of balls: the balls of each kind on the table (for
    /// `table` and `on`), then of each kind potted, after the state.
    pub(crate) const TABLE_COUNTS: usize = INTS;
    pub(crate) const POTTED_COUNTS: usize = INTS + super::MAX_BALLS;
    /// The numbers with the counts.
    pub(crate) const ALL: usize = INTS + 2 * super::MAX_BALLS;
}

/// The numbers of the state, in `Env::ints` order.
pub(crate) type Ints = [i64; var::INTS];
/// Most frames in one input.
pub const MAX_FRAMES: u64 = 1 << 40;

/// Which sequence ball is on after an alternate ball when the first ball
/// hit does not name one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nominate {
    Lowest,
    Highest,
    Ball(usize),
}

/// A foul condition.
pub struct Foul {
    pub name: String,
    pub when: BoolExpr,
    /// The `foul` section's header (for explanations).
    pub span: Span,
}

/// Who plays after a replayed tie.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// A line of the input names the player (the lot).
    Lot,
    /// The player who made the stroke that tied the frame.
    Striker,
    /// The other player.
    Opponent,
}

/// What a tie does: a draw, or a replay.
pub struct Tie {
    /// The frame ends drawn.
    pub draw: bool,
    /// Replay: the balls of this set that were on the table before the
    /// stroke are put back as they were.
    pub respot: SetExpr,
    pub next: Next,
    pub in_hand: bool,
}

/// A frame ending of the rule file (an `ending` section): after a stroke
/// the `end` rule does not end the frame, the first ending whose condition
/// holds on the state the stroke left ends it.
pub struct EndingRule {
    pub name: String,
    pub when: BoolExpr,
    /// The winner's number (1: the player named first, 2: the other); any
    /// other value, or `None` (`draw: yes`), is a drawn frame.
    pub winner: Option<IntExpr>,
    pub output: OutputLine<EndingFields<'static>>,
    /// The section's header (for explanations).
    pub span: Span,
}

/// Where the rules an explanation cites are written.
#[derive(Debug, Clone, Default)]
pub struct RefereeSpans {
    pub alternate: Span,
    /// The `on` rule (empty when the file has none).
    pub on: Span,
    pub sequence: Span,
    pub nominate: Span,
    pub penalty: Span,
    pub min: Span,
    pub max: Span,
    /// `first-phase`, `second-phase`, `first-phase-foul`, `second-phase-foul`
    /// (the last two default to the first two).
    pub respot: [Span; 4],
    pub frame: Span,
    pub play_again: Span,
    pub foul: Span,
    pub wins: Span,
    pub end: Span,
    /// The tie's `respot`, `next` and `draw`.
    pub tie: Span,
    pub next: Span,
    pub draw: Span,
}

/// What the frame reader reports to an observer (`explain`), each with the
/// output lines written since the last report.
pub enum Event<'a> {
    /// Frame `frame` has started.
    Frame { frame: u64 },
    /// A stroke is about to be played from this state.
    Before { st: &'a State, stroke: &'a Stroke },
    /// The stroke has been played: what it did and the state after it.
    Stroke { outcome: &'a StrokeResult, striker: usize, st: &'a State, players: [&'a str; 2] },
    /// The offender was asked to play again.
    PlayAgain { player: usize, players: [&'a str; 2] },
    /// After a tie, this player won the lot.
    Lot { player: usize, players: [&'a str; 2] },
}

crate::fields! {
    /// The first line of a frame: its number.
    pub struct FrameFields {
        "frame" frame: i64,
    }
}

crate::fields! {
    /// A line about one player (whose turn it is, who wins).
    pub struct PlayerFields<'a> {
        "player" player: &'a str,
    }
}

crate::fields! {
    /// The score line: each player's score, in the order the frame named them.
    pub struct ScoreFields {
        "first" first: i64,
        "second" second: i64,
    }
}

crate::fields! {
    /// The line of an `ending`: the winner and the other player (both
    /// empty for a draw) and the scores.
    pub struct EndingFields<'a> {
        "player" player: &'a str,
        "loser" loser: &'a str,
        "first" first: i64,
        "second" second: i64,
    }
}

crate::fields! {
    /// The respot line: the balls put back, in ascending value.
    pub struct RespotFields<'a> {
        "balls" balls: &'a [&'a str],
    }
}

/// The output lines.
pub struct Wording {
    pub frame: OutputLine<FrameFields>,
    pub turn: OutputLine<PlayerFields<'static>>,
    pub in_hand: OutputLine<PlayerFields<'static>>,
    pub foul: OutputLine<NoFields>,
    pub score: OutputLine<ScoreFields>,
    pub respot: OutputLine<RespotFields<'static>>,
    /// A replayed tie (required unless ties are draws).
    pub tie: Option<OutputLine<NoFields>>,
    /// A drawn frame (required when ties are draws).
    pub draw: Option<OutputLine<NoFields>>,
    pub wins: OutputLine<PlayerFields<'static>>,
    pub between: OutputLine<NoFields>,
}

/// The lowered rules of a referee game.
pub struct Referee {
    pub names: Vec<String>,
    /// The words of stroke lines: the names, `no_hit`, the first word of
    /// `play_again`.
    pub words: Words,
    pub values: Vec<i64>,
    /// Balls of each kind at the start of a frame (the cue ball: 1).
    pub counts: Vec<u32>,
    pub cue: usize,
    /// Balls of the first phase (bitmask).
    pub alternate: u64,
    /// Balls of the second phase, in the order they are on.
    pub sequence: Vec<usize>,
    pub sequence_mask: u64,
    pub nominate: Nominate,
    pub fouls: Vec<Foul>,
    pub penalty: IntExpr,
    pub penalty_min: i64,
    pub penalty_max: i64,
    /// Balls respotted after a fair stroke of the first phase.
    pub respot_first: SetExpr,
    /// After a foul in the first phase (`None`: `respot_first`).
    pub respot_first_foul: Option<SetExpr>,
    /// After a fair stroke of the second phase.
    pub respot_second: SetExpr,
    /// After a foul in the second phase (`None`: `respot_second`).
    pub respot_second_foul: Option<SetExpr>,
    /// The striker's visit goes on after the stroke.
    pub continues: BoolExpr,
    /// The next player has the cue ball in hand.
    pub in_hand: BoolExpr,
    /// The opponent may ask the striker to play again.
    pub play_again_after: BoolExpr,
    /// The stroke ends the frame (or ties it).
    pub end: BoolExpr,
    pub tie: Tie,
    /// The `ending` sections, in file order.
    pub endings: Vec<EndingRule>,
    /// Some stroke rule reads the frame's state beyond the stroke, the
    /// table and `left` (scores, fouls in a row, ...): verdicts are not
    /// remembered, since their key does not hold that state.
    pub reads_frame: bool,
    /// What a remembered verdict's key holds of the table and `left`.
    pub key_reads: KeyReads,
    /// Some expression reads the frame's state, or the file has endings:
    /// fouls in a row, strokes and visits are kept (else they stay 0, and
    /// a stroke costs nothing more than before they existed).
    pub tracks: bool,
    /// The ball on by rule (`play { on }`), instead of the phases'.
    pub on_rule: Option<SetExpr>,
    /// Some expression counts balls (`count` of `potted`, `on` or
    /// `table`): the counts of each kind follow the state in `Env::ints`.
    pub counts_balls: bool,
    /// Sequence balls that come back after a fair pot following an
    /// alternate ball (the first phase's respot rule, judged at load on the
    /// full table): each alternate ball left may be followed by the most
    /// valuable of them (`remaining`).
    pub comes_back: u64,
    /// Ball indices in ascending value (the order of respot lists).
    pub by_value: Vec<usize>,
    /// The input word for "no ball hit".
    pub no_hit: String,
    /// The input line asking the offender to play again (words).
    pub play_again: Vec<String>,
    pub out: Wording,
    pub spans: RefereeSpans,
}

/// Where a frame stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct State {
    pub counts: Vec<u32>,
    /// The kinds of object balls on the table (the `table` variable).
    pub table: u64,
    /// Object balls on the table (the `left` variable).
    pub left: u32,
    /// In the first phase: an alternate ball was just potted, a sequence
    /// ball is on.
    pub after_alternate: bool,
    pub second_phase: bool,
    pub player: usize,
    pub in_hand: bool,
    pub scores: [i64; 2],
    /// Each player's fouls in a row (a fair stroke of theirs resets them);
    /// this and the next two are kept when `Referee::tracks`.
    pub fouls: [u32; 2],
    /// Strokes played in the frame.
    pub strokes: i64,
    /// Visits begun in the frame.
    pub visits: i64,
    /// The next stroke begins a visit.
    pub visit_over: bool,
}

/// A stroke: the ball hit first (if any) and the balls potted (with
/// repetitions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stroke {
    pub first: Option<usize>,
    pub potted: Vec<usize>,
}

/// How a stroke that ends the frame (`end`) ends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The scores differ: this player wins.
    Win(usize),
    /// Level scores, and ties are draws.
    Draw,
    /// Level scores: the tie's balls are back, the frame goes on.
    Replay,
    /// The `ending` section `rule` ended the frame: won by `winner`, or
    /// drawn (`None`).
    Rule { rule: usize, winner: Option<usize> },
}

/// What a stroke did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StrokeResult {
    pub foul: bool,
    pub points: i64,
    pub penalty: i64,
    /// The kinds of balls respotted: every ball of these kinds potted in
    /// the stroke came back (after a replayed tie: every ball of these
    /// kinds that was on the table before the stroke).
    pub respot: u64,
    /// The visit ends (the other player is at the table).
    pub turn_ends: bool,
    /// The opponent may ask the striker to play again.
    pub play_again: bool,
    /// The stroke ended the frame (`end`), and how.
    pub ending: Option<Ending>,
}

/// A score passed `i64::MAX` (only with penalties near 2^63).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScoreOverflow;

impl Referee {
    /// The state at the start of a frame.
    pub fn start(&self) -> State {
        let mut st = State {
            counts: Vec::new(),
            table: 0,
            left: 0,
            after_alternate: false,
            second_phase: false,
            player: 0,
            in_hand: true,
            scores: [0, 0],
            fouls: [0, 0],
            strokes: 0,
            visits: 0,
            visit_over: true,
        };
        self.restart(&mut st);
        st
    }

    /// Sets `st` to the start of a frame (keeping its allocation).
    pub fn restart(&self, st: &mut State) {
        st.counts.clear();
        st.counts.extend_from_slice(&self.counts);
        st.table = 0;
        st.left = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            if i != self.cue && c > 0 {
                st.table |= 1 << i;
                st.left += c;
            }
        }
        st.after_alternate = false;
        st.second_phase = st.table & self.alternate == 0;
        st.player = 0;
        st.in_hand = true;
        st.scores = [0, 0];
        st.fouls = [0, 0];
        st.strokes = 0;
        st.visits = 0;
        st.visit_over = true;
    }

    /// The balls on for a stroke whose first ball hit is `first`.
    #[inline(always)]
    pub fn on(&self, st: &State, first: Option<usize>) -> u64 {
        // Most strokes of the first phase: the alternate balls, or the
        // sequence ball hit first after one (no call).
        if self.on_rule.is_none() && !st.second_phase {
            if !st.after_alternate {
                return self.alternate;
            }
            if let Some(f) = first {
                if self.sequence_mask >> f & 1 == 1 {
                    return 1 << f;
                }
            }
        }
        self.on_else(st, first)
    }

    /// [`Referee::on`] by rule, in the second phase, or nominated.
    #[inline(never)]
    fn on_else(&self, st: &State, first: Option<usize>) -> u64 {
        if let Some(rule) = &self.on_rule {
            return self.on_by_rule(rule, st, first);
        }
        if st.second_phase {
            return self.sequence.iter().find(|&&b| st.counts[b] > 0).map_or(0, |&b| 1 << b);
        }
        let on_table = self.sequence.iter().copied().filter(|&b| st.counts[b] > 0);
        let pick = match self.nominate {
            Nominate::Ball(b) => Some(b),
            Nominate::Lowest => on_table.min_by_key(|&b| (self.values[b], b)),
            Nominate::Highest => on_table.max_by_key(|&b| (self.values[b], usize::MAX - b)),
        };
        pick.map_or(0, |b| 1 << b)
    }

    /// The ball on by the file's `on` rule, read before the stroke (no
    /// ball potted, `on` and `foul` unknown).
    #[cold]
    fn on_by_rule(&self, rule: &SetExpr, st: &State, first: Option<usize>) -> u64 {
        let sets = [first.map_or(0, |b| 1u64 << b), 0, 0, st.table];
        let ints = self.ints_of(st, st.player, false, false);
        if self.counts_balls {
            let none = Stroke { first, potted: Vec::new() };
            rule.eval(&Env { sets: &sets, ints: &self.with_counts(&ints, &st.counts, &none) })
        } else {
            rule.eval(&Env { sets: &sets, ints: &ints })
        }
    }

    /// The sets the rule expressions read for a stroke from `st`:
    /// `first`, `potted`, `on`, `table`.
    pub fn sets_of(&self, st: &State, s: &Stroke) -> [u64; 4] {
        let first = s.first.map_or(0, |b| 1u64 << b);
        let potted = s.potted.iter().fold(0u64, |m, &b| m | 1 << b);
        [first, potted, self.on(st, s.first), st.table]
    }

    /// The values of the rule expressions' variables for a stroke from
    /// `st` (`foul` unknown yet: 0).
    pub fn env_of(&self, st: &State, s: &Stroke) -> ([u64; 4], Ints) {
        (self.sets_of(st, s), self.ints_of(st, st.player, false, false))
    }

    /// True when one of the foul conditions holds.
    pub fn is_foul(&self, env: &Env) -> bool {
        self.fouls.iter().any(|f| f.when.eval(env))
    }

    /// The respot set that applies after a stroke of this phase.
    pub fn respot_rule(&self, first_phase: bool, foul: bool) -> &SetExpr {
        match (first_phase, foul) {
            (true, false) => &self.respot_first,
            (true, true) => self.respot_first_foul.as_ref().unwrap_or(&self.respot_first),
            (false, false) => &self.respot_second,
            (false, true) => self.respot_second_foul.as_ref().unwrap_or(&self.respot_second),
        }
    }

    /// The numbers of the state (`ints`) followed by the balls of each kind
    /// in `counts` (on the table) and potted by `s`.
    pub(crate) fn with_counts(&self, ints: &Ints, counts: &[u32], s: &Stroke) -> [i64; var::ALL] {
        let mut all = [0; var::ALL];
        all[..var::INTS].copy_from_slice(ints);
        for (k, &c) in counts.iter().enumerate() {
            all[var::TABLE_COUNTS + k] = i64::from(c);
        }
        for &b in &s.potted {
            all[var::POTTED_COUNTS + b] += 1;
        }
        all
    }

    /// The verdict of stroke `s` from `st` (`sets` as [`Referee::sets_of`]
    /// gives them).
    fn judge_stroke(&self, st: &State, s: &Stroke, sets: &[u64; 4], first_phase: bool) -> Verdict {
        let mut ints = self.ints_of(st, st.player, false, false);
        if self.counts_balls {
            let mut all = self.with_counts(&ints, &st.counts, s);
            self.judge(sets, &mut all, first_phase)
        } else {
            self.judge(sets, &mut ints, first_phase)
        }
    }

    /// What the rule expressions say about a stroke whose variables have
    /// these values (`sets`: `first`, `potted`, `on`, `table`; `ints`: the
    /// state with `foul` 0, and the counts when the rules count balls).
    pub fn judge(&self, sets: &[u64; 4], ints: &mut [i64], first_phase: bool) -> Verdict {
        let foul = self.is_foul(&Env { sets, ints });
        ints[var::FOUL] = foul as i64;
        let env = Env { sets, ints };
        let ends = self.end.eval(&env);
        let object_potted = sets[1] & !(1u64 << self.cue);
        Verdict {
            penalty: if foul { self.penalty.eval(&env).clamp(self.penalty_min, self.penalty_max) } else { 0 },
            // A stroke that ends the frame respots nothing of its own.
            respot: if ends { 0 } else { self.respot_rule(first_phase, foul).eval(&env) & object_potted },
            foul,
            ends,
            turn_ends: !self.continues.eval(&env),
            play_again: self.play_again_after.eval(&env),
            in_hand: self.in_hand.eval(&env),
        }
    }

    /// Plays one stroke: updates the state and says what happened. The
    /// stroke must be possible (its balls on the table); the reader checks.
    pub fn stroke(&self, st: &mut State, s: &Stroke) -> Result<StrokeResult, ScoreOverflow> {
        let sets = self.sets_of(st, s);
        let verdict = self.judge_stroke(st, s, &sets, !st.second_phase);
        self.apply(st, s, &sets, &verdict)
    }

    /// [`Referee::stroke`], the verdict looked up in `memo` first.
    #[inline(always)]
    pub fn stroke_memo(&self, st: &mut State, s: &Stroke, memo: &mut Memo) -> Result<StrokeResult, ScoreOverflow> {
        let sets = self.sets_of(st, s);
        let first_phase = !st.second_phase;
        let verdict = if self.reads_frame {
            self.judge_stroke(st, s, &sets, first_phase)
        } else {
            let key = self.key_reads.key(s.first, &sets, st.left, first_phase);
            memo.get(key, || self.judge_stroke(st, s, &sets, first_phase))
        };
        self.apply(st, s, &sets, &verdict)
    }

    /// Plays a stroke whose verdict is known (`sets`: the sets of the
    /// expressions, as [`Referee::sets_of`] gives them).
    #[inline(always)]
    fn apply(&self, st: &mut State, s: &Stroke, sets: &[u64; 4], v: &Verdict) -> Result<StrokeResult, ScoreOverflow> {
        let object_potted = sets[1] & !(1u64 << self.cue);
        let mut out =
            StrokeResult { foul: v.foul, turn_ends: v.turn_ends, play_again: v.play_again, ..StrokeResult::default() };
        let first_phase = !st.second_phase;
        // A replayed tie reads the state before the stroke.
        let tie_ints = (v.ends && !self.tie.draw).then(|| {
            let mut ints = self.ints_of(st, st.player, v.foul, false);
            ints[var::FOUL] = i64::from(v.foul);
            self.with_counts(&ints, &st.counts, s)
        });
        let striker = st.player;
        if self.tracks {
            st.strokes = st.strokes.saturating_add(1);
            if st.visit_over {
                st.visits = st.visits.saturating_add(1);
                st.visit_over = false;
            }
            st.fouls[striker] = if v.foul { st.fouls[striker].saturating_add(1) } else { 0 };
        }
        for &b in &s.potted {
            if b != self.cue {
                st.counts[b] -= 1;
                st.left -= 1;
                if st.counts[b] == 0 {
                    st.table &= !(1 << b);
                }
            }
        }
        let respot = v.respot;
        if respot != 0 {
            for &b in &s.potted {
                if respot >> b & 1 == 1 {
                    st.counts[b] += 1;
                    st.left += 1;
                    st.table |= 1 << b;
                }
            }
        }
        out.respot = respot;
        if v.foul {
            let p = v.penalty;
            out.penalty = p;
            let other = &mut st.scores[1 - st.player];
            *other = other.checked_add(p).filter(|&x| x <= MAX_SCORE).ok_or(ScoreOverflow)?;
        } else {
            let mut points = 0i64;
            for &b in &s.potted {
                points = points.checked_add(self.values[b]).ok_or(ScoreOverflow)?;
            }
            out.points = points;
            let mine = &mut st.scores[st.player];
            *mine = mine.checked_add(points).filter(|&x| x <= MAX_SCORE).ok_or(ScoreOverflow)?;
        }
        st.in_hand = v.in_hand;
        if v.ends {
            let ending = if st.scores[0] != st.scores[1] {
                Ending::Win(if st.scores[0] > st.scores[1] { 0 } else { 1 })
            } else if self.tie.draw {
                Ending::Draw
            } else {
                // The tie's balls are back as they were before the stroke.
                let ints = tie_ints.unwrap_or([0; var::ALL]);
                let back = self.tie.respot.eval(&Env { sets, ints: &ints }) & sets[3];
                for &b in &s.potted {
                    if back >> b & 1 == 1 {
                        st.counts[b] += 1;
                        st.left += 1;
                    }
                }
                st.table |= back;
                out.respot = back;
                st.after_alternate = false;
                st.second_phase = st.table & self.alternate == 0;
                st.player = match self.tie.next {
                    Next::Striker | Next::Lot => striker,
                    Next::Opponent => 1 - striker,
                };
                st.in_hand = self.tie.in_hand;
                st.visit_over = true;
                out.play_again = false;
                Ending::Replay
            };
            out.ending = Some(ending);
            return Ok(out);
        }
        // The next ball on.
        if first_phase {
            let was_after = st.after_alternate;
            let potted_alternate = object_potted & self.alternate != 0;
            st.after_alternate = !out.turn_ends && !was_after && potted_alternate;
            if !st.after_alternate && st.table & self.alternate == 0 {
                st.second_phase = true;
            }
        }
        if out.turn_ends {
            st.player = 1 - st.player;
            st.visit_over = true;
        }
        if !self.endings.is_empty() {
            out.ending = self.ending_rule(st, s, sets, striker, v.foul);
        }
        Ok(out)
    }

    /// The first `ending` whose condition holds on the state a stroke by
    /// `striker` left (`sets`: the stroke's, its `table` replaced by the
    /// table after it), with its winner.
    fn ending_rule(&self, st: &State, s: &Stroke, sets: &[u64; 4], striker: usize, foul: bool) -> Option<Ending> {
        let after = [sets[0], sets[1], sets[2], st.table];
        let ints = self.ints_of(st, striker, foul, true);
        let all;
        let ints: &[i64] = if self.counts_balls {
            all = self.with_counts(&ints, &st.counts, s);
            &all
        } else {
            &ints
        };
        let env = Env { sets: &after, ints };
        let rule = self.endings.iter().position(|e| e.when.eval(&env))?;
        let winner = self.endings[rule].winner.as_ref().and_then(|w| match w.eval(&env) {
            1 => Some(0),
            2 => Some(1),
            _ => None,
        });
        Some(Ending::Rule { rule, winner })
    }

    /// The balls of the kinds in `mask`, `times(kind)` of each, in
    /// ascending value.
    pub fn respot_names(&self, mask: u64, times: impl Fn(usize) -> u32) -> Vec<&str> {
        let mut names = Vec::with_capacity(8);
        self.respot_names_into(&mut names, mask, times);
        names
    }

    /// [`Referee::respot_names`], into `names` (cleared first).
    fn respot_names_into<'s>(&'s self, names: &mut Vec<&'s str>, mask: u64, times: impl Fn(usize) -> u32) {
        names.clear();
        for &b in self.by_value.iter().filter(|&&b| mask >> b & 1 == 1) {
            for _ in 0..times(b) {
                names.push(self.names[b].as_str());
            }
        }
    }

    /// The respot line of a stroke (`names`: a buffer for the balls;
    /// `one`: the line of each kind of ball respotted alone).
    fn respot_line<'s>(
        &'s self,
        buf: &mut Vec<u8>,
        names: &mut Vec<&'s str>,
        one: &Rendered,
        o: &StrokeResult,
        stroke: &Stroke,
        st: &State,
    ) {
        if o.ending == Some(Ending::Replay) {
            self.respot_names_into(names, o.respot, |b| st.counts[b]);
        } else {
            if o.respot.is_power_of_two() {
                let b = o.respot.trailing_zeros() as usize;
                if stroke.potted.iter().filter(|&&p| p == b).count() == 1 {
                    one.write(buf, b);
                    return;
                }
            }
            self.respot_names_into(names, o.respot, |b| stroke.potted.iter().filter(|&&p| p == b).count() as u32);
        }
        self.out.respot.line(buf, &RespotFields { balls: names });
    }
}

/// Lines rendered once and copied each time they are written.
#[derive(Default)]
struct Rendered {
    text: Vec<u8>,
    /// Where each line is in `text`.
    at: Vec<(usize, usize)>,
}

impl Rendered {
    fn clear(&mut self) {
        self.text.clear();
        self.at.clear();
    }

    /// Adds the line `render` writes (its index: the number of lines before).
    fn push(&mut self, render: impl FnOnce(&mut Vec<u8>)) {
        let start = self.text.len();
        render(&mut self.text);
        self.at.push((start, self.text.len()));
    }

    #[inline(always)]
    fn write(&self, buf: &mut Vec<u8>, i: usize) {
        let (start, end) = self.at[i];
        buf.extend_from_slice(&self.text[start..end]);
    }
}

/// A frame's four turn lines (each player, from in hand or not), rendered
/// once when the players are known.
#[derive(Default)]
struct TurnLines(Rendered);

impl TurnLines {
    fn render(&mut self, r: &Referee, players: [&str; 2]) {
        self.0.clear();
        for name in players {
            for t in [&r.out.turn, &r.out.in_hand] {
                self.0.push(|buf| t.line(buf, &PlayerFields { player: name }));
            }
        }
    }

    #[inline(always)]
    fn write(&self, buf: &mut Vec<u8>, player: usize, in_hand: bool) {
        self.0.write(buf, 2 * player + in_hand as usize);
    }
}

/// Frames are independent cases, but read by refereeing them: the driver
/// cuts the input between frames where blank lines stand and runs the parts
/// on several threads.
impl Split for Referee {
    type Reader = Counted;
    /// The verdicts of strokes, kept from part to part of a thread.
    type Scratch = memo::Memo;

    fn boundary(&self, frames: &mut Counted, within: &mut u64, line: &[u8]) -> Mark {
        self.frame_boundary(frames, within, line)
    }

    /// Inside a frame, only a blank line ends it.
    fn ahead(&self, within: u64) -> Ahead {
        if within == 1 {
            Ahead::UntilBlank
        } else {
            Ahead::Unknown
        }
    }

    fn run_part(
        &self,
        input: &mut Input,
        frames: &mut Counted,
        memo: &mut memo::Memo,
        limit: Option<u64>,
        out: &mut Output,
        _: &RunOptions,
    ) -> Result<u64, RunError> {
        self.run_frames::<false>(input, frames, limit, memo, out, &mut |_, _| Ok(()))
    }
}

/// On bad input, the lines of the frames before it (and of the current
/// frame up to it) are written before the error is returned.
impl Game for Referee {
    fn run(&self, input: &mut Input, out: &mut Output, opts: &RunOptions) -> Result<(), RunError> {
        run_parts(self, input, out, opts)
    }

    fn explainer(&self) -> Option<&dyn Explain> {
        Some(self)
    }
}

impl Explain for Referee {
    fn explain(
        &self,
        input: &mut Input,
        _: &RunOptions,
        each: &mut dyn FnMut(Explanation) -> Result<(), RunError>,
    ) -> Result<(), RunError> {
        Referee::explain(self, input, each)
    }
}
