//! `arbiter analyze` for the covering engine: how often a random deck is
//! played out without overflow, over seeded samples.

use super::{Covering, Table};
use crate::game::{Analysis, Analyze, AnalyzeOptions};

impl Analyze for Covering {
    /// The rate of decks played without overflow over seeded random decks.
    /// About half a second for a 52-card deck.
    fn default_samples(&self) -> Option<u64> {
        Some(100_000)
    }

    fn analyze(&self, opts: &AnalyzeOptions, progress: &mut dyn FnMut(u64, u64)) -> Analysis {
        let mut rng = crate::rng::SplitMix64::new(opts.seed);
        // Each card once per pack.
        let mut deck: Vec<u16> =
            (0..self.deck.size() as u16).flat_map(|c| std::iter::repeat_n(c, self.deck.packs)).collect();
        let (mut played, mut piles) = (0u64, 0u64);
        let mut table = Table::default();
        let n = opts.samples.max(1);
        for i in 0..n {
            rng.shuffle(&mut deck);
            if self.play_on(&mut table, &deck, &mut |_| {}).is_none() {
                played += 1;
                piles += table.piles() as u64;
            }
            if i % 4096 == 0 {
                progress(i, n);
            }
        }
        progress(n, n);
        let mut out = vec![
            ("decks".to_string(), format!("{n} random decks (seed {})", opts.seed)),
            (
                "played without overflow".to_string(),
                format!("{played} of {n} = {:.4} %", played as f64 * 100.0 / n as f64),
            ),
        ];
        if played > 0 {
            out.push(("piles when played".to_string(), format!("{:.3} on average", piles as f64 / played as f64)));
        }
        out
    }
}
