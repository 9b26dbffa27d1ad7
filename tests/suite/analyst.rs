//! The analyst's figures of `arbiter analyze` (issue 29): published pay
//! tables' variance, counts and returns met exactly, the JSON schema of
//! `--format json` field by field, and the text layout (a snapshot).
//! Every figure is also checked against every deal of small games in
//! `tests/suite/expectation.rs` (`analysis_matches_every_deal`).

use assert_cmd::Command;
use serde_json::Value;

fn arbiter(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("arbiter")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .args(args)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

fn json(rules: &str) -> Value {
    let (code, out, err) = arbiter(&["analyze", rules, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

fn figure<'a>(report: &'a Value, key: &str) -> &'a Value {
    report["figures"].as_array().unwrap().iter().find(|f| f["key"] == key).unwrap_or_else(|| panic!("no {key}"))
}

fn row<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["tables"][0]["rows"].as_array().unwrap().iter().find(|r| r["row"]["text"] == name).unwrap()
}

/// The published figures (the Wizard of Odds' tables): variance to six
/// places, and Jacks or Better's count of royal flushes over its common
/// denominator.
#[test]
fn published_pay_tables_are_met() {
    for (rules, variance, rtp) in [
        ("rules/video_poker.rules", "19.514676", "99.5439 %"),
        ("tests/fixtures/analyst/double-double-bonus.rules", "41.984981", "98.9808 %"),
        ("tests/fixtures/analyst/not-so-ugly-ducks.rules", "25.780267", "99.7283 %"),
    ] {
        let r = json(rules);
        let v = figure(&r, "variance");
        assert!(v["text"].as_str().unwrap().starts_with(&format!("{variance} (")), "{rules}: {v}");
        assert!((v["value"].as_f64().unwrap() - variance.parse::<f64>().unwrap()).abs() < 5e-7, "{rules}");
        let sd = figure(&r, "standard_deviation")["value"].as_f64().unwrap();
        assert!((sd * sd - v["value"].as_f64().unwrap()).abs() < 1e-9, "{rules}");
        assert!(figure(&r, "return_to_player")["text"].as_str().unwrap().starts_with(rtp), "{rules}");
    }
    let r = json("rules/video_poker.rules");
    assert_eq!(figure(&r, "outcomes")["value"], 19_933_230_517_200u64);
    assert_eq!(row(&r, "Royal Flush")["count"]["value"], 493_512_264u64);
    assert_eq!(row(&r, "Nothing")["count"]["value"], 10_872_274_993_896u64);
    assert_eq!(figure(&r, "hit_frequency")["text"], "45.4565 % (377539813471/830551271550)");
    // The return share is the row's part of the return: pays x probability.
    assert_eq!(row(&r, "Royal Flush")["return_share"]["exact"], "15667056/791001211");
    assert_eq!(row(&r, "Royal Flush")["probability"]["exact"], "979191/39550060550");
}

/// Every field of the schema in docs/cli.md is present, of its type, on
/// every engine with an analysis.
#[test]
fn analyze_json_has_every_field() {
    let cell = |v: &Value, at: &str| {
        let o = v.as_object().unwrap_or_else(|| panic!("{at}: {v}"));
        let mut keys: Vec<&str> = o.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["exact", "text", "value"], "{at}");
        assert!(v["text"].is_string(), "{at}");
        assert!(v["value"].is_number() || v["value"].is_null(), "{at}");
        assert!(
            v["exact"].is_null() || v["exact"].as_str().unwrap().split('/').all(|p| p.parse::<i128>().is_ok()),
            "{at}"
        );
        // A number that has an exact value has it as a JSON number too.
        assert!(v["exact"].is_null() || v["value"].is_number(), "{at}");
    };
    for (rules, extra) in [
        ("rules/video_poker.rules", &[][..]),
        ("rules/get_straight/paytable.rules", &[]),
        ("rules/house_of_cards.rules", &["--samples", "5"]),
        ("rules/shuffling_patience.rules", &["--samples", "50"]),
    ] {
        let mut args = vec!["analyze", rules, "--format", "json"];
        args.extend(extra);
        let (code, out, err) = arbiter(&args);
        assert_eq!(code, 0, "{err}");
        let r: Value = serde_json::from_str(&out).unwrap();
        let mut keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["engine", "figures", "kind", "rules", "tables", "title", "version"], "{rules}");
        assert_eq!(r["kind"], "arbiter-analysis");
        assert_eq!(r["version"], 1);
        assert_eq!(r["rules"], rules);
        assert!(r["engine"].is_string() && r["title"].is_string(), "{rules}");
        for f in r["figures"].as_array().unwrap() {
            assert!(f["key"]
                .as_str()
                .unwrap()
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'));
            assert!(f["label"].is_string(), "{rules}: {f}");
            let mut v = f.clone();
            v.as_object_mut().unwrap().retain(|k, _| k != "key" && k != "label");
            cell(&v, rules);
        }
        for t in r["tables"].as_array().unwrap() {
            assert!(t["key"].is_string());
            let columns: Vec<&str> =
                t["columns"].as_array().unwrap().iter().map(|c| c["key"].as_str().unwrap()).collect();
            assert!(t["columns"].as_array().unwrap().iter().all(|c| c["label"].is_string()));
            for row in t["rows"].as_array().unwrap().iter().chain([&t["total"]]) {
                let mut keys: Vec<&str> = row.as_object().unwrap().keys().map(String::as_str).collect();
                keys.sort_unstable();
                let mut want = columns.clone();
                want.sort_unstable();
                assert_eq!(keys, want, "{rules}");
                for c in &columns {
                    cell(&row[*c], rules);
                }
            }
        }
    }
    // Exchange: the row table's columns, in order.
    let r = json("rules/video_poker.rules");
    let columns: Vec<&str> =
        r["tables"][0]["columns"].as_array().unwrap().iter().map(|c| c["key"].as_str().unwrap()).collect();
    assert_eq!(columns, ["row", "pays", "count", "probability", "cycle", "return_share", "return_share_exact"]);
    let keys: Vec<&str> = r["figures"].as_array().unwrap().iter().map(|f| f["key"].as_str().unwrap()).collect();
    assert_eq!(
        keys,
        [
            "deals",
            "expected_payout",
            "expected_stake",
            "expected_earning",
            "return_to_player",
            "hit_frequency",
            "variance",
            "standard_deviation",
            "outcomes",
            "tie_rule"
        ]
    );
}

/// Loose Deuces 17/10 (published return 101.6 %): 1,464 deals have
/// optimal holds whose draws end in different rows, so that its Flush and
/// Straight figures depend on the tie rule (here `fewer-cards leftmost`
/// against `fewer-cards rightmost`), its return and variance not; Jacks or
/// Better has no such deal. (Each count is checked against every deal of
/// small games in `tests/suite/expectation.rs`.)
#[test]
fn analyze_says_when_the_row_figures_depend_on_the_tie_rule() {
    let left = json("tests/fixtures/analyst/loose-deuces.rules");
    assert!(figure(&left, "return_to_player")["text"].as_str().unwrap().starts_with("101.6039 %"));
    let ties = figure(&left, "tie_rule");
    assert_eq!(ties["value"], 1464);
    let says = ties["text"].as_str().unwrap();
    assert!(says.starts_with("1464 deals (0.0563 %) have optimal choices whose draws end in different rows"), "{says}");
    assert!(says.contains("nor does the variance"), "{says}");
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/analyst/loose-deuces.rules"),
    )
    .unwrap();
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("analyst");
    std::fs::create_dir_all(&dir).unwrap();
    let right_path = dir.join("loose-deuces-rightmost.rules");
    std::fs::write(&right_path, text.replace("prefer: fewer-cards leftmost", "prefer: fewer-cards rightmost")).unwrap();
    let right = json(right_path.to_str().unwrap());
    for key in ["return_to_player", "variance", "tie_rule"] {
        assert_eq!(figure(&left, key)["exact"], figure(&right, key)["exact"], "{key}");
    }
    for (name, l, r) in
        [("Flush", 327_085_953_600u64, 327_414_934_560u64), ("Straight", 1_104_258_078_168, 1_103_929_097_208)]
    {
        assert_eq!(row(&left, name)["count"]["value"], l, "{name}");
        assert_eq!(row(&right, name)["count"]["value"], r, "{name}");
    }
    let job = json("rules/video_poker.rules");
    assert_eq!(figure(&job, "tie_rule")["value"], 0);
    assert!(figure(&job, "tie_rule")["text"].as_str().unwrap().starts_with("the row figures do not depend on it"));
    assert!(!figure(&job, "tie_rule")["text"].as_str().unwrap().contains("exchanging costs"));
    // Where exchanging costs, tied choices of different sizes stake
    // differently: the note says the return can move with `prefer`.
    let gs = figure(&json("rules/get_straight.rules"), "tie_rule").clone();
    assert!(
        gs["text"].as_str().unwrap().contains("can also move the expected payout, the stake and the return"),
        "{gs}"
    );
    // Deuces Wild's tied holds differ in variance too.
    let dw = figure(&json("rules/video_poker/deuces-wild.rules"), "tie_rule").clone();
    assert_eq!(dw["value"], 11760);
    assert!(dw["text"].as_str().unwrap().contains("the variance does: 10296 of these deals"), "{dw}");
}

/// The total row adds up the rows, and the counts are over the stated
/// denominator.
#[test]
fn the_total_row_adds_up() {
    let r = json("tests/fixtures/analyst/double-double-bonus.rules");
    let t = &r["tables"][0];
    let counts: u64 = t["rows"].as_array().unwrap().iter().map(|r| r["count"]["value"].as_u64().unwrap()).sum();
    assert_eq!(t["total"]["count"]["value"].as_u64().unwrap(), counts);
    assert_eq!(figure(&r, "outcomes")["value"].as_u64().unwrap(), counts);
    assert_eq!(t["total"]["return_share"]["exact"], figure(&r, "return_to_player")["exact"]);
}

#[test]
fn analyze_text_layout() {
    let (code, out, err) = arbiter(&["analyze", "tests/fixtures/analyst/not-so-ugly-ducks.rules"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!(out);
}

#[test]
fn partial_results_are_json_of_their_own() {
    let (code, _, err) =
        arbiter(&["analyze", "rules/house_of_cards.rules", "--samples", "4", "--partial", "--format", "json"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`--partial` prints JSON of its own"), "{err}");
}

/// The analyses shown in docs/engines/exchange.md are what the commands
/// print.
#[test]
fn the_analyses_in_the_exchange_page_are_real() {
    let doc =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/engines/exchange.md"))
            .unwrap();
    let mut shown = 0;
    for block in doc.split("```text\n").skip(1) {
        let block = block.split("```").next().unwrap();
        let Some((command, output)) = block.split_once('\n') else { continue };
        let Some(args) = command.strip_prefix("$ arbiter analyze ") else { continue };
        let mut argv = vec!["analyze"];
        argv.extend(args.split_whitespace());
        let (code, out, err) = arbiter(&argv);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out, output, "docs/engines/exchange.md: `arbiter analyze {args}` prints otherwise");
        shown += 1;
    }
    assert_eq!(shown, 2);
}

/// The tower engine's variance per deal is that of the deals' own values
/// (from the partial result, which lists them), and merges exactly: the
/// shards' merged figures are the whole analysis's.
#[test]
fn sampled_variance_is_that_of_the_values_and_merges_exactly() {
    let rules = "rules/house_of_cards.rules";
    let (code, part, err) = arbiter(&["analyze", rules, "--samples", "40", "--seed", "5", "--partial"]);
    assert_eq!(code, 0, "{err}");
    let part: Value = serde_json::from_str(&part).unwrap();
    let values: Vec<i128> =
        part["part"]["values"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap() as i128).collect();
    assert_eq!(values.len(), 40);
    let n = values.len() as i128;
    let (sum, squares): (i128, i128) = (values.iter().sum(), values.iter().map(|v| v * v).sum());
    // n * squares - sum^2 over n^2, in lowest terms.
    let (mut num, mut den) = (n * squares - sum * sum, n * n);
    let g = {
        let (mut a, mut b) = (num.abs(), den);
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a.max(1)
    };
    (num, den) = (num / g, den / g);
    let want = if den == 1 { num.to_string() } else { format!("{num}/{den}") };
    let (code, whole, err) = arbiter(&["analyze", rules, "--samples", "40", "--seed", "5", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let whole: Value = serde_json::from_str(&whole).unwrap();
    assert_eq!(figure(&whole, "variance")["exact"], want.as_str());
    let sd = figure(&whole, "standard_deviation")["value"].as_f64().unwrap();
    assert!((sd * sd - num as f64 / den as f64).abs() < 1e-6);
    // Three shards merged print what the whole analysis prints.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("analyst");
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = Vec::new();
    for i in 1..=3 {
        let shard = format!("{i}/3");
        let (code, out, err) =
            arbiter(&["analyze", rules, "--samples", "40", "--seed", "5", "--shard", &shard, "--partial"]);
        assert_eq!(code, 0, "{err}");
        let f = dir.join(format!("part{i}.json"));
        std::fs::write(&f, out).unwrap();
        files.push(f.display().to_string());
    }
    let mut args = vec!["merge", rules];
    args.extend(files.iter().map(String::as_str));
    let (code, merged, err) = arbiter(&args);
    assert_eq!(code, 0, "{err}");
    let (_, text, _) = arbiter(&["analyze", rules, "--samples", "40", "--seed", "5"]);
    assert_eq!(merged, text);
    assert!(merged.contains(&format!("({want})")), "{merged}");
}

/// `diff`: the difference column is the variant's exact value minus the
/// base's; every JSON field is present for every figure; a row the
/// variant adds keeps its place in the table.
#[test]
fn diff_gives_exact_differences_in_table_order() {
    let (code, out, err) =
        arbiter(&["diff", "rules/video_poker.rules", "rules/video_poker/8-5.rules", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let d: Value = serde_json::from_str(&out).unwrap();
    let figures = d["analysis"].as_array().unwrap();
    for f in figures {
        let mut keys: Vec<&str> = f.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "base",
                "base_exact",
                "base_value",
                "difference",
                "difference_exact",
                "difference_value",
                "figure",
                "key",
                "variant",
                "variant_exact",
                "variant_value"
            ]
        );
    }
    let rtp = figures.iter().find(|f| f["key"] == "return_to_player").unwrap();
    // 1616226757427/1661102543100 - 1653526326983/1661102543100.
    assert_eq!(rtp["difference_exact"], "-3108297463/138425211925");
    assert_eq!(rtp["difference"], "-2.2455 %");
    let variance = figures.iter().find(|f| f["key"] == "variance").unwrap();
    let (b, v) = (variance["base_value"].as_f64().unwrap(), variance["variant_value"].as_f64().unwrap());
    assert!((variance["difference_value"].as_f64().unwrap() - (v - b)).abs() < 1e-12);
    // A variant with a row of its own between two of the base's.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("analyst");
    std::fs::create_dir_all(&dir).unwrap();
    let variant = dir.join("with-row.rules");
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/video_poker.rules");
    std::fs::write(
        &variant,
        format!(
            "extends: \"{}\"\nremove: combination \"Nothing\"\ncombination \"Tens\" {{ pattern: kind(2 T) pays: 1 }}\ncombination \"Nothing\" {{ pattern: any pays: 0 }}\n",
            base.display()
        ),
    )
    .unwrap();
    let (code, out, err) = arbiter(&["diff", "rules/video_poker.rules", variant.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let d: Value = serde_json::from_str(&out).unwrap();
    let rows: Vec<&str> = d["analysis"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["key"].as_str().unwrap().starts_with("rows."))
        .map(|f| f["figure"].as_str().unwrap())
        .collect();
    let at = |n: &str| rows.iter().position(|r| *r == n).unwrap();
    assert!(
        at("Jacks or Better") < at("Tens") && at("Tens") < at("Nothing") && at("Nothing") < at("total"),
        "{rows:?}"
    );
    let tens = d["analysis"].as_array().unwrap().iter().find(|f| f["figure"] == "Tens").unwrap();
    assert_eq!(tens["base"], "-");
    assert!(tens["difference"].is_null());
}
