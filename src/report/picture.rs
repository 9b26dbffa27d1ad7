//! Pictures of explanations drawn in the terminal: Unicode text, with ANSI
//! colours when the terminal has them (`--color`, `NO_COLOR`). Every mark
//! has a glyph of its own, so a picture reads the same without colour.

use crate::game::picture::{Cells, Layout, Mark, Picture, Piles, Tower};

/// The picture as lines of text, each ending with a newline.
pub fn text(p: &Picture, colour: bool) -> String {
    let paint = Paint(colour);
    match p {
        Picture::Cells(c) => cells(c, paint),
        Picture::Tower(t) => tower(t, paint),
        Picture::Piles(p) => piles(p, paint),
    }
}

/// ANSI colours, or none.
#[derive(Clone, Copy)]
struct Paint(bool);

/// Colours of players' stones, of triangles' owners and of card colours,
/// by index.
const STONE_SGR: [&str; 6] = ["1", "1;34", "1;32", "1;35", "1;36", "1;33"];
const OWNER_SGR: [&str; 6] = ["1;31", "1;34", "1;32", "1;35", "1;36", "1;33"];
const CARD_SGR: [&str; 4] = ["31", "34", "32", "35"];

impl Paint {
    fn with(self, sgr: &str, s: &str) -> String {
        if self.0 && !s.is_empty() {
            format!("\x1b[{sgr}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
}

/// Stones of players not in the structure, by player.
const PLAYER_GLYPHS: [char; 16] = ['○', '×', '△', '□', '◇', '▽', '+', '∗', '⊕', '⊗', '⊙', '◁', '▷', '♢', '☆', '■'];

fn glyph(m: Mark, paint: Paint) -> String {
    match m {
        Mark::Empty => paint.with("2", "·"),
        Mark::Enclosed => paint.with("1;36", "◌"),
        Mark::Stone { last: true, .. } => paint.with("1;31", "◉"),
        Mark::Stone { part: true, .. } => paint.with("1;33", "●"),
        Mark::Stone { player, .. } => {
            let g = PLAYER_GLYPHS[player as usize % PLAYER_GLYPHS.len()].to_string();
            paint.with(STONE_SGR[player as usize % STONE_SGR.len()], &g)
        }
    }
}

fn cells(c: &Cells, paint: Paint) -> String {
    // In rows a position is one character; in columns, three.
    let step = match c.layout {
        Layout::Rows => 1,
        Layout::Columns => 3,
    };
    let label_width = c.line_labels.iter().map(String::len).max().unwrap_or(0);
    let mut out = format!("{} ({})\n", c.title, c.axes);
    let mut line: Vec<String> = Vec::new();
    let mut at = 0;
    for l in 0..c.lines {
        line.clear();
        line.resize(c.across as usize * step, " ".to_string());
        while at < c.cells.len() && c.cells[at].line == l {
            line[c.cells[at].pos as usize * step] = glyph(c.cells[at].mark, paint);
            at += 1;
        }
        let text = line.concat();
        match c.line_labels.get(l as usize) {
            Some(label) => out.push_str(&format!("  {label:>label_width$} │ {}\n", text.trim_end())),
            None => out.push_str(&format!("    {}\n", text.trim_end())),
        }
    }
    out.push_str(&format!("  {}\n", legend(c, paint)));
    out
}

/// What each glyph on the board means, for the glyphs it shows.
fn legend(c: &Cells, paint: Paint) -> String {
    let has = |f: &dyn Fn(Mark) -> bool| c.cells.iter().any(|x| f(x.mark));
    let mut items: Vec<String> = Vec::new();
    if has(&|m| matches!(m, Mark::Stone { last: true, .. })) {
        items.push(format!(
            "{} the move that formed {}",
            glyph(Mark::Stone { player: 0, part: true, last: true }, paint),
            c.structure
        ));
    }
    if has(&|m| matches!(m, Mark::Stone { part: true, last: false, .. })) {
        items.push(format!("{} its stones", glyph(Mark::Stone { player: 0, part: true, last: false }, paint)));
    }
    if has(&|m| m == Mark::Enclosed) {
        items.push(format!("{} enclosed", glyph(Mark::Enclosed, paint)));
    }
    for p in 0..c.players {
        if has(&|m| matches!(m, Mark::Stone { player, part: false, last: false } if player == p)) {
            let whose = if c.players > 1 { format!("player {}'s stones", p + 1) } else { "stones".to_string() };
            let g = glyph(Mark::Stone { player: p, part: false, last: false }, paint);
            items.push(format!("{g} {}{whose}", if c.structure.is_empty() { "" } else { "other " }));
        }
    }
    items.push(format!("{} empty", glyph(Mark::Empty, paint)));
    items.join("  ")
}

/// A label centred on column `at` of a line (columns counted in
/// characters), written over what is there.
fn put(line: &mut Vec<String>, at: usize, label: &[String]) {
    let start = at.saturating_sub(label.len() / 2);
    if line.len() < start + label.len() {
        line.resize(start + label.len(), " ".to_string());
    }
    for (i, g) in label.iter().enumerate() {
        line[start + i] = g.clone();
    }
}

/// Characters of `s`, painted as one.
fn chars(s: &str, sgr: Option<&str>, paint: Paint) -> Vec<String> {
    s.chars().map(|c| sgr.map_or_else(|| c.to_string(), |sgr| paint.with(sgr, &c.to_string()))).collect()
}

fn tower(t: &Tower, paint: Paint) -> String {
    let owner_label = |tri: &crate::game::picture::Triangle, up: bool| {
        format!(
            "{} {} {}",
            if up { '▲' } else { '▼' },
            t.players.get(tri.owner).map_or("?", String::as_str),
            tri.points
        )
    };
    let widest = t
        .peaks
        .iter()
        .map(|p| p.left.name.chars().count() + p.right.name.chars().count() + 3)
        .chain(t.peaks.iter().filter_map(|p| p.triangle.as_ref()).map(|tri| owner_label(tri, true).chars().count()))
        .chain(t.floors.iter().map(|f| f.card.name.chars().count() + 6))
        .chain(t.floors.iter().filter_map(|f| f.triangle.as_ref()).map(|tri| owner_label(tri, false).chars().count()))
        .max()
        .unwrap_or(4);
    // Peak `i` of level `l` is centred at half-unit `2i + l + 1`.
    let half = widest / 2 + 2;
    let x = |level: usize, place: usize| (2 * place + level + 1) * half;
    let card_sgr = |c: usize| CARD_SGR[c % CARD_SGR.len()];
    let owner_sgr = |o: usize| OWNER_SGR[o % OWNER_SGR.len()];
    let top = t.peaks.iter().map(|p| p.level).chain(t.floors.iter().map(|f| f.level + 1)).max().unwrap_or(0);
    let margin = format!("level {}", top + 1).len() + 1;
    let mut out = format!("house of {} base peaks, level by level (▲ ▼: a triangle's owner and points)\n", t.base);
    let mut emit = |name: String, line: Vec<String>| {
        if line.iter().any(|g| g != " ") {
            out.push_str(&format!("  {name:<margin$}│{}\n", line.concat().trim_end()));
        }
    };
    for level in (0..=top).rev() {
        let (mut peaks, mut ups) = (Vec::new(), Vec::new());
        for p in t.peaks.iter().filter(|p| p.level == level) {
            let mut label = chars("╱", None, paint);
            label.extend(chars(&p.left.name, Some(card_sgr(p.left.colour)), paint));
            label.push(" ".into());
            label.extend(chars(&p.right.name, Some(card_sgr(p.right.colour)), paint));
            label.extend(chars("╲", None, paint));
            put(&mut peaks, x(level, p.place), &label);
            if let Some(tri) = &p.triangle {
                put(&mut ups, x(level, p.place), &chars(&owner_label(tri, true), Some(owner_sgr(tri.owner)), paint));
            }
        }
        emit(format!("level {}", level + 1), peaks);
        emit(String::new(), ups);
        if level == 0 {
            break;
        }
        let (mut floors, mut downs) = (Vec::new(), Vec::new());
        for f in t.floors.iter().filter(|f| f.level == level - 1) {
            let mut label = chars("══ ", None, paint);
            label.extend(chars(&f.card.name, Some(card_sgr(f.card.colour)), paint));
            label.extend(chars(" ══", None, paint));
            put(&mut floors, x(level, f.place), &label);
            if let Some(tri) = &f.triangle {
                put(&mut downs, x(level, f.place), &chars(&owner_label(tri, false), Some(owner_sgr(tri.owner)), paint));
            }
        }
        emit(String::new(), floors);
        emit(String::new(), downs);
    }
    out
}

fn piles(p: &Piles, paint: Paint) -> String {
    let scanned = p.piles.iter().enumerate().any(|(k, pile)| pile.examined != k + 1);
    let label = |k: usize| -> (String, usize) {
        match p.piles.get(k) {
            Some(pile) => {
                let order = if scanned { format!("#{} ", pile.examined) } else { String::new() };
                let count = format!("{order}×{}", pile.cards);
                let width = pile.top.name.chars().count() + 1 + count.chars().count();
                let name = paint.with(CARD_SGR[pile.top.colour % CARD_SGR.len()], &pile.top.name);
                (format!("{name} {}", paint.with("2", &count)), width)
            }
            None => (String::new(), 0),
        }
    };
    let columns = p.columns.max(1);
    let rows = p.rows.max(p.piles.len().div_ceil(columns)).max(1);
    let width = (0..rows * columns).map(|k| label(k).1).max().unwrap_or(0) + 2;
    let rule = |l: &str, m: &str, r: &str| format!("  {l}{}{r}\n", vec!["─".repeat(width); columns].join(m));
    let order = if scanned { ", #: the order piles are examined" } else { "" };
    let mut out = format!(
        "{} of {} piles in {rows} row{} of {columns} (each pile's top card, × its cards{order})\n",
        p.piles.len(),
        rows * columns,
        if rows == 1 { "" } else { "s" }
    );
    out.push_str(&rule("┌", "┬", "┐"));
    for r in 0..rows {
        let cells: Vec<String> = (0..columns)
            .map(|c| {
                let (text, w) = label(r * columns + c);
                format!(" {text}{} ", " ".repeat(width - 2 - w))
            })
            .collect();
        out.push_str(&format!("  │{}│\n", cells.join("│")));
        out.push_str(&if r + 1 < rows { rule("├", "┼", "┤") } else { rule("└", "┴", "┘") });
    }
    if let Some((at, card)) = &p.left_over {
        let name = paint.with(CARD_SGR[card.colour % CARD_SGR.len()], &card.name);
        out.push_str(&format!("  card {at} ({name}) found no pile\n"));
    }
    out
}
