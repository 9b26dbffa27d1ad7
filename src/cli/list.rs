//! `arbiter list`: the bundled games and their variants, with their
//! engines and titles; `arbiter show`: one bundled file's text.

use arbiter::engines::compile;
use arbiter::load::{bundled_names, bundled_text, load_bundled};

use super::print;
use super::term::{cut, exit, fit, Term};
use crate::Format;

/// One bundled rule file.
pub struct Entry {
    pub name: String,
    /// The game a variant extends (`None` for a game).
    pub base: Option<String>,
    pub engine: String,
    /// The `game:` title (a variant's is its base's).
    pub title: String,
    /// What the file says of itself: its leading comment, joined.
    pub about: String,
}

/// Every bundled rule file, each game followed by its variants.
pub fn entries() -> Result<Vec<Entry>, String> {
    let mut names = bundled_names();
    names.sort_by_key(|n| (n.split('/').next().unwrap_or(n).to_string(), n.contains('/'), n.to_string()));
    let mut out = Vec::new();
    for name in names {
        let loaded = match load_bundled(name) {
            Some(Ok(l)) => l,
            _ => return Err(format!("the bundled rule file `{name}` does not load")),
        };
        let (compiled, _) = compile(&loaded);
        let Some(compiled) = compiled else { return Err(format!("the bundled rule file `{name}` does not check")) };
        let text = &loaded.sources.file(0).text;
        let about = text
            .lines()
            .take_while(|l| l.starts_with('#'))
            .map(|l| l.trim_start_matches('#').trim())
            .take_while(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        out.push(Entry {
            name: name.to_string(),
            base: name.split_once('/').map(|(b, _)| b.to_string()),
            engine: compiled.engine.name.to_string(),
            title: compiled.title.unwrap_or_default(),
            about,
        });
    }
    Ok(out)
}

pub fn list(term: &Term, format: Format) -> u8 {
    let entries = match entries() {
        Ok(e) => e,
        Err(e) => return term.fail(arbiter::diag::codes::IO, e),
    };
    let text = match format {
        Format::Json => {
            let list: Vec<serde_json::Value> = entries
                .iter()
                .map(|e| {
                    serde_json::json!({
                        "name": e.name, "base": e.base, "engine": e.engine, "title": e.title, "about": e.about,
                    })
                })
                .collect();
            let mut s = serde_json::to_string_pretty(&list).unwrap_or_default();
            s.push('\n');
            s
        }
        Format::Text => {
            let shown = |e: &Entry| if e.base.is_some() { format!("  {}", e.name) } else { e.name.clone() };
            let w = entries.iter().map(|e| shown(e).len()).max().unwrap_or(0).max(4);
            let ew = entries.iter().map(|e| e.engine.len()).max().unwrap_or(0).max(6);
            let mut s = format!("{:w$}  {:ew$}  TITLE\n", "NAME", "ENGINE");
            for e in &entries {
                // A variant's title is its base's: what it says of itself
                // tells it apart.
                // Its first sentence; `--format json` gives all of it.
                let title = if e.base.is_some() && !e.about.is_empty() { first_sentence(&e.about) } else { &e.title };
                // Cut to the terminal's width (`--format json` has it all).
                let title = term
                    .columns
                    .map_or_else(|| title.to_string(), |c| cut(title, c.saturating_sub(w + ew + 4).max(12)));
                s.push_str(&format!("{:w$}  {:ew$}  {title}\n", shown(e), e.engine));
            }
            s.push_str(
                "\nRun one with `arbiter run NAME INPUT`; start a variant with `arbiter new FILE --from NAME`.\n",
            );
            fit(&s, term.columns)
        }
    };
    if entries.is_empty() {
        return exit::OK;
    }
    print(term, text.as_bytes())
}

/// The text up to the end of its first sentence (a `.` followed by a
/// space), or all of it.
fn first_sentence(text: &str) -> &str {
    text.find(". ").map_or(text, |i| &text[..=i])
}

/// Prints the bundled rule file `name` as it is bundled; an unknown name is
/// an unreadable file (exit 5) with the closest bundled name.
pub fn show(term: &Term, name: &str) -> u8 {
    if let Some(text) = bundled_text(name) {
        return print(term, text.as_bytes());
    }
    let names = bundled_names();
    let hint = match arbiter::diag::did_you_mean(name, names.iter().copied()) {
        Some(close) => format!("did you mean `{close}`? (`arbiter list` names every bundled file)"),
        None => "`arbiter list` names every bundled file".to_string(),
    };
    term.fail(arbiter::diag::codes::UNREADABLE, format!("no bundled rule file is called `{name}`: {hint}"))
}
