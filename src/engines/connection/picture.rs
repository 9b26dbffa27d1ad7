//! The board of a case as a picture ([`crate::game::picture::Cells`]):
//! every cell placed in rows of hexagons by the board's own lattice, with
//! the stones of every player, the stones of the structure formed, the
//! cells it encloses and the move that decided. Boards too large to draw
//! in a terminal are not drawn; the explanation says why.

use std::collections::{HashMap, HashSet};

use super::board::{Board, Shape};
use crate::game::picture::{Cell as Drawn, Cells, Layout, Mark, MAX_ACROSS, MAX_LINES, MAX_ROWS};

type Cell = (u32, u32);

/// What the picture marks on the board.
#[derive(Debug, Default)]
pub(super) struct Marks {
    /// Every move played up to the end of the case, in order (move `k` is
    /// player `k mod players`'s).
    pub moves: Vec<Cell>,
    pub players: usize,
    /// The stones of the structure formed, and the empty cells it encloses.
    pub stones: HashSet<Cell>,
    pub enclosed: HashSet<Cell>,
    /// The move that decided, when one did.
    pub last: Option<Cell>,
    /// The names of the structures formed, as the rule file writes them.
    pub names: String,
}

/// How a shape is drawn so that its named corners and sides land where
/// their names say: the hexagon in columns, with corner `bottom` (1, 1)
/// at the bottom, `(x, y + 1)` up and to the right of `(x, y)` (two
/// o'clock) and `(x + 1, y + 1)` straight above it; the triangle and the
/// rhombus in rows of `x` from the top (corner `top` and side `top` at
/// `x = 1`), `y` growing to the right, the rhombus's rows leaning right.
/// Gives the layout and the cell's line and position (unshifted); in
/// every layout a cell's six lattice neighbours are the six cells drawn
/// next to it.
fn place(shape: Shape, (x, y): Cell) -> (Layout, i64, i64) {
    let (x, y) = (x as i64, y as i64);
    match shape {
        Shape::Hexagon => (Layout::Columns, -(x + y), y - x),
        Shape::Triangle => (Layout::Rows, x, 2 * y - x),
        Shape::Rhombus => (Layout::Rows, x, 2 * y + x),
    }
}

/// The directions of the input's two numbers in a layout, in words.
fn axes(layout: Layout) -> &'static str {
    match layout {
        Layout::Columns => "a cell's first number grows up and to the left, its second up and to the right",
        Layout::Rows => "rows by a cell's first number; along a row its second grows to the right",
    }
}

/// The board with its marks, or why it is not drawn.
pub(super) fn draw(board: &Board, marks: &Marks) -> Result<Cells, String> {
    let too_large = || {
        format!(
            "not drawn: a board of {} is larger than a picture ({MAX_ROWS} rows or columns of {MAX_ACROSS} cells)",
            board.dims()
        )
    };
    // Every shape's rows and columns are within its extent, and its cells
    // within the square of the extent: a board past this is too large
    // without listing a cell.
    if board.extent() > 2 * MAX_ACROSS + MAX_ROWS {
        return Err(too_large());
    }
    let mut layout = Layout::Rows;
    let placed: Vec<(i64, i64, Cell)> = board
        .cells()
        .map(|c| {
            let (l, line, pos) = place(board.shape(), c);
            layout = l;
            (line, pos, c)
        })
        .collect();
    let (l0, l1) = placed.iter().fold((i64::MAX, i64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (p0, p1) = placed.iter().fold((i64::MAX, i64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let (lines, across) = ((l1 - l0 + 1) as u32, (p1 - p0 + 1) as u32);
    let fits = match layout {
        Layout::Rows => lines <= MAX_ROWS && across <= 2 * MAX_ACROSS,
        Layout::Columns => lines <= MAX_LINES && across <= MAX_ROWS,
    };
    if !fits {
        return Err(too_large());
    }
    let players = marks.players.max(1);
    let owner: HashMap<Cell, u8> = marks.moves.iter().enumerate().map(|(k, &c)| (c, (k % players) as u8)).collect();
    let mut cells: Vec<Drawn> = placed
        .into_iter()
        .map(|(line, pos, at)| {
            let mark = match owner.get(&at) {
                Some(&player) => Mark::Stone { player, part: marks.stones.contains(&at), last: marks.last == Some(at) },
                None if marks.enclosed.contains(&at) => Mark::Enclosed,
                None => Mark::Empty,
            };
            Drawn { line: (line - l0) as u32, pos: (pos - p0) as u32, at, mark }
        })
        .collect();
    cells.sort_unstable_by_key(|c| (c.line, c.pos));
    let mut line_labels = Vec::new();
    if layout == Layout::Rows {
        line_labels = vec![String::new(); lines as usize];
        for c in &cells {
            if line_labels[c.line as usize].is_empty() {
                line_labels[c.line as usize] = c.at.0.to_string();
            }
        }
    }
    Ok(Cells {
        title: format!("{} of {}", board.shape().name(), board.dims()),
        axes: axes(layout).to_string(),
        layout,
        lines,
        across,
        cells,
        line_labels,
        structure: marks.names.clone(),
        players: players as u8,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::connection::board::Dims;

    /// In every layout, the cells drawn next to a cell are exactly its
    /// neighbours on the board, and no two cells share a place.
    #[test]
    fn neighbours_on_the_board_are_neighbours_in_the_picture() {
        let boards = [
            Board::new(Shape::Hexagon, 5),
            Board::new(Shape::Triangle, 6),
            Board::new(Shape::Rhombus, 4),
            Board::sized(Shape::Rhombus, Dims::Rect { height: 2, width: 5 }),
        ];
        for board in boards {
            let cells = draw(&board, &Marks::default()).unwrap();
            let at: HashMap<(u32, u32), (u32, u32)> = cells.cells.iter().map(|c| ((c.line, c.pos), c.at)).collect();
            assert_eq!(at.len(), cells.cells.len(), "{board:?}: two cells in one place");
            let next: [(i64, i64); 6] = match cells.layout {
                Layout::Rows => [(0, -2), (0, 2), (-1, -1), (-1, 1), (1, -1), (1, 1)],
                Layout::Columns => [(-2, 0), (2, 0), (-1, -1), (-1, 1), (1, -1), (1, 1)],
            };
            for c in &cells.cells {
                let (l, p) = (c.line as i64, c.pos as i64);
                let mut drawn: Vec<Cell> = next
                    .iter()
                    .filter_map(|(dl, dp)| {
                        let (l, p) = (l + dl, p + dp);
                        (l >= 0 && p >= 0).then(|| at.get(&(l as u32, p as u32)).copied()).flatten()
                    })
                    .collect();
                let mut real: Vec<Cell> = board
                    .around(c.at.0, c.at.1)
                    .into_iter()
                    .filter(|n| board.contains(n.0 as i64, n.1 as i64))
                    .collect();
                drawn.sort_unstable();
                real.sort_unstable();
                assert_eq!(drawn, real, "{board:?} {:?}", c.at);
            }
        }
    }

    /// The corners named in board.rs are where their names say: the
    /// lowest, the highest, the leftmost and the rightmost cells.
    #[test]
    fn the_named_corners_are_where_their_names_say() {
        let cells = draw(&Board::new(Shape::Triangle, 4), &Marks::default()).unwrap();
        let find = |at| *cells.cells.iter().find(|c| c.at == at).unwrap();
        assert_eq!(find((1, 1)).line, 0, "top");
        assert_eq!(find((4, 1)).line, 3);
        assert!(find((4, 1)).pos < find((4, 4)).pos, "bottom-left, bottom-right");
        let s = 3;
        let cells = draw(&Board::new(Shape::Hexagon, s), &Marks::default()).unwrap();
        let find = |at| *cells.cells.iter().find(|c| c.at == at).unwrap();
        let (last_line, last_pos) = (cells.lines - 1, cells.across - 1);
        assert_eq!(find((1, 1)).line, last_line, "bottom");
        assert_eq!(find((2 * s - 1, 2 * s - 1)).line, 0, "top");
        assert_eq!(find((s, 1)).pos, 0, "lower-left");
        assert_eq!(find((2 * s - 1, s)).pos, 0, "upper-left");
        assert_eq!(find((1, s)).pos, last_pos, "lower-right");
        assert_eq!(find((s, 2 * s - 1)).pos, last_pos, "upper-right");
        assert!(find((1, s)).line > find((s, 2 * s - 1)).line);
        // (x, y + 1) at two o'clock: one column right, one half-row up.
        let (a, b) = (find((2, 2)), find((2, 3)));
        assert_eq!((b.pos, b.line + 1), (a.pos + 1, a.line));
        let rhombus =
            draw(&Board::sized(Shape::Rhombus, Dims::Rect { height: 2, width: 5 }), &Marks::default()).unwrap();
        let find = |at| *rhombus.cells.iter().find(|c| c.at == at).unwrap();
        assert_eq!((find((1, 1)).line, find((1, 5)).line, find((2, 1)).line), (0, 0, 1));
        assert!(find((1, 5)).pos > find((1, 1)).pos, "top-right right of top-left");
    }

    #[test]
    fn large_boards_are_not_drawn() {
        let why = draw(&Board::new(Shape::Hexagon, 1_000_000), &Marks::default()).unwrap_err();
        assert!(why.contains("side 1000000"), "{why}");
        assert!(draw(&Board::new(Shape::Hexagon, 21), &Marks::default()).is_err());
        assert!(draw(&Board::new(Shape::Hexagon, 20), &Marks::default()).is_ok());
    }
}
