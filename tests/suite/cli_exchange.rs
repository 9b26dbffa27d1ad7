//! The real binary on exchange-engine configurations that used to panic,
//! hang or print a wrong answer (../shared/hardening/FAILURES.md rows P1,
//! P4, H4-H8, W1, W2, B11): each now ends in bounded time with a correct
//! output or a located diagnostic. Also the analysis and explanation
//! layouts of video poker.

use std::path::PathBuf;
use std::time::Duration;

use assert_cmd::Command;

fn arbiter() -> Command {
    let mut c = Command::cargo_bin("arbiter").unwrap();
    c.current_dir(env!("CARGO_MANIFEST_DIR")).env("NO_COLOR", "1").timeout(Duration::from_secs(60));
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Writes a rule file into a fresh folder of the target directory.
fn file(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_exchange");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn base() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("rules/get_straight.rules").display().to_string()
}

const R2H16: &str = r#"engine: exchange
deck { ranks: a b  suits: s0 s1 s2 s3 s4 s5 s6 s7 s8 s9 s10 s11 s12 s13 s14 s15 }
play { hand: 16 entry: 1 cost: 1 exchange: 0..16 prefer: fewer-cards }
combination "nine" { pattern: kind(9) pays: 10 }
combination "any" { pattern: any pays: 0 }
output { stay: "Stay" exchange: "Exchange {cards}" }
"#;

#[test]
fn p1_explain_without_an_any_row() {
    let rules = file("nodummy.rules", &format!("extends: \"{}\"\nremove: combination \"Dummy\"\n", base()));
    let out = arbiter().args(["run", "--explain"]).arg(&rules).write_stdin("AS 3H 5D 7C 9S\n#\n").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("forms no combination"), "{}", text(&out.stdout));
    let json = arbiter()
        .args(["run", "--explain", "--format", "json"])
        .arg(&rules)
        .write_stdin("AS 3H 5D 7C 9S\n#\n")
        .output();
    assert_eq!(json.unwrap().status.code(), Some(0));
}

#[test]
fn p4_a_pattern_of_50000_parts_is_a_diagnostic() {
    let pattern = "run(1) + ".repeat(50_000) + "run(1)";
    let rules =
        file("pat.rules", &format!("extends: \"{}\"\ncombination \"x\" {{ pattern: {pattern} pays: 1 }}\n", base()));
    let out = arbiter().arg("check").arg(&rules).output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    // The language's bound on chains comes first...
    assert!(text(&out.stderr).contains("arbiter::too-deep"), "{}", text(&out.stderr));
    // ...and a chain within it meets the engine's bound on parts.
    let pattern = "run(1) + ".repeat(100) + "run(1)";
    let rules =
        file("pat100.rules", &format!("extends: \"{}\"\ncombination \"x\" {{ pattern: {pattern} pays: 1 }}\n", base()));
    let out = arbiter().arg("check").arg(&rules).output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("at most 64 parts"), "{}", text(&out.stderr));
}

#[test]
fn h4_twelve_cards_over_four_ranks() {
    let rules = file(
        "h12.rules",
        r#"engine: exchange
deck { ranks: a b c d  suits: s0 s1 s2 s3 s4 s5 s6 s7 s8 s9 t0 t1 }
play { hand: 12 exchange: 0..12 prefer: fewer-cards }
combination "any" { pattern: any pays: 0 }
output { stay: "Stay" exchange: "Exchange {cards}" }
"#,
    );
    let out = arbiter().arg("check").arg(&rules).timeout(Duration::from_secs(10)).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = arbiter()
        .arg("run")
        .arg(&rules)
        .write_stdin("as0 bs0 cs0 ds0 as1 bs1 cs1 ds1 as2 bs2 cs2 ds2\n#\n")
        .timeout(Duration::from_secs(10))
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout), "Stay\n");
}

#[test]
fn h5_sixty_four_ranks_end_quickly() {
    let ranks: Vec<String> = (0..64).map(|i| format!("r{i}")).collect();
    let mut t = format!(
        "engine: exchange\ndeck {{ ranks: {}  suits: s }}\nplay {{ hand: 4 exchange: 0..4 prefer: fewer-cards }}\n",
        ranks.join(" ")
    );
    for i in 0..5 {
        t += &format!("combination \"c{i}\" {{ pattern: kind(1) + kind(1) + kind(1) + kind(1) + kind(1) pays: 1 }}\n");
    }
    t += "combination \"any\" { pattern: any pays: 0 }\noutput { stay: \"Stay\" exchange: \"Exchange {cards}\" }\n";
    let rules = file("r64.rules", &t);
    let out = arbiter().arg("check").arg(&rules).timeout(Duration::from_secs(20)).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("can never be formed"), "{}", text(&out.stderr));
}

#[test]
fn h6_and_w1_sixteen_card_hands_run_and_analyse() {
    let rules = file("r2h16.rules", R2H16);
    // 300 deals: eight of each rank, in shuffled orders.
    let mut input = String::new();
    let mut x = 12345u64;
    for _ in 0..300 {
        let mut cards: Vec<String> =
            (0..8).flat_map(|i| [format!("as{}", 2 * i), format!("bs{}", 2 * i + 1)]).collect();
        for i in (1..cards.len()).rev() {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            cards.swap(i, (x >> 33) as usize % (i + 1));
        }
        input += &cards.join(" ");
        input.push('\n');
    }
    input += "#\n";
    let out = arbiter().arg("run").arg(&rules).write_stdin(input).timeout(Duration::from_secs(20)).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let lines = text(&out.stdout);
    assert_eq!(lines.lines().count(), 300);
    // Nine of a kind from eight and eight: exchange three of one rank.
    assert!(lines.lines().all(|l| l.split(' ').count() == 4), "{lines}");
    // W1: the analysis of 16-card hands is not "always stay".
    let out = arbiter().arg("analyze").arg(&rules).timeout(Duration::from_secs(20)).output().unwrap();
    let report = text(&out.stdout);
    assert!(report.contains("expected stake per game    12199901/6678671"), "{report}");
}

#[test]
fn h7_repeated_exchange_sizes_are_one_size() {
    let text0 = std::fs::read_to_string(base()).unwrap();
    let rules = file("sizes.rules", &text0.replace("exchange: 0..1 ", &format!("exchange: {}1 ", "0 ".repeat(20_000))));
    let out = arbiter().arg("analyze").arg(&rules).timeout(Duration::from_secs(20)).output().unwrap();
    let want = arbiter().args(["analyze", "rules/get_straight.rules"]).output().unwrap();
    let strip = |b: &[u8]| text(b).lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(strip(&out.stdout), strip(&want.stdout));
}

#[test]
fn h8_analysis_of_eight_cards_of_sixty_four() {
    let rules = file(
        "r8h8.rules",
        r#"engine: exchange
deck { ranks: r0 r1 r2 r3 r4 r5 r6 r7
 suits: s0 s1 s2 s3 s4 s5 s6 s7 }
play { hand: 8 entry: 1 exchange: 0..8 cost: 1 prefer: fewer-cards leftmost }
combination "r0" { pattern: kind(4) pays: 10 }
combination "r1" { pattern: run(5) pays: 3 }
combination "r2" { pattern: any pays: 0 }
output { stay: "Stay" exchange: "Exchange {cards}" }
"#,
    );
    let out = arbiter().arg("analyze").arg(&rules).timeout(Duration::from_secs(30)).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("deals                      4426165368"), "{}", text(&out.stdout));
}

#[test]
fn w2_two_aces_need_two_aces() {
    let rules = file(
        "ranks_dup.rules",
        &format!("extends: \"{}\"\nreplace combination \"Straight\" {{ pattern: ranks(A A) pays: 100 }}\n", base()),
    );
    let out = arbiter().args(["run", "--explain"]).arg(&rules).write_stdin("AS 3H 6D 9C JC\n#\n").output().unwrap();
    let shown = text(&out.stdout);
    assert!(!shown.contains("forms `Straight` first"), "{shown}");
    assert!(shown.contains("forms `Dummy` first"), "{shown}");
    let out = arbiter().args(["run"]).arg(&rules).write_stdin("AS 3H 6D 9C AC\n#\n").output().unwrap();
    assert_eq!(text(&out.stdout), "Stay\n");
}

#[test]
fn b11_nothing_staked_has_no_return() {
    let rules = file("b11.rules", &R2H16.replace(" entry: 1 cost: 1", ""));
    let out = arbiter().arg("analyze").arg(&rules).output().unwrap();
    let report = text(&out.stdout);
    assert!(!report.contains("inf"), "{report}");
    assert!(report.contains("undefined: nothing is staked"), "{report}");
}

#[test]
fn video_poker_analysis_prints_the_return_and_a_row_table() {
    let out = arbiter().args(["analyze", "rules/video_poker.rules"]).output().unwrap();
    let report = text(&out.stdout);
    assert!(report.contains("return to player           99.5439 % (1653526326983/1661102543100)"), "{report}");
    let royal = report.lines().find(|l| l.starts_with("Royal Flush")).unwrap();
    let cells: Vec<&str> = royal.split_whitespace().collect();
    // Row, pays, count, probability, 1 in, return share (in % and exactly).
    assert_eq!(
        cells,
        ["Royal", "Flush", "800", "493512264", "0.0000247583", "40390.55", "1.9807", "%", "15667056/791001211"],
        "{royal}"
    );
}

#[test]
fn video_poker_explanations_give_each_holds_return_and_the_rows_drawn() {
    let out = arbiter()
        .args(["run", "--explain", "rules/video_poker.rules"])
        .write_stdin("AS KS QS JS 2D\n#\n")
        .output()
        .unwrap();
    let shown = text(&out.stdout);
    assert!(shown.contains("Hold AS KS QS JS: 872/47 - 1 = 825/47"), "{shown}");
    assert!(shown.contains("1 of 47 draws make it: pays 800"), "{shown}");
    assert!(shown.contains("combination \"Royal Flush\""), "{shown}");
}

/// A deal where staying (1 for sure) and exchanging (3 once in 3 draws)
/// are both worth 1: the variance (0 and 2) decides when `prefer` asks.
const VARIANCE: &str = r#"engine: exchange
deck { ranks: 1 2 3 4  suits: s }
play { hand: 1  exchange: 0..1  prefer: PREFER }
combination "four" { pattern: ranks(4)  pays: 3 }
combination "two"  { pattern: ranks(2)  pays: 1 }
combination "none" { pattern: any       pays: 0 }
output { stay: "Stay" exchange: "Exchange {cards}" }
"#;

#[test]
fn variance_breaks_ties_in_run_and_explain() {
    for (prefer, want) in [
        ("lower-variance", "Stay"),
        ("higher-variance", "Exchange 2s"),
        ("more-cards", "Exchange 2s"),
        ("lower-variance more-cards", "Stay"),
        ("more-cards lower-variance", "Exchange 2s"),
        // After a position criterion no tie is left for the variance.
        ("leftmost higher-variance", "Stay"),
        ("rightmost lower-variance", "Exchange 2s"),
    ] {
        let rules = file("variance.rules", &VARIANCE.replace("PREFER", prefer));
        let out = arbiter().arg("run").arg(&rules).write_stdin("2s\n#\n").output().unwrap();
        assert_eq!(text(&out.stdout), format!("{want}\n"), "{prefer}: {}", text(&out.stderr));
        // `--explain` ranks the chosen choice first, variances beside.
        let out = arbiter()
            .args(["run", "--explain", "--format", "json"])
            .arg(&rules)
            .write_stdin("2s\n#\n")
            .output()
            .unwrap();
        let e: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
        assert_eq!(e["output"], want, "{prefer}");
        assert_eq!(e["choices"][0]["output"], want, "{prefer}");
        assert_eq!(e["choices"][0]["chosen"], true);
        let variance = |i: usize| {
            e["choices"][i]["figures"].as_array().unwrap().iter().find(|f| f["key"] == "variance").unwrap()["exact"]
                .clone()
        };
        let (stay, exchange) = if want == "Stay" { (0, 1) } else { (1, 0) };
        assert_eq!((variance(stay), variance(exchange)), ("0".into(), "2".into()), "{prefer}");
    }
}

/// `run --explain --format json` (docs/cli.md): every field, of its type;
/// the exchange engine's choices with their figures as numbers beside
/// exact fractions; other engines' explanations with no choices.
#[test]
fn explain_json_has_every_field() {
    let out = arbiter()
        .args(["run", "--explain", "--format", "json", "rules/video_poker.rules"])
        .write_stdin("AS KS QS JS 2D\n3C 8D 9H 4S 7C\n#\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let lines: Vec<serde_json::Value> = text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    let keys = |v: &serde_json::Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort_unstable();
        k
    };
    let number = |v: &serde_json::Value, at: &str| {
        assert!(v["text"].is_string(), "{at}: {v}");
        let exact = v["exact"].as_str().unwrap_or_else(|| panic!("{at}: {v}"));
        let parts: Vec<f64> = exact.split('/').map(|p| p.parse::<i128>().unwrap() as f64).collect();
        let x = parts[0] / parts.get(1).copied().unwrap_or(1.0);
        assert!((v["value"].as_f64().unwrap() - x).abs() <= 1e-9 * x.abs().max(1.0), "{at}: {v}");
    };
    for e in &lines {
        assert_eq!(keys(e), ["choices", "output", "rules", "summary", "values"]);
        assert!(e["output"].is_string() && e["summary"].is_string());
        for r in e["rules"].as_array().unwrap() {
            assert_eq!(keys(r), ["column", "file", "line", "says", "text"]);
            assert!(r["line"].is_u64() && r["column"].is_u64() && r["says"].is_string());
        }
        for v in e["values"].as_array().unwrap() {
            assert_eq!(keys(v), ["value", "what"]);
        }
        let choices = e["choices"].as_array().unwrap();
        assert!(choices.len() > 1);
        assert_eq!(choices.iter().filter(|c| c["chosen"] == true).count(), 1);
        assert_eq!(choices[0]["chosen"], true);
        assert_eq!(choices[0]["output"], e["output"]);
        let mut last = f64::INFINITY;
        for c in choices {
            assert_eq!(keys(c), ["chosen", "figures", "outcomes", "output"]);
            let figures: Vec<&str> =
                c["figures"].as_array().unwrap().iter().map(|f| f["key"].as_str().unwrap()).collect();
            assert_eq!(figures, ["expected_payout", "cost", "value", "variance", "draws"]);
            for f in c["figures"].as_array().unwrap() {
                assert_eq!(keys(f), ["exact", "key", "label", "text", "value"]);
                number(f, "figure");
            }
            let value = c["figures"][2]["value"].as_f64().unwrap();
            assert!(value <= last, "ranked by value");
            last = value;
            // One count per row of the table (and the hands no row takes,
            // when there are any), adding up to the draws.
            let mut total = 0;
            for o in c["outcomes"].as_array().unwrap() {
                assert_eq!(keys(o), ["at", "exact", "text", "value"]);
                number(o, "outcome");
                total += o["value"].as_u64().unwrap();
            }
            assert_eq!(c["outcomes"].as_array().unwrap().len(), 10);
            assert_eq!(total, c["figures"][4]["value"].as_u64().unwrap());
        }
    }
    // Holding the royal draw: 872/47 - 1, its draws 47.
    let hold = lines[0]["choices"].as_array().unwrap().iter().find(|c| c["output"] == "Hold AS KS QS JS").unwrap();
    assert_eq!(hold["figures"][2]["exact"], "825/47");
    assert_eq!(hold["figures"][4]["value"], 47);
    assert_eq!(hold["outcomes"][0], serde_json::json!({"at": "Royal Flush", "text": "1", "value": 1, "exact": "1"}));
    // Another engine: its explanation's lines, no choices.
    let out = arbiter()
        .args(["run", "--explain", "--format", "json", "rules/get_straight.rules"])
        .write_stdin("TH JH QH KH AH\n#\n")
        .output()
        .unwrap();
    let e: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert!(e["choices"].as_array().unwrap().len() > 1, "get straight is the exchange engine too");
    let out = arbiter()
        .args(["run", "--explain", "--format", "json", "rules/house_of_cards.rules"])
        .arg("tests/cases/house_of_cards/00-sample.in")
        .output()
        .unwrap();
    let first: serde_json::Value = serde_json::from_str(text(&out.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(first["choices"], serde_json::json!([]));
    assert!(first["values"].is_array());
}

/// `pays: N to 1` is `pays: N + 1`, `pays: N for 1` is `pays: N`: the
/// same analysis; `fmt` keeps what was written; other odds are refused.
#[test]
fn pays_to_1_and_for_1() {
    let plain = std::fs::read_to_string(format!("{}/rules/video_poker.rules", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let odds = |to: bool| {
        plain
            .lines()
            .map(|l| match l.split_once("pays: ") {
                Some((head, n)) => {
                    let n: i64 = n.trim_end_matches(" }").parse().unwrap();
                    match (to, n) {
                        (true, n) if n > 0 => format!("{head}pays: {} to 1 }}", n - 1),
                        _ => format!("{head}pays: {n} for 1 }}"),
                    }
                }
                None => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    };
    let analysis = |path: &std::path::Path| {
        let out = arbiter().args(["analyze", "--format", "json"]).arg(path).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let mut v: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
        v["rules"] = serde_json::Value::Null;
        v
    };
    let base = analysis(std::path::Path::new("rules/video_poker.rules"));
    for to in [true, false] {
        let written = odds(to);
        assert!(written.contains(if to { "pays: 799 to 1 }" } else { "pays: 800 for 1 }" }));
        let path = file(if to { "to1.rules" } else { "for1.rules" }, &written);
        assert_eq!(analysis(&path), base, "to 1: {to}");
        let out = arbiter().arg("fmt").arg(&path).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let formatted = text(&out.stdout);
        assert!(formatted.contains(if to { "pays: 799 to 1" } else { "pays: 800 for 1" }), "{formatted}");
        let again = file("again.rules", &formatted);
        assert_eq!(text(&arbiter().arg("fmt").arg(&again).output().unwrap().stdout), formatted);
    }
    // An expression of `exchanged` takes `to 1` too.
    let rules = file(
        "expr-to1.rules",
        &format!(
            "extends: \"{}\"\ncombination \"Straight\" {{ pattern: run(5)  pays: if(exchanged == 0, 149, 99) to 1 }}\n",
            base_exchanged()
        ),
    );
    let out = arbiter().args(["run", "--explain"]).arg(&rules).write_stdin("2H 3C 4D 5S 6C\n#\n").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("keeping it is worth 150 - 1"), "{}", text(&out.stdout));
    let bad = file("three-to-two.rules", &plain.replace("pays: 50 }", "pays: 3 to 2 }"));
    let out = arbiter().arg("check").arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("a payout is per credit staked: `for 1` or `to 1`"), "{}", text(&out.stderr));
}

fn base_exchanged() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("rules/get_straight/pay-by-exchanges.rules").display().to_string()
}

/// What docs/engines/exchange.md says of `leftmost` and `rightmost` where
/// every choice ties (nothing pays, nothing costs): positions compared as
/// lists, `leftmost` in increasing order with the shorter list first
/// (staying first), `rightmost` in decreasing order with the longer list
/// first (every card exchanged first), unless a criterion before decides.
#[test]
fn leftmost_and_rightmost_where_every_choice_ties() {
    let rules = |prefer: &str, sizes: &str| {
        format!(
            "engine: exchange\ndeck {{ ranks: A 2 3 4 5 6 7 8 9 T J Q K  suits: S H D C }}\n\
             play {{ hand: 3 entry: 1 cost: 0 exchange: {sizes} prefer: {prefer} }}\n\
             combination \"Nothing\" {{ pattern: any pays: 0 }}\n\
             output {{ stay: \"Stay\" exchange: \"Exchange {{cards}}\" }}\n"
        )
    };
    for (prefer, sizes, want) in [
        ("rightmost", "0..3", "Exchange 2C 6S 9S"),
        ("rightmost", "0..1", "Exchange 9S"),
        ("rightmost", "1..2", "Exchange 6S 9S"),
        ("fewer-cards rightmost", "1..3", "Exchange 9S"),
        ("fewer-cards rightmost", "0..3", "Stay"),
        ("leftmost", "0..3", "Stay"),
        ("leftmost", "1..3", "Exchange 2C"),
        ("more-cards leftmost", "0..2", "Exchange 2C 6S"),
    ] {
        let path = file("ties.rules", &rules(prefer, sizes));
        let out = arbiter().arg("run").arg(&path).write_stdin("2C 6S 9S\n#\n").output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{prefer} {sizes}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), format!("{want}\n"), "prefer: {prefer}, exchange: {sizes}");
    }
    // Hands of five: the second and third deals hold the first one's ranks
    // in other orders (their choices come from what the first one left).
    for (prefer, sizes, want) in [
        ("rightmost", "0..5", ["2C 6S 9S TD KH", "9S KH 2C 6S TD", "KH TD 9S 6S 2C"]),
        ("fewer-cards rightmost", "1..5", ["KH", "TD", "2C"]),
        ("leftmost", "1..5", ["2C", "9S", "KH"]),
        ("more-cards leftmost", "0..2", ["2C 6S", "9S KH", "KH TD"]),
    ] {
        let path = file("ties5.rules", &rules(prefer, sizes).replace("hand: 3", "hand: 5"));
        let input = "2C 6S 9S TD KH\n9S KH 2C 6S TD\nKH TD 9S 6S 2C\n#\n";
        let out = arbiter().arg("run").arg(&path).write_stdin(input).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{prefer} {sizes}: {}", text(&out.stderr));
        let want: String = want.iter().map(|w| format!("Exchange {w}\n")).collect();
        assert_eq!(text(&out.stdout), want, "five cards, prefer: {prefer}, exchange: {sizes}");
    }
}
