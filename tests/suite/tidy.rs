//! Keeps the docs honest and the tree tidy:
//! - every source file under `src/` is in the code map of docs/ARCHITECTURE.md;
//! - the diagnostic codes of `src/diag/codes.rs` are exactly those of
//!   docs/diagnostics.md, each used in `src/` and triggered by the test it
//!   names;
//! - every fenced block of README.md and docs/ declares its language, and
//!   every rule snippet checks, whatever its fence: `rules` is a whole rule
//!   file and compiles without errors; `rules-excerpt` parses and each of
//!   its lines is in a shipped rule file, so that no example drifts from the
//!   files it quotes; `rules-fragment` parses and uses only sections and
//!   keys the engines define; a block of any other language that parses as
//!   rule text fails, so no snippet hides behind `text`;
//! - every engine has its page in docs/engines/, and every page an engine;
//! - the integration tests are one program whose modules tests/README.md
//!   describes;
//! - the fuzz targets of fuzz/Cargo.toml are the files of fuzz/fuzz_targets/
//!   and the rows of fuzz/README.md;
//! - no bundled game's title appears in a string of `src/`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use arbiter::engines::compile;
use arbiter::load::load_text;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    let mut entries: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            out.extend(files(&p, ext));
        } else if p.extension().is_some_and(|e| e == ext) {
            out.push(p);
        }
    }
    out
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap().to_string_lossy().replace('\\', "/")
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn every_source_file_is_in_the_code_map() {
    let map = read(&root().join("docs/ARCHITECTURE.md"));
    let missing: Vec<String> =
        files(&root().join("src"), "rs").iter().map(|p| rel(p)).filter(|r| !map.contains(&format!("`{r}`"))).collect();
    assert!(missing.is_empty(), "add these files to the code map in docs/ARCHITECTURE.md: {missing:?}");
    // And the map names no file that is gone.
    let gone: Vec<&str> = map
        .split('`')
        .filter(|w| w.starts_with("src/") && w.ends_with(".rs") && !w.contains('<'))
        .filter(|w| !root().join(w).is_file())
        .collect();
    assert!(gone.is_empty(), "docs/ARCHITECTURE.md names files that do not exist: {gone:?}");
}

/// The codes of the registry: (constant name, code).
fn registry() -> Vec<(String, String)> {
    read(&root().join("src/diag/codes.rs"))
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let (name, rest) = l.split_once(" = \"")?;
            let (code, _) = rest.split_once('"')?;
            name.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                .then(|| (name.into(), code.into()))
        })
        .collect()
}

/// The rows of the code tables of docs/diagnostics.md: (code, triggers).
fn documented() -> Vec<(String, Vec<String>)> {
    read(&root().join("docs/diagnostics.md"))
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            let code = cells[0].trim_start_matches("| ").trim_matches('`').to_string();
            let triggers =
                cells.last().unwrap().trim_end_matches(" |").split(", ").map(|t| t.trim_matches('`').to_string());
            (code, triggers.filter(|t| !t.is_empty()).collect())
        })
        .collect()
}

#[test]
fn the_diagnostic_codes_are_documented_used_and_tested() {
    let registry = registry();
    let docs = documented();
    let reg: BTreeSet<&str> = registry.iter().map(|(_, c)| c.as_str()).collect();
    let doc: BTreeSet<&str> = docs.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(reg, doc, "src/diag/codes.rs and docs/diagnostics.md must list the same codes");
    let table = read(&root().join("docs/diagnostics.md"));
    let marked: BTreeSet<&str> =
        table.lines().filter(|l| l.contains("| (warning)")).filter_map(|l| l.split('`').nth(1)).collect();
    let warnings: BTreeSet<&str> = arbiter::diag::codes::WARNINGS.iter().map(|c| c.as_str()).collect();
    assert_eq!(marked, warnings, "docs/diagnostics.md's (warning) rows and codes::WARNINGS");

    let sources: String =
        files(&root().join("src"), "rs").iter().filter(|p| !p.ends_with("diag/codes.rs")).map(|p| read(p)).collect();
    for (name, code) in &registry {
        assert!(sources.contains(&format!("codes::{name}")), "code `{code}` ({name}) is never used in src/");
    }

    for (code, triggers) in &docs {
        assert!(!triggers.is_empty(), "docs/diagnostics.md: `{code}` names no test that triggers it");
        for t in triggers {
            let (file, function) = t.split_once("::").map_or((t.as_str(), None), |(f, n)| (f, Some(n)));
            let path = root().join(file);
            assert!(path.is_file(), "docs/diagnostics.md: `{code}`: no file {file}");
            let text = std::fs::read(&path).unwrap();
            let text = String::from_utf8_lossy(&text);
            if let Some(f) = function {
                assert!(text.contains(&format!("fn {f}(")), "{file} has no test `{f}` (for `{code}`)");
            } else if file.starts_with("tests/check/") {
                let first = text.lines().next().unwrap_or_default();
                assert_eq!(first, format!("# expect: {code}"), "{file} must start with `# expect: {code}`");
            } else if let Some(input) = file.strip_prefix("tests/input_errors/") {
                let snap = format!(
                    "tests/suite/snapshots/suite__input_errors__{}.snap",
                    input.trim_end_matches(".in").replace('/', "__")
                );
                let snap = read(&root().join(&snap));
                assert!(snap.contains(&format!("arbiter::{code}")), "{snap} does not show `{code}`");
            } else {
                panic!("docs/diagnostics.md: `{code}`: {file} is not a kind of test this check knows");
            }
        }
    }
}

/// Every fenced block of a Markdown file: (line of the opening fence, its
/// language, its text).
fn fenced_blocks(md: &str) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String, String)> = None;
    for (i, line) in md.lines().enumerate() {
        let t = line.trim_start();
        match &mut current {
            None if t.starts_with("```") => current = Some((i + 1, t[3..].trim().to_string(), String::new())),
            Some(_) if t.starts_with("```") => out.push(current.take().unwrap()),
            Some((_, _, text)) => {
                text.push_str(line);
                text.push('\n');
            }
            None => {}
        }
    }
    out
}

/// The languages a fenced block of the docs may declare. `rules`: a whole
/// rule file that compiles; `rules-excerpt`: lines of shipped rule files;
/// `rules-fragment`: rule text of the docs' own (a variant sketched, a
/// section of a hypothetical file) that parses and uses only sections and
/// keys the engines define; the others are not rule text.
const FENCES: [&str; 8] = ["rules", "rules-excerpt", "rules-fragment", "sh", "text", "toml", "lua", "json"];

/// README.md and every page under docs/.
fn doc_pages() -> Vec<PathBuf> {
    let mut docs = files(&root().join("docs"), "md");
    docs.push(root().join("README.md"));
    docs
}

/// A line of a rule file with its comment dropped and its spacing folded.
fn normalised(line: &str) -> String {
    let code = match line.find(" #") {
        Some(i) if line[..i].matches('"').count().is_multiple_of(2) => &line[..i],
        _ => line,
    };
    code.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every section kind and key some engine (or the top level) defines.
fn known_names() -> BTreeSet<&'static str> {
    let mut names: BTreeSet<&'static str> = arbiter::engines::schema::TOP_KEYS.iter().map(|k| k.name).collect();
    // A variant's section may say where it goes in the base (load.rs).
    names.extend(["after", "before"]);
    let schemas = arbiter::engines::ENGINES.iter().map(|e| e.schema).chain([&arbiter::engines::schema::TOP]);
    for schema in schemas {
        for section in schema.all_sections() {
            names.insert(section.kind);
            names.extend(section.keys.iter().map(|k| k.name));
        }
    }
    names
}

/// The section kinds and property keys of parsed items, at any depth.
fn item_names(items: &[arbiter::syntax::Item], out: &mut Vec<String>) {
    for item in items {
        out.push(item.key().name.clone());
        if let arbiter::syntax::Item::Section(s) = item {
            item_names(&s.items, out);
        }
    }
}

/// A `rules` block: a whole rule file that checks (`# file: rules/x/y.rules`
/// places it, for `extends:`).
fn check_whole_file(at: &str, text: &str) {
    let place = text
        .lines()
        .find_map(|l| l.strip_prefix("# file: "))
        .map_or(root().join("rules/snippet.rules"), |f| root().join(f.trim()));
    let loaded = load_text(at, text, place.parent().unwrap())
        .unwrap_or_else(|e| panic!("{at}: the snippet does not load: {:?}", msgs(&e.diags)));
    let (compiled, diags) = compile(&loaded);
    assert!(compiled.is_some(), "{at}: the snippet does not check: {:?}", msgs(&diags));
}

#[test]
fn every_rule_snippet_in_the_docs_checks() {
    let shipped: BTreeSet<String> = files(&root().join("rules"), "rules")
        .iter()
        .flat_map(|p| read(p).lines().map(normalised).collect::<Vec<_>>())
        .filter(|l| !l.is_empty())
        .collect();
    let known = known_names();
    let mut checked = 0;
    for md in doc_pages() {
        let name = rel(&md);
        for (line, lang, text) in fenced_blocks(&read(&md)) {
            let at = format!("{name}:{line}");
            assert!(FENCES.contains(&lang.as_str()), "{at}: a fence needs a language, one of {FENCES:?}");
            let parsed = arbiter::syntax::parse(0, &text);
            match lang.as_str() {
                "rules" => check_whole_file(&at, &text),
                "rules-excerpt" | "rules-fragment" => {
                    let items = parsed.unwrap_or_else(|d| panic!("{at}: the snippet does not parse: {}", d.message));
                    if lang == "rules-excerpt" {
                        for l in text.lines().map(normalised).filter(|l| !l.is_empty() && !l.starts_with('#')) {
                            assert!(shipped.contains(&l), "{at}: `{l}` is in no shipped rule file");
                        }
                    }
                    let mut names = Vec::new();
                    item_names(&items, &mut names);
                    for n in names {
                        assert!(known.contains(n.as_str()), "{at}: `{n}` is no section or key of any engine");
                    }
                }
                // Anything else must not be rule text in disguise.
                _ => assert!(
                    !parsed.is_ok_and(|items| !items.is_empty()),
                    "{at}: this `{lang}` block is rule text: fence it `rules`, `rules-excerpt` or `rules-fragment`"
                ),
            }
            checked += lang.starts_with("rules") as usize;
        }
    }
    assert!(checked >= 30, "only {checked} rule snippets found in the docs");
}

/// The integration tests are one program, tests/suite/main.rs: no other
/// file directly in tests/ (each would be a program of its own, linked
/// again), every file of tests/suite/ is one of its modules (a file that is
/// not would never run), and every module is in the table of
/// tests/README.md (the `cli_<game>.rs` files under their common row).
#[test]
fn every_test_file_is_described() {
    let tests = root().join("tests");
    let programs: Vec<String> =
        files(&tests, "rs").iter().filter(|f| f.parent() == Some(tests.as_path())).map(|f| rel(f)).collect();
    assert!(programs.is_empty(), "make these modules of tests/suite/ (see tests/README.md): {programs:?}");
    let suite = tests.join("suite");
    let main = read(&suite.join("main.rs"));
    let readme = read(&tests.join("README.md"));
    let mut modules = 0;
    for f in files(&suite, "rs") {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        // A module's own folder (tests/suite/lsp_client/mod.rs) is that module.
        let module = match f.parent() {
            Some(p) if p == suite => name.trim_end_matches(".rs").to_string(),
            Some(p) if p.parent() == Some(suite.as_path()) && name == "mod.rs" => {
                p.file_name().unwrap().to_string_lossy().to_string()
            }
            _ => panic!("{}: tests/suite/ holds modules and their mod.rs folders only", rel(&f)),
        };
        if module == "main" {
            continue;
        }
        assert!(main.lines().any(|l| l == format!("mod {module};")), "tests/suite/main.rs lacks `mod {module};`");
        modules += 1;
        if name == "mod.rs" {
            continue;
        }
        let listed =
            readme.contains(&format!("`{name}`")) || name.starts_with("cli_") && readme.contains("`cli_<game>.rs`");
        assert!(listed, "tests/suite/{name} is not described in tests/README.md");
    }
    assert!(modules >= 40, "only {modules} modules in tests/suite/");
    // proptest keeps the seeds that failed in a module of tests/suite/ in
    // tests/proptest-regressions/MODULE.txt (its default, beside the folder
    // of main.rs), and reads them from there only.
    let strays: Vec<String> = std::fs::read_dir(&tests)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "proptest-regressions"))
        .map(|p| rel(&p))
        .collect();
    assert!(strays.is_empty(), "proptest reads these from tests/proptest-regressions/MODULE.txt: {strays:?}");
    for seeds in files(&tests.join("proptest-regressions"), "txt") {
        let module = seeds.file_stem().unwrap().to_string_lossy().to_string();
        assert!(suite.join(format!("{module}.rs")).is_file(), "{}: no module tests/suite/{module}.rs", rel(&seeds));
    }
}

/// Every engine has its page, docs/engines/NAME.md, and the language
/// reference links to it.
#[test]
fn every_engine_has_its_page() {
    let language = read(&root().join("docs/language.md"));
    for e in arbiter::engines::ENGINES {
        let page = root().join(format!("docs/engines/{}.md", e.name));
        assert!(page.is_file(), "engine `{}` has no page docs/engines/{}.md", e.name, e.name);
        assert!(
            language.contains(&format!("engines/{}.md", e.name)),
            "docs/language.md does not link to the page of `{}`",
            e.name
        );
    }
    for page in files(&root().join("docs/engines"), "md") {
        let stem = page.file_stem().unwrap().to_string_lossy().to_string();
        assert!(arbiter::engines::engine(&stem).is_some(), "{} documents no engine", rel(&page));
    }
}

/// docs/language.md's engine table names every bundled game of each engine
/// (by its title, without what follows a parenthesis) in that engine's row.
#[test]
fn the_engine_table_names_every_bundled_game() {
    let language = read(&root().join("docs/language.md"));
    let rows: Vec<&str> = language.lines().filter(|l| l.starts_with("| `")).collect();
    for name in arbiter::load::bundled_names().into_iter().filter(|n| !n.contains('/')) {
        let loaded = arbiter::load::load_bundled(name).unwrap().unwrap();
        let (compiled, _) = arbiter::engines::compile(&loaded);
        let compiled = compiled.unwrap();
        let title = compiled.title.unwrap_or_default();
        let title = title.split(" (").next().unwrap().trim();
        let row = rows
            .iter()
            .find(|r| r.starts_with(&format!("| `{}` |", compiled.engine.name)))
            .unwrap_or_else(|| panic!("docs/language.md has no row for the engine `{}`", compiled.engine.name));
        let games = row.split(" | ").nth(2).unwrap_or("");
        assert!(games.contains(title), "docs/language.md's row of `{}` lacks {title:?}: {row}", compiled.engine.name);
    }
}

/// Every engine's folder has the same shape: the files of docs/ARCHITECTURE.md's
/// "Adding an engine", each in its role, and `analyze.rs` exactly when the
/// engine's games have an analysis (as every bundled game of it shows).
#[test]
fn every_engine_folder_has_the_same_shape() {
    let architecture = read(&root().join("docs/ARCHITECTURE.md"));
    const ROLES: [&str; 5] = ["mod.rs", "read.rs", "schema.rs", "lower.rs", "explain.rs"];
    for role in ROLES.iter().chain(["analyze.rs"].iter()) {
        assert!(architecture.contains(&format!("`{role}`")), "docs/ARCHITECTURE.md does not give `{role}` its role");
    }
    let mut analyses = std::collections::BTreeMap::new();
    for name in arbiter::load::bundled_names() {
        let loaded = arbiter::load::load_bundled(name).expect("bundled").expect("loads");
        let game = compile(&loaded).0.expect("a bundled game compiles");
        analyses.entry(game.engine.name).or_insert_with(BTreeSet::new).insert(game.game.analysis().is_some());
    }
    for e in arbiter::engines::ENGINES {
        let dir = root().join("src/engines").join(e.name);
        for role in ROLES {
            assert!(dir.join(role).is_file(), "src/engines/{}/{role} is missing", e.name);
        }
        let analysed = analyses.get(e.name).unwrap_or_else(|| panic!("no bundled game of engine `{}`", e.name));
        assert_eq!(analysed.len(), 1, "engine `{}` analyses some games and not others", e.name);
        let analysed = analysed.contains(&true);
        assert_eq!(
            dir.join("analyze.rs").is_file(),
            analysed,
            "engine `{}`: analyze.rs must exist exactly when its games have an analysis",
            e.name
        );
    }
}

/// The fuzz targets are one list, fuzz/Cargo.toml: each has its file in
/// fuzz/fuzz_targets/ and its row in fuzz/README.md, and there are no others.
#[test]
fn the_fuzz_targets_are_listed_once() {
    let manifest = read(&root().join("fuzz/Cargo.toml"));
    let mut declared = BTreeSet::new();
    for block in manifest.split("[[bin]]").skip(1) {
        let field = |key: &str| {
            block.lines().find_map(|l| {
                let v = l.strip_prefix(key)?.trim_start().strip_prefix('=')?;
                Some(v.trim().trim_matches('"').to_string())
            })
        };
        let (name, path) = (field("name").expect("name"), field("path").expect("path"));
        assert_eq!(path, format!("fuzz_targets/{name}.rs"), "target `{name}`");
        declared.insert(name);
    }
    let on_disk: BTreeSet<String> = files(&root().join("fuzz/fuzz_targets"), "rs")
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().to_string())
        .collect();
    assert_eq!(declared, on_disk, "fuzz/Cargo.toml and fuzz/fuzz_targets/ differ");
    let readme = read(&root().join("fuzz/README.md"));
    let rows: BTreeSet<String> =
        readme.lines().filter_map(|l| l.strip_prefix("| `")?.split('`').next().map(str::to_string)).collect();
    assert_eq!(declared, rows, "fuzz/README.md's table lists other targets than fuzz/Cargo.toml");
}

fn msgs(diags: &[arbiter::diag::Diag]) -> Vec<String> {
    diags.iter().filter(|d| d.is_error()).map(|d| d.message.clone()).collect()
}

/// The words of every string literal of a Rust source (`"..."`), in order.
fn string_words(source: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            // Comments say what they like.
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            // A character literal such as '"' is not a string.
            '\'' => {
                let rest: String = chars.clone().take(3).collect();
                if rest.starts_with("\"'") || rest.starts_with("\\\"") {
                    chars.nth(1);
                }
            }
            '"' => {
                let mut text = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                            text.push(' ');
                        }
                        '"' => break,
                        c => text.push(c),
                    }
                }
                let words = text
                    .split(|c: char| !c.is_alphanumeric() && c != '-' && c != '\'')
                    .filter(|w| !w.is_empty())
                    .map(str::to_string)
                    .collect();
                out.push(words);
            }
            _ => {}
        }
    }
    out
}

#[test]
fn no_game_title_appears_in_src() {
    let titles: BTreeSet<Vec<String>> = files(&root().join("rules"), "rules")
        .iter()
        .filter_map(|p| {
            read(p).lines().find_map(|l| {
                let t = l.strip_prefix("game:")?.trim().trim_matches('"');
                Some(t.split_whitespace().map(str::to_string).collect())
            })
        })
        .collect();
    assert!(titles.len() >= 5);
    // Test fixtures (a `#[cfg(test)]` module, at the end of a file by
    // custom, or a `tests.rs`) may name what they like.
    for p in files(&root().join("src"), "rs").into_iter().filter(|p| !p.ends_with("tests.rs")) {
        let text = read(&p);
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for words in string_words(code) {
            for t in &titles {
                assert!(
                    !words.windows(t.len()).any(|w| w == t.as_slice()),
                    "{}: the game title `{}` belongs in rules/, not src/",
                    rel(&p),
                    t.join(" ")
                );
            }
        }
    }
}

/// Every subcommand `arbiter --help` lists has its row in docs/cli.md's
/// command table, its line in the README's "Using it" and its section in
/// the man page, and the table has no
/// row for a command that does not exist.
#[test]
fn every_subcommand_is_in_the_command_table_and_the_man_page() {
    let run = |args: &[&str]| {
        let out = assert_cmd::Command::cargo_bin("arbiter").unwrap().args(args).output().unwrap();
        assert!(out.status.success(), "arbiter {args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let help = run(&["--help"]);
    let listed: BTreeSet<String> = help
        .split("Commands:")
        .nth(1)
        .expect("--help lists the commands")
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    assert!(listed.len() >= 10, "{listed:?}");
    let cli = read(&root().join("docs/cli.md"));
    let table = cli.split("## Commands").nth(1).unwrap().split("\n## ").next().unwrap();
    let rows: BTreeSet<String> = table
        .lines()
        .filter_map(|l| l.strip_prefix("| `arbiter "))
        .filter_map(|l| l.split([' ', '`']).next().map(str::to_string))
        .collect();
    assert_eq!(rows, listed, "docs/cli.md's command table against `arbiter --help`");
    let readme = read(&root().join("README.md"));
    let using = readme.split("## Using it").nth(1).unwrap().split("\n## ").next().unwrap();
    for command in &listed {
        assert!(using.contains(&format!("\narbiter {command}")), "README's \"Using it\" lacks `arbiter {command}`");
    }
    // The man page has a section per command with every option its
    // `--help` shows.
    let man = run(&["man"]);
    for command in &listed {
        let heading = format!(".SH \"ARBITER {}\"", command.to_uppercase());
        let section = man.split(&heading).nth(1).unwrap_or_else(|| panic!("no man section {heading}"));
        let section = section.split("\n.SH ").next().unwrap();
        for word in run(&[command, "--help"]).split_whitespace() {
            let option = word.trim_end_matches([',', '.']).split('=').next().unwrap();
            if option.starts_with("--")
                && option.len() > 2
                && option.chars().skip(2).all(|c| c.is_ascii_lowercase() || c == '-')
            {
                assert!(section.contains(&option.replace('-', "\\-")), "the man page's {heading} lacks {option}");
            }
        }
    }
}
