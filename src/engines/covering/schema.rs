//! The schema of the `covering` engine (see [`crate::engines::schema`]).

use crate::engines::cards::schema::DECK;
use crate::engines::schema::{Key, Schema, SectionSchema};

pub const SCHEMA: Schema = Schema {
    state: &[],
    sections: &[
        DECK,
        SectionSchema::new(
            "layout",
            "where the cards are dealt",
            &[Key::new("piles", "a whole number, 1 to 64", "the most piles a deal may use").required().example("16")],
        )
        .required()
        .often_changed(),
        SectionSchema::new(
            "group",
            "exposed cards that are covered by the next cards: a sum group (`sum`), cards of one rank or suit (`same`), or a set of ranks",
            &[
                Key::new("ranks", "ranks and ranges (`A..T`)", "the ranks the group's cards have")
                    .default("every rank, with `same`")
                    .example("J Q K")
                    .refers(&["rank"]),
                Key::new("same", "`rank` or `suit`", "the group's cards are all of one rank, or all of one suit")
                    .example("rank")
                    .words(&[("rank", "all the cards of one rank"), ("suit", "all the cards of one suit")]),
                Key::new("sum", "a whole number", "the total of the face values of a sum group's cards").example("11"),
                Key::new("cards", "a whole number, 1 or more", "how many cards a sum group has")
                    .default("2")
                    .example("2"),
            ],
        )
        .named("group")
        .often_changed(),
        SectionSchema::new(
            "input",
            "the input's format",
            &[
                Key::new("lines", "a whole number, 1 or more", "the lines a deck is written on")
                    .default("1")
                    .example("2"),
                Key::new("end", "a string", "the line that ends the input").default("\"#\"").example("\"#\""),
            ],
        ),
        SectionSchema::new(
            "output",
            "the wording of the output",
            &[
                Key::new(
                    "played",
                    "a template; fields `deck` (its number) and `piles` (cards per pile, a list)",
                    "printed for a deck played out",
                )
                .required()
                .example("\"{deck:>3}:{piles:>3|}\""),
                Key::new(
                    "overflow",
                    "a template; fields `deck` and `card` (the position of the card with no pile)",
                    "printed for a deck that needs a pile too many",
                )
                .required()
                .example("\"{deck:>3}: no pile for card {card}\""),
            ],
        )
        .required(),
    ],
};
