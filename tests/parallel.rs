//! `run --jobs N`: the parallel driver prints exactly what one thread
//! prints, in input order, and an error at case k prints every case before
//! it and none after.

use std::path::{Path, PathBuf};

use arbiter::engines::compile;
use arbiter::game::{Game, Input, Output, RunError, RunOptions};
use arbiter::load::load_path;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn game(rules: &Path) -> Box<dyn Game> {
    let loaded = load_path(rules).unwrap_or_else(|e| panic!("{}: {:?}", rules.display(), e.diags));
    compile(&loaded).0.unwrap_or_else(|| panic!("{} does not compile", rules.display())).game
}

fn run(game: &dyn Game, input: &str, jobs: usize) -> (String, Option<String>) {
    let mut printed = Vec::new();
    let result = {
        let mut out = Output::new(&mut printed);
        let r = game.run(&mut Input::from_text(input), &mut out, &RunOptions { jobs, ..Default::default() });
        out.flush().unwrap();
        r
    };
    let error = match result {
        Ok(()) => None,
        Err(RunError::Input(e)) => Some(format!("{} at {}", e.message, e.place())),
        Err(e) => Some(format!("{e:?}")),
    };
    (String::from_utf8(printed).unwrap(), error)
}

/// The lines of a case file before its terminator line (`#`, `End`), and
/// that terminator, for games whose input ends with one.
fn body_and_end(text: &str, end: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().rposition(|l| l.trim() == end)?;
    Some(lines[..at].iter().map(|l| format!("{l}\n")).collect())
}

/// Every case file of the games whose cases end with a terminator line,
/// repeated until it is thousands of cases long (so that the driver reads
/// several batches and solves them on several threads): the outputs with
/// one thread and with four are the same.
#[test]
fn parallel_runs_print_what_one_thread_prints() {
    let mut checked = 0;
    for (game_name, end) in [("get_straight", "#"), ("shuffling_patience", "#"), ("house_of_cards", "End")] {
        let rules = root().join("rules").join(format!("{game_name}.rules"));
        let g = game(&rules);
        let dir = root().join("tests/cases").join(game_name);
        let mut ins: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "in"))
            .collect();
        ins.sort();
        for input in ins {
            let Some(body) = body_and_end(&std::fs::read_to_string(&input).unwrap(), end) else { continue };
            if body.trim().is_empty() {
                continue;
            }
            // About 200 KB of cases (fewer for the slow searches).
            let limit = if game_name == "house_of_cards" { 4_000 } else { 200_000 };
            let big = body.repeat((limit / body.len()).max(2)) + end + "\n";
            let (one, e1) = run(g.as_ref(), &big, 1);
            let (four, e4) = run(g.as_ref(), &big, 4);
            assert_eq!(e1, e4, "{}", input.display());
            assert!(one == four, "{}: -j 4 prints differently from -j 1", input.display());
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} inputs checked");
}

/// An input error at deal k of a long input, with several threads: every
/// deal before k is printed, none after, and the error names deal k's line.
#[test]
fn an_error_at_case_k_prints_every_case_before_it_and_none_after() {
    let g = game(&root().join("rules/get_straight.rules"));
    let deal = "2H TC 5D 3S 6C\n";
    for k in [1usize, 17, 4095, 4096, 4097, 10_000] {
        let input = format!("{}2H TC 5D 3S ZZ\n{}#\n", deal.repeat(k - 1), deal.repeat(5000));
        let (printed, error) = run(g.as_ref(), &input, 2);
        assert_eq!(printed.lines().count(), k - 1, "k = {k}");
        assert!(printed.lines().all(|l| l == "Exchange TC"), "k = {k}");
        let error = error.unwrap_or_else(|| panic!("k = {k}: no error"));
        assert!(error.contains(&format!("line {k}, column 13")), "k = {k}: {error}");
    }
}

/// The same promise through the binary: `--jobs 2` on stdin.
#[test]
fn the_binary_keeps_every_case_before_an_error_with_two_jobs() {
    use std::io::Write;
    let k = 6000;
    let input = format!("{}2H TC 5D 3S ZZ\n{}#\n", "2H TC 5D 3S 6C\n".repeat(k - 1), "TH JH QH KH AH\n".repeat(3000));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["run", "--jobs", "2", "rules/get_straight.rules"])
        .current_dir(root())
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    let _ = writer.join();
    let printed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(printed.lines().count(), k - 1);
    assert!(printed.lines().all(|l| l == "Exchange TC"));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("line {k}, column 13")));
}
