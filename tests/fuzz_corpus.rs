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

/// The per-game input targets: every seed and regression of a game runs
/// against the game's base rule file and each of its variants.
#[test]
fn input_readers_survive_the_corpus() {
    let rules = root().join("rules");
    let mut games = 0;
    for game in files(&rules).iter().filter_map(|p| p.file_stem()?.to_str().map(str::to_string)) {
        assert!(arbiter::fuzz::game_rule_files(&rules, &game).len() >= 2, "{game}: base and variants");
        let mut n = 0;
        for sub in ["fuzz/seeds", "tests/fuzz_regressions"] {
            for f in files(&root().join(sub).join(&game)) {
                arbiter::fuzz::game_input(&rules, &game, &std::fs::read(&f).unwrap());
                n += 1;
            }
        }
        assert!(n > 0, "{game}: no seeds in fuzz/seeds/{game}");
        games += 1;
    }
    assert_eq!(games, 6);
}
