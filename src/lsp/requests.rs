//! Requests while the server runs: what it announces, and each answer,
//! computed at once from the buffer's current text and its latest
//! analysis (never waiting for a check to end).

use std::io::Write;

use lsp_server::{ErrorCode, Request, Response};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, CodeLensOptions, CompletionOptions,
    DocumentSymbolResponse, ExecuteCommandOptions, FoldingRangeProviderCapability, GotoDefinitionResponse,
    HoverProviderCapability, Location, OneOf, Position, RenameOptions, SemanticTokens, SemanticTokensFullOptions,
    SemanticTokensOptions, SemanticTokensResult, SemanticTokensServerCapabilities, ServerCapabilities,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions, TextEdit,
    WorkDoneProgressOptions, WorkspaceEdit, WorkspaceSymbolResponse,
};
use serde_json::Value;

use super::actions;
use super::analysis::Analysis;
use super::complete;
use super::features::{self, Locator};
use super::figures;
use super::outline;
use super::rename::{self, Occurrence, Target};
use super::scan::{Role, Scan};
use super::text::Positions;
use super::text::{lsp_uri, LineIndex};
use super::workspace::Document;
use super::workspace::FileText;
use super::Server;

/// A result as JSON (`serde` is reached through `serde_json` only).
macro_rules! json {
    ($e:expr) => {
        serde_json::to_value($e).unwrap_or(Value::Null)
    };
}

/// What the server announces in its `initialize` answer.
pub(super) fn capabilities() -> ServerCapabilities {
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
        workspace_symbol_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        inlay_hint_provider: Some(OneOf::Left(true)),
        code_lens_provider: Some(CodeLensOptions { resolve_provider: Some(false) }),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![figures::RUN_EXAMPLES.into(), figures::ANALYZE.into()],
            ..ExecuteCommandOptions::default()
        }),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, CodeActionKind::REFACTOR]),
            ..CodeActionOptions::default()
        })),
        folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
        semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
            SemanticTokensOptions {
                legend: outline::legend(),
                full: Some(SemanticTokensFullOptions::Bool(true)),
                range: None,
                ..SemanticTokensOptions::default()
            },
        )),
        ..ServerCapabilities::default()
    }
}

/// An error answer: its code and message.
type Failure = (ErrorCode, String);

/// Answers a request of a running server.
pub(super) fn answer<W: Write>(server: &Server<W>, req: Request) -> Response {
    let id = req.id.clone();
    let p = &req.params;
    // A buffer that is not a rule file (udev's, Snort's) is left alone.
    let named = p["textDocument"]["uri"].as_str().and_then(|u| server.ws.docs.get(u));
    if named.is_some_and(|d| d.foreign.is_some()) {
        return Response::new_ok(id, Value::Null);
    }
    let result = match req.method.as_str() {
        "textDocument/hover" => {
            at(server, p, |doc, loc, offset| Ok(json!(features::hover(loc, &doc.text, &doc.lines, offset))))
        }
        "textDocument/definition" => at(server, p, |doc, loc, offset| {
            Ok(json!(features::definition(loc, &doc.text, offset).map(GotoDefinitionResponse::Scalar)))
        }),
        "textDocument/completion" => {
            let snippets = server.client.snippets;
            at(server, p, |doc, _, offset| {
                Ok(json!(complete::completion(completing(doc), &doc.text, &doc.lines, offset, snippets)))
            })
        }
        "textDocument/codeAction" => document(server, p).and_then(|doc| {
            let range: lsp_types::Range = serde_json::from_value(p["range"].clone())
                .map_err(|e| (ErrorCode::InvalidParams, format!("`range`: {e}")))?;
            let analysis: &Analysis = doc.analysis.as_deref().unwrap_or_else(|| empty());
            let ws = &server.ws;
            let open = |p: &std::path::Path| ws.uri_of_file(p);
            let loc = Locator::new(analysis, &doc.uri).with_open(&open);
            Ok(json!(actions::code_actions(&loc, &doc.text, &doc.lines, range)))
        }),
        "textDocument/references" => at(server, p, |doc, loc, offset| {
            let with_declaration = p["context"]["includeDeclaration"].as_bool().unwrap_or(true);
            Ok(json!(references(server, doc, loc, offset, with_declaration)))
        }),
        "textDocument/prepareRename" => at(server, p, |doc, loc, offset| {
            prepare_rename(server, doc, loc, offset).map_err(|e| (ErrorCode::RequestFailed, e))
        }),
        "textDocument/rename" => {
            let new_name = p["newName"].as_str().unwrap_or_default().to_string();
            at(server, p, |doc, loc, offset| match rename(server, doc, loc, offset, &new_name) {
                Ok(edit) => Ok(json!(edit)),
                Err(e) => Err((ErrorCode::RequestFailed, e)),
            })
        }
        "workspace/symbol" => {
            let query = p["query"].as_str().unwrap_or_default();
            let docs = server.ws.docs.values().filter_map(|d| Some((d.uri.as_str(), d.analysis.as_deref()?)));
            Ok(json!(WorkspaceSymbolResponse::Nested(outline::workspace_symbols(docs, query))))
        }
        m if DOCUMENT_METHODS.contains(&m) => document(server, p).and_then(|doc| on_document(doc, m)),
        m => Err((ErrorCode::MethodNotFound, format!("unknown method {m}"))),
    };
    match result {
        Ok(v) => Response::new_ok(id, v),
        Err((code, message)) => Response::new_err(id, code as i32, message),
    }
}

/// A name, where it is written in the buffer, and the files of its chain
/// that write it, with where.
type Found = (Target, Occurrence, Vec<(FileText, Vec<Occurrence>)>);

/// The uses of names in a file of a chain, from its own analysis (the
/// open buffers standing for their files): each file is compiled alone,
/// so that a base's sections that a variant replaces are read too.
fn uses_of<W: Write>(server: &Server<W>, f: &FileText) -> rename::Uses {
    let path = f.path.as_ref()?;
    let overlay = |p: &std::path::Path| server.ws.open_text(&super::text::canonical(p));
    Analysis::with(path, &f.text, &server.opts, &overlay).buffer_uses()
}

/// The name at `offset` and every place it is written in the files of its
/// chain: (file, occurrences).
fn occurrences_of<W: Write>(server: &Server<W>, doc: &Document, loc: &Locator, offset: usize) -> Option<Found> {
    let engine = loc.analysis.engine;
    let defined = |w: &str| loc.analysis.names.iter().filter(|n| n.name == w).map(|n| n.kind).collect();
    let family = server.ws.family(doc);
    let here_uses = uses_of(server, &family[0]);
    let here_names = rename::Names { engine, text: &family[0].text, uses: &here_uses, defined: &defined };
    let (target, here) = rename::target_at(&here_names, offset)?;
    let mut found = Vec::new();
    for (i, f) in family.iter().enumerate() {
        let uses = if i == 0 { here_uses.clone() } else { uses_of(server, f) };
        let o = rename::occurrences(&rename::Names { engine, text: &f.text, uses: &uses, defined: &defined }, &target);
        if !o.is_empty() {
            found.push((f.clone(), o));
        }
    }
    Some((target, here, found))
}

fn references<W: Write>(
    server: &Server<W>,
    doc: &Document,
    loc: &Locator,
    offset: usize,
    with_declaration: bool,
) -> Vec<Location> {
    let Some((target, _, found)) = occurrences_of(server, doc, loc, offset) else { return Vec::new() };
    let defined = |text: &str, o: &Occurrence| {
        let scan = Scan::new(text);
        scan.at(o.start).is_some_and(|i| match scan.role(i).0 {
            Role::Label { .. } => true,
            Role::Value { key: Some(k), .. } => {
                let frames = scan.role(i).1;
                let section = frames.last().map_or("", |f| f.kind.as_str());
                features::key_schema(loc.analysis.engine, section, &k).is_some_and(|k| k.defines == Some(target.kind))
            }
            _ => false,
        })
    };
    let mut out = Vec::new();
    for (f, occ) in found {
        let Some(uri) = lsp_uri(&f.uri) else { continue };
        let lines = LineIndex::new(&f.text);
        for o in occ.iter().filter(|o| with_declaration || !defined(&f.text, o)) {
            out.push(Location { uri: uri.clone(), range: lines.range(o.start, o.end) });
        }
    }
    out
}

fn prepare_rename<W: Write>(server: &Server<W>, doc: &Document, loc: &Locator, offset: usize) -> Result<Value, String> {
    let Some((target, here, found)) = occurrences_of(server, doc, loc, offset) else { return Ok(Value::Null) };
    if let Some((f, _)) = found.iter().find(|(f, _)| f.read_only.is_some()) {
        return Err(format!("`{}` cannot be renamed: {}", target.name, f.read_only.clone().unwrap_or_default()));
    }
    Ok(serde_json::json!({ "range": doc.lines.range(here.start, here.end), "placeholder": target.name }))
}

// `WorkspaceEdit::changes` is keyed by `Uri`, which clippy takes for a
// mutable key (it caches its parse); its hash never changes.
#[allow(clippy::mutable_key_type)]
fn rename<W: Write>(
    server: &Server<W>,
    doc: &Document,
    loc: &Locator,
    offset: usize,
    new_name: &str,
) -> Result<WorkspaceEdit, String> {
    let (target, _, found) = occurrences_of(server, doc, loc, offset).ok_or("there is no name here to rename")?;
    if let Some((f, _)) = found.iter().find(|(f, _)| f.read_only.is_some()) {
        return Err(format!("`{}` cannot be renamed: {}", target.name, f.read_only.clone().unwrap_or_default()));
    }
    let bare = found.iter().any(|(_, o)| o.iter().any(|o| !o.quoted));
    rename::valid_new_name(new_name, bare)?;
    let mut changes = std::collections::HashMap::new();
    for (f, occ) in found {
        let uri = lsp_uri(&f.uri).ok_or_else(|| format!("`{}` is not a URI the protocol allows", f.uri))?;
        let lines = LineIndex::new(&f.text);
        let edits: Vec<TextEdit> = occ
            .iter()
            .map(|o| TextEdit { range: lines.range(o.start, o.end), new_text: new_name.to_string() })
            .collect();
        changes.insert(uri, edits);
    }
    Ok(WorkspaceEdit { changes: Some(changes), ..WorkspaceEdit::default() })
}

/// The requests about a whole buffer ([`on_document`]).
const DOCUMENT_METHODS: &[&str] = &[
    "textDocument/inlayHint",
    "textDocument/codeLens",
    "textDocument/documentSymbol",
    "textDocument/formatting",
    "textDocument/foldingRange",
    "textDocument/semanticTokens/full",
];

/// Requests about a whole buffer.
fn on_document(doc: &Document, method: &str) -> Result<Value, Failure> {
    Ok(match method {
        "textDocument/documentSymbol" => {
            json!(outline::symbols(&doc.text, &doc.lines).map(DocumentSymbolResponse::Nested))
        }
        "textDocument/formatting" => {
            json!(outline::formatting(&doc.text, &doc.lines).map_err(|e| (ErrorCode::RequestFailed, e))?)
        }
        "textDocument/foldingRange" => json!(outline::folding(&doc.text, &doc.lines)),
        "textDocument/semanticTokens/full" => json!(SemanticTokensResult::Tokens(SemanticTokens {
            result_id: None,
            data: outline::semantic_tokens(completing(doc), &doc.text, &doc.lines),
        })),
        "textDocument/inlayHint" => match (doc.current_figures(), &doc.analysis) {
            (Some(Some(f)), Some(a)) if a.text() == &*doc.text => json!(figures::inlay_hints(a, &doc.lines, f)),
            _ => Value::Array(Vec::new()),
        },
        "textDocument/codeLens" => {
            json!(figures::code_lenses(&doc.uri, &doc.text, &doc.lines, doc.current_figures(), doc.current_examples()))
        }
        _ => return Err((ErrorCode::MethodNotFound, format!("unknown method {method}"))),
    })
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
    f: impl FnOnce(&Document, &Locator, usize) -> Result<Value, Failure>,
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
    f(doc, &loc, offset)
}

/// The analysis completion reads: a buffer being typed often does not
/// load; then the last analysis that loaded (or the analysis of the text
/// without the line that does not parse).
fn completing(doc: &Document) -> &Analysis {
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
