//! `arbiter analyze` for the tower engine: the first mover's advantage
//! over seeded random deals (in parts that merge exactly: [`Sampled`]).

use std::ops::Range;

use serde_json::{json, Value};

use super::search::MAX_SCORE;
use super::Tower;
use num_bigint::BigInt;
use num_rational::Ratio;
use num_traits::ToPrimitive;

use crate::game::figures::{decimal, fraction, key_of, Figure, Style, Value as Figured};
use crate::game::{analyze_sampled, Analyze, AnalyzeOptions, Report, Sampled};
use crate::rng::SplitMix64;

impl Analyze for Tower {
    /// The first mover's advantage (its final score minus the other's) over
    /// seeded random deals of the largest deck the input allows, within
    /// `ANALYZE_NODES` search nodes in all (the report says where it
    /// stopped). About a second for 26 cards and four peaks.
    fn default_samples(&self) -> Option<u64> {
        Some(1_000)
    }

    fn node_budget(&self) -> Option<u64> {
        Some(ANALYZE_NODES)
    }

    fn report(&self, opts: &AnalyzeOptions, progress: &mut dyn FnMut(u64, u64)) -> Report {
        analyze_sampled(self, opts, progress)
    }

    fn sampled(&self) -> Option<&dyn Sampled> {
        Some(self)
    }
}

/// A part: each deal's value for the first mover and the nodes its search
/// took, each within the analysis's whole budget. The report replays that
/// budget over them in order, so a part ends where the whole analysis must
/// have stopped: at a deal that needs more than the budget (`"over"`), or
/// once its own deals took more than the budget.
impl Sampled for Tower {
    fn sample(&self, opts: &AnalyzeOptions, range: Range<u64>, progress: &mut dyn FnMut(u64, u64)) -> Value {
        let m = self.m_range.1;
        let cards: Vec<u8> = (0..self.deck.size()).filter(|&c| self.deck.rank(c as u16) < m).map(|c| c as u8).collect();
        let mut deck = cards.clone();
        let mut tt = super::Tt::default();
        let (mut values, mut nodes, mut over) = (Vec::new(), Vec::new(), false);
        let total = range.end - range.start;
        let mut spent = 0u64;
        let budget = budget(opts);
        for j in range.clone() {
            deck.copy_from_slice(&cards);
            SplitMix64::for_sample(opts.seed, j).shuffle(&mut deck);
            let Some((v0, n)) = self.rules.solve_with(&deck, 0, &mut tt, budget) else {
                over = true;
                break;
            };
            let first = self.rules.first_mover(&deck, 0);
            values.push(if first == 0 { v0 } else { -v0 });
            nodes.push(n);
            spent = spent.saturating_add(n);
            progress(j - range.start, total);
            if spent > budget {
                break;
            }
        }
        progress(total, total);
        json!({ "deals": values.len(), "values": values, "nodes": nodes, "over": over })
    }

    /// The deals of the parts in order, stopped where one part of them all
    /// would have stopped: after the deal that takes the nodes spent past
    /// the budget, or at a part's deal that needs more than the budget.
    fn join(&self, opts: &AnalyzeOptions, parts: &[Value]) -> Value {
        let budget = budget(opts);
        let (mut values, mut nodes, mut spent) = (Vec::new(), Vec::new(), 0u64);
        for part in parts {
            let (v, n) =
                (deals::<i64>(part, "values").unwrap_or_default(), deals::<u64>(part, "nodes").unwrap_or_default());
            for (v, n) in v.into_iter().zip(n) {
                values.push(v);
                nodes.push(n);
                spent = spent.saturating_add(n);
                if spent > budget {
                    return json!({ "deals": values.len(), "values": values, "nodes": nodes, "over": false });
                }
            }
            if part["over"].as_bool() == Some(true) {
                return json!({ "deals": values.len(), "values": values, "nodes": nodes, "over": true });
            }
        }
        json!({ "deals": values.len(), "values": values, "nodes": nodes, "over": false })
    }

    fn ended(&self, opts: &AnalyzeOptions, part: &Value) -> bool {
        let spent = deals::<u64>(part, "nodes").unwrap_or_default().into_iter().fold(0u64, u64::saturating_add);
        part["over"].as_bool() == Some(true) || spent > budget(opts)
    }

    fn report(&self, opts: &AnalyzeOptions, parts: &[Value]) -> Result<Report, String> {
        let m = self.m_range.1;
        let n = opts.samples;
        let (mut total, mut wins, mut ties, mut done) = (0i64, 0u64, 0u64, 0u64);
        let mut squares = 0u128;
        let all = budget(opts);
        let mut left = all;
        let mut stopped = None;
        // The whole analysis searched each deal within what was left of the
        // budget (at most one deal's limit) and stopped at the first deal
        // that needed more.
        'parts: for part in parts {
            let (values, nodes) = (deals::<i64>(part, "values")?, deals::<u64>(part, "nodes")?);
            if values.len() != nodes.len() {
                return Err("as many values as node counts".into());
            }
            for (v, used) in values.into_iter().zip(nodes) {
                // A deal's value is a score difference (`check` keeps
                // scores within MAX_SCORE): no sum below can overflow.
                if v.unsigned_abs() > MAX_SCORE as u64 {
                    return Err(format!("a deal's value of {v} is past the scores the tower engine keeps"));
                }
                if used > left {
                    stopped = Some((done, left == all));
                    break 'parts;
                }
                left -= used;
                total += v;
                squares += u128::from(v.unsigned_abs()).pow(2);
                wins += u64::from(v > 0);
                ties += u64::from(v == 0);
                done += 1;
            }
            if part["over"].as_bool() == Some(true) {
                stopped = Some((done, left == all));
                break;
            }
        }
        if stopped.is_none() && done != n {
            return Err(format!("{done} deals for {n} samples"));
        }
        let cards = m * self.deck.suits.len();
        let text = |k: &str, t: String| Figure::new(&key_of(k), k, Figured::text(t));
        let mut out =
            vec![text("deals", format!("{done} random deals of M = {m} ({cards} cards, seed {})", opts.seed))];
        // `stopped`: why, and (its value) how many deals were done.
        let why = match stopped {
            Some((i, true)) => {
                Some(format!("deal {} of {n} needs more than {all} search nodes, the analysis's budget", i + 1))
            }
            Some((i, false)) => {
                Some(format!("after {i} of {n} deals: the analysis searches at most {all} nodes in all"))
            }
            None => None,
        };
        if let Some(why) = why {
            let done = Ratio::from_integer(BigInt::from(done));
            out.push(Figure::new("stopped", "stopped", Figured::exact_with(done, Style::Text, why)));
        }
        if done > 0 {
            let mean = Ratio::new(BigInt::from(total), BigInt::from(done));
            let t = format!("{}/{} = {:.4} points per deal", mean.numer(), mean.denom(), total as f64 / done as f64);
            out.push(Figure::new(
                "first_mover_s_advantage",
                "first mover's advantage",
                Figured::exact_with(mean.clone(), Style::Decimal(4), t),
            ));
            out.push(text("first mover wins, ties", format!("{wins} and {ties} of {done}")));
            // The spread of the advantage over the deals (exact: the parts
            // hold every deal's value).
            let variance = Ratio::new(BigInt::from(squares), BigInt::from(done)) - &mean * &mean;
            let sd = variance.to_f64().unwrap_or(0.0).max(0.0).sqrt();
            out.push(Figure::new(
                "variance",
                "variance per deal",
                Figured::exact_with(
                    variance.clone(),
                    Style::Decimal(4),
                    format!("{} ({})", decimal(&variance, 4), fraction(&variance)),
                ),
            ));
            out.push(Figure::new("standard_deviation", "standard deviation", Figured::approx(sd, Style::Decimal(4))));
        }
        Ok(Report { figures: out, tables: Vec::new() })
    }
}

/// The numbers of a part's list `name`.
fn deals<T: TryFrom<i64>>(part: &Value, name: &str) -> Result<Vec<T>, String> {
    let list = part[name].as_array().ok_or_else(|| format!("no list `{name}`"))?;
    list.iter()
        .map(|v| v.as_i64().and_then(|v| T::try_from(v).ok()).ok_or_else(|| format!("`{name}` holds {v}")))
        .collect()
}

/// Search nodes of all the deals of one analysis together (a few seconds),
/// unless `analyze --max-nodes` gives another budget.
pub(super) const ANALYZE_NODES: u64 = 20_000_000;

/// The node budget of the whole analysis; one deal may use all of it.
fn budget(opts: &AnalyzeOptions) -> u64 {
    opts.max_nodes.unwrap_or(ANALYZE_NODES)
}
