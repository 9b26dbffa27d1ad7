//! The tower engine: two players take turns drawing the next card of a known
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

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A fast hasher for the transposition keys (already well mixed bits of
/// card numbers): multiply and rotate per word.
#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(w));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Value, bound flag (0 exact, 1 lower, -1 upper), index of the best move.
pub type Tt = HashMap<[u64; 4], (i32, i8, u8), BuildHasherDefault<KeyHasher>>;

/// Most base peaks (the transposition key holds 15 floors).
pub const MAX_PEAKS: usize = 6;
/// Most cards in a deck (cards are 6-bit numbers; 63 means "none").
pub const MAX_CARDS: usize = 63;
const NONE: u8 = 63;
/// Transposition-table entries kept before the table is cleared.
pub const TT_LIMIT: usize = 1 << 22;

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
        Layout { floors, place }
    }
}

/// A position: the house, the hands, whose turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct State {
    /// Left and right card of each peak slot (NONE when not built).
    left: [u8; 36],
    right: [u8; 36],
    /// The card of each floor slot (NONE when not laid).
    floor: [u8; 28],
    hand: [u8; 2],
}

/// One game: the rules with the row of cards to draw.
pub struct Game<'r, 't> {
    rules: &'r TowerRules,
    layout: Layout,
    row: Vec<u8>,
    tt: &'t mut Tt,
    /// A move list per ply, reused (no allocation or initialisation per node).
    plies: Vec<Vec<(i32, Move)>>,
    /// Nodes searched (for benchmarks and limits).
    pub nodes: u64,
    /// Give up after this many nodes (`u64::MAX`: never).
    budget: u64,
}

#[derive(Debug, Clone, Copy)]
enum Move {
    Hold,
    /// Lay the drawn card (false) or the held card (true) on floor slot f.
    Floor(usize, bool),
    /// Build peak slot above floor f; `swap` puts the drawn card left.
    Peak(usize, bool),
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
    fn start<'t>(&self, deck: &[u8], tt: &'t mut Tt, budget: u64) -> (Game<'_, 't>, State, u8) {
        tt.clear();
        let n = self.peaks;
        let layout = Layout::new(n);
        let mut s = State { left: [NONE; 36], right: [NONE; 36], floor: [NONE; 28], hand: [NONE; 2] };
        for i in 0..n {
            s.left[i] = deck[2 * i];
            s.right[i] = deck[2 * i + 1];
        }
        let row = deck[2 * n..].to_vec();
        let first = self.first_by_card[deck[0] as usize];
        let mut g = Game { rules: self, layout, row, tt, nodes: 0, budget, plies: Vec::new() };
        g.plies = vec![Vec::with_capacity(64); g.row.len() + 1];
        (g, s, first)
    }

    /// One line of perfect play (each turn's first best move in the
    /// engine's order) and the cards held at the end; for explanations.
    pub fn principal_line(&self, deck: &[u8], tt: &mut Tt) -> (Vec<Turn>, [Option<u8>; 2]) {
        let (mut g, mut s, first) = self.start(deck, tt, u64::MAX);
        g.search(&mut s, 0, first, -i32::MAX, i32::MAX);
        let mut line = Vec::new();
        let mut mover = first;
        for t in 0..g.row.len() {
            let mut moves = Vec::new();
            g.moves(&s, mover, t, &mut moves);
            let mut best: Option<(i32, i32, Move)> = None;
            for &(gain, m) in &moves {
                let saved = s;
                g.play(&mut s, m, mover, g.row[t]);
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
            g.play(&mut s, m, mover, c);
            mover = 1 - mover;
        }
        let held = s.hand.map(|h| (h != NONE).then_some(h));
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
    Floor { level: usize, place: usize, card: u8 },
    /// A peak on `level` (1: the first above the base), at `place`.
    Peak { level: usize, place: usize, left: u8, right: u8 },
}

impl Game<'_, '_> {
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

    /// The part of the state the rest of the game depends on, packed in
    /// 6-bit fields (at most 2 + 2 * 15 fields plus the turn: 192 bits).
    fn key(&self, s: &State, t: usize) -> [u64; 4] {
        let mut k = [0u64; 4];
        let mut bit = 0usize;
        let mut push = |x: u8| {
            k[bit / 64] |= (x as u64) << (bit % 64);
            if bit % 64 > 58 {
                k[bit / 64 + 1] |= (x as u64) >> (64 - bit % 64);
            }
            bit += 6;
        };
        push(t as u8);
        push(s.hand[0]);
        push(s.hand[1]);
        for (f, &(lp, rp, up)) in self.layout.floors.iter().enumerate() {
            if s.floor[f] == NONE {
                // Open or not yet possible: the boundary cards matter.
                push(s.right[lp]);
                push(s.left[rp]);
            } else if s.left[up] == NONE {
                // Covered, no peak above yet: the floor card matters.
                push(s.floor[f]);
                push(62);
            } else {
                push(62);
                push(61);
            }
        }
        k
    }

    /// The moves of the turn, best immediate gain first.
    fn moves(&self, s: &State, mover: u8, t: usize, out: &mut Vec<(i32, Move)>) {
        out.clear();
        let mut push = |m: (i32, Move)| out.push(m);
        let c = self.row[t];
        let h = s.hand[mover as usize];
        if h == NONE {
            push((0, Move::Hold));
        }
        for (f, &(lp, rp, up)) in self.layout.floors.iter().enumerate() {
            if s.floor[f] == NONE && s.right[lp] != NONE && s.left[rp] != NONE {
                push((self.tri_for(mover, s.right[lp], s.left[rp], c), Move::Floor(f, false)));
                if h != NONE {
                    push((self.tri_for(mover, s.right[lp], s.left[rp], h), Move::Floor(f, true)));
                }
            }
            if h != NONE && s.floor[f] != NONE && s.left[up] == NONE {
                let g = self.tri_for(mover, s.floor[f], h, c);
                push((g, Move::Peak(f, false)));
                push((g, Move::Peak(f, true)));
            }
        }
        // Best immediate gain first (stable: ties keep generation order).
        out.sort_by_key(|m| std::cmp::Reverse(m.0));
    }

    /// Makes move `m` of `mover`, who drew card `c`.
    #[inline(always)]
    fn play(&self, s: &mut State, m: Move, mover: u8, c: u8) {
        match m {
            Move::Hold => s.hand[mover as usize] = c,
            Move::Floor(f, false) => s.floor[f] = c,
            Move::Floor(f, true) => {
                s.floor[f] = s.hand[mover as usize];
                s.hand[mover as usize] = c;
            }
            Move::Peak(f, swap) => {
                let up = self.layout.floors[f].2;
                let h = s.hand[mover as usize];
                (s.left[up], s.right[up]) = if swap { (c, h) } else { (h, c) };
                s.hand[mover as usize] = NONE;
            }
        }
    }

    /// Negamax: the best (mover's gain − opponent's gain) from here.
    fn search(&mut self, s: &mut State, t: usize, mover: u8, mut alpha: i32, beta: i32) -> i32 {
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
        // The last plies are cheaper to search than to store.
        let use_tt = t + 2 < self.row.len();
        // Within one game the mover follows from the turn.
        let key = if use_tt { self.key(s, t) } else { [0; 4] };
        let alpha0 = alpha;
        let mut hint = None;
        if let Some(&(v, flag, best_move)) = if use_tt { self.tt.get(&key) } else { None } {
            match flag {
                0 => return v,
                1 if v >= beta => return v,
                -1 if v <= alpha => return v,
                _ => {}
            }
            hint = Some(best_move as usize);
        }
        let mut moves = std::mem::take(&mut self.plies[t]);
        self.moves(s, mover, t, &mut moves);
        let n = moves.len();
        // The move that was best here before goes first.
        if let Some(h) = hint.filter(|&h| h < n) {
            moves[..=h].rotate_right(1);
        }
        let c = self.row[t];
        let other = 1 - mover;
        let mut best = -i32::MAX;
        let mut best_i = 0u8;
        for (i, &(gain, m)) in moves[..n].iter().enumerate() {
            let saved = *s;
            self.play(s, m, mover, c);
            // v = gain - child, so the child's window is shifted by the gain.
            // After the first move, a null window proves the move no better
            // (principal variation search); a move that beats it is searched again.
            let a = alpha.max(best);
            let v = if i == 0 {
                gain - self.search(s, t + 1, other, gain.saturating_sub(beta), gain.saturating_sub(a))
            } else {
                let probe = gain - self.search(s, t + 1, other, gain.saturating_sub(a) - 1, gain.saturating_sub(a));
                if probe > a && probe < beta {
                    gain - self.search(s, t + 1, other, gain.saturating_sub(beta), gain.saturating_sub(probe))
                } else {
                    probe
                }
            };
            *s = saved;
            if v > best {
                best = v;
                best_i = i as u8;
                if best >= beta {
                    break;
                }
            }
            alpha = alpha.max(best);
        }
        self.plies[t] = moves;
        if !use_tt {
            return best;
        }
        if self.tt.len() >= TT_LIMIT {
            self.tt.clear();
        }
        let flag = if best <= alpha0 {
            -1
        } else if best >= beta {
            1
        } else {
            0
        };
        // Stored as an index into the generated order (undo the hint's rotation).
        let gen_index = match hint.filter(|&h| h < n) {
            Some(h) if (best_i as usize) == 0 => h as u8,
            Some(h) if (best_i as usize) <= h => best_i - 1,
            _ => best_i,
        };
        self.tt.insert(key, (best, flag, gen_index));
        best
    }
}
