//! `frame-stuck` decided (issue 26): `check`'s exploration of the table
//! states against a slow, obvious oracle. Small referee rule files (a cue
//! ball, one or two alternate balls, one or two sequence balls) are
//! generated from menus of fouls, respot sets, `end` conditions, `on`
//! rules and endings; the oracle plays every stroke the input can give
//! (every ball hit first or none, every multiset of balls potted, with or
//! without the cue ball) through the engine's own `Referee::stroke` from
//! the start of a frame, remembers the states it reaches, and finds a
//! stroke that leaves an empty table without ending the frame, or a state
//! from which no strokes end it. `check` must refuse (`frame-stuck`)
//! exactly the files in which the oracle finds one.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;

use arbiter::check::{Block, Cx};
use arbiter::engines::referee::{Referee, State, Stroke};
use arbiter::load::load_path;
use arbiter::source::Span;
use proptest::prelude::*;

/// `check`'s verdict on the file at `path` (the diagnostics' codes), and
/// the file lowered without that decision, for the oracle.
fn lowered(path: &Path) -> (Vec<&'static str>, Option<Referee>) {
    let loaded = load_path(path).unwrap();
    let top = Block::new(&loaded.items, "the rule file", Span::new(0, 0, 0));
    let mut cx = Cx::new();
    let _ = top.prop(&mut cx, "engine");
    let _ = top.prop(&mut cx, "game");
    let checked = arbiter::engines::referee::lower::lower(&top, &mut cx);
    let codes = cx.diags.iter().map(|d| d.code.as_str()).collect();
    drop(checked);
    let mut cx = Cx::new();
    let _ = top.prop(&mut cx, "engine");
    let _ = top.prop(&mut cx, "game");
    (codes, arbiter::engines::referee::lower::lower_with(&top, &mut cx, false))
}

/// Every stroke from `st`: each ball hit first or none, each multiset of
/// the balls on the table potted, with and without the cue ball.
fn every_stroke(r: &Referee, st: &State) -> Vec<Stroke> {
    let on_table: Vec<usize> = (0..r.names.len()).filter(|&b| b != r.cue && st.counts[b] > 0).collect();
    let mut potted: Vec<Vec<usize>> = vec![Vec::new()];
    for &b in &on_table {
        let mut more = Vec::new();
        for p in &potted {
            for n in 1..=st.counts[b] as usize {
                let mut q = p.clone();
                q.extend(std::iter::repeat_n(b, n));
                more.push(q);
            }
        }
        potted.extend(more);
    }
    let with_cue: Vec<Vec<usize>> = potted.iter().map(|p| [p.clone(), vec![r.cue]].concat()).collect();
    potted.extend(with_cue);
    let firsts = std::iter::once(None).chain(on_table.iter().map(|&b| Some(b)));
    firsts.flat_map(|first| potted.iter().map(move |p| Stroke { first, potted: p.clone() })).collect()
}

/// Whether a frame of `r` can get stuck, by playing every stroke from
/// every state reached (the generated files read no scores, so a state is
/// its balls and phases).
fn oracle_stuck(r: &Referee) -> bool {
    let key = |st: &State| (st.counts.clone(), st.after_alternate, st.second_phase);
    let mut index: HashMap<(Vec<u32>, bool, bool), usize> = HashMap::new();
    let mut states = vec![r.start()];
    index.insert(key(&states[0]), 0);
    let mut next: Vec<HashSet<usize>> = vec![HashSet::new()];
    let mut ends = vec![false];
    let mut todo = VecDeque::from([0]);
    while let Some(i) = todo.pop_front() {
        assert!(states.len() < 5000, "the oracle's games are small");
        for s in every_stroke(r, &states[i].clone()) {
            let mut st = states[i].clone();
            let o = r.stroke(&mut st, &s).unwrap();
            if o.ending.is_some_and(|e| !matches!(e, arbiter::engines::referee::Ending::Replay)) {
                ends[i] = true;
                continue;
            }
            if o.ending.is_none() && st.left == 0 {
                return true;
            }
            let j = *index.entry(key(&st)).or_insert_with(|| {
                states.push(st.clone());
                next.push(HashSet::new());
                ends.push(false);
                todo.push_back(states.len() - 1);
                states.len() - 1
            });
            next[i].insert(j);
        }
    }
    // Which states can reach an end, by repeating until nothing changes.
    loop {
        let mut changed = false;
        for i in 0..states.len() {
            if !ends[i] && next[i].iter().any(|&j| ends[j]) {
                ends[i] = true;
                changed = true;
            }
        }
        if !changed {
            return ends.iter().any(|e| !e);
        }
    }
}

/// A small referee file from menu choices.
fn small_file(c: &[usize; 8], reds: u32, colours: usize) -> String {
    let pick = |menu: &[&'static str], k: usize| menu[c[k] % menu.len()];
    let seq: Vec<&str> = ["Blue", "Pink"][..colours].to_vec();
    let fouls = pick(
        &[
            "foul \"miss\" { when: first == [] }\nfoul \"wrong\" { when: first != [] and first not in on }\n\
             foul \"pot\" { when: potted - White not in on }\nfoul \"in-off\" { when: White in potted }",
            "foul \"miss\" { when: first == [] }\nfoul \"in-off\" { when: White in potted }",
            "foul \"wrong\" { when: first != [] and first not in on }",
        ],
        0,
    );
    let first_phase = pick(&["potted - Red", "[]", "potted - Red - Blue"], 1);
    let first_foul = pick(&["", "first-phase-foul: potted", "first-phase-foul: []"], 2);
    let second_foul = pick(&["second-phase-foul: potted", "second-phase-foul: []", ""], 3);
    let end = pick(
        &[
            "left == 1 and (foul or potted - White != [])",
            "left == 1 and potted - White != [] and not foul",
            "left <= 1 and foul",
            "potted - White == table",
        ],
        4,
    );
    let on = pick(&["", "on: Red", "on: if(Red in table, Red, table)", "on: table"], 5);
    let ending = pick(
        &[
            "",
            "ending \"cleared\" { when: left == 0  draw: yes  output: \"cleared\" }",
            "ending \"one\" { when: left == 1 and foul  draw: yes  output: \"one\" }",
        ],
        6,
    );
    let cont = pick(&["not foul and potted - White != []", "not foul"], 7);
    format!(
        "game: \"small\"\nengine: referee\n\
         ball \"White\" {{ value: 0  cue: yes }}\nball \"Red\" {{ value: 1  count: {reds} }}\n\
         {}\
         play {{\n  alternate: Red\n  sequence: {}\n  {on}\n  continue: {cont}\n  in-hand: White in potted\n  play-again-after: no\n}}\n\
         {fouls}\npenalty {{ min: 4  max: 7  value: 4 }}\n\
         respot {{\n  first-phase: {first_phase}\n  {first_foul}\n  second-phase: []\n  {second_foul}\n}}\n\
         end {{ when: {end} }}\ntie {{ draw: yes }}\n{ending}\n\
         input {{ no-hit: \"None\"  play-again: \"Play again\" }}\n\
         output {{ frame: \"Frame {{frame}}\" turn: \"{{player}}\" in-hand: \"{{player}} in hand\" foul: \"Foul\" \
         score: \"{{first}} : {{second}}\" respot: \"Respot {{balls}}\" draw: \"Draw\" wins: \"{{player}} wins\" }}\n",
        seq.iter().zip([5, 6]).map(|(b, v)| format!("ball \"{b}\" {{ value: {v} }}\n")).collect::<String>(),
        seq.join(" ")
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    /// `check` refuses a small file (`frame-stuck`) exactly when playing
    /// every stroke finds a frame that gets stuck.
    #[test]
    fn check_refuses_exactly_the_files_whose_frames_get_stuck(
        c in proptest::array::uniform8(0usize..12),
        reds in 1u32..3,
        colours in 1usize..3,
    ) {
        let text = small_file(&c, reds, colours);
        let dir = std::env::temp_dir().join(format!("arbiter-referee-stuck-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{}.rules", c.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("-") + &format!("-{reds}-{colours}")));
        std::fs::write(&path, &text).unwrap();
        let (codes, unexplored) = lowered(&path);
        let Some(r) = unexplored else {
            // Refused for another reason: nothing to compare.
            return Ok(());
        };
        prop_assert!(!codes.contains(&"stuck-undecided"), "{codes:?}");
        let refused = codes.contains(&"frame-stuck");
        prop_assert_eq!(refused, oracle_stuck(&r), "{}\n{:?}", text, codes);
    }
}

/// The menus give both verdicts (the property above is not vacuous).
#[test]
fn the_generated_files_are_both_refused_and_accepted() {
    let dir = std::env::temp_dir().join(format!("arbiter-referee-stuck-both-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut seen = (0, 0);
    for k in 0..48usize {
        let c = [k % 3, k / 3 % 3, k % 2, k / 2 % 3, k % 4, 0, k / 6 % 3, 0];
        let path = dir.join(format!("{k}.rules"));
        std::fs::write(&path, small_file(&c, 2, 2)).unwrap();
        let (codes, r) = lowered(&path);
        let Some(r) = r else { continue };
        let stuck = oracle_stuck(&r);
        assert_eq!(codes.contains(&"frame-stuck"), stuck, "{k}");
        if stuck {
            seen.0 += 1;
        } else {
            seen.1 += 1;
        }
    }
    assert!(seen.0 > 3 && seen.1 > 3, "{seen:?}");
}

/// `check` of a table of 63 kinds of ball judges more strokes than it can
/// keep (each number of balls of each kind potted): it walks them one at a
/// time, in memory of one number per kind, where it once held them all (a
/// gigabyte for this file of 2 KB): it now checks within 256 MiB of
/// address space.
#[cfg(target_os = "linux")]
#[test]
fn exploring_many_kinds_of_ball_takes_little_memory() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/referee/many-kinds.rules");
    let mut check = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"));
    let out = crate::usage::within_memory(check.arg("check").arg(&file), 256 << 20);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "within 256 MiB of address space: {err}");
    assert!(err.contains("stuck-undecided"), "{err}");
}

/// Snooker with its Reds as two kinds of a thousand balls each: one state's
/// strokes (any number of each kind potted) reach a million states, and
/// each state kept the list of balls its first stroke potted. The search
/// now stops at its limit of states within the stroke that passes it, and
/// keeps a count per kind: `check` warns (`stuck-undecided`) within
/// 256 MiB of address space, where it took 3.8 GB and failed.
#[cfg(target_os = "linux")]
#[test]
fn thousands_of_balls_of_two_kinds_stop_at_the_limit_of_states() {
    let snooker =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/snooker_referee.rules")).unwrap();
    let base = snooker.split("# Worked examples").next().unwrap();
    let edits = [
        (
            "ball \"Red\" { value: 1  count: 15 }",
            "ball \"R0\" { value: 1  count: 1000 }\nball \"R1\" { value: 1  count: 1000 }",
        ),
        ("alternate: Red", "alternate: R0 R1"),
        ("potted - Red", "potted - [R0 R1]"),
    ];
    let mut text = base.to_string();
    for (from, to) in edits {
        assert!(text.contains(from), "the snooker file no longer holds `{from}`");
        text = text.replace(from, to);
    }
    let dir = std::env::temp_dir().join(format!("arbiter-stuck-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("two-kinds-of-red.rules");
    std::fs::write(&file, text).unwrap();
    let mut check = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"));
    let out = crate::usage::within_memory(check.arg("check").arg(&file), 256 << 20);
    let _ = std::fs::remove_dir_all(&dir);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "within 256 MiB of address space: {err}");
    assert!(err.contains("stuck-undecided"), "{err}");
}
