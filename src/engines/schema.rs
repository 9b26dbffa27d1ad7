//! What a rule file may say, engine by engine: each engine declares its
//! sections and their keys, with a type and a one-line doc, in its own
//! `schema.rs`; this module holds the types, the top level every rule file
//! shares (`game`, `engine`, `extends`, `remove`, `example`), and lookups.
//!
//! The schema is documentation that is checked: `tests/suite/schema.rs` compiles
//! every bundled and broken rule file, records the keys the lowerings ask
//! `check::Block` for, and fails when a key is asked for that the schema
//! does not list, or listed and never asked for. The language server
//! (hover, completion) and `arbiter new` read it; `docs/reference.md` is
//! generated from it.

use crate::expr::Ty;

/// The sections of one engine, and what its expressions may read.
#[derive(Debug)]
pub struct Schema {
    /// Top-level sections, in the order a rule file usually writes them.
    pub sections: &'static [SectionSchema],
    /// The engine's state at its decision points: the names its rule
    /// expressions read (the keys marked with [`Key::decides`]), in the
    /// order the engine fills [`crate::expr::Env`] (sets, then numbers and
    /// conditions, each in this order).
    pub state: &'static [StateVar],
}

/// A name of an engine's state that rule expressions read.
#[derive(Debug, Clone, Copy)]
pub struct StateVar {
    pub name: &'static str,
    pub ty: Ty,
    /// What the values are, in words ("a set of balls", "a number, 0 or more").
    pub what: &'static str,
    pub doc: &'static str,
    /// An expression that reads it, as written in a shipped or test rule
    /// file (`tests/suite/schema.rs` finds it there).
    pub example: &'static str,
}

impl StateVar {
    pub const fn new(name: &'static str, ty: Ty, what: &'static str, doc: &'static str) -> StateVar {
        StateVar { name, ty, what, doc, example: "" }
    }

    pub const fn example(self, example: &'static str) -> StateVar {
        StateVar { example, ..self }
    }
}

/// A decision point: a key whose value the engine evaluates while it plays,
/// reading its state.
#[derive(Debug, Clone, Copy)]
pub struct Decision {
    /// When the engine evaluates it, and what it decides there.
    pub when: &'static str,
    /// The state names it may not read, with the reason (empty: all).
    pub unavailable: &'static [(&'static str, &'static str)],
    /// A value of the key, as written in a shipped or test rule file.
    pub example: &'static str,
}

/// A section: `kind { ... }` or `kind "NAME" { ... }`.
#[derive(Debug, Clone, Copy)]
pub struct SectionSchema {
    pub kind: &'static str,
    pub doc: &'static str,
    /// For a named section, the kind of name its label defines (`ball`,
    /// `combination`).
    pub names: Option<&'static str>,
    pub required: bool,
    /// The section may be written several times (with different names).
    pub repeated: bool,
    /// A section a variant usually changes (`arbiter new` shows it).
    pub often_changed: bool,
    pub keys: &'static [Key],
}

/// A property of a section (or of the top level): `key: values`.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    pub name: &'static str,
    /// What the values are, in words ("a whole number, 1 or more").
    pub ty: &'static str,
    pub doc: &'static str,
    pub required: bool,
    /// The value when the key is left out.
    pub default: Option<&'static str>,
    /// A typical value (completion inserts it after `key: `).
    pub example: &'static str,
    /// The words the values may be, each with its meaning.
    pub words: &'static [(&'static str, &'static str)],
    /// Each value defines a name of this kind (`ranks` defines ranks).
    pub defines: Option<&'static str>,
    /// The kinds of names the values use (`ball`, `rank`).
    pub refers: &'static [&'static str],
    /// Set when the key is a decision point (an expression over the state).
    pub decides: Option<Decision>,
}

impl Key {
    /// An optional key with no default.
    pub const fn new(name: &'static str, ty: &'static str, doc: &'static str) -> Key {
        Key {
            name,
            ty,
            doc,
            required: false,
            default: None,
            example: "",
            words: &[],
            defines: None,
            refers: &[],
            decides: None,
        }
    }

    pub const fn required(self) -> Key {
        Key { required: true, ..self }
    }

    pub const fn default(self, value: &'static str) -> Key {
        Key { default: Some(value), ..self }
    }

    pub const fn example(self, example: &'static str) -> Key {
        Key { example, ..self }
    }

    pub const fn words(self, words: &'static [(&'static str, &'static str)]) -> Key {
        Key { words, ..self }
    }

    pub const fn defines(self, kind: &'static str) -> Key {
        Key { defines: Some(kind), ..self }
    }

    pub const fn refers(self, kinds: &'static [&'static str]) -> Key {
        Key { refers: kinds, ..self }
    }

    /// A decision point: evaluated `when`, over the whole state; `example`
    /// is a value from a shipped or test rule file.
    pub const fn decides(self, when: &'static str, example: &'static str) -> Key {
        Key { decides: Some(Decision { when, unavailable: &[], example }), ..self }
    }

    /// A decision point that may not read some state names.
    pub const fn decides_without(
        self,
        when: &'static str,
        unavailable: &'static [(&'static str, &'static str)],
        example: &'static str,
    ) -> Key {
        Key { decides: Some(Decision { when, unavailable, example }), ..self }
    }
}

impl SectionSchema {
    /// An optional section written at most once.
    pub const fn new(kind: &'static str, doc: &'static str, keys: &'static [Key]) -> SectionSchema {
        SectionSchema { kind, doc, names: None, required: false, repeated: false, often_changed: false, keys }
    }

    pub const fn required(self) -> SectionSchema {
        SectionSchema { required: true, ..self }
    }

    /// `kind "NAME" { ... }`, any number of them; the label names a `noun`.
    pub const fn named(self, noun: &'static str) -> SectionSchema {
        SectionSchema { names: Some(noun), repeated: true, ..self }
    }

    pub const fn often_changed(self) -> SectionSchema {
        SectionSchema { often_changed: true, ..self }
    }

    /// The key called `name`.
    pub fn key(&self, name: &str) -> Option<&'static Key> {
        self.keys.iter().find(|k| k.name == name)
    }

    /// How the section is written: `play { ... }`, `ball "NAME" { ... }`.
    pub fn head(&self) -> String {
        match self.names {
            Some(_) => format!("{} \"NAME\"", self.kind),
            None => self.kind.to_string(),
        }
    }
}

impl Schema {
    /// The section of kind `kind`, among the engine's and the shared ones.
    pub fn section(&self, kind: &str) -> Option<&'static SectionSchema> {
        self.sections.iter().chain(TOP.sections).find(|s| s.kind == kind)
    }

    /// The names an expression may read, with their types, in the order of
    /// [`Schema::state`] (what [`crate::expr::Scope::vars`] takes).
    pub fn vars(&self) -> Vec<(&'static str, Ty)> {
        self.state.iter().map(|v| (v.name, v.ty)).collect()
    }

    /// Every decision point: (section kind, key).
    pub fn decisions(&self) -> impl Iterator<Item = (&'static SectionSchema, &'static Key)> + '_ {
        self.sections.iter().flat_map(|s| s.keys.iter().filter(|k| k.decides.is_some()).map(move |k| (s, k)))
    }

    /// Every top-level section a rule file of this engine may have.
    pub fn all_sections(&self) -> impl Iterator<Item = &'static SectionSchema> + '_ {
        self.sections.iter().chain(TOP.sections)
    }
}

/// What an `input { end: }` key means, in every engine whose input ends
/// with a line of its own.
pub const END_LINE: &str = "the line that ends the input: nothing after it is read (a run answers and ends there, \
                            even on a pipe that stays open), so text after it is neither run nor checked";

/// The top level of every rule file: what `load` and `compile` read
/// whatever the engine.
pub const TOP: Schema = Schema { sections: &[EXAMPLE], state: &[] };

/// The properties of the top level of every rule file.
pub const TOP_KEYS: &[Key] = &[
    Key::new("game", "a string", "the game's title").example("\"My Game\""),
    Key::new("engine", "an engine's name", "the engine that plays the rules").required().example("exchange"),
    Key::new(
        "extends",
        "a path (a string)",
        "the base rule file this variant changes, relative to this file, or the name of a bundled game",
    )
    .example("\"../game.rules\""),
    Key::new("remove", "a section kind and its label", "in a variant: drops a section of the base")
        .example("group \"NAME\""),
    Key::new(
        "allow",
        "diagnostic codes (strings)",
        "warnings of these codes are not reported (errors always are); a variant's list replaces its base's",
    )
    .example("\"unused\""),
];

/// Top-level keys that loading handles (before any engine reads the file).
pub const LOADER_KEYS: &[&str] = &["extends", "remove"];

/// Worked examples, run by `arbiter test`.
pub const EXAMPLE: SectionSchema = SectionSchema::new(
    "example",
    "a worked example: an input and the output the rules must print for it (`arbiter test`); not inherited by variants",
    &[
        Key::new("input", "a string (`\"\"\"` spans lines)", "the input, in the game's own format")
            .required()
            .example("\"\"\"\n\"\"\""),
        Key::new("output", "a string (`\"\"\"` spans lines)", "the exact output expected")
            .required()
            .example("\"\"\"\n\"\"\""),
        Key::new("error", "a string", "text the input error after the output must contain").example("\"\""),
    ],
)
.named("example");

/// The top-level key called `name`.
pub fn top_key(name: &str) -> Option<&'static Key> {
    TOP_KEYS.iter().find(|k| k.name == name)
}

/// The schema's reference tables, in Markdown (docs/reference.md).
pub fn reference() -> String {
    let mut out = String::from(
        "# Reference: sections and keys\n\n\
         Generated from the engines' schemas (`src/engines/*/schema.rs`) by\n\
         `ARBITER_BLESS=1 cargo test --test suite schema::`; `tests/suite/schema.rs` fails when\n\
         this page, the schemas and what the lowerings read differ.\n\n",
    );
    out.push_str("## Every rule file\n\n");
    keys_table(&mut out, TOP_KEYS);
    section_table(&mut out, &EXAMPLE);
    for e in super::ENGINES {
        out.push_str(&format!("## `engine: {}`\n\n{}.\n\n", e.name, capitalise(e.summary)));
        for s in e.schema.sections {
            section_table(&mut out, s);
        }
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// The markers around an engine page's generated "State and decision
/// points" tables.
pub const STATE_BEGIN: &str =
    "<!-- state-and-decisions: generated from the schema by `ARBITER_BLESS=1 cargo test --test suite schema::` -->";
pub const STATE_END: &str = "<!-- end of state-and-decisions -->";

/// An engine's state and decision points, in Markdown (the generated part
/// of its page's "State and decision points" section).
pub fn state_tables(schema: &Schema) -> String {
    let mut out = format!("{STATE_BEGIN}\n\n");
    if schema.state.is_empty() {
        out.push_str("The engine publishes no state to expressions: its rules are data (tables, patterns, lists).\n\n");
    } else {
        out.push_str("| name | type | meaning | example |\n| --- | --- | --- | --- |\n");
        for v in schema.state {
            out.push_str(&format!("| `{}` | {} | {} | `{}` |\n", v.name, cell(v.what), cell(v.doc), cell(v.example)));
        }
        out.push('\n');
    }
    let decisions: Vec<_> = schema.decisions().collect();
    if decisions.is_empty() {
        out.push_str("No key takes an expression over the state.\n\n");
    } else {
        out.push_str("| decision point | evaluated | reads | example |\n| --- | --- | --- | --- |\n");
        for (s, k) in decisions {
            let d = k.decides.expect("a decision");
            let reads = if d.unavailable.is_empty() {
                "all of the state".to_string()
            } else {
                let not: Vec<String> = d.unavailable.iter().map(|(n, _)| format!("`{n}`")).collect();
                format!("all but {}", not.join(", "))
            };
            out.push_str(&format!(
                "| `{} {{ {}: }}` | {} | {reads} | `{}` |\n",
                s.head(),
                k.name,
                cell(d.when),
                cell(d.example)
            ));
        }
        out.push('\n');
    }
    out.push_str(STATE_END);
    out
}

/// Text for a table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

fn section_table(out: &mut String, s: &SectionSchema) {
    let mut how = Vec::new();
    if s.required {
        how.push("required");
    }
    if s.repeated {
        how.push("any number, each with its own name");
    }
    let how = if how.is_empty() { String::new() } else { format!(" ({})", how.join("; ")) };
    out.push_str(&format!("### `{}`\n\n{}{how}.\n\n", s.head(), capitalise(s.doc)));
    keys_table(out, s.keys);
}

fn keys_table(out: &mut String, keys: &[Key]) {
    if keys.is_empty() {
        return;
    }
    out.push_str("| key | value | default | meaning |\n| --- | --- | --- | --- |\n");
    for k in keys {
        let default = match (k.required, k.default) {
            (true, _) => "required".to_string(),
            (false, Some(d)) => format!("`{d}`"),
            (false, None) => String::new(),
        };
        let mut meaning = k.doc.to_string();
        if !k.words.is_empty() {
            let words: Vec<String> = k.words.iter().map(|(w, d)| format!("`{w}`: {d}")).collect();
            meaning.push_str(&format!(" ({})", words.join("; ")));
        }
        out.push_str(&format!(
            "| `{}` | {} | {default} | {} |\n",
            k.name,
            k.ty.replace('|', "\\|"),
            meaning.replace('|', "\\|")
        ));
    }
    out.push('\n');
}
