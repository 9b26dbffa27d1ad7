//! The `arbiter` command: parses arguments, calls the library, renders
//! diagnostics and maps outcomes to exit codes. Nothing else.

use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use arbiter::diag::Report;
use arbiter::engines::{compile, Compiled};
use arbiter::game::{Output, RunError};
use arbiter::load::{load_path, LoadError, Loaded};
use clap::{Parser, Subcommand, ValueEnum};

/// Exit codes, documented in --help and the README.
mod exit {
    pub const OK: u8 = 0;
    pub const USAGE: u8 = 2;
    pub const RULES: u8 = 3;
    pub const INPUT: u8 = 4;
    pub const IO: u8 = 5;
    pub const EXAMPLE: u8 = 6;
    pub const UNFORMATTED: u8 = 7;
    pub const LIMIT: u8 = 8;
}

/// Largest input accepted (it is read whole).
const MAX_INPUT: u64 = 1 << 30;

const AFTER_HELP: &str = "\
Examples:
  arbiter run rules/get_straight.rules deals.txt
  arbiter run rules/get_straight/no-wrap.rules - < deals.txt
  arbiter run get_straight/no-wrap deals.txt     (a bundled game, from anywhere)
  arbiter check rules/*.rules rules/*/*.rules
  arbiter test rules/get_straight.rules

Exit codes:
  0  success
  2  usage error (bad command line)
  3  invalid rule file (the diagnostics say where)
  4  invalid input (outputs for the cases before it are printed first)
  5  a file could not be read or the output could not be written
  6  a worked example failed (arbiter test)
  7  a file is not in canonical layout (arbiter fmt --check)
  8  a resource limit was reached (--max-nodes, input over 1 GiB)";

#[derive(Parser)]
#[command(name = "arbiter", version, about = "Check and run game rule files", after_help = AFTER_HELP)]
struct Cli {
    /// When to use colours in diagnostics (NO_COLOR is honoured).
    #[arg(long, value_enum, default_value_t = Color::Auto, global = true)]
    color: Color,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand)]
enum Command {
    /// Run a rule file on an input in the game's own format.
    #[command(
        after_help = "Examples:\n  arbiter run rules/get_straight.rules deals.txt\n  cat deals.txt | arbiter run rules/get_straight.rules"
    )]
    Run {
        /// The rule file, or the name of a bundled game (`get_straight/no-wrap`).
        rules: PathBuf,
        /// The input file; standard input when absent or `-`.
        input: Option<PathBuf>,
        /// For each output line, show the rules of the rule file that
        /// produced it and the values that decided.
        #[arg(long)]
        explain: bool,
        /// Stop a search engine's case after this many nodes, with exit 8
        /// (default: no limit).
        #[arg(long, value_name = "N")]
        max_nodes: Option<u64>,
        /// Format of --explain: text for a terminal, json (one object per line) for tools.
        #[arg(long, value_enum, default_value_t = Format::Text, requires = "explain")]
        format: Format,
    },
    /// Check rule files without running them.
    #[command(
        after_help = "Examples:\n  arbiter check rules/get_straight.rules\n  arbiter check rules/*.rules rules/*/*.rules"
    )]
    Check {
        /// The rule files.
        #[arg(required = true)]
        rules: Vec<PathBuf>,
    },
    /// Analyse a game as a whole: exact expected return (Get Straight-like
    /// games), rates over seeded random samples (games with random deals).
    #[command(
        after_help = "Examples:\n  arbiter analyze rules/get_straight.rules\n  arbiter analyze rules/get_straight/paytable.rules"
    )]
    Analyze {
        /// The rule file.
        rules: PathBuf,
        /// Random samples, for engines that sample.
        #[arg(long, default_value_t = 100_000)]
        samples: u64,
        /// Seed of the sampler (the same seed gives the same figures).
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Print rule files in canonical layout, comments kept.
    #[command(
        after_help = "Examples:\n  arbiter fmt rules/get_straight.rules\n  arbiter fmt --write rules/*.rules\n  arbiter fmt --check rules/*.rules rules/*/*.rules"
    )]
    Fmt {
        /// The rule files.
        #[arg(required = true)]
        rules: Vec<PathBuf>,
        /// Rewrite the files in place instead of printing them.
        #[arg(long, conflicts_with = "check")]
        write: bool,
        /// Only report the files that are not in canonical layout (exit 7).
        #[arg(long)]
        check: bool,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(
        after_help = "Examples:\n  arbiter completions bash > ~/.local/share/bash-completion/completions/arbiter"
    )]
    Completions { shell: clap_complete::Shell },
    /// Run the worked examples (`example` sections) of rule files.
    #[command(
        after_help = "Examples:\n  arbiter test rules/get_straight.rules\n  arbiter test rules/*.rules rules/*/*.rules"
    )]
    Test {
        /// The rule files.
        #[arg(required = true)]
        rules: Vec<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { exit::USAGE } else { exit::OK });
        }
    };
    setup_miette(cli.color);
    let code = match cli.command {
        Command::Run { rules, input, explain, format, max_nodes } => {
            arbiter::game::set_max_nodes(max_nodes.unwrap_or(0));
            run(&rules, input.as_deref(), explain.then_some(format), cli.color)
        }
        Command::Check { rules } => check(&rules),
        Command::Test { rules } => test(&rules),
        Command::Fmt { rules, write, check } => fmt(&rules, write, check),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(shell, &mut Cli::command(), "arbiter", &mut io::stdout());
            exit::OK
        }
        Command::Analyze { rules, samples, seed } => analyze(&rules, samples, seed),
    };
    ExitCode::from(code)
}

fn setup_miette(color: Color) {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let colored = match color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => !no_color && io::stderr().is_terminal(),
    };
    let _ = miette::set_hook(Box::new(move |_| {
        Box::new(
            miette::MietteHandlerOpts::new()
                .color(colored)
                .unicode(colored)
                .terminal_links(false)
                .context_lines(1)
                .build(),
        )
    }));
}

fn eprint_report(r: Report) {
    eprintln!("{:?}", miette::Report::new(r));
}

fn print_load_error(e: &LoadError) {
    for d in &e.diags {
        eprint_report(d.report(&e.sources));
    }
}

/// Loads a rule file from disk, or a bundled game by name when no such
/// file exists (`get_straight`, `get_straight/no-wrap`).
fn load(path: &Path) -> Result<Loaded, LoadError> {
    if !path.exists() {
        if let Some(r) =
            path.to_str().and_then(|name| arbiter::load::load_bundled(name.strip_suffix(".rules").unwrap_or(name)))
        {
            return r;
        }
        let mut e = load_path(path).err().unwrap_or_else(|| unreachable!("a missing file cannot load"));
        let names = arbiter::load::bundled_names();
        let asked = path.to_string_lossy();
        let hint =
            match arbiter::diag::did_you_mean(asked.strip_suffix(".rules").unwrap_or(&asked), names.iter().copied()) {
                Some(s) => format!("did you mean the bundled game `{s}`?"),
                None => format!("bundled games: {}", names.join(", ")),
            };
        if let Some(d) = e.diags.first_mut() {
            d.help = Some(hint);
        }
        return Err(e);
    }
    load_path(path)
}

/// Loads and compiles a rule file; on failure prints every error and
/// returns the exit code (3, or 5 when a file cannot be read).
fn load_and_compile(path: &Path) -> Result<(Loaded, Compiled), u8> {
    let loaded = match load(path) {
        Ok(l) => l,
        Err(e) => {
            print_load_error(&e);
            return Err(if e.diags.iter().any(|d| d.code == "unreadable") { exit::IO } else { exit::RULES });
        }
    };
    let (compiled, diags) = compile(&loaded);
    match compiled {
        Some(c) => Ok((loaded, c)),
        None => {
            for d in diags.iter().filter(|d| d.is_error()) {
                eprint_report(d.report(&loaded.sources));
            }
            Err(exit::RULES)
        }
    }
}

fn check(paths: &[PathBuf]) -> u8 {
    let mut failed = false;
    let stdout = io::stdout();
    for path in paths {
        let loaded = match load(path) {
            Ok(l) => l,
            Err(e) => {
                print_load_error(&e);
                failed = true;
                continue;
            }
        };
        let (compiled, diags) = compile(&loaded);
        for d in &diags {
            eprint_report(d.report(&loaded.sources));
        }
        let warnings = diags.iter().filter(|d| !d.is_error()).count();
        if compiled.is_some() {
            let w = match warnings {
                0 => String::new(),
                1 => ", 1 warning".to_string(),
                n => format!(", {n} warnings"),
            };
            let _ = writeln!(stdout.lock(), "{}: ok{w}", path.display());
        } else {
            failed = true;
        }
    }
    if failed {
        exit::RULES
    } else {
        exit::OK
    }
}

fn analyze(path: &Path, samples: u64, seed: u64) -> u8 {
    let compiled = match load_and_compile(path) {
        Ok((_, c)) => c,
        Err(code) => return code,
    };
    let Some(analysis) = compiled.game.analysis() else {
        eprintln!("error: the `{}` engine has no analysis", compiled.engine);
        return exit::USAGE;
    };
    let bar = indicatif::ProgressBar::new(0);
    if !io::stderr().is_terminal() {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} ({eta})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let opts = arbiter::game::AnalyzeOptions { samples, seed };
    let lines = analysis.analyze(&opts, &mut |done, total| {
        bar.set_length(total);
        bar.set_position(done);
    });
    bar.finish_and_clear();
    let width = lines.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    if let Some(title) = &compiled.title {
        let _ = writeln!(out, "{title} ({})", path.display());
    }
    for (k, v) in lines {
        let _ = writeln!(out, "{k:width$}  {v}");
    }
    exit::OK
}

fn fmt(paths: &[PathBuf], write: bool, check: bool) -> u8 {
    let mut code = exit::OK;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    for path in paths {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: cannot read `{}`: {e}", path.display());
                code = exit::IO;
                continue;
            }
        };
        let formatted = match arbiter::syntax::fmt::format(&text) {
            Ok(f) => f,
            Err(d) => {
                let mut sources = arbiter::source::SourceMap::new();
                let id = sources.add(path.display().to_string(), text.as_str());
                eprint_report(
                    arbiter::diag::Diag { span: arbiter::source::Span { file: id, ..d.span }, ..d }.report(&sources),
                );
                code = code.max(exit::RULES);
                continue;
            }
        };
        if check {
            if formatted != text {
                let _ = writeln!(out, "{}: not in canonical layout", path.display());
                code = code.max(exit::UNFORMATTED);
            }
        } else if write {
            if formatted != text {
                if let Err(e) = std::fs::write(path, &formatted) {
                    eprintln!("error: cannot write `{}`: {e}", path.display());
                    code = exit::IO;
                }
            }
        } else {
            let _ = out.write_all(formatted.as_bytes());
        }
    }
    code
}

fn test(paths: &[PathBuf]) -> u8 {
    use arbiter::example::{diff, run as run_example, Outcome};
    let (mut passed, mut failed, mut broken) = (0, 0, false);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    for path in paths {
        let Ok((_, compiled)) = load_and_compile(path) else {
            broken = true;
            continue;
        };
        let _ = writeln!(out, "{}", path.display());
        if compiled.examples.is_empty() {
            let _ = writeln!(out, "  (no examples)");
        }
        for ex in &compiled.examples {
            match run_example(compiled.game.as_ref(), ex) {
                Outcome::Pass => {
                    passed += 1;
                    let _ = writeln!(out, "  ok    {}", ex.name);
                }
                Outcome::Differs(want, got) => {
                    failed += 1;
                    let _ = writeln!(out, "  FAIL  {}: the output differs", ex.name);
                    for line in diff(&want, &got).lines() {
                        let _ = writeln!(out, "        {line}");
                    }
                }
                Outcome::WrongError { expected, got } => {
                    failed += 1;
                    let show = |e: &Option<String>| {
                        e.as_deref().map_or("no input error".to_string(), |m| format!("an input error with `{m}`"))
                    };
                    let _ = writeln!(out, "  FAIL  {}: expected {}, got {}", ex.name, show(&expected), show(&got));
                }
            }
        }
    }
    let _ = writeln!(out, "{passed} passed, {failed} failed");
    if broken {
        exit::RULES
    } else if failed > 0 {
        exit::EXAMPLE
    } else {
        exit::OK
    }
}

fn run(rules: &Path, input: Option<&Path>, explain: Option<Format>, color: Color) -> u8 {
    let (loaded, compiled) = match load_and_compile(rules) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let (name, bytes) = match read_input(input) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::IO;
        }
    };
    let text: String = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let lossy: Arc<str> = String::from_utf8_lossy(e.as_bytes()).into();
            eprint_report(Report::on_text(
                "input-not-utf8",
                &name,
                lossy,
                at,
                1,
                "input is not valid UTF-8".to_string(),
                Some("invalid byte here".to_string()),
                Some("save the input as UTF-8 (or ASCII)".to_string()),
            ));
            return exit::INPUT;
        }
    };
    let stdout = io::stdout();
    let eager = stdout.is_terminal();
    let mut lock = stdout.lock();
    let mut out = Output::new(&mut lock).eager(eager);
    let result = match explain {
        None => compiled.game.run(&text, &mut out),
        Some(format) => match compiled.game.explainer() {
            None => {
                eprintln!("error: the `{}` engine cannot explain its outputs yet", compiled.engine);
                return exit::USAGE;
            }
            Some(explainer) => {
                let colored = match color {
                    Color::Always => true,
                    Color::Never => false,
                    Color::Auto => eager && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
                };
                let handler = if colored {
                    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode())
                } else {
                    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
                }
                .with_context_lines(1)
                .with_links(false);
                let mut io_err = None;
                let r = explainer.explain(&text, &mut |e| {
                    let mut s = if format == Format::Json {
                        e.to_json(&loaded.sources)
                    } else {
                        let mut s = String::new();
                        let _ = handler.render_report(&mut s, &e.render(&loaded.sources));
                        s
                    };
                    s.push('\n');
                    if let Err(err) = out.write(s.as_bytes()) {
                        io_err.get_or_insert(err);
                    }
                });
                match io_err {
                    Some(e) => Err(RunError::Io(e)),
                    None => r,
                }
            }
        },
    };
    let flushed = out.flush();
    drop(out);
    match (result, flushed) {
        (Err(RunError::Io(e)), _) | (Ok(()), Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => exit::OK,
        (Err(RunError::Io(e)), _) | (Ok(()), Err(e)) => {
            eprintln!("error: cannot write the output: {e}");
            exit::IO
        }
        (Ok(()), Ok(())) => exit::OK,
        (Err(RunError::Limit(message)), _) => {
            eprintln!("error: {message}");
            exit::LIMIT
        }
        (Err(RunError::Input(e)), _) => {
            let (line, col) = e.line_col(&text);
            // miette draws no label on an empty span at the end of the input,
            // so the position goes into the message there.
            let message =
                if e.len == 0 { format!("{} (line {line}, column {col})", e.message) } else { e.message.clone() };
            eprint_report(Report::on_text(
                "input",
                &name,
                Arc::from(text.as_str()),
                e.offset,
                e.len,
                message,
                Some(format!("line {line}, column {col}")),
                e.help.clone(),
            ));
            exit::INPUT
        }
    }
}

fn read_input(input: Option<&Path>) -> io::Result<(String, Vec<u8>)> {
    match input {
        None => read_stdin(),
        Some(p) if p.as_os_str() == "-" => read_stdin(),
        Some(p) => {
            if std::fs::metadata(p).is_ok_and(|m| m.len() > MAX_INPUT) {
                return Err(io::Error::other(format!("input `{}` is larger than {} bytes", p.display(), MAX_INPUT)));
            }
            std::fs::read(p)
                .map(|b| (p.display().to_string(), b))
                .map_err(|e| io::Error::new(e.kind(), format!("cannot read input `{}`: {e}", p.display())))
        }
    }
}

fn read_stdin() -> io::Result<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    io::stdin().lock().take(MAX_INPUT + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > MAX_INPUT {
        return Err(io::Error::other(format!("the input is larger than {} bytes", MAX_INPUT)));
    }
    Ok(("<stdin>".to_string(), buf))
}
