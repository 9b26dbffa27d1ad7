//! Expected-output cases: every `NAME.in` under `tests/cases/<game>/` is run
//! with `rules/<game>.rules` and must print `NAME.out` byte for byte;
//! `tests/cases/<game>/variants/<variant>/` uses
//! `rules/<game>/<variant>.rules`. See tests/README.md to add a case.

use std::path::{Path, PathBuf};

use arbiter::engines::compile;
use arbiter::game::{run_text, RunOptions};
use arbiter::load::load_path;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// (rule file, case folder) pairs found under tests/cases.
fn suites() -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    let cases = root().join("tests/cases");
    let mut games: Vec<_> =
        std::fs::read_dir(&cases).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    games.sort();
    for g in games {
        let game = g.file_name().unwrap().to_string_lossy().to_string();
        out.push((root().join(format!("rules/{game}.rules")), g.clone()));
        if let Ok(vs) = std::fs::read_dir(g.join("variants")) {
            let mut vs: Vec<_> = vs.map(|e| e.unwrap().path()).collect();
            vs.sort();
            for v in vs {
                let variant = v.file_name().unwrap().to_string_lossy().to_string();
                out.push((root().join(format!("rules/{game}/{variant}.rules")), v));
            }
        }
    }
    out
}

fn run_case(rules: &Path, input: &str) -> Result<String, String> {
    let loaded =
        load_path(rules).map_err(|e| format!("{:?}", e.diags.iter().map(|d| &d.message).collect::<Vec<_>>()))?;
    let (compiled, diags) = compile(&loaded);
    let compiled = compiled.ok_or_else(|| format!("{:?}", diags.iter().map(|d| &d.message).collect::<Vec<_>>()))?;
    let (printed, result) = run_text(compiled.game.as_ref(), input, &RunOptions::default());
    result.map_err(|e| format!("{e:?}"))?;
    Ok(printed)
}

#[test]
fn every_case_prints_its_expected_output() {
    let mut failures = Vec::new();
    let mut count = 0;
    for (rules, dir) in suites() {
        let mut ins: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "in"))
            .collect();
        ins.sort();
        for inp in ins {
            let want = std::fs::read_to_string(inp.with_extension("out")).unwrap();
            let input = std::fs::read_to_string(&inp).unwrap();
            count += 1;
            match run_case(&rules, &input) {
                Ok(got) if got == want => {}
                Ok(got) => failures.push(format!("{}: output differs\n--- want\n{want}--- got\n{got}", inp.display())),
                Err(e) => failures.push(format!("{}: {e}", inp.display())),
            }
        }
    }
    assert!(count > 0, "no cases found under tests/cases");
    assert!(failures.is_empty(), "{} of {count} cases failed:\n{}", failures.len(), failures.join("\n"));
}
