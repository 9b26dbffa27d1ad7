//! arbiter: an interpreter for a declarative rules language for games.
//!
//! Layers, each in its own module: [`syntax`] (grammar to AST), [`load`]
//! (files and `extends:`), [`check`] (typed access with diagnostics),
//! [`engines`] (one folder per engine: lowering and runtime), [`game`]
//! (the contract every engine implements). See docs/ARCHITECTURE.md.
// A `Diag` carries its message, labels and help (about 130 bytes). The
// functions that return one are the parser and checks, which run once per
// file and stop at their first error: boxing would add an allocation and
// buy nothing.
#![allow(clippy::result_large_err)]
// No function over 100 lines (clippy.toml sets the threshold; CI denies
// warnings): a long function is split by what it decides.
#![warn(clippy::too_many_lines)]
// Items that cannot be reached from outside the crate say so (`pub(crate)`):
// what is `pub` is what tests, the binary and the fuzz targets may use.
#![warn(unreachable_pub)]

pub mod cancel;
pub mod check;
pub mod diag;
pub mod engines;
pub mod example;
pub mod expr;
#[doc(hidden)]
pub mod fuzz;
pub mod game;
pub mod load;
pub mod lsp;
pub mod report;
pub mod rng;
pub mod source;
pub mod syntax;
pub mod template;
