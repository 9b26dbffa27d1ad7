//! Pictures that go with explanations (`arbiter run --explain`): what an
//! engine's state looks like at the end of a case, as data. An engine fills
//! one of three models from its own geometry and the rule file's words;
//! `crate::report::picture` draws them in the terminal and
//! `crate::report::svg` as SVG. Nothing here knows a game.

/// One picture of a case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Picture {
    /// A board of hexagonal cells laid out in rows.
    Cells(Cells),
    /// A house of cards: peaks of two cards, floors across valleys, and
    /// the triangles they make, level by level.
    Tower(Tower),
    /// Piles of cards in a grid, each with its top card.
    Piles(Piles),
}

/// Most lines of text a board picture takes (rows, or half-rows of a
/// board drawn in columns), and most cells across; a larger board is not
/// drawn (the explanation says so).
pub const MAX_LINES: u32 = 80;
pub const MAX_ROWS: u32 = 40;
pub const MAX_ACROSS: u32 = 60;

/// How the hexagonal cells of a board are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// In rows (cells with a point on top): `line` is the row, `pos`
    /// counts half-columns; a cell's neighbours are two half-columns away
    /// in its row and one half-column away in the rows next to it.
    Rows,
    /// In columns (cells with a flat top): `pos` is the column, `line`
    /// counts half-rows; a cell's neighbours are two half-rows away in its
    /// column and one half-row away in the columns next to it.
    Columns,
}

/// A board of hexagonal cells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cells {
    /// What the board is, in words (`hexagon of side 4`).
    pub title: String,
    /// Which way the input's two numbers grow, in words.
    pub axes: String,
    pub layout: Layout,
    /// Number of lines and of positions across (the largest plus one).
    pub lines: u32,
    pub across: u32,
    /// Every cell of the board, line by line, left to right.
    pub cells: Vec<Cell>,
    /// A label per line (in rows: the row's first number), or none.
    pub line_labels: Vec<String>,
    /// The rule file's names of the structures formed (`bridge`), or
    /// empty when none.
    pub structure: String,
    /// Players taking turns (1: one player places every stone).
    pub players: u8,
}

/// One cell of a [`Cells`] picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    pub line: u32,
    pub pos: u32,
    /// The cell as the input names it.
    pub at: (u32, u32),
    pub mark: Mark,
}

/// What a cell shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Empty,
    /// An empty cell the winning structure encloses.
    Enclosed,
    /// A stone of `player` (0-based); `part`: of the winning structure;
    /// `last`: the move that decided.
    Stone {
        player: u8,
        part: bool,
        last: bool,
    },
}

/// A card as a picture shows it: its name and its colour (an index into
/// the deck's colours, or the suit's index when the deck has none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    pub name: String,
    pub colour: usize,
}

/// A triangle of a [`Tower`]: who scored it, for how many points, on
/// which turn (from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Triangle {
    pub owner: usize,
    pub points: i64,
    pub turn: usize,
}

/// A house of cards of `base` peaks. Level 0 holds the base peaks; level
/// `l` holds at most `base - l` peaks, peak `i` of level `l + 1` standing
/// on floor `i` of level `l`, which lies across the valley between peaks
/// `i` and `i + 1` of level `l`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tower {
    pub base: usize,
    /// The players' names (triangle owners index them).
    pub players: Vec<String>,
    pub peaks: Vec<Peak>,
    pub floors: Vec<Floor>,
}

/// A peak: two cards leaning on each other; above the base, the upward
/// triangle it makes with the floor under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peak {
    pub level: usize,
    pub place: usize,
    pub left: Card,
    pub right: Card,
    pub triangle: Option<Triangle>,
}

/// A floor card across a valley, and the downward triangle it makes with
/// the two cards under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Floor {
    pub level: usize,
    pub place: usize,
    pub card: Card,
    pub triangle: Option<Triangle>,
}

/// Piles in a grid of `rows` by `columns`, filled left to right, top to
/// bottom in the order they were started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piles {
    pub rows: usize,
    pub columns: usize,
    pub piles: Vec<Pile>,
    /// A card that found no place (an overflow): its position in the deal
    /// (from 1) and the card.
    pub left_over: Option<(usize, Card)>,
}

/// One pile: its top card, how many cards it holds, and its place in the
/// order the piles are examined (from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pile {
    pub top: Card,
    pub cards: usize,
    pub examined: usize,
}
