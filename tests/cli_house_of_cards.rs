//! The real binary on House of Cards: input errors keep the earlier cases'
//! lines and name the line and column.

use assert_cmd::Command;

fn run(input: &str) -> (Option<i32>, String, String) {
    let out = Command::cargo_bin("arbiter")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .args(["run", "rules/house_of_cards.rules"])
        .write_stdin(input)
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

const GOOD: &str = "Axel\n5\n1R 2R 3R 4R 5R 5B 4B 3B 2B 1B\n";

fn expect(bad: &str, at: (usize, usize), message: &str) {
    let (code, stdout, stderr) = run(&format!("{GOOD}{bad}"));
    assert_eq!(code, Some(4), "{stderr}");
    assert_eq!(stdout, "Case 1: Axel wins 1\n");
    assert!(stderr.contains(&format!("line {}, column {}", at.0, at.1)), "{stderr}");
    assert!(stderr.contains(message), "{stderr}");
}

#[test]
fn a_missing_card() {
    expect("Birgit\n5\n1R 2R 3R 4R 5R 5B 4B 3B 2B\nEnd\n", (7, 1), "expected 1 more cards of case 2, found `End`");
}

#[test]
fn a_repeated_card() {
    expect("Birgit\n5\n1R 2R 3R 4R 5R 5B 4B 3B 2B 2R\nEnd\n", (6, 28), "card `2R` appears twice in case 2");
}

#[test]
fn m_out_of_range() {
    expect("Birgit\n14\n", (5, 1), "expected M (a number from 5 to 13), found `14`");
}

#[test]
fn an_unknown_player() {
    expect("Brigit\n5\n", (4, 1), "expected `Axel`, `Birgit` or `End`, found `Brigit`");
}

#[test]
fn no_end_line() {
    let (code, stdout, stderr) = run(GOOD);
    assert_eq!(code, Some(4));
    assert_eq!(stdout, "Case 1: Axel wins 1\n");
    assert!(stderr.contains("found end of input") && stderr.contains("line 4, column 1"), "{stderr}");
}

#[test]
fn a_card_above_m() {
    expect("Birgit\n5\n1R 2R 3R 4R 6R 5B 4B 3B 2B 1B\nEnd\n", (6, 13), "card `6R` is not in a deck of M = 5");
}

#[test]
fn max_nodes_stops_a_long_search_and_keeps_earlier_cases() {
    let big = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/house_of_cards/13-full-house-m13.in"),
    )
    .unwrap();
    let first_case: String = big.lines().take(3).map(|l| l.to_string() + "\n").collect();
    let out = Command::cargo_bin("arbiter")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["run", "--max-nodes", "200", "rules/house_of_cards.rules"])
        .write_stdin(format!("{GOOD}{first_case}End\n"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(8), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Case 1: Axel wins 1\n");
    assert!(stderr.contains("the search of case 2 (line 4) needs more than 200 nodes"), "{stderr}");
}
