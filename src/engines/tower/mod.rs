//! The tower engine: two players take turns drawing the next card of a known
//! row and placing it on a house of cards (or holding it); triangles formed
//! score for the player the rule file's table names. Both play perfectly:
//! `search` finds the value of the game for the first named player.
//!
//! This module holds the lowered game ([`Tower`]), its input reader and its
//! output lines; `lower.rs` builds it from the rule file.

mod analyze;
mod explain;
pub mod lower;
mod moves;
mod picture;
mod read;
pub(crate) mod schema;
mod scoring;
pub(crate) mod search;
mod table;

use crate::engines::cards::Deck;
use crate::game::{Cases, Explanation, Input, InputError, Mark, RunError, RunOptions};
use crate::source::Span;
use crate::template::OutputLine;

pub use moves::MAX_HOLD;
pub use read::Reader;
pub use search::{Action, TowerRules, Tt, MAX_CARDS, MAX_PEAKS};

/// Search nodes a case may take when `--max-nodes` is not given: the
/// largest base-game case takes under 20,000 and the largest five-peak case
/// of M = 13 under 500,000; this many take a few seconds.
pub const DEFAULT_MAX_NODES: u64 = 10_000_000;

crate::fields! {
    /// The line of a case one player wins or loses: the case number, the
    /// player the case names, and the margin.
    pub struct VerdictFields<'a> {
        "case" case: i64,
        "player" player: &'a str,
        "amount" amount: i64,
    }
}

crate::fields! {
    /// The line of a tie: the case number, both players, and the player the
    /// case names.
    pub struct TieFields<'a> {
        "case" case: i64,
        "first" first: &'a str,
        "second" second: &'a str,
        "player" player: &'a str,
    }
}

/// A compiled tower game.
pub struct Tower {
    pub rules: TowerRules,
    pub deck: Deck,
    pub players: [String; 2],
    /// Smallest and largest rank count a case may name (M).
    pub m_range: (usize, usize),
    pub terminator: String,
    pub wins: OutputLine<VerdictFields<'static>>,
    pub loses: OutputLine<VerdictFields<'static>>,
    pub tie: OutputLine<TieFields<'static>>,
    pub spans: TowerSpans,
}

/// Where the rules an explanation cites are written.
#[derive(Debug, Clone, Default)]
pub struct TowerSpans {
    pub players: [Span; 2],
    pub peaks: Span,
    pub first: Span,
    /// How `first` chooses (for the words of an explanation).
    pub first_rule: FirstRule,
    /// The owner entry of each sorted colour triple, indexed like
    /// `(a * k + b) * k + c` for `k` colours; the player it names; the
    /// `points` formula that scores it.
    pub owner: Vec<Span>,
    pub owner_of: Vec<usize>,
    pub points: Vec<Span>,
    pub colours: usize,
    /// Each card's colour, and each player's.
    pub colour: Vec<usize>,
    pub player_colour: [usize; 2],
    pub held_own: Span,
    pub held_other: Span,
    pub wins: Span,
    pub loses: Span,
    pub tie: Span,
}

/// How the first mover is chosen.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FirstRule {
    /// The player whose colour the first card has.
    #[default]
    ByColour,
    /// What the `first` expression gives for the deal.
    Expr,
}

/// One case as read.
#[derive(Debug, Clone, Default)]
pub struct Case {
    /// 1-based case number, and the line it starts on.
    pub number: i64,
    pub line: usize,
    /// The player the case names (0 or 1).
    pub player: usize,
    /// The deck, in order.
    pub deck: Vec<u8>,
}

impl Cases for Tower {
    type Case = Case;
    type Reader = Reader;
    type Scratch = Tt;

    fn read(&self, input: &mut Input, reader: &mut Reader, case: &mut Case) -> Result<bool, InputError> {
        self.read_case(input, reader, case)
    }

    fn boundary(&self, reader: &mut Reader, within: &mut u64, line: &[u8]) -> Mark {
        self.case_boundary(reader, within, line)
    }

    fn solve(&self, case: &Case, tt: &mut Tt, opts: &RunOptions, out: &mut Vec<u8>) -> Result<(), RunError> {
        let v0 = self.value(case, tt, opts)?;
        self.verdict(out, case, v0);
        Ok(())
    }

    fn explain(
        &self,
        case: &Case,
        tt: &mut Tt,
        opts: &RunOptions,
        each: &mut dyn FnMut(Explanation) -> Result<(), RunError>,
    ) -> Result<(), RunError> {
        let v0 = self.value(case, tt, opts)?;
        each(self.explain_case(case, tt, v0))
    }

    fn pictures(&self) -> bool {
        true
    }

    fn analyzer(&self) -> Option<&dyn crate::game::Analyze> {
        Some(self)
    }
}

impl Tower {
    /// The value of a case for the first player, within `--max-nodes`
    /// (default [`DEFAULT_MAX_NODES`]).
    fn value(&self, case: &Case, tt: &mut Tt, opts: &RunOptions) -> Result<i32, RunError> {
        let budget = opts.max_nodes.unwrap_or(DEFAULT_MAX_NODES);
        match self.rules.solve_with(&case.deck, case.player, tt, budget) {
            Some((v0, _)) => Ok(v0),
            None if opts.max_nodes.is_none() => Err(RunError::Limit(format!(
                "the search of case {} (line {}) needs more than {budget} nodes, the tower engine's default \
                 limit; give a larger --max-nodes to search further",
                case.number, case.line
            ))),
            None => Err(RunError::Limit(format!(
                "the search of case {} (line {}) needs more than {budget} nodes (--max-nodes)",
                case.number, case.line
            ))),
        }
    }

    /// Writes the output line of a case worth `v0` to the first player.
    fn verdict(&self, out: &mut Vec<u8>, case: &Case, v0: i32) {
        let player = case.player;
        let v = if player == 0 { v0 } else { -v0 } as i64;
        let named = self.players[player].as_str();
        if v > 0 {
            self.wins.line(out, &VerdictFields { case: case.number, player: named, amount: v });
        } else if v < 0 {
            self.loses.line(out, &VerdictFields { case: case.number, player: named, amount: -v });
        } else {
            self.tie.line(
                out,
                &TieFields { case: case.number, first: &self.players[0], second: &self.players[1], player: named },
            );
        }
    }
}
