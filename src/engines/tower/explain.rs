//! Explanations of the tower engine: one line of perfect play, turn by
//! turn (the card drawn, the move, the triangle and who scores it), the
//! owner entries that gave each triangle away, the held cards' worth, and
//! the totals.

use super::{Action, Case, FirstRule, Tower, Tt};
use crate::game::picture::Picture;
use crate::game::Explanation;

impl Tower {
    /// Explains a case worth `v0` to the first player.
    pub(super) fn explain_case(&self, case: &Case, tt: &mut Tt, v0: i32) -> Explanation {
        let (line, held) = self.rules.principal_line(&case.deck, case.player, tt);
        let name = |c: u8| self.deck.card_name(c as u16);
        let sp = &self.spans;
        let mut e = Explanation::default();
        let mut buf = Vec::new();
        self.verdict(&mut buf, case, v0);
        e.output = String::from_utf8_lossy(&buf).trim_end().to_string();

        let first = self.rules.first_mover(&case.deck, case.player) as usize;
        e.rules.push((sp.players[first], self.why_first(case)));
        e.rules.push((sp.first, format!("{} takes the first turn", self.players[first])));
        let peaks: Vec<String> = (0..self.rules.peaks)
            .map(|i| format!("{} {}", name(case.deck[2 * i]), name(case.deck[2 * i + 1])))
            .collect();
        e.rules.push((sp.peaks, format!("the peaks: {}", peaks.join(" | "))));

        let k = sp.colours;
        let mut scores = [0i64; 2];
        let mut used: Vec<(usize, usize, i64)> = Vec::new(); // (owner entry, triangles, points)
        let mut scored: Vec<Option<(usize, i64)>> = Vec::new(); // per turn: (owner, points)
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
                    "builds the peak {} {} on level {} at place {}{}",
                    name(left),
                    name(right),
                    level + 1,
                    place + 1,
                    if turn.card != left && turn.card != right {
                        format!(", holds {}", name(turn.card))
                    } else {
                        String::new()
                    }
                ),
            };
            let scored = match turn.triangle {
                Some(tri) => {
                    let mut key = tri.map(|c| sp.colour[c as usize]);
                    key.sort_unstable();
                    let entry = (key[0] * k + key[1]) * k + key[2];
                    let owner = sp.owner_of[entry];
                    // The turn's gain is the mover's: the owner's points.
                    let pts = if owner == turn.mover as usize { turn.gain } else { -turn.gain } as i64;
                    scores[owner] += pts;
                    scored.push(Some((owner, pts)));
                    match used.iter_mut().find(|u| u.0 == entry) {
                        Some(u) => (u.1, u.2) = (u.1 + 1, u.2 + pts),
                        None => used.push((entry, 1, pts)),
                    }
                    format!(": triangle {} scores {pts} for {}", tri.map(name).join(" "), self.players[owner])
                }
                None => {
                    scored.push(None);
                    String::new()
                }
            };
            e.values.push((format!("turn {}: {who} draws {}", i + 1, name(turn.card)), format!("{what}{scored}")));
        }
        let mut formulas: Vec<(crate::source::Span, usize)> = Vec::new();
        for &(entry, n, pts) in &used {
            let s = if n == 1 { "" } else { "s" };
            e.rules.push((sp.owner[entry], format!("{n} triangle{s}, {pts} points")));
            match formulas.iter_mut().find(|f| f.0 == sp.points[entry]) {
                Some(f) => f.1 += n,
                None => formulas.push((sp.points[entry], n)),
            }
        }
        for (span, n) in formulas {
            let s = if n == 1 { "" } else { "s" };
            e.rules.push((span, format!("gives the points of {n} triangle{s}")));
        }
        self.explain_held(&held, &mut scores, &mut e);
        let template = match (if case.player == 0 { v0 } else { -v0 }).signum() {
            1 => sp.wins,
            -1 => sp.loses,
            _ => sp.tie,
        };
        e.rules.push((template, "writes the line".to_string()));
        e.summary = format!(
            "case {}: both play perfectly; {} scores {} and {} scores {}",
            case.number, self.players[0], scores[0], self.players[1], scores[1]
        );
        e.picture = Some(Picture::Tower(self.house(case, &line, &scored)));
        e
    }

    /// Why the first mover moves first.
    fn why_first(&self, case: &Case) -> String {
        let name = |c: u8| self.deck.card_name(c as u16);
        match (self.spans.first_rule, self.rules.first_varies()) {
            (_, false) => "moves first".to_string(),
            (FirstRule::ByColour, true) => {
                format!("moves first: the first card, {}, is of this player's colour", name(case.deck[0]))
            }
            (FirstRule::Expr, true) => format!(
                "moves first: `first` gives this player when the first card is {} and the case names {}",
                name(case.deck[0]),
                self.players[case.player]
            ),
        }
    }

    /// The cards held at the end, each with its worth (added to `scores`).
    fn explain_held(&self, held: &[Vec<u8>; 2], scores: &mut [i64; 2], e: &mut Explanation) {
        let sp = &self.spans;
        for (p, hand) in held.iter().enumerate() {
            for &c in hand {
                let (v, card) = (self.rules.held[p][c as usize] as i64, self.deck.card_name(c as u16));
                scores[p] += v;
                let span = if sp.colour[c as usize] == sp.player_colour[p] { sp.held_own } else { sp.held_other };
                e.rules.push((span, format!("{} holds {card} at the end: {v:+}", self.players[p])));
                e.values.push((format!("{} holds at the end", self.players[p]), format!("{card} ({v:+})")));
            }
        }
    }
}
