//! `arbiter lsp`: a Language Server Protocol server over stdio.
//!
//! Each open buffer is analysed on open and on every change like `check`
//! analyses a file (its `extends:` chain read from its directory), and the
//! diagnostics are published: the buffer's own, and those located in its
//! base files, both where they are (under the base's URI) and on the
//! buffer's `extends:` line. Hover, completion and go to definition read
//! the engines' schemas (`engines::schema`) and the names the buffer and
//! its bases define; formatting is `arbiter fmt`.
//!
//! Positions are UTF-16 code units, as the protocol says by default.

pub mod analysis;
pub mod features;
pub mod scan;
pub mod text;

use std::collections::HashMap;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _, PublishDiagnostics,
};
use lsp_types::request::{Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest, Request as _};
use lsp_types::{
    CompletionOptions, Diagnostic, DocumentSymbolResponse, GotoDefinitionResponse, InitializeParams, OneOf,
    PublishDiagnosticsParams, ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind, Uri,
};

use analysis::Analysis;
use features::Locator;
use text::{uri_to_path, LineIndex};

/// An open buffer.
struct Document {
    text: String,
    version: i32,
    analysis: Analysis,
    /// The last analysis whose file loaded (names and engine for
    /// completion while the buffer does not parse).
    good: Option<Analysis>,
}

/// The server's state.
struct Server {
    docs: HashMap<Uri, Document>,
    /// Diagnostics published per URI, by the buffer whose analysis found
    /// them (a base file gets those of every open variant, and its own).
    published: HashMap<Uri, HashMap<Uri, Vec<Diagnostic>>>,
    snippets: bool,
}

/// Serves the protocol on stdin and stdout until the client exits.
pub fn serve() -> Result<(), String> {
    let (connection, io) = Connection::stdio();
    let caps = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(lsp_types::HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![":".into(), " ".into(), "\"".into()]),
            ..CompletionOptions::default()
        }),
        definition_provider: Some(OneOf::Left(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        ..ServerCapabilities::default()
    };
    let init = serde_json::json!({
        "capabilities": caps,
        "serverInfo": ServerInfo { name: "arbiter".into(), version: Some(env!("CARGO_PKG_VERSION").into()) },
    });
    let (id, params) = connection.initialize_start().map_err(|e| e.to_string())?;
    let params: InitializeParams = serde_json::from_value(params).map_err(|e| e.to_string())?;
    connection.initialize_finish(id, init).map_err(|e| e.to_string())?;
    let snippets = params
        .capabilities
        .text_document
        .and_then(|t| t.completion)
        .and_then(|c| c.completion_item)
        .and_then(|i| i.snippet_support)
        .unwrap_or(false);
    let mut server = Server { docs: HashMap::new(), published: HashMap::new(), snippets };
    server.run(&connection)?;
    drop(connection);
    io.join().map_err(|e| e.to_string())
}

impl Server {
    fn run(&mut self, conn: &Connection) -> Result<(), String> {
        for msg in &conn.receiver {
            match msg {
                Message::Request(req) => {
                    if conn.handle_shutdown(&req).map_err(|e| e.to_string())? {
                        return Ok(());
                    }
                    let resp = self.request(req);
                    conn.sender.send(Message::Response(resp)).map_err(|e| e.to_string())?;
                }
                Message::Notification(n) => {
                    for out in self.notification(n) {
                        conn.sender.send(Message::Notification(out)).map_err(|e| e.to_string())?;
                    }
                }
                Message::Response(_) => {}
            }
        }
        Ok(())
    }

    fn request(&mut self, req: Request) -> Response {
        let id = req.id.clone();
        let result = match req.method.as_str() {
            HoverRequest::METHOD => {
                self.on_position(req, |doc, loc, offset| serde_json::to_value(features::hover(loc, &doc.text, offset)))
            }
            GotoDefinition::METHOD => self.on_position(req, |doc, loc, offset| {
                serde_json::to_value(features::definition(loc, &doc.text, offset).map(GotoDefinitionResponse::Scalar))
            }),
            Completion::METHOD => {
                let snippets = self.snippets;
                self.on_position(req, move |doc, _, offset| {
                    // A buffer being typed often does not load: then the
                    // buffer without the cursor's line, else the last
                    // analysis that loaded.
                    let blanked = doc.analysis.items.is_none().then(|| {
                        let start = doc.text[..offset].rfind('\n').map_or(0, |n| n + 1);
                        let end = doc.text[offset..].find('\n').map_or(doc.text.len(), |n| offset + n);
                        let text = format!("{}{}", &doc.text[..start], &doc.text[end..]);
                        Analysis::new(&doc.analysis.path, &text)
                    });
                    let analysis = match (&blanked, &doc.good) {
                        (Some(b), _) if b.items.is_some() => b,
                        (Some(_), Some(good)) => good,
                        _ => &doc.analysis,
                    };
                    serde_json::to_value(features::completion(analysis, &doc.text, offset, snippets))
                })
            }
            DocumentSymbolRequest::METHOD => self.on_document(req, |doc| {
                Ok(serde_json::to_value(features::symbols(&doc.text).map(DocumentSymbolResponse::Nested)))
            }),
            Formatting::METHOD => {
                self.on_document(req, |doc| features::formatting(&doc.text).map(serde_json::to_value))
            }
            _ => {
                return Response::new_err(
                    id,
                    ErrorCode::MethodNotFound as i32,
                    format!("unknown method {}", req.method),
                )
            }
        };
        match result {
            Ok(Ok(v)) => Response::new_ok(id, v),
            Ok(Err(e)) => Response::new_err(id, ErrorCode::InternalError as i32, e.to_string()),
            Err((code, message)) => Response::new_err(id, code as i32, message),
        }
    }

    /// Runs `f` on the document a `textDocument/...` request names.
    fn on_document<T>(
        &self,
        req: Request,
        f: impl FnOnce(&Document) -> Result<T, String>,
    ) -> Result<T, (ErrorCode, String)> {
        let params: lsp_types::TextDocumentIdentifier = serde_json::from_value(req.params["textDocument"].clone())
            .map_err(|e| (ErrorCode::InvalidParams, e.to_string()))?;
        let doc = self.doc(&params.uri)?;
        f(doc).map_err(|e| (ErrorCode::RequestFailed, e))
    }

    /// Runs `f` at the position a request names (in bytes).
    fn on_position<T>(
        &self,
        req: Request,
        f: impl FnOnce(&Document, &Locator, usize) -> T,
    ) -> Result<T, (ErrorCode, String)> {
        let params: lsp_types::TextDocumentPositionParams =
            serde_json::from_value(req.params).map_err(|e| (ErrorCode::InvalidParams, e.to_string()))?;
        let uri = params.text_document.uri;
        let doc = self.doc(&uri)?;
        let offset = LineIndex::new(&doc.text).offset(&doc.text, params.position);
        let loc = Locator::new(&doc.analysis, &uri);
        Ok(f(doc, &loc, offset))
    }

    fn doc(&self, uri: &Uri) -> Result<&Document, (ErrorCode, String)> {
        self.docs.get(uri).ok_or_else(|| (ErrorCode::InvalidParams, format!("{} is not open", uri.as_str())))
    }

    fn notification(&mut self, n: Notification) -> Vec<Notification> {
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(n.params) else {
                    return Vec::new();
                };
                let d = p.text_document;
                self.update(d.uri, d.text, d.version)
            }
            DidChangeTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(n.params) else {
                    return Vec::new();
                };
                // Full synchronisation: the last change holds the whole text.
                let Some(change) = p.content_changes.into_iter().last() else { return Vec::new() };
                self.update(p.text_document.uri, change.text, p.text_document.version)
            }
            DidCloseTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(n.params) else {
                    return Vec::new();
                };
                self.docs.remove(&p.text_document.uri);
                self.publish(&p.text_document.uri, Vec::new())
            }
            _ => Vec::new(),
        }
    }

    /// Analyses a buffer's new text and publishes what changed.
    fn update(&mut self, uri: Uri, text: String, version: i32) -> Vec<Notification> {
        let path = uri_to_path(&uri).unwrap_or_else(|| {
            let name = uri.as_str().rsplit(['/', ':']).next().unwrap_or("untitled").to_string();
            std::env::current_dir().unwrap_or_default().join(name)
        });
        let analysis = Analysis::new(&path, &text);
        let previous = self.docs.remove(&uri);
        let good = match previous {
            Some(prev) if analysis.items.is_none() => {
                prev.analysis.items.is_some().then_some(prev.analysis).or(prev.good)
            }
            _ => None,
        };
        let doc = Document { text, version, analysis, good };
        let diags = features::diagnostics(&Locator::new(&doc.analysis, &uri), &doc.text);
        self.docs.insert(uri.clone(), doc);
        self.publish(&uri, diags)
    }

    /// Records the diagnostics one buffer's analysis found, per URI, and
    /// returns the notifications for every URI whose set changed.
    fn publish(&mut self, from: &Uri, found: Vec<(Uri, Vec<Diagnostic>)>) -> Vec<Notification> {
        let mut touched: Vec<Uri> = Vec::new();
        for (target, by) in self.published.iter_mut() {
            if by.remove(from).is_some() {
                touched.push(target.clone());
            }
        }
        for (target, diags) in found {
            self.published.entry(target.clone()).or_default().insert(from.clone(), diags);
            if !touched.contains(&target) {
                touched.push(target);
            }
        }
        if !touched.contains(from) {
            touched.push(from.clone());
        }
        touched
            .into_iter()
            .map(|uri| {
                let mut all: Vec<Diagnostic> = Vec::new();
                if let Some(by) = self.published.get(&uri) {
                    // The URI's own analysis first, then the variants'.
                    let mut sources: Vec<&Uri> = by.keys().collect();
                    sources.sort_by_key(|u| (*u != &uri, u.as_str().to_string()));
                    for s in sources {
                        for d in &by[s] {
                            if !all.iter().any(|a| a.range == d.range && a.code == d.code && a.message == d.message) {
                                all.push(d.clone());
                            }
                        }
                    }
                }
                let version = self.docs.get(&uri).map(|d| d.version);
                Notification::new(
                    PublishDiagnostics::METHOD.to_string(),
                    PublishDiagnosticsParams { uri, diagnostics: all, version },
                )
            })
            .collect()
    }
}
