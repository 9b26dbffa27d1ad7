//! Property tests of the referee engine lowered from the real Snooker
//! Referee rule files: random frames of legal strokes (play-again lines and
//! lot lines included) are written as input text by a slow, obvious oracle
//! written from the statement, which also writes the output the statement
//! asks for; the engine must print exactly that. The oracle knows the rule
//! variants by flags (Reds, penalty bounds, nomination, draws on a tie,
//! Reds back on a foul); the engine knows them only from the rule files.
//! A second property plays the engine's own state machine and checks that
//! the points on the table and the scores stay accounted for.

use arbiter::engines::referee::{Referee, State, Stroke};
use arbiter::game::{run_text, RunError, RunOptions};
use proptest::prelude::*;

use crate::referees::{referee, variant};

/// The rules of a variant, as the oracle knows them.
#[derive(Debug, Clone, Copy)]
struct Rules {
    reds: u32,
    penalty: (i64, i64),
    /// The colour nominated by default is the highest, not the lowest.
    nominate_highest: bool,
    draw_on_tie: bool,
    reds_back_on_foul: bool,
}

const BASE: Rules =
    Rules { reds: 15, penalty: (4, 7), nominate_highest: false, draw_on_tie: false, reds_back_on_foul: false };

const COLOURS: [(&str, i64); 6] = [("Yellow", 2), ("Green", 3), ("Brown", 4), ("Blue", 5), ("Pink", 6), ("Black", 7)];

fn value(name: &str) -> i64 {
    match name {
        "Red" => 1,
        "White" | "None" => 0,
        c => COLOURS.iter().find(|(n, _)| *n == c).unwrap().1,
    }
}

/// The statement's referee, written plainly over names.
struct Oracle {
    rules: Rules,
    names: [String; 2],
    reds: u32,
    /// Colours on the table, in the order of the statement.
    colours: [bool; 6],
    after_red: bool,
    colours_phase: bool,
    player: usize,
    scores: [i64; 2],
    /// After a foul that did not end the frame: (offender, in hand).
    last_foul: Option<(usize, bool)>,
    /// A tie waits for its lot line.
    lot_due: bool,
    over: bool,
    out: Vec<String>,
}

impl Oracle {
    fn new(rules: Rules, names: [String; 2], frame: usize) -> Self {
        let mut out = Vec::new();
        if frame > 1 {
            out.push(String::new());
        }
        out.push(format!("Frame {frame}"));
        out.push(format!("{}'s turn, in-hand", names[0]));
        Oracle {
            rules,
            names,
            reds: rules.reds,
            colours: [true; 6],
            after_red: false,
            colours_phase: false,
            player: 0,
            scores: [0, 0],
            last_foul: None,
            lot_due: false,
            over: false,
            out,
        }
    }

    fn turn(&mut self, p: usize, in_hand: bool) {
        let s = if in_hand { ", in-hand" } else { "" };
        self.out.push(format!("{}'s turn{s}", self.names[p]));
    }

    fn colours_left(&self) -> Vec<&'static str> {
        COLOURS.iter().zip(self.colours).filter(|(_, on)| *on).map(|((n, _), _)| *n).collect()
    }

    /// The ball on, for a stroke that hits `first` first.
    fn on(&self, first: &str) -> &'static str {
        if self.colours_phase {
            self.colours_left()[0]
        } else if self.after_red {
            match COLOURS.iter().find(|c| c.0 == first) {
                Some(c) => c.0,
                None if self.rules.nominate_highest => "Black",
                None => "Yellow",
            }
        } else {
            "Red"
        }
    }

    fn stroke(&mut self, first: &str, potted: &[&str]) {
        self.last_foul = None;
        let only_black = self.colours_phase && self.colours_left().len() == 1;
        let on = self.on(first);
        let objs: Vec<&str> = potted.iter().copied().filter(|p| *p != "White").collect();
        let white = potted.contains(&"White");
        let foul = first == "None" || first != on || white || objs.iter().any(|p| *p != on);
        let (lo, hi) = self.rules.penalty;
        if foul {
            let worst = potted.iter().map(|p| value(p)).chain([value(on), value(first)]).max().unwrap();
            self.scores[1 - self.player] += worst.max(lo).min(hi);
            self.out.push("Foul!".to_string());
        } else {
            self.scores[self.player] += objs.iter().map(|p| value(p)).sum::<i64>();
        }
        self.out.push(format!("{} : {}", self.scores[0], self.scores[1]));
        if only_black && (foul || !objs.is_empty()) {
            if self.scores[0] != self.scores[1] {
                let w = if self.scores[0] > self.scores[1] { 0 } else { 1 };
                self.out.push(format!("{} wins", self.names[w]));
                self.over = true;
            } else if self.rules.draw_on_tie {
                self.out.push("Draw".to_string());
                self.over = true;
            } else {
                // The black is respotted whatever happened to it.
                self.out.push("Tie".to_string());
                self.out.push("Respot Black".to_string());
                self.lot_due = true;
            }
            return;
        }
        let reds_potted = objs.iter().filter(|p| **p == "Red").count() as u32;
        let mut respot: Vec<&str> = Vec::new();
        if self.rules.reds_back_on_foul && foul {
            respot.extend(std::iter::repeat_n("Red", reds_potted as usize));
        } else {
            self.reds -= reds_potted;
        }
        for (i, (name, _)) in COLOURS.iter().enumerate() {
            if objs.contains(name) {
                if !self.colours_phase || foul {
                    respot.push(name);
                } else {
                    self.colours[i] = false;
                }
            }
        }
        if !respot.is_empty() {
            self.out.push(format!("Respot {}", respot.join(" ")));
        }
        let ends = foul || objs.is_empty();
        if !self.colours_phase {
            let was = self.after_red;
            self.after_red = !ends && !was && reds_potted > 0;
            if !self.after_red && self.reds == 0 {
                self.colours_phase = true;
            }
        }
        if ends {
            let offender = self.player;
            self.player = 1 - self.player;
            self.turn(self.player, white);
            if foul {
                self.last_foul = Some((offender, white));
            }
        }
    }

    fn play_again(&mut self) {
        let (offender, in_hand) = self.last_foul.take().expect("after a foul");
        self.player = offender;
        self.turn(offender, in_hand);
    }

    fn lot(&mut self, p: usize) {
        self.lot_due = false;
        self.player = p;
        self.after_red = false;
        self.turn(p, true);
    }
}

/// Random decisions: the proptest values, then zeros.
struct Choices<'a>(std::slice::Iter<'a, u32>);

impl Choices<'_> {
    fn next(&mut self) -> Option<u32> {
        self.0.next().copied()
    }
}

/// Writes one frame to `input` and its expected output to the oracle:
/// random strokes while the choices last, then a clearance that ends it.
fn frame(o: &mut Oracle, input: &mut String, ch: &mut Choices) {
    let line = |input: &mut String, words: &[&str]| {
        input.push_str(&words.join(" "));
        input.push('\n');
    };
    let mut guard = 0;
    while !o.over {
        guard += 1;
        assert!(guard < 10_000, "the clearance ends every frame");
        if o.lot_due {
            let p = ch.next().unwrap_or(0) as usize % 2;
            line(input, &[o.names[p].as_str()]);
            o.lot(p);
            continue;
        }
        let Some(c) = ch.next() else {
            // The clearance: pot the ball on, fairly.
            let on = o.on("Yellow");
            line(input, &[on, on]);
            o.stroke(on, &[on]);
            continue;
        };
        if o.last_foul.is_some() && c % 5 == 0 {
            line(input, &["Play", "again"]);
            o.play_again();
            continue;
        }
        let colours = o.colours_left();
        let mut table: Vec<&str> = colours.clone();
        if o.reds > 0 {
            table.push("Red");
        }
        let on = o.on("Yellow");
        let first = match c % 20 {
            0 => "None",
            1 | 2 => table[(c as usize / 20) % table.len()],
            _ if on == "Red" || o.colours_phase => on,
            _ => colours[(c as usize / 20) % colours.len()],
        };
        let d = ch.next().unwrap_or(0);
        let mut potted: Vec<&str> = Vec::new();
        if first != "None" && !d.is_multiple_of(4) {
            potted.push(first);
            if first == "Red" && d % 7 == 1 && o.reds >= 2 {
                potted.push("Red");
            }
        }
        if d % 23 == 5 {
            potted.push("White");
        }
        if d % 29 == 3 {
            let extra = table[(d as usize / 29) % table.len()];
            let already = potted.iter().filter(|p| **p == extra).count() as u32;
            let there = if extra == "Red" { o.reds } else { 1 };
            if already < there {
                potted.push(extra);
            }
        }
        let mut words = vec![first];
        words.extend(&potted);
        line(input, &words);
        o.stroke(first, &potted);
    }
}

/// Runs random frames through the oracle and the engine: same output.
fn agree(r: &Referee, rules: Rules, choices: &[u32], frames: usize) -> Result<(), TestCaseError> {
    let mut input = format!("{frames}\n");
    let mut want = String::new();
    let mut ch = Choices(choices.iter());
    for k in 1..=frames {
        let names = [format!("Ann{k}"), format!("Bob{k}")];
        input.push_str(&format!("\n{} {}\n", names[0], names[1]));
        let mut o = Oracle::new(rules, names, k);
        frame(&mut o, &mut input, &mut ch);
        for l in &o.out {
            want.push_str(l);
            want.push('\n');
        }
    }
    let (got, result) = run_text(r, &input, &RunOptions::default());
    prop_assert!(result.is_ok(), "{result:?} on\n{input}");
    prop_assert_eq!(got, want, "on input\n{}", input);
    Ok(())
}

fn choices() -> impl Strategy<Value = Vec<u32>> {
    proptest::collection::vec(any::<u32>(), 1..400)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn the_base_game_agrees_with_the_oracle(c in choices(), frames in 1usize..3) {
        agree(referee("snooker_referee.rules"), BASE, &c, frames)?;
    }

    #[test]
    fn six_reds_agree_with_the_oracle(c in choices(), frames in 1usize..3) {
        agree(referee("snooker_referee/six-red.rules"), Rules { reds: 6, ..BASE }, &c, frames)?;
    }

    #[test]
    fn seven_penalty_agrees_with_the_oracle(c in choices()) {
        agree(referee("snooker_referee/seven-penalty.rules"), Rules { penalty: (7, 7), ..BASE }, &c, 1)?;
    }

    #[test]
    fn draw_on_tie_agrees_with_the_oracle(c in choices(), frames in 1usize..4) {
        agree(referee("snooker_referee/draw-on-tie.rules"), Rules { draw_on_tie: true, ..BASE }, &c, frames)?;
    }

    #[test]
    fn reds_back_on_foul_agrees_with_the_oracle(c in choices(), frames in 1usize..3) {
        let rules = Rules { reds_back_on_foul: true, ..BASE };
        agree(referee("snooker_referee/reds-back-on-foul.rules"), rules, &c, frames)?;
    }

    /// Variants nobody listed, each a few lines extending the base.
    #[test]
    fn unlisted_variants_agree_with_the_oracle(c in choices()) {
        let ten = variant(
            "ten-red",
            "ball \"Red\" { count: 10 }\npenalty { min: 3  max: 6 }\nplay { nominate: highest }",
        );
        let rules = Rules { reds: 10, penalty: (3, 6), nominate_highest: true, ..BASE };
        agree(ten, rules, &c, 1)?;
        let both = variant(
            "draw-and-reds-back",
            "ball \"Red\" { count: 4 }\ntie { draw: yes }\noutput { draw: \"Draw\" }\nrespot { first-phase-foul: potted }",
        );
        let rules = Rules { reds: 4, draw_on_tie: true, reds_back_on_foul: true, ..BASE };
        agree(both, rules, &c, 2)?;
        // Reds back on a foul, written with `if` in one key.
        let with_if = variant("reds-back-with-if", "respot { first-phase: if(foul, potted, potted - Red) }");
        agree(with_if, Rules { reds_back_on_foul: true, ..BASE }, &c, 1)?;
    }
}

fn table_value(r: &Referee, st: &State) -> i64 {
    st.counts.iter().enumerate().map(|(i, &c)| c as i64 * r.values[i]).sum()
}

/// Plays random legal strokes on the engine's own state machine up to the
/// end of the frame: scores never decrease, their sum is the fair points
/// plus the penalties, and every fair point left the table (respotted
/// balls came back), whatever the rule file.
fn accounted(r: &Referee, choices: &[u32]) -> Result<(), TestCaseError> {
    let mut st = r.start();
    let (mut penalties, mut fair) = (0i64, 0i64);
    let initial = table_value(r, &st);
    let mut off_table = 0i64;
    let mut it = choices.iter().copied();
    while let Some(c) = it.next() {
        let table: Vec<usize> = (0..r.names.len()).filter(|&i| i != r.cue && st.counts[i] > 0).collect();
        let first = if c % 11 == 0 { None } else { Some(table[(c as usize / 11) % table.len()]) };
        let d = it.next().unwrap_or(0);
        let mut potted = Vec::new();
        if let Some(f) = first {
            for _ in 0..(d % 3).min(st.counts[f]) {
                potted.push(f);
            }
        }
        if d % 13 == 1 {
            potted.push(r.cue);
        }
        let before = st.clone();
        let o = r.stroke(&mut st, &Stroke { first, potted: potted.clone() }).unwrap();
        prop_assert!(st.scores[0] >= before.scores[0] && st.scores[1] >= before.scores[1]);
        penalties += o.penalty;
        fair += o.points;
        prop_assert_eq!(st.scores[0] + st.scores[1], fair + penalties);
        prop_assert!(o.foul || o.points == potted.iter().map(|&b| r.values[b]).sum::<i64>());
        if o.ending.is_some() {
            break;
        }
        let gone: i64 = potted.iter().filter(|&&b| b != r.cue && o.respot >> b & 1 == 0).map(|&b| r.values[b]).sum();
        off_table += gone;
        prop_assert_eq!(table_value(r, &st) + off_table, initial);
        let left: u32 = (0..r.names.len()).filter(|&i| i != r.cue).map(|i| st.counts[i]).sum();
        prop_assert_eq!(st.left, left, "`left` counts the object balls");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn points_and_balls_stay_accounted_for(choices in proptest::collection::vec(any::<u32>(), 1..300)) {
        for file in ["snooker_referee.rules", "snooker_referee/reds-back-on-foul.rules", "snooker_referee/snooker-plus.rules"] {
            accounted(referee(file), &choices)?;
        }
    }
}

const WORDS: [&str; 14] =
    ["Red", "Yellow", "Black", "White", "None", "Play", "again", "Ann", "Bob", "1", "2", "\n", "\n", "Purple"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Any input, however broken, ends in output or an input error whose
    /// offset lies inside the input: never a panic.
    #[test]
    fn arbitrary_inputs_never_panic(words in proptest::collection::vec(0..WORDS.len(), 0..400), head in 0u8..4) {
        for file in ["snooker_referee.rules", "snooker_referee/draw-on-tie.rules", "snooker_referee/reds-back-on-foul.rules"] {
            let r = referee(file);
            let mut input = format!("{head}\nAnn Bob\n");
            for &w in &words {
                input.push_str(WORDS[w]);
                input.push(' ');
            }
            match run_text(r, &input, &RunOptions::default()).1 {
                Ok(()) => {}
                Err(RunError::Input(e)) => prop_assert!(e.offset + e.len <= input.len()),
                Err(RunError::Io(e)) => prop_assert!(false, "io error {e}"),
                Err(RunError::Limit(m)) => prop_assert!(false, "no limit is set, yet {m}"),
            }
        }
    }
}
