//! Explanations of the covering engine: the groups covered (which cards,
//! by which), the piles used, and on an overflow the exposed cards that
//! formed no group.

use super::{Card, Covering, DeckCase, Step, Table};
use crate::game::picture::Picture;
use crate::game::Explanation;

impl Covering {
    /// Plays one deck and explains its output line.
    pub(super) fn explain_deck(&self, deck: &DeckCase, table: &mut Table) -> Explanation {
        let deck_no = deck.number;
        let name = |c: Card| self.deck.card_name(c);
        // The card on top of each pile, and each group's coverings.
        let mut tops: Vec<Card> = Vec::new();
        let mut covers = vec![0usize; self.groups.len()];
        let mut values = Vec::new();
        let ended = self.play_on(table, &deck.cards, &mut |s| match s {
            Step::Pile { card } => tops.push(deck.cards[card]),
            Step::Cover { group, piles, first } => {
                // Positions in scan order, as piles in the order started.
                let piles: Vec<usize> = piles.iter().map(|&p| self.pile_at(p)).collect();
                let by = &deck.cards[first.min(deck.cards.len())..(first + piles.len()).min(deck.cards.len())];
                let under: Vec<String> = piles.iter().map(|&p| name(tops[p])).collect();
                let over: Vec<String> = by.iter().map(|&c| name(c)).collect();
                let what = if over.is_empty() {
                    "the deck ran out".to_string()
                } else {
                    format!("covered by {}", over.join(" "))
                };
                let at = if by.len() > 1 {
                    format!("cards {}-{}", first + 1, first + by.len())
                } else {
                    format!("card {}", first + 1)
                };
                let on: Vec<String> = piles.iter().map(|p| (p + 1).to_string()).collect();
                covers[group] += 1;
                values.push((
                    at,
                    format!("`{}` {} on piles {}: {what}", self.spans.names[group], under.join(" "), on.join(" ")),
                ));
                for (&p, &c) in piles.iter().zip(by) {
                    tops[p] = c;
                }
            }
        });
        let mut line = Vec::new();
        let mut e = Explanation::default();
        match ended {
            None => {
                let sizes = table.piles();
                self.line(&mut line, deck.number, table, None);
                e.summary = format!(
                    "deck {deck_no}: every card was dealt, on {} of the {} piles; {} groups were covered",
                    sizes,
                    self.piles,
                    covers.iter().sum::<usize>()
                );
                e.rules.push((self.spans.piles, format!("{sizes} of {} piles used", self.piles)));
            }
            Some(card) => {
                self.line(&mut line, deck.number, table, Some(card));
                e.summary = format!(
                    "deck {deck_no}: card {card} ({}) needs a new pile, but all {} are in use and no group lies exposed",
                    name(deck.cards[card - 1]),
                    self.piles
                );
                e.rules.push((self.spans.piles, format!("all {} piles in use at card {card}", self.piles)));
                values.push(("exposed".to_string(), tops.iter().map(|&c| name(c)).collect::<Vec<_>>().join(" ")));
            }
        }
        for (g, &n) in covers.iter().enumerate() {
            let says = match n {
                0 => "never covered".to_string(),
                1 => "covered once".to_string(),
                _ => format!("covered {n} times"),
            };
            e.rules.push((self.spans.groups[g], says));
        }
        let left_over = ended.map(|card| (card, deck.cards[card - 1]));
        e.picture = Some(Picture::Piles(self.piles_picture(table, &tops, left_over)));
        let template = if ended.is_none() { self.spans.played } else { self.spans.overflow };
        e.rules.push((template, "writes the line".to_string()));
        e.output = String::from_utf8_lossy(&line).trim_end().to_string();
        e.values = values;
        e
    }
}
