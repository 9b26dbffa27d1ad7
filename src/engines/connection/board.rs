//! Board shapes of hexagonal cells, as data: each shape is a convex region
//! of the triangular lattice cut out by a few half-planes (its **sides**),
//! with the lattice's six neighbour offsets in cyclic order.
//!
//! A cell is a pair `(x, y)` of whole numbers (the input's two numbers). A
//! shape of height `H` and width `W` holds the cells with
//! `a·x + b·y <= h·H + w·W + q` for each of its sides `(a, b, h, w, q)`;
//! a cell lies **on** a side when that inequality is an equality. Most
//! shapes have one size, their side `S` (`H = W = S`); the rhombus may be
//! given two, `H` rows (`x`) by `W` columns (`y`), a parallelogram. Sides are listed in order around the board, and corner
//! `i` is where side `i - 1` meets side `i`: a cell is on corner `i` when it
//! is on both. So a cell belongs to its corners and to the sides through
//! them, and every question the engine asks about the border ("which side
//! members and corner members does this cell touch?") is a function of the
//! set of sides the cell lies on, a bitmask of at most six bits.
//!
//! | shape | cells (`S` = side) | sides, in order | corners, in order |
//! | --- | --- | --- | --- |
//! | `hexagon` | `1 <= x, y <= 2S-1`, `\|x-y\| <= S-1` | `bottom-right` (x = 1), `right` (y - x = S-1), `top-right` (y = 2S-1), `top-left` (x = 2S-1), `left` (x - y = S-1), `bottom-left` (y = 1) | `bottom` (1, 1), `lower-right` (1, S), `upper-right` (S, 2S-1), `top` (2S-1, 2S-1), `upper-left` (2S-1, S), `lower-left` (S, 1) |
//! | `rhombus` | `1 <= x <= H`, `1 <= y <= W` (`H = W = S`, or two sizes) | `top` (x = 1), `right` (y = W), `bottom` (x = H), `left` (y = 1) | `top-left` (1, 1), `top-right` (1, W), `bottom-right` (H, W), `bottom-left` (H, 1) |
//! | `triangle` | `1 <= y <= x <= S` | `left` (y = 1), `bottom` (x = S), `right` (y = x) | `top` (1, 1), `bottom-left` (S, 1), `bottom-right` (S, S) |
//!
//! The hexagon and the triangle use the lattice whose neighbours of
//! `(x, y)` are `(x±1, y)`, `(x, y±1)`, `(x+1, y+1)`, `(x-1, y-1)`; the
//! rhombus the one with `(x+1, y-1)`, `(x-1, y+1)` instead of the last two.
//! Every side runs along a lattice direction, so each shape is convex in
//! the lattice: a lattice point inside a loop of cells is a cell.
//!
//! The board is never stored cell by cell: a hexagon of side 10^6 has
//! 3·10^12 cells. Everything here is arithmetic on coordinates.

/// Largest side of every shape: coordinates (at most `2S - 1` on the
/// hexagon) stay below 2^21, so a cell packs into one `u64` key and sums
/// of coordinates never overflow.
pub(crate) const MAX_SIDE: u32 = 1_000_000;

/// Smallest side: a board of one cell, which lies on every side and is
/// every corner.
pub(crate) const MIN_SIDE: u32 = 1;

/// One side of a shape: the cells with `a·x + b·y <= h·H + w·W + q`.
#[derive(Debug)]
pub struct Side {
    pub name: &'static str,
    a: i64,
    b: i64,
    h: i64,
    w: i64,
    q: i64,
}

const fn side(name: &'static str, a: i64, b: i64, h: i64, w: i64, q: i64) -> Side {
    Side { name, a, b, h, w, q }
}

/// The size of one board: one side `S`, or (a rhombus only) a height `H`
/// (rows, `x`) and a width `W` (columns, `y`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dims {
    Side(u32),
    Rect { height: u32, width: u32 },
}

impl Dims {
    /// `(H, W)`: both the side for a board of one size.
    pub fn height_width(self) -> (u32, u32) {
        match self {
            Dims::Side(s) => (s, s),
            Dims::Rect { height, width } => (height, width),
        }
    }
}

/// The sizes an input case may give its board: a side within a range, or
/// (a rhombus only) a height and a width within ranges of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sizes {
    Side { min: u32, max: u32 },
    Rect { height: (u32, u32), width: (u32, u32) },
}

impl Sizes {
    /// The largest height and width a case may give.
    pub fn largest(self) -> (u32, u32) {
        match self {
            Sizes::Side { max, .. } => (max, max),
            Sizes::Rect { height, width } => (height.1, width.1),
        }
    }
}

impl std::fmt::Display for Dims {
    /// `side 5`, `height 4 and width 7` (as messages name a board).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Dims::Side(s) => write!(f, "side {s}"),
            Dims::Rect { height, width } => write!(f, "height {height} and width {width}"),
        }
    }
}

/// Everything the engine knows about a shape.
#[derive(Debug)]
pub struct ShapeDef {
    pub name: &'static str,
    /// Neighbour offsets in cyclic order: two offsets that follow each
    /// other are neighbours of each other too. The order turns one way in
    /// the `(x, y)` plane (counter-clockwise with x to the right and y up).
    pub neighbours: [(i32, i32); 6],
    /// Sides in order around the board.
    pub sides: &'static [Side],
    /// Corner `i` lies where side `i - 1` meets side `i`.
    pub corners: &'static [&'static str],
    /// The shape may have a height and a width of its own (a rhombus
    /// becomes a parallelogram); the others have one side.
    pub two_sizes: bool,
    /// Largest coordinate of a board of height `H` and width `W`.
    extent: fn(i64, i64) -> i64,
    /// The cells of a board of height `H` and width `W` in words, for
    /// messages.
    describe: fn(i64, i64) -> String,
}

const TRIANGULAR: [(i32, i32); 6] = [(1, 1), (0, 1), (-1, 0), (-1, -1), (0, -1), (1, 0)];
const SLANTED: [(i32, i32); 6] = [(0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0)];

// A shape of one side has `H = W = S`: its bounds are written with `H`.
const HEXAGON_SIDES: [Side; 6] = [
    side("bottom-right", -1, 0, 0, 0, -1),
    side("right", -1, 1, 1, 0, -1),
    side("top-right", 0, 1, 2, 0, -1),
    side("top-left", 1, 0, 2, 0, -1),
    side("left", 1, -1, 1, 0, -1),
    side("bottom-left", 0, -1, 0, 0, -1),
];
const RHOMBUS_SIDES: [Side; 4] = [
    side("top", -1, 0, 0, 0, -1),
    side("right", 0, 1, 0, 1, 0),
    side("bottom", 1, 0, 1, 0, 0),
    side("left", 0, -1, 0, 0, -1),
];
const TRIANGLE_SIDES: [Side; 3] =
    [side("left", 0, -1, 0, 0, -1), side("bottom", 1, 0, 1, 0, 0), side("right", -1, 1, 0, 0, 0)];

static HEXAGON: ShapeDef = ShapeDef {
    name: "hexagon",
    neighbours: TRIANGULAR,
    sides: &HEXAGON_SIDES,
    corners: &["bottom", "lower-right", "upper-right", "top", "upper-left", "lower-left"],
    two_sizes: false,
    extent: |s, _| 2 * s - 1,
    describe: |s, _| format!("cells `x y` have 1 <= x, y <= {} and |x - y| <= {}", 2 * s - 1, s - 1),
};

static RHOMBUS: ShapeDef = ShapeDef {
    name: "rhombus",
    neighbours: SLANTED,
    sides: &RHOMBUS_SIDES,
    corners: &["top-left", "top-right", "bottom-right", "bottom-left"],
    two_sizes: true,
    extent: |h, w| h.max(w),
    describe: |h, w| {
        if h == w {
            format!("cells `x y` have 1 <= x, y <= {h}")
        } else {
            format!("cells `x y` have 1 <= x <= {h} and 1 <= y <= {w}")
        }
    },
};

static TRIANGLE: ShapeDef = ShapeDef {
    name: "triangle",
    neighbours: TRIANGULAR,
    sides: &TRIANGLE_SIDES,
    corners: &["top", "bottom-left", "bottom-right"],
    two_sizes: false,
    extent: |s, _| s,
    describe: |s, _| format!("cells `x y` have 1 <= y <= x <= {s}"),
};

/// The shapes a rule file can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Hexagon,
    Rhombus,
    Triangle,
}

impl Shape {
    pub const ALL: [Shape; 3] = [Shape::Hexagon, Shape::Rhombus, Shape::Triangle];

    pub fn def(self) -> &'static ShapeDef {
        match self {
            Shape::Hexagon => &HEXAGON,
            Shape::Rhombus => &RHOMBUS,
            Shape::Triangle => &TRIANGLE,
        }
    }

    pub fn name(self) -> &'static str {
        self.def().name
    }

    /// The shape called `name`.
    pub fn named(name: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Number of sides (and of corners).
    pub fn sides(self) -> usize {
        self.def().sides.len()
    }

    /// Bit `i` of a side mask is side `i`: the mask of the sides that meet
    /// at corner `i`.
    pub fn corner_sides(self, i: usize) -> u8 {
        let n = self.sides();
        (1 << i | 1 << ((i + n - 1) % n)) as u8
    }
}

/// One board: a shape and its size, with the sides' bounds precomputed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Board {
    shape: Shape,
    dims: Dims,
    /// Per side of the shape: `a`, `b` and the bound `h·H + w·W + q`; a shape
    /// with fewer than six sides has sides that never bind after its own
    /// (`0·x + 0·y <= i64::MAX`), so every loop runs over six.
    bounds: [(i64, i64, i64); 6],
    neighbours: [(i32, i32); 6],
    /// The cells on no side, as three ranges: `x`, `y` and `x - y` each
    /// within `base..base + span` (`span` counted from `base`, unsigned).
    /// Every side of every shape bounds one of these three forms, so a
    /// cell is on the board and on no side exactly when all three hold.
    inner: [(i64, u64); 3],
}

/// The three linear forms sides run along: `x`, `y` and `x - y`.
const FORMS: [(i64, i64); 3] = [(1, 0), (0, 1), (1, -1)];

/// Far beyond every coordinate: the bound of a form no side bounds.
const UNBOUNDED: i64 = 1 << 40;

impl Board {
    /// A board of side `side` (`MIN_SIDE..=MAX_SIDE`; callers check).
    pub fn new(shape: Shape, side: u32) -> Self {
        Board::sized(shape, Dims::Side(side))
    }

    /// A board of the size `dims` (each size within `MIN_SIDE..=MAX_SIDE`;
    /// two sizes only for a shape with [`ShapeDef::two_sizes`]; callers
    /// check).
    pub fn sized(shape: Shape, dims: Dims) -> Self {
        let (h, w) = dims.height_width();
        debug_assert!((MIN_SIDE..=MAX_SIDE).contains(&h) && (MIN_SIDE..=MAX_SIDE).contains(&w));
        let def = shape.def();
        let (h, w) = (h as i64, w as i64);
        let mut bounds = [(0, 0, i64::MAX); 6];
        for (b, d) in bounds.iter_mut().zip(def.sides) {
            *b = (d.a, d.b, d.h * h + d.w * w + d.q);
        }
        // Each side bounds a form from above (`a·x + b·y <= c`) or, with
        // the form's coefficients negated, from below.
        let mut range = [(-UNBOUNDED, UNBOUNDED); 3];
        for &(a, b, c) in &bounds[..def.sides.len()] {
            let f = FORMS.iter().position(|&f| f == (a, b) || f == (-a, -b));
            let f = f.expect("every side runs along a lattice direction");
            if FORMS[f] == (a, b) {
                range[f].1 = range[f].1.min(c);
            } else {
                range[f].0 = range[f].0.max(-c);
            }
        }
        // Strictly inside `lo..=hi`: `lo + 1..=hi - 1`.
        let inner = range.map(|(lo, hi)| (lo + 1, (hi - lo - 1).max(0) as u64));
        Board { shape, dims, bounds, neighbours: def.neighbours, inner }
    }

    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The board's size, as the input gave it.
    pub fn dims(&self) -> Dims {
        self.dims
    }

    /// The largest coordinate of a cell (the smallest is 1).
    pub fn extent(&self) -> u32 {
        let (h, w) = self.dims.height_width();
        (self.shape.def().extent)(h as i64, w as i64) as u32
    }

    /// The cells of this board in words, for messages.
    pub fn describe(&self) -> String {
        let (h, w) = self.dims.height_width();
        (self.shape.def().describe)(h as i64, w as i64)
    }

    /// True when `(x, y)` is a cell of the board.
    #[inline]
    pub fn contains(&self, x: i64, y: i64) -> bool {
        self.bounds.iter().all(|&(a, b, c)| a * x + b * y <= c)
    }

    /// The sides cell `(x, y)` (on the board) lies on, bit `i` for side `i`.
    #[inline]
    pub fn sides_of(&self, x: u32, y: u32) -> u8 {
        let (x, y) = (x as i64, y as i64);
        let mut mask = 0u8;
        for (i, &(a, b, c)) in self.bounds.iter().enumerate() {
            mask |= ((a * x + b * y == c) as u8) << i;
        }
        mask
    }

    /// Both at once: the sides `(x, y)` lies on, or `None` when it is not
    /// a cell of the board. A cell on no side (most cells of a large
    /// board) costs three range checks; the others go through
    /// [`Board::locate_sides`].
    #[inline(always)]
    pub fn locate(&self, x: u32, y: u32) -> Option<u8> {
        let (x, y) = (x as i64, y as i64);
        let [(bx, sx), (by, sy), (bd, sd)] = self.inner;
        if ((x - bx) as u64) < sx && ((y - by) as u64) < sy && ((x - y - bd) as u64) < sd {
            return Some(0);
        }
        self.locate_sides(x as u32, y as u32)
    }

    /// [`Board::locate`] without branches: the shape's side coefficients
    /// are constants here (one branch on the shape), so each side costs
    /// an add and two compares.
    #[inline(never)]
    pub fn locate_sides(&self, x: u32, y: u32) -> Option<u8> {
        match self.shape {
            Shape::Hexagon => self.locate_on(&HEXAGON_SIDES, x, y),
            Shape::Rhombus => self.locate_on(&RHOMBUS_SIDES, x, y),
            Shape::Triangle => self.locate_on(&TRIANGLE_SIDES, x, y),
        }
    }

    #[inline(always)]
    fn locate_on<const N: usize>(&self, sides: &[Side; N], x: u32, y: u32) -> Option<u8> {
        let (x, y) = (x as i64, y as i64);
        let (mut outside, mut mask) = (0i64, 0u8);
        for (i, d) in sides.iter().enumerate() {
            let slack = self.bounds[i].2 - (d.a * x + d.b * y);
            outside |= slack;
            mask |= ((slack == 0) as u8) << i;
        }
        (outside >= 0).then_some(mask)
    }

    /// A key identifying the cell `(x, y)` (any coordinates `0..2^21`,
    /// so the ring of cells just outside the board has keys too).
    #[inline]
    pub fn key(x: u32, y: u32) -> u64 {
        ((x as u64) << 21) | y as u64
    }

    /// The six neighbour offsets, in cyclic order.
    #[inline]
    pub fn offsets(&self) -> &[(i32, i32); 6] {
        &self.neighbours
    }

    /// The six neighbour positions of `(x, y)`, in cyclic order, on the
    /// board or not (coordinates at least 1, so neighbours at least 0).
    #[inline]
    pub fn around(&self, x: u32, y: u32) -> [(u32, u32); 6] {
        self.neighbours.map(|(dx, dy)| ((x as i32 + dx) as u32, (y as i32 + dy) as u32))
    }

    /// Every cell, row by row (for tests and small boards).
    pub fn cells(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let hi = self.extent();
        (1..=hi).flat_map(move |x| (1..=hi).map(move |y| (x, y))).filter(|&(x, y)| self.contains(x as i64, y as i64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on_border(b: &Board, (x, y): (u32, u32)) -> bool {
        b.around(x, y).iter().any(|&(a, c)| !b.contains(a as i64, c as i64))
    }

    #[test]
    fn cell_counts_follow_the_geometry() {
        for s in 1..9u64 {
            let count = |shape| Board::new(shape, s as u32).cells().count() as u64;
            assert_eq!(count(Shape::Hexagon), 3 * s * (s - 1) + 1);
            assert_eq!(count(Shape::Rhombus), s * s);
            assert_eq!(count(Shape::Triangle), s * (s + 1) / 2);
        }
    }

    #[test]
    fn locate_is_contains_and_sides_of() {
        for shape in Shape::ALL {
            for s in [1, 2, 5, MAX_SIDE] {
                let b = Board::new(shape, s);
                let hi = b.extent();
                let probe = [0, 1, 2, s - 1, s, s + 1, hi - 1, hi, hi + 1, 2 * MAX_SIDE + 5, 999_999_999, u32::MAX];
                for x in probe {
                    for y in probe {
                        let want = b.contains(x as i64, y as i64).then(|| b.sides_of(x, y));
                        assert_eq!(b.locate(x, y), want, "{shape:?} {s} ({x}, {y})");
                        assert_eq!(b.locate_sides(x, y), want, "{shape:?} {s} ({x}, {y})");
                    }
                }
            }
        }
    }

    #[test]
    fn locate_agrees_everywhere_near_small_boards() {
        for shape in Shape::ALL {
            for s in 1..9 {
                let b = Board::new(shape, s);
                for x in 0..b.extent() + 3 {
                    for y in 0..b.extent() + 3 {
                        let want = b.contains(x as i64, y as i64).then(|| b.sides_of(x, y));
                        assert_eq!(b.locate(x, y), want, "{shape:?} {s} ({x}, {y})");
                    }
                }
            }
        }
    }

    #[test]
    fn border_cells_are_exactly_the_cells_on_a_side() {
        for shape in Shape::ALL {
            for s in 1..9 {
                let b = Board::new(shape, s);
                for c in b.cells() {
                    assert_eq!(on_border(&b, c), b.sides_of(c.0, c.1) != 0, "{shape:?} {s} {c:?}");
                }
            }
        }
    }

    #[test]
    fn sides_hold_side_cells_and_corners_are_single_cells() {
        for shape in Shape::ALL {
            let n = shape.sides();
            for s in 2..9u32 {
                let b = Board::new(shape, s);
                let mut per_side = vec![0u32; n];
                let mut per_corner = vec![0u32; n];
                for (x, y) in b.cells() {
                    let m = b.sides_of(x, y);
                    assert!(m.count_ones() <= 2, "{shape:?} {s}: ({x}, {y}) on {m:b}");
                    for (i, c) in per_side.iter_mut().enumerate() {
                        *c += (m >> i & 1) as u32;
                    }
                    for (i, c) in per_corner.iter_mut().enumerate() {
                        let k = shape.corner_sides(i);
                        *c += (m & k == k) as u32;
                    }
                }
                // A side holds S cells, both end corners included.
                assert_eq!(per_side, vec![s; n], "{shape:?} {s}");
                assert_eq!(per_corner, vec![1; n], "{shape:?} {s}");
            }
            // Side 1: one cell on every side, every corner.
            let b = Board::new(shape, 1);
            assert_eq!(b.cells().collect::<Vec<_>>(), vec![(1, 1)]);
            assert_eq!(b.sides_of(1, 1), ((1u32 << n) - 1) as u8);
        }
    }

    #[test]
    fn the_tables_name_the_cells_they_say() {
        let name_of = |shape: Shape, s: u32, c: (u32, u32)| -> Vec<&str> {
            let b = Board::new(shape, s);
            let m = b.sides_of(c.0, c.1);
            let def = shape.def();
            (0..def.sides.len())
                .filter(|&i| m & shape.corner_sides(i) == shape.corner_sides(i))
                .map(|i| def.corners[i])
                .collect()
        };
        assert_eq!(name_of(Shape::Hexagon, 5, (1, 1)), ["bottom"]);
        assert_eq!(name_of(Shape::Hexagon, 5, (9, 9)), ["top"]);
        assert_eq!(name_of(Shape::Hexagon, 5, (1, 5)), ["lower-right"]);
        assert_eq!(name_of(Shape::Rhombus, 5, (1, 5)), ["top-right"]);
        assert_eq!(name_of(Shape::Rhombus, 5, (5, 1)), ["bottom-left"]);
        assert_eq!(name_of(Shape::Triangle, 5, (1, 1)), ["top"]);
        assert_eq!(name_of(Shape::Triangle, 5, (5, 5)), ["bottom-right"]);
        let b = Board::new(Shape::Rhombus, 4);
        assert_eq!(b.sides_of(1, 2), 1); // top
        assert_eq!(b.sides_of(4, 2), 4); // bottom
        let t = Board::new(Shape::Triangle, 4);
        assert_eq!(t.sides_of(3, 3), 4); // right
        assert_eq!(t.sides_of(3, 1), 1); // left
    }

    #[test]
    fn consecutive_neighbours_are_adjacent_and_turn_one_way() {
        for shape in Shape::ALL {
            let nb = shape.def().neighbours;
            for i in 0..6 {
                let (a, b) = (nb[i], nb[(i + 1) % 6]);
                assert!(nb.contains(&(a.0 - b.0, a.1 - b.1)), "{shape:?}");
                // Counter-clockwise: the cross product of a step and the next is positive.
                assert!(a.0 * b.1 - a.1 * b.0 > 0, "{shape:?}");
                assert_eq!(nb[(i + 3) % 6], (-a.0, -a.1));
            }
        }
    }
}
