//! Reading a connection game's input: `T`, then per case a line `S M` and
//! `M` lines `x y`. A case is read whole before it is solved (so that
//! cases can be solved on several threads, and so that the solver can
//! find neighbours by sorting), yet an error still points at its line:
//!
//! - a malformed line or a cell off the board is an error at once;
//! - a repeated cell is found by the solver, after the case is read. What
//!   its error needs (the line's number, offset and text) is kept without
//!   copying the input: the usual line is `x y` written plainly, right
//!   after the previous move's line, so its number, offset and text follow
//!   from the moves before it. Only the other lines (the first of a case,
//!   one after blank lines or a `\r\n`, one written with extra blanks or
//!   leading zeros) leave a [`Note`], and the error for one written
//!   differently is made while its text is at hand.
//!
//! Errors keep the input's order: before an error at move k is returned,
//! the moves before k are checked for a repeat, which comes first.

use crate::engines::connection::board::{Board, Dims, Shape, Sizes};
use crate::game::records::{self, Counted};
use crate::game::{Input, InputError, Line, Mark, Scan, Token};

/// Most moves in one case (stone indices are `u32`).
pub const MAX_MOVES: u64 = u32::MAX as u64 - 1;
/// Most moves of one case the engine holds: a case is read whole and
/// solved in memory, about 85 bytes per move at most (the moves, their
/// sorted keys, neighbours and groups), so 4,194,304 moves take at most
/// about 350 MB. A case that announces more stops the run there with a
/// limit (exit 8), after the cases before it (CN-2: 30 million moves
/// needed 2 GB). Every published Havannah, Hex and Y case has at most
/// 10,000 moves.
pub const MAX_CASE_MOVES: u64 = 1 << 22;
/// Most cases an input may announce.
pub const MAX_CASES: u64 = 1 << 40;

/// One stone as read: its cell and the sides of the board it lies on,
/// packed in one word (`x` in bits 0..21, `y` in 21..42, the side mask in
/// 42..48; coordinates are below 2^21).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stone(u64);

impl Stone {
    #[inline]
    pub fn new(x: u32, y: u32, sides: u8) -> Stone {
        Stone(x as u64 | (y as u64) << 21 | (sides as u64) << 42)
    }

    #[inline]
    pub fn x(self) -> u32 {
        (self.0 & 0x1f_ffff) as u32
    }

    #[inline]
    pub fn y(self) -> u32 {
        (self.0 >> 21 & 0x1f_ffff) as u32
    }

    /// The sides of the board the cell lies on (bit `i`: side `i`).
    #[inline]
    pub fn sides(self) -> u8 {
        (self.0 >> 42) as u8
    }

    /// The packed word: `x` in bits 0 to 20, `y` in bits 21 to 41, the
    /// sides above.
    #[inline]
    pub fn word(self) -> u64 {
        self.0
    }

    #[inline]
    pub fn cell(self) -> (u32, u32) {
        (self.x(), self.y())
    }
}

/// One case, read whole.
#[derive(Debug, Clone, Default)]
pub struct Case {
    /// 1-based case number.
    pub number: u64,
    /// The board's size (the shape is the rule file's).
    pub dims: Dims,
    /// The moves, in order.
    pub moves: Vec<Stone>,
    /// Where the move lines are, for an error found after reading.
    notes: Vec<Note>,
    /// Why the case is not read (more moves than [`MAX_CASE_MOVES`]): the
    /// run stops at it with a limit.
    pub too_large: Option<String>,
}

/// Where a move line that does not follow from the one before is: its
/// move index, line number and offset, and, when it is not written as
/// plain `x y`, the error for it with the message left to fill in.
#[derive(Debug, Clone)]
struct Note {
    at: u32,
    number: usize,
    offset: usize,
    error: Option<InputError>,
}

impl Default for Dims {
    fn default() -> Dims {
        Dims::Side(1)
    }
}

impl Case {
    /// The board of this case.
    pub fn board(&self, shape: Shape) -> Board {
        Board::sized(shape, self.dims)
    }

    /// The error for move `at` (0-based) onto the cell taken by move
    /// `first` (0-based).
    pub fn repeated(&self, at: usize, first: usize) -> InputError {
        let (x, y) = self.moves[at].cell();
        let message = format!("cell ({x}, {y}) already holds a stone (move {})", first + 1);
        self.line_error(at, message).with_help("the moves of a case never repeat a cell")
    }

    /// An error covering the line of move `at` (0-based).
    fn line_error(&self, at: usize, message: String) -> InputError {
        // The last note at or before the move; the first move has one.
        let i = self.notes.partition_point(|n| n.at as usize <= at) - 1;
        let note = &self.notes[i];
        if note.at as usize == at {
            if let Some(e) = &note.error {
                let mut e = e.clone();
                e.message = message;
                return e;
            }
        }
        // Each move line after the note is `x y` plainly, one line and one
        // terminator byte after the previous one.
        let (mut number, mut offset) = (note.number, note.offset);
        for m in &self.moves[note.at as usize..at] {
            number += 1;
            offset += plain_len(m.x(), m.y()) + 1;
        }
        let (x, y) = self.moves[at].cell();
        let text = format!("{x} {y}");
        Line { text: &text, offset, number }.error(message)
    }
}

/// The length of `x y` written plainly.
fn plain_len(x: u32, y: u32) -> usize {
    let digits = |v: u32| v.checked_ilog10().unwrap_or(0) as usize + 1;
    digits(x) + 1 + digits(y)
}

/// What reading carries from case to case.
#[derive(Debug, Clone, Default)]
pub struct Reader {
    cases: Counted,
    /// A case over [`MAX_CASE_MOVES`] was met: nothing after it is read.
    stopped: bool,
}

/// The parts of the rules reading needs.
#[derive(Debug, Clone, Copy)]
pub struct Format {
    pub shape: Shape,
    /// What a case's first line gives: `S M`, or `H W M`.
    pub sizes: Sizes,
}

impl Format {
    /// Reads the next case into `case`; false after the last case (when
    /// the input must end).
    pub fn read(&self, input: &mut Input, reader: &mut Reader, case: &mut Case) -> Result<bool, InputError> {
        case.moves.clear();
        case.notes.clear();
        case.too_large = None;
        if reader.stopped {
            return Ok(false);
        }
        let Some((number, dims, moves, line)) = self.header(input, reader)? else {
            return Ok(false);
        };
        case.number = number;
        case.dims = dims;
        if moves > MAX_CASE_MOVES {
            case.too_large = Some(format!(
                "case {number} (line {line}) has {moves} moves: the connection engine holds at most \
                 {MAX_CASE_MOVES} moves of one case"
            ));
            reader.stopped = true;
            return Ok(true);
        }
        let board = Board::sized(self.shape, dims);
        match read_moves(input, &board, moves, case) {
            Ok(()) => Ok(true),
            // A repeated cell before the error comes first.
            Err(e) => Err(match first_repeat(&case.moves) {
                Some((at, first)) => case.repeated(at, first),
                None => e,
            }),
        }
    }

    /// Where cases end, without reading them (see `Cases::boundary`): the
    /// count line, then per case a line `S M` (or `H W M`) and M lines that are not
    /// blank. `within` is the moves left of the case. A case of more than
    /// [`MAX_CASE_MOVES`] moves is read on one thread (which stops there).
    #[inline]
    pub fn boundary(&self, reader: &mut Reader, within: &mut u64, line: &[u8]) -> Mark {
        if let Some(mark) = reader.cases.boundary(line, MAX_CASES) {
            return mark;
        }
        if records::is_blank(line) {
            return Mark::Inside;
        }
        if *within > 0 {
            *within -= 1;
        } else {
            // `S M` (or `H W M`): M move lines follow (the reader checks
            // the sizes).
            let mut words = line.split(u8::is_ascii_whitespace).filter(|w| !w.is_empty());
            if matches!(self.sizes, Sizes::Rect { .. }) && words.next().is_none() {
                return Mark::Stop;
            }
            let (Some(_), Some(m), None) = (words.next(), words.next(), words.next()) else { return Mark::Stop };
            let Some(m) = records::digits(m).filter(|&m| m <= MAX_CASE_MOVES) else { return Mark::Stop };
            *within = m;
        }
        if *within > 0 {
            return Mark::Inside;
        }
        reader.cases.count_case();
        Mark::Last
    }

    /// The next case's number, board size, number of moves and line number.
    fn header(&self, input: &mut Input, reader: &mut Reader) -> Result<Option<(u64, Dims, u64, usize)>, InputError> {
        let Some(number) = reader.cases.next(input, "case", MAX_CASES)? else {
            return Ok(None);
        };
        let total = reader.cases.total();
        let form = match self.sizes {
            Sizes::Side { .. } => "S M",
            Sizes::Rect { .. } => "H W M",
        };
        let line = input.next_nonblank_or(|input| {
            input
                .error_at_end(format!("expected case {number} of {total}: a line `{form}`, found end of input"))
                .with_help("the first line gives the number of cases")
        })?;
        let (dims, m) = match self.sizes {
            Sizes::Side { min, max } => {
                let what = format!("the board side and the number of moves of case {number}");
                let [s, m] = tokens::<2>(&line, &what)?;
                (Dims::Side(size_in(&s, "side", (min, max))?), m)
            }
            Sizes::Rect { height, width } => {
                let what = format!("the board's height, its width and the number of moves of case {number}");
                let [h, w, m] = tokens::<3>(&line, &what)?;
                let height = size_in(&h, "height", height)?;
                (Dims::Rect { height, width: size_in(&w, "width", width)? }, m)
            }
        };
        let moves = count(&m, "the number of moves")?;
        Ok(Some((number, dims, moves, line.number)))
    }
}

/// A board size (`what`: side, height or width) within `min..=max`.
fn size_in(tok: &Token, what: &str, (min, max): (u32, u32)) -> Result<u32, InputError> {
    let v = number_in(tok, &format!("the board {what}"))?;
    if v < min as u64 || v > max as u64 {
        return Err(tok
            .error(format!("board {what} {} is outside the supported {what}s {min} to {max}", shown(tok)))
            .with_help(format!("the rule file allows {what}s from {min} to {max}")));
    }
    Ok(v as u32)
}

/// The first repeated cell of `moves` in input order, by sorting: the
/// move index and that of the move that took the cell first. Only for
/// errors: the solver finds repeats on its way.
pub(crate) fn first_repeat(moves: &[Stone]) -> Option<(usize, usize)> {
    let mut keyed: Vec<(u64, usize)> = moves.iter().enumerate().map(|(i, m)| (m.0 & ((1 << 42) - 1), i)).collect();
    keyed.sort_unstable();
    keyed.windows(2).filter(|w| w[0].0 == w[1].0).map(|w| (w[1].1, w[0].1)).min()
}

/// Reads the `total` moves of `case` on `board`.
fn read_moves(input: &mut Input, board: &Board, total: u64, case: &mut Case) -> Result<(), InputError> {
    // The input may announce more moves than it holds: grow as they come.
    case.moves.reserve(total.min(1 << 16) as usize);
    let number = case.number;
    // Where the next move's line starts and its number, when it follows
    // the previous one plainly.
    let (mut next_offset, mut next_number) = (usize::MAX, 0);
    let mut k = 0u64;
    let fast_total = total.min(MAX_MOVES);
    while k < total {
        // The usual lines, straight from the buffer: `x y` written plainly,
        // on the board.
        if k < fast_total {
            let from = k;
            let moves = &mut case.moves;
            let (first_offset, first_number, next) = input.scan(|s| {
                let (o, n) = (s.offset(), s.line_number());
                // Whole lines from two words each; near the end of the
                // buffer, number by number.
                let mut left = scan_plain(s, board, moves, fast_total - k);
                while left > 0 {
                    let Some(stone) = s.line(|l| {
                        let x = l.number(9)? as u32;
                        l.byte(b' ')?;
                        let y = l.number(9)? as u32;
                        board.locate(x, y).map(|sides| Stone::new(x, y, sides))
                    }) else {
                        break;
                    };
                    moves.push(stone);
                    left -= 1;
                }
                k = fast_total - left;
                (o, n, (s.offset(), s.line_number()))
            });
            if k > from {
                if first_offset != next_offset || first_number != next_number {
                    case.notes.push(Note { at: from as u32, number: first_number, offset: first_offset, error: None });
                }
                (next_offset, next_number) = next;
                continue;
            }
        }
        let Some(line) = input.next_line()? else {
            return Err(input
                .error_at_end(format!("expected move {} of {total} of case {number}, found end of input", k + 1))
                .with_help("each move is a line `x y`"));
        };
        if k >= MAX_MOVES {
            return Err(line.error(format!("more than {MAX_MOVES} moves in one case")));
        }
        let (x, y, plain) = match plain_pair(line.text.as_bytes()) {
            Some((x, y)) => (x, y, true),
            None => {
                if line.is_blank() {
                    continue;
                }
                let (x, y) = slow_move(&line, board)?;
                (x, y, false)
            }
        };
        let Some(sides) = board.locate(x, y) else {
            return Err(off_board(&line, board));
        };
        let at = case.moves.len();
        case.moves.push(Stone::new(x, y, sides));
        if !plain || line.offset != next_offset || line.number != next_number {
            let error = (!plain).then(|| line.error(""));
            case.notes.push(Note { at: at as u32, number: line.number, offset: line.offset, error });
        }
        // A line after one not written plainly always gets a note.
        next_offset = if plain { line.offset + line.text.len() + 1 } else { usize::MAX };
        next_number = line.number + 1;
        k += 1;
    }
    Ok(())
}

/// `x y` written plainly: two numbers from 1 to 999,999,999 without
/// leading zeros, one space between them, nothing else. `None` for
/// anything else, which [`slow_move`] reads (or reports) in full.
#[inline]
fn plain_pair(t: &[u8]) -> Option<(u32, u32)> {
    #[inline(always)]
    fn number(t: &[u8], mut i: usize) -> Option<(u32, usize)> {
        let start = i;
        let mut v = 0u32;
        while let Some(&c) = t.get(i) {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            // Wraps on long numbers, which are refused below.
            v = v.wrapping_mul(10).wrapping_add(d as u32);
            i += 1;
        }
        let len = i - start;
        (len > 0 && len <= 9 && t[start] != b'0').then_some((v, i))
    }
    let (x, i) = number(t, 0)?;
    if t.get(i) != Some(&b' ') {
        return None;
    }
    let (y, j) = number(t, i + 1)?;
    (j == t.len()).then_some((x, y))
}

/// Takes move lines from `s` onto `moves`, at most `left` of them, while
/// each is `x y` written plainly, a cell of `board`, with sixteen bytes
/// buffered from its start ([`plain_pair_in_words`]). Returns how many
/// are left. Apart from the rest of the reader, so that the loop keeps
/// its values in registers.
#[inline(never)]
fn scan_plain(s: &mut Scan, board: &Board, moves: &mut Vec<Stone>, left: u64) -> u64 {
    let mut left = scan_blocks(s, board, moves, left);
    while left > 0 {
        let Some(stone) = s.line(|l| {
            let (x, y, len) = plain_pair_in_words(l.rest().get(..16)?.try_into().ok()?)?;
            let sides = board.locate(x, y)?;
            l.skip(len);
            Some(Stone::new(x, y, sides))
        }) else {
            break;
        };
        moves.push(stone);
        left -= 1;
    }
    left
}

/// Bytes looked at together by [`scan_blocks`]: the bits of a word.
const BLOCK: usize = 64;

/// [`scan_plain`] a block of 64 bytes at a time, while one starts with a
/// move: the block's bytes that are not digits and its spaces, as two
/// words of bits ([`block_bits`]), give every line's end and its space
/// at once, so that a line's start no longer waits for the digits of the
/// line before it to be read (one line after another, each start had to
/// wait for two loads and two digit counts). Takes the lines of the block
/// that are `x y` written plainly (seven digits at most each) on the
/// board; stops at the first other line, which the line-by-line reader
/// takes up. Returns how many moves are left.
#[inline(always)]
fn scan_blocks(s: &mut Scan, board: &Board, moves: &mut Vec<Stone>, mut left: u64) -> u64 {
    let bytes = s.rest();
    // Bytes taken, lines taken and the start of the last one.
    let (mut taken, mut lines, mut last) = (0usize, 0usize, 0usize);
    // Eight bytes past the block: a number is read from the word at its
    // start.
    'blocks: while left > 0 {
        let Some(window) = bytes.get(taken..taken + BLOCK + 8) else {
            break;
        };
        let (other, spaces) = block_bits(window[..BLOCK].try_into().unwrap_or([0; BLOCK]));
        let word = |at: usize| u64::from_le_bytes(window[at..at + 8].try_into().unwrap_or([0; 8]));
        let mut ends = other & !spaces;
        let mut start = 0usize;
        while ends != 0 && left > 0 {
            let end = ends.trailing_zeros() as usize;
            ends &= ends - 1;
            // The bits of the line's bytes before its end.
            let line = (1u64 << end).wrapping_sub(1) & !(1u64 << start).wrapping_sub(1);
            let space = spaces & line;
            let at = space.trailing_zeros() as usize;
            let (lx, ly) = (at.wrapping_sub(start), end.wrapping_sub(at + 1));
            // One space and digits around it, no leading zero, ended by `\n`.
            let plain = space != 0
                && space & (space - 1) == 0
                && other & line == space
                && (1..=7).contains(&lx)
                && (1..=7).contains(&ly)
                && window[end] == b'\n'
                && window[start] != b'0'
                && window[at + 1] != b'0';
            if !plain {
                taken += start;
                break 'blocks;
            }
            let (w, v) = (word(start), word(at + 1));
            let (x, y) = if lx <= 4 && ly <= 4 { digits_of_two(w, lx, v, ly) } else { (digits(w, lx), digits(v, ly)) };
            let Some(sides) = board.locate(x, y) else {
                taken += start;
                break 'blocks;
            };
            moves.push(Stone::new(x, y, sides));
            left -= 1;
            (lines, last) = (lines + 1, taken + start);
            start = end + 1;
        }
        if start == 0 {
            // No line ends in the block.
            break;
        }
        taken += start;
    }
    s.take_lines(taken, lines, last);
    left
}

/// The bits of the bytes of `block` that are not ASCII digits, and of
/// its spaces (bit i: byte i): sixteen bytes at a time with SSE2, which
/// every x86-64 processor has.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn block_bits(block: [u8; BLOCK]) -> (u64, u64) {
    // SAFETY: SSE2 is part of x86-64 itself: every processor that runs
    // this code has it.
    unsafe { block_bits_sse2(block) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn block_bits_sse2(block: [u8; BLOCK]) -> (u64, u64) {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_max_epu8, _mm_movemask_epi8, _mm_set1_epi8, _mm_set_epi64x, _mm_sub_epi8,
    };
    let (mut other, mut spaces) = (0u64, 0u64);
    for (i, chunk) in block.chunks_exact(16).enumerate() {
        let word = |at: usize| i64::from_le_bytes(chunk[at..at + 8].try_into().unwrap_or([0; 8]));
        let v = _mm_set_epi64x(word(8), word(0));
        // `byte - '0'` is at most 9 exactly in the digits.
        let t = _mm_sub_epi8(v, _mm_set1_epi8(b'0' as i8));
        let digit = _mm_cmpeq_epi8(_mm_max_epu8(t, _mm_set1_epi8(9)), _mm_set1_epi8(9));
        let space = _mm_cmpeq_epi8(v, _mm_set1_epi8(b' ' as i8));
        other |= (!_mm_movemask_epi8(digit) as u16 as u64) << (16 * i);
        spaces |= (_mm_movemask_epi8(space) as u16 as u64) << (16 * i);
    }
    (other, spaces)
}

/// [`block_bits`] on other processors: eight bytes at a time in a word.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn block_bits(block: [u8; BLOCK]) -> (u64, u64) {
    block_bits_in_words(block)
}

/// [`block_bits`] without vector instructions (on x86-64, compiled for
/// the test that compares the two).
#[cfg(any(not(target_arch = "x86_64"), test))]
#[inline(always)]
fn block_bits_in_words(block: [u8; BLOCK]) -> (u64, u64) {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = 0x80 * ONES;
    // The top bits of the eight bytes of a word, gathered into a byte.
    let gather = |flags: u64| (flags >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56;
    // The top bit of each byte of `t` that is not zero (no carry crosses
    // into the next byte).
    let nonzero = |t: u64| (((t & !HIGH) + !HIGH) | t) & HIGH;
    let (mut other, mut spaces) = (0u64, 0u64);
    for (i, chunk) in block.chunks_exact(8).enumerate() {
        let w = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        // `w ^ '0'` is below 10 exactly in the digits.
        let t = w ^ (0x30 * ONES);
        let not_digit = (((t & !HIGH) + (0x76 * ONES)) | t) & HIGH;
        other |= gather(not_digit) << (8 * i);
        spaces |= gather(nonzero(w ^ (0x20 * ONES)) ^ HIGH) << (8 * i);
    }
    (other, spaces)
}

/// `x y` written plainly (as [`plain_pair`] reads it) at the start of
/// `bytes` and followed by `\n`, each number of at most seven digits
/// (every coordinate of the largest board has seven): `x`, `y` and the
/// line's length without its `\n`. `None` for anything else. Each number
/// is read from one word: no loop, no branch per digit.
#[inline(always)]
fn plain_pair_in_words(bytes: &[u8; 16]) -> Option<(u32, u32, usize)> {
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]));
    let w = word(0);
    let lx = digit_run(w);
    if !(1..=7).contains(&lx) || bytes[lx] != b' ' {
        return None;
    }
    let v = word(lx + 1);
    let ly = digit_run(v);
    let end = lx + 1 + ly;
    // No leading zeros, no zero (never a coordinate): a plain line is its
    // numbers written back.
    if !(1..=7).contains(&ly) || bytes[end] != b'\n' || w as u8 == b'0' || v as u8 == b'0' {
        return None;
    }
    if lx <= 4 && ly <= 4 {
        // Both below 10,000: both at once, one in each half of a word.
        let (x, y) = digits_of_two(w, lx, v, ly);
        return Some((x, y, end));
    }
    Some((digits(w, lx), digits(v, ly), end))
}

/// The values of the first `lx` bytes of `w` and the first `ly` bytes of
/// `v` (1 to 4 each), ASCII digits, the first the most significant: as
/// [`digits`], with the two numbers in the two halves of one word.
#[inline(always)]
fn digits_of_two(w: u64, lx: usize, v: u64, ly: usize) -> (u32, u32) {
    // Each number's digits moved up to the top of its half (the bytes
    // after them out of it), the bytes below them zero (leading zeros).
    let half = |w: u64, len: usize| ((w as u32 & 0x0F0F_0F0F) << (8 * (4 - len))) as u64;
    let t = half(w, lx) | half(v, ly) << 32;
    // Pairs of digits, then fours; nothing crosses into the other half
    // that the masks keep.
    let t = (t.wrapping_mul(10) + (t >> 8)) & 0x00FF_00FF_00FF_00FF;
    let t = (t.wrapping_mul(100) + (t >> 16)) & 0x0000_FFFF_0000_FFFF;
    (t as u32, (t >> 32) as u32)
}

/// The number of ASCII digits at the start of `w` (its first byte the
/// lowest), 8 when all are. Every byte `t = byte ^ '0'` is below 10
/// exactly for digits, and `t + 0x76` has its top bit set from 10 up. A
/// byte whose sum overflows carries into the next one, but it is not a
/// digit, so it ends the run before the carry matters.
#[inline(always)]
fn digit_run(w: u64) -> usize {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    let t = w ^ (0x30 * ONES);
    let flags = (t.wrapping_add(0x76 * ONES) | t) & (0x80 * ONES);
    (flags.trailing_zeros() / 8) as usize
}

/// The value of the first `len` (1 to 7) bytes of `w`, ASCII digits, the
/// first the most significant.
#[inline(always)]
fn digits(w: u64, len: usize) -> u32 {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    // Digit values moved up, so that the bytes below are leading zeros;
    // then pairs, fours and eights of digits are combined.
    let v = (w & (0x0F * ONES)) << (8 * (8 - len));
    let v = (v.wrapping_mul(10) + (v >> 8)) & 0x00FF_00FF_00FF_00FF;
    let v = (v.wrapping_mul(100) + (v >> 16)) & 0x0000_FFFF_0000_FFFF;
    ((v.wrapping_mul(10000) + (v >> 32)) & 0xFFFF_FFFF) as u32
}

/// A move line not written plainly: blanks around, leading zeros, long
/// or negative numbers, or an error.
fn slow_move(line: &Line, board: &Board) -> Result<(u32, u32), InputError> {
    let [tx, ty] = tokens::<2>(line, "a move `x y`")?;
    let x = coordinate(&tx)?;
    let y = coordinate(&ty)?;
    if !board.contains(x, y) {
        let dims = board.dims();
        return Err(line
            .error(format!("cell ({}, {}) is not on the board of {dims}", shown(&tx), shown(&ty)))
            .with_help(format!("on a {} of {dims}, {}", board.shape().name(), board.describe())));
    }
    Ok((x as u32, y as u32))
}

/// The error for a plain move line whose cell is off the board.
#[cold]
fn off_board(line: &Line, board: &Board) -> InputError {
    match slow_move(line, board) {
        Err(e) => e,
        Ok(_) => line.error("internal error: a cell both on and off the board"),
    }
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
                // A word that is not a number (as `coordinate` reads one)
                // says more than how many there are.
                if let Some(word) = out[..i].iter().find(|t| coordinate(t).is_err()) {
                    return Err(word.error(format!("expected {what}, found {}", word.quoted())));
                }
                return Err(line.error_at_end(format!(
                    "expected {what}, found {} number{}",
                    i,
                    if i == 1 { "" } else { "s" }
                )));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_pairs_are_exactly_the_plain_lines() {
        assert_eq!(plain_pair(b"1 2"), Some((1, 2)));
        assert_eq!(plain_pair(b"123456789 987654321"), Some((123456789, 987654321)));
        for t in [
            "",
            " 1 2",
            "1 2 ",
            "1  2",
            "1\t2",
            "01 2",
            "1 02",
            "0 1",
            "1",
            "1 ",
            "1234567890 1",
            "1 2 3",
            "1 -2",
            "99999999999999999999 1",
            "1 99999999999999999999",
            "1234 0567",
            "0123 4567",
            "1234 56x8",
            "12345678 ",
            " 12345678",
        ] {
            assert_eq!(plain_pair(t.as_bytes()), None, "{t:?}");
        }
        // A plain line is its numbers written back.
        for (x, y) in [(1, 1), (10, 9), (999_999_999, 7), (12345678, 87654321), (1000, 2999), (5999, 1), (100, 1000)] {
            let t = format!("{x} {y}");
            assert_eq!(plain_pair(t.as_bytes()), Some((x, y)));
            assert_eq!(plain_len(x, y), t.len());
        }
    }

    #[test]
    fn pairs_in_words_are_the_plain_pairs_of_seven_digits() {
        // Sixteen bytes over a few telling ones, against `plain_pair` on
        // the text before the first line break.
        let alphabet = b"0123456789 \n\r/:x\xb9\xff";
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for round in 0..300_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut t = [0u8; 16];
            for (i, b) in t.iter_mut().enumerate() {
                // Mostly digits, a space or a line break now and then.
                let r = (seed >> (i * 4)) as usize % 16 + round % 3;
                *b = if r < 11 { b"0123456789 "[r] } else { alphabet[(seed >> (i * 3 + 1)) as usize % alphabet.len()] };
            }
            let end = t.iter().position(|&b| b == b'\n' || b == b'\r');
            let want = end.filter(|&e| t[e] == b'\n').and_then(|e| {
                let (x, y) = plain_pair(&t[..e])?;
                (x < 10_000_000 && y < 10_000_000).then_some((x, y, e))
            });
            assert_eq!(plain_pair_in_words(&t), want, "{:?}", String::from_utf8_lossy(&t));
        }
        for (line, want) in [
            ("1 1\n", Some((1, 1, 3))),
            ("5999 1\n", Some((5999, 1, 6))),
            ("1234567 7654321\n", Some((1234567, 7654321, 15))),
            ("12345678 1\n", None),
            ("1 12345678\n", None),
            ("01 1\n", None),
            ("1 0\n", None),
            ("0 1\n", None),
            ("1 1\r\n", None),
            ("1  1\n", None),
        ] {
            let mut t = [b'9'; 16];
            t[..line.len()].copy_from_slice(line.as_bytes());
            assert_eq!(plain_pair_in_words(&t), want, "{line:?}");
        }
    }

    #[test]
    fn block_bits_are_the_non_digits_and_the_spaces() {
        // Blocks of telling bytes (digits, their neighbours `/` and `:`,
        // a space, line breaks, bytes above 127), both ways of finding the
        // bits against the bytes one by one.
        let alphabet = b"0123456789 \n\r/:\x1f!\x7f\x80\xb0\xff";
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let mut block = [0u8; BLOCK];
            for b in block.iter_mut() {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                *b = alphabet[seed as usize % alphabet.len()];
            }
            let bits = |keep: &dyn Fn(u8) -> bool| (0..BLOCK).filter(|&i| keep(block[i])).fold(0u64, |m, i| m | 1 << i);
            let want = (bits(&|b| !b.is_ascii_digit()), bits(&|b| b == b' '));
            assert_eq!(block_bits(block), want, "{block:?}");
            assert_eq!(block_bits_in_words(block), want, "{block:?}");
        }
    }

    #[test]
    fn blocks_take_the_plain_lines_on_the_board_up_to_the_first_other() {
        // Random lines, mostly plain moves of every length, some written
        // otherwise (leading zeros, `\r\n`, blanks, eight digits, off the
        // board), read by `scan_plain` (64-byte blocks first, then line by
        // line), against the lines one at a time.
        let board = Board::new(Shape::Hexagon, 3000);
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for round in 0..3000 {
            let mut text = String::from("0\n");
            let lines = 1 + next(200);
            for _ in 0..lines {
                let mut coordinate = || match next(4) {
                    0 => next(10),
                    1 => next(100),
                    2 => next(10_000),
                    _ => next(6000),
                };
                let (x, y) = (coordinate(), coordinate());
                // Rarely (more often in some rounds) a line not plain.
                let odd = next(if round % 3 == 0 { 40 } else { 400 });
                text += &match odd {
                    0 => format!("0{x} {y}\n"),
                    1 => format!("{x} {y}\r\n"),
                    2 => format!("{x}  {y}\n"),
                    3 => "\n".to_string(),
                    4 => format!("{} {y}\n", 10_000_000 + x),
                    5 => format!("{x} {y} \n"),
                    _ => format!("{x} {y}\n"),
                };
            }
            text += "end of the moves, and bytes enough after it\n";
            let mut want = Vec::new();
            let mut stop = "";
            for line in text.split('\n').skip(1) {
                // A `\r` stays in the line: not plain.
                let taken = plain_pair(line.as_bytes())
                    .filter(|&(x, y)| x < 10_000_000 && y < 10_000_000)
                    .and_then(|(x, y)| board.locate(x, y).map(|sides| Stone::new(x, y, sides)));
                match taken {
                    Some(stone) => want.push(stone),
                    None => {
                        stop = line;
                        break;
                    }
                }
            }
            let mut input = Input::from_text(&text);
            input.next_line().unwrap();
            let mut moves = Vec::new();
            let left = input.scan(|s| scan_plain(s, &board, &mut moves, lines + 1));
            assert_eq!(moves, want, "{text}");
            assert_eq!(left, lines + 1 - want.len() as u64);
            let line = input.next_line().unwrap().unwrap();
            assert_eq!((line.text, line.number), (stop.trim_end_matches('\r'), want.len() + 2), "{text}");
        }
    }

    #[test]
    fn stones_pack_and_unpack() {
        let s = Stone::new(1_999_999, 2_097_151, 0b10_1101);
        assert_eq!((s.x(), s.y(), s.sides()), (1_999_999, 2_097_151, 0b10_1101));
    }
}
