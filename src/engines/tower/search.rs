//! The tower engine's search: two players take turns drawing the next card of a known
//! row and placing it on a house of cards (or holding it); triangles formed
//! score for the player the rule file's table names. Both play perfectly:
//! the engine returns the value of the game for the first named player.
//!
//! The house: `peaks` base peaks (two cards each) stand on level 1; between
//! adjacent peaks of one level lies a valley; a floor card may cover any
//! open valley (a downward triangle: the right card of the left peak, the
//! left card of the right peak, the floor); a peak (two of the turn's
//! cards, at least one of them held, in either order) may be built on any
//! floor without one (an upward triangle: the floor and the two cards), on
//! the level above. Each player holds at most `hold` cards.
//!
//! The search is negamax with alpha-beta driven by null-window passes from
//! the root, a bounded transposition table keyed by the part of the state
//! the rest of the game depends on (each entry keeps both bounds of the
//! value, see [`super::table`]), and moves ordered by their gain less the
//! other player's best reply (see [`super::moves`]). It never sees a name.

use super::moves::{
    decode, house_floors, list, moves_cap, packed_gain, position_bytes, unpack, with_card, Board, Code, Layout, Lists,
    Pos, MAX_MOVES, NONE, PLIES,
};
use super::table::{best_tag, Key, Table};

/// The transposition tables of a game: positions of 16 bytes for small
/// houses and hands (a house of four peaks with hands of one card, or two),
/// of 32 bytes above (see `Search`); with the rest a search keeps from
/// case to case: its move lists and the numbered house.
#[derive(Debug, Clone, Default)]
pub struct Tt {
    narrow: Table<2>,
    wide: Table<4>,
    scratch: Scratch,
}

/// What a search reuses besides its table.
#[derive(Debug, Clone)]
struct Scratch {
    /// Each ply's move list (ply `t` at `t % PLIES`), see [`Lists`]:
    /// fixed sizes and masked indices, so neither clearing nor bounds
    /// checks.
    moves: Box<Lists>,
    /// The house of the last search, of `peaks` base peaks.
    peaks: usize,
    layout: Layout,
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch { moves: Box::new([0; PLIES * MAX_MOVES + MAX_MOVES]), peaks: 0, layout: Layout::new(0) }
    }
}

impl Scratch {
    /// The move lists, and the house of `peaks` base peaks.
    fn parts(&mut self, peaks: usize) -> (&mut Lists, &Layout) {
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

/// Most base peaks (a position of 32 bytes holds 15 floor slots).
pub const MAX_PEAKS: usize = 6;
/// Most cards a case may deal: a position's bytes hold cards below 61;
/// 61, 62 and 63 are its markers (see `super::moves::NONE`). The
/// largest house (six peaks, 57 cards, one more in the row) stays below it.
pub const MAX_CARDS: usize = 61;
/// The largest score difference a game may reach: values are `i32`, and
/// `-i32::MAX` is the search's "minus infinity". `check` refuses scoring
/// rules that could go beyond it.
pub(crate) const MAX_SCORE: i64 = 1_000_000_000;

/// Cards in a full house of `peaks` base peaks: the peaks of every level
/// (`peaks + (peaks - 1) + ... + 1`, two cards each) and the floors.
pub(crate) const fn house_cards(peaks: usize) -> usize {
    peaks * (peaks + 1) + house_floors(peaks)
}

/// The search's infinity: values and bounds are `i64` in the search (no
/// sum of a gain and a bound can overflow: values stay within
/// [`MAX_SCORE`]), `i32` in the table, where `±i32::MAX` is "unknown".
const INF: i64 = i32::MAX as i64;

/// Transposition-table entries kept before the table is cleared.
pub(crate) const TT_LIMIT: usize = 1 << 20;

/// The lowered rules.
#[derive(Debug, Clone)]
pub struct TowerRules {
    pub peaks: usize,
    /// The most cards a player may hold (1 to [`super::moves::MAX_HOLD`]).
    pub hold: usize,
    /// Points of the triangle of three cards, for player 0 (player 1 gets
    /// the negation): entry `(a * n + b) * n + c`.
    triangle: PointTable,
    /// Points for player p holding card c at the end: `held[p][c]`.
    pub held: [Vec<i32>; 2],
    /// The player whose turn is first, by the first card of the deal and
    /// the player the case names: entry `2 * card + named`.
    first: Vec<u8>,
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
pub(crate) trait Point: Copy {
    /// Whether every gain (a triangle's points or their negation) fits in
    /// an `i16`: the move lists then carry each move's gain (see
    /// [`super::moves::pack`]).
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

/// One game: the rules with the row of cards to draw.
///
/// A position is `8 * W` bytes ([`Key`]), the part of the game state the
/// rest of the game depends on, and also its transposition key: the two
/// hands (`H` bytes each: the cards in increasing order, then
/// [`NONE`]), then two bytes per floor slot: an open valley's boundary
/// cards (the right card of the left peak, the left card of the right
/// peak; [`NONE`] for a peak not built yet), the floor card and
/// [`super::moves::FLOORED`] once a floor is laid,
/// [`super::moves::FLOORED`] and [`super::moves::BUILT`] once a peak
/// stands on it; the rest is zero. The turn is not in it: it follows from
/// the cards placed and held.
pub(crate) struct Search<'a, const W: usize, const H: usize, P> {
    board: Board<'a, P>,
    row: Vec<u8>,
    tt: &'a mut Table<W>,
    moves: &'a mut Lists,
    /// Nodes searched (for benchmarks and limits).
    pub nodes: u64,
    /// Give up after this many nodes (`u64::MAX`: never).
    budget: u64,
}

/// What a search borrows from a [`Tt`]: its table, the move lists and the
/// house.
type Parts<'a, const W: usize> = (&'a mut Table<W>, &'a mut Lists, &'a Layout);

/// Work on a search, for any width of position `W`, hand size `H` and type
/// of points `P` (see [`TowerRules::dispatch`]).
trait Job {
    type Out;
    fn run<const W: usize, const H: usize, P: Point>(
        self,
        rules: &TowerRules,
        points: &[P],
        parts: Parts<'_, W>,
    ) -> Self::Out;
}

impl TowerRules {
    /// The rules of a house of `peaks` base peaks whose players hold at
    /// most `hold` cards: the points of every triangle of the `cards`
    /// cards (see [`TowerRules`]), what held cards are worth at the end,
    /// and the first mover by first card and named player. With hands of
    /// more than one card the points are kept as `i32` (one compiled
    /// search per hand size, not three).
    pub fn new(
        peaks: usize,
        hold: usize,
        triangle: Vec<i32>,
        held: [Vec<i32>; 2],
        first: Vec<u8>,
        cards: usize,
    ) -> Self {
        let window = triangle.iter().map(|v| v.saturating_abs()).max().unwrap_or(0);
        let triangle = if hold == 1 { PointTable::new(triangle) } else { PointTable::I32(triangle) };
        TowerRules { peaks, hold, triangle, held, first, cards, window }
    }

    /// The points table (see `PointTable`).
    pub fn points(&self) -> &PointTable {
        &self.triangle
    }

    /// The player who takes the first turn of a deal, in a case that
    /// names player `named`.
    pub fn first_mover(&self, deck: &[u8], named: usize) -> u8 {
        let card = deck.first().map_or(0, |&c| c as usize);
        self.first.get(2 * card + (named & 1)).copied().unwrap_or(0)
    }

    /// Whether the first mover depends on the deal (else it is always the
    /// same player).
    pub fn first_varies(&self) -> bool {
        self.first.iter().any(|&p| p != self.first[0])
    }

    /// The value of a deal for player 0 (the first player named): player
    /// 0's final score minus player 1's, both playing perfectly, in a case
    /// that names player 0.
    pub fn solve(&self, deck: &[u8]) -> (i32, u64) {
        self.solve_with(deck, 0, &mut Tt::default(), u64::MAX).unwrap_or((0, 0))
    }

    /// [`TowerRules::solve`] in a case that names player `named`, with a
    /// transposition table to reuse (it is cleared first, keeping its
    /// memory). `None` when the search needs more than `budget` nodes.
    pub fn solve_with(&self, deck: &[u8], named: usize, tt: &mut Tt, budget: u64) -> Option<(i32, u64)> {
        struct Solve<'d>(&'d [u8], u8, u64);
        impl Job for Solve<'_> {
            type Out = Option<(i32, u64)>;
            fn run<const W: usize, const H: usize, P: Point>(
                self,
                rules: &TowerRules,
                points: &[P],
                parts: Parts<'_, W>,
            ) -> Self::Out {
                rules.solve_in::<W, H, P>(self.0, self.1, points, parts, self.2)
            }
        }
        self.dispatch(tt, Solve(deck, self.first_mover(deck, named), budget))
    }

    /// Runs `job` on the points of the type they fit in, for the hand
    /// size, and the parts of `tt` for this house: positions of 16 bytes
    /// or 32 (see [`Tt`]). Hands of more than one card have points of
    /// `i32` (see [`TowerRules::new`]).
    fn dispatch<J: Job>(&self, tt: &mut Tt, job: J) -> J::Out {
        match (&self.triangle, self.hold) {
            (PointTable::I8(points), _) => self.dispatch_width::<J, 1, _>(tt, points, job),
            (PointTable::I16(points), _) => self.dispatch_width::<J, 1, _>(tt, points, job),
            (PointTable::I32(points), 2) => self.dispatch_width::<J, 2, _>(tt, points, job),
            (PointTable::I32(points), 3) => self.dispatch_width::<J, 3, _>(tt, points, job),
            (PointTable::I32(points), 4) => self.dispatch_width::<J, 4, _>(tt, points, job),
            (PointTable::I32(points), _) => self.dispatch_width::<J, 1, _>(tt, points, job),
        }
    }

    fn dispatch_width<J: Job, const H: usize, P: Point>(&self, tt: &mut Tt, points: &[P], job: J) -> J::Out {
        let (moves, layout) = tt.scratch.parts(self.peaks);
        if position_bytes(self.peaks, H) <= 16 {
            job.run::<2, H, P>(self, points, (&mut tt.narrow, moves, layout))
        } else {
            job.run::<4, H, P>(self, points, (&mut tt.wide, moves, layout))
        }
    }

    fn solve_in<const W: usize, const H: usize, P: Point>(
        &self,
        deck: &[u8],
        first: u8,
        points: &[P],
        parts: Parts<'_, W>,
        budget: u64,
    ) -> Option<(i32, u64)> {
        let (mut g, mut s) = self.start::<W, H, P>(deck, points, parts, budget);
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
        let v = g.search(&mut s, 0, first, -w, w);
        if v <= -w {
            high = v;
        } else if v >= w {
            low = v;
        } else {
            (low, high) = (v, v);
        }
        let mut beta = if high == inf { low + 1 } else { high };
        while low < high && g.nodes <= g.budget {
            let v = g.search(&mut s, 0, first, beta - 1, beta);
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

    /// The game and the starting position of a deal.
    fn start<'a, const W: usize, const H: usize, P: Point>(
        &'a self,
        deck: &[u8],
        points: &'a [P],
        (tt, moves, layout): Parts<'a, W>,
        budget: u64,
    ) -> (Search<'a, W, H, P>, Pos<W>) {
        tt.clear();
        let n = self.peaks;
        let mut s = Pos { key: Key([0; W]), open: 0, peakable: 0 };
        (0..position_bytes(n, H)).for_each(|i| s.key.set(i, NONE));
        // The valleys between the base peaks are open: floor slots 0 to
        // n - 2 lie between base peaks f and f + 1.
        for f in 0..n.saturating_sub(1) {
            s.key.set_pair(H + f, deck[2 * f + 1], deck[2 * f + 2]);
            s.open |= 1 << f;
        }
        let row = deck[2 * n..].to_vec();
        let board = Board { rules: self, layout, points };
        (Search { board, row, tt, moves, nodes: 0, budget }, s)
    }

    /// One line of perfect play (each turn's first best move in order of
    /// gain) and the cards held at the end, in a case that names player
    /// `named`; for explanations.
    pub fn principal_line(&self, deck: &[u8], named: usize, tt: &mut Tt) -> (Vec<Turn>, [Vec<u8>; 2]) {
        struct Line<'d>(&'d [u8], u8);
        impl Job for Line<'_> {
            type Out = (Vec<Turn>, [Vec<u8>; 2]);
            fn run<const W: usize, const H: usize, P: Point>(
                self,
                rules: &TowerRules,
                points: &[P],
                parts: Parts<'_, W>,
            ) -> Self::Out {
                rules.line_in::<W, H, P>(self.0, self.1, points, parts)
            }
        }
        self.dispatch(tt, Line(deck, self.first_mover(deck, named)))
    }

    fn line_in<const W: usize, const H: usize, P: Point>(
        &self,
        deck: &[u8],
        first: u8,
        points: &[P],
        parts: Parts<'_, W>,
    ) -> (Vec<Turn>, [Vec<u8>; 2]) {
        let (mut g, mut s) = self.start::<W, H, P>(deck, points, parts, u64::MAX);
        g.search(&mut s, 0, first, -INF, INF);
        let mut line = Vec::new();
        let mut mover = first;
        for t in 0..g.row.len() {
            let p = mover as usize;
            let c = g.row[t];
            // Ply 0's list is free once the search is done.
            let n = g.board.gen_moves::<W, H>(&s, p, c, NONE, list::<H>(g.moves, 0));
            let mut moves = list::<H>(g.moves, 0)[..n].to_vec();
            moves.sort_unstable_by(|a, b| b.cmp(a));
            let mut best: Option<(i32, i32, Code)> = None;
            for (gain, m) in moves.into_iter().map(unpack) {
                let saved = s;
                g.board.play::<W, H>(&mut s, m, p, c);
                let v = gain - g.search(&mut s, t + 1, 1 - mover, -INF, INF) as i32;
                s = saved;
                if best.is_none_or(|(b, _, _)| v > b) {
                    best = Some((v, gain, m));
                }
            }
            let Some((_, gain, m)) = best else { break };
            let (action, triangle) = match m {
                0 => (Action::Hold, None),
                m => {
                    let (f, a, b) = decode::<H>(m);
                    let (level, place) = g.board.layout.place[f];
                    let (x, y) = s.key.pair(H + f);
                    let card = |i: usize| if i == 0 { c } else { s.key.get(p * H + i - 1) };
                    if a == b {
                        (Action::Floor { level, place, card: card(a) }, Some([x, y, card(a)]))
                    } else {
                        let (left, right) = (card(a), card(b));
                        (Action::Peak { level: level + 1, place, left, right }, Some([x, left, right]))
                    }
                }
            };
            line.push(Turn { mover, card: c, action, gain, triangle });
            g.board.play::<W, H>(&mut s, m, p, c);
            mover = 1 - mover;
        }
        let held = [0, 1].map(|p| s.key.hand::<H>(p).into_iter().filter(|&c| c != NONE).collect());
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

/// What a turn did with the drawn card. A floor or a peak that does not
/// use the drawn card leaves it held.
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

impl<const W: usize, const H: usize, P: Point> Search<'_, W, H, P> {
    /// Negamax with alpha-beta: the best (mover's gain − opponent's gain)
    /// from here. The transposition table's best move is tried before the
    /// others are even generated: when it cuts off, they never are.
    ///
    /// A visit counts the node, scores the end of the game and answers from
    /// the transposition table when it can (inlined into the parent: no
    /// call for these); the rest is [`Search::expand`].
    #[inline(always)]
    fn search(&mut self, s: &mut Pos<W>, mut t: usize, mut mover: u8, mut alpha: i64, mut beta: i64) -> i64 {
        // A turn whose only move is holding (no open valley, and no card in
        // hand or no floor to build on) is played here, with no table
        // entry of its own (its one child has its own): `sign` is -1 after
        // an odd number of them, and `holders` has the bits of the players
        // they made hold. With hands of several cards the hands are put
        // back as they were (`hands`).
        let (mut sign, mut holders, hands) = (1, 0u8, s.key);
        let v = loop {
            self.nodes += 1;
            if self.nodes > self.budget {
                // Out of budget: unwind at once; the caller reports the limit.
                break 0;
            }
            let p = mover as usize;
            if t == self.row.len() {
                let (held, k) = (&self.board.rules.held, &s.key);
                let mut v = 0i64;
                for i in 0..H {
                    let (mine, theirs) = (k.get(p * H + i), k.get((1 - p) * H + i));
                    if mine != NONE {
                        v += held[p][mine as usize] as i64;
                    }
                    if theirs != NONE {
                        v -= held[1 - p][theirs as usize] as i64;
                    }
                }
                break v;
            }
            let holds = s.key.get(p * H) != NONE;
            // With one card in hand the house has a floor for it (`check`
            // makes sure: the row runs out before the house is full).
            if s.open != 0 || holds && (H == 1 || s.peakable != 0) {
                break match self.tt.probe(&s.key) {
                    Ok(i) => {
                        let e = &self.tt.slots[i];
                        let (low, high) = (e.low as i64, e.high as i64);
                        if low >= beta || low == high {
                            low
                        } else if high <= alpha {
                            high
                        } else {
                            // The same key allows the same moves: the hint is legal here.
                            // The window narrowed to the known bounds: a value
                            // at or below a raised alpha (or at or above a
                            // lowered beta) meets the bound there, so it is
                            // exact, which the caller may take it for.
                            let hint = e.best::<H>();
                            self.expand(s, t, mover, alpha.max(low), beta.min(high), Some(hint), i)
                        }
                    }
                    Err(i) => self.expand(s, t, mover, alpha, beta, None, i),
                };
            }
            if H == 1 {
                s.key.set(p, self.row[t]);
            } else {
                s.key.set_hand(p, with_card(s.key.hand::<H>(p), self.row[t]));
            }
            holders |= 1 << p;
            (t, mover, sign) = (t + 1, 1 - mover, -sign);
            (alpha, beta) = (-beta, -alpha);
        };
        if H == 1 {
            // Their hands were empty.
            for p in 0..2 {
                if holders >> p & 1 == 1 {
                    s.key.set(p, NONE);
                }
            }
        } else if holders != 0 {
            s.key = hands;
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
        mut alpha: i64,
        beta: i64,
        hint: Option<Code>,
        at: usize,
    ) -> i64 {
        let p = mover as usize;
        let epoch = self.tt.epoch;
        let alpha0 = alpha;
        let c = self.row[t];
        let other = 1 - mover;
        let mut best = -INF;
        let mut best_move: Code = 0;
        // One move: v = gain - child, the child's window shifted by the gain.
        macro_rules! try_move {
            ($gain:expr, $m:expr) => {{
                let (gain, m): (i64, Code) = ($gain as i64, $m);
                let saved = *s;
                self.board.play::<W, H>(s, m, p, c);
                // Principal variation search: in a wide window, a move
                // after the first is tested against alpha with a null
                // window, and searched again only if it beats alpha.
                let mut v;
                if best != -INF && beta > alpha + 1 {
                    v = gain - self.search(s, t + 1, other, gain - alpha - 1, gain - alpha);
                    if v > alpha && v < beta {
                        v = gain - self.search(s, t + 1, other, gain - beta, gain - alpha);
                    }
                } else {
                    v = gain - self.search(s, t + 1, other, gain - beta, gain - alpha);
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
            Some(m) => try_move!(self.board.gain::<W, H>(s, m, p, c), m),
            None => false,
        };
        if !cut {
            let ply = t % PLIES;
            let next = if t + 1 < self.row.len() { self.row[t + 1] } else { NONE };
            let n = self.board.gen_moves::<W, H>(s, p, c, next, list::<H>(self.moves, ply)).min(moves_cap(H));
            for i in 0..n {
                // The best of the rest to place i (the search usually
                // stops after the first few: the list is never sorted whole).
                let list = list::<H>(self.moves, ply);
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
                let gain = if P::SHORT { packed_gain(top) } else { self.board.gain::<W, H>(s, m, p, c) };
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
        let stored = best.clamp(-INF, INF) as i32;
        let (low, high) = if best <= alpha0 {
            (-i32::MAX, stored)
        } else if best >= beta {
            (stored, i32::MAX)
        } else {
            (stored, stored)
        };
        self.tt.insert_at(at, epoch, s.key, low, high, best_tag::<H>(best_move));
        best
    }
}

#[cfg(test)]
mod tests {
    //! The root's null-window passes and the table's merged bounds, checked
    //! against a plain negamax over the same moves (no table, no window):
    //! `tests/suite/tower.rs` checks the moves themselves against the statement.
    use super::super::moves::{pack, List};
    use super::*;
    use proptest::prelude::*;

    /// Cards `2 * rank + colour` of ranks 0..m: a triangle is worth the sum
    /// of its ranks (from 1) to the colour of two of its cards; a held card
    /// is worth its rank to its holder, plus if of the holder's colour; the
    /// first card's colour moves first. Each rank counts `scale` points: 1
    /// makes a table of `i8`, 100 of `i16` and 10,000 of `i32` (with hands
    /// of one card; `i32` always with more).
    fn rules(peaks: usize, hold: usize, m: usize, scale: i32) -> TowerRules {
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
        let first = (0..2 * n).map(|i| (i / 2 % 2) as u8).collect();
        let rules = TowerRules::new(peaks, hold, triangle, [held(0), held(1)], first, n);
        assert_eq!(rules.window, 3 * m as i32 * scale);
        let kind = match rules.triangle {
            PointTable::I8(_) => 1,
            PointTable::I16(_) => 100,
            PointTable::I32(_) => 10_000,
        };
        assert!(kind == scale || hold > 1 && kind == 10_000);
        rules
    }

    /// Plain negamax for the player to move.
    fn negamax<const W: usize, const H: usize, P: Point>(
        g: &mut Search<'_, W, H, P>,
        s: Pos<W>,
        t: usize,
        p: usize,
    ) -> i32 {
        if t == g.row.len() {
            let (held, k) = (&g.board.rules.held, &s.key);
            let worth =
                |q: usize| k.hand::<H>(q).iter().filter(|&&c| c != NONE).map(|&c| held[q][c as usize]).sum::<i32>();
            return worth(p) - worth(1 - p);
        }
        let mut list: List = [0; MAX_MOVES];
        let n = g.board.gen_moves::<W, H>(&s, p, g.row[t], NONE, &mut list);
        let mut best = -i32::MAX;
        for &m in &list[..n] {
            let (gain, m) = unpack(m);
            let mut child = s;
            g.board.play::<W, H>(&mut child, m, p, g.row[t]);
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
        fn run<const W: usize, const H: usize, P: Point>(
            self,
            r: &TowerRules,
            points: &[P],
            parts: Parts<'_, W>,
        ) -> Self::Out {
            let (Windows(deck, windows), (tt, moves, layout)) = (self, parts);
            let first = r.first_mover(deck, 0);
            let (mut g, s) = r.start::<W, H, P>(deck, points, (&mut *tt, &mut *moves, layout), u64::MAX);
            let exact = negamax(&mut g, s, 0, first as usize);
            let v0 = if first == 0 { exact } else { -exact };
            prop_assert_eq!(r.solve(deck).0, v0);
            let (mut g, mut s) = r.start::<W, H, P>(deck, points, (tt, moves, layout), u64::MAX);
            for &(a, w) in windows {
                let (alpha, beta) = (exact + a, exact + a + w);
                let v = g.search(&mut s, 0, first, alpha as i64, beta as i64) as i32;
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

    /// Every move code of every hand size names one floor slot and two of
    /// the turn's cards, and comes back from them.
    #[test]
    fn move_codes_name_their_slot_and_cards() {
        fn check<const H: usize>() {
            let slots = crate::engines::tower::moves::house_floors(MAX_PEAKS);
            let mut seen = std::collections::HashSet::new();
            for f in 0..slots {
                for a in 0..=H {
                    for b in 0..=H {
                        let m = 1 + f * (H + 1) * (H + 1) + a * (H + 1) + b;
                        if m > 255 {
                            continue;
                        }
                        assert_eq!(decode::<H>(m as Code), (f, a, b));
                        assert!(seen.insert(m));
                    }
                }
            }
        }
        check::<1>();
        check::<2>();
        check::<3>();
        check::<4>();
        assert_eq!(pack(0, 0, 0, 0) >> 24 & 0xFF, 255);
    }

    /// The order keys of [`Board::gen_moves`], found slot by slot, against
    /// their definition: each move played, and the other player's moves on
    /// the next turn listed with their gains. The moves played are the
    /// `choices`.
    struct Keys<'a>(&'a [u8], &'a [usize]);

    impl Job for Keys<'_> {
        type Out = Result<(), TestCaseError>;
        fn run<const W: usize, const H: usize, P: Point>(
            self,
            r: &TowerRules,
            points: &[P],
            parts: Parts<'_, W>,
        ) -> Self::Out {
            let Keys(deck, choices) = self;
            let first = r.first_mover(deck, 0);
            let (g, mut s) = r.start::<W, H, P>(deck, points, parts, u64::MAX);
            let (g, row) = (g.board, g.row);
            let mut p = first as usize;
            let (mut keyed, mut plain, mut replies) = ([0; MAX_MOVES], [0; MAX_MOVES], [0; MAX_MOVES]);
            for (t, &choice) in choices.iter().enumerate().take(row.len().saturating_sub(1)) {
                let (c, next) = (row[t], row[t + 1]);
                let n = g.gen_moves::<W, H>(&s, p, c, next, &mut keyed);
                prop_assert_eq!(g.gen_moves::<W, H>(&s, p, c, NONE, &mut plain), n);
                if n == 0 {
                    break;
                }
                for i in 0..n {
                    let ((key, m), (gain, m2)) = (unpack(keyed[i]), unpack(plain[i]));
                    prop_assert_eq!(m, m2);
                    prop_assert_eq!(gain, g.gain::<W, H>(&s, m, p, c));
                    if P::SHORT {
                        prop_assert_eq!(packed_gain(keyed[i]), gain);
                    }
                    let mut child = s;
                    g.play::<W, H>(&mut child, m, p, c);
                    let k = g.gen_moves::<W, H>(&child, 1 - p, next, NONE, &mut replies);
                    let reply = replies[..k].iter().map(|&x| unpack(x).0).max().unwrap_or(0).max(0);
                    let holds = child.key.get(p * H) != NONE;
                    let expected = if n == 1 { gain } else { gain - 2 * reply + if holds { r.window / 4 } else { 0 } };
                    prop_assert_eq!(key, expected, "move {} of {} at turn {}", m, n, t);
                }
                let (_, m) = unpack(plain[choice % n]);
                g.play::<W, H>(&mut s, m, p, c);
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
            (peaks, hold, m) in prop_oneof![
                Just((2, 1, 4)), Just((3, 1, 6)), Just((4, 1, 7)), Just((4, 1, 13)), Just((5, 1, 9)),
                Just((2, 2, 4)), Just((3, 2, 7)), Just((4, 2, 13)), Just((4, 3, 9)), Just((5, 4, 12)),
            ],
            scale in prop_oneof![Just(1), Just(100), Just(10_000)],
            seed in any::<u64>(),
            choices in proptest::collection::vec(0usize..256, 30),
        ) {
            let (r, deck) = (rules(peaks, hold, m, scale), shuffled(m, seed));
            r.dispatch(&mut Tt::default(), Keys(&deck, &choices))?;
        }

        #[test]
        fn windows_and_passes_agree_with_plain_negamax(
            (peaks, hold, m) in prop_oneof![
                Just((2, 1, 4)), Just((3, 1, 5)), Just((3, 1, 6)), Just((4, 1, 6)), Just((4, 1, 7)), Just((5, 1, 8)),
                Just((2, 2, 4)), Just((3, 2, 5)), Just((4, 2, 6)), Just((3, 3, 5)), Just((4, 4, 6)),
            ],
            scale in prop_oneof![Just(1), Just(100), Just(10_000)],
            seed in any::<u64>(),
            windows in proptest::collection::vec((-12i32..=12, 1i32..=8), 1..12),
        ) {
            let (r, deck) = (rules(peaks, hold, m, scale), shuffled(m, seed));
            let windows = windows.iter().map(|&(a, w)| (a * scale, w * scale)).collect::<Vec<_>>();
            r.dispatch(&mut Tt::default(), Windows(&deck, &windows))?;
        }
    }
}
