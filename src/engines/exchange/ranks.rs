//! The rank-only path: when no row looks at suits and no card is wild, a
//! hand's row depends on its ranks only, so everything is counted over
//! multisets of ranks.
//!
//! `totals[k][M]` is the sum of the payouts of every hand (as cards) that
//! contains a given set of k cards of rank multiset M; it depends on M
//! only. The last level is the row table; each level below follows from
//! the one above (adding one of the `suits - m_r` cards of rank r not in
//! the set, each final hand reached once per card it adds):
//!
//! ```text
//! totals[k][M] = sum over r of (suits - m_r) * totals[k + 1][M + r] / (hand - k)
//! ```
//!
//! The value of keeping a sub-multiset K of a deal D (drawing from the
//! cards not dealt) is then, by inclusion and exclusion over the discarded
//! cards, a sum over the multisets X between K and D:
//!
//! ```text
//! sum(K) = sum over X of (-1)^|X - K| * prod_r C(d_r - k_r, x_r - k_r) * totals[|X|][X]
//! ```
//!
//! which factors rank by rank, so every K of a deal is valued by one pass
//! per distinct rank over the box of sub-multisets.

use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::OnceLock;

use rayon::prelude::*;

use super::combi::for_each_multiset;
use super::eval::{Eval, NONE};
use super::MAX_HAND;

/// C(n, k) for n, k up to the largest hand.
const PASCAL: [[i64; MAX_HAND + 1]; MAX_HAND + 1] = {
    let mut t = [[0i64; MAX_HAND + 1]; MAX_HAND + 1];
    let mut n = 0;
    while n <= MAX_HAND {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + t[n - 1][k];
            k += 1;
        }
        n += 1;
    }
    t
};

/// Hands up to this size keep their optimal choices per rank multiset
/// (a bit set over at most 2^6 sub-multisets).
pub(super) const MEMO_HAND: usize = 6;

#[derive(Debug)]
pub(super) struct RankPath {
    /// `totals[k]` for k from the smallest kept size to `hand - 1` (the
    /// levels below are empty).
    totals: Vec<Vec<i64>>,
    /// Per rank multiset: its optimal discards, as bits over masks of
    /// sorted positions (see [`RankBox::sorted_discard`]); 0 while unknown.
    memo: Vec<AtomicU64>,
    /// The sequences of ranks in input order (`sum ranks[i] * n^i`) whose
    /// choices are remembered ([`Orders`]), when there are at most
    /// [`MAX_ORDERS`] of them; 0 otherwise.
    orders: usize,
    /// The number of ranks (the base of the sequence numbers).
    n_ranks: usize,
    /// The choice of every sequence, shared by the threads: built whole
    /// before the first deal when the run has at least as many deals as
    /// there are sequences ([`RankPath::fill`]); the threads' own tables
    /// ([`Orders`]) otherwise.
    all: OnceLock<Box<[u8]>>,
}

/// Most sequences of ranks whose choices are remembered (one byte each).
pub(super) const MAX_ORDERS: usize = 1 << 20;

/// Sequences per task when the whole table is built ([`RankPath::fill`]).
const FILL_CHUNK: usize = 1 << 13;

/// The choices one thread remembers per sequence of ranks in input order
/// (the discard mask, [`UNKNOWN`] while unknown): a deal's choice depends on
/// its ranks in input order alone. Each thread keeps its own table (in its
/// scratch), so that no thread writes where another reads: with one shared
/// table, the first choices written by one core kept evicting the lines
/// the other core read (Get Straight on two threads took 1.6 times the
/// processor time of one).
#[derive(Debug, Default)]
pub(super) struct Orders(Vec<u8>);

/// An [`Orders`] entry not known yet (no mask of fewer than 8 cards).
const UNKNOWN: u8 = 0xFF;

/// A deal's ranks as a box of sub-multisets: the distinct ranks, how many
/// cards of each, and where those cards are in input order.
#[derive(Debug, Clone, Copy)]
pub(super) struct RankBox {
    /// The distinct ranks, increasing, and how many cards of each.
    pub ranks: [u8; MAX_HAND],
    pub counts: [u8; MAX_HAND],
    /// Where each distinct rank's cards start in `pos`.
    start: [u8; MAX_HAND],
    /// Input positions, sorted by rank (stable: equal ranks in input order).
    pos: [u8; MAX_HAND],
    /// Distinct ranks.
    pub m: usize,
    /// Number of points: prod (count + 1).
    pub size: usize,
    /// The rank multiset of the whole deal.
    pub key: usize,
}

impl RankBox {
    /// Steps `digits` (cards kept of each distinct rank, `kept` in all) to
    /// the next point of the box, counted like an odometer: the first digit
    /// moves fastest. The caller stops after `size` points.
    #[inline]
    pub(super) fn next_point(&self, digits: &mut [u8; MAX_HAND], kept: &mut usize) {
        let mut i = 0;
        while digits[i] == self.counts[i] {
            *kept -= digits[i] as usize;
            digits[i] = 0;
            i += 1;
        }
        digits[i] += 1;
        *kept += 1;
    }

    /// The deal's box; `ranks[i]` is the rank of the card at input position i.
    #[inline]
    pub(super) fn of(eval: &Eval, ranks: &[u8]) -> RankBox {
        let mut b = RankBox::sorted(eval, ranks);
        b.blocks();
        b
    }

    /// The deal's ranks sorted, their positions and key; [`RankBox::blocks`]
    /// completes the box.
    #[inline]
    pub(super) fn sorted(eval: &Eval, ranks: &[u8]) -> RankBox {
        let (sorted, pos) = super::combi::sort_with_positions(ranks);
        let h = ranks.len();
        RankBox {
            ranks: sorted,
            counts: [0; MAX_HAND],
            start: [0; MAX_HAND],
            pos,
            m: h,
            size: 1,
            key: eval.keys.rank(&sorted[..h]),
        }
    }

    /// Groups the sorted ranks into distinct ranks and counts.
    pub(super) fn blocks(&mut self) {
        let (sorted, h) = (self.ranks, self.m);
        let b = self;
        b.m = 0;
        b.size = 1;
        for (i, &r) in sorted[..h].iter().enumerate() {
            if b.m > 0 && b.ranks[b.m - 1] == r {
                b.counts[b.m - 1] += 1;
            } else {
                b.ranks[b.m] = r;
                b.counts[b.m] = 1;
                b.start[b.m] = i as u8;
                b.m += 1;
            }
        }
        for &c in &b.counts[..b.m] {
            b.size *= c as usize + 1;
        }
    }

    /// The kept counts of box point `x` (mixed radix, lowest rank
    /// fastest); returns how many cards are kept.
    #[inline]
    pub(super) fn digits(&self, mut x: usize, out: &mut [u8]) -> usize {
        let mut kept = 0;
        for (i, &c) in self.counts[..self.m].iter().enumerate() {
            let d = x % (c as usize + 1);
            x /= c as usize + 1;
            out[i] = d as u8;
            kept += d;
        }
        kept
    }

    /// The discard of box point `x` as a mask over sorted positions: of
    /// each rank, the cards not kept, taken from the left (or from the
    /// right) in input order (equal ranks keep their input order).
    #[inline]
    pub(super) fn sorted_discard(&self, x: usize, leftmost: bool) -> u32 {
        let mut digits = [0u8; MAX_HAND];
        self.digits(x, &mut digits);
        let mut mask = 0u32;
        for (i, &d) in digits[..self.m].iter().enumerate() {
            let (s, c) = (self.start[i] as u32, self.counts[i] as u32);
            let drop = c - d as u32;
            let first = if leftmost { s } else { s + c - drop };
            mask |= ((1u32 << drop) - 1) << first;
        }
        mask
    }

    /// A mask over sorted positions as a mask over input positions.
    #[inline]
    pub(super) fn input_mask(&self, mut m: u32) -> u32 {
        let mut out = 0;
        while m != 0 {
            out |= 1 << self.pos[m.trailing_zeros() as usize];
            m &= m - 1;
        }
        out
    }

    /// The input discard mask of box point `x` (see [`RankBox::sorted_discard`]).
    #[inline]
    pub(super) fn discard_mask(&self, x: usize, leftmost: bool) -> u32 {
        self.input_mask(self.sorted_discard(x, leftmost))
    }
}

impl RankPath {
    /// Builds the levels of totals down to `min_kept` cards.
    pub(super) fn new(eval: &Eval, suits: usize, hand: usize, min_kept: usize, pays: &[i64; 256]) -> RankPath {
        let nr = eval.n_ranks;
        let mut totals: Vec<Vec<i64>> = vec![Vec::new(); hand + 1];
        if min_kept < hand {
            let keys = &eval.keys;
            for k in (min_kept..hand).rev() {
                let mut level = vec![0i64; keys.count(k)];
                let above = |key: usize, totals: &[Vec<i64>]| -> i64 {
                    if k + 1 == hand {
                        pays[eval.row_of_key(key) as usize]
                    } else {
                        totals[k + 1][key]
                    }
                };
                for_each_multiset(nr, k, &mut |m| {
                    // The number of `m` with one more `r` (inserted after
                    // the elements up to `r`, at place `at`): the terms of
                    // the elements before it, `r`'s own, and those of the
                    // elements after it one place on. Both sums are kept
                    // for every place, so each `r` costs a few additions.
                    let mut before = [0usize; MAX_HAND + 1];
                    let mut after = [0usize; MAX_HAND + 1];
                    for (i, &x) in m.iter().enumerate() {
                        before[i + 1] = before[i] + keys.term(i, x);
                    }
                    for (i, &x) in m.iter().enumerate().rev() {
                        after[i] = after[i + 1] + keys.term(i + 1, x);
                    }
                    let (mut sum, mut at): (i128, usize) = (0, 0);
                    for r in 0..nr as u8 {
                        let from = at;
                        while at < k && m[at] <= r {
                            at += 1;
                        }
                        let have = at - from;
                        if have >= suits {
                            continue;
                        }
                        let key = before[at] + keys.term(at, r) + after[at];
                        sum += (suits - have) as i128 * above(key, &totals) as i128;
                    }
                    level[keys.rank(m)] = (sum / (hand - k) as i128) as i64;
                });
                totals[k] = level;
            }
        }
        let memo = if hand <= MEMO_HAND {
            (0..eval.keys.count(hand)).map(|_| AtomicU64::new(0)).collect()
        } else {
            Vec::new()
        };
        let orders = (hand < 8)
            .then(|| (nr as u128).checked_pow(hand as u32))
            .flatten()
            .filter(|&n| n <= MAX_ORDERS as u128)
            .map_or(0, |n| n as usize);
        RankPath { totals, memo, orders, n_ranks: nr, all: OnceLock::new() }
    }

    /// The number of a sequence of ranks among those remembered, if they
    /// are.
    #[inline]
    pub(super) fn order_of(&self, ranks: &[u8]) -> Option<usize> {
        if self.orders == 0 {
            return None;
        }
        Some(ranks.iter().rev().fold(0usize, |x, &r| x * self.n_ranks + r as usize))
    }

    /// The number of sequences of ranks whose choices are remembered (0:
    /// none are).
    pub(super) fn orders(&self) -> usize {
        self.orders
    }

    /// Builds the table of every sequence's choice at once, `choose`
    /// giving the choice of a deal's ranks in input order (`hand` of them)
    /// with a thread's scratch; on rayon's pool when `parallel`. Each
    /// entry costs about two thirds of a choice first met during the run
    /// (the sequences are walked in order, their digits counted like an
    /// odometer, and no deal waits on an unpredictable branch), so the
    /// whole table pays once the run has about as many deals as there are
    /// sequences, and on several threads it is built once, not once per
    /// thread. Nothing when the table exists already or there is none.
    pub(super) fn fill(
        &self,
        hand: usize,
        parallel: bool,
        choose: impl Fn(&[u8; MAX_HAND], &mut super::Scratch) -> u32 + Sync,
    ) {
        if self.orders == 0 || hand > MAX_HAND || self.has_all() {
            return;
        }
        let n = self.n_ranks;
        // A chunk's sequences from its first: the digits of `start`, then
        // one step of the odometer per entry.
        let chunk = |(c, entries): (usize, &mut [u8]), scratch: &mut super::Scratch| {
            let mut digits = [0u8; MAX_HAND];
            let mut rest = c * FILL_CHUNK;
            for d in &mut digits[..hand] {
                *d = (rest % n) as u8;
                rest /= n;
            }
            for entry in entries {
                *entry = choose(&digits, scratch) as u8;
                for d in &mut digits[..hand] {
                    *d += 1;
                    if (*d as usize) < n {
                        break;
                    }
                    *d = 0;
                }
            }
        };
        // Zeroed pages straight from the system: every entry is written below.
        let mut table = vec![0u8; self.orders].into_boxed_slice();
        if parallel {
            table.par_chunks_mut(FILL_CHUNK).enumerate().for_each_init(super::Scratch::default, |s, c| chunk(c, s));
        } else {
            let mut scratch = super::Scratch::default();
            table.chunks_mut(FILL_CHUNK).enumerate().for_each(|c| chunk(c, &mut scratch));
        }
        self.install(table);
    }

    /// The number of ranks (the base of the sequence numbers).
    pub(super) fn n_ranks(&self) -> usize {
        self.n_ranks
    }

    /// Whether the table of every sequence's choice was built.
    pub(super) fn has_all(&self) -> bool {
        self.all.get().is_some()
    }

    /// Keeps `table` as the table of every sequence's choice (one entry
    /// per sequence; built by [`RankPath::fill`] or multiset by multiset).
    pub(super) fn install(&self, table: Box<[u8]>) {
        if table.len() == self.orders {
            let _ = self.all.set(table);
        }
    }

    /// The table of every sequence's choice, when it was built (for tests).
    #[cfg(test)]
    pub(super) fn all(&self) -> Option<&[u8]> {
        self.all.get().map(|t| &t[..])
    }

    /// The discard mask `mine` remembers for the sequence numbered `order`,
    /// if it does (or the whole table, when it was built).
    #[inline]
    pub(super) fn chosen(&self, mine: &mut Orders, order: usize) -> Option<u32> {
        if let Some(all) = self.all.get() {
            return all.get(order).map(|&v| u32::from(v));
        }
        if mine.0.len() != self.orders {
            // A thread's first deal: its table, every entry unknown. Written
            // now, its pages are the thread's own at once: left to the
            // allocator's zeroed pages, each first choice written would
            // replace a shared zero page, and tell every other core running
            // the process to forget it.
            mine.0 = vec![UNKNOWN; self.orders];
        }
        let v = mine.0[order];
        (v != UNKNOWN).then_some(u32::from(v))
    }

    /// Remembers in `mine` the choice of the sequence numbered `order`.
    pub(super) fn choose(&self, mine: &mut Orders, order: usize, mask: u32) {
        // Hands of fewer than 8 cards (see `orders`): a mask below 128.
        mine.0[order] = mask as u8;
    }

    /// The payout sums of keeping each point of the box (points whose
    /// kept size is below the smallest kept size are left as garbage).
    pub(super) fn sums(
        &self,
        eval: &Eval,
        b: &RankBox,
        hand: usize,
        min_kept: usize,
        pays: &[i64; 256],
        f: &mut Vec<i64>,
    ) {
        f.clear();
        f.resize(b.size, 0);
        // The digits of each point, counted like an odometer.
        let mut digits = [0u8; MAX_HAND];
        let mut kept = 0usize;
        let mut sorted = [0u8; MAX_HAND];
        for (x, slot) in f.iter_mut().enumerate() {
            if x > 0 {
                b.next_point(&mut digits, &mut kept);
            }
            if kept < min_kept {
                continue;
            }
            let mut n = 0;
            for (i, &d) in digits[..b.m].iter().enumerate() {
                for _ in 0..d {
                    sorted[n] = b.ranks[i];
                    n += 1;
                }
            }
            let key = eval.keys.rank(&sorted[..n]);
            *slot = if kept == hand { pays[eval.row_of_key(key) as usize] } else { self.totals[kept][key] };
        }
        if hand - min_kept <= 2 {
            // Few cards exchanged: each kept point from the few above it.
            direct(b, min_kept, f);
            return;
        }
        // Inclusion and exclusion, one distinct rank at a time:
        // g(a) = sum over b >= a of (-1)^(b-a) C(c - a, b - a) f(b).
        let mut stride = 1;
        for &c in &b.counts[..b.m] {
            let c = c as usize;
            let span = stride * (c + 1);
            for base in (0..b.size).step_by(span) {
                for low in 0..stride {
                    let at = |d: usize| base + low + d * stride;
                    for a in 0..=c {
                        let mut g = 0i64;
                        for bb in a..=c {
                            let coef = PASCAL[c - a][bb - a];
                            let term = coef * f[at(bb)];
                            g = if (bb - a).is_multiple_of(2) { g + term } else { g - term };
                        }
                        f[at(a)] = g;
                    }
                }
            }
            stride = span;
        }
    }

    /// `totals[k][key]`.
    #[inline]
    pub(super) fn total(&self, k: usize, key: usize) -> i64 {
        self.totals[k][key]
    }

    /// The optimal discards remembered for this multiset, if any.
    pub(super) fn remembered(&self, key: usize) -> Option<u64> {
        let v = self.memo.get(key)?.load(AtomicOrdering::Relaxed);
        (v != 0).then_some(v)
    }

    pub(super) fn remember(&self, key: usize, optimal: u64) {
        if let Some(slot) = self.memo.get(key) {
            slot.store(optimal, AtomicOrdering::Relaxed);
        }
    }

    pub(super) fn memo_enabled(&self) -> bool {
        !self.memo.is_empty()
    }
}

/// The inclusion and exclusion of [`RankPath::sums`], point by point:
/// g(k) = sum over k <= x <= c of (-1)^|x-k| prod C(c_i - k_i, x_i - k_i) f(x),
/// for the points that keep at least `min_kept` cards (few, when few cards
/// are exchanged: then cheaper than the transform over the whole box).
fn direct(b: &RankBox, min_kept: usize, f: &mut [i64]) {
    let m = b.m;
    let mut stride = [0usize; MAX_HAND];
    let mut s = 1;
    for (st, &c) in stride.iter_mut().zip(&b.counts[..m]) {
        *st = s;
        s *= c as usize + 1;
    }
    let mut small = [0i64; 64];
    let mut large = Vec::new();
    let g: &mut [i64] = if b.size <= 64 {
        &mut small[..b.size]
    } else {
        large.resize(b.size, 0);
        &mut large
    };
    let mut k = [0u8; MAX_HAND];
    let mut kept = 0usize;
    for (kx, gk) in g.iter_mut().enumerate() {
        if kx > 0 {
            b.next_point(&mut k, &mut kept);
        }
        if kept < min_kept {
            continue;
        }
        // The points x >= k, by an odometer over the digits above k.
        let mut x = k;
        let mut sum = 0i64;
        let mut dist = 0usize;
        loop {
            let mut coef = 1i64;
            let mut at = 0;
            for i in 0..m {
                coef *= PASCAL[(b.counts[i] - k[i]) as usize][(x[i] - k[i]) as usize];
                at += x[i] as usize * stride[i];
            }
            let term = coef * f[at];
            sum = if dist.is_multiple_of(2) { sum + term } else { sum - term };
            // Next x.
            let mut i = 0;
            while i < m && x[i] == b.counts[i] {
                dist -= (x[i] - k[i]) as usize;
                x[i] = k[i];
                i += 1;
            }
            if i == m {
                break;
            }
            x[i] += 1;
            dist += 1;
        }
        *gk = sum;
    }
    f.copy_from_slice(g);
}

/// The row of a rank multiset's hand, or `NONE`.
pub(super) fn row_of_ranks(eval: &Eval, ranks: &[u8]) -> u8 {
    let mut sorted = ranks.to_vec();
    sorted.sort_unstable();
    if sorted.len() != eval.hand {
        return NONE;
    }
    eval.row_of_key(eval.keys.rank(&sorted))
}

#[cfg(test)]
mod tests {
    use super::super::{combi, tests::compile, Path};
    use super::*;

    /// Each level of totals is what its definition gives, worked out the
    /// long way (every rank added to the multiset, sorted in, numbered):
    /// Get Straight and a game of four cards of nine ranks.
    #[test]
    fn the_totals_are_the_averages_over_every_card_drawn() {
        let gs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/rules/get_straight.rules")).unwrap();
        let four = include_str!("../../../tests/fixtures/exchange/four-of-nine.rules");
        for text in [gs.as_str(), four] {
            let ex = compile(text);
            let Path::Ranks(path) = &ex.path else { panic!("not on the rank path") };
            let (eval, h, suits) = (&**ex.eval, ex.hand, ex.deck.suits.len());
            let nr = eval.n_ranks;
            let mut merged = [0u8; MAX_HAND];
            let mut checked = 0;
            for k in ex.min_kept..h {
                for_each_multiset(nr, k, &mut |m| {
                    let mut sum = 0i128;
                    for r in 0..nr as u8 {
                        let have = m.iter().filter(|&&x| x == r).count();
                        if have < suits {
                            combi::insert_sorted(m, r, &mut merged);
                            let key = eval.keys.rank(&merged[..=k]);
                            let above = if k + 1 == h {
                                ex.pays[eval.row_of_key(key) as usize]
                            } else {
                                path.totals[k + 1][key]
                            };
                            sum += (suits - have) as i128 * above as i128;
                        }
                    }
                    assert_eq!(path.totals[k][eval.keys.rank(m)], (sum / (h - k) as i128) as i64, "{m:?}");
                    checked += 1;
                });
            }
            assert!(checked > 100, "{checked} multisets");
        }
    }
}
