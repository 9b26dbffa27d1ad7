//! The card path: when a row looks at suits or some cards are wild, a
//! hand's row depends on its cards, so the engine tabulates every hand.
//!
//! - `hand_row[i]`: the paying row of the hand numbered i (colex order);
//! - `totals[k][U]`: the sum of the payouts of every hand that contains
//!   the k-set U, from the level above (each hand containing U is reached
//!   once for each of its `hand - k` cards not in U):
//!
//! ```text
//! totals[k][U] = sum over cards c not in U of totals[k + 1][U + c] / (hand - k)
//! ```
//!
//! The value of keeping a subset K of a deal D is then, by inclusion and
//! exclusion over the discarded cards (a draw must avoid them):
//!
//! ```text
//! sum(K) = sum over K <= U <= D of (-1)^|U - K| * totals[|U|][U]
//! ```
//!
//! which for every K of a deal at once is one transform over the 2^hand
//! subsets of the deal (hand * 2^(hand-1) subtractions).
//!
//! Deals are also grouped into classes by suit symmetry: a class is the
//! multiset of the rank masks of the suits (sorted), and every deal of a
//! class has the same values (`for_each_class`).

use rayon::prelude::*;

use super::combi::{binom, Colex};
use super::eval::Eval;
use crate::engines::cards::Deck;

/// Hands per parallel chunk when tabulating.
const CHUNK: usize = 1 << 14;
/// Sets per parallel chunk for the row-count tables of `analyze`.
pub const CHUNK_ROWS: usize = 1 << 12;

#[derive(Debug)]
pub struct CardPath {
    pub colex: Colex,
    /// Cards in the deck.
    pub n: usize,
    /// The paying row of every hand, by colex number.
    pub hand_row: Vec<u8>,
    /// `totals[k]` for k from the smallest kept size to `hand - 1`.
    pub totals: Vec<Vec<i64>>,
}

impl CardPath {
    /// Tabulates every hand and the totals down to `min_kept` cards.
    pub fn new(eval: &Eval, n: usize, hand: usize, min_kept: usize, pays: &[i64; 256]) -> CardPath {
        let colex = Colex::new(n, hand);
        let hand_row = hand_rows(eval, &colex, n, hand);
        let mut totals: Vec<Vec<i64>> = vec![Vec::new(); hand + 1];
        for k in (min_kept..hand).rev() {
            let count = colex.count(k);
            let mut level = vec![0i64; count];
            let above: &[i64] = if k + 1 < hand { &totals[k + 1] } else { &[] };
            let div = (hand - k) as i128;
            level.par_chunks_mut(CHUNK).enumerate().for_each(|(ci, chunk)| {
                let mut set = [0u16; super::MAX_HAND];
                let set = &mut set[..k];
                colex.unrank(ci * CHUNK, k, set);
                for slot in chunk.iter_mut() {
                    let mut sum: i128 = 0;
                    for_each_added(&colex, n, set, &mut |_, idx| {
                        sum += if k + 1 == hand { pays[hand_row[idx] as usize] } else { above[idx] } as i128;
                    });
                    *slot = (sum / div) as i64;
                    colex.next(set);
                }
            });
            totals[k] = level;
        }
        CardPath { colex, n, hand_row, totals }
    }

    /// The payout sums of keeping each subset (a mask over the sorted
    /// positions) of a deal sorted by card number: `f[kept]`. Subsets
    /// smaller than `min_kept` are left as garbage.
    #[inline]
    pub fn sums(&self, sorted: &[u16], min_kept: usize, pays: &[i64; 256], f: &mut [i64]) {
        let h = sorted.len();
        let full = (1usize << h) - 1;
        let mut idx = [0u32; 1 << super::MAX_CARD_HAND];
        for m in 1..=full {
            let top = usize::BITS - 1 - m.leading_zeros();
            let k = m.count_ones() as usize;
            idx[m] = idx[m ^ (1 << top)] + self.colex.c(sorted[top as usize] as usize, k) as u32;
        }
        for (m, slot) in f[..=full].iter_mut().enumerate() {
            let k = m.count_ones() as usize;
            *slot = if k == h {
                pays[self.hand_row[idx[m] as usize] as usize]
            } else if k >= min_kept {
                self.totals[k][idx[m] as usize]
            } else {
                0
            };
        }
        subtract_supersets(&mut f[..=full], h);
    }

    /// The row of a hand sorted by card number.
    pub fn row(&self, sorted: &[u16]) -> u8 {
        self.hand_row[self.colex.index(sorted)]
    }
}

/// For every mask m, `f[m] -= f[m | bit]` one bit at a time: afterwards
/// `f[K]` is the alternating sum over the supersets of K.
#[inline]
pub fn subtract_supersets<T: Copy + std::ops::SubAssign>(f: &mut [T], h: usize) {
    for b in 0..h {
        let bit = 1 << b;
        for m in 0..f.len() {
            if m & bit == 0 {
                let v = f[m | bit];
                f[m] -= v;
            }
        }
    }
}

/// The row of every hand of `hand` cards, by colex number, on every core.
fn hand_rows(eval: &Eval, colex: &Colex, n: usize, hand: usize) -> Vec<u8> {
    let _ = n;
    let mut rows = vec![0u8; colex.count(hand)];
    rows.par_chunks_mut(CHUNK).enumerate().for_each(|(ci, chunk)| {
        let mut set = [0u16; super::MAX_HAND];
        let set = &mut set[..hand];
        colex.unrank(ci * CHUNK, hand, set);
        for slot in chunk.iter_mut() {
            *slot = eval.row_of_cards(set);
            colex.next(set);
        }
    });
    rows
}

/// Calls `f(c, index of set + c)` for every card c not in the sorted
/// `set`, the index among the sets one larger.
#[inline]
pub fn for_each_added(colex: &Colex, n: usize, set: &[u16], f: &mut dyn FnMut(usize, usize)) {
    let k = set.len();
    // Inserted at position j: sum_{i<j} C(u_i, i+1) + C(c, j+1) + sum_{i>=j} C(u_i, i+2).
    let mut suffix = [0usize; super::MAX_HAND + 1];
    for i in (0..k).rev() {
        suffix[i] = suffix[i + 1] + colex.c(set[i] as usize, i + 2);
    }
    let mut prefix = 0usize;
    let mut j = 0;
    for c in 0..n {
        if j < k && set[j] as usize == c {
            prefix += colex.c(c, j + 1);
            j += 1;
            continue;
        }
        f(c, prefix + colex.c(c, j + 1) + suffix[j]);
    }
}

/// Calls `f(cards, weight)` with one deal of every class of deals under
/// suit symmetry (sorted by card number) and the number of deals in the
/// class. Suits with the same ranks are interchangeable, so a class is the
/// sorted list of the suits' rank masks, plus how many jokers.
pub fn for_each_class(deck: &Deck, hand: usize, f: &mut dyn FnMut(&[u16], u128)) {
    let nr = deck.ranks.len();
    let ns = deck.suits.len();
    let nj = deck.jokers.len();
    let mut masks = vec![0u64; ns];
    for j in 0..=nj.min(hand) {
        let jw = binom(nj as u64, j as u64);
        let mut cards = Vec::with_capacity(hand);
        classes(nr, ns, hand - j, 0, (usize::MAX, u64::MAX), &mut masks, &mut |masks| {
            cards.clear();
            for r in 0..nr {
                for (s, m) in masks.iter().enumerate() {
                    if m >> r & 1 == 1 {
                        cards.push((r * ns + s) as u16);
                    }
                }
            }
            for i in 0..j {
                cards.push((nr * ns + i) as u16);
            }
            f(&cards, class_weight(masks, ns) * jw);
        });
    }
}

/// The number of ways to give these (sorted) masks to the suits: the
/// falling factorial of the suits over the used ones, over the
/// permutations of equal masks.
pub fn class_weight(masks: &[u64], suits: usize) -> u128 {
    let used = masks.iter().filter(|&&m| m != 0).count();
    let mut w: u128 = 1;
    for i in 0..used {
        w *= (suits - i) as u128;
    }
    let mut i = 0;
    while i < used {
        let mut j = i;
        while j < used && masks[j] == masks[i] {
            j += 1;
        }
        for d in 2..=(j - i) as u128 {
            w /= d;
        }
        i = j;
    }
    w
}

/// Masks for suits `at..`, each not above the previous in (count, value)
/// order, `left` cards in all.
fn classes(
    nr: usize,
    ns: usize,
    left: usize,
    at: usize,
    bound: (usize, u64),
    masks: &mut [u64],
    f: &mut dyn FnMut(&[u64]),
) {
    if left == 0 {
        for m in &mut masks[at..] {
            *m = 0;
        }
        f(masks);
        return;
    }
    if at == ns {
        return;
    }
    // The remaining suits hold at most bound.0 cards each.
    if bound.0 != usize::MAX && bound.0 * (ns - at) < left {
        return;
    }
    for p in (1..=left.min(nr).min(bound.0)).rev() {
        let mut bits = Vec::with_capacity(p);
        each_mask(nr, p, 0, &mut bits, &mut |m| {
            if p < bound.0 || m <= bound.1 {
                masks[at] = m;
                classes(nr, ns, left - p, at + 1, (p, m), masks, f);
            }
        });
    }
}

/// Calls `f` with every mask of `p` ranks below `nr`.
fn each_mask(nr: usize, p: usize, start: usize, bits: &mut Vec<usize>, f: &mut dyn FnMut(u64)) {
    if bits.len() == p {
        f(bits.iter().fold(0u64, |m, &b| m | 1 << b));
        return;
    }
    for r in start..nr {
        if nr - r < p - bits.len() {
            break;
        }
        bits.push(r);
        each_mask(nr, p, r + 1, bits, f);
        bits.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deck(ranks: &str, suits: &str) -> Deck {
        let names = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        let n = names(ranks).len() as i64;
        Deck::new(names(ranks), names(suits), (1..=n).collect(), false)
    }

    #[test]
    fn classes_cover_every_deal_once() {
        for (ranks, suits, hand, classes) in
            [("A 2 3 4 5 6 7 8 9 T J Q K", "S H D C", 5, 134_459u64), ("A 2 3 4 5", "x y z", 4, 0)]
        {
            let d = deck(ranks, suits);
            let (mut n, mut total) = (0u64, 0u128);
            for_each_class(&d, hand, &mut |cards, w| {
                assert_eq!(cards.len(), hand);
                n += 1;
                total += w;
            });
            assert_eq!(total, binom(d.size() as u64, hand as u64));
            if classes > 0 {
                assert_eq!(n, classes);
            }
        }
    }
}
