//! `arbiter analyze` for the tower engine: the first mover's advantage
//! over seeded random deals.

use super::Tower;
use crate::game::{Analysis, Analyze, AnalyzeOptions};

impl Analyze for Tower {
    /// The first mover's advantage (its final score minus the other's) over
    /// seeded random deals of the largest deck the input allows, within
    /// [`ANALYZE_NODES`] search nodes in all (the report says where it
    /// stopped). About a second for 26 cards and four peaks.
    fn default_samples(&self) -> Option<u64> {
        Some(1_000)
    }

    fn analyze(&self, opts: &AnalyzeOptions, progress: &mut dyn FnMut(u64, u64)) -> Analysis {
        let mut rng = crate::rng::SplitMix64::new(opts.seed);
        let m = self.m_range.1;
        let suits = self.deck.suits.len();
        let mut deck: Vec<u8> =
            (0..self.deck.size()).filter(|&c| self.deck.rank(c as u16) < m).map(|c| c as u8).collect();
        let n = opts.samples.max(1);
        let mut tt = super::Tt::default();
        let (mut total, mut wins, mut ties, mut done) = (0i64, 0u64, 0u64, 0u64);
        // All deals together search at most ANALYZE_NODES nodes.
        let mut left = ANALYZE_NODES;
        let mut stopped = None;
        for i in 0..n {
            rng.shuffle(&mut deck);
            let budget = left.min(super::DEFAULT_MAX_NODES);
            let Some((v0, nodes)) = self.rules.solve_with(&deck, 0, &mut tt, budget) else {
                stopped = Some((i, budget == super::DEFAULT_MAX_NODES));
                break;
            };
            left -= nodes.min(left);
            let first = self.rules.first_mover(&deck, 0);
            let v = if first == 0 { v0 } else { -v0 };
            total += v as i64;
            if v > 0 {
                wins += 1;
            } else if v == 0 {
                ties += 1;
            }
            done += 1;
            progress(i, n);
        }
        progress(n, n);
        let mut out = vec![(
            "deals".to_string(),
            format!("{done} random deals of M = {m} ({} cards, seed {})", m * suits, opts.seed),
        )];
        match stopped {
            Some((i, true)) => out.push((
                "stopped".to_string(),
                format!(
                    "deal {} of {n} needs more than {} search nodes, the limit of one deal",
                    i + 1,
                    super::DEFAULT_MAX_NODES
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
        out
    }
}

/// Search nodes of all the deals of one analysis together (a few seconds).
pub const ANALYZE_NODES: u64 = 20_000_000;

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
