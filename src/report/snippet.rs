//! The part of a rule file a report shows: only the lines its labels touch
//! (with one line of context around them), long lines cut to windows around
//! the labels, invisible characters escaped. Rendering costs the same
//! whatever the length of the file or of its lines, and a file named by
//! `extends:` that is not a rule file ([`SourceFile::guarded`]) is shown
//! only as a short excerpt around each label.

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use crate::source::{SourceFile, Span};
use crate::syntax::parse::invisible;

/// Lines of context before and after the labelled lines.
const CONTEXT: usize = 1;
/// Lines up to this many bytes are shown whole.
const WIDE: usize = 160;
/// Characters kept before and after a label on a line that is cut.
const AROUND: usize = 40;
/// The longest stretch of one label shown on a line that is cut.
const LABEL: usize = 60;
/// Characters kept around a label in a guarded file.
const GUARDED: usize = 16;
/// A label over more lines than this is shown on its first line only.
const TALL: usize = 8;
/// What stands for the text that is left out.
const CUT: &str = "…";

/// A source excerpt for miette, in its own coordinates (see [`snippet`]).
#[derive(Debug)]
pub struct Snippet {
    name: String,
    text: String,
    lines: Vec<Shown>,
}

/// One line of the excerpt.
#[derive(Debug)]
struct Shown {
    /// 0-based line number in the file.
    number: usize,
    /// Its bytes in the excerpt's text, without the line break.
    start: usize,
    end: usize,
    /// Lines of one block are consecutive in the file.
    block: usize,
    /// For every character kept, and for the end of the line: its offset
    /// in the file, in the excerpt, and its 0-based column in the file.
    map: Vec<(usize, usize, usize)>,
}

impl Shown {
    /// The excerpt offset of file offset `p` on this line (the next kept
    /// character when `p` was cut out).
    fn to_excerpt(&self, p: usize) -> usize {
        let i = self.map.partition_point(|&(o, _, _)| o < p).min(self.map.len() - 1);
        self.map[i].1
    }

    /// The file column of excerpt offset `p` on this line.
    fn column(&self, p: usize) -> usize {
        let i = self.map.partition_point(|&(_, x, _)| x < p).min(self.map.len() - 1);
        self.map[i].2
    }
}

/// The excerpt of `file` that shows `spans`, and the spans in the
/// excerpt's coordinates (in the same order).
pub fn snippet(file: &SourceFile, spans: &[Span]) -> (Snippet, Vec<SourceSpan>) {
    let text = &*file.text;
    let guarded = file.guarded;
    let last_line = file.line_count() - 1;
    // Spans clipped to the text, tall ones to their first line.
    let clipped: Vec<(usize, usize, usize, usize)> = spans
        .iter()
        .map(|s| {
            let a = (s.start as usize).min(text.len());
            let b = (s.end as usize).clamp(a, text.len());
            let la = file.line_index(a);
            let lb = file.line_index(if b > a { b - 1 } else { a });
            if lb > la && (lb - la >= TALL || guarded) {
                let (_, end) = file.line_span(la);
                (a, end.max(a), la, la)
            } else {
                (a, b, la, lb)
            }
        })
        .collect();
    // Blocks of consecutive lines to show.
    let context = if guarded { 0 } else { CONTEXT };
    let mut ranges: Vec<(usize, usize)> =
        clipped.iter().map(|&(_, _, la, lb)| (la.saturating_sub(context), (lb + context).min(last_line))).collect();
    ranges.sort_unstable();
    let mut blocks: Vec<(usize, usize)> = Vec::new();
    for (a, b) in ranges {
        match blocks.last_mut() {
            Some(last) if a <= last.1 + 1 => last.1 = last.1.max(b),
            _ => blocks.push((a, b)),
        }
    }
    let mut out = String::new();
    let mut lines = Vec::new();
    for (k, &(first, last)) in blocks.iter().enumerate() {
        for number in first..=last {
            let (ls, le) = file.line_span(number);
            let windows = windows(text, ls, le, &clipped, guarded);
            let start = out.len();
            let mut map = Vec::new();
            let mut at = ls;
            let mut column = 0;
            for &(ws, we) in &windows {
                if ws > at {
                    out.push_str(CUT);
                    column += text[at..ws].chars().count();
                }
                for (i, c) in text[ws..we].char_indices() {
                    map.push((ws + i, out.len(), column));
                    if invisible(c) {
                        out.extend(c.escape_unicode());
                    } else {
                        out.push(c);
                    }
                    column += 1;
                }
                at = we;
            }
            if at < le {
                out.push_str(CUT);
                column += text[at..le].chars().count();
            }
            map.push((le, out.len(), column));
            lines.push(Shown { number, start, end: out.len(), block: k, map });
            out.push('\n');
        }
    }
    let find = |p: usize, line: usize| -> usize {
        let i = lines.partition_point(|l: &Shown| l.number < line).min(lines.len().saturating_sub(1));
        lines.get(i).map_or(0, |l| l.to_excerpt(p))
    };
    let mapped = clipped
        .iter()
        .map(|&(a, b, la, lb)| {
            let x = find(a, la);
            let y = find(b, lb).max(x);
            SourceSpan::from((x, y - x))
        })
        .collect();
    (Snippet { name: super::diag::escape_line(&file.name), text: out, lines }, mapped)
}

/// The byte ranges of line `ls..le` to show: the whole line when it is
/// short, else windows around the labels on it.
fn windows(
    text: &str,
    ls: usize,
    le: usize,
    spans: &[(usize, usize, usize, usize)],
    guarded: bool,
) -> Vec<(usize, usize)> {
    if le - ls <= WIDE && !guarded {
        return vec![(ls, le)];
    }
    let (around, longest) = if guarded { (GUARDED, GUARDED) } else { (AROUND, LABEL) };
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut on_line: Vec<(usize, usize)> =
        spans.iter().filter(|&&(a, b, _, _)| a <= le && b >= ls).map(|&(a, b, _, _)| (a.max(ls), b.min(le))).collect();
    on_line.sort_unstable();
    if on_line.is_empty() && !guarded {
        return vec![(ls, forward(text, ls, WIDE, le))];
    }
    for (a, b) in on_line {
        let ws = back(text, a, around, ls);
        let shown_end = forward(text, a, longest, b.max(a)).min(b.max(a));
        let we = forward(text, shown_end.max(a), around, le);
        match out.last_mut() {
            Some(last) if ws <= last.1 => last.1 = last.1.max(we),
            _ => out.push((ws, we)),
        }
    }
    out
}

/// `n` characters back from byte `i`, not before `floor`.
fn back(text: &str, mut i: usize, n: usize, floor: usize) -> usize {
    for _ in 0..n {
        if i <= floor {
            break;
        }
        i -= 1;
        while !text.is_char_boundary(i) {
            i -= 1;
        }
    }
    i
}

/// `n` characters on from byte `i`, not past `ceil`.
fn forward(text: &str, mut i: usize, n: usize, ceil: usize) -> usize {
    for _ in 0..n {
        if i >= ceil {
            break;
        }
        i += 1;
        while i < ceil && !text.is_char_boundary(i) {
            i += 1;
        }
    }
    i
}

impl Snippet {
    /// The shown line holding excerpt offset `p`.
    fn line_at(&self, p: usize) -> Option<usize> {
        let i = self.lines.partition_point(|l| l.start <= p);
        i.checked_sub(1)
    }
}

impl SourceCode for Snippet {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let (from, len) = (span.offset(), span.len());
        let a = self.line_at(from).ok_or(MietteError::OutOfBounds)?;
        let b = self
            .line_at((from + len).saturating_sub(usize::from(len > 0)).max(from))
            .ok_or(MietteError::OutOfBounds)?;
        if self.lines[a].block != self.lines[b].block || from + len > self.lines[b].end + 1 {
            return Err(MietteError::OutOfBounds);
        }
        let block = self.lines[a].block;
        let mut first = a;
        while first > 0 && a - first < before && self.lines[first - 1].block == block {
            first -= 1;
        }
        let mut last = b;
        while last + 1 < self.lines.len() && last - b < after && self.lines[last + 1].block == block {
            last += 1;
        }
        let (start, end) = (self.lines[first].start, self.lines[last].end);
        // As miette's own sources do: the span's column when no line comes
        // before it, else 0; here the column in the file.
        let column = if before == 0 { self.lines[a].column(from) } else { 0 };
        Ok(Box::new(
            MietteSpanContents::new_named(
                self.name.clone(),
                &self.text.as_bytes()[start..end],
                (start, end - start).into(),
                self.lines[first].number,
                column,
                last - first + 1,
            )
            .with_language("arbiter"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(file: &SourceFile, spans: &[Span]) -> (String, Vec<String>) {
        let (s, mapped) = snippet(file, spans);
        let labels = mapped.iter().map(|m| s.text[m.offset()..m.offset() + m.len()].to_string()).collect();
        (s.text, labels)
    }

    #[test]
    fn only_the_labelled_lines_and_their_neighbours_are_kept() {
        let text: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        let f = SourceFile::new("f", text.as_str());
        let at = text.find("line 50").unwrap();
        let (t, labels) = shown(&f, &[Span::new(0, at, at + 7)]);
        assert_eq!(t, "line 49\nline 50\nline 51\n");
        assert_eq!(labels, ["line 50"]);
    }

    #[test]
    fn long_lines_are_cut_around_the_label_and_control_characters_escaped() {
        let text = format!("x: {}\u{1b}]0;owned\u{7} {}\n", "a ".repeat(50_000), "b ".repeat(50_000));
        let f = SourceFile::new("f", text.as_str());
        let at = text.find('\u{1b}').unwrap();
        let (t, labels) = shown(&f, &[Span::new(0, at, at + 10)]);
        assert!(t.chars().count() < 200, "{t}");
        assert!(t.starts_with('…') && t.trim_end().ends_with('…'));
        assert!(!t.contains('\u{1b}'));
        assert_eq!(labels, ["\\u{1b}]0;owned\\u{7}"]);
        let (s, _) = snippet(&f, &[Span::new(0, at, at + 1)]);
        let c = s.read_span(&(s.lines[0].to_excerpt(at), 1).into(), 0, 0).unwrap();
        assert_eq!(c.column(), 3 + 100_000, "the column is the file's");
    }

    #[test]
    fn a_guarded_file_shows_a_short_excerpt() {
        let text = "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n";
        let f = SourceFile::new("f", text).guarded(true);
        let (t, _) = shown(&f, &[Span::new(0, 8, 9)]);
        assert!(!t.contains("daemon") && t.chars().count() <= 2 * GUARDED + 4, "{t}");
    }
}
