//! `arbiter analyze` for the tower engine: the first mover's advantage
//! over seeded random deals (in parts that merge exactly: [`Sampled`]).

use std::ops::Range;

use serde_json::{json, Value};

use super::{Tower, DEFAULT_MAX_NODES};
use crate::game::{analyze_sampled, Analysis, Analyze, AnalyzeOptions, Sampled};
use crate::rng::SplitMix64;

impl Analyze for Tower {
    /// The first mover's advantage (its final score minus the other's) over
    /// seeded random deals of the largest deck the input allows, within
    /// [`ANALYZE_NODES`] search nodes in all (the report says where it
    /// stopped). About a second for 26 cards and four peaks.
    fn default_samples(&self) -> Option<u64> {
        Some(1_000)
    }

    fn analyze(&self, opts: &AnalyzeOptions, progress: &mut dyn FnMut(u64, u64)) -> Analysis {
        analyze_sampled(self, opts, progress)
    }

    fn sampled(&self) -> Option<&dyn Sampled> {
        Some(self)
    }
}

/// A part: each deal's value for the first mover and the nodes its search
/// took, each within one deal's limit ([`DEFAULT_MAX_NODES`]). The report
/// replays the budget of the whole analysis over them in order, so a part
/// ends where the whole analysis must have stopped: at a deal that needs
/// more than one deal's limit (`"over"`), or once its own deals took more
/// than the whole budget.
impl Sampled for Tower {
    fn sample(&self, opts: &AnalyzeOptions, range: Range<u64>, progress: &mut dyn FnMut(u64, u64)) -> Value {
        let m = self.m_range.1;
        let cards: Vec<u8> = (0..self.deck.size()).filter(|&c| self.deck.rank(c as u16) < m).map(|c| c as u8).collect();
        let mut deck = cards.clone();
        let mut tt = super::Tt::default();
        let (mut values, mut nodes, mut over) = (Vec::new(), Vec::new(), false);
        let total = range.end - range.start;
        let mut spent = 0u64;
        for j in range.clone() {
            deck.copy_from_slice(&cards);
            SplitMix64::for_sample(opts.seed, j).shuffle(&mut deck);
            let Some((v0, n)) = self.rules.solve_with(&deck, &mut tt, DEFAULT_MAX_NODES) else {
                over = true;
                break;
            };
            let first = self.rules.first_by_card[deck[0] as usize];
            values.push(if first == 0 { v0 } else { -v0 });
            nodes.push(n);
            spent = spent.saturating_add(n);
            progress(j - range.start, total);
            if spent > ANALYZE_NODES {
                break;
            }
        }
        progress(total, total);
        json!({ "deals": values.len(), "values": values, "nodes": nodes, "over": over })
    }

    fn report(&self, opts: &AnalyzeOptions, parts: &[Value]) -> Result<Analysis, String> {
        let m = self.m_range.1;
        let n = opts.samples;
        let (mut total, mut wins, mut ties, mut done) = (0i64, 0u64, 0u64, 0u64);
        let mut left = ANALYZE_NODES;
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
                let budget = left.min(DEFAULT_MAX_NODES);
                if used > budget {
                    stopped = Some((done, budget == DEFAULT_MAX_NODES));
                    break 'parts;
                }
                left -= used;
                total += v;
                wins += u64::from(v > 0);
                ties += u64::from(v == 0);
                done += 1;
            }
            if part["over"].as_bool() == Some(true) {
                stopped = Some((done, left >= DEFAULT_MAX_NODES));
                break;
            }
        }
        if stopped.is_none() && done != n {
            return Err(format!("{done} deals for {n} samples"));
        }
        let cards = m * self.deck.suits.len();
        let mut out =
            vec![("deals".to_string(), format!("{done} random deals of M = {m} ({cards} cards, seed {})", opts.seed))];
        match stopped {
            Some((i, true)) => out.push((
                "stopped".to_string(),
                format!(
                    "deal {} of {n} needs more than {DEFAULT_MAX_NODES} search nodes, the limit of one deal",
                    i + 1
                ),
            )),
            Some((i, false)) => out.push((
                "stopped".to_string(),
                format!("after {i} of {n} deals: an analysis searches at most {ANALYZE_NODES} nodes in all"),
            )),
            None => {}
        }
        if done > 0 {
            let g = gcd(total.unsigned_abs(), done).max(1);
            out.push((
                "first mover's advantage".to_string(),
                format!("{}/{} = {:.4} points per deal", total / g as i64, done / g, total as f64 / done as f64),
            ));
            out.push(("first mover wins, ties".to_string(), format!("{wins} and {ties} of {done}")));
        }
        Ok(out)
    }
}

/// The numbers of a part's list `name`.
fn deals<T: TryFrom<i64>>(part: &Value, name: &str) -> Result<Vec<T>, String> {
    let list = part[name].as_array().ok_or_else(|| format!("no list `{name}`"))?;
    list.iter()
        .map(|v| v.as_i64().and_then(|v| T::try_from(v).ok()).ok_or_else(|| format!("`{name}` holds {v}")))
        .collect()
}

/// Search nodes of all the deals of one analysis together (a few seconds).
pub const ANALYZE_NODES: u64 = 20_000_000;

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
