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
//!
//! Engines that play with wild cards (the exchange engine) also read, with
//! [`lower_with`]:
//!
//! ```text
//!   wild: 2        # every card of these ranks is wild
//!   jokers: JK     # extra wild cards, one per name
//!   high: A        # the first rank also follows the last: T J Q K A, no wrap
//! ```
//!
//! and engines that deal several packs shuffled together (the covering
//! engine):
//!
//! ```text
//!   packs: 2       # each card twice in a deal
//! ```

use crate::check::{Block, Cx};
use crate::diag::codes;
use crate::diag::Diag;
use crate::engines::cards::Deck;
use crate::syntax::{Expr, ExprKind, Property, Section};

/// Most ranks or suits a deck may have.
pub(crate) const MAX_NAMES: usize = 64;

/// Most jokers a deck may have.
pub(crate) const MAX_JOKERS: usize = 8;

/// Most packs a deal may shuffle together.
pub(crate) const MAX_PACKS: usize = 8;

/// What a deck may declare beyond ranks, suits, values, wrap and colours.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Extras {
    /// `wild:`, `jokers:` and `high:` are read (otherwise they are unknown keys).
    pub wild_cards: bool,
    /// `packs:` is read (otherwise it is an unknown key).
    pub packs: bool,
}

/// Reads the `deck` section of `top`.
pub(crate) fn lower(top: &Block, cx: &mut Cx) -> Option<Deck> {
    lower_with(top, cx, Extras::default())
}

/// Reads the `deck` section of `top`, with the keys `extras` allows.
pub(crate) fn lower_with(top: &Block, cx: &mut Cx, extras: Extras) -> Option<Deck> {
    let section = top.require_section(cx, "deck")?;
    let b = Block::of_section(section);
    let ranks = names(&b, cx, "ranks", "rank", "A 2 3 4 5 6 7 8 9 T J Q K");
    let suits = names(&b, cx, "suits", "suit", "S H D C");
    let values =
        b.prop(cx, "values").map(|p| (p, p.values.iter().map(|v| cx.int(v, "a face value")).collect::<Vec<_>>()));
    let wrap_prop = b.prop(cx, "wrap");
    let wrap = wrap_prop.and_then(|p| cx.flag(p)).unwrap_or(false);
    let colours = b.prop(cx, "colours");
    let (wild, jokers, high) = if extras.wild_cards {
        (b.prop(cx, "wild"), b.prop(cx, "jokers"), b.prop(cx, "high"))
    } else {
        (None, None, None)
    };
    let packs = if extras.packs { b.prop(cx, "packs") } else { None };
    b.finish(cx);
    let packs = match packs {
        None => Some(1),
        Some(p) => cx.prop_int(p, 1, "the number of packs (at least 1)").and_then(|n| {
            if n as usize > MAX_PACKS {
                cx.push(
                    Diag::error(codes::OUT_OF_RANGE, p.values_span(), format!("{n} packs is too many"))
                        .label(format!("at most {MAX_PACKS}")),
                );
                return None;
            }
            Some(n as usize)
        }),
    };
    let (ranks, suits, packs) = (ranks?, suits?, packs?);
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
    check_card_names(cx, section, &ranks, &suits)?;
    let mut deck = Deck::new(ranks, suits, values, wrap).with_packs(packs);
    if let Some(p) = wild {
        let rs = wild_ranks(cx, &deck, p)?;
        deck = deck.with_wild(&rs);
    }
    if let Some(p) = jokers {
        let names = joker_names(cx, &deck, p)?;
        deck = deck.with_jokers(names);
    }
    if let Some(p) = high {
        check_high(cx, &deck, p, wrap.then_some(wrap_prop).flatten())?;
        deck = deck.with_high();
    }
    match colours {
        None => Some(deck),
        Some(p) => {
            let (names, of_suit) = colours_of_suits(cx, p, deck.suits.len())?;
            Some(deck.with_colours(names, of_suit))
        }
    }
}

/// Every card name must be unambiguous (`1` + `11` vs `11` + `1`).
fn check_card_names(cx: &mut Cx, section: &Section, ranks: &[String], suits: &[String]) -> Option<()> {
    let mut seen = std::collections::HashMap::new();
    for r in ranks {
        for s in suits {
            let name = format!("{r}{s}");
            if let Some((r0, s0)) = seen.insert(name.clone(), (r, s)) {
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
    Some(())
}

/// `wild`: the ranks whose cards are wild (some, not all).
fn wild_ranks(cx: &mut Cx, deck: &Deck, p: &Property) -> Option<Vec<usize>> {
    let rs = ranks(deck, &p.values, cx)?;
    if rs.is_empty() {
        cx.push(
            Diag::error(codes::ARITY, p.key.span, "`wild` names no rank")
                .label("expected the ranks whose cards are wild")
                .help("for example `wild: 2`, or remove the line"),
        );
        return None;
    }
    if rs.len() == deck.ranks.len() {
        cx.push(
            Diag::error(codes::OUT_OF_RANGE, p.values_span(), "every rank is wild")
                .label("no card would be natural")
                .help("name only the ranks whose cards stand for any card"),
        );
        return None;
    }
    Some(rs)
}

/// `jokers`: the names of the extra wild cards, each distinct and none
/// spelt like a card of the deck.
fn joker_names(cx: &mut Cx, deck: &Deck, p: &Property) -> Option<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for v in &p.values {
        let name = match &v.kind {
            ExprKind::Word(w) => w.clone(),
            ExprKind::Int(n) => n.to_string(),
            _ => return cx.expected(v, "the name of a joker as written in the input (`JK`)"),
        };
        if deck.parse_card(&name).is_some() {
            cx.push(
                Diag::error(codes::AMBIGUOUS_CARD, v.span, format!("joker `{name}` is already a card of the deck"))
                    .label("a rank and a suit spell it")
                    .help("give the joker a name that is not a rank followed by a suit"),
            );
            return None;
        }
        if let Some(j) = out.iter().position(|o| *o == name) {
            cx.push(
                Diag::error(codes::DUPLICATE, v.span, format!("joker `{name}` is listed twice"))
                    .label("listed again here")
                    .note(p.values[j].span, "first listed here"),
            );
            return None;
        }
        out.push(name);
    }
    if out.len() > MAX_JOKERS {
        cx.push(
            Diag::error(codes::TOO_LARGE, p.values_span(), format!("at most {MAX_JOKERS} jokers")).label("too many"),
        );
        return None;
    }
    Some(out)
}

/// `high`: names the first rank, and cannot go with `wrap: yes` (`wrap`:
/// that property, when it says yes).
fn check_high(cx: &mut Cx, deck: &Deck, p: &Property, wrap: Option<&Property>) -> Option<()> {
    let [v] = p.values.as_slice() else {
        cx.push(
            Diag::error(codes::ARITY, p.values_span(), "`high` names one rank")
                .label("expected the first rank, e.g. `high: A`"),
        );
        return None;
    };
    let r = rank(deck, v, cx)?;
    if r != 0 {
        cx.push(
            Diag::error(codes::OUT_OF_RANGE, v.span, format!("`high` must name the first rank, `{}`", deck.ranks[0]))
                .label(format!("`{}` is not the first rank", deck.ranks[r]))
                .help("the first rank of `ranks` is the one that may also follow the last"),
        );
        return None;
    }
    if let Some(w) = wrap {
        cx.push(
            Diag::error(codes::CONFLICT, p.span, "`high` and `wrap: yes` say different things")
                .label("runs may end with the first rank but not go round")
                .note(w.span, "runs go round the ranks here")
                .help("keep `wrap: yes` for runs that go round (Q K A 2), or `high` for runs that stop at it"),
        );
        return None;
    }
    Some(())
}

/// `colours`: one colour per suit, in suit order; the distinct colour
/// names, and each suit's colour.
fn colours_of_suits(cx: &mut Cx, p: &Property, n_suits: usize) -> Option<(Vec<String>, Vec<usize>)> {
    if p.values.len() != n_suits {
        cx.push(
            Diag::error(codes::ARITY, p.values_span(), format!("{} colours for {} suits", p.values.len(), n_suits))
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
    Some((names, of_suit))
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
    for v in &p.values {
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
        out.push(name);
    }
    ok.then_some(out)
}

/// Resolves a rank name (a word or a number) to its index.
pub(crate) fn rank(deck: &Deck, e: &Expr, cx: &mut Cx) -> Option<usize> {
    let name = match &e.kind {
        ExprKind::Word(w) => w.clone(),
        ExprKind::Int(n) => n.to_string(),
        _ => return cx.expected(e, "a rank"),
    };
    match deck.ranks.iter().position(|r| *r == name) {
        Some(i) => {
            crate::check::resolved(Some("rank"), e.span);
            Some(i)
        }
        None => {
            cx.unknown(e.span, "a rank", &name, deck.ranks.iter().map(String::as_str));
            None
        }
    }
}

/// Resolves ranks written one by one or as ranges (`A..T`).
pub(crate) fn ranks(deck: &Deck, es: &[Expr], cx: &mut Cx) -> Option<Vec<usize>> {
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
