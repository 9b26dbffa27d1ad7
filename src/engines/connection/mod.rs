//! Connection games on a board of hexagonal cells (a hexagon, a rhombus, a
//! triangle: see `board`): one player, or several in turn, place stones,
//! and the first move after which its player has some winning structure
//! wins (several players and lines of stones: `play`).
//!
//! The rule file names **cell families** built from geometric primitives of
//! the board (its corners, its sides without their corners, its sides with
//! them); each family has one member per corner or side, each member a set
//! of border cells. It names **structures**, each one of:
//! - `connects K of F`: one connected group of stones touches `K` distinct
//!   members of family `F`; `connects A and B of F`: it touches the named
//!   members `A` and `B` (all of them);
//! - `encloses empty`: some empty cell cannot reach the outside of the board
//!   by steps between adjacent non-stone cells;
//! - `encloses any`: some cell, stone or empty, is enclosed in that sense
//!   when every *other* stone blocks.
//! - `line N`: N stones in a row along one of the board's three axes.
//!
//! The core sees only indices, bitmasks and counters (`solve`):
//! - a case is read whole (`read`); sorting its cells' keys finds every
//!   pair of adjacent stones in one linear pass (memory is proportional to
//!   the moves, never to the board's cells, and no input can make it slow);
//! - a cell's family members are one table lookup by the set of sides it
//!   lies on (a bitmask of at most 6 bits, computed from its coordinates);
//! - groups are a union-find over stone indices, each root holding the
//!   bitmask of family members its group touches;
//! - enclosures come from Euler's formula. The stones, as an induced
//!   subgraph of the triangular lattice, form a plane graph whose bounded
//!   faces number `E - V + C` (E adjacent stone pairs, V stones, C groups).
//!   `T` of them are unit triangles (three mutually adjacent stones); every
//!   other bounded face holds a non-stone lattice point, which is a board
//!   cell because every shape is convex in the lattice, and is enclosed. So
//!   `holes = E - V + C - T` is positive exactly when an empty cell is
//!   enclosed. A stone is enclosed (`any`) exactly when a hole exists or
//!   the stone has six stone neighbours on the board. All four counts
//!   change in O(1) per move. `tests` checks this against flood fills on
//!   every shape.
//!
//! Cases are independent: the engine implements [`Cases`], so `run`
//! solves them on every core (`--jobs`) through the parallel driver ([`crate::game::run_parts`]).

pub(crate) mod board;
mod explain;
pub(crate) mod lower;
mod picture;
mod play;
pub(crate) mod read;
pub(crate) mod schema;
pub(crate) mod solve;

use crate::engines::connection::board::{Board, Shape, Sizes, MAX_SIDE};
use crate::engines::connection::read::{Case, Format, Reader};
use crate::engines::connection::solve::Solver;
use crate::game::{Ahead, Cases, Explanation, Input, InputError, Mark, RunError, RunOptions};
use crate::source::Span;
use crate::template::OutputLine;

pub use read::{MAX_CASES, MAX_CASE_MOVES, MAX_MOVES};

/// Most structures a rule file can define (one bit each in a result mask).
pub const MAX_STRUCTURES: usize = 64;
/// Most family members over all families (one bit each in a group mask).
pub const MAX_MEMBERS: usize = 64;

/// The border cells a family's members are made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Primitive {
    /// The corners, one cell each (on a board of side 1, one cell is every corner).
    Corners,
    /// The sides without their corners (`S - 2` cells each).
    Sides,
    /// The sides with both end corners (a corner is in two members).
    SidesWithCorners,
}

impl Primitive {
    /// Number of members of a family made of this primitive on `shape`.
    pub fn members(self, shape: Shape) -> usize {
        shape.sides()
    }

    /// The name of member `i` on `shape` (a corner's or a side's name).
    pub fn member_name(self, shape: Shape, i: usize) -> &'static str {
        match self {
            Primitive::Corners => shape.def().corners[i],
            Primitive::Sides | Primitive::SidesWithCorners => shape.def().sides[i].name,
        }
    }

    /// Whether a cell lying on the sides `on` (bit `i`: side `i`) belongs
    /// to member `i`.
    pub fn holds(self, shape: Shape, on: u8, i: usize) -> bool {
        match self {
            Primitive::Corners => on & shape.corner_sides(i) == shape.corner_sides(i),
            // On side `i` and on no corner (a cell of a thin rhombus, one
            // row high, lies on two opposite sides).
            Primitive::Sides => {
                on >> i & 1 == 1 && (0..shape.sides()).all(|j| on & shape.corner_sides(j) != shape.corner_sides(j))
            }
            Primitive::SidesWithCorners => on >> i & 1 == 1,
        }
    }
}

/// What a structure asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    /// One group touches at least `count` distinct members of family
    /// `family` among `members` (bit `i`: the family's member `i`): all
    /// the family (`3 of edge`) or named ones (`top and bottom of side`).
    Connects { family: usize, members: u64, count: u32 },
    /// An enclosed cell: empty only (with several players: holding no
    /// stone of the player's), or any (stone or empty).
    Encloses(Enclose),
    /// At least `length` of one player's stones in a straight line along
    /// one of the board's three axes.
    Line { length: u32 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enclose {
    Empty,
    Any,
}

/// Most players a rule file can name (moves go round them in turn).
pub const MAX_PLAYERS: u32 = 16;

/// Longest line a structure may ask for (`line: N`): before the win no
/// row is as long as the shortest line asked, so a move walks at most
/// that many stones along each axis.
pub const MAX_LINE: u32 = 100;

/// The lowered rules of a connection game: numbers, indices and flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionSpec {
    pub shape: Shape,
    /// Cell families, in rule-file order.
    pub families: Vec<Primitive>,
    /// Winning structures, in rule-file (and output) order.
    pub structures: Vec<Goal>,
    /// The sizes a case may give its board.
    pub sizes: Sizes,
    /// How many players take turns (1: one player places every stone).
    pub players: usize,
}

/// The compiled engine: member masks by border position, per-structure tests.
#[derive(Debug, Clone)]
pub struct Connection {
    pub spec: ConnectionSpec,
    /// The member bits of a cell, indexed by the mask of the sides it lies on.
    by_sides: [u64; 64],
    /// The connection structures: (structure bit, member mask it counts
    /// in, count).
    connects: Vec<(u64, u64, u32)>,
    /// Structure bits that an enclosure of each kind satisfies.
    empty_bits: u64,
    any_bits: u64,
    /// Everything beyond one player's groups and holes (see [`Extra`]);
    /// `None` keeps play on the path of the base games.
    pub(crate) extra: Option<Extra>,
    /// Structures the bands of rows cannot rule out (all but connections).
    unbanded: u64,
}

/// What the general play needs: several players, lines (`play.rs`).
#[derive(Debug, Clone)]
pub(crate) struct Extra {
    pub players: usize,
    /// Line structures: (bit, length); the longest length asked.
    pub lines: Vec<(u64, u32)>,
    pub longest: u32,
}

impl Connection {
    /// Compiles a spec. The lowering has checked it (counts within the
    /// family sizes, at most [`MAX_STRUCTURES`] structures and
    /// [`MAX_MEMBERS`] members, sizes within the board's limits, at most
    /// [`MAX_PLAYERS`] players, lines of at most [`MAX_LINE`] stones).
    pub fn new(spec: ConnectionSpec) -> Connection {
        let shape = spec.shape;
        let n = shape.sides();
        let mut by_sides = [0u64; 64];
        for (on, bits) in by_sides.iter_mut().enumerate().take(1 << n) {
            let mut base = 0;
            for &p in &spec.families {
                for i in 0..p.members(shape) {
                    if p.holds(shape, on as u8, i) {
                        *bits |= 1 << (base + i);
                    }
                }
                base += p.members(shape);
            }
        }
        let players = spec.players.max(1);
        let (mut empty_bits, mut any_bits, mut unbanded) = (0, 0, 0);
        let mut extra = Extra { players, lines: Vec::new(), longest: 0 };
        let base: Vec<u32> = (0..spec.families.len()).map(|f| family_base(&spec, f)).collect();
        let mut connects = Vec::new();
        for (i, g) in spec.structures.iter().enumerate() {
            let bit = 1u64 << i;
            match *g {
                Goal::Connects { family, members, count } => connects.push((bit, members << base[family], count)),
                Goal::Encloses(Enclose::Any) => any_bits |= bit,
                Goal::Encloses(Enclose::Empty) => (empty_bits, any_bits) = (empty_bits | bit, any_bits | bit),
                Goal::Line { length } => {
                    extra.lines.push((bit, length));
                    extra.longest = extra.longest.max(length);
                }
            }
            if !matches!(g, Goal::Connects { .. }) {
                unbanded |= bit;
            }
        }
        let needed = players > 1 || !extra.lines.is_empty();
        Connection { spec, by_sides, connects, empty_bits, any_bits, extra: needed.then_some(extra), unbanded }
    }

    /// The member bits of a cell lying on the sides `sides`.
    #[inline]
    pub fn members_by_sides(&self, sides: u8) -> u64 {
        self.by_sides[sides as usize & 63]
    }

    /// The connection structures a group touching the members `mask`
    /// forms (their bits).
    #[inline]
    pub fn connected(&self, mask: u64) -> u64 {
        let mut found = 0;
        if mask != 0 {
            for &(bit, fm, k) in &self.connects {
                if (mask & fm).count_ones() >= k {
                    found |= bit;
                }
            }
        }
        found
    }

    /// How many players take turns (at least 1).
    pub fn players(&self) -> usize {
        self.spec.players.max(1)
    }

    /// What reading an input needs.
    pub fn format(&self) -> Format {
        Format { shape: self.spec.shape, sizes: self.spec.sizes }
    }

    /// Solves a case read whole: its outcome, or the error of its first
    /// repeated cell.
    pub fn solve(&self, case: &Case, solver: &mut Solver) -> Result<CaseResult, InputError> {
        solver.solve(self, &case.board(self.spec.shape), &case.moves).map_err(|(at, first)| case.repeated(at, first))
    }

    /// Runs every case of `input` on this thread, calling `emit` with each
    /// case's result as soon as the case is read whole (so the outputs of
    /// earlier cases are written before a later case's input error is
    /// returned).
    pub fn run<E>(&self, input: &mut Input, mut emit: impl FnMut(u64, CaseResult) -> Result<(), E>) -> Result<(), E>
    where
        E: From<InputError>,
    {
        let format = self.format();
        let (mut reader, mut case, mut solver) = (Reader::default(), Case::default(), Solver::default());
        while format.read(input, &mut reader, &mut case)? {
            let outcome = self.solve(&case, &mut solver)?;
            emit(case.number, outcome)?;
        }
        Ok(())
    }

    /// The family members (bits, as in a group's mask) cell `(x, y)` of
    /// `board` touches.
    pub fn cell_members(&self, board: &Board, x: u32, y: u32) -> u64 {
        self.members_by_sides(board.sides_of(x, y))
    }

    /// The first member bit of each family.
    pub fn family_base(&self, family: usize) -> u32 {
        family_base(&self.spec, family)
    }
}

fn family_base(spec: &ConnectionSpec, family: usize) -> u32 {
    spec.families[..family].iter().map(|p| p.members(spec.shape) as u32).sum()
}

/// The result of one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaseResult {
    pub win: Option<Win>,
}

/// The first winning move and the structures present after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Win {
    /// 1-based move number.
    pub turn: u64,
    /// Bit `i` set when structure `i` (rule-file order) exists.
    pub structures: u64,
    /// The player who made the move (0-based; 0 with one player).
    pub player: u32,
}

impl Win {
    /// Indices of the structures present, in rule-file order.
    pub fn indices(&self) -> impl Iterator<Item = usize> + '_ {
        (0..64).filter(move |i| self.structures >> i & 1 == 1)
    }
}

// The largest side must keep keys within 21 bits.
const _: () = assert!(2 * MAX_SIDE < 1 << 21);

/// A lowered connection game: the engine plus the output wording.
pub struct ConnectionGame {
    pub engine: Connection,
    /// Structure names, in rule-file order.
    pub names: Vec<String>,
    pub win: OutputLine<WinFields<'static>>,
    pub none: OutputLine<NoneFields>,
    pub spans: ConnectionSpans,
}

/// Where the rules an explanation cites are written.
#[derive(Debug, Clone, Default)]
pub struct ConnectionSpans {
    /// Each structure's and each cell family's section header.
    pub structures: Vec<Span>,
    pub families: Vec<Span>,
    pub family_names: Vec<String>,
    pub win: Span,
    pub none: Span,
}

crate::fields! {
    /// The line of a case won: its number, the structures formed, the
    /// winning move's number and the player who made it (1-based).
    pub struct WinFields<'a> {
        "case" case: i64,
        "structures" structures: &'a [&'a str],
        "move" turn: i64,
        "player" player: i64,
    }
}

crate::fields! {
    /// The line of a case nobody won: its number.
    pub struct NoneFields {
        "case" case: i64,
    }
}

impl ConnectionGame {
    /// Writes the output line of case `case`.
    fn line(&self, out: &mut Vec<u8>, case: u64, outcome: CaseResult) {
        match outcome.win {
            None => self.none.line(out, &NoneFields { case: case as i64 }),
            Some(w) => {
                let names: Vec<&str> = w.indices().map(|i| self.names[i].as_str()).collect();
                let player = w.player as i64 + 1;
                self.win.line(out, &WinFields { case: case as i64, structures: &names, turn: w.turn as i64, player });
            }
        }
    }
}

impl Cases for ConnectionGame {
    type Case = Case;
    type Reader = Reader;
    type Scratch = Solver;

    fn read(&self, input: &mut Input, reader: &mut Reader, case: &mut Case) -> Result<bool, InputError> {
        self.engine.format().read(input, reader, case)
    }

    fn boundary(&self, reader: &mut Reader, within: &mut u64, line: &[u8]) -> Mark {
        self.engine.format().boundary(reader, within, line)
    }

    /// `within` move lines are left, and only the last ends the case.
    fn ahead(&self, within: u64) -> Ahead {
        if within >= 2 {
            Ahead::NonBlank(within - 1)
        } else {
            Ahead::Unknown
        }
    }

    fn solve(&self, case: &Case, solver: &mut Solver, _: &RunOptions, out: &mut Vec<u8>) -> Result<(), RunError> {
        if let Some(why) = &case.too_large {
            return Err(RunError::Limit(why.clone()));
        }
        let outcome = self.engine.solve(case, solver)?;
        self.line(out, case.number, outcome);
        Ok(())
    }

    fn explain(
        &self,
        case: &Case,
        solver: &mut Solver,
        _: &RunOptions,
        each: &mut dyn FnMut(Explanation) -> Result<(), RunError>,
    ) -> Result<(), RunError> {
        if let Some(why) = &case.too_large {
            return Err(RunError::Limit(why.clone()));
        }
        let outcome = self.engine.solve(case, solver)?;
        each(self.explain_case(case, outcome))
    }

    fn pictures(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests;
