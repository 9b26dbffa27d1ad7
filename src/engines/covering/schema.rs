//! The schema of the `covering` engine (see [`crate::engines::schema`]).

use crate::engines::cards::schema::PACKS_DECK;
use crate::engines::schema::{Key, Schema, SectionSchema, StateVar};
use crate::expr::Ty;

/// What the covering engine's expressions read: of one card and the pile
/// it lies on (`each`; `scan` reads the pile's names only), and of two
/// cards of a group, `a` on the pile examined first and `b` (`between`).
/// The lowering builds each place's scope from this list, in this order.
pub(crate) const STATE: &[StateVar] = &[
    StateVar::new("rank", Ty::Set, "a set of one rank", "the card's rank (compare with `==` or `in`)")
        .example("rank in [J Q K]"),
    StateVar::new("suit", Ty::Set, "a set of one suit", "the card's suit").example("suit in [H D]"),
    StateVar::new("colour", Ty::Set, "a set of one colour", "the card's colour (`deck { colours }`)")
        .example("colour == red"),
    StateVar::new("value", Ty::Int, "a number", "the card's face value (`deck { values }`)").example("value <= 10"),
    StateVar::new(
        "pile",
        Ty::Int,
        "a number, 1 or more",
        "the pile's number: piles are numbered in the order they are started",
    )
    .example("-pile"),
    StateVar::new("row", Ty::Int, "a number, 1 or more", "the pile's row in the grid, from the top").example("row"),
    StateVar::new("column", Ty::Int, "a number, 1 or more", "the pile's column in the grid, from the left")
        .example("column * 100 + row"),
    StateVar::new("a.rank", Ty::Set, "a set of one rank", "the rank of the card examined first of the two")
        .example("a.rank != b.rank"),
    StateVar::new("a.suit", Ty::Set, "a set of one suit", "its suit").example("a.suit == b.suit"),
    StateVar::new("a.colour", Ty::Set, "a set of one colour", "its colour").example("a.colour != b.colour"),
    StateVar::new("a.value", Ty::Int, "a number", "its face value").example("a.value < b.value"),
    StateVar::new("a.pile", Ty::Int, "a number, 1 or more", "the number of its pile").example("b.pile == a.pile + 1"),
    StateVar::new("a.row", Ty::Int, "a number, 1 or more", "the row of its pile")
        .example("abs(a.row - b.row) <= 1 and abs(a.column - b.column) <= 1"),
    StateVar::new("a.column", Ty::Int, "a number, 1 or more", "the column of its pile")
        .example("abs(a.row - b.row) <= 1 and abs(a.column - b.column) <= 1"),
    StateVar::new("b.rank", Ty::Set, "a set of one rank", "the rank of the other card").example("a.rank != b.rank"),
    StateVar::new("b.suit", Ty::Set, "a set of one suit", "its suit").example("a.suit == b.suit"),
    StateVar::new("b.colour", Ty::Set, "a set of one colour", "its colour").example("a.colour != b.colour"),
    StateVar::new("b.value", Ty::Int, "a number", "its face value").example("a.value < b.value"),
    StateVar::new("b.pile", Ty::Int, "a number, 1 or more", "the number of its pile").example("b.pile == a.pile + 1"),
    StateVar::new("b.row", Ty::Int, "a number, 1 or more", "the row of its pile")
        .example("abs(a.row - b.row) <= 1 and abs(a.column - b.column) <= 1"),
    StateVar::new("b.column", Ty::Int, "a number, 1 or more", "the column of its pile")
        .example("abs(a.row - b.row) <= 1 and abs(a.column - b.column) <= 1"),
];

const CARD: &str = "the order of the piles is fixed at load, whatever lies on them";
const TWO: &str = "`a.` and `b.` name the two cards of `between`";
const ONE: &str = "`between` compares two cards: `a.NAME` or `b.NAME`";

/// What `scan` cannot read: the cards.
const NOT_IN_SCAN: &[(&str, &str)] = &[
    ("rank", CARD),
    ("suit", CARD),
    ("colour", CARD),
    ("value", CARD),
    ("a.rank", TWO),
    ("a.suit", TWO),
    ("a.colour", TWO),
    ("a.value", TWO),
    ("a.pile", TWO),
    ("a.row", TWO),
    ("a.column", TWO),
    ("b.rank", TWO),
    ("b.suit", TWO),
    ("b.colour", TWO),
    ("b.value", TWO),
    ("b.pile", TWO),
    ("b.row", TWO),
    ("b.column", TWO),
];

/// What `each` cannot read: the two cards of `between`.
const NOT_IN_EACH: &[(&str, &str)] = NOT_IN_SCAN.split_at(4).1;

/// What `between` cannot read: one card's names without `a.` or `b.`.
const NOT_IN_BETWEEN: &[(&str, &str)] =
    &[("rank", ONE), ("suit", ONE), ("colour", ONE), ("value", ONE), ("pile", ONE), ("row", ONE), ("column", ONE)];

/// The names a condition of `each` reads.
const EACH_NAMES: &[(&str, &str)] = &[
    ("rank", "the card's rank, a set of one (`rank in [J Q K]`)"),
    ("suit", "the card's suit (`suit == H`)"),
    ("colour", "the card's colour (`colour == red`)"),
    ("value", "the card's face value"),
    ("pile", "the pile's number, in the order piles are started"),
    ("row", "the pile's row, from the top"),
    ("column", "the pile's column, from the left"),
];

pub(crate) const SCHEMA: Schema = Schema {
    state: STATE,
    sections: &[
        PACKS_DECK,
        SectionSchema::new(
            "layout",
            "where the cards are dealt: a grid of piles, and the order they are examined in",
            &[
                Key::new("rows", "a whole number, 1 to 64", "the rows of the grid").example("4"),
                Key::new("columns", "a whole number, 1 to 64", "the columns of the grid (piles fill it left to right, top to bottom)")
                    .example("4"),
                Key::new("piles", "a whole number, 1 to 64", "the most piles a deal may use")
                    .default("rows × columns; with `piles` alone, one row")
                    .example("16"),
                Key::new(
                    "scan",
                    "a number over `pile`, `row`, `column`",
                    "the order the piles are examined in: in increasing order of the number, a tie in the order they were started",
                )
                .default("pile")
                .example("column * 100 + row")
                .decides_without(
                    "once, at load (a table over the piles): which exposed card is nearest the start of play, and which partner next",
                    NOT_IN_SCAN,
                    "column * 100 + row",
                )
                .words(&[
                    ("pile", "the pile's number, in the order piles are started"),
                    ("row", "the pile's row, from the top"),
                    ("column", "the pile's column, from the left"),
                ]),
            ],
        )
        .required()
        .often_changed(),
        SectionSchema::new(
            "group",
            "exposed cards that are covered by the next cards: a sum group (`sum`), cards of one rank or suit (`same`), a set of ranks, or any cards meeting conditions (`each`, `between`)",
            &[
                Key::new("ranks", "ranks and ranges (`A..T`)", "the ranks the group's cards have")
                    .default("every rank, with `same`")
                    .example("J Q K")
                    .refers(&["rank"]),
                Key::new("same", "`rank` or `suit`", "the group's cards are all of one rank, or all of one suit")
                    .example("rank")
                    .words(&[("rank", "all the cards of one rank"), ("suit", "all the cards of one suit")]),
                Key::new("sum", "a whole number", "the total of the face values of a sum group's cards").example("11"),
                Key::new("cards", "a whole number, 1 or more", "how many cards a sum group, a `same` group or a group of conditions has")
                    .default("2")
                    .example("2"),
                Key::new(
                    "each",
                    "a condition over `rank`, `suit`, `colour`, `value`, `pile`, `row`, `column`",
                    "every card of the group meets it, on its pile",
                )
                .example("suit in [H D]")
                .decides_without(
                    "at load (a table over the cards, and the piles when it reads them): which exposed cards may be part of the group",
                    NOT_IN_EACH,
                    "value <= 10",
                )
                .words(EACH_NAMES),
                Key::new(
                    "between",
                    "a condition over `a.NAME` and `b.NAME` (the names of `each`)",
                    "every two cards of the group meet it: `a` on the pile examined first, `b` on the other",
                )
                .example("abs(a.row - b.row) <= 1 and abs(a.column - b.column) <= 1")
                .decides_without(
                    "at load (tables over pairs of piles and of cards), then while the group is looked for: which exposed cards may go together",
                    NOT_IN_BETWEEN,
                    "abs(a.row - b.row) <= 1 and abs(a.column - b.column) <= 1",
                ),
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
                Key::new("end", "a string", crate::engines::schema::END_LINE).default("\"#\"").example("\"#\""),
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
