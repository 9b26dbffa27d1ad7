//! `arbiter merge RULES PART...`: the partial results of a sampled
//! analysis's shards (`arbiter analyze RULES --shard I/K --partial`),
//! checked to make one whole analysis, added up exactly, and reported as
//! `arbiter analyze RULES` reports the whole.

use std::io::Read;
use std::path::{Path, PathBuf};

use arbiter::diag::codes;
use arbiter::game::AnalyzeOptions;
use serde_json::Value;

use super::analyze::{report, rules_id, PART_KIND, PART_VERSION};
use super::term::Term;
use super::{load_and_compile, print, unsupported};

/// One partial result and where it was read.
struct Found {
    place: String,
    from: u64,
    to: u64,
    json: Value,
}

pub fn merge(term: &Term, path: &Path, files: &[PathBuf]) -> u8 {
    let (loaded, compiled) = match load_and_compile(term, path) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let name = compiled.engine.name;
    let Some(sampled) = compiled.game.analysis().and_then(|a| a.sampled()) else {
        return unsupported(term, format!("the `{name}` engine's analysis samples nothing: there is nothing to merge"));
    };
    let mut found = Vec::new();
    for file in files {
        match read_parts(file) {
            Ok(parts) => found.extend(parts),
            Err(Failure::Unreadable(e)) => {
                return term.fail(codes::IO, format!("cannot read `{}`: {e}", file.display()));
            }
            Err(Failure::Bad(e)) => return term.fail(codes::PARTIAL, e),
        }
    }
    let expected = (name, rules_id(&loaded));
    match check(&mut found, &expected) {
        Ok(opts) => {
            let parts: Vec<Value> = found.into_iter().map(|f| f.json["part"].clone()).collect();
            match sampled.report(&opts, &parts) {
                Ok(lines) => super::term::exit::worst(
                    print(term, report(compiled.title.as_deref(), path, &lines).as_bytes()),
                    super::analyze::stopped(term, &lines, opts.samples),
                ),
                Err(e) => term.fail(codes::PARTIAL, format!("the partial results do not add up: {e}")),
            }
        }
        Err(e) => term.fail(codes::PARTIAL, e),
    }
}

enum Failure {
    Unreadable(std::io::Error),
    Bad(String),
}

/// The partial results of a file (`-`: standard input), one JSON object a
/// line.
fn read_parts(file: &Path) -> Result<Vec<Found>, Failure> {
    let mut text = String::new();
    let read = if file.as_os_str() == "-" {
        std::io::stdin().read_to_string(&mut text)
    } else {
        std::fs::File::open(file).and_then(|mut f| f.read_to_string(&mut text))
    };
    read.map_err(Failure::Unreadable)?;
    let mut parts = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let place = format!("{}:{}", file.display(), i + 1);
        let json: Value =
            serde_json::from_str(line).map_err(|e| Failure::Bad(format!("{place}: not a partial result: {e}")))?;
        if json["kind"] != PART_KIND || json["version"] != PART_VERSION {
            return Err(Failure::Bad(format!(
                "{place}: not a partial result of `arbiter analyze --partial` (kind `{PART_KIND}`, version {PART_VERSION})"
            )));
        }
        let (Some(from), Some(to)) = (json["from"].as_u64(), json["to"].as_u64()) else {
            return Err(Failure::Bad(format!("{place}: no range of samples (`from`, `to`)")));
        };
        parts.push(Found { place, from, to, json });
    }
    Ok(parts)
}

/// Checks that the parts are of these rules (engine and rules id), of one
/// analysis (seed and samples), and cover its samples once each; sorts
/// them by their samples. The options of the whole analysis.
fn check(found: &mut [Found], expected: &(&str, String)) -> Result<AnalyzeOptions, String> {
    let first = found.first().ok_or("no partial result to merge")?;
    let (seed, samples) = (first.json["seed"].as_u64(), first.json["samples"].as_u64());
    let (Some(seed), Some(samples)) = (seed, samples) else {
        return Err(format!("{}: no seed or number of samples", first.place));
    };
    let budget = first.json["max_nodes"].clone();
    let max_nodes = budget.as_u64();
    for f in found.iter() {
        if f.json["engine"] != expected.0 || f.json["rules"] != expected.1.as_str() {
            return Err(format!(
                "{}: a partial result of other rules (engine {}, rules {}; these are {} and {})",
                f.place, f.json["engine"], f.json["rules"], expected.0, expected.1
            ));
        }
        if f.json["max_nodes"] != budget {
            return Err(format!(
                "{}: of an analysis with another node budget (--max-nodes {}; the first has {budget})",
                f.place, f.json["max_nodes"]
            ));
        }
        if f.json["seed"].as_u64() != Some(seed) || f.json["samples"].as_u64() != Some(samples) {
            return Err(format!(
                "{}: of another analysis (seed {}, {} samples; the first is seed {seed}, {samples} samples)",
                f.place, f.json["seed"], f.json["samples"]
            ));
        }
    }
    found.sort_by_key(|f| (f.from, f.to));
    let mut next = 0;
    for f in found.iter() {
        if f.from > next {
            return Err(format!("samples {next}..{} are in no partial result (a shard is missing)", f.from));
        }
        if f.from < next || f.to < f.from {
            return Err(format!("{}: samples {}..{} are in two partial results", f.place, f.from, next.min(f.to)));
        }
        next = f.to;
    }
    if next != samples {
        return Err(format!("samples {next}..{samples} are in no partial result (a shard is missing)"));
    }
    Ok(AnalyzeOptions { samples, seed, max_nodes, jobs: 1 })
}
