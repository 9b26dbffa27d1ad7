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
    let rule = lines[0]["rules"].as_array().unwrap().iter().find(|r| r["says"] == "4 of 47 draws make it: pays 100").unwrap();
    assert_eq!(rule["line"], straight);
    assert_eq!(rule["text"], "combination \"Straight\"");
    let values = lines[1]["values"].as_array().unwrap();
    let exchange_3h = values.iter().find(|v| v["what"] == "Exchange 3H").unwrap();
    assert_eq!(exchange_3h["value"], "79/47 - 2 = -15/47");
}

#[test]
fn ties_name_the_tie_break_rule() {
    let rules = "rules/get_straight/two-exchanges.rules";
    let text = explain(rules, "9C 5D 9D 9S 7D\n#\n", true);
    let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(v["output"], "Exchange 9C 9D");
    let tie = v["rules"].as_array().unwrap().iter().find(|r| r["says"].as_str().unwrap().contains("equally good")).unwrap();
    assert_eq!(tie["text"], "prefer: fewer-cards leftmost");
    assert!(tie["file"].as_str().unwrap().ends_with("get_straight.rules"));
}
