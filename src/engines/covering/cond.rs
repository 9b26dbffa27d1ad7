//! Conditions on the cards of a group and on the piles they lie on: `each`
//! (a test of one card on one pile) and `between` (a test of every two cards
//! of the group), compiled at load into tables (bits over cards, over
//! positions and cards, over pairs of positions, over pairs of cards) or,
//! where a table would be too large, a closure over the cards' attributes;
//! and the search for the group that comes first in scan order among the
//! exposed cards that meet them.
//!
//! Positions are the piles in scan order (see `layout { scan }`): bit `p`
//! of a mask is the pile examined `p`-th. The search takes the lowest
//! position first, so the group found is the one whose positions, in
//! increasing order, come first as a word: the statement's "first card
//! nearest the start of play, then its partners nearest the start".

use std::sync::Arc;

use super::{at_least, Covering, FastSum, Table};
use crate::expr::{BoolExpr, Env};

/// Most steps the exact search of `check` takes for one group before it
/// gives up proving that the group can never match (it then says nothing).
pub(crate) const CHECK_BUDGET: u64 = 1 << 24;

/// One thing a condition reads of a card (of `a` or `b` in `between`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Attr {
    Rank,
    Suit,
    Colour,
    Value,
    Pile,
    Row,
    Column,
}

impl Attr {
    /// Whether it is a property of the pile rather than of the card.
    pub(crate) fn of_pile(self) -> bool {
        matches!(self, Attr::Pile | Attr::Row | Attr::Column)
    }
}

/// What the conditions read: each card's rank, suit and colour (as bits of
/// the condition's elements) and face value; each position's pile number,
/// row and column (from 1).
#[derive(Debug)]
pub(crate) struct Attrs {
    pub cards: Vec<([u64; 3], i64)>,
    pub places: Vec<[i64; 3]>,
}

impl Attrs {
    pub(crate) fn set(&self, a: Attr, card: usize) -> u64 {
        let (sets, _) = self.cards[card];
        match a {
            Attr::Rank => sets[0],
            Attr::Suit => sets[1],
            _ => sets[2],
        }
    }

    pub(crate) fn int(&self, a: Attr, card: usize, pos: usize) -> i64 {
        match a {
            Attr::Value => self.cards[card].1,
            Attr::Pile => self.places[pos][0],
            Attr::Row => self.places[pos][1],
            _ => self.places[pos][2],
        }
    }
}

/// Where a compiled condition finds its variables: the set variables and
/// the number variables in `Env` order, each an attribute of card 0 (`each`,
/// `a` in `between`) or card 1 (`b`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Slots {
    pub sets: Vec<(usize, Attr)>,
    pub ints: Vec<(usize, Attr)>,
}

impl Slots {
    /// Evaluates `f` for the cards and positions `at` (one or two).
    pub(crate) fn eval(&self, f: &BoolExpr, attrs: &Attrs, at: [(usize, usize); 2]) -> bool {
        let mut sets = [0u64; 8];
        let mut ints = [0i64; 8];
        for (i, &(who, a)) in self.sets.iter().enumerate().take(8) {
            sets[i] = attrs.set(a, at[who].0);
        }
        for (i, &(who, a)) in self.ints.iter().enumerate().take(8) {
            ints[i] = attrs.int(a, at[who].0, at[who].1);
        }
        f.eval(&Env { sets: &sets[..self.sets.len().min(8)], ints: &ints[..self.ints.len().min(8)] })
    }
}

/// Bits, read one at a time.
#[derive(Debug, Clone, Default)]
pub(crate) struct Bits(Vec<u64>);

impl Bits {
    pub(crate) fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }

    pub(crate) fn from_fn(n: usize, f: impl Fn(usize) -> bool) -> Bits {
        let mut b = Bits::new(n);
        for i in (0..n).filter(|&i| f(i)) {
            b.0[i / 64] |= 1 << (i % 64);
        }
        b
    }

    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }
}

/// `each`: whether a card may be part of the group on a position; by card
/// alone when the condition reads nothing of the pile.
#[derive(Debug, Clone)]
pub(crate) struct CardTest {
    pub bits: Bits,
    pub per_pile: bool,
    pub ncards: usize,
}

impl CardTest {
    #[inline(always)]
    pub(crate) fn holds(&self, card: usize, pos: usize) -> bool {
        self.bits.get(if self.per_pile { pos * self.ncards + card } else { card })
    }
}

/// The part of `between` that reads both cards and piles: a table over
/// pairs of (card, position) when it is small enough, else the closure.
pub(crate) enum Mixed {
    Table(Bits),
    Closure(BoolExpr, Slots, Arc<Attrs>),
}

impl std::fmt::Debug for Mixed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mixed::Table(_) => f.write_str("Mixed::Table"),
            Mixed::Closure(..) => f.write_str("Mixed::Closure"),
        }
    }
}

/// `between`, split by what its parts (the conditions joined by `and` at
/// its top) read: the piles alone (a mask of positions per position), the
/// cards alone (bits over pairs of cards), or both.
#[derive(Debug)]
pub(crate) struct PairTest {
    pub piles: Option<Vec<u64>>,
    pub cards: Option<Bits>,
    pub mixed: Option<Mixed>,
    pub ncards: usize,
    pub npos: usize,
}

impl PairTest {
    /// Whether card `ca` on position `pa` (scanned first) and card `cb` on
    /// `pb` meet the condition.
    pub(crate) fn holds(&self, ca: usize, pa: usize, cb: usize, pb: usize) -> bool {
        if let Some(near) = &self.piles {
            if near[pa] >> pb & 1 == 0 {
                return false;
            }
        }
        self.cards_hold(ca, pa, cb, pb)
    }

    /// [`PairTest::holds`] without the piles' part.
    fn cards_hold(&self, ca: usize, pa: usize, cb: usize, pb: usize) -> bool {
        if let Some(bits) = &self.cards {
            if !bits.get(ca * self.ncards + cb) {
                return false;
            }
        }
        match &self.mixed {
            None => true,
            Some(Mixed::Table(bits)) => bits.get(((ca * self.npos + pa) * self.ncards + cb) * self.npos + pb),
            Some(Mixed::Closure(f, slots, attrs)) => slots.eval(f, attrs, [(ca, pa), (cb, pb)]),
        }
    }

    /// The positions of `cand` whose exposed card meets the condition with
    /// card `ca` on position `pa`.
    fn filter(&self, t: &Table, ca: usize, pa: usize, cand: u64) -> u64 {
        let mut m = cand;
        if let Some(near) = &self.piles {
            m &= near[pa];
        }
        if self.cards.is_none() && self.mixed.is_none() {
            return m;
        }
        let mut out = 0;
        while m != 0 {
            let q = m.trailing_zeros() as usize & 63;
            m &= m - 1;
            if self.cards_hold(ca, pa, t.top_card[q] as usize, q) {
                out |= 1 << q;
            }
        }
        out
    }
}

/// What the cards of a conditioned group must be as a whole.
#[derive(Debug)]
pub(crate) enum CondKind {
    /// Any cards.
    Any,
    /// All of one rank.
    SameRank,
    /// All of one suit.
    SameSuit,
    /// One card of each rank listed: how many of each rank.
    Set(Vec<u8>),
    /// Face values adding up to `total` (all of one suit with `same_suit`);
    /// `sum` finds them when the group has no `between`.
    Sum { total: i64, same_suit: bool, sum: FastSum },
}

/// A group with conditions, judged pile by pile.
#[derive(Debug)]
pub(crate) struct CondGroup {
    pub kind: CondKind,
    pub cards: usize,
    /// The ranks allowed (a mask).
    pub ranks: u64,
    pub each: Option<CardTest>,
    pub between: Option<PairTest>,
    /// For a sum of two cards: the ranks completing each rank (a mask per
    /// rank; empty otherwise).
    pub partners: Vec<u64>,
    /// Each rank's face value, and each card's rank and suit.
    pub values: Vec<i64>,
    pub rank_of: Vec<u8>,
    pub suit_of: Vec<u8>,
}

/// The group's progress while its cards are chosen one by one.
struct Progress {
    sum: i128,
    /// Cards still needed of each rank (sets).
    need: [u8; 64],
    missing: u64,
}

impl CondGroup {
    /// The first positions (in `found`, in covering order) of `pool` (the
    /// exposed piles that meet `each`, of the ranks allowed) that form the
    /// group, when the first is below `below`. A sum group without
    /// `between` is found by the engine's subset-sum tables (`game`).
    pub(crate) fn first(
        &self,
        game: &Covering,
        t: &mut Table,
        pool: u64,
        below: usize,
        found: &mut Vec<usize>,
    ) -> bool {
        found.clear();
        let n = self.cards;
        if pool.trailing_zeros() as usize >= below || !at_least(pool, n) {
            return false;
        }
        if self.between.is_some() {
            // What the group needs of the exposed cards whatever their
            // piles: a search that cannot succeed is not started.
            let pool = match &self.kind {
                CondKind::Set(need) => {
                    let lies =
                        need.iter().enumerate().all(|(r, &k)| k == 0 || at_least(t.showing[r & 63] & pool, k as usize));
                    if lies {
                        pool
                    } else {
                        0
                    }
                }
                CondKind::SameRank if n >= 2 => pool & t.showing_any(t.multi),
                CondKind::Sum { .. } if n == 2 => {
                    pool & t.showing_any(super::pair_ranks(&self.partners, t.present & self.ranks) | self.selfs(t))
                }
                _ => pool,
            };
            let mut pr = self.progress();
            return pool != 0 && self.search(t, 0, pool, below, &mut pr, found);
        }
        let take = |found: &mut Vec<usize>, mut m: u64| {
            for _ in 0..n {
                found.push(m.trailing_zeros() as usize);
                m &= m - 1;
            }
        };
        match &self.kind {
            CondKind::Any => take(found, pool),
            CondKind::SameRank | CondKind::SameSuit => {
                let by_rank = matches!(self.kind, CondKind::SameRank);
                let mut ps = pool;
                while ps != 0 {
                    let p = ps.trailing_zeros() as usize & 63;
                    if p >= below {
                        return false;
                    }
                    let mates = pool
                        & if by_rank {
                            t.showing[t.top[p] as usize & 63]
                        } else {
                            t.suit_showing[t.top_suit[p] as usize & 63]
                        };
                    if at_least(mates, n) {
                        take(found, mates);
                        break;
                    }
                    ps &= !mates;
                }
            }
            CondKind::Set(need) => {
                let mut want = 0u64;
                for (r, &k) in need.iter().enumerate().filter(|(_, &k)| k > 0) {
                    if !at_least(t.showing[r & 63] & pool, k as usize) {
                        return false;
                    }
                    want |= 1 << r;
                }
                // Each card in turn: the lowest pile of the pool showing a
                // rank still missing.
                let mut left = [0u8; 64];
                left[..need.len().min(64)].copy_from_slice(&need[..need.len().min(64)]);
                let mut used = 0u64;
                while want != 0 {
                    let mates = t.showing_any(want) & pool & !used;
                    let q = mates.trailing_zeros() as usize & 63;
                    let r = t.top[q] as usize & 63;
                    used |= 1 << q;
                    found.push(q);
                    left[r] -= 1;
                    if left[r] == 0 {
                        want &= !(1 << r);
                    }
                }
            }
            CondKind::Sum { sum, .. } => return game.first_sum_group(t, sum, pool, below, found) && found[0] < below,
        }
        !found.is_empty() && found[0] < below
    }

    fn progress(&self) -> Progress {
        let mut pr = Progress { sum: 0, need: [0; 64], missing: 0 };
        if let CondKind::Set(need) = &self.kind {
            for (r, &k) in need.iter().enumerate().take(64) {
                pr.need[r] = k;
                if k > 0 {
                    pr.missing |= 1 << r;
                }
            }
        }
        pr
    }

    /// The ranks shown twice or more that pair with themselves (a sum of two
    /// cards).
    fn selfs(&self, t: &Table) -> u64 {
        let mut m = 0;
        let mut rs = t.multi & self.ranks;
        while rs != 0 {
            let r = rs.trailing_zeros() as usize & 63;
            rs &= rs - 1;
            m |= self.partners[r] & 1 << r;
        }
        m
    }

    /// The ranks allowed whose face value is `v` (a mask).
    fn worth(&self, v: i128) -> u64 {
        let mut m = 0;
        let mut rs = self.ranks;
        while rs != 0 {
            let r = rs.trailing_zeros() as usize;
            rs &= rs - 1;
            if self.values.get(r).is_some_and(|&x| x as i128 == v) {
                m |= 1 << r;
            }
        }
        m
    }

    /// The search with `between`: the positions of `cand` in increasing
    /// order, each taken when the cards chosen so far, it, and some cards
    /// of the positions after it can still form the group. `check` bounds
    /// the positions and cards so that the search is small (see
    /// [`super::MAX_SEARCH`]); the last card is found without a call, and
    /// the one before it, for a sum, only among the ranks worth the rest.
    fn search(
        &self,
        t: &Table,
        depth: usize,
        cand: u64,
        below: usize,
        pr: &mut Progress,
        found: &mut Vec<usize>,
    ) -> bool {
        let need = self.cards - depth;
        let mut rest = cand;
        while rest != 0 {
            let p = rest.trailing_zeros() as usize & 63;
            rest &= rest - 1;
            if depth == 0 && p >= below {
                return false;
            }
            if !at_least(rest | 1 << p, need) {
                return false;
            }
            let card = t.top_card[p] as usize;
            let r = self.rank_of[card] as usize & 63;
            if need == 1 {
                // The last card: the kind's filters and `between` already
                // narrowed `cand` to cards that fit; a sum must be reached.
                let fits = match &self.kind {
                    CondKind::Sum { total, .. } => pr.sum + self.values[r] as i128 == *total as i128,
                    CondKind::Set(_) => pr.need[r] > 0,
                    _ => true,
                };
                if fits {
                    found.push(p);
                    return true;
                }
                continue;
            }
            let mut next = rest;
            match &self.kind {
                CondKind::SameRank if depth == 0 => next &= t.showing[r],
                CondKind::SameSuit if depth == 0 => next &= t.suit_showing[self.suit_of[card] as usize & 63],
                CondKind::Set(_) => {
                    if pr.need[r] == 0 {
                        continue;
                    }
                    let missing = if pr.need[r] == 1 { pr.missing & !(1 << r) } else { pr.missing };
                    next &= t.showing_any(missing);
                }
                CondKind::Sum { total, same_suit, .. } => {
                    if *same_suit && depth == 0 {
                        next &= t.suit_showing[self.suit_of[card] as usize & 63];
                    }
                    if need == 2 {
                        next &= t.showing_any(match self.partners.get(r) {
                            Some(&m) if depth == 0 => m,
                            _ => self.worth(*total as i128 - pr.sum - self.values[r] as i128),
                        });
                    }
                }
                _ => {}
            }
            if next != 0 {
                if let Some(b) = &self.between {
                    next = b.filter(t, card, p, next);
                }
            }
            if !at_least(next, need - 1) {
                continue;
            }
            let saved = (pr.sum, pr.missing, pr.need[r]);
            pr.sum += self.values[r] as i128;
            pr.need[r] = pr.need[r].saturating_sub(1);
            if pr.need[r] == 0 {
                pr.missing &= !(1 << r);
            }
            found.push(p);
            if self.search(t, depth + 1, next, below, pr, found) {
                return true;
            }
            found.pop();
            (pr.sum, pr.missing, pr.need[r]) = saved;
        }
        false
    }

    /// Whether some cards of the deck (each card at most `packs` times) on
    /// some `npos` piles form the group, by an exact search of at most
    /// `budget` steps; `None` when the budget ran out first. Positions
    /// matter only when a condition reads the piles.
    pub(crate) fn can_form(&self, packs: usize, npos: usize, budget: &mut u64) -> Option<bool> {
        let reads_piles = self.each.as_ref().is_some_and(|e| e.per_pile)
            || self.between.as_ref().is_some_and(|b| b.piles.is_some() || b.mixed.is_some());
        let mut chosen: Vec<(usize, usize)> = Vec::with_capacity(self.cards);
        let mut used = vec![0usize; self.rank_of.len()];
        let mut pr = self.progress();
        let mut s = Search { g: self, packs, npos, reads_piles, budget, chosen: &mut chosen, used: &mut used };
        s.go(&mut pr)
    }
}

/// The state of [`CondGroup::can_form`].
struct Search<'a> {
    g: &'a CondGroup,
    packs: usize,
    npos: usize,
    reads_piles: bool,
    budget: &'a mut u64,
    /// (card, position) of the cards chosen so far.
    chosen: &'a mut Vec<(usize, usize)>,
    /// How many times each card is chosen.
    used: &'a mut Vec<usize>,
}

impl Search<'_> {
    fn go(&mut self, pr: &mut Progress) -> Option<bool> {
        let g = self.g;
        let depth = self.chosen.len();
        if depth == g.cards {
            return Some(match g.kind {
                CondKind::Sum { total, .. } => pr.sum == total as i128,
                _ => true,
            });
        }
        let positions = match (self.reads_piles, self.chosen.last()) {
            // Interchangeable piles: the cards go on the first ones.
            (false, _) => depth..depth + 1,
            (true, None) => 0..self.npos,
            (true, Some(&(_, p))) => p + 1..self.npos,
        };
        for pos in positions {
            if self.npos - pos < g.cards - depth {
                break;
            }
            for card in 0..g.rank_of.len() {
                *self.budget = self.budget.checked_sub(1)?;
                if !self.fits(pr, card, pos) {
                    continue;
                }
                let r = g.rank_of[card] as usize & 63;
                let saved = (pr.sum, pr.missing, pr.need[r]);
                pr.sum += g.values[r] as i128;
                pr.need[r] = pr.need[r].saturating_sub(1);
                if pr.need[r] == 0 {
                    pr.missing &= !(1 << r);
                }
                self.used[card] += 1;
                self.chosen.push((card, pos));
                let found = self.go(pr);
                self.chosen.pop();
                self.used[card] -= 1;
                (pr.sum, pr.missing, pr.need[r]) = saved;
                if found != Some(false) {
                    return found;
                }
            }
        }
        Some(false)
    }

    /// Whether `card` on `pos` may join the cards chosen so far.
    fn fits(&self, pr: &Progress, card: usize, pos: usize) -> bool {
        let g = self.g;
        let r = g.rank_of[card] as usize;
        if r >= 64 || g.ranks >> r & 1 == 0 || self.used[card] >= self.packs {
            return false;
        }
        if g.each.as_ref().is_some_and(|e| !e.holds(card, pos)) {
            return false;
        }
        let first = self.chosen.first().map(|&(c, _)| c);
        let ok = match (&g.kind, first) {
            (CondKind::SameRank, Some(c)) => g.rank_of[c] as usize == r,
            (CondKind::SameSuit | CondKind::Sum { same_suit: true, .. }, Some(c)) => g.suit_of[c] == g.suit_of[card],
            (CondKind::Set(_), _) => pr.need[r] > 0,
            _ => true,
        };
        ok && g.between.as_ref().is_none_or(|b| self.chosen.iter().all(|&(c, p)| b.holds(c, p, card, pos)))
    }
}
