//! Reading cases: a player's name, M, then the 2M cards of the row (on any
//! number of lines); the terminator line last.

use crate::engines::cards::Dealt;
use crate::game::{records, Input, InputError, Mark};

use super::{Case, Tower};

/// What reading carries from case to case.
#[derive(Debug, Default)]
pub struct Reader {
    cases: i64,
    dealt: Dealt,
}

/// Field by field, so that `clone_from` keeps the buffers of [`Dealt`]
/// (a thread copies each part's reader state into its own).
impl Clone for Reader {
    fn clone(&self) -> Self {
        Reader { cases: self.cases, dealt: self.dealt.clone() }
    }

    fn clone_from(&mut self, source: &Self) {
        self.cases = source.cases;
        self.dealt.clone_from(&source.dealt);
    }
}

impl Tower {
    /// Where cases end, without reading them (see `Cases::boundary`): a
    /// player's line (not the terminator), M, then as many cards as M
    /// gives. `within` is 0 before the player's line, 1 before M, and 2 + n
    /// while n cards are left.
    #[inline]
    pub(super) fn case_boundary(&self, reader: &mut Reader, within: &mut u64, line: &[u8]) -> Mark {
        match *within {
            0 => match records::before_case(line, &self.terminator) {
                Some(mark) => mark,
                None => {
                    *within = 1;
                    Mark::Inside
                }
            },
            1 if records::is_blank(line) => Mark::Inside,
            1 => {
                let (lo, hi) = self.m_range;
                let m = records::digits(line.trim_ascii()).map_or(0, |m| m as usize);
                let need = m * self.deck.suits.len();
                if !(lo..=hi).contains(&m) || need < 2 * self.rules.peaks {
                    // The reader says what is wrong.
                    return Mark::Stop;
                }
                *within = 2 + need as u64;
                Mark::Inside
            }
            w => {
                let (left, n) = (w - 2, records::words(line) as u64);
                if n > left {
                    return Mark::Stop;
                }
                if n < left {
                    *within = w - n;
                    return Mark::Inside;
                }
                reader.cases += 1;
                Mark::Last
            }
        }
    }

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
