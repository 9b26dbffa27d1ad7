//! `arbiter analyze` on the sampling engines: the same seed gives the same
//! figures, and the figures respond to the rules (a smaller grid overflows
//! more often).

use assert_cmd::Command;

fn analyze(rules: &str, samples: &str, seed: &str) -> String {
    let out = Command::cargo_bin("arbiter")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["analyze", rules, "--samples", samples, "--seed", seed])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn played(report: &str) -> u64 {
    let line = report.lines().find(|l| l.starts_with("played without overflow")).unwrap();
    line.split_whitespace().nth(3).unwrap().parse().unwrap()
}

#[test]
fn patience_rates_are_seeded_and_follow_the_layout() {
    let base = analyze("rules/shuffling_patience.rules", "3000", "7");
    assert_eq!(base, analyze("rules/shuffling_patience.rules", "3000", "7"));
    let small = analyze("rules/shuffling_patience/small-grid.rules", "3000", "7");
    assert!(played(&small) < played(&base), "{small}\n{base}");
    assert!(played(&base) <= 3000);
}

#[test]
fn house_of_cards_first_mover_advantage_is_seeded() {
    let a = analyze("rules/house_of_cards.rules", "12", "3");
    assert_eq!(a, analyze("rules/house_of_cards.rules", "12", "3"));
    assert!(a.contains("12 random deals of M = 13") && a.contains("first mover's advantage"), "{a}");
}
