//! The tower engine's search (alpha-beta, transposition table, ordering)
//! against a plain minimax written here from the House of Cards statement,
//! on random small decks (M = 5, 6, 7), for the base game and both variants.

use arbiter::engines::compile;
use arbiter::game::{run_text, RunOptions};
use arbiter::load::load_path;
use proptest::prelude::*;

/// Cards as (rank 1..=M, red?).
type Card = (i32, bool);

#[derive(Clone)]
struct House {
    /// peaks[level][i] = (left, right) when built.
    peaks: Vec<Vec<Option<(Card, Card)>>>,
    /// floors[level][i]: the floor between peaks i and i+1 of that level.
    floors: Vec<Vec<Option<Card>>>,
}

struct Rules {
    peaks: usize,
    held_counts: bool,
}

/// Points of a triangle for Axel (red): + to red majority, - to black.
fn triangle(cards: [Card; 3]) -> i32 {
    let sum: i32 = cards.iter().map(|c| c.0).sum();
    let reds = cards.iter().filter(|c| c.1).count();
    if reds >= 2 {
        sum
    } else {
        -sum
    }
}

/// Plain minimax: Axel's final score minus Birgit's from this position on.
fn minimax(r: &Rules, h: &House, row: &[Card], hands: [Option<Card>; 2], mover: usize) -> i32 {
    let Some((&c, rest)) = row.split_first() else {
        let mut v = 0;
        if r.held_counts {
            for (p, hand) in hands.iter().enumerate() {
                if let Some(card) = hand {
                    let own = card.1 == (p == 0);
                    let pts = if own { card.0 } else { -card.0 };
                    v += if p == 0 { pts } else { -pts };
                }
            }
        }
        return v;
    };
    let mut results = Vec::new();
    let held = hands[mover];
    let next = 1 - mover;
    if held.is_none() {
        let mut hs = hands;
        hs[mover] = Some(c);
        results.push(minimax(r, h, rest, hs, next));
    }
    for level in 0..r.peaks {
        for i in 0..h.floors[level].len() {
            let (lp, rp) = (h.peaks[level][i], h.peaks[level][i + 1]);
            if let (None, Some(l), Some(rr)) = (h.floors[level][i], lp, rp) {
                // Floor with the drawn card, or with the held card.
                let mut options = vec![(c, held)];
                if let Some(hc) = held {
                    options.push((hc, Some(c)));
                }
                for (floor, keep) in options {
                    let mut h2 = h.clone();
                    h2.floors[level][i] = Some(floor);
                    let mut hs = hands;
                    hs[mover] = keep;
                    results.push(triangle([l.1, rr.0, floor]) + minimax(r, &h2, rest, hs, next));
                }
            }
            if let (Some(floor), Some(hc)) = (h.floors[level][i], held) {
                if h.peaks[level + 1][i].is_none() {
                    for pair in [(hc, c), (c, hc)] {
                        let mut h2 = h.clone();
                        h2.peaks[level + 1][i] = Some(pair);
                        let mut hs = hands;
                        hs[mover] = None;
                        results.push(triangle([floor, hc, c]) + minimax(r, &h2, rest, hs, next));
                    }
                }
            }
        }
    }
    if mover == 0 {
        results.into_iter().max().unwrap()
    } else {
        results.into_iter().min().unwrap()
    }
}

fn oracle(r: &Rules, deck: &[Card], named_axel: bool) -> String {
    let n = r.peaks;
    let mut h = House {
        peaks: (0..n).map(|l| vec![None; n - l]).collect(),
        floors: (0..n).map(|l| vec![None; (n - l).saturating_sub(1)]).collect(),
    };
    for i in 0..n {
        h.peaks[0][i] = Some((deck[2 * i], deck[2 * i + 1]));
    }
    let first = if deck[0].1 { 0 } else { 1 };
    let v = minimax(r, &h, &deck[2 * n..], [None, None], first);
    let (name, d) = if named_axel { ("Axel", v) } else { ("Birgit", -v) };
    match d {
        0 => "Case 1: Axel and Birgit tie".to_string(),
        d if d > 0 => format!("Case 1: {name} wins {d}"),
        d => format!("Case 1: {name} loses {}", -d),
    }
}

fn engine(rules: &str, deck: &[Card], named_axel: bool) -> String {
    let loaded = load_path(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rules)).unwrap();
    let game = compile(&loaded).0.unwrap().game;
    let m = deck.len() / 2;
    let cards: Vec<String> = deck.iter().map(|c| format!("{}{}", c.0, if c.1 { "R" } else { "B" })).collect();
    let input = format!("{}\n{m}\n{}\nEnd\n", if named_axel { "Axel" } else { "Birgit" }, cards.join(" "));
    let (printed, result) = run_text(game.as_ref(), &input, &RunOptions::default());
    result.unwrap();
    printed.trim_end().to_string()
}

fn decks() -> impl Strategy<Value = (Vec<Card>, bool)> {
    (5usize..=7, any::<bool>()).prop_flat_map(|(m, named)| {
        let cards: Vec<Card> = (1..=m as i32).flat_map(|r| [(r, true), (r, false)]).collect();
        (Just(cards).prop_shuffle(), Just(named))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn search_equals_plain_minimax((deck, named) in decks()) {
        let base = Rules { peaks: 4, held_counts: true };
        prop_assert_eq!(engine("rules/house_of_cards.rules", &deck, named), oracle(&base, &deck, named));
        let ignored = Rules { peaks: 4, held_counts: false };
        prop_assert_eq!(engine("rules/house_of_cards/held-ignored.rules", &deck, named), oracle(&ignored, &deck, named));
        let five = Rules { peaks: 5, held_counts: true };
        prop_assert_eq!(engine("rules/house_of_cards/five-peaks.rules", &deck, named), oracle(&five, &deck, named));
    }
}
