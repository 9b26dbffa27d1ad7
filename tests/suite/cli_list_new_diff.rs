//! `arbiter list`, `arbiter show`, `arbiter new` and `arbiter diff` on every bundled game
//! and variant, with the real binary; expected values come from the
//! library (titles, engines, examples, the files' own sections) and from
//! `arbiter analyze`, never written out here.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

use arbiter::engines::compile;
use arbiter::load::{bundled_names, load_bundled};
use arbiter::syntax::{fmt::values_text, Item, Section};

fn arbiter(args: &[&str]) -> (i32, String, String) {
    let out =
        Command::cargo_bin("arbiter").unwrap().current_dir(env!("CARGO_MANIFEST_DIR")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ok(args: &[&str]) -> String {
    let (code, out, err) = arbiter(args);
    assert_eq!(code, 0, "arbiter {args:?}: {err}");
    out
}

fn names() -> Vec<&'static str> {
    let mut n = bundled_names();
    n.sort();
    n
}

fn games() -> Vec<&'static str> {
    names().into_iter().filter(|n| !n.contains('/')).collect()
}

/// (title, engine, first example's input) of a bundled file.
fn facts(name: &str) -> (Option<String>, &'static str, String) {
    let loaded = load_bundled(name).unwrap().unwrap();
    let c = compile(&loaded).0.unwrap();
    (c.title, c.engine.name, c.examples[0].input.clone())
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("arbiter-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn list_shows_every_bundled_game_and_variant_with_engine_and_title() {
    let text = ok(&["list"]);
    let json: Value = serde_json::from_str(&ok(&["list", "--format", "json"])).unwrap();
    let entries = json.as_array().unwrap();
    assert_eq!(entries.len(), names().len());
    let mut last_game = "";
    for (i, e) in entries.iter().enumerate() {
        let name = e["name"].as_str().unwrap();
        let (title, engine, _) = facts(name);
        assert_eq!(e["engine"], engine, "{name}");
        assert_eq!(e["title"].as_str(), title.as_deref(), "{name}");
        match name.split_once('/') {
            None => {
                assert!(e["base"].is_null());
                last_game = name;
            }
            // Each variant follows its game.
            Some((base, _)) => {
                assert_eq!(e["base"], base);
                assert_eq!(base, last_game, "entry {i}: {name} is not under its game");
                assert!(!e["about"].as_str().unwrap().is_empty(), "{name} says nothing of itself");
            }
        }
        // The text lists it on one line: name, engine, title (a variant:
        // what it says of itself).
        // (a variant's first sentence: `--format json` has all of it).
        let about = e["about"].as_str().unwrap();
        let shown = if e["base"].is_null() {
            e["title"].as_str().unwrap()
        } else {
            about.find(". ").map_or(about, |i| &about[..=i])
        };
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("{name} not listed:\n{text}"));
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words[1], engine, "{line}");
        assert_eq!(words[2..].join(" "), shown.split_whitespace().collect::<Vec<_>>().join(" "), "{line}");
        assert_eq!(line.starts_with("  "), name.contains('/'), "variants are indented: {line}");
    }
}

/// `show` prints each bundled file byte for byte as it is in rules/, by
/// its `list` name and as a diagnostic names it; an unknown name is an
/// unreadable file with the closest name.
#[test]
fn show_prints_every_bundled_file_as_it_is_in_rules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in names() {
        let on_disk = std::fs::read_to_string(root.join("rules").join(format!("{name}.rules"))).unwrap();
        assert_eq!(ok(&["show", name]), on_disk, "show {name}");
        assert_eq!(ok(&["show", &format!("<bundled>/{name}.rules")]), on_disk, "show <bundled>/{name}.rules");
    }
    let (code, out, err) = arbiter(&["show", "get_straight/no-wrapp"]);
    assert_eq!((code, out.as_str()), (5, ""), "{err}");
    assert!(err.contains("arbiter::unreadable") && err.contains("did you mean `get_straight/no-wrap`"), "{err}");
}

/// The commented sections of a new variant, uncommented.
fn uncomment(text: &str) -> String {
    let mut out = String::new();
    let mut body = false;
    for line in text.lines() {
        if line.starts_with("extends:") {
            body = true;
        } else if line.starts_with("# Worked examples") {
            body = false;
        }
        let l = if body { line.strip_prefix("# ").or(line.strip_prefix('#')).unwrap_or(line) } else { line };
        out.push_str(l);
        out.push('\n');
    }
    out
}

#[test]
fn new_writes_a_variant_that_checks_and_plays_like_its_base() {
    let dir = temp_dir("new");
    for name in names() {
        let (title, _, input) = facts(name);
        let file = dir.join(format!("{}.rules", name.replace('/', "-")));
        let f = file.to_str().unwrap();
        let (code, _, err) = arbiter(&["new", f, "--from", name]);
        assert_eq!(code, 0, "{name}: {err}");
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains(&format!("extends: \"{name}\"")), "{text}");
        assert!(text.contains(title.as_deref().unwrap()), "{name}: the title is named");
        // As written, it changes nothing.
        ok(&["check", f]);
        let input_file = dir.join("input.txt");
        std::fs::write(&input_file, &input).unwrap();
        let i = input_file.to_str().unwrap();
        let want = arbiter(&["run", name, i]);
        assert_eq!(arbiter(&["run", f, i]).1, want.1, "{name}");
        // Uncommented, its sections restate the base's exactly.
        let open = dir.join(format!("{}-open.rules", name.replace('/', "-")));
        std::fs::write(&open, uncomment(&text)).unwrap();
        let o = open.to_str().unwrap();
        let items = arbiter::syntax::parse(0, &uncomment(&text)).unwrap();
        assert!(items.len() > 1, "{name}: no section to change in\n{text}");
        ok(&["check", o]);
        assert_eq!(arbiter(&["run", o, i]).1, want.1, "{name}");
        let d: Value = serde_json::from_str(&ok(&["diff", name, o, "--format", "json", "--samples", "5"])).unwrap();
        assert_eq!(d["changes"], serde_json::json!([]), "{name}: {}", uncomment(&text));
        // It never overwrites, and the file stays as it was.
        let (code, _, err) = arbiter(&["new", f, "--from", "get_straight"]);
        assert_eq!(code, 5, "{err}");
        assert!(err.contains("already exists"), "{err}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    }
    // From a path: `extends:` is the path relative to the new file (or
    // absolute when they share only the root).
    let file = dir.join("sub/from-path.rules");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/havannah.rules");
    ok(&["new", file.to_str().unwrap(), "--from", base.to_str().unwrap()]);
    let text = std::fs::read_to_string(&file).unwrap();
    let ext = text.lines().find_map(|l| l.strip_prefix("extends: \"")).unwrap().trim_end_matches('"');
    assert_eq!(file.parent().unwrap().join(ext).canonicalize().unwrap(), base.canonicalize().unwrap());
    ok(&["check", file.to_str().unwrap()]);
    // `-` prints it.
    let printed = ok(&["new", "-", "--from", "snooker_referee"]);
    assert!(printed.contains("extends: \"snooker_referee\"") && printed.contains("# ball \"Red\""), "{printed}");
    let (code, _, _) = arbiter(&["new", dir.join("x.rules").to_str().unwrap(), "--from", "no-such-game"]);
    assert_eq!(code, 5);
    assert!(!dir.join("x.rules").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

fn head(s: &Section) -> String {
    let mut t = s.kind.name.clone();
    for l in &s.labels {
        t.push_str(&format!(" \"{}\"", l.value));
    }
    t
}

/// `arbiter analyze NAME --format json` (30 samples where `sampled`), run
/// once per name: the base's analysis is the same for each of its variants.
fn analyze_json(name: &str, sampled: bool) -> Value {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static MEMO: Mutex<Option<HashMap<(String, bool), Value>>> = Mutex::new(None);
    let mut memo = MEMO.lock().unwrap_or_else(|e| e.into_inner());
    let memo = memo.get_or_insert_with(HashMap::new);
    memo.entry((name.to_string(), sampled))
        .or_insert_with(|| {
            let mut args: Vec<&str> = vec!["analyze", name, "--format", "json"];
            if sampled {
                args.extend(["--samples", "30"]);
            }
            serde_json::from_str(&ok(&args)).unwrap()
        })
        .clone()
}

/// The analysis of `arbiter analyze --format json` as diff pairs it:
/// (figure label, text), then each table row as (its first cell, the other
/// cells joined by two spaces).
fn analysis(out: &Value) -> Vec<(String, String)> {
    let mut lines: Vec<(String, String)> = out["figures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["label"].as_str().unwrap().to_string(), f["text"].as_str().unwrap().to_string()))
        .collect();
    for t in out["tables"].as_array().unwrap() {
        let keys: Vec<&str> = t["columns"].as_array().unwrap().iter().map(|c| c["key"].as_str().unwrap()).collect();
        for row in t["rows"].as_array().unwrap().iter().chain(t["total"].as_object().map(|_| &t["total"])) {
            let cell = |k: &&str| row[*k]["text"].as_str().unwrap().to_string();
            let rest: Vec<String> = keys[1..].iter().map(cell).collect();
            lines.push((cell(&keys[0]), rest.join("  ")));
        }
    }
    lines
}

/// The names of the rows of `arbiter analyze --format json`'s tables
/// (with the total row), in order.
fn analysis_rows(out: &Value) -> Vec<String> {
    let mut names = Vec::new();
    for t in out["tables"].as_array().unwrap() {
        let first = t["columns"][0]["key"].as_str().unwrap();
        for row in t["rows"].as_array().unwrap().iter().chain(t["total"].as_object().map(|_| &t["total"])) {
            names.push(row[first]["text"].as_str().unwrap().to_string());
        }
    }
    names
}

#[test]
fn diff_shows_what_each_variant_writes_and_the_figures_before_and_after() {
    for game in games() {
        let same: Value =
            serde_json::from_str(&ok(&["diff", game, game, "--format", "json", "--samples", "30"])).unwrap();
        assert_eq!(same["changes"], serde_json::json!([]), "{game}");
        assert!(ok(&["diff", game, game, "--samples", "30"]).contains("(the rules are the same)"));
    }
    for name in names().into_iter().filter(|n| n.contains('/')) {
        let game = name.split('/').next().unwrap();
        let d: Value = serde_json::from_str(&ok(&["diff", game, name, "--format", "json", "--samples", "30"])).unwrap();
        let text = ok(&["diff", game, name, "--samples", "30"]);
        // The variant's own items, as written.
        let own_text = load_bundled(name).unwrap().unwrap().sources.file(0).text.to_string();
        let own = arbiter::syntax::parse(0, &own_text).unwrap();
        let base = load_bundled(game).unwrap().unwrap();
        let written: Vec<&Section> = own
            .iter()
            .filter_map(|i| match i {
                Item::Section(s) if s.kind.name != "example" => Some(s),
                _ => None,
            })
            .collect();
        let removed: Vec<String> = own
            .iter()
            .filter_map(|i| match i {
                Item::Property(p) if p.key.name == "remove" => Some(values_text(p)),
                _ => None,
            })
            .collect();
        let changes = d["changes"].as_array().unwrap();
        assert!(!changes.is_empty(), "{name} changes nothing");
        for c in changes {
            let section = c["section"].as_str().unwrap();
            let in_variant = written.iter().find(|s| head(s) == section);
            match c["change"].as_str().unwrap() {
                "removed" => assert!(removed.iter().any(|r| r == section), "{name}: {c}"),
                "added" => assert!(in_variant.is_some(), "{name}: {c}"),
                "changed" if section.is_empty() => {
                    // Top-level properties (`game:`), written by the variant.
                    for k in c["keys"].as_array().unwrap() {
                        let key = k["key"].as_str().unwrap();
                        let written = own.iter().find_map(|i| match i {
                            Item::Property(p) if p.key.name == key => Some(values_text(p)),
                            _ => None,
                        });
                        assert_eq!(k["variant"].as_str().map(String::from), written, "{name}: {k}");
                    }
                }
                "changed" => {
                    let s = in_variant.unwrap_or_else(|| panic!("{name}: {section} changed but not written"));
                    let base_s = base.items.iter().find_map(|i| match i {
                        Item::Section(b) if head(b) == section => Some(b),
                        _ => None,
                    });
                    for k in c["keys"].as_array().unwrap() {
                        let key = k["key"].as_str().unwrap();
                        let prop = |sec: &Section| {
                            sec.items.iter().find_map(|i| match i {
                                Item::Property(p) if p.key.name == key => Some(values_text(p)),
                                _ => None,
                            })
                        };
                        assert_eq!(k["variant"].as_str().map(String::from), prop(s), "{name}: {k}");
                        assert_eq!(k["base"].as_str().map(String::from), base_s.and_then(prop), "{name}: {k}");
                        // Side by side in the text.
                        let (b, v) =
                            (k["base"].as_str().unwrap_or("(not set)"), k["variant"].as_str().unwrap_or("(not set)"));
                        assert!(
                            text.lines().any(|l| {
                                let l = l.trim_start();
                                l.starts_with(key) && l.contains(b) && l.find(b) < l.rfind(v)
                            }),
                            "{name}: `{key}  {b}  {v}` not in\n{text}"
                        );
                    }
                }
                other => panic!("{other}"),
            }
        }
        // Every section the variant writes is changed or unchanged.
        let unchanged: Vec<&str> = d["unchanged"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        for s in &written {
            let h = head(s);
            assert!(
                changes.iter().any(|c| c["section"] == h) || unchanged.contains(&h.as_str()),
                "{name}: {h} is in neither list"
            );
        }
        // The figures are those of `arbiter analyze` on each file.
        let compiled = compile(&base).0.unwrap();
        match compiled.game.analysis() {
            None => assert!(d["analysis"].is_null(), "{name}"),
            Some(a) => {
                let sampled = a.default_samples().is_some();
                let (json_before, json_after) = (analyze_json(game, sampled), analyze_json(name, sampled));
                let (before, after) = (analysis(&json_before), analysis(&json_after));
                let figures = d["analysis"].as_array().unwrap();
                // Paired by label; a figure only one side has (a row a
                // variant adds) shows `-` on the other.
                let find = |side: &[(String, String)], label: &str| {
                    side.iter().find(|(l, _)| l == label).map_or("-".to_string(), |(_, v)| v.clone())
                };
                // Figures in the base's order, then the variant's own; the
                // rows of a table in the variant's order, a row only the
                // base has after the row it follows there.
                let (rows_before, rows_after) = (analysis_rows(&json_before), analysis_rows(&json_after));
                let figures_only = |side: &[(String, String)], rows: &[String]| -> Vec<String> {
                    side.iter().map(|(l, _)| l.clone()).filter(|l| !rows.contains(l)).collect()
                };
                let (fb, fa) = (figures_only(&before, &rows_before), figures_only(&after, &rows_after));
                let mut owned: Vec<String> = fb.clone();
                owned.extend(fa.into_iter().filter(|l| !fb.contains(l)));
                let mut order = rows_after.clone();
                for (i, r) in rows_before.iter().enumerate() {
                    if !order.contains(r) {
                        let at = rows_before[..i].iter().rev().find_map(|p| order.iter().position(|o| o == p));
                        order.insert(at.map_or(0, |j| j + 1), r.clone());
                    }
                }
                owned.extend(order);
                let labels: Vec<&String> = owned.iter().collect();
                assert_eq!(figures.len(), labels.len(), "{name}");
                for (f, label) in figures.iter().zip(labels) {
                    assert_eq!(f["figure"].as_str().unwrap(), label.as_str(), "{name}");
                    assert_eq!(f["base"].as_str().unwrap(), find(&before, label), "{name}: {label}");
                    assert_eq!(f["variant"].as_str().unwrap(), find(&after, label), "{name}: {label}");
                }
            }
        }
    }
}

#[test]
fn diff_of_two_pay_tables_shows_both_returns() {
    let d: Value =
        serde_json::from_str(&ok(&["diff", "get_straight", "get_straight/paytable", "--format", "json"])).unwrap();
    let rtp = d["analysis"].as_array().unwrap().iter().find(|f| f["figure"] == "return to player").unwrap();
    let pct = |s: &str| s.split_whitespace().next().unwrap().parse::<f64>().unwrap();
    let (b, v) = (pct(rtp["base"].as_str().unwrap()), pct(rtp["variant"].as_str().unwrap()));
    // Lower payouts for the rows that pay most often: a lower return.
    assert!(v < b, "{rtp}");
    assert_eq!(d["base"]["engine"], "exchange");
    let (code, _, err) = arbiter(&["diff", "get_straight", "no-such-game"]);
    assert_eq!(code, 5, "{err}");
    // --exit-code: 1 when the files differ, 0 when they are the same rules.
    let (code, out, _) = arbiter(&["diff", "--exit-code", "get_straight", "get_straight/paytable"]);
    assert_eq!(code, 1, "{out}");
    assert!(!out.is_empty());
    let (code, _, err) = arbiter(&["diff", "--exit-code", "get_straight", "rules/get_straight.rules"]);
    assert_eq!(code, 0, "{err}");
}

/// The outputs shown in docs/variants.md are what the commands print.
#[test]
fn the_outputs_in_the_docs_are_real() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/variants.md")).unwrap();
    let mut shown = 0;
    for block in doc.split("```text\n").skip(1) {
        let block = block.split("```").next().unwrap();
        let Some((command, output)) = block.split_once('\n') else { continue };
        let Some(args) = command.strip_prefix("$ arbiter ") else { continue };
        let args: Vec<&str> = args.split_whitespace().collect();
        assert_eq!(ok(&args), output, "docs/variants.md: `arbiter {}` prints otherwise", args.join(" "));
        shown += 1;
    }
    assert!(shown >= 4);
}
