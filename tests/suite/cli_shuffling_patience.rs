//! The real binary on Shuffling Patience: input errors keep the lines of the
//! decks before them and name the line and column.

use assert_cmd::Command;

const RULES: &str = "rules/shuffling_patience.rules";

fn sample_deck() -> Vec<String> {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/shuffling_patience/00-sample.in"),
    )
    .unwrap();
    text.lines().take(4).map(String::from).collect()
}

fn run(input: &str) -> (Option<i32>, String, String) {
    let out = Command::cargo_bin("arbiter")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .args(["run", RULES])
        .write_stdin(input)
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// One good deck, then `bad` (four lines), then `#`.
fn after_one_good(bad: &[String]) -> String {
    let mut s = sample_deck().join("\n") + "\n";
    s += &bad.join("\n");
    s + "\n#\n"
}

fn expect(input: &str, at: (usize, usize), message: &str) {
    let (code, stdout, stderr) = run(input);
    assert_eq!(code, Some(4), "{stderr}");
    assert_eq!(stdout, "  1:  8  6  7  4  3  5  4  4  2  5  4\n");
    assert!(stderr.contains(&format!("line {}, column {}", at.0, at.1)), "{stderr}");
    assert!(stderr.contains(message), "{stderr}");
}

#[test]
fn a_deck_of_51_cards() {
    let mut d = sample_deck();
    d[2] = d[2].rsplit_once(' ').unwrap().0.to_string();
    expect(&after_one_good(&d), (7, 36), "expected 13 cards on this line, found 12");
}

#[test]
fn a_deck_of_53_cards() {
    let mut d = sample_deck();
    d[1].push_str(" XX");
    expect(&after_one_good(&d), (6, 40), "expected 13 cards on this line, found more");
}

#[test]
fn a_repeated_card() {
    let mut d = sample_deck();
    d[3] = d[3].replacen("AS", "TS", 1);
    expect(&after_one_good(&d), (8, 1), "card `TS` appears twice in deck 2");
}

#[test]
fn an_unknown_card() {
    let mut d = sample_deck();
    d[0] = d[0].replacen("QC", "QX", 1);
    expect(&after_one_good(&d), (5, 4), "expected a card, found `QX`");
}

#[test]
fn a_missing_terminator() {
    let input = sample_deck().join("\n") + "\n";
    let (code, stdout, stderr) = run(&input);
    assert_eq!(code, Some(4));
    assert_eq!(stdout, "  1:  8  6  7  4  3  5  4  4  2  5  4\n");
    assert!(
        stderr.contains("expected a deck or `#`, found end of input") && stderr.contains("line 5, column 1"),
        "{stderr}"
    );
}

/// Runs `args` in a scratch folder holding `files`; also returns the time.
fn in_dir(files: &[(&str, &str)], args: &[&str], stdin: &str) -> (Option<i32>, String, String, std::time::Duration) {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("arbiter-cli-sp-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text.replace("@ROOT@", env!("CARGO_MANIFEST_DIR"))).unwrap();
    }
    let t = std::time::Instant::now();
    let out = Command::cargo_bin("arbiter")
        .unwrap()
        .current_dir(&dir)
        .env("NO_COLOR", "1")
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    let took = t.elapsed();
    let _ = std::fs::remove_dir_all(&dir);
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr), took)
}

/// P5, M3, H10: a huge `cards` in a sum group panicked (capacity
/// overflow), ran out of memory, or made `check` linear in it; it is now
/// refused at once, before anything is sized by it.
#[test]
fn a_huge_group_is_refused_at_once() {
    for n in ["9223372036854775807", "1000000000", "100000000", "10000000"] {
        let rules = format!("extends: \"@ROOT@/rules/shuffling_patience.rules\"\ngroup \"pair\" {{ cards: {n} }}\n");
        let (code, _, stderr, took) = in_dir(&[("c.rules", &rules)], &["check", "c.rules"], "");
        assert_eq!(code, Some(3), "{n}: {stderr}");
        assert!(stderr.contains("group-too-large") && stderr.contains("c.rules:2:23"), "{n}: {stderr}");
        assert!(took.as_secs() < 10, "{n}: {took:?}");
    }
}

/// The H9 rule file: six cards of two ranks (worth 2 and 1) adding to 11,
/// on 64 piles, with `suits` suits.
fn sum6(suits: usize) -> String {
    let names: Vec<String> = (0..suits).map(|s| format!("s{s}")).collect();
    format!(
        "engine: covering\ndeck {{ ranks: a b  suits: {}  values: 2 1 }}\nlayout {{ piles: 64 }}\n\
         group \"six\" {{ cards: 6  ranks: a b  sum: 11 }}\n\
         output {{ played: \"{{deck}}:{{piles:>3|}}\"  overflow: \"{{deck}}: overflow at {{card}}\" }}\n",
        names.join(" ")
    )
}

/// The H9 deck: every `a` first, then every `b`.
fn sum6_deck(suits: usize) -> String {
    let a: Vec<String> = (0..suits).map(|s| format!("as{s}")).collect();
    let b: Vec<String> = (0..suits).map(|s| format!("bs{s}")).collect();
    format!("{} {}\n", a.join(" "), b.join(" "))
}

/// H9: the sum group's search backtracked exponentially (28 suits: over
/// 20 s; 40 suits: never done); it is now a table over the exposed cards
/// (tests/suite/covering.rs checks it against a brute force).
#[test]
fn a_sum_group_of_six_cards_is_quick() {
    for suits in [28, 40] {
        let input = sum6_deck(suits) + "#\n";
        let (code, stdout, stderr, took) = in_dir(&[("six.rules", &sum6(suits))], &["run", "six.rules"], &input);
        assert_eq!(code, Some(0), "{stderr}");
        assert!(took.as_secs() < 10, "{took:?}");
        let piles: Vec<usize> =
            stdout.trim_end().strip_prefix("1:").unwrap().split_whitespace().map(|n| n.parse().unwrap()).collect();
        assert_eq!(piles.iter().sum::<usize>(), 2 * suits, "{stdout}");
    }
}

/// H11: the same deck as a worked example made `arbiter test` hang.
#[test]
fn a_sum_group_example_is_quick_under_test() {
    let (_, want, _, _) = in_dir(&[("six.rules", &sum6(28))], &["run", "six.rules"], &(sum6_deck(28) + "#\n"));
    let rules = format!(
        "{}example \"all a first\" {{\n  input: \"\"\"\n{}#\n\"\"\"\n  output: \"\"\"\n{want}\"\"\"\n}}\n",
        sum6(28),
        sum6_deck(28)
    );
    let (code, stdout, stderr, took) = in_dir(&[("ex.rules", &rules)], &["test", "ex.rules"], "");
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("1 passed"), "{stdout}");
    assert!(took.as_secs() < 10, "{took:?}");
}
