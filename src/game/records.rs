//! The two shapes of input records every engine's reader is built from:
//! cases ended by a terminator line (`#`, `End`), and cases counted by a
//! first line (`3`, then three cases); and how their boundaries are found
//! without reading the cases (for [`Cases::boundary`]).
//!
//! [`Cases::boundary`]: super::Cases::boundary

use super::input::{Input, InputError, Line};
use super::Mark;

/// Whether a line holds only whitespace (as [`Line::is_blank`] says).
#[inline]
pub fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// The number of whitespace-separated words of a line (as
/// [`Line::tokens`] splits it).
#[inline]
pub fn words(line: &[u8]) -> usize {
    let mut n = 0;
    let mut blank = true;
    for &b in line {
        let ws = b.is_ascii_whitespace();
        n += usize::from(blank && !ws);
        blank = ws;
    }
    n
}

/// A whole number written as ASCII digits only (at most 19 of them), as
/// the readers accept counts.
#[inline]
pub fn digits(word: &[u8]) -> Option<u64> {
    if word.is_empty() || word.len() > 19 || !word.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(word.iter().fold(0, |v, &d| v * 10 + u64::from(d - b'0')))
}

/// For a boundary where a case of an input ended by a terminator line may
/// start (as [`until_terminator`] reads it): `Some(Inside)` for a blank
/// line, `Some(Stop)` for the terminator, `None` for a case's first line.
#[inline]
pub fn before_case(line: &[u8], terminator: &str) -> Option<Mark> {
    if is_blank(line) {
        return Some(Mark::Inside);
    }
    // The terminator is rare: compare lengths before trimming.
    (line.len() >= terminator.len() && line.trim_ascii() == terminator.as_bytes()).then_some(Mark::Stop)
}

/// The first line of the next case, or `None` at the terminator line.
/// `what` says what a case starts with ("a deal of 5 cards"); it is only
/// called for an error.
pub fn until_terminator<'i>(
    input: &'i mut Input,
    terminator: &str,
    what: impl FnOnce() -> String,
) -> Result<Option<Line<'i>>, InputError> {
    let line = input.next_nonblank_or(|input| {
        input
            .error_at_end(format!("expected {} or `{terminator}`, found end of input", what()))
            .with_help(format!("the input ends with a line holding only `{terminator}`"))
    })?;
    // The terminator is rare: compare lengths before trimming.
    if line.text.len() >= terminator.len() && line.trimmed() == terminator {
        return Ok(None);
    }
    Ok(Some(line))
}

/// Cases counted by a first line holding their number.
#[derive(Debug, Clone, Default)]
pub struct Counted {
    /// The number of cases, once the first line is read.
    total: Option<u64>,
    done: u64,
}

impl Counted {
    /// The number of the next case (1-based), reading the count first when
    /// needed; `None` after the last case, when only blank lines may
    /// follow. `noun` names a case ("case", "frame"); counts above `max`
    /// are refused.
    pub fn next(&mut self, input: &mut Input, noun: &str, max: u64) -> Result<Option<u64>, InputError> {
        let total = match self.total {
            Some(t) => t,
            None => {
                let t = read_count(input, noun, max)?;
                self.total = Some(t);
                t
            }
        };
        if self.done == total {
            if let Some(line) = input.next_nonblank()? {
                let s = if total == 1 { "" } else { "s" };
                return Err(line
                    .error(format!("unexpected input after the last of {total} {noun}{s}"))
                    .with_help(format!("the first line gives the number of {noun}s")));
            }
            return Ok(None);
        }
        self.done += 1;
        Ok(Some(self.done))
    }

    /// The number of cases the first line gave (0 before it is read).
    pub fn total(&self) -> u64 {
        self.total.unwrap_or(0)
    }

    /// For a boundary: the count line (read as [`Counted::next`] reads
    /// it; one it would refuse is a `Stop`), blank lines before it, and the
    /// lines after the last case (blank, or a `Stop`) get `Some(mark)`; a
    /// line of a case gets `None`.
    #[inline]
    pub fn boundary(&mut self, line: &[u8], max: u64) -> Option<Mark> {
        match self.total {
            Some(total) if self.done < total => None,
            _ if is_blank(line) => Some(Mark::Inside),
            Some(_) => Some(Mark::Stop),
            None => Some(match digits(line.trim_ascii()).filter(|&n| n <= max) {
                Some(n) => {
                    self.total = Some(n);
                    Mark::Inside
                }
                None => Mark::Stop,
            }),
        }
    }

    /// Counts a case whose last line a boundary found.
    #[inline]
    pub fn count_case(&mut self) {
        self.done += 1;
    }
}

/// The first line: one whole number from 0 to `max`.
fn read_count(input: &mut Input, noun: &str, max: u64) -> Result<u64, InputError> {
    let what = format!("the number of {noun}s");
    let Some(line) = input.next_nonblank()? else {
        return Err(input.error_at_end(format!("expected {what}, found end of input")));
    };
    let mut toks = line.tokens();
    let Some(t) = toks.next() else { return Err(line.error(format!("expected {what}"))) };
    if let Some(extra) = toks.next() {
        return Err(extra.error(format!("expected only {what} on the first line")));
    }
    if t.text.is_empty() || !t.text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(t
            .error(format!("expected {what}, found {}", t.quoted()))
            .with_help("the first line holds one whole number"));
    }
    match t.text.parse::<u64>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(t.error(format!("{what} {} is too large", t.quoted())).with_help(format!("at most {max} {noun}s"))),
    }
}
