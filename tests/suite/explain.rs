//! `arbiter run --explain`: each output line with the rules that produced
//! it (as places in the rule file) and the exact values that decided.

use assert_cmd::Command;

fn explain(rules: &str, input: &str, json: bool) -> String {
    let mut c = Command::cargo_bin("arbiter").unwrap();
    c.current_dir(env!("CARGO_MANIFEST_DIR")).env("NO_COLOR", "1").args(["run", "--explain", rules]);
    if json {
        c.args(["--format", "json"]);
    }
    let out = c.write_stdin(input).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The 1-based line of the rule file that starts with `prefix`.
fn line_of(rules: &str, prefix: &str) -> u64 {
    let text = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rules)).unwrap();
    text.lines().position(|l| l.trim_start().starts_with(prefix)).unwrap() as u64 + 1
}

#[test]
fn the_statements_example_is_explained_with_its_fractions() {
    let text = explain("rules/get_straight.rules", "2H 3S 5D 6C TC\n#\n", false);
    assert!(text.contains("Exchange TC"), "{text}");
    assert!(text.contains("Exchange TC: 475/47 - 2 = 381/47"), "{text}");
    assert!(text.contains("4 of 47 draws make it: pays 100"), "{text}");
    assert!(text.contains("8 of 47 draws make it: pays 5"), "{text}");
    assert!(text.contains("35 of 47 draws keep it"), "{text}");
    assert!(text.contains("combination \"Straight\""), "{text}");
}

#[test]
fn json_points_at_the_rows_that_decided() {
    let rules = "rules/get_straight.rules";
    let text = explain(rules, "2H 3S 5D 6C TC\n9C 9S 3H 8D 8C\n#\n", true);
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["output"], "Exchange TC");
    assert_eq!(lines[1]["output"], "Stay");
    let straight = line_of(rules, "combination \"Straight\"");
    let rule =
        lines[0]["rules"].as_array().unwrap().iter().find(|r| r["says"] == "4 of 47 draws make it: pays 100").unwrap();
    assert_eq!(rule["line"], straight);
    assert_eq!(rule["text"], "combination \"Straight\"");
    let values = lines[1]["values"].as_array().unwrap();
    let exchange_3h = values.iter().find(|v| v["what"] == "Exchange 3H").unwrap();
    assert!(exchange_3h["value"].as_str().unwrap().starts_with("79/47 - 2 = -15/47 (-0.3191); final rows: "));
}

#[test]
fn ties_name_the_tie_break_rule() {
    let rules = "rules/get_straight/two-exchanges.rules";
    let text = explain(rules, "9C 5D 9D 9S 7D\n#\n", true);
    let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(v["output"], "Exchange 9C 9D");
    let tie =
        v["rules"].as_array().unwrap().iter().find(|r| r["says"].as_str().unwrap().contains("equally good")).unwrap();
    assert_eq!(tie["text"], "prefer: fewer-cards leftmost");
    assert!(tie["file"].as_str().unwrap().ends_with("get_straight.rules"));
}

/// Every case of tests/cases, explained: the outputs of the explanations,
/// in order, are exactly what `run` prints, for every engine and variant.
#[test]
fn explanations_cover_every_output_line_of_every_case() {
    use arbiter::{engines::compile, load::load_path};
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    let mut engines = std::collections::BTreeSet::new();
    for (rules, dir) in case_suites(&root) {
        let loaded = load_path(&rules).unwrap();
        let game = compile(&loaded).0.unwrap();
        let explainer = game.game.explainer().unwrap_or_else(|| panic!("{}: no explainer", rules.display()));
        engines.insert(game.engine.name.to_string());
        let mut ins: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "in"))
            .collect();
        ins.sort();
        for input in ins {
            let expected = std::fs::read_to_string(input.with_extension("out")).unwrap();
            let text = std::fs::read_to_string(&input).unwrap();
            let mut outputs = Vec::new();
            let opts = arbiter::game::RunOptions::default();
            let result = explainer.explain(&mut arbiter::game::Input::from_text(&text), &opts, &mut |e| {
                assert!(!e.summary.is_empty(), "{}: an explanation without a summary", input.display());
                assert!(!e.rules.is_empty(), "{}: `{}` cites no rule", input.display(), e.output);
                outputs.push(e.output);
                Ok(())
            });
            // Cases that end in an input error explain the lines before it.
            let got = if outputs.is_empty() { String::new() } else { outputs.join("\n") + "\n" };
            if result.is_ok() {
                assert_eq!(got, expected, "{}", input.display());
            } else {
                assert!(expected.starts_with(&got), "{}", input.display());
            }
            checked += 1;
        }
    }
    assert!(checked >= 80, "only {checked} cases");
    assert_eq!(engines.len(), arbiter::engines::ENGINES.len(), "every engine explains some case: {engines:?}");
}

fn case_suites(root: &std::path::Path) -> Vec<(std::path::PathBuf, std::path::PathBuf)> {
    let mut out = Vec::new();
    let mut games: Vec<_> = std::fs::read_dir(root.join("tests/cases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    games.sort();
    for g in games {
        let game = g.file_name().unwrap().to_string_lossy().to_string();
        out.push((root.join(format!("rules/{game}.rules")), g.clone()));
        for v in std::fs::read_dir(g.join("variants")).into_iter().flatten() {
            let v = v.unwrap().path();
            out.push((root.join(format!("rules/{game}/{}.rules", v.file_name().unwrap().to_string_lossy())), v));
        }
    }
    out
}

fn json(rules: &str, input: &str) -> Vec<serde_json::Value> {
    explain(rules, input, true).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn rule<'a>(v: &'a serde_json::Value, says: &str) -> &'a serde_json::Value {
    v["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["says"].as_str().unwrap().contains(says))
        .unwrap_or_else(|| panic!("no rule says `{says}`: {v}"))
}

fn value<'a>(v: &'a serde_json::Value, what: &str) -> &'a str {
    v["values"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["what"] == what)
        .unwrap_or_else(|| panic!("no value `{what}`: {v}"))["value"]
        .as_str()
        .unwrap()
}

#[test]
fn patience_coverings_are_listed_and_counted_by_group() {
    let rules = "rules/shuffling_patience.rules";
    let input =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases/shuffling_patience/00-sample.in"))
            .unwrap();
    let v = &json(rules, &input)[0];
    // The statement's opening: KH 9H cover the pair 8S 3H.
    assert_eq!(value(v, "cards 8-9"), "`pair` 8S 3H on piles 3 7: covered by KH 9H");
    let coverings =
        v["values"].as_array().unwrap().iter().filter(|x| x["what"].as_str().unwrap().starts_with("card")).count();
    let counted: usize = ["pair", "triple"]
        .iter()
        .map(|g| {
            let r = v["rules"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["line"] == line_of(rules, &format!("group \"{g}\"")))
                .unwrap();
            r["says"].as_str().unwrap().split_whitespace().nth(1).unwrap().parse::<usize>().unwrap()
        })
        .sum();
    assert_eq!(coverings, counted);
    assert_eq!(rule(v, "piles used")["says"], "11 of 16 piles used");

    let sorted = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/cases/shuffling_patience/01-sorted-pack-overflow-17.in"
    ))
    .unwrap();
    let v = &json(rules, &sorted)[0];
    assert_eq!(value(v, "exposed").split(' ').count(), 16);
    assert!(v["summary"].as_str().unwrap().contains("card 17 (5S)"), "{v}");
    assert_eq!(rule(v, "writes the line")["line"], line_of(rules, "overflow:"));
}

#[test]
fn house_of_cards_turns_add_up_to_the_verdict() {
    let rules = "rules/house_of_cards.rules";
    let input = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/cases/house_of_cards/01-statement-example-deck.in"
    ))
    .unwrap();
    for v in json(rules, &input) {
        // "case N: both play perfectly; Axel scores A and Birgit scores B"
        let summary = v["summary"].as_str().unwrap();
        let nums: Vec<i64> =
            summary.split(|c: char| !c.is_ascii_digit() && c != '-').filter_map(|w| w.parse().ok()).collect();
        let (a, b) = (nums[1], nums[2]);
        // The triangles scored turn by turn, plus held cards, give the scores.
        let mut scores = [0i64; 2];
        for x in v["values"].as_array().unwrap() {
            let s = x["value"].as_str().unwrap();
            if let Some(rest) = s.split(": triangle ").nth(1) {
                let words: Vec<&str> = rest.split_whitespace().collect();
                let pts: i64 = words[4].parse().unwrap();
                scores[usize::from(words[6] != "Axel")] += pts;
            }
            if x["what"].as_str().unwrap().ends_with("holds at the end") {
                let held: i64 = s.split('(').nth(1).unwrap().trim_end_matches(')').parse().unwrap();
                scores[usize::from(!x["what"].as_str().unwrap().starts_with("Axel"))] += held;
            }
        }
        assert_eq!(scores, [a, b], "{v}");
        let out = v["output"].as_str().unwrap();
        let diff = a - b;
        let named_first = out.contains("Axel wins") || out.contains("Axel loses");
        let amount = if named_first { diff } else { -diff };
        match amount.signum() {
            1 => assert!(out.ends_with(&format!("wins {amount}")), "{out} vs {summary}"),
            -1 => assert!(out.ends_with(&format!("loses {}", -amount)), "{out} vs {summary}"),
            _ => assert!(out.ends_with("tie"), "{out}"),
        }
        assert_eq!(rule(&v, "the peaks")["line"], line_of(rules, "peaks:"));
    }
}

#[test]
fn snooker_fouls_show_the_condition_and_the_clamped_penalty() {
    let rules = "rules/snooker_referee.rules";
    let input = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/cases/snooker_referee/01-foul-pot-white.in"
    ))
    .unwrap();
    let all = json(rules, &input);
    let v = &all[1];
    assert_eq!(v["output"], "Foul!\n0 : 4\nBob's turn, in-hand");
    assert_eq!(rule(v, "holds")["line"], line_of(rules, "foul \"in-off\""));
    assert_eq!(rule(v, "= 1")["line"], line_of(rules, "value:"));
    assert_eq!(rule(v, "raised to 4")["line"], line_of(rules, "min:"));
    assert_eq!(value(v, "penalty"), "4 to Bob");
    // Hitting the Black after a Red: the ball hit first is the one on.
    let black = all.iter().find(|v| v["values"][0]["value"] == "Black").unwrap();
    assert_eq!(value(black, "on"), "Black");
    assert_eq!(rule(black, "is on")["line"], line_of(rules, "sequence:"));
}

#[test]
fn havannah_names_the_structure_and_its_stones() {
    let rules = "rules/havannah.rules";
    let input =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases/havannah/00-sample.in")).unwrap();
    let all = json(rules, &input);
    assert_eq!(all[0]["output"], "Case #1: bridge in move 2");
    assert_eq!(
        rule(&all[0], "corner `bottom` at (1, 1), corner `lower-right` at (1, 2)")["line"],
        line_of(rules, "cells \"corner\"")
    );
    let ring = all.iter().find(|v| v["output"].as_str().unwrap().contains("ring")).unwrap();
    assert_eq!(value(ring, "ring encloses"), "(3, 3)");
    assert_eq!(value(ring, "ring stones around").split(") (").count(), 6);
    let none = all.iter().find(|v| v["output"].as_str().unwrap().ends_with("none")).unwrap();
    assert!(rule(none, "not formed")["says"].as_str().unwrap().contains("needed"));
}

#[test]
fn an_ending_names_its_winner_as_the_input_names_the_players() {
    // concede.rules: after the tenth Black, Tom leads 80 : 0 with 67 left,
    // and Jerry concedes.
    let rules = "rules/snooker_referee/concede.rules";
    let mut input = String::from("1\n\nTom Jerry\n");
    for _ in 0..10 {
        input.push_str("Red Red\nBlack Black\n");
    }
    let all = json(rules, &input);
    let last = all.last().unwrap();
    assert!(last["output"].as_str().unwrap().ends_with("Jerry concedes, Tom wins"), "{last}");
    let says = rule(last, "holds after this stroke")["says"].as_str().unwrap();
    assert_eq!(says, "holds after this stroke: Tom wins");
    assert_eq!(rule(last, "holds after this stroke")["line"], line_of(rules, "ending \"concession\""));
    // The winner is the input's, not the file's order: the same frame with
    // the names the other way round is won by the player named first.
    let swapped = input.replace("Tom Jerry", "Jerry Tom");
    let all = json(rules, &swapped);
    let says = rule(all.last().unwrap(), "holds after this stroke")["says"].as_str().unwrap().to_string();
    assert_eq!(says, "holds after this stroke: Jerry wins");
}
