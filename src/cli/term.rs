//! The terminal: whether to use colour (decided once, from `--color`,
//! `NO_COLOR` and whether stderr is a terminal), text or JSON diagnostics
//! (`--format json`), and the one path every diagnostic takes to stderr. Writing to stderr never panics: when stderr
//! is closed, diagnostics are dropped and the exit code still tells.

use std::io::{self, IsTerminal, Write};

use arbiter::diag::codes::{self, Code, Family};
use arbiter::diag::{Diag, Severity};
use arbiter::game::InputError;
use arbiter::report::diag::{capped, diag_json, input_json, of_input, plain_json, render, reports, Report};
use arbiter::source::SourceMap;

/// Exit codes, documented in `--help`, the README and docs/cli.md.
pub mod exit {
    pub const OK: u8 = 0;
    /// `diff --exit-code`: the files differ.
    pub const DIFFERENT: u8 = 1;
    /// `arbiter lsp` ended without the protocol's `shutdown` request (an
    /// `exit` alone, or the client gone), as the protocol asks.
    pub const LSP_ABRUPT: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const RULES: u8 = 3;
    pub const INPUT: u8 = 4;
    pub const IO: u8 = 5;
    pub const EXAMPLE: u8 = 6;
    pub const UNFORMATTED: u8 = 7;
    pub const LIMIT: u8 = 8;
    /// Ended by SIGINT (130) or SIGTERM (143), after writing every
    /// finished case: 128 plus the signal's number, as shells report it.
    pub const SIGNAL: u8 = 128;

    /// Of several failures, the code of the most serious one: a file that
    /// cannot be read or written (5) over a resource limit (8) over an
    /// invalid rule file (3) over an invalid input (4) over a failed
    /// example (6) or an unformatted file (7).
    pub fn worst(a: u8, b: u8) -> u8 {
        const ORDER: [u8; 7] = [IO, LIMIT, RULES, INPUT, EXAMPLE, UNFORMATTED, USAGE];
        let rank = |c: u8| ORDER.iter().position(|&o| o == c).unwrap_or(ORDER.len());
        if a == OK {
            b
        } else if b == OK || rank(a) <= rank(b) {
            a
        } else {
            b
        }
    }
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// How diagnostics and explanations are drawn (colour, width, text or
/// JSON), and the command line's global settings that go with them.
#[derive(Debug, Clone, Copy)]
pub struct Term {
    /// Colours in what goes to stderr (diagnostics).
    pub colour: bool,
    /// Colours in what goes to stdout (explanations and their pictures):
    /// decided by stdout's terminal, as `colour` by stderr's.
    stdout_colour: bool,
    /// Whether stdout is a terminal (then outputs are flushed per case).
    pub stdout_is_terminal: bool,
    /// Diagnostics as JSON lines (`--format json`) instead of text.
    pub json: bool,
    /// How rule files are loaded (`--restrict-extends`).
    pub load: arbiter::load::LoadOptions,
    /// Columns of diagnostics: stderr's terminal width, else 100 (so that
    /// what a pipe or a file gets does not depend on `COLUMNS`).
    width: usize,
    /// Columns that text results on stdout must fit (`list`, `diff`,
    /// `analyze`): stdout's terminal width, else `COLUMNS`; `None` (no
    /// limit) when stdout is not a terminal and `COLUMNS` is not set.
    pub columns: Option<usize>,
    /// `--quiet`: no progress bars, no `ok` or summary lines on success;
    /// errors are still printed.
    pub quiet: bool,
    /// `--stdin-name`: what a rule file read from standard input (`-`) is
    /// called in diagnostics, and where its `extends:` are resolved from.
    pub stdin_name: Option<&'static str>,
}

impl Term {
    pub fn new(choice: ColorChoice) -> Term {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let colour_of = |terminal: bool| match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => !no_color && terminal,
        };
        let colour = colour_of(io::stderr().is_terminal());
        let stdout_colour = colour_of(io::stdout().is_terminal());
        let columns_env = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok()).filter(|&c| c > 0);
        let width_of = |w: Option<(terminal_size::Width, terminal_size::Height)>| w.map(|(w, _)| usize::from(w.0));
        Term {
            colour,
            stdout_colour,
            stdout_is_terminal: io::stdout().is_terminal(),
            json: false,
            load: Default::default(),
            width: width_of(terminal_size::terminal_size_of(io::stderr())).unwrap_or(100).clamp(40, 400),
            columns: width_of(terminal_size::terminal_size_of(io::stdout())).or(columns_env).map(|c| c.clamp(40, 1000)),
            quiet: false,
            stdin_name: None,
        }
    }

    /// The same terminal, drawing for stdout: colours as stdout's terminal
    /// allows (an explanation piped to a file gets none, whatever stderr is).
    pub fn for_stdout(self) -> Term {
        Term { colour: self.stdout_colour, ..self }
    }

    /// The same terminal, printing diagnostics as JSON lines when `json`.
    pub fn with_json(self, json: bool) -> Term {
        Term { json, ..self }
    }

    /// Renders a diagnostic (or an explanation) as text.
    pub fn render(&self, d: &dyn miette::Diagnostic) -> String {
        render(d, self.colour, self.width)
    }

    /// Writes a diagnostic to stderr.
    pub fn report(&self, d: &dyn miette::Diagnostic) {
        let text = self.render(d);
        let _ = io::stderr().lock().write_all(text.as_bytes());
    }

    /// Writes an error with no place in a file and returns its exit code.
    pub fn fail(&self, code: Code, message: impl Into<String>) -> u8 {
        let message = message.into();
        if self.json {
            self.stderr_line(&plain_json(code, Severity::Error, &message, None).to_string());
        } else {
            self.report(&Report::plain(code, message));
        }
        exit_of(code)
    }

    /// Writes rule-file diagnostics: at most a few dozen per file, then how
    /// many more there are.
    pub fn diags(&self, diags: &[Diag], sources: &SourceMap) {
        if self.json {
            self.stderr_line(&json_lines(diags, sources));
        } else {
            for r in reports(diags, sources) {
                self.report(&r);
            }
        }
    }

    /// Writes an input error (`name`: the input's name).
    pub fn input_error(&self, e: &InputError, name: &str) {
        if self.json {
            self.stderr_line(&input_json(e, name).to_string());
        } else {
            self.report(&of_input(e, name));
        }
    }

    fn stderr_line(&self, text: &str) {
        if text.is_empty() {
            return;
        }
        let mut err = io::stderr().lock();
        let _ =
            err.write_all(text.as_bytes())
                .and_then(|()| if text.ends_with('\n') { Ok(()) } else { err.write_all(b"\n") });
    }
}

/// Diagnostics as JSON objects (docs/cli.md), at most a few dozen per
/// file, then one per file saying how many more there are.
pub fn json_values(diags: &[Diag], sources: &SourceMap) -> Vec<serde_json::Value> {
    let (shown, more) = capped(diags);
    let mut out: Vec<serde_json::Value> = shown.into_iter().map(|d| diag_json(d, sources)).collect();
    for m in more {
        let help = format!("at most {} diagnostics are shown per file", arbiter::report::diag::MAX_PER_FILE);
        let mut v = plain_json(codes::TOO_MANY_DIAGNOSTICS, Severity::Advice, &m.message(sources), Some(&help));
        v["file"] = sources.file(m.file).name.as_str().into();
        out.push(v);
    }
    out
}

/// [`json_values`] as JSON lines.
pub fn json_lines(diags: &[Diag], sources: &SourceMap) -> String {
    json_values(diags, sources).iter().map(|v| format!("{v}\n")).collect()
}

/// `text` with every line longer than `columns` wrapped at spaces (a word
/// longer than a line is cut), the continuation lines indented four columns
/// past the line's own indentation; unchanged when `columns` is `None`.
pub fn fit(text: &str, columns: Option<usize>) -> String {
    let Some(columns) = columns else { return text.to_string() };
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, end) = line.strip_suffix('\n').map_or((line, ""), |b| (b, "\n"));
        if body.chars().count() <= columns {
            out.push_str(line);
            continue;
        }
        let indent = body.len() - body.trim_start_matches(' ').len();
        let hang = " ".repeat((indent + 4).min(columns / 2));
        let mut current = body[..indent].to_string();
        let mut used = indent;
        let mut first_word = true;
        // Words with the spaces before each (kept inside a line, so that
        // aligned columns stay aligned; dropped where a line breaks).
        let mut rest = &body[indent..];
        while !rest.is_empty() {
            let gap = rest.len() - rest.trim_start_matches(' ').len();
            let after = &rest[gap..];
            let len_bytes = after.find(' ').unwrap_or(after.len());
            let (word, gap) = (&after[..len_bytes], &rest[..gap]);
            rest = &after[len_bytes..];
            if word.is_empty() {
                break;
            }
            let len = word.chars().count();
            if !first_word && used + gap.len() + len > columns {
                out.push_str(current.trim_end());
                out.push('\n');
                current = hang.clone();
                used = hang.len();
                first_word = true;
            }
            if !first_word {
                current.push_str(gap);
                used += gap.len();
            }
            let mut chars: Vec<char> = word.chars().collect();
            while used + chars.len() > columns && used < columns {
                let take = columns - used;
                current.extend(&chars[..take]);
                out.push_str(&current);
                out.push('\n');
                chars.drain(..take);
                current = hang.clone();
                used = hang.len();
            }
            used += chars.len();
            current.extend(chars);
            first_word = false;
        }
        out.push_str(current.trim_end());
        out.push_str(end);
    }
    out
}

/// `s` cut to `columns` characters, its last one `…` when cut.
pub fn cut(s: &str, columns: usize) -> String {
    if s.chars().count() <= columns {
        return s.to_string();
    }
    let mut out: String = s.chars().take(columns.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The exit code of an error with this code.
pub fn exit_of(code: Code) -> u8 {
    match codes::family(code) {
        Family::Rules => exit::RULES,
        Family::Input => exit::INPUT,
        Family::Io => exit::IO,
        Family::Limit => exit::LIMIT,
        Family::Usage => exit::USAGE,
        Family::Example => exit::EXAMPLE,
    }
}

/// The exit code for a failed write to stdout: none for a closed pipe (the
/// reader has what it wanted), 5 otherwise, with a diagnostic.
pub fn write_failed(term: &Term, e: &io::Error) -> u8 {
    if e.kind() == io::ErrorKind::BrokenPipe {
        exit::OK
    } else {
        term.fail(codes::IO, format!("cannot write the output: {e}"))
    }
}

/// Standard output, for a command's results. A descriptor 1 closed when
/// the process started (`arbiter run ... >&-`) is reopened on `/dev/null`
/// by Rust's runtime before `main`, so that writes to it vanish; here they
/// fail ("Bad file descriptor"), so that output that goes nowhere ends with
/// exit 5, as on a full disk, rather than 0 (see [`closed_at_start`]; on
/// Linux).
pub struct Stdout {
    closed: bool,
}

impl Stdout {
    pub fn new() -> Stdout {
        Stdout { closed: closed_at_start(1) }
    }

    /// The process's standard output, or the error of a closed one.
    fn open(&self) -> io::Result<io::StdoutLock<'static>> {
        if self.closed {
            return Err(bad_descriptor());
        }
        Ok(io::stdout().lock())
    }
}

impl Write for Stdout {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.open()?.write(bytes)
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.open()?.write_all(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.open()?.flush()
    }
}

/// Reads standard input, at most `limit` bytes (a rule file given as `-`);
/// an error when it was closed by the caller (see [`closed_at_start`]),
/// which Rust's runtime would have read as an empty file.
pub fn read_stdin(limit: u64) -> io::Result<Vec<u8>> {
    if closed_at_start(0) {
        return Err(io::Error::other("standard input is closed"));
    }
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut io::Read::take(io::stdin().lock(), limit), &mut bytes)?;
    Ok(bytes)
}

/// The error of a write to a closed descriptor.
fn bad_descriptor() -> io::Error {
    #[cfg(unix)]
    return io::Error::from_raw_os_error(libc::EBADF);
    #[cfg(not(unix))]
    io::Error::other("standard output is closed")
}

/// Whether standard descriptor `fd` (0 or 1) was closed when the process
/// started. Rust's runtime opens `/dev/null` in the place of a closed one
/// before `main`, where it can no longer be told from a caller's own
/// `/dev/null` (Python's `subprocess.DEVNULL` opens it for reading and
/// writing, as the runtime does): the descriptors are looked at before the
/// runtime starts, by a function the system's loader runs first (Linux:
/// `.init_array`). Never on other systems.
pub fn closed_at_start(fd: i32) -> bool {
    #[cfg(target_os = "linux")]
    return (0..2).contains(&fd) && early::CLOSED.load(std::sync::atomic::Ordering::Relaxed) >> fd & 1 == 1;
    #[cfg(not(target_os = "linux"))]
    {
        let _ = fd;
        false
    }
}

/// The look at descriptors 0 and 1 before Rust's runtime starts.
#[cfg(target_os = "linux")]
mod early {
    use std::sync::atomic::{AtomicU8, Ordering};

    /// Bit `fd` set: descriptor `fd` was closed.
    pub static CLOSED: AtomicU8 = AtomicU8::new(0);

    extern "C" fn probe() {
        for fd in 0..2 {
            // SAFETY: F_GETFD reads the flags of a descriptor number and
            // touches no memory; a closed number is an error (EBADF). Only
            // the C library is used here, before Rust's runtime starts.
            if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
                CLOSED.fetch_or(1 << fd, Ordering::Relaxed);
            }
        }
    }

    /// Run by the loader before `main`, as every `.init_array` entry is.
    #[used]
    #[link_section = ".init_array"]
    static PROBE: extern "C" fn() = probe;
}

#[cfg(test)]
mod tests {
    use super::{cut, exit, fit};
    use proptest::prelude::*;

    proptest! {
        /// Every line fits, and the words are those of the text, in order
        /// (a cut word joined again).
        #[test]
        fn fitted_text_fits_and_keeps_its_words(text in "( {0,3}[a-z]{1,30}( {1,2}[a-z]{1,12}){0,20}\n){1,4}", columns in 40usize..90) {
            let fitted = fit(&text, Some(columns));
            for line in fitted.lines() {
                prop_assert!(line.chars().count() <= columns, "{line:?} over {columns}");
            }
            let letters = |t: &str| t.chars().filter(|c| !c.is_whitespace()).collect::<String>();
            prop_assert_eq!(letters(&fitted), letters(&text));
            prop_assert_eq!(fitted.lines().count() >= text.lines().count(), true);
        }
    }

    #[test]
    fn text_that_fits_is_unchanged() {
        let text = "a line\n  an indented line\n";
        assert_eq!(fit(text, Some(40)), text);
        assert_eq!(fit(text, None), text);
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("abc", 4), "abc");
    }

    #[test]
    fn the_most_serious_failure_decides() {
        assert_eq!(exit::worst(exit::UNFORMATTED, exit::IO), exit::IO);
        assert_eq!(exit::worst(exit::IO, exit::UNFORMATTED), exit::IO);
        assert_eq!(exit::worst(exit::RULES, exit::UNFORMATTED), exit::RULES);
        assert_eq!(exit::worst(exit::OK, exit::EXAMPLE), exit::EXAMPLE);
    }
}
