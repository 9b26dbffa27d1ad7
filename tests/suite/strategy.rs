//! `arbiter strategy` (issue 29 item 5): the chart's figures against a
//! brute force over every deal and draw of a small game, its JSON schema
//! field by field, and the goal on Jacks or Better 9/6 (the published
//! optimal return, at most 40 lines).

use assert_cmd::Command;
use num_rational::Ratio;
use serde_json::Value;

fn arbiter(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("arbiter")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .args(args)
        .timeout(std::time::Duration::from_secs(600))
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

fn chart(rules: &str, lines: &str) -> Value {
    let (code, out, err) = arbiter(&["strategy", rules, "--lines", lines, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

fn exact(v: &Value) -> Ratio<i128> {
    let s = v["exact"].as_str().unwrap_or_else(|| panic!("no exact value in {v}"));
    let (n, d) = s.split_once('/').unwrap_or((s, "1"));
    Ratio::new(n.parse().unwrap(), d.parse().unwrap())
}

const TINY: &str = "tests/fixtures/strategy/three-card.rules";

/// The fixture's pay table, written out: ranks 0..6, suits 0..3, a card
/// is rank * 3 + suit.
fn pays(hand: &[usize]) -> i128 {
    let mut r: Vec<usize> = hand.iter().map(|c| c / 3).collect();
    r.sort_unstable();
    let suited = hand.iter().all(|c| c % 3 == hand[0] % 3);
    let run = r[1] == r[0] + 1 && r[2] == r[1] + 1;
    let triple = r[0] == r[2];
    let high_pair = (r[0] == r[1] || r[1] == r[2]) && r[1] >= 4;
    match () {
        _ if suited && run => 20,
        _ if triple => 12,
        _ if suited => 4,
        _ if run => 3,
        _ if high_pair => 1,
        _ => 0,
    }
}

/// Every deal of the fixture, and for each the expected payout of keeping
/// each subset (a mask over the deal's three cards), by every draw.
fn brute_force() -> Vec<[Ratio<i128>; 8]> {
    let mut out = Vec::new();
    for a in 0..18 {
        for b in a + 1..18 {
            for c in b + 1..18 {
                let deal = [a, b, c];
                let rest: Vec<usize> = (0..18).filter(|x| !deal.contains(x)).collect();
                let mut values = [Ratio::from_integer(0); 8];
                for (kept, v) in values.iter_mut().enumerate() {
                    let held: Vec<usize> = (0..3).filter(|i| kept >> i & 1 == 1).map(|i| deal[i]).collect();
                    let need = 3 - held.len();
                    let (mut sum, mut n) = (0i128, 0i128);
                    let mut draw = |extra: &[usize]| {
                        let mut hand = held.clone();
                        hand.extend_from_slice(extra);
                        sum += pays(&hand);
                        n += 1;
                    };
                    match need {
                        0 => draw(&[]),
                        1 => rest.iter().for_each(|&x| draw(&[x])),
                        2 => {
                            for i in 0..rest.len() {
                                for j in i + 1..rest.len() {
                                    draw(&[rest[i], rest[j]]);
                                }
                            }
                        }
                        _ => {
                            for i in 0..rest.len() {
                                for j in i + 1..rest.len() {
                                    for k in j + 1..rest.len() {
                                        draw(&[rest[i], rest[j], rest[k]]);
                                    }
                                }
                            }
                        }
                    }
                    *v = Ratio::new(sum, n);
                }
                out.push(values);
            }
        }
    }
    out
}

#[test]
fn the_returns_match_every_deal_and_draw() {
    let deals = brute_force();
    let n = Ratio::from_integer(deals.len() as i128);
    let optimal: Ratio<i128> =
        deals.iter().map(|v| *v.iter().max().unwrap()).fold(Ratio::from_integer(0), |a, b| a + b) / n;
    let all_new: Ratio<i128> = deals.iter().map(|v| v[0]).fold(Ratio::from_integer(0), |a, b| a + b) / n;
    for lines in ["1", "3", "40"] {
        let c = chart(TINY, lines);
        assert_eq!(exact(&c["optimal"]), optimal, "--lines {lines}");
        assert_eq!(c["deals"], "816");
        let ls = c["lines"].as_array().unwrap();
        assert!(!ls.is_empty() && ls.len() <= lines.parse().unwrap(), "--lines {lines}: {} lines", ls.len());
        // The lines play every deal once; their values make the return
        // (the stake is the entry, 1).
        let share: Ratio<i128> = ls.iter().map(|l| exact(&l["deals"])).sum();
        assert_eq!(share, Ratio::from_integer(1));
        let earning: Ratio<i128> =
            ls.iter().filter(|l| !l["value"]["exact"].is_null()).map(|l| exact(&l["deals"]) * exact(&l["value"])).sum();
        let ret = exact(&c["return"]);
        assert_eq!(ret, earning + 1, "--lines {lines}");
        assert!(ret <= optimal);
        assert_eq!(exact(&c["loss"]), (optimal - ret) * 100);
        assert_eq!(ls.last().unwrap()["kept"], 0, "the last line exchanges every card");
        if lines == "1" {
            // One line: every card exchanged on every deal.
            assert_eq!(ret, all_new);
        }
    }
}

#[test]
fn the_json_has_every_field() {
    let c = chart(TINY, "40");
    for key in ["kind", "version", "engine", "title", "rules", "lines", "return", "optimal", "loss", "classes", "deals"]
    {
        assert!(c.get(key).is_some(), "no {key}");
    }
    assert_eq!(c["kind"], "arbiter-strategy");
    assert_eq!(c["version"], 1);
    assert_eq!(c["engine"], "exchange");
    assert_eq!(c["title"], "Three-card draw");
    for key in ["return", "optimal", "loss"] {
        assert!(c[key]["value"].is_f64(), "{key}");
        let x = exact(&c[key]);
        assert!((c[key]["value"].as_f64().unwrap() - *x.numer() as f64 / *x.denom() as f64).abs() < 1e-12);
    }
    for (i, l) in c["lines"].as_array().unwrap().iter().enumerate() {
        assert_eq!(l["line"], i + 1);
        assert!(l["label"].is_string() && l["kept"].is_u64());
        for key in ["deals", "value"] {
            assert!(l[key].get("value").is_some() && l[key].get("exact").is_some(), "{key} of {l}");
        }
    }
}

/// The labels are the rule file's row names: no word of the chart comes
/// from Rust but the fixed connecting words.
#[test]
fn the_lines_speak_the_rule_files_words() {
    let c = chart(TINY, "40");
    let rows = ["Suited Run", "Triple", "Suited", "Run", "High Pair"];
    for l in c["lines"].as_array().unwrap() {
        let label = l["label"].as_str().unwrap();
        let kept = l["kept"].as_u64().unwrap();
        assert!(kept == 0 || rows.iter().any(|r| label.contains(r)) || label.contains("part of no row"), "{label}");
    }
}

/// The goal of issue 29 on Jacks or Better 9/6: the published optimal
/// return, a chart of at most 40 lines; the loss is printed, and the
/// text and JSON agree.
#[test]
fn jacks_or_better_has_a_chart_of_at_most_40_lines() {
    let c = chart("rules/video_poker.rules", "40");
    assert!(c["optimal"]["value"].as_f64().unwrap() * 100.0 - 99.5439 < 5e-5);
    assert_eq!(exact(&c["optimal"]), Ratio::new(1_653_526_326_983, 1_661_102_543_100));
    let lines = c["lines"].as_array().unwrap();
    assert!(lines.len() <= 40);
    let ret = c["return"]["value"].as_f64().unwrap();
    assert!(ret < c["optimal"]["value"].as_f64().unwrap() && ret > 0.99, "{ret}");
    let labels: Vec<&str> = lines.iter().map(|l| l["label"].as_str().unwrap()).collect();
    assert_eq!(labels[0], "Royal Flush");
    assert!(labels.contains(&"Jacks or Better"), "{labels:?}");
}

/// `{row}`, `{value}` and `{exact}` in the output lines, against values
/// worked out by hand from the pay table: four to the royal draw 47 cards,
/// 1 royal (800), 8 flushes (6), 3 straights (4), 12 high pairs (1).
#[test]
fn the_value_and_row_fields_print_the_chosen_choice() {
    let (code, out, err) = {
        let out = Command::cargo_bin("arbiter")
            .unwrap()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["run", "tests/fixtures/strategy/fields.rules"])
            .write_stdin("AS KS QS JS 2D\nTS JS QS KS AS\n#\n")
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert_eq!(code, Some(0), "{err}");
    let royal = Ratio::new(800 + 8 * 6 + 3 * 4 + 12, 47) - 1;
    assert_eq!(royal, Ratio::new(825, 47));
    assert_eq!(
        out,
        "Hold AS KS QS JS (17.5532 = 825/47) from Nothing\nStay TS JS QS KS AS: 799.0000 = 799, Royal Flush\n"
    );
}
