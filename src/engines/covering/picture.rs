//! The piles of a deal at its end, as a picture
//! ([`crate::game::picture::Piles`]): the layout's grid, each pile's top
//! card and size, and the card that found no pile on an overflow.

use super::{Card, Covering, Table};
use crate::game::picture::{Card as Shown, Pile, Piles};

impl Covering {
    /// The piles of `table` at the end of a deal whose top cards are `tops`
    /// (in the order the piles were started); `left_over`: the card (its
    /// position from 1, and the card) that needed a pile more.
    pub(super) fn piles_picture(&self, table: &Table, tops: &[Card], left_over: Option<(usize, Card)>) -> Piles {
        let shown =
            |c: Card| Shown { name: self.deck.card_name(c), colour: self.deck.colour(c).unwrap_or(self.deck.suit(c)) };
        let piles = self
            .sizes(table)
            .into_iter()
            .zip(tops)
            .enumerate()
            .map(|(k, (cards, &top))| Pile {
                top: shown(top),
                cards,
                examined: self.pos_of[k & (super::MAX_PILES - 1)] as usize + 1,
            })
            .collect();
        Piles {
            rows: self.layout.rows,
            columns: self.layout.columns,
            piles,
            left_over: left_over.map(|(at, c)| (at, shown(c))),
        }
    }
}
