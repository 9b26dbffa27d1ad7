//! The `arbiter` command: parses arguments, dispatches to the commands in
//! `cli/`, and returns their exit code. Rendering goes through
//! [`cli::term::Term`], decided once here.
// No function over 100 lines (the threshold is in clippy.toml).
#![warn(clippy::too_many_lines)]

mod cli;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use clap_complete::engine::ArgValueCompleter;

use cli::term::{ColorChoice, Term};

const AFTER_HELP: &str = "\
Examples:
  arbiter run rules/get_straight.rules deals.txt
  arbiter run rules/get_straight/no-wrap.rules - < deals.txt
  arbiter run get_straight/no-wrap deals.txt     (a bundled game, from anywhere)
  arbiter check rules/*.rules rules/*/*.rules
  arbiter test rules/get_straight.rules
  arbiter list
  arbiter new my-variant.rules --from get_straight
  arbiter diff get_straight my-variant.rules

Exit codes:
  0  success (also when the reader of the output closes it early)
  1  the files differ (arbiter diff --exit-code); arbiter lsp ended without shutdown
  2  usage error (bad command line)
  3  invalid rule file (the diagnostics say where)
  4  invalid input (outputs for the cases before it are printed first)
  5  a file could not be read or the output could not be written
  6  a worked example failed (arbiter test)
  7  a file is not in canonical layout (arbiter fmt --check)
  8  a resource limit was reached (run, test, analyze or diff --max-nodes; an SVG past 64 MiB); outputs before it are printed
  130  run ended by SIGINT (Ctrl-C), after printing every finished case
  143  run ended by SIGTERM, after printing every finished case
When files fail differently, the most serious failure decides: 5, 8, 3, 4, 6, 7.
Limits, the JSON diagnostics format and every option: docs/cli.md (or `arbiter man`).";

#[derive(Parser)]
#[command(
    name = "arbiter",
    version,
    about = "Check and run game rule files",
    after_help = AFTER_HELP,
    disable_help_subcommand = true
)]
struct Cli {
    /// When to use colours in diagnostics and explanations (auto: when their stream is a terminal; NO_COLOR is honoured).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    color: ColorChoice,
    /// Let `extends:` name only bundled games and rule files inside the
    /// folder of the rule file given (for services that run rule files
    /// they do not trust).
    #[arg(long, global = true)]
    restrict_extends: bool,
    /// Print only what failed: no `ok` lines, warnings, summaries of
    /// passing tests, progress bars or notes (results and errors are
    /// printed as always).
    #[arg(long, short = 'q', global = true)]
    quiet: bool,
    /// The name of a rule file given as `-` (read from standard input) in
    /// diagnostics; its `extends:` are resolved from that name's folder.
    /// Default `<stdin>`, resolved from the current folder.
    #[arg(long, global = true, value_name = "PATH")]
    stdin_name: Option<String>,
    #[command(subcommand)]
    command: Command,
}

/// Output format of machine-readable results.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// What `run` writes: its outputs, or with `--explain` its explanations
/// as text, JSON lines or one SVG document of pictures.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RunFormat {
    Text,
    Json,
    Svg,
}

/// How `check` prints diagnostics.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
    Short,
    Github,
    Sarif,
}

/// `--jobs` of the commands that analyse (`run` has its own).
#[derive(clap::Args)]
struct Threads {
    /// Threads that work for the analysis (at most 1024, and no more than
    /// the processors available): they build an engine's tables and take
    /// chunks of the samples. Default: every processor available. The
    /// figures are the same whatever the number.
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    jobs: Option<u64>,
}

impl Threads {
    fn apply(&self) -> usize {
        threads(self.jobs)
    }
}

/// The threads of a command: `--jobs N`, or every processor (which `run`
/// counts only when its threads start: `RunOptions::EVERY`). With `--jobs`,
/// every thread that works counts: rayon's pool (the engines' table
/// builds) gets as many, so that `--jobs 1` is one thread throughout; and
/// never more than the processors: the work is computation, which more
/// threads than processors only make take turns (Havannah's large input
/// with `--jobs 16` on two processors took 1.1 times the wall time of
/// `--jobs 1`, with `--jobs 2` 0.8).
fn threads(jobs: Option<u64>) -> usize {
    // Asked only when it matters (it reads the cgroup's limits from files).
    let cores = arbiter::game::processors;
    match jobs {
        Some(n) => {
            let n = if n > 1 { (n as usize).min(cores()) } else { 1 };
            // Read by rayon when its pool first runs a task: the pool is
            // not started before an engine needs it (starting it took
            // about 0.15 ms of every run). Set here, in `main` before any
            // other thread runs.
            std::env::set_var("RAYON_NUM_THREADS", n.to_string());
            n
        }
        None => cores(),
    }
}

/// The options of `run` on `jobs` threads at most. Threads start once they
/// pay, whatever `--jobs` allows (started at once, two threads took
/// Havannah's, Hex's and Y's small inputs 8-11 % longer than one, House of
/// Cards' smallest 19 %); the test hook `--part-bytes` starts them at once,
/// so that tests cut small inputs too.
fn run_options(max_nodes: Option<u64>, jobs: usize, part_bytes: Option<u64>) -> arbiter::game::RunOptions {
    let adaptive = part_bytes.is_none();
    let part_bytes = part_bytes.map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX));
    arbiter::game::RunOptions { max_nodes, jobs, adaptive, part_bytes }
}

#[derive(Subcommand)]
enum Command {
    /// Run a rule file on an input in the game's own format.
    #[command(after_help = "Examples:\n  arbiter run rules/get_straight.rules deals.txt\n  \
                            cat deals.txt | arbiter run rules/get_straight.rules")]
    Run {
        /// The rule file, or the name of a bundled game (`get_straight/no-wrap`).
        #[arg(add = ArgValueCompleter::new(cli::complete::rule_files))]
        rules: PathBuf,
        /// The input file; standard input when absent or `-`. It is read as
        /// a stream: each case is printed as soon as it is solved.
        input: Option<PathBuf>,
        /// For each output line, show the rules of the rule file that
        /// produced it and the values that decided.
        #[arg(long)]
        explain: bool,
        /// Stop a search engine's case after this many nodes, with exit 8
        /// (at least 1; default: the engine's own bound, 10,000,000 for
        /// the tower engine).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        max_nodes: Option<u64>,
        /// json: diagnostics on stderr as JSON lines (and --explain's
        /// explanations on stdout as JSON lines), for tools. svg (with
        /// --explain, for engines that draw): one SVG document of every
        /// case's picture on stdout, for documents.
        #[arg(long, value_enum, default_value_t = RunFormat::Text)]
        format: RunFormat,
        /// Most threads that work for the run (at most 1024, and no more than
        /// the processors available; default: every processor available):
        /// they read ahead, read and solve the cases and build an engine's
        /// tables (`--jobs 1` is one thread throughout). The cases run on
        /// one thread until the input proves large enough to repay threads
        /// (a few milliseconds of work left), then on as many as that work
        /// repays (one per 4 ms of it), N at most. The output is the same,
        /// in input order, whatever the number.
        #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
        jobs: Option<u64>,
        /// Test hook: most bytes of input in one part of a parallel run
        /// (1: a part per case); threads start at once. See docs/cli.md.
        #[arg(long, hide = true, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..))]
        part_bytes: Option<u64>,
    },
    /// Check rule files without running them.
    #[command(after_help = "Examples:\n  arbiter check rules/get_straight.rules\n  \
                            arbiter check rules/*.rules rules/*/*.rules\n  \
                            arbiter check --deny-warnings --format github rules/*.rules    (in a CI job)\n  \
                            arbiter check --format sarif rules/*.rules > arbiter.sarif")]
    Check {
        /// The rule files (paths or bundled names).
        #[arg(required = true, add = ArgValueCompleter::new(cli::complete::rule_files))]
        rules: Vec<PathBuf>,
        /// text for people; json: one JSON object per diagnostic and line
        /// (fields in docs/cli.md); short: one line per diagnostic
        /// (`FILE:LINE:COLUMN: severity[code]: message`); github: GitHub
        /// Actions annotations; sarif: one SARIF 2.1.0 log. All but text
        /// print only the diagnostics, on stdout.
        #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
        format: CheckFormat,
        /// Fail (exit 3) when any warning is left (after each file's
        /// `allow:`).
        #[arg(long)]
        deny_warnings: bool,
    },
    /// Analyse a game as a whole: exact expected return, hit frequency,
    /// variance and per-row counts (games with a pay table), rates over
    /// seeded random samples (games with random deals).
    #[command(after_help = "Examples:\n  arbiter analyze rules/get_straight.rules\n  \
                            arbiter analyze rules/video_poker.rules --format json\n  \
                            arbiter analyze house_of_cards --samples 8000 --shard 3/8 --partial > part3.json\n  \
                            arbiter merge house_of_cards part*.json   (docs/cli.md: GNU parallel, Slurm)")]
    Analyze {
        /// The rule file.
        #[arg(add = ArgValueCompleter::new(cli::complete::rule_files))]
        rules: PathBuf,
        /// Random samples, for engines that sample.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        samples: Option<u64>,
        /// Seed of the sampler (the same seed gives the same figures).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Only the I-th of K disjoint parts of the samples (1 <= I <= K):
        /// sample j is drawn alike whatever K, so the shards of one
        /// analysis, merged (`arbiter merge`), give exactly its figures.
        #[arg(long, value_name = "I/K", value_parser = cli::analyze::Shard::parse)]
        shard: Option<cli::analyze::Shard>,
        /// Print the exact partial result (one JSON line, for `arbiter
        /// merge`) instead of the figures.
        #[arg(long)]
        partial: bool,
        /// Search nodes of the whole analysis, for engines whose analysis
        /// searches (the tower engine: 20,000,000 by default). An analysis
        /// that needs more prints the figures of the deals done, then a
        /// limit diagnostic (exit 8).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        max_nodes: Option<u64>,
        /// json: the figures and tables as one JSON object, numbers as JSON
        /// numbers and exact values as "n/d" strings (fields in
        /// docs/cli.md).
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        #[command(flatten)]
        threads: Threads,
    },
    /// A strategy chart: classes of choices in the rule file's words (from
    /// its combination rows), in the order to follow, with the exact return
    /// of following the chart and its loss against optimal play.
    #[command(after_help = "Examples:\n  arbiter strategy rules/video_poker.rules\n  \
                            arbiter strategy video_poker/deuces-wild --lines 30\n  \
                            arbiter strategy rules/video_poker.rules --format json")]
    Strategy {
        /// The rule file.
        rules: PathBuf,
        /// Most lines of the chart (the last, which every deal can follow,
        /// included).
        #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u64).range(1..=1000))]
        lines: u64,
        /// json: the lines and returns as one JSON object, numbers as JSON
        /// numbers and exact values as "n/d" strings (fields in
        /// docs/cli.md).
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        #[command(flatten)]
        threads: Threads,
    },
    /// Merge the partial results of an analysis's shards (`analyze --shard
    /// I/K --partial`) into the figures `analyze` prints for the whole.
    #[command(after_help = "Examples:\n  \
                            for i in 1 2 3 4; do arbiter analyze shuffling_patience --shard $i/4 --partial > p$i.json; done\n  \
                            arbiter merge shuffling_patience p1.json p2.json p3.json p4.json\n  \
                            cat p*.json | arbiter merge shuffling_patience -")]
    Merge {
        /// The rule file the analysis was run on.
        #[arg(add = ArgValueCompleter::new(cli::complete::rule_files))]
        rules: PathBuf,
        /// Files of partial results (one JSON object a line); `-` reads
        /// standard input.
        #[arg(required = true)]
        parts: Vec<PathBuf>,
    },
    /// Print rule files in canonical layout, comments kept.
    #[command(after_help = "Examples:\n  arbiter fmt rules/get_straight.rules\n  \
                            arbiter fmt - < my.rules\n  arbiter fmt --write rules/*.rules\n  \
                            arbiter fmt --check rules/*.rules rules/*/*.rules")]
    Fmt {
        /// The rule files; `-` reads standard input and prints the result.
        #[arg(required = true, add = ArgValueCompleter::new(cli::complete::rule_files))]
        rules: Vec<PathBuf>,
        /// Rewrite the files in place instead of printing them.
        #[arg(long, conflicts_with = "check")]
        write: bool,
        /// Only report the files that are not in canonical layout (exit 7).
        #[arg(long)]
        check: bool,
    },
    /// List the bundled games and their variants, with engines and titles.
    #[command(after_help = "Examples:\n  arbiter list\n  arbiter list --format json")]
    List {
        /// text for people, json for tools.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Print a bundled rule file as it is bundled: a game or a variant by
    /// the name `arbiter list` shows, or as a diagnostic names it.
    #[command(after_help = "Examples:\n  arbiter show get_straight\n  arbiter show snooker_referee/six-red\n  \
                            arbiter show '<bundled>/house_of_cards.rules' > my.rules")]
    Show {
        /// The bundled name (`get_straight`, `get_straight/no-wrap`, with or
        /// without `.rules` and `<bundled>/`).
        #[arg(add = ArgValueCompleter::new(cli::complete::bundled))]
        name: String,
    },
    /// Start a variant: write a rule file that extends GAME, with the
    /// sections a variant usually changes as comments. Never overwrites.
    #[command(after_help = "Examples:\n  arbiter new my-paytable.rules --from get_straight\n  \
                            arbiter new rules/get_straight/big.rules --from rules/get_straight.rules\n  \
                            arbiter new - --from snooker_referee    (print it)")]
    New {
        /// The file to write (`-` prints it).
        path: PathBuf,
        /// The game to extend: a rule file, or a bundled game's name.
        #[arg(long, value_name = "GAME", add = ArgValueCompleter::new(cli::complete::rule_files))]
        from: PathBuf,
    },
    /// Show what a variant changes: both files merged and compared section
    /// by section, and, where the engine has an analysis, its figures for
    /// both.
    #[command(after_help = "Examples:\n  arbiter diff get_straight get_straight/paytable\n  \
                            arbiter diff rules/snooker_referee.rules my-variant.rules --format json")]
    Diff {
        /// The base rule file (a path or a bundled name).
        #[arg(add = ArgValueCompleter::new(cli::complete::rule_files))]
        base: PathBuf,
        /// The variant (any rule file: it need not extend BASE).
        #[arg(add = ArgValueCompleter::new(cli::complete::rule_files))]
        variant: PathBuf,
        /// text (side by side) for people, json for tools.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Random samples of sampled analyses (default: the engine's).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        samples: Option<u64>,
        /// Seed of the sampler (both files get the same deals).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Exit 1 when the files differ (a section changed, added or
        /// removed), 0 when they play the same rules, as `git diff
        /// --exit-code` does.
        #[arg(long)]
        exit_code: bool,
        /// Search nodes of each analysis, for engines whose analysis
        /// searches (as `analyze --max-nodes`). When one stops short, both
        /// are compared on the samples it did, then exit 8.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        max_nodes: Option<u64>,
        #[command(flatten)]
        threads: Threads,
    },
    /// Serve the Language Server Protocol on stdin and stdout, for editors:
    /// diagnostics as you type, hover, completion, go to definition,
    /// formatting, outline (docs/editors.md). Exit code 0 after the
    /// protocol's shutdown and exit, 1 without shutdown.
    #[command(
        after_help = "Examples:\n  arbiter lsp                       (started by the editor; see docs/editors.md)\n  arbiter --restrict-extends lsp    (bases only beside each buffer, or bundled)"
    )]
    Lsp,
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(
        after_help = "Examples:\n  arbiter completions bash > ~/.local/share/bash-completion/completions/arbiter"
    )]
    Completions { shell: clap_complete::Shell },
    /// Print the manual page (roff): every command with its options and
    /// examples, e.g. `arbiter man > arbiter.1`.
    #[command(after_help = "Examples:\n  arbiter man | man -l -\n  arbiter man > ~/.local/share/man/man1/arbiter.1")]
    Man,
    /// Run the worked examples (`example` sections) of rule files.
    #[command(after_help = "Examples:\n  arbiter test rules/get_straight.rules\n  \
                            arbiter test rules/*.rules rules/*/*.rules")]
    Test {
        /// The rule files.
        #[arg(required = true, add = ArgValueCompleter::new(cli::complete::rule_files))]
        rules: Vec<PathBuf>,
        /// Stop a search engine's case after this many nodes: the example
        /// is reported as stopped by a limit, with exit 8 (at least 1;
        /// default 1,000,000: worked examples are small).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        max_nodes: Option<u64>,
        /// json: one JSON object with every file's examples and their
        /// verdicts (fields in docs/cli.md); diagnostics on stderr as JSON
        /// lines.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Print this message or the help of the given command (`arbiter help
    /// run` is `arbiter run --help`).
    #[command(after_help = "Examples:\n  arbiter help\n  arbiter help run")]
    Help {
        /// The command (and its subcommand, if any) to explain.
        command: Vec<String>,
    },
}

fn main() -> ExitCode {
    cli::complete::answer_if_asked(<Cli as clap::CommandFactory>::command);
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return ExitCode::from(cli::help(&e)),
    };
    let mut term = Term::new(cli.color);
    term.load.restrict_extends = cli.restrict_extends;
    term.quiet = cli.quiet;
    // Leaked once: the terminal settings are `Copy` and live as long as the
    // process.
    term.stdin_name = cli.stdin_name.map(|n| &*Box::leak(n.into_boxed_str()));
    let code = match cli.command {
        Command::Run { rules, input, .. }
            if rules.as_os_str() == "-" && input.as_ref().is_none_or(|i| i.as_os_str() == "-") =>
        {
            term.fail(
                arbiter::diag::codes::UNSUPPORTED,
                "the rule file and the input cannot both be read from standard input: give the input as a file",
            )
        }
        Command::Run { rules, input, explain, format, max_nodes, jobs, part_bytes } => {
            // Every processor: counted only if threads start.
            let jobs = if jobs.is_some() { threads(jobs) } else { arbiter::game::RunOptions::EVERY };
            let opts = run_options(max_nodes, jobs, part_bytes);
            use cli::run::Explaining;
            let explain = explain.then_some(match format {
                RunFormat::Text => Explaining::Text,
                RunFormat::Json => Explaining::Json,
                RunFormat::Svg => Explaining::Svg,
            });
            if format == RunFormat::Svg && explain.is_none() {
                let why = "`--format svg` draws the pictures of `--explain`: add `--explain`";
                term.fail(arbiter::diag::codes::UNSUPPORTED, why)
            } else {
                cli::run::run(&term.with_json(format == RunFormat::Json), &rules, input.as_deref(), explain, &opts)
            }
        }
        Command::Check { rules, format, deny_warnings } => cli::check::check(&term, &rules, format, deny_warnings),
        Command::Test { rules, max_nodes, format } => {
            cli::check::test(&term.with_json(format == Format::Json), &rules, max_nodes)
        }
        Command::Fmt { rules, write, check } => cli::fmt::fmt(&term, &rules, write, check),
        Command::Analyze { rules, samples, seed, shard, partial, format, max_nodes, threads } => {
            let jobs = threads.apply();
            cli::analyze::analyze(
                &term,
                &rules,
                &cli::analyze::Ask { samples, seed, shard, partial, format, max_nodes, jobs },
            )
        }
        Command::Strategy { rules, lines, format, threads } => {
            threads.apply();
            cli::strategy::strategy(&term, &rules, lines as usize, format)
        }
        Command::Merge { rules, parts } => cli::merge::merge(&term, &rules, &parts),
        Command::List { format } => cli::list::list(&term, format),
        Command::Show { name } => cli::list::show(&term, &name),
        Command::New { path, from } => cli::new::new(&term, &path, &from),
        Command::Diff { base, variant, format, samples, seed, exit_code, max_nodes, threads } => {
            let jobs = threads.apply();
            let ask = cli::diff::Ask { format, samples, seed, exit_code, max_nodes, jobs };
            cli::diff::run(&term, &base, &variant, &ask)
        }
        Command::Lsp => cli::lsp::lsp(&term),
        Command::Completions { shell } => cli::complete::script(&term, shell),
        Command::Help { command } => {
            use clap::CommandFactory;
            cli::help_of(&term, Cli::command(), &command)
        }
        Command::Man => {
            use clap::CommandFactory;
            match cli::man::page(Cli::command()) {
                Ok(page) => cli::print(&term, &page),
                Err(e) => term.fail(arbiter::diag::codes::IO, format!("cannot write the manual page: {e}")),
            }
        }
    };
    ExitCode::from(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    /// `--jobs N` is a most: a run starts its threads once they pay, as by
    /// default; only the test hook `--part-bytes` starts them at once.
    #[test]
    fn threads_start_once_they_pay_unless_parts_are_sized() {
        // `threads` is left out: it sets the environment of the process.
        let parse = |args: &[&str]| match Cli::try_parse_from(args).unwrap().command {
            Command::Run { max_nodes, jobs, part_bytes, .. } => {
                run_options(max_nodes, jobs.map_or(2, |n| n as usize), part_bytes)
            }
            _ => unreachable!("a run"),
        };
        for args in [&["arbiter", "run", "x.rules"][..], &["arbiter", "run", "-j", "2", "x.rules"]] {
            let opts = parse(args);
            assert!(opts.adaptive, "{args:?}");
            assert_eq!(opts.part_bytes, 0, "{args:?}");
        }
        let opts = parse(&["arbiter", "run", "-j", "2", "--part-bytes", "64", "x.rules"]);
        assert!(!opts.adaptive);
        assert_eq!(opts.part_bytes, 64);
        assert_eq!(parse(&["arbiter", "run", "-j", "1", "x.rules"]).jobs, 1);
    }
}
