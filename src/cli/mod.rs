//! The commands of the binary. Each takes the [`term::Term`] and its
//! arguments and returns an exit code; all I/O and rendering happens here,
//! over the library's data.

pub mod analyze;
pub mod check;
pub mod ci;
pub mod complete;
pub mod diff;
pub mod fmt;
pub mod list;
pub mod lsp;
pub mod man;
pub mod merge;
pub mod new;
pub mod run;
pub mod strategy;
pub mod term;
pub mod write;

use std::io::{self, Write};
use std::path::Path;

use arbiter::diag::codes;
use arbiter::engines::{compile, Compiled};
use arbiter::load::{load_bytes, load_with, LoadError, Loaded};

use term::{exit, Term};

/// Prints clap's message for a bad command line (exit 2), or `--help` and
/// `--version` (exit 0, or 5 when they cannot be written).
pub fn help(e: &clap::Error) -> u8 {
    let text = e.render().to_string();
    if e.use_stderr() {
        let _ = io::stderr().write_all(text.as_bytes());
        exit::USAGE
    } else {
        let mut out = term::Stdout::new();
        match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            Ok(()) => exit::OK,
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => exit::OK,
            Err(_) => exit::IO,
        }
    }
}

/// `arbiter help [COMMAND...]`: the `--help` of the command named (the
/// whole program's when none is), exit 0; an unknown command is a usage
/// error (exit 2) that lists the commands.
pub fn help_of(term: &Term, mut cmd: clap::Command, path: &[String]) -> u8 {
    cmd.build();
    let mut at = &mut cmd;
    for name in path {
        let known: Vec<String> = at.get_subcommands().map(|c| c.get_name().to_string()).collect();
        match at.find_subcommand_mut(name) {
            Some(sub) => at = sub,
            None => {
                let list = if known.is_empty() { "none".to_string() } else { known.join(", ") };
                let _ = writeln!(io::stderr(), "error: no command `{name}` (commands: {list})");
                return exit::USAGE;
            }
        }
    }
    let text = at.render_help().to_string();
    print(term, text.as_bytes())
}

/// Writes `bytes` to stdout: exit 0, or the code of the write error.
pub fn print(term: &Term, bytes: &[u8]) -> u8 {
    let mut out = term::Stdout::new();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => exit::OK,
        Err(e) => term::write_failed(term, &e),
    }
}

/// Prints every diagnostic of a failed load; returns its exit code (5 when
/// a file cannot be read, else 3).
pub fn load_failed(term: &Term, e: &LoadError) -> u8 {
    term.diags(&all_errors(e), &e.sources);
    load_exit(e)
}

/// A failed load's diagnostics, and when only merging failed, the errors
/// of the rules as merged that lie in the file checked (each place and code
/// once): one run of `check` shows what the user can fix in their file.
/// (A base's own errors wait until the merge succeeds: they are the base
/// author's, and may be many.)
pub fn all_errors(e: &LoadError) -> Vec<arbiter::diag::Diag> {
    let mut diags = e.diags.clone();
    if let Some(items) = &e.merged {
        let loaded = Loaded { sources: e.sources.clone(), items: items.clone(), warnings: Vec::new() };
        let (_, more) = compile(&loaded);
        for d in more.into_iter().filter(|d| d.is_error() && d.span.file == 0) {
            if !diags.iter().any(|o| o.span == d.span && o.code == d.code) {
                diags.push(d);
            }
        }
        diags.sort_by_key(|d| (d.span.file, d.span.start));
    }
    diags
}

/// The exit code of a failed load: 5 when a file cannot be read, else 3.
pub fn load_exit(e: &LoadError) -> u8 {
    let code = e.diags.iter().filter(|d| d.is_error()).fold(exit::OK, |c, d| exit::worst(c, term::exit_of(d.code)));
    if code == exit::OK {
        exit::RULES
    } else {
        code
    }
}

/// Loads the rule file an argument names (a path or a bundled name); `-`
/// reads it from standard input, named `--stdin-name` (default `<stdin>`)
/// in diagnostics, its `extends:` resolved from that name's folder.
pub fn load_rules(term: &Term, path: &Path) -> Result<Loaded, LoadError> {
    if path.as_os_str() != "-" {
        return load_with(path, &term.load);
    }
    let read = term::read_stdin(arbiter::syntax::parse::MAX_FILE_SIZE as u64 + 1);
    load_bytes(Path::new(term.stdin_name.unwrap_or("<stdin>")), read, &term.load)
}

/// How a rule-file argument is named in messages: its path, or for `-`
/// the `--stdin-name` (default `<stdin>`).
pub fn shown_name(term: &Term, path: &Path) -> String {
    if path.as_os_str() == "-" {
        term.stdin_name.unwrap_or("<stdin>").to_string()
    } else {
        path.display().to_string()
    }
}

/// Loads and compiles a rule file; on failure prints every error and
/// returns the exit code.
pub fn load_and_compile(term: &Term, path: &Path) -> Result<(Loaded, Compiled), u8> {
    let loaded = load_rules(term, path).map_err(|e| load_failed(term, &e))?;
    let (compiled, diags) = compile(&loaded);
    match compiled {
        Some(c) => Ok((loaded, c)),
        None => {
            let errors: Vec<_> = diags.into_iter().filter(|d| d.is_error()).collect();
            term.diags(&errors, &loaded.sources);
            Err(exit::RULES)
        }
    }
}

/// The error for a command the engine cannot carry out (exit 2).
pub fn unsupported(term: &Term, what: String) -> u8 {
    term.fail(codes::UNSUPPORTED, what)
}
