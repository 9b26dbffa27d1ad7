//! Counting and numbering: binomials, multisets of ranks numbered by the
//! combinatorial number system, and sets of cards numbered in colex order.

/// C(n, k) in 128 bits, saturating (0 when k > n).
pub(super) fn binom(n: u64, k: u64) -> u128 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    let mut r: u128 = 1;
    for i in 0..k {
        r = r.saturating_mul((n - i) as u128) / (i as u128 + 1);
        if r == u128::MAX {
            return r;
        }
    }
    r
}

/// Multisets of ranks numbered by the combinatorial number system: a
/// sorted list a0 <= a1 <= ... maps to sum C(a_i + i, i + 1), so the
/// multisets of k elements of n ranks are numbered 0 .. C(n + k - 1, k).
#[derive(Debug, Clone)]
pub struct Ranker {
    /// `term[i * ranks + a]` = C(a + i, i + 1): one flat load per element.
    term: Vec<usize>,
    ranks: usize,
    most: usize,
}

impl Ranker {
    /// Multisets of up to `most` elements over `ranks` ranks. The caller
    /// checked that their count fits (see [`multisets`]).
    pub fn new(ranks: usize, most: usize) -> Ranker {
        let term = (0..most.max(1))
            .flat_map(|i| (0..ranks).map(move |a| (i, a)))
            .map(|(i, a)| binom((a + i) as u64, (i + 1) as u64) as usize)
            .collect();
        Ranker { term, ranks, most }
    }

    /// The number of multisets of `k` elements.
    pub fn count(&self, k: usize) -> usize {
        multisets(self.ranks, k) as usize
    }

    pub fn most(&self) -> usize {
        self.most
    }

    /// The term of element `a` at place `i` of a sorted list.
    #[inline]
    pub fn term(&self, i: usize, a: u8) -> usize {
        self.term[i * self.ranks + a as usize]
    }

    #[inline]
    pub fn rank(&self, sorted: &[u8]) -> usize {
        sorted.iter().enumerate().map(|(i, &a)| self.term[i * self.ranks + a as usize]).sum()
    }
}

/// The number of multisets of `k` elements of `n` kinds (saturating).
pub(super) fn multisets(n: usize, k: usize) -> u128 {
    if k == 0 {
        1
    } else if n == 0 {
        0
    } else {
        binom((n + k - 1) as u64, k as u64)
    }
}

/// Calls `f` with every sorted list of `k` ranks below `n` (with repeats).
pub(super) fn for_each_multiset(n: usize, k: usize, f: &mut dyn FnMut(&[u8])) {
    for_each_multiset_while(n, k, &mut |m| {
        f(m);
        true
    });
}

/// [`for_each_multiset`] until `f` returns false; returns whether every
/// multiset was seen.
pub(super) fn for_each_multiset_while(n: usize, k: usize, f: &mut dyn FnMut(&[u8]) -> bool) -> bool {
    fn rec(start: usize, n: usize, k: usize, cur: &mut Vec<u8>, f: &mut dyn FnMut(&[u8]) -> bool) -> bool {
        if cur.len() == k {
            return f(cur);
        }
        for r in start..n {
            cur.push(r as u8);
            let go_on = rec(r, n, k, cur, f);
            cur.pop();
            if !go_on {
                return false;
            }
        }
        true
    }
    let mut cur = Vec::with_capacity(k);
    rec(0, n, k, &mut cur, f)
}

/// Sets of cards numbered in colex order: a sorted set c0 < c1 < ...
/// maps to sum C(c_i, i + 1), so the k-sets of n cards are 0 .. C(n, k).
#[derive(Debug, Clone)]
pub(super) struct Colex {
    /// `c[k * (n + 1) + x]` = C(x, k), for k up to the hand size.
    c: Vec<u32>,
    n: usize,
}

impl Colex {
    /// Sets of up to `most` of `n` cards; the caller checked C(n, k) < 2^32.
    pub(super) fn new(n: usize, most: usize) -> Colex {
        let mut c = vec![0u32; (most + 2) * (n + 1)];
        for k in 0..=most + 1 {
            for x in 0..=n {
                c[k * (n + 1) + x] = binom(x as u64, k as u64).min(u32::MAX as u128) as u32;
            }
        }
        Colex { c, n }
    }

    /// C(x, k).
    #[inline]
    pub(super) fn c(&self, x: usize, k: usize) -> usize {
        self.c[k * (self.n + 1) + x] as usize
    }

    /// The number of k-sets.
    pub(super) fn count(&self, k: usize) -> usize {
        self.c(self.n, k)
    }

    #[inline]
    pub(super) fn index(&self, sorted: &[u16]) -> usize {
        sorted.iter().enumerate().map(|(i, &x)| self.c(x as usize, i + 1)).sum()
    }

    /// The k-set numbered `index`.
    pub(super) fn unrank(&self, mut index: usize, k: usize, out: &mut [u16]) {
        let mut x = self.n;
        for i in (0..k).rev() {
            // The largest x with C(x, i + 1) <= index.
            x -= 1;
            while self.c(x, i + 1) > index {
                x -= 1;
            }
            out[i] = x as u16;
            index -= self.c(x, i + 1);
        }
    }

    /// The next k-set in colex order; false after the last.
    #[inline]
    pub(super) fn next(&self, set: &mut [u16]) -> bool {
        next_set(set, self.n)
    }
}

/// The next k-subset of `0..n` in colex order (a sorted set); false after
/// the last.
#[inline]
pub(super) fn next_set(set: &mut [u16], n: usize) -> bool {
    let k = set.len();
    for i in 0..k {
        let limit = if i + 1 < k { set[i + 1] } else { n as u16 };
        if set[i] + 1 < limit {
            set[i] += 1;
            for (j, s) in set.iter_mut().enumerate().take(i) {
                *s = j as u16;
            }
            return true;
        }
    }
    false
}

/// `items` sorted (stable: equal items keep their order), with each one's
/// position in `items`. A hand has a few cards in random order: up to 8,
/// each item's place is counted without a branch (the items before it that
/// are not greater, the items after it that are smaller), where an
/// insertion sort would mispredict most of its moves; longer hands are
/// sorted by insertion. (Hands of more than `MAX_HAND` are cut.)
#[inline]
pub(super) fn sort_with_positions<T: Copy + Ord + Default>(
    items: &[T],
) -> ([T; super::MAX_HAND], [u8; super::MAX_HAND]) {
    let mut sorted = [T::default(); super::MAX_HAND];
    let mut pos = [0u8; super::MAX_HAND];
    let items = &items[..items.len().min(super::MAX_HAND)];
    // Each usual length with its own code (the loops unrolled).
    match items.len() {
        2 => count_places(items, 2, &mut sorted, &mut pos),
        3 => count_places(items, 3, &mut sorted, &mut pos),
        4 => count_places(items, 4, &mut sorted, &mut pos),
        5 => count_places(items, 5, &mut sorted, &mut pos),
        6 => count_places(items, 6, &mut sorted, &mut pos),
        7 => count_places(items, 7, &mut sorted, &mut pos),
        8 => count_places(items, 8, &mut sorted, &mut pos),
        _ => insertion_sort(items, &mut sorted, &mut pos),
    }
    (sorted, pos)
}

/// The first five of `items` sorted (stable), with each one's position:
/// [`sort_with_positions`] of five bytes, each packed with its position
/// into one key (`byte << 8 | position`: distinct, and in the stable
/// order) and sorted by a network of nine exchanges without a branch.
#[inline(always)]
pub(super) fn sort_five(items: &[u8; super::MAX_HAND]) -> ([u8; 5], [u8; 5]) {
    let mut k: [u16; 5] = std::array::from_fn(|i| (items[i] as u16) << 8 | i as u16);
    // An optimal network for five keys (Knuth, TAOCP 5.3.4).
    for (a, b) in [(0, 1), (3, 4), (2, 4), (2, 3), (0, 3), (0, 2), (1, 4), (1, 3), (1, 2)] {
        let (x, y) = (k[a], k[b]);
        k[a] = x.min(y);
        k[b] = x.max(y);
    }
    (k.map(|x| (x >> 8) as u8), k.map(|x| x as u8))
}

/// [`sort_with_positions`] of `n` items (`items.len()`) by counting each
/// one's place.
#[inline(always)]
fn count_places<T: Copy + Ord>(items: &[T], n: usize, sorted: &mut [T], pos: &mut [u8]) {
    let items = &items[..n];
    for i in 0..n {
        let x = items[i];
        let mut p = 0;
        for (j, &y) in items.iter().enumerate() {
            p += usize::from(if j < i { y <= x } else { y < x });
        }
        // Below `n`: the places of a total order are distinct.
        sorted[p] = x;
        pos[p] = i as u8;
    }
}

/// [`sort_with_positions`] by insertion.
fn insertion_sort<T: Copy + Ord>(items: &[T], sorted: &mut [T], pos: &mut [u8]) {
    for (i, &x) in items.iter().enumerate() {
        let mut j = i;
        while j > 0 && sorted[j - 1] > x {
            sorted[j] = sorted[j - 1];
            pos[j] = pos[j - 1];
            j -= 1;
        }
        sorted[j] = x;
        pos[j] = i as u8;
    }
}

/// Writes the sorted multiset `m` with `r` inserted (after its equals) to
/// `merged[..=m.len()]`.
#[inline]
pub(super) fn insert_sorted(m: &[u8], r: u8, merged: &mut [u8]) {
    let at = m.partition_point(|&x| x <= r);
    merged[..at].copy_from_slice(&m[..at]);
    merged[at] = r;
    merged[at + 1..=m.len()].copy_from_slice(&m[at..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn sorting_with_positions_is_a_stable_sort(items in proptest::collection::vec(0u8..6, 0..=16)) {
            let (sorted, pos) = sort_with_positions(&items);
            let mut want: Vec<(u8, u8)> = items.iter().enumerate().map(|(i, &x)| (x, i as u8)).collect();
            want.sort_by_key(|&(x, _)| x);
            let got: Vec<(u8, u8)> = (0..items.len()).map(|i| (sorted[i], pos[i])).collect();
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn five_bytes_sort_like_any_items() {
        // Every list of five bytes over four values (each order, with ties;
        // a network that sorts every list of 0s and 1s sorts every list).
        for n in 0..4usize.pow(5) {
            let mut items = [0u8; crate::engines::exchange::MAX_HAND];
            for (i, x) in items.iter_mut().take(5).enumerate() {
                *x = (n / 4usize.pow(i as u32) % 4) as u8 * 85;
            }
            let (sorted, pos) = sort_with_positions(&items[..5]);
            assert_eq!(sort_five(&items), (sorted[..5].try_into().unwrap(), pos[..5].try_into().unwrap()), "{items:?}");
        }
    }

    #[test]
    fn colex_numbers_every_set_once_in_order() {
        let cx = Colex::new(9, 4);
        let mut set = [0u16, 1, 2, 3];
        let mut i = 0;
        loop {
            assert_eq!(cx.index(&set), i);
            let mut back = [0u16; 4];
            cx.unrank(i, 4, &mut back);
            assert_eq!(back, set);
            i += 1;
            if !cx.next(&mut set) {
                break;
            }
        }
        assert_eq!(i, cx.count(4));
        assert_eq!(i, 126);
    }

    #[test]
    fn multisets_are_numbered_densely() {
        let r = Ranker::new(5, 3);
        let mut seen = vec![false; r.count(3)];
        for_each_multiset(5, 3, &mut |m| {
            let i = r.rank(m);
            assert!(!seen[i]);
            seen[i] = true;
        });
        assert!(seen.iter().all(|&s| s));
        assert_eq!(binom(52, 5), 2_598_960);
    }
}
