//! The connection core against slow, obvious oracles (breadth-first groups,
//! flood fills from outside the board), and the input reader's errors.

use super::*;
use crate::engines::connection::board::{Board, Dims, Shape, Sizes};
use crate::game::Line;
use proptest::prelude::*;

fn spec(structures: Vec<Goal>) -> ConnectionSpec {
    ConnectionSpec {
        shape: Shape::Hexagon,
        families: vec![Primitive::Corners, Primitive::Sides],
        structures,
        sizes: Sizes::Side { min: 2, max: MAX_SIDE },
        players: 1,
    }
}

const ALL6: u64 = 0x3f;

/// Bridge, fork (3 sides), ring (empty): the base game's shape.
fn base(fork: u32, ring: Enclose) -> Connection {
    Connection::new(spec(vec![
        Goal::Connects { family: 0, members: ALL6, count: 2 },
        Goal::Connects { family: 1, members: ALL6, count: fork },
        Goal::Encloses(ring),
    ]))
}

fn outcomes(conn: &Connection, input: &str) -> Result<Vec<Option<(u64, u64)>>, InputError> {
    let mut out = Vec::new();
    conn.run(&mut Input::from_text(input), |_, o: CaseResult| {
        out.push(o.win.map(|w| (w.turn, w.structures)));
        Ok::<_, InputError>(())
    })?;
    Ok(out)
}

/// Plays `moves` on `board` with the solver (linked once, as a run does):
/// after each move, the structures found and the hole count; or the
/// first repeated cell.
fn play(
    conn: &Connection,
    board: &Board,
    moves: &[(u32, u32)],
    solver: &mut solve::Solver,
) -> Result<Vec<(u64, i64)>, solve::Repeat> {
    let stones: Vec<read::Stone> =
        moves.iter().map(|&(x, y)| read::Stone::new(x, y, board.locate(x, y).expect("a cell of the board"))).collect();
    solver.link(conn, board, &stones)?;
    solver.start(conn, stones.len());
    Ok(stones.iter().enumerate().map(|(k, &s)| (solver.place(conn, k, s), solver.holes(conn))).collect())
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

/// One family of sides with their corners on `shape`, and one structure
/// connecting the named members `wanted`.
fn named(shape: Shape, wanted: u64) -> Connection {
    Connection::new(ConnectionSpec {
        shape,
        families: vec![Primitive::SidesWithCorners],
        structures: vec![Goal::Connects { family: 0, members: wanted, count: wanted.count_ones() }],
        sizes: Sizes::Side { min: 1, max: MAX_SIDE },
        players: 1,
    })
}

#[test]
fn the_samples_of_the_other_shapes() {
    // A rhombus: sides top (bit 0) and bottom (bit 2), corners included.
    let chain = named(Shape::Rhombus, 0b101);
    let got = outcomes(&chain, "3\n3 3\n1 2\n2 2\n3 1\n3 4\n1 1\n2 2\n3 2\n1 2\n1 1\n1 1\n").unwrap();
    assert_eq!(got, vec![Some((3, 1)), Some((4, 1)), Some((1, 1))]);
    // A triangle: all three sides, corners included.
    let y = named(Shape::Triangle, 0b111);
    let got = outcomes(&y, "2\n3 3\n3 1\n2 1\n1 1\n2 2\n2 1\n1 1\n").unwrap();
    assert_eq!(got, vec![Some((3, 1)), Some((2, 1))]);
}

// --- oracle ----------------------------------------------------------------

/// The geometry of the specs, written out shape by shape (independent of
/// `board`'s half-planes): cells, neighbours, sides and corners.
#[derive(Clone, Copy, Debug)]
struct Geo {
    shape: Shape,
    s: i64,
    /// The width of a rhombus (its height is `s`); `s` for the others.
    w: i64,
}

impl Geo {
    fn on(&self, (x, y): (i64, i64)) -> bool {
        let s = self.s;
        match self.shape {
            Shape::Hexagon => x >= 1 && y >= 1 && x < 2 * s && y < 2 * s && (x - y).abs() < s,
            Shape::Rhombus => (1..=s).contains(&x) && (1..=self.w).contains(&y),
            Shape::Triangle => 1 <= y && y <= x && x <= s,
        }
    }
    fn nbrs(&self, (x, y): (i64, i64)) -> [(i64, i64); 6] {
        match self.shape {
            Shape::Rhombus => [(x, y - 1), (x, y + 1), (x - 1, y), (x + 1, y), (x - 1, y + 1), (x + 1, y - 1)],
            _ => [(x + 1, y + 1), (x, y + 1), (x - 1, y), (x - 1, y - 1), (x, y - 1), (x + 1, y)],
        }
    }
    /// Side `i` (in the order of the shape's table) holds `(x, y)`.
    fn on_side(&self, i: usize, (x, y): (i64, i64)) -> bool {
        let s = self.s;
        match self.shape {
            Shape::Hexagon => [x == 1, y - x == s - 1, y == 2 * s - 1, x == 2 * s - 1, x - y == s - 1, y == 1][i],
            Shape::Rhombus => [x == 1, y == self.w, x == s, y == 1][i],
            Shape::Triangle => [y == 1, x == s, y == x][i],
        }
    }
    fn corners(&self) -> Vec<(i64, i64)> {
        let s = self.s;
        match self.shape {
            Shape::Hexagon => vec![(1, 1), (1, s), (s, 2 * s - 1), (2 * s - 1, 2 * s - 1), (2 * s - 1, s), (s, 1)],
            Shape::Rhombus => vec![(1, 1), (1, self.w), (s, self.w), (s, 1)],
            Shape::Triangle => vec![(1, 1), (s, 1), (s, s)],
        }
    }
    fn members(&self, p: Primitive, c: (i64, i64)) -> u64 {
        let corners = self.corners();
        let mut m = 0;
        for i in 0..corners.len() {
            let hit = match p {
                Primitive::Corners => corners[i] == c,
                Primitive::Sides => self.on_side(i, c) && !corners.contains(&c),
                Primitive::SidesWithCorners => self.on_side(i, c),
            };
            m |= (hit as u64) << i;
        }
        m
    }
    fn cells(&self) -> Vec<(i64, i64)> {
        let hi = 2 * self.s.max(self.w);
        (1..=hi).flat_map(|x| (1..=hi).map(move |y| (x, y))).filter(|&c| self.on(c)).collect()
    }
}

/// Everything the oracle knows about a position, by brute force.
struct Slow {
    geo: Geo,
    stones: Vec<(i64, i64)>,
}

impl Slow {
    fn stone(&self, c: (i64, i64)) -> bool {
        self.stones.contains(&c)
    }
    /// Cells reachable from outside the board (a frame one cell wider than
    /// the board on every side) by steps between non-blocked cells.
    fn outside(&self, blocked: impl Fn((i64, i64)) -> bool) -> std::collections::HashSet<(i64, i64)> {
        let hi = 2 * self.geo.s.max(self.geo.w);
        let in_frame = |(x, y): (i64, i64)| x >= 0 && y >= 0 && x <= hi && y <= hi;
        let start = (0, 0);
        let mut seen = std::collections::HashSet::from([start]);
        let mut stack = vec![start];
        while let Some(c) = stack.pop() {
            for n in self.geo.nbrs(c) {
                // Off-board cells are always free; board cells unless blocked.
                if in_frame(n) && !(self.geo.on(n) && blocked(n)) && seen.insert(n) {
                    stack.push(n);
                }
            }
        }
        seen
    }
    fn empty_enclosed(&self) -> bool {
        let out = self.outside(|c| self.stone(c));
        self.geo.cells().into_iter().any(|c| !self.stone(c) && !out.contains(&c))
    }
    /// The variant's literal definition: some cell c cut off when every
    /// stone other than c blocks.
    fn any_enclosed(&self) -> bool {
        self.geo.cells().into_iter().any(|c| !self.outside(|d| d != c && self.stone(d)).contains(&c))
    }
    /// Some `n` stones in a row: from some stone, `n - 1` more steps in
    /// one direction all land on stones.
    fn line(&self, n: u32) -> bool {
        self.stones.iter().any(|&c| {
            self.geo.nbrs(c).iter().any(|&(nx, ny)| {
                let d = (nx - c.0, ny - c.1);
                (1..n as i64).all(|i| self.stone((c.0 + i * d.0, c.1 + i * d.1)))
            })
        })
    }
    /// The groups, by breadth-first search over stones.
    fn groups(&self) -> Vec<Vec<(i64, i64)>> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for &s in &self.stones {
            if !seen.insert(s) {
                continue;
            }
            let mut g = Vec::new();
            let mut stack = vec![s];
            while let Some(c) = stack.pop() {
                g.push(c);
                for n in self.geo.nbrs(c) {
                    if self.stone(n) && seen.insert(n) {
                        stack.push(n);
                    }
                }
            }
            out.push(g);
        }
        out
    }
    /// The structures of `spec` present now.
    fn structures(&self, spec: &ConnectionSpec) -> u64 {
        let groups = self.groups();
        let mut found = 0;
        for (i, g) in spec.structures.iter().enumerate() {
            let ok = match *g {
                Goal::Connects { family, members, count } => groups.iter().any(|g| {
                    let touched = g.iter().fold(0, |m, &c| m | self.geo.members(spec.families[family], c));
                    (touched & members).count_ones() >= count
                }),
                Goal::Encloses(Enclose::Empty) => self.empty_enclosed(),
                Goal::Encloses(Enclose::Any) => self.any_enclosed(),
                Goal::Line { length } => self.line(length),
            };
            if ok {
                found |= 1 << i;
            }
        }
        found
    }
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![Just(Shape::Hexagon), Just(Shape::Rhombus), Just(Shape::Triangle)]
}

/// A shape, a board side and a sequence of distinct cells on it.
fn game_on(shape: Shape) -> impl Strategy<Value = (Shape, u32, Vec<(u32, u32)>)> {
    let sides = if shape == Shape::Hexagon { 1u32..=6 } else { 1u32..=8 };
    sides.prop_flat_map(move |s| {
        let cells: Vec<(u32, u32)> = Board::new(shape, s).cells().collect();
        let n = cells.len();
        (Just(s), Just(cells).prop_shuffle(), 0..=n).prop_map(move |(s, cells, m)| (shape, s, cells[..m].to_vec()))
    })
}

fn game() -> impl Strategy<Value = (Shape, u32, Vec<(u32, u32)>)> {
    shape().prop_flat_map(game_on)
}

fn family() -> impl Strategy<Value = Primitive> {
    prop_oneof![Just(Primitive::Corners), Just(Primitive::Sides), Just(Primitive::SidesWithCorners)]
}

/// Families and structures for `shape`: counted goals, named goals and
/// enclosures.
fn goals(shape: Shape) -> impl Strategy<Value = (Vec<Primitive>, Vec<Goal>)> {
    let n = shape.sides();
    let all = (1u64 << n) - 1;
    prop::collection::vec(family(), 1..=3).prop_flat_map(move |fams| {
        let f = fams.len();
        let goal = prop_oneof![
            (0..f, 1..=n as u32).prop_map(move |(family, count)| Goal::Connects { family, members: all, count }),
            (0..f, 1..=all).prop_map(|(family, members)| Goal::Connects {
                family,
                members,
                count: members.count_ones()
            }),
            Just(Goal::Encloses(Enclose::Empty)),
            Just(Goal::Encloses(Enclose::Any)),
        ];
        (Just(fams), prop::collection::vec(goal, 1..=4))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    /// After every move, on every shape: the hole count says whether an
    /// empty cell is enclosed, and every structure agrees with the oracle.
    #[test]
    fn every_move_agrees_with_flood_fills(
        ((shape, side, moves), (families, structures)) in shape().prop_flat_map(|s| (game_on(s), goals(s)))
    ) {
        let spec = ConnectionSpec { shape, families, structures, sizes: Sizes::Side { min: 1, max: MAX_SIDE }, players: 1 };
        let conn = Connection::new(spec.clone());
        let board = Board::new(shape, side);
        let mut solver = solve::Solver::default();
        let played = play(&conn, &board, &moves, &mut solver).unwrap();
        // The two-word sort entries of big cases find the same neighbours.
        let mut wide = solve::Solver::default();
        wide.two_words = true;
        prop_assert_eq!(play(&conn, &board, &moves, &mut wide).unwrap(), played.clone());
        // So does the sort with digits of one bit (a pass per key bit) or
        // of three (passes over eight buckets), in both widths.
        for (wide, digits) in [(false, 1), (false, 3), (true, 1), (true, 3)] {
            let mut other = solve::Solver::default();
            (other.two_words, other.digit_bits) = (wide, digits);
            prop_assert_eq!(play(&conn, &board, &moves, &mut other).unwrap(), played.clone());
        }
        let mut slow = Slow { geo: Geo { shape, s: side as i64, w: side as i64 }, stones: Vec::new() };
        let mut won = false;
        for (&(x, y), &(fast, holes)) in moves.iter().zip(&played) {
            slow.stones.push((x as i64, y as i64));
            prop_assert_eq!(holes > 0, slow.empty_enclosed(), "holes {} after {:?}", holes, slow.stones);
            prop_assert!(holes >= 0);
            // Up to the first win, exactly the structures present; after
            // it the core only reports what the last move's group and the
            // enclosure counters show, which runs never ask for.
            if !won {
                prop_assert_eq!(fast, slow.structures(&spec), "after {:?}", slow.stones);
                won = fast != 0;
            }
        }
        // The whole solve (which skips play when no band of rows can form
        // a connection) gives the first win of the move-by-move play.
        let stones: Vec<read::Stone> =
            moves.iter().map(|&(x, y)| read::Stone::new(x, y, board.locate(x, y).unwrap())).collect();
        let first = played.iter().position(|p| p.0 != 0).map(|k| Win { turn: k as u64 + 1, structures: played[k].0, player: 0 });
        prop_assert_eq!(solver.solve(&conn, &board, &stones), Ok(CaseResult { win: first }));
        // A repeat of any placed cell is refused with its move index, and
        // that of the move that took the cell first.
        if let Some(k) = (!moves.is_empty()).then_some(moves.len() / 2) {
            let mut again = moves.clone();
            again.push(moves[k]);
            prop_assert_eq!(play(&conn, &board, &again, &mut solver), Err((moves.len(), k)));
        }
    }

    /// The union-find groups are the oracle's breadth-first groups: after
    /// every move, two stones share a root exactly when a search joins them.
    #[test]
    fn groups_are_the_searched_groups((shape, side, moves) in game()) {
        let conn = named(shape, 1);
        let mut solver = solve::Solver::default();
        play(&conn, &Board::new(shape, side), &moves, &mut solver).unwrap();
        let slow = Slow {
            geo: Geo { shape, s: side as i64, w: side as i64 },
            stones: moves.iter().map(|&(x, y)| (x as i64, y as i64)).collect(),
        };
        let groups = slow.groups();
        let group_of = |c: (i64, i64)| groups.iter().position(|g| g.contains(&c)).unwrap();
        for i in 0..moves.len() {
            for j in 0..moves.len() {
                let same = solver.group_of(i as u32) == solver.group_of(j as u32);
                prop_assert_eq!(same, group_of(slow.stones[i]) == group_of(slow.stones[j]));
            }
        }
    }

}

proptest! {
    // Whole runs repeat the per-move oracle over several cases: fewer.
    #![proptest_config(ProptestConfig { cases: 100, .. ProptestConfig::default() })]

    /// Whole runs: first winning move and the structures at that moment,
    /// several cases in one input (the state resets between cases).
    #[test]
    fn runs_agree_with_the_oracle(
        (cases, (families, structures)) in shape().prop_flat_map(|s| (prop::collection::vec(game_on(s), 1..4), goals(s)))
    ) {
        let shape = cases[0].0;
        let conn = Connection::new(ConnectionSpec { shape, families, structures, sizes: Sizes::Side { min: 1, max: MAX_SIDE }, players: 1 });
        let mut input = format!("{}\n", cases.len());
        let mut want = Vec::new();
        for (_, side, moves) in &cases {
            input += &format!("{side} {}\n", moves.len());
            let mut slow = Slow { geo: Geo { shape, s: *side as i64, w: *side as i64 }, stones: Vec::new() };
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

    /// Cells are on the board exactly as the specs say, for any pair of
    /// numbers (off-board cells are input errors).
    #[test]
    fn board_membership_follows_the_specs(shape in shape(), side in 1u32..12, x in -3i64..30, y in -3i64..30) {
        let geo = Geo { shape, s: side as i64, w: side as i64 };
        let board = Board::new(shape, side);
        prop_assert_eq!(board.contains(x, y), geo.on((x, y)));
        if geo.on((x, y)) {
            for p in [Primitive::Corners, Primitive::Sides, Primitive::SidesWithCorners] {
                let conn = Connection::new(ConnectionSpec {
                    shape, families: vec![p], structures: vec![], sizes: Sizes::Side { min: 1, max: MAX_SIDE }, players: 1,
                });
                prop_assert_eq!(conn.cell_members(&board, x as u32, y as u32), geo.members(p, (x, y)));
            }
            let mine: Vec<(i64, i64)> = board.around(x as u32, y as u32).iter().map(|&(a, b)| (a as i64, b as i64)).collect();
            let mut theirs = geo.nbrs((x, y)).to_vec();
            let mut sorted = mine.clone();
            sorted.sort();
            theirs.sort();
            prop_assert_eq!(sorted, theirs);
        }
    }

    /// No input makes the reader panic; errors point inside the input.
    #[test]
    fn arbitrary_input_never_panics(s in "[0-9 \\-\\n]{0,60}", shape in shape()) {
        if let Err(e) = outcomes(&named(shape, 1), &s) {
            prop_assert!(e.offset + e.len <= s.len());
        }
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
    let dirs = *Board::new(Shape::Hexagon, s).offsets();
    let mut p = (c + r * dirs[4].0 as i64, c + r * dirs[4].1 as i64);
    for (dx, dy) in dirs {
        for _ in 0..r {
            ring.push(p);
            p = (p.0 + dx as i64, p.1 + dy as i64);
        }
    }
    assert_eq!(p, ring[0]);
    let conn = base(3, Enclose::Empty);
    let ring: Vec<(u32, u32)> = ring.iter().map(|&(x, y)| (x as u32, y as u32)).collect();
    let played = play(&conn, &Board::new(Shape::Hexagon, s), &ring, &mut solve::Solver::default()).unwrap();
    for (k, &(found, _)) in played.iter().enumerate() {
        assert_eq!(found, if k + 1 == ring.len() { 4 } else { 0 }, "move {}", k + 1);
    }
}

#[test]
fn long_chains_on_a_big_rhombus_and_triangle() {
    let s = 3000u32;
    // A zigzag from the top side to the bottom side of the rhombus, placed
    // from both ends: the chain forms with the middle stone.
    let path: Vec<(u32, u32)> = (1..=s).map(|x| (x, 1500 - x / 3)).collect();
    let path: Vec<(u32, u32)> = path
        .windows(2)
        .flat_map(|w| {
            // Keep consecutive cells adjacent: (x, y) -> (x + 1, y - 1) or (x + 1, y).
            let (a, b) = (w[0], w[1]);
            if a.1 == b.1 || a.1 == b.1 + 1 {
                vec![a]
            } else {
                unreachable!()
            }
        })
        .chain(std::iter::once((s, 1500 - s / 3)))
        .collect();
    let chain = named(Shape::Rhombus, 0b101);
    let mid = path.len() / 2;
    let order: Vec<(u32, u32)> =
        (0..path.len()).filter(|&i| i != mid).chain(std::iter::once(mid)).map(|i| path[i]).collect();
    let mut solver = solve::Solver::default();
    let played = play(&chain, &Board::new(Shape::Rhombus, s), &order, &mut solver).unwrap();
    for (k, &(found, _)) in played.iter().enumerate() {
        assert_eq!(found, (k + 1 == order.len()) as u64, "move {}", k + 1);
    }
    // The left side of the triangle (two sides and their corners) is not a Y;
    // one more stone on the right side is.
    let y = named(Shape::Triangle, 0b111);
    let moves: Vec<(u32, u32)> = (2..=s).map(|x| (x, 1)).chain(std::iter::once((2, 2))).collect();
    let played = play(&y, &Board::new(Shape::Triangle, s), &moves, &mut solver).unwrap();
    let found: Vec<u64> = played.iter().map(|p| p.0).collect();
    let mut want = vec![0; moves.len()];
    want[moves.len() - 1] = 1;
    assert_eq!(found, want);
}

#[test]
fn crowded_rows_and_blobs_on_a_big_board() {
    // Long lines along rows and dense blobs at opposite ends of a big
    // board, in a fixed random order: the box is the whole board, its keys
    // 26 bits. Digits of one bit, of five and as wide as the moves are
    // many find the same neighbours.
    let mut cells: Vec<(u32, u32)> = Vec::new();
    for base in [10, 5950] {
        cells.extend((base..base + 40).flat_map(|x| (base..base + 40).map(move |y| (x, y))));
    }
    cells.extend((2000..3990).map(|y| (3000, y)));
    cells.extend((1000..2990).map(|y| (3003, y)));
    let mut seed = 12345u64;
    for i in (1..cells.len()).rev() {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        cells.swap(i, (seed >> 33) as usize % (i + 1));
    }
    let board = Board::new(Shape::Hexagon, 3000);
    let conn = base(3, Enclose::Any);
    let played = play(&conn, &board, &cells, &mut solve::Solver::default()).unwrap();
    for digits in [1, 5] {
        let mut other = solve::Solver::default();
        other.digit_bits = digits;
        assert_eq!(play(&conn, &board, &cells, &mut other).unwrap(), played);
    }
    // A blob has holes once filled enough.
    assert!(played.iter().any(|p| p.1 > 0));
}

// --- reader errors -----------------------------------------------------------

/// How a move line is written: plainly, or with blanks, leading zeros, a
/// `\r\n` ending or a blank line before it.
fn written() -> impl Strategy<Value = u8> {
    prop_oneof![6 => Just(0u8), 1 => 1u8..6]
}

fn write_move(input: &mut String, (x, y): (u32, u32), how: u8) -> (usize, usize) {
    match how {
        1 => *input += "\n",
        2 => *input += "  \t\n",
        _ => {}
    }
    let at = input.len();
    let number = input.matches('\n').count() + 1;
    match how {
        3 => *input += &format!(" {x}  {y} \n"),
        4 => *input += &format!("0{x} 00{y}\n"),
        5 => *input += &format!("{x} {y}\r\n"),
        _ => *input += &format!("{x} {y}\n"),
    }
    (at, number)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    /// A repeated cell, found after its case is read whole, is reported on
    /// its own line exactly as an error made while reading it would be,
    /// however the lines before it are written.
    #[test]
    fn repeats_point_at_their_line(
        (shape, side, moves) in game(),
        first in 0usize..64,
        later in 0usize..64,
        how in prop::collection::vec(written(), 66),
        second_case in any::<bool>(),
    ) {
        prop_assume!(!moves.is_empty());
        let j = first % moves.len();
        let k = j + 1 + later % moves.len();
        let mut moves = moves;
        moves.insert(k.min(moves.len()), moves[j]);
        let k = k.min(moves.len() - 1);
        let mut input = String::new();
        input += if second_case { "2\n" } else { "1\n" };
        if second_case {
            input += &format!("{side} 1\n{} {}\n", moves[0].0, moves[0].1);
        }
        input += &format!("{side} {}\n", moves.len());
        let mut place = (0, 0);
        for (i, &m) in moves.iter().enumerate() {
            let at = write_move(&mut input, m, how[i % how.len()]);
            if i == k {
                place = at;
            }
        }
        let conn = named(shape, 1);
        let got = outcomes(&conn, &input).unwrap_err();
        let end = input[place.0..].find(['\r', '\n']).unwrap();
        let line = Line { text: &input[place.0..place.0 + end], offset: place.0, number: place.1 };
        let (x, y) = moves[k];
        let want = line.error(format!("cell ({x}, {y}) already holds a stone (move {})", j + 1));
        prop_assert_eq!(
            (got.offset, got.len, got.line, got.column, &got.message, &got.excerpt),
            (want.offset, want.len, want.line, want.column, &want.message, &want.excerpt)
        );
    }
}

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
    let mut s = spec(vec![Goal::Connects { family: 0, members: ALL6, count: 2 }]);
    s.sizes = Sizes::Side { min: 3, max: 10 };
    let c = Connection::new(s);
    assert!(outcomes(&c, "1\n10 0\n").is_ok());
    assert!(outcomes(&c, "1\n11 0\n").unwrap_err().message.contains("3 to 10"));
    assert!(outcomes(&c, "1\n2 0\n").is_err());
}

/// A rhombus of `h` rows by `w` columns and a sequence of distinct cells
/// on it, or another shape of one side (`h = w`).
fn game_sized() -> impl Strategy<Value = (Shape, Dims, Vec<(u32, u32)>)> {
    let rect = (1u32..=7, 1u32..=7).prop_map(|(height, width)| (Shape::Rhombus, Dims::Rect { height, width }));
    let one = (shape(), 1u32..=6).prop_map(|(s, side)| (s, Dims::Side(side)));
    prop_oneof![rect, one].prop_flat_map(|(shape, dims)| {
        let cells: Vec<(u32, u32)> = Board::sized(shape, dims).cells().collect();
        let n = cells.len();
        (Just(cells).prop_shuffle(), 0..=n).prop_map(move |(cells, m)| (shape, dims, cells[..m].to_vec()))
    })
}

/// Goals of [`goals`] and lines of 1 to 5 stones.
fn goals_with_lines(shape: Shape) -> impl Strategy<Value = (Vec<Primitive>, Vec<Goal>)> {
    (goals(shape), prop::collection::vec(1u32..=5, 0..=2)).prop_map(|((fams, mut goals), lines)| {
        goals.extend(lines.into_iter().map(|length| Goal::Line { length }));
        (fams, goals)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    /// Players taking turns, lines and boards of two sizes: after every
    /// move, the mover's structures (and hole count) are those of the
    /// oracle that sees the mover's stones only; the whole solve gives the
    /// first of them, with the player who made it.
    #[test]
    fn players_and_lines_agree_with_the_oracle(
        ((shape, dims, moves), (families, structures), players) in
            game_sized().prop_flat_map(|g| { let s = g.0; (Just(g), goals_with_lines(s), 1usize..=3) })
    ) {
        let sizes = Sizes::Side { min: 1, max: MAX_SIDE };
        let spec = ConnectionSpec { shape, families, structures, sizes, players };
        let conn = Connection::new(spec.clone());
        let board = Board::sized(shape, dims);
        let mut solver = solve::Solver::default();
        let played = play(&conn, &board, &moves, &mut solver).unwrap();
        let (h, w) = dims.height_width();
        let mut first = None;
        for (k, &(fast, holes)) in played.iter().enumerate() {
            let p = k % players;
            let own = moves[..=k].iter().skip(p).step_by(players).map(|&(x, y)| (x as i64, y as i64)).collect();
            let slow = Slow { geo: Geo { shape, s: h as i64, w: w as i64 }, stones: own };
            prop_assert_eq!(holes > 0, slow.empty_enclosed(), "holes {} of player {} at {:?}", holes, p, slow.stones);
            if first.is_none() {
                prop_assert_eq!(fast, slow.structures(&spec), "player {} at {:?}", p, slow.stones);
                if fast != 0 {
                    first = Some(Win { turn: k as u64 + 1, structures: fast, player: p as u32 });
                }
            }
        }
        let stones: Vec<read::Stone> =
            moves.iter().map(|&(x, y)| read::Stone::new(x, y, board.locate(x, y).unwrap())).collect();
        prop_assert_eq!(solver.solve(&conn, &board, &stones), Ok(CaseResult { win: first }));
    }
}

#[test]
fn a_rhombus_of_two_sizes_reads_height_width_and_moves() {
    let mut s = spec(vec![Goal::Line { length: 3 }]);
    s.shape = Shape::Rhombus;
    s.families = vec![];
    s.sizes = Sizes::Rect { height: (2, 4), width: (3, 9) };
    let c = Connection::new(s);
    // Three in a row along y on a 2 by 9 board; (2, 9) is a cell, (3, 1) is not.
    assert_eq!(outcomes(&c, "1\n2 9 4\n1 7\n2 9\n1 8\n1 9\n").unwrap(), vec![Some((4, 1))]);
    let msg = outcomes(&c, "1\n2 9 1\n3 1\n").unwrap_err().message.clone();
    assert!(msg.contains("height 2 and width 9"), "{msg}");
    assert!(outcomes(&c, "1\n5 9 0\n").unwrap_err().message.contains("heights 2 to 4"));
    assert!(outcomes(&c, "1\n2 2 0\n").unwrap_err().message.contains("widths 3 to 9"));
}

/// The driver's hints (`ahead`: the move lines after a case's first) and
/// `boundary` find the same case ends, on every bundled rule file's cases
/// of the three connection games, and on cases with blank lines among
/// their moves.
#[test]
fn the_driver_s_hints_find_the_case_ends_the_boundary_finds() {
    for game in ["hex", "havannah", "y"] {
        crate::engines::bundled_cases::each(game, |top, cx, inputs| {
            let game = lower::lower(top, cx).expect("the bundled file compiles");
            inputs.iter().for_each(|text| crate::game::assert_hints_agree(&game, text));
        });
    }
    crate::engines::bundled_cases::each("havannah", |top, cx, _| {
        let game = lower::lower(top, cx).expect("the bundled file compiles");
        crate::game::assert_hints_agree(&game, "3\n3 2\n1 1\n\n1 2\n3 3\n  \n1 1\n1 2\n\r\n2 2\n3 1\n\n1 1\n");
    });
}
