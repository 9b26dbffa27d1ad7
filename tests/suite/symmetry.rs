//! Games without exchanges whose hands are too many for the hand table
//! (six cards of 52): `analyze` counts them by class under suit symmetry.
//! Checked against every hand of a smaller deck enumerated one by one with
//! a poker evaluator written here, and against the published six-card
//! figures (the hand counts of six cards of 52 and Three Card Poker's
//! six-card bonus house edge, 10.224790 %).

use arbiter::engines::exchange::lower::compile;
use arbiter::engines::exchange::Exchange;
use arbiter::load::{load_path, load_text};
use num_rational::BigRational;

fn fixture(name: &str) -> Exchange {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/exchange").join(name);
    compile(&load_path(&path).unwrap())
        .unwrap_or_else(|d| panic!("{:?}", d.iter().map(|d| &d.message).collect::<Vec<_>>()))
}

fn q(n: i64, d: i64) -> BigRational {
    BigRational::new(n.into(), d.into())
}

/// Hands per row (the last: no row), from `analyze`'s probabilities.
fn counts(ex: &Exchange) -> (Vec<BigRational>, BigRational) {
    let r = ex.expected_return(&mut |_, _| {}).unwrap();
    let deals = BigRational::from_integer(r.deals.into());
    (r.rows.unwrap().into_iter().map(|p| p * &deals).collect(), r.payout)
}

#[test]
fn six_of_52_counts_are_the_published_ones() {
    let ex = fixture("six-card-bonus.rules");
    let (rows, payout) = counts(&ex);
    // Six cards of 52, best five: royal and straight flushes, four of a
    // kind, full house, flush, straight, three of a kind, the rest.
    let published = [188i64, 1656, 14_664, 165_984, 205_792, 361_620, 732_160];
    let rest = 20_358_520 - published.iter().sum::<i64>();
    for (i, &n) in published.iter().chain([rest, 0].iter()).enumerate() {
        assert_eq!(rows[i], q(n, 1), "row {i}");
    }
    // 1000/200/100/20/15/10/7 to 1: house edge 8.561408 %.
    assert_eq!(q(1, 1) - payout, q(12_816, 149_695));
    assert_eq!(format!("{:.6}", 100.0 * 12_816.0 / 149_695.0), "8.561408");
}

#[test]
fn six_card_bonus_house_edge_is_the_published_one() {
    let ex = fixture("six-card-bonus-edge.rules");
    let r = ex.expected_return(&mut |_, _| {}).unwrap();
    let edge = q(1, 1) - r.return_to_player().unwrap();
    assert_eq!(edge, q(15_306, 149_695));
    let pct = 100.0 * 15_306.0 / 149_695.0;
    assert_eq!(format!("{pct:.6}"), "10.224790");
}

#[test]
fn a_deal_of_six_is_played_and_explained_without_the_hand_table() {
    let ex = fixture("six-card-bonus.rules");
    // AS KS QS JS TS 2D: a royal flush; keeping is the only choice.
    let deal: Vec<u16> = [(0, 0), (12, 0), (11, 0), (10, 0), (9, 0), (1, 2)].iter().map(|&(r, s)| r * 4 + s).collect();
    assert_eq!(ex.best(&deal), 0);
    assert_eq!(ex.row_of(&deal), Some(0));
    let (_, options) = ex.decide(&deal);
    assert_eq!(options.len(), 1);
    assert_eq!(options[0].1.fraction(), (1000, 1));
}

/// The best five-card category of a hand of (rank, suit), ranks in deck
/// order without wrap: 0 straight flush, 1 four, 2 full house, 3 flush,
/// 4 straight, 5 three, 6 nothing.
fn category(hand: &[(usize, usize)], ranks: usize) -> usize {
    let run5 = |has: &dyn Fn(usize) -> bool| (0..ranks.saturating_sub(4)).any(|r| (r..r + 5).all(has));
    let suits = hand.iter().map(|c| c.1).max().unwrap() + 1;
    if (0..suits).any(|s| run5(&|r| hand.contains(&(r, s)))) {
        return 0;
    }
    let mut n = vec![0; ranks];
    for c in hand {
        n[c.0] += 1;
    }
    let (threes, twos) = (n.iter().filter(|&&k| k >= 3).count(), n.iter().filter(|&&k| k >= 2).count());
    if n.iter().any(|&k| k >= 4) {
        1
    } else if threes >= 1 && twos >= 2 {
        2
    } else if (0..suits).any(|s| hand.iter().filter(|c| c.1 == s).count() >= 5) {
        3
    } else if run5(&|r| n[r] > 0) {
        4
    } else if threes >= 1 {
        5
    } else {
        6
    }
}

#[test]
fn classes_by_suit_symmetry_count_every_hand() {
    // Six cards of 32 (8 ranks of 4 suits): 906,192 hands, every one
    // evaluated here.
    let text = r#"
        engine: exchange
        deck { ranks: A 2 3 4 5 6 7 8  suits: S H D C }
        play { hand: 6  entry: 1  exchange: 0  prefer: fewer-cards leftmost }
        combination "straight flush" { pattern: suited(run(5))    pays: 300 }
        combination "four"           { pattern: kind(4)           pays: 90 }
        combination "full house"     { pattern: kind(3) + kind(2) pays: 30 }
        combination "flush"          { pattern: suited(5)         pays: 17 }
        combination "straight"       { pattern: run(5)            pays: 9 }
        combination "three"          { pattern: kind(3)           pays: 4 }
        output { stay: "Stay" exchange: "Exchange {cards}" }
    "#;
    let ex = compile(&load_text("six of 32", text, std::path::Path::new(".")).unwrap()).unwrap();
    let (rows, _) = counts(&ex);
    let mut want = [0i64; 7];
    let cards: Vec<(usize, usize)> = (0..32).map(|c| (c / 4, c % 4)).collect();
    let mut pick = [0usize, 1, 2, 3, 4, 5];
    loop {
        let hand: Vec<(usize, usize)> = pick.iter().map(|&i| cards[i]).collect();
        want[category(&hand, 8)] += 1;
        let mut i = 6;
        loop {
            if i == 0 {
                for (r, &n) in want.iter().enumerate() {
                    assert_eq!(rows[r], q(n, 1), "row {r}");
                }
                return;
            }
            i -= 1;
            if pick[i] < 32 - (6 - i) {
                pick[i] += 1;
                for j in i + 1..6 {
                    pick[j] = pick[j - 1] + 1;
                }
                break;
            }
        }
    }
}

/// Six cards of 52 with exchanges: over the hand table's limit, the card
/// path keeps its tables per class under suit symmetry (the small decks of
/// `by_class.rs`'s tests check them against the table and every draw).
/// `check` accepts the file, `run` answers its worked example and `arbiter
/// test` passes it.
#[test]
fn six_of_52_with_exchanges_is_checked_and_run() {
    use assert_cmd::Command;
    let rules = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/exchange/six-card-draw.rules");
    let arbiter = || {
        let mut c = Command::cargo_bin("arbiter").unwrap();
        c.env("NO_COLOR", "1").timeout(std::time::Duration::from_secs(120));
        c
    };
    arbiter().arg("check").arg(&rules).assert().success();
    let input = "AS KS QS JS TS 2D\nAS KS QS JS 3D 2C\n5H 5D 9C JS 2S 7H\n3C 8D 9H 4S 7C 2D\n#\n";
    let out = arbiter().arg("run").arg(&rules).write_stdin(input).assert().success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout),
        "Hold AS KS QS JS TS 2D\nHold AS KS QS JS (36.4609)\nHold 5H 5D (0.5066)\nHold 8D 9H 7C (-0.1600)\n"
    );
    arbiter().arg("test").arg(&rules).assert().success();
}

/// The value of four to the royal among six cards, counted by hand: of the
/// C(46, 2) = 1,035 draws, those with the Ten of spades make the royal.
#[test]
fn four_to_the_royal_among_six_is_valued_by_class() {
    let ex = fixture("six-card-draw.rules");
    // AS KS QS JS 3D 2C; discarding 3D and 2C (positions 4 and 5).
    let deal: Vec<u16> = [(0, 0), (12, 0), (11, 0), (10, 0), (2, 2), (1, 3)].iter().map(|&(r, s)| r * 4 + s).collect();
    assert_eq!(ex.best(&deal), 0b110000);
    let (_, options) = ex.decide(&deal);
    let v = options.iter().find(|o| o.0 == 0b110000).unwrap().1;
    assert_eq!(v.ways, 1035);
    let rows = ex.draws_by_row(&deal, 0b110000);
    assert_eq!(rows[0], 45, "royal flushes: the Ten of spades and any of the 45 other cards");
    let sum: i128 = rows.iter().zip(ex.rows.iter().map(|r| r.pays).chain([0])).map(|(&n, p)| n * p as i128).sum();
    assert_eq!(sum, v.sum as i128);
}
