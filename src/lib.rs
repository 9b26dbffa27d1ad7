//! arbiter: an interpreter for a declarative rules language for games.
//!
//! Layers, each in its own module: [`syntax`] (grammar to AST), [`load`]
//! (files and `extends:`), [`check`] (typed access with diagnostics),
//! [`engines`] (one folder per engine: lowering and runtime), [`game`]
//! (the contract every engine implements). See docs/ARCHITECTURE.md.
pub mod check;
pub mod diag;
pub mod engines;
pub mod example;
pub mod expr;
pub mod fuzz;
pub mod game;
pub mod load;
pub mod rng;
pub mod source;
pub mod syntax;
pub mod template;
