//! `arbiter run --explain` draws the engines' pictures: the connection
//! board, the tower's house and the covering's piles, in the terminal
//! (snapshots, without colour) and as SVG (`--format svg`), which is
//! rendered here with a real SVG renderer (resvg) and checked pixel by
//! pixel where the geometry says stones, triangles and cards are.

use arbiter::report::svg::{
    BOARD_FILL, CARD_FACE, ENCLOSED_FILL, HEX_RADIUS, LAST_DOT, LEVEL_HEIGHT, OWNER_FILL, PEAK_WIDTH, PILE_HEIGHT,
    PILE_WIDTH, PLAYER_FILL, STRUCTURE_FILL, TABLE_FILL,
};
use assert_cmd::Command;

fn arbiter(args: &[&str], input: &str) -> std::process::Output {
    Command::cargo_bin("arbiter")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .args(args)
        .write_stdin(input)
        .output()
        .unwrap()
}

/// stdout of a run that must succeed.
fn ok(args: &[&str], input: &str) -> String {
    let out = arbiter(args, input);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Whether a line is a picture's title: `hexagon of side 3`, `house of 4
/// base peaks`, `11 of 16 piles`.
fn title(line: &str) -> bool {
    let words: Vec<&str> = line.split(' ').collect();
    words.len() > 3
        && words[1] == "of"
        && (["hexagon", "rhombus", "triangle", "house"].contains(&words[0])
            || words[0].parse::<usize>().is_ok() && words[3] == "piles")
}

/// The pictures of an explanation's text: the lines from each title to
/// the blank line that ends the explanation.
fn pictures(text: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in text.lines() {
        inside = (inside && !line.is_empty()) || title(line);
        if inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

const RING: &str = "1\n3 6\n2 2\n2 3\n3 4\n4 4\n4 3\n3 2\n";
const TOWER: &str = "Axel\n5\n1R 2R 3R 4R 5R 5B 4B 3B 2B 1B\nEnd\n";
const PATIENCE: &str = "TS QC 8S 8D QH 2D 3H KH 9H 2H TH KS KC\n9D JH 7H JD 2S QS TD 2C 4H 5H AD 4D 5D\n\
                        6D 4S 9S 5S 7S JS 8H 3D 8C 3S 4C 6S 9C\nAS 7C AH 6H KD JC 7D AC 5C TC QD 6C 3C\n#\n";

#[test]
fn the_connection_board_is_drawn_with_its_structure() {
    let text = ok(&["run", "--explain", "rules/havannah.rules"], RING);
    let picture = pictures(&text);
    insta::assert_snapshot!("havannah_ring", picture);
    // The explanation keeps its coordinates.
    assert!(text.contains("ring stones around: (2, 2) (2, 3) (3, 2) (3, 4) (4, 3) (4, 4)"), "{text}");
    // Six stones, the last one marked; one enclosed cell; 19 - 7 empty.
    assert_eq!(picture.matches('●').count(), 5 + 1, "five ring stones and the legend's:\n{picture}");
    assert_eq!(picture.matches('◉').count(), 1 + 1, "{picture}");
    assert_eq!(picture.matches('◌').count(), 1 + 1, "{picture}");
    assert_eq!(picture.matches('·').count(), 19 - 7 + 1, "{picture}");
}

#[test]
fn every_shape_is_drawn_with_its_stones_where_the_input_puts_them() {
    // A rhombus of 2 rows and 5 columns: the chain down it.
    let text = ok(&["run", "--explain", "rules/hex/parallelogram.rules"], "1\n2 5 3\n1 5\n2 1\n2 4\n");
    let picture = pictures(&text);
    assert!(picture.starts_with("rhombus of height 2 and width 5"), "{picture}");
    let rows: Vec<&str> = picture.lines().skip(1).take(2).collect();
    // Row 1: the stone at (1, 5) is the last cell; row 2 leans right by
    // half a cell, with stones at (2, 1) and (2, 4) (the move that won).
    assert_eq!(rows[0], "  1 │ · · · · ●", "{picture}");
    assert_eq!(rows[1], "  2 │  ○ · · ◉ ·", "{picture}");
    // Y's triangle, rows of 1, 2, 3 cells.
    let text = ok(&["run", "--explain", "rules/y.rules"], "1\n3 3\n3 1\n2 1\n1 1\n");
    insta::assert_snapshot!("y_triangle", pictures(&text));
}

#[test]
fn a_board_too_large_to_draw_says_so() {
    let text = ok(&["run", "--explain", "rules/havannah.rules"], "1\n1000000 2\n1 1\n1 2\n");
    assert!(text.contains("picture: not drawn: a board of side 1000000 is larger than a picture"), "{text}");
    assert_eq!(pictures(&text), "");
}

#[test]
fn the_house_is_drawn_level_by_level_with_its_owners() {
    let text = ok(&["run", "--explain", "rules/house_of_cards.rules"], TOWER);
    let picture = pictures(&text);
    insta::assert_snapshot!("house_of_cards", picture);
    // The two triangles of the line of perfect play, with their owners.
    assert!(picture.contains("▼ Axel 11"), "{picture}");
    assert!(picture.contains("▼ Birgit 10"), "{picture}");
    assert!(picture.contains("╱1R 2R╲"), "{picture}");
}

#[test]
fn the_piles_are_drawn_in_their_grid_with_their_top_cards() {
    let text = ok(&["run", "--explain", "rules/shuffling_patience.rules"], PATIENCE);
    let picture = pictures(&text);
    insta::assert_snapshot!("shuffling_patience", picture);
    assert!(picture.starts_with("11 of 16 piles in 4 rows of 4"), "{picture}");
    // The sizes are the output line's, in order.
    let sizes: Vec<usize> = picture.split('×').skip(1).filter_map(|s| s.split(' ').next()?.parse().ok()).collect();
    assert_eq!(sizes, [8, 6, 7, 4, 3, 5, 4, 4, 2, 5, 4]);
    // An overflow names the card that found no pile.
    let sorted = "AS AH AC AD 2S 2H 2C 2D 3S 3H 3C 3D 4S\n4H 4C 4D 5S 5H 5C 5D 6S 6H 6C 6D 7S 7H\n\
                  7C 7D 8S 8H 8C 8D 9S 9H 9C 9D TS TH TC\nTD JS JH JC JD QS QH QC QD KS KH KC KD\n#\n";
    let picture = pictures(&ok(&["run", "--explain", "rules/shuffling_patience.rules"], sorted));
    assert!(picture.contains("card 17 (5S) found no pile"), "{picture}");
}

#[test]
fn colour_is_used_only_when_enabled() {
    let coloured = Command::cargo_bin("arbiter")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .args(["--color", "always", "run", "--explain", "rules/havannah.rules"])
        .write_stdin(RING)
        .output()
        .unwrap();
    let coloured = String::from_utf8(coloured.stdout).unwrap();
    assert!(coloured.contains("\x1b[1;31m◉\x1b[0m"), "{coloured}");
    let plain = ok(&["--color", "never", "run", "--explain", "rules/havannah.rules"], RING);
    assert!(!plain.contains('\x1b'), "{plain}");
}

/// By default, what goes to stdout is coloured as stdout's terminal
/// allows, not stderr's: under a terminal (util-linux `script` gives one)
/// the explanation is coloured; the same run with stdout to a file is not,
/// though stderr is still the terminal.
#[test]
fn explanations_are_coloured_by_stdouts_terminal() {
    let Ok(probe) = std::process::Command::new("script").args(["-qec", "true", "/dev/null"]).output() else {
        eprintln!("no `script` to make a terminal with: skipped");
        return;
    };
    assert!(probe.status.success(), "script -qec true failed");
    let bin = env!("CARGO_BIN_EXE_arbiter");
    let dir = tempfile::tempdir().unwrap();
    let (input, file) = (dir.path().join("ring.txt"), dir.path().join("out.txt"));
    std::fs::write(&input, RING).unwrap();
    let explain = format!("'{bin}' run --explain rules/havannah.rules '{}'", input.display());
    let in_terminal = |command: String| {
        let out = std::process::Command::new("script")
            .args(["-qec", &command, "/dev/null"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env_remove("NO_COLOR")
            .env("TERM", "xterm")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let shown = in_terminal(format!("{explain} 2>/dev/null"));
    assert!(shown.contains("\x1b["), "stdout a terminal, stderr not: {shown}");
    in_terminal(format!("{explain} > '{}'", file.display()));
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(written.contains("◉") && !written.contains('\x1b'), "stdout a file, stderr a terminal: {written}");
}

#[test]
fn svg_applies_only_to_explanations_of_engines_that_draw() {
    let out = arbiter(&["run", "--format", "svg", "rules/havannah.rules"], RING);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("add `--explain`"));
    assert!(out.stdout.is_empty());
    let out = arbiter(&["run", "--explain", "--format", "svg", "rules/get_straight.rules"], "2H 3S 5D 6C TC\n#\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("draws no pictures"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for args in [["list", "--format", "svg"].as_slice(), &["analyze", "rules/get_straight.rules", "--format", "svg"]] {
        let out = arbiter(args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("svg"), "{args:?}");
    }
}

/// An SVG document rendered: its pixels, and the picture's origin in the
/// first section (the `translate` of its `<g>`).
struct Rendered {
    pixmap: resvg::tiny_skia::Pixmap,
    origin: (f64, f64),
}

fn render(svg: &str) -> Rendered {
    let tree = resvg::usvg::Tree::from_str(svg, &resvg::usvg::Options::default()).expect("a well-formed SVG document");
    let size = tree.size().to_int_size();
    let declared = |attr: &str| -> u32 {
        let at = svg.find(&format!(" {attr}=\"")).unwrap() + attr.len() + 3;
        svg[at..].split('"').next().unwrap().parse().unwrap()
    };
    assert_eq!((size.width(), size.height()), (declared("width"), declared("height")));
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
    resvg::render(&tree, resvg::tiny_skia::Transform::default(), &mut pixmap.as_mut());
    let g = svg.find("<g transform=\"translate(").expect("a picture") + "<g transform=\"translate(".len();
    let mut xy = svg[g..].split(')').next().unwrap().split(' ').map(|v| v.parse::<f64>().unwrap());
    Rendered { pixmap, origin: (xy.next().unwrap(), xy.next().unwrap()) }
}

impl Rendered {
    /// Asserts the colour of the pixel at `(x, y)` of the picture.
    #[track_caller]
    fn at(&self, (x, y): (f64, f64), want: &str, what: &str) {
        let (px, py) = ((self.origin.0 + x).floor() as u32, (self.origin.1 + y).floor() as u32);
        let p = self.pixmap.pixel(px, py).unwrap_or_else(|| panic!("{what}: ({px}, {py}) is off the picture"));
        let hex = |i: usize| u8::from_str_radix(&want[1 + 2 * i..3 + 2 * i], 16).unwrap();
        let got = [p.red(), p.green(), p.blue()];
        let close = got.iter().zip(0..3).all(|(&g, i)| g.abs_diff(hex(i)) <= 2);
        assert!(close && p.alpha() == 255, "{what} at ({px}, {py}): {got:?}, expected {want}");
    }
}

#[test]
fn the_svg_board_has_its_stones_where_the_geometry_says() {
    let svg = ok(&["run", "--explain", "--format", "svg", "rules/havannah.rules"], RING);
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""), "{svg}");
    assert!(svg.ends_with("</svg>\n"));
    let r = render(&svg);
    // A hexagon of side 3 in columns: column y - x, half-row from the top
    // 4S - 2 - (x + y); flat-topped cells of radius R, columns 1.5 R apart,
    // half-rows R·√3/2 apart.
    let s = 3i64;
    let centre = |x: i64, y: i64| {
        let (col, half_row) = (y - x + s - 1, 4 * s - 2 - (x + y));
        (HEX_RADIUS * (1.0 + 1.5 * col as f64), HEX_RADIUS * 3f64.sqrt() / 2.0 * (half_row as f64 + 1.0))
    };
    let aside = |(x, y): (f64, f64)| (x + 0.8 * HEX_RADIUS, y);
    for (x, y) in [(2, 2), (2, 3), (3, 4), (4, 4), (4, 3)] {
        r.at(centre(x, y), PLAYER_FILL[0], &format!("the stone at ({x}, {y})"));
        r.at(aside(centre(x, y)), STRUCTURE_FILL, &format!("the ring's cell ({x}, {y})"));
    }
    r.at(centre(3, 2), LAST_DOT, "the move that closed the ring");
    r.at(aside(centre(3, 2)), STRUCTURE_FILL, "the last stone's cell");
    r.at(centre(3, 3), ENCLOSED_FILL, "the enclosed cell");
    for (x, y) in [(1, 1), (5, 5), (3, 1), (1, 3), (5, 3)] {
        r.at(centre(x, y), BOARD_FILL, &format!("the empty cell ({x}, {y})"));
    }
    // Beyond the board's corner (1, 3): the page.
    r.at((centre(1, 3).0 + 1.5 * HEX_RADIUS, centre(1, 3).1), "#ffffff", "outside the board");
}

#[test]
fn the_svg_house_colours_each_triangle_by_its_owner() {
    let svg = ok(&["run", "--explain", "--format", "svg", "rules/house_of_cards.rules"], TOWER);
    assert!(svg.contains("<title>turn 1: Axel, 11 points</title>"), "{svg}");
    let r = render(&svg);
    // Peak i of level 0 stands on [i W, (i + 1) W] at the base line, one
    // level and a label's room (18 pixels) down from the top: the house
    // has one level; the floor on valley i lies across the apexes of peaks
    // i and i + 1, its triangle pointing down to the valley between them.
    let base = LEVEL_HEIGHT + 18.0;
    let valley_centroid = |i: f64| ((i + 1.0) * PEAK_WIDTH, base - LEVEL_HEIGHT * 2.0 / 3.0);
    // The line of perfect play: Axel's floor on valley 2, Birgit's on 3.
    r.at(valley_centroid(1.0), OWNER_FILL[0], "the first player's triangle on valley 2");
    r.at(valley_centroid(2.0), OWNER_FILL[1], "the second player's triangle on valley 3");
    r.at(valley_centroid(0.0), "#ffffff", "valley 1, open");
    r.at((0.5 * PEAK_WIDTH, base - LEVEL_HEIGHT / 3.0), "#ffffff", "inside a base peak: no triangle");
}

#[test]
fn the_svg_grid_shows_a_card_on_each_pile_used() {
    let svg = ok(&["run", "--explain", "--format", "svg", "rules/shuffling_patience.rules"], PATIENCE);
    let r = render(&svg);
    for k in 0..16 {
        let corner = ((k % 4) as f64 * PILE_WIDTH, (k / 4) as f64 * PILE_HEIGHT);
        let (card, felt) = ((corner.0 + 12.0, corner.1 + 12.0), (corner.0 + 2.0, corner.1 + 2.0));
        r.at(felt, TABLE_FILL, &format!("the table around pile {}", k + 1));
        r.at(card, if k < 11 { CARD_FACE } else { TABLE_FILL }, &format!("pile {}", k + 1));
    }
}

#[test]
fn the_svg_document_is_whole_when_an_input_error_ends_the_run() {
    let input = "2\n3 6\n2 2\n2 3\n3 4\n4 4\n4 3\n3 2\n3 1\n9 9\n";
    let out = arbiter(&["run", "--explain", "--format", "svg", "rules/havannah.rules"], input);
    assert_eq!(out.status.code(), Some(4), "{}", String::from_utf8_lossy(&out.stderr));
    let svg = String::from_utf8(out.stdout).unwrap();
    assert_eq!(svg.matches("<g id=\"case-").count(), 1, "{svg}");
    render(&svg);
}

#[test]
fn an_svg_document_past_its_limit_is_written_whole_then_the_limit_is_reported() {
    // Boards of side 20, the largest drawn: each section is about 150 KB,
    // so 64 MiB fill up before the 600th case.
    let mut input = String::from("600\n");
    for _ in 0..600 {
        input.push_str("20 1\n10 10\n");
    }
    let out = arbiter(&["run", "--explain", "--format", "svg", "rules/havannah.rules"], &input);
    assert_eq!(out.status.code(), Some(8), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("64 MiB"), "{}", String::from_utf8_lossy(&out.stderr));
    let svg = String::from_utf8(out.stdout).unwrap();
    let sections = svg.matches("<g id=\"case-").count();
    assert!((100..600).contains(&sections), "{sections} sections");
    assert!(svg.len() <= (64 << 20) + (1 << 20), "{} bytes", svg.len());
    assert!(svg.ends_with("</svg>\n"));
}
