//! Checking: typed access to the sections of a merged rule file, with a
//! diagnostic for every mistake. Lowerings (src/lower/) read their sections
//! through [`Block`] and [`Cx`], so that unknown keys, missing keys, wrong
//! types and unknown names are reported the same way for every engine, each
//! with its span and a "did you mean" where one is close.

use std::borrow::Cow;
use std::cell::RefCell;

use crate::diag::codes;
use crate::diag::{did_you_mean, Diag};
use crate::source::Span;
use crate::syntax::{Expr, ExprKind, Item, Label, Property, Section, UnOp};
use crate::template::{Fields, OutputLine};

/// The checking context: collects diagnostics.
#[derive(Debug, Default)]
pub struct Cx {
    pub diags: Vec<Diag>,
}

impl Cx {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, d: Diag) {
        self.diags.push(d);
    }

    pub fn has_errors(&self) -> bool {
        self.diags.iter().any(Diag::is_error)
    }

    /// Exactly one value, or an error at the property.
    pub fn one<'p>(&mut self, p: &'p Property, what: &str) -> Option<&'p Expr> {
        match p.values.as_slice() {
            [v] => Some(v),
            [] => {
                self.push(
                    Diag::error(codes::ARITY, p.key.span, format!("`{}` needs {what}", p.key.name))
                        .label(format!("expected {what} after this")),
                );
                None
            }
            [_, extra, ..] => {
                let d = Diag::error(
                    codes::ARITY,
                    extra.span.to(p.values_span()),
                    format!("`{}` takes one value, {what}", p.key.name),
                )
                .label("unexpected extra values");
                self.push(match negative_value(extra) {
                    Some(help) => d.help(help),
                    None => d,
                });
                None
            }
        }
    }

    /// A whole number (possibly negative).
    pub fn int(&mut self, e: &Expr, what: &str) -> Option<i64> {
        match &e.kind {
            ExprKind::Int(n) => Some(*n),
            ExprKind::Unary(UnOp::Neg, inner) => match inner.kind {
                ExprKind::Int(n) => Some(-n),
                _ => self.expected(e, what),
            },
            _ => self.expected(e, what),
        }
    }

    /// A whole number of at least `min`.
    pub fn int_at_least(&mut self, e: &Expr, min: i64, what: &str) -> Option<i64> {
        let n = self.int(e, what)?;
        if n < min {
            self.push(
                Diag::error(codes::OUT_OF_RANGE, e.span, format!("expected {what}, found `{n}`"))
                    .label(format!("must be at least {min}")),
            );
            return None;
        }
        Some(n)
    }

    /// A property holding one whole number.
    pub fn prop_int(&mut self, p: &Property, min: i64, what: &str) -> Option<i64> {
        let e = self.one(p, what)?;
        self.int_at_least(e, min, what)
    }

    /// `yes`/`no` (or `true`/`false`).
    pub fn flag(&mut self, p: &Property) -> Option<bool> {
        let e = self.one(p, "`yes` or `no`")?;
        match e.as_word() {
            Some("yes" | "true") => Some(true),
            Some("no" | "false") => Some(false),
            _ => self.expected(e, "`yes` or `no`"),
        }
    }

    /// A string literal.
    pub fn string<'e>(&mut self, e: &'e Expr, what: &str) -> Option<&'e crate::syntax::StrLit> {
        match &e.kind {
            ExprKind::Str(s) => Some(s),
            _ => self.expected(e, what),
        }
    }

    /// A bare word, a string holding a name, or a whole number read as a
    /// name (ranks `2` to `10`, a ball `25`).
    pub fn name<'e>(&mut self, e: &'e Expr, what: &str) -> Option<Cow<'e, str>> {
        match &e.kind {
            ExprKind::Word(w) => Some(Cow::Borrowed(w)),
            ExprKind::Str(s) => Some(Cow::Borrowed(&s.value)),
            ExprKind::Int(n) => Some(Cow::Owned(n.to_string())),
            _ => self.expected(e, what),
        }
    }

    /// A word that must be one of `choices`.
    pub fn choice<'c>(&mut self, e: &Expr, choices: &[&'c str], what: &str) -> Option<&'c str> {
        let w = self.name(e, what)?;
        match choices.iter().find(|c| **c == w) {
            Some(c) => Some(c),
            None => {
                self.unknown(e.span, what, &w, choices.iter().copied());
                None
            }
        }
    }

    /// An output template whose fields must be among those of `F`.
    pub fn template<F: Fields>(&mut self, p: &Property) -> Option<OutputLine<F>> {
        let e = self.one(p, "an output template (a string)")?;
        let s = self.string(e, "an output template (a string)")?;
        match OutputLine::parse(s) {
            Ok(t) => Some(t),
            Err(d) => {
                self.push(d);
                None
            }
        }
    }

    /// Reports "expected X, found Y" and returns `None`.
    pub fn expected<T>(&mut self, e: &Expr, what: &str) -> Option<T> {
        self.push(
            Diag::error(codes::TYPE, e.span, format!("expected {what}, found {}", e.describe()))
                .label(format!("expected {what}")),
        );
        None
    }

    /// An unknown name with a "did you mean" from `known`.
    pub fn unknown<'a>(
        &mut self,
        span: Span,
        what: &str,
        name: &str,
        known: impl IntoIterator<Item = &'a str> + Clone,
    ) {
        self.push(
            Diag::error(codes::UNKNOWN_NAME, span, format!("expected {what}, found `{name}`"))
                .label(format!("not {what}"))
                .suggest_among(name, known),
        );
    }
}

/// "a" or "an", for a noun.
fn article(noun: &str) -> &'static str {
    if noun.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// The help for a value `-N` after another one (`pays: 10 -1`): a negative
/// number, not a subtraction.
fn negative_value(extra: &Expr) -> Option<String> {
    let ExprKind::Unary(UnOp::Neg, n) = &extra.kind else { return None };
    let ExprKind::Int(n) = n.kind else { return None };
    Some(format!("`-{n}` against its digits is a negative number, a value of its own; a subtraction has spaces on both sides: `- {n}`"))
}

/// A list of items (the whole file, or a section's body) read by key. Every
/// key asked for is remembered; [`Block::finish`] reports the keys nobody
/// asked for, with a suggestion among those that were.
pub struct Block<'a> {
    items: &'a [Item],
    /// What this block is, for messages ("the `deck` section").
    pub what: String,
    /// Where to point when a required key is missing.
    pub head: Span,
    asked: RefCell<Vec<&'static str>>,
    /// The section's kind (empty for the top level): what [`record_asks`]
    /// records.
    kind: &'a str,
}

/// A key a lowering asked a [`Block`] for, as [`record_asks`] records it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Asked {
    /// The kind of the section asked (empty for the top level).
    pub section: String,
    pub key: &'static str,
    /// Asked as a section kind (`sections`), not as a property (`prop`).
    pub is_section: bool,
}

thread_local! {
    static RECORDING: RefCell<Option<Vec<Asked>>> = const { RefCell::new(None) };
}

/// Runs `f` and returns, with its result, every key a lowering asked a
/// [`Block`] for meanwhile (the schema test compares them with
/// `engines::schema`).
pub fn record_asks<T>(f: impl FnOnce() -> T) -> (T, Vec<Asked>) {
    let before = RECORDING.with(|r| r.replace(Some(Vec::new())));
    let out = f();
    let asked = RECORDING.with(|r| r.replace(before)).unwrap_or_default();
    (out, asked)
}

/// A name a lowering resolved: a use of something the file defines (a
/// rank in a pattern, a ball in a condition, a player, a cell family), as
/// [`record_names`] records it. `kind` is the schema's kind of the name
/// (`rank`, `ball`), `None` where the name may be of several kinds (an
/// element of an expression's sets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolved {
    pub kind: Option<&'static str>,
    pub span: Span,
}

thread_local! {
    static NAMES: RefCell<Option<Vec<Resolved>>> = const { RefCell::new(None) };
}

/// Runs `f` and returns, with its result, every name a lowering resolved
/// meanwhile (the language server's rename and references read them: a
/// word is a use of a name only where the lowering took it for one).
pub fn record_names<T>(f: impl FnOnce() -> T) -> (T, Vec<Resolved>) {
    let before = NAMES.with(|r| r.replace(Some(Vec::new())));
    let out = f();
    let names = NAMES.with(|r| r.replace(before)).unwrap_or_default();
    (out, names)
}

/// Notes that the name at `span` was resolved (nothing unless recording).
pub fn resolved(kind: Option<&'static str>, span: Span) {
    NAMES.with(|r| {
        if let Some(v) = r.borrow_mut().as_mut() {
            v.push(Resolved { kind, span });
        }
    });
}

impl<'a> Block<'a> {
    pub fn new(items: &'a [Item], what: impl Into<String>, head: Span) -> Self {
        Block { items, what: what.into(), head, asked: RefCell::new(Vec::new()), kind: "" }
    }

    pub fn of_section(s: &'a Section) -> Self {
        let what = match s.name() {
            Some(l) => format!("`{} \"{}\"`", s.kind.name, l.value),
            None => format!("the `{}` section", s.kind.name),
        };
        Block { kind: &s.kind.name, ..Block::new(&s.items, what, s.head) }
    }

    fn ask(&self, key: &'static str, is_section: bool) {
        RECORDING.with(|r| {
            if let Some(rec) = r.borrow_mut().as_mut() {
                rec.push(Asked { section: self.kind.to_string(), key, is_section });
            }
        });
        let mut asked = self.asked.borrow_mut();
        if !asked.contains(&key) {
            asked.push(key);
        }
    }

    /// The property `key`, if present. A repeated key is reported.
    pub fn prop(&self, cx: &mut Cx, key: &'static str) -> Option<&'a Property> {
        self.ask(key, false);
        let mut found = self.items.iter().filter_map(|i| match i {
            Item::Property(p) if p.key.name == key => Some(p),
            _ => None,
        });
        let first = found.next()?;
        for again in found {
            cx.push(
                Diag::error(codes::DUPLICATE, again.key.span, format!("`{key}` is given twice in {}", self.what))
                    .label("given again here")
                    .note(first.key.span, "first given here"),
            );
        }
        Some(first)
    }

    /// The property `key`, or an error at the block's head.
    pub fn require(&self, cx: &mut Cx, key: &'static str, example: &str) -> Option<&'a Property> {
        let p = self.prop(cx, key);
        if p.is_none() {
            cx.push(
                Diag::error(codes::MISSING, self.head, format!("{} has no `{key}`", self.what))
                    .label(format!("`{key}` is missing here"))
                    .help(format!("add `{key}: {example}`")),
            );
        }
        p
    }

    /// All sections of a kind, in order.
    pub fn sections(&self, kind: &'static str) -> Vec<&'a Section> {
        self.ask(kind, true);
        self.items
            .iter()
            .filter_map(|i| match i {
                Item::Section(s) if s.kind.name == kind => Some(s),
                _ => None,
            })
            .collect()
    }

    /// All sections of a kind with their names (`kind "NAME" { ... }`), in
    /// order. A section without a name, or with the name of an earlier one,
    /// is reported and left out. `noun` names one ("combination").
    pub fn named_sections(&self, cx: &mut Cx, kind: &'static str, noun: &str) -> Vec<(&'a Section, &'a Label)> {
        let mut out: Vec<(&'a Section, &'a Label)> = Vec::new();
        for s in self.sections(kind) {
            let Some(name) = s.name() else {
                cx.push(
                    Diag::error(codes::MISSING, s.head, format!("{} {noun} needs a name", article(noun)))
                        .label("no name")
                        .help(format!("write `{kind} \"NAME\" {{ ... }}`")),
                );
                continue;
            };
            if let Some((_, first)) = out.iter().find(|(_, n)| n.value == name.value) {
                cx.push(
                    Diag::error(codes::DUPLICATE, name.span, format!("{noun} `{}` is defined twice", name.value))
                        .label("defined again here")
                        .note(first.span, "first defined here"),
                );
                continue;
            }
            out.push((s, name));
        }
        out
    }

    /// The one section of a kind, if present (a repeat is reported).
    pub fn section(&self, cx: &mut Cx, kind: &'static str) -> Option<&'a Section> {
        let all = self.sections(kind);
        for again in all.iter().skip(1) {
            cx.push(
                Diag::error(codes::DUPLICATE, again.head, format!("`{kind}` appears twice in {}", self.what))
                    .label("second one")
                    .note(all[0].head, "first one"),
            );
        }
        all.first().copied()
    }

    /// The one section of a kind, or an error at the block's head.
    pub fn require_section(&self, cx: &mut Cx, kind: &'static str) -> Option<&'a Section> {
        let s = self.section(cx, kind);
        if s.is_none() {
            cx.push(
                Diag::error(codes::MISSING, self.head, format!("{} has no `{kind}` section", self.what))
                    .label(format!("`{kind} {{ ... }}` is missing")),
            );
        }
        s
    }

    /// Reports every item whose key was never asked for.
    pub fn finish(self, cx: &mut Cx) {
        let asked = self.asked.into_inner();
        for item in self.items {
            let key = item.key();
            if asked.contains(&key.name.as_str()) {
                continue;
            }
            let kind = if matches!(item, Item::Section(_)) { "section" } else { "property" };
            let list = asked.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
            let d =
                Diag::error(codes::UNKNOWN_KEY, key.span, format!("unknown {kind} `{}` in {}", key.name, self.what))
                    .label(format!("not a {kind} of {}", self.what));
            let d = match did_you_mean(&key.name, asked.iter().copied()) {
                Some(s) => d.help(format!("did you mean `{s}`?")),
                None if !asked.is_empty() => d.help(format!("expected one of {list}")),
                None => d,
            };
            cx.push(d);
        }
    }
}
