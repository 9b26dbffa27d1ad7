//! The connection core against slow, obvious oracles (breadth-first groups,
//! flood fills from outside the board), and the input reader's errors.

use super::*;
use proptest::prelude::*;

fn spec(structures: Vec<Goal>) -> ConnectionSpec {
    ConnectionSpec { families: vec![Primitive::Corners, Primitive::Sides], structures, min_side: 2, max_side: MAX_SIDE }
}

/// Bridge, fork (3 sides), ring (empty): the base game's shape.
fn base(fork: u32, ring: Enclose) -> Connection {
    Connection::new(spec(vec![
        Goal::Connects { family: 0, count: 2 },
        Goal::Connects { family: 1, count: fork },
        Goal::Encloses(ring),
    ]))
}

fn outcomes(conn: &Connection, input: &str) -> Result<Vec<Option<(u64, u64)>>, InputError> {
    let mut out = Vec::new();
    conn.run(&mut Input::from_text(input), |_, o: Outcome| {
        out.push(o.win.map(|w| (w.turn, w.structures)));
        Ok::<_, InputError>(())
    })?;
    Ok(out)
}

const SAMPLE: &str = "7\n2 4\n1 1\n1 2\n2 3\n3 3\n3 6\n2 1\n2 2\n2 3\n2 4\n1 2\n4 4\n3 7\n3 3\n2 2\n2 3\n3 4\n4 4\n4 3\n3 2\n3 6\n2 2\n2 3\n3 4\n4 4\n4 3\n3 2\n3 8\n1 1\n2 1\n1 3\n2 4\n1 2\n3 2\n3 3\n3 4\n3 7\n1 1\n2 2\n3 5\n3 4\n5 3\n4 3\n3 3\n3 3\n1 1\n1 3\n3 5\n";

#[test]
fn sample_and_its_variants() {
    const B: u64 = 1;
    const F: u64 = 2;
    const R: u64 = 4;
    let got = outcomes(&base(3, Enclose::Empty), SAMPLE).unwrap();
    assert_eq!(got, vec![Some((2, B)), Some((5, F)), None, Some((6, R)), Some((5, B | F)), Some((7, B)), None]);
    let got = outcomes(&base(3, Enclose::Any), SAMPLE).unwrap();
    assert_eq!(got, vec![Some((2, B)), Some((5, F)), Some((7, R)), Some((6, R)), Some((5, B | F)), Some((7, B)), None]);
    let got = outcomes(&base(4, Enclose::Empty), SAMPLE).unwrap();
    assert_eq!(got, vec![Some((2, B)), None, None, Some((6, R)), Some((5, B)), Some((7, B)), None]);
}

// --- oracle ----------------------------------------------------------------

/// Everything the oracle knows about a position, by brute force.
struct Slow {
    side: i64,
    stones: Vec<(i64, i64)>,
}

impl Slow {
    fn on(&self, (x, y): (i64, i64)) -> bool {
        HexBoard::new(self.side as u32).contains(x, y)
    }
    fn stone(&self, c: (i64, i64)) -> bool {
        self.stones.contains(&c)
    }
    fn nbrs(c: (i64, i64)) -> impl Iterator<Item = (i64, i64)> {
        crate::engines::connection::board::NEIGHBOURS.iter().map(move |&(dx, dy)| (c.0 + dx as i64, c.1 + dy as i64))
    }
    /// Cells reachable from outside the board (a margin of one cell) by
    /// steps between non-blocked cells.
    fn outside(&self, blocked: impl Fn((i64, i64)) -> bool) -> std::collections::HashSet<(i64, i64)> {
        let hi = 2 * self.side;
        let in_frame = |(x, y): (i64, i64)| x >= 0 && y >= 0 && x <= hi && y <= hi;
        let start = (0, 0);
        let mut seen = std::collections::HashSet::from([start]);
        let mut stack = vec![start];
        while let Some(c) = stack.pop() {
            for n in Self::nbrs(c) {
                // Off-board cells are always free; board cells unless blocked.
                if in_frame(n) && !(self.on(n) && blocked(n)) && seen.insert(n) {
                    stack.push(n);
                }
            }
        }
        seen
    }
    fn cells(&self) -> Vec<(i64, i64)> {
        let hi = 2 * self.side - 1;
        (1..=hi).flat_map(|x| (1..=hi).map(move |y| (x, y))).filter(|&c| self.on(c)).collect()
    }
    fn empty_enclosed(&self) -> bool {
        let out = self.outside(|c| self.stone(c));
        self.cells().into_iter().any(|c| !self.stone(c) && !out.contains(&c))
    }
    /// The variant's literal definition: some cell c cut off when every
    /// stone other than c blocks.
    fn any_enclosed(&self) -> bool {
        self.cells().into_iter().any(|c| !self.outside(|d| d != c && self.stone(d)).contains(&c))
    }
    /// Per group: (corners touched, sides touched), by breadth-first search.
    fn groups(&self, conn_board: &HexBoard) -> Vec<(u32, u32, u32)> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for &s in &self.stones {
            if !seen.insert(s) {
                continue;
            }
            let (mut corners, mut sides, mut sides_wc) = (0u32, 0u32, 0u32);
            let mut stack = vec![s];
            while let Some(c) = stack.pop() {
                match conn_board.feature(c.0 as u32, c.1 as u32) {
                    Feature::Corner(i) => {
                        corners |= 1 << i;
                        sides_wc |= 1 << i | 1 << ((i + 5) % 6);
                    }
                    Feature::Side(i) => {
                        sides |= 1 << i;
                        sides_wc |= 1 << i;
                    }
                    Feature::Inside => {}
                }
                for n in Self::nbrs(c) {
                    if self.stone(n) && seen.insert(n) {
                        stack.push(n);
                    }
                }
            }
            out.push((corners.count_ones(), sides.count_ones(), sides_wc.count_ones()));
        }
        out
    }
    /// The structures of `spec` present now.
    fn structures(&self, spec: &ConnectionSpec) -> u64 {
        let board = HexBoard::new(self.side as u32);
        let groups = self.groups(&board);
        let mut found = 0;
        for (i, g) in spec.structures.iter().enumerate() {
            let ok = match *g {
                Goal::Connects { family, count } => groups.iter().any(|&(c, s, w)| {
                    let n = match spec.families[family] {
                        Primitive::Corners => c,
                        Primitive::Sides => s,
                        Primitive::SidesWithCorners => w,
                    };
                    n >= count
                }),
                Goal::Encloses(Enclose::Empty) => self.empty_enclosed(),
                Goal::Encloses(Enclose::Any) => self.any_enclosed(),
            };
            if ok {
                found |= 1 << i;
            }
        }
        found
    }
}

/// A board side and a sequence of distinct cells on it.
fn game() -> impl Strategy<Value = (u32, Vec<(u32, u32)>)> {
    (2u32..=6).prop_flat_map(|s| {
        let b = HexBoard::new(s);
        let hi = 2 * s - 1;
        let cells: Vec<(u32, u32)> = (1..=hi)
            .flat_map(|x| (1..=hi).map(move |y| (x, y)))
            .filter(|&(x, y)| b.contains(x as i64, y as i64))
            .collect();
        let n = cells.len();
        (Just(s), Just(cells).prop_shuffle(), 0..=n).prop_map(|(s, cells, m)| (s, cells[..m].to_vec()))
    })
}

fn family() -> impl Strategy<Value = Primitive> {
    prop_oneof![Just(Primitive::Corners), Just(Primitive::Sides), Just(Primitive::SidesWithCorners)]
}

fn goals() -> impl Strategy<Value = (Vec<Primitive>, Vec<Goal>)> {
    prop::collection::vec(family(), 1..=3).prop_flat_map(|fams| {
        let n = fams.len();
        let goal = prop_oneof![
            (0..n, 1u32..=6).prop_map(|(family, count)| Goal::Connects { family, count }),
            Just(Goal::Encloses(Enclose::Empty)),
            Just(Goal::Encloses(Enclose::Any)),
        ];
        (Just(fams), prop::collection::vec(goal, 1..=4))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    /// After every move: the hole count says whether an empty cell is
    /// enclosed, and every structure agrees with the oracle.
    #[test]
    fn every_move_agrees_with_flood_fills((side, moves) in game(), (families, structures) in goals()) {
        let spec = ConnectionSpec { families, structures, min_side: 2, max_side: MAX_SIDE };
        let conn = Connection::new(spec.clone());
        let mut play = Play::new(&conn);
        play.reset(HexBoard::new(side));
        let mut slow = Slow { side: side as i64, stones: Vec::new() };
        let mut won = false;
        for &(x, y) in &moves {
            let fast = play.place(x, y).unwrap();
            slow.stones.push((x as i64, y as i64));
            prop_assert_eq!(play.holes() > 0, slow.empty_enclosed(), "holes {} after {:?}", play.holes(), slow.stones);
            prop_assert!(play.holes() >= 0);
            // Up to the first win, exactly the structures present; after
            // it the core only reports what the last move's group and the
            // enclosure counters show, which runs never ask for.
            if !won {
                prop_assert_eq!(fast, slow.structures(&spec), "after {:?}", slow.stones);
                won = fast != 0;
            }
        }
        // A repeat of any placed cell is refused with its move index.
        if let Some(k) = (!moves.is_empty()).then_some(moves.len() / 2) {
            prop_assert_eq!(play.place(moves[k].0, moves[k].1), Err(k as u64));
        }
    }

    /// Whole runs: first winning move and the structures at that moment,
    /// several cases in one input (the state resets between cases).
    #[test]
    fn runs_agree_with_the_oracle(cases in prop::collection::vec(game(), 1..4), fork in 3u32..=4, any in any::<bool>()) {
        let conn = base(fork, if any { Enclose::Any } else { Enclose::Empty });
        let mut input = format!("{}\n", cases.len());
        let mut want = Vec::new();
        for (side, moves) in &cases {
            input += &format!("{side} {}\n", moves.len());
            let mut slow = Slow { side: *side as i64, stones: Vec::new() };
            let mut win = None;
            for (k, &(x, y)) in moves.iter().enumerate() {
                input += &format!("{x} {y}\n");
                if win.is_none() {
                    slow.stones.push((x as i64, y as i64));
                    let s = slow.structures(&conn.spec);
                    if s != 0 {
                        win = Some((k as u64 + 1, s));
                    }
                }
            }
            want.push(win);
        }
        prop_assert_eq!(outcomes(&conn, &input).unwrap(), want);
    }

    /// No input makes the reader panic; errors point inside the input.
    #[test]
    fn arbitrary_input_never_panics(s in "[0-9 \\-\\n]{0,60}") {
        if let Err(e) = outcomes(&base(3, Enclose::Empty), &s) {
            prop_assert!(e.offset + e.len <= s.len());
        }
    }
}

#[test]
fn large_ring_and_long_lines_on_a_big_board() {
    // A ring of radius r around the centre of a side-3000 board: the hole
    // appears exactly with the last stone of the ring.
    let s = 3000u32;
    let c = s as i64;
    let r = 1000i64;
    let mut ring = Vec::new();
    // Walk the six sides of the hexagon of radius r around (c, c).
    let dirs = crate::engines::connection::board::NEIGHBOURS;
    let mut p = (c + r * dirs[4].0 as i64, c + r * dirs[4].1 as i64);
    for (dx, dy) in dirs {
        for _ in 0..r {
            ring.push(p);
            p = (p.0 + dx as i64, p.1 + dy as i64);
        }
    }
    assert_eq!(p, ring[0]);
    let conn = base(3, Enclose::Empty);
    let mut play = Play::new(&conn);
    play.reset(HexBoard::new(s));
    for (k, &(x, y)) in ring.iter().enumerate() {
        let found = play.place(x as u32, y as u32).unwrap();
        assert_eq!(found, if k + 1 == ring.len() { 4 } else { 0 }, "move {}", k + 1);
    }
}

// --- reader errors -----------------------------------------------------------

fn error(conn: &Connection, input: &str) -> (String, String, usize) {
    let e = outcomes(conn, input).unwrap_err();
    (input[e.offset..e.offset + e.len].to_string(), e.message.clone(), outcomes_before(conn, input))
}

/// How many cases were emitted before the error.
fn outcomes_before(conn: &Connection, input: &str) -> usize {
    let mut n = 0;
    let _ = conn.run(&mut Input::from_text(input), |_, _| {
        n += 1;
        Ok::<_, InputError>(())
    });
    n
}

#[test]
fn input_errors_point_at_the_offending_text() {
    let c = base(3, Enclose::Empty);
    let (at, msg, n) = error(&c, "2\n2 1\n1 1\n2 1\n3 1\n");
    assert_eq!((at.as_str(), n), ("3 1", 1));
    assert!(msg.contains("not on the board of side 2"), "{msg}");

    let (at, msg, n) = error(&c, "1\n3 3\n1 1\n2 2\n  1 1 \n");
    assert_eq!((at.as_str(), n), ("1 1", 0));
    assert!(msg.contains("already holds a stone (move 1)"), "{msg}");

    // After the win, later moves are still read and checked.
    let (at, msg, _) = error(&c, "1\n2 4\n1 1\n1 2\n2 3\n1 1\n");
    assert_eq!(at, "1 1");
    assert!(msg.contains("move 1"), "{msg}");

    let (at, msg, n) = error(&c, "2\n2 1\n1 1\n3 2\n1 1\n");
    assert_eq!((at.as_str(), n), ("", 1));
    assert!(msg.contains("expected move 2 of 2 of case 2, found end of input"), "{msg}");

    let (at, msg, n) = error(&c, "3\n2 0\n2 0\n");
    assert_eq!((at.as_str(), n), ("", 2));
    assert!(msg.contains("case 3 of 3"), "{msg}");

    let (at, msg, n) = error(&c, "1\n2 0\n2 0\n");
    assert_eq!((at.as_str(), n), ("2 0", 1));
    assert!(msg.contains("after the last of 1 case"), "{msg}");

    let (at, msg, _) = error(&c, "1\n1 0\n");
    assert_eq!(at, "1");
    assert!(msg.contains("board side 1 is outside"), "{msg}");
    let (at, msg, _) = error(&c, "1\n99999999999999999999999 0\n");
    assert_eq!(at, "99999999999999999999999");
    assert!(msg.contains("outside the supported sides 2 to 1000000"), "{msg}");

    let (at, msg, _) = error(&c, "1\n3 1\n1 x\n");
    assert_eq!(at, "x");
    assert!(msg.contains("coordinate"), "{msg}");
    let (at, _, _) = error(&c, "1\n3 1\n1 1 1\n");
    assert_eq!(at, "1");
    let (at, msg, _) = error(&c, "1\n3 1\n1\n");
    assert_eq!(at, "");
    assert!(msg.contains("found 1 number"), "{msg}");
    let (at, msg, _) = error(&c, "x\n");
    assert_eq!(at, "x");
    assert!(msg.contains("number of cases"), "{msg}");
    let (at, _, _) = error(&c, "1\n3 -2\n");
    assert_eq!(at, "-2");
    let (at, msg, _) = error(&c, "1\n3 1\n-1 99999999999999999999\n");
    assert_eq!(at, "-1 99999999999999999999");
    assert!(msg.contains("not on the board"), "{msg}");
    let (_, msg, _) = error(&c, "");
    assert!(msg.contains("found end of input"), "{msg}");
}

#[test]
fn sides_are_limited_by_the_spec() {
    let mut s = spec(vec![Goal::Connects { family: 0, count: 2 }]);
    s.min_side = 3;
    s.max_side = 10;
    let c = Connection::new(s);
    assert!(outcomes(&c, "1\n10 0\n").is_ok());
    assert!(outcomes(&c, "1\n11 0\n").unwrap_err().message.contains("3 to 10"));
    assert!(outcomes(&c, "1\n2 0\n").is_err());
}
