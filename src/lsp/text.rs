//! Positions and file names in the protocol's terms: byte offsets to and
//! from LSP positions (lines and UTF-16 code units), and `file:` URIs to
//! and from paths.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::{Position, Range, Uri};

/// Line starts of one text, for converting offsets and positions.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        LineIndex { starts }
    }

    /// The position of byte `offset` (clamped to the text, and to a
    /// character boundary).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let character = text[start..offset].encode_utf16().count();
        Position { line: line as u32, character: character as u32 }
    }

    /// The byte offset of `pos`; a position past the end of its line is
    /// the end of the line, one past the last line the end of the text.
    pub fn offset(&self, text: &str, pos: Position) -> usize {
        let Some(&start) = self.starts.get(pos.line as usize) else { return text.len() };
        let end = self.starts.get(pos.line as usize + 1).map_or(text.len(), |&n| n - 1);
        let line = &text[start..end.max(start)];
        let mut units = 0;
        for (i, c) in line.char_indices() {
            if units >= pos.character as usize {
                return start + i;
            }
            units += c.len_utf16();
        }
        start + line.len()
    }

    pub fn range(&self, text: &str, start: usize, end: usize) -> Range {
        Range { start: self.position(text, start), end: self.position(text, end) }
    }
}

/// The path a `file:` URI names.
pub fn uri_to_path(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str();
    let rest = s.strip_prefix("file://")?;
    // `file:///path` or `file://localhost/path`.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let decoded = percent_decode(path)?;
    // `/C:/dir` on Windows.
    #[cfg(windows)]
    let decoded = decoded.strip_prefix('/').filter(|d| d.get(1..2) == Some(":")).unwrap_or(&decoded).to_string();
    Some(PathBuf::from(decoded))
}

/// The `file:` URI of an absolute path.
pub fn path_to_uri(path: &Path) -> Option<Uri> {
    let s = path.to_str()?.replace('\\', "/");
    let mut out = String::from("file://");
    if !s.starts_with('/') {
        out.push('/');
    }
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(b as char),
            b':' if out.len() > 8 => out.push(':'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    Uri::from_str(&out).ok()
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let text = "ab\nçd𝄞e\n";
        let ix = LineIndex::new(text);
        assert_eq!(ix.position(text, 0), Position::new(0, 0));
        assert_eq!(ix.position(text, 3), Position::new(1, 0));
        // ç is 2 bytes, 1 unit; 𝄞 is 4 bytes, 2 units.
        assert_eq!(ix.position(text, 6), Position::new(1, 2));
        assert_eq!(ix.position(text, 10), Position::new(1, 4));
        for off in [0, 1, 2, 3, 5, 6, 10, 11, 12] {
            assert_eq!(ix.offset(text, ix.position(text, off)), off, "offset {off}");
        }
        assert_eq!(ix.offset(text, Position::new(0, 99)), 2, "past the end of the line");
        assert_eq!(ix.offset(text, Position::new(9, 0)), text.len());
    }

    #[test]
    fn uris_and_paths_round_trip() {
        let p = Path::new("/tmp/a b/ü.rules");
        let uri = path_to_uri(p).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/a%20b/%C3%BC.rules");
        assert_eq!(uri_to_path(&uri).unwrap(), p);
        assert!(uri_to_path(&Uri::from_str("untitled:Untitled-1").unwrap()).is_none());
    }
}
