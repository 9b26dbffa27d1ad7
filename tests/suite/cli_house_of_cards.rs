//! The real binary on House of Cards: input errors keep the earlier cases'
//! lines and name the line and column.

use assert_cmd::Command;

fn run(input: &str) -> (Option<i32>, String, String) {
    let out = Command::cargo_bin("arbiter")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .args(["run", "rules/house_of_cards.rules"])
        .write_stdin(input)
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

const GOOD: &str = "Axel\n5\n1R 2R 3R 4R 5R 5B 4B 3B 2B 1B\n";

fn expect(bad: &str, at: (usize, usize), message: &str) {
    let (code, stdout, stderr) = run(&format!("{GOOD}{bad}"));
    assert_eq!(code, Some(4), "{stderr}");
    assert_eq!(stdout, "Case 1: Axel wins 1\n");
    assert!(stderr.contains(&format!("line {}, column {}", at.0, at.1)), "{stderr}");
    assert!(stderr.contains(message), "{stderr}");
}

#[test]
fn a_missing_card() {
    expect("Birgit\n5\n1R 2R 3R 4R 5R 5B 4B 3B 2B\nEnd\n", (7, 1), "expected 1 more cards of case 2, found `End`");
}

#[test]
fn a_repeated_card() {
    expect("Birgit\n5\n1R 2R 3R 4R 5R 5B 4B 3B 2B 2R\nEnd\n", (6, 28), "card `2R` appears twice in case 2");
}

#[test]
fn m_out_of_range() {
    expect("Birgit\n14\n", (5, 1), "expected M (a number from 5 to 13), found `14`");
}

#[test]
fn an_unknown_player() {
    expect("Brigit\n5\n", (4, 1), "expected `Axel`, `Birgit` or `End`, found `Brigit`");
}

#[test]
fn no_end_line() {
    let (code, stdout, stderr) = run(GOOD);
    assert_eq!(code, Some(4));
    assert_eq!(stdout, "Case 1: Axel wins 1\n");
    assert!(stderr.contains("found end of input") && stderr.contains("line 4, column 1"), "{stderr}");
}

#[test]
fn a_card_above_m() {
    expect("Birgit\n5\n1R 2R 3R 4R 6R 5B 4B 3B 2B 1B\nEnd\n", (6, 13), "card `6R` is not in a deck of M = 5");
}

#[test]
fn max_nodes_stops_a_long_search_and_keeps_earlier_cases() {
    let big = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/house_of_cards/13-full-house-m13.in"),
    )
    .unwrap();
    let first_case: String = big.lines().take(3).map(|l| l.to_string() + "\n").collect();
    let out = Command::cargo_bin("arbiter")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["run", "--max-nodes", "200", "rules/house_of_cards.rules"])
        .write_stdin(format!("{GOOD}{first_case}End\n"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(8), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Case 1: Axel wins 1\n");
    assert!(stderr.contains("the search of case 2 (line 4) needs more than 200 nodes"), "{stderr}");
}

/// Runs `args` with `stdin`, in a scratch folder holding `files`.
fn in_dir(files: &[(&str, &str)], args: &[&str], stdin: &str) -> (Option<i32>, String, String) {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("arbiter-cli-hoc-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    for (name, text) in files {
        std::fs::write(dir.join(name), text.replace("@ROOT@", root)).unwrap();
    }
    let out = Command::cargo_bin("arbiter")
        .unwrap()
        .current_dir(&dir)
        .env("NO_COLOR", "1")
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

const RANKS_31: &str =
    "deck { ranks: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 }\n";

/// W3: M larger than the house can hold printed amounts near 2^31 while
/// `--explain` said otherwise; `check` now refuses the file, naming both
/// lines, and `run` does not start.
#[test]
fn a_deck_larger_than_the_house_is_refused() {
    let rules = format!("extends: \"@ROOT@/rules/house_of_cards.rules\"\n{RANKS_31}input {{ ranks: 5..31 }}\n");
    let input = "Axel\n15\n14B 2R 6B 13B 4R 1R 10B 5R 8R 8B 15R 6R 11R 9R 13R 3B 11B 2B 12B 12R 7B 5B 3R 9B 14R \
                 4B 1B 7R 15B 10R\nEnd\n";
    let (code, stdout, stderr) = in_dir(&[("big.rules", &rules)], &["check", "big.rules"], "");
    assert_eq!(code, Some(3), "{stdout}{stderr}");
    assert!(stderr.contains("house-full") && stderr.contains("more than 4 peaks can play"), "{stderr}");
    assert!(stderr.contains("big.rules:3:") && stderr.contains("house_of_cards.rules:22:"), "{stderr}");
    let (code, stdout, _) = in_dir(&[("big.rules", &rules)], &["run", "big.rules"], input);
    assert_eq!((code, stdout.as_str()), (Some(3), ""));
}

/// W4: a held-card multiplier beyond 32 bits was truncated (4294967297
/// acted as 1); it is now refused at the multiplier.
#[test]
fn a_multiplier_beyond_the_engine_is_refused() {
    for m in ["4294967297", "9223372036854775807", "-100000000"] {
        let rules = format!("extends: \"@ROOT@/rules/house_of_cards.rules\"\nscoring {{ held-own: {m} }}\n");
        let (code, _, stderr) = in_dir(&[("held.rules", &rules)], &["check", "held.rules"], "");
        assert_eq!(code, Some(3), "{m}: {stderr}");
        assert!(stderr.contains("too-large") && stderr.contains("held.rules:2:21"), "{m}: {stderr}");
    }
    // A large multiplier within the limit is taken as written.
    let rules = "extends: \"@ROOT@/rules/house_of_cards.rules\"\nscoring { held-own: 1000000 }\n";
    let (code, stdout, stderr) =
        in_dir(&[("held.rules", rules)], &["run", "held.rules"], "Axel\n6\n6B 5R 1B 6R 4B 2R 3R 5B 2B 4R 3B 1R\nEnd\n");
    assert_eq!(code, Some(0), "{stderr}");
    // Axel keeps a red card to the end: a million per rank point.
    let won: i64 = stdout.trim_end().strip_prefix("Case 1: Axel wins ").unwrap().parse().unwrap();
    assert!(won > 1_000_000 - 100, "{stdout}");
}

/// H14: six peaks and M = 20 searched for minutes; without `--max-nodes`
/// the engine's default budget ends the case with exit 8, naming it.
#[test]
fn a_search_too_large_stops_at_the_default_budget() {
    let rules = format!(
        "extends: \"@ROOT@/rules/house_of_cards.rules\"\n{RANKS_31}tower {{ peaks: 6 }}\ninput {{ ranks: 6..20 }}\n"
    );
    let input = "Axel\n20\n4R 18R 12B 8R 13R 1B 17B 16R 9R 10R 5B 8B 1R 2B 18B 11R 10B 19R 2R 3R 4B 7R 11B 6B 15B 12R \
                 19B 17R 14B 7B 14R 5R 9B 20R 15R 6R 3B 16B 20B 13B\nEnd\n";
    let t = std::time::Instant::now();
    let small = "Axel\n6\n1R 2R 3R 4R 5R 6R 1B 2B 3B 4B 5B 6B\n";
    let (code, stdout, stderr) = in_dir(&[("six.rules", &rules)], &["run", "six.rules"], &format!("{small}{input}"));
    assert_eq!(code, Some(8), "{stderr}");
    assert_eq!(stdout, "Case 1: Axel and Birgit tie\n");
    assert!(stderr.contains("the search of case 2 (line 4) needs more than 10000000 nodes"), "{stderr}");
    assert!(t.elapsed().as_secs() < 60, "{:?}", t.elapsed());
}

/// B8: a case preceded by blank lines is named by its own first line
/// (the player's name), not by a blank line.
#[test]
fn the_node_limit_names_the_cases_first_line_after_blank_lines() {
    let input = "Axel\n5\n1R 2R 3R 4R 5R 5B 4B 3B 2B 1B\n\n\n\nBirgit\n\n\n13\n6B 12B 1R 1B 4R 13R 6R 3B 7B 8B 8R \
                 7R 13B 2B 12R 2R 5R 4B 10B 9B 5B 9R 11B 11R 10R 3R\nEnd\n";
    let (code, stdout, stderr) = in_dir(
        &[],
        &["run", "--max-nodes", "100", &format!("{}/rules/house_of_cards.rules", env!("CARGO_MANIFEST_DIR"))],
        input,
    );
    assert_eq!(code, Some(8), "{stderr}");
    assert_eq!(stdout, "Case 1: Axel wins 1\n");
    assert!(stderr.contains("case 2 (line 7)"), "{stderr}");
}

/// `held` and the multipliers say one thing: in a variant, either replaces
/// its base's other (as a key replaces its base's); in one file both are a
/// `conflict`.
#[test]
fn held_and_the_multipliers_replace_each_other_across_files() {
    let input = "Axel\n6\n6B 5R 1B 6R 4B 2R 3R 5B 2B 4R 3B 1R\nEnd\n";
    let run_with = |files: &[(&str, &str)]| {
        let (code, stdout, stderr) = in_dir(files, &["run", "v.rules"], input);
        assert_eq!(code, Some(0), "{stderr}");
        stdout
    };
    let zero_formula = "extends: \"@ROOT@/rules/house_of_cards.rules\"\nscoring { held: 0 }\n";
    let zero_times = "extends: \"@ROOT@/rules/house_of_cards.rules\"\nscoring { held-own: 0  held-other: 0 }\n";
    // The bundled base gives `held`; the variant's multipliers replace it.
    assert_eq!(run_with(&[("v.rules", zero_times)]), run_with(&[("v.rules", zero_formula)]));
    // A base with multipliers, a variant with `held`.
    let base = "extends: \"@ROOT@/rules/house_of_cards.rules\"\nscoring { held-own: 0  held-other: 0 }\n";
    let worth = |w: &str| format!("extends: \"base.rules\"\nscoring {{ held: {w} }}\n");
    let doubled = run_with(&[("base.rules", base), ("v.rules", &worth("if(own, 2 * value, -2 * value)"))]);
    let as_times = "extends: \"@ROOT@/rules/house_of_cards.rules\"\nscoring { held-own: 2  held-other: -2 }\n";
    assert_eq!(doubled, run_with(&[("v.rules", as_times)]));
    assert_ne!(doubled, run_with(&[("v.rules", zero_formula)]), "a deal where held cards count");
    // Both in one file.
    let both = "extends: \"@ROOT@/rules/house_of_cards.rules\"\nscoring { held: value  held-other: 0 }\n";
    let (code, _, stderr) = in_dir(&[("v.rules", both)], &["check", "v.rules"], "");
    assert_eq!(code, Some(3));
    assert!(stderr.contains("conflict") && stderr.contains("v.rules:2:"), "{stderr}");
}

fn arbiter(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::cargo_bin("arbiter")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// The number of deals an analysis's `deals` line says it did.
fn deals_done(stdout: &str) -> u64 {
    let line = stdout.lines().find(|l| l.contains("random deals")).expect(stdout);
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "random").unwrap();
    words[at - 1].parse().unwrap()
}

// Issue 28: an analysis analyses the samples asked or says it stopped, with
// the budget and the option that raises it; the figures done are kept.
#[test]
fn an_analysis_short_of_its_samples_is_a_limit() {
    let (code, stdout, stderr) = arbiter(&["analyze", "house_of_cards", "--samples", "500", "--max-nodes", "300000"]);
    assert_eq!(code, Some(8), "{stderr}");
    let done = deals_done(&stdout);
    assert!(done > 0 && done < 500, "{stdout}");
    assert!(stdout.contains("first mover"), "{stdout}");
    let said = stderr.replace('│', " ").split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(said.contains("stopped short of its 500 samples"), "{stderr}");
    assert!(said.contains("--max-nodes N"), "{stderr}");
    assert!(said.contains("at most 300000 nodes"), "{stderr}");
    // Those deals, asked for, are the same deals, all done, exit 0.
    let (code, again, stderr) =
        arbiter(&["analyze", "house_of_cards", "--samples", &done.to_string(), "--max-nodes", "300000"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(deals_done(&again), done);
    let first = |s: &str| s.lines().find(|l| l.starts_with("first mover's advantage")).map(str::to_string);
    assert_eq!(first(&again), first(&stdout));
    // An analysis that searches nothing takes no node budget.
    let (code, _, stderr) = arbiter(&["analyze", "get_straight", "--max-nodes", "5"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("searches nothing"), "{stderr}");
}

// `diff` compares equal sets of deals: when one side stops short, both are
// compared on the deals it did.
#[test]
fn diff_compares_the_same_deals_when_one_side_stops() {
    let (code, stdout, stderr) =
        arbiter(&["diff", "house_of_cards", "house_of_cards/five-peaks", "--samples", "400", "--max-nodes", "300000"]);
    assert_eq!(code, Some(8), "{stderr}");
    let line = stdout.lines().find(|l| l.contains("deals (alike)")).expect(&stdout);
    let compared: u64 = line.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(compared > 0 && compared < 400, "{line}");
    let said = stderr.replace('│', " ").split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(said.contains(&format!("compared on the first {compared};")), "{stderr}");
    // Each side over those deals alone finishes.
    for side in ["house_of_cards", "house_of_cards/five-peaks"] {
        let (code, out, stderr) =
            arbiter(&["analyze", side, "--samples", &compared.to_string(), "--max-nodes", "300000"]);
        assert_eq!(code, Some(0), "{side}: {stderr}");
        assert_eq!(deals_done(&out), compared);
    }
}
