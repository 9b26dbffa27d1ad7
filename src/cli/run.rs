//! `arbiter run`: a rule file on an input, streamed case by case; with
//! `--explain`, each output line with the rules that produced it.

use std::io;
use std::path::Path;

use arbiter::diag::codes;
use arbiter::game::{FlushBeforeRead, Input, Output, RunError, RunOptions, Shared};
use arbiter::report::explain::{render, to_json};

use super::term::{exit, Term};
use super::{load_and_compile, unsupported};

/// Runs `rules` on `input` (a path; stdin when absent or `-`).
/// `explain`: `Some(json)` to explain every output line.
pub fn run(term: &Term, rules: &Path, input: Option<&Path>, explain: Option<bool>, opts: &RunOptions) -> u8 {
    let (loaded, compiled) = match load_and_compile(term, rules) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let explainer = match explain {
        Some(_) => match compiled.game.explainer() {
            Some(e) => Some(e),
            None => {
                return unsupported(term, format!("the `{}` engine cannot explain its outputs", compiled.engine.name))
            }
        },
        None => None,
    };
    let (name, source): (String, Box<dyn io::Read>) = match input {
        None => ("<stdin>".into(), Box::new(io::stdin().lock())),
        Some(p) if p.as_os_str() == "-" => ("<stdin>".into(), Box::new(io::stdin().lock())),
        Some(p) => match open_input(p) {
            Ok(f) => (p.display().to_string(), Box::new(f)),
            Err(e) => return term.fail(codes::IO, format!("cannot read input `{}`: {e}", p.display())),
        },
    };
    // Finished cases wait in `shared` until written: before each read of
    // the input (which may block on a pipe), and when SIGINT or SIGTERM
    // ends the process, they are written out.
    let shared = Shared::new(io::stdout());
    on_signals(&shared);
    let mut input = Input::new(FlushBeforeRead::new(source, shared.clone()));
    let mut out = Output::shared(shared).eager(term.stdout_is_terminal);
    let result = match explainer {
        None => compiled.game.run(&mut input, &mut out, opts),
        Some(explainer) => {
            let json = explain == Some(true);
            explainer.explain(&mut input, opts, &mut |e| {
                let mut text =
                    if json { to_json(&e, &loaded.sources) } else { term.render(&render(&e, &loaded.sources)) };
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

/// On SIGINT or SIGTERM: write every finished case, then end as the signal
/// would have (exit status 130 or 143 in a shell).
#[cfg(unix)]
fn on_signals(out: &Shared) {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else { return };
    let out = out.clone();
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            // A reader that stopped reading must not keep the process alive.
            out.write_pending_within(std::time::Duration::from_secs(1));
            let _ = signal_hook::low_level::emulate_default_handler(signal);
            std::process::exit(i32::from(exit::SIGNAL) + signal);
        }
    });
}

#[cfg(not(unix))]
fn on_signals(_: &Shared) {}

/// Opens an input file: anything that can be read as a stream (a file, a
/// FIFO, a device), but not a directory.
fn open_input(path: &Path) -> io::Result<std::fs::File> {
    let f = std::fs::File::open(path)?;
    if f.metadata()?.is_dir() {
        return Err(io::Error::other("it is a directory"));
    }
    Ok(f)
}
