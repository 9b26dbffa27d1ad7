//! The occupied cells of one case: an open-addressing map from a cell's key
//! to its stone index, key and index side by side so that a probe reads
//! one slot. Memory follows the moves, never the board.
//!
//! The places of keys come from a hash **keyed by
//! a secret drawn when the table is made** (the process's random hashing
//! keys): an input cannot choose cells whose keys share a slot, as it
//! could against a fixed multiplier (160,000 cells aimed at one slot made
//! every insertion scan all the earlier ones). Results never depend on the
//! slots, only speed.

/// Stone index meaning "no stone".
pub const NONE: u32 = u32::MAX;

/// No cell has this key (keys use 42 bits).
const EMPTY: u64 = u64::MAX;
const MIN_SLOTS_LOG: u32 = 6;

/// A secret for one table, from the standard library's per-process random
/// hashing keys.
fn secret() -> u64 {
    use std::hash::BuildHasher;
    std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64) | 1
}

/// A keyed mix: the secret xored in, then two multiply-xorshift rounds
/// spread every bit of `v` over the top bits.
#[inline]
fn mix(v: u64, seed: u64) -> u64 {
    let mut h = (v ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^= h >> 32;
    h.wrapping_mul(0xD6E8_FEB8_6659_FD93)
}

/// One slot: a cell key ([`EMPTY`] when free) and its stone index, side
/// by side so that a probe reads one cache line.
#[derive(Debug, Clone, Copy)]
struct Slot {
    key: u64,
    val: u32,
}

const FREE: Slot = Slot { key: EMPTY, val: 0 };

#[derive(Debug, Clone)]
pub struct CellTable {
    /// Length a power of two.
    slots: Vec<Slot>,
    len: usize,
    /// `64 - log2(slots)`.
    shift: u32,
    seed: u64,
    /// Slots read so far (for tests of the probe lengths).
    #[cfg(test)]
    pub probes: std::cell::Cell<u64>,
}

impl Default for CellTable {
    fn default() -> Self {
        Self::new()
    }
}

impl CellTable {
    pub fn new() -> Self {
        Self::with_seed(secret())
    }

    fn with_seed(seed: u64) -> Self {
        Self::sized(seed, MIN_SLOTS_LOG)
    }

    fn sized(seed: u64, log: u32) -> Self {
        let n = 1usize << log;
        CellTable {
            slots: vec![FREE; n],
            len: 0,
            shift: 64 - log,
            seed,
            #[cfg(test)]
            probes: std::cell::Cell::new(0),
        }
    }

    /// The first slot to try for `key`.
    #[inline]
    fn home(&self, key: u64) -> usize {
        (mix(key, self.seed) >> self.shift) as usize
    }

    #[inline]
    fn probed(&self) {
        #[cfg(test)]
        self.probes.set(self.probes.get() + 1);
    }

    /// The stone at `key`, or [`NONE`].
    #[inline]
    pub fn get(&self, key: u64) -> u32 {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            self.probed();
            let s = self.slots[i];
            if s.key == key {
                return s.val;
            }
            if s.key == EMPTY {
                return NONE;
            }
            i = (i + 1) & mask;
        }
    }

    /// Inserts `key -> idx`, or returns the stone already at `key`.
    #[inline]
    pub fn insert(&mut self, key: u64, idx: u32) -> Result<(), u32> {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            self.probed();
            let s = &mut self.slots[i];
            if s.key == EMPTY {
                *s = Slot { key, val: idx };
                self.len += 1;
                return Ok(());
            }
            if s.key == key {
                return Err(s.val);
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let mut bigger = CellTable::sized(self.seed, 64 - self.shift + 1);
        let mask = bigger.slots.len() - 1;
        for s in &self.slots {
            if s.key != EMPTY {
                let mut i = bigger.home(s.key);
                while bigger.slots[i].key != EMPTY {
                    i = (i + 1) & mask;
                }
                bigger.slots[i] = *s;
            }
        }
        bigger.len = self.len;
        #[cfg(test)]
        bigger.probes.set(self.probes.get());
        *self = bigger;
    }

    /// Empties the table; a table much larger than the last case needed
    /// is dropped, so that many small cases after a large one stay cheap.
    pub fn clear(&mut self) {
        if self.slots.len() > 1 << MIN_SLOTS_LOG && self.slots.len() > 8 * self.len.max(8) {
            *self = CellTable::with_seed(self.seed);
        } else {
            self.slots.fill(FREE);
            self.len = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::connection::board::Board;

    /// Cells of a hexagon of side 10^6 whose keys share the top `bits` bits
    /// of `key · 0x9E3779B97F4A7C15`, the fixed multiplicative hash the
    /// table once used (FAILURES.md H12): with that hash every insertion
    /// scanned all the earlier keys.
    fn aimed_cells(bits: u32, n: usize) -> Vec<u64> {
        const G: u64 = 0x9E37_79B9_7F4A_7C15;
        let s = 1_000_000u64;
        let hi = 2 * s - 1;
        let mut ys: Vec<(u64, u64)> = (1..=hi).map(|y| (y.wrapping_mul(G), y)).collect();
        ys.sort_unstable();
        let width = 1u64 << (64 - bits);
        let mut out = Vec::new();
        'x: for x in 1..=hi {
            // y·G must fall in [lo, lo + width) so that (x<<21 | y)·G < width.
            let lo = 0u64.wrapping_sub((x << 21).wrapping_mul(G));
            let mut i = ys.partition_point(|&(r, _)| r < lo);
            while i < ys.len() && ys[i].0.wrapping_sub(lo) < width {
                let y = ys[i].1;
                if x.abs_diff(y) < s {
                    out.push(Board::key(x as u32, y as u32));
                    if out.len() == n {
                        break 'x;
                    }
                }
                i += 1;
            }
        }
        out
    }

    #[test]
    fn aimed_keys_do_not_collide() {
        let keys = aimed_cells(22, 20_000);
        assert_eq!(keys.len(), 20_000);
        // The old hash sends all of them to one slot of a 2^16 table.
        let old = |k: u64| k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - 16);
        assert!(keys.iter().all(|&k| old(k) == old(keys[0])));
        let mut t = CellTable::new();
        for (i, &k) in keys.iter().enumerate() {
            t.insert(k, i as u32).unwrap();
            // Each key is looked up with its six neighbours, as a move does.
            for d in [1u64, 1 << 21, (1 << 21) + 1] {
                t.get(k + d);
                t.get(k - d);
            }
        }
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(t.get(k), i as u32);
            assert_eq!(t.insert(k, 0), Err(i as u32));
        }
        // About 3 slots per operation at half load; the old hash needed
        // about 10^4 (quadratic in the moves).
        let ops = keys.len() as u64 * 9;
        assert!(t.probes.get() < 6 * ops, "{} probes for {ops} operations", t.probes.get());
    }

    #[test]
    fn the_map_agrees_with_a_std_map() {
        let mut t = CellTable::new();
        let mut m = std::collections::HashMap::new();
        let mut x = 12345u64;
        for round in 0..3 {
            for i in 0..5000u32 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let key = (x >> 20) & ((1 << 42) - 1);
                let got = t.insert(key, i);
                match m.entry(key) {
                    std::collections::hash_map::Entry::Occupied(e) => assert_eq!(got, Err(*e.get())),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        assert_eq!(got, Ok(()));
                        e.insert(i);
                    }
                }
                assert_eq!(t.get(key ^ 1), m.get(&(key ^ 1)).copied().unwrap_or(NONE));
            }
            if round < 2 {
                t.clear();
                m.clear();
            }
        }
    }
}
