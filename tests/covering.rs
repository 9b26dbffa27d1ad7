//! The covering engine against a slow simulator written from the Shuffling
//! Patience statement (piles as vectors, groups found by trying every
//! combination of exposed cards), on random decks, base game and variants.

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
    }
}

fn simulate(v: Variant, deck: &[usize]) -> String {
    let max = if matches!(v, Variant::SmallGrid) { 12 } else { 16 };
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
