//! Presentation: diagnostics and explanations rendered for people (miette)
//! and for tools (JSON). The library's other layers produce data; only this
//! module and the binary turn it into text.

pub mod diag;
pub mod explain;
pub mod picture;
pub mod snippet;
pub mod svg;
