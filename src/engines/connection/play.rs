//! Play beyond one player's groups and holes: several players taking turns
//! and lines of stones. The base games never come here (`Connection::extra`
//! is `None` for them), so their path stays as fast as it was.
//!
//! **Players.** Move `k` belongs to player `k mod P`. The linking pass has
//! already dropped every neighbour of another player from each move's mask
//! (`Solver::link`), so the union-find joins a player's own stones only and
//! Euler's count `E - V + C - T` of one player's stones, kept per player,
//! is positive exactly when some cell holding no stone of that player's is
//! cut off from the outside by its stones (the module page's argument, with
//! "stone" read as "stone of the player's"). Another player's move cannot
//! form a player's structure, so only the mover's structures are checked.
//!
//! **Lines.** Each placed stone keeps its stone neighbours of its own
//! player in all six directions (`adj`, filled in both ways as stones are
//! placed); a move's line along an axis is one plus the steps in each of
//! the two opposite directions, each walk stopped at the longest line any
//! structure asks for.

use crate::engines::connection::read::Stone;
use crate::engines::connection::solve::{Joined, Play};
use crate::engines::connection::{Connection, Extra};

/// No neighbour in this direction (yet).
const NONE: u32 = u32::MAX;

/// The per-player counters and the lines' neighbour table of one case.
#[derive(Default)]
pub(crate) struct General {
    /// Per player: `E - V + C - T` of its stones.
    holes: Vec<i64>,
    /// Per player: its stones with six stone neighbours of its own.
    surrounded: Vec<u64>,
    /// Per placed stone: its own player's neighbours by direction (kept
    /// only when a structure is a line).
    adj: Vec<[u32; 6]>,
}

impl General {
    /// An empty board for `moves` moves.
    pub(super) fn start(&mut self, extra: &Extra, moves: usize) {
        self.holes.clear();
        self.holes.resize(extra.players, 0);
        self.surrounded.clear();
        self.surrounded.resize(extra.players, 0);
        self.adj.clear();
        if !extra.lines.is_empty() {
            self.adj.resize(moves, [NONE; 6]);
        }
    }

    /// `E - V + C - T` of player `p`'s stones (for tests).
    #[cfg(test)]
    pub(super) fn holes_of(&self, p: usize) -> i64 {
        self.holes[p]
    }

    /// Places move `k` and returns the structures its player has after it.
    pub(super) fn place(
        &mut self,
        play: &mut Play<'_>,
        conn: &Connection,
        extra: &Extra,
        k: usize,
        stone: Stone,
    ) -> u64 {
        let p = k % extra.players;
        let Joined { touched, n, merged, triangles } = play.join(conn, k, stone);
        let m = play.mask[k] as u32;
        let near = &play.near[k];
        let around = !play.around.is_empty();
        if around {
            let mut rest = m;
            while rest != 0 {
                let j = near[rest.trailing_zeros() as usize] as usize;
                rest &= rest - 1;
                play.around[j] += 1;
                if play.around[j] == 6 {
                    self.surrounded[p] += 1;
                }
            }
            play.around[k] = n;
            if n == 6 {
                self.surrounded[p] += 1;
            }
        }
        self.holes[p] += n as i64 - merged as i64 - triangles as i64;
        let mut found = conn.connected(touched);
        if self.holes[p] > 0 {
            found |= conn.any_bits;
        } else if around && self.surrounded[p] > 0 {
            found |= conn.any_bits & !conn.empty_bits;
        }
        if !self.adj.is_empty() {
            found |= self.lines(extra, k, m, near);
        }
        found
    }

    /// Links move `k` to its own earlier neighbours both ways and returns
    /// the line structures its longest line satisfies.
    fn lines(&mut self, extra: &Extra, k: usize, mut m: u32, near: &[u32; 6]) -> u64 {
        while m != 0 {
            let d = m.trailing_zeros() as usize;
            m &= m - 1;
            let j = near[d];
            self.adj[k][d] = j;
            self.adj[j as usize][(d + 3) % 6] = k as u32;
        }
        let cap = extra.longest;
        let mut longest = 1;
        for axis in 0..3 {
            let len = 1 + self.walk(k, axis, cap) + self.walk(k, axis + 3, cap);
            longest = longest.max(len);
        }
        extra.lines.iter().filter(|&&(_, length)| longest >= length).fold(0, |acc, &(bit, _)| acc | bit)
    }

    /// Stones of the same player's in a row from `k` in direction `d`
    /// (`k` not counted), at most `cap`.
    fn walk(&self, k: usize, d: usize, cap: u32) -> u32 {
        let (mut at, mut steps) = (k, 0);
        while steps < cap {
            let next = self.adj[at][d];
            if next == NONE {
                break;
            }
            at = next as usize;
            steps += 1;
        }
        steps
    }
}
