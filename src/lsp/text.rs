//! Positions and file names in the protocol's terms: byte offsets to and
//! from LSP positions (lines and UTF-16 code units), and `file:` URIs to
//! and from paths.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::{Position, Range, Uri};

pub use crate::source::LineIndex;

/// Protocol positions over the shared [`LineIndex`] (UTF-16 columns).
pub trait Positions {
    /// The position of byte `offset` (clamped to the text, and to a
    /// character boundary).
    fn position(&self, offset: usize) -> Position;
    /// The byte offset of `pos`; a position past the end of its line is
    /// the end of the line, one past the last line the end of the text.
    fn offset(&self, pos: Position) -> usize;
    fn range(&self, start: usize, end: usize) -> Range {
        Range { start: self.position(start), end: self.position(end) }
    }
}

impl Positions for LineIndex {
    fn position(&self, offset: usize) -> Position {
        let (line, character) = self.line_column(offset, true);
        Position { line: line as u32, character: character as u32 }
    }

    fn offset(&self, pos: Position) -> usize {
        self.offset_utf16(pos.line as usize, pos.character as usize)
    }
}

/// The path a `file:` URI names (`None` for another scheme, a host
/// other than the local one, or a name that does not decode).
pub fn uri_to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    // `file:///path` or `file://localhost/path`; any other host is another
    // machine.
    let slash = rest.find('/')?;
    let host = &rest[..slash];
    if !host.is_empty() && !host.eq_ignore_ascii_case("localhost") {
        return None;
    }
    let decoded = percent_decode(&rest[slash..])?;
    if decoded.contains('\0') {
        return None;
    }
    // `/C:/dir` on Windows.
    #[cfg(windows)]
    let decoded = decoded.strip_prefix('/').filter(|d| d.get(1..2) == Some(":")).unwrap_or(&decoded).to_string();
    Some(PathBuf::from(decoded))
}

/// The `file:` URI of an absolute path.
pub fn path_to_uri(path: &Path) -> Option<String> {
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
    Some(out)
}

/// A URI as the protocol types hold it (`None` when it does not parse: a
/// client may name a document anything, but a location must be a URI).
pub fn lsp_uri(uri: &str) -> Option<Uri> {
    Uri::from_str(uri).ok()
}

/// A path made canonical (links and `..` resolved) when it exists, else
/// with `.` and `..` removed as written: two names of one file compare
/// equal.
pub fn canonical(path: &Path) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
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
        assert_eq!(ix.position(0), Position::new(0, 0));
        assert_eq!(ix.position(3), Position::new(1, 0));
        // ç is 2 bytes, 1 unit; 𝄞 is 4 bytes, 2 units.
        assert_eq!(ix.position(6), Position::new(1, 2));
        assert_eq!(ix.position(10), Position::new(1, 4));
        for off in [0, 1, 2, 3, 5, 6, 10, 11, 12] {
            assert_eq!(ix.offset(ix.position(off)), off, "offset {off}");
        }
        assert_eq!(ix.offset(Position::new(0, 99)), 2, "past the end of the line");
        assert_eq!(ix.offset(Position::new(9, 0)), text.len());
    }

    #[test]
    fn uris_and_paths_round_trip() {
        let p = Path::new("/tmp/a b/ü.rules");
        let uri = path_to_uri(p).unwrap();
        assert_eq!(uri, "file:///tmp/a%20b/%C3%BC.rules");
        assert_eq!(uri_to_path(&uri).unwrap(), p);
        for other in
            ["untitled:Untitled-1", "file:", "a", "file://evilhost/etc/x.rules", "file:///%ZZ.rules", "file:///a%00b"]
        {
            assert!(uri_to_path(other).is_none(), "{other}");
        }
        assert_eq!(uri_to_path("file://localhost/x/y.rules").unwrap(), Path::new("/x/y.rules"));
        assert_eq!(uri_to_path("file:///x/%2e%2e/y.rules").unwrap(), Path::new("/x/../y.rules"));
    }
}
