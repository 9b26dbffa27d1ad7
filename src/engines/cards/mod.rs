//! The card and deck model: ranks, suits, values and rank adjacency all come
//! from the rule file's `deck` section. Cards are numbered
//! `rank * suits + suit`; engines see only these numbers.

pub mod lower;

use std::collections::HashMap;

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
    /// Colour names, and the colour of each suit (empty: no colours).
    pub colours: Vec<String>,
    pub suit_colour: Vec<usize>,
    /// Two-byte card tokens, indexed by `b0 << 8 | b1` (u16::MAX: none).
    short: Vec<u16>,
    /// Tokens of other lengths.
    long: HashMap<String, u16>,
    /// Rank of each card (saves a division in hot loops).
    rank_of: Vec<u8>,
}

/// A card number: `rank * suits + suit`.
pub type Card = u16;

impl Deck {
    pub fn new(ranks: Vec<String>, suits: Vec<String>, values: Vec<i64>, wrap: bool) -> Deck {
        let mut short = vec![u16::MAX; 1 << 16];
        let mut long = HashMap::new();
        for (r, rank) in ranks.iter().enumerate() {
            for (s, suit) in suits.iter().enumerate() {
                let card = (r * suits.len() + s) as u16;
                let name = format!("{rank}{suit}");
                match name.as_bytes() {
                    [a, b] => short[(*a as usize) << 8 | *b as usize] = card,
                    _ => {
                        long.insert(name, card);
                    }
                }
            }
        }
        let rank_of = (0..ranks.len() * suits.len()).map(|c| (c / suits.len().max(1)) as u8).collect();
        Deck { ranks, suits, values, wrap, colours: Vec::new(), suit_colour: Vec::new(), short, long, rank_of }
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

    pub fn size(&self) -> usize {
        self.ranks.len() * self.suits.len()
    }

    #[inline]
    pub fn rank(&self, card: Card) -> usize {
        self.rank_of[card as usize] as usize
    }

    pub fn suit(&self, card: Card) -> usize {
        card as usize % self.suits.len()
    }

    /// The card a token names (`TC`, `10S`, `13R`), if any.
    pub fn parse_card(&self, token: &str) -> Option<Card> {
        match token.as_bytes() {
            [a, b] => Some(self.short[(*a as usize) << 8 | *b as usize]).filter(|&c| c != u16::MAX),
            _ => self.long.get(token).copied(),
        }
    }

    /// The rank after `rank`, if any (wrapping when the deck wraps).
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
        format!("{}{}", self.ranks[self.rank(card)], self.suits[self.suit(card)])
    }

    /// Why `token` is not a card, in the deck's terms.
    pub fn explain_bad_card(&self, token: &str) -> String {
        let rank = self.ranks.iter().filter(|r| token.starts_with(r.as_str())).max_by_key(|r| r.len());
        match rank {
            Some(r) => format!(
                "expected a card, found `{token}`: `{}` is not a suit (suits: {})",
                &token[r.len()..],
                self.suits.join(" ")
            ),
            None => format!(
                "expected a card, found `{token}`: it does not start with a rank (ranks: {})",
                self.ranks.join(" ")
            ),
        }
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
