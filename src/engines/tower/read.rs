//! Reading cases: a player's name, M, then the 2M cards of the row (on any
//! number of lines); the terminator line last.

use crate::engines::cards::Dealt;
use crate::game::{records, Input, InputError};

use super::{Case, Tower};

/// What reading carries from case to case.
#[derive(Debug, Clone, Default)]
pub struct Reader {
    cases: i64,
    dealt: Dealt,
}

impl Tower {
    /// Reads the next case: a player's name, M, then 2M cards (on any
    /// number of lines); false at the terminator line.
    pub(super) fn read_case(
        &self,
        input: &mut Input,
        reader: &mut Reader,
        case: &mut Case,
    ) -> Result<bool, InputError> {
        let number = reader.cases + 1;
        let who = format!("`{}`, `{}`", self.players[0], self.players[1]);
        let Some(line) = records::until_terminator(input, &self.terminator, || who.clone())? else {
            return Ok(false);
        };
        let name = line.trimmed();
        let Some(player) = self.players.iter().position(|p| p == name) else {
            return Err(line
                .error(format!("expected {who} or `{}`, found {}", self.terminator, crate::game::input::quote(name)))
                .with_help(
                    crate::diag::suggest::help(name, self.players.iter().map(String::as_str))
                        .unwrap_or_else(|| format!("each case starts with the name of a player: {who}")),
                ));
        };
        case.number = number;
        case.line = line.number;
        case.player = player;
        let (lo, hi) = self.m_range;
        let mline = input.next_nonblank_or(|input| {
            input.error_at_end(format!("expected M (a number from {lo} to {hi}), found end of input"))
        })?;
        let mtext = mline.trimmed();
        let m = match mtext.parse::<usize>() {
            Ok(m) if (lo..=hi).contains(&m) => m,
            _ => {
                return Err(mline.error(format!(
                    "expected M (a number from {lo} to {hi}), found {}",
                    crate::game::input::quote(mtext)
                )))
            }
        };
        let need = m * self.deck.suits.len();
        if need < 2 * self.rules.peaks {
            return Err(mline
                .error(format!("M = {m} gives {need} cards, fewer than the {} the peaks need", 2 * self.rules.peaks)));
        }
        case.deck.clear();
        reader.dealt.start(self.deck.size());
        let what = || format!("case {number}");
        while case.deck.len() < need {
            let left = need - case.deck.len();
            let l = input.next_nonblank_or(|input| {
                input
                    .error_at_end(format!("expected {left} more cards of case {number}, found end of input"))
                    .with_help(format!("a deck of M = {m} has {need} cards"))
            })?;
            for tok in l.tokens() {
                if case.deck.len() == need {
                    return Err(tok.error(format!("expected {need} cards for M = {m}, found more")));
                }
                if self.deck.parse_card(tok.text).is_none()
                    && (self.players.iter().any(|p| p == tok.text) || tok.text == self.terminator)
                {
                    let left = need - case.deck.len();
                    return Err(
                        tok.error(format!("expected {left} more cards of case {number}, found {}", tok.quoted()))
                    );
                }
                let card = reader.dealt.card(&self.deck, &tok, what)?;
                if self.deck.rank(card) >= m {
                    return Err(tok
                        .error(format!("card {} is not in a deck of M = {m}", tok.quoted()))
                        .with_help(format!("ranks go up to {}", self.deck.ranks[m - 1])));
                }
                case.deck.push(card as u8);
            }
        }
        reader.cases = number;
        Ok(true)
    }
}
