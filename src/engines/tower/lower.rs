//! Lowering for the `tower` engine: `player`, `tower`, `scoring`, `input`
//! and `output` sections. See docs/engines/tower.md.

use crate::check::{Block, Cx};
use crate::diag::codes;
use crate::diag::Diag;
use crate::engines::tower::{Tower, TowerRules, TowerSpans, MAX_CARDS, MAX_PEAKS};
use crate::engines::Engine;
use crate::game::Game;
use crate::source::Span;
use crate::syntax::ExprKind;

/// The tower engine in the registry.
pub const ENGINE: Engine = Engine {
    name: "tower",
    summary: "two players build a house of cards from a known row; perfect play by game-tree search",
    lower: |top, cx| lower(top, cx).map(|g| Box::new(g) as Box<dyn Game>),
    schema: &super::schema::SCHEMA,
};

pub fn lower(top: &Block, cx: &mut Cx) -> Option<Tower> {
    let deck = crate::engines::cards::lower::lower(top, cx);
    let players = top.sections("player");
    let tower = top.require_section(cx, "tower");
    let scoring = top.require_section(cx, "scoring");
    let input = top.require_section(cx, "input");
    let output = top.require_section(cx, "output");
    let deck = deck?;
    if deck.size() > MAX_CARDS {
        cx.push(Diag::error(codes::TOO_LARGE, top.head, format!("the tower engine takes at most {MAX_CARDS} cards")));
        return None;
    }
    // Colours are the deck's colours if it names them, else its suits.
    let colour_names: Vec<String> = if deck.colours.is_empty() { deck.suits.clone() } else { deck.colours.clone() };
    let colour_of_card = |c: usize| -> usize {
        let suit = c % deck.suits.len();
        if deck.colours.is_empty() {
            suit
        } else {
            deck.suit_colour[suit]
        }
    };

    // Players and their colours.
    if players.len() != 2 {
        let at = players.get(2).map_or(top.head, |p| p.head);
        cx.push(
            Diag::error(codes::ARITY, at, format!("the tower engine is for two players, found {}", players.len()))
                .label("expected exactly two `player` sections"),
        );
        return None;
    }
    let player_heads = [players[0].head, players[1].head];
    let mut names = Vec::new();
    let mut colours = Vec::new();
    for p in &players {
        let b = Block::of_section(p);
        let Some(name) = p.name() else {
            cx.push(
                Diag::error(codes::MISSING, p.head, "a player needs a name").label("write `player \"North\" { ... }`"),
            );
            return None;
        };
        let colour = b.require(cx, "colour", "R").and_then(|prop| {
            let e = cx.one(prop, "a colour")?;
            let c = cx.name(e, "a colour")?.to_string();
            match colour_names.iter().position(|n| *n == c) {
                Some(i) => Some(i),
                None => {
                    cx.unknown(e.span, "a colour", &c, colour_names.iter().map(String::as_str));
                    None
                }
            }
        });
        b.finish(cx);
        names.push(name.clone());
        colours.push(colour);
    }
    if names[0].value == names[1].value {
        cx.push(
            Diag::error(codes::DUPLICATE, names[1].span, format!("player `{}` is defined twice", names[1].value))
                .label("defined again here")
                .note(players[0].head, "first defined here"),
        );
    }

    let (peaks, first_rule) = {
        let b = Block::of_section(tower?);
        let peaks = b.require(cx, "peaks", "4").and_then(|p| {
            let n = cx.prop_int(p, 2, "the number of base peaks (at least 2)")? as usize;
            if n > MAX_PEAKS {
                cx.push(
                    Diag::error(codes::OUT_OF_RANGE, p.values_span(), format!("{n} peaks is too many"))
                        .label(format!("at most {MAX_PEAKS}")),
                );
                return None;
            }
            Some((n, p))
        });
        let first = b.prop(cx, "first").map_or(Some(None), |p| {
            let e = cx.one(p, "who moves first")?;
            let w = cx.name(e, "who moves first")?.to_string();
            if w == "colour-of-first-card" {
                return Some(None);
            }
            match names.iter().position(|n| n.value == w) {
                Some(i) => Some(Some(i as u8)),
                None => {
                    let choices: Vec<&str> =
                        std::iter::once("colour-of-first-card").chain(names.iter().map(|n| n.value.as_str())).collect();
                    cx.unknown(e.span, "`colour-of-first-card` or a player", &w, choices);
                    None
                }
            }
        });
        b.finish(cx);
        (peaks, first)
    };

    // Scoring: points of a triangle, its owner by colours, held cards.
    let (triangle_owner, held_own, held_other) = {
        let s = scoring?;
        let b = Block::of_section(s);
        let points = b.prop(cx, "points").map_or(Some("sum"), |p| {
            cx.one(p, "how a triangle is worth").and_then(|e| cx.choice(e, &["sum"], "a way to count points"))
        });
        let owner = b.require(cx, "owner", "[R R R] North [R R B] North [R B B] South [B B B] South").and_then(|p| {
            // Pairs of (colours of the three cards) (player).
            let mut table: Vec<(Vec<usize>, usize, crate::source::Span)> = Vec::new();
            let mut ok = true;
            let mut vals = p.values.iter();
            while let Some(v) = vals.next() {
                let ExprKind::List(cs) = &v.kind else {
                    cx.expected::<()>(v, "the colours of a triangle's three cards, as a list `[R R B]`");
                    return None;
                };
                if cs.len() != 3 {
                    cx.push(
                        Diag::error(codes::ARITY, v.span, format!("a triangle has 3 cards, this lists {}", cs.len()))
                            .label("expected three colours"),
                    );
                    ok = false;
                }
                let mut key = Vec::new();
                for c in cs {
                    let Some(name) = cx.name(c, "a colour") else {
                        ok = false;
                        continue;
                    };
                    match colour_names.iter().position(|n| *n == name) {
                        Some(i) => key.push(i),
                        None => {
                            cx.unknown(c.span, "a colour", &name, colour_names.iter().map(String::as_str));
                            ok = false;
                        }
                    }
                }
                key.sort_unstable();
                let Some(who) = vals.next() else {
                    cx.push(
                        Diag::error(codes::ARITY, v.span, "this triangle has no owner")
                            .label("a player's name should follow"),
                    );
                    return None;
                };
                let w = cx.name(who, "a player")?.to_string();
                let Some(pi) = names.iter().position(|n| n.value == w) else {
                    cx.unknown(who.span, "a player", &w, names.iter().map(|n| n.value.as_str()));
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
            let k = colour_names.len();
            for a in 0..k {
                for b2 in a..k {
                    for c in b2..k {
                        if ok && !table.iter().any(|(key, _, _)| *key == [a, b2, c]) {
                            let show =
                                [a, b2, c].iter().map(|&i| colour_names[i].as_str()).collect::<Vec<_>>().join(" ");
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
                }
            }
            ok.then_some(table)
        });
        let mult = |cx: &mut Cx, key: &'static str, default: i64| {
            b.prop(cx, key).map_or(Some(default), |p| {
                cx.one(p, "a multiplier").and_then(|e| cx.int(e, "a multiplier (a whole number)"))
            })
        };
        let own = mult(cx, "held-own", 1);
        let other = mult(cx, "held-other", -1);
        b.finish(cx);
        let _ = points?;
        (owner, own, other)
    };

    let (m_range, terminator) = {
        let b = Block::of_section(input?);
        let m = b.require(cx, "ranks", "5..13").and_then(|p| {
            let e = cx.one(p, "the range of M, such as `5..13`")?;
            let ExprKind::Range(a, z) = &e.kind else { return cx.expected(e, "the range of M, such as `5..13`") };
            let (a, z) = (
                cx.int_at_least(a, 1, "a number of ranks")? as usize,
                cx.int_at_least(z, 1, "a number of ranks")? as usize,
            );
            if z > deck.ranks.len() || a > z {
                cx.push(
                    Diag::error(
                        codes::OUT_OF_RANGE,
                        e.span,
                        format!("M must lie within 1..{} and not be empty", deck.ranks.len()),
                    )
                    .label(format!("the deck has {} ranks", deck.ranks.len())),
                );
                return None;
            }
            Some((a, z, e.span))
        });
        let end = b.prop(cx, "end").map_or(Some("End".to_string()), |p| {
            let e = cx.one(p, "the line that ends the input")?;
            cx.string(e, "the line that ends the input (a string)").map(|s| s.value.clone())
        });
        b.finish(cx);
        (m, end)
    };
    let (wins, loses, tie) = {
        let b = Block::of_section(output?);
        let wins = b.require(cx, "wins", "\"Case {case}: {player} wins {amount}\"").and_then(|p| cx.template(p));
        let loses = b.require(cx, "loses", "\"Case {case}: {player} loses {amount}\"").and_then(|p| cx.template(p));
        let tie = b.require(cx, "tie", "\"Case {case}: {first} and {second} tie\"").and_then(|p| cx.template(p));
        b.finish(cx);
        (wins, loses, tie)
    };

    let ((peaks, peaks_prop), first_rule, table, held_own, held_other) =
        (peaks?, first_rule?, triangle_owner?, held_own?, held_other?);
    let ((m_lo, m_hi, m_span), terminator) = (m_range?, terminator?);
    let suits = deck.suits.len();
    if 2 * peaks > m_lo * suits {
        cx.push(
            Diag::error(
                codes::PEAKS_UNFILLABLE,
                peaks_prop.values_span(),
                format!("{peaks} peaks need {} cards, but a deck of M = {m_lo} has {}", 2 * peaks, m_lo * suits),
            )
            .label("more peaks than the smallest deck can fill")
            .note(m_span, "the smallest M allowed")
            .help(format!("use at most {} peaks, or raise the smallest M", m_lo * suits / 2)),
        );
    }
    let colours: Vec<usize> = colours.into_iter().collect::<Option<Vec<_>>>()?;
    let (wins, loses, tie) = (wins?, loses?, tie?);
    if cx.has_errors() {
        return None;
    }

    // Tables over card numbers.
    let n = deck.size();
    // Owner by sorted colour triple, indexed a * k^2 + b * k + c.
    let k = colour_names.len();
    let mut owner_of = vec![0usize; k * k * k];
    let mut owner_span = vec![Span::default(); k * k * k];
    for (key, p, span) in &table {
        owner_of[(key[0] * k + key[1]) * k + key[2]] = *p;
        owner_span[(key[0] * k + key[1]) * k + key[2]] = *span;
    }
    let mut triangle = vec![0i32; n * n * n];
    for a in 0..n {
        for b2 in 0..n {
            for c in 0..n {
                let mut key = [colour_of_card(a), colour_of_card(b2), colour_of_card(c)];
                key.sort_unstable();
                let pts = (deck.values[deck.rank(a as u16)]
                    + deck.values[deck.rank(b2 as u16)]
                    + deck.values[deck.rank(c as u16)]) as i32;
                triangle[(a * n + b2) * n + c] =
                    if owner_of[(key[0] * k + key[1]) * k + key[2]] == 0 { pts } else { -pts };
            }
        }
    }
    let held = [0usize, 1].map(|p| {
        (0..n)
            .map(|c| {
                let v = deck.values[deck.rank(c as u16)] as i32;
                if colour_of_card(c) == colours[p] {
                    v * held_own as i32
                } else {
                    v * held_other as i32
                }
            })
            .collect()
    });
    let first_by_card = (0..n)
        .map(|c| match first_rule {
            Some(p) => p,
            None => colours.iter().position(|&col| col == colour_of_card(c)).map_or(0, |p| p as u8),
        })
        .collect();
    let rules = TowerRules { peaks, triangle, held, first_by_card, cards: n };
    let players = [names[0].value.clone(), names[1].value.clone()];
    let (tower, scoring, output) = (tower?, scoring?, output?);
    let spans = TowerSpans {
        players: player_heads,
        peaks: tower.span_of("peaks"),
        first: tower.span_of("first"),
        owner: owner_span,
        colours: k,
        colour: (0..n).map(colour_of_card).collect(),
        player_colour: [colours[0], colours[1]],
        held_own: scoring.span_of("held-own"),
        held_other: scoring.span_of("held-other"),
        wins: output.span_of("wins"),
        loses: output.span_of("loses"),
        tie: output.span_of("tie"),
    };
    Some(Tower { rules, deck, players, m_range: (m_lo, m_hi), terminator, wins, loses, tie, spans })
}
