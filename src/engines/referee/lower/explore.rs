//! `frame-stuck`, decided: every table state a frame can reach (the balls
//! of each kind on the table and where the phases stand), explored from
//! the start of a frame over every stroke the input can give there (the
//! ball hit first or none, any balls of the table potted, the cue ball
//! or not), with the file's own fouls, respots, `end`, tie and `ending`
//! sections. A file is refused when a reachable stroke leaves no object
//! ball on the table without ending the frame (the run would stop there),
//! or when from some reachable state no sequence of strokes ends the frame.
//!
//! The numbers of the frame (scores, fouls in a row, strokes, visits, the
//! striker) are not part of a state: a rule that reads them is judged at
//! a few sample values ([`samples`]), a stroke's outcomes being those of
//! any sample. `end` at level scores replays a tie (unless ties are draws)
//! and otherwise ends the frame: both are followed.

use std::collections::{HashMap, VecDeque};

use foldhash::fast::FixedState;

use super::super::{var, Referee, State, Stroke};
use crate::check::Cx;
use crate::diag::codes;
use crate::diag::Diag;
use crate::expr::Env;
use crate::source::Span;

/// Most table states explored; past it, `stuck-undecided`.
pub(super) const MAX_STATES: usize = 100_000;
/// Most strokes judged (a stroke per ball hit first, set of kinds potted
/// and sample of the numbers); past it, `stuck-undecided`.
pub(super) const MAX_STROKES: u64 = 4_000_000;
/// Most lists of strokes kept with their outcomes once sorted (states
/// that differ only in numbers no rule reads judge every stroke alike),
/// and the longest list kept: the memo holds 2 x 2 lists of 104-byte
/// outcomes, 14 MiB at most. A state with every kind of nine on the table
/// judges 10 x 2^9 x 2 strokes (snooker-plus.rules): those lists must fit
/// (`check` of that file 54 -> 28 ms when they did).
const MEMO: usize = 2;
const MEMO_LEN: usize = 1 << 15;

/// The numbers rules may read, as samples: the start of a frame, and
/// (when some rule reads them) each player striking level, far ahead and
/// far behind, after many fouls, strokes and visits.
fn samples(reads_numbers: bool) -> Vec<[i64; 7]> {
    // striker, score, opponent_score, fouls, opponent_fouls, strokes, visits
    const M: i64 = 1_000_000;
    let mut out = vec![[1, 0, 0, 0, 0, 1, 1]];
    if reads_numbers {
        out.extend([[2, 0, 0, 0, 0, 2, 2], [1, M, 0, M, M, M, M], [2, 0, M, M, 0, M, M], [1, 0, M, 0, M, M, M]]);
    }
    out
}

/// The expression variables for a stroke from `st`: `sample`'s numbers,
/// the table's counts, `potted`'s counts (`m`: balls of each kind).
fn ints(r: &Referee, st: &State, sample: &[i64; 7], m: &[u32]) -> [i64; var::ALL] {
    let mut all = [0; var::ALL];
    let [striker, score, theirs, fouls, their_fouls, strokes, visits] = *sample;
    all[var::LEFT] = i64::from(st.left);
    all[var::STRIKER] = striker;
    all[var::OPPONENT] = 3 - striker;
    all[var::SCORE] = score;
    all[var::OPPONENT_SCORE] = theirs;
    all[var::LEAD] = (score - theirs).abs();
    let (one, two) = if striker == 1 { (score, theirs) } else { (theirs, score) };
    all[var::LEADER] = i64::from(one > two) + 2 * i64::from(two > one);
    all[var::REMAINING] = r.remaining(st);
    all[var::FOULS] = fouls;
    all[var::OPPONENT_FOULS] = their_fouls;
    all[var::STROKES] = strokes;
    all[var::VISITS] = visits;
    for (k, &c) in st.counts.iter().enumerate() {
        all[var::TABLE_COUNTS + k] = i64::from(c);
        all[var::POTTED_COUNTS + k] = i64::from(m[k]);
    }
    all
}

/// What the rules read beyond the table: the frame's numbers (then they
/// are sampled), and in an `ending` the stroke (then strokes that differ
/// only there are not merged).
#[derive(Clone, Copy)]
pub(super) struct Reads {
    pub numbers: bool,
    pub stroke: bool,
}

/// A state's key, written into `k`: the balls of each kind, then the
/// phase flags.
fn key_into(st: &State, k: &mut Vec<u32>) {
    k.clear();
    k.extend_from_slice(&st.counts);
    k.push(u32::from(st.after_alternate) | u32::from(st.second_phase) << 1);
}

/// `st` copied into `into`, reusing its allocation.
fn copy_state(into: &mut State, st: &State) {
    let mut counts = std::mem::take(&mut into.counts);
    counts.clone_from(&st.counts);
    *into = State { counts, ..*st };
}

/// How a state was first reached: the state before, the ball hit first
/// and the number of balls of each kind potted.
type Parent = (usize, Option<usize>, Box<[u32]>);

/// `stroke` potting `m[b]` balls of each kind `b`.
fn with_balls(stroke: &Stroke, m: &[u32]) -> Stroke {
    let mut one = stroke.clone();
    for (b, &n) in m.iter().enumerate() {
        one.potted.extend(std::iter::repeat_n(b, n as usize));
    }
    one
}

/// A state's strokes sorted by what is read of them, their verdict and
/// their sample, each outcome once (the first of its run in that order):
/// the one order the explorer follows strokes in, memo or not.
fn sort_dedup(outs: &mut Vec<Outcome>) {
    outs.sort_unstable_by_key(|o| (o.0, o.2, o.3));
    outs.dedup_by_key(|o| (o.0, o.2, o.3));
}

/// What went wrong, if anything.
pub(super) enum Found {
    /// Every reachable state can end.
    Fine,
    /// A stroke from state `from` leaves an empty table: the stroke, its
    /// foul, the respot rule's index in `RefereeSpans::respot`.
    Emptied { from: usize, stroke: Stroke, foul: bool, rule: usize },
    /// From state `at`, no strokes end the frame; the respot rules used
    /// from the states it leads to.
    Trapped { at: usize, rules: [bool; 4] },
    /// Past a limit: how many states and strokes were explored.
    Undecided { states: usize, strokes: u64 },
}

/// What the rules say of a stroke.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Verdict {
    foul: bool,
    ends: bool,
    /// The kinds put back: by the respot rule, or by a replayed tie.
    back: u64,
    turn_ends: bool,
}

/// A stroke judged: what is read of it, its sets, its verdict, the sample,
/// the ball hit first.
type Outcome = ([u64; 4], [u64; 4], Verdict, usize, Option<usize>);

/// The graph of table states.
pub(super) struct Explorer<'r> {
    r: &'r Referee,
    pub states: Vec<State>,
    index: HashMap<Vec<u32>, usize, FixedState>,
    /// How each state was first reached: the state before and the stroke
    /// (the ball hit first, and the balls potted of each kind: as a list,
    /// thousands of balls of a kind made each state hold kilobytes).
    pub parent: Vec<Option<Parent>>,
    next: Vec<Vec<usize>>,
    can_end: Vec<bool>,
    /// The respot rules (by index) some stroke from the state used.
    used: Vec<[bool; 4]>,
    samples: Vec<[i64; 7]>,
    reads: Reads,
    strokes: u64,
    /// Buffers reused from stroke to stroke (the allocations are kept):
    /// the strokes of a state judged, a state's key, the state after a
    /// stroke.
    outs: Vec<Outcome>,
    key: Vec<u32>,
    after: Option<State>,
    /// The last lists of a state's strokes judged, each with its outcomes
    /// as [`Self::follow_all`] sorts them: the same list is sorted once.
    memo: VecDeque<(Vec<Outcome>, Vec<Outcome>)>,
}

impl<'r> Explorer<'r> {
    pub(super) fn new(r: &'r Referee, reads: Reads) -> Self {
        Explorer {
            r,
            states: Vec::new(),
            index: HashMap::default(),
            parent: Vec::new(),
            next: Vec::new(),
            can_end: Vec::new(),
            used: Vec::new(),
            samples: samples(reads.numbers),
            reads,
            strokes: 0,
            outs: Vec::new(),
            key: Vec::new(),
            after: None,
            memo: VecDeque::new(),
        }
    }

    /// The index of state `st`, added when new (`parent`: how it was
    /// reached, asked only then).
    fn add(&mut self, st: &State, parent: impl FnOnce() -> Option<Parent>) -> usize {
        key_into(st, &mut self.key);
        if let Some(&i) = self.index.get(self.key.as_slice()) {
            return i;
        }
        let i = self.states.len();
        self.index.insert(self.key.clone(), i);
        self.states.push(st.clone());
        self.parent.push(parent());
        self.next.push(Vec::new());
        self.can_end.push(false);
        self.used.push([false; 4]);
        i
    }

    /// Explores every state a frame can reach, and says what is wrong.
    pub(super) fn run(&mut self) -> Found {
        self.add(&self.r.start(), || None);
        let mut todo = VecDeque::from([0]);
        while let Some(i) = todo.pop_front() {
            if let Some(found) = self.expand(i, &mut todo) {
                return found;
            }
            if self.states.len() > MAX_STATES || self.strokes > MAX_STROKES {
                return Found::Undecided { states: self.states.len(), strokes: self.strokes };
            }
        }
        self.trapped()
    }

    /// Every stroke from state `i`: its successors queued, an emptied
    /// table reported.
    fn expand(&mut self, i: usize, todo: &mut VecDeque<usize>) -> Option<Found> {
        let r = self.r;
        let st = self.states[i].clone();
        let kinds: Vec<usize> = (0..r.names.len()).filter(|&b| st.table >> b & 1 == 1).collect();
        let firsts: Vec<Option<usize>> = std::iter::once(None).chain(kinds.iter().map(|&b| Some(b))).collect();
        let cue = 1u64 << r.cue;
        let zeros = vec![0u32; r.names.len()];
        // Strokes whose outcome differs only where nothing reads it are
        // followed once: (what is read, the stroke's sets, its verdict, the
        // sample).
        let mut outs = std::mem::take(&mut self.outs);
        outs.clear();
        let mut batches = false;
        for s in 0..self.samples.len() {
            let mut base = ints(r, &st, &self.samples[s], &zeros);
            for &first in &firsts {
                let first_set = first.map_or(0, |b| 1u64 << b);
                let on = match &r.on_rule {
                    Some(rule) => rule.eval(&Env { sets: &[first_set, 0, 0, st.table], ints: &base }),
                    None => r.on(&st, first),
                };
                // Every set of kinds of the table (its submasks, down to
                // the empty one), with and without the cue ball.
                let mut mask = st.table;
                loop {
                    for potted in [mask, mask | cue] {
                        self.strokes += 1;
                        if self.strokes > MAX_STROKES {
                            return None;
                        }
                        let sets = [first_set, potted, on, st.table];
                        if r.counts_balls {
                            if let Some(found) = self.counted(i, &st, (s, &base), &sets, first, todo) {
                                return Some(found);
                            }
                            continue;
                        }
                        let v = self.verdict(&st, &sets, &mut base);
                        let seen = if self.reads.stroke { sets } else { [0, potted & !cue, 0, 0] };
                        outs.push((seen, sets, v, s, first));
                        if outs.len() >= 1 << 16 {
                            // Memory stays bounded: a batch is followed now.
                            batches = true;
                            if let Some(found) = self.follow_all(i, &st, &mut outs, todo) {
                                return Some(found);
                            }
                        }
                    }
                    if mask == 0 {
                        break;
                    }
                    mask = (mask - 1) & st.table;
                }
            }
        }
        let found = if batches {
            self.follow_all(i, &st, &mut outs, todo)
        } else {
            self.sort_outs(&mut outs);
            self.follow_sorted(i, &st, &mut outs, todo)
        };
        self.outs = outs;
        found
    }

    /// Follows the strokes of `outs` (each outcome once), and empties it.
    fn follow_all(
        &mut self,
        i: usize,
        st: &State,
        outs: &mut Vec<Outcome>,
        todo: &mut VecDeque<usize>,
    ) -> Option<Found> {
        sort_dedup(outs);
        self.follow_sorted(i, st, outs, todo)
    }

    /// `outs` (a state's strokes, all in one list) sorted and deduplicated
    /// as [`Self::follow_all`] does, by the memo when the same list was
    /// sorted before (the sort is deterministic: the same list, the same
    /// outcome).
    fn sort_outs(&mut self, outs: &mut Vec<Outcome>) {
        if outs.len() > MEMO_LEN {
            sort_dedup(outs);
            return;
        }
        if let Some((_, sorted)) = self.memo.iter().find(|(raw, _)| raw == outs) {
            outs.clone_from(sorted);
            return;
        }
        let raw = outs.clone();
        sort_dedup(outs);
        if self.memo.len() == MEMO {
            self.memo.pop_front();
        }
        self.memo.push_back((raw, outs.clone()));
    }

    /// Follows the strokes of `outs` (sorted, each outcome once), and
    /// empties it.
    fn follow_sorted(
        &mut self,
        i: usize,
        st: &State,
        outs: &mut Vec<Outcome>,
        todo: &mut VecDeque<usize>,
    ) -> Option<Found> {
        for k in 0..outs.len() {
            let (_, sets, v, s, first) = outs[k];
            if let Some(found) = self.outcomes(i, st, (s, &sets), v, first, todo) {
                outs.clear();
                return Some(found);
            }
        }
        outs.clear();
        None
    }

    /// What the rules say of a stroke with these sets (`all`: the numbers,
    /// `foul` not yet known).
    fn verdict(&self, st: &State, sets: &[u64; 4], all: &mut [i64; var::ALL]) -> Verdict {
        let r = self.r;
        all[var::FOUL] = 0;
        let foul = r.is_foul(&Env { sets, ints: all });
        all[var::FOUL] = i64::from(foul);
        let env = Env { sets, ints: all };
        if r.end.eval(&env) {
            let back = if r.tie.draw { 0 } else { r.tie.respot.eval(&env) & st.table };
            return Verdict { foul, ends: true, back, turn_ends: true };
        }
        let objects = sets[1] & !(1u64 << r.cue);
        let back = r.respot_rule(!st.second_phase, foul).eval(&env) & objects;
        Verdict { foul, ends: false, back, turn_ends: !r.continues.eval(&env) }
    }

    /// With `count` in the rules, each number of balls potted is judged
    /// on its own.
    fn counted(
        &mut self,
        i: usize,
        st: &State,
        (s, base): (usize, &[i64; var::ALL]),
        sets: &[u64; 4],
        first: Option<usize>,
        todo: &mut VecDeque<usize>,
    ) -> Option<Found> {
        let mut counts = Counts::new(self.r, sets[1]);
        while let Some(m) = counts.next(st, &mut self.strokes) {
            if self.states.len() > MAX_STATES {
                // One state's strokes reach more states than the limit
                // (balls of two kinds by the thousand: a million numbers
                // potted): `run` stops at its next look.
                return None;
            }
            let mut all = *base;
            for (k, &c) in m.iter().enumerate() {
                all[var::POTTED_COUNTS + k] = i64::from(c);
            }
            let v = self.verdict(st, sets, &mut all);
            let found = self.follow_one(i, st, (s, sets), v, first, m, todo);
            if found.is_some() {
                return found;
            }
        }
        None
    }

    /// The states a stroke with verdict `v` leads to, for every number of
    /// balls of each kind it pots.
    fn outcomes(
        &mut self,
        i: usize,
        st: &State,
        (s, sets): (usize, &[u64; 4]),
        v: Verdict,
        first: Option<usize>,
        todo: &mut VecDeque<usize>,
    ) -> Option<Found> {
        let mut counts = Counts::new(self.r, sets[1]);
        while let Some(m) = counts.next(st, &mut self.strokes) {
            if self.states.len() > MAX_STATES {
                // As in `counted`.
                return None;
            }
            let found = self.follow_one(i, st, (s, sets), v, first, m, todo);
            if found.is_some() {
                return found;
            }
        }
        None
    }

    /// One stroke (`first`: the ball hit first; `m`: the balls of each
    /// kind it pots) with verdict `v`.
    #[allow(clippy::too_many_arguments)]
    fn follow_one(
        &mut self,
        i: usize,
        st: &State,
        (s, sets): (usize, &[u64; 4]),
        v: Verdict,
        first: Option<usize>,
        m: &[u32],
        todo: &mut VecDeque<usize>,
    ) -> Option<Found> {
        let mut after = self.after.take().unwrap_or_else(|| st.clone());
        copy_state(&mut after, st);
        let found = self.step(i, st, &mut after, (s, sets), v, (first, m), todo);
        self.after = Some(after);
        found
    }

    /// [`Self::follow_one`] with `after` a copy of `st`.
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        i: usize,
        st: &State,
        after: &mut State,
        (s, sets): (usize, &[u64; 4]),
        v: Verdict,
        (first, m): (Option<usize>, &[u32]),
        todo: &mut VecDeque<usize>,
    ) -> Option<Found> {
        let r = self.r;
        for (b, &n) in m.iter().enumerate() {
            if b == r.cue || n == 0 || v.back >> b & 1 == 1 {
                continue;
            }
            after.counts[b] -= n;
            after.left -= n;
            if after.counts[b] == 0 {
                after.table &= !(1 << b);
            }
        }
        if v.ends {
            self.can_end[i] = true;
            if !r.tie.draw {
                // Level scores: the tie's balls back, the frame goes on.
                after.after_alternate = false;
                after.second_phase = after.table & r.alternate == 0;
                self.follow(i, after, (first, m), todo);
            }
            return None;
        }
        let rule = usize::from(st.second_phase) + 2 * usize::from(v.foul);
        if v.back != 0 {
            self.used[i][rule] = true;
        }
        if !st.second_phase {
            after.after_alternate = !v.turn_ends && !st.after_alternate && sets[1] & r.alternate != 0;
            if !after.after_alternate && after.table & r.alternate == 0 {
                after.second_phase = true;
            }
        }
        if !r.endings.is_empty() {
            let mut later = ints(r, after, &self.samples[s], m);
            later[var::FOUL] = i64::from(v.foul);
            let env = Env { sets: &[sets[0], sets[1], sets[2], after.table], ints: &later };
            if r.endings.iter().any(|e| e.when.eval(&env)) {
                self.can_end[i] = true;
                return None;
            }
        }
        if after.left == 0 {
            let stroke = with_balls(&Stroke { first, potted: Vec::new() }, m);
            return Some(Found::Emptied { from: i, stroke, foul: v.foul, rule });
        }
        self.follow(i, after, (first, m), todo);
        None
    }

    /// An edge from state `i` to `after` by the stroke hitting `first` and
    /// potting `m`, queued when new.
    fn follow(&mut self, i: usize, after: &State, (first, m): (Option<usize>, &[u32]), todo: &mut VecDeque<usize>) {
        let before = self.states.len();
        let j = self.add(after, || Some((i, first, m.into())));
        if j == before {
            todo.push_back(j);
        }
        if !self.next[i].contains(&j) {
            self.next[i].push(j);
        }
    }

    /// The first state (in the order found: a shortest way there) from
    /// which no strokes end the frame.
    fn trapped(&self) -> Found {
        let n = self.states.len();
        let mut back: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, next) in self.next.iter().enumerate() {
            for &j in next {
                back[j].push(i);
            }
        }
        let mut ends = self.can_end.clone();
        let mut todo: Vec<usize> = (0..n).filter(|&i| ends[i]).collect();
        while let Some(j) = todo.pop() {
            for &i in &back[j] {
                if !ends[i] {
                    ends[i] = true;
                    todo.push(i);
                }
            }
        }
        let Some(at) = (0..n).find(|&i| !ends[i]) else { return Found::Fine };
        // The respot rules used from the states reachable from there.
        let mut rules = [false; 4];
        let mut seen = vec![false; n];
        let mut todo = vec![at];
        while let Some(i) = todo.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            for (k, used) in self.used[i].iter().enumerate() {
                rules[k] |= used;
            }
            todo.extend(&self.next[i]);
        }
        Found::Trapped { at, rules }
    }

    /// The strokes from the start of a frame to state `i`, as input lines.
    pub(super) fn path(&self, mut i: usize) -> Vec<String> {
        let mut lines = Vec::new();
        while let Some((p, first, m)) = &self.parent[i] {
            lines.push(self.line(&with_balls(&Stroke { first: *first, potted: Vec::new() }, m)));
            i = *p;
        }
        lines.reverse();
        lines
    }

    /// A stroke as its input line.
    pub(super) fn line(&self, s: &Stroke) -> String {
        let r = self.r;
        let mut words = vec![s.first.map_or(r.no_hit.as_str(), |b| r.names[b].as_str())];
        words.extend(s.potted.iter().map(|&b| r.names[b].as_str()));
        words.join(" ")
    }
}

/// Refuses a file whose frames can get stuck (`frame-stuck`), or says that
/// the exploration stopped at its limits (`stuck-undecided`).
pub(super) fn check(cx: &mut Cx, r: &Referee, reads: Reads, endings: &[Span]) {
    let mut x = Explorer::new(r, reads);
    let found = x.run();
    let sp = &r.spans;
    let shown = |lines: Vec<String>| {
        if lines.is_empty() {
            return "at the start of a frame".to_string();
        }
        let n = lines.len();
        let mut quoted: Vec<String> = lines.into_iter().take(12).map(|l| format!("`{l}`")).collect();
        if n > 12 {
            quoted.push(format!("... ({n} strokes)"));
        }
        format!("after {}", quoted.join(", "))
    };
    let keys = ["first-phase", "second-phase", "first-phase-foul", "second-phase-foul"];
    let help = "add an `ending` for that state (e.g. `ending \"cleared\" { when: left == 0  winner: leader  \
                output: \"{player} wins\" }`), put a ball back, or let `end` hold there";
    match found {
        Found::Fine => {}
        Found::Emptied { from, stroke, foul, rule } => {
            let what = if foul { "a foul" } else { "a fair stroke" };
            let mut d = Diag::error(
                codes::FRAME_STUCK,
                sp.end,
                format!(
                    "the frame can get stuck: {}, {what} `{}` leaves no object ball on the table, and nothing ends \
                     the frame",
                    shown(x.path(from)),
                    x.line(&stroke)
                ),
            )
            .label("does not hold for that stroke")
            .note(sp.respot[rule], format!("`{}` puts none of its balls back", keys[rule]));
            for &e in endings {
                d = d.note(e, "does not hold after it");
            }
            cx.push(d.help(help));
        }
        Found::Trapped { at, rules } => {
            let st = &x.states[at];
            let table = r.respot_names(st.table, |b| st.counts[b]).join(" ");
            let mut d = Diag::error(
                codes::FRAME_STUCK,
                sp.end,
                format!(
                    "the frame can get stuck: {}, the table holds {table}, and no strokes from there can end the \
                     frame",
                    shown(x.path(at))
                ),
            )
            .label("never holds from there");
            if r.on_rule.is_some() {
                d = d.note(sp.on, "the balls on from there");
            }
            for (k, _) in rules.iter().enumerate().filter(|(_, u)| **u) {
                d = d.note(sp.respot[k], format!("`{}` puts balls back from there", keys[k]));
            }
            for &e in endings {
                d = d.note(e, "never holds from there");
            }
            cx.push(d.help(help));
        }
        Found::Undecided { states, strokes } => {
            cx.push(
                Diag::warning(
                    codes::STUCK_UNDECIDED,
                    sp.end,
                    format!(
                        "whether a frame can get stuck is not decided: the search stopped at {states} table states \
                         and {strokes} strokes (limits {MAX_STATES} and {MAX_STROKES})"
                    ),
                )
                .label("not proved to end every frame")
                .help(
                    "a stroke that leaves no object ball on the table without ending the frame stops the run \
                     (exit 8); fewer kinds of ball on the table at once keep the search within its limits",
                ),
            );
        }
    }
}

/// Every number of balls of each kind of a stroke's `potted` (1 up to those
/// on the table; the cue ball once), one after another, each counted as a
/// stroke: an odometer over the kinds, so that memory is one number per
/// kind however many strokes there are.
struct Counts {
    kinds: Vec<usize>,
    m: Vec<u32>,
    started: bool,
    done: bool,
}

impl Counts {
    fn new(r: &Referee, potted: u64) -> Counts {
        let kinds: Vec<usize> = (0..r.names.len()).filter(|&b| potted >> b & 1 == 1 && b != r.cue).collect();
        let mut m = vec![0u32; r.names.len()];
        for &b in &kinds {
            m[b] = 1;
        }
        m[r.cue] = u32::from(potted >> r.cue & 1 == 1);
        Counts { kinds, m, started: false, done: false }
    }

    /// The next numbers, counted in `strokes`; none after the last, or
    /// after the one that takes `strokes` past [`MAX_STROKES`].
    fn next(&mut self, st: &State, strokes: &mut u64) -> Option<&[u32]> {
        if self.done {
            return None;
        }
        if self.started {
            let mut j = 0;
            loop {
                let Some(&b) = self.kinds.get(j) else {
                    self.done = true;
                    return None;
                };
                if self.m[b] < st.counts[b] {
                    self.m[b] += 1;
                    break;
                }
                self.m[b] = 1;
                j += 1;
            }
        }
        self.started = true;
        *strokes += 1;
        self.done = *strokes > MAX_STROKES;
        Some(&self.m)
    }
}
