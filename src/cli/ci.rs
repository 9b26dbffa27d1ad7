//! `check`'s formats for tools and CI: one line per diagnostic (`short`),
//! GitHub Actions annotations (`github`) and one SARIF 2.1.0 log (`sarif`),
//! each made from the JSON form of a diagnostic (docs/cli.md), so that every
//! format says the same things.

use serde_json::{json, Value};

/// `FILE:LINE:COLUMN: severity[code]: message` (`arbiter: ...` for a
/// diagnostic with no place), with the help after ` help: `.
pub fn short(v: &Value) -> String {
    let place = match (v["file"].as_str(), v["line"].as_u64(), v["column"].as_u64()) {
        (Some(f), Some(l), Some(c)) => format!("{f}:{l}:{c}"),
        (Some(f), _, _) => f.to_string(),
        _ => "arbiter".to_string(),
    };
    let mut line = format!("{place}: {}[{}]: {}", str(v, "severity"), str(v, "code"), str(v, "message"));
    if let Some(help) = v["help"].as_str() {
        line.push_str(" help: ");
        line.push_str(help);
    }
    one_line(&line)
}

/// A GitHub Actions workflow command that annotates the place
/// (`::error file=...,line=...::message`).
pub fn github(v: &Value) -> String {
    let level = match str(v, "severity") {
        "error" => "error",
        "warning" => "warning",
        _ => "notice",
    };
    let mut props = Vec::new();
    if let Some(f) = v["file"].as_str() {
        props.push(format!("file={}", property(f)));
    }
    for (key, field) in [("line", "line"), ("col", "column"), ("endLine", "end_line"), ("endColumn", "end_column")] {
        if let Some(n) = v[field].as_u64() {
            props.push(format!("{key}={n}"));
        }
    }
    props.push(format!("title={}", property(&format!("arbiter::{}", str(v, "code")))));
    let mut message = str(v, "message").to_string();
    if let Some(help) = v["help"].as_str() {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    format!("::{level} {}::{}", props.join(","), data(&message))
}

/// One SARIF 2.1.0 log of every diagnostic, with a rule per code used.
pub fn sarif(values: &[Value]) -> Value {
    let mut rules: Vec<&str> = values.iter().map(|v| str(v, "code")).collect();
    rules.sort_unstable();
    rules.dedup();
    let results: Vec<Value> = values.iter().map(result).collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "arbiter",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules.iter().map(|r| json!({ "id": r })).collect::<Vec<_>>(),
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

/// One diagnostic as a SARIF result.
fn result(v: &Value) -> Value {
    let level = match str(v, "severity") {
        "error" => "error",
        "warning" => "warning",
        _ => "note",
    };
    let mut text = str(v, "message").to_string();
    if let Some(help) = v["help"].as_str() {
        text.push_str("\nhelp: ");
        text.push_str(help);
    }
    let mut r = json!({ "ruleId": str(v, "code"), "level": level, "message": { "text": text } });
    if let Some(place) = location(v) {
        r["locations"] = json!([place]);
    }
    let related: Vec<Value> = v["related"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| {
            let mut place = location(n)?;
            place["message"] = json!({ "text": str(n, "message") });
            Some(place)
        })
        .collect();
    if !related.is_empty() {
        r["relatedLocations"] = related.into();
    }
    r
}

/// A SARIF location of a diagnostic's (or a note's) place, if it has one.
fn location(v: &Value) -> Option<Value> {
    let file = v["file"].as_str()?;
    let mut place = json!({ "physicalLocation": { "artifactLocation": { "uri": file } } });
    if let (Some(l), Some(c)) = (v["line"].as_u64(), v["column"].as_u64()) {
        let mut region = json!({ "startLine": l, "startColumn": c });
        if let (Some(el), Some(ec)) = (v["end_line"].as_u64(), v["end_column"].as_u64()) {
            region["endLine"] = el.into();
            region["endColumn"] = ec.into();
        }
        place["physicalLocation"]["region"] = region;
    }
    Some(place)
}

fn str<'v>(v: &'v Value, key: &str) -> &'v str {
    v[key].as_str().unwrap_or("")
}

/// Text on one line: line breaks and other controls escaped.
fn one_line(text: &str) -> String {
    arbiter::report::diag::escape_line(text)
}

/// A workflow command's message: `%`, CR and LF escaped.
fn data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A workflow command's property value: `:` and `,` escaped too.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diag() -> Value {
        json!({
            "code": "unknown-key", "severity": "error", "message": "unknown key `pay`, 100%",
            "help": "did you mean `pays`?", "file": "a,b:c.rules", "line": 3, "column": 5,
            "end_line": 3, "end_column": 8, "label": "", "related": [],
        })
    }

    #[test]
    fn github_escapes_what_workflow_commands_read() {
        let line = github(&diag());
        assert_eq!(
            line,
            "::error file=a%2Cb%3Ac.rules,line=3,col=5,endLine=3,endColumn=8,title=arbiter%3A%3Aunknown-key::\
             unknown key `pay`, 100%25%0Ahelp: did you mean `pays`?"
        );
    }

    #[test]
    fn short_is_one_line_with_the_place_first() {
        assert_eq!(
            short(&diag()),
            "a,b:c.rules:3:5: error[unknown-key]: unknown key `pay`, 100% help: did you mean `pays`?"
        );
        let plain = json!({ "code": "io", "severity": "error", "message": "a\nb", "file": null });
        assert_eq!(short(&plain), "arbiter: error[io]: a\\nb");
    }

    #[test]
    fn sarif_has_a_rule_per_code_and_a_region_per_place() {
        let log = sarif(&[diag(), diag()]);
        let run = &log["runs"][0];
        assert_eq!(run["tool"]["driver"]["rules"].as_array().unwrap().len(), 1);
        let r = &run["results"][1];
        assert_eq!(r["ruleId"], "unknown-key");
        let region = &r["locations"][0]["physicalLocation"]["region"];
        assert_eq!((region["startLine"].as_u64(), region["endColumn"].as_u64()), (Some(3), Some(8)));
    }
}
