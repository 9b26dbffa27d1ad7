//! The schema of the `deck` section, shared by the card engines (see
//! [`crate::engines::schema`]).

use crate::engines::schema::{Key, SectionSchema};

/// `deck { ranks suits values wrap colours }`.
pub const DECK: SectionSchema = SectionSchema::new(
    "deck",
    "the cards: ranks in order, suits, face values, colours",
    &[
        Key::new(
            "ranks",
            "names (words or numbers), in order",
            "the ranks, lowest first; a card is written rank then suit (`TH`)",
        )
        .required()
        .example("A 2 3 4 5 6 7 8 9 T J Q K")
        .defines("rank"),
        Key::new("suits", "names (words)", "the suits").required().example("S H D C").defines("suit"),
        Key::new("values", "whole numbers, one per rank", "the face value of each rank, in rank order")
            .default("1 2 3 ...")
            .example("1 2 3 4 5 6 7 8 9 10 10 10 10"),
        Key::new(
            "wrap",
            "`yes` or `no`",
            "whether the highest and the lowest rank are consecutive (`Q K A 2` is a run)",
        )
        .default("no")
        .example("yes")
        .words(&[("yes", "the ranks go round"), ("no", "the ranks do not go round")]),
        Key::new("colours", "names, one per suit", "the colour of each suit, in suit order")
            .example("black red black red")
            .defines("colour"),
    ],
)
.required()
.often_changed();
