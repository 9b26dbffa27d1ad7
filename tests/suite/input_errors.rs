//! Input errors as data: every `tests/input_errors/<game>/NAME.in` runs
//! with `rules/<game>.rules` (and `tests/input_errors/<game>/<variant>/NAME.in`
//! with `rules/<game>/<variant>.rules`). The run must end with an input
//! error; what it printed before the error and the rendered diagnostic are a
//! snapshot in `tests/suite/snapshots/`. See tests/README.md to add one.

use std::path::{Path, PathBuf};

use arbiter::engines::compile;
use arbiter::game::{Input, Output, RunError, RunOptions};
use arbiter::load::load_path;
use arbiter::report::diag::{of_input, render_plain};

/// The rule file an input under `tests/input_errors/` runs with.
fn rules_for(input: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rel = input.strip_prefix(root.join("tests/input_errors")).unwrap();
    let parts: Vec<_> = rel.parent().unwrap().iter().map(|p| p.to_string_lossy().into_owned()).collect();
    match parts.as_slice() {
        [game] => root.join("rules").join(format!("{game}.rules")),
        [game, variant] => root.join("rules").join(game).join(format!("{variant}.rules")),
        _ => panic!("{}: expected tests/input_errors/<game>[/<variant>]/NAME.in", rel.display()),
    }
}

/// Every `.in` file under `dir`, sorted.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            out.extend(inputs(&p));
        } else if p.extension().is_some_and(|e| e == "in") {
            out.push(p);
        }
    }
    out
}

#[test]
fn bad_inputs_report_their_error_at_the_right_place() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/input_errors");
    let all = inputs(&root);
    assert!(!all.is_empty());
    for path in &all {
        let path = path.as_path();
        let rules = rules_for(path);
        let loaded = load_path(&rules).unwrap_or_else(|e| panic!("{}: {:?}", rules.display(), e.diags));
        let game = compile(&loaded).0.unwrap_or_else(|| panic!("{} does not compile", rules.display())).game;
        // Bytes, not text: some inputs are not UTF-8 on purpose.
        let input = std::fs::read(path).unwrap();
        let mut out_bytes = Vec::new();
        let result = {
            let mut out = Output::new(&mut out_bytes);
            let r = game.run(&mut Input::new(&input[..]), &mut out, &RunOptions::default());
            out.flush().unwrap();
            r
        };
        let printed = String::from_utf8(out_bytes).unwrap();
        let name = path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap().display().to_string();
        let rendered = match result {
            Err(RunError::Input(e)) => {
                assert!(e.offset <= input.len(), "{name}: the error points past the input");
                render_plain(&of_input(&e, &name))
            }
            other => panic!("{name}: expected an input error, got {other:?}"),
        };
        // `get_straight/short-line.in` is snapshot `input_errors__get_straight__short-line.snap`.
        let snapshot = path.strip_prefix(&root).unwrap().with_extension("").to_string_lossy().replace('/', "__");
        insta::assert_snapshot!(snapshot, format!("--- printed before the error\n{printed}--- diagnostic\n{rendered}"));
    }
}
