//! `arbiter fmt`: print, check or rewrite rule files in canonical layout.

use std::io;
use std::path::PathBuf;

use arbiter::diag::codes;
use arbiter::load::read_rule_file;
use arbiter::report::diag::escape_line;
use arbiter::report::diag::of_diag;
use arbiter::source::{SourceMap, Span};
use arbiter::syntax::fmt::format;
use arbiter::syntax::parse::{normalize, MAX_FILE_SIZE};

use super::print;
use super::term::{exit, Term};

pub fn fmt(term: &Term, paths: &[PathBuf], write: bool, check: bool) -> u8 {
    let mut code = exit::OK;
    let mut out = Vec::new();
    for path in paths {
        let stdin = path.as_os_str() == "-";
        let name = super::shown_name(term, path);
        let bytes = if stdin { read_stdin() } else { read_rule_file(path) };
        let text = match bytes.map(String::from_utf8) {
            Ok(Ok(t)) if t.len() <= MAX_FILE_SIZE => t,
            Ok(Ok(_)) => {
                code = exit::worst(
                    code,
                    term.fail(codes::TOO_LARGE, format!("`{name}` is larger than {MAX_FILE_SIZE} bytes")),
                );
                continue;
            }
            Ok(Err(_)) => {
                code = exit::worst(code, term.fail(codes::NOT_UTF8, format!("`{name}` is not valid UTF-8")));
                continue;
            }
            Err(e) => {
                code = exit::worst(code, term.fail(codes::UNREADABLE, format!("cannot read `{name}`: {e}")));
                continue;
            }
        };
        // Spans of a parse error refer to the text as the parser sees it
        // (line endings made `\n`, no byte order mark); `--check` compares
        // with the file as it is.
        let original = text;
        let text = normalize(original.clone());
        let formatted = match format(&text) {
            Ok(f) => f,
            Err(d) => {
                let mut sources = SourceMap::new();
                let id = sources.add(name, text.as_str());
                let d = arbiter::diag::Diag { span: Span { file: id, ..d.span }, ..d };
                term.report(&of_diag(&d, &sources));
                code = exit::worst(code, exit::RULES);
                continue;
            }
        };
        if check {
            if formatted != original {
                out.extend_from_slice(format!("{}: not in canonical layout\n", escape_line(&name)).as_bytes());
                code = exit::worst(code, exit::UNFORMATTED);
            }
        } else if write && !stdin {
            if formatted != original {
                if let Err(e) = super::write::replace(path, formatted.as_bytes()) {
                    code = exit::worst(code, term.fail(codes::IO, format!("cannot write `{name}`: {e}")));
                }
            }
        } else {
            out.extend_from_slice(formatted.as_bytes());
        }
    }
    exit::worst(code, print(term, &out))
}

fn read_stdin() -> io::Result<Vec<u8>> {
    super::term::read_stdin(MAX_FILE_SIZE as u64 + 1)
}
