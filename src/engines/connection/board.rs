//! A hexagonal board of hexagonal cells, side `S` cells, in axial
//! coordinates `(x, y)`:
//!
//! - cells: `1 <= x, y <= 2S-1` and `|x - y| <= S-1` (`3S(S-1)+1` cells);
//! - the six neighbours of `(x, y)`, clockwise: `(x+1, y+1)`, `(x, y+1)`,
//!   `(x-1, y)`, `(x-1, y-1)`, `(x, y-1)`, `(x+1, y)`. Two neighbours that
//!   follow each other in this order are neighbours of each other too;
//! - six corners, numbered 0..6: `(1, 1)`, `(1, S)`, `(S, 2S-1)`,
//!   `(2S-1, 2S-1)`, `(2S-1, S)`, `(S, 1)`;
//! - six sides without their corners, numbered 0..6: side `i` runs from
//!   corner `i` to corner `i+1` (`x = 1`, `y - x = S-1`, `y = 2S-1`,
//!   `x = 2S-1`, `x - y = S-1`, `y = 1`).
//!
//! The board is never stored cell by cell: a board of side 10^6 has 3·10^12
//! cells. Everything here is arithmetic on coordinates.

/// Largest side the board supports: coordinates stay below 2^21, so a cell
/// packs into one `u64` key and sums of coordinates never overflow.
pub const MAX_SIDE: u32 = 1_000_000;

/// Smallest side at which the six corners are six different cells.
pub const MIN_SIDE: u32 = 2;

/// Offsets of the six neighbours, clockwise from twelve o'clock.
pub const NEIGHBOURS: [(i32, i32); 6] = [(1, 1), (0, 1), (-1, 0), (-1, -1), (0, -1), (1, 0)];

/// A geometric feature a cell can lie on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feature {
    /// Corner `0..6`.
    Corner(u8),
    /// Side `0..6`, corners excluded.
    Side(u8),
    /// Not on the border.
    Inside,
}

/// The geometry of one board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HexBoard {
    side: u32,
}

impl HexBoard {
    /// A board of side `side` (`MIN_SIDE..=MAX_SIDE`; callers check).
    pub fn new(side: u32) -> Self {
        debug_assert!((MIN_SIDE..=MAX_SIDE).contains(&side));
        HexBoard { side }
    }

    pub fn side(&self) -> u32 {
        self.side
    }

    /// Number of cells, `3S(S-1)+1`.
    pub fn cells(&self) -> u64 {
        let s = self.side as u64;
        3 * s * (s - 1) + 1
    }

    /// True when `(x, y)` is a cell of the board.
    #[inline]
    pub fn contains(&self, x: i64, y: i64) -> bool {
        let s = self.side as i64;
        let hi = 2 * s - 1;
        x >= 1 && y >= 1 && x <= hi && y <= hi && (x - y).abs() < s
    }

    /// A key identifying the cell `(x, y)` (any coordinates `0..2^21`,
    /// so the ring of cells just outside the board has keys too).
    #[inline]
    pub fn key(x: u32, y: u32) -> u64 {
        ((x as u64) << 21) | y as u64
    }

    /// The six neighbour positions of `(x, y)`, clockwise, on the board or not.
    #[inline]
    pub fn around(x: u32, y: u32) -> [(u32, u32); 6] {
        NEIGHBOURS.map(|(dx, dy)| ((x as i32 + dx) as u32, (y as i32 + dy) as u32))
    }

    /// Which corner or side `(x, y)` lies on (the cell must be on the board).
    #[inline]
    pub fn feature(&self, x: u32, y: u32) -> Feature {
        let s = self.side;
        let hi = 2 * s - 1;
        let on_border = x == 1 || y == 1 || x == hi || y == hi || x + s - 1 == y || y + s - 1 == x;
        if !on_border {
            return Feature::Inside;
        }
        let corners = [(1, 1), (1, s), (s, hi), (hi, hi), (hi, s), (s, 1)];
        if let Some(i) = corners.iter().position(|&c| c == (x, y)) {
            return Feature::Corner(i as u8);
        }
        let side = if x == 1 {
            0
        } else if y == x + s - 1 {
            1
        } else if y == hi {
            2
        } else if x == hi {
            3
        } else if x == y + s - 1 {
            4
        } else {
            5
        };
        Feature::Side(side)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_cells(b: &HexBoard) -> Vec<(u32, u32)> {
        let hi = 2 * b.side() - 1;
        let mut v = Vec::new();
        for x in 1..=hi {
            for y in 1..=hi {
                if b.contains(x as i64, y as i64) {
                    v.push((x, y));
                }
            }
        }
        v
    }

    #[test]
    fn cell_count_and_features_follow_the_geometry() {
        for s in 2..9 {
            let b = HexBoard::new(s);
            let cells = all_cells(&b);
            assert_eq!(cells.len() as u64, b.cells());
            let mut corners = [0; 6];
            let mut sides = [0; 6];
            for &(x, y) in &cells {
                let border = HexBoard::around(x, y).iter().any(|&(a, c)| !b.contains(a as i64, c as i64));
                match b.feature(x, y) {
                    Feature::Corner(i) => corners[i as usize] += 1,
                    Feature::Side(i) => sides[i as usize] += 1,
                    Feature::Inside => assert!(!border, "({x},{y}) is on the border of side {s}"),
                }
                if border {
                    assert_ne!(b.feature(x, y), Feature::Inside);
                }
            }
            assert_eq!(corners, [1; 6]);
            assert_eq!(sides, [s - 2; 6]);
        }
    }

    #[test]
    fn sides_run_between_consecutive_corners() {
        let b = HexBoard::new(5);
        // Side i's cells are neighbours of corner i or corner i+1 at their ends.
        let cells = all_cells(&b);
        let corner = |i: u8| cells.iter().copied().find(|&(x, y)| b.feature(x, y) == Feature::Corner(i)).unwrap();
        for i in 0..6u8 {
            let (a, c) = (corner(i), corner((i + 1) % 6));
            let touches = |k: (u32, u32)| {
                HexBoard::around(k.0, k.1)
                    .iter()
                    .any(|&(x, y)| b.contains(x as i64, y as i64) && b.feature(x, y) == Feature::Side(i))
            };
            assert!(touches(a) && touches(c), "side {i}");
        }
    }

    #[test]
    fn consecutive_neighbours_are_adjacent() {
        for i in 0..6 {
            let (a, b) = (NEIGHBOURS[i], NEIGHBOURS[(i + 1) % 6]);
            let d = (a.0 - b.0, a.1 - b.1);
            assert!(NEIGHBOURS.contains(&d));
        }
    }
}
