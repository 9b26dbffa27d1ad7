//! Lowering of the tower's `scoring` section: who owns a triangle (a table
//! by the colours of its cards), its points (formulas over `sum`, `low`,
//! `mid`, `high`, by colour pattern, worked out at load into a table over
//! every three cards), and what a card held at the end is worth (`held`, a
//! formula over `value`, `rank` and `own`, or the `held-own` and
//! `held-other` multipliers), tabulated per player and card.

use crate::check::{Block, Cx};
use crate::diag::codes;
use crate::diag::Diag;
use crate::engines::cards::Deck;
use crate::engines::tower::schema::{HELD_CANNOT, HELD_READ, POINTS_CANNOT, POINTS_READ};
use crate::engines::tower::search::MAX_SCORE;
use crate::expr::Env;
use crate::source::Span;
use crate::syntax::{BinOp, Expr, ExprKind, Property, Section, UnOp};

use super::lower::{Cards, Colours, Players, Reads};

/// The `scoring` section: who owns a triangle, its points, and what held
/// cards are worth at the end.
pub(super) struct Scoring<'a> {
    pub(super) owner: Vec<([usize; 3], usize, Span)>,
    pub(super) points: Points<'a>,
    pub(super) held: Held<'a>,
}

/// What a card held at the end is worth to its holder.
pub(super) enum Held<'a> {
    /// Its face value times `own` when it has the holder's colour, else
    /// times `other` (with where each is written).
    Times { own: (i64, Option<Span>), other: (i64, Option<Span>) },
    /// A formula over `value`, `rank` and `own`.
    Formula(&'a Expr),
}

pub(super) fn lower_scoring<'a>(
    cx: &mut Cx,
    s: &'a Section,
    colours: &Colours,
    players: &Players,
) -> Option<Scoring<'a>> {
    let b = Block::of_section(s);
    let example = "[R R R] North [R R B] North [R B B] South [B B B] South";
    let owner = b.require(cx, "owner", example).and_then(|p| owners(cx, p, &colours.names, players));
    let points = match b.prop(cx, "points") {
        None => Some(Points { entries: Vec::new(), default: None, span: s.head }),
        Some(p) => points(cx, p, &colours.names),
    };
    let formula = b.prop(cx, "held");
    let (own_p, other_p) = (b.prop(cx, "held-own"), b.prop(cx, "held-other"));
    // `held` and the multipliers say the same thing: one file may not give
    // both, and a variant's replaces its base's, as a key does. A variant
    // is loaded before its base, so its spans have the smaller file number.
    let mut formula_wins = formula.is_some();
    if let Some(f) = formula {
        for (key, p) in [("held-own", own_p), ("held-other", other_p)] {
            let Some(p) = p else { continue };
            if p.span.file == f.span.file {
                cx.push(
                    Diag::error(codes::CONFLICT, p.span, format!("`held` and `{key}` both say what a held card is worth"))
                        .label(format!("`{key}` multiplies a held card's value"))
                        .note(f.span, "`held` gives its worth as a formula")
                        .help(format!(
                            "drop `{key}`, or `held`: `held: if(own, value, -value)` is `held-own: 1` with `held-other: -1`"
                        )),
                );
            } else if p.span.file < f.span.file {
                formula_wins = false;
            }
        }
    }
    let mult = |cx: &mut Cx, p: Option<&Property>, default: i64| {
        p.filter(|_| !formula_wins).map_or(Some((default, None)), |p| {
            let e = cx.one(p, "a multiplier")?;
            cx.int(e, "a multiplier (a whole number)").map(|m| (m, Some(e.span)))
        })
    };
    let (own, other) = (mult(cx, own_p, 1), mult(cx, other_p, -1));
    let held = match formula.filter(|_| formula_wins) {
        Some(p) => cx.one(p, "a formula over `value`, `rank` and `own`").map(Held::Formula),
        None => own.zip(other).map(|(own, other)| Held::Times { own, other }),
    };
    b.finish(cx);
    Some(Scoring { owner: owner?, points: points?, held: held? })
}

/// The `owner` table: pairs of a colour pattern `[R R B]` and a player,
/// covering every triple of colours once.
fn owners(
    cx: &mut Cx,
    p: &Property,
    colour_names: &[String],
    players: &Players,
) -> Option<Vec<([usize; 3], usize, Span)>> {
    let mut table: Vec<([usize; 3], usize, Span)> = Vec::new();
    let mut ok = true;
    let mut vals = p.values.iter();
    while let Some(v) = vals.next() {
        let ExprKind::List(_) = &v.kind else {
            cx.expected::<()>(v, "the colours of a triangle's three cards, as a list `[R R B]`");
            return None;
        };
        let key = colour_key(cx, v, colour_names);
        let Some(who) = vals.next() else {
            cx.push(
                Diag::error(codes::ARITY, v.span, "this triangle has no owner").label("a player's name should follow"),
            );
            return None;
        };
        let w = cx.name(who, "a player")?;
        let Some(pi) = players.index(&w) else {
            cx.unknown(who.span, "a player", &w, players.names());
            ok = false;
            continue;
        };
        crate::check::resolved(Some("player"), who.span);
        let Some(key) = key else {
            ok = false;
            continue;
        };
        if let Some((_, _, first)) = table.iter().find(|(k, _, _)| *k == key) {
            cx.push(
                Diag::error(codes::DUPLICATE, v.span, "these colours already have an owner")
                    .label("given again here")
                    .note(*first, "first given here"),
            );
            ok = false;
        }
        table.push((key, pi, v.span));
    }
    // Every combination of three colours needs an owner.
    if ok {
        if let Some(hole) = triples(colour_names.len()).find(|key| !table.iter().any(|(k, _, _)| k == key)) {
            let show = hole.iter().map(|&i| colour_names[i].as_str()).collect::<Vec<_>>().join(" ");
            cx.push(
                Diag::error(
                    codes::SCORING_HOLE,
                    p.values_span(),
                    format!("no owner for a triangle of colours [{show}]"),
                )
                .label("this table has a hole")
                .help(format!("add `[{show}] PLAYER`")),
            );
            ok = false;
        }
    }
    ok.then_some(table)
}

/// The score of every triangle of cards, signed for the first player, with
/// the rules an explanation cites: per sorted colour triple, its owner and
/// where the owner and the points are written.
pub(super) struct Table {
    pub(super) triangle: Vec<i32>,
    pub(super) largest: i64,
    pub(super) owner_of: Vec<usize>,
    pub(super) owner_span: Vec<Span>,
    pub(super) points_span: Vec<Span>,
}

/// Compiles the `points` formulas (each bounded by the engine's limit) and
/// fills the triangle table from them.
pub(super) fn triangle_table(cx: &mut Cx, cards: &Cards, k: usize, scoring: &Scoring) -> Option<Table> {
    let points = &scoring.points;
    let index = |key: [usize; 3]| (key[0] * k + key[1]) * k + key[2];
    let mut owner_of = vec![0usize; k * k * k];
    let mut owner_span = vec![Span::default(); k * k * k];
    for (key, p, span) in &scoring.owner {
        owner_of[index(*key)] = *p;
        owner_span[index(*key)] = *span;
    }
    let reads = Reads::new(POINTS_READ, POINTS_CANNOT);
    let formulas = formulas(cx, cards, points, &reads)?;
    let mut formula_of = vec![points.entries.len(); k * k * k];
    let mut points_span = vec![points.default.as_ref().map_or(points.span, |d| d.2); k * k * k];
    for (i, (key, _, span)) in points.entries.iter().enumerate() {
        formula_of[index(*key)] = i;
        points_span[index(*key)] = *span;
    }
    // A triangle's points depend on its cards' colours and values only:
    // each triple of (colour, value) classes is evaluated once, then the
    // table over cards is filled from the classes.
    let mut classes: Vec<(usize, i64)> = Vec::new();
    let class_of: Vec<usize> = (0..cards.colour.len())
        .map(|c| {
            let key = (cards.colour[c], cards.value[c]);
            classes.iter().position(|&k| k == key).unwrap_or_else(|| {
                classes.push(key);
                classes.len() - 1
            })
        })
        .collect();
    let nc = classes.len();
    let mut by_class = vec![0i32; nc * nc * nc];
    let mut largest = 0i64;
    let (mut sets, mut ints) = (Vec::new(), Vec::new());
    // In any order: the sorted triples of classes, each written to its
    // permutations.
    for (i, j, l) in (0..nc).flat_map(|i| (i..nc).flat_map(move |j| (j..nc).map(move |l| (i, j, l)))) {
        let ((ca, va), (cb, vb), (cc, vc)) = (classes[i], classes[j], classes[l]);
        let mut key = [ca, cb, cc];
        key.sort_unstable();
        let mut v = [va, vb, vc];
        v.sort_unstable();
        let pts = match formulas.get(formula_of[index(key)]) {
            Some(f) => {
                reads.fill(&mut sets, &mut ints, |name| match name {
                    "sum" => v[0] + v[1] + v[2],
                    "low" => v[0],
                    "mid" => v[1],
                    _ => v[2],
                });
                f.eval(&Env { sets: &sets, ints: &ints })
            }
            None => v[0] + v[1] + v[2],
        };
        largest = largest.max(pts.abs());
        let signed = if owner_of[index(key)] == 0 { pts } else { -pts } as i32;
        for (x, y, z) in [(i, j, l), (i, l, j), (j, i, l), (j, l, i), (l, i, j), (l, j, i)] {
            by_class[(x * nc + y) * nc + z] = signed;
        }
    }
    let mut triangle = Vec::with_capacity(class_of.len().pow(3));
    for &a in &class_of {
        for &b in &class_of {
            let row = &by_class[(a * nc + b) * nc..][..nc];
            triangle.extend(class_of.iter().map(|&c| row[c]));
        }
    }
    Some(Table { triangle, largest, owner_of, owner_span, points_span })
}

/// The `points` formulas compiled over `sum`, `low`, `mid` and `high`,
/// each checked to stay within the engine's score limit for the deck's
/// face values.
fn formulas(cx: &mut Cx, cards: &Cards, points: &Points, reads: &Reads) -> Option<Vec<crate::expr::IntExpr>> {
    let (lo, hi) = cards.value.iter().fold((i64::MAX, i64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    // Each name a formula reads with its bounds (`sum` is three values,
    // the others one).
    let vars: Vec<(&str, i128, i128)> = reads
        .vars
        .iter()
        .map(
            |&(name, _)| {
                if name == "sum" {
                    (name, 3 * lo as i128, 3 * hi as i128)
                } else {
                    (name, lo as i128, hi as i128)
                }
            },
        )
        .collect();
    let scope = reads.scope(&[], &[], "a number", ((3 * lo).min(lo), (3 * hi).max(hi)));
    let mut formulas = Vec::new();
    for (_, e, _) in points.entries.iter().chain(points.default.iter()) {
        let Some((f, _)) = crate::expr::compile_int(e, &scope, cx) else { continue };
        let reach = bound(e, &vars).map(|(a, b)| a.abs().max(b.abs()));
        if reach.is_none_or(|r| r > MAX_SCORE as i128) {
            let label = match reach {
                Some(r) => format!("can reach {r} points for face values {lo} to {hi}"),
                None => format!("can leave the range of 64-bit numbers for face values {lo} to {hi}"),
            };
            cx.push(
                Diag::error(
                    codes::TOO_LARGE,
                    e.span,
                    format!("this formula can give more points than the tower engine's limit of {MAX_SCORE}"),
                )
                .label(label)
                .help("use smaller factors"),
            );
        }
        formulas.push(f);
    }
    (!cx.has_errors()).then_some(formulas)
}

/// Every sorted triple of `k` colours.
pub(super) fn triples(k: usize) -> impl Iterator<Item = [usize; 3]> {
    (0..k).flat_map(move |a| (a..k).flat_map(move |b| (b..k).map(move |c| [a, b, c])))
}

/// The sorted colours of a pattern `[R R B]`, or `None` after a diagnostic.
fn colour_key(cx: &mut Cx, v: &Expr, colour_names: &[String]) -> Option<[usize; 3]> {
    let ExprKind::List(cs) = &v.kind else { return cx.expected(v, "a list of three colours `[R R B]`") };
    let mut key = Vec::new();
    let mut ok = true;
    for c in cs {
        let Some(name) = cx.name(c, "a colour") else {
            ok = false;
            continue;
        };
        match colour_names.iter().position(|n| *n == name) {
            Some(i) => {
                crate::check::resolved(None, c.span);
                key.push(i);
            }
            None => {
                cx.unknown(c.span, "a colour", &name, colour_names.iter().map(String::as_str));
                ok = false;
            }
        }
    }
    if cs.len() != 3 {
        cx.push(
            Diag::error(codes::ARITY, v.span, format!("a triangle has 3 cards, this lists {}", cs.len()))
                .label("expected three colours"),
        );
        return None;
    }
    key.sort_unstable();
    ok.then(|| [key[0], key[1], key[2]])
}

/// A `points` property: one formula for every triangle, or formulas by the
/// colours of the triangle's cards with an optional `else`.
pub(super) struct Points<'a> {
    entries: Vec<([usize; 3], &'a Expr, Span)>,
    default: Option<([usize; 3], &'a Expr, Span)>,
    /// Where the formulas are written (the section when there is none).
    span: Span,
}

impl<'a> Points<'a> {
    /// The `else` formula written at `span`: false when one was given
    /// already (an error).
    fn set_else(&mut self, cx: &mut Cx, formula: &'a Expr, span: Span) -> bool {
        let again = self.default.map(|(_, _, first)| {
            cx.push(
                Diag::error(codes::DUPLICATE, span, "`else` is given twice")
                    .label("given again here")
                    .note(first, "first given here"),
            );
        });
        self.default = Some(([0; 3], formula, span));
        again.is_none()
    }
}

fn points<'a>(cx: &mut Cx, p: &'a Property, colour_names: &[String]) -> Option<Points<'a>> {
    let mut out = Points { entries: Vec::new(), default: None, span: p.span };
    if let [e] = p.values.as_slice() {
        out.default = Some(([0; 3], e, p.span));
        return Some(out);
    }
    let mut ok = true;
    let mut vals = p.values.iter().peekable();
    while let Some(v) = vals.next() {
        // `else (-high)` reads as a call of `else`: its one argument is
        // the formula (fmt prints it `else(-high)`).
        if let ExprKind::Call(f, args) = &v.kind {
            if let (true, [formula]) = (f.name == "else", args.as_slice()) {
                ok &= out.set_else(cx, formula, v.span);
                continue;
            }
        }
        let is_else = matches!(&v.kind, ExprKind::Word(w) if w == "else");
        if !is_else && !matches!(v.kind, ExprKind::List(_)) {
            let joined = matches!(&v.kind, ExprKind::Binary(_, a, _) if matches!(a.kind, ExprKind::List(_)));
            let after_else =
                matches!(&v.kind, ExprKind::Binary(_, a, _) if matches!(&a.kind, ExprKind::Word(w) if w == "else"));
            cx.push(
                Diag::error(
                    codes::TYPE,
                    v.span,
                    format!("expected a pattern `[R R B]` or `else`, found {}", v.describe()),
                )
                .label("each formula follows the colours of the triangles it scores")
                .help(if joined {
                    "a formula that starts with an operator joins the pattern before it: write `(-high)` or \
                         `0 - high`"
                } else if after_else {
                    "a formula that starts with an operator joins the `else` before it: write `else (-high)` or \
                         `else 0 - high`"
                } else {
                    "write `points: [R R R] 2 * sum  else sum`, or one formula for every triangle"
                }),
            );
            return None;
        }
        let Some(f) = vals.next_if(|e| !matches!(e.kind, ExprKind::List(_))) else {
            cx.push(
                Diag::error(codes::ARITY, v.span, "these triangles have no formula")
                    .label("a formula such as `2 * sum` should follow"),
            );
            return None;
        };
        let span = v.span.to(f.span);
        if is_else {
            ok &= out.set_else(cx, f, span);
            continue;
        }
        let Some(key) = colour_key(cx, v, colour_names) else {
            ok = false;
            continue;
        };
        if let Some((_, _, first)) = out.entries.iter().find(|(k, _, _)| *k == key) {
            cx.push(
                Diag::error(codes::DUPLICATE, v.span, "these colours already have a formula")
                    .label("given again here")
                    .note(*first, "first given here"),
            );
            ok = false;
        }
        out.entries.push((key, f, span));
    }
    if ok && out.default.is_none() {
        if let Some(hole) = triples(colour_names.len()).find(|key| !out.entries.iter().any(|(k, _, _)| k == key)) {
            let show = hole.iter().map(|&i| colour_names[i].as_str()).collect::<Vec<_>>().join(" ");
            cx.push(
                Diag::error(
                    codes::SCORING_HOLE,
                    p.values_span(),
                    format!("no formula for a triangle of colours [{show}]"),
                )
                .label("this table has a hole")
                .help(format!("add `[{show}] sum`, or `else sum` for every other triangle")),
            );
            ok = false;
        }
    }
    ok.then_some(out)
}

/// Bounds on an integer formula's value when each variable lies in its
/// range; `None` when a step could leave ±2^62 (where the evaluation,
/// which wraps, could be wrong).
fn bound(e: &Expr, vars: &[(&str, i128, i128)]) -> Option<(i128, i128)> {
    const LIMIT: i128 = 1 << 62;
    let r = match &e.kind {
        ExprKind::Int(n) => (*n as i128, *n as i128),
        ExprKind::Word(w) => vars.iter().find(|v| v.0 == w).map(|v| (v.1, v.2))?,
        ExprKind::Unary(UnOp::Neg, a) => {
            let (a, b) = bound(a, vars)?;
            (-b, -a)
        }
        ExprKind::Binary(op, a, b) => {
            let (a0, a1) = bound(a, vars)?;
            let (b0, b1) = bound(b, vars)?;
            let most = |lo: i128, hi: i128| lo.abs().max(hi.abs());
            match op {
                BinOp::Add => (a0 + b0, a1 + b1),
                BinOp::Sub => (a0 - b1, a1 - b0),
                BinOp::Mul => {
                    let c = [a0 * b0, a0 * b1, a1 * b0, a1 * b1];
                    (c.into_iter().min()?, c.into_iter().max()?)
                }
                BinOp::Div => (-most(a0, a1), most(a0, a1)),
                BinOp::Rem => {
                    let m = most(a0, a1).min(most(b0, b1));
                    (-m, m)
                }
                _ => return None,
            }
        }
        ExprKind::Call(f, args) if f.name == "min" || f.name == "max" => {
            let bs = args.iter().map(|a| bound(a, vars)).collect::<Option<Vec<_>>>()?;
            let pick = |it: &mut dyn Iterator<Item = i128>| if f.name == "min" { it.min() } else { it.max() };
            (pick(&mut bs.iter().map(|b| b.0))?, pick(&mut bs.iter().map(|b| b.1))?)
        }
        _ => return None,
    };
    (r.0 >= -LIMIT && r.1 <= LIMIT).then_some(r)
}

/// What a card held at the end is worth to each player: `held[p][c]` for
/// player `p` (whose colour is `player_colour[p]`) and card `c`.
pub(super) fn held_table(
    cx: &mut Cx,
    held: &Held,
    cards: &Cards,
    deck: &Deck,
    player_colour: [usize; 2],
) -> Option<[Vec<i64>; 2]> {
    let n = cards.value.len();
    match held {
        Held::Times { own, other } => Some(player_colour.map(|pc| {
            (0..n)
                .map(|c| {
                    let m = if cards.colour[c] == pc { own.0 } else { other.0 };
                    (cards.value[c] as i128 * m as i128).clamp(i64::MIN as i128, i64::MAX as i128) as i64
                })
                .collect()
        })),
        Held::Formula(e) => {
            let reads = Reads::new(HELD_READ, HELD_CANNOT);
            let (lo, hi) = cards.value.iter().fold((1, deck.ranks.len() as i64), |(a, b), &v| (a.min(v), b.max(v)));
            let scope = reads.scope(&[], &[], "a number", (lo, hi));
            let (f, _) = crate::expr::compile_int(e, &scope, cx)?;
            Some(player_colour.map(|pc| {
                (0..n)
                    .map(|c| {
                        reads.eval(
                            |env| f.eval(env),
                            |name| match name {
                                "value" => cards.value[c],
                                "rank" => deck.rank(c as u16) as i64 + 1,
                                _ => (cards.colour[c] == pc) as i64,
                            },
                        )
                    })
                    .collect()
            }))
        }
    }
}

/// The largest score difference (every turn's triangle at its largest, and
/// both players' hands of `hold` cards at their most) must stay within the
/// engine's limit.
#[allow(clippy::too_many_arguments)]
pub(super) fn check_score_reach(
    top: &Block,
    cx: &mut Cx,
    cards: &Cards,
    table: &Table,
    scoring: &Scoring,
    held: &[Vec<i64>; 2],
    peaks: usize,
    hold: usize,
) -> Option<()> {
    let per_card = held.iter().flatten().map(|&v| (v as i128).abs()).max().unwrap_or(0);
    let floors = peaks * peaks.saturating_sub(1) / 2;
    let triangles = (cards.value.len().saturating_sub(2 * peaks)).min(2 * floors) as i128;
    let (held_most, tri_most) = (per_card * 2 * hold as i128, triangles * table.largest as i128);
    if held_most + tri_most <= MAX_SCORE as i128 {
        return Some(());
    }
    let (span, what) = if held_most >= tri_most {
        let span = match &scoring.held {
            Held::Formula(e) => Some(e.span),
            Held::Times { own, other } => {
                let at = |m: i64| cards.value.iter().map(|&v| (v as i128 * m as i128).abs()).max().unwrap_or(0);
                if at(own.0) >= at(other.0) {
                    own.1
                } else {
                    other.1
                }
            }
        };
        let each = if hold == 1 { "each".to_string() } else { format!("each, and a hand holds up to {hold}") };
        (span.unwrap_or(top.head), format!("held cards can be worth {per_card} {each}"))
    } else {
        (scoring.points.span, format!("{triangles} triangles of up to {} points", table.largest))
    };
    cx.push(
        Diag::error(
            codes::TOO_LARGE,
            span,
            format!("scores could reach {}, beyond the tower engine's limit of {MAX_SCORE}", held_most + tri_most),
        )
        .label(what)
        .help("use smaller multipliers or face values"),
    );
    None
}
