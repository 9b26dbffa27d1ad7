//! Pictures of explanations as SVG (`arbiter run --explain --format svg`):
//! one document for a run, a section per explained output line stacked top
//! to bottom (its output line, its summary, its picture and a legend), drawn
//! from the same picture model as the terminal's. Colours are fixed per
//! index (players, card colours), never per game.

use std::fmt::Write;

use crate::game::picture::{Cells, Layout, Mark, Picture, Piles, Tower};
use crate::game::Explanation;

/// Fills of players' stones and of triangles' owners, by index.
pub const PLAYER_FILL: [&str; 6] = ["#1b1b1b", "#f4f4f4", "#c0392b", "#2e86c1", "#27ae60", "#8e44ad"];
/// Fills of triangles by owner (lighter, so that the cards show on them).
pub const OWNER_FILL: [&str; 6] = ["#f5b7b1", "#aed6f1", "#abebc6", "#d7bde2", "#fad7a0", "#d5dbdb"];
/// Strokes and text of cards, by the card's colour.
pub const CARD_COLOUR: [&str; 4] = ["#c0392b", "#1f3a93", "#1e8449", "#7d3c98"];
/// A board's empty cells, the cells a structure encloses, the cells of
/// the structure's stones, and the dot on the move that decided.
pub const BOARD_FILL: &str = "#f3e5c0";
pub const ENCLOSED_FILL: &str = "#7fcbe0";
pub const STRUCTURE_FILL: &str = "#f1c40f";
pub const LAST_DOT: &str = "#e74c3c";
/// The table piles lie on, and a card's face.
pub const TABLE_FILL: &str = "#35654d";
pub const CARD_FACE: &str = "#fdfdfd";

/// Circumradius of a board's hexagon, in pixels.
pub const HEX_RADIUS: f64 = 14.0;
/// Width of a unit of the house (a peak's base), and a level's height.
pub const PEAK_WIDTH: f64 = 64.0;
pub const LEVEL_HEIGHT: f64 = 56.0;
/// A pile's place in the grid, and the card drawn in it.
pub const PILE_WIDTH: f64 = 64.0;
pub const PILE_HEIGHT: f64 = 84.0;
/// Margin around a picture, and the height of the section's text lines.
pub const MARGIN: f64 = 12.0;
pub const TEXT_LINE: f64 = 18.0;

/// One case's part of the document: its size and its elements, drawn
/// from its own top left corner.
#[derive(Debug, Clone)]
pub struct Section {
    pub width: f64,
    pub height: f64,
    body: String,
}

impl Section {
    /// The bytes of SVG it adds to the document.
    pub fn bytes(&self) -> usize {
        self.body.len()
    }
}

/// Escapes text for SVG (XML) content and attributes.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

fn text(out: &mut String, x: f64, y: f64, size: f64, fill: &str, anchor: &str, s: &str) {
    let _ = write!(
        out,
        r#"<text x="{x:.1}" y="{y:.1}" font-family="sans-serif" font-size="{size}" fill="{fill}" text-anchor="{anchor}">{}</text>"#,
        esc(s)
    );
    out.push('\n');
}

/// A section for one explanation: its output line and summary as a
/// heading, then its picture (if any), then the picture's legend.
pub fn section(e: &Explanation) -> Section {
    let mut body = String::new();
    let mut y = MARGIN + 14.0;
    text(&mut body, MARGIN, y, 15.0, "#000", "start", &e.output);
    y += TEXT_LINE;
    text(&mut body, MARGIN, y, 12.0, "#444", "start", &e.summary);
    y += 6.0;
    let (w, h, legend) = match &e.picture {
        Some(p) => {
            let _ = write!(body, r#"<g transform="translate({MARGIN:.1} {y:.1})">"#);
            body.push('\n');
            let (w, h, legend) = match p {
                Picture::Cells(c) => cells(&mut body, c),
                Picture::Tower(t) => tower(&mut body, t),
                Picture::Piles(p) => piles(&mut body, p),
            };
            body.push_str("</g>\n");
            (w, h, legend)
        }
        None => (0.0, 0.0, String::new()),
    };
    y += h;
    if !legend.is_empty() {
        y += TEXT_LINE;
        text(&mut body, MARGIN, y, 12.0, "#444", "start", &legend);
    }
    let width = (w + 2.0 * MARGIN).max(8.0 * e.output.chars().count().max(e.summary.chars().count()) as f64 * 0.8);
    Section { width, height: y + MARGIN, body }
}

/// The whole document: the sections one under the other, on white.
pub fn document(sections: &[Section]) -> String {
    let width = sections.iter().map(|s| s.width).fold(100.0, f64::max).ceil();
    let height = sections.iter().map(|s| s.height).sum::<f64>().max(20.0).ceil();
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\">\n\
         <rect width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>\n"
    );
    let mut y = 0.0;
    for (i, s) in sections.iter().enumerate() {
        let _ = writeln!(out, r#"<g id="case-{}" transform="translate(0 {y:.1})">"#, i + 1);
        out.push_str(&s.body);
        out.push_str("</g>\n");
        y += s.height;
    }
    out.push_str("</svg>\n");
    out
}

/// The centre of a board cell drawn at `line`, `pos` in `layout`, in the
/// picture's own pixels.
pub fn cell_centre(layout: Layout, line: u32, pos: u32) -> (f64, f64) {
    let half = HEX_RADIUS * 3f64.sqrt() / 2.0;
    match layout {
        Layout::Rows => (half * (pos as f64 + 1.0), HEX_RADIUS * (1.0 + 1.5 * line as f64)),
        Layout::Columns => (HEX_RADIUS * (1.0 + 1.5 * pos as f64), half * (line as f64 + 1.0)),
    }
}

/// A hexagon with a point on top (rows) or a flat top (columns).
fn hexagon(out: &mut String, layout: Layout, (cx, cy): (f64, f64), fill: &str) {
    let turn = match layout {
        Layout::Rows => std::f64::consts::PI / 6.0,
        Layout::Columns => 0.0,
    };
    let pts: Vec<String> = (0..6)
        .map(|k| {
            let a = std::f64::consts::PI / 3.0 * k as f64 + turn;
            format!("{:.2},{:.2}", cx + HEX_RADIUS * a.cos(), cy + HEX_RADIUS * a.sin())
        })
        .collect();
    let _ = writeln!(out, r##"<polygon points="{}" fill="{fill}" stroke="#8a7a55" stroke-width="1"/>"##, pts.join(" "));
}

fn cells(out: &mut String, c: &Cells) -> (f64, f64, String) {
    for cell in &c.cells {
        let centre = cell_centre(c.layout, cell.line, cell.pos);
        let fill = match cell.mark {
            Mark::Enclosed => ENCLOSED_FILL,
            Mark::Stone { part: true, .. } => STRUCTURE_FILL,
            _ => BOARD_FILL,
        };
        hexagon(out, c.layout, centre, fill);
        let (x, y) = centre;
        if let Mark::Stone { player, last, .. } = cell.mark {
            let _ = writeln!(
                out,
                r##"<circle cx="{x:.2}" cy="{y:.2}" r="{:.2}" fill="{}" stroke="#555" stroke-width="1"><title>{} {}</title></circle>"##,
                HEX_RADIUS * 0.6,
                PLAYER_FILL[player as usize % PLAYER_FILL.len()],
                cell.at.0,
                cell.at.1
            );
            if last {
                let _ = writeln!(
                    out,
                    r#"<circle cx="{x:.2}" cy="{y:.2}" r="{:.2}" fill="{LAST_DOT}"/>"#,
                    HEX_RADIUS * 0.25
                );
            }
        }
    }
    let (w, h) = cell_centre(c.layout, c.lines, c.across);
    let mut legend = c.title.clone();
    if !c.structure.is_empty() {
        legend.push_str(&format!(": {} in gold, the deciding move dotted", c.structure));
        if c.cells.iter().any(|x| x.mark == Mark::Enclosed) {
            legend.push_str(", the cells it encloses in blue");
        }
    }
    (w, h, legend)
}

/// The corners of peak `place` of `level` in a house whose base lies at
/// `base_y`: left foot, apex, right foot.
pub fn peak_corners(level: usize, place: usize, base_y: f64) -> [(f64, f64); 3] {
    let cx = (2 * place + level + 1) as f64 * PEAK_WIDTH / 2.0;
    let foot = base_y - level as f64 * LEVEL_HEIGHT;
    [(cx - PEAK_WIDTH / 2.0, foot), (cx, foot - LEVEL_HEIGHT), (cx + PEAK_WIDTH / 2.0, foot)]
}

/// The base line of a house picture whose highest card is on `levels`
/// levels (room above it for the labels of its top floors).
pub fn tower_base(levels: usize) -> f64 {
    levels as f64 * LEVEL_HEIGHT + 18.0
}

/// A filled polygon with a tooltip.
fn polygon(out: &mut String, pts: &[(f64, f64)], fill: &str, title: &str) {
    let pts: Vec<String> = pts.iter().map(|(x, y)| format!("{x:.2},{y:.2}")).collect();
    let _ =
        writeln!(out, r#"<polygon points="{}" fill="{fill}"><title>{}</title></polygon>"#, pts.join(" "), esc(title));
}

fn line(out: &mut String, a: (f64, f64), b: (f64, f64), colour: &str) {
    let _ = writeln!(
        out,
        r#"<line x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}" stroke="{colour}" stroke-width="4" stroke-linecap="round"/>"#,
        a.0, a.1, b.0, b.1
    );
}

fn tower(out: &mut String, t: &Tower) -> (f64, f64, String) {
    // Levels with a card: a floor lies at the top of its level.
    let levels = t.peaks.iter().map(|p| p.level).chain(t.floors.iter().map(|f| f.level)).max().unwrap_or(0) + 1;
    let base_y = tower_base(levels);
    let card = |c: usize| CARD_COLOUR[c % CARD_COLOUR.len()];
    let owner = |o: usize| OWNER_FILL[o % OWNER_FILL.len()];
    let says = |tri: &crate::game::picture::Triangle| {
        let name = t.players.get(tri.owner).map_or("?", String::as_str);
        format!("turn {}: {name}, {} points", tri.turn, tri.points)
    };
    // Triangles first, cards over them.
    for f in &t.floors {
        if let Some(tri) = &f.triangle {
            let [_, a, _] = peak_corners(f.level, f.place, base_y);
            let [_, b, _] = peak_corners(f.level, f.place + 1, base_y);
            let valley = peak_corners(f.level, f.place, base_y)[2];
            polygon(out, &[a, b, valley], owner(tri.owner), &says(tri));
        }
    }
    for p in &t.peaks {
        if let Some(tri) = &p.triangle {
            polygon(out, &peak_corners(p.level, p.place, base_y), owner(tri.owner), &says(tri));
        }
    }
    for p in &t.peaks {
        let [l, apex, r] = peak_corners(p.level, p.place, base_y);
        line(out, l, apex, card(p.left.colour));
        line(out, apex, r, card(p.right.colour));
        text(out, (l.0 + apex.0) / 2.0 - 4.0, (l.1 + apex.1) / 2.0, 11.0, card(p.left.colour), "end", &p.left.name);
        text(out, (r.0 + apex.0) / 2.0 + 4.0, (r.1 + apex.1) / 2.0, 11.0, card(p.right.colour), "start", &p.right.name);
        if let Some(tri) = &p.triangle {
            let name = t.players.get(tri.owner).map_or("?", String::as_str);
            text(out, apex.0, l.1 - 6.0, 10.0, "#222", "middle", &format!("{name} {}", tri.points));
        }
    }
    for f in &t.floors {
        let [_, a, _] = peak_corners(f.level, f.place, base_y);
        let [_, b, _] = peak_corners(f.level, f.place + 1, base_y);
        line(out, a, b, card(f.card.colour));
        text(out, (a.0 + b.0) / 2.0, a.1 - 4.0, 11.0, card(f.card.colour), "middle", &f.card.name);
        if let Some(tri) = &f.triangle {
            let name = t.players.get(tri.owner).map_or("?", String::as_str);
            text(out, (a.0 + b.0) / 2.0, a.1 + 16.0, 10.0, "#222", "middle", &format!("{name} {}", tri.points));
        }
    }
    let legend: Vec<String> =
        t.players.iter().enumerate().map(|(i, p)| format!("{p}'s triangles: fill {}", owner(i))).collect();
    (t.base as f64 * PEAK_WIDTH, base_y + 4.0, legend.join(", "))
}

/// The top left corner of the place of pile `k` in a grid of `columns`.
pub fn pile_corner(k: usize, columns: usize) -> (f64, f64) {
    let columns = columns.max(1);
    ((k % columns) as f64 * PILE_WIDTH, (k / columns) as f64 * PILE_HEIGHT)
}

fn piles(out: &mut String, p: &Piles) -> (f64, f64, String) {
    let columns = p.columns.max(1);
    let rows = p.rows.max(p.piles.len().div_ceil(columns)).max(1);
    let (w, h) = (columns as f64 * PILE_WIDTH, rows as f64 * PILE_HEIGHT);
    let _ = writeln!(out, r#"<rect x="0" y="0" width="{w:.1}" height="{h:.1}" fill="{TABLE_FILL}"/>"#);
    let card = |out: &mut String, x: f64, y: f64, c: &crate::game::picture::Card, under: &str| {
        let colour = CARD_COLOUR[c.colour % CARD_COLOUR.len()];
        let _ = writeln!(
            out,
            r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="5" fill="{CARD_FACE}" stroke="#333"/>"##,
            x + 6.0,
            y + 6.0,
            PILE_WIDTH - 12.0,
            PILE_HEIGHT - 12.0
        );
        text(out, x + PILE_WIDTH / 2.0, y + PILE_HEIGHT / 2.0, 16.0, colour, "middle", &c.name);
        text(out, x + PILE_WIDTH / 2.0, y + PILE_HEIGHT - 14.0, 10.0, "#555", "middle", under);
    };
    for (k, pile) in p.piles.iter().enumerate() {
        let (x, y) = pile_corner(k, columns);
        card(out, x, y, &pile.top, &format!("#{} ×{}", pile.examined, pile.cards));
    }
    let mut legend = format!(
        "{} of {} piles: each pile's top card, # the order examined, × its cards",
        p.piles.len(),
        rows * columns
    );
    let mut width = w;
    if let Some((at, c)) = &p.left_over {
        card(out, w + 8.0, 0.0, c, &format!("card {at}"));
        width += PILE_WIDTH + 8.0;
        legend.push_str(&format!("; card {at} ({}) found no pile", c.name));
    }
    (width, h, legend)
}
