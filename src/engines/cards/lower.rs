//! Lowering the `deck` section into the [`Deck`] model, and resolving rank
//! names against it.
//!
//! ```text
//! deck {
//!   ranks: A 2 3 4 5 6 7 8 9 T J Q K
//!   suits: S H D C
//!   values: 1 2 3 4 5 6 7 8 9 10 11 12 13   # optional, default 1, 2, 3, ...
//!   wrap: yes                                 # K and A are consecutive
//!   colours: black red black red              # optional, one per suit
//! }
//! ```

use crate::check::{Block, Cx};
use crate::diag::codes;
use crate::diag::Diag;
use crate::engines::cards::Deck;
use crate::syntax::{Expr, ExprKind};

/// Most ranks or suits a deck may have.
pub const MAX_NAMES: usize = 64;

/// Reads the `deck` section of `top`.
pub fn lower(top: &Block, cx: &mut Cx) -> Option<Deck> {
    let section = top.require_section(cx, "deck")?;
    let b = Block::of_section(section);
    let ranks = names(&b, cx, "ranks", "rank", "A 2 3 4 5 6 7 8 9 T J Q K");
    let suits = names(&b, cx, "suits", "suit", "S H D C");
    let values =
        b.prop(cx, "values").map(|p| (p, p.values.iter().map(|v| cx.int(v, "a face value")).collect::<Vec<_>>()));
    let wrap = b.prop(cx, "wrap").and_then(|p| cx.flag(p)).unwrap_or(false);
    let colours = b.prop(cx, "colours");
    b.finish(cx);
    let (ranks, suits) = (ranks?, suits?);
    let values = match values {
        None => (1..=ranks.len() as i64).collect(),
        Some((p, vals)) => {
            if vals.len() != ranks.len() {
                cx.push(
                    Diag::error(
                        codes::ARITY,
                        p.values_span(),
                        format!("{} face values for {} ranks", vals.len(), ranks.len()),
                    )
                    .label("one value per rank, in rank order"),
                );
                return None;
            }
            vals.into_iter().collect::<Option<Vec<_>>>()?
        }
    };
    // Every card name must be unambiguous (`1` + `11` vs `11` + `1`).
    let mut seen = std::collections::HashMap::new();
    for r in &ranks {
        for s in &suits {
            let name = format!("{r}{s}");
            if let Some((r0, s0)) = seen.insert(name.clone(), (r.clone(), s.clone())) {
                cx.push(
                    Diag::error(
                        codes::AMBIGUOUS_CARD,
                        section.head,
                        format!("card name `{name}` is both {r0}+{s0} and {r}+{s}"),
                    )
                    .label("in this deck")
                    .help("choose rank and suit names so that every card is written one way"),
                );
                return None;
            }
        }
    }
    let n_suits = suits.len();
    let deck = Deck::new(ranks, suits, values, wrap);
    match colours {
        None => Some(deck),
        Some(p) => {
            if p.values.len() != n_suits {
                cx.push(
                    Diag::error(
                        codes::ARITY,
                        p.values_span(),
                        format!("{} colours for {} suits", p.values.len(), n_suits),
                    )
                    .label("one colour per suit, in suit order"),
                );
                return None;
            }
            let mut names: Vec<String> = Vec::new();
            let mut of_suit = Vec::new();
            for v in &p.values {
                let name = cx.name(v, "a colour name")?.to_string();
                let i = names.iter().position(|n| *n == name).unwrap_or_else(|| {
                    names.push(name);
                    names.len() - 1
                });
                of_suit.push(i);
            }
            Some(deck.with_colours(names, of_suit))
        }
    }
}

fn names(b: &Block, cx: &mut Cx, key: &'static str, what: &str, example: &str) -> Option<Vec<String>> {
    let p = b.require(cx, key, example)?;
    if p.values.is_empty() {
        cx.push(
            Diag::error(codes::ARITY, p.key.span, format!("a deck needs at least one {what}"))
                .label(format!("no {what} given")),
        );
        return None;
    }
    if p.values.len() > MAX_NAMES {
        cx.push(Diag::error(codes::TOO_LARGE, p.values_span(), format!("at most {MAX_NAMES} {key}")).label("too many"));
        return None;
    }
    let mut out: Vec<String> = Vec::new();
    let mut ok = true;
    for (i, v) in p.values.iter().enumerate() {
        let name = match &v.kind {
            ExprKind::Word(w) => w.clone(),
            ExprKind::Int(n) => n.to_string(),
            _ => {
                cx.expected::<()>(v, &format!("a {what} name"));
                ok = false;
                continue;
            }
        };
        if let Some(j) = out.iter().position(|o| *o == name) {
            cx.push(
                Diag::error(codes::DUPLICATE, v.span, format!("{what} `{name}` is listed twice"))
                    .label("listed again here")
                    .note(p.values[j].span, "first listed here"),
            );
            ok = false;
        }
        let _ = i;
        out.push(name);
    }
    ok.then_some(out)
}

/// Resolves a rank name (a word or a number) to its index.
pub fn rank(deck: &Deck, e: &Expr, cx: &mut Cx) -> Option<usize> {
    let name = match &e.kind {
        ExprKind::Word(w) => w.clone(),
        ExprKind::Int(n) => n.to_string(),
        _ => return cx.expected(e, "a rank"),
    };
    match deck.ranks.iter().position(|r| *r == name) {
        Some(i) => Some(i),
        None => {
            cx.unknown(e.span, "a rank", &name, deck.ranks.iter().map(String::as_str));
            None
        }
    }
}

/// Resolves ranks written one by one or as ranges (`A..T`).
pub fn ranks(deck: &Deck, es: &[Expr], cx: &mut Cx) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    for e in es {
        match &e.kind {
            ExprKind::Range(a, b) => {
                let (a, b) = (rank(deck, a, cx)?, rank(deck, b, cx)?);
                if a > b {
                    cx.push(
                        Diag::error(codes::EMPTY_RANGE, e.span, "this range of ranks is empty")
                            .label("the first rank comes after the last")
                            .help("ranges follow the order of `ranks` in the deck"),
                    );
                    return None;
                }
                out.extend(a..=b);
            }
            ExprKind::List(items) => out.extend(ranks(deck, items, cx)?),
            _ => out.push(rank(deck, e, cx)?),
        }
    }
    Some(out)
}
