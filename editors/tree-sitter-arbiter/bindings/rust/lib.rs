//! The tree-sitter grammar of arbiter rule files (`grammar.js`), its
//! generated parser (`src/parser.c`) and its queries.

use tree_sitter_language::LanguageFn;

extern "C" {
    fn tree_sitter_arbiter() -> *const ();
}

/// The language, for `tree_sitter::Parser::set_language(&LANGUAGE.into())`.
// SAFETY: `tree_sitter_arbiter` is the generated parser's entry point, which
// returns a pointer to a static `TSLanguage`.
pub const LANGUAGE: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_arbiter) };

/// The highlight query.
pub const HIGHLIGHTS_QUERY: &str = include_str!("../../queries/highlights.scm");
/// The folding query.
pub const FOLDS_QUERY: &str = include_str!("../../queries/folds.scm");
