//! Connection games on a board of hexagonal cells (a hexagon, a rhombus, a
//! triangle: see `board`): one player places stones, and the first move
//! after which some winning structure exists wins.
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
//!
//! The core sees only indices, bitmasks and counters:
//! - stones live in an open-addressing hash table keyed by cell (`table`;
//!   memory is proportional to the moves, never to the board's cells);
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

pub mod board;
mod explain;
pub mod lower;
pub mod schema;
mod table;

use crate::engines::connection::board::{Board, Shape, MAX_SIDE};
use crate::engines::connection::table::{CellTable, NONE};
use crate::game::records::Counted;
use crate::game::{Game, Input, InputError, Line, Output, RunError, RunOptions, Token};
use crate::source::Span;
use crate::template::OutputLine;

/// Most structures a rule file can define (one bit each in a result mask).
pub const MAX_STRUCTURES: usize = 64;
/// Most moves in one case (stone indices are `u32`).
pub const MAX_MOVES: u64 = u32::MAX as u64 - 1;
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
            Primitive::Sides => on == 1 << i,
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
    /// An enclosed cell: empty only, or any (stone or empty).
    Encloses(Enclose),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enclose {
    Empty,
    Any,
}

/// The lowered rules of a connection game: numbers, indices and flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionSpec {
    pub shape: Shape,
    /// Cell families, in rule-file order.
    pub families: Vec<Primitive>,
    /// Winning structures, in rule-file (and output) order.
    pub structures: Vec<Goal>,
    /// Sides the input may use (within `MIN_SIDE..=MAX_SIDE`).
    pub min_side: u32,
    pub max_side: u32,
}

/// The compiled engine: member masks by border position, per-structure tests.
#[derive(Debug, Clone)]
pub struct Connection {
    pub spec: ConnectionSpec,
    /// The member bits of a cell, indexed by the mask of the sides it lies on.
    by_sides: [u64; 64],
    /// For each structure: (member mask it counts in, count); enclosures as `None`.
    connects: Vec<Option<(u64, u32)>>,
    /// Structure bits that an enclosure of each kind satisfies.
    empty_bits: u64,
    any_bits: u64,
}

impl Connection {
    /// Compiles a spec. The lowering has checked it (counts within the
    /// family sizes, at most [`MAX_STRUCTURES`] structures and
    /// [`MAX_MEMBERS`] members, sides within the board's limits).
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
        let mut empty_bits = 0;
        let mut any_bits = 0;
        let base: Vec<u32> = (0..spec.families.len()).map(|f| family_base(&spec, f)).collect();
        let connects = spec
            .structures
            .iter()
            .enumerate()
            .map(|(i, g)| match *g {
                Goal::Connects { family, members, count } => Some((members << base[family], count)),
                Goal::Encloses(e) => {
                    any_bits |= 1 << i;
                    if e == Enclose::Empty {
                        empty_bits |= 1 << i;
                    }
                    None
                }
            })
            .collect();
        Connection { spec, by_sides, connects, empty_bits, any_bits }
    }

    /// The member bits of cell `(x, y)` of `board`.
    #[inline]
    fn members_of(&self, board: &Board, x: u32, y: u32) -> u64 {
        self.by_sides[board.sides_of(x, y) as usize]
    }

    /// Runs every case of `input`, calling `emit` with each case's result
    /// as soon as the case is read whole (so the outputs of earlier cases
    /// are written before a later case's input error is returned).
    pub fn run<E>(&self, input: &mut Input, mut emit: impl FnMut(u64, Outcome) -> Result<(), E>) -> Result<(), E>
    where
        E: From<InputError>,
    {
        self.cases(input, false, |case, _, outcome, _| emit(case, outcome))
    }

    /// [`Connection::run`] that also hands `emit` each case's board and
    /// its moves up to the win (all of them when nothing wins).
    pub fn run_keeping_moves<E>(
        &self,
        input: &mut Input,
        emit: impl FnMut(u64, Board, Outcome, &[(u32, u32)]) -> Result<(), E>,
    ) -> Result<(), E>
    where
        E: From<InputError>,
    {
        self.cases(input, true, emit)
    }

    fn cases<E>(
        &self,
        input: &mut Input,
        keep: bool,
        mut emit: impl FnMut(u64, Board, Outcome, &[(u32, u32)]) -> Result<(), E>,
    ) -> Result<(), E>
    where
        E: From<InputError>,
    {
        let mut reader = CaseReader::new(self.spec.shape, self.spec.min_side, self.spec.max_side);
        let mut play = Play::new(self);
        let mut kept = Vec::new();
        while let Some(case) = reader.next_case(input)? {
            play.reset(case.board);
            kept.clear();
            let mut outcome = Outcome { win: None };
            for k in 1..=case.moves {
                let mv = reader.next_move(input, &case, k)?;
                if k >= MAX_MOVES {
                    return Err(mv.line.error(format!("more than {MAX_MOVES} moves in one case")).into());
                }
                if outcome.win.is_some() {
                    // Ignored, but still checked for repeats.
                    play.occupy(mv.x, mv.y).map_err(|j| mv.repeated(j))?;
                    continue;
                }
                let found = play.place(mv.x, mv.y).map_err(|j| mv.repeated(j))?;
                if keep {
                    kept.push((mv.x, mv.y));
                }
                if found != 0 {
                    outcome.win = Some(Win { turn: k, structures: found });
                }
            }
            emit(case.number, case.board, outcome, &kept)?;
        }
        Ok(())
    }

    /// The family members (bits, as in a group's mask) cell `(x, y)` of
    /// `board` touches.
    pub fn cell_members(&self, board: &Board, x: u32, y: u32) -> u64 {
        self.members_of(board, x, y)
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
pub struct Outcome {
    pub win: Option<Win>,
}

/// The first winning move and the structures present after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Win {
    /// 1-based move number.
    pub turn: u64,
    /// Bit `i` set when structure `i` (rule-file order) exists.
    pub structures: u64,
}

impl Win {
    /// Indices of the structures present, in rule-file order.
    pub fn indices(&self) -> impl Iterator<Item = usize> + '_ {
        (0..64).filter(move |i| self.structures >> i & 1 == 1)
    }
}

/// A placed stone in the union-find: its parent, and for a root the size
/// of its group and the family members the group touches (one record, so
/// that a step of a search reads one cache line).
#[derive(Debug, Clone, Copy)]
struct Node {
    parent: u32,
    size: u32,
    members: u64,
}

/// The state of one case: stones, groups and enclosure counters.
pub struct Play<'c> {
    conn: &'c Connection,
    board: Board,
    table: CellTable,
    /// Stones on the board (placed or only occupied).
    stones: usize,
    /// Per placed stone, in move order.
    nodes: Vec<Node>,
    /// Per placed stone: its stone neighbours on the board (kept only when
    /// a structure encloses `any`).
    around: Vec<u8>,
    /// Whether `around` and `surrounded` are kept.
    count_around: bool,
    /// `E - V + C - T`: bounded faces that are not unit triangles.
    holes: i64,
    /// Stones whose six neighbours are all stones on the board.
    surrounded: u64,
}

impl<'c> Play<'c> {
    pub fn new(conn: &'c Connection) -> Self {
        Play {
            conn,
            board: Board::new(conn.spec.shape, conn.spec.min_side.max(1)),
            table: CellTable::new(),
            stones: 0,
            nodes: Vec::new(),
            around: Vec::new(),
            count_around: conn.any_bits & !conn.empty_bits != 0,
            holes: 0,
            surrounded: 0,
        }
    }

    /// An empty board.
    pub fn reset(&mut self, board: Board) {
        self.table.clear();
        self.board = board;
        self.stones = 0;
        self.nodes.clear();
        self.around.clear();
        self.holes = 0;
        self.surrounded = 0;
    }

    #[inline]
    fn find(&mut self, mut a: u32) -> u32 {
        loop {
            let p = self.nodes[a as usize].parent;
            if p == a {
                return a;
            }
            // Path halving.
            let g = self.nodes[p as usize].parent;
            self.nodes[a as usize].parent = g;
            a = g;
        }
    }

    /// Marks `(x, y)` occupied without updating groups (moves after the
    /// win). `Err(j)`: the cell already holds stone `j` (0-based move).
    pub fn occupy(&mut self, x: u32, y: u32) -> Result<(), u64> {
        let idx = self.stones as u32;
        self.table.insert(Board::key(x, y), idx).map_err(|j| j as u64)?;
        self.stones += 1;
        Ok(())
    }

    /// Places a stone on `(x, y)` (on the board) and returns the bits of
    /// the structures that exist after it. `Err(j)`: the cell already holds
    /// stone `j` (0-based move).
    pub fn place(&mut self, x: u32, y: u32) -> Result<u64, u64> {
        debug_assert_eq!(self.nodes.len(), self.stones, "place after occupy");
        self.occupy(x, y)?;
        let idx = self.nodes.len() as u32;
        let mut near = [NONE; 6];
        let mut n = 0u8;
        for (i, (a, b)) in self.board.around(x, y).into_iter().enumerate() {
            let j = self.table.get(Board::key(a, b));
            near[i] = j;
            n += (j != NONE) as u8;
        }
        if self.count_around {
            for &j in near.iter().filter(|&&j| j != NONE) {
                let c = &mut self.around[j as usize];
                *c += 1;
                if *c == 6 {
                    self.surrounded += 1;
                }
            }
            self.around.push(n);
            if n == 6 {
                self.surrounded += 1;
            }
        }
        // The new stone's group: joined with each neighbouring group in turn
        // (union by size, the larger root stays).
        self.nodes.push(Node { parent: idx, size: 1, members: self.conn.members_of(&self.board, x, y) });
        let mut root = idx;
        let mut triangles = 0i64;
        let mut merged = 0i64;
        for i in 0..6 {
            if near[i] == NONE {
                continue;
            }
            if near[(i + 1) % 6] != NONE {
                triangles += 1;
            }
            let r = self.find(near[i]);
            if r == root {
                continue;
            }
            merged += 1;
            let (big, small) =
                if self.nodes[r as usize].size > self.nodes[root as usize].size { (r, root) } else { (root, r) };
            let s = self.nodes[small as usize];
            let b = &mut self.nodes[big as usize];
            b.size += s.size;
            b.members |= s.members;
            self.nodes[small as usize].parent = big;
            root = big;
        }
        // dE = n, dV = 1, dC = 1 - merged, dT = triangles.
        self.holes += n as i64 - merged - triangles;
        let mask = self.nodes[root as usize].members;
        let mut found = 0u64;
        for (i, c) in self.conn.connects.iter().enumerate() {
            if let Some((fm, k)) = *c {
                if (mask & fm).count_ones() >= k {
                    found |= 1 << i;
                }
            }
        }
        if self.holes > 0 {
            found |= self.conn.any_bits;
        } else if self.surrounded > 0 {
            found |= self.conn.any_bits & !self.conn.empty_bits;
        }
        Ok(found)
    }

    /// `E - V + C - T` of the stones placed so far (for tests).
    pub fn holes(&self) -> i64 {
        self.holes
    }

    /// The group (its root stone) of placed stone `a` (for tests).
    #[cfg(test)]
    pub fn group_of(&mut self, a: u32) -> u32 {
        self.find(a)
    }
}

// ---------------------------------------------------------------------------
// Input: T, then per case `S M` and M lines `x y`.

/// The header of one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaseHeader {
    /// 1-based case number.
    pub number: u64,
    /// The case's board (the rule file's shape, the case's side).
    pub board: Board,
    pub moves: u64,
}

/// One move as read, with its place in the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move<'a> {
    pub x: u32,
    pub y: u32,
    pub line: Line<'a>,
}

impl Move<'_> {
    /// The error for a move onto a cell taken by move `j + 1`.
    pub fn repeated(&self, j: u64) -> InputError {
        self.line
            .error(format!("cell ({}, {}) already holds a stone (move {})", self.x, self.y, j + 1))
            .with_help("the moves of a case never repeat a cell")
    }
}

/// Reads the cases of an input one at a time.
pub struct CaseReader {
    cases: Counted,
    shape: Shape,
    min_side: u32,
    max_side: u32,
}

fn count(tok: &Token, what: &str) -> Result<u64, InputError> {
    let t = tok.text;
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(tok.error(format!("expected {what}, found {}", tok.quoted())));
    }
    t.parse::<u64>().map_err(|_| tok.error(format!("{what} {} is too large", tok.quoted())))
}

/// Exactly `N` tokens on a line, or an error naming `what`.
fn tokens<'a, const N: usize>(line: &Line<'a>, what: &str) -> Result<[Token<'a>; N], InputError> {
    let mut it = line.tokens();
    let mut out = [Token { text: "", offset: line.offset, line: *line }; N];
    for (i, slot) in out.iter_mut().enumerate() {
        match it.next() {
            Some(t) => *slot = t,
            None => {
                return Err(line.error_at_end(format!(
                    "expected {what}, found {} number{}",
                    i,
                    if i == 1 { "" } else { "s" }
                )))
            }
        }
    }
    if let Some(extra) = it.next() {
        let at = extra.offset - line.offset;
        return Err(line.error_in(
            at,
            line.text.trim_end().len().saturating_sub(at),
            format!("expected {what}, found more on the line"),
        ));
    }
    Ok(out)
}

/// Most cases an input may announce.
pub const MAX_CASES: u64 = 1 << 40;

impl CaseReader {
    pub fn new(shape: Shape, min_side: u32, max_side: u32) -> Self {
        CaseReader { cases: Counted::default(), shape, min_side, max_side }
    }

    /// The next case's header, or `None` after the last case (when the
    /// input must end).
    pub fn next_case(&mut self, input: &mut Input) -> Result<Option<CaseHeader>, InputError> {
        let Some(number) = self.cases.next(input, "case", MAX_CASES)? else {
            return Ok(None);
        };
        let total = self.cases.total();
        let line = input.next_nonblank_or(|input| {
            input
                .error_at_end(format!("expected case {number} of {total}: a line `S M`, found end of input"))
                .with_help("the first line gives the number of cases")
        })?;
        let what = format!("the board side and the number of moves of case {number}");
        let [s, m] = tokens::<2>(&line, &what)?;
        let side = number_in(&s, "the board side")?;
        if side < self.min_side as u64 || side > self.max_side as u64 {
            let (a, b) = (self.min_side, self.max_side);
            return Err(s
                .error(format!("board side {} is outside the supported sides {a} to {b}", shown(&s)))
                .with_help(format!("the rule file allows sides from {a} to {b}")));
        }
        let moves = count(&m, "the number of moves")?;
        Ok(Some(CaseHeader { number, board: Board::new(self.shape, side as u32), moves }))
    }

    /// Reads move `k` (1-based) of `case`, which must be on the board.
    pub fn next_move<'i>(&mut self, input: &'i mut Input, case: &CaseHeader, k: u64) -> Result<Move<'i>, InputError> {
        let line = input.next_nonblank_or(|input| {
            input
                .error_at_end(format!(
                    "expected move {k} of {} of case {}, found end of input",
                    case.moves, case.number
                ))
                .with_help("each move is a line `x y`")
        })?;
        if let Some((x, y)) = quick_pair(line.text.as_bytes()) {
            if case.board.contains(x as i64, y as i64) {
                return Ok(Move { x, y, line });
            }
        }
        let [tx, ty] = tokens::<2>(&line, "a move `x y`")?;
        let x = coordinate(&tx)?;
        let y = coordinate(&ty)?;
        let board = &case.board;
        if !board.contains(x, y) {
            return Err(line
                .error(format!("cell ({}, {}) is not on the board of side {}", shown(&tx), shown(&ty), board.side()))
                .with_help(format!("on a {} of side {}, {}", board.shape().name(), board.side(), board.describe())));
        }
        Ok(Move { x: x as u32, y: y as u32, line })
    }
}

/// The common move line, two plain numbers of at most 9 digits between
/// blanks, read without building tokens; `None` for anything else, which
/// the token reader then reads (or reports) in full.
#[inline]
fn quick_pair(t: &[u8]) -> Option<(u32, u32)> {
    #[inline(always)]
    fn blanks(t: &[u8], mut i: usize) -> usize {
        while i < t.len() && t[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    }
    #[inline(always)]
    fn digits(t: &[u8], mut i: usize) -> Option<(u32, usize)> {
        let start = i;
        let mut v = 0u32;
        while i < t.len() && t[i].is_ascii_digit() {
            if i - start == 9 {
                return None;
            }
            v = v * 10 + (t[i] - b'0') as u32;
            i += 1;
        }
        (i > start).then_some((v, i))
    }
    let (x, i) = digits(t, blanks(t, 0))?;
    let j = blanks(t, i);
    if j == i {
        return None;
    }
    let (y, i) = digits(t, j)?;
    (blanks(t, i) == t.len()).then_some((x, y))
}

/// A whole number within `u32`, for the board side.
fn number_in(tok: &Token, what: &str) -> Result<u64, InputError> {
    let t = tok.text;
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(tok.error(format!("expected {what}, found {}", tok.quoted())));
    }
    // Anything longer than 12 digits is above every limit.
    let digits = t.trim_start_matches('0');
    if digits.len() > 12 {
        return Ok(u64::MAX);
    }
    Ok(digits.parse::<u64>().unwrap_or(0))
}

/// A coordinate as written (a number, checked), cut when it is long.
fn shown(tok: &Token) -> String {
    match tok.text.char_indices().nth(20) {
        Some((at, _)) => format!("{}…", &tok.text[..at]),
        None => tok.text.to_string(),
    }
}

/// A coordinate: a whole number, possibly negative (then off the board).
#[inline]
fn coordinate(tok: &Token) -> Result<i64, InputError> {
    let t = tok.text.as_bytes();
    let (neg, digits) = match t {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, t),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(tok.error(format!("expected a coordinate (a whole number), found {}", tok.quoted())));
    }
    // Saturates far beyond any board (sides are at most 10^6).
    let v = digits.iter().fold(0i64, |v, &d| (v * 10 + (d - b'0') as i64).min(1 << 40));
    Ok(if neg { -v } else { v })
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
    /// The line of a case won: its number, the structures formed, and the
    /// winning move's number.
    pub struct WinFields<'a> {
        "case" case: i64,
        "structures" structures: &'a [&'a str],
        "move" turn: i64,
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
    fn line(&self, out: &mut Vec<u8>, case: u64, outcome: Outcome) {
        match outcome.win {
            None => self.none.line(out, &NoneFields { case: case as i64 }),
            Some(w) => {
                let names: Vec<&str> = w.indices().map(|i| self.names[i].as_str()).collect();
                self.win.line(out, &WinFields { case: case as i64, structures: &names, turn: w.turn as i64 });
            }
        }
    }
}

impl Game for ConnectionGame {
    fn run(&self, input: &mut Input, out: &mut Output, _: &RunOptions) -> Result<(), RunError> {
        self.engine.run(input, |case, outcome: Outcome| {
            self.line(out.buffer(), case, outcome);
            out.end_case()?;
            Ok::<(), RunError>(())
        })
    }

    fn explainer(&self) -> Option<&dyn crate::game::Explain> {
        Some(self)
    }
}

#[cfg(test)]
mod tests;
