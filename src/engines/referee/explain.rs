//! `run --explain` for the referee: each stroke's lines with the rules of
//! the file that made them (the ball on and why, the foul conditions that
//! held, the penalty and its bounds, the respot rule, the end of the frame).

use super::memo::Memo;
use super::{Ending, Event, Foul, Referee, State, Stroke, StrokeResult};
use crate::expr::Env;
use crate::game::records::Counted;
use crate::game::{Explanation, Input, Output, RunError};
use crate::source::Span;

/// What [`Referee::stroke_explanation`] reads of one stroke: the state
/// before it, the stroke, what it did and the state after it.
struct Played<'a> {
    was: &'a State,
    stroke: &'a Stroke,
    outcome: &'a StrokeResult,
    striker: usize,
    after: &'a State,
    players: [&'a str; 2],
}

impl Referee {
    /// The balls of `mask` by value, or `nothing`.
    fn list(&self, mask: u64) -> String {
        let names: Vec<&str> =
            self.by_value.iter().filter(|&&b| mask >> b & 1 == 1).map(|&b| self.names[b].as_str()).collect();
        if names.is_empty() {
            "nothing".to_string()
        } else {
            names.join(" ")
        }
    }

    /// Referees every frame and explains each stroke's lines: the ball on
    /// and the rule that made it so, the foul conditions that held, the
    /// penalty formula's value and its bounds, the points, the respot rule,
    /// the end of the frame.
    pub fn explain(
        &self,
        input: &mut Input,
        each: &mut dyn FnMut(Explanation) -> Result<(), RunError>,
    ) -> Result<(), RunError> {
        let mut sink = std::io::sink();
        let mut out = Output::new(&mut sink);
        let mut before: Option<(State, Stroke)> = None;
        let text = |lines: &[u8]| String::from_utf8_lossy(lines).trim_end().to_string();
        let sp = &self.spans;
        let note = |lines: &[u8], summary: String, span: Span, rule: &str| Explanation {
            output: text(lines),
            summary,
            rules: vec![(span, rule.to_string())],
            ..Default::default()
        };
        self.run_frames::<true>(
            input,
            &mut Counted::default(),
            None,
            &mut Memo::default(),
            &mut out,
            &mut |event, lines| match event {
                Event::Frame { frame } => each(note(
                    lines,
                    format!("frame {frame} starts: the first player named breaks off, from in hand"),
                    sp.frame,
                    "writes the frame's first line",
                )),
                Event::PlayAgain { player, players } => each(note(
                    lines,
                    format!("{} is asked to play again", players[player]),
                    sp.play_again,
                    "the striker plays again, from where the stroke left the cue ball",
                )),
                Event::Lot { player, players } => each(note(
                    lines,
                    format!("{} won the lot and plays next", players[player]),
                    sp.next,
                    "after a tie, a lot names the next player",
                )),
                Event::Before { st, stroke } => {
                    before = Some((st.clone(), stroke.clone()));
                    Ok(())
                }
                Event::Stroke { outcome, striker, st, players } => {
                    let Some((was, stroke)) = before.take() else { return Ok(()) };
                    let played = Played { was: &was, stroke: &stroke, outcome, striker, after: st, players };
                    let mut e = self.stroke_explanation(&played);
                    e.output = text(lines);
                    each(e)
                }
            },
        )?;
        Ok(())
    }

    /// The explanation of one stroke (without its output lines).
    fn stroke_explanation(&self, p: &Played) -> Explanation {
        let (o, players) = (p.outcome, p.players);
        let (sets, mut ints) = self.env_of(p.was, p.stroke);
        ints[super::var::FOUL] = o.foul as i64;
        let ints = self.with_counts(&ints, &p.was.counts, p.stroke);
        let env = Env { sets: &sets, ints: &ints };
        let on = sets[2];
        let mut e = Explanation::default();
        e.rules.push(self.why_on(p.was, p.stroke, on));
        let ball = |b: usize| self.names[b].clone();
        let hit = p.stroke.first.map_or(self.no_hit.clone(), ball);
        let pots: Vec<String> = p.stroke.potted.iter().map(|&b| ball(b)).collect();
        let pots = if pots.is_empty() { "nothing".to_string() } else { pots.join(" ") };
        e.values.push(("first".into(), hit));
        e.values.push(("potted".into(), pots.clone()));
        e.values.push(("on".into(), self.list(on)));
        let fired: Vec<&Foul> = self.fouls.iter().filter(|f| f.when.eval(&env)).collect();
        for f in &fired {
            e.rules.push((f.span, "holds".to_string()));
        }
        let other = players[1 - p.striker];
        if o.foul {
            self.explain_penalty(&mut e, &env);
            let names: Vec<String> = fired.iter().map(|f| format!("`{}`", f.name)).collect();
            e.summary = format!("a foul ({}): {other} receives {}", names.join(", "), o.penalty);
            e.values.push(("penalty".into(), format!("{} to {other}", o.penalty)));
        } else if o.points > 0 {
            let s = if o.points == 1 { "" } else { "s" };
            e.summary = format!("a fair stroke: {} pots {pots} for {} point{s}", players[p.striker], o.points);
        } else {
            e.summary = format!("a fair stroke that pots nothing: {other} comes to the table");
        }
        e.rules.extend(self.explain_ending(p.was, o, players));
        let scores = p.after.scores;
        e.values.push(("score".into(), format!("{} {}, {} {}", players[0], scores[0], players[1], scores[1])));
        e
    }

    /// The rule that made `on` the balls on for this stroke.
    fn why_on(&self, was: &State, stroke: &Stroke, on: u64) -> (Span, String) {
        let sp = &self.spans;
        if self.on_rule.is_some() {
            (sp.on, format!("{} on: the `on` rule", self.list(on)))
        } else if was.second_phase {
            (sp.sequence, format!("{} is on: the first of the sequence still on the table", self.list(on)))
        } else if !was.after_alternate {
            (sp.alternate, format!("{} on: a visit starts on these", self.list(on)))
        } else if stroke.first.is_some_and(|f| self.sequence_mask >> f & 1 == 1) {
            (sp.sequence, format!("{} is on: the ball of the sequence hit first is the one nominated", self.list(on)))
        } else {
            (sp.nominate, format!("{} is on: taken as nominated", self.list(on)))
        }
    }

    /// The penalty formula's value and the bound that changed it, if any.
    fn explain_penalty(&self, e: &mut Explanation, env: &Env) {
        let sp = &self.spans;
        let raw = self.penalty.eval(env);
        e.rules.push((sp.penalty, format!("= {raw}")));
        if raw < self.penalty_min {
            e.rules.push((sp.min, format!("raised to {}", self.penalty_min)));
        } else if raw > self.penalty_max {
            e.rules.push((sp.max, format!("lowered to {}", self.penalty_max)));
        }
        e.rules.push((sp.foul, "writes the foul".to_string()));
    }

    /// The respot rule that applied, or how the stroke ended the frame
    /// (the winner named as the input names the players).
    fn explain_ending(&self, was: &State, o: &StrokeResult, players: [&str; 2]) -> Vec<(Span, String)> {
        let sp = &self.spans;
        match o.ending {
            None if o.respot != 0 => {
                let which = usize::from(was.second_phase) + 2 * usize::from(o.foul);
                vec![(sp.respot[which], format!("{} back on the table", self.list(o.respot)))]
            }
            None => Vec::new(),
            Some(Ending::Rule { rule, winner }) => {
                let r = &self.endings[rule];
                let says = match winner {
                    Some(w) => format!("holds after this stroke: {} wins", players[w]),
                    None => "holds after this stroke: the frame is drawn".to_string(),
                };
                vec![(r.span, says)]
            }
            Some(ending) => {
                let (span, says) = match ending {
                    Ending::Win(_) => (sp.wins, "the scores differ: the higher one wins".to_string()),
                    Ending::Draw => (sp.draw, "the scores are level: the frame is drawn".to_string()),
                    Ending::Replay => {
                        (sp.tie, format!("the scores are level: {} back, the frame goes on", self.list(o.respot)))
                    }
                    Ending::Rule { .. } => return Vec::new(),
                };
                vec![(sp.end, "holds: this stroke ends the frame".to_string()), (span, says)]
            }
        }
    }
}
