//! The tower engine's search: two players take turns drawing the next card of a known
//! row and placing it on a house of cards (or holding it); triangles formed
//! score for the player the rule file's table names. Both play perfectly:
//! the engine returns the value of the game for the first named player.
//!
//! The house: `peaks` base peaks (two cards each) stand on level 1; between
//! adjacent peaks of one level lies a valley; a floor card may cover any
//! open valley (a downward triangle: the right card of the left peak, the
//! left card of the right peak, the floor); a peak (the held card and the
//! drawn card, in either order) may be built on any floor without one (an
//! upward triangle: the floor and the two cards), on the level above.
//!
//! The search is negamax with alpha-beta driven by null-window passes from
//! the root, a bounded transposition table keyed by the part of the state
//! the rest of the game depends on (each entry keeps both bounds of the
//! value), and moves ordered by their gain less the other player's best
//! reply (see [`Board::gen_moves`]). It never sees a name.

/// One transposition-table slot: the key (the position, see [`Search`])
/// and bounds of its value. A position's bytes are below 64, so the top two
/// bits of each key byte are free: those of the first eight bytes hold the
/// generation the slot was written in (other generations are empty slots),
/// those of the next three its best move (a move code below 64, see
/// [`Board::play`]). 24 bytes for a 16-byte key, 40 for 32.
#[derive(Debug, Clone, Copy)]
struct Slot<const W: usize> {
    key: Key<W>,
    /// Bounds of the value: `low <= value <= high` (equal when exact).
    low: i32,
    high: i32,
}

const _: () = assert!(size_of::<Slot<2>>() == 24 && size_of::<Slot<4>>() == 40);

/// The top two bits of each byte of a word (tags), and the rest (keys).
const TAGS: u64 = 0xC0C0_C0C0_C0C0_C0C0;

/// A position's bytes (see [`Search`]), eight to a word: byte `i` is bits
/// `8 * (i % 8)..` of word `i / 8`. Words, not bytes, so that a position
/// changed byte by byte is read back whole (hashing, comparing) without a
/// stall: a wide load cannot be forwarded from several narrow stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key<const W: usize>([u64; W]);

impl<const W: usize> Key<W> {
    /// Byte `i` (below `8 * W`).
    #[inline(always)]
    fn get(&self, i: usize) -> u8 {
        (self.0[(i >> 3) & (W - 1)] >> ((i & 7) * 8)) as u8
    }

    /// Sets byte `i` (below `8 * W`) to `v`.
    #[inline(always)]
    fn set(&mut self, i: usize, v: u8) {
        let (w, shift) = ((i >> 3) & (W - 1), (i & 7) * 8);
        self.0[w] = self.0[w] & !(0xFF << shift) | (v as u64) << shift;
    }

    /// Bytes `2 * j` and `2 * j + 1` (`j` below `4 * W`): floor slot `f`'s
    /// two bytes are pair `f + 1`.
    #[inline(always)]
    fn pair(&self, j: usize) -> (u8, u8) {
        let v = self.0[(j >> 2) & (W - 1)] >> ((j & 3) * 16);
        (v as u8, (v >> 8) as u8)
    }

    /// Sets bytes `2 * j` and `2 * j + 1` to `a` and `b`.
    #[inline(always)]
    fn set_pair(&mut self, j: usize, a: u8, b: u8) {
        let (w, shift) = ((j >> 2) & (W - 1), (j & 3) * 16);
        self.0[w] = self.0[w] & !(0xFFFF << shift) | (a as u64 | (b as u64) << 8) << shift;
    }
}

/// A generation's 16 bits spread over the top bits of eight bytes.
fn generation_tag(g: u16) -> u64 {
    (0..8).map(|i| ((g as u64 >> (2 * i)) & 3) << (8 * i + 6)).fold(0, |a, b| a | b)
}

/// A best move's 6 bits spread over the top bits of three bytes.
#[inline(always)]
fn best_tag(m: Code) -> u64 {
    let m = m as u64;
    (m & 3) << 6 | (m >> 2 & 3) << 14 | (m >> 4 & 3) << 22
}

impl<const W: usize> Slot<W> {
    /// The slot of `key` in the generation of `tag`, with best move `best`.
    #[inline(always)]
    fn new(key: &Key<W>, tag: u64, best: Code, low: i32, high: i32) -> Self {
        let mut key = *key;
        key.0[0] |= tag;
        key.0[1] |= best_tag(best);
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
    fn bare(&self) -> Key<W> {
        Key(self.key.0.map(|w| w & !TAGS))
    }

    #[inline(always)]
    fn best(&self) -> Code {
        let w = self.key.0[1];
        (w >> 6 & 3 | (w >> 14 & 3) << 2 | (w >> 22 & 3) << 4) as Code
    }
}

/// The transposition tables of a game: positions of 16 bytes for houses of
/// up to four peaks (six floor slots), of 32 bytes above (see [`Search`]);
/// with the rest a search keeps from case to case: its move lists and the
/// numbered house.
#[derive(Debug, Clone, Default)]
pub struct Tt {
    narrow: Table<2>,
    wide: Table<4>,
    scratch: Scratch,
}

/// Each ply's move list (ply `t` at `t % PLIES`): fixed sizes and masked
/// indices, so neither clearing nor bounds checks.
type Moves = [[u64; MOVES]; PLIES];

/// What a search reuses besides its table.
#[derive(Debug, Clone)]
struct Scratch {
    moves: Box<Moves>,
    /// The house of the last search, of `peaks` base peaks.
    peaks: usize,
    layout: Layout,
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch { moves: Box::new([[0; MOVES]; PLIES]), peaks: 0, layout: Layout::new(0) }
    }
}

impl Scratch {
    /// The move lists, and the house of `peaks` base peaks.
    fn parts(&mut self, peaks: usize) -> (&mut Moves, &Layout) {
        if self.peaks != peaks {
            (self.peaks, self.layout) = (peaks, Layout::new(peaks));
        }
        (&mut self.moves, &self.layout)
    }
}

impl Tt {
    /// Entries stored since the last clear.
    pub fn len(&self) -> usize {
        self.narrow.len + self.wide.len
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A transposition table: open addressing with linear probing over exact
/// keys. Clearing is a generation bump, so a table reused from case to case
/// costs nothing to empty and keeps its memory.
#[derive(Debug, Clone)]
struct Table<const W: usize> {
    slots: Vec<Slot<W>>,
    generation: u16,
    /// [`generation_tag`] of `generation`.
    tag: u64,
    len: usize,
    shift: u32,
    /// Bumped whenever entries may move (clear, growth): a slot index found
    /// by [`Table::probe`] still holds while the epoch is the same.
    epoch: u32,
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
    fn clear(&mut self) {
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
    fn probe(&self, key: &Key<W>) -> Result<usize, usize> {
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
    fn insert_at(&mut self, from: usize, epoch: u32, key: Key<W>, low: i32, high: i32, best: u8) {
        if epoch != self.epoch || (self.len + 1) * 2 > self.slots.len() {
            return self.insert(key, low, high, best);
        }
        self.insert_from(from, key, low, high, best);
    }

    /// Records bounds `low..=high` of the value of `key` and its best move
    /// (merged with the bounds already known).
    fn insert(&mut self, key: Key<W>, low: i32, high: i32, best: u8) {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let home = self.home(&key);
        self.insert_from(home, key, low, high, best);
    }

    /// Stores the bounds of `key` in its slot or the first free one from
    /// `from` on (the table has room).
    #[inline(always)]
    fn insert_from(&mut self, from: usize, key: Key<W>, low: i32, high: i32, best: u8) {
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
            self.insert(s.bare(), s.low, s.high, s.best());
        }
    }
}

/// Most base peaks (a position of 32 bytes holds 15 floor slots).
pub const MAX_PEAKS: usize = 6;
/// Floor slots of the largest house.
const FLOOR_SLOTS: usize = MAX_PEAKS * (MAX_PEAKS - 1) / 2;
/// Most cards a case may deal: a position's bytes hold cards below 61;
/// 61, 62 and 63 are its markers (63 means "none"). The largest house (six
/// peaks, 57 cards, one more in the row) stays below it.
pub const MAX_CARDS: usize = 61;
const NONE: u8 = 63;
/// A floor slot's second byte once its floor is laid, and its first once a
/// peak stands on it (the second is then [`BUILT`]).
const FLOORED: u8 = 62;
const BUILT: u8 = 61;
/// Entries of [`Layout`]'s bounds: a power of two, so that a floor slot
/// indexes it through a mask (no bounds check on the hot path).
const BOUND_SLOTS: usize = FLOOR_SLOTS.next_power_of_two();
/// No floor slot (see [`Layout`]).
const NO_SLOT: u8 = u8::MAX;
/// The most moves of one turn: hold, two floors per slot (a peak's two
/// orders take the place of the two floors).
const MOVES: usize = (1 + 2 * FLOOR_SLOTS).next_power_of_two();
/// Plies of a game: the row is shorter than [`MAX_CARDS`].
const PLIES: usize = MAX_CARDS.next_power_of_two();
/// The largest score difference a game may reach: values are `i32`, and
/// `-i32::MAX` is the search's "minus infinity". `check` refuses scoring
/// rules that could go beyond it.
pub const MAX_SCORE: i64 = 1_000_000_000;

/// Cards in a full house of `peaks` base peaks: the peaks of every level
/// (`peaks + (peaks - 1) + ... + 1`, two cards each) and the floors.
pub const fn house_cards(peaks: usize) -> usize {
    peaks * (peaks + 1) + house_floors(peaks)
}

/// Floors in a full house of `peaks` base peaks.
pub const fn house_floors(peaks: usize) -> usize {
    peaks * peaks.saturating_sub(1) / 2
}
/// Transposition-table entries kept before the table is cleared.
pub const TT_LIMIT: usize = 1 << 20;

/// The lowered rules.
#[derive(Debug, Clone)]
pub struct TowerRules {
    pub peaks: usize,
    /// Points of the triangle of three cards, for player 0 (player 1 gets
    /// the negation): entry `(a * n + b) * n + c`.
    pub triangle: PointTable,
    /// Points for player p holding card c at the end: `held[p][c]`.
    pub held: [Vec<i32>; 2],
    /// The player whose turn is first, by the first card of the deck.
    pub first_by_card: Vec<u8>,
    /// Cards in the deck (cards are 0..cards).
    pub cards: usize,
    /// The largest triangle's points (either player's): the root's first
    /// window is this far either side of a draw (see [`TowerRules::solve`]).
    pub window: i32,
}

/// The points of every triangle (see [`TowerRules`]), in the narrowest of
/// the [`Point`] types that holds them all: the search reads this table more
/// than any other. For 26 cards it takes 17 KB as bytes, within the
/// first-level data cache, and 70 KB as `i32`, beyond it; on House of Cards
/// the bytes took 4 % less time.
#[derive(Debug, Clone)]
pub enum PointTable {
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
}

impl PointTable {
    /// `i16` only when every value is at most `i16::MAX` either way: a
    /// gain is a value or its negation, and is carried as an `i16`.
    pub fn new(points: Vec<i32>) -> PointTable {
        let as_i16 = |v: i32| if v.unsigned_abs() <= i16::MAX as u32 { Ok(v as i16) } else { Err(()) };
        if let Ok(small) = points.iter().map(|&v| i8::try_from(v)).collect() {
            PointTable::I8(small)
        } else if let Ok(medium) = points.iter().map(|&v| as_i16(v)).collect() {
            PointTable::I16(medium)
        } else {
            PointTable::I32(points)
        }
    }
}

/// An entry type of [`PointTable`].
pub trait Point: Copy {
    /// Whether every gain (a triangle's points or their negation) fits in
    /// an `i16`: the move lists then carry each move's gain (see [`pack`]).
    const SHORT: bool;
    fn get(self) -> i32;
}

macro_rules! point {
    ($t:ty, $short:expr) => {
        impl Point for $t {
            const SHORT: bool = $short;
            #[inline(always)]
            fn get(self) -> i32 {
                self as i32
            }
        }
    };
}

point!(i8, true);
point!(i16, true);
point!(i32, false);

/// Slots of the house, numbered once at load.
#[derive(Debug, Clone)]
struct Layout {
    /// Each floor slot's level (0: between base peaks) and place on it.
    place: Vec<(usize, usize)>,
    /// For the peak above each floor slot: the floor slots on the level
    /// above it bounds as their left peak (its right card goes there) and
    /// as their right peak (its left card), [`NO_SLOT`] when none.
    bounds: [(u8, u8); BOUND_SLOTS],
}

impl Layout {
    fn new(n: usize) -> Layout {
        // Peak slots are numbered level by level; level 0 holds the base.
        let mut count = 0;
        let mut index = vec![vec![usize::MAX; n]; n];
        for (level, row) in index.iter_mut().enumerate() {
            for slot in row.iter_mut().take(n - level) {
                *slot = count;
                count += 1;
            }
        }
        let (mut floors, mut place) = (Vec::new(), Vec::new());
        for level in 0..n.saturating_sub(1) {
            for i in 0..n - level - 1 {
                floors.push((index[level][i], index[level][i + 1], index[level + 1][i]));
                place.push((level, i));
            }
        }
        let mut bounds = [(NO_SLOT, NO_SLOT); BOUND_SLOTS];
        for (f, &(_, _, up)) in floors.iter().enumerate() {
            let slot = |g: Option<usize>| g.map_or(NO_SLOT, |g| g as u8);
            bounds[f] = (slot(floors.iter().position(|g| g.0 == up)), slot(floors.iter().position(|g| g.1 == up)));
        }
        Layout { place, bounds }
    }
}

/// A move, as one byte (also the transposition table's best move): 0
/// holds the drawn card, then four codes per floor slot f from `1 + 4f`:
/// a floor of the drawn card, a floor of the held card, a peak of the held
/// card (left) and the drawn card (right), the same peak swapped.
type Code = u8;

/// A move of the list of a turn with its order key (see
/// [`Board::gen_moves`]), packed so that the largest number is the move to
/// try first: the key, then the earlier generated; then its gain when
/// [`Point::SHORT`] (else 0), and its code.
#[inline(always)]
fn pack(key: i32, index: usize, gain: i32, code: Code) -> u64 {
    // The key offset by 2^31 (its sign bit flipped) orders as unsigned.
    ((key as u32 ^ 1 << 31) as u64) << 32 | ((255 - index) as u64) << 24 | (gain as u16 as u64) << 8 | code as u64
}

/// The key and the code of a packed move.
#[inline(always)]
fn unpack(m: u64) -> (i32, Code) {
    (((m >> 32) as u32 ^ 1 << 31) as i32, m as u8)
}

/// The gain of a packed move (when [`Point::SHORT`]).
#[inline(always)]
fn packed_gain(m: u64) -> i32 {
    (m >> 8) as u16 as i16 as i32
}

/// A position (see [`Search`]) with the floor slots open to a floor card
/// (both boundary peaks built, no floor yet) and those ready for a peak
/// (floor laid, no peak), as bit sets: they follow from the key, kept
/// move by move.
#[derive(Debug, Clone, Copy)]
struct Pos<const W: usize> {
    key: Key<W>,
    open: u16,
    peakable: u16,
}

/// One game: the rules with the row of cards to draw.
///
/// A position is `8 * W` bytes ([`Key`]), the part of the game state the rest of the game
/// depends on, and also its transposition key: the two hands (a card or
/// [`NONE`]), then two bytes per floor slot: an open valley's boundary cards
/// (the right card of the left peak, the left card of the right peak;
/// [`NONE`] for a peak not built yet), the floor card and [`FLOORED`] once
/// a floor is laid, [`FLOORED`] and [`BUILT`] once a peak stands on it; the
/// rest is zero. The turn is not in it: it follows from the cards placed.
pub struct Search<'a, const W: usize, P> {
    board: Board<'a, P>,
    row: Vec<u8>,
    tt: &'a mut Table<W>,
    moves: &'a mut Moves,
    /// Nodes searched (for benchmarks and limits).
    pub nodes: u64,
    /// Give up after this many nodes (`u64::MAX`: never).
    budget: u64,
}

/// What a search only reads: the rules, the numbered house, and the
/// triangles' points as entries of type `P` (see [`PointTable`]).
#[derive(Clone, Copy)]
struct Board<'a, P> {
    rules: &'a TowerRules,
    layout: &'a Layout,
    points: &'a [P],
}

/// What a search borrows from a [`Tt`]: its table, the move lists and the
/// house.
type Parts<'a, const W: usize> = (&'a mut Table<W>, &'a mut Moves, &'a Layout);

/// Work on a search, for any width of position `W` and type of points `P`
/// (see [`TowerRules::dispatch`]).
trait Job {
    type Out;
    fn run<const W: usize, P: Point>(self, rules: &TowerRules, points: &[P], parts: Parts<'_, W>) -> Self::Out;
}

impl TowerRules {
    /// The value of a deal for player 0 (the first player named): player
    /// 0's final score minus player 1's, both playing perfectly.
    pub fn solve(&self, deck: &[u8]) -> (i32, u64) {
        self.solve_with(deck, &mut Tt::default(), u64::MAX).unwrap_or((0, 0))
    }

    /// [`TowerRules::solve`] with a transposition table to reuse (it is
    /// cleared first, keeping its memory).
    /// `None` when the search needs more than `budget` nodes.
    pub fn solve_with(&self, deck: &[u8], tt: &mut Tt, budget: u64) -> Option<(i32, u64)> {
        struct Solve<'d>(&'d [u8], u64);
        impl Job for Solve<'_> {
            type Out = Option<(i32, u64)>;
            fn run<const W: usize, P: Point>(self, rules: &TowerRules, points: &[P], parts: Parts<'_, W>) -> Self::Out {
                rules.solve_in(self.0, points, parts, self.1)
            }
        }
        self.dispatch(tt, Solve(deck, budget))
    }

    /// Runs `job` on the points of the type they fit in, and the parts of
    /// `tt` for this house: positions of 16 bytes or 32 (see [`Tt`]).
    fn dispatch<J: Job>(&self, tt: &mut Tt, job: J) -> J::Out {
        match &self.triangle {
            PointTable::I8(points) => self.dispatch_width(tt, points, job),
            PointTable::I16(points) => self.dispatch_width(tt, points, job),
            PointTable::I32(points) => self.dispatch_width(tt, points, job),
        }
    }

    fn dispatch_width<J: Job, P: Point>(&self, tt: &mut Tt, points: &[P], job: J) -> J::Out {
        let (moves, layout) = tt.scratch.parts(self.peaks);
        if self.narrow() {
            job.run(self, points, (&mut tt.narrow, moves, layout))
        } else {
            job.run(self, points, (&mut tt.wide, moves, layout))
        }
    }

    /// Whether a position fits in 16 bytes: 2 hands and 2 per floor slot.
    fn narrow(&self) -> bool {
        2 + 2 * house_floors(self.peaks) <= 16
    }

    fn solve_in<const W: usize, P: Point>(
        &self,
        deck: &[u8],
        points: &[P],
        parts: Parts<'_, W>,
        budget: u64,
    ) -> Option<(i32, u64)> {
        let (mut g, mut s, first) = self.start(deck, points, parts, budget);
        // Negamax value for the player to move first; player 0's view.
        // A first pass (principal variation search) in a window of the
        // largest triangle's points either side of a draw; when the value
        // lies outside it, MTD(f)-like null-window searches (is the value at
        // least beta?) narrow the bounds of the value until they meet; the
        // table keeps both bounds of every position between the passes.
        // The test value moves from the bound found by steps that double
        // while only one bound is known, then halves the interval.
        let inf = i32::MAX as i64;
        let (mut low, mut high, mut step) = (-inf, inf, 1i64);
        let w = self.window.max(1) as i64;
        let v = g.search(&mut s, 0, first, -w as i32, w as i32) as i64;
        if v <= -w {
            high = v;
        } else if v >= w {
            low = v;
        } else {
            (low, high) = (v, v);
        }
        let mut beta = if high == inf { low + 1 } else { high };
        while low < high && g.nodes <= g.budget {
            let v = g.search(&mut s, 0, first, (beta - 1) as i32, beta as i32) as i64;
            if v < beta {
                high = v;
            } else {
                low = v;
            }
            beta = if low == -inf {
                high - step + 1
            } else if high == inf {
                low + step
            } else {
                low + (high - low + 1) / 2
            };
            step = (step * 2).min(1 << 32);
            // Within (low, high]: every pass moves a bound.
            beta = beta.clamp(low + 1, high.max(low + 1));
        }
        let v = low as i32;
        if g.nodes > g.budget {
            return None;
        }
        let v0 = if first == 0 { v } else { -v };
        Some((v0, g.nodes))
    }

    /// The game, the starting position and the first mover of a deal.
    fn start<'a, const W: usize, P: Point>(
        &'a self,
        deck: &[u8],
        points: &'a [P],
        (tt, moves, layout): Parts<'a, W>,
        budget: u64,
    ) -> (Search<'a, W, P>, Pos<W>, u8) {
        tt.clear();
        let n = self.peaks;
        let floors = house_floors(n);
        let mut s = Pos { key: Key([0; W]), open: 0, peakable: 0 };
        (0..2 + 2 * floors).for_each(|i| s.key.set(i, NONE));
        // The valleys between the base peaks are open: floor slots 0 to
        // n - 2 lie between base peaks f and f + 1.
        for f in 0..n.saturating_sub(1) {
            s.key.set(2 + 2 * f, deck[2 * f + 1]);
            s.key.set(3 + 2 * f, deck[2 * f + 2]);
            s.open |= 1 << f;
        }
        let row = deck[2 * n..].to_vec();
        let first = self.first_by_card[deck[0] as usize];
        let board = Board { rules: self, layout, points };
        let g = Search { board, row, tt, moves, nodes: 0, budget };
        (g, s, first)
    }

    /// One line of perfect play (each turn's first best move in order of
    /// gain) and the cards held at the end; for explanations.
    pub fn principal_line(&self, deck: &[u8], tt: &mut Tt) -> (Vec<Turn>, [Option<u8>; 2]) {
        struct Line<'d>(&'d [u8]);
        impl Job for Line<'_> {
            type Out = (Vec<Turn>, [Option<u8>; 2]);
            fn run<const W: usize, P: Point>(self, rules: &TowerRules, points: &[P], parts: Parts<'_, W>) -> Self::Out {
                rules.line_in(self.0, points, parts)
            }
        }
        self.dispatch(tt, Line(deck))
    }

    fn line_in<const W: usize, P: Point>(
        &self,
        deck: &[u8],
        points: &[P],
        parts: Parts<'_, W>,
    ) -> (Vec<Turn>, [Option<u8>; 2]) {
        let (mut g, mut s, first) = self.start(deck, points, parts, u64::MAX);
        g.search(&mut s, 0, first, -i32::MAX, i32::MAX);
        let mut line = Vec::new();
        let mut mover = first;
        for t in 0..g.row.len() {
            let p = mover as usize;
            let c = g.row[t];
            let mut list = [0; MOVES];
            let n = g.board.gen_moves(&s, p, c, NONE, &mut list);
            let mut moves = list[..n].to_vec();
            moves.sort_unstable_by(|a, b| b.cmp(a));
            let mut best: Option<(i32, i32, Code)> = None;
            for (gain, m) in moves.into_iter().map(unpack) {
                let saved = s;
                g.board.play(&mut s, m, p, c);
                let v = gain - g.search(&mut s, t + 1, 1 - mover, -i32::MAX, i32::MAX);
                s = saved;
                if best.is_none_or(|(b, _, _)| v > b) {
                    best = Some((v, gain, m));
                }
            }
            let Some((_, gain, m)) = best else { break };
            let h = s.key.get(p);
            let (action, triangle) = match m {
                0 => (Action::Hold, None),
                m => {
                    let (f, kind) = ((m as usize - 1) / 4, (m - 1) % 4);
                    let (level, place) = g.board.layout.place[f];
                    let (a, b) = (s.key.get(2 + 2 * f), s.key.get(3 + 2 * f));
                    if kind < 2 {
                        let card = if kind == 1 { h } else { c };
                        (Action::Floor { level, place, card }, Some([a, b, card]))
                    } else {
                        let (left, right) = if kind == 3 { (c, h) } else { (h, c) };
                        (Action::Peak { level: level + 1, place, left, right }, Some([a, left, right]))
                    }
                }
            };
            line.push(Turn { mover, card: c, action, gain, triangle });
            g.board.play(&mut s, m, p, c);
            mover = 1 - mover;
        }
        let held = [s.key.get(0), s.key.get(1)].map(|h| (h != NONE).then_some(h));
        (line, held)
    }
}

/// One turn of a line of play (see [`TowerRules::principal_line`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// 0 or 1: the player in rule-file order.
    pub mover: u8,
    /// The card drawn.
    pub card: u8,
    pub action: Action,
    /// Points the turn's triangle gives the mover (negative: the other).
    pub gain: i32,
    /// The triangle the turn formed, if any.
    pub triangle: Option<[u8; 3]>,
}

/// What a turn did with the drawn card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Hold,
    /// A floor card on the valley at `place` (0-based, from the left) of
    /// `level` (0: between the base peaks).
    Floor {
        level: usize,
        place: usize,
        card: u8,
    },
    /// A peak on `level` (1: the first above the base), at `place`.
    Peak {
        level: usize,
        place: usize,
        left: u8,
        right: u8,
    },
}

impl<P: Point> Board<'_, P> {
    /// Points of a triangle for player `p` (0 or 1).
    #[inline(always)]
    fn tri(&self, p: usize, a: u8, b: u8, c: u8) -> i32 {
        let n = self.rules.cards;
        let v = self.points[(a as usize * n + b as usize) * n + c as usize].get();
        if p == 0 {
            v
        } else {
            -v
        }
    }

    /// Writes the moves of player `p`, who drew `c`, to `list`, each packed
    /// with its order key (see [`pack`]); returns how many.
    ///
    /// The key is the move's gain, less twice the most the other player
    /// could gain on the next turn (drawing `next`) after it, plus a
    /// quarter of the largest triangle if the mover still holds a card
    /// after it (a held card may make a peak later). When `next` is
    /// [`NONE`] (no next turn) or there is one move, the key is the gain.
    /// The reply is known slot by slot: a move changes its own slot, and a
    /// peak may open the valleys beside it. On 1,000 deals of M = 13, this
    /// searched 25 % fewer nodes than the gain alone (the reply counted
    /// once: 20 %; the held card's quarter: 3 % more). It only orders the
    /// moves: every move is still searched unless one cuts off.
    ///
    /// Ties follow the order the moves are written in: slot by slot, floors
    /// of the held and of the drawn card, or the peak in both orders; then
    /// holding the drawn card (with the gain alone this took 3 % less time
    /// than drawn before held and holding first; with the reply, no order
    /// of ties changed the node count by more than 0.3 %).
    #[inline(always)]
    fn gen_moves<const W: usize>(&self, s: &Pos<W>, p: usize, c: u8, next: u8, list: &mut [u64; MOVES]) -> usize {
        let k = &s.key;
        let (h, hq) = (k.get(p), k.get(1 - p));
        let (rules, layout) = (self.rules, self.layout);
        let (table, n) = (self.points, rules.cards);
        // Player 0's points as the mover's (`mine`) and the other's.
        let flip = -(p as i32);
        let mine = |v: i32| (v ^ flip) - flip;
        let theirs = |v: i32| -mine(v);
        let row = |a: u8, b: u8| (a as usize * n + b as usize) * n;
        let slots = s.open | if h != NONE { s.peakable } else { 0 };
        // With one move (or no next turn) there is nothing to order.
        let look = next != NONE && slots != 0;
        // The other's best gain on an open valley `a`, `b`.
        let open_reply = |a: u8, b: u8| {
            let r = row(a, b);
            let v = theirs(table[r + next as usize].get());
            if hq != NONE {
                v.max(theirs(table[r + hq as usize].get()))
            } else {
                v
            }
        };
        // ... on a floor `x` (a peak of their held card and the next).
        let peak_base = (hq as usize * n).wrapping_add(next as usize);
        let peak_reply = |x: u8| if hq != NONE { theirs(table[x as usize * n * n + peak_base].get()) } else { 0 };
        // The other's best reply now, slot by slot: the best, its slot and
        // the second best (holding is worth 0).
        let (mut top, mut top_slot, mut second) = (0, usize::MAX, 0);
        if look {
            let mut used = s.open | if hq != NONE { s.peakable } else { 0 };
            while used != 0 {
                let g = used.trailing_zeros() as usize;
                used &= used - 1;
                let (a, b) = k.pair(g + 1);
                let v = if s.open >> g & 1 == 1 { open_reply(a, b) } else { peak_reply(a) };
                if v > top {
                    (second, top, top_slot) = (top, v, g);
                } else if v > second {
                    second = v;
                }
            }
        }
        // A move that leaves the mover holding a card ranks higher, by a
        // quarter of the largest triangle: a held card may make a peak.
        let keep = if look { rules.window / 4 } else { 0 };
        // The other's best reply on every slot but f (a move changes f).
        let others = |f: usize| if top_slot == f { second } else { top };
        let mut count = 0;
        let mut push = |gain: i32, bonus: i32, reply: i32, code: Code| {
            let key = gain.saturating_add(bonus).saturating_sub(reply.saturating_mul(2));
            list[count & (MOVES - 1)] = pack(key, count, if P::SHORT { gain } else { 0 }, code);
            count += 1;
        };
        let mut left = slots;
        while left != 0 {
            let f = left.trailing_zeros() as usize;
            left &= left - 1;
            let (a, b) = k.pair(f + 1);
            let code = 1 + 4 * f as u8;
            if s.open >> f & 1 == 1 {
                let r = row(a, b);
                let (o, on) = (others(f), look && hq != NONE);
                if h != NONE {
                    let reply = if on { o.max(peak_reply(h)) } else { o };
                    push(mine(table[r + h as usize].get()), keep, reply, code + 1);
                }
                let reply = if on { o.max(peak_reply(c)) } else { o };
                push(mine(table[r + c as usize].get()), if h != NONE { keep } else { 0 }, reply, code);
            } else {
                // Both orders of a peak score the same triangle; they
                // differ in the valleys they open beside it.
                let gain = mine(table[row(a, h) + c as usize].get());
                let (o, mut lr, mut rl) = (others(f), 0, 0);
                if look {
                    let (as_left, as_right) = layout.bounds[f & (BOUND_SLOTS - 1)];
                    if as_left != NO_SLOT {
                        let (_, b) = k.pair(as_left as usize + 1);
                        if b != NONE {
                            (lr, rl) = (open_reply(c, b), open_reply(h, b));
                        }
                    }
                    if as_right != NO_SLOT {
                        let (a, _) = k.pair(as_right as usize + 1);
                        if a != NONE {
                            (lr, rl) = (lr.max(open_reply(a, h)), rl.max(open_reply(a, c)));
                        }
                    }
                }
                push(gain, 0, o.max(lr), code + 2);
                push(gain, 0, o.max(rl), code + 3);
            }
        }
        if h == NONE {
            push(0, keep, top, 0);
        }
        count
    }

    /// The gain of move `m` of player `p`, who drew `c`.
    #[inline(always)]
    fn gain<const W: usize>(&self, s: &Pos<W>, m: Code, p: usize, c: u8) -> i32 {
        if m == 0 {
            return 0;
        }
        let k = &s.key;
        let (f, kind) = ((m as usize - 1) / 4, (m - 1) % 4);
        let (a, b) = k.pair(f + 1);
        match kind {
            0 => self.tri(p, a, b, c),
            1 => self.tri(p, a, b, k.get(p)),
            _ => self.tri(p, a, k.get(p), c),
        }
    }

    /// Makes move `m` of player `p`, who drew card `c`.
    #[inline(always)]
    fn play<const W: usize>(&self, s: &mut Pos<W>, m: Code, p: usize, c: u8) {
        let k = &mut s.key;
        if m == 0 {
            k.set(p, c);
            return;
        }
        let (f, kind) = ((m as usize - 1) / 4, (m - 1) % 4);
        if kind < 2 {
            k.set_pair(f + 1, if kind == 1 { k.get(p) } else { c }, FLOORED);
            if kind == 1 {
                k.set(p, c);
            }
            s.open &= !(1 << f);
            s.peakable |= 1 << f;
            return;
        }
        let h = k.get(p);
        let (l, r) = if kind == 3 { (c, h) } else { (h, c) };
        k.set_pair(f + 1, FLOORED, BUILT);
        k.set(p, NONE);
        s.peakable &= !(1 << f);
        // The new peak bounds the valleys beside it on its level: a valley
        // opens once both its peaks stand.
        let (as_left, as_right) = self.layout.bounds[f & (BOUND_SLOTS - 1)];
        if as_left != NO_SLOT {
            let g = as_left as usize;
            let (_, b) = k.pair(g + 1);
            k.set_pair(g + 1, r, b);
            if b != NONE {
                s.open |= 1 << g;
            }
        }
        if as_right != NO_SLOT {
            let g = as_right as usize;
            let (a, _) = k.pair(g + 1);
            k.set_pair(g + 1, a, l);
            if a != NONE {
                s.open |= 1 << g;
            }
        }
    }
}

impl<const W: usize, P: Point> Search<'_, W, P> {
    /// Negamax with alpha-beta: the best (mover's gain − opponent's gain)
    /// from here. The transposition table's best move is tried before the
    /// others are even generated: when it cuts off, they never are.
    ///
    /// A visit counts the node, scores the end of the game and answers from
    /// the transposition table when it can (inlined into the parent: no
    /// call for these); the rest is [`Search::expand`].
    #[inline(always)]
    fn search(&mut self, s: &mut Pos<W>, mut t: usize, mut mover: u8, mut alpha: i32, mut beta: i32) -> i32 {
        // A turn whose only move is holding (no open valley, no card in
        // hand) is played here, with no table entry of its own (its one
        // child has its own): `sign` is -1 after an odd number of them, and
        // `holders` has the bits of the players they made hold.
        let (mut sign, mut holders) = (1, 0u8);
        let v = loop {
            self.nodes += 1;
            if self.nodes > self.budget {
                // Out of budget: unwind at once; the caller reports the limit.
                break 0;
            }
            let p = mover as usize;
            if t == self.row.len() {
                let (held, k) = (&self.board.rules.held, &s.key);
                let mut v = 0;
                if k.get(p) != NONE {
                    v += held[p][k.get(p) as usize];
                }
                if k.get(1 - p) != NONE {
                    v -= held[1 - p][k.get(1 - p) as usize];
                }
                break v;
            }
            if s.open != 0 || s.key.get(p) != NONE {
                break match self.tt.probe(&s.key) {
                    Ok(i) => {
                        let e = &self.tt.slots[i];
                        if e.low >= beta || e.low == e.high {
                            e.low
                        } else if e.high <= alpha {
                            e.high
                        } else {
                            // The same key allows the same moves: the hint is legal here.
                            let hint = e.best();
                            self.expand(s, t, mover, alpha, beta, Some(hint), i)
                        }
                    }
                    Err(i) => self.expand(s, t, mover, alpha, beta, None, i),
                };
            }
            s.key.set(p, self.row[t]);
            holders |= 1 << p;
            (t, mover, sign) = (t + 1, 1 - mover, -sign);
            (alpha, beta) = (beta.saturating_neg(), alpha.saturating_neg());
        };
        // Their hands were empty.
        for p in 0..2 {
            if holders >> p & 1 == 1 {
                s.key.set(p, NONE);
            }
        }
        sign * v
    }

    /// Searches the moves of a position the table could not answer: its
    /// best move `hint` first, if any; `at` is where its probe stopped.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn expand(
        &mut self,
        s: &mut Pos<W>,
        t: usize,
        mover: u8,
        mut alpha: i32,
        beta: i32,
        hint: Option<Code>,
        at: usize,
    ) -> i32 {
        let p = mover as usize;
        let epoch = self.tt.epoch;
        let alpha0 = alpha;
        let c = self.row[t];
        let other = 1 - mover;
        let mut best = -i32::MAX;
        let mut best_move: Code = 0;
        // One move: v = gain - child, the child's window shifted by the gain.
        macro_rules! try_move {
            ($gain:expr, $m:expr) => {{
                let (gain, m): (i32, Code) = ($gain, $m);
                let saved = *s;
                self.board.play(s, m, p, c);
                // Principal variation search: in a wide window, a move
                // after the first is tested against alpha with a null
                // window, and searched again only if it beats alpha.
                let mut v;
                if best != -i32::MAX && beta > alpha.saturating_add(1) {
                    let scout = alpha.saturating_add(1);
                    v = gain - self.search(s, t + 1, other, gain.saturating_sub(scout), gain.saturating_sub(alpha));
                    if v > alpha && v < beta {
                        v = gain - self.search(s, t + 1, other, gain.saturating_sub(beta), gain.saturating_sub(alpha));
                    }
                } else {
                    v = gain - self.search(s, t + 1, other, gain.saturating_sub(beta), gain.saturating_sub(alpha));
                }
                *s = saved;
                if v > best {
                    best = v;
                    best_move = m;
                }
                alpha = alpha.max(best);
                best >= beta
            }};
        }
        let cut = match hint {
            Some(m) => try_move!(self.board.gain(s, m, p, c), m),
            None => false,
        };
        if !cut {
            let ply = t % PLIES;
            let next = if t + 1 < self.row.len() { self.row[t + 1] } else { NONE };
            let n = self.board.gen_moves(s, p, c, next, &mut self.moves[ply]).min(MOVES);
            for i in 0..n {
                // The best of the rest to place i (the search usually
                // stops after the first few: the list is never sorted whole).
                let list = &mut self.moves[ply];
                let (mut j, mut top) = (i, list[i]);
                for (k, &x) in list.iter().enumerate().take(n).skip(i + 1) {
                    if x > top {
                        (j, top) = (k, x);
                    }
                }
                (list[j], list[i]) = (list[i], top);
                let m = top as Code;
                if Some(m) == hint {
                    continue;
                }
                let gain = if P::SHORT { packed_gain(top) } else { self.board.gain(s, m, p, c) };
                if try_move!(gain, m) {
                    break;
                }
            }
        }
        if self.tt.len >= TT_LIMIT {
            self.tt.clear();
        }
        // Fail-soft: a value at most alpha is an upper bound, one at least
        // beta a lower bound, one between them exact.
        let (low, high) = if best <= alpha0 {
            (-i32::MAX, best)
        } else if best >= beta {
            (best, i32::MAX)
        } else {
            (best, best)
        };
        self.tt.insert_at(at, epoch, s.key, low, high, best_move);
        best
    }
}

#[cfg(test)]
mod tests {
    //! The root's null-window passes and the table's merged bounds, checked
    //! against a plain negamax over the same moves (no table, no window):
    //! `tests/tower.rs` checks the moves themselves against the statement.
    use super::*;
    use proptest::prelude::*;

    /// Cards `2 * rank + colour` of ranks 0..m: a triangle is worth the sum
    /// of its ranks (from 1) to the colour of two of its cards; a held card
    /// is worth its rank to its holder, plus if of the holder's colour. Each
    /// rank counts `scale` points: 1 makes a table of `i8`, 100 of `i16`
    /// and 10,000 of `i32`.
    fn rules(peaks: usize, m: usize, scale: i32) -> TowerRules {
        let n = 2 * m;
        let rank = |c: usize| (c / 2 + 1) as i32 * scale;
        let mut triangle = vec![0; n * n * n];
        for a in 0..n {
            for b in 0..n {
                for c in 0..n {
                    let sum = rank(a) + rank(b) + rank(c);
                    let zeros = [a, b, c].iter().filter(|&&x| x % 2 == 0).count();
                    triangle[(a * n + b) * n + c] = if zeros >= 2 { sum } else { -sum };
                }
            }
        }
        let held = |p: usize| (0..n).map(|c| if c % 2 == p { rank(c) } else { -rank(c) }).collect();
        let rules = TowerRules {
            peaks,
            triangle: PointTable::new(triangle),
            held: [held(0), held(1)],
            first_by_card: (0..n).map(|c| (c % 2) as u8).collect(),
            cards: n,
            window: 3 * m as i32 * scale,
        };
        let kind = match rules.triangle {
            PointTable::I8(_) => 1,
            PointTable::I16(_) => 100,
            PointTable::I32(_) => 10_000,
        };
        assert_eq!(kind, scale);
        rules
    }

    /// Plain negamax for the player to move.
    fn negamax<const W: usize, P: Point>(g: &mut Search<'_, W, P>, s: Pos<W>, t: usize, p: usize) -> i32 {
        if t == g.row.len() {
            let (held, k) = (&g.board.rules.held, &s.key);
            let worth = |q: usize| if k.get(q) == NONE { 0 } else { held[q][k.get(q) as usize] };
            return worth(p) - worth(1 - p);
        }
        let mut list = [0; MOVES];
        let n = g.board.gen_moves(&s, p, g.row[t], NONE, &mut list);
        let mut best = -i32::MAX;
        for &m in &list[..n] {
            let (gain, m) = unpack(m);
            let mut child = s;
            g.board.play(&mut child, m, p, g.row[t]);
            best = best.max(gain - negamax(g, child, t + 1, 1 - p));
        }
        best
    }

    /// The value from the plain negamax, from `solve` (the root's passes),
    /// and the answers of one search (one table) to a series of windows:
    /// each must be the value, or a bound of it on the side it failed.
    struct Windows<'a>(&'a [u8], &'a [(i32, i32)]);

    impl Job for Windows<'_> {
        type Out = Result<(), TestCaseError>;
        fn run<const W: usize, P: Point>(self, r: &TowerRules, points: &[P], parts: Parts<'_, W>) -> Self::Out {
            let (Windows(deck, windows), (tt, moves, layout)) = (self, parts);
            let (mut g, s, first) = r.start(deck, points, (&mut *tt, &mut *moves, layout), u64::MAX);
            let exact = negamax(&mut g, s, 0, first as usize);
            let v0 = if first == 0 { exact } else { -exact };
            prop_assert_eq!(r.solve(deck).0, v0);
            let (mut g, mut s, first) = r.start(deck, points, (tt, moves, layout), u64::MAX);
            for &(a, w) in windows {
                let (alpha, beta) = (exact + a, exact + a + w);
                let v = g.search(&mut s, 0, first, alpha, beta);
                if v <= alpha {
                    prop_assert!(exact <= v, "window {alpha}..{beta}: {v} but the value is {exact}");
                } else if v >= beta {
                    prop_assert!(exact >= v, "window {alpha}..{beta}: {v} but the value is {exact}");
                } else {
                    prop_assert_eq!(v, exact, "window {}..{}", alpha, beta);
                }
            }
            Ok(())
        }
    }

    /// Each table takes the narrowest type that holds every value, and
    /// keeps the values.
    #[test]
    fn point_tables_take_the_narrowest_type() {
        let kind = |v: Vec<i32>| match PointTable::new(v.clone()) {
            PointTable::I8(t) => (8, t.iter().map(|&x| x.get()).eq(v)),
            PointTable::I16(t) => (16, t.iter().map(|&x| x.get()).eq(v)),
            PointTable::I32(t) => (32, t.iter().map(|&x| x.get()).eq(v)),
        };
        assert_eq!(kind(vec![0, 127, -128, 5]), (8, true));
        assert_eq!(kind(vec![0, 128, -3]), (16, true));
        assert_eq!(kind(vec![-129, 7]), (16, true));
        assert_eq!(kind(vec![32_767, -32_767]), (16, true));
        // Player 1 would gain 32,768 from it: beyond an i16.
        assert_eq!(kind(vec![1, -32_768]), (32, true));
        assert_eq!(kind(vec![1, 32_768]), (32, true));
        assert_eq!(kind(vec![-1_000_000_000, 3]), (32, true));
        assert_eq!(kind(vec![]), (8, true));
    }

    /// Clearing is a generation bump; after 65,535 of them the generations
    /// start again, and no entry of an earlier lap may come back.
    #[test]
    fn cleared_entries_stay_gone_across_the_generation_wrap() {
        let mut t = Table::<2>::default();
        let (old, new) = (Key([5, 9]), Key([7, 0]));
        t.insert(old, -4, 4, 1);
        for n in 1..=70_000u32 {
            t.clear();
            assert!(t.probe(&old).is_err() && t.probe(&new).is_err(), "an entry survived clear {n}");
            if n % 9_999 == 0 {
                // Within a generation the entry is there, bounds and move.
                t.insert(new, 2, 3, 17);
                let e = t.slots[t.probe(&new).expect("the entry just stored")];
                assert_eq!((e.low, e.high, e.best(), e.bare()), (2, 3, 17, new));
            }
        }
        assert!(t.generation < 5_000, "the generations started again");
    }

    /// The order keys of [`Board::gen_moves`], found slot by slot, against
    /// their definition: each move played, and the other player's moves on
    /// the next turn listed with their gains. The moves played are the
    /// `choices`.
    struct Keys<'a>(&'a [u8], &'a [usize]);

    impl Job for Keys<'_> {
        type Out = Result<(), TestCaseError>;
        fn run<const W: usize, P: Point>(self, r: &TowerRules, points: &[P], parts: Parts<'_, W>) -> Self::Out {
            let Keys(deck, choices) = self;
            let (g, mut s, first) = r.start(deck, points, parts, u64::MAX);
            let (g, row) = (g.board, g.row);
            let mut p = first as usize;
            for (t, &choice) in choices.iter().enumerate().take(row.len().saturating_sub(1)) {
                let (c, next) = (row[t], row[t + 1]);
                let (mut keyed, mut plain) = ([0; MOVES], [0; MOVES]);
                let n = g.gen_moves(&s, p, c, next, &mut keyed);
                prop_assert_eq!(g.gen_moves(&s, p, c, NONE, &mut plain), n);
                if n == 0 {
                    break;
                }
                for i in 0..n {
                    let ((key, m), (gain, m2)) = (unpack(keyed[i]), unpack(plain[i]));
                    prop_assert_eq!(m, m2);
                    prop_assert_eq!(gain, g.gain(&s, m, p, c));
                    if P::SHORT {
                        prop_assert_eq!(packed_gain(keyed[i]), gain);
                    }
                    let mut child = s;
                    g.play(&mut child, m, p, c);
                    let mut replies = [0; MOVES];
                    let k = g.gen_moves(&child, 1 - p, next, NONE, &mut replies);
                    let reply = replies[..k].iter().map(|&x| unpack(x).0).max().unwrap_or(0).max(0);
                    let holds = child.key.get(p) != NONE;
                    let expected = if n == 1 { gain } else { gain - 2 * reply + if holds { r.window / 4 } else { 0 } };
                    prop_assert_eq!(key, expected, "move {} of {} at turn {}", m, n, t);
                }
                let (_, m) = unpack(plain[choice % n]);
                g.play(&mut s, m, p, c);
                p = 1 - p;
            }
            Ok(())
        }
    }

    /// The cards of ranks 0..m in the order a seed shuffles them.
    fn shuffled(m: usize, seed: u64) -> Vec<u8> {
        let mut deck: Vec<u8> = (0..2 * m as u8).collect();
        let mut x = seed;
        for i in (1..deck.len()).rev() {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            deck.swap(i, (x >> 33) as usize % (i + 1));
        }
        deck
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn order_keys_follow_their_definition(
            (peaks, m) in prop_oneof![Just((2, 4)), Just((3, 6)), Just((4, 7)), Just((4, 13)), Just((5, 9))],
            scale in prop_oneof![Just(1), Just(100), Just(10_000)],
            seed in any::<u64>(),
            choices in proptest::collection::vec(0usize..64, 30),
        ) {
            let (r, deck) = (rules(peaks, m, scale), shuffled(m, seed));
            r.dispatch(&mut Tt::default(), Keys(&deck, &choices))?;
        }

        #[test]
        fn windows_and_passes_agree_with_plain_negamax(
            (peaks, m) in prop_oneof![Just((2, 4)), Just((3, 5)), Just((3, 6)), Just((4, 6)), Just((4, 7)), Just((5, 8))],
            scale in prop_oneof![Just(1), Just(100), Just(10_000)],
            seed in any::<u64>(),
            windows in proptest::collection::vec((-12i32..=12, 1i32..=8), 1..12),
        ) {
            let (r, deck) = (rules(peaks, m, scale), shuffled(m, seed));
            let windows = windows.iter().map(|&(a, w)| (a * scale, w * scale)).collect::<Vec<_>>();
            r.dispatch(&mut Tt::default(), Windows(&deck, &windows))?;
        }
    }
}
