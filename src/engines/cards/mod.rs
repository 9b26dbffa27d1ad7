//! The card and deck model: ranks, suits, values and rank adjacency all come
//! from the rule file's `deck` section. Cards are numbered
//! `rank * suits + suit`; engines see only these numbers.

pub(crate) mod lower;
pub(crate) mod schema;

use std::collections::HashMap;

use crate::engines::lines::LineBytes;
use crate::game::input::{quote, InputError, Line, Token};

#[derive(Debug, Clone)]
pub struct Deck {
    /// Rank names as written in cards (`A`, `2`, ..., `T` or `1`..`13`).
    pub ranks: Vec<String>,
    /// Suit names as written in cards (`S`, `H`, ... or `R`, `B`).
    pub suits: Vec<String>,
    /// Face value of each rank (default: 1, 2, 3, ... in rank order).
    pub values: Vec<i64>,
    /// Whether the last rank is followed by the first (K-A-2 runs).
    pub wrap: bool,
    /// Whether the first rank also counts after the last one, without
    /// wrapping: T-J-Q-K-A and A-2-3-4-5 are runs, Q-K-A-2 is not (`high:`).
    pub high: bool,
    /// Per rank: whether its cards are wild (`wild:`).
    pub wild: Vec<bool>,
    /// Extra wild cards beyond ranks x suits, by name (`jokers:`); card
    /// numbers `ranks * suits + i`.
    pub jokers: Vec<String>,
    /// Colour names, and the colour of each suit (empty: no colours).
    pub colours: Vec<String>,
    pub suit_colour: Vec<usize>,
    /// How many packs a deal shuffles together: each card is dealt this
    /// many times (`packs:`, 1 unless an engine reads it).
    pub packs: usize,
    /// Two-byte card tokens, indexed by `b0 << 8 | b1` (u16::MAX: none).
    /// No entry has a whitespace byte (no token has one), so a line read
    /// through this table alone holds no line break.
    short: Box<[u16; 1 << 16]>,
    /// Tokens of other lengths.
    long: HashMap<String, u16>,
    /// Rank of each card (saves a division in hot loops), on cache lines
    /// of its own: every thread reads it for every card.
    rank_of: LineBytes,
}

/// A card number: `rank * suits + suit`.
pub type Card = u16;

impl Deck {
    pub fn new(ranks: Vec<String>, suits: Vec<String>, values: Vec<i64>, wrap: bool) -> Deck {
        let mut short: Box<[u16; 1 << 16]> =
            vec![u16::MAX; 1 << 16].into_boxed_slice().try_into().expect("2^16 entries");
        let mut long = HashMap::new();
        for (r, rank) in ranks.iter().enumerate() {
            for (s, suit) in suits.iter().enumerate() {
                let card = (r * suits.len() + s) as u16;
                let name = format!("{rank}{suit}");
                match name.as_bytes() {
                    [a, b] if !a.is_ascii_whitespace() && !b.is_ascii_whitespace() => {
                        short[(*a as usize) << 8 | *b as usize] = card
                    }
                    _ => {
                        long.insert(name, card);
                    }
                }
            }
        }
        let rank_of = LineBytes::new((0..ranks.len() * suits.len()).map(|c| (c / suits.len().max(1)) as u8));
        let wild = vec![false; ranks.len()];
        Deck {
            ranks,
            suits,
            values,
            wrap,
            high: false,
            wild,
            jokers: Vec::new(),
            colours: Vec::new(),
            suit_colour: Vec::new(),
            packs: 1,
            short,
            long,
            rank_of,
        }
    }

    /// Makes the cards of these ranks wild.
    pub fn with_wild(mut self, ranks: &[usize]) -> Deck {
        for &r in ranks {
            self.wild[r] = true;
        }
        self
    }

    /// Adds wild cards named `names` after the ranks x suits cards. The
    /// caller checked that no name is already a card.
    pub fn with_jokers(mut self, names: Vec<String>) -> Deck {
        let first = self.ranks.len() * self.suits.len();
        for (i, name) in names.iter().enumerate() {
            let card = (first + i) as u16;
            match name.as_bytes() {
                [a, b] if !a.is_ascii_whitespace() && !b.is_ascii_whitespace() => {
                    self.short[(*a as usize) << 8 | *b as usize] = card
                }
                _ => {
                    self.long.insert(name.clone(), card);
                }
            }
            self.rank_of.push(self.ranks.len().min(u8::MAX as usize) as u8);
        }
        self.jokers = names;
        self
    }

    /// Deals `packs` packs shuffled together (each card `packs` times).
    pub fn with_packs(mut self, packs: usize) -> Deck {
        self.packs = packs.max(1);
        self
    }

    /// Lets the first rank also follow the last, without wrapping.
    pub fn with_high(mut self) -> Deck {
        self.high = true;
        self
    }

    /// The number of cards that have a rank and a suit (jokers excluded).
    pub fn ranked_size(&self) -> usize {
        self.ranks.len() * self.suits.len()
    }

    /// Whether a card is wild: a joker, or a card of a wild rank.
    pub fn is_wild(&self, card: Card) -> bool {
        (card as usize) >= self.ranked_size() || self.wild[self.rank(card)]
    }

    /// Whether a card is one of the jokers.
    pub fn is_joker(&self, card: Card) -> bool {
        (card as usize) >= self.ranked_size()
    }

    /// Gives each suit a colour: `suit_colour[s]` indexes `colours`.
    pub fn with_colours(mut self, colours: Vec<String>, suit_colour: Vec<usize>) -> Deck {
        self.colours = colours;
        self.suit_colour = suit_colour;
        self
    }

    /// The colour of a card, when the deck has colours.
    pub fn colour(&self, card: Card) -> Option<usize> {
        self.suit_colour.get(self.suit(card)).copied()
    }

    /// Every card: ranks x suits, then the jokers.
    pub fn size(&self) -> usize {
        self.ranks.len() * self.suits.len() + self.jokers.len()
    }

    #[inline]
    pub fn rank(&self, card: Card) -> usize {
        self.rank_of.get(card as usize) as usize
    }

    /// The suit of a card (the suit count for a joker, which has none).
    pub fn suit(&self, card: Card) -> usize {
        if (card as usize) < self.ranked_size() {
            card as usize % self.suits.len()
        } else {
            self.suits.len()
        }
    }

    /// The card a token names (`TC`, `10S`, `13R`), if any.
    #[inline]
    pub fn parse_card(&self, token: &str) -> Option<Card> {
        match token.as_bytes() {
            [a, b] => Some(self.short[(*a as usize) << 8 | *b as usize]).filter(|&c| c != u16::MAX),
            _ => self.long.get(token).copied(),
        }
    }

    /// The rank after `rank`, if any (wrapping when the deck wraps; `high`
    /// is not wrapping: runs that use it are made in the exchange engine).
    pub fn next_rank(&self, rank: usize) -> Option<usize> {
        if rank + 1 < self.ranks.len() {
            Some(rank + 1)
        } else if self.wrap && self.ranks.len() > 1 {
            Some(0)
        } else {
            None
        }
    }

    /// The name of a card as the rule file writes it.
    pub fn card_name(&self, card: Card) -> String {
        if self.is_joker(card) {
            return self.jokers[card as usize - self.ranked_size()].clone();
        }
        format!("{}{}", self.ranks[self.rank(card)], self.suits[self.suit(card)])
    }

    /// Why `token` is not a card, in the deck's terms (and the card it
    /// would be in the other case of letters, when that is one).
    pub fn explain_bad_card(&self, token: &str) -> String {
        let why = self.why_not_a_card(token);
        let other = if token.chars().any(|c| c.is_lowercase()) { token.to_uppercase() } else { token.to_lowercase() };
        match self.parse_card(&other) {
            Some(card) => format!(
                "{why}; did you mean {}? (cards are written as the `deck` writes them)",
                quote(&self.card_name(card))
            ),
            None => why,
        }
    }

    fn why_not_a_card(&self, token: &str) -> String {
        let rank = self.ranks.iter().filter(|r| token.starts_with(r.as_str())).max_by_key(|r| r.len());
        match rank {
            Some(r) => format!(
                "expected a card, found {}: {} is not a suit (suits: {})",
                quote(token),
                quote(&token[r.len()..]),
                self.suits.join(" ")
            ),
            None => format!(
                "expected a card, found {}: it does not start with a rank (ranks: {})",
                quote(token),
                self.ranks.join(" ")
            ),
        }
    }

    /// The card a token names, or the input error saying why it is none.
    pub fn card(&self, tok: &Token) -> Result<Card, InputError> {
        self.parse_card(tok.text).ok_or_else(|| tok.error(self.explain_bad_card(tok.text)))
    }
}

/// Most cards on a line read by [`Dealt::quick_line`] (longer lines are
/// read token by token).
const QUICK: usize = 16;

/// The most cards a line of [`Dealt::quick_bytes`] reads with code of its
/// own for its number.
const UNROLLED: usize = 8;

/// The cards of a line of `n` (1 to [`QUICK`]) two-byte card names, each
/// followed by one space but the last, each card once, all below 64: into
/// `cards`, and their bits. Branch-free: a deal's cards are random.
#[inline(always)]
fn quick_cards(short: &[u16; 1 << 16], b: &[u8], n: usize, cards: &mut [Card; QUICK]) -> Option<u64> {
    if n == 0 || n > QUICK || b.len() != 3 * n - 1 {
        return None;
    }
    // A separator that is not a space; the bits of every card number
    // together (a card above 63, or u16::MAX: no card, sets a bit above
    // 63); the cards' bits, and those seen twice.
    let (mut bad, mut high, mut bits, mut twice) = (false, 0 as Card, 0u64, 0u64);
    let mut card = |k: usize, name: [u8; 2]| {
        let c = short[usize::from(u16::from_be_bytes(name))];
        cards[k] = c;
        high |= c;
        let bit = 1u64 << (c & 63);
        twice |= bits & bit;
        bits |= bit;
    };
    if n <= UNROLLED {
        // `n` is a constant here (see `quick_bytes`): the loop unrolled,
        // every index known and checked once.
        for i in 0..n {
            if i > 0 {
                bad |= b[3 * i - 1] != b' ';
            }
            card(i, [b[3 * i], b[3 * i + 1]]);
        }
    } else {
        // Every card but the last with its separator, three bytes at a
        // time (no index to check against the line's length; Shuffling
        // Patience's lines of 13 cards: 1.6 % fewer instructions in all).
        let (body, last) = b.split_at(3 * (n - 1));
        for (k, name) in body.chunks_exact(3).enumerate() {
            bad |= name[2] != b' ';
            card(k, [name[0], name[1]]);
        }
        card(n - 1, [last[0], last[1]]);
    }
    (!bad && high < 64 && twice == 0).then_some(bits)
}

/// The cards of a line of five two-byte card names (as
/// [`Dealt::quick_bytes`] reads them), without recording them: a look at
/// the next deal before it is read.
#[inline(always)]
pub fn peek_five(deck: &Deck, b: &[u8]) -> Option<[Card; 5]> {
    let mut cards = [0 as Card; QUICK];
    quick_cards(&deck.short, b.get(..14)?, 5, &mut cards)?;
    Some([cards[0], cards[1], cards[2], cards[3], cards[4]])
}

/// The cards of one case seen so far, so that a card dealt twice is an
/// input error (one check and one message for every engine that deals).
#[derive(Debug, Default)]
pub struct Dealt {
    /// Per card: the case number it was last dealt in (1-based; 0: never),
    /// and its line and byte offset in that line.
    seen: Vec<(u32, u32, u32)>,
    case: u32,
    /// The cards dealt in this case as bits (decks of at most 128 cards),
    /// for [`Dealt::quick_line`].
    bits: u128,
    /// Lines read by [`Dealt::quick_line`] in this case and not yet in
    /// `seen`: their line numbers and where their cards start in the
    /// case's cards (card i of a line at byte 3i).
    quick: Vec<(u32, u32)>,
    /// How many times a card may be dealt in a case (the packs shuffled
    /// together; 0 or 1: once), and, when more than once, how many times
    /// each card has been in this case (valid where `seen` is this case).
    copies: u32,
    times: Vec<u32>,
}

/// Field by field, so that `clone_from` keeps the buffers it copies into
/// (parts run on a thread copy their reader state into the thread's own).
impl Clone for Dealt {
    fn clone(&self) -> Self {
        let mut copy = Dealt::default();
        copy.clone_from(self);
        copy
    }

    fn clone_from(&mut self, source: &Self) {
        self.seen.clone_from(&source.seen);
        self.case = source.case;
        self.bits = source.bits;
        self.quick.clone_from(&source.quick);
        self.copies = source.copies;
        self.times.clone_from(&source.times);
    }
}

impl Dealt {
    /// Starts a new case over a deck of `size` cards.
    pub fn start(&mut self, size: usize) {
        self.start_packs(size, 1);
    }

    /// Starts a new case over `packs` packs of `size` cards shuffled
    /// together: each card may be dealt up to `packs` times.
    pub fn start_packs(&mut self, size: usize, packs: usize) {
        if self.seen.len() != size || self.case == u32::MAX {
            self.seen = vec![(0, 0, 0); size];
            self.case = 0;
        }
        self.copies = packs.min(u32::MAX as usize) as u32;
        if self.copies > 1 && self.times.len() != size {
            self.times = vec![0; size];
        }
        self.case += 1;
        self.bits = 0;
        self.quick.clear();
    }

    /// Reads a line written the usual way, `n` two-byte card names each
    /// followed by one space but the last, none dealt yet in this case:
    /// appends its cards to `out` and returns true. Returns false for
    /// anything else (`out` unchanged): the caller then reads the line
    /// token by token with [`Dealt::card`], which finds and reports the
    /// error. A line accepted holds no whitespace but its separators
    /// (so no line break). `out` holds the cards of the case read so far (those of the
    /// earlier quick lines are taken from it), and every line of a case
    /// goes through `quick_line` first.
    #[inline]
    pub fn quick_line(&mut self, deck: &Deck, line: &Line, n: usize, out: &mut Vec<Card>) -> bool {
        self.quick_bytes(deck, line.text.as_bytes(), line.number, n, out)
    }

    /// [`Dealt::quick_line`] on the bytes of line `number` (taken straight
    /// from the input by [`crate::game::Scan`]).
    #[inline(always)]
    pub fn quick_bytes(&mut self, deck: &Deck, b: &[u8], number: usize, n: usize, out: &mut Vec<Card>) -> bool {
        if self.copies > 1 {
            // Several packs: every card is counted one by one.
            return false;
        }
        let mut cards = [0 as Card; QUICK];
        // Each usual number of cards with its own code (the loop unrolled).
        let new = match n {
            2 => quick_cards(&deck.short, b, 2, &mut cards),
            3 => quick_cards(&deck.short, b, 3, &mut cards),
            4 => quick_cards(&deck.short, b, 4, &mut cards),
            5 => quick_cards(&deck.short, b, 5, &mut cards),
            6 => quick_cards(&deck.short, b, 6, &mut cards),
            7 => quick_cards(&deck.short, b, 7, &mut cards),
            8 => quick_cards(&deck.short, b, 8, &mut cards),
            _ => quick_cards(&deck.short, b, n, &mut cards),
        };
        let old = self.bits as u64;
        match new {
            Some(new) if new & old == 0 && self.seen.len() <= 64 => {
                self.bits = (old | new) as u128;
                let at = out.len();
                self.quick.push((number as u32, at as u32));
                // The whole array in one fixed-size copy (no call), cut to length.
                out.extend_from_slice(&cards);
                out.truncate(at + n);
                true
            }
            _ => {
                self.settle(out);
                false
            }
        }
    }

    /// Records the cards of the lines read by [`Dealt::quick_line`] (in
    /// `cards`, the case's cards so far) one by one, for the messages of
    /// [`Dealt::card`].
    #[cold]
    #[inline(never)]
    fn settle(&mut self, cards: &[Card]) {
        if self.quick.is_empty() {
            return;
        }
        for k in 0..self.quick.len() {
            let (line, start) = self.quick[k];
            let end = self.quick.get(k + 1).map_or(cards.len(), |q| q.1 as usize);
            for (i, &c) in cards[start as usize..end].iter().enumerate() {
                self.seen[c as usize] = (self.case, line, 3 * i as u32);
            }
        }
        self.quick.clear();
    }

    /// Reads the card of `tok`, which must not have been dealt yet in this
    /// case (`what`: "this deal", "deck 3"; called for an error only).
    #[inline]
    pub fn card(&mut self, deck: &Deck, tok: &Token, what: impl FnOnce() -> String) -> Result<Card, InputError> {
        match deck.parse_card(tok.text) {
            Some(card) => self.mark(card, tok, what),
            None => Err(Self::not_a_card(deck, tok)),
        }
    }

    /// Marks `card`, read from `tok`, as dealt: an error when it already
    /// was in this case.
    #[inline(always)]
    fn mark(&mut self, card: Card, tok: &Token, what: impl FnOnce() -> String) -> Result<Card, InputError> {
        debug_assert!(self.quick.is_empty(), "a quick line left unsettled");
        self.bits |= 1u128.checked_shl(card as u32).unwrap_or(0);
        let at = (tok.offset - tok.line.offset) as u32;
        let slot = &mut self.seen[card as usize];
        if self.copies > 1 {
            let times = &mut self.times[card as usize];
            *times = if slot.0 == self.case { *times + 1 } else { 1 };
            if *times > self.copies {
                return Err(Self::too_often(*slot, tok, what(), self.copies));
            }
        } else if slot.0 == self.case {
            return Err(Self::twice(*slot, tok, what()));
        }
        *slot = (self.case, tok.line.number as u32, at);
        Ok(card)
    }

    /// The error of a card dealt more often than the packs hold; `last` is
    /// where it was last dealt.
    #[cold]
    #[inline(never)]
    fn too_often(last: (u32, u32, u32), tok: &Token, what: String, copies: u32) -> InputError {
        let (line, at) = (last.1 as usize, last.2 as usize);
        let column = if line == tok.line.number {
            tok.line.text.get(..at).map_or(at, |s| s.chars().count()) + 1
        } else {
            at + 1
        };
        tok.error(format!("card {} appears {} times in {}", tok.quoted(), copies + 1, what)).with_help(format!(
            "a deck of {copies} packs holds each card {copies} times; it was last dealt at line {line}, column {column}"
        ))
    }

    #[cold]
    #[inline(never)]
    fn not_a_card(deck: &Deck, tok: &Token) -> InputError {
        tok.error(deck.explain_bad_card(tok.text))
    }

    /// The error of a card dealt twice; `first` is where it was first.
    #[cold]
    #[inline(never)]
    fn twice(first: (u32, u32, u32), tok: &Token, what: String) -> InputError {
        let (line, at) = (first.1 as usize, first.2 as usize);
        // The column in characters when the first one is on this line;
        // elsewhere the line is gone, and bytes are counted.
        let column = if line == tok.line.number {
            tok.line.text.get(..at).map_or(at, |s| s.chars().count()) + 1
        } else {
            at + 1
        };
        tok.error(format!("card {} appears twice in {}", tok.quoted(), what))
            .with_help(format!("it was already dealt at line {line}, column {column}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deck(ranks: &str, suits: &str, wrap: bool) -> Deck {
        let r: Vec<String> = ranks.split(' ').map(String::from).collect();
        let n = r.len() as i64;
        Deck::new(r, suits.split(' ').map(String::from).collect(), (1..=n).collect(), wrap)
    }

    /// Reads `lines` as one case, each line through `quick_line` first
    /// (when `quick`) and token by token otherwise: the cards, or the error
    /// message and its help.
    fn read_case(d: &Deck, text: &str, quick: bool) -> Result<Vec<Card>, String> {
        read_lines_of(d, text, 4, quick)
    }

    /// [`read_case`] with `per_line` cards a quick line.
    fn read_lines_of(d: &Deck, text: &str, per_line: usize, quick: bool) -> Result<Vec<Card>, String> {
        let mut input = crate::game::Input::from_text(text);
        let mut dealt = Dealt::default();
        dealt.start(d.size());
        let mut cards = Vec::new();
        while let Some(line) = input.next_line().unwrap() {
            if quick && dealt.quick_line(d, &line, per_line, &mut cards) {
                continue;
            }
            for tok in line.tokens() {
                let c = dealt.card(d, &tok, || "this deck".to_string()).map_err(|e| {
                    format!("{} at {}:{} ({})", e.message, e.line, e.column, e.help.clone().unwrap_or_default())
                })?;
                cards.push(c);
            }
        }
        Ok(cards)
    }

    #[test]
    fn quick_lines_read_and_report_as_token_by_token_reading_does() {
        let d = deck("A 2 3 4 5 6 7 8 9 T J Q K", "S H D C", false);
        for text in [
            "AS 2H 3D 4C\n5S 6H 7D 8C\n",
            "AS 2H 3D 4C\n5S 6H 2H 8C\n",
            "AS 2H 3D 4C\n5S  6H 7D 8C\n9S 6H TD JC\n",
            "AS 2H 3D 4C\n5S 6H 7D 8C\n9S TS 4C JC\n",
            "AS 2H 3D 4C\n5S 6H 7D 8C\n9S TS 4X JC\n",
            "AS 2H 3D\n5S 6H 7D 8C 9C\nAS",
            "AS\t2H 3D 4C\n5S 6H 7D 3D\n",
            "AS 2H 3D AS\n",
        ] {
            assert_eq!(read_case(&d, text, true), read_case(&d, text, false), "{text:?}");
        }
        assert_eq!(read_case(&d, "AS 2H 3D 4C\n", true).unwrap().len(), 4);
    }

    /// Lines longer than the unrolled ones (13 cards, a row of Shuffling
    /// Patience; 1, 9 and 16) read as token by token reading does, with a
    /// bad separator, a card twice or a bad card at every place.
    #[test]
    fn long_quick_lines_read_as_token_by_token_reading_does() {
        let d = deck("A 2 3 4 5 6 7 8 9 T J Q K", "S H D C", false);
        let names: Vec<String> = (0..52).map(|c| format!("{}{}", d.ranks[c % 13], d.suits[c / 13])).collect();
        for per_line in [1, 9, 13, 16] {
            let good: Vec<&str> = names.iter().step_by(3).take(per_line).map(String::as_str).collect();
            let mut texts = vec![good.join(" "), good[..per_line - 1].join(" "), names[..per_line + 1].join(" ")];
            for at in 0..per_line {
                let mut cards = good.clone();
                cards[at] = if at > 0 { cards[0] } else { "XS" };
                texts.push(cards.join(" "));
                texts.push(format!("{}\t{}", good[..at].join(" "), good[at..].join(" ")));
                texts.push(format!("{}  {}", good[..at].join(" "), good[at..].join(" ")));
                texts.push(format!("{},{}", good[..at].join(" "), good[at..].join(" ")));
            }
            for text in texts {
                let text = format!("{text}\n{}\n", names[1]);
                let quick = read_lines_of(&d, &text, per_line, true);
                assert_eq!(quick, read_lines_of(&d, &text, per_line, false), "{text:?}");
            }
            let line = format!("{}\n", good.join(" "));
            assert_eq!(read_lines_of(&d, &line, per_line, true).unwrap().len(), per_line);
        }
    }

    #[test]
    fn cards_parse_by_rank_and_suit_tokens() {
        let d = deck("A 2 3 4 5 6 7 8 9 T J Q K", "S H D C", true);
        let tc = d.parse_card("TC").unwrap();
        assert_eq!((d.ranks[d.rank(tc)].as_str(), d.suits[d.suit(tc)].as_str()), ("T", "C"));
        assert_eq!(d.parse_card("1O"), None);
        assert_eq!(d.next_rank(12), Some(0));
        let h = deck("1 2 3 4 5 6 7 8 9 10 11 12 13", "R B", false);
        assert_eq!(h.card_name(h.parse_card("13B").unwrap()), "13B");
        assert_eq!(h.next_rank(12), None);
    }
}
