//! The schema of the `tower` engine (see [`crate::engines::schema`]).

use crate::engines::cards::schema::DECK;
use crate::engines::schema::{Key, Schema, SectionSchema, StateVar};
use crate::expr::Ty;

/// The tower's state: what its three decision points read, each a part of
/// this one list (the others are unavailable to it, with the reason). A
/// decision's compiled expression reads its names in this order in
/// `Env` (sets, then numbers and conditions).
pub(crate) const STATE: &[StateVar] = &[
    StateVar::new("sum", Ty::Int, "a number", "the sum of the face values of the triangle's three cards")
        .example("[R R R] 2 * sum [B B B] 2 * sum else sum"),
    StateVar::new("low", Ty::Int, "a number", "the lowest face value of the three")
        .example("max(sum, 10) - min(low, 2)"),
    StateVar::new("mid", Ty::Int, "a number", "the middle face value of the three")
        .example("[R R R] sum % 5  [R R B] mid  [R B B] (-high)  [B B B] 7"),
    StateVar::new("high", Ty::Int, "a number", "the highest face value of the three")
        .example("[R R R] 3 * high - low  else sum + 1"),
    StateVar::new("named", Ty::Set, "a set of players", "the player the case names")
        .example("if(first-rank % 2 == 1, named, first-player)"),
    StateVar::new(
        "first-player",
        Ty::Set,
        "a set of players",
        "the players whose colour the first card of the deal has (the left card of the first peak; empty when none)",
    )
    .example("if(first-value >= 7, first-player, named)"),
    StateVar::new("first-colour", Ty::Set, "a set of colours", "the colour of the first card of the deal")
        .example("if(first-colour == [R], first-player, named)"),
    StateVar::new("first-value", Ty::Int, "a number", "the face value of the first card of the deal")
        .example("if(first-value >= 7, first-player, named)"),
    StateVar::new(
        "first-rank",
        Ty::Int,
        "a number",
        "the rank of the first card of the deal, counted from 1 (the deck's first rank)",
    )
    .example("if(first-rank % 2 == 1, named, first-player)"),
    StateVar::new("value", Ty::Int, "a number", "the face value of a card held at the end")
        .example("if(own, value, -value)"),
    StateVar::new("rank", Ty::Int, "a number", "the rank of a card held at the end, counted from 1")
        .example("if(own, 2 * value, 0 - rank)"),
    StateVar::new("own", Ty::Bool, "a condition", "the card held at the end has its holder's colour")
        .example("if(own, value, -value)"),
];

/// The names a triangle's `points` read, the first mover's and a held
/// card's (each a part of [`STATE`]).
pub(crate) const POINTS_READ: &[&str] = &["sum", "low", "mid", "high"];
pub(crate) const FIRST_READ: &[&str] = &["named", "first-player", "first-colour", "first-value", "first-rank"];
pub(crate) const HELD_READ: &[&str] = &["value", "rank", "own"];

const AT_LOAD_DEAL: &str =
    "a triangle's points are worked out at load, once per kind of triangle: they cannot depend on \
                            the deal";
const NOT_HELD: &str = "`value`, `rank` and `own` are a card held at the end; a triangle's cards are `sum`, `low`, \
                        `mid`, `high`";
/// What `points` cannot read, and why.
pub(crate) const POINTS_CANNOT: &[(&str, &str)] = &[
    ("named", AT_LOAD_DEAL),
    ("first-player", AT_LOAD_DEAL),
    ("first-colour", AT_LOAD_DEAL),
    ("first-value", AT_LOAD_DEAL),
    ("first-rank", AT_LOAD_DEAL),
    ("value", NOT_HELD),
    ("rank", NOT_HELD),
    ("own", NOT_HELD),
];
const NO_TRIANGLE_YET: &str = "no triangle is formed before the first turn";
const FIRST_NOT_HELD: &str = "`value`, `rank` and `own` are a card held at the end; the first card is `first-value`, \
                              `first-rank`, `first-colour`, `first-player`";
/// What `first` cannot read, and why.
pub(crate) const FIRST_CANNOT: &[(&str, &str)] = &[
    ("sum", NO_TRIANGLE_YET),
    ("low", NO_TRIANGLE_YET),
    ("mid", NO_TRIANGLE_YET),
    ("high", NO_TRIANGLE_YET),
    ("value", FIRST_NOT_HELD),
    ("rank", FIRST_NOT_HELD),
    ("own", FIRST_NOT_HELD),
];
const NO_TRIANGLE: &str = "a card held at the end forms no triangle";
const HELD_AT_LOAD: &str = "what a held card is worth is worked out at load, once per card and player: it cannot \
                            depend on the deal";
/// What `held` cannot read, and why.
pub(crate) const HELD_CANNOT: &[(&str, &str)] = &[
    ("sum", NO_TRIANGLE),
    ("low", NO_TRIANGLE),
    ("mid", NO_TRIANGLE),
    ("high", NO_TRIANGLE),
    ("named", HELD_AT_LOAD),
    ("first-player", HELD_AT_LOAD),
    ("first-colour", HELD_AT_LOAD),
    ("first-value", HELD_AT_LOAD),
    ("first-rank", HELD_AT_LOAD),
];

pub(crate) const SCHEMA: Schema = Schema {
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
            "the house of cards: how many peaks stand at the start, how many cards a player may hold, and who moves \
             first",
            &[
                Key::new("peaks", "a whole number, 2 or more", "the base peaks (two cards each) at the start")
                    .required()
                    .example("4"),
                Key::new("hold", "a whole number, 1 to 4", "the most cards a player may hold")
                    .default("1")
                    .example("2"),
                Key::new(
                    "first",
                    "`colour-of-first-card`, a player, or a set expression giving one player",
                    "who takes the first turn",
                )
                .default("colour-of-first-card")
                .example("colour-of-first-card")
                .words(&[("colour-of-first-card", "the player whose colour the first card of the deal has")])
                .refers(&["player", "colour", "suit"])
                .decides_without(
                    "at load, for every first card and named player (a table read once per deal): who takes the \
                     first turn (one player)",
                    FIRST_CANNOT,
                    "if(first-value >= 7, first-player, named)",
                ),
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
                .decides_without(
                    "once per kind of triangle, at load (a table over the cards' colours and values): its points",
                    POINTS_CANNOT,
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
                Key::new(
                    "held",
                    "a number formula over `value`, `rank`, `own`",
                    "what a card held at the end is worth to its holder (instead of `held-own` and `held-other`)",
                )
                .example("if(own, value, -value)")
                .decides_without(
                    "once per card and player, at load (a table): what the card, held at the end, is worth to its \
                     holder",
                    HELD_CANNOT,
                    "if(own, value, -value)",
                )
                .words(&[
                    ("value", "the face value of the held card"),
                    ("rank", "its rank, counted from 1"),
                    ("own", "the card has the holder's colour"),
                ]),
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
                Key::new("end", "a string", crate::engines::schema::END_LINE).default("\"End\"").example("\"End\""),
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
