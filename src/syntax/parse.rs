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
/// The parser's budget of rule calls per byte of input.
pub const CALLS_PER_BYTE: usize = 2_000;
/// Largest rule file accepted, in bytes.
pub const MAX_FILE_SIZE: usize = 1 << 20;

/// Parses one rule file. On a syntax error returns the one diagnostic pest
/// can give (the furthest failure), in the language's words.
pub fn parse(file: FileId, text: &str) -> Result<Vec<Item>, Diag> {
    if text.len() > MAX_FILE_SIZE {
        return Err(Diag::error(
            codes::TOO_LARGE,
            Span::new(file, 0, 0),
            format!("rule file is {} bytes; the limit is {} bytes", text.len(), MAX_FILE_SIZE),
        )
        .label("file starts here"));
    }
    check_nesting(file, text)?;
    // A bound on the parser's work, whatever the text: a diagnostic instead
    // of a hang (normal files need a few dozen calls per byte).
    pest::set_call_limit(std::num::NonZeroUsize::new(CALLS_PER_BYTE * text.len() + 100_000));
    let mut pairs = Grammar::parse(Rule::file, text).map_err(|e| match e.variant {
        ErrorVariant::CustomError { ref message } if message.contains("call limit") => {
            Diag::error(codes::TOO_COMPLEX, Span::new(file, 0, 0), "the rule file is too complex to parse")
                .label("the parser gave up on this file")
                .help("look for long runs of unclosed or deeply nested brackets and calls")
        }
        _ => syntax_error(file, text, e),
    })?;
    let b = Builder { file, pratt: pratt() };
    let root = pairs.next().expect("the file rule always yields one pair");
    root.into_inner().filter(|p| p.as_rule() != Rule::EOI).map(|p| b.item(p)).collect()
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

/// Rejects bracket nesting deeper than [`MAX_NESTING`] before pest (whose
/// parser is recursive) sees the text.
fn check_nesting(file: FileId, text: &str) -> Result<(), Diag> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                i = skip_string(bytes, i);
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
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    Ok(())
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
        Rule::WHITESPACE | Rule::COMMENT => "a space",
    }
}

fn syntax_error(file: FileId, text: &str, e: pest::error::Error<Rule>) -> Diag {
    let pos = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
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
    let len = found.len().max(usize::from(pos < text.len()));
    let shown = if found.is_empty() { "end of file".to_string() } else { format!("`{found}`") };
    let mut d = Diag::error(codes::SYNTAX, Span::new(file, pos, pos + len), format!("expected {list}, found {shown}"))
        .label(format!("expected {list} here"));
    if let Some(h) = syntax_help(text, pos, &found) {
        d = d.help(h);
    }
    d
}

fn found_at(text: &str, pos: usize) -> String {
    let rest = text.get(pos..).unwrap_or("");
    let tok: String = rest.chars().take_while(|c| !c.is_whitespace()).take(20).collect();
    tok
}

fn syntax_help(text: &str, pos: usize, found: &str) -> Option<String> {
    let before = text.get(..pos).unwrap_or("").trim_end();
    if found.starts_with('"') && before.ends_with(|c: char| c.is_alphanumeric()) {
        return Some("section labels are strings written after the kind: `kind \"name\" { ... }`".into());
    }
    if found.starts_with('{') {
        return Some("a section is written `kind \"label\" { ... }`; a property is written `key: value`".into());
    }
    if found.is_empty() {
        return Some("is a `}` missing?".into());
    }
    if before.ends_with(':') || found.starts_with(':') {
        return Some("a property is written `key: value ...`".into());
    }
    None
}

struct Builder {
    file: FileId,
    pratt: PrattParser<Rule>,
}

type Res<T> = Result<T, Diag>;

impl Builder {
    fn span(&self, p: &Pair<Rule>) -> Span {
        let s = p.as_span();
        Span::new(self.file, s.start(), s.end())
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

    fn pratt_expr(&self, pairs: Pairs<Rule>) -> Res<Expr> {
        self.pratt
            .map_primary(|p| self.primary(p))
            .map_prefix(|op, rhs| {
                let rhs = rhs?;
                let span = self.span(&op).to(rhs.span);
                let op = if op.as_rule() == Rule::neg { UnOp::Neg } else { UnOp::Not };
                Ok(Expr { kind: ExprKind::Unary(op, Box::new(rhs)), span })
            })
            .map_postfix(|lhs, op| {
                let lhs = lhs?;
                let name = self.ident(op.into_inner().next().expect("field has a name"));
                let span = lhs.span.to(name.span);
                Ok(Expr { kind: ExprKind::Field(Box::new(lhs), name), span })
            })
            .map_infix(|lhs, op, rhs| {
                let (lhs, rhs) = (lhs?, rhs?);
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
                Ok(Expr { kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), span })
            })
            .parse(pairs)
    }

    fn primary(&self, p: Pair<Rule>) -> Res<Expr> {
        let span = self.span(&p);
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
                let args = inner.map(|a| self.expr(a)).collect::<Res<Vec<_>>>()?;
                ExprKind::Call(name, args)
            }
            Rule::paren => return self.expr(p.into_inner().next().expect("paren holds an expr")),
            Rule::list => ExprKind::List(p.into_inner().map(|a| self.expr(a)).collect::<Res<Vec<_>>>()?),
            Rule::range => {
                let mut inner = p.into_inner();
                let a = self.primary(inner.next().expect("range start"))?;
                let b = self.primary(inner.next().expect("range end"))?;
                ExprKind::Range(Box::new(a), Box::new(b))
            }
            Rule::expr => return self.expr(p),
            r => unreachable!("primary rule {r:?}"),
        };
        Ok(Expr { kind, span })
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
                    return Err(Diag::error(
                        codes::BAD_ESCAPE,
                        Span::new(self.file, at + i, at + j + c.len_utf8()),
                        format!("unknown escape `\\{c}` in a string"),
                    )
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

    #[test]
    fn properties_end_at_the_next_key_or_section() {
        let items = parse_ok("ranks: A 2 T\nsuits: S H\ncombination \"Straight\" { pays: 100 }");
        assert_eq!(items.len(), 3);
        let Item::Property(p) = &items[0] else { panic!() };
        assert_eq!(p.values.len(), 3);
        let Item::Section(s) = &items[2] else { panic!() };
        assert_eq!(s.labels[0].value, "Straight");
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
    fn deep_nesting_is_a_diagnostic() {
        let text = format!("x: {}1{}", "(".repeat(100_000), ")".repeat(100_000));
        assert_eq!(parse(0, &text).unwrap_err().code, "too-deep");
        let text = format!("x: {}1", "- ".repeat(100_000));
        assert_eq!(parse(0, &text).unwrap_err().code, "too-deep");
    }
}
