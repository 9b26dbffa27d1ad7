//! A strategy chart as data: what `arbiter strategy` prints (as text or
//! JSON), made by an engine that can class its choices
//! ([`Strategy::chart`]).

use num_rational::BigRational;

/// Options of `arbiter strategy`.
#[derive(Debug, Clone, Copy)]
pub struct ChartOptions {
    /// Most lines of the chart, the last one (exchange every card)
    /// included.
    pub lines: usize,
}

/// One line of a chart: a class of choices in the rule file's words.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartLine {
    pub label: String,
    /// Cards kept.
    pub kept: usize,
    /// The share of deals played by this line.
    pub deals: BigRational,
    /// The mean expected earning (payout minus stake) of the deals played
    /// by this line; none when no deal is.
    pub value: Option<BigRational>,
}

/// A chart: its lines in order (a deal is played by the first line one of
/// its choices belongs to), and the exact returns.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    pub lines: Vec<ChartLine>,
    /// Return to player with optimal play, and following the chart.
    pub optimal: Option<BigRational>,
    pub chart: Option<BigRational>,
    /// What optimal play earns more than the chart per game (payout less
    /// stake), in percentage points of the entry; none without an entry.
    /// Never negative, even where the chart's return (payout over stake)
    /// is the higher: a chart that exchanges less stakes less.
    pub loss: Option<BigRational>,
    /// Classes of choices found, before the chart kept the best.
    pub classes: usize,
    /// Deals in all.
    pub deals: u128,
}

/// An engine that can write a strategy chart for its rules.
pub trait Strategy {
    /// The chart, or why there is none (a limit, in words).
    fn chart(&self, opts: &ChartOptions) -> Result<Chart, String>;
}
