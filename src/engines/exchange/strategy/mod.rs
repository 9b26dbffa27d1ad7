//! `arbiter strategy` for the exchange engine: a chart of hold classes,
//! generated from the combination table, and the exact return of following
//! it literally.
//!
//! Method (docs/engines/exchange.md, "Strategy charts"):
//! 1. Every hold (the cards kept) gets a class, from the table's rows alone:
//!    - a *made* hold: every draw keeps a paying row; the class is the
//!      lowest-paying row every draw still forms (and how many held cards
//!      that row does not need);
//!    - else the rows the hold is *part of*: a row R such that some draw
//!      forms R with every held card needed (replacing any one of them by
//!      some card pays less); the class names the one of them that brings
//!      the most (payout times the draws that form it), with the number of
//!      draws that form it, and how many held cards are alone part of the
//!      lowest-paying row (when not every card is);
//!    - no row at all: "k other cards".
//! 2. Every deal (one per class under suit symmetry, with its weight) is
//!    valued: each hold's exact expected value.
//! 3. A chart is an order of classes: a deal is played by the first line
//!    one of its holds belongs to (among several holds of that line, the
//!    one the rule file's `prefer:` order picks). The order starts from
//!    the classes' mean values and is improved line by line (each class
//!    moved to where it adds the most); lines are then dropped, the one
//!    that costs least first, down to the asked number; the last line,
//!    never dropped, exchanges every card.
//! 4. The chart's return is computed exactly over every deal, as is the
//!    optimal return.

use std::collections::HashMap;

use num_bigint::BigInt;
use num_rational::BigRational;
use rayon::prelude::*;

use super::combi::binom;
use super::eval::NONE;
use super::{hands, ranks, Exchange, MAX_HAND};
use crate::engines::cards::Card;
use crate::game::strategy::{Chart, ChartLine, ChartOptions};

/// Most row evaluations the classes may take (completions of the holds
/// times the checks), so that a chart is computed in bounded time.
const MAX_COMPLETIONS: u128 = 1 << 22;

/// Most deals (classes under suit symmetry) a chart looks at.
const MAX_DEALS: u128 = 1 << 22;

/// A hold's class, from the rows alone.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Key {
    /// Cards held.
    kept: u8,
    /// Made: every draw keeps this row (or better); else the row the
    /// hold is part of (`NONE`: none).
    made: bool,
    row: u8,
    /// Made: held cards the row does not need; else: draws that form the
    /// row.
    count: u64,
    /// Held cards that alone are part of the lowest-paying row.
    low: u8,
}

/// What a hold is, as computed once per hold under suit symmetry.
#[derive(Debug, Clone)]
struct Feature {
    /// Worst payout over the draws.
    min_pay: i64,
    /// The row that pays `min_pay` last in the table.
    worst: u8,
    /// Per row: part of it (every held card needed in some draw forming
    /// it), and the draws forming it.
    part: Vec<bool>,
    forms: Vec<u64>,
}

/// A deal's classes present (each with the hold `prefer:` picks and its
/// value), and its optimal choice.
type PerDeal = (Vec<(Key, u32, super::Value)>, Option<(u32, super::Value)>);

/// A class of cards under suit symmetry: the sorted masks of ranks per
/// suit, then the jokers (as one more mask).
type SetKey = Vec<u64>;

impl Exchange {
    /// The chart for these rules (see the module's documentation).
    pub(crate) fn strategy_chart(&self, opts: &ChartOptions) -> Result<Chart, String> {
        let deals = self.chart_deals()?;
        let feats = self.hold_features(&deals)?;
        let (keys, deals) = self.classify(&deals, &feats);
        let order = search(&keys, &deals, opts.lines.max(1));
        Ok(self.chart_of(&keys, &deals, &order))
    }

    /// The row of a hand of `hand` cards sorted by card number.
    fn sorted_row(&self, sorted: &[Card]) -> u8 {
        match self.card_path() {
            Some(path) => path.row(sorted),
            None => {
                let r: Vec<u8> = sorted.iter().map(|&c| self.deck.rank(c) as u8).collect();
                ranks::row_of_ranks(&self.eval, &r)
            }
        }
    }

    fn pay(&self, row: u8) -> i64 {
        self.pays[row as usize]
    }

    fn set_key(&self, cards: &[Card]) -> SetKey {
        let ns = self.deck.suits.len();
        let mut masks = vec![0u64; ns + 1];
        for &c in cards {
            if self.deck.is_joker(c) {
                masks[ns] += 1;
            } else {
                masks[self.deck.suit(c)] |= 1 << self.deck.rank(c);
            }
        }
        masks[..ns].sort_unstable_by(|a, b| b.cmp(a));
        masks
    }

    /// One deal of every class with its weight.
    fn chart_deals(&self) -> Result<Vec<(Vec<Card>, u128)>, String> {
        let mut out = Vec::new();
        let mut too_many = false;
        hands::for_each_class_while(&self.deck, self.hand, &mut |cards, w| {
            out.push((cards.to_vec(), w));
            too_many = out.len() as u128 > MAX_DEALS;
            !too_many
        });
        if too_many {
            return Err(format!("more than {MAX_DEALS} classes of deals: the chart's limit"));
        }
        Ok(out)
    }

    /// The features of every hold of every deal, and of their subsets,
    /// under suit symmetry.
    fn hold_features(&self, deals: &[(Vec<Card>, u128)]) -> Result<HashMap<SetKey, Feature>, String> {
        let h = self.hand;
        let mut wanted: Vec<HashMap<SetKey, Vec<Card>>> = vec![HashMap::new(); h + 1];
        for (cards, _) in deals {
            for kept in 0..1usize << cards.len() {
                let held: Vec<Card> = (0..cards.len()).filter(|i| kept >> i & 1 == 1).map(|i| cards[i]).collect();
                wanted[held.len()].entry(self.set_key(&held)).or_insert(held);
            }
        }
        let n = self.deck.size() as u64;
        let work: u128 = wanted
            .iter()
            .enumerate()
            .map(|(k, m)| m.len() as u128 * binom(n - k as u64, (h - k) as u64) * (k as u128 + 1))
            .sum();
        if work > MAX_COMPLETIONS * 64 {
            return Err(format!("classing the holds needs {work} steps: the chart's limit is 2^28"));
        }
        let mut feats: HashMap<SetKey, Feature> = HashMap::new();
        for level in wanted {
            let list: Vec<(SetKey, Vec<Card>)> = level.into_iter().collect();
            let done: Vec<(SetKey, Feature)> =
                list.into_par_iter().map(|(key, held)| (key, self.feature(&held))).collect();
            feats.extend(done);
        }
        Ok(feats)
    }

    /// A hold's feature: every draw of the cards not held.
    fn feature(&self, held: &[Card]) -> Feature {
        let (h, n, rows) = (self.hand, self.deck.size(), self.rows.len());
        let mut f = Feature { min_pay: i64::MAX, worst: NONE, part: vec![false; rows], forms: vec![0; rows] };
        if held.is_empty() {
            f.min_pay = 0;
            return f;
        }
        let pool: Vec<Card> = (0..n as Card).filter(|c| !held.contains(c)).collect();
        let d = h - held.len();
        let mut pick: Vec<usize> = (0..d).collect();
        let mut hand = [0 as Card; MAX_HAND];
        let mut other = [0 as Card; MAX_HAND];
        loop {
            hand[..held.len()].copy_from_slice(held);
            for (j, &i) in pick.iter().enumerate() {
                hand[held.len() + j] = pool[i];
            }
            let mut sorted = hand;
            sorted[..h].sort_unstable();
            let row = self.sorted_row(&sorted[..h]);
            let pay = self.pay(row);
            if pay < f.min_pay || (pay == f.min_pay && row >= f.worst) {
                f.min_pay = pay;
                f.worst = row;
            }
            if row != NONE && pay > 0 {
                f.forms[row as usize] += 1;
                if !f.part[row as usize] {
                    f.part[row as usize] = (0..held.len()).all(|i| self.needed(&hand[..h], i, pay, &mut other));
                }
            }
            if !next_pick(&mut pick, pool.len()) {
                return f;
            }
        }
    }

    /// Whether card `i` of a hand paying `pay` is needed: some card not in
    /// the hand, put in its place, makes it pay less.
    fn needed(&self, hand: &[Card], i: usize, pay: i64, other: &mut [Card; MAX_HAND]) -> bool {
        let h = hand.len();
        (0..self.deck.size() as Card).filter(|c| !hand.contains(c)).any(|c| {
            other[..h].copy_from_slice(hand);
            other[i] = c;
            other[..h].sort_unstable();
            self.pay(self.sorted_row(&other[..h])) < pay
        })
    }

    /// Each hold's class key, and each deal's holds: per class present, the
    /// hold the `prefer:` order picks among those of the class.
    fn classify(&self, deals: &[(Vec<Card>, u128)], feats: &HashMap<SetKey, Feature>) -> (Vec<Key>, Vec<DealHolds>) {
        let lowest = self.lowest_row();
        let key_of = |held: &[Card]| -> Key {
            let f = &feats[&self.set_key(held)];
            self.key(held, f, feats, lowest)
        };
        let per: Vec<PerDeal> = deals
            .par_iter()
            .map(|(cards, _)| {
                let options = self.options(cards);
                let best = options.iter().copied().max_by(|a, b| a.1.cmp(&b.1));
                let mut seen: Vec<(Key, u32, super::Value)> = Vec::new();
                for (mask, v) in options {
                    let held: Vec<Card> = (0..cards.len()).filter(|i| mask >> i & 1 == 0).map(|i| cards[i]).collect();
                    let k = key_of(&held);
                    if !seen.iter().any(|(s, _, _)| *s == k) {
                        seen.push((k, mask, v));
                    }
                }
                (seen, best)
            })
            .collect();
        let mut ids: HashMap<Key, u32> = HashMap::new();
        let mut keys: Vec<Key> = Vec::new();
        let mut out = Vec::with_capacity(deals.len());
        for ((_, w), (seen, best)) in deals.iter().zip(per) {
            let mut holds = Vec::with_capacity(seen.len());
            for (k, mask, v) in seen {
                let id = *ids.entry(k.clone()).or_insert_with(|| {
                    keys.push(k);
                    keys.len() as u32 - 1
                });
                holds.push(Hold { class: id, mask, value: v });
            }
            out.push(DealHolds { weight: *w, holds, best });
        }
        (keys, out)
    }

    /// The lowest-paying row that pays (the last such in the table).
    fn lowest_row(&self) -> Option<u8> {
        let min = self.rows.iter().map(|r| r.pays).filter(|&p| p > 0).min()?;
        self.rows.iter().rposition(|r| r.pays == min).map(|i| i as u8)
    }

    fn key(&self, held: &[Card], f: &Feature, feats: &HashMap<SetKey, Feature>, lowest: Option<u8>) -> Key {
        let kept = held.len() as u8;
        if held.is_empty() {
            return Key { kept, made: false, row: NONE, count: 0, low: 0 };
        }
        if f.min_pay > 0 {
            let spare = (0..held.len())
                .filter(|&i| {
                    let rest: Vec<Card> = held.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, &c)| c).collect();
                    feats.get(&self.set_key(&rest)).is_some_and(|g| g.min_pay >= f.min_pay)
                })
                .count();
            return Key { kept, made: true, row: f.worst, count: spare as u64, low: 0 };
        }
        let best = (0..self.rows.len())
            .filter(|&r| f.part[r])
            .max_by_key(|&r| (self.rows[r].pays as i128 * f.forms[r] as i128, std::cmp::Reverse(r)));
        let Some(row) = best else {
            return Key { kept, made: false, row: NONE, count: 0, low: 0 };
        };
        let single = |c: Card| feats.get(&self.set_key(&[c]));
        let low = match lowest {
            Some(l) => {
                let is_low = |c: Card| single(c).is_some_and(|g| g.part[l as usize]);
                let all = (0..self.deck.size() as Card).all(is_low);
                if all {
                    0
                } else {
                    held.iter().filter(|&&c| is_low(c)).count() as u8
                }
            }
            None => 0,
        };
        Key { kept, made: false, row: row as u8, count: f.forms[row], low }
    }

    /// A class's words.
    fn label(&self, k: &Key) -> String {
        let name = |r: u8| self.rows.get(r as usize).map_or("?", |r| r.name.as_str());
        if k.kept == 0 {
            return "nothing: exchange every card".to_string();
        }
        if k.made {
            return match k.count {
                0 => name(k.row).to_string(),
                n => format!("{} and {n} card(s) more", name(k.row)),
            };
        }
        if k.row == NONE {
            return format!("{} card(s) part of no row", k.kept);
        }
        let mut s = format!("{} to {} ({} draws)", k.kept, name(k.row), k.count);
        if k.low > 0 {
            if let Some(l) = self.lowest_row() {
                s.push_str(&format!(", {} of them to {}", k.low, name(l)));
            }
        }
        s
    }

    /// The chart of an order of classes, with its exact figures.
    fn chart_of(&self, keys: &[Key], deals: &[DealHolds], order: &[u32]) -> Chart {
        let mut rank = vec![u32::MAX; keys.len()];
        for (i, &c) in order.iter().enumerate() {
            rank[c as usize] = i as u32;
        }
        let h = self.hand;
        // Per line and per exchange size: weighted payout sums and deals.
        let mut line_sum = vec![vec![BigInt::from(0); h + 1]; order.len()];
        let mut line_deals = vec![vec![0u128; h + 1]; order.len()];
        let mut best_sum = vec![BigInt::from(0); h + 1];
        let mut best_deals = vec![0u128; h + 1];
        for d in deals {
            let pick =
                d.holds.iter().filter(|x| rank[x.class as usize] != u32::MAX).min_by_key(|x| rank[x.class as usize]);
            if let Some(x) = pick {
                let (i, k) = (rank[x.class as usize] as usize, x.mask.count_ones() as usize);
                line_sum[i][k] += BigInt::from(x.value.sum) * BigInt::from(d.weight);
                line_deals[i][k] += d.weight;
            }
            if let Some((mask, value)) = d.best {
                let k = mask.count_ones() as usize;
                best_sum[k] += BigInt::from(value.sum) * BigInt::from(d.weight);
                best_deals[k] += d.weight;
            }
        }
        let total: u128 = deals.iter().map(|d| d.weight).sum();
        let money = |sums: &[BigInt], counts: &[u128]| -> (BigRational, BigRational) {
            let mut pay = BigRational::from_integer(0.into());
            let mut stake = BigRational::from_integer(0.into());
            for k in 0..=h {
                pay += BigRational::new(sums[k].clone(), BigInt::from(self.ways[k].max(1)));
                stake += BigRational::from_integer(
                    BigInt::from(counts[k]) * BigInt::from(self.entry + self.cost * k as i64),
                );
            }
            (pay, stake)
        };
        let (opt_pay, opt_stake) = money(&best_sum, &best_deals);
        let mut chart_pay = BigRational::from_integer(0.into());
        let mut chart_stake = BigRational::from_integer(0.into());
        let mut lines = Vec::new();
        for (i, &c) in order.iter().enumerate() {
            let (pay, stake) = money(&line_sum[i], &line_deals[i]);
            let n: u128 = line_deals[i].iter().sum();
            let key = &keys[c as usize];
            lines.push(ChartLine {
                label: self.label(key),
                kept: key.kept as usize,
                deals: BigRational::new(BigInt::from(n), BigInt::from(total)),
                value: (n > 0).then(|| (&pay - &stake) / BigRational::from_integer(BigInt::from(n))),
            });
            chart_pay += pay;
            chart_stake += stake;
        }
        Chart {
            lines,
            optimal: ratio(&opt_pay, &opt_stake),
            chart: ratio(&chart_pay, &chart_stake),
            classes: keys.len(),
            deals: total,
        }
    }
}

fn ratio(a: &BigRational, b: &BigRational) -> Option<BigRational> {
    use num_traits::Zero;
    (!b.is_zero()).then(|| a / b)
}

/// The next d-subset of 0..n in lexicographic order; false after the last.
fn next_pick(pick: &mut [usize], n: usize) -> bool {
    let d = pick.len();
    let mut i = d;
    loop {
        if i == 0 {
            return false;
        }
        i -= 1;
        if pick[i] < n - d + i {
            pick[i] += 1;
            for j in i + 1..d {
                pick[j] = pick[j - 1] + 1;
            }
            return true;
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Hold {
    class: u32,
    mask: u32,
    value: super::Value,
}

#[derive(Debug, Clone)]
struct DealHolds {
    weight: u128,
    holds: Vec<Hold>,
    /// The optimal choice (discard mask) and its value.
    best: Option<(u32, super::Value)>,
}

/// Deals with the same classes present, their values added up (weighted,
/// as floats: for the search only).
struct Group {
    classes: Vec<u32>,
    values: Vec<f64>,
}

/// The order of classes: see the module's documentation.
fn search(keys: &[Key], deals: &[DealHolds], lines: usize) -> Vec<u32> {
    let nc = keys.len();
    let empty = keys.iter().position(|k| k.kept == 0).map(|i| i as u32);
    let mut groups: HashMap<Vec<u32>, Vec<f64>> = HashMap::new();
    for d in deals {
        let mut cs: Vec<(u32, f64)> = d.holds.iter().map(|x| (x.class, ev(&x.value) * d.weight as f64)).collect();
        cs.sort_by_key(|c| c.0);
        let key: Vec<u32> = cs.iter().map(|c| c.0).collect();
        let e = groups.entry(key).or_insert_with(|| vec![0.0; cs.len()]);
        for (i, c) in cs.iter().enumerate() {
            e[i] += c.1;
        }
    }
    let groups: Vec<Group> = groups.into_iter().map(|(classes, values)| Group { classes, values }).collect();
    let mut by_class: Vec<Vec<(u32, u32)>> = vec![Vec::new(); nc];
    for (g, grp) in groups.iter().enumerate() {
        for (i, &c) in grp.classes.iter().enumerate() {
            by_class[c as usize].push((g as u32, i as u32));
        }
    }
    // Start: by mean value where present.
    let mut mean = vec![(0.0f64, 0.0f64); nc];
    for d in deals {
        for x in &d.holds {
            let m = &mut mean[x.class as usize];
            m.0 += ev(&x.value) * d.weight as f64;
            m.1 += d.weight as f64;
        }
    }
    let mut order: Vec<u32> = (0..nc as u32).filter(|&c| Some(c) != empty).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (mean[a as usize], mean[b as usize]);
        (y.0 / y.1).total_cmp(&(x.0 / x.1))
    });
    let mut s = Search { groups: &groups, by_class: &by_class, order, empty };
    s.improve();
    loop {
        s.drop_unused();
        if s.order.len() < lines {
            break;
        }
        s.drop_cheapest();
        if s.order.len().is_multiple_of(8) {
            s.improve();
        }
    }
    s.improve();
    s.drop_unused();
    if s.order.len() + 1 >= lines {
        s.swap_in(lines * 2);
    }
    s.drop_unused();
    let mut out = s.order;
    if let Some(e) = empty {
        out.push(e);
    }
    out
}

fn ev(v: &super::Value) -> f64 {
    v.sum as f64 / v.ways.max(1) as f64 - v.cost as f64
}

struct Search<'a> {
    groups: &'a [Group],
    by_class: &'a [Vec<(u32, u32)>],
    /// The lines but the last (exchange every card, when allowed).
    order: Vec<u32>,
    empty: Option<u32>,
}

impl Search<'_> {
    fn ranks(&self) -> Vec<u32> {
        let mut rank = vec![u32::MAX; self.by_class.len()];
        for (i, &c) in self.order.iter().enumerate() {
            rank[c as usize] = i as u32;
        }
        if let Some(e) = self.empty {
            rank[e as usize] = u32::MAX - 1;
        }
        rank
    }

    /// The value a group gets from the lines, and the line that gives it,
    /// skipping class `skip`.
    fn winner(&self, g: &Group, rank: &[u32], skip: u32) -> (u32, f64) {
        let mut best = (u32::MAX, 0.0);
        for (i, &c) in g.classes.iter().enumerate() {
            if c != skip && rank[c as usize] < best.0 {
                best = (rank[c as usize], g.values[i]);
            }
        }
        best
    }

    /// Moves each line to where it adds the most, until no move helps.
    fn improve(&mut self) {
        for _ in 0..20 {
            let mut moved = false;
            for c in self.order.clone() {
                moved |= self.best_place(c);
            }
            if !moved {
                break;
            }
        }
    }

    /// Puts class `c` at its best place; whether that moved it.
    fn best_place(&mut self, c: u32) -> bool {
        let at = self.order.iter().position(|&x| x == c).unwrap_or(0);
        self.order.remove(at);
        let gains = self.gains(c);
        let (mut best, mut best_p) = (gains[at], at);
        for (p, &g) in gains.iter().enumerate() {
            if g > best + 1e-9 {
                (best, best_p) = (g, p);
            }
        }
        self.order.insert(best_p, c);
        best_p != at
    }

    /// For class `c`, not in the order: what putting it at each place p
    /// (0 to the lines' number) adds, on each group of c where every other
    /// line present comes at or after p.
    fn gains(&self, c: u32) -> Vec<f64> {
        let rank = self.ranks();
        let mut gain_at = vec![0.0f64; self.order.len() + 2];
        for &(g, i) in &self.by_class[c as usize] {
            let grp = &self.groups[g as usize];
            let (r, v) = self.winner(grp, &rank, c);
            let d = grp.values[i as usize] - v;
            let upto = (r as usize).min(self.order.len());
            gain_at[0] += d;
            gain_at[upto + 1] -= d;
        }
        let mut acc = 0.0;
        gain_at
            .iter()
            .take(self.order.len() + 1)
            .map(|g| {
                acc += g;
                acc
            })
            .collect()
    }

    /// Swaps a class left out for a line, while one adds more than the
    /// cheapest line costs.
    fn swap_in(&mut self, max_swaps: usize) {
        for _ in 0..max_swaps {
            let (loss, _) = self.cheapest();
            let mut best: Option<(f64, usize, u32)> = None;
            for c in 0..self.by_class.len() as u32 {
                if Some(c) == self.empty || self.order.contains(&c) {
                    continue;
                }
                let gains = self.gains(c);
                if let Some((p, &g)) = gains.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)) {
                    if best.is_none_or(|b| g > b.0) {
                        best = Some((g, p, c));
                    }
                }
            }
            match best {
                Some((g, p, c)) if g > loss + 1e-9 => {
                    self.order.insert(p, c);
                    self.drop_cheapest();
                    self.improve();
                }
                _ => return,
            }
        }
    }

    /// Drops the lines no deal is played by.
    fn drop_unused(&mut self) {
        let rank = self.ranks();
        let mut used = vec![false; self.by_class.len()];
        for g in self.groups {
            let (r, _) = self.winner(g, &rank, u32::MAX);
            if (r as usize) < self.order.len() {
                used[self.order[r as usize] as usize] = true;
            }
        }
        self.order.retain(|&c| used[c as usize]);
    }

    /// The smallest loss of dropping a line, and that line's place.
    fn cheapest(&self) -> (f64, usize) {
        let rank = self.ranks();
        let mut loss = vec![0.0f64; self.order.len()];
        for g in self.groups {
            let (r, v) = self.winner(g, &rank, u32::MAX);
            if (r as usize) < self.order.len() {
                let c = self.order[r as usize];
                let (_, next) = self.winner(g, &rank, c);
                loss[r as usize] += v - next;
            }
        }
        (0..loss.len()).map(|i| (loss[i], i)).min_by(|a, b| a.0.total_cmp(&b.0)).unwrap_or((f64::MAX, 0))
    }

    /// Drops the line whose loss is smallest.
    fn drop_cheapest(&mut self) {
        let (loss, i) = self.cheapest();
        if loss < f64::MAX {
            self.order.remove(i);
        }
    }
}
