//! The tower game's positions and moves: the numbered house ([`Layout`]),
//! a position with its open valleys ([`Pos`]), move codes, and the moves of
//! a turn ([`Board::gen_moves`]) with their order keys, their gains and
//! their play. Generic over the hand size `H` (the rule file's `hold`):
//! with `H = 1` every loop over a hand is one test, as it was before hands
//! of several cards.

use std::hint::select_unpredictable;

use super::search::{Point, TowerRules, MAX_CARDS, MAX_PEAKS};
use super::table::Key;

/// No card (a hand's empty place, a peak not built yet). Cards are below
/// [`MAX_CARDS`]; 61, 62 and 63 are a position's markers.
pub(super) const NONE: u8 = 63;
/// A floor slot's second byte once its floor is laid, and its first once a
/// peak stands on it (the second is then [`BUILT`]).
pub(super) const FLOORED: u8 = 62;
pub(super) const BUILT: u8 = 61;
const _: () = assert!(MAX_CARDS <= BUILT as usize);
/// Floor slots of the largest house.
const FLOOR_SLOTS: usize = MAX_PEAKS * (MAX_PEAKS - 1) / 2;
/// Entries of [`Layout`]'s bounds: a power of two, so that a floor slot
/// indexes it through a mask (no bounds check on the hot path).
pub(super) const BOUND_SLOTS: usize = FLOOR_SLOTS.next_power_of_two();
/// No floor slot (see [`Layout`]).
pub(super) const NO_SLOT: u8 = u8::MAX;
/// Plies of a game: the row is shorter than [`MAX_CARDS`].
pub(super) const PLIES: usize = MAX_CARDS.next_power_of_two();
/// The longest move list of any hand size (see [`moves_cap`]).
pub(super) const MAX_MOVES: usize = 256;
/// One ply's move list: a search with hands of `H` cards uses its first
/// `moves_cap(H)` places, indexed through masks (no bounds check).
pub(super) type List = [u64; MAX_MOVES];
/// The move lists of every ply, one after the other: ply `t`'s list starts
/// at `(t % PLIES) * moves_cap(H)` (see [`list`]), so that with hands of
/// one card the lists of a game take 16 KB, not 128 KB.
pub(super) type Lists = [u64; PLIES * MAX_MOVES + MAX_MOVES];

/// Ply `ply`'s move list with hands of `H` cards: its `moves_cap(H)` places
/// are its own (the rest of the array is the next plies').
#[inline(always)]
pub(super) fn list<const H: usize>(lists: &mut Lists, ply: usize) -> &mut List {
    let at = (ply % PLIES) * moves_cap(H);
    (&mut lists[at..at + MAX_MOVES]).try_into().expect("MAX_MOVES places")
}

/// The most bytes a position has (see [`super::search::Search`]).
pub(super) const POSITION_BYTES: usize = 32;

/// Floors in a full house of `peaks` base peaks.
pub(super) const fn house_floors(peaks: usize) -> usize {
    peaks * peaks.saturating_sub(1) / 2
}

/// Bytes of a position: two hands of `hold` cards, two per floor slot.
pub(super) const fn position_bytes(peaks: usize, hold: usize) -> usize {
    2 * hold + 2 * house_floors(peaks)
}

/// The most floor slots of a house whose positions, with hands of `h`
/// cards, fit in [`POSITION_BYTES`].
const fn max_floors(h: usize) -> usize {
    let mut p = MAX_PEAKS;
    while p > 0 && position_bytes(p, h) > POSITION_BYTES {
        p -= 1;
    }
    house_floors(p)
}

/// The longest move list with hands of `h` cards, as a power of two: hold,
/// and on each floor slot either a floor of any of the turn's `h + 1`
/// cards or a peak of any two in either order (`h (h + 1)`).
pub(super) const fn moves_cap(h: usize) -> usize {
    let per_slot = if h * (h + 1) > h + 1 { h * (h + 1) } else { h + 1 };
    (1 + max_floors(h) * per_slot).next_power_of_two()
}

/// The largest `hold` a rule file may give: its move codes fit in a byte
/// and its move lists in `MAX_MOVES`.
pub const MAX_HOLD: usize = 4;
const _: () = assert!(moves_cap(MAX_HOLD) <= MAX_MOVES && max_floors(MAX_HOLD) * kinds(MAX_HOLD) < 256);

/// A move, as one byte (also the transposition table's best move): 0
/// holds the drawn card; `1 + f * kinds(H) + a * (H + 1) + b` uses the
/// turn's cards `a` and `b` on floor slot `f`, where card 0 is the drawn
/// card and cards 1 to `H` are the hand's: a floor of card `a` when `a ==
/// b`, else a peak of card `a` (left) and card `b` (right). Whatever the
/// move leaves of the turn's cards is the mover's hand.
pub(super) type Code = u8;

/// Move codes per floor slot with hands of `h` cards.
pub(super) const fn kinds(h: usize) -> usize {
    (h + 1) * (h + 1)
}

#[inline(always)]
fn code<const H: usize>(f: usize, a: usize, b: usize) -> Code {
    (1 + f * kinds(H) + a * (H + 1) + b) as Code
}

/// The floor slot and the two cards of a move other than holding.
#[inline(always)]
pub(super) fn decode<const H: usize>(m: Code) -> (usize, usize, usize) {
    let i = m as usize - 1;
    (i / kinds(H), i % kinds(H) / (H + 1), i % (H + 1))
}

/// A move of the list of a turn with its order key (see
/// [`Board::gen_moves`]), packed so that the largest number is the move to
/// try first: the key, then the earlier generated; then its gain when
/// [`Point::SHORT`] (else 0), and its code.
#[inline(always)]
pub(super) fn pack(key: i32, index: usize, gain: i32, code: Code) -> u64 {
    // The key offset by 2^31 (its sign bit flipped) orders as unsigned.
    ((key as u32 ^ 1 << 31) as u64) << 32 | ((255 - index) as u64) << 24 | (gain as u16 as u64) << 8 | code as u64
}

/// A move's order key: its gain and bonus, less twice the reply (see
/// [`Board::gen_moves`]). With points of `i8` or `i16` no sum here leaves
/// an `i32`.
#[inline(always)]
fn order_key<P: Point>(gain: i32, bonus: i32, reply: i32) -> i32 {
    if P::SHORT {
        gain + bonus - 2 * reply
    } else {
        gain.saturating_add(bonus).saturating_sub(reply.saturating_mul(2))
    }
}

/// The key and the code of a packed move.
#[inline(always)]
pub(super) fn unpack(m: u64) -> (i32, Code) {
    (((m >> 32) as u32 ^ 1 << 31) as i32, m as u8)
}

/// The gain of a packed move (when [`Point::SHORT`]).
#[inline(always)]
pub(super) fn packed_gain(m: u64) -> i32 {
    (m >> 8) as u16 as i16 as i32
}

/// Cards in a hand (they come first).
#[inline(always)]
pub(super) fn held<const H: usize>(hand: &[u8; H]) -> usize {
    hand.iter().map(|&c| (c != NONE) as usize).sum()
}

/// A hand with card `c` added in order (the hand has room).
#[inline(always)]
pub(super) fn with_card<const H: usize>(mut hand: [u8; H], c: u8) -> [u8; H] {
    let mut i = H - 1;
    while i > 0 && hand[i - 1] > c {
        hand[i] = hand[i - 1];
        i -= 1;
    }
    hand[i] = c;
    hand
}

/// A hand without its `i`-th card.
#[inline(always)]
fn without<const H: usize>(mut hand: [u8; H], i: usize) -> [u8; H] {
    for j in i..H - 1 {
        hand[j] = hand[j + 1];
    }
    hand[H - 1] = NONE;
    hand
}

/// Slots of the house, numbered once at load.
#[derive(Debug, Clone)]
pub(super) struct Layout {
    /// Each floor slot's level (0: between base peaks) and place on it.
    pub(super) place: Vec<(usize, usize)>,
    /// For the peak above each floor slot: the floor slots on the level
    /// above it bounds as their left peak (its right card goes there) and
    /// as their right peak (its left card), [`NO_SLOT`] when none.
    pub(super) bounds: [(u8, u8); BOUND_SLOTS],
}

impl Layout {
    pub(super) fn new(n: usize) -> Layout {
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

/// A position (see [`super::search::Search`]) with the floor slots open to
/// a floor card (both boundary peaks built, no floor yet) and those ready
/// for a peak (floor laid, no peak), as bit sets: they follow from the key,
/// kept move by move.
#[derive(Debug, Clone, Copy)]
pub(super) struct Pos<const W: usize> {
    pub(super) key: Key<W>,
    pub(super) open: u16,
    pub(super) peakable: u16,
}

/// What a search only reads: the rules, the numbered house, and the
/// triangles' points as entries of type `P` (see
/// [`super::search::PointTable`]).
#[derive(Clone, Copy)]
pub(super) struct Board<'a, P> {
    pub(super) rules: &'a TowerRules,
    pub(super) layout: &'a Layout,
    pub(super) points: &'a [P],
}

impl<P: Point> Board<'_, P> {
    /// Points of a triangle for player `p` (0 or 1).
    #[inline(always)]
    pub(super) fn tri(&self, p: usize, a: u8, b: u8, c: u8) -> i32 {
        let n = self.rules.cards;
        let v = self.points[(a as usize * n + b as usize) * n + c as usize].get();
        if p == 0 {
            v
        } else {
            -v
        }
    }

    /// Writes the moves of player `p`, who drew `c`, to `list` (its first
    /// `moves_cap(H)` places), each packed with its order key (see
    /// [`pack`]); returns how many.
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
    /// of each held card and of the drawn card, or the peaks of a held card
    /// and the drawn card in both orders (then of two held cards); then
    /// holding the drawn card (with the gain alone this took 3 % less time
    /// than drawn before held and holding first; with the reply, no order
    /// of ties changed the node count by more than 0.3 %).
    #[inline(always)]
    pub(super) fn gen_moves<const W: usize, const H: usize>(
        &self,
        s: &Pos<W>,
        p: usize,
        c: u8,
        next: u8,
        list: &mut List,
    ) -> usize {
        let k = &s.key;
        let (mine_h, their_h) = (k.hand::<H>(p), k.hand::<H>(1 - p));
        let (nh, nq) = (held(&mine_h), held(&their_h));
        let (table, n) = (self.points, self.rules.cards);
        // Player 0's points as the mover's (`mine`) and the other's.
        let flip = -(p as i32);
        let mine = |v: i32| (v ^ flip) - flip;
        let theirs = |v: i32| -mine(v);
        let row = |a: u8, b: u8| (a as usize * n + b as usize) * n;
        let slots = s.open | if nh > 0 { s.peakable } else { 0 };
        // With one move (or no next turn) there is nothing to order.
        let look = next != NONE && slots != 0;
        // The other's best gain on an open valley `a`, `b`: a floor of the
        // card they draw or of one they hold.
        let open_reply = |a: u8, b: u8| {
            let r = row(a, b);
            let mut v = theirs(table[r + next as usize].get());
            for &q in their_h.iter().take_while(|&&q| q != NONE) {
                v = v.max(theirs(table[r + q as usize].get()));
            }
            v
        };
        // ... on a floor `x`: a peak of a card they hold and the next, or
        // of two they hold (0 when they hold none).
        let peak_reply = |x: u8| {
            let base = x as usize * n * n;
            let mut v = 0;
            for (i, &q) in their_h.iter().enumerate().take_while(|&(_, &q)| q != NONE) {
                let r = base + q as usize * n;
                let w = theirs(table[r + next as usize].get());
                v = if i == 0 { w } else { v.max(w) };
                for &u in their_h[i + 1..].iter().take_while(|&&u| u != NONE) {
                    v = v.max(theirs(table[r + u as usize].get()));
                }
            }
            v
        };
        // The other's best reply now, slot by slot: the best, its slot and
        // the second best (holding is worth 0).
        let (mut top, mut top_slot, mut second) = (0, usize::MAX, 0);
        if look {
            let mut used = s.open | if nq > 0 { s.peakable } else { 0 };
            while used != 0 {
                let g = used.trailing_zeros() as usize;
                used &= used - 1;
                let (a, b) = k.pair(H + g);
                let v = if s.open >> g & 1 == 1 { open_reply(a, b) } else { peak_reply(a) };
                second = second.max(v.min(top));
                top_slot = select_unpredictable(v > top, g, top_slot);
                top = top.max(v);
            }
        }
        // A move that leaves the mover holding a card ranks higher, by a
        // quarter of the largest triangle: a held card may make a peak.
        let keep = if look { self.rules.window / 4 } else { 0 };
        // The other's best reply on every slot but f (a move changes f).
        // These choices, and the best and second best above, are made
        // without a branch: which way they go follows the cards, and the
        // processor mispredicted them often (with branches, 1,000 deals of
        // M = 13 took 5 % more time, 276 ms against 262).
        let others = |f: usize| select_unpredictable(top_slot == f, second, top);
        let (cap, mut count) = (moves_cap(H), 0);
        let mut push = |gain: i32, bonus: i32, reply: i32, code: Code| {
            list[count & (cap - 1)] =
                pack(order_key::<P>(gain, bonus, reply), count, if P::SHORT { gain } else { 0 }, code);
            count += 1;
        };
        let mut left = slots;
        while left != 0 {
            let f = left.trailing_zeros() as usize;
            left &= left - 1;
            let (a, b) = k.pair(H + f);
            let o = others(f);
            if s.open >> f & 1 == 1 {
                let (r, on) = (row(a, b), look && nq > 0);
                // A floor of a held card (the drawn card is then held).
                for (i, &h) in mine_h.iter().enumerate().take_while(|&(_, &h)| h != NONE) {
                    let reply = if on { o.max(peak_reply(h)) } else { o };
                    push(mine(table[r + h as usize].get()), keep, reply, code::<H>(f, i + 1, i + 1));
                }
                let reply = if on { o.max(peak_reply(c)) } else { o };
                push(mine(table[r + c as usize].get()), if nh > 0 { keep } else { 0 }, reply, code::<H>(f, 0, 0));
            } else {
                // A peak on the floor `a`: its two orders score the same
                // triangle, and differ in the valleys they open beside it
                // (its right card bounds the valley it is the left peak
                // of, its left card the other).
                let (right_of, left_of) = if look { self.beside::<W, H>(k, f) } else { (NONE, NONE) };
                let reply = |l: u8, r: u8| {
                    let mut v = o;
                    if right_of != NONE {
                        v = v.max(open_reply(r, right_of));
                    }
                    if left_of != NONE {
                        v = v.max(open_reply(left_of, l));
                    }
                    v
                };
                // A held card and the drawn card; the rest stays held.
                let bonus = if nh > 1 { keep } else { 0 };
                for (i, &h) in mine_h.iter().enumerate().take_while(|&(_, &h)| h != NONE) {
                    let gain = mine(table[row(a, h) + c as usize].get());
                    push(gain, bonus, reply(h, c), code::<H>(f, i + 1, 0));
                    push(gain, bonus, reply(c, h), code::<H>(f, 0, i + 1));
                }
                // Two held cards: the drawn card is then held.
                for i in 0..nh {
                    for j in i + 1..nh {
                        let (x, y) = (mine_h[i], mine_h[j]);
                        let gain = mine(table[row(a, x) + y as usize].get());
                        push(gain, keep, reply(x, y), code::<H>(f, i + 1, j + 1));
                        push(gain, keep, reply(y, x), code::<H>(f, j + 1, i + 1));
                    }
                }
            }
        }
        if nh < H {
            push(0, keep, top, 0);
        }
        count
    }

    /// The far boundary cards of the valleys beside the peak on floor slot
    /// `f`: the right one's right card, and the left one's left card
    /// ([`NONE`] when there is no such valley, or its peak is not built).
    #[inline(always)]
    fn beside<const W: usize, const H: usize>(&self, k: &Key<W>, f: usize) -> (u8, u8) {
        let (as_left, as_right) = self.layout.bounds[f & (BOUND_SLOTS - 1)];
        let right_of = if as_left != NO_SLOT { k.pair(H + as_left as usize).1 } else { NONE };
        let left_of = if as_right != NO_SLOT { k.pair(H + as_right as usize).0 } else { NONE };
        (right_of, left_of)
    }

    /// The turn's card `i` of player `p`, who drew `c`: 0 is `c`, 1 to `H`
    /// the hand's.
    #[inline(always)]
    fn card<const W: usize, const H: usize>(k: &Key<W>, p: usize, c: u8, i: usize) -> u8 {
        if i == 0 {
            c
        } else {
            k.get(p * H + i - 1)
        }
    }

    /// The gain of move `m` of player `p`, who drew `c`.
    #[inline(always)]
    pub(super) fn gain<const W: usize, const H: usize>(&self, s: &Pos<W>, m: Code, p: usize, c: u8) -> i32 {
        if m == 0 {
            return 0;
        }
        let k = &s.key;
        let (f, a, b) = decode::<H>(m);
        let (x, y) = k.pair(H + f);
        let (ca, cb) = (Self::card::<W, H>(k, p, c, a), Self::card::<W, H>(k, p, c, b));
        // A floor (`a == b`) makes the triangle of the valley and the card,
        // a peak that of the floor and its two cards: the arguments chosen
        // without a branch (see `gen_moves`).
        let (second, third) = select_unpredictable(a == b, (y, ca), (ca, cb));
        self.tri(p, x, second, third)
    }

    /// Makes move `m` of player `p`, who drew card `c`.
    #[inline(always)]
    pub(super) fn play<const W: usize, const H: usize>(&self, s: &mut Pos<W>, m: Code, p: usize, c: u8) {
        let k = &mut s.key;
        if m == 0 {
            if H == 1 {
                k.set(p, c);
            } else {
                k.set_hand(p, with_card(k.hand::<H>(p), c));
            }
            return;
        }
        let (f, a, b) = decode::<H>(m);
        if a == b {
            k.set_pair(H + f, Self::card::<W, H>(k, p, c, a), FLOORED);
            if a != 0 {
                // The held card is laid: the drawn card takes its place.
                if H == 1 {
                    k.set(p, c);
                } else {
                    k.set_hand(p, with_card(without(k.hand::<H>(p), a - 1), c));
                }
            }
            s.open &= !(1 << f);
            s.peakable |= 1 << f;
            return;
        }
        let (l, r) = if H == 1 {
            // One held card: the peak is it and the drawn card.
            let h = k.get(p);
            if a == 0 {
                (c, h)
            } else {
                (h, c)
            }
        } else {
            (Self::card::<W, H>(k, p, c, a), Self::card::<W, H>(k, p, c, b))
        };
        k.set_pair(H + f, FLOORED, BUILT);
        if H == 1 {
            k.set(p, NONE);
        } else {
            let hand = k.hand::<H>(p);
            let hand = match (a, b) {
                (0, i) | (i, 0) => without(hand, i - 1),
                // Two held cards: the later first, so the earlier keeps its place.
                (i, j) => with_card(without(without(hand, i.max(j) - 1), i.min(j) - 1), c),
            };
            k.set_hand(p, hand);
        }
        s.peakable &= !(1 << f);
        // The new peak bounds the valleys beside it on its level: a valley
        // opens once both its peaks stand.
        let (as_left, as_right) = self.layout.bounds[f & (BOUND_SLOTS - 1)];
        if as_left != NO_SLOT {
            let g = as_left as usize;
            let (_, b) = k.pair(H + g);
            k.set_pair(H + g, r, b);
            if b != NONE {
                s.open |= 1 << g;
            }
        }
        if as_right != NO_SLOT {
            let g = as_right as usize;
            let (a, _) = k.pair(H + g);
            k.set_pair(H + g, a, l);
            if a != NONE {
                s.open |= 1 << g;
            }
        }
    }
}
