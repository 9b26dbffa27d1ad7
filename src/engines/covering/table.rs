//! The exposed cards of the covering engine: the top card of each pile,
//! and per rank and per suit the piles showing it, as bit masks of piles in
//! scan order (see [`super::Covering`]).

use super::MAX_PILES;

/// The exposed cards: the top rank and suit of each pile and, per rank and
/// per suit, the piles showing it (bit masks); working space of the group
/// searches. Kept from deck to deck: clearing it touches only what the last
/// deck used.
pub struct Table {
    /// Piles started, and their positions (a mask).
    pub(super) piles: usize,
    pub(super) used: u64,
    pub(super) top: [u8; MAX_PILES],
    /// The exposed card of each pile, and per group with an `each`
    /// condition the piles whose exposed card meets it (when some group
    /// has conditions).
    pub(super) top_card: [u16; MAX_PILES],
    pub(super) pools: Vec<u64>,
    pub(super) top_suit: [u8; MAX_PILES],
    pub(super) count: [u32; MAX_PILES],
    pub(super) showing: [u64; 64],
    pub(super) suit_showing: [u64; 64],
    /// The ranks some pile shows (a mask), and those two piles or more
    /// show.
    pub(super) present: u64,
    pub(super) multi: u64,
    /// Work space of sum groups (see [`SumTable::first_group`]).
    pub(super) scratch: Vec<u64>,
    pub(super) candidates: Vec<(usize, u32)>,
    pub(super) found: Vec<usize>,
    pub(super) other: Vec<usize>,
    /// The pile sizes of the output line.
    pub(super) sizes: Vec<i64>,
}

impl Default for Table {
    fn default() -> Self {
        Table {
            piles: 0,
            used: 0,
            top: [0; MAX_PILES],
            top_card: [0; MAX_PILES],
            pools: Vec::new(),
            top_suit: [0; MAX_PILES],
            count: [0; MAX_PILES],
            showing: [0; 64],
            suit_showing: [0; 64],
            present: 0,
            multi: 0,
            scratch: Vec::new(),
            candidates: Vec::new(),
            found: Vec::new(),
            other: Vec::new(),
            sizes: Vec::new(),
        }
    }
}

impl Table {
    pub(super) fn clear(&mut self) {
        let mut ps = self.used;
        while ps != 0 {
            let p = ps.trailing_zeros() as usize & 63;
            ps &= ps - 1;
            self.showing[self.top[p] as usize & 63] = 0;
            self.suit_showing[self.top_suit[p] as usize & 63] = 0;
        }
        self.pools.iter_mut().for_each(|m| *m = 0);
        self.piles = 0;
        self.used = 0;
        self.present = 0;
        self.multi = 0;
    }

    /// The number of piles started.
    pub fn piles(&self) -> usize {
        self.piles
    }

    /// The piles showing a rank of the mask `ranks`.
    #[inline(always)]
    pub(super) fn showing_any(&self, ranks: u64) -> u64 {
        let mut ranks = ranks & self.present;
        let mut piles = 0;
        while ranks != 0 {
            piles |= self.showing[ranks.trailing_zeros() as usize & 63];
            ranks &= ranks - 1;
        }
        piles
    }

    /// Puts a card of rank `r` on the pile at position `p` (a new pile
    /// when `NEW`); its suit `s` is kept only when `SUITS` (some group
    /// looks at suits).
    #[inline(always)]
    pub(super) fn put<const SUITS: bool, const NEW: bool>(&mut self, p: usize, r: usize, s: usize) {
        let p = p & (MAX_PILES - 1);
        let bit = 1u64 << p;
        if NEW {
            self.piles += 1;
            self.used |= bit;
            self.count[p] = 1;
        } else {
            let old = self.top[p] as usize & 63;
            let was = self.showing[old] & !bit;
            self.showing[old] = was;
            self.present &= !(((was == 0) as u64) << old);
            self.multi &= !(((was & was.wrapping_sub(1) == 0) as u64) << old);
            self.count[p] += 1;
            if SUITS {
                self.suit_showing[self.top_suit[p] as usize & 63] &= !bit;
            }
        }
        self.top[p] = r as u8;
        let now = self.showing[r & 63] | bit;
        self.showing[r & 63] = now;
        self.present |= 1 << (r & 63);
        self.multi |= ((now & now.wrapping_sub(1) != 0) as u64) << (r & 63);
        if SUITS {
            self.top_suit[p] = s as u8;
            self.suit_showing[s & 63] |= bit;
        }
    }
}
