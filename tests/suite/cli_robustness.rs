//! Failure paths of the CLI that every engine shares: a closed output pipe,
//! rule files that are not UTF-8, and outputs flushed before a diagnostic.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

fn bin() -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("arbiter"));
    c.current_dir(env!("CARGO_MANIFEST_DIR")).env("NO_COLOR", "1");
    c
}

#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    // Like `arbiter run ... | head -1`: many deals, one line read.
    let mut input = String::new();
    for _ in 0..200_000 {
        input.push_str("2H TC 5D 3S 6C\n");
    }
    input.push_str("#\n");
    let mut child = bin()
        .args(["run", "rules/get_straight.rules"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    // The reader is dropped here: the pipe is closed.
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(first, "Exchange TC\n");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_rule_file_that_is_not_utf8_is_located() {
    let path = std::env::temp_dir().join(format!("arbiter-latin1-{}.rules", std::process::id()));
    std::fs::write(&path, b"game: \"Caf\xe9\"\nengine: exchange\n").unwrap();
    let out = bin().arg("check").arg(&path).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3));
    assert!(err.contains("arbiter::not-utf8") && err.contains("not valid UTF-8") && err.contains(":1:11"), "{err}");
}

#[test]
fn outputs_before_a_bad_case_are_flushed_first() {
    let mut input = String::new();
    for _ in 0..5000 {
        input.push_str("2H TC 5D 3S 6C\n");
    }
    input.push_str("2H TC 5D 3S ZZ\n#\n");
    let out = bin()
        .args(["run", "rules/get_straight.rules"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(input.as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 5000);
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 5001, column 13"));
}

#[test]
fn a_missing_rule_file_is_unreadable_with_exit_5() {
    let out = bin().args(["check", "no/such/file.rules"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{err}");
    assert!(err.contains("arbiter::unreadable") && err.contains("no/such/file.rules"), "{err}");
}

#[test]
fn an_output_that_cannot_be_written_is_exit_5() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else { return };
    let out = bin().args(["check", "rules/get_straight.rules"]).stdout(full).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{err}");
    assert!(err.contains("arbiter::io"), "{err}");
}

/// A shell command line run with `$A` set to the binary: exit code and
/// stderr.
#[cfg(unix)]
fn shell(line: &str) -> (Option<i32>, String) {
    let out = Command::new("sh")
        .args(["-c", line])
        .env("A", assert_cmd::cargo::cargo_bin("arbiter"))
        .env("NO_COLOR", "1")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A standard descriptor closed by the caller (`>&-`, `<&-`) is a failure
/// to write or read (exit 5, "Bad file descriptor"), not an output thrown
/// away with exit 0, nor an empty input; `> /dev/null` and `< /dev/null`
/// are what they were. (Linux: see `term::closed_at_start`.)
#[cfg(target_os = "linux")]
#[test]
fn closed_standard_descriptors_are_exit_5() {
    let deals = "tests/cases/get_straight/00-sample.in";
    for line in [
        format!("\"$A\" run rules/get_straight.rules {deals} >&-"),
        "\"$A\" check rules/get_straight.rules >&-".to_string(),
        "\"$A\" list >&-".to_string(),
    ] {
        let (code, err) = shell(&line);
        assert_eq!(code, Some(5), "{line}: {err}");
        assert!(err.contains("cannot write the output") && err.contains("os error 9"), "{line}: {err}");
    }
    // `--help` (clap's text) fails with the code alone, as on a full disk.
    assert_eq!(shell("\"$A\" --help >&-").0, Some(5));
    let (code, err) = shell("\"$A\" run rules/get_straight.rules <&-");
    assert_eq!(code, Some(5), "{err}");
    assert!(err.contains("cannot read the input: standard input is closed"), "{err}");
    // A rule file read from a closed stdin is no empty rule file.
    for command in ["check", "fmt", "test"] {
        let (code, err) = shell(&format!("\"$A\" {command} - <&-"));
        assert_eq!(code, Some(5), "{command}: {err}");
        assert!(err.contains("standard input is closed"), "{command}: {err}");
    }
    let (code, err) = shell(&format!("\"$A\" run rules/get_straight.rules {deals} > /dev/null"));
    assert_eq!(code, Some(0), "{err}");
    let (code, err) = shell("\"$A\" run rules/get_straight.rules < /dev/null");
    assert_eq!(code, Some(4), "{err}");
    // Opened for reading and writing, as Python's `subprocess.DEVNULL` and
    // Rust's runtime (in the place of a closed one) open it: still a sink.
    let (code, err) = shell(&format!("\"$A\" run rules/get_straight.rules {deals} 1<> /dev/null"));
    assert_eq!(code, Some(0), "{err}");
    let (code, err) = shell("\"$A\" run rules/get_straight.rules 0<> /dev/null");
    assert_eq!(code, Some(4), "{err}");
}

/// A directory as the input is the input's failure: its message says it
/// could not be read, not that the output could not be written.
#[cfg(unix)]
#[test]
fn a_directory_as_stdin_cannot_be_read() {
    let (code, err) = shell("\"$A\" run rules/get_straight.rules < tests");
    assert_eq!(code, Some(5), "{err}");
    assert!(err.contains("cannot read the input") && !err.contains("cannot write"), "{err}");
}

#[test]
fn an_engine_without_an_analysis_is_a_usage_error() {
    let out = bin().args(["analyze", "rules/snooker_referee.rules"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("arbiter::unsupported") && err.contains("has no analysis"), "{err}");
}

/// `--samples 0` is a bad command line (exit 2), not an analysis of one
/// sample, for `analyze` and `diff` alike.
#[test]
fn zero_samples_are_refused() {
    for args in [
        &["analyze", "shuffling_patience", "--samples", "0"][..],
        &["diff", "shuffling_patience", "shuffling_patience/tens", "--samples", "0"][..],
    ] {
        let out = bin().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(out.stdout.is_empty() && err.contains("--samples"), "{args:?}: {err}");
    }
}
