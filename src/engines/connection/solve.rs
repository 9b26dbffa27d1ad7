//! The core: one case's moves, read whole, to its first winning move.
//!
//! **Neighbours by sorting.** Every cell gets a key numbering the cells
//! of the box of rows and columns the case's stones use, with a spare row
//! and column each side: `(x - x0 + 1)·w + (y - y0 + 1)`, `w` the box's
//! width + 2, so the six neighbours of a cell are at fixed key distances
//! and never wrap. The keys, each above its move index, are sorted by a
//! least-significant-digit radix sort, digits as wide as the moves are
//! many, so that 10,000 moves with keys of up to 28 bits (a board of side
//! 3,000) take two passes ([`sort_entries`]). In key order, a cell's
//! neighbour `(x, y + 1)` is the next entry when it is a stone at all, and
//! its two neighbours in row `x + 1` are found by one cursor that only
//! moves forward: one linear pass finds every adjacent pair of stones.
//! Each pair is written to the stone placed later (its direction and the
//! earlier stone's index), so each move knows its earlier neighbours
//! before play starts. Two equal keys side by side are a repeated cell.
//! Time is linear in the moves whatever the cells (no hashing, nothing an
//! input can aim at), memory a few words per move, never per cell of the
//! board.
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
use crate::engines::connection::play::General;
use crate::engines::connection::read::Stone;
use crate::engines::connection::{CaseResult, Connection, Win};

/// A repeated cell: the move (0-based) and the move that took the cell
/// first.
pub(crate) type Repeat = (usize, usize);

/// A sort entry: a cell's key above a move index.
trait Entry: Copy + Default + Ord {
    /// The all-ones entry, whose key is above every target.
    const TOP: Self;
    fn pack(key: u64, idx: u32) -> Self;
    fn key(self) -> u64;
    fn idx(self) -> u32;
}

/// Key and index in one word, when the key fits in 32 bits (boards of
/// side up to 20,000 or so, and stones in a smaller box on larger ones).
impl Entry for u64 {
    const TOP: u64 = u64::MAX;
    #[inline(always)]
    fn pack(key: u64, idx: u32) -> u64 {
        key << 32 | idx as u64
    }
    #[inline(always)]
    fn key(self) -> u64 {
        self >> 32
    }
    #[inline(always)]
    fn idx(self) -> u32 {
        self as u32
    }
}

/// Key above index in two words: stones spread over a very large board.
impl Entry for u128 {
    const TOP: u128 = u128::MAX;
    #[inline(always)]
    fn pack(key: u64, idx: u32) -> u128 {
        (key as u128) << 64 | idx as u128
    }
    #[inline(always)]
    fn key(self) -> u64 {
        (self >> 64) as u64
    }
    #[inline(always)]
    fn idx(self) -> u32 {
        self as u32
    }
}

/// Working memory of the solver, reused from case to case.
#[derive(Default)]
pub struct Solver {
    narrow: [Vec<u64>; 2],
    wide: [Vec<u128>; 2],
    /// Bucket counts of the sort.
    counts: Vec<u32>,
    /// Per move: its earlier neighbours, by direction (valid where `mask`
    /// has the direction's bit).
    near: Vec<[u32; 6]>,
    mask: Vec<u8>,
    /// Union-find over moves; `size` and `members` are read at roots.
    /// Each entry is written when its move is placed: the vectors only
    /// grow, to the most moves of a case so far, and are never cleared.
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
    /// Moves placed since [`Solver::start`].
    placed: usize,
    /// The state of the general play (several players, lines), kept apart
    /// from the base games' path.
    general: General,
    /// For tests: the two-word sort entries whatever the keys.
    #[cfg(test)]
    pub two_words: bool,
    /// For tests: the sort's digits have at most this many bits (0:
    /// [`DIGIT_BITS`]; a case of at most [`FEW`] moves is sorted by
    /// insertion alone whatever this is).
    #[cfg(test)]
    pub digit_bits: u32,
}

/// The smallest and largest row, and column, of `moves` (not empty).
fn bounds(moves: &[Stone]) -> ((u32, u32), (u32, u32)) {
    // On the packed words, a field at a time: 64-bit compares, which the
    // compiler keeps scalar (two compares and moves a field).
    const X: u64 = (1 << 21) - 1;
    let (mut x0, mut x1, mut y0, mut y1) = (u64::MAX, 0, u64::MAX, 0);
    for s in moves {
        let (x, y) = (s.word() & X, s.word() & X << 21);
        (x0, x1) = (x0.min(x), x1.max(x));
        (y0, y1) = (y0.min(y), y1.max(y));
    }
    ((x0 as u32, x1 as u32), ((y0 >> 21) as u32, (y1 >> 21) as u32))
}

/// Bits needed to write `v`.
fn bits(v: u64) -> u32 {
    64 - v.leading_zeros()
}

/// Per mask of earlier neighbours (bit `i`: direction `i`): the first
/// direction of each run of consecutive ones, cyclically (one bit when
/// all six are set); the number of neighbours; and the number of pairs
/// of consecutive ones (unit triangles the move closes).
const RUNS: [(u8, u8, u8); 64] = runs();

const fn runs() -> [(u8, u8, u8); 64] {
    let mut table = [(0u8, 0u8, 0u8); 64];
    let mut m = 0u32;
    while m < 64 {
        // Bit i of `next`: direction i + 1 holds a stone; of `prev`: i - 1.
        let next = (m >> 1 | m << 5) & 63;
        let prev = (m << 1 | m >> 5) & 63;
        let mut starts = m & !prev;
        if starts == 0 {
            starts = m & m.wrapping_neg();
        }
        table[m as usize] = (starts as u8, m.count_ones() as u8, (m & next).count_ones() as u8);
        m += 1;
    }
    table
}

impl Solver {
    /// Solves a case: the first move after which a structure exists, or
    /// the first repeated cell.
    pub fn solve(&mut self, conn: &Connection, board: &Board, moves: &[Stone]) -> Result<CaseResult, Repeat> {
        let reach = self.link(conn, board, moves)?;
        // No group of the whole case forms a connection, and every other
        // structure is a connection: nothing forms at any move.
        if reach == 0 && conn.unbanded == 0 {
            return Ok(CaseResult { win: None });
        }
        self.start(conn, moves.len());
        let win = match &conn.extra {
            Some(extra) => {
                let (mut play, general) = self.split(moves.len());
                moves.iter().enumerate().find_map(|(k, &s)| {
                    let found = general.place(&mut play, conn, extra, k, s);
                    let player = (k % extra.players) as u32;
                    (found != 0).then_some(Win { turn: k as u64 + 1, structures: found, player })
                })
            }
            None if self.count_around => self.play::<true>(conn, moves),
            None => self.play::<false>(conn, moves),
        };
        Ok(CaseResult { win })
    }

    /// Plays every move in order up to the first win (after
    /// [`Solver::link`] and [`Solver::start`]).
    fn play<const AROUND: bool>(&mut self, conn: &Connection, moves: &[Stone]) -> Option<Win> {
        let mut play = self.board(moves.len());
        for (k, &s) in moves.iter().enumerate() {
            let found = play.place::<AROUND>(conn, k, s);
            if found != 0 {
                return Some(Win { turn: k as u64 + 1, structures: found, player: 0 });
            }
        }
        None
    }

    /// The arrays of a case of `m` moves, as slices of exactly its moves.
    fn board(&mut self, m: usize) -> Play<'_> {
        self.split(m).0
    }

    /// [`Solver::board`], and the state of the general play beside it.
    fn split(&mut self, m: usize) -> (Play<'_>, &mut General) {
        let play = Play {
            mask: &self.mask[..m],
            near: &self.near[..m],
            parent: &mut self.parent[..m],
            size: &mut self.size[..m],
            members: &mut self.members[..m],
            around: if self.count_around { &mut self.around[..m] } else { &mut [] },
            holes: &mut self.holes,
            surrounded: &mut self.surrounded,
        };
        (play, &mut self.general)
    }

    /// Finds every move's earlier neighbours ([`Solver::place`] then plays
    /// them in order), or the first repeated cell. Returns the connection
    /// structures that the stones of some band of consecutive rows touch
    /// (see the module page; all bits when a structure is an enclosure):
    /// no other can ever form.
    pub fn link(&mut self, conn: &Connection, board: &Board, moves: &[Stone]) -> Result<u64, Repeat> {
        let m = moves.len();
        // Bands only matter when every structure is a connection.
        let bands = conn.unbanded == 0;
        if m == 0 {
            return Ok(if bands { 0 } else { u64::MAX });
        }
        // The box of rows and columns the stones use.
        let ((x0, x1), (y0, y1)) = bounds(moves);
        // A row of keys is the box's width and one spare column each side,
        // so that no neighbour of a stone wraps into another row.
        let w = (y1 - y0) as u64 + 3;
        // The box's rows and one spare row each side.
        let rows = (x1 - x0) as u64 + 3;
        let kb = bits(rows * w);
        #[cfg(test)]
        let kb = if self.two_words { kb.max(33) } else { kb };
        if self.near.len() < m {
            self.near.resize(m, [0; 6]);
        }
        self.mask.clear();
        self.mask.resize(m, 0);
        let offsets = board.offsets();
        let dir = |o: (i32, i32)| offsets.iter().position(|&d| d == o).unwrap_or(0);
        // Row x + 1 holds the neighbours (x + 1, y + lo) and (x + 1, y + lo + 1).
        let lo = offsets.iter().filter(|d| d.0 == 1).map(|d| d.1).min().unwrap_or(0);
        let geo = Geometry {
            w,
            origin: (x0 - 1, y0 - 1),
            lo,
            right: dir((0, 1)),
            down: [dir((1, lo)), dir((1, lo + 1))],
            #[cfg(test)]
            digit_bits: if self.digit_bits == 0 { DIGIT_BITS } else { self.digit_bits },
            #[cfg(not(test))]
            digit_bits: DIGIT_BITS,
        };
        let near = (&mut self.near[..], &mut self.mask[..]);
        let scratch = &mut self.counts;
        let reach = match (kb <= 32, bands) {
            (true, true) => {
                let [a, b] = &mut self.narrow;
                link_with::<_, true>(a, b, scratch, near, conn, moves, &geo, kb)
            }
            (true, false) => {
                let [a, b] = &mut self.narrow;
                link_with::<_, false>(a, b, scratch, near, conn, moves, &geo, kb)
            }
            (false, true) => {
                let [a, b] = &mut self.wide;
                link_with::<_, true>(a, b, scratch, near, conn, moves, &geo, kb)
            }
            (false, false) => {
                let [a, b] = &mut self.wide;
                link_with::<_, false>(a, b, scratch, near, conn, moves, &geo, kb)
            }
        }?;
        // Several players: each one's stones link only to its own.
        let players = conn.players();
        if players > 1 {
            for (k, (near, mask)) in self.near[..m].iter().zip(&mut self.mask[..m]).enumerate() {
                let mut rest = *mask;
                while rest != 0 {
                    let d = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    if near[d] as usize % players != k % players {
                        *mask &= !(1 << d);
                    }
                }
            }
        }
        Ok(reach)
    }

    /// An empty board for `moves` moves.
    pub fn start(&mut self, conn: &Connection, moves: usize) {
        if self.parent.len() < moves {
            self.parent.resize(moves, 0);
            self.size.resize(moves, 0);
            self.members.resize(moves, 0);
        }
        self.count_around = conn.any_bits & !conn.empty_bits != 0;
        if self.count_around && self.around.len() < moves {
            self.around.resize(moves, 0);
        }
        self.holes = 0;
        self.surrounded = 0;
        self.placed = 0;
        if let Some(extra) = &conn.extra {
            self.general.start(extra, moves);
        }
    }

    /// Places move `k` (the next one) and returns the bits of the
    /// structures that exist after it (for the player who made it).
    pub fn place(&mut self, conn: &Connection, k: usize, stone: Stone) -> u64 {
        debug_assert_eq!(self.placed, k, "moves are placed in order");
        self.placed = k + 1;
        let around = self.count_around;
        let (mut play, general) = self.split(self.mask.len());
        match &conn.extra {
            Some(extra) => general.place(&mut play, conn, extra, k, stone),
            None if around => play.place::<true>(conn, k, stone),
            None => play.place::<false>(conn, k, stone),
        }
    }

    /// `E - V + C - T` of the stones placed so far (for tests): of the
    /// player who moved last, in the general play.
    #[cfg(test)]
    pub fn holes(&self, conn: &Connection) -> i64 {
        match (&conn.extra, self.placed) {
            (Some(extra), k @ 1..) => self.general.holes_of((k - 1) % extra.players),
            _ => self.holes,
        }
    }

    /// The group (its root stone) of placed stone `a` (for tests).
    #[cfg(test)]
    pub fn group_of(&mut self, a: u32) -> u32 {
        find(&mut self.parent, a)
    }
}

/// The union-find and the counters of play, over slices of exactly the
/// case's moves (so that indexing by the move needs no check).
pub(super) struct Play<'s> {
    pub mask: &'s [u8],
    pub near: &'s [[u32; 6]],
    parent: &'s mut [u32],
    pub size: &'s mut [u32],
    members: &'s mut [u64],
    /// Empty unless `encloses: any` is asked.
    pub around: &'s mut [u8],
    holes: &'s mut i64,
    surrounded: &'s mut u64,
}

/// What placing a stone did to the groups: the family members its group
/// touches, its earlier neighbours (`n`), the groups it merged and the
/// unit triangles it closed.
pub(super) struct Joined {
    pub touched: u64,
    pub n: u8,
    pub merged: u32,
    pub triangles: u8,
}

impl Play<'_> {
    /// Places move `k` and returns the bits of the structures that exist
    /// after it; `AROUND`: count the stones with six stone neighbours.
    #[inline(always)]
    fn place<const AROUND: bool>(&mut self, conn: &Connection, k: usize, stone: Stone) -> u64 {
        let Joined { touched, n, merged, triangles } = self.join(conn, k, stone);
        let m = self.mask[k] as usize;
        let near = &self.near[k];
        if AROUND {
            let mut rest = m as u32;
            while rest != 0 {
                let j = near[rest.trailing_zeros() as usize] as usize;
                rest &= rest - 1;
                self.around[j] += 1;
                if self.around[j] == 6 {
                    *self.surrounded += 1;
                }
            }
            self.around[k] = n;
            if n == 6 {
                *self.surrounded += 1;
            }
        }
        // dE = n, dV = 1, dC = 1 - merged, dT = triangles.
        *self.holes += n as i64 - merged as i64 - triangles as i64;
        let mut found = conn.connected(touched);
        if *self.holes > 0 {
            found |= conn.any_bits;
        } else if AROUND && *self.surrounded > 0 {
            found |= conn.any_bits & !conn.empty_bits;
        }
        found
    }

    /// Places move `k` in the union-find: its group's root and members,
    /// and the counts Euler's formula needs.
    #[inline(always)]
    pub(super) fn join(&mut self, conn: &Connection, k: usize, stone: Stone) -> Joined {
        let idx = k as u32;
        let m = self.mask[k] as usize;
        let near = &self.near[k];
        let (mut starts, n, triangles) = RUNS[m];
        self.parent[k] = idx;
        self.size[k] = 1;
        // The group's members, kept at its root when play is done with it.
        let mut touched = conn.members_by_sides(stone.sides());
        let mut root = idx;
        let mut merged = 0u32;
        // Consecutive neighbours are adjacent, so in one group already:
        // only the first stone of each run needs a find.
        while starts != 0 {
            let i = starts.trailing_zeros() as usize;
            starts &= starts - 1;
            let r = find(self.parent, near[i]);
            if r == root {
                continue;
            }
            merged += 1;
            touched |= self.members[r as usize];
            let (rs, ss) = (self.size[r as usize], self.size[root as usize]);
            let (big, small) = if rs > ss { (r, root) } else { (root, r) };
            self.size[big as usize] = rs + ss;
            self.parent[small as usize] = big;
            root = big;
        }
        self.members[root as usize] = touched;
        Joined { touched, n, merged, triangles }
    }
}

/// The root of stone `a`'s group, halving the path on the way.
#[inline]
fn find(parent: &mut [u32], mut a: u32) -> u32 {
    loop {
        let p = parent[a as usize];
        if p == a {
            return a;
        }
        let g = parent[p as usize];
        parent[a as usize] = g;
        a = g;
    }
}

/// Key arithmetic of one case: keys number the cells of the box the
/// stones use, with a spare row and column on each side.
struct Geometry {
    /// Keys per row: `key(x, y) = (x - origin.0)·w + (y - origin.1)`.
    w: u64,
    origin: (u32, u32),
    /// The smaller `dy` of the two neighbours in row `x + 1` (-1 or 0).
    lo: i32,
    /// Directions (indices into the board's offsets) of `(0, 1)`, and of
    /// `(1, lo)` and `(1, lo + 1)`.
    right: usize,
    down: [usize; 2],
    /// The sort's widest digit, in bits.
    digit_bits: u32,
}

impl Geometry {
    #[inline(always)]
    fn key(&self, s: Stone) -> u64 {
        (s.x() - self.origin.0) as u64 * self.w + (s.y() - self.origin.1) as u64
    }
}

/// Cases of at most this many moves are sorted by insertion alone.
const FEW: usize = 24;

/// The widest digit of the sort: 16,384 buckets, 64 KiB of counts.
const DIGIT_BITS: u32 = 14;

/// Sorts the entries of `moves` (keys above their move indices) into
/// `a[..m]`, with [`Entry::TOP`] at `a[m]` (`m` moves); `b` and `counts`
/// are scratch.
///
/// A least-significant-digit radix sort: each pass counts the entries by
/// one digit of their keys and scatters them, stably, in that order, so
/// that after the last pass they are in key order and equal keys (a
/// repeated cell) in move order. Digits are as wide as the moves are many
/// (`bits(m)` bits, at most [`DIGIT_BITS`]), split evenly over the key's
/// `kb` bits: a case of 10,000 moves on a board of side 3,000 takes two
/// passes over 4,096 to 8,192 buckets, and a pass whose digit every key
/// shares is skipped. Each pass costs the moves plus at most twice as many
/// buckets, and there are at most `kb / 5` of them: time is linear in the
/// moves whatever the keys. It replaced a most-significant-digit sort
/// that ended with an insertion pass over small buckets, whose branches
/// the processor could not predict: on the large benchmark inputs
/// (`--jobs 1`, medians of interleaved runs) Hex took 7 % less time and
/// Y 10 % (15 runs), Havannah 3 % (41 runs, 12.7 ms against 12.4).
fn sort_entries<E: Entry>(
    a: &mut Vec<E>,
    b: &mut Vec<E>,
    counts: &mut Vec<u32>,
    moves: &[Stone],
    geo: &Geometry,
    kb: u32,
) {
    a.clear();
    a.extend(moves.iter().enumerate().map(|(i, &s)| E::pack(geo.key(s), i as u32)));
    a.push(E::TOP);
    radix_sort(a, b, counts, kb, geo.digit_bits);
}

/// Sorts `a[..m]` by key, stably (see [`sort_entries`]), where `a` holds
/// `m` entries and then [`Entry::TOP`], their keys below `2^kb`; digits of
/// at most `digit_bits` bits. `a[m]` is [`Entry::TOP`] after it too.
fn radix_sort<E: Entry>(a: &mut Vec<E>, b: &mut Vec<E>, counts: &mut Vec<u32>, kb: u32, digit_bits: u32) {
    let m = a.len() - 1;
    if m <= FEW {
        insertion_sort(&mut a[..m]);
        return;
    }
    // Every entry of `b` below `m` is written by a pass that scatters.
    if b.len() <= m {
        b.resize(m + 1, E::TOP);
    }
    b[m] = E::TOP;
    let passes = kb.div_ceil(bits(m as u64).clamp(1, digit_bits)).max(1);
    let d = kb.div_ceil(passes).max(1);
    let dmask = (1u64 << d) - 1;
    let mut shift = 0;
    while shift < kb {
        let digit = |e: E| (e.key() >> shift & dmask) as usize;
        counts.clear();
        counts.resize(1 << d, 0);
        for &e in &a[..m] {
            counts[digit(e)] += 1;
        }
        if counts[digit(a[0])] as usize != m {
            let mut sum = 0;
            for v in counts.iter_mut() {
                (*v, sum) = (sum, sum + *v);
            }
            for &e in &a[..m] {
                let slot = &mut counts[digit(e)];
                b[*slot as usize] = e;
                *slot += 1;
            }
            std::mem::swap(a, b);
        }
        shift += d;
    }
}

/// Sorts `v` by insertion: cheap when every entry is near its place.
fn insertion_sort<E: Entry>(v: &mut [E]) {
    for i in 1..v.len() {
        let e = v[i];
        if v[i - 1] <= e {
            continue;
        }
        let mut j = i;
        while j > 0 && v[j - 1] > e {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = e;
    }
}

/// Sorts the moves' keys and links adjacent stones (see the module page).
#[allow(clippy::too_many_arguments)]
fn link_with<E: Entry, const BANDS: bool>(
    a: &mut Vec<E>,
    b: &mut Vec<E>,
    scratch: &mut Vec<u32>,
    (near, mask): (&mut [[u32; 6]], &mut [u8]),
    conn: &Connection,
    moves: &[Stone],
    geo: &Geometry,
    kb: u32,
) -> Result<u64, Repeat> {
    let m = moves.len();
    sort_entries(a, b, scratch, moves, geo, kb);
    let mut repeat: Option<Repeat> = None;
    // Links stone `i` to stone `j`, in direction `d` from `i` (`back`
    // from `j`): written to the later of the two.
    let mut link = |i: u32, j: u32, d: usize, back: usize| {
        let (later, earlier, d) = if i > j { (i, j, d) } else { (j, i, back) };
        near[later as usize][d] = earlier;
        mask[later as usize] |= 1 << d;
    };
    let (right, down0, down1) = (geo.right, geo.down[0], geo.down[1]);
    let (right_back, down0_back, down1_back) = ((right + 3) % 6, (down0 + 3) % 6, (down1 + 3) % 6);
    let (w, lo) = (geo.w, geo.lo as i64);
    let a = &a[..m + 1];
    let mut q = 0;
    // The band of consecutive rows being walked: its last row and the
    // family members its stones touch; `reach`: what the bands form.
    let (mut row, mut band, mut reach) = (0u32, 0u64, 0u64);
    for p in 0..m {
        let (e, f) = (a[p], a[p + 1]);
        let (k, i) = (e.key(), e.idx());
        if BANDS {
            let stone = moves[i as usize];
            if stone.x() > row + 1 {
                reach |= conn.connected(band);
                band = 0;
            }
            row = stone.x();
            band |= conn.members_by_sides(stone.sides());
        }
        if f.key() == k {
            let r = (f.idx() as usize, i as usize);
            repeat = Some(repeat.map_or(r, |old| old.min(r)));
        } else if f.key() == k + 1 {
            link(i, f.idx(), right, right_back);
        }
        let t = (k + w).wrapping_add_signed(lo);
        while a[q].key() < t {
            q += 1;
        }
        let g = a[q];
        if g.key() == t {
            link(i, g.idx(), down0, down0_back);
            let h = a[q + 1];
            if h.key() == t + 1 {
                link(i, h.idx(), down1, down1_back);
            }
        } else if g.key() == t + 1 {
            link(i, g.idx(), down1, down1_back);
        }
    }
    match repeat {
        Some(r) => Err(r),
        // Without bands, every structure is possible.
        None => Ok(if BANDS { reach | conn.connected(band) } else { u64::MAX }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The radix sort orders any keys as a stable sort does (equal keys
        /// in move order), with digits of any width, whether every key
        /// shares its high bits (a pass skipped) or not, in both widths of
        /// entry, and leaves the top entry last.
        #[test]
        fn radix_sort_is_a_stable_sort(
            keys in proptest::collection::vec(0u64..1 << 20, 0..300),
            high in prop_oneof![Just(0u64), Just(5 << 20), any::<u32>().prop_map(|h| u64::from(h) << 20)],
            digit_bits in 1u32..=DIGIT_BITS,
        ) {
            let keys: Vec<u64> = keys.iter().map(|&k| k | high).collect();
            let kb = bits(keys.iter().copied().max().unwrap_or(0));
            let mut want: Vec<(u64, u32)> = keys.iter().enumerate().map(|(i, &k)| (k, i as u32)).collect();
            want.sort_by_key(|&(k, _)| k);
            fn sorted<E: Entry>(keys: &[u64], kb: u32, digit_bits: u32) -> Vec<(u64, u32)> {
                let mut a: Vec<E> = keys.iter().enumerate().map(|(i, &k)| E::pack(k, i as u32)).collect();
                a.push(E::TOP);
                let (mut b, mut counts) = (vec![E::TOP; 3], Vec::new());
                radix_sort(&mut a, &mut b, &mut counts, kb, digit_bits);
                assert!(a[keys.len()] == E::TOP);
                a[..keys.len()].iter().map(|&e| (e.key(), e.idx())).collect()
            }
            if kb <= 32 {
                prop_assert_eq!(&sorted::<u64>(&keys, kb, digit_bits), &want);
            }
            prop_assert_eq!(&sorted::<u128>(&keys, kb, digit_bits), &want);
        }
    }
}
