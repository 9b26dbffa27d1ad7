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

/// The name a token stands for (and where), by its role.
fn name_of(engine: Option<&'static Engine>, scan: &Scan, i: usize, role: &Role, section: &str) -> Option<Target> {
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
        Role::Value { key: Some(key), .. } => {
            let k = key_schema(engine, section, key)?;
            match k.defines {
                Some(kind) => kind,
                None => *k.refers.first()?,
            }
        }
        _ => return None,
    };
    let name = if t.tok == Tok::Str { super::scan::unquote(text) } else { text.to_string() };
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

/// The name at byte `offset` of `text`, and where it is written.
pub fn target_at(engine: Option<&'static Engine>, text: &str, offset: usize) -> Option<(Target, Occurrence)> {
    let scan = Scan::new(text);
    let i = scan.at(offset)?;
    let (role, frames) = scan.role(i);
    let section = frames.last().map_or("", |f| f.kind.as_str());
    let target = name_of(engine, &scan, i, &role, section)?;
    Some((target, occurrence(&scan, i)))
}

/// Every place `text` writes the name.
pub fn occurrences(engine: Option<&'static Engine>, text: &str, target: &Target) -> Vec<Occurrence> {
    let scan = Scan::new(text);
    let mut out = Vec::new();
    scan.walk(|i, role, frames| {
        let t = scan.tokens[i];
        if !matches!(t.tok, Tok::Word | Tok::Str) {
            return true;
        }
        let section = frames.last().map_or("", |f| f.kind.as_str());
        // Refers to several kinds: the name counts when its text matches
        // and the key may name the target's kind.
        let hit = match role {
            Role::Value { key: Some(key), text: w, .. } if *w == target.name => {
                key_schema(engine, section, key)
                    .is_some_and(|k| k.defines == Some(target.kind) || k.refers.contains(&target.kind))
                    || name_of(engine, &scan, i, role, section).is_some_and(|n| n == *target)
            }
            _ => name_of(engine, &scan, i, role, section).is_some_and(|n| n == *target),
        };
        if hit {
            out.push(occurrence(&scan, i));
        }
        true
    });
    out
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

    #[test]
    fn names_are_found_where_the_schema_uses_them() {
        let engine = crate::engines::engine("referee");
        let text = "ball \"Red\" { value: 1 }\nball \"Black\" { value: 7 }\nplay { alternate: Red }\nremove: ball \"Red\"\n# Red\n";
        let at = text.find("Red\" {").unwrap();
        let (t, o) = target_at(engine, text, at).unwrap();
        assert_eq!(t, Target { kind: "ball", name: "Red".into() });
        assert_eq!((o.start, o.end, o.quoted), (6, 9, true));
        let all = occurrences(engine, text, &t);
        let shown: Vec<&str> = all.iter().map(|o| &text[o.start..o.end]).collect();
        assert_eq!(shown, ["Red", "Red", "Red"], "the label, `alternate:`, `remove:`; not the comment");
        assert!(valid_new_name("Scarlet", true).is_ok());
        assert!(valid_new_name("Dark red", true).is_err());
        assert!(valid_new_name("Dark red", false).is_ok());
        assert!(valid_new_name("a\"b", false).is_err());
    }
}
