//! `arbiter lsp`: the language server on stdin and stdout (`arbiter::lsp`).

use arbiter::lsp::Ended;

use super::term::{exit, Term};

/// Exit code 0 after `shutdown` and `exit`, 1 otherwise (as the protocol
/// says); `--restrict-extends` applies to every buffer. Standard output
/// closed by the caller ends the server at its first message, as a client
/// gone does (see [`super::term::Stdout`]).
pub fn lsp(term: &Term) -> u8 {
    let input = std::io::BufReader::with_capacity(1 << 16, std::io::stdin());
    match arbiter::lsp::serve_on(input, super::term::Stdout::new(), term.load) {
        Ended::Clean => exit::OK,
        Ended::Abrupt(why) => {
            eprintln!("arbiter lsp: {why}");
            exit::LSP_ABRUPT
        }
    }
}
