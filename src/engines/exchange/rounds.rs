//! More than one draw round (`play { rounds: N }`): after each draw the
//! player sees the new hand and chooses again (stay, or exchange any
//! allowed number of cards at the same cost per card); the cards exchanged
//! are out of the game, and the hand after the last round is paid, by the
//! total number of cards exchanged when `pays:` reads `exchanged`. The
//! output is the first round's choice.
//!
//! A choice's value is an expectation of maxima (the next round's best
//! choice after each draw), so the inclusion and exclusion tables of one
//! round do not give it: every draw of every choice is walked, to the last
//! round, whose hands are paid from the rank-key table. The work per deal
//! is bounded by [`MAX_ROUND_WORK`] hands, checked when the file is.
//!
//! Values are exact integers: with n cards left to draw before decision
//! round r (0: the deal's), a value there is a whole number of units
//! `1 / scale[r][n]`, where
//!
//! ```text
//! scale[rounds][n] = 1
//! scale[r][n]      = lcm over the allowed k of C(n, k) * scale[r + 1][n - k]
//! ```
//!
//! so exchanging k cards, worth `(1 / C(n, k)) * (sum over the draws of the
//! next round's value) - cost * k`, is a whole number of units too. Among
//! equally good choices of a later round, the file's `prefer` order picks
//! (the cards drawn take the places of the cards exchanged, in deck order):
//! it decides which rows the final hands form, never a value.

use super::combi::binom;
use super::eval::NONE;
use super::{Exchange, TooLarge, Value, MAX_HAND};
use crate::engines::cards::Card;

/// The most draw rounds a file may ask for.
pub(super) const MAX_ROUNDS: usize = 4;

/// The most final hands one deal may need (every draw of every choice of
/// every round): about a second of work.
pub(super) const MAX_ROUND_WORK: u128 = 1 << 24;

/// The largest common denominator times the largest value.
const MAX_SCALED: u128 = 1 << 62;

/// What `plan` works out for the file: the common denominators and the
/// most final hands a deal needs.
#[derive(Debug, Default, Clone)]
pub(crate) struct Plan {
    scale: Vec<Vec<i128>>,
    work: u128,
}

/// The tables of a game of several draw rounds.
#[derive(Debug)]
pub(super) struct Rounds {
    rounds: usize,
    /// The most final hands a deal needs.
    work: u128,
    /// `scale[r][n]`, r from 0 to `rounds`, n from 0 to the cards left
    /// after the deal (0 where no path leads).
    scale: Vec<Vec<i128>>,
    /// `pays[t][row byte]`: the payout of a row when t cards were
    /// exchanged in all (`NONE`: 0).
    pays: Vec<[i64; 256]>,
    /// Rows plus one (the slot of "no row").
    width: usize,
}

/// The allowed sizes' totals over `rounds` rounds, increasing.
pub(super) fn totals(sizes: &[usize], rounds: usize) -> Vec<usize> {
    let mut reach = vec![0usize];
    for _ in 0..rounds {
        let mut next: Vec<usize> = reach.iter().flat_map(|&t| sizes.iter().map(move |&k| t + k)).collect();
        next.sort_unstable();
        next.dedup();
        reach = next;
    }
    reach
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The common denominators, the bound on every scaled value, and the work
/// per deal: refused when a value might not fit 62 bits or a deal would
/// need more than [`MAX_ROUND_WORK`] final hands.
pub(super) fn plan(
    left: usize,
    hand: usize,
    sizes: &[usize],
    rounds: usize,
    most: (i64, i64, i64),
) -> Result<Plan, TooLarge> {
    let (max_pay, entry, cost) = most;
    let max_k = sizes.iter().copied().max().unwrap_or(0);
    let biggest = (max_pay as u128) + entry as u128 + cost as u128 * (max_k * rounds) as u128;
    let mut scale = vec![vec![0u128; left + 1]; rounds + 1];
    let mut work = vec![vec![0u128; left + 1]; rounds + 1];
    let lowest = |r: usize| left.saturating_sub(r * max_k);
    for n in lowest(rounds)..=left {
        scale[rounds][n] = 1;
        work[rounds][n] = 1;
    }
    for r in (0..rounds).rev() {
        for n in lowest(r)..=left {
            let (mut l, mut w) = (1u128, 1u128);
            for &k in sizes.iter().filter(|&&k| k <= n) {
                let term = binom(n as u64, k as u64)
                    .checked_mul(scale[r + 1][n - k])
                    .filter(|&t| t <= MAX_SCALED)
                    .ok_or_else(|| too_large(rounds))?;
                l = (l / gcd(l, term))
                    .checked_mul(term)
                    .filter(|&x| x <= MAX_SCALED)
                    .ok_or_else(|| too_large(rounds))?;
                let ways = binom(hand as u64, k as u64).saturating_mul(binom(n as u64, k as u64));
                w = w.saturating_add(ways.saturating_mul(work[r + 1][n - k]));
            }
            if l.checked_mul(biggest).is_none_or(|x| x > MAX_SCALED) {
                return Err(too_large(rounds));
            }
            scale[r][n] = l;
            work[r][n] = w;
        }
    }
    if work[0][left] > MAX_ROUND_WORK {
        return Err(TooLarge(format!(
            "{rounds} rounds: a deal could need {} final hands (every draw of every choice of every round); \
             the engine's limit is 2^24",
            work[0][left]
        )));
    }
    let work = work[0][left];
    Ok(Plan { scale: scale.into_iter().map(|v| v.into_iter().map(|x| x as i128).collect()).collect(), work })
}

fn too_large(rounds: usize) -> TooLarge {
    TooLarge(format!(
        "{rounds} rounds: the exact values' common denominator (the draws of every round) would pass 2^62, \
         the engine's limit"
    ))
}

/// A hand being walked: its cards in place, the cards left to draw, and
/// the cards exchanged so far.
#[derive(Clone, Copy)]
struct State<'a> {
    round: usize,
    hand: &'a [Card],
    left: &'a [Card],
    exchanged: usize,
}

impl Rounds {
    pub(super) fn new(ex: &Exchange, rounds: usize, plan: Plan) -> Rounds {
        let max_k = ex.sizes.iter().copied().max().unwrap_or(0);
        let pays = (0..=(max_k * rounds).min(MAX_HAND))
            .map(|t| {
                let mut p = [0i64; 256];
                for (i, row) in ex.rows.iter().enumerate().take(255) {
                    p[i] = row.pays_at(t);
                }
                p
            })
            .collect();
        Rounds { rounds, work: plan.work, scale: plan.scale, pays, width: ex.rows.len() + 1 }
    }

    /// The cards a deal leaves to draw, in deck order.
    fn left_of(ex: &Exchange, cards: &[Card]) -> Vec<Card> {
        (0..ex.deck.size() as Card).filter(|c| !cards.contains(c)).collect()
    }

    /// The paying row byte of a hand.
    #[inline]
    fn row(ex: &Exchange, hand: &[Card]) -> u8 {
        let mut sorted = [0 as Card; MAX_HAND];
        let sorted = &mut sorted[..hand.len()];
        sorted.copy_from_slice(hand);
        sorted.sort_unstable();
        ex.eval.row_of_cards(sorted)
    }

    /// Calls `f` with each allowed discard mask of a state and its value in
    /// units of `1 / scale[round][left]`. On the rank path, masks keeping
    /// the same ranks are valued once.
    fn each_choice(&self, ex: &Exchange, s: State, f: &mut dyn FnMut(u32, i128)) {
        let h = s.hand.len();
        let mut seen: Vec<(u128, i128)> = Vec::new();
        for mask in 0..1u32 << h {
            let k = mask.count_ones() as usize;
            if ex.allowed >> k & 1 == 0 || k > s.left.len() {
                continue;
            }
            let key = (!ex.by_cards()).then(|| kept_ranks(ex, s.hand, mask));
            if let Some(&(_, v)) = key.and_then(|key| seen.iter().find(|e| e.0 == key)) {
                f(mask, v);
                continue;
            }
            let v = self.choice_value(ex, s, mask);
            if let Some(key) = key {
                seen.push((key, v));
            }
            f(mask, v);
        }
    }

    /// The best value of a state, in units of `1 / scale[round][left]`.
    fn node(&self, ex: &Exchange, s: State) -> i128 {
        if s.round == self.rounds {
            return self.pays[s.exchanged][Self::row(ex, s.hand) as usize] as i128;
        }
        let mut best: Option<i128> = None;
        self.each_choice(ex, s, &mut |_, v| best = Some(best.map_or(v, |b| b.max(v))));
        best.unwrap_or(0)
    }

    /// The value of discarding `mask` in a state, in units of
    /// `1 / scale[round][left]`.
    fn choice_value(&self, ex: &Exchange, s: State, mask: u32) -> i128 {
        let (n, k) = (s.left.len(), mask.count_ones() as usize);
        let l = self.scale[s.round][n];
        let factor = l / (binom(n as u64, k as u64) as i128 * self.scale[s.round + 1][n - k]);
        let mut sum = 0i128;
        let last = s.round + 1 == self.rounds;
        let pays = &self.pays[(s.exchanged + k).min(self.pays.len() - 1)];
        self.each_draw(ex, s, mask, !last, &mut |next, ways| {
            sum += ways * if last { pays[Self::row(ex, next.hand) as usize] as i128 } else { self.node(ex, next) };
        });
        sum * factor - ex.cost as i128 * k as i128 * l
    }

    /// The preferred best mask of a state.
    fn best_mask(&self, ex: &Exchange, s: State) -> u32 {
        let mut best: Option<(i128, u32)> = None;
        self.each_choice(ex, s, &mut |m, v| {
            let better = best.is_none_or(|(bv, bm)| v > bv || (v == bv && ex.preference.cmp(m, bm).is_lt()));
            if better {
                best = Some((v, m));
            }
        });
        best.map_or(0, |b| b.1)
    }

    /// Adds the final hands of a state under optimal play, by total cards
    /// exchanged and row (`out[t * width + row]`, the last row: none), in
    /// units of `1 / scale[round][left]`.
    fn outcomes(&self, ex: &Exchange, s: State, out: &mut [i128]) {
        if s.round == self.rounds {
            let row = Self::row(ex, s.hand);
            let slot = if row == NONE { self.width - 1 } else { row as usize };
            out[s.exchanged * self.width + slot] += 1;
            return;
        }
        let mask = self.best_mask(ex, s);
        self.choice_outcomes(ex, s, mask, out);
    }

    /// [`Rounds::outcomes`] of discarding `mask`.
    fn choice_outcomes(&self, ex: &Exchange, s: State, mask: u32, out: &mut [i128]) {
        let (n, k) = (s.left.len(), mask.count_ones() as usize);
        let factor = self.scale[s.round][n] / (binom(n as u64, k as u64) as i128 * self.scale[s.round + 1][n - k]);
        let mut part = vec![0i128; out.len()];
        let mut one = vec![0i128; out.len()];
        self.each_draw(ex, s, mask, true, &mut |next, ways| {
            one.fill(0);
            self.outcomes(ex, next, &mut one);
            for (p, o) in part.iter_mut().zip(&one) {
                *p += ways * o;
            }
        });
        for (o, p) in out.iter_mut().zip(&part) {
            *o += p * factor;
        }
    }

    /// The outcomes' length: totals exchanged times rows.
    pub(super) fn slots(&self) -> usize {
        self.pays.len() * self.width
    }

    /// Every allowed first choice of a deal (a discard mask over input
    /// positions) with its exact value.
    pub(super) fn for_each_option(&self, ex: &Exchange, cards: &[Card], f: &mut dyn FnMut(u32, Value)) {
        let left = Self::left_of(ex, cards);
        let l = self.scale[0][left.len()];
        let s = State { round: 0, hand: cards, left: &left, exchanged: 0 };
        self.each_choice(ex, s, &mut |mask, v| {
            let k = mask.count_ones() as i64;
            // v / l - entry, written as sum / ways - cost.
            let cost = ex.entry + ex.cost * k;
            f(mask, Value { sum: (v + ex.cost as i128 * k as i128 * l) as i64, ways: l as i64, cost });
        });
    }

    /// The first round's choice of a deal.
    pub(super) fn best(&self, ex: &Exchange, cards: &[Card]) -> u32 {
        let left = Self::left_of(ex, cards);
        self.best_mask(ex, State { round: 0, hand: cards, left: &left, exchanged: 0 })
    }

    /// The final hands of a first choice under optimal play afterwards:
    /// counts by total exchanged and row over `scale[0][left]` (returned).
    pub(super) fn first_outcomes(&self, ex: &Exchange, cards: &[Card], mask: u32) -> (Vec<i128>, i128) {
        let left = Self::left_of(ex, cards);
        let mut out = vec![0i128; self.slots()];
        let s = State { round: 0, hand: cards, left: &left, exchanged: 0 };
        self.choice_outcomes(ex, s, mask, &mut out);
        (out, self.scale[0][left.len()])
    }

    /// Rows plus one.
    pub(super) fn width(&self) -> usize {
        self.width
    }

    /// Calls `f` with the next round's state after each draw of discarding
    /// `mask` and the number of draws it stands for. On the card path every
    /// set of cards is a draw; on the rank path (rows read ranks only, no
    /// wild card) the draws of the same ranks lead to states that differ
    /// only in suits, so one stands for all: the first cards of each rank
    /// left, `prod C(left of rank r, drawn of rank r)` draws.
    fn each_draw(&self, ex: &Exchange, s: State, mask: u32, with_left: bool, f: &mut dyn FnMut(State, i128)) {
        if ex.by_cards() {
            return each_draw(s, mask, with_left, &mut |next| f(next, 1));
        }
        let k = mask.count_ones() as usize;
        // Runs of cards of one rank in `left` (deck order: rank by rank).
        let mut groups: Vec<(usize, usize)> = Vec::new();
        for (i, &c) in s.left.iter().enumerate() {
            match groups.last_mut() {
                Some((start, n)) if ex.deck.rank(s.left[*start]) == ex.deck.rank(c) => *n += 1,
                _ => groups.push((i, 1)),
            }
        }
        let places: Vec<usize> = (0..s.hand.len()).filter(|&i| mask >> i & 1 == 1).collect();
        let mut take = vec![0usize; groups.len()];
        let mut walk = RankDraws { s, places: &places, groups: &groups, take: &mut take, with_left, f };
        walk.from(0, k, 1);
    }
}

/// The draws of one discard by multisets of ranks (see
/// [`Rounds::each_draw`]).
struct RankDraws<'a, 'f> {
    s: State<'a>,
    places: &'a [usize],
    /// (first index in `left`, cards) of each rank left.
    groups: &'a [(usize, usize)],
    /// Cards drawn of each group.
    take: &'a mut [usize],
    with_left: bool,
    f: &'f mut dyn FnMut(State, i128),
}

impl RankDraws<'_, '_> {
    /// Chooses how many cards of groups `g..` to draw, `k` in all.
    fn from(&mut self, g: usize, k: usize, ways: i128) {
        if k == 0 {
            self.take[g..].fill(0);
            return self.emit(ways);
        }
        if g == self.groups.len() {
            return;
        }
        let n = self.groups[g].1;
        for d in (0..=n.min(k)).rev() {
            self.take[g] = d;
            self.from(g + 1, k - d, ways * binom(n as u64, d as u64) as i128);
        }
    }

    fn emit(&mut self, ways: i128) {
        let s = self.s;
        let mut hand = s.hand.to_vec();
        let mut rest: Vec<Card> = Vec::new();
        let mut at = 0;
        for (g, &(start, n)) in self.groups.iter().enumerate() {
            let d = self.take[g];
            for &c in &s.left[start..start + d] {
                hand[self.places[at]] = c;
                at += 1;
            }
            if self.with_left {
                rest.extend_from_slice(&s.left[start + d..start + n]);
            }
        }
        let k = self.places.len();
        (self.f)(State { round: s.round + 1, hand: &hand, left: &rest, exchanged: s.exchanged + k }, ways);
    }
}

/// The kept cards' ranks of a mask, sorted, as one number (6 bits a rank).
fn kept_ranks(ex: &Exchange, hand: &[Card], mask: u32) -> u128 {
    let mut ranks = [0u8; MAX_HAND];
    let mut n = 0;
    for (i, &c) in hand.iter().enumerate() {
        if mask >> i & 1 == 0 {
            ranks[n] = ex.deck.rank(c) as u8 + 1;
            n += 1;
        }
    }
    ranks[..n].sort_unstable();
    ranks[..n].iter().fold(0u128, |a, &r| a << 6 | r as u128)
}

/// Calls `f` with the next round's state after each draw of discarding
/// `mask` (the drawn cards take the discarded places, in deck order); the
/// cards left to draw are worked out only when `with_left`.
fn each_draw(s: State, mask: u32, with_left: bool, f: &mut dyn FnMut(State)) {
    let (n, k) = (s.left.len(), mask.count_ones() as usize);
    let places: Vec<usize> = (0..s.hand.len()).filter(|&i| mask >> i & 1 == 1).collect();
    let mut hand = s.hand.to_vec();
    let mut rest: Vec<Card> = Vec::with_capacity(n);
    let mut pick: Vec<u16> = (0..k as u16).collect();
    loop {
        for (j, &p) in places.iter().enumerate() {
            hand[p] = s.left[pick[j] as usize];
        }
        rest.clear();
        if with_left {
            let mut j = 0;
            for (i, &c) in s.left.iter().enumerate() {
                if j < k && pick[j] as usize == i {
                    j += 1;
                } else {
                    rest.push(c);
                }
            }
        }
        f(State { round: s.round + 1, hand: &hand, left: &rest, exchanged: s.exchanged + k });
        if !super::combi::next_set(&mut pick, n) {
            return;
        }
    }
}

/// A group of deals valued as one: a deal in deck order and how many deals
/// it stands for.
type Group = (Vec<Card>, u128);

impl Exchange {
    /// `analyze` of a game of several rounds: every deal in deck order (on
    /// the rank path, one per multiset of ranks, standing for its deals),
    /// its first choice as `run` makes it, and the final hands of optimal
    /// play by total exchanged and row.
    pub(super) fn rounds_return(
        &self,
        rounds: &Rounds,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<super::ExpectedReturn, String> {
        use num_bigint::BigInt;
        use num_rational::BigRational;
        use rayon::prelude::*;
        let groups = self.round_groups(rounds)?;
        let left = self.deck.size() - self.hand;
        let deals = binom(self.deck.size() as u64, self.hand as u64);
        let slots = rounds.slots();
        let mut total = vec![BigInt::from(0); slots];
        let mut ties = [0u128; 2];
        let mut done = 0u128;
        for chunk in groups.chunks(64) {
            let parts: Vec<(Vec<i128>, [bool; 2])> =
                chunk.par_iter().map(|(cards, _)| self.group_outcomes(rounds, cards)).collect();
            for ((_, weight), (part, tie)) in chunk.iter().zip(parts) {
                for (t, p) in total.iter_mut().zip(part) {
                    *t += BigInt::from(p) * BigInt::from(*weight);
                }
                ties[0] += *weight * tie[0] as u128;
                ties[1] += *weight * tie[1] as u128;
                done += *weight;
            }
            progress(done as u64, deals as u64);
        }
        let width = rounds.width();
        let counts: Vec<Vec<BigInt>> = total.chunks(width).map(<[BigInt]>::to_vec).collect();
        let denominator = BigInt::from(deals) * BigInt::from(rounds.scale[0][left]);
        let d = BigRational::from_integer(denominator.clone());
        let (mut payout, mut stake) = (BigInt::from(0), BigInt::from(0));
        let mut rows = vec![BigInt::from(0); width];
        for (t, row_counts) in counts.iter().enumerate() {
            for (row, n) in row_counts.iter().enumerate() {
                payout += n * BigInt::from(self.rows.get(row).map_or(0, |r| r.pays_at(t)));
                stake += n * BigInt::from(self.entry + self.cost * t as i64);
                rows[row] += n;
            }
        }
        let q = |n: BigInt| BigRational::from_integer(n) / &d;
        Ok(super::ExpectedReturn {
            payout: q(payout),
            stake: q(stake),
            deals,
            rows: Some(rows.into_iter().map(q).collect()),
            joint: Some(super::Joint { denominator, counts }),
            tie_deals: Some(ties),
        })
    }

    /// The deals an analysis values: one per multiset of ranks on the rank
    /// path (every deal of it in deck order has the same ranks in the same
    /// places, so the same choices), every deal on the card path.
    fn round_groups(&self, rounds: &Rounds) -> Result<Vec<Group>, String> {
        let (h, nr, ns) = (self.hand, self.deck.ranks.len(), self.deck.suits.len());
        let count =
            if self.by_cards() { binom(self.deck.size() as u64, h as u64) } else { super::combi::multisets(nr, h) };
        let work = count.saturating_mul(rounds.work);
        if work > super::analyze::MAX_ANALYSIS << 2 {
            return Err(format!(
                "not computed: {count} deals times up to {} final hands each ({} rounds) pass the analysis limit of 2^32",
                rounds.work, rounds.rounds
            ));
        }
        let mut groups = Vec::new();
        if self.by_cards() {
            let n = self.deck.size() as Card;
            let mut deal: Vec<Card> = (0..h as Card).collect();
            loop {
                groups.push((deal.clone(), 1));
                if !super::combi::next_set(&mut deal, n as usize) {
                    return Ok(groups);
                }
            }
        }
        super::combi::for_each_multiset(nr, h, &mut |sorted| {
            let mut counts = vec![0usize; nr];
            for &r in sorted {
                counts[r as usize] += 1;
            }
            if counts.iter().any(|&c| c > ns) {
                return;
            }
            let weight: u128 = counts.iter().map(|&c| binom(ns as u64, c as u64)).product();
            let mut cards = Vec::with_capacity(h);
            for (r, &c) in counts.iter().enumerate() {
                cards.extend((0..c).map(|s| (r * ns + s) as Card));
            }
            groups.push((cards, weight));
        });
        Ok(groups)
    }

    /// The final hands of a deal's first choice (in units of
    /// `1 / scale[0][left]`), and whether equally good first choices end
    /// in rows with different probabilities, and in different variances.
    fn group_outcomes(&self, rounds: &Rounds, cards: &[Card]) -> (Vec<i128>, [bool; 2]) {
        let mut options: Vec<(u32, Value)> = Vec::new();
        rounds.for_each_option(self, cards, &mut |m, v| options.push((m, v)));
        let Some(top) = options.iter().map(|o| o.1).max() else { return (vec![0; rounds.slots()], [false; 2]) };
        let tied: Vec<u32> = options.iter().filter(|o| o.1 == top).map(|o| o.0).collect();
        let chosen = self.pick_among(tied.iter().copied());
        let (out, _) = rounds.first_outcomes(self, cards, chosen);
        let mut tie = [false; 2];
        if tied.len() > 1 {
            let width = rounds.width();
            let by_row =
                |o: &[i128]| -> Vec<i128> { (0..width).map(|r| o.iter().skip(r).step_by(width).sum()).collect() };
            let square = |o: &[i128]| -> i128 {
                o.iter()
                    .enumerate()
                    .map(|(i, &n)| {
                        let (t, row) = (i / width, i % width);
                        let x = self.rows.get(row).map_or(0, |r| r.pays_at(t)) as i128 - self.cost as i128 * t as i128;
                        n * x * x
                    })
                    .sum()
            };
            for &m in tied.iter().filter(|&&m| m != chosen) {
                let (other, _) = rounds.first_outcomes(self, cards, m);
                tie[0] |= by_row(&other) != by_row(&out);
                tie[1] |= square(&other) != square(&out);
            }
        }
        (out, tie)
    }
}

/// A choice's final hands under optimal play afterwards, as exact figures.
struct Outlook {
    /// Per row (the last: none): the probability of ending there.
    rows: Vec<num_rational::BigRational>,
    /// The expected payout, and the expected stake (entry and every
    /// round's exchanges).
    payout: num_rational::BigRational,
    stake: num_rational::BigRational,
}

impl Exchange {
    fn outlook(&self, rounds: &Rounds, cards: &[Card], mask: u32) -> Outlook {
        use num_bigint::BigInt;
        use num_rational::BigRational;
        let (out, den) = rounds.first_outcomes(self, cards, mask);
        let width = rounds.width();
        let q = |n: i128| BigRational::new(BigInt::from(n), BigInt::from(den));
        let mut rows = vec![0i128; width];
        let (mut payout, mut stake) = (0i128, 0i128);
        for (i, &n) in out.iter().enumerate() {
            let (t, row) = (i / width, i % width);
            rows[row] += n;
            payout += n * self.rows.get(row).map_or(0, |r| r.pays_at(t)) as i128;
            stake += n * (self.entry + self.cost * t as i64) as i128;
        }
        Outlook { rows: rows.into_iter().map(q).collect(), payout: q(payout), stake: q(stake) }
    }

    /// The explanation of a deal of a game of several rounds: every first
    /// choice's value with optimal play afterwards, the rows the chosen
    /// one ends in, and the tie-break.
    pub(super) fn explain_rounds(&self, rounds: &Rounds, deal: &super::Deal) -> crate::game::Explanation {
        use crate::game::explain::Choice;
        use crate::game::figures::{fraction, Figure, Style, Value as FValue};
        use num_traits::Zero;
        let (mask, options) = self.decide(&deal.cards);
        let line_of = |m: u32| -> String {
            let mut b = Vec::new();
            self.render(&mut b, m, deal);
            String::from_utf8_lossy(&b).trim_end().to_string()
        };
        let output = line_of(mask);
        let mut e = crate::game::Explanation { output, ..Default::default() };
        let later = rounds.rounds - 1;
        e.rules.push((
            self.spans.rounds,
            format!(
                "{} draw rounds: each first choice is valued with the best play in the {later} round{} after it",
                rounds.rounds,
                if later == 1 { "" } else { "s" }
            ),
        ));
        let mut ranked = options.clone();
        ranked.sort_by_key(|o| std::cmp::Reverse(o.1));
        let best = options.iter().find(|(m, _)| *m == mask).map(|&(_, v)| v);
        let outlooks: Vec<Outlook> = ranked.iter().map(|&(m, _)| self.outlook(rounds, &deal.cards, m)).collect();
        let Some(chosen) = ranked.iter().position(|o| o.0 == mask).map(|i| &outlooks[i]) else { return e };
        for (row, p) in chosen.rows.iter().enumerate() {
            if p.is_zero() {
                continue;
            }
            let span = self.spans.rows.get(row).copied().unwrap_or(self.spans.exchange);
            let name = self.rows.get(row).map_or("no combination", |r| r.name.as_str());
            e.rules.push((span, format!("the final hand is `{name}` with probability {}", fraction(p))));
        }
        e.rules.push((
            self.spans.cost,
            format!("the expected stake, entry and every round's exchanges: {}", fraction(&chosen.stake)),
        ));
        if let Some(best) = best {
            let tied: Vec<String> =
                ranked.iter().filter(|(_, v)| *v == best).take(12).map(|&(m, _)| format!("`{}`", line_of(m))).collect();
            if tied.len() > 1 {
                e.rules.push((
                    self.spans.prefer,
                    format!("{} are equally good: this order picks the first", tied.join(", ")),
                ));
            }
            let (n, d) = best.fraction();
            e.summary = format!(
                "`{}` has the highest expected value, {} - {} = {}",
                e.output,
                fraction(&chosen.payout),
                fraction(&chosen.stake),
                if d == 1 { format!("{n}") } else { format!("{n}/{d}") }
            );
        }
        for ((m, _), o) in ranked.iter().zip(&outlooks) {
            let shown = line_of(*m);
            let value = &o.payout - &o.stake;
            let finals: Vec<String> = o
                .rows
                .iter()
                .enumerate()
                .filter(|(_, p)| !p.is_zero())
                .map(|(r, p)| format!("{} {}", self.rows.get(r).map_or("no row", |r| r.name.as_str()), fraction(p)))
                .collect();
            e.values.push((
                shown.clone(),
                format!(
                    "{} - {} = {} ({}); final rows: {}",
                    fraction(&o.payout),
                    fraction(&o.stake),
                    fraction(&value),
                    Style::Decimal(4).format(&value),
                    finals.join(", ")
                ),
            ));
            let figures = vec![
                Figure::new("expected_payout", "expected payout", FValue::exact(o.payout.clone(), Style::Fraction)),
                Figure::new("cost", "expected stake", FValue::exact(o.stake.clone(), Style::Fraction)),
                Figure::new("value", "value", FValue::exact(value, Style::Decimal(4))),
            ];
            let outcomes = o
                .rows
                .iter()
                .enumerate()
                .filter(|&(r, p)| r < self.rows.len() || !p.is_zero())
                .map(|(r, p)| {
                    (
                        self.rows.get(r).map_or("(no row)", |r| r.name.as_str()).to_string(),
                        FValue::exact(p.clone(), Style::Fraction),
                    )
                })
                .collect();
            e.choices.push(Choice { output: shown, chosen: *m == mask, figures, outcomes });
        }
        e
    }
}
