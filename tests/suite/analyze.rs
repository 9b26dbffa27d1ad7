//! `arbiter analyze` on the sampling engines: the same seed gives the same
//! figures, and the figures respond to the rules (a smaller grid overflows
//! more often).

use assert_cmd::Command;

fn analyze(rules: &str, samples: &str, seed: &str) -> String {
    let out = Command::cargo_bin("arbiter")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["analyze", rules, "--samples", samples, "--seed", seed])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn played(report: &str) -> u64 {
    let line = report.lines().find(|l| l.starts_with("played without overflow")).unwrap();
    line.split_whitespace().nth(3).unwrap().parse().unwrap()
}

#[test]
fn patience_rates_are_seeded_and_follow_the_layout() {
    let base = analyze("rules/shuffling_patience.rules", "3000", "7");
    assert_eq!(base, analyze("rules/shuffling_patience.rules", "3000", "7"));
    let small = analyze("rules/shuffling_patience/small-grid.rules", "3000", "7");
    assert!(played(&small) < played(&base), "{small}\n{base}");
    assert!(played(&base) <= 3000);
}

#[test]
fn house_of_cards_first_mover_advantage_is_seeded() {
    let a = analyze("rules/house_of_cards.rules", "12", "3");
    assert_eq!(a, analyze("rules/house_of_cards.rules", "12", "3"));
    assert!(a.contains("12 random deals of M = 13") && a.contains("first mover's advantage"), "{a}");
}

fn arbiter(args: &[&str], stdin: &str) -> (Option<i32>, String, String) {
    let out = Command::cargo_bin("arbiter")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// The partial results of the shards of an analysis, each run on its own.
fn shards(rules: &str, samples: &str, seed: &str, k: u64) -> Vec<String> {
    (1..=k)
        .map(|i| {
            let shard = format!("{i}/{k}");
            let (code, out, err) =
                arbiter(&["analyze", rules, "--samples", samples, "--seed", seed, "--shard", &shard, "--partial"], "");
            assert_eq!(code, Some(0), "{err}");
            assert_eq!(out.lines().count(), 1, "{out}");
            out
        })
        .collect()
}

/// `analyze --shard I/K --partial`, then `merge`: the merged shards print
/// byte for byte what the unsharded analysis prints, whatever K and the
/// order the parts come in (files or standard input).
#[test]
fn merged_shards_print_what_the_whole_analysis_prints() {
    let dir = std::env::temp_dir().join(format!("arbiter-merge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (rules, samples, seed) in [
        ("rules/shuffling_patience.rules", "5000", "7"),
        ("house_of_cards", "30", "3"),
        ("rules/house_of_cards/three-peaks.rules", "60", "11"),
    ] {
        let whole = analyze(rules, samples, seed);
        for k in [1, 2, 3, 7] {
            let mut parts = shards(rules, samples, seed, k);
            // In any order, from files.
            parts.reverse();
            let files: Vec<String> = parts
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let f = dir.join(format!("p{k}-{i}.json"));
                    std::fs::write(&f, p).unwrap();
                    f.to_string_lossy().into_owned()
                })
                .collect();
            let mut args = vec!["merge", rules];
            args.extend(files.iter().map(String::as_str));
            let (code, merged, err) = arbiter(&args, "");
            assert_eq!(code, Some(0), "{err}");
            assert_eq!(merged, whole, "{rules} in {k} shards");
            // From standard input, all in one stream.
            let (code, merged, err) = arbiter(&["merge", rules, "-"], &parts.concat());
            assert_eq!(code, Some(0), "{err}");
            assert_eq!(merged, whole, "{rules} in {k} shards, on stdin");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Parts that do not make one analysis are refused (`arbiter::partial`,
/// exit 4), and so are shards of an exact analysis (exit 2).
#[test]
fn parts_that_do_not_make_one_analysis_are_refused() {
    let rules = "rules/shuffling_patience.rules";
    let parts = shards(rules, "300", "5", 3);
    let other_seed = shards(rules, "300", "6", 3);
    let cases: [(&str, String, &str); 6] = [
        ("a missing shard", parts[0].clone() + &parts[2], "samples 100..200 are in no partial result"),
        ("a shard twice", parts.concat() + &parts[1], "are in two partial results"),
        ("another seed", parts[0].clone() + &other_seed[1] + &parts[2], "of another analysis"),
        ("not JSON", "{\"kind\": 1\n".to_string(), "not a partial result"),
        ("not a part", "{\"kind\": \"other\"}\n".to_string(), "not a partial result of `arbiter analyze --partial`"),
        ("nothing", String::new(), "no partial result to merge"),
    ];
    for (what, stdin, message) in cases {
        let (code, out, err) = arbiter(&["merge", rules, "-"], &stdin);
        assert_eq!(code, Some(4), "{what}: {err}");
        assert!(out.is_empty(), "{what}: {out}");
        assert!(err.contains("arbiter::partial") && err.contains(message), "{what}: {err}");
    }
    // Counts edited past what any analysis makes: refused, not added with
    // a wrap (the sums would seem to add up).
    let big = parts[1].replacen("\"played\":", "\"played\":18446744073709551615,\"was\":", 1);
    let (code, out, err) = arbiter(&["merge", rules, "-"], &(parts[0].clone() + &big + &parts[2]));
    assert_eq!(code, Some(4), "{out}{err}");
    assert!(err.contains("do not add up") && err.contains("past 2^64"), "{err}");
    let tower = shards("house_of_cards", "6", "5", 2);
    let huge = tower[1].replacen("\"values\":[", "\"values\":[9223372036854775807,", 1);
    let huge = huge.replacen("\"nodes\":[", "\"nodes\":[1,", 1).replacen("\"deals\":3", "\"deals\":4", 1);
    let (code, out, err) = arbiter(&["merge", "house_of_cards", "-"], &(tower[0].clone() + &huge));
    assert_eq!(code, Some(4), "{out}{err}");
    assert!(err.contains("past the scores"), "{err}");
    // The parts of other rules.
    let (code, _, err) = arbiter(&["merge", "rules/shuffling_patience/small-grid.rules", "-"], &parts.concat());
    assert_eq!(code, Some(4), "{err}");
    assert!(err.contains("a partial result of other rules"), "{err}");
    // An exact analysis has no samples to shard.
    let (code, _, err) = arbiter(&["analyze", "get_straight", "--shard", "1/2"], "");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("exact"), "{err}");
    let (code, _, err) = arbiter(&["analyze", "get_straight", "--shard", "0/2"], "");
    assert_eq!(code, Some(2), "{err}");
}

/// `--jobs N` samples chunks on N threads and joins them in sample order:
/// the figures, a shard's partial result and the exit code are those of
/// one thread, for an analysis that stops short of its samples (its node
/// budget, exit 8) too.
#[test]
fn every_number_of_threads_gives_the_figures_of_one() {
    for args in [
        &["analyze", "rules/shuffling_patience.rules", "--samples", "9000", "--seed", "4"][..],
        &["analyze", "house_of_cards", "--samples", "40", "--seed", "2"],
        &["analyze", "house_of_cards", "--samples", "40", "--seed", "2", "--max-nodes", "60000"],
        &["analyze", "house_of_cards", "--samples", "40", "--seed", "2", "--max-nodes", "60000", "--format", "json"],
        &["analyze", "house_of_cards", "--samples", "90", "--shard", "2/3", "--partial", "--max-nodes", "90000"],
        &["analyze", "shuffling_patience/small-grid", "--samples", "900", "--shard", "3/4", "--partial"],
        &["diff", "shuffling_patience", "shuffling_patience/small-grid", "--samples", "700"],
    ] {
        let one = arbiter(&[args, &["--jobs", "1"]].concat(), "");
        assert!(one.0 == Some(0) || one.0 == Some(8) || args[0] == "diff", "{args:?}: {one:?}");
        for jobs in ["2", "3", "16"] {
            assert_eq!(arbiter(&[args, &["--jobs", jobs]].concat(), ""), one, "{args:?} with --jobs {jobs}");
        }
    }
    // The budget stopped the analysis above: the figures say where.
    let (code, out, _) = arbiter(
        &["analyze", "house_of_cards", "--samples", "40", "--seed", "2", "--max-nodes", "60000", "-j", "2"],
        "",
    );
    assert_eq!(code, Some(8));
    assert!(out.contains("stopped") && !out.contains("40 random deals"), "{out}");
}

/// An exact analysis past its engine's limits prints which limit (the
/// figure `analysis`) and exits 8 with a limit diagnostic, not 0: here
/// hands of 12 cards, 2,704,156 multisets of ranks of up to 2^12 choices
/// each.
#[test]
fn an_analysis_past_its_limits_exits_8() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("analyze-limit");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("twelve.rules");
    std::fs::write(
        &path,
        "engine: exchange\ndeck { ranks: A 2 3 4 5 6 7 8 9 T J Q K  suits: S H D C }\n\
         play { hand: 12 entry: 1 exchange: 0..12 cost: 0 prefer: fewer-cards leftmost }\n\
         combination \"Four\" { pattern: kind(4) pays: 10 }\ncombination \"Nothing\" { pattern: any pays: 0 }\n\
         output { stay: \"Stay\" exchange: \"Exchange {cards}\" }\n",
    )
    .unwrap();
    let (code, out, err) = arbiter(&["analyze", path.to_str().unwrap()], "");
    assert_eq!(code, Some(8), "{out}{err}");
    assert!(out.contains("analysis") && out.contains("pass the analysis limit of 2^30"), "{out}");
    assert!(err.contains("arbiter::limit") && err.contains("no analysis of these rules"), "{err}");
}
