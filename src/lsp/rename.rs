//! Rename and references for every name a rule file defines (ranks, balls,
//! groups, players, structures, combination labels...), across the files
//! of an `extends:` chain: the buffer, its bases, and the variants that
//! extend them (open, or beside the buffer on disk).
//!
//! A name is found the way the schema says it is used: the label of a
//! section that names it (`ball "Red"`), a value of a key that defines it
//! (`ranks: A 2 3`) or refers to it (`alternate: Red`), `remove: ball
//! "Red"`, and `before:`/`after:` in a section of its kind.

use super::features::{key_schema, section_schema};
use super::scan::{Role, Scan, Tok};
use crate::engines::Engine;

/// A name of the language: its kind (from the schema) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub kind: &'static str,
    pub name: String,
}

/// Where a name is written: its bytes (inside the quotes for a string),
/// and whether it is written in quotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occurrence {
    pub start: usize,
    pub end: usize,
    pub quoted: bool,
}

/// The uses of names in one file, as its own compile resolved them (byte
/// ranges, with the kind when the lowering knew it); `None` when they are
/// not known (the file does not load or compile without an error): then a
/// word of a key that refers to a kind counts when it is a name of that
/// kind.
pub type Uses = Option<Vec<(Option<&'static str>, usize, usize)>>;

/// What rename reads of one file.
pub struct Names<'a> {
    pub engine: Option<&'static Engine>,
    pub text: &'a str,
    pub uses: &'a Uses,
    /// The kinds of the names the chain defines with this text.
    pub defined: &'a dyn Fn(&str) -> Vec<&'static str>,
}

/// The name a token defines or places (a label, a value of a key that
/// defines names, `remove:`, `before:`/`after:`), by its role.
fn defined_at(engine: Option<&'static Engine>, scan: &Scan, i: usize, role: &Role, section: &str) -> Option<Target> {
    let t = scan.tokens[i];
    let text = &scan.text[t.start..t.end];
    let kind = match role {
        Role::Label { kind, .. } => section_schema(engine, kind)?.names?,
        Role::Value { key: Some(key), .. } if section.is_empty() && key == "remove" && t.tok == Tok::Str => {
            // `remove: ball "Red"`: the word before names the kind.
            let prev = scan.tokens[..i].iter().rev().find(|p| p.tok != Tok::Comment)?;
            section_schema(engine, &scan.text[prev.start..prev.end])?.names?
        }
        Role::Value { key: Some(key), .. } if matches!(key.as_str(), "before" | "after") && t.tok == Tok::Str => {
            section_schema(engine, section)?.names?
        }
        Role::Value { key: Some(key), .. } => key_schema(engine, section, key)?.defines?,
        _ => return None,
    };
    Some(Target { kind, name: name_text(scan, i, text) })
}

fn name_text(scan: &Scan, i: usize, text: &str) -> String {
    if scan.tokens[i].tok == Tok::Str {
        super::scan::unquote(text)
    } else {
        text.to_string()
    }
}

/// The name token `i` uses, if it is a use: one its file's compile
/// resolved, or (uses unknown) a word of a key that refers to a kind of
/// which the chain defines a name so written.
fn used_at(f: &Names, scan: &Scan, i: usize, role: &Role, section: &str) -> Option<Target> {
    let t = scan.tokens[i];
    let name = name_text(scan, i, &scan.text[t.start..t.end]);
    let kind = match f.uses {
        Some(uses) => {
            let &(kind, ..) = uses.iter().find(|u| u.1 == t.start)?;
            kind.or_else(|| (f.defined)(&name).first().copied())?
        }
        None => {
            let Role::Value { key: Some(key), .. } = role else { return None };
            let refers = key_schema(f.engine, section, key)?.refers;
            (f.defined)(&name).into_iter().find(|k| refers.contains(k))?
        }
    };
    Some(Target { kind, name })
}

/// The span of a token's name: inside the quotes for a string.
fn occurrence(scan: &Scan, i: usize) -> Occurrence {
    let t = scan.tokens[i];
    let s = &scan.text[t.start..t.end];
    if t.tok == Tok::Str {
        let end = if s.len() > 1 && s.ends_with('"') { t.end - 1 } else { t.end };
        return Occurrence { start: (t.start + 1).min(end), end, quoted: true };
    }
    Occurrence { start: t.start, end: t.end, quoted: false }
}

/// The name at byte `offset` of the file, and where it is written.
pub fn target_at(f: &Names, offset: usize) -> Option<(Target, Occurrence)> {
    let scan = Scan::new(f.text);
    let i = scan.at(offset)?;
    let (role, frames) = scan.role(i);
    let section = frames.last().map_or("", |fr| fr.kind.as_str());
    let target = defined_at(f.engine, &scan, i, &role, section).or_else(|| used_at(f, &scan, i, &role, section))?;
    Some((target, occurrence(&scan, i)))
}

/// Every place the file writes the name.
pub fn occurrences(f: &Names, target: &Target) -> Vec<Occurrence> {
    let scan = Scan::new(f.text);
    let mut out = Vec::new();
    scan.walk(|i, role, frames| {
        if !matches!(scan.tokens[i].tok, Tok::Word | Tok::Str) {
            return true;
        }
        let section = frames.last().map_or("", |fr| fr.kind.as_str());
        let hit = defined_at(f.engine, &scan, i, role, section).is_some_and(|n| n == *target)
            || used_at(f, &scan, i, role, section).is_some_and(|n| {
                n.name == target.name && (n.kind == target.kind || uses_any_kind(f, scan.tokens[i].start))
            });
        if hit {
            out.push(occurrence(&scan, i));
        }
        true
    });
    out
}

/// Whether the use at `start` is one whose kind the lowering did not say
/// (an element of an expression's sets: a ball, a rank, a suit...).
fn uses_any_kind(f: &Names, start: usize) -> bool {
    f.uses.as_ref().is_some_and(|u| u.iter().any(|&(k, s, _)| s == start && k.is_none()))
}

/// Whether `name` may replace a name written as `occurrences` say: any
/// text without quotes, backslashes or line breaks in quotes, a word
/// where it is written bare.
pub fn valid_new_name(name: &str, bare: bool) -> Result<(), String> {
    if name.is_empty() || name.contains(['"', '\\', '\n', '\r']) {
        return Err(format!("`{name}` cannot be a name: names have no quotes, backslashes or line breaks"));
    }
    let word = name.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'\''));
    if bare && !word {
        return Err(format!(
            "`{name}` is not a word, and the name is written without quotes: use letters, digits, `-`, `_` and `'`"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsp::analysis::Analysis;

    fn shown<'t>(text: &'t str, all: &[Occurrence]) -> Vec<&'t str> {
        all.iter().map(|o| &text[o.start..o.end]).collect()
    }

    /// A file that does not compile: its uses unknown, a word of a key
    /// that refers to balls counts when a ball is so named.
    #[test]
    fn without_a_compile_names_are_found_where_the_schema_uses_them() {
        let engine = crate::engines::engine("referee");
        let text = "ball \"Red\" { value: 1 }\nball \"Black\" { value: 7 }\nplay { alternate: Red }\nremove: ball \"Red\"\n# Red\n";
        let defined = |w: &str| if ["Red", "Black"].contains(&w) { vec!["ball"] } else { vec![] };
        let f = Names { engine, text, uses: &None, defined: &defined };
        let at = text.find("Red\" {").unwrap();
        let (t, o) = target_at(&f, at).unwrap();
        assert_eq!(t, Target { kind: "ball", name: "Red".into() });
        assert_eq!((o.start, o.end, o.quoted), (6, 9, true));
        assert_eq!(
            shown(text, &occurrences(&f, &t)),
            ["Red", "Red", "Red"],
            "the label, `alternate:`, `remove:`; not the comment"
        );
        assert!(target_at(&f, text.find("value").unwrap()).is_none());
        assert!(valid_new_name("Scarlet", true).is_ok());
        assert!(valid_new_name("Dark red", true).is_err());
        assert!(valid_new_name("Dark red", false).is_ok());
        assert!(valid_new_name("a\"b", false).is_err());
    }

    /// A file that compiles: a word is a use of a name only where the
    /// lowering took it for one (`5` in `run(5)` is a count, `kind` and
    /// `any` are pattern words, `J` in `kind(2 J Q K A)` is a rank).
    #[test]
    fn with_a_compile_only_resolved_words_are_uses() {
        let text = "engine: exchange\ndeck { ranks: A 2 3 4 5 6 7 8 9 T J Q K  suits: S H D C }\nplay { hand: 5 entry: 1 exchange: 0..5 cost: 0 prefer: fewer-cards leftmost }\n\
                    combination \"S\" { pattern: run(5) pays: 4 }\ncombination \"J\" { pattern: kind(2 J Q K A) pays: 1 }\n\
                    combination \"N\" { pattern: any pays: 0 }\ninput { end: \"#\" }\n\
                    output { stay: \"Hold {kept}\" exchange: \"Hold {kept}\" exchange-all: \"Hold none\" }\n";
        let a = Analysis::new(std::path::Path::new("/nowhere/t.rules"), text);
        assert!(a.diags.iter().all(|d| !d.is_error()), "{:?}", a.diags);
        let uses = a.buffer_uses();
        assert!(uses.is_some());
        let defined = |w: &str| a.names.iter().filter(|n| n.name == w).map(|n| n.kind).collect();
        let f = Names { engine: a.engine, text, uses: &uses, defined: &defined };
        for word in ["run(5)", "any", "kind(2"] {
            assert!(target_at(&f, text.find(word).unwrap() + word.len() - 1).is_none(), "{word}");
        }
        let (t, _) = target_at(&f, text.find("2 J").unwrap() + 2).unwrap();
        assert_eq!(t, Target { kind: "rank", name: "J".into() });
        let all = occurrences(&f, &t);
        assert_eq!(all.len(), 2, "the rank in the deck and in the pattern, not the label \"J\"");
        let (five, _) = target_at(&f, text.find("4 5").unwrap() + 2).unwrap();
        assert_eq!(occurrences(&f, &five).len(), 1, "not the count of `run(5)`");
    }
}
