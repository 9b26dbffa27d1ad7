//! Every rule file in rules/ carries at least two worked examples, and they
//! all pass; a failing example makes `arbiter test` exit 6 with a diff.

use arbiter::engines::compile;
use arbiter::example::{run, Verdict};
use arbiter::load::load_path;
use assert_cmd::Command;

fn rule_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rule_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rules") {
            out.push(p);
        }
    }
}

#[test]
fn every_rule_file_has_passing_examples() {
    let mut files = Vec::new();
    rule_files(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules"), &mut files);
    for f in files {
        let compiled = compile(&load_path(&f).unwrap()).0.unwrap();
        assert!(compiled.examples.len() >= 2, "{}: fewer than two examples", f.display());
        for ex in &compiled.examples {
            assert_eq!(run(compiled.game.as_ref(), ex), Verdict::Pass, "{}: example `{}`", f.display(), ex.name);
        }
    }
}

#[test]
fn a_failing_example_exits_6_with_a_diff() {
    let dir = std::env::temp_dir().join(format!("arbiter-examples-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/get_straight.rules");
    let file = dir.join("wrong.rules");
    std::fs::write(
        &file,
        format!(
            "extends: \"{}\"\nexample \"wrong\" {{\n  input: \"\"\"\n    TH JH QH KH AH\n    #\n    \"\"\"\n  output: \"\"\"\n    Exchange AH\n    \"\"\"\n}}\n",
            base.display()
        ),
    )
    .unwrap();
    let out = Command::cargo_bin("arbiter").unwrap().args(["test"]).arg(&file).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(6), "{stdout}");
    assert!(stdout.contains("FAIL  wrong") && stdout.contains("-Exchange AH") && stdout.contains("+Stay"), "{stdout}");
    assert!(stdout.contains("0 passed, 1 failed"), "{stdout}");
}
