//! The house of a case at the end of its line of perfect play, as a
//! picture ([`crate::game::picture::Tower`]): the base peaks from the deal,
//! each floor and peak the turns laid, and each triangle with the player
//! who scored it, its points and its turn.

use super::search::{Action, Turn};
use super::{Case, Tower};
use crate::game::picture::{Card, Floor, Peak, Tower as House, Triangle};

impl Tower {
    /// The house after `line`; `scored[t]`: the owner and points of the
    /// triangle turn `t` (0-based) made.
    pub(super) fn house(&self, case: &Case, line: &[Turn], scored: &[Option<(usize, i64)>]) -> House {
        let card = |c: u8| Card {
            name: self.deck.card_name(c as u16),
            colour: self.spans.colour.get(c as usize).copied().unwrap_or(0),
        };
        let peaks = self.rules.peaks;
        let mut house = House { base: peaks, players: self.players.to_vec(), peaks: Vec::new(), floors: Vec::new() };
        for i in 0..peaks {
            let (left, right) = (card(case.deck[2 * i]), card(case.deck[2 * i + 1]));
            house.peaks.push(Peak { level: 0, place: i, left, right, triangle: None });
        }
        for (t, turn) in line.iter().enumerate() {
            let triangle =
                scored.get(t).copied().flatten().map(|(owner, points)| Triangle { owner, points, turn: t + 1 });
            match turn.action {
                Action::Hold => {}
                Action::Floor { level, place, card: c } => {
                    house.floors.push(Floor { level, place, card: card(c), triangle });
                }
                Action::Peak { level, place, left, right } => {
                    house.peaks.push(Peak { level, place, left: card(left), right: card(right), triangle });
                }
            }
        }
        house
    }
}
