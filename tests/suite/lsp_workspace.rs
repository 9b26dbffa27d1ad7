//! `arbiter lsp` with many buffers and chains of `extends:`, over stdio:
//! rows LSP-22 to LSP-31 of the third hardening round (edits coalesced,
//! open buffers as the truth for bases, `--restrict-extends`, any URI,
//! diagnostics bounded as `check` bounds them), and the live workspace.
//! Nothing here waits on the clock: `shutdown` is answered once every
//! analysis under way is published, so the tests read what was published.

use crate::lsp_client;

use std::path::Path;

use lsp_client::*;
use serde_json::{json, Value};

/// Every `publishDiagnostics` received so far (after `shutdown`, all of
/// them), by URI, in order: (version, diagnostics).
fn published(c: &mut Client) -> Vec<(String, Value, Vec<Value>)> {
    let r = c.call("shutdown", Value::Null);
    assert!(r["result"].is_null(), "{r}");
    c.stash
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics")
        .map(|m| {
            let p = &m["params"];
            (p["uri"].as_str().unwrap().to_string(), p["version"].clone(), p["diagnostics"].as_array().unwrap().clone())
        })
        .collect()
}

fn last_for<'a>(all: &'a [(String, Value, Vec<Value>)], uri: &str) -> Option<&'a (String, Value, Vec<Value>)> {
    all.iter().rfind(|(u, _, _)| u == uri)
}

fn change_msg(uri: &str, version: i64, text: &str) -> Value {
    json!({ "jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "text": text }] } })
}

fn open_msg(uri: &str, text: &str) -> Value {
    json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": { "uri": uri, "languageId": "arbiter", "version": 1, "text": text } } })
}

/// LSP-22: twenty edits sent at once, then a hover: the hover is answered,
/// the last version is published, and versions are published in order
/// (a stale analysis is never published after a newer one).
#[test]
fn a_burst_of_edits_is_answered_and_ends_on_the_last_version() {
    let mut c = Client::start();
    let (u, gs) = read("rules/get_straight.rules");
    let text = format!("{gs}x: {}\n", "a ".repeat(20_000));
    c.open(&u, &text);
    let mut burst = Vec::new();
    for v in 2..22 {
        let body = change_msg(&u, v, &format!("{text}{}", "#".repeat(v as usize))).to_string();
        burst.extend(frame(body.as_bytes()));
    }
    c.send_raw(&burst);
    assert!(c.at("textDocument/hover", &u, pos(&gs, "engine:", 1)).is_object());
    let all = published(&mut c);
    let versions: Vec<i64> = all.iter().filter(|(x, _, _)| *x == u).map(|(_, v, _)| v.as_i64().unwrap()).collect();
    assert_eq!(versions.last(), Some(&21), "{versions:?}");
    assert!(versions.windows(2).all(|w| w[0] < w[1]), "{versions:?}");
}

/// LSP-23: three hundred buffers at once; each is published.
#[test]
fn many_buffers_are_each_published() {
    let mut c = Client::start();
    let (_, gs) = read("rules/get_straight.rules");
    let mut bytes = Vec::new();
    for i in 0..300 {
        let body = open_msg(&format!("file:///nowhere/m{i}.rules"), &gs.replace("Get Straight", &format!("G{i}")));
        bytes.extend(frame(body.to_string().as_bytes()));
    }
    c.send_raw(&bytes);
    assert!(c.at("textDocument/hover", "file:///nowhere/m0.rules", pos(&gs, "engine:", 1)).is_object());
    let all = published(&mut c);
    for i in 0..300 {
        let (_, _, d) = last_for(&all, &format!("file:///nowhere/m{i}.rules")).expect("published");
        assert!(d.is_empty(), "m{i}: {d:?}");
    }
}

/// LSP-24: a hundred variants of one base each break it the same way; the
/// base gets each problem once.
#[test]
fn many_variants_of_a_base_publish_each_problem_once() {
    let dir = scratch("variants");
    let (_, gs) = read("rules/get_straight.rules");
    std::fs::write(dir.join("base.rules"), &gs).unwrap();
    let mut c = Client::start();
    for i in 0..100 {
        let text = format!("extends: \"base.rules\"\nplay {{ hand: {} }}\n", 2 + i % 3);
        c.send(open_msg(&uri(&dir.join(format!("v{i}.rules"))), &text));
    }
    let all = published(&mut c);
    let (_, _, base) = last_for(&all, &uri(&dir.join("base.rules"))).expect("the base is published");
    let mut keys: Vec<String> = base.iter().map(|d| format!("{}{}", d["range"], d["message"])).collect();
    let n = keys.len();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), n, "{base:?}");
    assert!(n > 0 && n <= 51);
}

/// LSP-25 and the live workspace: an edited, unsaved base is what its
/// open variant is checked against, at the buffer's positions; a later
/// edit of the base re-publishes the variant; closing the base goes back
/// to the disk.
#[test]
fn an_open_base_is_the_truth_for_its_variants() {
    let dir = scratch("stale-base");
    let (_, gs) = read("rules/get_straight.rules");
    let (base, variant) = (dir.join("sb.rules"), dir.join("sv.rules"));
    std::fs::write(&base, &gs).unwrap();
    let (bu, vu) = (uri(&base), uri(&variant));
    let mut c = Client::start();
    c.open(&bu, &gs);
    let edited = format!("# a\n# b\n# c\n{gs}");
    c.change(&bu, 2, &edited);
    let d = c.open(&vu, "extends: \"sb.rules\"\nplay { hand: 3 }\n");
    assert!(d.iter().any(|d| d["code"] == "unformable"), "{d:?}");
    let line = pos(&edited, "combination \"Straight\"", 0).0;
    let in_base = c.diagnostics(&bu);
    assert!(
        in_base.iter().any(|d| d["code"] == "unformable" && d["range"]["start"]["line"] == json!(line)),
        "{in_base:?}"
    );
    // The base now has five-card hands of its own... made three: the
    // variant's problem goes, without the variant being touched.
    let fixed =
        edited.replace("hand: 5", "hand: 3").replace("combination \"Straight\"", "combination \"Was-Straight\"");
    let fixed = fixed.replace("pattern: run(5)", "pattern: run(3)");
    c.change(&bu, 3, &fixed);
    let after = c.diagnostics_of(&vu, Some(1));
    assert!(!after.iter().any(|d| d["message"].as_str().unwrap().contains("`Straight`")), "{after:?}");
    // Closed, the base is read from the disk again.
    c.notify("textDocument/didClose", json!({ "textDocument": { "uri": bu } }));
    let back = c.diagnostics_of(&vu, Some(1));
    assert!(back.iter().any(|d| d["message"].as_str().unwrap().contains("`Straight`")), "{back:?}");
    c.shutdown();
}

/// LSP-26: `--restrict-extends` is honoured: a base outside the folder is
/// refused, and go to definition does not lead there.
#[test]
fn restrict_extends_is_honoured() {
    let dir = scratch("restrict");
    std::fs::create_dir_all(dir.join("inside")).unwrap();
    std::fs::write(dir.join("secret.rules"), "engine: exchange\nsecret-key: \"hunter2\"\n").unwrap();
    let u = uri(&dir.join("inside/r.rules"));
    let text = "extends: \"../secret.rules\"\n";
    let mut c = Client::start_with(&["--restrict-extends"], json!({}));
    let d = c.open(&u, text);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["code"], "extends-path");
    assert!(!d[0]["message"].as_str().unwrap().contains("hunter2"));
    assert!(c.at("textDocument/definition", &u, (0, 12)).is_null());
    c.shutdown();
    // Without the flag, the same buffer reads its base.
    let mut c = Client::start();
    let d = c.open(&u, text);
    assert!(d.iter().any(|d| d["code"] == "unknown-key"), "{d:?}");
    assert!(c.at("textDocument/definition", &u, (0, 12)).is_object());
    c.shutdown();
}

/// LSP-27/28: two unsaved buffers that extend each other, and a chain of
/// forty files: each reported where it goes wrong, nothing loops.
#[test]
fn cycles_and_deep_chains_among_buffers() {
    let dir = scratch("chains");
    std::fs::write(dir.join("ca.rules"), "extends: \"cb.rules\"\n").unwrap();
    std::fs::write(dir.join("cb.rules"), "extends: \"ca.rules\"\n").unwrap();
    let mut c = Client::start();
    let d = c.open(&uri(&dir.join("ca.rules")), "extends: \"cb.rules\"\n# edited\n");
    assert!(
        d.iter().any(|d| d["code"] == "extends-cycle" && d["range"]["start"] == json!({"line":0,"character":9})),
        "{d:?}"
    );
    let (_, gs) = read("rules/get_straight.rules");
    std::fs::write(dir.join("c0.rules"), &gs).unwrap();
    for i in 1..40 {
        std::fs::write(dir.join(format!("c{i}.rules")), format!("extends: \"c{}.rules\"\n", i - 1)).unwrap();
    }
    for i in (0..40).rev() {
        let p = dir.join(format!("c{i}.rules"));
        c.send(open_msg(&uri(&p), &std::fs::read_to_string(&p).unwrap()));
    }
    let all = published(&mut c);
    let (_, _, d) = last_for(&all, &uri(&dir.join("c39.rules"))).expect("the end of the chain is published");
    assert!(d.iter().any(|d| d["code"] == "extends-cycle"), "more than 16: {d:?}");
    // c16 reaches c0 through sixteen `extends:`; c1's is the one too many.
    let (_, _, d) = last_for(&all, &uri(&dir.join("c1.rules"))).expect("published");
    assert!(d.iter().all(|d| d["message"] == "more than 16 files extend one another"), "{d:?}");
    let (_, _, d) = last_for(&all, &uri(&dir.join("c0.rules"))).expect("published");
    assert!(d.is_empty(), "{d:?}");
}

/// LSP-29: any URI a client sends names a buffer that is checked and
/// published under that URI (bases resolved only for local `file:` ones).
#[test]
fn any_uri_gets_diagnostics() {
    let mut c = Client::start();
    let uris = [
        "file:///%ZZ.rules",
        "file://evilhost/etc/x.rules",
        "http://x/y.rules",
        "untitled:Untitled-1",
        "file:///nowhere/%2e%2e/%2e%2e/q.rules",
        "file:",
        "a",
    ];
    for u in uris {
        let d = c.open(u, "extends: \"get_straight\"\nplay { hand: 3 }\n");
        assert!(d.iter().any(|d| d["code"] == "unformable"), "{u}: {d:?}");
    }
    c.shutdown();
}

/// LSP-30: a variant whose near-miss names are slow to suggest for: edits
/// while it is being checked cancel the stale checks; the last version is
/// published; requests are answered meanwhile.
#[test]
fn slow_checks_are_cancelled_by_newer_edits() {
    let dir = scratch("slow");
    let labels: Vec<String> =
        (0..60u32).map(|i| (0..400).map(|j| if (i * 7 + j * 13) % 3 == 0 { 'a' } else { 'b' }).collect()).collect();
    let mut base = String::from("engine: exchange\ndeck { ranks: A 2 3 4 5 6 7 8 9 T J Q K suits: S H D C }\n");
    base.push_str("play { hand: 5 exchange: 0..1 prefer: fewer-cards }\n");
    for l in &labels {
        base.push_str(&format!("combination \"{l}\" {{ pattern: kind(2) pays: 1 }}\n"));
    }
    base.push_str("output { stay: \"S\" exchange: \"E\" }\n");
    std::fs::write(dir.join("longbase.rules"), &base).unwrap();
    let mut text = String::from("extends: \"longbase.rules\"\n");
    for l in &labels[..20] {
        text.push_str(&format!("remove: combination \"{}c\"\n", &l[..l.len() - 1]));
    }
    let u = uri(&dir.join("lv.rules"));
    let mut c = Client::start();
    c.send(open_msg(&u, &text));
    for v in 2..6 {
        c.send(change_msg(&u, v, &format!("{text}#{v}\n")));
    }
    assert!(c.at("textDocument/hover", &u, (0, 2)).is_object(), "answered while checking");
    let all = published(&mut c);
    let (_, v, d) = last_for(&all, &u).expect("published");
    assert_eq!(v, &json!(5));
    assert_eq!(d.iter().filter(|d| d["code"] == "unknown-name").count(), 20, "{d:?}");
}

/// LSP-31: 40,000 problems on one line cost what 50 do: the first 50 are
/// published with a note saying how many more there are.
#[test]
fn many_problems_on_one_line_are_capped_like_check() {
    let mut c = Client::start();
    let text = format!("engine: exchange\n{}\n", "a: ".repeat(40_000));
    let u = "file:///nowhere/md.rules";
    let d = c.open(u, &text);
    assert_eq!(d.len(), 51);
    let note = &d[50];
    assert_eq!(note["code"], "too-many-diagnostics");
    let loaded = arbiter::load::load_text("md.rules", &text, Path::new("/nowhere"));
    let total = match loaded {
        Ok(l) => arbiter::engines::compile(&l).1.len(),
        Err(e) => e.diags.len(),
    };
    assert!(note["message"].as_str().unwrap().starts_with(&format!("{} more", total - 50)), "{note}");
    c.shutdown();
}

/// A base on disk that changes (a watched file) re-checks its open
/// variants; the server asks to watch rule files when the client can.
#[test]
fn a_watched_base_that_changes_re_checks_its_variants() {
    let dir = scratch("watched");
    let (_, gs) = read("rules/get_straight.rules");
    let base = dir.join("base.rules");
    std::fs::write(&base, &gs).unwrap();
    let caps = json!({ "workspace": { "didChangeWatchedFiles": { "dynamicRegistration": true } } });
    let mut c = Client::start_with(&[], caps);
    let reg = c.wait_for("a registration", |m| m["method"] == "client/registerCapability");
    let watcher = &reg["params"]["registrations"][0];
    assert_eq!(watcher["method"], "workspace/didChangeWatchedFiles");
    assert_eq!(watcher["registerOptions"]["watchers"][0]["globPattern"], "**/*.rules");
    let vu = uri(&dir.join("v.rules"));
    assert!(c.open(&vu, "extends: \"base.rules\"\nplay { hand: 5 }\n").is_empty());
    std::fs::write(&base, gs.replace("hand: 5", "hand: 5 zzz: 1")).unwrap();
    c.notify("workspace/didChangeWatchedFiles", json!({ "changes": [{ "uri": uri(&base), "type": 2 }] }));
    let d = c.diagnostics_of(&vu, Some(1));
    assert!(d.iter().any(|d| d["code"] == "unknown-key"), "{d:?}");
    c.shutdown();
}

/// udev's and Snort's `.rules` files are left alone: no diagnostics, no
/// answers; a buffer that turns into one loses its diagnostics.
#[test]
fn udev_and_snort_rules_are_left_alone() {
    let mut c = Client::start();
    let udev = "# a USB stick\nSUBSYSTEM==\"usb\", ATTR{idVendor}==\"1d6b\", MODE=\"0666\"\n";
    let u = "file:///etc/udev/rules.d/99-usb.rules";
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": u, "languageId": "arbiter", "version": 1, "text": udev } }),
    );
    assert_eq!(c.diagnostics(u), Vec::<Value>::new());
    assert!(c.at("textDocument/hover", u, (1, 2)).is_null());
    assert!(c.request("textDocument/documentSymbol", json!({ "textDocument": { "uri": u } })).is_null());
    let s = "file:///etc/snort/rules/local.rules";
    assert!(c.open(s, "engine: exchange\n").iter().any(|d| d["code"] == "missing"));
    let snort = "alert tcp any any -> any 80 (msg:\"x\"; sid:1000001;)\n";
    assert_eq!(c.change(s, 2, snort), Vec::<Value>::new());
    c.shutdown();
}
