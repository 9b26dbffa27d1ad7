//! Replays the repository's own files and every input a fuzzer ever crashed
//! on (tests/fuzz_regressions/) through the fuzz entry points: none may
//! panic. The seeds are the files themselves: rule files and broken rule
//! files for the rule front end; each game's cases and bad inputs for its
//! input readers (fuzz/run copies the same files into its corpus). Takes
//! seconds; the fuzzers themselves run with cargo fuzz (see fuzz/README.md).

use std::path::{Path, PathBuf};

/// Every file under `dir` (recursively) with extension `ext` (any: `None`).
fn files(dir: &Path, ext: Option<&str>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            out.extend(files(&p, ext));
        } else if ext.is_none_or(|x| p.extension().is_some_and(|e| e == x)) && !p.ends_with(".keep") {
            out.push(p);
        }
    }
    out
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn rule_front_end_survives_the_corpus() {
    let dir = root().join("rules");
    let mut seeds = files(&dir, Some("rules"));
    seeds.extend(files(&root().join("tests/check"), Some("rules")));
    seeds.extend(files(&root().join("tests/fuzz_regressions/rules"), None));
    assert!(seeds.len() > 20);
    for f in seeds {
        arbiter::fuzz::rules(&dir, &std::fs::read(&f).unwrap());
    }
}

/// The per-game input targets: every case, bad input and regression of a
/// game runs against the game's base rule file and each of its variants.
#[test]
fn input_readers_survive_the_corpus() {
    let rules = root().join("rules");
    let mut games = 0;
    for game in std::fs::read_dir(&rules)
        .unwrap()
        .flatten()
        .filter_map(|e| e.path().file_stem()?.to_str().map(str::to_string))
        .filter(|g| rules.join(format!("{g}.rules")).is_file())
    {
        let mut seeds = files(&root().join("tests/cases").join(&game), Some("in"));
        seeds.extend(files(&root().join("tests/input_errors").join(&game), Some("in")));
        seeds.extend(files(&root().join("tests/fuzz_regressions").join(&game), None));
        assert!(!seeds.is_empty(), "{game}: no cases in tests/cases/{game}");
        for f in seeds {
            arbiter::fuzz::game_input(&rules, &game, &std::fs::read(&f).unwrap());
        }
        games += 1;
    }
    assert!(games >= 8, "{games} games");
}
