//! Lowering the covering engine's expressions: `layout { scan }` (an order
//! of the piles), `group { each }` (a condition on each card of a group and
//! its pile) and `group { between }` (a condition on every two cards of a
//! group, `a` and `b`). Each is compiled once against the engine's state
//! (`super::super::schema::STATE`) and turned into tables here; only a
//! part of `between` that reads both cards and piles on a large layout
//! stays a closure.

use std::sync::Arc;

use crate::check::Cx;
use crate::engines::cards::{Card, Deck};
use crate::engines::covering::schema::STATE;
use crate::engines::covering::{Attr, Attrs, Bits, CardTest, Layout, Mixed, PairTest, Slots};
use crate::expr::{compile_bool, compile_int, BoolExpr, Env, Scope, Ty};
use crate::syntax::{BinOp, Expr, ExprKind, Property};

/// Largest table over pairs of (card, pile) that `between` is turned into
/// (in bits); beyond it, the part of the condition that reads both cards
/// and piles is evaluated as a closure.
const MAX_MIXED_BITS: usize = 1 << 22;

/// Largest table over pairs of cards (in bits).
const MAX_CARD_PAIR_BITS: usize = 1 << 22;

/// Which expression is compiled: what it may read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    /// `layout { scan }`: the pile only.
    Scan,
    /// `group { each }`: one card and its pile.
    Each,
    /// `group { between }`: two cards, `a.` and `b.`.
    Between,
}

/// The attribute a state name reads, and of which card (0: the card of
/// `each`, or `a`; 1: `b`).
fn attr_of(name: &str) -> (usize, Attr) {
    let (who, base) = match name.split_once('.') {
        Some(("b", base)) => (1, base),
        Some((_, base)) => (0, base),
        None => (0, name),
    };
    let attr = match base {
        "rank" => Attr::Rank,
        "suit" => Attr::Suit,
        "colour" => Attr::Colour,
        "value" => Attr::Value,
        "pile" => Attr::Pile,
        "row" => Attr::Row,
        _ => Attr::Column,
    };
    (who, attr)
}

/// Whether state name `name` belongs to expressions of `place`.
fn belongs(place: Place, name: &str) -> bool {
    let dotted = name.contains('.');
    match place {
        Place::Scan => !dotted && attr_of(name).1.of_pile(),
        Place::Each => !dotted,
        Place::Between => dotted,
    }
}

/// The names and attributes the covering engine's expressions are
/// compiled against, for one deck and layout.
pub(super) struct Vocab {
    /// Ranks, suits and colours, each a bit of a set (a name given to two
    /// of them is left out: it could mean either).
    elements: Vec<String>,
    weights: Vec<i64>,
    /// Names that cannot be used, with the reason (per place).
    clashes: Vec<(String, String)>,
    /// The deck has colours, and its suits and colours fit in 64 bits.
    colours: bool,
    suits: bool,
    pub attrs: Arc<Attrs>,
    pub ncards: usize,
    pub npos: usize,
}

impl Vocab {
    pub(super) fn new(deck: &Deck, layout: &Layout) -> Vocab {
        let (nr, ns, nc) = (deck.ranks.len(), deck.suits.len(), deck.colours.len());
        let mut elements: Vec<String> = Vec::new();
        let mut clashes = Vec::new();
        let kinds = [("rank", &deck.ranks), ("suit", &deck.suits), ("colour", &deck.colours)];
        for (i, (kind, names)) in kinds.iter().enumerate() {
            for name in names.iter() {
                let earlier = kinds[..i].iter().find(|(_, ns)| ns.contains(name));
                match earlier {
                    Some((first, _)) => {
                        clashes.push((name.clone(), format!("`{name}` names both a {first} and a {kind}")));
                        elements.push(String::new());
                    }
                    None => elements.push(name.clone()),
                }
            }
        }
        for (name, _) in &clashes {
            elements.iter_mut().filter(|e| *e == name).for_each(|e| e.clear());
        }
        let weights = (0..elements.len()).map(|i| if i < nr { deck.values[i] } else { 0 }).collect();
        let bit = |i: usize| 1u64.checked_shl(i as u32).unwrap_or(0);
        let ncards = deck.ranked_size();
        let cards = (0..ncards)
            .map(|c| {
                let (r, s) = (deck.rank(c as Card), deck.suit(c as Card));
                let colour = deck.colour(c as Card).map_or(0, |k| bit(nr + ns + k));
                ([bit(r), bit(nr + s), colour], deck.values[r])
            })
            .collect();
        let places = layout
            .order
            .iter()
            .map(|&k| {
                let (row, column) = layout.place(k);
                [k as i64 + 1, row as i64, column as i64]
            })
            .collect();
        Vocab {
            elements,
            weights,
            clashes,
            colours: nc > 0 && nr + ns + nc <= 64,
            suits: nr + ns <= 64,
            attrs: Arc::new(Attrs { cards, places }),
            ncards,
            npos: layout.order.len(),
        }
    }

    /// Whether state name `name` can be read with this deck.
    fn available(&self, name: &str) -> bool {
        match attr_of(name).1 {
            Attr::Colour => self.colours,
            Attr::Suit => self.suits,
            _ => true,
        }
    }

    /// The variables of `place` that also pass `keep` (in the order of the
    /// engine's state), and where `Env` finds them.
    fn vars(&self, place: Place, keep: impl Fn(Attr) -> bool) -> (Vec<(&'static str, Ty)>, Slots) {
        let vars: Vec<(&'static str, Ty)> = STATE
            .iter()
            .filter(|v| belongs(place, v.name) && self.available(v.name) && keep(attr_of(v.name).1))
            .map(|v| (v.name, v.ty))
            .collect();
        let mut slots = Slots::default();
        for &(name, ty) in &vars {
            match ty {
                Ty::Set => slots.sets.push(attr_of(name)),
                _ => slots.ints.push(attr_of(name)),
            }
        }
        (vars, slots)
    }

    /// Why each state name `place` cannot read cannot be read there.
    fn unavailable(&self, place: Place) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = self.clashes.clone();
        for v in STATE {
            let (_, attr) = attr_of(v.name);
            let why = if !self.available(v.name) {
                match attr {
                    Attr::Colour if self.suits => "the deck has no `colours`".to_string(),
                    _ => "the deck's ranks, suits and colours are more than 64 names".to_string(),
                }
            } else if belongs(place, v.name) {
                continue;
            } else {
                let base = v.name.rsplit('.').next().unwrap_or(v.name);
                match place {
                    Place::Scan => format!(
                        "`scan` orders the piles whatever lies on them: use `pile`, `row` or `column`, not `{}`",
                        v.name
                    ),
                    Place::Each => format!("`{}` is a card of `between`; in `each`, the card is `{base}`", v.name),
                    Place::Between => format!(
                        "`between` compares two cards: write `a.{base}` (the card examined first) or `b.{base}`"
                    ),
                }
            };
            out.push((v.name.to_string(), why));
        }
        out
    }

    /// Compiles `e` as a condition of `place`; only the names `keep` passes
    /// may be read. Errors go to `cx`.
    fn condition(&self, cx: &mut Cx, e: &Expr, place: Place, keep: impl Fn(Attr) -> bool) -> Option<(BoolExpr, Slots)> {
        let (vars, slots) = self.vars(place, keep);
        let why = self.unavailable(place);
        let unavailable: Vec<(&str, &str)> = why.iter().map(|(n, w)| (n.as_str(), w.as_str())).collect();
        let scope = self.scope(&vars, &unavailable);
        compile_bool(e, &scope, cx).map(|f| (f, slots))
    }

    fn scope<'s>(&'s self, vars: &'s [(&'s str, Ty)], unavailable: &'s [(&'s str, &'s str)]) -> Scope<'s> {
        let lo = self.weights.iter().copied().min().unwrap_or(0).min(1);
        let hi = self.weights.iter().copied().max().unwrap_or(0).max(crate::engines::covering::MAX_PILES as i64);
        Scope {
            vars,
            elements: &self.elements,
            weights: &self.weights,
            element: "a rank, suit or colour name",
            int_range: (lo, hi),
            unavailable,
            counts: &[],
        }
    }

    /// Whether `e` compiles reading only the names `keep` passes (tried
    /// quietly: the real compile reports the errors).
    fn reads_only(&self, e: &Expr, place: Place, keep: impl Fn(Attr) -> bool) -> bool {
        self.condition(&mut Cx::new(), e, place, keep).is_some()
    }
}

/// `layout { scan }`: a number over `pile`, `row`, `column`; the piles
/// (0-based, in the order started) in increasing order of it, a tie in the
/// order they were started. `vocab` is made with the piles in the order
/// started.
pub(super) fn scan(cx: &mut Cx, p: &Property, vocab: &Vocab) -> Option<Vec<usize>> {
    let (vars, slots) = vocab.vars(Place::Scan, |_| true);
    let why = vocab.unavailable(Place::Scan);
    let unavailable: Vec<(&str, &str)> = why.iter().map(|(n, w)| (n.as_str(), w.as_str())).collect();
    let scope = vocab.scope(&vars, &unavailable);
    let e = cx.one(p, "a number over `pile`, `row` and `column`, such as `column * 100 + row`")?;
    let (key, _) = compile_int(e, &scope, cx)?;
    let attrs = &vocab.attrs;
    let value = |k: usize| -> i64 {
        let ints: Vec<i64> = slots.ints.iter().map(|&(_, a)| attrs.int(a, 0, k)).collect();
        key.eval(&Env { sets: &[], ints: &ints })
    };
    let values: Vec<i64> = (0..vocab.npos).map(value).collect();
    let mut order: Vec<usize> = (0..vocab.npos).collect();
    order.sort_by_key(|&k| (values[k], k));
    Some(order)
}

/// What `each` becomes: a test of the rank alone (folded into the ranks
/// the group admits), or a table over cards, or over piles and cards.
pub(super) enum Each {
    Ranks(Vec<bool>),
    Test(CardTest),
}

/// `group { each }`.
pub(super) fn each(cx: &mut Cx, p: &Property, vocab: &Vocab, deck: &Deck) -> Option<Each> {
    let e = cx.one(p, "a condition on each card of the group")?;
    let (f, slots) = vocab.condition(cx, e, Place::Each, |_| true)?;
    let attrs = &vocab.attrs;
    let holds = |card: usize, pos: usize| slots.eval(&f, attrs, [(card, pos), (card, pos)]);
    let ns = deck.suits.len();
    if vocab.reads_only(e, Place::Each, |a| matches!(a, Attr::Rank | Attr::Value)) {
        return Some(Each::Ranks((0..deck.ranks.len()).map(|r| holds(r * ns, 0)).collect()));
    }
    let nc = vocab.ncards;
    let per_pile = !vocab.reads_only(e, Place::Each, |a| !a.of_pile());
    let bits = if per_pile {
        Bits::from_fn(nc * vocab.npos, |i| holds(i % nc, i / nc))
    } else {
        Bits::from_fn(nc, |c| holds(c, 0))
    };
    Some(Each::Test(CardTest { bits, per_pile, ncards: nc }))
}

/// The conditions joined by `and` at the top of `e`, in order (walked
/// without recursion: a long chain costs no stack).
fn conjuncts(e: &Expr) -> Vec<&Expr> {
    let mut out = Vec::new();
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        match &x.kind {
            ExprKind::Binary(BinOp::And, l, r) => {
                stack.push(r);
                stack.push(l);
            }
            _ => out.push(x),
        }
    }
    out
}

/// All of `fs` (one closure).
fn all(fs: Vec<BoolExpr>) -> BoolExpr {
    BoolExpr::Fn(Box::new(move |env| fs.iter().all(|f| f.eval(env))))
}

/// `group { between }`: its parts that read only the piles become a mask
/// of positions per position, those that read only the cards a table over
/// pairs of cards, the rest a table over pairs of (card, pile) or, when
/// that would be too large, a closure.
pub(super) fn between(cx: &mut Cx, p: &Property, vocab: &Vocab) -> Option<PairTest> {
    let e = cx.one(p, "a condition on every two cards of the group, `a` and `b`")?;
    let (mut piles, mut cards, mut mixed) = (Vec::new(), Vec::new(), Vec::new());
    let mut ok = true;
    for part in conjuncts(e) {
        let Some((f, _)) = vocab.condition(cx, part, Place::Between, |_| true) else {
            ok = false;
            continue;
        };
        if vocab.reads_only(part, Place::Between, Attr::of_pile) {
            piles.push(f);
        } else if vocab.reads_only(part, Place::Between, |a| !a.of_pile()) {
            cards.push(f);
        } else {
            mixed.push(f);
        }
    }
    if !ok {
        return None;
    }
    let (_, slots) = vocab.vars(Place::Between, |_| true);
    let attrs = &vocab.attrs;
    let (nc, np) = (vocab.ncards, vocab.npos);
    let piles = (!piles.is_empty()).then(|| {
        let f = all(piles);
        (0..np)
            .map(|pa| (0..np).filter(|&pb| slots.eval(&f, attrs, [(0, pa), (0, pb)])).fold(0u64, |m, pb| m | 1 << pb))
            .collect()
    });
    let cards = (!cards.is_empty()).then(|| {
        let f = all(cards);
        if nc * nc <= MAX_CARD_PAIR_BITS {
            Ok(Bits::from_fn(nc * nc, |i| slots.eval(&f, attrs, [(i / nc, 0), (i % nc, 0)])))
        } else {
            Err(f)
        }
    });
    // Card pairs too many for a table join the closure.
    let (cards, big) = match cards {
        Some(Ok(bits)) => (Some(bits), None),
        Some(Err(f)) => (None, Some(f)),
        None => (None, None),
    };
    mixed.extend(big);
    let mixed = (!mixed.is_empty()).then(|| {
        let f = all(mixed);
        let n = nc * np;
        if n.checked_mul(n).is_some_and(|b| b <= MAX_MIXED_BITS) {
            Mixed::Table(Bits::from_fn(n * n, |i| {
                let (x, y) = (i / n, i % n);
                slots.eval(&f, attrs, [(x / np, x % np), (y / np, y % np)])
            }))
        } else {
            Mixed::Closure(f, slots.clone(), Arc::clone(attrs))
        }
    });
    Some(PairTest { piles, cards, mixed, ncards: nc, npos: np })
}
