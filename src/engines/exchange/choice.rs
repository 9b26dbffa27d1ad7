//! The tie-break between equally good choices (`prefer:`): a comparison
//! of discard masks over input positions, and, when the rule file asks
//! for it, of the exact variance of each tied choice's payout.

use std::cmp::Ordering;

use num_bigint::BigInt;
use num_rational::BigRational;

use super::{Exchange, Prefer};
use crate::engines::cards::Card;

/// The preference order: the rule file's criteria, then fewer cards and
/// the leftmost ones (so that the order is total).
#[derive(Debug, Clone)]
pub struct Preference {
    criteria: Vec<Prefer>,
    /// Among discards of the same cards' ranks, whether the leftmost
    /// (else the rightmost) cards are preferred: the first position
    /// criterion decides.
    leftmost: bool,
    /// Whether a variance criterion can decide: it comes before the first
    /// position criterion (after it, no two choices are left equal).
    variance: bool,
}

impl Preference {
    pub fn new(prefer: &[Prefer]) -> Preference {
        let mut criteria = prefer.to_vec();
        for p in [Prefer::FewerCards, Prefer::Leftmost] {
            if !criteria.contains(&p) {
                criteria.push(p);
            }
        }
        let position = |p: &Prefer| matches!(p, Prefer::Leftmost | Prefer::Rightmost);
        let leftmost = criteria.iter().find(|p| position(p)) == Some(&Prefer::Leftmost);
        let variance = criteria
            .iter()
            .take_while(|p| !position(p))
            .any(|p| matches!(p, Prefer::LowerVariance | Prefer::HigherVariance));
        Preference { criteria, leftmost, variance }
    }

    /// Whether, between two discards of cards of the same ranks, the one
    /// taking the leftmost cards of each rank comes first.
    pub fn leftmost(&self) -> bool {
        self.leftmost
    }

    /// Whether the variance of tied choices can decide between them (then
    /// ties go through `Exchange::break_tie`, not [`Preference::cmp`]).
    pub fn by_variance(&self) -> bool {
        self.variance
    }

    /// `Less` when discarding the cards of mask `a` is preferred to `b`,
    /// by the criteria that read the masks only (variance criteria are
    /// skipped: see [`Preference::cmp_full`]).
    pub fn cmp(&self, a: u32, b: u32) -> Ordering {
        self.cmp_with(a, b, |_| Ordering::Equal)
    }

    /// [`Preference::cmp`] with each choice's variance: every criterion.
    pub fn cmp_full(&self, (a, va): (u32, &BigRational), (b, vb): (u32, &BigRational)) -> Ordering {
        self.cmp_with(a, b, |lower| if lower { va.cmp(vb) } else { vb.cmp(va) })
    }

    fn cmp_with(&self, a: u32, b: u32, variance: impl Fn(bool) -> Ordering) -> Ordering {
        for p in &self.criteria {
            let o = match p {
                Prefer::FewerCards => a.count_ones().cmp(&b.count_ones()),
                Prefer::MoreCards => b.count_ones().cmp(&a.count_ones()),
                Prefer::Leftmost => ascending(a, b),
                Prefer::Rightmost => descending(b, a),
                Prefer::LowerVariance => variance(true),
                Prefer::HigherVariance => variance(false),
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }
}

/// How many of a choice's equally likely draws end in each row (the last
/// entry: in none), and the number of cards it exchanges.
pub(crate) struct Draws {
    pub k: usize,
    pub rows: Vec<i128>,
}

impl Exchange {
    /// The exact variance of the payout of a choice over its draws:
    /// `(N * sum p^2 - (sum p)^2) / N^2` over its N draws.
    pub(crate) fn variance(&self, d: &Draws) -> BigRational {
        let (mut n, mut s1, mut s2) = (BigInt::from(0), BigInt::from(0), BigInt::from(0));
        for (row, &c) in d.rows.iter().enumerate() {
            let p = BigInt::from(self.rows.get(row).map_or(0, |r| r.pays_at(d.k)));
            let c = BigInt::from(c);
            s1 += &c * &p;
            s2 += &c * &p * &p;
            n += c;
        }
        if n == BigInt::from(0) {
            return BigRational::from_integer(n);
        }
        let num = &n * s2 - &s1 * &s1;
        BigRational::new(num, &n * &n)
    }

    /// The draws by row of each of a deal's tied choices (discard masks
    /// over input positions).
    pub(crate) fn tied_draws(&self, cards: &[Card], tied: &[u32]) -> Vec<Draws> {
        tied.iter().map(|&m| Draws { k: m.count_ones() as usize, rows: self.draws_by_row(cards, m) }).collect()
    }

    /// The index of the preferred one of equally good choices, given their
    /// draws by row (every criterion, variance included).
    pub(crate) fn preferred_of(&self, tied: &[u32], draws: &[Draws]) -> usize {
        let vars: Vec<BigRational> = draws.iter().map(|d| self.variance(d)).collect();
        let mut best = 0;
        for i in 1..tied.len() {
            if self.preference.cmp_full((tied[i], &vars[i]), (tied[best], &vars[best])) == Ordering::Less {
                best = i;
            }
        }
        best
    }

    /// The preferred one of a deal's equally good choices (discard masks
    /// over input positions): by the masks alone unless a variance
    /// criterion can decide, when the draws of each are counted.
    pub(crate) fn break_tie(&self, cards: &[Card], tied: &[u32]) -> u32 {
        if tied.len() <= 1 || !self.preference.by_variance() {
            return self.pick_among(tied.iter().copied());
        }
        let draws = self.tied_draws(cards, tied);
        tied[self.preferred_of(tied, &draws)]
    }

    /// A deal's options (in mask preference order) ranked by value, the
    /// highest first; equal values in preference order, their variances
    /// compared when a variance criterion can decide.
    pub(crate) fn ranked(&self, cards: &[Card], options: &[(u32, super::Value)]) -> Vec<(u32, super::Value)> {
        let mut ranked = options.to_vec();
        ranked.sort_by_key(|x| std::cmp::Reverse(x.1));
        if !self.preference.by_variance() {
            return ranked;
        }
        let mut out = Vec::with_capacity(ranked.len());
        for group in ranked.chunk_by(|a, b| a.1 == b.1) {
            if group.len() == 1 {
                out.push(group[0]);
                continue;
            }
            let masks: Vec<u32> = group.iter().map(|o| o.0).collect();
            let vars: Vec<BigRational> = self.tied_draws(cards, &masks).iter().map(|d| self.variance(d)).collect();
            let mut order: Vec<usize> = (0..group.len()).collect();
            order.sort_by(|&i, &j| self.preference.cmp_full((masks[i], &vars[i]), (masks[j], &vars[j])));
            out.extend(order.into_iter().map(|i| group[i]));
        }
        out
    }

    /// The best choice of a deal when a variance criterion can decide:
    /// every option valued, the optimal ones' draws counted.
    pub(crate) fn best_by_variance(&self, cards: &[Card], scratch: &mut super::Scratch) -> u32 {
        let mut best: Option<super::Value> = None;
        let mut tied: Vec<u32> = Vec::new();
        self.for_each_option(cards, scratch, &mut |m, v| match best.map_or(Ordering::Greater, |b| v.cmp(&b)) {
            Ordering::Greater => {
                best = Some(v);
                tied.clear();
                tied.push(m);
            }
            Ordering::Equal => tied.push(m),
            Ordering::Less => {}
        });
        self.break_tie(cards, &tied)
    }
}

impl Exchange {
    /// What the choice among tied choices changes: whether the rows their
    /// draws end in differ as distributions, and whether their payouts'
    /// variances differ.
    pub(crate) fn tie_effect(&self, draws: &[Draws]) -> (bool, bool) {
        if !rows_differ(draws) {
            return (false, false);
        }
        let first = draws.first().map(|d| self.variance(d));
        (true, draws.iter().any(|d| Some(self.variance(d)) != first))
    }
}

/// Whether the rows of some tied choices' draws end in differ as
/// distributions (counts over each choice's own number of draws).
fn rows_differ(draws: &[Draws]) -> bool {
    let total = |d: &Draws| d.rows.iter().sum::<i128>();
    let Some(first) = draws.first() else { return false };
    let n0 = BigInt::from(total(first));
    draws[1..].iter().any(|d| {
        let n = BigInt::from(total(d));
        first.rows.iter().zip(&d.rows).any(|(&a, &b)| BigInt::from(a) * &n != BigInt::from(b) * &n0)
    })
}

/// The positions of `a` and of `b`, each in increasing order, compared
/// as lists.
fn ascending(mut a: u32, mut b: u32) -> Ordering {
    loop {
        match (a, b) {
            (0, 0) => return Ordering::Equal,
            (0, _) => return Ordering::Less,
            (_, 0) => return Ordering::Greater,
            _ => {
                let (x, y) = (a.trailing_zeros(), b.trailing_zeros());
                if x != y {
                    return x.cmp(&y);
                }
                a &= a - 1;
                b &= b - 1;
            }
        }
    }
}

/// The positions of `a` and of `b`, each in decreasing order, compared
/// as lists.
fn descending(mut a: u32, mut b: u32) -> Ordering {
    loop {
        match (a, b) {
            (0, 0) => return Ordering::Equal,
            (0, _) => return Ordering::Less,
            (_, 0) => return Ordering::Greater,
            _ => {
                let (x, y) = (31 - a.leading_zeros(), 31 - b.leading_zeros());
                if x != y {
                    return x.cmp(&y);
                }
                a &= !(1 << x);
                b &= !(1 << y);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn positions(m: u32) -> Vec<usize> {
        (0..32).filter(|i| m >> i & 1 == 1).collect()
    }

    /// The order written with vectors, as the language defines it.
    fn slow(prefer: &[Prefer], a: u32, b: u32) -> Ordering {
        let (pa, pb) = (positions(a), positions(b));
        for p in prefer.iter().chain([Prefer::FewerCards, Prefer::Leftmost].iter()) {
            let o = match p {
                Prefer::FewerCards => pa.len().cmp(&pb.len()),
                Prefer::MoreCards => pb.len().cmp(&pa.len()),
                Prefer::Leftmost => pa.cmp(&pb),
                Prefer::Rightmost => {
                    let ra: Vec<_> = pa.iter().rev().collect();
                    let rb: Vec<_> = pb.iter().rev().collect();
                    rb.cmp(&ra)
                }
                Prefer::LowerVariance | Prefer::HigherVariance => Ordering::Equal,
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }

    #[test]
    fn masks_compare_as_position_lists() {
        use Prefer::*;
        for prefer in [
            vec![FewerCards, Leftmost],
            vec![Leftmost, FewerCards],
            vec![MoreCards, Rightmost],
            vec![Rightmost],
            vec![Leftmost],
            vec![MoreCards],
        ] {
            let p = Preference::new(&prefer);
            for a in 0..64u32 {
                for b in 0..64u32 {
                    assert_eq!(p.cmp(a, b), slow(&prefer, a, b), "{prefer:?} {a:b} {b:b}");
                }
            }
        }
    }

    #[test]
    fn leftmost_choices_come_first_within_a_size() {
        let p = Preference::new(&[Prefer::FewerCards, Prefer::Leftmost]);
        let mut order: Vec<u32> = (0..8).filter(|m: &u32| m.count_ones() <= 2).collect();
        order.sort_by(|&a, &b| p.cmp(a, b));
        assert_eq!(order, vec![0b000, 0b001, 0b010, 0b100, 0b011, 0b101, 0b110]);
    }
}
