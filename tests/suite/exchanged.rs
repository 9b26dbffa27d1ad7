//! Payouts by the number of cards exchanged (`pays:` reading
//! `exchanged`): every choice of every deal of small games valued by brute
//! force (each draw enumerated, its row looked up, paid by the column of
//! its exchange size, values compared as exact fractions) against the
//! engine's values and choices; and the shipped variant's return against
//! the base game's plus what the dealt Straights gain.

use arbiter::engines::exchange::lower::compile;
use arbiter::engines::exchange::Exchange;
use arbiter::load::{load_path, load_text};
use num_rational::BigRational;

fn small(text: &str) -> Exchange {
    let loaded = load_text("small", text, std::path::Path::new(".")).unwrap();
    compile(&loaded).unwrap_or_else(|d| panic!("{:?}", d.iter().map(|d| &d.message).collect::<Vec<_>>()))
}

fn q(n: i128, d: i128) -> BigRational {
    BigRational::new(n.into(), d.into())
}

/// The exact value of discarding `mask` from `deal`, every draw enumerated.
fn brute_value(ex: &Exchange, deal: &[u16], mask: u32) -> BigRational {
    let k = mask.count_ones() as usize;
    let kept: Vec<u16> = (0..deal.len()).filter(|i| mask >> i & 1 == 0).map(|i| deal[i]).collect();
    let pool: Vec<u16> = (0..ex.deck.size() as u16).filter(|c| !deal.contains(c)).collect();
    let (mut sum, mut ways) = (0i128, 0i128);
    for draw in 0u64..1 << pool.len() {
        if draw.count_ones() as usize != k {
            continue;
        }
        let mut hand = kept.clone();
        hand.extend((0..pool.len()).filter(|i| draw >> i & 1 == 1).map(|i| pool[i]));
        sum += ex.row_of(&hand).map_or(0, |r| ex.rows[r].pays_at(k)) as i128;
        ways += 1;
    }
    q(sum, ways) - q((ex.entry + ex.cost * k as i64) as i128, 1)
}

/// Every deal: each option's value is the brute-force one, and the chosen
/// option is worth the most.
fn every_deal_matches(ex: &Exchange) {
    let (n, h) = (ex.deck.size() as u16, ex.hand);
    let mut deal: Vec<u16> = (0..h as u16).collect();
    let mut deals = 0;
    loop {
        let (chosen, options) = ex.decide(&deal);
        let mut best: Option<BigRational> = None;
        for mask in 0u32..1 << h {
            if !ex.sizes.contains(&(mask.count_ones() as usize)) {
                continue;
            }
            let v = brute_value(ex, &deal, mask);
            if let Some((_, got)) = options.iter().find(|(m, _)| *m == mask) {
                let (num, den) = got.fraction();
                assert_eq!(q(num, den), v, "deal {deal:?}, discard {mask:b}");
            }
            best = Some(best.map_or(v.clone(), |b: BigRational| b.max(v)));
        }
        let (_, got) = options.iter().find(|(m, _)| *m == chosen).unwrap();
        let (num, den) = got.fraction();
        assert_eq!(Some(q(num, den)), best, "deal {deal:?}: the choice {chosen:b} is not the best");
        assert_eq!(ex.best(&deal), chosen);
        deals += 1;
        let mut i = h;
        loop {
            if i == 0 {
                assert!(deals > 0);
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
fn rank_path_choices_match_brute_force() {
    let ex = small(
        r#"
        engine: exchange
        deck { ranks: A 2 3 4 5 6  suits: x y z  wrap: yes }
        play { hand: 3  entry: 1  exchange: 0..2  cost: 1  prefer: fewer-cards leftmost }
        combination "three" { pattern: run(3)  pays: 20 - 8 * exchanged }
        combination "trips" { pattern: kind(3) pays: if(exchanged == 0, 9, 6) }
        combination "pair"  { pattern: kind(2) pays: 2 + exchanged }
        combination "none"  { pattern: any     pays: 0 }
        output { stay: "Stay" exchange: "Exchange {cards}" }
    "#,
    );
    assert!(!ex.by_cards());
    every_deal_matches(&ex);
}

#[test]
fn card_path_choices_match_brute_force() {
    let ex = small(
        r#"
        engine: exchange
        deck { ranks: A 2 3 4 5  suits: x y z  wild: 2 }
        play { hand: 3  entry: 1  exchange: 0..3  cost: 0  prefer: rightmost more-cards }
        combination "flush run" { pattern: suited(run(3)) pays: if(exchanged < 2, 30, 10) }
        combination "trips"     { pattern: kind(3)        pays: 8 - exchanged }
        combination "flush"     { pattern: suited(3)      pays: 4 }
        combination "pair"      { pattern: kind(2)        pays: if(exchanged == 3, 2, 1) }
        output { stay: "Stay" exchange: "Exchange {cards}" }
    "#,
    );
    assert!(ex.by_cards());
    every_deal_matches(&ex);
}

#[test]
fn a_payout_equal_for_every_allowed_size_is_a_plain_payout() {
    // `exchange: 0..1` allows 0 and 1: `max(exchanged, 1) * 5` pays 5 for
    // both, so the row is an ordinary one.
    let ex = small(
        r#"
        engine: exchange
        deck { ranks: A 2 3 4  suits: x y }
        play { hand: 2  exchange: 0..1  prefer: fewer-cards leftmost }
        combination "pair" { pattern: kind(2) pays: max(exchanged, 1) * 5 }
        combination "none" { pattern: any     pays: 0 }
        output { stay: "Stay" exchange: "Exchange {cards}" }
    "#,
    );
    assert!(ex.rows[0].by_exchanged.is_none());
    assert_eq!(ex.rows[0].pays, 5);
}

#[test]
fn pay_by_exchanges_gains_what_the_dealt_straights_gain() {
    // A Straight dealt is kept in both games (it pays at least 100, more
    // than any exchange can be worth), and every other deal is played and
    // paid alike: the variant pays 50 more on each dealt Straight. With
    // `wrap: yes` there are 13 runs of five ranks, each in 4^5 suits.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let ret = |f: &str| {
        let ex = compile(&load_path(&root.join(f)).unwrap()).unwrap();
        ex.expected_return(&mut |_, _| {}).unwrap()
    };
    let base = ret("rules/get_straight.rules");
    let variant = ret("rules/get_straight/pay-by-exchanges.rules");
    assert_eq!(variant.stake, base.stake);
    assert_eq!(variant.payout - base.payout, q(50 * 13 * 1024, 2_598_960));
}
