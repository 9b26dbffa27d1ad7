//! Several draw rounds (`play { rounds: N }`): every choice of every deal
//! of small games valued by a slow obvious recursion (each round's every
//! choice and every draw enumerated, exact fractions, the cards exchanged
//! out of the game, payouts by the total exchanged), against the engine's
//! values, choices and analysis; and the limits `check` states.

use arbiter::engines::exchange::lower::compile;
use arbiter::engines::exchange::Exchange;
use arbiter::load::load_text;
use num_rational::BigRational;
use num_traits::Zero;

fn game(text: &str) -> Exchange {
    let loaded = load_text("small", text, std::path::Path::new(".")).unwrap();
    compile(&loaded).unwrap_or_else(|d| panic!("{:?}", d.iter().map(|d| &d.message).collect::<Vec<_>>()))
}

fn int(n: i64) -> BigRational {
    BigRational::from_integer(n.into())
}

/// What optimal play from a state is worth, followed with the file's tie
/// rule: (value, expected payout, expected stake of the later rounds).
#[derive(Clone)]
struct Worth {
    value: BigRational,
    payout: BigRational,
    stake: BigRational,
}

/// The k-subsets of `pool`, in increasing order of positions.
fn subsets(pool: &[u16], k: usize) -> Vec<Vec<u16>> {
    (0u64..1 << pool.len())
        .filter(|m| m.count_ones() as usize == k)
        .map(|m| (0..pool.len()).filter(|i| m >> i & 1 == 1).map(|i| pool[i]).collect())
        .collect()
}

/// Discarding `mask`: every draw of the cards neither in the hand nor out
/// of the game, the drawn cards in the discarded places (deck order).
fn discard(ex: &Exchange, hand: &[u16], out: &[u16], mask: u32, left: usize, t: usize) -> Worth {
    let k = mask.count_ones() as usize;
    let pool: Vec<u16> = (0..ex.deck.size() as u16).filter(|c| !hand.contains(c) && !out.contains(c)).collect();
    let draws = subsets(&pool, k);
    let n = int(draws.len() as i64);
    let mut out2 = out.to_vec();
    out2.extend((0..hand.len()).filter(|i| mask >> i & 1 == 1).map(|i| hand[i]));
    let mut sum = Worth { value: int(0), payout: int(0), stake: int(0) };
    for d in &draws {
        let mut next = hand.to_vec();
        for (j, p) in (0..hand.len()).filter(|i| mask >> i & 1 == 1).enumerate() {
            next[p] = d[j];
        }
        let w = play(ex, &next, &out2, left - 1, t + k);
        sum.value += w.value;
        sum.payout += w.payout;
        sum.stake += w.stake;
    }
    let cost = int(ex.cost * k as i64);
    Worth { value: sum.value / &n - &cost, payout: sum.payout / &n, stake: sum.stake / &n + cost }
}

/// A hand with `left` rounds to play.
fn play(ex: &Exchange, hand: &[u16], out: &[u16], left: usize, t: usize) -> Worth {
    if left == 0 {
        let p = int(ex.row_of(hand).map_or(0, |r| ex.rows[r].pays_at(t)));
        return Worth { value: p.clone(), payout: p, stake: int(0) };
    }
    let mut best: Option<(Worth, u32)> = None;
    for mask in 0u32..1 << hand.len() {
        if !ex.sizes.contains(&(mask.count_ones() as usize)) {
            continue;
        }
        let w = discard(ex, hand, out, mask, left, t);
        let better = match &best {
            None => true,
            Some((b, bm)) => w.value > b.value || (w.value == b.value && ex.preference.cmp(mask, *bm).is_lt()),
        };
        if better {
            best = Some((w, mask));
        }
    }
    best.expect("a choice").0
}

/// Every deal in deck order: each first choice's value is the oracle's,
/// the chosen one is the best by the tie rule; the analysis's payout and
/// stake are the oracle's averages.
fn every_deal_matches(ex: &Exchange, rounds: usize) {
    let (n, h) = (ex.deck.size() as u16, ex.hand);
    let mut deal: Vec<u16> = (0..h as u16).collect();
    let (mut deals, mut payout, mut stake) = (0i64, int(0), int(0));
    loop {
        let (chosen, options) = ex.decide(&deal);
        let mut best: Option<(BigRational, u32)> = None;
        for mask in 0u32..1 << h {
            if !ex.sizes.contains(&(mask.count_ones() as usize)) {
                continue;
            }
            let w = discard(ex, &deal, &[], mask, rounds, 0);
            let (_, got) = options.iter().find(|(m, _)| *m == mask).expect("every mask is an option");
            let (num, den) = got.fraction();
            let v = &w.value - int(ex.entry);
            assert_eq!(BigRational::new(num.into(), den.into()), v, "deal {deal:?}, discard {mask:b}");
            if best.as_ref().is_none_or(|(b, bm)| v > *b || (v == *b && ex.preference.cmp(mask, *bm).is_lt())) {
                best = Some((v, mask));
            }
        }
        let (_, mask) = best.unwrap();
        assert_eq!(chosen, mask, "deal {deal:?}");
        assert_eq!(ex.best(&deal), chosen, "deal {deal:?}");
        let w = discard(ex, &deal, &[], chosen, rounds, 0);
        payout += w.payout;
        stake += w.stake + int(ex.entry);
        deals += 1;
        let mut i = h;
        loop {
            if i == 0 {
                let r = ex.expected_return(&mut |_, _| {}).unwrap();
                assert_eq!(r.payout, payout / int(deals), "expected payout");
                assert_eq!(r.stake, stake / int(deals), "expected stake");
                let total: BigRational = r.rows.unwrap().iter().sum();
                assert_eq!(total, int(1));
                assert!(!r.payout.is_zero());
                return;
            }
            i -= 1;
            if deal[i] < n - (h - i) as u16 {
                deal[i] += 1;
                for j in i + 1..h {
                    deal[j] = deal[j - 1] + 1;
                }
                break;
            }
        }
    }
}

#[test]
fn rank_path_two_rounds_match_the_recursion() {
    let ex = game(
        r#"
        engine: exchange
        deck { ranks: A 2 3 4 5  suits: x y  wrap: yes }
        play { hand: 3  entry: 1  exchange: 0..2  cost: 1  rounds: 2  prefer: fewer-cards leftmost }
        combination "three" { pattern: run(3)  pays: 12 - 2 * exchanged }
        combination "pair"  { pattern: kind(2) pays: 3 }
        combination "two"   { pattern: run(2)  pays: if(exchanged == 0, 2, 1) }
        output { stay: "Stay" exchange: "Exchange {cards}" }
    "#,
    );
    assert!(!ex.by_cards());
    every_deal_matches(&ex, 2);
}

#[test]
fn rank_path_three_rounds_must_exchange_match_the_recursion() {
    let ex = game(
        r#"
        engine: exchange
        deck { ranks: A 2 3 4  suits: x y z }
        play { hand: 2  entry: 2  exchange: 1  cost: 0  rounds: 3  prefer: rightmost }
        combination "pair" { pattern: kind(2) pays: 9 }
        combination "run"  { pattern: run(2)  pays: 4 }
        output { stay: "Stay" exchange: "Exchange {cards}" }
    "#,
    );
    every_deal_matches(&ex, 3);
}

#[test]
fn card_path_two_rounds_match_the_recursion() {
    let ex = game(
        r#"
        engine: exchange
        deck { ranks: A 2 3 4  suits: x y  wild: 2 }
        play { hand: 3  entry: 1  exchange: 0..2  cost: 1  rounds: 2  prefer: more-cards rightmost }
        combination "flush run" { pattern: suited(run(3)) pays: 20 }
        combination "trips"     { pattern: kind(3)        pays: 8 - exchanged }
        combination "flush"     { pattern: suited(3)      pays: 4 }
        combination "pair"      { pattern: kind(2)        pays: 1 }
        output { stay: "Stay" exchange: "Exchange {cards}" }
    "#,
    );
    assert!(ex.by_cards());
    every_deal_matches(&ex, 2);
}
