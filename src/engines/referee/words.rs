//! The words of stroke lines (the balls' names, the no-hit word and the
//! first word of the play-again line), split and looked up a machine word
//! at a time: a line of up to [`SPAN`] bytes is split with one mask per 8
//! bytes, each word's key is one or two loads, and a perfect hash found
//! when the rule file is loaded sends the key to the one slot that can
//! hold it. One multiplication, one probe and one comparison per word,
//! whatever the number of balls.

/// What a word of a stroke line is (one word can be several things).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meaning {
    /// The ball of this name, or [`NOT_A_BALL`].
    pub ball: u8,
    /// The word for "no ball hit".
    pub no_hit: bool,
    /// The first word of the play-again line.
    pub again: bool,
}

/// [`Meaning::ball`] of a word that names no ball.
pub(crate) const NOT_A_BALL: u8 = u8::MAX;

/// The meaning of a word that is none of the above.
pub(crate) const UNKNOWN: Meaning = Meaning { ball: NOT_A_BALL, no_hit: false, again: false };

#[derive(Debug, Clone, Copy)]
struct Slot {
    key: u64,
    /// The word's length (0: an empty slot; words are never empty).
    len: usize,
    /// The word, in `Words::words` (compared in full when it is longer
    /// than its key).
    word: usize,
    meaning: Meaning,
}

const EMPTY: Slot = Slot { key: 0, len: 0, word: 0, meaning: UNKNOWN };

/// The words of stroke lines and their meanings.
#[derive(Debug, Clone)]
pub struct Words {
    words: Vec<String>,
    /// `2^bits` slots, or empty when no perfect hash was found (then the
    /// words are scanned in turn).
    slots: Vec<Slot>,
    mult: u64,
    shift: u32,
    /// Every word with its key and meaning (the scan, and the table's source).
    all: Vec<Slot>,
}

/// Lines up to this long are split a machine word at a time (longer ones a
/// byte at a time).
pub(crate) const SPAN: usize = 64;

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `x` that is zero.
#[inline(always)]
fn zero_bytes(x: u64) -> u64 {
    !(((x & !HI) + !HI) | x | !HI)
}

/// The high bit of each byte of `x` below 0x21 (a blank or a control
/// character).
#[inline(always)]
fn low_bytes(x: u64) -> u64 {
    !(((x & !HI) + (0x80 - 0x21) * LO) | x) & HI
}

/// The high bit of each byte of `x` that `u8::is_ascii_whitespace` holds
/// for, but `\n` and `\r`, which end lines and are never in one.
#[inline(always)]
fn blank_bytes(x: u64) -> u64 {
    zero_bytes(x ^ (b' ' as u64 * LO)) | zero_bytes(x ^ (b'\t' as u64 * LO)) | zero_bytes(x ^ (0x0c * LO))
}

/// The key of a word: its first 8 bytes (zero-padded) when it is no
/// longer, else its first 8 bytes mixed with its last 8.
#[inline(always)]
fn key_of_parts(first: u64, last: u64, len: usize) -> u64 {
    if len < 8 {
        first & ((1u64 << (8 * len)) - 1)
    } else if len == 8 {
        first
    } else {
        first ^ last.rotate_left(31)
    }
}

/// Up to 8 bytes of `bytes` from `at` on, the first in the low byte (zeros
/// past the end): two overlapping loads at most, never a byte at a time.
#[inline(always)]
fn load(bytes: &[u8], at: usize) -> u64 {
    let n = bytes.len().saturating_sub(at);
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]));
    let half = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or([0; 4])) as u64;
    let quarter = |at: usize| u16::from_le_bytes(bytes[at..at + 2].try_into().unwrap_or([0; 2])) as u64;
    match n {
        8.. => word(at),
        4..=7 => half(at) | half(at + n - 4) << (8 * (n - 4)),
        2..=3 => quarter(at) | quarter(at + n - 2) << (8 * (n - 2)),
        1 => bytes[at] as u64,
        0 => 0,
    }
}

/// The key [`Split`] gives the word `bytes`.
pub(crate) fn key_of(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    key_of_parts(load(bytes, 0), load(bytes, len.saturating_sub(8)), len)
}

/// The words of a line (runs of bytes that are not ASCII whitespace, as
/// `Line::tokens` splits them), each as its first byte, its end and its
/// key.
pub(crate) struct Split<'t> {
    text: &'t [u8],
    /// Bit i: byte i is in a word not yet returned (when `fast`).
    rest: u64,
    fast: bool,
    /// Where the byte-at-a-time split goes on (when not `fast`).
    at: usize,
}

impl<'t> Split<'t> {
    #[inline(always)]
    pub(crate) fn new(text: &'t [u8]) -> Self {
        let mut s = Split { text, rest: 0, fast: false, at: 0 };
        let len = text.len();
        if len > SPAN {
            return s;
        }
        let mut delim = 0u64;
        let mut odd = 0u64;
        let mut i = 0;
        while i < len {
            let mut x = load(text, i);
            if len - i < 8 {
                // Blanks past the end.
                x |= (b' ' as u64 * LO) << (8 * (len - i));
            }
            let low = low_bytes(x);
            // A control character that is not a blank: split byte by byte.
            odd |= low ^ blank_bytes(x);
            // One bit per byte, from the high bit of each.
            delim |= ((low >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) << i;
            i += 8;
        }
        if odd == 0 {
            let in_line = if len == SPAN { u64::MAX } else { (1u64 << len) - 1 };
            s.rest = !delim & in_line;
            s.fast = true;
        }
        s
    }

    /// The next word: its first byte, its end and its key.
    #[inline(always)]
    pub(crate) fn next_word(&mut self) -> Option<(usize, usize, u64)> {
        if self.fast {
            if self.rest == 0 {
                return None;
            }
            let start = self.rest.trailing_zeros() as usize;
            let len = (self.rest >> start).trailing_ones() as usize;
            // Clear the run of ones just found.
            self.rest &= self.rest.wrapping_add(1 << start);
            let last = if len > 8 { load(self.text, start + len - 8) } else { 0 };
            return Some((start, start + len, key_of_parts(load(self.text, start), last, len)));
        }
        let text = self.text;
        let mut i = self.at;
        while i < text.len() && text[i].is_ascii_whitespace() {
            i += 1;
        }
        if i == text.len() {
            self.at = i;
            return None;
        }
        let start = i;
        while i < text.len() && !text[i].is_ascii_whitespace() {
            i += 1;
        }
        self.at = i;
        Some((start, i, key_of(&text[start..i])))
    }
}

impl Words {
    /// The table of `balls` (by index), `no_hit` and `again`, the first
    /// word of the play-again line. Every word is one run of non-blank
    /// characters.
    pub fn new(balls: &[String], no_hit: &str, again: &str) -> Words {
        let mut words: Vec<String> = Vec::new();
        let mut all: Vec<Slot> = Vec::new();
        let mut add = |w: &str, set: &dyn Fn(&mut Meaning)| {
            let i = match words.iter().position(|x| x == w) {
                Some(i) => i,
                None => {
                    words.push(w.to_string());
                    all.push(Slot { key: key_of(w.as_bytes()), len: w.len(), word: words.len() - 1, meaning: UNKNOWN });
                    words.len() - 1
                }
            };
            set(&mut all[i].meaning);
        };
        for (b, name) in balls.iter().enumerate() {
            // The first ball of a name is the one a lookup finds.
            add(name, &|m| {
                if m.ball == NOT_A_BALL {
                    m.ball = b as u8
                }
            });
        }
        add(no_hit, &|m| m.no_hit = true);
        add(again, &|m| m.again = true);
        let mut table = Words { words, slots: Vec::new(), mult: 0, shift: 0, all };
        table.find_perfect_hash();
        table
    }

    #[inline(always)]
    fn index(key: u64, len: usize, mult: u64, shift: u32) -> usize {
        (key.wrapping_add(len as u64).wrapping_mul(mult) >> shift) as usize
    }

    /// Tries multipliers (a fixed sequence: loading is deterministic) for
    /// tables of 2 to 32 slots per word until one sends every word to its
    /// own slot.
    fn find_perfect_hash(&mut self) {
        let n = self.all.len().max(1);
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            // splitmix64
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) | 1
        };
        let min_bits = usize::BITS - (n - 1).leading_zeros() + 1;
        for bits in min_bits..min_bits + 5 {
            let shift = 64 - bits;
            let mut slots = vec![EMPTY; 1 << bits];
            for _ in 0..64 {
                let mult = next();
                slots.fill(EMPTY);
                let placed = self.all.iter().all(|w| {
                    let s = &mut slots[Self::index(w.key, w.len, mult, shift)];
                    let free = s.len == 0;
                    if free {
                        *s = *w;
                    }
                    free
                });
                if placed {
                    self.slots = slots;
                    self.mult = mult;
                    self.shift = shift;
                    return;
                }
            }
        }
    }

    /// The meaning of the word `bytes`, whose key is `key`.
    #[inline(always)]
    pub fn get(&self, key: u64, bytes: &[u8]) -> Meaning {
        let len = bytes.len();
        let found = |s: &Slot| s.key == key && s.len == len && (len <= 8 || self.words[s.word].as_bytes() == bytes);
        if !self.slots.is_empty() {
            let s = &self.slots[Self::index(key, len, self.mult, self.shift)];
            return if found(s) { s.meaning } else { UNKNOWN };
        }
        self.all.iter().find(|s| found(s)).map_or(UNKNOWN, |s| s.meaning)
    }

    /// The meaning of `word`.
    pub fn meaning(&self, word: &str) -> Meaning {
        self.get(key_of(word.as_bytes()), word.as_bytes())
    }
}

/// Stroke lines of up to [`SEEN_LEN`] bytes read before, and the balls
/// their words name: a line seen again (most are: a frame's strokes name
/// a few balls) is found by two loads and one probe instead of being split
/// and looked up word by word. Only lines that were read as a stroke are
/// kept (never one whose first word may begin the play-again line); what a
/// line names does not depend on the frame, only whether the balls are on
/// the table does, and the caller checks that (or reads the line again,
/// for its error). A direct-mapped table: a line replaces the one in its
/// slot.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    slots: Vec<SeenSlot>,
}

/// Longest line [`Seen`] keeps.
pub(crate) const SEEN_LEN: usize = 16;
/// Most balls potted in a line [`Seen`] keeps.
const SEEN_POTS: usize = 8;
const SEEN_SLOTS: usize = 256;

#[derive(Debug, Clone, Copy, Default)]
struct SeenSlot {
    /// The line's first and last 8 bytes (see [`load`]): with its length,
    /// the whole line.
    first: u64,
    last: u64,
    /// 0: an empty slot (a stroke line is never empty).
    len: u8,
    /// The ball hit first, or [`NOT_A_BALL`] for the no-hit word.
    hit: u8,
    pots: u8,
    potted: [u8; SEEN_POTS],
}

impl Seen {
    pub(crate) fn new() -> Seen {
        Seen { slots: vec![SeenSlot::default(); SEEN_SLOTS] }
    }

    #[inline(always)]
    fn key(text: &[u8]) -> Option<(u64, u64, usize)> {
        let len = text.len();
        if len == 0 || len > SEEN_LEN {
            return None;
        }
        let (first, last) = (load(text, 0), load(text, len.saturating_sub(8)));
        let h = (first ^ last.rotate_left(29)).wrapping_add(len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Some((first, last, (h >> 56) as usize % SEEN_SLOTS))
    }

    /// The ball hit first (`None`: no ball) and the balls potted of a line
    /// kept before.
    #[inline(always)]
    pub(crate) fn get(&self, text: &[u8]) -> Option<(Option<usize>, &[u8])> {
        let (first, last, i) = Self::key(text)?;
        let s = &self.slots[i];
        (s.first == first && s.last == last && s.len as usize == text.len())
            .then(|| ((s.hit != NOT_A_BALL).then_some(s.hit as usize), &s.potted[..s.pots as usize]))
    }

    /// Keeps what the stroke line `text` names.
    pub(crate) fn put(&mut self, text: &[u8], hit: Option<usize>, potted: &[usize]) {
        let Some((first, last, i)) = Self::key(text) else { return };
        if potted.len() > SEEN_POTS || hit.is_some_and(|b| b >= NOT_A_BALL as usize) {
            return;
        }
        let mut slot = SeenSlot {
            first,
            last,
            len: text.len() as u8,
            hit: hit.map_or(NOT_A_BALL, |b| b as u8),
            pots: potted.len() as u8,
            potted: [0; SEEN_POTS],
        };
        for (to, &b) in slot.potted.iter_mut().zip(potted) {
            *to = b as u8;
        }
        self.slots[i] = slot;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_word_is_found_and_nothing_else() {
        let balls = names(&["White", "Red", "Yellow", "Green", "Brown", "Blue", "Pink", "Black"]);
        let w = Words::new(&balls, "None", "Play");
        assert!(!w.slots.is_empty(), "a perfect hash exists for these");
        for (i, b) in balls.iter().enumerate() {
            assert_eq!(w.meaning(b), Meaning { ball: i as u8, no_hit: false, again: false });
        }
        assert_eq!(w.meaning("None"), Meaning { ball: NOT_A_BALL, no_hit: true, again: false });
        assert_eq!(w.meaning("Play"), Meaning { ball: NOT_A_BALL, no_hit: false, again: true });
        for other in ["", "Re", "Redd", "red", "Black ", "Blacks", "Whitewash", "X", "None!", "again"] {
            assert_eq!(w.meaning(other), UNKNOWN, "{other:?}");
        }
    }

    /// A line is found again only byte for byte (whatever its length up
    /// to 16, and whatever the line that shares its slot), lines longer
    /// than 16 bytes or potting more than 8 balls are never kept, and the
    /// last line put in a slot is the one found there.
    #[test]
    fn seen_lines_are_found_byte_for_byte() {
        let mut seen = Seen::new();
        let lines: Vec<String> = (1..=SEEN_LEN).map(|n| "Red Blue White Pk"[..n].to_string()).collect();
        for (i, l) in lines.iter().enumerate() {
            seen.put(l.as_bytes(), (i % 3 != 0).then_some(i), &[i % 5, 7]);
        }
        let mut found = 0;
        for (i, l) in lines.iter().enumerate() {
            let want = ((i % 3 != 0).then_some(i), &[(i % 5) as u8, 7][..]);
            if let Some(got) = seen.get(l.as_bytes()) {
                assert_eq!(got, want, "{l:?}");
                found += 1;
            }
            let mut other = l.clone().into_bytes();
            *other.last_mut().unwrap() ^= 1;
            assert_eq!(seen.get(&other), None, "{l:?} changed");
            other.push(b' ');
            assert_eq!(seen.get(&other), None, "{l:?} longer");
        }
        assert!(found >= SEEN_LEN - 1, "at most one slot shared: {found}");
        seen.put(b"Red Blue White Pin", Some(1), &[]);
        assert_eq!(seen.get(b"Red Blue White Pin"), None, "17 bytes");
        seen.put(b"Red", Some(1), &[1; 9]);
        assert_eq!(seen.get(b"Red"), Some((Some(2), &[2u8, 7][..])), "nine balls potted are not kept");
        seen.put(b"Red", None, &[]);
        assert_eq!(seen.get(b"Red"), Some((None, &[][..])));
        assert_eq!(seen.get(b""), None);
    }

    /// Long names that share their first 8 bytes, a word that is a ball
    /// and the no-hit word at once, and many balls.
    #[test]
    fn long_shared_and_many_words() {
        let mut list: Vec<String> = (0..60).map(|i| format!("Ball{i}")).collect();
        list.push("Pottedball-1".into());
        list.push("Pottedball-2".into());
        list.push("Pottedball-1x".into());
        list.push("Dup".into());
        let w = Words::new(&list, "Dup", "Pottedball-2");
        for (i, b) in list.iter().enumerate().take(63) {
            assert_eq!(w.meaning(b).ball, i as u8, "{b}");
        }
        assert_eq!(w.meaning("Dup"), Meaning { ball: 63, no_hit: true, again: false });
        assert_eq!(w.meaning("Pottedball-2"), Meaning { ball: 61, no_hit: false, again: true });
        assert_eq!(w.meaning("Pottedball-3"), UNKNOWN);
        assert_eq!(w.meaning("Pottedball-"), UNKNOWN);
    }

    /// Every word of `text`, as `Split` finds it.
    fn split(text: &str) -> Vec<&str> {
        let mut s = Split::new(text.as_bytes());
        let mut got = Vec::new();
        while let Some((start, end, key)) = s.next_word() {
            assert_eq!(key, key_of(&text.as_bytes()[start..end]), "{text:?}");
            got.push(&text[start..end]);
        }
        got
    }

    #[test]
    fn words_are_split_like_tokens() {
        for text in [
            "  Red\tBlue \x0cPink  Whitewashed ",
            "Red",
            "",
            "   ",
            "Red\x0bRed Blue",
            "a\x01b c",
            "ééé Red",
            "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde ",
            " 123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "Red Red Red Red Red Red Red Red Red Red Red Red Red Red Red Red Red",
        ] {
            let want: Vec<&str> = text.split_ascii_whitespace().collect();
            assert_eq!(split(text), want, "{text:?}");
        }
    }

    proptest::proptest! {
        /// Lines of blanks, control characters, letters and non-ASCII
        /// text, short and long, split as `split_ascii_whitespace` does.
        #[test]
        fn any_line_is_split_like_tokens(text in "[ \t\x0b\x0c\x01aRé]{0,80}") {
            let want: Vec<&str> = text.split_ascii_whitespace().collect();
            proptest::prop_assert_eq!(split(&text), want);
        }

        /// Words of every length get the key of their bytes, and a long
        /// word differing from a name in its middle is not that name.
        #[test]
        fn long_words_are_compared_whole(name in "[a-z]{1,40}", at in 0usize..40) {
            let w = Words::new(std::slice::from_ref(&name), "None", "Play");
            proptest::prop_assert_eq!(w.meaning(&name).ball, 0);
            let mut other = name.clone().into_bytes();
            let at = at % other.len();
            other[at] = b'A';
            let other = String::from_utf8(other).unwrap();
            proptest::prop_assert_eq!(w.meaning(&other), UNKNOWN);
            let line = format!(" {name}  {other}");
            proptest::prop_assert_eq!(split(&line), vec![name.as_str(), other.as_str()]);
        }
    }
}
