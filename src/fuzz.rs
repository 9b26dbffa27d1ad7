//! Entry points shared by the fuzz targets (fuzz/) and the corpus replay
//! test (tests/suite/fuzz_corpus.rs): each takes arbitrary bytes and must return
//! without panicking, hanging or allocating without bound.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use crate::engines::{compile, Compiled};
use crate::game::{Input, Output, RunError, RunOptions};
use crate::load::load_text;
use crate::report::diag::{of_diag, of_input, render_plain};

/// Every `.rules` file under `dir`, sorted (the input target's choices).
pub fn bundled_rule_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rules") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A game's rule files under `dir`: `GAME.rules` and every variant in
/// `GAME/`, sorted (what a per-game input target runs each input against).
pub fn game_rule_files(dir: &Path, game: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = bundled_rule_files(&dir.join(game));
    let base = dir.join(format!("{game}.rules"));
    if base.is_file() {
        out.insert(0, base);
    }
    out
}

/// Runs one input through every rule file of `game` (base and variants),
/// found under `dir`; the list is computed once per game.
pub fn game_input(dir: &Path, game: &str, data: &[u8]) {
    static FILES: OnceLock<Mutex<HashMap<String, &'static [PathBuf]>>> = OnceLock::new();
    let files: &'static [PathBuf] = {
        let mut map = FILES.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
        map.entry(game.to_string()).or_insert_with(|| Box::leak(game_rule_files(dir, game).into_boxed_slice()))
    };
    for f in files {
        input(f, data);
    }
}

/// Runs one input of the `input` target: its first line names a game
/// bundled under `dir` (`havannah`), the rest is the game's input, run
/// through [`game_input`]. Any other first line is ignored, so that one
/// target serves every game, present and future.
pub fn any_game_input(dir: &Path, data: &[u8]) {
    let Some(nl) = data.iter().position(|&b| b == b'\n') else { return };
    let Ok(game) = std::str::from_utf8(&data[..nl]) else { return };
    let plain = !game.is_empty() && game.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if plain && dir.join(format!("{game}.rules")).is_file() {
        game_input(dir, game, &data[nl + 1..]);
    }
}

/// Compiled rule files, kept across calls (compiling is most of the cost).
fn compiled(rules: &Path) -> Option<&'static Compiled> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Option<&'static Compiled>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut map = cache.lock().unwrap_or_else(|e| e.into_inner());
    *map.entry(rules.to_path_buf()).or_insert_with(|| {
        let loaded = crate::load::load_path(rules).ok()?;
        compile(&loaded).0.map(|c| &*Box::leak(Box::new(c)))
    })
}

/// Parses, checks and lowers arbitrary rule-file text (`extends:` resolved
/// against `dir`); runs nothing.
pub fn rules(dir: &Path, data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(loaded) = load_text("<fuzz>", text, dir) {
        let (compiled, diags) = compile(&loaded);
        // Rendering must not panic either.
        for d in diags.iter().take(4) {
            let _ = render_plain(&of_diag(d, &loaded.sources));
        }
        drop(compiled);
    } else if let Err(e) = load_text("<fuzz>", text, dir) {
        for d in e.diags.iter().take(4) {
            let _ = render_plain(&of_diag(d, &e.sources));
        }
    }
}

/// Runs the rule file at `rules` on arbitrary input bytes, then explains
/// the same input: the explanations' output lines must be what `run`
/// printed (up to the error, if the input has one).
pub fn input(rules: &Path, data: &[u8]) {
    let Some(compiled) = compiled(rules) else { return };
    let opts = RunOptions::default();
    let mut printed = Vec::new();
    let ran = {
        let mut out = Output::new(&mut printed);
        let r = compiled.game.run(&mut Input::new(data), &mut out, &opts);
        let _ = out.flush();
        r
    };
    if let Err(RunError::Input(e)) = &ran {
        // The error must point inside the input, at a line that exists.
        assert!(e.offset <= data.len(), "input error offset {} past the end ({})", e.offset, data.len());
        let lines = data.split(|&b| b == b'\n' || b == b'\r').count().max(1);
        assert!(e.line >= 1 && e.line <= lines, "input error on line {} of {lines}", e.line);
        let _ = render_plain(&of_input(e, "<fuzz>"));
    }
    if let Some(explainer) = compiled.game.explainer() {
        let mut outputs: Vec<String> = Vec::new();
        let explained = explainer.explain(&mut Input::new(data), &opts, &mut |e| {
            outputs.push(e.output);
            Ok(())
        });
        assert_eq!(explained.is_ok(), ran.is_ok(), "run and --explain disagree on whether the input is valid");
        let printed = String::from_utf8_lossy(&printed);
        let lines: Vec<&str> = printed.lines().map(str::trim_end).collect();
        let explained: Vec<String> = outputs.iter().flat_map(|o| o.lines().map(|l| l.trim_end().to_string())).collect();
        assert_eq!(explained, lines, "--explain's output lines differ from run's");
    }
}
