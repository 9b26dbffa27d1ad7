//! `run --jobs N`: the parallel driver prints exactly what one thread
//! prints, in input order, and an error at case k prints every case before
//! it and none after; whatever the parts the input is cut into (down to a
//! case a part, with the test hook `part_bytes`), and where boundaries are
//! only guessed (the referee's blank lines), too.

use std::path::{Path, PathBuf};

use arbiter::engines::compile;
use arbiter::game::{Game, Input, Output, RunError, RunOptions};
use arbiter::load::load_path;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn game(rules: &Path) -> Box<dyn Game> {
    let loaded = load_path(rules).unwrap_or_else(|e| panic!("{}: {:?}", rules.display(), e.diags));
    compile(&loaded).0.unwrap_or_else(|| panic!("{} does not compile", rules.display())).game
}

fn run(game: &dyn Game, input: &str, jobs: usize) -> (String, Option<String>) {
    run_with(game, input, RunOptions { jobs, ..Default::default() })
}

fn run_with(game: &dyn Game, input: &str, opts: RunOptions) -> (String, Option<String>) {
    run_bytes(game, input.as_bytes(), opts)
}

/// What a run prints, and its error in full (message, place, excerpt,
/// help). On several threads the input is also read from a file, where
/// the threads of a game whose every line is a case read their parts
/// themselves: the run must print the same.
fn run_bytes(game: &dyn Game, input: &[u8], opts: RunOptions) -> (String, Option<String>) {
    let printed = printed_by(game, &mut Input::new(input).ready_when(|| true), &opts);
    if opts.jobs > 1 {
        let from_file = run_file(game, input, &opts);
        assert!(printed == from_file, "read from a file, the run prints differently: {printed:?}\n{from_file:?}");
    }
    printed
}

/// [`run_bytes`] with the input in a file of its own (removed after).
fn run_file(game: &dyn Game, input: &[u8], opts: &RunOptions) -> (String, Option<String>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static FILES: AtomicUsize = AtomicUsize::new(0);
    let n = FILES.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("arbiter-parallel-{}-{n}.in", std::process::id()));
    std::fs::write(&path, input).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    let again = file.try_clone().unwrap();
    let mut input = Input::new(file).ready_when(|| true).size_hint(input.len()).positional(again);
    let printed = printed_by(game, &mut input, opts);
    drop(input);
    let _ = std::fs::remove_file(&path);
    printed
}

fn printed_by(game: &dyn Game, input: &mut Input, opts: &RunOptions) -> (String, Option<String>) {
    let mut printed = Vec::new();
    let result = {
        let mut out = Output::new(&mut printed);
        let r = game.run(input, &mut out, opts);
        out.flush().unwrap();
        r
    };
    let error = match result {
        Ok(()) => None,
        Err(RunError::Input(e)) => Some(format!("{} at {}: {e:?}", e.message, e.place())),
        Err(e) => Some(format!("{e:?}")),
    };
    (String::from_utf8_lossy(&printed).into_owned(), error)
}

/// A case file made thousands of cases long, so that the driver reads
/// several batches and solves them on several threads: a count-prefixed
/// input (a first line that is a number) gets its count multiplied, an
/// input that ends with a terminator line (`#`, `End`) gets its cases
/// repeated before it. `None` for any other shape.
fn repeated(text: &str, bytes: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let times = |body: &str| (bytes / body.len().max(1)).max(2);
    if let Some(count) = lines.first().and_then(|l| l.trim().parse::<usize>().ok()) {
        let body: String = lines[1..].iter().map(|l| format!("{l}\n")).collect();
        let n = times(&body);
        return Some(format!("{}\n{}", count * n, body.repeat(n)));
    }
    let at = lines.iter().rposition(|l| matches!(l.trim(), "#" | "End"))?;
    let body: String = lines[..at].iter().map(|l| format!("{l}\n")).collect();
    (!body.trim().is_empty()).then(|| body.repeat(times(&body)) + lines[at] + "\n")
}

/// Every rule file with its case files under `tests/<folder>` (base
/// games and variants).
fn suites(folder: &str) -> Vec<(PathBuf, Vec<PathBuf>)> {
    let mut suites = Vec::new();
    for entry in std::fs::read_dir(root().join(folder)).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let mut dirs = vec![(root().join(format!("rules/{name}.rules")), dir.clone())];
        for v in std::fs::read_dir(dir.join("variants")).into_iter().flatten() {
            let v = v.unwrap().path();
            let variant = v.file_name().unwrap().to_string_lossy().to_string();
            dirs.push((root().join(format!("rules/{name}/{variant}.rules")), v));
        }
        for (rules, dir) in dirs {
            let mut ins: Vec<PathBuf> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "in"))
                .collect();
            ins.sort();
            suites.push((rules, ins));
        }
    }
    suites.sort();
    suites
}

/// The options of a parallel run of `jobs` threads in parts of at most
/// `part_bytes` bytes (0: the driver's own sizes).
fn parts(jobs: usize, part_bytes: usize) -> RunOptions {
    RunOptions { jobs, part_bytes, ..Default::default() }
}

/// Every case file and every input-error file under tests/, as it is:
/// cut into parts of one case each, and of a few lines, on three threads,
/// each prints what one thread prints, with the same error.
#[test]
fn every_case_file_cut_into_parts_of_one_case_prints_what_one_thread_prints() {
    let mut checked = 0;
    for folder in ["tests/cases", "tests/input_errors"] {
        for (rules, ins) in suites(folder) {
            let g = game(&rules);
            for input in ins {
                let bytes = std::fs::read(&input).unwrap();
                let one = run_bytes(g.as_ref(), &bytes, RunOptions::default());
                for part_bytes in [1, 40, 300] {
                    let many = run_bytes(g.as_ref(), &bytes, parts(3, part_bytes));
                    assert!(one == many, "{} in parts of {part_bytes} bytes: {one:?}\n{many:?}", input.display());
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 190, "only {checked} inputs checked");
}

/// A byte order mark at the very start is skipped by every reader: the
/// first part, read by a thread from the file, ends the cases where one
/// thread does when its only line is a terminator after the mark (before,
/// the part was taken to run on, and the deals after the terminator were
/// answered). Every case file with the mark before it, in parts of one
/// case, and the terminator first with deals after it.
#[test]
fn a_byte_order_mark_first_reads_as_on_one_thread() {
    let mut checked = 0;
    for (rules, ins) in suites("tests/cases") {
        let g = game(&rules);
        for input in ins {
            let bytes = [b"\xEF\xBB\xBF".as_slice(), &std::fs::read(&input).unwrap()].concat();
            let one = run_bytes(g.as_ref(), &bytes, RunOptions::default());
            for part_bytes in [1, 64] {
                let many = run_bytes(g.as_ref(), &bytes, parts(3, part_bytes));
                assert!(one == many, "{} after a BOM, parts of {part_bytes} bytes: {one:?}\n{many:?}", input.display());
            }
            checked += 1;
        }
    }
    assert!(checked >= 100, "only {checked} inputs checked");
    for name in ["get_straight", "video_poker"] {
        let g = game(&root().join(format!("rules/{name}.rules")));
        for text in ["\u{FEFF}#\n", "\u{FEFF}#\nTH JH QH KH AH\n2H TC 5D 3S 6C\n#\n", "\u{FEFF}#\r\n2H TC 5D 3S 6C\n"] {
            let one = run(g.as_ref(), text, 1);
            assert_eq!(one, (String::new(), None), "{name}: {text:?}");
            for part_bytes in [1, 4, 64] {
                assert_eq!(
                    run_with(g.as_ref(), text, parts(2, part_bytes)),
                    one,
                    "{name}: {text:?} in parts of {part_bytes}"
                );
            }
        }
    }
}

/// The lines the splitter passes over 64 bytes at a time (a deal per line,
/// a case's move lines, a frame's strokes) made to stop its passes
/// everywhere: every case file, made long, with `\r\n` line ends, with
/// lines that start with blanks, with blank lines of spaces, and with
/// lines that start with a terminator's first byte. Whatever each prints
/// (an error included), several threads print the same as one.
#[test]
fn inputs_that_stop_the_bulk_passes_print_what_one_thread_prints() {
    type Edit = fn(usize, &str) -> String;
    let edits: [(&str, Edit); 4] = [
        ("crlf", |_, l| format!("{l}\r\n")),
        ("leading blanks", |i, l| if i % 7 == 3 { format!("  {l}\n") } else { format!("{l}\n") }),
        ("blank lines of spaces", |i, l| if i % 11 == 5 { format!("{l}\n \t \n") } else { format!("{l}\n") }),
        ("terminator-like", |i, l| if i % 13 == 6 { format!("#{l}\n") } else { format!("{l}\n") }),
    ];
    let mut checked = 0;
    for (rules, ins) in suites("tests/cases") {
        let g = game(&rules);
        let slow = rules.to_string_lossy().contains("house_of_cards");
        for input in ins {
            let text = std::fs::read_to_string(&input).unwrap();
            let Some(big) = repeated(&text, if slow { 2_000 } else { 30_000 }) else { continue };
            for (what, edit) in edits {
                let edited: String = big.lines().enumerate().map(|(i, l)| edit(i, l)).collect();
                let one = run_bytes(g.as_ref(), edited.as_bytes(), RunOptions::default());
                for opts in [parts(2, 0), parts(3, 200)] {
                    let many = run_bytes(g.as_ref(), edited.as_bytes(), opts);
                    assert!(one == many, "{} with {what}: several threads print differently", input.display());
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 100, "only {checked} inputs checked");
}

/// Every case file under tests/cases (base games and variants), made
/// thousands of cases long: the outputs with one thread and with four are
/// the same, and so are the errors (with the driver's own part sizes, with
/// a part per case, and by default).
#[test]
fn parallel_runs_print_what_one_thread_prints() {
    let mut checked = 0;
    let mut suites = Vec::new();
    for entry in std::fs::read_dir(root().join("tests/cases")).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        suites.push((root().join(format!("rules/{name}.rules")), dir.clone()));
        for v in std::fs::read_dir(dir.join("variants")).into_iter().flatten() {
            let v = v.unwrap().path();
            let variant = v.file_name().unwrap().to_string_lossy().to_string();
            suites.push((root().join(format!("rules/{name}/{variant}.rules")), v));
        }
    }
    suites.sort();
    for (rules, dir) in suites {
        let g = game(&rules);
        let mut ins: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "in"))
            .collect();
        ins.sort();
        for input in ins {
            let text = std::fs::read_to_string(&input).unwrap();
            // About 100 KB of cases; a few KB for the searches, whose cases
            // are slow.
            let bytes = if rules.to_string_lossy().contains("house_of_cards") { 3_000 } else { 100_000 };
            let Some(big) = repeated(&text, bytes) else { continue };
            let (one, e1) = run(g.as_ref(), &big, 1);
            let (four, e4) = run(g.as_ref(), &big, 4);
            assert_eq!(e1, e4, "{}", input.display());
            assert!(one == four, "{}: -j 4 prints differently from -j 1", input.display());
            let (each, ee) = run_with(g.as_ref(), &big, parts(3, 1));
            assert_eq!(e1, ee, "{}", input.display());
            assert!(one == each, "{}: a part per case prints differently from -j 1", input.display());
            // The default: one thread until the cases prove slow.
            let (auto, ea) = run_with(g.as_ref(), &big, RunOptions { jobs: 4, adaptive: true, ..Default::default() });
            assert_eq!(e1, ea, "{}", input.display());
            assert!(one == auto, "{}: the adaptive driver prints differently from -j 1", input.display());
            checked += 1;
        }
    }
    assert!(checked >= 150, "only {checked} inputs checked");
}

/// An input error at deal k of a long input, with several threads: every
/// deal before k is printed, none after, and the error names deal k's line.
#[test]
fn an_error_at_case_k_prints_every_case_before_it_and_none_after() {
    let g = game(&root().join("rules/get_straight.rules"));
    let deal = "2H TC 5D 3S 6C\n";
    for k in [1usize, 17, 4095, 4096, 4097, 10_000] {
        let input = format!("{}2H TC 5D 3S ZZ\n{}#\n", deal.repeat(k - 1), deal.repeat(5000));
        let (printed, error) = run(g.as_ref(), &input, 2);
        assert_eq!(printed.lines().count(), k - 1, "k = {k}");
        assert!(printed.lines().all(|l| l == "Exchange TC"), "k = {k}");
        let error = error.unwrap_or_else(|| panic!("k = {k}: no error"));
        assert!(error.contains(&format!("line {k}, column 13")), "k = {k}: {error}");
    }
}

/// A part whose cases print more than a part may hold (a rule file whose
/// template prints megabytes a deal) stops there, and the driver reads
/// on from it on one thread: the run prints what one thread prints, and an
/// error after such parts is found after every case before it.
#[test]
fn parts_that_print_too_much_print_what_one_thread_prints() {
    let dir = std::env::temp_dir().join(format!("arbiter-wide-output-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wide = "{cards:>1000}".repeat(6000);
    let rules = dir.join("wide.rules");
    let base = root().join("rules/get_straight.rules");
    std::fs::write(&rules, format!("extends: {base:?}\noutput {{\n  stay: \"{wide}\"\n  exchange: \"{wide}\"\n}}\n"))
        .unwrap();
    let g = game(&rules);
    let _ = std::fs::remove_dir_all(&dir);
    let deals = ["2H TC 5D 3S 6C\n", "TH JH QH KH AH\n", "4D TD TC 9C 7D\n"];
    let good: String = (0..12).map(|i| deals[i % 3]).collect();
    for input in [format!("{good}#\n"), format!("{good}2H TC 5D 3S ZZ\n{good}#\n")] {
        let (one, one_error) = run(g.as_ref(), &input, 1);
        // Many times the 4 MiB of output a part may hold.
        assert!(one.len() > 32 << 20, "{} bytes", one.len());
        for opts in [parts(2, 0), parts(3, 1 << 12)] {
            let (many, many_error) = run_with(g.as_ref(), &input, opts);
            assert!(one == many, "{opts:?}: {} bytes against {}", many.len(), one.len());
            assert_eq!(one_error, many_error, "{opts:?}");
        }
    }
}

/// The same promise through the binary: `--jobs 2` on stdin (parts of at
/// most 4 KiB, the threads started at once: the input is too small to
/// start them otherwise).
#[test]
fn the_binary_keeps_every_case_before_an_error_with_two_jobs() {
    use std::io::Write;
    let k = 6000;
    let input = format!("{}2H TC 5D 3S ZZ\n{}#\n", "2H TC 5D 3S 6C\n".repeat(k - 1), "TH JH QH KH AH\n".repeat(3000));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["run", "--jobs", "2", "--part-bytes", "4096", "rules/get_straight.rules"])
        .current_dir(root())
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    let _ = writer.join();
    let printed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(printed.lines().count(), k - 1);
    assert!(printed.lines().all(|l| l == "Exchange TC"));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("line {k}, column 13")));
}

/// Through the binary, an input that is a regular file (its path, or stdin
/// redirected from it, also partway through it) is read by the threads
/// themselves (a deal per line): what two threads print, the error and the
/// exit code are one thread's, whatever follows the terminator line and
/// wherever the error falls.
#[test]
fn the_binary_reads_a_file_on_two_threads_as_one_thread_does() {
    use std::io::Read;
    let deals = |n: usize| "2H TC 5D 3S 6C\nTH JH QH KH AH\n".repeat(n);
    let inputs = [
        format!("{}#\n", deals(3000)),
        format!("{}2H TC 5D 3S ZZ\n{}#\n", deals(2000), deals(1000)),
        format!("{}#\n{}", deals(2000), deals(1000)),
        format!("{}#", deals(3000)),
        deals(3000),
        format!("{}\n\n  \n#\n", deals(3000)),
        // A line longer than any line the input takes (1 MiB).
        format!("{}{}\n{}#\n", deals(1000), "2H ".repeat(400_000), deals(1000)),
    ];
    let dir = std::env::temp_dir().join(format!("arbiter-parallel-binary-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let arbiter = |args: &[&str], stdin: std::process::Stdio| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["run", "rules/get_straight.rules"])
            .args(args)
            .current_dir(root())
            .env("NO_COLOR", "1")
            .stdin(stdin)
            .output()
            .unwrap();
        (out.status.code(), out.stdout, String::from_utf8_lossy(&out.stderr).replace(&*dir.to_string_lossy(), "DIR"))
    };
    let two = ["--jobs", "2", "--part-bytes", "64"];
    for (i, input) in inputs.iter().enumerate() {
        let path = dir.join(format!("{i}.in"));
        std::fs::write(&path, input).unwrap();
        let p = path.to_str().unwrap();
        let one = arbiter(&["--jobs", "1", p], std::process::Stdio::null());
        assert!(one.0 == Some(0) || one.0 == Some(4), "{i}: {one:?}");
        assert!(one == arbiter(&[&two[..], &[p]].concat(), std::process::Stdio::null()), "input {i} by its path");
        let from_stdin = |args: &[&str], skip: usize| {
            let mut file = std::fs::File::open(&path).unwrap();
            file.read_exact(&mut vec![0; skip]).unwrap();
            arbiter(args, file.into())
        };
        let one = from_stdin(&["--jobs", "1"], 0);
        assert!(one == from_stdin(&two, 0), "input {i} on stdin");
        // Stdin partway through the file: offsets and lines from there.
        let rest = dir.join(format!("{i}-rest.in"));
        std::fs::write(&rest, &input[15..]).unwrap();
        let one = arbiter(&["--jobs", "1"], std::fs::File::open(&rest).unwrap().into());
        assert!(one == from_stdin(&two, 15), "input {i} on stdin from its second line");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The referee's frames end where blank lines stand only by the statement's
/// custom: frames with blank lines inside them and frames without one
/// before them are read again on one thread, and the output is the same.
#[test]
fn frames_whose_blank_lines_mislead_the_parts_print_what_one_thread_prints() {
    let g = game(&root().join("rules/snooker_referee.rules"));
    let sample = std::fs::read_to_string(root().join("tests/cases/snooker_referee/00-sample.in")).unwrap();
    let frame: String = sample.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let blank_inside = frame.replacen("Red Red\n", "Red Red\n\n\n", 3);
    let mut text = String::new();
    let mut n = 0;
    for i in 0..300 {
        text += match i % 7 {
            0 => "\n",
            1 | 2 => "",
            _ => "\n\n",
        };
        text += if i % 5 == 3 { &blank_inside } else { &frame };
        n += 1;
    }
    let text = format!("{n}\n{text}");
    let one = run(g.as_ref(), &text, 1);
    assert!(one.1.is_none(), "{one:?}");
    for (jobs, part_bytes) in [(2, 0), (3, 1), (4, 500), (2, 5000)] {
        let many = run_with(g.as_ref(), &text, parts(jobs, part_bytes));
        assert!(one == many, "-j {jobs} in parts of {part_bytes} bytes prints differently");
    }
    // An error in a frame after misleading blank lines is found as one
    // thread finds it.
    let bad = text.replacen("Pink Pink", "Pink Pnk", 200);
    let one = run(g.as_ref(), &bad, 1);
    assert!(one.1.is_some());
    for part_bytes in [1, 700] {
        assert!(one == run_with(g.as_ref(), &bad, parts(3, part_bytes)), "parts of {part_bytes} bytes");
    }
}

/// An input error at every deal of a short input, cut a part per deal:
/// every deal before it is printed, none after, and the error is placed as
/// one thread places it (also when it falls at the end of a part).
#[test]
fn an_error_at_any_case_of_any_part_is_the_error_one_thread_finds() {
    let g = game(&root().join("rules/get_straight.rules"));
    let deals: Vec<String> =
        (0..40).map(|i| if i % 3 == 0 { "2H TC 5D 3S 6C".into() } else { "TH JH QH KH AH".into() }).collect();
    for k in 0..deals.len() {
        for bad in ["2H TC 5D 3S ZZ", "2H TC 5D 3S", "2H TC 5D 3S 6C 7C", "\u{e9}"] {
            let mut lines = deals.clone();
            lines[k] = bad.into();
            let ended = format!("{}\n#\n", lines.join("\n"));
            let cut = lines[..=k].join("\n");
            for text in [ended, cut] {
                let one = run(g.as_ref(), &text, 1);
                for part_bytes in [1, 20, 50] {
                    assert!(one == run_with(g.as_ref(), &text, parts(2, part_bytes)), "{k} {bad:?} {part_bytes}");
                }
            }
        }
    }
}

/// DRV-2 (issue 27): Ctrl-C with `--jobs 2` while the 16th case searches
/// wrote none of the 15 finished cases (parts of at most 64 bytes, the
/// threads started at once). No race with the clock: the 16th
/// case has a node limit out of reach (hours of search), and the signal is
/// sent once the 15 finished cases are out (at most 50 ms after they
/// finish, while a later case runs); then nothing may be lost or written
/// twice, and no case after the 16th is written.
#[test]
fn drv2_a_signal_with_two_jobs_leaves_every_finished_case_printed() {
    use std::io::{BufRead, Write};
    use std::os::unix::process::ExitStatusExt;
    // Fast cases: six peaks, M = 6, each deck shuffled by a fixed generator.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut fast = || {
        let mut deck: Vec<String> = (1..=6).flat_map(|r| [format!("{r}R"), format!("{r}B")]).collect();
        for i in (1..deck.len()).rev() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            deck.swap(i, (seed % (i as u64 + 1)) as usize);
        }
        format!("Axel\n6\n{}\n", deck.join(" "))
    };
    let slow: String = std::fs::read_to_string(root().join("tests/fixtures/hoc_two_fast_one_slow.in"))
        .unwrap()
        .lines()
        .skip(6)
        .take(3)
        .map(|l| format!("{l}\n"))
        .collect();
    let mut input = String::new();
    (0..15).for_each(|_| input += &fast());
    input += &slow;
    (0..32).for_each(|_| input += &fast());
    input += "End\n";
    let dir = std::env::temp_dir().join(format!("arbiter-drv2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sig15.in");
    std::fs::File::create(&path).unwrap().write_all(input.as_bytes()).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args([
            "run",
            "--jobs",
            "2",
            "--part-bytes",
            "64",
            "--max-nodes",
            "100000000000",
            "tests/fixtures/tower6big.rules",
        ])
        .arg(&path)
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let _ = tx.send(line.unwrap());
        }
    });
    let mut lines = Vec::new();
    while lines.len() < 15 {
        // A bound only a hung run reaches.
        lines.push(rx.recv_timeout(std::time::Duration::from_secs(120)).expect("15 lines before the signal"));
    }
    // SAFETY: kill(2) on the pid of a child of this process.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    reader.join().unwrap();
    lines.extend(rx.try_iter());
    assert_eq!(status.signal(), Some(libc::SIGINT), "{status:?}");
    assert_eq!(lines.len(), 15, "{lines:?}");
    for (i, line) in lines.iter().enumerate() {
        assert!(line.starts_with(&format!("Case {}: ", i + 1)), "{lines:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--jobs 1` is one thread throughout, the engines' table builds
/// included: deuces wild (wild cards: no light path) builds its table of
/// every hand (on rayon's pool) for its first deal, and it did so on every
/// processor. One thread's processor time cannot exceed the wall time the
/// run took; threads building the table side by side would.
#[cfg(target_os = "linux")]
#[test]
fn one_job_is_one_thread_table_builds_included() {
    use std::fmt::Write as _;
    let deck: Vec<String> =
        "23456789TJQKA".chars().flat_map(|r| "CDHS".chars().map(move |s| format!("{r}{s}"))).collect();
    // Deterministic deals (an LCG); the first builds the table.
    let mut state: u64 = 2026;
    let mut input = String::new();
    for _ in 0..5_000 {
        let mut cards: Vec<usize> = (0..52).collect();
        for i in 0..5 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let j = i + (state >> 33) as usize % (52 - i);
            cards.swap(i, j);
        }
        let deal: Vec<&str> = cards[..5].iter().map(|&c| deck[c].as_str()).collect();
        let _ = writeln!(input, "{}", deal.join(" "));
    }
    input.push_str("#\n");
    let dir = std::env::temp_dir().join(format!("arbiter-one-job-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("deals.in");
    std::fs::write(&path, &input).unwrap();
    let used = crate::usage::measured(
        std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["run", "video_poker/deuces-wild", "--jobs", "1"])
            .arg(&path),
    );
    assert_eq!(used.code, Some(0));
    assert!(
        used.cpu <= used.wall + std::time::Duration::from_millis(5),
        "{:?} of processor time in {:?}",
        used.cpu,
        used.wall
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run whose input's size says that it holds at least as many deals as
/// a game on the rank path has sequences of ranks builds the table of
/// every sequence's choice before its first deal (`Cases::expect`); it
/// prints what a run of unknown size prints (from a pipe: the table
/// filled deal by deal), on one thread and on two, in parts of any size.
#[test]
fn an_input_long_enough_for_the_whole_table_prints_what_a_pipe_prints() {
    // 8,000 deals against 9^4 = 6,561 sequences of ranks.
    same_sized_and_piped("four-of-nine.rules", 8_000);
}

/// The card path: a file of at least 80,000 deals (see
/// `Exchange::expect_deals`) builds its tables (here the light path's)
/// before the first deal; a pipe builds them at its first deal.
#[test]
fn an_input_long_enough_for_the_hand_table_prints_what_a_pipe_prints() {
    same_sized_and_piped("four-suited.rules", 80_000);
}

/// Deterministic deals of four cards of `A`..`9` (an LCG) for the game of
/// `fixture`: the same lines printed for a file (its size known) as for a
/// pipe, on one thread and in parts.
fn same_sized_and_piped(fixture: &str, deals: usize) {
    use std::fmt::Write as _;
    let g = game(&root().join("tests/fixtures/exchange").join(fixture));
    let deck: Vec<String> = "A23456789".chars().flat_map(|r| "SHDC".chars().map(move |s| format!("{r}{s}"))).collect();
    let mut state: u64 = 2026;
    let mut input = String::new();
    for _ in 0..deals {
        let mut cards: Vec<usize> = (0..deck.len()).collect();
        for i in 0..4 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let j = i + (state >> 33) as usize % (deck.len() - i);
            cards.swap(i, j);
        }
        let deal: Vec<&str> = cards[..4].iter().map(|&c| deck[c].as_str()).collect();
        let _ = writeln!(input, "{}", deal.join(" "));
    }
    input.push_str("#\n");
    let run_sized = |size: Option<usize>, opts: RunOptions| {
        let mut printed = Vec::new();
        let mut out = Output::new(&mut printed);
        let mut source = Input::new(input.as_bytes()).ready_when(|| true);
        if let Some(size) = size {
            source = source.size_hint(size);
        }
        g.run(&mut source, &mut out, &opts).unwrap();
        out.flush().unwrap();
        drop(out);
        String::from_utf8(printed).unwrap()
    };
    let piped = run_sized(None, RunOptions { jobs: 1, ..Default::default() });
    assert_eq!(piped.lines().count(), deals);
    for opts in [RunOptions { jobs: 1, ..Default::default() }, parts(2, 4096), parts(2, 64)] {
        assert_eq!(run_sized(Some(input.len()), opts), piped, "--jobs {}", opts.jobs);
        assert_eq!(run_sized(None, opts), piped, "--jobs {}, from a pipe", opts.jobs);
    }
}
