//! Explanations of the exchange engine: for each deal, the row that pays
//! now, the expected payout of every choice as an exact fraction, the rows
//! the chosen choice's draws land in, the cost, and the tie-break when
//! several choices are equally good.

use num_rational::BigRational;

use super::choice::Draws;
use super::{Deal, Exchange, Value};
use crate::game::explain::Choice;
use crate::game::figures::{fraction, Figure, Style, Value as FValue};
use crate::game::Explanation;

/// `n/d` (or `n`) of a pair.
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
        if let Some(rounds) = &self.rounds {
            return self.explain_rounds(rounds, deal);
        }
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
        // Every choice, ranked by value (equal values in preference
        // order, variance included when `prefer` reads it).
        let ranked = self.ranked(&deal.cards, &options);
        if let Some(best) = best {
            // Equally good: the optimal options, and on the rank path every
            // other choice of the same ranks' cards.
            let mut tied: Vec<String> = Vec::new();
            for &(m, _) in ranked.iter().filter(|(_, v)| *v == best) {
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
        // Each choice with its decimal and the rows its draws end in (and
        // its variance, when the tie-break reads it), in text and as data.
        for (m, v) in &ranked {
            let draws = self.choice_draws(&deal.cards, *m);
            let var = draws.as_ref().map(|d| self.variance(d));
            let variance = match (&var, self.preference.by_variance()) {
                (Some(x), true) => format!("; variance {}", fraction(x)),
                _ => String::new(),
            };
            let shown = line_of(*m);
            e.values.push((
                shown.clone(),
                format!("{} ({}); {}{variance}", show(v), self.decimal(v), self.final_rows(draws.as_ref())),
            ));
            e.choices.push(self.choice(shown, *m == mask, v, draws.as_ref(), var));
        }
        e
    }
}

impl Exchange {
    /// A value as a decimal with 4 places.
    fn decimal(&self, v: &Value) -> String {
        let (n, d) = v.fraction();
        crate::game::figures::decimal(&num_rational::BigRational::new(n.into(), d.into()), 4)
    }

    /// The draws by row of a choice (keeping the deal: its own row once),
    /// when they are tabulated: counting every draw of every choice would
    /// be slow where they are not.
    fn choice_draws(&self, cards: &[crate::engines::cards::Card], mask: u32) -> Option<Draws> {
        let rows = if mask == 0 {
            let mut rows = vec![0i128; self.rows.len() + 1];
            rows[self.row_of(cards).unwrap_or(self.rows.len())] = 1;
            rows
        } else {
            self.row_tables()?;
            self.draws_by_row(cards, mask)
        };
        Some(Draws { k: mask.count_ones() as usize, rows })
    }

    /// The rows a choice's draws end in: "final rows: Royal Flush 1, ...,
    /// no row 30 (of 47)".
    fn final_rows(&self, draws: Option<&Draws>) -> String {
        let Some(d) = draws else { return "final rows: not tabulated for these rules".to_string() };
        let total: i128 = d.rows.iter().sum();
        let parts: Vec<String> = d
            .rows
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n > 0)
            .map(|(r, n)| format!("{} {n}", self.rows.get(r).map_or("no row", |r| r.name.as_str())))
            .collect();
        format!("final rows: {} (of {total})", parts.join(", "))
    }

    /// A choice as data: its expected payout, cost, value and variance,
    /// exact, its number of draws and how many end in each row.
    fn choice(
        &self,
        output: String,
        chosen: bool,
        v: &Value,
        draws: Option<&Draws>,
        var: Option<BigRational>,
    ) -> Choice {
        let q = |(n, d): (i128, i128)| BigRational::new(n.into(), d.into());
        let mut figures = vec![
            Figure::new("expected_payout", "expected payout", FValue::exact(q(v.payout()), Style::Fraction)),
            Figure::new("cost", "cost", FValue::int(v.cost)),
            Figure::new("value", "value", FValue::exact(q(v.fraction()), Style::Decimal(4))),
        ];
        let mut outcomes = Vec::new();
        if let (Some(d), Some(var)) = (draws, var) {
            figures.push(Figure::new("variance", "variance", FValue::exact(var, Style::Decimal(6))));
            figures.push(Figure::new("draws", "draws", FValue::int(d.rows.iter().sum::<i128>())));
            for (r, &n) in d.rows.iter().enumerate() {
                if r < self.rows.len() || n > 0 {
                    outcomes
                        .push((self.rows.get(r).map_or("(no row)", |r| r.name.as_str()).to_string(), FValue::int(n)));
                }
            }
        }
        Choice { output, chosen, figures, outcomes }
    }

    /// The fields `{row}`, `{value}` and `{exact}` of a choice, computed
    /// only when the line names one of them.
    pub(super) fn choice_fields(
        &self,
        line: &crate::template::OutputLine<super::HoldFields<'static>>,
        mask: u32,
        deal: &Deal,
    ) -> (&str, String, String) {
        use crate::template::Fields;
        let names = super::HoldFields::NAMES;
        let uses = |name: &str| {
            let at = names.iter().position(|&n| n == name);
            line.template
                .parts
                .iter()
                .any(|p| matches!(p, crate::template::Part::Field { index, .. } if Some(*index) == at))
        };
        let row = if uses("row") { self.row_of(&deal.cards).map_or("", |r| self.rows[r].name.as_str()) } else { "" };
        if !uses("value") && !uses("exact") {
            return (row, String::new(), String::new());
        }
        let options = self.options(&deal.cards);
        let Some(v) = options
            .iter()
            .find(|(m, _)| *m == mask || self.same_ranks(&deal.cards, *m).contains(&mask))
            .map(|&(_, v)| v)
        else {
            return (row, String::new(), String::new());
        };
        let (n, d) = v.fraction();
        let x = num_rational::BigRational::new(n.into(), d.into());
        (row, crate::game::figures::decimal(&x, 4), frac((n, d)))
    }
}
