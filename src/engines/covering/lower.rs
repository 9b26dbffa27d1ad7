//! Lowering for the `covering` engine: the `layout`, `group`, `input` and
//! `output` sections. See docs/engines/covering.md.

use crate::check::{Block, Cx};
use crate::diag::codes;
use crate::diag::Diag;
use crate::engines::cards::Deck;
use crate::engines::covering::{Covering, CoveringSpans, Group, MAX_PILES};
use crate::engines::Engine;
use crate::game::Game;
use crate::syntax::Section;

/// The covering engine in the registry.
pub const ENGINE: Engine = Engine {
    name: "covering",
    summary: "cards dealt onto piles; exposed groups are covered by the next cards",
    lower: |top, cx| lower(top, cx).map(|g| Box::new(g) as Box<dyn Game>),
    schema: &super::schema::SCHEMA,
};

pub fn lower(top: &Block, cx: &mut Cx) -> Option<Covering> {
    let deck = crate::engines::cards::lower::lower(top, cx);
    let layout = top.require_section(cx, "layout");
    let groups = top.sections("group");
    let input = top.section(cx, "input");
    let output = top.require_section(cx, "output");
    let deck = deck?;
    let mut spans = CoveringSpans {
        groups: groups.iter().map(|s| s.head).collect(),
        names: groups.iter().map(|s| s.name().map_or(String::new(), |n| n.value.clone())).collect(),
        ..Default::default()
    };

    let piles = layout.and_then(|s| {
        let b = Block::of_section(s);
        let n = b.require(cx, "piles", "16").and_then(|p| {
            spans.piles = p.span;
            let n = cx.prop_int(p, 1, "the number of piles (at least 1)")?;
            if n as usize > MAX_PILES {
                cx.push(
                    Diag::error(codes::OUT_OF_RANGE, p.values_span(), format!("{n} piles is too many"))
                        .label(format!("at most {MAX_PILES}")),
                );
                return None;
            }
            Some(n as usize)
        });
        b.finish(cx);
        n
    });
    let groups = lower_groups(&groups, &deck, piles, top, cx);
    let (lines, terminator) = match input {
        None => (1, "#".to_string()),
        Some(s) => {
            let b = Block::of_section(s);
            let lines = b.prop(cx, "lines").map_or(Some(1), |p| {
                let n = cx.prop_int(p, 1, "the number of lines a deck is written on")? as usize;
                if deck.size() % n != 0 {
                    cx.push(
                        Diag::error(
                            codes::OUT_OF_RANGE,
                            p.values_span(),
                            format!("a deck of {} cards cannot be written on {n} equal lines", deck.size()),
                        )
                        .label("does not divide the deck"),
                    );
                    return None;
                }
                Some(n)
            });
            let end = b.prop(cx, "end").map_or(Some("#".to_string()), |p| {
                let e = cx.one(p, "the line that ends the input")?;
                cx.string(e, "the line that ends the input (a string)").map(|s| s.value.clone())
            });
            b.finish(cx);
            (lines?, end?)
        }
    };
    let (played, overflow) = output.and_then(|s| {
        let b = Block::of_section(s);
        let played = b.require(cx, "played", "\"{deck:>3}:{piles:>3|}\"").and_then(|p| {
            spans.played = p.span;
            cx.template(p)
        });
        let overflow = b.require(cx, "overflow", "\"{deck:>3}: no pile for card {card}\"").and_then(|p| {
            spans.overflow = p.span;
            cx.template(p)
        });
        b.finish(cx);
        Some((played?, overflow?))
    })?;
    let (piles, groups) = (piles?, groups?);
    if cx.has_errors() {
        return None;
    }
    let mut game = Covering::new(deck, piles, groups, lines, terminator, played, overflow);
    game.spans = spans;
    Some(game)
}

fn lower_groups(
    sections: &[&Section],
    deck: &Deck,
    piles: Option<usize>,
    top: &Block,
    cx: &mut Cx,
) -> Option<Vec<Group>> {
    if sections.is_empty() {
        cx.push(
            Diag::error(codes::MISSING, top.head, "the rule file has no `group`")
                .label("nothing can ever be covered")
                .help("add a group such as `group \"pair\" { cards: 2  ranks: A..T  sum: 11 }`"),
        );
        return None;
    }
    let mut out: Vec<(Group, &Section)> = Vec::new();
    let mut ok = true;
    for s in sections {
        let b = Block::of_section(s);
        let Some(name) = s.name() else {
            cx.push(
                Diag::error(codes::MISSING, s.head, "a group needs a name").label("write `group \"pair\" { ... }`"),
            );
            ok = false;
            continue;
        };
        if let Some((_, first)) = out.iter().find(|(_, f)| f.name().is_some_and(|n| n.value == name.value)) {
            cx.push(
                Diag::error(codes::DUPLICATE, name.span, format!("group `{}` is defined twice", name.value))
                    .label("defined again here")
                    .note(first.head, "first defined here"),
            );
            ok = false;
        }
        let ranks_p = b.require(cx, "ranks", "J Q K");
        let ranks = ranks_p.and_then(|p| crate::engines::cards::lower::ranks(deck, &p.values, cx));
        let sum = b.prop(cx, "sum");
        let cards = b.prop(cx, "cards");
        b.finish(cx);
        let group = match (ranks, sum) {
            (Some(ranks), Some(sp)) => {
                let total = cx
                    .one(sp, "the total of the face values")
                    .and_then(|e| cx.int(e, "the total of the face values (a whole number)"));
                let n = match cards {
                    Some(p) => cx.prop_int(p, 1, "the number of cards in the group"),
                    None => Some(2),
                };
                match (total, n) {
                    (Some(total), Some(n)) => {
                        let mut allowed = vec![false; deck.ranks.len()];
                        ranks.iter().for_each(|&r| allowed[r] = true);
                        let g = Group::Sum { cards: n as usize, allowed, total };
                        if !sum_reachable(deck, &g) {
                            let listed: Vec<&str> = ranks.iter().map(|&r| deck.ranks[r].as_str()).collect();
                            cx.push(
                                Diag::error(
                                    codes::NEVER_MATCHES,
                                    sp.values_span(),
                                    format!("group `{}` can never match", name.value),
                                )
                                .label(format!("no {n} cards of {} add up to {total}", listed.join(" ")))
                                .note(ranks_p.map_or(s.head, |p| p.values_span()), "the ranks allowed")
                                .help("face values come from `values` in the `deck` section"),
                            );
                            None
                        } else {
                            Some(g)
                        }
                    }
                    _ => None,
                }
            }
            (Some(ranks), None) => {
                if let Some(p) = cards {
                    if cx.prop_int(p, 1, "the number of cards").is_some_and(|n| n as usize != ranks.len()) {
                        cx.push(
                            Diag::error(
                                codes::ARITY,
                                p.values_span(),
                                format!("a group of one card of each rank has {} cards", ranks.len()),
                            )
                            .label("does not match the ranks listed")
                            .help("`cards` counts the cards of a `sum` group; drop it here"),
                        );
                    }
                }
                let suits = deck.suits.len();
                if let Some(&r) = ranks.iter().find(|&&r| ranks.iter().filter(|&&x| x == r).count() > suits) {
                    cx.push(
                        Diag::error(
                            codes::NEVER_MATCHES,
                            ranks_p.map_or(s.head, |p| p.values_span()),
                            format!("group `{}` can never match", name.value),
                        )
                        .label(format!("`{}` is listed more times than there are suits", deck.ranks[r])),
                    );
                    None
                } else {
                    // The order of the ranks does not matter: covering goes by pile.
                    let mut ranks = ranks;
                    ranks.sort_unstable();
                    Some(Group::Set { ranks })
                }
            }
            _ => None,
        };
        match group {
            Some(g) => {
                if let Some(piles) = piles {
                    if g.size() > piles {
                        cx.push(
                            Diag::error(
                                codes::GROUP_TOO_LARGE,
                                s.head,
                                format!(
                                    "group `{}` has {} cards but the layout has {piles} piles",
                                    name.value,
                                    g.size()
                                ),
                            )
                            .label("needs more piles than the layout has")
                            .help("each card of a group lies on its own pile"),
                        );
                        ok = false;
                    }
                }
                if let Some((_, same)) = out.iter().find(|(h, _)| *h == g) {
                    cx.push(
                        Diag::error(
                            codes::DUPLICATE,
                            s.head,
                            format!(
                                "group `{}` is the same as group `{}`",
                                name.value,
                                same.name().map_or("", |n| &n.value)
                            ),
                        )
                        .label("same cards as another group")
                        .note(same.head, "defined here first"),
                    );
                    ok = false;
                }
                out.push((g, s));
            }
            None => ok = false,
        }
    }
    // A rank in two groups: the first group in the file is tried first.
    for r in 0..deck.ranks.len() {
        let holders: Vec<&(Group, &Section)> = out
            .iter()
            .filter(|(g, _)| {
                matches!(g, Group::Set { ranks } if ranks.contains(&r))
                    || matches!(g, Group::Sum { allowed, .. } if allowed[r])
            })
            .collect();
        if let [first, second, ..] = holders.as_slice() {
            cx.push(
                Diag::warning(
                    codes::OVERLAPPING_GROUPS,
                    second.1.head,
                    format!("rank `{}` belongs to two groups", deck.ranks[r]),
                )
                .label("also takes this rank")
                .note(first.1.head, "tried first")
                .help("when its card is the lowest eligible one, the group written first is covered"),
            );
            break;
        }
    }
    ok.then(|| out.into_iter().map(|(g, _)| g).collect())
}

/// Can `cards` cards of allowed ranks, at most one per suit of a rank, add
/// up to the total?
fn sum_reachable(deck: &Deck, g: &Group) -> bool {
    let Group::Sum { cards, allowed, total } = g else { return true };
    let suits = deck.suits.len();
    // reach[k] = set of sums of k cards; sums are bounded by the values.
    let mut reach: Vec<std::collections::BTreeSet<i64>> = vec![Default::default(); cards + 1];
    reach[0].insert(0);
    for (r, &ok) in allowed.iter().enumerate() {
        if !ok {
            continue;
        }
        let v = deck.values[r];
        for k in (1..=*cards).rev() {
            for m in 1..=suits.min(k) {
                let from: Vec<i64> = reach[k - m].iter().copied().collect();
                for s in from {
                    if let Some(x) = s.checked_add(v.saturating_mul(m as i64)) {
                        if reach[k].len() < 100_000 {
                            reach[k].insert(x);
                        }
                    }
                }
            }
        }
    }
    reach[*cards].contains(total)
}
