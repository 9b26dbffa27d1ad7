//! "Did you mean": the closest known name to a misspelt one, in one style
//! for every diagnostic (rule files, inputs, the command line).

/// How similar (Jaro-Winkler, case-insensitive) a name must be to be
/// suggested.
const THRESHOLD: f64 = 0.8;

/// Lists of at most this many names are shown whole when nothing is close.
const LIST: usize = 16;

/// Names are compared by at most this many characters: a longer one by its
/// first and last halves of it. Jaro-Winkler costs the product of the two
/// lengths, so a comparison costs at most 64 x 64 steps, whatever the
/// names (two 3,000-character labels took 4.5 million).
pub const MAX_COMPARED: usize = 64;

/// At most this many candidates are compared with one name (the first
/// ones): one "did you mean" costs at most this many comparisons.
pub const MAX_CANDIDATES: usize = 4096;

/// What a name is compared by: lower case, and at most [`MAX_COMPARED`]
/// characters (the first and the last halves).
fn key(name: &str) -> String {
    let n = name.chars().count();
    if n <= MAX_COMPARED {
        return name.to_lowercase();
    }
    let half = MAX_COMPARED / 2;
    name.chars().take(half).chain(name.chars().skip(n - half)).collect::<String>().to_lowercase()
}

/// The closest candidate to `name`, if any is close enough to suggest.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = key(name);
    candidates
        .into_iter()
        .take(MAX_CANDIDATES)
        .filter(|c| *c != name)
        .map(|c| (strsim::jaro_winkler(&lower, &key(c)), c))
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

    /// SLOW-1: long names are compared by their ends, at a bounded cost,
    /// and still found.
    #[test]
    fn long_names_are_compared_by_their_first_and_last_characters() {
        let long = |c: char, end: &str| format!("{}{end}", c.to_string().repeat(5000));
        let (a, b) = (long('a', "xy"), long('b', "xy"));
        let near = long('a', "xz");
        assert_eq!(closest(&near, [b.as_str(), a.as_str()]), Some(a.as_str()));
        assert_eq!(key(&a).chars().count(), MAX_COMPARED);
        // Up to the bound, the whole name counts.
        assert_eq!(key("Invite-the-Neighbours"), "invite-the-neighbours");
    }

    #[test]
    fn help_names_the_choices_when_nothing_is_close() {
        assert_eq!(help("zzz", ["a", "b", "c"]).as_deref(), Some("expected one of `a`, `b` or `c`"));
        assert_eq!(help("rnaks", ["ranks"]).as_deref(), Some("did you mean `ranks`?"));
        assert_eq!(help("zzz", Vec::<&str>::new()), None);
    }
}
