//! Games where no card is exchanged (`exchange: 0`): a deal is paid by the
//! row it forms, so the engine needs no table of every hand. `run` finds
//! each deal's row from the rank-key table (and the suits when a suited row
//! can come first); `analyze` counts the hands by class under suit
//! symmetry (a class: the sorted multiset of the suits' rank masks; its
//! weight: the number of suit relabellings that give distinct hands), so
//! six cards of 52 (20,358,520 hands, over the hand table's limit of 2^24)
//! take about 0.9 million classes. See `hands::for_each_class_while`.

use super::analyze::Acc;
use super::{Exchange, Value};
use crate::engines::cards::Card;

/// Most classes of hands the analysis of a game without exchanges values
/// (about half a minute; six cards of 52 are 962,988).
pub(super) const MAX_STAY_CLASSES: u64 = 1 << 26;

impl Exchange {
    /// Whether the only choice is to keep the hand.
    #[inline]
    pub(super) fn stay_only(&self) -> bool {
        self.allowed == 1
    }

    /// The row of a hand (any order) from the rank-key table, without the
    /// table of every hand.
    pub(super) fn row_by_keys(&self, cards: &[Card]) -> u8 {
        let mut sorted = cards.to_vec();
        sorted.sort_unstable();
        self.eval.row_of_cards(&sorted)
    }

    /// The choice of a deal of a game of several draw rounds, whose payouts
    /// depend on the number of cards exchanged, without exchanges, or whose
    /// ties a variance can break.
    #[cold]
    #[inline(never)]
    pub(super) fn special_best(&self, cards: &[Card], scratch: &mut super::Scratch) -> u32 {
        if let Some(rounds) = &self.rounds {
            return rounds.best(self, cards);
        }
        if self.preference.by_variance() && !self.stay_only() {
            return self.best_by_variance(cards, scratch);
        }
        match &self.split {
            Some(split) => split.best(self, cards, scratch),
            None => 0,
        }
    }

    /// Keeping the hand, its only choice, and its value.
    pub(super) fn stay_option(&self, cards: &[Card], f: &mut dyn FnMut(u32, Value)) {
        let row = self.row_by_keys(cards);
        f(0, self.value(self.pays[row as usize], 0));
    }

    /// `analyze` of a game without exchanges: every class of hands under
    /// suit symmetry, with its weight, paid by its row; at most
    /// [`MAX_STAY_CLASSES`] of them.
    pub(super) fn stay_analysis(&self, progress: &mut dyn FnMut(u64, u64)) -> Result<(Acc, bool), String> {
        self.stay_analysis_within(progress, MAX_STAY_CLASSES)
    }

    fn stay_analysis_within(
        &self,
        progress: &mut dyn FnMut(u64, u64),
        max_classes: u64,
    ) -> Result<(Acc, bool), String> {
        let (h, width) = (self.hand, self.rows.len() + 1);
        let mut acc = Acc::new(h, width);
        let eval = &**self.eval;
        let total = super::combi::binom(self.deck.size() as u64, h as u64);
        let (mut done, mut classes) = (0u128, 0u64);
        super::hands::for_each_class_while(&self.deck, h, &mut |cards, weight| {
            classes += 1;
            if classes > max_classes {
                return false;
            }
            let row = eval.row_of_cards(cards);
            let slot = if row == super::NONE { width - 1 } else { row as usize };
            acc.sum[0] += weight as i128 * self.pays[row as usize] as i128;
            acc.rows[0][slot] += weight as i128;
            acc.deals[0] += weight;
            done += weight;
            if classes.is_multiple_of(1 << 14) {
                progress(done as u64, total as u64);
            }
            true
        });
        if classes > max_classes {
            return Err(format!(
                "more than {max_classes} classes of hands under suit symmetry: the analysis's limit (about half a minute)"
            ));
        }
        progress(total as u64, total as u64);
        Ok((acc, true))
    }
}

#[cfg(test)]
mod tests {
    use crate::check::{Block, Cx};
    use crate::source::Span;

    /// A game without exchanges is analysed class by class, within a
    /// limit: past it, the analysis stops at once and says why, where it
    /// would otherwise run for hours (eight suits of 26 ranks, hands of 8).
    #[test]
    fn classes_past_the_limit_stop_the_analysis() {
        let text = "engine: exchange\ndeck { ranks: A 2 3 4 5 6  suits: a b c d e f }\n\
                    play { hand: 4 entry: 1 exchange: 0 cost: 0 prefer: fewer-cards leftmost }\n\
                    combination \"Four\" { pattern: kind(4) pays: 50 }\n\
                    combination \"Flush\" { pattern: suited(4) pays: 20 }\n\
                    combination \"Nothing\" { pattern: any pays: 0 }\n\
                    output { stay: \"Stay\" exchange: \"Exchange {cards}\" }\n";
        let loaded = crate::load::load_text("t.rules", text, std::path::Path::new(".")).expect("parses");
        let top = Block::new(&loaded.items, "the rule file", Span::new(0, 0, 0));
        let mut cx = Cx::new();
        let Some((game, _)) = super::super::lower::lower(&top, &mut cx) else { panic!("{:?}", cx.diags) };
        let (all, _) = game.stay_analysis_within(&mut |_, _| {}, u64::MAX).expect("within no limit");
        let classes = {
            let mut n = 0u64;
            super::super::hands::for_each_class_while(&game.deck, 4, &mut |_, _| {
                n += 1;
                true
            });
            n
        };
        assert_eq!(all.deals[0], 58_905, "C(36, 4) deals");
        let (within, _) = game.stay_analysis_within(&mut |_, _| {}, classes).expect("at the limit");
        assert_eq!(within.sum, all.sum);
        let err = game.stay_analysis_within(&mut |_, _| {}, classes - 1).map(|_| ()).expect_err("past the limit");
        assert!(err.contains(&format!("more than {} classes", classes - 1)), "{err}");
    }
}
