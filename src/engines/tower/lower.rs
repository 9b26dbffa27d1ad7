//! Lowering for the `tower` engine: `player`, `tower`, `scoring`, `input`
//! and `output` sections. See docs/engines/tower.md.

use crate::check::{Block, Cx};
use crate::diag::codes;
use crate::diag::Diag;
use crate::engines::cards::Deck;
use crate::engines::tower::search::{house_cards, house_floors, PointTable, MAX_SCORE};
use crate::engines::tower::{TieFields, Tower, TowerRules, TowerSpans, VerdictFields, MAX_PEAKS};
use crate::engines::Engine;
use crate::expr::{Env, Scope};
use crate::game::Game;
use crate::source::Span;
use crate::syntax::{BinOp, Expr, ExprKind, Label, Property, Section, UnOp};
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
    let tower_rules = tower.and_then(|s| lower_tower(cx, s, &players));
    let scoring_rules = scoring.and_then(|s| lower_scoring(cx, s, &colours, &players));
    let deals = input.and_then(|s| lower_input(cx, s, &deck));
    let lines = output.and_then(|s| lower_output(cx, s));
    let ((peaks, first), deals) = (tower_rules?, deals?);
    check_deck_fits(cx, &peaks, &deals, deck.suits.len());
    let player_colour = players.colours.iter().copied().collect::<Option<Vec<_>>>()?;
    let player_colour = [player_colour[0], player_colour[1]];
    let (lines, scoring_rules) = (lines?, scoring_rules?);
    if cx.has_errors() {
        return None;
    }
    // Tables over the card numbers a case can deal (ranks below M's largest).
    let n = deals.m_hi * deck.suits.len();
    let cards = Cards {
        colour: (0..n).map(|c| colours.of_card(&deck, c)).collect(),
        value: (0..n).map(|c| deck.values[deck.rank(c as u16)]).collect(),
    };
    let table = triangle_table(cx, &cards, colours.names.len(), &scoring_rules)?;
    check_score_reach(top, cx, &cards, &table, &scoring_rules, peaks.n)?;
    let rules = rules(&cards, table.triangle, &scoring_rules, player_colour, first, peaks.n);
    let (tower, scoring, output) = (tower?, scoring?, output?);
    let spans = TowerSpans {
        players: players.heads,
        peaks: tower.span_of("peaks"),
        first: tower.span_of("first"),
        owner: table.owner_span,
        owner_of: table.owner_of,
        points: table.points_span,
        colours: colours.names.len(),
        colour: cards.colour,
        player_colour,
        held_own: scoring.span_of("held-own"),
        held_other: scoring.span_of("held-other"),
        wins: output.span_of("wins"),
        loses: output.span_of("loses"),
        tie: output.span_of("tie"),
    };
    let players = [players.names[0].value.clone(), players.names[1].value.clone()];
    let Lines { wins, loses, tie } = lines;
    let m_range = (deals.m_lo, deals.m_hi);
    Some(Tower { rules, deck, players, m_range, terminator: deals.terminator, wins, loses, tie, spans })
}

/// The colours a triangle's owner and points are read by: the deck's
/// colours if it names them, else its suits.
struct Colours {
    names: Vec<String>,
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
    fn lookup(&self, cx: &mut Cx, e: &Expr) -> Option<usize> {
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
struct Cards {
    colour: Vec<usize>,
    value: Vec<i64>,
}

/// The two `player` sections.
struct Players<'a> {
    names: Vec<&'a Label>,
    /// Each player's colour (`None` after a diagnostic).
    colours: Vec<Option<usize>>,
    heads: [Span; 2],
}

impl Players<'_> {
    fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n.value == name)
    }

    fn names(&self) -> impl Iterator<Item = &str> + Clone {
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

/// The `tower` section: the number of peaks, and who moves first (a
/// player, or `None` for the player of the first card's colour).
fn lower_tower<'a>(cx: &mut Cx, s: &'a Section, players: &Players) -> Option<(Peaks<'a>, Option<u8>)> {
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
    const BY_COLOUR: &str = "colour-of-first-card";
    let first = b.prop(cx, "first").map_or(Some(None), |p| {
        let e = cx.one(p, "who moves first")?;
        let w = cx.name(e, "who moves first")?;
        if w == BY_COLOUR {
            return Some(None);
        }
        let found = players.index(&w).map(|i| Some(i as u8));
        if found.is_some() {
            crate::check::resolved(Some("player"), e.span);
        } else {
            let choices: Vec<&str> = std::iter::once(BY_COLOUR).chain(players.names()).collect();
            cx.unknown(e.span, "`colour-of-first-card` or a player", &w, choices);
        }
        found
    });
    b.finish(cx);
    Some((peaks?, first?))
}

/// The `scoring` section: who owns a triangle, its points, and what held
/// cards are worth at the end (multiplier, where written).
struct Scoring<'a> {
    owner: Vec<([usize; 3], usize, Span)>,
    points: Points<'a>,
    held_own: (i64, Option<Span>),
    held_other: (i64, Option<Span>),
}

fn lower_scoring<'a>(cx: &mut Cx, s: &'a Section, colours: &Colours, players: &Players) -> Option<Scoring<'a>> {
    let b = Block::of_section(s);
    let example = "[R R R] North [R R B] North [R B B] South [B B B] South";
    let owner = b.require(cx, "owner", example).and_then(|p| owners(cx, p, &colours.names, players));
    let points = match b.prop(cx, "points") {
        None => Some(Points { entries: Vec::new(), default: None, span: s.head }),
        Some(p) => points(cx, p, &colours.names),
    };
    let mult = |cx: &mut Cx, key: &'static str, default: i64| {
        b.prop(cx, key).map_or(Some((default, None)), |p| {
            let e = cx.one(p, "a multiplier")?;
            cx.int(e, "a multiplier (a whole number)").map(|m| (m, Some(e.span)))
        })
    };
    let held_own = mult(cx, "held-own", 1);
    let held_other = mult(cx, "held-other", -1);
    b.finish(cx);
    Some(Scoring { owner: owner?, points: points?, held_own: held_own?, held_other: held_other? })
}

/// The `owner` table: pairs of a colour pattern `[R R B]` and a player,
/// covering every triple of colours once.
fn owners(
    cx: &mut Cx,
    p: &Property,
    colour_names: &[String],
    players: &Players,
) -> Option<Vec<([usize; 3], usize, Span)>> {
    let mut table: Vec<([usize; 3], usize, Span)> = Vec::new();
    let mut ok = true;
    let mut vals = p.values.iter();
    while let Some(v) = vals.next() {
        let ExprKind::List(_) = &v.kind else {
            cx.expected::<()>(v, "the colours of a triangle's three cards, as a list `[R R B]`");
            return None;
        };
        let key = colour_key(cx, v, colour_names);
        let Some(who) = vals.next() else {
            cx.push(
                Diag::error(codes::ARITY, v.span, "this triangle has no owner").label("a player's name should follow"),
            );
            return None;
        };
        let w = cx.name(who, "a player")?;
        let Some(pi) = players.index(&w) else {
            cx.unknown(who.span, "a player", &w, players.names());
            ok = false;
            continue;
        };
        crate::check::resolved(Some("player"), who.span);
        let Some(key) = key else {
            ok = false;
            continue;
        };
        if let Some((_, _, first)) = table.iter().find(|(k, _, _)| *k == key) {
            cx.push(
                Diag::error(codes::DUPLICATE, v.span, "these colours already have an owner")
                    .label("given again here")
                    .note(*first, "first given here"),
            );
            ok = false;
        }
        table.push((key, pi, v.span));
    }
    // Every combination of three colours needs an owner.
    if ok {
        if let Some(hole) = triples(colour_names.len()).find(|key| !table.iter().any(|(k, _, _)| k == key)) {
            let show = hole.iter().map(|&i| colour_names[i].as_str()).collect::<Vec<_>>().join(" ");
            cx.push(
                Diag::error(
                    codes::SCORING_HOLE,
                    p.values_span(),
                    format!("no owner for a triangle of colours [{show}]"),
                )
                .label("this table has a hole")
                .help(format!("add `[{show}] PLAYER`")),
            );
            ok = false;
        }
    }
    ok.then_some(table)
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
/// before a player can hold a card with the house full (no move would be
/// left): at most one card more than the house.
fn check_deck_fits(cx: &mut Cx, peaks: &Peaks, deals: &Deals, suits: usize) {
    let (peaks_span, peaks) = (peaks.prop.values_span(), peaks.n);
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
    let room = house_cards(peaks) + 1;
    if m_hi * suits <= room {
        return;
    }
    let max_m = room / suits;
    cx.push(
        Diag::error(
            codes::HOUSE_FULL,
            m_span,
            format!("a deck of M = {m_hi} has {} cards, more than {peaks} peaks can play", m_hi * suits),
        )
        .label(format!("M up to {m_hi}: {} cards", m_hi * suits))
        .note(peaks_span, format!("{peaks} peaks build a house of at most {} cards", house_cards(peaks)))
        .help(if max_m >= m_lo {
            format!(
                "with {peaks} peaks, M can be at most {max_m}: the row must run out before a player holding a card \
                 finds the house full"
            )
        } else {
            format!(
                "a house of {peaks} peaks takes at most {room} cards (one more than it holds): use more peaks or a \
                 smaller M"
            )
        }),
    );
}

/// The score of every triangle of cards, signed for the first player, with
/// the rules an explanation cites: per sorted colour triple, its owner and
/// where the owner and the points are written.
struct Table {
    triangle: Vec<i32>,
    largest: i64,
    owner_of: Vec<usize>,
    owner_span: Vec<Span>,
    points_span: Vec<Span>,
}

/// Compiles the `points` formulas (each bounded by the engine's limit) and
/// fills the triangle table from them.
fn triangle_table(cx: &mut Cx, cards: &Cards, k: usize, scoring: &Scoring) -> Option<Table> {
    let points = &scoring.points;
    let index = |key: [usize; 3]| (key[0] * k + key[1]) * k + key[2];
    let mut owner_of = vec![0usize; k * k * k];
    let mut owner_span = vec![Span::default(); k * k * k];
    for (key, p, span) in &scoring.owner {
        owner_of[index(*key)] = *p;
        owner_span[index(*key)] = *span;
    }
    let formulas = formulas(cx, cards, points)?;
    let mut formula_of = vec![points.entries.len(); k * k * k];
    let mut points_span = vec![points.default.as_ref().map_or(points.span, |d| d.2); k * k * k];
    for (i, (key, _, span)) in points.entries.iter().enumerate() {
        formula_of[index(*key)] = i;
        points_span[index(*key)] = *span;
    }
    // A triangle's points depend on its cards' colours and values only:
    // each triple of (colour, value) classes is evaluated once, then the
    // table over cards is filled from the classes.
    let mut classes: Vec<(usize, i64)> = Vec::new();
    let class_of: Vec<usize> = (0..cards.colour.len())
        .map(|c| {
            let key = (cards.colour[c], cards.value[c]);
            classes.iter().position(|&k| k == key).unwrap_or_else(|| {
                classes.push(key);
                classes.len() - 1
            })
        })
        .collect();
    let nc = classes.len();
    let mut by_class = vec![0i32; nc * nc * nc];
    let mut largest = 0i64;
    // In any order: the sorted triples of classes, each written to its
    // permutations.
    for (i, j, l) in (0..nc).flat_map(|i| (i..nc).flat_map(move |j| (j..nc).map(move |l| (i, j, l)))) {
        let ((ca, va), (cb, vb), (cc, vc)) = (classes[i], classes[j], classes[l]);
        let mut key = [ca, cb, cc];
        key.sort_unstable();
        let mut v = [va, vb, vc];
        v.sort_unstable();
        let pts = match formulas.get(formula_of[index(key)]) {
            Some(f) => f.eval(&Env { sets: &[], ints: &[v[0] + v[1] + v[2], v[0], v[1], v[2]] }),
            None => v[0] + v[1] + v[2],
        };
        largest = largest.max(pts.abs());
        let signed = if owner_of[index(key)] == 0 { pts } else { -pts } as i32;
        for (x, y, z) in [(i, j, l), (i, l, j), (j, i, l), (j, l, i), (l, i, j), (l, j, i)] {
            by_class[(x * nc + y) * nc + z] = signed;
        }
    }
    let mut triangle = Vec::with_capacity(class_of.len().pow(3));
    for &a in &class_of {
        for &b in &class_of {
            let row = &by_class[(a * nc + b) * nc..][..nc];
            triangle.extend(class_of.iter().map(|&c| row[c]));
        }
    }
    Some(Table { triangle, largest, owner_of, owner_span, points_span })
}

/// The `points` formulas compiled over `sum`, `low`, `mid` and `high`,
/// each checked to stay within the engine's score limit for the deck's
/// face values.
fn formulas(cx: &mut Cx, cards: &Cards, points: &Points) -> Option<Vec<crate::expr::IntExpr>> {
    let (lo, hi) = cards.value.iter().fold((i64::MAX, i64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    // Each name of the schema's state with its bounds (`sum` is three
    // values, the others one), in `Env` order.
    let vars: Vec<(&str, i128, i128)> =
        super::schema::STATE
            .iter()
            .map(|v| {
                if v.name == "sum" {
                    (v.name, 3 * lo as i128, 3 * hi as i128)
                } else {
                    (v.name, lo as i128, hi as i128)
                }
            })
            .collect();
    let scope_vars = super::schema::SCHEMA.vars();
    let scope = Scope {
        vars: &scope_vars,
        elements: &[],
        weights: &[],
        element: "a number",
        int_range: ((3 * lo).min(lo), (3 * hi).max(hi)),
        unavailable: &[],
    };
    let mut formulas = Vec::new();
    for (_, e, _) in points.entries.iter().chain(points.default.iter()) {
        let Some((f, _)) = crate::expr::compile_int(e, &scope, cx) else { continue };
        let reach = bound(e, &vars).map(|(a, b)| a.abs().max(b.abs()));
        if reach.is_none_or(|r| r > MAX_SCORE as i128) {
            let label = match reach {
                Some(r) => format!("can reach {r} points for face values {lo} to {hi}"),
                None => format!("can leave the range of 64-bit numbers for face values {lo} to {hi}"),
            };
            cx.push(
                Diag::error(
                    codes::TOO_LARGE,
                    e.span,
                    format!("this formula can give more points than the tower engine's limit of {MAX_SCORE}"),
                )
                .label(label)
                .help("use smaller factors"),
            );
        }
        formulas.push(f);
    }
    (!cx.has_errors()).then_some(formulas)
}

/// The largest score difference (every turn's triangle at its largest, and
/// both held cards) must stay within the engine's limit.
fn check_score_reach(
    top: &Block,
    cx: &mut Cx,
    cards: &Cards,
    table: &Table,
    scoring: &Scoring,
    peaks: usize,
) -> Option<()> {
    let (held_own, held_other) = (scoring.held_own, scoring.held_other);
    let held_at = |m: i64| cards.value.iter().map(|&v| (v as i128 * m as i128).abs()).max().unwrap_or(0);
    let triangles = (cards.value.len() - 2 * peaks).min(2 * house_floors(peaks)) as i128;
    let (held_most, tri_most) = (held_at(held_own.0).max(held_at(held_other.0)) * 2, triangles * table.largest as i128);
    if held_most + tri_most <= MAX_SCORE as i128 {
        return Some(());
    }
    let (span, what) = if held_most >= tri_most {
        let span = if held_at(held_own.0) >= held_at(held_other.0) { held_own.1 } else { held_other.1 };
        (span.unwrap_or(top.head), format!("held cards can be worth {} each", held_most / 2))
    } else {
        (scoring.points.span, format!("{triangles} triangles of up to {} points", table.largest))
    };
    cx.push(
        Diag::error(
            codes::TOO_LARGE,
            span,
            format!("scores could reach {}, beyond the tower engine's limit of {MAX_SCORE}", held_most + tri_most),
        )
        .label(what)
        .help("use smaller multipliers or face values"),
    );
    None
}

/// The search's rules: the triangle table, what each held card is worth to
/// each player, and who moves first after each first card.
fn rules(
    cards: &Cards,
    triangle: Vec<i32>,
    scoring: &Scoring,
    player_colour: [usize; 2],
    first: Option<u8>,
    peaks: usize,
) -> TowerRules {
    let n = cards.value.len();
    let held = player_colour.map(|own| {
        (0..n)
            .map(|c| {
                let m = if cards.colour[c] == own { scoring.held_own.0 } else { scoring.held_other.0 };
                (cards.value[c] * m) as i32
            })
            .collect()
    });
    let first_by_card = (0..n)
        .map(|c| match first {
            Some(p) => p,
            None => player_colour.iter().position(|&col| col == cards.colour[c]).map_or(0, |p| p as u8),
        })
        .collect();
    let window = triangle.iter().map(|v| v.saturating_abs()).max().unwrap_or(0);
    TowerRules { peaks, triangle: PointTable::new(triangle), held, first_by_card, cards: n, window }
}

/// Every sorted triple of `k` colours.
fn triples(k: usize) -> impl Iterator<Item = [usize; 3]> {
    (0..k).flat_map(move |a| (a..k).flat_map(move |b| (b..k).map(move |c| [a, b, c])))
}

/// The sorted colours of a pattern `[R R B]`, or `None` after a diagnostic.
fn colour_key(cx: &mut Cx, v: &Expr, colour_names: &[String]) -> Option<[usize; 3]> {
    let ExprKind::List(cs) = &v.kind else { return cx.expected(v, "a list of three colours `[R R B]`") };
    let mut key = Vec::new();
    let mut ok = true;
    for c in cs {
        let Some(name) = cx.name(c, "a colour") else {
            ok = false;
            continue;
        };
        match colour_names.iter().position(|n| *n == name) {
            Some(i) => {
                crate::check::resolved(None, c.span);
                key.push(i);
            }
            None => {
                cx.unknown(c.span, "a colour", &name, colour_names.iter().map(String::as_str));
                ok = false;
            }
        }
    }
    if cs.len() != 3 {
        cx.push(
            Diag::error(codes::ARITY, v.span, format!("a triangle has 3 cards, this lists {}", cs.len()))
                .label("expected three colours"),
        );
        return None;
    }
    key.sort_unstable();
    ok.then(|| [key[0], key[1], key[2]])
}

/// A `points` property: one formula for every triangle, or formulas by the
/// colours of the triangle's cards with an optional `else`.
struct Points<'a> {
    entries: Vec<([usize; 3], &'a Expr, Span)>,
    default: Option<([usize; 3], &'a Expr, Span)>,
    /// Where the formulas are written (the section when there is none).
    span: Span,
}

fn points<'a>(cx: &mut Cx, p: &'a Property, colour_names: &[String]) -> Option<Points<'a>> {
    let mut out = Points { entries: Vec::new(), default: None, span: p.span };
    if let [e] = p.values.as_slice() {
        out.default = Some(([0; 3], e, p.span));
        return Some(out);
    }
    let mut ok = true;
    let mut vals = p.values.iter().peekable();
    while let Some(v) = vals.next() {
        let is_else = matches!(&v.kind, ExprKind::Word(w) if w == "else");
        if !is_else && !matches!(v.kind, ExprKind::List(_)) {
            let joined = matches!(&v.kind, ExprKind::Binary(_, a, _) if matches!(a.kind, ExprKind::List(_)));
            cx.push(
                Diag::error(
                    codes::TYPE,
                    v.span,
                    format!("expected a pattern `[R R B]` or `else`, found {}", v.describe()),
                )
                .label("each formula follows the colours of the triangles it scores")
                .help(if joined {
                    "a formula that starts with an operator joins the pattern before it: write `(-high)` or \
                         `0 - high`"
                } else {
                    "write `points: [R R R] 2 * sum  else sum`, or one formula for every triangle"
                }),
            );
            return None;
        }
        let Some(f) = vals.next_if(|e| !matches!(e.kind, ExprKind::List(_))) else {
            cx.push(
                Diag::error(codes::ARITY, v.span, "these triangles have no formula")
                    .label("a formula such as `2 * sum` should follow"),
            );
            return None;
        };
        let span = v.span.to(f.span);
        if is_else {
            if let Some((_, _, first)) = out.default {
                cx.push(
                    Diag::error(codes::DUPLICATE, span, "`else` is given twice")
                        .label("given again here")
                        .note(first, "first given here"),
                );
                ok = false;
            }
            out.default = Some(([0; 3], f, span));
            continue;
        }
        let Some(key) = colour_key(cx, v, colour_names) else {
            ok = false;
            continue;
        };
        if let Some((_, _, first)) = out.entries.iter().find(|(k, _, _)| *k == key) {
            cx.push(
                Diag::error(codes::DUPLICATE, v.span, "these colours already have a formula")
                    .label("given again here")
                    .note(*first, "first given here"),
            );
            ok = false;
        }
        out.entries.push((key, f, span));
    }
    if ok && out.default.is_none() {
        if let Some(hole) = triples(colour_names.len()).find(|key| !out.entries.iter().any(|(k, _, _)| k == key)) {
            let show = hole.iter().map(|&i| colour_names[i].as_str()).collect::<Vec<_>>().join(" ");
            cx.push(
                Diag::error(
                    codes::SCORING_HOLE,
                    p.values_span(),
                    format!("no formula for a triangle of colours [{show}]"),
                )
                .label("this table has a hole")
                .help(format!("add `[{show}] sum`, or `else sum` for every other triangle")),
            );
            ok = false;
        }
    }
    ok.then_some(out)
}

/// Bounds on an integer formula's value when each variable lies in its
/// range; `None` when a step could leave ±2^62 (where the evaluation,
/// which wraps, could be wrong).
fn bound(e: &Expr, vars: &[(&str, i128, i128)]) -> Option<(i128, i128)> {
    const LIMIT: i128 = 1 << 62;
    let r = match &e.kind {
        ExprKind::Int(n) => (*n as i128, *n as i128),
        ExprKind::Word(w) => vars.iter().find(|v| v.0 == w).map(|v| (v.1, v.2))?,
        ExprKind::Unary(UnOp::Neg, a) => {
            let (a, b) = bound(a, vars)?;
            (-b, -a)
        }
        ExprKind::Binary(op, a, b) => {
            let (a0, a1) = bound(a, vars)?;
            let (b0, b1) = bound(b, vars)?;
            let most = |lo: i128, hi: i128| lo.abs().max(hi.abs());
            match op {
                BinOp::Add => (a0 + b0, a1 + b1),
                BinOp::Sub => (a0 - b1, a1 - b0),
                BinOp::Mul => {
                    let c = [a0 * b0, a0 * b1, a1 * b0, a1 * b1];
                    (c.into_iter().min()?, c.into_iter().max()?)
                }
                BinOp::Div => (-most(a0, a1), most(a0, a1)),
                BinOp::Rem => {
                    let m = most(a0, a1).min(most(b0, b1));
                    (-m, m)
                }
                _ => return None,
            }
        }
        ExprKind::Call(f, args) if f.name == "min" || f.name == "max" => {
            let bs = args.iter().map(|a| bound(a, vars)).collect::<Option<Vec<_>>>()?;
            let pick = |it: &mut dyn Iterator<Item = i128>| if f.name == "min" { it.min() } else { it.max() };
            (pick(&mut bs.iter().map(|b| b.0))?, pick(&mut bs.iter().map(|b| b.1))?)
        }
        _ => return None,
    };
    (r.0 >= -LIMIT && r.1 <= LIMIT).then_some(r)
}
