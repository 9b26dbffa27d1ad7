//! `arbiter lsp`: the language server on stdin and stdout (`arbiter::lsp`).

use arbiter::lsp::Ended;

use super::term::{exit, Term};

/// Exit code 0 after `shutdown` and `exit`, 1 otherwise (as the protocol
/// says); `--restrict-extends` applies to every buffer.
pub fn lsp(term: &Term) -> u8 {
    match arbiter::lsp::serve(term.load) {
        Ended::Clean => exit::OK,
        Ended::Abrupt(why) => {
            eprintln!("arbiter lsp: {why}");
            exit::LSP_ABRUPT
        }
    }
}
