//! Syntax: the pest grammar (`grammar/arbiter.pest`) and the typed AST it
//! is turned into. Nothing here knows any game or engine.

pub mod ast;
pub mod fmt;
pub mod parse;

pub use ast::*;
pub use parse::parse;
