//! Stroke verdicts remembered by the values the rule expressions read.
//!
//! Every rule expression of a stroke (the foul conditions, the penalty,
//! `continue`, `in-hand`, `play-again-after`, `end`, the respot and tie
//! sets) reads only the sets `first`, `potted`, `on`, `table` and the
//! number `left`, and the respot set depends on the phase: together, a
//! [`Key`]. Frames meet the same few keys again and again, so the
//! [`Verdict`] of a key is computed once and kept in a direct-mapped table
//! of [`ENTRIES`] entries, a new key replacing the one in its entry: memory
//! is bounded, and an input of all-new strokes costs one hash and one
//! comparison more per stroke.

/// Entries of the table (56 bytes each: the table fits in a core's
/// second-level cache and adds little to the peak memory).
pub(crate) const ENTRIES: usize = 1 << 10;

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

    #[inline(always)]
    fn slot(&self) -> usize {
        let [a, b, c, d] = self.0;
        let h = (a ^ b.rotate_left(16) ^ c.rotate_left(32) ^ d.rotate_left(48)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> (64 - ENTRIES.trailing_zeros())) as usize
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

/// The table of verdicts, one per run.
pub struct Memo {
    entries: Vec<(Key, Verdict)>,
}

impl Default for Memo {
    fn default() -> Self {
        Memo { entries: vec![(VACANT, Verdict::default()); ENTRIES] }
    }
}

impl Memo {
    /// The verdict of `key`, computed by `judge` when it is not kept.
    #[inline(always)]
    pub fn get(&mut self, key: Key, judge: impl FnOnce() -> Verdict) -> Verdict {
        let e = &mut self.entries[key.slot()];
        if !e.0.same(&key) {
            *e = (key, judge());
        }
        e.1
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
        assert_eq!(judged, 2 + if k1.slot() == k2.slot() { 4 } else { 0 });
        // The phase and the ball hit first are part of the key.
        assert_ne!(k1, Key::new(Some(1), &[2, 2, 1, 6], 5, false));
        assert_ne!(k1, Key::new(Some(2), &[2, 2, 1, 6], 5, true));
        assert_ne!(k1, VACANT);
    }
}
