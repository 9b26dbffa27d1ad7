//! The covering engine's groups compiled for the hot loop: masks of ranks
//! and tables by rank for the groups judged by the ranks shown, subset-sum
//! tables for sums, and [`cond::CondGroup`] for groups with conditions.

use super::cond::{self, CondGroup};
use super::{Conds, Group, Same, SumTable};
use crate::engines::cards::{Card, Deck};

/// A group compiled for the hot loop. Ranks and piles are bits of `u64`s
/// (at most 64 of each: `check` bounds both).
#[derive(Debug, Clone)]
pub(super) enum Fast {
    /// A two-card sum group: the ranks completing each rank (a mask per
    /// rank, the rank itself included when two of it make the group), the
    /// ranks that pair with themselves, and, for decks of at most
    /// [`SMALL_RANKS`] ranks, the eligible ranks for each set of ranks
    /// shown (a mask indexed by a mask; two cards of one rank aside).
    Pair { partners: Vec<u64>, selfs: u64, by_shown: Vec<u16> },
    /// A set group: `need[i].1` cards of rank `need[i].0`; the ranks
    /// needed, those needed twice or more, and whether one is needed
    /// three times or more.
    Set { need: Vec<(u8, u8)>, all: u64, twice: u64, thrice: bool },
    /// A two-card sum group of one suit: the ranks completing each rank,
    /// and the ranks allowed (masks).
    SuitPair { partners: Vec<u64>, ranks: u64 },
    /// `n` cards of one rank among `ranks` (a bit mask).
    SameRank { n: usize, ranks: u64 },
    /// `n` cards of one suit, of ranks among `ranks`.
    SameSuit { n: usize, ranks: u64 },
    /// A sum group of more cards, or of one suit.
    Sum(FastSum),
    /// A group with conditions on its cards and piles (see [`cond`]).
    Cond(std::sync::Arc<CondGroup>),
}

/// Most ranks for which a pair group's eligible ranks are tabulated for
/// every set of ranks shown (2^14 entries of two bytes).
pub(super) const SMALL_RANKS: usize = 14;

/// A sum group searched by table (see [`SumTable::first_group`]).
#[derive(Debug, Clone)]
pub(crate) struct FastSum {
    pub(super) table: SumTable,
    pub(super) cards: usize,
    /// The ranks allowed (a mask), and whether the cards share a suit.
    pub(super) ranks: u64,
    pub(super) same_suit: bool,
}

/// The ranks of `shown` (a mask) that a pair group with these `partners`
/// makes eligible through a partner of another rank.
pub(super) fn pair_ranks(partners: &[u64], shown: u64) -> u64 {
    let mut elig = 0;
    let mut rs = shown;
    while rs != 0 {
        let r = rs.trailing_zeros() as usize;
        if partners[r] & !(1 << r) & shown != 0 {
            elig |= 1 << r;
        }
        rs &= rs - 1;
    }
    elig
}

/// A group without conditions compiled for the hot loop.
pub(super) fn fast_of(deck: &Deck, g: &Group) -> Fast {
    let nr = deck.ranks.len();
    let mask = |allowed: &[bool]| (0..nr).filter(|&r| allowed[r]).fold(0u64, |m, r| m | 1 << r);
    // The ranks completing each rank to `total` (a mask per rank).
    let partners = |allowed: &[bool], total: i64| -> Vec<u64> {
        let sums =
            |r: usize, q: usize| allowed[r] && allowed[q] && deck.values[r].checked_add(deck.values[q]) == Some(total);
        (0..nr).map(|r| (0..nr).filter(|&q| sums(r, q)).fold(0, |m, q| m | 1 << q)).collect()
    };
    match g {
        Group::Sum { cards: 2, allowed, total, same_suit: false } => {
            let partners = partners(allowed, *total);
            let selfs = (0..nr).filter(|&r| partners[r] >> r & 1 == 1).fold(0, |m, r| m | 1 << r);
            let by_shown = if nr <= SMALL_RANKS {
                (0..1u64 << nr).map(|shown| pair_ranks(&partners, shown) as u16).collect()
            } else {
                Vec::new()
            };
            Fast::Pair { partners, selfs, by_shown }
        }
        Group::Sum { cards: 2, allowed, total, same_suit: true } => {
            Fast::SuitPair { partners: partners(allowed, *total), ranks: mask(allowed) }
        }
        Group::Sum { cards, allowed, total, same_suit } => {
            Fast::Sum(fast_sum(deck, *cards, allowed, *total, *same_suit))
        }
        Group::Set { ranks } => {
            let mut need: Vec<(u8, u8)> = Vec::new();
            for &r in ranks {
                match need.iter_mut().find(|(q, _)| *q as usize == r) {
                    Some((_, n)) => *n += 1,
                    None => need.push((r as u8, 1)),
                }
            }
            let all = need.iter().fold(0, |m, &(r, _)| m | 1 << r);
            let twice = need.iter().filter(|&&(_, n)| n >= 2).fold(0, |m, &(r, _)| m | 1 << r);
            let thrice = need.iter().any(|&(_, n)| n >= 3);
            Fast::Set { need, all, twice, thrice }
        }
        Group::Same { cards, allowed, by: Same::Rank } => Fast::SameRank { n: *cards, ranks: mask(allowed) },
        Group::Same { cards, allowed, by: Same::Suit } => Fast::SameSuit { n: *cards, ranks: mask(allowed) },
        Group::Any { .. } => Fast::Cond(std::sync::Arc::new(cond_of(deck, g, Conds::default()))),
    }
}

/// The table of a sum group.
fn fast_sum(deck: &Deck, cards: usize, allowed: &[bool], total: i64, same_suit: bool) -> FastSum {
    let nr = deck.ranks.len();
    FastSum {
        // `check` refused targets too far away; none is left here.
        table: SumTable::new(&deck.values, cards, allowed, total)
            .unwrap_or(SumTable { step: vec![0; nr], target: None }),
        cards,
        ranks: (0..nr).filter(|&r| allowed[r]).fold(0u64, |m, r| m | 1 << r),
        same_suit,
    }
}

/// A group with conditions compiled for the search (see [`cond`]).
pub(crate) fn cond_of(deck: &Deck, g: &Group, conds: Conds) -> CondGroup {
    use cond::CondKind;
    let nr = deck.ranks.len();
    let mask = |allowed: &[bool]| (0..nr).filter(|&r| allowed[r]).fold(0u64, |m, r| m | 1 << r);
    let (kind, ranks) = match g {
        Group::Sum { cards, allowed, total, same_suit } => (
            CondKind::Sum {
                total: *total,
                same_suit: *same_suit,
                sum: fast_sum(deck, *cards, allowed, *total, *same_suit),
            },
            mask(allowed),
        ),
        Group::Set { ranks } => {
            let mut need = vec![0u8; nr];
            ranks.iter().for_each(|&r| need[r] = need[r].saturating_add(1));
            (CondKind::Set(need), ranks.iter().fold(0u64, |m, &r| m | 1 << r))
        }
        Group::Same { allowed, by: Same::Rank, .. } => (CondKind::SameRank, mask(allowed)),
        Group::Same { allowed, by: Same::Suit, .. } => (CondKind::SameSuit, mask(allowed)),
        Group::Any { allowed, .. } => (CondKind::Any, mask(allowed)),
    };
    let ncards = deck.ranked_size();
    // The ranks completing each rank, for a sum of two cards.
    let partners = match g {
        Group::Sum { cards: 2, allowed, total, .. } => (0..nr)
            .map(|r| {
                (0..nr)
                    .filter(|&q| allowed[r] && allowed[q] && deck.values[r].checked_add(deck.values[q]) == Some(*total))
                    .fold(0u64, |m, q| m | 1 << q)
            })
            .collect(),
        _ => Vec::new(),
    };
    cond::CondGroup {
        kind,
        cards: g.size(),
        ranks,
        partners,
        each: conds.each,
        between: conds.between,
        values: deck.values.clone(),
        rank_of: (0..ncards).map(|c| deck.rank(c as Card) as u8).collect(),
        suit_of: (0..ncards).map(|c| deck.suit(c as Card) as u8).collect(),
    }
}
