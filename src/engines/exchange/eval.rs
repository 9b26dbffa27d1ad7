//! The paying row of a hand, fast: a table by rank key (the multiset of
//! natural ranks, plus one symbol for all wild cards) gives the first row
//! that does not look at suits, and which rows that look at suits could
//! come before it; only those are tried on the cards.

use super::combi::Ranker;
use super::pattern::{is_suited, normalize, relaxed, CardMatcher, Part, RankMatcher, Runs};
use super::Row;
use crate::engines::cards::{Card, Deck};

/// No row: the hand forms none of the combinations.
pub const NONE: u8 = u8::MAX;

/// Most rows that look at suits.
pub const MAX_SUITED_ROWS: usize = 64;

#[derive(Debug)]
pub struct Eval {
    pub runs: Runs,
    pub n_ranks: usize,
    pub n_suits: usize,
    /// Whether the deck has wild cards: rank keys then have one more
    /// symbol, `n_ranks`, for every wild card.
    pub wild: bool,
    /// Numbers rank keys (multisets of `hand` symbols).
    pub keys: Ranker,
    pub hand: usize,
    /// Per row: the parts in matching order, and whether wild cards stand in.
    parts: Vec<Vec<Part>>,
    natural: Vec<bool>,
    /// Per row: whether it looks at suits.
    suited: Vec<bool>,
    /// The rows that look at suits, in table order, and their parts with
    /// suits ignored.
    pub suited_rows: Vec<usize>,
    relaxed: Vec<Vec<Part>>,
    /// Per rank key: the first row that does not look at suits.
    plain: Vec<u8>,
    /// Per rank key: bit i set when suited row i comes before `plain` and
    /// its pattern with suits ignored is formed.
    cands: Vec<u64>,
    /// Per suited row: the size of its largest suited part (a hand needs
    /// that many cards of one suit, wild cards included).
    suit_need: Vec<u8>,
    /// Per card: its symbol in rank keys (its rank, or `n_ranks` when wild)
    /// and its suit.
    card_sym: Vec<u8>,
    card_suit: Vec<u8>,
}

impl Eval {
    /// Whether the card-level path is needed: a row looks at suits, or the
    /// deck has wild cards.
    pub fn needs_cards(deck: &Deck, rows: &[Row]) -> bool {
        rows.iter().any(|r| is_suited(&r.parts)) || deck.wild.iter().any(|&w| w) || !deck.jokers.is_empty()
    }

    /// The symbols of rank keys for this deck.
    pub fn symbols(deck: &Deck) -> usize {
        let wild = deck.wild.iter().any(|&w| w) || !deck.jokers.is_empty();
        deck.ranks.len() + wild as usize
    }

    /// Builds the rank-key tables (the caller checked their size).
    pub fn new(deck: &Deck, hand: usize, rows: &[Row]) -> Eval {
        let n_ranks = deck.ranks.len();
        let wild = Eval::symbols(deck) > n_ranks;
        let longest = rows
            .iter()
            .flat_map(|r| r.parts.iter())
            .map(|p| if let super::pattern::Shape::Run(n) = p.shape { n } else { 0 })
            .max()
            .unwrap_or(0);
        let runs = Runs::new(deck, longest);
        let parts: Vec<Vec<Part>> = rows
            .iter()
            .map(|r| {
                let mut p = r.parts.clone();
                normalize(&mut p);
                p
            })
            .collect();
        let suited_rows: Vec<usize> = (0..rows.len()).filter(|&i| is_suited(&rows[i].parts)).collect();
        let relaxed_parts = suited_rows.iter().map(|&i| relaxed(&rows[i].parts)).collect();
        let symbols = n_ranks + wild as usize;
        let keys = Ranker::new(symbols, hand);
        let card_sym = (0..deck.size() as Card)
            .map(|c| if deck.is_wild(c) { n_ranks as u8 } else { deck.rank(c) as u8 })
            .collect();
        let card_suit = (0..deck.size() as Card).map(|c| deck.suit(c).min(255) as u8).collect();
        let mut e = Eval {
            runs,
            n_ranks,
            n_suits: deck.suits.len(),
            wild,
            keys,
            hand,
            parts,
            natural: rows.iter().map(|r| r.natural).collect(),
            suited: rows.iter().map(|r| is_suited(&r.parts)).collect(),
            suited_rows,
            relaxed: relaxed_parts,
            plain: Vec::new(),
            cands: Vec::new(),
            suit_need: Vec::new(),
            card_sym,
            card_suit,
        };
        let n = e.keys.count(hand);
        let mut plain = vec![NONE; n];
        let mut cands = vec![0u64; n];
        let mut counts = vec![0u8; n_ranks];
        super::combi::for_each_multiset(symbols, hand, &mut |key| {
            let w = e.split(key, &mut counts);
            let i = e.keys.rank(key);
            let first = e.first_plain(&mut counts, w);
            plain[i] = first;
            let mut bits = 0u64;
            for (j, &row) in e.suited_rows.iter().enumerate() {
                if row as u8 >= first {
                    break;
                }
                let w = if e.natural[row] { 0 } else { w };
                if e.rank_matcher().matches(&mut counts, w, &e.relaxed[j]) {
                    bits |= 1 << j;
                }
            }
            cands[i] = bits;
        });
        e.plain = plain;
        e.cands = cands;
        e.suit_need = e
            .suited_rows
            .iter()
            .map(|&row| e.parts[row].iter().filter(|p| p.suited).map(Part::size).max().unwrap_or(0) as u8)
            .collect();
        e
    }

    pub fn rank_matcher(&self) -> RankMatcher<'_> {
        RankMatcher { runs: &self.runs }
    }

    /// Rank counts of a key's natural symbols into `counts`; returns the
    /// number of wild cards.
    pub fn split(&self, key: &[u8], counts: &mut [u8]) -> usize {
        counts.fill(0);
        let mut w = 0;
        for &s in key {
            if s as usize == self.n_ranks {
                w += 1;
            } else {
                counts[s as usize] += 1;
            }
        }
        w
    }

    /// The first row that does not look at suits formed by these counts.
    fn first_plain(&self, counts: &mut [u8], wild: usize) -> u8 {
        let m = self.rank_matcher();
        for (i, parts) in self.parts.iter().enumerate() {
            if self.suited[i] {
                continue;
            }
            let w = if self.natural[i] { 0 } else { wild };
            if m.matches(counts, w, parts) {
                return i as u8;
            }
        }
        NONE
    }

    /// Whether row `row` is formed by these counts (a row that does not
    /// look at suits), for statistics.
    pub fn forms_by_rank(&self, row: usize, counts: &mut [u8], wild: usize) -> bool {
        let w = if self.natural[row] { 0 } else { wild };
        self.rank_matcher().matches(counts, w, &self.parts[row])
    }

    /// Whether row `row` is formed by the cards (suit masks and wild cards).
    pub fn forms_by_cards(&self, row: usize, masks: &mut [u64], wild: usize) -> bool {
        let rm = self.rank_matcher();
        let cm = CardMatcher { ranks: &rm, n_ranks: self.n_ranks };
        let w = if self.natural[row] { 0 } else { wild };
        cm.matches(masks, w, &self.parts[row])
    }

    /// The paying row of a hand of ranks only (no suits, no wild cards):
    /// the key is the sorted ranks.
    #[inline]
    pub fn row_of_key(&self, key: usize) -> u8 {
        self.plain[key]
    }

    /// The paying row of a hand of cards sorted by card number.
    #[inline]
    pub fn row_of_cards(&self, cards: &[Card]) -> u8 {
        let mut syms = [0u8; super::MAX_HAND];
        let mut n = 0;
        let mut w = 0;
        for &c in cards {
            let s = self.card_sym[c as usize];
            if s as usize == self.n_ranks {
                w += 1;
            } else {
                syms[n] = s;
                n += 1;
            }
        }
        for s in &mut syms[n..n + w] {
            *s = self.n_ranks as u8;
        }
        let key = self.keys.rank(&syms[..n + w]);
        if self.cands[key] == 0 {
            return self.plain[key];
        }
        let mut masks = [0u64; 64];
        let masks = &mut masks[..self.n_suits];
        for &c in cards {
            let s = self.card_sym[c as usize];
            if (s as usize) < self.n_ranks {
                masks[self.card_suit[c as usize] as usize] |= 1 << s;
            }
        }
        self.row_with(key, masks, w)
    }

    /// Whether rank key `key` leaves a row that looks at suits to try.
    #[inline]
    pub fn needs_suits(&self, key: usize) -> bool {
        self.cands[key] != 0
    }

    /// Whether some row that looks at suits can still come first for a
    /// hand of rank key `key` whose largest suit has `longest` cards, with
    /// `w` wild cards.
    #[inline]
    pub fn suits_can_matter(&self, key: usize, longest: usize, w: usize) -> bool {
        let mut bits = self.cands[key];
        while bits != 0 {
            let j = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let w_row = if self.natural[self.suited_rows[j]] { 0 } else { w };
            if longest + w_row >= self.suit_need[j] as usize {
                return true;
            }
        }
        false
    }

    /// The paying row of a hand of rank key `key`, with its natural cards
    /// by suit in `masks` and `w` wild cards.
    #[inline]
    pub fn row_with(&self, key: usize, masks: &mut [u64], w: usize) -> u8 {
        let first = self.plain[key];
        let cands = self.cands[key];
        let longest = masks.iter().map(|m| m.count_ones()).max().unwrap_or(0) as usize;
        let mut bits = cands;
        while bits != 0 {
            let j = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let row = self.suited_rows[j];
            let w_row = if self.natural[row] { 0 } else { w };
            if longest + w_row < self.suit_need[j] as usize {
                continue;
            }
            if self.forms_by_cards(row, masks, w) {
                return row as u8;
            }
        }
        first
    }

    /// The symbol of a card in rank keys.
    #[inline]
    pub fn symbol(&self, card: Card) -> u8 {
        self.card_sym[card as usize]
    }

    #[inline]
    pub fn suit_of(&self, card: Card) -> u8 {
        self.card_suit[card as usize]
    }
}
