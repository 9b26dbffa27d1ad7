//! `arbiter run`: a rule file on an input, streamed case by case; with
//! `--explain`, each output line with the rules that produced it.

use std::io;
use std::path::Path;

use arbiter::diag::codes;
use arbiter::game::{Input, Output, RunError, RunOptions};
use arbiter::report::diag::of_input;
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
    let mut input = Input::new(source);
    let stdout = io::stdout();
    let mut lock = stdout.lock();
    let mut out = Output::new(&mut lock).eager(term.stdout_is_terminal);
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
            term.report(&of_input(&e, &name));
            exit::INPUT
        }
    }
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
