//! Shell completion: `arbiter completions SHELL` prints a script that asks
//! the binary itself (clap_complete's dynamic engine, through the
//! `ARBITER_COMPLETE` variable) what may come next, so that a rule-file
//! argument completes to the bundled games' names as well as to files.

use clap_complete::engine::{CompletionCandidate, PathCompleter, ValueCompleter};
use std::ffi::OsStr;

use super::term::Term;

/// The environment variable through which the shell asks for completions.
pub const VAR: &str = "ARBITER_COMPLETE";

/// Answers a completion request (and exits) when the shell made one; does
/// nothing otherwise. Must run before anything is written to stdout.
pub fn answer_if_asked(factory: fn() -> clap::Command) {
    clap_complete::CompleteEnv::with_factory(factory).var(VAR).complete();
}

/// Prints the registration script for `shell`.
pub fn script(term: &Term, shell: clap_complete::Shell) -> u8 {
    let shells = clap_complete::env::Shells::builtins();
    let Some(completer) = shells.completer(&shell.to_string()) else {
        return term.fail(arbiter::diag::codes::UNSUPPORTED, format!("no completion script for {shell}"));
    };
    let mut script = Vec::new();
    match completer.write_registration(VAR, "arbiter", "arbiter", "arbiter", &mut script) {
        Ok(()) => super::print(term, &script),
        Err(e) => term.fail(arbiter::diag::codes::IO, format!("cannot write the completion script: {e}")),
    }
}

/// A rule-file argument: the bundled names that start with what is typed,
/// then `.rules` files and folders.
pub fn rule_files(current: &OsStr) -> Vec<CompletionCandidate> {
    let mut out = bundled(current);
    let files = PathCompleter::any().filter(|p| p.is_dir() || p.extension().is_some_and(|x| x == "rules"));
    out.extend(files.complete(current));
    out
}

/// A bundled name only (`arbiter show`).
pub fn bundled(current: &OsStr) -> Vec<CompletionCandidate> {
    let typed = current.to_string_lossy();
    arbiter::load::bundled_names()
        .into_iter()
        .filter(|n| n.starts_with(typed.as_ref()))
        .map(|n| CompletionCandidate::new(n).help(Some("bundled game".into())))
        .collect()
}
