//! The rule files of one load (a file and the files it extends), and spans
//! into them. Spans are byte offsets; line and column appear only when a
//! diagnostic is rendered.

use std::sync::Arc;

use miette::{NamedSource, SourceSpan};

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
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The name shown in diagnostics (the path as given, or `<stdin>`).
    pub name: String,
    pub text: Arc<str>,
    pub named: Arc<NamedSource<Arc<str>>>,
}

/// All files of one load, indexed by [`FileId`].
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file and returns its id.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<Arc<str>>) -> FileId {
        let name = name.into();
        let text: Arc<str> = text.into();
        let named = Arc::new(NamedSource::new(name.clone(), text.clone()).with_language("arbiter"));
        self.files.push(SourceFile { name, text, named });
        (self.files.len() - 1) as FileId
    }

    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id as usize]
    }

    /// The source text a span covers.
    pub fn slice(&self, span: Span) -> &str {
        let text = &self.file(span.file).text;
        text.get(span.start as usize..span.end as usize).unwrap_or("")
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}
