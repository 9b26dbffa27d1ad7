//! Reading a game's input: a line/token cursor with byte offsets, and the
//! error type every input reader returns.
//!
//! Readers never panic on bad input: they return an [`InputError`] holding the
//! byte offset and length of the offending text and a message in the game's
//! own terms ("expected a card, found `1O`"). Line and column are computed
//! only when the error is rendered.

use std::fmt;

/// A problem in a game's input (not in the rule file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// Byte offset of the offending text in the whole input.
    pub offset: usize,
    /// Length in bytes of the offending text (0 at end of input).
    pub len: usize,
    /// What was wrong, e.g. "expected a card, found `1O`".
    pub message: String,
    /// A hint for fixing the input, when one is known.
    pub help: Option<String>,
}

impl InputError {
    /// An error covering `len` bytes at `offset`.
    pub fn new(offset: usize, len: usize, message: impl Into<String>) -> Self {
        InputError { offset, len, message: message.into(), help: None }
    }

    /// Adds a help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// 1-based line and column (in characters) of the error in `input`.
    pub fn line_col(&self, input: &str) -> (usize, usize) {
        let at = self.offset.min(input.len());
        let before = &input.as_bytes()[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let col = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
        (line, col)
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for InputError {}

/// A token: a run of non-whitespace bytes and where it starts in the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    pub text: &'a str,
    pub offset: usize,
}

impl<'a> Token<'a> {
    /// An error pointing at this token.
    pub fn error(&self, message: impl Into<String>) -> InputError {
        InputError::new(self.offset, self.text.len(), message)
    }
}

/// One input line without its line terminator (`\n` or `\r\n`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    pub text: &'a str,
    /// Byte offset of the first byte of the line in the whole input.
    pub offset: usize,
    /// 1-based line number.
    pub number: usize,
}

impl<'a> Line<'a> {
    /// The whitespace-separated tokens of the line, with their offsets.
    pub fn tokens(&self) -> impl Iterator<Item = Token<'a>> + 'a {
        let base = self.offset;
        let text = self.text;
        let bytes = text.as_bytes();
        let mut i = 0;
        std::iter::from_fn(move || {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if i >= bytes.len() {
                return None;
            }
            let start = i;
            while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            Some(Token { text: &text[start..i], offset: base + start })
        })
    }

    /// True when the line holds only whitespace.
    pub fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }

    /// An error covering the whole line (or its end when it is empty).
    pub fn error(&self, message: impl Into<String>) -> InputError {
        InputError::new(self.offset, self.text.len(), message)
    }

    /// An error pointing just past the end of the line.
    pub fn error_at_end(&self, message: impl Into<String>) -> InputError {
        InputError::new(self.offset + self.text.len(), 0, message)
    }
}

/// A cursor over the lines of an input, keeping byte offsets.
#[derive(Debug, Clone)]
pub struct Lines<'a> {
    input: &'a str,
    pos: usize,
    number: usize,
}

impl<'a> Lines<'a> {
    pub fn new(input: &'a str) -> Self {
        Lines { input, pos: 0, number: 0 }
    }

    /// The whole input.
    pub fn input(&self) -> &'a str {
        self.input
    }

    /// Byte offset of the next unread line (the input length at the end).
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// The next line, or `None` at the end of the input.
    pub fn next_line(&mut self) -> Option<Line<'a>> {
        if self.pos >= self.input.len() {
            return None;
        }
        let rest = &self.input[self.pos..];
        let (raw, advance) = match rest.find('\n') {
            Some(n) => (&rest[..n], n + 1),
            None => (rest, rest.len()),
        };
        let text = raw.strip_suffix('\r').unwrap_or(raw);
        let line = Line { text, offset: self.pos, number: self.number + 1 };
        self.pos += advance;
        self.number += 1;
        Some(line)
    }

    /// The next line that is not blank.
    pub fn next_nonblank(&mut self) -> Option<Line<'a>> {
        loop {
            let line = self.next_line()?;
            if !line.is_blank() {
                return Some(line);
            }
        }
    }

    /// An error pointing at the end of the input ("expected ..., found end of input").
    pub fn error_at_end(&self, message: impl Into<String>) -> InputError {
        InputError::new(self.input.len(), 0, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_carry_offsets_across_lines() {
        let input = "ab  cd\r\n\n  ef\n";
        let mut lines = Lines::new(input);
        let first = lines.next_line().unwrap();
        let toks: Vec<_> = first.tokens().map(|t| (t.text, t.offset)).collect();
        assert_eq!(toks, vec![("ab", 0), ("cd", 4)]);
        let third = lines.next_nonblank().unwrap();
        assert_eq!(third.number, 3);
        let ef = third.tokens().next().unwrap();
        assert_eq!(&input[ef.offset..ef.offset + 2], "ef");
        assert_eq!(ef.error("x").line_col(input), (3, 3));
        assert!(lines.next_line().is_none());
    }
}
