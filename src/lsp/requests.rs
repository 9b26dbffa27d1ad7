//! Requests while the server runs: what it announces, and each answer,
//! computed at once from the buffer's current text and its latest
//! analysis (never waiting for a check to end).

use std::io::Write;

use lsp_server::{ErrorCode, Request, Response};
use lsp_types::{
    CompletionOptions, DocumentSymbolResponse, GotoDefinitionResponse, HoverProviderCapability, OneOf, Position,
    ServerCapabilities, TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions,
};
use serde_json::Value;

use super::analysis::Analysis;
use super::features::{self, Locator};
use super::text::Positions;
use super::workspace::Document;
use super::Server;

/// A result as JSON (`serde` is reached through `serde_json` only).
macro_rules! json {
    ($e:expr) => {
        serde_json::to_value($e).unwrap_or(Value::Null)
    };
}

/// What the server announces in its `initialize` answer.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::FULL),
            save: Some(TextDocumentSyncSaveOptions::Supported(true)),
            ..TextDocumentSyncOptions::default()
        })),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![":".into(), " ".into(), "\"".into()]),
            ..CompletionOptions::default()
        }),
        definition_provider: Some(OneOf::Left(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        ..ServerCapabilities::default()
    }
}

/// An error answer: its code and message.
type Failure = (ErrorCode, String);

/// Answers a request of a running server.
pub(super) fn answer<W: Write>(server: &Server<W>, req: Request) -> Response {
    let id = req.id.clone();
    let result = match req.method.as_str() {
        "textDocument/hover" => {
            at(server, &req.params, |doc, loc, offset| json!(features::hover(loc, &doc.text, &doc.lines, offset)))
        }
        "textDocument/definition" => at(server, &req.params, |doc, loc, offset| {
            json!(features::definition(loc, &doc.text, offset).map(GotoDefinitionResponse::Scalar))
        }),
        "textDocument/completion" => {
            let snippets = server.client.snippets;
            at(server, &req.params, |doc, _, offset| {
                json!(features::completion(completing(doc, offset), &doc.text, offset, snippets))
            })
        }
        "textDocument/documentSymbol" => document(server, &req.params)
            .map(|doc| json!(features::symbols(&doc.text, &doc.lines).map(DocumentSymbolResponse::Nested))),
        "textDocument/formatting" => document(server, &req.params)
            .and_then(|doc| features::formatting(&doc.text, &doc.lines).map_err(|e| (ErrorCode::RequestFailed, e)))
            .map(|v| json!(v)),
        _ => Err((ErrorCode::MethodNotFound, format!("unknown method {}", req.method))),
    };
    match result {
        Ok(v) => Response::new_ok(id, v),
        Err((code, message)) => Response::new_err(id, code as i32, message),
    }
}

/// The open buffer a `textDocument/...` request names.
pub(super) fn document<'s, W: Write>(server: &'s Server<W>, params: &Value) -> Result<&'s Document, Failure> {
    let Some(uri) = params["textDocument"]["uri"].as_str() else {
        return Err((ErrorCode::InvalidParams, "expected `textDocument.uri`".into()));
    };
    server.ws.docs.get(uri).ok_or_else(|| (ErrorCode::InvalidParams, format!("{uri} is not open")))
}

/// Runs `f` at the position a request names (as a byte offset).
fn at<W: Write>(
    server: &Server<W>,
    params: &Value,
    f: impl FnOnce(&Document, &Locator, usize) -> Value,
) -> Result<Value, Failure> {
    let doc = document(server, params)?;
    let pos: Position = serde_json::from_value(params["position"].clone())
        .map_err(|e| (ErrorCode::InvalidParams, format!("`position`: {e}")))?;
    let offset = doc.lines.offset(pos);
    let analysis: &Analysis = match &doc.analysis {
        Some(a) => a,
        None => empty(),
    };
    let ws = &server.ws;
    let open = |p: &std::path::Path| ws.uri_of_file(p);
    let loc = Locator::new(analysis, &doc.uri).with_open(&open);
    Ok(f(doc, &loc, offset))
}

/// The analysis completion reads: a buffer being typed often does not
/// load; then the last analysis that loaded (or the analysis of the text
/// without the line that does not parse).
fn completing(doc: &Document, _offset: usize) -> &Analysis {
    match (&doc.analysis, &doc.good) {
        (Some(a), _) if a.items.is_some() => a,
        (_, Some(good)) => good,
        (Some(a), None) => a,
        (None, None) => empty(),
    }
}

fn empty() -> &'static Analysis {
    static EMPTY: std::sync::OnceLock<Analysis> = std::sync::OnceLock::new();
    EMPTY.get_or_init(|| Analysis::new(std::path::Path::new("untitled.rules"), ""))
}
