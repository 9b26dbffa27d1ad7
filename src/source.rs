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

/// One loaded rule file.
#[derive(Debug)]
pub struct SourceFile {
    /// The name shown in diagnostics (the path as given, or `<stdin>`).
    pub name: String,
    pub text: Arc<str>,
    /// Byte offset of the start of each line.
    lines: Vec<u32>,
    /// Shown only as short excerpts (a file named by `extends:` that is not
    /// a rule file: its lines must not be printed whole).
    pub guarded: bool,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<Arc<str>>) -> Self {
        let text: Arc<str> = text.into();
        let lines = std::iter::once(0)
            .chain(text.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i as u32 + 1))
            .collect();
        SourceFile { name: name.into(), text, lines, guarded: false }
    }

    /// The file, shown only as short excerpts when `guarded`.
    pub fn guarded(mut self, guarded: bool) -> Self {
        self.guarded = guarded;
        self
    }

    /// The number of lines.
    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// The 0-based line holding byte `offset` (public form).
    pub fn line_index(&self, offset: usize) -> usize {
        self.line_of(offset.min(self.text.len()))
    }

    /// Byte range of 0-based `line`, without its `\n`.
    pub fn line_span(&self, line: usize) -> (usize, usize) {
        self.line_range(line)
    }

    /// The 0-based line holding byte `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.lines.partition_point(|&s| s as usize <= offset).saturating_sub(1)
    }

    /// 1-based line and column (in characters) of byte `offset`.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_of(offset);
        let start = self.lines[line] as usize;
        let column = self.text.get(start..offset).map_or(offset - start, |s| s.chars().count()) + 1;
        (line + 1, column)
    }

    /// Byte range of 0-based `line` (without its `\n`).
    fn line_range(&self, line: usize) -> (usize, usize) {
        let start = self.lines[line] as usize;
        let end = self.lines.get(line + 1).map_or(self.text.len(), |&n| n as usize - 1);
        (start, end.max(start))
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
}
