//! Reading decks: `lines_per_deck` lines of cards each, no card twice in a
//! deck, the terminator line last.

use crate::engines::cards::Dealt;
use crate::game::{records, Input, InputError, Mark};

use super::{Covering, DeckCase};

/// What reading carries from deck to deck.
#[derive(Debug, Default)]
pub struct DeckReader {
    decks: usize,
    dealt: Dealt,
}

/// Field by field, so that `clone_from` keeps the buffers of [`Dealt`]
/// (a thread copies each part's reader state into its own).
impl Clone for DeckReader {
    fn clone(&self) -> Self {
        DeckReader { decks: self.decks, dealt: self.dealt.clone() }
    }

    fn clone_from(&mut self, source: &Self) {
        self.decks = source.decks;
        self.dealt.clone_from(&source.dealt);
    }
}

impl Covering {
    /// Where decks end, without reading them (see `Cases::boundary`):
    /// after `lines_per_deck` lines that are not blank, the first of which
    /// is not the terminator (`within` counts the deck's lines left after
    /// the one just marked, so that the driver passes over all but the last
    /// of them: see `Cases::ahead`).
    #[inline]
    pub(super) fn deck_boundary(&self, reader: &mut DeckReader, within: &mut u64, line: &[u8]) -> Mark {
        if *within == 0 {
            if let Some(mark) = records::before_case(line, &self.terminator) {
                return mark;
            }
            *within = (self.lines_per_deck as u64).max(1);
        } else if records::is_blank(line) {
            return Mark::Inside;
        }
        *within -= 1;
        if *within > 0 {
            return Mark::Inside;
        }
        reader.decks += 1;
        Mark::Last
    }

    /// Reads one deck (`lines_per_deck` lines of cards, no card twice)
    /// into `deck`; false at the terminator line.
    pub(super) fn read_deck(
        &self,
        input: &mut Input,
        reader: &mut DeckReader,
        deck: &mut DeckCase,
    ) -> Result<bool, InputError> {
        let size = self.deck.size() * self.deck.packs;
        let per_line = size / self.lines_per_deck;
        let number = reader.decks + 1;
        deck.cards.clear();
        reader.dealt.start_packs(self.deck.size(), self.deck.packs);
        let what = || format!("deck {number}");
        for l in 0..self.lines_per_deck {
            let line = if l == 0 {
                match records::until_terminator(input, &self.terminator, || "a deck".to_string())? {
                    Some(line) => line,
                    None => return Ok(false),
                }
            } else {
                input.next_nonblank_or(|input| {
                    input
                        .error_at_end(format!("expected line {} of deck {number}, found end of input", l + 1))
                        .with_help(format!("a deck is {size} cards on {} lines", self.lines_per_deck))
                })?
            };
            if reader.dealt.quick_line(&self.deck, &line, per_line, &mut deck.cards) {
                continue;
            }
            let mut n = 0;
            for tok in line.tokens() {
                if n == per_line {
                    return Err(tok
                        .error(format!("expected {per_line} cards on this line, found more"))
                        .with_help(format!("a deck is {size} cards on {} lines of {per_line}", self.lines_per_deck)));
                }
                deck.cards.push(reader.dealt.card(&self.deck, &tok, what)?);
                n += 1;
            }
            if n < per_line {
                return Err(line
                    .error_at_end(format!("expected {per_line} cards on this line, found {n}"))
                    .with_help(format!("a deck is {size} cards on {} lines of {per_line}", self.lines_per_deck)));
            }
        }
        reader.decks = number;
        deck.number = number;
        Ok(true)
    }
}
