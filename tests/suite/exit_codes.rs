//! The exit-code table (README, `--help`, docs/cli.md), code by code and
//! subcommand by subcommand: unreadable files, outputs that cannot be
//! written (`/dev/full`), and closed pipes on stdout and on stderr.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("arbiter"));
    c.current_dir(env!("CARGO_MANIFEST_DIR")).env("NO_COLOR", "1");
    c
}

/// Where a command's stdout and stderr go.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum To {
    /// Pipes read to the end.
    Pipes,
    /// stdout is `/dev/full`: every write fails.
    Full,
    /// stdout is a pipe whose reader is gone.
    ClosedStdout,
    /// stderr is a pipe whose reader is gone.
    ClosedStderr,
}

fn exec(args: &[&str], stdin: &str, to: To) -> Output {
    let mut c = bin();
    c.args(args).stdin(Stdio::piped());
    match to {
        To::Full => {
            c.stdout(std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap()).stderr(Stdio::piped());
        }
        _ => {
            c.stdout(Stdio::piped()).stderr(Stdio::piped());
        }
    }
    let mut child = c.spawn().unwrap();
    // Closing a pipe's read end before the child writes: its writes fail
    // with a broken pipe.
    if to == To::ClosedStdout {
        drop(child.stdout.take());
    }
    if to == To::ClosedStderr {
        drop(child.stderr.take());
    }
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_string();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(stdin.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arbiter-exit-codes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Rule files for every outcome, written once.
struct Files {
    good: String,
    broken: String,
    failing_example: String,
    unformatted: String,
    missing: String,
    dir: String,
}

fn files() -> Files {
    let dir = scratch();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let good = root.join("rules/get_straight.rules");
    let base = std::fs::read_to_string(&good).unwrap();
    let broken = dir.join("broken.rules");
    std::fs::write(&broken, base.replace("hand: 5", "hand: five")).unwrap();
    let failing = dir.join("failing.rules");
    std::fs::write(
        &failing,
        format!("{base}\nexample \"wrong on purpose\" {{\n  input: \"TH JH QH KH AH\\n#\\n\"\n  output: \"Exchange TH\\n\"\n}}\n"),
    )
    .unwrap();
    let unformatted = dir.join("unformatted.rules");
    std::fs::write(&unformatted, base.replace("hand: 5", "hand:    5")).unwrap();
    let s = |p: &Path| p.to_str().unwrap().to_string();
    Files {
        good: s(&good),
        broken: s(&broken),
        failing_example: s(&failing),
        unformatted: s(&unformatted),
        missing: s(&dir.join("missing.rules")),
        dir: s(&dir),
    }
}

const DEAL: &str = "2H 3S 5D 6C TC\n#\n";
const BAD_DEAL: &str = "2H 3S 5D 6C TC\n2H 3S 5D 6C ZZ\n#\n";
const HOC: &str = "Axel\n5\n1R 2R 3R 4R 5R 5B 4B 3B 2B 1B\nEnd\n";

fn code(args: &[&str], stdin: &str, to: To) -> Option<i32> {
    let o = exec(args, stdin, to);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "`arbiter {}` ({to:?}) panicked: {err}", args.join(" "));
    o.status.code()
}

#[track_caller]
fn expect(args: &[&str], stdin: &str, to: To, want: i32) {
    let o = exec(args, stdin, to);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "`arbiter {}` ({to:?}) panicked: {err}", args.join(" "));
    assert_eq!(o.status.code(), Some(want), "`arbiter {}` ({to:?}): {err}", args.join(" "));
}

#[test]
fn run_exit_codes() {
    let f = files();
    expect(&["run", &f.good], DEAL, To::Pipes, 0);
    expect(&["run", "--no-such-option", &f.good], DEAL, To::Pipes, 2);
    expect(&["run", &f.broken], DEAL, To::Pipes, 3);
    expect(&["run", &f.good], BAD_DEAL, To::Pipes, 4);
    expect(&["run", &f.missing], DEAL, To::Pipes, 5);
    expect(&["run", &f.dir], DEAL, To::Pipes, 5);
    expect(&["run", &f.good, &f.missing], "", To::Pipes, 5);
    expect(&["run", &f.good, &f.dir], "", To::Pipes, 5);
    expect(&["run", &f.good], DEAL, To::Full, 5);
    expect(&["run", "--explain", &f.good], DEAL, To::Full, 5);
    expect(&["run", "--max-nodes", "1", "house_of_cards"], HOC, To::Pipes, 8);
    // A closed stdout ends the run quietly; a closed stderr changes nothing.
    expect(&["run", &f.good], DEAL, To::ClosedStdout, 0);
    expect(&["run", &f.good], BAD_DEAL, To::ClosedStderr, 4);
    expect(&["run", &f.broken], DEAL, To::ClosedStderr, 3);
    expect(&["run", &f.missing], DEAL, To::ClosedStderr, 5);
}

#[test]
fn check_exit_codes() {
    let f = files();
    expect(&["check", &f.good], "", To::Pipes, 0);
    expect(&["check"], "", To::Pipes, 2);
    expect(&["check", &f.broken], "", To::Pipes, 3);
    expect(&["check", &f.missing], "", To::Pipes, 5);
    expect(&["check", &f.dir], "", To::Pipes, 5);
    expect(&["check", &f.good], "", To::Full, 5);
    expect(&["check", &f.good], "", To::ClosedStdout, 0);
    expect(&["check", &f.broken], "", To::ClosedStderr, 3);
    // `arbiter check BROKEN 2>&1 | head -1`: both closed.
    let o = bin()
        .args(["check", &f.broken, &f.broken, &f.broken])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map(|mut c| {
            drop(c.stdout.take());
            drop(c.stderr.take());
            c.wait().unwrap()
        })
        .unwrap();
    assert_eq!(o.code(), Some(3));
    // Several files: the most serious failure decides, in any order.
    expect(&["check", &f.missing, &f.broken], "", To::Pipes, 5);
    expect(&["check", &f.broken, &f.missing], "", To::Pipes, 5);
}

#[test]
fn test_exit_codes() {
    let f = files();
    expect(&["test", &f.good], "", To::Pipes, 0);
    expect(&["test"], "", To::Pipes, 2);
    expect(&["test", &f.broken], "", To::Pipes, 3);
    expect(&["test", &f.missing], "", To::Pipes, 5);
    expect(&["test", &f.failing_example], "", To::Pipes, 6);
    expect(&["test", &f.good], "", To::Full, 5);
    expect(&["test", &f.good], "", To::ClosedStdout, 0);
    expect(&["test", &f.failing_example], "", To::ClosedStdout, 6);
    expect(&["test", &f.failing_example, &f.broken], "", To::Pipes, 3);
}

#[test]
fn fmt_exit_codes() {
    let f = files();
    expect(&["fmt", &f.good], "", To::Pipes, 0);
    expect(&["fmt", "-"], "x:1\n", To::Pipes, 0);
    expect(&["fmt"], "", To::Pipes, 2);
    expect(&["fmt", "--check", "--write", &f.good], "", To::Pipes, 2);
    expect(&["fmt", &f.broken.replace("broken", "missing")], "", To::Pipes, 5);
    expect(&["fmt", "-"], "x: (\n", To::Pipes, 3);
    expect(&["fmt", "--check", &f.good], "", To::Pipes, 0);
    expect(&["fmt", "--check", &f.unformatted], "", To::Pipes, 7);
    expect(&["fmt", &f.good], "", To::Full, 5);
    expect(&["fmt", "-"], "x:1\n", To::Full, 5);
    expect(&["fmt", &f.good], "", To::ClosedStdout, 0);
    expect(&["fmt", "--check", &f.unformatted], "", To::ClosedStdout, 7);
    expect(&["fmt", "--check", &f.missing], "", To::ClosedStderr, 5);
}

#[test]
fn analyze_exit_codes() {
    let f = files();
    expect(&["analyze", &f.good], "", To::Pipes, 0);
    expect(&["analyze", "--samples", "10", &f.good], "", To::Pipes, 2);
    expect(&["analyze", &f.broken], "", To::Pipes, 3);
    expect(&["analyze", &f.missing], "", To::Pipes, 5);
    expect(&["analyze", &f.good], "", To::Full, 5);
    expect(&["analyze", &f.good], "", To::ClosedStdout, 0);
    expect(&["analyze", &f.broken], "", To::ClosedStderr, 3);
}

#[test]
fn diff_exit_codes() {
    let f = files();
    expect(&["diff", &f.good, &f.good], "", To::Pipes, 0);
    expect(&["diff", "--exit-code", &f.good, &f.good], "", To::Pipes, 0);
    expect(&["diff", &f.good, "get_straight/paytable"], "", To::Pipes, 0);
    expect(&["diff", "--exit-code", &f.good, "get_straight/paytable"], "", To::Pipes, 1);
    expect(&["diff", "--exit-code", &f.good, "get_straight/paytable", "--format", "json"], "", To::Pipes, 1);
    // A failure to write is still 5, a broken file still 3.
    expect(&["diff", "--exit-code", &f.good, "get_straight/paytable"], "", To::Full, 5);
    expect(&["diff", "--exit-code", &f.good, &f.broken], "", To::Pipes, 3);
}

#[test]
fn help_version_completions_and_man_exit_codes() {
    for args in [&["--help"][..], &["--version"], &["run", "--help"], &["completions", "bash"], &["man"]] {
        expect(args, "", To::Pipes, 0);
        expect(args, "", To::Full, 5);
        expect(args, "", To::ClosedStdout, 0);
    }
    expect(&["completions", "no-such-shell"], "", To::Pipes, 2);
    expect(&["no-such-command"], "", To::ClosedStderr, 2);
    let man = exec(&["man"], "", To::Pipes);
    assert!(String::from_utf8_lossy(&man.stdout).starts_with(".ie"), "a roff page");
}

/// Every code the table lists is produced by some command above, and the
/// table is the same in `--help`, the README and docs/cli.md.
#[test]
fn the_exit_code_table_is_the_same_everywhere() {
    let help = String::from_utf8(exec(&["--help"], "", To::Pipes).stdout).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let cli = std::fs::read_to_string(root.join("docs/cli.md")).unwrap();
    for code in ["0", "1", "2", "3", "4", "5", "6", "7", "8", "130", "143"] {
        assert!(help.lines().any(|l| l.trim_start().starts_with(code)), "--help lists {code}");
        for (name, doc) in [("README.md", &readme), ("docs/cli.md", &cli)] {
            assert!(doc.lines().any(|l| l.starts_with(&format!("| {code} "))), "{name} lists {code}");
        }
    }
    let _ = code(&["--version"], "", To::Pipes);
}
