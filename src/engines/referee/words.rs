//! The words of stroke lines (the balls' names, the no-hit word and the
//! first word of the play-again line), scanned and looked up in one pass:
//! a word's first 8 bytes are packed into a key while the line is split,
//! and a perfect hash found when the rule file is loaded sends the key to
//! the one slot that can hold it. One multiplication, one probe and one
//! comparison per word, whatever the number of balls.

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
pub const NOT_A_BALL: u8 = u8::MAX;

/// The meaning of a word that is none of the above.
pub const UNKNOWN: Meaning = Meaning { ball: NOT_A_BALL, no_hit: false, again: false };

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

/// The next word of `text` from byte `*at` on (words are separated by
/// ASCII whitespace, as `Line::tokens` splits them): its first byte and its
/// key; `*at` moves just past it.
#[inline(always)]
pub fn next_word(text: &[u8], at: &mut usize) -> Option<(usize, u64)> {
    let mut i = *at;
    while i < text.len() && text[i].is_ascii_whitespace() {
        i += 1;
    }
    if i == text.len() {
        *at = i;
        return None;
    }
    let start = i;
    let mut key = 0u64;
    while i < text.len() {
        let b = text[i];
        if b.is_ascii_whitespace() {
            break;
        }
        let n = i - start;
        key = if n < 8 { key | (b as u64) << (8 * n) } else { key.rotate_left(7) ^ b as u64 };
        i += 1;
    }
    *at = i;
    Some((start, key))
}

/// The key [`next_word`] gives `word` when it is one run of non-blank
/// characters (a name with a blank gets a key no word of a line has).
pub fn key_of(word: &str) -> u64 {
    word.bytes()
        .enumerate()
        .fold(0, |key, (n, b)| if n < 8 { key | (b as u64) << (8 * n) } else { key.rotate_left(7) ^ b as u64 })
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
                    all.push(Slot { key: key_of(w), len: w.len(), word: words.len() - 1, meaning: UNKNOWN });
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
        self.get(key_of(word), word.as_bytes())
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

    #[test]
    fn words_are_split_like_tokens() {
        let text = "  Red\tBlue \x0cPink\r  Whitewashed ";
        let mut at = 0;
        let mut got = Vec::new();
        while let Some((start, key)) = next_word(text.as_bytes(), &mut at) {
            assert_eq!(key, key_of(&text[start..at]));
            got.push(&text[start..at]);
        }
        let want: Vec<&str> = text.split_ascii_whitespace().collect();
        assert_eq!(got, want);
    }
}
