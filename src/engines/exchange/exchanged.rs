//! Payouts that depend on how many cards were exchanged: a row's `pays:`
//! may be a number expression that reads `exchanged` (0 when the hand is
//! kept). The expression is compiled once and tabulated by the number of
//! cards exchanged (at most [`MAX_HAND`] + 1 values), so nothing is
//! evaluated while a deal is played.
//!
//! A table whose payouts are the same for every allowed exchange size is
//! an ordinary table (the row's payout is a number): such a file runs the
//! usual code, no slower. Otherwise the engine is [`Split`] by payout: one
//! ordinary engine per distinct payout column, each allowed only the
//! exchange sizes that pay by that column. A choice exchanging k cards is
//! valued by the engine of k (its sums over the draws use the payouts of
//! k), and the best choice over every engine wins, ties broken by the
//! file's `prefer` order, exactly as in one engine.

use std::cmp::Ordering;

use super::analyze::Acc;
use super::combi::{binom, for_each_multiset};
use super::{Exchange, ExchangeSpec, Row, Scratch, Value, MAX_HAND, MAX_PAYOUT};
use crate::check::Cx;
use crate::diag::{codes, Diag};
use crate::engines::cards::Card;
use crate::expr::{Env, Scope, Ty};
use crate::source::Span;
use crate::syntax::Expr;

/// The name `pays:` reads: the number of cards exchanged.
pub(crate) const EXCHANGED: &str = "exchanged";

/// A row's payout for each number of cards exchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ByExchanged {
    /// `pays[k]`: the payout when k cards were exchanged.
    pub pays: [i64; MAX_HAND + 1],
    /// The `pays` value in the rule file.
    pub span: Span,
}

/// Compiles a `pays:` value that is not a plain number: a number
/// expression over `exchanged`, tabulated for 0 to [`MAX_HAND`] cards.
/// The payouts are checked once the allowed exchange sizes are known
/// ([`check_pays`]).
pub(super) fn lower_pays(e: &Expr, cx: &mut Cx) -> Option<ByExchanged> {
    let vars = [(EXCHANGED, Ty::Int)];
    let scope = Scope {
        vars: &vars,
        elements: &[],
        weights: &[],
        element: "a number",
        int_range: (0, MAX_HAND as i64),
        unavailable: &[],
        counts: &[],
    };
    let (f, _) = crate::expr::compile_int(e, &scope, cx)?;
    let mut pays = [0i64; MAX_HAND + 1];
    for (k, p) in pays.iter_mut().enumerate() {
        *p = f.eval(&Env { sets: &[], ints: &[k as i64] });
    }
    Some(ByExchanged { pays, span: e.span })
}

/// Checks the payouts of the exchange sizes the file allows (0 to
/// [`MAX_PAYOUT`]); a row paying the same for every allowed size becomes a
/// plain row, and `Row::pays` is the row's largest payout (the bound the
/// engine's limits use).
pub(super) fn check_pays(rows: &mut [Row], sizes: &[usize], cx: &mut Cx) -> Option<()> {
    let mut ok = true;
    for row in rows.iter_mut() {
        let Some(by) = &row.by_exchanged else { continue };
        let allowed = || sizes.iter().copied().filter(|&k| k <= MAX_HAND);
        for k in allowed() {
            let n = by.pays[k];
            let (code, label) = match n {
                n if n < 0 => (codes::NEGATIVE_PAYOUT, "a combination pays 0 or more"),
                n if n > MAX_PAYOUT => (codes::OUT_OF_RANGE, "a payout is at most 1000000000"),
                _ => continue,
            };
            cx.push(
                Diag::error(code, by.span, format!("`{}` pays {n} when {k} card(s) are exchanged", row.name))
                    .label(label)
                    .help("`exchanged` is the number of cards exchanged, from the sizes `exchange:` allows"),
            );
            ok = false;
            break;
        }
        let max = allowed().map(|k| by.pays[k]).max().unwrap_or(0);
        let same = allowed().all(|k| by.pays[k] == max);
        row.pays = max;
        if same {
            row.by_exchanged = None;
        }
    }
    ok.then_some(())
}

/// One ordinary engine per distinct column of payouts.
#[derive(Debug)]
pub(super) struct Split {
    /// Each engine values the exchange sizes it allows.
    parts: Vec<Exchange>,
}

impl Split {
    /// The engines of a table whose payouts depend on the number of cards
    /// exchanged (none when they do not).
    pub(super) fn new(spec: &ExchangeSpec) -> Option<Split> {
        if spec.rows.iter().all(|r| r.by_exchanged.is_none()) {
            return None;
        }
        let mut columns: Vec<(Vec<i64>, Vec<usize>)> = Vec::new();
        for &k in &spec.sizes {
            let column: Vec<i64> = spec.rows.iter().map(|r| r.pays_at(k)).collect();
            match columns.iter_mut().find(|(c, _)| *c == column) {
                Some((_, ks)) => ks.push(k),
                None => columns.push((column, vec![k])),
            }
        }
        let parts = columns
            .into_iter()
            .map(|(column, sizes)| {
                let rows = spec
                    .rows
                    .iter()
                    .zip(column)
                    .map(|(r, pays)| Row { by_exchanged: None, pays, ..r.clone() })
                    .collect();
                let part = ExchangeSpec {
                    deck: spec.deck.clone(),
                    hand: spec.hand,
                    entry: spec.entry,
                    cost: spec.cost,
                    sizes,
                    prefer: spec.prefer.clone(),
                    rows,
                    lines: spec.lines.clone(),
                    terminator: spec.terminator.clone(),
                    spans: spec.spans.clone(),
                    rounds: 1,
                    round_plan: Default::default(),
                };
                Exchange::build(part).0
            })
            .collect();
        Some(Split { parts })
    }

    /// Every allowed choice of a deal with its exact value.
    pub(super) fn for_each_option(&self, cards: &[Card], scratch: &mut Scratch, f: &mut dyn FnMut(u32, Value)) {
        for part in &self.parts {
            part.for_each_option(cards, scratch, f);
        }
    }

    /// The best choice (a discard mask over input positions).
    pub(super) fn best(&self, ex: &Exchange, cards: &[Card], scratch: &mut Scratch) -> u32 {
        let mut best: Option<(u32, Value)> = None;
        self.for_each_option(cards, scratch, &mut |m, v| {
            let better = match best {
                None => true,
                Some((bm, bv)) => v > bv || v == bv && ex.preference.cmp(m, bm) == Ordering::Less,
            };
            if better {
                best = Some((m, v));
            }
        });
        best.map_or(0, |b| b.0)
    }
}

impl Exchange {
    /// `analyze` when the payouts depend on the number of cards exchanged:
    /// every group of deals (a rank multiset on the rank path, a class
    /// under suit symmetry on the card path) is played as `run` plays its
    /// first deal, and the draws of its choice are counted by row. The
    /// payout sums come from those counts and the payouts of the size.
    pub(super) fn split_analysis(&self, split: &Split) -> Result<(Acc, bool), String> {
        let (h, width) = (self.hand, self.rows.len() + 1);
        let mut acc = Acc::new(h, width);
        let mut scratch = Scratch::default();
        let mut add =
            |cards: &[Card], weight: u128, acc: &mut Acc| {
                let mask = self.best_with(cards, &mut scratch);
                let mut best: Option<Value> = None;
                let mut tied: Vec<u32> = Vec::new();
                split.for_each_option(cards, &mut scratch, &mut |m, v| match best
                    .map_or(Ordering::Greater, |b| v.cmp(&b))
                {
                    Ordering::Greater => {
                        best = Some(v);
                        tied = vec![m];
                    }
                    Ordering::Equal => tied.push(m),
                    Ordering::Less => {}
                });
                if tied.len() > 1 {
                    acc.add_ties(weight, self.tie_effect(&self.tied_draws(cards, &tied)));
                }
                let k = mask.count_ones() as usize;
                let hist = self.draws_by_row(cards, mask);
                for (row, &n) in hist.iter().enumerate() {
                    let pays = self.rows.get(row).map_or(0, |r| r.pays_at(k));
                    acc.sum[k] += weight as i128 * n * pays as i128;
                    acc.rows[k][row] += weight as i128 * n;
                }
                acc.deals[k] += weight;
            };
        if self.by_cards() {
            super::hands::for_each_class_while(&self.deck, h, &mut |cards, weight| {
                add(cards, weight, &mut acc);
                true
            });
        } else {
            let (nr, suits) = (self.deck.ranks.len(), self.deck.suits.len());
            for_each_multiset(nr, h, &mut |sorted| {
                let mut counts = [0usize; 64];
                for &r in sorted {
                    counts[r as usize] += 1;
                }
                if counts.iter().any(|&c| c > suits) {
                    return;
                }
                let weight: u128 = counts[..nr].iter().map(|&c| binom(suits as u64, c as u64)).product();
                // A deal of these ranks: each rank's cards in suit order.
                let mut seen = [0usize; 64];
                let cards: Vec<Card> = sorted
                    .iter()
                    .map(|&r| {
                        let s = seen[r as usize];
                        seen[r as usize] += 1;
                        (r as usize * suits + s) as Card
                    })
                    .collect();
                add(&cards, weight, &mut acc);
            });
        }
        Ok((acc, true))
    }
}
