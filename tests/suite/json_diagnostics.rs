//! `--format json`: diagnostics as one JSON object per line (docs/cli.md),
//! from `check` (on stdout) and from `run` (on stderr, input errors
//! included).

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

fn bin() -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("arbiter"));
    c.current_dir(env!("CARGO_MANIFEST_DIR")).env("NO_COLOR", "1");
    c
}

fn exec(args: &[&str], stdin: &str) -> std::process::Output {
    let mut child =
        bin().args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    // The child may exit before reading its input (a broken rule file).
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

fn objects(text: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(text)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

const FIELDS: [&str; 11] =
    ["code", "severity", "message", "help", "file", "line", "column", "end_line", "end_column", "label", "related"];

fn has_fields(v: &Value) {
    for f in FIELDS {
        assert!(v.get(f).is_some(), "field `{f}` in {v}");
    }
}

#[test]
fn check_prints_one_object_per_diagnostic_with_related_places() {
    let o = exec(&["check", "--format", "json", "tests/check/get_straight/duplicate-combination.rules"], "");
    assert_eq!(o.status.code(), Some(3));
    assert!(o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
    let all = objects(&o.stdout);
    assert!(!all.is_empty());
    let d = all.iter().find(|d| d["code"] == "duplicate").expect("a `duplicate` diagnostic");
    has_fields(d);
    assert_eq!(d["severity"], "error");
    assert_eq!(d["file"], "tests/check/get_straight/duplicate-combination.rules");
    let text = std::fs::read_to_string("tests/check/get_straight/duplicate-combination.rules").unwrap();
    let line = d["line"].as_u64().unwrap() as usize;
    let column = d["column"].as_u64().unwrap() as usize;
    assert!(line >= 1 && column >= 1 && text.lines().nth(line - 1).is_some());
    let related = d["related"].as_array().unwrap();
    assert!(!related.is_empty(), "the first definition is a related place: {d}");
    for r in related {
        assert!(r["line"].as_u64().unwrap() < line as u64 && r["message"].is_string(), "{r}");
    }
}

#[test]
fn check_json_of_good_and_unreadable_files() {
    let o = exec(&["check", "--format", "json", "rules/get_straight.rules"], "");
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stdout.is_empty(), "no diagnostics, no output");
    let o = exec(&["check", "--format", "json", "no/such/file.rules"], "");
    assert_eq!(o.status.code(), Some(5));
    let all = objects(&o.stdout);
    assert_eq!(all.len(), 1);
    has_fields(&all[0]);
    assert_eq!(all[0]["code"], "unreadable");
    assert!(all[0]["help"].as_str().unwrap().contains("bundled"), "{}", all[0]);
}

#[test]
fn check_json_says_how_many_diagnostics_are_left_out() {
    let o = exec(&["check", "--format", "json", "tests/check/syntax/many-unknown-keys.rules"], "");
    assert_eq!(o.status.code(), Some(3));
    let all = objects(&o.stdout);
    let last = all.last().unwrap();
    assert_eq!(last["code"], "too-many-diagnostics");
    assert_eq!(last["severity"], "advice");
    assert_eq!(all.len(), 51, "fifty diagnostics, then the count of the others");
}

#[test]
fn run_prints_input_errors_as_json_on_stderr() {
    let o = exec(&["run", "--format", "json", "get_straight"], "2H 3S 5D 6C TC\n2H 3S 5D 6C ZZ\n#\n");
    assert_eq!(o.status.code(), Some(4));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "Exchange TC\n");
    let all = objects(&o.stderr);
    assert_eq!(all.len(), 1);
    has_fields(&all[0]);
    assert_eq!(all[0]["code"], "input");
    assert_eq!(all[0]["file"], "<stdin>");
    assert_eq!((all[0]["line"].as_u64(), all[0]["column"].as_u64()), (Some(2), Some(13)));
    assert_eq!(all[0]["end_column"].as_u64(), Some(15));
}

#[test]
fn run_prints_rule_file_errors_as_json_on_stderr() {
    let o = exec(&["run", "--format", "json", "tests/check/get_straight/unknown-key.rules"], "#\n");
    assert_eq!(o.status.code(), Some(3));
    assert!(o.stdout.is_empty());
    let all = objects(&o.stderr);
    assert!(all.iter().any(|d| d["code"] == "unknown-key"), "{all:?}");
    all.iter().for_each(has_fields);
}
