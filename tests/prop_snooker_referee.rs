//! Property tests of the referee engine lowered from the real Snooker
//! Referee rule file: random legal strokes are played both by the engine
//! and by a slow, obvious oracle written from the statement; they must
//! agree on every foul, score, respot and turn, scores never decrease, and
//! the value on the table plus the scores stays accounted for.

use arbiter::check::{Block, Cx};
use arbiter::engines::referee::{Referee, State, Stroke};
use arbiter::load::load_path;
use arbiter::source::Span;
use proptest::prelude::*;

fn referee(file: &str) -> Referee {
    referee_at(&std::path::PathBuf::from(format!("{}/rules/{file}", env!("CARGO_MANIFEST_DIR"))))
}

/// An unlisted variant, written as a rule file extending the base: ten
/// Reds, penalties 3 to 6, the highest colour nominated by default.
fn unlisted_variant() -> Referee {
    let dir = std::env::temp_dir().join("arbiter-prop-variants");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("ten-red-{}.rules", std::process::id()));
    let base = format!("{}/rules/snooker_referee.rules", env!("CARGO_MANIFEST_DIR"));
    std::fs::write(
        &path,
        format!("extends: \"{base}\"\nball \"Red\" {{ count: 10 }}\npenalty {{ min: 3  max: 6 }}\nplay {{ nominate: highest }}\n"),
    )
    .unwrap();
    referee_at(&path)
}

fn referee_at(path: &std::path::Path) -> Referee {
    let loaded = load_path(path).unwrap();
    let top = Block::new(&loaded.items, "the rule file", Span::new(0, 0, 0));
    let mut cx = Cx::new();
    let _ = top.prop(&mut cx, "engine");
    arbiter::engines::referee::lower::lower(&top, &mut cx).expect("the rule file lowers")
}

/// The statement's rules, written plainly over names.
struct Oracle {
    reds: u32,
    colours: Vec<(&'static str, i64, bool)>, // name, value, on the table
    after_red: bool,
    colours_phase: bool,
    player: usize,
    scores: [i64; 2],
    max_penalty: i64,
    min_penalty: i64,
    /// The colour nominated by default: the highest instead of the lowest.
    nominate_highest: bool,
}

const COLOURS: [(&str, i64); 6] = [("Yellow", 2), ("Green", 3), ("Brown", 4), ("Blue", 5), ("Pink", 6), ("Black", 7)];

fn value(name: &str) -> i64 {
    match name {
        "Red" => 1,
        "White" | "None" => 0,
        c => COLOURS.iter().find(|(n, _)| *n == c).unwrap().1,
    }
}

impl Oracle {
    fn new(reds: u32, (min_penalty, max_penalty): (i64, i64), nominate_highest: bool) -> Self {
        Oracle {
            reds,
            colours: COLOURS.iter().map(|&(n, v)| (n, v, true)).collect(),
            after_red: false,
            colours_phase: false,
            player: 0,
            scores: [0, 0],
            max_penalty,
            min_penalty,
            nominate_highest,
        }
    }

    /// (foul, respotted names sorted by value, turn ends)
    fn stroke(&mut self, first: &str, potted: &[&str]) -> (bool, Vec<&'static str>, bool) {
        let on: Vec<&str> = if self.colours_phase {
            vec![self.colours.iter().find(|c| c.2).unwrap().0]
        } else if self.after_red {
            vec![if first != "Red" && first != "None" {
                COLOURS.iter().find(|c| c.0 == first).unwrap().0
            } else if self.nominate_highest {
                "Black"
            } else {
                "Yellow"
            }]
        } else {
            vec!["Red"]
        };
        let objs: Vec<&str> = potted.iter().copied().filter(|p| *p != "White").collect();
        let foul = first == "None"
            || !on.contains(&first)
            || potted.contains(&"White")
            || objs.iter().any(|p| !on.contains(p));
        let reds_potted = objs.iter().filter(|p| **p == "Red").count() as u32;
        self.reds -= reds_potted;
        let mut respot = Vec::new();
        for (name, _, on_table) in self.colours.iter_mut() {
            if objs.contains(name) {
                if !self.colours_phase || foul {
                    respot.push(*name);
                } else {
                    *on_table = false;
                }
            }
        }
        if foul {
            let mut p = self.min_penalty;
            for b in on.iter().chain(std::iter::once(&first)).chain(potted.iter()) {
                p = p.max(value(b));
            }
            self.scores[1 - self.player] += p.min(self.max_penalty);
        } else {
            self.scores[self.player] += objs.iter().map(|p| value(p)).sum::<i64>();
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
            self.player = 1 - self.player;
        }
        (foul, respot, ends)
    }
}

fn table_value(r: &Referee, st: &State) -> i64 {
    st.counts.iter().enumerate().map(|(i, &c)| c as i64 * r.values[i]).sum()
}

fn play(r: &Referee, choices: &[u32], penalty: (i64, i64), nominate_highest: bool) -> Result<(), TestCaseError> {
    let idx = |n: &str| r.names.iter().position(|x| x == n).unwrap();
    let mut st = r.start();
    let mut oracle = Oracle::new(st.counts[idx("Red")], penalty, nominate_highest);
    let mut penalties = 0i64;
    let mut fair_points = 0i64;
    let initial = table_value(r, &st);
    let mut off_table = 0i64;
    let mut it = choices.iter().copied();
    while let Some(c) = it.next() {
        if r.last_ball(&st) {
            break; // the end of the frame is covered by the cases
        }
        let table: Vec<usize> = (0..r.names.len()).filter(|&i| i != r.cue && st.counts[i] > 0).collect();
        let on = r.on(&st, None);
        let on_balls: Vec<usize> = if on & (1 << idx("Red")) != 0 || st.second_phase {
            table.iter().copied().filter(|&b| on >> b & 1 == 1).collect()
        } else {
            table.iter().copied().filter(|&b| b != idx("Red")).collect()
        };
        let first = match c % 20 {
            0 => None,
            1 | 2 => Some(table[(c as usize / 20) % table.len()]),
            _ => Some(on_balls[(c as usize / 20) % on_balls.len()]),
        };
        let mut potted = Vec::new();
        let d = it.next().unwrap_or(0);
        if let Some(f) = first {
            if d % 4 != 0 {
                potted.push(f);
                if f == idx("Red") && d % 7 == 1 && st.counts[f] >= 2 {
                    potted.push(f);
                }
            }
        }
        if d % 23 == 5 {
            potted.push(r.cue);
        }
        if d % 29 == 3 {
            let extra = table[(d as usize / 29) % table.len()];
            let already = potted.iter().filter(|&&b| b == extra).count() as u32;
            if already < st.counts[extra] {
                potted.push(extra);
            }
        }
        let before = st.scores;
        let stroke = Stroke { first, potted: potted.clone() };
        let o = r.stroke(&mut st, &stroke);
        let names: Vec<&str> = potted.iter().map(|&b| r.names[b].as_str()).collect();
        let (foul, respot, ends) = oracle.stroke(first.map_or("None", |b| r.names[b].as_str()), &names);
        prop_assert_eq!(o.foul, foul, "foul on {:?}", names);
        let got: Vec<&str> =
            r.by_value.iter().filter(|&&b| o.respot >> b & 1 == 1).map(|&b| r.names[b].as_str()).collect();
        prop_assert_eq!(got, respot);
        prop_assert_eq!(o.turn_ends, ends);
        prop_assert_eq!(st.scores, oracle.scores);
        prop_assert_eq!(st.player, oracle.player);
        prop_assert!(st.scores[0] >= before[0] && st.scores[1] >= before[1], "scores never decrease");
        penalties += o.penalty;
        fair_points += o.points;
        // Every point scored fairly left the table and stayed off it, or
        // came back as a respot: the table, the fair points and the respots
        // balance with the foul-potted balls.
        let gone: i64 = potted.iter().filter(|&&b| b != r.cue && o.respot >> b & 1 == 0).map(|&b| r.values[b]).sum();
        off_table += gone;
        prop_assert_eq!(st.scores[0] + st.scores[1], fair_points + penalties);
        prop_assert_eq!(table_value(r, &st) + off_table, initial);
        // Fair points are balls that left the table (and may have come back).
        prop_assert!(o.foul || o.points == potted.iter().map(|&b| r.values[b]).sum::<i64>());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_engine_agrees_with_the_oracle(choices in proptest::collection::vec(any::<u32>(), 1..300)) {
        play(&referee("snooker_referee.rules"), &choices, (4, 7), false)?;
    }

    #[test]
    fn an_unlisted_variant_agrees_with_the_oracle(choices in proptest::collection::vec(any::<u32>(), 1..200)) {
        play(&unlisted_variant(), &choices, (3, 6), true)?;
    }

    #[test]
    fn six_reds_agree_with_the_oracle(choices in proptest::collection::vec(any::<u32>(), 1..200)) {
        play(&referee("snooker_referee/six-red.rules"), &choices, (4, 7), false)?;
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
        use arbiter::game::{run_text, RunError, RunOptions};
        let r = referee("snooker_referee.rules");
        let mut input = format!("{head}\nAnn Bob\n");
        for w in words {
            input.push_str(WORDS[w]);
            input.push(' ');
        }
        match run_text(&r, &input, &RunOptions::default()).1 {
            Ok(()) => {}
            Err(RunError::Input(e)) => prop_assert!(e.offset + e.len <= input.len()),
            Err(RunError::Io(e)) => prop_assert!(false, "io error {e}"),
            Err(RunError::Limit(m)) => prop_assert!(false, "no limit is set, yet {m}"),
        }
    }
}
