//! Reading a game's input as a stream: a line/token cursor with byte
//! offsets, and the error every input reader returns.
//!
//! [`Input`] reads from any `Read` in blocks, so memory is bounded by the
//! longest line ([`MAX_LINE`]), not by the input. Lines end at `\n`, `\r\n`
//! or a lone `\r`; a UTF-8 byte order mark at the start is skipped; each line
//! must be UTF-8.
//!
//! Readers never panic on bad input: they return an [`InputError`] holding
//! the line, column and an excerpt of the offending line, so a diagnostic can
//! be rendered after the line itself is gone from the buffer.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, Read};
use std::sync::Arc;

/// Longest input line accepted, in bytes.
pub const MAX_LINE: usize = 1 << 20;

/// Bytes read from the source at a time.
const BLOCK: usize = 1 << 16;

/// The UTF-8 byte order mark: skipped where the input starts (and only
/// there), by every reader of it.
pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Widest excerpt of a line kept for a diagnostic, in characters.
const EXCERPT: usize = 120;

/// What kind of failure an [`InputError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputErrorKind {
    /// The input does not follow the game's format.
    Invalid,
    /// A line is not UTF-8.
    NotUtf8,
    /// A line is longer than [`MAX_LINE`].
    LineTooLong,
    /// The input could not be read (an I/O error, not the input's fault).
    Unreadable(io::ErrorKind),
}

/// A short copy of the input line an error points into (control characters
/// escaped, long lines cut around the error), for rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excerpt {
    pub text: String,
    /// The error's place in `text`: byte offset and length.
    pub start: usize,
    pub len: usize,
}

/// A problem in a game's input (not in the rule file). Boxed, so that the
/// `Result`s of readers stay one word wide; its fields are those of
/// [`InputErrorData`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError(pub Box<InputErrorData>);

impl std::ops::Deref for InputError {
    type Target = InputErrorData;
    fn deref(&self) -> &InputErrorData {
        &self.0
    }
}

impl std::ops::DerefMut for InputError {
    fn deref_mut(&mut self) -> &mut InputErrorData {
        &mut self.0
    }
}

/// What an [`InputError`] says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputErrorData {
    pub kind: InputErrorKind,
    /// Byte offset of the offending text in the whole input.
    pub offset: usize,
    /// Length in bytes of the offending text (0 at end of input).
    pub len: usize,
    /// 1-based line and column (in characters); 0 when unknown.
    pub line: usize,
    pub column: usize,
    /// The offending line, when it was at hand.
    pub excerpt: Option<Excerpt>,
    /// What was wrong, e.g. "expected a card, found `1O`".
    pub message: String,
    /// A hint for fixing the input, when one is known.
    pub help: Option<String>,
}

impl InputError {
    /// An error at a known line and column, without an excerpt.
    pub fn at(offset: usize, line: usize, column: usize, message: impl Into<String>) -> Self {
        InputError(Box::new(InputErrorData {
            kind: InputErrorKind::Invalid,
            offset,
            len: 0,
            line,
            column,
            excerpt: None,
            message: message.into(),
            help: None,
        }))
    }

    /// Adds a help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    fn kind(mut self, kind: InputErrorKind) -> Self {
        self.kind = kind;
        self
    }

    /// "line L, column C", as diagnostics print it.
    pub fn place(&self) -> String {
        format!("line {}, column {}", self.line, self.column)
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for InputError {}

/// `text` in backquotes for a message: control characters escaped and
/// anything past 40 characters cut, so that no input can flood a
/// diagnostic or write escape sequences to a terminal.
pub fn quote(text: &str) -> String {
    const MAX: usize = 40;
    let mut out = String::from("`");
    for (i, c) in text.chars().enumerate() {
        if i == MAX {
            out.push('…');
            break;
        }
        push_escaped(&mut out, c);
    }
    out.push('`');
    out
}

/// Appends `c`, or its escape when it is a control character.
fn push_escaped(out: &mut String, c: char) {
    if c.is_control() && c != '\t' {
        out.extend(c.escape_default());
    } else {
        out.push(c);
    }
}

/// One input line without its terminator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    pub text: &'a str,
    /// Byte offset of the first byte of the line in the whole input.
    pub offset: usize,
    /// 1-based line number.
    pub number: usize,
}

/// A token: a run of non-whitespace bytes and the line it is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    pub text: &'a str,
    /// Byte offset of the token in the whole input.
    pub offset: usize,
    pub line: Line<'a>,
}

impl<'a> Token<'a> {
    /// An error pointing at this token.
    pub fn error(&self, message: impl Into<String>) -> InputError {
        self.line.error_in(self.offset - self.line.offset, self.text.len(), message)
    }

    /// The 1-based column (in characters) where the token starts.
    pub fn column(&self) -> usize {
        let before = &self.line.text.as_bytes()[..self.offset - self.line.offset];
        if before.is_ascii() {
            before.len() + 1
        } else {
            String::from_utf8_lossy(before).chars().count() + 1
        }
    }

    /// The token quoted for a message (see [`quote`]).
    pub fn quoted(&self) -> String {
        quote(self.text)
    }
}

impl<'a> Line<'a> {
    /// The whitespace-separated tokens of the line, with their offsets.
    pub fn tokens(&self) -> Tokens<'a> {
        Tokens { line: *self, at: 0 }
    }

    /// True when the line holds only whitespace.
    pub fn is_blank(&self) -> bool {
        self.text.bytes().all(|b| b.is_ascii_whitespace())
    }

    /// The line without surrounding whitespace.
    pub fn trimmed(&self) -> &'a str {
        self.text.trim_ascii()
    }

    /// An error covering the line's text, leading and trailing blanks left
    /// out (its end when it is empty).
    pub fn error(&self, message: impl Into<String>) -> InputError {
        let t = self.text.trim_end();
        let lead = t.len() - t.trim_start().len();
        self.error_in(lead, t.len() - lead, message)
    }

    /// An error pointing just past the end of the line.
    pub fn error_at_end(&self, message: impl Into<String>) -> InputError {
        self.error_in(self.text.trim_end().len(), 0, message)
    }

    /// An error covering `len` bytes from byte `at` of the line.
    pub fn error_in(&self, at: usize, len: usize, message: impl Into<String>) -> InputError {
        let at = at.min(self.text.len());
        let len = len.min(self.text.len() - at);
        let column = self.text.get(..at).map_or(at, |s| s.chars().count()) + 1;
        InputError(Box::new(InputErrorData {
            kind: InputErrorKind::Invalid,
            offset: self.offset + at,
            len,
            line: self.number,
            column,
            excerpt: Some(excerpt(self.text, at, len)),
            message: message.into(),
            help: None,
        }))
    }
}

/// The part of `text` around bytes `at..at + len`, escaped, with the
/// error's new place in it.
fn excerpt(text: &str, at: usize, len: usize) -> Excerpt {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let first = chars.partition_point(|&(i, _)| i < at);
    let last = chars.partition_point(|&(i, _)| i < at + len);
    // Keep up to a third of the window before the error, the rest after.
    let from = first.saturating_sub(EXCERPT / 3);
    let to = (from + EXCERPT).max(first + 1).min(chars.len());
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    let (mut start, mut end) = (None, None);
    for (k, &(_, c)) in chars.iter().enumerate().take(to).skip(from) {
        if k == first {
            start = Some(out.len());
        }
        if k == last {
            end = Some(out.len());
        }
        push_escaped(&mut out, c);
    }
    let start = start.unwrap_or(out.len());
    let end = end.unwrap_or(out.len()).max(start);
    if to < chars.len() {
        out.push('…');
    }
    Excerpt { text: out, start, len: end - start }
}

/// The tokens of a line, in order.
#[derive(Debug, Clone, Copy)]
pub struct Tokens<'a> {
    line: Line<'a>,
    at: usize,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Token<'a>;

    #[inline]
    fn next(&mut self) -> Option<Token<'a>> {
        let bytes = self.line.text.as_bytes();
        let mut i = self.at;
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= bytes.len() {
            self.at = i;
            return None;
        }
        let start = i;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        self.at = i;
        Some(Token { text: &self.line.text[start..i], offset: self.line.offset + start, line: self.line })
    }
}

/// A cursor over the complete lines already buffered, for readers of many
/// short lines (one move a line): they parse the bytes in place, with no
/// call, line search or UTF-8 check per line. See [`Input::scan`].
///
/// A reader reads one line at a time with [`Scan::line`]; a line is taken
/// only when the reader accepts all of it and it ends with `\n`. Anything
/// else (a `\r`, a byte the reader does not expect, the end of the buffer)
/// leaves the line unread, for [`Input::next_line`] to read (or report) as
/// usual. Lines taken this way are ASCII, at most [`MAX_LINE`] bytes, and
/// keep their numbers and offsets.
pub struct Scan<'b> {
    bytes: &'b [u8],
    /// The cursor, and the start of the line it is in.
    at: usize,
    start: usize,
    /// Lines taken, and the start of the last one.
    lines: usize,
    last: usize,
    /// Input offset of `bytes[0]`, and the number of the line before it.
    base: usize,
    number: usize,
}

impl<'b> Scan<'b> {
    /// Reads one line with `f`: the line is taken when `f` returns `Some`
    /// and the line ends there (`\n`); otherwise nothing is read.
    #[inline(always)]
    pub fn line<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        let r = f(self);
        match r {
            Some(v) if self.bytes.get(self.at) == Some(&b'\n') && self.at - self.start <= MAX_LINE => {
                self.last = self.start;
                self.at += 1;
                self.start = self.at;
                self.lines += 1;
                Some(v)
            }
            _ => {
                self.at = self.start;
                None
            }
        }
    }

    /// Takes `count` whole lines, `len` bytes from the cursor (at the
    /// start of a line), the last of them starting `last` bytes after the
    /// first: lines a reader parsed from [`Scan::rest`] several at a time.
    /// The reader has checked them: each is ASCII and ends with `\n`.
    #[inline]
    pub fn take_lines(&mut self, len: usize, count: usize, last: usize) {
        debug_assert!(self.at == self.start && (count == 0 || self.bytes[self.start + len - 1] == b'\n'));
        if count > 0 {
            self.last = self.start + last;
            self.at = self.start + len;
            self.start = self.at;
            self.lines += count;
        }
    }

    /// Input offset of the next line.
    #[inline]
    pub fn offset(&self) -> usize {
        self.base + self.start
    }

    /// Number (1-based) of the next line.
    #[inline]
    pub fn line_number(&self) -> usize {
        self.number + self.lines + 1
    }

    /// Skips `b` (ASCII, not a line terminator) when it comes next.
    #[inline(always)]
    pub fn byte(&mut self, b: u8) -> Option<()> {
        if b.is_ascii() && b != b'\n' && b != b'\r' && self.bytes.get(self.at) == Some(&b) {
            self.at += 1;
            Some(())
        } else {
            None
        }
    }

    /// The next `n` bytes of the line, when none of them is a line break
    /// (the caller checks what they are).
    #[inline(always)]
    pub fn take(&mut self, n: usize) -> Option<&'b [u8]> {
        let bytes = self.bytes.get(self.at..self.at + n)?;
        if has_line_break(bytes) {
            return None;
        }
        self.at += n;
        Some(bytes)
    }

    /// The next `n` bytes of the line, whatever they are: the caller
    /// checks every one of them and rejects a line break (`\n`, `\r`)
    /// itself (otherwise [`Scan::take`] does it).
    #[inline(always)]
    pub fn take_any(&mut self, n: usize) -> Option<&'b [u8]> {
        let bytes = self.bytes.get(self.at..self.at + n)?;
        self.at += n;
        Some(bytes)
    }

    /// A whole number written plainly: one to `max_digits` (at most 19)
    /// ASCII digits, without a leading zero unless it is `0` itself.
    #[inline(always)]
    pub fn number(&mut self, max_digits: usize) -> Option<u64> {
        let max_digits = max_digits.min(19);
        let from = self.at;
        // Up to seven digits, eight bytes at a time.
        if let Some(chunk) = self.bytes.get(from..from + 8) {
            let w = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            let len = digit_run(w);
            if len < 8 {
                if len == 0 || len > max_digits || (len > 1 && w as u8 == b'0') {
                    return None;
                }
                self.at = from + len;
                return Some(digits_value(w, len));
            }
        }
        self.number_slow(max_digits)
    }

    /// The buffered bytes from the cursor on, past the end of the line
    /// too: for a reader that parses a whole line from a few machine
    /// words. It moves the cursor over what it read with [`Scan::skip`].
    #[inline(always)]
    pub fn rest(&self) -> &'b [u8] {
        &self.bytes[self.at..]
    }

    /// Moves the cursor `n` bytes on, over bytes read through
    /// [`Scan::rest`] that are none of them a line break (the caller has
    /// checked them: the line still ends only at a `\n` that
    /// [`Scan::line`] finds).
    #[inline(always)]
    pub fn skip(&mut self, n: usize) {
        let end = (self.at + n).min(self.bytes.len());
        debug_assert!(!self.bytes[self.at..end].iter().any(|&b| b == b'\n' || b == b'\r'));
        self.at = end;
    }

    /// [`Scan::number`] a byte at a time.
    fn number_slow(&mut self, max_digits: usize) -> Option<u64> {
        let from = self.at;
        let mut v = 0u64;
        while let Some(&c) = self.bytes.get(self.at) {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            v = v.wrapping_mul(10).wrapping_add(d as u64);
            self.at += 1;
        }
        let len = self.at - from;
        if len > 0 && len <= max_digits && (len == 1 || self.bytes[from] != b'0') {
            Some(v)
        } else {
            self.at = from;
            None
        }
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;

/// The first `\n` or `\r` of `bytes`: short lines (most lines of most
/// inputs) are searched eight bytes at a time without a call, longer ones
/// by `memchr`.
#[inline(always)]
pub(super) fn line_break(bytes: &[u8]) -> Option<usize> {
    for (k, chunk) in bytes.chunks_exact(8).take(2).enumerate() {
        let found = break_flags(u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8])));
        if found != 0 {
            return Some(k * 8 + (found.trailing_zeros() / 8) as usize);
        }
    }
    let skip = (bytes.len() / 8).min(2) * 8;
    memchr::memchr2(b'\n', b'\r', &bytes[skip..]).map(|i| skip + i)
}

/// The top bit of every byte of `w` that is a `\n` or a `\r` (zero when
/// none is). The lowest flag is exact; flags above a true one may be
/// wrong (the zero-byte test borrows), which neither caller minds.
#[inline(always)]
fn break_flags(w: u64) -> u64 {
    let (n, r) = (w ^ (0x0A * ONES), w ^ (0x0D * ONES));
    (n.wrapping_sub(ONES) & !n | r.wrapping_sub(ONES) & !r) & (0x80 * ONES)
}

/// True when `bytes` holds a `\n` or a `\r`: from 8 to 16 bytes (a line
/// of a few tokens) in two overlapping words, without a call.
#[inline(always)]
fn has_line_break(bytes: &[u8]) -> bool {
    match bytes.len() {
        8..=16 => {
            let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]));
            break_flags(word(0)) | break_flags(word(bytes.len() - 8)) != 0
        }
        _ => memchr::memchr2(b'\n', b'\r', bytes).is_some(),
    }
}

/// The number of ASCII digits at the start of the eight bytes of `w`
/// (the first in its lowest byte), 8 when all are digits.
#[inline(always)]
fn digit_run(w: u64) -> usize {
    // A byte is a digit when its high nibble is 3 and its low nibble + 6
    // stays below 16; `bad` is non-zero in every other byte.
    let bad = ((w & (0xF0 * ONES)) ^ (0x30 * ONES)) | (((w & (0x0F * ONES)) + (0x06 * ONES)) & (0x10 * ONES));
    // The top bit of each non-zero byte of `bad`.
    let flags = (((bad & (0x7F * ONES)) + (0x7F * ONES)) | bad) & (0x80 * ONES);
    (flags.trailing_zeros() / 8) as usize
}

/// The value of the first `len` (1 to 7) bytes of `w`, ASCII digits, the
/// first the most significant.
#[inline(always)]
fn digits_value(w: u64, len: usize) -> u64 {
    // Digit values moved up, so that the bytes left below are leading
    // zeros; then pairs, fours and eights of digits are combined.
    let v = (w & (0x0F * ONES)) << (8 * (8 - len));
    let v = (v.wrapping_mul(10) + (v >> 8)) & 0x00FF_00FF_00FF_00FF;
    let v = (v.wrapping_mul(100) + (v >> 16)) & 0x0000_FFFF_0000_FFFF;
    (v.wrapping_mul(10000) + (v >> 32)) & 0xFFFF_FFFF
}

/// A streaming cursor over the lines of an input, keeping byte offsets and
/// line numbers.
pub struct Input<'r> {
    src: Box<dyn Read + 'r>,
    /// The bytes read (borrowed whole for a part held in memory).
    buf: Cow<'r, [u8]>,
    /// Unread bytes are `buf[pos..end]`.
    pos: usize,
    end: usize,
    /// Input offset of `buf[0]`.
    base: usize,
    /// Lines read so far.
    number: usize,
    eof: bool,
    started: bool,
    /// Whether the last line read ended with a line terminator.
    terminated: bool,
    /// `buf[..valid]` is known to be UTF-8 (validated a block at a time);
    /// `invalid`: a bad byte was found at `valid`.
    valid: usize,
    invalid: bool,
    /// The last line read: its start in `buf` and length, and number (the
    /// place of errors at the end of the input).
    last: Option<(usize, usize, usize)>,
    /// Says whether a read of the source would return at once (see
    /// [`Input::ready`]); `None`: it may block.
    ready: Option<Box<dyn Fn() -> bool + 'r>>,
    /// The size of the whole input, when known (a regular file).
    len_hint: Option<usize>,
    /// The input's file, for reads at any offset (a regular file).
    positional: Option<Arc<Positional>>,
}

/// An input that is a regular file, read at any offset without moving the
/// position the input reads from (see [`Input::positional`]): the parallel
/// driver's threads read their parts of it themselves.
#[derive(Debug)]
pub struct Positional {
    file: std::fs::File,
    /// The file's position at the input's first byte.
    origin: u64,
    /// The input's size when it was opened.
    len: usize,
}

impl Positional {
    /// The input's size (from the first byte the input read).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Reads the input's bytes from `offset` on into `into`, all of them
    /// unless the file ends first: the number read.
    pub fn read_at(&self, offset: usize, into: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < into.len() {
            let at = self.origin + (offset + n) as u64;
            match read_at(&self.file, &mut into[n..], at) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        Ok(n)
    }
}

#[cfg(unix)]
fn read_at(file: &std::fs::File, into: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, into, at)
}

#[cfg(not(unix))]
fn read_at(_: &std::fs::File, _: &mut [u8], _: u64) -> io::Result<usize> {
    Err(io::ErrorKind::Unsupported.into())
}

impl<'r> Input<'r> {
    /// An input read from `src` as needed.
    pub fn new(src: impl Read + 'r) -> Self {
        Input {
            src: Box::new(src),
            buf: Cow::Owned(Vec::new()),
            pos: 0,
            end: 0,
            base: 0,
            number: 0,
            eof: false,
            started: false,
            terminated: false,
            valid: 0,
            invalid: false,
            last: None,
            ready: None,
            len_hint: None,
            positional: None,
        }
    }

    /// An input held in memory (tests, worked examples).
    pub fn from_text(text: &'r str) -> Self {
        Input::new(text.as_bytes()).ready_when(|| true).size_hint(text.len())
    }

    /// Part of an input held in memory: `bytes` start at byte `offset` of
    /// the input, after `lines` lines (each ended by a line terminator),
    /// and lines, offsets and errors are those of the whole input.
    pub fn part(bytes: &'r [u8], offset: usize, lines: usize) -> Self {
        // Read in place: the bytes are all there is.
        let mut input = Input::new(io::empty());
        input.buf = Cow::Borrowed(bytes);
        input.end = bytes.len();
        input.eof = true;
        input.position(offset, lines);
        input
    }

    /// `probe` says whether a read of the source would return at once
    /// (data or the end is at hand): the parallel driver reads ahead only
    /// then, and otherwise answers every case it holds first, so that a
    /// program feeding cases one at a time gets each answer before it
    /// sends the next. Without a probe, every read may block.
    pub fn ready_when(mut self, probe: impl Fn() -> bool + 'r) -> Self {
        self.ready = Some(Box::new(probe));
        self
    }

    /// The size of the whole input in bytes, when it is known (a regular
    /// file): the default driver estimates from it whether threads pay.
    pub fn size_hint(mut self, len: usize) -> Self {
        self.len_hint = Some(len);
        self
    }

    /// `file` is the input's source, a regular file (or another handle of
    /// it: the same open file, whose position the source reads from): the
    /// parallel driver may then have its threads read their parts of the
    /// input themselves ([`Positional`]), where the calling thread would
    /// otherwise read and copy every byte for them. Nothing changes when
    /// `file` is not a regular file (or not on Unix, where it cannot be
    /// read at an offset without moving its position).
    pub fn positional(mut self, mut file: std::fs::File) -> Self {
        use std::io::Seek;
        if cfg!(not(unix)) {
            return self;
        }
        let meta = file.metadata();
        let origin = file.stream_position();
        if let (Ok(meta), Ok(origin)) = (meta, origin) {
            if let (true, Ok(len)) = (meta.is_file(), usize::try_from(meta.len().saturating_sub(origin))) {
                self.positional = Some(Arc::new(Positional { file, origin, len }));
            }
        }
        self
    }

    /// The input's file, when it can be read at any offset (see
    /// [`Input::positional`]).
    pub fn positional_source(&self) -> Option<&Arc<Positional>> {
        self.positional.as_ref()
    }

    /// Goes on reading at byte `offset` of the input, after `lines` lines,
    /// from the source itself (its file moved there; see
    /// [`Input::positional`]): what was read ahead is dropped.
    pub fn jump(&mut self, offset: usize, lines: usize) -> Result<(), InputError> {
        use std::io::Seek;
        let Some(p) = &self.positional else {
            return Err(InputError::at(offset, lines + 1, 1, "cannot read the input again: it is not a file"));
        };
        if let Err(e) = (&p.file).seek(io::SeekFrom::Start(p.origin + offset as u64)) {
            return Err(InputError::at(offset, lines + 1, 1, format!("cannot read the input: {e}"))
                .kind(InputErrorKind::Unreadable(e.kind())));
        }
        self.buf.to_mut().clear();
        self.end = 0;
        self.eof = false;
        self.position(offset, lines);
        Ok(())
    }

    /// The size of the whole input, when known.
    pub fn size(&self) -> Option<usize> {
        self.len_hint
    }

    /// Whether a read of the source would return at once: the source's end
    /// was reached, or its probe says so.
    pub fn ready(&self) -> bool {
        self.eof || self.ready.as_ref().is_some_and(|probe| probe())
    }

    /// Whether the source's end was reached.
    pub fn at_end(&self) -> bool {
        self.eof
    }

    /// Moves the bytes read from the source but not yet taken as lines to
    /// the end of `into`, and returns where they start: their input offset
    /// and the lines before them. The input holds nothing unread after this
    /// (see [`Input::rewind`]). Called between cases, at a line's start.
    pub fn take_unread(&mut self, into: &mut Vec<u8>) -> (usize, usize) {
        into.extend_from_slice(&self.buf[self.pos..self.end]);
        let at = (self.offset(), self.number);
        self.pos = self.end;
        at
    }

    /// Reads more of the source into `into`: the number of bytes read, 0
    /// at the end of the source.
    pub fn read_raw(&mut self, into: &mut [u8]) -> Result<usize, InputError> {
        if self.eof {
            return Ok(0);
        }
        loop {
            match self.src.read(into) {
                Ok(n) => {
                    self.eof = n == 0;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let at = self.offset();
                    return Err(InputError::at(at, self.number + 1, 1, format!("cannot read the input: {e}"))
                        .kind(InputErrorKind::Unreadable(e.kind())));
                }
            }
        }
    }

    /// Takes reading up again at byte `offset` of the input, after `lines`
    /// lines, with `bytes` (read from the source earlier, as by
    /// [`Input::take_unread`] and [`Input::read_raw`]) as what comes next,
    /// before the rest of the source.
    pub fn rewind(&mut self, bytes: &[u8], offset: usize, lines: usize) {
        let buf = self.buf.to_mut();
        buf.clear();
        buf.extend_from_slice(bytes);
        self.end = bytes.len();
        self.position(offset, lines);
    }

    /// Places the buffer's first byte at `offset`, after `lines` lines.
    fn position(&mut self, offset: usize, lines: usize) {
        self.pos = 0;
        self.base = offset;
        self.number = lines;
        // A byte order mark is looked for only at the very start.
        self.started = offset > 0;
        // The line before ended with a terminator: an error at the end of
        // the input is placed on the line after it.
        self.last = (lines > 0).then_some((0, 0, lines));
        self.terminated = true;
        self.valid = 0;
        self.invalid = false;
        self.validate();
    }

    /// Byte offset of the next unread line.
    pub fn offset(&self) -> usize {
        self.base + self.pos
    }

    /// Whether a whole line is already read from the source: the next line
    /// can be had without waiting for it.
    pub fn has_buffered_line(&self) -> bool {
        memchr::memchr2(b'\n', b'\r', &self.buf[self.pos..self.end]).is_some()
    }

    /// The number of the last line read (0 before the first).
    pub fn line_number(&self) -> usize {
        self.number
    }

    /// Reads more of the source into the buffer, keeping the unread bytes
    /// (and the last line, for errors at the end). False at the end.
    fn fill(&mut self) -> Result<bool, InputError> {
        if self.eof {
            return Ok(false);
        }
        let keep = self.last.map_or(self.pos, |(s, _, _)| s.min(self.pos));
        let buf = self.buf.to_mut();
        if keep > 0 {
            buf.copy_within(keep..self.end, 0);
            self.base += keep;
            self.pos -= keep;
            self.end -= keep;
            self.valid = self.valid.saturating_sub(keep);
            if let Some((s, _, _)) = &mut self.last {
                *s -= keep;
            }
        }
        if buf.len() < self.end + BLOCK {
            buf.resize(self.end + BLOCK, 0);
        }
        loop {
            match self.src.read(&mut buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    self.validate();
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let at = self.offset();
                    return Err(InputError::at(at, self.number + 1, 1, format!("cannot read the input: {e}"))
                        .kind(InputErrorKind::Unreadable(e.kind())));
                }
            }
        }
    }

    /// The text of a line read earlier (checked when it was read).
    #[inline]
    fn text_at(&self, start: usize, len: usize) -> &str {
        let bytes = &self.buf[start..start + len];
        if start + len <= self.valid {
            // SAFETY: `buf[..valid]` was checked to be UTF-8 in `validate`,
            // and lines start and end at ASCII line terminators (or just
            // after a byte order mark), never inside a multi-byte sequence.
            unsafe { std::str::from_utf8_unchecked(bytes) }
        } else {
            // Lines past the block check were checked one by one
            // (`check_utf8`) before they were handed out.
            std::str::from_utf8(bytes).unwrap_or("")
        }
    }

    /// Extends the part of the buffer known to be UTF-8 over what was read
    /// (a sequence cut at the end waits for the next read).
    fn validate(&mut self) {
        if self.invalid {
            return;
        }
        match std::str::from_utf8(&self.buf[self.valid..self.end]) {
            Ok(_) => self.valid = self.end,
            Err(e) => {
                self.valid += e.valid_up_to();
                self.invalid = e.error_len().is_some();
            }
        }
    }

    /// Runs `read` over the complete lines already buffered (see [`Scan`]),
    /// then marks the lines it took as read. Reads nothing from the source:
    /// with nothing buffered, `read` sees no line.
    #[inline]
    pub fn scan<T>(&mut self, read: impl FnOnce(&mut Scan) -> T) -> T {
        // The first line waits for the byte order mark check; lines past
        // the block check wait for their UTF-8 check.
        let end = if self.started { self.valid.clamp(self.pos, self.end) } else { self.pos };
        let mut s = Scan {
            bytes: &self.buf[self.pos..end],
            at: 0,
            start: 0,
            lines: 0,
            last: 0,
            base: self.base + self.pos,
            number: self.number,
        };
        let r = read(&mut s);
        if s.lines > 0 {
            let last = self.pos + s.last;
            self.last = Some((last, s.start - s.last - 1, self.number + s.lines));
            self.pos += s.start;
            self.number += s.lines;
            self.terminated = true;
        }
        r
    }

    /// The next line, `None` at the end of the input.
    pub fn next_line(&mut self) -> Result<Option<Line<'_>>, InputError> {
        Ok(if self.advance()? { Some(self.last_line()) } else { None })
    }

    /// Reads the next line into `last` (checked to be UTF-8); false at the
    /// end of the input.
    #[inline]
    fn advance(&mut self) -> Result<bool, InputError> {
        if !self.started {
            self.skip_bom()?;
        }
        // The common case: a whole line ending in `\n` is in the buffer.
        let rest = &self.buf[self.pos..self.end];
        let (len, step) = match line_break(rest) {
            Some(i) if rest[i] == b'\n' => (i, i + 1),
            _ => match self.line_end()? {
                Some(x) => x,
                None => return Ok(false),
            },
        };
        if len > MAX_LINE {
            return Err(self.too_long());
        }
        let start = self.pos;
        self.pos += step;
        self.number += 1;
        self.terminated = step > len;
        self.last = Some((start, len, self.number));
        if start + len > self.valid {
            self.check_utf8(start, len)?;
        }
        Ok(true)
    }

    fn skip_bom(&mut self) -> Result<(), InputError> {
        self.started = true;
        while self.end < 3 && self.fill()? {}
        if self.buf[..self.end].starts_with(BOM) {
            self.pos = 3;
        }
        Ok(())
    }

    /// The length of the next line and of its terminator, reading more as
    /// needed; `None` at the end of the input.
    fn line_end(&mut self) -> Result<Option<(usize, usize)>, InputError> {
        let mut scanned = 0;
        loop {
            let rest = &self.buf[self.pos + scanned..self.end];
            match memchr::memchr2(b'\n', b'\r', rest) {
                Some(i) => {
                    let at = self.pos + scanned + i;
                    if self.buf[at] == b'\n' {
                        return Ok(Some((at - self.pos, at - self.pos + 1)));
                    }
                    // `\r`: a `\r\n` pair when a `\n` follows.
                    if at + 1 < self.end {
                        let two = self.buf[at + 1] == b'\n';
                        return Ok(Some((at - self.pos, at - self.pos + 1 + two as usize)));
                    }
                    scanned = at - self.pos;
                    if !self.fill()? {
                        return Ok(Some((scanned, scanned + 1)));
                    }
                }
                None => {
                    scanned = self.end - self.pos;
                    if scanned > MAX_LINE {
                        return Err(self.too_long());
                    }
                    if !self.fill()? {
                        return Ok((scanned > 0).then_some((scanned, scanned)));
                    }
                }
            }
        }
    }

    /// The error for a line that is not UTF-8 (the block check stopped
    /// before it).
    fn check_utf8(&self, start: usize, len: usize) -> Result<(), InputError> {
        let bytes = &self.buf[start..start + len];
        match std::str::from_utf8(bytes) {
            Ok(_) => Ok(()),
            Err(e) => {
                let good = e.valid_up_to();
                let text = std::str::from_utf8(&bytes[..good]).unwrap_or("");
                let line = Line { text, offset: self.base + start, number: self.number };
                Err(line
                    .error_in(good, 0, "the input is not valid UTF-8")
                    .with_help("save the input as UTF-8 (or ASCII)")
                    .kind(InputErrorKind::NotUtf8))
            }
        }
    }

    fn too_long(&self) -> InputError {
        InputError::at(
            self.offset(),
            self.number + 1,
            1,
            format!("line {} is longer than {MAX_LINE} bytes", self.number + 1),
        )
        .with_help("no game's input has lines this long; is this the right file?")
        .kind(InputErrorKind::LineTooLong)
    }

    /// Reads up to the next line that is not blank; false at the end.
    #[inline]
    fn advance_nonblank(&mut self) -> Result<bool, InputError> {
        loop {
            if !self.advance()? {
                return Ok(false);
            }
            let (start, len, _) = self.last.unwrap_or_default();
            if !self.buf[start..start + len].iter().all(u8::is_ascii_whitespace) {
                return Ok(true);
            }
        }
    }

    /// The last line read.
    #[inline(always)]
    fn last_line(&self) -> Line<'_> {
        let (start, len, number) = self.last.unwrap_or((self.pos, 0, self.number));
        let text = self.text_at(start, len);
        Line { text, offset: self.base + start, number }
    }

    /// The next line that is not blank, `None` at the end of the input.
    pub fn next_nonblank(&mut self) -> Result<Option<Line<'_>>, InputError> {
        Ok(if self.advance_nonblank()? { Some(self.last_line()) } else { None })
    }

    /// The next line that is not blank, or the error `end` makes at the end
    /// of the input (usually with [`Input::error_at_end`]). Inlined: the
    /// line then comes back in registers; returned through memory, its
    /// fields were stored one word at a time and loaded two at a time, a
    /// load that waits for the stores (7 % of the referee's time).
    #[inline(always)]
    pub fn next_nonblank_or(&mut self, end: impl FnOnce(&Self) -> InputError) -> Result<Line<'_>, InputError> {
        if self.advance_nonblank()? {
            Ok(self.last_line())
        } else {
            Err(end(self))
        }
    }

    /// An error at the end of the input ("expected ..., found end of
    /// input"): on the empty line after the last one, or at the end of the
    /// last line when it has no line terminator.
    pub fn error_at_end(&self, message: impl Into<String>) -> InputError {
        match self.last {
            Some((_, _, number)) if self.terminated => {
                let line = Line { text: "", offset: self.offset(), number: number + 1 };
                line.error_in(0, 0, message)
            }
            Some((start, len, number)) => {
                let text = self.text_at(start, len);
                let line = Line { text, offset: self.base + start, number };
                let mut e = line.error_in(text.len(), 0, message);
                e.offset = self.offset();
                e
            }
            None => Line { text: "", offset: self.offset(), number: 1 }.error_in(0, 0, message),
        }
    }
}

impl From<InputError> for io::Error {
    fn from(e: InputError) -> io::Error {
        match e.kind {
            InputErrorKind::Unreadable(kind) => io::Error::new(kind, ReadFailed(e.0.message)),
            _ => io::Error::new(io::ErrorKind::InvalidData, e.0.message),
        }
    }
}

/// The input could not be read (its message says why): an I/O error of
/// the input's, not of the output's (see [`is_read_error`]).
#[derive(Debug)]
struct ReadFailed(String);

impl fmt::Display for ReadFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ReadFailed {}

/// Whether `e` is the input's read error (a directory or a device given as
/// the input, a disk failing under it), not the output's write error.
pub fn is_read_error(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<ReadFailed>())
}

/// A file holding `bytes`, open for reading (its name removed at once),
/// for tests of inputs read from files.
#[cfg(test)]
pub(crate) fn temp_file(bytes: &[u8]) -> std::fs::File {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static FILES: AtomicUsize = AtomicUsize::new(0);
    let n = FILES.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("arbiter-input-{}-{n}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    file
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An input read from a regular file goes on from any earlier offset
    /// (`jump`): the same lines, numbered as they were, the bytes read
    /// ahead dropped; and its bytes can be read at any offset without
    /// moving where it reads (`Positional::read_at`).
    #[test]
    fn an_input_from_a_file_jumps_back_to_any_line() {
        let text: String = (1..=500).map(|i| format!("line {i}\n")).collect();
        let file = temp_file(text.as_bytes());
        let again = file.try_clone().unwrap();
        let mut input = Input::new(file).positional(again);
        let mut starts = vec![0];
        while let Some(line) = input.next_line().unwrap() {
            assert_eq!(line.text, format!("line {}", line.number));
            starts.push(input.offset());
        }
        let p = input.positional_source().cloned().expect("a regular file");
        let mut word = [0u8; 8];
        assert_eq!(p.read_at(starts[99], &mut word).unwrap(), 8);
        assert_eq!(&word, b"line 100");
        for k in [250, 0, 499, 1] {
            input.jump(starts[k], k).unwrap();
            let line = input.next_line().unwrap().expect("a line");
            assert_eq!((line.text, line.number), (format!("line {}", k + 1).as_str(), k + 1));
            assert_eq!(input.offset(), starts[k + 1]);
        }
        input.jump(starts[500], 500).unwrap();
        assert!(input.next_line().unwrap().is_none());
        // An input that is no file cannot jump.
        assert!(Input::from_text("a\n").jump(0, 0).is_err());
    }

    #[test]
    fn line_breaks_are_found_in_any_short_run_of_bytes() {
        for len in 0..40 {
            for at in 0..=len {
                for brk in [b'\n', b'\r', b'x'] {
                    // Bytes just above and below the line breaks' values.
                    let mut bytes: Vec<u8> = (0..len).map(|i| [b'A', 0x0B, 0x0E, 0x8A, b' '][i % 5]).collect();
                    if at < len {
                        bytes[at] = brk;
                    }
                    let want = bytes.iter().any(|&b| b == b'\n' || b == b'\r');
                    assert_eq!(has_line_break(&bytes), want, "{bytes:?}");
                }
            }
        }
    }

    /// A reader that hands out one byte per call, to cross every block
    /// boundary.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match (self.0.split_first(), buf.is_empty()) {
                (Some((&b, rest)), false) => {
                    buf[0] = b;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    fn lines(input: &mut Input) -> Vec<(String, usize, usize)> {
        let mut out = Vec::new();
        while let Some(l) = input.next_line().unwrap() {
            out.push((l.text.to_string(), l.offset, l.number));
        }
        out
    }

    #[test]
    fn every_line_ending_and_a_bom() {
        let text = "\u{feff}ab  cd\r\n\n  ef\rgh\r\rij";
        let want = vec![
            ("ab  cd".to_string(), 3, 1),
            (String::new(), 11, 2),
            ("  ef".to_string(), 12, 3),
            ("gh".to_string(), 17, 4),
            (String::new(), 20, 5),
            ("ij".to_string(), 21, 6),
        ];
        assert_eq!(lines(&mut Input::from_text(text)), want);
        assert_eq!(lines(&mut Input::new(Trickle(text.as_bytes()))), want);
    }

    #[test]
    fn tokens_carry_offsets_and_errors_their_place() {
        let input = "ab  cd\r\n\n  ef\n";
        let mut r = Input::from_text(input);
        let toks: Vec<_> = r.next_line().unwrap().unwrap().tokens().map(|t| (t.text, t.offset)).collect();
        assert_eq!(toks, vec![("ab", 0), ("cd", 4)]);
        let third = r.next_nonblank().unwrap().unwrap();
        assert_eq!(third.number, 3);
        let ef = third.tokens().next().unwrap();
        assert_eq!(&input[ef.offset..ef.offset + 2], "ef");
        let e = ef.error("x");
        assert_eq!((e.line, e.column), (3, 3));
        let x = e.excerpt.clone().unwrap();
        assert_eq!(&x.text[x.start..x.start + x.len], "ef");
        assert!(r.next_line().unwrap().is_none());
        let end = r.error_at_end("y");
        assert_eq!((end.offset, end.line, end.column), (input.len(), 4, 1));
        let mut r = Input::from_text("ab\ncd");
        while r.next_line().unwrap().is_some() {}
        let end = r.error_at_end("y");
        assert_eq!((end.offset, end.line, end.column), (5, 2, 3));
    }

    #[test]
    fn long_tokens_and_control_characters_are_shown_safely() {
        let line = format!("ok \x1b]0;x\x07{} end", "X".repeat(5000));
        let mut r = Input::from_text(&line);
        let l = r.next_line().unwrap().unwrap();
        let tok = l.tokens().nth(1).unwrap();
        assert!(tok.quoted().chars().count() < 60, "{}", tok.quoted());
        assert!(!tok.quoted().contains('\x1b'));
        let x = tok.error("bad").excerpt.clone().unwrap();
        assert!(x.text.chars().count() < 2 * EXCERPT);
        assert!(!x.text.contains('\x1b') && x.text.contains("\\u{1b}"));
        assert!(x.text[x.start..].starts_with("\\u{1b}]0;x"));
    }

    /// Reads `text` taking every line that `scan` accepts (`a b` plainly,
    /// as numbers) and the rest with `next_line`: the lines, their offsets
    /// and numbers are those `next_line` alone gives.
    fn scanned(mut input: Input) -> Vec<(String, usize, usize)> {
        let mut out = Vec::new();
        loop {
            input.scan(|s| loop {
                let (offset, number) = (s.offset(), s.line_number());
                let Some((a, b)) = s.line(|l| {
                    let a = l.number(9)?;
                    l.byte(b' ')?;
                    Some((a, l.number(9)?))
                }) else {
                    break;
                };
                out.push((format!("{a} {b}"), offset, number));
            });
            match input.next_line().unwrap() {
                Some(l) => out.push((l.text.to_string(), l.offset, l.number)),
                None => return out,
            }
        }
    }

    #[test]
    fn scans_take_plain_lines_and_leave_the_rest() {
        let text =
            "\u{feff}1 2\n3 4\n05 6\r\n7 8\r9 10\n\n  11 12\n0 0\n123456789 1\n1234567890 1\n1 2 \n\u{e9} 1\n5 6\n7 8";
        let want = lines(&mut Input::from_text(text));
        assert_eq!(scanned(Input::from_text(text)), want);
        assert_eq!(scanned(Input::new(Trickle(text.as_bytes()))), want);
        // The end of the input after scanned lines is placed as after read ones.
        for text in ["1 2\n3 4\n", "1 2\n3 4"] {
            let mut a = Input::from_text(text);
            scanned(Input::from_text(text));
            while a.next_line().unwrap().is_some() {}
            let mut b = Input::from_text(text);
            b.next_line().unwrap();
            b.scan(|s| {
                while s.line(|l| l.number(9)).is_some()
                    || s.line(|l| {
                        l.number(9)?;
                        l.byte(b' ')?;
                        l.number(9)
                    })
                    .is_some()
                {}
            });
            while b.next_line().unwrap().is_some() {}
            assert_eq!(a.error_at_end("x"), b.error_at_end("x"), "{text:?}");
        }
        // Bad UTF-8 after plain lines is still an error on its line.
        let mut r = Input::new(&b"1 2\n3 4\n\xff\n"[..]);
        r.next_line().unwrap();
        r.scan(|s| while s.line(|l| Some((l.number(9)?, l.byte(b' ')?, l.number(9)?))).is_some() {});
        assert_eq!(r.line_number(), 2);
        assert_eq!(r.next_line().unwrap_err().kind, InputErrorKind::NotUtf8);
    }

    #[test]
    fn numbers_are_read_as_written() {
        // Each string over a few telling bytes, against the obvious reading.
        let alphabet = b"0019/: \n";
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for round in 0..200_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let n = (seed % 22) as usize;
            let t: Vec<u8> = (0..n).map(|i| alphabet[(seed >> (i * 2 + 8)) as usize % alphabet.len()]).collect();
            let max = 1 + round % 19;
            let run = t.iter().take_while(|b| b.is_ascii_digit()).count();
            let want = (run > 0 && run <= max && (run == 1 || t[0] != b'0'))
                .then(|| std::str::from_utf8(&t[..run]).unwrap().parse::<u64>().unwrap());
            let mut s = Scan { bytes: &t, at: 0, start: 0, lines: 0, last: 0, base: 0, number: 0 };
            assert_eq!(s.number(max), want, "{:?} {max}", String::from_utf8_lossy(&t));
            assert_eq!(s.at, if want.is_some() { run } else { 0 });
        }
    }

    #[test]
    fn line_breaks_are_found_wherever_they_are() {
        for len in 0..40 {
            for at in 0..=len {
                for (brk, other) in [(b'\n', b'\r'), (b'\r', b'\n')] {
                    // Bytes next to the terminators, and a second break after the first.
                    let mut t: Vec<u8> = (0..len).map(|i| [b'\x0b', b'\x0c', b'a', 0x8a, 0x8d][i % 5]).collect();
                    if at < len {
                        t[at] = brk;
                        if at + 3 < len {
                            t[at + 3] = other;
                        }
                    }
                    let want = memchr::memchr2(b'\n', b'\r', &t);
                    assert_eq!(line_break(&t), want, "{t:?}");
                }
            }
        }
    }

    #[test]
    fn lines_too_long_and_bad_utf8_are_errors() {
        let big = "x".repeat(MAX_LINE + 10);
        let e = Input::from_text(&big).next_line().unwrap_err();
        assert_eq!(e.kind, InputErrorKind::LineTooLong);
        let bytes = b"ab\ncd\xffef\n";
        let mut r = Input::new(&bytes[..]);
        r.next_line().unwrap();
        let e = r.next_line().unwrap_err();
        assert_eq!((e.kind, e.line, e.column, e.offset), (InputErrorKind::NotUtf8, 2, 3, 5));
    }
}
