//! `arbiter analyze`: figures of a game as a whole, with a progress bar on
//! a terminal for long analyses; for sampled analyses, a shard of the
//! samples (`--shard I/K`) and its exact partial result (`--partial`),
//! which `arbiter merge` adds up.

use std::io::IsTerminal;
use std::path::Path;

use arbiter::game::figures::{Table, Value};
use arbiter::game::{AnalyzeOptions, Report};
use arbiter::load::Loaded;
use arbiter::report::diag::escape_line;

use super::term::{exit, fit, Term};
use super::{load_and_compile, print, unsupported};
use crate::Format;

/// The kind and version of a partial result (docs/cli.md).
pub const PART_KIND: &str = "arbiter-analysis-part";
pub const PART_VERSION: u64 = 1;

/// `--shard I/K`: the I-th (1-based) of K disjoint parts of the samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub of: u64,
}

impl Shard {
    /// Parses `I/K` with 1 <= I <= K.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("`{text}` is not I/K (the I-th of K parts, 1 <= I <= K, as in 3/8)");
        let (i, k) = text.split_once('/').ok_or_else(bad)?;
        let (index, of) = (i.trim().parse::<u64>().map_err(|_| bad())?, k.trim().parse::<u64>().map_err(|_| bad())?);
        if index == 0 || index > of {
            return Err(bad());
        }
        Ok(Shard { index, of })
    }

    /// The samples of this shard among `n`: `from..to`.
    pub fn range(self, n: u64) -> std::ops::Range<u64> {
        let at = |i: u64| (u128::from(i) * u128::from(n) / u128::from(self.of)) as u64;
        at(self.index - 1)..at(self.index)
    }
}

/// What `arbiter analyze` was asked.
pub struct Ask {
    pub samples: Option<u64>,
    pub seed: u64,
    pub shard: Option<Shard>,
    pub partial: bool,
    pub format: Format,
    /// `--max-nodes`: the node budget of an analysis that searches.
    pub max_nodes: Option<u64>,
    /// `--jobs`: threads of a sampled analysis.
    pub jobs: usize,
}

/// The kind and version of `analyze --format json` (docs/cli.md).
pub const REPORT_KIND: &str = "arbiter-analysis";
pub const REPORT_VERSION: u64 = 1;

pub fn analyze(term: &Term, path: &Path, ask: &Ask) -> u8 {
    let (loaded, compiled) = match load_and_compile(term, path) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let Some(analysis) = compiled.game.analysis() else {
        return unsupported(term, format!("the `{}` engine has no analysis", compiled.engine.name));
    };
    let exact = |what: &str| {
        unsupported(term, format!("the `{}` engine's analysis is exact: `{what}` does not apply", compiled.engine.name))
    };
    let samples = match (analysis.default_samples(), ask.samples) {
        (None, Some(_)) => return exact("--samples"),
        (None, None) => 0,
        (Some(default), asked) => asked.unwrap_or(default).max(1),
    };
    if ask.max_nodes.is_some() && analysis.node_budget().is_none() {
        return unsupported(
            term,
            format!("the `{}` engine's analysis searches nothing: `--max-nodes` does not apply", compiled.engine.name),
        );
    }
    let bar = progress_bar(term.quiet);
    let mut progress = |done, total| {
        bar.set_length(total);
        bar.set_position(done);
    };
    let opts = AnalyzeOptions { samples, seed: ask.seed, max_nodes: ask.max_nodes, jobs: ask.jobs };
    let show = |r: &Report| match ask.format {
        Format::Text => fit(&report(compiled.title.as_deref(), path, r), term.columns),
        Format::Json => json(compiled.title.as_deref(), path, compiled.engine.name, r),
    };
    if ask.shard.is_none() && !ask.partial {
        let r = analysis.report(&opts, &mut progress);
        bar.finish_and_clear();
        return exit::worst(print(term, show(&r).as_bytes()), stopped(term, &r, samples));
    }
    if ask.partial && ask.format == Format::Json {
        return unsupported(term, "`--partial` prints JSON of its own: `--format` does not apply".to_string());
    }
    let Some(sampled) = analysis.sampled() else {
        return exact(if ask.partial { "--partial" } else { "--shard" });
    };
    let shard = ask.shard.unwrap_or(Shard { index: 1, of: 1 });
    let range = shard.range(samples);
    let part = arbiter::game::sampling::sample_range(sampled, &opts, range.clone(), &mut progress);
    bar.finish_and_clear();
    if ask.partial {
        let json = serde_json::json!({
            "kind": PART_KIND,
            "version": PART_VERSION,
            "engine": compiled.engine.name,
            "rules": rules_id(&loaded),
            "seed": ask.seed,
            "samples": samples,
            "max_nodes": ask.max_nodes,
            "shard": [shard.index, shard.of],
            "from": range.start,
            "to": range.end,
            "part": part,
        });
        return print(term, format!("{json}\n").as_bytes());
    }
    // A shard's own figures: its samples as an analysis of their own.
    let own = AnalyzeOptions { samples: range.end - range.start, ..opts };
    match sampled.report(&own, &[part]) {
        Ok(lines) => exit::worst(print(term, show(&lines).as_bytes()), stopped(term, &lines, own.samples)),
        Err(e) => unsupported(term, format!("this shard's samples make no report of their own: {e}")),
    }
}

/// After the figures of an analysis that stopped short of its samples (a
/// figure `stopped`, which says where and why): a limit diagnostic naming
/// the budget and the option that raises it (exit 8); after one refused
/// at a limit (a figure `refused`), a limit diagnostic saying which (exit
/// 8); else 0.
pub fn stopped(term: &Term, r: &Report, samples: u64) -> u8 {
    if let Some(why) = r.figures.iter().find(|f| f.key == "refused") {
        return term.fail(arbiter::diag::codes::LIMIT, format!("no analysis of these rules: {}", why.value.text));
    }
    let Some(why) = r.figures.iter().find(|f| f.key == "stopped") else { return exit::OK };
    term.fail(
        arbiter::diag::codes::LIMIT,
        format!(
            "the analysis stopped short of its {samples} samples ({}): `--max-nodes N` raises its node budget; the figures above are those of the deals done",
            why.value.text
        ),
    )
}

/// A progress bar on stderr, drawn only on a terminal and not `--quiet`.
pub fn progress_bar(quiet: bool) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(0);
    if quiet || !std::io::stderr().is_terminal() {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} ({eta})") {
        bar.set_style(style);
    }
    bar
}

/// The report as printed: the title line, the figures aligned, then each
/// table with its column labels, numbers aligned right.
pub fn report(title: Option<&str>, path: &Path, r: &Report) -> String {
    let lines: Vec<(String, String)> = r.figures.iter().map(|f| (f.label.clone(), f.value.text.clone())).collect();
    let width = lines.iter().map(|(k, _)| k.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    if let Some(title) = title {
        out.push_str(&format!("{} ({})\n", escape_line(title), escape_line(&path.display().to_string())));
    }
    for (k, v) in lines {
        out.push_str(&format!("{:width$}  {}\n", escape_line(&k), escape_line(&v)));
    }
    for t in &r.tables {
        out.push('\n');
        out.push_str(&table_text(t));
    }
    out
}

/// A table as text: a header of column labels, the rows, the total row.
fn table_text(t: &Table) -> String {
    let cell = |v: &Value| escape_line(&v.text);
    let mut grid: Vec<Vec<String>> = vec![t.columns.iter().map(|c| escape_line(&c.label)).collect()];
    grid.extend(t.rows.iter().chain(t.total.iter()).map(|row| row.iter().map(cell).collect()));
    let numeric: Vec<bool> = (0..t.columns.len())
        .map(|c| {
            t.rows.iter().all(|row| row.get(c).is_none_or(|v| v.exact.is_some() || v.approx.is_some() || v.text == "-"))
        })
        .collect();
    let widths: Vec<usize> = (0..t.columns.len())
        .map(|c| grid.iter().filter_map(|row| row.get(c)).map(|s| s.chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in &grid {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, s)| {
                let w = widths.get(c).copied().unwrap_or(0);
                if numeric.get(c).copied().unwrap_or(false) {
                    format!("{s:>w$}")
                } else {
                    format!("{s:w$}")
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// `analyze --format json` (docs/cli.md): every figure and table cell as
/// `{"text", "value", "exact"}`, `value` a JSON number or null, `exact`
/// an `"n/d"` string or null.
pub fn json(title: Option<&str>, path: &Path, engine: &str, r: &Report) -> String {
    use serde_json::json;
    let value = arbiter::report::explain::value_json;
    let figures: Vec<serde_json::Value> = r.figures.iter().map(arbiter::report::explain::figure_json).collect();
    let row = |t: &Table, cells: &[Value]| {
        let mut o = serde_json::Map::new();
        for (c, v) in t.columns.iter().zip(cells) {
            o.insert(c.key.clone(), value(v));
        }
        serde_json::Value::Object(o)
    };
    let tables: Vec<serde_json::Value> = r
        .tables
        .iter()
        .map(|t| {
            json!({
                "key": t.key,
                "columns": t.columns.iter().map(|c| json!({ "key": c.key, "label": c.label })).collect::<Vec<_>>(),
                "rows": t.rows.iter().map(|cells| row(t, cells)).collect::<Vec<_>>(),
                "total": t.total.as_ref().map(|cells| row(t, cells)),
            })
        })
        .collect();
    let v = json!({
        "kind": REPORT_KIND,
        "version": REPORT_VERSION,
        "title": title,
        "rules": path.display().to_string(),
        "engine": engine,
        "figures": figures,
        "tables": tables,
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

/// What identifies the rules of a partial result: a hash (64-bit FNV-1a)
/// of the text of every file the rule file is made of (its `extends:`
/// chain), whatever path named them.
pub fn rules_id(loaded: &Loaded) -> String {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for id in 0..loaded.sources.len() {
        for &b in loaded.sources.file(id as _).text.as_bytes().iter().chain(&[0xff]) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("fnv1a64:{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_every_sample_once() {
        for n in [0, 1, 7, 1000, 1001] {
            for k in 1..=9 {
                let mut next = 0;
                for i in 1..=k {
                    let r = Shard { index: i, of: k }.range(n);
                    assert_eq!(r.start, next, "n {n}, shard {i}/{k}");
                    next = r.end;
                }
                assert_eq!(next, n);
            }
        }
        assert_eq!(Shard::parse("3/8"), Ok(Shard { index: 3, of: 8 }));
        for bad in ["0/4", "5/4", "4", "a/b", "1/0", "-1/4"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }
}
