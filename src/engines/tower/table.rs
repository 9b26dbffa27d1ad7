//! The tower search's positions as keys, and its transposition table: open
//! addressing over exact keys (no collision can change a result), emptied
//! between cases by a generation counter, each entry holding both bounds
//! of a position's value and its best move.

use super::moves::Code;

/// One transposition-table slot: the key (the position, see
/// [`super::search::Search`]) and bounds of its value. A position's bytes
/// are below 64, so the top two bits of each key byte are free: those of
/// the first eight bytes hold the generation the slot was written in (other
/// generations are empty slots), those of the next four its best move (a
/// move code, see [`super::moves`]). 24 bytes for a 16-byte key, 40 for 32.
#[derive(Debug, Clone, Copy)]
pub(super) struct Slot<const W: usize> {
    key: Key<W>,
    /// Bounds of the value: `low <= value <= high` (equal when exact).
    pub(super) low: i32,
    pub(super) high: i32,
}

const _: () = assert!(size_of::<Slot<2>>() == 24 && size_of::<Slot<4>>() == 40);

/// The top two bits of each byte of a word (tags), and the rest (keys).
const TAGS: u64 = 0xC0C0_C0C0_C0C0_C0C0;

/// A position's bytes (see [`super::search::Search`]), eight to a word:
/// byte `i` is bits `8 * (i % 8)..` of word `i / 8`. Words, not bytes, so
/// that a position changed byte by byte is read back whole (hashing,
/// comparing) without a stall: a wide load cannot be forwarded from several
/// narrow stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Key<const W: usize>(pub(super) [u64; W]);

impl<const W: usize> Key<W> {
    /// Byte `i` (below `8 * W`).
    #[inline(always)]
    pub(super) fn get(&self, i: usize) -> u8 {
        (self.0[(i >> 3) & (W - 1)] >> ((i & 7) * 8)) as u8
    }

    /// Sets byte `i` (below `8 * W`) to `v`.
    #[inline(always)]
    pub(super) fn set(&mut self, i: usize, v: u8) {
        let (w, shift) = ((i >> 3) & (W - 1), (i & 7) * 8);
        self.0[w] = self.0[w] & !(0xFF << shift) | (v as u64) << shift;
    }

    /// Bytes `2 * j` and `2 * j + 1` (`j` below `4 * W`): with hands of
    /// `H` cards, floor slot `f`'s two bytes are pair `H + f`.
    #[inline(always)]
    pub(super) fn pair(&self, j: usize) -> (u8, u8) {
        let v = self.0[(j >> 2) & (W - 1)] >> ((j & 3) * 16);
        (v as u8, (v >> 8) as u8)
    }

    /// Sets bytes `2 * j` and `2 * j + 1` to `a` and `b`.
    #[inline(always)]
    pub(super) fn set_pair(&mut self, j: usize, a: u8, b: u8) {
        let (w, shift) = ((j >> 2) & (W - 1), (j & 3) * 16);
        self.0[w] = self.0[w] & !(0xFFFF << shift) | (a as u64 | (b as u64) << 8) << shift;
    }

    /// Player `p`'s hand of at most `H` cards: bytes `p * H..`, in
    /// increasing order, [`super::search::NONE`] after the last card.
    #[inline(always)]
    pub(super) fn hand<const H: usize>(&self, p: usize) -> [u8; H] {
        std::array::from_fn(|i| self.get(p * H + i))
    }

    #[inline(always)]
    pub(super) fn set_hand<const H: usize>(&mut self, p: usize, hand: [u8; H]) {
        for (i, &c) in hand.iter().enumerate() {
            self.set(p * H + i, c);
        }
    }
}

/// A generation's 16 bits spread over the top bits of eight bytes.
fn generation_tag(g: u16) -> u64 {
    (0..8).map(|i| ((g as u64 >> (2 * i)) & 3) << (8 * i + 6)).fold(0, |a, b| a | b)
}

/// A best move's bits spread over the top bits of the bytes of a key's
/// second word, as a slot keeps it: six bits over three bytes with hands
/// of one card (codes below 64), eight over four with more.
#[inline(always)]
pub(super) fn best_tag<const H: usize>(m: Code) -> u64 {
    let m = m as u64;
    let six = (m & 3) << 6 | (m >> 2 & 3) << 14 | (m >> 4 & 3) << 22;
    if H == 1 {
        six
    } else {
        six | (m >> 6 & 3) << 30
    }
}

impl<const W: usize> Slot<W> {
    /// The slot of `key` in the generation of `tag`, with the best move
    /// of [`best_tag`] `best`.
    #[inline(always)]
    fn new(key: &Key<W>, tag: u64, best: u64, low: i32, high: i32) -> Self {
        let mut key = *key;
        key.0[0] |= tag;
        key.0[1] |= best;
        Slot { key, low, high }
    }

    /// Whether the slot was written in the generation of `tag`.
    #[inline(always)]
    fn taken(&self, tag: u64) -> bool {
        self.key.0[0] & TAGS == tag
    }

    /// Whether the slot holds `key` (whatever its generation).
    #[inline(always)]
    fn holds(&self, key: &Key<W>) -> bool {
        (0..W).all(|i| self.key.0[i] & !TAGS == key.0[i])
    }

    /// The key without its tags.
    pub(super) fn bare(&self) -> Key<W> {
        Key(self.key.0.map(|w| w & !TAGS))
    }

    /// The best move, for hands of `H` cards (see [`best_tag`]).
    #[inline(always)]
    pub(super) fn best<const H: usize>(&self) -> Code {
        let w = self.key.0[1];
        let six = w >> 6 & 3 | (w >> 14 & 3) << 2 | (w >> 22 & 3) << 4;
        (if H == 1 { six } else { six | (w >> 30 & 3) << 6 }) as Code
    }
}

/// A transposition table: open addressing with linear probing over exact
/// keys. Clearing is a generation bump, so a table reused from case to case
/// costs nothing to empty and keeps its memory.
#[derive(Debug, Clone)]
pub(super) struct Table<const W: usize> {
    pub(super) slots: Vec<Slot<W>>,
    generation: u16,
    /// [`generation_tag`] of `generation`.
    tag: u64,
    pub(super) len: usize,
    shift: u32,
    /// Bumped whenever entries may move (clear, growth): a slot index found
    /// by [`Table::probe`] still holds while the epoch is the same.
    pub(super) epoch: u32,
}

impl<const W: usize> Default for Table<W> {
    fn default() -> Self {
        Table::with_slots_log(12)
    }
}

impl<const W: usize> Table<W> {
    fn with_slots_log(log: u32) -> Self {
        let empty = Slot { key: Key([0; W]), low: 0, high: 0 };
        Table { slots: vec![empty; 1 << log], generation: 1, tag: generation_tag(1), len: 0, shift: 64 - log, epoch: 0 }
    }

    /// Forgets every entry (keeps the memory).
    pub(super) fn clear(&mut self) {
        self.len = 0;
        self.epoch = self.epoch.wrapping_add(1);
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.slots.iter_mut().for_each(|s| s.key = Key([0; W]));
            self.generation = 1;
        }
        self.tag = generation_tag(self.generation);
    }

    #[inline(always)]
    fn home(&self, key: &Key<W>) -> usize {
        let mut h = 0u64;
        for (i, w) in key.0.iter().enumerate() {
            h ^= w.rotate_left(i as u32 * 23);
        }
        (h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// The slot of `key` (`Ok`), or the empty slot where its probe ends
    /// (`Err`): either is where [`Table::insert_at`] may start.
    #[inline(always)]
    pub(super) fn probe(&self, key: &Key<W>) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let s = &self.slots[i];
            if !s.taken(self.tag) {
                return Err(i);
            }
            if s.holds(key) {
                return Ok(i);
            }
            i = (i + 1) & mask;
        }
    }

    /// [`Table::insert`] from slot `from` of [`Table::probe`] in `epoch`:
    /// the slots before it on the key's probe were taken by other keys
    /// then and still are, so the probe goes on from there.
    #[inline(always)]
    pub(super) fn insert_at(&mut self, from: usize, epoch: u32, key: Key<W>, low: i32, high: i32, best: u64) {
        if epoch != self.epoch || (self.len + 1) * 2 > self.slots.len() {
            return self.insert(key, low, high, best);
        }
        self.insert_from(from, key, low, high, best);
    }

    /// Records bounds `low..=high` of the value of `key` and its best move
    /// (as [`best_tag`] spreads it), merged with the bounds already known.
    pub(super) fn insert(&mut self, key: Key<W>, low: i32, high: i32, best: u64) {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let home = self.home(&key);
        self.insert_from(home, key, low, high, best);
    }

    /// Stores the bounds of `key` in its slot or the first free one from
    /// `from` on (the table has room).
    #[inline(always)]
    fn insert_from(&mut self, from: usize, key: Key<W>, low: i32, high: i32, best: u64) {
        let (mask, tag) = (self.slots.len() - 1, self.tag);
        let mut i = from & mask;
        loop {
            let s = &mut self.slots[i];
            if !s.taken(tag) {
                self.len += 1;
                break;
            }
            if s.holds(&key) {
                // Both bounds hold: keep the tighter of each.
                let (low, high) = (low.max(s.low), high.min(s.high));
                *s = Slot::new(&key, tag, best, low, high);
                return;
            }
            i = (i + 1) & mask;
        }
        self.slots[i] = Slot::new(&key, tag, best, low, high);
    }

    fn grow(&mut self) {
        let log = 64 - self.shift + 1;
        let epoch = self.epoch.wrapping_add(1);
        let generation = self.generation;
        let old = std::mem::replace(self, Table::with_slots_log(log));
        (self.epoch, self.generation, self.tag) = (epoch, generation, old.tag);
        for s in old.slots.iter().filter(|s| s.taken(old.tag)) {
            // Word 1's tags are the best move's bits.
            self.insert(s.bare(), s.low, s.high, s.key.0[1] & TAGS);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Clearing is a generation bump; after 65,535 of them the generations
    /// start again, and no entry of an earlier lap may come back.
    #[test]
    fn cleared_entries_stay_gone_across_the_generation_wrap() {
        let mut t = Table::<2>::default();
        let (old, new) = (Key([5, 9]), Key([7, 0]));
        t.insert(old, -4, 4, best_tag::<1>(1));
        for n in 1..=70_000u32 {
            t.clear();
            assert!(t.probe(&old).is_err() && t.probe(&new).is_err(), "an entry survived clear {n}");
            if n % 9_999 == 0 {
                // Within a generation the entry is there, bounds and move.
                t.insert(new, 2, 3, best_tag::<1>(17));
                let e = t.slots[t.probe(&new).expect("the entry just stored")];
                assert_eq!((e.low, e.high, e.best::<1>(), e.bare()), (2, 3, 17, new));
            }
        }
        assert!(t.generation < 5_000, "the generations started again");
    }

    /// Every move code rides in the tags and comes back (six bits with
    /// hands of one card, eight with more), through growth too, and leaves
    /// the key and the generation as they were.
    #[test]
    fn best_moves_come_back() {
        let mut t = Table::<2>::default();
        // Keys of bytes below 64, six bits of `i` each.
        let key = |i: u64| Key([(0..8).map(|b| (i >> (6 * b) & 63) << (8 * b)).sum(), 0x3F3F_3F3F_3F3F_3F3F]);
        for m in 0..=255u8 {
            t.insert(key(m as u64), -1, 1, best_tag::<2>(m));
            if m < 64 {
                t.insert(key(1000 + m as u64), -1, 1, best_tag::<1>(m));
            }
        }
        // 320 entries: the table of 4,096 slots has not grown yet.
        for _ in 0..2048 {
            t.insert(key(5000 + t.len as u64), 0, 0, 0);
        }
        for m in 0..=255u8 {
            let e = t.slots[t.probe(&key(m as u64)).expect("stored")];
            assert_eq!((e.best::<2>(), e.bare()), (m, key(m as u64)));
            if m < 64 {
                let e = t.slots[t.probe(&key(1000 + m as u64)).expect("stored")];
                assert_eq!((e.best::<1>(), e.bare()), (m, key(1000 + m as u64)));
            }
        }
        assert!(t.slots.len() > 4096, "the table grew");
    }
}
