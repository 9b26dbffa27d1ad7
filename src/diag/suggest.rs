//! "Did you mean": the closest known name to a misspelt one, in one style
//! for every diagnostic (rule files, inputs, the command line).

/// How similar (Jaro-Winkler, case-insensitive) a name must be to be
/// suggested.
const THRESHOLD: f64 = 0.8;

/// Lists of at most this many names are shown whole when nothing is close.
const LIST: usize = 16;

/// The closest candidate to `name`, if any is close enough to suggest.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_lowercase();
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| (strsim::jaro_winkler(&lower, &c.to_lowercase()), c))
        .filter(|(score, _)| *score >= THRESHOLD)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// The help line for an unknown `name`: "did you mean `X`?" when one is
/// close, else the list of choices when it is short, else nothing.
pub fn help<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str> + Clone) -> Option<String> {
    if let Some(s) = closest(name, candidates.clone()) {
        return Some(format!("did you mean `{s}`?"));
    }
    let all: Vec<&str> = candidates.into_iter().collect();
    (!all.is_empty() && all.len() <= LIST).then(|| format!("expected one of {}", list(&all)))
}

/// `a`, `b` or `c`.
pub fn list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_need_to_be_close() {
        assert_eq!(closest("rnaks", ["ranks", "suits"]), Some("ranks"));
        assert_eq!(closest("Blakc", ["Black", "Blue", "Brown"]), Some("Black"));
        assert_eq!(closest("zzz", ["ranks", "suits"]), None);
    }

    #[test]
    fn help_names_the_choices_when_nothing_is_close() {
        assert_eq!(help("zzz", ["a", "b", "c"]).as_deref(), Some("expected one of `a`, `b` or `c`"));
        assert_eq!(help("rnaks", ["ranks"]).as_deref(), Some("did you mean `ranks`?"));
        assert_eq!(help("zzz", Vec::<&str>::new()), None);
    }
}
