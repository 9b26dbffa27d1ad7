//! The card path without its hand table.
//!
//! Tabulating every hand (2,598,960 for five cards of 52) and the payout
//! sums of every set of cards costs tens of milliseconds, and a deal's
//! sums are then scattered reads over megabytes. When the only rows that
//! look at suits ask for the whole hand in one suit (a flush, a straight
//! flush, a royal flush), a hand's row is its row without those rows
//! unless all its cards share a suit. So the payout sum of the hands that
//! contain a set of cards U is the rank path's total for U's rank multiset
//! (the table without the suited rows), plus a correction from the hands
//! of one suit, which contain U only when U is of one suit:
//!
//! ```text
//! delta(R)  = pays(row of the hand of ranks R in one suit) - pays(its row by ranks only)
//! sup(X)    = sum of delta(R) over the rank sets R of a hand that contain X
//! totals(U) = ranks(multiset of U) + (sup(rank set of U) when U is of one suit, 0 otherwise)
//! ```
//!
//! with `totals` of the empty set corrected by `sup` of the empty set once
//! per suit. A deal's 2^hand subsets are each numbered by their rank
//! multiset as they are counted (one addition each: the deal sorted by card
//! number is sorted by rank), looked up in one flat table of every level
//! (8,500 entries for five cards of thirteen ranks) and in `sup` (2^ranks
//! entries), and the same inclusion and exclusion as the full table's
//! gives the sum of keeping each subset. Both parts are exact integers, so
//! the sums are the full table's to the unit, and the choices the same;
//! the tables take well under a millisecond to build and stay in the
//! nearest caches, so a class's sums cost about 160 ns, less than its
//! scattered reads in the full table. Runs use this path whenever it
//! applies; `analyze` and `strategy` use the full table.

use super::eval::{Eval, KeyMemo, NONE};
use super::hands::subtract_supersets;
use super::pattern::is_suited;
use super::ranks::{row_of_ranks, RankPath};
use super::{Exchange, Row, Scratch};
use crate::engines::cards::Card;

/// Most ranks of a deck for this path (`sup` has 2^ranks entries).
const MAX_LIGHT_RANKS: usize = 16;
/// Largest hand for this path (the class memo's: see `hands.rs`).
const MAX_LIGHT_HAND: usize = 6;

/// Each subset of up to [`MAX_LIGHT_HAND`] positions (as a mask): the
/// subset without its last position, that position, and the size of the
/// rest.
const SUBSETS: [(u8, u8, u8); 1 << MAX_LIGHT_HAND] = {
    let mut t = [(0u8, 0u8, 0u8); 1 << MAX_LIGHT_HAND];
    let mut m = 1;
    while m < t.len() {
        let last = usize::BITS - 1 - m.leading_zeros();
        t[m] = ((m ^ 1 << last) as u8, last as u8, (m.count_ones() - 1) as u8);
        m += 1;
    }
    t
};

/// The rank-only totals and the corrections of the hands of one suit.
#[derive(Debug)]
pub(super) struct Light {
    /// Every level's totals by rank key (of the table without its suited
    /// rows), level by level from the empty set's: below the smallest kept
    /// size zeros, at the hand's size the payout of the hand's row by ranks.
    flat: Vec<i64>,
    /// `step[r][k]`: from the place in `flat` of a multiset of k ranks, all
    /// at most r, to the place of that multiset with one more r.
    step: Vec<[u32; MAX_LIGHT_HAND]>,
    /// `sup` above, by rank mask, one place on: `sup[0]` is 0, for the sets
    /// of two suits.
    sup: Vec<i64>,
    /// Each card's rank and suit.
    card: Vec<(u8, u8)>,
    suits: i64,
}

impl Light {
    /// The light path of an engine, when its rows allow it: no wild card,
    /// one pack, and every row that looks at suits one suited part of the
    /// whole hand.
    pub(super) fn new(ex: &Exchange) -> Option<Light> {
        let (deck, h) = (&ex.deck, ex.hand);
        let nr = deck.ranks.len();
        let ns = deck.suits.len();
        let one_suit = |r: &Row| r.parts.len() == 1 && r.parts[0].suited && r.parts[0].size() == h;
        if deck.wild.iter().any(|&w| w)
            || !deck.jokers.is_empty()
            || nr > MAX_LIGHT_RANKS
            || deck.size() != nr * ns
            || h > MAX_LIGHT_HAND
            || ns > 32
            || ex.rows.iter().any(|r| is_suited(&r.parts) && !one_suit(r))
        {
            return None;
        }
        // Cards sorted by number must be sorted by rank (rank-major
        // numbering), since keys are counted along the sorted deal.
        if (1..deck.size()).any(|c| deck.rank(c as Card) < deck.rank(c as Card - 1)) {
            return None;
        }
        let plain: Vec<usize> = (0..ex.rows.len()).filter(|&i| !is_suited(&ex.rows[i].parts)).collect();
        let rows: Vec<Row> = plain.iter().map(|&i| ex.rows[i].clone()).collect();
        let mut pays = [0i64; 256];
        for (j, &i) in plain.iter().enumerate() {
            pays[j] = ex.pays[i];
        }
        let eval = Eval::new(deck, h, &rows);
        let path = RankPath::new(&eval, ns, h, ex.min_kept, &pays);
        let mut at = [0usize; MAX_LIGHT_HAND + 1];
        let mut flat = Vec::new();
        for (k, start) in at.iter_mut().enumerate().take(h + 1) {
            *start = flat.len();
            let count = eval.keys.count(k);
            if k == h {
                flat.extend((0..count).map(|key| pays[eval.row_of_key(key) as usize]));
            } else if k >= ex.min_kept {
                flat.extend((0..count).map(|key| path.total(k, key)));
            } else {
                flat.resize(flat.len() + count, 0);
            }
        }
        let mut sup = vec![0i64; 1 << nr];
        // The rows of the hands of one suit, from the patterns (the full
        // rank-key tables are not needed: 1,287 keys of 6,188 for five
        // cards of thirteen ranks).
        let full = Eval::rows_only(deck, h, &ex.rows);
        let mut memo = KeyMemo::new(&full);
        let mut ranks = Vec::with_capacity(h);
        let mut cards = Vec::with_capacity(h);
        for (set, slot) in sup.iter_mut().enumerate() {
            if set.count_ones() as usize != h {
                continue;
            }
            ranks.clear();
            ranks.extend((0..nr as u8).filter(|r| set >> r & 1 == 1));
            cards.clear();
            cards.extend(ranks.iter().map(|&r| r as u16 * ns as u16));
            let by_cards = ex.pays[memo.row_of_cards(&full, &cards) as usize];
            let by_ranks = row_of_ranks(&eval, &ranks);
            *slot = by_cards - if by_ranks == NONE { 0 } else { pays[by_ranks as usize] };
        }
        for b in 0..nr {
            for set in 0..sup.len() {
                if set >> b & 1 == 0 {
                    sup[set] += sup[set | 1 << b];
                }
            }
        }
        let step = (0..nr)
            .map(|r| {
                let mut s = [0u32; MAX_LIGHT_HAND];
                for (k, slot) in s.iter_mut().enumerate().take(h) {
                    *slot = (at[k + 1] - at[k] + eval.keys.term(k, r as u8)) as u32;
                }
                s
            })
            .collect();
        let sup = std::iter::once(0).chain(sup).collect();
        let card = (0..deck.size()).map(|c| (deck.rank(c as Card) as u8, deck.suit(c as Card) as u8)).collect();
        Some(Light { flat, step, sup, card, suits: ns as i64 })
    }

    /// The payout sums of keeping each subset of a deal sorted by card
    /// number (masks over its positions), as [`super::hands::CardPath::sums`]
    /// gives them (subsets below the smallest kept size: zero).
    pub(super) fn sums(&self, sorted: &[u16], f: &mut [i64]) {
        // Each hand size with its own code: the loops over the subsets
        // unrolled, every index known.
        match sorted.len() {
            1 => self.sums_of::<1>(sorted, f),
            2 => self.sums_of::<2>(sorted, f),
            3 => self.sums_of::<3>(sorted, f),
            4 => self.sums_of::<4>(sorted, f),
            5 => self.sums_of::<5>(sorted, f),
            _ => self.sums_of::<MAX_LIGHT_HAND>(sorted, f),
        }
    }

    #[inline(always)]
    fn sums_of<const H: usize>(&self, sorted: &[u16], f: &mut [i64]) {
        let sorted = &sorted[..H];
        let f = &mut f[..1 << H];
        // Each card's steps, rank bit and suit bit.
        let mut step = [[0u32; MAX_LIGHT_HAND]; MAX_LIGHT_HAND];
        let mut rank_bit = [0u32; MAX_LIGHT_HAND];
        let mut suit_bit = [0u32; MAX_LIGHT_HAND];
        for (i, &c) in sorted.iter().enumerate() {
            let (rank, suit) = self.card[c as usize];
            step[i] = self.step[rank as usize];
            rank_bit[i] = 1 << rank;
            suit_bit[i] = 1 << suit;
        }
        // Per subset: its place in `flat`, its rank set and its suit set,
        // from the subset without its last card (whose place in the sorted
        // multiset is the size of the rest). Levels below the smallest
        // kept size are zeros in `flat`; their corrections are left in (no
        // choice reads them). A set of two suits or more reads `sup[0]`
        // (no branch on the suits).
        let mut at = [0u32; 1 << MAX_LIGHT_HAND];
        let mut ranks = [0u32; 1 << MAX_LIGHT_HAND];
        let mut suits = [0u32; 1 << MAX_LIGHT_HAND];
        f[0] = self.flat[0] + self.suits * self.sup[1];
        for m in 1..1 << H {
            let (rest, last, k) = SUBSETS[m];
            let (rest, last) = (rest as usize, last as usize);
            at[m] = at[rest] + step[last][k as usize];
            ranks[m] = ranks[rest] | rank_bit[last];
            suits[m] = suits[rest] | suit_bit[last];
            let one_suit = (suits[m] & (suits[m] - 1) == 0) as u32;
            f[m] = self.flat[at[m] as usize] + self.sup[((ranks[m] + 1) * one_suit) as usize];
        }
        subtract_supersets(f, H);
    }
}

impl Exchange {
    /// The optimal kept subsets of a class of deals (sorted by card
    /// number): from the light path where it applies, else from the table
    /// of every hand.
    pub(super) fn class_optimal(&self, sorted: &[u16], scratch: &mut Scratch) -> u64 {
        match self.light_optimal(sorted, scratch) {
            Some(o) => o,
            None => self.optimal_kept(self.card_path().expect("card path"), sorted, scratch),
        }
    }

    /// The optimal kept subsets of a deal sorted by card number from the
    /// light path, where it applies (none otherwise).
    pub(super) fn light_optimal(&self, sorted: &[u16], scratch: &mut Scratch) -> Option<u64> {
        let light = self.light()?;
        light.sums(sorted, &mut scratch.sums);
        Some(self.optimal_of(sorted.len(), &scratch.sums))
    }

    /// The light path, built on first use, where it applies.
    pub(super) fn light(&self) -> Option<&Light> {
        self.light.get_or_init(|| Light::new(self).map(Box::new)).as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile(text: &str) -> Exchange {
        let loaded = crate::load::load_text("light", text, std::path::Path::new(".")).unwrap();
        crate::engines::exchange::lower::compile(&loaded).unwrap_or_else(|d| panic!("{:?}", d[0].message))
    }

    /// The light path's sums against the full table's: for every deal of
    /// a deck small enough (at most 100,000 deals), else for `deals`
    /// random deals.
    fn same_sums(ex: &Exchange, deals: usize) {
        let light = Light::new(ex).expect("the light path applies");
        let path = ex.card_path().unwrap();
        let (n, h) = (ex.deck.size(), ex.hand);
        let mut got = vec![0i64; 1 << h];
        let mut want = vec![0i64; 1 << h];
        let mut idx = vec![0u32; 1 << h];
        let mut check = |deal: &[u16]| {
            path.sums(deal, ex.min_kept, &ex.pays, &mut want, &mut idx);
            light.sums(deal, &mut got);
            for (kept, &w) in want.iter().enumerate() {
                if kept.count_ones() as usize >= ex.min_kept {
                    assert_eq!(got[kept], w, "deal {deal:?}, kept {kept:b}");
                }
            }
        };
        if super::super::combi::binom(n as u64, h as u64) <= 100_000 {
            let mut deal: Vec<u16> = (0..h as u16).collect();
            let mut count = 0;
            loop {
                check(&deal);
                count += 1;
                if !super::super::combi::next_set(&mut deal, n) {
                    break;
                }
            }
            assert_eq!(count as u128, super::super::combi::binom(n as u64, h as u64));
            return;
        }
        let mut rng = crate::rng::SplitMix64::new(7);
        for _ in 0..deals {
            let mut cards: Vec<u16> = (0..n as u16).collect();
            rng.shuffle(&mut cards);
            let mut deal = cards[..h].to_vec();
            deal.sort_unstable();
            check(&deal);
        }
    }

    #[test]
    fn light_sums_are_the_full_tables() {
        let jacks = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/rules/video_poker.rules")).unwrap();
        same_sums(&compile(&jacks), 20_000);
        // Every deal of four cards of 36, where suits count (the fixture of
        // the parallel tests).
        same_sums(&compile(include_str!("../../../tests/fixtures/exchange/four-suited.rules")), 0);
        // A small deck, one card kept at least, wrap-around runs.
        same_sums(
            &compile(
                r#"
                engine: exchange
                deck { ranks: A 2 3 4 5 6  suits: x y z  wrap: yes }
                play { hand: 4  entry: 1  exchange: 0..3  cost: 1  prefer: fewer-cards leftmost }
                combination "low flush" { pattern: suited(ranks(A 2 3 4)) pays: 60 }
                combination "flush run" { pattern: suited(run(4))  pays: 40 }
                combination "run"       { pattern: run(4)          pays: 9 }
                combination "flush"     { pattern: suited(4)       pays: 7 }
                combination "pair"      { pattern: kind(2)         pays: 1 }
                output { stay: "Stay" exchange: "Exchange {cards}" }
                "#,
            ),
            400,
        );
    }

    /// Other shapes of game: hands of six with sixteen ranks, one suit
    /// (every set of cards is of one suit), hands of two, and at least one
    /// card kept.
    #[test]
    fn light_sums_are_the_full_tables_for_other_shapes() {
        let games = [
            r#"
            engine: exchange
            deck { ranks: 1 2 3 4 5 6 7 8 9 A B C D E F G  suits: x y z }
            play { hand: 6  exchange: 0..6  prefer: fewer-cards leftmost }
            combination "six suited" { pattern: suited(6)         pays: 50 }
            combination "six run"    { pattern: run(6)            pays: 20 }
            combination "triple"     { pattern: kind(3)           pays: 5 }
            combination "two pairs"  { pattern: kind(2) + kind(2) pays: 3 }
            combination "pair"       { pattern: kind(2)           pays: 1 }
            output { stay: "Stay" exchange: "Exchange {cards}" }
            "#,
            r#"
            engine: exchange
            deck { ranks: A 2 3 4 5 6 7  suits: x }
            play { hand: 3  entry: 1  exchange: 1..2  cost: 1  prefer: more-cards rightmost }
            combination "run flush" { pattern: suited(run(3)) pays: 9 }
            combination "flush"     { pattern: suited(3)      pays: 2 }
            output { stay: "Stay" exchange: "Exchange {cards}" }
            "#,
            r#"
            engine: exchange
            deck { ranks: 2 3 4 5 6 7 8 9 T J Q K A  suits: C D H S }
            play { hand: 2  exchange: 0..2  prefer: fewer-cards leftmost }
            combination "suited AK"    { pattern: suited(ranks(A K)) pays: 40 }
            combination "suited"      { pattern: suited(2)          pays: 3 }
            combination "pair"        { pattern: kind(2)            pays: 5 }
            output { stay: "Stay" exchange: "Exchange {cards}" }
            "#,
        ];
        for text in games {
            same_sums(&compile(text), 3_000);
        }
    }

    #[test]
    fn a_row_of_part_of_the_hand_in_one_suit_needs_the_full_table() {
        let ex = compile(
            r#"
            engine: exchange
            deck { ranks: A 2 3 4 5 6  suits: x y z }
            play { hand: 4  exchange: 0..4  prefer: fewer-cards leftmost }
            combination "three suited" { pattern: suited(3) pays: 5 }
            combination "pair"         { pattern: kind(2)   pays: 1 }
            output { stay: "Stay" exchange: "Exchange {cards}" }
            "#,
        );
        assert!(Light::new(&ex).is_none());
    }
}
