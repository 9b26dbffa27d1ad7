//! Rule expressions compiled into closures at load time.
//!
//! An engine declares the typed variables an expression may read (sets,
//! numbers, conditions) and the named elements sets are made of (with a
//! weight each); [`compile`] resolves every name, checks every type, bounds
//! every number and returns a closure tree. Running it reads only an [`Env`]
//! of bitmasks and numbers: no name, no AST. Sets hold at most 64 elements
//! (one bit each).
//!
//! | form | type |
//! | --- | --- |
//! | `12`, `a + b`, `a - b`, `a * b`, `a / b`, `a % b`, `-a` | number |
//! | `count(s)`, `highest(s)`, `lowest(s)`, `min(a, b..)`, `max(a, b..)`, `abs(a)` | number |
//!
//! `count(s)` counts elements; where an engine's set variables hold several
//! of an element (`Scope::counts`: balls of a kind), it counts those: each
//! element of `s` as many times as the largest count among the variables
//! `s` is made from that hold it (once when none does: a named element).
//! | an element name, `[x y]`, `s + t` (union), `s - t` (difference) | set |
//! | a variable: `potted`, or with a dot `a.row` (one of several things) | its type |
//! | `a == b`, `a != b` (numbers or sets), `a < b` ... (numbers) | condition |
//! | `s in t`, `s not in t` (every element of s is in t) | condition |
//! | `and`, `or`, `not`, `yes`, `no` | condition |
//! | `if(c, a, b)`: `a` when `c` holds, else `b` (any type, both alike) | |
//!
//! Robustness: a run of one operator family (`a or b or c ...`,
//! `a + b - c ...`) compiles into one closure over a list, so a chain of
//! any length costs no stack, at load or at run time; any other nesting
//! deeper than [`MAX_DEPTH`] is refused (`too-deep`). Every number
//! expression carries the range of values it can take, from the constants,
//! the weights and [`Scope::int_range`]; an expression that could leave the
//! 64-bit range is refused (`overflow`), so a closure never wraps.

use crate::check::Cx;
use crate::diag::codes;
use crate::diag::Diag;
use crate::source::Span;
use crate::syntax::{BinOp, Expr, ExprKind, UnOp};

/// Deepest nesting of an expression, once runs of one operator family
/// count as one level.
pub const MAX_DEPTH: usize = 128;

/// The type of a variable or an expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    Int,
    Bool,
    Set,
}

impl Ty {
    fn what(self) -> &'static str {
        match self {
            Ty::Int => "a number",
            Ty::Bool => "a condition",
            Ty::Set => "a set",
        }
    }
}

/// The values of the variables while an expression runs: set variables in
/// `sets`, number and condition variables (0 is false) in `ints`, each in
/// declaration order among its kind.
pub struct Env<'a> {
    pub sets: &'a [u64],
    pub ints: &'a [i64],
}

pub type IntFn = Box<dyn Fn(&Env) -> i64 + Send + Sync>;
pub type BoolFn = Box<dyn Fn(&Env) -> bool + Send + Sync>;
pub type SetFn = Box<dyn Fn(&Env) -> u64 + Send + Sync>;

macro_rules! compiled_expr {
    ($(#[$doc:meta])* $name:ident, $t:ty, $f:ident, $field:ident) => {
        $(#[$doc])*
        /// Constants and plain variables are read in place; anything else
        /// is a closure tree.
        pub enum $name {
            Const($t),
            /// The n-th variable of its kind (`Env::sets` or `Env::ints`).
            Var(usize),
            Fn($f),
        }

        impl $name {
            /// The value for these variables.
            #[inline(always)]
            pub fn eval(&self, env: &Env) -> $t {
                match self {
                    $name::Const(c) => *c,
                    $name::Var(k) => $name::read(env, *k),
                    $name::Fn(f) => f(env),
                }
            }

            /// Variable `k` of this type.
            #[inline(always)]
            fn read(env: &Env, k: usize) -> $t {
                compiled_expr!(@read $field env k)
            }

            /// The value when it does not depend on the variables.
            pub fn constant(&self) -> Option<$t> {
                match self {
                    $name::Const(c) => Some(*c),
                    _ => None,
                }
            }
        }
    };
    (@read sets $env:ident $k:ident) => { $env.sets[$k] };
    (@read ints $env:ident $k:ident) => { $env.ints[$k] };
    (@read flag $env:ident $k:ident) => { $env.ints[$k] != 0 };
}

compiled_expr!(
    /// A compiled set expression.
    SetExpr, u64, SetFn, sets
);
compiled_expr!(
    /// A compiled number expression.
    IntExpr, i64, IntFn, ints
);
compiled_expr!(
    /// A compiled condition.
    BoolExpr, bool, BoolFn, flag
);

/// `count(s)` of a set whose elements the variables `counted` (index among
/// the sets, where their counts are in `Env::ints`) may hold several of:
/// each element as many times as the largest count among those holding it,
/// once when none does.
fn count_many(env: &Env, mut set: u64, counted: &[(usize, usize, i64)]) -> i64 {
    let mut total = 0i64;
    while set != 0 {
        let i = set.trailing_zeros() as usize;
        set &= set - 1;
        let mut n: Option<i64> = None;
        for &(k, at, _) in counted {
            if env.sets[k] >> i & 1 == 1 {
                n = Some(n.unwrap_or(0).max(env.ints[at + i]));
            }
        }
        total = total.saturating_add(n.unwrap_or(1));
    }
    total
}

/// `f(x)` for a compiled operand of type `$xt`, folded when it is a
/// constant; a variable operand is read in the closure itself.
macro_rules! lift1 {
    ($out:ident, $xt:ident, $x:expr, |$a:ident| $body:expr) => {{
        match $x {
            $xt::Const($a) => $out::Const($body),
            $xt::Var(i) => $out::Fn(Box::new(move |env| {
                let $a = $xt::read(env, i);
                $body
            })),
            $xt::Fn(f) => $out::Fn(Box::new(move |env| {
                let $a = f(env);
                $body
            })),
        }
    }};
}

/// `f(x, y)` for two compiled operands (of types `$xt`, `$yt`), folded
/// when both are constants. Each shape of operands (constant, variable,
/// closure) gets its own closure, so that a constant or a variable costs
/// no call and no branch when it runs.
macro_rules! lift2 {
    ($out:ident, $xt:ident, $x:expr, $yt:ident, $y:expr, |$a:ident, $b:ident| $body:expr) => {{
        match ($x, $y) {
            ($xt::Const($a), $yt::Const($b)) => $out::Const($body),
            ($xt::Const($a), $yt::Var(j)) => $out::Fn(Box::new(move |env| {
                let $b = $yt::read(env, j);
                $body
            })),
            ($xt::Const($a), $yt::Fn(g)) => $out::Fn(Box::new(move |env| {
                let $b = g(env);
                $body
            })),
            ($xt::Var(i), $yt::Const($b)) => $out::Fn(Box::new(move |env| {
                let $a = $xt::read(env, i);
                $body
            })),
            ($xt::Var(i), $yt::Var(j)) => $out::Fn(Box::new(move |env| {
                let ($a, $b) = ($xt::read(env, i), $yt::read(env, j));
                $body
            })),
            ($xt::Var(i), $yt::Fn(g)) => $out::Fn(Box::new(move |env| {
                let ($a, $b) = ($xt::read(env, i), g(env));
                $body
            })),
            ($xt::Fn(f), $yt::Const($b)) => $out::Fn(Box::new(move |env| {
                let $a = f(env);
                $body
            })),
            ($xt::Fn(f), $yt::Var(j)) => $out::Fn(Box::new(move |env| {
                let ($a, $b) = (f(env), $yt::read(env, j));
                $body
            })),
            ($xt::Fn(f), $yt::Fn(g)) => $out::Fn(Box::new(move |env| {
                let ($a, $b) = (f(env), g(env));
                $body
            })),
        }
    }};
}

/// The values a number expression can take, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    pub lo: i64,
    pub hi: i64,
}

impl Range {
    fn new(lo: i128, hi: i128) -> Option<Range> {
        Some(Range { lo: i64::try_from(lo).ok()?, hi: i64::try_from(hi).ok()? })
    }

    fn union(self, o: Range) -> Range {
        Range { lo: self.lo.min(o.lo), hi: self.hi.max(o.hi) }
    }

    /// The widest value by magnitude.
    fn magnitude(self) -> i128 {
        (self.lo as i128).abs().max((self.hi as i128).abs())
    }
}

/// A compiled expression of one of the three types.
pub enum AnyExpr {
    Int(IntExpr, Range),
    Bool(BoolExpr),
    Set(SetExpr),
}

impl AnyExpr {
    fn ty(&self) -> Ty {
        match self {
            AnyExpr::Int(..) => Ty::Int,
            AnyExpr::Bool(_) => Ty::Bool,
            AnyExpr::Set(_) => Ty::Set,
        }
    }
}

/// What names an expression may use.
pub struct Scope<'s> {
    /// Variables, in declaration order: the n-th set variable is
    /// `Env::sets[n]`, the n-th number or condition variable `Env::ints[n]`.
    pub vars: &'s [(&'s str, Ty)],
    /// Named elements of sets (bit i is element i).
    pub elements: &'s [String],
    /// The weight of each element (for `highest`, `lowest`).
    pub weights: &'s [i64],
    /// What an element is called in messages ("a ball").
    pub element: &'s str,
    /// Every number variable lies in this range (for the overflow bound).
    pub int_range: (i64, i64),
    /// Names that exist but cannot be used here, with the reason.
    pub unavailable: &'s [(&'s str, &'s str)],
    /// Set variables that hold several of an element (balls of a kind):
    /// for the n-th set variable, `Some((at, most))` when the count of
    /// element i in it is `Env::ints[at + i]`, at most `most`. Absent (or
    /// `None`): each element once. `count(s)` adds up these counts.
    pub counts: &'s [Option<(usize, i64)>],
}

/// Compiles `e`, which must have type `want`.
pub fn compile(e: &Expr, want: Ty, scope: &Scope, cx: &mut Cx) -> Option<AnyExpr> {
    let c = Compiler { scope, cx, too_deep: false }.node(e, 0)?;
    if c.ty() != want {
        cx.push(
            Diag::error(codes::TYPE, e.span, format!("expected {}, found {}", want.what(), c.ty().what()))
                .label(format!("this is {}", c.ty().what())),
        );
        return None;
    }
    Some(c)
}

pub fn compile_bool(e: &Expr, scope: &Scope, cx: &mut Cx) -> Option<BoolExpr> {
    match compile(e, Ty::Bool, scope, cx)? {
        AnyExpr::Bool(f) => Some(f),
        _ => None,
    }
}

/// A number expression and the range of its values.
pub fn compile_int(e: &Expr, scope: &Scope, cx: &mut Cx) -> Option<(IntExpr, Range)> {
    match compile(e, Ty::Int, scope, cx)? {
        AnyExpr::Int(f, r) => Some((f, r)),
        _ => None,
    }
}

pub fn compile_set(e: &Expr, scope: &Scope, cx: &mut Cx) -> Option<SetExpr> {
    match compile(e, Ty::Set, scope, cx)? {
        AnyExpr::Set(f) => Some(f),
        _ => None,
    }
}

/// Operators that chain left to right into one list closure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Logic,
    Arith,
}

fn family(op: BinOp) -> Option<Family> {
    use BinOp::*;
    match op {
        And | Or => Some(Family::Logic),
        Add | Sub | Mul | Div | Rem => Some(Family::Arith),
        _ => None,
    }
}

struct Compiler<'c, 's> {
    scope: &'c Scope<'s>,
    cx: &'c mut Cx,
    /// `too-deep` was reported (once per expression).
    too_deep: bool,
}

impl Compiler<'_, '_> {
    fn mismatch<T>(&mut self, e: &Expr, want: &str, got: Ty) -> Option<T> {
        self.cx.push(
            Diag::error(codes::TYPE, e.span, format!("expected {want}, found {}", got.what()))
                .label(format!("this is {}", got.what())),
        );
        None
    }

    fn overflow<T>(&mut self, span: Span, what: &str) -> Option<T> {
        self.cx.push(
            Diag::error(codes::OVERFLOW, span, format!("{what} can pass the largest number arbiter keeps (2^63 - 1)"))
                .label("this can overflow")
                .help("use smaller numbers: values and constants bound every number an expression can reach"),
        );
        None
    }

    fn int(&mut self, e: &Expr, depth: usize) -> Option<(IntExpr, Range)> {
        match self.node(e, depth)? {
            AnyExpr::Int(f, r) => Some((f, r)),
            c => self.mismatch(e, "a number", c.ty()),
        }
    }

    fn set(&mut self, e: &Expr, depth: usize) -> Option<SetExpr> {
        match self.node(e, depth)? {
            AnyExpr::Set(f) => Some(f),
            c => self.mismatch(e, "a set", c.ty()),
        }
    }

    fn cond(&mut self, e: &Expr, depth: usize) -> Option<BoolExpr> {
        match self.node(e, depth)? {
            AnyExpr::Bool(f) => Some(f),
            c => self.mismatch(e, "a condition", c.ty()),
        }
    }

    fn node(&mut self, e: &Expr, depth: usize) -> Option<AnyExpr> {
        if depth > MAX_DEPTH {
            if !self.too_deep {
                self.too_deep = true;
                self.cx.push(
                    Diag::error(codes::TOO_DEEP, e.span, format!("an expression nested more than {MAX_DEPTH} deep"))
                        .label("too deep")
                        .help("split the expression, or write runs of `and`, `or`, `+` without brackets"),
                );
            }
            return None;
        }
        Some(match &e.kind {
            ExprKind::Int(n) => {
                let n = *n;
                AnyExpr::Int(IntExpr::Const(n), Range { lo: n, hi: n })
            }
            ExprKind::Word(w) => self.word(e, w)?,
            ExprKind::List(items) => {
                let mut parts = Vec::new();
                let mut known = 0u64;
                for it in items {
                    match self.set(it, depth + 1)? {
                        SetExpr::Const(c) => known |= c,
                        part => parts.push(part),
                    }
                }
                AnyExpr::Set(match parts.len() {
                    0 => SetExpr::Const(known),
                    _ => SetExpr::Fn(Box::new(move |env| parts.iter().fold(known, |acc, f| acc | f.eval(env)))),
                })
            }
            ExprKind::Call(f, args) => self.call(e, &f.name, f.span, args, depth)?,
            // `a.row`: a variable whose name has a dot (the engine's state
            // of one of several things, such as two cards).
            ExprKind::Field(base, f) if base.as_word().is_some() => {
                let name = format!("{}.{}", base.as_word().unwrap_or_default(), f.name);
                self.word(e, &name)?
            }
            ExprKind::Unary(UnOp::Neg, a) => {
                let (a, r) = self.int(a, depth + 1)?;
                let Some(r) = Range::new(-(r.hi as i128), -(r.lo as i128)) else {
                    return self.overflow(e.span, "this negation");
                };
                AnyExpr::Int(lift1!(IntExpr, IntExpr, a, |a| a.wrapping_neg()), r)
            }
            ExprKind::Unary(UnOp::Not, a) => {
                let a = self.cond(a, depth + 1)?;
                AnyExpr::Bool(lift1!(BoolExpr, BoolExpr, a, |a| !a))
            }
            ExprKind::Binary(op, a, b) => match family(*op) {
                Some(fam) => self.chain(e, fam, depth)?,
                None => self.binary(e, *op, a, b, depth)?,
            },
            _ => {
                self.cx.push(
                    Diag::error(codes::TYPE, e.span, format!("{} cannot be used in an expression here", e.describe()))
                        .label("not a number, a set or a condition"),
                );
                return None;
            }
        })
    }

    fn word(&mut self, e: &Expr, w: &str) -> Option<AnyExpr> {
        let scope = self.scope;
        if let Some(i) = scope.vars.iter().position(|(n, _)| *n == w) {
            let ty = scope.vars[i].1;
            let k = scope.vars[..i].iter().filter(|(_, t)| (*t == Ty::Set) == (ty == Ty::Set)).count();
            let (lo, hi) = scope.int_range;
            return Some(match ty {
                Ty::Set => AnyExpr::Set(SetExpr::Var(k)),
                Ty::Int => AnyExpr::Int(IntExpr::Var(k), Range { lo, hi }),
                Ty::Bool => AnyExpr::Bool(BoolExpr::Var(k)),
            });
        }
        if let Some(i) = scope.elements.iter().position(|n| n == w) {
            crate::check::resolved(None, e.span);
            let Some(bit) = 1u64.checked_shl(i as u32) else {
                self.cx.push(
                    Diag::error(codes::TOO_LARGE, e.span, format!("sets hold at most 64 of {}", scope.element))
                        .label("one too many"),
                );
                return None;
            };
            return Some(AnyExpr::Set(SetExpr::Const(bit)));
        }
        match w {
            "yes" => return Some(AnyExpr::Bool(BoolExpr::Const(true))),
            "no" => return Some(AnyExpr::Bool(BoolExpr::Const(false))),
            _ => {}
        }
        if let Some((_, why)) = scope.unavailable.iter().find(|(n, _)| *n == w) {
            self.cx.push(
                Diag::error(codes::UNKNOWN_NAME, e.span, format!("`{w}` cannot be used here"))
                    .label("not available here")
                    .help(why.to_string()),
            );
            return None;
        }
        let known =
            scope.vars.iter().map(|(n, _)| *n).chain(scope.elements.iter().map(String::as_str)).chain(["yes", "no"]);
        let what = format!("{} or a variable", scope.element);
        self.cx.push(
            Diag::error(codes::UNKNOWN_NAME, e.span, format!("expected {what}, found `{w}`"))
                .label(format!("not {what}"))
                .suggest_among(w, known),
        );
        None
    }

    /// A run of one operator family, left to right: `a or b and c`,
    /// `a + b * c - d` (the operators of the run; `b * c` is one operand
    /// when it binds tighter). Walked without recursion on the run.
    fn chain(&mut self, e: &Expr, fam: Family, depth: usize) -> Option<AnyExpr> {
        // The left spine: (operator, right operand, span of the node).
        let mut links: Vec<(BinOp, &Expr, Span)> = Vec::new();
        let mut base = e;
        while let ExprKind::Binary(op, l, r) = &base.kind {
            if family(*op) != Some(fam) {
                break;
            }
            links.push((*op, r, base.span));
            base = l;
        }
        links.reverse();
        match fam {
            Family::Logic => {
                let first = self.cond(base, depth + 1);
                let mut rest = Vec::with_capacity(links.len());
                let mut ok = first.is_some();
                for &(op, r, _) in &links {
                    match self.cond(r, depth + 1) {
                        Some(f) => rest.push((op == BinOp::Or, f)),
                        None => ok = false,
                    }
                }
                let first = first.filter(|_| ok)?;
                Some(AnyExpr::Bool(logic(first, rest)))
            }
            Family::Arith => {
                let acc = self.node(base, depth + 1)?;
                if links.len() == 1 {
                    let (op, r, span) = links[0];
                    let y = self.node(r, depth + 1)?;
                    return self.arith(span, op, acc, y);
                }
                match acc {
                    AnyExpr::Int(first, mut range) => {
                        let mut rest: Vec<(BinOp, IntExpr)> = Vec::with_capacity(links.len());
                        for &(op, r, span) in &links {
                            let (f, fr) = match self.node(r, depth + 1)? {
                                AnyExpr::Int(f, fr) => (f, fr),
                                other => return self.between(span, op, Ty::Int, other.ty()),
                            };
                            range = self.arith_range(span, op, range, fr)?;
                            rest.push((op, f));
                        }
                        Some(AnyExpr::Int(
                            IntExpr::Fn(Box::new(move |env| {
                                rest.iter().fold(first.eval(env), |acc, (op, f)| apply(*op, acc, f.eval(env)))
                            })),
                            range,
                        ))
                    }
                    AnyExpr::Set(first) => {
                        let mut rest: Vec<(bool, SetExpr)> = Vec::with_capacity(links.len());
                        for &(op, r, span) in &links {
                            let f = match self.node(r, depth + 1)? {
                                AnyExpr::Set(f) => f,
                                other => return self.between(span, op, Ty::Set, other.ty()),
                            };
                            if !matches!(op, BinOp::Add | BinOp::Sub) {
                                return self.not_for_sets(span, op);
                            }
                            rest.push((op == BinOp::Sub, f));
                        }
                        Some(AnyExpr::Set(SetExpr::Fn(Box::new(move |env| {
                            rest.iter().fold(first.eval(env), |acc, (minus, f)| {
                                if *minus {
                                    acc & !f.eval(env)
                                } else {
                                    acc | f.eval(env)
                                }
                            })
                        }))))
                    }
                    AnyExpr::Bool(_) => {
                        let (op, r, span) = links[0];
                        let y = self.node(r, depth + 1)?;
                        self.between(span, op, Ty::Bool, y.ty())
                    }
                }
            }
        }
    }

    fn between<T>(&mut self, span: Span, op: BinOp, x: Ty, y: Ty) -> Option<T> {
        self.cx.push(
            Diag::error(codes::TYPE, span, format!("`{}` between {} and {}", op.symbol(), x.what(), y.what()))
                .label("both sides must have the same type"),
        );
        None
    }

    fn not_for_sets<T>(&mut self, span: Span, op: BinOp) -> Option<T> {
        self.cx.push(
            Diag::error(codes::TYPE, span, format!("`{}` does not apply to sets", op.symbol()))
                .label("sets take `+` (union), `-` (difference), `==`, `!=`, `in`")
                .help("compare numbers such as `count(s)` or `highest(s)` instead"),
        );
        None
    }

    /// The range of `x op y`, or an `overflow` error at `span`.
    fn arith_range(&mut self, span: Span, op: BinOp, x: Range, y: Range) -> Option<Range> {
        let (a, b, c, d) = (x.lo as i128, x.hi as i128, y.lo as i128, y.hi as i128);
        let r = match op {
            BinOp::Add => Range::new(a + c, b + d),
            BinOp::Sub => Range::new(a - d, b - c),
            BinOp::Mul => {
                let p = [a * c, a * d, b * c, b * d];
                Range::new(*p.iter().min().unwrap(), *p.iter().max().unwrap())
            }
            // |x / y| and |x % y| are at most |x|; a division by 0 gives 0.
            _ => {
                let m = x.magnitude();
                Range::new(-m, m)
            }
        };
        match r {
            Some(r) => Some(r),
            None => self.overflow(span, &format!("this `{}`", op.symbol())),
        }
    }

    /// One arithmetic operator (numbers or sets).
    fn arith(&mut self, span: Span, op: BinOp, x: AnyExpr, y: AnyExpr) -> Option<AnyExpr> {
        match (x, y) {
            (AnyExpr::Int(x, xr), AnyExpr::Int(y, yr)) => {
                let r = self.arith_range(span, op, xr, yr)?;
                Some(AnyExpr::Int(
                    match op {
                        BinOp::Add => lift2!(IntExpr, IntExpr, x, IntExpr, y, |a, b| a.wrapping_add(b)),
                        BinOp::Sub => lift2!(IntExpr, IntExpr, x, IntExpr, y, |a, b| a.wrapping_sub(b)),
                        BinOp::Mul => lift2!(IntExpr, IntExpr, x, IntExpr, y, |a, b| a.wrapping_mul(b)),
                        BinOp::Div => lift2!(IntExpr, IntExpr, x, IntExpr, y, |a, b| a.checked_div(b).unwrap_or(0)),
                        _ => lift2!(IntExpr, IntExpr, x, IntExpr, y, |a, b| a.checked_rem(b).unwrap_or(0)),
                    },
                    r,
                ))
            }
            (AnyExpr::Set(x), AnyExpr::Set(y)) => match op {
                BinOp::Add => Some(AnyExpr::Set(lift2!(SetExpr, SetExpr, x, SetExpr, y, |a, b| a | b))),
                BinOp::Sub => Some(AnyExpr::Set(lift2!(SetExpr, SetExpr, x, SetExpr, y, |a, b| a & !b))),
                _ => self.not_for_sets(span, op),
            },
            (x, y) => self.between(span, op, x.ty(), y.ty()),
        }
    }

    fn binary(&mut self, e: &Expr, op: BinOp, a: &Expr, b: &Expr, depth: usize) -> Option<AnyExpr> {
        use BinOp::*;
        match op {
            In | NotIn => {
                let (x, y) = (self.set(a, depth + 1), self.set(b, depth + 1));
                let (x, y) = (x?, y?);
                Some(AnyExpr::Bool(if op == NotIn {
                    lift2!(BoolExpr, SetExpr, x, SetExpr, y, |a, b| a & !b != 0)
                } else {
                    lift2!(BoolExpr, SetExpr, x, SetExpr, y, |a, b| a & !b == 0)
                }))
            }
            _ => {
                let (x, y) = (self.node(a, depth + 1), self.node(b, depth + 1));
                let (x, y) = (x?, y?);
                match (x, y) {
                    (AnyExpr::Int(x, _), AnyExpr::Int(y, _)) => Some(AnyExpr::Bool(match op {
                        Eq => lift2!(BoolExpr, IntExpr, x, IntExpr, y, |a, b| a == b),
                        Ne => lift2!(BoolExpr, IntExpr, x, IntExpr, y, |a, b| a != b),
                        Lt => lift2!(BoolExpr, IntExpr, x, IntExpr, y, |a, b| a < b),
                        Le => lift2!(BoolExpr, IntExpr, x, IntExpr, y, |a, b| a <= b),
                        Gt => lift2!(BoolExpr, IntExpr, x, IntExpr, y, |a, b| a > b),
                        _ => lift2!(BoolExpr, IntExpr, x, IntExpr, y, |a, b| a >= b),
                    })),
                    (AnyExpr::Set(x), AnyExpr::Set(y)) => match op {
                        Eq => Some(AnyExpr::Bool(lift2!(BoolExpr, SetExpr, x, SetExpr, y, |a, b| a == b))),
                        Ne => Some(AnyExpr::Bool(lift2!(BoolExpr, SetExpr, x, SetExpr, y, |a, b| a != b))),
                        _ => self.not_for_sets(e.span, op),
                    },
                    (AnyExpr::Bool(x), AnyExpr::Bool(y)) if matches!(op, Eq | Ne) => Some(AnyExpr::Bool(if op == Ne {
                        lift2!(BoolExpr, BoolExpr, x, BoolExpr, y, |a, b| a != b)
                    } else {
                        lift2!(BoolExpr, BoolExpr, x, BoolExpr, y, |a, b| a == b)
                    })),
                    (x, y) => self.between(e.span, op, x.ty(), y.ty()),
                }
            }
        }
    }

    fn call(&mut self, e: &Expr, name: &str, span: Span, args: &[Expr], depth: usize) -> Option<AnyExpr> {
        let call = Call { e, name, args, depth };
        match FUNCTIONS.iter().find(|(n, _)| *n == name) {
            Some((_, Function::Weigh)) => self.weigh(call),
            Some((_, Function::MinMax)) => self.min_max(call),
            Some((_, Function::If)) => self.if_then_else(call),
            Some((_, Function::Abs)) => self.abs(call),
            None => {
                self.cx.unknown(span, "a function", name, FUNCTIONS.iter().map(|(n, _)| *n));
                None
            }
        }
    }

    /// `count(set)`, `highest(set)`, `lowest(set)`: the number of elements,
    /// or the weight of the heaviest or lightest (0 for an empty set).
    fn weigh(&mut self, call: Call) -> Option<AnyExpr> {
        let Call { e, name, args, depth } = call;
        let scope = self.scope;
        let [a] = args else {
            self.cx.push(
                Diag::error(codes::ARITY, e.span, format!("`{name}` takes one set"))
                    .label(format!("write `{name}(potted)`")),
            );
            return None;
        };
        let s = self.set(a, depth + 1)?;
        let w = scope.weights.to_vec();
        if name == "count" {
            let counted = self.counted_vars(a);
            if !counted.is_empty() {
                let most = counted.iter().map(|c| c.2).max().unwrap_or(1).max(1);
                let hi = (scope.elements.len() as i64).saturating_mul(most);
                return Some(AnyExpr::Int(
                    IntExpr::Fn(Box::new(move |env| count_many(env, s.eval(env), &counted))),
                    Range { lo: 0, hi },
                ));
            }
            return Some(AnyExpr::Int(
                lift1!(IntExpr, SetExpr, s, |a| a.count_ones() as i64),
                Range { lo: 0, hi: scope.elements.len() as i64 },
            ));
        }
        // An empty set weighs 0.
        let range =
            Range { lo: w.iter().copied().min().unwrap_or(0).min(0), hi: w.iter().copied().max().unwrap_or(0).max(0) };
        let heavier = name == "highest";
        let weigh = move |mut m: u64| {
            let mut best: Option<i64> = None;
            while m != 0 {
                let i = m.trailing_zeros() as usize;
                m &= m - 1;
                if best.is_none_or(|b| if heavier { w[i] > b } else { w[i] < b }) {
                    best = Some(w[i]);
                }
            }
            best.unwrap_or(0)
        };
        let f = match s.constant() {
            Some(m) => IntExpr::Const(weigh(m)),
            None => IntExpr::Fn(Box::new(move |env| weigh(s.eval(env)))),
        };
        Some(AnyExpr::Int(f, range))
    }

    /// The set variables `e` reads that hold several of an element: their
    /// index among the sets, where their counts are in `Env::ints`, and
    /// the most of one element.
    fn counted_vars(&self, e: &Expr) -> Vec<(usize, usize, i64)> {
        let scope = self.scope;
        let mut out = Vec::new();
        let mut todo = vec![e];
        while let Some(e) = todo.pop() {
            if let ExprKind::Word(w) = &e.kind {
                let sets = scope.vars.iter().filter(|(_, t)| *t == Ty::Set);
                if let Some(k) = sets.clone().position(|(n, _)| n == w) {
                    if let Some(&Some((at, most))) = scope.counts.get(k) {
                        if !out.contains(&(k, at, most)) {
                            out.push((k, at, most));
                        }
                    }
                }
            }
            e.push_children(&mut todo);
        }
        out
    }

    /// `min(a, b, ...)`, `max(a, b, ...)` of numbers.
    fn min_max(&mut self, call: Call) -> Option<AnyExpr> {
        let Call { e, name, args, depth } = call;
        if args.is_empty() {
            self.cx.push(
                Diag::error(codes::ARITY, e.span, format!("`{name}` needs at least one number")).label("no arguments"),
            );
            return None;
        }
        let is_min = name == "min";
        let mut fs = Vec::new();
        let mut range: Option<Range> = None;
        for a in args {
            let (f, r) = self.int(a, depth + 1)?;
            fs.push(f);
            range = Some(match range {
                None => r,
                Some(q) if is_min => Range { lo: q.lo.min(r.lo), hi: q.hi.min(r.hi) },
                Some(q) => Range { lo: q.lo.max(r.lo), hi: q.hi.max(r.hi) },
            });
        }
        let f = IntExpr::Fn(Box::new(move |env| {
            let it = fs.iter().map(|f| f.eval(env));
            if is_min {
                it.min().unwrap_or(0)
            } else {
                it.max().unwrap_or(0)
            }
        }));
        Some(AnyExpr::Int(f, range.expect("at least one argument")))
    }

    /// `abs(a)`: the number without its sign.
    fn abs(&mut self, call: Call) -> Option<AnyExpr> {
        let Call { e, args, depth, .. } = call;
        let [a] = args else {
            self.cx
                .push(Diag::error(codes::ARITY, e.span, "`abs` takes one number").label("write `abs(a.row - b.row)`"));
            return None;
        };
        let (a, r) = self.int(a, depth + 1)?;
        // |i64::MIN| does not fit: refused like a negation that overflows.
        let (lo, hi) = (r.lo as i128, r.hi as i128);
        let range = if lo >= 0 {
            Range::new(lo, hi)
        } else if hi <= 0 {
            Range::new(-hi, -lo)
        } else {
            Range::new(0, (-lo).max(hi))
        };
        let Some(range) = range else {
            return self.overflow(e.span, "this `abs`");
        };
        Some(AnyExpr::Int(lift1!(IntExpr, IntExpr, a, |a| a.wrapping_abs()), range))
    }

    /// `if(condition, a, b)`: `a` when the condition holds, else `b` (both
    /// of one type).
    fn if_then_else(&mut self, call: Call) -> Option<AnyExpr> {
        let Call { e, args, depth, .. } = call;
        let [c, a, b] = args else {
            self.cx.push(
                Diag::error(codes::ARITY, e.span, "`if` takes a condition and two values")
                    .label("write `if(foul, potted, [])`"),
            );
            return None;
        };
        let c = self.cond(c, depth + 1);
        let (x, y) = (self.node(a, depth + 1), self.node(b, depth + 1));
        let (c, x, y) = (c?, x?, y?);
        match (x, y) {
            (AnyExpr::Int(x, xr), AnyExpr::Int(y, yr)) => Some(AnyExpr::Int(
                IntExpr::Fn(Box::new(move |env| if c.eval(env) { x.eval(env) } else { y.eval(env) })),
                xr.union(yr),
            )),
            (AnyExpr::Set(x), AnyExpr::Set(y)) => {
                Some(AnyExpr::Set(SetExpr::Fn(Box::new(
                    move |env| if c.eval(env) { x.eval(env) } else { y.eval(env) },
                ))))
            }
            (AnyExpr::Bool(x), AnyExpr::Bool(y)) => {
                Some(AnyExpr::Bool(BoolExpr::Fn(Box::new(
                    move |env| {
                        if c.eval(env) {
                            x.eval(env)
                        } else {
                            y.eval(env)
                        }
                    },
                ))))
            }
            (x, y) => {
                self.cx.push(
                    Diag::error(codes::TYPE, e.span, format!("`if` between {} and {}", x.ty().what(), y.ty().what()))
                        .label("both values must have the same type"),
                );
                None
            }
        }
    }
}

/// A call of a function of the language, as its compiler sees it.
struct Call<'e> {
    e: &'e Expr,
    name: &'e str,
    args: &'e [Expr],
    depth: usize,
}

/// The names of the functions of the expression language.
pub fn function_names() -> impl Iterator<Item = &'static str> {
    FUNCTIONS.iter().map(|(n, _)| *n)
}

/// Which compiler a function of the language takes.
#[derive(Clone, Copy)]
enum Function {
    /// [`Compiler::weigh`]
    Weigh,
    /// [`Compiler::min_max`]
    MinMax,
    /// [`Compiler::if_then_else`]
    If,
    /// [`Compiler::abs`]
    Abs,
}

/// The functions of the expression language, each with its compiler: the
/// one list that calls, messages and suggestions read.
const FUNCTIONS: &[(&str, Function)] = &[
    ("count", Function::Weigh),
    ("highest", Function::Weigh),
    ("lowest", Function::Weigh),
    ("min", Function::MinMax),
    ("max", Function::MinMax),
    ("if", Function::If),
    ("abs", Function::Abs),
];

/// `x op y` for the arithmetic operators; ranges were checked at load, and
/// a division by 0 gives 0.
#[inline]
fn apply(op: BinOp, x: i64, y: i64) -> i64 {
    match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::Div => x.checked_div(y).unwrap_or(0),
        _ => x.checked_rem(y).unwrap_or(0),
    }
}

/// `first` then each `(is or, operand)` left to right, short-circuiting
/// like the nested operators would.
fn logic(first: BoolExpr, rest: Vec<(bool, BoolExpr)>) -> BoolExpr {
    match rest.len() {
        0 => first,
        1 => {
            let (or, y) = rest.into_iter().next().expect("one operand");
            match (or, first, y) {
                (true, BoolExpr::Fn(f), BoolExpr::Fn(g)) => BoolExpr::Fn(Box::new(move |env| f(env) || g(env))),
                (false, BoolExpr::Fn(f), BoolExpr::Fn(g)) => BoolExpr::Fn(Box::new(move |env| f(env) && g(env))),
                (true, x, y) => BoolExpr::Fn(Box::new(move |env| x.eval(env) || y.eval(env))),
                (false, x, y) => BoolExpr::Fn(Box::new(move |env| x.eval(env) && y.eval(env))),
            }
        }
        _ if rest.iter().all(|(or, _)| *or) => {
            let all: Vec<BoolExpr> = std::iter::once(first).chain(rest.into_iter().map(|(_, f)| f)).collect();
            BoolExpr::Fn(Box::new(move |env| all.iter().any(|f| f.eval(env))))
        }
        _ if rest.iter().all(|(or, _)| !*or) => {
            let all: Vec<BoolExpr> = std::iter::once(first).chain(rest.into_iter().map(|(_, f)| f)).collect();
            BoolExpr::Fn(Box::new(move |env| all.iter().all(|f| f.eval(env))))
        }
        _ => BoolExpr::Fn(Box::new(move |env| {
            rest.iter().fold(first.eval(env), |acc, (or, f)| if *or { acc || f.eval(env) } else { acc && f.eval(env) })
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Span;

    fn w(s: &str) -> Expr {
        Expr { kind: ExprKind::Word(s.into()), span: Span::default() }
    }
    fn n(v: i64) -> Expr {
        Expr { kind: ExprKind::Int(v), span: Span::default() }
    }
    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr { kind: ExprKind::Binary(op, Box::new(a), Box::new(b)), span: Span::default() }
    }
    fn call(f: &str, args: Vec<Expr>) -> Expr {
        Expr {
            kind: ExprKind::Call(crate::syntax::Ident { name: f.into(), span: Span::default() }, args),
            span: Span::default(),
        }
    }

    const ELEMENTS: [&str; 3] = ["A", "B", "C"];
    const VARS: [(&str, Ty); 6] =
        [("x", Ty::Set), ("k", Ty::Int), ("y", Ty::Set), ("f", Ty::Bool), ("p", Ty::Bool), ("q", Ty::Bool)];

    fn with_scope<T>(run: impl FnOnce(&Scope, &mut Cx) -> T) -> T {
        let elements: Vec<String> = ELEMENTS.iter().map(|s| s.to_string()).collect();
        let weights = [1, 5, 3];
        let unavailable = [("z", "not here")];
        let scope = Scope {
            vars: &VARS,
            elements: &elements,
            weights: &weights,
            element: "an element",
            int_range: (0, 1000),
            unavailable: &unavailable,
            counts: &[],
        };
        run(&scope, &mut Cx::new())
    }

    #[test]
    fn sets_conditions_and_weights() {
        with_scope(|scope, cx| {
            let sub = compile_bool(&bin(BinOp::In, bin(BinOp::Sub, w("x"), w("A")), w("y")), scope, cx).unwrap();
            let (hi, range) = compile_int(&call("highest", vec![w("x")]), scope, cx).unwrap();
            assert_eq!(range, Range { lo: 0, hi: 5 });
            let env = Env { sets: &[0b011, 0b010], ints: &[0, 0, 0, 0] };
            assert!(sub.eval(&env));
            assert_eq!(hi.eval(&env), 5);
            let env = Env { sets: &[0b110, 0b010], ints: &[0, 0, 0, 0] };
            assert!(!sub.eval(&env));
            assert!(compile_bool(&w("D"), scope, cx).is_none());
            assert!(cx.has_errors());
        });
    }

    #[test]
    fn number_and_condition_variables_share_the_ints_in_order() {
        with_scope(|scope, cx| {
            let k = compile_int(&w("k"), scope, cx).unwrap().0;
            let f = compile_bool(&w("f"), scope, cx).unwrap();
            let env = Env { sets: &[0, 0], ints: &[7, 1, 0, 0] };
            assert_eq!(k.eval(&env), 7);
            assert!(f.eval(&env));
            let env = Env { sets: &[0, 0], ints: &[7, 0, 0, 0] };
            assert!(!f.eval(&env));
        });
    }

    #[test]
    fn if_picks_a_side_and_unavailable_names_say_why() {
        with_scope(|scope, cx| {
            let s = compile_set(&call("if", vec![w("f"), w("x"), w("y")]), scope, cx).unwrap();
            assert_eq!(s.eval(&Env { sets: &[1, 2], ints: &[0, 1, 0, 0] }), 1);
            assert_eq!(s.eval(&Env { sets: &[1, 2], ints: &[0, 0, 0, 0] }), 2);
            assert_eq!(compile_bool(&w("yes"), scope, cx).unwrap().constant(), Some(true));
            assert!(compile_bool(&w("z"), scope, cx).is_none());
            assert_eq!(cx.diags.last().unwrap().message, "`z` cannot be used here");
            assert!(compile_set(&call("if", vec![w("f"), w("x"), n(1)]), scope, cx).is_none());
        });
    }

    /// A long run of `or` (or of `-`) is one closure over a list: no stack
    /// at load or at run time, and the same value as the nested operators.
    #[test]
    fn long_chains_compile_flat_and_evaluate_like_nested_operators() {
        with_scope(|scope, cx| {
            let mut e = bin(BinOp::In, w("A"), w("x"));
            for _ in 0..50_000 {
                e = bin(BinOp::Or, e, bin(BinOp::In, w("B"), w("x")));
            }
            let f = compile_bool(&e, scope, cx).unwrap();
            assert!(f.eval(&Env { sets: &[0b10, 0], ints: &[0, 0, 0, 0] }));
            assert!(!f.eval(&Env { sets: &[0b100, 0], ints: &[0, 0, 0, 0] }));
            std::mem::forget(e); // dropping the AST recurses: not what is tested
                                 // f and p or q, (f or p) and q: mixed runs keep their meaning,
                                 // for variables (read at run time) and constants (folded).
            for bits in 0..8i64 {
                let (a, b, c) = (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0);
                let env = Env { sets: &[0, 0], ints: &[0, a as i64, b as i64, c as i64] };
                let e = bin(BinOp::Or, bin(BinOp::And, w("f"), w("p")), w("q"));
                let e2 = bin(BinOp::And, bin(BinOp::Or, w("f"), w("p")), w("q"));
                let e3 = bin(BinOp::Or, bin(BinOp::And, bin(BinOp::Or, w("f"), w("p")), w("q")), w("f"));
                assert_eq!(compile_bool(&e, scope, cx).unwrap().eval(&env), (a && b) || c);
                assert_eq!(compile_bool(&e2, scope, cx).unwrap().eval(&env), (a || b) && c);
                assert_eq!(compile_bool(&e3, scope, cx).unwrap().eval(&env), a || (b && c));
                let t = |v: bool| if v { w("yes") } else { w("no") };
                let k = bin(BinOp::Or, bin(BinOp::And, t(a), t(b)), t(c));
                assert_eq!(compile_bool(&k, scope, cx).unwrap().eval(&env), (a && b) || c);
            }
            // 100 - 7 * 3 + 10 / 4 % 3 - k, left to right within the run.
            let e = bin(
                BinOp::Sub,
                bin(
                    BinOp::Add,
                    bin(BinOp::Sub, n(100), bin(BinOp::Mul, n(7), n(3))),
                    bin(BinOp::Rem, bin(BinOp::Div, n(10), n(4)), n(3)),
                ),
                w("k"),
            );
            let (f, r) = compile_int(&e, scope, cx).unwrap();
            assert_eq!(f.eval(&Env { sets: &[0, 0], ints: &[5, 0, 0, 0] }), 100 - 21 + 2 - 5);
            assert!(r.lo <= 76 && r.hi >= 81);
            assert!(!cx.has_errors());
        });
    }

    #[test]
    fn abs_and_dotted_names() {
        let vars = [("a.row", Ty::Int), ("b.row", Ty::Int)];
        let elements: Vec<String> = Vec::new();
        let scope = Scope {
            vars: &vars,
            elements: &elements,
            weights: &[],
            element: "a card",
            int_range: (1, 64),
            unavailable: &[],
            counts: &[],
        };
        let mut cx = Cx::new();
        let field = |base: &str, f: &str| Expr {
            kind: ExprKind::Field(Box::new(w(base)), crate::syntax::Ident { name: f.into(), span: Span::default() }),
            span: Span::default(),
        };
        // abs(a.row - b.row): both orders give the distance, in 0..=63.
        let e = call("abs", vec![bin(BinOp::Sub, field("a", "row"), field("b", "row"))]);
        let (f, r) = compile_int(&e, &scope, &mut cx).unwrap();
        assert_eq!(r, Range { lo: 0, hi: 63 });
        for (x, y) in [(1, 4), (4, 1), (3, 3)] {
            assert_eq!(f.eval(&Env { sets: &[], ints: &[x, y] }), (x - y).abs());
        }
        assert_eq!(compile_int(&call("abs", vec![n(-7)]), &scope, &mut cx).unwrap().0.constant(), Some(7));
        assert!(!cx.has_errors());
        // `c.row` is no variable; `abs` of nothing, or of i64::MIN, is refused.
        assert!(compile_int(&field("c", "row"), &scope, &mut cx).is_none());
        assert!(compile_int(&call("abs", vec![]), &scope, &mut cx).is_none());
        assert!(compile_int(&call("abs", vec![n(i64::MIN)]), &scope, &mut cx).is_none());
        let codes: Vec<_> = cx.diags.iter().map(|d| d.code).collect();
        assert_eq!(codes, [codes::UNKNOWN_NAME, codes::ARITY, codes::OVERFLOW]);
    }

    #[test]
    fn deep_nesting_is_refused_once_not_a_stack_overflow() {
        with_scope(|scope, cx| {
            let mut e = w("f");
            for _ in 0..10_000 {
                e = Expr { kind: ExprKind::Unary(UnOp::Not, Box::new(e)), span: Span::default() };
            }
            assert!(compile_bool(&e, scope, cx).is_none());
            assert_eq!(cx.diags.len(), 1);
            assert_eq!(cx.diags[0].code, codes::TOO_DEEP);
            std::mem::forget(e);
        });
    }

    #[test]
    fn numbers_that_could_overflow_are_refused() {
        with_scope(|scope, cx| {
            let big = i64::MAX / 2;
            assert!(compile_int(&bin(BinOp::Mul, w("k"), n(big)), scope, cx).is_none());
            assert_eq!(cx.diags[0].code, codes::OVERFLOW);
            let (_, r) = compile_int(&bin(BinOp::Add, n(big), n(big)), scope, cx).unwrap();
            assert_eq!(r.hi, 2 * big);
            assert!(compile_int(&bin(BinOp::Add, bin(BinOp::Add, n(big), n(big)), n(2)), scope, cx).is_none());
            let neg_min = Expr { kind: ExprKind::Unary(UnOp::Neg, Box::new(n(i64::MIN))), span: Span::default() };
            assert!(compile_int(&neg_min, scope, cx).is_none());
        });
    }
}
