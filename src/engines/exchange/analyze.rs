//! `arbiter analyze` for the exchange engine: the exact expected earning,
//! stake and return to player over every deal, with optimal play.

use super::Exchange;
use crate::game::{Analysis, Analyze, AnalyzeOptions};

impl Analyze for Exchange {
    fn analyze(&self, _: &AnalyzeOptions, progress: &mut dyn FnMut(u64, u64)) -> Analysis {
        let r = self.expected_return(progress);
        let pct = |(n, d): (i128, i128)| format!("{:.4} %", n as f64 * 100.0 / d as f64);
        let frac = |(n, d): (i128, i128)| format!("{n}/{d} = {:.6}", n as f64 / d as f64);
        vec![
            (
                "deals".into(),
                format!("{} (every deal of {} cards, each equally likely; optimal play)", r.deals, self.hand),
            ),
            ("expected earning per game".into(), frac(r.earning)),
            ("expected stake per game".into(), frac(r.stake)),
            ("return to player".into(), format!("{} ({})", pct(r.return_to_player()), frac(r.return_to_player()))),
        ]
    }
}
