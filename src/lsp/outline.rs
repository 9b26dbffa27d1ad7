//! The shape of a buffer: its outline (document symbols), folding ranges,
//! semantic tokens, the symbols of every open buffer (workspace symbols),
//! and formatting.

use lsp_types::{
    DocumentSymbol, FoldingRange, FoldingRangeKind, Location, OneOf, Position, Range, SemanticToken,
    SemanticTokenModifier, SemanticTokenType, SemanticTokensLegend, SymbolKind, TextEdit, WorkspaceSymbol,
};

use super::analysis::Analysis;
use super::features::{key_schema, section_schema};
use super::scan::{Role, Scan, Tok};
use super::text::{lsp_uri, LineIndex, Positions};
use crate::syntax::{Item, Property, Section};

/// The document's outline: sections, with their properties.
#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written.
pub fn symbols(text: &str, index: &LineIndex) -> Option<Vec<DocumentSymbol>> {
    let parsed = crate::syntax::parse(0, text).ok()?;
    fn prop(p: &Property, index: &LineIndex) -> DocumentSymbol {
        DocumentSymbol {
            name: p.key.name.clone(),
            detail: Some(crate::syntax::fmt::values_text(p)),
            kind: SymbolKind::PROPERTY,
            tags: None,
            deprecated: None,
            range: index.range(p.span.start as usize, p.span.end as usize),
            selection_range: index.range(p.key.span.start as usize, p.key.span.end as usize),
            children: None,
        }
    }
    fn section(s: &Section, index: &LineIndex) -> DocumentSymbol {
        let mut name = s.kind.name.clone();
        for l in &s.labels {
            name.push_str(&format!(" \"{}\"", l.value));
        }
        DocumentSymbol {
            name,
            detail: None,
            kind: if s.labels.is_empty() { SymbolKind::NAMESPACE } else { SymbolKind::STRUCT },
            tags: None,
            deprecated: None,
            range: index.range(s.span.start as usize, s.span.end as usize),
            selection_range: index.range(s.head.start as usize, s.head.end as usize),
            children: Some(items(&s.items, index)),
        }
    }
    fn items(items: &[Item], index: &LineIndex) -> Vec<DocumentSymbol> {
        items
            .iter()
            .map(|i| match i {
                Item::Property(p) => prop(p, index),
                Item::Section(s) => section(s, index),
            })
            .collect()
    }
    Some(items(&parsed, index))
}

/// The edit that puts the buffer in canonical layout, or the parse error.
pub fn formatting(text: &str, index: &LineIndex) -> Result<Vec<TextEdit>, String> {
    let formatted = crate::syntax::fmt::format(text).map_err(|d| d.message)?;
    if formatted == text {
        return Ok(Vec::new());
    }
    let end = index.position(text.len());
    Ok(vec![TextEdit { range: Range { start: Position::default(), end }, new_text: formatted }])
}

/// Folding ranges: sections over several lines, runs of comment lines,
/// strings over several lines.
pub fn folding(text: &str, lines: &LineIndex) -> Vec<FoldingRange> {
    let scan = Scan::new(text);
    let line = |offset: usize| lines.line_of(offset) as u32;
    let mut out = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut comments: Option<(u32, u32)> = None;
    let fold = |start: u32, end: u32, kind: FoldingRangeKind| FoldingRange {
        start_line: start,
        end_line: end,
        kind: Some(kind),
        ..FoldingRange::default()
    };
    for t in &scan.tokens {
        match t.tok {
            Tok::Open => open.push(t.start),
            Tok::Close => {
                let Some(start) = open.pop() else { continue };
                // The closing brace stays visible when it starts its line.
                let first_on_line = text[..t.start].rsplit('\n').next().is_some_and(|l| l.trim().is_empty());
                let end = line(t.start) - u32::from(first_on_line);
                if end > line(start) {
                    out.push(fold(line(start), end, FoldingRangeKind::Region));
                }
            }
            Tok::Comment => {
                let l = line(t.start);
                comments = match comments {
                    Some((a, b)) if b + 1 == l => Some((a, l)),
                    Some((a, b)) => {
                        if b > a {
                            out.push(fold(a, b, FoldingRangeKind::Comment));
                        }
                        Some((l, l))
                    }
                    None => Some((l, l)),
                };
            }
            Tok::Str if line(t.end) > line(t.start) => {
                out.push(fold(line(t.start), line(t.end), FoldingRangeKind::Region))
            }
            _ => {}
        }
    }
    if let Some((a, b)) = comments.filter(|(a, b)| b > a) {
        out.push(fold(a, b, FoldingRangeKind::Comment));
    }
    out.sort_by_key(|f| (f.start_line, f.end_line));
    out
}

/// The token types of [`semantic_tokens`], in the legend's order.
const TYPES: [SemanticTokenType; 9] = [
    SemanticTokenType::NAMESPACE,
    SemanticTokenType::PROPERTY,
    SemanticTokenType::STRING,
    SemanticTokenType::ENUM_MEMBER,
    SemanticTokenType::VARIABLE,
    SemanticTokenType::NUMBER,
    SemanticTokenType::COMMENT,
    SemanticTokenType::FUNCTION,
    SemanticTokenType::KEYWORD,
];

#[derive(Clone, Copy)]
enum Kind {
    Section = 0,
    Key = 1,
    Str = 2,
    Word = 3,
    Name = 4,
    Number = 5,
    Comment = 6,
    Call = 7,
    Keyword = 8,
}

/// Token modifiers: where a name is defined.
const DECLARATION: u32 = 1;

pub fn legend() -> SemanticTokensLegend {
    SemanticTokensLegend { token_types: TYPES.to_vec(), token_modifiers: vec![SemanticTokenModifier::DECLARATION] }
}

/// Semantic tokens of the whole buffer: section kinds, keys, labels (those
/// that name something as declarations), the words a key takes, names the
/// file and its bases define, numbers, calls, strings and comments.
pub fn semantic_tokens(a: &Analysis, text: &str, lines: &LineIndex) -> Vec<SemanticToken> {
    let scan = Scan::new(text);
    let mut raw: Vec<(usize, usize, Kind, u32)> = Vec::with_capacity(scan.tokens.len());
    scan.walk(|i, role, frames| {
        let t = scan.tokens[i];
        let section = frames.last().map_or("", |f| f.kind.as_str());
        let word = &text[t.start..t.end];
        let called = scan.tokens.get(i + 1).is_some_and(|n| n.start == t.end && text[n.start..].starts_with('('));
        let kind = match role {
            Role::Key(_) => Some((Kind::Key, 0)),
            Role::Kind(_) => Some((Kind::Section, 0)),
            Role::Label { kind, .. } => {
                let names = section_schema(a.engine, kind).and_then(|s| s.names).is_some();
                Some((if names { Kind::Name } else { Kind::Str }, DECLARATION))
            }
            Role::Value { string: true, .. } => Some((Kind::Str, 0)),
            Role::Value { .. } if word.starts_with(|c: char| c.is_ascii_digit()) => Some((Kind::Number, 0)),
            Role::Value { .. } if called => Some((Kind::Call, 0)),
            Role::Value { key, text: w, .. } => {
                let k = key.as_deref().and_then(|k| key_schema(a.engine, section, k));
                if k.is_some_and(|k| k.defines.is_some()) {
                    Some((Kind::Name, DECLARATION))
                } else if k.is_some_and(|k| k.words.iter().any(|(x, _)| x == w)) {
                    Some((Kind::Word, 0))
                } else if a.names.iter().any(|n| n.name == *w) {
                    Some((Kind::Name, 0))
                } else {
                    Some((Kind::Word, 0))
                }
            }
            Role::Other if t.tok == Tok::Comment => Some((Kind::Comment, 0)),
            Role::Other if t.tok == Tok::Word && word == "replace" => Some((Kind::Keyword, 0)),
            Role::Other => None,
        };
        if let Some((k, m)) = kind {
            raw.push((t.start, t.end, k, m));
        }
        true
    });
    encode(text, lines, &raw)
}

/// The protocol's relative encoding, a token over several lines cut into
/// one per line.
fn encode(text: &str, lines: &LineIndex, raw: &[(usize, usize, Kind, u32)]) -> Vec<SemanticToken> {
    let mut out = Vec::with_capacity(raw.len());
    let (mut prev_line, mut prev_start) = (0u32, 0u32);
    for &(start, end, kind, modifiers) in raw {
        let mut from = start;
        while from < end {
            let line = lines.line_of(from);
            let to = lines.line_range(line).1.min(end);
            let (a, b) = (lines.position(from), lines.position(to));
            if b.character > a.character {
                let delta_line = a.line - prev_line;
                let delta_start = if delta_line == 0 { a.character - prev_start } else { a.character };
                out.push(SemanticToken {
                    delta_line,
                    delta_start,
                    length: b.character - a.character,
                    token_type: kind as u32,
                    token_modifiers_bitset: modifiers,
                });
                (prev_line, prev_start) = (a.line, a.character);
            }
            from = if to < text.len() { to + 1 } else { end };
        }
    }
    out
}

/// The symbols of open buffers that match `query` (its characters in
/// order, in any case): named sections and the names they define.
pub fn workspace_symbols<'a>(docs: impl Iterator<Item = (&'a str, &'a Analysis)>, query: &str) -> Vec<WorkspaceSymbol> {
    let query: Vec<char> = query.to_lowercase().chars().collect();
    let matches = |name: &str| {
        let mut q = query.iter().peekable();
        for c in name.to_lowercase().chars() {
            if q.peek() == Some(&&c) {
                q.next();
            }
        }
        q.peek().is_none()
    };
    let mut out = Vec::new();
    for (uri, a) in docs {
        let Some(uri) = lsp_uri(uri) else { continue };
        let file = a.sources.file(0);
        for n in a.names.iter().filter(|n| n.span.file == 0 && matches(&n.name)) {
            out.push(WorkspaceSymbol {
                name: n.name.clone(),
                kind: SymbolKind::ENUM_MEMBER,
                tags: None,
                container_name: Some(n.kind.to_string()),
                location: OneOf::Left(Location {
                    uri: uri.clone(),
                    range: file.lines().range(n.span.start as usize, n.span.end as usize),
                }),
                data: None,
            });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out.truncate(1000);
    out
}
