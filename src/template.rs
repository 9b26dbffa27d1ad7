//! Output templates: the wording of every output line lives in the rule
//! file as a string such as `"Exchange {cards}"` or `"{deck:>3}:{piles:>3|}"`.
//!
//! A field is `{name}`, `{name:SPEC}` or `{name:SPEC|SEP}`:
//! - SPEC is `[fill][align][width]`, align one of `<` (left), `>` (right),
//!   `^` (centre); numbers align right and text left by default; a value
//!   longer than the width is printed in full.
//! - SEP joins the elements of a list field (default one space), each
//!   formatted with SPEC: `{piles:>3|}` prints `  8  6  7`.
//! - `{{` and `}}` (or `\{` and `\}`) print braces.
//!
//! Field names are checked when the rule file is loaded: each engine says
//! which fields each of its templates may use.

use crate::diag::{did_you_mean, Diag};
use crate::source::Span;
use crate::syntax::StrLit;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
    Centre,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Lit(String),
    Field { index: usize, fill: char, align: Option<Align>, width: usize, sep: String },
}

/// A compiled template: literal text and fields resolved to indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub parts: Vec<Part>,
    /// Where the template is written in the rule file.
    pub span: Span,
}

/// A value handed to a template field by an engine.
#[derive(Debug, Clone, Copy)]
pub enum Val<'a> {
    Int(i64),
    Str(&'a str),
    Ints(&'a [i64]),
    Strs(&'a [&'a str]),
}

/// Widest field width accepted (a guard against huge allocations).
pub const MAX_WIDTH: usize = 1000;

impl Template {
    /// Parses a template from its string literal. `fields` are the names the
    /// engine provides for this template, in the order of its values.
    pub fn parse(lit: &StrLit, fields: &[&str]) -> Result<Template, Diag> {
        if lit.long {
            return Err(Diag::error("template", lit.raw_span, "an output template is written on one line")
                .label("a triple-quoted string")
                .help("use \"...\" with \\n for a line break"));
        }
        let raw = &lit.raw;
        let base = lit.raw_span;
        let at =
            |i: usize, j: usize| Span { file: base.file, start: base.start + i as u32, end: base.start + j as u32 };
        let mut parts = Vec::new();
        let mut lit_buf = String::new();
        let bytes = raw.as_bytes();
        let mut i = 0;
        while i < raw.len() {
            let c = raw[i..].chars().next().unwrap_or('\0');
            match c {
                '\\' => {
                    let next = raw[i + 1..].chars().next().unwrap_or('\\');
                    lit_buf.push(match next {
                        'n' => '\n',
                        't' => '\t',
                        other => other,
                    });
                    i += 1 + next.len_utf8();
                }
                '{' if bytes.get(i + 1) == Some(&b'{') => {
                    lit_buf.push('{');
                    i += 2;
                }
                '}' if bytes.get(i + 1) == Some(&b'}') => {
                    lit_buf.push('}');
                    i += 2;
                }
                '}' => {
                    return Err(Diag::error("template", at(i, i + 1), "unmatched `}` in a template")
                        .label("no `{` opens this")
                        .help("write `}}` for a literal brace"));
                }
                '{' => {
                    let Some(close) = raw[i..].find('}') else {
                        return Err(Diag::error("template", at(i, raw.len()), "unclosed `{` in a template")
                            .label("this field is not closed")
                            .help("close it with `}`, or write `{{` for a literal brace"));
                    };
                    let body = &raw[i + 1..i + close];
                    if !lit_buf.is_empty() {
                        parts.push(Part::Lit(std::mem::take(&mut lit_buf)));
                    }
                    parts.push(field(body, i + 1, fields, &at)?);
                    i += close + 1;
                }
                c => {
                    lit_buf.push(c);
                    i += c.len_utf8();
                }
            }
        }
        if !lit_buf.is_empty() {
            parts.push(Part::Lit(lit_buf));
        }
        Ok(Template { parts, span: base })
    }

    /// A template of plain text (for engines' defaults and tests).
    pub fn literal(text: &str) -> Template {
        Template { parts: vec![Part::Lit(text.to_string())], span: Span::default() }
    }

    /// Appends the rendered template (without a newline) to `out`.
    pub fn render(&self, out: &mut Vec<u8>, vals: &[Val]) {
        for part in &self.parts {
            match part {
                Part::Lit(s) => out.extend_from_slice(s.as_bytes()),
                Part::Field { index, fill, align, width, sep } => match vals.get(*index) {
                    Some(Val::Int(n)) => pad_int(out, *n, *fill, align.unwrap_or(Align::Right), *width),
                    Some(Val::Str(s)) => pad(out, s, *fill, align.unwrap_or(Align::Left), *width),
                    Some(Val::Ints(ns)) => {
                        for (k, n) in ns.iter().enumerate() {
                            if k > 0 {
                                out.extend_from_slice(sep.as_bytes());
                            }
                            pad_int(out, *n, *fill, align.unwrap_or(Align::Right), *width);
                        }
                    }
                    Some(Val::Strs(ss)) => {
                        for (k, s) in ss.iter().enumerate() {
                            if k > 0 {
                                out.extend_from_slice(sep.as_bytes());
                            }
                            pad(out, s, *fill, align.unwrap_or(Align::Left), *width);
                        }
                    }
                    None => {}
                },
            }
        }
    }

    /// Renders the template followed by a newline.
    pub fn line(&self, out: &mut Vec<u8>, vals: &[Val]) {
        self.render(out, vals);
        out.push(b'\n');
    }

    /// True when the template uses the field at `index`.
    pub fn uses(&self, index: usize) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Field { index: i, .. } if *i == index))
    }
}

fn field(body: &str, offset: usize, fields: &[&str], at: &dyn Fn(usize, usize) -> Span) -> Result<Part, Diag> {
    let (name_spec, sep) = match body.find('|') {
        Some(p) => (&body[..p], body[p + 1..].to_string()),
        None => (body, " ".to_string()),
    };
    let (name, spec) = match name_spec.find(':') {
        Some(p) => (&name_spec[..p], Some((&name_spec[p + 1..], offset + p + 1))),
        None => (name_spec, None),
    };
    let name_t = name.trim();
    let name_at = at(offset, offset + name.len().max(1));
    let Some(index) = fields.iter().position(|f| *f == name_t) else {
        let list = fields.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ");
        let d = Diag::error("template-field", name_at, format!("unknown field `{name_t}` in this template"))
            .label("not a field of this line");
        return Err(match (did_you_mean(name_t, fields.iter().copied()), fields.is_empty()) {
            (Some(s), _) => d.help(format!("did you mean `{s}`? (fields here: {list})")),
            (None, true) => d.help("this line has no fields; write `{{` for a literal brace"),
            (None, false) => d.help(format!("the fields of this line are {list}")),
        });
    };
    let (mut fill, mut align, mut width) = (' ', None, 0usize);
    if let Some((spec, spec_at)) = spec {
        let chars: Vec<char> = spec.chars().collect();
        let mut k = 0;
        let align_of = |c: char| match c {
            '<' => Some(Align::Left),
            '>' => Some(Align::Right),
            '^' => Some(Align::Centre),
            _ => None,
        };
        if chars.len() >= 2 && align_of(chars[1]).is_some() {
            fill = chars[0];
            align = align_of(chars[1]);
            k = 2;
        } else if let Some(a) = chars.first().and_then(|c| align_of(*c)) {
            align = Some(a);
            k = 1;
        }
        let digits: String = chars[k..].iter().collect();
        if !digits.is_empty() {
            width = match digits.parse::<usize>() {
                Ok(w) if w <= MAX_WIDTH => w,
                _ => {
                    return Err(Diag::error(
                        "template",
                        at(spec_at, spec_at + spec.len()),
                        format!("bad field format `{spec}`"),
                    )
                    .label("expected [fill][<, > or ^][width]")
                    .help(format!(
                        "for example `{name_t}:>3` right-justifies in 3 columns (widths up to {MAX_WIDTH})"
                    )));
                }
            };
        }
    }
    Ok(Part::Field { index, fill, align, width, sep })
}

fn pad(out: &mut Vec<u8>, s: &str, fill: char, align: Align, width: usize) {
    let len = s.chars().count();
    let gap = width.saturating_sub(len);
    let (left, right) = match align {
        Align::Left => (0, gap),
        Align::Right => (gap, 0),
        Align::Centre => (gap / 2, gap - gap / 2),
    };
    let mut f = [0u8; 4];
    let f = fill.encode_utf8(&mut f).as_bytes();
    for _ in 0..left {
        out.extend_from_slice(f);
    }
    out.extend_from_slice(s.as_bytes());
    for _ in 0..right {
        out.extend_from_slice(f);
    }
}

fn pad_int(out: &mut Vec<u8>, n: i64, fill: char, align: Align, width: usize) {
    let mut buf = [0u8; 24];
    let mut i = buf.len();
    let neg = n < 0;
    let mut m = n.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    if neg {
        i -= 1;
        buf[i] = b'-';
    }
    // Digits are ASCII.
    let s = std::str::from_utf8(&buf[i..]).unwrap_or("");
    pad(out, s, fill, align, width);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(raw: &str) -> StrLit {
        StrLit { value: raw.to_string(), raw: raw.to_string(), raw_span: Span::new(0, 10, 10 + raw.len()), long: false }
    }

    fn render(t: &str, fields: &[&str], vals: &[Val]) -> String {
        let mut out = Vec::new();
        Template::parse(&lit(t), fields).unwrap().render(&mut out, vals);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn widths_alignment_and_lists() {
        assert_eq!(render("{n:>3}:{xs:>3|}", &["n", "xs"], &[Val::Int(1), Val::Ints(&[8, 6, 10])]), "  1:  8  6 10");
        assert_eq!(render("[{s:*^7}]", &["s"], &[Val::Str("ab")]), "[**ab***]");
        assert_eq!(render("{n:>3}", &["n"], &[Val::Int(1234)]), "1234");
        assert_eq!(render("Respot {b}", &["b"], &[Val::Strs(&["Black", "Pink"])]), "Respot Black Pink");
        assert_eq!(render("{{x}}", &[], &[]), "{x}");
    }

    #[test]
    fn unknown_fields_point_into_the_string() {
        let d = Template::parse(&lit("Exchange {crads}"), &["cards"]).unwrap_err();
        assert_eq!(d.code, "template-field");
        assert_eq!((d.span.start, d.span.end), (20, 25));
        assert_eq!(d.help.as_deref(), Some("did you mean `cards`? (fields here: `cards`)"));
    }
}
