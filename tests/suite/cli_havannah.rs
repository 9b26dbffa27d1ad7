//! The real binary on Havannah: input errors name their line and column and
//! keep the outputs of the cases before them; variants change the answers.

use assert_cmd::Command;

const RULES: &str = "rules/havannah.rules";

fn arbiter() -> Command {
    let mut c = Command::cargo_bin("arbiter").unwrap();
    c.current_dir(env!("CARGO_MANIFEST_DIR")).env("NO_COLOR", "1");
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs `input` and checks: exit 4, `kept` printed, the diagnostic naming
/// `line L, column C` and containing `message`.
fn input_error(input: &str, kept: &str, at: (usize, usize), message: &str) {
    let out = arbiter().args(["run", RULES]).write_stdin(input).output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "stderr: {err}");
    assert_eq!(text(&out.stdout), kept);
    assert!(err.contains(&format!("line {}, column {}", at.0, at.1)), "{err}");
    assert!(err.contains(message), "{err}");
}

#[test]
fn move_off_the_board() {
    input_error(
        "2\n2 2\n1 1\n1 2\n3 2\n1 1\n4 1\n",
        "Case #1: bridge in move 2\n",
        (7, 1),
        "cell (4, 1) is not on the board of side 3",
    );
}

#[test]
fn repeated_move() {
    input_error(
        "2\n2 0\n3 3\n1 1\n2 2\n 1 1\n",
        "Case #1: none\n",
        (6, 2),
        "cell (1, 1) already holds a stone (move 1)",
    );
}

#[test]
fn repeated_move_after_the_win_is_still_an_error() {
    input_error("1\n2 3\n1 1\n1 2\n1 1\n", "", (5, 1), "already holds a stone");
}

#[test]
fn missing_moves() {
    input_error("1\n3 3\n1 1\n2 2\n", "", (5, 1), "expected move 3 of 3 of case 1, found end of input");
}

#[test]
fn missing_case() {
    input_error("2\n2 0\n", "Case #1: none\n", (3, 1), "expected case 2 of 2");
}

#[test]
fn extra_input_after_the_last_case() {
    input_error("1\n2 0\n1 1\n", "Case #1: none\n", (3, 1), "unexpected input after the last of 1 case");
}

#[test]
fn side_out_of_range() {
    input_error("2\n2 0\n1 0\n", "Case #1: none\n", (3, 1), "board side 1 is outside the supported sides 2 to 1000000");
    input_error("1\n1000001 0\n", "", (2, 1), "board side 1000001 is outside");
}

#[test]
fn malformed_numbers() {
    input_error("1\n3 1\n1 y\n", "", (3, 3), "expected a coordinate (a whole number), found `y`");
    input_error("1\n3 x\n", "", (2, 3), "expected the number of moves, found `x`");
    input_error("one\n", "", (1, 1), "expected the number of cases, found `one`");
    input_error("1\n3 1\n1 2 3\n", "", (3, 5), "expected a move `x y`, found more on the line");
}

#[test]
fn the_variants_change_the_answers() {
    let sample = std::fs::read_to_string("tests/cases/havannah/00-sample.in").unwrap();
    let run = |rules: &str| text(&arbiter().args(["run", rules]).write_stdin(sample.as_str()).output().unwrap().stdout);
    let base = run(RULES);
    assert!(base.contains("Case #3: none\n") && base.contains("Case #2: fork in move 5\n"));
    assert!(run("rules/havannah/official-ring.rules").contains("Case #3: ring in move 7\n"));
    let four = run("rules/havannah/four-edge-fork.rules");
    assert!(four.contains("Case #2: none\n") && four.contains("Case #5: bridge in move 5\n"));
}
