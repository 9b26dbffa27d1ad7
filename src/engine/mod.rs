//! Engine components: generic mechanisms that lowered rule files drive.
//! No engine knows a game's names; they see indices, numbers and tables.

pub mod connection;
pub mod covering;
pub mod deck;
pub mod exchange;
pub mod hexboard;
pub mod referee;
pub mod tower;
