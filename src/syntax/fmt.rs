//! `arbiter fmt`: a rule file in canonical layout, comments kept.
//!
//! The layout: two-space indentation; one property per line; a section on
//! one line (`kind "label" { key: value key: value }`) when it was written on
//! one line, holds only properties and no comment, and fits in 100 columns,
//! otherwise one item per line; runs of one-line sections of the same kind
//! and keys are aligned in columns; trailing comments of a block are aligned;
//! at most one blank line is kept between items. Formatting a formatted file
//! changes nothing.

use super::ast::*;
use super::parse::{normalize, parse};
use crate::diag::Diag;

const WIDTH: usize = 100;
const INDENT: &str = "  ";

/// A comment in the source: its offset, its text (from `#`), and whether it
/// stands alone on its line.
#[derive(Debug, Clone)]
struct Comment {
    at: usize,
    text: String,
    own_line: bool,
    /// A blank line precedes it.
    gap_before: bool,
}

/// Formats rule-file text. Fails only when the text does not parse. A byte
/// order mark is dropped and every line ending becomes `\n`.
pub fn format(text: &str) -> Result<String, Diag> {
    let text = &normalize(text.to_string());
    let items = parse(0, text)?;
    let line_ends = memchr::memchr_iter(b'\n', text.as_bytes()).collect();
    let mut f = Formatter { text, line_ends, comments: comments(text), next: 0, out: String::new(), marks: Vec::new() };
    f.items(&items, 0, text.len());
    f.flush_comments(text.len() + 1, 0);
    let mut out = f.out.trim_end().to_string();
    out.push('\n');
    Ok(out)
}

fn comments(text: &str) -> Vec<Comment> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = super::parse::skip_string(bytes, i),
            b'#' => {
                let end = text[i..].find('\n').map_or(text.len(), |n| i + n);
                let line_start = text[..i].rfind('\n').map_or(0, |n| n + 1);
                let own_line = text[line_start..i].trim().is_empty();
                // The line before this one is blank.
                let gap_before = own_line && line_start > 0 && {
                    let prev_start = text[..line_start - 1].rfind('\n').map_or(0, |n| n + 1);
                    text[prev_start..line_start - 1].trim().is_empty() && prev_start < line_start - 1
                        || prev_start == line_start - 1
                };
                out.push(Comment { at: i, text: text[i..end].trim_end().to_string(), own_line, gap_before });
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

struct Formatter<'a> {
    text: &'a str,
    /// Offsets of the `\n`s of `text`.
    line_ends: Vec<usize>,
    comments: Vec<Comment>,
    /// The first comment not yet printed.
    next: usize,
    out: String,
    /// Lines of `out` with a trailing comment not yet aligned: where the
    /// line starts and where its code ends (the comment follows at once).
    marks: Vec<(usize, usize)>,
}

impl Formatter<'_> {
    /// Prints the own-line comments before `at`.
    fn flush_comments(&mut self, at: usize, depth: usize) {
        while self.next < self.comments.len() && self.comments[self.next].at < at {
            let c = self.comments[self.next].clone();
            self.next += 1;
            if c.gap_before && !self.out.is_empty() && !self.out.ends_with("\n\n") && !self.out.ends_with("{\n") {
                self.out.push('\n');
            }
            self.out.push_str(&INDENT.repeat(depth));
            self.out.push_str(&c.text);
            self.out.push('\n');
        }
    }

    /// The trailing comment on the source line where `end` lies, if any.
    fn trailing(&mut self, end: usize) -> Option<String> {
        // The end of the line holding `end`, from the table of line ends (a
        // scan would be quadratic on a long line of many items).
        let line_end =
            self.line_ends.get(self.line_ends.partition_point(|&n| n < end)).copied().unwrap_or(self.text.len());
        if self.next < self.comments.len() {
            let c = &self.comments[self.next];
            if !c.own_line && c.at >= end && c.at < line_end {
                self.next += 1;
                return Some(c.text.clone());
            }
        }
        None
    }

    /// A blank line in the source between `from` and `to`.
    fn gap(&self, from: usize, to: usize) -> bool {
        let between = self.text.get(from..to).unwrap_or("");
        // Comments between are printed on their own; look at the text only.
        between.lines().skip(1).any(|l| l.trim().is_empty()) && between.matches('\n').count() >= 2
    }

    fn items(&mut self, items: &[Item], depth: usize, _end: usize) {
        // Lines of this block: (code, trailing comment), aligned at the end.
        let mut prev_end: Option<usize> = None;
        let mut i = 0;
        while i < items.len() {
            let start = items[i].span().start as usize;
            let had_comment = self.next < self.comments.len() && self.comments[self.next].at < start;
            if let Some(pe) = prev_end {
                let first_thing = if had_comment { self.comments[self.next].at } else { start };
                if self.gap(pe, first_thing) && !self.out.ends_with("\n\n") {
                    self.out.push('\n');
                }
            }
            let before = self.next;
            self.flush_comments(start, depth);
            if self.next > before {
                let c = &self.comments[self.next - 1];
                if self.gap(c.at, start) && !self.out.ends_with("\n\n") {
                    self.out.push('\n');
                }
            }
            // A run of one-line sections of the same shape is aligned.
            let run = self.aligned_run(&items[i..]);
            if run > 1 {
                self.section_run(&items[i..i + run], depth);
                prev_end = Some(items[i + run - 1].span().end as usize);
                i += run;
                continue;
            }
            match &items[i] {
                Item::Property(p) => {
                    let line = property(p);
                    let t = self.trailing(p.span.end as usize);
                    self.line(depth, &line, t);
                }
                Item::Section(s) => {
                    if let Some(one) = self.one_line(s, depth) {
                        let t = self.trailing(s.span.end as usize);
                        self.line(depth, &one, t);
                    } else {
                        let t = self.trailing(s.head.end as usize);
                        self.line(depth, &format!("{} {{", head(s)), t);
                        self.items(&s.items, depth + 1, s.span.end as usize);
                        self.flush_comments(s.span.end as usize, depth + 1);
                        let t = self.trailing(s.span.end as usize);
                        self.line(depth, "}", t);
                    }
                }
            }
            prev_end = Some(items[i].span().end as usize);
            i += 1;
        }
        self.align_trailing(depth);
    }

    fn line(&mut self, depth: usize, code: &str, trailing: Option<String>) {
        let start = self.out.len();
        self.out.push_str(&INDENT.repeat(depth));
        self.out.push_str(code);
        if let Some(c) = trailing {
            // Aligned with its neighbours at the end of the block.
            self.marks.push((start, self.out.len()));
            self.out.push_str(&c);
        }
        self.out.push('\n');
    }

    /// Aligns the trailing comments of consecutive lines written since the
    /// last call: only the end of the output is rebuilt, so formatting
    /// stays linear in the file.
    fn align_trailing(&mut self, _depth: usize) {
        let Some(&(first, _)) = self.marks.first() else { return };
        let marks = std::mem::take(&mut self.marks);
        let tail = self.out.split_off(first);
        let mut out = String::with_capacity(tail.len() + 2 * marks.len());
        let mut at = first;
        let mut i = 0;
        while i < marks.len() {
            // A run of marked lines, each starting where the last one ended.
            let mut j = i + 1;
            while j < marks.len()
                && tail[marks[j - 1].1 - first..].find('\n').map(|n| marks[j - 1].1 + n + 1) == Some(marks[j].0)
            {
                j += 1;
            }
            let width = marks[i..j].iter().map(|&(s, e)| tail[s - first..e - first].chars().count()).max().unwrap_or(0);
            for &(s, e) in &marks[i..j] {
                out.push_str(&tail[at - first..e - first]);
                let pad = width - tail[s - first..e - first].chars().count() + 2;
                out.extend(std::iter::repeat_n(' ', pad));
                at = e;
            }
            i = j;
        }
        out.push_str(&tail[at - first..]);
        self.out.push_str(&out);
    }

    fn one_line(&self, s: &Section, depth: usize) -> Option<String> {
        let span = &self.text[s.span.start as usize..s.span.end as usize];
        if span.contains('\n') || span.contains('#') || s.items.iter().any(|i| matches!(i, Item::Section(_))) {
            return None;
        }
        let body: Vec<String> =
            s.items.iter().filter_map(|i| if let Item::Property(p) = i { Some(property(p)) } else { None }).collect();
        let line = if body.is_empty() {
            format!("{} {{ }}", head(s))
        } else {
            format!("{} {{ {} }}", head(s), body.join("  "))
        };
        (line.len() + depth * INDENT.len() <= WIDTH).then_some(line)
    }

    /// How many items from the start form an alignable run of one-line
    /// sections (same kind, same keys).
    fn aligned_run(&self, items: &[Item]) -> usize {
        let shape = |i: &Item| -> Option<(String, Vec<String>)> {
            let Item::Section(s) = i else { return None };
            self.one_line(s, 0)?;
            Some((s.kind.name.clone(), s.items.iter().map(|i| i.key().name.clone()).collect()))
        };
        let Some(first) = shape(&items[0]) else { return 0 };
        let mut n = 1;
        while n < items.len() {
            // A comment or a blank line between ends the run.
            let (pe, st) = (items[n - 1].span().end as usize, items[n].span().start as usize);
            if self.text[pe..st].contains('#') || self.gap(pe, st) || shape(&items[n]).as_ref() != Some(&first) {
                break;
            }
            n += 1;
        }
        n
    }

    fn section_run(&mut self, items: &[Item], depth: usize) {
        let rows: Vec<(String, Vec<String>, u32)> = items
            .iter()
            .filter_map(|i| match i {
                Item::Section(s) => Some((
                    head(s),
                    s.items
                        .iter()
                        .filter_map(|i| if let Item::Property(p) = i { Some(property(p)) } else { None })
                        .collect(),
                    s.span.end,
                )),
                _ => None,
            })
            .collect();
        let head_w = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
        let cols = rows.iter().map(|r| r.1.len()).max().unwrap_or(0);
        let col_w: Vec<usize> = (0..cols)
            .map(|c| rows.iter().map(|r| r.1.get(c).map_or(0, |x| x.chars().count())).max().unwrap_or(0))
            .collect();
        for (h, props, end) in rows {
            let mut line = format!("{h:head_w$} {{");
            for (c, p) in props.iter().enumerate() {
                line.push(' ');
                if c + 1 < props.len() {
                    line.push_str(&format!("{p:w$}", w = col_w[c]));
                } else {
                    line.push_str(p);
                }
            }
            line.push_str(" }");
            let t = self.trailing(end as usize);
            self.line(depth, &line, t);
        }
    }
}

fn head(s: &Section) -> String {
    let mut h = String::new();
    if s.replace {
        h.push_str("replace ");
    }
    h.push_str(&s.kind.name);
    for l in &s.labels {
        h.push_str(&format!(" \"{}\"", escape(&l.value)));
    }
    h
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n").replace('\t', "\\t")
}

/// A property's values in canonical layout (`arbiter diff`, the language
/// server's outline).
pub fn values_text(p: &Property) -> String {
    values(&p.values).join(" ")
}

fn property(p: &Property) -> String {
    let values = values(&p.values);
    if values.is_empty() {
        format!("{}:", p.key.name)
    } else {
        format!("{}: {}", p.key.name, values.join(" "))
    }
}

/// Values that follow each other with only spaces between (a property's
/// values), each printed so that it is read back as a value of its own.
/// Whitespace carries no meaning in the grammar, so where two values could
/// run into one expression, brackets keep them apart:
/// - a value that starts with `-` not against a digit would be read as a
///   subtraction from the value before it (`[R B B] -high` is
///   `[R B B] - high`): its leading negation keeps its brackets,
///   `[R B B] (-high)`, `[R R B] (-mid) * 2`;
/// - a value that starts with `(` after one that ends in a word would be
///   read as a call (`w (x)` is `w(x)`): the value before is bracketed.
///
/// `-3` stays as it is: `-` against a digit is a negative value.
fn values(vals: &[Expr]) -> Vec<String> {
    let mut out: Vec<String> = vals.iter().enumerate().map(|(i, v)| expr_in(v, 0, i > 0)).collect();
    // From the right, so that a value bracketed here is seen by the one
    // before it.
    for i in (1..out.len()).rev() {
        if out[i].starts_with('(') && ends_in_word(&out[i - 1]) {
            out[i - 1] = format!("({})", out[i - 1]);
        }
    }
    out
}

/// A list's items: separated by spaces, or by commas throughout where two
/// items would run into one expression with spaces alone (`[a, -b]` is not
/// `[a -b]`, which is `[a - b]`; `[a, (b + c) * 2]` is not a call of `a`).
fn list_items(items: &[Expr]) -> String {
    let parts: Vec<String> = items.iter().map(|a| expr(a, 0)).collect();
    let joins = parts.windows(2).any(|w| {
        let next = &w[1];
        next.strip_prefix('-').is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_digit()))
            || next.starts_with('(') && ends_in_word(&w[0])
    });
    parts.join(if joins { ", " } else { " " })
}

/// The text ends in a character of a word, so that a `(` after it would
/// make a call (a number too: `3 (x)` is a call; after a field name the
/// brackets are not needed, and harmless).
fn ends_in_word(s: &str) -> bool {
    s.ends_with(|c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '\''))
}

fn prec(op: BinOp) -> u8 {
    match op {
        BinOp::Or => 1,
        BinOp::And => 2,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::In | BinOp::NotIn => 4,
        BinOp::Add | BinOp::Sub => 5,
        BinOp::Mul | BinOp::Div | BinOp::Rem => 6,
    }
}

/// An expression in canonical form; `outer` is the binding strength of the
/// context (parentheses are added where the tree needs them).
fn expr(e: &Expr, outer: u8) -> String {
    expr_in(e, outer, false)
}

/// [`expr`], where `after` says the text follows another value with only
/// spaces between: a leading `-` not against a digit is then bracketed, or
/// it would be read as a subtraction (see [`values`]).
fn expr_in(e: &Expr, outer: u8, after: bool) -> String {
    match &e.kind {
        ExprKind::Int(n) => n.to_string(),
        ExprKind::Str(s) if s.long => format!("\"\"\"{}\"\"\"", s.raw),
        ExprKind::Str(s) => format!("\"{}\"", s.raw),
        ExprKind::Word(w) => w.clone(),
        ExprKind::Call(f, args) => {
            let simple = args.iter().all(|a| matches!(a.kind, ExprKind::Int(_) | ExprKind::Word(_)));
            let parts: Vec<String> = args.iter().map(|a| expr(a, 0)).collect();
            format!("{}({})", f.name, parts.join(if simple { " " } else { ", " }))
        }
        ExprKind::List(items) => format!("[{}]", list_items(items)),
        ExprKind::Range(a, b) => format!("{}..{}", expr(a, 9), expr(b, 9)),
        ExprKind::Unary(UnOp::Neg, a) => {
            let operand = expr(a, 7);
            let joins = after && !operand.starts_with(|c: char| c.is_ascii_digit());
            wrap(format!("-{operand}"), 7, if joins { u8::MAX } else { outer })
        }
        ExprKind::Unary(UnOp::Not, a) => wrap(format!("not {}", expr(a, 3)), 3, outer),
        ExprKind::Binary(op, a, b) => {
            let p = prec(*op);
            // The left operand starts the text unless this is bracketed.
            let left = expr_in(a, p, after && p >= outer);
            wrap(format!("{left} {} {}", op.symbol(), expr(b, p + 1)), p, outer)
        }
        ExprKind::Field(a, f) => format!("{}.{}", expr_in(a, 8, after), f.name),
    }
}

fn wrap(s: String, own: u8, outer: u8) -> String {
    if own < outer {
        format!("({s})")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::{format, values_text};
    use crate::syntax::ast::*;
    use crate::syntax::parse::parse;

    /// An expression's tree without spans: what it means.
    fn tree(e: &Expr) -> String {
        let all = |es: &[Expr]| es.iter().map(tree).collect::<Vec<_>>().join(" ");
        match &e.kind {
            ExprKind::Int(n) => n.to_string(),
            ExprKind::Str(s) => format!("{:?}", s.raw),
            ExprKind::Word(w) => w.clone(),
            ExprKind::Call(f, args) => format!("({} {})", f.name, all(args)),
            ExprKind::List(items) => format!("[{}]", all(items)),
            ExprKind::Range(a, b) => format!("(.. {} {})", tree(a), tree(b)),
            ExprKind::Unary(op, a) => format!("({op:?} {})", tree(a)),
            ExprKind::Binary(op, a, b) => format!("({} {} {})", op.symbol(), tree(a), tree(b)),
            ExprKind::Field(a, f) => format!("(. {} {})", tree(a), f.name),
        }
    }

    /// Each property's key and the trees of its values, one per value.
    fn meaning(text: &str) -> Vec<(String, Vec<String>)> {
        fn walk(items: &[Item], out: &mut Vec<(String, Vec<String>)>) {
            for i in items {
                match i {
                    Item::Property(p) => out.push((p.key.name.clone(), p.values.iter().map(tree).collect())),
                    Item::Section(s) => walk(&s.items, out),
                }
            }
        }
        let mut out = Vec::new();
        walk(&parse(0, text).unwrap(), &mut out);
        out
    }

    /// Formats `text`, expects `want`, the same meaning and a fixed point.
    fn formats_to(text: &str, want: &str) {
        let once = format(text).unwrap();
        assert_eq!(once, want);
        assert_eq!(meaning(&once), meaning(text), "{once}");
        assert_eq!(format(&once).unwrap(), once);
    }

    /// `[R B B] (-high)` in a tower points table became `[R B B] -high`,
    /// which is `[R B B] - high`: a formula after a pattern keeps the
    /// brackets around a leading negation.
    #[test]
    fn a_value_keeps_the_brackets_that_keep_it_apart_from_the_one_before() {
        formats_to(
            "scoring {\n  points: [R R R] sum % 5  [R R B] mid  [R B B] (-high)  [B B B] 7\n}\n",
            "scoring {\n  points: [R R R] sum % 5 [R R B] mid [R B B] (-high) [B B B] 7\n}\n",
        );
        formats_to(
            "points: [R R B] (-mid) * 2  [R B B] ((-high)) + 1  [B B B] (-(a + b))\n",
            "points: [R R B] (-mid) * 2 [R B B] (-high) + 1 [B B B] (-(a + b))\n",
        );
        // Only where a value follows another; `-3` is a value of its own.
        formats_to(
            "x: (-a) 1 -3 \"s\" (--a) (-3) * b \"t\" (-a).f\ny: (-a) * 2\n",
            "x: -a 1 -3 \"s\" (--a) -3 * b \"t\" (-a).f\ny: -a * 2\n",
        );
        // A section on one line.
        formats_to("row { pays: [A] (-a)  wins: [B] 1 }\n", "row { pays: [A] (-a)  wins: [B] 1 }\n");
    }

    /// In a list, commas keep apart items that spaces alone would join.
    #[test]
    fn a_list_keeps_its_commas_where_they_separate() {
        formats_to(
            "x: [a, -b] [1, (-c) * 2] [a, (b + c) * 2] [1, -2, 3] [(a) (b)] [a, b]\n",
            "x: [a, -b] [1, -c * 2] [a, (b + c) * 2] [1 -2 3] [a b] [a b]\n",
        );
    }

    /// A value that starts with `(` after a word would make a call: the
    /// parser never gives such values, but a tree built otherwise prints
    /// the word in brackets.
    #[test]
    fn a_word_before_a_bracket_is_bracketed() {
        let values = |text: &str| match parse(0, text).unwrap().remove(0) {
            Item::Property(p) => p,
            Item::Section(_) => unreachable!(),
        };
        let mut p = values("x: a + w");
        p.values.extend(values("x: -y").values);
        let text = format!("x: {}\n", values_text(&p));
        assert_eq!(text, "x: (a + w) (-y)\n");
        assert_eq!(meaning(&text), [("x".to_string(), vec!["(+ a w)".to_string(), "(Neg y)".to_string()])]);
    }

    #[test]
    fn parentheses_follow_the_tree() {
        let out = format("x: (1 + 2) * 3 - -4\ny: not (a and b) or c\n").unwrap();
        assert_eq!(out, "x: (1 + 2) * 3 - -4\ny: not (a and b) or c\n");
    }

    #[test]
    fn comments_survive_and_formatting_is_idempotent() {
        let text = "# head\n\ndeck   {\n ranks: A 2   # two ranks\n    wrap:yes\n}\nrow \"a\" { pays: 1 }\nrow \"bb\" { pays: 10 }\n";
        let once = format(text).unwrap();
        assert_eq!(once, "# head\n\ndeck {\n  ranks: A 2  # two ranks\n  wrap: yes\n}\nrow \"a\"  { pays: 1 }\nrow \"bb\" { pays: 10 }\n");
        assert_eq!(format(&once).unwrap(), once);
    }
}
