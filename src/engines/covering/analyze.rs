//! `arbiter analyze` for the covering engine: how often a random deck is
//! played out without overflow, over seeded samples (in parts that merge
//! exactly: [`Sampled`]).

use std::ops::Range;

use serde_json::{json, Value};

use super::{Covering, Table};
use num_bigint::BigInt;
use num_rational::Ratio;

use crate::game::figures::{Figure, Style, Value as Figured};
use crate::game::{analyze_sampled, Analyze, AnalyzeOptions, Report, Sampled};
use crate::rng::SplitMix64;

impl Analyze for Covering {
    /// The rate of decks played without overflow over seeded random decks.
    /// About half a second for a 52-card deck.
    fn default_samples(&self) -> Option<u64> {
        Some(100_000)
    }

    fn report(&self, opts: &AnalyzeOptions, progress: &mut dyn FnMut(u64, u64)) -> Report {
        analyze_sampled(self, opts, progress)
    }

    fn sampled(&self) -> Option<&dyn Sampled> {
        Some(self)
    }
}

/// A part: the decks played out and their piles, over its samples.
impl Sampled for Covering {
    fn sample(&self, opts: &AnalyzeOptions, range: Range<u64>, progress: &mut dyn FnMut(u64, u64)) -> Value {
        // Each card once per pack, shuffled anew for each sample.
        let cards: Vec<u16> =
            (0..self.deck.size() as u16).flat_map(|c| std::iter::repeat_n(c, self.deck.packs)).collect();
        let mut deck = cards.clone();
        let (mut played, mut piles) = (0u64, 0u64);
        let mut table = Table::default();
        let total = range.end - range.start;
        for j in range.clone() {
            deck.copy_from_slice(&cards);
            SplitMix64::for_sample(opts.seed, j).shuffle(&mut deck);
            if self.play_on(&mut table, &deck, &mut |_| {}).is_none() {
                played += 1;
                piles += table.piles() as u64;
            }
            if (j - range.start).is_multiple_of(4096) {
                progress(j - range.start, total);
            }
        }
        progress(total, total);
        json!({ "decks": total, "played": played, "piles": piles })
    }

    /// The counts of the parts added up.
    fn join(&self, _: &AnalyzeOptions, parts: &[Value]) -> Value {
        let sum = |name: &str| parts.iter().filter_map(|p| p[name].as_u64()).fold(0u64, u64::saturating_add);
        json!({ "decks": sum("decks"), "played": sum("played"), "piles": sum("piles") })
    }

    fn report(&self, opts: &AnalyzeOptions, parts: &[Value]) -> Result<Report, String> {
        let (mut n, mut played, mut piles) = (0u64, 0u64, 0u64);
        let past = || "counts past 2^64".to_string();
        for part in parts {
            let field = |name: &str| part[name].as_u64().ok_or_else(|| format!("no count `{name}`"));
            n = n.checked_add(field("decks")?).ok_or_else(past)?;
            played = played.checked_add(field("played")?).ok_or_else(past)?;
            piles = piles.checked_add(field("piles")?).ok_or_else(past)?;
        }
        if n != opts.samples || played > n {
            return Err(format!("{n} decks with {played} played out, for {} samples", opts.samples));
        }
        let rate = Ratio::new(BigInt::from(played), BigInt::from(n));
        let mut out = vec![
            Figure::new("decks", "decks", Figured::text(format!("{n} random decks (seed {})", opts.seed))),
            Figure::new(
                "played_without_overflow",
                "played without overflow",
                Figured::exact_with(
                    rate,
                    Style::Percent(4),
                    format!("{played} of {n} = {:.4} %", played as f64 * 100.0 / n as f64),
                ),
            ),
        ];
        if played > 0 {
            let mean = Ratio::new(BigInt::from(piles), BigInt::from(played));
            out.push(Figure::new(
                "piles_when_played",
                "piles when played",
                Figured::exact_with(mean, Style::Decimal(3), format!("{:.3} on average", piles as f64 / played as f64)),
            ));
        }
        Ok(Report { figures: out, tables: Vec::new() })
    }
}
