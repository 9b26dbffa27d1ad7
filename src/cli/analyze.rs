//! `arbiter analyze`: figures of a game as a whole, with a progress bar on
//! a terminal for long analyses.

use std::io::IsTerminal;
use std::path::Path;

use arbiter::game::AnalyzeOptions;
use arbiter::report::diag::escape_line;

use super::term::Term;
use super::{load_and_compile, print, unsupported};

pub fn analyze(term: &Term, path: &Path, samples: Option<u64>, seed: u64) -> u8 {
    let compiled = match load_and_compile(term, path) {
        Ok((_, c)) => c,
        Err(code) => return code,
    };
    let Some(analysis) = compiled.game.analysis() else {
        return unsupported(term, format!("the `{}` engine has no analysis", compiled.engine.name));
    };
    let samples = match (analysis.default_samples(), samples) {
        (None, Some(_)) => {
            return unsupported(
                term,
                format!("the `{}` engine's analysis is exact: `--samples` does not apply", compiled.engine.name),
            )
        }
        (None, None) => 0,
        (Some(default), asked) => asked.unwrap_or(default).max(1),
    };
    let bar = indicatif::ProgressBar::new(0);
    if !std::io::stderr().is_terminal() {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} ({eta})") {
        bar.set_style(style);
    }
    let opts = AnalyzeOptions { samples, seed };
    let lines = analysis.analyze(&opts, &mut |done, total| {
        bar.set_length(total);
        bar.set_position(done);
    });
    bar.finish_and_clear();
    let width = lines.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = String::new();
    if let Some(title) = &compiled.title {
        out.push_str(&format!("{} ({})\n", escape_line(title), escape_line(&path.display().to_string())));
    }
    for (k, v) in lines {
        out.push_str(&format!("{k:width$}  {v}\n"));
    }
    print(term, out.as_bytes())
}
