//! `arbiter fmt` on every rule file in rules/: the files are in canonical
//! layout already, formatting is idempotent, every comment survives, and the
//! formatted file means the same (same checks, same worked examples).

use arbiter::engines::compile;
use arbiter::example::{run, Verdict};
use arbiter::load::load_text;
use arbiter::syntax::fmt::format;

fn rule_files() -> Vec<std::path::PathBuf> {
    arbiter::fuzz::bundled_rule_files(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules"))
}

#[test]
fn bundled_files_are_canonical_and_formatting_is_idempotent() {
    for f in rule_files() {
        let text = std::fs::read_to_string(&f).unwrap();
        let once = format(&text).unwrap();
        assert_eq!(format(&once).unwrap(), once, "{}: formatting twice changes the text", f.display());
        assert_eq!(once, text, "{}: not in canonical layout (run `arbiter fmt --write`)", f.display());
    }
}

#[test]
fn formatting_keeps_comments_and_meaning() {
    for f in rule_files() {
        let text = std::fs::read_to_string(&f).unwrap();
        // A scrambled layout: odd whitespace before every item, never inside a string.
        let scrambled = scramble(&text);
        let formatted = format(&scrambled).unwrap();
        let count = |t: &str| t.lines().filter(|l| l.contains(" # ") || l.trim_start().starts_with('#')).count();
        assert_eq!(count(&formatted), count(&text), "{}: comments lost", f.display());
        let dir = f.parent().unwrap();
        let compiled = compile(&load_text("formatted", &formatted, dir).unwrap()).0.expect("formatted file checks");
        assert!(compiled.examples.len() >= 2);
        for ex in &compiled.examples {
            assert_eq!(run(compiled.game.as_ref(), ex), Verdict::Pass, "{}: `{}` after fmt", f.display(), ex.name);
        }
    }
}

/// Inserts blank lines and spaces before every item (at any depth).
fn scramble(text: &str) -> String {
    fn starts(items: &[arbiter::syntax::Item], out: &mut Vec<usize>) {
        for i in items {
            out.push(i.span().start as usize);
            if let arbiter::syntax::Item::Section(s) = i {
                starts(&s.items, out);
            }
        }
    }
    let items = arbiter::syntax::parse(0, text).unwrap();
    let mut at = Vec::new();
    starts(&items, &mut at);
    at.sort_unstable();
    let mut out = text.to_string();
    for &p in at.iter().rev() {
        out.insert_str(p, "\n\n     \t ");
    }
    out
}

/// A tower points table from docs/engines/tower.md: `fmt` dropped the
/// brackets of `(-high)`, and `[R B B] -high` is `[R B B] - high`, which
/// no longer checks.
#[test]
fn a_formula_after_a_pattern_keeps_its_brackets_and_checks() {
    let text = "extends: \"house_of_cards\"\nscoring {\n  points: [R R R] sum % 5  [R R B] (-mid) * 2  [R B B] (-high)  [B B B] 7\n}\n";
    let once = format(text).unwrap();
    assert!(once.contains("[R R B] (-mid) * 2 [R B B] (-high) [B B B] 7"), "{once}");
    assert_eq!(format(&once).unwrap(), once);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
    for t in [text, &once] {
        let (game, diags) = compile(&load_text("tower", t, &dir).unwrap());
        assert!(game.is_some(), "{t}: {diags:?}");
    }
}

/// `else (-high)` reads as a call of `else` (a word against a bracket):
/// the points table takes its argument as the `else` formula, before and
/// after fmt (which prints it `else(-high)`), and it plays as `else 0 -
/// high` does; `else -high`, which joins the `else`, is refused with that
/// advice.
#[test]
fn else_before_a_bracketed_formula_is_its_formula() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
    let file = |points: &str| format!("extends: \"house_of_cards\"\nscoring {{\n  points: {points}\n}}\n");
    let bracketed = file("[R R R] 2 * sum  else (-high)");
    let once = format(&bracketed).unwrap();
    assert_eq!(format(&once).unwrap(), once);
    let input = "Axel\n9\n1R 9B 2R 8B 3R 7B 4R 6B 5R 5B 6R 4B 7R 3B 8R 2B 9R 1B\nBirgit\n7\n7B 1R 6B 2R 5B 3R 4B 4R 3B 5R 2B 6R 1B 7R\nEnd\n";
    let play = |text: &str| {
        let (game, diags) = compile(&load_text("tower", text, &dir).unwrap());
        let game = game.unwrap_or_else(|| panic!("{text}: {diags:?}"));
        let (out, result) = arbiter::game::run_text(game.game.as_ref(), input, &arbiter::game::RunOptions::default());
        assert!(result.is_ok(), "{text}: {result:?}");
        out
    };
    let want = play(&file("[R R R] 2 * sum  else 0 - high"));
    assert_eq!(play(&bracketed), want);
    assert_eq!(play(&once), want);
    assert_ne!(want, play(&file("[R R R] 2 * sum  else high")), "the formula matters here");
    let (game, diags) = compile(&load_text("tower", &file("[R R R] 2 * sum  else -high"), &dir).unwrap());
    assert!(game.is_none());
    assert!(format!("{diags:?}").contains("write `else (-high)`"), "{diags:?}");
}
