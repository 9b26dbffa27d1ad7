//! The core: one case's moves, read whole, to its first winning move.
//!
//! **Neighbours by sorting.** Every cell gets the key `x·w + y`
//! (`w` = the board's extent + 2, so the six neighbours of a cell are at
//! fixed key distances and never wrap). The keys, each with its move index
//! in the low bits, are sorted by a least-significant-digit radix sort,
//! which keeps equal keys in move order. In key order, a cell's neighbour
//! `(x, y + 1)` is the next entry when it is a stone at all, and its two
//! neighbours in row `x + 1` are found by one cursor that only moves
//! forward: one linear pass finds every adjacent pair of stones. Each pair
//! is written to the stone placed later (its direction and the earlier
//! stone's index), so each move knows its earlier neighbours before play
//! starts. Two equal keys side by side are a repeated cell. Time is linear
//! in the moves whatever the cells (no hashing, nothing an input can aim
//! at), memory a few words per move, never per cell of the board.
//!
//! **Play** then goes through the moves in order: groups are a union-find
//! over stone indices (union by size, path halving), each root holding the
//! bitmask of the family members its group touches. Consecutive
//! neighbours (in the lattice's cyclic order) are adjacent to each other,
//! so they are in one group already: only the first stone of each run of
//! neighbours needs a find, at most three per move. Enclosures come from
//! Euler's formula (see the module page): `E - V + C - T` changes by
//! `n - merged - triangles` per move, with `n` the earlier neighbours and
//! `triangles` the pairs of consecutive ones, both read off the move's
//! neighbour mask.
//!
//! **Bands.** A step between neighbours changes `x` by at most one, so a
//! group's stones fill consecutive rows: every group lies within one band
//! of rows that all hold stones. The linking pass, which walks the stones
//! in row order anyway, ORs the family members each band touches; when no
//! band touches enough members for any connection structure, and no
//! structure is an enclosure, nothing can form at any move and play is
//! skipped (the case is still read whole and checked for repeats).

use crate::engines::connection::board::Board;
use crate::engines::connection::read::Stone;
use crate::engines::connection::{CaseResult, Connection, Win};

/// A repeated cell: the move (0-based) and the move that took the cell
/// first.
pub type Repeat = (usize, usize);

/// A sort entry: a cell's key above a move index.
trait Entry: Copy + Default {
    /// The all-ones entry, whose key is above every target.
    const TOP: Self;
    fn pack(key: u64, idx: u32, ib: u32) -> Self;
    fn key(self, ib: u32) -> u64;
    fn idx(self, ib: u32) -> u32;
}

/// Key and index in one word, when they fit (`ib` index bits).
impl Entry for u64 {
    const TOP: u64 = u64::MAX;
    #[inline(always)]
    fn pack(key: u64, idx: u32, ib: u32) -> u64 {
        key << ib | idx as u64
    }
    #[inline(always)]
    fn key(self, ib: u32) -> u64 {
        self >> ib
    }
    #[inline(always)]
    fn idx(self, ib: u32) -> u32 {
        (self & ((1 << ib) - 1)) as u32
    }
}

/// Key above index in two words: large boards with millions of moves.
impl Entry for u128 {
    const TOP: u128 = u128::MAX;
    #[inline(always)]
    fn pack(key: u64, idx: u32, _: u32) -> u128 {
        (key as u128) << 64 | idx as u128
    }
    #[inline(always)]
    fn key(self, _: u32) -> u64 {
        (self >> 64) as u64
    }
    #[inline(always)]
    fn idx(self, _: u32) -> u32 {
        self as u32
    }
}

/// Working memory of the solver, reused from case to case.
#[derive(Default)]
pub struct Solver {
    narrow: [Vec<u64>; 2],
    wide: [Vec<u128>; 2],
    /// Radix histograms, one per pass.
    counts: Vec<u32>,
    /// Per move: its earlier neighbours, by direction (valid where `mask`
    /// has the direction's bit).
    near: Vec<[u32; 6]>,
    mask: Vec<u8>,
    /// Union-find over moves; `size` and `members` are read at roots.
    parent: Vec<u32>,
    size: Vec<u32>,
    members: Vec<u64>,
    /// Per stone: its stone neighbours (kept only for `encloses: any`).
    around: Vec<u8>,
    count_around: bool,
    /// `E - V + C - T`: bounded faces that are not unit triangles.
    holes: i64,
    /// Stones whose six neighbours are all stones on the board.
    surrounded: u64,
    /// Narrowest index field that the sort uses (for tests: 64 forces the
    /// two-word entries).
    #[cfg(test)]
    pub min_index_bits: u32,
}

/// Bits needed to write `v`.
fn bits(v: u64) -> u32 {
    64 - v.leading_zeros()
}

impl Solver {
    /// Solves a case: the first move after which a structure exists, or
    /// the first repeated cell.
    pub fn solve(&mut self, conn: &Connection, board: &Board, moves: &[Stone]) -> Result<CaseResult, Repeat> {
        let reach = self.link(conn, board, moves)?;
        // No group of the whole case forms a connection, and no structure
        // is an enclosure: nothing forms at any move.
        if reach == 0 && conn.any_bits == 0 {
            return Ok(CaseResult { win: None });
        }
        self.start(conn, moves.len());
        for (k, &s) in moves.iter().enumerate() {
            let found = self.place(conn, k, s);
            if found != 0 {
                return Ok(CaseResult { win: Some(Win { turn: k as u64 + 1, structures: found }) });
            }
        }
        Ok(CaseResult { win: None })
    }

    /// Finds every move's earlier neighbours ([`Solver::place`] then plays
    /// them in order), or the first repeated cell. Returns the connection
    /// structures that the stones of some band of consecutive rows touch
    /// (see the module page; all bits when a structure is an enclosure):
    /// no other can ever form.
    pub fn link(&mut self, conn: &Connection, board: &Board, moves: &[Stone]) -> Result<u64, Repeat> {
        let m = moves.len();
        let w = board.extent() as u64 + 2;
        let kb = bits(w * w);
        let ib = bits(m.saturating_sub(1) as u64).max(1);
        #[cfg(test)]
        let ib = ib.max(self.min_index_bits);
        if self.near.len() < m {
            self.near.resize(m, [0; 6]);
        }
        self.mask.clear();
        self.mask.resize(m, 0);
        let offsets = board.offsets();
        let dir = |o: (i32, i32)| offsets.iter().position(|&d| d == o).unwrap_or(0);
        // Row x + 1 holds the neighbours (x + 1, y + lo) and (x + 1, y + lo + 1).
        let lo = offsets.iter().filter(|d| d.0 == 1).map(|d| d.1).min().unwrap_or(0);
        let geo = Geometry { w, lo, right: dir((0, 1)), down: [dir((1, lo)), dir((1, lo + 1))] };
        // Bands only matter when every structure is a connection.
        let bands = conn.any_bits == 0;
        let (counts, near, mask) = (&mut self.counts, &mut self.near, &mut self.mask);
        match (kb + ib <= 64, bands) {
            (true, true) => {
                let [a, b] = &mut self.narrow;
                link_with::<_, true>(a, b, counts, near, mask, conn, moves, &geo, kb, ib)
            }
            (true, false) => {
                let [a, b] = &mut self.narrow;
                link_with::<_, false>(a, b, counts, near, mask, conn, moves, &geo, kb, ib)
            }
            (false, true) => {
                let [a, b] = &mut self.wide;
                link_with::<_, true>(a, b, counts, near, mask, conn, moves, &geo, kb, 64)
            }
            (false, false) => {
                let [a, b] = &mut self.wide;
                link_with::<_, false>(a, b, counts, near, mask, conn, moves, &geo, kb, 64)
            }
        }
    }

    /// An empty board for `moves` moves.
    pub fn start(&mut self, conn: &Connection, moves: usize) {
        self.parent.clear();
        self.size.clear();
        self.members.clear();
        self.around.clear();
        self.parent.reserve(moves);
        self.size.reserve(moves);
        self.members.reserve(moves);
        self.count_around = conn.any_bits & !conn.empty_bits != 0;
        self.holes = 0;
        self.surrounded = 0;
    }

    #[inline]
    fn find(&mut self, mut a: u32) -> u32 {
        loop {
            let p = self.parent[a as usize];
            if p == a {
                return a;
            }
            // Path halving.
            let g = self.parent[p as usize];
            self.parent[a as usize] = g;
            a = g;
        }
    }

    /// Places move `k` (the next one) and returns the bits of the
    /// structures that exist after it.
    #[inline]
    pub fn place(&mut self, conn: &Connection, k: usize, stone: Stone) -> u64 {
        debug_assert_eq!(self.parent.len(), k, "moves are placed in order");
        let idx = k as u32;
        let m = self.mask[k] as u32;
        let near = self.near[k];
        self.parent.push(idx);
        self.size.push(1);
        self.members.push(conn.members_by_sides(stone.sides()));
        let n = m.count_ones();
        // Bit i of `next`: direction i + 1 holds a stone; of `prev`: i - 1.
        let next = (m >> 1 | m << 5) & 63;
        let prev = (m << 1 | m >> 5) & 63;
        let triangles = (m & next).count_ones();
        // The first stone of each run of consecutive neighbours (all six:
        // one run).
        let mut starts = m & !prev;
        if starts == 0 {
            starts = m & m.wrapping_neg();
        }
        let mut root = idx;
        let mut merged = 0u32;
        while starts != 0 {
            let i = starts.trailing_zeros() as usize;
            starts &= starts - 1;
            let r = self.find(near[i]);
            if r == root {
                continue;
            }
            merged += 1;
            let (big, small) = if self.size[r as usize] > self.size[root as usize] { (r, root) } else { (root, r) };
            self.size[big as usize] += self.size[small as usize];
            self.members[big as usize] |= self.members[small as usize];
            self.parent[small as usize] = big;
            root = big;
        }
        if self.count_around {
            let mut rest = m;
            while rest != 0 {
                let j = near[rest.trailing_zeros() as usize] as usize;
                rest &= rest - 1;
                self.around[j] += 1;
                if self.around[j] == 6 {
                    self.surrounded += 1;
                }
            }
            self.around.push(n as u8);
            if n == 6 {
                self.surrounded += 1;
            }
        }
        // dE = n, dV = 1, dC = 1 - merged, dT = triangles.
        self.holes += n as i64 - merged as i64 - triangles as i64;
        let mut found = conn.connected(self.members[root as usize]);
        if self.holes > 0 {
            found |= conn.any_bits;
        } else if self.surrounded > 0 {
            found |= conn.any_bits & !conn.empty_bits;
        }
        found
    }

    /// `E - V + C - T` of the stones placed so far (for tests).
    #[cfg(test)]
    pub fn holes(&self) -> i64 {
        self.holes
    }

    /// The group (its root stone) of placed stone `a` (for tests).
    #[cfg(test)]
    pub fn group_of(&mut self, a: u32) -> u32 {
        self.find(a)
    }
}

/// Key arithmetic of one board.
struct Geometry {
    /// Keys per row: `key(x, y) = x·w + y`.
    w: u64,
    /// The smaller `dy` of the two neighbours in row `x + 1` (-1 or 0).
    lo: i32,
    /// Directions (indices into the board's offsets) of `(0, 1)`, and of
    /// `(1, lo)` and `(1, lo + 1)`.
    right: usize,
    down: [usize; 2],
}

/// Sorts the moves' keys and links adjacent stones (see the module page).
#[allow(clippy::too_many_arguments)]
fn link_with<E: Entry, const BANDS: bool>(
    a: &mut Vec<E>,
    b: &mut Vec<E>,
    counts: &mut Vec<u32>,
    near: &mut [[u32; 6]],
    mask: &mut [u8],
    conn: &Connection,
    moves: &[Stone],
    geo: &Geometry,
    kb: u32,
    ib: u32,
) -> Result<u64, Repeat> {
    let m = moves.len();
    // Digits of up to 13 bits, fewer for small cases (a histogram per pass
    // costs its size in time).
    let widest = bits(m as u64).clamp(4, 13);
    let passes = kb.div_ceil(widest);
    let d = kb.div_ceil(passes);
    let buckets = 1usize << d;
    let dmask = (buckets - 1) as u64;
    counts.clear();
    counts.resize(passes as usize * buckets, 0);
    a.clear();
    a.reserve(m + 1);
    for (i, s) in moves.iter().enumerate() {
        let key = s.x() as u64 * geo.w + s.y() as u64;
        a.push(E::pack(key, i as u32, ib));
        for p in 0..passes {
            counts[p as usize * buckets + (key >> (p * d) & dmask) as usize] += 1;
        }
    }
    // Least significant digit first; each pass is stable.
    b.clear();
    b.resize(m, E::default());
    for p in 0..passes {
        let c = &mut counts[p as usize * buckets..(p as usize + 1) * buckets];
        let mut sum = 0;
        for v in c.iter_mut() {
            (*v, sum) = (sum, sum + *v);
        }
        let shift = p * d;
        for &e in a.iter() {
            let slot = &mut c[(e.key(ib) >> shift & dmask) as usize];
            b[*slot as usize] = e;
            *slot += 1;
        }
        std::mem::swap(a, b);
    }
    a.push(E::TOP);
    let mut repeat: Option<Repeat> = None;
    // Links stone `i` to stone `j`, in direction `d` from `i`: written to
    // the later of the two.
    let mut link = |i: u32, j: u32, d: usize| {
        let (later, earlier, d) = if i > j { (i, j, d) } else { (j, i, (d + 3) % 6) };
        near[later as usize][d] = earlier;
        mask[later as usize] |= 1 << d;
    };
    let (w, lo) = (geo.w, geo.lo as i64);
    let mut q = 0;
    // The band of consecutive rows being walked: its last row and the
    // family members its stones touch; `reach`: what the bands form.
    let (mut row, mut band, mut reach) = (0u32, 0u64, 0u64);
    for p in 0..m {
        let (e, f) = (a[p], a[p + 1]);
        let (k, i) = (e.key(ib), e.idx(ib));
        if BANDS {
            let stone = moves[i as usize];
            if stone.x() > row + 1 {
                reach |= conn.connected(band);
                band = 0;
            }
            row = stone.x();
            band |= conn.members_by_sides(stone.sides());
        }
        if f.key(ib) == k {
            let r = (f.idx(ib) as usize, i as usize);
            repeat = Some(repeat.map_or(r, |old| old.min(r)));
        } else if f.key(ib) == k + 1 {
            link(i, f.idx(ib), geo.right);
        }
        let t = (k + w).wrapping_add_signed(lo);
        while a[q].key(ib) < t {
            q += 1;
        }
        let g = a[q];
        if g.key(ib) == t {
            link(i, g.idx(ib), geo.down[0]);
            let h = a[q + 1];
            if h.key(ib) == t + 1 {
                link(i, h.idx(ib), geo.down[1]);
            }
        } else if g.key(ib) == t + 1 {
            link(i, g.idx(ib), geo.down[1]);
        }
    }
    match repeat {
        Some(r) => Err(r),
        // Without bands, every structure is possible.
        None => Ok(if BANDS { reach | conn.connected(band) } else { u64::MAX }),
    }
}
