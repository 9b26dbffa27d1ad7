//! Patterns of the combination table, and whether a hand forms them.
//!
//! A pattern is a sum of parts; the parts of one pattern use different
//! cards. A wild card stands for any card (any rank and suit, even one
//! already in the hand), so a part may take wild cards for the cards it
//! lacks. Two matchers share the parts:
//! - [`RankMatcher`] sees rank counts and a number of wild cards: every part
//!   that does not look at suits (and a suited part with the suit ignored,
//!   as a quick necessary test);
//! - [`CardMatcher`] sees the cards by suit (one bit mask of ranks per suit):
//!   suited parts first, then the rest handed to the rank matcher.
//!
//! Both try parts in a fixed order (wild parts, then suited, then the
//! others, largest first) and, for two equal parts in a row, only choices
//! in increasing order, so the search never tries the same split twice.
//! Natural cards are always used before wild ones: a wild card kept is
//! worth at least any natural card, so that loses no match.

use crate::engines::cards::Deck;

/// The words a pattern is written with, each with its meaning: the one
/// list the lowering accepts, its messages name, and the schema shows
/// (hover, completion, docs/reference.md). A test ties each word to the
/// lowering and to the key's description.
pub(crate) const PATTERN_WORDS: &[(&str, &str)] = &[
    ("run", "`run(N)`: N cards of consecutive distinct ranks"),
    ("kind", "`kind(N)`: N cards of one rank; `kind(N RANKS)`: of one of those ranks (`kind(2 J Q K A)`)"),
    ("ranks", "`ranks(A K ...)`: one card of each rank listed"),
    ("suited", "`suited(N)`: N cards of one suit; `suited(PART)`: the part, all of one suit"),
    ("wild", "`wild(N)`: N wild cards"),
    (ANY, "every hand"),
];

/// The pattern every hand forms (a whole pattern, not a part of a sum).
pub(crate) const ANY: &str = "any";

/// What one part of a pattern asks for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Shape {
    /// `wild(n)`: n wild cards.
    Wild(usize),
    /// `ranks(a b b)`: one card of each listed rank, as a multiset:
    /// (rank, how many), sorted by rank.
    Ranks(Vec<(usize, usize)>),
    /// `run(n)`: n cards of consecutive distinct ranks.
    Run(usize),
    /// `kind(n)` or `kind(n, ranks...)`: n cards of one rank, that rank
    /// in the set (a bit mask over ranks).
    Kind(usize, u64),
    /// `suited(n)`: n cards (of one suit: always suited).
    Cards(usize),
}

/// One part of a pattern: a shape, and whether its cards share a suit
/// (`suited(...)`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Part {
    pub shape: Shape,
    pub suited: bool,
}

impl Part {
    pub fn new(shape: Shape, suited: bool) -> Part {
        Part { shape, suited }
    }

    /// How many cards the part takes.
    pub fn size(&self) -> usize {
        match &self.shape {
            Shape::Wild(n) | Shape::Run(n) | Shape::Kind(n, _) | Shape::Cards(n) => *n,
            Shape::Ranks(rs) => rs.iter().map(|&(_, m)| m).sum(),
        }
    }

    /// Sort key: wild parts, then suited ones, then the others; within a
    /// group, fixed choices (`ranks`) first, then the largest.
    fn order(&self) -> (u8, u8, usize) {
        let group = match (&self.shape, self.suited) {
            (Shape::Wild(_), _) => 0,
            (_, true) => 1,
            _ => 2,
        };
        let kind = match self.shape {
            Shape::Wild(_) => 0,
            Shape::Ranks(_) => 1,
            Shape::Run(_) => 2,
            Shape::Kind(..) => 3,
            Shape::Cards(_) => 4,
        };
        (group, kind, usize::MAX - self.size())
    }
}

/// Puts the parts of a pattern in the order the matchers try them.
pub(crate) fn normalize(parts: &mut [Part]) {
    parts.sort_by(|a, b| a.order().cmp(&b.order()).then_with(|| a.cmp(b)));
}

/// The number of cards a pattern takes.
pub(crate) fn need(parts: &[Part]) -> usize {
    parts.iter().map(Part::size).sum()
}

/// Whether any part needs suits.
pub(crate) fn is_suited(parts: &[Part]) -> bool {
    parts.iter().any(|p| p.suited)
}

/// The same pattern with suits ignored (a necessary condition).
pub(crate) fn relaxed(parts: &[Part]) -> Vec<Part> {
    let mut out: Vec<Part> = parts.iter().map(|p| Part { shape: p.shape.clone(), suited: false }).collect();
    normalize(&mut out);
    out
}

/// The rank sets of every run, by length: `windows[n]` lists the masks
/// of the runs of n ranks.
#[derive(Debug, Clone, Default)]
pub struct Runs {
    windows: Vec<Vec<u64>>,
}

impl Runs {
    /// Runs up to `longest` ranks in `deck`: consecutive in rank order;
    /// going round when the deck wraps; with `high`, the first rank also
    /// after the last (ending a run there).
    pub fn new(deck: &Deck, longest: usize) -> Runs {
        let nr = deck.ranks.len();
        let mut windows = vec![Vec::new(); longest.min(nr) + 1];
        for (len, masks) in windows.iter_mut().enumerate().skip(1) {
            let starts = if deck.wrap { nr } else { nr + 1 - len };
            for s in 0..starts {
                let m = (s..s + len).fold(0u64, |m, i| m | 1 << (i % nr));
                if !masks.contains(&m) {
                    masks.push(m);
                }
            }
            if deck.high && !deck.wrap && len >= 2 {
                // The ranks nr-len+1 .. nr-1, then the first rank.
                let m = (nr + 1 - len..nr).fold(1u64, |m, i| m | 1 << i);
                if !masks.contains(&m) {
                    masks.push(m);
                }
            }
        }
        Runs { windows }
    }

    /// The masks of the runs of `len` ranks (none when longer than the deck).
    #[inline]
    pub fn of(&self, len: usize) -> &[u64] {
        self.windows.get(len).map_or(&[], Vec::as_slice)
    }
}

/// Matching over rank counts and wild cards.
pub struct RankMatcher<'a> {
    pub runs: &'a Runs,
}

impl RankMatcher<'_> {
    /// Does a hand of these rank counts and `wild` wild cards form `parts`
    /// (in [`normalize`]d order, none suited except `Cards`, read as "any
    /// n cards")? The counts are borrowed and restored.
    pub fn matches(&self, counts: &mut [u8], wild: usize, parts: &[Part]) -> bool {
        let mut naturals = 0;
        let mut present = 0u64;
        for (r, &c) in counts.iter().enumerate() {
            naturals += c as usize;
            if c > 0 {
                present |= 1 << r;
            }
        }
        self.matches_with(counts, present, naturals, wild, parts, need(parts))
    }

    /// [`RankMatcher::matches`] when the caller knows the ranks present
    /// (a bit each), the number of natural cards and the cards `parts`
    /// take (see [`need`]): the same hand tried on every row.
    #[inline]
    pub fn matches_with(
        &self,
        counts: &mut [u8],
        present: u64,
        naturals: usize,
        wild: usize,
        parts: &[Part],
        need: usize,
    ) -> bool {
        let cards = naturals + wild;
        need <= cards && self.rec(counts, present, wild, cards, parts, None)
    }

    /// `present`: the ranks whose count is not 0. `last`: the choice made
    /// by the previous part when it equals this one (a rank or a window
    /// index), so that equal parts choose in order.
    fn rec(
        &self,
        counts: &mut [u8],
        present: u64,
        wild: usize,
        cards: usize,
        parts: &[Part],
        last: Option<usize>,
    ) -> bool {
        let Some((first, rest)) = parts.split_first() else { return true };
        let at = At { present, wild, cards, rest, last, same_next: rest.first() == Some(first) };
        match &first.shape {
            Shape::Wild(n) => wild >= *n && self.rec(counts, present, wild - n, cards - n, rest, None),
            // Only a count: every remaining part is a `Cards` too (they come
            // last), so the total decides.
            Shape::Cards(_) => cards >= parts.iter().map(Part::size).sum::<usize>(),
            Shape::Ranks(rs) => self.rec_ranks(counts, &at, rs, first.size()),
            Shape::Run(len) => self.rec_run(counts, &at, *len),
            Shape::Kind(n, allowed) => self.rec_kind(counts, &at, *n, *allowed),
        }
    }

    /// `ranks(...)` as the next part: the listed ranks present are taken,
    /// wild cards stand in for the rest.
    #[inline]
    fn rec_ranks(&self, counts: &mut [u8], at: &At, rs: &[(usize, usize)], n: usize) -> bool {
        let mut lack = 0;
        for &(r, m) in rs {
            lack += m.saturating_sub(counts[r] as usize);
        }
        if lack > at.wild {
            return false;
        }
        if at.rest.is_empty() {
            return true;
        }
        let mut taken = [0u8; 64];
        let mut left = at.present;
        for (i, &(r, m)) in rs.iter().enumerate() {
            let t = (counts[r] as usize).min(m) as u8;
            taken[i] = t;
            counts[r] -= t;
            if counts[r] == 0 {
                left &= !(1 << r);
            }
        }
        let ok = self.rec(counts, left, at.wild - lack, at.cards - n, at.rest, None);
        for (i, &(r, _)) in rs.iter().enumerate() {
            counts[r] += taken[i];
        }
        ok
    }

    /// `run(len)` as the next part: each window of consecutive ranks (from
    /// the previous equal part's window on), its missing ranks from wild
    /// cards.
    #[inline]
    fn rec_run(&self, counts: &mut [u8], at: &At, len: usize) -> bool {
        let (present, wild, rest) = (at.present, at.wild, at.rest);
        let start = at.last.unwrap_or(0);
        let windows = self.runs.of(len).get(start..).unwrap_or(&[]);
        if rest.is_empty() && wild == 0 {
            // The last part, without wild cards: some run whose ranks are
            // all present (the table builders' case).
            return windows.iter().any(|&m| m & !present == 0);
        }
        for (wi, &m) in windows.iter().enumerate().map(|(i, m)| (i + start, m)) {
            let missing = m & !present;
            // Without wild cards, every rank of the run is needed (no count
            // of bits: this is the table builders' loop).
            if missing != 0 && (wild == 0 || missing.count_ones() as usize > wild) {
                continue;
            }
            let lack = missing.count_ones() as usize;
            if rest.is_empty() {
                return true;
            }
            let took = m & present;
            let mut left = present;
            let mut bits = took;
            while bits != 0 {
                let r = bits.trailing_zeros() as usize;
                counts[r] -= 1;
                if counts[r] == 0 {
                    left &= !(1 << r);
                }
                bits &= bits - 1;
            }
            let ok = self.rec(counts, left, wild - lack, at.cards - len, rest, at.same_next.then_some(wi));
            let mut bits = took;
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

    /// `kind(n)` as the next part: each allowed rank present (from the
    /// previous equal part's rank on), wild cards making up the count; or
    /// wild cards alone for an absent rank.
    #[inline]
    fn rec_kind(&self, counts: &mut [u8], at: &At, n: usize, allowed: u64) -> bool {
        let (present, wild, rest) = (at.present, at.wild, at.rest);
        let from = match at.last {
            Some(r) if r < 64 => !0u64 << r,
            Some(_) => 0,
            None => !0u64,
        };
        let mut bits = present & allowed & from;
        while bits != 0 {
            let r = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let c = counts[r] as usize;
            let t = c.min(n);
            if n - t > wild {
                continue;
            }
            if rest.is_empty() {
                return true;
            }
            counts[r] -= t as u8;
            let left = if counts[r] == 0 { present & !(1 << r) } else { present };
            let ok = self.rec(counts, left, wild - (n - t), at.cards - n, rest, at.same_next.then_some(r));
            counts[r] += t as u8;
            if ok {
                return true;
            }
        }
        // Only wild cards: the same for every absent rank.
        let absent = allowed & from & !present & (u64::MAX >> (64 - counts.len().clamp(1, 64)));
        if wild >= n && absent != 0 {
            let r = absent.trailing_zeros() as usize;
            return rest.is_empty()
                || self.rec(counts, present, wild - n, at.cards - n, rest, at.same_next.then_some(r));
        }
        false
    }
}

/// Where [`RankMatcher::rec`] stands when it tries the next part: the
/// ranks present, the wild cards and cards left, the parts after this one,
/// the previous equal part's choice, and whether the next part equals this.
struct At<'p> {
    present: u64,
    wild: usize,
    cards: usize,
    rest: &'p [Part],
    last: Option<usize>,
    same_next: bool,
}

/// Matching over the cards of a hand by suit: `masks[s]` holds the ranks
/// of suit s, `wild` counts the wild cards.
pub(crate) struct CardMatcher<'a> {
    pub ranks: &'a RankMatcher<'a>,
    pub n_ranks: usize,
}

impl CardMatcher<'_> {
    /// Does the hand form `parts` (in [`normalize`]d order)? `masks` is
    /// borrowed and restored.
    pub(crate) fn matches(&self, masks: &mut [u64], wild: usize, parts: &[Part]) -> bool {
        let cards: usize = masks.iter().map(|m| m.count_ones() as usize).sum::<usize>() + wild;
        let need: usize = parts.iter().map(Part::size).sum();
        if need > cards {
            return false;
        }
        self.rec(masks, wild, parts)
    }

    /// The parts left ignore suits: count ranks and let the rank matcher
    /// finish.
    fn by_rank(&self, masks: &[u64], wild: usize, parts: &[Part]) -> bool {
        let mut counts = [0u8; 64];
        for m in masks.iter() {
            let mut bits = *m;
            while bits != 0 {
                counts[bits.trailing_zeros() as usize] += 1;
                bits &= bits - 1;
            }
        }
        self.ranks.matches(&mut counts[..self.n_ranks], wild, parts)
    }

    fn rec(&self, masks: &mut [u64], wild: usize, parts: &[Part]) -> bool {
        let Some((first, rest)) = parts.split_first() else { return true };
        if let Shape::Wild(n) = first.shape {
            return wild >= n && self.rec(masks, wild - n, rest);
        }
        if !first.suited {
            return self.by_rank(masks, wild, parts);
        }
        for s in 0..masks.len() {
            // Suits holding the same ranks are interchangeable.
            if masks[..s].contains(&masks[s]) {
                continue;
            }
            let have = masks[s];
            let with = |masks: &mut [u64], taken: u64, lack: usize| -> bool {
                if lack > wild {
                    return false;
                }
                masks[s] = have & !taken;
                let ok = self.rec(masks, wild - lack, rest);
                masks[s] = have;
                ok
            };
            let ok = match &first.shape {
                Shape::Wild(_) => false,
                Shape::Cards(n) => {
                    let pop = have.count_ones() as usize;
                    if pop <= *n {
                        with(masks, have, n - pop)
                    } else if rest.is_empty() {
                        true
                    } else {
                        // Which n of the suit's cards: every choice.
                        let mut found = false;
                        for_each_subset(have, *n, &mut |take| found = found || with(masks, take, 0));
                        found
                    }
                }
                Shape::Run(len) => {
                    self.ranks.runs.of(*len).iter().any(|&m| with(masks, m & have, (m & !have).count_ones() as usize))
                }
                Shape::Ranks(rs) => {
                    let (mut lack, mut take) = (0, 0u64);
                    for &(r, m) in rs {
                        if have >> r & 1 == 1 {
                            take |= 1 << r;
                            lack += m - 1;
                        } else {
                            lack += m;
                        }
                    }
                    with(masks, take, lack)
                }
                Shape::Kind(n, allowed) => {
                    // One natural card at most (a suit holds a rank once),
                    // or wild cards only.
                    let mut bits = have & allowed;
                    let mut found = false;
                    while bits != 0 && !found {
                        found = with(masks, bits & bits.wrapping_neg(), n - 1);
                        bits &= bits - 1;
                    }
                    found || (*allowed != 0 && with(masks, 0, *n))
                }
            };
            if ok {
                return true;
            }
        }
        false
    }
}

/// Calls `f` with every subset of `k` bits of `mask`.
fn for_each_subset(mask: u64, k: usize, f: &mut dyn FnMut(u64)) {
    fn rec(bits: u64, k: usize, acc: u64, f: &mut dyn FnMut(u64)) {
        if k == 0 {
            f(acc);
            return;
        }
        if (bits.count_ones() as usize) < k {
            return;
        }
        let low = bits & bits.wrapping_neg();
        rec(bits & !low, k - 1, acc | low, f);
        rec(bits & !low, k, acc, f);
    }
    rec(mask, k, 0, f);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deck(wrap: bool, high: bool) -> Deck {
        let names = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        let d = Deck::new(names("A 2 3 4 5 6 7 8 9 T J Q K"), names("S H D C"), (1..=13).collect(), wrap);
        if high {
            d.with_high()
        } else {
            d
        }
    }

    fn counts(ranks: &[usize]) -> Vec<u8> {
        let mut c = vec![0u8; 13];
        for &r in ranks {
            c[r] += 1;
        }
        c
    }

    #[test]
    fn high_ace_runs_do_not_wrap() {
        let runs = Runs::new(&deck(false, true), 5);
        let m = RankMatcher { runs: &runs };
        let run5 = [Part::new(Shape::Run(5), false)];
        assert!(m.matches(&mut counts(&[9, 10, 11, 12, 0]), 0, &run5), "T J Q K A");
        assert!(m.matches(&mut counts(&[0, 1, 2, 3, 4]), 0, &run5), "A 2 3 4 5");
        assert!(!m.matches(&mut counts(&[11, 12, 0, 1, 2]), 0, &run5), "Q K A 2 3");
        assert!(m.matches(&mut counts(&[10, 11, 12, 0]), 1, &run5), "J Q K A and a wild Ten");
        assert!(!m.matches(&mut counts(&[11, 12, 0, 1]), 1, &run5), "Q K A 2 and a wild card");
    }

    #[test]
    fn ranks_is_a_multiset_and_wild_cards_fill_gaps() {
        let runs = Runs::new(&deck(true, false), 5);
        let m = RankMatcher { runs: &runs };
        let two_aces = [Part::new(Shape::Ranks(vec![(0, 2)]), false)];
        assert!(!m.matches(&mut counts(&[0, 3, 5, 8, 10]), 0, &two_aces));
        assert!(m.matches(&mut counts(&[0, 0, 5, 8, 10]), 0, &two_aces));
        assert!(m.matches(&mut counts(&[0, 3, 5, 8]), 1, &two_aces));
        let five = [Part::new(Shape::Kind(5, u64::MAX), false)];
        assert!(m.matches(&mut counts(&[6, 6, 6]), 2, &five));
        assert!(!m.matches(&mut counts(&[6, 6, 7]), 2, &five));
    }

    #[test]
    fn suited_parts_see_suits() {
        let runs = Runs::new(&deck(false, true), 5);
        let rm = RankMatcher { runs: &runs };
        let cm = CardMatcher { ranks: &rm, n_ranks: 13 };
        let royal = [Part::new(Shape::Ranks(vec![(0, 1), (9, 1), (10, 1), (11, 1), (12, 1)]), true)];
        let spades = 1 | 1 << 9 | 1 << 10 | 1 << 11 | 1 << 12;
        assert!(cm.matches(&mut [spades, 0, 0, 0], 0, &royal));
        assert!(!cm.matches(&mut [spades & !1, 1, 0, 0], 0, &royal));
        assert!(cm.matches(&mut [spades & !1, 0, 0, 0], 1, &royal));
        let flush = [Part::new(Shape::Cards(5), true)];
        assert!(cm.matches(&mut [0b1011_0000_0011, 0, 0, 0], 0, &flush));
        assert!(!cm.matches(&mut [0b1011_0000_0001, 1 << 12, 0, 0], 0, &flush));
        // A flush of three and a pair beside it.
        let mut parts = vec![Part::new(Shape::Cards(3), true), Part::new(Shape::Kind(2, u64::MAX), false)];
        normalize(&mut parts);
        assert!(cm.matches(&mut [0b111 | 1 << 8, 1 << 8, 0, 0], 0, &parts));
        assert!(!cm.matches(&mut [0b111, 1 << 8, 0, 1 << 9], 0, &parts));
    }
}
