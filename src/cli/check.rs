//! `arbiter check` and `arbiter test`.

use std::fmt::Write as _;
use std::path::PathBuf;

use arbiter::engines::compile;
use arbiter::example::{diff, run_with as run_example, Verdict, TEST_MAX_NODES};
use arbiter::game::RunOptions;
use arbiter::report::diag::escape_line;

use arbiter::diag::Severity;

use super::ci;
use super::term::{exit, json_values, Term};
use super::{load_and_compile, load_exit, load_failed, load_rules, print};
use crate::CheckFormat;

/// Checks every file. `text` prints `PATH: ok` for the good ones and every
/// diagnostic (warnings included) on stderr; the other formats print only
/// the diagnostics, on stdout. With `deny_warnings`, a file with a warning
/// left after its `allow:` fails (exit 3).
pub fn check(term: &Term, paths: &[PathBuf], format: CheckFormat, deny_warnings: bool) -> u8 {
    let mut code = exit::OK;
    let mut out = String::new();
    let mut found = Vec::new();
    for path in paths {
        let (diags, sources, ok) = match load_rules(term, path) {
            Ok(loaded) => {
                let (compiled, diags) = compile(&loaded);
                (diags, loaded.sources, compiled.is_some())
            }
            Err(e) if format == CheckFormat::Text => {
                code = exit::worst(code, load_failed(term, &e));
                continue;
            }
            Err(e) => {
                code = exit::worst(code, load_exit(&e));
                found.extend(json_values(&super::all_errors(&e), &e.sources));
                continue;
            }
        };
        let warnings = diags.iter().filter(|d| d.severity == Severity::Warning).count();
        let denied = deny_warnings && warnings > 0;
        if !ok || denied {
            code = exit::worst(code, exit::RULES);
        }
        if format != CheckFormat::Text {
            found.extend(json_values(&diags, &sources));
            continue;
        }
        if term.quiet {
            // Errors only; a denied file's warnings are why it failed.
            let shown: Vec<_> = diags.iter().filter(|d| denied || d.is_error()).cloned().collect();
            term.diags(&shown, &sources);
        } else {
            term.diags(&diags, &sources);
        }
        let w = match warnings {
            0 => String::new(),
            1 => " 1 warning".to_string(),
            n => format!(" {n} warnings"),
        };
        let path = escape_line(&super::shown_name(term, path));
        if denied {
            let _ = writeln!(out, "{path}:{w}, denied (--deny-warnings)");
        } else if ok && !term.quiet {
            let _ = writeln!(out, "{path}: ok{}", w.replacen(' ', ", ", 1));
        }
    }
    match format {
        CheckFormat::Text => {}
        CheckFormat::Json => found.iter().for_each(|v| out.push_str(&format!("{v}\n"))),
        CheckFormat::Short => found.iter().for_each(|v| out.push_str(&format!("{}\n", ci::short(v)))),
        CheckFormat::Github => found.iter().for_each(|v| out.push_str(&format!("{}\n", ci::github(v)))),
        CheckFormat::Sarif => out = format!("{:#}\n", ci::sarif(&found)),
    }
    exit::worst(code, print(term, out.as_bytes()))
}

/// How the examples of `arbiter test` went.
#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    limited: usize,
}

/// Runs the worked examples of every file, each case within `max_nodes`
/// search nodes (default [`TEST_MAX_NODES`]).
pub fn test(term: &Term, paths: &[PathBuf], max_nodes: Option<u64>) -> u8 {
    let mut code = exit::OK;
    let mut tally = Tally::default();
    let mut out = String::new();
    let opts = RunOptions { max_nodes: Some(max_nodes.unwrap_or(TEST_MAX_NODES)), ..RunOptions::default() };
    let mut files = Vec::new();
    for path in paths {
        let compiled = match load_and_compile(term, path) {
            Ok((_, c)) => c,
            Err(c) => {
                code = exit::worst(code, c);
                files.push(
                    serde_json::json!({ "file": super::shown_name(term, path), "checks": false, "examples": [] }),
                );
                continue;
            }
        };
        let mut examples = Vec::new();
        let mut file = format!("{}\n", escape_line(&super::shown_name(term, path)));
        if compiled.examples.is_empty() {
            let _ = writeln!(file, "  (no examples)");
        }
        let before = (tally.failed, tally.limited);
        for ex in &compiled.examples {
            let verdict = run_example(compiled.game.as_ref(), ex, &opts);
            examples.push(verdict_json(&ex.name, &verdict));
            test_one(&mut file, &mut tally, verdict, &ex.name, max_nodes, term.quiet);
        }
        files.push(serde_json::json!({ "file": super::shown_name(term, path), "checks": true, "examples": examples }));
        // Quiet: only the files with a failed or stopped example.
        if !term.quiet || (tally.failed, tally.limited) != before {
            out.push_str(&file);
        }
    }
    if !term.quiet || tally.failed + tally.limited > 0 {
        let _ = write!(out, "{} passed, {} failed", tally.passed, tally.failed);
        if tally.limited > 0 {
            let _ = write!(out, ", {} stopped by a limit", tally.limited);
        }
        out.push('\n');
    }
    if term.json {
        let v = serde_json::json!({
            "kind": "arbiter-test", "version": 1, "files": files,
            "passed": tally.passed, "failed": tally.failed, "limited": tally.limited,
        });
        out = format!("{v:#}\n");
    }
    if tally.failed > 0 {
        code = exit::worst(code, exit::EXAMPLE);
    }
    if tally.limited > 0 {
        code = exit::worst(code, exit::LIMIT);
    }
    exit::worst(code, print(term, out.as_bytes()))
}

/// One example's verdict as JSON (docs/cli.md, `test --format json`).
fn verdict_json(name: &str, verdict: &Verdict) -> serde_json::Value {
    use serde_json::json;
    match verdict {
        Verdict::Pass => json!({ "name": name, "verdict": "pass" }),
        Verdict::Differs(want, got) => json!({
            "name": name, "verdict": "fail", "expected": want, "got": got, "diff": diff(want, got),
        }),
        Verdict::WrongError { expected, got } => json!({
            "name": name, "verdict": "fail", "expected_error": expected, "got_error": got,
        }),
        Verdict::Limit(why) => json!({ "name": name, "verdict": "limit", "message": why }),
    }
}

/// Reports one example's verdict (a passed one only when not `quiet`).
fn test_one(out: &mut String, tally: &mut Tally, verdict: Verdict, name: &str, max_nodes: Option<u64>, quiet: bool) {
    let name = escape_line(name);
    match verdict {
        Verdict::Pass => {
            tally.passed += 1;
            if !quiet {
                let _ = writeln!(out, "  ok    {name}");
            }
        }
        Verdict::Differs(want, got) => {
            tally.failed += 1;
            let _ = writeln!(out, "  FAIL  {name}: the output differs");
            for line in diff(&want, &got).lines() {
                let _ = writeln!(out, "        {}", escape_line(line));
            }
        }
        Verdict::WrongError { expected, got } => {
            tally.failed += 1;
            let show = |e: &Option<String>| {
                e.as_deref().map_or("no input error".to_string(), |m| format!("an input error with `{m}`"))
            };
            let _ = writeln!(
                out,
                "  FAIL  {name}: expected {}, got {}",
                escape_line(&show(&expected)),
                escape_line(&show(&got))
            );
        }
        Verdict::Limit(why) => {
            tally.limited += 1;
            let _ = writeln!(out, "  LIMIT {name}: {}", escape_line(&why));
            if max_nodes.is_none() {
                let _ = writeln!(
                    out,
                    "        (`arbiter test` allows {TEST_MAX_NODES} nodes per case; give --max-nodes N for more)"
                );
            }
        }
    }
}
