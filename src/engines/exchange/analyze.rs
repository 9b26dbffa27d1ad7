//! `arbiter analyze` for the exchange engine: the exact payout, stake and
//! return to player over every deal with optimal play, and the exact
//! probability that the final hand is each row.
//!
//! Deals are grouped: by rank multiset on the rank path, by class under
//! suit symmetry on the card path (134,459 classes for five cards of 52).
//! Each group's best choice is valued from the totals (see `hands.rs`),
//! and the rows its draws land in come from the same inclusion and
//! exclusion over tables of row counts.
//!
//! Ties: the choice is the one `run` prints for the deal written in deck
//! order (ranks as listed in `deck`, then suits as listed). The return does
//! not depend on it unless tied choices exchange different numbers of
//! cards at a cost; the row probabilities can. On the card path, a group
//! with a tie is split by the order of its suits, so that each deal of the
//! group gets its own choice.

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::Zero;
use rayon::prelude::*;

use super::by_class;
use super::choice::Draws;
use super::combi::{binom, for_each_multiset, Colex};
use super::hands::{for_each_added, CardPath, CHUNK_ROWS};
use super::ranks::RankBox;
use super::{Exchange, ExpectedReturn, Joint, Path, Value, MAX_CARD_HAND, MAX_HAND};
use crate::game::{Analyze, AnalyzeOptions, Report};

/// Most entries of the row-count tables (rows x sets); above it the
/// analysis gives the return without the per-row table.
pub(super) const MAX_ROW_TABLE: u128 = 1 << 26;

/// Most steps of an analysis (groups of deals x choices).
pub(super) const MAX_ANALYSIS: u128 = 1 << 30;

impl Analyze for Exchange {
    fn report(&self, _: &AnalyzeOptions, progress: &mut dyn FnMut(u64, u64)) -> Report {
        match self.expected_return(progress) {
            Ok(r) => self.figures(&r),
            // A limit passed: the figure `refused` says which (the CLI then
            // exits 8).
            Err(why) => Report {
                figures: vec![crate::game::figures::Figure::new(
                    "refused",
                    "analysis",
                    crate::game::figures::Value::text(why),
                )],
                tables: Vec::new(),
            },
        }
    }
}

/// Sums over the deals of one exchange size.
#[derive(Debug, Clone, Default)]
pub(super) struct Acc {
    /// Per exchange size k: payout sums (over C(left, k) draws), deals,
    /// and draws per row (the last: no row).
    pub(super) sum: Vec<i128>,
    pub(super) deals: Vec<u128>,
    pub(super) rows: Vec<Vec<i128>>,
    /// Deals with several optimal choices whose draws end in rows with
    /// different probabilities (the row figures depend on the tie rule),
    /// and those of them whose choices' variances differ.
    pub(super) tie_deals: [u128; 2],
}

impl Acc {
    pub(super) fn add_ties(&mut self, weight: u128, (rows, variance): (bool, bool)) {
        self.tie_deals[0] += weight * rows as u128;
        self.tie_deals[1] += weight * variance as u128;
    }

    pub(super) fn new(hand: usize, rows: usize) -> Acc {
        Acc { sum: vec![0; hand + 1], deals: vec![0; hand + 1], rows: vec![vec![0; rows]; hand + 1], tie_deals: [0; 2] }
    }

    fn merge(mut self, o: Acc) -> Acc {
        self.tie_deals[0] += o.tie_deals[0];
        self.tie_deals[1] += o.tie_deals[1];
        for k in 0..self.sum.len() {
            self.sum[k] += o.sum[k];
            self.deals[k] += o.deals[k];
            for (a, b) in self.rows[k].iter_mut().zip(&o.rows[k]) {
                *a += b;
            }
        }
        self
    }
}

/// Row counts per set of cards (or rank multiset), by level, flattened:
/// `levels[k][index * width + row]`; the last row is "no row".
#[derive(Debug)]
pub struct RowTables {
    width: usize,
    levels: Vec<Vec<u32>>,
}

impl Exchange {
    /// The row-count tables, built on first use; none when they would pass
    /// `MAX_ROW_TABLE` entries.
    pub fn row_tables(&self) -> Option<&RowTables> {
        self.row_tables
            .get_or_init(|| {
                let (h, width) = (self.hand, self.rows.len() + 1);
                match &self.path {
                    Path::Ranks(_) => {
                        let levels: u128 = (self.min_kept..=h).map(|k| self.eval.keys.count(k) as u128).sum();
                        (levels * width as u128 <= MAX_ROW_TABLE).then(|| self.rank_row_tables(width))
                    }
                    Path::Cards(..) => {
                        let path = self.card_path().expect("card path");
                        let sets: u128 = (self.min_kept..h).map(|k| path.set_count(k) as u128).sum();
                        (sets * width as u128 <= MAX_ROW_TABLE).then(|| card_row_tables(path, h, self.min_kept, width))
                    }
                }
            })
            .as_ref()
    }

    /// How many of the equally likely draws of a choice (a discard mask
    /// over input positions) end in each row (the last entry: in none).
    pub fn draws_by_row(&self, cards: &[crate::engines::cards::Card], mask: u32) -> Vec<i128> {
        let width = self.rows.len() + 1;
        let Some(t) = self.row_tables() else {
            return self.draw_rows(cards, mask).into_iter().map(|n| n as i128).collect();
        };
        let mut out = vec![0i128; width];
        match &self.path {
            Path::Ranks(_) => {
                let ranks: Vec<u8> = cards.iter().map(|&c| self.deck.rank(c) as u8).collect();
                let b = RankBox::of(&self.eval, &ranks);
                let mut kept = [0u8; MAX_HAND];
                for (i, &r) in ranks.iter().enumerate() {
                    let d = (0..b.m).find(|&d| b.ranks[d] == r).unwrap_or(0);
                    if mask >> i & 1 == 0 {
                        kept[d] += 1;
                    }
                }
                let mut x = 0;
                for d in (0..b.m).rev() {
                    x = x * (b.counts[d] as usize + 1) + kept[d] as usize;
                }
                self.rank_rows_of(t, &b, x, &mut out);
            }
            Path::Cards(..) => {
                let path = self.card_path().expect("card path");
                let (sorted, pos) = super::combi::sort_with_positions(cards);
                let h = cards.len();
                let discard = (0..h).filter(|&j| mask >> pos[j] & 1 == 1).fold(0u32, |m, j| m | 1 << j);
                let mut acc = Acc::new(h, width);
                let mut sums = [0i64; 1 << MAX_CARD_HAND];
                let mut idx = [0u32; 1 << MAX_CARD_HAND];
                path.sums(&sorted[..h], self.min_kept, &self.pays, &mut sums, &mut idx);
                self.card_outcome(path, Some(t), &sorted[..h], discard, 1, &mut acc, (&sums, &idx));
                out.copy_from_slice(&acc.rows[discard.count_ones() as usize]);
            }
        }
        out
    }

    /// The exact payout, stake and row probabilities over every deal.
    pub fn expected_return(&self, progress: &mut dyn FnMut(u64, u64)) -> Result<ExpectedReturn, String> {
        if let Some(rounds) = &self.rounds {
            return self.rounds_return(rounds, progress);
        }
        let deals = binom(self.deck.size() as u64, self.hand as u64);
        let acc = match (&self.path, &self.split) {
            (_, Some(split)) => self.split_analysis(split)?,
            (Path::Cards(..), _) if self.stay_only() => self.stay_analysis(progress)?,
            (Path::Ranks(_), _) => self.rank_analysis(progress)?,
            (Path::Cards(..), _) => self.card_analysis(progress)?,
        };
        let (acc, tabulated) = acc;
        let d = BigRational::from_integer(BigInt::from(deals));
        let mut payout = BigRational::zero();
        let mut stake = BigRational::zero();
        let width = self.rows.len() + 1;
        let mut rows = vec![BigRational::zero(); width];
        for k in 0..=self.hand {
            if acc.deals[k] == 0 {
                continue;
            }
            let ways = BigRational::from_integer(BigInt::from(self.ways[k]));
            payout += BigRational::from_integer(BigInt::from(acc.sum[k])) / &ways;
            let cost = self.entry as i128 + self.cost as i128 * k as i128;
            stake += BigRational::from_integer(BigInt::from(acc.deals[k]) * BigInt::from(cost));
            for (r, &n) in acc.rows[k].iter().enumerate() {
                rows[r] += BigRational::from_integer(BigInt::from(n)) / &ways;
            }
        }
        let rows = tabulated.then(|| rows.into_iter().map(|p| p / &d).collect());
        let joint = tabulated.then(|| self.joint(&acc, deals));
        let tie_deals = tabulated.then_some(acc.tie_deals);
        Ok(ExpectedReturn { payout: payout / &d, stake: stake / &d, deals, rows, joint, tie_deals })
    }

    /// The draws per exchange size and row over a common denominator.
    fn joint(&self, acc: &Acc, deals: u128) -> Joint {
        let used = (0..=self.hand).filter(|&k| acc.deals[k] > 0);
        let lcm = used.fold(BigInt::from(1), |l, k| l.lcm(&BigInt::from(self.ways[k])));
        let counts = (0..=self.hand)
            .map(|k| {
                let scale = if acc.deals[k] > 0 { &lcm / BigInt::from(self.ways[k]) } else { BigInt::zero() };
                acc.rows[k].iter().map(|&n| BigInt::from(n) * &scale).collect()
            })
            .collect();
        Joint { denominator: BigInt::from(deals) * lcm, counts }
    }

    /// Over every rank multiset, each standing for its deals.
    fn rank_analysis(&self, progress: &mut dyn FnMut(u64, u64)) -> Result<(Acc, bool), String> {
        let Path::Ranks(path) = &self.path else { unreachable!() };
        let (h, nr, suits) = (self.hand, self.deck.ranks.len(), self.deck.suits.len());
        let keys = self.eval.keys.count(h) as u128;
        if keys << h > MAX_ANALYSIS {
            return Err(format!(
                "not computed: {keys} multisets of ranks times up to 2^{h} choices each pass the analysis limit of 2^30"
            ));
        }
        let width = self.rows.len() + 1;
        let tables = self.row_tables();
        let mut acc = Acc::new(h, width);
        let mut sums = Vec::new();
        let mut hist = vec![0i128; width];
        let total = binom(self.deck.size() as u64, h as u64);
        let mut done = 0u128;
        let mut counter = 0u64;
        for_each_multiset(nr, h, &mut |sorted| {
            let mut counts = [0u8; 64];
            for &r in sorted {
                counts[r as usize] += 1;
            }
            if counts.iter().any(|&c| c as usize > suits) {
                return;
            }
            let weight: u128 = counts[..nr].iter().map(|&c| binom(suits as u64, c as u64)).product();
            let b = RankBox::of(&self.eval, sorted);
            path.sums(&self.eval, &b, h, self.min_kept, &self.pays, &mut sums);
            let mut digits = [0u8; MAX_HAND];
            let mut best: Option<Value> = None;
            let mut tied: Vec<(usize, u32)> = Vec::new();
            for (x, &sum) in sums.iter().enumerate().take(b.size) {
                let k = h - b.digits(x, &mut digits);
                if self.allowed >> k & 1 == 0 {
                    continue;
                }
                let v = self.value(sum, k);
                let mask = b.discard_mask(x, self.preference.leftmost());
                match best.map_or(std::cmp::Ordering::Greater, |bv| v.cmp(&bv)) {
                    std::cmp::Ordering::Greater => {
                        best = Some(v);
                        tied.clear();
                        tied.push((x, mask));
                    }
                    std::cmp::Ordering::Equal => tied.push((x, mask)),
                    std::cmp::Ordering::Less => {}
                }
            }
            if best.is_none() {
                return;
            }
            let (x, mask) = tied[self.rank_tie(tables, &b, sorted, &tied, weight, &mut acc)];
            let k = mask.count_ones() as usize;
            let v = self.value(sums[x], k);
            acc.sum[k] += weight as i128 * v.sum as i128;
            acc.deals[k] += weight;
            if let Some(t) = tables {
                self.rank_rows_of(t, &b, x, &mut hist);
                for (a, &n) in acc.rows[k].iter_mut().zip(&hist) {
                    *a += weight as i128 * n;
                }
            }
            done += weight;
            counter += 1;
            if counter.is_multiple_of(1024) {
                progress(done as u64, total as u64);
            }
        });
        progress(total as u64, total as u64);
        Ok((acc, tables.is_some()))
    }

    /// The index of the chosen one of a rank multiset's optimal choices
    /// (box points with their discard masks, for the deal of these ranks
    /// in deck order); counts the multiset's deals in `acc.tie_deals` when
    /// the choices' draws end in rows with different probabilities.
    fn rank_tie(
        &self,
        tables: Option<&RowTables>,
        b: &RankBox,
        sorted: &[u8],
        tied: &[(usize, u32)],
        weight: u128,
        acc: &mut Acc,
    ) -> usize {
        if tied.len() <= 1 {
            return 0;
        }
        let masks: Vec<u32> = tied.iter().map(|t| t.1).collect();
        let draws: Option<Vec<Draws>> = match tables {
            Some(t) => Some(
                tied.iter()
                    .map(|&(x, m)| {
                        let mut rows = vec![0i128; t.width];
                        self.rank_rows_of(t, b, x, &mut rows);
                        Draws { k: m.count_ones() as usize, rows }
                    })
                    .collect(),
            ),
            None if self.preference.by_variance() => Some(self.tied_draws(&self.deal_of_ranks(sorted), &masks)),
            None => None,
        };
        let Some(draws) = draws else {
            return (0..tied.len()).fold(0, |a, i| if self.preference.cmp(masks[i], masks[a]).is_lt() { i } else { a });
        };
        if tables.is_some() {
            acc.add_ties(weight, self.tie_effect(&draws));
        }
        if self.preference.by_variance() {
            self.preferred_of(&masks, &draws)
        } else {
            (0..tied.len()).fold(0, |a, i| if self.preference.cmp(masks[i], masks[a]).is_lt() { i } else { a })
        }
    }

    /// A deal of these sorted ranks: each rank's cards in suit order.
    pub(super) fn deal_of_ranks(&self, sorted: &[u8]) -> Vec<crate::engines::cards::Card> {
        let suits = self.deck.suits.len();
        let mut seen = [0usize; 64];
        sorted
            .iter()
            .map(|&r| {
                let s = seen[r as usize];
                seen[r as usize] += 1;
                (r as usize * suits + s) as crate::engines::cards::Card
            })
            .collect()
    }

    /// Row counts per rank multiset, from the kept size up: level h is the
    /// row of each multiset, each level below sums the one above.
    fn rank_row_tables(&self, width: usize) -> RowTables {
        let (h, nr, suits) = (self.hand, self.deck.ranks.len(), self.deck.suits.len());
        let keys = &self.eval.keys;
        let mut levels: Vec<Vec<u32>> = vec![Vec::new(); h + 1];
        let mut top = vec![0u32; keys.count(h) * width];
        for_each_multiset(nr, h, &mut |m| {
            let i = keys.rank(m);
            let row = self.eval.row_of_key(i);
            top[i * width + (row as usize).min(width - 1)] = 1;
        });
        levels[h] = top;
        let mut merged = [0u8; MAX_HAND];
        let mut acc = vec![0u64; width];
        for k in (self.min_kept..h).rev() {
            let mut level = vec![0u32; keys.count(k) * width];
            for_each_multiset(nr, k, &mut |m| {
                acc.fill(0);
                for r in 0..nr as u8 {
                    let have = m.iter().filter(|&&x| x == r).count();
                    if have >= suits {
                        continue;
                    }
                    super::combi::insert_sorted(m, r, &mut merged);
                    let j = keys.rank(&merged[..=k]);
                    for (a, &n) in acc.iter_mut().zip(&levels[k + 1][j * width..(j + 1) * width]) {
                        *a += (suits - have) as u64 * n as u64;
                    }
                }
                let i = keys.rank(m);
                for (slot, &a) in level[i * width..(i + 1) * width].iter_mut().zip(&acc) {
                    *slot = (a / (h - k) as u64) as u32;
                }
            });
            levels[k] = level;
        }
        RowTables { width, levels }
    }

    /// The draws of keeping box point `x` of `b`, per row.
    fn rank_rows_of(&self, t: &RowTables, b: &RankBox, x: usize, out: &mut [i128]) {
        out.fill(0);
        let mut kx = [0u8; MAX_HAND];
        b.digits(x, &mut kx);
        let mut digits = [0u8; MAX_HAND];
        let mut sorted = [0u8; MAX_HAND];
        for y in 0..b.size {
            let kept = b.digits(y, &mut digits);
            if kept < self.min_kept || (0..b.m).any(|i| digits[i] < kx[i]) {
                continue;
            }
            let mut coef: i128 = 1;
            let mut sign = 1;
            let mut n = 0;
            for i in 0..b.m {
                let (c, a, d) = (b.counts[i] as u64, kx[i] as u64, digits[i] as u64);
                coef *= binom(c - a, d - a) as i128;
                if (d - a) % 2 == 1 {
                    sign = -sign;
                }
                for _ in 0..d {
                    sorted[n] = b.ranks[i];
                    n += 1;
                }
            }
            let j = self.eval.keys.rank(&sorted[..n]);
            let level = &t.levels[kept];
            for (o, &c) in out.iter_mut().zip(&level[j * t.width..(j + 1) * t.width]) {
                *o += sign * coef * c as i128;
            }
        }
    }

    /// Over every class of deals under suit symmetry, on every core.
    fn card_analysis(&self, progress: &mut dyn FnMut(u64, u64)) -> Result<(Acc, bool), String> {
        let (h, n) = (self.hand, self.deck.size());
        let total = binom(n as u64, h as u64);
        // Over the hand table's limit the deals are counted by class.
        let deck = (self.deck.ranks.len(), self.deck.suits.len(), self.deck.jokers.len());
        let (groups, what) = if by_class::applies(total) {
            (by_class::class_count(deck, h), "classes of deals")
        } else {
            (total, "deals")
        };
        if groups << h > MAX_ANALYSIS {
            return Err(format!(
                "not computed: {groups} {what} times 2^{h} choices each pass the analysis limit of 2^30"
            ));
        }
        let width = self.rows.len() + 1;
        let (path, tables) = self.card_tables();
        let mut acc = Acc::new(h, width);
        let mut batch: Vec<([u16; MAX_CARD_HAND], u128)> = Vec::with_capacity(1 << 14);
        let mut done = 0u128;
        let run_batch = |batch: &mut Vec<([u16; MAX_CARD_HAND], u128)>, acc: &mut Acc| {
            let part = batch
                .par_iter()
                .fold(
                    || Acc::new(h, width),
                    |mut a, (cards, w)| {
                        self.card_class(path, tables, &cards[..h], *w, &mut a);
                        a
                    },
                )
                .reduce(|| Acc::new(h, width), Acc::merge);
            *acc = std::mem::take(acc).merge(part);
            batch.clear();
        };
        super::hands::for_each_class(&self.deck, h, &mut |cards, w| {
            let mut c = [0u16; MAX_CARD_HAND];
            c[..h].copy_from_slice(cards);
            batch.push((c, w));
            done += w;
            if batch.len() == batch.capacity() {
                run_batch(&mut batch, &mut acc);
                progress(done as u64, total as u64);
            }
        });
        run_batch(&mut batch, &mut acc);
        progress(total as u64, total as u64);
        Ok((acc, tables.is_some()))
    }

    /// One class of `weight` deals whose deal in deck order is `cards`.
    fn card_class(&self, path: &CardPath, tables: Option<&RowTables>, cards: &[u16], weight: u128, acc: &mut Acc) {
        let h = cards.len();
        let mut sums = [0i64; 1 << MAX_CARD_HAND];
        let mut idx = [0u32; 1 << MAX_CARD_HAND];
        let (choice, optimal) = self.card_choice(path, cards, &mut sums, &mut idx);
        if optimal.len() <= 1 {
            self.card_outcome(path, tables, cards, choice, weight as i128, acc, (&sums, &idx));
            return;
        }
        // The optimal choices of every deal of the class are the images of
        // these under a permutation of the suits, with the same draws.
        if tables.is_some() {
            acc.add_ties(weight, self.tie_effect(&self.tied_draws(cards, &optimal)));
        }
        // A tie: the choice can depend on the order of the suits in the
        // deal. Each order of the suits the deal uses stands for
        // C(suits, used) deals (times the choices of jokers); orders that
        // permute suits with the same ranks give the same deal, so the sum
        // over orders counts each deal `repeats` times.
        let ns = self.deck.suits.len();
        let ranked = self.deck.ranked_size() as u16;
        let mut masks = vec![0u64; ns];
        for &c in cards.iter().filter(|&&c| c < ranked) {
            masks[c as usize % ns] |= 1 << (c as usize / ns);
        }
        let used = masks.iter().filter(|&&m| m != 0).count();
        let orders: u128 = (1..=used as u128).product();
        let mut repeats: u128 = 1;
        let mut i = 0;
        while i < used {
            let j = (i..used).find(|&j| masks[j] != masks[i]).unwrap_or(used);
            repeats *= (1..=(j - i) as u128).product::<u128>();
            i = j;
        }
        let per_order = (weight * repeats / orders) as i128;
        let mut part = Acc::new(h, self.rows.len() + 1);
        let mut perm: Vec<usize> = (0..used).collect();
        let mut image = vec![0u16; h];
        loop {
            for (slot, &c) in image.iter_mut().zip(cards) {
                *slot = if c < ranked {
                    let (r, s) = (c as usize / ns, c as usize % ns);
                    (r * ns + perm[s]) as u16
                } else {
                    c
                };
            }
            image.sort_unstable();
            let (choice, _) = self.card_choice(path, &image, &mut sums, &mut idx);
            self.card_outcome(path, tables, &image, choice, per_order, &mut part, (&sums, &idx));
            if !next_permutation(&mut perm) {
                break;
            }
        }
        let repeats = repeats as i128;
        for k in 0..=h {
            acc.sum[k] += part.sum[k] / repeats;
            acc.deals[k] += part.deals[k] / repeats as u128;
            for (a, b) in acc.rows[k].iter_mut().zip(&part.rows[k]) {
                *a += b / repeats;
            }
        }
    }

    /// The chosen discard (a mask over the sorted positions) of a deal
    /// written in deck order, and the optimal choices.
    fn card_choice(&self, path: &CardPath, sorted: &[u16], sums: &mut [i64], idx: &mut [u32]) -> (u32, Vec<u32>) {
        let h = sorted.len();
        path.sums(sorted, self.min_kept, &self.pays, sums, idx);
        let full = (1usize << h) - 1;
        let mut best: Option<Value> = None;
        let mut tied: Vec<u32> = Vec::new();
        for (kept, &sum) in sums.iter().enumerate().take(full + 1) {
            let k = h - kept.count_ones() as usize;
            if self.allowed >> k & 1 == 0 {
                continue;
            }
            let v = self.value(sum, k);
            let mask = (full ^ kept) as u32;
            match best.map(|b| v.cmp(&b)) {
                None | Some(std::cmp::Ordering::Greater) => {
                    best = Some(v);
                    tied.clear();
                    tied.push(mask);
                }
                Some(std::cmp::Ordering::Equal) => tied.push(mask),
                _ => {}
            }
        }
        (self.break_tie(sorted, &tied), tied)
    }

    /// Adds `weight` deals choosing `discard` (sorted positions) to `acc`.
    /// `sums` and `idx`: the deal's payout sums per kept subset and the
    /// colex number of each subset ([`CardPath::sums`]).
    #[allow(clippy::too_many_arguments)]
    fn card_outcome(
        &self,
        path: &CardPath,
        tables: Option<&RowTables>,
        sorted: &[u16],
        discard: u32,
        weight: i128,
        acc: &mut Acc,
        (sums, idx): (&[i64], &[u32]),
    ) {
        let h = sorted.len();
        let full = (1usize << h) - 1;
        let kept = full ^ discard as usize;
        let k = discard.count_ones() as usize;
        if let Some(t) = tables {
            // The draws per row, by inclusion and exclusion over the
            // discarded cards (each count fits 64 bits).
            let w = t.width;
            let mut local = [0i64; 256];
            let free = full ^ kept;
            let mut sub = 0usize;
            loop {
                let u = kept | sub;
                let sign: i64 = if sub.count_ones().is_multiple_of(2) { 1 } else { -1 };
                let size = u.count_ones() as usize;
                if size == h {
                    let row = path.hand_row[idx[u] as usize] as usize;
                    local[row.min(w - 1)] += sign;
                } else {
                    let at = idx[u] as usize * w;
                    for (a, &c) in local.iter_mut().zip(&t.levels[size][at..at + w]) {
                        *a += sign * c as i64;
                    }
                }
                if sub == free {
                    break;
                }
                // The next subset of the discarded cards.
                sub = ((sub | !free).wrapping_add(1)) & free;
            }
            for (a, &n) in acc.rows[k].iter_mut().zip(&local[..w]) {
                *a += weight * n as i128;
            }
        }
        acc.sum[k] += weight * sums[kept] as i128;
        acc.deals[k] += weight as u128;
    }

    /// The card path's tables for an analysis: when the row counts fit,
    /// the totals are computed from them (one pass over the hands, not two).
    fn card_tables(&self) -> (&CardPath, Option<&RowTables>) {
        if let Path::Cards(cell, _) = &self.path {
            let (h, n, width) = (self.hand, self.deck.size(), self.rows.len() + 1);
            let sets: u128 = (self.min_kept..h).map(|k| binom(n as u64, k as u64)).sum();
            if sets * width as u128 <= MAX_ROW_TABLE
                && !by_class::applies(binom(n as u64, h as u64))
                && cell.get().is_none()
                && self.row_tables.get().is_none()
            {
                let mut path = CardPath::tabulate(&self.eval, n, h);
                let tables = card_row_tables(&path, h, self.min_kept, width);
                path.totals = vec![Vec::new(); h + 1];
                for k in self.min_kept..h {
                    path.totals[k] = tables.levels[k]
                        .par_chunks(width)
                        .map(|c| c.iter().zip(self.pays.iter()).map(|(&c, &p)| c as i64 * p).sum())
                        .collect();
                }
                let _ = cell.set(path);
                let _ = self.row_tables.set(Some(tables));
            }
        }
        (self.card_path().expect("card path"), self.row_tables())
    }
}

/// Row counts per set of cards, from the kept size up to `hand - 1`.
fn card_row_tables(path: &CardPath, h: usize, min_kept: usize, width: usize) -> RowTables {
    if let Some(cx) = &path.classes {
        return RowTables { width, levels: by_class::row_levels(path, cx, min_kept, width) };
    }
    let colex: &Colex = &path.colex;
    let n = path.n;
    let mut levels: Vec<Vec<u32>> = vec![Vec::new(); h + 1];
    for k in (min_kept..h).rev() {
        let count = colex.count(k);
        let mut level = vec![0u32; count * width];
        let above: &[u32] = if k + 1 < h { &levels[k + 1] } else { &[] };
        level.par_chunks_mut(CHUNK_ROWS * width).enumerate().for_each(|(ci, chunk)| {
            let mut set = [0u16; MAX_HAND];
            let set = &mut set[..k];
            colex.unrank(ci * CHUNK_ROWS, k, set);
            let mut acc = vec![0u64; width];
            for slot in chunk.chunks_mut(width) {
                acc.fill(0);
                for_each_added(colex, n, set, |_, idx| {
                    if k + 1 == h {
                        acc[(path.hand_row[idx] as usize).min(width - 1)] += 1;
                    } else {
                        for (a, &c) in acc.iter_mut().zip(&above[idx * width..(idx + 1) * width]) {
                            *a += c as u64;
                        }
                    }
                });
                let div = (h - k) as u64;
                for (s, &a) in slot.iter_mut().zip(&acc) {
                    *s = (a / div) as u32;
                }
                colex.next(set);
            }
        });
        levels[k] = level;
    }
    RowTables { width, levels }
}

/// The next permutation in lexicographic order; false after the last.
fn next_permutation(p: &mut [usize]) -> bool {
    let n = p.len();
    if n < 2 {
        return false;
    }
    let mut i = n - 1;
    while i > 0 && p[i - 1] >= p[i] {
        i -= 1;
    }
    if i == 0 {
        return false;
    }
    let mut j = n - 1;
    while p[j] <= p[i - 1] {
        j -= 1;
    }
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}
