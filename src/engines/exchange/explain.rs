//! Explanations of the exchange engine: for each deal, the row that pays
//! now, the expected payout of every choice as an exact fraction, the rows
//! the chosen choice's draws land in, the cost, and the tie-break when
//! several choices are equally good.

use super::{Deal, Exchange, Value};
use crate::game::Explanation;

/// `n/d` (or `n`).
fn frac((n, d): (i128, i128)) -> String {
    if d == 1 {
        format!("{n}")
    } else {
        format!("{n}/{d}")
    }
}

/// "expected payout - cost = expected earning", each exact.
fn show(v: &Value) -> String {
    format!("{} - {} = {}", frac(v.payout()), v.cost, frac(v.fraction()))
}

impl Exchange {
    /// The discard masks that exchange as many cards of each rank as `mask`
    /// (in preference order): the same choice on the rank path. On the card
    /// path, `mask` alone.
    fn same_ranks(&self, cards: &[crate::engines::cards::Card], mask: u32) -> Vec<u32> {
        if self.by_cards() || cards.len() > 12 {
            return vec![mask];
        }
        let rank = |i: usize| self.deck.rank(cards[i]);
        let per_rank = |m: u32| {
            let mut c: Vec<usize> = (0..cards.len()).filter(|&i| m >> i & 1 == 1).map(rank).collect();
            c.sort_unstable();
            c
        };
        let want = per_rank(mask);
        let mut out: Vec<u32> =
            (0..1u32 << cards.len()).filter(|m| m.count_ones() == mask.count_ones() && per_rank(*m) == want).collect();
        out.sort_by(|&a, &b| self.preference.cmp(a, b));
        out
    }

    /// The explanation of one deal's output line.
    pub(super) fn explain_deal(&self, deal: &Deal) -> Explanation {
        let (mask, options) = self.decide(&deal.cards);
        let line_of = |m: u32| -> String {
            let mut b = Vec::new();
            self.render(&mut b, m, deal);
            String::from_utf8_lossy(&b).trim_end().to_string()
        };
        let output = line_of(mask);
        let mut e = Explanation { output, ..Default::default() };
        let best = options.iter().find(|(m, _)| *m == mask).map(|&(_, v)| v);
        let stay = options.iter().find(|(m, _)| *m == 0).map(|&(_, v)| v);
        let now = self.row_of(&deal.cards);
        match now {
            Some(row) => {
                let worth = stay.map_or(String::new(), |v| format!(": keeping it is worth {}", show(&v)));
                e.rules.push((self.spans.rows[row], format!("the deal forms `{}` first{worth}", self.rows[row].name)));
            }
            None => {
                e.rules.push((self.spans.exchange, "the deal forms no combination: kept, it pays nothing".to_string()))
            }
        }
        if mask != 0 {
            let draws = self.draws_by_row(&deal.cards, mask);
            let total: i128 = draws.iter().sum();
            for (row, &n) in draws.iter().enumerate() {
                if n == 0 {
                    continue;
                }
                let Some(span) = self.spans.rows.get(row) else {
                    e.rules.push((self.spans.exchange, format!("{n} of {total} draws form no combination: pay 0")));
                    continue;
                };
                let says = if Some(row) == now {
                    format!("{n} of {total} draws keep it")
                } else {
                    format!("{n} of {total} draws make it: pays {}", self.rows[row].pays_at(mask.count_ones() as usize))
                };
                e.rules.push((*span, says));
            }
            let k = mask.count_ones() as i64;
            e.rules.push((self.spans.cost, format!("exchanging {k} card(s) costs {} more", self.cost * k)));
        }
        if let Some(best) = best {
            // Equally good: the optimal options, and on the rank path every
            // other choice of the same ranks' cards.
            let mut tied: Vec<String> = Vec::new();
            for &(m, _) in options.iter().filter(|(_, v)| *v == best) {
                for alt in self.same_ranks(&deal.cards, m) {
                    if tied.len() < 12 {
                        tied.push(format!("`{}`", line_of(alt)));
                    }
                }
            }
            if tied.len() > 1 {
                e.rules.push((
                    self.spans.prefer,
                    format!("{} are equally good: this order picks the first", tied.join(", ")),
                ));
            }
            e.summary = format!("`{}` has the highest expected value, {}", e.output, show(&best));
        }
        for (m, v) in &options {
            e.values.push((line_of(*m), show(v)));
        }
        e
    }
}
