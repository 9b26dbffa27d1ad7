//! The covering engine: cards are dealt one by one onto a row of piles;
//! before each card, the exposed (top) cards are examined for groups the rule
//! file says can be covered. When one exists, its cards are covered by the
//! next cards dealt, one each, as one indivisible operation; otherwise the
//! card starts a new pile, and a card that needs one pile more than the
//! layout allows ends the deal.
//!
//! Group kinds, all from the rule file (see docs/engines/covering.md):
//! - a *sum* group: `cards` exposed cards, each of a rank in a set, whose
//!   face values add up to a total (a pair adding to 11), optionally all of
//!   one suit;
//! - a *set* group: one exposed card of each listed rank (J Q K; a single K);
//! - a *same* group: `cards` exposed cards of one rank (a pair of sevens),
//!   or of one suit, each of a rank in a set.
//!
//! Covering order: the first card is the eligible card on the lowest pile;
//! each further card is the exposed card on the lowest pile (not yet chosen)
//! that still lets the group be completed. The cards chosen are therefore
//! the group's piles that come first in pile order, read as a word: sum
//! groups of more than two cards find them with a subset-sum table over the
//! exposed cards (time polynomial in the piles, the cards of the group and
//! the spread of the face values, which `check` bounds). The engine sees
//! ranks and suits as indices and piles as bit masks; nothing of the game's
//! numbers is in here.

mod analyze;
mod cond;
mod explain;
mod fast;
pub(crate) mod lower;
mod picture;
mod read;
pub(crate) mod schema;
mod sum;
mod table;

use crate::engines::cards::{Card, Deck};
use crate::game::{Ahead, Cases, Explanation, Input, InputError, Mark, RunError, RunOptions};
use crate::source::Span;
use crate::template::OutputLine;
pub use read::DeckReader;
pub use sum::SumTable;
pub use table::Table;

pub(crate) use fast::{cond_of, FastSum};
use fast::{fast_of, pair_ranks, Fast};

pub(crate) use cond::{Attr, Attrs, Bits, CardTest, CondGroup, Mixed, PairTest, Slots, CHECK_BUDGET};

/// Most piles a layout may have (piles are bits of a `u64`).
pub const MAX_PILES: usize = 64;

/// Most steps between the smallest and the largest partial sum a sum group
/// of more than two cards (or of one suit) tracks: its face values, less
/// the smallest and divided by their common step, add up to at most this
/// (`check` refuses more; see [`SumTable`]).
pub const MAX_SUM_STEPS: i64 = 4096;

/// Most ways to choose the piles of a group with a `between` condition
/// (the piles taken 1, 2, ... `cards` at a time, added up): the search for
/// such a group looks at each at most once per card dealt (`check` refuses
/// more).
pub const MAX_SEARCH: u64 = 1 << 20;

/// How the piles lie and in which order they are examined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The most piles a deal may use; they fill the grid left to right, top
    /// to bottom.
    pub piles: usize,
    pub rows: usize,
    pub columns: usize,
    /// The piles (0-based, in the order they are started) in the order
    /// they are examined (`scan`).
    pub order: Vec<usize>,
}

impl Layout {
    /// `piles` piles in one row, examined in the order they are started.
    pub fn row(piles: usize) -> Layout {
        Layout { piles, rows: 1, columns: piles, order: (0..piles).collect() }
    }

    /// The row and column (from 1) of pile `k` (0-based).
    pub fn place(&self, k: usize) -> (usize, usize) {
        (k / self.columns.max(1) + 1, k % self.columns.max(1) + 1)
    }
}

/// A group of exposed cards that can be covered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Group {
    /// `cards` cards, each of a rank with `allowed[rank]`, whose face values
    /// add up to `total`; with `same_suit`, all of one suit.
    Sum { cards: usize, allowed: Vec<bool>, total: i64, same_suit: bool },
    /// One card of each rank of `ranks` (a rank listed twice needs two).
    Set { ranks: Vec<usize> },
    /// `cards` cards of one rank (`by` [`Same::Rank`]) or of one suit, each
    /// of a rank with `allowed[rank]`.
    Same { cards: usize, allowed: Vec<bool>, by: Same },
    /// Any `cards` cards of ranks with `allowed[rank]` (what they are is
    /// said by their conditions, `Conds`).
    Any { cards: usize, allowed: Vec<bool> },
}

/// A group's conditions on its cards and piles (`each`, `between`).
#[derive(Debug, Default)]
pub(crate) struct Conds {
    pub each: Option<CardTest>,
    pub between: Option<PairTest>,
}

/// What the cards of a [`Group::Same`] share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Same {
    Rank,
    Suit,
}

impl Group {
    pub fn size(&self) -> usize {
        match self {
            Group::Sum { cards, .. } | Group::Same { cards, .. } | Group::Any { cards, .. } => *cards,
            Group::Set { ranks } => ranks.len(),
        }
    }

    fn admits(&self, rank: usize) -> bool {
        match self {
            Group::Sum { allowed, .. } | Group::Same { allowed, .. } | Group::Any { allowed, .. } => allowed[rank],
            Group::Set { ranks } => ranks.contains(&rank),
        }
    }
}

/// Whether the bit set `m` has at least `n` bits (`n` >= 1).
#[inline(always)]
fn at_least(mut m: u64, n: usize) -> bool {
    if n > 3 {
        return m.count_ones() as usize >= n;
    }
    for _ in 1..n {
        m &= m.wrapping_sub(1);
    }
    m != 0
}

#[derive(Debug, Clone)]
pub struct Covering {
    pub deck: Deck,
    pub piles: usize,
    pub layout: Layout,
    /// Pile `k` (0-based, in the order piles are started) is examined
    /// `pos_of[k]`-th; `pile_at` is the inverse. The table keeps piles by
    /// position, so that the lowest bit of a mask is the pile examined
    /// first.
    pos_of: [u8; MAX_PILES],
    pile_at: [u8; MAX_PILES],
    pub groups: Vec<Group>,
    fast: Vec<Fast>,
    /// The groups with an `each` condition: the table keeps, per group, the
    /// piles whose exposed card meets it.
    pooled: Vec<usize>,
    /// Whether some group has conditions (the table then keeps the exposed
    /// cards whole, and the pools).
    cond: bool,
    /// Whether some group is judged pile by pile (same suit, sums of more
    /// cards): the others are judged by the ranks shown alone.
    by_piles: bool,
    /// Whether some group looks at suits (the table then keeps them).
    suits: bool,
    /// Lines a deck is written on in the input.
    pub lines_per_deck: usize,
    pub terminator: String,
    pub played: OutputLine<PlayedFields<'static>>,
    pub overflow: OutputLine<OverflowFields>,
    pub spans: CoveringSpans,
}

crate::fields! {
    /// The line of a deck played to the end: its number and the size of
    /// each pile.
    pub struct PlayedFields<'a> {
        "deck" deck: i64,
        "piles" piles: &'a [i64],
    }
}

crate::fields! {
    /// The line of a deck that overflowed: its number and the card that
    /// found no pile.
    pub struct OverflowFields {
        "deck" deck: i64,
        "card" card: i64,
    }
}

/// One deck as read, with its number (1-based).
#[derive(Debug, Clone, Default)]
pub struct DeckCase {
    pub number: usize,
    pub cards: Vec<Card>,
}

impl Cases for Covering {
    type Case = DeckCase;
    type Reader = DeckReader;
    type Scratch = Table;

    fn read(&self, input: &mut Input, reader: &mut DeckReader, deck: &mut DeckCase) -> Result<bool, InputError> {
        self.read_deck(input, reader, deck)
    }

    fn boundary(&self, reader: &mut DeckReader, within: &mut u64, line: &[u8]) -> Mark {
        self.deck_boundary(reader, within, line)
    }

    /// `within` lines of the deck are left, and only the last ends it.
    fn ahead(&self, within: u64) -> Ahead {
        if within >= 2 {
            Ahead::NonBlank(within - 1)
        } else {
            Ahead::Unknown
        }
    }

    fn solve(&self, deck: &DeckCase, table: &mut Table, _: &RunOptions, out: &mut Vec<u8>) -> Result<(), RunError> {
        let ended = self.play_on(table, &deck.cards, &mut |_| {});
        self.line(out, deck.number, table, ended);
        Ok(())
    }

    fn explain(
        &self,
        deck: &DeckCase,
        table: &mut Table,
        _: &RunOptions,
        each: &mut dyn FnMut(Explanation) -> Result<(), RunError>,
    ) -> Result<(), RunError> {
        each(self.explain_deck(deck, table))
    }

    fn pictures(&self) -> bool {
        true
    }

    fn analyzer(&self) -> Option<&dyn crate::game::Analyze> {
        Some(self)
    }
}

/// How one deal ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DealEnd {
    /// Every card was dealt (or the deck ran out while covering): the number
    /// of cards on each pile, in the order the piles were started.
    Played(Vec<usize>),
    /// The card at this 1-based position needed a pile beyond the layout.
    Overflow(usize),
}

/// One move of a deal, as `play_traced` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'a> {
    /// Group `group` lies on `piles` (positions in scan order, see
    /// [`Covering::pile_at`], in covering order); the cards from position
    /// `first` (0-based) in the deck on cover them, one each.
    Cover { group: usize, piles: &'a [usize], first: usize },
    /// The card at position `card` starts a new pile.
    Pile { card: usize },
}

/// Where the rules an explanation cites are written in the rule file.
#[derive(Debug, Clone, Default)]
pub struct CoveringSpans {
    pub piles: Span,
    /// Each group's section header, in group order.
    pub groups: Vec<Span>,
    pub names: Vec<String>,
    pub played: Span,
    pub overflow: Span,
}

impl Covering {
    pub fn new(
        deck: Deck,
        layout: Layout,
        groups: Vec<Group>,
        lines_per_deck: usize,
        terminator: String,
        played: OutputLine<PlayedFields<'static>>,
        overflow: OutputLine<OverflowFields>,
    ) -> Covering {
        let fast: Vec<Fast> = groups.iter().map(|g| fast_of(&deck, g)).collect();
        let (mut pos_of, mut pile_at) = ([0u8; MAX_PILES], [0u8; MAX_PILES]);
        for (pos, &k) in layout.order.iter().enumerate().take(MAX_PILES) {
            pos_of[k & (MAX_PILES - 1)] = pos as u8;
            pile_at[pos] = k as u8;
        }
        let mut c = Covering {
            deck,
            piles: layout.piles,
            layout,
            pos_of,
            pile_at,
            by_piles: false,
            suits: false,
            pooled: Vec::new(),
            cond: false,
            groups,
            fast,
            lines_per_deck,
            terminator,
            played,
            overflow,
            spans: CoveringSpans::default(),
        };
        c.settle();
        c
    }

    /// Gives the groups their conditions (`conds[g]` for group `g`,
    /// compiled by [`cond_of`]).
    pub(crate) fn with_cond_groups(mut self, conds: Vec<Option<CondGroup>>) -> Covering {
        for (g, c) in conds.into_iter().enumerate() {
            if let (Some(c), Some(fast)) = (c, self.fast.get_mut(g)) {
                *fast = Fast::Cond(std::sync::Arc::new(c));
            }
        }
        self.settle();
        self
    }

    /// What the play loop keeps, from the compiled groups.
    fn settle(&mut self) {
        use cond::CondKind;
        let by_piles =
            |f: &Fast| matches!(f, Fast::SameSuit { .. } | Fast::SuitPair { .. } | Fast::Sum(_) | Fast::Cond(_));
        self.by_piles = self.fast.iter().any(by_piles);
        self.suits = self.fast.iter().any(|f| match f {
            Fast::SameSuit { .. } | Fast::SuitPair { .. } => true,
            Fast::Sum(s) => s.same_suit,
            Fast::Cond(c) => matches!(c.kind, CondKind::SameSuit | CondKind::Sum { same_suit: true, .. }),
            _ => false,
        });
        self.cond = self.fast.iter().any(|f| matches!(f, Fast::Cond(_)));
        self.pooled =
            (0..self.fast.len()).filter(|&g| matches!(&self.fast[g], Fast::Cond(c) if c.each.is_some())).collect();
    }

    /// The pile (0-based, in the order piles are started) at position `p`.
    pub fn pile_at(&self, p: usize) -> usize {
        self.pile_at[p & (MAX_PILES - 1)] as usize
    }

    /// The number of cards on each pile, in the order the piles were started.
    pub fn sizes(&self, t: &Table) -> Vec<usize> {
        (0..t.piles).map(|k| t.count[self.pos_of[k] as usize & (MAX_PILES - 1)] as usize).collect()
    }

    /// Plays one deal.
    pub fn play(&self, cards: &[Card]) -> DealEnd {
        self.play_traced(cards, &mut |_| {})
    }

    /// Plays one deal on `t` (cleared first); the overflow card, if any.
    /// `step` sees each move before it is made (a no-op closure for `run`).
    fn play_on(&self, t: &mut Table, cards: &[Card], step: &mut impl FnMut(Step<'_>)) -> Option<usize> {
        match (self.suits, self.cond) {
            (false, false) => self.play_suits::<false, false>(t, cards, step),
            (true, false) => self.play_suits::<true, false>(t, cards, step),
            (false, true) => self.play_suits::<false, true>(t, cards, step),
            (true, true) => self.play_suits::<true, true>(t, cards, step),
        }
    }

    /// [`Covering::play_on`], keeping the suits of the exposed cards when
    /// `SUITS`, and the cards whole and the piles meeting each `each`
    /// condition when `COND`.
    fn play_suits<const SUITS: bool, const COND: bool>(
        &self,
        t: &mut Table,
        cards: &[Card],
        step: &mut impl FnMut(Step<'_>),
    ) -> Option<usize> {
        t.clear();
        if COND && t.pools.len() != self.fast.len() {
            t.pools = vec![0; self.fast.len()];
        }
        let suits = self.deck.suits.len();
        let mut chosen = std::mem::take(&mut t.found);
        let mut next = 0;
        let ended = loop {
            if next == cards.len() {
                break None;
            }
            if let Some(group) = self.find_group(t, &mut chosen) {
                step(Step::Cover { group, piles: &chosen, first: next });
                for &p in &chosen {
                    let Some(&card) = cards.get(next) else { break };
                    next += 1;
                    let r = self.deck.rank(card);
                    t.put::<SUITS, false>(p, r, if SUITS { card as usize - r * suits } else { 0 });
                    if COND {
                        self.placed(t, p, card);
                    }
                }
                continue;
            }
            if t.piles() == self.piles {
                break Some(next + 1);
            }
            step(Step::Pile { card: next });
            let card = cards[next];
            let r = self.deck.rank(card);
            let p = self.pos_of[t.piles() & (MAX_PILES - 1)] as usize;
            t.put::<SUITS, true>(p, r, if SUITS { card as usize - r * suits } else { 0 });
            if COND {
                self.placed(t, p, card);
            }
            next += 1;
        };
        t.found = chosen;
        ended
    }

    /// Keeps what the conditions read of the card just put on position
    /// `p`: the card, and whether it meets each group's `each`.
    #[inline(never)]
    fn placed(&self, t: &mut Table, p: usize, card: Card) {
        let p = p & (MAX_PILES - 1);
        t.top_card[p] = card;
        for &g in &self.pooled {
            if let (Fast::Cond(c), Some(pool)) = (&self.fast[g], t.pools.get_mut(g)) {
                let holds = c.each.as_ref().is_none_or(|e| e.holds(card as usize, p));
                *pool = *pool & !(1 << p) | (holds as u64) << p;
            }
        }
    }

    /// Plays one deal, showing each move to `step` (for explanations).
    pub fn play_traced(&self, cards: &[Card], step: &mut impl FnMut(Step<'_>)) -> DealEnd {
        let mut t = Table::default();
        match self.play_on(&mut t, cards, step) {
            None => DealEnd::Played(self.sizes(&t)),
            Some(card) => DealEnd::Overflow(card),
        }
    }

    /// The ranks whose exposed cards can start group `g`, for the groups
    /// judged by the ranks shown (pairs, sets, cards of one rank; 0 for
    /// the others).
    #[inline(always)]
    fn eligible_ranks(&self, t: &Table, g: usize) -> u64 {
        match &self.fast[g] {
            Fast::Pair { partners, selfs, by_shown } => {
                let others = match by_shown.get(t.present as usize) {
                    Some(&m) => m as u64,
                    None => pair_ranks(partners, t.present),
                };
                others | (selfs & t.multi)
            }
            Fast::Set { need, all, twice, thrice } => {
                let lies = all & !t.present == 0
                    && twice & !t.multi == 0
                    && (!thrice || need.iter().all(|&(r, n)| at_least(t.showing[r as usize & 63], n as usize)));
                if lies {
                    *all
                } else {
                    0
                }
            }
            Fast::SameRank { n: 1, ranks } => ranks & t.present,
            Fast::SameRank { n: 2, ranks } => ranks & t.multi,
            Fast::SameRank { n, ranks } => {
                let mut elig = 0;
                let mut rs = ranks & t.multi;
                while rs != 0 {
                    let r = rs.trailing_zeros() as usize & 63;
                    if at_least(t.showing[r], *n) {
                        elig |= 1 << r;
                    }
                    rs &= rs - 1;
                }
                elig
            }
            Fast::SameSuit { .. } | Fast::SuitPair { .. } | Fast::Sum(_) | Fast::Cond(_) => 0,
        }
    }

    /// The lowest pile whose exposed card can start group `g`, if it is
    /// below `below`, for the groups judged pile by pile (same suit, sums
    /// of more cards); for sum groups, the whole group is left in `found`.
    #[inline(never)]
    fn lowest_by_piles(&self, t: &mut Table, g: usize, below: usize, found: &mut Vec<usize>) -> Option<usize> {
        let elig = match &self.fast[g] {
            Fast::SameSuit { n, ranks } => {
                let allowed = t.showing_any(*ranks);
                let mut elig = 0;
                let mut ss = allowed;
                // Each suit once: from its lowest pile.
                while ss != 0 {
                    let p = ss.trailing_zeros() as usize & 63;
                    let in_suit = t.suit_showing[t.top_suit[p] as usize & 63] & allowed;
                    if at_least(in_suit, *n) {
                        elig |= in_suit;
                    }
                    ss &= !in_suit;
                }
                elig
            }
            Fast::SuitPair { partners, ranks } => {
                // The lowest pile with a partner of its suit.
                let mut ps = t.showing_any(*ranks);
                let mut elig = 0;
                while ps != 0 {
                    let p = ps.trailing_zeros() as usize & 63;
                    if p >= below {
                        break;
                    }
                    let (r, suit) = (t.top[p] as usize & 63, t.top_suit[p] as usize & 63);
                    if t.showing_any(partners[r]) & t.suit_showing[suit] & !(1 << p) != 0 {
                        elig = 1 << p;
                        break;
                    }
                    ps &= ps - 1;
                }
                elig
            }
            Fast::Sum(sum) => {
                let pool = t.showing_any(sum.ranks);
                return (self.first_sum_group(t, sum, pool, below, found) && found[0] < below).then(|| found[0]);
            }
            Fast::Cond(c) => {
                let pool = t.showing_any(c.ranks) & if c.each.is_some() { t.pools[g] } else { !0 };
                return c.first(self, t, pool, below, found).then(|| found[0]);
            }
            Fast::Pair { .. } | Fast::Set { .. } | Fast::SameRank { .. } => 0,
        };
        let p = elig.trailing_zeros() as usize;
        (p < below).then_some(p)
    }

    /// The group to cover now, as piles in covering order: the eligible
    /// card on the lowest pile (its first group in file order), then its
    /// partners on the lowest piles.
    #[inline(always)]
    fn find_group(&self, t: &mut Table, chosen: &mut Vec<usize>) -> Option<usize> {
        // The groups judged by ranks: the lowest pile showing a rank one of
        // them makes eligible.
        // The eligible ranks of the first groups are kept for the choice.
        let mut each = [0u64; 8];
        let mut ranks = 0;
        for g in 0..self.fast.len() {
            let e = self.eligible_ranks(t, g);
            if let Some(slot) = each.get_mut(g) {
                *slot = e;
            }
            ranks |= e;
        }
        let mut best = None;
        if ranks != 0 {
            let p = t.showing_any(ranks).trailing_zeros() as usize;
            let r = t.top[p & 63] as usize & 63;
            // The first group that rank makes eligible (a loop: `find` was
            // left a call of its own, 28 instructions a group covered).
            let mut g = 0;
            while g < self.fast.len() {
                let e = if g < each.len() { each[g] } else { self.eligible_ranks(t, g) };
                if e >> r & 1 == 1 {
                    break;
                }
                g += 1;
            }
            best = Some((p, if g < self.fast.len() { g } else { 0 }));
        }
        if self.by_piles {
            self.find_by_piles(t, &mut best, chosen);
        }
        let (p, g) = best?;
        if !matches!(self.fast[g], Fast::Sum(_) | Fast::Cond(_)) {
            self.start(t, g, p, chosen);
        }
        Some(g)
    }

    /// [`Covering::find_group`] for the groups judged pile by pile: one
    /// wins over `best` when it starts on a lower pile, or on the same pile
    /// and comes first in the file. A sum group that wins leaves its piles
    /// in `chosen`.
    #[inline(never)]
    fn find_by_piles(&self, t: &mut Table, best: &mut Option<(usize, usize)>, chosen: &mut Vec<usize>) {
        let mut found = std::mem::take(&mut t.other);
        for g in 0..self.fast.len() {
            if !matches!(self.fast[g], Fast::SameSuit { .. } | Fast::SuitPair { .. } | Fast::Sum(_) | Fast::Cond(_)) {
                continue;
            }
            // Strictly lower than a pile-by-pile group before it; as low as
            // a group judged by ranks written after it.
            let below = match *best {
                None => MAX_PILES,
                Some((p, bg)) if bg > g => p + 1,
                Some((p, _)) => p,
            };
            if below == 0 {
                break;
            }
            if let Some(p) = self.lowest_by_piles(t, g, below, &mut found) {
                *best = Some((p, g));
                if let Fast::Sum(_) | Fast::Cond(_) = self.fast[g] {
                    std::mem::swap(chosen, &mut found);
                }
            }
        }
        t.other = found;
    }

    /// The piles of sum group `sum` among `pool` (the exposed piles it may
    /// take) that come first in pile order, in `found`, when the first is
    /// below `below`; false when there is no such group. A group of one
    /// suit is looked for in each suit; the one whose first pile is lowest
    /// wins.
    fn first_sum_group(&self, t: &mut Table, sum: &FastSum, pool: u64, below: usize, found: &mut Vec<usize>) -> bool {
        if pool.trailing_zeros() as usize >= below {
            return false;
        }
        if !sum.same_suit {
            return self.sum_in(t, sum, pool, found);
        }
        let mut best = below;
        let mut ss = pool;
        let mut got = Vec::new();
        while ss != 0 {
            let p = ss.trailing_zeros() as usize & 63;
            let in_suit = t.suit_showing[t.top_suit[p] as usize & 63] & pool;
            ss &= !in_suit;
            if p < best && self.sum_in(t, sum, in_suit, &mut got) && got[0] < best {
                best = got[0];
                std::mem::swap(found, &mut got);
            }
        }
        best < below
    }

    /// The first group of `sum` among the piles of `pool` (see
    /// [`SumTable::first_group`]).
    fn sum_in(&self, t: &mut Table, sum: &FastSum, pool: u64, found: &mut Vec<usize>) -> bool {
        if !at_least(pool, sum.cards) {
            return false;
        }
        let Table { top, scratch, candidates, .. } = t;
        candidates.clear();
        let mut ps = pool;
        while ps != 0 {
            let p = ps.trailing_zeros() as usize & 63;
            candidates.push((p, sum.table.step[top[p] as usize]));
            ps &= ps - 1;
        }
        sum.table.first_group(sum.cards, candidates, scratch, found)
    }

    /// Completes group `g` started at pile `p` with the lowest piles, in
    /// `chosen` (the group is known to lie there: see [`Covering::lowest`]).
    #[inline(always)]
    fn start(&self, t: &Table, g: usize, p: usize, chosen: &mut Vec<usize>) {
        chosen.clear();
        chosen.push(p);
        let used = 1u64 << p;
        // The lowest `n - 1` piles of `mates`, after `p`.
        let take = |chosen: &mut Vec<usize>, n: usize, mates: u64| {
            let mut mates = mates & !used;
            for _ in 1..n {
                chosen.push(mates.trailing_zeros() as usize);
                mates &= mates.wrapping_sub(1);
            }
        };
        let r = t.top[p] as usize & 63;
        match &self.fast[g] {
            Fast::Pair { partners, .. } => take(chosen, 2, t.showing_any(partners[r])),
            Fast::Set { all, twice: 0, .. } => {
                // Each further card: the lowest pile showing a rank still
                // missing (each rank once).
                let (mut missing, mut used) = (all & !(1 << r), used);
                while missing != 0 {
                    let mates = t.showing_any(missing) & !used;
                    if mates == 0 {
                        debug_assert!(false, "a set group found where it does not lie");
                        break;
                    }
                    let q = mates.trailing_zeros() as usize & 63;
                    used |= 1 << q;
                    missing &= !(1 << (t.top[q] & 63));
                    chosen.push(q);
                }
            }
            Fast::Set { need, .. } => {
                // Each further card: the lowest pile showing a rank still
                // missing.
                let mut left = [0u8; 64];
                let mut missing = 0u64;
                for &(q, n) in need {
                    left[q as usize & 63] = n;
                    missing |= 1 << q;
                }
                let (mut q, mut used) = (p, used);
                loop {
                    let r = t.top[q] as usize & 63;
                    left[r] = left[r].saturating_sub(1);
                    if left[r] == 0 {
                        missing &= !(1 << r);
                    }
                    let mates = t.showing_any(missing) & !used;
                    if mates == 0 {
                        debug_assert_eq!(missing, 0, "a set group found where it does not lie");
                        break;
                    }
                    q = mates.trailing_zeros() as usize;
                    used |= 1 << q;
                    chosen.push(q);
                }
            }
            Fast::SameRank { n, .. } => take(chosen, *n, t.showing[r]),
            Fast::SameSuit { n, ranks } => {
                take(chosen, *n, t.suit_showing[t.top_suit[p] as usize & 63] & t.showing_any(*ranks))
            }
            Fast::SuitPair { partners, .. } => {
                take(chosen, 2, t.suit_showing[t.top_suit[p] as usize & 63] & t.showing_any(partners[r]))
            }
            // Found whole by `first_sum_group` and `CondGroup::first`.
            Fast::Sum(_) | Fast::Cond(_) => {}
        }
    }

    /// Writes the output line of a deal that ended with `ended`.
    fn line(&self, out: &mut Vec<u8>, number: usize, table: &mut Table, ended: Option<usize>) {
        match ended {
            None => {
                let Table { sizes, count, piles, .. } = table;
                sizes.clear();
                sizes.extend(self.pos_of[..*piles].iter().map(|&p| count[p as usize & (MAX_PILES - 1)] as i64));
                self.played.line(out, &PlayedFields { deck: number as i64, piles: sizes });
            }
            Some(card) => self.overflow.line(out, &OverflowFields { deck: number as i64, card: card as i64 }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Covering {
        let names = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        let deck = Deck::new(names("A 2 3 4 5 6 7 8 9 T J Q K"), names("S H C D"), (1..=13).collect(), false);
        let pair = Group::Sum { cards: 2, allowed: (0..13).map(|r| r < 10).collect(), total: 11, same_suit: false };
        let triple = Group::Set { ranks: vec![10, 11, 12] };
        Covering::new(
            deck,
            Layout::row(16),
            vec![pair, triple],
            4,
            "#".into(),
            OutputLine::literal(""),
            OutputLine::literal(""),
        )
    }

    fn cards(c: &Covering, s: &str) -> Vec<Card> {
        s.split(' ').map(|t| c.deck.parse_card(t).unwrap()).collect()
    }

    /// The driver's hints (`ahead`) and `boundary` find the same deck ends:
    /// on every bundled rule file's cases, and on decks with blank lines
    /// between and inside them, lines of one card and the terminator.
    #[test]
    fn the_driver_s_hints_find_the_deck_ends_the_boundary_finds() {
        crate::engines::bundled_cases::each("shuffling_patience", |top, cx, inputs| {
            let game = lower::lower(top, cx).expect("the bundled file compiles");
            inputs.iter().for_each(|text| crate::game::assert_hints_agree(&game, text));
        });
        let c = base();
        let deck = "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS\n";
        let text = format!("{deck}{deck}\n{deck}  \n{deck}\n\n{deck}{deck}\r\n{deck}{deck}\n#\n{deck}");
        crate::game::assert_hints_agree(&c, &text);
    }

    #[test]
    fn the_statements_opening() {
        // TS QC 8S 8D QH 2D 3H, then KH 9H cover 8S and 3H.
        let c = base();
        assert_eq!(c.play(&cards(&c, "TS QC 8S 8D QH 2D 3H KH 9H")), DealEnd::Played(vec![1, 1, 2, 1, 1, 1, 2]));
    }

    #[test]
    fn the_deck_may_run_out_while_covering() {
        let c = base();
        assert_eq!(c.play(&cards(&c, "4H 7H 3S")), DealEnd::Played(vec![2, 1]));
    }
}
