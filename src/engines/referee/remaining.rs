//! `remaining`, the points still on the table, and the numbers of the
//! frame's state that the rule expressions read (`Env::ints`).

use super::{var, Ints, Referee, State, Stroke, MAX_SCORE};
use crate::expr::Env;

impl Referee {
    /// The points still on the table (`remaining`): the most that fair
    /// pots can still score, other strokes between them scoring nothing.
    /// Every object ball on the table once at its value; and, while
    /// alternate balls are on the table, each of them (and the ball on
    /// after one just potted) may be followed by the most valuable sequence
    /// ball on the table that comes back after such a pot. Right after an
    /// alternate ball with no sequence ball left on the table, no ball can
    /// follow it: the frame goes on to the alternate balls only if some
    /// stroke that pots nothing does not end it there (else 0).
    pub fn remaining(&self, st: &State) -> i64 {
        let mut sum = 0i64;
        let mut best = 0i64;
        let mut alternates = i64::from(st.after_alternate);
        let mut m = st.table;
        while m != 0 {
            let b = m.trailing_zeros() as usize;
            m &= m - 1;
            let (n, v) = (i64::from(st.counts[b]), self.values[b]);
            sum += n * v;
            if self.alternate >> b & 1 == 1 {
                alternates += n;
            } else if self.comes_back >> b & 1 == 1 {
                best = best.max(v);
            }
        }
        if st.after_alternate && st.table & self.sequence_mask == 0 && self.nothing_goes_on(st, sum) {
            return 0;
        }
        sum + alternates * best
    }

    /// Whether every stroke from `st` that pots nothing (the cue ball
    /// hitting nothing, or hitting one ball on the table) ends the frame by
    /// `end` (`remaining` read as `sum`, the value of the balls left).
    #[cold]
    fn nothing_goes_on(&self, st: &State, sum: i64) -> bool {
        let ints = self.ints_given(st, st.player, false, false, sum);
        let firsts = std::iter::once(None).chain((0..self.names.len()).filter(|&b| st.table >> b & 1 == 1).map(Some));
        for first in firsts {
            let stroke = Stroke { first, potted: Vec::new() };
            let mut sets = [first.map_or(0, |b| 1u64 << b), 0, 0, st.table];
            let mut all = self.with_counts(&ints, &st.counts, &stroke);
            sets[2] = match &self.on_rule {
                Some(rule) => rule.eval(&Env { sets: &sets, ints: &all }),
                None => self.on(st, first),
            };
            all[var::FOUL] = i64::from(self.is_foul(&Env { sets: &sets, ints: &all }));
            if !self.end.eval(&Env { sets: &sets, ints: &all }) {
                return false;
            }
        }
        true
    }

    /// The numbers of the state for a stroke by `striker` (`foul`: the
    /// stroke is one). Before the stroke (`played` false) `strokes` and
    /// `visits` count the stroke and its visit; after it (in an `ending`)
    /// every number is as the stroke left it.
    pub(crate) fn ints_of(&self, st: &State, striker: usize, foul: bool, played: bool) -> Ints {
        self.ints_given(st, striker, foul, played, self.remaining(st))
    }

    /// [`Referee::ints_of`] with `remaining` given.
    fn ints_given(&self, st: &State, striker: usize, foul: bool, played: bool, remaining: i64) -> Ints {
        let (mine, theirs) = (st.scores[striker], st.scores[1 - striker]);
        let leader = match st.scores[0].cmp(&st.scores[1]) {
            std::cmp::Ordering::Greater => 1,
            std::cmp::Ordering::Less => 2,
            std::cmp::Ordering::Equal => 0,
        };
        let (strokes, visits) = if played {
            (st.strokes, st.visits)
        } else {
            (st.strokes.saturating_add(1), st.visits.saturating_add(i64::from(st.visit_over)))
        };
        let mut ints = [0; var::INTS];
        ints[var::LEFT] = i64::from(st.left);
        ints[var::STRIKER] = striker as i64 + 1;
        ints[var::OPPONENT] = 2 - striker as i64;
        ints[var::SCORE] = mine;
        ints[var::OPPONENT_SCORE] = theirs;
        ints[var::LEAD] = (mine - theirs).abs();
        ints[var::LEADER] = leader;
        ints[var::REMAINING] = remaining;
        ints[var::FOULS] = i64::from(st.fouls[striker]);
        ints[var::OPPONENT_FOULS] = i64::from(st.fouls[1 - striker]);
        ints[var::STROKES] = strokes.min(MAX_SCORE);
        ints[var::VISITS] = visits.min(MAX_SCORE);
        ints[var::FOUL] = i64::from(foul);
        ints
    }
}
