//! The real binary on Get Straight: exit codes, stdin, and input errors that
//! keep the outputs of the deals before them.

use assert_cmd::Command;

const RULES: &str = "rules/get_straight.rules";

fn arbiter() -> Command {
    let mut c = Command::cargo_bin("arbiter").unwrap();
    c.current_dir(env!("CARGO_MANIFEST_DIR")).env("NO_COLOR", "1");
    c
}

fn run_stdin(input: &str) -> std::process::Output {
    arbiter().args(["run", RULES]).write_stdin(input).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn runs_a_file_stdin_and_dash_alike() {
    let sample = std::fs::read_to_string("tests/cases/get_straight/00-sample.in").unwrap();
    let want = std::fs::read_to_string("tests/cases/get_straight/00-sample.out").unwrap();
    let by_path = arbiter().args(["run", RULES, "tests/cases/get_straight/00-sample.in"]).output().unwrap();
    let by_stdin = run_stdin(&sample);
    let by_dash = arbiter().args(["run", RULES, "-"]).write_stdin(sample.as_str()).output().unwrap();
    for out in [by_path, by_stdin, by_dash] {
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(text(&out.stdout), want);
    }
}

/// Runs `input` and checks: exit 4, `kept` lines printed, and the diagnostic
/// naming `line L, column C` and containing `message`.
fn input_error(input: &str, kept: &str, at: (usize, usize), message: &str) {
    let out = run_stdin(input);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "stderr: {err}");
    assert_eq!(text(&out.stdout), kept);
    assert!(err.contains(&format!("line {}, column {}", at.0, at.1)), "{err}");
    assert!(err.contains(message), "{err}");
    assert!(err.contains("<stdin>"), "{err}");
}

#[test]
fn malformed_card() {
    input_error("TH JH QH KH AH\n2H 1O 5D 3S 6C\n#\n", "Stay\n", (2, 4), "expected a card, found `1O`");
}

#[test]
fn duplicated_card() {
    input_error("2H TC 5D 3S 6C\n2S 5S 8D 5S JH\n#\n", "Exchange TC\n", (2, 10), "card `5S` appears twice");
}

#[test]
fn short_line() {
    input_error("2H TC 5D 3S 6C\n2S 5S 8D JC\n#\n", "Exchange TC\n", (2, 12), "expected 5 cards on this line, found 4");
}

#[test]
fn long_line() {
    input_error("2H TC 5D 3S 6C JD\n", "", (1, 16), "expected 5 cards on this line, found more");
}

#[test]
fn missing_terminator() {
    input_error("TH JH QH KH AH\n2H TC 5D 3S 6C\n", "Stay\nExchange TC\n", (3, 1), "found end of input");
}

#[test]
fn empty_input() {
    input_error("", "", (1, 1), "found end of input");
}

#[test]
fn only_the_terminator_prints_nothing() {
    let out = run_stdin("#\n");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
}

#[test]
fn invalid_utf8_input_is_an_input_error() {
    let out = arbiter().args(["run", RULES]).write_stdin(b"TH JH \xff\n#\n".to_vec()).output().unwrap();
    assert_eq!(out.status.code(), Some(4));
    assert!(text(&out.stderr).contains("not valid UTF-8"));
}

#[test]
fn exit_codes_are_distinct() {
    // Usage error.
    assert_eq!(arbiter().args(["frobnicate"]).output().unwrap().status.code(), Some(2));
    assert_eq!(arbiter().args(["run"]).output().unwrap().status.code(), Some(2));
    // Valid rule files.
    let ok = arbiter().args(["check", RULES, "rules/get_straight/no-wrap.rules"]).output().unwrap();
    assert_eq!(ok.status.code(), Some(0));
    assert!(text(&ok.stdout).contains("rules/get_straight/no-wrap.rules: ok"));
    // Invalid rule file, for check and for run.
    let bad = "tests/check/get_straight/shadowed-combination.rules";
    let out = arbiter().args(["check", RULES, bad]).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("can never be the best one"));
    assert_eq!(arbiter().args(["run", bad]).write_stdin("#\n").output().unwrap().status.code(), Some(3));
    // Missing files.
    assert_eq!(arbiter().args(["run", "no/such.rules"]).write_stdin("#\n").output().unwrap().status.code(), Some(5));
    assert_eq!(arbiter().args(["run", RULES, "no/such/input.txt"]).output().unwrap().status.code(), Some(5));
}

#[test]
fn help_shows_examples_and_exit_codes() {
    let out = arbiter().arg("--help").output().unwrap();
    let help = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(help.contains("Examples:") && help.contains("Exit codes:"), "{help}");
}

#[test]
fn a_payout_edit_changes_the_strategy() {
    // The paytable variant's own example: Stay in the base game, Exchange 3H with the new table.
    let deal = "9C 9S 3H 8D 8C\n#\n";
    let base = run_stdin(deal);
    let variant = arbiter().args(["run", "rules/get_straight/paytable.rules"]).write_stdin(deal).output().unwrap();
    assert_eq!(text(&base.stdout), "Stay\n");
    assert_eq!(text(&variant.stdout), "Exchange 3H\n");
}

#[test]
fn bundled_games_run_by_name_from_any_directory() {
    let dir = std::env::temp_dir();
    let mut c = Command::cargo_bin("arbiter").unwrap();
    let out =
        c.current_dir(&dir).args(["run", "get_straight/paytable"]).write_stdin("9C 9S 3H 8D 8C\n#\n").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "Exchange 3H\n");
    let mut c = Command::cargo_bin("arbiter").unwrap();
    let out =
        c.current_dir(&dir).env("NO_COLOR", "1").args(["run", "get_straigt"]).write_stdin("#\n").output().unwrap();
    assert_eq!(out.status.code(), Some(5));
    assert!(text(&out.stderr).contains("did you mean the bundled game `get_straight`?"), "{}", text(&out.stderr));
}

#[test]
fn completions_name_every_command() {
    // The script asks the binary; the binary answers from the clap
    // definition.
    let out = arbiter().args(["completions", "bash"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("ARBITER_COMPLETE=\"bash\""), "{}", text(&out.stdout));
    let out = arbiter()
        .env("ARBITER_COMPLETE", "bash")
        .env("_CLAP_COMPLETE_INDEX", "1")
        .env("_CLAP_IFS", "\n")
        .args(["--", "arbiter", ""])
        .output()
        .unwrap();
    let offered = text(&out.stdout);
    for cmd in ["run", "check", "test", "fmt", "analyze", "show", "diff", "help"] {
        assert!(offered.lines().any(|l| l == cmd), "{cmd} missing from {offered}");
    }
}
