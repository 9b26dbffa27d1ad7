//! Lowering for the `tower` engine: `player`, `tower`, `scoring`, `input`
//! and `output` sections; the input reader and the runner. See
//! docs/engines/tower.md.

use crate::check::{Block, Cx};
use crate::diag::{did_you_mean, Diag};
use crate::engines::cards::Deck;
use crate::engines::tower::{Action, TowerRules, Tt, MAX_CARDS, MAX_PEAKS};
use crate::game::explain::Explanation;
use crate::game::input::Lines;
use crate::game::{Analysis, Analyze, AnalyzeOptions, Game, Output, RunError};
use crate::source::Span;
use crate::syntax::ExprKind;
use crate::template::{Template, Val};

/// A compiled tower game.
pub struct Tower {
    pub rules: TowerRules,
    pub deck: Deck,
    pub players: [String; 2],
    /// Smallest and largest rank count a case may name (M).
    pub m_range: (usize, usize),
    pub terminator: String,
    pub wins: Template,
    pub loses: Template,
    pub tie: Template,
    pub spans: TowerSpans,
}

/// Where the rules an explanation cites are written.
#[derive(Debug, Clone, Default)]
pub struct TowerSpans {
    pub players: [Span; 2],
    pub peaks: Span,
    pub first: Span,
    /// The owner entry of each sorted colour triple, indexed like
    /// `(a * k + b) * k + c` for `k` colours.
    pub owner: Vec<Span>,
    pub colours: usize,
    /// Each card's colour, and each player's.
    pub colour: Vec<usize>,
    pub player_colour: [usize; 2],
    pub held_own: Span,
    pub held_other: Span,
    pub wins: Span,
    pub loses: Span,
    pub tie: Span,
}

pub fn lower(top: &Block, cx: &mut Cx) -> Option<Tower> {
    let deck = crate::engines::cards::lower::lower(top, cx);
    let players = top.sections("player");
    let tower = top.require_section(cx, "tower");
    let scoring = top.require_section(cx, "scoring");
    let input = top.require_section(cx, "input");
    let output = top.require_section(cx, "output");
    let deck = deck?;
    if deck.size() > MAX_CARDS {
        cx.push(Diag::error("too-large", top.head, format!("the tower engine takes at most {MAX_CARDS} cards")));
        return None;
    }
    // Colours are the deck's colours if it names them, else its suits.
    let colour_names: Vec<String> = if deck.colours.is_empty() { deck.suits.clone() } else { deck.colours.clone() };
    let colour_of_card = |c: usize| -> usize {
        let suit = c % deck.suits.len();
        if deck.colours.is_empty() {
            suit
        } else {
            deck.suit_colour[suit]
        }
    };

    // Players and their colours.
    if players.len() != 2 {
        let at = players.get(2).map_or(top.head, |p| p.head);
        cx.push(
            Diag::error("arity", at, format!("the tower engine is for two players, found {}", players.len()))
                .label("expected exactly two `player` sections"),
        );
        return None;
    }
    let player_heads = [players[0].head, players[1].head];
    let mut names = Vec::new();
    let mut colours = Vec::new();
    for p in &players {
        let b = Block::of_section(p);
        let Some(name) = p.name() else {
            cx.push(Diag::error("missing", p.head, "a player needs a name").label("write `player \"North\" { ... }`"));
            return None;
        };
        let colour = b.require(cx, "colour", "R").and_then(|prop| {
            let e = cx.one(prop, "a colour")?;
            let c = cx.name(e, "a colour")?.to_string();
            match colour_names.iter().position(|n| *n == c) {
                Some(i) => Some(i),
                None => {
                    cx.unknown(e.span, "a colour", &c, colour_names.iter().map(String::as_str));
                    None
                }
            }
        });
        b.finish(cx);
        names.push(name.clone());
        colours.push(colour);
    }
    if names[0].value == names[1].value {
        cx.push(
            Diag::error("duplicate", names[1].span, format!("player `{}` is defined twice", names[1].value))
                .label("defined again here")
                .note(players[0].head, "first defined here"),
        );
    }

    let (peaks, first_rule) = {
        let b = Block::of_section(tower?);
        let peaks = b.require(cx, "peaks", "4").and_then(|p| {
            let n = cx.prop_int(p, 2, "the number of base peaks (at least 2)")? as usize;
            if n > MAX_PEAKS {
                cx.push(
                    Diag::error("out-of-range", p.values_span(), format!("{n} peaks is too many"))
                        .label(format!("at most {MAX_PEAKS}")),
                );
                return None;
            }
            Some((n, p))
        });
        let first = b.prop(cx, "first").map_or(Some(None), |p| {
            let e = cx.one(p, "who moves first")?;
            let w = cx.name(e, "who moves first")?.to_string();
            if w == "colour-of-first-card" {
                return Some(None);
            }
            match names.iter().position(|n| n.value == w) {
                Some(i) => Some(Some(i as u8)),
                None => {
                    let choices: Vec<&str> =
                        std::iter::once("colour-of-first-card").chain(names.iter().map(|n| n.value.as_str())).collect();
                    cx.unknown(e.span, "`colour-of-first-card` or a player", &w, choices);
                    None
                }
            }
        });
        b.finish(cx);
        (peaks, first)
    };

    // Scoring: points of a triangle, its owner by colours, held cards.
    let (triangle_owner, held_own, held_other) = {
        let s = scoring?;
        let b = Block::of_section(s);
        let points = b.prop(cx, "points").map_or(Some("sum"), |p| {
            cx.one(p, "how a triangle is worth").and_then(|e| cx.choice(e, &["sum"], "a way to count points"))
        });
        let owner = b.require(cx, "owner", "[R R R] North [R R B] North [R B B] South [B B B] South").and_then(|p| {
            // Pairs of (colours of the three cards) (player).
            let mut table: Vec<(Vec<usize>, usize, crate::source::Span)> = Vec::new();
            let mut ok = true;
            let mut vals = p.values.iter();
            while let Some(v) = vals.next() {
                let ExprKind::List(cs) = &v.kind else {
                    cx.expected::<()>(v, "the colours of a triangle's three cards, as a list `[R R B]`");
                    return None;
                };
                if cs.len() != 3 {
                    cx.push(
                        Diag::error("arity", v.span, format!("a triangle has 3 cards, this lists {}", cs.len()))
                            .label("expected three colours"),
                    );
                    ok = false;
                }
                let mut key = Vec::new();
                for c in cs {
                    let Some(name) = cx.name(c, "a colour") else {
                        ok = false;
                        continue;
                    };
                    match colour_names.iter().position(|n| n == name) {
                        Some(i) => key.push(i),
                        None => {
                            cx.unknown(c.span, "a colour", name, colour_names.iter().map(String::as_str));
                            ok = false;
                        }
                    }
                }
                key.sort_unstable();
                let Some(who) = vals.next() else {
                    cx.push(
                        Diag::error("arity", v.span, "this triangle has no owner")
                            .label("a player's name should follow"),
                    );
                    return None;
                };
                let w = cx.name(who, "a player")?.to_string();
                let Some(pi) = names.iter().position(|n| n.value == w) else {
                    cx.unknown(who.span, "a player", &w, names.iter().map(|n| n.value.as_str()));
                    ok = false;
                    continue;
                };
                if let Some((_, _, first)) = table.iter().find(|(k, _, _)| *k == key) {
                    cx.push(
                        Diag::error("duplicate", v.span, "these colours already have an owner")
                            .label("given again here")
                            .note(*first, "first given here"),
                    );
                    ok = false;
                }
                table.push((key, pi, v.span));
            }
            // Every combination of three colours needs an owner.
            let k = colour_names.len();
            for a in 0..k {
                for b2 in a..k {
                    for c in b2..k {
                        if ok && !table.iter().any(|(key, _, _)| *key == [a, b2, c]) {
                            let show =
                                [a, b2, c].iter().map(|&i| colour_names[i].as_str()).collect::<Vec<_>>().join(" ");
                            cx.push(
                                Diag::error(
                                    "scoring-hole",
                                    p.values_span(),
                                    format!("no owner for a triangle of colours [{show}]"),
                                )
                                .label("this table has a hole")
                                .help(format!("add `[{show}] PLAYER`")),
                            );
                            ok = false;
                        }
                    }
                }
            }
            ok.then_some(table)
        });
        let mult = |cx: &mut Cx, key: &'static str, default: i64| {
            b.prop(cx, key).map_or(Some(default), |p| {
                cx.one(p, "a multiplier").and_then(|e| cx.int(e, "a multiplier (a whole number)"))
            })
        };
        let own = mult(cx, "held-own", 1);
        let other = mult(cx, "held-other", -1);
        b.finish(cx);
        let _ = points?;
        (owner, own, other)
    };

    let (m_range, terminator) = {
        let b = Block::of_section(input?);
        let m = b.require(cx, "ranks", "5..13").and_then(|p| {
            let e = cx.one(p, "the range of M, such as `5..13`")?;
            let ExprKind::Range(a, z) = &e.kind else { return cx.expected(e, "the range of M, such as `5..13`") };
            let (a, z) = (
                cx.int_at_least(a, 1, "a number of ranks")? as usize,
                cx.int_at_least(z, 1, "a number of ranks")? as usize,
            );
            if z > deck.ranks.len() || a > z {
                cx.push(
                    Diag::error(
                        "out-of-range",
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
        (m, end)
    };
    let (wins, loses, tie) = {
        let b = Block::of_section(output?);
        let wins = b
            .require(cx, "wins", "\"Case {case}: {player} wins {amount}\"")
            .and_then(|p| cx.template(p, &["case", "player", "amount"]));
        let loses = b
            .require(cx, "loses", "\"Case {case}: {player} loses {amount}\"")
            .and_then(|p| cx.template(p, &["case", "player", "amount"]));
        let tie = b
            .require(cx, "tie", "\"Case {case}: {first} and {second} tie\"")
            .and_then(|p| cx.template(p, &["case", "first", "second", "player"]));
        b.finish(cx);
        (wins, loses, tie)
    };

    let ((peaks, peaks_prop), first_rule, table, held_own, held_other) =
        (peaks?, first_rule?, triangle_owner?, held_own?, held_other?);
    let ((m_lo, m_hi, m_span), terminator) = (m_range?, terminator?);
    let suits = deck.suits.len();
    if 2 * peaks > m_lo * suits {
        cx.push(
            Diag::error(
                "peaks-unfillable",
                peaks_prop.values_span(),
                format!("{peaks} peaks need {} cards, but a deck of M = {m_lo} has {}", 2 * peaks, m_lo * suits),
            )
            .label("more peaks than the smallest deck can fill")
            .note(m_span, "the smallest M allowed")
            .help(format!("use at most {} peaks, or raise the smallest M", m_lo * suits / 2)),
        );
    }
    let colours: Vec<usize> = colours.into_iter().collect::<Option<Vec<_>>>()?;
    let (wins, loses, tie) = (wins?, loses?, tie?);
    if cx.has_errors() {
        return None;
    }

    // Tables over card numbers.
    let n = deck.size();
    // Owner by sorted colour triple, indexed a * k^2 + b * k + c.
    let k = colour_names.len();
    let mut owner_of = vec![0usize; k * k * k];
    let mut owner_span = vec![Span::default(); k * k * k];
    for (key, p, span) in &table {
        owner_of[(key[0] * k + key[1]) * k + key[2]] = *p;
        owner_span[(key[0] * k + key[1]) * k + key[2]] = *span;
    }
    let mut triangle = vec![0i32; n * n * n];
    for a in 0..n {
        for b2 in 0..n {
            for c in 0..n {
                let mut key = [colour_of_card(a), colour_of_card(b2), colour_of_card(c)];
                key.sort_unstable();
                let pts = (deck.values[deck.rank(a as u16)]
                    + deck.values[deck.rank(b2 as u16)]
                    + deck.values[deck.rank(c as u16)]) as i32;
                triangle[(a * n + b2) * n + c] =
                    if owner_of[(key[0] * k + key[1]) * k + key[2]] == 0 { pts } else { -pts };
            }
        }
    }
    let held = [0usize, 1].map(|p| {
        (0..n)
            .map(|c| {
                let v = deck.values[deck.rank(c as u16)] as i32;
                if colour_of_card(c) == colours[p] {
                    v * held_own as i32
                } else {
                    v * held_other as i32
                }
            })
            .collect()
    });
    let first_by_card = (0..n)
        .map(|c| match first_rule {
            Some(p) => p,
            None => colours.iter().position(|&col| col == colour_of_card(c)).map_or(0, |p| p as u8),
        })
        .collect();
    let rules = TowerRules { peaks, triangle, held, first_by_card, cards: n };
    let players = [names[0].value.clone(), names[1].value.clone()];
    let (tower, scoring, output) = (tower?, scoring?, output?);
    let spans = TowerSpans {
        players: player_heads,
        peaks: tower.span_of("peaks"),
        first: tower.span_of("first"),
        owner: owner_span,
        colours: k,
        colour: (0..n).map(colour_of_card).collect(),
        player_colour: [colours[0], colours[1]],
        held_own: scoring.span_of("held-own"),
        held_other: scoring.span_of("held-other"),
        wins: output.span_of("wins"),
        loses: output.span_of("loses"),
        tie: output.span_of("tie"),
    };
    Some(Tower { rules, deck, players, m_range: (m_lo, m_hi), terminator, wins, loses, tie, spans })
}

impl Analyze for Tower {
    /// The first mover's advantage (its final score minus the other's) over
    /// seeded random deals of the largest deck the input allows.
    fn analyze(&self, opts: &AnalyzeOptions, progress: &mut dyn FnMut(u64, u64)) -> Analysis {
        let mut rng = crate::rng::SplitMix64::new(opts.seed);
        let m = self.m_range.1;
        let suits = self.deck.suits.len();
        let mut deck: Vec<u8> =
            (0..self.deck.size()).filter(|&c| self.deck.rank(c as u16) < m).map(|c| c as u8).collect();
        let n = opts.samples.max(1);
        let mut tt = crate::engines::tower::Tt::default();
        let (mut total, mut wins, mut ties) = (0i64, 0u64, 0u64);
        for i in 0..n {
            rng.shuffle(&mut deck);
            let (v0, _) = self.rules.solve_with(&deck, &mut tt, u64::MAX).unwrap_or((0, 0));
            let first = self.rules.first_by_card[deck[0] as usize];
            let v = if first == 0 { v0 } else { -v0 };
            total += v as i64;
            if v > 0 {
                wins += 1;
            } else if v == 0 {
                ties += 1;
            }
            progress(i, n);
        }
        progress(n, n);
        let g = gcd(total.unsigned_abs(), n).max(1);
        vec![
            ("deals".to_string(), format!("{n} random deals of M = {m} ({} cards, seed {})", m * suits, opts.seed)),
            (
                "first mover's advantage".to_string(),
                format!("{}/{} = {:.4} points per deal", total / g as i64, n / g, total as f64 / n as f64),
            ),
            ("first mover wins, ties".to_string(), format!("{wins} and {ties} of {n}")),
        ]
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Game for Tower {
    fn analysis(&self) -> Option<&dyn Analyze> {
        Some(self)
    }

    fn explainer(&self) -> Option<&dyn crate::game::explain::Explain> {
        Some(self)
    }

    fn run(&self, input: &str, out: &mut Output) -> Result<(), RunError> {
        let mut tt = Tt::default();
        self.cases(input, |case, player, deck, m_line| {
            let v0 = self.solve(case, deck, m_line, &mut tt)?;
            self.verdict(out.buffer(), case, player, v0);
            Ok(out.end_case()?)
        })
    }
}

impl Tower {
    /// Reads every case and hands it to `each`: its number, the player
    /// named (0 or 1), the deck, and the line number of M.
    fn cases(
        &self,
        input: &str,
        mut each: impl FnMut(i64, usize, &[u8], usize) -> Result<(), RunError>,
    ) -> Result<(), RunError> {
        let mut lines = Lines::new(input);
        let mut case = 0i64;
        let suits = self.deck.suits.len();
        loop {
            case += 1;
            let who_choices = format!("`{}`, `{}` or `{}`", self.players[0], self.players[1], self.terminator);
            let Some(line) = lines.next_nonblank() else {
                return Err(lines
                    .error_at_end(format!("expected {who_choices}, found end of input"))
                    .with_help(format!("the input ends with a line `{}`", self.terminator))
                    .into());
            };
            let name = line.text.trim();
            if name == self.terminator {
                return Ok(());
            }
            let Some(player) = self.players.iter().position(|p| p == name) else {
                let e = line.error(format!("expected {who_choices}, found `{name}`"));
                return Err(match did_you_mean(name, self.players.iter().map(String::as_str)) {
                    Some(s) => e.with_help(format!("did you mean `{s}`?")),
                    None => e,
                }
                .into());
            };
            let (lo, hi) = self.m_range;
            let Some(mline) = lines.next_nonblank() else {
                return Err(lines
                    .error_at_end(format!("expected M (a number from {lo} to {hi}), found end of input"))
                    .into());
            };
            let mtext = mline.text.trim();
            let m = match mtext.parse::<usize>() {
                Ok(m) if (lo..=hi).contains(&m) => m,
                _ => {
                    return Err(mline
                        .error(format!("expected M (a number from {lo} to {hi}), found `{mtext}`"))
                        .into());
                }
            };
            let need = m * suits;
            let mut deck: Vec<u8> = Vec::with_capacity(need);
            let mut seen = vec![false; self.deck.size()];
            while deck.len() < need {
                let Some(l) = lines.next_nonblank() else {
                    return Err(lines
                        .error_at_end(format!(
                            "expected {} more cards of case {case}, found end of input",
                            need - deck.len()
                        ))
                        .with_help(format!("a deck of M = {m} has {need} cards"))
                        .into());
                };
                for tok in l.tokens() {
                    if deck.len() == need {
                        return Err(tok.error(format!("expected {need} cards for M = {m}, found more")).into());
                    }
                    let Some(card) = self.deck.parse_card(tok.text) else {
                        let e = if self.players.iter().any(|p| p == tok.text) || tok.text == self.terminator {
                            tok.error(format!(
                                "expected {} more cards of case {case}, found `{}`",
                                need - deck.len(),
                                tok.text
                            ))
                        } else {
                            tok.error(self.deck.explain_bad_card(tok.text))
                        };
                        return Err(e.into());
                    };
                    if self.deck.rank(card) >= m {
                        return Err(tok
                            .error(format!("card `{}` is not in a deck of M = {m}", tok.text))
                            .with_help(format!("ranks go up to {}", self.deck.ranks[m - 1]))
                            .into());
                    }
                    if seen[card as usize] {
                        return Err(tok.error(format!("card `{}` appears twice in case {case}", tok.text)).into());
                    }
                    seen[card as usize] = true;
                    deck.push(card as u8);
                }
            }
            if need < 2 * self.rules.peaks {
                return Err(mline
                    .error(format!(
                        "M = {m} gives {need} cards, fewer than the {} the peaks need",
                        2 * self.rules.peaks
                    ))
                    .into());
            }
            each(case, player, &deck, mline.number)?;
        }
    }

    /// The value of a case for the first player, within `--max-nodes`.
    fn solve(&self, case: i64, deck: &[u8], m_line: usize, tt: &mut Tt) -> Result<i32, RunError> {
        let budget = crate::game::max_nodes().unwrap_or(u64::MAX);
        match self.rules.solve_with(deck, tt, budget) {
            Some((v0, _)) => Ok(v0),
            None => Err(RunError::Limit(format!(
                "the search of case {case} (line {}) needs more than {budget} nodes (--max-nodes)",
                m_line - 1
            ))),
        }
    }

    /// Writes the output line of a case worth `v0` to the first player.
    fn verdict(&self, buf: &mut Vec<u8>, case: i64, player: usize, v0: i32) {
        let v = if player == 0 { v0 } else { -v0 };
        let vals = |amount: i64| [Val::Int(case), Val::Str(&self.players[player]), Val::Int(amount)];
        if v > 0 {
            self.wins.line(buf, &vals(v as i64));
        } else if v < 0 {
            self.loses.line(buf, &vals(-(v as i64)));
        } else {
            self.tie.line(
                buf,
                &[
                    Val::Int(case),
                    Val::Str(&self.players[0]),
                    Val::Str(&self.players[1]),
                    Val::Str(&self.players[player]),
                ],
            );
        }
    }
}

impl crate::game::explain::Explain for Tower {
    /// For each case: one line of perfect play, turn by turn (the card
    /// drawn, the move, the triangle and who scores it), the owner entries
    /// that gave each triangle away, the held cards' worth, and the totals.
    fn explain(&self, input: &str, each: &mut dyn FnMut(Explanation)) -> Result<(), RunError> {
        let mut tt = Tt::default();
        self.cases(input, |case, player, deck, m_line| {
            let v0 = self.solve(case, deck, m_line, &mut tt)?;
            let (line, held) = self.rules.principal_line(deck, &mut tt);
            let name = |c: u8| self.deck.card_name(c as u16);
            let sp = &self.spans;
            let mut e = Explanation::default();
            let mut buf = Vec::new();
            self.verdict(&mut buf, case, player, v0);
            e.output = String::from_utf8_lossy(&buf).trim_end().to_string();

            let first = line.first().map_or(0, |t| t.mover as usize);
            let by_card = self.rules.first_by_card.iter().any(|&p| p != self.rules.first_by_card[0]);
            let why = if by_card {
                format!("moves first: the first card, {}, is of this player's colour", name(deck[0]))
            } else {
                "moves first".to_string()
            };
            e.rules.push((sp.players[first], why));
            e.rules.push((sp.first, format!("{} takes the first turn", self.players[first])));
            let peaks: Vec<String> =
                (0..self.rules.peaks).map(|i| format!("{} {}", name(deck[2 * i]), name(deck[2 * i + 1]))).collect();
            e.rules.push((sp.peaks, format!("the peaks: {}", peaks.join(" | "))));

            let k = sp.colours;
            let mut scores = [0i64; 2];
            let mut used: Vec<(usize, usize, i64)> = Vec::new(); // (owner entry, triangles, points)
            for (i, turn) in line.iter().enumerate() {
                let who = &self.players[turn.mover as usize];
                let what = match turn.action {
                    Action::Hold => "holds it".to_string(),
                    Action::Floor { level, place, card } if card == turn.card => {
                        format!("lays it on valley {} of level {}", place + 1, level + 1)
                    }
                    Action::Floor { level, place, card } => format!(
                        "lays the held {} on valley {} of level {}, holds {}",
                        name(card),
                        place + 1,
                        level + 1,
                        name(turn.card)
                    ),
                    Action::Peak { level, place, left, right } => format!(
                        "builds the peak {} {} on level {} at place {}",
                        name(left),
                        name(right),
                        level + 1,
                        place + 1
                    ),
                };
                let scored = match turn.triangle {
                    Some(tri) => {
                        let owner = if turn.gain >= 0 { turn.mover as usize } else { 1 - turn.mover as usize };
                        let pts = turn.gain.unsigned_abs() as i64;
                        scores[owner] += pts;
                        let mut key = tri.map(|c| sp.colour[c as usize]);
                        key.sort_unstable();
                        let entry = (key[0] * k + key[1]) * k + key[2];
                        match used.iter_mut().find(|u| u.0 == entry) {
                            Some(u) => (u.1, u.2) = (u.1 + 1, u.2 + pts),
                            None => used.push((entry, 1, pts)),
                        }
                        format!(": triangle {} scores {pts} for {}", tri.map(name).join(" "), self.players[owner])
                    }
                    None => String::new(),
                };
                e.values.push((format!("turn {}: {who} draws {}", i + 1, name(turn.card)), format!("{what}{scored}")));
            }
            for (entry, n, pts) in used {
                let s = if n == 1 { "" } else { "s" };
                e.rules.push((sp.owner[entry], format!("{n} triangle{s}, {pts} points")));
            }
            for (p, h) in held.iter().enumerate() {
                if let Some(c) = h {
                    let v = self.rules.held[p][*c as usize] as i64;
                    scores[p] += v;
                    let span = if sp.colour[*c as usize] == sp.player_colour[p] { sp.held_own } else { sp.held_other };
                    e.rules.push((span, format!("{} holds {} at the end: {v:+}", self.players[p], name(*c))));
                    e.values.push((format!("{} holds at the end", self.players[p]), format!("{} ({v:+})", name(*c))));
                }
            }
            let template = match (if player == 0 { v0 } else { -v0 }).signum() {
                1 => sp.wins,
                -1 => sp.loses,
                _ => sp.tie,
            };
            e.rules.push((template, "writes the line".to_string()));
            e.summary = format!(
                "case {case}: both play perfectly; {} scores {} and {} scores {}",
                self.players[0], scores[0], self.players[1], scores[1]
            );
            each(e);
            Ok(())
        })
    }
}
