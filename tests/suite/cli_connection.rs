//! The real binary on the connection games of other shapes (Hex on a
//! rhombus, Y on a triangle): input errors in each shape's own terms,
//! explanations naming the sides, and the hardening regressions of the
//! connection engine (FAILURES.md H12, H13, B6).

use assert_cmd::Command;

fn arbiter() -> Command {
    let mut c = Command::cargo_bin("arbiter").unwrap();
    c.current_dir(env!("CARGO_MANIFEST_DIR")).env("NO_COLOR", "1");
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs `input` with `rules` and checks: exit 4, `kept` printed, the
/// diagnostic naming `line L, column C` and containing every `message`.
fn input_error(rules: &str, input: &str, kept: &str, at: (usize, usize), messages: &[&str]) -> String {
    let out = arbiter().args(["run", rules]).write_stdin(input).output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "stderr: {err}");
    assert_eq!(text(&out.stdout), kept);
    assert!(err.contains(&format!("line {}, column {}", at.0, at.1)), "{err}");
    for m in messages {
        assert!(err.contains(m), "{m:?} not in {err}");
    }
    err
}

fn run(rules: &str, input: &str) -> String {
    let out = arbiter().args(["run", rules]).write_stdin(input).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn cells_off_each_shape_are_input_errors_in_its_terms() {
    input_error(
        "rules/hex.rules",
        "2\n1 1\n1 1\n3 1\n4 1\n",
        "Case #1: chain in move 1\n",
        (5, 1),
        &["cell (4, 1) is not on the board of side 3", "on a rhombus of side 3, cells `x y` have 1 <= x, y <= 3"],
    );
    input_error(
        "rules/y.rules",
        "1\n4 2\n4 4\n3 4\n",
        "",
        (4, 1),
        &["cell (3, 4) is not on the board of side 4", "on a triangle of side 4, cells `x y` have 1 <= y <= x <= 4"],
    );
    input_error("rules/y.rules", "1\n0 0\n", "", (2, 1), &["board side 0 is outside the supported sides 1 to 3000"]);
    input_error("rules/hex.rules", "1\n3001 0\n", "", (2, 1), &["board side 3001 is outside"]);
}

#[test]
fn a_repeated_cell_is_named_with_its_first_move_on_every_shape() {
    for rules in ["rules/hex.rules", "rules/y.rules"] {
        input_error(rules, "1\n3 3\n3 1\n2 1\n3 1\n", "", (5, 1), &["cell (3, 1) already holds a stone (move 1)"]);
    }
}

#[test]
fn the_same_moves_mean_different_things_on_each_shape() {
    // The bottom row: on a rhombus it touches the bottom side only; on a
    // triangle its end cells are corners, on the left and right sides too.
    // A board of side 1 is one cell, on every side.
    let input = "2\n3 3\n3 1\n3 2\n3 3\n1 1\n1 1\n";
    assert_eq!(run("rules/hex.rules", input), "Case #1: none\nCase #2: chain in move 1\n");
    assert_eq!(run("rules/y.rules", input), "Case #1: Y in move 3\nCase #2: Y in move 1\n");
}

#[test]
fn explanations_name_the_sides_a_group_touches() {
    let out = arbiter()
        .args(["run", "--explain", "rules/hex.rules"])
        .write_stdin("1\n3 3\n1 2\n2 2\n3 1\n")
        .output()
        .unwrap();
    let err = text(&out.stdout);
    assert!(err.contains("side `top` at (1, 2), side `bottom` at (3, 1)"), "{err}");
    assert!(err.contains("(`top` and `bottom` needed)"), "{err}");
    let out = arbiter().args(["run", "--explain", "rules/y.rules"]).write_stdin("1\n3 2\n1 1\n2 1\n").output().unwrap();
    let err = text(&out.stdout);
    assert!(err.contains("closest to Y: side `left` at (1, 1), side `right` at (1, 1)"), "{err}");
    assert!(err.contains("at most 2 `side` members (3 needed)"), "{err}");
}

/// A big coordinate or side is reported as written, cut, never as a
/// saturated number the user did not write (FAILURES.md B6).
#[test]
fn huge_numbers_are_quoted_as_written() {
    let err = input_error(
        "rules/havannah.rules",
        "1\n3 1\n1 99999999999999999999999999999999\n",
        "",
        (3, 1),
        &["cell (1, 99999999999999999999…) is not on the board of side 3"],
    );
    assert!(!err.contains("1099511627776"), "{err}");
    let err = input_error(
        "rules/hex.rules",
        "1\n999999999999999999999999 1\n1 1\n",
        "",
        (2, 1),
        &["board side 99999999999999999999… is outside the supported sides 1 to 3000"],
    );
    assert!(!err.contains("18446744073709551615"), "{err}");
    input_error(
        "rules/y.rules",
        "1\n3 1\n-99999999999999999999999 1\n",
        "",
        (3, 1),
        &["cell (-9999999999999999999…, 1)"],
    );
}

/// The cells of a hexagonal ring of radius `r` around the centre of a
/// side-10^6 Havannah board, as FAILURES.md H13 builds them.
fn big_ring(r: i64) -> Vec<(i64, i64)> {
    let s = 1_000_000i64;
    let mut out = Vec::new();
    for dx in -r..=r {
        for dy in -r..=r {
            if dx.abs().max(dy.abs()).max((dx - dy).abs()) == r {
                out.push((s + dx, s + dy));
            }
        }
    }
    out
}

/// FAILURES.md H13: explaining a ring around more than 2^20 empty cells
/// once flood-filled up to 2^20 cells from each neighbour of the last
/// stone (0.7 s a case); the explanation now lists a part of the region
/// (work in proportion to the stones) and still says what encloses it.
#[test]
fn a_ring_around_a_million_cells_is_explained_in_part() {
    let ring = big_ring(593);
    let case =
        format!("1000000 {}\n{}", ring.len(), ring.iter().map(|(x, y)| format!("{x} {y}\n")).collect::<String>());
    let input = format!("3\n{case}{case}{case}");
    let out = arbiter().args(["run", "--explain", "rules/havannah.rules"]).write_stdin(input).output().unwrap();
    let err = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(err.matches("☞ Case #").count(), 3, "{err}");
    assert_eq!(err.matches("ring in move 3558").count(), 3, "{err}");
    assert!(err.contains("ring encloses: (999408, 999408)"), "{err}");
    assert!(err.contains("(more than "), "{err}");
    assert!(err.contains("ring stones around: (999407, 999407)"), "{err}");
    assert!(err.contains("(3558 in all)"), "{err}");
}

/// FAILURES.md H12: cells whose keys all shared the top bits of the old
/// cell table's fixed hash are as quick to run as any others (the engine
/// now finds neighbours by a radix sort of the cell keys, with no hash at
/// all; the input stays as a regression).
#[test]
fn cells_aimed_at_the_old_hash_run_correctly() {
    const G: u64 = 0x9E37_79B9_7F4A_7C15;
    let s = 1_000_000u64;
    let hi = 2 * s - 1;
    let mut ys: Vec<(u64, u64)> = (1..=hi).map(|y| (y.wrapping_mul(G), y)).collect();
    ys.sort_unstable();
    let width = 1u64 << 42;
    let mut cells = Vec::new();
    'x: for x in 1..=hi {
        let lo = 0u64.wrapping_sub((x << 21).wrapping_mul(G));
        let mut i = ys.partition_point(|&(r, _)| r < lo);
        while i < ys.len() && ys[i].0.wrapping_sub(lo) < width {
            if x.abs_diff(ys[i].1) < s {
                cells.push((x, ys[i].1));
                if cells.len() == 20_000 {
                    break 'x;
                }
            }
            i += 1;
        }
    }
    let input =
        format!("1\n{s} {}\n{}", cells.len(), cells.iter().map(|(x, y)| format!("{x} {y}\n")).collect::<String>());
    let started = std::time::Instant::now();
    assert_eq!(run("rules/havannah.rules", &input), "Case #1: none\n");
    // Quadratic, this took minutes in a test build; now well under a second.
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
}
