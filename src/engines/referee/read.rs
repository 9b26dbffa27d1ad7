//! Reading frames: the count line, then per frame the players' names and
//! stroke lines (with `Play again` and a lot after a tie), refereed as they
//! are read: a frame ends when the rules say so.

use crate::diag::did_you_mean;
use crate::game::records::{self, Counted};
use crate::game::{Input, InputError, Line, Mark, Output, RunError, Token};
use crate::template::NoFields;

use super::memo::Memo;
use super::words::{self, Split, NOT_A_BALL, UNKNOWN};
use super::{
    Ending, EndingFields, Event, FrameFields, Next, PlayerFields, Referee, Rendered, RespotFields, ScoreFields,
    ScoreOverflow, State, Stroke, StrokeResult, TurnLines, MAX_BALLS, MAX_FRAMES, MAX_SCORE,
};

impl Referee {
    /// The stroke on `line`, whose first word is bytes `first.0..first.1`
    /// and means `first.2`, the rest of its words in `words`, checked
    /// against the table. `taken` is all zeros, and is again after.
    #[inline(always)]
    pub(super) fn read_stroke(
        &self,
        line: &Line,
        first: (usize, usize, words::Meaning),
        words: &mut Split,
        st: &State,
        taken: &mut [u32; MAX_BALLS],
        stroke: &mut Stroke,
    ) -> Result<(), InputError> {
        let text = line.text.as_bytes();
        let token =
            |start: usize, end: usize| Token { text: &line.text[start..end], offset: line.offset + start, line: *line };
        stroke.potted.clear();
        let (start, at, m) = first;
        stroke.first = if m.no_hit {
            None
        } else if m.ball == NOT_A_BALL {
            return Err(self.unknown_ball(&token(start, at), true));
        } else {
            let b = m.ball as usize;
            if b == self.cue {
                let t = token(start, at);
                return Err(t
                    .error(format!("`{}` is the cue ball: it cannot be the ball hit first", t.text))
                    .with_help(format!("write `{}` when the cue ball hits no ball", self.no_hit)));
            }
            if st.counts[b] == 0 {
                let t = token(start, at);
                return Err(t.error(format!("`{}` is not on the table: it cannot be hit", t.text)));
            }
            Some(b)
        };
        let mut result = Ok(());
        while let Some((start, at, key)) = words.next_word() {
            let b = self.words.get(key, &text[start..at]).ball;
            if b == NOT_A_BALL {
                result = Err(self.unknown_ball(&token(start, at), false));
                break;
            }
            let b = b as usize;
            taken[b] += 1;
            if taken[b] > st.counts[b] {
                let (left, potted) = (st.counts[b], taken[b]);
                taken[b] -= 1;
                let t = token(start, at);
                result = Err(t.error(if left == 0 {
                    format!("`{}` is not on the table: it cannot be potted", t.text)
                } else {
                    format!(
                        "`{}` is potted {potted} times, but only {left} {} on the table",
                        t.text,
                        if left == 1 { "is" } else { "are" }
                    )
                }));
                break;
            }
            stroke.potted.push(b);
        }
        for &b in &stroke.potted {
            taken[b] = 0;
        }
        result
    }

    /// The stroke on `line` into `stroke` (see [`Referee::read_stroke`]),
    /// from `seen` when the line was read before and its balls are on the
    /// table; false, and `stroke` untouched, when it is the play-again line.
    #[inline(always)]
    fn stroke_line(
        &self,
        line: &Line,
        seen: &mut words::Seen,
        st: &State,
        taken: &mut [u32; MAX_BALLS],
        stroke: &mut Stroke,
    ) -> Result<bool, InputError> {
        let text = line.text.as_bytes();
        if seen.get(text).is_some_and(|(hit, potted)| on_table(st, hit, potted, taken, stroke)) {
            return Ok(true);
        }
        let mut words = Split::new(text);
        let first = words.next_word().map(|(start, end, key)| (start, end, self.words.get(key, &text[start..end])));
        let first = first.unwrap_or((0, 0, UNKNOWN));
        if first.2.again && self.is_play_again(line) {
            return Ok(false);
        }
        self.read_stroke(line, first, &mut words, st, taken, stroke)?;
        if !first.2.again {
            seen.put(text, stroke.first, &stroke.potted);
        }
        Ok(true)
    }

    pub(super) fn ball(&self, text: &str) -> Option<usize> {
        let b = self.words.meaning(text).ball;
        (b != NOT_A_BALL).then_some(b as usize)
    }

    pub(super) fn unknown_ball(&self, tok: &Token, first: bool) -> InputError {
        let what = if first { format!("a ball or `{}`", self.no_hit) } else { "a ball".to_string() };
        let e = tok.error(format!("expected {what}, found {}", tok.quoted()));
        let names = self.names.iter().map(String::as_str).chain(first.then_some(self.no_hit.as_str()));
        match did_you_mean(tok.text, names) {
            Some(s) => e.with_help(format!("did you mean `{s}`?")),
            None => e.with_help(format!("the balls are {}", self.names.join(" "))),
        }
    }

    pub(super) fn is_play_again(&self, line: &Line) -> bool {
        let mut toks = line.tokens();
        self.play_again.iter().all(|w| toks.next().is_some_and(|t| t.text == w)) && toks.next().is_none()
    }

    /// Where frames end, without refereeing them (see `Cases::boundary`):
    /// the statement puts a blank line before every frame, so a blank line
    /// after a frame's lines is taken to end it (`within` is 1 inside a
    /// frame). Blank lines may also stand inside a frame, and a frame may
    /// come without one: a part cut there does not end where marked, and
    /// the driver reads it again on one thread.
    #[inline]
    pub(super) fn frame_boundary(&self, frames: &mut Counted, within: &mut u64, line: &[u8]) -> Mark {
        if let Some(mark) = frames.boundary(line, MAX_FRAMES) {
            return mark;
        }
        if !records::is_blank(line) {
            *within = 1;
            return Mark::Inside;
        }
        if *within == 0 {
            return Mark::Inside;
        }
        frames.count_case();
        Mark::Last
    }

    /// Reads the line naming frame `k`'s two players into `players` (of
    /// `total` frames): two different names, not a stroke.
    fn read_players(&self, input: &mut Input, k: u64, total: u64, players: &mut [String; 2]) -> Result<(), RunError> {
        let names_line = input.next_nonblank_or(|input| {
            input
                .error_at_end(format!("expected the players of frame {k}, found end of input"))
                .with_help(format!("the first line says there are {total} frames"))
        })?;
        let mut toks = names_line.tokens();
        let (Some(a), Some(b)) = (toks.next(), toks.next()) else {
            let e = names_line.error_at_end(format!("expected the names of the two players of frame {k}"));
            return Err(
                if k > 1 && names_line.tokens().all(|t| self.ball(t.text).is_some() || t.text == self.no_hit) {
                    e.with_help(format!("frame {} has already ended; is this a stroke?", k - 1))
                } else {
                    e
                }
                .into(),
            );
        };
        if let Some(extra) = toks.next() {
            return Err(extra.error("expected two player names, found a third word").into());
        }
        if self.ball(a.text).is_some() && a.text == b.text {
            return Err(names_line
                .error(format!("expected the players of frame {k}, found a stroke"))
                .with_help(if k > 1 {
                    format!("frame {} has already ended", k - 1)
                } else {
                    "a frame starts with the names of its two players".to_string()
                })
                .into());
        }
        if a.text == b.text {
            return Err(b.error(format!("the two players are both named {}", b.quoted())).into());
        }
        players[0].clear();
        players[0].push_str(a.text);
        players[1].clear();
        players[1].push_str(b.text);
        Ok(())
    }

    /// The line that says how the frame ended (a tie's line, if any, when
    /// it is replayed).
    fn ending_line(&self, buf: &mut Vec<u8>, ending: Ending, players: [&str; 2], scores: [i64; 2]) {
        match ending {
            Ending::Rule { rule, winner } => {
                let (player, loser) = winner.map_or(("", ""), |w| (players[w], players[1 - w]));
                let fields = EndingFields { player, loser, first: scores[0], second: scores[1] };
                self.endings[rule].output.line(buf, &fields);
            }
            Ending::Win(w) => self.out.wins.line(buf, &PlayerFields { player: players[w] }),
            Ending::Draw => {
                if let Some(d) = &self.out.draw {
                    d.line(buf, &NoFields);
                }
            }
            Ending::Replay => {
                if let Some(t) = &self.out.tie {
                    t.line(buf, &NoFields);
                }
            }
        }
    }

    /// Who plays again, from in hand or not, when `line` asks the offender
    /// of the last stroke to: `last_foul`, or an error when the last stroke
    /// was not one after which that may be asked.
    fn play_again_after(&self, line: &Line, last_foul: Option<(usize, bool)>) -> Result<(usize, bool), RunError> {
        last_foul.ok_or_else(|| {
            line.error(format!("`{}` may not follow this stroke", self.play_again.join(" ")))
                .with_help("it may follow a stroke after which the rule file's `play-again-after` holds (a foul), once")
                .into()
        })
    }

    /// The foul and score lines of a stroke on `line`; then, when the
    /// stroke left no object ball on the table and did not end the frame,
    /// the run's error.
    #[inline(always)]
    fn score_lines(&self, buf: &mut Vec<u8>, o: &StrokeResult, st: &State, line: &Line) -> Result<(), RunError> {
        if o.foul {
            self.out.foul.line(buf, &NoFields);
        }
        // The scores are read one at a time: one was just stored, and a
        // load of both would wait for that store.
        let first = std::hint::black_box(st.scores[0]);
        self.out.score.line(buf, &ScoreFields { first, second: st.scores[1] });
        if o.ending.is_none() && st.left == 0 {
            return Err(stuck(line));
        }
        Ok(())
    }

    /// The respot line of each ball alone, rendered once.
    fn respot_one_lines(&self) -> Rendered {
        let mut lines = Rendered::default();
        for name in &self.names {
            lines.push(|buf| self.out.respot.line(buf, &RespotFields { balls: &[name.as_str()] }));
        }
        lines
    }

    /// Reads and referees up to `limit` frames (every one when `None`),
    /// from the state `frames` (left after the last one), rendering the
    /// lines straight into `out`'s buffer (handed over at the end of each
    /// frame, and within a frame whenever [`Output::flush_if_full`] finds
    /// it full) and reporting to `see` as it goes, with the lines written
    /// since the last report. The number of frames refereed.
    pub fn run_frames<const TRACE: bool>(
        &self,
        input: &mut Input,
        frames: &mut Counted,
        limit: Option<u64>,
        memo: &mut Memo,
        out: &mut Output,
        see: &mut impl FnMut(Event<'_>, &[u8]) -> Result<(), RunError>,
    ) -> Result<u64, RunError> {
        let mark = std::cell::Cell::new(out.buffer().len());
        // `run` passes TRACE = false: no report costs anything there.
        let mut report = |e: Event<'_>, buf: &[u8]| -> Result<(), RunError> {
            if TRACE {
                see(e, &buf[mark.get().min(buf.len())..])?;
                mark.set(buf.len());
            }
            Ok(())
        };
        let (limit, mut done) = (limit.unwrap_or(u64::MAX), 0);
        let mut taken = [0u32; MAX_BALLS];
        let mut stroke = Stroke { first: None, potted: Vec::new() };
        let mut players = [String::new(), String::new()];
        let mut st = self.start();
        let mut turns = TurnLines::default();
        let mut respotted: Vec<&str> = Vec::new();
        let respot_one = self.respot_one_lines();
        let mut seen = words::Seen::new();
        while done < limit {
            let Some(k) = frames.next(input, "frame", MAX_FRAMES)? else { break };
            self.read_players(input, k, frames.total(), &mut players)?;
            let players = [players[0].as_str(), players[1].as_str()];
            turns.render(self, players);
            let buf = out.buffer();
            if k > 1 {
                self.out.between.line(buf, &NoFields);
            }
            self.out.frame.line(buf, &FrameFields { frame: k as i64 });
            self.restart(&mut st);
            turns.write(buf, 0, true);
            report(Event::Frame { frame: k }, buf)?;
            // After a foul: (offender, in hand) while "play again" may come.
            let mut last_foul: Option<(usize, bool)> = None;
            loop {
                if out.flush_if_full()? {
                    // A long frame: what is reported so far is written.
                    mark.set(0);
                }
                let line = input.next_nonblank_or(|input| {
                    input
                        .error_at_end(format!("expected a stroke, found end of input: frame {k} has not ended"))
                        .with_help("the rule file's `end` says which stroke ends a frame")
                })?;
                if !self.stroke_line(&line, &mut seen, &st, &mut taken, &mut stroke)? {
                    let (offender, in_hand) = self.play_again_after(&line, last_foul.take())?;
                    st.player = offender;
                    st.in_hand = in_hand;
                    st.visit_over = true;
                    turns.write(out.buffer(), offender, in_hand);
                    report(Event::PlayAgain { player: offender, players }, out.buffer())?;
                    continue;
                }
                let striker = st.player;
                report(Event::Before { st: &st, stroke: &stroke }, out.buffer())?;
                let o = self.stroke_memo(&mut st, &stroke, memo).map_err(|ScoreOverflow| overflow(&line))?;
                let buf = out.buffer();
                self.score_lines(buf, &o, &st, &line)?;
                last_foul = o.play_again.then_some((striker, st.in_hand));
                if let Some(ending) = o.ending {
                    // An `ending` is judged after the stroke's respots.
                    if matches!(ending, Ending::Rule { .. }) && o.respot != 0 {
                        self.respot_line(buf, &mut respotted, &respot_one, &o, &stroke, &st);
                    }
                    self.ending_line(buf, ending, players, st.scores);
                    if ending != Ending::Replay {
                        report(Event::Stroke { outcome: &o, striker, st: &st, players }, buf)?;
                        break;
                    }
                    if o.respot != 0 {
                        self.respot_line(buf, &mut respotted, &respot_one, &o, &stroke, &st);
                    }
                    if self.tie.next == Next::Lot {
                        report(Event::Stroke { outcome: &o, striker, st: &st, players }, buf)?;
                        let p = read_lot(input, players)?;
                        st.player = p;
                        turns.write(out.buffer(), p, st.in_hand);
                        report(Event::Lot { player: p, players }, out.buffer())?;
                    } else {
                        turns.write(buf, st.player, st.in_hand);
                        report(Event::Stroke { outcome: &o, striker, st: &st, players }, buf)?;
                    }
                    continue;
                }
                if o.respot != 0 {
                    self.respot_line(buf, &mut respotted, &respot_one, &o, &stroke, &st);
                }
                if o.turn_ends {
                    turns.write(buf, st.player, st.in_hand);
                }
                report(Event::Stroke { outcome: &o, striker, st: &st, players }, buf)?;
            }
            // The frame is over: it is one case of the output.
            out.end_case()?;
            mark.set(out.buffer().len());
            done += 1;
        }
        Ok(done)
    }
}

/// The stroke of a line read before (`hit`, `potted`: what its words
/// name) when its balls are on the table, into `stroke`; false when they
/// are not (the line is then read again, for its error, as
/// [`Referee::read_stroke`] reads it).
#[inline(always)]
fn on_table(st: &State, hit: Option<usize>, potted: &[u8], taken: &mut [u32; MAX_BALLS], stroke: &mut Stroke) -> bool {
    if hit.is_some_and(|b| st.counts[b] == 0) {
        return false;
    }
    let mut fits = true;
    for &b in potted {
        let b = b as usize;
        taken[b] += 1;
        fits &= taken[b] <= st.counts[b];
    }
    for &b in potted {
        taken[b as usize] = 0;
    }
    if fits {
        stroke.first = hit;
        stroke.potted.clear();
        stroke.potted.extend(potted.iter().map(|&b| b as usize));
    }
    fits
}

/// Reads, after a tie, the line naming the player who won the lot: their
/// index in `players`.
fn read_lot(input: &mut Input, players: [&str; 2]) -> Result<usize, RunError> {
    let lot = input.next_nonblank_or(|input| {
        input.error_at_end(format!(
            "expected the name of the player who won the lot ({} or {}), found end of input",
            players[0], players[1]
        ))
    })?;
    let name = lot.trimmed();
    let Some(p) = players.iter().position(|n| *n == name) else {
        return Err(lot
            .error(format!(
                "expected the name of the player who won the lot, found {}",
                crate::game::input::quote(name)
            ))
            .with_help(format!("after a tie, a line names `{}` or `{}`", players[0], players[1]))
            .into());
    };
    Ok(p)
}

/// The error of a stroke on `line` that takes a score past what arbiter keeps.
fn overflow(line: &Line) -> RunError {
    RunError::Limit(format!(
        "line {}: the stroke takes a score past {MAX_SCORE}, the largest arbiter keeps",
        line.number
    ))
}

/// The error of a stroke on `line` that empties the table without ending
/// the frame (`check` refuses the rule files it finds can do this).
fn stuck(line: &Line) -> RunError {
    RunError::Limit(format!(
        "line {}: the stroke leaves no object ball on the table, and neither the rule file's `end` nor an `ending` \
         ends the frame: it could never end",
        line.number
    ))
}
