//! arbiter: an interpreter for a declarative rules language for games.
//!
//! Layers, each in its own module: [`syntax`] (grammar to AST), [`load`]
//! (files and `extends:`), [`check`] (typed access with diagnostics),
//! [`lower`] (AST to engines), [`engine`] (generic mechanisms), [`run`]
//! (running a game on an input). See docs/ARCHITECTURE.md.
pub mod check;
pub mod diag;
pub mod engine;
pub mod example;
pub mod explain;
pub mod expr;
pub mod fuzz;
pub mod input;
pub mod load;
pub mod lower;
pub mod rng;
pub mod run;
pub mod source;
pub mod syntax;
pub mod template;
