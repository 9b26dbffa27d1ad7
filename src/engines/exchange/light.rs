//! The card path without its hand table, for the first deals of a run.
//!
//! Tabulating every hand (2,598,960 for five cards of 52) costs tens of
//! milliseconds before the first deal: most of a short run. When the only
//! rows that look at suits ask for the whole hand in one suit (a flush, a
//! straight flush, a royal flush), a hand's row is its row without those
//! rows unless all its cards share a suit. So the payout sums of a deal are
//! the rank path's sums for the table without the suited rows, plus a
//! correction from the hands of one suit:
//!
//! ```text
//! delta(R) = pays(row of the hand of ranks R in one suit) - pays(its row by ranks only)
//! sup(X)   = sum of delta(R) over the rank sets R that contain X
//! ```
//!
//! A hand of one suit s drawn to a kept set K (no card of the deal outside
//! K) meets the deal's cards of suit s exactly in K, so by inclusion and
//! exclusion over the deal's other cards of that suit:
//!
//! ```text
//! correction(K) = sum over J <= (cards of s in the deal) - K of (-1)^|J| * sup(ranks of K + J)
//! ```
//!
//! for K within one suit s (none for a K of two suits; for the empty K, the
//! sum over the suits). Both parts are exact integers, so the sums are the
//! table's, to the unit, and the choices the same. The rank tables and
//! `sup` (2^ranks entries) take well under a millisecond; each deal then
//! costs a few microseconds, more than a look-up in the full table: after
//! [`LIGHT_DEALS`] deals valued this way, the engine builds the full table.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::eval::{Eval, KeyMemo, NONE};
use super::hands::subtract_supersets;
use super::pattern::is_suited;
use super::ranks::{row_of_ranks, RankBox, RankPath};
use super::{Exchange, Row, Scratch, MAX_HAND};

/// Most ranks of a deck for this path (`sup` has 2^ranks entries).
const MAX_LIGHT_RANKS: usize = 16;
/// Largest hand for this path (the class memo's: see `hands.rs`).
const MAX_LIGHT_HAND: usize = 6;
/// Classes of deals valued without the hand table before it is built.
pub(super) const LIGHT_DEALS: usize = 20_000;

/// The rank-only tables and the corrections of the hands of one suit.
#[derive(Debug)]
pub(super) struct Light {
    /// The table without its suited rows, and its payouts.
    eval: Eval,
    path: RankPath,
    pays: [i64; 256],
    /// `sup` above, by rank mask.
    sup: Vec<i64>,
    /// Deals valued so far.
    used: AtomicUsize,
}

impl Light {
    /// The light path of an engine, when its rows allow it: no wild card,
    /// one pack, and every row that looks at suits one suited part of the
    /// whole hand.
    pub(super) fn new(ex: &Exchange) -> Option<Light> {
        let (deck, h) = (&ex.deck, ex.hand);
        let nr = deck.ranks.len();
        let one_suit = |r: &Row| r.parts.len() == 1 && r.parts[0].suited && r.parts[0].size() == h;
        if deck.wild.iter().any(|&w| w)
            || !deck.jokers.is_empty()
            || nr > MAX_LIGHT_RANKS
            || deck.size() != nr * deck.suits.len()
            || h > MAX_LIGHT_HAND
            || ex.rows.iter().any(|r| is_suited(&r.parts) && !one_suit(r))
        {
            return None;
        }
        let plain: Vec<usize> = (0..ex.rows.len()).filter(|&i| !is_suited(&ex.rows[i].parts)).collect();
        let rows: Vec<Row> = plain.iter().map(|&i| ex.rows[i].clone()).collect();
        let mut pays = [0i64; 256];
        for (j, &i) in plain.iter().enumerate() {
            pays[j] = ex.pays[i];
        }
        let eval = Eval::new(deck, h, &rows);
        let path = RankPath::new(&eval, deck.suits.len(), h, ex.min_kept, &pays);
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
            cards.extend(ranks.iter().map(|&r| r as u16 * deck.suits.len() as u16));
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
        Some(Light { eval, path, pays, sup, used: AtomicUsize::new(0) })
    }

    /// The payout sums of keeping each subset of a deal sorted by card
    /// number (masks over its positions), as [`super::hands::CardPath::sums`]
    /// gives them; false once [`LIGHT_DEALS`] deals were valued.
    pub(super) fn sums(&self, ex: &Exchange, sorted: &[u16], scratch: &mut Scratch) -> bool {
        if self.used.fetch_add(1, Ordering::Relaxed) >= LIGHT_DEALS {
            return false;
        }
        let (deck, h) = (&ex.deck, sorted.len());
        let mut ranks = [0u8; MAX_HAND];
        for (r, &c) in ranks.iter_mut().zip(sorted) {
            *r = deck.rank(c) as u8;
        }
        let b = RankBox::of(&self.eval, &ranks[..h]);
        let mut by_ranks = std::mem::take(&mut scratch.light);
        self.path.sums(&self.eval, &b, h, ex.min_kept, &self.pays, &mut by_ranks);
        // Each position's step in the box's numbering of points.
        let mut stride = [0usize; MAX_HAND];
        let mut step = 1;
        for d in 0..b.m {
            for (i, s) in stride.iter_mut().enumerate().take(h) {
                if ranks[i] == b.ranks[d] {
                    *s = step;
                }
            }
            step *= b.counts[d] as usize + 1;
        }
        let full = (1usize << h) - 1;
        let f = &mut scratch.sums[..=full];
        let mut x = [0usize; 1 << MAX_LIGHT_HAND];
        for m in 1..=full {
            let low = m.trailing_zeros() as usize;
            x[m] = x[m & (m - 1)] + stride[low];
            f[m] = by_ranks[x[m]];
        }
        f[0] = by_ranks[0];
        scratch.light = by_ranks;
        self.correct(deck, sorted, f);
        true
    }

    /// Adds the corrections of the hands of one suit to `f`.
    fn correct(&self, deck: &crate::engines::cards::Deck, sorted: &[u16], f: &mut [i64]) {
        let ns = deck.suits.len();
        let mut empty = 0i64;
        let mut v = [0i64; 1 << MAX_LIGHT_HAND];
        for s in 0..ns {
            // This suit's cards of the deal: positions and ranks.
            let mut pos = [0usize; MAX_HAND];
            let mut rank_bit = [0usize; MAX_HAND];
            let mut n = 0;
            for (i, &c) in sorted.iter().enumerate() {
                if deck.suit(c) == s {
                    pos[n] = i;
                    rank_bit[n] = 1 << deck.rank(c);
                    n += 1;
                }
            }
            let local = (1usize << n) - 1;
            let mut set = [0usize; 1 << MAX_LIGHT_HAND];
            for t in 1..=local {
                let low = t.trailing_zeros() as usize;
                set[t] = set[t & (t - 1)] | rank_bit[low];
            }
            for t in 0..=local {
                v[t] = self.sup[set[t]];
            }
            subtract_supersets(&mut v[..=local], n);
            empty += v[0];
            for (t, &corr) in v[..=local].iter().enumerate().skip(1) {
                let m = (0..n).filter(|&j| t >> j & 1 == 1).fold(0usize, |m, j| m | 1 << pos[j]);
                f[m] += corr;
            }
        }
        f[0] += empty;
    }
}

impl Exchange {
    /// The optimal kept subsets of a class of deals (sorted by card
    /// number): from the light path while it applies, else from the table
    /// of every hand.
    pub(super) fn class_optimal(&self, sorted: &[u16], scratch: &mut Scratch) -> u64 {
        match self.light_optimal(sorted, scratch) {
            Some(o) => o,
            None => self.optimal_kept(self.card_path().expect("card path"), sorted, scratch),
        }
    }

    /// The optimal kept subsets of a deal sorted by card number from the
    /// light path, while the full table is not built and the light path
    /// applies (none otherwise).
    pub(super) fn light_optimal(&self, sorted: &[u16], scratch: &mut Scratch) -> Option<u64> {
        if self.card_path_built() {
            return None;
        }
        let light = self.light.get_or_init(|| Light::new(self).map(Box::new)).as_ref()?;
        light.sums(self, sorted, scratch).then(|| self.optimal_of(sorted.len(), &scratch.sums))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile(text: &str) -> Exchange {
        let loaded = crate::load::load_text("light", text, std::path::Path::new(".")).unwrap();
        crate::engines::exchange::lower::compile(&loaded).unwrap_or_else(|d| panic!("{:?}", d[0].message))
    }

    /// The light path's sums against the full table's, for random deals
    /// (and every deal of a deck small enough).
    fn same_sums(ex: &Exchange, deals: usize) {
        let light = Light::new(ex).expect("the light path applies");
        let path = ex.card_path().unwrap();
        let (n, h) = (ex.deck.size(), ex.hand);
        let mut rng = crate::rng::SplitMix64::new(7);
        let mut scratch = Scratch::default();
        let mut want = vec![0i64; 1 << h];
        let mut idx = vec![0u32; 1 << h];
        for _ in 0..deals {
            let mut cards: Vec<u16> = (0..n as u16).collect();
            rng.shuffle(&mut cards);
            let mut deal = cards[..h].to_vec();
            deal.sort_unstable();
            path.sums(&deal, ex.min_kept, &ex.pays, &mut want, &mut idx);
            light.used.store(0, Ordering::Relaxed);
            assert!(light.sums(ex, &deal, &mut scratch));
            for (kept, &w) in want.iter().enumerate() {
                if kept.count_ones() as usize >= ex.min_kept {
                    assert_eq!(scratch.sums[kept], w, "deal {deal:?}, kept {kept:b}");
                }
            }
        }
    }

    #[test]
    fn light_sums_are_the_full_tables() {
        let jacks = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/rules/video_poker.rules")).unwrap();
        same_sums(&compile(&jacks), 300);
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
