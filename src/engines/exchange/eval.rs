//! The paying row of a hand, fast: a table by rank key (the multiset of
//! natural ranks, plus one symbol for all wild cards) gives the first row
//! that does not look at suits, and which rows that look at suits could
//! come before it; only those are tried on the cards.

use super::combi::Ranker;
use super::pattern::{is_suited, need, normalize, relaxed, CardMatcher, Part, RankMatcher, Runs};
use super::Row;
use crate::engines::cards::{Card, Deck};

/// No row: the hand forms none of the combinations.
pub(crate) const NONE: u8 = u8::MAX;

/// Most rows that look at suits.
pub(crate) const MAX_SUITED_ROWS: usize = 64;

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
    /// Per row: the cards its parts take; per suited row, the same for
    /// its parts with suits ignored.
    need: Vec<usize>,
    relaxed_need: Vec<usize>,
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
    /// Per rank key: the fewest cards of one suit (wild cards included)
    /// any row of `cands` needs; `u8::MAX` when there is none.
    least_need: Vec<u8>,
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
        let mut e = Eval::rows_only(deck, hand, rows);
        e.tabulate();
        e
    }

    /// Everything but the rank-key tables: the rows and the matchers, for
    /// the row statistics of `check`, which look at a few keys only (see
    /// `KeyMemo`). `Eval::tabulate` completes it.
    pub fn rows_only(deck: &Deck, hand: usize, rows: &[Row]) -> Eval {
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
        let relaxed_parts: Vec<Vec<Part>> = suited_rows.iter().map(|&i| relaxed(&rows[i].parts)).collect();
        let symbols = n_ranks + wild as usize;
        let keys = Ranker::new(symbols, hand);
        let card_sym = (0..deck.size() as Card)
            .map(|c| if deck.is_wild(c) { n_ranks as u8 } else { deck.rank(c) as u8 })
            .collect();
        let card_suit = (0..deck.size() as Card).map(|c| deck.suit(c).min(255) as u8).collect();
        let suit_need = suited_rows
            .iter()
            .map(|&row| parts[row].iter().filter(|p| p.suited).map(Part::size).max().unwrap_or(0) as u8)
            .collect();
        Eval {
            runs,
            n_ranks,
            n_suits: deck.suits.len(),
            wild,
            keys,
            hand,
            need: parts.iter().map(|p| need(p)).collect(),
            relaxed_need: relaxed_parts.iter().map(|p| need(p)).collect(),
            parts,
            natural: rows.iter().map(|r| r.natural).collect(),
            suited: rows.iter().map(|r| is_suited(&r.parts)).collect(),
            suited_rows,
            relaxed: relaxed_parts,
            plain: Vec::new(),
            cands: Vec::new(),
            least_need: Vec::new(),
            suit_need,
            card_sym,
            card_suit,
        }
    }

    /// Fills the rank-key tables: every multiset of `hand` symbols.
    pub fn tabulate(&mut self) {
        let n = self.keys.count(self.hand);
        let mut plain = vec![NONE; n];
        let mut cands = vec![0u64; n];
        let mut counts = vec![0u8; self.n_ranks];
        super::combi::for_each_multiset(self.n_ranks + self.wild as usize, self.hand, &mut |key| {
            let i = self.keys.rank(key);
            (plain[i], cands[i]) = self.key_rows(key, &mut counts);
        });
        let least = |bits: u64| (0..64).filter(|j| bits >> j & 1 == 1).map(|j| self.suit_need[j]).min();
        self.least_need = cands.iter().map(|&bits| least(bits).unwrap_or(u8::MAX)).collect();
        self.plain = plain;
        self.cands = cands;
    }

    /// The table entries of one rank key (sorted symbols): the first row
    /// that does not look at suits, and the bits of the rows that look at
    /// suits that could come before it (see `cands`).
    pub fn key_rows(&self, key: &[u8], counts: &mut [u8]) -> (u8, u64) {
        let w = self.split(key, counts);
        let present = key.iter().filter(|&&s| (s as usize) < self.n_ranks).fold(0u64, |p, &s| p | 1 << s);
        let naturals = key.len() - w;
        let m = self.rank_matcher();
        let mut first = NONE;
        for (i, parts) in self.parts.iter().enumerate() {
            if self.suited[i] {
                continue;
            }
            let w = if self.natural[i] { 0 } else { w };
            if m.matches_with(counts, present, naturals, w, parts, self.need[i]) {
                first = i as u8;
                break;
            }
        }
        let mut bits = 0u64;
        for (j, &row) in self.suited_rows.iter().enumerate() {
            if row as u8 >= first {
                break;
            }
            let w = if self.natural[row] { 0 } else { w };
            if m.matches_with(counts, present, naturals, w, &self.relaxed[j], self.relaxed_need[j]) {
                bits |= 1 << j;
            }
        }
        (first, bits)
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
        let (n, w) = self.key_of_cards(cards, &mut syms);
        let key = self.keys.rank(&syms[..n]);
        if self.cands[key] == 0 {
            return self.plain[key];
        }
        let mut masks = [0u64; 64];
        let masks = &mut masks[..self.n_suits];
        self.suit_masks(cards, masks);
        self.row_with(key, masks, w)
    }

    /// False when no row that looks at suits can come first for a hand of
    /// rank key `key` whose largest suit has `longest` cards, with `w` wild
    /// cards, by one comparison: most hands of most games (in a game
    /// with flushes, every hand of five ranks has a candidate row, but
    /// few have five cards of a suit). True may still be false by
    /// [`Eval::suits_can_matter`].
    #[inline]
    pub fn may_need_suits(&self, key: usize, longest: usize, w: usize) -> bool {
        longest + w >= self.least_need[key] as usize
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
        self.row_by_suits(self.plain[key], self.cands[key], masks, w)
    }

    /// [`Eval::row_with`] given the key's table entries.
    #[inline]
    fn row_by_suits(&self, first: u8, cands: u64, masks: &mut [u64], w: usize) -> u8 {
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

    /// The rank key of a hand of cards (wild cards last) and its number
    /// of wild cards.
    #[inline]
    fn key_of_cards(&self, cards: &[Card], syms: &mut [u8; super::MAX_HAND]) -> (usize, usize) {
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
        (n + w, w)
    }

    /// The natural cards of a hand by suit: `masks[s]` gets the ranks of
    /// suit s.
    #[inline]
    fn suit_masks(&self, cards: &[Card], masks: &mut [u64]) {
        for &c in cards {
            let s = self.card_sym[c as usize];
            if (s as usize) < self.n_ranks {
                masks[self.card_suit[c as usize] as usize] |= 1 << s;
            }
        }
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

/// The rank-key table entries of an [`Eval`] without its tables, each
/// computed when first asked for: `check` looks at a few keys only
/// (its scans stop once every row has paid on some hand).
#[derive(Debug)]
pub(crate) struct KeyMemo {
    /// Per key, when there are at most [`DENSE_MEMO`]: the first row plus
    /// one (0 while unknown) and the candidate bits. Zeroed allocations:
    /// only the pages of the keys seen are touched.
    dense: Option<(Vec<u16>, Vec<u64>)>,
    sparse: std::collections::HashMap<usize, (u8, u64)>,
    counts: Vec<u8>,
}

/// Most keys a [`KeyMemo`] holds in flat arrays.
const DENSE_MEMO: usize = 1 << 22;

impl KeyMemo {
    pub(crate) fn new(eval: &Eval) -> KeyMemo {
        let n = eval.keys.count(eval.hand);
        KeyMemo {
            dense: (n <= DENSE_MEMO).then(|| (vec![0; n], vec![0; n])),
            sparse: std::collections::HashMap::new(),
            counts: vec![0; eval.n_ranks],
        }
    }

    /// The table entries of a rank key (sorted symbols).
    pub(crate) fn key_rows(&mut self, eval: &Eval, key: &[u8]) -> (u8, u64) {
        let i = eval.keys.rank(key);
        let counts = &mut self.counts;
        match &mut self.dense {
            Some((plain, cands)) => {
                if plain[i] == 0 {
                    let (p, c) = eval.key_rows(key, counts);
                    plain[i] = p as u16 + 1;
                    cands[i] = c;
                }
                ((plain[i] - 1) as u8, cands[i])
            }
            None => *self.sparse.entry(i).or_insert_with(|| eval.key_rows(key, counts)),
        }
    }

    /// [`Eval::row_of_cards`] from the memo.
    pub(crate) fn row_of_cards(&mut self, eval: &Eval, cards: &[Card]) -> u8 {
        let mut syms = [0u8; super::MAX_HAND];
        let (n, w) = eval.key_of_cards(cards, &mut syms);
        let (first, cands) = self.key_rows(eval, &syms[..n]);
        if cands == 0 {
            return first;
        }
        let mut masks = [0u64; 64];
        let masks = &mut masks[..eval.n_suits];
        eval.suit_masks(cards, masks);
        eval.row_by_suits(first, cands, masks, w)
    }
}
