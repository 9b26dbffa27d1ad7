//! Rule-file text to AST. Parse errors are reported in the language's own
//! words ("expected a value or `}`"), never as grammar rule names.

use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::{Pair, Pairs};
use pest::pratt_parser::{Assoc, Op, PrattParser};
use pest::Parser;
use pest_derive::Parser;

use super::ast::*;
use crate::diag::codes;
use crate::diag::Diag;
use crate::source::{FileId, Span};

#[derive(Parser)]
#[grammar = "../grammar/arbiter.pest"]
struct Grammar;

/// Deepest nesting of brackets accepted (a guard against stack exhaustion).
pub const MAX_NESTING: usize = 64;
/// Most prefix operators (`-`, `not`) in a row.
pub const MAX_PREFIX_RUN: usize = 16;
/// Deepest expression tree accepted: a chain `a + b + ...` of N operators is
/// N deep, and brackets, calls and lists add theirs. Every pass over an
/// expression (formatting, compiling, lowering, dropping) recurses on its
/// depth, so this bound keeps them all within the stack.
pub const MAX_EXPR_DEPTH: usize = 256;
/// The parser's budget of grammar calls per byte of one top-level item
/// (plus [`CALLS_PER_ITEM`]). The bundled rule files need 5 to 9 per byte;
/// the most a valid file was measured to need is about 100 (a long list of
/// one-letter words).
pub const CALLS_PER_BYTE: usize = 250;
/// The parser's fixed budget per top-level item.
pub const CALLS_PER_ITEM: usize = 200_000;
/// Largest rule file accepted, in bytes.
pub const MAX_FILE_SIZE: usize = 1 << 20;
/// Top-level items are parsed in groups of at least this many bytes (each
/// with its own budget), so that the budget never scales with the file.
const CHUNK: usize = 4096;

/// Rule-file text as the parser wants it: a UTF-8 byte order mark at the
/// start removed, and every line ending (`\r\n`, or a lone `\r` as old Mac
/// editors write) made `\n`. Loaders call this once, and every span then
/// refers to the normalized text (lines and columns are unchanged).
pub fn normalize(text: String) -> String {
    let text = match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    };
    if !text.contains('\r') {
        return text;
    }
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Parses one rule file (already [`normalize`]d). On a syntax error returns
/// the one diagnostic pest can give (the furthest failure), in the
/// language's words.
pub fn parse(file: FileId, text: &str) -> Result<Vec<Item>, Diag> {
    if text.len() > MAX_FILE_SIZE {
        return Err(Diag::error(
            codes::TOO_LARGE,
            Span::new(file, 0, 0),
            // Files are read up to a byte past the limit: their size beyond
            // it is not known here.
            format!("rule file is larger than {MAX_FILE_SIZE} bytes, the limit"),
        )
        .label("file starts here"));
    }
    let (chunks, starts) = scan(file, text)?;
    let mut b = Builder { file, base: 0, pratt: pratt() };
    let mut items = Vec::new();
    for (from, to) in chunks {
        crate::cancel::point();
        let pairs = parse_chunk(file, text, from, to, &starts)?;
        b.base = from;
        for p in pairs {
            if p.as_rule() != Rule::EOI {
                items.push(b.item(p)?);
            }
        }
    }
    Ok(items)
}

/// pest's work budget is process-wide: set it and parse under one lock, so
/// that concurrent parses (tests, threads) never see each other's budget.
static PARSING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Parses the top-level items in `text[from..to]` with a budget of work
/// proportional to that part alone. `starts`: where top-level items start.
fn parse_chunk<'t>(
    file: FileId,
    text: &'t str,
    from: usize,
    to: usize,
    starts: &[usize],
) -> Result<Pairs<'t, Rule>, Diag> {
    let chunk = &text[from..to];
    let parsed = {
        let _guard = PARSING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        pest::set_call_limit(std::num::NonZeroUsize::new(CALLS_PER_BYTE * chunk.len() + CALLS_PER_ITEM));
        Grammar::parse(Rule::file, chunk)
    };
    let mut pairs = parsed.map_err(|e| {
        let pos = from
            + match e.location {
                InputLocation::Pos(p) => p,
                InputLocation::Span((s, _)) => s,
            };
        match e.variant {
            ErrorVariant::CustomError { ref message } if message.contains("limit") => {
                // The item the parser was in: the last that starts before
                // where it got to.
                let item = starts[..starts.partition_point(|&s| s <= pos)].last().map_or(from, |&s| s.max(from));
                too_complex(file, text, item, pos)
            }
            _ => syntax_error(file, text, pos, e),
        }
    })?;
    let root = pairs.next().expect("the file rule always yields one pair");
    Ok(root.into_inner())
}

/// The parser ran out of budget (or of stack) in the item that starts at
/// `from`, having got as far as `pos`.
fn too_complex(file: FileId, text: &str, from: usize, pos: usize) -> Diag {
    // The item's first non-blank, non-comment text.
    let mut start = from;
    let bytes = text.as_bytes();
    while start < pos {
        match bytes[start] {
            b' ' | b'\t' | b'\n' => start += 1,
            b'#' => start = text[start..].find('\n').map_or(text.len(), |n| start + n),
            _ => break,
        }
    }
    let start = start.min(pos);
    let line_end = text[start..].find('\n').map_or(text.len(), |n| start + n);
    let d = Diag::error(
        codes::TOO_COMPLEX,
        Span::new(file, start, line_end.min(start + 40)),
        "this is too complex to parse",
    )
    .label("the parser gave up in the item that starts here");
    let d = if pos > start { d.note(Span::new(file, pos, pos), "it had got this far") } else { d };
    d.help(format!(
        "the parser does at most {CALLS_PER_BYTE} steps per byte of an item; look for long runs of unclosed or deeply \
         nested brackets and calls, or of `-` that can be read two ways (`a - f(...)`)"
    ))
}

fn pratt() -> PrattParser<Rule> {
    PrattParser::new()
        .op(Op::infix(Rule::or, Assoc::Left))
        .op(Op::infix(Rule::and, Assoc::Left))
        .op(Op::prefix(Rule::not))
        .op(Op::infix(Rule::eq, Assoc::Left)
            | Op::infix(Rule::ne, Assoc::Left)
            | Op::infix(Rule::lt, Assoc::Left)
            | Op::infix(Rule::le, Assoc::Left)
            | Op::infix(Rule::gt, Assoc::Left)
            | Op::infix(Rule::ge, Assoc::Left)
            | Op::infix(Rule::in_, Assoc::Left)
            | Op::infix(Rule::not_in, Assoc::Left))
        .op(Op::infix(Rule::add, Assoc::Left) | Op::infix(Rule::sub, Assoc::Left))
        .op(Op::infix(Rule::mul, Assoc::Left) | Op::infix(Rule::div, Assoc::Left) | Op::infix(Rule::rem, Assoc::Left))
        .op(Op::prefix(Rule::neg))
        .op(Op::postfix(Rule::field))
}

/// One pass over the text before pest sees it: rejects bracket nesting
/// deeper than [`MAX_NESTING`] (pest's parser is recursive) and strings
/// that are never closed, and cuts the text into groups of top-level items,
/// each parsed with its own budget. Returns the groups' byte ranges, and
/// where top-level items start (in order).
fn scan(file: FileId, text: &str) -> Result<Scanned, Diag> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut chunks = Vec::new();
    let mut chunk_start = 0;
    let mut starts = vec![0];
    // Where the next group may start: the end of a top-level section, or a
    // top-level `key:` (a value never starts with one).
    let mut cut = |at: usize, chunks: &mut Vec<(usize, usize)>, chunk_start: &mut usize| {
        starts.push(at);
        if at - *chunk_start >= CHUNK {
            chunks.push((*chunk_start, at));
            *chunk_start = at;
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                i = memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |n| i + n);
                continue;
            }
            b'"' => {
                i = string_end(bytes, i).ok_or_else(|| unclosed_string(file, text, i))?;
                continue;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(Diag::error(
                        codes::TOO_DEEP,
                        Span::new(file, i, i + 1),
                        format!("brackets nested more than {MAX_NESTING} deep"),
                    )
                    .label("this bracket is too deep")
                    .help("split the expression or the section into smaller ones"));
                }
            }
            b')' | b']' => depth = depth.saturating_sub(1),
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    cut(i + 1, &mut chunks, &mut chunk_start);
                }
            }
            c if depth == 0 && (c.is_ascii_alphabetic() || c == b'_') && (i == 0 || starts_item(bytes[i - 1])) => {
                let mut j = i + 1;
                while j < bytes.len() && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'_' || bytes[j] == b'-') {
                    j += 1;
                }
                let mut k = j;
                while k < bytes.len() && matches!(bytes[k], b' ' | b'\t' | b'\n') {
                    k += 1;
                }
                if k < bytes.len() && bytes[k] == b':' {
                    cut(i, &mut chunks, &mut chunk_start);
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    chunks.push((chunk_start, bytes.len()));
    Ok((chunks, starts))
}

/// What [`scan`] finds: the byte ranges of the groups of top-level items,
/// and where each top-level item starts.
type Scanned = (Vec<(usize, usize)>, Vec<usize>);

/// Whether a top-level `key:` may start right after this byte.
fn starts_item(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'}' | b'"')
}

/// The index just past the string literal that starts at `i`, `None`
/// when it is never closed (a `"` string must close on its line).
fn string_end(bytes: &[u8], mut i: usize) -> Option<usize> {
    if bytes[i..].starts_with(b"\"\"\"") {
        let body = &bytes[i + 3..];
        return memchr::memmem::find(body, b"\"\"\"").map(|n| i + 3 + n + 3);
    }
    i += 1;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return Some(i + 1),
            b'\n' => return None,
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    None
}

fn unclosed_string(file: FileId, text: &str, at: usize) -> Diag {
    let long = text[at..].starts_with("\"\"\"");
    let line_end = text[at..].find('\n').map_or(text.len(), |n| at + n);
    if long {
        Diag::error(codes::UNCLOSED_STRING, Span::new(file, at, at + 3), "this triple-quoted string is never closed")
            .label("the string opens here")
            .help("a triple-quoted string ends with `\"\"\"`")
    } else {
        let end = line_end.min(at + 1 + text[at + 1..line_end].chars().take(40).map(char::len_utf8).sum::<usize>());
        Diag::error(codes::UNCLOSED_STRING, Span::new(file, at, end), "this string is not closed on its line")
            .label("the string opens here and runs to the end of the line")
            .help("close it with `\"`; text over several lines goes in a triple-quoted string `\"\"\"...\"\"\"`")
    }
}

/// The index just past the string literal that starts at `i` (a `"` or
/// `"""`), or the end of its line when it is not closed. Shared by the
/// scans that must not look inside strings (nesting guard, formatter).
pub fn skip_string(bytes: &[u8], mut i: usize) -> usize {
    if bytes[i..].starts_with(b"\"\"\"") {
        i += 3;
        while i < bytes.len() && !bytes[i..].starts_with(b"\"\"\"") {
            i += 1;
        }
        return (i + 3).min(bytes.len());
    }
    i += 1;
    while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
        i += if bytes[i] == b'\\' { 2 } else { 1 };
    }
    (i + 1).min(bytes.len())
}

/// The user's word for what a grammar rule stands for.
fn describe(rule: &Rule) -> &'static str {
    match rule {
        Rule::EOI => "end of file",
        Rule::file | Rule::item => "a property or a section",
        Rule::section | Rule::section_head => "a section",
        Rule::property => "a property",
        Rule::key => "a name",
        Rule::label | Rule::string => "a string",
        Rule::value | Rule::expr | Rule::postfix | Rule::primary => "a value",
        Rule::call => "a call",
        Rule::paren => "`(`",
        Rule::list => "a list",
        Rule::range => "a range",
        Rule::field => "`.field`",
        Rule::prefix | Rule::neg | Rule::not => "`-` or `not`",
        Rule::infix
        | Rule::add
        | Rule::sub
        | Rule::mul
        | Rule::div
        | Rule::rem
        | Rule::eq
        | Rule::ne
        | Rule::le
        | Rule::ge
        | Rule::lt
        | Rule::gt
        | Rule::and
        | Rule::or
        | Rule::in_
        | Rule::not_in => "an operator",
        Rule::replace => "`replace`",
        Rule::word | Rule::word_only | Rule::keyword | Rule::word_char => "a name",
        Rule::number => "a number",
        Rule::inner | Rule::long_inner => "string text",
        Rule::long_quote => "`\"\"\"`",
        Rule::WHITESPACE | Rule::COMMENT | Rule::comment => "a space",
    }
}

/// The diagnostic for pest's furthest failure, at `pos` in `text`.
fn syntax_error(file: FileId, text: &str, pos: usize, e: pest::error::Error<Rule>) -> Diag {
    let found = found_at(text, pos);
    let mut expected: Vec<&str> = match &e.variant {
        ErrorVariant::ParsingError { positives, .. } => positives.iter().map(describe).collect(),
        ErrorVariant::CustomError { .. } => Vec::new(),
    };
    expected.sort_unstable();
    expected.dedup();
    // After a name, pest only lists the rules it tried (section labels);
    // the literal `:` of a property and `{` of a section matter as much.
    if expected == ["a string"] {
        expected = vec!["`:`", "`{`", "a section label (a string)"];
    }
    // What can follow inside a section is always "a property or a section";
    // a bare `}` is the other way out.
    let list = match expected.len() {
        0 => "something else".to_string(),
        1 => expected[0].to_string(),
        n => format!("{} or {}", expected[..n - 1].join(", "), expected[n - 1]),
    };
    let len = found.len().max(text.get(pos..).and_then(|r| r.chars().next()).map_or(0, char::len_utf8));
    let shown = if found.is_empty() { "end of file".to_string() } else { format!("`{}`", visible(&found)) };
    let mut d = Diag::error(codes::SYNTAX, Span::new(file, pos, pos + len), format!("expected {list}, found {shown}"))
        .label(format!("expected {list} here"));
    if let Some(c) = found.chars().find(|&c| invisible(c)) {
        d = d.help(format!(
            "the file holds an invisible character here, U+{:04X}{}: delete it",
            c as u32,
            if c == '\u{feff}' { " (a byte order mark)" } else { "" }
        ));
    } else if let Some(h) = syntax_help(text, pos, &found) {
        d = d.help(h);
    }
    d
}

/// The text at `pos` up to the next whitespace, at most 20 characters.
fn found_at(text: &str, pos: usize) -> String {
    let rest = text.get(pos..).unwrap_or("");
    let tok: String = rest.chars().take_while(|c| !c.is_whitespace()).take(20).collect();
    tok
}

/// Characters a reader cannot see: control characters, byte order marks,
/// zero-width and direction marks.
pub fn invisible(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{feff}' | '\u{00ad}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2069}')
}

/// `text` with every invisible character written as its escape (`\u{feff}`).
pub fn visible(text: &str) -> String {
    if !text.chars().any(invisible) {
        return text.to_string();
    }
    text.chars().map(|c| if invisible(c) { c.escape_unicode().to_string() } else { c.to_string() }).collect()
}

fn syntax_help(text: &str, pos: usize, found: &str) -> Option<String> {
    let before = text.get(..pos).unwrap_or("").trim_end();
    if let Some(n) = negative_number(found) {
        return Some(format!(
            "`-{n}` against its digits is a negative number, a value of its own; a subtraction has spaces on both \
             sides: `- {n}`"
        ));
    }
    if found.starts_with('"') && before.ends_with(|c: char| c.is_alphanumeric()) {
        return Some("section labels are strings written after the kind: `kind \"name\" { ... }`".into());
    }
    if found.starts_with('{') {
        return Some("a section is written `kind \"label\" { ... }`; a property is written `key: value`".into());
    }
    if found.is_empty() {
        return Some(match unclosed_brace(text) {
            Some((line, head)) => format!("is a `}}` missing? The `{{` of `{head}` on line {line} is never closed"),
            None => "is a `}` missing?".into(),
        });
    }
    if before.ends_with(':') || found.starts_with(':') {
        return Some("a property is written `key: value ...`".into());
    }
    None
}

/// The innermost `{` that no `}` closes (strings and comments skipped): its
/// line (from 1) and the text before it on that line (`section "x"`).
fn unclosed_brace(text: &str) -> Option<(usize, String)> {
    let bytes = text.as_bytes();
    let mut open = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => i += bytes[i..].iter().position(|&b| b == b'\n').unwrap_or(bytes.len() - i),
            b'"' if bytes[i..].starts_with(b"\"\"\"") => {
                i += 3 + text[i + 3..].find("\"\"\"").map_or(bytes.len(), |e| e + 3);
                continue;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'{' => open.push(i),
            b'}' => {
                open.pop();
            }
            _ => {}
        }
        i += 1;
    }
    let at = *open.last()?;
    let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let head = text[line_start..at].trim();
    let head = if head.is_empty() { "the section" } else { head };
    Some((text[..at].matches('\n').count() + 1, head.chars().take(40).collect()))
}

/// The digits of a negative number that `found` starts with (`-3` gives
/// `3`).
fn negative_number(found: &str) -> Option<&str> {
    let rest = found.strip_prefix('-')?;
    let digits = &rest[..rest.bytes().take_while(u8::is_ascii_digit).count()];
    (!digits.is_empty()).then_some(digits)
}

struct Builder {
    file: FileId,
    /// Offset of the parsed part in the file.
    base: usize,
    pratt: PrattParser<Rule>,
}

type Res<T> = Result<T, Diag>;

/// An expression and the depth of its tree (0 for a number or a word, one
/// more for each operator, call or list above).
type Deep = (Expr, usize);

impl Builder {
    fn span(&self, p: &Pair<Rule>) -> Span {
        let s = p.as_span();
        Span::new(self.file, self.base + s.start(), self.base + s.end())
    }

    /// The error for an expression deeper than [`MAX_EXPR_DEPTH`], at the
    /// operator that crossed the bound.
    fn too_deep(&self, at: Span) -> Diag {
        Diag::error(codes::TOO_DEEP, at, format!("this expression is more than {MAX_EXPR_DEPTH} operators deep"))
            .label("the bound is crossed here")
            .help(format!(
                "a chain `a + b + ...` may have at most {MAX_EXPR_DEPTH} operators (brackets, calls and lists nested \
                 in it count too): split it, or write a list"
            ))
    }

    /// `e` at `depth`, or the error when that is too deep.
    fn deep(&self, e: Expr, depth: usize, at: Span) -> Res<Deep> {
        if depth > MAX_EXPR_DEPTH {
            Err(self.too_deep(at))
        } else {
            Ok((e, depth))
        }
    }

    fn ident(&self, p: Pair<Rule>) -> Ident {
        Ident { name: p.as_str().to_string(), span: self.span(&p) }
    }

    fn item(&self, p: Pair<Rule>) -> Res<Item> {
        let span = self.span(&p);
        match p.as_rule() {
            Rule::property => {
                let mut inner = p.into_inner();
                let key = self.ident(inner.next().expect("property has a key"));
                let values = inner.map(|v| self.expr(v)).collect::<Res<Vec<_>>>()?;
                let span = values.last().map_or(key.span, |v| key.span.to(v.span));
                Ok(Item::Property(Property { key, values, span }))
            }
            Rule::section => {
                let mut replace = false;
                let mut kind = None;
                let mut labels = Vec::new();
                let mut items = Vec::new();
                let mut head = span;
                for q in p.into_inner() {
                    match q.as_rule() {
                        Rule::replace => replace = true,
                        Rule::key => {
                            head = self.span(&q);
                            kind = Some(self.ident(q));
                        }
                        Rule::string => {
                            head = head.to(self.span(&q));
                            let s = self.string(q)?;
                            labels.push(Label { value: s.value, span: s.raw_span });
                        }
                        _ => items.push(self.item(q)?),
                    }
                }
                let kind = kind.expect("section has a kind");
                Ok(Item::Section(Section { kind, labels, items, replace, head, span }))
            }
            r => unreachable!("item rule {r:?}"),
        }
    }

    fn expr(&self, p: Pair<Rule>) -> Res<Expr> {
        self.expr_deep(p).map(|(e, _)| e)
    }

    fn expr_deep(&self, p: Pair<Rule>) -> Res<Deep> {
        // Guard the Pratt parser's recursion on runs of prefix operators.
        let mut run = 0;
        for q in p.clone().into_inner() {
            if matches!(q.as_rule(), Rule::neg | Rule::not) {
                run += 1;
                if run > MAX_PREFIX_RUN {
                    return Err(Diag::error(codes::TOO_DEEP, self.span(&q), "too many `-` or `not` in a row")
                        .label("one too many"));
                }
            } else {
                run = 0;
            }
        }
        // Not the pair's own span, which may end in whitespace pest skipped:
        // the folded expression's span is exact.
        self.pratt_expr(p.into_inner())
    }

    fn pratt_expr(&self, pairs: Pairs<Rule>) -> Res<Deep> {
        self.pratt
            .map_primary(|p| self.primary(p))
            .map_prefix(|op, rhs| {
                let (rhs, d) = rhs?;
                let at = self.span(&op);
                let span = at.to(rhs.span);
                let op = if op.as_rule() == Rule::neg { UnOp::Neg } else { UnOp::Not };
                self.deep(Expr { kind: ExprKind::Unary(op, Box::new(rhs)), span }, d + 1, at)
            })
            .map_postfix(|lhs, op| {
                let (lhs, d) = lhs?;
                let name = self.ident(op.into_inner().next().expect("field has a name"));
                let span = lhs.span.to(name.span);
                let at = name.span;
                self.deep(Expr { kind: ExprKind::Field(Box::new(lhs), name), span }, d + 1, at)
            })
            .map_infix(|lhs, op, rhs| {
                let ((lhs, dl), (rhs, dr)) = (lhs?, rhs?);
                let at = self.span(&op);
                let op = match op.as_rule() {
                    Rule::add => BinOp::Add,
                    Rule::sub => BinOp::Sub,
                    Rule::mul => BinOp::Mul,
                    Rule::div => BinOp::Div,
                    Rule::rem => BinOp::Rem,
                    Rule::eq => BinOp::Eq,
                    Rule::ne => BinOp::Ne,
                    Rule::lt => BinOp::Lt,
                    Rule::le => BinOp::Le,
                    Rule::gt => BinOp::Gt,
                    Rule::ge => BinOp::Ge,
                    Rule::and => BinOp::And,
                    Rule::or => BinOp::Or,
                    Rule::in_ => BinOp::In,
                    Rule::not_in => BinOp::NotIn,
                    r => unreachable!("infix rule {r:?}"),
                };
                let span = lhs.span.to(rhs.span);
                self.deep(Expr { kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), span }, dl.max(dr) + 1, at)
            })
            .parse(pairs)
    }

    fn primary(&self, p: Pair<Rule>) -> Res<Deep> {
        let span = self.span(&p);
        // The depth of the deepest of some nested expressions, plus one.
        let nested = |pairs: Pairs<Rule>| -> Res<(Vec<Expr>, usize)> {
            let mut depth = 0;
            let mut out = Vec::new();
            for a in pairs {
                let (e, d) = self.expr_deep(a)?;
                depth = depth.max(d);
                out.push(e);
            }
            Ok((out, depth + 1))
        };
        let kind = match p.as_rule() {
            Rule::number => ExprKind::Int(p.as_str().parse::<i64>().map_err(|_| {
                Diag::error(codes::NUMBER_TOO_LARGE, span, "number too large")
                    .label("this does not fit in 64 bits")
                    .help(format!("numbers range up to {}", i64::MAX))
            })?),
            Rule::string => ExprKind::Str(self.string(p)?),
            Rule::word => ExprKind::Word(p.as_str().to_string()),
            Rule::call => {
                let mut inner = p.into_inner();
                let name = self.ident(inner.next().expect("call has a name"));
                let (args, depth) = nested(inner)?;
                return self.deep(Expr { kind: ExprKind::Call(name, args), span }, depth, span);
            }
            Rule::paren => return self.expr_deep(p.into_inner().next().expect("paren holds an expr")),
            Rule::list => {
                let (items, depth) = nested(p.into_inner())?;
                return self.deep(Expr { kind: ExprKind::List(items), span }, depth, span);
            }
            Rule::range => {
                let mut inner = p.into_inner();
                let (a, _) = self.primary(inner.next().expect("range start"))?;
                let (b, _) = self.primary(inner.next().expect("range end"))?;
                return Ok((Expr { kind: ExprKind::Range(Box::new(a), Box::new(b)), span }, 1));
            }
            Rule::expr => return self.expr_deep(p),
            r => unreachable!("primary rule {r:?}"),
        };
        Ok((Expr { kind, span }, 0))
    }

    fn string(&self, p: Pair<Rule>) -> Res<StrLit> {
        let inner = p.into_inner().next().expect("string has inner text");
        let raw_span = self.span(&inner);
        let raw = inner.as_str();
        if inner.as_rule() == Rule::long_inner {
            return Ok(StrLit { value: dedent(raw), raw: raw.to_string(), raw_span, long: true });
        }
        let mut value = String::with_capacity(raw.len());
        let mut chars = raw.char_indices();
        while let Some((i, c)) = chars.next() {
            if c != '\\' {
                value.push(c);
                continue;
            }
            match chars.next() {
                Some((_, 'n')) => value.push('\n'),
                Some((_, 't')) => value.push('\t'),
                Some((_, c @ ('"' | '\\' | '{' | '}'))) => {
                    // `\{` stays escaped for templates; plain strings unescape it.
                    value.push(c)
                }
                Some((j, c)) => {
                    let at = raw_span.start as usize;
                    let span = Span::new(self.file, at + i, at + j + c.len_utf8());
                    let c = visible(&c.to_string());
                    return Err(Diag::error(codes::BAD_ESCAPE, span, format!("unknown escape `\\{c}` in a string"))
                        .label("not an escape")
                        .help("the escapes are \\\" \\\\ \\n \\t \\{ \\}"));
                }
                None => value.push('\\'),
            }
        }
        Ok(StrLit { value, raw: raw.to_string(), raw_span, long: false })
    }
}

/// The value of a triple-quoted string: without the line break after the
/// opening quotes, and without the indentation of the closing quotes' line
/// on every line (the last line break before the closing quotes is kept).
fn dedent(raw: &str) -> String {
    let body = raw.strip_prefix("\r\n").or_else(|| raw.strip_prefix('\n')).unwrap_or(raw);
    let (content, indent) = match body.rfind('\n') {
        Some(nl) if body[nl + 1..].chars().all(|c| c == ' ' || c == '\t') => (&body[..nl + 1], &body[nl + 1..]),
        _ => (body, ""),
    };
    let mut out = String::with_capacity(content.len());
    for line in content.split_inclusive('\n') {
        out.push_str(line.strip_prefix(indent).unwrap_or(line.trim_start_matches([' ', '\t'])));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(text: &str) -> Vec<Item> {
        parse(0, text).unwrap_or_else(|d| panic!("{}", d.message))
    }

    /// A file over the limit is read a byte past it: the message says it
    /// is larger, without a size that would be that of the read.
    #[test]
    fn a_file_over_the_limit_is_said_to_be_larger() {
        let text = format!("# {}", "x".repeat(MAX_FILE_SIZE));
        let d = parse(0, &text).expect_err("over the limit");
        assert_eq!(d.message, format!("rule file is larger than {MAX_FILE_SIZE} bytes, the limit"));
        assert!(parse(0, &text[..MAX_FILE_SIZE]).is_ok());
    }

    #[test]
    fn properties_end_at_the_next_key_or_section() {
        let items = parse_ok("ranks: A 2 T\nsuits: S H\ncombination \"Straight\" { pays: 100 }");
        assert_eq!(items.len(), 3);
        let Item::Property(p) = &items[0] else { panic!() };
        assert_eq!(p.values.len(), 3);
        let Item::Section(s) = &items[2] else { panic!() };
        assert_eq!(s.labels[0].value, "Straight");
    }

    /// NUM-2: `2 -3` in a list of values was read as `2 - 3`.
    #[test]
    fn a_minus_against_a_digit_is_a_negative_value() {
        let count = |text: &str| -> Vec<usize> {
            parse_ok(text)
                .iter()
                .map(|i| match i {
                    Item::Property(p) => p.values.len(),
                    Item::Section(_) => 0,
                })
                .collect()
        };
        assert_eq!(count("values: 1 2 -3 4"), [4]);
        assert_eq!(count("x: [1 -2 3]"), [1]);
        let Item::Property(p) = &parse_ok("x: [1 -2 3]")[0] else { panic!() };
        assert!(matches!(&p.values[0].kind, ExprKind::List(l) if l.len() == 3));
        assert_eq!(count("x: a - 3 y: a - -3 z: a -b w: -3"), [1, 1, 1, 1]);
        let d = parse(0, "x: (a -1)").unwrap_err();
        assert!(d.help.unwrap().contains("a subtraction has spaces on both sides"));
    }

    #[test]
    fn operators_have_precedence() {
        let items = parse_ok("x: 1 + 2 * 3 == 7 and not a in b");
        let Item::Property(p) = &items[0] else { panic!() };
        assert_eq!(p.values.len(), 1);
        let ExprKind::Binary(BinOp::And, l, r) = &p.values[0].kind else { panic!("{:?}", p.values[0]) };
        assert!(matches!(l.kind, ExprKind::Binary(BinOp::Eq, ..)));
        assert!(matches!(r.kind, ExprKind::Unary(UnOp::Not, _)));
    }

    #[test]
    fn words_may_hold_hyphens_and_digits() {
        let items = parse_ok("x: Invite-the-Neighbours 10S 1..13 A..T");
        let Item::Property(p) = &items[0] else { panic!() };
        assert_eq!(p.values[0].as_word(), Some("Invite-the-Neighbours"));
        assert_eq!(p.values[1].as_word(), Some("10S"));
        assert!(matches!(p.values[2].kind, ExprKind::Range(..)));
    }

    #[test]
    fn errors_use_the_languages_words() {
        let d = parse(0, "deck {\n  ranks A 2\n}").unwrap_err();
        assert!(!d.message.contains("Rule"), "{}", d.message);
        assert!(d.message.starts_with("expected"), "{}", d.message);
    }

    #[test]
    fn triple_quoted_strings_drop_the_closing_indentation() {
        let items = parse_ok("example \"a\" {\n  input: \"\"\"\n    TH JH\n    #\n    \"\"\"\n}");
        let Item::Section(s) = &items[0] else { panic!() };
        let Item::Property(p) = &s.items[0] else { panic!() };
        let ExprKind::Str(lit) = &p.values[0].kind else { panic!() };
        assert_eq!(lit.value, "TH JH\n#\n");
    }

    #[test]
    fn long_chains_are_refused_at_the_bound() {
        let chain = |n: usize, op: &str| format!("x: a{}", format!(" {op} a").repeat(n));
        for op in ["+", "or", "not in", "*"] {
            assert!(parse(0, &chain(MAX_EXPR_DEPTH, op)).is_ok(), "{op}");
            let d = parse(0, &chain(MAX_EXPR_DEPTH + 1, op)).unwrap_err();
            assert_eq!(d.code, "too-deep", "{op}");
            let text = chain(MAX_EXPR_DEPTH + 1, op);
            let at = &text[d.span.start as usize..d.span.end as usize];
            assert_eq!(at, op, "the label is on the operator that crossed the bound");
        }
        let fields = format!("x: a{}", ".b".repeat(MAX_EXPR_DEPTH + 1));
        assert_eq!(parse(0, &fields).unwrap_err().code, "too-deep");
        // Chains nested in brackets add up: 60 brackets, each the first term
        // of a chain of 10.
        let nested = format!("x: {}a{}", "(".repeat(60), " + a + a + a + a + a + a + a + a + a)".repeat(60));
        assert_eq!(parse(0, &nested).unwrap_err().code, "too-deep");
        // A long list of short expressions is shallow.
        let list = format!("x: [{}]", "a + a ".repeat(5000));
        assert!(parse(0, &list).is_ok());
    }

    #[test]
    fn the_budget_is_per_item_and_the_error_located() {
        let bomb = format!("x: {}${}", "a - f(".repeat(40), ")".repeat(40));
        let padding = format!("y: 1 # {}\n", "z".repeat(90)).repeat(9_000);
        let text = format!("{padding}{bomb}\n");
        let d = parse(0, &text).unwrap_err();
        assert_eq!(d.code, "too-complex");
        assert_eq!(&text[d.span.start as usize..d.span.start as usize + 2], "x:");
        // Valid items far apart parse into one list, with file offsets.
        let items = parse(0, &format!("{padding}z: 2\n")).unwrap();
        assert_eq!(items.len(), 9_001);
        let last = items.last().unwrap().span();
        assert_eq!(last.start as usize, padding.len());
    }

    #[test]
    fn unclosed_strings_say_so() {
        for text in ["x: \"abc\ny: 1", "x: \"abc\\\"", "x: \"\"\"abc\n  \"\" \n"] {
            let d = parse(0, text).unwrap_err();
            assert_eq!(d.code, "unclosed-string", "{text:?}");
            assert_eq!(d.span.start, 3, "{text:?}");
        }
        assert!(parse(0, "x: \"a # b\" # \"c\ny: \"\"\"\n\"\n\"\"\"").is_ok());
    }

    #[test]
    fn line_endings_and_byte_order_marks_are_normalized() {
        assert_eq!(normalize("\u{feff}a\r\nb\rc\n".to_string()), "a\nb\nc\n");
        let text = normalize("# one\r# two\rx: 1\r".to_string());
        let items = parse_ok(&text);
        assert_eq!(items.len(), 1);
        let d = parse(0, "\u{200b}x: 1").unwrap_err();
        assert!(d.message.contains("\\u{200b}") && d.help.unwrap().contains("U+200B"));
    }

    #[test]
    fn deep_nesting_is_a_diagnostic() {
        let text = format!("x: {}1{}", "(".repeat(100_000), ")".repeat(100_000));
        assert_eq!(parse(0, &text).unwrap_err().code, "too-deep");
        let text = format!("x: {}1", "- ".repeat(100_000));
        assert_eq!(parse(0, &text).unwrap_err().code, "too-deep");
    }
}
