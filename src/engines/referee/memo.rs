//! Stroke verdicts remembered by the values the rule expressions read.
//!
//! Every rule expression of a stroke (the foul conditions, the penalty,
//! `continue`, `in-hand`, `play-again-after`, `end`, the respot and tie
//! sets) reads only the sets `first`, `potted`, `on`, `table` and the
//! number `left`, and the respot set depends on the phase: together, a
//! [`Key`], narrowed to what the file's rules read ([`KeyReads`]).
//! Frames meet the same few keys again and again, so the
//! [`Verdict`] of a key is computed once and kept in a direct-mapped table,
//! a new key replacing the one in its entry: memory is bounded, and an
//! input of all-new strokes costs one hash and one comparison more per
//! stroke. The table starts with [`ENTRIES`] entries and grows, once, to
//! [`MOST_ENTRIES`] when keys keep replacing each other: on Snooker's
//! 100,000 frames (4.1 million strokes; a table of 65,536 entries judges
//! 22,758 of them anew, about as many as there are keys), 1,024 entries
//! judged 326,313 strokes anew, 4,096 entries 81,002 (5 % less time in
//! all, 15 interleaved runs; growing after 2,048 misses: 7 %); 16,384
//! entries, 917 KB, judged 38,083 but took as long as 1,024.

/// Entries of the table at first (56 bytes each: 57 KB, little to set up
/// for a short input).
pub(crate) const ENTRIES: usize = 1 << 10;
/// Entries of the grown table (229 KB: little of the peak memory).
pub(crate) const MOST_ENTRIES: usize = 1 << 12;
/// The table grows once this many strokes were judged anew since it was
/// made: twice its entries.
const GROW_AFTER: u32 = 2 * ENTRIES as u32;

/// What a stroke's verdict depends on: `potted`, `on`, `table`, then
/// `left`, the ball hit first and the phase packed in one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key([u64; 4]);

impl Key {
    /// `sets` are `first`, `potted`, `on`, `table` (`first` is the set of
    /// `first`, the ball hit first).
    #[inline(always)]
    pub fn new(first: Option<usize>, sets: &[u64; 4], left: u32, first_phase: bool) -> Key {
        let first = first.map_or(64, |b| b as u64);
        Key([sets[1], sets[2], sets[3], left as u64 | first << 32 | (first_phase as u64) << 40])
    }

    /// `self == other`, a word at a time: the key was just stored a word at
    /// a time, and a wider load of it would wait for those stores.
    #[inline(always)]
    fn same(&self, other: &Key) -> bool {
        let (a, b) = (&self.0, &other.0);
        a[3] == b[3] && std::hint::black_box(a[0] == b[0]) && a[1] == b[1] && a[2] == b[2]
    }

    /// The key's entry in a table of `1 << bits` entries.
    #[inline(always)]
    fn slot(&self, bits: u32) -> usize {
        let [a, b, c, d] = self.0;
        let h = (a ^ b.rotate_left(16) ^ c.rotate_left(32) ^ d.rotate_left(48)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> (64 - bits)) as usize
    }
}

/// What a key holds of the table and of `left`: only what the stroke
/// rules read (found at load by `lower::endings::key_reads`), so that
/// strokes whose verdicts cannot differ share one entry. Snooker's rules
/// read `left` only in `left == 1` and never read `table`: its keys hold
/// whether `left` is under, at or over 1 and no table, and the strokes of
/// its frames meet fewer keys, more often.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyReads {
    /// Some stroke rule reads `table` (else the key holds none).
    pub table: bool,
    /// The numbers `left` is compared with, sorted and distinct, when the
    /// stroke rules read it only so (`left == 1`, `2 < left`): the key
    /// holds on which side of each it lies. `None`: it holds `left`.
    pub left_cuts: Option<Vec<i64>>,
}

impl KeyReads {
    /// The key of a stroke (as [`Key::new`]), narrowed to what is read.
    #[inline(always)]
    pub fn key(&self, first: Option<usize>, sets: &[u64; 4], left: u32, first_phase: bool) -> Key {
        let table = if self.table { sets[3] } else { 0 };
        let left = match &self.left_cuts {
            None => left,
            Some(cuts) => {
                let l = i64::from(left);
                cuts.iter().map(|&c| 2 * u32::from(l > c) + u32::from(l == c)).sum()
            }
        };
        Key::new(first, &[sets[0], sets[1], sets[2], table], left, first_phase)
    }
}

/// No stroke has this key (its ball hit first would be the 256th).
const VACANT: Key = Key([0, 0, 0, u64::MAX]);

/// What the rule expressions say about a stroke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Verdict {
    /// The penalty, within its bounds (0 for a fair stroke).
    pub penalty: i64,
    /// The kinds of balls potted that come back (none when the stroke
    /// ends the frame).
    pub respot: u64,
    pub foul: bool,
    pub ends: bool,
    pub turn_ends: bool,
    pub play_again: bool,
    pub in_hand: bool,
}

/// The table of verdicts, one per thread of a run.
pub struct Memo {
    entries: Vec<(Key, Verdict)>,
    /// `entries` has `1 << bits` entries.
    bits: u32,
    /// Strokes judged anew since the table was made, until it grows.
    misses: u32,
}

impl Default for Memo {
    fn default() -> Self {
        Memo::with_entries(ENTRIES)
    }
}

impl Memo {
    fn with_entries(n: usize) -> Memo {
        Memo { entries: vec![(VACANT, Verdict::default()); n], bits: n.trailing_zeros(), misses: 0 }
    }

    /// The verdict of `key`, computed by `judge` when it is not kept.
    #[inline(always)]
    pub fn get(&mut self, key: Key, judge: impl FnOnce() -> Verdict) -> Verdict {
        let e = &mut self.entries[key.slot(self.bits)];
        if !e.0.same(&key) {
            *e = (key, judge());
            let v = e.1;
            self.missed();
            return v;
        }
        e.1
    }

    /// Counts a stroke judged anew, and grows the table once enough were.
    #[inline]
    fn missed(&mut self) {
        if self.bits < MOST_ENTRIES.trailing_zeros() {
            self.misses += 1;
            if self.misses >= GROW_AFTER {
                *self = Memo::with_entries(MOST_ENTRIES);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_is_judged_once_and_replaced_on_a_collision() {
        let mut memo = Memo::default();
        let mut judged = 0;
        let v = |p| Verdict { penalty: p, ..Verdict::default() };
        let k1 = Key::new(Some(1), &[2, 2, 1, 6], 5, true);
        let k2 = Key::new(None, &[0, 2, 1, 6], 5, true);
        for _ in 0..3 {
            assert_eq!(memo.get(k1, || (judged += 1, v(4)).1), v(4));
            assert_eq!(memo.get(k2, || (judged += 1, v(7)).1), v(7));
        }
        assert_eq!(judged, 2 + if k1.slot(memo.bits) == k2.slot(memo.bits) { 4 } else { 0 });
        // The phase and the ball hit first are part of the key.
        assert_ne!(k1, Key::new(Some(1), &[2, 2, 1, 6], 5, false));
        assert_ne!(k1, Key::new(Some(2), &[2, 2, 1, 6], 5, true));
        assert_ne!(k1, VACANT);
    }

    /// A narrowed key holds the side of each cut `left` lies on, and the
    /// table only when it is read.
    #[test]
    fn a_narrowed_key_holds_only_what_the_rules_read() {
        let sets = |table| [2, 2, 1, table];
        let narrow = KeyReads { table: false, left_cuts: Some(vec![1, 5]) };
        let key = |left, table| narrow.key(Some(1), &sets(table), left, true);
        // Under 1, at 1, between, at 5, over 5: five keys, whatever the table.
        let sides: [&[u32]; 5] = [&[0], &[1], &[2, 3, 4], &[5], &[6, 20]];
        for (i, side) in sides.iter().enumerate() {
            for &left in side.iter() {
                assert_eq!(key(left, 6), key(side[0], 7), "left {left}");
                for (j, other) in sides.iter().enumerate() {
                    assert_eq!(key(left, 6) == key(other[0], 6), i == j, "left {left} against {}", other[0]);
                }
            }
        }
        let whole = KeyReads { table: true, left_cuts: None };
        assert_eq!(whole.key(Some(1), &sets(6), 9, true), Key::new(Some(1), &sets(6), 9, true));
        assert_ne!(whole.key(Some(1), &sets(6), 9, true), whole.key(Some(1), &sets(7), 9, true));
    }

    /// Keys that keep replacing each other grow the table, once; every
    /// verdict is the judge's, before and after.
    #[test]
    fn the_table_grows_once_after_enough_new_verdicts() {
        let mut memo = Memo::default();
        let v = |left: u32| Verdict { penalty: i64::from(left), ..Verdict::default() };
        let key = |left: u32| Key::new(Some(1), &[2, 2, 1, 6], left, true);
        for left in 0..GROW_AFTER - 1 {
            assert_eq!(memo.get(key(left), || v(left)), v(left));
        }
        assert_eq!(memo.entries.len(), ENTRIES);
        assert_eq!(memo.get(key(GROW_AFTER), || v(GROW_AFTER)), v(GROW_AFTER));
        assert_eq!(memo.entries.len(), MOST_ENTRIES);
        // The grown table keeps what it is given, and never grows again.
        for round in 0..3 {
            let mut judged = 0;
            for left in 0..100 * MOST_ENTRIES as u32 {
                assert_eq!(memo.get(key(left), || (judged += 1, v(left)).1), v(left));
            }
            assert!(judged > 0, "round {round}");
        }
        assert_eq!(memo.entries.len(), MOST_ENTRIES);
        let (mut judged, k) = (0, key(7));
        memo.get(k, || v(7));
        assert_eq!(memo.get(k, || (judged += 1, v(7)).1), v(7));
        assert_eq!(judged, 0);
    }
}
