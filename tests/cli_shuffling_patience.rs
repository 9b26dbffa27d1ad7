//! The real binary on Shuffling Patience: input errors keep the lines of the
//! decks before them and name the line and column.

use assert_cmd::Command;

const RULES: &str = "rules/shuffling_patience.rules";

fn sample_deck() -> Vec<String> {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/shuffling_patience/00-sample.in"),
    )
    .unwrap();
    text.lines().take(4).map(String::from).collect()
}

fn run(input: &str) -> (Option<i32>, String, String) {
    let out = Command::cargo_bin("arbiter")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .args(["run", RULES])
        .write_stdin(input)
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// One good deck, then `bad` (four lines), then `#`.
fn after_one_good(bad: &[String]) -> String {
    let mut s = sample_deck().join("\n") + "\n";
    s += &bad.join("\n");
    s + "\n#\n"
}

fn expect(input: &str, at: (usize, usize), message: &str) {
    let (code, stdout, stderr) = run(input);
    assert_eq!(code, Some(4), "{stderr}");
    assert_eq!(stdout, "  1:  8  6  7  4  3  5  4  4  2  5  4\n");
    assert!(stderr.contains(&format!("line {}, column {}", at.0, at.1)), "{stderr}");
    assert!(stderr.contains(message), "{stderr}");
}

#[test]
fn a_deck_of_51_cards() {
    let mut d = sample_deck();
    d[2] = d[2].rsplit_once(' ').unwrap().0.to_string();
    expect(&after_one_good(&d), (7, 36), "expected 13 cards on this line, found 12");
}

#[test]
fn a_deck_of_53_cards() {
    let mut d = sample_deck();
    d[1].push_str(" XX");
    expect(&after_one_good(&d), (6, 40), "expected 13 cards on this line, found more");
}

#[test]
fn a_repeated_card() {
    let mut d = sample_deck();
    d[3] = d[3].replacen("AS", "TS", 1);
    expect(&after_one_good(&d), (8, 1), "card `TS` appears twice in deck 2");
}

#[test]
fn an_unknown_card() {
    let mut d = sample_deck();
    d[0] = d[0].replacen("QC", "QX", 1);
    expect(&after_one_good(&d), (5, 4), "expected a card, found `QX`");
}

#[test]
fn a_missing_terminator() {
    let input = sample_deck().join("\n") + "\n";
    let (code, stdout, stderr) = run(&input);
    assert_eq!(code, Some(4));
    assert_eq!(stdout, "  1:  8  6  7  4  3  5  4  4  2  5  4\n");
    assert!(
        stderr.contains("expected a deck or `#`, found end of input") && stderr.contains("line 5, column 1"),
        "{stderr}"
    );
}
