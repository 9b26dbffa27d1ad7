//! A language-server client for the tests: it starts `arbiter lsp` and
//! speaks JSON-RPC to it over its stdin and stdout (Content-Length
//! framing), as an editor does. Shared by `tests/suite/lsp*.rs`.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

/// How long a test waits for an answer before it fails (a bound against
/// a hang, never a measure of speed).
pub const TIMEOUT: Duration = Duration::from_secs(60);

pub struct Client {
    pub child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Value>,
    next_id: i64,
    /// Messages received while waiting for something else.
    pub stash: Vec<Value>,
    /// Open documents and their versions (`change_or_open`).
    opened: Vec<(String, i32)>,
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `file:` URI of a path (made canonical when it exists).
pub fn uri(path: &Path) -> String {
    let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let mut out = String::from("file://");
    for b in path.to_str().unwrap().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A fresh folder of the system's temporary folder for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arbiter-lsp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.canonicalize().unwrap()
}

/// The framed bytes of a message body.
pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut v = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    v.extend_from_slice(body);
    v
}

fn read_messages(stdout: impl Read + Send + 'static, tx: std::sync::mpsc::Sender<Value>) {
    std::thread::spawn(move || {
        let mut r = BufReader::new(stdout);
        loop {
            let mut len = None;
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(n) = line.strip_prefix("Content-Length: ") {
                    len = n.parse::<usize>().ok();
                }
            }
            let mut body = vec![0; len.expect("a Content-Length header")];
            if r.read_exact(&mut body).is_err() {
                return;
            }
            if tx.send(serde_json::from_slice::<Value>(&body).expect("a JSON message")).is_err() {
                return;
            }
        }
    });
}

impl Client {
    /// Starts `arbiter [args] lsp` without initializing it.
    pub fn spawn(args: &[&str]) -> Client {
        // Read-only copies of bundled games go to a cache of the test's own.
        let cache = std::env::temp_dir().join(format!("arbiter-lsp-cache-{}", std::process::id()));
        let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .env("XDG_CACHE_HOME", &cache)
            .args(args)
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let (tx, rx) = channel();
        read_messages(child.stdout.take().unwrap(), tx);
        Client { child, stdin, rx, next_id: 0, stash: Vec::new(), opened: Vec::new() }
    }

    pub fn start() -> Client {
        Client::start_with(&[], json!({}))
    }

    /// Starts and initializes the server; returns the client once the
    /// server announced its capabilities.
    pub fn start_with(args: &[&str], capabilities: Value) -> Client {
        let mut c = Client::spawn(args);
        let init = c.request("initialize", json!({ "processId": null, "rootUri": null, "capabilities": capabilities }));
        assert_eq!(init["serverInfo"]["name"], "arbiter");
        c.notify("initialized", json!({}));
        c
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    pub fn send(&mut self, msg: Value) {
        let body = serde_json::to_string(&msg).unwrap();
        self.send_raw(&frame(body.as_bytes()));
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// The next message the server sends (stashed ones first).
    pub fn next_message(&mut self) -> Value {
        if !self.stash.is_empty() {
            return self.stash.remove(0);
        }
        self.rx.recv_timeout(TIMEOUT).expect("a message from the server")
    }

    /// Waits for the first message that `pred` accepts (stashed ones
    /// first); the others are kept.
    pub fn wait_for(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.stash.iter().position(&pred) {
            return self.stash.remove(i);
        }
        loop {
            let msg = self.rx.recv_timeout(TIMEOUT).unwrap_or_else(|_| panic!("no {what}"));
            if pred(&msg) {
                return msg;
            }
            self.stash.push(msg);
        }
    }

    /// The answer to request `id` (an error with a null id for bytes that
    /// were not a message is matched by `Value::Null`).
    pub fn answer(&mut self, id: Value) -> Value {
        self.wait_for(&format!("answer to {id}"), |m| m.get("method").is_none() && m["id"] == id)
    }

    /// Sends a request and returns its whole response.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        self.answer(json!(id))
    }

    /// Sends a request and returns its result (failing on an error).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let resp = self.call(method, params);
        assert!(resp.get("error").is_none(), "{method} failed: {resp}");
        resp["result"].clone()
    }

    /// The next diagnostics published for `uri`.
    pub fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        self.diagnostics_of(uri, None)
    }

    /// The next diagnostics published for `uri` (at `version`, if given).
    pub fn diagnostics_of(&mut self, uri: &str, version: Option<i64>) -> Vec<Value> {
        let msg = self.wait_for(&format!("diagnostics for {uri}"), |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && version.is_none_or(|v| m["params"]["version"] == json!(v))
        });
        msg["params"]["diagnostics"].as_array().unwrap().clone()
    }

    pub fn open(&mut self, uri: &str, text: &str) -> Vec<Value> {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "arbiter", "version": 1, "text": text } }),
        );
        self.diagnostics_of(uri, Some(1))
    }

    pub fn change(&mut self, uri: &str, version: i64, text: &str) -> Vec<Value> {
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "text": text }] }),
        );
        self.diagnostics_of(uri, Some(version))
    }

    /// Opens `uri` with `text`, or changes it to `text` when it is open.
    pub fn change_or_open(&mut self, uri: &str, text: &str) {
        match self.opened.iter().position(|(u, _)| u == uri) {
            Some(i) => {
                self.opened[i].1 += 1;
                let v = self.opened[i].1;
                self.change(uri, v.into(), text);
            }
            None => {
                self.opened.push((uri.to_string(), 1));
                self.open(uri, text);
            }
        }
    }

    /// The version `change_or_open` last gave `uri`.
    pub fn opened_version(&mut self, uri: &str) -> i64 {
        self.opened.iter().find(|(u, _)| u == uri).map_or(0, |(_, v)| (*v).into())
    }

    /// Records a version sent by hand for `change_or_open`.
    pub fn set_version(&mut self, uri: &str, v: i32) {
        if let Some(o) = self.opened.iter_mut().find(|(u, _)| u == uri) {
            o.1 = v;
        }
    }

    pub fn at(&mut self, method: &str, uri: &str, (line, character): (usize, usize)) -> Value {
        self.request(
            method,
            json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } }),
        )
    }

    /// Closes the server's input.
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// The server's exit status (it must exit within the time limit).
    pub fn exit_status(&mut self) -> ExitStatus {
        for _ in 0..3000 {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        panic!("the server did not exit");
    }

    /// `shutdown` then `exit`: the server exits with 0.
    pub fn shutdown(mut self) {
        let r = self.call("shutdown", Value::Null);
        assert!(r.get("error").is_none() && r["result"].is_null(), "{r}");
        self.notify("exit", Value::Null);
        let status = self.exit_status();
        assert_eq!(status.code(), Some(0), "the server exited with {status}");
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The line and UTF-16 column of the first `needle` in `text` (plus `skip`
/// characters).
pub fn pos(text: &str, needle: &str, skip: usize) -> (usize, usize) {
    let at = text.find(needle).unwrap_or_else(|| panic!("`{needle}` is not in the text")) + skip;
    let line = text[..at].matches('\n').count();
    let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    (line, text[start..at].encode_utf16().count())
}

/// A rule file of the repository: its URI and text.
pub fn read(rel: &str) -> (String, String) {
    let path = root().join(rel);
    (uri(&path), std::fs::read_to_string(&path).unwrap())
}
