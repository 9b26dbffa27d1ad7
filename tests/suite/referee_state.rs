//! The referee's frame state and frame endings (issue 26), each against a
//! slow, obvious oracle: `remaining` against an exhaustive search of fair
//! pots; fouls in a row, strokes and visits against a recount of the
//! strokes played; `count` of balls against the balls listed; the
//! `concession` ending of rules/snooker_referee/concede.rules against its
//! definition. Then the frames that could get stuck
//! (tests/fixtures/referee/, copies of `../shared/hardening/turn3/`):
//! refused by `check`, or played to their end as the file says.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

use arbiter::engines::referee::{Ending, Referee, State, Stroke};
use proptest::prelude::*;

use crate::referees::{referee, referee_at, variant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The most points fair pots can still score from `st` (other strokes
/// between them scoring nothing), by trying every pot of one ball or of
/// several of a kind (remembered by the table's state).
fn best(r: &Referee, st: &State, seen: &mut HashMap<(Vec<u32>, bool, bool), i64>) -> i64 {
    let key = (st.counts.clone(), st.after_alternate, st.second_phase);
    if let Some(&v) = seen.get(&key) {
        return v;
    }
    let mut most = 0;
    for b in 0..r.names.len() {
        if b == r.cue || st.counts[b] == 0 {
            continue;
        }
        // One ball, or several of a kind at once.
        for k in 1..=st.counts[b] as usize {
            let mut next = st.clone();
            let o = r.stroke(&mut next, &Stroke { first: Some(b), potted: vec![b; k] }).unwrap();
            if o.foul {
                break;
            }
            let rest = if o.ending.is_some() { 0 } else { best(r, &next, seen) };
            most = most.max(o.points + rest);
        }
    }
    // After an alternate ball, a stroke that pots nothing (a miss, or a
    // ball hit and nothing potted: a foul, no points counted) leads back
    // to the alternate balls: worth it when no sequence ball is left, if
    // it does not end the frame.
    if st.after_alternate {
        let hits = (0..r.names.len()).filter(|&b| b != r.cue && st.counts[b] > 0).map(Some);
        for first in std::iter::once(None).chain(hits) {
            let mut next = st.clone();
            let o = r.stroke(&mut next, &Stroke { first, potted: vec![] }).unwrap();
            if o.ending.is_none() {
                most = most.max(o.points + best(r, &next, seen));
            }
        }
    }
    seen.insert(key, most);
    most
}

/// Whether ball `b` is a ball of the sequence.
fn seq(r: &Referee, b: usize) -> bool {
    r.sequence.contains(&b)
}

/// A legal stroke from `st` chosen by two numbers.
fn some_stroke(r: &Referee, st: &State, c: u32, d: u32) -> Stroke {
    let table: Vec<usize> = (0..r.names.len()).filter(|&i| i != r.cue && st.counts[i] > 0).collect();
    let first = if c.is_multiple_of(11) { None } else { Some(table[(c as usize / 11) % table.len()]) };
    let mut potted = Vec::new();
    if let Some(f) = first {
        for _ in 0..(d % 3).min(st.counts[f]) {
            potted.push(f);
        }
    }
    if d % 13 == 1 {
        potted.push(r.cue);
    }
    Stroke { first, potted }
}

#[test]
fn remaining_at_the_start_is_the_maximum_break() {
    let mut seen = HashMap::new();
    let r = referee("snooker_referee.rules");
    assert_eq!(r.remaining(&r.start()), 147);
    assert_eq!(best(r, &r.start(), &mut seen), 147);
    let six = referee("snooker_referee/six-red.rules");
    assert_eq!(six.remaining(&six.start()), 6 * 8 + 27);
}

/// One stroke of each kind from `st`, each with what it is: a miss, an
/// in-off, and for every ball on the table a hit potting nothing, that
/// ball (one, and every one of its kind), that ball with the cue ball, and
/// every other ball on the table.
fn strokes_of_each_kind(r: &Referee, st: &State) -> Vec<(String, Stroke)> {
    let name = |b: usize| r.names[b].clone();
    let mut out = vec![
        ("a miss".to_string(), Stroke { first: None, potted: vec![] }),
        ("an in-off".to_string(), Stroke { first: None, potted: vec![r.cue] }),
    ];
    let on_table: Vec<usize> = (0..r.names.len()).filter(|&b| b != r.cue && st.counts[b] > 0).collect();
    for &b in &on_table {
        let what = if seq(r, b) { "a sequence ball" } else { "an alternate ball" };
        out.push((format!("{} hit, nothing potted", name(b)), Stroke { first: Some(b), potted: vec![] }));
        out.push((format!("{what} potted ({})", name(b)), Stroke { first: Some(b), potted: vec![b] }));
        let all = st.counts[b] as usize;
        out.push((format!("every {} potted", name(b)), Stroke { first: Some(b), potted: vec![b; all] }));
        out.push((format!("{} potted with the cue ball", name(b)), Stroke { first: Some(b), potted: vec![b, r.cue] }));
        for &c in on_table.iter().filter(|&&c| c != b) {
            let what = format!("{} hit, {} potted", name(b), name(c));
            out.push((what, Stroke { first: Some(b), potted: vec![c] }));
        }
    }
    out
}

/// After every kind of stroke, from every state such strokes reach in
/// small games (with and without respots, with more colours), `remaining`
/// is what the search finds.
#[test]
fn remaining_is_exact_after_every_kind_of_stroke() {
    let no_respot = "respot { first-phase: [] second-phase: [] second-phase-foul: [] }\n\
                     ending \"cleared\" { when: left == 0  winner: leader  output: \"{player}\" }";
    let mut games = Vec::new();
    for reds in 1..=3 {
        games.push(variant(&format!("kinds-reds{reds}"), &format!("ball \"Red\" {{ count: {reds} }}")));
        games.push(variant(
            &format!("kinds-reds{reds}-no-respot"),
            &format!("ball \"Red\" {{ count: {reds} }}\n{no_respot}"),
        ));
    }
    games.push(variant("kinds-plus", "ball \"Red\" { count: 2 }\nball \"Orange\" { value: 8 }\nplay { sequence: Yellow Green Brown Blue Pink Black Orange }"));
    for r in &games {
        let mut seen = HashMap::new();
        let mut visited = std::collections::HashSet::new();
        let mut todo = vec![("the start".to_string(), r.start())];
        while let Some((how, st)) = todo.pop() {
            if !visited.insert((st.counts.clone(), st.after_alternate, st.second_phase)) {
                continue;
            }
            assert_eq!(r.remaining(&st), best(r, &st, &mut seen), "after {how}: {st:?}");
            for (what, s) in strokes_of_each_kind(r, &st) {
                let mut next = st.clone();
                if r.stroke(&mut next, &s).unwrap().ending.is_none() && next.left > 0 {
                    todo.push((what, next));
                }
            }
        }
        assert!(visited.len() >= 5, "{}", visited.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// After any legal strokes, `remaining` is what the search finds, in
    /// the base game, a game without respots and a game with more colours.
    #[test]
    fn remaining_is_the_most_fair_pots_can_score(choices in proptest::collection::vec(any::<u32>(), 0..80), reds in 1u32..5) {
        let games = [
            variant(&format!("reds{reds}"), &format!("ball \"Red\" {{ count: {reds} }}")),
            variant(&format!("reds{reds}-no-respot"), &format!(
                "ball \"Red\" {{ count: {reds} }}\nrespot {{ first-phase: [] second-phase: [] second-phase-foul: [] }}\n\
                 ending \"cleared\" {{ when: left == 0  winner: leader  output: \"{{player}}\" }}"
            )),
            referee("snooker_referee/snooker-plus.rules"),
        ];
        for r in &games {
            let mut seen = HashMap::new();
            let mut st = r.start();
            let mut it = choices.iter().copied();
            loop {
                prop_assert_eq!(r.remaining(&st), best(r, &st, &mut seen), "{:?}", st);
                let Some(c) = it.next() else { break };
                let s = some_stroke(r, &st, c, it.next().unwrap_or(0));
                if r.stroke(&mut st, &s).unwrap().ending.is_some() {
                    break;
                }
            }
        }
    }

    /// Fouls in a row, strokes and visits, recounted from the strokes
    /// played so far.
    #[test]
    fn fouls_strokes_and_visits_are_recounted(choices in proptest::collection::vec(any::<u32>(), 0..300)) {
        // A file that reads them (they are kept only then).
        let r = variant("long-frame", "ending \"long\" { when: strokes > 100000 and visits > 100000 and fouls > 1000  draw: yes  output: \"\" }");
        let mut st = r.start();
        // (striker, foul, the visit ended) of each stroke.
        let mut played: Vec<(usize, bool, bool)> = Vec::new();
        let mut it = choices.iter().copied();
        while let Some(c) = it.next() {
            let s = some_stroke(r, &st, c, it.next().unwrap_or(0));
            let striker = st.player;
            let o = r.stroke(&mut st, &s).unwrap();
            played.push((striker, o.foul, o.turn_ends));
            if o.ending.is_some() {
                break;
            }
            prop_assert_eq!(st.strokes, played.len() as i64);
            let visits = 1 + played[..played.len() - 1].iter().filter(|p| p.2).count();
            prop_assert_eq!(st.visits, visits as i64);
            for p in 0..2 {
                let in_a_row = played.iter().rev().filter(|s| s.0 == p).take_while(|s| s.1).count();
                prop_assert_eq!(st.fouls[p] as usize, in_a_row);
            }
        }
    }

    /// `count` counts balls: a penalty that reads the balls potted and on
    /// the table is the number of balls listed and left.
    #[test]
    fn count_counts_balls_not_kinds(choices in proptest::collection::vec(any::<u32>(), 0..200)) {
        let r = variant("count", "penalty { min: 0  max: 100000  value: 1000 * count(potted) + count(table) }");
        let mut st = r.start();
        let mut it = choices.iter().copied();
        while let Some(c) = it.next() {
            let s = some_stroke(r, &st, c, it.next().unwrap_or(0));
            let before = st.clone();
            let o = r.stroke(&mut st, &s).unwrap();
            if o.foul {
                prop_assert_eq!(o.penalty, 1000 * s.potted.len() as i64 + i64::from(before.left));
            }
            if o.ending.is_some() {
                break;
            }
        }
    }

    /// The concession ends the frame after the first stroke after which
    /// the lead is larger than what fair pots can still score (unless the
    /// base game's `end` ended it), and the leader wins.
    #[test]
    fn a_concession_comes_when_the_lead_passes_the_points_left(choices in proptest::collection::vec(any::<u32>(), 0..400)) {
        let r = referee("snooker_referee/concede.rules");
        // The search plays the base game: no concession in its lines.
        let base = referee("snooker_referee.rules");
        let mut seen = HashMap::new();
        let mut st = r.start();
        let mut it = choices.iter().copied();
        while let Some(c) = it.next() {
            let s = some_stroke(r, &st, c, it.next().unwrap_or(0));
            let o = r.stroke(&mut st, &s).unwrap();
            let lead = (st.scores[0] - st.scores[1]).abs();
            match o.ending {
                Some(Ending::Rule { rule: 0, winner }) => {
                    prop_assert!(lead > best(base, &st, &mut seen));
                    let leader = usize::from(st.scores[1] > st.scores[0]);
                    prop_assert_eq!(winner, Some(leader));
                    break;
                }
                Some(_) => break,
                None => prop_assert!(lead <= best(base, &st, &mut seen), "{:?}", st),
            }
        }
    }
}

/// A frame ends after three fouls in a row by one player, the other player
/// winning: against the fouls recounted from the strokes.
#[test]
fn an_ending_after_a_run_of_fouls() {
    let r = variant(
        "three-fouls",
        "ending \"three fouls\" { when: fouls >= 3  winner: opponent  output: \"{loser} fouled thrice\" }",
    );
    let mut st = r.start();
    let miss = Stroke { first: None, potted: vec![] };
    let mut fouls = [0, 0];
    for k in 0.. {
        let striker = st.player;
        let o = r.stroke(&mut st, &miss).unwrap();
        assert!(o.foul);
        fouls[striker] += 1;
        if fouls[striker] == 3 {
            assert_eq!(o.ending, Some(Ending::Rule { rule: 0, winner: Some(1 - striker) }), "stroke {k}");
            break;
        }
        assert_eq!(o.ending, None);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// `play { on }` names the lowest-valued ball on the table, whatever
    /// strokes came before (the oracle: the least value among the balls
    /// left).
    #[test]
    fn the_ball_on_by_rule_is_the_lowest_on_the_table(choices in proptest::collection::vec(any::<u32>(), 0..200)) {
        let r = referee_at(&root().join("tests/fixtures/referee/lowest-ball-on.rules"));
        let mut st = r.start();
        let mut it = choices.iter().copied();
        while let Some(c) = it.next() {
            let lowest = (0..r.names.len()).filter(|&b| b != r.cue && st.counts[b] > 0).min_by_key(|&b| r.values[b]);
            prop_assert_eq!(r.on(&st, None), lowest.map_or(0, |b| 1u64 << b));
            let s = some_stroke(r, &st, c, it.next().unwrap_or(0));
            if r.stroke(&mut st, &s).unwrap().ending.is_some() {
                break;
            }
        }
    }
}

/// The test rule files with worked examples pass them (`arbiter test`).
#[test]
fn the_fixtures_pass_their_examples() {
    let o = bin().args(["test", "tests/fixtures/referee/lowest-ball-on.rules"]).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && out.contains("2 passed, 0 failed"), "{out}");
}

fn bin() -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("arbiter"));
    c.current_dir(root()).env("NO_COLOR", "1");
    c
}

#[test]
fn a_file_whose_frame_can_get_stuck_is_refused() {
    for file in ["no-respot.rules", "one-red-no-respot.rules"] {
        let o = bin().args(["check", &format!("tests/fixtures/referee/{file}")]).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(3), "{err}");
        assert!(err.contains("frame-stuck") && err.contains("-phase-foul") && err.contains("left == 1"), "{err}");
    }
}

#[test]
fn the_same_game_with_an_ending_for_an_empty_table_plays_to_its_end() {
    let rules = "tests/fixtures/referee/one-red-cleared.rules";
    let input = std::fs::read_to_string(root().join("tests/fixtures/referee/stuck.in")).unwrap();
    // The frame ends at the foul that clears the table (line 9): the
    // strokes after it are input after the last frame.
    let o = bin().args(["run", rules, "tests/fixtures/referee/stuck.in"]).output().unwrap();
    assert_eq!(o.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&o.stderr).contains("line 10"));
    let played: String = input.lines().take(9).map(|l| format!("{l}\n")).collect();
    let dir = std::env::temp_dir().join(format!("arbiter-referee-state-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("played.in"), &played).unwrap();
    let o = bin().args(["run", rules]).arg(dir.join("played.in")).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    // Ann scores Red, then Yellow to Pink (1 + 2 + 3 + 4 + 5); potting
    // Black with the Pink is a foul worth 7 to Bob, and nothing comes back.
    let r = referee_at(&root().join(rules));
    let mut st = r.start();
    let ball = |n: &str| r.names.iter().position(|b| b == n).unwrap();
    for line in played.lines().skip(3) {
        let words: Vec<usize> = line.split_whitespace().map(ball).collect();
        let o = r.stroke(&mut st, &Stroke { first: Some(words[0]), potted: words[1..].to_vec() }).unwrap();
        if o.ending.is_some() {
            break;
        }
    }
    assert_eq!(st.left, 0);
    let want = format!("Ann wins, the table cleared at {} : {}\n", st.scores[0], st.scores[1]);
    assert!(out.ends_with(&want), "{out}");
    assert_eq!(st.scores, [15, 7]);
}
