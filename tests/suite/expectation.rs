//! The exchange engine (compiled tables, multiset memo, exact comparison)
//! against a slow oracle written from the Get Straight statement: every
//! replacement card (or pair) enumerated, every hand evaluated by trying all
//! subsets of cards for each run, values compared as exact fractions.

use arbiter::engines::compile;
use arbiter::game::{run_text, RunOptions};
use arbiter::load::load_path;
use num_traits::ToPrimitive;
use proptest::prelude::*;

const RANKS: &str = "A23456789TJQK";
const SUITS: &str = "SHDC";

/// (runs of the combination, payout), highest first, as in the statement.
fn table(paytable: bool) -> Vec<(Vec<usize>, i64)> {
    let pays: [i64; 7] = if paytable { [50, 20, 8, 2, 1, 0, 0] } else { [100, 10, 5, 3, 1, 0, 0] };
    let runs = [vec![5], vec![4], vec![3, 2], vec![3], vec![2, 2], vec![2], vec![]];
    runs.into_iter().zip(pays).collect()
}

fn is_run(ranks: &mut [usize], wrap: bool) -> bool {
    ranks.sort_unstable();
    if ranks.windows(2).any(|w| w[0] == w[1]) {
        return false;
    }
    let n = ranks.len();
    let straight = ranks.windows(2).all(|w| w[1] == w[0] + 1);
    if straight || !wrap {
        return straight;
    }
    // Cyclic: some rotation of the sorted ranks is consecutive mod 13.
    (0..n).any(|s| (1..n).all(|i| (ranks[(s + i) % n] + 13 - ranks[(s + i - 1) % n]) % 13 == 1))
}

/// Can the cards not in `used` form the runs `runs` with disjoint cards?
fn forms(hand: &[usize], used: u32, runs: &[usize], wrap: bool) -> bool {
    let Some((&len, rest)) = runs.split_first() else { return true };
    (0u32..1 << hand.len()).any(|set| {
        set & used == 0
            && set.count_ones() as usize == len
            && is_run(&mut (0..hand.len()).filter(|i| set >> i & 1 == 1).map(|i| hand[i] / 4).collect::<Vec<_>>(), wrap)
            && forms(hand, used | set, rest, wrap)
    })
}

fn payout(hand: &[usize], table: &[(Vec<usize>, i64)], wrap: bool) -> i64 {
    table.iter().find(|(runs, _)| forms(hand, 0, runs, wrap)).map_or(0, |t| t.1)
}

/// The statement's decision for a deal, by brute force.
fn oracle(deal: &[usize], paytable: bool, wrap: bool, max_exchange: usize) -> String {
    let t = table(paytable);
    let rest: Vec<usize> = (0..52).filter(|c| !deal.contains(c)).collect();
    // (numerator, denominator) of each option, in preference order.
    let mut best: Option<((i128, i128), Vec<usize>)> = None;
    let mut consider = |value: (i128, i128), discard: Vec<usize>| {
        let better = match &best {
            None => true,
            Some(((n, d), _)) => value.0 * d > n * value.1,
        };
        if better {
            best = Some((value, discard));
        }
    };
    consider(((payout(deal, &t, wrap) - 1) as i128, 1), vec![]);
    for i in 0..5 {
        let mut sum = 0i128;
        for &c in &rest {
            let mut h = deal.to_vec();
            h[i] = c;
            sum += payout(&h, &t, wrap) as i128;
        }
        consider((sum - 2 * 47, 47), vec![i]);
    }
    if max_exchange >= 2 {
        for i in 0..5 {
            for j in i + 1..5 {
                let mut sum = 0i128;
                for (x, &a) in rest.iter().enumerate() {
                    for &b in &rest[x + 1..] {
                        let mut h = deal.to_vec();
                        h[i] = a;
                        h[j] = b;
                        sum += payout(&h, &t, wrap) as i128;
                    }
                }
                consider((sum - 3 * 1081, 1081), vec![i, j]);
            }
        }
    }
    let discard = best.unwrap().1;
    if discard.is_empty() {
        "Stay".to_string()
    } else {
        let names: Vec<String> = discard.iter().map(|&i| name(deal[i])).collect();
        format!("Exchange {}", names.join(" "))
    }
}

fn name(card: usize) -> String {
    format!("{}{}", &RANKS[card / 4..card / 4 + 1], &SUITS[card % 4..card % 4 + 1])
}

fn engine(rules: &str, deals: &[Vec<usize>]) -> Vec<String> {
    let loaded = load_path(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rules).as_path()).unwrap();
    let game = compile(&loaded).0.unwrap().game;
    let mut input: String =
        deals.iter().map(|d| d.iter().map(|&c| name(c)).collect::<Vec<_>>().join(" ") + "\n").collect();
    input.push_str("#\n");
    let (printed, result) = run_text(game.as_ref(), &input, &RunOptions::default());
    result.unwrap();
    printed.lines().map(String::from).collect()
}

fn deals(n: usize) -> impl Strategy<Value = Vec<Vec<usize>>> {
    prop::collection::vec(Just((0..52).collect::<Vec<usize>>()).prop_shuffle().prop_map(|d| d[..5].to_vec()), n)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn base_and_one_exchange_variants_match_the_oracle(ds in deals(40)) {
        for (rules, paytable, wrap) in [
            ("rules/get_straight.rules", false, true),
            ("rules/get_straight/no-wrap.rules", false, false),
            ("rules/get_straight/paytable.rules", true, true),
        ] {
            let got = engine(rules, &ds);
            for (d, g) in ds.iter().zip(&got) {
                prop_assert_eq!(g, &oracle(d, paytable, wrap, 1), "{} on {:?}", rules, d);
            }
        }
    }

    #[test]
    fn two_exchanges_matches_the_oracle(ds in deals(4)) {
        let got = engine("rules/get_straight/two-exchanges.rules", &ds);
        for (d, g) in ds.iter().zip(&got) {
            prop_assert_eq!(g, &oracle(d, false, true, 2), "{:?}", d);
        }
    }
}

#[test]
fn ties_pick_stay_then_the_leftmost_cards() {
    // From the statement and the two-exchanges variant's example.
    let deal = |s: &str| {
        s.split(' ').map(|c| RANKS.find(&c[..1]).unwrap() * 4 + SUITS.find(&c[1..]).unwrap()).collect::<Vec<_>>()
    };
    assert_eq!(engine("rules/get_straight/two-exchanges.rules", &[deal("9C 5D 9D 9S 7D")]), ["Exchange 9C 9D"]);
    assert_eq!(oracle(&deal("9C 5D 9D 9S 7D"), false, true, 2), "Exchange 9C 9D");
}

#[test]
fn expected_return_equals_the_sum_over_every_deal() {
    // A small deck, so that every deal can be enumerated: 7 ranks, 3 suits,
    // hands of 3, exchanges of 0, 1 or 2 cards.
    let text = r#"
        engine: exchange
        deck { ranks: A 2 3 4 5 6 7  suits: x y z  wrap: yes }
        play { hand: 3  entry: 1  exchange: 0..2  cost: 1  prefer: fewer-cards leftmost }
        combination "three" { pattern: run(3)  pays: 9 }
        combination "trips" { pattern: kind(3) pays: 7 }
        combination "pair"  { pattern: kind(2) pays: 2 }
        combination "two"   { pattern: run(2)  pays: 1 }
        combination "none"  { pattern: any     pays: 0 }
        output { stay: "Stay" exchange: "Exchange {cards}" }
    "#;
    let loaded = arbiter::load::load_text("small", text, std::path::Path::new(".")).unwrap();
    let (compiled, diags) = compile(&loaded);
    assert!(diags.is_empty(), "{:?}", diags.iter().map(|d| &d.message).collect::<Vec<_>>());
    let lines = compiled
        .unwrap()
        .game
        .analysis()
        .unwrap()
        .analyze(&arbiter::game::AnalyzeOptions { samples: 0, seed: 0, max_nodes: None, jobs: 1 }, &mut |_, _| {});
    let reported = &lines.iter().find(|(k, _)| k == "expected earning per game").unwrap().1;

    // Brute force with the engine's own per-deal exact values, each deal
    // written in deck order (the order the analysis follows for ties).
    let ex = arbiter::engines::exchange::lower::compile(&loaded).unwrap();
    let (mut num, mut den) = (0i128, 1i128);
    let mut deals = 0;
    for a in 0..21u16 {
        for b in a + 1..21 {
            for c in b + 1..21 {
                let (mask, values) = ex.decide(&[a, b, c]);
                let v = values.iter().find(|(m, _)| *m == mask).unwrap().1;
                let (n, d) = v.fraction();
                num = num * d + n * den;
                den *= d;
                let g = gcd(num, den);
                (num, den) = (num / g, den / g);
                deals += 1;
            }
        }
    }
    den *= deals;
    let g = gcd(num, den);
    let want = format!("{}/{}", num / g, den / g);
    assert_eq!(reported, &want, "analyze says {reported}, every deal says {want}");
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

#[test]
fn a_long_custom_terminator_ends_the_input() {
    let text =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/get_straight.rules"))
            .unwrap()
            .replace("end: \"#\"", "end: \"end of the deals, thank you\"");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
    let game = compile(&arbiter::load::load_text("custom", &text, &dir).unwrap()).0.unwrap().game;
    let input = "2H TC 5D 3S 6C\nend of the deals, thank you\nnot read\n";
    let (printed, result) = run_text(game.as_ref(), input, &RunOptions::default());
    result.unwrap();
    assert_eq!(printed, "Exchange TC\n");
}

/// Every deal of a small game, each in deck order: the stake and the rows
/// the chosen exchange's draws land in, counted one deal at a time with
/// `run`'s choice, against `analyze`'s exact figures.
fn analysis_matches_every_deal(text: &str) {
    let loaded = arbiter::load::load_text("small", text, std::path::Path::new(".")).unwrap();
    let ex = arbiter::engines::exchange::lower::compile(&loaded)
        .unwrap_or_else(|d| panic!("{:?}", d.iter().map(|d| &d.message).collect::<Vec<_>>()));
    let r = ex.expected_return(&mut |_, _| {}).unwrap();
    let n = ex.deck.size() as u16;
    let h = ex.hand;
    let rows = ex.rows.len() + 1;
    let (mut deals, mut stake) = (0i128, 0i128);
    // Per row: the sum over deals of (draws in the row) / (draws).
    let mut probs = vec![num_rational::BigRational::from_integer(0.into()); rows];
    // The sums over deals of E[X], E[X^2] and P(X's payout > 0) of the deal,
    // X the earning: the row's payout minus the stake of the choice.
    let q = |n: i128, d: i128| num_rational::BigRational::new(n.into(), d.into());
    let (mut mean, mut square, mut hits) = (q(0, 1), q(0, 1), q(0, 1));
    // Deals with several optimal choices whose draws end in different
    // rows, each found over every allowed choice.
    let mut ties = 0i128;
    let mut deal: Vec<u16> = (0..h as u16).collect();
    loop {
        let optimal = optimal_draws(&ex, &deal);
        if optimal.iter().any(|d| !same_distribution(d, &optimal[0])) {
            ties += 1;
        }
        let mask = ex.best(&deal);
        let k = mask.count_ones() as i128;
        let cost = ex.entry as i128 + ex.cost as i128 * k;
        stake += cost;
        deals += 1;
        let draws = ex.draw_rows(&deal, mask);
        let total: u64 = draws.iter().sum();
        for (p, &d) in probs.iter_mut().zip(&draws) {
            *p += num_rational::BigRational::new((d as i64).into(), (total as i64).into());
        }
        for (row, &d) in draws.iter().enumerate() {
            let pays = ex.rows.get(row).map_or(0, |r| r.pays_at(k as usize)) as i128;
            let x = pays - cost;
            mean += q(d as i128 * x, total as i128);
            square += q(d as i128 * x * x, total as i128);
            if pays > 0 {
                hits += q(d as i128, total as i128);
            }
        }
        // Next h-set of 0..n in lexicographic order.
        let mut i = h;
        loop {
            if i == 0 {
                let d = num_rational::BigRational::from_integer(deals.into());
                assert_eq!(r.deals as i128, deals);
                assert_eq!(r.stake, num_rational::BigRational::from_integer(stake.into()) / &d, "stake");
                let got = r.rows.clone().unwrap();
                for (i, p) in probs.into_iter().enumerate() {
                    assert_eq!(got[i], p / &d, "row {i}");
                }
                let (mean, square, hits) = (mean / &d, square / &d, hits / &d);
                let variance = square - &mean * &mean;
                assert_eq!(r.earning(), mean, "earning");
                // What `analyze` reports, exactly.
                use arbiter::game::Analyze;
                let report = ex.report(
                    &arbiter::game::AnalyzeOptions { samples: 0, seed: 0, max_nodes: None, jobs: 1 },
                    &mut |_, _| {},
                );
                let exact = |key: &str| report.figure(key).and_then(|f| f.value.exact.clone());
                assert_eq!(exact("variance"), Some(variance.clone()), "variance");
                assert_eq!(exact("hit_frequency"), Some(hits), "hit frequency");
                assert_eq!(exact("tie_rule"), Some(q(ties, 1)), "deals whose row figures depend on the tie rule");
                let sd = report.figure("standard_deviation").and_then(|f| f.value.approx).unwrap();
                assert!((sd * sd - variance.to_f64().unwrap()).abs() < 1e-9 * (1.0 + sd * sd), "sd {sd}");
                // Each row's count over the stated denominator is its
                // probability; the total row counts every outcome.
                let table = &report.tables[0];
                let outcomes = exact("outcomes").unwrap();
                let mut counted = q(0, 1);
                for (i, cells) in table.rows.iter().enumerate() {
                    let count = cells[2].exact.clone().unwrap();
                    assert!(count.is_integer());
                    assert_eq!(&count / &outcomes, got[i], "count of row {i}");
                    counted += count;
                }
                assert_eq!(Some(counted), table.total.as_ref().unwrap()[2].exact.clone());
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
fn analysis_stake_follows_prefer_on_ties() {
    // Issue 12: with `prefer: leftmost fewer-cards` and `exchange: 0..2`,
    // a tie between discarding one card and two goes to the two leftmost
    // cards here (10 deals), which costs one more: the stake must say so.
    analysis_matches_every_deal(
        r#"
        engine: exchange
        deck { ranks: A B C D  suits: x y }
        play { hand: 3  entry: 1  exchange: 0..2  cost: 1  prefer: leftmost fewer-cards }
        combination "ace"  { pattern: ranks(A)   pays: 6 }
        combination "b c"  { pattern: ranks(B C) pays: 2 }
        combination "none" { pattern: any        pays: 0 }
        output { stay: "Stay" exchange: "Exchange {cards}" }
    "#,
    );
}

#[test]
fn analysis_with_suits_and_wild_cards_matches_every_deal() {
    analysis_matches_every_deal(
        r#"
        engine: exchange
        deck { ranks: A 2 3 4 5 6  suits: x y z  wild: 2  high: A }
        play { hand: 3  entry: 1  exchange: 0..3  cost: 0  prefer: fewer-cards leftmost }
        combination "natural flush" { pattern: suited(run(3)) natural: yes pays: 30 }
        combination "wild three"    { pattern: wild(3)                    pays: 20 }
        combination "flush run"     { pattern: suited(run(3))             pays: 12 }
        combination "trips"         { pattern: kind(3)                    pays: 8 }
        combination "flush"         { pattern: suited(3)                  pays: 5 }
        combination "run"           { pattern: run(3)                     pays: 3 }
        combination "high pair"     { pattern: kind(2, 5 6 A)             pays: 1 }
        output { stay: "Stay" exchange: "Exchange {cards}" }
    "#,
    );
}

#[test]
fn analysis_with_a_joker_matches_every_deal() {
    analysis_matches_every_deal(
        r#"
        engine: exchange
        deck { ranks: A 2 3 4 5  suits: x y z  jokers: JK }
        play { hand: 3  entry: 1  exchange: 0..2  cost: 1  prefer: rightmost more-cards }
        combination "aces"  { pattern: ranks(A A) + kind(1, 2 3) pays: 40 }
        combination "trips" { pattern: kind(3)                   pays: 9 }
        combination "flush" { pattern: suited(3)                 pays: 4 }
        combination "pair"  { pattern: kind(2)                   pays: 1 }
        output { stay: "Stay" exchange: "Exchange {cards}" exchange-all: "All" }
    "#,
    );
}

#[test]
fn analysis_with_payouts_by_exchanged_matches_every_deal() {
    // The rank path and the card path, payouts that depend on how many
    // cards were exchanged (each size its own column).
    analysis_matches_every_deal(
        r#"
        engine: exchange
        deck { ranks: A 2 3 4 5 6 7  suits: x y z  wrap: yes }
        play { hand: 3  entry: 1  exchange: 0..2  cost: 1  prefer: fewer-cards leftmost }
        combination "three" { pattern: run(3)  pays: 12 - 4 * exchanged }
        combination "trips" { pattern: kind(3) pays: if(exchanged == 0, 9, 6) }
        combination "pair"  { pattern: kind(2) pays: 2 + exchanged }
        combination "none"  { pattern: any     pays: 0 }
        output { stay: "Stay" exchange: "Exchange {cards}" }
    "#,
    );
    analysis_matches_every_deal(
        r#"
        engine: exchange
        deck { ranks: A 2 3 4 5 6  suits: x y z  high: A }
        play { hand: 3  entry: 1  exchange: 0..3  cost: 0  prefer: fewer-cards leftmost }
        combination "flush run" { pattern: suited(run(3)) pays: if(exchanged == 0, 40, 12) }
        combination "trips"     { pattern: kind(3)        pays: 8 }
        combination "flush"     { pattern: suited(3)      pays: 6 - exchanged }
        combination "run"       { pattern: run(3)         pays: 3 }
        output { stay: "Stay" exchange: "Exchange {cards}" }
    "#,
    );
}

/// The draws by row of every optimal choice of a deal, each choice valued
/// from its own draws (counted one by one).
fn optimal_draws(ex: &arbiter::engines::exchange::Exchange, deal: &[u16]) -> Vec<Vec<u64>> {
    let q = |n: i128, d: i128| num_rational::BigRational::new(n.into(), d.into());
    let mut best: Option<num_rational::BigRational> = None;
    let mut out = Vec::new();
    for mask in 0..1u32 << deal.len() {
        let k = mask.count_ones() as usize;
        if !ex.sizes.contains(&k) {
            continue;
        }
        let draws = ex.draw_rows(deal, mask);
        let total: u64 = draws.iter().sum();
        let paid: i128 = draws
            .iter()
            .enumerate()
            .map(|(r, &n)| n as i128 * ex.rows.get(r).map_or(0, |r| r.pays_at(k)) as i128)
            .sum();
        let v = q(paid, total as i128) - q((ex.entry + ex.cost * k as i64) as i128, 1);
        match best.as_ref().map(|b| v.cmp(b)) {
            None | Some(std::cmp::Ordering::Greater) => {
                best = Some(v);
                out = vec![draws];
            }
            Some(std::cmp::Ordering::Equal) => out.push(draws),
            Some(std::cmp::Ordering::Less) => {}
        }
    }
    out
}

/// Whether two choices' draws end in each row with the same probability.
fn same_distribution(a: &[u64], b: &[u64]) -> bool {
    let (na, nb): (u64, u64) = (a.iter().sum(), b.iter().sum());
    a.iter().zip(b).all(|(&x, &y)| x as u128 * nb as u128 == y as u128 * na as u128)
}

/// The choice the rules' `prefer` order makes, written from its
/// definition: the highest exact value, then each criterion in order
/// (`fewer-cards leftmost` appended), variances exact from each choice's
/// draws, counted one by one.
fn oracle_choice(ex: &arbiter::engines::exchange::Exchange, deal: &[u16], prefer: &[&str]) -> u32 {
    use num_rational::BigRational;
    let q = |n: i128, d: i128| BigRational::new(n.into(), d.into());
    let mut criteria: Vec<&str> = prefer.to_vec();
    for c in ["fewer-cards", "leftmost"] {
        if !criteria.contains(&c) {
            criteria.push(c);
        }
    }
    // (mask, value, variance) of every allowed choice.
    let mut all: Vec<(u32, BigRational, BigRational)> = Vec::new();
    for mask in 0..1u32 << deal.len() {
        let k = mask.count_ones() as usize;
        if !ex.sizes.contains(&k) {
            continue;
        }
        let draws = ex.draw_rows(deal, mask);
        let n: i128 = draws.iter().map(|&d| d as i128).sum();
        let pays = |r: usize| ex.rows.get(r).map_or(0, |r| r.pays_at(k)) as i128;
        let s1: i128 = draws.iter().enumerate().map(|(r, &d)| d as i128 * pays(r)).sum();
        let s2: i128 = draws.iter().enumerate().map(|(r, &d)| d as i128 * pays(r) * pays(r)).sum();
        let value = q(s1, n) - q((ex.entry + ex.cost * k as i64) as i128, 1);
        let variance = q(s2, n) - q(s1, n) * q(s1, n);
        all.push((mask, value, variance));
    }
    let positions = |m: u32| -> Vec<u32> { (0..32).filter(|i| m >> i & 1 == 1).collect() };
    let better = |a: &(u32, BigRational, BigRational), b: &(u32, BigRational, BigRational)| {
        use std::cmp::Ordering::*;
        if a.1 != b.1 {
            return a.1 > b.1;
        }
        for c in &criteria {
            let o = match *c {
                "fewer-cards" => a.0.count_ones().cmp(&b.0.count_ones()),
                "more-cards" => b.0.count_ones().cmp(&a.0.count_ones()),
                "lower-variance" => a.2.cmp(&b.2),
                "higher-variance" => b.2.cmp(&a.2),
                "leftmost" => positions(a.0).cmp(&positions(b.0)),
                _ => {
                    let (ra, rb): (Vec<u32>, Vec<u32>) =
                        (positions(a.0).into_iter().rev().collect(), positions(b.0).into_iter().rev().collect());
                    rb.cmp(&ra)
                }
            };
            if o != Equal {
                return o == Less;
            }
        }
        false
    };
    let mut best = 0;
    for i in 1..all.len() {
        if better(&all[i], &all[best]) {
            best = i;
        }
    }
    all[best].0
}

/// The small games of these tests with another `prefer:` line.
fn with_prefer(text: &str, prefer: &str) -> String {
    let at = text.find("prefer:").unwrap();
    let end = at + text[at..].find('}').unwrap();
    format!("{}prefer: {prefer} {}", &text[..at], &text[end..])
}

const RANK_GAME: &str = r#"
    engine: exchange
    deck { ranks: A B C D E  suits: x y }
    play { hand: 3  entry: 1  exchange: 0..3  cost: 0  prefer: fewer-cards leftmost }
    combination "aces"  { pattern: ranks(A A)  pays: 6 }
    combination "b c"   { pattern: ranks(B C)  pays: 2 }
    combination "d"     { pattern: ranks(D)    pays: 1 }
    combination "none"  { pattern: any         pays: 0 }
    output { stay: "Stay" exchange: "Exchange {cards}" }
"#;

const CARD_GAME: &str = r#"
    engine: exchange
    deck { ranks: A 2 3 4 5 6  suits: x y z  wild: 2  high: A }
    play { hand: 3  entry: 1  exchange: 0..3  cost: 0  prefer: fewer-cards leftmost }
    combination "wild three" { pattern: wild(3)        pays: 20 }
    combination "flush run"  { pattern: suited(run(3)) pays: 12 }
    combination "trips"      { pattern: kind(3)        pays: 8 }
    combination "flush"      { pattern: suited(3)      pays: 3 }
    combination "run"        { pattern: run(3)         pays: 3 }
    combination "pair"       { pattern: kind(2)        pays: 1 }
    output { stay: "Stay" exchange: "Exchange {cards}" }
"#;

const SPLIT_GAME: &str = r#"
    engine: exchange
    deck { ranks: A 2 3 4 5 6 7  suits: x y z  wrap: yes }
    play { hand: 3  entry: 1  exchange: 0..2  cost: 0  prefer: fewer-cards leftmost }
    combination "three" { pattern: run(3)  pays: 12 - 4 * exchanged }
    combination "trips" { pattern: kind(3) pays: if(exchanged == 0, 9, 6) }
    combination "pair"  { pattern: kind(2) pays: 2 + exchanged }
    combination "none"  { pattern: any     pays: 0 }
    output { stay: "Stay" exchange: "Exchange {cards}" }
"#;

/// `run`'s choice and `--explain`'s under every order of criteria with a
/// variance in it, on every deal (in deck order and reversed) of a game on
/// the rank path, one on the card path and one whose payouts read
/// `exchanged`, against the order written from its definition; and the
/// variance decides some deals.
#[test]
fn variance_tie_breaks_match_the_definition() {
    let mut decided = 0;
    for game in [RANK_GAME, CARD_GAME, SPLIT_GAME] {
        let mut picks: Vec<Vec<u32>> = Vec::new();
        for prefer in [
            &["lower-variance"][..],
            &["higher-variance"],
            &["more-cards", "lower-variance"],
            &["lower-variance", "rightmost"],
            &["leftmost", "higher-variance"],
        ] {
            let text = with_prefer(game, &prefer.join(" "));
            let loaded = arbiter::load::load_text("small", &text, std::path::Path::new(".")).unwrap();
            let ex = arbiter::engines::exchange::lower::compile(&loaded)
                .unwrap_or_else(|d| panic!("{:?}", d.iter().map(|d| &d.message).collect::<Vec<_>>()));
            let (n, h) = (ex.deck.size() as u16, ex.hand);
            let mut mine = Vec::new();
            let mut deal: Vec<u16> = (0..h as u16).collect();
            'deals: loop {
                for d in [deal.clone(), deal.iter().rev().copied().collect()] {
                    let want = oracle_choice(&ex, &d, prefer);
                    assert_eq!(ex.best(&d), want, "{prefer:?} {d:?}\n{game}");
                    assert_eq!(ex.decide(&d).0, want, "explain: {prefer:?} {d:?}");
                    mine.push(want);
                }
                let mut i = h;
                loop {
                    if i == 0 {
                        break 'deals;
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
            picks.push(mine);
        }
        decided += picks[0].iter().zip(&picks[1]).filter(|(a, b)| a != b).count();
    }
    assert!(decided > 0, "no deal's choice depends on the variance: the test would not see a wrong order");
}

#[test]
fn analysis_follows_variance_tie_breaks() {
    for game in [RANK_GAME, CARD_GAME, SPLIT_GAME] {
        for prefer in ["lower-variance", "higher-variance more-cards", "rightmost"] {
            analysis_matches_every_deal(&with_prefer(game, prefer));
        }
    }
}
