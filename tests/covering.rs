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
