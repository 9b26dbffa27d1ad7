//! The schema of the `tower` engine (see [`crate::engines::schema`]).

use crate::engines::cards::schema::DECK;
use crate::engines::schema::{Key, Schema, SectionSchema, StateVar};
use crate::expr::Ty;

/// What a `points` formula reads: the ranks' face values of the triangle's
/// three cards, in the order the lowering fills `Env::ints`.
pub const STATE: &[StateVar] = &[
    StateVar::new("sum", Ty::Int, "a number", "the sum of the face values of the triangle's three cards")
        .example("[R R R] 2 * sum [B B B] 2 * sum else sum"),
    StateVar::new("low", Ty::Int, "a number", "the lowest face value of the three")
        .example("max(sum, 10) - min(low, 2)"),
    StateVar::new("mid", Ty::Int, "a number", "the middle face value of the three")
        .example("[R R R] sum % 5  [R R B] mid  [R B B] (-high)  [B B B] 7"),
    StateVar::new("high", Ty::Int, "a number", "the highest face value of the three")
        .example("[R R R] 3 * high - low  else sum + 1"),
];

pub const SCHEMA: Schema = Schema {
    state: STATE,
    sections: &[
        DECK,
        SectionSchema::new(
            "player",
            "one of the two players and the colour of cards that is theirs",
            &[Key::new("colour", "a colour (of the deck, else a suit)", "the player's colour")
                .required()
                .example("R")
                .refers(&["colour", "suit"])],
        )
        .named("player")
        .often_changed(),
        SectionSchema::new(
            "tower",
            "the house of cards: how many peaks stand at the start, and who moves first",
            &[
                Key::new("peaks", "a whole number, 2 or more", "the base peaks (two cards each) at the start")
                    .required()
                    .example("4"),
                Key::new("first", "`colour-of-first-card` or a player", "who moves first")
                    .default("colour-of-first-card")
                    .example("colour-of-first-card")
                    .words(&[("colour-of-first-card", "the player whose colour the first card of the row has")])
                    .refers(&["player"]),
            ],
        )
        .required()
        .often_changed(),
        SectionSchema::new(
            "scoring",
            "what a triangle is worth, whose it is, and what held cards count",
            &[
                Key::new(
                    "points",
                    "a number formula over `sum`, `low`, `mid`, `high`; or formulas by colours, `[C C C] FORMULA ... else FORMULA`",
                    "what a triangle is worth",
                )
                .default("sum")
                .example("sum")
                .decides(
                    "once per kind of triangle, at load (a table over the cards' colours and values): its points",
                    "[R R R] 2 * sum [B B B] 2 * sum else sum",
                )
                .words(&[
                    ("sum", "the sum of the face values of its three cards"),
                    ("low", "the lowest face value of the three"),
                    ("mid", "the middle face value of the three"),
                    ("high", "the highest face value of the three"),
                    ("else", "the formula of every triangle not listed before it"),
                ]),
                Key::new(
                    "owner",
                    "pairs `[C C C] PLAYER` for every mix of colours",
                    "who scores a triangle, by the colours of its cards",
                )
                .required()
                .example("[R R R] North [R R B] North [R B B] South [B B B] South")
                .refers(&["player", "colour", "suit"]),
                Key::new("held-own", "a whole number", "multiplier of a card held at the end, of the holder's colour")
                    .default("1")
                    .example("1"),
                Key::new("held-other", "a whole number", "multiplier of a card held at the end, of the other colour")
                    .default("-1")
                    .example("-1"),
            ],
        )
        .required()
        .often_changed(),
        SectionSchema::new(
            "input",
            "the input's format",
            &[
                Key::new("ranks", "a range (`5..13`)", "the ranks M a case may use (the deck's lowest M ranks)")
                    .required()
                    .example("5..13"),
                Key::new("end", "a string", "the line that ends the input").default("\"End\"").example("\"End\""),
            ],
        )
        .required(),
        SectionSchema::new(
            "output",
            "the wording of the output",
            &[
                Key::new("wins", "a template; fields `case`, `player`, `amount`", "the named player wins")
                    .required()
                    .example("\"Case {case}: {player} wins {amount}\""),
                Key::new("loses", "a template; fields `case`, `player`, `amount`", "the named player loses")
                    .required()
                    .example("\"Case {case}: {player} loses {amount}\""),
                Key::new("tie", "a template; fields `case`, `first`, `second`, `player`", "a tie")
                    .required()
                    .example("\"Case {case}: {first} and {second} tie\""),
            ],
        )
        .required(),
    ],
};
