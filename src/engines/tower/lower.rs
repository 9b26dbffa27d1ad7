//! Lowering for the `tower` engine: `player`, `tower`, `input` and `output`
//! sections (the `scoring` section is in `scoring.rs`), the checks that the
//! house can play every deal, and the tables the search reads. See
//! docs/engines/tower.md.

use crate::check::{Block, Cx};
use crate::diag::codes;
use crate::diag::Diag;
use crate::engines::cards::Deck;
use crate::engines::tower::moves::{position_bytes, MAX_HOLD, POSITION_BYTES};
use crate::engines::tower::schema::{FIRST_CANNOT, FIRST_READ, STATE};
use crate::engines::tower::scoring::{check_score_reach, held_table, lower_scoring, triangle_table, Held};
use crate::engines::tower::search::house_cards;
use crate::engines::tower::{FirstRule, TieFields, Tower, TowerRules, TowerSpans, VerdictFields, MAX_PEAKS};
use crate::engines::Engine;
use crate::expr::{Env, Scope, Ty};
use crate::game::Game;
use crate::source::Span;
use crate::syntax::{Expr, ExprKind, Label, Property, Section};
use crate::template::OutputLine;

/// The tower engine in the registry.
pub const ENGINE: Engine = Engine {
    name: "tower",
    summary: "two players build a house of cards from a known row; perfect play by game-tree search",
    lower: |top, cx| lower(top, cx).map(|g| Box::new(g) as Box<dyn Game>),
    schema: &super::schema::SCHEMA,
};

pub fn lower(top: &Block, cx: &mut Cx) -> Option<Tower> {
    let deck = crate::engines::cards::lower::lower(top, cx);
    let players = top.sections("player");
    let tower = top.require_section(cx, "tower");
    let scoring = top.require_section(cx, "scoring");
    let input = top.require_section(cx, "input");
    let output = top.require_section(cx, "output");
    let deck = deck?;
    let colours = Colours::of(&deck);
    let players = lower_players(top, cx, &players, &colours)?;
    let tower_rules = tower.and_then(|s| lower_tower(cx, s));
    let scoring_rules = scoring.and_then(|s| lower_scoring(cx, s, &colours, &players));
    let deals = input.and_then(|s| lower_input(cx, s, &deck));
    let lines = output.and_then(|s| lower_output(cx, s));
    let (house, deals) = (tower_rules?, deals?);
    check_deck_fits(cx, &house, &deals, deck.suits.len());
    let player_colour = players.colours.iter().copied().collect::<Option<Vec<_>>>()?;
    let player_colour = [player_colour[0], player_colour[1]];
    // Tables over the card numbers a case can deal (ranks below M's largest).
    let n = deals.m_hi * deck.suits.len();
    let cards = Cards {
        colour: (0..n).map(|c| colours.of_card(&deck, c)).collect(),
        value: (0..n).map(|c| deck.values[deck.rank(c as u16)]).collect(),
    };
    let first = first_table(cx, &house.first, &players, player_colour, &colours, &deck, &cards);
    let (lines, scoring_rules, first) = (lines?, scoring_rules?, first?);
    if cx.has_errors() {
        return None;
    }
    let table = triangle_table(cx, &cards, colours.names.len(), &scoring_rules)?;
    let held = held_table(cx, &scoring_rules.held, &cards, &deck, player_colour)?;
    check_score_reach(top, cx, &cards, &table, &scoring_rules, &held, house.peaks.n, house.hold)?;
    let held = held.map(|h| h.into_iter().map(|v| v as i32).collect());
    let rules = TowerRules::new(house.peaks.n, house.hold, table.triangle, held, first, n);
    let (tower, scoring, output) = (tower?, scoring?, output?);
    let held_span = |key| match scoring_rules.held {
        Held::Formula(_) => scoring.span_of("held"),
        Held::Times { .. } => scoring.span_of(key),
    };
    let spans = TowerSpans {
        players: players.heads,
        peaks: tower.span_of("peaks"),
        first: tower.span_of("first"),
        first_rule: match house.first {
            First::ByColour => FirstRule::ByColour,
            First::Expr(_) => FirstRule::Expr,
        },
        owner: table.owner_span,
        owner_of: table.owner_of,
        points: table.points_span,
        colours: colours.names.len(),
        colour: cards.colour,
        player_colour,
        held_own: held_span("held-own"),
        held_other: held_span("held-other"),
        wins: output.span_of("wins"),
        loses: output.span_of("loses"),
        tie: output.span_of("tie"),
    };
    let players = [players.names[0].value.clone(), players.names[1].value.clone()];
    let Lines { wins, loses, tie } = lines;
    let m_range = (deals.m_lo, deals.m_hi);
    Some(Tower { rules, deck, players, m_range, terminator: deals.terminator, wins, loses, tie, spans })
}

/// The part of the tower's state (`schema::STATE`) one decision point
/// reads: its names, in `Env` order, and those it cannot read, with why.
pub(super) struct Reads {
    pub(super) vars: Vec<(&'static str, Ty)>,
    cannot: &'static [(&'static str, &'static str)],
}

impl Reads {
    pub(super) fn new(names: &[&str], cannot: &'static [(&'static str, &'static str)]) -> Reads {
        Reads { vars: STATE.iter().filter(|v| names.contains(&v.name)).map(|v| (v.name, v.ty)).collect(), cannot }
    }

    /// The scope of an expression of this decision point.
    pub(super) fn scope<'s>(
        &'s self,
        elements: &'s [String],
        weights: &'s [i64],
        element: &'s str,
        int_range: (i64, i64),
    ) -> Scope<'s> {
        Scope { vars: &self.vars, elements, weights, element, int_range, unavailable: self.cannot, counts: &[] }
    }

    /// The values of the names into `sets` and `ints`, in `Env` order
    /// (sets, then numbers and conditions): `value` gives each by name (a
    /// set as its bits). Only at load: the search reads the tables these
    /// fill.
    pub(super) fn fill(&self, sets: &mut Vec<u64>, ints: &mut Vec<i64>, value: impl Fn(&str) -> i64) {
        sets.clear();
        ints.clear();
        for &(name, ty) in &self.vars {
            match ty {
                Ty::Set => sets.push(value(name) as u64),
                Ty::Int | Ty::Bool => ints.push(value(name)),
            }
        }
    }

    /// The value of `f` for the names' values (see [`Reads::fill`]).
    pub(super) fn eval<T>(&self, f: impl Fn(&Env) -> T, value: impl Fn(&str) -> i64) -> T {
        let (mut sets, mut ints) = (Vec::new(), Vec::new());
        self.fill(&mut sets, &mut ints, value);
        f(&Env { sets: &sets, ints: &ints })
    }
}

/// The colours a triangle's owner and points are read by: the deck's
/// colours if it names them, else its suits.
pub(super) struct Colours {
    pub(super) names: Vec<String>,
    /// Each suit's colour, when the deck names colours.
    of_suit: Option<Vec<usize>>,
}

impl Colours {
    fn of(deck: &Deck) -> Self {
        if deck.colours.is_empty() {
            Colours { names: deck.suits.clone(), of_suit: None }
        } else {
            Colours { names: deck.colours.clone(), of_suit: Some(deck.suit_colour.clone()) }
        }
    }

    fn of_card(&self, deck: &Deck, c: usize) -> usize {
        let suit = c % deck.suits.len();
        self.of_suit.as_ref().map_or(suit, |s| s[suit])
    }

    /// The colour `e` names, or `None` after a diagnostic.
    pub(super) fn lookup(&self, cx: &mut Cx, e: &Expr) -> Option<usize> {
        let c = cx.name(e, "a colour")?;
        let found = self.names.iter().position(|n| *n == c);
        if found.is_some() {
            crate::check::resolved(None, e.span);
        } else {
            cx.unknown(e.span, "a colour", &c, self.names.iter().map(String::as_str));
        }
        found
    }
}

/// The colour and face value of every card a case can deal.
pub(super) struct Cards {
    pub(super) colour: Vec<usize>,
    pub(super) value: Vec<i64>,
}

/// The two `player` sections.
pub(super) struct Players<'a> {
    pub(super) names: Vec<&'a Label>,
    /// Each player's colour (`None` after a diagnostic).
    colours: Vec<Option<usize>>,
    heads: [Span; 2],
}

impl Players<'_> {
    pub(super) fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n.value == name)
    }

    pub(super) fn names(&self) -> impl Iterator<Item = &str> + Clone {
        self.names.iter().map(|n| n.value.as_str())
    }
}

/// The `player` sections: exactly two, each with a name and a colour.
fn lower_players<'a>(top: &Block<'a>, cx: &mut Cx, all: &[&'a Section], colours: &Colours) -> Option<Players<'a>> {
    if all.len() != 2 {
        let at = all.get(2).map_or(top.head, |p| p.head);
        cx.push(
            Diag::error(codes::ARITY, at, format!("the tower engine is for two players, found {}", all.len()))
                .label("expected exactly two `player` sections"),
        );
        return None;
    }
    let named = top.named_sections(cx, "player", "player");
    if named.len() != 2 {
        return None;
    }
    let mut players = Players { names: Vec::new(), colours: Vec::new(), heads: [all[0].head, all[1].head] };
    for (section, name) in named {
        let b = Block::of_section(section);
        let colour = b.require(cx, "colour", "R").and_then(|p| {
            let e = cx.one(p, "a colour")?;
            colours.lookup(cx, e)
        });
        b.finish(cx);
        players.names.push(name);
        players.colours.push(colour);
    }
    Some(players)
}

/// The `peaks` key and where it is written.
struct Peaks<'a> {
    n: usize,
    prop: &'a Property,
}

/// Who takes the first turn, as `tower { first: }` says.
enum First<'a> {
    /// `colour-of-first-card`: the player whose colour the first card has
    /// (the first player in the file when no player has it).
    ByColour,
    /// An expression over the deal that gives one player (a player's name
    /// is one).
    Expr(&'a Expr),
}

/// The `tower` section: the house, the hands, the first mover.
struct House<'a> {
    peaks: Peaks<'a>,
    hold: usize,
    /// Where `hold` is written.
    hold_span: Option<Span>,
    first: First<'a>,
}

/// The `tower` section: the number of peaks, how many cards a player may
/// hold, and who moves first.
fn lower_tower<'a>(cx: &mut Cx, s: &'a Section) -> Option<House<'a>> {
    let b = Block::of_section(s);
    let peaks = b.require(cx, "peaks", "4").and_then(|p| {
        let n = cx.prop_int(p, 2, "the number of base peaks (at least 2)")? as usize;
        if n > MAX_PEAKS {
            cx.push(
                Diag::error(codes::OUT_OF_RANGE, p.values_span(), format!("{n} peaks is too many"))
                    .label(format!("at most {MAX_PEAKS}")),
            );
            return None;
        }
        Some(Peaks { n, prop: p })
    });
    let hold = b.prop(cx, "hold").map_or(Some((1, None)), |p| {
        let n = cx.prop_int(p, 1, "the most cards a player may hold (at least 1)")? as usize;
        if n > MAX_HOLD {
            cx.push(
                Diag::error(codes::OUT_OF_RANGE, p.values_span(), format!("hands of {n} cards are too many"))
                    .label(format!("at most {MAX_HOLD}"))
                    .help("the search's moves and positions are sized for hands of at most 4 cards"),
            );
            return None;
        }
        Some((n, Some(p.values_span())))
    });
    const BY_COLOUR: &str = "colour-of-first-card";
    let first = b.prop(cx, "first").map_or(Some(First::ByColour), |p| {
        let e = cx.one(p, "who moves first")?;
        Some(match &e.kind {
            ExprKind::Word(w) if w == BY_COLOUR => First::ByColour,
            _ => First::Expr(e),
        })
    });
    b.finish(cx);
    let (peaks, (hold, hold_span), first) = (peaks?, hold?, first?);
    check_position_fits(cx, &peaks, hold, hold_span)?;
    Some(House { peaks, hold, hold_span, first })
}

/// A position of the search (two hands and the house's floor slots) must
/// fit in its 32 bytes.
fn check_position_fits(cx: &mut Cx, peaks: &Peaks, hold: usize, hold_span: Option<Span>) -> Option<()> {
    let bytes = position_bytes(peaks.n, hold);
    if bytes <= POSITION_BYTES {
        return Some(());
    }
    let n = peaks.n;
    let mut d = Diag::error(
        codes::TOO_LARGE,
        hold_span.unwrap_or(peaks.prop.values_span()),
        format!("{n} peaks with hands of {hold} cards are more than the tower engine's search can hold"),
    )
    .label(format!("a position takes two bytes per held card and per valley: {bytes}, more than {POSITION_BYTES}"));
    if hold_span.is_some() {
        d = d.note(peaks.prop.values_span(), format!("{n} peaks make {} valleys", (n * (n - 1)) / 2));
    }
    let fewer = (POSITION_BYTES - 2 * (n * (n - 1)) / 2) / 2;
    let cards = if fewer == 1 { "1 card".to_string() } else { format!("{fewer} cards") };
    cx.push(d.help(format!("with {n} peaks a player may hold at most {cards}; or use fewer peaks")));
    None
}
/// The `input` section: the range of M, and the line that ends the input.
struct Deals {
    m_lo: usize,
    m_hi: usize,
    m_span: Span,
    terminator: String,
}

fn lower_input(cx: &mut Cx, s: &Section, deck: &Deck) -> Option<Deals> {
    let b = Block::of_section(s);
    let what = "the range of M, such as `5..13`";
    let m = b.require(cx, "ranks", "5..13").and_then(|p| {
        let e = cx.one(p, what)?;
        let ExprKind::Range(a, z) = &e.kind else { return cx.expected(e, what) };
        let (a, z) = (
            cx.int_at_least(a, 1, "a number of ranks")? as usize,
            cx.int_at_least(z, 1, "a number of ranks")? as usize,
        );
        if z > deck.ranks.len() || a > z {
            cx.push(
                Diag::error(
                    codes::OUT_OF_RANGE,
                    e.span,
                    format!("M must lie within 1..{} and not be empty", deck.ranks.len()),
                )
                .label(format!("the deck has {} ranks", deck.ranks.len())),
            );
            return None;
        }
        Some((a, z, e.span))
    });
    let end = b.prop(cx, "end").map_or(Some("End".to_string()), |p| {
        let e = cx.one(p, "the line that ends the input")?;
        cx.string(e, "the line that ends the input (a string)").map(|s| s.value.clone())
    });
    b.finish(cx);
    let ((m_lo, m_hi, m_span), terminator) = (m?, end?);
    Some(Deals { m_lo, m_hi, m_span, terminator })
}

/// The `output` section's three lines.
struct Lines {
    wins: OutputLine<VerdictFields<'static>>,
    loses: OutputLine<VerdictFields<'static>>,
    tie: OutputLine<TieFields<'static>>,
}

fn lower_output(cx: &mut Cx, s: &Section) -> Option<Lines> {
    let b = Block::of_section(s);
    let wins = b.require(cx, "wins", "\"Case {case}: {player} wins {amount}\"").and_then(|p| cx.template(p));
    let loses = b.require(cx, "loses", "\"Case {case}: {player} loses {amount}\"").and_then(|p| cx.template(p));
    let tie = b.require(cx, "tie", "\"Case {case}: {first} and {second} tie\"").and_then(|p| cx.template(p));
    b.finish(cx);
    Some(Lines { wins: wins?, loses: loses?, tie: tie? })
}

/// The peaks must fit the smallest deck, and the largest deck must run out
/// before a player can draw a card with the house full and a full hand (no
/// move would be left): at most `hold` cards more than the house.
fn check_deck_fits(cx: &mut Cx, house: &House, deals: &Deals, suits: usize) {
    let (peaks_span, peaks, hold) = (house.peaks.prop.values_span(), house.peaks.n, house.hold);
    let (m_lo, m_hi, m_span) = (deals.m_lo, deals.m_hi, deals.m_span);
    if 2 * peaks > m_lo * suits {
        cx.push(
            Diag::error(
                codes::PEAKS_UNFILLABLE,
                peaks_span,
                format!("{peaks} peaks need {} cards, but a deck of M = {m_lo} has {}", 2 * peaks, m_lo * suits),
            )
            .label("more peaks than the smallest deck can fill")
            .note(m_span, "the smallest M allowed")
            .help(format!("use at most {} peaks, or raise the smallest M", m_lo * suits / 2)),
        );
    }
    let room = house_cards(peaks) + hold;
    if m_hi * suits <= room {
        return;
    }
    let max_m = room / suits;
    let (with, more) = match hold {
        1 => (String::new(), "one more".to_string()),
        _ => (format!(" and hands of {hold} cards"), format!("{hold} more")),
    };
    let mut d = Diag::error(
        codes::HOUSE_FULL,
        m_span,
        format!("a deck of M = {m_hi} has {} cards, more than {peaks} peaks{with} can play", m_hi * suits),
    )
    .label(format!("M up to {m_hi}: {} cards", m_hi * suits))
    .note(peaks_span, format!("{peaks} peaks build a house of at most {} cards", house_cards(peaks)));
    if let Some(span) = house.hold_span {
        d = d.note(span, format!("a player may hold {hold} cards"));
    }
    cx.push(d.help(if max_m >= m_lo {
        format!(
            "with {peaks} peaks{with}, M can be at most {max_m} (the row must run out before a player with a full \
             hand finds the house full): write `input {{ ranks: {m_lo}..{max_m} }}`"
        )
    } else {
        format!("a house of {peaks} peaks{with} takes at most {room} cards ({more} than it holds): use more peaks or a smaller M")
    }));
}

/// The first mover of every deal, `2 * card + named` for the deal's first
/// card and the player the case names: the player of the card's colour, or
/// what the `first` expression gives, which must be one player for every
/// first card and named player (it is worked out for each at load).
#[allow(clippy::too_many_arguments)]
fn first_table(
    cx: &mut Cx,
    first: &First,
    players: &Players,
    player_colour: [usize; 2],
    colours: &Colours,
    deck: &Deck,
    cards: &Cards,
) -> Option<Vec<u8>> {
    let n = cards.colour.len();
    let of_colour = |c: usize| player_colour.iter().position(|&p| p == cards.colour[c]);
    let e = match first {
        First::ByColour => return Some((0..2 * n).map(|i| of_colour(i / 2).unwrap_or(0) as u8).collect()),
        First::Expr(e) => *e,
    };
    // The sets' elements: the two players, then the colours.
    let mut elements: Vec<String> = players.names().map(str::to_string).collect();
    if let Some(c) = colours.names.iter().find(|c| players.index(c).is_some()) {
        cx.push(
            Diag::error(codes::CONFLICT, e.span, format!("`{c}` names both a player and a colour"))
                .label("an expression here cannot tell them apart")
                .help("give the player or the colour another name"),
        );
        return None;
    }
    elements.extend(colours.names.iter().cloned());
    let reads = Reads::new(FIRST_READ, FIRST_CANNOT);
    if let ExprKind::Word(w) = &e.kind {
        let known = |n: &str| reads.vars.iter().any(|v| v.0 == n) || elements.iter().any(|x| x == n);
        if !known(w) && !reads.cannot.iter().any(|v| v.0 == w) {
            let what = "`colour-of-first-card`, a player or an expression over the deal";
            let names = ["colour-of-first-card"].into_iter().chain(players.names()).chain(FIRST_READ.iter().copied());
            cx.unknown(e.span, what, w, names);
            return None;
        }
    }
    let weights = vec![0; elements.len()];
    let (lo, hi) = cards.value.iter().fold((1, deck.ranks.len() as i64), |(a, b), &v| (a.min(v), b.max(v)));
    let scope = reads.scope(&elements, &weights, "a player, a colour", (lo, hi));
    let f = crate::expr::compile_set(e, &scope, cx)?;
    let mut table = Vec::with_capacity(2 * n);
    for c in 0..n {
        for named in 0..2 {
            let got = reads.eval(
                |env| f.eval(env),
                |name| match name {
                    "named" => 1 << named,
                    "first-player" => (0..2).filter(|&p| player_colour[p] == cards.colour[c]).map(|p| 1 << p).sum(),
                    "first-colour" => 1 << (2 + cards.colour[c]),
                    "first-value" => cards.value[c],
                    _ => deck.rank(c as u16) as i64 + 1,
                },
            );
            if got != 1 && got != 2 {
                let names: Vec<&str> =
                    (0..elements.len().min(64)).filter(|&i| got >> i & 1 == 1).map(|i| elements[i].as_str()).collect();
                let card = deck.card_name(c as u16);
                let gives = if names.is_empty() { "no player".to_string() } else { format!("[{}]", names.join(" ")) };
                cx.push(
                    Diag::error(
                        codes::FIRST_MOVER,
                        e.span,
                        format!("who moves first must be one player, this gives {gives}"),
                    )
                    .label(format!(
                        "{gives} when the first card is {card} and the case names {}",
                        players.names[named].value
                    ))
                    .help("give one player for every deal, such as `if(first-value > 6, first-player, named)`"),
                );
                return None;
            }
            table.push((got >> 1) as u8);
        }
    }
    Some(table)
}
