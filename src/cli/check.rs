//! `arbiter check` and `arbiter test`.

use std::fmt::Write as _;
use std::path::PathBuf;

use arbiter::engines::compile;
use arbiter::example::{diff, run as run_example, Verdict};
use arbiter::load::load;
use arbiter::report::diag::of_diag;

use super::term::{exit, Term};
use super::{load_and_compile, load_failed, print};

/// Checks every file; prints `PATH: ok` for the good ones and every
/// diagnostic (warnings included) for all.
pub fn check(term: &Term, paths: &[PathBuf]) -> u8 {
    let mut code = exit::OK;
    let mut out = String::new();
    for path in paths {
        let loaded = match load(path) {
            Ok(l) => l,
            Err(e) => {
                code = exit::worst(code, load_failed(term, &e));
                continue;
            }
        };
        let (compiled, diags) = compile(&loaded);
        for d in &diags {
            term.report(&of_diag(d, &loaded.sources));
        }
        let warnings = diags.iter().filter(|d| !d.is_error()).count();
        if compiled.is_some() {
            let w = match warnings {
                0 => String::new(),
                1 => ", 1 warning".to_string(),
                n => format!(", {n} warnings"),
            };
            let _ = writeln!(out, "{}: ok{w}", path.display());
        } else {
            code = exit::worst(code, exit::RULES);
        }
    }
    exit::worst(code, print(term, out.as_bytes()))
}

/// Runs the worked examples of every file.
pub fn test(term: &Term, paths: &[PathBuf]) -> u8 {
    let (mut passed, mut failed, mut code) = (0, 0, exit::OK);
    let mut out = String::new();
    for path in paths {
        let compiled = match load_and_compile(term, path) {
            Ok((_, c)) => c,
            Err(c) => {
                code = exit::worst(code, c);
                continue;
            }
        };
        let _ = writeln!(out, "{}", path.display());
        if compiled.examples.is_empty() {
            let _ = writeln!(out, "  (no examples)");
        }
        for ex in &compiled.examples {
            match run_example(compiled.game.as_ref(), ex) {
                Verdict::Pass => {
                    passed += 1;
                    let _ = writeln!(out, "  ok    {}", ex.name);
                }
                Verdict::Differs(want, got) => {
                    failed += 1;
                    let _ = writeln!(out, "  FAIL  {}: the output differs", ex.name);
                    for line in diff(&want, &got).lines() {
                        let _ = writeln!(out, "        {line}");
                    }
                }
                Verdict::WrongError { expected, got } => {
                    failed += 1;
                    let show = |e: &Option<String>| {
                        e.as_deref().map_or("no input error".to_string(), |m| format!("an input error with `{m}`"))
                    };
                    let _ = writeln!(out, "  FAIL  {}: expected {}, got {}", ex.name, show(&expected), show(&got));
                }
            }
        }
    }
    let _ = writeln!(out, "{passed} passed, {failed} failed");
    if failed > 0 {
        code = exit::worst(code, exit::EXAMPLE);
    }
    exit::worst(code, print(term, out.as_bytes()))
}
