//! The order of classes a chart follows, searched on the deals' values
//! (as floats: the chart's figures are then computed exactly).
//!
//! A line is a class at any level of detail; a deal is played by the
//! first line one of its holds belongs to. The search grows the chart one
//! line at a time, each time the class and place that add the most over
//! every deal; then, line by line, it takes the line out and puts in its
//! place the class and place that add the most now (the same line, moved,
//! or another class, or none when nothing adds), grows the chart again to
//! the lines asked, and repeats while a round gains.

use rayon::prelude::*;

use super::DealHolds;

/// Most rounds of the line-by-line exchanges.
const MAX_ROUNDS: usize = 16;

/// Gains under this (in weighted earnings) are rounding, not gains.
const EPS: f64 = 1e-9;

/// No line: a class not in the chart, or a deal no line plays.
const OUT: u32 = u32::MAX;

/// The order of class ids, the class of the empty hold (exchange every
/// card) last when there is one, in at most `lines` lines.
pub(super) fn search(classes: usize, empty: Option<u32>, deals: &[DealHolds], lines: usize) -> Vec<u32> {
    let mut s = Search::new(classes, empty, deals);
    let slots = lines.saturating_sub(usize::from(empty.is_some()));
    s.grow(slots);
    // A round that gains less than a millionth of a stake per deal ends
    // the search.
    let enough = s.weight.iter().sum::<f64>() * 1e-6;
    for _ in 0..MAX_ROUNDS {
        let before = s.total();
        let changed = s.exchange_lines();
        s.drop_idle();
        s.grow(slots);
        if !changed || s.total() - before < enough {
            break;
        }
    }
    // Lines a later line took every deal from go, and the freed places
    // are grown again while that adds lines.
    for _ in 0..MAX_ROUNDS {
        s.drop_idle();
        let n = s.order.len();
        s.grow(slots);
        if s.order.len() == n {
            break;
        }
    }
    s.drop_idle();
    s.sort_neutral();
    let mut out = s.order;
    out.extend(empty);
    out
}

fn ev(v: &super::super::Value) -> f64 {
    v.sum as f64 / v.ways.max(1) as f64 - v.cost as f64
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    entry: u32,
    deal: u32,
    value: f64,
}

struct Search {
    /// Per deal, its entries: `start[g]..start[g + 1]`.
    start: Vec<usize>,
    /// Per entry (a class present in a deal): the class, its weighted
    /// value.
    class: Vec<u32>,
    value: Vec<f64>,
    /// Per class, its entries, each with its deal and value (side by
    /// side, read in order).
    by_class: Vec<Vec<Entry>>,
    empty: Option<u32>,
    /// The lines but the last (the empty hold).
    order: Vec<u32>,
    /// Per class: its line, `OUT - 1` for the empty hold, else `OUT`.
    rank: Vec<u32>,
    /// Per deal: the entry that plays it, or `OUT`; its class (`OUT`
    /// for none) and value, kept beside it for speed.
    win: Vec<u32>,
    win_class: Vec<u32>,
    win_value: Vec<f64>,
    /// Per deal: its weight.
    weight: Vec<f64>,
}

impl Search {
    fn new(classes: usize, empty: Option<u32>, deals: &[DealHolds]) -> Self {
        let total: usize = deals.iter().map(|d| d.holds.len()).sum();
        let mut s = Search {
            start: Vec::with_capacity(deals.len() + 1),
            class: Vec::with_capacity(total),
            value: Vec::with_capacity(total),
            by_class: vec![Vec::new(); classes],
            empty,
            order: Vec::new(),
            rank: vec![OUT; classes],
            win: vec![OUT; deals.len()],
            win_class: vec![OUT; deals.len()],
            win_value: vec![0.0; deals.len()],
            weight: deals.iter().map(|d| d.weight as f64).collect(),
        };
        for (g, d) in deals.iter().enumerate() {
            s.start.push(s.class.len());
            for h in &d.holds {
                let value = ev(&d.options[h.option as usize].1) * d.weight as f64;
                s.by_class[h.class as usize].push(Entry { entry: s.class.len() as u32, deal: g as u32, value });
                s.class.push(h.class);
                s.value.push(value);
            }
        }
        s.start.push(s.class.len());
        s.set_ranks();
        for g in 0..deals.len() {
            s.set_win(g, s.rescan(g));
        }
        s
    }

    fn set_ranks(&mut self) {
        self.rank.iter_mut().for_each(|r| *r = OUT);
        for (i, &c) in self.order.iter().enumerate() {
            self.rank[c as usize] = i as u32;
        }
        if let Some(e) = self.empty {
            self.rank[e as usize] = OUT - 1;
        }
    }

    /// The entry of deal `g` on the first line.
    fn rescan(&self, g: usize) -> u32 {
        let mut best = OUT;
        for e in self.start[g]..self.start[g + 1] {
            let r = self.rank[self.class[e] as usize];
            if r != OUT && (best == OUT || r < self.rank[self.class[best as usize] as usize]) {
                best = e as u32;
            }
        }
        best
    }

    fn set_win(&mut self, g: usize, e: u32) {
        self.win[g] = e;
        (self.win_class[g], self.win_value[g]) = match e {
            OUT => (OUT, 0.0),
            e => (self.class[e as usize], self.value[e as usize]),
        };
    }

    fn win_rank(&self, g: usize) -> u32 {
        match self.win_class[g] {
            OUT => OUT,
            c => self.rank[c as usize],
        }
    }

    fn insert(&mut self, c: u32, p: usize) {
        self.order.insert(p, c);
        self.set_ranks();
        for i in 0..self.by_class[c as usize].len() {
            let Entry { entry: e, deal: g, .. } = self.by_class[c as usize][i];
            let g = g as usize;
            if (p as u32) < self.win_rank(g) {
                self.set_win(g, e);
            }
        }
    }

    fn remove(&mut self, c: u32) -> usize {
        let at = self.order.iter().position(|&x| x == c).unwrap_or(0);
        self.order.remove(at);
        self.set_ranks();
        for i in 0..self.by_class[c as usize].len() {
            let Entry { entry: e, deal: g, .. } = self.by_class[c as usize][i];
            let g = g as usize;
            if self.win[g] == e {
                self.set_win(g, self.rescan(g));
            }
        }
        at
    }

    /// For class `c`, not in the order: what putting it at each place
    /// (0 to the lines' number) adds over every deal.
    fn gains(&self, c: u32) -> Vec<f64> {
        let n = self.order.len();
        let mut diff = vec![0.0f64; n + 2];
        for &Entry { deal: g, value, .. } in &self.by_class[c as usize] {
            let g = g as usize;
            let d = value - self.win_value[g];
            let upto = (self.win_rank(g) as usize).min(n);
            diff[0] += d;
            diff[upto + 1] -= d;
        }
        let mut acc = 0.0;
        diff.iter()
            .take(n + 1)
            .map(|x| {
                acc += x;
                acc
            })
            .collect()
    }

    /// The class not in the order and the place that add the most:
    /// (gain, place, class).
    fn best_candidate(&self) -> Option<(f64, usize, u32)> {
        (0..self.by_class.len() as u32)
            .into_par_iter()
            .filter(|&c| self.rank[c as usize] == OUT)
            .filter_map(|c| {
                let gains = self.gains(c);
                let (p, &g) = gains.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1))?;
                Some((g, p, c))
            })
            .max_by(|a, b| a.0.total_cmp(&b.0).then(b.2.cmp(&a.2)))
    }

    /// Adds the best line while one adds and `slots` are not all taken.
    fn grow(&mut self, slots: usize) {
        while self.order.len() < slots {
            match self.best_candidate() {
                Some((g, p, c)) if g > EPS => self.insert(c, p),
                _ => return,
            }
        }
    }

    /// Each line in turn: out, then the best class and place in (itself
    /// maybe), or nothing when nothing adds. Whether the chart changed.
    fn exchange_lines(&mut self) -> bool {
        let mut changed = false;
        for c in self.order.clone() {
            let at = self.remove(c);
            let here = self.gains(c)[at];
            match self.best_candidate() {
                Some((g, p, x)) if g > here.max(0.0) + EPS => {
                    self.insert(x, p);
                    changed = true;
                }
                _ if here > EPS => self.insert(c, at),
                _ => changed = true,
            }
        }
        changed
    }

    fn total(&self) -> f64 {
        self.win_value.iter().sum()
    }

    /// Drops the lines that play no deal.
    fn drop_idle(&mut self) {
        let mut used = vec![false; self.by_class.len()];
        for &c in &self.win_class {
            if c != OUT {
                used[c as usize] = true;
            }
        }
        self.order.retain(|&c| used[c as usize]);
        self.set_ranks();
    }

    /// Puts a line of higher mean value before the line above it where
    /// that changes no deal's play (no deal the upper line plays has the
    /// lower one), so that the chart reads from the best down.
    fn sort_neutral(&mut self) {
        let mut sum = vec![(0.0f64, 0.0f64); self.by_class.len()];
        for (g, &e) in self.win.iter().enumerate() {
            if e != OUT {
                let m = &mut sum[self.class[e as usize] as usize];
                m.0 += self.value[e as usize];
                m.1 += self.weight[g];
            }
        }
        let mean = |c: u32| sum[c as usize].0 / sum[c as usize].1.max(f64::MIN_POSITIVE);
        let n = self.order.len();
        for _ in 0..n {
            let mut swapped = false;
            for i in 1..n {
                let (a, b) = (self.order[i - 1], self.order[i]);
                if mean(b) > mean(a) && self.no_deal_has_both(a, b) {
                    self.order.swap(i - 1, i);
                    swapped = true;
                }
            }
            if !swapped {
                break;
            }
        }
        self.set_ranks();
    }

    /// Whether no deal played by line `a` has class `b`.
    fn no_deal_has_both(&self, a: u32, b: u32) -> bool {
        self.by_class[b as usize].iter().all(|e| self.win_class[e.deal as usize] != a)
    }
}
