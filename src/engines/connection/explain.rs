//! Explanations of the connection engine: the winning move, and for each
//! structure it formed the group and the family members it touches, or the
//! enclosed cells and the stones around them; when nothing wins, how close
//! each connection came.

use std::collections::HashSet;

use super::board::HexBoard;
use super::{ConnectionGame, Goal};
use crate::game::{Explain, Explanation, Input, RunError, RunOptions};

type Cells = Vec<(u32, u32)>;

/// Cells a flood fill of an explanation visits at most.
const TRACE_CELLS: usize = 1 << 20;

fn cell((x, y): (u32, u32)) -> String {
    format!("({x}, {y})")
}

/// At most `n` cells, then how many more.
fn cells(list: &[(u32, u32)], n: usize) -> String {
    let mut s: Vec<String> = list.iter().take(n).map(|&c| cell(c)).collect();
    if list.len() > n {
        s.push(format!("... ({} in all)", list.len()));
    }
    s.join(" ")
}

/// The stones of the group holding `start` (which must be a stone).
fn group(stones: &HashSet<(u32, u32)>, start: (u32, u32)) -> Vec<(u32, u32)> {
    let mut seen: HashSet<(u32, u32)> = HashSet::from([start]);
    let mut todo = vec![start];
    let mut out = Vec::new();
    while let Some(c) = todo.pop() {
        out.push(c);
        for n in HexBoard::around(c.0, c.1) {
            if stones.contains(&n) && seen.insert(n) {
                todo.push(n);
            }
        }
    }
    out.sort_unstable();
    out
}

/// An empty region next to `at` that cannot reach the outside of the
/// board: its cells and the stones around it. `None` when every region
/// next to `at` escapes (or is too large to trace).
fn enclosed_near(board: &HexBoard, stones: &HashSet<(u32, u32)>, at: (u32, u32)) -> Option<(Cells, Cells)> {
    // A cell beyond the stones' bounding box reaches the outside in a
    // straight line, so the fill stops there as well as at the board's edge.
    let (lo_x, hi_x) = stones.iter().fold((u32::MAX, 0), |(a, b), c| (a.min(c.0), b.max(c.0)));
    let (lo_y, hi_y) = stones.iter().fold((u32::MAX, 0), |(a, b), c| (a.min(c.1), b.max(c.1)));
    let on_board = |c: (u32, u32)| {
        board.contains(c.0 as i64, c.1 as i64) && (lo_x..=hi_x).contains(&c.0) && (lo_y..=hi_y).contains(&c.1)
    };
    for start in HexBoard::around(at.0, at.1) {
        if !on_board(start) || stones.contains(&start) {
            continue;
        }
        let mut seen: HashSet<(u32, u32)> = HashSet::from([start]);
        let mut todo = vec![start];
        let mut wall: HashSet<(u32, u32)> = HashSet::new();
        let mut escapes = false;
        while let Some(c) = todo.pop() {
            for n in HexBoard::around(c.0, c.1) {
                if !on_board(n) {
                    escapes = true;
                    break;
                }
                if stones.contains(&n) {
                    wall.insert(n);
                } else if seen.insert(n) {
                    todo.push(n);
                }
            }
            if escapes || seen.len() > TRACE_CELLS {
                escapes = true;
                break;
            }
        }
        if !escapes {
            let mut region: Vec<_> = seen.into_iter().collect();
            let mut wall: Vec<_> = wall.into_iter().collect();
            region.sort_unstable();
            wall.sort_unstable();
            return Some((region, wall));
        }
    }
    None
}

impl Explain for ConnectionGame {
    /// For each case: the winning move, and for each structure it formed
    /// the group and the family members it touches, or the enclosed cells
    /// and the stones around them; when nothing wins, how close each
    /// connection came.
    fn explain(
        &self,
        input: &mut Input,
        _: &RunOptions,
        each: &mut dyn FnMut(Explanation) -> Result<(), RunError>,
    ) -> Result<(), RunError> {
        let conn = &self.engine;
        let sp = &self.spans;
        self.engine.run_keeping_moves(input, |case, side, outcome, moves| {
            let board = HexBoard::new(side);
            let stones: HashSet<(u32, u32)> = moves.iter().copied().collect();
            let mut e = Explanation::default();
            let mut buf = Vec::new();
            // The family members a group touches, with a cell for each.
            let touched = |g: &[(u32, u32)], family: usize| -> Vec<(usize, (u32, u32))> {
                let base = conn.family_base(family);
                let mut out: Vec<(usize, (u32, u32))> = Vec::new();
                for &c in g {
                    let m = conn.cell_members(side, c.0, c.1) >> base & 0x3f;
                    for i in (0..6).filter(|i| m >> i & 1 == 1) {
                        if !out.iter().any(|&(j, _)| j == i) {
                            out.push((i, c));
                        }
                    }
                }
                out.sort_unstable();
                out
            };
            let members = |t: &[(usize, (u32, u32))], family: usize| -> String {
                t.iter()
                    .map(|&(i, c)| format!("{} {} at {}", sp.family_names[family], i + 1, cell(c)))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            match outcome.win {
                Some(w) => {
                    let names: Vec<&str> = w.indices().map(|i| self.names[i].as_str()).collect();
                    self.line(&mut buf, case, outcome);
                    let last = moves[moves.len() - 1];
                    e.summary = format!("case {case}: move {} at {} forms {}", w.turn, cell(last), names.join(", "));
                    e.values
                        .push(("board".into(), format!("side {side}, {} stones after move {}", moves.len(), w.turn)));
                    for i in w.indices() {
                        match conn.spec.structures[i] {
                            Goal::Connects { family, count } => {
                                let g = group(&stones, last);
                                let t = touched(&g, family);
                                e.rules.push((
                                    sp.structures[i],
                                    format!(
                                        "formed: one group touches {} `{}` members ({count} needed)",
                                        t.len(),
                                        sp.family_names[family]
                                    ),
                                ));
                                e.rules.push((sp.families[family], members(&t, family)));
                                e.values.push((
                                    format!("{} group", self.names[i]),
                                    format!("{} stones: {}", g.len(), cells(&g, 24)),
                                ));
                            }
                            Goal::Encloses(_) => match enclosed_near(&board, &stones, last) {
                                Some((region, wall)) => {
                                    e.rules.push((
                                        sp.structures[i],
                                        format!("formed: {} cannot reach the outside", cells(&region, 3)),
                                    ));
                                    e.values.push((format!("{} encloses", self.names[i]), cells(&region, 24)));
                                    e.values.push((format!("{} stones around", self.names[i]), cells(&wall, 24)));
                                }
                                None => {
                                    // `any`: a stone with six stone neighbours.
                                    let inner =
                                        std::iter::once(last).chain(HexBoard::around(last.0, last.1)).find(|&c| {
                                            stones.contains(&c)
                                                && HexBoard::around(c.0, c.1).iter().all(|n| stones.contains(n))
                                        });
                                    let says = inner.map_or("formed".to_string(), |c| {
                                        format!("formed: the stone at {} is surrounded by stones", cell(c))
                                    });
                                    e.rules.push((sp.structures[i], says));
                                }
                            },
                        }
                    }
                    e.rules.push((sp.win, "writes the line".into()));
                }
                None => {
                    self.line(&mut buf, case, outcome);
                    e.summary = format!("case {case}: after all {} moves no structure is formed", moves.len());
                    // Each connection goal: the best any group got.
                    let mut groups: Vec<Vec<(u32, u32)>> = Vec::new();
                    let mut seen: HashSet<(u32, u32)> = HashSet::new();
                    for &m in moves {
                        if !seen.contains(&m) {
                            let g = group(&stones, m);
                            seen.extend(g.iter().copied());
                            groups.push(g);
                        }
                    }
                    for (i, goal) in conn.spec.structures.iter().enumerate() {
                        let says = match *goal {
                            Goal::Connects { family, count } => {
                                let best = groups
                                    .iter()
                                    .map(|g| touched(g, family))
                                    .max_by_key(|t| t.len())
                                    .unwrap_or_default();
                                if !best.is_empty() {
                                    e.values.push((format!("closest to {}", self.names[i]), members(&best, family)));
                                }
                                format!(
                                    "not formed: one group touches at most {} `{}` members ({count} needed)",
                                    best.len(),
                                    sp.family_names[family]
                                )
                            }
                            Goal::Encloses(_) => "not formed: every cell can reach the outside".to_string(),
                        };
                        e.rules.push((sp.structures[i], says));
                    }
                    e.values.push((
                        "board".into(),
                        format!("side {side}, {} stones in {} group(s)", moves.len(), groups.len()),
                    ));
                    e.rules.push((sp.none, "writes the line".into()));
                }
            }
            e.output = String::from_utf8_lossy(&buf).trim_end().to_string();
            each(e)
        })
    }
}
