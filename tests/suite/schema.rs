//! The engines' schemas (`src/engines/*/schema.rs`) against what the
//! lowerings really read: every bundled rule file and every broken one in
//! `tests/check/` is compiled while `check::record_asks` records the keys
//! asked of each section; a key read but not in the schema, or in the
//! schema but never read, fails with the engine, the section and the key.
//! `docs/reference.md` is generated from the schemas
//! (`ARBITER_BLESS=1 cargo test --test suite schema::` rewrites it).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use arbiter::check::{record_asks, Asked};
use arbiter::engines::schema::{self, LOADER_KEYS, TOP_KEYS};
use arbiter::engines::{compile, engine, ENGINES};
use arbiter::load::{bundled_names, load_bundled, load_path, Loaded};
use arbiter::syntax::Item;

/// The engine a loaded file names (also when it does not compile).
fn engine_of(loaded: &Loaded) -> Option<&'static str> {
    loaded.items.iter().find_map(|i| match i {
        Item::Property(p) if p.key.name == "engine" => {
            p.values.first().and_then(|v| v.as_word()).and_then(engine).map(|e| e.name)
        }
        _ => None,
    })
}

/// (engine, where from, what was asked) for every file.
fn asks() -> Vec<(&'static str, String, Vec<Asked>)> {
    let mut out = Vec::new();
    for name in bundled_names() {
        let loaded = load_bundled(name).unwrap().unwrap_or_else(|e| panic!("{name}: {:?}", e.diags));
        let ((compiled, diags), asked) = record_asks(|| compile(&loaded));
        assert!(compiled.is_some(), "{name} does not compile: {diags:?}");
        out.push((engine_of(&loaded).unwrap(), format!("rules/{name}.rules"), asked));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/check");
    let mut broken: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
        .map(|f| f.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rules"))
        .collect();
    broken.sort();
    for path in broken {
        let Ok(loaded) = load_path(&path) else { continue };
        let Some(engine) = engine_of(&loaded) else { continue };
        let (_, asked) = record_asks(|| compile(&loaded));
        out.push((engine, path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap().display().to_string(), asked));
    }
    out
}

fn schema_file(engine: &str, section: &str) -> String {
    match section {
        "deck" => "src/engines/cards/schema.rs".into(),
        "" | "example" => "src/engines/schema.rs".into(),
        _ => format!("src/engines/{engine}/schema.rs"),
    }
}

#[test]
fn every_key_a_lowering_reads_is_in_its_engines_schema() {
    // (engine, what, place, key, schema file) -> the files that read it.
    let mut missing: BTreeMap<(&str, &str, String, &str, String), Vec<String>> = BTreeMap::new();
    for (name, from, asked) in asks() {
        let schema = engine(name).unwrap().schema;
        for a in asked {
            let known = match (a.section.as_str(), a.is_section) {
                ("", false) => TOP_KEYS.iter().any(|k| k.name == a.key),
                ("", true) => schema.section(a.key).is_some(),
                (s, false) => schema.section(s).is_some_and(|s| s.key(a.key).is_some()),
                (_, true) => false,
            };
            if !known {
                let what = if a.is_section { "section" } else { "key" };
                let place =
                    if a.section.is_empty() { "the top level".to_string() } else { format!("section `{}`", a.section) };
                let file = schema_file(name, &a.section);
                let files = missing.entry((name, what, place, a.key, file)).or_default();
                if !files.contains(&from) {
                    files.push(from.clone());
                }
            }
        }
    }
    let lines: Vec<String> = missing
        .into_iter()
        .map(|((name, what, place, key, file), from)| {
            let others = match from.len() {
                1 => String::new(),
                n => format!(" and {} other files", n - 1),
            };
            format!("engine `{name}`: {what} `{key}` in {place} is read by the lowering (compiling {}{others}) but not declared in {file}", from[0])
        })
        .collect();
    assert!(lines.is_empty(), "\n{}", lines.join("\n"));
}

#[test]
fn every_key_in_a_schema_is_read_by_its_lowering() {
    // engine -> (section, key) pairs asked for by some file.
    let mut seen: BTreeMap<&str, BTreeSet<(String, &str)>> = BTreeMap::new();
    for (name, _, asked) in asks() {
        seen.entry(name).or_default().extend(asked.into_iter().map(|a| (a.section, a.key)));
    }
    let mut unread = Vec::new();
    for e in ENGINES {
        let seen = seen.get(e.name).cloned().unwrap_or_default();
        let read = |section: &str, key: &str| seen.contains(&(section.to_string(), key));
        for k in TOP_KEYS.iter().filter(|k| !LOADER_KEYS.contains(&k.name)) {
            if !read("", k.name) {
                unread.push(format!("engine `{}`: top-level key `{}` is declared but never read", e.name, k.name));
            }
        }
        for s in e.schema.all_sections() {
            if !read("", s.kind) {
                unread.push(format!(
                    "engine `{}`: section `{}` is declared in {} but the lowering never reads it",
                    e.name,
                    s.kind,
                    schema_file(e.name, s.kind)
                ));
            }
            for k in s.keys {
                if !read(s.kind, k.name) {
                    unread.push(format!(
                        "engine `{}`: key `{}` of section `{}` is declared in {} but never read while compiling the bundled and broken rule files",
                        e.name,
                        k.name,
                        s.kind,
                        schema_file(e.name, s.kind)
                    ));
                }
            }
        }
    }
    assert!(unread.is_empty(), "\n{}", unread.join("\n"));
}

#[test]
fn the_reference_page_is_generated_from_the_schemas() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reference.md");
    let want = schema::reference();
    if std::env::var_os("ARBITER_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have != want {
        let diff = similar::TextDiff::from_lines(&have, &want);
        panic!(
            "docs/reference.md differs from the schemas; run `ARBITER_BLESS=1 cargo test --test suite schema::`:\n{}",
            diff.unified_diff().header("docs/reference.md", "schemas")
        );
    }
}

/// Each engine's page documents every key of the engine's own sections.
#[test]
fn engine_pages_name_every_key_of_their_schema() {
    let mut missing = Vec::new();
    for e in ENGINES {
        let page = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("docs/engines/{}.md", e.name));
        let Ok(text) = std::fs::read_to_string(&page) else { continue };
        for s in e.schema.sections.iter().filter(|s| s.kind != "deck") {
            if !text.contains(&format!("`{}", s.kind)) {
                missing.push(format!("docs/engines/{}.md: section `{}` is not named", e.name, s.kind));
            }
            for k in s.keys {
                if !text.contains(&format!("`{}`", k.name)) {
                    missing.push(format!(
                        "docs/engines/{}.md: key `{}` of section `{}` is not named",
                        e.name, k.name, s.kind
                    ));
                }
            }
        }
    }
    assert!(missing.is_empty(), "\n{}", missing.join("\n"));
}

/// Each engine page's "State and decision points" tables are generated
/// from its schema (`ARBITER_BLESS=1` rewrites them).
#[test]
fn engine_pages_show_their_state_and_decision_points() {
    let mut stale = Vec::new();
    for e in ENGINES {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("docs/engines/{}.md", e.name));
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let (Some(a), Some(b)) = (text.find(schema::STATE_BEGIN), text.find(schema::STATE_END)) else {
            stale.push(format!(
                "docs/engines/{}.md has no generated tables: add `## State and decision points` with the lines\n{}\n{}",
                e.name,
                schema::STATE_BEGIN,
                schema::STATE_END
            ));
            continue;
        };
        let want = schema::state_tables(e.schema);
        let have = &text[a..b + schema::STATE_END.len()];
        if have != want {
            if std::env::var_os("ARBITER_BLESS").is_some() {
                std::fs::write(&path, format!("{}{want}{}", &text[..a], &text[b + schema::STATE_END.len()..])).unwrap();
            } else {
                stale.push(format!(
                    "docs/engines/{}.md: the state tables differ from the schema (ARBITER_BLESS=1)",
                    e.name
                ));
            }
        }
    }
    assert!(stale.is_empty(), "\n{}", stale.join("\n"));
}

/// The text of every rule file and test source, spacing folded: where the
/// examples of the state and decision tables must be found.
fn example_sources() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = String::new();
    let mut stack = vec![root.join("rules"), root.join("tests")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rules" || x == "rs") {
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                out.push_str(&text.split_whitespace().collect::<Vec<_>>().join(" "));
                out.push('\n');
            }
        }
    }
    out
}

/// Every state name and decision point has an example taken from a shipped
/// or test rule file (the state's reads the name), every state name is
/// read by some decision point of its engine, and a decision point's
/// unavailable names are state names.
#[test]
fn state_and_decision_examples_are_real() {
    let sources = example_sources();
    let found = |example: &str| sources.contains(&example.split_whitespace().collect::<Vec<_>>().join(" "));
    let mut wrong = Vec::new();
    for e in ENGINES {
        for v in e.schema.state {
            if !v.example.contains(v.name) || !found(v.example) {
                wrong.push(format!(
                    "{}: state `{}`: example `{}` reads no `{}` or is in no rule file",
                    e.name, v.name, v.example, v.name
                ));
            }
        }
        for (s, k) in e.schema.decisions() {
            let d = k.decides.unwrap();
            if d.example.is_empty() || !found(d.example) {
                wrong.push(format!(
                    "{}: `{} {{ {}: }}`: example `{}` is in no rule file",
                    e.name, s.kind, k.name, d.example
                ));
            }
            for (n, _) in d.unavailable {
                if !e.schema.state.iter().any(|v| v.name == *n) {
                    wrong.push(format!("{}: `{} {{ {}: }}`: `{n}` is no state name", e.name, s.kind, k.name));
                }
            }
        }
        if !e.schema.state.is_empty() && e.schema.decisions().next().is_none() {
            wrong.push(format!("{}: a state but no decision point reads it", e.name));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}
