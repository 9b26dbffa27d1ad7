//! Replays the fuzz seed corpus (fuzz/seeds/) and every input a fuzzer ever
//! crashed on (tests/fuzz_regressions/) through the fuzz entry points: none
//! may panic. Takes seconds; the fuzzers themselves run with cargo fuzz (see
//! fuzz/README.md).

use std::path::{Path, PathBuf};

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).filter(|p| p.is_file() && !p.ends_with(".keep")).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn rule_front_end_survives_the_corpus() {
    let dir = root().join("rules");
    let mut n = 0;
    for sub in ["fuzz/seeds/rules", "tests/fuzz_regressions/rules"] {
        for f in files(&root().join(sub)) {
            arbiter::fuzz::rules(&dir, &std::fs::read(&f).unwrap());
            n += 1;
        }
    }
    assert!(n > 0);
}

#[test]
fn input_readers_survive_the_corpus() {
    let rules = arbiter::fuzz::bundled_rule_files(&root().join("rules"));
    let mut n = 0;
    for sub in ["fuzz/seeds/input", "tests/fuzz_regressions/input"] {
        for f in files(&root().join(sub)) {
            let data = std::fs::read(&f).unwrap();
            if let Some((&pick, input)) = data.split_first() {
                arbiter::fuzz::input(&rules[pick as usize % rules.len()], input);
                n += 1;
            }
        }
    }
    assert!(n > 0);
}
