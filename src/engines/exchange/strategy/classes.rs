//! The classes of holds, from the combination rows alone: each hold's
//! features (computed once per held set under suit symmetry) and its keys,
//! from the coarsest to the finest, with their words.

use std::collections::HashMap;

use rayon::prelude::*;

use super::super::combi::binom;
use super::super::eval::NONE;
use super::super::{Exchange, MAX_HAND};
use super::{next_pick, DealHolds, Hold, SetKey, MAX_COMPLETIONS, MAX_ENTRIES};
use crate::engines::cards::Card;

/// Most rows a key names (the rows the hold is part of that bring the
/// most), each refined by its draws and then by the discarded cards part
/// of it.
const DEPTH: usize = 2;

/// A row a key names: the row, the draws that form it, and (at a finer
/// level) how many discarded cards are, each added to the hold, part of it.
type Named = (u8, u64, Option<u8>);

/// A hold's class, from the rows alone.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Key {
    /// Cards held.
    pub(super) kept: u8,
    /// Made: every draw keeps `row` (or better), `count` held cards it
    /// does not need.
    made: bool,
    row: u8,
    count: u64,
    /// Not made: the rows the hold is part of, that bring the most first.
    rows: Vec<Named>,
    /// Held cards that alone are part of the lowest-paying row (at the
    /// levels that say it).
    low: Option<u8>,
    /// The last line of a chart whose rules allow no exchange of every
    /// card: every card kept (see [`Key::keep_all`]).
    all: bool,
}

impl Key {
    /// The class every deal's hold of all `hand` cards belongs to, the
    /// last line when exchanging every card is not allowed.
    pub(super) fn keep_all(hand: u8) -> Key {
        Key { kept: hand, made: false, row: NONE, count: 0, rows: Vec::new(), low: None, all: true }
    }
}

/// What a hold is, as computed once per hold under suit symmetry.
#[derive(Debug, Clone)]
pub(super) struct Feature {
    /// Worst payout over the draws.
    min_pay: i64,
    /// The row that pays `min_pay` last in the table.
    worst: u8,
    /// Per row: part of it (every held card needed in some draw forming
    /// it), and the draws forming it.
    part: Vec<bool>,
    forms: Vec<u64>,
}

/// A deal's classes (every level), its options in `prefer:` order, and
/// per class the option `prefer:` picks.
type Classed = (Vec<Key>, Vec<(u32, super::super::Value)>, Vec<u8>, u32);

/// The features of held sets, by set under suit symmetry.
pub(super) type Features = HashMap<SetKey, Feature>;

impl Exchange {
    /// The row of a hand of `hand` cards sorted by card number.
    fn sorted_row(&self, sorted: &[Card]) -> u8 {
        match self.card_path() {
            Some(path) => path.row(sorted),
            None => {
                let r: Vec<u8> = sorted.iter().map(|&c| self.deck.rank(c) as u8).collect();
                super::super::ranks::row_of_ranks(&self.eval, &r)
            }
        }
    }

    fn pay(&self, row: u8) -> i64 {
        self.pays[row as usize]
    }

    pub(super) fn set_key(&self, cards: &[Card]) -> SetKey {
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

    /// The features of every hold of every deal, and of their subsets,
    /// under suit symmetry.
    pub(super) fn hold_features(&self, deals: &[(Vec<Card>, u128)]) -> Result<Features, String> {
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
        let mut feats: Features = HashMap::new();
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

    /// Each class's key, and each deal's holds: its options (in `prefer:`
    /// order) and, per class present at any level, the option `prefer:`
    /// picks among those of the class.
    pub(super) fn classify(
        &self,
        deals: &[(Vec<Card>, u128)],
        feats: &Features,
    ) -> Result<(Vec<Key>, Vec<DealHolds>), String> {
        let lowest = self.lowest_row().filter(|&l| !self.every_card_part_of(l, feats));
        let per: Vec<Classed> = deals
            .par_iter()
            .map(|(cards, _)| {
                let subs: Vec<Option<&Feature>> = (0..1usize << cards.len())
                    .map(|m| {
                        let held: Vec<Card> = (0..cards.len()).filter(|j| m >> j & 1 == 1).map(|j| cards[j]).collect();
                        feats.get(&self.set_key(&held))
                    })
                    .collect();
                let full = (1usize << cards.len()) - 1;
                let (chosen, options) = self.decide(cards);
                let mut seen: Vec<Key> = Vec::new();
                let mut of: Vec<u8> = Vec::new();
                for (i, &(mask, v)) in options.iter().enumerate() {
                    for k in self.keys(full & !(mask as usize), &subs, lowest) {
                        match seen.iter().position(|s| *s == k) {
                            None => {
                                seen.push(k);
                                of.push(i as u8);
                            }
                            // Equally good holds of one class: the tie
                            // rule's, when it reads their variances.
                            Some(at) => {
                                let (first, fv) = options[of[at] as usize];
                                if self.preference.by_variance()
                                    && fv == v
                                    && self.break_tie(cards, &[first, mask]) == mask
                                {
                                    of[at] = i as u8;
                                }
                            }
                        }
                    }
                }
                (seen, options, of, chosen)
            })
            .collect();
        let entries: u128 = per.iter().map(|p| p.0.len() as u128).sum();
        if entries > MAX_ENTRIES {
            return Err(format!("{entries} classes of holds over every deal: the chart's limit is {MAX_ENTRIES}"));
        }
        let mut ids: HashMap<Key, u32> = HashMap::new();
        let mut keys: Vec<Key> = Vec::new();
        let mut out = Vec::with_capacity(deals.len());
        for ((_, w), (seen, options, of, chosen)) in deals.iter().zip(per) {
            let mut holds = Vec::with_capacity(seen.len());
            for (k, o) in seen.into_iter().zip(of) {
                let id = *ids.entry(k.clone()).or_insert_with(|| {
                    keys.push(k);
                    keys.len() as u32 - 1
                });
                holds.push(Hold { class: id, option: o });
            }
            // The optimal play, ties broken as `run` breaks them.
            let best = options.iter().copied().find(|o| o.0 == chosen);
            out.push(DealHolds { weight: *w, options, holds, best });
        }
        Ok((keys, out))
    }

    /// The lowest-paying row that pays (the last such in the table).
    fn lowest_row(&self) -> Option<u8> {
        let min = self.rows.iter().map(|r| r.pays).filter(|&p| p > 0).min()?;
        self.rows.iter().rposition(|r| r.pays == min).map(|i| i as u8)
    }

    /// Whether every card alone is part of row `l`.
    fn every_card_part_of(&self, l: u8, feats: &Features) -> bool {
        (0..self.deck.size() as Card).all(|c| feats.get(&self.set_key(&[c])).is_some_and(|g| g.part[l as usize]))
    }

    /// A hold's keys, coarsest first: the rows it is part of that bring
    /// the most (payout times draws), then how many held cards alone are
    /// part of the `lowest` row, then per named row how many discarded
    /// cards are part of it with the hold, then the next row. The hold is
    /// a mask over the deal's cards; `subs` the features of every subset.
    fn keys(&self, held: usize, subs: &[Option<&Feature>], lowest: Option<u8>) -> Vec<Key> {
        let bits = |m: usize| (0..usize::BITS as usize).filter(move |j| m >> j & 1 == 1);
        let kept = held.count_ones() as u8;
        let base = Key { kept, made: false, row: NONE, count: 0, rows: Vec::new(), low: None, all: false };
        let part = |m: usize, r: usize| subs.get(m).copied().flatten().is_some_and(|g| g.part[r]);
        let Some(f) = subs.get(held).copied().flatten() else {
            return vec![base];
        };
        if held == 0 {
            return vec![base];
        }
        // A made hold: its row first, then the rows paying more it is
        // part of; else the rows it is part of, and its low cards.
        let made = f.min_pay > 0;
        let (base, low) = if made {
            let spare = bits(held)
                .filter(|&i| subs.get(held & !(1 << i)).copied().flatten().is_some_and(|g| g.min_pay >= f.min_pay))
                .count();
            (Key { made, row: f.worst, count: spare as u64, ..base }, None)
        } else {
            (base, lowest.map(|l| bits(held).filter(|&j| part(1 << j, l as usize)).count() as u8))
        };
        let floor = f.min_pay.max(0);
        let mut ranked: Vec<usize> = (0..self.rows.len()).filter(|&r| f.part[r] && self.pays[r] > floor).collect();
        ranked.sort_by_key(|&r| (std::cmp::Reverse(self.rows[r].pays as i128 * f.forms[r] as i128), r));
        ranked.truncate(DEPTH);
        if ranked.is_empty() {
            return vec![base];
        }
        let gone = (subs.len() - 1) & !held;
        let penalty = |r: usize| bits(gone).filter(|&j| part(held | 1 << j, r)).count() as u8;
        let mut rows: Vec<Named> = vec![(ranked[0] as u8, f.forms[ranked[0]], None)];
        let mut out = vec![Key { rows: rows.clone(), ..base.clone() }];
        if made {
            out.insert(0, base.clone());
        }
        let push = |rows: &[Named], out: &mut Vec<Key>| {
            let k = Key { rows: rows.to_vec(), low, ..base.clone() };
            if !out.contains(&k) {
                out.push(k);
            }
        };
        push(&rows, &mut out);
        for (i, &r) in ranked.iter().enumerate() {
            if i > 0 {
                rows.push((r as u8, f.forms[r], None));
                push(&rows, &mut out);
            }
            rows[i].2 = Some(penalty(r));
            push(&rows, &mut out);
        }
        out
    }

    /// A class's words.
    pub(super) fn label(&self, k: &Key) -> String {
        let name = |r: u8| self.rows.get(r as usize).map_or("?", |r| r.name.as_str());
        if k.kept == 0 {
            return "nothing: exchange every card".to_string();
        }
        if k.all {
            return "anything else: keep every card".to_string();
        }
        let mut s = match (k.made, k.count) {
            (true, 0) => name(k.row).to_string(),
            (true, n) => format!("{} and {n} card(s) more", name(k.row)),
            (false, _) if k.rows.is_empty() => return format!("{} card(s) part of no row", k.kept),
            (false, _) => k.kept.to_string(),
        };
        if k.made && k.rows.is_empty() {
            return s;
        }
        let rows: Vec<String> = k
            .rows
            .iter()
            .map(|&(r, n, pen)| match pen {
                Some(0) => format!("{} ({n} draws, no discard to it)", name(r)),
                Some(p) => format!("{} ({n} draws, {p} discard(s) to it)", name(r)),
                None => format!("{} ({n} draws)", name(r)),
            })
            .collect();
        s.push_str(&format!("{} to {}", if k.made { "," } else { "" }, rows.join(" and ")));
        if let (Some(n), Some(l)) = (k.low, self.lowest_row()) {
            s.push_str(&format!(", {n} of them to {}", name(l)));
        }
        s
    }
}
