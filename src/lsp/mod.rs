//! `arbiter lsp`: a Language Server Protocol server over stdio.
//!
//! Three threads: one reads messages (`transport`: bounded framing, every
//! malformed message answered with a JSON-RPC error), one checks buffers
//! (`worker`: one job per buffer at a time, stale jobs cancelled), and the
//! message loop here, which owns the open buffers (`workspace`), answers
//! requests at once from the latest analysis, and publishes diagnostics
//! (`diagnostics`) when an analysis of a buffer's current text ends.
//!
//! Each buffer is checked as `check` checks a file, its `extends:` chain
//! read from its directory, with open buffers standing for their files: a
//! change to a base re-checks its open variants. Positions are UTF-16 code
//! units, as the protocol says by default.

pub mod actions;
pub mod analysis;
mod bundled;
pub mod complete;
pub mod detect;
pub mod diagnostics;
pub mod features;
pub mod figures;
pub mod outline;
pub mod rename;
mod requests;
pub mod scan;
pub mod text;
pub mod transport;
mod worker;
mod workspace;

use std::io::{BufRead, Write};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use lsp_server::{ErrorCode, Message, Notification, Request, Response};
use serde_json::Value;

use crate::load::LoadOptions;
use diagnostics::Publisher;
use transport::{Incoming, Reader};
use worker::{Done, Report, Worker};
use workspace::{Change, Workspace};

/// How the server ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// `exit` after `shutdown` (or the end of the input after `shutdown`):
    /// exit code 0, as the protocol says.
    Clean,
    /// `exit` without `shutdown`, or the client went away: exit code 1.
    Abrupt(String),
}

/// What the message loop waits for.
enum Event {
    Client(Incoming),
    Done(Report),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Phase {
    /// Before `initialize`.
    Waiting,
    Running,
    /// `shutdown` received: its answer waits until the buffers' analyses
    /// are published.
    Stopping(lsp_server::RequestId),
    /// After `shutdown`: only `exit` is expected.
    ShutDown,
}

/// What the client said it can do.
#[derive(Debug, Default, Clone, Copy)]
struct Client {
    snippets: bool,
    /// It registers file watchers when asked (`workspace/didChangeWatchedFiles`).
    watch: bool,
    /// It asks again for inlay hints and code lenses when told to.
    refresh_hints: bool,
    refresh_lenses: bool,
}

/// The server's state.
struct Server<W: Write> {
    out: W,
    /// The first error writing to the client (it is gone).
    broken: Option<String>,
    opts: LoadOptions,
    phase: Phase,
    client: Client,
    ws: Workspace,
    published: Publisher,
    worker: Worker,
    /// Ids of the requests the server sends.
    next_id: i32,
    /// When a buffer was last opened or changed (figures wait for a pause).
    last_edit: Instant,
}

/// How long typing must pause before figures are computed.
const PAUSE: Duration = Duration::from_millis(700);

/// Serves the protocol over any stream until the client exits (`arbiter
/// lsp`: stdin and stdout).
pub fn serve_on<R: BufRead + Send + 'static, W: Write>(input: R, out: W, opts: LoadOptions) -> Ended {
    let (tx, rx) = channel();
    spawn_reader(input, tx.clone());
    let worker = Worker::start(move |done| {
        let _ = tx.send(Event::Done(done));
    });
    let mut server = Server {
        out,
        broken: None,
        opts,
        phase: Phase::Waiting,
        client: Client::default(),
        ws: Workspace::default(),
        published: Publisher::default(),
        worker,
        next_id: 0,
        last_edit: Instant::now(),
    };
    let ended = server.run(&rx);
    server.worker.close();
    ended
}

fn spawn_reader<R: BufRead + Send + 'static>(input: R, tx: Sender<Event>) {
    std::thread::Builder::new()
        .name("arbiter-lsp-reader".into())
        .spawn(move || {
            let mut reader = Reader::new(input);
            loop {
                let m = reader.read();
                let eof = matches!(m, Incoming::Eof);
                if tx.send(Event::Client(m)).is_err() || eof {
                    return;
                }
            }
        })
        .expect("a thread can be started");
}

/// Events handled between two scheduling rounds at most (so that a client
/// that never pauses still gets its buffers checked).
const BATCH: usize = 256;

impl<W: Write> Server<W> {
    fn run(&mut self, rx: &Receiver<Event>) -> Ended {
        loop {
            // Waiting for a pause in typing when figures are due.
            let pause = self.ws.figures_pending().then(|| PAUSE.saturating_sub(self.last_edit.elapsed()));
            let first = match pause {
                Some(wait) => match rx.recv_timeout(wait) {
                    Ok(ev) => Some(ev),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => return self.abrupt("the input ended"),
                },
                None => match rx.recv() {
                    Ok(ev) => Some(ev),
                    Err(_) => return self.abrupt("the input ended"),
                },
            };
            let mut next = first;
            let mut n = 0;
            // Everything already queued first: edits coalesce.
            while let Some(ev) = next.take() {
                if let Some(end) = self.event(ev) {
                    return end;
                }
                if let Some(e) = self.broken.take() {
                    return Ended::Abrupt(e);
                }
                n += 1;
                if n < BATCH {
                    next = rx.try_recv().ok();
                }
            }
            for job in self.ws.jobs(self.opts) {
                self.worker.submit(job);
            }
            let paused = self.last_edit.elapsed() >= PAUSE;
            for job in self.ws.figures_jobs(self.opts, paused) {
                self.worker.submit(job);
            }
            if let Phase::Stopping(id) = &self.phase {
                if !self.ws.busy() {
                    let resp = Response::new_ok(id.clone(), Value::Null);
                    self.phase = Phase::ShutDown;
                    self.send(Message::Response(resp));
                }
            }
        }
    }

    fn abrupt(&self, why: &str) -> Ended {
        match self.phase {
            Phase::ShutDown | Phase::Stopping(_) => Ended::Clean,
            _ => Ended::Abrupt(format!("{why} without a `shutdown` request")),
        }
    }

    fn send(&mut self, msg: Message) {
        if self.broken.is_none() {
            if let Err(e) = transport::write(&mut self.out, msg) {
                self.broken = Some(format!("cannot write to the client: {e}"));
            }
        }
    }

    fn event(&mut self, ev: Event) -> Option<Ended> {
        match ev {
            Event::Done(Report::Checked(done)) => {
                self.finished(done);
                None
            }
            Event::Done(Report::Extra(extra)) => {
                self.finished_extra(extra);
                None
            }
            Event::Client(Incoming::Eof) => Some(self.abrupt("the input ended")),
            Event::Client(Incoming::Invalid { id, code, message }) => {
                eprintln!("arbiter lsp: {message}");
                if self.broken.is_none() {
                    if let Err(e) = transport::write_invalid(&mut self.out, id, code, &message) {
                        self.broken = Some(format!("cannot write to the client: {e}"));
                    }
                }
                None
            }
            Event::Client(Incoming::Message(Message::Request(req))) => {
                if let Some(resp) = self.request(req) {
                    self.send(Message::Response(resp));
                }
                None
            }
            Event::Client(Incoming::Message(Message::Notification(n))) => self.notification(n),
            Event::Client(Incoming::Message(Message::Response(_))) => None,
        }
    }

    /// The lifecycle: `initialize` first, requests while running, only
    /// errors after `shutdown` (answered once the analyses under way are
    /// published).
    fn request(&mut self, req: Request) -> Option<Response> {
        let err = |code: ErrorCode, msg: &str| Response::new_err(req.id.clone(), code as i32, msg.to_string());
        Some(match (&self.phase, req.method.as_str()) {
            (Phase::Waiting, "initialize") => self.initialize(req),
            (Phase::Waiting, _) => err(ErrorCode::ServerNotInitialized, "the server is not initialized yet"),
            (Phase::ShutDown | Phase::Stopping(_), _) => {
                err(ErrorCode::InvalidRequest, "the server is shut down: only `exit` may follow")
            }
            (Phase::Running, "initialize") => err(ErrorCode::InvalidRequest, "the server is initialized already"),
            (Phase::Running, "shutdown") => {
                self.phase = Phase::Stopping(req.id);
                return None;
            }
            (Phase::Running, "workspace/executeCommand") => {
                let command = req.params["command"].as_str().unwrap_or_default().to_string();
                let uri = req.params["arguments"][0].as_str().map(str::to_string);
                match self.command(&command, uri.as_deref()) {
                    Ok(v) => Response::new_ok(req.id, v),
                    Err((code, message)) => Response::new_err(req.id, code as i32, message),
                }
            }
            (Phase::Running, _) => requests::answer(self, req),
        })
    }

    fn initialize(&mut self, req: Request) -> Response {
        let params: lsp_types::InitializeParams = match serde_json::from_value(req.params) {
            Ok(p) => p,
            Err(e) => return Response::new_err(req.id, ErrorCode::InvalidParams as i32, e.to_string()),
        };
        let caps = params.capabilities;
        let text = caps.text_document.as_ref();
        self.client.snippets = text
            .and_then(|t| t.completion.as_ref())
            .and_then(|c| c.completion_item.as_ref())
            .and_then(|i| i.snippet_support)
            .unwrap_or(false);
        let ws = caps.workspace.as_ref();
        self.client.watch =
            ws.and_then(|w| w.did_change_watched_files).and_then(|w| w.dynamic_registration).unwrap_or(false);
        self.client.refresh_hints =
            ws.and_then(|w| w.inlay_hint.as_ref()).and_then(|h| h.refresh_support).unwrap_or(false);
        self.client.refresh_lenses =
            ws.and_then(|w| w.code_lens.as_ref()).and_then(|c| c.refresh_support).unwrap_or(false);
        self.phase = Phase::Running;
        let result = serde_json::json!({
            "capabilities": requests::capabilities(),
            "serverInfo": { "name": "arbiter", "version": env!("CARGO_PKG_VERSION") },
        });
        Response::new_ok(req.id, result)
    }

    fn notification(&mut self, n: Notification) -> Option<Ended> {
        if n.method == "exit" {
            return Some(match self.phase {
                Phase::ShutDown | Phase::Stopping(_) => Ended::Clean,
                _ => Ended::Abrupt("`exit` without a `shutdown` request".into()),
            });
        }
        if self.phase != Phase::Running {
            return None;
        }
        let p = &n.params;
        let uri = p["textDocument"]["uri"].as_str();
        match (n.method.as_str(), uri) {
            ("initialized", _) => self.watch_files(),
            ("textDocument/didOpen", Some(uri)) => {
                let text = p["textDocument"]["text"].as_str()?;
                self.ws.open(uri, text.to_string(), version(&p["textDocument"]["version"]));
                self.last_edit = Instant::now();
                self.leave_alone(uri);
            }
            ("textDocument/didChange", Some(uri)) => {
                let changes = changes(&p["contentChanges"]);
                if self.ws.change(uri, changes, version(&p["textDocument"]["version"])) {
                    self.last_edit = Instant::now();
                    self.forget_examples(uri);
                    self.leave_alone(uri);
                }
            }
            ("textDocument/didSave", Some(uri)) => {
                self.ws.touched(uri);
                self.ws.ask_figures(uri);
            }
            ("textDocument/didClose", Some(uri)) if self.ws.close(uri) => {
                let touched = self.published.record(uri, None);
                self.publish(touched, None);
            }
            ("workspace/didChangeWatchedFiles", _) => {
                for change in p["changes"].as_array().into_iter().flatten() {
                    if let Some(path) = change["uri"].as_str().and_then(text::uri_to_path) {
                        self.ws.file_changed(&path);
                    }
                }
            }
            _ => {}
        }
        None
    }

    /// Asks the client to report changes to rule files on disk.
    fn watch_files(&mut self) {
        if !self.client.watch {
            return;
        }
        self.next_id += 1;
        let params = serde_json::json!({ "registrations": [{
            "id": "arbiter-rules-files",
            "method": "workspace/didChangeWatchedFiles",
            "registerOptions": { "watchers": [{ "globPattern": "**/*.rules" }] },
        }]});
        let req = Request { id: self.next_id.into(), method: "client/registerCapability".into(), params };
        self.send(Message::Request(req));
    }

    /// An analysis ended: its diagnostics are published when it is of the
    /// buffer's current text.
    fn finished(&mut self, done: Done) {
        let uri = done.uri.clone();
        let Some(doc) = self.ws.finished(done) else { return };
        let Some(analysis) = doc.analysis.clone() else { return };
        let ws = &self.ws;
        let open = |p: &std::path::Path| ws.uri_of_file(p);
        let loc = features::Locator::new(&analysis, &uri).with_open(&open);
        let found = diagnostics::diagnostics(&loc);
        let touched = self.published.record(&uri, Some(found));
        self.publish(touched, Some(&uri));
    }

    /// A figures or examples job ended: examples' failures are published
    /// as diagnostics; the client is asked to show the new figures.
    fn finished_extra(&mut self, extra: figures::Extra) {
        let task = extra.task;
        let uri = extra.uri.clone();
        let Some(doc) = self.ws.finished_extra(extra) else { return };
        if task == worker::Task::Examples {
            let runs = doc.current_examples().unwrap_or_default();
            let found = figures::example_diagnostics(&doc.lines, runs);
            let touched = self.published.record(&examples_source(&uri), Some(vec![(uri.clone(), found)]));
            // Always, so that a run that finds nothing wrong is seen to end.
            self.publish(touched, Some(&uri));
        }
        let refresh = [
            (self.client.refresh_lenses, "workspace/codeLens/refresh"),
            (self.client.refresh_hints && task == worker::Task::Figures, "workspace/inlayHint/refresh"),
        ];
        for (wanted, method) in refresh {
            if wanted {
                self.next_id += 1;
                let req = Request { id: self.next_id.into(), method: method.into(), params: Value::Null };
                self.send(Message::Request(req));
            }
        }
    }

    /// A buffer that is not a rule file has no diagnostics.
    fn leave_alone(&mut self, uri: &str) {
        if self.ws.docs.get(uri).is_some_and(|d| d.foreign.is_some()) {
            let touched = self.published.record(uri, None);
            self.publish(touched, Some(uri));
        }
    }

    /// The examples' failures of a buffer go when its text changes (with
    /// the diagnostics of its next check).
    fn forget_examples(&mut self, uri: &str) {
        let key = examples_source(uri);
        if self.published.has(&key) {
            self.published.record(&key, None);
        }
    }

    /// Runs a command of the server's (`workspace/executeCommand`).
    fn command(&mut self, command: &str, uri: Option<&str>) -> Result<Value, (ErrorCode, String)> {
        let uri = uri.filter(|u| self.ws.docs.contains_key(*u));
        let Some(uri) = uri else {
            return Err((ErrorCode::InvalidParams, "the argument is an open document's URI".into()));
        };
        match command {
            figures::RUN_EXAMPLES => {
                let job = self.ws.extra_job(uri, worker::Task::Examples, self.opts);
                job.into_iter().for_each(|j| self.worker.submit(j));
            }
            figures::ANALYZE => self.ws.ask_figures(uri),
            other => return Err((ErrorCode::InvalidParams, format!("unknown command `{other}`"))),
        }
        Ok(Value::Null)
    }

    /// Publishes the diagnostics of the files whose sets changed, and
    /// always those of `analysed`.
    fn publish(&mut self, touched: Vec<String>, analysed: Option<&str>) {
        for uri in touched {
            let version = self.ws.docs.get(&uri).and_then(|d| d.version.clone());
            if let Some(n) = self.published.publish(&uri, version.as_ref(), analysed == Some(uri.as_str())) {
                self.send(Message::Notification(n));
            }
        }
    }
}

/// The key under which the examples' failures of a buffer are published.
fn examples_source(uri: &str) -> String {
    format!("{uri}#examples")
}

/// A document version as the client wrote it (any integer).
fn version(v: &Value) -> Option<Value> {
    (v.is_i64() || v.is_u64()).then(|| v.clone())
}

/// The content changes of a `didChange`.
fn changes(v: &Value) -> Vec<Change> {
    let mut out = Vec::new();
    for c in v.as_array().into_iter().flatten() {
        let Some(text) = c["text"].as_str() else { continue };
        let range = serde_json::from_value::<lsp_types::Range>(c["range"].clone()).ok();
        out.push(Change { range, text: text.to_string() });
    }
    out
}
