//! The figures of an exchange analysis (`arbiter analyze`): the return,
//! the hit frequency, the variance and standard deviation of the earning
//! of one game, and per row of the pay table the exact count of outcomes
//! over a stated common denominator, its probability, cycle and share of
//! the return, with a total row.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};

use super::{Exchange, ExpectedReturn, Joint};
use crate::game::figures::{fraction, Figure, Style, Table, Value};
use crate::game::Report;

fn int(n: impl Into<BigInt>) -> BigRational {
    BigRational::from_integer(n.into())
}

/// An exact figure written as `decimal (n/d)`.
fn with_fraction(x: BigRational, style: Style) -> Value {
    let text = format!("{} ({})", style.format(&x), fraction(&x));
    Value::exact_with(x, style, text)
}

impl Exchange {
    /// The report of an analysis whose totals are `r`.
    pub(crate) fn figures(&self, r: &ExpectedReturn) -> Report {
        let mut f = vec![Figure::new(
            "deals",
            "deals",
            Value::exact_with(
                int(r.deals),
                Style::Integer,
                format!(
                    "{} (every deal of {} cards, each equally likely; optimal play; ties broken as `run` does for \
                     the deal written in deck order)",
                    r.deals, self.hand
                ),
            ),
        )];
        f.push(Figure::new(
            "expected_payout",
            "expected payout per game",
            Value::exact(r.payout.clone(), Style::Fraction),
        ));
        f.push(Figure::new(
            "expected_stake",
            "expected stake per game",
            Value::exact(r.stake.clone(), Style::Fraction),
        ));
        f.push(Figure::new(
            "expected_earning",
            "expected earning per game",
            Value::exact(r.earning(), Style::Fraction),
        ));
        let rtp = r.return_to_player();
        f.push(Figure::new(
            "return_to_player",
            "return to player",
            match &rtp {
                Some(x) => with_fraction(x.clone(), Style::Percent(4)),
                None => Value::text("undefined: nothing is staked (`entry` and `cost` are 0)"),
            },
        ));
        let mut report = Report { figures: f, tables: Vec::new() };
        match &r.joint {
            None => report.figures.push(Figure::new(
                "final_rows",
                "final rows",
                Value::text(format!(
                    "not tabulated: the row-count tables would pass {} entries",
                    super::analyze::MAX_ROW_TABLE
                )),
            )),
            Some(joint) => {
                self.distribution_figures(r, joint, &mut report.figures);
                report.tables.push(self.row_table(joint, rtp.as_ref(), &r.stake));
            }
        }
        report
    }

    /// The payout of a final row (the last: none).
    fn row_pays(&self, row: usize) -> i64 {
        self.rows.get(row).map_or(0, |r| r.pays)
    }

    /// The payout of a final row reached by exchanging `k` cards.
    fn row_pays_at(&self, k: usize, row: usize) -> i64 {
        self.rows.get(row).map_or(0, |r| r.pays_at(k))
    }

    /// Hit frequency, variance and standard deviation, from the outcomes.
    fn distribution_figures(&self, r: &ExpectedReturn, joint: &Joint, f: &mut Vec<Figure>) {
        let d = int(joint.denominator.clone());
        let (mut hits, mut sum, mut squares) = (BigInt::zero(), BigInt::zero(), BigInt::zero());
        for (k, counts) in joint.counts.iter().enumerate() {
            let cost = self.entry + self.cost * k as i64;
            for (row, n) in counts.iter().enumerate() {
                let pays = self.row_pays_at(k, row);
                if pays > 0 {
                    hits += n;
                }
                let x = BigInt::from(pays - cost);
                sum += n * &x;
                squares += n * &x * &x;
            }
        }
        f.push(Figure::new("hit_frequency", "hit frequency", with_fraction(int(hits) / &d, Style::Percent(4))));
        let mean = int(sum) / &d;
        if mean != r.earning() {
            // The outcomes do not add up to the totals: no figure rather
            // than a wrong one.
            f.push(Figure::new(
                "variance",
                "variance",
                Value::text("not computed: the outcomes disagree with the totals"),
            ));
            return;
        }
        let variance = int(squares) / &d - &mean * &mean;
        let sd = variance.to_f64().unwrap_or(f64::NAN).max(0.0).sqrt();
        f.push(Figure::new("variance", "variance", with_fraction(variance, Style::Decimal(6))));
        f.push(Figure::new("standard_deviation", "standard deviation", Value::approx(sd, Style::Decimal(6))));
        f.push(Figure::new(
            "outcomes",
            "outcomes",
            Value::exact_with(
                d.clone(),
                Style::Integer,
                format!(
                    "{} = {} deals x {} (a common multiple of the numbers of draws): the denominator of the \
                     counts below",
                    joint.denominator,
                    r.deals,
                    &joint.denominator / BigInt::from(r.deals)
                ),
            ),
        ));
        if let Some(ties) = r.tie_deals {
            // Tied choices that exchange different numbers of cards stake
            // differently when exchanging costs.
            let costs = self.cost != 0 && self.sizes.len() > 1;
            f.push(Figure::new("tie_rule", "tie rule", Self::tie_note(ties, r.deals, costs)));
        }
    }

    /// Whether the row figures depend on how ties are broken: the deals
    /// with several optimal choices whose draws end in different rows.
    fn tie_note([rows, variance]: [u128; 2], deals: u128, costs: bool) -> Value {
        let mut text = if rows == 0 {
            "the row figures do not depend on it: no deal has optimal choices whose draws end in different rows"
                .to_string()
        } else {
            let share = Style::Percent(4).format(&(int(rows) / int(deals)));
            let var = if variance == 0 {
                ", nor does the variance".to_string()
            } else {
                format!("; the variance does: {variance} of these deals have optimal choices of different variances")
            };
            format!(
                "{rows} deals ({share}) have optimal choices whose draws end in different rows: the row \
                 probabilities and the hit frequency can depend on `prefer` (the expected earning does not{var})"
            )
        };
        if costs {
            text.push_str(
                "; exchanging costs, so tied choices that exchange different numbers of cards can also move the \
                 expected payout, the stake and the return with `prefer` (not the expected earning)",
            );
        }
        Value::exact_with(int(rows), Style::Integer, text)
    }

    /// Per final row: pays, count, probability, cycle, return share; and a
    /// total row.
    fn row_table(&self, joint: &Joint, rtp: Option<&BigRational>, stake: &BigRational) -> Table {
        let mut t = Table::new(
            "rows",
            &[
                ("row", "row"),
                ("pays", "pays"),
                ("count", "count"),
                ("probability", "probability"),
                ("cycle", "1 in"),
                ("return_share", "return share"),
                ("return_share_exact", "exactly"),
            ],
        );
        let d = int(joint.denominator.clone());
        let width = self.rows.len() + 1;
        for row in 0..width {
            let count: BigInt = joint.counts.iter().map(|c| &c[row]).sum();
            if row == self.rows.len() && count.is_zero() {
                continue;
            }
            let name = self.rows.get(row).map_or("(no row)", |r| r.name.as_str());
            let p = int(count.clone()) / &d;
            let cycle = if count.is_zero() {
                Value::text("never")
            } else {
                Value::exact(d.clone() / int(count.clone()), Style::Decimal(2))
            };
            let paid: BigInt = joint.counts.iter().enumerate().map(|(k, c)| &c[row] * self.row_pays_at(k, row)).sum();
            let share = (!stake.is_zero()).then(|| int(paid) / &d / stake);
            t.rows.push(vec![
                Value::text(name),
                Value::int(self.row_pays(row)),
                Value::int(count),
                Value::exact(p, Style::Decimal(10)),
                cycle,
                share.clone().map_or(Value::text("-"), |s| Value::exact(s, Style::Percent(4))),
                share.map_or(Value::text("-"), |s| Value::exact(s, Style::Fraction)),
            ]);
        }
        t.total = Some(vec![
            Value::text("total"),
            Value::text(""),
            Value::exact(d.clone(), Style::Integer),
            Value::exact(int(1), Style::Decimal(10)),
            Value::text(""),
            rtp.map_or(Value::text("-"), |s| Value::exact(s.clone(), Style::Percent(4))),
            rtp.map_or(Value::text("-"), |s| Value::exact(s.clone(), Style::Fraction)),
        ]);
        t
    }
}
