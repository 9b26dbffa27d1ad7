//! The schema of the `deck` section, shared by the card engines (see
//! [`crate::engines::schema`]).

use crate::engines::schema::{Key, SectionSchema};

const RANKS: Key = Key::new(
    "ranks",
    "names (words or numbers), in order",
    "the ranks, lowest first; a card is written rank then suit (`TH`)",
)
.required()
.example("A 2 3 4 5 6 7 8 9 T J Q K")
.defines("rank");

const SUITS: Key = Key::new("suits", "names (words)", "the suits").required().example("S H D C").defines("suit");

const VALUES: Key = Key::new("values", "whole numbers, one per rank", "the face value of each rank, in rank order")
    .default("1 2 3 ...")
    .example("1 2 3 4 5 6 7 8 9 10 10 10 10");

const WRAP: Key =
    Key::new("wrap", "`yes` or `no`", "whether the highest and the lowest rank are consecutive (`Q K A 2` is a run)")
        .default("no")
        .example("yes")
        .words(&[("yes", "the ranks go round"), ("no", "the ranks do not go round")]);

const HIGH: Key = Key::new(
        "high",
        "a rank name: the first rank",
        "the first rank may also follow the last, without going round (`T J Q K A` and `A 2 3 4 5` are runs, `Q K A 2 3` is not)",
    )
    .example("A")
    .refers(&["rank"]);

const WILD: Key = Key::new("wild", "rank names", "ranks whose cards are wild: each stands for any card")
    .example("2")
    .refers(&["rank"]);

const JOKERS: Key =
    Key::new("jokers", "names (words)", "extra wild cards, one per name, with no rank and no suit").example("JK");

const COLOURS: Key = Key::new("colours", "names, one per suit", "the colour of each suit, in suit order")
    .example("black red black red")
    .defines("colour");

const PACKS: Key = Key::new(
    "packs",
    "a whole number, 1 to 8",
    "how many packs are shuffled together: a deal holds each card this many times",
)
.default("1")
.example("2");

const TITLE: &str = "the cards: ranks in order, suits, face values, colours";

/// `deck { ranks suits values wrap colours }`.
pub(crate) const DECK: SectionSchema =
    SectionSchema::new("deck", TITLE, &[RANKS, SUITS, VALUES, WRAP, COLOURS]).required().often_changed();

/// The `deck` of engines that deal several packs shuffled together:
/// `deck { ranks suits values wrap colours packs }`.
pub(crate) const PACKS_DECK: SectionSchema =
    SectionSchema::new("deck", TITLE, &[RANKS, SUITS, VALUES, WRAP, COLOURS, PACKS]).required().often_changed();

/// The `deck` of engines with wild cards and a high Ace:
/// `deck { ranks suits values wrap high wild jokers colours }`.
pub(crate) const WILD_DECK: SectionSchema =
    SectionSchema::new("deck", TITLE, &[RANKS, SUITS, VALUES, WRAP, HIGH, WILD, JOKERS, COLOURS])
        .required()
        .often_changed();
