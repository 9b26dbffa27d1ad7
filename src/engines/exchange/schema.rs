//! The schema of the `exchange` engine (see [`crate::engines::schema`]).

use crate::engines::cards::schema::WILD_DECK;
use crate::engines::exchange::pattern::PATTERN_WORDS;
use crate::engines::schema::{Key, Schema, SectionSchema, StateVar};
use crate::expr::Ty;

/// What a row's `pays:` may read (see `exchanged.rs`).
pub(crate) const STATE: &[StateVar] = &[StateVar::new(
    "exchanged",
    Ty::Int,
    "a number, 0 to the hand size (times `rounds`)",
    "how many cards the player exchanged before the final hand was paid, over every draw round (0: the hand was kept)",
)
.example("if(exchanged == 0, 150, 100)")];

pub(crate) const SCHEMA: Schema = Schema {
    state: STATE,
    sections: &[
        WILD_DECK,
        SectionSchema::new(
            "play",
            "a deal: the hand, what it costs, how many cards may be exchanged, and the tie-break",
            &[
                Key::new("hand", "a whole number, 1 or more", "cards per deal").required().example("5"),
                Key::new("entry", "a whole number, 0 or more", "paid for each deal").default("0").example("1"),
                Key::new("exchange", "numbers of cards, or ranges (`0..1`)", "how many cards the player may exchange")
                    .required()
                    .example("0..1"),
                Key::new("cost", "a whole number, 0 or more", "paid for each exchanged card").default("0").example("1"),
                Key::new(
                    "rounds",
                    "a whole number, 1 to 4",
                    "draw rounds: after each draw the player sees the hand and chooses again; the output is the first round's choice",
                )
                .default("1")
                .example("2"),
                Key::new("prefer", "tie-break criteria, in order", "which choice is printed among equally good ones")
                    .required()
                    .example("fewer-cards leftmost")
                    .words(&[
                        ("fewer-cards", "exchanging fewer cards first"),
                        ("more-cards", "exchanging more cards first"),
                        ("leftmost", "the exchanged cards furthest left first"),
                        ("rightmost", "the exchanged cards furthest right first"),
                        ("lower-variance", "the choice whose payout varies less over its draws first (exact variance)"),
                        ("higher-variance", "the choice whose payout varies more over its draws first"),
                    ]),
            ],
        )
        .required()
        .often_changed(),
        SectionSchema::new(
            "combination",
            "a row of the pay table: the first row the final hand forms pays",
            &[
                Key::new(
                    "pattern",
                    "a pattern: `run(N)`, `kind(N)`, `kind(N RANKS)`, `ranks(...)`, `suited(N)`, `suited(PART)`, `wild(N)`, `any`, joined with `+`",
                    "what the hand must form",
                )
                .required()
                .example("run(5)")
                .words(PATTERN_WORDS)
                .refers(&["rank"]),
                Key::new(
                    "pays",
                    "a whole number, 0 or more, or a number expression of `exchanged`; then optionally `for 1` or `to 1`",
                    "what the row pays back per credit bet: `41` and `41 for 1` include the stake, `40 to 1` returns it besides (all three pay 41)",
                )
                .required()
                .example("10")
                .decides("when the final hand is paid: its payout, by the number of cards exchanged", "if(exchanged == 0, 150, 100)"),
                Key::new("natural", "`yes` or `no`", "whether the row needs natural cards (wild cards do not stand in)")
                    .default("no")
                    .example("yes")
                    .words(&[("yes", "wild cards do not count for this row"), ("no", "wild cards stand in")]),
            ],
        )
        .named("combination")
        .often_changed(),
        SectionSchema::new(
            "input",
            "the input's format",
            &[Key::new("end", "a string", crate::engines::schema::END_LINE).default("\"#\"").example("\"#\"")],
        ),
        SectionSchema::new(
            "output",
            "the wording of the output",
            &[
                Key::new(
                    "stay",
                    "a template; fields `kept`, `row` (the row the hand forms), `value` and `exact` (its expected value)",
                    "printed when keeping the hand is best",
                )
                    .required()
                    .example("\"Stay\""),
                Key::new(
                    "exchange",
                    "a template; fields `cards` (the cards to exchange), `count`, `kept` (the cards kept), `row` (the row the dealt hand forms), `value` (the expected value, a decimal) and `exact` (the same as a fraction)",
                    "printed when an exchange is best",
                )
                .required()
                .example("\"Exchange {cards}\""),
                Key::new(
                    "exchange-all",
                    "a template; fields `cards`, `count`, `kept`, `row`, `value` and `exact`",
                    "printed when exchanging every card is best (default: `exchange`)",
                )
                .example("\"Exchange all\""),
            ],
        )
        .required(),
    ],
};
