//! `arbiter lsp` with a real client: the binary is started, and the tests
//! speak JSON-RPC to it over its stdin and stdout (Content-Length framing),
//! as an editor does: initialize, didOpen, didChange, publishDiagnostics,
//! hover, completion, definition, formatting, documentSymbol, shutdown and
//! exit, on the bundled rule files and the broken ones in tests/check/.

use crate::lsp_client;

use std::path::{Path, PathBuf};

use lsp_client::*;
use serde_json::{json, Value};

fn hover_text(v: &Value) -> String {
    v["contents"]["value"].as_str().unwrap_or_default().to_string()
}

fn labels(v: &Value) -> Vec<String> {
    let items = v.as_array().or_else(|| v["items"].as_array()).cloned().unwrap_or_default();
    items.iter().map(|i| i["label"].as_str().unwrap().to_string()).collect()
}

#[test]
fn every_bundled_file_opens_clean_and_a_change_is_diagnosed_then_fixed() {
    let mut c = Client::start();
    let mut files: Vec<String> = arbiter::load::bundled_names().iter().map(|n| format!("rules/{n}.rules")).collect();
    files.sort();
    for f in &files {
        let (u, text) = read(f);
        assert_eq!(c.open(&u, &text), Vec::<Value>::new(), "{f}");
    }
    let (u, text) = read("rules/get_straight.rules");
    let broken = text.replacen("wrap: yes", "wrpa: yes", 1);
    let diags = c.change(&u, 2, &broken);
    assert_eq!(diags.len(), 1, "{diags:?}");
    let d = &diags[0];
    assert_eq!(d["code"], "unknown-key");
    assert_eq!(d["severity"], 1);
    assert_eq!(d["source"], "arbiter");
    let (line, col) = pos(&broken, "wrpa", 0);
    assert_eq!(d["range"]["start"], json!({ "line": line, "character": col }));
    assert_eq!(d["range"]["end"], json!({ "line": line, "character": col + 4 }));
    assert!(d["message"].as_str().unwrap().contains("help: did you mean `wrap`?"), "{d}");
    assert_eq!(c.change(&u, 3, &text), Vec::<Value>::new());
    c.shutdown();
}

/// Every broken rule file reports, in the editor, the codes `check`
/// reports, at the same lines.
#[test]
fn broken_files_show_what_check_reports() {
    let mut c = Client::start();
    let dir = root().join("tests/check");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
        .map(|f| f.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rules"))
        .collect();
    paths.sort();
    assert!(paths.len() > 40);
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let expect = text.lines().next().unwrap().strip_prefix("# expect: ").unwrap().trim().to_string();
        let (want, sources) = match arbiter::load::load_path(&path) {
            Err(e) => (e.diags, e.sources),
            Ok(l) => (arbiter::engines::compile(&l).1, l.sources),
        };
        let (want, more) = arbiter::report::diag::capped(&want);
        let diags = c.open(&uri(&path), &text);
        let codes: Vec<&str> = diags.iter().map(|d| d["code"].as_str().unwrap()).collect();
        assert!(codes.contains(&expect.as_str()), "{}: {codes:?}", path.display());
        let mut want_codes: Vec<&str> = want.iter().map(|d| d.code.as_str()).collect();
        want_codes.extend(more.iter().map(|_| "too-many-diagnostics"));
        assert_eq!(codes, want_codes, "{}", path.display());
        for (d, w) in diags.iter().zip(want) {
            if w.span.file == 0 {
                let (line, _) = sources.line_col(w.span);
                assert_eq!(d["range"]["start"]["line"], json!(line - 1), "{}: {d}", path.display());
            }
        }
    }
    c.shutdown();
}

/// A variant that breaks its base: the problem is shown in the base file
/// where it is, and on the variant's `extends:` line pointing there.
#[test]
fn problems_located_in_the_base_are_shown_there_and_on_extends() {
    let dir = std::env::temp_dir().join(format!("arbiter-lsp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let base_text = std::fs::read_to_string(root().join("rules/get_straight.rules")).unwrap();
    let base = dir.join("base.rules");
    std::fs::write(&base, &base_text).unwrap();
    let variant = dir.join("short.rules");
    // Hands of three cards can form no run of five: the `Straight` row
    // (in the base) becomes unformable.
    let text = "extends: \"base.rules\"\n\nplay { hand: 3 }\n";
    std::fs::write(&variant, text).unwrap();
    let mut c = Client::start();
    let (vu, bu) = (uri(&variant), uri(&base));
    let own = c.open(&vu, text);
    let on_extends: Vec<&Value> = own.iter().filter(|d| d["code"] == "unformable").collect();
    assert!(!on_extends.is_empty(), "{own:?}");
    let d = on_extends[0];
    assert_eq!(d["range"]["start"], json!({ "line": 0, "character": 9 }), "{d}");
    assert!(d["message"].as_str().unwrap().starts_with("in the base rule file base.rules:"), "{d}");
    let related = &d["relatedInformation"][0]["location"];
    assert_eq!(related["uri"], bu);
    let (line, _) = pos(&base_text, "combination \"Straight\"", 0);
    assert_eq!(related["range"]["start"]["line"], json!(line));
    let in_base = c.diagnostics(&bu);
    assert!(
        in_base.iter().any(|d| d["code"] == "unformable" && d["range"]["start"]["line"] == json!(line)),
        "{in_base:?}"
    );
    // Fixing the variant clears the base's diagnostics too.
    let fixed = "extends: \"base.rules\"\n\nplay { hand: 5 }\n";
    assert_eq!(c.change(&vu, 2, fixed), Vec::<Value>::new());
    assert_eq!(c.diagnostics(&bu), Vec::<Value>::new());
    c.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hover_explains_keys_sections_names_and_engines() {
    use arbiter::engines::engine;
    let mut c = Client::start();
    let (u, text) = read("rules/get_straight.rules");
    c.open(&u, &text);
    let exchange = engine("exchange").unwrap().schema;
    let h = c.at("textDocument/hover", &u, pos(&text, "wrap:", 1));
    let wrap = exchange.section("deck").unwrap().key("wrap").unwrap();
    assert!(hover_text(&h).contains(&wrap.doc[1..]) && hover_text(&h).contains("default `no`"), "{h}");
    assert_eq!(h["range"]["start"], json!({ "line": pos(&text, "wrap:", 0).0, "character": 2 }));
    let h = c.at("textDocument/hover", &u, pos(&text, "combination \"Straight\"", 3));
    assert!(hover_text(&h).contains(&exchange.section("combination").unwrap().doc[1..]), "{h}");
    let h = c.at("textDocument/hover", &u, pos(&text, "engine: exchange", 10));
    assert!(hover_text(&h).contains(&engine("exchange").unwrap().summary[1..]), "{h}");
    let h = c.at("textDocument/hover", &u, pos(&text, "fewer-cards", 2));
    assert!(hover_text(&h).contains("exchanging fewer cards first"), "{h}");
    // Nothing to say on a comment.
    assert!(c.at("textDocument/hover", &u, pos(&text, "# Get Straight", 3)).is_null());

    let (u, text) = read("rules/snooker_referee.rules");
    c.open(&u, &text);
    let h = c.at("textDocument/hover", &u, pos(&text, "alternate: Red", 12));
    let red_line = pos(&text, "ball \"Red\"", 0).0 + 1;
    assert!(hover_text(&h).contains("**ball** `Red`"), "{h}");
    assert!(hover_text(&h).contains(&format!("snooker_referee.rules:{red_line}")), "{h}");
    c.shutdown();
}

#[test]
fn completion_offers_missing_keys_sections_and_defined_names() {
    let mut c = Client::start();
    let (u, text) = read("rules/get_straight.rules");
    // A new line in `deck`, after `wrap: yes ...`.
    let edited = text.replacen("  wrap: yes", "  \n  wrap: yes", 1);
    c.change_or_open(&u, &edited);
    let l = labels(&c.at("textDocument/completion", &u, pos(&edited, "  \n  wrap", 2)));
    assert_eq!(l, ["values", "high", "wild", "jokers", "colours"], "the deck's keys not yet written");
    // A new line at the top level: the exchange engine's sections.
    let edited = text.replacen("\nplay {", "\n\nplay {", 1);
    c.change_or_open(&u, &edited);
    let l = labels(&c.at("textDocument/completion", &u, pos(&edited, "\n\nplay {", 1)));
    // `game`, `engine`, `deck`, `play`, `input` and `output` are written
    // already; `combination` and `example` may be written again.
    assert_eq!(l, ["extends", "remove", "allow", "combination", "example"]);
    // A value of `prefer`: its words.
    let edited = text.replacen("prefer: fewer-cards leftmost", "prefer: fewer-cards ", 1);
    c.change_or_open(&u, &edited);
    let l = labels(&c.at("textDocument/completion", &u, pos(&edited, "prefer: fewer-cards ", 20)));
    // Its words, then the section's keys not yet written (one may follow
    // on the same line).
    assert_eq!(
        l,
        ["fewer-cards", "more-cards", "leftmost", "rightmost", "lower-variance", "higher-variance", "rounds"]
    );

    // A variant: the balls its base defines.
    let (u, text) = read("rules/snooker_referee/six-red.rules");
    let edited = text.replacen("ball \"Red\" { count: 6 }", "ball \"Red\" { count: 6 }\nplay { nominate:  }", 1);
    c.change_or_open(&u, &edited);
    let l = labels(&c.at("textDocument/completion", &u, pos(&edited, "nominate: ", 10)));
    let base = arbiter::load::load_bundled("snooker_referee").unwrap().unwrap();
    let balls: Vec<String> = base
        .items
        .iter()
        .filter_map(|i| match i {
            arbiter::syntax::Item::Section(s) if s.kind.name == "ball" => Some(s.name().unwrap().value.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(balls.len(), 8);
    let mut want = vec!["lowest".to_string(), "highest".to_string()];
    want.extend(balls);
    assert_eq!(l, want);

    // `remove:` offers the base's named sections.
    let u = uri(&root().join("rules/shuffling_patience/new.rules"));
    let edited = "extends: \"../shuffling_patience.rules\"\nremove: \n";
    c.change_or_open(&u, edited);
    let l = labels(&c.at("textDocument/completion", &u, (1, 8)));
    assert_eq!(l, ["group \"pair\"", "group \"triple\""]);

    // `extends:` offers the rule files around and the bundled games.
    let edited = "extends: \nremove: group \"triple\"\n";
    c.change_or_open(&u, edited);
    let l = labels(&c.at("textDocument/completion", &u, (0, 9)));
    assert!(l.contains(&"\"../shuffling_patience.rules\"".to_string()), "{l:?}");
    assert!(l.contains(&"\"tens.rules\"".to_string()), "{l:?}");
    assert!(l.contains(&"\"get_straight/no-wrap\"".to_string()), "{l:?}");

    // Ranks in a group of the patience game.
    let (u, text) = read("rules/shuffling_patience.rules");
    let edited = text.replacen("ranks: J Q K", "ranks: J Q ", 1);
    c.change_or_open(&u, &edited);
    let l = labels(&c.at("textDocument/completion", &u, pos(&edited, "ranks: J Q ", 11)));
    // On a one-line section, after a value: more values, or the group's
    // keys not written yet.
    assert_eq!(l.join(" "), "A 2 3 4 5 6 7 8 9 T J Q K same sum cards each between");
    c.shutdown();
}

#[test]
fn definition_follows_extends_names_and_base_sections() {
    let mut c = Client::start();
    let (u, text) = read("rules/snooker_referee/six-red.rules");
    c.open(&u, &text);
    let base_path = root().join("rules/snooker_referee.rules");
    let base_text = std::fs::read_to_string(&base_path).unwrap();
    let base_uri = uri(&base_path);
    let d = c.at("textDocument/definition", &u, pos(&text, "snooker_referee.rules", 2));
    assert_eq!(d["uri"], base_uri, "{d}");
    // The variant's `ball "Red"` merges into the base's.
    let red = pos(&base_text, "ball \"Red\"", 0);
    for (needle, skip) in [("ball \"Red\"", 1), ("\"Red\" {", 2)] {
        let d = c.at("textDocument/definition", &u, pos(&text, needle, skip));
        assert_eq!(d["uri"], base_uri, "{d}");
        assert_eq!(d["range"]["start"], json!({ "line": red.0, "character": red.1 }), "{needle}: {d}");
    }
    // A name to where it is defined.
    c.open(&base_uri, &base_text);
    let d = c.at("textDocument/definition", &base_uri, pos(&base_text, "alternate: Red", 12));
    // The name inside the quotes.
    assert_eq!(d["range"]["start"], json!({ "line": red.0, "character": red.1 + 6 }), "{d}");
    let (u, text) = read("rules/shuffling_patience.rules");
    c.open(&u, &text);
    let d = c.at("textDocument/definition", &u, pos(&text, "ranks: A..T", 7));
    let ranks_line = text.lines().position(|l| l.trim_start().starts_with("ranks:")).unwrap();
    assert_eq!(d["range"]["start"]["line"], json!(ranks_line), "{d}");
    assert!(c.at("textDocument/definition", &u, pos(&text, "sum: 11", 6)).is_null());
    c.shutdown();
}

#[test]
fn formatting_and_outline() {
    let mut c = Client::start();
    let (u, text) = read("rules/get_straight.rules");
    c.open(&u, &text);
    let edits = c.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": u }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    assert_eq!(edits, json!([]), "a bundled file is in canonical layout");
    let messy = text.replacen("  hand: 5 ", "hand:    5", 1).replacen("output {\n", "output {   ", 1);
    c.open(&u, &messy);
    let edits = c.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": u }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    let edits = edits.as_array().unwrap();
    assert_eq!(edits.len(), 1);
    assert_eq!(edits[0]["newText"], arbiter::syntax::fmt::format(&messy).unwrap());
    assert_eq!(edits[0]["range"]["start"], json!({ "line": 0, "character": 0 }));
    c.open(&u, "play { hand: }}");
    let r = c.call(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": u }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    assert!(r["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{r}");

    c.open(&u, &text);
    let symbols = c.request("textDocument/documentSymbol", json!({ "textDocument": { "uri": u } }));
    let symbols = symbols.as_array().unwrap();
    let items = arbiter::syntax::parse(0, &text).unwrap();
    assert_eq!(symbols.len(), items.len());
    let names: Vec<&str> = symbols.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"combination \"Straight\"") && names.contains(&"deck"), "{names:?}");
    let play = symbols.iter().find(|s| s["name"] == "play").unwrap();
    let hand = play["children"].as_array().unwrap().iter().find(|s| s["name"] == "hand").unwrap();
    assert_eq!(hand["detail"], "5");
    assert_eq!(hand["selectionRange"]["start"]["line"], json!(pos(&text, "hand: 5", 0).0));
    c.shutdown();
}

/// Thousands of problems in a large buffer: the first 50 are published,
/// as `check` shows them, then one note says how many more there are.
#[test]
fn a_large_buffer_with_many_problems_shows_what_check_shows() {
    let mut c = Client::start();
    let mut text = String::from("engine: exchange\n");
    for i in 0..20_000 {
        text.push_str(&format!("key{i}: 1  # é𝄞\n"));
    }
    let u = "file:///nowhere/large.rules";
    let diags = c.open(u, &text);
    let loaded = arbiter::load::load_text("/nowhere/large.rules", &text, Path::new("/nowhere")).unwrap();
    let all = arbiter::engines::compile(&loaded).1;
    let (shown, more) = arbiter::report::diag::capped(&all);
    assert_eq!(diags.len(), shown.len() + 1, "{diags:?}");
    for (d, w) in diags.iter().zip(&shown) {
        assert_eq!(d["code"], w.code.as_str());
        let line = loaded.sources.line_col(w.span).0 - 1;
        assert_eq!(d["range"]["start"]["line"], json!(line));
    }
    let note = diags.last().unwrap();
    assert_eq!(note["code"], "too-many-diagnostics");
    assert_eq!(note["severity"], 3);
    assert!(note["message"].as_str().unwrap().starts_with(&more[0].message(&loaded.sources)), "{note}");
    // The note is where the first problem left out is.
    let first_left_out = loaded.sources.line_col(all[shown.len()].span).0 - 1;
    assert_eq!(note["range"]["start"]["line"], json!(first_left_out));
    let h = c.at("textDocument/hover", u, (20_000, 12));
    assert!(h.is_null(), "a comment");
    c.shutdown();
}

#[test]
fn unknown_requests_and_unopened_files_are_errors_not_crashes() {
    let mut c = Client::start();
    let r = c.call("textDocument/frobnicate", json!({}));
    assert_eq!(r["error"]["code"], json!(-32601));
    let r = c.call(
        "textDocument/hover",
        json!({ "textDocument": { "uri": "file:///nowhere.rules" }, "position": { "line": 0, "character": 0 } }),
    );
    assert!(r.get("error").is_some(), "{r}");
    // Columns count UTF-16 code units: 𝄞 is two, é one.
    let text = "engine: exchange\ngame: \"𝄞é\" zzz: 1\n";
    let diags = c.open("file:///nowhere/utf16.rules", text);
    let d = diags.iter().find(|d| d["code"] == "unknown-key").unwrap();
    let (line, character) = pos(text, "zzz", 0);
    assert_eq!((line, character), (1, 12));
    assert_eq!(d["range"]["start"], json!({ "line": line, "character": character }));
    assert_eq!(d["range"]["end"]["character"], json!(character + 3));
    // A buffer with no file behind it still gets diagnostics.
    let diags = c.open("untitled:Untitled-1", "engine: exchange\n");
    assert!(diags.iter().any(|d| d["code"] == "missing"), "{diags:?}");
    c.shutdown();
}

/// Hover, definition and completion at every offset of every bundled and
/// broken file, and completion at the end of every prefix of the bundled
/// ones (a file being typed), with symbols and formatting: never a panic.
#[test]
fn every_position_of_every_file_is_answered_without_panic() {
    use arbiter::lsp::analysis::Analysis;
    use arbiter::lsp::complete::completion;
    use arbiter::lsp::features::{definition, hover, Locator};
    let mut paths: Vec<PathBuf> =
        arbiter::load::bundled_names().iter().map(|n| root().join(format!("rules/{n}.rules"))).collect();
    let check = root().join("tests/check");
    for d in std::fs::read_dir(&check).unwrap() {
        for f in std::fs::read_dir(d.unwrap().path()).unwrap() {
            paths.push(f.unwrap().path());
        }
    }
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let analysis = Analysis::new(&path, &text);
        let u = uri(&path);
        let loc = Locator::new(&analysis, &u);
        let lines = arbiter::source::LineIndex::new(&text);
        for offset in (0..=text.len()).filter(|&o| text.is_char_boundary(o)) {
            let _ = hover(&loc, &text, &lines, offset);
            let _ = definition(&loc, &text, offset);
            let _ = completion(&analysis, &text, &lines, offset, offset % 2 == 0);
        }
        if path.starts_with(&check) {
            continue;
        }
        for cut in (0..text.len()).step_by(97).filter(|&o| text.is_char_boundary(o)) {
            let typed = &text[..cut];
            let a = Analysis::new(&path, typed);
            let lines = arbiter::source::LineIndex::new(typed);
            let _ = completion(&a, typed, &lines, cut, true);
            let _ = arbiter::lsp::outline::symbols(typed, &lines);
            let _ = arbiter::lsp::outline::formatting(typed, &lines);
            let _ = arbiter::lsp::outline::folding(typed, &lines);
            let _ = arbiter::lsp::outline::semantic_tokens(&a, typed, &lines);
        }
    }
}
