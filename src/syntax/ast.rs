//! The abstract syntax of a rule file. Every node carries its [`Span`].

use crate::source::Span;

/// A name as written, with its place.
#[derive(Debug, Clone, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// One entry of a rule file or of a section.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Property(Property),
    Section(Section),
}

impl Item {
    pub fn span(&self) -> Span {
        match self {
            Item::Property(p) => p.span,
            Item::Section(s) => s.span,
        }
    }

    /// The key of a property or the kind of a section.
    pub fn key(&self) -> &Ident {
        match self {
            Item::Property(p) => &p.key,
            Item::Section(s) => &s.kind,
        }
    }
}

/// `key: value value ...`
#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    pub key: Ident,
    pub values: Vec<Expr>,
    pub span: Span,
}

impl Property {
    /// The span of the values (the key when there are none).
    pub fn values_span(&self) -> Span {
        match (self.values.first(), self.values.last()) {
            (Some(a), Some(b)) => a.span.to(b.span),
            _ => self.key.span,
        }
    }
}

/// `kind "label" ... { items }`, or with `replace` in front.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub kind: Ident,
    pub labels: Vec<Label>,
    pub items: Vec<Item>,
    /// `replace`: in a variant, replaces the base section instead of merging.
    pub replace: bool,
    /// From the kind to the last label.
    pub head: Span,
    pub span: Span,
}

impl Section {
    /// The first label, if any (`"pair"` in `group "pair" {}`).
    pub fn name(&self) -> Option<&Label> {
        self.labels.first()
    }

    /// Where property `key` is written (the section's head when it is not):
    /// what explanations point at.
    pub fn span_of(&self, key: &str) -> Span {
        self.items
            .iter()
            .find_map(|i| match i {
                Item::Property(p) if p.key.name == key => Some(p.span),
                _ => None,
            })
            .unwrap_or(self.head)
    }
}

/// A section label (always a string in the source).
#[derive(Debug, Clone, PartialEq)]
pub struct Label {
    pub value: String,
    pub span: Span,
}

/// A string literal: its value with escapes resolved, and the raw text
/// between the quotes (templates are parsed from the raw text, so that
/// their spans map back to the file exactly).
#[derive(Debug, Clone, PartialEq)]
pub struct StrLit {
    pub value: String,
    pub raw: String,
    /// Span of the raw text (inside the quotes).
    pub raw_span: Span,
    /// Triple-quoted: spans lines, no escapes.
    pub long: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    Int(i64),
    Str(StrLit),
    /// A bare name: `Straight`, `A`, `yes`, `on`.
    Word(String),
    /// `f(a, b)`
    Call(Ident, Vec<Expr>),
    /// `[a b c]`
    List(Vec<Expr>),
    /// `A..T`
    Range(Box<Expr>, Box<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `a.value`
    Field(Box<Expr>, Ident),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    In,
    NotIn,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::In => "in",
            BinOp::NotIn => "not in",
        }
    }
}

impl Expr {
    /// The word, if this expression is a bare word.
    pub fn as_word(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Word(w) => Some(w),
            _ => None,
        }
    }

    /// Pushes the expressions directly inside this one onto `todo` (for
    /// walks with an explicit stack: expressions may be deep).
    pub fn push_children<'e>(&'e self, todo: &mut Vec<&'e Expr>) {
        match &self.kind {
            ExprKind::Call(_, args) | ExprKind::List(args) => todo.extend(args),
            ExprKind::Range(a, b) | ExprKind::Binary(_, a, b) => todo.extend([&**a, &**b]),
            ExprKind::Unary(_, a) | ExprKind::Field(a, _) => todo.push(a),
            ExprKind::Word(_) | ExprKind::Int(_) | ExprKind::Str(_) => {}
        }
    }

    /// How the expression is described in "found ..." messages.
    pub fn describe(&self) -> String {
        match &self.kind {
            ExprKind::Int(n) => format!("the number `{n}`"),
            ExprKind::Str(s) => format!("the string \"{}\"", s.raw),
            ExprKind::Word(w) => format!("`{w}`"),
            ExprKind::Call(f, _) => format!("a call to `{}`", f.name),
            ExprKind::List(_) => "a list".to_string(),
            ExprKind::Range(..) => "a range".to_string(),
            ExprKind::Unary(UnOp::Neg, inner) => match inner.kind {
                ExprKind::Int(n) => format!("the number `-{n}`"),
                _ => "a negation".to_string(),
            },
            ExprKind::Unary(UnOp::Not, _) => "a `not` expression".to_string(),
            ExprKind::Binary(op, ..) => format!("an expression with `{}`", op.symbol()),
            ExprKind::Field(_, f) => format!("the field `.{}`", f.name),
        }
    }
}
