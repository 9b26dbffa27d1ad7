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
    run_with(game, input, RunOptions { jobs, ..Default::default() })
}

fn run_with(game: &dyn Game, input: &str, opts: RunOptions) -> (String, Option<String>) {
    let mut printed = Vec::new();
    let result = {
        let mut out = Output::new(&mut printed);
        let r = game.run(&mut Input::from_text(input), &mut out, &opts);
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

/// A case file made thousands of cases long, so that the driver reads
/// several batches and solves them on several threads: a count-prefixed
/// input (a first line that is a number) gets its count multiplied, an
/// input that ends with a terminator line (`#`, `End`) gets its cases
/// repeated before it. `None` for any other shape.
fn repeated(text: &str, bytes: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let times = |body: &str| (bytes / body.len().max(1)).max(2);
    if let Some(count) = lines.first().and_then(|l| l.trim().parse::<usize>().ok()) {
        let body: String = lines[1..].iter().map(|l| format!("{l}\n")).collect();
        let n = times(&body);
        return Some(format!("{}\n{}", count * n, body.repeat(n)));
    }
    let at = lines.iter().rposition(|l| matches!(l.trim(), "#" | "End"))?;
    let body: String = lines[..at].iter().map(|l| format!("{l}\n")).collect();
    (!body.trim().is_empty()).then(|| body.repeat(times(&body)) + lines[at] + "\n")
}

/// Every case file under tests/cases (base games and variants), made
/// thousands of cases long: the outputs with one thread and with four are
/// the same, and so are the errors.
#[test]
fn parallel_runs_print_what_one_thread_prints() {
    let mut checked = 0;
    let mut suites = Vec::new();
    for entry in std::fs::read_dir(root().join("tests/cases")).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        suites.push((root().join(format!("rules/{name}.rules")), dir.clone()));
        for v in std::fs::read_dir(dir.join("variants")).into_iter().flatten() {
            let v = v.unwrap().path();
            let variant = v.file_name().unwrap().to_string_lossy().to_string();
            suites.push((root().join(format!("rules/{name}/{variant}.rules")), v));
        }
    }
    suites.sort();
    for (rules, dir) in suites {
        let g = game(&rules);
        let mut ins: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "in"))
            .collect();
        ins.sort();
        for input in ins {
            let text = std::fs::read_to_string(&input).unwrap();
            // About 100 KB of cases; a few KB for the searches, whose cases
            // are slow.
            let bytes = if rules.to_string_lossy().contains("house_of_cards") { 3_000 } else { 100_000 };
            let Some(big) = repeated(&text, bytes) else { continue };
            let (one, e1) = run(g.as_ref(), &big, 1);
            let (four, e4) = run(g.as_ref(), &big, 4);
            assert_eq!(e1, e4, "{}", input.display());
            assert!(one == four, "{}: -j 4 prints differently from -j 1", input.display());
            // The default: one thread until the cases prove slow.
            let (auto, ea) = run_with(g.as_ref(), &big, RunOptions { jobs: 4, adaptive: true, ..Default::default() });
            assert_eq!(e1, ea, "{}", input.display());
            assert!(one == auto, "{}: the adaptive driver prints differently from -j 1", input.display());
            checked += 1;
        }
    }
    assert!(checked >= 150, "only {checked} inputs checked");
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
