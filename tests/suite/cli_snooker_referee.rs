//! Input errors of the Snooker Referee, through the real binary: exit code
//! 4, the output of the frames before the error on stdout, the line and
//! column of the error on stderr. Then the referee's rows of the
//! adversarial review (M4, L4, M5, W5, B7, P3): streamed output within a frame that never ends,
//! bounded memory for huge templates, scores that cannot wrap, deep rule
//! expressions, the frame limit, and frames flushed one by one on a
//! terminal.

use std::cell::RefCell;
use std::io::{Read, Write};
use std::rc::Rc;

use arbiter::engines::compile;
use arbiter::game::{Game, Input, Output, RunError, RunOptions};
use arbiter::load::{load_path, load_text};
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

/// A stroke line read before is remembered by its text (see
/// `referee::words::Seen`): read again when its balls are gone, it is
/// refused as the first time it would have been.
#[test]
fn a_line_read_before_is_checked_against_the_table_again() {
    let reds = |n: usize| format!("Red{}", " Red".repeat(n));
    let refused = |input: &str, last: &str, message: &str, at: &str| {
        let (code, out, err) = run(input);
        assert_eq!(code, 4);
        assert!(out.ends_with(last), "{out}");
        assert!(err.contains(message), "{err}");
        assert!(err.contains(at), "{err}");
    };
    refused(
        &format!("1\nAnn Bob\n{}\n{}Red Red\n", reds(13), "Black Black\nRed Red\n".repeat(3)),
        "29 : 0\n36 : 0\nRespot Black\n",
        "`Red` is not on the table: it cannot be hit",
        "line 9, column 1",
    );
    refused(
        &format!("1\nAnn Bob\n{}\n{}", reds(12), "Black Black\nRed Red Red\n".repeat(2)),
        "21 : 0\n28 : 0\nRespot Black\n",
        "`Red` is potted 2 times, but only 1 is on the table",
        "line 7, column 9",
    );
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
    assert!(err.contains("`Play again` may not follow this stroke"), "{err}");
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

/// The Snooker Referee game, compiled (optionally with a variant's text
/// extending the base).
fn game(extra: &str) -> Box<dyn Game> {
    let loaded = if extra.is_empty() {
        load_path(std::path::Path::new(RULES)).unwrap()
    } else {
        let text = format!("extends: \"{RULES}\"\n{extra}\n");
        load_text("variant.rules", &text, std::path::Path::new(".")).unwrap()
    };
    let (compiled, diags) = compile(&loaded);
    compiled.unwrap_or_else(|| panic!("{:?}", diags.iter().map(|d| &d.message).collect::<Vec<_>>())).game
}

/// Where the output goes: what was written, and the largest single write.
#[derive(Default)]
struct Seen {
    bytes: u64,
    lines: u64,
    largest_write: usize,
    /// The last bytes written.
    tail: Vec<u8>,
    kept: Vec<u8>,
    keep: bool,
}

struct Sink(Rc<RefCell<Seen>>);

impl Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        let mut s = self.0.borrow_mut();
        s.bytes += b.len() as u64;
        s.lines += b.iter().filter(|&&c| c == b'\n').count() as u64;
        s.largest_write = s.largest_write.max(b.len());
        s.tail.extend_from_slice(&b[b.len().saturating_sub(256)..]);
        let cut = s.tail.len().saturating_sub(256);
        s.tail.drain(..cut);
        if s.keep {
            s.kept.extend_from_slice(b);
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// An input made as it is read: a head, then one line `strokes` times.
/// At every read it notes how many input bytes it has handed out and how
/// many output bytes had been written by then.
struct Lazy {
    head: Vec<u8>,
    stroke: &'static [u8],
    strokes: u64,
    given: u64,
    seen: Rc<RefCell<Seen>>,
    samples: Rc<RefCell<Vec<(u64, u64)>>>,
}

impl Read for Lazy {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.samples.borrow_mut().push((self.given, self.seen.borrow().bytes));
        let mut n = 0;
        if !self.head.is_empty() {
            n = self.head.len().min(buf.len());
            buf[..n].copy_from_slice(&self.head[..n]);
            self.head.drain(..n);
        }
        while self.strokes > 0 && n + self.stroke.len() <= buf.len() {
            buf[n..n + self.stroke.len()].copy_from_slice(self.stroke);
            n += self.stroke.len();
            self.strokes -= 1;
        }
        self.given += n as u64;
        Ok(n)
    }
}

/// What a lazy run saw: the output, (input bytes, output bytes) at each
/// read, the result.
type LazyRun = (Rc<RefCell<Seen>>, Vec<(u64, u64)>, Result<(), RunError>);

fn run_lazy(g: &dyn Game, strokes: u64) -> LazyRun {
    let seen = Rc::new(RefCell::new(Seen::default()));
    let samples = Rc::new(RefCell::new(Vec::new()));
    let reader = Lazy {
        head: b"1\nAnn Bob\n".to_vec(),
        stroke: b"None\n",
        strokes,
        given: 0,
        seen: seen.clone(),
        samples: samples.clone(),
    };
    let mut sink = Sink(seen.clone());
    let result = {
        let mut out = Output::new(&mut sink);
        let r = g.run(&mut Input::new(reader), &mut out, &RunOptions::default());
        out.flush().unwrap();
        r
    };
    let samples = samples.borrow().clone();
    (seen, samples, result)
}

/// M4 and L4 (hardening): one frame that never ends, 2,000,000 strokes
/// (10 MB of input, 45 MB of output). The output streams while the input
/// is read (the frame is not held whole), and no line is lost.
#[test]
fn a_frame_that_never_ends_streams_its_output_and_loses_no_line() {
    let g = game("");
    let n = 2_000_000u64;
    let (seen, samples, result) = run_lazy(g.as_ref(), n);
    assert!(matches!(result, Err(RunError::Input(ref e)) if e.message.contains("frame 1 has not ended")));
    // Output keeps pace with the input: past the first MB, at least twice
    // as many bytes are out as came in (a stroke prints about 20 bytes
    // for 5 read), whatever the buffering.
    for &(given, written) in &samples {
        if given > 1 << 20 {
            assert!(written >= 2 * (given - (1 << 20)), "{written} bytes out after {given} in");
        }
    }
    // Every line, in order: `Foul!`, the score, the turn, per stroke.
    let s = seen.borrow();
    assert_eq!(s.lines, 2 + 3 * n);
    let mut want = "Frame 1\nAnn's turn, in-hand\n".len() as u64;
    for i in 1..=n {
        let (a, b) = (4 * (i / 2), 4 * i.div_ceil(2));
        // Then `Bob's turn` or `Ann's turn`: 11 bytes.
        want += format!("Foul!\n{a} : {b}\n").len() as u64 + 11;
    }
    assert_eq!(s.bytes, want);
    let last = n * 4 / 2;
    assert!(s.tail.ends_with(format!("Foul!\n{last} : {last}\nAnn's turn\n").as_bytes()));
}

/// M5 (hardening): a 100 KB `score` template and 400 strokes print 40 MB,
/// in writes bounded by the template, not by the frame.
#[test]
fn a_huge_template_is_written_in_bounded_pieces() {
    let template = "x".repeat(100_000);
    let g = game(&format!("output {{ score: \"{template}{{first}} : {{second}}\" }}"));
    let n = 400u64;
    let (seen, _, _) = run_lazy(g.as_ref(), n);
    let s = seen.borrow();
    assert!(s.bytes > 40_000_000, "{}", s.bytes);
    assert!(s.largest_write < 1 << 20, "a single write of {} bytes", s.largest_write);
}

/// Frames are flushed one by one when the output is interactive: when the
/// referee asks for the second frame's lines, the first frame is out.
#[test]
fn on_a_terminal_each_frame_is_out_before_the_next_is_read() {
    struct Chunks {
        chunks: Vec<Vec<u8>>,
        seen: Rc<RefCell<Seen>>,
        out_at_read: Rc<RefCell<Vec<String>>>,
    }
    impl Read for Chunks {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.out_at_read.borrow_mut().push(String::from_utf8_lossy(&self.seen.borrow().kept).into_owned());
            if self.chunks.is_empty() {
                return Ok(0);
            }
            let c = self.chunks.remove(0);
            buf[..c.len()].copy_from_slice(&c);
            Ok(c.len())
        }
    }
    let seen = Rc::new(RefCell::new(Seen { keep: true, ..Seen::default() }));
    let out_at_read = Rc::new(RefCell::new(Vec::new()));
    let chunks = vec![format!("2\n{}", full_frame("Ann", "Bob")).into_bytes(), full_frame("Cid", "Dee").into_bytes()];
    let g = game("");
    let mut sink = Sink(seen.clone());
    {
        let mut out = Output::new(&mut sink).eager(true);
        let input = Chunks { chunks, seen: seen.clone(), out_at_read: out_at_read.clone() };
        g.run(&mut Input::new(input), &mut out, &RunOptions::default()).unwrap();
    }
    let at = out_at_read.borrow();
    assert_eq!(at[0], "", "nothing before the input");
    assert!(at[1].ends_with("147 : 0\nAnn wins\n"), "frame 1 is out when frame 2 is read: {:?}", at[1]);
    assert!(!at[1].contains("Frame 2"));
}

/// W5 (hardening): a ball worth 2^62 made the scores wrap to a negative
/// number. Values are bounded by `check`, and scores are added with a
/// check: a score past 2^53 (the most the referee keeps, so that every
/// number an expression reads is bounded), here a penalty of 2^52 + 1
/// twice, stops the run (exit 8) at the stroke.
#[test]
fn scores_cannot_wrap() {
    let dir = std::env::temp_dir().join(format!("arbiter-cli-referee-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("bigval.rules");
    std::fs::write(&big, format!("extends: \"{RULES}\"\nball \"Red\" {{ value: 4611686018427387904 }}\n")).unwrap();
    let out = Command::cargo_bin("arbiter").unwrap().args(["check", "--color", "never"]).arg(&big).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("a ball is worth at most 1000000000 points"), "{err}");
    let pen = dir.join("bigpen.rules");
    let p = (1i64 << 52) + 1;
    std::fs::write(&pen, format!("extends: \"{RULES}\"\npenalty {{ min: {p}  max: {p} }}\n")).unwrap();
    let out = Command::cargo_bin("arbiter")
        .unwrap()
        .args(["run", "--color", "never"])
        .arg(&pen)
        .write_stdin("1\nAnn Bob\nNone\nPlay again\nNone\n")
        .output()
        .unwrap();
    let (stdout, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(8), "{err}");
    assert!(stdout.ends_with(&format!("Foul!\n0 : {p}\nBob's turn\nAnn's turn\n")), "{stdout}");
    assert!(err.contains("line 5: the stroke takes a score past 9007199254740992"), "{err}");
    assert!(!stdout.lines().any(|l| l.starts_with('-') || l.contains(": -")), "no negative score: {stdout}");
}

/// B7 (hardening): a frame count above the limit names the limit.
#[test]
fn too_many_frames_names_the_limit() {
    let (code, out, err) = run("1099511627777\n");
    assert_eq!(code, 4);
    assert_eq!(out, "");
    assert!(err.contains("the number of frames `1099511627777` is too large"), "{err}");
    assert!(err.contains("at most 1099511627776 frames"), "{err}");
}

/// P3 (hardening): a 7,000-term `or` chain in a foul condition overflowed
/// the stack in `check`. It checks (or, if the parser bounds such chains,
/// is refused with `too-deep`), and runs: never a crash.
#[test]
fn a_long_or_chain_in_a_foul_condition_neither_crashes_check_nor_run() {
    let dir = std::env::temp_dir().join(format!("arbiter-cli-referee-or-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("or.rules");
    let chain = "White in potted or ".repeat(7000);
    std::fs::write(&f, format!("extends: \"{RULES}\"\nfoul \"x\" {{ when: {chain}White in potted }}\n")).unwrap();
    let out = Command::cargo_bin("arbiter").unwrap().args(["check", "--color", "never"]).arg(&f).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(0) => {
            let input = format!("1\n{}", full_frame("Ann", "Bob"));
            let run = Command::cargo_bin("arbiter").unwrap().arg("run").arg(&f).write_stdin(input).output().unwrap();
            assert_eq!(run.status.code(), Some(0));
            assert!(String::from_utf8_lossy(&run.stdout).ends_with("147 : 0\nAnn wins\n"));
        }
        Some(3) => assert!(err.contains("too-deep"), "{err}"),
        other => panic!("check ended with {other:?}: {err}"),
    }
}
