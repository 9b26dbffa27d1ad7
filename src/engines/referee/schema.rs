//! The schema of the `referee` engine (see [`crate::engines::schema`]).

use crate::engines::schema::{Key, Schema, SectionSchema, StateVar};
use crate::expr::Ty;

/// What the referee knows at a stroke: the one list of the names its
/// expressions read, in the order `Referee::env_of` fills them (sets, then
/// numbers and conditions).
pub(crate) const STATE: &[StateVar] = &[
    StateVar::new("first", Ty::Set, "a set of balls", "the ball hit first (empty when none)").example("first == []"),
    StateVar::new("potted", Ty::Set, "a set of balls", "the balls potted by the stroke").example("White in potted"),
    StateVar::new("on", Ty::Set, "a set of balls", "the ball or balls on for the stroke")
        .example("first != [] and first not in on"),
    StateVar::new("table", Ty::Set, "a set of balls", "the object balls on the table before the stroke")
        .example("table"),
    StateVar::new("left", Ty::Int, "a number", "how many object balls were on the table before the stroke")
        .example("left == 1 and (foul or potted - White != [])"),
    StateVar::new(
        "striker",
        Ty::Int,
        "1 or 2",
        "the striker: 1 for the player named first (who breaks off), 2 for the other",
    )
    .example("striker"),
    StateVar::new("opponent", Ty::Int, "1 or 2", "the striker's opponent (3 - `striker`)").example("opponent"),
    StateVar::new("score", Ty::Int, "a number, 0 or more", "the striker's score").example("score > opponent_score"),
    StateVar::new("opponent_score", Ty::Int, "a number, 0 or more", "the opponent's score")
        .example("score > opponent_score"),
    StateVar::new("lead", Ty::Int, "a number, 0 or more", "how many points the leader is ahead (0 when level)")
        .example("lead > remaining"),
    StateVar::new("leader", Ty::Int, "0, 1 or 2", "the player with the higher score (0 when the scores are level)")
        .example("leader"),
    StateVar::new(
        "remaining",
        Ty::Int,
        "a number, 0 or more",
        "the points still on the table: the most that fair pots can still score (see the engine's page)",
    )
    .example("lead > remaining"),
    StateVar::new("fouls", Ty::Int, "a number, 0 or more", "the striker's fouls in a row (a fair stroke resets them)")
        .example("highest(on + first + potted) + fouls"),
    StateVar::new("opponent_fouls", Ty::Int, "a number, 0 or more", "the opponent's fouls in a row")
        .example("opponent_fouls >= 2"),
    StateVar::new(
        "strokes",
        Ty::Int,
        "a number, 1 or more",
        "the number of the stroke in the frame (1 for the break-off)",
    )
    .example("strokes >= 50"),
    StateVar::new(
        "visits",
        Ty::Int,
        "a number, 1 or more",
        "the number of the stroke's visit in the frame (1 for the first)",
    )
    .example("visits >= 20"),
    StateVar::new("foul", Ty::Bool, "a condition", "whether the stroke is a foul (not in a foul's own condition)")
        .example("not foul and potted - White != []"),
];

/// A foul condition cannot read whether the stroke is a foul.
pub(crate) const NO_FOUL: &[(&str, &str)] =
    &[("foul", "a foul condition decides whether the stroke is a foul: it cannot depend on it")];

/// What the `on` rule cannot read: it decides the ball on before the stroke.
pub(crate) const NO_ON: &[(&str, &str)] = &[
    ("potted", "the ball on is decided before the stroke: no ball is potted yet"),
    ("on", "this rule decides the ball on"),
    ("foul", "the ball on is decided before the stroke, which decides whether it is a foul"),
];

/// The variables of rule expressions, with their meaning.
const VARIABLES: &[(&str, &str)] = &[
    ("first", "the ball hit first (empty when none)"),
    ("potted", "the balls potted by the stroke"),
    ("on", "the ball or balls on for the stroke"),
    ("highest", "`highest(SET)`: the value of the most valuable ball of a set"),
    ("lowest", "`lowest(SET)`: the value of the least valuable ball of a set"),
    ("count", "`count(SET)`: how many balls a set holds"),
    ("min", "`min(A, B)`: the smaller number"),
    ("max", "`max(A, B)`: the larger number"),
    ("foul", "whether the stroke is a foul (not in a foul's own condition)"),
    ("table", "the object balls on the table before the stroke"),
    ("left", "how many object balls were on the table before the stroke"),
    ("striker", "the striker: 1 for the player named first (who breaks off), 2 for the other"),
    ("opponent", "the striker's opponent (3 - `striker`)"),
    ("score", "the striker's score"),
    ("opponent_score", "the opponent's score"),
    ("lead", "how many points the leader is ahead (0 when level)"),
    ("leader", "the player with the higher score (0 when the scores are level)"),
    ("remaining", "the points still on the table: the most that fair pots can still score (see the engine's page)"),
    ("fouls", "the striker's fouls in a row (a fair stroke resets them)"),
    ("opponent_fouls", "the opponent's fouls in a row"),
    ("strokes", "the number of the stroke in the frame (1 for the break-off)"),
    ("visits", "the number of the stroke's visit in the frame (1 for the first)"),
    ("if", "`if(CONDITION, A, B)`: A when the condition holds, else B"),
    ("abs", "`abs(A)`: the number A without its sign"),
    ("yes", "the condition that always holds"),
    ("no", "the condition that never holds"),
];

pub(crate) const SCHEMA: Schema = Schema {
    state: STATE,
    sections: &[
        SectionSchema::new(
            "ball",
            "a kind of ball: its value, how many, and whether it is the cue ball",
            &[
                Key::new("value", "a whole number, 0 or more", "the points the ball is worth").required().example("1"),
                Key::new("count", "a whole number, 1 to 1000", "balls of this kind at the start of a frame")
                    .default("1")
                    .example("15"),
                Key::new("cue", "`yes` or `no`", "this is the cue ball (exactly one ball is)")
                    .default("no")
                    .example("yes"),
            ],
        )
        .named("ball")
        .often_changed(),
        SectionSchema::new(
            "play",
            "which balls are on: the alternate balls, then the sequence",
            &[
                Key::new("alternate", "balls", "the balls of the first phase, on at the start of every visit")
                    .required()
                    .example("BALL")
                    .refers(&["ball"]),
                Key::new(
                    "sequence",
                    "balls, in order",
                    "the other object balls, on one after another in the second phase",
                )
                .default("the other object balls by value")
                .example("BALL BALL BALL")
                .refers(&["ball"]),
                Key::new(
                    "nominate",
                    "`lowest`, `highest` or a ball",
                    "the ball on after an alternate ball when the ball hit first names none",
                )
                .default("lowest")
                .example("lowest")
                .words(&[
                    ("lowest", "the least valuable ball on the table"),
                    ("highest", "the most valuable ball on the table"),
                ])
                .refers(&["ball"]),
                Key::new(
                    "on",
                    "a set of balls",
                    "the ball or balls on for a stroke, instead of the phases' alternation and sequence",
                )
                .example("if(Seven in table, Seven, if(Eight in table, Eight, Nine))")
                .decides_without(
                    "before each stroke: the ball or balls on",
                    NO_ON,
                    "if(Seven in table, Seven, if(Eight in table, Eight, Nine))",
                )
                .words(VARIABLES)
                .refers(&["ball"]),
                Key::new("continue", "a condition", "the striker's visit goes on after the stroke")
                    .required()
                    .example("not foul and potted - BALL != []")
                    .decides("after each stroke: the striker plays again", "not foul and potted - White != []")
                    .words(VARIABLES)
                    .refers(&["ball"]),
                Key::new("in-hand", "a condition", "the next player has the cue ball in hand")
                    .required()
                    .example("BALL in potted")
                    .decides(
                        "after a stroke that ends a visit: the next player has the cue ball in hand",
                        "White in potted",
                    )
                    .words(VARIABLES)
                    .refers(&["ball"]),
                Key::new("play-again-after", "a condition", "the play-again line of the input may follow the stroke")
                    .required()
                    .example("foul")
                    .decides("after each stroke: the opponent may ask the striker to play again", "foul")
                    .words(VARIABLES)
                    .refers(&["ball"]),
            ],
        )
        .required()
        .often_changed(),
        SectionSchema::new(
            "foul",
            "a foul: a condition over the stroke",
            &[Key::new(
                "when",
                "a condition over the stroke and the frame's state before it (all but `foul`)",
                "the stroke is a foul when this holds",
            )
            .required()
            .example("first == []")
            .decides_without("at each stroke: the stroke is this foul", NO_FOUL, "first == []")
            .words(VARIABLES)
            .refers(&["ball"])],
        )
        .named("foul")
        .often_changed(),
        SectionSchema::new(
            "penalty",
            "what a foul costs",
            &[
                Key::new("min", "a whole number, 0 or more", "the smallest penalty").required().example("4"),
                Key::new("max", "a whole number, 0 or more", "the largest penalty").required().example("7"),
                Key::new(
                    "value",
                    "a number expression over the stroke and the frame's state before it",
                    "the penalty before it is clamped to `min..max`",
                )
                .required()
                .example("highest(on + first + potted)")
                .decides("after a foul: the penalty, clamped to `min..max`", "highest(on + first + potted)")
                .words(VARIABLES)
                .refers(&["ball"]),
            ],
        )
        .required()
        .often_changed(),
        SectionSchema::new(
            "respot",
            "the balls put back on the table after a stroke",
            &[
                Key::new("first-phase", "a set of balls", "after every stroke of the first phase")
                    .required()
                    .example("potted - BALL")
                    .decides(
                        "after a stroke of the first phase (after a fair one, with `first-phase-foul`)",
                        "potted - Red",
                    )
                    .words(VARIABLES)
                    .refers(&["ball"]),
                Key::new("second-phase", "a set of balls", "after a fair stroke of the second phase")
                    .required()
                    .example("[]")
                    .decides("after a fair stroke of the second phase: the balls put back", "[]")
                    .words(VARIABLES)
                    .refers(&["ball"]),
                Key::new("second-phase-foul", "a set of balls", "after a foul in the second phase")
                    .default("`second-phase`")
                    .example("potted")
                    .decides("after a foul in the second phase: the balls put back", "potted")
                    .words(VARIABLES)
                    .refers(&["ball"]),
                Key::new("first-phase-foul", "a set of balls", "after a foul in the first phase")
                    .default("`first-phase`")
                    .example("potted")
                    .decides("after a foul in the first phase: the balls put back", "potted")
                    .words(VARIABLES)
                    .refers(&["ball"]),
            ],
        )
        .required()
        .often_changed(),
        SectionSchema::new(
            "end",
            "which stroke ends the frame",
            &[Key::new("when", "a condition over the stroke and the table before it", "this stroke ends the frame")
                .required()
                .example("left == 1 and (foul or potted != [])")
                .decides(
                    "after each stroke: the frame ends (or is tied)",
                    "left == 1 and (foul or potted - White != [])",
                )
                .words(VARIABLES)
                .refers(&["ball"])],
        )
        .required(),
        SectionSchema::new(
            "ending",
            "a frame ending: after a stroke that `end` does not end, the first ending whose condition holds on the \
             state the stroke left ends the frame",
            &[
                Key::new("when", "a condition", "the frame ends after the stroke when this holds")
                    .required()
                    .example("lead > remaining")
                    .decides("after each stroke `end` does not end: the frame ends here", "lead > remaining")
                    .words(VARIABLES)
                    .refers(&["ball"]),
                Key::new(
                    "winner",
                    "a number: 1 or 2",
                    "the winner: 1 for the player named first, 2 for the other (any other value: a draw)",
                )
                .example("leader")
                .decides("when the ending holds: who wins the frame", "leader")
                .words(VARIABLES)
                .refers(&["ball"]),
                Key::new("draw", "`yes` or `no`", "the ending is a drawn frame (instead of a `winner`)")
                    .default("no")
                    .example("yes"),
                Key::new(
                    "output",
                    "a template; fields `player`, `loser`, `first` and `second`",
                    "the frame's last line: the winner and the other player (both empty for a draw), the scores",
                )
                .required()
                .example("\"{loser} concedes, {player} wins\""),
            ],
        )
        .named("ending"),
        SectionSchema::new(
            "tie",
            "what level scores do when the frame ends",
            &[
                Key::new("draw", "`yes` or `no`", "a tie ends the frame drawn (the `draw` line)")
                    .default("no")
                    .example("yes"),
                Key::new(
                    "respot",
                    "a set of balls",
                    "the balls of these kinds that were on the table before the stroke are put back",
                )
                .example("table")
                .decides("after a tied frame is to be replayed: the balls put back", "table")
                .words(VARIABLES)
                .refers(&["ball"]),
                Key::new("next", "`lot`, `striker` or `opponent`", "who plays next after a replayed tie")
                    .example("lot")
                    .words(&[
                        ("lot", "a line of the input names the player"),
                        ("striker", "the player who made the stroke"),
                        ("opponent", "the other player"),
                    ]),
                Key::new("in-hand", "`yes` or `no`", "that player has the cue ball in hand").example("yes"),
            ],
        )
        .required(),
        SectionSchema::new(
            "input",
            "the words of the input that are not balls",
            &[
                Key::new("no-hit", "a string (one word)", "a stroke in which the cue ball hits no ball")
                    .required()
                    .example("\"WORD\""),
                Key::new("play-again", "a string", "the line asking the offender to play again")
                    .required()
                    .example("\"WORDS\""),
            ],
        )
        .required(),
        SectionSchema::new(
            "output",
            "the wording of the output",
            &[
                Key::new("frame", "a template; field `frame`", "at the start of a frame")
                    .required()
                    .example("\"frame {frame}\""),
                Key::new("turn", "a template; field `player`", "the next player")
                    .required()
                    .example("\"{player}'s turn\""),
                Key::new("in-hand", "a template; field `player`", "the next player, with the cue ball in hand")
                    .required()
                    .example("\"{player}'s turn, in-hand\""),
                Key::new("foul", "a template (no fields)", "before the score of a foul stroke")
                    .required()
                    .example("\"foul\""),
                Key::new("score", "a template; fields `first` and `second`", "after every stroke")
                    .required()
                    .example("\"{first} : {second}\""),
                Key::new("respot", "a template; field `balls`", "the balls put back")
                    .required()
                    .example("\"respot {balls}\""),
                Key::new("tie", "a template (no fields)", "a tie that is replayed").example("\"tie\""),
                Key::new("draw", "a template (no fields)", "a drawn frame (with `tie { draw: yes }`)")
                    .example("\"draw\""),
                Key::new("wins", "a template; field `player`", "the winner of the frame")
                    .required()
                    .example("\"{player} wins\""),
                Key::new("between", "a template (no fields)", "between two frames").default("\"\"").example("\"\""),
            ],
        )
        .required(),
    ],
};

#[cfg(test)]
mod tests {
    /// The words documented for the referee's expressions name every
    /// function of the expression language.
    /// A foul condition's scope is the state less its last names: those it
    /// may not read must come last, or the other names would move in `Env`.
    #[test]
    fn what_a_foul_may_not_read_comes_last_in_the_state() {
        let tail: Vec<&str> =
            super::STATE[super::STATE.len() - super::NO_FOUL.len()..].iter().map(|v| v.name).collect();
        let hidden: Vec<&str> = super::NO_FOUL.iter().map(|(n, _)| *n).collect();
        assert_eq!(tail, hidden);
    }

    /// The words documented for keys (hover, completion) carry every state
    /// name with its meaning.
    #[test]
    fn the_documented_words_are_the_state() {
        for v in super::STATE {
            assert!(super::VARIABLES.contains(&(v.name, v.doc)), "`{}` differs between STATE and VARIABLES", v.name);
        }
    }

    #[test]
    fn every_function_of_the_language_is_documented() {
        for f in crate::expr::function_names() {
            assert!(super::VARIABLES.iter().any(|(w, _)| *w == f), "`{f}` is not among the referee's words");
        }
    }
}
