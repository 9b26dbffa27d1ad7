//! A forgiving scan of rule-file text for the editor: tokens, and what the
//! cursor is on (a key, a section kind, a label, a value) inside which
//! sections. It works on text that does not parse, as a buffer being typed
//! usually is; meaning still comes from the parser and the engines.

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tok {
    /// A name, a key or a number (`play`, `first-phase`, `10`).
    Word,
    /// A string, quotes included (possibly unterminated).
    Str,
    Open,
    Close,
    Colon,
    Comment,
    /// Any other character (operators, brackets).
    Punct,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
}

fn is_word_start(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn is_word_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'\'')
}

/// The tokens of `text`, in order; never fails.
pub fn tokens(text: &str) -> Vec<Token> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let tok = match c {
            b' ' | b'\t' | b'\r' | b'\n' => {
                i += 1;
                continue;
            }
            b'#' => {
                i = text[i..].find('\n').map_or(b.len(), |n| i + n);
                Tok::Comment
            }
            b'"' if b[i..].starts_with(b"\"\"\"") => {
                i = text[i + 3..].find("\"\"\"").map_or(b.len(), |n| i + 3 + n + 3);
                Tok::Str
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += text.get(i..).and_then(|r| r.chars().next()).map_or(1, char::len_utf8);
                }
                // An unclosed string ends with its line.
                if i < b.len() && b[i] == b'"' {
                    i += 1;
                }
                Tok::Str
            }
            b'{' => {
                i += 1;
                Tok::Open
            }
            b'}' => {
                i += 1;
                Tok::Close
            }
            b':' => {
                i += 1;
                Tok::Colon
            }
            c if is_word_start(c) => {
                while i < b.len() && is_word_char(b[i]) {
                    i += 1;
                }
                Tok::Word
            }
            _ => {
                i += text[i..].chars().next().map_or(1, char::len_utf8);
                Tok::Punct
            }
        };
        out.push(Token { tok, start, end: i.min(b.len()) });
    }
    out
}

/// A section open at some point of the text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frame {
    /// The kind (empty for the top level).
    pub kind: String,
    /// The labels, without quotes.
    pub labels: Vec<String>,
    /// Offset of the kind (of the `{` when no kind was found).
    pub head: usize,
    /// The keys and section kinds written in it so far.
    pub seen: Vec<String>,
    /// The property being written: the last `key:` of this block.
    pub key: Option<String>,
}

/// What a token is in the rule file's structure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// `key:`
    Key(String),
    /// The kind of a section head (`play` in `play {`).
    Kind(String),
    /// A label of a section head, without quotes; `kind` is its section's.
    Label { kind: String, label: String },
    /// A value of the property `key` (a word or a string, quotes removed).
    Value { key: Option<String>, text: String, string: bool },
    /// Anything else (punctuation, comments).
    Other,
}

/// The scanned text, with the structure the tokens imply.
pub struct Scan<'t> {
    pub text: &'t str,
    pub tokens: Vec<Token>,
}

/// The unquoted content of a string token.
pub fn unquote(s: &str) -> String {
    let inner = if let Some(r) = s.strip_prefix("\"\"\"") {
        r.strip_suffix("\"\"\"").unwrap_or(r)
    } else {
        let r = s.strip_prefix('"').unwrap_or(s);
        r.strip_suffix('"').unwrap_or(r)
    };
    inner.replace("\\\"", "\"").replace("\\\\", "\\")
}

impl<'t> Scan<'t> {
    pub fn new(text: &'t str) -> Self {
        Scan { text, tokens: tokens(text) }
    }

    fn slice(&self, t: Token) -> &'t str {
        &self.text[t.start..t.end]
    }

    /// The next token after `i` that is not a comment.
    fn next(&self, i: usize) -> Option<(usize, Token)> {
        self.tokens.iter().copied().enumerate().skip(i + 1).find(|(_, t)| t.tok != Tok::Comment)
    }

    /// Whether token `i` (a word) starts a section head: labels then `{`.
    fn heads_section(&self, i: usize) -> bool {
        let mut j = i;
        loop {
            match self.next(j) {
                Some((k, t)) if t.tok == Tok::Str => j = k,
                Some((_, t)) => return t.tok == Tok::Open,
                None => return false,
            }
        }
    }

    /// The role of token `i` and the sections open around it (outermost
    /// first, the top level included).
    pub fn role(&self, i: usize) -> (Role, Vec<Frame>) {
        let mut out = (Role::Other, vec![Frame::default()]);
        self.walk(|k, role, frames| {
            if k == i {
                out = (role.clone(), frames.to_vec());
                return false;
            }
            true
        });
        out
    }

    /// Every token's role in one pass: `f(index, role, frames)` for each
    /// token in order (the frames around it, without what follows it),
    /// until `f` returns false.
    pub fn walk(&self, mut f: impl FnMut(usize, &Role, &[Frame]) -> bool) {
        let mut frames = vec![Frame::default()];
        // The head being read: kind, its offset, labels.
        let mut head: Option<(String, usize, Vec<String>)> = None;
        for (k, t) in self.tokens.iter().copied().enumerate() {
            let frame = frames.last_mut().expect("the top level is never closed");
            let is_key = t.tok == Tok::Word && self.next(k).is_some_and(|(_, n)| n.tok == Tok::Colon);
            let this = match t.tok {
                Tok::Word if is_key => {
                    let key = self.slice(t).to_string();
                    frame.key = Some(key.clone());
                    frame.seen.push(key.clone());
                    head = None;
                    Role::Key(key)
                }
                Tok::Word if self.heads_section(k) && self.slice(t) != "replace" => {
                    let kind = self.slice(t).to_string();
                    head = Some((kind.clone(), t.start, Vec::new()));
                    frame.key = None;
                    Role::Kind(kind)
                }
                Tok::Word if self.slice(t) == "replace" && self.heads_section(k) => Role::Other,
                Tok::Str if head.is_some() => {
                    let (kind, _, labels) = head.as_mut().expect("checked");
                    let label = unquote(self.slice(t));
                    labels.push(label.clone());
                    Role::Label { kind: kind.clone(), label }
                }
                Tok::Word | Tok::Str => Role::Value {
                    key: frame.key.clone(),
                    text: if t.tok == Tok::Str { unquote(self.slice(t)) } else { self.slice(t).to_string() },
                    string: t.tok == Tok::Str,
                },
                Tok::Open => {
                    let (kind, at, labels) = head.take().unwrap_or((String::new(), t.start, Vec::new()));
                    frame.seen.push(kind.clone());
                    frames.push(Frame { kind, labels, head: at, seen: Vec::new(), key: None });
                    Role::Other
                }
                Tok::Close => {
                    if frames.len() > 1 {
                        frames.pop();
                    }
                    head = None;
                    Role::Other
                }
                Tok::Comment => Role::Other,
                Tok::Colon | Tok::Punct => {
                    head = None;
                    Role::Other
                }
            };
            // After an opening brace, the section it opens is open.
            if !f(k, &this, &frames) {
                return;
            }
        }
    }

    /// The token holding byte `offset` (a token ending at `offset` counts:
    /// the cursor is often just after a word).
    pub fn at(&self, offset: usize) -> Option<usize> {
        let i = self.tokens.partition_point(|t| t.end < offset);
        let t = self.tokens.get(i)?;
        (t.start <= offset && offset <= t.end).then_some(i)
    }

    /// The cursor's context for completion.
    pub fn cursor(&self, offset: usize) -> Cursor {
        // The word being typed, if the cursor ends one.
        let word = self.at(offset).filter(|&i| {
            let t = self.tokens[i];
            t.tok == Tok::Word && t.start < offset
        });
        let prefix_start = word.map_or(offset, |i| self.tokens[i].start);
        // A comment or a string the cursor is inside.
        let inside = self.at(offset).filter(|&i| {
            let t = self.tokens[i];
            let within = t.start < offset && offset < t.end
                || (offset == t.end && t.tok == Tok::Str && !self.slice(t).ends_with('"'))
                || (offset == t.end && t.tok == Tok::Comment);
            matches!(t.tok, Tok::Comment | Tok::Str) && within
        });
        let anchor = inside.map_or(prefix_start, |i| self.tokens[i].start);
        // The tokens before the anchor; `role` returns the sections open
        // just after the last of them.
        let before = self.tokens.partition_point(|t| t.end <= anchor);
        let mut frames = match before.checked_sub(1) {
            Some(last) => self.role(last).1,
            None => vec![Frame::default()],
        };
        self.seen_later(&mut frames, before, word);
        let place = match inside {
            Some(i) if self.tokens[i].tok == Tok::Comment => Place::Nowhere,
            Some(i) => self.in_string(i, &frames),
            None => self.between(before, prefix_start, &frames),
        };
        Cursor { frames, place, prefix_start }
    }

    /// The keys and sections written later in the same block count too.
    fn seen_later(&self, frames: &mut [Frame], before: usize, word: Option<usize>) {
        let Some(frame) = frames.last_mut() else { return };
        let mut depth = 0usize;
        for (k, t) in self.tokens.iter().copied().enumerate().skip(before) {
            match t.tok {
                Tok::Open => depth += 1,
                Tok::Close if depth == 0 => break,
                Tok::Close => depth -= 1,
                Tok::Word if depth == 0 && word.is_none_or(|w| w != k) => {
                    let is_key = self.next(k).is_some_and(|(_, n)| n.tok == Tok::Colon);
                    if is_key || self.heads_section(k) {
                        frame.seen.push(self.slice(t).to_string());
                    }
                }
                _ => {}
            }
        }
    }

    /// The section kind that starts the line of byte `at`, when the line
    /// holds only that word and strings up to `upto` (token index): a head
    /// being written (`combination "St`), not yet followed by `{`.
    fn head_of_line(&self, at: usize, upto: usize) -> Option<String> {
        let at = at.min(self.text.len());
        let line_start = self.text.as_bytes()[..at].iter().rposition(|&b| b == b'\n').map_or(0, |n| n + 1);
        let first = self.tokens.partition_point(|t| t.start < line_start);
        let mut k = first;
        if self.tokens.get(k).is_some_and(|t| t.tok == Tok::Word && self.slice(*t) == "replace") {
            k += 1;
        }
        let t = *self.tokens.get(k).filter(|t| t.tok == Tok::Word && k < upto)?;
        if self.next(k).is_some_and(|(_, n)| n.tok == Tok::Colon) {
            return None;
        }
        self.tokens[k + 1..upto].iter().all(|t| t.tok == Tok::Str).then(|| self.slice(t).to_string())
    }

    /// Inside string token `i`.
    fn in_string(&self, i: usize, frames: &[Frame]) -> Place {
        let t = self.tokens[i];
        let start = t.start + if self.slice(t).starts_with("\"\"\"") { 3 } else { 1 };
        if let Some(kind) = self.head_of_line(t.start, i) {
            return Place::Label { kind, start };
        }
        let key = frames.last().and_then(|f| f.key.clone());
        let after_word = i
            .checked_sub(1)
            .map(|p| self.tokens[p])
            .filter(|p| p.tok == Tok::Word && !self.text.as_bytes()[p.end..t.start].contains(&b'\n'))
            .map(|p| self.slice(p).to_string());
        Place::Quoted { key, after_word, start }
    }

    /// Between tokens: where a key, a value or a head's label may go.
    fn between(&self, before: usize, prefix_start: usize, frames: &[Frame]) -> Place {
        if let Some(kind) = self.head_of_line(prefix_start, before) {
            return Place::Head { kind };
        }
        let prev = self.tokens[..before].iter().rev().find(|t| t.tok != Tok::Comment).copied();
        let newline_between = |t: Token| self.text.as_bytes()[t.end..prefix_start.max(t.end)].contains(&b'\n');
        let key = frames.last().and_then(|f| f.key.clone());
        match prev {
            None => Place::Key,
            Some(t) if matches!(t.tok, Tok::Open | Tok::Close) => Place::Key,
            Some(t) if t.tok == Tok::Colon => Place::Value { key, also_key: false },
            Some(t) if newline_between(t) => Place::Key,
            Some(_) => Place::Value { key, also_key: true },
        }
    }

    /// The span of the value of the top-level `extends:` property.
    pub fn extends(&self) -> Option<(usize, usize, String)> {
        let mut depth = 0usize;
        for (k, t) in self.tokens.iter().copied().enumerate() {
            match t.tok {
                Tok::Open => depth += 1,
                Tok::Close => depth = depth.saturating_sub(1),
                Tok::Word if depth == 0 && self.slice(t) == "extends" => {
                    let (c, colon) = self.next(k)?;
                    if colon.tok != Tok::Colon {
                        continue;
                    }
                    let (_, v) = self.next(c)?;
                    return (v.tok == Tok::Str).then(|| (v.start, v.end, unquote(self.slice(v))));
                }
                _ => {}
            }
        }
        None
    }
}

/// Where the cursor is, for completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    /// The sections open around the cursor, the top level first.
    pub frames: Vec<Frame>,
    pub place: Place,
    /// Where the word being typed starts (the cursor when none).
    pub prefix_start: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// Where a key or a section may start.
    Key,
    /// Among the values of `key`; `also_key` when a new key may start too
    /// (after a value on the same line).
    Value { key: Option<String>, also_key: bool },
    /// After the kind of a section head being written (`combination |`).
    Head { kind: String },
    /// Inside a label of a section head (`combination "|"`); `start`: where
    /// its text starts.
    Label { kind: String, start: usize },
    /// Inside a string value of `key` (`extends: "|"`); `after_word`: a
    /// word just before it on its line (`remove: combination "|"`).
    Quoted { key: Option<String>, after_word: Option<String>, start: usize },
    /// In a comment.
    Nowhere,
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "game: \"G\"  # c\nplay {\n  hand: 5\n  prefer: fewer-cards\n}\ncombination \"Straight\" { pattern: run(5) pays: 100 }\n";

    fn role_of(text: &str, needle: &str) -> (Role, Vec<String>) {
        let s = Scan::new(text);
        let at = text.find(needle).unwrap();
        let (role, frames) = s.role(s.at(at).unwrap());
        (role, frames.into_iter().map(|f| f.kind).collect())
    }

    #[test]
    fn tokens_have_roles() {
        assert_eq!(role_of(TEXT, "game"), (Role::Key("game".into()), vec![String::new()]));
        assert_eq!(role_of(TEXT, "play"), (Role::Kind("play".into()), vec![String::new()]));
        assert_eq!(role_of(TEXT, "hand"), (Role::Key("hand".into()), vec![String::new(), "play".into()]));
        assert_eq!(
            role_of(TEXT, "fewer"),
            (
                Role::Value { key: Some("prefer".into()), text: "fewer-cards".into(), string: false },
                vec![String::new(), "play".into()]
            )
        );
        assert_eq!(
            role_of(TEXT, "\"Straight\""),
            (Role::Label { kind: "combination".into(), label: "Straight".into() }, vec![String::new()])
        );
        assert_eq!(role_of(TEXT, "pays").0, Role::Key("pays".into()));
        assert_eq!(role_of(TEXT, "100").1, vec![String::new(), "combination".to_string()]);
    }

    #[test]
    fn the_cursor_knows_its_section_and_place() {
        let s = Scan::new(TEXT);
        let after_hand_line = TEXT.find("  prefer").unwrap() + 2;
        let c = s.cursor(after_hand_line);
        assert_eq!(c.place, Place::Key);
        assert_eq!(c.frames.last().unwrap().kind, "play");
        assert_eq!(c.frames.last().unwrap().seen, ["hand", "prefer"], "keys after the cursor too");
        let in_prefer = TEXT.find("fewer").unwrap() + 3;
        let c = s.cursor(in_prefer);
        assert_eq!(c.place, Place::Value { key: Some("prefer".into()), also_key: false });
        assert_eq!(c.prefix_start, TEXT.find("fewer").unwrap());
        let top = TEXT.find("combination").unwrap();
        let c = s.cursor(top);
        assert_eq!((c.place, c.frames.len()), (Place::Key, 1));
        let in_comment = TEXT.find("# c").unwrap() + 2;
        assert_eq!(s.cursor(in_comment).place, Place::Nowhere);
    }

    #[test]
    fn broken_text_still_scans() {
        for text in ["\"\\é", "\"\\", "\"\"\"x", "a: \"\\\n", "é\u{0}#"] {
            let s = Scan::new(text);
            for i in 0..=text.len() {
                let _ = s.cursor(i);
            }
        }
        let text = "play {\n  hand: \"unclosed\n  pre";
        let s = Scan::new(text);
        let c = s.cursor(text.len());
        assert_eq!(c.frames.last().unwrap().kind, "play");
        assert_eq!(c.place, Place::Key);
        assert_eq!(Scan::new("extends: \"../g.rules\"\n").extends(), Some((9, 21, "../g.rules".into())));
    }
}
