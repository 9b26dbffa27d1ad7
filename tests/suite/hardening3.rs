//! Regression tests of the third adversarial probe (issue 27,
//! `../shared/hardening/turn3/adversary/README.md`), one or more per row
//! outside the language server, each named after its row. Big inputs are
//! generated here; time bounds are generous guards against a hang (several
//! times what the fixed code needs in a test build on a loaded machine),
//! never a measure of speed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn exe() -> PathBuf {
    assert_cmd::cargo::cargo_bin("arbiter")
}

fn bin() -> Command {
    let mut c = Command::new(exe());
    c.current_dir(env!("CARGO_MANIFEST_DIR")).env("NO_COLOR", "1");
    c
}

/// A fresh folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arbiter-hardening3-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn rules_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("rules")
}

/// Runs the binary with `args` and `stdin`, within `limit`.
fn run_in(dir: &Path, args: &[&str], stdin: &[u8], limit: Duration) -> Output {
    let start = Instant::now();
    let mut child = bin()
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let took = start.elapsed();
    assert!(took < limit, "`arbiter {}` took {took:?} (limit {limit:?})", args.join(" "));
    out
}

fn run(args: &[&str], stdin: &[u8], limit: Duration) -> Output {
    run_in(Path::new(env!("CARGO_MANIFEST_DIR")), args, stdin, limit)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// Get Straight with extra spaces after each colon: not in canonical layout.
fn unformatted() -> String {
    std::fs::read_to_string(rules_dir().join("get_straight.rules")).unwrap().replace(": ", ":    ")
}

/// Runs `arbiter ARGS` in `dir` through `sh`, after `plant` (a shell
/// command that sees the PID `arbiter` will have, as `$$`: `exec` keeps it).
#[cfg(unix)]
fn planted(dir: &Path, plant: &str, args: &str) -> Output {
    Command::new("sh")
        .current_dir(dir)
        .arg("-c")
        .arg(format!("{plant}; exec '{}' {args}", exe().display()))
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

// FS-1: `fmt --write` on a symbolic link replaced the link by a regular
// file and left its target unformatted.
#[cfg(unix)]
#[test]
fn fs1_fmt_write_through_a_link_formats_the_target_and_keeps_the_link() {
    let dir = scratch("fs1");
    std::fs::create_dir(dir.join("shared")).unwrap();
    std::fs::write(dir.join("shared/t.rules"), unformatted()).unwrap();
    std::os::unix::fs::symlink("shared/t.rules", dir.join("link.rules")).unwrap();
    let o = run_in(&dir, &["fmt", "--write", "link.rules"], b"", secs(20));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(dir.join("link.rules").symlink_metadata().unwrap().file_type().is_symlink());
    let o = run_in(&dir, &["fmt", "--check", "shared/t.rules"], b"", secs(20));
    assert_eq!(o.status.code(), Some(0), "the target is formatted: {}", stdout(&o));
    assert_eq!(std::fs::read_dir(dir.join("shared")).unwrap().count(), 1, "no temporary file left");
}

// FS-3: `fmt --write` wrote through `.NAME.arbiter-PID.tmp`, opened with
// create+truncate: a link planted there overwrote another file.
#[cfg(unix)]
#[test]
fn fs3_fmt_write_never_follows_a_planted_link() {
    let dir = scratch("fs3");
    std::fs::write(dir.join("tgt.rules"), unformatted()).unwrap();
    std::fs::write(dir.join("victim.txt"), "victim content\n").unwrap();
    let o = planted(&dir, "ln -s victim.txt .tgt.rules.arbiter-$$.tmp", "fmt --write tgt.rules");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(dir.join("victim.txt")).unwrap(), "victim content\n");
    let meta = dir.join("tgt.rules").symlink_metadata().unwrap();
    assert!(meta.file_type().is_file());
    let o = run_in(&dir, &["fmt", "--check", "tgt.rules"], b"", secs(20));
    assert_eq!(o.status.code(), Some(0), "formatted: {}", stdout(&o));
}

// FS-6: the same through `arbiter new`, then hard-linked to PATH; and a
// dangling link at PATH is "already exists", never followed.
#[cfg(unix)]
#[test]
fn fs6_new_never_follows_a_planted_link() {
    let dir = scratch("fs6");
    std::fs::write(dir.join("victim2.txt"), "victim2\n").unwrap();
    let o = planted(&dir, "ln -s victim2.txt .n1.rules.arbiter-$$.tmp", "new n1.rules --from get_straight");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(dir.join("victim2.txt")).unwrap(), "victim2\n");
    assert!(dir.join("n1.rules").symlink_metadata().unwrap().file_type().is_file());
    let o = run_in(&dir, &["check", "n1.rules"], b"", secs(20));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    std::os::unix::fs::symlink("elsewhere.rules", dir.join("n2.rules")).unwrap();
    let o = run_in(&dir, &["new", "n2.rules", "--from", "get_straight"], b"", secs(20));
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    assert!(stderr(&o).contains("already exists"), "{}", stderr(&o));
    assert!(!dir.join("elsewhere.rules").exists());
}

// FS-9: a base title with a line break started a live line in the "empty"
// variant `new` writes (`remove: combination "Straight"`).
#[test]
fn fs9_new_comments_out_every_line_taken_from_the_base() {
    let dir = scratch("fs9");
    let base = "extends: \"get_straight\"\ngame: \"X\\nremove: combination \\\"Straight\\\"\\n\u{1b}]0;t\u{7}# \"\n";
    std::fs::write(dir.join("base.rules"), base).unwrap();
    let o = run_in(&dir, &["new", "out.rules", "--from", "base.rules"], b"", secs(20));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(dir.join("out.rules")).unwrap();
    let live: Vec<&str> = text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    assert_eq!(live, ["extends: \"base.rules\""], "{text}");
    assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'), "{text}");
    assert!(text.contains("# A variant of X\\nremove: combination \"Straight\"\\n\\u{1b}]0;t\\u{7}# "), "{text}");
    // The variant changes nothing.
    let o = run_in(&dir, &["diff", "base.rules", "out.rules"], b"", secs(60));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("(the rules are the same)"), "{}", stdout(&o));
}

// EXT-11: a `NAME.rules` that exists but cannot be read silently ran the
// bundled game NAME. (Here a folder and a dangling link: the tests may run
// as root, whom a mode of 000 does not stop.)
#[cfg(unix)]
#[test]
fn ext11_an_unreadable_rules_path_is_an_error_not_the_bundled_game() {
    let dir = scratch("ext11");
    std::fs::create_dir(dir.join("get_straight.rules")).unwrap();
    std::os::unix::fs::symlink("nowhere.rules", dir.join("video_poker.rules")).unwrap();
    for (args, stdin) in [
        (&["run", "get_straight.rules"][..], &b"TH JH QH KH AH\n#\n"[..]),
        (&["check", "get_straight.rules"][..], &b""[..]),
        (&["run", "./video_poker.rules"][..], &b"TH JH QH KH AH\n"[..]),
    ] {
        let o = run_in(&dir, args, stdin, secs(20));
        assert_eq!(o.status.code(), Some(5), "{args:?}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{args:?}: {}", stdout(&o));
        assert!(stderr(&o).contains("cannot read rule file"), "{}", stderr(&o));
    }
    // A folder without `.rules` does not hide the game (B9), nor does a
    // missing file.
    std::fs::create_dir(dir.join("get_straight")).unwrap();
    for name in ["get_straight", "get_straight/no-wrap.rules"] {
        let o = run_in(&dir, &["check", name], b"", secs(20));
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
    }
}

// NUM-2: `2 -3` in a list of values was read as a subtraction ("12 face
// values for 13 ranks").
#[test]
fn num2_a_negative_value_in_a_list() {
    let dir = scratch("num2");
    let text = "extends: \"house_of_cards\"\ndeck { values: 1 2 -3 4 5 6 7 8 9 10 11 12 13 }\n";
    std::fs::write(dir.join("v.rules"), text).unwrap();
    let o = run_in(&dir, &["check", "v.rules"], b"", secs(20));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // The formatter writes it back as it reads it.
    let o = run_in(&dir, &["fmt", "v.rules"], b"", secs(20));
    assert!(stdout(&o).contains("values: 1 2 -3 4"), "{}", stdout(&o));
}

/// Whether `bytes` hold a raw escape, bell or other C0 control but a line
/// break (what a terminal would act on).
fn raw_control(bytes: &[u8]) -> bool {
    bytes.iter().any(|&b| (b < 0x20 && b != b'\n') || b == 0x7f)
}

// OUT-4: an input file name with ESC and BEL was printed raw in the
// diagnostic's header; and a rule file's name in `check`'s `PATH: ok`.
#[cfg(unix)]
#[test]
fn out4_file_names_are_escaped_on_the_terminal() {
    let dir = scratch("out4");
    let input = "in\u{1b}]0;x\u{7}.txt";
    std::fs::write(dir.join(input), "ZZ\n").unwrap();
    let o = run_in(&dir, &["run", "get_straight", input], b"", secs(20));
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(!raw_control(&o.stderr), "{}", stderr(&o));
    assert!(stderr(&o).contains("in\\u{1b}]0;x\\u{7}.txt"), "{}", stderr(&o));
    let rules = "v\u{1b}[2J.rules";
    std::fs::write(dir.join(rules), "extends: \"get_straight\"\n").unwrap();
    let o = run_in(&dir, &["check", rules], b"", secs(20));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "v\\u{1b}[2J.rules: ok\n");
    std::fs::write(dir.join(rules), "extends: \"get_straight\"\nplay { hand: x }\n").unwrap();
    let o = run_in(&dir, &["check", rules], b"", secs(20));
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(!raw_control(&o.stderr), "{}", stderr(&o));
}

// OUT-5: player names read from the input reached stdout raw. Game output
// lines escape control characters (none is in any expected output).
#[test]
fn out5_input_text_in_output_lines_is_escaped() {
    let o = run(&["run", "snooker_referee"], b"1\n\x1b]0;pwned\x07A\x1b[2J B\nNone\n", secs(20));
    assert!(!raw_control(&o.stdout), "{}", stdout(&o));
    assert!(stdout(&o).contains("\\u{1b}]0;pwned\\u{7}A\\u{1b}[2J's turn"), "{}", stdout(&o));
}

// OUT-6, OUT-7: a rule file's labels and templates reached `diff`'s output
// and `run`'s output raw.
#[test]
fn out6_rule_file_text_is_escaped_in_diff_and_run() {
    let dir = scratch("out6");
    let text = "extends: \"get_straight\"\ncombination \"a\\\"b\\\\c\u{1b}]0;pwn\u{7}\" { pattern: kind(4) pays: 1000 \
                before: \"Straight\" }\noutput { stay: \"S\u{1b}[2Jtay\" }\n";
    std::fs::write(dir.join("esc.rules"), text).unwrap();
    let o = run_in(&dir, &["diff", "get_straight", "esc.rules"], b"", secs(120));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!raw_control(&o.stdout), "{}", stdout(&o));
    assert!(stdout(&o).contains("\"S\\u{1b}[2Jtay\""), "{}", stdout(&o));
    let o = run_in(&dir, &["run", "esc.rules"], b"AS AH AD AC 2S\n#\n", secs(20));
    assert_eq!(stdout(&o), "S\\u{1b}[2Jtay\n", "{}", stderr(&o));
}

/// 150 combinations with labels of 3,000 letters `a`/`b` (from a fixed
/// linear congruential sequence) as a base, and `longvar.rules` naming the
/// first `n` with their last letter changed (SLOW-1: `remove:`; SLOW-2: new
/// sections, each a `new-section` warning).
fn long_labels(dir: &Path, n: usize, remove: bool) {
    let mut x: u64 = 1;
    let mut letter = || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        if x >> 63 == 0 {
            'a'
        } else {
            'b'
        }
    };
    let labels: Vec<String> = (0..150).map(|_| (0..3000).map(|_| letter()).collect()).collect();
    let mut base = String::from(
        "engine: exchange\ndeck { ranks: A 2 3 4 5 6 7 8 9 T J Q K suits: S H D C }\nplay { hand: 5 exchange: 0..1 \
         prefer: fewer-cards }\n",
    );
    for l in &labels {
        base.push_str(&format!("combination \"{l}\" {{ pattern: kind(2) pays: 1 }}\n"));
    }
    base.push_str("output { stay: \"S\" exchange: \"E\" }\n");
    std::fs::write(dir.join("longbase.rules"), base).unwrap();
    let mut var = String::from("extends: \"longbase.rules\"\n");
    for l in &labels[..n] {
        let near = format!("{}c", &l[..l.len() - 1]);
        var.push_str(&if remove {
            format!("remove: combination \"{near}\"\n")
        } else {
            format!("combination \"{near}\" {{ pattern: kind(3) pays: 1 }}\n")
        });
    }
    std::fs::write(dir.join("longvar.rules"), var).unwrap();
}

// SLOW-1: 20 near-miss names against 3,000-character labels took 16.6 s
// to check (40: 33.2 s): did-you-mean compared whole labels.
#[test]
fn slow1_did_you_mean_is_bounded_per_name() {
    let dir = scratch("slow1");
    long_labels(&dir, 40, true);
    let o = run_in(&dir, &["check", "longvar.rules"], b"", secs(20));
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.matches("no such section in the base rule file to remove").count(), 40);
    assert_eq!(err.matches("did you mean `").count(), 40, "each near miss is still found");
    assert!(err.len() < 100_000, "{} bytes of diagnostics", err.len());
}

// SLOW-2: 20 new sections named like the base's: 16.9 s and 1.2 MB of
// warnings (each quoting two 3,000-character labels twice).
#[test]
fn slow2_warnings_about_long_labels_stay_short() {
    let dir = scratch("slow2");
    long_labels(&dir, 20, false);
    let o = run_in(&dir, &["check", "longvar.rules"], b"", secs(20));
    // Each new row is shadowed by the base's `kind(2)` rows: an error too.
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains('…'), "long names are cut in their middle");
    // 20 warnings and 20 errors, each with its excerpts (lines cut to
    // windows): under 8 KB each, whatever the labels' length.
    assert!(err.len() < 40 * 8_000, "{} bytes of diagnostics", err.len());
    let o = run_in(&dir, &["check", "--format", "json", "longvar.rules"], b"", secs(20));
    let json = stdout(&o);
    assert_eq!(json.matches("\"code\":\"new-section\"").count(), 20);
    assert!(json.len() < 150_000, "{} bytes of JSON diagnostics", json.len());
}

// EX-1, EX-2: exchange sizes larger than the cards left to draw were
// accepted: `run` printed `Stay` where `--explain` chose an exchange worth
// 8 from 0/0 values, and `analyze` divided by zero (exit 101). `check`
// refuses them now, so `run`, `--explain` and `analyze` never see them.
#[test]
fn ex1_ex2_exchanges_larger_than_the_cards_left_are_refused() {
    let dir = scratch("ex1");
    let files = [
        (
            "impossible.rules",
            "engine: exchange\ndeck { ranks: A 2 3 4  suits: S }\nplay { hand: 3 entry: 1 exchange: 0..3 \
          cost: 1 prefer: fewer-cards leftmost }\ncombination \"three\" { pattern: run(3) pays: 10 }\ncombination \
          \"nothing\" { pattern: any pays: 0 }\noutput { stay: \"Stay\" exchange: \"Exchange {cards}\" }\n",
        ),
        (
            "panic.rules",
            "engine: exchange\ndeck {\n  ranks: A 2 3\n  suits: S\n  wrap: yes\n  jokers: X1\n}\nplay { hand: \
          3 entry: 1 exchange: 0 1 3 cost: 0 prefer: more-cards }\ncombination \"r0\" { pattern: any pays: 0 }\noutput \
          { stay: \"Stay\" exchange: \"Exchange {cards}\" }\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
        for args in [&["check", name][..], &["analyze", name], &["run", name], &["run", "--explain", name]] {
            let o = run_in(&dir, args, b"AS 2S 4S\n#\n", secs(20));
            assert_eq!(o.status.code(), Some(3), "{args:?}: {}", stderr(&o));
            assert!(stderr(&o).contains("left to draw once a 3-card hand is dealt"), "{}", stderr(&o));
            assert!(stdout(&o).is_empty(), "{}", stdout(&o));
        }
    }
    // As many as are left is fine: one card left, exchanges of 0 or 1.
    let one = files[0].1.replace("exchange: 0..3", "exchange: 0..1");
    std::fs::write(dir.join("one.rules"), one).unwrap();
    let o = run_in(&dir, &["analyze", "one.rules"], b"", secs(20));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

// TW-3: `arbiter test` had no node limit of its own (8 examples took
// 17.6 s) and called the tower's limit an unexpected input error (exit 6).
#[test]
fn tw3_test_reports_a_limit_as_a_limit() {
    let slow = "tests/fixtures/hardening3/tower-slow-example.rules";
    let o = run(&["test", slow], b"", secs(60));
    assert_eq!(o.status.code(), Some(8), "{}", stdout(&o));
    let out = stdout(&o);
    assert_eq!(out.matches("  LIMIT slow ").count(), 2, "{out}");
    assert!(out.contains("needs more than 1000000 nodes"), "{out}");
    assert!(out.ends_with("0 passed, 0 failed, 2 stopped by a limit\n"), "{out}");
    assert!(!out.contains("input error"), "{out}");
    // A limit given on the command line; the bundled examples pass under
    // the default one.
    let o = run(&["test", "--max-nodes", "5", "house_of_cards"], b"", secs(60));
    assert_eq!(o.status.code(), Some(8), "{}", stdout(&o));
    assert!(stdout(&o).contains("needs more than 5 nodes"), "{}", stdout(&o));
    let o = run(&["test", "house_of_cards"], b"", secs(60));
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    // 0 nodes is refused, as for `run`.
    let o = run(&["test", "--max-nodes", "0", "house_of_cards"], b"", secs(60));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

// CN-2: one Havannah case of 30 million moves needed 2 GB (an abort under
// a 2 GB cap). A case announcing more moves than the engine holds stops the
// run there with a limit (exit 8), after the cases before it, without
// reading or allocating its moves.
#[test]
fn cn2_a_case_over_the_move_limit_is_a_limit() {
    let over = arbiter::engines::connection::MAX_CASE_MOVES + 1;
    let input = format!("3\n3 2\n1 1\n2 2\n5 {over}\n1 1\n2 2\n");
    for args in [
        &["run", "havannah"][..],
        &["run", "--jobs", "2", "--part-bytes", "64", "havannah"],
        &["run", "--explain", "havannah"],
    ] {
        let o = run(args, input.as_bytes(), secs(20));
        assert_eq!(o.status.code(), Some(8), "{args:?}: {}", stderr(&o));
        assert!(stdout(&o).contains("Case #1: none"), "{args:?}: {}", stdout(&o));
        assert!(!stdout(&o).contains("Case #2"), "{}", stdout(&o));
        let err = stderr(&o).replace('\n', " ");
        assert!(err.contains(&format!("has {over} moves")), "{err}");
        assert!(err.contains("line 5"), "{err}");
    }
    // At the limit, a case is read (here it ends early: an input error).
    let at = format!("1\n5 {}\n1 1\n", over - 1);
    let o = run(&["run", "havannah"], at.as_bytes(), secs(20));
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
}
