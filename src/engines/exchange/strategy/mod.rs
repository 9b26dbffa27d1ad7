//! `arbiter strategy` for the exchange engine: a chart of hold classes,
//! generated from the combination table, and the exact return of following
//! it literally.
//!
//! Method (docs/engines/exchange.md, "`arbiter strategy`"):
//! 1. Every hold (the cards kept) gets classes, from the table's rows
//!    alone (`classes`), from the coarsest to the finest:
//!    - a *made* hold: every draw keeps a paying row; the class is the
//!      lowest-paying row every draw still forms (and how many held cards
//!      that row does not need);
//!    - else the rows the hold is *part of*: a row R such that some draw
//!      forms R with every held card needed (replacing any one of them by
//!      some card pays less), the ones that bring the most (payout times
//!      the draws that form it) first. The coarsest class names the first
//!      with its draws; finer ones add how many held cards are alone part
//!      of the lowest-paying row, how many discarded cards are each, with
//!      the hold, part of the named row (a published chart's "penalty
//!      cards"), then the next row;
//!    - no row at all: "k card(s) part of no row".
//! 2. Every deal (one per class under suit symmetry, with its weight) is
//!    valued: each hold's exact expected value.
//! 3. A chart is an order of classes (`search`): a deal is played by the
//!    first line one of its holds belongs to (among several holds of that
//!    line, the one the rule file's `prefer:` order picks). Lines are
//!    added one at a time where they gain most, then exchanged one by one
//!    for the best class and place; the last line exchanges every card.
//! 4. The chart's return is computed exactly over every deal, as is the
//!    optimal return.

mod classes;
mod search;

use num_bigint::BigInt;
use num_rational::BigRational;

use super::{hands, Exchange};
use crate::engines::cards::Card;
use crate::game::strategy::{Chart, ChartLine, ChartOptions};
use classes::Key;

/// Most row evaluations the classes may take (completions of the holds
/// times the checks), so that a chart is computed in bounded time.
const MAX_COMPLETIONS: u128 = 1 << 22;

/// Most deals (classes under suit symmetry) a chart looks at.
const MAX_DEALS: u128 = 1 << 22;

/// Most (deal, class) entries the search holds in memory.
const MAX_ENTRIES: u128 = 1 << 26;

/// A class of cards under suit symmetry: the sorted masks of ranks per
/// suit, then the jokers (as one more mask).
type SetKey = Vec<u64>;

impl Exchange {
    /// The chart for these rules (see the module's documentation).
    pub(crate) fn strategy_chart(&self, opts: &ChartOptions) -> Result<Chart, String> {
        if self.rounds.is_some() {
            return Err("a strategy chart is a list of holds for one draw round; this game has several".to_string());
        }
        let hands = super::combi::binom(self.deck.size() as u64, self.hand as u64);
        if self.by_cards() && hands > super::MAX_HANDS {
            // Such games keep their tables by class (`by_class.rs`); the
            // chart's classes of holds would pass its limits anyway.
            return Err(format!(
                "a strategy chart needs the table of every hand: {hands} hands pass its limit of 2^24"
            ));
        }
        let deals = self.chart_deals()?;
        let feats = self.hold_features(&deals)?;
        let (mut keys, mut deals) = self.classify(&deals, &feats)?;
        drop(feats);
        let last = self.last_line(&mut keys, &mut deals)?;
        let order = search::search(keys.len(), Some(last), &deals, opts.lines.max(1));
        self.chart_of(&keys, &deals, &order)
    }

    /// The class of the chart's last line, which every deal can follow:
    /// exchange every card; where the rules do not allow that, keep every
    /// card (a class of its own, added to every deal); where they allow
    /// neither, no chart.
    fn last_line(&self, keys: &mut Vec<Key>, deals: &mut [DealHolds]) -> Result<u32, String> {
        if let Some(i) = keys.iter().position(|k| k.kept == 0) {
            if deals.iter().all(|d| d.holds.iter().any(|h| h.class == i as u32)) {
                return Ok(i as u32);
            }
        }
        let stays: Option<Vec<u8>> =
            deals.iter().map(|d| d.options.iter().position(|&(mask, _)| mask == 0).map(|o| o as u8)).collect();
        let Some(stays) = stays else {
            return Err("a chart ends with a line every deal can follow (exchange every card, or keep every card), \
                 and these rules allow neither"
                .to_string());
        };
        let class = keys.len() as u32;
        keys.push(Key::keep_all(self.hand as u8));
        for (d, option) in deals.iter_mut().zip(stays) {
            d.holds.push(Hold { class, option });
        }
        Ok(class)
    }

    /// One deal of every class with its weight.
    fn chart_deals(&self) -> Result<Vec<(Vec<Card>, u128)>, String> {
        let mut out = Vec::new();
        let mut too_many = false;
        hands::for_each_class_while(&self.deck, self.hand, &mut |cards, w| {
            out.push((cards.to_vec(), w));
            too_many = out.len() as u128 > MAX_DEALS;
            !too_many
        });
        if too_many {
            return Err(format!("more than {MAX_DEALS} classes of deals: the chart's limit"));
        }
        Ok(out)
    }

    /// The chart of an order of classes, with its exact figures.
    fn chart_of(&self, keys: &[Key], deals: &[DealHolds], order: &[u32]) -> Result<Chart, String> {
        let mut rank = vec![u32::MAX; keys.len()];
        for (i, &c) in order.iter().enumerate() {
            rank[c as usize] = i as u32;
        }
        let h = self.hand;
        // Per line and per exchange size: weighted payout sums and deals.
        let mut line_sum = vec![vec![BigInt::from(0); h + 1]; order.len()];
        let mut line_deals = vec![vec![0u128; h + 1]; order.len()];
        let mut best_sum = vec![BigInt::from(0); h + 1];
        let mut best_deals = vec![0u128; h + 1];
        for d in deals {
            let pick =
                d.holds.iter().filter(|x| rank[x.class as usize] != u32::MAX).min_by_key(|x| rank[x.class as usize]);
            // The last line is one every deal has (`last_line`).
            let Some(x) = pick else {
                return Err("a deal follows no line of the chart".to_string());
            };
            let (mask, value) = d.options[x.option as usize];
            let (i, k) = (rank[x.class as usize] as usize, mask.count_ones() as usize);
            line_sum[i][k] += BigInt::from(value.sum) * BigInt::from(d.weight);
            line_deals[i][k] += d.weight;
            if let Some((mask, value)) = d.best {
                let k = mask.count_ones() as usize;
                best_sum[k] += BigInt::from(value.sum) * BigInt::from(d.weight);
                best_deals[k] += d.weight;
            }
        }
        let total: u128 = deals.iter().map(|d| d.weight).sum();
        let money = |sums: &[BigInt], counts: &[u128]| -> (BigRational, BigRational) {
            let mut pay = BigRational::from_integer(0.into());
            let mut stake = BigRational::from_integer(0.into());
            for k in 0..=h {
                pay += BigRational::new(sums[k].clone(), BigInt::from(self.ways[k].max(1)));
                stake += BigRational::from_integer(
                    BigInt::from(counts[k]) * BigInt::from(self.entry + self.cost * k as i64),
                );
            }
            (pay, stake)
        };
        let (opt_pay, opt_stake) = money(&best_sum, &best_deals);
        let mut chart_pay = BigRational::from_integer(0.into());
        let mut chart_stake = BigRational::from_integer(0.into());
        let mut lines = Vec::new();
        for (i, &c) in order.iter().enumerate() {
            let (pay, stake) = money(&line_sum[i], &line_deals[i]);
            let n: u128 = line_deals[i].iter().sum();
            let key = &keys[c as usize];
            lines.push(ChartLine {
                label: self.label(key),
                kept: key.kept as usize,
                deals: BigRational::new(BigInt::from(n), BigInt::from(total)),
                value: (n > 0).then(|| (&pay - &stake) / BigRational::from_integer(BigInt::from(n))),
            });
            chart_pay += pay;
            chart_stake += stake;
        }
        // The loss: what optimal play earns more per game (payout less
        // stake: the choice of each deal maximises it), in hundredths of
        // the entry. With exchanges that cost, a chart that stakes less
        // may show a higher return (payout over stake) and still earn less.
        let gap = ((&opt_pay - &opt_stake) - (&chart_pay - &chart_stake)) * BigRational::from_integer(100.into());
        let loss = ratio(&gap, &BigRational::from_integer(BigInt::from(total) * BigInt::from(self.entry)));
        Ok(Chart {
            lines,
            optimal: ratio(&opt_pay, &opt_stake),
            chart: ratio(&chart_pay, &chart_stake),
            loss,
            classes: keys.len(),
            deals: total,
        })
    }
}

fn ratio(a: &BigRational, b: &BigRational) -> Option<BigRational> {
    use num_traits::Zero;
    (!b.is_zero()).then(|| a / b)
}

/// The next d-subset of 0..n in lexicographic order; false after the last.
fn next_pick(pick: &mut [usize], n: usize) -> bool {
    let d = pick.len();
    let mut i = d;
    loop {
        if i == 0 {
            return false;
        }
        i -= 1;
        if pick[i] < n - d + i {
            pick[i] += 1;
            for j in i + 1..d {
                pick[j] = pick[j - 1] + 1;
            }
            return true;
        }
    }
}

/// A class present in a deal, and the option (index in the deal's
/// options) `prefer:` picks among the deal's holds of that class.
#[derive(Debug, Clone, Copy)]
struct Hold {
    class: u32,
    option: u8,
}

#[derive(Debug, Clone)]
struct DealHolds {
    weight: u128,
    /// Every option (discard mask) with its value, in `prefer:` order.
    options: Vec<(u32, super::Value)>,
    holds: Vec<Hold>,
    /// The optimal choice (discard mask) and its value.
    best: Option<(u32, super::Value)>,
}
