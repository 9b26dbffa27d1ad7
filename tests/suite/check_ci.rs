//! `check` in CI: `--deny-warnings`, a rule file's `allow:`, and the
//! formats for tools (`short`, `github`, `sarif`), each saying what
//! `--format json` says, on every broken rule file of `tests/check/`.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn arbiter(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("arbiter").unwrap().args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn broken_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for game in std::fs::read_dir(root().join("tests/check")).unwrap() {
        for f in std::fs::read_dir(game.unwrap().path()).unwrap() {
            let p = f.unwrap().path();
            if p.extension().is_some_and(|e| e == "rules") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arbiter-check-ci-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A Havannah variant with a cell family no structure uses: one warning.
const UNUSED: &str = "extends: \"havannah\"\ncells \"middle\" { of: sides-with-corners }\n";

#[test]
fn deny_warnings_fails_a_file_whose_warnings_are_not_allowed() {
    let warned = temp("warned.rules", UNUSED);
    let warned = warned.to_str().unwrap();
    let (code, out, err) = arbiter(&["check", warned]);
    assert_eq!(code, 0, "{err}");
    assert!(out.ends_with(": ok, 1 warning\n") && err.contains("arbiter::unused"), "{out}{err}");
    let (code, out, err) = arbiter(&["check", "--deny-warnings", warned]);
    assert_eq!(code, 3, "{err}");
    assert!(out.contains("1 warning, denied (--deny-warnings)") && !out.contains("ok"), "{out}");

    let allowed = temp("allowed.rules", &format!("allow: \"unused\"\n{UNUSED}"));
    let (code, out, err) = arbiter(&["check", "--deny-warnings", allowed.to_str().unwrap()]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert!(out.ends_with(": ok\n"), "{out}");

    // A variant of the allowing file inherits its `allow:`; its own list
    // replaces it.
    let base = allowed.file_name().unwrap().to_str().unwrap();
    let inherits = temp("inherits.rules", &format!("extends: \"{base}\"\n"));
    assert_eq!(arbiter(&["check", "--deny-warnings", inherits.to_str().unwrap()]).0, 0);
    let replaces = temp("replaces.rules", &format!("extends: \"{base}\"\nallow: \"paytable-order\"\n"));
    assert_eq!(arbiter(&["check", "--deny-warnings", replaces.to_str().unwrap()]).0, 3);

    // Only warnings can be allowed, by their codes.
    for (code_given, suggestion) in [("unusd", "unused"), ("type", "")] {
        let bad = temp("bad-allow.rules", &format!("allow: \"{code_given}\"\n{UNUSED}"));
        let (code, _, err) = arbiter(&["check", bad.to_str().unwrap()]);
        assert_eq!(code, 3, "{err}");
        assert!(err.contains("arbiter::unknown-name") && err.contains("a warning's code"), "{err}");
        assert!(err.contains(suggestion), "{err}");
    }
}

#[test]
fn every_format_reports_what_json_reports() {
    let files = broken_files();
    assert!(files.len() > 100, "{} broken files", files.len());
    let paths: Vec<&str> = files.iter().map(|p| p.to_str().unwrap()).collect();
    let run = |format: &str| {
        let mut args = vec!["check", "--format", format];
        args.extend(&paths);
        let (code, out, err) = arbiter(&args);
        assert!(err.is_empty(), "--format {format} printed on stderr: {err}");
        (code, out)
    };
    let (json_code, json) = run("json");
    let json: Vec<Value> = json.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(json.len() >= files.len());
    let place = |v: &Value| match (v["file"].as_str(), v["line"].as_u64(), v["column"].as_u64()) {
        (Some(f), Some(l), Some(c)) => format!("{f}:{l}:{c}"),
        (Some(f), _, _) => f.to_string(),
        _ => "arbiter".to_string(),
    };

    let (code, short) = run("short");
    assert_eq!(code, json_code);
    let short: Vec<&str> = short.lines().collect();
    assert_eq!(short.len(), json.len());
    for (line, v) in short.iter().zip(&json) {
        let head = format!("{}: {}[{}]: ", place(v), v["severity"].as_str().unwrap(), v["code"].as_str().unwrap());
        assert!(line.starts_with(&head), "{line} against {head}");
    }

    let (code, github) = run("github");
    assert_eq!(code, json_code);
    let github: Vec<&str> = github.lines().collect();
    assert_eq!(github.len(), json.len());
    for (line, v) in github.iter().zip(&json) {
        let level = match v["severity"].as_str().unwrap() {
            "advice" => "notice",
            s => s,
        };
        assert!(line.starts_with(&format!("::{level} ")), "{line}");
        let props = line.split("::").nth(1).unwrap();
        if let Some(n) = v["line"].as_u64() {
            assert!(props.split(',').any(|p| p == format!("line={n}")), "{line}");
        }
        assert!(props.contains(&format!("title=arbiter%3A%3A{}", v["code"].as_str().unwrap())), "{line}");
        assert!(!line.contains('\n'));
    }

    let (code, sarif) = run("sarif");
    assert_eq!(code, json_code);
    let sarif: Value = serde_json::from_str(&sarif).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), json.len());
    let rules: Vec<&str> = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    for (r, v) in results.iter().zip(&json) {
        assert_eq!(r["ruleId"], v["code"]);
        assert!(rules.contains(&v["code"].as_str().unwrap()));
        let region = &r["locations"][0]["physicalLocation"]["region"];
        assert_eq!(region["startLine"].as_u64(), v["line"].as_u64(), "{r}");
        assert_eq!(region["startColumn"].as_u64(), v["column"].as_u64(), "{r}");
        assert!(r["message"]["text"].as_str().unwrap().starts_with(v["message"].as_str().unwrap()));
    }
}
