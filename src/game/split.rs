//! Cutting the input into parts between cases without reading them: every
//! line goes by the game's [`Split::boundary`], and the bytes up to the
//! last line of a case become a part once they hold enough cases.
//!
//! Lines end as [`Input`] ends them (`\n`, `\r\n`, a lone `\r`), and are
//! counted, so that each part knows the offset and number of its first
//! line. A part always ends with a line terminator.

use std::sync::Arc;

use super::breaks::Breaks;
use super::input::{Positional, BOM, MAX_LINE};
use super::{Ahead, Input, InputError, Mark, Split};

/// Bytes read from the source at a time, at least (more when a part is
/// expected to be larger).
const READ: usize = 1 << 16;

/// No case ends within this many bytes: the case is read on one thread
/// (memory then holds what the reader holds, as without threads).
pub(super) const GIANT: usize = 4 << 20;

// A line too long for the input is found before a giant case.
const _: () = assert!(GIANT > MAX_LINE);

/// A part of the input: whole cases, and where they start.
pub(super) struct Part<R> {
    /// The part is `bytes[..len]` (the rest: old bytes of a buffer used
    /// again, kept so that it need not be cleared).
    pub bytes: Vec<u8>,
    pub len: usize,
    /// Input offset of the first byte, and lines before it.
    pub offset: usize,
    pub lines: usize,
    /// The reader's state at the part's start.
    pub reader: R,
    /// The cases marked in the part.
    pub cases: u64,
    /// A part the thread that runs it reads from the input's file itself:
    /// `len` bytes at `offset` (`bytes` is not used). Either cut by the
    /// splitter, its lines before and its cases known, or, with `cases` 0,
    /// cut where a line ends with every line a case (see
    /// `Ahead::EachLine`), neither known ([`Part::unmarked`]).
    pub file: Option<Arc<Positional>>,
}

impl<R> Part<R> {
    /// A part read from the file whose lines before and cases are not
    /// known (every line a case).
    pub(super) fn unmarked(&self) -> bool {
        self.file.is_some() && self.cases == 0
    }
}

/// What [`Splitter::scan`] stopped at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Found {
    /// Enough cases for a part.
    Part,
    /// Every whole line is scanned: more input is needed.
    More,
    /// No boundary from here on: a [`Mark::Stop`], or the end of the input.
    Done,
    /// No case ends within [`GIANT`] bytes.
    Giant,
}

/// The input from the last cut on, and the boundaries found in it.
pub(super) struct Splitter<R> {
    /// Input bytes from the last cut on: `buf[from..filled]` (the bytes
    /// before `from` were cut into parts, and are written over once the
    /// buffer is full).
    pub buf: Vec<u8>,
    from: usize,
    filled: usize,
    /// Input offset of `buf[0]`, and lines before it.
    pub offset: usize,
    pub lines: usize,
    /// The reader's state at `buf[0]`.
    pub start: R,
    /// The boundary state after the lines scanned.
    reader: R,
    within: u64,
    /// Bytes of `buf` scanned (whole lines), and lines in them.
    scanned: usize,
    scanned_lines: usize,
    /// Where the last case found ends in `buf`: bytes and lines before it,
    /// and the cases in `buf` up to there.
    end: usize,
    end_lines: usize,
    pub cases: u64,
    /// A [`Mark::Stop`] was met: no more boundaries.
    stopped: bool,
    /// The input's file, when it is one: the parts cut are read from it
    /// by the threads that run them, not copied here.
    file: Option<Arc<Positional>>,
    /// Bytes and cases cut into parts so far (the size of reads).
    cut_bytes: usize,
    cut_cases: u64,
}

impl<R: Clone> Splitter<R> {
    /// Takes over the unread bytes of `input` (at a case's start, with the
    /// reader in state `reader`), in `buf` (whatever it holds).
    pub(super) fn new(input: &mut Input, reader: R, mut buf: Vec<u8>) -> Self {
        let mut unread = Vec::new();
        let (offset, lines) = input.take_unread(&mut unread);
        if buf.len() < unread.len() {
            buf.resize(unread.len(), 0);
        }
        buf[..unread.len()].copy_from_slice(&unread);
        Splitter {
            filled: unread.len(),
            from: 0,
            buf,
            offset,
            lines,
            start: reader.clone(),
            reader,
            within: 0,
            scanned: 0,
            scanned_lines: 0,
            end: 0,
            end_lines: 0,
            cases: 0,
            stopped: false,
            file: input.positional_source().cloned(),
            cut_bytes: 0,
            cut_cases: 0,
        }
    }

    /// The bytes held.
    pub(super) fn held(&self) -> &[u8] {
        &self.buf[self.from..self.filled]
    }

    /// Reads more of `input` after the bytes held, about what a part of
    /// `cases` cases holds (so that little is left to copy at a cut);
    /// false at its end.
    pub(super) fn read_more(&mut self, input: &mut Input, cases: u64) -> Result<bool, InputError> {
        let per_case = self.cut_bytes.checked_div(self.cut_cases as usize).unwrap_or(0);
        let part = per_case.saturating_mul(cases.try_into().unwrap_or(usize::MAX)) / 8 * 9;
        let want = part.saturating_sub(self.filled - self.from - self.end).clamp(READ, GIANT);
        if self.buf.len() < self.filled + want && self.from > 0 {
            // The bytes held move to the front: they are fewer than a part
            // most of the time.
            self.buf.copy_within(self.from..self.filled, 0);
            self.filled -= self.from;
            self.from = 0;
        }
        if self.buf.len() < self.filled + want {
            // Room for a few reads more, so that the bytes held move seldom.
            self.buf.resize(self.filled + 2 * want, 0);
        }
        let n = input.read_raw(&mut self.buf[self.filled..self.filled + want])?;
        self.filled += n;
        Ok(n > 0)
    }

    /// Input offset of the next part's first byte.
    pub(super) fn next_offset(&self) -> usize {
        self.offset + self.from
    }

    /// Input offset just past the bytes scanned.
    pub(super) fn scanned_offset(&self) -> usize {
        self.offset + self.scanned
    }

    /// Scans the whole lines not scanned yet, until the cases found since
    /// the last cut number `cases` or reach `bytes` bytes. `eof`: the source
    /// has ended (a lone `\r` at the end then ends a line).
    #[inline(never)]
    pub(super) fn scan<S: Split<Reader = R>>(&mut self, game: &S, cases: u64, bytes: usize, eof: bool) -> Found {
        if self.stopped {
            return Found::Done;
        }
        // The loop works on locals (a line of a few bytes costs a few
        // instructions), written back at the end.
        let buf = &self.buf[self.from..self.filled];
        let reader = &mut self.reader;
        let (mut at, mut lines, mut within) = (self.scanned, self.scanned_lines, self.within);
        let (mut end, mut end_lines, mut found_cases) = (self.end, self.end_lines, self.cases);
        // A byte order mark is skipped at the very start only.
        let mut bom = self.offset + at == 0;
        let mut found = Found::More;
        let stop = match game.ahead(0) {
            Ahead::EachLine { stop } => stop,
            _ => 0xFF,
        };
        let mut breaks = Breaks::new(buf, stop);
        loop {
            // Lines the game says hold no boundary, passed over.
            match game.ahead(within) {
                Ahead::Unknown => {}
                Ahead::NonBlank(n) => {
                    let (to, passed) = breaks.pass_plain(at, n, usize::MAX);
                    (at, lines, within) = (to, lines + passed as usize, within - passed.min(within));
                }
                Ahead::UntilBlank => {
                    let (to, passed) = breaks.pass_plain(at, u64::MAX, usize::MAX);
                    (at, lines) = (to, lines + passed as usize);
                }
                Ahead::EachLine { .. } if within == 0 => {
                    let (to, passed) = breaks.pass_plain(at, cases.saturating_sub(found_cases), bytes);
                    if passed > 0 {
                        (at, lines) = (to, lines + passed as usize);
                        (end, end_lines, found_cases) = (at, lines, found_cases + passed);
                        if found_cases >= cases || end >= bytes {
                            found = Found::Part;
                            break;
                        }
                    }
                }
                Ahead::EachLine { .. } => {}
            }
            let Some((len, step)) = breaks.line_end(at, eof) else { break };
            let mut text = &buf[at..at + len];
            if bom {
                text = text.strip_prefix(BOM).unwrap_or(text);
                bom = false;
            }
            let mark = game.boundary(reader, &mut within, text);
            at += step;
            lines += 1;
            match mark {
                Mark::Inside => {}
                Mark::Last => {
                    within = 0;
                    (end, end_lines) = (at, lines);
                    found_cases += 1;
                    if found_cases >= cases || end >= bytes {
                        found = Found::Part;
                        break;
                    }
                }
                Mark::Stop => {
                    self.stopped = true;
                    found = Found::Done;
                    break;
                }
            }
        }
        (self.scanned, self.scanned_lines, self.within) = (at, lines, within);
        (self.end, self.end_lines, self.cases) = (end, end_lines, found_cases);
        if found == Found::More {
            if eof {
                found = Found::Done;
            } else if self.filled - self.from - self.end > GIANT {
                found = Found::Giant;
            }
        }
        found
    }

    /// Cuts the cases found into a part, copied into `bytes` (whatever it
    /// holds), or read from the input's file by the thread that runs it
    /// when the input is a file (`bytes` then comes back unused: reading
    /// it there brings its bytes to that core's caches from the system's,
    /// not through this one's). Only when cases were found.
    pub(super) fn cut(&mut self, mut bytes: Vec<u8>) -> Part<R> {
        debug_assert!(self.cases > 0);
        if self.file.is_none() {
            if bytes.len() < self.end {
                bytes.resize(self.end, 0);
            }
            bytes[..self.end].copy_from_slice(&self.buf[self.from..self.from + self.end]);
        }
        // The reader changes only at a case's last line (and at a count
        // line, before the first case): its state now is that at `end`.
        let reader = std::mem::replace(&mut self.start, self.reader.clone());
        let part = Part {
            bytes,
            len: self.end,
            offset: self.offset,
            lines: self.lines,
            reader,
            cases: self.cases,
            file: self.file.clone(),
        };
        self.cut_bytes += self.end;
        self.cut_cases += self.cases;
        self.from += self.end;
        self.offset += self.end;
        self.lines += self.end_lines;
        self.scanned -= self.end;
        self.scanned_lines -= self.end_lines;
        (self.end, self.end_lines, self.cases) = (0, 0, 0);
        part
    }
}

/// For the engines' tests: the splitter, passing over lines as the game's
/// `ahead` says, finds the case ends that `boundary` marks when it is
/// given every line of `text` (up to a [`Mark::Stop`]). A hint that
/// disagreed would only cost time (parts read again on one thread), which
/// no output shows: this is where it shows.
#[cfg(test)]
pub(crate) fn assert_hints_agree<S: Split>(game: &S, text: &str) {
    let bytes = text.as_bytes();
    let (mut reader, mut within, mut at) = (S::Reader::default(), 0, 0);
    let mut want = Vec::new();
    let mut breaks = Breaks::new(bytes, 0xFF);
    while let Some((len, step)) = breaks.line_end(at, true) {
        let line = &bytes[at..at + len];
        at += step;
        match game.boundary(&mut reader, &mut within, line) {
            Mark::Inside => {}
            Mark::Last => {
                within = 0;
                want.push(at);
            }
            Mark::Stop => break,
        }
    }
    let mut input = Input::from_text(text);
    let mut split = Splitter::new(&mut input, S::Reader::default(), Vec::new());
    let mut found = Vec::new();
    loop {
        match split.scan(game, 1, usize::MAX, input.at_end()) {
            Found::Part => {
                let part = split.cut(Vec::new());
                found.push(part.offset + part.len);
            }
            Found::More => {
                split.read_more(&mut input, 1).expect("read from memory");
            }
            Found::Done | Found::Giant => break,
        }
    }
    assert_eq!(found, want, "case ends with the hints, and line by line, of {text:?}");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines as the splitter finds them, against [`Input`]'s own.
    #[test]
    fn lines_end_where_the_input_ends_them() {
        let text = b"ab\r\ncd\n\n\ref\rgh\r\r\nij\r";
        let mut mine = Vec::new();
        let mut at = 0;
        let mut breaks = Breaks::new(text, 0xFF);
        while let Some((len, step)) = breaks.line_end(at, true) {
            mine.push(String::from_utf8(text[at..at + len].to_vec()).unwrap());
            at += step;
        }
        let mut input = Input::new(&text[..]);
        let mut theirs = Vec::new();
        while let Some(l) = input.next_line().unwrap() {
            theirs.push(l.text.to_string());
        }
        assert_eq!(mine, theirs);
        // Without the end of the input, a last `\r` waits for the next byte.
        assert_eq!(Breaks::new(b"ab\r", 0xFF).line_end(0, false), None);
        assert_eq!(Breaks::new(b"ab", 0xFF).line_end(0, true), None);
    }
}
