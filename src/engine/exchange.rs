//! The exchange engine: a hand is dealt from a deck; the player keeps it or
//! exchanges some of its cards for random replacements from the rest of the
//! deck, paying per card; a combination table pays the first row the final
//! hand can form. The engine picks the choice with the highest expected
//! earning, compared exactly, with the rule file's tie-break order.
//!
//! Loading compiles the combination table into a lookup table over ordered
//! rank tuples (`ranks ^ hand` bytes), so the expectation loop does one
//! multiply-add and one byte load per possible draw.

use std::cmp::Ordering;

use super::deck::{Card, Deck};
use crate::input::Lines;
use crate::run::{Output, RunError};
use crate::template::{Template, Val};

/// Largest lookup table accepted (`ranks ^ hand` entries).
pub const MAX_TABLE: usize = 1 << 24;

/// One component of a combination's pattern. Components of one pattern use
/// different cards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// `run(n)`: n cards of consecutive distinct ranks.
    Run(usize),
    /// `kind(n)`: n cards of one rank.
    Kind(usize),
    /// `ranks(a b c)`: one card of each of these ranks.
    Ranks(Vec<usize>),
}

/// A row of the combination table.
#[derive(Debug, Clone)]
pub struct Row {
    pub name: String,
    /// Empty: the row matches every hand (`any`).
    pub parts: Vec<Part>,
    pub pays: i64,
}

/// The order in which equally good choices are preferred.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefer {
    FewerCards,
    MoreCards,
    Leftmost,
    Rightmost,
}

/// How often each row is the paying one over all possible hands.
#[derive(Debug, Clone)]
pub struct RowStats {
    /// Hands (rank multisets) for which the row is the first that matches.
    pub best: Vec<u64>,
    /// Hands that match the row at all.
    pub formable: Vec<u64>,
    /// For a row that is never best but formable: the row above that takes
    /// its hands most often.
    pub shadowed_by: Vec<Option<usize>>,
}

#[derive(Debug, Clone)]
pub struct Exchange {
    pub deck: Deck,
    pub hand: usize,
    pub entry: i64,
    pub cost: i64,
    pub rows: Vec<Row>,
    /// Row index per ordered rank tuple (u8::MAX: impossible tuple).
    table: Vec<u8>,
    /// `ranks ^ position` for each hand position.
    place: Vec<usize>,
    /// Choices (discard position masks) in preference order.
    choices: Vec<u32>,
    /// Draw multisets per exchange size: rank lists, sorted.
    draws: Vec<Vec<Vec<usize>>>,
    pub stay: Template,
    pub exchange: Template,
    pub terminator: String,
}

/// The lowered rules an [`Exchange`] is built from.
pub struct ExchangeSpec {
    pub deck: Deck,
    pub hand: usize,
    pub entry: i64,
    pub cost: i64,
    pub sizes: Vec<usize>,
    pub prefer: Vec<Prefer>,
    pub rows: Vec<Row>,
    pub stay: Template,
    pub exchange: Template,
    pub terminator: String,
}

impl Exchange {
    /// Compiles the table. Fails (with a message) only when the table would
    /// be too large; check reports that before.
    pub fn build(spec: ExchangeSpec) -> (Exchange, RowStats) {
        let r = spec.deck.ranks.len();
        let h = spec.hand;
        let mut place = Vec::with_capacity(h);
        let mut p = 1usize;
        for _ in 0..h {
            place.push(p);
            p = p.saturating_mul(r);
        }
        let mut table = vec![u8::MAX; p.min(MAX_TABLE)];
        let n_rows = spec.rows.len();
        let mut stats = RowStats { best: vec![0; n_rows], formable: vec![0; n_rows], shadowed_by: vec![None; n_rows] };
        let mut taker = vec![vec![0u64; n_rows]; n_rows];
        let max_count = spec.deck.suits.len().min(h);
        let mut counts = vec![0u8; r];
        let mut scratch = vec![0u8; r];
        for_each_multiset(&mut counts, 0, h, max_count, &mut |counts| {
            let mut best = None;
            for (i, row) in spec.rows.iter().enumerate() {
                scratch.copy_from_slice(counts);
                if matches(&spec.deck, &mut scratch, &row.parts) {
                    stats.formable[i] += 1;
                    match best {
                        None => {
                            best = Some(i);
                            stats.best[i] += 1;
                        }
                        Some(b) => taker[i][b] += 1,
                    }
                }
            }
            let b = best.map_or(u8::MAX, |b| b as u8);
            if p <= MAX_TABLE {
                fill_permutations(&mut counts.to_vec(), 0, 0, &place, &mut table, b);
            }
        });
        for i in 0..n_rows {
            if stats.best[i] == 0 && stats.formable[i] > 0 {
                stats.shadowed_by[i] = (0..i).max_by_key(|&j| taker[i][j]);
            }
        }
        let choices = choice_order(h, &spec.sizes, &spec.prefer);
        let max_k = spec.sizes.iter().copied().max().unwrap_or(0);
        let draws = (0..=max_k).map(|k| multisets(r, k, spec.deck.suits.len())).collect();
        let ex = Exchange {
            deck: spec.deck,
            hand: h,
            entry: spec.entry,
            cost: spec.cost,
            rows: spec.rows,
            table,
            place,
            choices,
            draws,
            stay: spec.stay,
            exchange: spec.exchange,
            terminator: spec.terminator,
        };
        (ex, stats)
    }

    /// The table size a hand of `hand` cards over `ranks` ranks needs.
    pub fn table_size(ranks: usize, hand: usize) -> Option<usize> {
        (0..hand).try_fold(1usize, |acc, _| acc.checked_mul(ranks)).filter(|&n| n <= MAX_TABLE)
    }

    fn row_of(&self, key: usize) -> usize {
        self.table[key] as usize
    }

    /// The paying row of a hand of ranks (in any order).
    pub fn row_of_ranks(&self, ranks: &[usize]) -> usize {
        self.row_of(ranks.iter().zip(&self.place).map(|(r, p)| r * p).sum())
    }

    /// Evaluates one deal: the best choice (a discard mask, 0 = stay) and
    /// the value of every choice considered.
    pub fn decide(&self, cards: &[Card]) -> (u32, Vec<Value>) {
        self.decide_with(cards, true)
    }

    fn decide_with(&self, cards: &[Card], keep_all: bool) -> (u32, Vec<Value>) {
        let suits = self.deck.suits.len();
        let nr = self.deck.ranks.len();
        let mut avail = [0i64; 64];
        let avail = &mut avail[..nr.min(64)];
        avail.iter_mut().for_each(|a| *a = suits as i64);
        let mut ranks = [0usize; 32];
        let mut key = 0usize;
        for (i, &c) in cards.iter().enumerate() {
            let r = self.deck.rank(c);
            ranks[i] = r;
            avail[r] -= 1;
            key += r * self.place[i];
        }
        let remaining = (self.deck.size() - self.hand) as i64;
        let mut best: Option<Value> = None;
        let mut best_mask = 0;
        let mut all = Vec::new();
        for &mask in &self.choices {
            let k = mask.count_ones() as usize;
            let value = if k == 0 {
                Value { sum: self.rows[self.row_of(key)].pays, ways: 1, cost: self.entry }
            } else {
                let mut base = key;
                let mut pos = [0usize; 32];
                let mut n = 0;
                for i in 0..self.hand {
                    if mask >> i & 1 == 1 {
                        base -= ranks[i] * self.place[i];
                        pos[n] = self.place[i];
                        n += 1;
                    }
                }
                let mut sum = 0i64;
                for draw in &self.draws[k] {
                    let mut weight = 1i64;
                    let mut idx = base;
                    let mut j = 0;
                    while j < draw.len() {
                        let r = draw[j];
                        let mut m = 1;
                        while j + m < draw.len() && draw[j + m] == r {
                            m += 1;
                        }
                        weight *= binom(avail[r], m as i64);
                        for t in 0..m {
                            idx += r * pos[j + t];
                        }
                        j += m;
                    }
                    if weight != 0 {
                        sum += weight * self.rows[self.row_of(idx)].pays;
                    }
                }
                Value { sum, ways: binom(remaining, k as i64), cost: self.entry + self.cost * k as i64 }
            };
            if best.is_none_or(|b| value.cmp(&b) == Ordering::Greater) {
                best = Some(value);
                best_mask = mask;
            }
            if keep_all {
                all.push(value);
            }
        }
        (best_mask, all)
    }

    /// Runs every deal of the input, one output line each.
    pub fn run(&self, input: &str, out: &mut Output) -> Result<(), RunError> {
        let mut lines = Lines::new(input);
        let mut cards = vec![0 as Card; self.hand];
        let mut tokens: Vec<&str> = Vec::with_capacity(self.hand);
        let mut buf = Vec::with_capacity(64);
        loop {
            let Some(line) = lines.next_nonblank() else {
                return Err(lines
                    .error_at_end(format!("expected a deal of {} cards or `{}`, found end of input", self.hand, self.terminator))
                    .with_help(format!("the input ends with a line holding only `{}`", self.terminator))
                    .into());
            };
            if line.text.trim() == self.terminator {
                return Ok(());
            }
            tokens.clear();
            for (i, tok) in line.tokens().enumerate() {
                if i == self.hand {
                    return Err(tok
                        .error(format!("expected {} cards on this line, found more", self.hand))
                        .with_help("one deal per line, cards separated by spaces")
                        .into());
                }
                let Some(card) = self.deck.parse_card(tok.text) else {
                    return Err(tok.error(self.deck.explain_bad_card(tok.text)).into());
                };
                if let Some(first) = cards[..i].iter().position(|&c| c == card) {
                    return Err(tok
                        .error(format!("card `{}` appears twice in this deal", tok.text))
                        .with_help(format!("it is already card {} of the deal", first + 1))
                        .into());
                }
                cards[i] = card;
                tokens.push(tok.text);
            }
            if tokens.len() < self.hand {
                return Err(line
                    .error_at_end(format!("expected {} cards on this line, found {}", self.hand, tokens.len()))
                    .with_help(format!("one deal of {} cards per line; the input ends with `{}`", self.hand, self.terminator))
                    .into());
            }
            let (mask, _) = self.decide_with(&cards, false);
            buf.clear();
            if mask == 0 {
                self.stay.line(&mut buf, &[]);
            } else {
                let chosen: Vec<&str> = (0..self.hand).filter(|i| mask >> i & 1 == 1).map(|i| tokens[i]).collect();
                self.exchange.line(&mut buf, &[Val::Strs(&chosen), Val::Int(chosen.len() as i64)]);
            }
            out.write(&buf)?;
        }
    }

    /// The discard mask of each choice, in preference order.
    pub fn choices(&self) -> &[u32] {
        &self.choices
    }
}

/// The exact value of a choice: `sum / ways - cost`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Value {
    pub sum: i64,
    pub ways: i64,
    pub cost: i64,
}

impl Value {
    /// Numerator and denominator of `sum / ways - cost`, reduced.
    pub fn fraction(&self) -> (i64, i64) {
        let num = self.sum - self.cost * self.ways;
        let g = gcd(num.unsigned_abs(), self.ways.unsigned_abs()).max(1) as i64;
        (num / g, self.ways / g)
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Value {
    /// Exact comparison of `sum/ways - cost` by cross-multiplication.
    fn cmp(&self, other: &Self) -> Ordering {
        let a = (self.sum as i128 - self.cost as i128 * self.ways as i128) * other.ways as i128;
        let b = (other.sum as i128 - other.cost as i128 * other.ways as i128) * self.ways as i128;
        a.cmp(&b)
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn binom(n: i64, k: i64) -> i64 {
    if k < 0 || k > n {
        return 0;
    }
    let mut r = 1i64;
    for i in 0..k {
        r = r * (n - i) / (i + 1);
    }
    r
}

/// Calls `f` with every count vector of `total` cards, each count at most `max`.
fn for_each_multiset(counts: &mut [u8], at: usize, total: usize, max: usize, f: &mut dyn FnMut(&[u8])) {
    if at == counts.len() {
        if total == 0 {
            f(counts);
        }
        return;
    }
    for c in 0..=max.min(total) {
        counts[at] = c as u8;
        for_each_multiset(counts, at + 1, total - c, max, f);
    }
    counts[at] = 0;
}

/// Writes `row` at every ordering of the multiset `counts`.
fn fill_permutations(counts: &mut [u8], pos: usize, key: usize, place: &[usize], table: &mut [u8], row: u8) {
    if pos == place.len() {
        table[key] = row;
        return;
    }
    for r in 0..counts.len() {
        if counts[r] > 0 {
            counts[r] -= 1;
            fill_permutations(counts, pos + 1, key + r * place[pos], place, table, row);
            counts[r] += 1;
        }
    }
}

/// Sorted rank lists of `k` draws, each rank at most `max` times.
fn multisets(ranks: usize, k: usize, max: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur = Vec::with_capacity(k);
    fn rec(start: usize, ranks: usize, k: usize, max: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for r in start..ranks {
            let used = cur.iter().filter(|&&x| x == r).count();
            if used < max {
                cur.push(r);
                rec(r, ranks, k, max, cur, out);
                cur.pop();
            }
        }
    }
    rec(0, ranks, k, max, &mut cur, &mut out);
    out
}

/// Does the hand (rank counts, consumed as parts take cards) form `parts`?
pub fn matches(deck: &Deck, counts: &mut [u8], parts: &[Part]) -> bool {
    let Some((first, rest)) = parts.split_first() else { return true };
    let n = counts.len();
    match first {
        Part::Ranks(rs) => {
            if rs.iter().all(|&r| counts[r] > 0) {
                rs.iter().for_each(|&r| counts[r] -= 1);
                let ok = matches(deck, counts, rest);
                rs.iter().for_each(|&r| counts[r] += 1);
                return ok;
            }
            false
        }
        Part::Kind(k) => {
            for r in 0..n {
                if counts[r] as usize >= *k {
                    counts[r] -= *k as u8;
                    let ok = matches(deck, counts, rest);
                    counts[r] += *k as u8;
                    if ok {
                        return true;
                    }
                }
            }
            false
        }
        Part::Run(len) => {
            let starts = if deck.wrap { n } else { n.saturating_sub(len - 1) };
            if *len > n {
                return false;
            }
            'start: for s in 0..starts {
                let mut r = s;
                for step in 0..*len {
                    if counts[r] == 0 {
                        continue 'start;
                    }
                    if step + 1 < *len {
                        r = match deck.next_rank(r) {
                            Some(x) => x,
                            None => continue 'start,
                        };
                    }
                }
                let mut r = s;
                for _ in 0..*len {
                    counts[r] -= 1;
                    r = deck.next_rank(r).unwrap_or(r);
                }
                let ok = matches(deck, counts, rest);
                let mut r = s;
                for _ in 0..*len {
                    counts[r] += 1;
                    r = deck.next_rank(r).unwrap_or(r);
                }
                if ok {
                    return true;
                }
            }
            false
        }
    }
}

/// Every discard mask with an allowed size, in the preferred order.
fn choice_order(hand: usize, sizes: &[usize], prefer: &[Prefer]) -> Vec<u32> {
    let mut masks: Vec<u32> = (0..1u32 << hand).filter(|m| sizes.contains(&(m.count_ones() as usize))).collect();
    let positions = |m: u32| -> Vec<usize> { (0..hand).filter(|i| m >> i & 1 == 1).collect() };
    masks.sort_by(|&a, &b| {
        let (pa, pb) = (positions(a), positions(b));
        for p in prefer.iter().chain([Prefer::FewerCards, Prefer::Leftmost].iter()) {
            let o = match p {
                Prefer::FewerCards => pa.len().cmp(&pb.len()),
                Prefer::MoreCards => pb.len().cmp(&pa.len()),
                Prefer::Leftmost => pa.cmp(&pb),
                Prefer::Rightmost => {
                    let ra: Vec<_> = pa.iter().rev().collect();
                    let rb: Vec<_> = pb.iter().rev().collect();
                    rb.cmp(&ra)
                }
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    });
    masks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_compare_exactly() {
        // 381/47 - 2 vs 0: from the statement's example.
        let a = Value { sum: 4 * 100 + 8 * 5 + 35, ways: 47, cost: 2 };
        let b = Value { sum: 1, ways: 1, cost: 1 };
        assert_eq!(a.cmp(&b), Ordering::Greater);
        assert_eq!(a.fraction(), (381, 47));
    }

    #[test]
    fn leftmost_choices_come_first_within_a_size() {
        let order = choice_order(3, &[0, 1, 2], &[Prefer::FewerCards, Prefer::Leftmost]);
        assert_eq!(order, vec![0b000, 0b001, 0b010, 0b100, 0b011, 0b101, 0b110]);
    }
}
