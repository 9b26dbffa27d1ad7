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
//! Field names are checked when the rule file is loaded against the fields
//! the engine provides, declared once per line as a struct with [`fields!`](crate::fields):
//! the struct's field list is what a template may name, and the compiler
//! makes the engine give every value (no field can silently render empty).
//!
//! ```
//! arbiter::fields! {
//!     /// `"Case {case}: {names}"`
//!     pub struct Verdict<'a> {
//!         "case" case: i64,
//!         "names" names: &'a [&'a str],
//!     }
//! }
//! // Stored as `OutputLine<Verdict<'static>>`, filled with any borrow:
//! fn say(line: &arbiter::template::OutputLine<Verdict<'static>>, names: &[&str]) -> Vec<u8> {
//!     let mut out = Vec::new();
//!     line.line(&mut out, &Verdict { case: 1, names });
//!     out
//! }
//! ```

use crate::diag::codes;
use std::borrow::Cow;
use std::marker::PhantomData;

use crate::diag::{did_you_mean, Diag};
use crate::source::Span;
use crate::syntax::parse::{invisible, visible};
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

/// A value that can fill a template field.
pub trait IntoVal {
    fn val(&self) -> Val<'_>;
}

impl IntoVal for i64 {
    fn val(&self) -> Val<'_> {
        Val::Int(*self)
    }
}

impl IntoVal for &str {
    fn val(&self) -> Val<'_> {
        Val::Str(self)
    }
}

impl IntoVal for &[i64] {
    fn val(&self) -> Val<'_> {
        Val::Ints(self)
    }
}

impl IntoVal for &[&str] {
    fn val(&self) -> Val<'_> {
        Val::Strs(self)
    }
}

/// The fields one output line provides, by name. Written with
/// [`fields!`](crate::fields); a template of the line may name exactly these.
pub trait Fields {
    /// Field names, in index order.
    const NAMES: &'static [&'static str];
    /// The values handed to the line (the same struct, borrowing for `'a`).
    type Values<'a>: FieldValues;
}

/// The values of one line's fields, by index.
pub trait FieldValues {
    fn value(&self, index: usize) -> Val<'_>;
}

/// Declares the fields of an output line: a struct whose fields are the
/// values, each with the name templates use for it. A struct with a
/// lifetime is named with `'static` where the line is stored
/// (`OutputLine<Verdict<'static>>`) and filled with any borrow.
#[macro_export]
macro_rules! fields {
    ($(#[$m:meta])* $vis:vis struct $name:ident <$lt:lifetime> {
        $($(#[$fm:meta])* $text:literal $field:ident : $ty:ty),* $(,)?
    }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy)]
        $vis struct $name<$lt> { $($(#[$fm])* pub $field: $ty),* }

        impl $crate::template::Fields for $name<'static> {
            const NAMES: &'static [&'static str] = &[$($text),*];
            type Values<$lt> = $name<$lt>;
        }

        impl<$lt> $crate::template::FieldValues for $name<$lt> {
            $crate::fields!(@value $($field)*);
        }
    };
    ($(#[$m:meta])* $vis:vis struct $name:ident {
        $($(#[$fm:meta])* $text:literal $field:ident : $ty:ty),* $(,)?
    }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy)]
        $vis struct $name { $($(#[$fm])* pub $field: $ty),* }

        impl $crate::template::Fields for $name {
            const NAMES: &'static [&'static str] = &[$($text),*];
            type Values<'a> = $name;
        }

        impl $crate::template::FieldValues for $name {
            $crate::fields!(@value $($field)*);
        }
    };
    (@value $($field:ident)*) => {
        #[allow(unused_assignments, unused_mut)]
        fn value(&self, index: usize) -> $crate::template::Val<'_> {
            let mut i = 0;
            $(
                if index == i {
                    return $crate::template::IntoVal::val(&self.$field);
                }
                i += 1;
            )*
            unreachable!("template field indices are checked against the names when a template is parsed")
        }
    };
}

/// Values given by position (tests, and lines whose fields vary).
impl FieldValues for &[Val<'_>] {
    fn value(&self, index: usize) -> Val<'_> {
        self.get(index).copied().unwrap_or(Val::Str(""))
    }
}

/// A line with no fields.
#[derive(Debug, Clone, Copy)]
pub struct NoFields;

impl Fields for NoFields {
    const NAMES: &'static [&'static str] = &[];
    type Values<'a> = NoFields;
}

impl FieldValues for NoFields {
    fn value(&self, _: usize) -> Val<'_> {
        Val::Str("")
    }
}

/// A template checked against the fields `F` of its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputLine<F> {
    pub template: Template,
    /// The template with its newline, compiled for [`OutputLine::line`].
    ops: Box<[Op]>,
    fields: PhantomData<fn(&F)>,
}

/// A step of a compiled line. Literal text is kept in 16-byte chunks,
/// copied whole and cut to length (no call for a short copy).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    /// At most [`CHUNK`] bytes of text (the rest of the array is zeros).
    Text([u8; CHUNK], usize),
    /// A field without a width or fill: its value as it is (`part`: its
    /// place in `Template::parts`, for a list's separator).
    Plain { index: usize, part: usize },
    /// Any other field: `Template::parts[part]`.
    Spec(usize),
}

const CHUNK: usize = 16;

impl<F: Fields> OutputLine<F> {
    fn of(template: Template) -> Self {
        let mut ops = Vec::new();
        let mut text: Vec<u8> = Vec::new();
        let flush = |text: &mut Vec<u8>, ops: &mut Vec<Op>| {
            for chunk in text.chunks(CHUNK) {
                let mut bytes = [0u8; CHUNK];
                bytes[..chunk.len()].copy_from_slice(chunk);
                ops.push(Op::Text(bytes, chunk.len()));
            }
            text.clear();
        };
        for (k, part) in template.parts.iter().enumerate() {
            match part {
                Part::Lit(s) => text.extend_from_slice(s.as_bytes()),
                Part::Field { index, width, .. } => {
                    flush(&mut text, &mut ops);
                    ops.push(if *width == 0 { Op::Plain { index: *index, part: k } } else { Op::Spec(k) });
                }
            }
        }
        text.push(b'\n');
        flush(&mut text, &mut ops);
        OutputLine { template, ops: ops.into_boxed_slice(), fields: PhantomData }
    }

    /// Parses a template whose fields must be among `F::NAMES`.
    pub fn parse(lit: &StrLit) -> Result<Self, Diag> {
        Template::parse(lit, F::NAMES).map(OutputLine::of)
    }

    /// A line of plain text (a default).
    pub fn literal(text: &str) -> Self {
        OutputLine::of(Template::literal(text))
    }

    /// Appends the rendered line and a newline to `out`.
    #[inline]
    pub fn line(&self, out: &mut Vec<u8>, f: &F::Values<'_>) {
        for op in self.ops.iter() {
            match op {
                Op::Text(bytes, len) => {
                    let at = out.len();
                    out.extend_from_slice(bytes);
                    out.truncate(at + len);
                }
                Op::Plain { index, part } => match f.value(*index) {
                    Val::Int(n) => put_int(out, n),
                    Val::Str(s) => out.extend_from_slice(shown(s).as_bytes()),
                    v => self.template.parts[*part].render_field(out, v),
                },
                Op::Spec(part) => {
                    let part = &self.template.parts[*part];
                    if let Part::Field { index, .. } = part {
                        part.render_field(out, f.value(*index));
                    }
                }
            }
        }
    }

    /// Appends the rendered line without a newline.
    #[inline]
    pub fn render(&self, out: &mut Vec<u8>, f: &F::Values<'_>) {
        self.template.render_values(out, f);
    }

    /// Where the template is written in the rule file.
    pub fn span(&self) -> Span {
        self.template.span
    }

    /// True when the template uses the field named `name`.
    pub fn uses(&self, name: &str) -> bool {
        F::NAMES.iter().position(|n| *n == name).is_some_and(|i| self.template.uses(i))
    }
}

/// Widest field width accepted (a guard against huge allocations).
pub const MAX_WIDTH: usize = 1000;

impl Template {
    /// Parses a template from its string literal. `fields` are the names the
    /// engine provides for this template, in the order of its values.
    pub fn parse(lit: &StrLit, fields: &[&str]) -> Result<Template, Diag> {
        if lit.long {
            return Err(Diag::error(codes::TEMPLATE, lit.raw_span, "an output template is written on one line")
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
                    push_shown(
                        &mut lit_buf,
                        match next {
                            'n' => '\n',
                            't' => '\t',
                            other => other,
                        },
                    );
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
                    return Err(Diag::error(codes::TEMPLATE, at(i, i + 1), "unmatched `}` in a template")
                        .label("no `{` opens this")
                        .help("write `}}` for a literal brace"));
                }
                '{' => {
                    let Some(close) = raw[i..].find('}') else {
                        return Err(Diag::error(codes::TEMPLATE, at(i, raw.len()), "unclosed `{` in a template")
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
                    push_shown(&mut lit_buf, c);
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
        self.render_values(out, &vals);
    }

    /// Appends the rendered template, asking `values` for each field.
    #[inline]
    pub fn render_values(&self, out: &mut Vec<u8>, values: &impl FieldValues) {
        for part in &self.parts {
            match part {
                Part::Lit(s) => out.extend_from_slice(s.as_bytes()),
                Part::Field { index, .. } => part.render_field(out, values.value(*index)),
            }
        }
    }

    /// True when the template uses the field at `index`.
    pub fn uses(&self, index: usize) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Field { index: i, .. } if *i == index))
    }
}

impl Part {
    /// Appends `v` formatted as this field says (nothing for a literal).
    fn render_field(&self, out: &mut Vec<u8>, v: Val) {
        let Part::Field { fill, align, width, sep, .. } = self else { return };
        match v {
            Val::Int(n) => pad_int(out, n, *fill, align.unwrap_or(Align::Right), *width),
            Val::Str(s) => pad(out, &shown(s), *fill, align.unwrap_or(Align::Left), *width),
            Val::Ints(ns) => {
                for (k, n) in ns.iter().enumerate() {
                    if k > 0 {
                        out.extend_from_slice(sep.as_bytes());
                    }
                    pad_int(out, *n, *fill, align.unwrap_or(Align::Right), *width);
                }
            }
            Val::Strs(ss) => {
                for (k, s) in ss.iter().enumerate() {
                    if k > 0 {
                        out.extend_from_slice(sep.as_bytes());
                    }
                    pad(out, &shown(s), *fill, align.unwrap_or(Align::Left), *width);
                }
            }
        }
    }
}

/// Text as an output line shows it: a control or invisible character
/// (`invisible`: not a tab or a line break) written as its escape
/// (`\u{1b}`), so that no text from an input or a rule file reaches a
/// terminal as a command. Expected outputs hold none of them; plain ASCII
/// is returned as it is after one scan.
fn shown(s: &str) -> Cow<'_, str> {
    if s.bytes().all(|b| (0x20..0x7f).contains(&b)) || !s.chars().any(invisible) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(visible(s))
}

/// Appends `c` to a template's literal text as [`shown`] writes it.
fn push_shown(text: &mut String, c: char) {
    if invisible(c) {
        text.extend(c.escape_unicode());
    } else {
        text.push(c);
    }
}

fn field(body: &str, offset: usize, fields: &[&str], at: &dyn Fn(usize, usize) -> Span) -> Result<Part, Diag> {
    let (name_spec, sep) = match body.find('|') {
        Some(p) => (&body[..p], shown(&body[p + 1..]).into_owned()),
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
        let d = Diag::error(codes::TEMPLATE_FIELD, name_at, format!("unknown field `{name_t}` in this template"))
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
            if invisible(chars[0]) {
                return Err(Diag::error(
                    codes::TEMPLATE,
                    at(spec_at, spec_at + chars[0].len_utf8()),
                    format!("the fill `{}` is an invisible character", chars[0].escape_unicode()),
                )
                .label("a control or invisible character")
                .help("fill with a visible character, or a space: `{name:>3}`"));
            }
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
                        codes::TEMPLATE,
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

#[inline]
fn pad(out: &mut Vec<u8>, s: &str, fill: char, align: Align, width: usize) {
    if width == 0 {
        out.extend_from_slice(s.as_bytes());
        return;
    }
    pad_bytes(out, s.as_bytes(), s.chars().count(), fill, align, width);
}

/// `s` (of `len` characters) padded with `fill` to `width` characters.
fn pad_bytes(out: &mut Vec<u8>, s: &[u8], len: usize, fill: char, align: Align, width: usize) {
    let gap = width.saturating_sub(len);
    let (left, right) = match align {
        Align::Left => (0, gap),
        Align::Right => (gap, 0),
        Align::Centre => (gap / 2, gap - gap / 2),
    };
    if fill.is_ascii() {
        // One byte of fill: runs of it at once.
        out.resize(out.len() + left, fill as u8);
        out.extend_from_slice(s);
        out.resize(out.len() + right, fill as u8);
        return;
    }
    let mut f = [0u8; 4];
    let f = fill.encode_utf8(&mut f).as_bytes();
    for _ in 0..left {
        out.extend_from_slice(f);
    }
    out.extend_from_slice(s);
    for _ in 0..right {
        out.extend_from_slice(f);
    }
}

/// The decimal digits of 0 to 99, two bytes each.
const DIGITS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// `n` in decimal, right-aligned in `buf`: returns where it starts.
#[inline]
fn decimal(n: i64, buf: &mut [u8; 20]) -> usize {
    let mut i = buf.len();
    let mut m = n.unsigned_abs();
    while m >= 100 {
        let d = (m % 100) as usize * 2;
        m /= 100;
        i -= 2;
        buf[i] = DIGITS[d];
        buf[i + 1] = DIGITS[d + 1];
    }
    if m >= 10 {
        let d = m as usize * 2;
        i -= 2;
        buf[i] = DIGITS[d];
        buf[i + 1] = DIGITS[d + 1];
    } else {
        i -= 1;
        buf[i] = b'0' + m as u8;
    }
    if n < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    i
}

/// The numbers below 100 in decimal, two bytes each: a number below 10 is
/// its digit and a spare byte (see [`put_int`]). A table of its own: the
/// same bytes read from [`DIGITS`] at an offset for numbers below 10 took
/// Snooker's referee 2.5 % more time (21 interleaved runs).
const SMALL: [[u8; 2]; 100] = {
    let mut t = [[0u8; 2]; 100];
    let mut n = 0;
    while n < 100 {
        t[n] = if n < 10 { [b'0' + n as u8, b'0'] } else { [b'0' + (n / 10) as u8, b'0' + (n % 10) as u8] };
        n += 1;
    }
    t
};

/// `n` in decimal. Numbers below 100 (most scores and counts) are two
/// bytes of [`SMALL`], the spare byte of one below 10 taken back: no
/// branch on the number of digits, which a run of scores makes
/// unpredictable (with a branch for each length, 100,000 frames of
/// Snooker's referee took 7 % more time, 311 ms against 290). Larger ones
/// go through `decimal`, two digits a step.
#[inline(always)]
fn put_int(out: &mut Vec<u8>, n: i64) {
    if (n as u64) < 100 {
        let at = out.len();
        out.extend_from_slice(&SMALL[n as usize]);
        out.truncate(at + 1 + usize::from(n >= 10));
    } else {
        put_wide_int(out, n);
    }
}

/// [`put_int`] of a number outside 0..100.
#[inline(never)]
fn put_wide_int(out: &mut Vec<u8>, n: i64) {
    let mut buf = [0u8; 20];
    let i = decimal(n, &mut buf);
    out.extend_from_slice(&buf[i..]);
}

#[inline(always)]
fn pad_int(out: &mut Vec<u8>, n: i64, fill: char, align: Align, width: usize) {
    if (n as u64) < 100 && align == Align::Right && fill.is_ascii() && (2..=CHUNK).contains(&width) {
        // A small number right-aligned (a column of counts): the fill in
        // one fixed-size copy, the digits over its end, no branch on
        // their number.
        let (fill, [tens, ones]) = (fill as u8, SMALL[n as usize]);
        let at = out.len();
        out.extend_from_slice(&[fill; CHUNK]);
        out.truncate(at + width);
        let end = at + width;
        out[end - 2] = if n >= 10 { tens } else { fill };
        out[end - 1] = if n >= 10 { ones } else { tens };
        return;
    }
    pad_wide_int(out, n, fill, align, width);
}

/// [`pad_int`] of any other number, width or fill (out of line: the short
/// path above is written in place).
#[inline(never)]
fn pad_wide_int(out: &mut Vec<u8>, n: i64, fill: char, align: Align, width: usize) {
    // 19 digits and a sign at most.
    let mut buf = [0u8; 20];
    let i = decimal(n, &mut buf);
    let digits = &buf[i..];
    if width <= digits.len() {
        out.extend_from_slice(digits);
    } else if align == Align::Right && fill.is_ascii() && width <= buf.len() {
        // The fill in front of the digits, in the same buffer.
        let from = buf.len() - width;
        buf[from..i].fill(fill as u8);
        out.extend_from_slice(&buf[from..]);
    } else {
        pad_bytes(out, digits, digits.len(), fill, align, width);
    }
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

    /// OUT-5, OUT-7: control characters from an input or a rule file are
    /// written as escapes, never raw; tabs and the template's line breaks
    /// stay.
    #[test]
    fn control_characters_are_escaped_in_output_lines() {
        assert_eq!(render("{s}'s turn", &["s"], &[Val::Str("\u{1b}]0;x\u{7}A")]), "\\u{1b}]0;x\\u{7}A's turn");
        assert_eq!(render("[{s:<6}]", &["s"], &[Val::Str("\u{1b}")]), "[\\u{1b}]");
        assert_eq!(render("{s|\u{1b}}", &["s"], &[Val::Strs(&["a", "b\u{202e}"])]), "a\\u{1b}b\\u{202e}");
        assert_eq!(render("S\u{1b}[2Jtay\\n\t.", &[], &[]), "S\\u{1b}[2Jtay\n\t.");
        assert!(Template::parse(&lit("{s:\u{7}>3}"), &["s"]).is_err());
    }

    #[test]
    fn widths_alignment_and_lists() {
        assert_eq!(render("{n:>3}:{xs:>3|}", &["n", "xs"], &[Val::Int(1), Val::Ints(&[8, 6, 10])]), "  1:  8  6 10");
        assert_eq!(render("[{s:*^7}]", &["s"], &[Val::Str("ab")]), "[**ab***]");
        assert_eq!(render("{n:>3}", &["n"], &[Val::Int(1234)]), "1234");
        assert_eq!(render("Respot {b}", &["b"], &[Val::Strs(&["Black", "Pink"])]), "Respot Black Pink");
        assert_eq!(render("{{x}}", &[], &[]), "{x}");
    }

    /// Numbers are written as `format!` writes them, at every width.
    #[test]
    fn numbers_render_like_format() {
        let samples = [0, 7, -7, 9, 10, 99, 100, -100, 12345, 1 << 40, i64::MAX, i64::MIN, i64::MIN + 1];
        for n in samples.into_iter().chain((-1000..1000).step_by(7)) {
            assert_eq!(render("{n}", &["n"], &[Val::Int(n)]), format!("{n}"));
            assert_eq!(render("{n:>6}", &["n"], &[Val::Int(n)]), format!("{n:>6}"));
            assert_eq!(render("{n:*<6}", &["n"], &[Val::Int(n)]), format!("{n:*<6}"));
            assert_eq!(render("{n:^7}", &["n"], &[Val::Int(n)]), format!("{n:^7}"));
            // Right-aligned at every width around the short path's (2 to 16).
            assert_eq!(render("{n:>2}", &["n"], &[Val::Int(n)]), format!("{n:>2}"));
            assert_eq!(render("{n:0>3}", &["n"], &[Val::Int(n)]), format!("{n:0>3}"));
            assert_eq!(render("{n:*>16}|", &["n"], &[Val::Int(n)]), format!("{n:*>16}|"));
            assert_eq!(render("{n:>17}", &["n"], &[Val::Int(n)]), format!("{n:>17}"));
            assert_eq!(render("{n:·>4}", &["n"], &[Val::Int(n)]), format!("{n:·>4}"));
            assert_eq!(render("{n:>1}", &["n"], &[Val::Int(n)]), format!("{n:>1}"));
        }
    }

    /// A line renders as its template does, with a newline: long and
    /// short literals, plain and formatted fields, lists.
    #[test]
    fn lines_render_like_their_template() {
        let fields = &["n", "s", "xs", "ss"];
        let long = "a literal longer than sixteen bytes, and then some more";
        for t in [
            "{n} : {s}",
            "{n:>4}|{s:*^9}|{xs:>3|,}|{ss}",
            "{xs}{ss:<4|--}",
            long,
            "",
            "{n}{{}}{n}",
            "0123456789abcdef{n}0123456789abcdefg{s}",
            &"{n} and seventeen bytes, ".repeat(12),
            &"{n}{s}0123456789abcdef{n}{xs}{n:>30}x".repeat(5),
        ] {
            let line = OutputLine::<Any>::parse(&lit(t)).unwrap();
            for n in [0, 5, -5, 42, 100, -12345, i64::MIN, i64::MAX] {
                let vals = [Val::Int(n), Val::Str("Pink"), Val::Ints(&[1, -20, 300]), Val::Strs(&["Red", "Black"])];
                let mut want = b"before\n".to_vec();
                Template::parse(&lit(t), fields).unwrap().render(&mut want, &vals);
                want.push(b'\n');
                let mut got = b"before\n".to_vec();
                line.line(&mut got, &&vals[..]);
                assert_eq!(String::from_utf8(got).unwrap(), String::from_utf8(want).unwrap(), "{t}");
            }
        }
    }

    /// Fields by position, for the test above.
    struct Any;

    impl Fields for Any {
        const NAMES: &'static [&'static str] = &["n", "s", "xs", "ss"];
        type Values<'a> = &'a [Val<'a>];
    }

    #[test]
    fn lines_without_fields_are_written_whole() {
        let line = OutputLine::<NoFields>::parse(&lit("Foul {{!}}")).unwrap();
        let mut out = b"x\n".to_vec();
        line.line(&mut out, &NoFields);
        line.line(&mut out, &NoFields);
        assert_eq!(out, b"x\nFoul {!}\nFoul {!}\n");
        let mut out = Vec::new();
        OutputLine::<NoFields>::literal("").line(&mut out, &NoFields);
        assert_eq!(out, b"\n");
    }

    #[test]
    fn integers_print_as_rust_prints_them() {
        let edges = [i64::MIN, i64::MIN + 1, -100, -99, -10, -9, -1, 99, 100, 999, 1000, 99_999_999, 100_000_000];
        for n in (-1_000..=100_000).chain(edges).chain([i64::MAX, i64::MAX - 1]) {
            let mut out = b"x".to_vec();
            put_int(&mut out, n);
            assert_eq!(out, format!("x{n}").into_bytes(), "{n}");
        }
    }

    #[test]
    fn unknown_fields_point_into_the_string() {
        let d = Template::parse(&lit("Exchange {crads}"), &["cards"]).unwrap_err();
        assert_eq!(d.code, "template-field");
        assert_eq!((d.span.start, d.span.end), (20, 25));
        assert_eq!(d.help.as_deref(), Some("did you mean `cards`? (fields here: `cards`)"));
    }
}
