//! The rule files of one load (a file and the files it extends), and spans
//! into them. Spans are byte offsets; line and column are computed only when
//! a diagnostic is rendered, from a table of line starts built once per file.

use miette::SourceSpan;
use std::sync::Arc;

/// Index of a file in a [`SourceMap`].
pub type FileId = u32;

/// A byte range in one file of a [`SourceMap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Self {
        Span { file, start: start as u32, end: end as u32 }
    }

    /// The smallest span covering both (same file assumed).
    pub fn to(self, other: Span) -> Span {
        Span { file: self.file, start: self.start.min(other.start), end: self.end.max(other.end) }
    }

    pub fn len(&self) -> usize {
        (self.end - self.start) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }

    pub fn miette(&self) -> SourceSpan {
        (self.start as usize, self.len()).into()
    }
}

/// Line starts of one text, and where its characters are wider than a
/// byte, so that a byte offset converts to a line and a column in
/// characters (for reports) or in UTF-16 code units (for the Language
/// Server Protocol), and back, in logarithmic time whatever the length of
/// the line: a 1 MiB line converts as fast as a short one.
#[derive(Debug, Clone, Default)]
pub struct LineIndex {
    /// Byte offset of the start of each line.
    starts: Vec<u32>,
    /// Every character of more than one byte, in order: its offset, and
    /// the bytes beyond one character (`chars`) and beyond its UTF-16 code
    /// units (`units`) counted from the start of the text up to and
    /// including it.
    wide: Vec<Wide>,
    len: u32,
}

#[derive(Debug, Clone, Copy)]
struct Wide {
    at: u32,
    chars: u32,
    units: u32,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let starts =
            std::iter::once(0).chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i as u32 + 1)).collect();
        let mut wide = Vec::new();
        if !text.is_ascii() {
            let (mut chars, mut units) = (0u32, 0u32);
            for (at, c) in text.char_indices().filter(|(_, c)| !c.is_ascii()) {
                let len = c.len_utf8() as u32;
                chars += len - 1;
                units += len - c.len_utf16() as u32;
                wide.push(Wide { at: at as u32, chars, units });
            }
        }
        LineIndex { starts, wide, len: text.len() as u32 }
    }

    /// The number of lines (one more than the number of `\n`).
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// The 0-based line holding byte `offset` (clamped to the text).
    pub fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.len as usize);
        self.starts.partition_point(|&s| s as usize <= offset).saturating_sub(1)
    }

    /// Byte range of 0-based `line` without its `\n` (an empty range at
    /// the end of the text past the last line).
    pub fn line_range(&self, line: usize) -> (usize, usize) {
        let Some(&start) = self.starts.get(line) else { return (self.len as usize, self.len as usize) };
        let end = self.starts.get(line + 1).map_or(self.len, |&n| n - 1);
        (start as usize, end.max(start) as usize)
    }

    /// The wide characters before byte `offset` (their count, and the
    /// extra bytes they hold as characters and as UTF-16 units).
    fn before(&self, offset: usize) -> (usize, u32, u32) {
        let i = self.wide.partition_point(|w| (w.at as usize) < offset);
        match i.checked_sub(1).map(|j| self.wide[j]) {
            Some(w) => (i, w.chars, w.units),
            None => (0, 0, 0),
        }
    }

    /// `offset` moved back to the start of the character it falls in.
    fn boundary(&self, offset: usize) -> usize {
        let offset = offset.min(self.len as usize);
        let i = self.wide.partition_point(|w| (w.at as usize) <= offset);
        match i.checked_sub(1).map(|j| (j, self.wide[j])) {
            Some((j, w)) if offset < w.at as usize + self.width(j) => w.at as usize,
            _ => offset,
        }
    }

    /// The byte length of wide character `j`.
    fn width(&self, j: usize) -> usize {
        let prev = j.checked_sub(1).map_or(0, |p| self.wide[p].chars);
        (self.wide[j].chars - prev) as usize + 1
    }

    /// 0-based line and 0-based column of byte `offset` (clamped to the
    /// text and to a character boundary), the column counted in characters
    /// or, with `utf16`, in UTF-16 code units.
    pub fn line_column(&self, offset: usize, utf16: bool) -> (usize, usize) {
        let offset = self.boundary(offset);
        let line = self.line_of(offset);
        let start = self.starts[line] as usize;
        let (_, c0, u0) = self.before(start);
        let (_, c1, u1) = self.before(offset);
        let extra = if utf16 { u1 - u0 } else { c1 - c0 };
        (line, offset - start - extra as usize)
    }

    /// The byte offset of 0-based `line` and UTF-16 `column`: a column
    /// past the end of the line is the end of the line, a line past the
    /// last one the end of the text, a column inside a character the end
    /// of that character.
    pub fn offset_utf16(&self, line: usize, column: usize) -> usize {
        let Some(&start) = self.starts.get(line) else { return self.len as usize };
        let (start, end) = (start as usize, self.line_range(line).1);
        let (first, _, u0) = self.before(start);
        let (last, _, _) = self.before(end);
        // Column of the byte `o` on this line (a character boundary).
        let col = |o: usize| o - start - (self.before(o).2 - u0) as usize;
        // The first wide character of the line at or past the column;
        // between the one before it and it, every character is one byte.
        let k = first + self.wide[first..last].partition_point(|w| col(w.at as usize) < column);
        let from = match k.checked_sub(1).filter(|&p| p >= first) {
            Some(p) => self.wide[p].at as usize + self.width(p),
            None => start,
        };
        let limit = self.wide.get(k).filter(|_| k < last).map_or(end, |w| w.at as usize);
        (from + column.saturating_sub(col(from))).min(limit)
    }
}

/// One loaded rule file.
#[derive(Debug)]
pub struct SourceFile {
    /// The name shown in diagnostics (the path as given, or `<stdin>`).
    pub name: String,
    pub text: Arc<str>,
    lines: LineIndex,
    /// Shown only as short excerpts (a file named by `extends:` that is not
    /// a rule file: its lines must not be printed whole).
    pub guarded: bool,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<Arc<str>>) -> Self {
        let text: Arc<str> = text.into();
        let lines = LineIndex::new(&text);
        SourceFile { name: name.into(), text, lines, guarded: false }
    }

    /// The file, shown only as short excerpts when `guarded`.
    pub fn guarded(mut self, guarded: bool) -> Self {
        self.guarded = guarded;
        self
    }

    /// The file's line index.
    pub fn lines(&self) -> &LineIndex {
        &self.lines
    }

    /// The number of lines.
    pub fn line_count(&self) -> usize {
        self.lines.line_count()
    }

    /// The 0-based line holding byte `offset` (public form).
    pub fn line_index(&self, offset: usize) -> usize {
        self.lines.line_of(offset)
    }

    /// Byte range of 0-based `line`, without its `\n`.
    pub fn line_span(&self, line: usize) -> (usize, usize) {
        self.lines.line_range(line)
    }

    /// 1-based line and column (in characters) of byte `offset`.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let (line, column) = self.lines.line_column(offset, false);
        (line + 1, column + 1)
    }
}

/// All files of one load, indexed by [`FileId`].
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    files: Vec<Arc<SourceFile>>,
}

impl SourceMap {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file and returns its id.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<Arc<str>>) -> FileId {
        self.add_file(SourceFile::new(name, text))
    }

    /// Adds a file made beforehand and returns its id.
    pub fn add_file(&mut self, file: SourceFile) -> FileId {
        self.files.push(Arc::new(file));
        (self.files.len() - 1) as FileId
    }

    pub fn file(&self, id: FileId) -> &Arc<SourceFile> {
        &self.files[id as usize]
    }

    /// The source text a span covers.
    pub fn slice(&self, span: Span) -> &str {
        let text = &self.file(span.file).text;
        text.get(span.start as usize..span.end as usize).unwrap_or("")
    }

    /// 1-based line and column of the start of a span.
    pub fn line_col(&self, span: Span) -> (usize, usize) {
        self.file(span.file).line_col(span.start as usize)
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_characters() {
        let f = SourceFile::new("f", "ab\nçd\n\nx");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(5), (2, 2), "ç is one character of two bytes");
        assert_eq!(f.line_col(7), (3, 1));
        assert_eq!(f.line_col(8), (4, 1));
        assert_eq!(f.line_col(99), (4, 2));
    }

    /// The slow obvious conversions, character by character.
    fn naive(text: &str, offset: usize) -> (usize, usize, usize) {
        let mut o = offset.min(text.len());
        while !text.is_char_boundary(o) {
            o -= 1;
        }
        let line = text[..o].matches('\n').count();
        let start = text[..o].rfind('\n').map_or(0, |n| n + 1);
        (line, text[start..o].chars().count(), text[start..o].encode_utf16().count())
    }

    fn naive_offset(text: &str, line: usize, column: usize) -> usize {
        if line >= text.split('\n').count() {
            return text.len();
        }
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        let end = text[start..].find('\n').map_or(text.len(), |n| start + n);
        let mut units = 0;
        for (i, c) in text[start..end].char_indices() {
            if units >= column {
                return start + i;
            }
            units += c.len_utf16();
        }
        end
    }

    proptest::proptest! {
        #[test]
        fn the_line_index_agrees_with_counting(
            text in "([a\n\u{e9}\u{1d11e}\u{20ac}b]{0,12}){0,6}",
            offset in 0usize..80,
            line in 0usize..8,
            column in 0usize..30,
        ) {
            let ix = LineIndex::new(&text);
            let (l, chars, units) = naive(&text, offset);
            proptest::prop_assert_eq!(ix.line_column(offset, false), (l, chars));
            proptest::prop_assert_eq!(ix.line_column(offset, true), (l, units));
            proptest::prop_assert_eq!(ix.offset_utf16(line, column), naive_offset(&text, line, column));
        }
    }

    #[test]
    fn utf16_columns_on_a_long_line_of_wide_characters() {
        let text = format!("x\n{}y", "é𝄞".repeat(100_000));
        let ix = LineIndex::new(&text);
        let y = text.len() - 1;
        assert_eq!(ix.line_column(y, true), (1, 300_000));
        assert_eq!(ix.line_column(y, false), (1, 200_000));
        assert_eq!(ix.offset_utf16(1, 300_000), y);
        assert_eq!(ix.offset_utf16(1, 1), 2 + 2, "after é, the start of 𝄞");
        assert_eq!(ix.offset_utf16(1, 2), 2 + 6, "inside 𝄞: its end");
        assert_eq!(ix.offset_utf16(1, 3), 2 + 6);
    }
}
