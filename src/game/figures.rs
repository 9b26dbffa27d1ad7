//! Figures of a game as a whole, as data: what `arbiter analyze` reports.
//! Each value keeps its text and, when it is a number, the number itself
//! (an exact fraction where there is one), so that the command line can
//! write it as text or as JSON and `arbiter diff` can subtract two of them
//! exactly ([`pair`]).

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{Signed, ToPrimitive, Zero};

/// How a number is written as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// A whole number (`2598960`).
    Integer,
    /// A decimal with this many places (`19.514676`).
    Decimal(u32),
    /// A percentage with this many places (`99.5439 %`).
    Percent(u32),
    /// `n/d` (or `n`).
    Fraction,
    /// Not a number: only the text.
    Text,
}

impl Style {
    /// `x` written in this style (rounded half away from zero).
    pub fn format(self, x: &BigRational) -> String {
        match self {
            Style::Integer => decimal(x, 0),
            Style::Decimal(places) => decimal(x, places),
            Style::Percent(places) => format!("{} %", decimal(&(x * BigRational::from_integer(100.into())), places)),
            Style::Fraction | Style::Text => fraction(x),
        }
    }
}

/// One value: its text, and what it stands for when it is a number.
#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    /// As printed.
    pub text: String,
    /// The exact value, when it is a fraction.
    pub exact: Option<BigRational>,
    /// The value of a number with no exact form (a square root).
    pub approx: Option<f64>,
    pub style: Style,
}

impl Value {
    /// Text only.
    pub fn text(text: impl Into<String>) -> Value {
        Value { text: text.into(), exact: None, approx: None, style: Style::Text }
    }

    /// An exact number, written in `style`.
    pub fn exact(x: BigRational, style: Style) -> Value {
        Value { text: style.format(&x), exact: Some(x), approx: None, style }
    }

    /// A whole number.
    pub fn int(n: impl Into<BigInt>) -> Value {
        Value::exact(BigRational::from_integer(n.into()), Style::Integer)
    }

    /// An exact number with its own text (`99.5439 % (n/d)`); `style` is
    /// how a difference of two such values is written.
    pub fn exact_with(x: BigRational, style: Style, text: impl Into<String>) -> Value {
        Value { text: text.into(), exact: Some(x), approx: None, style }
    }

    /// A number known only approximately, written in `style`.
    pub fn approx(x: f64, style: Style) -> Value {
        let text = match style {
            Style::Percent(p) => format!("{:.*} %", p as usize, x * 100.0),
            Style::Decimal(p) => format!("{x:.*}", p as usize),
            _ => format!("{x}"),
        };
        Value { text, exact: None, approx: Some(x), style }
    }

    /// The value as a float, when it is a number.
    pub fn number(&self) -> Option<f64> {
        self.exact.as_ref().and_then(ToPrimitive::to_f64).or(self.approx)
    }

    /// `other - self`, written with a sign in this value's style, when both
    /// are numbers (exact when both are exact).
    pub fn difference(&self, other: &Value) -> Option<Value> {
        if let (Some(a), Some(b)) = (&self.exact, &other.exact) {
            let d = b - a;
            let sign = if d.is_positive() { "+" } else { "" };
            let style = if self.style == Style::Text { Style::Fraction } else { self.style };
            return Some(Value::exact_with(d.clone(), style, format!("{sign}{}", style.format(&d))));
        }
        let (a, b) = (self.number()?, other.number()?);
        let mut v = Value::approx(b - a, self.style);
        if b - a > 0.0 {
            v.text.insert(0, '+');
        }
        Some(v)
    }
}

/// One labelled figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// A stable name for tools (`return_to_player`).
    pub key: String,
    /// What it is, for people (`return to player`).
    pub label: String,
    pub value: Value,
}

impl Figure {
    pub fn new(key: &str, label: &str, value: Value) -> Figure {
        Figure { key: key.to_string(), label: label.to_string(), value }
    }
}

/// A column of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub key: String,
    pub label: String,
}

/// A table of figures: one row per item (a row of a pay table), the first
/// column naming it, and a total row.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub key: String,
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Value>>,
    pub total: Option<Vec<Value>>,
}

impl Table {
    pub fn new(key: &str, columns: &[(&str, &str)]) -> Table {
        Table {
            key: key.to_string(),
            columns: columns.iter().map(|(k, l)| Column { key: k.to_string(), label: l.to_string() }).collect(),
            rows: Vec::new(),
            total: None,
        }
    }
}

/// Everything an analysis reports: figures, then tables.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    pub figures: Vec<Figure>,
    pub tables: Vec<Table>,
}

impl Report {
    /// Labelled texts as figures (the key: the label in lower case, each
    /// run of other characters than letters and digits an `_`).
    pub fn from_lines(lines: Vec<(String, String)>) -> Report {
        let figures =
            lines.into_iter().map(|(k, v)| Figure { key: key_of(&k), label: k, value: Value::text(v) }).collect();
        Report { figures, tables: Vec::new() }
    }

    /// The figures as (label, text), then each table row as (its name,
    /// the other cells), for callers that want lines.
    pub fn lines(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> =
            self.figures.iter().map(|f| (f.label.clone(), f.value.text.clone())).collect();
        for t in &self.tables {
            for row in t.rows.iter().chain(t.total.iter()) {
                let name = row.first().map_or(String::new(), |v| v.text.clone());
                let rest: Vec<&str> = row.iter().skip(1).map(|v| v.text.as_str()).collect();
                out.push((format!("  {name}"), rest.join("  ")));
            }
        }
        out
    }

    /// The figure with this key.
    pub fn figure(&self, key: &str) -> Option<&Figure> {
        self.figures.iter().find(|f| f.key == key)
    }
}

/// A figure of two reports side by side (`arbiter diff`): a figure paired
/// by key, or a table row paired by its table and first cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Paired {
    /// What the text prints first (a table row: two spaces, its name).
    pub label: String,
    /// The figure's key, or `TABLE.ROW` for a table row.
    pub key: String,
    /// Each side's value (a table row: its other cells, as one text).
    pub base: Option<Value>,
    pub variant: Option<Value>,
    /// `variant - base`, when both are numbers; for a table row, each
    /// numeric cell's difference, as one text.
    pub difference: Option<Value>,
}

/// The figures of two reports paired: the base's figures in order, then
/// those only the variant has; then each table's rows in table order (the
/// variant's order, with rows only the base has after the row they follow
/// there).
pub fn pair(a: &Report, b: &Report) -> Vec<Paired> {
    let mut out: Vec<Paired> = Vec::new();
    let find = |r: &'_ Report, key: &str| r.figures.iter().find(|f| f.key == key).map(|f| f.value.clone());
    let mut keys: Vec<&Figure> = a.figures.iter().collect();
    keys.extend(b.figures.iter().filter(|f| a.figure(&f.key).is_none()));
    for f in keys {
        let (x, y) = (find(a, &f.key), find(b, &f.key));
        let difference = match (&x, &y) {
            (Some(x), Some(y)) => x.difference(y),
            _ => None,
        };
        out.push(Paired { label: f.label.clone(), key: f.key.clone(), base: x, variant: y, difference });
    }
    let mut tables: Vec<&Table> = a.tables.iter().collect();
    tables.extend(b.tables.iter().filter(|t| !a.tables.iter().any(|u| u.key == t.key)));
    for t in tables {
        let side = |r: &Report| r.tables.iter().find(|u| u.key == t.key).cloned();
        let (ta, tb) = (side(a), side(b));
        let rows = |t: &Option<Table>| -> Vec<Vec<Value>> {
            t.iter().flat_map(|t| t.rows.iter().chain(t.total.iter()).cloned()).collect()
        };
        let (ra, rb) = (rows(&ta), rows(&tb));
        let name = |row: &Vec<Value>| row.first().map_or(String::new(), |v| v.text.clone());
        let mut order: Vec<String> = rb.iter().map(name).collect();
        for (i, row) in ra.iter().enumerate() {
            let n = name(row);
            if order.contains(&n) {
                continue;
            }
            let after = ra[..i].iter().rev().map(name).find_map(|p| order.iter().position(|o| *o == p));
            order.insert(after.map_or(0, |j| j + 1), n);
        }
        for n in order {
            let (x, y) = (ra.iter().find(|r| name(r) == n), rb.iter().find(|r| name(r) == n));
            let cells =
                |r: &Vec<Value>| Value::text(r.iter().skip(1).map(|v| v.text.as_str()).collect::<Vec<_>>().join("  "));
            let difference = match (x, y) {
                (Some(x), Some(y)) => {
                    let d: Vec<String> = x
                        .iter()
                        .zip(y)
                        .skip(1)
                        .filter_map(|(p, q)| {
                            p.difference(q).map(|d| {
                                if d.exact.as_ref().is_some_and(Zero::is_zero) {
                                    "=".to_string()
                                } else {
                                    d.text
                                }
                            })
                        })
                        .collect();
                    (!d.is_empty()).then(|| Value::text(d.join("  ")))
                }
                _ => None,
            };
            out.push(Paired {
                label: format!("  {n}"),
                key: format!("{}.{}", t.key, key_of(&n)),
                base: x.map(cells),
                variant: y.map(cells),
                difference,
            });
        }
    }
    out
}

/// A label as a key: `first mover's advantage` -> `first_mover_s_advantage`.
pub fn key_of(label: &str) -> String {
    let mut key = String::new();
    for c in label.trim().chars() {
        if c.is_alphanumeric() {
            key.extend(c.to_lowercase());
        } else if !key.ends_with('_') {
            key.push('_');
        }
    }
    key.trim_end_matches('_').to_string()
}

/// `n/d` (or `n`).
pub fn fraction(x: &BigRational) -> String {
    if x.denom() == &BigInt::from(1) {
        x.numer().to_string()
    } else {
        format!("{}/{}", x.numer(), x.denom())
    }
}

/// The fraction as a decimal with `places` digits, rounded half away from
/// zero.
pub fn decimal(x: &BigRational, places: u32) -> String {
    let scale = BigInt::from(10).pow(places);
    let neg = x.is_negative();
    let x = x.abs();
    let scaled = (x * BigRational::from_integer(scale.clone()) + BigRational::new(1.into(), 2.into())).floor();
    let n = scaled.to_integer();
    let sign = if neg && !n.is_zero() { "-" } else { "" };
    if places == 0 {
        return format!("{sign}{n}");
    }
    let int = &n / &scale;
    let frac = (&n % &scale).to_string();
    let pad = "0".repeat(places as usize - frac.len().min(places as usize));
    format!("{sign}{int}.{pad}{frac}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(n: i64, d: i64) -> BigRational {
        BigRational::new(n.into(), d.into())
    }

    #[test]
    fn numbers_are_written_exactly_rounded() {
        assert_eq!(decimal(&q(2, 3), 4), "0.6667");
        assert_eq!(decimal(&q(-2, 3), 2), "-0.67");
        assert_eq!(decimal(&q(-1, 1000), 2), "0.00");
        assert_eq!(decimal(&q(5, 2), 0), "3");
        assert_eq!(Style::Percent(4).format(&q(1653526326983, 1661102543100)), "99.5439 %");
        assert_eq!(fraction(&q(6, 3)), "2");
        assert_eq!(key_of("first mover's advantage (1000 deals)"), "first_mover_s_advantage_1000_deals");
    }

    #[test]
    fn differences_are_exact_and_signed() {
        let a = Value::exact(q(1, 3), Style::Decimal(3));
        let b = Value::exact(q(1, 2), Style::Decimal(3));
        let d = a.difference(&b).unwrap();
        assert_eq!((d.text.as_str(), d.exact.unwrap()), ("+0.167", q(1, 6)));
        assert_eq!(b.difference(&a).unwrap().text, "-0.167");
        assert!(Value::text("x").difference(&b).is_none());
    }
}
