//! `arbiter strategy`: the engine's strategy chart as text (lines in
//! order, each with its share of deals and mean value, then the returns)
//! or JSON (`--format json`, docs/cli.md).

use std::path::Path;

use num_rational::BigRational;
use num_traits::ToPrimitive;

use arbiter::game::figures::{decimal, fraction};
use arbiter::game::strategy::{Chart, ChartOptions};
use arbiter::report::diag::escape_line;

use super::term::Term;
use super::{load_and_compile, print, unsupported};
use crate::Format;

/// The kind and version of `strategy --format json` (docs/cli.md).
pub const CHART_KIND: &str = "arbiter-strategy";
pub const CHART_VERSION: u64 = 1;

pub fn strategy(term: &Term, path: &Path, lines: usize, format: Format) -> u8 {
    let (_, compiled) = match load_and_compile(term, path) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let Some(s) = compiled.game.strategy() else {
        return unsupported(term, format!("the `{}` engine has no strategy chart", compiled.engine.name));
    };
    let bar = super::analyze::progress_bar(term.quiet);
    let chart = s.chart(&ChartOptions { lines });
    bar.finish_and_clear();
    let chart = match chart {
        Ok(c) => c,
        Err(why) => return unsupported(term, format!("no chart for these rules: {why}")),
    };
    let text = match format {
        Format::Text => text(compiled.title.as_deref(), path, &chart),
        Format::Json => json(compiled.title.as_deref(), path, compiled.engine.name, &chart),
    };
    print(term, text.as_bytes())
}

/// A percentage with 4 places, or "-".
fn percent(x: Option<&BigRational>) -> String {
    x.map_or("-".into(), |x| format!("{} %", decimal(&(x * BigRational::from_integer(100.into())), 4)))
}

/// The chart as printed: numbered lines (the first line that matches a
/// deal plays it), then the returns.
pub fn text(title: Option<&str>, path: &Path, c: &Chart) -> String {
    let mut out = String::new();
    if let Some(title) = title {
        out.push_str(&format!("{} ({})\n", escape_line(title), escape_line(&path.display().to_string())));
    }
    out.push_str("Hold the first line that the deal has (its value: the mean expected earning per game):\n");
    let width = c.lines.iter().map(|l| l.label.chars().count()).max().unwrap_or(0);
    for (i, l) in c.lines.iter().enumerate() {
        let value = l.value.as_ref().map_or("-".into(), |v| decimal(v, 4));
        let share = decimal(&(&l.deals * BigRational::from_integer(100.into())), 4);
        out.push_str(&format!("{:>3}. {:width$}  {value:>9}  {share:>8} % of deals\n", i + 1, escape_line(&l.label)));
    }
    out.push_str(&format!("\nReturn following the chart  {}\n", percent(c.chart.as_ref())));
    out.push_str(&format!("Return with optimal play     {}\n", percent(c.optimal.as_ref())));
    if let Some(l) = &c.loss {
        out.push_str(&format!("Loss against optimal play   {} percentage points\n", decimal(l, 4)));
    }
    out.push_str(&format!("Classes of holds found       {}; lines kept {}\n", c.classes, c.lines.len()));
    out
}

/// `{"value": number, "exact": "n/d"}` of a fraction (nulls for none).
fn exact(x: Option<&BigRational>) -> serde_json::Value {
    serde_json::json!({
        "value": x.and_then(ToPrimitive::to_f64),
        "exact": x.map(fraction),
    })
}

/// `strategy --format json` (docs/cli.md).
pub fn json(title: Option<&str>, path: &Path, engine: &str, c: &Chart) -> String {
    use serde_json::json;
    let lines: Vec<serde_json::Value> = c
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            json!({
                "line": i + 1,
                "label": l.label,
                "kept": l.kept,
                "deals": exact(Some(&l.deals)),
                "value": exact(l.value.as_ref()),
            })
        })
        .collect();
    let doc = json!({
        "kind": CHART_KIND,
        "version": CHART_VERSION,
        "engine": engine,
        "title": title,
        "rules": path.display().to_string(),
        "lines": lines,
        "return": exact(c.chart.as_ref()),
        "optimal": exact(c.optimal.as_ref()),
        "loss": exact(c.loss.as_ref()),
        "classes": c.classes,
        "deals": c.deals.to_string(),
    });
    format!("{doc}\n")
}
