//! `arbiter lsp` against a hostile client, over stdio: the attacks of
//! the third hardening round (rows LSP-0 to LSP-31 of its README), each
//! answered as the protocol and JSON-RPC say, the server still running.
//! Big inputs are generated here; nothing waits on the clock.

use crate::lsp_client;

use lsp_client::*;
use serde_json::{json, Value};

const SHUTDOWN: &[u8] = br#"{"jsonrpc":"2.0","id":99,"method":"shutdown"}"#;

/// The error answered to bytes that are not a message (id null).
fn error_for_bytes(c: &mut Client) -> i64 {
    let e = c.answer(Value::Null);
    e["error"]["code"].as_i64().unwrap()
}

/// LSP-0..2: headers with bare line feeds, without a length, with a
/// negative length; each answered, and the next message is read.
#[test]
fn broken_headers_are_answered_and_the_server_goes_on() {
    let mut c = Client::start();
    c.send_raw(b"Content-Length: 10\n\n{\"a\":1}   ");
    assert_eq!(error_for_bytes(&mut c), -32600, "a frame with bare LFs is read; its body is no request");
    c.send_raw(b"X-Foo: 1\r\n\r\n{}\n");
    assert_eq!(error_for_bytes(&mut c), -32700);
    c.send_raw(b"Content-Length: -5\r\n\r\n");
    assert_eq!(error_for_bytes(&mut c), -32700);
    let r = c.call("textDocument/frobnicate", json!({}));
    assert_eq!(r["error"]["code"], -32601);
    c.shutdown();
}

/// LSP-3/4: lengths of 10^15 and 3*10^9 are refused at once, before any of
/// the body arrives (nothing is allocated for it), and the body is skipped.
#[test]
fn a_length_over_the_limit_is_refused_before_the_body_arrives() {
    let mut c = Client::start();
    c.send_raw(b"Content-Length: 1000000000000000\r\n\r\n");
    assert_eq!(error_for_bytes(&mut c), -32600);
    c.close_input();
    assert_eq!(c.exit_status().code(), Some(1), "the input ended without shutdown");

    let mut c = Client::start();
    let n = 16 * 1024 * 1024 + 1;
    c.send_raw(format!("Content-Length: {n}\r\n\r\n").as_bytes());
    assert_eq!(error_for_bytes(&mut c), -32600);
    c.send_raw(&vec![b' '; n]);
    c.send_raw(&frame(SHUTDOWN));
    assert!(c.answer(json!(99))["result"].is_null(), "the body skipped, the next message read");
    c.notify("exit", Value::Null);
    assert_eq!(c.exit_status().code(), Some(0));
}

/// LSP-5/6/7: a body that is not JSON (small, or 10 MB), or not UTF-8:
/// a parse error each, and the open buffers are kept.
#[test]
fn bodies_that_are_not_json_are_parse_errors_and_buffers_survive() {
    let mut c = Client::start();
    let (u, text) = read("rules/get_straight.rules");
    c.open(&u, &text);
    c.send_raw(&frame(br#"{"jsonrpc": "2.0", "method": "#));
    assert_eq!(error_for_bytes(&mut c), -32700);
    let mut big = br#"{"x": ""#.to_vec();
    big.resize(10_000_000, b'A');
    c.send_raw(&frame(&big));
    assert_eq!(error_for_bytes(&mut c), -32700);
    let open = json!({"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{
        "uri": "file:///nowhere/u.rules","languageId":"arbiter","version":1,"text":"engine: exchange\nX"}}});
    let body = open.to_string().replace('X', "\u{1}").into_bytes();
    let body: Vec<u8> = body.into_iter().map(|b| if b == 1 { 0xff } else { b }).collect();
    c.send_raw(&frame(&body));
    assert_eq!(error_for_bytes(&mut c), -32700);
    let h = c.at("textDocument/hover", &u, pos(&text, "wrap:", 1));
    assert!(h["contents"]["value"].as_str().is_some(), "the open buffer survived: {h}");
    c.shutdown();
}

/// LSP-8: a lone surrogate in a document (JavaScript strings hold them)
/// becomes U+FFFD, one UTF-16 unit too: positions after it are right.
#[test]
fn a_lone_surrogate_in_a_document_keeps_positions() {
    let mut c = Client::start();
    let u = "file:///nowhere/s.rules";
    let body = format!(
        r#"{{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{{"textDocument":{{"uri":"{u}","languageId":"arbiter","version":1,"text":"engine: exchange\ngame: \"\ud800\" zzz: 1\n"}}}}}}"#
    );
    c.send_raw(&frame(body.as_bytes()));
    let diags = c.diagnostics_of(u, Some(1));
    let d = diags.iter().find(|d| d["code"] == "unknown-key").expect("zzz is reported");
    assert_eq!(d["range"]["start"], json!({ "line": 1, "character": 10 }));
    c.shutdown();
}

/// LSP-9..11: ids that are objects, null or fractions are invalid
/// requests (the id echoed when it is a number); the server goes on.
#[test]
fn requests_with_invalid_ids_are_invalid_requests() {
    let mut c = Client::start();
    for id in [json!({ "a": 1 }), Value::Null, json!(1.5), json!(4_294_967_296_i64)] {
        c.send(json!({ "jsonrpc": "2.0", "id": id, "method": "textDocument/hover", "params": {} }));
        let echoed = if id.is_number() { id.clone() } else { Value::Null };
        let e = c.answer(echoed);
        assert_eq!(e["error"]["code"], -32600, "{id}: {e}");
    }
    c.shutdown();
}

/// LSP-12..14 and the lifecycle: requests before `initialize` are
/// refused, notifications dropped; `initialize` is checked and answered
/// once; requests after `shutdown` are invalid; `exit` without `shutdown`
/// or a closed input is exit code 1, `exit` after it 0.
#[test]
fn the_lifecycle_is_the_protocols() {
    let mut c = Client::spawn(&[]);
    let r = c.call("textDocument/hover", json!({}));
    assert_eq!(r["error"]["code"], -32002);
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": "file:///x/a.rules", "text": "x", "version": 1 } }),
    );
    let r = c.call("initialize", json!({ "capabilities": 5 }));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let init = c.request("initialize", json!({ "capabilities": {} }));
    for cap in ["hoverProvider", "completionProvider", "definitionProvider", "textDocumentSync"] {
        assert!(!init["capabilities"][cap].is_null(), "{cap}: {init}");
    }
    // No `initialized` yet: requests are answered anyway.
    let r = c.call(
        "textDocument/hover",
        json!({ "textDocument": { "uri": "file:///x/a.rules" }, "position": { "line": 0, "character": 0 } }),
    );
    assert!(r["error"]["message"].as_str().unwrap().contains("not open"), "dropped before initialize: {r}");
    assert_eq!(c.call("initialize", json!({ "capabilities": {} }))["error"]["code"], -32600);
    c.notify("$/frobnicate", json!({}));
    assert!(c.call("shutdown", Value::Null)["result"].is_null());
    assert_eq!(c.call("textDocument/hover", json!({}))["error"]["code"], -32600);
    c.notify("exit", Value::Null);
    assert_eq!(c.exit_status().code(), Some(0));

    let mut c = Client::start();
    c.notify("exit", Value::Null);
    assert_eq!(c.exit_status().code(), Some(1), "exit without shutdown");
    let mut c = Client::start();
    c.close_input();
    assert_eq!(c.exit_status().code(), Some(1), "the input closed without shutdown");
}

/// LSP-15/16: positions anywhere (past lines, past the text, 2^32 - 1,
/// inside surrogate pairs) are answered; negative ones are invalid params.
#[test]
fn positions_anywhere_are_answered() {
    let mut c = Client::start();
    let u = "file:///nowhere/pf.rules";
    let text = "\u{feff}game: \"Gé𝄞t 🂡\"\r\nengine: exchange\r\ndeck {\r\n  ranks: A 2 3\t# ç𝄞\r\n  suits: S H\r\n}\rplay { hand: 2 }\ncombination \"é𝄞\" { pattern: any pays: 0 }\nx: \"\u{301}\u{200b}\u{202e}\"\n";
    c.open(u, text);
    for line in 0..12u64 {
        for ch in (0..45u64).chain([2u64.pow(31) - 1, 2u64.pow(32) - 1]) {
            for m in ["textDocument/hover", "textDocument/completion", "textDocument/definition"] {
                let r =
                    c.call(m, json!({ "textDocument": { "uri": u }, "position": { "line": line, "character": ch } }));
                assert!(r.get("error").is_none(), "{m} at {line}:{ch}: {r}");
            }
        }
    }
    let r = c.call(
        "textDocument/hover",
        json!({ "textDocument": { "uri": u }, "position": { "line": -1, "character": -5 } }),
    );
    assert_eq!(r["error"]["code"], -32602);
    c.shutdown();
}

/// LSP-17..19: a change with a range out of the text (clamped), a change
/// of a buffer never opened (ignored), a version of 2^31 (kept, and
/// published as written).
#[test]
fn odd_changes_and_versions() {
    let mut c = Client::start();
    let (u, text) = read("rules/get_straight.rules");
    c.open(&u, &text);
    let change = |range: Value, text: &str, version: Value| json!({ "textDocument": { "uri": u, "version": version }, "contentChanges": [{ "range": range, "text": text }] });
    let backwards = json!({ "start": { "line": 999, "character": 5 }, "end": { "line": 0, "character": 0 } });
    c.notify("textDocument/didChange", change(backwards, "", json!(2)));
    let d = c.diagnostics_of(&u, Some(2));
    assert!(d.iter().any(|d| d["code"] == "missing"), "the whole text replaced: {d:?}");
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": "file:///never.rules", "version": 5 }, "contentChanges": [{ "text": "x" }] }),
    );
    let big = 2_147_483_648_i64;
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": u, "version": big }, "contentChanges": [{ "text": "engine: nope\n" }] }),
    );
    let d = c.diagnostics_of(&u, Some(big));
    assert!(d.iter().any(|d| d["code"] == "unknown-name"), "{d:?}");
    c.shutdown();
}

/// LSP-20/21: a buffer over the size limit gets the file's diagnostic; a
/// line of 200 KB is answered anywhere.
#[test]
fn huge_buffers_and_lines_are_answered() {
    let mut c = Client::start();
    let u = "file:///nowhere/hd.rules";
    let text = format!("engine: exchange\n{}", "a: 1\n".repeat(400_000));
    let d = c.open(u, &text);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0]["code"], "too-large");
    let (gu, gs) = read("rules/get_straight.rules");
    let text = format!("{gs}x: {}\n", "a ".repeat(100_000));
    let line = text.lines().count() - 1;
    let d = c.open(&gu, &text);
    assert!(d.iter().any(|d| d["code"] == "unknown-key" && d["range"]["start"]["line"] == json!(line)), "{d:?}");
    c.at("textDocument/completion", &gu, (line, 900_000));
    c.at("textDocument/hover", &gu, (line, 150_000));
    c.shutdown();
}
