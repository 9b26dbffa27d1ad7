//! Sum groups of the covering engine: face values as small steps, and the
//! subset-sum tables that find the piles of a group that come first in pile
//! order (see docs/engines/covering.md, "How groups are found").

use super::{MAX_PILES, MAX_SUM_STEPS};

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
    pub(super) fn first_group(
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
        if target < 64 && cards < SMALL_CARDS {
            return self.first_small(target, cards, candidates, scratch, out);
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

/// `words` as rows of [`SMALL_CARDS`] words (its length is a multiple).
fn as_rows(words: &mut [u64]) -> &mut [[u64; SMALL_CARDS]] {
    let (rows, _) = words.as_chunks_mut::<SMALL_CARDS>();
    rows
}

/// Sum groups of fewer cards than this, with a target below 64 steps, are
/// searched with one word per sum set, on the stack.
const SMALL_CARDS: usize = 8;

impl SumTable {
    /// [`SumTable::first_group`] when the target is below 64 steps and the
    /// group has fewer than [`SMALL_CARDS`] cards: each set of sums is one
    /// word, the table lives on the stack.
    #[inline(never)]
    fn first_small(
        &self,
        target: u32,
        cards: usize,
        candidates: &[(usize, u32)],
        scratch: &mut Vec<u64>,
        out: &mut Vec<usize>,
    ) -> bool {
        let m = candidates.len();
        // reach[i][j]: the sums (in steps) of j cards among candidates[i..];
        // every entry read is written first (nothing is cleared).
        if scratch.len() < (MAX_PILES + 1) * SMALL_CARDS {
            scratch.resize((MAX_PILES + 1) * SMALL_CARDS, 0);
        }
        let reach: &mut [[u64; SMALL_CARDS]] = as_rows(scratch);
        reach[m] = [0; SMALL_CARDS];
        reach[m][0] = 1;
        for i in (0..m).rev() {
            let w = candidates[i].1;
            let (here, next) = reach.split_at_mut(i + 1);
            let (here, next) = (&mut here[i], &next[0]);
            here[0] = 1;
            for j in 1..=cards {
                let with = if w <= target { next[j - 1] << w } else { 0 };
                here[j] = next[j] | with;
            }
        }
        if reach[0][cards] >> target & 1 == 0 {
            return false;
        }
        let (mut left, mut k) = (target, cards);
        for (i, &(pile, w)) in candidates.iter().enumerate() {
            if k == 0 {
                break;
            }
            if w <= left && reach[i + 1][k - 1] >> (left - w) & 1 == 1 {
                out.push(pile);
                left -= w;
                k -= 1;
            }
        }
        debug_assert!(k == 0 && left == 0);
        true
    }

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
