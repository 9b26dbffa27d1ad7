//! The tie-break between equally good choices (`prefer:`), as a
//! comparison of discard masks over input positions.

use std::cmp::Ordering;

use super::Prefer;

/// The preference order: the rule file's criteria, then fewer cards and
/// the leftmost ones (so that the order is total).
#[derive(Debug, Clone)]
pub struct Preference {
    criteria: Vec<Prefer>,
    /// Among discards of the same cards' ranks, whether the leftmost
    /// (else the rightmost) cards are preferred: the first position
    /// criterion decides.
    leftmost: bool,
}

impl Preference {
    pub fn new(prefer: &[Prefer]) -> Preference {
        let mut criteria = prefer.to_vec();
        for p in [Prefer::FewerCards, Prefer::Leftmost] {
            if !criteria.contains(&p) {
                criteria.push(p);
            }
        }
        let leftmost =
            criteria.iter().find(|p| matches!(p, Prefer::Leftmost | Prefer::Rightmost)) == Some(&Prefer::Leftmost);
        Preference { criteria, leftmost }
    }

    /// Whether, between two discards of cards of the same ranks, the one
    /// taking the leftmost cards of each rank comes first.
    pub fn leftmost(&self) -> bool {
        self.leftmost
    }

    /// `Less` when discarding the cards of mask `a` is preferred to `b`.
    pub fn cmp(&self, a: u32, b: u32) -> Ordering {
        for p in &self.criteria {
            let o = match p {
                Prefer::FewerCards => a.count_ones().cmp(&b.count_ones()),
                Prefer::MoreCards => b.count_ones().cmp(&a.count_ones()),
                Prefer::Leftmost => ascending(a, b),
                Prefer::Rightmost => descending(b, a),
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }
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
