//! The card path over the hand table's limit (2^24 hands: six cards of 52
//! make 20,358,520) when some card may be exchanged: the same totals as
//! `hands.rs`, kept per class of sets under suit symmetry instead of per
//! set.
//!
//! No pattern can name a particular suit (`suited` asks for cards of one
//! suit, whichever it is; `wild:` names ranks; jokers have no suit), so a
//! relabelling of the suits maps every hand to a hand of the same row, and
//! every set U of cards to a set with the same `totals[k][U]` (the hands
//! that contain it are mapped one to one). A class is the sorted list of
//! the suits' rank masks plus the number of jokers (which are
//! interchangeable too); its key packs them into 64 bits. Each level k
//! (the smallest kept size to the hand) has an open-addressing index from
//! key to a slot, the classes numbered in the order
//! [`super::hands::for_each_class_of`] gives them, and the tables are
//! indexed by slot:
//!
//! - `hand_row[slot]`: the row of each class of hands;
//! - `totals[k][slot]`: from the classes of one card more, each set's
//!   `n - k` additions looked up by their keys;
//! - the row-count tables of `analyze` and explanations, the same way.
//!
//! A deal is then valued as on the table path: each subset's key is
//! computed (its suits' masks sorted) and looked up, then the transform
//! over the subsets. The classes of every level are counted before any is
//! built (Burnside's lemma over the permutations of the suits), so a game
//! whose classes pass [`MAX_CLASSES`] is refused by `check`. A class takes
//! at most 72 bytes (up to four index entries of 12, its total and one set
//! of its cards), so the tables stay under about 300 MB at the limit; six
//! cards of 52, every exchange size: 1,115,817 classes, about 36 MB (the
//! analysis's row counts are bounded by `analyze::MAX_ROW_TABLE`).

use rayon::prelude::*;

use super::combi::{binom, Colex};
use super::eval::Eval;
use super::hands::{for_each_class_of, subtract_supersets, CardPath};
use super::{TooLarge, MAX_CARD_HAND, MAX_WORK};
use crate::engines::cards::Deck;

/// Most classes, over every level, that the tables keep.
pub(super) const MAX_CLASSES: u128 = 1 << 22;
/// Most suits (the permutations of the suits are counted one by one).
pub(super) const MAX_SUITS: usize = 8;
/// Most cards with a rank and a suit: a key holds their masks, four bits
/// of jokers and a mark bit.
const MAX_RANKED: usize = 59;
/// Most jokers (four bits of the key).
const MAX_JOKERS: usize = 15;

/// A set of cards sorted by card number (the first `k` entries).
type Set = [u16; MAX_CARD_HAND];

/// The classes of sets of each level, with an index from key to slot.
#[derive(Debug)]
pub(super) struct Classes {
    nr: usize,
    ns: usize,
    /// Cards with a rank and a suit (the others are jokers).
    ranked: usize,
    /// Per card with a suit: the suit and the rank's bit.
    suit: [u8; 64],
    bit: [u64; 64],
    /// `levels[k]`: the classes of k cards (none below the smallest kept
    /// size).
    levels: Vec<Index>,
    /// `reps[k]`: one set of each class of k cards, by slot, for k below
    /// the hand (the row tables are built from them).
    reps: Vec<Vec<Set>>,
}

/// Open addressing, linear probing: `keys[i]` (0: empty) has slot
/// `slots[i]`.
#[derive(Debug, Default)]
struct Index {
    keys: Vec<u64>,
    slots: Vec<u32>,
    shift: u32,
    count: usize,
}

impl Index {
    fn new(keys: &[u64]) -> Index {
        let size = (2 * keys.len()).next_power_of_two().max(2);
        let mut ix = Index { keys: vec![0; size], slots: vec![0; size], shift: 64 - size.trailing_zeros(), count: 0 };
        for (slot, &key) in keys.iter().enumerate() {
            let mut i = ix.home(key);
            while ix.keys[i] != 0 {
                i = (i + 1) & (size - 1);
            }
            ix.keys[i] = key;
            ix.slots[i] = slot as u32;
        }
        ix.count = keys.len();
        ix
    }

    #[inline]
    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    /// The slot of a key. Every class of the level is indexed, so the key
    /// of any set of this size is found.
    #[inline]
    fn get(&self, key: u64) -> usize {
        let mask = self.keys.len() - 1;
        let mut i = self.home(key);
        loop {
            let k = self.keys[i];
            if k == key {
                return self.slots[i] as usize;
            }
            assert!(k != 0, "a set of cards whose class is not indexed");
            i = (i + 1) & mask;
        }
    }
}

impl Classes {
    /// The classes of `min_kept` to `hand` cards of a deck of `nr` ranks
    /// of `ns` suits and `nj` jokers (the caller checked [`plan`]), and
    /// one hand of each class of hands, by slot.
    fn build((nr, ns, nj): (usize, usize, usize), hand: usize, min_kept: usize) -> (Classes, Vec<Set>) {
        let ranked = nr * ns;
        let (mut suit, mut bit) = ([0u8; 64], [0u64; 64]);
        for c in 0..ranked {
            suit[c] = (c % ns) as u8;
            bit[c] = 1 << (c / ns);
        }
        let mut cx = Classes { nr, ns, ranked, suit, bit, levels: Vec::new(), reps: vec![Vec::new(); hand] };
        let mut top = Vec::new();
        for k in 0..=hand {
            if k < min_kept {
                cx.levels.push(Index::default());
                continue;
            }
            let mut reps: Vec<Set> = Vec::new();
            for_each_class_of((nr, ns, nj), k, &mut |cards, _| {
                let mut set = [0u16; MAX_CARD_HAND];
                set[..k].copy_from_slice(cards);
                reps.push(set);
                true
            });
            let keys: Vec<u64> = reps.par_iter().map(|s| cx.key_of(&s[..k])).collect();
            cx.levels.push(Index::new(&keys));
            if k == hand {
                top = reps;
            } else {
                cx.reps[k] = reps;
            }
        }
        (cx, top)
    }

    /// The number of classes of k cards.
    pub(super) fn count(&self, k: usize) -> usize {
        self.levels[k].count
    }

    /// The key of a class from its suits' masks (in any order) and its
    /// jokers: the masks sorted, largest first, then packed under the
    /// jokers and a mark bit (never 0).
    #[inline]
    fn key(&self, masks: &mut [u64; MAX_SUITS], jokers: u64) -> u64 {
        let m = &mut masks[..self.ns];
        for i in 1..m.len() {
            let x = m[i];
            let mut j = i;
            while j > 0 && m[j - 1] < x {
                m[j] = m[j - 1];
                j -= 1;
            }
            m[j] = x;
        }
        m.iter().fold(jokers, |key, &x| key << self.nr | x) | 1 << 63
    }

    /// The suits' masks and the jokers of some cards.
    #[inline]
    fn masks(&self, cards: impl Iterator<Item = u16>) -> ([u64; MAX_SUITS], u64) {
        let mut masks = [0u64; MAX_SUITS];
        let mut jokers = 0;
        for c in cards {
            let c = c as usize;
            if c < self.ranked {
                masks[self.suit[c] as usize] |= self.bit[c];
            } else {
                jokers += 1;
            }
        }
        (masks, jokers)
    }

    fn key_of(&self, cards: &[u16]) -> u64 {
        let (mut masks, jokers) = self.masks(cards.iter().copied());
        self.key(&mut masks, jokers)
    }

    /// The slot of the class of `set + c` among the sets one larger, for
    /// every card c of the `n` not in the sorted `set`.
    fn for_each_added(&self, set: &[u16], n: usize, mut f: impl FnMut(usize)) {
        let (masks, jokers) = self.masks(set.iter().copied());
        let above = &self.levels[set.len() + 1];
        // The jokers are interchangeable: one more is the same class
        // whichever it is.
        let mut with_joker = None;
        for c in 0..n {
            if set.contains(&(c as u16)) {
                continue;
            }
            let slot = if c < self.ranked {
                let mut m = masks;
                m[self.suit[c] as usize] |= self.bit[c];
                above.get(self.key(&mut m, jokers))
            } else {
                *with_joker.get_or_insert_with(|| {
                    let mut m = masks;
                    above.get(self.key(&mut m, jokers + 1))
                })
            };
            f(slot);
        }
    }
}

impl CardPath {
    /// The card path by class: the rows of the classes of hands and the
    /// totals of the classes of sets (see the module's documentation).
    pub(super) fn by_class(eval: &Eval, n: usize, hand: usize, min_kept: usize, pays: &[i64; 256]) -> CardPath {
        let (nr, ns) = (eval.n_ranks, eval.n_suits);
        let (cx, top) = Classes::build((nr, ns, n - nr * ns), hand, min_kept);
        let hand_row: Vec<u8> = top.par_iter().map(|s| eval.row_of_cards(&s[..hand])).collect();
        drop(top);
        let mut totals: Vec<Vec<i64>> = vec![Vec::new(); hand + 1];
        for k in (min_kept..hand).rev() {
            let above: &[i64] = if k + 1 < hand { &totals[k + 1] } else { &[] };
            let div = (hand - k) as i128;
            let level = cx.reps[k]
                .par_iter()
                .map(|s| {
                    let mut sum: i128 = 0;
                    cx.for_each_added(&s[..k], n, |slot| {
                        sum += if k + 1 == hand { pays[hand_row[slot] as usize] } else { above[slot] } as i128;
                    });
                    (sum / div) as i64
                })
                .collect();
            totals[k] = level;
        }
        CardPath { colex: Colex::new(n, hand), n, hand, hand_row, totals, classes: Some(Box::new(cx)) }
    }

    /// [`CardPath::sums`] by class: `idx` receives the slot of each
    /// subset's class (subsets smaller than `min_kept`: 0).
    pub(super) fn class_sums(
        &self,
        cx: &Classes,
        sorted: &[u16],
        min_kept: usize,
        pays: &[i64; 256],
        f: &mut [i64],
        idx: &mut [u32],
    ) {
        let h = sorted.len();
        let full = (1usize << h) - 1;
        // Each subset's masks and jokers from the subset without its
        // lowest card.
        let mut masks = [[0u64; MAX_SUITS]; 1 << MAX_CARD_HAND];
        let mut jokers = [0u64; 1 << MAX_CARD_HAND];
        for m in 0..=full {
            let k = m.count_ones() as usize;
            if m > 0 {
                let (prev, c) = (m & (m - 1), sorted[m.trailing_zeros() as usize] as usize);
                masks[m] = masks[prev];
                jokers[m] = jokers[prev];
                if c < cx.ranked {
                    masks[m][cx.suit[c] as usize] |= cx.bit[c];
                } else {
                    jokers[m] += 1;
                }
            }
            if k < min_kept {
                f[m] = 0;
                idx[m] = 0;
                continue;
            }
            let mut sorted_masks = masks[m];
            let slot = cx.levels[k].get(cx.key(&mut sorted_masks, jokers[m]));
            idx[m] = slot as u32;
            f[m] = if k == h { pays[self.hand_row[slot] as usize] } else { self.totals[k][slot] };
        }
        subtract_supersets(&mut f[..=full], h);
    }

    /// The row of a hand by its class.
    pub(super) fn class_row(&self, cx: &Classes, sorted: &[u16]) -> u8 {
        self.hand_row[cx.levels[self.hand].get(cx.key_of(sorted))]
    }
}

/// Row counts per class of sets, from the kept size up to `hand - 1`
/// (`levels[k][slot * width + row]`), as `analyze.rs` builds them per set.
pub(super) fn row_levels(path: &CardPath, cx: &Classes, min_kept: usize, width: usize) -> Vec<Vec<u32>> {
    let (h, n) = (path.hand, path.n);
    let mut levels: Vec<Vec<u32>> = vec![Vec::new(); h + 1];
    for k in (min_kept..h).rev() {
        let mut level = vec![0u32; cx.count(k) * width];
        let above: &[u32] = if k + 1 < h { &levels[k + 1] } else { &[] };
        level.par_chunks_mut(width).zip(cx.reps[k].par_iter()).for_each(|(slot, set)| {
            let mut acc = vec![0u64; width];
            cx.for_each_added(&set[..k], n, |s| {
                if k + 1 == h {
                    acc[(path.hand_row[s] as usize).min(width - 1)] += 1;
                } else {
                    for (a, &c) in acc.iter_mut().zip(&above[s * width..(s + 1) * width]) {
                        *a += c as u64;
                    }
                }
            });
            for (s, &a) in slot.iter_mut().zip(&acc) {
                *s = (a / (h - k) as u64) as u32;
            }
        });
        levels[k] = level;
    }
    levels
}

/// Whether a game of `hands` hands is counted by class (over the hand
/// table's limit).
pub(super) fn applies(hands: u128) -> bool {
    hands > super::MAX_HANDS
}

/// Checks that the tables by class stay within their limits: a deck of at
/// most [`MAX_SUITS`] suits and [`MAX_RANKED`] cards with a suit, at most
/// [`MAX_CLASSES`] classes from the smallest kept size to the hand, and
/// 2^28 steps of totals.
pub(super) fn plan(deck: &Deck, hand: usize, min_kept: usize, hands: u128) -> Result<(), TooLarge> {
    let (nr, ns, nj, n) = (deck.ranks.len(), deck.suits.len(), deck.jokers.len(), deck.size());
    let over = format!("{hands} hands of {hand} of {n} cards (over the hand table's limit of 2^24)");
    if ns > MAX_SUITS || nr * ns > MAX_RANKED || nj > MAX_JOKERS {
        return Err(TooLarge(format!(
            "{over} are counted by class under suit symmetry only with at most {MAX_SUITS} suits, \
             {MAX_RANKED} cards with a suit and {MAX_JOKERS} jokers"
        )));
    }
    let counts: Vec<u128> = (0..=hand).map(|k| class_count((nr, ns, nj), k)).collect();
    let classes: u128 = counts[min_kept..].iter().sum();
    if classes > MAX_CLASSES {
        return Err(TooLarge(format!(
            "{over} make {classes} classes of sets under suit symmetry to tabulate: the engine's limit is 2^22"
        )));
    }
    let work: u128 = (min_kept..hand).map(|k| counts[k] * (n - k) as u128).sum();
    if work > MAX_WORK {
        return Err(TooLarge(format!(
            "{over}: keeping as few as {min_kept} cards needs {work} steps of tables by class: \
             the engine's limit is 2^28"
        )));
    }
    Ok(())
}

/// The number of classes of k cards under suit symmetry (the jokers
/// interchangeable), by Burnside's lemma: the average over the
/// permutations of the suits of the sets each leaves unchanged.
pub(super) fn class_count((nr, ns, nj): (usize, usize, usize), k: usize) -> u128 {
    (0..=nj.min(k)).map(|j| ranked_classes(nr, ns, k - j)).sum()
}

/// Classes of m cards with a rank and a suit. A permutation whose cycles
/// have lengths L1, L2, ... leaves a set unchanged when each orbit (the
/// cards of one rank in the suits of one cycle) is in it or out of it: the
/// coefficient of x^m in the product of (1 + x^L)^ranks over the cycles.
/// Permutations of one cycle type are counted together (ns! / z).
fn ranked_classes(nr: usize, ns: usize, m: usize) -> u128 {
    let mut total: u128 = 0;
    let mut cycles = Vec::new();
    for_each_partition(ns, ns, &mut cycles, &mut |lengths| {
        let mut poly = vec![0u128; m + 1];
        poly[0] = 1;
        for &l in lengths {
            let mut next = vec![0u128; m + 1];
            for (d, &c) in poly.iter().enumerate().filter(|&(_, &c)| c != 0) {
                for j in 0..=nr {
                    if d + j * l > m {
                        break;
                    }
                    next[d + j * l] += c * binom(nr as u64, j as u64);
                }
            }
            poly = next;
        }
        // ns! / z, z = product over lengths L of L^(m_L) m_L!.
        let mut z: u128 = 1;
        let mut i = 0;
        while i < lengths.len() {
            let j = (i..lengths.len()).find(|&j| lengths[j] != lengths[i]).unwrap_or(lengths.len());
            for t in 1..=(j - i) as u128 {
                z *= lengths[i] as u128 * t;
            }
            i = j;
        }
        let perms: u128 = (1..=ns as u128).product::<u128>() / z;
        total += perms * poly[m];
    });
    total / (1..=ns as u128).product::<u128>()
}

/// Calls `f` with every partition of `n` into parts of at most `most`,
/// largest first.
fn for_each_partition(n: usize, most: usize, parts: &mut Vec<usize>, f: &mut dyn FnMut(&[usize])) {
    if n == 0 {
        f(parts);
        return;
    }
    for p in (1..=n.min(most)).rev() {
        parts.push(p);
        for_each_partition(n - p, p, parts, f);
        parts.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Exchange, Path, Scratch};
    use super::*;

    fn compile(text: &str) -> Exchange {
        let loaded = crate::load::load_text("by-class", text, std::path::Path::new(".")).unwrap();
        super::super::lower::compile(&loaded).unwrap_or_else(|d| panic!("{:?}", d[0].message))
    }

    /// The engine with its card path forced by class (the threshold
    /// lowered to this small deck).
    fn by_class(text: &str) -> Exchange {
        let ex = compile(text);
        let path = CardPath::by_class(&ex.eval, ex.deck.size(), ex.hand, ex.min_kept, &ex.pays);
        let Path::Cards(cell, _) = &ex.path else { panic!("not the card path") };
        cell.set(path).unwrap();
        ex
    }

    #[test]
    fn classes_are_counted_as_they_are_enumerated() {
        for deck in [(13, 4, 0), (6, 4, 1), (5, 3, 2), (4, 5, 0), (7, 2, 1), (3, 1, 0)] {
            for k in 0..=6 {
                let mut n = 0u128;
                for_each_class_of(deck, k, &mut |_, _| {
                    n += 1;
                    true
                });
                assert_eq!(class_count(deck, k), n, "{deck:?}, {k} cards");
            }
        }
        assert_eq!(class_count((13, 4, 0), 5), 134_459);
        assert_eq!(class_count((13, 4, 0), 6), 962_988);
    }

    #[test]
    fn every_pattern_word_is_blind_to_which_suit() {
        // The tables by class hold only when no pattern can name a
        // particular suit. A new word must be added here once it is known
        // to respect every relabelling of the suits (or the plan must then
        // refuse the rows that name one).
        let words: Vec<&str> = crate::engines::exchange::pattern::PATTERN_WORDS.iter().map(|w| w.0).collect();
        assert_eq!(words, ["run", "kind", "ranks", "suited", "wild", "any"]);
    }

    const SMALL: &str = r#"
        engine: exchange
        deck { ranks: A 2 3 4 5 6  suits: S H D C  high: A }
        play { hand: 4  entry: 1  exchange: 0..4  cost: 1  prefer: fewer-cards leftmost }
        combination "flush run" { pattern: suited(run(4)) pays: 40 }
        combination "quads"     { pattern: kind(4)        pays: 30 }
        combination "flush"     { pattern: suited(4)      pays: 7 }
        combination "three"     { pattern: suited(3) + kind(1) pays: 3 }
        combination "run"       { pattern: run(4)         pays: 5 }
        combination "pair"      { pattern: kind(2 5 6 A)  pays: 1 }
        output { stay: "Stay" exchange: "Exchange {cards}" }
        "#;

    const WILD: &str = r#"
        engine: exchange
        deck { ranks: A 2 3 4 5  suits: x y z  wild: 5  jokers: J1 J2 }
        play { hand: 4  entry: 2  exchange: 0..2  cost: 0  prefer: more-cards rightmost }
        combination "natural"   { pattern: suited(run(4)) natural: yes pays: 50 }
        combination "four wild" { pattern: wild(4)        pays: 40 }
        combination "flush run" { pattern: suited(run(3)) + wild(1) pays: 12 }
        combination "four"      { pattern: kind(4)        pays: 9 }
        combination "flush"     { pattern: suited(4)      pays: 4 }
        combination "pair"      { pattern: kind(2)        pays: 1 }
        output { stay: "Stay" exchange: "Exchange {cards}" }
        "#;

    /// Every deal's options (masks, values), choice and row are the
    /// table's; so are the analysis and the draws by row of some deals.
    fn same_as_the_table(text: &str) {
        let (table, classed) = (compile(text), by_class(text));
        assert!(classed.card_path().unwrap().classes.is_some());
        let (n, h) = (table.deck.size(), table.hand);
        let colex = Colex::new(n, h);
        let mut set: Vec<u16> = (0..h as u16).collect();
        let mut i = 0;
        loop {
            // The deal in an order other than sorted, as input gives it.
            let mut deal = set.clone();
            deal.rotate_left(i % h);
            let options = classed.options(&deal);
            assert_eq!(
                options.iter().map(|o| (o.0, o.1.fraction())).collect::<Vec<_>>(),
                table.options(&deal).iter().map(|o| (o.0, o.1.fraction())).collect::<Vec<_>>(),
                "{deal:?}"
            );
            assert_eq!(classed.best(&deal), table.best(&deal), "{deal:?}");
            assert_eq!(classed.row_of(&deal), table.row_of(&deal), "{deal:?}");
            if i % 97 == 0 {
                for &(mask, _) in &options {
                    assert_eq!(classed.draws_by_row(&deal, mask), table.draws_by_row(&deal, mask), "{deal:?} {mask:b}");
                }
            }
            i += 1;
            if !colex.next(&mut set) {
                break;
            }
        }
        assert_eq!(i, colex.count(h));
        let quiet = &mut |_, _| {};
        assert_eq!(classed.expected_return(quiet).unwrap(), table.expected_return(quiet).unwrap());
    }

    #[test]
    fn by_class_every_deal_and_the_analysis_are_the_tables() {
        same_as_the_table(SMALL);
        same_as_the_table(WILD);
    }

    /// Each option's payout sum against every draw evaluated one by one.
    #[test]
    fn by_class_sums_are_every_draw_counted() {
        for text in [SMALL, WILD] {
            let ex = by_class(text);
            let (n, h) = (ex.deck.size(), ex.hand);
            let eval: &Eval = &ex.eval;
            let mut rng = crate::rng::SplitMix64::new(26);
            for _ in 0..12 {
                let mut cards: Vec<u16> = (0..n as u16).collect();
                rng.shuffle(&mut cards);
                let deal = cards[..h].to_vec();
                let pool = &cards[h..];
                let mut scratch = Scratch::default();
                ex.for_each_option(&deal, &mut scratch, &mut |mask, v| {
                    let kept: Vec<u16> = (0..h).filter(|&i| mask >> i & 1 == 0).map(|i| deal[i]).collect();
                    let k = mask.count_ones() as usize;
                    let (mut sum, mut ways) = (0i64, 0i64);
                    let mut pick: Vec<usize> = (0..k).collect();
                    loop {
                        let mut hand: Vec<u16> = kept.iter().copied().chain(pick.iter().map(|&i| pool[i])).collect();
                        hand.sort_unstable();
                        sum += ex.pays[eval.row_of_cards(&hand) as usize];
                        ways += 1;
                        let Some(i) = (0..k).rev().find(|&i| pick[i] < pool.len() - k + i) else { break };
                        pick[i] += 1;
                        for j in i + 1..k {
                            pick[j] = pick[j - 1] + 1;
                        }
                    }
                    assert_eq!((v.sum, v.ways), (sum, ways), "{deal:?} discarding {mask:b}");
                });
            }
        }
    }

    #[test]
    fn the_plan_counts_classes_and_names_its_limits() {
        let deck = |ranks: usize, suits: usize| {
            let names = |p: &str, n: usize| (0..n).map(|i| format!("{p}{i}")).collect::<Vec<_>>();
            Deck::new(names("r", ranks), names("s", suits), (1..=ranks as i64).collect(), false)
        };
        let hands = |d: &Deck, h: usize| binom(d.size() as u64, h as u64);
        let d52 = deck(13, 4);
        assert_eq!(plan(&d52, 6, 0, hands(&d52, 6)), Ok(()));
        // Seven of 52: 5.9 million classes of hands.
        let err = plan(&d52, 7, 0, hands(&d52, 7)).unwrap_err();
        assert!(err.0.contains("classes of sets under suit symmetry") && err.0.contains("2^22"), "{}", err.0);
        let d9 = deck(6, 9);
        let err = plan(&d9, 6, 0, hands(&d9, 6)).unwrap_err();
        assert!(err.0.contains("at most 8 suits"), "{}", err.0);
    }
}
