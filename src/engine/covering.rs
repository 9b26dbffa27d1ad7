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

use super::deck::{Card, Deck};
use crate::input::{InputError, Lines, Token};
use crate::run::{Output, RunError};
use crate::template::{Template, Val};

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

#[derive(Debug, Clone)]
pub struct Covering {
    pub deck: Deck,
    pub piles: usize,
    pub groups: Vec<Group>,
    /// Groups each rank can belong to, in rule-file order.
    groups_of: Vec<Vec<usize>>,
    /// Lines a deck is written on in the input.
    pub lines_per_deck: usize,
    pub terminator: String,
    pub played: Template,
    pub overflow: Template,
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

/// The exposed cards: the top rank of each pile and, per rank, the piles
/// showing it.
struct Table {
    top: Vec<usize>,
    count: Vec<usize>,
    showing: Vec<u64>,
}

impl Table {
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
        played: Template,
        overflow: Template,
    ) -> Covering {
        let groups_of = (0..deck.ranks.len()).map(|r| (0..groups.len()).filter(|&g| groups[g].admits(r)).collect()).collect();
        Covering { deck, piles, groups, groups_of, lines_per_deck, terminator, played, overflow }
    }

    /// Plays one deal.
    pub fn play(&self, cards: &[Card]) -> Outcome {
        let nr = self.deck.ranks.len();
        let mut t = Table { top: Vec::with_capacity(self.piles), count: Vec::with_capacity(self.piles), showing: vec![0; nr] };
        let mut chosen = Vec::with_capacity(8);
        let mut next = 0;
        while next < cards.len() {
            chosen.clear();
            if self.find_group(&t, &mut chosen) {
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
                return Outcome::Overflow(next + 1);
            }
            let r = self.deck.rank(cards[next]);
            t.showing[r] |= 1 << t.piles();
            t.top.push(r);
            t.count.push(1);
            next += 1;
        }
        Outcome::Played(t.count)
    }

    /// The group to cover now, as piles in covering order: the eligible
    /// card on the lowest pile, then its partners.
    fn find_group(&self, t: &Table, chosen: &mut Vec<usize>) -> bool {
        for p in 0..t.piles() {
            for &g in &self.groups_of[t.top[p]] {
                chosen.clear();
                chosen.push(p);
                let used = 1u64 << p;
                let ok = match &self.groups[g] {
                    Group::Set { ranks } => self.complete_set(t, ranks, used, chosen),
                    Group::Sum { cards, allowed, total } => {
                        let left = total - self.deck.values[t.top[p]];
                        self.complete_sum(t, allowed, cards - 1, left, used, chosen)
                    }
                };
                if ok {
                    return true;
                }
            }
        }
        false
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
    fn complete_sum(&self, t: &Table, allowed: &[bool], more: usize, left: i64, used: u64, chosen: &mut Vec<usize>) -> bool {
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

    /// Reads one deck: `lines_per_deck` lines of cards, no card twice.
    /// `None` at the terminator line.
    fn read_deck<'a>(&self, lines: &mut Lines<'a>, cards: &mut Vec<Card>, deck_no: usize) -> Result<Option<()>, InputError> {
        cards.clear();
        let size = self.deck.size();
        let per_line = size / self.lines_per_deck;
        let mut seen: Vec<Option<Token<'a>>> = vec![None; size];
        for l in 0..self.lines_per_deck {
            let Some(line) = lines.next_nonblank() else {
                let what = if l == 0 { format!("a deck or `{}`", self.terminator) } else { format!("line {} of deck {deck_no}", l + 1) };
                return Err(lines
                    .error_at_end(format!("expected {what}, found end of input"))
                    .with_help(format!("a deck is {size} cards on {} lines; the input ends with `{}`", self.lines_per_deck, self.terminator)));
            };
            if l == 0 && line.text.trim() == self.terminator {
                return Ok(None);
            }
            let mut n = 0;
            for tok in line.tokens() {
                if n == per_line {
                    return Err(tok
                        .error(format!("expected {per_line} cards on this line, found more"))
                        .with_help(format!("a deck is {size} cards on {} lines of {per_line}", self.lines_per_deck)));
                }
                let Some(card) = self.deck.parse_card(tok.text) else {
                    return Err(tok.error(self.deck.explain_bad_card(tok.text)));
                };
                if let Some(first) = seen[card as usize] {
                    let (fl, fc) = InputError::new(first.offset, 0, "").line_col(lines.input());
                    return Err(tok
                        .error(format!("card `{}` appears twice in deck {deck_no}", tok.text))
                        .with_help(format!("it was already dealt at line {fl}, column {fc}; a deck holds each card once")));
                }
                seen[card as usize] = Some(tok);
                cards.push(card);
                n += 1;
            }
            if n < per_line {
                return Err(line
                    .error_at_end(format!("expected {per_line} cards on this line, found {n}"))
                    .with_help(format!("a deck is {size} cards on {} lines of {per_line}", self.lines_per_deck)));
            }
        }
        Ok(Some(()))
    }

    /// Plays every deck of the input, one output line each.
    pub fn run(&self, input: &str, out: &mut Output) -> Result<(), RunError> {
        let mut lines = Lines::new(input);
        let mut cards = Vec::with_capacity(self.deck.size());
        let mut deck_no = 0;
        loop {
            deck_no += 1;
            if self.read_deck(&mut lines, &mut cards, deck_no)?.is_none() {
                return Ok(());
            }
            let buf = out.buffer();
            match self.play(&cards) {
                Outcome::Played(piles) => {
                    let piles: Vec<i64> = piles.iter().map(|&n| n as i64).collect();
                    self.played.line(buf, &[Val::Int(deck_no as i64), Val::Ints(&piles)]);
                }
                Outcome::Overflow(card) => self.overflow.line(buf, &[Val::Int(deck_no as i64), Val::Int(card as i64)]),
            }
            out.end_case()?;
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
        Covering::new(deck, 16, vec![pair, triple], 4, "#".into(), Template::literal(""), Template::literal(""))
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
