//! Input errors of the Snooker Referee, through the real binary: exit code
//! 4, the output of the frames before the error on stdout, the line and
//! column of the error on stderr.

use assert_cmd::Command;

const RULES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/rules/snooker_referee.rules");

/// A whole frame: a 147 by the first player.
fn full_frame(a: &str, b: &str) -> String {
    let mut s = format!("\n{a} {b}\n");
    for _ in 0..15 {
        s.push_str("Red Red\nBlack Black\n");
    }
    for c in ["Yellow", "Green", "Brown", "Blue", "Pink", "Black"] {
        s.push_str(&format!("{c} {c}\n"));
    }
    s
}

fn run(input: &str) -> (i32, String, String) {
    let out = Command::cargo_bin("arbiter")
        .unwrap()
        .args(["run", "--color", "never", RULES])
        .write_stdin(input)
        .output()
        .unwrap();
    // Diagnostics wrap long messages: compare their words.
    let err = String::from_utf8_lossy(&out.stderr).split_whitespace().collect::<Vec<_>>().join(" ");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), err)
}

fn line_of(input: &str, needle: &str) -> usize {
    input.lines().position(|l| l == needle).expect("needle line") + 1
}

#[test]
fn a_whole_input_runs_cleanly() {
    let input = format!("2\n{}{}", full_frame("Ann", "Bob"), full_frame("Cid", "Dee"));
    let (code, out, err) = run(&input);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Frame 2\nCid's turn, in-hand\n"));
    assert!(out.ends_with("147 : 0\nCid wins\n"));
}

#[test]
fn an_unknown_colour_is_reported_after_the_earlier_frames() {
    let input = format!("2\n{}\nCid Dee\nRed Red\nPurpel Purpel\n", full_frame("Ann", "Bob"));
    let (code, out, err) = run(&input);
    assert_eq!(code, 4);
    assert!(out.contains("Ann wins\n"), "the first frame is printed: {out}");
    assert!(out.ends_with("Frame 2\nCid's turn, in-hand\n1 : 0\n"), "{out}");
    let line = line_of(&input, "Purpel Purpel");
    assert!(err.contains(&format!("line {line}, column 1")), "{err}");
    assert!(err.contains("expected a ball or `None`, found `Purpel`"), "{err}");
}

#[test]
fn potting_a_ball_that_is_not_on_the_table() {
    let mut input = String::from("1\nAnn Bob\n");
    input.push_str("Red Red Red Red Red Red Red Red Red Red Red Red Red Red Red Red\nBlack Black\n");
    input.push_str("Yellow Yellow\nGreen Yellow\n");
    let (code, out, err) = run(&input);
    assert_eq!(code, 4);
    assert!(out.ends_with("24 : 0\n"), "{out}");
    assert!(err.contains("`Yellow` is not on the table"), "{err}");
    assert!(err.contains(&format!("line {}, column 7", line_of(&input, "Green Yellow"))), "{err}");
}

#[test]
fn too_many_reds_potted() {
    let input = "1\nAnn Bob\nRed Red Red Red Red Red Red Red Red Red Red Red Red Red Red Red Red\n";
    let (code, _, err) = run(input);
    assert_eq!(code, 4);
    assert!(err.contains("only 15 are on the table"), "{err}");
    assert!(err.contains("line 3, column 65"), "{err}");
}

#[test]
fn play_again_after_a_fair_stroke() {
    let input = "1\nAnn Bob\nRed\nPlay again\n";
    let (code, out, err) = run(input);
    assert_eq!(code, 4);
    assert_eq!(out, "Frame 1\nAnn's turn, in-hand\n0 : 0\nBob's turn\n");
    assert!(err.contains("may only follow a foul"), "{err}");
    assert!(err.contains("line 4, column 1"), "{err}");
}

#[test]
fn play_again_twice_after_one_foul() {
    let input = "1\nAnn Bob\nNone\nPlay again\nPlay again\n";
    let (code, out, err) = run(input);
    assert_eq!(code, 4);
    assert!(out.ends_with("Bob's turn\nAnn's turn\n"), "{out}");
    assert!(err.contains("line 5, column 1"), "{err}");
}

#[test]
fn a_frame_that_never_ends() {
    let input = "1\nAnn Bob\nRed Red\nBlack Black\n";
    let (code, out, err) = run(input);
    assert_eq!(code, 4);
    assert!(out.ends_with("8 : 0\nRespot Black\n"), "{out}");
    assert!(err.contains("frame 1 has not ended"), "{err}");
    assert!(err.contains("<stdin>:5:1"), "{err}");
}

#[test]
fn a_frame_that_ends_early_runs_into_the_next_players() {
    let input = "2\nAnn Bob\nRed Red\n\nCid Dee\nRed\n";
    let (code, out, err) = run(input);
    assert_eq!(code, 4);
    assert!(out.ends_with("1 : 0\n"), "{out}");
    assert!(err.contains("found `Cid`"), "{err}");
    assert!(err.contains("line 5, column 1"), "{err}");
}

#[test]
fn a_missing_lot_line_after_a_tie() {
    let case =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases/snooker_referee/11-tie-on-black.in"))
            .unwrap();
    let cut = case.find("\nJerry\n").expect("the lot line of case 11");
    let input = &case[..cut + 1];
    let (code, out, err) = run(input);
    assert_eq!(code, 4);
    assert!(out.ends_with("34 : 34\nTie\nRespot Black\n"), "{out}");
    assert!(err.contains("expected the name of the player who won the lot"), "{err}");
    assert!(err.contains(&format!("line {}, column 1", input.lines().count() + 1)), "{err}");
}

#[test]
fn a_lot_line_naming_a_stranger() {
    let case =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases/snooker_referee/11-tie-on-black.in"))
            .unwrap();
    let input = case.replacen("\nJerry\n", "\nSpike\n", 1);
    let (code, _, err) = run(&input);
    assert_eq!(code, 4);
    assert!(err.contains("found `Spike`"), "{err}");
    assert!(err.contains(&format!("line {}, column 1", line_of(&input, "Spike"))), "{err}");
}

#[test]
fn a_stroke_after_the_end_of_a_frame() {
    let input = format!("2\n{}Red\n\nCid Dee\n", full_frame("Ann", "Bob"));
    let (code, out, err) = run(&input);
    assert_eq!(code, 4);
    assert!(out.ends_with("Ann wins\n"), "{out}");
    assert!(err.contains("expected the names of the two players of frame 2"), "{err}");
    assert!(err.contains("frame 1 has already ended"), "{err}");
}

#[test]
fn extra_lines_after_the_last_frame() {
    let input = format!("1\n{}Red Red\n", full_frame("Ann", "Bob"));
    let (code, out, err) = run(&input);
    assert_eq!(code, 4);
    assert!(out.ends_with("Ann wins\n"), "{out}");
    assert!(err.contains("unexpected input after the last of 1 frame"), "{err}");
}
