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
mod explain;
pub mod lower;
pub mod schema;

use crate::engines::cards::{Card, Dealt, Deck};
use crate::game::{records, Cases, Explanation, Game, Input, InputError, Output, RunError, RunOptions};
use crate::source::Span;
use crate::template::OutputLine;

/// Most piles a layout may have (piles are bits of a `u64`).
pub const MAX_PILES: usize = 64;

/// Most steps between the smallest and the largest partial sum a sum group
/// of more than two cards (or of one suit) tracks: its face values, less
/// the smallest and divided by their common step, add up to at most this
/// (`check` refuses more; see [`SumTable`]).
pub const MAX_SUM_STEPS: i64 = 4096;

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
            Group::Sum { cards, .. } | Group::Same { cards, .. } => *cards,
            Group::Set { ranks } => ranks.len(),
        }
    }

    fn admits(&self, rank: usize) -> bool {
        match self {
            Group::Sum { allowed, .. } | Group::Same { allowed, .. } => allowed[rank],
            Group::Set { ranks } => ranks.contains(&rank),
        }
    }
}

/// A sum group's face values as small steps: a card of rank r counts
/// `step[r]` (its value less the smallest allowed value, divided by the
/// values' common step), and the group needs `target` in all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SumTable {
    pub step: Vec<u32>,
    /// `None`: no cards can ever add up to the total.
    pub target: Option<u32>,
}

impl SumTable {
    /// The steps of a sum group, or `Err((steps, step))` when its target
    /// lies more than [`MAX_SUM_STEPS`] steps (of that size) above the
    /// smallest sum.
    pub fn new(values: &[i64], cards: usize, allowed: &[bool], total: i64) -> Result<SumTable, (i128, i128)> {
        let vals: Vec<i128> = (0..allowed.len()).filter(|&r| allowed[r]).map(|r| values[r] as i128).collect();
        let lo = vals.iter().copied().min().unwrap_or(0);
        let gcd = vals.iter().fold(0i128, |g, &v| gcd(g, v - lo));
        let step = |v: i64| if gcd == 0 { 0 } else { ((v as i128 - lo) / gcd) as u32 };
        let most = vals.iter().map(|&v| if gcd == 0 { 0 } else { (v - lo) / gcd }).max().unwrap_or(0);
        let need = total as i128 - cards as i128 * lo;
        let target = match gcd {
            0 => (need == 0).then_some(0),
            g if need >= 0 && need % g == 0 && need / g <= most * cards as i128 => Some(need / g),
            _ => None,
        };
        if let Some(t) = target {
            if t > MAX_SUM_STEPS as i128 {
                return Err((t, gcd));
            }
        }
        let step = (0..allowed.len()).map(|r| if allowed[r] { step(values[r]) } else { 0 }).collect();
        Ok(SumTable { step, target: target.map(|t| t as u32) })
    }

    /// The piles among `candidates` (in increasing order, with the step of
    /// each) that come first in pile order among those of `cards` cards
    /// reaching the target: at each pile in turn, it is taken when the
    /// rest can still be completed from the piles after it. `scratch` holds
    /// the table of what the piles from each one on can reach.
    fn first_group(
        &self,
        cards: usize,
        candidates: &[(usize, u32)],
        scratch: &mut Vec<u64>,
        out: &mut Vec<usize>,
    ) -> bool {
        out.clear();
        let Some(target) = self.target else { return false };
        let m = candidates.len();
        if m < cards {
            return false;
        }
        let words = target as usize / 64 + 1;
        // reach(i, j): the sums (in steps) of j cards among candidates[i..].
        let at = |i: usize, j: usize| (i * (cards + 1) + j) * words;
        scratch.clear();
        scratch.resize((m + 1) * (cards + 1) * words, 0);
        scratch[at(m, 0)] = 1;
        for i in (0..m).rev() {
            let w = candidates[i].1 as usize;
            let (head, tail) = scratch.split_at_mut(at(i + 1, 0));
            let here = &mut head[at(i, 0)..];
            for j in 0..=cards.min(m - i) {
                let dst = &mut here[j * words..(j + 1) * words];
                dst.copy_from_slice(&tail[j * words..(j + 1) * words]);
                if j > 0 && w <= target as usize {
                    shift_or(dst, &tail[(j - 1) * words..j * words], w);
                }
            }
        }
        let has = |scratch: &[u64], i: usize, j: usize, s: usize| scratch[at(i, j) + s / 64] >> (s % 64) & 1 == 1;
        if !has(scratch, 0, cards, target as usize) {
            return false;
        }
        let (mut left, mut k) = (target as usize, cards);
        for (i, &(pile, w)) in candidates.iter().enumerate() {
            if k == 0 {
                break;
            }
            let w = w as usize;
            if w <= left && has(scratch, i + 1, k - 1, left - w) {
                out.push(pile);
                left -= w;
                k -= 1;
            }
        }
        debug_assert!(k == 0 && left == 0);
        true
    }
}

impl SumTable {
    /// Whether `cards` of the ranks `ranks` (a rank once per card that may
    /// be taken) can reach the target: the sums of j cards, j = 0 to
    /// `cards`, as bit sets grown rank by rank.
    pub fn reachable(&self, cards: usize, ranks: impl Iterator<Item = usize>) -> bool {
        let Some(target) = self.target else { return false };
        let words = target as usize / 64 + 1;
        let mut reach = vec![0u64; (cards + 1) * words];
        reach[0] = 1;
        for r in ranks {
            let w = self.step[r] as usize;
            if w > target as usize {
                continue;
            }
            for j in (1..=cards).rev() {
                let (lower, upper) = reach.split_at_mut(j * words);
                shift_or(&mut upper[..words], &lower[(j - 1) * words..], w);
            }
        }
        reach[cards * words + target as usize / 64] >> (target % 64) & 1 == 1
    }
}

/// `dst |= src << shift` over bit sets of `dst.len()` words (bits beyond
/// the last word are dropped).
fn shift_or(dst: &mut [u64], src: &[u64], shift: usize) {
    let (words, bits) = (shift / 64, shift % 64);
    for i in (words..dst.len()).rev() {
        let lo = src[i - words] << bits;
        let hi = if bits > 0 && i > words { src[i - words - 1] >> (64 - bits) } else { 0 };
        dst[i] |= lo | hi;
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// A group compiled for the hot loop.
#[derive(Debug, Clone)]
enum Fast {
    /// A two-card sum group: `partners[r]` are the ranks completing rank r.
    Pair { partners: Vec<Vec<usize>> },
    /// One card of each of these distinct ranks (a bit mask of ranks).
    Distinct { ranks: u64 },
    /// `n` cards of one rank among `ranks` (a bit mask).
    SameRank { n: usize, ranks: u64 },
    /// `n` cards of one suit, of ranks among `ranks`.
    SameSuit { n: usize, ranks: u64 },
    /// A sum group of more cards, or of one suit.
    Sum(SumTable),
    /// A set group with a rank listed twice: searched pile by pile.
    General,
}

#[derive(Debug, Clone)]
pub struct Covering {
    pub deck: Deck,
    pub piles: usize,
    pub groups: Vec<Group>,
    fast: Vec<Fast>,
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

/// What reading carries from deck to deck.
#[derive(Debug, Clone, Default)]
pub struct DeckReader {
    decks: usize,
    dealt: Dealt,
}

impl Game for Covering {
    fn run(&self, input: &mut Input, out: &mut Output, opts: &RunOptions) -> Result<(), RunError> {
        crate::game::run_cases(self, input, out, opts)
    }

    fn analysis(&self) -> Option<&dyn crate::game::Analyze> {
        Some(self)
    }

    fn explainer(&self) -> Option<&dyn crate::game::Explain> {
        Some(self)
    }
}

impl Cases for Covering {
    type Case = DeckCase;
    type Reader = DeckReader;
    type Scratch = Option<Table>;

    fn read(&self, input: &mut Input, reader: &mut DeckReader, deck: &mut DeckCase) -> Result<bool, InputError> {
        self.read_deck(input, reader, deck)
    }

    fn solve(
        &self,
        deck: &DeckCase,
        table: &mut Option<Table>,
        _: &RunOptions,
        out: &mut Vec<u8>,
    ) -> Result<(), RunError> {
        let table = table.get_or_insert_with(|| Table::new(self.piles, self.deck.ranks.len(), self.deck.suits.len()));
        let ended = self.play_on(table, &deck.cards, &mut |_| {});
        self.line(out, deck.number, table, ended);
        Ok(())
    }

    fn explain(
        &self,
        deck: &DeckCase,
        table: &mut Option<Table>,
        _: &RunOptions,
        each: &mut dyn FnMut(Explanation) -> Result<(), RunError>,
    ) -> Result<(), RunError> {
        let table = table.get_or_insert_with(|| Table::new(self.piles, self.deck.ranks.len(), self.deck.suits.len()));
        each(self.explain_deck(deck, table))
    }
}

/// How one deal ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Every card was dealt (or the deck ran out while covering): the number
    /// of cards on each pile, in the order the piles were started.
    Played(Vec<usize>),
    /// The card at this 1-based position needed a pile beyond the layout.
    Overflow(usize),
}

/// One move of a deal, as `play_traced` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'a> {
    /// Group `group` lies on `piles` (in covering order); the cards from
    /// position `first` (0-based) on cover them, one each.
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

/// The exposed cards: the top rank and suit of each pile and, per rank and
/// per suit, the piles showing it.
pub struct Table {
    top: Vec<usize>,
    top_suit: Vec<usize>,
    count: Vec<usize>,
    showing: Vec<u64>,
    suit_showing: Vec<u64>,
    /// Work space of sum groups (see [`SumTable::first_group`]).
    scratch: Vec<u64>,
    candidates: Vec<(usize, u32)>,
}

impl Table {
    fn new(piles: usize, ranks: usize, suits: usize) -> Table {
        Table {
            top: Vec::with_capacity(piles),
            top_suit: Vec::with_capacity(piles),
            count: Vec::with_capacity(piles),
            showing: vec![0; ranks],
            suit_showing: vec![0; suits],
            scratch: Vec::new(),
            candidates: Vec::new(),
        }
    }

    fn clear(&mut self) {
        self.top.clear();
        self.top_suit.clear();
        self.count.clear();
        self.showing.iter_mut().for_each(|m| *m = 0);
        self.suit_showing.iter_mut().for_each(|m| *m = 0);
    }

    fn piles(&self) -> usize {
        self.top.len()
    }

    /// The piles showing a rank of the mask `ranks`.
    fn showing_any(&self, mut ranks: u64) -> u64 {
        let mut piles = 0;
        while ranks != 0 {
            piles |= self.showing[ranks.trailing_zeros() as usize];
            ranks &= ranks - 1;
        }
        piles
    }

    /// Puts a card of rank `r` on pile `p` (a new pile when `p` is the
    /// number of piles); its suit `s` is kept only when `suits` is true
    /// (some group looks at suits).
    #[inline(always)]
    fn put(&mut self, p: usize, r: usize, s: impl FnOnce() -> usize, suits: bool) {
        if p == self.top.len() {
            self.top.push(r);
            self.count.push(1);
        } else {
            self.showing[self.top[p]] &= !(1 << p);
            self.top[p] = r;
            self.count[p] += 1;
        }
        self.showing[r] |= 1 << p;
        if suits {
            let s = s();
            if p == self.top_suit.len() {
                self.top_suit.push(s);
            } else {
                self.suit_showing[self.top_suit[p]] &= !(1 << p);
                self.top_suit[p] = s;
            }
            self.suit_showing[s] |= 1 << p;
        }
    }
}

impl Covering {
    pub fn new(
        deck: Deck,
        piles: usize,
        groups: Vec<Group>,
        lines_per_deck: usize,
        terminator: String,
        played: OutputLine<PlayedFields<'static>>,
        overflow: OutputLine<OverflowFields>,
    ) -> Covering {
        let nr = deck.ranks.len();
        let mask = |allowed: &[bool]| (0..nr).filter(|&r| allowed[r]).fold(0u64, |m, r| m | 1 << r);
        let fast = groups
            .iter()
            .map(|g| match g {
                Group::Sum { cards: 2, allowed, total, same_suit: false } => Fast::Pair {
                    partners: (0..nr)
                        .map(|r| {
                            if !allowed[r] {
                                return Vec::new();
                            }
                            (0..nr)
                                .filter(|&q| allowed[q] && deck.values[r].checked_add(deck.values[q]) == Some(*total))
                                .collect()
                        })
                        .collect(),
                },
                Group::Sum { cards, allowed, total, .. } => Fast::Sum(
                    // `check` refused targets too far away; none is left here.
                    SumTable::new(&deck.values, *cards, allowed, *total)
                        .unwrap_or(SumTable { step: vec![0; nr], target: None }),
                ),
                Group::Set { ranks } if ranks.iter().enumerate().all(|(i, r)| !ranks[..i].contains(r)) => {
                    Fast::Distinct { ranks: ranks.iter().fold(0u64, |m, &r| m | 1 << r) }
                }
                Group::Set { .. } => Fast::General,
                Group::Same { cards, allowed, by: Same::Rank } => Fast::SameRank { n: *cards, ranks: mask(allowed) },
                Group::Same { cards, allowed, by: Same::Suit } => Fast::SameSuit { n: *cards, ranks: mask(allowed) },
            })
            .collect();
        Covering {
            deck,
            piles,
            suits: groups
                .iter()
                .any(|g| matches!(g, Group::Same { by: Same::Suit, .. } | Group::Sum { same_suit: true, .. })),
            groups,
            fast,
            lines_per_deck,
            terminator,
            played,
            overflow,
            spans: CoveringSpans::default(),
        }
    }

    /// Plays one deal.
    pub fn play(&self, cards: &[Card]) -> Outcome {
        self.play_traced(cards, &mut |_| {})
    }

    /// Plays one deal on `t` (cleared first); the overflow card, if any.
    /// `step` sees each move before it is made (a no-op closure for `run`).
    fn play_on(&self, t: &mut Table, cards: &[Card], step: &mut impl FnMut(Step<'_>)) -> Option<usize> {
        if self.suits {
            self.play_suits::<true>(t, cards, step)
        } else {
            self.play_suits::<false>(t, cards, step)
        }
    }

    /// [`Covering::play_on`], keeping the suits of the exposed cards when
    /// `SUITS`.
    fn play_suits<const SUITS: bool>(
        &self,
        t: &mut Table,
        cards: &[Card],
        step: &mut impl FnMut(Step<'_>),
    ) -> Option<usize> {
        t.clear();
        let suits = self.deck.suits.len();
        let mut chosen = Vec::with_capacity(8);
        let mut next = 0;
        while next < cards.len() {
            chosen.clear();
            if let Some(group) = self.find_group(t, &mut chosen) {
                step(Step::Cover { group, piles: &chosen, first: next });
                for &p in &chosen {
                    let Some(&card) = cards.get(next) else { break };
                    next += 1;
                    let r = self.deck.rank(card);
                    t.put(p, r, || card as usize - r * suits, SUITS);
                }
                continue;
            }
            if t.piles() == self.piles {
                return Some(next + 1);
            }
            step(Step::Pile { card: next });
            let card = cards[next];
            let r = self.deck.rank(card);
            t.put(t.piles(), r, || card as usize - r * suits, SUITS);
            next += 1;
        }
        None
    }

    /// Plays one deal, showing each move to `step` (for explanations).
    pub fn play_traced(&self, cards: &[Card], step: &mut impl FnMut(Step<'_>)) -> Outcome {
        let mut t = Table::new(self.piles, self.deck.ranks.len(), self.deck.suits.len());
        match self.play_on(&mut t, cards, step) {
            None => Outcome::Played(t.count),
            Some(card) => Outcome::Overflow(card),
        }
    }

    /// The piles whose exposed card can start group `g`; for sum groups
    /// searched by table (`Fast::Sum`), only the lowest of them.
    fn eligible(&self, t: &mut Table, g: usize) -> u64 {
        match &self.fast[g] {
            Fast::Pair { partners } => {
                let mut elig = 0;
                for (r, ps) in partners.iter().enumerate() {
                    let here = t.showing[r];
                    if here == 0 || ps.is_empty() {
                        continue;
                    }
                    let mate = ps.iter().fold(0u64, |m, &q| m | t.showing[q]);
                    // A pile is eligible when a partner lies on another pile.
                    elig |= match mate.count_ones() {
                        0 => 0,
                        1 => here & !mate,
                        _ => here,
                    };
                }
                elig
            }
            Fast::Distinct { ranks } => {
                let mut all = 0;
                let mut rs = *ranks;
                while rs != 0 {
                    let r = rs.trailing_zeros() as usize;
                    if t.showing[r] == 0 {
                        return 0;
                    }
                    all |= t.showing[r];
                    rs &= rs - 1;
                }
                all
            }
            _ => self.eligible_other(t, g),
        }
    }

    /// [`Covering::eligible`] for the groups other than pairs and sets of
    /// distinct ranks (kept out of the hot loop).
    #[inline(never)]
    fn eligible_other(&self, t: &mut Table, g: usize) -> u64 {
        match &self.fast[g] {
            Fast::SameRank { n, ranks } => {
                let mut elig = 0;
                let mut rs = *ranks;
                while rs != 0 {
                    let here = t.showing[rs.trailing_zeros() as usize];
                    if here.count_ones() as usize >= *n {
                        elig |= here;
                    }
                    rs &= rs - 1;
                }
                elig
            }
            Fast::SameSuit { n, ranks } => {
                let allowed = t.showing_any(*ranks);
                t.suit_showing
                    .iter()
                    .map(|&m| m & allowed)
                    .filter(|m| m.count_ones() as usize >= *n)
                    .fold(0, |a, m| a | m)
            }
            Fast::Sum(_) => {
                let mut chosen = Vec::new();
                match self.first_sum_group(t, g, &mut chosen) {
                    true => 1 << chosen[0],
                    false => 0,
                }
            }
            Fast::General => {
                let mut elig = 0;
                let mut scratch = Vec::new();
                for p in 0..t.piles() {
                    scratch.clear();
                    if self.start(t, g, p, &mut scratch) {
                        elig |= 1 << p;
                    }
                }
                elig
            }
            Fast::Pair { .. } | Fast::Distinct { .. } => 0,
        }
    }

    /// The group to cover now, as piles in covering order: the eligible
    /// card on the lowest pile (its first group in file order), then its
    /// partners on the lowest piles.
    fn find_group(&self, t: &mut Table, chosen: &mut Vec<usize>) -> Option<usize> {
        let mut best: Option<(usize, usize)> = None;
        for g in 0..self.groups.len() {
            let elig = self.eligible(t, g);
            if elig != 0 {
                let p = elig.trailing_zeros() as usize;
                if best.is_none_or(|(bp, _)| p < bp) {
                    best = Some((p, g));
                }
            }
        }
        let (p, g) = best?;
        if let Fast::Sum(_) = self.fast[g] {
            return self.first_sum_group(t, g, chosen).then_some(g);
        }
        self.start(t, g, p, chosen).then_some(g)
    }

    /// The piles of sum group `g` that come first in pile order, in
    /// `chosen`; false when the group lies nowhere. A group of one suit is
    /// looked for in each suit; the one whose first pile is lowest wins.
    fn first_sum_group(&self, t: &mut Table, g: usize, chosen: &mut Vec<usize>) -> bool {
        let (Fast::Sum(table), Group::Sum { cards, allowed, same_suit, .. }) = (&self.fast[g], &self.groups[g]) else {
            return false;
        };
        let Table { top, suit_showing, scratch, candidates, .. } = t;
        chosen.clear();
        let mut found = Vec::new();
        let suits: &[u64] = if *same_suit { suit_showing } else { &[u64::MAX] };
        for &in_suit in suits {
            candidates.clear();
            candidates.extend(
                (0..top.len()).filter(|&p| in_suit >> p & 1 == 1 && allowed[top[p]]).map(|p| (p, table.step[top[p]])),
            );
            if table.first_group(*cards, candidates, scratch, &mut found)
                && chosen.first().is_none_or(|&c| found[0] < c)
            {
                std::mem::swap(chosen, &mut found);
            }
        }
        !chosen.is_empty()
    }

    /// Starts group `g` at pile `p` and completes it with the lowest piles.
    fn start(&self, t: &Table, g: usize, p: usize, chosen: &mut Vec<usize>) -> bool {
        let r = t.top[p];
        let admits = match &self.fast[g] {
            Fast::Pair { partners } => !partners[r].is_empty(),
            Fast::Distinct { ranks } | Fast::SameRank { ranks, .. } | Fast::SameSuit { ranks, .. } => {
                ranks >> r & 1 == 1
            }
            Fast::Sum(_) | Fast::General => self.groups[g].admits(r),
        };
        if !admits {
            return false;
        }
        chosen.clear();
        chosen.push(p);
        let used = 1u64 << p;
        // The lowest `n - 1` piles of `mates`, after `p`.
        let take = |chosen: &mut Vec<usize>, n: usize, mates: u64| {
            let mut mates = mates & !used;
            if (mates.count_ones() as usize) < n - 1 {
                return false;
            }
            for _ in 1..n {
                chosen.push(mates.trailing_zeros() as usize);
                mates &= mates - 1;
            }
            true
        };
        match &self.fast[g] {
            Fast::Pair { partners } => {
                let mate = partners[t.top[p]].iter().fold(0u64, |m, &q| m | t.showing[q]) & !used;
                if mate == 0 {
                    return false;
                }
                chosen.push(mate.trailing_zeros() as usize);
                true
            }
            Fast::Distinct { ranks } => {
                let mut missing = ranks & !(1u64 << t.top[p]);
                let mut used = used;
                // Each further card: the lowest pile showing a missing rank.
                while missing != 0 {
                    let mut candidates = 0u64;
                    let mut rs = missing;
                    while rs != 0 {
                        let r = rs.trailing_zeros() as usize;
                        if t.showing[r] & !used == 0 {
                            return false;
                        }
                        candidates |= t.showing[r];
                        rs &= rs - 1;
                    }
                    let q = (candidates & !used).trailing_zeros() as usize;
                    missing &= !(1u64 << t.top[q]);
                    used |= 1 << q;
                    chosen.push(q);
                }
                true
            }
            Fast::SameRank { n, .. } => take(chosen, *n, t.showing[t.top[p]]),
            Fast::SameSuit { n, ranks } => take(chosen, *n, t.suit_showing[t.top_suit[p]] & t.showing_any(*ranks)),
            // Found whole by `first_sum_group`.
            Fast::Sum(_) => false,
            Fast::General => match &self.groups[g] {
                Group::Set { ranks } => self.complete_set(t, ranks, used, chosen),
                _ => false,
            },
        }
    }

    /// Set groups: each further card is the lowest pile showing a rank
    /// still missing.
    fn complete_set(&self, t: &Table, ranks: &[usize], mut used: u64, chosen: &mut Vec<usize>) -> bool {
        let mut missing: Vec<usize> = ranks.to_vec();
        if let Some(i) = missing.iter().position(|&r| r == t.top[chosen[0]]) {
            missing.swap_remove(i);
        }
        // Feasible at all? Each missing rank needs its own pile.
        for (i, &r) in missing.iter().enumerate() {
            let need = missing[..=i].iter().filter(|&&x| x == r).count() as u32;
            if (t.showing[r] & !used).count_ones() < need {
                return false;
            }
        }
        while !missing.is_empty() {
            let mut candidates = 0u64;
            for &r in &missing {
                candidates |= t.showing[r];
            }
            candidates &= !used;
            let p = candidates.trailing_zeros() as usize;
            let i = missing.iter().position(|&r| r == t.top[p]).unwrap_or(0);
            missing.swap_remove(i);
            used |= 1 << p;
            chosen.push(p);
        }
        true
    }

    /// Reads one deck (`lines_per_deck` lines of cards, no card twice)
    /// into `deck`; false at the terminator line.
    fn read_deck(&self, input: &mut Input, reader: &mut DeckReader, deck: &mut DeckCase) -> Result<bool, InputError> {
        let size = self.deck.size();
        let per_line = size / self.lines_per_deck;
        let number = reader.decks + 1;
        deck.cards.clear();
        reader.dealt.start(size);
        let what = || format!("deck {number}");
        for l in 0..self.lines_per_deck {
            let line = if l == 0 {
                match records::until_terminator(input, &self.terminator, || "a deck".to_string())? {
                    Some(line) => line,
                    None => return Ok(false),
                }
            } else {
                input.next_nonblank_or(|input| {
                    input
                        .error_at_end(format!("expected line {} of deck {number}, found end of input", l + 1))
                        .with_help(format!("a deck is {size} cards on {} lines", self.lines_per_deck))
                })?
            };
            let mut n = 0;
            for tok in line.tokens() {
                if n == per_line {
                    return Err(tok
                        .error(format!("expected {per_line} cards on this line, found more"))
                        .with_help(format!("a deck is {size} cards on {} lines of {per_line}", self.lines_per_deck)));
                }
                deck.cards.push(reader.dealt.card(&self.deck, &tok, what)?);
                n += 1;
            }
            if n < per_line {
                return Err(line
                    .error_at_end(format!("expected {per_line} cards on this line, found {n}"))
                    .with_help(format!("a deck is {size} cards on {} lines of {per_line}", self.lines_per_deck)));
            }
        }
        reader.decks = number;
        deck.number = number;
        Ok(true)
    }

    /// Writes the output line of a deal that ended with `ended`.
    fn line(&self, out: &mut Vec<u8>, number: usize, table: &Table, ended: Option<usize>) {
        match ended {
            None => {
                let sizes: Vec<i64> = table.count.iter().map(|&n| n as i64).collect();
                self.played.line(out, &PlayedFields { deck: number as i64, piles: &sizes });
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
        Covering::new(deck, 16, vec![pair, triple], 4, "#".into(), OutputLine::literal(""), OutputLine::literal(""))
    }

    fn cards(c: &Covering, s: &str) -> Vec<Card> {
        s.split(' ').map(|t| c.deck.parse_card(t).unwrap()).collect()
    }

    #[test]
    fn the_statements_opening() {
        // TS QC 8S 8D QH 2D 3H, then KH 9H cover 8S and 3H.
        let c = base();
        assert_eq!(c.play(&cards(&c, "TS QC 8S 8D QH 2D 3H KH 9H")), Outcome::Played(vec![1, 1, 2, 1, 1, 1, 2]));
    }

    #[test]
    fn the_deck_may_run_out_while_covering() {
        let c = base();
        assert_eq!(c.play(&cards(&c, "4H 7H 3S")), Outcome::Played(vec![2, 1]));
    }
}
