//! `arbiter diff BASE VARIANT`: two rule files merged (their `extends:`
//! chains followed) and compared section by section, side by side; where
//! the engine has an analysis, its figures for both (the return to player
//! of two pay tables).

use std::path::Path;

use arbiter::engines::Compiled;
use arbiter::game::figures::{fraction, pair, Paired, Value as Figured};
use arbiter::game::{AnalyzeOptions, Report};
use arbiter::load::{Loaded, NOT_INHERITED};
use arbiter::report::diag::escape_line;
use arbiter::syntax::fmt::values_text;
use arbiter::syntax::{Item, Section};

use super::term::{exit, fit, Term};
use super::{load_and_compile, print};
use crate::Format;

/// How one section (or the top level) differs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Keys whose values differ: (key, base, variant), `None` when absent.
    Changed(Vec<(String, Option<String>, Option<String>)>),
    Added(String),
    Removed(String),
}

/// The difference of two merged rule files.
pub struct Diff {
    /// (`kind "label"`, or empty for the top level; the change)
    pub changes: Vec<(String, Change)>,
    /// The sections both have alike.
    pub unchanged: Vec<String>,
    /// The figures of both analyses paired, when both have one.
    pub figures: Option<Vec<Paired>>,
}

fn head(s: &Section) -> String {
    let mut t = s.kind.name.clone();
    for l in &s.labels {
        t.push_str(&format!(" \"{}\"", l.value));
    }
    t
}

/// A section's body on one line: `{ key: value ... }`.
fn body(s: &Section) -> String {
    let parts: Vec<String> = s
        .items
        .iter()
        .map(|i| match i {
            Item::Property(p) => format!("{}: {}", p.key.name, values_text(p)),
            Item::Section(inner) => format!("{} {}", head(inner), body(inner)),
        })
        .collect();
    if parts.is_empty() {
        "{ }".into()
    } else {
        format!("{{ {} }}", parts.join("  "))
    }
}

/// The entries of a block: key -> canonical text (a property's values, a
/// nested section's body).
fn entries(items: &[Item]) -> Vec<(String, String)> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Property(p) => Some((p.key.name.clone(), values_text(p))),
            Item::Section(s) if s.kind.name != NOT_INHERITED => Some((head(s), body(s))),
            Item::Section(_) => None,
        })
        .collect()
}

fn compare(a: &[(String, String)], b: &[(String, String)]) -> Vec<(String, Option<String>, Option<String>)> {
    let mut out = Vec::new();
    for (k, v) in a {
        match b.iter().find(|(k2, _)| k2 == k) {
            Some((_, w)) if w == v => {}
            Some((_, w)) => out.push((k.clone(), Some(v.clone()), Some(w.clone()))),
            None => out.push((k.clone(), Some(v.clone()), None)),
        }
    }
    for (k, w) in b {
        if !a.iter().any(|(k2, _)| k2 == k) {
            out.push((k.clone(), None, Some(w.clone())));
        }
    }
    out
}

/// Compares two merged files (worked examples aside: they are not
/// inherited, so they always differ).
pub fn diff(base: &Loaded, variant: &Loaded) -> Diff {
    let sections = |items: &[Item]| -> Vec<(String, Section)> {
        items
            .iter()
            .filter_map(|i| match i {
                Item::Section(s) if s.kind.name != NOT_INHERITED => Some((head(s), s.clone())),
                _ => None,
            })
            .collect()
    };
    let props = |items: &[Item]| -> Vec<(String, String)> {
        items
            .iter()
            .filter_map(|i| match i {
                Item::Property(p) => Some((p.key.name.clone(), values_text(p))),
                Item::Section(_) => None,
            })
            .collect()
    };
    let mut changes = Vec::new();
    let top = compare(&props(&base.items), &props(&variant.items));
    if !top.is_empty() {
        changes.push((String::new(), Change::Changed(top)));
    }
    let (a, b) = (sections(&base.items), sections(&variant.items));
    let mut unchanged = Vec::new();
    for (h, s) in &a {
        match b.iter().find(|(h2, _)| h2 == h) {
            None => changes.push((h.clone(), Change::Removed(body(s)))),
            Some((_, t)) => {
                let c = compare(&entries(&s.items), &entries(&t.items));
                if c.is_empty() {
                    unchanged.push(h.clone());
                } else {
                    changes.push((h.clone(), Change::Changed(c)));
                }
            }
        }
    }
    for (h, t) in &b {
        if !a.iter().any(|(h2, _)| h2 == h) {
            changes.push((h.clone(), Change::Added(body(t))));
        }
    }
    Diff { changes, unchanged, figures: None }
}

fn analyse(c: &Compiled, samples: Option<u64>, ask: &Ask) -> Option<Report> {
    let a = c.game.analysis()?;
    let samples = a.default_samples().map_or(0, |d| samples.unwrap_or(d).max(1));
    Some(
        a.report(&AnalyzeOptions { samples, seed: ask.seed, max_nodes: ask.max_nodes, jobs: ask.jobs }, &mut |_, _| {}),
    )
}

/// How many samples an analysis that stopped short did (the value of its
/// figure `stopped`).
fn done(r: &Report) -> Option<u64> {
    let f = r.figures.iter().find(|f| f.key == "stopped")?;
    f.value.number().map(|n| n as u64)
}

/// Samples asked of an analysis, and how many both files' analyses were
/// compared on when one stopped short.
type Short = (u64, u64);

/// Both files' analyses over the same samples: when one stopped short of
/// them (its node budget), both are analysed again over the samples the
/// shorter one did (sample j is the same deal in both), and the numbers of
/// samples asked and compared come back with them. Files that play the
/// same rules (`same`: no section or property differs) are analysed once:
/// their figures are the same.
fn analyse_alike(bc: &Compiled, vc: &Compiled, same: bool, ask: &Ask) -> Option<(Report, Report, Option<Short>)> {
    let both = |samples| {
        let a = analyse(bc, samples, ask)?;
        let b = if same { a.clone() } else { analyse(vc, samples, ask)? };
        Some((a, b))
    };
    let (a, b) = both(ask.samples)?;
    let short = match (done(&a), done(&b)) {
        (None, None) => return Some((a, b, None)),
        (x, y) => x.into_iter().chain(y).min().unwrap_or(0),
    };
    let asked = bc.game.analysis()?.default_samples().map_or(0, |d| ask.samples.unwrap_or(d));
    if short == 0 {
        return Some((a, b, Some((asked, 0))));
    }
    let (a, b) = both(Some(short))?;
    Some((a, b, Some((asked, short))))
}

/// A side's text (`-` when it has no such figure).
fn shown(v: &Option<Figured>) -> String {
    v.as_ref().map_or("-".to_string(), |v| v.text.clone())
}

/// What `diff` was asked for.
pub struct Ask {
    pub format: Format,
    pub samples: Option<u64>,
    pub seed: u64,
    /// Exit 1 when the files differ.
    pub exit_code: bool,
    /// `--max-nodes`: the node budget of analyses that search.
    pub max_nodes: Option<u64>,
    /// `--jobs`: threads of sampled analyses.
    pub jobs: usize,
}

pub fn run(term: &Term, base: &Path, variant: &Path, ask: &Ask) -> u8 {
    let Ask { format, exit_code, .. } = *ask;
    let (bl, bc) = match load_and_compile(term, base) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let (vl, vc) = match load_and_compile(term, variant) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let mut d = diff(&bl, &vl);
    let mut short = None;
    if bc.engine.name == vc.engine.name {
        if let Some((a, b, s)) = analyse_alike(&bc, &vc, d.changes.is_empty(), ask) {
            d.figures = Some(pair(&a, &b));
            short = s;
        }
    }
    let (bn, vn) = (base.display().to_string(), variant.display().to_string());
    let text = match format {
        Format::Json => json(&d, (&bn, &bc), (&vn, &vc)),
        Format::Text => {
            let d = escaped(&d);
            let (bn, vn) = (escape_line(&bn), escape_line(&vn));
            let wide = text(&d, (&bn, &bc), (&vn, &vc));
            match term.columns {
                Some(c) if wide.lines().any(|l| l.chars().count() > c) => {
                    fit(&stacked(&d, (&bn, &bc), (&vn, &vc)), Some(c))
                }
                _ => wide,
            }
        }
    };
    let code = match print(term, text.as_bytes()) {
        exit::OK if exit_code && !d.changes.is_empty() => exit::DIFFERENT,
        code => code,
    };
    match short {
        Some((asked, compared)) => exit::worst(
            code,
            term.fail(
                arbiter::diag::codes::LIMIT,
                format!(
                    "an analysis stopped short of its {asked} samples (its node budget): both files are compared on the first {compared}; `--max-nodes N` raises the budget"
                ),
            ),
        ),
        None => code,
    }
}

fn json(d: &Diff, (bn, bc): (&str, &Compiled), (vn, vc): (&str, &Compiled)) -> String {
    use serde_json::{json, Value};
    let side = |n: &str, c: &Compiled| json!({ "file": n, "title": c.title, "engine": c.engine.name });
    let changes: Vec<Value> = d
        .changes
        .iter()
        .map(|(h, c)| match c {
            Change::Changed(keys) => json!({
                "section": h, "change": "changed",
                "keys": keys.iter().map(|(k, a, b)| json!({ "key": k, "base": a, "variant": b })).collect::<Vec<_>>(),
            }),
            Change::Added(t) => json!({ "section": h, "change": "added", "variant": t }),
            Change::Removed(t) => json!({ "section": h, "change": "removed", "base": t }),
        })
        .collect();
    let number = |v: &Option<Figured>| v.as_ref().and_then(Figured::number).filter(|x| x.is_finite());
    let exact = |v: &Option<Figured>| v.as_ref().and_then(|v| v.exact.as_ref()).map(fraction);
    let figures = d.figures.as_ref().map(|f| {
        f.iter()
            .map(|p| {
                json!({
                    "figure": p.label.trim_start(), "key": p.key,
                    "base": shown(&p.base), "variant": shown(&p.variant),
                    "difference": p.difference.as_ref().map(|v| v.text.clone()),
                    "base_value": number(&p.base), "variant_value": number(&p.variant),
                    "difference_value": number(&p.difference),
                    "base_exact": exact(&p.base), "variant_exact": exact(&p.variant),
                    "difference_exact": exact(&p.difference),
                })
            })
            .collect::<Vec<_>>()
    });
    let v = json!({
        "base": side(bn, bc), "variant": side(vn, vc),
        "changes": changes, "unchanged": d.unchanged, "analysis": figures,
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

/// `d` with every text from the files (names, values, labels in figures)
/// escaped for a terminal, each on one line (`\u{1b}`, `\n`).
fn escaped(d: &Diff) -> Diff {
    let e = |s: &String| escape_line(s);
    let change = |c: &Change| match c {
        Change::Changed(keys) => {
            Change::Changed(keys.iter().map(|(k, a, b)| (e(k), a.as_ref().map(e), b.as_ref().map(e))).collect())
        }
        Change::Added(t) => Change::Added(e(t)),
        Change::Removed(t) => Change::Removed(e(t)),
    };
    Diff {
        changes: d.changes.iter().map(|(h, c)| (e(h), change(c))).collect(),
        unchanged: d.unchanged.iter().map(e).collect(),
        figures: d.figures.as_ref().map(|f| {
            let v = |v: &Option<Figured>| {
                v.clone().map(|mut v| {
                    v.text = e(&v.text);
                    v
                })
            };
            f.iter()
                .map(|p| Paired {
                    label: e(&p.label),
                    key: p.key.clone(),
                    base: v(&p.base),
                    variant: v(&p.variant),
                    difference: v(&p.difference),
                })
                .collect()
        }),
    }
}

/// The engines of both files, as the first line names them.
fn engines(bc: &Compiled, vc: &Compiled) -> String {
    if bc.engine.name == vc.engine.name {
        bc.engine.name.to_string()
    } else {
        format!("{} -> {}", bc.engine.name, vc.engine.name)
    }
}

/// The comparison for a narrow terminal: each value under its key, the
/// base's, the variant's and the difference on lines of their own.
fn stacked(d: &Diff, (bn, bc): (&str, &Compiled), (vn, vc): (&str, &Compiled)) -> String {
    let mut out = format!("engine {}\nbase     {bn}\nvariant  {vn}\n", engines(bc, vc));
    if d.changes.is_empty() {
        out.push_str("(the rules are the same)\n");
    }
    let pair = |out: &mut String, indent: &str, a: &str, b: &str| {
        out.push_str(&format!("{indent}base     {a}\n{indent}variant  {b}\n"));
    };
    for (h, c) in &d.changes {
        let name = if h.is_empty() { "(top level)" } else { h.as_str() };
        out.push_str(&format!("{name}\n"));
        match c {
            Change::Changed(keys) => {
                for (k, a, b) in keys {
                    let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "(not set)".into());
                    out.push_str(&format!("  {k}\n"));
                    pair(&mut out, "    ", &show(a), &show(b));
                }
            }
            Change::Added(t) => pair(&mut out, "  ", "(not in base)", t),
            Change::Removed(t) => pair(&mut out, "  ", t, "(removed)"),
        }
    }
    if let Some(figures) = &d.figures {
        out.push_str("analysis\n");
        for p in figures {
            let (a, b) = (shown(&p.base), shown(&p.variant));
            out.push_str(&format!("  {}\n", p.label.trim_start()));
            if a == b {
                out.push_str(&format!("    alike    {a}\n"));
                continue;
            }
            pair(&mut out, "    ", &a, &b);
            if let Some(diff) = &p.difference {
                out.push_str(&format!("    change   {}\n", diff.text));
            }
        }
    }
    if !d.unchanged.is_empty() {
        out.push_str(&format!("\nunchanged: {}\n", d.unchanged.join(", ")));
    }
    out
}

fn text(d: &Diff, (bn, bc): (&str, &Compiled), (vn, vc): (&str, &Compiled)) -> String {
    // Rows: (left column, base, variant); a row with no values is a heading.
    let mut rows: Vec<(String, Option<String>, Option<String>)> = Vec::new();
    for (h, c) in &d.changes {
        let name = if h.is_empty() { "(top level)".to_string() } else { h.clone() };
        match c {
            Change::Changed(keys) => {
                rows.push((name, None, None));
                for (k, a, b) in keys {
                    let show = |v: &Option<String>| Some(v.clone().unwrap_or_else(|| "(not set)".into()));
                    rows.push((format!("  {k}"), show(a), show(b)));
                }
            }
            Change::Added(t) => rows.push((name, Some("(not in base)".into()), Some(t.clone()))),
            Change::Removed(t) => rows.push((name, Some(t.clone()), Some("(removed)".into()))),
        }
    }
    // Figures alike in both are printed once, after the others.
    let all: Vec<(String, String, String, String)> = d
        .figures
        .iter()
        .flatten()
        .map(|p| {
            let diff = p.difference.as_ref().map_or(String::new(), |v| v.text.clone());
            (p.label.trim_start().to_string(), shown(&p.base), shown(&p.variant), diff)
        })
        .collect();
    let figures: Vec<&(String, String, String, String)> = all.iter().filter(|f| f.1 != f.2).collect();
    let alike: Vec<&(String, String, String, String)> = all.iter().filter(|f| f.1 == f.2).collect();
    let vw = figures.iter().map(|f| f.2.chars().count()).max().unwrap_or(0);
    let kw = rows
        .iter()
        .filter(|r| r.1.is_some())
        .map(|r| r.0.chars().count())
        .chain(figures.iter().map(|f| f.0.chars().count() + 2))
        .max()
        .unwrap_or(0)
        .max(8);
    let bw = rows
        .iter()
        .filter_map(|r| r.1.as_ref())
        .chain(figures.iter().map(|f| &f.1))
        .map(|s| s.chars().count())
        .chain([bn.chars().count()])
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    out.push_str(&format!("{:kw$}  {:bw$}  {vn}\n", format!("engine {}", engines(bc, vc)), bn));
    if d.changes.is_empty() {
        out.push_str("(the rules are the same)\n");
    }
    for (k, a, b) in &rows {
        match (a, b) {
            (Some(a), Some(b)) => out.push_str(&format!("{k:kw$}  {a:bw$}  {b}\n")),
            _ => out.push_str(&format!("{k}\n")),
        }
    }
    if d.figures.is_some() {
        out.push_str("analysis\n");
        for (k, a, b, diff) in &figures {
            let line = format!("{:kw$}  {a:bw$}  {b:vw$}  {diff}", format!("  {k}"));
            out.push_str(line.trim_end());
            out.push('\n');
        }
        for (k, a, _, _) in &alike {
            out.push_str(&format!("  {k} (alike): {a}\n"));
        }
    }
    if !d.unchanged.is_empty() {
        out.push_str(&format!("\nunchanged: {}\n", d.unchanged.join(", ")));
    }
    out
}
