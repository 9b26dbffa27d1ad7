//! The covering engine: cards are dealt one by one onto a row of piles;
//! before each card, the exposed (top) cards are examined for groups the rule
//! file says can be covered. When one exists, its cards are covered by the
//! next cards dealt, one each, as one indivisible operation; otherwise the
//! card starts a new pile, and a card that needs one pile more than the
//! layout allows ends the deal.
//!
//! Group kinds, all from the rule file (see docs/engines/covering.md):
//! - a *sum* group: `cards` exposed cards, each of a rank in a set, whose
//!   face values add up to a total (a pair adding to 11);
//! - a *set* group: one exposed card of each listed rank (J Q K; a single K).
//!
//! Covering order: the first card is the eligible card on the lowest pile;
//! each further card is the exposed card on the lowest pile (not yet chosen)
//! that still lets the group be completed. The engine sees ranks as indices
//! and piles as bit masks; nothing of the game's numbers is in here.

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

/// A group of exposed cards that can be covered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Group {
    /// `cards` cards, each of a rank with `allowed[rank]`, whose face values
    /// add up to `total`.
    Sum { cards: usize, allowed: Vec<bool>, total: i64 },
    /// One card of each rank of `ranks` (a rank listed twice needs two).
    Set { ranks: Vec<usize> },
}

impl Group {
    pub fn size(&self) -> usize {
        match self {
            Group::Sum { cards, .. } => *cards,
            Group::Set { ranks } => ranks.len(),
        }
    }

    fn admits(&self, rank: usize) -> bool {
        match self {
            Group::Sum { allowed, .. } => allowed[rank],
            Group::Set { ranks } => ranks.contains(&rank),
        }
    }
}

/// A group compiled for the hot loop.
#[derive(Debug, Clone)]
enum Fast {
    /// A two-card sum group: `partners[r]` are the ranks completing rank r.
    Pair { partners: Vec<Vec<usize>> },
    /// One card of each of these distinct ranks (a bit mask of ranks).
    Distinct { ranks: u64 },
    /// Anything else: searched pile by pile.
    General,
}

#[derive(Debug, Clone)]
pub struct Covering {
    pub deck: Deck,
    pub piles: usize,
    pub groups: Vec<Group>,
    fast: Vec<Fast>,
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
        let table = table.get_or_insert_with(|| Table::new(self.piles, self.deck.ranks.len()));
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
        let table = table.get_or_insert_with(|| Table::new(self.piles, self.deck.ranks.len()));
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

/// The exposed cards: the top rank of each pile and, per rank, the piles
/// showing it.
pub struct Table {
    top: Vec<usize>,
    count: Vec<usize>,
    showing: Vec<u64>,
}

impl Table {
    fn new(piles: usize, ranks: usize) -> Table {
        Table { top: Vec::with_capacity(piles), count: Vec::with_capacity(piles), showing: vec![0; ranks] }
    }

    fn clear(&mut self) {
        self.top.clear();
        self.count.clear();
        self.showing.iter_mut().for_each(|m| *m = 0);
    }

    fn piles(&self) -> usize {
        self.top.len()
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
        let fast = groups
            .iter()
            .map(|g| match g {
                Group::Sum { cards: 2, allowed, total } => Fast::Pair {
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
                Group::Set { ranks } if nr <= 64 && ranks.iter().enumerate().all(|(i, r)| !ranks[..i].contains(r)) => {
                    Fast::Distinct { ranks: ranks.iter().fold(0u64, |m, &r| m | 1 << r) }
                }
                _ => Fast::General,
            })
            .collect();
        Covering {
            deck,
            piles,
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
        t.clear();
        let mut chosen = Vec::with_capacity(8);
        let mut next = 0;
        while next < cards.len() {
            chosen.clear();
            if let Some(group) = self.find_group(t, &mut chosen) {
                step(Step::Cover { group, piles: &chosen, first: next });
                for &p in &chosen {
                    let Some(&card) = cards.get(next) else { break };
                    next += 1;
                    let old = t.top[p];
                    t.showing[old] &= !(1 << p);
                    let r = self.deck.rank(card);
                    t.top[p] = r;
                    t.showing[r] |= 1 << p;
                    t.count[p] += 1;
                }
                continue;
            }
            if t.piles() == self.piles {
                return Some(next + 1);
            }
            step(Step::Pile { card: next });
            let r = self.deck.rank(cards[next]);
            t.showing[r] |= 1 << t.piles();
            t.top.push(r);
            t.count.push(1);
            next += 1;
        }
        None
    }

    /// Plays one deal, showing each move to `step` (for explanations).
    pub fn play_traced(&self, cards: &[Card], step: &mut impl FnMut(Step<'_>)) -> Outcome {
        let mut t = Table::new(self.piles, self.deck.ranks.len());
        match self.play_on(&mut t, cards, step) {
            None => Outcome::Played(t.count),
            Some(card) => Outcome::Overflow(card),
        }
    }

    /// The piles whose exposed card can start group `g`.
    fn eligible(&self, t: &Table, g: usize) -> u64 {
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
        }
    }

    /// The group to cover now, as piles in covering order: the eligible
    /// card on the lowest pile (its first group in file order), then its
    /// partners on the lowest piles.
    fn find_group(&self, t: &Table, chosen: &mut Vec<usize>) -> Option<usize> {
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
        self.start(t, g, p, chosen).then_some(g)
    }

    /// Starts group `g` at pile `p` and completes it with the lowest piles.
    fn start(&self, t: &Table, g: usize, p: usize, chosen: &mut Vec<usize>) -> bool {
        if !self.groups[g].admits(t.top[p]) {
            return false;
        }
        chosen.clear();
        chosen.push(p);
        let used = 1u64 << p;
        match &self.fast[g] {
            Fast::Pair { partners } => {
                let mate = partners[t.top[p]].iter().fold(0u64, |m, &q| m | t.showing[q]) & !used;
                if mate == 0 {
                    return false;
                }
                chosen.push(mate.trailing_zeros() as usize);
                return true;
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
                return true;
            }
            Fast::General => {}
        }
        match &self.groups[g] {
            Group::Set { ranks } => self.complete_set(t, ranks, used, chosen),
            Group::Sum { cards, allowed, total } => {
                let left = total - self.deck.values[t.top[p]];
                self.complete_sum(t, allowed, cards - 1, left, used, chosen)
            }
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

    /// Sum groups: each further card is the lowest pile that still lets the
    /// remaining cards reach the total.
    fn complete_sum(
        &self,
        t: &Table,
        allowed: &[bool],
        more: usize,
        left: i64,
        used: u64,
        chosen: &mut Vec<usize>,
    ) -> bool {
        if more == 0 {
            return left == 0;
        }
        for q in 0..t.piles() {
            if used >> q & 1 == 1 || !allowed[t.top[q]] {
                continue;
            }
            chosen.push(q);
            if self.complete_sum(t, allowed, more - 1, left - self.deck.values[t.top[q]], used | 1 << q, chosen) {
                return true;
            }
            chosen.pop();
        }
        false
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
        let pair = Group::Sum { cards: 2, allowed: (0..13).map(|r| r < 10).collect(), total: 11 };
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
