//! The TextMate grammar of editors/vscode against every bundled rule file.
//!
//! A small TextMate tokenizer (the rules editors apply: per line, the
//! leftmost match among the active patterns wins, the first pattern on a
//! tie, a begin/end rule's end before its inner patterns; `include`s from
//! the repository; captures) runs the grammar's regular expressions
//! (fancy-regex: they use look-ahead). The parser is the oracle: every key,
//! section kind, label, number, call, string and comment the parser and
//! scanner find must carry its scope, and no character may be left with
//! none.

use std::collections::HashMap;
use std::path::Path;

use fancy_regex::Regex;
use serde_json::Value;

use arbiter::lsp::scan::{tokens, Tok};
use arbiter::syntax::{Expr, ExprKind, Item};

/// A compiled grammar rule.
enum Rule {
    Match {
        re: Regex,
        captures: Vec<(usize, String)>,
    },
    Region {
        begin: Regex,
        end: String,
        name: Option<String>,
        begin_caps: Vec<(usize, String)>,
        end_caps: Vec<(usize, String)>,
        patterns: Vec<usize>,
    },
    Include(Vec<usize>),
}

/// The best match so far: its start, its rank (the end rule first, then
/// the patterns in order), the rule (`None` for the end) and its groups.
type Best = (usize, usize, Option<usize>, Vec<Option<(usize, usize)>>);

struct Grammar {
    rules: Vec<Rule>,
    root: Vec<usize>,
    scope: String,
}

fn captures(v: &Value) -> Vec<(usize, String)> {
    v.as_object()
        .map(|o| o.iter().map(|(k, c)| (k.parse().unwrap(), c["name"].as_str().unwrap().to_string())).collect())
        .unwrap_or_default()
}

impl Grammar {
    fn load(path: &Path) -> Grammar {
        let json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut g = Grammar { rules: Vec::new(), root: Vec::new(), scope: json["scopeName"].as_str().unwrap().into() };
        let mut names: HashMap<String, usize> = HashMap::new();
        // Repository entries first, so that includes resolve.
        let repo = json["repository"].as_object().unwrap();
        for (k, _) in repo {
            names.insert(k.clone(), g.rules.len());
            g.rules.push(Rule::Include(Vec::new()));
        }
        for (k, v) in repo {
            let r = g.compile(v, &names);
            g.rules[names[k]] = r;
        }
        g.root = json["patterns"].as_array().unwrap().iter().map(|p| g.add(p, &names)).collect();
        g
    }

    fn add(&mut self, v: &Value, names: &HashMap<String, usize>) -> usize {
        let r = self.compile(v, names);
        self.rules.push(r);
        self.rules.len() - 1
    }

    fn compile(&mut self, v: &Value, names: &HashMap<String, usize>) -> Rule {
        let name = v["name"].as_str().map(String::from);
        if let Some(inc) = v["include"].as_str() {
            return Rule::Include(vec![names[inc.strip_prefix('#').unwrap()]]);
        }
        if let Some(m) = v["match"].as_str() {
            let mut caps = captures(&v["captures"]);
            if let Some(n) = &name {
                caps.insert(0, (0, n.clone()));
            }
            return Rule::Match { re: Regex::new(m).unwrap_or_else(|e| panic!("{m}: {e}")), captures: caps };
        }
        let patterns: Vec<usize> =
            v["patterns"].as_array().map(|ps| ps.iter().map(|p| self.add(p, names)).collect()).unwrap_or_default();
        match v["begin"].as_str() {
            Some(b) => Rule::Region {
                begin: Regex::new(b).unwrap_or_else(|e| panic!("{b}: {e}")),
                end: v["end"].as_str().unwrap().to_string(),
                name,
                begin_caps: captures(&v["beginCaptures"]),
                end_caps: captures(&v["endCaptures"]),
                patterns,
            },
            None => {
                assert!(name.is_none() || !patterns.is_empty(), "a rule with only a name");
                Rule::Include(patterns)
            }
        }
    }

    /// The match rules and regions reachable from `ids` through includes.
    fn flatten(&self, ids: &[usize], out: &mut Vec<usize>) {
        for &i in ids {
            match &self.rules[i] {
                Rule::Include(inner) => self.flatten(inner, out),
                _ => out.push(i),
            }
        }
    }

    /// The scopes of every byte of `text` (outermost first, the grammar's
    /// own scope left out).
    fn tokenize(&self, text: &str) -> Vec<Vec<String>> {
        let mut scopes = vec![Vec::new(); text.len()];
        // Open regions: (rule, end regex, scopes of the region).
        let mut stack: Vec<(usize, Regex)> = Vec::new();
        let mut line_start = 0;
        for line in text.split('\n') {
            let mut pos = 0;
            while pos <= line.len() {
                let mut candidates = Vec::new();
                let active: &[usize] = match stack.last() {
                    Some((r, _)) => match &self.rules[*r] {
                        Rule::Region { patterns, .. } => patterns,
                        _ => unreachable!(),
                    },
                    None => &self.root,
                };
                self.flatten(active, &mut candidates);
                // (start, order, rule or None for the end, captures)
                let mut best: Option<Best> = None;
                let mut consider =
                    |start: usize, order: usize, rule: Option<usize>, caps: Vec<Option<(usize, usize)>>| {
                        if best.as_ref().is_none_or(|b| (start, order) < (b.0, b.1)) {
                            best = Some((start, order, rule, caps));
                        }
                    };
                let groups = |c: fancy_regex::Captures| {
                    (0..c.len()).map(|i| c.get(i).map(|m| (m.start(), m.end()))).collect::<Vec<_>>()
                };
                if let Some((_, end)) = stack.last() {
                    if let Some(c) = end.captures_from_pos(line, pos).unwrap() {
                        let g = groups(c);
                        consider(g[0].unwrap().0, 0, None, g);
                    }
                }
                for (order, &r) in candidates.iter().enumerate() {
                    let re = match &self.rules[r] {
                        Rule::Match { re, .. } => re,
                        Rule::Region { begin, .. } => begin,
                        Rule::Include(_) => unreachable!(),
                    };
                    if let Some(c) = re.captures_from_pos(line, pos).unwrap() {
                        let g = groups(c);
                        consider(g[0].unwrap().0, order + 1, Some(r), g);
                    }
                }
                let region_scopes: Vec<String> = stack
                    .iter()
                    .filter_map(|(r, _)| match &self.rules[*r] {
                        Rule::Region { name, .. } => name.clone(),
                        _ => None,
                    })
                    .collect();
                let Some((start, _, rule, caps)) = best else {
                    for b in pos..line.len() {
                        scopes[line_start + b] = region_scopes.clone();
                    }
                    break;
                };
                for b in pos..start {
                    scopes[line_start + b] = region_scopes.clone();
                }
                let end = caps[0].unwrap().1;
                let paint = |scopes: &mut Vec<Vec<String>>, base: &[String], caps_names: &[(usize, String)]| {
                    for b in start..end {
                        scopes[line_start + b] = base.to_vec();
                    }
                    for (i, n) in caps_names {
                        if let Some(Some((s, e))) = caps.get(*i) {
                            for b in *s..*e {
                                scopes[line_start + b].push(n.clone());
                            }
                        }
                    }
                };
                match rule {
                    None => {
                        let (r, _) = stack.pop().unwrap();
                        let Rule::Region { end_caps, .. } = &self.rules[r] else { unreachable!() };
                        paint(&mut scopes, &region_scopes, end_caps);
                    }
                    Some(r) => match &self.rules[r] {
                        Rule::Match { captures, .. } => paint(&mut scopes, &region_scopes, captures),
                        Rule::Region { end, name, begin_caps, .. } => {
                            let mut inner = region_scopes.clone();
                            inner.extend(name.clone());
                            paint(&mut scopes, &inner, begin_caps);
                            stack.push((r, Regex::new(end).unwrap()));
                        }
                        Rule::Include(_) => unreachable!(),
                    },
                }
                // No progress on an empty match: step one character.
                pos = if end > pos { end } else { pos + line[pos..].chars().next().map_or(1, char::len_utf8) };
                if pos > line.len() {
                    break;
                }
            }
            line_start += line.len() + 1;
        }
        scopes
    }
}

fn has(scopes: &[Vec<String>], start: usize, end: usize, want: &str) -> Result<(), String> {
    for (b, s) in scopes.iter().enumerate().take(end).skip(start) {
        // Line ends belong to no line.
        if s.is_empty() && LINE_ENDS.with(|l| l.borrow().contains(&b)) {
            continue;
        }
        if !s.iter().any(|x| x.starts_with(want)) {
            return Err(format!("byte {b} has {s:?}, not `{want}`"));
        }
    }
    Ok(())
}

thread_local! {
    /// The offsets of the `\n`s of the text being checked.
    static LINE_ENDS: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn walk_expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Call(_, args) | ExprKind::List(args) => args.iter().for_each(|a| walk_expr(a, f)),
        ExprKind::Range(a, b) | ExprKind::Binary(_, a, b) => {
            walk_expr(a, f);
            walk_expr(b, f);
        }
        ExprKind::Unary(_, a) | ExprKind::Field(a, _) => walk_expr(a, f),
        _ => {}
    }
}

fn walk(items: &[Item], f: &mut dyn FnMut(&Item)) {
    for i in items {
        f(i);
        if let Item::Section(s) = i {
            walk(&s.items, f);
        }
    }
}

#[test]
fn the_grammar_scopes_every_bundled_rule_file_as_the_parser_reads_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let g = Grammar::load(&root.join("editors/vscode/syntaxes/arbiter.tmLanguage.json"));
    assert_eq!(g.scope, "source.arbiter");
    let mut names = arbiter::load::bundled_names();
    names.sort();
    assert!(names.len() >= 18);
    for name in names {
        let path = root.join(format!("rules/{name}.rules"));
        let text = std::fs::read_to_string(&path).unwrap();
        let scopes = g.tokenize(&text);
        LINE_ENDS.with(|l| *l.borrow_mut() = text.match_indices('\n').map(|(i, _)| i).collect());
        let fail = |what: String| panic!("{}: {what}", path.display());
        for (b, c) in text.bytes().enumerate() {
            if !c.is_ascii_whitespace() && scopes[b].is_empty() {
                let (line, col) =
                    (text[..b].matches('\n').count() + 1, b - text[..b].rfind('\n').map_or(0, |n| n + 1) + 1);
                fail(format!("{line}:{col} `{}` has no scope", &text[b..].chars().next().unwrap()));
            }
        }
        for t in tokens(&text) {
            let want = match t.tok {
                Tok::Comment => "comment.line",
                Tok::Str => "string.quoted",
                _ => continue,
            };
            has(&scopes, t.start, t.end, want).unwrap_or_else(|e| fail(format!("{:?} at {}: {e}", t.tok, t.start)));
        }
        let items = arbiter::syntax::parse(0, &text).unwrap();
        let check = |start: u32, end: u32, want: &str| {
            has(&scopes, start as usize, end as usize, want)
                .unwrap_or_else(|e| fail(format!("`{}`: {e}", &text[start as usize..end as usize])))
        };
        walk(&items, &mut |i| match i {
            Item::Property(p) => {
                check(p.key.span.start, p.key.span.end, "support.type.property-name");
                for v in &p.values {
                    walk_expr(v, &mut |e| match &e.kind {
                        ExprKind::Int(_) => check(e.span.start, e.span.end, "constant.numeric"),
                        ExprKind::Call(f, _) => check(f.span.start, f.span.end, "support.function"),
                        ExprKind::Word(w) if w == "yes" || w == "no" => {
                            check(e.span.start, e.span.end, "constant.language")
                        }
                        ExprKind::Word(_) => check(e.span.start, e.span.end, "variable.other.name"),
                        _ => {}
                    });
                }
            }
            Item::Section(s) => {
                check(s.kind.span.start, s.kind.span.end, "entity.name.type.section");
                for l in &s.labels {
                    check(l.span.start, l.span.end, "meta.section.head");
                }
            }
        });
    }
}

#[test]
fn templates_show_their_placeholders() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let g = Grammar::load(&root.join("editors/vscode/syntaxes/arbiter.tmLanguage.json"));
    let text = "output { played: \"{deck:>3}:{piles:>3|} {{x}}\" }\n";
    let s = g.tokenize(text);
    let at = |needle: &str| text.find(needle).unwrap();
    has(&s, at("{deck"), at(":{piles"), "constant.other.placeholder").unwrap();
    has(&s, at("{piles"), at(" {{"), "constant.other.placeholder").unwrap();
    has(&s, at("{{x"), at("{{x") + 2, "constant.character.escape").unwrap();
    assert!(!s[at("x}}")].iter().any(|x| x.starts_with("constant")));
}

#[test]
fn the_extension_declares_the_grammar_and_the_server() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("editors/vscode");
    let pkg: Value = serde_json::from_str(&std::fs::read_to_string(root.join("package.json")).unwrap()).unwrap();
    let grammar = &pkg["contributes"]["grammars"][0];
    assert_eq!(grammar["scopeName"], "source.arbiter");
    assert!(root.join(grammar["path"].as_str().unwrap()).is_file());
    assert_eq!(pkg["contributes"]["languages"][0]["extensions"][0], ".rules");
    let conf = pkg["contributes"]["languages"][0]["configuration"].as_str().unwrap();
    let _: Value = serde_json::from_str(&std::fs::read_to_string(root.join(conf)).unwrap()).unwrap();
    let main = std::fs::read_to_string(root.join(pkg["main"].as_str().unwrap())).unwrap();
    assert!(main.contains("args: [\"lsp\"]"), "the extension starts `arbiter lsp`");
}

/// The setups shown in docs/editors.md are the files shipped in editors/.
#[test]
fn the_editor_setups_in_the_docs_are_the_shipped_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/editors.md")).unwrap();
    for file in [
        "editors/neovim/arbiter.lua",
        "editors/neovim/arbiter-0.7.lua",
        "editors/helix/languages.toml",
        "editors/zed/extension.toml",
        "editors/zed/languages/arbiter/config.toml",
    ] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        assert!(doc.contains(&text), "docs/editors.md does not show {file} as shipped");
    }
}
