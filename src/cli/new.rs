//! `arbiter new PATH --from GAME`: a variant file that extends GAME, with
//! the sections a variant usually changes written out as comments (the
//! engine's schema says which), ready to uncomment and edit.

use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

use arbiter::diag::codes;
use arbiter::engines::Compiled;
use arbiter::load::{read_rule_file, Loaded};
use arbiter::report::diag::escape_line;
use arbiter::source::Span;
use arbiter::syntax::{Item, Section};

use super::term::{exit, Term};
use super::{load_and_compile, print};

pub fn new(term: &Term, path: &Path, from: &Path) -> u8 {
    let to_stdout = path.as_os_str() == "-";
    if !to_stdout && path.symlink_metadata().is_ok() {
        return term
            .fail(codes::IO, format!("`{}` already exists: `arbiter new` never overwrites a file", path.display()));
    }
    let (loaded, compiled) = match load_and_compile(term, from) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let extends = match extends_value(path, from) {
        Ok(e) => e,
        Err(e) => return term.fail(codes::IO, e),
    };
    let text = variant_text(&loaded, &compiled, from, &extends);
    if to_stdout {
        return print(term, text.as_bytes());
    }
    match super::write::create(path, text.as_bytes()) {
        Ok(()) if term.quiet => exit::OK,
        Ok(()) => {
            let _ = writeln!(
                io::stderr(),
                "wrote {path} (a variant of {from}); `arbiter diff {from} {path}` shows what it changes",
                path = escape_line(&path.display().to_string()),
                from = escape_line(&from.display().to_string()),
            );
            exit::OK
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            term.fail(codes::IO, format!("`{}` already exists: `arbiter new` never overwrites a file", path.display()))
        }
        Err(e) => term.fail(codes::IO, format!("cannot write `{}`: {e}", path.display())),
    }
}

/// What the new file's `extends:` says: the path of GAME relative to the
/// new file when GAME is a file, else the bundled game's name.
fn extends_value(path: &Path, from: &Path) -> Result<String, String> {
    if read_rule_file(from).is_err() {
        let name = from.to_string_lossy();
        let name = name.trim_start_matches("./");
        return Ok(name.strip_suffix(".rules").unwrap_or(name).to_string());
    }
    let base = from.canonicalize().map_err(|e| format!("cannot read `{}`: {e}", from.display()))?;
    let dir = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(d) => d.to_path_buf(),
        None => PathBuf::from("."),
    };
    if path.as_os_str() == "-" {
        return Ok(base.to_string_lossy().replace('\\', "/"));
    }
    let dir = dir.canonicalize().map_err(|e| format!("cannot write into `{}`: {e}", dir.display()))?;
    Ok(relative(&dir, &base).to_string_lossy().replace('\\', "/"))
}

/// `to` relative to the directory `from` (both absolute); `to` itself
/// when they share nothing but the root.
fn relative(from: &Path, to: &Path) -> PathBuf {
    let a: Vec<Component> = from.components().collect();
    let b: Vec<Component> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common <= 1 {
        return to.to_path_buf();
    }
    let mut out = PathBuf::new();
    for _ in common..a.len() {
        out.push("..");
    }
    for c in &b[common..] {
        out.push(c);
    }
    out
}

/// The text of the new variant.
pub fn variant_text(loaded: &Loaded, compiled: &Compiled, from: &Path, extends: &str) -> String {
    // Text from the base (its title, its path) goes into comments: a line
    // break there would start a live line, so it is escaped like every
    // other control character.
    let title = comment_text(&compiled.title.clone().unwrap_or_else(|| from.display().to_string()));
    let from_text = comment_text(&from.display().to_string());
    let mut out = format!(
        "# A variant of {title} ({}).\n\
         #\n\
         # A variant says only what differs from its base. A section written here\n\
         # merges into the base's section of the same kind and name (a key given\n\
         # here replaces the base's); `replace kind \"name\" {{ ... }}` starts a\n\
         # section afresh; `remove: kind \"name\"` drops one. Uncomment and edit\n\
         # what should change; `arbiter diff` shows what the variant changes.\n\
         extends: \"{}\"\n",
        from_text,
        extends.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n").replace('\r', "\\r")
    );
    let schema = compiled.engine.schema;
    let mut last_kind = String::new();
    for item in &loaded.items {
        let Item::Section(s) = item else { continue };
        if !schema.section(&s.kind.name).is_some_and(|sc| sc.often_changed) {
            continue;
        }
        // One blank line between kinds; runs of one kind stay together.
        if s.kind.name != last_kind || section_text(loaded, s).contains('\n') {
            out.push('\n');
        }
        last_kind = s.kind.name.clone();
        for line in section_text(loaded, s).lines() {
            out.push_str(if line.is_empty() { "#" } else { "# " });
            out.push_str(&comment_text(line));
            out.push('\n');
        }
    }
    out.push_str(
        "\n# Worked examples (a variant does not inherit its base's); `arbiter test`\n\
         # runs them.\n\
         # example \"NAME\" {\n\
         #   input: \"\"\"\n\
         #     ...\n\
         #     \"\"\"\n\
         #   output: \"\"\"\n\
         #     ...\n\
         #     \"\"\"\n\
         # }\n",
    );
    out
}

/// `text` made safe inside a `#` comment: line breaks and every other
/// control or invisible character but a tab escaped (`\n`, `\u{1b}`), so
/// that the comment ends where the line does.
fn comment_text(text: &str) -> String {
    arbiter::syntax::parse::visible(&text.replace('\n', "\\n"))
}

/// A merged section as text: as written when it comes from one file (its
/// comments and alignment kept), else in canonical layout.
fn section_text(loaded: &Loaded, s: &Section) -> String {
    fn spans(items: &[Item], out: &mut Vec<Span>) {
        for i in items {
            out.push(i.span());
            if let Item::Section(s) = i {
                spans(&s.items, out);
            }
        }
    }
    let mut all = vec![s.head];
    spans(&s.items, &mut all);
    let one_file = all.iter().all(|sp| sp.file == s.span.file && sp.start >= s.span.start && sp.end <= s.span.end);
    if one_file {
        return loaded.sources.slice(s.span).to_string();
    }
    let text = canonical(s, 0);
    arbiter::syntax::fmt::format(&text).map(|t| t.trim_end().to_string()).unwrap_or(text)
}

fn canonical(s: &Section, depth: usize) -> String {
    let pad = "  ".repeat(depth);
    let mut head = s.kind.name.clone();
    for l in &s.labels {
        head.push_str(&format!(" \"{}\"", l.value.replace('\\', "\\\\").replace('"', "\\\"")));
    }
    let mut out = format!("{pad}{head} {{\n");
    for i in &s.items {
        match i {
            Item::Property(p) => {
                out.push_str(&format!("{pad}  {}: {}\n", p.key.name, arbiter::syntax::fmt::values_text(p)))
            }
            Item::Section(inner) => out.push_str(&canonical(inner, depth + 1)),
        }
    }
    out.push_str(&format!("{pad}}}\n"));
    out
}
