//! The schema of the `connection` engine (see [`crate::engines::schema`]).

use crate::engines::schema::{Key, Schema, SectionSchema};

pub(crate) const SCHEMA: Schema = Schema {
    state: &[],
    sections: &[
        SectionSchema::new(
            "board",
            "the board's shape and the sizes the input may ask for",
            &[
                Key::new("shape", "a board shape", "the board's geometry")
                    .required()
                    .example("hexagon")
                    .words(&[("hexagon", "a hexagon of hexagonal cells, `side` cells a side")]),
                Key::new("side", "a range of whole numbers (`2..1000`)", "the board sizes an input case may give")
                    .default("2..1000000")
                    .example("2..1000"),
                Key::new(
                    "height",
                    "a range of whole numbers (`1..3000`)",
                    "a rhombus given by two sizes: the rows (`x`) an input case may give; with `width`, instead of `side`",
                )
                .example("1..3000"),
                Key::new(
                    "width",
                    "a range of whole numbers (`1..3000`)",
                    "a rhombus given by two sizes: the columns (`y`) an input case may give; with `height`",
                )
                .example("1..3000"),
            ],
        )
        .required()
        .often_changed(),
        SectionSchema::new(
            "cells",
            "a family of border cells that structures name",
            &[Key::new("of", "a part of the board", "the cells of the family").required().example("corners").words(&[
                ("corners", "the corners, one cell each"),
                ("sides", "the sides, corners excluded; one member per side"),
                ("sides-with-corners", "the sides, corners included; one member per side"),
            ])],
        )
        .named("cells")
        .often_changed(),
        SectionSchema::new(
            "structure",
            "a winning structure: a group of stones that connects members of a family, or encloses cells, or a line of stones",
            &[
                Key::new("connects", "`N of FAMILY`", "the group touches N distinct members of a cell family")
                    .example("2 of corner")
                    .refers(&["cells"]),
                Key::new("encloses", "`empty` or `any`", "the group surrounds cells that cannot reach the outside")
                    .example("empty")
                    .words(&[("empty", "an empty cell"), ("any", "any cell, empty or holding a stone")]),
                Key::new("line", "a whole number, 1 to 100", "N of the player's stones in a row along one of the board's axes")
                    .example("5"),
            ],
        )
        .named("structure")
        .often_changed(),
        SectionSchema::new(
            "play",
            "who places the stones",
            &[Key::new(
                "players",
                "a whole number, 1 to 16",
                "players taking turns, the first player's move first; each one's stones block the others'",
            )
            .default("1")
            .example("2")],
        ),
        SectionSchema::new(
            "output",
            "the wording of the output",
            &[
                Key::new(
                    "win",
                    "a template; fields `case`, `structures` (a list), `move` and `player` (1 to N)",
                    "printed for a case won",
                )
                .required()
                .example("\"Case #{case}: {structures|-} in move {move}\""),
                Key::new("none", "a template; field `case`", "printed for a case that nobody won")
                    .required()
                    .example("\"Case #{case}: none\""),
            ],
        )
        .required(),
    ],
};
