//! Explanations of the exchange engine: for each deal, the row that pays
//! now, the value of every choice as an exact fraction, the rows the chosen
//! exchange's draws land in, the cost, and the tie-break when several
//! choices are equally good.

use super::{Deal, Exchange, Value};
use crate::game::{explain_cases, Explain, Explanation, Input, RunError, RunOptions};

impl Explain for Exchange {
    fn explain(
        &self,
        input: &mut Input,
        opts: &RunOptions,
        each: &mut dyn FnMut(Explanation) -> Result<(), RunError>,
    ) -> Result<(), RunError> {
        explain_cases(self, input, opts, each)
    }
}

impl Exchange {
    /// The explanation of one deal's output line.
    pub(super) fn explain_deal(&self, deal: &Deal) -> Explanation {
        let (mask, values) = self.decide(&deal.cards);
        let mut line = Vec::new();
        self.render(&mut line, mask, deal);
        let output = String::from_utf8_lossy(&line).trim_end().to_string();
        let name_of = |m: u32| -> String {
            let mut b = Vec::new();
            self.render(&mut b, m, deal);
            String::from_utf8_lossy(&b).trim_end().to_string()
        };
        let show = |v: &Value| {
            let (n, d) = v.fraction();
            let pays = if v.ways == 1 { format!("{}", v.sum) } else { format!("{}/{}", v.sum, v.ways) };
            let exact = if d == 1 { format!("{n}") } else { format!("{n}/{d}") };
            format!("{pays} - {} = {exact}", v.cost)
        };
        let mut e = Explanation { output, ..Default::default() };
        let best_i = self.choices.iter().position(|&m| m == mask).unwrap_or(0);
        let best = values[best_i];
        let now = self.row_of_ranks(&deal.cards.iter().map(|&c| self.deck.rank(c)).collect::<Vec<_>>());
        e.rules.push((
            self.spans.rows[now],
            format!(
                "the deal forms `{}` first: staying is worth {}",
                self.rows[now].name,
                show(&self.stay_value(&deal.cards))
            ),
        ));
        if mask != 0 {
            let draws = self.draw_rows(&deal.cards, mask);
            let total: i64 = draws.iter().sum();
            for (row, &n) in draws.iter().enumerate() {
                if n > 0 && row != now {
                    e.rules.push((
                        self.spans.rows[row],
                        format!("{n} of {total} draws make it: pays {}", self.rows[row].pays),
                    ));
                } else if n > 0 {
                    e.rules.push((self.spans.rows[row], format!("{n} of {total} draws keep it")));
                }
            }
            e.rules.push((
                self.spans.cost,
                format!("exchanging {} card(s) costs {} more", mask.count_ones(), self.cost * mask.count_ones() as i64),
            ));
        }
        let tied: Vec<String> = self
            .choices
            .iter()
            .zip(&values)
            .filter(|(_, v)| **v == best)
            .map(|(&m, _)| format!("`{}`", name_of(m)))
            .collect();
        if tied.len() > 1 {
            e.rules
                .push((self.spans.prefer, format!("{} are equally good: this order picks the first", tied.join(", "))));
        }
        e.summary = format!("`{}` has the highest expected earning, {}", e.output, show(&best));
        for (&m, v) in self.choices.iter().zip(&values) {
            e.values.push((name_of(m), show(v)));
        }
        e
    }
}
