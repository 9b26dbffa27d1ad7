//! The covering engine against a slow simulator written from the Shuffling
//! Patience statement (piles as vectors, groups found by trying every
//! combination of exposed cards), on random decks, base game and variants;
//! then against a brute force over every subset of exposed cards, on random
//! rule files with every kind of group (sums of several cards, of one suit,
//! cards of one rank or suit, sets with a rank twice).

use arbiter::engines::compile;
use arbiter::game::{run_text, RunOptions};
use arbiter::load::load_path;
use proptest::prelude::*;

const RANKS: &str = "A23456789TJQK";
const SUITS: &str = "SHCD";

#[derive(Clone, Copy)]
enum Variant {
    Base,
    SmallGrid,
    Thirteens,
    Tens,
    SameRank,
}

/// Rank index 0..13 of a card number rank*4+suit; face value rank+1.
fn value(card: usize) -> i64 {
    (card / 4) as i64 + 1
}

/// The groups of `v` that contain the exposed card on pile `p`, as lists of
/// piles in covering order, per the statement's rules.
fn group_for(v: Variant, tops: &[usize], p: usize) -> Option<Vec<usize>> {
    let r = tops[p] / 4;
    let pair = |max_rank: usize, total: i64| -> Option<Vec<usize>> {
        if r > max_rank {
            return None;
        }
        (0..tops.len())
            .find(|&q| q != p && tops[q] / 4 <= max_rank && value(tops[p]) + value(tops[q]) == total)
            .map(|q| vec![p, q])
    };
    let set = |ranks: &[usize]| -> Option<Vec<usize>> {
        if !ranks.contains(&r) {
            return None;
        }
        let mut missing: Vec<usize> = ranks.iter().copied().filter(|&x| x != r).collect();
        let mut chosen = vec![p];
        for (q, &top) in tops.iter().enumerate() {
            if q != p && missing.contains(&(top / 4)) {
                missing.retain(|&x| x != top / 4);
                chosen.push(q);
            }
        }
        missing.is_empty().then_some(chosen)
    };
    match v {
        Variant::Base | Variant::SmallGrid => pair(9, 11).or_else(|| set(&[10, 11, 12])),
        Variant::Thirteens => pair(11, 13).or_else(|| set(&[12])),
        Variant::Tens => pair(8, 10).or_else(|| set(&[9, 10, 11, 12])),
        Variant::SameRank => {
            (0..tops.len()).find(|&q| q != p && tops[q] / 4 == r).map(|q| vec![p, q]).or_else(|| set(&[10, 11, 12]))
        }
    }
}

fn simulate(v: Variant, deck: &[usize]) -> String {
    let max = match v {
        Variant::SmallGrid => 12,
        Variant::SameRank => 9,
        _ => 16,
    };
    let mut piles: Vec<Vec<usize>> = Vec::new();
    let mut i = 0;
    while i < deck.len() {
        let tops: Vec<usize> = piles.iter().map(|p| *p.last().unwrap()).collect();
        let group = (0..tops.len()).find_map(|p| group_for(v, &tops, p));
        match group {
            Some(g) => {
                for p in g {
                    if i < deck.len() {
                        piles[p].push(deck[i]);
                        i += 1;
                    }
                }
            }
            None if piles.len() == max => return format!("  1: Overflowed on card no{:>3}\n", i + 1),
            None => {
                piles.push(vec![deck[i]]);
                i += 1;
            }
        }
    }
    let mut s = "  1:".to_string();
    for p in &piles {
        s.push_str(&format!("{:>3}", p.len()));
    }
    s + "\n"
}

fn engine(rules: &str, deck: &[usize]) -> String {
    let loaded = load_path(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rules)).unwrap();
    let game = compile(&loaded).0.unwrap().game;
    let names: Vec<String> =
        deck.iter().map(|&c| format!("{}{}", &RANKS[c / 4..c / 4 + 1], &SUITS[c % 4..c % 4 + 1])).collect();
    let input: String = names.chunks(13).map(|l| l.join(" ") + "\n").collect::<String>() + "#\n";
    let (printed, result) = run_text(game.as_ref(), &input, &RunOptions::default());
    result.unwrap();
    printed
}

fn decks() -> impl Strategy<Value = Vec<usize>> {
    Just((0..52).collect::<Vec<usize>>()).prop_shuffle()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn matches_the_slow_simulator(deck in decks()) {
        for (rules, v) in [
            ("rules/shuffling_patience.rules", Variant::Base),
            ("rules/shuffling_patience/small-grid.rules", Variant::SmallGrid),
            ("rules/shuffling_patience/thirteens.rules", Variant::Thirteens),
            ("rules/shuffling_patience/tens.rules", Variant::Tens),
            ("rules/shuffling_patience/same-rank.rules", Variant::SameRank),
        ] {
            prop_assert_eq!(engine(rules, &deck), simulate(v, &deck), "{}", rules);
        }
    }

    #[test]
    fn piles_hold_every_card_or_the_overflow_is_in_range(deck in decks()) {
        let out = engine("rules/shuffling_patience.rules", &deck);
        let body = out.trim_end().trim_start_matches("  1:");
        if let Some(n) = body.strip_prefix(" Overflowed on card no") {
            let n: usize = n.trim().parse().unwrap();
            // At least 16 piles were started, and a card of the deck overflowed.
            prop_assert!((17..=52).contains(&n), "{}", n);
        } else {
            let counts: Vec<usize> = body.split_whitespace().map(|x| x.parse().unwrap()).collect();
            prop_assert_eq!(counts.iter().sum::<usize>(), 52);
            prop_assert!(counts.len() <= 16 && counts.iter().all(|&c| c >= 1));
        }
    }
}

/// A group as the brute force reads it.
#[derive(Debug, Clone)]
enum Kind {
    /// `cards` cards of allowed ranks adding up to `total`; `same`: 0 none,
    /// 1 one rank, 2 one suit.
    Sum { cards: usize, ranks: Vec<usize>, total: i64, same: u8 },
    /// `cards` cards of allowed ranks (all when `ranks` is empty) sharing a
    /// rank (`by_rank`) or a suit.
    Same { cards: usize, ranks: Vec<usize>, by_rank: bool },
    /// One card of each listed rank (a rank may be listed twice).
    Set { ranks: Vec<usize> },
}

const R: &[u8] = b"abcdef";
const S: &[u8] = b"wxyz";

fn rank_list(ranks: &[usize]) -> String {
    ranks.iter().map(|&r| (R[r] as char).to_string()).collect::<Vec<_>>().join(" ")
}

fn group_text(i: usize, k: &Kind) -> String {
    let body = match k {
        Kind::Sum { cards, ranks, total, same } => format!(
            "cards: {cards}  ranks: {}  sum: {total}{}",
            rank_list(ranks),
            ["", "  same: rank", "  same: suit"][*same as usize]
        ),
        Kind::Same { cards, ranks, by_rank } => {
            let listed = if ranks.is_empty() { String::new() } else { format!("  ranks: {}", rank_list(ranks)) };
            format!("cards: {cards}  same: {}{listed}", if *by_rank { "rank" } else { "suit" })
        }
        Kind::Set { ranks } => format!("ranks: {}", rank_list(ranks)),
    };
    format!("group \"g{i}\" {{ {body} }}\n")
}

/// Whether the cards (rank, suit) form the group (in any order).
fn forms(k: &Kind, cards: &[(usize, usize)], values: &[i64]) -> bool {
    let one = |f: &dyn Fn(&(usize, usize)) -> usize| cards.iter().all(|c| f(c) == f(&cards[0]));
    match k {
        Kind::Sum { cards: n, ranks, total, same } => {
            cards.len() == *n
                && cards.iter().all(|c| ranks.contains(&c.0))
                && cards.iter().map(|c| values[c.0]).sum::<i64>() == *total
                && match same {
                    1 => one(&|c| c.0),
                    2 => one(&|c| c.1),
                    _ => true,
                }
        }
        Kind::Same { cards: n, ranks, by_rank } => {
            cards.len() == *n
                && cards.iter().all(|c| ranks.is_empty() || ranks.contains(&c.0))
                && if *by_rank { one(&|c| c.0) } else { one(&|c| c.1) }
        }
        Kind::Set { ranks } => {
            let mut want = ranks.clone();
            let mut got: Vec<usize> = cards.iter().map(|c| c.0).collect();
            want.sort_unstable();
            got.sort_unstable();
            want == got
        }
    }
}

fn size(k: &Kind) -> usize {
    match k {
        Kind::Sum { cards, .. } | Kind::Same { cards, .. } => *cards,
        Kind::Set { ranks } => ranks.len(),
    }
}

/// The first subset of `n` piles (in increasing order, compared as words)
/// whose exposed cards form the group.
fn first_subset(k: &Kind, tops: &[(usize, usize)], values: &[i64]) -> Option<Vec<usize>> {
    fn walk(k: &Kind, tops: &[(usize, usize)], values: &[i64], from: usize, chosen: &mut Vec<usize>) -> bool {
        if chosen.len() == size(k) {
            let cards: Vec<(usize, usize)> = chosen.iter().map(|&p| tops[p]).collect();
            return forms(k, &cards, values);
        }
        for p in from..tops.len() {
            chosen.push(p);
            if walk(k, tops, values, p + 1, chosen) {
                return true;
            }
            chosen.pop();
        }
        false
    }
    let mut chosen = Vec::new();
    walk(k, tops, values, 0, &mut chosen).then_some(chosen)
}

/// The statement's rule, by brute force: the group whose first pile is
/// lowest (the first in the file on a tie) is covered, on its piles in
/// increasing order.
fn brute(groups: &[Kind], values: &[i64], piles: usize, deck: &[(usize, usize)]) -> String {
    let mut stacks: Vec<Vec<(usize, usize)>> = Vec::new();
    let mut i = 0;
    while i < deck.len() {
        let tops: Vec<(usize, usize)> = stacks.iter().map(|s| *s.last().unwrap()).collect();
        let mut best: Option<Vec<usize>> = None;
        for g in groups {
            if let Some(sub) = first_subset(g, &tops, values) {
                if best.as_ref().is_none_or(|b| sub[0] < b[0]) {
                    best = Some(sub);
                }
            }
        }
        match best {
            Some(sub) => {
                for p in sub {
                    if i < deck.len() {
                        stacks[p].push(deck[i]);
                        i += 1;
                    }
                }
            }
            None if stacks.len() == piles => return format!("1: overflow {}\n", i + 1),
            None => {
                stacks.push(vec![deck[i]]);
                i += 1;
            }
        }
    }
    format!("1:{}\n", stacks.iter().map(|s| format!("{:>3}", s.len())).collect::<String>())
}

fn kinds(nr: usize) -> impl Strategy<Value = Kind> {
    let ranks = proptest::collection::vec(0..nr, 1..=4).prop_map(|mut v| {
        v.sort_unstable();
        v.dedup();
        v
    });
    prop_oneof![
        (1usize..=5, ranks.clone(), 0i64..=16, 0u8..=2).prop_map(|(cards, ranks, total, same)| Kind::Sum {
            cards,
            ranks,
            total,
            same
        }),
        (1usize..=3, prop_oneof![Just(Vec::new()), ranks], any::<bool>())
            .prop_map(|(cards, ranks, by_rank)| Kind::Same { cards, ranks, by_rank }),
        proptest::collection::vec(0..nr, 1..=3).prop_map(|ranks| Kind::Set { ranks }),
    ]
}

fn rule_files() -> impl Strategy<Value = (usize, usize, Vec<i64>, usize, Vec<Kind>, u64)> {
    (3usize..=6, 2usize..=4).prop_flat_map(|(nr, ns)| {
        (
            Just(nr),
            Just(ns),
            proptest::collection::vec(0i64..=5, nr),
            3usize..=9,
            proptest::collection::vec(kinds(nr), 1..=3),
            any::<u64>(),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_kind_of_group_matches_the_brute_force((nr, ns, values, piles, mut groups, seed) in rule_files()) {
        // Most sum groups aim at a total some of their cards reach.
        for (i, g) in groups.iter_mut().enumerate() {
            if let Kind::Sum { cards, ranks, total, same } = g {
                if *total % 4 != 0 {
                    let pick = |j: usize| ranks[(seed >> (8 * i + 2 * j)) as usize % ranks.len()];
                    *total = (0..*cards).map(|j| values[if *same == 1 { pick(0) } else { pick(j) }]).sum();
                }
            }
        }
        let mut text = format!(
            "engine: covering\ndeck {{ ranks: {}  suits: {}  values: {} }}\nlayout {{ piles: {piles} }}\n",
            rank_list(&(0..nr).collect::<Vec<_>>()),
            S[..ns].iter().map(|&c| (c as char).to_string()).collect::<Vec<_>>().join(" "),
            values.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(" "),
        );
        for (i, g) in groups.iter().enumerate() {
            text += &group_text(i, g);
        }
        text += "output { played: \"{deck}:{piles:>3|}\"  overflow: \"{deck}: overflow {card}\" }\n";
        let loaded = arbiter::load::load_text("test.rules", &text, std::path::Path::new(".")).unwrap();
        let Some(compiled) = compile(&loaded).0 else { return Ok(()) };
        let mut deck: Vec<(usize, usize)> = (0..nr).flat_map(|r| (0..ns).map(move |s| (r, s))).collect();
        let mut x = seed;
        for i in (1..deck.len()).rev() {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            deck.swap(i, (x >> 33) as usize % (i + 1));
        }
        let input = deck.iter().map(|&(r, s)| format!("{}{}", R[r] as char, S[s] as char)).collect::<Vec<_>>().join(" ")
            + "\n#\n";
        let (printed, result) = run_text(compiled.game.as_ref(), &input, &RunOptions::default());
        result.unwrap();
        prop_assert_eq!(printed, brute(&groups, &values, piles, &deck), "{}", text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// `check` says a group can never match exactly when no cards of the
    /// whole deck form it.
    #[test]
    fn never_matches_is_exact((nr, ns, values, _piles, groups, _seed) in rule_files()) {
        let g = &groups[0];
        let text = format!(
            "engine: covering\ndeck {{ ranks: {}  suits: {}  values: {} }}\nlayout {{ piles: 64 }}\n{}\
             output {{ played: \"{{deck}}\"  overflow: \"{{deck}}\" }}\n",
            rank_list(&(0..nr).collect::<Vec<_>>()),
            S[..ns].iter().map(|&c| (c as char).to_string()).collect::<Vec<_>>().join(" "),
            values.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(" "),
            group_text(0, g),
        );
        let loaded = arbiter::load::load_text("test.rules", &text, std::path::Path::new(".")).unwrap();
        let (_, diags) = compile(&loaded);
        let never = diags.iter().any(|d| d.code.as_str() == "never-matches");
        let deck: Vec<(usize, usize)> = (0..nr).flat_map(|r| (0..ns).map(move |s| (r, s))).collect();
        prop_assert_eq!(never, first_subset(g, &deck, &values).is_none(), "{}", text);
        prop_assert!(diags.iter().all(|d| !d.is_error() || d.code.as_str() == "never-matches"), "{}", text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A sum group of three cards written after a pair and a set (the shape
    /// of issue 16's "three cards adding to 15"), on the full 52-card deck:
    /// the group judged pile by pile must not win over a lower pile of the
    /// groups before it, nor lose a tie to the groups after it.
    #[test]
    fn sum_groups_among_others_match_the_brute_force(seed in any::<u64>(), fifteen_first in any::<bool>()) {
        const RANKS: &[u8] = b"A23456789TJQK";
        let values: Vec<i64> = (1..=13).collect();
        let pair = Kind::Sum { cards: 2, ranks: (0..10).collect(), total: 11, same: 0 };
        let triple = Kind::Set { ranks: vec![10, 11, 12] };
        let fifteen = Kind::Sum { cards: 3, ranks: (0..9).collect(), total: 15, same: 0 };
        let groups = if fifteen_first { vec![fifteen, pair, triple] } else { vec![pair, triple, fifteen] };
        let name = |r: usize| (RANKS[r] as char).to_string();
        let mut text = "engine: covering\ndeck { ranks: A 2 3 4 5 6 7 8 9 T J Q K  suits: w x y z }\n\
                        layout { piles: 16 }\n"
            .to_string();
        for (i, g) in groups.iter().enumerate() {
            text += &match g {
                Kind::Sum { cards, ranks, total, .. } => format!(
                    "group \"g{i}\" {{ cards: {cards}  ranks: {}  sum: {total} }}\n",
                    ranks.iter().map(|&r| name(r)).collect::<Vec<_>>().join(" ")
                ),
                Kind::Set { ranks } => format!(
                    "group \"g{i}\" {{ ranks: {} }}\n",
                    ranks.iter().map(|&r| name(r)).collect::<Vec<_>>().join(" ")
                ),
                Kind::Same { .. } => unreachable!(),
            };
        }
        text += "output { played: \"{deck}:{piles:>3|}\"  overflow: \"{deck}: overflow {card}\" }\n";
        let loaded = arbiter::load::load_text("test.rules", &text, std::path::Path::new(".")).unwrap();
        let compiled = compile(&loaded).0.expect(&text);
        let mut deck: Vec<(usize, usize)> = (0..13).flat_map(|r| (0..4).map(move |s| (r, s))).collect();
        let mut x = seed;
        for i in (1..deck.len()).rev() {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            deck.swap(i, (x >> 33) as usize % (i + 1));
        }
        let input = deck.iter().map(|&(r, s)| format!("{}{}", name(r), S[s] as char)).collect::<Vec<_>>().join(" ")
            + "\n#\n";
        let (printed, result) = run_text(compiled.game.as_ref(), &input, &RunOptions::default());
        result.unwrap();
        prop_assert_eq!(printed, brute(&groups, &values, 16, &deck), "{}", text);
    }
}

// ---------------------------------------------------------------------
// Groups as conditions (`each`, `between`), grids, scan orders and packs,
// against a brute force written from docs/engines/covering.md: the
// conditions are evaluated by a plain tree walk over the cards' and
// piles' attributes, the group is the first subset of exposed piles (in
// scan order) whose cards form it.

/// A card condition of the generator: `None` side in `each`, `Some(0)` for
/// `a.` and `Some(1)` for `b.` in `between`.
#[derive(Debug, Clone)]
enum Cond {
    /// An attribute of one card compared with a number: (side, attr, op, k);
    /// attr: 0 value, 1 pile, 2 row, 3 column.
    Num(Option<u8>, u8, u8, i64),
    /// `rank in [...]`, `suit in [...]` or `colour == ...`: (side, what, set
    /// of indices); what: 0 rank, 1 suit, 2 colour.
    In(Option<u8>, u8, Vec<usize>),
    /// `a.X op b.X` (op 0 ==, 1 !=, 2 <, 3 <=; sets take == and != only).
    Pair(u8, u8, bool),
    /// `abs(a.row - b.row) <= k and abs(a.column - b.column) <= k`-like
    /// distance: (attr, k): abs(a.attr - b.attr) <= k.
    Near(u8, i64),
    Not(Box<Cond>),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
}

const NUM_ATTRS: [&str; 4] = ["value", "pile", "row", "column"];
const OPS: [&str; 6] = ["==", "!=", "<", "<=", ">", ">="];
const COLOURS: [&str; 2] = ["red", "blue"];

fn side_name(side: Option<u8>, attr: &str) -> String {
    match side {
        None => attr.to_string(),
        Some(0) => format!("a.{attr}"),
        Some(_) => format!("b.{attr}"),
    }
}

fn cond_text(c: &Cond) -> String {
    match c {
        Cond::Num(side, attr, op, k) => {
            format!("{} {} {k}", side_name(*side, NUM_ATTRS[*attr as usize]), OPS[*op as usize])
        }
        Cond::In(side, what, set) => {
            let names: Vec<String> = set
                .iter()
                .map(|&i| match what {
                    0 => (R[i] as char).to_string(),
                    1 => (S[i] as char).to_string(),
                    _ => COLOURS[i].to_string(),
                })
                .collect();
            let attr = ["rank", "suit", "colour"][*what as usize];
            format!("{} in [{}]", side_name(*side, attr), names.join(" "))
        }
        Cond::Pair(attr, op, set) => {
            let name = if *set { ["rank", "suit", "colour"][*attr as usize % 3] } else { NUM_ATTRS[*attr as usize] };
            let op = if *set { ["==", "!="][*op as usize % 2] } else { OPS[*op as usize] };
            format!("a.{name} {op} b.{name}")
        }
        Cond::Near(attr, k) => {
            let name = NUM_ATTRS[*attr as usize];
            format!("abs(a.{name} - b.{name}) <= {k}")
        }
        Cond::Not(x) => format!("not ({})", cond_text(x)),
        Cond::And(x, y) => format!("({}) and ({})", cond_text(x), cond_text(y)),
        Cond::Or(x, y) => format!("({}) or ({})", cond_text(x), cond_text(y)),
    }
}

/// What the oracle knows of a card on a pile.
#[derive(Debug, Clone, Copy)]
struct Seen {
    rank: usize,
    suit: usize,
    value: i64,
    colour: usize,
    /// 1-based pile number, row and column.
    pile: i64,
    row: i64,
    column: i64,
}

fn holds(c: &Cond, x: &Seen, y: &Seen) -> bool {
    let card = |side: &Option<u8>| if *side == Some(1) { y } else { x };
    let num = |s: &Seen, attr: u8| [s.value, s.pile, s.row, s.column][attr as usize];
    let cmp = |a: i64, op: u8, b: i64| match op {
        0 => a == b,
        1 => a != b,
        2 => a < b,
        3 => a <= b,
        4 => a > b,
        _ => a >= b,
    };
    match c {
        Cond::Num(side, attr, op, k) => cmp(num(card(side), *attr), *op, *k),
        Cond::In(side, what, set) => {
            let s = card(side);
            set.contains(&[s.rank, s.suit, s.colour][*what as usize])
        }
        Cond::Pair(attr, op, set) => {
            if *set {
                let f = |s: &Seen| [s.rank, s.suit, s.colour][*attr as usize % 3];
                (f(x) == f(y)) == (*op % 2 == 0)
            } else {
                cmp(num(x, *attr), *op, num(y, *attr))
            }
        }
        Cond::Near(attr, k) => (num(x, *attr) - num(y, *attr)).abs() <= *k,
        Cond::Not(a) => !holds(a, x, y),
        Cond::And(a, b) => holds(a, x, y) && holds(b, x, y),
        Cond::Or(a, b) => holds(a, x, y) || holds(b, x, y),
    }
}

fn card_cond(nr: usize, ns: usize, side: Option<u8>) -> impl Strategy<Value = Cond> {
    let set = |n: usize| proptest::collection::vec(0..n, 1..=2);
    prop_oneof![
        (0u8..4, 0u8..6, 0i64..6).prop_map(move |(a, op, k)| Cond::Num(side, a, op, k)),
        set(nr).prop_map(move |s| Cond::In(side, 0, s)),
        set(ns).prop_map(move |s| Cond::In(side, 1, s)),
        set(2).prop_map(move |s| Cond::In(side, 2, s)),
    ]
}

fn conds(nr: usize, ns: usize, between: bool) -> BoxedStrategy<Cond> {
    let leaf = if between {
        prop_oneof![
            card_cond(nr, ns, Some(0)),
            card_cond(nr, ns, Some(1)),
            (0u8..4, 0u8..6).prop_map(|(a, op)| Cond::Pair(a, op, false)),
            (0u8..3, 0u8..2).prop_map(|(a, op)| Cond::Pair(a, op, true)),
            (1u8..4, 0i64..3).prop_map(|(a, k)| Cond::Near(a, k)),
        ]
        .boxed()
    } else {
        card_cond(nr, ns, None).boxed()
    };
    leaf.prop_recursive(2, 6, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|x| Cond::Not(Box::new(x))),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| Cond::And(Box::new(x), Box::new(y))),
            (inner.clone(), inner).prop_map(|(x, y)| Cond::Or(Box::new(x), Box::new(y))),
        ]
    })
    .boxed()
}

/// A group of the generator: its kind and its conditions.
#[derive(Debug, Clone)]
struct CondGroup {
    kind: Kind,
    /// `Some(n)`: no kind key, any `n` cards (`kind` is then ignored).
    any: Option<usize>,
    each: Option<Cond>,
    between: Option<Cond>,
}

fn cond_group_text(i: usize, g: &CondGroup) -> String {
    let mut body = match g.any {
        Some(n) => format!("cards: {n}"),
        None => {
            let t = group_text(i, &g.kind);
            t[t.find('{').unwrap() + 2..t.rfind('}').unwrap() - 1].to_string()
        }
    };
    if let Some(e) = &g.each {
        body += &format!("  each: {}", cond_text(e));
    }
    if let Some(b) = &g.between {
        body += &format!("  between: {}", cond_text(b));
    }
    format!("group \"g{i}\" {{ {body} }}\n")
}

fn cond_size(g: &CondGroup) -> usize {
    g.any.unwrap_or_else(|| size(&g.kind))
}

/// Whether the cards (in scan order) form the group.
fn cond_forms(g: &CondGroup, cards: &[Seen], values: &[i64]) -> bool {
    let kind_ok = match g.any {
        Some(n) => cards.len() == n,
        None => forms(&g.kind, &cards.iter().map(|c| (c.rank, c.suit)).collect::<Vec<_>>(), values),
    };
    kind_ok
        && g.each.as_ref().is_none_or(|e| cards.iter().all(|c| holds(e, c, c)))
        && g.between
            .as_ref()
            .is_none_or(|b| (0..cards.len()).all(|i| (i + 1..cards.len()).all(|j| holds(b, &cards[i], &cards[j]))))
}

/// A random layout: rows, columns, piles, and a scan order as text and as
/// a key of (pile, row, column).
#[derive(Debug, Clone)]
struct Grid {
    rows: usize,
    columns: usize,
    piles: Option<usize>,
    /// Terms of `scan` (indices into SCANS).
    scan: Vec<usize>,
}

const SCANS: [&str; 7] = ["pile", "-pile", "row", "-row", "column", "-column", "abs(row - column)"];

fn scan_key(term: usize, pile: i64, row: i64, column: i64) -> i64 {
    [pile, -pile, row, -row, column, -column, (row - column).abs()][term]
}

impl Grid {
    fn piles(&self) -> usize {
        self.piles.unwrap_or(self.rows * self.columns)
    }

    fn text(&self) -> String {
        let piles = self.piles.map_or(String::new(), |p| format!("  piles: {p}"));
        // Several terms as one number: each at most 4 in size, so that
        // weighing the first by 100 orders them by the first, then the next.
        let scan = match self.scan.as_slice() {
            [] => String::new(),
            [t] => format!("  scan: {}", SCANS[*t]),
            [t, u, ..] => format!("  scan: ({}) * 100 + ({})", SCANS[*t], SCANS[*u]),
        };
        format!("layout {{ rows: {}  columns: {}{piles}{scan} }}\n", self.rows, self.columns)
    }

    /// The piles (0-based, in the order started) in scan order.
    fn order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.piles()).collect();
        let key = |k: usize| -> Vec<i64> {
            let (row, column) = ((k / self.columns + 1) as i64, (k % self.columns + 1) as i64);
            self.scan.iter().take(2).map(|&t| scan_key(t, k as i64 + 1, row, column)).collect()
        };
        order.sort_by_key(|&k| (key(k), k));
        order
    }
}

/// The statement's play with these groups, by brute force: before each
/// card, for each group the first subset of exposed piles in scan order
/// that forms it; the group whose first pile comes first (the first in the
/// file on a tie) is covered, in scan order.
fn cond_brute(groups: &[CondGroup], values: &[i64], colour: &[usize], grid: &Grid, deck: &[(usize, usize)]) -> String {
    let order = grid.order();
    let mut stacks: Vec<Vec<(usize, usize)>> = Vec::new();
    let mut i = 0;
    while i < deck.len() {
        let started: Vec<usize> = order.iter().copied().filter(|&k| k < stacks.len()).collect();
        let seen = |k: usize| {
            let (rank, suit) = *stacks[k].last().unwrap();
            let (row, column) = ((k / grid.columns + 1) as i64, (k % grid.columns + 1) as i64);
            Seen { rank, suit, value: values[rank], colour: colour[suit], pile: k as i64 + 1, row, column }
        };
        let mut best: Option<(usize, Vec<usize>)> = None;
        for g in groups {
            let n = cond_size(g);
            let mut pick: Vec<usize> = (0..n).collect();
            let m = started.len();
            if n > m {
                continue;
            }
            // Subsets of `started` by index, in increasing order as words.
            loop {
                let cards: Vec<Seen> = pick.iter().map(|&j| seen(started[j])).collect();
                if cond_forms(g, &cards, values) {
                    if best.as_ref().is_none_or(|b| pick[0] < b.0) {
                        best = Some((pick[0], pick.iter().map(|&j| started[j]).collect()));
                    }
                    break;
                }
                let Some(t) = (0..n).rev().find(|&t| pick[t] < m - n + t) else { break };
                pick[t] += 1;
                for u in t + 1..n {
                    pick[u] = pick[u - 1] + 1;
                }
            }
        }
        match best {
            Some((_, piles)) => {
                for p in piles {
                    if i < deck.len() {
                        stacks[p].push(deck[i]);
                        i += 1;
                    }
                }
            }
            None if stacks.len() == grid.piles() => return format!("1: overflow {}\n", i + 1),
            None => {
                stacks.push(vec![deck[i]]);
                i += 1;
            }
        }
    }
    format!("1:{}\n", stacks.iter().map(|s| format!("{:>3}", s.len())).collect::<String>())
}

fn grids() -> impl Strategy<Value = Grid> {
    (1usize..=4, 1usize..=4, any::<bool>(), proptest::collection::vec(0usize..SCANS.len(), 0..=2)).prop_flat_map(
        |(rows, columns, part, scan)| {
            let most = rows * columns;
            let piles = if part && most > 1 { (1..most).prop_map(Some).boxed() } else { Just(None).boxed() };
            (Just(rows), Just(columns), piles, Just(scan)).prop_map(|(rows, columns, piles, scan)| Grid {
                rows,
                columns,
                piles,
                scan,
            })
        },
    )
}

fn cond_groups(nr: usize, ns: usize) -> impl Strategy<Value = CondGroup> {
    (
        kinds(nr),
        prop_oneof![Just(None), (1usize..=3).prop_map(Some)],
        proptest::option::of(conds(nr, ns, false)),
        proptest::option::of(conds(nr, ns, true)),
    )
        .prop_map(|(kind, any, each, between)| CondGroup { kind, any, each, between })
}

/// A random rule file with conditions: (ranks, suits, values, colour of
/// each suit, packs, grid, groups, seed).
type CondFile = (usize, usize, Vec<i64>, Vec<usize>, usize, Grid, Vec<CondGroup>, u64);

fn cond_files() -> impl Strategy<Value = CondFile> {
    raw_cond_files().prop_map(|mut f| {
        tidy(&mut f);
        f
    })
}

/// Makes a generated file meaningful: both colours named, a group with no
/// kind has a condition, `between` only on groups of two cards or more,
/// and most sums aim at a total some of their cards reach.
fn tidy(f: &mut CondFile) {
    let (_, _, values, colour, _, _, groups, seed) = f;
    (colour[0], colour[1]) = (0, 1);
    for (i, g) in groups.iter_mut().enumerate() {
        if cond_size(g) < 2 {
            g.between = None;
        }
        if g.each.is_none() && g.between.is_none() {
            g.any = None;
        }
        if let Kind::Sum { cards, ranks, total, same } = &mut g.kind {
            if *total % 4 != 0 {
                let pick = |j: usize| ranks[(*seed >> (8 * i + 2 * j)) as usize % ranks.len()];
                *total = (0..*cards).map(|j| values[if *same == 1 { pick(0) } else { pick(j) }]).sum();
            }
        }
    }
}

fn raw_cond_files() -> impl Strategy<Value = CondFile> {
    (2usize..=5, 2usize..=4).prop_flat_map(|(nr, ns)| {
        (
            Just(nr),
            Just(ns),
            proptest::collection::vec(0i64..=5, nr),
            proptest::collection::vec(0usize..2, ns),
            1usize..=2,
            grids(),
            proptest::collection::vec(cond_groups(nr, ns), 1..=3),
            any::<u64>(),
        )
    })
}

fn cond_file_text(f: &CondFile) -> String {
    let (nr, ns, values, colour, packs, grid, groups, _) = f;
    let mut text = format!(
        "engine: covering\ndeck {{ ranks: {}  suits: {}  values: {}  colours: {}  packs: {packs} }}\n{}",
        rank_list(&(0..*nr).collect::<Vec<_>>()),
        S[..*ns].iter().map(|&c| (c as char).to_string()).collect::<Vec<_>>().join(" "),
        values.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(" "),
        colour.iter().map(|&c| COLOURS[c]).collect::<Vec<_>>().join(" "),
        grid.text(),
    );
    for (i, g) in groups.iter().enumerate() {
        text += &cond_group_text(i, g);
    }
    text + "output { played: \"{deck}:{piles:>3|}\"  overflow: \"{deck}: overflow {card}\" }\n"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn groups_with_conditions_match_the_brute_force(f in cond_files()) {
        let mut f = f;
        // A group `check` refuses (it can never match, has more cards than
        // piles, or repeats another) is dropped, and the rest is played.
        let compiled = loop {
            let text = cond_file_text(&f);
            let loaded = arbiter::load::load_text("test.rules", &text, std::path::Path::new(".")).unwrap();
            let (compiled, diags) = compile(&loaded);
            if let Some(c) = compiled {
                break c;
            }
            let errors: Vec<_> = diags.iter().filter(|d| d.is_error()).collect();
            prop_assert!(
                errors.iter().all(|d| ["never-matches", "group-too-large", "duplicate"].contains(&d.code.as_str())),
                "{}\n{:?}", text, errors.iter().map(|d| &d.message).collect::<Vec<_>>()
            );
            let refused = |i: usize| errors.iter().any(|d| d.message.starts_with(&format!("group `g{i}`")));
            let keep: Vec<CondGroup> =
                f.6.iter().enumerate().filter(|(i, _)| !refused(*i)).map(|(_, g)| g.clone()).collect();
            if keep.is_empty() || keep.len() == f.6.len() {
                return Ok(());
            }
            f.6 = keep;
        };
        let text = cond_file_text(&f);
        let (nr, ns, values, colour, packs, grid, groups, seed) = &f;
        let mut deck: Vec<(usize, usize)> =
            (0..*packs).flat_map(|_| (0..*nr).flat_map(|r| (0..*ns).map(move |s| (r, s)))).collect();
        let mut x = *seed;
        for i in (1..deck.len()).rev() {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            deck.swap(i, (x >> 33) as usize % (i + 1));
        }
        let input = deck.iter().map(|&(r, s)| format!("{}{}", R[r] as char, S[s] as char)).collect::<Vec<_>>().join(" ")
            + "\n#\n";
        let (printed, result) = run_text(compiled.game.as_ref(), &input, &RunOptions::default());
        result.unwrap();
        prop_assert_eq!(printed, cond_brute(groups, values, colour, grid, &deck), "{}", text);
    }
}

/// Whether some cards of the deck (each at most `packs` times) on some
/// piles of the grid form the group, by trying every choice.
fn can_form(g: &CondGroup, values: &[i64], colour: &[usize], packs: usize, grid: &Grid, nr: usize, ns: usize) -> bool {
    let order = grid.order();
    let n = cond_size(g);
    let cards: Vec<(usize, usize)> = (0..nr).flat_map(|r| (0..ns).map(move |s| (r, s))).collect();
    let seen = |(rank, suit): (usize, usize), k: usize| Seen {
        rank,
        suit,
        value: values[rank],
        colour: colour[suit],
        pile: k as i64 + 1,
        row: (k / grid.columns + 1) as i64,
        column: (k % grid.columns + 1) as i64,
    };
    fn walk(
        n: usize,
        from: usize,
        order: &[usize],
        chosen: &mut Vec<usize>,
        f: &mut dyn FnMut(&[usize]) -> bool,
    ) -> bool {
        if chosen.len() == n {
            return f(chosen);
        }
        for i in from..order.len() {
            chosen.push(order[i]);
            if walk(n, i + 1, order, chosen, f) {
                return true;
            }
            chosen.pop();
        }
        false
    }
    walk(n, 0, &order, &mut Vec::new(), &mut |piles: &[usize]| {
        // Every tuple of cards on these piles.
        let mut idx = vec![0usize; n];
        loop {
            let ok_copies = (0..cards.len()).all(|c| idx.iter().filter(|&&i| i == c).count() <= packs);
            if ok_copies {
                let seen: Vec<Seen> = idx.iter().zip(piles).map(|(&c, &k)| seen(cards[c], k)).collect();
                if cond_forms(g, &seen, values) {
                    return true;
                }
            }
            let Some(t) = (0..n).rev().find(|&t| idx[t] + 1 < cards.len()) else { return false };
            idx[t] += 1;
            idx[t + 1..].iter_mut().for_each(|i| *i = 0);
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// `check` says a group with conditions can never match exactly when
    /// no cards of the deck on any piles of the layout form it.
    #[test]
    fn never_matches_is_exact_with_conditions(
        (nr, ns, values, colour, packs, grid, groups, seed) in cond_files()
            .prop_filter("small", |f| f.0 * f.1 <= 12 && f.5.piles() <= 6)
    ) {
        let mut g = groups[0].clone();
        g.any = g.any.map(|n| n.min(3));
        if let Kind::Sum { cards, .. } | Kind::Same { cards, .. } = &mut g.kind {
            *cards = (*cards).min(3);
        }
        let mut f = (nr, ns, values.clone(), colour.clone(), packs, grid.clone(), vec![g], seed);
        tidy(&mut f);
        let g = f.6[0].clone();
        let text = cond_file_text(&f);
        let loaded = arbiter::load::load_text("test.rules", &text, std::path::Path::new(".")).unwrap();
        let (_, diags) = compile(&loaded);
        if diags.iter().any(|d| d.code.as_str() == "group-too-large") {
            return Ok(());
        }
        let never = diags.iter().any(|d| d.code.as_str() == "never-matches");
        prop_assert_eq!(never, !can_form(&g, &values, &colour, packs, &grid, nr, ns), "{}", text);
        prop_assert!(diags.iter().all(|d| !d.is_error() || d.code.as_str() == "never-matches"), "{}", text);
    }
}

/// The test rule files of conditions (their examples were worked out by a
/// separate simulator) pass them.
#[test]
fn the_condition_fixtures_pass_their_examples() {
    use arbiter::example::{run, Verdict};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/covering");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let compiled = compile(&load_path(&path).unwrap()).0.expect("compiles");
        assert!(compiled.examples.len() >= 2, "{}", path.display());
        for ex in &compiled.examples {
            assert_eq!(run(compiled.game.as_ref(), ex), Verdict::Pass, "{}: {}", path.display(), ex.name);
            n += 1;
        }
    }
    assert!(n >= 6);
}
