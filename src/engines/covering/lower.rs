//! Lowering for the `covering` engine: the `layout`, `group`, `input` and
//! `output` sections (the expressions of `scan`, `each` and `between` in
//! [`conds`]). See docs/engines/covering.md.

mod conds;

use crate::check::{Block, Cx};
use crate::diag::codes;
use crate::diag::Diag;
use crate::engines::cards::lower::Extras;
use crate::engines::cards::Deck;
use crate::engines::covering::{
    cond_of, CondGroup, Conds, Covering, CoveringSpans, Group, Layout, OverflowFields, PlayedFields, Same, SumTable,
    CHECK_BUDGET, MAX_PILES, MAX_SEARCH, MAX_SUM_STEPS,
};
use crate::engines::Engine;
use crate::game::Game;
use crate::source::Span;
use crate::syntax::{Property, Section};
use crate::template::OutputLine;

/// The covering engine in the registry.
pub(crate) const ENGINE: Engine = Engine {
    name: "covering",
    summary: "cards dealt onto piles; exposed groups are covered by the next cards",
    lower: |top, cx| lower(top, cx).map(|g| Box::new(g) as Box<dyn Game>),
    schema: &super::schema::SCHEMA,
};

pub(crate) fn lower(top: &Block, cx: &mut Cx) -> Option<Covering> {
    let deck = crate::engines::cards::lower::lower_with(top, cx, Extras { packs: true, ..Extras::default() });
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
    let layout = layout.and_then(|s| lower_layout(cx, s, &deck, &mut spans));
    let groups = lower_groups(top, cx, &deck, layout.as_ref());
    let (lines, terminator) = match input {
        None => (1, "#".to_string()),
        Some(s) => lower_input(cx, s, &deck)?,
    };
    let (played, overflow) = output.and_then(|s| lower_output(cx, s, &mut spans))?;
    let (layout, (groups, conds)) = (layout?, groups?);
    if cx.has_errors() {
        return None;
    }
    let mut game = Covering::new(deck, layout, groups, lines, terminator, played, overflow).with_cond_groups(conds);
    game.spans = spans;
    Some(game)
}

/// A whole number 1 to [`MAX_PILES`] (`what`: the number of piles, rows
/// or columns).
fn dimension(cx: &mut Cx, p: &Property, what: &str) -> Option<usize> {
    let n = cx.prop_int(p, 1, &format!("the number of {what} (at least 1)"))?;
    if n as usize > MAX_PILES {
        cx.push(
            Diag::error(codes::OUT_OF_RANGE, p.values_span(), format!("{n} {what} is too many"))
                .label(format!("at most {MAX_PILES}")),
        );
        return None;
    }
    Some(n as usize)
}

/// The `layout` section: the grid (`rows` and `columns`, or `piles` in
/// one row, or `piles` with one of them), the piles it may use, and the
/// order they are examined in (`scan`).
fn lower_layout(cx: &mut Cx, s: &Section, deck: &Deck, spans: &mut CoveringSpans) -> Option<Layout> {
    let b = Block::of_section(s);
    let (piles_p, rows_p, columns_p) = (b.prop(cx, "piles"), b.prop(cx, "rows"), b.prop(cx, "columns"));
    let scan_p = b.prop(cx, "scan");
    b.finish(cx);
    spans.piles = piles_p.or(rows_p).or(columns_p).map_or(s.head, |p| p.span);
    let piles = piles_p.map(|p| dimension(cx, p, "piles"));
    let rows = rows_p.map(|p| dimension(cx, p, "rows"));
    let columns = columns_p.map(|p| dimension(cx, p, "columns"));
    // Each given, read (`Some(None)`: not given; `None`: wrong).
    let given = |x: Option<Option<usize>>| x.map_or(Some(None), |x| x.map(Some));
    let (piles, rows, columns) = (given(piles)?, given(rows)?, given(columns)?);
    let (piles, rows, columns) = match (piles, rows, columns) {
        (None, Some(r), Some(c)) => {
            if r * c > MAX_PILES {
                let at = rows_p.map_or(s.head, |p| p.values_span());
                cx.push(
                    Diag::error(codes::OUT_OF_RANGE, at, format!("a {r} x {c} grid has {} piles", r * c))
                        .label(format!("at most {MAX_PILES}"))
                        .help("give `piles` to use only part of the grid"),
                );
                return None;
            }
            (r * c, r, c)
        }
        (None, _, _) => {
            cx.push(
                Diag::error(codes::MISSING, s.head, "`layout` needs `piles`, or `rows` and `columns`")
                    .label("how many piles?")
                    .help("for example `rows: 4  columns: 4` (16 piles)"),
            );
            return None;
        }
        (Some(p), Some(r), Some(c)) if p > r * c => {
            cx.push(
                Diag::error(
                    codes::OUT_OF_RANGE,
                    piles_p.map_or(s.head, |p| p.values_span()),
                    format!("{p} piles do not fit a {r} x {c} grid"),
                )
                .label(format!("at most {}", r * c)),
            );
            return None;
        }
        (Some(p), Some(r), Some(c)) => (p, r, c),
        (Some(p), Some(r), None) => (p, r, p.div_ceil(r)),
        (Some(p), None, Some(c)) => (p, p.div_ceil(c), c),
        (Some(p), None, None) => (p, 1, p),
    };
    let mut layout = Layout { piles, rows, columns, order: (0..piles).collect() };
    if let Some(p) = scan_p {
        layout.order = conds::scan(cx, p, &conds::Vocab::new(deck, &layout))?;
    }
    Some(layout)
}

/// The `input` section: how many lines a deck is written on (they must
/// divide the deck), and the line that ends the input.
fn lower_input(cx: &mut Cx, s: &Section, deck: &Deck) -> Option<(usize, String)> {
    let b = Block::of_section(s);
    let lines = b.prop(cx, "lines").map_or(Some(1), |p| {
        let n = cx.prop_int(p, 1, "the number of lines a deck is written on")? as usize;
        let size = deck.size() * deck.packs;
        if !size.is_multiple_of(n) {
            cx.push(
                Diag::error(
                    codes::OUT_OF_RANGE,
                    p.values_span(),
                    format!("a deck of {size} cards cannot be written on {n} equal lines"),
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
    Some((lines?, end?))
}

type Lines = (OutputLine<PlayedFields<'static>>, OutputLine<OverflowFields>);

/// The `output` section: the line of a deck played out, and of one that
/// overflows.
fn lower_output(cx: &mut Cx, s: &Section, spans: &mut CoveringSpans) -> Option<Lines> {
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
}

/// The `group` sections, in file order: at least one, each with its own
/// name and cards, none larger than the layout.
/// With each group, its conditions compiled (when it has any).
type Groups = (Vec<Group>, Vec<Option<CondGroup>>);

fn lower_groups(top: &Block, cx: &mut Cx, deck: &Deck, layout: Option<&Layout>) -> Option<Groups> {
    let piles = layout.map(|l| l.piles);
    // Conditions compile against the layout; without one (it is wrong),
    // against the largest, only to report their own errors.
    let vocab = conds::Vocab::new(deck, layout.unwrap_or(&Layout::row(MAX_PILES)));
    let named = top.named_sections(cx, "group", "group");
    let mut ok = named.len() == top.sections("group").len();
    if ok && named.is_empty() {
        cx.push(
            Diag::error(codes::MISSING, top.head, "the rule file has no `group`")
                .label("nothing can ever be covered")
                .help("add a group such as `group \"pair\" { cards: 2  ranks: A..T  sum: 11 }`"),
        );
        return None;
    }
    // (group, its section, whether it lists its ranks)
    let mut out: Vec<(Group, &Section, bool)> = Vec::new();
    let mut with: Vec<Option<CondGroup>> = Vec::new();
    for (s, name) in named {
        let Some((g, listed, cond)) = lower_group(s, &name.value, deck, piles, &vocab, cx) else {
            ok = false;
            continue;
        };
        if let Some(piles) = piles.filter(|&p| g.size() > p) {
            cx.push(
                Diag::error(
                    codes::GROUP_TOO_LARGE,
                    s.head,
                    format!("group `{}` has {} cards but the layout has {piles} piles", name.value, g.size()),
                )
                .label("needs more piles than the layout has")
                .help("each card of a group lies on its own pile"),
            );
            ok = false;
        }
        let plain = |i: usize| with.get(i).is_some_and(|c: &Option<CondGroup>| c.is_none());
        let twin =
            (cond.is_none()).then(|| out.iter().enumerate().find(|(i, (h, _, _))| *h == g && plain(*i))).flatten();
        if let Some((_, (_, same, _))) = twin {
            let other = same.name().map_or("", |n| &n.value);
            cx.push(
                Diag::error(codes::DUPLICATE, s.head, format!("group `{}` is the same as group `{other}`", name.value))
                    .label("same cards as another group")
                    .note(same.head, "defined here first"),
            );
            ok = false;
        }
        out.push((g, s, listed));
        with.push(cond);
    }
    warn_overlaps(cx, deck, &out);
    ok.then(|| (out.into_iter().map(|(g, _, _)| g).collect(), with))
}

/// A rank in two groups that both list it: the first group in the file is
/// tried first. (A group that lists no ranks takes every rank: its place in
/// the file is the choice.)
fn warn_overlaps(cx: &mut Cx, deck: &Deck, groups: &[(Group, &Section, bool)]) {
    for r in 0..deck.ranks.len() {
        let holders: Vec<&(Group, &Section, bool)> =
            groups.iter().filter(|(g, _, listed)| *listed && g.admits(r)).collect();
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
}

/// What one `group` section says, for the checks of each kind of group.
struct GroupRule<'a> {
    name: &'a str,
    deck: &'a Deck,
    head: Span,
    /// The `ranks` property, if written, and where its values are (the
    /// section's head when absent).
    ranks_p: Option<&'a Property>,
    ranks_span: Span,
    /// Each rank the group admits.
    allowed: Vec<bool>,
    /// `cards`, and where it is written.
    cards: Option<(usize, &'a Property)>,
    /// How many times each card is in a deal (the deck's packs).
    copies: usize,
}

impl GroupRule<'_> {
    /// "group NAME can never match", with the ranks allowed as a note;
    /// `sums`: the reason involves face values.
    fn never<T>(&self, cx: &mut Cx, at: Span, why: String, sums: bool) -> Option<T> {
        let mut d = Diag::error(codes::NEVER_MATCHES, at, format!("group `{}` can never match", self.name)).label(why);
        if self.ranks_p.is_some() && at != self.ranks_span {
            d = d.note(self.ranks_span, "the ranks allowed");
        }
        if sums {
            d = d.help("face values come from `values` in the `deck` section");
        }
        cx.push(d);
        None
    }

    /// " of A 2 3" (nothing when every rank is allowed).
    fn of_ranks(&self) -> String {
        let nr = self.deck.ranks.len();
        let names: Vec<&str> = (0..nr).filter(|&r| self.allowed[r]).map(|r| self.deck.ranks[r].as_str()).collect();
        if names.len() == nr {
            String::new()
        } else {
            format!(" of {}", names.join(" "))
        }
    }

    /// The number of cards (2 unless written).
    fn n(&self) -> usize {
        self.cards.map_or(2, |c| c.0)
    }
}

/// One `group` section: the group, whether it lists its ranks, and its
/// conditions compiled (when it has `each` or `between`).
fn lower_group(
    s: &Section,
    name: &str,
    deck: &Deck,
    piles: Option<usize>,
    vocab: &conds::Vocab,
    cx: &mut Cx,
) -> Option<(Group, bool, Option<CondGroup>)> {
    let b = Block::of_section(s);
    let same_p = b.prop(cx, "same");
    let (each_p, between_p) = (b.prop(cx, "each"), b.prop(cx, "between"));
    let conditioned = each_p.is_some() || between_p.is_some();
    // A group of cards of one rank or suit, or with conditions, may take
    // every rank.
    let ranks_p = if same_p.is_some() || conditioned { b.prop(cx, "ranks") } else { b.require(cx, "ranks", "J Q K") };
    let sum_p = b.prop(cx, "sum");
    let cards_p = b.prop(cx, "cards");
    b.finish(cx);
    let same = match same_p {
        None => None,
        Some(p) => Some(
            cx.one(p, "what the cards share: `rank` or `suit`")
                .and_then(|e| cx.choice(e, &["rank", "suit"], "`rank` or `suit`"))?,
        ),
    };
    let ranks = match ranks_p {
        Some(p) => Some(crate::engines::cards::lower::ranks(deck, &p.values, cx)?),
        None => None,
    };
    let each = each_p.map(|p| conds::each(cx, p, vocab, deck));
    let between = between_p.map(|p| conds::between(cx, p, vocab));
    let cards = group_cards(cx, cards_p, name, piles)?;
    let (each, between) = (each.map_or(Some(None), |e| e.map(Some))?, between.map_or(Some(None), |e| e.map(Some))?);
    let mut allowed = vec![ranks.is_none(); deck.ranks.len()];
    ranks.iter().flatten().for_each(|&r| allowed[r] = true);
    let ranks_span = ranks_p.map_or(s.head, |p| p.values_span());
    let copies = deck.packs;
    let mut rule = GroupRule { name, deck, head: s.head, ranks_p, ranks_span, allowed, cards, copies };
    // An `each` that reads the rank alone narrows the ranks allowed.
    let each = match each {
        Some(conds::Each::Ranks(ok)) => {
            if let (Some(rs), Some(p)) = (&ranks, each_p) {
                if sum_p.is_none() && same.is_none() {
                    if let Some(&r) = rs.iter().find(|&&r| !ok[r]) {
                        let why = format!("its rank `{}` does not meet `each`", deck.ranks[r]);
                        return rule.never(cx, p.values_span(), why, false);
                    }
                }
            }
            let before = rule.of_ranks();
            rule.allowed.iter_mut().zip(&ok).for_each(|(a, ok)| *a &= ok);
            if !rule.allowed.contains(&true) {
                let why = format!("no rank{before} meets `each`");
                return rule.never(cx, each_p.map_or(s.head, |p| p.values_span()), why, false);
            }
            None
        }
        Some(conds::Each::Test(t)) => Some(t),
        None => None,
    };
    let listed = ranks.is_some();
    let group = match (sum_p, same) {
        (Some(sp), same) => sum_group(cx, &mut rule, sp, same)?,
        (None, Some(by)) => same_group(cx, rule, if by == "rank" { Same::Rank } else { Same::Suit })?,
        (None, None) => match ranks {
            Some(ranks) => set_group(cx, &rule, ranks)?,
            None => Group::Any { cards: rule.n(), allowed: rule.allowed.clone() },
        },
    };
    // An `each` of ranks alone, folded into them, leaves the group on the
    // engine's fast paths (a group of any cards is always searched).
    if each.is_none() && between.is_none() && !matches!(group, Group::Any { .. }) {
        return Some((group, listed, None));
    }
    let at = between_p.or(each_p).map_or(s.head, |p| p.values_span());
    let cond = conditions(cx, &group, Conds { each, between }, (name, at), deck, piles)?;
    Some((group, listed, Some(cond)))
}

/// `cards`: bounded by the piles before anything is sized by it.
fn group_cards<'p>(
    cx: &mut Cx,
    cards_p: Option<&'p Property>,
    name: &str,
    piles: Option<usize>,
) -> Option<Option<(usize, &'p Property)>> {
    let most = piles.unwrap_or(MAX_PILES).min(MAX_PILES);
    let Some(p) = cards_p else { return Some(None) };
    let n = cx.prop_int(p, 1, "the number of cards in the group")?;
    if n as u64 > most as u64 {
        cx.push(
            Diag::error(
                codes::GROUP_TOO_LARGE,
                p.values_span(),
                format!("group `{name}` has {n} cards but the layout has {most} piles"),
            )
            .label("more cards than piles")
            .help("each card of a group lies on its own pile"),
        );
        return None;
    }
    Some(Some((n as usize, p)))
}

/// A group's conditions compiled for the search, once `check` knows the
/// search is small and some cards on some piles meet them (`at`: where
/// the conditions are written).
fn conditions(
    cx: &mut Cx,
    group: &Group,
    conds: Conds,
    (name, at): (&str, Span),
    deck: &Deck,
    piles: Option<usize>,
) -> Option<CondGroup> {
    let n = group.size();
    if conds.between.is_some() && n < 2 {
        cx.push(
            Diag::error(codes::ARITY, at, format!("`between` compares two cards, but group `{name}` has one"))
                .label("never compared")
                .help("give the group `cards: 2` or more, or say what its card must be with `each`"),
        );
        return None;
    }
    let cond = cond_of(deck, group, conds);
    // Without a layout, or with more cards than piles (`group-too-large`),
    // the search is neither bounded nor tried.
    let Some(piles) = piles.filter(|&p| p >= n) else { return Some(cond) };
    if cond.between.is_some() {
        // The ways to take 1, 2, ... n piles of the layout.
        let (mut ways, mut total) = (1u64, 0u64);
        for k in 1..=n as u64 {
            ways = ways.saturating_mul(piles as u64 - k + 1) / k;
            total = total.saturating_add(ways);
        }
        if total > MAX_SEARCH {
            cx.push(
                Diag::error(
                    codes::TOO_LARGE,
                    at,
                    format!("group `{name}`: {n} cards compared two by two on {piles} piles are too many to search"),
                )
                .label(format!("{total} ways to choose their piles; the engine looks at most at {MAX_SEARCH}"))
                .help("use fewer cards in the group, or fewer piles"),
            );
            return None;
        }
    }
    let mut budget = CHECK_BUDGET;
    if cond.can_form(deck.packs, piles, &mut budget) == Some(false) {
        cx.push(
            Diag::error(codes::NEVER_MATCHES, at, format!("group `{name}` can never match"))
                .label(format!("no {n} cards of the deck on {n} piles of the layout meet the group's conditions"))
                .help("`each` and `between` read the cards' `rank`, `suit`, `colour`, `value` and the piles' `pile`, `row`, `column`"),
        );
        return None;
    }
    Some(cond)
}

/// A `sum` group: cards whose face values add up to a total (of one rank,
/// or of one suit, with `same`).
fn sum_group(cx: &mut Cx, rule: &mut GroupRule, sp: &Property, same: Option<&str>) -> Option<Group> {
    let deck = rule.deck;
    let (nr, suits) = (deck.ranks.len(), deck.suits.len());
    let total = cx
        .one(sp, "the total of the face values")
        .and_then(|e| cx.int(e, "the total of the face values (a whole number)"))?;
    let n = rule.n();
    let at = sp.values_span();
    if same == Some("rank") || n == 1 {
        // n cards of one rank: the ranks whose n cards reach the total.
        let fits = |r: usize| deck.values[r] as i128 * n as i128 == total as i128;
        let before = rule.of_ranks();
        rule.allowed.iter_mut().enumerate().for_each(|(r, a)| *a &= fits(r));
        if n > suits * rule.copies || !rule.allowed.contains(&true) {
            let one = if n > 1 { " of one rank" } else { "" };
            return rule.never(cx, at, format!("no {n} cards{one}{before} add up to {total}"), true);
        }
        return Some(Group::Same { cards: n, allowed: rule.allowed.clone(), by: Same::Rank });
    }
    let same_suit = same == Some("suit");
    let copies = if same_suit { rule.copies.min(n) } else { (suits * rule.copies).min(n) };
    let allowed = &rule.allowed;
    let reachable = if n == 2 && !same_suit {
        (0..nr).any(|r| {
            (r..nr).any(|q| {
                allowed[r]
                    && allowed[q]
                    && (r != q || suits * rule.copies >= 2)
                    && deck.values[r].checked_add(deck.values[q]) == Some(total)
            })
        })
    } else {
        let table = match SumTable::new(&deck.values, n, allowed, total) {
            Ok(t) => t,
            Err((steps, step)) => {
                let mut d = Diag::error(
                    codes::TOO_LARGE,
                    at,
                    format!("group `{}`: {n} cards adding up to {total} leave too many sums to track", rule.name),
                )
                .label(format!(
                    "{steps} steps of {step} above the smallest sum of {n} cards; the engine tracks at most \
                     {MAX_SUM_STEPS}"
                ))
                .help("use fewer cards, or face values closer together");
                if rule.ranks_p.is_some() {
                    d = d.note(rule.ranks_span, "the ranks allowed");
                }
                cx.push(d);
                return None;
            }
        };
        table.reachable(n, (0..nr).filter(|&r| allowed[r]).flat_map(|r| std::iter::repeat_n(r, copies)))
    };
    if !reachable {
        let one = if same_suit { " of one suit" } else { "" };
        return rule.never(cx, at, format!("no {n} cards{one}{} add up to {total}", rule.of_ranks()), true);
    }
    Some(Group::Sum { cards: n, allowed: rule.allowed.clone(), total, same_suit })
}

/// A `same` group: cards of one rank or of one suit.
fn same_group(cx: &mut Cx, rule: GroupRule, by: Same) -> Option<Group> {
    let n = rule.n();
    let suits = rule.deck.suits.len() * rule.copies;
    let kinds = rule.allowed.iter().filter(|&&a| a).count() * rule.copies;
    let at = rule.cards.map_or(rule.head, |c| c.1.values_span());
    if by == Same::Rank && n > suits {
        return rule.never(cx, at, format!("a rank has {suits} cards, fewer than {n}"), false);
    }
    if by == Same::Suit && n > kinds {
        return rule.never(cx, at, format!("a suit has {kinds} cards{}, fewer than {n}", rule.of_ranks()), false);
    }
    Some(Group::Same { cards: n, allowed: rule.allowed, by })
}

/// A group of one card of each rank listed.
fn set_group(cx: &mut Cx, rule: &GroupRule, mut ranks: Vec<usize>) -> Option<Group> {
    if let Some((n, p)) = rule.cards {
        if n != ranks.len() {
            cx.push(
                Diag::error(
                    codes::ARITY,
                    p.values_span(),
                    format!("a group of one card of each rank has {} cards", ranks.len()),
                )
                .label("does not match the ranks listed")
                .help("`cards` counts the cards of a `sum` or `same` group; drop it here"),
            );
        }
    }
    let suits = rule.deck.suits.len() * rule.copies;
    if let Some(&r) = ranks.iter().find(|&&r| ranks.iter().filter(|&&x| x == r).count() > suits) {
        cx.push(
            Diag::error(codes::NEVER_MATCHES, rule.ranks_span, format!("group `{}` can never match", rule.name))
                .label(format!("`{}` is listed more times than there are suits", rule.deck.ranks[r])),
        );
        return None;
    }
    // The order of the ranks does not matter: covering goes by pile.
    ranks.sort_unstable();
    Some(Group::Set { ranks })
}
