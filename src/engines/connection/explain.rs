//! Explanations of the connection engine: the winning move, and for each
//! structure it formed the group and the family members it touches, or the
//! enclosed cells and the stones around them; when nothing wins, how close
//! each connection came.
//!
//! Every explanation costs time proportional to the case's stones, however
//! large the board or an enclosed region: whether the region next to the
//! last stone is enclosed is read from the boundary walk of its face in the
//! plane graph of the stones (at most two steps per stone adjacency), and
//! the region's cells are listed by a flood fill that stops after a number
//! of cells proportional to the stones.

use std::collections::HashSet;

use super::board::Board;
use super::picture::{draw, Marks};
use super::read::Case;
use super::{CaseResult, ConnectionGame, Goal, Primitive};
use crate::game::picture::Picture;
use crate::game::Explanation;

type Cell = (u32, u32);

/// Cells of an enclosed region a flood fill lists, per stone of the case
/// (plus [`FLOOD_BASE`]); a larger region is cut there.
const FLOOD_PER_STONE: usize = 4;
const FLOOD_BASE: usize = 256;

fn cell((x, y): Cell) -> String {
    format!("({x}, {y})")
}

/// At most `n` cells, then how many more (`complete`: the list is all).
fn cells(list: &[Cell], n: usize, complete: bool) -> String {
    let mut s: Vec<String> = list.iter().take(n).map(|&c| cell(c)).collect();
    if !complete {
        s.push(format!("... (more than {} in all)", list.len()));
    } else if list.len() > n {
        s.push(format!("... ({} in all)", list.len()));
    }
    s.join(" ")
}

#[inline]
fn step(c: Cell, (dx, dy): (i32, i32)) -> Cell {
    ((c.0 as i32 + dx) as u32, (c.1 as i32 + dy) as u32)
}

/// The stones of the group holding `start` (which must be a stone).
fn group(board: &Board, stones: &HashSet<Cell>, start: Cell) -> Vec<Cell> {
    let mut seen: HashSet<Cell> = HashSet::from([start]);
    let mut todo = vec![start];
    let mut out = Vec::new();
    while let Some(c) = todo.pop() {
        out.push(c);
        for n in board.around(c.0, c.1) {
            if stones.contains(&n) && seen.insert(n) {
                todo.push(n);
            }
        }
    }
    out.sort_unstable();
    out
}

/// The boundary walk of the face of the stones' plane graph that lies to
/// the left of the edge from stone `start` to its stone neighbour in
/// direction `d`: the stones met, and twice the signed area the walk
/// encloses (positive for a bounded face, which the walk turns around
/// counter-clockwise; zero or negative for the outside of a group). Each
/// step is one directed stone adjacency, each used once, so a walk has at
/// most `6 × stones` steps; `work` counts them.
fn face_walk(board: &Board, stones: &HashSet<Cell>, start: Cell, d: usize, work: &mut usize) -> (Vec<Cell>, i128) {
    let off = board.offsets();
    let (mut u, mut dir) = (start, d);
    let mut walk = Vec::new();
    let mut area = 0i128;
    loop {
        *work += 1;
        let v = step(u, off[dir]);
        area += u.0 as i128 * v.1 as i128 - u.1 as i128 * v.0 as i128;
        walk.push(u);
        // At v, turn clockwise from the way back to u to the next stone.
        let back = (dir + 3) % 6;
        let next = (1..=6).map(|k| (back + 6 - k) % 6).find(|&c| stones.contains(&step(v, off[c])));
        (u, dir) = (v, next.unwrap_or(back));
        if (u, dir) == (start, d) || walk.len() > 6 * stones.len() + 6 {
            return (walk, area);
        }
    }
}

/// An enclosed region: some of its cells, whether they are all of them,
/// and the stones around it.
#[derive(Debug)]
struct Enclosure {
    region: Vec<Cell>,
    complete: bool,
    wall: Vec<Cell>,
}

/// An empty region next to `at` that cannot reach the outside of the
/// board. `None` when every region next to `at` escapes. `work` counts the
/// walk steps and the cells filled, at most proportional to the stones.
fn enclosed_near(board: &Board, stones: &HashSet<Cell>, at: Cell, work: &mut usize) -> Option<Enclosure> {
    let off = board.offsets();
    let on_board = |c: Cell| board.contains(c.0 as i64, c.1 as i64);
    let stone_dirs: Vec<usize> = (0..6).filter(|&i| stones.contains(&step(at, off[i]))).collect();
    for (g, &o) in off.iter().enumerate() {
        let start = step(at, o);
        if !on_board(start) || stones.contains(&start) {
            continue;
        }
        // The face holding `start` lies left of the edge to the first stone
        // clockwise from direction g.
        let Some(d) = (1..6).map(|k| (g + 6 - k) % 6).find(|d| stone_dirs.contains(d)) else {
            return None; // no stone next to `at`: nothing is closed here
        };
        let (walk, area) = face_walk(board, stones, at, d, work);
        if area <= 0 {
            continue;
        }
        // Enclosed: list the region, up to a budget.
        let budget = FLOOD_PER_STONE * stones.len() + FLOOD_BASE;
        let mut seen: HashSet<Cell> = HashSet::from([start]);
        let mut todo = vec![start];
        let mut wall: HashSet<Cell> = HashSet::new();
        let mut complete = true;
        while let Some(c) = todo.pop() {
            *work += 1;
            for n in board.around(c.0, c.1) {
                if stones.contains(&n) {
                    wall.insert(n);
                } else if !on_board(n) || seen.contains(&n) {
                    // Never off the board: the region is enclosed.
                } else if seen.len() >= budget {
                    complete = false;
                } else {
                    seen.insert(n);
                    todo.push(n);
                }
            }
        }
        let mut region: Vec<_> = seen.into_iter().collect();
        let mut wall: Vec<_> = if complete { wall.into_iter().collect() } else { walk };
        region.sort_unstable();
        wall.sort_unstable();
        wall.dedup();
        return Some(Enclosure { region, complete, wall });
    }
    None
}

/// What an explanation of one case reads: the game, the board, and the
/// stones played up to the end of the case.
struct View<'a> {
    game: &'a ConnectionGame,
    board: Board,
    moves: Vec<Cell>,
    stones: HashSet<Cell>,
    /// Players taking turns: move `k` is player `k mod players`'s.
    players: usize,
}

impl View<'_> {
    /// The members (of `wanted`) of a family a group touches, with a cell
    /// for each.
    fn touched(&self, g: &[Cell], family: usize, wanted: u64) -> Vec<(usize, Cell)> {
        let conn = &self.game.engine;
        let base = conn.family_base(family);
        let n = conn.spec.families[family].members(conn.spec.shape);
        let mut out: Vec<(usize, Cell)> = Vec::new();
        for &c in g {
            let m = conn.cell_members(&self.board, c.0, c.1) >> base & wanted;
            for i in (0..n).filter(|i| m >> i & 1 == 1) {
                if !out.iter().any(|&(j, _)| j == i) {
                    out.push((i, c));
                }
            }
        }
        out.sort_unstable();
        out
    }

    fn member_name(&self, family: usize, i: usize) -> &str {
        let spec = &self.game.engine.spec;
        spec.families[family].member_name(spec.shape, i)
    }

    /// "corner `a` at (1, 1), corner `b` at ...".
    fn members(&self, t: &[(usize, Cell)], family: usize) -> String {
        let family_name = &self.game.spans.family_names[family];
        t.iter()
            .map(|&(i, c)| format!("{family_name} `{}` at {}", self.member_name(family, i), cell(c)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// What a connection goal asks for, in words.
    fn needed(&self, family: usize, wanted: u64, count: u32) -> String {
        let spec = &self.game.engine.spec;
        let p: Primitive = spec.families[family];
        if wanted == (1 << p.members(spec.shape)) - 1 {
            format!("{count} needed")
        } else {
            let names: Vec<String> = (0..p.members(spec.shape))
                .filter(|i| wanted >> i & 1 == 1)
                .map(|i| format!("`{}`", self.member_name(family, i)))
                .collect();
            format!("{} needed", names.join(" and "))
        }
    }

    /// The rules and values behind structure `i`, formed by the last move;
    /// its stones and the cells it encloses go to `marks`.
    fn formed(&self, e: &mut Explanation, i: usize, marks: &mut Marks) {
        let (sp, names) = (&self.game.spans, &self.game.names);
        let last = self.moves[self.moves.len() - 1];
        match self.game.engine.spec.structures[i] {
            Goal::Connects { family, members: wanted, count } => {
                let g = group(&self.board, &self.stones, last);
                let t = self.touched(&g, family, wanted);
                let says = format!(
                    "formed: one group touches {} `{}` members ({})",
                    t.len(),
                    sp.family_names[family],
                    self.needed(family, wanted, count)
                );
                e.rules.push((sp.structures[i], says));
                e.rules.push((sp.families[family], self.members(&t, family)));
                e.values.push((format!("{} group", names[i]), format!("{} stones: {}", g.len(), cells(&g, 24, true))));
                marks.stones.extend(g);
            }
            Goal::Encloses(_) => match enclosed_near(&self.board, &self.stones, last, &mut 0) {
                Some(Enclosure { region, complete, wall }) => {
                    let says = format!("formed: {} cannot reach the outside", cells(&region, 3, complete));
                    e.rules.push((sp.structures[i], says));
                    e.values.push((format!("{} encloses", names[i]), cells(&region, 24, complete)));
                    e.values.push((format!("{} stones around", names[i]), cells(&wall, 24, true)));
                    marks.stones.extend(wall);
                    marks.enclosed.extend(region);
                }
                None => {
                    // `any`: a stone with six stone neighbours.
                    let (board, stones) = (&self.board, &self.stones);
                    let inner = std::iter::once(last)
                        .chain(board.around(last.0, last.1))
                        .find(|&c| stones.contains(&c) && board.around(c.0, c.1).iter().all(|n| stones.contains(n)));
                    let says = inner.map_or("formed".to_string(), |c| {
                        format!("formed: the stone at {} is surrounded by stones", cell(c))
                    });
                    if let Some(c) = inner {
                        marks.stones.insert(c);
                        marks.stones.extend(board.around(c.0, c.1));
                    }
                    e.rules.push((sp.structures[i], says));
                }
            },
            Goal::Line { length } => {
                let row = self.line_through(last);
                let says = format!("formed: {} stones in a row ({length} needed)", row.len());
                e.rules.push((sp.structures[i], says));
                e.values.push((format!("{} line", names[i]), cells(&row, 24, true)));
                marks.stones.extend(row);
            }
        }
    }

    /// The longest row of stones through `c` along one of the board's
    /// axes.
    fn line_through(&self, c: Cell) -> Vec<Cell> {
        let offsets = self.board.offsets();
        let mut best = vec![c];
        for axis in 0..3 {
            let mut row = vec![c];
            for d in [offsets[axis], offsets[axis + 3]] {
                let mut at = step(c, d);
                while self.stones.contains(&at) {
                    row.push(at);
                    at = step(at, d);
                }
            }
            if row.len() > best.len() {
                best = row;
            }
        }
        best.sort_unstable();
        best
    }

    /// Why structure `i` is not formed after every move: for a connection,
    /// the group that came closest.
    fn not_formed(&self, e: &mut Explanation, i: usize, groups: &[Vec<Cell>]) {
        let sp = &self.game.spans;
        let says = match self.game.engine.spec.structures[i] {
            Goal::Connects { family, members: wanted, count } => {
                let best =
                    groups.iter().map(|g| self.touched(g, family, wanted)).max_by_key(|t| t.len()).unwrap_or_default();
                if !best.is_empty() {
                    e.values.push((format!("closest to {}", self.game.names[i]), self.members(&best, family)));
                }
                format!(
                    "not formed: one group touches at most {} `{}` members ({})",
                    best.len(),
                    sp.family_names[family],
                    self.needed(family, wanted, count)
                )
            }
            Goal::Encloses(_) => "not formed: every cell can reach the outside".to_string(),
            Goal::Line { length } => format!("not formed: no {length} stones of one player in a row"),
        };
        e.rules.push((sp.structures[i], says));
    }

    /// The groups of stones, each once (of each player's stones).
    fn groups(&self) -> Vec<Vec<Cell>> {
        let mut groups: Vec<Vec<Cell>> = Vec::new();
        let mut seen: HashSet<Cell> = HashSet::new();
        for p in 0..self.players {
            let own: HashSet<Cell> = self.moves.iter().skip(p).step_by(self.players).copied().collect();
            for &m in self.moves.iter().skip(p).step_by(self.players) {
                if !seen.contains(&m) {
                    let g = group(&self.board, &own, m);
                    seen.extend(g.iter().copied());
                    groups.push(g);
                }
            }
        }
        groups
    }
}

impl ConnectionGame {
    /// The explanation of a case solved to `outcome`.
    pub(super) fn explain_case(&self, case: &Case, outcome: CaseResult) -> Explanation {
        let board = case.board(self.engine.spec.shape);
        let played = outcome.win.map_or(case.moves.len(), |w| w.turn as usize);
        let players = self.engine.players();
        let mut moves: Vec<Cell> = case.moves[..played].iter().map(|s| s.cell()).collect();
        if let Some(w) = outcome.win {
            // A structure is of the winner's stones: the view holds those.
            moves = moves.into_iter().skip(w.player as usize).step_by(players).collect();
        }
        let stones: HashSet<Cell> = moves.iter().copied().collect();
        let view = View { game: self, board, moves, stones, players: if outcome.win.is_some() { 1 } else { players } };
        let side = view.board.dims();
        let (number, n) = (case.number, view.moves.len());
        let mut e = Explanation::default();
        let mut marks =
            Marks { moves: case.moves[..played].iter().map(|s| s.cell()).collect(), players, ..Marks::default() };
        let mut buf = Vec::new();
        self.line(&mut buf, number, outcome);
        match outcome.win {
            Some(w) => {
                let names: Vec<&str> = w.indices().map(|i| self.names[i].as_str()).collect();
                let last = view.moves[n - 1];
                let by = if players > 1 { format!(" by player {}", w.player + 1) } else { String::new() };
                e.summary = format!("case {number}: move {}{by} at {} forms {}", w.turn, cell(last), names.join(", "));
                let whose = if players > 1 { " of the player's" } else { "" };
                e.values.push(("board".into(), format!("{side}, {n} stones{whose} after move {}", w.turn)));
                for i in w.indices() {
                    view.formed(&mut e, i, &mut marks);
                }
                (marks.last, marks.names) = (Some(last), names.join(", "));
                e.rules.push((self.spans.win, "writes the line".into()));
            }
            None => {
                e.summary = format!("case {number}: after all {n} moves no structure is formed");
                let groups = view.groups();
                for i in 0..self.names.len() {
                    view.not_formed(&mut e, i, &groups);
                }
                e.values.push(("board".into(), format!("{side}, {n} stones in {} group(s)", groups.len())));
                e.rules.push((self.spans.none, "writes the line".into()));
            }
        }
        e.output = String::from_utf8_lossy(&buf).trim_end().to_string();
        match draw(&view.board, &marks) {
            Ok(cells) => e.picture = Some(Picture::Cells(cells)),
            Err(why) => e.values.push(("picture".into(), why)),
        }
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::connection::board::Shape;

    /// The cells at hexagonal distance exactly `r` from `(c, c)`.
    fn hex_ring(c: u32, r: i64) -> Vec<Cell> {
        let c = c as i64;
        let mut out = Vec::new();
        for dx in -r..=r {
            for dy in -r..=r {
                if dx.abs().max(dy.abs()).max((dx - dy).abs()) == r {
                    out.push(((c + dx) as u32, (c + dy) as u32));
                }
            }
        }
        out
    }

    #[test]
    fn a_ring_around_a_million_cells_costs_work_in_proportion_to_its_stones() {
        // FAILURES.md H13: a ring of radius 593 on a side-10^6 hexagon
        // encloses 3·593·592 + 1 > 2^20 empty cells; its explanation once
        // flood-filled up to 2^20 cells from each neighbour of the last stone.
        let s = 1_000_000;
        let board = Board::new(Shape::Hexagon, s);
        let ring = hex_ring(s, 593);
        let stones: HashSet<Cell> = ring.iter().copied().collect();
        let last = *ring.last().unwrap();
        let mut work = 0;
        let found = enclosed_near(&board, &stones, last, &mut work).expect("the ring encloses its inside");
        assert!(!found.complete);
        assert!(found.region.iter().all(|c| !stones.contains(c) && board.contains(c.0 as i64, c.1 as i64)));
        assert_eq!(found.wall.len(), ring.len(), "the wall is the ring");
        assert!(work <= 20 * ring.len(), "{work} steps for {} stones", ring.len());
        // The same ring with a gap encloses nothing, for about as much work.
        let mut open = stones.clone();
        open.remove(&ring[ring.len() / 2]);
        let mut work = 0;
        assert!(enclosed_near(&board, &open, last, &mut work).is_none());
        assert!(work <= 20 * ring.len(), "{work} steps");
    }

    #[test]
    fn small_regions_are_listed_whole() {
        let board = Board::new(Shape::Hexagon, 4);
        let ring: Vec<Cell> = hex_ring(4, 1);
        let stones: HashSet<Cell> = ring.iter().copied().collect();
        let found = enclosed_near(&board, &stones, ring[0], &mut 0).unwrap();
        assert!(found.complete);
        assert_eq!(found.region, vec![(4, 4)]);
        assert_eq!(found.wall.len(), 6);
    }
}
