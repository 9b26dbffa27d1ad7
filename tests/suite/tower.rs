//! The tower engine's search (alpha-beta, transposition table, ordering)
//! against a plain minimax written here from the House of Cards statement,
//! on random small decks, for every peak count the engine accepts (2 to 6,
//! M up to the largest deck each house can play), hands of one to four
//! cards, first movers chosen by the deal, the base game and its variants.
//! Then: `run` and `--explain` agree on random rule files.

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

/// Who takes the first turn, written here from what each rule file says:
/// Axel (0) or Birgit (1), by the deal and whether the case names Axel.
type FirstMover = fn(&[Card], bool) -> usize;

/// The base game's: the player of the first card's colour.
fn colour_of_first_card(deck: &[Card], _: bool) -> usize {
    if deck[0].1 {
        0
    } else {
        1
    }
}

struct Rules {
    peaks: usize,
    /// The most cards a player may hold.
    hold: usize,
    first: FirstMover,
    /// What a card held at the end is worth to its holder, who is Axel
    /// when the flag is set.
    held: fn(Card, bool) -> i32,
    /// A triangle of one colour scores twice its sum (`monochrome-double`).
    double_one_colour: bool,
    /// Each triangle's points times this (held cards count as they are):
    /// large scales take the engine's wider score tables.
    scale: i32,
}

/// The base game's held card: + its rank if of the holder's colour, - else.
fn held_counts(card: Card, axel: bool) -> i32 {
    if card.1 == axel {
        card.0
    } else {
        -card.0
    }
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
/// A turn's cards are the drawn card and the mover's hand: the mover holds
/// the drawn card (if the hand has room), lays any one of the turn's cards
/// as a floor, or builds a peak of any two of them in either order (at
/// least one of them held); what is not laid is the new hand.
fn minimax(r: &Rules, h: &House, row: &[Card], hands: &[Vec<Card>; 2], mover: usize) -> i32 {
    let Some((&c, rest)) = row.split_first() else {
        let worth = |p: usize| hands[p].iter().map(|&card| (r.held)(card, p == 0)).sum::<i32>();
        return worth(0) - worth(1);
    };
    let next = 1 - mover;
    let turn: Vec<Card> = std::iter::once(c).chain(hands[mover].iter().copied()).collect();
    // The hand once the turn's cards `used` are laid.
    let keep = |used: &[usize]| -> [Vec<Card>; 2] {
        let mut hs = hands.clone();
        hs[mover] = (0..turn.len()).filter(|i| !used.contains(i)).map(|i| turn[i]).collect();
        hs
    };
    let mut results = Vec::new();
    if hands[mover].len() < r.hold {
        results.push(minimax(r, h, rest, &keep(&[]), next));
    }
    for level in 0..r.peaks {
        for i in 0..h.floors[level].len() {
            let (lp, rp) = (h.peaks[level][i], h.peaks[level][i + 1]);
            if let (None, Some(l), Some(rr)) = (h.floors[level][i], lp, rp) {
                for (a, &floor) in turn.iter().enumerate() {
                    let mut h2 = h.clone();
                    h2.floors[level][i] = Some(floor);
                    results.push(triangle(r, [l.1, rr.0, floor]) + minimax(r, &h2, rest, &keep(&[a]), next));
                }
            }
            if let Some(floor) = h.floors[level][i] {
                if h.peaks[level + 1][i].is_none() {
                    for a in 0..turn.len() {
                        for b in (0..turn.len()).filter(|&b| b != a) {
                            let mut h2 = h.clone();
                            h2.peaks[level + 1][i] = Some((turn[a], turn[b]));
                            let gain = triangle(r, [floor, turn[a], turn[b]]);
                            results.push(gain + minimax(r, &h2, rest, &keep(&[a, b]), next));
                        }
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
    let first = (r.first)(deck, named_axel);
    let v = minimax(r, &h, &deck[2 * n..], &[Vec::new(), Vec::new()], first);
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
/// quick enough), hands of up to four cards, first movers by the deal, and
/// the bundled variants.
fn configurations() -> Vec<(&'static str, Rules, std::ops::RangeInclusive<usize>)> {
    let base = |peaks| Rules {
        peaks,
        hold: 1,
        first: colour_of_first_card,
        held: held_counts,
        double_one_colour: false,
        scale: 1,
    };
    let hold = |peaks, hold| Rules { hold, ..base(peaks) };
    let first = |first: FirstMover| Rules { first, ..base(4) };
    // Points beyond a byte (a table of i16) and beyond 32,767 (of i32).
    let scaled = |scale| Rules { scale, ..base(4) };
    vec![
        // Two peaks: a house of 7 cards, so at most 8 cards (M = 4).
        ("extends: \"house_of_cards.rules\"\ntower { peaks: 2 }\ninput { ranks: 2..4 }", base(2), 2..=4),
        ("rules/house_of_cards/three-peaks.rules", base(3), 5..=7),
        // Three peaks up to the house's limit: 15 cards + 1 (M = 8).
        ("extends: \"house_of_cards.rules\"\ntower { peaks: 3 }\ninput { ranks: 3..8 }", base(3), 8..=8),
        ("rules/house_of_cards.rules", base(4), 5..=7),
        ("rules/house_of_cards/held-ignored.rules", Rules { held: |_, _| 0, ..base(4) }, 5..=7),
        ("rules/house_of_cards/monochrome-double.rules", Rules { double_one_colour: true, ..base(4) }, 5..=7),
        ("rules/house_of_cards/five-peaks.rules", base(5), 5..=8),
        ("extends: \"house_of_cards.rules\"\ntower { peaks: 6 }\ninput { ranks: 6..13 }", base(6), 6..=9),
        ("extends: \"house_of_cards.rules\"\nscoring { points: 500 * sum }", scaled(500), 5..=7),
        ("extends: \"house_of_cards.rules\"\nscoring { points: 40000 * sum }", scaled(40_000), 5..=7),
        // Hands of two to four cards, up to the largest deck each house
        // plays (its cards and a full hand: two peaks and hands of three
        // take 7 + 3 cards, M = 5).
        ("rules/house_of_cards/hold-two.rules", hold(4, 2), 5..=7),
        ("extends: \"house_of_cards.rules\"\ntower { peaks: 3  hold: 2 }\ninput { ranks: 3..8 }", hold(3, 2), 6..=8),
        ("extends: \"house_of_cards.rules\"\ntower { peaks: 2  hold: 3 }\ninput { ranks: 2..5 }", hold(2, 3), 4..=5),
        ("extends: \"house_of_cards.rules\"\ntower { peaks: 4  hold: 4 }", hold(4, 4), 5..=6),
        ("extends: \"house_of_cards.rules\"\ntower { peaks: 5  hold: 3 }", hold(5, 3), 5..=7),
        // The first mover by the deal.
        (
            "rules/house_of_cards/high-card-leads.rules",
            first(|d, _| colour_of_first_card(d, false) ^ (d[0].0 < 7) as usize),
            5..=8,
        ),
        ("extends: \"house_of_cards.rules\"\ntower { first: named }", first(|_, axel| if axel { 0 } else { 1 }), 5..=7),
        ("extends: \"house_of_cards.rules\"\ntower { first: Birgit }", first(|_, _| 1), 5..=7),
        (
            "extends: \"house_of_cards.rules\"\ntower { first: if(first-colour == [R], Birgit, Axel) }",
            first(|d, _| if d[0].1 { 1 } else { 0 }),
            5..=7,
        ),
        (
            "extends: \"house_of_cards.rules\"\ntower { first: if(first-rank % 2 == 1, named, [Axel Birgit] - named) }",
            first(|d, axel| (!axel) as usize ^ (d[0].0 % 2 == 0) as usize),
            5..=7,
        ),
        // What a held card is worth, as a formula.
        (
            "extends: \"house_of_cards.rules\"\nscoring { held: if(own, 2 * value, 0 - rank) }",
            Rules { held: |c, axel| if c.1 == axel { 2 * c.0 } else { -c.0 }, ..base(4) },
            5..=7,
        ),
        (
            "extends: \"house_of_cards/hold-two.rules\"\ntower { first: named }\nscoring { held: value }",
            Rules { first: |_, axel| (!axel) as usize, held: |c, _| c.0, ..hold(4, 2) },
            5..=7,
        ),
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

/// Who moves first, as a designer might write it.
const FIRSTS: [&str; 5] = [
    "colour-of-first-card",
    "Birgit",
    "named",
    "if(first-value >= 7, first-player, [Axel Birgit] - first-player)",
    "if(first-rank % 2 == 1, named, [Axel Birgit] - named)",
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
        fit in 0..4, hold in prop_oneof![4 => Just(1usize), 1 => 2usize..=4], first in 0..FIRSTS.len(),
    ) {
        // Mostly files within the house's size (3 in 4), so most are run.
        let room = peaks * (peaks + 1) + peaks * (peaks - 1) / 2 + hold;
        let hi = if fit > 0 { (lo + span).min(13).min(room / 2).max(lo) } else { (lo + span).min(13) };
        let text = format!(
            "extends: \"house_of_cards.rules\"\ntower {{ peaks: {peaks}  hold: {hold}  first: {} }}\n\
             input {{ ranks: {lo}..{hi} }}\n\
             scoring {{ points: {}  held: if(own, {own} * value, {other} * value) }}\n",
            FIRSTS[first], FORMULAS[formula]
        );
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let loaded = load_text("test.rules", &text, &root.join("rules")).unwrap();
        let (compiled, diags) = compile(&loaded);
        let Some(compiled) = compiled else {
            // Too many cards for the house, too few for its peaks, or
            // positions too large (six peaks with hands of two or more).
            for d in &diags {
                let ok = ["house-full", "peaks-unfillable"].contains(&d.code.as_str())
                    || d.code.as_str() == "too-large" && peaks == 6 && hold > 1;
                prop_assert!(ok, "{text}: {}", d.message);
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

/// Not a check but a measurement, for the figures of docs/engines/tower.md:
/// the search nodes of every case of an input (`TOWER_RULES=rules/...
/// TOWER_INPUT=FILE cargo test --test suite tower::nodes -- --ignored
/// --nocapture`), summed and at most, with the cases' outputs' digest.
#[test]
#[ignore]
fn nodes_of_an_input() {
    use arbiter::check::{Block, Cx};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let rules = std::env::var("TOWER_RULES").unwrap_or_else(|_| "rules/house_of_cards.rules".into());
    let input = std::fs::read_to_string(std::env::var("TOWER_INPUT").expect("TOWER_INPUT: an input file")).unwrap();
    let loaded = load_path(&root.join(&rules)).unwrap();
    let mut cx = Cx::new();
    let top = Block::new(&loaded.items, "the rule file", arbiter::source::Span::new(0, 0, 0));
    let tower = arbiter::engines::tower::lower::lower(&top, &mut cx).expect("a tower rule file");
    let mut tokens = input.split_whitespace();
    let (mut tt, mut total, mut most, mut cases, mut values) = (Default::default(), 0u64, 0u64, 0, 0i64);
    while let Some(name) = tokens.next().filter(|&t| t != tower.terminator) {
        let named = tower.players.iter().position(|p| p == name).expect("a player");
        let m: usize = tokens.next().unwrap().parse().unwrap();
        let deck: Vec<u8> = (0..m * tower.deck.suits.len())
            .map(|_| tower.deck.parse_card(tokens.next().unwrap()).unwrap() as u8)
            .collect();
        let (v, nodes) = tower.rules.solve_with(&deck, named, &mut tt, u64::MAX).unwrap();
        (total, most, cases) = (total + nodes, most.max(nodes), cases + 1);
        values = values.wrapping_mul(31).wrapping_add(v as i64);
    }
    println!("{rules}: {cases} cases, {total} nodes, at most {most} in a case (values' digest {values})");
}

/// The first movers of the tower's state table, written without a
/// player's name (tests/fixtures/tower/), check clean and play the base
/// game's sample.
#[test]
fn first_movers_without_names_check_and_play() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let input = std::fs::read_to_string(root.join("tests/cases/house_of_cards/00-sample.in")).unwrap();
    let cases = std::fs::read_to_string(root.join("tests/cases/house_of_cards/00-sample.out")).unwrap().lines().count();
    let mut seen = 0;
    for entry in std::fs::read_dir(root.join("tests/fixtures/tower")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rules") {
            continue;
        }
        let (game, diags) = compile(&load_path(&path).unwrap());
        assert!(diags.is_empty(), "{}: {diags:?}", path.display());
        let (printed, result) = run_text(game.unwrap().game.as_ref(), &input, &RunOptions::default());
        assert!(result.is_ok() && printed.lines().count() == cases, "{}: {printed}", path.display());
        seen += 1;
    }
    assert_eq!(seen, 3);
}
