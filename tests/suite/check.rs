//! Diagnostics of broken rule files: every `tests/check/**/*.rules` starts
//! with `# expect: CODE`; `check` must report a diagnostic (an error, or a
//! warning) with that code, and
//! the rendered diagnostics (message, span, labels, help) are snapshots in
//! tests/suite/snapshots/. See tests/README.md to add one.

use arbiter::engines::compile;
use arbiter::load::load_path;
use arbiter::report::diag::{render_plain, reports};

/// The codes of the diagnostics as `check` shows them (at most a few dozen
/// per file, then `too-many-diagnostics`), and their rendering.
fn diagnostics_of(path: &std::path::Path) -> (Vec<&'static str>, String) {
    let (diags, sources) = match load_path(path) {
        Err(e) => (e.diags, e.sources),
        Ok(loaded) => (compile(&loaded).1, loaded.sources),
    };
    let shown = reports(&diags, &sources);
    let codes = shown.iter().map(|r| r.code.as_str()).collect();
    (codes, shown.iter().map(render_plain).collect::<Vec<_>>().join("\n"))
}

#[test]
fn broken_rule_files_report_their_error_at_the_right_place() {
    insta::glob!("..", "check/**/*.rules", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let expect =
            text.lines().next().and_then(|l| l.strip_prefix("# expect: ")).expect("first line `# expect: CODE`").trim();
        // Paths relative to the crate root keep snapshots stable.
        let rel = path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap();
        let (codes, rendered) = diagnostics_of(rel);
        assert!(
            codes.contains(&expect),
            "{}: expected a diagnostic `{expect}`, got {codes:?}\n{rendered}",
            rel.display()
        );
        insta::assert_snapshot!(rendered);
    });
}

#[test]
fn every_bundled_rule_file_checks_clean() {
    let mut files = Vec::new();
    for dir in ["rules"] {
        for entry in walk(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)) {
            files.push(entry);
        }
    }
    assert!(!files.is_empty());
    for f in files {
        let loaded = load_path(&f).unwrap_or_else(|e| panic!("{}: {:?}", f.display(), e.diags));
        let (compiled, diags) = compile(&loaded);
        assert!(
            compiled.is_some() && diags.is_empty(),
            "{}: {:?}",
            f.display(),
            diags.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
    }
}

fn walk(dir: std::path::PathBuf) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            out.extend(walk(p));
        } else if p.extension().is_some_and(|e| e == "rules") {
            out.push(p);
        }
    }
    out
}
