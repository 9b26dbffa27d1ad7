//! Lowering for the `exchange` engine (hands, exchanges, a combination
//! table): the `deck`, `play`, `combination`, `input` and `output`
//! sections. See docs/engines/exchange.md.

use crate::check::{Block, Cx};
use crate::diag::codes;
use crate::diag::Diag;
use crate::engines::cards::lower::Extras;
use crate::engines::cards::Deck;
use crate::engines::exchange::eval::MAX_SUITED_ROWS;
use crate::engines::exchange::pattern::{ANY, PATTERN_WORDS};
use crate::engines::exchange::{Exchange, ExchangeSpans, ExchangeSpec, Lines, Part, Prefer, Row, RowStats, Shape};
use crate::engines::Engine;
use crate::game::Game;
use crate::source::Span;
use crate::syntax::{BinOp, Expr, ExprKind, Property, Section};

use crate::engines::exchange::{MAX_HAND, MAX_PAYOUT, MAX_RANKS};

const PREFER: [&str; 6] = ["fewer-cards", "more-cards", "leftmost", "rightmost", "lower-variance", "higher-variance"];
/// Most parts in one pattern.
pub const MAX_PARTS: usize = 64;
/// Most rows in a combination table.
pub const MAX_ROWS: usize = 250;

/// The exchange engine in the registry.
pub const ENGINE: Engine = Engine {
    name: "exchange",
    summary: "a hand is kept or partly exchanged for random cards; a combination table pays",
    lower: lower_game,
    schema: &super::schema::SCHEMA,
};

fn lower_game(top: &Block, cx: &mut Cx) -> Option<Box<dyn Game>> {
    let rows = top.sections("combination");
    let (game, stats) = lower(top, cx)?;
    check_rows(&rows, &stats, &game, cx);
    Some(Box::new(game))
}

/// Compiles a loaded rule file of this engine into an [`Exchange`], for
/// library users who want its exact values and analyses (the errors of
/// `check` when it does not compile).
pub fn compile(loaded: &crate::load::Loaded) -> Result<Exchange, Vec<Diag>> {
    let mut cx = Cx::new();
    let top = Block::new(&loaded.items, "the rule file", crate::source::Span::new(0, 0, 0));
    let rows = top.sections("combination");
    let game = lower(&top, &mut cx).map(|(game, stats)| {
        check_rows(&rows, &stats, &game, &mut cx);
        game
    });
    match game {
        Some(g) if !cx.has_errors() => Ok(g),
        _ => Err(cx.diags.into_iter().filter(Diag::is_error).collect()),
    }
}

/// Lowers the file into an [`Exchange`] game, with its row statistics.
pub fn lower(top: &Block, cx: &mut Cx) -> Option<(Exchange, RowStats)> {
    let deck = crate::engines::cards::lower::lower_with(top, cx, Extras { wild_cards: true, ..Extras::default() });
    let play = top.require_section(cx, "play");
    let input = top.section(cx, "input");
    let output = top.require_section(cx, "output");
    let deck = deck?;
    if deck.ranks.len() > MAX_RANKS {
        cx.push(Diag::error(
            codes::TOO_LARGE,
            top.head,
            format!("the exchange engine takes at most {MAX_RANKS} ranks"),
        ));
        return None;
    }

    let play = play?;
    let play_spans = {
        let b = Block::of_section(play);
        let mut quiet = Cx::new();
        let span = |k: &'static str, cx: &mut Cx| b.prop(cx, k).map_or(play.head, |p| p.span);
        Some(ExchangeSpans {
            rows: Vec::new(),
            entry: span("entry", &mut quiet),
            cost: span("cost", &mut quiet),
            exchange: span("exchange", &mut quiet),
            prefer: span("prefer", &mut quiet),
            rounds: span("rounds", &mut quiet),
        })
    };
    let Play { hand, entry, cost, sizes, prefer, hand_span, rounds } = play_section(play, &deck, cx)?;
    let mut rows = combinations(&deck, top, cx)?;
    super::exchanged::check_pays(&mut rows, &super::rounds::totals(&sizes, rounds.0), cx)?;
    let suited = rows.iter().filter(|r| super::pattern::is_suited(&r.parts)).count();
    if suited > MAX_SUITED_ROWS {
        cx.push(Diag::error(
            codes::TOO_LARGE,
            top.head,
            format!("{suited} combinations look at suits: the engine takes at most {MAX_SUITED_ROWS}"),
        ));
        return None;
    }
    if let Err(why) = Exchange::plan(&deck, hand, &sizes, &rows) {
        cx.push(
            Diag::error(codes::TOO_LARGE, hand_span, "the tables for this game would be too large")
                .label(why.0)
                .help("use a smaller hand, fewer cards, or fewer cards exchanged at once"),
        );
        return None;
    }
    let round_plan = if rounds.0 > 1 {
        let max_pay = rows.iter().map(|r| r.pays).max().unwrap_or(0);
        let left = deck.size() - hand;
        match super::rounds::plan(left, hand, &sizes, rounds.0, (max_pay, entry, cost)) {
            Ok(plan) => plan,
            Err(why) => {
                cx.push(
                    Diag::error(codes::TOO_LARGE, rounds.1, "these rounds would need too much work or precision")
                        .label(why.0)
                        .help("use fewer rounds, fewer cards exchanged at once, or a smaller deck"),
                );
                return None;
            }
        }
    } else {
        Default::default()
    };
    let terminator = match input {
        Some(s) => input_section(s, cx)?,
        None => "#".to_string(),
    };
    let lines = output_section(output?, cx)?;
    if cx.has_errors() {
        return None;
    }
    let spans = ExchangeSpans {
        rows: top.sections("combination").iter().map(|s| s.head).collect(),
        ..play_spans.unwrap_or_default()
    };
    let spec = ExchangeSpec {
        deck,
        hand,
        entry,
        cost,
        sizes,
        prefer,
        rows,
        lines,
        terminator,
        spans,
        rounds: rounds.0,
        round_plan,
    };
    let (game, stats) = Exchange::build(spec);
    Some((game, stats))
}

/// Checks the row statistics: a row that is never the paying one is an error.
fn check_rows(rows: &[&Section], stats: &RowStats, game: &Exchange, cx: &mut Cx) {
    for (i, s) in rows.iter().enumerate() {
        if stats.best[i] > 0 {
            continue;
        }
        let name = &game.rows[i].name;
        let row = &game.rows[i];
        let d = if stats.formable[i] == 0 {
            let uses_wild = row.parts.iter().any(|p| matches!(p.shape, Shape::Wild(_)));
            let help = if row.natural && uses_wild {
                "a natural row takes no wild card, and `wild(n)` needs them: drop `natural: yes`".to_string()
            } else {
                format!(
                    "a hand has {} cards; the deck has {} ranks of {} suits{}; check the pattern",
                    game.hand,
                    game.deck.ranks.len(),
                    game.deck.suits.len(),
                    if game.deck.wild.iter().any(|&w| w) || !game.deck.jokers.is_empty() {
                        " and wild cards"
                    } else {
                        ""
                    }
                )
            };
            Diag::error(codes::UNFORMABLE, s.head, format!("combination `{name}` can never be formed"))
                .label("no hand forms this pattern")
                .help(help)
        } else {
            let by = stats.shadowed_by[i].map(|j| (rows[j].head, game.rows[j].name.clone()));
            let mut d = Diag::error(codes::SHADOWED, s.head, format!("combination `{name}` can never be the best one"))
                .label("every hand that forms it forms a combination above it first");
            if let Some((span, other)) = by {
                d = d
                    .note(span, format!("`{other}` comes first"))
                    .help(format!("move `{name}` above `{other}`, or remove it"));
            }
            d
        };
        cx.push(d);
    }
    // Payouts should not increase down the table: "highest" is the first row.
    // The warning points at the `pays` written (in a variant, its own
    // file), the row above as a note.
    let pays = |s: &Section| {
        s.items
            .iter()
            .rev()
            .find_map(|i| match i {
                crate::syntax::Item::Property(p) if p.key.name == "pays" => Some(p.span),
                _ => None,
            })
            .unwrap_or(s.head)
    };
    for i in 1..game.rows.len() {
        if game.rows[i].pays > game.rows[i - 1].pays && stats.best[i] > 0 {
            cx.push(
                Diag::warning(
                    codes::PAYTABLE_ORDER,
                    pays(rows[i]),
                    format!("`{}` pays more than `{}` above it", game.rows[i].name, game.rows[i - 1].name),
                )
                .label("pays more than the row above")
                .note(pays(rows[i - 1]), "the row above pays this, and is tried first")
                .help("the first row a hand can form pays; order rows from the highest combination down"),
            );
        }
    }
}

/// The `play` section: the hand's size, the prices, the exchange sizes
/// and the tie-break.
struct Play {
    hand: usize,
    entry: i64,
    cost: i64,
    sizes: Vec<usize>,
    prefer: Vec<Prefer>,
    hand_span: Span,
    /// Draw rounds, and where they are written (the section's head when
    /// not).
    rounds: (usize, Span),
}

fn play_section(s: &Section, deck: &Deck, cx: &mut Cx) -> Option<Play> {
    let b = Block::of_section(s);
    let hand = b.require(cx, "hand", "5").and_then(|p| {
        let n = cx.prop_int(p, 1, "the number of cards in a hand")?;
        let n = n as usize;
        if n > MAX_HAND || n > deck.size() {
            cx.push(
                Diag::error(codes::OUT_OF_RANGE, p.values_span(), format!("a hand of {n} cards is too large"))
                    .label(format!("at most {} here", MAX_HAND.min(deck.size()))),
            );
            return None;
        }
        Some((n, p))
    });
    let entry = b.prop(cx, "entry").map_or(Some(0), |p| price(cx, p, "the price of a deal"));
    let cost = b.prop(cx, "cost").map_or(Some(0), |p| price(cx, p, "the price of one exchanged card"));
    let sizes = b.require(cx, "exchange", "0..1").and_then(|p| exchange_sizes(cx, p).map(|s| (s, p)));
    let prefer = b.require(cx, "prefer", "fewer-cards leftmost").and_then(|p| tie_break(cx, p));
    let rounds = match b.prop(cx, "rounds") {
        Some(p) => rounds_of(cx, p).map(|n| (n, p.values_span())),
        None => Some((1, s.head)),
    };
    b.finish(cx);
    let ((hand, hand_prop), (sizes, sp)) = (hand?, sizes?);
    if let Some(&big) = sizes.iter().find(|&&k| k > hand) {
        cx.push(
            Diag::error(
                codes::OUT_OF_RANGE,
                sp.values_span(),
                format!("cannot exchange {big} cards of a {hand}-card hand"),
            )
            .label(format!("at most {hand}")),
        );
        return None;
    }
    drawable(deck, hand, &sizes, sp, cx)?;
    let (rounds, prefer) = (rounds?, prefer?);
    if rounds.0 > 1 {
        several_rounds(deck, hand, &sizes, rounds, &prefer, cx)?;
    }
    Some(Play { hand, entry: entry?, cost: cost?, sizes, prefer, hand_span: hand_prop.span, rounds })
}

/// `rounds`: 1 to [`MAX_ROUNDS`](super::rounds::MAX_ROUNDS) draw rounds.
fn rounds_of(cx: &mut Cx, p: &Property) -> Option<usize> {
    let most = super::rounds::MAX_ROUNDS;
    let n = cx.prop_int(p, 1, "the number of draw rounds")?;
    if n as usize > most {
        cx.push(
            Diag::error(codes::OUT_OF_RANGE, p.values_span(), format!("{n} draw rounds are too many"))
                .label(format!("at most {most}")),
        );
        return None;
    }
    Some(n as usize)
}

/// Several rounds: every round's cards can be drawn (the cards exchanged
/// are out of the game), the total fits the payouts' table, and the
/// tie-break reads no variance (a value of several rounds is not one
/// draw's payout).
fn several_rounds(
    deck: &Deck,
    hand: usize,
    sizes: &[usize],
    (rounds, span): (usize, Span),
    prefer: &[Prefer],
    cx: &mut Cx,
) -> Option<()> {
    let left = deck.size().saturating_sub(hand);
    let most = sizes.iter().copied().max().unwrap_or(0) * rounds;
    if most > left || most > MAX_HAND {
        let room = left.min(MAX_HAND);
        cx.push(
            Diag::error(
                codes::OUT_OF_RANGE,
                span,
                format!("{rounds} rounds could exchange {most} cards in all, more than the {room} the engine can draw"),
            )
            .label(format!("at most {room} cards over every round"))
            .help("use fewer rounds or exchange fewer cards at once"),
        );
        return None;
    }
    if prefer.iter().any(|p| matches!(p, Prefer::LowerVariance | Prefer::HigherVariance)) {
        cx.push(
            Diag::error(codes::CONFLICT, span, "a variance tie-break needs one draw round")
                .label(format!("{rounds} rounds"))
                .help("the variance of a choice is over one round's draws: use `rounds: 1`, or tie-break by cards"),
        );
        return None;
    }
    Some(())
}

/// Every exchange size can be drawn: at most the cards left in the deck
/// once the hand is dealt. (Larger sizes were offered with no card to draw:
/// `run` valued them 0/0 and `analyze` divided by zero, EX-1, EX-2.)
fn drawable(deck: &Deck, hand: usize, sizes: &[usize], sp: &crate::syntax::Property, cx: &mut Cx) -> Option<()> {
    let left = deck.size().saturating_sub(hand);
    let Some(&big) = sizes.iter().find(|&&k| k > left) else { return Some(()) };
    cx.push(
        Diag::error(
            codes::OUT_OF_RANGE,
            sp.values_span(),
            format!(
                "cannot exchange {big} cards: a deck of {} cards has {left} left to draw once a {hand}-card hand is \
                 dealt",
                deck.size()
            ),
        )
        .label(format!("at most {left} here"))
        .help(format!("exchange at most {left} card{}, or add cards to the deck", if left == 1 { "" } else { "s" })),
    );
    None
}

/// `entry` or `cost`: a whole number from 0 to the largest payout.
fn price(cx: &mut Cx, p: &Property, what: &str) -> Option<i64> {
    let n = cx.prop_int(p, 0, what)?;
    if n > MAX_PAYOUT {
        cx.push(
            Diag::error(codes::OUT_OF_RANGE, p.values_span(), format!("`{}` is too large", p.key.name))
                .label(format!("at most {MAX_PAYOUT}")),
        );
        return None;
    }
    Some(n)
}

/// `exchange`: sizes and ranges of sizes, in increasing order, each once.
fn exchange_sizes(cx: &mut Cx, p: &Property) -> Option<Vec<usize>> {
    let too_many = |cx: &mut Cx, at: Span, k: i64| {
        cx.push(
            Diag::error(codes::OUT_OF_RANGE, at, format!("cannot exchange {k} cards"))
                .label(format!("at most {MAX_HAND}")),
        );
    };
    let mut sizes = Vec::new();
    for v in &p.values {
        if let ExprKind::Range(a, z) = &v.kind {
            let (a, z) = (cx.int_at_least(a, 0, "a number of cards")?, cx.int_at_least(z, 0, "a number of cards")?);
            if z > MAX_HAND as i64 {
                too_many(cx, v.span, z);
                return None;
            }
            if a > z {
                cx.push(
                    Diag::error(codes::EMPTY_RANGE, v.span, "this range of sizes is empty")
                        .label("the first number is above the last"),
                );
                return None;
            }
            sizes.extend(a..=z);
        } else {
            let k = cx.int_at_least(v, 0, "a number of cards (or a range `0..1`)")?;
            if k > MAX_HAND as i64 {
                too_many(cx, v.span, k);
                return None;
            }
            sizes.push(k);
        }
    }
    // A size given twice is one size.
    sizes.sort_unstable();
    sizes.dedup();
    if sizes.is_empty() {
        cx.push(
            Diag::error(codes::ARITY, p.key.span, "no exchange sizes given")
                .label("expected `0..1` or a list of sizes"),
        );
        return None;
    }
    Some(sizes.into_iter().map(|n| n as usize).collect())
}

/// `prefer`: the tie-break criteria, in order, each at most once.
fn tie_break(cx: &mut Cx, p: &Property) -> Option<Vec<Prefer>> {
    if p.values.is_empty() {
        cx.push(
            Diag::error(codes::EMPTY_TIEBREAK, p.key.span, "the tie-break names nothing")
                .label("no criterion after `prefer:`")
                .help("for example `prefer: fewer-cards leftmost`"),
        );
        return None;
    }
    let mut out = Vec::new();
    for v in &p.values {
        let c = cx.choice(v, &PREFER, "a tie-break criterion")?;
        let pref = match c {
            "fewer-cards" => Prefer::FewerCards,
            "more-cards" => Prefer::MoreCards,
            "leftmost" => Prefer::Leftmost,
            "lower-variance" => Prefer::LowerVariance,
            "higher-variance" => Prefer::HigherVariance,
            _ => Prefer::Rightmost,
        };
        if out.contains(&pref) {
            cx.push(
                Diag::error(codes::DUPLICATE, v.span, format!("`{c}` is named twice in the tie-break"))
                    .label("named again"),
            );
            return None;
        }
        out.push(pref);
    }
    Some(out)
}

/// The `combination` sections, in order: the pay table.
fn combinations(deck: &Deck, top: &Block, cx: &mut Cx) -> Option<Vec<Row>> {
    let sections = top.sections("combination");
    let named = top.named_sections(cx, "combination", "combination");
    if sections.is_empty() {
        cx.push(
            Diag::error(codes::MISSING, top.head, "the rule file has no `combination`")
                .label("no combination table")
                .help("add rows such as `combination \"five in a row\" { pattern: run(5) pays: 100 }`"),
        );
        return None;
    }
    if sections.len() > MAX_ROWS {
        let at = sections[MAX_ROWS].head;
        cx.push(Diag::error(codes::TOO_LARGE, at, format!("at most {MAX_ROWS} combinations")).label("one too many"));
        return None;
    }
    let mut ok = named.len() == sections.len();
    let mut out: Vec<Row> = Vec::new();
    for (s, name) in named {
        match row(s, deck, cx) {
            Some((parts, (pays, by_exchanged), natural)) => {
                out.push(Row { name: name.value.clone(), parts, pays, natural, by_exchanged })
            }
            None => ok = false,
        }
    }
    ok.then_some(out)
}

/// One row's pattern, payout and `natural` flag.
type Pays = (i64, Option<Box<super::ByExchanged>>);

fn row(s: &Section, deck: &Deck, cx: &mut Cx) -> Option<(Vec<Part>, Pays, bool)> {
    let b = Block::of_section(s);
    let parts = b.require(cx, "pattern", "run(5)").and_then(|p| {
        let e = cx.one(p, "a pattern such as `run(3) + run(2)`")?;
        pattern(e, deck, cx)
    });
    let natural = b.prop(cx, "natural").and_then(|p| cx.flag(p)).unwrap_or(false);
    let pays = b.require(cx, "pays", "10").and_then(|p| {
        let (e, stake) = payout_odds(p, cx)?;
        let number = |x: &Expr| matches!(x.kind, ExprKind::Int(_));
        if !(number(e) || matches!(&e.kind, ExprKind::Unary(_, x) if number(x))) {
            // An expression (of `exchanged`): checked with the sizes.
            return super::exchanged::lower_pays(e, cx).map(|mut by| {
                by.pays.iter_mut().for_each(|p| *p = p.saturating_add(stake));
                (0, Some(Box::new(by)))
            });
        }
        let n = cx.int(e, "a payout (a whole number)")?.saturating_add(stake);
        if n > MAX_PAYOUT {
            cx.push(
                Diag::error(codes::OUT_OF_RANGE, e.span, format!("payout `{n}` is too large"))
                    .label(format!("at most {MAX_PAYOUT}")),
            );
            return None;
        }
        if n < 0 {
            cx.push(
                Diag::error(codes::NEGATIVE_PAYOUT, e.span, format!("payout `{n}` is negative"))
                    .label("a combination pays 0 or more")
                    .help("the cost of playing is `entry` and `cost` in the `play` section"),
            );
            return None;
        }
        Some((n, None))
    });
    b.finish(cx);
    Some((parts?, pays?, natural))
}

/// A `pays:` value: `N` or `N for 1` (the stake included), or `N to 1`
/// (the stake returned besides: N + 1 for 1). The payout's expression and
/// what to add to it.
fn payout_odds<'p>(p: &'p Property, cx: &mut Cx) -> Option<(&'p Expr, i64)> {
    let [e, odds, per] = p.values.as_slice() else { return cx.one(p, "a payout").map(|e| (e, 0)) };
    let stake = match &odds.kind {
        ExprKind::Word(w) if w == "for" => 0,
        ExprKind::Word(w) if w == "to" => 1,
        _ => return cx.one(p, "a payout").map(|e| (e, 0)),
    };
    if !matches!(per.kind, ExprKind::Int(1)) {
        cx.push(
            Diag::error(codes::ARITY, per.span, "a payout is per credit staked: `for 1` or `to 1`")
                .label("expected `1`")
                .help("`pays: 41 for 1` (the stake included) is `pays: 40 to 1` (the stake returned besides)"),
        );
        return None;
    }
    Some((e, stake))
}

/// `run(3) + run(2)`, `kind(2)`, `kind(2, J Q K A)`, `ranks(T J Q K A)`,
/// `suited(5)`, `suited(run(5))`, `wild(4)`, `any`. A sum is flattened
/// without recursion, so a long chain of `+` cannot exhaust the stack.
fn pattern(e: &Expr, deck: &Deck, cx: &mut Cx) -> Option<Vec<Part>> {
    let mut terms = Vec::new();
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        match &x.kind {
            ExprKind::Binary(BinOp::Add, a, b) => {
                stack.push(b);
                stack.push(a);
            }
            _ if terms.len() == MAX_PARTS => {
                cx.push(
                    Diag::error(codes::TOO_LARGE, x.span, format!("a pattern has at most {MAX_PARTS} parts"))
                        .label(format!("part {} of the pattern", MAX_PARTS + 1))
                        .help("the parts of a pattern use different cards of one hand"),
                );
                return None;
            }
            _ => terms.push(x),
        }
    }
    if let [one] = terms.as_slice() {
        if one.as_word() == Some(ANY) {
            return Some(Vec::new());
        }
    }
    let mut parts = Vec::new();
    for t in terms {
        if t.as_word() == Some(ANY) {
            cx.push(
                Diag::error(codes::TYPE, t.span, "`any` is a whole pattern")
                    .label("not a part of a sum")
                    .help("write `pattern: any` alone: it matches every hand"),
            );
            return None;
        }
        parts.push(part(t, deck, false, cx)?);
    }
    Some(parts)
}

/// "a pattern (`run`, `kind`, ..., or `any`)", from [`PATTERN_WORDS`].
fn pattern_what() -> String {
    let words: Vec<String> = PATTERN_WORDS.iter().map(|(w, _)| format!("`{w}`")).collect();
    let (last, rest) = words.split_last().expect("pattern words");
    format!("a pattern ({} or {last})", rest.join(", "))
}

/// One part: `run(n)`, `kind(n)`, `kind(n, ranks)`, `ranks(...)`,
/// `suited(n)`, `suited(part)`, `wild(n)`.
fn part(e: &Expr, deck: &Deck, in_suited: bool, cx: &mut Cx) -> Option<Part> {
    let (f, args) = match &e.kind {
        ExprKind::Call(f, args) => (f, args),
        ExprKind::Word(w) => {
            cx.unknown(e.span, &pattern_what(), w, PATTERN_WORDS.iter().map(|(w, _)| *w));
            return None;
        }
        _ => return cx.expected(e, "a pattern such as `run(3) + run(2)`"),
    };
    let call = Call { e, name: &f.name, args };
    match f.name.as_str() {
        "run" => Some(Part::new(Shape::Run(call.only_count(cx)?), in_suited)),
        "wild" => wild_part(cx, &call, deck, in_suited),
        "kind" => {
            let n = call.count(cx)?;
            let mask = if args.len() > 1 {
                let rs = crate::engines::cards::lower::ranks(deck, &args[1..], cx)?;
                rs.iter().fold(0u64, |m, &r| m | 1 << r)
            } else {
                u64::MAX >> (64 - deck.ranks.len())
            };
            Some(Part::new(Shape::Kind(n, mask), in_suited))
        }
        "ranks" => ranks_part(cx, &call, deck, in_suited),
        "suited" => {
            if in_suited {
                cx.push(Diag::error(codes::TYPE, e.span, "`suited` inside `suited`").label("already of one suit"));
                return None;
            }
            let [inner] = args.as_slice() else {
                cx.push(
                    Diag::error(codes::ARITY, e.span, "`suited` takes a number or one part")
                        .label("write `suited(5)` or `suited(run(5))`"),
                );
                return None;
            };
            match &inner.kind {
                ExprKind::Int(_) => Some(Part::new(Shape::Cards(call.count(cx)?), true)),
                _ => part(inner, deck, true, cx),
            }
        }
        other => {
            cx.unknown(f.span, &pattern_what(), other, PATTERN_WORDS.iter().map(|(w, _)| *w));
            None
        }
    }
}

/// A part written as a call, `name(args)`, for the checks of its numbers.
struct Call<'a> {
    e: &'a Expr,
    name: &'a str,
    args: &'a [Expr],
}

impl Call<'_> {
    /// The first argument: a number of cards, at most a hand.
    fn count(&self, cx: &mut Cx) -> Option<usize> {
        let Some(n) = self.args.first() else {
            cx.push(
                Diag::error(codes::ARITY, self.e.span, format!("`{}` takes a number of cards", self.name))
                    .label(format!("write `{}(3)`", self.name)),
            );
            return None;
        };
        let k = cx.int_at_least(n, 1, "a number of cards")?;
        if k > MAX_HAND as i64 {
            cx.push(
                Diag::error(codes::OUT_OF_RANGE, n.span, format!("a part of {k} cards is larger than any hand"))
                    .label(format!("at most {MAX_HAND}")),
            );
            return None;
        }
        Some(k as usize)
    }

    /// A number of cards and nothing else.
    fn only_count(&self, cx: &mut Cx) -> Option<usize> {
        if let [_, extra @ ..] = self.args {
            if let (Some(first), Some(last)) = (extra.first(), extra.last()) {
                cx.push(
                    Diag::error(codes::ARITY, first.span.to(last.span), format!("`{}` takes one number", self.name))
                        .label("unexpected values")
                        .help(format!("write `{}(3)`", self.name)),
                );
                return None;
            }
        }
        self.count(cx)
    }
}

/// `wild(n)`: n wild cards, outside any `suited`, in a deck that has some.
fn wild_part(cx: &mut Cx, call: &Call, deck: &Deck, in_suited: bool) -> Option<Part> {
    if in_suited {
        cx.push(
            Diag::error(codes::TYPE, call.e.span, "wild cards have no suit to share")
                .label("`wild` inside `suited`")
                .help("write `wild(n)` beside the suited part: `suited(run(4)) + wild(1)`"),
        );
        return None;
    }
    if deck.wild.iter().all(|&w| !w) && deck.jokers.is_empty() {
        cx.push(
            Diag::error(codes::UNFORMABLE, call.e.span, "the deck has no wild cards")
                .label("no card can form this part")
                .help("declare them in `deck`: `wild: 2` (ranks) or `jokers: JK` (extra cards)"),
        );
        return None;
    }
    Some(Part::new(Shape::Wild(call.only_count(cx)?), false))
}

/// `ranks(...)`: one card of each rank listed (a multiset: `ranks(J J)` is
/// two Jacks).
fn ranks_part(cx: &mut Cx, call: &Call, deck: &Deck, in_suited: bool) -> Option<Part> {
    let rs = crate::engines::cards::lower::ranks(deck, call.args, cx)?;
    if rs.is_empty() {
        cx.push(Diag::error(codes::ARITY, call.e.span, "`ranks` needs at least one rank").label("no ranks"));
        return None;
    }
    if rs.len() > MAX_HAND {
        cx.push(
            Diag::error(codes::OUT_OF_RANGE, call.e.span, format!("`ranks` lists {} cards", rs.len()))
                .label(format!("a hand has at most {MAX_HAND}")),
        );
        return None;
    }
    let mut counts: Vec<(usize, usize)> = Vec::new();
    let mut sorted = rs;
    sorted.sort_unstable();
    for r in sorted {
        match counts.last_mut() {
            Some((x, m)) if *x == r => *m += 1,
            _ => counts.push((r, 1)),
        }
    }
    Some(Part::new(Shape::Ranks(counts), in_suited))
}

/// The `input` section: the line that ends the input.
fn input_section(s: &Section, cx: &mut Cx) -> Option<String> {
    let b = Block::of_section(s);
    let t = b
        .prop(cx, "end")
        .and_then(|p| cx.one(p, "the line that ends the input"))
        .and_then(|e| cx.string(e, "the line that ends the input (a string)").map(|s| s.value.clone()));
    b.finish(cx);
    t
}

fn output_section(s: &Section, cx: &mut Cx) -> Option<Lines> {
    let b = Block::of_section(s);
    let stay = b.require(cx, "stay", "\"Stay\"").and_then(|p| cx.template(p));
    let exchange = b.require(cx, "exchange", "\"Exchange {cards}\"").and_then(|p| cx.template(p));
    let all = b.prop(cx, "exchange-all").map(|p| cx.template(p));
    b.finish(cx);
    let all = match all {
        Some(t) => Some(t?),
        None => None,
    };
    Some(Lines::new(stay?, exchange?, all))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::schema::Schema;

    fn deck() -> Deck {
        let text = "deck { ranks: A 2 3 4 5 6 7 8 9 T J Q K  suits: S H D C  wild: 2 }";
        let loaded = crate::load::load_text("t.rules", text, std::path::Path::new(".")).expect("parses");
        let top = Block::new(&loaded.items, "the rule file", Span::new(0, 0, 0));
        let mut cx = Cx::new();
        crate::engines::cards::lower::lower_with(&top, &mut cx, Extras { wild_cards: true, ..Extras::default() })
            .expect("a deck")
    }

    /// Every word of [`PATTERN_WORDS`] is one the lowering reads (a part, or
    /// `any` alone), and the `pattern` key's description names it.
    #[test]
    fn the_pattern_words_are_the_ones_the_lowering_reads() {
        let deck = deck();
        for (word, _) in PATTERN_WORDS {
            let text = if *word == ANY { format!("pattern: {word}") } else { format!("pattern: {word}(2)") };
            let loaded = crate::load::load_text("t.rules", &text, std::path::Path::new(".")).expect("parses");
            let crate::syntax::Item::Property(p) = &loaded.items[0] else { panic!("a property") };
            let mut cx = Cx::new();
            let parts = pattern(&p.values[0], &deck, &mut cx);
            assert!(parts.is_some(), "`{word}` is not read: {:?}", cx.diags);
        }
        let schema: &Schema = &crate::engines::exchange::schema::SCHEMA;
        let key = schema.sections.iter().flat_map(|s| s.keys.iter()).find(|k| k.name == "pattern").expect("pattern");
        for (word, _) in PATTERN_WORDS {
            assert!(key.ty.contains(&format!("`{word}")), "the `pattern` key's description lacks `{word}`");
        }
    }

    #[test]
    fn an_unknown_part_names_every_pattern_word() {
        let loaded = crate::load::load_text("t.rules", "pattern: flush(5)", std::path::Path::new(".")).expect("parses");
        let crate::syntax::Item::Property(p) = &loaded.items[0] else { panic!("a property") };
        let mut cx = Cx::new();
        assert!(pattern(&p.values[0], &deck(), &mut cx).is_none());
        let message = &cx.diags[0].message;
        for (word, _) in PATTERN_WORDS {
            assert!(message.contains(&format!("`{word}`")), "{message}");
        }
    }
}
