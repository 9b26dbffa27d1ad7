//! The exchange engine: a hand is dealt from a deck; the player keeps it or
//! exchanges some of its cards for random replacements from the rest of the
//! deck, paying per card; a combination table pays the first row the final
//! hand can form. The engine picks the choice with the highest expected
//! earning, compared exactly, with the rule file's tie-break order.
//!
//! Loading compiles the combination table into small lookup tables: the
//! paying row of every multiset of ranks, and for each exchange size k the
//! row of every (kept multiset, k drawn ranks), so the expectation loop does
//! one byte load and one multiply-add per possible draw.

mod analyze;
mod explain;
pub mod lower;
pub mod schema;

use std::cmp::Ordering;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

use crate::engines::cards::{Card, Dealt, Deck};
use crate::game::{records, Cases, Explanation, Game, Input, InputError, RunError, RunOptions};
use crate::source::Span;
use crate::template::{NoFields, OutputLine};

/// Largest lookup table accepted (entries of one table).
pub const MAX_TABLE: usize = 1 << 24;
/// Most ranks a deck may have for this engine.
pub const MAX_RANKS: usize = 64;
/// Largest hand.
pub const MAX_HAND: usize = 16;
/// Largest payout (payout sums stay far from overflow).
pub const MAX_PAYOUT: i64 = 1_000_000_000;

crate::fields! {
    /// The fields of the `exchange` line: the discarded cards as written,
    /// and how many.
    pub struct ExchangeFields<'a> {
        "cards" cards: &'a [&'a str],
        "count" count: i64,
    }
}

/// One deal as read: its cards, and the line they are written on with
/// each card's place in it.
#[derive(Debug, Clone, Default)]
pub struct Deal {
    pub cards: Vec<Card>,
    line: String,
    tokens: Vec<(u32, u32)>,
}

impl Deal {
    fn start(&mut self, line: &str) {
        self.cards.clear();
        self.tokens.clear();
        self.line.clear();
        self.line.push_str(line);
    }

    fn push(&mut self, card: Card, at: usize, len: usize) {
        self.cards.push(card);
        self.tokens.push((at as u32, (at + len) as u32));
    }

    /// Card `i` as written in the input.
    pub fn token(&self, i: usize) -> &str {
        let (a, b) = self.tokens[i];
        &self.line[a as usize..b as usize]
    }
}

impl Game for Exchange {
    fn run(&self, input: &mut Input, out: &mut crate::game::Output, opts: &RunOptions) -> Result<(), RunError> {
        crate::game::run_cases(self, input, out, opts)
    }

    fn analysis(&self) -> Option<&dyn crate::game::Analyze> {
        Some(self)
    }

    fn explainer(&self) -> Option<&dyn crate::game::Explain> {
        Some(self)
    }
}

impl Cases for Exchange {
    type Case = Deal;
    type Reader = Dealt;
    type Scratch = ();

    fn read(&self, input: &mut Input, dealt: &mut Dealt, deal: &mut Deal) -> Result<bool, InputError> {
        self.read_deal(input, dealt, deal)
    }

    fn solve(&self, deal: &Deal, _: &mut (), _: &RunOptions, out: &mut Vec<u8>) -> Result<(), RunError> {
        let mask = self.best(&deal.cards);
        self.render(out, mask, deal);
        Ok(())
    }

    fn explain(
        &self,
        deal: &Deal,
        _: &mut (),
        _: &RunOptions,
        each: &mut dyn FnMut(Explanation) -> Result<(), RunError>,
    ) -> Result<(), RunError> {
        each(self.explain_deal(deal))
    }
}

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

/// A deal's ranks in sorted order, where each input position went, and
/// how many cards of each rank are left in the deck.
struct SortedHand {
    ranks: [u8; MAX_HAND],
    /// `slot[input position]` = position in `ranks`.
    slot: [u8; MAX_HAND],
    len: usize,
    multiset: usize,
}

impl SortedHand {
    /// A discard mask over input positions, as a mask over sorted positions.
    #[inline]
    fn to_sorted(&self, mask: u32) -> u32 {
        let mut m = mask;
        let mut out = 0;
        while m != 0 {
            let p = m.trailing_zeros() as usize;
            out |= 1 << self.slot[p];
            m &= m - 1;
        }
        out
    }
}

/// Hands up to this size keep their optimal choices per rank multiset.
pub const MEMO_HAND: usize = 6;

/// One multiset of drawn ranks: its offset in a draw table (rank j of the
/// draw at digit j) and each rank with its multiplicity.
#[derive(Debug, Clone)]
struct Draw {
    offset: usize,
    counts: Vec<(usize, usize)>,
}

/// Multisets of ranks are numbered by the combinatorial number system: a
/// sorted list a0 <= a1 <= ... maps to sum C(a_i + i, i + 1).
#[derive(Debug, Clone)]
struct Ranker {
    /// `c[n][k]` = C(n, k).
    c: Vec<Vec<usize>>,
    /// `term[i * ranks + a]` = C(a + i, i + 1): one flat load per element.
    term: Vec<usize>,
    ranks: usize,
}

impl Ranker {
    fn new(n: usize, k: usize) -> Ranker {
        let mut c = vec![vec![0usize; k + 2]; n + k + 2];
        for i in 0..c.len() {
            c[i][0] = 1;
            for j in 1..=(k + 1).min(i) {
                c[i][j] = c[i - 1][j - 1].saturating_add(c[i - 1][j]);
            }
        }
        let term = (0..k.max(1)).flat_map(|i| (0..n).map(move |a| (i, a))).map(|(i, a)| c[a + i][i + 1]).collect();
        Ranker { c, term, ranks: n }
    }

    /// The number of multisets of `k` elements of `n` ranks.
    fn count(&self, n: usize, k: usize) -> usize {
        if k == 0 {
            1
        } else {
            self.c[n + k - 1][k]
        }
    }

    #[inline]
    fn rank(&self, sorted: &[usize]) -> usize {
        sorted.iter().enumerate().map(|(i, &a)| self.term[i * self.ranks + a]).sum()
    }

    #[inline]
    fn rank_u8(&self, sorted: &[u8]) -> usize {
        sorted.iter().enumerate().map(|(i, &a)| self.term[i * self.ranks + a as usize]).sum()
    }
}

#[derive(Debug)]
pub struct Exchange {
    pub deck: Deck,
    pub hand: usize,
    pub entry: i64,
    pub cost: i64,
    pub rows: Vec<Row>,
    ranker: Ranker,
    /// Paying row of every hand, by multiset rank (u8::MAX: impossible).
    full: Vec<u8>,
    /// Per exchange size k: the payout by (rank of the kept multiset) *
    /// ranks^k + (drawn ranks as base-`ranks` digits); 0 where impossible.
    by_k: Vec<Vec<i32>>,
    /// ranks^k.
    draw_span: Vec<usize>,
    /// Choices (discard position masks) in preference order.
    choices: Vec<u32>,
    /// Allowed exchange sizes.
    sizes: Vec<usize>,
    /// Per rank multiset: the optimal sorted discard masks (0: not yet known).
    memo: Vec<AtomicU64>,
    /// Draw multisets per exchange size.
    draws: Vec<Vec<Draw>>,
    /// Payout of each row, indexed by the tables' row bytes.
    pays: [i64; 256],
    /// `binom[n][m]` = C(n, m) for n up to the suit count.
    binom: Vec<Vec<i64>>,
    pub stay: OutputLine<NoFields>,
    pub exchange: OutputLine<ExchangeFields<'static>>,
    pub terminator: String,
    /// Where the rules that decide are written (for explanations).
    pub spans: ExchangeSpans,
}

/// Where each deciding rule is written in the rule file.
#[derive(Debug, Clone, Default)]
pub struct ExchangeSpans {
    /// Each combination row's header.
    pub rows: Vec<Span>,
    pub entry: Span,
    pub cost: Span,
    pub exchange: Span,
    pub prefer: Span,
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
    pub stay: OutputLine<NoFields>,
    pub exchange: OutputLine<ExchangeFields<'static>>,
    pub terminator: String,
    pub spans: ExchangeSpans,
}

impl Exchange {
    /// Entries of the largest table a hand of `hand` cards over `ranks`
    /// ranks with exchanges of up to `max_k` cards needs, if it is allowed.
    pub fn table_size(ranks: usize, hand: usize, max_k: usize) -> Option<usize> {
        if ranks == 0 || ranks > MAX_RANKS {
            return None;
        }
        let ranker = Ranker::new(ranks, hand);
        (0..=max_k.min(hand))
            .map(|k| ranker.count(ranks, hand - k).checked_mul(ranks.checked_pow(k as u32)?))
            .try_fold(0usize, |m, n| n.map(|n| m.max(n)))
            .filter(|&n| n <= MAX_TABLE)
    }

    /// Compiles the tables. The caller checked [`Exchange::table_size`].
    pub fn build(spec: ExchangeSpec) -> (Exchange, RowStats) {
        let r = spec.deck.ranks.len();
        let h = spec.hand;
        let suits = spec.deck.suits.len();
        let ranker = Ranker::new(r, h);
        let n_rows = spec.rows.len();
        let mut stats = RowStats { best: vec![0; n_rows], formable: vec![0; n_rows], shadowed_by: vec![None; n_rows] };
        let mut taker = vec![vec![0u64; n_rows]; n_rows];
        let mut full = vec![u8::MAX; ranker.count(r, h)];
        let mut counts = vec![0u8; r];
        let mut scratch = vec![0u8; r];
        let mut sorted = Vec::with_capacity(h);
        let all_parts: Vec<&[Part]> = spec.rows.iter().map(|r| r.parts.as_slice()).collect();
        let matcher = Matcher::new(&spec.deck, &all_parts);
        for_each_multiset(&mut counts, 0, h, suits.min(h), &mut |counts| {
            let mut best = None;
            scratch.copy_from_slice(counts);
            let present = counts.iter().enumerate().fold(0u64, |m, (r, &c)| if c > 0 { m | 1 << r } else { m });
            for (i, row) in spec.rows.iter().enumerate() {
                if matcher.matches_in(&mut scratch, present, &row.parts) {
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
            sorted.clear();
            for (rank, &c) in counts.iter().enumerate() {
                sorted.extend(std::iter::repeat_n(rank, c as usize));
            }
            full[ranker.rank(&sorted)] = best.map_or(u8::MAX, |b| b as u8);
        });
        for (i, takers) in taker.iter().enumerate() {
            if stats.best[i] == 0 && stats.formable[i] > 0 {
                stats.shadowed_by[i] = (0..i).max_by_key(|&j| takers[j]);
            }
        }

        let max_k = spec.sizes.iter().copied().max().unwrap_or(0);
        let mut by_k = vec![Vec::new(); max_k + 1];
        let mut draw_span = vec![1usize; max_k + 1];
        for k in 1..=max_k {
            draw_span[k] = r.pow(k as u32);
            if !spec.sizes.contains(&k) {
                continue;
            }
            let mut table = vec![0i32; ranker.count(r, h - k) * draw_span[k]];
            let mut merged = Vec::with_capacity(h);
            for kept in multisets(r, h - k, suits) {
                let base = ranker.rank(&kept) * draw_span[k];
                for d in 0..draw_span[k] {
                    merged.clear();
                    merged.extend_from_slice(&kept);
                    let mut x = d;
                    for _ in 0..k {
                        merged.push(x % r);
                        x /= r;
                    }
                    merged.sort_unstable();
                    let too_many = merged.windows(suits + 1).any(|w| w[0] == w[suits]);
                    let row = full[ranker.rank(&merged)];
                    if !too_many && row != u8::MAX {
                        table[base + d] = spec.rows[row as usize].pays as i32;
                    }
                }
            }
            by_k[k] = table;
        }

        let choices = choice_order(h, &spec.sizes, &spec.prefer);
        let memo = if h <= MEMO_HAND { (0..full.len()).map(|_| AtomicU64::new(0)).collect() } else { Vec::new() };
        let draws = (0..=max_k)
            .map(|k| {
                multisets(r, k, suits)
                    .into_iter()
                    .map(|ranks| {
                        let offset = ranks.iter().rev().fold(0, |acc, &x| acc * r + x);
                        let mut counts: Vec<(usize, usize)> = Vec::new();
                        for &x in &ranks {
                            match counts.last_mut() {
                                Some((y, m)) if *y == x => *m += 1,
                                _ => counts.push((x, 1)),
                            }
                        }
                        Draw { offset, counts }
                    })
                    .collect()
            })
            .collect();
        let binom_table =
            (0..=suits as i64).map(|n| (0..=max_k.max(1) as i64).map(|m| binom(n, m)).collect()).collect();
        let mut pays = [0i64; 256];
        for (i, row) in spec.rows.iter().enumerate().take(255) {
            pays[i] = row.pays;
        }
        let ex = Exchange {
            deck: spec.deck,
            hand: h,
            entry: spec.entry,
            cost: spec.cost,
            rows: spec.rows,
            ranker,
            full,
            by_k,
            draw_span,
            choices,
            sizes: spec.sizes,
            memo,
            draws,
            pays,
            binom: binom_table,
            stay: spec.stay,
            exchange: spec.exchange,
            terminator: spec.terminator,
            spans: spec.spans,
        };
        (ex, stats)
    }

    /// The paying row of a hand of ranks (in any order).
    pub fn row_of_ranks(&self, ranks: &[usize]) -> usize {
        let mut sorted = ranks.to_vec();
        sorted.sort_unstable();
        self.full[self.ranker.rank(&sorted)] as usize
    }

    /// Evaluates one deal: the best choice (a discard mask over input
    /// positions, 0 = stay) and the value of every choice, in preference
    /// order (for explanations; the run loop uses [`Exchange::best`]).
    pub fn decide(&self, cards: &[Card]) -> (u32, Vec<Value>) {
        let hand = self.sort_hand(cards);
        let mut best: Option<Value> = None;
        let mut best_mask = 0;
        let mut all = Vec::with_capacity(self.choices.len());
        for &mask in &self.choices {
            let value = self.value_of(&hand, hand.to_sorted(mask));
            if best.is_none_or(|b| value > b) {
                best = Some(value);
                best_mask = mask;
            }
            all.push(value);
        }
        (best_mask, all)
    }

    /// The best choice for a deal (a discard mask over input positions).
    /// The optimal choices of a rank multiset are computed once and kept
    /// as a bit set over discard masks of the sorted hand.
    pub fn best(&self, cards: &[Card]) -> u32 {
        let hand = self.sort_hand(cards);
        if self.memo.is_empty() {
            return self.decide(cards).0;
        }
        let slot = &self.memo[hand.multiset];
        let mut optimal = slot.load(AtomicOrdering::Relaxed);
        if optimal == 0 {
            optimal = self.optimal_set(&hand);
            slot.store(optimal, AtomicOrdering::Relaxed);
        }
        for &mask in &self.choices {
            if optimal >> hand.to_sorted(mask) & 1 == 1 {
                return mask;
            }
        }
        0
    }

    /// For explanations: how many of the equally likely draws of a choice
    /// (a discard mask over input positions) end in each row.
    pub fn draw_rows(&self, cards: &[Card], mask: u32) -> Vec<i64> {
        let hand = self.sort_hand(cards);
        let smask = hand.to_sorted(mask);
        let suits = self.deck.suits.len() as i64;
        let mut avail = vec![suits; self.deck.ranks.len()];
        let mut kept = Vec::new();
        for j in 0..hand.len {
            let r = hand.ranks[j] as usize;
            avail[r] -= 1;
            if smask >> j & 1 == 0 {
                kept.push(r);
            }
        }
        let mut rows = vec![0i64; self.rows.len()];
        for draw in &self.draws[smask.count_ones() as usize] {
            let weight: i64 = draw.counts.iter().map(|&(r, m)| self.binom[avail[r] as usize][m]).product();
            if weight == 0 {
                continue;
            }
            let mut all = kept.clone();
            for &(r, m) in &draw.counts {
                all.extend(std::iter::repeat_n(r, m));
            }
            rows[self.row_of_ranks(&all)] += weight;
        }
        rows
    }

    /// Bit `m` set for every sorted discard mask `m` whose value is the best.
    fn optimal_set(&self, hand: &SortedHand) -> u64 {
        let mut best: Option<Value> = None;
        let mut set = 0u64;
        for m in 0..1u32 << self.hand {
            if !self.sizes.contains(&(m.count_ones() as usize)) {
                continue;
            }
            let v = self.value_of(hand, m);
            match best.map(|b| v.cmp(&b)) {
                None | Some(Ordering::Greater) => {
                    best = Some(v);
                    set = 1 << m;
                }
                Some(Ordering::Equal) => set |= 1 << m,
                Some(Ordering::Less) => {}
            }
        }
        set
    }

    fn sort_hand(&self, cards: &[Card]) -> SortedHand {
        let mut h = SortedHand { ranks: [0; MAX_HAND], slot: [0; MAX_HAND], len: cards.len(), multiset: 0 };
        let mut pos = [0u8; MAX_HAND];
        for (i, &c) in cards.iter().enumerate() {
            let r = self.deck.rank(c) as u8;
            let mut j = i;
            while j > 0 && h.ranks[j - 1] > r {
                h.ranks[j] = h.ranks[j - 1];
                pos[j] = pos[j - 1];
                j -= 1;
            }
            h.ranks[j] = r;
            pos[j] = i as u8;
        }
        for (j, &p) in pos[..cards.len()].iter().enumerate() {
            h.slot[p as usize] = j as u8;
        }
        h.multiset = self.ranker.rank_u8(&h.ranks[..cards.len()]);
        h
    }

    /// The exact value of discarding the cards at sorted positions `smask`.
    fn value_of(&self, hand: &SortedHand, smask: u32) -> Value {
        let nr = self.deck.ranks.len();
        let k = smask.count_ones() as usize;
        let mut kept = [0usize; MAX_HAND];
        let mut n = 0;
        let mut avail = [self.deck.suits.len() as i32; MAX_RANKS];
        for j in 0..hand.len {
            let r = hand.ranks[j] as usize;
            avail[r] -= 1;
            if smask >> j & 1 == 0 {
                kept[n] = r;
                n += 1;
            }
        }
        let kept_rank = self.ranker.rank(&kept[..n]);
        let remaining = (self.deck.size() - self.hand) as i64;
        match k {
            0 => Value { sum: self.pays[self.full[kept_rank] as usize], ways: 1, cost: self.entry },
            1 => {
                let at = kept_rank * nr;
                let block = &self.by_k[1][at..at + nr];
                let sum: i64 = block.iter().zip(&avail[..nr]).map(|(&pay, &a)| a as i64 * pay as i64).sum();
                Value { sum, ways: remaining, cost: self.entry + self.cost }
            }
            _ => {
                let table = &self.by_k[k];
                let at = kept_rank * self.draw_span[k];
                let mut sum = 0i64;
                for draw in &self.draws[k] {
                    let mut weight = 1i64;
                    for &(r, m) in &draw.counts {
                        weight *= self.binom[avail[r] as usize][m];
                    }
                    sum += weight * table[at + draw.offset] as i64;
                }
                Value { sum, ways: binom(remaining, k as i64), cost: self.entry + self.cost * k as i64 }
            }
        }
    }

    /// The exact expected earning and stake per game under optimal play,
    /// over every deal of `hand` cards, each equally likely: deals are
    /// grouped by rank multiset (the values depend on nothing else).
    pub fn expected_return(&self, progress: &mut dyn FnMut(u64, u64)) -> ExpectedReturn {
        let nr = self.deck.ranks.len();
        let suits = self.deck.suits.len();
        let remaining = (self.deck.size() - self.hand) as i128;
        let lcm = self.sizes.iter().fold(1i128, |l, &k| {
            let w = binom(remaining as i64, k as i64) as i128;
            l / gcd(l.unsigned_abs() as u64, w.unsigned_abs() as u64) as i128 * w
        });
        let (mut earn, mut stake, mut deals) = (0i128, 0i128, 0i128);
        let total = self.full.len() as u64;
        let mut done = 0u64;
        let mut counts = vec![0u8; nr];
        for_each_multiset(&mut counts, 0, self.hand, suits.min(self.hand), &mut |counts| {
            let weight: i128 = counts.iter().map(|&c| binom(suits as i64, c as i64) as i128).product();
            let mut hand = SortedHand { ranks: [0; MAX_HAND], slot: [0; MAX_HAND], len: self.hand, multiset: 0 };
            let mut n = 0;
            for (r, &c) in counts.iter().enumerate() {
                for _ in 0..c {
                    hand.ranks[n] = r as u8;
                    n += 1;
                }
            }
            let best = self.optimal_set(&hand);
            // The stake of the preferred optimal option: by card count.
            let more = self.prefers_more_cards();
            let m = (0..1u32 << self.hand)
                .filter(|m| best >> m & 1 == 1)
                .min_by_key(|m| if more { -(m.count_ones() as i64) } else { m.count_ones() as i64 })
                .unwrap_or(0);
            let v = self.value_of(&hand, m);
            earn += weight * (v.sum as i128 * (lcm / v.ways as i128) - v.cost as i128 * lcm);
            stake += weight * v.cost as i128;
            deals += weight;
            done += 1;
            if done.is_multiple_of(256) {
                progress(done, total);
            }
        });
        progress(total, total);
        ExpectedReturn { earning: reduce(earn, lcm * deals), stake: reduce(stake, deals), deals }
    }

    fn prefers_more_cards(&self) -> bool {
        // The first count criterion in the preference order decides.
        self.choices.len() > 1 && self.choices[0].count_ones() > self.choices[self.choices.len() - 1].count_ones()
    }

    /// Reads one deal into `deal`; false at the terminator line.
    fn read_deal(&self, input: &mut Input, dealt: &mut Dealt, deal: &mut Deal) -> Result<bool, InputError> {
        let what = || format!("a deal of {} cards", self.hand);
        let Some(line) = records::until_terminator(input, &self.terminator, what)? else {
            return Ok(false);
        };
        deal.start(line.text);
        dealt.start(self.deck.size());
        for (i, tok) in line.tokens().enumerate() {
            if i == self.hand {
                return Err(tok
                    .error(format!("expected {} cards on this line, found more", self.hand))
                    .with_help("one deal per line, cards separated by spaces"));
            }
            let card = dealt.card(&self.deck, &tok, || "this deal".to_string())?;
            deal.push(card, tok.offset - line.offset, tok.text.len());
        }
        if deal.cards.len() < self.hand {
            return Err(line
                .error_at_end(format!("expected {} cards on this line, found {}", self.hand, deal.cards.len()))
                .with_help(format!(
                    "one deal of {} cards per line; the input ends with `{}`",
                    self.hand, self.terminator
                )));
        }
        Ok(true)
    }

    /// The value of keeping the deal.
    fn stay_value(&self, cards: &[Card]) -> Value {
        let hand = self.sort_hand(cards);
        self.value_of(&hand, 0)
    }

    /// Renders the output line of a choice (with its newline).
    pub fn render(&self, buf: &mut Vec<u8>, mask: u32, deal: &Deal) {
        if mask == 0 {
            self.stay.line(buf, &NoFields);
        } else {
            let mut chosen = [""; MAX_HAND];
            let mut n = 0;
            for i in 0..deal.cards.len() {
                if mask >> i & 1 == 1 {
                    chosen[n] = deal.token(i);
                    n += 1;
                }
            }
            self.exchange.line(buf, &ExchangeFields { cards: &chosen[..n], count: n as i64 });
        }
    }

    /// The discard mask of each choice, in preference order.
    pub fn choices(&self) -> &[u32] {
        &self.choices
    }
}

/// Exact figures of a whole game (`arbiter analyze`): fractions as
/// (numerator, denominator), reduced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExpectedReturn {
    /// Expected net earning per game (payout minus everything paid).
    pub earning: (i128, i128),
    /// Expected amount paid per game (entry and exchanges).
    pub stake: (i128, i128),
    /// Number of distinct deals.
    pub deals: i128,
}

impl ExpectedReturn {
    /// Expected payout over expected stake, as a fraction.
    pub fn return_to_player(&self) -> (i128, i128) {
        let (en, ed) = self.earning;
        let (sn, sd) = self.stake;
        // (en/ed + sn/sd) / (sn/sd) = (en*sd + sn*ed) / (sn*ed)
        reduce(en * sd + sn * ed, sn * ed)
    }
}

fn reduce(n: i128, d: i128) -> (i128, i128) {
    let g = gcd(n.unsigned_abs() as u64, d.unsigned_abs() as u64).max(1) as i128;
    let g = if n.unsigned_abs() > u64::MAX as u128 || d.unsigned_abs() > u64::MAX as u128 { gcd128(n, d) } else { g };
    (n / g, d / g)
}

fn gcd128(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1) as i128
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
        if self.ways == other.ways && self.cost == other.cost {
            return self.sum.cmp(&other.sum);
        }
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

/// Pattern matching over rank counts. Runs are tested as bit masks of the
/// ranks present: `run_masks[n]` lists the rank sets of every run of n.
pub struct Matcher {
    run_masks: Vec<Vec<u64>>,
}

impl Matcher {
    pub fn new(deck: &Deck, parts_of: &[&[Part]]) -> Matcher {
        let longest = parts_of
            .iter()
            .flat_map(|ps| ps.iter())
            .map(|p| if let Part::Run(n) = p { *n } else { 0 })
            .max()
            .unwrap_or(0);
        let nr = deck.ranks.len();
        // A run longer than the deck has ranks never matches.
        let mut run_masks = vec![Vec::new(); longest.min(nr) + 1];
        for (len, masks) in run_masks.iter_mut().enumerate().skip(1) {
            if len > nr {
                continue;
            }
            'start: for s in 0..nr {
                let mut m = 0u64;
                let mut r = s;
                for step in 0..len {
                    m |= 1 << r;
                    if step + 1 < len {
                        r = match deck.next_rank(r) {
                            Some(x) => x,
                            None => continue 'start,
                        };
                    }
                }
                if !masks.contains(&m) {
                    masks.push(m);
                }
            }
        }
        Matcher { run_masks }
    }

    /// Does the hand (rank counts, consumed as parts take cards) form `parts`?
    pub fn matches(&self, counts: &mut [u8], parts: &[Part]) -> bool {
        let present = counts.iter().enumerate().fold(0u64, |m, (r, &c)| if c > 0 { m | 1 << r } else { m });
        self.matches_in(counts, present, parts)
    }

    /// `present`: the ranks whose count is not zero.
    fn matches_in(&self, counts: &mut [u8], present: u64, parts: &[Part]) -> bool {
        let Some((first, rest)) = parts.split_first() else { return true };
        match first {
            Part::Ranks(rs) => {
                if rs.iter().all(|&r| counts[r] > 0) {
                    rs.iter().for_each(|&r| counts[r] -= 1);
                    let ok = self.matches(counts, rest);
                    rs.iter().for_each(|&r| counts[r] += 1);
                    return ok;
                }
                false
            }
            Part::Kind(k) => {
                for r in 0..counts.len() {
                    if counts[r] as usize >= *k {
                        counts[r] -= *k as u8;
                        let ok = self.matches(counts, rest);
                        counts[r] += *k as u8;
                        if ok {
                            return true;
                        }
                    }
                }
                false
            }
            Part::Run(len) => {
                let Some(masks) = self.run_masks.get(*len) else { return false };
                for &m in masks {
                    if present & m != m {
                        continue;
                    }
                    if rest.is_empty() {
                        return true;
                    }
                    let mut bits = m;
                    let mut left = present;
                    while bits != 0 {
                        let r = bits.trailing_zeros() as usize;
                        counts[r] -= 1;
                        if counts[r] == 0 {
                            left &= !(1 << r);
                        }
                        bits &= bits - 1;
                    }
                    let ok = self.matches_in(counts, left, rest);
                    let mut bits = m;
                    while bits != 0 {
                        counts[bits.trailing_zeros() as usize] += 1;
                        bits &= bits - 1;
                    }
                    if ok {
                        return true;
                    }
                }
                false
            }
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
