//! `arbiter run`: a rule file on an input, streamed case by case; with
//! `--explain`, each output line with the rules that produced it.

use std::io::{self, Write};
use std::path::Path;

use arbiter::diag::codes;
use arbiter::game::{Explain, Explanation, FlushBeforeRead, Input, Output, RunError, RunOptions, Shared};
use arbiter::report::diag::escape_line;
use arbiter::report::explain::{render, to_json};
use arbiter::report::{picture, svg};

use super::term::{exit, Term};
use super::{load_and_compile, unsupported};

/// After a rule file that did not load: when the input looks like the rule
/// file (a `.rules` path or a bundled name) and the rule file does not, a
/// note that the rule file comes first.
fn swapped_hint(term: &Term, rules: &Path, input: Option<&Path>) {
    let Some(input) = input else { return };
    let looks_like_rules = |p: &Path| {
        p.extension().is_some_and(|x| x == "rules")
            || p.to_str().is_some_and(|n| arbiter::load::bundled_text(n).is_some() && !p.exists())
    };
    if term.json || !looks_like_rules(input) || looks_like_rules(rules) {
        return;
    }
    let _ = writeln!(
        io::stderr(),
        "note: `{}` looks like a rule file and `{}` like an input: the rule file comes first (`arbiter run RULES INPUT`)",
        escape_line(&input.display().to_string()),
        escape_line(&rules.display().to_string())
    );
}

/// How `--explain` writes its explanations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Explaining {
    /// For people: the rules as labels on the rule file, the values, and
    /// the engine's picture drawn in the terminal.
    Text,
    /// One JSON object per line.
    Json,
    /// One SVG document of the engine's pictures, written at the end.
    Svg,
}

/// The most bytes of SVG one run writes: a document holds the pictures
/// of about a thousand of the largest boards.
const MAX_SVG_BYTES: usize = 64 << 20;

/// Runs `rules` on `input` (a path; stdin when absent or `-`), explaining
/// every output line when `explain` says how.
pub fn run(term: &Term, rules: &Path, input: Option<&Path>, explain: Option<Explaining>, opts: &RunOptions) -> u8 {
    let (loaded, compiled) = match load_and_compile(term, rules) {
        Ok(x) => x,
        Err(code) => {
            swapped_hint(term, rules, input);
            return code;
        }
    };
    let explainer = match explain {
        Some(_) => match compiled.game.explainer() {
            Some(e) if explain == Some(Explaining::Svg) && !e.pictures() => {
                return unsupported(
                    term,
                    format!(
                        "the `{}` engine draws no pictures: `--format svg` applies to the engines that do \
                         (connection, tower, covering); use `--explain` alone for its explanations",
                        compiled.engine.name
                    ),
                )
            }
            Some(e) => Some(e),
            None => {
                return unsupported(term, format!("the `{}` engine cannot explain its outputs", compiled.engine.name))
            }
        },
        None => None,
    };
    let (name, source, probe): (String, Box<dyn io::Read>, Probe) = match input {
        Some(p) if p.as_os_str() != "-" => match open_input(p) {
            Ok(f) => {
                let probe = Probe::of(&f);
                (p.display().to_string(), Box::new(f), probe)
            }
            Err(e) => return term.fail(codes::IO, format!("cannot read input `{}`: {e}", p.display())),
        },
        _ if super::term::closed_at_start(0) => {
            return term.fail(codes::IO, "cannot read the input: standard input is closed");
        }
        _ => {
            let probe = Probe::of(&io::stdin());
            // A regular file is read through a handle of its own: the
            // parallel driver may move its position (see `Input::jump`),
            // which stdin's buffer would not follow.
            let source: Box<dyn io::Read> = match probe.reader() {
                Some(file) => Box::new(file),
                None => Box::new(io::stdin().lock()),
            };
            ("<stdin>".into(), source, probe)
        }
    };
    // Finished cases wait in `shared` until written: before each read of
    // the input (which may block on a pipe), every 50 ms while later cases
    // run, and when SIGINT or SIGTERM ends the process, they are written out.
    // The thread that does the last two starts only once cases would wait
    // (see `Shared::start_writer_later`): until then each is written as it
    // ends, and a signal finds nothing to write.
    let shared = Shared::new(super::term::Stdout::new());
    shared.start_writer_later(|shared| write_every(shared, WRITE_EVERY));
    let mut input = probe.apply(Input::new(FlushBeforeRead::new(source, shared.clone())));
    let mut out = Output::shared(shared).eager(term.stdout_is_terminal);
    let result = match explainer {
        None => compiled.game.run(&mut input, &mut out, opts),
        Some(explainer) if explain == Some(Explaining::Svg) => explain_svg(explainer, &mut input, &mut out, opts),
        Some(explainer) => {
            let json = explain == Some(Explaining::Json);
            explainer.explain(&mut input, opts, &mut |e| {
                let mut text = if json { to_json(&e, &loaded.sources) } else { as_text(term, &e, &loaded.sources) };
                text.push('\n');
                out.write(text.as_bytes())?;
                Ok(out.end_case()?)
            })
        }
    };
    // Everything computed is written before any diagnostic.
    let flushed = out.flush();
    drop(out);
    match (result, flushed) {
        (Ok(()), Ok(())) => exit::OK,
        // The input could not be read (a directory given as stdin): its
        // message says so, the exit code is the output's (5).
        (Err(RunError::Io(e)), _) if arbiter::game::is_read_error(&e) => term.fail(codes::IO, e.to_string()),
        (Err(RunError::Io(e)), _) | (Ok(()), Err(e)) => super::term::write_failed(term, &e),
        (Err(_), Err(e)) if e.kind() != io::ErrorKind::BrokenPipe => super::term::write_failed(term, &e),
        (Err(_), Err(_)) => exit::OK,
        (Err(RunError::Limit(message)), _) => term.fail(codes::LIMIT, message),
        (Err(RunError::Input(e)), _) => {
            term.input_error(&e, &name);
            exit::INPUT
        }
    }
}

/// An explanation for people: the miette report, then the picture.
fn as_text(term: &Term, e: &Explanation, sources: &arbiter::source::SourceMap) -> String {
    // Explanations go to stdout: coloured as stdout's terminal allows.
    let term = term.for_stdout();
    let mut text = term.render(&render(e, sources));
    if let Some(p) = &e.picture {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push('\n');
        text.push_str(&picture::text(p, term.colour));
    }
    text
}

/// Every explanation's picture, as sections of one SVG document written
/// when the run ends: whole, also when an error or a limit ends it (the
/// sections before it), so that what was computed is not lost.
fn explain_svg(
    explainer: &dyn Explain,
    input: &mut Input,
    out: &mut Output,
    opts: &RunOptions,
) -> Result<(), RunError> {
    let mut sections = Vec::new();
    let mut bytes = 0;
    let result = explainer.explain(input, opts, &mut |e| {
        let s = svg::section(&e);
        bytes += s.bytes();
        if bytes > MAX_SVG_BYTES {
            return Err(RunError::Limit(format!(
                "the SVG document would pass {} MiB after {} cases; explain fewer cases at a time",
                MAX_SVG_BYTES >> 20,
                sections.len()
            )));
        }
        sections.push(s);
        Ok(())
    });
    out.write(svg::document(&sections).as_bytes())?;
    out.end_case()?;
    result
}

/// How long finished cases may wait while later ones run.
const WRITE_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

/// Writes the finished cases every `period`, so that a slow case does not
/// hold back those before it (in a file, a pipe), for the rest of the
/// process; and on SIGINT or SIGTERM writes every finished case, then ends
/// as the signal would have (exit status 130 or 143 in a shell). One
/// thread does both: it waits for a signal at most `period` at a time
/// (a thread costs 0.1-0.3 ms of processor time here, a tenth of a small
/// run: it is started only once cases would wait, see
/// `Shared::start_writer_later`).
fn write_every(out: &Shared, period: std::time::Duration) {
    let out = out.clone();
    let signals = Signals::new(period);
    std::thread::spawn(move || loop {
        let raised = match &signals {
            Some(signals) => signals.wait(),
            None => {
                std::thread::sleep(period);
                None
            }
        };
        if let Some(signal) = raised {
            // A reader that stopped reading must not keep the process alive.
            out.write_pending_within(std::time::Duration::from_secs(1));
            let _ = signal_hook::low_level::emulate_default_handler(signal);
            std::process::exit(i32::from(exit::SIGNAL) + signal);
        }
        out.write_pending();
    });
}

/// SIGINT and SIGTERM, as flags that their handlers raise, and a byte the
/// handlers write to wake the thread that waits for them.
#[cfg(unix)]
struct Signals {
    raised: [(i32, std::sync::Arc<std::sync::atomic::AtomicBool>); 2],
    wake: std::os::unix::net::UnixStream,
}

#[cfg(unix)]
impl Signals {
    /// The handlers installed, each wait at most `period`; `None` when
    /// the wake-up cannot be made (then no handler is installed: the
    /// signals keep their default action).
    fn new(period: std::time::Duration) -> Option<Signals> {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let (wake, write) = std::os::unix::net::UnixStream::pair().ok()?;
        wake.set_read_timeout(Some(period)).ok()?;
        let raised = [SIGINT, SIGTERM].map(|s| (s, std::sync::Arc::default()));
        for (signal, flag) in &raised {
            // A signal whose flag cannot be registered keeps its default
            // action (no handler of ours replaces it).
            if signal_hook::flag::register(*signal, std::sync::Arc::clone(flag)).is_err() {
                continue;
            }
            // The byte only wakes the thread at once: without it, the flag
            // is seen within the period.
            if let Ok(write) = write.try_clone() {
                let _ = signal_hook::low_level::pipe::register(*signal, write);
            }
        }
        Some(Signals { raised, wake })
    }

    /// The signal raised, waiting for one at most the period.
    fn wait(&self) -> Option<i32> {
        use std::io::Read;
        let _ = (&self.wake).read(&mut [0; 8]);
        self.raised.iter().find(|(_, flag)| flag.load(std::sync::atomic::Ordering::SeqCst)).map(|(s, _)| *s)
    }
}

/// Without signals to wait for: the writes every period alone.
#[cfg(not(unix))]
struct Signals;

#[cfg(not(unix))]
impl Signals {
    fn new(_: std::time::Duration) -> Option<Signals> {
        None
    }

    fn wait(&self) -> Option<i32> {
        None
    }
}

/// What the driver learns of the input's source: whether a read would
/// return at once, and its size when it is a regular file.
struct Probe {
    #[cfg(unix)]
    fd: Option<std::os::fd::RawFd>,
    size: Option<usize>,
    /// Another handle of a regular file (the same open file): the input's
    /// threads read their parts of it themselves (see `Input::positional`).
    file: Option<std::fs::File>,
}

impl Probe {
    #[cfg(unix)]
    fn of(f: &impl std::os::fd::AsFd) -> Probe {
        use std::os::fd::AsRawFd;
        let fd = f.as_fd();
        let file = fd.try_clone_to_owned().ok().map(std::fs::File::from);
        let meta = file.as_ref().and_then(|f| f.metadata().ok());
        let size = meta.filter(std::fs::Metadata::is_file).and_then(|m| usize::try_from(m.len()).ok());
        let file = file.filter(|_| size.is_some());
        Probe { fd: Some(fd.as_raw_fd()), size, file }
    }

    #[cfg(not(unix))]
    fn of<T>(_: &T) -> Probe {
        Probe { size: None, file: None }
    }

    /// Another handle of the regular file, to read the input through.
    fn reader(&self) -> Option<std::fs::File> {
        self.file.as_ref().and_then(|f| f.try_clone().ok())
    }

    fn apply<'r>(self, input: Input<'r>) -> Input<'r> {
        let input = match self.size {
            Some(size) => input.size_hint(size),
            None => input,
        };
        let input = match self.file {
            Some(file) => input.positional(file),
            None => input,
        };
        #[cfg(unix)]
        if let Some(fd) = self.fd {
            return input.ready_when(move || readable(fd));
        }
        input
    }
}

/// Whether a read of `fd` would return at once (data, the end, or an
/// error are at hand); a regular file always is.
#[cfg(unix)]
fn readable(fd: std::os::fd::RawFd) -> bool {
    let mut p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    // SAFETY: one valid pollfd, a zero timeout; `fd` stays open as long as
    // the input that reads it.
    unsafe { libc::poll(&mut p, 1, 0) > 0 }
}

/// Opens an input file: anything that can be read as a stream (a file, a
/// FIFO, a device), but not a directory.
fn open_input(path: &Path) -> io::Result<std::fs::File> {
    let f = std::fs::File::open(path)?;
    if f.metadata()?.is_dir() {
        return Err(io::Error::other("it is a directory"));
    }
    Ok(f)
}
