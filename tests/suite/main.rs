//! The integration tests, one test program: each module was a test file of
//! its own (`tests/README.md` says what each checks). One program links the
//! crate and the test dependencies once instead of once per file, which is
//! most of what `cargo test` costs on a fresh clone. The tests still run in
//! parallel threads of this one process: none changes the process's
//! environment or working directory (each child process gets its own), and
//! each writes only under a directory of its own name.
//!
//! `cargo test --test suite NAME::` runs one module (`cargo test --test
//! suite check::`).

mod analyst;
mod analyze;
mod cases;
mod check;
mod check_ci;
mod cli_connection;
mod cli_exchange;
mod cli_first_hour;
mod cli_get_straight;
mod cli_havannah;
mod cli_house_of_cards;
mod cli_list_new_diff;
mod cli_robustness;
mod cli_shuffling_patience;
mod cli_snooker_referee;
mod covering;
mod examples;
mod exchanged;
mod exit_codes;
mod expectation;
mod explain;
mod explain_pictures;
mod fmt;
mod fuzz_corpus;
mod hardening;
mod hardening3;
mod highlighting;
mod input_errors;
mod json_diagnostics;
mod lsp;
mod lsp_client;
mod lsp_features;
mod lsp_hardening;
mod lsp_workspace;
mod mutations;
mod parallel;
mod prop_snooker_referee;
mod readme;
mod referee_state;
mod referee_stuck;
mod referees;
mod rounds;
mod schema;
mod strategy;
mod symmetry;
mod tidy;
mod tower;
mod tree_sitter;
#[cfg(target_os = "linux")]
mod usage;
mod video_poker;
