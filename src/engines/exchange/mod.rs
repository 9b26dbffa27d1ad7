//! The exchange engine: a hand is dealt from a deck; the player keeps it or
//! exchanges some of its cards for random replacements from the cards not
//! dealt, paying per card; a combination table pays the first row the
//! final hand forms. The engine picks the choice with the highest expected
//! value, compared exactly, with the rule file's tie-break order.
//!
//! Layout:
//! - `pattern.rs`: the parts of a pattern and the two matchers (by rank
//!   counts, by cards and suits), wild cards included;
//! - `eval.rs`: the paying row of a hand, fast (a table by rank key, the
//!   suited rows tried only when they can come first);
//! - `ranks.rs`: the rank-only path (no row looks at suits, no wild card):
//!   totals over multisets of ranks, memo per multiset;
//! - `hands.rs`: the card path: every hand tabulated, totals per set of
//!   cards, classes of deals under suit symmetry;
//! - `choice.rs`: the tie-break (`prefer:`) as a comparison of masks;
//! - `analyze.rs`, `explain.rs`, `lower.rs`.
//!
//! Both paths value every choice of a deal by inclusion and exclusion over
//! the discarded cards, from totals computed once: one pass over 2^hand
//! numbers per deal, however many cards are drawn.

mod analyze;
mod by_class;
mod choice;
mod combi;
pub(crate) mod eval;
mod exchanged;
mod explain;
mod figures;
mod hands;
mod light;
pub mod lower;
pub(crate) mod pattern;
mod ranks;
mod read;
mod rounds;
pub(crate) mod schema;
mod strategy;
mod symmetry;

use std::cmp::Ordering;
use std::sync::atomic::{AtomicU8, Ordering as AtomicOrdering};
use std::sync::{Arc, LazyLock, OnceLock};

use rayon::prelude::*;

use crate::engines::cards::{Card, Dealt, Deck};
use crate::game::{Ahead, Cases, Explanation, Input, InputError, Mark, RunError, RunOptions};
use crate::source::Span;
use crate::template::{Fields, OutputLine};

pub use choice::Preference;
pub use eval::Eval;
use eval::NONE;
pub use exchanged::ByExchanged;
use hands::CardPath;
pub use pattern::{Part, Shape};
use ranks::{RankBox, RankPath};

/// A value computed on first use, by a closure that owns what it needs.
pub type Lazy<T> = LazyLock<T, Box<dyn FnOnce() -> T + Send>>;

/// Largest hand.
pub const MAX_HAND: usize = 16;
/// Largest hand when suits or wild cards count (every hand is tabulated).
pub const MAX_CARD_HAND: usize = 8;
/// Most ranks a deck may have for this engine.
pub const MAX_RANKS: usize = 64;
/// Largest payout.
pub const MAX_PAYOUT: i64 = 1_000_000_000;
/// Most hands tabulated on the card path, and most rank multisets on the
/// rank path.
pub const MAX_HANDS: u128 = 1 << 24;
/// Most steps of table building (rows tried on rank multisets, totals).
pub const MAX_WORK: u128 = 1 << 28;
/// Sums of payouts over every hand must stay below this (exact integers).
pub const MAX_SUM: u128 = 1 << 62;

crate::fields! {
    /// The fields of the output lines: the exchanged cards as written and
    /// how many, the kept cards as written, the row the dealt hand forms
    /// (empty when none), and the chosen choice's value (expected payout
    /// minus cost) as a decimal and as an exact fraction.
    pub struct HoldFields<'a> {
        "cards" cards: &'a [&'a str],
        "count" count: i64,
        "kept" kept: &'a [&'a str],
        "row" row: &'a str,
        "value" value: &'a str,
        "exact" exact: &'a str,
    }
}

/// The output lines: keeping every card, exchanging some, exchanging all.
#[derive(Debug, Clone)]
pub struct Lines {
    pub stay: OutputLine<HoldFields<'static>>,
    pub exchange: OutputLine<HoldFields<'static>>,
    /// `exchange-all`; the `exchange` line when absent.
    pub all: Option<OutputLine<HoldFields<'static>>>,
    /// Whether each line (stay, exchange, all) names no field, and
    /// whether it names the kept cards.
    literal: [bool; 3],
    kept: [bool; 3],
    /// Each line as pieces written straight from the deal's text, when no
    /// field has a width (see [`Piece`]).
    pieces: [Option<Vec<Piece>>; 3],
    /// Each line as text, at most one list of cards, text (see [`Flat`]).
    flat: [Option<Flat>; 3],
}

/// An output line made of short text, at most one list of cards (the
/// exchanged or the kept ones, as written), short text and its newline:
/// written with two fixed copies around the list, whatever the choice.
#[derive(Debug, Clone)]
struct Flat {
    before: Chunk<32>,
    /// The list: which cards, as bits to flip in a discard mask and to
    /// keep after (all bits: the exchanged cards; flipped, all bits: the
    /// kept ones; none: no list), and its separator.
    flip: u32,
    keep: u32,
    sep: Chunk<16>,
    /// The text after the list, with the newline.
    after: Chunk<32>,
}

impl Flat {
    fn of(pieces: &[Piece]) -> Option<Flat> {
        let mut text = [Vec::new(), Vec::new()];
        let mut list: Option<(bool, &Chunk<16>)> = None;
        for piece in pieces {
            match piece {
                Piece::Text(t) => text[usize::from(list.is_some())].extend_from_slice(t.bytes()),
                Piece::Cards(sep) | Piece::Kept(sep) if list.is_none() => {
                    list = Some((matches!(piece, Piece::Cards(_)), sep))
                }
                _ => return None,
            }
        }
        text[1].push(b'\n');
        let (flip, keep, sep) = match list {
            Some((true, sep)) => (0, u32::MAX, sep.clone()),
            Some((false, sep)) => (u32::MAX, u32::MAX, sep.clone()),
            None => (0, 0, Chunk::of(b"")?),
        };
        Some(Flat { before: Chunk::of(&text[0])?, flip, keep, sep, after: Chunk::of(&text[1])? })
    }
}

/// A piece of an output line without widths: text, the exchanged or kept
/// cards as written (joined by a separator), or their number.
#[derive(Debug, Clone)]
enum Piece {
    Text(Chunk<16>),
    Cards(Chunk<16>),
    Kept(Chunk<16>),
    Count,
}

/// Up to `N` bytes of text, stored whole so that writing it is one fixed
/// copy (cut to length), not a call.
#[derive(Debug, Clone)]
struct Chunk<const N: usize>([u8; N], usize);

impl<const N: usize> Chunk<N> {
    fn of(text: &[u8]) -> Option<Chunk<N>> {
        let mut bytes = [0u8; N];
        bytes.get_mut(..text.len())?.copy_from_slice(text);
        Some(Chunk(bytes, text.len()))
    }

    fn bytes(&self) -> &[u8] {
        &self.0[..self.1]
    }

    #[inline]
    fn put(&self, buf: &mut Vec<u8>) {
        let at = buf.len();
        buf.extend_from_slice(&self.0);
        buf.truncate(at + self.1);
    }
}

/// The pieces of a line, or `None` when a field has a width or fill.
fn pieces(l: &OutputLine<HoldFields<'static>>) -> Option<Vec<Piece>> {
    let name = |i: usize| HoldFields::NAMES.get(i).copied();
    let mut out = Vec::new();
    for part in &l.template.parts {
        match part {
            crate::template::Part::Lit(s) => {
                for c in s.as_bytes().chunks(16) {
                    out.push(Piece::Text(Chunk::of(c)?));
                }
            }
            crate::template::Part::Field { index, width: 0, sep, .. } => out.push(match name(*index)? {
                "cards" => Piece::Cards(Chunk::of(sep.as_bytes())?),
                "kept" => Piece::Kept(Chunk::of(sep.as_bytes())?),
                "count" => Piece::Count,
                _ => return None,
            }),
            crate::template::Part::Field { .. } => return None,
        }
    }
    Some(out)
}

impl Lines {
    pub fn new(
        stay: OutputLine<HoldFields<'static>>,
        exchange: OutputLine<HoldFields<'static>>,
        all: Option<OutputLine<HoldFields<'static>>>,
    ) -> Lines {
        let lit = |l: &OutputLine<HoldFields<'static>>| {
            l.template.parts.iter().all(|p| matches!(p, crate::template::Part::Lit(_)))
        };
        let literal = [lit(&stay), lit(&exchange), all.as_ref().map_or(lit(&exchange), lit)];
        let kept_at = HoldFields::NAMES.iter().position(|&n| n == "kept");
        let uses = |l: &OutputLine<HoldFields<'static>>| {
            l.template
                .parts
                .iter()
                .any(|p| matches!(p, crate::template::Part::Field { index, .. } if Some(*index) == kept_at))
        };
        let kept = [uses(&stay), uses(&exchange), all.as_ref().map_or(uses(&exchange), uses)];
        let pieces = [pieces(&stay), pieces(&exchange), pieces(all.as_ref().unwrap_or(&exchange))];
        let flat = [0, 1, 2].map(|i| pieces[i].as_deref().and_then(Flat::of));
        Lines { stay, exchange, all, literal, kept, pieces, flat }
    }
}

/// One deal as read: its cards, and the line they are written on with
/// each card's place in it.
#[derive(Debug, Clone, Default)]
pub struct Deal {
    pub cards: Vec<Card>,
    line: String,
    tokens: Vec<(u32, u32)>,
    /// The line was read as two-byte card names (see
    /// [`Dealt::quick_line`]): each card is written as its name, and
    /// `line` and `tokens` are not kept.
    quick: bool,
    /// The deal's class, when it was found as the deal before was read
    /// (see [`Exchange::look_ahead`]).
    class: Option<hands::Canonical>,
    /// The next line's cards and their class, found as this deal was
    /// read: the next deal read into this one takes the class when its
    /// cards are these.
    ahead: Option<([Card; 5], hands::Canonical)>,
}

impl Deal {
    fn start(&mut self, line: &str) {
        self.cards.clear();
        self.tokens.clear();
        self.line.clear();
        self.line.push_str(line);
        self.quick = false;
    }

    fn push(&mut self, card: Card, at: usize, len: usize) {
        self.cards.push(card);
        self.tokens.push((at as u32, (at + len) as u32));
    }

    /// Card `i` as written in the input.
    /// (Not for a quick deal: see [`Exchange::token`].)
    fn token(&self, i: usize) -> &str {
        let (a, b) = self.tokens[i];
        &self.line[a as usize..b as usize]
    }
}

/// Reused buffers of one run.
#[derive(Debug)]
pub struct Scratch {
    sums: Vec<i64>,
    idx: Vec<u32>,
    orders: ranks::Orders,
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch { sums: vec![0; 1 << MAX_CARD_HAND], idx: vec![0; 1 << MAX_CARD_HAND], orders: Default::default() }
    }
}

impl Cases for Exchange {
    type Case = Deal;
    type Reader = Dealt;
    type Scratch = Scratch;

    fn read(&self, input: &mut Input, dealt: &mut Dealt, deal: &mut Deal) -> Result<bool, InputError> {
        self.read_deal(input, dealt, deal)
    }

    fn boundary(&self, _: &mut Dealt, _: &mut u64, line: &[u8]) -> Mark {
        self.deal_boundary(line)
    }

    /// A deal is a line (the terminator line, trimmed, starts with its
    /// first byte).
    fn ahead(&self, _: u64) -> Ahead {
        Ahead::EachLine { stop: self.terminator.as_bytes().first().copied().unwrap_or(0xFF) }
    }

    /// The card path's tables, built the first time a case needs them
    /// when `expect` did not, are built on rayon's pool.
    fn uses_pool(&self) -> bool {
        true
    }

    fn expect(&self, bytes: Option<usize>, jobs: usize) {
        self.expect_deals(bytes, jobs);
    }

    fn solve(&self, deal: &Deal, scratch: &mut Scratch, _: &RunOptions, out: &mut Vec<u8>) -> Result<(), RunError> {
        let mask = self.best_of_class(&deal.cards, deal.class.as_ref(), scratch);
        self.render(out, mask, deal);
        Ok(())
    }

    fn explain(
        &self,
        deal: &Deal,
        _: &mut Scratch,
        _: &RunOptions,
        each: &mut dyn FnMut(Explanation) -> Result<(), RunError>,
    ) -> Result<(), RunError> {
        each(self.explain_deal(deal))
    }

    fn analyzer(&self) -> Option<&dyn crate::game::Analyze> {
        Some(self)
    }

    fn strategist(&self) -> Option<&dyn crate::game::strategy::Strategy> {
        Some(self)
    }
}

impl crate::game::strategy::Strategy for Exchange {
    fn chart(&self, opts: &crate::game::strategy::ChartOptions) -> Result<crate::game::strategy::Chart, String> {
        self.strategy_chart(opts)
    }
}

/// A row of the combination table.
#[derive(Debug, Clone)]
pub struct Row {
    pub name: String,
    /// Empty: the row matches every hand (`any`).
    pub parts: Vec<Part>,
    pub pays: i64,
    /// `natural: yes`: wild cards do not stand in for this row.
    pub natural: bool,
    /// The payout by the number of cards exchanged, when `pays` reads
    /// `exchanged` (then `pays` is the largest of them).
    pub by_exchanged: Option<Box<ByExchanged>>,
}

impl Row {
    pub fn new(name: &str, parts: Vec<Part>, pays: i64) -> Row {
        Row { name: name.to_string(), parts, pays, natural: false, by_exchanged: None }
    }

    /// The payout when `k` cards were exchanged.
    #[inline]
    pub fn pays_at(&self, k: usize) -> i64 {
        self.by_exchanged.as_ref().map_or(self.pays, |b| b.pays.get(k).copied().unwrap_or(0))
    }
}

/// The order in which equally good choices are preferred.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefer {
    FewerCards,
    MoreCards,
    Leftmost,
    Rightmost,
    /// The choice whose payout varies less over its draws (exact
    /// variance).
    LowerVariance,
    HigherVariance,
}

/// How often each row is the paying one over the possible hands, for
/// `check`. The hands are scanned until every row has been the paying one
/// of some hand (then no row can be reported); the counts are of the hands
/// scanned (1 for every row when a sample of the deals settled it: see
/// `card_stats`).
#[derive(Debug, Clone)]
pub struct RowStats {
    /// Hands for which the row is the first that matches (not 0: the row
    /// can pay).
    pub best: Vec<u128>,
    /// Not 0 when some hand matches the row (a count of the hands up to
    /// the first one that does).
    pub formable: Vec<u128>,
    /// For a row that is never best but formable: the row above that takes
    /// its hands most often.
    pub shadowed_by: Vec<Option<usize>>,
    /// Rows that have not been the paying one yet.
    unseen: usize,
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
    pub rounds: Span,
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
    pub lines: Lines,
    pub terminator: String,
    pub spans: ExchangeSpans,
    /// Draw rounds (1: one exchange decision), and for more than one the
    /// common denominators of `rounds::plan`.
    pub rounds: usize,
    pub(crate) round_plan: rounds::Plan,
}

/// How the engine counts: by rank multisets or by cards.
#[derive(Debug)]
enum Path {
    /// Built on first use (`check` does not need it).
    Ranks(Lazy<RankPath>),
    /// Built on first use (`check` does not need it), with the optimal
    /// choices of the classes of deals seen.
    Cards(OnceLock<CardPath>, Option<Box<hands::ClassMemo>>),
}

#[derive(Debug)]
pub struct Exchange {
    pub deck: Deck,
    pub hand: usize,
    pub entry: i64,
    pub cost: i64,
    pub rows: Vec<Row>,
    /// Allowed exchange sizes, increasing, without repeats.
    pub sizes: Vec<usize>,
    /// Bit k: exchanging k cards is allowed.
    allowed: u32,
    /// The fewest cards kept.
    min_kept: usize,
    pub preference: Preference,
    /// The rank-key tables, built on first use (`check` does not need
    /// them).
    pub eval: Arc<Lazy<Eval>>,
    path: Path,
    /// Payout of each row, indexed by the tables' row bytes (`NONE`: 0).
    pays: [i64; 256],
    /// C(cards not dealt, k).
    ways: [i64; MAX_HAND + 1],
    pub lines: Lines,
    pub terminator: String,
    /// Where the rules that decide are written (for explanations).
    pub spans: ExchangeSpans,
    /// Row counts for explanations and analyses, built on first use.
    row_tables: OnceLock<Option<analyze::RowTables>>,
    /// Values on a common denominator, when it is small enough: choices
    /// then compare as plain integers.
    scores: Option<Scores>,
    /// The name of each card whose name is two bytes (how the cards of a
    /// quick deal are written).
    names2: Vec<[u8; 2]>,
    /// One engine per column of payouts, when they depend on the number
    /// of cards exchanged (see `exchanged.rs`).
    split: Option<Box<exchanged::Split>>,
    /// The card path's first deals without the hand table, when the rows
    /// allow it (see `light.rs`); built on first use.
    light: OnceLock<Option<Box<light::Light>>>,
    /// Several draw rounds (see `rounds.rs`).
    rounds: Option<Box<rounds::Rounds>>,
}

/// `sum / ways_k - cost_k` times the common denominator L of the ways:
/// `sum * scale[k] - offset[k]`, in 64 bits.
#[derive(Debug, Clone)]
struct Scores {
    scale: [i64; MAX_HAND + 1],
    offset: [i64; MAX_HAND + 1],
}

impl Scores {
    /// None when L * (largest payout + largest cost) might pass 2^62.
    fn new(ways: &[i64; MAX_HAND + 1], allowed: u32, entry: i64, cost: i64, max_pay: i64) -> Option<Scores> {
        let mut l: u128 = 1;
        for (k, &w) in ways.iter().enumerate() {
            if allowed >> k & 1 == 1 {
                let w = w.max(1) as u128;
                let (mut a, mut b) = (l, w);
                while b != 0 {
                    (a, b) = (b, a % b);
                }
                l = (l / a).checked_mul(w)?;
                if l > 1 << 62 {
                    return None;
                }
            }
        }
        let most_cost = entry as u128 + cost as u128 * MAX_HAND as u128;
        if l.checked_mul(max_pay as u128 + most_cost)? > 1 << 62 {
            return None;
        }
        let mut s = Scores { scale: [0; MAX_HAND + 1], offset: [0; MAX_HAND + 1] };
        for (k, &w) in ways.iter().enumerate() {
            if allowed >> k & 1 == 1 {
                s.scale[k] = (l / w.max(1) as u128) as i64;
                s.offset[k] = ((entry as u128 + cost as u128 * k as u128) * l) as i64;
            }
        }
        Some(s)
    }
}

/// Why a configuration is too large for the engine: the message names the
/// limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooLarge(pub String);

/// The number of cards not dealt.
fn remaining(deck: &Deck, hand: usize) -> usize {
    deck.size() - hand
}

impl Exchange {
    /// Checks that the tables for this configuration stay within the
    /// engine's limits (so that building them takes bounded time and
    /// memory and every sum fits exactly): returns whether the card path
    /// is used.
    pub fn plan(deck: &Deck, hand: usize, sizes: &[usize], rows: &[Row]) -> Result<bool, TooLarge> {
        let n = deck.size();
        let nr = deck.ranks.len();
        let max_pay = rows.iter().map(|r| r.pays).max().unwrap_or(0).max(1) as u128;
        let most_hands = (0..=hand).map(|j| combi::binom(n as u64, j as u64)).max().unwrap_or(1);
        if most_hands.saturating_mul(max_pay) > MAX_SUM {
            return Err(TooLarge(format!(
                "{n} cards make up to {most_hands} sets of at most {hand} cards; times the largest payout {max_pay}, \
                 the exact sums would pass 2^62, the engine's limit"
            )));
        }
        let min_kept = hand - sizes.iter().copied().max().unwrap_or(0);
        let cards = Eval::needs_cards(deck, rows);
        let symbols = Eval::symbols(deck);
        let keys = combi::multisets(symbols, hand);
        if keys > MAX_HANDS {
            return Err(TooLarge(format!(
                "{keys} multisets of {hand} ranks of {symbols} to tabulate: the engine's limit is 2^24"
            )));
        }
        if keys.saturating_mul(rows.len() as u128 + 1) > MAX_WORK {
            return Err(TooLarge(format!(
                "{keys} multisets of ranks times {} rows to try: the engine's limit is 2^28 steps",
                rows.len()
            )));
        }
        if !cards {
            let work: u128 = (min_kept..hand).map(|k| combi::multisets(nr, k) * nr as u128).sum();
            if work > MAX_WORK {
                return Err(TooLarge(format!(
                    "keeping as few as {min_kept} of {hand} cards over {nr} ranks needs {work} steps of tables: \
                     the engine's limit is 2^28"
                )));
            }
            return Ok(false);
        }
        if hand > MAX_CARD_HAND {
            return Err(TooLarge(format!(
                "with suits or wild cards the engine tabulates every hand: at most {MAX_CARD_HAND} cards, not {hand}"
            )));
        }
        let hands = combi::binom(n as u64, hand as u64);
        // Without exchanges no table of every hand is built (`symmetry.rs`);
        // with them, the tables are kept per class under suit symmetry.
        if hands > MAX_HANDS && sizes.iter().any(|&k| k > 0) {
            return by_class::plan(deck, hand, min_kept, hands).map(|()| true);
        }
        let work: u128 = (min_kept..hand).map(|k| combi::binom(n as u64, k as u64) * n as u128).sum();
        if work > MAX_WORK {
            return Err(TooLarge(format!(
                "keeping as few as {min_kept} of {hand} cards of {n} needs {work} steps of tables: \
                 the engine's limit is 2^28"
            )));
        }
        Ok(true)
    }

    /// Compiles the tables. The caller checked [`Exchange::plan`].
    pub fn build(spec: ExchangeSpec) -> (Exchange, RowStats) {
        let split = if spec.rounds > 1 { None } else { exchanged::Split::new(&spec).map(Box::new) };
        let h = spec.hand;
        let mut sizes = spec.sizes.clone();
        sizes.sort_unstable();
        sizes.dedup();
        let allowed = sizes.iter().fold(0u32, |a, &k| a | 1 << k);
        let min_kept = h - sizes.last().copied().unwrap_or(0);
        let mut pays = [0i64; 256];
        for (i, row) in spec.rows.iter().enumerate().take(255) {
            pays[i] = row.pays;
        }
        let left = remaining(&spec.deck, h) as u64;
        let mut ways = [0i64; MAX_HAND + 1];
        for (k, w) in ways.iter_mut().enumerate() {
            *w = combi::binom(left, k as u64).min(i64::MAX as u128) as i64;
        }
        let cards = Eval::needs_cards(&spec.deck, &spec.rows);
        // The statistics of `check` need the patterns, not the tables:
        // those are built when the first deal needs them.
        let mut rows_only = Eval::rows_only(&spec.deck, h, &spec.rows);
        let stats = if cards {
            card_stats(&rows_only, &spec.deck, h, spec.rows.len())
        } else {
            rank_stats(&rows_only, &spec.deck, h, spec.rows.len())
        };
        let eval: Arc<Lazy<Eval>> = Arc::new(LazyLock::new(Box::new(move || {
            rows_only.tabulate();
            rows_only
        })));
        let path = if cards {
            Path::Cards(OnceLock::new(), hands::ClassMemo::new(&spec.deck, h).map(Box::new))
        } else {
            let (eval, suits) = (Arc::clone(&eval), spec.deck.suits.len());
            Path::Ranks(LazyLock::new(Box::new(move || RankPath::new(&eval, suits, h, min_kept, &pays))))
        };
        let ex = Exchange {
            deck: spec.deck,
            hand: h,
            entry: spec.entry,
            cost: spec.cost,
            rows: spec.rows,
            sizes,
            allowed,
            min_kept,
            preference: Preference::new(&spec.prefer),
            eval,
            path,
            pays,
            ways,
            lines: spec.lines,
            terminator: spec.terminator,
            spans: spec.spans,
            row_tables: OnceLock::new(),
            scores: None,
            names2: Vec::new(),
            split,
            light: OnceLock::new(),
            rounds: None,
        };
        let max_pay = ex.rows.iter().map(|r| r.pays).max().unwrap_or(0);
        let mut ex = ex;
        ex.scores = Scores::new(&ex.ways, ex.allowed, ex.entry, ex.cost, max_pay);
        ex.names2 = (0..ex.deck.size() as Card)
            .map(|c| ex.deck.card_name(c).as_bytes().try_into().unwrap_or([b'?'; 2]))
            .collect();
        if spec.rounds > 1 {
            ex.rounds = Some(Box::new(rounds::Rounds::new(&ex, spec.rounds, spec.round_plan)));
        }
        (ex, stats)
    }

    /// Whether suits or wild cards count (every hand is tabulated).
    pub fn by_cards(&self) -> bool {
        matches!(self.path, Path::Cards(..))
    }

    /// Whether the card path's hand table is built.
    #[cfg(test)]
    fn card_path_built(&self) -> bool {
        matches!(&self.path, Path::Cards(cell, _) if cell.get().is_some())
    }

    fn card_path(&self) -> Option<&CardPath> {
        match &self.path {
            Path::Cards(cell, _) => Some(
                cell.get_or_init(|| CardPath::new(&self.eval, self.deck.size(), self.hand, self.min_kept, &self.pays)),
            ),
            Path::Ranks(_) => None,
        }
    }

    /// The value of exchanging `k` cards with payout sum `sum` over the draws.
    #[inline]
    fn value(&self, sum: i64, k: usize) -> Value {
        Value { sum, ways: self.ways[k], cost: self.entry + self.cost * k as i64 }
    }

    /// The paying row of a whole hand (in any order), if it forms one.
    pub fn row_of(&self, cards: &[Card]) -> Option<usize> {
        let row = if self.stay_only() {
            self.row_by_keys(cards)
        } else if let Some(path) = self.card_path() {
            let mut sorted = cards.to_vec();
            sorted.sort_unstable();
            path.row(&sorted)
        } else {
            let ranks: Vec<u8> = cards.iter().map(|&c| self.deck.rank(c) as u8).collect();
            ranks::row_of_ranks(&self.eval, &ranks)
        };
        (row != NONE).then_some(row as usize)
    }

    /// Every distinct choice of a deal (a discard mask over input
    /// positions) with its exact value, in preference order. Choices that
    /// keep the same ranks are one choice on the rank path.
    pub fn options(&self, cards: &[Card]) -> Vec<(u32, Value)> {
        let mut out = Vec::new();
        let mut scratch = Scratch::default();
        self.for_each_option(cards, &mut scratch, &mut |mask, v| out.push((mask, v)));
        out.sort_by(|a, b| self.preference.cmp(a.0, b.0));
        out
    }

    /// The best choice and every option, in preference order.
    pub fn decide(&self, cards: &[Card]) -> (u32, Vec<(u32, Value)>) {
        let options = self.options(cards);
        let Some(top) = options.iter().map(|o| o.1).max() else { return (0, options) };
        let tied: Vec<u32> = options.iter().filter(|o| o.1 == top).map(|o| o.0).collect();
        (self.break_tie(cards, &tied), options)
    }

    pub(crate) fn for_each_option(&self, cards: &[Card], scratch: &mut Scratch, f: &mut dyn FnMut(u32, Value)) {
        if let Some(rounds) = &self.rounds {
            return rounds.for_each_option(self, cards, f);
        }
        if let Some(split) = &self.split {
            return split.for_each_option(cards, scratch, f);
        }
        if self.stay_only() {
            return self.stay_option(cards, f);
        }
        let h = cards.len();
        match &self.path {
            Path::Ranks(path) => {
                let ranks: Vec<u8> = cards.iter().map(|&c| self.deck.rank(c) as u8).collect();
                let b = RankBox::of(&self.eval, &ranks);
                path.sums(&self.eval, &b, h, self.min_kept, &self.pays, &mut scratch.sums);
                let mut digits = [0u8; MAX_HAND];
                for x in 0..b.size {
                    let k = h - b.digits(x, &mut digits);
                    if self.allowed >> k & 1 == 1 {
                        f(b.discard_mask(x, self.preference.leftmost()), self.value(scratch.sums[x], k));
                    }
                }
            }
            Path::Cards(..) => {
                let path = self.card_path().expect("card path");
                let (sorted, pos) = combi::sort_with_positions(cards);
                scratch.sums.resize(1 << MAX_CARD_HAND, 0);
                scratch.idx.resize(1 << MAX_CARD_HAND, 0);
                path.sums(&sorted[..h], self.min_kept, &self.pays, &mut scratch.sums, &mut scratch.idx);
                let full = (1usize << h) - 1;
                for kept in 0..=full {
                    let k = h - kept.count_ones() as usize;
                    if self.allowed >> k & 1 == 1 {
                        f(to_input(full ^ kept, &pos), self.value(scratch.sums[kept], k));
                    }
                }
            }
        }
    }

    /// The best choice for a deal (a discard mask over input positions).
    pub fn best(&self, cards: &[Card]) -> u32 {
        self.best_with(cards, &mut Scratch::default())
    }

    /// Whether a deal's choice is not one of the paths' ordinary choices
    /// (split hands, stay only, preference by variance, rounds): then
    /// [`Exchange::special_best`] decides it, and the paths' tables of
    /// choices are not used.
    #[inline]
    fn special(&self) -> bool {
        self.split.is_some() || self.stay_only() || self.preference.by_variance() || self.rounds.is_some()
    }

    /// Starts fetching the class memo's entry of the deal at the start of
    /// `next` (the bytes after the deal just read, when they are five
    /// cards written as usual) on x86-64: the deal just read is solved
    /// while the entry comes from memory, where on a long input of random
    /// deals it rarely is in the nearest caches (video poker's 1,000,000
    /// deals: 239 -> 216 ms of CPU with `--jobs 1`, a tenth). A deal not
    /// written as usual, or the end of the buffer, fetches nothing: it is
    /// only a hint, and the deal is read as before.
    ///
    /// The class found for the next line is kept in `deal` (`ahead`), and
    /// the deal read next takes it (`class`) when its cards are the same,
    /// so that its class is not found twice.
    #[inline(always)]
    pub(super) fn look_ahead(&self, next: &[u8], deal: &mut Deal) {
        deal.class = match deal.ahead.take() {
            Some((cards, class)) if deal.cards[..] == cards[..] => Some(class),
            _ => None,
        };
        if let (Path::Cards(_, Some(memo)), 5, false) = (&self.path, self.hand, self.special()) {
            if let Some(cards) = crate::engines::cards::peek_five(&self.deck, next) {
                let class = memo.canonical(&cards);
                #[cfg(target_arch = "x86_64")]
                memo.prefetch(class.key);
                deal.ahead = Some((cards, class));
            }
        }
    }

    pub(crate) fn best_with(&self, cards: &[Card], scratch: &mut Scratch) -> u32 {
        self.best_of_class(cards, None, scratch)
    }

    /// [`Exchange::best_with`], given the deal's class when it is known
    /// (on the card path with a class memo).
    #[inline(always)]
    fn best_of_class(&self, cards: &[Card], class: Option<&hands::Canonical>, scratch: &mut Scratch) -> u32 {
        if self.special() {
            return self.special_best(cards, scratch);
        }
        let h = cards.len();
        match &self.path {
            Path::Ranks(path) => {
                let mut ranks = [0u8; MAX_HAND];
                // Each usual hand size with its own code (the loop unrolled).
                let order = match h {
                    2 => self.ranks_order(path, cards, 2, &mut ranks),
                    3 => self.ranks_order(path, cards, 3, &mut ranks),
                    4 => self.ranks_order(path, cards, 4, &mut ranks),
                    5 => self.ranks_order(path, cards, 5, &mut ranks),
                    6 => self.ranks_order(path, cards, 6, &mut ranks),
                    7 => self.ranks_order(path, cards, 7, &mut ranks),
                    8 => self.ranks_order(path, cards, 8, &mut ranks),
                    _ => self.ranks_order(path, cards, h, &mut ranks),
                };
                if let Some(mask) = order.and_then(|o| path.chosen(&mut scratch.orders, o)) {
                    return mask;
                }
                let mask = self.choice_of_ranks(path, &ranks, h, scratch);
                if let Some(o) = order {
                    path.choose(&mut scratch.orders, o, mask);
                }
                mask
            }
            Path::Cards(_, Some(memo)) => {
                let canon = class.cloned().unwrap_or_else(|| memo.canonical(cards));
                let full = (1usize << h) - 1;
                let optimal = match memo.get(canon.key) {
                    Some(o) => o,
                    None => {
                        let o = self.class_optimal(&canon.sorted[..h], scratch);
                        memo.put(canon.key, o);
                        o
                    }
                };
                let mut bits = optimal;
                let mut choice: Option<u32> = None;
                while bits != 0 {
                    let kept = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let m = to_input(full ^ kept, &canon.pos);
                    if choice.is_none_or(|c| self.preference.cmp(m, c) == Ordering::Less) {
                        choice = Some(m);
                    }
                }
                choice.unwrap_or(0)
            }
            Path::Cards(_, None) => {
                let path = self.card_path().expect("card path");
                let (sorted, pos) = combi::sort_with_positions(cards);
                let sums = &mut scratch.sums;
                path.sums(&sorted[..h], self.min_kept, &self.pays, sums, &mut scratch.idx);
                let full = (1usize << h) - 1;
                let mut best_kept = usize::MAX;
                if let Some(score) = &self.scores {
                    let mut best = i64::MIN;
                    for kept in (0..=full).rev() {
                        let k = h - kept.count_ones() as usize;
                        if self.allowed >> k & 1 == 0 {
                            continue;
                        }
                        let v = sums[kept] * score.scale[k] - score.offset[k];
                        if v > best
                            || v == best
                                && self.preference.cmp(to_input(full ^ kept, &pos), to_input(full ^ best_kept, &pos))
                                    == Ordering::Less
                        {
                            best = v;
                            best_kept = kept;
                        }
                    }
                } else {
                    let mut best: Option<Value> = None;
                    for kept in (0..=full).rev() {
                        let k = h - kept.count_ones() as usize;
                        if self.allowed >> k & 1 == 0 {
                            continue;
                        }
                        let v = self.value(sums[kept], k);
                        let o = best.map_or(Ordering::Greater, |b| v.cmp(&b));
                        if o == Ordering::Greater
                            || o == Ordering::Equal
                                && self.preference.cmp(to_input(full ^ kept, &pos), to_input(full ^ best_kept, &pos))
                                    == Ordering::Less
                        {
                            best = Some(v);
                            best_kept = kept;
                        }
                    }
                }
                if best_kept == usize::MAX {
                    0
                } else {
                    to_input(full ^ best_kept, &pos)
                }
            }
        }
    }

    /// The ranks of the first `h` (`cards.len()`) cards, into `ranks`, and
    /// the number of their sequence for the memo of choices (see
    /// [`RankPath::order_of`]).
    #[inline(always)]
    fn ranks_order(&self, path: &RankPath, cards: &[Card], h: usize, ranks: &mut [u8; MAX_HAND]) -> Option<usize> {
        let cards = &cards[..h.min(MAX_HAND)];
        for (r, &c) in ranks.iter_mut().zip(cards) {
            *r = self.deck.rank(c) as u8;
        }
        path.order_of(&ranks[..cards.len()])
    }

    /// The choice of a deal on the rank path from its `h` ranks in input
    /// order (not through the table of sequences).
    #[inline]
    fn choice_of_ranks(&self, path: &RankPath, ranks: &[u8; MAX_HAND], h: usize, scratch: &mut Scratch) -> u32 {
        let known = if h == 5 { self.remembered_five(path, ranks) } else { None };
        known.unwrap_or_else(|| self.best_of_ranks(path, &ranks[..h], scratch))
    }

    /// Before a run of `bytes` of input (see [`Cases::expect`]): the whole
    /// table of choices by sequence of ranks when the deals will be at
    /// least as many as the sequences (a deal written as usual takes three
    /// bytes a card: more bytes a card only make the estimate high, and
    /// the table is then built a little early), and only where
    /// [`Exchange::best_with`] would use it.
    ///
    /// On the card path, the class memo is sized for the deals the input's
    /// size promises (see [`hands::ClassMemo::expect`]); when they will be at least
    /// [`WHOLE_HAND_TABLE`], the light path's tables (see `light.rs`) or,
    /// where it does not apply, the table of every hand are built at once
    /// (on every core for the latter), rather than by the first deal: the
    /// first deals then take the time of the rest, as the driver's measure
    /// of the rate expects.
    fn expect_deals(&self, bytes: Option<usize>, jobs: usize) {
        if self.special() {
            return;
        }
        // Counted before any table is built: a short input (an empty one)
        // never builds one here.
        let deals = bytes.unwrap_or(0) / (3 * self.hand).max(1);
        let lazy = match &self.path {
            Path::Ranks(lazy) => lazy,
            Path::Cards(_, memo) => {
                if let (Some(memo), Some(_)) = (memo, bytes) {
                    memo.expect(deals);
                }
                if deals >= WHOLE_HAND_TABLE && self.light().is_none() {
                    self.card_path();
                }
                return;
            }
        };
        let sequences = (self.deck.ranks.len() as u128).checked_pow(self.hand as u32).unwrap_or(u128::MAX);
        if (deals as u128) < sequences {
            return;
        }
        let path: &RankPath = lazy;
        // Without the memo per multiset (hands over six cards) an entry
        // costs a whole choice, as a deal's first meeting does: nothing to
        // gain but the branch, for entries a run may never meet.
        if path.orders() == 0 || !path.memo_enabled() {
            return;
        }
        let h = self.hand;
        if h == 5 {
            self.fill_five(path, jobs > 1);
        } else {
            path.fill(h, jobs > 1, |ranks, scratch| self.choice_of_ranks(path, ranks, h, scratch));
        }
    }

    /// [`RankPath::fill`] for hands of five, multiset by multiset: each
    /// multiset's optimal choices are found once, then every sequence of
    /// it gets its entry from them without a sort. A sequence is the
    /// multiset's ranks in sorted order put at input positions `p` (sorted
    /// rank `j` at position `p[j]`, equal ranks at increasing positions:
    /// the order a stable sort gives them back), and its choice is the
    /// preferred optimal discard mapped through `p`, as
    /// [`Exchange::remembered_five`] does. About half the time of the
    /// sequence-by-sequence fill (which sorts every sequence).
    fn fill_five(&self, path: &RankPath, parallel: bool) {
        if path.has_all() {
            return;
        }
        let n = path.n_ranks();
        let pow: [usize; 5] = std::array::from_fn(|i| n.pow(i as u32));
        let mut sets: Vec<[u8; 5]> = Vec::new();
        combi::for_each_multiset(n, 5, &mut |m| sets.push(m.try_into().unwrap_or([0; 5])));
        let table: Vec<AtomicU8> = (0..path.orders()).map(|_| AtomicU8::new(0)).collect();
        let one = |sorted: &[u8; 5], scratch: &mut Scratch| {
            let mut ranks = [0u8; MAX_HAND];
            ranks[..5].copy_from_slice(sorted);
            let key = self.eval.keys.rank(sorted);
            let optimal = match path.remembered(key) {
                Some(o) => o,
                None => {
                    // Found (and remembered) from the multiset's sorted order.
                    self.best_of_ranks(path, &ranks[..5], scratch);
                    path.remembered(key).unwrap_or(0)
                }
            };
            // Bit j: sorted ranks j and j + 1 are equal (their positions
            // must increase).
            let equal = (0..4).filter(|&j| sorted[j] == sorted[j + 1]).fold(0u8, |m, j| m | 1 << j);
            for place in PLACES_OF_FIVE.iter() {
                if place.descents & equal != 0 {
                    continue;
                }
                let p = &place.at;
                let order: usize = (0..5).map(|j| sorted[j] as usize * pow[p[j] as usize]).sum();
                let choice = if optimal != 0 {
                    self.pick(optimal, |m| u32::from(place.mask[m & 31]))
                } else {
                    // Not remembered (cannot happen with the memo on): the
                    // sequence itself.
                    let mut seq = [0u8; MAX_HAND];
                    for j in 0..5 {
                        seq[p[j] as usize] = sorted[j];
                    }
                    self.choice_of_ranks(path, &seq, 5, scratch)
                };
                if let Some(slot) = table.get(order) {
                    slot.store(choice as u8, AtomicOrdering::Relaxed);
                }
            }
        };
        if parallel {
            sets.par_chunks(64).for_each_init(Scratch::default, |scratch, chunk| {
                chunk.iter().for_each(|m| one(m, scratch));
            });
        } else {
            let mut scratch = Scratch::default();
            sets.iter().for_each(|m| one(m, &mut scratch));
        }
        path.install(table.into_iter().map(AtomicU8::into_inner).collect());
    }

    /// The choice of a deal of five cards whose rank multiset's optimal
    /// choices are remembered, straight from its ranks in input order:
    /// [`Self::best_of_ranks`] without its box (the path of every first
    /// sequence of ranks once the multisets are known, a third of the deals
    /// of a million).
    #[inline(always)]
    fn remembered_five(&self, path: &RankPath, ranks: &[u8; MAX_HAND]) -> Option<u32> {
        let (sorted, pos) = combi::sort_five(ranks);
        let optimal = path.remembered(self.eval.keys.rank(&sorted))?;
        Some(self.pick(optimal, |m| to_input(m, &pos)))
    }

    /// The choice of a deal on the rank path, from its ranks in input
    /// order (through the memo per rank multiset).
    fn best_of_ranks(&self, path: &RankPath, ranks: &[u8], scratch: &mut Scratch) -> u32 {
        let h = ranks.len();
        let mut b = RankBox::sorted(&self.eval, ranks);
        if let Some(optimal) = path.remembered(b.key) {
            return self.pick(optimal, |m| b.input_mask(m as u32));
        }
        b.blocks();
        let leftmost = self.preference.leftmost();
        if self.min_kept + 1 >= h {
            return self.one_card_best(path, &b, leftmost);
        }
        path.sums(&self.eval, &b, h, self.min_kept, &self.pays, &mut scratch.sums);
        // The optimal points (digits counted like an odometer).
        let mut digits = [0u8; MAX_HAND];
        let mut kept = 0usize;
        let mut best: Option<Value> = None;
        let mut optimal: Vec<usize> = Vec::new();
        for x in 0..b.size {
            if x > 0 {
                b.next_point(&mut digits, &mut kept);
            }
            let k = h - kept;
            if self.allowed >> k & 1 == 0 {
                continue;
            }
            let v = self.value(scratch.sums[x], k);
            match best.map_or(Ordering::Greater, |b| v.cmp(&b)) {
                Ordering::Greater => {
                    best = Some(v);
                    optimal.clear();
                    optimal.push(x);
                }
                Ordering::Equal => optimal.push(x),
                Ordering::Less => {}
            }
        }
        let sorted: Vec<u32> = optimal.iter().map(|&x| b.sorted_discard(x, leftmost)).collect();
        if path.memo_enabled() {
            path.remember(b.key, sorted.iter().fold(0u64, |m, &d| m | 1 << d));
        }
        self.pick_among(sorted.iter().map(|&d| b.input_mask(d)))
    }

    /// The rank path when at most one card is exchanged: staying, or one
    /// card of each distinct rank, valued directly (the sum over draws of
    /// exchanging a card of rank r is the total of the other cards minus
    /// the payout of the deal itself).
    fn one_card_best(&self, path: &RankPath, b: &RankBox, leftmost: bool) -> u32 {
        let h = self.hand;
        let pay = self.pays[self.eval.row_of_key(b.key) as usize];
        // The optimal discards, as masks over sorted positions.
        let mut optimal = [0u32; MAX_HAND + 1];
        let mut n_opt = 0;
        let mut best: Option<Value> = None;
        let mut consider = |sorted_mask: u32, v: Value| match best.map_or(Ordering::Greater, |b| v.cmp(&b)) {
            Ordering::Greater => {
                best = Some(v);
                optimal[0] = sorted_mask;
                n_opt = 1;
            }
            Ordering::Equal => {
                optimal[n_opt] = sorted_mask;
                n_opt += 1;
            }
            Ordering::Less => {}
        };
        if self.allowed & 1 == 1 {
            consider(0, self.value(pay, 0));
        }
        if self.allowed & 2 == 2 {
            let mut rest = [0u8; MAX_HAND];
            let mut stride = 1usize;
            let mut full = 0usize;
            for j in 0..b.m {
                full += b.counts[j] as usize * stride;
                stride *= b.counts[j] as usize + 1;
            }
            let mut stride = 1usize;
            for i in 0..b.m {
                // The deal without one card of the i-th distinct rank.
                let mut n = 0;
                for j in 0..b.m {
                    let c = b.counts[j] as usize - usize::from(j == i);
                    rest[n..n + c].fill(b.ranks[j]);
                    n += c;
                }
                let sum = path.total(h - 1, self.eval.keys.rank(&rest[..n])) - pay;
                consider(b.sorted_discard(full - stride, leftmost), self.value(sum, 1));
                stride *= b.counts[i] as usize + 1;
            }
        }
        let optimal = &optimal[..n_opt];
        if path.memo_enabled() {
            path.remember(b.key, optimal.iter().fold(0u64, |m, &d| m | 1 << d));
        }
        self.pick_among(optimal.iter().map(|&d| b.input_mask(d)))
    }

    /// The optimal kept subsets of a deal sorted by card number, as bits
    /// over masks of its positions (hands of at most 6 cards).
    fn optimal_kept(&self, path: &CardPath, sorted: &[u16], scratch: &mut Scratch) -> u64 {
        path.sums(sorted, self.min_kept, &self.pays, &mut scratch.sums, &mut scratch.idx);
        self.optimal_of(sorted.len(), &scratch.sums)
    }

    /// The optimal kept subsets of a deal of `h` cards (6 at most: the
    /// result has a bit per subset) from the payout sums of keeping each
    /// subset.
    fn optimal_of(&self, h: usize, sums: &[i64]) -> u64 {
        // The cards in each subset, by table: `count_ones` is a dozen
        // instructions in a build for any x86-64 (no `popcnt`), and this
        // loop runs for every class of a run.
        const KEPT: [u8; 64] = {
            let mut t = [0u8; 64];
            let mut i = 0;
            while i < 64 {
                t[i] = (i as u64).count_ones() as u8;
                i += 1;
            }
            t
        };
        let full = (1usize << h) - 1;
        if let Some(score) = &self.scores {
            // Values on the common denominator: plain integers.
            let mut best = i64::MIN;
            let mut optimal = 0u64;
            for (kept, &sum) in sums[..=full].iter().enumerate() {
                let k = h - KEPT[kept] as usize;
                if self.allowed >> k & 1 == 0 {
                    continue;
                }
                let v = sum * score.scale[k] - score.offset[k];
                if v > best {
                    best = v;
                    optimal = 1 << kept;
                } else if v == best {
                    optimal |= 1 << kept;
                }
            }
            return optimal;
        }
        let mut best: Option<Value> = None;
        let mut optimal = 0u64;
        for (kept, &sum) in sums[..=full].iter().enumerate() {
            let k = h - KEPT[kept] as usize;
            if self.allowed >> k & 1 == 0 {
                continue;
            }
            let v = self.value(sum, k);
            match best.map_or(Ordering::Greater, |b| v.cmp(&b)) {
                Ordering::Greater => {
                    best = Some(v);
                    optimal = 1 << kept;
                }
                Ordering::Equal => optimal |= 1 << kept,
                Ordering::Less => {}
            }
        }
        optimal
    }

    /// The preferred one of some discard masks.
    pub(crate) fn pick_among(&self, masks: impl Iterator<Item = u32>) -> u32 {
        let mut choice: Option<u32> = None;
        for m in masks {
            if choice.is_none_or(|c| self.preference.cmp(m, c) == Ordering::Less) {
                choice = Some(m);
            }
        }
        choice.unwrap_or(0)
    }

    /// The preferred mask among the optimal choices (bits over sorted
    /// discard masks).
    fn pick(&self, optimal: u64, mask_of: impl Fn(usize) -> u32) -> u32 {
        if optimal.is_power_of_two() {
            return mask_of(optimal.trailing_zeros() as usize);
        }
        let mut bits = optimal;
        let mut choice: Option<u32> = None;
        while bits != 0 {
            let x = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let m = mask_of(x);
            if choice.is_none_or(|c| self.preference.cmp(m, c) == Ordering::Less) {
                choice = Some(m);
            }
        }
        choice.unwrap_or(0)
    }

    /// For explanations: how many of the equally likely draws of a choice
    /// (a discard mask over input positions) end in each row (the last
    /// entry: in no row).
    pub fn draw_rows(&self, cards: &[Card], mask: u32) -> Vec<u64> {
        let mut rows = vec![0u64; self.rows.len() + 1];
        let kept: Vec<Card> = (0..cards.len()).filter(|i| mask >> i & 1 == 0).map(|i| cards[i]).collect();
        let k = mask.count_ones() as usize;
        let pool: Vec<Card> = (0..self.deck.size() as Card).filter(|c| !cards.contains(c)).collect();
        let mut pick: Vec<u16> = (0..k as u16).collect();
        let mut hand = kept.clone();
        loop {
            hand.truncate(kept.len());
            hand.extend(pick.iter().map(|&i| pool[i as usize]));
            let row = self.row_of(&hand).unwrap_or(self.rows.len());
            rows[row] += 1;
            if !combi::next_set(&mut pick, pool.len()) {
                return rows;
            }
        }
    }

    /// Card `i` of a deal as written in the input.
    #[inline]
    pub fn token<'a>(&'a self, deal: &'a Deal, i: usize) -> &'a str {
        if deal.quick {
            std::str::from_utf8(&self.names2[deal.cards[i] as usize]).unwrap_or("?")
        } else {
            deal.token(i)
        }
    }

    /// Renders the output line of a choice (with its newline).
    #[inline]
    pub fn render(&self, buf: &mut Vec<u8>, mask: u32, deal: &Deal) {
        let h = deal.cards.len();
        let full = u32::MAX >> (32 - h.clamp(1, 32));
        // The line without a branch on the choice: stay, exchange some,
        // exchange all (every card of a hand of none is staying).
        let which = usize::from(mask != 0) + usize::from(mask == full && mask != 0);
        if let (true, Some(flat)) = (deal.quick, &self.lines.flat[which]) {
            flat.before.put(buf);
            let mut list = (mask ^ flat.flip) & flat.keep & full;
            let mut sep = false;
            while list != 0 {
                if sep {
                    flat.sep.put(buf);
                }
                sep = true;
                let card = deal.cards.get(list.trailing_zeros() as usize).copied().unwrap_or(0);
                buf.extend_from_slice(self.names2.get(card as usize).unwrap_or(b"??"));
                list &= list - 1;
            }
            flat.after.put(buf);
            return;
        }
        self.render_pieces(buf, mask, deal);
    }

    /// [`Exchange::render`] of any line, any deal.
    #[inline(never)]
    fn render_pieces(&self, buf: &mut Vec<u8>, mask: u32, deal: &Deal) {
        let h = deal.cards.len();
        let n = mask.count_ones() as usize;
        let (line, which) = if n == 0 {
            (&self.lines.stay, 0)
        } else if n == h {
            (self.lines.all.as_ref().unwrap_or(&self.lines.exchange), 2)
        } else {
            (&self.lines.exchange, 1)
        };
        if let Some(pieces) = &self.lines.pieces[which] {
            // The cards straight from the deal's text.
            let list = |buf: &mut Vec<u8>, sep: &Chunk<16>, want: u32| {
                let mut first = true;
                for i in 0..h {
                    if mask >> i & 1 == want {
                        if !first {
                            sep.put(buf);
                        }
                        first = false;
                        if deal.quick {
                            buf.extend_from_slice(&self.names2[deal.cards[i] as usize]);
                        } else {
                            buf.extend_from_slice(deal.token(i).as_bytes());
                        }
                    }
                }
            };
            for piece in pieces {
                match piece {
                    Piece::Text(t) => t.put(buf),
                    Piece::Cards(sep) => list(buf, sep, 1),
                    Piece::Kept(sep) => list(buf, sep, 0),
                    Piece::Count => {
                        let _ = std::io::Write::write_fmt(buf, format_args!("{n}"));
                    }
                }
            }
            buf.push(b'\n');
            return;
        }
        if self.lines.literal[which] {
            line.line(buf, &HoldFields { cards: &[], count: 0, kept: &[], row: "", value: "", exact: "" });
            return;
        }
        // The cards in order: the exchanged ones first, the kept ones after.
        let mut cards = [""; MAX_HAND];
        let (mut a, mut b) = (0, n);
        let kept = self.lines.kept[which];
        for i in 0..h {
            if mask >> i & 1 == 1 {
                cards[a] = self.token(deal, i);
                a += 1;
            } else if kept {
                cards[b] = self.token(deal, i);
                b += 1;
            }
        }
        let (row, value, exact) = self.choice_fields(line, mask, deal);
        let fields =
            HoldFields { cards: &cards[..n], count: n as i64, kept: &cards[n..b], row, value: &value, exact: &exact };
        line.line(buf, &fields);
    }
}

/// A mask over sorted positions as a mask over input positions.
#[inline]
fn to_input(mut m: usize, pos: &[u8]) -> u32 {
    let mut out = 0;
    while m != 0 {
        out |= 1 << pos[m.trailing_zeros() as usize];
        m &= m - 1;
    }
    out
}

/// Deals a run must be expected to hold for the card path's tables to be
/// built before the first (see [`Exchange::expect_deals`]).
const WHOLE_HAND_TABLE: usize = 80_000;

/// A permutation of five input positions, as the position of each sorted
/// rank (see [`Exchange::fill_five`]).
struct Place {
    at: [u8; 5],
    /// Bit j: sorted rank j goes after sorted rank j + 1 (a stable sort
    /// never puts equal ranks so).
    descents: u8,
    /// Every mask over sorted positions as a mask over input positions
    /// ([`to_input`] through `at`).
    mask: [u8; 32],
}

/// Every permutation of five input positions (120).
static PLACES_OF_FIVE: LazyLock<Vec<Place>> = LazyLock::new(|| {
    let mut all = Vec::with_capacity(120);
    let mut p = [0u8; 5];
    for code in 0..3125u32 {
        let mut c = code;
        for slot in &mut p {
            *slot = (c % 5) as u8;
            c /= 5;
        }
        if (0..5).all(|i| (0..i).all(|j| p[i] != p[j])) {
            let descents = (0..4).filter(|&j| p[j] > p[j + 1]).fold(0u8, |m, j| m | 1 << j);
            let mask = std::array::from_fn(|m| to_input(m, &p) as u8);
            all.push(Place { at: p, descents, mask });
        }
    }
    all
});

/// Row statistics on the rank path: the multisets of ranks, until every
/// row has paid on one (each row computed from the patterns: the tables
/// are not needed).
fn rank_stats(eval: &Eval, deck: &Deck, hand: usize, n_rows: usize) -> RowStats {
    let suits = deck.suits.len();
    let mut stats = RowStats::new(n_rows);
    let mut counts = vec![0u8; deck.ranks.len()];
    let ways: Vec<u128> = (0..=hand).map(|c| combi::binom(suits as u64, c as u64)).collect();
    combi::for_each_multiset_while(deck.ranks.len(), hand, &mut |key| {
        eval.split(key, &mut counts);
        if counts.iter().any(|&c| c as usize > suits) {
            return true;
        }
        let weight: u128 = counts.iter().map(|&c| ways[c as usize]).product();
        let (best, _) = eval.key_rows(key, &mut counts);
        stats.add(weight, best, |row| eval.forms_by_rank(row, &mut counts, 0))
    });
    stats.finish()
}

/// Classes of each group of deals (see [`hands::for_each_class_sample`])
/// tried first by `card_stats`.
const SAMPLE_PER_GROUP: usize = 2048;

/// Row statistics on the card path: one deal of every class. A sample of
/// the classes of every shape goes first: when every row pays on some deal
/// of it, `check` has nothing to report and the full scan is skipped. The
/// rank-key table entries are computed for the keys seen only.
fn card_stats(eval: &Eval, deck: &Deck, hand: usize, n_rows: usize) -> RowStats {
    let mut seen = vec![false; n_rows];
    let mut unseen = n_rows;
    let mut memo = eval::KeyMemo::new(eval);
    let complete = !hands::for_each_class_sample(deck, hand, SAMPLE_PER_GROUP, &mut |cards, _| {
        let best = memo.row_of_cards(eval, cards);
        if best != NONE && !std::mem::replace(&mut seen[best as usize], true) {
            unseen -= 1;
        }
        unseen > 0
    });
    if complete || n_rows == 0 {
        let mut stats = RowStats::new(n_rows);
        stats.best.fill(1);
        stats.formable.fill(1);
        stats.unseen = 0;
        return stats;
    }
    let mut stats = RowStats::new(n_rows);
    let mut counts = vec![0u8; deck.ranks.len()];
    let mut masks = vec![0u64; deck.suits.len()];
    let mut plain_cache: std::collections::HashMap<Vec<u8>, Vec<bool>> = std::collections::HashMap::new();
    hands::for_each_class_while(deck, hand, &mut |cards, weight| {
        let best = memo.row_of_cards(eval, cards);
        masks.fill(0);
        counts.fill(0);
        let mut w = 0;
        let mut key = Vec::with_capacity(hand);
        for &c in cards {
            let s = eval.symbol(c);
            key.push(s);
            if s as usize == eval.n_ranks {
                w += 1;
            } else {
                counts[s as usize] += 1;
                masks[eval.suit_of(c) as usize] |= 1 << s;
            }
        }
        let plain = plain_cache.entry(key).or_insert_with(|| {
            (0..n_rows).map(|row| !eval.suited_rows.contains(&row) && eval.forms_by_rank(row, &mut counts, w)).collect()
        });
        let plain = plain.clone();
        stats.add(weight, best, |row| {
            if eval.suited_rows.contains(&row) {
                eval.forms_by_cards(row, &mut masks, w)
            } else {
                plain[row]
            }
        })
    });
    stats.finish()
}

impl RowStats {
    fn new(n: usize) -> RowStats {
        RowStats { best: vec![0; n], formable: vec![0; n], shadowed_by: vec![None; n], unseen: n }
    }

    /// Counts a hand of `weight` deals whose paying row is `best`; false
    /// once every row has been the paying one (nothing more can change
    /// what `check` says: the scan may stop).
    fn add(&mut self, weight: u128, best: u8, mut forms: impl FnMut(usize) -> bool) -> bool {
        let n = self.best.len();
        if best != NONE {
            if self.best[best as usize] == 0 {
                self.unseen -= 1;
            }
            self.best[best as usize] += weight;
        }
        for row in 0..n {
            // Only whether some hand forms it counts (and the first row
            // above that takes such a hand).
            if self.formable[row] > 0 {
                continue;
            }
            if best as usize == row || forms(row) {
                self.formable[row] += weight;
                if best != NONE && (best as usize) < row {
                    // Remember the first row that takes it (kept when the
                    // row is never best).
                    self.shadowed_by[row].get_or_insert(best as usize);
                }
            }
        }
        self.unseen > 0
    }

    fn finish(mut self) -> RowStats {
        for i in 0..self.best.len() {
            if self.best[i] > 0 || self.formable[i] == 0 {
                self.shadowed_by[i] = None;
            }
        }
        self
    }
}

/// Exact figures of a whole game (`arbiter analyze`): fractions as
/// (numerator, denominator), reduced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedReturn {
    /// Expected payout per game.
    pub payout: num_rational::BigRational,
    /// Expected amount paid per game (entry and exchanges).
    pub stake: num_rational::BigRational,
    /// Number of distinct deals.
    pub deals: u128,
    /// Per row (and a last entry for hands that form none): the
    /// probability that the final hand is that row, when tabulated.
    pub rows: Option<Vec<num_rational::BigRational>>,
    /// The outcomes by exchange size and final row, when the rows are
    /// tabulated: the figures that need the whole distribution (variance,
    /// hit frequency) come from it.
    pub joint: Option<Joint>,
    /// When the rows are tabulated: the deals with several optimal
    /// choices whose draws end in rows with different probabilities (the
    /// row figures, not the return, depend on the tie rule for them), and
    /// those of them whose choices' variances differ (so does the game's).
    pub tie_deals: Option<[u128; 2]>,
}

/// Every (deal, draw) outcome as a whole count over one common
/// denominator: the deals times the least common multiple of the numbers
/// of draws of the exchange sizes chosen, so that each deal weighs the same
/// whatever it exchanges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Joint {
    pub denominator: num_bigint::BigInt,
    /// `counts[k][row]`: outcomes that exchange k cards and end in `row`
    /// (the last row: none).
    pub counts: Vec<Vec<num_bigint::BigInt>>,
}

impl ExpectedReturn {
    /// Expected payout over expected stake, as a fraction (none when
    /// nothing is staked).
    pub fn return_to_player(&self) -> Option<num_rational::BigRational> {
        use num_traits::Zero;
        (!self.stake.is_zero()).then(|| &self.payout / &self.stake)
    }

    /// Expected earning per game: payout minus stake.
    pub fn earning(&self) -> num_rational::BigRational {
        &self.payout - &self.stake
    }
}

/// The exact value of a choice: `sum / ways - cost`. Values are equal
/// when these numbers are (`2/1 - 1` equals `4/2 - 1`).
#[derive(Debug, Clone, Copy)]
pub struct Value {
    pub sum: i64,
    pub ways: i64,
    pub cost: i64,
}

impl Value {
    /// Numerator and denominator of `sum / ways - cost`, reduced.
    pub fn fraction(&self) -> (i128, i128) {
        let num = self.sum as i128 - self.cost as i128 * self.ways as i128;
        reduce(num, self.ways as i128)
    }

    /// Numerator and denominator of `sum / ways` (the expected payout), reduced.
    pub fn payout(&self) -> (i128, i128) {
        reduce(self.sum as i128, self.ways as i128)
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Value {}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Value {
    /// Exact comparison of `sum/ways - cost` by cross-multiplication.
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        if self.ways == other.ways && self.cost == other.cost {
            return self.sum.cmp(&other.sum);
        }
        let a = (self.sum as i128 - self.cost as i128 * self.ways as i128) * other.ways as i128;
        let b = (other.sum as i128 - other.cost as i128 * other.ways as i128) * self.ways as i128;
        a.cmp(&b)
    }
}

fn reduce(n: i128, d: i128) -> (i128, i128) {
    let (mut a, mut b) = (n.unsigned_abs(), d.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    let g = a.max(1) as i128;
    (n / g, d / g)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn compile(text: &str) -> Exchange {
        let loaded = crate::load::load_text("test", text, std::path::Path::new(".")).unwrap();
        lower::compile(&loaded).unwrap_or_else(|d| panic!("{:?}", d[0].message))
    }

    /// Deals read one after another into one `Deal`, as the driver reads
    /// them: a deal's class found while the line before it was read is
    /// its own class, whatever lines come between (a deal written with
    /// extra blanks, one repeated, a blank line), and is only taken for
    /// the deal whose cards it was found for.
    #[test]
    fn a_class_found_ahead_is_the_deal_s_own() {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/rules/video_poker.rules")).unwrap();
        let ex = compile(&text);
        let Path::Cards(_, Some(memo)) = &ex.path else { panic!("video poker keeps a class memo") };
        let input = "AS KS QS JS 2D\nTS JS QS KS KH\nKD TS 9C QD KH\nKS  QS 9S 5S 2S\n3C 8D 9H 4S 7C\n\
                     3C 8D 9H 4S 7C\n\nJH JD 5C 5S 9D\n2C 3C 4C 5C 6C\n7D QC 3H KD 2C\n#\n";
        let mut input = crate::game::Input::from_text(input);
        let (mut dealt, mut deal) = (Dealt::default(), Deal::default());
        let mut taken = 0;
        while ex.read_deal(&mut input, &mut dealt, &mut deal).unwrap() {
            if let Some(class) = &deal.class {
                let own = memo.canonical(&deal.cards);
                assert_eq!((class.key, class.sorted, class.pos), (own.key, own.sorted, own.pos), "{:?}", deal.cards);
                taken += 1;
            }
            let mut scratch = Scratch::default();
            assert_eq!(
                ex.best_of_class(&deal.cards, deal.class.as_ref(), &mut scratch),
                ex.best_with(&deal.cards, &mut scratch)
            );
        }
        // Found ahead by a deal read from the buffer, taken by the next
        // one read from the buffer: the third deal (the first is read line
        // by line, after the check for a byte order mark), the sixth (the
        // fourth, with two blanks, is read line by line and finds nothing
        // ahead) and the tenth (the blank line, then the eighth deal read
        // line by line). The others find their class themselves.
        assert_eq!(taken, 3, "classes taken from the line before");
    }

    /// A game on the rank path with hands of four (9^4 sequences).
    const FOUR: &str = include_str!("../../../tests/fixtures/exchange/four-of-nine.rules");

    /// The table of every sequence's choice that a long run builds before
    /// its first deal ([`Exchange::expect_deals`]) holds, for every
    /// sequence of ranks, what a deal of those ranks gets one deal at a
    /// time without it: Get Straight under two preferences and a game of
    /// four cards, on one thread and on rayon's pool. A run one deal
    /// shorter than the sequences builds nothing.
    #[test]
    fn the_table_built_whole_is_the_choices_made_one_by_one() {
        let gs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/rules/get_straight.rules")).unwrap();
        let other = gs.replace("prefer: fewer-cards leftmost", "prefer: more-cards rightmost");
        assert_ne!(gs, other);
        for text in [&gs, &other, &FOUR.to_string()] {
            for jobs in [1, 2] {
                let ex = compile(text);
                let Path::Ranks(path) = &ex.path else { panic!("not on the rank path") };
                let (n, h, suits) = (path.orders(), ex.hand, ex.deck.suits.len());
                assert!(n > 0, "sequences are remembered");
                ex.expect_deals(Some(3 * h * n - 1), jobs);
                ex.expect_deals(None, jobs);
                assert!(path.all().is_none(), "built for fewer deals than sequences");
                ex.expect_deals(Some(3 * h * n), jobs);
                let all = path.all().expect("built for as many deals as sequences");
                // The same game without the table, one deal per sequence.
                let one_by_one = compile(text);
                let (mut scratch, mut through) = (Scratch::default(), Scratch::default());
                for (order, &entry) in all.iter().enumerate() {
                    let mut seen = [0usize; 64];
                    let mut rest = order;
                    let cards: Vec<Card> = (0..h)
                        .map(|_| {
                            let rank = rest % ex.deck.ranks.len();
                            rest /= ex.deck.ranks.len();
                            seen[rank] += 1;
                            (rank * suits + seen[rank] - 1) as Card
                        })
                        .collect();
                    if seen.iter().any(|&k| k > suits) {
                        // More cards of a rank than suits: no deal has it.
                        continue;
                    }
                    let want = one_by_one.best_with(&cards, &mut scratch);
                    assert_eq!(u32::from(entry), want, "sequence {order} ({cards:?}), --jobs {jobs}");
                    assert_eq!(ex.best_with(&cards, &mut through), want, "through the table");
                }
            }
        }
        // Seven cards: no memo per multiset, so no table built whole.
        let mut seven = FOUR.replace("ranks: A 2 3 4 5 6 7 8 9", "ranks: A 2 3 4 5 6");
        let rows = seven.find("combination").unwrap_or(0)..seven.find("input {").unwrap_or(0);
        seven.replace_range(
            rows,
            "combination \"Four\" { pattern: kind(4) pays: 9 }\ncombination \"Other\" { pattern: any pays: 0 }\n\n",
        );
        let seven = compile(&seven.replace("hand: 4", "hand: 7"));
        let Path::Ranks(path) = &seven.path else { panic!("not on the rank path") };
        assert!(path.orders() > 0, "6^7 sequences are remembered");
        seven.expect_deals(Some(usize::MAX / 2), 2);
        assert!(path.all().is_none(), "built for hands of seven");
    }

    /// On the card path, a run expected to hold [`WHOLE_HAND_TABLE`] deals
    /// builds its tables before the first: the light path's where it
    /// applies (and then not the table of every hand), else the table of
    /// every hand; one deal fewer, an input of unknown size, or a game
    /// whose choice is special builds nothing.
    #[test]
    fn a_long_run_on_the_card_path_builds_its_tables_first() {
        const SUITED: &str = include_str!("../../../tests/fixtures/exchange/four-suited.rules");
        let bytes = 3 * 4 * WHOLE_HAND_TABLE;
        let light = compile(SUITED);
        assert!(light.by_cards(), "on the card path");
        light.expect_deals(Some(bytes - 1), 1);
        light.expect_deals(None, 1);
        assert!(light.light.get().is_none(), "built for fewer deals");
        light.expect_deals(Some(bytes), 1);
        assert!(light.light.get().is_some_and(|l| l.is_some()), "the light path not built for enough deals");
        assert!(!light.card_path_built(), "the table of every hand built where the light path applies");
        // A row of three cards of one suit in a hand of four: no light path.
        let partial = compile(&SUITED.replace("suited(4) ", "suited(3) "));
        assert!(partial.light().is_none());
        partial.expect_deals(Some(bytes - 1), 1);
        assert!(!partial.card_path_built(), "built for fewer deals");
        partial.expect_deals(Some(bytes), 1);
        assert!(partial.card_path_built(), "the table of every hand not built for enough deals");
        let stay = compile(&SUITED.replace("exchange: 0..3", "exchange: 0"));
        assert!(stay.special());
        stay.expect_deals(Some(bytes), 1);
        assert!(stay.light.get().is_none() && !stay.card_path_built(), "built for a game that never draws");
    }

    #[test]
    fn values_compare_exactly() {
        // 381/47 - 2 vs 0: from the statement's example.
        let a = Value { sum: 4 * 100 + 8 * 5 + 35, ways: 47, cost: 2 };
        let b = Value { sum: 1, ways: 1, cost: 1 };
        assert_eq!(a.cmp(&b), Ordering::Greater);
        assert_eq!(a.fraction(), (381, 47));
    }
}
