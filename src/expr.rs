//! Rule expressions compiled into closures at load time.
//!
//! An engine declares the typed variables an expression may read (sets,
//! numbers) and the named elements sets are made of (with a weight each);
//! [`compile`] resolves every name, checks every type and returns a closure
//! tree. Running it reads only an [`Env`] of bitmasks and numbers: no name,
//! no AST. Sets hold at most 64 elements (one bit each).
//!
//! | form | type |
//! | --- | --- |
//! | `12`, `a + b`, `a - b`, `a * b`, `a / b`, `a % b`, `-a` | number |
//! | `count(s)`, `highest(s)`, `lowest(s)`, `min(a, b..)`, `max(a, b..)` | number |
//! | an element name, `[x y]`, `s + t` (union), `s - t` (difference) | set |
//! | `a == b`, `a != b` (numbers or sets), `a < b` ... (numbers) | condition |
//! | `s in t`, `s not in t` (every element of s is in t) | condition |
//! | `and`, `or`, `not` | condition |

use crate::check::Cx;
use crate::diag::codes;
use crate::diag::{did_you_mean, Diag};
use crate::syntax::{BinOp, Expr, ExprKind, UnOp};

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

/// The values of the variables while an expression runs: set variables
/// and number variables, each in declaration order within its type.
pub struct Env<'a> {
    pub sets: &'a [u64],
    pub ints: &'a [i64],
}

pub type IntFn = Box<dyn Fn(&Env) -> i64 + Send + Sync>;
pub type BoolFn = Box<dyn Fn(&Env) -> bool + Send + Sync>;
pub type SetFn = Box<dyn Fn(&Env) -> u64 + Send + Sync>;

/// A compiled expression of one of the three types.
pub enum Compiled {
    Int(IntFn),
    Bool(BoolFn),
    Set(SetFn),
}

impl Compiled {
    fn ty(&self) -> Ty {
        match self {
            Compiled::Int(_) => Ty::Int,
            Compiled::Bool(_) => Ty::Bool,
            Compiled::Set(_) => Ty::Set,
        }
    }
}

/// What names an expression may use.
pub struct Scope<'s> {
    /// Variables, in declaration order: the n-th set variable is
    /// `Env::sets[n]`, the n-th number variable `Env::ints[n]`.
    pub vars: &'s [(&'s str, Ty)],
    /// Named elements of sets (bit i is element i).
    pub elements: &'s [String],
    /// The weight of each element (for `highest`, `lowest`).
    pub weights: &'s [i64],
    /// What an element is called in messages ("a ball").
    pub element: &'s str,
}

/// Compiles `e`, which must have type `want`.
pub fn compile(e: &Expr, want: Ty, scope: &Scope, cx: &mut Cx) -> Option<Compiled> {
    let c = node(e, scope, cx)?;
    if c.ty() != want {
        cx.push(
            Diag::error(codes::TYPE, e.span, format!("expected {}, found {}", want.what(), c.ty().what()))
                .label(format!("this is {}", c.ty().what())),
        );
        return None;
    }
    Some(c)
}

pub fn compile_bool(e: &Expr, scope: &Scope, cx: &mut Cx) -> Option<BoolFn> {
    match compile(e, Ty::Bool, scope, cx)? {
        Compiled::Bool(f) => Some(f),
        _ => None,
    }
}

pub fn compile_int(e: &Expr, scope: &Scope, cx: &mut Cx) -> Option<IntFn> {
    match compile(e, Ty::Int, scope, cx)? {
        Compiled::Int(f) => Some(f),
        _ => None,
    }
}

pub fn compile_set(e: &Expr, scope: &Scope, cx: &mut Cx) -> Option<SetFn> {
    match compile(e, Ty::Set, scope, cx)? {
        Compiled::Set(f) => Some(f),
        _ => None,
    }
}

fn mismatch<T>(cx: &mut Cx, e: &Expr, want: &str, got: Ty) -> Option<T> {
    cx.push(
        Diag::error(codes::TYPE, e.span, format!("expected {want}, found {}", got.what()))
            .label(format!("this is {}", got.what())),
    );
    None
}

fn int(e: &Expr, scope: &Scope, cx: &mut Cx) -> Option<IntFn> {
    match node(e, scope, cx)? {
        Compiled::Int(f) => Some(f),
        c => mismatch(cx, e, "a number", c.ty()),
    }
}

fn set(e: &Expr, scope: &Scope, cx: &mut Cx) -> Option<SetFn> {
    match node(e, scope, cx)? {
        Compiled::Set(f) => Some(f),
        c => mismatch(cx, e, "a set", c.ty()),
    }
}

fn cond(e: &Expr, scope: &Scope, cx: &mut Cx) -> Option<BoolFn> {
    match node(e, scope, cx)? {
        Compiled::Bool(f) => Some(f),
        c => mismatch(cx, e, "a condition", c.ty()),
    }
}

fn weights_of(scope: &Scope) -> Vec<i64> {
    scope.weights.to_vec()
}

fn node(e: &Expr, scope: &Scope, cx: &mut Cx) -> Option<Compiled> {
    Some(match &e.kind {
        ExprKind::Int(n) => {
            let n = *n;
            Compiled::Int(Box::new(move |_| n))
        }
        ExprKind::Word(w) => {
            if let Some(i) = scope.vars.iter().position(|(n, _)| n == w) {
                let ty = scope.vars[i].1;
                let k = scope.vars[..i].iter().filter(|(_, t)| *t == ty).count();
                match ty {
                    Ty::Set => Compiled::Set(Box::new(move |env| env.sets[k])),
                    Ty::Int => Compiled::Int(Box::new(move |env| env.ints[k])),
                    Ty::Bool => Compiled::Bool(Box::new(move |env| env.ints[k] != 0)),
                }
            } else if let Some(i) = scope.elements.iter().position(|n| n == w) {
                let bit = 1u64 << i;
                Compiled::Set(Box::new(move |_| bit))
            } else {
                let known = scope.vars.iter().map(|(n, _)| *n).chain(scope.elements.iter().map(String::as_str));
                let what = format!("{} or a variable", scope.element);
                let d = Diag::error(codes::UNKNOWN_NAME, e.span, format!("expected {what}, found `{w}`"))
                    .label(format!("not {what}"));
                let names: Vec<&str> = known.clone().collect();
                let d = match did_you_mean(w, known) {
                    Some(s) => d.help(format!("did you mean `{s}`?")),
                    None => d.help(format!(
                        "one of {}",
                        names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(" ")
                    )),
                };
                cx.push(d);
                return None;
            }
        }
        ExprKind::List(items) => {
            let mut parts = Vec::new();
            for it in items {
                parts.push(set(it, scope, cx)?);
            }
            Compiled::Set(Box::new(move |env| parts.iter().fold(0, |acc, f| acc | f(env))))
        }
        ExprKind::Call(f, args) => call(e, &f.name, f.span, args, scope, cx)?,
        ExprKind::Unary(UnOp::Neg, a) => {
            let a = int(a, scope, cx)?;
            Compiled::Int(Box::new(move |env| a(env).wrapping_neg()))
        }
        ExprKind::Unary(UnOp::Not, a) => {
            let a = cond(a, scope, cx)?;
            Compiled::Bool(Box::new(move |env| !a(env)))
        }
        ExprKind::Binary(op, a, b) => binary(e, *op, a, b, scope, cx)?,
        _ => {
            cx.push(
                Diag::error(codes::TYPE, e.span, format!("{} cannot be used in an expression here", e.describe()))
                    .label("not a number, a set or a condition"),
            );
            return None;
        }
    })
}

fn binary(e: &Expr, op: BinOp, a: &Expr, b: &Expr, scope: &Scope, cx: &mut Cx) -> Option<Compiled> {
    use BinOp::*;
    match op {
        And | Or => {
            let (x, y) = (cond(a, scope, cx), cond(b, scope, cx));
            let (x, y) = (x?, y?);
            Some(Compiled::Bool(if op == And {
                Box::new(move |env| x(env) && y(env))
            } else {
                Box::new(move |env| x(env) || y(env))
            }))
        }
        In | NotIn => {
            let (x, y) = (set(a, scope, cx), set(b, scope, cx));
            let (x, y) = (x?, y?);
            let neg = op == NotIn;
            Some(Compiled::Bool(Box::new(move |env| (x(env) & !y(env) == 0) != neg)))
        }
        _ => {
            let (x, y) = (node(a, scope, cx), node(b, scope, cx));
            let (x, y) = (x?, y?);
            match (x, y) {
                (Compiled::Int(x), Compiled::Int(y)) => Some(match op {
                    Add => Compiled::Int(Box::new(move |env| x(env).wrapping_add(y(env)))),
                    Sub => Compiled::Int(Box::new(move |env| x(env).wrapping_sub(y(env)))),
                    Mul => Compiled::Int(Box::new(move |env| x(env).wrapping_mul(y(env)))),
                    Div => Compiled::Int(Box::new(move |env| x(env).checked_div(y(env)).unwrap_or(0))),
                    Rem => Compiled::Int(Box::new(move |env| x(env).checked_rem(y(env)).unwrap_or(0))),
                    Eq => Compiled::Bool(Box::new(move |env| x(env) == y(env))),
                    Ne => Compiled::Bool(Box::new(move |env| x(env) != y(env))),
                    Lt => Compiled::Bool(Box::new(move |env| x(env) < y(env))),
                    Le => Compiled::Bool(Box::new(move |env| x(env) <= y(env))),
                    Gt => Compiled::Bool(Box::new(move |env| x(env) > y(env))),
                    Ge => Compiled::Bool(Box::new(move |env| x(env) >= y(env))),
                    _ => unreachable!("handled above"),
                }),
                (Compiled::Set(x), Compiled::Set(y)) => match op {
                    Add => Some(Compiled::Set(Box::new(move |env| x(env) | y(env)))),
                    Sub => Some(Compiled::Set(Box::new(move |env| x(env) & !y(env)))),
                    Eq => Some(Compiled::Bool(Box::new(move |env| x(env) == y(env)))),
                    Ne => Some(Compiled::Bool(Box::new(move |env| x(env) != y(env)))),
                    _ => {
                        cx.push(
                            Diag::error(codes::TYPE, e.span, format!("`{}` does not apply to sets", op.symbol()))
                                .label("sets take `+` (union), `-` (difference), `==`, `!=`, `in`")
                                .help("compare numbers such as `count(s)` or `highest(s)` instead"),
                        );
                        None
                    }
                },
                (Compiled::Bool(x), Compiled::Bool(y)) if matches!(op, Eq | Ne) => {
                    let ne = op == Ne;
                    Some(Compiled::Bool(Box::new(move |env| (x(env) == y(env)) != ne)))
                }
                (x, y) => {
                    cx.push(
                        Diag::error(
                            codes::TYPE,
                            e.span,
                            format!("`{}` between {} and {}", op.symbol(), x.ty().what(), y.ty().what()),
                        )
                        .label("both sides must have the same type"),
                    );
                    None
                }
            }
        }
    }
}

const FUNCTIONS: [&str; 5] = ["count", "highest", "lowest", "min", "max"];

fn call(
    e: &Expr,
    name: &str,
    span: crate::source::Span,
    args: &[Expr],
    scope: &Scope,
    cx: &mut Cx,
) -> Option<Compiled> {
    match name {
        "count" | "highest" | "lowest" => {
            let [a] = args else {
                cx.push(
                    Diag::error(codes::ARITY, e.span, format!("`{name}` takes one set"))
                        .label(format!("write `{name}(potted)`")),
                );
                return None;
            };
            let s = set(a, scope, cx)?;
            let w = weights_of(scope);
            Some(Compiled::Int(match name {
                "count" => Box::new(move |env| s(env).count_ones() as i64),
                name => {
                    // The weight of the heaviest (`highest`) or lightest ball of the set.
                    let heavier = name == "highest";
                    Box::new(move |env| {
                        let mut m = s(env);
                        let mut best: Option<i64> = None;
                        while m != 0 {
                            let i = m.trailing_zeros() as usize;
                            m &= m - 1;
                            if best.is_none_or(|b| if heavier { w[i] > b } else { w[i] < b }) {
                                best = Some(w[i]);
                            }
                        }
                        best.unwrap_or(0)
                    })
                }
            }))
        }
        "min" | "max" => {
            if args.is_empty() {
                cx.push(
                    Diag::error(codes::ARITY, e.span, format!("`{name}` needs at least one number"))
                        .label("no arguments"),
                );
                return None;
            }
            let mut fs = Vec::new();
            for a in args {
                fs.push(int(a, scope, cx)?);
            }
            let is_min = name == "min";
            Some(Compiled::Int(Box::new(move |env| {
                let it = fs.iter().map(|f| f(env));
                if is_min {
                    it.min().unwrap_or(0)
                } else {
                    it.max().unwrap_or(0)
                }
            })))
        }
        other => {
            cx.unknown(span, "a function", other, FUNCTIONS);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Span;

    fn w(s: &str) -> Expr {
        Expr { kind: ExprKind::Word(s.into()), span: Span::default() }
    }
    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr { kind: ExprKind::Binary(op, Box::new(a), Box::new(b)), span: Span::default() }
    }

    #[test]
    fn sets_conditions_and_weights() {
        let elements = vec!["A".to_string(), "B".to_string(), "C".to_string()];
        let weights = [1, 5, 3];
        let vars = [("x", Ty::Set), ("y", Ty::Set)];
        let scope = Scope { vars: &vars, elements: &elements, weights: &weights, element: "an element" };
        let mut cx = Cx::new();
        let sub = compile_bool(&bin(BinOp::In, bin(BinOp::Sub, w("x"), w("A")), w("y")), &scope, &mut cx).unwrap();
        let call = Expr {
            kind: ExprKind::Call(crate::syntax::Ident { name: "highest".into(), span: Span::default() }, vec![w("x")]),
            span: Span::default(),
        };
        let hi = compile_int(&call, &scope, &mut cx).unwrap();
        let env = Env { sets: &[0b011, 0b010], ints: &[] };
        assert!(sub(&env));
        assert_eq!(hi(&env), 5);
        let env = Env { sets: &[0b110, 0b010], ints: &[] };
        assert!(!sub(&env));
        assert!(compile_bool(&w("D"), &scope, &mut cx).is_none());
        assert!(cx.has_errors());
    }
}
