//! The commands of the binary. Each takes the [`term::Term`] and its
//! arguments and returns an exit code; all I/O and rendering happens here,
//! over the library's data.

pub mod analyze;
pub mod check;
pub mod ci;
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
use arbiter::load::{load_with, LoadError, Loaded};

use term::{exit, Term};

/// Prints clap's message for a bad command line (exit 2), or `--help` and
/// `--version` (exit 0, or 5 when they cannot be written).
pub fn help(e: &clap::Error) -> u8 {
    let text = e.render().to_string();
    if e.use_stderr() {
        let _ = io::stderr().write_all(text.as_bytes());
        exit::USAGE
    } else {
        match io::stdout().lock().write_all(text.as_bytes()).and_then(|()| io::stdout().flush()) {
            Ok(()) => exit::OK,
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => exit::OK,
            Err(_) => exit::IO,
        }
    }
}

/// Writes `bytes` to stdout: exit 0, or the code of the write error.
pub fn print(term: &Term, bytes: &[u8]) -> u8 {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => exit::OK,
        Err(e) => term::write_failed(term, &e),
    }
}

/// Prints every diagnostic of a failed load; returns its exit code (5 when
/// a file cannot be read, else 3).
pub fn load_failed(term: &Term, e: &LoadError) -> u8 {
    term.diags(&e.diags, &e.sources);
    load_exit(e)
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

/// Loads and compiles a rule file; on failure prints every error and
/// returns the exit code.
pub fn load_and_compile(term: &Term, path: &Path) -> Result<(Loaded, Compiled), u8> {
    let loaded = load_with(path, &term.load).map_err(|e| load_failed(term, &e))?;
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
