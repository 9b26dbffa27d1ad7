//! The tower engine's search (alpha-beta, transposition table, ordering)
//! against a plain minimax written here from the House of Cards statement,
//! on random small decks, for every peak count the engine accepts (2 to 6,
//! M up to the largest deck each house can play), the base game and its
//! variants. Then: `run` and `--explain` agree on random rule files.

use arbiter::engines::compile;
use arbiter::game::{run_text, RunOptions};
use arbiter::load::{load_path, load_text};
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
    /// A triangle of one colour scores twice its sum (`monochrome-double`).
    double_one_colour: bool,
    /// Each triangle's points times this (held cards count as they are):
    /// large scales take the engine's wider score tables.
    scale: i32,
}

/// Points of a triangle for Axel (red): + to red majority, - to black.
fn triangle(r: &Rules, cards: [Card; 3]) -> i32 {
    let sum: i32 = cards.iter().map(|c| c.0).sum();
    let reds = cards.iter().filter(|c| c.1).count();
    let pts = r.scale * if r.double_one_colour && (reds == 0 || reds == 3) { 2 * sum } else { sum };
    if reds >= 2 {
        pts
    } else {
        -pts
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
                    results.push(triangle(r, [l.1, rr.0, floor]) + minimax(r, &h2, rest, hs, next));
                }
            }
            if let (Some(floor), Some(hc)) = (h.floors[level][i], held) {
                if h.peaks[level + 1][i].is_none() {
                    for pair in [(hc, c), (c, hc)] {
                        let mut h2 = h.clone();
                        h2.peaks[level + 1][i] = Some(pair);
                        let mut hs = hands;
                        hs[mover] = None;
                        results.push(triangle(r, [floor, hc, c]) + minimax(r, &h2, rest, hs, next));
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

/// The game a rule file (a path under the crate, or a text extending the
/// bundled base) compiles to.
fn game(rules: &str) -> Box<dyn arbiter::game::Game> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let loaded = if rules.ends_with(".rules") {
        load_path(&root.join(rules)).unwrap()
    } else {
        load_text("test.rules", rules, &root.join("rules")).unwrap()
    };
    let (compiled, diags) = compile(&loaded);
    compiled.unwrap_or_else(|| panic!("{rules}: {:?}", diags.iter().map(|d| &d.message).collect::<Vec<_>>())).game
}

fn input(deck: &[Card], named_axel: bool) -> String {
    let m = deck.len() / 2;
    let cards: Vec<String> = deck.iter().map(|c| format!("{}{}", c.0, if c.1 { "R" } else { "B" })).collect();
    format!("{}\n{m}\n{}\nEnd\n", if named_axel { "Axel" } else { "Birgit" }, cards.join(" "))
}

fn engine(game: &dyn arbiter::game::Game, deck: &[Card], named_axel: bool) -> String {
    let (printed, result) = run_text(game, &input(deck, named_axel), &RunOptions::default());
    result.unwrap();
    printed.trim_end().to_string()
}

/// A shuffled deck of ranks 1..=m in both colours.
fn shuffled(m: usize, mut seed: u64) -> Vec<Card> {
    let mut cards: Vec<Card> = (1..=m as i32).flat_map(|r| [(r, true), (r, false)]).collect();
    for i in (1..cards.len()).rev() {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        cards.swap(i, (seed >> 33) as usize % (i + 1));
    }
    cards
}

/// Every peak count the engine accepts, each with the range of M it plays
/// here (the largest deck its house can take where the plain minimax is
/// quick enough), and the bundled variants.
fn configurations() -> Vec<(&'static str, Rules, std::ops::RangeInclusive<usize>)> {
    let rules = |peaks, held_counts, double_one_colour| Rules { peaks, held_counts, double_one_colour, scale: 1 };
    // Points beyond a byte (a table of i16) and beyond 32,767 (of i32).
    let scaled = |scale| Rules { scale, ..rules(4, true, false) };
    vec![
        // Two peaks: a house of 7 cards, so at most 8 cards (M = 4).
        ("extends: \"house_of_cards.rules\"\ntower { peaks: 2 }\ninput { ranks: 2..4 }", rules(2, true, false), 2..=4),
        ("rules/house_of_cards/three-peaks.rules", rules(3, true, false), 5..=7),
        // Three peaks up to the house's limit: 15 cards + 1 (M = 8).
        ("extends: \"house_of_cards.rules\"\ntower { peaks: 3 }\ninput { ranks: 3..8 }", rules(3, true, false), 8..=8),
        ("rules/house_of_cards.rules", rules(4, true, false), 5..=7),
        ("rules/house_of_cards/held-ignored.rules", rules(4, false, false), 5..=7),
        ("rules/house_of_cards/monochrome-double.rules", rules(4, true, true), 5..=7),
        ("rules/house_of_cards/five-peaks.rules", rules(5, true, false), 5..=8),
        ("extends: \"house_of_cards.rules\"\ntower { peaks: 6 }\ninput { ranks: 6..13 }", rules(6, true, false), 6..=9),
        ("extends: \"house_of_cards.rules\"\nscoring { points: 500 * sum }", scaled(500), 5..=7),
        ("extends: \"house_of_cards.rules\"\nscoring { points: 40000 * sum }", scaled(40_000), 5..=7),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn search_equals_plain_minimax(seed in any::<u64>(), pick in any::<usize>(), named in any::<bool>()) {
        for (rules, oracle_rules, ms) in configurations() {
            let m = ms.start() + pick % (ms.end() - ms.start() + 1);
            let deck = shuffled(m, seed);
            let g = game(rules);
            prop_assert_eq!(engine(g.as_ref(), &deck, named), oracle(&oracle_rules, &deck, named), "{}", rules);
        }
    }
}

/// Scoring rules a designer might write.
const FORMULAS: [&str; 13] = [
    "sum",
    "2 * sum",
    "[R R R] 2 * sum  [B B B] 2 * sum  else sum",
    "[R R R] 3 * high - low  else sum + 1",
    "[R R B] 0  else sum",
    "max(sum, 10) - min(low, 2)",
    "-sum",
    "sum / 2",
    "[R R R] sum % 5  [R R B] mid  [R B B] (-high)  [B B B] 7",
    // Tables of i16 and of i32, and either side of where i16 ends: Birgit
    // owns [B B B], so it is -32,768 in Axel's table, and she would gain
    // 32,768, which no i16 holds.
    "300 * sum",
    "100000 * sum",
    "[B B B] 32767  else sum",
    "[B B B] 32768  else sum",
];

/// What a case's line says the named player wins (negative: loses).
fn amount(line: &str) -> i64 {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        [.., "wins", d] => d.parse().unwrap(),
        [.., "loses", d] => -d.parse::<i64>().unwrap(),
        [.., "tie"] => 0,
        _ => panic!("not a verdict: {line}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// No rule file `check` accepts makes `run` print an amount that its
    /// own `--explain` contradicts: random houses, ranges of M, scoring
    /// formulas and held-card multipliers; a file `check` refuses must say
    /// why with one of the tower's size diagnostics.
    #[test]
    fn run_and_explain_agree_on_every_accepted_file(
        peaks in 2usize..=6, lo in 1usize..=13, span in 0usize..=12, formula in 0..FORMULAS.len(),
        own in -3i64..=3, other in -3i64..=3, seed in any::<u64>(), pick in any::<usize>(), named in any::<bool>(),
        fit in 0..4,
    ) {
        // Mostly files within the house's size (3 in 4), so most are run.
        let room = peaks * (peaks + 1) + peaks * (peaks - 1) / 2 + 1;
        let hi = if fit > 0 { (lo + span).min(13).min(room / 2).max(lo) } else { (lo + span).min(13) };
        let text = format!(
            "extends: \"house_of_cards.rules\"\ntower {{ peaks: {peaks} }}\ninput {{ ranks: {lo}..{hi} }}\n\
             scoring {{ points: {}  held-own: {own}  held-other: {other} }}\n",
            FORMULAS[formula]
        );
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let loaded = load_text("test.rules", &text, &root.join("rules")).unwrap();
        let (compiled, diags) = compile(&loaded);
        let Some(compiled) = compiled else {
            for d in &diags {
                prop_assert!(["house-full", "peaks-unfillable"].contains(&d.code.as_str()), "{text}: {}", d.message);
            }
            return Ok(());
        };
        let m = lo + pick % (hi - lo + 1);
        let deck = shuffled(m, seed);
        let opts = RunOptions { max_nodes: Some(300_000), ..Default::default() };
        let (printed, result) = run_text(compiled.game.as_ref(), &input(&deck, named), &opts);
        if result.is_err() {
            // Over the node budget: an error, never an amount.
            prop_assert!(printed.is_empty());
            return Ok(());
        }
        let mut explained = Vec::new();
        compiled.game.explainer().unwrap().explain(
            &mut arbiter::game::Input::from_text(&input(&deck, named)),
            &opts,
            &mut |e| {
                explained.push(e);
                Ok(())
            },
        ).unwrap();
        prop_assert_eq!(explained.len(), 1);
        let e = &explained[0];
        prop_assert_eq!(printed.trim_end(), e.output.as_str());
        // "case 1: both play perfectly; Axel scores X and Birgit scores Y"
        let words: Vec<&str> = e.summary.split_whitespace().collect();
        let n = words.len();
        let (axel, birgit): (i64, i64) = (words[n - 5].parse().unwrap(), words[n - 1].parse().unwrap());
        let want = if named { axel - birgit } else { birgit - axel };
        prop_assert_eq!(amount(&printed), want, "{}\n{}\n{}", text, printed, e.summary);
    }
}
