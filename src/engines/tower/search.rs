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
//! The search is negamax with alpha-beta, a bounded transposition table
//! keyed by the part of the state the rest of the game depends on, and
//! moves ordered by their immediate gain. It never sees a name.

/// One transposition-table slot: the exact key, the value, its bound
/// flag (0 exact, 1 lower, -1 upper), the best move (`Move::encode`), and the
/// generation it was written in (other generations are empty slots).
#[derive(Debug, Clone, Copy)]
struct Slot<const W: usize> {
    key: [u64; W],
    value: i32,
    generation: u16,
    flag: i8,
    best: u8,
}

/// The transposition tables of a game: keys of two words for houses of up
/// to four peaks (20 fields), of four words above (see [`field`]).
#[derive(Debug, Clone, Default)]
pub struct Tt {
    narrow: Table<2>,
    wide: Table<4>,
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
    len: usize,
    shift: u32,
}

impl<const W: usize> Default for Table<W> {
    fn default() -> Self {
        Table::with_slots_log(12)
    }
}

impl<const W: usize> Table<W> {
    fn with_slots_log(log: u32) -> Self {
        let empty = Slot { key: [0; W], value: 0, generation: 0, flag: 0, best: 0 };
        Table { slots: vec![empty; 1 << log], generation: 1, len: 0, shift: 64 - log }
    }

    /// Forgets every entry (keeps the memory).
    fn clear(&mut self) {
        self.len = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.slots.iter_mut().for_each(|s| s.generation = 0);
            self.generation = 1;
        }
    }

    #[inline(always)]
    fn home(&self, key: &[u64; W]) -> usize {
        let mut h = 0u64;
        for (i, &w) in key.iter().enumerate() {
            h ^= w.rotate_left(i as u32 * 23);
        }
        (h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    #[inline(always)]
    fn get(&self, key: &[u64; W]) -> Option<&Slot<W>> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let s = &self.slots[i];
            if s.generation != self.generation {
                return None;
            }
            if s.key == *key {
                return Some(s);
            }
            i = (i + 1) & mask;
        }
    }

    fn insert(&mut self, key: [u64; W], value: i32, flag: i8, best: u8) {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(&key);
        loop {
            let s = &mut self.slots[i];
            if s.generation != self.generation {
                self.len += 1;
                break;
            }
            if s.key == key {
                break;
            }
            i = (i + 1) & mask;
        }
        self.slots[i] = Slot { key, value, generation: self.generation, flag, best };
    }

    fn grow(&mut self) {
        let log = 64 - self.shift + 1;
        let old = std::mem::replace(self, Table::with_slots_log(log));
        for s in old.slots.iter().filter(|s| s.generation == old.generation) {
            self.insert(s.key, s.value, s.flag, s.best);
        }
    }
}

/// Words of the widest transposition key: 6-bit fields, ten to a word.
const KEY_WORDS: usize = 4;

/// The key word and shift of field `i` (a table: no division per move).
#[inline(always)]
fn field(i: usize) -> (usize, u32) {
    const POS: [(u8, u8); 10 * KEY_WORDS] = {
        let mut t = [(0u8, 0u8); 10 * KEY_WORDS];
        let mut i = 0;
        while i < t.len() {
            t[i] = ((i / 10) as u8, (i % 10 * 6) as u8);
            i += 1;
        }
        t
    };
    let (w, sh) = POS[i];
    (w as usize, sh as u32)
}

/// Most base peaks (the transposition key holds 15 floors).
pub const MAX_PEAKS: usize = 6;
/// Peak and floor slots of the largest house.
const PEAK_SLOTS: usize = MAX_PEAKS * (MAX_PEAKS + 1) / 2;
const FLOOR_SLOTS: usize = MAX_PEAKS * (MAX_PEAKS - 1) / 2;
/// Most cards a case may deal: cards are 6-bit numbers, and 61, 62 and 63
/// are markers of the transposition key (63 means "none"). The largest
/// house (six peaks, 57 cards, one more in the row) stays below it.
pub const MAX_CARDS: usize = 61;
const NONE: u8 = 63;
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
    /// the negation): `triangle[(a * n + b) * n + c]`.
    pub triangle: Vec<i32>,
    /// Points for player p holding card c at the end: `held[p][c]`.
    pub held: [Vec<i32>; 2],
    /// The player whose turn is first, by the first card of the deck.
    pub first_by_card: Vec<u8>,
    /// Cards in the deck (cards are 0..cards).
    pub cards: usize,
}

/// Slots of the house, numbered once at load.
#[derive(Debug, Clone)]
struct Layout {
    /// Floor slots: the two peak slots they lie between, and the peak slot
    /// above them.
    floors: Vec<(usize, usize, usize)>,
    /// Each floor slot's level (0: between base peaks) and place on it.
    place: Vec<(usize, usize)>,
    /// For the peak above each floor: the floor slots it bounds, on the
    /// level above, as their left peak and as their right peak.
    bounds: Vec<(Option<usize>, Option<usize>)>,
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
        let bounds = floors
            .iter()
            .map(|&(_, _, up)| (floors.iter().position(|g| g.0 == up), floors.iter().position(|g| g.1 == up)))
            .collect();
        Layout { floors, place, bounds }
    }
}

/// A position: the house, the hands, and its transposition key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct State<const W: usize> {
    /// Left and right card of each peak slot (NONE when not built).
    left: [u8; PEAK_SLOTS],
    right: [u8; PEAK_SLOTS],
    /// The card of each floor slot (NONE when not laid).
    floor: [u8; FLOOR_SLOTS],
    hand: [u8; 2],
    /// Floor slots open to a floor card (both boundary peaks built, no
    /// floor yet), and floor slots ready for a peak (floor laid, no peak).
    open: u16,
    peakable: u16,
    /// The part of the position the rest of the game depends on, kept up
    /// to date move by move (see [`Search::key`]).
    key: [u64; W],
}

/// One game: the rules with the row of cards to draw.
pub struct Search<'r, 't, const W: usize> {
    rules: &'r TowerRules,
    layout: Layout,
    row: Vec<u8>,
    tt: &'t mut Table<W>,
    /// A move list per ply, reused (no allocation or initialisation per node).
    plies: Vec<Vec<(i32, Move)>>,
    /// Nodes searched (for benchmarks and limits).
    pub nodes: u64,
    /// Give up after this many nodes (`u64::MAX`: never).
    budget: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Move {
    Hold,
    /// Lay the drawn card (false) or the held card (true) on floor slot f.
    Floor(usize, bool),
    /// Build peak slot above floor f; `swap` puts the drawn card left.
    Peak(usize, bool),
}

impl Move {
    /// One byte for the transposition table: 0 hold, then four codes per
    /// floor slot (floor with the drawn card, with the held card, peak,
    /// peak swapped).
    fn encode(self) -> u8 {
        match self {
            Move::Hold => 0,
            Move::Floor(f, held) => 1 + 4 * f as u8 + held as u8,
            Move::Peak(f, swap) => 3 + 4 * f as u8 + swap as u8,
        }
    }

    fn decode(code: u8) -> Move {
        let Some(c) = code.checked_sub(1) else { return Move::Hold };
        let (f, k) = (c as usize / 4, c % 4);
        if k < 2 {
            Move::Floor(f, k == 1)
        } else {
            Move::Peak(f, k == 3)
        }
    }
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
        if self.narrow() {
            self.solve_in(deck, &mut tt.narrow, budget)
        } else {
            self.solve_in(deck, &mut tt.wide, budget)
        }
    }

    /// Whether the key fits in two words: 3 + 2 per floor slot fields.
    fn narrow(&self) -> bool {
        3 + self.peaks * (self.peaks - 1) <= 20
    }

    fn solve_in<const W: usize>(&self, deck: &[u8], tt: &mut Table<W>, budget: u64) -> Option<(i32, u64)> {
        let (mut g, mut s, first) = self.start(deck, tt, budget);
        // Negamax value for the player to move first; player 0's view.
        let v = g.search(&mut s, 0, first, -i32::MAX, i32::MAX);
        if g.nodes > g.budget {
            return None;
        }
        let v0 = if first == 0 { v } else { -v };
        Some((v0, g.nodes))
    }

    /// The game, the starting position and the first mover of a deal.
    fn start<'t, const W: usize>(
        &self,
        deck: &[u8],
        tt: &'t mut Table<W>,
        budget: u64,
    ) -> (Search<'_, 't, W>, State<W>, u8) {
        tt.clear();
        let n = self.peaks;
        let layout = Layout::new(n);
        let mut s = State {
            left: [NONE; PEAK_SLOTS],
            right: [NONE; PEAK_SLOTS],
            floor: [NONE; FLOOR_SLOTS],
            hand: [NONE; 2],
            open: 0,
            peakable: 0,
            key: [0; W],
        };
        for i in 0..n {
            s.left[i] = deck[2 * i];
            s.right[i] = deck[2 * i + 1];
        }
        let row = deck[2 * n..].to_vec();
        let first = self.first_by_card[deck[0] as usize];
        let mut g = Search { rules: self, layout, row, tt, nodes: 0, budget, plies: Vec::new() };
        g.plies = vec![Vec::with_capacity(64); g.row.len() + 1];
        for (f, &(lp, rp, _)) in g.layout.floors.iter().enumerate() {
            if s.right[lp] != NONE && s.left[rp] != NONE {
                s.open |= 1 << f;
            }
        }
        s.key = g.key(&s, 0);
        (g, s, first)
    }

    /// One line of perfect play (each turn's first best move in the
    /// engine's order) and the cards held at the end; for explanations.
    pub fn principal_line(&self, deck: &[u8], tt: &mut Tt) -> (Vec<Turn>, [Option<u8>; 2]) {
        if self.narrow() {
            self.line_in(deck, &mut tt.narrow)
        } else {
            self.line_in(deck, &mut tt.wide)
        }
    }

    fn line_in<const W: usize>(&self, deck: &[u8], tt: &mut Table<W>) -> (Vec<Turn>, [Option<u8>; 2]) {
        let (mut g, mut s, first) = self.start(deck, tt, u64::MAX);
        g.search(&mut s, 0, first, -i32::MAX, i32::MAX);
        let mut line = Vec::new();
        let mut mover = first;
        for t in 0..g.row.len() {
            let mut moves = Vec::new();
            g.moves(&s, mover, t, &mut moves);
            (0..moves.len()).for_each(|i| best_next(&mut moves, i));
            let mut best: Option<(i32, i32, Move)> = None;
            for &(gain, m) in &moves {
                let saved = s;
                g.play(&mut s, m, mover, g.row[t], t);
                let v = gain - g.search(&mut s, t + 1, 1 - mover, -i32::MAX, i32::MAX);
                s = saved;
                if best.is_none_or(|(b, _, _)| v > b) {
                    best = Some((v, gain, m));
                }
            }
            let Some((_, gain, m)) = best else { break };
            let c = g.row[t];
            let h = s.hand[mover as usize];
            let (action, triangle) = match m {
                Move::Hold => (Action::Hold, None),
                Move::Floor(f, held) => {
                    let (lp, rp, _) = g.layout.floors[f];
                    let (level, place) = g.layout.place[f];
                    let card = if held { h } else { c };
                    (Action::Floor { level, place, card }, Some([s.right[lp], s.left[rp], card]))
                }
                Move::Peak(f, swap) => {
                    let (level, place) = g.layout.place[f];
                    let (left, right) = if swap { (c, h) } else { (h, c) };
                    (Action::Peak { level: level + 1, place, left, right }, Some([s.floor[f], left, right]))
                }
            };
            line.push(Turn { mover, card: c, action, gain, triangle });
            g.play(&mut s, m, mover, c, t);
            mover = 1 - mover;
        }
        let held = s.hand.map(|h| (h != NONE).then_some(h));
        (line, held)
    }
}

/// Brings the move with the best immediate gain among `moves[i..]` (the
/// first of equals) to place `i`, keeping the others in order: the search
/// tries moves best gain first, and usually stops after the first few, so
/// the list is never sorted whole.
#[inline(always)]
fn best_next(moves: &mut [(i32, Move)], i: usize) {
    let mut j = i;
    for k in i + 1..moves.len() {
        if moves[k].0 > moves[j].0 {
            j = k;
        }
    }
    moves[i..=j].rotate_right(1);
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

impl<const W: usize> Search<'_, '_, W> {
    fn tri(&self, a: u8, b: u8, c: u8) -> i32 {
        let n = self.rules.cards;
        self.rules.triangle[(a as usize * n + b as usize) * n + c as usize]
    }

    /// Points for `player` (0 or 1) of a triangle.
    fn tri_for(&self, player: u8, a: u8, b: u8, c: u8) -> i32 {
        let p = self.tri(a, b, c);
        if player == 0 {
            p
        } else {
            -p
        }
    }

    /// The part of the state the rest of the game depends on, in 6-bit
    /// fields (see [`field`]): the turn, the two hands, and two per floor
    /// slot: an open valley's boundary cards, a floor card with no peak on
    /// it yet (and 62), or 62 and 61 once the peak is built. Computed whole
    /// at the start; [`Game::play`] keeps it up to date.
    fn key(&self, s: &State<W>, t: usize) -> [u64; W] {
        let mut k = [0u64; W];
        let mut put = |i: usize, x: u8| {
            let (w, sh) = field(i);
            k[w] |= (x as u64) << sh;
        };
        put(0, t as u8);
        put(1, s.hand[0]);
        put(2, s.hand[1]);
        for (f, &(lp, rp, up)) in self.layout.floors.iter().enumerate() {
            let (a, b) = if s.floor[f] == NONE {
                (s.right[lp], s.left[rp])
            } else if s.left[up] == NONE {
                (s.floor[f], 62)
            } else {
                (62, 61)
            };
            put(3 + 2 * f, a);
            put(4 + 2 * f, b);
        }
        k
    }

    /// The moves of the turn, in generation order (see [`best_next`]).
    fn moves(&self, s: &State<W>, mover: u8, t: usize, out: &mut Vec<(i32, Move)>) {
        out.clear();
        let c = self.row[t];
        let h = s.hand[mover as usize];
        let scored = |m: Move| (self.gain(s, m, mover, c), m);
        if h == NONE {
            out.push(scored(Move::Hold));
        }
        let mut slots = s.open | if h != NONE { s.peakable } else { 0 };
        while slots != 0 {
            let f = slots.trailing_zeros() as usize;
            slots &= slots - 1;
            if s.open >> f & 1 == 1 {
                out.push(scored(Move::Floor(f, false)));
                if h != NONE {
                    out.push(scored(Move::Floor(f, true)));
                }
            } else {
                // Both orders of a peak score the same triangle.
                let (g, m) = scored(Move::Peak(f, false));
                out.push((g, m));
                out.push((g, Move::Peak(f, true)));
            }
        }
    }

    /// Makes move `m` of `mover`, who drew card `c` on turn `t`, and
    /// updates the key: each field that changes is xored with old ^ new.
    #[inline(always)]
    fn play(&self, s: &mut State<W>, m: Move, mover: u8, c: u8, t: usize) {
        #[inline(always)]
        fn flip<const W: usize>(k: &mut [u64; W], i: usize, old: u8, new: u8) {
            let (w, sh) = field(i);
            k[w] ^= ((old ^ new) as u64) << sh;
        }
        let p = mover as usize;
        flip(&mut s.key, 0, t as u8, t as u8 + 1);
        match m {
            Move::Hold => {
                flip(&mut s.key, 1 + p, NONE, c);
                s.hand[p] = c;
            }
            Move::Floor(f, held) => {
                let (lp, rp, _) = self.layout.floors[f];
                let card = if held { s.hand[p] } else { c };
                flip(&mut s.key, 3 + 2 * f, s.right[lp], card);
                flip(&mut s.key, 4 + 2 * f, s.left[rp], 62);
                s.floor[f] = card;
                s.open &= !(1 << f);
                s.peakable |= 1 << f;
                if held {
                    flip(&mut s.key, 1 + p, card, c);
                    s.hand[p] = c;
                }
            }
            Move::Peak(f, swap) => {
                let up = self.layout.floors[f].2;
                let h = s.hand[p];
                let (l, r) = if swap { (c, h) } else { (h, c) };
                (s.left[up], s.right[up]) = (l, r);
                flip(&mut s.key, 3 + 2 * f, s.floor[f], 62);
                flip(&mut s.key, 4 + 2 * f, 62, 61);
                flip(&mut s.key, 1 + p, h, NONE);
                s.hand[p] = NONE;
                s.peakable &= !(1 << f);
                // The new peak bounds the valleys beside it on its level.
                let (as_left, as_right) = self.layout.bounds[f];
                if let Some(g) = as_left {
                    flip(&mut s.key, 3 + 2 * g, NONE, r);
                    if s.left[self.layout.floors[g].1] != NONE {
                        s.open |= 1 << g;
                    }
                }
                if let Some(g) = as_right {
                    flip(&mut s.key, 4 + 2 * g, NONE, l);
                    if s.right[self.layout.floors[g].0] != NONE {
                        s.open |= 1 << g;
                    }
                }
            }
        }
        debug_assert_eq!(s.key, self.key(s, t + 1));
        debug_assert!(self.layout.floors.iter().enumerate().all(|(f, &(lp, rp, up))| {
            let open = s.floor[f] == NONE && s.right[lp] != NONE && s.left[rp] != NONE;
            let peakable = s.floor[f] != NONE && s.left[up] == NONE;
            (s.open >> f & 1 == 1) == open && (s.peakable >> f & 1 == 1) == peakable
        }));
    }

    /// The points move `m` gives `mover` (who drew `c`) at once.
    #[inline(always)]
    fn gain(&self, s: &State<W>, m: Move, mover: u8, c: u8) -> i32 {
        let h = s.hand[mover as usize];
        match m {
            Move::Hold => 0,
            Move::Floor(f, held) => {
                let (lp, rp, _) = self.layout.floors[f];
                self.tri_for(mover, s.right[lp], s.left[rp], if held { h } else { c })
            }
            Move::Peak(f, _) => self.tri_for(mover, s.floor[f], h, c),
        }
    }

    /// Negamax with alpha-beta: the best (mover's gain − opponent's gain)
    /// from here. The transposition table's best move is tried before the
    /// others are even generated: when it cuts off, they never are.
    fn search(&mut self, s: &mut State<W>, t: usize, mover: u8, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes > self.budget {
            // Out of budget: unwind at once; the caller reports the limit.
            return 0;
        }
        if t == self.row.len() {
            let mut v = 0;
            for p in 0..2u8 {
                let h = s.hand[p as usize];
                if h != NONE {
                    let pts = self.rules.held[p as usize][h as usize];
                    v += if p == mover { pts } else { -pts };
                }
            }
            return v;
        }
        let alpha0 = alpha;
        let c = self.row[t];
        let other = 1 - mover;
        let mut best = -i32::MAX;
        let mut best_move = Move::Hold;
        // One move: v = gain - child, the child's window shifted by the gain.
        macro_rules! try_move {
            ($gain:expr, $m:expr) => {{
                let (gain, m): (i32, Move) = ($gain, $m);
                let saved = *s;
                self.play(s, m, mover, c, t);
                let v = gain - self.search(s, t + 1, other, gain.saturating_sub(beta), gain.saturating_sub(alpha));
                *s = saved;
                if v > best {
                    best = v;
                    best_move = m;
                }
                alpha = alpha.max(best);
                best >= beta
            }};
        }
        let mut hint = None;
        if let Some(e) = self.tt.get(&s.key) {
            let v = e.value;
            match e.flag {
                0 => return v,
                1 if v >= beta => return v,
                -1 if v <= alpha => return v,
                _ => {}
            }
            // The same key allows the same moves: the hint is legal here.
            hint = Some(Move::decode(e.best));
        }
        let cut = match hint {
            Some(m) => try_move!(self.gain(s, m, mover, c), m),
            None => false,
        };
        if !cut {
            let mut moves = std::mem::take(&mut self.plies[t]);
            self.moves(s, mover, t, &mut moves);
            for i in 0..moves.len() {
                best_next(&mut moves, i);
                let (gain, m) = moves[i];
                if Some(m) != hint && try_move!(gain, m) {
                    break;
                }
            }
            self.plies[t] = moves;
        }
        if self.tt.len >= TT_LIMIT {
            self.tt.clear();
        }
        let flag = if best <= alpha0 {
            -1
        } else if best >= beta {
            1
        } else {
            0
        };
        self.tt.insert(s.key, best, flag, best_move.encode());
        best
    }
}
