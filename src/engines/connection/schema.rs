//! The schema of the `connection` engine (see [`crate::engines::schema`]).

use crate::engines::schema::{Key, Schema, SectionSchema};

pub const SCHEMA: Schema = Schema {
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
            "a winning structure: a group of stones that connects members of a family, or encloses cells",
            &[
                Key::new("connects", "`N of FAMILY`", "the group touches N distinct members of a cell family")
                    .example("2 of corner")
                    .refers(&["cells"]),
                Key::new("encloses", "`empty` or `any`", "the group surrounds cells that cannot reach the outside")
                    .example("empty")
                    .words(&[("empty", "an empty cell"), ("any", "any cell, empty or holding a stone")]),
            ],
        )
        .named("structure")
        .often_changed(),
        SectionSchema::new(
            "output",
            "the wording of the output",
            &[
                Key::new(
                    "win",
                    "a template; fields `case`, `structures` (a list) and `move`",
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
