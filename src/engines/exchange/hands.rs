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

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering as AtomicOrdering};
use std::sync::OnceLock;

use rayon::prelude::*;

use super::by_class::{self, Classes};
use super::combi::{binom, Colex};
use super::eval::Eval;
use crate::engines::cards::Deck;

/// Hands per parallel chunk when tabulating.
const CHUNK: usize = 1 << 14;
/// Sets per parallel chunk for the row-count tables of `analyze`.
pub(super) const CHUNK_ROWS: usize = 1 << 12;

#[derive(Debug)]
pub(super) struct CardPath {
    pub colex: Colex,
    /// Cards in the deck, and in a hand.
    pub n: usize,
    pub hand: usize,
    /// The paying row of every hand, by colex number.
    pub hand_row: Vec<u8>,
    /// `totals[k]` for k from the smallest kept size to `hand - 1`.
    pub totals: Vec<Vec<i64>>,
    /// Over the hand table's limit: the classes of sets under suit
    /// symmetry, whose slots number `hand_row` and `totals` instead of the
    /// colex numbers (see `by_class.rs`).
    pub classes: Option<Box<Classes>>,
}

impl CardPath {
    /// Tabulates every hand and the totals down to `min_kept` cards, or,
    /// over the hand table's limit, every class of them.
    pub(super) fn new(eval: &Eval, n: usize, hand: usize, min_kept: usize, pays: &[i64; 256]) -> CardPath {
        if by_class::applies(binom(n as u64, hand as u64)) {
            return CardPath::by_class(eval, n, hand, min_kept, pays);
        }
        let mut path = CardPath::tabulate(eval, n, hand);
        path.fill_totals(min_kept, pays);
        path
    }

    /// Every hand's row, without totals.
    pub(super) fn tabulate(eval: &Eval, n: usize, hand: usize) -> CardPath {
        let colex = Colex::new(n, hand);
        let hand_row = hand_rows(eval, &colex, n, hand);
        CardPath { colex, n, hand, hand_row, totals: Vec::new(), classes: None }
    }

    /// The totals from the hands' rows, level by level: each level the
    /// sums of the level above over one card more ([`add_down`]), divided
    /// by the times each hand was counted. Payouts are at most 10^9 and
    /// hands at most 2^24, so no sum leaves an `i64` (16 × 2^24 × 10^9 <
    /// 2^58).
    fn fill_totals(&mut self, min_kept: usize, pays: &[i64; 256]) {
        let (colex, n, hand_row, hand) = (&self.colex, self.n, &self.hand_row, self.hand);
        let mut totals: Vec<Vec<i64>> = vec![Vec::new(); hand + 1];
        for k in (min_kept..hand).rev() {
            let mut level = vec![0i64; colex.count(k)];
            if k + 1 == hand {
                add_down_par(colex, &|i| pays[hand_row[i] as usize], k + 1, n, &mut level);
            } else {
                let above = &totals[k + 1];
                add_down_par(colex, &|i| above[i], k + 1, n, &mut level);
            }
            let div = (hand - k) as i64;
            level.par_chunks_mut(CHUNK).for_each(|chunk| chunk.iter_mut().for_each(|x| *x /= div));
            totals[k] = level;
        }
        self.totals = totals;
    }

    /// The payout sums of keeping each subset (a mask over the sorted
    /// positions) of a deal sorted by card number: `f[kept]`. Subsets
    /// smaller than `min_kept` are left as garbage. `idx` receives the colex
    /// number of every subset within its size.
    #[inline]
    pub(super) fn sums(&self, sorted: &[u16], min_kept: usize, pays: &[i64; 256], f: &mut [i64], idx: &mut [u32]) {
        if let Some(cx) = &self.classes {
            return self.class_sums(cx, sorted, min_kept, pays, f, idx);
        }
        let h = sorted.len();
        let full = (1usize << h) - 1;
        let (f, idx) = (&mut f[..=full], &mut idx[..=full]);
        idx[0] = 0;
        for m in 1..=full {
            let top = (usize::BITS - 1 - m.leading_zeros()) as usize;
            let k = m.count_ones() as usize;
            idx[m] = idx[m ^ (1 << top)] + self.colex.c(sorted[top] as usize, k) as u32;
        }
        f[full] = pays[self.hand_row[idx[full] as usize] as usize];
        for m in 0..full {
            let k = m.count_ones() as usize;
            f[m] = if k >= min_kept { self.totals[k][idx[m] as usize] } else { 0 };
        }
        subtract_supersets(f, h);
    }

    /// The number of sets (or, by class, of classes) of k cards: the
    /// entries of `totals[k]`.
    pub(super) fn set_count(&self, k: usize) -> usize {
        match &self.classes {
            Some(cx) => cx.count(k),
            None => self.colex.count(k),
        }
    }

    /// The row of a hand sorted by card number.
    pub(super) fn row(&self, sorted: &[u16]) -> u8 {
        if let Some(cx) = &self.classes {
            return self.class_row(cx, sorted);
        }
        self.hand_row[self.colex.index(sorted)]
    }
}

/// For every mask m, `f[m] -= f[m | bit]` one bit at a time: afterwards
/// `f[K]` is the alternating sum over the supersets of K.
#[inline]
pub(super) fn subtract_supersets(f: &mut [i64], h: usize) {
    for b in 0..h {
        let bit = 1 << b;
        // Blocks of `bit` entries without the bit, each followed by its
        // supersets with it.
        for chunk in f.chunks_exact_mut(2 * bit) {
            let (low, high) = chunk.split_at_mut(bit);
            for (l, h) in low.iter_mut().zip(high.iter()) {
                *l -= *h;
            }
        }
    }
}

/// The row of every hand of `hand` cards, by colex number, on every core.
/// In colex order the lowest card changes fastest: what the other cards
/// give (their part of the rank key, their suits) is computed once for
/// all the hands that share them.
fn hand_rows(eval: &Eval, colex: &Colex, n: usize, hand: usize) -> Vec<u8> {
    let mut rows = vec![0u8; colex.count(hand)];
    let wild = eval.n_ranks as u8;
    rows.par_chunks_mut(CHUNK).enumerate().for_each(|(ci, chunk)| {
        let mut set = [0u16; super::MAX_HAND];
        let set = &mut set[..hand];
        colex.unrank(ci * CHUNK, hand, set);
        let mut fresh = true;
        // The other cards' symbols (naturals, then wild ones), their key
        // with the lowest card natural (shifted) or wild (not shifted), and
        // their suits.
        let (mut shifted, mut unshifted, mut w_rest, mut longest_rest) = (0usize, 0usize, 0usize, 0usize);
        let mut masks = [0u64; 64];
        let ns = eval.n_suits;
        for slot in chunk.iter_mut() {
            if fresh {
                let mut syms = [0u8; super::MAX_HAND];
                let mut k = 0;
                masks[..ns].fill(0);
                w_rest = 0;
                for &c in &set[1..] {
                    let s = eval.symbol(c);
                    if s == wild {
                        w_rest += 1;
                    } else {
                        syms[k] = s;
                        k += 1;
                        masks[eval.suit_of(c) as usize] |= 1 << s;
                    }
                }
                for s in &mut syms[k..hand - 1] {
                    *s = wild;
                }
                longest_rest = masks[..ns].iter().map(|m| m.count_ones() as usize).max().unwrap_or(0);
                shifted = (0..hand - 1).map(|i| eval.keys.term(i + 1, syms[i])).sum();
                unshifted = (0..hand - 1).map(|i| eval.keys.term(i, syms[i])).sum();
                fresh = false;
            }
            let c0 = set[0];
            let s0 = eval.symbol(c0);
            let (key, w) = if s0 == wild {
                (unshifted + eval.keys.term(hand - 1, wild), w_rest + 1)
            } else {
                (shifted + eval.keys.term(0, s0), w_rest)
            };
            // The most cards of one suit, before copying the masks: found
            // for every hand, so that the one test that usually settles
            // it (few hands have enough cards of one suit for a row that
            // looks at suits) is predictable; testing first whether the
            // key had such a row at all was not (in a game with flushes,
            // about half the hands' keys have one).
            let mut longest = longest_rest;
            if s0 != wild {
                let s = eval.suit_of(c0) as usize;
                longest = longest.max(masks[s].count_ones() as usize + 1);
            }
            *slot = if !eval.may_need_suits(key, longest, w) || !eval.suits_can_matter(key, longest, w) {
                eval.row_of_key(key)
            } else {
                let mut m = [0u64; 64];
                m[..ns].copy_from_slice(&masks[..ns]);
                if s0 != wild {
                    m[eval.suit_of(c0) as usize] |= 1 << s0;
                }
                eval.row_with(key, &mut m[..ns], w)
            };
            let limit = if hand > 1 { set[1] } else { n as u16 };
            if set[0] + 1 < limit {
                set[0] += 1;
            } else {
                colex.next(set);
                fresh = true;
            }
        }
    });
    rows
}

/// `b[U] += a(U + c)` summed over every card `c` below `n` not in `U`, for
/// every `(m - 1)`-set `U` of cards below `n` (`m` at least 1); sets are
/// numbered in colex order within their size, and `a(i)` is the `m`-set
/// numbered `i - at`.
///
/// The `m`-sets whose top card is `t` are numbered `C(t, m)` on, in the
/// order of the `(m - 1)`-sets below `t` they add `t` to. Without `t`, each
/// is the set of `b` with the same number less `C(t, m)`: one run of
/// additions along both arrays. With `t`, the rest is the same problem one
/// card smaller over the cards below `t`, into the sets of `b` whose top
/// card is `t` (numbered from `C(t, m - 1)`). So every addition reads and
/// writes memory in order, where adding each card to each set (the
/// definition) reads the level above at scattered places: on video
/// poker's 2,598,960 hands, the five levels took 33 ms of processor time
/// that way, 13 ms this way (with the divisions and the new pages).
fn add_down(colex: &Colex, a: &impl Fn(usize) -> i64, at: usize, m: usize, n: usize, b: &mut [i64]) {
    if m == 2 {
        // Pairs: the pairs with top card t are numbered from C(t, 2), by
        // their lower card; with t the set is {t} (numbered t), without it
        // the lower card's. One read of each pair for both.
        for t in 1..n {
            let (from, mut with) = (at + colex.c(t, 2), 0);
            for (j, x) in b[..t].iter_mut().enumerate() {
                let v = a(from + j);
                *x += v;
                with += v;
            }
            b[t] += with;
        }
        return;
    }
    for t in m - 1..n {
        let (from, below) = (at + colex.c(t, m), colex.c(t, m - 1));
        for (j, x) in b[..below].iter_mut().enumerate() {
            *x += a(from + j);
        }
        if m >= 2 {
            add_down(colex, a, from, m - 1, t, &mut b[below..colex.c(t + 1, m - 1)]);
        }
    }
}

/// [`add_down`] from the top (`at` 0) on every core: the sets without
/// their top card in chunks of `b`, then those with it, top card by top
/// card (each writes only its own part of `b`).
fn add_down_par(colex: &Colex, a: &(impl Fn(usize) -> i64 + Sync), m: usize, n: usize, b: &mut [i64]) {
    let tops = m - 1..n;
    b.par_chunks_mut(CHUNK).enumerate().for_each(|(ci, chunk)| {
        let lo = ci * CHUNK;
        for t in tops.clone() {
            let below = colex.c(t, m - 1);
            if below > lo {
                let (from, len) = (colex.c(t, m) + lo, (below - lo).min(chunk.len()));
                for (j, x) in chunk[..len].iter_mut().enumerate() {
                    *x += a(from + j);
                }
            }
        }
    });
    if m < 2 {
        return;
    }
    let mut parts = Vec::with_capacity(n);
    let mut rest = &mut b[colex.c(m - 1, m - 1)..];
    for t in tops {
        let (part, more) = rest.split_at_mut(colex.c(t + 1, m - 1) - colex.c(t, m - 1));
        parts.push((t, part));
        rest = more;
    }
    parts.into_par_iter().for_each(|(t, part)| add_down(colex, a, colex.c(t, m), m - 1, t, part));
}

/// Calls `f(c, index of set + c)` for every card c not in the sorted
/// `set`, the index among the sets one larger.
#[inline]
pub(super) fn for_each_added(colex: &Colex, n: usize, set: &[u16], mut f: impl FnMut(usize, usize)) {
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
pub(super) fn for_each_class(deck: &Deck, hand: usize, f: &mut dyn FnMut(&[u16], u128)) {
    for_each_class_while(deck, hand, &mut |cards, w| {
        f(cards, w);
        true
    });
}

/// [`for_each_class`], stopping when `f` returns false.
pub(super) fn for_each_class_while(deck: &Deck, hand: usize, f: &mut dyn FnMut(&[u16], u128) -> bool) {
    for_each_class_of((deck.ranks.len(), deck.suits.len(), deck.jokers.len()), hand, f);
}

/// [`for_each_class_while`] for a deck of `nr` ranks of `ns` suits and
/// `nj` jokers.
pub(super) fn for_each_class_of(
    (nr, ns, nj): (usize, usize, usize),
    hand: usize,
    f: &mut dyn FnMut(&[u16], u128) -> bool,
) {
    let mut masks = vec![0u64; ns];
    for j in 0..=nj.min(hand) {
        let jw = binom(nj as u64, j as u64);
        let mut cards = Vec::with_capacity(hand);
        let go = classes(nr, ns, hand - j, 0, (usize::MAX, u64::MAX), &mut masks, &mut |masks| {
            class_cards(masks, nr, ns, j, &mut cards);
            f(&cards, class_weight(masks, ns) * jw)
        });
        if !go {
            return;
        }
    }
}

/// The number of ways to give these (sorted) masks to the suits: the
/// falling factorial of the suits over the used ones, over the
/// permutations of equal masks.
pub(super) fn class_weight(masks: &[u64], suits: usize) -> u128 {
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
/// order, `left` cards in all; false when `f` asked to stop.
fn classes(
    nr: usize,
    ns: usize,
    left: usize,
    at: usize,
    bound: (usize, u64),
    masks: &mut [u64],
    f: &mut dyn FnMut(&[u64]) -> bool,
) -> bool {
    if left == 0 {
        for m in &mut masks[at..] {
            *m = 0;
        }
        return f(masks);
    }
    if at == ns {
        return true;
    }
    // The remaining suits hold at most bound.0 cards each.
    if bound.0 != usize::MAX && bound.0 * (ns - at) < left {
        return true;
    }
    for p in (1..=left.min(nr).min(bound.0)).rev() {
        if !classes_with(nr, ns, left, at, bound, p, masks, f) {
            return false;
        }
    }
    true
}

/// [`classes`] where suit `at` holds `p` cards.
#[allow(clippy::too_many_arguments)]
fn classes_with(
    nr: usize,
    ns: usize,
    left: usize,
    at: usize,
    bound: (usize, u64),
    p: usize,
    masks: &mut [u64],
    f: &mut dyn FnMut(&[u64]) -> bool,
) -> bool {
    let mut bits = Vec::with_capacity(p);
    each_mask(nr, p, 0, &mut bits, &mut |m| {
        if p < bound.0 || m <= bound.1 {
            masks[at] = m;
            return classes(nr, ns, left - p, at + 1, (p, m), masks, f);
        }
        true
    })
}

/// Calls `f(cards, weight)` as [`for_each_class`] does, but on at most
/// `per_group` classes of each group (the classes with the same number of
/// jokers and of cards in the longest suit), a sample spread over every
/// shape of deal; stops when `f` returns false, and then returns false.
/// The sample is taken in rounds (the first classes of every group, then
/// more of each), so that what only some groups hold is met early; each
/// class is passed once.
pub(super) fn for_each_class_sample(
    deck: &Deck,
    hand: usize,
    per_group: usize,
    f: &mut dyn FnMut(&[u16], u128) -> bool,
) -> bool {
    let mut from = 0;
    for until in [per_group / 32, per_group / 4, per_group] {
        if until > from {
            if !class_sample_round(deck, hand, from, until, f) {
                return false;
            }
            from = until;
        }
    }
    true
}

/// One round of [`for_each_class_sample`]: the classes numbered `from ..
/// until` of each group.
fn class_sample_round(
    deck: &Deck,
    hand: usize,
    from: usize,
    until: usize,
    f: &mut dyn FnMut(&[u16], u128) -> bool,
) -> bool {
    let nr = deck.ranks.len();
    let ns = deck.suits.len();
    let nj = deck.jokers.len();
    let mut masks = vec![0u64; ns];
    let mut cards = Vec::with_capacity(hand);
    for j in 0..=nj.min(hand) {
        let jw = binom(nj as u64, j as u64);
        let left = hand - j;
        let groups: Vec<usize> = if left == 0 || ns == 0 { vec![0] } else { (1..=left.min(nr)).rev().collect() };
        for p in groups {
            let mut seen = 0;
            let mut stopped = false;
            let mut each = |masks: &[u64]| {
                seen += 1;
                if seen > from {
                    class_cards(masks, nr, ns, j, &mut cards);
                    if !f(&cards, class_weight(masks, ns) * jw) {
                        stopped = true;
                    }
                }
                !stopped && seen < until
            };
            if p == 0 {
                classes(nr, ns, left, 0, (usize::MAX, u64::MAX), &mut masks, &mut each);
            } else {
                classes_with(nr, ns, left, 0, (usize::MAX, u64::MAX), p, &mut masks, &mut each);
            }
            if stopped {
                return false;
            }
        }
    }
    true
}

/// Calls `f` with every mask of `p` ranks below `nr`; false when `f`
/// asked to stop.
fn each_mask(nr: usize, p: usize, start: usize, bits: &mut Vec<usize>, f: &mut dyn FnMut(u64) -> bool) -> bool {
    if bits.len() == p {
        return f(bits.iter().fold(0u64, |m, &b| m | 1 << b));
    }
    for r in start..nr {
        if nr - r < p - bits.len() {
            break;
        }
        bits.push(r);
        let go = each_mask(nr, p, r + 1, bits, f);
        bits.pop();
        if !go {
            return false;
        }
    }
    true
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
    fn the_incremental_hand_table_agrees_with_evaluating_each_hand() {
        use super::super::pattern::{Part, Shape};
        use super::super::Row;
        let d = deck("A 2 3 4 5 6 7", "x y z").with_wild(&[1]).with_jokers(vec!["JK".into()]).with_high();
        let p = |s, suited| Part::new(s, suited);
        let rows = vec![
            Row { natural: true, ..Row::new("natural", vec![p(Shape::Run(4), true)], 50) },
            Row::new("four wild", vec![p(Shape::Wild(4), false)], 40),
            Row::new("five", vec![p(Shape::Kind(4, u64::MAX), false)], 20),
            Row::new("flush run", vec![p(Shape::Run(4), true)], 10),
            Row::new("flush", vec![p(Shape::Cards(4), true)], 5),
            Row::new("pair", vec![p(Shape::Kind(2, 0b1100000), false)], 1),
        ];
        for hand in 1..=4 {
            let eval = Eval::new(&d, hand, &rows);
            let cx = Colex::new(d.size(), hand);
            let table = hand_rows(&eval, &cx, d.size(), hand);
            let rows_only = Eval::rows_only(&d, hand, &rows);
            let mut memo = super::super::eval::KeyMemo::new(&rows_only);
            let mut set: Vec<u16> = (0..hand as u16).collect();
            let mut i = 0;
            loop {
                assert_eq!(table[i], eval.row_of_cards(&set), "{set:?}");
                assert_eq!(table[i], memo.row_of_cards(&rows_only, &set), "{set:?} from the memo");
                i += 1;
                if !cx.next(&mut set) {
                    break;
                }
            }
            assert_eq!(i, table.len());
        }
    }

    /// The sums over one card more, read in order (`add_down`, on one
    /// thread and on every core), are those of the definition: every set
    /// with each card it lacks added.
    #[test]
    fn sums_over_one_card_more_are_those_of_adding_each_card() {
        for (n, m) in [(1, 1), (6, 1), (6, 2), (9, 3), (12, 5), (14, 6), (10, 10), (11, 4), (22, 6)] {
            let colex = Colex::new(n, m);
            let a = |i: usize| (i as i64 * 7919 + 13) % 1009 - 500;
            let mut want = vec![0i64; colex.count(m - 1)];
            let mut set: Vec<u16> = (0..m as u16 - 1).collect();
            for w in want.iter_mut() {
                for_each_added(&colex, n, &set, |_, idx| *w += a(idx));
                colex.next(&mut set);
            }
            let mut one = vec![0i64; want.len()];
            add_down(&colex, &a, 0, m, n, &mut one);
            assert_eq!(one, want, "{m} of {n}, one thread");
            let mut all = vec![0i64; want.len()];
            add_down_par(&colex, &a, m, n, &mut all);
            assert_eq!(all, want, "{m} of {n}, every core");
        }
    }

    #[test]
    fn five_cards_are_sorted_by_the_network_as_by_insertion() {
        // The network sorts every order of five values.
        let mut order = [0usize, 1, 2, 3, 4];
        for _ in 0..120 {
            let mut v = order;
            for (a, b) in FIVE_SORTED {
                (v[a], v[b]) = (v[a].min(v[b]), v[a].max(v[b]));
            }
            assert_eq!(v, [0, 1, 2, 3, 4], "{order:?}");
            // The next permutation in lexicographic order.
            let Some(i) = (0..4).rev().find(|&i| order[i] < order[i + 1]) else { break };
            let j = (i + 1..5).rev().find(|&j| order[j] > order[i]).unwrap();
            order.swap(i, j);
            order[i + 1..].reverse();
        }
        // Random deals of five, with two jokers in the deck: the same
        // canonical form both ways (key, cards, positions).
        let mut d = deck("A 2 3 4 5 6 7 8 9 T J Q K", "S H D C");
        d.jokers = vec!["X".to_string(), "Y".to_string()];
        let memo = ClassMemo::new(&d, 5).unwrap();
        let n = d.size() as u64;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..100_000 {
            let mut cards = [0u16; 5];
            let mut used = 0u64;
            for c in cards.iter_mut() {
                loop {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    let pick = seed % n;
                    if used >> pick & 1 == 0 {
                        used |= 1 << pick;
                        *c = pick as u16;
                        break;
                    }
                }
            }
            let (net, ins) = (memo.canonical_of_five(&cards), memo.canonical_by_insertion(&cards));
            assert_eq!((net.key, net.sorted, net.pos), (ins.key, ins.sorted, ins.pos), "{cards:?}");
        }
    }

    #[test]
    fn a_memo_key_is_the_same_for_every_deal_of_a_class() {
        let d = deck("A 2 3 4 5 6 7 8 9 T J Q K", "S H D C");
        let memo = ClassMemo::new(&d, 5).unwrap();
        let card = |t: &str| d.parse_card(t).unwrap();
        let a: Vec<u16> = ["AS", "KS", "QH", "2D", "2S"].iter().map(|t| card(t)).collect();
        let b: Vec<u16> = ["2C", "AH", "QD", "KH", "2H"].iter().map(|t| card(t)).collect();
        let (ca, cb) = (memo.canonical(&a), memo.canonical(&b));
        assert_eq!(ca.key, cb.key);
        assert_eq!(ca.sorted, cb.sorted);
        let c: Vec<u16> = ["AS", "KS", "QS", "2D", "2S"].iter().map(|t| card(t)).collect();
        assert_ne!(memo.canonical(&c).key, ca.key);
        memo.put(ca.key, 5);
        assert_eq!(memo.get(cb.key), Some(5));
    }

    /// A run that expects few deals gets a small table (twice its deals, at
    /// least 1,024 entries); one of unknown length every class's (2^18
    /// entries for five of 52). Filled past its size, a small table keeps
    /// what it holds and answers none for the rest, never another entry's
    /// value: a key and its set go in one word (two for hands of six).
    #[test]
    fn a_short_run_gets_a_small_memo_that_only_forgets() {
        for (hand, width) in [(5, 1), (6, 2)] {
            let d = deck("A 2 3 4 5 6 7 8 9 T J Q K", "S H D C");
            let full = ClassMemo::new(&d, hand).unwrap();
            assert_eq!(full.table().len(), full.most * width);
            let memo = ClassMemo::new(&d, hand).unwrap();
            memo.expect(1_500);
            assert_eq!(memo.table().len(), 4096 * width);
            memo.expect(1);
            assert_eq!(memo.table().len(), 4096 * width, "sized once, on first use");
            let small = ClassMemo::new(&d, hand).unwrap();
            small.expect(1);
            assert_eq!(small.table().len(), 1024 * width);
            // 20,000 distinct keys (more than the entries): each answers
            // its own set or nothing.
            let set = |k: u64| k.wrapping_mul(0x9e37_79b9) & 0xffff | 1;
            for key in 1..=20_000u64 {
                small.put(key, set(key));
            }
            let mut kept = 0;
            for key in 1..=20_000u64 {
                if let Some(v) = small.get(key) {
                    assert_eq!(v, set(key), "key {key}");
                    kept += 1;
                }
            }
            assert!((1..=1024).contains(&kept), "{kept} kept");
        }
    }

    #[test]
    fn the_sample_passes_each_class_once_in_rounds() {
        let d = deck("A 2 3 4 5 6 7 8 9", "S H D").with_jokers(vec!["JK".into()]);
        let mut every = Vec::new();
        for_each_class(&d, 4, &mut |cards, _| every.push(cards.to_vec()));
        for per_group in [64, 1 << 20] {
            let mut sample = Vec::new();
            assert!(for_each_class_sample(&d, 4, per_group, &mut |cards, _| {
                sample.push(cards.to_vec());
                true
            }));
            let n = sample.len();
            sample.sort();
            sample.dedup();
            assert_eq!(sample.len(), n, "a class passed twice");
            assert!(sample.iter().all(|c| every.contains(c)));
            if per_group > every.len() {
                assert_eq!(n, every.len(), "a sample as large as every group is every class");
            }
        }
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

/// The optimal choices of each class of deals under suit symmetry, found
/// once: a deal is relabelled so that its suits come in decreasing order
/// of their rank masks (with its jokers first among the jokers), and the
/// optimal kept subsets of that canonical deal (bits over masks of its
/// sorted positions) are remembered under its sorted cards.
///
/// The memo is an open-addressing table filled without locks. For hands
/// of up to 5 cards an entry is one word, the key (the canonical cards, 6
/// bits each, plus one) in the high half and the optimal set in the low
/// half, claimed from 0 at once: the table stays small (2 MiB for 52
/// cards), which keeps the look-up of a deal seen before cheap. Hands of 6
/// cards take two words (key, then value; 0 means "not yet"). A full table
/// just stops remembering. A run whose input's size promises few deals
/// gets a table for those (see [`ClassMemo::expect`]).
#[derive(Debug)]
pub(super) struct ClassMemo {
    /// Allocated on first use (`check` never uses it), with
    /// [`ClassMemo::entries`] entries.
    slots: OnceLock<Box<[AtomicU64]>>,
    /// Entries of two words (hands of 6 cards).
    wide: bool,
    /// The most entries (a power of two), and the deals a run expects (0:
    /// not known), which size the table when they are fewer.
    most: usize,
    expected: AtomicUsize,
    suits: usize,
    ranked: usize,
    /// The rank and suit of each card with both (at most 64).
    rank_of: [u8; 64],
    suit_of: [u8; 64],
}

/// A sorting network of five: these exchanges, in this order, sort any
/// five values.
const FIVE_SORTED: [(usize, usize); 9] = [(0, 1), (3, 4), (2, 4), (2, 3), (0, 3), (0, 2), (1, 4), (1, 3), (1, 2)];

/// A deal relabelled by suit symmetry: its key, its cards sorted, and the
/// input position of each.
#[derive(Debug, Clone)]
pub(super) struct Canonical {
    pub key: u64,
    pub sorted: [u16; super::MAX_HAND],
    pub pos: [u8; super::MAX_HAND],
}

impl ClassMemo {
    /// A memo for hands of `hand` cards when every card number fits 6 bits
    /// and the optimal set fits 64 bits.
    pub(super) fn new(deck: &Deck, hand: usize) -> Option<ClassMemo> {
        let (ranks, suits) = (deck.ranks.len(), deck.suits.len());
        // About hands / suits! classes; twice as many slots.
        let orders: u128 = (1..=suits.min(hand) as u128).product();
        let classes = (binom(deck.size() as u64, hand as u64) / orders).min(1 << 20) as usize;
        let entries = (2 * classes).next_power_of_two().clamp(1 << 10, 1 << 21);
        let wide = hand > 5;
        let mut rank_of = [0u8; 64];
        let mut suit_of = [0u8; 64];
        for c in 0..(ranks * suits).min(64) {
            rank_of[c] = (c / suits) as u8;
            suit_of[c] = (c % suits) as u8;
        }
        (hand <= 6 && deck.size() <= 64 && suits * ranks + 4 <= 64 && deck.jokers.len() < 16).then(|| ClassMemo {
            slots: OnceLock::new(),
            wide,
            most: entries,
            expected: AtomicUsize::new(0),
            suits,
            ranked: ranks * suits,
            rank_of,
            suit_of,
        })
    }

    /// The canonical form of a deal.
    #[inline]
    pub(super) fn canonical(&self, cards: &[u16]) -> Canonical {
        match (self.suits, <&[u16; 5]>::try_from(cards)) {
            (4, Ok(five)) => self.canonical_of_five(five),
            _ => self.canonical_by_insertion(cards),
        }
    }

    /// [`ClassMemo::canonical`] of any deal: suits and cards put in order
    /// by insertion.
    #[inline(always)]
    fn canonical_by_insertion(&self, cards: &[u16]) -> Canonical {
        let ns = self.suits;
        let mut masks = [0u64; 64];
        for &c in cards {
            let c = c as usize;
            if c < self.ranked {
                masks[self.suit_of[c & 63] as usize] |= 1 << self.rank_of[c & 63];
            }
        }
        // Suits by decreasing mask (insertion sort of suit indices).
        let mut order = [0u8; 64];
        for s in 0..ns {
            let mut j = s;
            while j > 0 && masks[order[j - 1] as usize] < masks[s] {
                order[j] = order[j - 1];
                j -= 1;
            }
            order[j] = s as u8;
        }
        let mut relabel = [0u8; 64];
        for (i, &s) in order[..ns].iter().enumerate() {
            relabel[s as usize] = i as u8;
        }
        let mut out = Canonical { key: 0, sorted: [0; super::MAX_HAND], pos: [0; super::MAX_HAND] };
        let mut next_joker = self.ranked as u16;
        for (i, &c) in cards.iter().enumerate() {
            let cu = c as usize;
            let canon = if cu < self.ranked {
                (cu - self.suit_of[cu & 63] as usize + relabel[self.suit_of[cu & 63] as usize] as usize) as u16
            } else {
                next_joker += 1;
                next_joker - 1
            };
            let mut j = i;
            while j > 0 && out.sorted[j - 1] > canon {
                out.sorted[j] = out.sorted[j - 1];
                out.pos[j] = out.pos[j - 1];
                j -= 1;
            }
            out.sorted[j] = canon;
            out.pos[j] = i as u8;
        }
        // The sorted cards, 6 bits each, plus one (never 0).
        out.key = out.sorted[..cards.len()].iter().rev().fold(0u64, |k, &c| k << 6 | c as u64) + 1;
        out
    }

    /// [`ClassMemo::canonical`] of five cards of four suits (video poker's
    /// deals), by sorting networks: the suits and the cards are put in
    /// order by a fixed series of exchanges (minimum and maximum, no
    /// branch), where the insertion sorts above branch on every random
    /// deal's cards and mispredict (about 10 % of video poker's time).
    #[inline(always)]
    fn canonical_of_five(&self, cards: &[u16; 5]) -> Canonical {
        let mut masks = [0u64; 4];
        for &c in cards {
            let c = c as usize;
            if c < self.ranked {
                masks[self.suit_of[c & 63] as usize & 3] |= 1 << self.rank_of[c & 63];
            }
        }
        // Suits by decreasing mask, equal masks by increasing suit: each
        // key is the mask and 3 - suit, sorted in decreasing order.
        let mut suits = [0u64; 4];
        for (s, key) in suits.iter_mut().enumerate() {
            *key = masks[s] << 2 | (3 - s) as u64;
        }
        for (a, b) in [(0, 1), (2, 3), (0, 2), (1, 3), (1, 2)] {
            let (hi, lo) = (suits[a].max(suits[b]), suits[a].min(suits[b]));
            (suits[a], suits[b]) = (hi, lo);
        }
        let mut relabel = [0u8; 4];
        for (place, key) in suits.iter().enumerate() {
            relabel[3 - (key & 3) as usize] = place as u8;
        }
        // The cards relabelled, each with its input position in its low
        // byte, sorted in increasing order.
        // (A loop, not `array::from_fn`, whose closure was not inlined.)
        let mut next_joker = self.ranked as u32;
        let mut sorted = [0u32; 5];
        for (i, (slot, &c)) in sorted.iter_mut().zip(cards).enumerate() {
            let c = c as usize;
            let canon = if c < self.ranked {
                (c - self.suit_of[c & 63] as usize + relabel[self.suit_of[c & 63] as usize & 3] as usize) as u32
            } else {
                next_joker += 1;
                next_joker - 1
            };
            *slot = canon << 8 | i as u32;
        }
        for (a, b) in FIVE_SORTED {
            let (lo, hi) = (sorted[a].min(sorted[b]), sorted[a].max(sorted[b]));
            (sorted[a], sorted[b]) = (lo, hi);
        }
        let mut out = Canonical { key: 0, sorted: [0; super::MAX_HAND], pos: [0; super::MAX_HAND] };
        for (j, &v) in sorted.iter().enumerate() {
            out.sorted[j] = (v >> 8) as u16;
            out.pos[j] = v as u8;
        }
        out.key = sorted.iter().rev().fold(0u64, |k, &v| k << 6 | (v >> 8) as u64) + 1;
        out
    }

    /// Before the first deal: a run expects at most `deals` deals (by its
    /// input's size), so that a short run's table has about twice as many
    /// entries as its deals (at least 1,024) rather than every class's:
    /// allocating and zeroing 2 MiB was about a quarter of the time of a
    /// run of one deal. A full table just stops remembering, so an
    /// estimate too low costs time, never a choice.
    pub(super) fn expect(&self, deals: usize) {
        self.expected.store(deals.max(1), AtomicOrdering::Relaxed);
    }

    /// The number of entries: set when the table is allocated.
    fn entries(&self) -> usize {
        match self.expected.load(AtomicOrdering::Relaxed) {
            0 => self.most,
            d => d.saturating_mul(2).next_power_of_two().clamp(1 << 10, self.most),
        }
    }

    /// The table, allocated on first use.
    #[inline]
    fn table(&self) -> &[AtomicU64] {
        self.slots.get_or_init(|| (0..self.entries() * (1 + self.wide as usize)).map(|_| AtomicU64::new(0)).collect())
    }

    /// The entries of `table` less one (their count is a power of two).
    #[inline]
    fn mask(&self, table: &[AtomicU64]) -> usize {
        table.len() / (1 + self.wide as usize) - 1
    }

    /// The first slot of `key` in `table`.
    #[inline]
    fn slot(&self, table: &[AtomicU64], key: u64) -> usize {
        let x = (key ^ (key >> 31)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (x ^ (x >> 29)) as usize & self.mask(table)
    }

    /// Asks the processor to fetch the entry of `key` into its nearest
    /// cache (see [`super::Exchange::look_ahead`]).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(super) fn prefetch(&self, key: u64) {
        let width = 1 + self.wide as usize;
        let table = self.table();
        let at = table[width * self.slot(table, key)].as_ptr();
        // SAFETY: a prefetch only hints the caches: it reads nothing the
        // program sees and never faults (and `at` is an entry of the table).
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at as *const i8) };
    }

    /// The optimal set remembered for a key.
    #[inline(always)]
    pub(super) fn get(&self, key: u64) -> Option<u64> {
        let slots = self.table();
        let mask = self.mask(slots);
        let mut i = self.slot(slots, key);
        for _ in 0..16 {
            if self.wide {
                let k = slots[2 * i].load(AtomicOrdering::Acquire);
                if k == key {
                    let v = slots[2 * i + 1].load(AtomicOrdering::Acquire);
                    return (v != 0).then_some(v);
                }
                if k == 0 {
                    return None;
                }
            } else {
                let w = slots[i].load(AtomicOrdering::Relaxed);
                if w >> 32 == key {
                    return Some(w & 0xffff_ffff);
                }
                if w == 0 {
                    return None;
                }
            }
            i = (i + 1) & mask;
        }
        None
    }

    /// Remembers the optimal set of a key (never 0).
    pub(super) fn put(&self, key: u64, optimal: u64) {
        let slots = self.table();
        let mask = self.mask(slots);
        let mut i = self.slot(slots, key);
        for _ in 0..16 {
            if self.wide {
                let (k, v) = (&slots[2 * i], &slots[2 * i + 1]);
                match k.compare_exchange(0, key, AtomicOrdering::AcqRel, AtomicOrdering::Acquire) {
                    Ok(_) => {
                        v.store(optimal, AtomicOrdering::Release);
                        return;
                    }
                    Err(k) if k == key => return,
                    Err(_) => {}
                }
            } else {
                let w = key << 32 | optimal;
                match slots[i].compare_exchange(0, w, AtomicOrdering::Relaxed, AtomicOrdering::Relaxed) {
                    Ok(_) => return,
                    Err(old) if old >> 32 == key => return,
                    Err(_) => {}
                }
            }
            i = (i + 1) & mask;
        }
    }
}

/// The cards of a class of hands (`masks[s]`: the ranks held in suit `s`)
/// with `j` jokers, into `cards`.
fn class_cards(masks: &[u64], nr: usize, ns: usize, j: usize, cards: &mut Vec<u16>) {
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
}
