//! The tree-sitter grammar of editors/tree-sitter-arbiter (its committed,
//! generated parser, compiled by the grammar's own small crate): every
//! bundled and test rule file that the language's parser accepts parses
//! without an error node, into the same top-level items; the highlight
//! and fold queries of every editor setup compile against it; the copies
//! of the queries in the editor setups are the grammar's.

use std::path::{Path, PathBuf};

use tree_sitter::{Node, Parser, Query};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rule_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for p in entries.flatten().map(|e| e.path()) {
        if p.is_dir() {
            rule_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rules") {
            out.push(p);
        }
    }
}

fn language() -> tree_sitter::Language {
    tree_sitter_arbiter::LANGUAGE.into()
}

/// The first error or missing node, with its position.
fn first_error(node: Node) -> Option<String> {
    if node.is_error() || node.is_missing() {
        let p = node.start_position();
        return Some(format!("{} at {}:{}", node.kind(), p.row + 1, p.column + 1));
    }
    let mut cursor = node.walk();
    let children: Vec<Node> = node.children(&mut cursor).collect();
    children.into_iter().find_map(first_error)
}

#[test]
fn every_rule_file_the_language_accepts_parses_without_error() {
    let mut files = Vec::new();
    rule_files(&root().join("rules"), &mut files);
    rule_files(&root().join("tests"), &mut files);
    files.sort();
    let mut parser = Parser::new();
    parser.set_language(&language()).unwrap();
    let mut checked = 0;
    for path in files {
        let Ok(bytes) = std::fs::read(&path) else { continue };
        let Ok(text) = String::from_utf8(bytes) else { continue };
        let text = arbiter::syntax::parse::normalize(text);
        let Ok(items) = arbiter::syntax::parse(0, &text) else { continue };
        let tree = parser.parse(&text, None).expect("a tree");
        let root_node = tree.root_node();
        assert_eq!(first_error(root_node), None, "{}", path.display());
        let mut cursor = root_node.walk();
        let top = root_node.named_children(&mut cursor).filter(|n| n.kind() != "comment").count();
        assert_eq!(top, items.len(), "{}: top-level items", path.display());
        checked += 1;
    }
    assert!(checked > 100, "only {checked} files");
}

#[test]
fn the_queries_of_every_editor_compile_and_the_copies_are_the_grammars() {
    let lang = language();
    let grammar = root().join("editors/tree-sitter-arbiter/queries");
    for q in [
        "editors/tree-sitter-arbiter/queries/highlights.scm",
        "editors/tree-sitter-arbiter/queries/folds.scm",
        "editors/helix/queries/highlights.scm",
        "editors/helix/queries/folds.scm",
        "editors/zed/languages/arbiter/highlights.scm",
    ] {
        let text = std::fs::read_to_string(root().join(q)).unwrap();
        Query::new(&lang, &text).unwrap_or_else(|e| panic!("{q}: {e}"));
    }
    for (copy, of) in [
        ("editors/zed/languages/arbiter/highlights.scm", "highlights.scm"),
        ("editors/helix/queries/folds.scm", "folds.scm"),
    ] {
        let a = std::fs::read_to_string(root().join(copy)).unwrap();
        let b = std::fs::read_to_string(grammar.join(of)).unwrap();
        assert_eq!(a, b, "{copy} is not a copy of the grammar's {of}");
    }
}
