//! The occupied cells of one case: an open-addressing map from a cell's key
//! to its stone index, keys stored inline so that a probe for an empty
//! neighbour reads one slot. Memory follows the moves, never the board.
//!
//! The slot of a key comes from a hash **keyed by a secret drawn when the
//! table is made** (the process's random hashing keys): an input cannot
//! choose cells whose keys share a slot, as it could against a fixed
//! multiplier (160,000 cells aimed at one slot made every insertion scan
//! all the earlier ones). Results never depend on the slots, only speed.

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

#[derive(Debug, Clone)]
pub struct CellTable {
    /// Cell key per slot, [`EMPTY`] for a free slot. Length a power of two.
    keys: Vec<u64>,
    /// Stone index per slot.
    vals: Vec<u32>,
    len: usize,
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
        let n = 1 << MIN_SLOTS_LOG;
        CellTable {
            keys: vec![EMPTY; n],
            vals: vec![0; n],
            len: 0,
            shift: 64 - MIN_SLOTS_LOG,
            seed,
            #[cfg(test)]
            probes: std::cell::Cell::new(0),
        }
    }

    /// The first slot to try for `key`: the top bits of a keyed mix (the
    /// secret is xored in, then two multiply-xorshift rounds spread every
    /// key bit over the top bits).
    #[inline]
    fn home(&self, key: u64) -> usize {
        let mut h = (key ^ self.seed).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= h >> 32;
        h = h.wrapping_mul(0xD6E8_FEB8_6659_FD93);
        (h >> self.shift) as usize
    }

    #[inline]
    fn probed(&self) {
        #[cfg(test)]
        self.probes.set(self.probes.get() + 1);
    }

    /// The stone at `key`, or [`NONE`].
    #[inline]
    pub fn get(&self, key: u64) -> u32 {
        let mask = self.keys.len() - 1;
        let mut i = self.home(key);
        loop {
            self.probed();
            let k = self.keys[i];
            if k == key {
                return self.vals[i];
            }
            if k == EMPTY {
                return NONE;
            }
            i = (i + 1) & mask;
        }
    }

    /// Inserts `key -> idx`, or returns the stone already at `key`.
    #[inline]
    pub fn insert(&mut self, key: u64, idx: u32) -> Result<(), u32> {
        if (self.len + 1) * 2 > self.keys.len() {
            self.grow();
        }
        let mask = self.keys.len() - 1;
        let mut i = self.home(key);
        loop {
            self.probed();
            let k = self.keys[i];
            if k == EMPTY {
                self.keys[i] = key;
                self.vals[i] = idx;
                self.len += 1;
                return Ok(());
            }
            if k == key {
                return Err(self.vals[i]);
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let n = self.keys.len() * 2;
        let keys = std::mem::replace(&mut self.keys, vec![EMPTY; n]);
        let vals = std::mem::replace(&mut self.vals, vec![0; n]);
        self.shift -= 1;
        let mask = n - 1;
        for (k, v) in keys.into_iter().zip(vals) {
            if k != EMPTY {
                let mut i = self.home(k);
                while self.keys[i] != EMPTY {
                    i = (i + 1) & mask;
                }
                self.keys[i] = k;
                self.vals[i] = v;
            }
        }
    }

    /// Empties the table; a table much larger than the last case needed
    /// is dropped, so that many small cases after a large one stay cheap.
    pub fn clear(&mut self) {
        if self.keys.len() > 1 << MIN_SLOTS_LOG && self.keys.len() > 8 * self.len.max(8) {
            let seed = self.seed;
            *self = CellTable::with_seed(seed);
        } else {
            self.keys.iter_mut().for_each(|k| *k = EMPTY);
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
