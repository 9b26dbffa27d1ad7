//! `arbiter lsp`: the language server on stdin and stdout (`arbiter::lsp`).

use arbiter::diag::codes;

use super::term::{exit, Term};

pub fn lsp(term: &Term) -> u8 {
    match arbiter::lsp::serve() {
        Ok(()) => exit::OK,
        Err(e) => term.fail(codes::IO, format!("language server: {e}")),
    }
}
