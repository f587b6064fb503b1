//! make's own language, evaluated as far as gate's reading of a makefile needs it (review
//! 85): a makefile's variables (`NAME = v`, `:=`, `::=`, `?=`, `+=`, `!=`, `override`,
//! `export`, `define … endef`, conditionals, the `make` line's own `NAME=v`) are expanded the
//! way make expands them, to a bound, so a recipe is read as make hands it to the shell:
//! `py$(E)test`, `$(RUN) && pytest` with `RUN` holding `cd out`, `export PYTEST_$(A)OPTS =
//! out`, `.ONE$(E)SHELL:` (review 83's leftovers) are read as `pytest`, `cd out && pytest`,
//! `PYTEST_ADDOPTS`, `.ONESHELL`.
//!
//! What gate does not evaluate (make's functions, `$(shell …)`, a variable the makefile does
//! not set, which make takes from its environment) is *computed*: kept in the text as
//! written and marked. [`evaluate`] refuses a computed part where it could change what the
//! recipes run or where they run it (a command word, a line that runs pytest, `cd` or make, a
//! variable's or a special target's name), and an `include` (a makefile gate does not read
//! here); elsewhere (`rm -rf $(wildcard build/*)`) it is left as text.
//!
//! What make reads in a way gate does not model is refused, not guessed (review 87): text
//! with blanks other than spaces and tabs, `vpath`/`VPATH`, `load`, `$(eval …)`, `$(file
//! …)`, `MAKEFLAGS` beyond plain options, `MAKEOVERRIDES`, `.EXTRA_PREREQS`, the variables
//! make's built-in rules run, a `.SHELLFLAGS` beyond `-c` and the shell's error options.
//!
//! The result is the makefile rewritten plainly ([`Reading::text`]): the variables the
//! reading in `reach.rs` asks about as `NAME = value` lines, each rule line expanded,
//! and each recipe line, of a rule the goals reach, expanded, a line of its own after a tab.

use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Most values one text may expand to: a variable set in a conditional gate cannot decide
/// has each value it may have, and a text that names several has their combinations; past
/// this the text is computed.
const VARIANTS: usize = 8;
/// Deepest nesting of references (`A = $(B)`, `B = $(C)`, …; `A = $(A)` never ends).
const DEPTH: usize = 24;
/// Longest expansion, in bytes (`A1 = $(A0)$(A0)`, thirty times, is 2^30 bytes).
const SIZE: usize = 1 << 14;
/// Most references one makefile's reading expands: the work an adversarial makefile may ask.
const STEPS: usize = 100_000;
/// Largest makefile read, in bytes.
pub(super) const MAX_TEXT: usize = 1 << 20;
/// Deepest nesting of conditionals.
const MAX_IFS: usize = 64;

/// A makefile's text, read as far as [`evaluate`] reads (one byte past its bound, so that a
/// larger file is refused as too large): a file of gigabytes, or one of `/proc`'s that never
/// ends, costs no more than a makefile gate reads. `None` when it is not a regular file (a
/// FIFO would hold the load up) or cannot be read.
pub(super) fn read_text(path: &Path) -> Option<String> {
    use std::io::Read;
    if !path.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_TEXT as u64 + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// make's functions (`$(shell …)`, `$(wildcard …)`): gate evaluates none of them.
const FUNCTIONS: [&str; 37] = [
    "subst",
    "patsubst",
    "strip",
    "findstring",
    "filter",
    "filter-out",
    "sort",
    "word",
    "words",
    "wordlist",
    "firstword",
    "lastword",
    "dir",
    "notdir",
    "suffix",
    "basename",
    "addsuffix",
    "addprefix",
    "join",
    "wildcard",
    "realpath",
    "abspath",
    "error",
    "warning",
    "info",
    "shell",
    "origin",
    "flavor",
    "foreach",
    "if",
    "or",
    "and",
    "call",
    "eval",
    "file",
    "value",
    "let",
];

/// make's automatic variables: what they hold (the target's name, its prerequisites) is
/// make's, not the environment's, and is left as written.
const AUTOMATIC: [&str; 9] = ["@", "<", "^", "+", "*", "?", "|", "%", "$"];

/// Programs that run their arguments as a command (`sh -c`, `env`, `python -m`): a computed
/// argument of one is as good as a computed command word.
const WRAPPERS: [&str; 26] = [
    "sh", "bash", "dash", "zsh", "ksh", "env", "exec", "eval", "command", "builtin", "nice",
    "nohup", "time", "timeout", "xargs", "sudo", "stdbuf", "setsid", "source", ".", "uv", "poetry",
    "pipenv", "pdm", "hatch", "tox",
];

/// One expansion: its text, and the byte spans in it of references make computes (a
/// function, a variable the makefile does not set), kept as written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Text {
    /// The expanded text.
    pub text: String,
    /// Where in `text` the computed references lie, as written.
    pub computed: Vec<(usize, usize)>,
}

impl Text {
    /// `s`, with nothing computed.
    pub(super) fn literal(s: &str) -> Text {
        Text {
            text: s.to_string(),
            computed: Vec::new(),
        }
    }

    fn unknown(s: &str) -> Text {
        Text {
            text: s.to_string(),
            computed: vec![(0, s.len())],
        }
    }

    fn push(&mut self, other: &Text) {
        let at = self.text.len();
        self.text.push_str(&other.text);
        self.computed
            .extend(other.computed.iter().map(|(a, b)| (a + at, b + at)));
    }

    /// The first computed reference, as written.
    fn first_computed(&self) -> Option<&str> {
        self.computed.first().map(|(a, b)| &self.text[*a..*b])
    }
}

/// A variable's value: as written (`=`, expanded where it is used) or as expanded when
/// it was set (`:=`).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Value {
    Recursive(String),
    Simple(Text),
}

/// Each value a variable may have here (several where a conditional gate cannot decide set
/// it).
type Vars = HashMap<String, Vec<Value>>;

/// A rule: its targets, its prerequisites, its recipe lines as written.
#[derive(Default)]
struct Rule {
    targets: Vec<String>,
    prereqs: Vec<String>,
    recipe: Vec<String>,
}

/// A target's own variable (`test: export X = 1`): its targets, name, operator, value as
/// written, and whether it is `override`.
type TargetVar = (Vec<String>, String, &'static str, String, bool);

/// A variable the `make` line, or a make above this one, hands on: its name, its value,
/// and whether it came on a `make` line (which a makefile's plain assignment does not
/// change).
pub(super) type Inherited = (String, Text, bool);

/// A makefile as gate reads it.
pub(super) struct Reading {
    /// The makefile rewritten plainly: the variables `reach.rs` reads (`SHELL`,
    /// `BASH_ENV`, the runners' and `CDPATH`) as `NAME = value`, each rule line expanded
    /// (`.ONESHELL:`), each recipe line of a rule the goals reach expanded after a tab.
    pub text: String,
    /// What a make this makefile's recipes run inherits: its exported variables and the
    /// `make` line's.
    pub handed_on: Vec<Inherited>,
    /// Each value the makefile gives a variable that chooses code (`PATH`, `HOME`,
    /// `PYTHONPATH`: [`super::words::loads_code`]), exported or not: make exports a
    /// variable that came from its environment whatever the makefile says (review 88, 09,
    /// 10), and `?=` may set it where the environment lacks it.
    pub code_vars: Vec<Inherited>,
    /// Why a recipe line the goals reach runs what make computes, where it matters
    /// ([`computed_where_it_matters`]): the line is in [`Reading::text`] as make leaves it,
    /// for the reading there to name first what it finds.
    pub computed: Option<String>,
}

/// One conditional (`ifeq … else … endif`) being read.
struct Frame {
    /// A conditional around this one skips it.
    parent_skip: bool,
    /// This branch: read for certain (`Some(true)`), skipped (`Some(false)`), or maybe
    /// (`None`: a condition gate cannot decide).
    branch: Option<bool>,
    /// A branch before this one was read for certain.
    taken: bool,
    /// The variables before the conditional, and those after each branch that may run.
    before: Option<Vars>,
    results: Vec<Vars>,
    /// A branch runs whatever the conditions (one read for certain, or a plain `else`).
    covered: bool,
}

/// The reader's state over one makefile.
struct Reader {
    vars: Vars,
    /// Variables the `make` line set: a makefile's plain assignment leaves them.
    locked: HashSet<String>,
    exported: HashSet<String>,
    export_all: bool,
    /// The work done, shared by the readers of one makefile's rules.
    steps: Rc<Cell<usize>>,
}

impl Reader {
    /// Whether the reading has spent its bound of work.
    fn spent(&self) -> bool {
        self.charge(1)
    }

    /// This reader with a rule's own variables (`test: X = 1`, each of `target_vars`) set:
    /// for certain where the rule is one of their targets, else as one more value they may
    /// have (the rule may run as a prerequisite of theirs, which it then inherits).
    fn for_rule(&self, target_vars: &[TargetVar], targets: Option<&[String]>) -> Reader {
        let mut r = Reader {
            vars: self.vars.clone(),
            locked: self.locked.clone(),
            exported: self.exported.clone(),
            export_all: self.export_all,
            steps: Rc::clone(&self.steps),
        };
        r.charge(self.vars.len());
        for (of, name, op, raw, overrides) in target_vars {
            let certain = targets.is_some_and(|ts| of.iter().any(|t| ts.contains(t)));
            r.assign(name, op, raw, !certain, *overrides);
        }
        r
    }

    /// Counts `n` steps of work; whether the bound is spent.
    fn charge(&self, n: usize) -> bool {
        let n = self.steps.get().saturating_add(n);
        self.steps.set(n);
        n > STEPS
    }

    /// Every value `s` may expand to, as make expands it (`$$` a `$`); computed where gate
    /// cannot tell, and wholly so past the bounds.
    fn expand(&self, s: &str, depth: usize) -> Vec<Text> {
        let whole = || vec![Text::unknown(s)];
        if depth > DEPTH || self.spent() {
            return whole();
        }
        let b = s.as_bytes();
        let mut outs = vec![Text::default()];
        let add = |outs: &mut Vec<Text>, piece: &[Text]| -> bool {
            if piece.len() == 1 {
                outs.iter_mut().for_each(|o| o.push(&piece[0]));
            } else {
                let mut next = Vec::new();
                for o in outs.iter() {
                    for p in piece {
                        let mut x = o.clone();
                        x.push(p);
                        next.push(x);
                    }
                }
                next.dedup();
                *outs = next;
            }
            outs.len() <= VARIANTS && outs.iter().all(|o| o.text.len() <= SIZE)
        };
        let mut i = 0;
        let mut lit = 0;
        while i < b.len() {
            if b[i] != b'$' {
                i += 1;
                continue;
            }
            if !add(&mut outs, &[Text::literal(&s[lit..i])]) {
                return whole();
            }
            let piece = match b.get(i + 1) {
                // A `$` that ends the text is dropped, as make drops it.
                None => {
                    i += 1;
                    vec![Text::default()]
                }
                Some(b'$') => {
                    i += 2;
                    vec![Text::literal("$")]
                }
                Some(&open) if open == b'(' || open == b'{' => {
                    let close = if open == b'(' { b')' } else { b'}' };
                    match closing(b, i + 1, open, close) {
                        Some(end) => {
                            let piece = self.reference(&s[i + 2..end], &s[i..=end], depth);
                            i = end + 1;
                            piece
                        }
                        None => {
                            let piece = vec![Text::unknown(&s[i..])];
                            i = b.len();
                            piece
                        }
                    }
                }
                Some(_) => {
                    let len = s[i + 1..].chars().next().map_or(1, char::len_utf8);
                    let piece = self.reference(&s[i + 1..i + 1 + len], &s[i..i + 1 + len], depth);
                    i += 1 + len;
                    piece
                }
            };
            if !add(&mut outs, &piece) {
                return whole();
            }
            lit = i;
        }
        if !add(&mut outs, &[Text::literal(&s[lit.min(s.len())..])]) {
            return whole();
        }
        outs
    }

    /// What the reference `$(inner)` (written `written`) may expand to.
    fn reference(&self, inner: &str, written: &str, depth: usize) -> Vec<Text> {
        let whole = || vec![Text::unknown(written)];
        // `$(shell …)`, `$(foreach …)`: a function.
        let head = inner
            .split(|c: char| c.is_ascii_whitespace())
            .next()
            .unwrap_or("");
        if head.len() < inner.len() && FUNCTIONS.contains(&head) {
            return whole();
        }
        // `$(VAR:.c=.o)`: a substitution reference.
        let colon = top_level(inner, b':');
        if let Some(c) = colon
            && inner[c..].contains('=')
        {
            let (name, rule) = (&inner[..c], &inner[c + 1..]);
            let Some((from, to)) = rule.split_once('=') else {
                return whole();
            };
            let (Some(from), Some(to)) = (self.single(from, depth), self.single(to, depth)) else {
                return whole();
            };
            if from.contains('%') || to.contains('%') {
                return whole();
            }
            let mut outs = Vec::new();
            for n in self.expand(name, depth + 1) {
                if !n.computed.is_empty() {
                    return whole();
                }
                for v in self.lookup(n.text.trim(), written, depth) {
                    if !v.computed.is_empty() {
                        return whole();
                    }
                    let words: Vec<String> = v
                        .text
                        .split_whitespace()
                        // An empty `from` matches every word's end: `$(A:=/x)` appends
                        // (review 87, 07).
                        .map(|w| match w.strip_suffix(from.as_str()) {
                            Some(stem) => format!("{stem}{to}"),
                            None => w.to_string(),
                        })
                        .collect();
                    outs.push(Text::literal(&words.join(" ")));
                }
            }
            return if outs.is_empty() || outs.len() > VARIANTS {
                whole()
            } else {
                outs
            };
        }
        // `$($(X)_FLAGS)`: a name that is itself expanded.
        let mut outs = Vec::new();
        for n in self.expand(inner, depth + 1) {
            if !n.computed.is_empty() {
                return whole();
            }
            outs.extend(self.lookup(&n.text, written, depth));
        }
        outs.dedup();
        if outs.is_empty() || outs.len() > VARIANTS {
            whole()
        } else {
            outs
        }
    }

    /// The one value `s` expands to, if it is one and not computed.
    fn single(&self, s: &str, depth: usize) -> Option<String> {
        match self.expand(s, depth + 1).as_slice() {
            [one] if one.computed.is_empty() => Some(one.text.clone()),
            _ => None,
        }
    }

    /// The values of variable `name` (written `written`).
    fn lookup(&self, name: &str, written: &str, depth: usize) -> Vec<Text> {
        let Some(values) = self.vars.get(name) else {
            let automatic = AUTOMATIC.contains(&name)
                // (`$(@D)`; a name of one multibyte letter, `$é`, is not cut inside it.)
                || name
                    .split_at_checked(1)
                    .is_some_and(|(a, b)| AUTOMATIC.contains(&a) && matches!(b, "D" | "F"));
            return vec![if automatic {
                Text::literal(written)
            } else {
                Text::unknown(written)
            }];
        };
        let mut outs = Vec::new();
        for v in values {
            match v {
                Value::Recursive(raw) => outs.extend(self.expand(raw, depth + 1)),
                Value::Simple(t) => outs.push(t.clone()),
            }
            if outs.len() > VARIANTS {
                return vec![Text::unknown(written)];
            }
        }
        outs
    }

    /// Sets `name` by `op` to `raw`: for certain, or, `maybe`, as one more value it may have.
    fn assign(&mut self, name: &str, op: &str, raw: &str, maybe: bool, overrides: bool) {
        if self.locked.contains(name) && !overrides {
            return;
        }
        let had = self.vars.get(name).cloned();
        let new: Vec<Value> = match op {
            "?=" if had.is_some() => return,
            "=" | "?=" => vec![Value::Recursive(raw.to_string())],
            "!=" => vec![Value::Simple(Text::unknown(&format!("$(shell {raw})")))],
            "+=" => match &had {
                None => vec![Value::Recursive(raw.to_string())],
                Some(old) => {
                    let mut out = Vec::new();
                    for v in old {
                        match v {
                            Value::Recursive(r) => {
                                out.push(Value::Recursive(format!("{r} {raw}")));
                            }
                            Value::Simple(t) => {
                                for add in self.expand(raw, 0) {
                                    let mut x = t.clone();
                                    x.push(&Text::literal(" "));
                                    x.push(&add);
                                    out.push(Value::Simple(x));
                                }
                            }
                        }
                    }
                    out
                }
            },
            _ => self.expand(raw, 0).into_iter().map(Value::Simple).collect(),
        };
        let mut values = if maybe {
            let mut v = had.unwrap_or_else(|| vec![undefined(name)]);
            v.extend(new);
            v
        } else {
            new
        };
        values.dedup();
        if values.len() > VARIANTS {
            values = vec![undefined(name)];
        }
        self.vars.insert(name.to_string(), values);
    }
}

/// The value of a variable the makefile may leave unset, which make then takes from its
/// environment.
fn undefined(name: &str) -> Value {
    Value::Simple(Text::unknown(&format!("$({name})")))
}

/// Where the reference opened at `b[open_at]` closes: make counts only its own kind of
/// parenthesis.
fn closing(b: &[u8], open_at: usize, open: u8, close: u8) -> Option<usize> {
    let mut level = 0usize;
    for (k, &c) in b.iter().enumerate().skip(open_at) {
        if c == open {
            level += 1;
        } else if c == close {
            level = level.saturating_sub(1);
            if level == 0 {
                return Some(k);
            }
        }
    }
    None
}

/// The first `want` of `s` outside references (`$(…)`, `${…}`).
fn top_level(s: &str, want: u8) -> Option<usize> {
    let b = s.as_bytes();
    let mut k = 0;
    while k < b.len() {
        if b[k] == b'$' && matches!(b.get(k + 1), Some(b'(' | b'{')) {
            let open = b[k + 1];
            let close = if open == b'(' { b')' } else { b'}' };
            k = closing(b, k + 1, open, close)? + 1;
            continue;
        }
        if b[k] == b'$' {
            k += 2;
            continue;
        }
        if b[k] == want {
            return Some(k);
        }
        k += 1;
    }
    None
}

/// The assignment a make line (comment gone) is: its name part, operator and value, or
/// `None` (a rule, a directive). `a: X = 1` is a rule (with a target's variable).
fn assignment(l: &str) -> Option<(&str, &'static str, &str)> {
    let eq = top_level(l, b'=')?;
    let before = &l[..eq];
    let (op, cut) = if before.ends_with(":::") {
        (":=", 3)
    } else if before.ends_with("::") || before.ends_with(':') {
        (":=", if before.ends_with("::") { 2 } else { 1 })
    } else if before.ends_with('?') {
        ("?=", 1)
    } else if before.ends_with('+') {
        ("+=", 1)
    } else if before.ends_with('!') {
        ("!=", 1)
    } else {
        ("=", 0)
    };
    let name = &before[..before.len() - cut];
    if top_level(name, b':').is_some() || top_level(name, b';').is_some() {
        return None;
    }
    Some((name.trim(), op, l[eq + 1..].trim_start()))
}

/// A make line without its comment (`#` to the end, not `\#`).
fn uncommented(l: &str) -> &str {
    let b = l.as_bytes();
    (0..b.len())
        .find(|&k| b[k] == b'#' && (k == 0 || b[k - 1] != b'\\'))
        .map_or(l, |k| &l[..k])
}

/// The first word of `l` and the rest.
fn first_word(l: &str) -> (&str, &str) {
    let l = l.trim_start();
    match l.find([' ', '\t']) {
        Some(k) => (&l[..k], l[k..].trim_start()),
        None => (l, ""),
    }
}

/// The goals and the variables of a `make` line's words (its name first): options and
/// their values left out.
fn goals_and_vars(words: &[String]) -> (Vec<String>, Vec<(String, String)>) {
    let (mut goals, mut vars) = (Vec::new(), Vec::new());
    let mut k = 1;
    while let Some(w) = words.get(k) {
        k += 1;
        if let Some(long) = w.strip_prefix("--") {
            let valued = super::words::MAKE_VALUED_LONG;
            if !long.contains('=') && valued.contains(&long) {
                k += 1;
            }
            continue;
        }
        if let Some(flags) = w.strip_prefix('-') {
            if flags.ends_with(['f', 'C', 'o', 'W', 'I'])
                || (flags.ends_with(['j', 'l'])
                    && words
                        .get(k)
                        .is_some_and(|n| n.bytes().all(|c| c.is_ascii_digit() || c == b'.')))
            {
                k += 1;
            }
            continue;
        }
        match w.find('=') {
            Some(eq) => {
                let name = w[..eq].trim_end_matches([':', '+', '?', '!']);
                vars.push((name.to_string(), w[eq + 1..].to_string()));
            }
            None => goals.push(w.clone()),
        }
    }
    (goals, vars)
}

/// The condition of `ifeq`, `ifneq`, `ifdef` or `ifndef` (`kind`) with `args`: `None` where
/// gate cannot decide it.
fn condition(r: &Reader, kind: &str, args: &str) -> Option<bool> {
    match kind {
        "ifdef" | "ifndef" => {
            let name = r.single(args.trim(), 0)?;
            let values = r.vars.get(name.trim())?;
            let set: Vec<bool> = values
                .iter()
                .map(|v| match v {
                    Value::Recursive(raw) => Some(!raw.is_empty()),
                    Value::Simple(t) => t.computed.is_empty().then_some(!t.text.is_empty()),
                })
                .collect::<Option<Vec<bool>>>()?;
            let first = *set.first()?;
            set.iter()
                .all(|s| *s == first)
                .then_some(first == (kind == "ifdef"))
        }
        _ => {
            let a = args.trim();
            // Text after the condition (`ifeq (a,a) )`, `ifeq "a" "a" "b"`): make warns and
            // goes on with what it read first; gate takes both branches (review 88, 06, 07).
            let (x, y) = if let Some(open) = a.strip_prefix('(') {
                let end = by_parentheses(open, |c, level| c == b')' && level < 0)?;
                if !open[end + 1..].trim().is_empty() {
                    return None;
                }
                let inner = &open[..end];
                // As make splits it (review 87, 06, 31): at the first comma outside any
                // parentheses, plain ones too (`((x,y),(x,y))`); the first argument keeps
                // its leading blanks, the second its trailing ones.
                let comma = by_parentheses(inner, |c, level| c == b',' && level <= 0)?;
                (
                    inner[..comma].trim_end_matches([' ', '\t']),
                    inner[comma + 1..].trim_start_matches([' ', '\t']),
                )
            } else {
                let q = a.chars().next().filter(|q| matches!(q, '"' | '\''))?;
                let rest = &a[1..];
                let end = rest.find(q)?;
                let second = rest[end + 1..].trim();
                let q2 = second.chars().next()?;
                if !matches!(q2, '"' | '\'') || second[1..].find(q2) != Some(second.len() - 2) {
                    return None;
                }
                (
                    &rest[..end],
                    second
                        .get(1..second.len().saturating_sub(1))
                        .filter(|_| second.len() >= 2 && second.ends_with(q2))?,
                )
            };
            let equal = r.single(x, 0)? == r.single(y, 0)?;
            Some(equal == (kind == "ifeq"))
        }
    }
}

/// The first byte of `s` where `stop` holds, given each byte and the depth of plain
/// parentheses after it (make counts every `(` and `)` in a condition).
fn by_parentheses(s: &str, stop: impl Fn(u8, i64) -> bool) -> Option<usize> {
    let mut level = 0i64;
    s.bytes().position(|c| {
        match c {
            b'(' => level += 1,
            b')' => level -= 1,
            _ => {}
        }
        stop(c, level)
    })
}

/// Every value of each name across `results` (a name one of them leaves unset may be
/// unset).
fn merged(results: Vec<Vars>) -> Vars {
    let names: HashSet<String> = results.iter().flat_map(|v| v.keys().cloned()).collect();
    let mut out = Vars::new();
    for name in names {
        let mut values: Vec<Value> = Vec::new();
        for r in &results {
            for v in r
                .get(&name)
                .cloned()
                .unwrap_or_else(|| vec![undefined(&name)])
            {
                if !values.contains(&v) {
                    values.push(v);
                }
            }
        }
        if values.len() > VARIANTS {
            values = vec![undefined(&name)];
        }
        out.insert(name, values);
    }
    out
}

/// Whether `name`, a target's name, may be one of make's special targets (`.ONESHELL`) once
/// its computed parts are known: it has no `/` or `%` of its own.
fn may_be_special(t: &Text) -> bool {
    let mut own = String::new();
    let mut k = 0;
    for (a, b) in &t.computed {
        own.push_str(&t.text[k..*a]);
        k = *b;
    }
    own.push_str(&t.text[k.min(t.text.len())..]);
    !own.contains(['/', '%']) && (own.is_empty() || own.starts_with('.') || t.computed[0].0 == 0)
}

/// The computed reference of an expanded recipe line `t` where it could change what the
/// line runs or where: anywhere on a line that names pytest, `cd`, `pushd` or make; in a
/// command word (`py$(E)test`, `$(RUNNER) tests`); in an argument of a program that runs
/// its arguments (`sh $(X)`, `env $(X)`).
pub(super) fn computed_where_it_matters(t: &Text) -> Option<String> {
    let first = t.first_computed()?.to_string();
    let s = t.text.as_str();
    let joined: String = s
        .chars()
        .filter(|c| !matches!(c, '"' | '\'' | '+') && !c.is_whitespace())
        .collect();
    if joined.contains("pytest")
        || ["cd", "pushd", "popd", "make", "gmake", "MAKE", "chdir"]
            .iter()
            .any(|w| super::words::mentions_word(s, w))
    {
        return Some(first);
    }
    // The spans lie in order and apart: found by halving, not by a walk over them all for
    // each byte (review 87, 40: 5,400 spans on each of 250 lines took 46 s).
    let spans = &t.computed;
    let overlaps = |a: usize, b: usize| {
        let i = spans.partition_point(|(_, y)| *y <= a);
        spans.get(i).is_some_and(|(x, _)| *x < b)
    };
    let b = s.as_bytes();
    let (mut command, mut wrapper) = (true, false);
    let mut k = 0;
    while k < b.len() {
        let c = b[k];
        if c.is_ascii_whitespace() && c != b'\n' {
            k += 1;
            continue;
        }
        let span_end = |k: usize| {
            spans
                .binary_search_by_key(&k, |(x, _)| *x)
                .ok()
                .map(|i| spans[i].1)
        };
        if span_end(k).is_none()
            && matches!(
                c,
                b';' | b'&' | b'|' | b'(' | b')' | b'{' | b'}' | b'`' | b'\n'
            )
        {
            (command, wrapper) = (true, false);
            k += 1;
            continue;
        }
        // A word; a computed reference is one piece of it (`$(wildcard a b)`).
        let start = k;
        while k < b.len() {
            if let Some(end) = span_end(k) {
                k = end;
                continue;
            }
            if b[k].is_ascii_whitespace()
                || matches!(b[k], b';' | b'&' | b'|' | b'(' | b')' | b'{' | b'}' | b'`')
            {
                break;
            }
            k += 1;
        }
        let word = &s[start..k];
        let hit = overlaps(start, k);
        if command {
            let assigns = word
                .split_once('=')
                .is_some_and(|(n, _)| super::words::is_name(n));
            let keyword = matches!(
                word,
                "if" | "then" | "else" | "elif" | "do" | "while" | "until" | "!" | "@" | "-"
            ) || word.trim_start_matches(['@', '-', '+']).is_empty();
            if hit && !assigns {
                return Some(first);
            }
            if assigns || keyword {
                continue;
            }
            command = false;
            let name = word.trim_start_matches(['@', '-', '+']);
            let name = name.rsplit('/').next().unwrap_or(name);
            wrapper = WRAPPERS.contains(&name) || name.starts_with("python");
        } else if wrapper && hit {
            return Some(first);
        }
    }
    None
}

/// Reads makefile `text`, run as `make` with `words` (its name first) in folder `dir`, with
/// the variables a make above hands on (`inherited`): the makefile rewritten plainly, or why
/// gate cannot read it (one phrase: "whose makefile …", "whose recipe …"). `chooses_code`
/// names the variables whose values [`Reading::code_vars`] collects (review 90, 41 and 42:
/// every variable the `check:` line's own environment is read for, `TAR_OPTIONS` and
/// `RUSTC_WRAPPER` among them).
pub(super) fn evaluate(
    text: &str,
    words: &[String],
    dir: &Path,
    inherited: &[Inherited],
    chooses_code: &dyn Fn(&str) -> bool,
) -> Result<Reading, String> {
    if text.len() > MAX_TEXT {
        return Err(format!(
            "whose makefile is larger than gate reads (past {MAX_TEXT} bytes); keep the \
             makefile the check runs small"
        ));
    }
    let text = &plain_text(text)?;
    if let Some(what) = runs_while_read(text) {
        return Err(format!(
            "whose makefile calls `{what}`, which make runs as it reads the makefile (text \
             gate does not read); write the rules and variables plainly"
        ));
    }
    let mut r = Reader {
        vars: Vars::new(),
        locked: HashSet::new(),
        exported: HashSet::new(),
        export_all: false,
        steps: Rc::new(Cell::new(0)),
    };
    // make's own defaults for the names recipes use most.
    for (name, value) in [
        // make never takes `SHELL` from its environment: `/bin/sh` unless the makefile says.
        ("SHELL", "/bin/sh"),
        ("MAKE", "make"),
        ("RM", "rm -f"),
        ("CC", "cc"),
        ("CXX", "g++"),
        ("AR", "ar"),
    ] {
        r.vars
            .insert(name.into(), vec![Value::Simple(Text::literal(value))]);
    }
    r.vars.insert(
        "CURDIR".into(),
        vec![Value::Simple(Text::literal(&dir.display().to_string()))],
    );
    let mut handed: Vec<Inherited> = Vec::new();
    for (name, value, line) in inherited {
        let values = r.vars.entry(name.clone()).or_default();
        if !values.contains(&Value::Simple(value.clone())) {
            values.push(Value::Simple(value.clone()));
        }
        r.exported.insert(name.clone());
        if *line {
            r.locked.insert(name.clone());
        }
    }
    let (goals, line_vars) = goals_and_vars(words);
    for (name, value) in &line_vars {
        r.vars
            .insert(name.clone(), vec![Value::Recursive(value.clone())]);
        r.locked.insert(name.clone());
    }
    let mut rules: Vec<Rule> = Vec::new();
    let mut target_vars: Vec<TargetVar> = Vec::new();
    let mut code_vars: Vec<Inherited> = Vec::new();
    let code = |r: &Reader, out: &mut Vec<Inherited>, name: &str, value: &str| {
        if chooses_code(name) {
            out.extend(
                r.expand(value, 0)
                    .into_iter()
                    .map(|t| (name.to_string(), t, false)),
            );
        }
    };
    // What starts a recipe line (`.RECIPEPREFIX`).
    let mut prefix = '\t';
    let mut in_rule = false;
    let mut unsure = false;
    let mut frames: Vec<Frame> = Vec::new();
    let lines: Vec<&str> = text.split('\n').collect();
    let mut k = 0;
    while k < lines.len() {
        let skipping = frames
            .iter()
            .any(|f| f.parent_skip || f.branch == Some(false));
        let raw = lines[k];
        k += 1;
        // A recipe line: joined with the lines it continues onto (the shell drops `\⏎`,
        // make the tab after it).
        if in_rule && let Some(first) = raw.strip_prefix(prefix) {
            let mut line = first.to_string();
            while continues(&line) && k < lines.len() {
                line.pop();
                let next = lines[k];
                line.push_str(next.strip_prefix(prefix).unwrap_or(next));
                k += 1;
            }
            if !skipping && let Some(rule) = rules.last_mut() {
                rule.recipe.push(line);
            }
            continue;
        }
        let mut line = raw.to_string();
        while continues(&line) && k < lines.len() {
            line.pop();
            line = format!("{} {}", line.trim_end(), lines[k].trim_start());
            k += 1;
        }
        let un = uncommented(&line);
        let l = un.trim();
        // A value keeps its trailing blanks, before a comment too (`A = a # c` is `a `):
        // the value `v`, a part of `l`, as make has it (review 87).
        let kept = |v: &str| -> String {
            // (A value of blanks only is empty: make strips a value's leading blanks.)
            if v.is_empty() {
                return String::new();
            }
            let at = (v.as_ptr() as usize).saturating_sub(un.as_ptr() as usize);
            un.get(at..).unwrap_or(v).to_string()
        };
        if l.is_empty() {
            continue;
        }
        let (head, args) = first_word(l);
        // Conditionals copy the variables: that work is counted too.
        if matches!(
            head,
            "ifeq" | "ifneq" | "ifdef" | "ifndef" | "else" | "endif"
        ) && r.charge(r.vars.len())
        {
            return Err(spent());
        }
        // Conditionals, read even where skipped (they nest).
        if matches!(head, "ifeq" | "ifneq" | "ifdef" | "ifndef") {
            if frames.len() >= MAX_IFS {
                return Err(format!(
                    "whose makefile nests conditionals more than {MAX_IFS} deep, which gate \
                     does not read; keep the makefile the check runs plain"
                ));
            }
            let branch = if skipping {
                Some(false)
            } else {
                condition(&r, head, args)
            };
            frames.push(Frame {
                parent_skip: skipping,
                branch,
                taken: branch == Some(true),
                before: (!skipping).then(|| r.vars.clone()),
                results: Vec::new(),
                covered: branch == Some(true),
            });
            continue;
        }
        if head == "else" {
            if let Some(f) = frames.last_mut()
                && !f.parent_skip
            {
                if f.branch != Some(false) {
                    f.results.push(r.vars.clone());
                }
                if let Some(before) = &f.before {
                    r.vars = before.clone();
                }
                let (kind, rest) = first_word(args);
                f.branch = if f.taken {
                    Some(false)
                } else if matches!(kind, "ifeq" | "ifneq" | "ifdef" | "ifndef") {
                    condition(&r, kind, rest)
                } else {
                    f.covered = true;
                    if f.results.is_empty() {
                        Some(true)
                    } else {
                        None
                    }
                };
                // A branch after one gate could not decide may run or not.
                if f.branch == Some(true) && !f.results.is_empty() {
                    f.branch = None;
                }
                f.taken |= f.branch == Some(true);
                f.covered |= f.branch == Some(true);
            }
            continue;
        }
        if head == "endif" {
            if let Some(mut f) = frames.pop()
                && !f.parent_skip
            {
                if f.branch != Some(false) {
                    f.results.push(r.vars.clone());
                }
                if !f.covered
                    && let Some(before) = f.before.take()
                {
                    f.results.push(before);
                }
                r.vars = if f.results.len() == 1 {
                    f.results.pop().unwrap_or_default()
                } else {
                    merged(f.results)
                };
            }
            continue;
        }
        // `define NAME [op]` … `endef`: a value of many lines.
        let mut d = l;
        let mut overrides = false;
        let mut exports = false;
        loop {
            let (w, rest) = first_word(d);
            match w {
                "override" => overrides = true,
                "export" => exports = true,
                "private" => {}
                _ => break,
            }
            d = rest;
        }
        let (w, rest) = first_word(d);
        if w == "define" {
            let mut body = Vec::new();
            let mut depth = 0usize;
            while k < lines.len() {
                // make counts a `define` or `endef` only on a line that does not start
                // with the recipe prefix (review 87, 10, 11), and trims blanks only.
                let t = lines[k].trim_matches([' ', '\t']);
                let counts = !lines[k].starts_with(prefix);
                k += 1;
                let (w0, _) = if counts { first_word(t) } else { ("", "") };
                if w0 == "define" {
                    // make counts a `define` in a body it reads, not in one it skips
                    // (review 88, 05): a `define` in a `define` is refused either way.
                    return Err(
                        "whose makefile has a `define` in a `define`'s body, which gate does \
                         not read; define each variable on its own"
                            .into(),
                    );
                } else if w0 == "endef" {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                }
                body.push(lines[k - 1]);
            }
            if skipping {
                continue;
            }
            let rest = rest.trim();
            let (name_part, op) = ["::=", ":=", "?=", "+=", "!=", "="]
                .iter()
                .find_map(|op| rest.strip_suffix(op).map(|n| (n.trim(), *op)))
                .unwrap_or((rest, "="));
            let name = plain_name(&r, name_part)?;
            refused_name(&name, true, &body.join(" "))?;
            if name == "MAKEFLAGS" {
                plain_makeflags(&body.join(" "))?;
            }
            code(&r, &mut code_vars, &name, &body.join("\n"));
            if exports {
                r.exported.insert(name.clone());
            }
            r.assign(&name, op, &body.join("\n"), false, overrides);
            in_rule = false;
            continue;
        }
        if skipping {
            continue;
        }
        if matches!(head, "include" | "-include" | "sinclude") {
            return Err(format!(
                "whose makefile includes another (`{l}`), which gate does not read here; put \
                 the recipes the check runs in the makefile itself"
            ));
        }
        // Every line from here on but a rule ends the rule before it: a tab line after it is
        // a makefile line to make, not a recipe (review 87, 01 to 05).
        in_rule = false;
        if matches!(head, "vpath" | "load" | "-load") {
            return Err(format!(
                "whose makefile has `{head}` (`{l}`), which finds prerequisites or loads code \
                 from folders gate does not read; write the paths plainly in the rules"
            ));
        }
        if head == "undefine" || (head == "override" && first_word(args).0 == "undefine") {
            let name = plain_name(&r, first_word(args).1.trim())
                .or_else(|_| plain_name(&r, args.trim()))?;
            r.vars.remove(&name);
            continue;
        }
        if let Some((name_part, op, value)) = assignment(d) {
            let name = plain_name(&r, name_part)?;
            refused_name(&name, false, value)?;
            if name == "MAKEFLAGS" {
                plain_makeflags(value)?;
            }
            if exports {
                r.exported.insert(name.clone());
            }
            let value = &kept(value);
            code(&r, &mut code_vars, &name, value);
            r.assign(&name, op, value, false, overrides);
            if name == ".RECIPEPREFIX" {
                prefix = match r.single("$(.RECIPEPREFIX)", 0) {
                    Some(p) => p.chars().next().unwrap_or('\t'),
                    None => {
                        return Err(format!(
                            "whose makefile sets `.RECIPEPREFIX` to what make computes \
                             (`{value}`), so gate cannot tell its recipes; write it plainly"
                        ));
                    }
                };
            }
            in_rule = false;
            continue;
        }
        if head == "export" || head == "unexport" {
            // `export`, `export NAMES`, `unexport NAMES`: no value set.
            if args.is_empty() {
                r.export_all = head == "export";
            }
            for t in r.expand(args, 0) {
                for n in t.text.split_whitespace() {
                    if head == "export" {
                        r.exported.insert(n.to_string());
                    } else {
                        r.exported.remove(n);
                    }
                }
            }
            continue;
        }
        // A rule: `targets: prerequisites [; recipe]`, or a target's variable
        // (`test: export X = 1`, which may hold for the recipe; read as one more value).
        if let Some(colon) = top_level(l, b':') {
            let targets = r.expand(&l[..colon], 0);
            let after = l[colon + 1..].trim_start_matches(':');
            let semi = top_level(after, b';');
            if let Some((name_part, op, value)) = assignment(after)
                && semi.is_none_or(|s| top_level(after, b'=').is_some_and(|e| e < s))
            {
                let mut name_part = name_part;
                let mut overrides = false;
                let mut exports = false;
                loop {
                    let (w, rest) = first_word(name_part);
                    match w {
                        "override" => overrides = true,
                        "export" => exports = true,
                        "private" => {}
                        _ => break,
                    }
                    name_part = rest;
                }
                let name = plain_name(&r, name_part)?;
                refused_name(&name, false, value)?;
                if name == "MAKEFLAGS" {
                    plain_makeflags(value)?;
                }
                // A target's exported variable reaches the `make`s of its recipe (and of
                // its prerequisites'): handed on as any exported one (review 87, 13).
                if exports {
                    r.exported.insert(name.clone());
                }
                code(&r, &mut code_vars, &name, &kept(value));
                for t in &targets {
                    let of = t.text.split_whitespace().map(str::to_string).collect();
                    target_vars.push((of, name.clone(), op, kept(value), overrides));
                }
                continue;
            }
            let (prereqs, inline) = match semi {
                Some(s) => (&after[..s], Some(&after[s + 1..])),
                None => (after, None),
            };
            // A static pattern rule (`test: t%: s%`) reaches what its pattern makes of its
            // targets, which gate does not work out: every rule is read (review 87, 18).
            unsure |= top_level(prereqs, b':').is_some();
            let mut rule = Rule::default();
            for t in &targets {
                for (a, b) in words_of(t) {
                    let word = slice(t, a, b);
                    if !word.computed.is_empty() {
                        if may_be_special(&word) {
                            return Err(format!(
                                "whose makefile names a target make computes (`{}`), which may \
                                 be one of make's special targets (`.ONESHELL`) that change how \
                                 recipes run; name the target plainly",
                                word.text
                            ));
                        }
                        unsure = true;
                    }
                    rule.targets.push(word.text);
                }
            }
            for p in r.expand(prereqs, 0) {
                // make reads a `;` or `=` a reference brings into a rule line as it reads
                // one written there: a recipe, a target's variable (review 88, 14).
                if p.text.contains([';', '=']) && !prereqs.contains([';', '=']) {
                    return Err(format!(
                        "whose rule `{l}` has prerequisites make expands into a recipe or a \
                         variable, which gate does not read; write the rule plainly"
                    ));
                }
                unsure |= !p.computed.is_empty();
                rule.prereqs
                    .extend(p.text.split_whitespace().map(str::to_string));
            }
            if let Some(recipe) = inline {
                rule.recipe.push(recipe.to_string());
            }
            rules.push(rule);
            in_rule = true;
            continue;
        }
        // Any other line is make text a reference builds (`$(eval …)`, `$(RULES)`);
        // `$(info …)`, `$(warning …)`, `$(error …)` print.
        // (Only a line that is one print: `$(info ) $(R)` is a rule to make: review 88, 13.)
        let prints = ["$(info ", "$(warning ", "$(error "]
            .iter()
            .any(|p| l.starts_with(p))
            && closing(l.as_bytes(), 1, b'(', b')') == Some(l.len() - 1);
        if !prints
            && r.expand(l, 0)
                .iter()
                .any(|t| !t.text.trim().is_empty() || !t.computed.is_empty())
        {
            return Err(format!(
                "whose makefile has a line make computes (`{l}`), which gate does not read; \
                 write the rules and variables plainly"
            ));
        }
    }
    // The variables as any recipe may see them: the rules' own as values they may have.
    let base = r;
    let r = base.for_rule(&target_vars, None);
    if let Some(flags) = r.vars.get(".SHELLFLAGS") {
        for v in r.lookup(".SHELLFLAGS", "$(.SHELLFLAGS)", 0) {
            let plain = v.computed.is_empty() && plain_shellflags(&v.text);
            if !plain || flags.is_empty() {
                return Err(format!(
                    "whose makefile runs recipes with `.SHELLFLAGS = {}`, which gate does not \
                     read; use options only (`.SHELLFLAGS := -eu -o pipefail -c`)",
                    v.text
                ));
            }
        }
    }
    let oneshell = rules
        .iter()
        .any(|rule| rule.targets.iter().any(|t| t == ".ONESHELL"));
    // The special target exports every variable to the recipes' `make`s, as a bare
    // `export` line does (review 86, 19).
    let export_all = r.export_all
        || rules
            .iter()
            .any(|rule| rule.targets.iter().any(|t| t == ".EXPORT_ALL_VARIABLES"));
    // A second expansion runs `$$(eval …)`, `$$(file …)` in prerequisites as make reads
    // them (review 88, 01, 02): refused.
    if rules
        .iter()
        .any(|rule| rule.targets.iter().any(|t| t == ".SECONDEXPANSION"))
    {
        return Err(
            "whose makefile has `.SECONDEXPANSION`, which expands prerequisites a second time \
             as make reads them, which gate does not read; write the prerequisites plainly"
                .into(),
        );
    }
    // The names make may read this makefile by, each a goal it remakes first.
    let makefile_names: Vec<String> = ["GNUmakefile", "makefile", "Makefile"]
        .iter()
        .map(|n| n.to_string())
        .chain(sub_make(words, dir).ok().and_then(|(_, f)| f))
        .collect();
    let read = reached(&r, &rules, &goals, &makefile_names, unsure);
    let mut out = String::new();
    let mut names: Vec<&String> = r
        .vars
        .keys()
        .filter(|n| {
            matches!(n.as_str(), "SHELL" | "BASH_ENV" | "CDPATH")
                || super::words::RUNNER_VARS.contains(&n.as_str())
        })
        .collect();
    names.sort();
    for name in names {
        let unset = format!("$({name})");
        for v in r.lookup(name, &unset, 0) {
            // Unset here, the variable is the environment's, which `reach.rs` reads.
            if v.text == unset && v.computed == [(0, unset.len())] {
                continue;
            }
            let value = if v.text.contains('\n') {
                format!("$(define {name})")
            } else {
                v.text
            };
            out.push_str(&format!("{name} = {value}\n"));
        }
    }
    let mut computed = None;
    for (rule, read) in rules.iter().zip(read) {
        out.push_str(&format!(
            "{}: {}\n",
            rule.targets.join(" "),
            rule.prereqs.join(" ")
        ));
        if !read {
            continue;
        }
        let own;
        let rr = if target_vars.is_empty() {
            &base
        } else {
            // Each rule's copy of the variables is work (review 87, 42: 25,000 rules and
            // 20,000 variables ran for minutes).
            if base.charge(base.vars.len()) {
                return Err(spent());
            }
            own = base.for_rule(&target_vars, Some(&rule.targets));
            &own
        };
        for raw in &rule.recipe {
            let variants = rr.expand(raw, 0);
            for t in &variants {
                for line in lines_of(t) {
                    let where_ = computed_where_it_matters(&line).or_else(|| {
                        (oneshell && variants.len() > 1 && {
                            let s = &line.text;
                            s.contains("pytest")
                                || super::words::mentions_word(s, "cd")
                                || super::words::mentions_word(s, "make")
                        })
                        .then(|| raw.clone())
                    });
                    if let Some(what) = where_
                        && computed.is_none()
                    {
                        computed = Some(format!(
                            "whose recipe line `{}` runs what make computes (`{what}`: a \
                             function, a variable the makefile does not set, or one a \
                             conditional gate cannot decide sets), which gate does not read; \
                             set the variable in the makefile or write the command plainly",
                            raw.trim()
                        ));
                    }
                    out.push('\t');
                    out.push_str(&line.text);
                    out.push('\n');
                    // Each line may expand to several values, each long: the rewritten text
                    // is bounded as the makefile is (review 86, 70: 1.2 GB before).
                    if out.len() > MAX_TEXT {
                        return Err(format!(
                            "whose makefile expands to more than gate reads (past {MAX_TEXT} \
                             bytes); keep the makefile the check runs small"
                        ));
                    }
                }
            }
        }
    }
    for name in &r.vars.keys().cloned().collect::<Vec<_>>() {
        if !(export_all || r.exported.contains(name) || r.locked.contains(name)) {
            continue;
        }
        if matches!(
            name.as_str(),
            "SHELL" | "MAKE" | "RM" | "CC" | "CXX" | "AR" | "CURDIR"
        ) {
            continue;
        }
        for v in r.lookup(name, &format!("$({name})"), 0) {
            handed.push((name.clone(), v, r.locked.contains(name)));
        }
    }
    Ok(Reading {
        text: out,
        handed_on: handed,
        code_vars,
        computed,
    })
}

/// Why a makefile is past gate's bound of work.
fn spent() -> String {
    "whose makefile is more than gate reads (its rules, conditionals and variables past \
     gate's bound of work); keep the makefile the check runs plain"
        .into()
}

/// `text` as make reads it, or why gate does not read it: make drops the carriage return
/// of a CRLF line end (so `\⏎` continues a line there too: review 87, 27); any other
/// carriage return, and a blank that is not a space or a tab (a no-break space, a form
/// feed), is refused, since make's blanks are spaces and tabs only and gate's reading
/// must not split or trim where make does not (review 87, 26, 30).
fn plain_text(text: &str) -> Result<String, String> {
    let text = text.replace("\r\n", "\n");
    // A NUL ends make's line there and joins the next (review 88, 08): refused, as is any
    // control character but a tab and a newline.
    match text
        .chars()
        .find(|c| (c.is_whitespace() || c.is_control()) && !matches!(c, ' ' | '\t' | '\n'))
    {
        Some(c) => Err(format!(
            "whose makefile holds the character U+{:04X}, a blank make does not treat as \
             one (or a lone carriage return), which gate does not read; use spaces, tabs \
             and newlines only",
            c as u32
        )),
        None => Ok(text),
    }
}

/// Whether a makefile line ending `line` continues onto the next: an odd count of
/// backslashes before the newline (`\\` is a backslash, review 87, 08).
fn continues(line: &str) -> bool {
    line.bytes().rev().take_while(|&c| c == b'\\').count() % 2 == 1
}

/// The first reference in `text` of a make function that runs make text or code as make
/// reads the makefile, or reads a file: `$(eval …)`, `$(file …)`, `$(guile …)`, and a
/// `$(call …)` of one of make's functions or of a name make computes (`$(call eval,…)`
/// runs `eval`). Anywhere in the makefile, since where it is decides nothing: an
/// assignment's value with `:=` runs it at once (review 87, 23).
fn runs_while_read(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut k = 0;
    while k + 1 < b.len() {
        if b[k] != b'$' {
            k += 1;
            continue;
        }
        if b[k + 1] == b'$' {
            k += 2;
            continue;
        }
        if matches!(b[k + 1], b'(' | b'{') {
            let rest = &text[k + 2..];
            // make takes any blank after a function's name, a newline too (review 88, 03).
            let name = rest
                .split(|c: char| c.is_ascii_whitespace() || c == ')' || c == '}')
                .next()
                .unwrap_or("");
            let hit = match name {
                "eval" | "file" | "guile" => true,
                // A function whose arguments start on the next line (`$(shell⏎…)` in a
                // `define`): gate's readings go a line at a time (review 88, 04).
                f if FUNCTIONS.contains(&f) && rest[f.len()..].starts_with(['\n', '\r']) => true,
                "call" => {
                    let arg = rest[4..].trim_start();
                    let first = arg.split([',', ')', '}']).next().unwrap_or("").trim();
                    first.contains('$') || FUNCTIONS.contains(&first)
                }
                _ => false,
            };
            if hit {
                let end = rest.find([')', '}']).map_or(rest.len(), |e| e + 1);
                return Some(format!("${}{}", b[k + 1] as char, &rest[..end.min(60)]));
            }
        }
        k += 1;
    }
    None
}

/// Variables a makefile may not set for gate to read it (`define` says whether by a
/// `define`): what make reads its makefiles, prerequisites or recipes by, which gate does
/// not model (review 87): `VPATH` (prerequisites found in other folders), `.EXTRA_PREREQS`,
/// the command-line variables make hands every `make` below (`MAKEOVERRIDES`, `MFLAGS`,
/// `GNUMAKEFLAGS`), `.RECIPEPREFIX` by `define`, and the variables make's built-in rules
/// run (`CC`, `COMPILE.c`: a prerequisite `x.o` runs `$(CC)`; `CC = cd out && pytest`).
fn refused_name(name: &str, define: bool, value: &str) -> Result<(), String> {
    let why = match name {
        "VPATH" => "finds prerequisites in other folders",
        ".EXTRA_PREREQS" => "adds prerequisites to every rule",
        "MAKEOVERRIDES" | "MFLAGS" | "GNUMAKEFLAGS" => "hands options to every `make` below",
        ".RECIPEPREFIX" if define => "chooses which lines are recipes",
        // What the shell of every recipe reads as it starts or runs (review 88, 19:
        // `BASH_FUNC_cd%%` redefines `cd`).
        n if n.starts_with("BASH_FUNC_")
            || matches!(
                n,
                "SHELLOPTS" | "BASHOPTS" | "PS4" | "IFS" | "PROMPT_COMMAND" | "GLOBIGNORE"
            ) =>
        {
            "changes how the shell of every recipe runs"
        }
        n if BUILT_IN_RULE_VARS.contains(&n) && !plain_flags(n, value) => {
            "is run by make's built-in rules"
        }
        _ => return Ok(()),
    };
    Err(format!(
        "whose makefile sets `{name}`, which {why}, which gate does not read; keep the \
         makefile the check runs plain"
    ))
}

/// Whether `value` of the built-in rules' variable `name` is compiler options only
/// (`CFLAGS ?= -O2 -Wall`, `LDFLAGS = -L/usr/lib`, which `setup.py build_ext` reads too):
/// a flags variable whose words are options without shell text, without a relative path
/// and without the options that run or load other programs (`-B`, `-fplugin`, `-wrapper`,
/// `-specs`, `-Wl,`) — review 88's honest `export CFLAGS ?= -O2 -Wall`.
fn plain_flags(name: &str, value: &str) -> bool {
    let flags = name.ends_with("FLAGS")
        || matches!(name, "LDLIBS" | "LOADLIBES" | "TARGET_ARCH" | "TARGET_MACH");
    flags
        && uncommented(value).split_whitespace().all(|w| {
            w.starts_with('-')
                && w.bytes()
                    .all(|c| c.is_ascii_alphanumeric() || b"_=.,+-/".contains(&c))
                && ![
                    "-B", "-fplugin", "-wrapper", "-specs", "-Wl,", "-Xlinker", "-include",
                    "-imacros", "-o",
                ]
                .iter()
                .any(|p| w.starts_with(p))
                && (!w.contains('/') || w.starts_with("-I/") || w.starts_with("-L/"))
        })
}

/// The variables make's built-in rules run or pass to what they run, from `make -p -f
/// /dev/null` (GNU make 4.3): the variables of the built-in rules' recipes and those
/// their defaults name.
const BUILT_IN_RULE_VARS: &[&str] = &[
    "AR",
    "ARFLAGS",
    "AS",
    "ASFLAGS",
    "CC",
    "CFLAGS",
    "CO",
    "COFLAGS",
    "COMPILE.C",
    "COMPILE.F",
    "COMPILE.S",
    "COMPILE.c",
    "COMPILE.cc",
    "COMPILE.cpp",
    "COMPILE.def",
    "COMPILE.f",
    "COMPILE.m",
    "COMPILE.mod",
    "COMPILE.p",
    "COMPILE.r",
    "COMPILE.s",
    "CPP",
    "CPPFLAGS",
    "CTANGLE",
    "CWEAVE",
    "CXX",
    "CXXFLAGS",
    "F77",
    "F77FLAGS",
    "FC",
    "FFLAGS",
    "GET",
    "GFLAGS",
    "LD",
    "LDFLAGS",
    "LDLIBS",
    "LEX",
    "LEX.l",
    "LEX.m",
    "LFLAGS",
    "LINK.C",
    "LINK.F",
    "LINK.S",
    "LINK.c",
    "LINK.cc",
    "LINK.cpp",
    "LINK.f",
    "LINK.m",
    "LINK.o",
    "LINK.p",
    "LINK.r",
    "LINK.s",
    "LINT",
    "LINT.c",
    "LINTFLAGS",
    "LOADLIBES",
    "M2C",
    "MAKEINFO",
    "MAKEINFO_FLAGS",
    "OBJC",
    "OUTPUT_OPTION",
    "PC",
    "PFLAGS",
    "PREPROCESS.F",
    "PREPROCESS.S",
    "PREPROCESS.r",
    "RFLAGS",
    "SCCS_OUTPUT_OPTION",
    "TANGLE",
    "TARGET_ARCH",
    "TARGET_MACH",
    "TEX",
    "TEXI2DVI",
    "TEXI2DVI_FLAGS",
    "WEAVE",
    "YACC",
    "YACC.m",
    "YACC.y",
    "YFLAGS",
];

/// A makefile's `MAKEFLAGS` value, if gate reads it: options that change neither what make
/// reads nor what its recipes run (`--no-print-directory`, `-s`, `-j4`, `-r`); a variable
/// (`D=out`, which every `make` takes as its line's: review 87, 12, 15), a computed value
/// or any other option is refused.
fn plain_makeflags(value: &str) -> Result<(), String> {
    let safe = |w: &str| {
        matches!(
            w,
            "--no-print-directory"
                | "--print-directory"
                | "-w"
                | "--silent"
                | "--quiet"
                | "--keep-going"
                | "--no-builtin-rules"
                | "--no-builtin-variables"
                | "--warn-undefined-variables"
                | "--jobs"
                | "--output-sync"
                | "-O"
        ) || w
            .strip_prefix("--jobs=")
            .is_some_and(|n| n.bytes().all(|c| c.is_ascii_digit()))
            || w.strip_prefix("--output-sync=")
                .is_some_and(|n| n.bytes().all(|c| c.is_ascii_lowercase()))
            || w.strip_prefix("-j")
                .is_some_and(|n| n.bytes().all(|c| c.is_ascii_digit()))
            || w.strip_prefix('-')
                .unwrap_or(w)
                .bytes()
                .all(|c| b"srRkSw".contains(&c))
                && !w.is_empty()
            || w.bytes().all(|c| c.is_ascii_digit())
    };
    match uncommented(value).split_whitespace().find(|w| !safe(w)) {
        None => Ok(()),
        Some(w) => Err(format!(
            "whose makefile sets `MAKEFLAGS` with `{w}`, which changes what every `make` reads \
             or runs, which gate does not read; keep only options such as \
             `--no-print-directory`, `-s` or `-j`"
        )),
    }
}

/// Whether `.SHELLFLAGS` holds options gate reads recipes under: `-c` and the shell's
/// error options (`-e`, `-u`, `-x`, `-v`, `-o pipefail`, …). A login or interactive shell
/// (`-l`, `-i`) reads start-up files (`$HOME/.profile`, `$ENV`) a trial may write (review
/// 87, 19, 20); any other word is refused.
fn plain_shellflags(flags: &str) -> bool {
    let words: Vec<&str> = flags.split_whitespace().collect();
    let mut k = 0;
    while let Some(w) = words.get(k) {
        k += 1;
        let Some(letters) = w.strip_prefix('-').or_else(|| w.strip_prefix('+')) else {
            return false;
        };
        if letters.is_empty() || !letters.bytes().all(|c| b"ceuxvo".contains(&c)) {
            return false;
        }
        if letters.contains('o') {
            match words.get(k) {
                Some(&("pipefail" | "errexit" | "nounset" | "xtrace" | "verbose" | "posix")) => {
                    k += 1
                }
                _ => return false,
            }
        }
    }
    !words.is_empty()
}

/// The name a variable's definition sets, expanded (`PYTEST_$(A)OPTS`): refused if make
/// computes it.
fn plain_name(r: &Reader, written: &str) -> Result<String, String> {
    match r.expand(written.trim(), 0).as_slice() {
        [one] if one.computed.is_empty() && !one.text.trim().is_empty() => {
            Ok(one.text.trim().to_string())
        }
        _ => Err(format!(
            "whose makefile sets a variable whose name make computes (`{}`), which gate does \
             not read; name the variable plainly",
            written.trim()
        )),
    }
}

/// The byte spans of the words of `t`: a computed reference is one piece of a word
/// (`$(shell echo x)`).
fn words_of(t: &Text) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    let mut span = 0;
    for (k, c) in t.text.char_indices() {
        // The spans lie in order: the one that may hold `k` is the first not ended by it.
        while t.computed.get(span).is_some_and(|(_, b)| *b <= k) {
            span += 1;
        }
        let inside = t.computed.get(span).is_some_and(|(a, b)| *a < k && k < *b);
        match (c.is_whitespace() && !inside, start) {
            (true, Some(s)) => {
                out.push((s, k));
                start = None;
            }
            (false, None) => start = Some(k),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, t.text.len()));
    }
    out
}

/// The part `a..b` of `t`, with its computed spans.
fn slice(t: &Text, a: usize, b: usize) -> Text {
    Text {
        text: t.text[a..b].to_string(),
        computed: t
            .computed
            .iter()
            .filter(|(x, y)| *x < b && a < *y)
            .map(|(x, y)| ((*x).max(a) - a, (*y).min(b) - a))
            .collect(),
    }
}

/// The recipe lines an expanded recipe line is: make runs each line of a value of many
/// lines (`define`) as a line of its own.
fn lines_of(t: &Text) -> Vec<Text> {
    let mut out = Vec::new();
    let mut start = 0;
    for (k, _) in t.text.match_indices('\n') {
        out.push(slice(t, start, k));
        start = k + 1;
    }
    out.push(slice(t, start, t.text.len()));
    out
}

/// Which of `rules` make may run the recipe of for `goals` (the first target when none):
/// those the goals reach through prerequisites, pattern and suffix rules (`%.o:`,
/// `.c.o:`), `.DEFAULT`, and the makefile itself (`makefile_names`: make remakes a makefile
/// it read before any goal); every rule when `unsure` (a computed target or prerequisite,
/// `.SECONDEXPANSION`) or when no goal is found.
fn reached(
    r: &Reader,
    rules: &[Rule],
    goals: &[String],
    makefile_names: &[String],
    unsure: bool,
) -> Vec<bool> {
    let all = vec![true; rules.len()];
    if unsure {
        return all;
    }
    let mut goals: Vec<String> = goals.to_vec();
    if goals.is_empty() {
        if r.vars.contains_key(".DEFAULT_GOAL") {
            match r.single("$(.DEFAULT_GOAL)", 0) {
                Some(g) if !g.trim().is_empty() => goals.push(g.trim().to_string()),
                _ => return all,
            }
        } else {
            let first = rules
                .iter()
                .flat_map(|rule| rule.targets.first())
                .find(|t| !t.contains('%') && (!t.starts_with('.') || t.contains('/')));
            match first {
                Some(t) => goals.push(t.clone()),
                None => return all,
            }
        }
    }
    // make first remakes every makefile it read, whatever the goals (review 86, 22: a rule
    // `Makefile: ; cd out && pytest` runs before any goal), so they are goals too.
    goals.extend(makefile_names.iter().cloned());
    // A worklist over the rules by target: each rule is visited once (review 86, 69: a
    // chain of 12,000 rules written backwards took 24 s as a fixed point). Names as make
    // files them ([`file_name`]: `./setup` is `setup`, review 90, 22 and 31).
    let mut by_target: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, rule) in rules.iter().enumerate() {
        for t in &rule.targets {
            by_target.entry(file_name(t)).or_default().push(k);
        }
    }
    let mut reached: HashSet<String> = HashSet::new();
    let mut todo: Vec<String> = goals.iter().map(|g| file_name(g).to_string()).collect();
    while let Some(t) = todo.pop() {
        if !reached.insert(t.clone()) {
            continue;
        }
        for &k in by_target.get(t.as_str()).into_iter().flatten() {
            todo.extend(
                rules[k]
                    .prereqs
                    .iter()
                    .map(|p| file_name(p))
                    .filter(|p| *p != "|" && !reached.contains(*p))
                    .map(str::to_string),
            );
        }
    }
    rules
        .iter()
        .map(|rule| {
            rule.targets.iter().any(|t| {
                reached.contains(file_name(t))
                    || t.contains('%')
                    || (t.starts_with('.') && t.len() > 1)
            })
        })
        .collect()
}

/// A target's name as make files it: without leading `./` (and the slashes after it), as
/// GNU make's `lookup_file` strips them, so `./setup`, `.//setup` and `setup` are one file.
fn file_name(t: &str) -> &str {
    let mut t = t;
    while t.len() > 2 && t.starts_with("./") {
        t = t[2..].trim_start_matches('/');
    }
    t
}

/// How a recipe's `make` (its words, name first, from folder `dir`) reads its makefile:
/// the folder it runs in (`-C`, `--directory`) and the file it names (`-f`, `--file`,
/// `--makefile`), if any; or why gate does not follow it (`--eval`, `-I`, `-e`, several
/// `-f`).
pub(super) fn sub_make(words: &[String], dir: &Path) -> Result<(PathBuf, Option<String>), String> {
    let mut at = dir.to_path_buf();
    let mut files: Vec<String> = Vec::new();
    let mut k = 1;
    let refuse = |w: &str| {
        Err(format!(
            "whose recipe runs `make {w}`, which reads a makefile or text gate does not read; \
             run the recipes the check needs from the makefile itself"
        ))
    };
    while let Some(w) = words.get(k) {
        k += 1;
        if let Some(long) = w.strip_prefix("--") {
            let (name, glued) = long
                .split_once('=')
                .map_or((long, None), |(n, v)| (n, Some(v.to_string())));
            // make takes a long option by any unique prefix (`--dir=out`, `--ev=…`,
            // `--makef=…`: review 88, 15, 22, 23): only one written in full is read, as on
            // the check line (`tools.rs`).
            if !super::words::MAKE_LONG.contains(&name) {
                return refuse(w);
            }
            // `--environment-overrides`: the environment's values win over the makefile's,
            // which gate reads as the makefile's (review 86, 20).
            if name.starts_with("eval")
                || name.starts_with("include-dir")
                || name.starts_with("environment")
            {
                return refuse(w);
            }
            if matches!(name, "file" | "makefile" | "directory") {
                let v = match glued {
                    Some(v) => v,
                    None => {
                        k += 1;
                        match words.get(k - 1) {
                            Some(v) => v.clone(),
                            None => continue,
                        }
                    }
                };
                if name == "directory" {
                    at = at.join(v);
                } else {
                    files.push(v);
                }
            }
            continue;
        }
        let Some(flags) = w.strip_prefix('-') else {
            continue;
        };
        for (j, c) in flags.char_indices() {
            let rest = &flags[j + c.len_utf8()..];
            match c {
                'E' | 'I' | 'e' => return refuse(w),
                'f' | 'C' | 'o' | 'W' => {
                    let v = if rest.is_empty() {
                        k += 1;
                        words.get(k - 1).cloned()
                    } else {
                        Some(rest.to_string())
                    };
                    match (c, v) {
                        ('f', Some(v)) => files.push(v),
                        ('C', Some(v)) => at = at.join(v),
                        _ => {}
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    if files.len() > 1 {
        return refuse("-f … -f …");
    }
    Ok((at, files.pop()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, words: &[&str]) -> Result<String, String> {
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        evaluate(
            text,
            &words,
            Path::new("/w"),
            &[],
            &crate::plan::words::loads_code,
        )
        .and_then(|r| match r.computed {
            Some(why) => Err(why),
            None => Ok(r.text),
        })
    }

    fn recipes(text: &str) -> Vec<String> {
        read(text, &["make"])
            .unwrap()
            .lines()
            .filter_map(|l| l.strip_prefix('\t').map(str::to_string))
            .collect()
    }

    #[test]
    fn a_makefile_is_read_only_as_far_as_it_is_evaluated() {
        let dir = tempfile::tempdir().unwrap();
        // A sparse file of 8 GiB: read whole, it would take the memory; read to the bound,
        // it is refused as too large.
        let big = dir.path().join("Makefile");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(8 << 30).unwrap();
        let text = read_text(&big).unwrap();
        assert_eq!(text.len(), MAX_TEXT + 1);
        let Err(why) = evaluate(
            &text,
            &["make".to_string()],
            dir.path(),
            &[],
            &crate::plan::words::loads_code,
        ) else {
            panic!("a makefile past the bound was evaluated");
        };
        assert!(
            why.contains("larger than gate reads (past 1048576 bytes)"),
            "{why}"
        );
        // Bytes that are not UTF-8 do not end the reading (a line after them still counts).
        let odd = dir.path().join("odd.mk");
        std::fs::write(&odd, b"# caf\xe9\ninclude out/x.mk\n").unwrap();
        assert!(read_text(&odd).unwrap().contains("include out/x.mk"));
        // Not a regular file: not read (a FIFO would hold the load up).
        assert_eq!(read_text(dir.path()), None);
        assert_eq!(read_text(&dir.path().join("missing")), None);
    }

    #[test]
    fn a_reference_to_a_multibyte_name_is_read_without_a_panic() {
        // Found by `any_makefile_text_is_read_without_a_panic`: `$é` cut `é` in half.
        assert_eq!(recipes("t:\n\techo $\u{e9} $(\u{e9}D) $(@D)\n").len(), 1);
    }

    #[test]
    fn variables_expand_as_make_expands_them() {
        assert_eq!(recipes("E =\nt:\n\tpy$(E)test -q out\n"), ["pytest -q out"]);
        assert_eq!(
            recipes("PYTHON ?= python3\nt:\n\t$(PYTHON) -m pytest -q tests\n"),
            ["python3 -m pytest -q tests"]
        );
        assert_eq!(
            recipes("A = x\nB := $(A)\nA = y\nC = $(A)\nt:\n\t@echo $(B) ${C} $$HOME $$(pwd)\n"),
            ["@echo x y $HOME $(pwd)"]
        );
        assert_eq!(
            recipes("F = -q\nF += -x\nt:\n\tpytest $(F) tests\n"),
            ["pytest -q -x tests"]
        );
        assert_eq!(
            recipes("define RUN\ncd out\nendef\nt:\n\t$(RUN) && pytest -q tests\n"),
            ["cd out && pytest -q tests"]
        );
        assert_eq!(
            recipes("define TWO\necho a\ncd out\nendef\nt:\n\t$(TWO)\n"),
            ["echo a", "cd out"]
        );
        assert_eq!(
            recipes("S = a.c b.c\nt:\n\techo $(S:.c=.o) $@ $(MAKE)\n"),
            ["echo a.o b.o $@ make"]
        );
        assert_eq!(recipes("X = a\nN = X\nt:\n\techo $($(N))\n"), ["echo a"]);
        // The `make` line's own variables win over the makefile's plain assignment.
        let text = "D = tests\nt:\n\tpytest -q $(D)\n";
        assert!(
            read(text, &["make", "D=out"])
                .unwrap()
                .contains("\tpytest -q out")
        );
    }

    #[test]
    fn names_built_from_variables_are_expanded() {
        let text = read(
            "A = ADD\nexport PYTEST_$(A)OPTS = out\nt:\n\tpytest\n",
            &["make"],
        );
        assert!(text.unwrap().contains("PYTEST_ADDOPTS = out"));
        let text = read("E =\n.ONE$(E)SHELL:\nt:\n\tcd out\n", &["make"]).unwrap();
        assert!(text.contains(".ONESHELL: "));
        assert!(read("export PYTEST_$(A)OPTS = out\n", &["make"]).is_err());
        assert!(read(".ONE$(E)SHELL:\nt:\n\ttrue\n", &["make"]).is_err());
    }

    #[test]
    fn computed_parts_are_refused_where_they_matter() {
        for text in [
            "t:\n\tpy$(shell echo)test -q tests\n",
            "t:\n\t$(RUNNER) tests\n",
            "t:\n\tcd $(D) && true\n",
            "t:\n\tsh -c $(CMD)\n",
            "t:\n\tpytest $(ARGS) tests\n",
            "X = $(shell cat out/x)\nt:\n\t$(X)\n",
            "include other.mk\nt:\n\tpytest -q tests\n",
            "$(eval T: ; cd out)\n",
        ] {
            assert!(read(text, &["make"]).is_err(), "{text}");
        }
        for text in [
            "t:\n\trm -rf $(wildcard build/*)\n\tpytest -q tests\n",
            "t:\n\t@echo $(shell date)\n",
            "$(info hello)\nt:\n\ttrue\n",
        ] {
            assert!(read(text, &["make"]).is_ok(), "{text}");
        }
    }

    #[test]
    fn conditionals_give_every_value_a_branch_may_set() {
        let text = "ifeq ($(OS),Windows_NT)\nPY = python\nelse\nPY = python3\nendif\nt:\n\t$(PY) -m pytest tests\n";
        assert_eq!(
            recipes(text),
            ["python -m pytest tests", "python3 -m pytest tests"]
        );
        let text = "A = 1\nifeq ($(A),1)\nD = tests\nelse\nD = out\nendif\nt:\n\tcd $(D)\n";
        assert_eq!(recipes(text), ["cd tests"]);
        // A variable only one branch sets may be unset: make takes it from its environment.
        let text = "ifdef CI\nD = tests\nendif\nt:\n\tcd $(D)\n";
        assert!(read(text, &["make"]).is_err());
    }

    #[test]
    fn a_target_s_own_variables_and_recipe_prefix_are_read() {
        // Its own rule's for certain; another's as one more value (a prerequisite inherits).
        let text = "t: PY := python3\nt: u\n\t$(PY) -m pytest tests\nu:\n\tcd $(D)\n";
        assert_eq!(
            recipes(&text.replace("$(D)", "x")),
            ["python3 -m pytest tests", "cd x"]
        );
        let text = "D = tests\nt: D = out\nt: u\n\ttrue\nu:\n\tcd $(D)\n";
        assert_eq!(recipes(text), ["true", "cd tests", "cd out"]);
        let text = ".RECIPEPREFIX = >\nt:\n> cd out && pytest -q\n";
        assert_eq!(recipes(text), [" cd out && pytest -q"]);
        assert!(read(".RECIPEPREFIX = $(P)\nt:\n\ttrue\n", &["make"]).is_err());
    }

    #[test]
    fn only_the_goals_recipes_are_read() {
        let text = "all: test\ntest:\n\tpytest -q tests\ndeploy:\n\t$(DOCKER) push\n";
        assert!(read(text, &["make"]).is_ok());
        assert!(read(text, &["make", "test"]).is_ok());
        assert!(read(text, &["make", "deploy"]).is_err());
    }

    #[test]
    fn adversarial_expansion_stays_bounded() {
        let mut text = String::from("A0 = x\n");
        for k in 1..=30 {
            text.push_str(&format!("A{k} = $(A{})$(A{})\n", k - 1, k - 1));
        }
        text.push_str("t:\n\t$(A30)\n");
        assert!(read(&text, &["make"]).is_err());
        assert!(read("A = $(A)$(A)\nt:\n\t$(A)\n", &["make"]).is_err());
        assert!(read("A = $(A\nt:\n\t$(A)\n", &["make"]).is_err());
    }

    #[test]
    fn sub_makes_name_their_folder_and_file() {
        let w = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
        let (at, file) = sub_make(&w("make -C sub -f other.mk test"), Path::new("/w")).unwrap();
        assert_eq!(
            (at, file),
            (PathBuf::from("/w/sub"), Some("other.mk".into()))
        );
        let (at, _) = sub_make(&w("make --directory=a/b"), Path::new("/w")).unwrap();
        assert_eq!(at, PathBuf::from("/w/a/b"));
        assert!(sub_make(&w("make --eval=x"), Path::new("/w")).is_err());
    }

    /// Text a makefile could hold, from the bytes make's language gives meaning to and a few
    /// that are more than one byte long (a slice at a byte that is not a character's start
    /// would panic).
    fn makefile_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::strategy::Strategy as _;
        proptest::collection::vec(
            proptest::sample::select(vec![
                "$",
                "(",
                ")",
                "{",
                "}",
                ":",
                "=",
                "?",
                "+",
                "!",
                "\t",
                "\n",
                "\\",
                "#",
                " ",
                ",",
                "%",
                "@",
                "<",
                "^",
                ";",
                "|",
                "'",
                "\"",
                "é",
                "€",
                "𝄞",
                "A",
                "E",
                "define",
                "endef",
                "ifeq",
                "ifdef",
                "else",
                "endif",
                "export",
                "override",
                "include",
                "cd",
                "pytest",
                "make",
                "$(MAKE)",
                "-C",
                "-f",
                "shell",
                "call",
                "eval",
                ".ONESHELL",
                ".RECIPEPREFIX",
                "\r",
            ]),
            0..80,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest::proptest! {
        /// Whatever a makefile holds, its reading ends without a panic, within its bounds.
        #[test]
        fn any_makefile_text_is_read_without_a_panic(text in makefile_text()) {
            let words = vec!["make".to_string(), "t".to_string(), "A=$(E)é".to_string()];
            let _ = evaluate(&text, &words, Path::new("/w"), &[], &crate::plan::words::loads_code);
            let line: Vec<String> = text.split(' ').map(str::to_string).collect();
            let _ = sub_make(&line, Path::new("/w"));
        }
    }
}
