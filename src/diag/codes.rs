//! The registry of diagnostic codes. Every diagnostic arbiter prints has one
//! of these codes (shown as `arbiter::CODE`); a [`Code`] can only be made
//! here, so a new diagnostic needs a line in this table, and
//! docs/diagnostics.md lists exactly these codes with a test file that
//! triggers each (checked by tests/suite/tidy.rs).

/// A stable diagnostic code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Code(&'static str);

impl Code {
    /// The code as printed, without the `arbiter::` prefix.
    pub fn as_str(self) -> &'static str {
        self.0
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

/// Which exit code a diagnostic leads to when it is an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// An invalid rule file (exit 3).
    Rules,
    /// An invalid input (exit 4).
    Input,
    /// A file that cannot be read or an output that cannot be written (exit 5).
    Io,
    /// A resource limit (exit 8).
    Limit,
    /// A command line that cannot be carried out (exit 2).
    Usage,
    /// A worked example that fails (exit 6).
    Example,
}

macro_rules! codes {
    ($($name:ident = $text:literal, $family:ident;)*) => {
        $(pub const $name: Code = Code($text);)*
        /// Every code, with the exit family of its errors.
        pub const ALL: &[(Code, Family)] = &[$(($name, Family::$family)),*];
    };
}

codes! {
    // Syntax and loading.
    SYNTAX = "syntax", Rules;
    TOO_DEEP = "too-deep", Rules;
    TOO_COMPLEX = "too-complex", Rules;
    NUMBER_TOO_LARGE = "number-too-large", Rules;
    BAD_ESCAPE = "bad-escape", Rules;
    UNCLOSED_STRING = "unclosed-string", Rules;
    NOT_UTF8 = "not-utf8", Rules;
    UNREADABLE = "unreadable", Io;
    EXTENDS_CYCLE = "extends-cycle", Rules;
    EXTENDS_PATH = "extends-path", Rules;
    NOTHING_TO_REPLACE = "nothing-to-replace", Rules;
    NEW_SECTION = "new-section", Rules;
    // Checking, common to every engine.
    UNKNOWN_KEY = "unknown-key", Rules;
    MISSING = "missing", Rules;
    DUPLICATE = "duplicate", Rules;
    TYPE = "type", Rules;
    ARITY = "arity", Rules;
    OUT_OF_RANGE = "out-of-range", Rules;
    TOO_LARGE = "too-large", Rules;
    OVERFLOW = "overflow", Rules;
    UNKNOWN_NAME = "unknown-name", Rules;
    EMPTY = "empty", Rules;
    EMPTY_RANGE = "empty-range", Rules;
    AMBIGUOUS_CARD = "ambiguous-card", Rules;
    TEMPLATE = "template", Rules;
    TEMPLATE_FIELD = "template-field", Rules;
    CONFLICT = "conflict", Rules;
    // Engines.
    NEGATIVE_PAYOUT = "negative-payout", Rules;
    EMPTY_TIEBREAK = "empty-tiebreak", Rules;
    UNFORMABLE = "unformable", Rules;
    SHADOWED = "shadowed", Rules;
    PAYTABLE_ORDER = "paytable-order", Rules;
    UNUSED = "unused", Rules;
    NEVER_MATCHES = "never-matches", Rules;
    GROUP_TOO_LARGE = "group-too-large", Rules;
    OVERLAPPING_GROUPS = "overlapping-groups", Rules;
    PEAKS_UNFILLABLE = "peaks-unfillable", Rules;
    HOUSE_FULL = "house-full", Rules;
    SCORING_HOLE = "scoring-hole", Rules;
    FIRST_MOVER = "first-mover", Rules;
    PENALTY_RANGE = "penalty-range", Rules;
    SEQUENCE = "sequence", Rules;
    SEQUENCE_NEVER_ENDS = "sequence-never-ends", Rules;
    PHASE_NEVER_LEFT = "phase-never-left", Rules;
    FRAME_NEVER_ENDS = "frame-never-ends", Rules;
    FRAME_STUCK = "frame-stuck", Rules;
    STUCK_UNDECIDED = "stuck-undecided", Rules;
    // Inputs.
    INPUT = "input", Input;
    INPUT_NOT_UTF8 = "input-not-utf8", Input;
    INPUT_LINE_TOO_LONG = "input-line-too-long", Input;
    PARTIAL = "partial", Input;
    // Running.
    IO = "io", Io;
    LIMIT = "limit", Limit;
    UNSUPPORTED = "unsupported", Usage;
    // Worked examples run in the editor (`arbiter test` reports them too).
    EXAMPLE_FAILS = "example-fails", Example;
    // Reporting (never an error).
    TOO_MANY_DIAGNOSTICS = "too-many-diagnostics", Rules;
}

/// The codes of warnings: a file with only these still checks, and a rule
/// file's `allow:` may silence them (docs/diagnostics.md marks exactly
/// these "(warning)").
pub const WARNINGS: &[Code] = &[NEW_SECTION, PAYTABLE_ORDER, UNUSED, OVERLAPPING_GROUPS, STUCK_UNDECIDED];

/// The code named `text`, if there is one.
pub fn find(text: &str) -> Option<Code> {
    ALL.iter().map(|&(c, _)| c).find(|c| c.0 == text)
}

/// The exit family of a code's errors.
pub fn family(code: Code) -> Family {
    ALL.iter().find(|(c, _)| *c == code).map_or(Family::Rules, |&(_, f)| f)
}
