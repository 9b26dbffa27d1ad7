//! Deterministic mutations of every rule file in rules/ (delete a line, swap
//! two tokens, change a number to a huge one, insert garbage, truncate,
//! duplicate a line): `check` either accepts the result or reports
//! diagnostics whose every span lies inside its file, and never panics.

use arbiter::engines::compile;
use arbiter::load::load_text;

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const GARBAGE: &[&str] =
    &["{", "}", "\"", ":", "((((", "]", "\"\"\"", "#", "..", "-", "not in", "🂡", "\u{0}", "replace", "extends: \"x\""];

fn mutate(text: &str, rng: &mut Rng) -> (String, String) {
    let lines: Vec<&str> = text.lines().collect();
    let tokens: Vec<(usize, usize)> = {
        let mut v = Vec::new();
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i].is_ascii_whitespace() {
                i += 1;
                continue;
            }
            let s = i;
            while i < b.len() && !b[i].is_ascii_whitespace() {
                i += 1;
            }
            v.push((s, i));
        }
        v
    };
    match rng.below(6) {
        0 => {
            let k = rng.below(lines.len());
            let mut l = lines.clone();
            l.remove(k);
            (l.join("\n"), format!("delete line {}", k + 1))
        }
        1 if tokens.len() > 1 => {
            let (a, b) = (rng.below(tokens.len()), rng.below(tokens.len()));
            let (a, b) = (a.min(b), a.max(b));
            if a == b {
                return (text.to_string(), "nothing".into());
            }
            let (ta, tb) = (tokens[a], tokens[b]);
            let s = format!(
                "{}{}{}{}{}",
                &text[..ta.0],
                &text[tb.0..tb.1],
                &text[ta.1..tb.0],
                &text[ta.0..ta.1],
                &text[tb.1..]
            );
            (s, format!("swap tokens {a} and {b}"))
        }
        2 => {
            let digits: Vec<usize> = text.char_indices().filter(|(_, c)| c.is_ascii_digit()).map(|(i, _)| i).collect();
            if digits.is_empty() {
                return (text.to_string(), "nothing".into());
            }
            let at = digits[rng.below(digits.len())];
            let huge = ["99999999999999999999", "9223372036854775807", "4294967296", "0", "65536"][rng.below(5)];
            (format!("{}{}{}", &text[..at], huge, &text[at + 1..]), format!("number at {at} -> {huge}"))
        }
        3 => {
            let mut at = rng.below(text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let g = GARBAGE[rng.below(GARBAGE.len())];
            (format!("{}{}{}", &text[..at], g, &text[at..]), format!("insert {g:?} at {at}"))
        }
        4 => {
            let mut at = rng.below(text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            (text[..at].to_string(), format!("truncate at {at}"))
        }
        _ => {
            let k = rng.below(lines.len());
            let mut l = lines.clone();
            l.insert(k, lines[k]);
            (l.join("\n"), format!("duplicate line {}", k + 1))
        }
    }
}

#[test]
fn mutated_rule_files_are_accepted_or_located() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
    let files = arbiter::fuzz::bundled_rule_files(&root);
    assert!(!files.is_empty());
    let mut rejected = 0;
    let mut total = 0;
    for (n, f) in files.iter().enumerate() {
        let text = std::fs::read_to_string(f).unwrap();
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (n as u64 + 1));
        for _ in 0..300 {
            let (mutant, what) = mutate(&text, &mut rng);
            total += 1;
            let dir = f.parent().unwrap();
            let (sources, diags) = match load_text("mutant", &mutant, dir) {
                Err(e) => (e.sources, e.diags),
                Ok(loaded) => {
                    let (_, diags) = compile(&loaded);
                    (loaded.sources, diags)
                }
            };
            if diags.iter().any(|d| d.is_error()) {
                rejected += 1;
            }
            for d in &diags {
                let file = sources.file(d.span.file);
                let (s, e) = (d.span.start as usize, d.span.end as usize);
                assert!(
                    s <= e && e <= file.text.len(),
                    "{} ({what}): span {s}..{e} outside {} bytes: {}",
                    f.display(),
                    file.text.len(),
                    d.message
                );
                assert!(
                    file.text.is_char_boundary(s) && file.text.is_char_boundary(e),
                    "{} ({what}): span not on a char boundary",
                    f.display()
                );
                assert!(!d.message.is_empty());
                // Rendering must work too.
                let _ = arbiter::report::diag::render_plain(&arbiter::report::diag::of_diag(d, &sources));
            }
        }
    }
    // The mutations do something: many are caught (those inside worked
    // examples' strings are often harmless).
    assert!(rejected * 4 > total, "only {rejected} of {total} mutants rejected");
}
