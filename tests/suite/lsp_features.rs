//! `arbiter lsp` over stdio, the features of a designer's workbench:
//! capabilities, folding, semantic tokens, workspace symbols, code
//! actions, rename and references, completion in every place, figures in
//! place, examples run from the editor, bundled bases opened read-only.

use crate::lsp_client;

use lsp_client::*;
use serde_json::{json, Value};

/// Every bundled rule file and its text.
fn bundled() -> Vec<(String, String)> {
    let mut names = arbiter::load::bundled_names();
    names.sort();
    names.into_iter().map(|n| read(&format!("rules/{n}.rules"))).collect()
}

#[test]
fn initialize_announces_every_capability() {
    let mut c = Client::spawn(&[]);
    let init = c.request("initialize", json!({ "capabilities": {} }));
    let caps = &init["capabilities"];
    for cap in [
        "hoverProvider",
        "completionProvider",
        "definitionProvider",
        "documentFormattingProvider",
        "documentSymbolProvider",
        "workspaceSymbolProvider",
        "foldingRangeProvider",
        "semanticTokensProvider",
    ] {
        assert!(!caps[cap].is_null() && caps[cap] != false, "{cap} is not announced: {caps}");
    }
    assert_eq!(caps["textDocumentSync"]["save"], true, "saves are reported");
}

/// Sections over several lines fold, their closing brace left visible;
/// runs of comments fold as comments.
#[test]
fn folding_ranges_follow_sections_and_comments() {
    let mut c = Client::start();
    let text = "# one\n# two\n# three\ngame: \"G\"\nplay {\n  hand: 5\n  exchange: 0..5\n}\ncombination \"A\" { pattern: any pays: 0 }\ndeck {\n  ranks: A 2\n  suits: S }\n";
    let u = "file:///nowhere/fold.rules";
    c.open(u, text);
    let r = c.request("textDocument/foldingRange", json!({ "textDocument": { "uri": u } }));
    let got: Vec<(u64, u64, String)> = r
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["startLine"].as_u64().unwrap(), f["endLine"].as_u64().unwrap(), f["kind"].as_str().unwrap().into()))
        .collect();
    let want = [(0, 2, "comment"), (4, 6, "region"), (9, 11, "region")];
    let want: Vec<(u64, u64, String)> = want.iter().map(|&(a, b, k)| (a, b, k.to_string())).collect();
    assert_eq!(got, want);
    c.shutdown();
}

/// Semantic tokens decoded to (line, column, length, type).
fn tokens(c: &mut Client, u: &str, legend: &[String]) -> Vec<(u32, u32, u32, String, u64)> {
    let r = c.request("textDocument/semanticTokens/full", json!({ "textDocument": { "uri": u } }));
    let data: Vec<u64> = r["data"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    let (mut line, mut col) = (0u32, 0u32);
    let mut out = Vec::new();
    for t in data.chunks(5) {
        line += t[0] as u32;
        col = if t[0] == 0 { col + t[1] as u32 } else { t[1] as u32 };
        out.push((line, col, t[2] as u32, legend[t[3] as usize].clone(), t[4]));
    }
    out
}

/// On every bundled file: each key is a property, each section kind a
/// namespace, each label a declaration, each comment a comment, as the
/// parser sees them.
#[test]
fn semantic_tokens_agree_with_the_parser_on_every_bundled_file() {
    use arbiter::syntax::Item;
    let mut c = Client::spawn(&[]);
    let init = c.request("initialize", json!({ "capabilities": {} }));
    let legend: Vec<String> = init["capabilities"]["semanticTokensProvider"]["legend"]["tokenTypes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    c.notify("initialized", json!({}));
    for (u, text) in bundled() {
        c.open(&u, &text);
        let toks = tokens(&mut c, &u, &legend);
        let at = |offset: u32| {
            let before = &text[..offset as usize];
            let start = before.rfind('\n').map_or(0, |n| n + 1);
            (before.matches('\n').count() as u32, before[start..].encode_utf16().count() as u32)
        };
        let kind_at = |(l, ch): (u32, u32)| toks.iter().find(|t| t.0 == l && t.1 == ch).map(|t| t.3.as_str());
        fn walk(items: &[Item], f: &mut dyn FnMut(&Item)) {
            for i in items {
                f(i);
                if let Item::Section(s) = i {
                    walk(&s.items, f);
                }
            }
        }
        let items = arbiter::syntax::parse(0, &text).unwrap();
        let mut checked = 0;
        walk(&items, &mut |i| {
            match i {
                Item::Property(p) => assert_eq!(kind_at(at(p.key.span.start)), Some("property"), "{u}: {}", p.key.name),
                Item::Section(s) => {
                    assert_eq!(kind_at(at(s.kind.span.start)), Some("namespace"), "{u}: {}", s.kind.name);
                    for l in &s.labels {
                        let t = toks
                            .iter()
                            .find(|t| (t.0, t.1) == at(l.span.start - 1))
                            .expect("a label token, its quote first");
                        assert_eq!(t.4 & 1, 1, "{u}: label {} is a declaration", l.value);
                    }
                }
            }
            checked += 1;
        });
        assert!(checked > 5);
        let mut in_string = false;
        for (n, line) in text.lines().enumerate() {
            in_string ^= line.matches("\"\"\"").count() % 2 == 1;
            if !in_string && line.trim_start().starts_with('#') {
                let col = (line.len() - line.trim_start().len()) as u32;
                assert_eq!(kind_at((n as u32, col)), Some("comment"), "{u}:{}", n + 1);
            }
        }
    }
    c.shutdown();
}

/// Workspace symbols: the names open buffers define, by a fuzzy query.
#[test]
fn workspace_symbols_find_names_in_open_buffers() {
    let mut c = Client::start();
    let (u, text) = read("rules/snooker_referee.rules");
    c.open(&u, &text);
    let (u2, text2) = read("rules/shuffling_patience.rules");
    c.open(&u2, &text2);
    let r = c.request("workspace/symbol", json!({ "query": "pnk" }));
    let names: Vec<&str> = r.as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Pink"], "{r}");
    let pink = &r[0];
    assert_eq!(pink["location"]["uri"], u);
    assert_eq!(pink["location"]["range"]["start"]["line"], json!(pos(&text, "ball \"Pink\"", 0).0));
    assert_eq!(pink["containerName"], "ball");
    let all = c.request("workspace/symbol", json!({ "query": "" }));
    let from_patience = all.as_array().unwrap().iter().filter(|s| s["location"]["uri"] == u2).count();
    assert!(from_patience > 0, "{all}");
    c.shutdown();
}

fn labels_of(v: &Value) -> Vec<String> {
    let items = v.as_array().or_else(|| v["items"].as_array()).cloned().unwrap_or_default();
    items.iter().map(|i| i["label"].as_str().unwrap().to_string()).collect()
}

/// The rows of the bundled get_straight table, in order.
fn straight_rows() -> Vec<String> {
    let base = arbiter::load::load_bundled("get_straight").unwrap().unwrap();
    base.items
        .iter()
        .filter_map(|i| match i {
            arbiter::syntax::Item::Section(s) if s.kind.name == "combination" => Some(s.name()?.value.clone()),
            _ => None,
        })
        .collect()
}

/// Completion in a variant: inside the quotes after `extends:`, the
/// base's labels after `combination` (quoted, and inside quotes), in
/// `remove: combination "..."` and in `after: "..."`; never the `extends:`
/// paths where a label goes.
#[test]
fn completion_inside_quotes_and_after_a_kind() {
    let mut c = Client::start();
    let (u, text) = read("rules/get_straight/flush.rules");
    let rows = straight_rows();
    assert!(rows.len() > 5);
    c.change_or_open(&u, &text);
    let mut v = 1;
    let mut at_end = |c: &mut Client, edited: String, needle: &str| {
        v += 1;
        c.change_or_open(&u, &edited);
        let at = pos(&edited, needle, needle.len());
        c.at("textDocument/completion", &u, at)
    };
    let r =
        at_end(&mut c, text.replace("extends: \"../get_straight.rules\"", "extends: \"get_s\""), "extends: \"get_s");
    let l = labels_of(&r);
    assert!(l.contains(&"get_straight".to_string()) && l.contains(&"get_straight/no-wrap".to_string()), "{l:?}");
    let edit = &r.as_array().unwrap().iter().find(|i| i["label"] == "get_straight").unwrap()["textEdit"];
    assert_eq!(edit["range"]["start"], json!({ "line": 3, "character": 10 }), "the text inside the quotes: {edit}");
    assert_eq!(edit["range"]["end"], json!({ "line": 3, "character": 15 }));

    let with = |line: &str| text.replacen("\nexample", &format!("\n{line}\nexample"), 1);
    let l = labels_of(&at_end(&mut c, with("combination "), "\ncombination "));
    let quoted: Vec<String> = rows.iter().map(|r| format!("\"{r}\"")).collect();
    assert_eq!(l, quoted, "the base's rows, not the `extends:` paths");
    let l = labels_of(&at_end(&mut c, with("combination \"\""), "\ncombination \""));
    assert_eq!(l, rows);
    let l = labels_of(&at_end(&mut c, with("remove: combination \"Du\""), "remove: combination \"Du"));
    assert_eq!(l, rows);
    let edited = text.replace("after: \"Straight\"", "after: \"\"");
    let l = labels_of(&at_end(&mut c, edited, "after: \""));
    assert_eq!(l, rows, "the rows it may go next to (itself excluded)");
    c.shutdown();
}

/// After `{` in an output template: the fields the engine gives that
/// line, the same that the checker accepts there.
#[test]
fn completion_of_template_fields() {
    let mut c = Client::start();
    let (u, text) = read("rules/get_straight.rules");
    let edited = text.replace("exchange: \"Exchange {cards}\"", "exchange: \"Exchange {c");
    c.change_or_open(&u, &edited);
    let r = c.at("textDocument/completion", &u, pos(&edited, "{c", 2));
    let l = labels_of(&r);
    // What the checker says the fields are.
    let wrong = text.replace("{cards}", "{zzzz}");
    let loaded = arbiter::load::load_text("t.rules", &wrong, &root().join("rules")).unwrap();
    let diags = arbiter::engines::compile(&loaded).1;
    let help = diags.iter().find_map(|d| d.help.clone()).expect("an unknown field");
    for f in &l {
        assert!(help.contains(&format!("`{f}`")), "{f} is not among {help}");
    }
    assert_eq!(l.len(), help.matches('`').count() / 2, "{l:?} / {help}");
    let edit = &r.as_array().unwrap()[0]["textEdit"];
    let (line, col) = pos(&edited, "{c", 1);
    assert_eq!(edit["range"]["start"], json!({ "line": line, "character": col }));
    c.shutdown();
}

/// The byte offset of a protocol position in `text`.
fn offset(text: &str, p: &Value) -> usize {
    let (line, col) = (p["line"].as_u64().unwrap() as usize, p["character"].as_u64().unwrap() as usize);
    let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    let mut units = 0;
    for (i, ch) in text[start..].char_indices() {
        if units >= col || ch == '\n' {
            return start + i;
        }
        units += ch.len_utf16();
    }
    text.len()
}

/// `text` with a code action's edits applied.
fn apply(text: &str, action: &Value) -> String {
    let changes = action["edit"]["changes"].as_object().expect("edits in `changes`");
    assert_eq!(changes.len(), 1, "{action}");
    let mut edits: Vec<(usize, usize, String)> = changes
        .values()
        .next()
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                offset(text, &e["range"]["start"]),
                offset(text, &e["range"]["end"]),
                e["newText"].as_str().unwrap().into(),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (a, b, t) in edits {
        out.replace_range(a..b, &t);
    }
    out
}

/// The quick fixes offered for one published diagnostic.
fn fixes_for(c: &mut Client, u: &str, d: &Value) -> Vec<Value> {
    let r = c.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": u }, "range": d["range"], "context": { "diagnostics": [d] } }),
    );
    r.as_array()
        .unwrap()
        .iter()
        .filter(|a| a["kind"] == "quickfix" && a["diagnostics"][0]["message"] == d["message"])
        .cloned()
        .collect()
}

/// Every diagnostic of the broken files whose fix is known (a "did you
/// mean", a missing key) gets a quick fix, and applying it makes that
/// diagnostic go.
#[test]
fn quick_fixes_remove_the_diagnostics_they_fix() {
    let mut c = Client::start();
    let dir = root().join("tests/check");
    let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
        .map(|f| f.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rules"))
        .collect();
    paths.sort();
    let mut fixed = 0;
    for path in paths {
        let u = uri(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        let diags = c.open(&u, &text);
        for d in &diags {
            let msg = d["message"].as_str().unwrap();
            let help = msg.split("\nhelp: ").nth(1).unwrap_or_default();
            let known = help.starts_with("did you mean") || arbiter::lsp::actions::addition(help).is_some();
            let in_base = msg.starts_with("in the base rule file");
            let fixes = fixes_for(&mut c, &u, d);
            if !known || in_base {
                continue;
            }
            assert!(!fixes.is_empty(), "{}: no fix for {d}", path.display());
            let preferred = fixes.iter().find(|f| f["isPreferred"] == true).unwrap_or(&fixes[0]);
            let after = c.change(&u, 2, &apply(&text, preferred));
            let again = after.iter().any(|a| a["code"] == d["code"] && a["message"] == d["message"]);
            assert!(!again, "{}: `{}` did not fix {msg}: {after:?}", path.display(), preferred["title"]);
            fixed += 1;
            c.notify("textDocument/didClose", json!({ "textDocument": { "uri": u } }));
            c.open(&u, &text);
        }
        c.notify("textDocument/didClose", json!({ "textDocument": { "uri": u } }));
    }
    assert!(fixed >= 20, "only {fixed} fixes tried");
    c.shutdown();
}

/// Applies the fix titled `title` (a prefix) for the first diagnostic with
/// `code`; returns the diagnostics of the fixed text.
fn fix_and_check(c: &mut Client, u: &str, text: &str, code: &str, title: &str, version: i64) -> (String, Vec<Value>) {
    let diags = c.change(u, version, text);
    let d = diags.iter().find(|d| d["code"] == code).unwrap_or_else(|| panic!("no {code}: {diags:?}"));
    let fixes = fixes_for(c, u, d);
    let fix = fixes
        .iter()
        .find(|f| f["title"].as_str().unwrap().starts_with(title))
        .unwrap_or_else(|| panic!("no `{title}` in {fixes:?}"));
    let fixed = apply(text, fix);
    let after = c.change(u, version + 1, &fixed);
    (fixed, after)
}

/// A row hidden by a row above it in the same file moves above it; in a
/// variant, a base row it hides is placed with `before:`; a base row that
/// a variant makes unformable is removed with `remove:`; a missing
/// section is added with its required keys.
#[test]
fn structural_quick_fixes() {
    let mut c = Client::start();
    let (u, text) = read("tests/check/get_straight/shadowed-combination.rules");
    c.open(&u, &text);
    let (fixed, after) = fix_and_check(&mut c, &u, &text, "shadowed", "Move `Double Dutch` above `Dutch`", 2);
    assert!(after.is_empty(), "{after:?}");
    assert!(fixed.find("\"Double Dutch\"").unwrap() < fixed.find("\"Dutch\"").unwrap());

    let dir = scratch("fixes");
    let (_, gs) = read("rules/get_straight.rules");
    std::fs::write(dir.join("base.rules"), &gs).unwrap();
    let vu = uri(&dir.join("v.rules"));
    c.open(&vu, "extends: \"base.rules\"\n");
    let text = "extends: \"base.rules\"\ncombination \"Pair\" { pattern: kind(2) pays: 0 }\n";
    let (fixed, after) = fix_and_check(&mut c, &vu, text, "shadowed", "Place `Pair` above `Dutch`", 2);
    assert!(fixed.contains("before: \"Dutch\""), "{fixed}");
    let hidden_by_dutch = |d: &Value| d["message"].as_str().unwrap().contains("move `Pair` above `Dutch`");
    assert!(!after.iter().any(hidden_by_dutch), "{after:?}");
    let text = "extends: \"base.rules\"\nplay { hand: 3 }\n";
    let (fixed, after) = fix_and_check(&mut c, &vu, text, "unformable", "Remove `combination \"Straight\"`", 4);
    assert!(fixed.contains("remove: combination \"Straight\""), "{fixed}");
    assert!(!after.iter().any(|d| d["message"].as_str().unwrap().contains("`Straight`")), "{after:?}");

    let no_input = gs.replace("input {\n  end: \"#\"  # the line that ends the input\n}\n", "");
    let no_output = no_input.replace("output {\n  stay: \"Stay\"\n  exchange: \"Exchange {cards}\"\n}\n", "");
    assert_ne!(no_output, no_input);
    let (_, after) = fix_and_check(&mut c, &vu, &no_output, "missing", "Add the `output` section", 6);
    assert!(after.is_empty(), "{after:?}");
    c.shutdown();
}

/// A table with no catch-all row is offered one, at any of its rows.
#[test]
fn a_catch_all_row_is_offered_where_none_is() {
    let mut c = Client::start();
    let (u, text) = read("rules/get_straight.rules");
    let without = text.replace("combination \"Dummy\"                 { pattern: any             pays: 0 }\n", "");
    assert_ne!(without, text);
    for (t, offered) in [(&text, false), (&without, true)] {
        c.change_or_open(&u, t);
        let at = pos(t, "combination \"Dutch\"", 3);
        let r = c.request(
            "textDocument/codeAction",
            json!({ "textDocument": { "uri": u }, "range": { "start": { "line": at.0, "character": at.1 }, "end": { "line": at.0, "character": at.1 } }, "context": { "diagnostics": [] } }),
        );
        let add = r.as_array().unwrap().iter().find(|a| a["kind"] == "refactor").cloned();
        assert_eq!(add.is_some(), offered, "{r}");
        if let Some(add) = add {
            let fixed = apply(t, &add);
            assert!(fixed.contains("{ pattern: any pays: 0 }"), "{fixed}");
            let n = c.opened_version(&u) + 1;
            assert!(c.change(&u, n, &fixed).is_empty());
            c.set_version(&u, n as i32);
        }
    }
    c.shutdown();
}

/// Applies a workspace edit to the files it names (their texts given).
fn apply_workspace(edit: &Value, files: &mut [(String, String)]) -> usize {
    let mut n = 0;
    for (u, edits) in edit["changes"].as_object().unwrap() {
        let (_, text) = files.iter_mut().find(|(x, _)| x == u).unwrap_or_else(|| panic!("an edit of {u}"));
        let action = json!({ "edit": { "changes": { u.clone(): edits } } });
        *text = apply(text, &action);
        n += edits.as_array().unwrap().len();
    }
    n
}

/// Renaming a ball from an open variant renames it in the base, in the
/// variant, and in a variant beside them on disk; references list the
/// same places; every file still checks.
#[test]
fn rename_and_references_across_a_chain() {
    let dir = scratch("rename");
    let (_, base) = read("rules/snooker_referee.rules");
    let (_, six) = read("rules/snooker_referee/six-red.rules");
    let six = six.replace("../snooker_referee.rules", "base.rules");
    std::fs::write(dir.join("base.rules"), &base).unwrap();
    std::fs::write(dir.join("six.rules"), &six).unwrap();
    std::fs::create_dir_all(dir.join("more")).unwrap();
    let deep = "extends: \"../base.rules\"\nplay { alternate: Red }\n";
    std::fs::write(dir.join("more/deep.rules"), deep).unwrap();
    let open = "extends: \"base.rules\"\nball \"Red\" { count: 10 }\n";
    let (ou, bu, su, du) = (
        uri(&dir.join("open.rules")),
        uri(&dir.join("base.rules")),
        uri(&dir.join("six.rules")),
        uri(&dir.join("more/deep.rules")),
    );
    let mut c = Client::start();
    assert!(c.open(&ou, open).is_empty());
    let at = pos(open, "\"Red\"", 2);
    let r = c.request(
        "textDocument/prepareRename",
        json!({ "textDocument": { "uri": ou }, "position": { "line": at.0, "character": at.1 } }),
    );
    assert_eq!(r["placeholder"], "Red");
    let refs = c.request("textDocument/references", json!({ "textDocument": { "uri": ou }, "position": { "line": at.0, "character": at.1 }, "context": { "includeDeclaration": true } }));
    let decl_free = c.request("textDocument/references", json!({ "textDocument": { "uri": ou }, "position": { "line": at.0, "character": at.1 }, "context": { "includeDeclaration": false } }));
    assert!(decl_free.as_array().unwrap().len() < refs.as_array().unwrap().len());
    let edit = c.request(
        "textDocument/rename",
        json!({ "textDocument": { "uri": ou }, "position": { "line": at.0, "character": at.1 }, "newName": "Scarlet" }),
    );
    let mut files = vec![(ou.clone(), open.to_string()), (bu, base.clone()), (su, six), (du, deep.to_string())];
    let n = apply_workspace(&edit, &mut files);
    assert_eq!(n, refs.as_array().unwrap().len(), "references and rename agree");
    for (u, text) in &files {
        assert!(edit["changes"].get(u).is_some(), "{u} is not renamed in: {edit}");
        let _ = text;
    }
    // Every file checks with the new name, none names the old one.
    for (name, text) in [
        ("base.rules", &files[1].1),
        ("six.rules", &files[2].1),
        ("more/deep.rules", &files[3].1),
        ("open.rules", &files[0].1),
    ] {
        std::fs::write(dir.join(name), text).unwrap();
    }
    for name in ["base.rules", "six.rules", "more/deep.rules", "open.rules"] {
        let loaded = arbiter::load::load_path(&dir.join(name)).unwrap_or_else(|e| panic!("{name}: {:?}", e.diags));
        let diags = arbiter::engines::compile(&loaded).1;
        assert!(diags.is_empty(), "{name}: {diags:?}");
    }
    assert!(!files[1].1.contains("ball \"Red\"") && files[1].1.contains("ball \"Scarlet\""));
    let r = c.call("textDocument/rename", json!({ "textDocument": { "uri": ou }, "position": { "line": at.0, "character": at.1 }, "newName": "Dark red" }));
    assert!(r["error"]["message"].as_str().unwrap().contains("not a word"), "{r}");
    c.shutdown();
}

/// A name defined in a bundled game cannot be renamed from a variant.
#[test]
fn names_of_bundled_games_are_not_renamed() {
    let mut c = Client::start();
    let u = "file:///nowhere/v.rules";
    let text = "extends: \"snooker_referee\"\nball \"Red\" { count: 6 }\n";
    c.open(u, text);
    let at = pos(text, "\"Red\"", 2);
    let r = c.call(
        "textDocument/prepareRename",
        json!({ "textDocument": { "uri": u }, "position": { "line": at.0, "character": at.1 } }),
    );
    assert!(r["error"]["message"].as_str().unwrap().contains("bundled game `snooker_referee`"), "{r}");
    c.shutdown();
}

/// A word that merely spells a name is not a use of it: renaming the rank
/// `5` leaves `hand: 5` and the count of `run(5)` alone, renaming the rank
/// `J` leaves the label `"J"` alone; references agree, and the renamed
/// file still checks.
#[test]
fn rename_touches_only_words_that_are_the_name() {
    let text = "engine: exchange\ndeck { ranks: A 2 3 4 5 6 7 8 9 T J Q K  suits: S H D C }\nplay { hand: 5 entry: 1 exchange: 0..5 cost: 0 prefer: fewer-cards leftmost }\n\
                combination \"S\" { pattern: run(5) pays: 4 }\ncombination \"J\" { pattern: kind(2 J Q K A) pays: 1 }\n\
                combination \"F\" { pattern: kind(2 5) pays: 1 }\ncombination \"N\" { pattern: any pays: 0 }\n\
                input { end: \"#\" }\noutput { stay: \"Hold {kept}\" exchange: \"Hold {kept}\" exchange-all: \"Hold none\" }\n";
    let dir = scratch("rename-words");
    let path = dir.join("w.rules");
    std::fs::write(&path, text).unwrap();
    let u = uri(&path);
    let mut c = Client::start();
    assert!(c.open(&u, text).is_empty(), "the file checks");
    let rename = |c: &mut Client, at: (usize, usize), new: &str| {
        let p = json!({ "line": at.0, "character": at.1 });
        let refs = c.request(
            "textDocument/references",
            json!({ "textDocument": { "uri": u }, "position": p, "context": { "includeDeclaration": true } }),
        );
        let edit =
            c.request("textDocument/rename", json!({ "textDocument": { "uri": u }, "position": p, "newName": new }));
        let mut files = vec![(u.clone(), text.to_string())];
        assert_eq!(apply_workspace(&edit, &mut files), refs.as_array().unwrap().len(), "references and rename agree");
        files.remove(0).1
    };
    let five = rename(&mut c, pos(text, "4 5 6", 2), "Five");
    assert!(five.contains("ranks: A 2 3 4 Five 6") && five.contains("kind(2 Five)"), "{five}");
    assert!(
        five.contains("hand: 5") && five.contains("exchange: 0..5") && five.contains("run(5)"),
        "a count is not the rank: {five}"
    );
    let jack = rename(&mut c, pos(text, "2 J Q", 2), "Jack");
    assert!(jack.contains("T Jack Q K") && jack.contains("kind(2 Jack Q K A)"), "{jack}");
    assert!(jack.contains("combination \"J\""), "a label is not the rank: {jack}");
    for renamed in [five, jack] {
        std::fs::write(&path, &renamed).unwrap();
        let loaded = arbiter::load::load_path(&path).unwrap_or_else(|e| panic!("{:?}", e.diags));
        assert!(arbiter::engines::compile(&loaded).1.is_empty(), "{renamed}");
    }
    c.shutdown();
}

/// Byte offsets of the words of `text` outside comments and triple-quoted
/// strings (labels are in quotes), the first few of each distinct word.
fn words(text: &str, per_word: usize) -> Vec<(usize, String)> {
    let mut seen = std::collections::HashMap::<String, usize>::new();
    let mut out = Vec::new();
    let (mut line_start, mut in_triple) = (0, false);
    for line in text.split_inclusive('\n') {
        let quotes = line.matches("\"\"\"").count();
        let skip = in_triple || quotes > 0;
        in_triple ^= quotes % 2 == 1;
        let (mut i, b, mut in_str) = (0, line.as_bytes(), false);
        while i < b.len() && !skip {
            let c = b[i];
            if c == b'"' {
                in_str = !in_str;
            } else if c == b'#' && !in_str {
                break;
            } else if c.is_ascii_alphanumeric() && (i == 0 || !is_word_byte(b[i - 1])) {
                let end = (i..b.len()).find(|&k| !is_word_byte(b[k])).unwrap_or(b.len());
                let w = &line[i..end];
                let n = seen.entry(w.to_string()).or_default();
                *n += 1;
                if *n <= per_word {
                    out.push((line_start + i, w.to_string()));
                }
                i = end;
                continue;
            }
            i += 1;
        }
        line_start += line.len();
    }
    out
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'\'')
}

/// In the bundled games of five engines (balls, ranks and groups, players
/// and colours, cell families and structures, ranks in patterns), every name that can be
/// renamed is renamed to a new word with a result that still checks
/// without a problem (a use left behind would be an unknown name; a word
/// renamed that was not the name, a wrong value).
#[test]
fn every_name_of_a_bundled_game_renames_to_a_file_that_checks() {
    let dir = scratch("rename-every");
    let games = [
        ("snooker_referee", &["Red", "Black", "White"][..]),
        ("shuffling_patience", &["A", "J", "S", "pair", "triple"]),
        ("house_of_cards", &["13", "R", "B", "Birgit", "Axel"]),
        ("havannah", &["corner", "edge", "bridge", "fork", "ring"]),
        ("video_poker", &["A", "J", "5", "S", "Royal", "Jacks"]),
    ];
    for (game, names) in games {
        let (_, text) = read(&format!("rules/{game}.rules"));
        let path = dir.join(format!("{game}.rules"));
        std::fs::write(&path, &text).unwrap();
        let u = uri(&path);
        let mut c = Client::start();
        assert!(c.open(&u, &text).is_empty(), "{game} checks");
        let mut done = std::collections::HashSet::new();
        for (at, word) in words(&text, 3) {
            if done.contains(&word) {
                continue;
            }
            let p = pos(&text, &text[at..], 0);
            let p = json!({ "line": p.0, "character": p.1 });
            let r = c.request("textDocument/prepareRename", json!({ "textDocument": { "uri": u }, "position": p }));
            if r.is_null() {
                continue;
            }
            done.insert(word.clone());
            let new = format!("Zq{}", done.len());
            let edit = c
                .request("textDocument/rename", json!({ "textDocument": { "uri": u }, "position": p, "newName": new }));
            let mut files = vec![(u.clone(), text.clone())];
            assert!(apply_workspace(&edit, &mut files) > 0, "{game}: `{word}`");
            std::fs::write(&path, &files[0].1).unwrap();
            let loaded = arbiter::load::load_path(&path).unwrap_or_else(|e| panic!("{game}, `{word}`: {:?}", e.diags));
            let diags = arbiter::engines::compile(&loaded).1;
            assert!(diags.is_empty(), "{game}: renaming `{word}` to `{new}`: {diags:?}");
        }
        std::fs::write(&path, &text).unwrap();
        let missed: Vec<_> = names.iter().filter(|n| !done.contains(**n)).collect();
        assert!(missed.is_empty(), "{game}: {missed:?} not renamed");
        c.shutdown();
    }
}

/// Go to definition into a bundled game: a read-only copy of its source,
/// with the bundled variants beside it; names defined there lead into it,
/// and problems a variant causes there are published there.
#[test]
fn definition_into_a_bundled_game_opens_a_read_only_copy() {
    let mut c = Client::start();
    let u = "file:///nowhere/v.rules";
    let text = "extends: \"snooker_referee\"\nplay { alternate: Red }\n";
    c.open(u, text);
    let d = c.at("textDocument/definition", u, pos(text, "snooker_referee", 3));
    let copy = d["uri"].as_str().expect("a location").to_string();
    let path = std::path::PathBuf::from(copy.strip_prefix("file://").unwrap());
    let on_disk = std::fs::read_to_string(&path).unwrap();
    let bundled = arbiter::load::load_bundled("snooker_referee").unwrap().unwrap();
    assert_eq!(on_disk, &*bundled.sources.file(0).text);
    assert!(std::fs::metadata(&path).unwrap().permissions().readonly());
    assert!(path.parent().unwrap().join("snooker_referee/six-red.rules").is_file(), "its variants beside it");
    // A name defined in the bundled base.
    let d = c.at("textDocument/definition", u, pos(text, "Red", 1));
    assert_eq!(d["uri"], copy);
    assert_eq!(d["range"]["start"]["line"], json!(pos(&on_disk, "ball \"Red\"", 0).0));
    // A problem the variant causes in the base is published in the copy.
    let text = "extends: \"get_straight\"\nplay { hand: 3 }\n";
    c.change(u, 2, text);
    let d = c.at("textDocument/definition", u, pos(text, "get_straight", 3));
    let gs_copy = d["uri"].as_str().unwrap().to_string();
    let in_copy = c.diagnostics(&gs_copy);
    assert!(in_copy.iter().any(|d| d["code"] == "unformable"), "{in_copy:?}");
    c.shutdown();
}

/// A client that is told to refresh inlay hints and code lenses.
fn refreshing_client() -> Client {
    Client::start_with(
        &[],
        json!({ "workspace": { "inlayHint": { "refreshSupport": true }, "codeLens": { "refreshSupport": true } } }),
    )
}

/// What `arbiter analyze` says of a bundled game.
fn analyze_lines(name: &str) -> Vec<(String, String)> {
    let loaded = arbiter::load::load_bundled(name).unwrap().unwrap();
    let compiled = arbiter::engines::compile(&loaded).0.unwrap();
    let a = compiled.game.analysis().unwrap();
    let opts =
        arbiter::game::AnalyzeOptions { samples: a.default_samples().unwrap_or(0), seed: 1, max_nodes: None, jobs: 1 };
    a.analyze(&opts, &mut |_, _| {})
}

/// After a save, the figures of `arbiter analyze` are computed off the
/// typing path: each pay-table row gets its share of the return as an
/// inlay hint, the file its return as a code lens; an edit makes them
/// stale until the next save or pause.
#[test]
fn figures_in_place_after_a_save() {
    let mut c = refreshing_client();
    let (u, text) = read("rules/get_straight.rules");
    c.open(&u, &text);
    c.notify("textDocument/didSave", json!({ "textDocument": { "uri": u } }));
    c.wait_for("an inlay hint refresh", |m| m["method"] == "workspace/inlayHint/refresh");
    let whole = json!({ "start": { "line": 0, "character": 0 }, "end": { "line": 999, "character": 0 } });
    let hints = c.request("textDocument/inlayHint", json!({ "textDocument": { "uri": u }, "range": whole }));
    let lines = analyze_lines("get_straight");
    // Each row of the table that a section of the file writes (not the
    // total).
    let rows: Vec<&(String, String)> = lines
        .iter()
        .filter(|(k, _)| k.starts_with(' ') && text.contains(&format!("combination \"{}\"", k.trim())))
        .collect();
    assert!(rows.len() >= 5, "{lines:?}");
    let hints = hints.as_array().unwrap();
    assert_eq!(hints.len(), rows.len(), "{hints:?}");
    for ((k, v), h) in rows.iter().map(|r| (r.0.trim(), &r.1)).zip(hints) {
        let label = h["label"].as_str().unwrap();
        let shown: String = v.split(" = ").next().unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(label, shown, "{k}");
        let line = pos(&text, &format!("combination \"{k}\""), 0).0;
        assert_eq!(h["position"]["line"], json!(line), "{k}");
    }
    let lenses = c.request("textDocument/codeLens", json!({ "textDocument": { "uri": u } }));
    let top = &lenses[0];
    let ret = lines.iter().find(|(k, _)| k == "return to player").unwrap();
    assert_eq!(top["command"]["title"], format!("return to player: {}", ret.1.split(" (").next().unwrap()));
    assert_eq!(top["range"]["start"]["line"], 0);
    // Stale after an edit.
    c.change(&u, 2, &format!("{text}\n"));
    let hints = c.request("textDocument/inlayHint", json!({ "textDocument": { "uri": u }, "range": whole }));
    assert_eq!(hints, json!([]));
    let lenses = c.request("textDocument/codeLens", json!({ "textDocument": { "uri": u } }));
    assert!(lenses[0]["command"]["title"].as_str().unwrap().starts_with("figures: computed after"), "{lenses}");
    c.shutdown();
}

/// Engines other than the exchange: their `analyze` headline.
#[test]
fn the_headline_of_other_engines() {
    let mut c = refreshing_client();
    let (u, text) = read("rules/shuffling_patience.rules");
    c.open(&u, &text);
    c.request("workspace/executeCommand", json!({ "command": "arbiter.analyze", "arguments": [u] }));
    c.wait_for("a code lens refresh", |m| m["method"] == "workspace/codeLens/refresh");
    let lenses = c.request("textDocument/codeLens", json!({ "textDocument": { "uri": u } }));
    let lines = analyze_lines("shuffling_patience");
    let (k, v) = lines.iter().find(|(_, v)| v.contains('%')).unwrap();
    assert_eq!(lenses[0]["command"]["title"], format!("{k}: {v}"));
    c.shutdown();
}

/// "Run examples" (a code lens, a command): a failing example comes back
/// as a diagnostic at its head, and goes with the next edit.
#[test]
fn run_examples_reports_failures_at_the_example() {
    let mut c = refreshing_client();
    let (u, text) = read("rules/get_straight.rules");
    let broken = text.replacen("    Stay\n", "    Exchange 2H\n", 1);
    assert_ne!(broken, text);
    c.open(&u, &broken);
    let lenses = c.request("textDocument/codeLens", json!({ "textDocument": { "uri": u } }));
    let run = lenses.as_array().unwrap().iter().find(|l| l["command"]["command"] == "arbiter.runExamples").unwrap();
    assert_eq!(run["command"]["title"], "▶ run examples");
    let cmd = &run["command"];
    c.request("workspace/executeCommand", json!({ "command": cmd["command"], "arguments": cmd["arguments"] }));
    let diags = c.diagnostics(&u);
    let d = diags.iter().find(|d| d["code"] == "example-fails").expect("the failing example");
    assert_eq!(d["range"]["start"]["line"], json!(pos(&broken, "example \"the statement's sample\"", 0).0));
    assert!(
        d["message"].as_str().unwrap().contains("-Exchange 2H") && d["message"].as_str().unwrap().contains("+Stay"),
        "{d}"
    );
    let lenses = c.request("textDocument/codeLens", json!({ "textDocument": { "uri": u } }));
    assert!(lenses.as_array().unwrap().iter().any(|l| l["command"]["title"].as_str().unwrap().starts_with("✗ fails")));
    // Fixed: the failure goes with the edit, and a run passes.
    assert!(c.change(&u, 2, &text).iter().all(|d| d["code"] != "example-fails"));
    c.request("workspace/executeCommand", json!({ "command": "arbiter.runExamples", "arguments": [u] }));
    // A run is published even when nothing fails.
    assert!(c.diagnostics(&u).iter().all(|d| d["code"] != "example-fails"));
    let lenses = c.request("textDocument/codeLens", json!({ "textDocument": { "uri": u } }));
    assert!(lenses.as_array().unwrap().iter().any(|l| l["command"]["title"].as_str().unwrap().starts_with("✓ passes")));
    c.shutdown();
}
