//! Reading deals: one deal a line (two-byte card names read straight from
//! the input buffer when the line is plain), the terminator line last.

use crate::engines::cards::Dealt;
use crate::game::{records, Input, InputError, Mark};

use super::{Deal, Exchange};

impl Exchange {
    /// Where deals end, without reading them (see `Cases::boundary`):
    /// every line that is neither blank nor the terminator is a deal.
    #[inline]
    pub(super) fn deal_boundary(&self, line: &[u8]) -> Mark {
        records::before_case(line, &self.terminator).unwrap_or(Mark::Last)
    }

    /// Reads one deal into `deal`; false at the terminator line.
    pub(super) fn read_deal(&self, input: &mut Input, dealt: &mut Dealt, deal: &mut Deal) -> Result<bool, InputError> {
        // The usual line (two-byte card names, one space apart, `\n`)
        // straight from the input buffer; anything else (a blank line,
        // the terminator, a line to report) is read line by line below.
        let width = (3 * self.hand).saturating_sub(1);
        let quick = input.scan(|s| {
            let number = s.line_number();
            let read = s.line(|s| {
                // `quick_bytes` checks every byte (no line break passes).
                let bytes = s.take_any(width)?;
                deal.cards.clear();
                dealt.start(self.deck.size());
                dealt.quick_bytes(&self.deck, bytes, number, self.hand, &mut deal.cards).then_some(())
            });
            if read.is_some() {
                self.look_ahead(s.rest(), deal);
            }
            read
        });
        if quick.is_some() {
            deal.quick = true;
            return Ok(true);
        }
        (deal.class, deal.ahead) = (None, None);
        let what = || format!("a deal of {} cards", self.hand);
        let Some(line) = records::until_terminator(input, &self.terminator, what)? else {
            return Ok(false);
        };
        deal.cards.clear();
        dealt.start(self.deck.size());
        if dealt.quick_line(&self.deck, &line, self.hand, &mut deal.cards) {
            deal.quick = true;
            return Ok(true);
        }
        deal.start(line.text);
        for (i, tok) in line.tokens().enumerate() {
            if i == self.hand {
                return Err(tok
                    .error(format!("expected {} cards on this line, found more", self.hand))
                    .with_help("one deal per line, cards separated by spaces"));
            }
            let card = dealt.card(&self.deck, &tok, || "this deal".to_string())?;
            deal.push(card, tok.offset - line.offset, tok.text.len());
        }
        if deal.cards.len() < self.hand {
            return Err(line
                .error_at_end(format!("expected {} cards on this line, found {}", self.hand, deal.cards.len()))
                .with_help(format!(
                    "one deal of {} cards per line; the input ends with `{}`",
                    self.hand, self.terminator
                )));
        }
        Ok(true)
    }
}
