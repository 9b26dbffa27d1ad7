//! The README's commands, run as a newcomer runs them:
//! - every command of a `sh` block runs and succeeds: `cargo run -- ARGS`
//!   is the built binary with ARGS, and when the block is followed by a
//!   `text` block of output (not a transcript), stdout is exactly that;
//!   other lines run in `sh` with `arbiter` on the PATH and a fresh HOME.
//!   Only the commands that cannot run inside `cargo test` are skipped,
//!   each for the reason [`SKIPPED`] gives;
//! - every transcript (a `text` block whose first line starts with `$ `)
//!   runs each `$` command in `sh`, and every line shown after it is
//!   printed, in that order: a transcript may leave lines out (a line that
//!   is only `...` says so), but each line it shows is real;
//! - every file a command names under `examples/` or `rules/` exists.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Commands of the README's `sh` blocks that `cargo test` does not run:
/// (prefix, why).
const SKIPPED: [(&str, &str); 3] = [
    ("cargo test", "the test suite itself"),
    ("cargo install", "installs into the user's cargo home; the binary it installs is the one under test"),
    ("benches/", "builds the release binary and times it against ../shared for minutes"),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The fenced blocks of a Markdown text: (line of the fence, language, text).
fn blocks(md: &str) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String, String)> = None;
    for (i, line) in md.lines().enumerate() {
        let t = line.trim_start();
        match &mut current {
            None if t.starts_with("```") => current = Some((i + 1, t[3..].trim().to_string(), String::new())),
            Some(_) if t.starts_with("```") => out.push(current.take().unwrap()),
            Some((_, _, text)) => {
                text.push_str(line);
                text.push('\n');
            }
            None => {}
        }
    }
    out
}

/// A shell with the built `arbiter` first on the PATH, in the repository,
/// with a fresh HOME and no colour.
fn sh(script: &str, home: &Path) -> std::process::Output {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_arbiter"));
    let path = format!("{}:{}", bin.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(root())
        .env("PATH", path)
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "200")
        .output()
        .expect("sh runs")
}

/// Whether every line of `want` but the `...` ones is a line of `got`, in
/// order (spaces at the ends of lines aside).
fn shown_in_order(want: &[&str], got: &[&str]) -> bool {
    let mut got = got.iter();
    want.iter().filter(|w| w.trim() != "...").all(|w| got.any(|g| g.trim_end() == w.trim_end()))
}

/// The `$ ` commands of a transcript, each with the lines it prints.
fn transcript(text: &str) -> Vec<(String, Vec<&str>)> {
    let mut out: Vec<(String, Vec<&str>)> = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if let Some(cmd) = line.strip_prefix("$ ") {
            let mut cmd = cmd.to_string();
            // A quoted argument may go on over lines (`echo "a\nb" | ...`).
            while cmd.matches('"').count() % 2 == 1 {
                let Some(next) = lines.next() else { break };
                cmd.push('\n');
                cmd.push_str(next);
            }
            out.push((cmd, Vec::new()));
        } else if let Some((_, printed)) = out.last_mut() {
            printed.push(line);
        }
    }
    out
}

#[test]
fn the_readme_commands_work_on_a_fresh_clone() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let home = std::env::temp_dir().join(format!("arbiter-readme-{}", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    let all = blocks(&readme);
    let mut ran = 0;
    for (i, (line, lang, text)) in all.iter().enumerate() {
        let shows_output = all.get(i + 1).filter(|(_, l, t)| l == "text" && !t.starts_with("$ ")).map(|b| &b.2);
        if lang == "sh" {
            for cmd in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
                if SKIPPED.iter().any(|(p, _)| cmd.starts_with(p)) {
                    continue;
                }
                let script =
                    cmd.strip_prefix("cargo run -- ").map_or(cmd.to_string(), |args| format!("arbiter {args}"));
                let out = sh(&script, &home);
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert!(out.status.success(), "README.md:{line}: `{cmd}` failed ({}):\n{stderr}", out.status);
                if let (Some(want), true) = (shows_output, cmd.starts_with("cargo run")) {
                    assert_eq!(
                        String::from_utf8_lossy(&out.stdout),
                        *want,
                        "README.md:{line}: `{cmd}` prints otherwise"
                    );
                }
                ran += 1;
            }
        } else if lang == "text" && text.starts_with("$ ") {
            for (cmd, want) in transcript(text) {
                let out = sh(&cmd, &home);
                let printed = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
                let got: Vec<&str> = printed.lines().collect();
                assert!(
                    shown_in_order(&want, &got),
                    "README.md:{line}: `{cmd}` prints otherwise; the README shows\n{}\nit printed\n{printed}",
                    want.join("\n")
                );
                ran += 1;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&home);
    assert!(ran >= 10, "only {ran} README commands ran");
}

/// Every path under `examples/` or `rules/` that the README names exists.
#[test]
fn the_files_the_readme_names_exist() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for word in readme.split(|c: char| c.is_whitespace() || "`()[]<>\"',:".contains(c)) {
        if (word.starts_with("examples/") || word.starts_with("rules/")) && word.contains('.') {
            assert!(root().join(word).exists(), "README.md names {word}, which does not exist");
        }
    }
}

#[test]
fn a_transcript_shows_real_lines_in_order() {
    assert!(shown_in_order(&["a", " ...", "d"], &["a", "b", "c", "d"]));
    assert!(shown_in_order(&["a", "c"], &["a", "b", "c"]));
    assert!(!shown_in_order(&["c", "a"], &["a", "b", "c"]));
    assert!(!shown_in_order(&["a", "x"], &["a", "b", "c"]));
}

/// The binary is linked as the README's "Set up and run" says and as
/// `build.rs` decided (`ARBITER_LINKED`): statically, it asks for no
/// program interpreter (no ELF segment of type `PT_INTERP`), so no shared
/// library is loaded; dynamically, it does.
#[test]
fn the_binary_is_linked_as_the_build_decided() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(readme.contains("ARBITER_LINK=dynamic"), "the README says how to opt out of the static link");
    let bytes = std::fs::read(env!("CARGO_BIN_EXE_arbiter")).unwrap();
    if bytes.get(..4) != Some(b"\x7fELF".as_slice()) || bytes[4] != 2 || bytes[5] != 1 {
        // Not a 64-bit little-endian ELF file: no such decision was made.
        assert_eq!(env!("ARBITER_LINKED"), "dynamic");
        return;
    }
    let word = |at: usize, n: usize| bytes[at..at + n].iter().rev().fold(0u64, |v, &b| v << 8 | b as u64) as usize;
    let (table, size, count) = (word(0x20, 8), word(0x36, 2), word(0x38, 2));
    const PT_INTERP: usize = 3;
    let interpreted = (0..count).any(|i| word(table + i * size, 4) == PT_INTERP);
    assert_eq!(interpreted, env!("ARBITER_LINKED") == "dynamic", "linked {}", env!("ARBITER_LINKED"));
}
