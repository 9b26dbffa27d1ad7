//! Video poker on the exchange engine: the published returns of the three
//! shipped pay tables, pinned as exact fractions, and the choice of hold
//! against a brute force over every replacement set, with a hand evaluator
//! written from ../shared/specs/video_poker.md (not from the engine's
//! patterns), with and without wild cards.

use arbiter::engines::cards::Card;
use arbiter::engines::compile;
use arbiter::engines::exchange::Exchange;
use arbiter::load::load_path;
use proptest::prelude::*;

fn exchange(rules: &str) -> Exchange {
    let loaded = load_path(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rules).as_path()).unwrap();
    assert!(compile(&loaded).0.is_some(), "{rules} compiles");
    arbiter::engines::exchange::lower::compile(&loaded)
        .unwrap_or_else(|d| panic!("{rules}: {:?}", d.iter().map(|d| &d.message).collect::<Vec<_>>()))
}

fn as_exchange(game: &Exchange) -> &Exchange {
    game
}

/// The return to player as `n/d` and as a percentage rounded to 4 places.
fn rtp(rules: &str) -> (String, String) {
    let game = exchange(rules);
    let r = as_exchange(&game).expected_return(&mut |_, _| {}).unwrap();
    let x = r.return_to_player().unwrap();
    let pct = (x.numer() * 1_000_000i64 * 100i64 + x.denom() * 50i64) / (x.denom() * 100i64);
    let s = pct.to_string();
    (format!("{}/{}", x.numer(), x.denom()), format!("{}.{}", &s[..s.len() - 4], &s[s.len() - 4..]))
}

#[test]
fn published_returns_are_exact() {
    // Jacks or Better 9/6: 99.5439 %; 8/5: 97.2984 %; full-pay Deuces Wild: 100.7620 %.
    assert_eq!(rtp("rules/video_poker.rules"), ("1653526326983/1661102543100".into(), "99.5439".into()));
    assert_eq!(rtp("rules/video_poker/8-5.rules"), ("1616226757427/1661102543100".into(), "97.2984".into()));
    assert_eq!(rtp("rules/video_poker/deuces-wild.rules"), ("32187682693/31944279675".into(), "100.7620".into()));
}

#[test]
fn row_probabilities_sum_to_one_and_match_the_published_table() {
    let game = exchange("rules/video_poker.rules");
    let r = as_exchange(&game).expected_return(&mut |_, _| {}).unwrap();
    let rows = r.rows.unwrap();
    let total = rows.iter().fold(num_rational::BigRational::from_integer(0.into()), |a, b| a + b);
    assert_eq!(total, num_rational::BigRational::from_integer(1.into()));
    // The royal flush comes about once in 40,391 hands.
    let royal = &rows[0];
    let (n, d): (num_bigint::BigInt, num_bigint::BigInt) = (royal.numer().clone(), royal.denom().clone());
    let half: num_bigint::BigInt = &n / num_bigint::BigInt::from(2);
    let one_in: num_bigint::BigInt = (d + half) / n;
    let one_in = one_in.to_string();
    assert_eq!(one_in, "40391");
}

const RANKS: &[u8] = b"A23456789TJQK";
const SUITS: &[u8] = b"SHDC";

fn name(c: usize) -> String {
    format!("{}{}", RANKS[c / 4] as char, SUITS[c % 4] as char)
}

/// Rank 0..13 (A=0) and suit of a card numbered rank * 4 + suit.
fn rs(c: usize) -> (usize, usize) {
    (c / 4, c % 4)
}

/// Five ranks (A = 0) with the Ace high or low: a straight?
fn straight(mut ranks: Vec<usize>) -> bool {
    ranks.sort_unstable();
    if ranks.windows(2).any(|w| w[0] == w[1]) {
        return false;
    }
    ranks.windows(2).all(|w| w[1] == w[0] + 1) || ranks == [0, 9, 10, 11, 12]
}

/// Jacks or Better 9/6, from the spec's table.
fn jacks_or_better(hand: &[usize]) -> i64 {
    let ranks: Vec<usize> = hand.iter().map(|&c| rs(c).0).collect();
    let flush = hand.iter().all(|&c| rs(c).1 == rs(hand[0]).1);
    let st = straight(ranks.clone());
    let mut counts = [0usize; 13];
    for &r in &ranks {
        counts[r] += 1;
    }
    let mut shape: Vec<usize> = counts.iter().copied().filter(|&c| c > 0).collect();
    shape.sort_unstable_by(|a, b| b.cmp(a));
    let mut sorted = ranks.clone();
    sorted.sort_unstable();
    match () {
        _ if flush && sorted == [0, 9, 10, 11, 12] => 800,
        _ if flush && st => 50,
        _ if shape[0] == 4 => 25,
        _ if shape == [3, 2] => 9,
        _ if flush => 6,
        _ if st => 4,
        _ if shape[0] == 3 => 3,
        _ if shape == [2, 2, 1] => 2,
        _ if [0, 10, 11, 12].iter().any(|&r| counts[r] == 2) => 1,
        _ => 0,
    }
}

/// Full-pay Deuces Wild, from the spec's table: every Two stands for any
/// card; the best row the hand can form with the Twos chosen freely.
fn deuces_wild(hand: &[usize]) -> i64 {
    let wild = hand.iter().filter(|&&c| rs(c).0 == 1).count();
    let nat: Vec<(usize, usize)> = hand.iter().map(|&c| rs(c)).filter(|&(r, _)| r != 1).collect();
    let flush = nat.iter().all(|&(_, s)| s == nat.first().map_or(0, |x| x.1));
    let mut counts = [0usize; 13];
    for &(r, _) in &nat {
        counts[r] += 1;
    }
    let paired = counts.iter().any(|&c| c > 1);
    let most = counts.iter().copied().max().unwrap_or(0) + wild;
    // A straight: the natural ranks fit in five consecutive ranks (Ace low
    // or high), the wild cards filling the gaps.
    let fits = |window: &[usize]| nat.iter().all(|&(r, _)| window.contains(&r));
    let windows: Vec<Vec<usize>> =
        (0..9).map(|s| (s..s + 5).collect()).chain(std::iter::once(vec![9, 10, 11, 12, 0])).collect();
    let st = !paired && windows.iter().any(|w| fits(w));
    let royal = !paired && fits(&[9, 10, 11, 12, 0]);
    let pairs = counts.iter().filter(|&&c| c == 2).count();
    let full = match wild {
        0 => counts.contains(&3) && pairs == 1,
        1 => pairs == 2,
        _ => false, // two wild cards and two pairs make four of a kind
    };
    match () {
        _ if wild == 0 && flush && royal => 800,
        _ if wild == 4 => 200,
        _ if flush && royal => 25,
        _ if most >= 5 => 15,
        _ if flush && st => 9,
        _ if most == 4 => 5,
        _ if full => 3,
        _ if flush => 2,
        _ if st => 2,
        _ if most == 3 => 1,
        _ => 0,
    }
}

/// The best hold's discarded positions and value (sum over draws, draws),
/// by brute force over every replacement set, with the spec's tie-break
/// (hold more cards, then discard the leftmost cards).
fn brute_force(deal: &[usize], pay: fn(&[usize]) -> i64) -> (Vec<usize>, i64, i64) {
    let rest: Vec<usize> = (0..52).filter(|c| !deal.contains(c)).collect();
    let mut best: Option<(Vec<usize>, i64, i64)> = None;
    let mut holds: Vec<u32> = (0..32).collect();
    // Preference order: fewer discards, then leftmost discards first.
    holds.sort_by_key(|&m| (m.count_ones(), (0..5).filter(|i| m >> i & 1 == 1).collect::<Vec<u32>>()));
    for m in holds {
        let kept: Vec<usize> = (0..5).filter(|i| m >> i & 1 == 0).map(|i| deal[i]).collect();
        let k = m.count_ones() as usize;
        let (mut sum, mut ways) = (0i64, 0i64);
        let mut pick: Vec<usize> = (0..k).collect();
        loop {
            let mut hand = kept.clone();
            hand.extend(pick.iter().map(|&i| rest[i]));
            sum += pay(&hand);
            ways += 1;
            let mut i = k;
            let mut more = false;
            while i > 0 {
                i -= 1;
                if pick[i] < rest.len() - k + i {
                    pick[i] += 1;
                    for j in i + 1..k {
                        pick[j] = pick[j - 1] + 1;
                    }
                    more = true;
                    break;
                }
            }
            if !more {
                break;
            }
        }
        let better = match &best {
            None => true,
            Some((_, s, w)) => sum as i128 * *w as i128 > *s as i128 * ways as i128,
        };
        if better {
            best = Some(((0..5).filter(|i| m >> i & 1 == 1).map(|i| i as usize).collect(), sum, ways));
        }
    }
    best.unwrap()
}

fn check_deal(game: &Exchange, deal: &[usize], pay: fn(&[usize]) -> i64) {
    let cards: Vec<Card> = deal.iter().map(|&c| game.deck.parse_card(&name(c)).unwrap()).collect();
    let (discard, sum, ways) = brute_force(deal, pay);
    let mask = game.best(&cards);
    let got: Vec<usize> = (0..5).filter(|i| mask >> i & 1 == 1).collect();
    let names: Vec<String> = deal.iter().map(|&c| name(c)).collect();
    assert_eq!(got, discard, "deal {names:?}");
    let (_, options) = game.decide(&cards);
    let v = options.iter().find(|(m, _)| *m == mask).unwrap().1;
    assert_eq!(v.sum as i128 * ways as i128, sum as i128 * v.ways as i128, "deal {names:?}: value");
}

fn deals(n: usize) -> impl Strategy<Value = Vec<Vec<usize>>> {
    prop::collection::vec(Just((0..52).collect::<Vec<usize>>()).prop_shuffle().prop_map(|d| d[..5].to_vec()), n)
}

/// Deals with 1 to 4 deuces, so that the wild cards are exercised.
fn deuce_deals(n: usize) -> impl Strategy<Value = Vec<Vec<usize>>> {
    let deal = (1usize..=4, Just((0..52).filter(|c| c / 4 != 1).collect::<Vec<usize>>()).prop_shuffle())
        .prop_map(|(w, rest)| {
            let mut d: Vec<usize> = (4..4 + w).collect();
            d.extend(&rest[..5 - w]);
            d
        })
        .prop_shuffle();
    prop::collection::vec(deal, n)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2))]

    #[test]
    fn jacks_or_better_holds_match_a_brute_force(ds in deals(2)) {
        let game = exchange("rules/video_poker.rules");
        for d in &ds {
            check_deal(as_exchange(&game), d, jacks_or_better);
        }
    }

    #[test]
    fn deuces_wild_holds_match_a_brute_force(ds in deuce_deals(2), plain in deals(1)) {
        let game = exchange("rules/video_poker/deuces-wild.rules");
        for d in ds.iter().chain(&plain) {
            check_deal(as_exchange(&game), d, deuces_wild);
        }
    }
}

#[test]
fn the_specs_sample_values() {
    // From the spec: 872/47, 924/47, 6, 551014/1533939 and 122/47.
    let game = exchange("rules/video_poker.rules");
    let ex = as_exchange(&game);
    for (deal, want) in [
        ("AS KS QS JS 2D", (872, 47)),
        ("TS JS QS KS KH", (924, 47)),
        ("KS QS 9S 5S 2S", (6, 1)),
        ("3C 8D 9H 4S 7C", (551014, 1533939)),
        ("JH JD 5C 5S 9D", (122, 47)),
    ] {
        let cards: Vec<Card> = deal.split(' ').map(|t| ex.deck.parse_card(t).unwrap()).collect();
        let (mask, options) = ex.decide(&cards);
        let v = options.iter().find(|(m, _)| *m == mask).unwrap().1;
        assert_eq!(v.payout(), want, "{deal}");
    }
}
