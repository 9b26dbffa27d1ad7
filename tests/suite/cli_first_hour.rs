//! The command line a newcomer meets (issue 28): `help` and `help --help`,
//! `--quiet`, rule files on standard input named by `--stdin-name`,
//! completion of bundled names, output that fits `COLUMNS`.

use assert_cmd::Command;

fn arbiter() -> Command {
    let mut c = Command::cargo_bin("arbiter").unwrap();
    c.current_dir(env!("CARGO_MANIFEST_DIR")).env_remove("COLUMNS").env("NO_COLOR", "1");
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn help_explains_itself_and_every_command() {
    let out = arbiter().args(["help", "--help"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("Usage: arbiter help"), "{}", text(&out.stdout));
    // `help run` is `run --help`.
    let help = arbiter().args(["help", "run"]).output().unwrap();
    let long = arbiter().args(["run", "--help"]).output().unwrap();
    assert_eq!(help.status.code(), Some(0));
    assert_eq!(text(&help.stdout), text(&long.stdout));
    let out = arbiter().args(["help"]).output().unwrap();
    assert!(text(&out.stdout).contains("Usage: arbiter [OPTIONS] <COMMAND>"), "{}", text(&out.stdout));
    let out = arbiter().args(["help", "nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no command `nope`"), "{}", text(&out.stderr));
}

#[test]
fn quiet_prints_only_what_failed() {
    let out = arbiter().args(["-q", "check", "rules/get_straight.rules"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{}{}", text(&out.stdout), text(&out.stderr));
    let loud = arbiter().args(["check", "rules/get_straight.rules"]).output().unwrap();
    assert_eq!(text(&loud.stdout), "rules/get_straight.rules: ok\n");
    // Passing examples: nothing; the usual run says how many passed.
    let out = arbiter().args(["test", "--quiet", "rules/get_straight.rules"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    // A failing example is still reported, with the summary.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.rules");
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/get_straight.rules");
    std::fs::write(
        &bad,
        format!(
            "extends: {:?}\nexample \"wrong on purpose\" {{\n  input: \"\"\"\n    2H TC 5D 3S 6C\n    #\n    \"\"\"\n  output: \"\"\"\n    Stay\n    \"\"\"\n}}\n",
            base.display().to_string()
        ),
    )
    .unwrap();
    let out = arbiter().args(["-q", "test"]).arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(6), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("FAIL  wrong on purpose"), "{stdout}");
    assert!(!stdout.contains("  ok  "), "{stdout}");
    assert!(stdout.contains("failed"), "{stdout}");
    // Errors are never quiet.
    let out = arbiter().args(["-q", "check", "no/such.rules"]).output().unwrap();
    assert_eq!(out.status.code(), Some(5));
    assert!(!out.stderr.is_empty());
}

#[test]
fn a_rule_file_on_standard_input_is_named_as_asked() {
    let variant = "extends: \"get_straight\"\nplay { exchang: 0..2 }\n";
    let out = arbiter().args(["check", "-", "--stdin-name", "mine.rules"]).write_stdin(variant).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("[mine.rules:2:8]"), "{stderr}");
    assert!(stderr.contains("did you mean `exchange`?"), "{stderr}");
    let out = arbiter().args(["check", "-"]).write_stdin("extends: \"get_straight\"\n").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "<stdin>: ok\n");
    // `extends:` is resolved from the name's folder.
    let out = arbiter()
        .args(["check", "-", "--stdin-name", "rules/get_straight/mine.rules"])
        .write_stdin("extends: \"../get_straight.rules\"\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // `run -` takes its input from a file; both on stdin is refused.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("deals.txt");
    std::fs::write(&input, "2H TC 5D 3S 6C\n#\n").unwrap();
    let out = arbiter().args(["run", "-"]).arg(&input).write_stdin("extends: \"get_straight\"\n").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "Exchange TC\n");
    let out = arbiter().args(["run", "-"]).write_stdin("extends: \"get_straight\"\n").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot both be read from standard input"), "{}", text(&out.stderr));
}

/// What the shell's completion function gets for `words`, the last one
/// being completed.
fn completions(words: &[&str]) -> Vec<String> {
    let out = arbiter()
        .env("ARBITER_COMPLETE", "bash")
        .env("_CLAP_COMPLETE_INDEX", (words.len() - 1).to_string())
        .env("_CLAP_IFS", "\n")
        .arg("--")
        .args(words)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout).lines().map(str::to_string).collect()
}

#[test]
fn rule_file_arguments_complete_to_bundled_names_and_files() {
    let names: Vec<String> = arbiter::load::bundled_names().iter().map(|n| n.to_string()).collect();
    for command in ["run", "check", "test", "analyze", "show", "fmt"] {
        let got = completions(&["arbiter", command, "get_str"]);
        let want: Vec<&String> = names.iter().filter(|n| n.starts_with("get_str")).collect();
        assert!(want.len() >= 2);
        for n in want {
            assert!(got.contains(n), "`arbiter {command} get_str` lacks {n}: {got:?}");
        }
    }
    // Files too (not for `show`, which takes bundled names only).
    let got = completions(&["arbiter", "run", "rules/get_straight"]);
    assert!(got.iter().any(|c| c == "rules/get_straight.rules"), "{got:?}");
    let got = completions(&["arbiter", "diff", "video_poker", "video_poker/"]);
    assert!(got.iter().any(|c| c == "video_poker/8-5"), "{got:?}");
    let got = completions(&["arbiter", "new", "x.rules", "--from", "snook"]);
    assert!(got.iter().any(|c| c == "snooker_referee"), "{got:?}");
}

#[test]
fn text_results_fit_the_terminal() {
    for args in [
        &["list"][..],
        &["diff", "video_poker", "video_poker/8-5"],
        &["diff", "get_straight", "get_straight/paytable"],
        &["analyze", "video_poker"],
    ] {
        let wide = arbiter().args(args).output().unwrap();
        assert_eq!(wide.status.code(), Some(0), "{args:?}: {}", text(&wide.stderr));
        let widest = text(&wide.stdout).lines().map(|l| l.chars().count()).max().unwrap();
        assert!(widest > 80, "{args:?} already fits ({widest}): the test proves nothing");
        for columns in [60, 80] {
            let out = arbiter().args(args).env("COLUMNS", columns.to_string()).output().unwrap();
            assert_eq!(out.status.code(), Some(0));
            let stdout = text(&out.stdout);
            for line in stdout.lines() {
                assert!(line.chars().count() <= columns, "{args:?} at {columns}: {line:?}");
            }
            // Nothing lost: every word of the wide output is still there
            // (a cut list title ends in `…`; its whole text is in JSON).
            if args[0] != "list" {
                // (A word longer than a line is cut across lines.)
                let joined: String = stdout.split_whitespace().collect();
                // (`(alike):` is the wide layout's own word.)
                for w in text(&wide.stdout).split_whitespace().filter(|w| *w != "(alike):") {
                    assert!(joined.contains(w), "{args:?} at {columns} lost {w:?}");
                }
            }
        }
    }
}

// A problem a variant causes in its base is reported in the variant, with
// the base's place related, and the help's fix works.
#[test]
fn a_variant_s_mistake_is_shown_in_the_variant_with_its_fix() {
    let dir = tempfile::tempdir().unwrap();
    let variant = dir.path().join("three.rules");
    std::fs::write(&variant, "extends: \"house_of_cards\"\ntower { peaks: 3 }\n").unwrap();
    let out = arbiter().args(["check", "--format", "json"]).arg(&variant).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let diags: Vec<serde_json::Value> = text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(diags.len(), 1, "{diags:?}");
    let d = &diags[0];
    assert_eq!(d["file"], variant.display().to_string());
    assert_eq!((d["line"].as_u64(), d["column"].as_u64()), (Some(2), Some(16)), "{d}");
    let related = d["related"].as_array().unwrap();
    assert!(related.iter().any(|r| r["file"] == "<bundled>/house_of_cards.rules"), "{d}");
    // Every place named can be opened: the base by `arbiter show`.
    let shown = arbiter().args(["show", "<bundled>/house_of_cards.rules"]).output().unwrap();
    assert_eq!(shown.status.code(), Some(0));
    let line = related[0]["line"].as_u64().unwrap() as usize;
    assert!(text(&shown.stdout).lines().nth(line - 1).unwrap().contains("ranks:"), "{d}");
    // The help says what to write; written, the file checks.
    let help = d["help"].as_str().unwrap();
    let fix = help.split('`').nth(1).expect(help);
    assert!(fix.starts_with("input { ranks: "), "{help}");
    std::fs::write(&variant, format!("extends: \"house_of_cards\"\ntower {{ peaks: 3 }}\n{fix}\n")).unwrap();
    let out = arbiter().arg("check").arg(&variant).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

// Leftover diagnostics (issue 28): swapped arguments get a note.
#[test]
fn swapped_arguments_are_pointed_out() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("deals.txt");
    std::fs::write(&input, "2H TC 5D 3S 6C\n#\n").unwrap();
    let out = arbiter().arg("run").arg(&input).arg("get_straight").output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("the rule file comes first (`arbiter run RULES INPUT`)"), "{stderr}");
    // Not when the rule file is one.
    let bad = dir.path().join("bad.rules");
    std::fs::write(&bad, "engine: nope\n").unwrap();
    let out = arbiter().arg("run").arg(&bad).arg(&input).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(!text(&out.stderr).contains("comes first"), "{}", text(&out.stderr));
}

// One run of `check` shows every problem: errors of merging a variant no
// longer hide the errors of the rules as merged.
#[test]
fn merge_errors_do_not_hide_the_rules_errors() {
    let dir = tempfile::tempdir().unwrap();
    let variant = dir.path().join("many.rules");
    std::fs::write(
        &variant,
        "extends: \"get_straight\"\ncombination \"Nope\" { pays: 3 }\nremove: combination \"Missing\"\n\
         deck { rankz: A 2 }\nplay { hand: 5 hand: 6 }\n",
    )
    .unwrap();
    let out = arbiter().args(["check", "--format", "short"]).arg(&variant).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stdout = text(&out.stdout);
    let codes: Vec<&str> =
        stdout.lines().map(|l| l.split("error[").nth(1).unwrap().split(']').next().unwrap()).collect();
    assert_eq!(codes, ["missing", "unknown-name", "unknown-key", "duplicate"], "{stdout}");
    // The text format shows the same, once each.
    let out = arbiter().arg("check").arg(&variant).output().unwrap();
    assert_eq!(text(&out.stderr).matches("arbiter::").count(), 4, "{}", text(&out.stderr));
    // A base that cannot be found is the one error: the variant alone would
    // only draw noise.
    std::fs::write(&variant, "extends: \"no-such-base.rules\"\ndeck { rankz: A 2 }\n").unwrap();
    let out = arbiter().args(["check", "--format", "short"]).arg(&variant).output().unwrap();
    assert_eq!(text(&out.stdout).lines().count(), 1, "{}", text(&out.stdout));
}

// A rule file that cannot be read draws no empty source box.
#[test]
fn an_unreadable_rule_file_draws_no_empty_box() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("folder.rules");
    std::fs::create_dir(&folder).unwrap();
    let out = arbiter().arg("check").arg(&folder).output().unwrap();
    assert_eq!(out.status.code(), Some(5));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("it is a directory"), "{stderr}");
    assert!(!stderr.contains('╭') && !stderr.contains("1:1"), "{stderr}");
}

// `test --format json` (issue 29): every file, every example, its verdict
// and the fields of each kind of verdict.
#[test]
fn test_results_as_json_have_every_field() {
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("mine.rules");
    std::fs::write(
        &mine,
        "extends: \"get_straight\"\n\
         example \"wrong output\" {\n  input: \"\"\"\n    2H TC 5D 3S 6C\n    #\n    \"\"\"\n  output: \"\"\"\n    Stay\n    \"\"\"\n}\n\
         example \"no error comes\" {\n  input: \"\"\"\n    2H TC 5D 3S 6C\n    #\n    \"\"\"\n  output: \"\"\"\n    Exchange TC\n    \"\"\"\n  error: \"twice\"\n}\n",
    )
    .unwrap();
    let broken = dir.path().join("broken.rules");
    std::fs::write(&broken, "engine: nope\n").unwrap();
    let out = arbiter()
        .args(["test", "--format", "json", "--max-nodes", "1"])
        .arg(&mine)
        .arg("house_of_cards")
        .arg(&broken)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(8), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["kind"], "arbiter-test");
    assert_eq!(v["version"], 1);
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    assert_eq!(files[2]["checks"], false);
    assert!(files[2]["examples"].as_array().unwrap().is_empty());
    let all: Vec<&serde_json::Value> = files.iter().flat_map(|f| f["examples"].as_array().unwrap()).collect();
    let of = |verdict: &str| all.iter().filter(|e| e["verdict"] == verdict).count() as u64;
    assert_eq!(v["passed"].as_u64(), Some(of("pass")));
    assert_eq!(v["failed"].as_u64(), Some(of("fail")));
    assert_eq!(v["limited"].as_u64(), Some(of("limit")));
    assert!(of("pass") >= 1 && of("limit") >= 1 && of("fail") == 2, "{v:#}");
    let wrong = all.iter().find(|e| e["name"] == "wrong output").unwrap();
    assert_eq!(wrong["verdict"], "fail");
    assert_eq!(wrong["expected"], "Stay\n");
    assert_eq!(wrong["got"], "Exchange TC\n");
    assert!(wrong["diff"].as_str().unwrap().contains("Exchange TC"), "{wrong}");
    let error = all.iter().find(|e| e["name"] == "no error comes").unwrap();
    assert_eq!(error["verdict"], "fail");
    assert_eq!(error["expected_error"], "twice");
    assert!(error["got_error"].is_null(), "{error}");
    let limit = all.iter().find(|e| e["verdict"] == "limit").unwrap();
    assert!(limit["message"].as_str().unwrap().contains("node"), "{limit}");
    // The broken file's diagnostics: JSON lines on stderr.
    let first = text(&out.stderr).lines().next().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap());
    assert_eq!(first.unwrap()["code"], "unknown-name");
}
