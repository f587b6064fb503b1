//! The words of a command line, as gate reads a `run` or `check` line to find what it runs
//! (issue 29): the one lexer of a command line, [`lex`], which the allow-list of `check:`
//! lines ([`super::grammar`]) reads too (quotes, escapes, continuations, the plan's `env:`
//! values put in and split as the shell does), the words and simple commands of a line,
//! and the one question review 7 (c07) added: does a line hand an interpreter its program as text (on stdin, or
//! as inline code that loads a file), so that every file it names may be the grader
//! ([`text_fed_paths`]).
//!
//! Only reading: no file is written, no process started. [`super::state`] decides what is
//! protected from these words, [`super::reach`] what is refused.

use std::path::{Path, PathBuf};

use super::CommandLine;
pub(super) use super::invoke::{bare, is_python, name_of};

/// GNU make's long options (make 4.3's `--help`), each in full: read on the check line
/// (`tools.rs`) and on a recipe's `make` (`makefile::sub_make`), where any other spelling
/// (a prefix make would take for one of these) is refused.
pub(super) const MAKE_LONG: [&str; 39] = [
    "always-make",
    "assume-new",
    "assume-old",
    "check-symlink-times",
    "debug",
    "directory",
    "dry-run",
    "environment-overrides",
    "eval",
    "file",
    "help",
    "ignore-errors",
    "include-dir",
    "jobs",
    "just-print",
    "keep-going",
    "load-average",
    "makefile",
    "max-load",
    "new-file",
    "no-builtin-rules",
    "no-builtin-variables",
    "no-keep-going",
    "no-print-directory",
    "no-silent",
    "old-file",
    "output-sync",
    "print-data-base",
    "print-directory",
    "question",
    "quiet",
    "recon",
    "silent",
    "stop",
    "touch",
    "trace",
    "version",
    "warn-undefined-variables",
    "what-if",
];

/// make's long options that take a value (`--file F`, `--directory=D`): the readings of a
/// make line (`tools.rs`, `makefile.rs`) skip or read the word after them.
pub(super) const MAKE_VALUED_LONG: [&str; 9] = [
    "file",
    "makefile",
    "directory",
    "include-dir",
    "old-file",
    "assume-old",
    "what-if",
    "new-file",
    "assume-new",
];

/// The variables that choose what a test runner reads, which the readings of a check line
/// and of a makefile follow (`reach.rs`'s `runners_env`, `makefile.rs`).
pub(super) const RUNNER_VARS: [&str; 5] = [
    "PYTEST_ADDOPTS",
    "PYTEST_PLUGINS",
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_TARGET_DIR",
    "TOX_WORK_DIR",
];

/// Programs whose first operand is a script they run, whatever its name or mode
/// (`sh grade`, `python3 -u grade`); a trailing version (`python3.12`) is ignored.
pub(super) const INTERPRETERS: &[&str] = &[
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "mksh",
    "ash",
    "fish",
    "rbash",
    "sh.distrib",
    "bash-static",
    "python",
    "pypy",
    "node",
    "nodejs",
    "perl",
    "ruby",
    "deno",
    "bun",
    "php",
    "lua",
    "luajit",
    "tclsh",
    "rscript",
    "julia",
    "elixir",
    "tsx",
    "ts-node",
    "source",
    ".",
];

/// At most this many files of a `-m module` package folder are protected (a larger package
/// is not a grader beside the plan; list what matters in `fixtures:`).
pub(super) const MAX_MODULE_FILES: usize = 1000;

/// A word of a command line, or the end of a simple command (`;`, `&&`, `|`, `>`, …), or
/// an input redirect (`<`: the next word is what it reads), or the start or the end of a
/// scope: a subshell `( … )`, or a line read inside a word (`sh -c '…'`, a quoted value, a
/// command substitution), whose `cd` does not move the commands after it. Each ends a
/// simple command as `End` does.
#[derive(Debug, PartialEq)]
pub(super) enum Token {
    Word(String),
    End,
    Input,
    Scope(bool),
}

/// The regular files under `dir`, at most [`MAX_MODULE_FILES`] of them (links not followed).
pub(super) fn files_under(dir: &Path, found: &mut Vec<PathBuf>) {
    let mut todo = vec![dir.to_path_buf()];
    let mut n = 0;
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() {
                todo.push(e.path());
            } else if kind.is_file() {
                found.push(absolute(&e.path()));
                n += 1;
                if n >= MAX_MODULE_FILES {
                    return;
                }
            }
        }
    }
}

/// Words that run the command after them (`env X=1 sh`, `timeout 10 sh`): the command is
/// the first word after them that is not an option or a number.
pub(super) const WRAPPERS: &[&str] = &[
    "env", "command", "exec", "nice", "nohup", "time", "timeout", "sudo", "xargs", "stdbuf",
    "builtin", "busybox", "setsid", "ionice", "chrt", "unbuffer", "doas",
];

/// The folder a `cd` or `pushd` command (`words`, its name first) goes to: its last word that
/// is not an option (`-P`, `-L`, `-e`, `-@`, `--`), so `cd -P app`, `cd -- app` and `cd
/// 2>/dev/null app` (whose `2` the tokenizer leaves as a word) all go to `app` (review 69,
/// 03, 15); `cd -` is a word of its own.
pub(super) fn cd_folder(words: &[String]) -> Option<&String> {
    words
        .iter()
        .skip(1)
        .rfind(|w| !w.starts_with('-') || *w == "-")
}

/// Whether option `o` of command prefix `prefix` (`timeout -s KILL 10 sh …`) takes the next
/// word as its value (`Some(true)`), takes none or has it glued (`Some(false)`), or is one
/// gate does not know (`None`): then which word is the program is not known for certain,
/// and the allow-list refuses the line (review 11, a07: `stdbuf --output L`, `time -o F`).
pub(super) fn prefix_option(prefix: &str, o: &str) -> Option<bool> {
    let (flags, valued): (&[&str], &[&str]) = match prefix {
        "env" => (
            &[
                "-i",
                "--ignore-environment",
                "-0",
                "--null",
                "-",
                "-v",
                "--debug",
            ],
            // (`-C DIR` runs the command in DIR: the command is the word after DIR, and
            // the readings that follow folders lose the folder there: review 88, 17.)
            &["-u", "--unset", "-C", "--chdir", "-S", "--split-string"],
        ),
        "command" => (&["-p", "-v", "-V"], &[]),
        "exec" => (&["-c", "-l"], &["-a"]),
        "nice" => (&[], &["-n", "--adjustment"]),
        "time" => (
            &[
                "-p",
                "-v",
                "--verbose",
                "--portability",
                "-q",
                "--quiet",
                "-a",
                "--append",
            ],
            &["-o", "--output", "-f", "--format"],
        ),
        "timeout" => (
            &["--foreground", "--preserve-status", "-v", "--verbose"],
            &["-s", "--signal", "-k", "--kill-after"],
        ),
        "stdbuf" => (&[], &["-i", "-o", "-e", "--input", "--output", "--error"]),
        "sudo" => (
            &["-E", "-H", "-n", "-S", "-k", "-P", "-A", "--preserve-env"],
            &[
                "-u", "-g", "-p", "-C", "-h", "-r", "-t", "-U", "-T", "--user", "--group",
            ],
        ),
        "doas" => (&["-n"], &["-u"]),
        "setsid" => (&["-c", "-f", "-w", "--ctty", "--fork", "--wait"], &[]),
        "ionice" => (
            &["-t"],
            &["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"],
        ),
        "chrt" => (
            &["-b", "-d", "-f", "-i", "-o", "-r", "-R", "-a", "-v", "-m"],
            &["-T", "-P", "-D"],
        ),
        "unbuffer" => (&["-p"], &[]),
        // GNU xargs (review 68, 18: `xargs -a list pytest` took `list` for the program).
        "xargs" => (
            &[
                "-0",
                "--null",
                "-r",
                "--no-run-if-empty",
                "-t",
                "--verbose",
                "-p",
                "--interactive",
                "-o",
                "--open-tty",
                "-x",
                "--exit",
                "--show-limits",
            ],
            &[
                "-a",
                "--arg-file",
                "-d",
                "--delimiter",
                "-E",
                "--eof",
                "-I",
                "--replace",
                "-L",
                "--max-lines",
                "-n",
                "--max-args",
                "-P",
                "--max-procs",
                "-s",
                "--max-chars",
                "--process-slot-var",
            ],
        ),
        _ => (&[], &[]),
    };
    if prefix == "nice" && o.len() > 1 && o[1..].chars().all(|c| c.is_ascii_digit()) {
        return Some(false);
    }
    if let Some((name, _)) = o.split_once('=').filter(|_| o.starts_with("--")) {
        return (valued.contains(&name) || flags.contains(&name)).then_some(false);
    }
    if valued.contains(&o) {
        return Some(true);
    }
    if flags.contains(&o) {
        return Some(false);
    }
    // A value glued to a short option (`stdbuf -oL`).
    let glued = !o.starts_with("--") && o.len() > 2 && o.is_char_boundary(2);
    (glued && valued.contains(&&o[..2])).then_some(false)
}

/// Inline code that holds one of these may run text it reads from a file (`$(cat F)`,
/// `exec(open(F).read())`, `system("sh F")`, a child process): every file the line names
/// may be the grader (review 13 split these from [`MODULE_LOADERS`]).
const TEXT_RUNNERS: &[&str] = &[
    "$(",
    "`",
    "<",
    "exec",
    "eval",
    "compile",
    "source",
    "Function(",
    // Starting a process that runs a named file (review 8).
    "subprocess",
    "system",
    "spawn",
    "popen",
    "child_process",
    "createRequire",
    "fork",
    "getBuiltinModule",
    "dlopen",
    "WebAssembly",
    "ctypes",
    "CDLL",
    // `numpy.load(F, allow_pickle=True)` runs the pickle's code.
    "allow_pickle",
];

/// Calls that load a module or an object that runs code from the file their argument
/// names (`require("./lib/x")`, `import("./x.mjs")`, perl `do "x.pl"`, `runpy.run_path`,
/// `pickle.load(open("p.pkl", "rb"))`, review 13, b10, b13): only the string literals of
/// such a call's argument are graders; the code's other literals are data it reads
/// (`readFileSync("src/config.json")`), which the trial may have to write.
const MODULE_LOADERS: &[&str] = &[
    "require",
    "require_relative",
    "import",
    "import_module",
    "__import__",
    "run_path",
    "run_module",
    "do",
    "dofile",
    "loadfile",
    "read_pickle",
    "Unpickler",
];

/// Modules whose `load` / `loads` / `open` runs code a file holds (pickles and the
/// formats built on them; YAML's unsafe loaders).
const OBJECT_LOADERS: &[&str] = &[
    "pickle",
    "cPickle",
    "_pickle",
    "marshal",
    "joblib",
    "torch",
    "dill",
    "cloudpickle",
    "shelve",
    "yaml",
];

/// A character of a JavaScript (or Python) identifier, as the loaders' readers take it.
fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// Where each identifier-like word of `c` starts and ends (`[from, to)`), in order.
fn ident_words(c: &[char]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut k = 0;
    while k < c.len() {
        if !is_ident(c[k]) || (k > 0 && is_ident(c[k - 1])) {
            k += 1;
            continue;
        }
        let from = k;
        while k < c.len() && is_ident(c[k]) {
            k += 1;
        }
        out.push((from, k));
    }
    out
}

/// Whether JavaScript `code` calls a function named `name` (`eval (text)`, `x.run({…})`):
/// the identifier, then `(` after blanks. Comments are read as code.
pub(super) fn calls(code: &str, name: &str) -> bool {
    let c: Vec<char> = code.chars().collect();
    ident_words(&c).into_iter().any(|(from, to)| {
        c[from..to].iter().copied().eq(name.chars())
            && c[to..].iter().find(|ch| !ch.is_whitespace()) == Some(&'(')
    })
}

/// The string literals of every [`MODULE_LOADERS`] call's argument in inline code `code`
/// (and of `pickle.load(…)`-like calls, [`OBJECT_LOADERS`]): the text in the call's
/// parentheses, or the one literal after the name (`require "x"`, `do 'x'`), or for a
/// JavaScript `import … from "x"` the rest of the statement.
pub(super) fn loader_arguments(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let ident = |c: char| is_ident(c);
    let mut out = Vec::new();
    // Past a loader's argument: the words inside it are its argument's.
    let mut resume = 0;
    for (start, i) in ident_words(&chars) {
        if start < resume {
            continue;
        }
        let name: String = chars[start..i].iter().collect();
        let qualifier: String = {
            let mut q: Vec<char> = if start > 0 && chars[start - 1] == '.' {
                chars[..start - 1]
                    .iter()
                    .rev()
                    .take_while(|c| ident(**c))
                    .copied()
                    .collect()
            } else {
                Vec::new()
            };
            q.reverse();
            q.into_iter().collect()
        };
        let object = OBJECT_LOADERS.contains(&qualifier.as_str())
            && matches!(
                name.as_str(),
                "load" | "loads" | "open" | "unsafe_load" | "full_load" | "Unpickler"
            );
        if !(MODULE_LOADERS.contains(&name.as_str()) || object) {
            continue;
        }
        let mut j = i;
        while j < chars.len() && chars[j].is_whitespace() {
            j += 1;
        }
        let arg_end = match chars.get(j) {
            Some('(') => {
                let mut depth = 0;
                let mut k = j;
                let mut end = chars.len();
                while k < chars.len() {
                    match chars[k] {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                end = k;
                                break;
                            }
                        }
                        q @ ('\'' | '"' | '`') => {
                            k += 1;
                            while k < chars.len() && chars[k] != q {
                                k += if chars[k] == '\\' { 2 } else { 1 };
                            }
                        }
                        _ => {}
                    }
                    k += 1;
                }
                end
            }
            // `import … from "x"`, `require "x"`, `do "x"`: to the end of the statement.
            _ => chars[j..]
                .iter()
                .position(|c| matches!(c, ';' | '\n'))
                .map_or(chars.len(), |p| j + p),
        };
        out.extend(string_literals(&chars[j..arg_end.max(j)]));
        resume = arg_end.max(i);
    }
    out
}

/// The plain string literals (`'…'`, `"…"`, a `` `…` `` without `${`, perl `q(…)`,
/// `qq(…)`) in `chars`.
fn string_literals(chars: &[char]) -> Vec<String> {
    literals_at(chars).into_iter().map(|(_, _, l)| l).collect()
}

/// [`string_literals`] with the indexes in `chars` where each opens (its quote, or the
/// `q`) and closes.
pub(super) fn literals_at(chars: &[char]) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let perl_q = c == 'q'
            && (i == 0 || !chars[i - 1].is_alphanumeric())
            && matches!(chars.get(i + 1), Some('(' | '{' | '[' | '<'))
            || c == 'q' && chars.get(i + 1) == Some(&'q') && chars.get(i + 2) == Some(&'(');
        let (open, close, from) = match c {
            '\'' | '"' | '`' => (c, c, i + 1),
            _ if perl_q => {
                let at = if chars[i + 1] == 'q' { i + 2 } else { i + 1 };
                let o = chars[at];
                let cl = match o {
                    '(' => ')',
                    '{' => '}',
                    '[' => ']',
                    _ => '>',
                };
                (o, cl, at + 1)
            }
            _ => {
                i += 1;
                continue;
            }
        };
        let _ = open;
        let mut k = from;
        let mut lit = String::new();
        while k < chars.len() && chars[k] != close {
            if chars[k] == '\\' && k + 1 < chars.len() {
                lit.push(chars[k + 1]);
                k += 2;
                continue;
            }
            lit.push(chars[k]);
            k += 1;
        }
        if !(c == '`' && lit.contains("${")) {
            out.push((i, k, lit));
        }
        i = k + 1;
    }
    out
}

/// What node's `require` / `import` of relative literal `spec` from folder `base` loads
/// (review 13, b03, b22): the file, else the file with one of node's extensions, else
/// the folder (its `package.json` `main` or `index.*`, protected whole); `None` when
/// nothing is there.
pub(super) fn node_resolve(base: &Path, spec: &str) -> Option<PathBuf> {
    let p = base.join(spec);
    if p.is_file() {
        return Some(p);
    }
    for e in ["js", "json", "node", "mjs", "cjs"] {
        let q = PathBuf::from(format!("{}.{e}", p.display()));
        if q.is_file() {
            return Some(q);
        }
    }
    if !p.is_dir() {
        return None;
    }
    // A folder loads its `package.json`'s `main`, else its `index.js` (review 34, 55c:
    // `require("./lib")` runs `lib/index.js`).
    let main = std::fs::read_to_string(p.join("package.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v.get("main").and_then(|m| m.as_str()).map(str::to_string));
    let inside = main
        .iter()
        .flat_map(|m| {
            let m = p.join(m);
            ["", ".js", ".json", "/index.js"].map(|e| PathBuf::from(format!("{}{e}", m.display())))
        })
        .chain(["index.js", "index.json", "index.node"].map(|i| p.join(i)))
        .find(|f| f.is_file());
    Some(inside.unwrap_or(p))
}

/// A word of a shell line as the lexer saw it.
#[derive(Debug, Default, Clone)]
pub(super) struct Word {
    /// With quotes and escapes removed and the plan's `env:` values put in (a variable the
    /// plan does not set stays as written, `$NAME`).
    pub(super) text: String,
    /// As written.
    pub(super) raw: String,
    /// An unquoted `*`, `?`, `[`, `{` or a leading `~`.
    pub(super) glob: bool,
    /// The variables it expands.
    pub(super) vars: Vec<String>,
    /// The special parameters it expands whose value is a number (`$!`, `$?`, `$$`, `$#`).
    pub(super) specials: Vec<char>,
    /// The text of each command substitution in it (`$(…)`, `` `…` ``).
    pub(super) subst: Vec<String>,
    /// Its unquoted, unescaped characters, in order (what the shell may expand).
    plain: String,
    /// The words the shell makes of it: `text`, with an unquoted value of the plan's
    /// `env:` split on blanks (an unquoted empty value leaves no word).
    pub(super) fields: Vec<String>,
    /// The field being read.
    field: Option<String>,
}

impl Word {
    /// Whether the shell expands its unquoted characters into file names: `*`, `?`, a
    /// `[…]`, a `{a,b}` / `{1..3}` brace expansion, a leading `~`.
    fn expands(&self) -> bool {
        let p = &self.plain;
        let bracket = p.find('[').is_some_and(|at| p[at..].contains(']'));
        let brace = p.find('{').is_some_and(|at| {
            p[at..]
                .find('}')
                .is_some_and(|end| p[at..at + end].contains(',') || p[at..at + end].contains(".."))
        });
        p.contains(['*', '?']) || bracket || brace || p.starts_with('~')
    }

    /// A word of an argv line: one literal field, no shell.
    pub(super) fn literal(a: &str) -> Word {
        Word {
            text: a.to_string(),
            raw: a.to_string(),
            fields: vec![a.to_string()],
            ..Word::default()
        }
    }

    /// Characters the word holds as they are (quoted, escaped or plain).
    fn lit(&mut self, s: &str) {
        self.text.push_str(s);
        self.field.get_or_insert_default().push_str(s);
    }

    /// A value the shell puts in: as it is when quoted, split on blanks when not.
    fn value(&mut self, v: &str, quoted: bool) {
        if quoted {
            return self.lit(v);
        }
        self.text.push_str(v);
        for c in v.chars() {
            if matches!(c, ' ' | '\t' | '\n') {
                self.fields.extend(self.field.take());
            } else {
                self.field.get_or_insert_default().push(c);
            }
        }
    }
}

#[derive(Debug)]
pub(super) enum Tok {
    Word(Word),
    /// `;`, `;;`, a newline.
    Sep,
    /// `&&` (`true`) or `||` (`false`): the command after it runs or not by the status of
    /// the commands before it.
    Cond(bool),
    /// `&`: the command before it runs in the background, in a subshell of its own.
    Bg,
    Pipe,
    Open,
    Close,
    /// `<`: the next word is read.
    In,
    /// `>`, `>>`, `2>&1`, …: the next word is written.
    Out,
}

/// The one reading of a shell line (issue 29): its tokens as the shell splits them, with
/// the plan's `env` values put in as the shell would; and the first construct gate does not
/// follow, if any. The allow-list refuses a line with such a construct; what is protected
/// ([`tokens_of`]) reads the same tokens, which go on past it as the shell
/// would (an unclosed quote to the end of the line).
pub(super) fn lex(line: &str, env: &[(String, String)]) -> (Vec<Tok>, Option<String>) {
    let mut l = Lexer {
        chars: line.chars().collect(),
        env,
        error: None,
    };
    let toks = l.tokens();
    (toks, l.error)
}

struct Lexer<'a> {
    chars: Vec<char>,
    env: &'a [(String, String)],
    error: Option<String>,
}

impl Lexer<'_> {
    fn fail(&mut self, why: String) {
        self.error.get_or_insert(why);
    }

    /// The chars from `from` to the first `close` (or the end of the line, `unclosed`
    /// recorded), and the index after it.
    fn until(&mut self, from: usize, close: char, unclosed: &str) -> (String, usize) {
        match self.chars[from..].iter().position(|&x| x == close) {
            Some(len) => (
                self.chars[from..from + len].iter().collect(),
                from + len + 1,
            ),
            None => {
                self.fail(unclosed.to_string());
                (self.chars[from..].iter().collect(), self.chars.len())
            }
        }
    }

    fn tokens(&mut self) -> Vec<Tok> {
        let mut toks = Vec::new();
        let mut w = Word::default();
        let mut started = false;
        let mut i = 0;
        let end_word = |w: &mut Word, started: &mut bool, toks: &mut Vec<Tok>| {
            if std::mem::take(started) {
                w.glob = w.expands();
                w.fields.extend(w.field.take());
                toks.push(Tok::Word(std::mem::take(w)));
            }
        };
        while i < self.chars.len() {
            let c = self.chars[i];
            match c {
                '\r' => {
                    // dash keeps a CR in the word, gate's reading would split there
                    // (review 11, a31).
                    self.fail("a carriage return (`\\r`) in the line".into());
                    end_word(&mut w, &mut started, &mut toks);
                    i += 1;
                }
                ' ' | '\t' => {
                    end_word(&mut w, &mut started, &mut toks);
                    i += 1;
                }
                '\n' => {
                    end_word(&mut w, &mut started, &mut toks);
                    toks.push(Tok::Sep);
                    i += 1;
                }
                '#' if !started => {
                    while i < self.chars.len() && self.chars[i] != '\n' {
                        i += 1;
                    }
                }
                // A line continuation joins two lines; it starts no word.
                '\\' if self.chars.get(i + 1) == Some(&'\n') => i += 2,
                '\\' => {
                    started = true;
                    w.raw.push(c);
                    if let Some(&n) = self.chars.get(i + 1) {
                        w.lit(&n.to_string());
                        w.raw.push(n);
                    }
                    i += 2;
                }
                '\'' => {
                    started = true;
                    let (inner, next) = self.until(i + 1, '\'', "an unclosed quote");
                    w.lit(&inner);
                    w.raw.extend(&self.chars[i..next]);
                    i = next;
                }
                '"' => {
                    started = true;
                    w.field.get_or_insert_default();
                    w.raw.push(c);
                    i += 1;
                    loop {
                        let Some(&d) = self.chars.get(i) else {
                            self.fail("an unclosed quote".into());
                            break;
                        };
                        match d {
                            '"' => {
                                w.raw.push(d);
                                i += 1;
                                break;
                            }
                            '\\' => {
                                let n = self.chars.get(i + 1).copied().unwrap_or('\\');
                                if "$`\"\\\n".contains(n) {
                                    if n != '\n' {
                                        w.lit(&n.to_string());
                                    }
                                } else {
                                    w.lit(&format!("\\{n}"));
                                }
                                w.raw.push(d);
                                w.raw.push(n);
                                i += 2;
                            }
                            '$' | '`' => i = self.dollar(i, &mut w, true),
                            _ => {
                                w.lit(&d.to_string());
                                w.raw.push(d);
                                i += 1;
                            }
                        }
                    }
                }
                '$' | '`' => {
                    started = true;
                    i = self.dollar(i, &mut w, false);
                }
                ';' | '&' | '|' => {
                    end_word(&mut w, &mut started, &mut toks);
                    let next = self.chars.get(i + 1).copied();
                    match (c, next) {
                        ('&', Some('>')) => {
                            toks.push(Tok::Out);
                            i += if self.chars.get(i + 2) == Some(&'>') {
                                3
                            } else {
                                2
                            };
                            continue;
                        }
                        ('&', Some('&')) | ('|', Some('|')) => {
                            toks.push(Tok::Cond(c == '&'));
                            i += 2;
                            continue;
                        }
                        (';', Some(';')) => {
                            toks.push(Tok::Sep);
                            i += 2;
                            continue;
                        }
                        ('|', Some('&')) => {
                            toks.push(Tok::Pipe);
                            i += 2;
                            continue;
                        }
                        ('|', _) => toks.push(Tok::Pipe),
                        ('&', _) => toks.push(Tok::Bg),
                        _ => toks.push(Tok::Sep),
                    }
                    i += 1;
                }
                '(' | ')' => {
                    end_word(&mut w, &mut started, &mut toks);
                    if c == '(' && self.chars.get(i + 1) == Some(&'(') {
                        self.fail("arithmetic (`((…))`)".into());
                    }
                    toks.push(if c == '(' { Tok::Open } else { Tok::Close });
                    i += 1;
                }
                '<' | '>' => {
                    // A file descriptor number before it (`2>`) is not a word.
                    if started && !w.text.is_empty() && w.raw.chars().all(|d| d.is_ascii_digit()) {
                        (w, started) = (Word::default(), false);
                    }
                    end_word(&mut w, &mut started, &mut toks);
                    let next = self.chars.get(i + 1).copied();
                    if c == '<' && next == Some('<') {
                        self.fail("a here-document or here-string (`<<`)".into());
                        i += 1;
                    }
                    if next == Some('(') {
                        self.fail(format!("process substitution (`{c}(…)`)"));
                    }
                    i += 1;
                    if matches!(self.chars.get(i), Some('>' | '&' | '|')) {
                        i += 1;
                    }
                    toks.push(if c == '<' { Tok::In } else { Tok::Out });
                }
                _ => {
                    started = true;
                    w.lit(&c.to_string());
                    w.raw.push(c);
                    w.plain.push(c);
                    i += 1;
                }
            }
        }
        end_word(&mut w, &mut started, &mut toks);
        toks
    }

    /// Reads the `$…` or `` `…` `` at `chars[i]` into `w` (`quoted`: inside `"…"`); returns
    /// the index after it.
    fn dollar(&mut self, i: usize, w: &mut Word, quoted: bool) -> usize {
        let c = self.chars[i];
        if c == '`' {
            let (inner, next) = self.until(i + 1, '`', "an unclosed backquote");
            w.raw.push_str(&format!("`{inner}`"));
            w.lit(&format!("`{inner}`"));
            w.subst.push(inner);
            return next;
        }
        // `$\⏎NAME` is `$NAME` to the shell (review 11, a03).
        while self.chars.get(i + 1) == Some(&'\\') && self.chars.get(i + 2) == Some(&'\n') {
            self.chars.drain(i + 1..i + 3);
        }
        let next = self.chars.get(i + 1).copied();
        match next {
            Some('[') => {
                // bash's old arithmetic `$[…]`, also inside double quotes (review 11, a19).
                self.fail("arithmetic expansion (`$[…]`)".into());
                w.raw.push('$');
                w.lit("$");
                i + 1
            }
            Some('(') => {
                if self.chars.get(i + 2) == Some(&'(') {
                    self.fail("arithmetic expansion (`$((…))`)".into());
                }
                let mut depth = 0;
                let mut quote: Option<char> = None;
                let mut j = i + 1;
                while j < self.chars.len() {
                    let d = self.chars[j];
                    let word_start =
                        self.chars[j - 1].is_whitespace() || ";&|(".contains(self.chars[j - 1]);
                    match (quote, d) {
                        // An escaped character, `\)` among them, closes nothing (review 81,
                        // a09: `$(echo \); cd ../tests; echo x)`).
                        (None | Some('"'), '\\') => j += 1,
                        (Some(q), d) if d == q => quote = None,
                        (Some(_), _) => {}
                        (None, '\'' | '"') => quote = Some(d),
                        // A comment runs to the end of its line, `)` and all (a10).
                        (None, '#') if word_start => {
                            while j + 1 < self.chars.len() && self.chars[j + 1] != '\n' {
                                j += 1;
                            }
                        }
                        (None, '(') => depth += 1,
                        (None, ')') => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                if j >= self.chars.len() {
                    self.fail("an unclosed `$(`".into());
                }
                let inner: String = self.chars[i + 2..j.min(self.chars.len())].iter().collect();
                w.raw.push_str(&format!("$({inner})"));
                w.lit(&format!("$({inner})"));
                w.subst.push(inner);
                j + 1
            }
            Some('{') => {
                let (name, next) = self.until(i + 2, '}', "an unclosed `${`");
                w.raw.push_str(&format!("${{{name}}}"));
                if !is_name(&name) {
                    self.fail(format!(
                        "the parameter expansion `${{{name}}}` (only a plain `${{NAME}}` is followed)"
                    ));
                    w.lit(&format!("${{{name}}}"));
                    return next;
                }
                self.var(w, name, quoted, true);
                next
            }
            Some(n) if n.is_ascii_alphabetic() || n == '_' => {
                let len = self.chars[i + 1..]
                    .iter()
                    .position(|x| !(x.is_ascii_alphanumeric() || *x == '_'))
                    .unwrap_or(self.chars.len() - i - 1);
                let name: String = self.chars[i + 1..i + 1 + len].iter().collect();
                w.raw.push_str(&format!("${name}"));
                self.var(w, name, quoted, false);
                i + 1 + len
            }
            Some(n) if n.is_ascii_digit() || "@*#?$!-".contains(n) => {
                if "!?$#".contains(n) {
                    // A number: data, not a name (`wait $!`, `[ $? -eq 0 ]`).
                    w.specials.push(n);
                } else {
                    self.fail(format!(
                        "the positional or special parameter `${n}` (its value is known only when the line runs)"
                    ));
                }
                w.raw.push_str(&format!("${n}"));
                w.lit(&format!("${n}"));
                i + 2
            }
            Some('\'') if !quoted => {
                self.fail("ANSI-C quoting (`$'…'`): write plain quotes".into());
                // Read as `'…'` for what is protected (escapes left as they are).
                i + 1
            }
            // bash's `$"…"` is the string `"…"` (translated in another locale).
            Some('"') if !quoted => i + 1,
            _ => {
                w.raw.push('$');
                w.lit("$");
                i + 1
            }
        }
    }

    /// `$NAME` (or `${NAME}`): the plan's value, or the word kept as written.
    fn var(&self, w: &mut Word, name: String, quoted: bool, braced: bool) {
        // The shell sets `PWD` and `OLDPWD` itself (at start and at each `cd`): a plan's
        // `env:` value for them is not what `cd "$OLDPWD"` reads (review 81, a30, a43).
        let own = matches!(name.as_str(), "PWD" | "OLDPWD");
        match (self.env.iter().rev()).find(|(k, _)| *k == name && !own) {
            Some((_, v)) => w.value(v, quoted),
            None if braced => w.lit(&format!("${{{name}}}")),
            None => w.lit(&format!("${name}")),
        }
        w.vars.push(name);
    }
}

/// A shell variable name.
pub(super) fn is_name(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Shell text inside shell text (`sh -c '…'`, `$(…)`) is read at most this deep.
const MAX_DEPTH: usize = 8;

/// The words of `line` as the shell reads them (see [`tokens`]): a shell line through the
/// one lexer, [`lex`]; an argv's arguments as they are.
pub(super) fn tokens_of(line: &CommandLine, env: &[(String, String)]) -> Vec<Token> {
    match line {
        CommandLine::Shell(s) => line_tokens(s, env, 0),
        CommandLine::Argv(v) => {
            let (mut out, mut after) = (Vec::new(), Vec::new());
            for a in v {
                field(a, env, 0, true, &mut out, &mut after);
            }
            if !after.is_empty() {
                flush(&mut out, &mut after);
            }
            out
        }
    }
}

/// The words of shell text `line`, read `depth` levels deep.
pub(super) fn line_tokens(line: &str, env: &[(String, String)], depth: usize) -> Vec<Token> {
    tokens(&lex(line, env).0, env, depth)
}

/// The words of the tokens the lexer made of a line (issue 29: the allow-list and what is
/// protected read the same tokens): each field the shell makes of a word (the plan's
/// `env:` values put in and split), with the value of `NAME=VALUE` or `--opt=VALUE` as a
/// word of its own before it; the end of a simple command for `;`, `&&`, `|`, `(`, `)`,
/// `{`, `}`, a newline and `>` (the written file starts a command of its own); `<`. A word
/// that may be a shell line of its own (`sh -c 'sh check'`) and the line a command
/// substitution runs are read as lines of their own after the command that holds them,
/// which keeps every word of its own (`pytest -k 'not slow' tests` names `tests`).
pub(super) fn tokens(toks: &[Tok], env: &[(String, String)], depth: usize) -> Vec<Token> {
    let (mut out, mut after) = (Vec::new(), Vec::new());
    let mut start = true;
    // `eval '…'` runs its text in this shell: a `cd` there moves what follows (no scope).
    let mut eval = false;
    // The subshells open in this text: a `)` with none open closes nothing, and those left
    // open close at its end, so that the text read from a word (`echo 'done :)'`) never
    // ends a scope around it (review 79). Past [`MAX_SCOPES`] a subshell is no scope.
    let mut open_here = 0usize;
    for t in toks {
        match t {
            Tok::Word(w) if w.raw == "{" || w.raw == "}" => flush(&mut out, &mut after),
            Tok::Word(w) if start && w.raw == "!" => {}
            Tok::Word(w) => {
                start = false;
                eval |= w.raw == "eval";
                let scoped = !eval;
                let mut read = false;
                for f in &w.fields {
                    read |= field(f, env, depth, scoped, &mut out, &mut after);
                }
                // A field read as a line reads its substitutions with it.
                for s in w.subst.iter().filter(|_| !read && depth < MAX_DEPTH) {
                    open(&mut after, true);
                    after.extend(line_tokens(s, env, depth + 1));
                    open(&mut after, false);
                }
            }
            Tok::In => out.push(Token::Input),
            Tok::Open | Tok::Close => {
                flush(&mut out, &mut after);
                let opens = matches!(t, Tok::Open);
                if opens {
                    open_here += 1;
                }
                if open_here > 0 && open_here <= MAX_SCOPES {
                    out.push(Token::Scope(opens));
                }
                if !opens {
                    open_here = open_here.saturating_sub(1);
                }
                (start, eval) = (true, false);
            }
            Tok::Sep | Tok::Cond(_) | Tok::Bg | Tok::Pipe | Tok::Out => {
                flush(&mut out, &mut after);
                (start, eval) = (true, false);
            }
        }
    }
    if !after.is_empty() {
        flush(&mut out, &mut after);
    }
    for _ in 0..open_here.min(MAX_SCOPES) {
        open(&mut out, false);
    }
    out
}

/// Subshells nested deeper than this in one text are read as no scope (each command keeps
/// the list of the scopes it lies in).
const MAX_SCOPES: usize = 16;

/// One field of a word (see [`tokens`]), its words put in `out`, the commands of a field
/// read as a line of its own in `after` (in a scope of their own where `scoped`); whether
/// it was.
fn field(
    f: &str,
    env: &[(String, String)],
    depth: usize,
    scoped: bool,
    out: &mut Vec<Token>,
    after: &mut Vec<Token>,
) -> bool {
    if let Some((_, value)) = f.split_once('=').filter(|(_, v)| !v.is_empty()) {
        out.push(Token::Word(value.to_string()));
    }
    out.push(Token::Word(f.to_string()));
    let shell = f.contains(|c: char| c.is_whitespace() || ";&|()<>{}".contains(c));
    if !shell || depth >= MAX_DEPTH {
        return false;
    }
    let toks = lex(f, env).0;
    // A field the lexer reads back as itself (`$(cat F)`) is no line of its own.
    if matches!(toks.as_slice(), [Tok::Word(w)] if w.fields == [f]) {
        return false;
    }
    if scoped {
        open(after, true);
    } else {
        end(after);
    }
    after.extend(tokens(&toks, env, depth + 1));
    if scoped {
        open(after, false);
    } else {
        end(after);
    }
    true
}

/// The start (`true`) or the end of a scope, which ends the simple command before it.
fn open(out: &mut Vec<Token>, start: bool) {
    end(out);
    out.push(Token::Scope(start));
}

/// The end of a simple command (once).
fn end(out: &mut Vec<Token>) {
    if out.last() != Some(&Token::End) {
        out.push(Token::End);
    }
}

/// The end of a simple command, then the lines read inside it (`after`, emptied).
fn flush(out: &mut Vec<Token>, after: &mut Vec<Token>) {
    end(out);
    if !after.is_empty() {
        for t in after.drain(..) {
            match t {
                Token::End => end(out),
                t => out.push(t),
            }
        }
        end(out);
    }
}

/// The simple commands of a line, each as its words from the command's name on (leading
/// `NAME=VALUE` words and wrappers such as `env` or `timeout 10` left out; the target of a
/// `<` redirect left out too).
pub(super) fn simple_commands(tokens: &[Token]) -> Vec<Vec<String>> {
    scoped_commands(tokens)
        .into_iter()
        .map(|(_, c)| c)
        .collect()
}

/// [`simple_commands`], each with the scopes it lies in (see [`Token::Scope`]), outermost
/// first, each by a number of its own (empty: the line's own): a `cd` moves the commands
/// after it in its scope, until the scope ends ([`Folders`]).
pub(super) fn scoped_commands(tokens: &[Token]) -> Vec<(Vec<u32>, Vec<String>)> {
    let mut out: Vec<(Vec<u32>, Vec<String>)> = Vec::new();
    let (mut scope, mut made) = (Vec::new(), 0u32);
    let mut cur: Vec<String> = Vec::new();
    let mut target = false;
    let mut wrapped = false;
    let mut prefix = String::new();
    let mut value = false;
    let mut duration = false;
    // `command -v NAME`: a lookup, which runs nothing (review 19, a15).
    let mut lookup = false;
    for (i, t) in tokens.iter().enumerate() {
        let w = match t {
            Token::End | Token::Scope(_) => {
                out.push((scope.clone(), std::mem::take(&mut cur)));
                (target, wrapped, value, lookup) = (false, false, false, false);
                match t {
                    Token::Scope(true) => {
                        made += 1;
                        scope.push(made);
                    }
                    Token::Scope(false) => {
                        scope.pop();
                    }
                    _ => {}
                }
                continue;
            }
            Token::Input => {
                target = true;
                continue;
            }
            Token::Word(w) => w,
        };
        if std::mem::take(&mut target) || lookup {
            continue;
        }
        // The tokenizer gives the value of `NAME=VALUE` (or `--opt=VALUE`) as a word of its
        // own just before it.
        let value_of_next = matches!(tokens.get(i + 1), Some(Token::Word(n)) if n.split_once('=').is_some_and(|(_, v)| v == w));
        if value_of_next {
            continue;
        }
        if cur.is_empty() {
            let assignment = w.split_once('=').is_some_and(|(k, _)| {
                !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            });
            if std::mem::take(&mut value) && wrapped {
                continue;
            }
            // `timeout`'s first operand is its duration, whatever it looks like (`inf`).
            let operand = if prefix == "timeout" {
                !w.starts_with('-') && std::mem::take(&mut duration)
            } else {
                w.chars().next().is_some_and(|c| c.is_ascii_digit())
            };
            let wrapper_arg = wrapped && (w.starts_with('-') || operand);
            if wrapped && prefix == "command" && matches!(w.as_str(), "-v" | "-V") {
                lookup = true;
                continue;
            }
            if assignment || wrapper_arg {
                // An option's value is the next word (`timeout -s KILL 10 sh …`).
                value = wrapper_arg && prefix_option(&prefix, w) == Some(true);
                continue;
            }
            if WRAPPERS.contains(&name_of(w).as_str()) {
                wrapped = true;
                prefix = name_of(w);
                duration = prefix == "timeout";
                continue;
            }
        }
        cur.push(w.clone());
    }
    out.push((scope, cur));
    out.retain(|(_, c)| !c.is_empty());
    out
}

/// The folder the commands of a line run in, as its `cd`s move it: one taken inside a
/// scope (a subshell, `sh -c '…'`, quoted text read as a line) holds until the scope ends
/// (review 78, 11 and 26: `cd out; echo 'x; cd ../tests'; pytest -q` runs pytest in `out`).
pub(super) struct Folders {
    /// Each open scope, outermost first, with the folder at its start.
    saved: Vec<(u32, std::path::PathBuf)>,
}

impl Folders {
    /// No scope open yet.
    pub(super) fn new() -> Self {
        Folders { saved: Vec::new() }
    }

    /// Before a command in `scope` ([`scoped_commands`]): `dir` as it was when each scope
    /// the command is out of began; each scope it enters starts from `dir`.
    pub(super) fn at(&mut self, scope: &[u32], dir: &mut std::path::PathBuf) {
        let kept = (self.saved.iter().zip(scope))
            .take_while(|((open, _), s)| open == *s)
            .count();
        while self.saved.len() > kept {
            if let Some((_, d)) = self.saved.pop() {
                *dir = d;
            }
        }
        for &s in &scope[kept..] {
            self.saved.push((s, dir.clone()));
        }
    }
}

/// How a simple command hands an interpreter program text (see [`program_text`]).
#[derive(Debug, PartialEq)]
pub(super) enum Fed {
    /// Not at all.
    No,
    /// From stdin, or inline code that may run any text it reads: every file the line
    /// names may be the grader; and the literals its loader calls take, whether node
    /// resolves them (as for [`Fed::Loads`]).
    Any(Vec<String>, bool),
    /// Inline code that loads modules only: the literals of the loader calls'
    /// arguments; whether node resolves them.
    Loads(Vec<String>, bool),
}

/// Whether simple command `words` runs program text an interpreter reads from stdin or
/// from inline code that loads a file (see the module doc): `eval …`; an interpreter given
/// no script operand, or `-`, `-s`, `/dev/stdin`; an interpreter's `-c` / `-e` code that
/// holds one of [`TEXT_RUNNERS`] or [`MODULE_LOADERS`].
pub(super) fn runs_program_text(words: &[String]) -> bool {
    program_text(words) != Fed::No
}

/// How simple command `words` hands an interpreter program text (see
/// [`runs_program_text`]).
pub(super) fn program_text(words: &[String]) -> Fed {
    let name = name_of(&words[0]);
    if name == "eval" {
        return Fed::Any(Vec::new(), false);
    }
    if matches!(name.as_str(), "source" | ".") {
        return Fed::No;
    }
    // The one reading of an interpreter's words (review 11): every code word is read.
    let args: Vec<&str> = words.iter().map(String::as_str).collect();
    let Some(family) = super::invoke::family(&name) else {
        return Fed::No;
    };
    let Ok(inv) = super::invoke::invocation(&args) else {
        // A line gate cannot read is refused when it is a `check:` line.
        return Fed::No;
    };
    match inv.runs {
        super::invoke::Runs::Stdin => Fed::Any(Vec::new(), false),
        super::invoke::Runs::Code(codes) => {
            let perl = family == super::invoke::Family::Perl;
            let mut literals = Vec::new();
            for &k in &codes {
                literals.extend(loader_arguments(&words[k]));
            }
            let node = matches!(
                family,
                super::invoke::Family::Node
                    | super::invoke::Family::Deno
                    | super::invoke::Family::Bun
            );
            if codes.iter().any(|&k| runs_text(&words[k], perl)) {
                return Fed::Any(literals, node);
            }
            if literals.is_empty() {
                return Fed::No;
            }
            Fed::Loads(literals, node)
        }
        _ => Fed::No,
    }
}

/// Whether inline code may run any text it reads from a file (see [`TEXT_RUNNERS`]).
pub(super) fn runs_text(code: &str, perl: bool) -> bool {
    TEXT_RUNNERS.iter().any(|l| code.contains(l))
        // Perl runs a command through these too (review 11, a14).
        || (perl
            && (code.contains("readpipe")
                || code.contains("qx")
                || (code.contains("open") && code.contains('|'))))
}

/// When `line` hands an interpreter its program as text (see the module doc), every
/// existing file the line names anywhere in its text (a word, or a path-like piece of a
/// quoted string such as `open('graders/grade')`) beneath `cwd` or `plan_dir`, and every
/// file beneath a folder it names so; links resolved. Otherwise nothing.
pub(super) fn text_fed_paths(
    plan_dir: &Path,
    line: &CommandLine,
    cwd: &Path,
    env: &[(String, String)],
) -> Vec<PathBuf> {
    let tokens = tokens_of(line, env);
    let mut any = false;
    let mut loaded = Vec::new();
    let mut node = false;
    for c in simple_commands(&tokens) {
        match program_text(&c) {
            Fed::No => {}
            Fed::Any(l, n) => {
                any = true;
                loaded.extend(l);
                node |= n;
            }
            Fed::Loads(l, n) => {
                loaded.extend(l);
                node |= n;
            }
        }
    }
    // What the loader calls load (review 13, b10; with text runners, every word of the
    // line too, below): node's spelling resolved as node resolves it (b03:
    // `require("./lib/checker")` loads `lib/checker.js`).
    let mut candidates = Vec::new();
    for l in loaded {
        if node && let Some(p) = node_resolve(cwd, &l) {
            candidates.push(p.to_string_lossy().into_owned());
        }
        // Ruby's `require_relative "lib/x"` loads `lib/x.rb`.
        if Path::new(&l).extension().is_none() {
            candidates.push(format!("{l}.rb"));
        }
        candidates.push(l);
    }
    for t in tokens.into_iter().filter(|_| any) {
        if let Token::Word(w) = t {
            // An include folder glued to its option (`perl -Igraders -e 'require q(g.pl)'`).
            candidates.extend(w.strip_prefix("-I").map(str::to_string));
            candidates.extend(
                w.split(|c: char| !(c.is_alphanumeric() || "._-/+@%,".contains(c)))
                    .map(str::to_string),
            );
            candidates.push(w);
        }
    }
    let real = |p: &Path| std::fs::canonicalize(p).ok();
    let bases: Vec<PathBuf> = [cwd, plan_dir].into_iter().filter_map(real).collect();
    let Some(cwd_real) = real(cwd) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for c in candidates {
        if c.is_empty() || c.contains(['$', '*', '?', '[', '~', '`']) {
            continue;
        }
        let Some(p) = real(&cwd.join(&c)) else {
            continue;
        };
        let beneath = bases.iter().any(|b| p.starts_with(b) && &p != b);
        // The task's own folder (or one above it) is the task's, not a grader.
        if !beneath || cwd_real.starts_with(&p) {
            continue;
        }
        if p.is_dir() {
            files_under(&p, &mut found);
        } else if p.is_file() {
            found.push(p);
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    found.retain(|f| seen.insert(f.clone()));
    found
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Whether `text` names git as a word (`git diff`, `["git", "diff"]`, `spawnSync('git')`):
/// a check line that starts git from inline code or through another program reads a
/// repository too (review 20, 06 and 07), so gate treats it as one that runs git.
pub(super) fn mentions_git(text: &str) -> bool {
    mentions_word(text, "git")
}

/// The first of `words` (each of ASCII letters, digits and `_` only) that `text` holds as
/// [`mentions_word`] finds it, in one pass over `text` however many words are asked (a
/// grader folder's large data files are read by several such lists: session 25).
///
/// Such a word is held where a longest run of letters, digits and `_` equals it and no `-`
/// follows: exactly where `mentions_word` finds it (nothing of the run before it, nothing
/// of the run or a `-` after it).
pub(super) fn mentions_any<'a>(text: &str, words: &[&'a str]) -> Option<&'a str> {
    debug_assert!(
        words
            .iter()
            .all(|w| !w.is_empty() && w.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_'))
    );
    let longest = words.iter().map(|w| w.len()).max()?;
    let inner = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let b = text.as_bytes();
    let mut held = vec![false; words.len()];
    let mut i = 0;
    while i < b.len() {
        if !inner(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && inner(b[i]) {
            i += 1;
        }
        if i - start <= longest && b.get(i) != Some(&b'-') {
            let run = &b[start..i];
            for (k, w) in words.iter().enumerate() {
                held[k] |= w.as_bytes() == run;
            }
        }
    }
    words.iter().zip(held).find(|(_, h)| *h).map(|(w, _)| *w)
}

/// Whether `text` holds `word` not inside a longer name (`pytest` in `import pytest`, not
/// in `pytest_x` or `mypytest`).
pub(super) fn mentions_word(text: &str, word: &str) -> bool {
    let b = text.as_bytes();
    text.match_indices(word).any(|(i, _)| {
        let before = i.checked_sub(1).map(|k| b[k]);
        let after = b.get(i + word.len()).copied();
        !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
            && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
    })
}

/// Why JavaScript `code` calls `createRequire` with more than the file's own place, if it
/// does: `createRequire(process.cwd() + "/")` resolves packages from a folder of the code's
/// choosing, its `package.json` the trial's (review 27, 03g). The name imported as it is
/// (`import { createRequire } from "node:module"`) or declared as itself (`const
/// createRequire = module.createRequire;`) is no call, and a whole-line `//` comment is no
/// code (reviews 30, 18; 31, 26); a rename (`createRequire: cr`) or any other use is
/// refused as a call of an unknown argument would be. The argument must be the file itself
/// and nothing more (`import.meta.url + "/../.."` resolves elsewhere), by URL or by path.
pub(super) fn create_require_problem(code: &str) -> Option<String> {
    let declared = |l: &str| {
        [
            "const createRequire =",
            "let createRequire =",
            "var createRequire =",
        ]
        .iter()
        .any(|d| l.starts_with(d))
            && l.trim_end()
                .trim_end_matches(';')
                .ends_with("createRequire")
            && l.matches("createRequire").count() == 2
    };
    let code: String = code
        .lines()
        .map(str::trim_start)
        .filter(|l| !l.starts_with("//") && !declared(l))
        .collect::<Vec<_>>()
        .join("\n");
    let mut rest = code.as_str();
    while let Some(k) = rest.find("createRequire") {
        let after = rest[k + "createRequire".len()..].trim_start();
        let imported = after.starts_with('}') || after.starts_with(',');
        let arg = after.strip_prefix('(').map(str::trim_start).unwrap_or("");
        let own = [
            "__filename",
            "import.meta.url",
            "fileURLToPath(import.meta.url)",
        ]
        .iter()
        .any(|a| {
            arg.strip_prefix(a)
                .is_some_and(|r| r.trim_start().starts_with(')'))
        });
        if !(imported || own) {
            return Some(
                "`createRequire` of anything but `__filename` or `import.meta.url` (it \
                 resolves packages from a folder gate does not follow)"
                    .into(),
            );
        }
        rest = &rest[k + 1..];
    }
    None
}

/// Node's own modules, which no `node_modules` shadows.
pub(super) const NODE_BUILTINS: &[&str] = &[
    "assert",
    "async_hooks",
    "buffer",
    "child_process",
    "cluster",
    "console",
    "constants",
    "crypto",
    "dgram",
    "diagnostics_channel",
    "dns",
    "domain",
    "events",
    "fs",
    "http",
    "http2",
    "https",
    "inspector",
    "module",
    "net",
    "os",
    "path",
    "perf_hooks",
    "process",
    "punycode",
    "querystring",
    "readline",
    "repl",
    "stream",
    "string_decoder",
    "sys",
    "timers",
    "tls",
    "trace_events",
    "tty",
    "url",
    "util",
    "v8",
    "vm",
    "wasi",
    "worker_threads",
    "zlib",
    "test",
];

/// The names JavaScript `code` requires or imports as a literal: `require("x")`,
/// `import("x")`, `import "x"`, `from "x"`, with whitespace, comments, parentheses or an
/// escaped quote (code inside a string) between the keyword and the literal (review 17,
/// e08, e14: `require ("x")`, `require\n("x")`, `require(("x"))`).
pub(super) fn module_names(code: &str) -> Vec<String> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    for (from, k) in ident_words(&c) {
        let word: String = c[from..k].iter().collect();
        if !matches!(word.as_str(), "require" | "import" | "from") {
            continue;
        }
        // `Array.from("…")` is no import.
        if word != "require" && from > 0 && c[from - 1] == '.' {
            continue;
        }
        let mut j = k;
        loop {
            match (c.get(j), c.get(j + 1)) {
                (Some(x), _) if x.is_whitespace() || *x == '(' => j += 1,
                // `require?.("x")` (review 35, 67a).
                (Some('?'), Some('.')) => j += 2,
                (Some('\\'), Some('"' | '\'' | '`')) => j += 1,
                (Some('/'), Some('*')) => {
                    j += 2;
                    while j < c.len() && !(c[j] == '*' && c.get(j + 1) == Some(&'/')) {
                        j += 1;
                    }
                    j += 2;
                }
                (Some('/'), Some('/')) => {
                    while j < c.len() && c[j] != '\n' {
                        j += 1;
                    }
                }
                _ => break,
            }
        }
        let Some(&q) = c.get(j).filter(|x| matches!(x, '"' | '\'' | '`')) else {
            continue;
        };
        let mut e = j + 1;
        while e < c.len() && c[e] != q {
            e += 1;
        }
        let name: String = c[j + 1..e.min(c.len())].iter().collect();
        out.push(name.trim_end_matches('\\').to_string());
    }
    out
}

/// Whether JavaScript `code` loads a module by a name it computes, which no reading of the
/// text can tell: `require(name)`, `require.resolve(name)`, `import(name)`, a template
/// literal with `${…}` in their place (review 33, 39i: `const n = "eq"; require(n)`;
/// review 32, 30a), `require` used as a value (`const load = require`, `names.map(require)`,
/// `require.call(…)`: review 34, 52a, 52b, 52h), a function `createRequire` made (52o, 52p),
/// or node's loader itself (`Module._load`, `_resolveFilename`: 52g). A literal, in any
/// quotes, is [`module_names`]' (so is `require()`), and so is a path the code builds from
/// its own place (`path.join(__dirname, …)`, `` `./cases/${n}.json` ``, `new URL("./x.mjs",
/// import.meta.url)`: review 34, 54a-54d), which names no package ([`built_path_load`]
/// says whether there is one). `typeof require`, `require.main` and `require.cache` load
/// nothing; `require?.(…)` is a call.
pub(super) fn computed_module_load(code: &str) -> bool {
    scan_loads(code, false)
}

/// Whether JavaScript `code` loads a file by a path it builds (`require(path.join(__dirname,
/// f))`, `require("./" + name)`, `` import(`./${n}.mjs`) ``, `import(new URL(…))`): which
/// file that is no reading of the text can tell, so any file beside it may be one it runs
/// (review 35, 60a-60g).
pub(super) fn built_path_load(code: &str) -> bool {
    scan_loads(code, true)
}

/// Whether `name`, loaded or preloaded by node, is node's own: one of its modules (`fs`,
/// `node:test`, `fs/promises`) or one of its test reporters, no package looked up in a
/// `node_modules`.
pub(super) fn node_own(name: &str) -> bool {
    let top = name.trim_start_matches("node:");
    let top = top.split('/').next().unwrap_or(top);
    name.starts_with("node:")
        || NODE_BUILTINS.contains(&top)
        || super::invoke::NODE_REPORTERS.contains(&name)
}

/// The argument lists a grader file's text gives node, each starting with `node`: the words
/// after each start of node, to the end of its command, as [`super::invoke::invocation`]
/// reads a check line's.
///
/// Scripts start node in more spellings than a check line (review 36, 70a-70n; reviews 37
/// and 38, 80a-80z, 90a-90q): by a variable (`"$NODE" -r …`, `NODE_BIN=$(command -v node)`,
/// Python's `shutil.which("node")`), after `\` line breaks, with options that take values
/// before `-r` (`--title grader`), from Python (`subprocess.run(["node", "-r", …])`, one
/// argument a line) or JavaScript (`spawnSync(process.execPath, [⏎ "-r", …])`), in a
/// command substitution, a subshell, a shebang (`#!/usr/bin/env -S node -r …`) or a
/// wrapper function. See [`logical_words`] for how a text is cut into commands. A start
/// of node is a word named `node` or `nodejs`, `execPath`, `argv0`, `process.argv`,
/// `execArgv`, a `NODE_OPTIONS` value, a variable whose value names one of those, or a
/// function whose body starts node. A variable's words are spliced where node's arguments
/// use it (`node $OPTS`, `*preload`, `...flags`, `"${args[@]}"`): every value the text
/// gives it, appended to (`cmd += […]`, `args.push(…)`) or set again; an expansion of a
/// variable the text never sets may be empty, and is left out. Other programs' `-r` (`rm
/// -r`, `read -r`) are not node's.
pub(super) fn node_argument_lists(text: &str) -> Vec<Vec<String>> {
    let lines = logical_words(text);
    let bare = |w: &str| w.trim_start_matches(['$', '*', '.']).to_string();
    let mut vars: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for words in &lines {
        let skip = match words.first().map(String::as_str) {
            Some("export" | "const" | "let" | "var" | "local" | "readonly" | "declare") => 1,
            _ => 0,
        };
        let w = |k: usize| words.get(skip + k).map_or("", String::as_str);
        let name = bare(w(0));
        // `NAME = …`, `NAME += …`, `NAME.push(…)`, `NAME.extend(…)`, `NAME.append(…)`.
        let value_at = if w(1) == "=" {
            Some(2)
        } else if w(1) == "+" && w(2) == "=" {
            Some(3)
        } else {
            None
        };
        if let Some(at) = value_at
            && is_name(&name)
        {
            let value = words[skip + at..].iter().take_while(|v| *v != END).cloned();
            vars.entry(name).or_default().extend(value);
        }
        for (k, word) in words.iter().enumerate() {
            // `set -- -r x` sets the arguments `"$@"` gives (review 37, 80c).
            if word == "set" && words.get(k + 1).is_some_and(|w| w == "--") {
                let value = words[k + 2..].iter().take_while(|v| *v != END).cloned();
                vars.entry("@".to_string()).or_default().extend(value);
            }
            if let Some((var, method)) = word.rsplit_once('.')
                && matches!(method, "push" | "extend" | "append" | "unshift" | "concat")
                && words.get(k + 1).is_some_and(|c| c == CALL)
                && is_name(var)
            {
                let value = words[k + 2..].iter().take_while(|v| *v != END).cloned();
                vars.entry(var.to_string()).or_default().extend(value);
            }
        }
    }
    let direct = |w: &str| {
        let name = w.rsplit('/').next().unwrap_or(w).to_ascii_lowercase();
        name == "node"
            || name == "nodejs"
            || w.contains("execPath")
            || w.contains("argv0")
            || w.contains("execArgv")
            || w == "process.argv"
            || w.ends_with("NODE_OPTIONS")
    };
    // A variable whose value names node (`NODE_BIN=$(command -v node)`: review 38, 90c,
    // 90d).
    let node_vars: Vec<&String> = (vars.iter())
        .filter(|(_, v)| v.iter().any(|w| direct(w)))
        .map(|(k, _)| k)
        .collect();
    let node = |w: &str| direct(w) || node_vars.iter().any(|v| **v == bare(w));
    // A function whose body starts node is a start of node too (`run_node() { node "$@";
    // }`, `function run_node { … }`: review 37, 80z; review 38, 90k).
    let wrappers: Vec<&str> = (lines.iter())
        .flat_map(|words| {
            (0..words.len().saturating_sub(1))
                .filter(|&k| {
                    (words[k + 1] == CALL && is_name(&words[k]))
                        || (k > 0 && words[k - 1] == "function" && is_name(&words[k]))
                })
                .filter(|&k| words[k + 1..].iter().any(|w| node(w)))
                .map(|k| words[k].as_str())
                .collect::<Vec<_>>()
        })
        .collect();
    let mut out = Vec::new();
    for words in &lines {
        for (i, w) in words.iter().enumerate() {
            if !(node(w) || wrappers.contains(&w.as_str())) {
                continue;
            }
            // `NODE_OPTIONS` and `execArgv` give options only; an expression may go on past
            // `||` there.
            let options = w.ends_with("NODE_OPTIONS") || w.contains("execArgv");
            let mut args = vec![if options { OPTIONS } else { "node" }.to_string()];
            let rest = &words[i + 1..];
            let mut skip_next = false;
            for (k, a) in rest.iter().enumerate() {
                if a == END || (a == OR && !options) {
                    break;
                }
                if std::mem::take(&mut skip_next) || a == OR {
                    continue;
                }
                if a == REDIRECT || a == REDIRECT_OUT {
                    skip_next = rest.get(k + 1).is_none_or(|n| n != a);
                    continue;
                }
                // A substitution's value is a preload's value only right after the option.
                if a == SUB {
                    if args
                        .last()
                        .is_some_and(|l| PRELOAD_FLAGS.contains(&l.replace('_', "-").as_str()))
                    {
                        args.push(SUB.to_string());
                    }
                    continue;
                }
                // `process.argv[0]` is node itself (review 38, 90e).
                if k == 0 && w == "process.argv" && a == "0" {
                    continue;
                }
                // `"--require " + PRELOAD` joins strings; `=` and `@` are punctuation here
                // (`"$@"` is the arguments `set --` gave, where it gave some).
                if a == "@"
                    && let Some(value) = vars.get("@")
                {
                    args.extend(value.iter().cloned());
                    continue;
                }
                if matches!(a.as_str(), "+" | "=" | "@" | CALL) {
                    continue;
                }
                // A call's value is code's, no package's name (`os.path.join(…)`).
                if !a.starts_with('-') && rest.get(k + 1).is_some_and(|n| n == CALL) {
                    args.push(CALL.to_string());
                    continue;
                }
                match vars.get(&bare(a)) {
                    // A value that is a call's is code's (`SETUP = os.path.join(…)`: review
                    // 39, 96a, 96b, 96p).
                    Some(value) => {
                        for (j, v) in value.iter().enumerate() {
                            if matches!(v.as_str(), "+" | "=" | CALL | SUB | REDIRECT | OR | PIPE) {
                                continue;
                            }
                            if value.get(j + 1).is_some_and(|n| n == CALL) {
                                args.push(CALL.to_string());
                            } else {
                                args.push(v.clone());
                            }
                        }
                    }
                    // An expansion the text never sets may be empty (review 38, 90p).
                    None if a.starts_with('$') => {}
                    None => args.push(a.clone()),
                }
            }
            out.push(args);
        }
    }
    out
}

/// The word [`logical_words`] puts after a call's name.
const CALL: &str = "%call%";
/// The word [`logical_words`] puts where a command ends (`;`, `|`, `&`).
const END: &str = "%end%";
/// The word [`logical_words`] puts for `||`.
const OR: &str = "%or%";
/// The word [`logical_words`] puts for `$(`.
const SUB: &str = "%sub%";
/// The word [`logical_words`] puts for `<`.
const REDIRECT: &str = "%in%";
/// The word [`logical_words`] puts for `>`.
const REDIRECT_OUT: &str = "%out%";
/// The word [`logical_words`] puts after the [`END`] of a `|`.
const PIPE: &str = "%pipe%";
/// The first word of an argument list of [`node_argument_lists`] that gives node options
/// only (`NODE_OPTIONS`, `execArgv`), no program.
const OPTIONS: &str = "%options%";

/// The words of each logical line of a grader file's text, for [`node_argument_lists`]:
/// whole-line comments dropped (a shebang kept), `\` line breaks and line breaks inside
/// brackets joined, and a line cut at blanks, quotes and the punctuation scripts put
/// between arguments. `;`, `|` and `&` give the word [`END`]; `NAME=VALUE` gives `NAME`,
/// `=`, `VALUE` (an option's `--opt=VALUE` stays one word); a call's name is followed by
/// the word [`CALL`] (`os.path.join(…)` is code, not a package's name). A variable keeps
/// its `$` (`$NODE`); one followed by a path is a path (`$PWD/graders/setup.js` gives
/// `./PWD/graders/setup.js`: review 38, 93i, 93j); a parameter expansion with a default
/// (`${DEBUG:+--trace-warnings}`) gives its words after the operator.
fn logical_words(text: &str) -> Vec<Vec<String>> {
    // Whole-line comments out first: one may hold a bracket (review 36, 75d: `# was: node
    // -r dotenv/config …`).
    let code: Vec<&str> = text
        .lines()
        .enumerate()
        .filter(|(i, l)| {
            let l = l.trim_start();
            !((l.starts_with('#') && !(*i == 0 && l.starts_with("#!"))) || l.starts_with("//"))
        })
        .map(|(_, l)| l)
        .collect();
    let code = code.join("\n").replace("\\\n", " ");
    // Line breaks inside brackets go on with the line; a call's `(` is a word of its own.
    let mut depth = 0usize;
    let mut joined = String::with_capacity(code.len());
    let mut prev = ' ';
    // `${NAME…}` is read as `$NAME…`: its closing brace is dropped (review 39, 96e).
    let mut brace_var = false;
    // The quote a string is open with, for a Python string's prefix.
    let mut quote: Option<char> = None;
    let chars: Vec<char> = code.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied().unwrap_or(' ');
        // A Python string's prefix (`f"{HERE}/setup.js"`, `rb'…'`) is no word of its own
        // (review 39, 96c: the `f` was read as a package's name).
        if (c == '"' || c == '\'') && prev != '\\' {
            match quote {
                None => {
                    quote = Some(c);
                    let tail: String = joined
                        .chars()
                        .rev()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    let before = joined.chars().rev().nth(tail.len());
                    if (1..=2).contains(&tail.len())
                        && tail.chars().all(|c| "fFrRbBuU".contains(c))
                        && !tail.eq_ignore_ascii_case("bb")
                        && !before.is_some_and(|b| b == '-' || b == '.' || b == '$' || b == '/')
                    {
                        for _ in 0..tail.len() {
                            joined.pop();
                        }
                    }
                }
                Some(q) if q == c => quote = None,
                Some(_) => {}
            }
        }
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        match c {
            '\n' if depth > 0 => joined.push(' '),
            '{' if prev == '$' => brace_var = true,
            '}' if brace_var => brace_var = false,
            // `$(…)` is a command substitution: its value is no package's name (review 39,
            // 96d2: `-r "$(realpath graders/setup.js)"`).
            '(' if prev == '$' => joined.push_str(" %sub% "),
            '(' if is_ident(prev) => joined.push_str(" %call% "),
            // `||` goes on with an expression in JavaScript (review 39, 97q).
            '|' if next == '|' || prev == '|' => joined.push_str(" %or% "),
            '|' => joined.push_str(" %end% %pipe% "),
            ';' | '&' => joined.push_str(" %end% "),
            // A redirection and its file are no argument (`node <<EOF`, `node x.js < f`).
            '<' => joined.push_str(" %in% "),
            '>' if prev != '=' && prev != '-' => joined.push_str(" %out% "),
            '=' if prev != '=' && prev != '!' && prev != '<' && prev != '>' => {
                joined.push_str(" = ")
            }
            _ => joined.push(c),
        }
        prev = c;
    }
    joined
        .lines()
        .map(|line| {
            let mut words: Vec<String> = Vec::new();
            for w in line.split(|c: char| c.is_whitespace() || "()[]{},\"'`\\".contains(c)) {
                let w = w.trim_end_matches(':');
                // `${X:+--flag}`, `${X:-"-r x"}`: the words after the operator.
                let w = [":+", ":-", ":="]
                    .iter()
                    .find_map(|op| w.split_once(op).map(|(_, v)| v))
                    .unwrap_or(w);
                // `$PWD/…` is a path; a lone `$` (of `$(`, `${`, `$'`) is nothing.
                let w = match w.strip_prefix('$') {
                    Some(v) if v.contains('/') => format!("./{v}"),
                    Some("") => continue,
                    _ => w.to_string(),
                };
                if w.is_empty() {
                    continue;
                }
                // `--opt = VALUE` was one word: glue it back.
                if words.len() >= 2
                    && words[words.len() - 1] == "="
                    && words[words.len() - 2].starts_with('-')
                {
                    words.pop();
                    let opt = words.pop().unwrap_or_default();
                    words.push(format!("{opt}={w}"));
                    continue;
                }
                words.push(w);
            }
            words
        })
        .collect()
}

/// Whether `v` can be a package's name as a preload gives it (`dotenv/config`,
/// `@scope/x`): npm's characters, a letter among them, not a path, not node's own.
fn preload_package(v: &str) -> bool {
    !v.is_empty()
        && !v.starts_with(['.', '/', '-', '_', '%', '$'])
        && v.chars().any(|c| c.is_ascii_alphabetic())
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || "@/._-~".contains(c))
        && !node_own(v)
}

/// Node's preload options: `--experimental_loader` is `--experimental-loader` to node
/// (review 38, 90l).
const PRELOAD_FLAGS: [&str; 6] = [
    "-r",
    "--require",
    "--import",
    "--loader",
    "--experimental-loader",
    "--test-reporter",
];

/// The value of the preload option at `a[k]`, if it is one (`-r X`, `--require=X`).
fn preload_value(a: &[String], k: usize) -> Option<String> {
    let w = a[k].replace('_', "-");
    if PRELOAD_FLAGS.contains(&w.as_str()) {
        // A call's value is code (`"--require " + path.join(…)`): its name is [`CALL`]
        // in node's arguments already.
        return a.get(k + 1).cloned();
    }
    PRELOAD_FLAGS.iter().find_map(|f| {
        w.strip_prefix(f)
            .and_then(|v| v.strip_prefix('='))
            .map(|_| a[k][f.len() + 1..].to_string())
    })
}

/// The words of `args` (from [`node_argument_lists`]) that are node's own: up to what it
/// runs, or its leading options where it runs nothing named (`node --version`: review 38,
/// 93c, 93m), or all of them where the reading fails.
fn node_options_end(args: &[String]) -> usize {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    match super::invoke::invocation(&a) {
        Ok(inv)
            if matches!(
                inv.runs,
                super::invoke::Runs::Nothing | super::invoke::Runs::Stdin
            ) =>
        {
            let mut k = 1;
            while k < a.len() {
                if preload_value(args, k).is_some() && !a[k].contains('=') {
                    k += 2;
                } else if a[k].starts_with('-') {
                    k += 1;
                } else {
                    break;
                }
            }
            k.min(a.len())
        }
        Ok(inv) => inv.rest.min(a.len()),
        Err(_) => a.len(),
    }
}

/// The packages a grader file's text preloads into node by name (`node -r dotenv/config`,
/// `--import tsx`, `--test-reporter=@scope/x`, `NODE_OPTIONS="--require x"`): node
/// resolves each from the folder it runs in, reading the nearest `package.json` there first
/// (review 35, 61a-61c). Read from [`node_argument_lists`] as a check line's options are.
/// Paths, node's own modules and its own test reporters are not packages.
pub(super) fn bare_preloads(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for args in node_argument_lists(text) {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut values: Vec<String> = Vec::new();
        if let Ok(inv) = super::invoke::invocation(&a) {
            values.extend(
                (inv.loads.iter())
                    .filter(|(_, _, path)| !path)
                    .map(|(_, v, _)| v.clone()),
            );
        }
        values.extend((0..node_options_end(&args)).filter_map(|k| preload_value(&args, k)));
        for v in values {
            if preload_package(&v) && !out.contains(&v) {
                out.push(v);
            }
        }
    }
    // `… | xargs node`: node's arguments come from what the line pipes in (review 38,
    // 90m), so every preload option on that line counts.
    for words in logical_words(text) {
        let xargs = words.iter().position(|w| w == "xargs");
        if xargs.is_some_and(|x| {
            (words[x + 1..].iter()).any(|w| matches!(w.as_str(), "node" | "nodejs"))
        }) {
            for v in (0..words.len()).filter_map(|k| preload_value(&words, k)) {
                if preload_package(&v) && !out.contains(&v) {
                    out.push(v);
                }
            }
        }
    }
    out
}

/// Whether JavaScript `code` (comments out) reaches a function's constructor, which runs a
/// string as code like `Function` does, without naming it: `(async () => {}).constructor`,
/// `f["constructor"]` (review 39, 97a, 97b). `x.constructor.name` only reads a name.
pub(super) fn reaches_a_constructor(code: &str) -> bool {
    let b = code.as_bytes();
    // Called, or kept (`… .constructor;`, `,`): compared (`a.constructor !== b.constructor`,
    // review 41, 100aa) or read (`.constructor.name`) it runs nothing.
    let dotted = code.match_indices(".constructor").any(|(i, m)| {
        let after = code[i + m.len()..].trim_start();
        !b.get(i + m.len())
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
            && (after.starts_with('(') || after.starts_with(';') || after.starts_with(','))
    });
    dotted || code.contains("\"constructor\"") || code.contains("'constructor'")
}

/// How [`literal_preloads`] reads a grader file's bare words: in a shell script a bare word
/// is a literal (`-r dotenv/config`); in JavaScript, Python or JSON it is a name or a
/// number, and only quoted text is literal.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Lang {
    Shell,
    Code,
}

/// Programs whose `-r` (or `--import`, …) is an option of their own, not node's preload
/// (`rm -r build`, `grep -r x .`, `jq -r .a`, `sed -r`, `xargs -r`, `[ -r f ]`, `gpg
/// --import`, `ruby -r json`, `cargo build -r`).
const OWN_R: &[&str] = &[
    "[",
    "[[",
    "test",
    "rm",
    "cp",
    "mv",
    "ln",
    "grep",
    "egrep",
    "fgrep",
    "rgrep",
    "rg",
    "ag",
    "ack",
    "git",
    "read",
    "pip",
    "pip3",
    "uv",
    "pipx",
    "poetry",
    "conda",
    "pytest",
    "sort",
    "ls",
    "chmod",
    "chown",
    "chgrp",
    "rsync",
    "scp",
    "zip",
    "unzip",
    "gzip",
    "gunzip",
    "diff",
    "tar",
    "du",
    "date",
    "touch",
    "uname",
    "sed",
    "awk",
    "gawk",
    "mawk",
    "jq",
    "yq",
    "curl",
    "wget",
    "ssh",
    "xargs",
    "pnpm",
    "make",
    "ruby",
    "irb",
    "bundle",
    "gem",
    "perl",
    "php",
    "shellcheck",
    "find",
    "head",
    "tail",
    "cut",
    "uniq",
    "wc",
    "tr",
    "cat",
    "less",
    "mkdir",
    "setfacl",
    "pgrep",
    "pkill",
    "kill",
    "ps",
    "stat",
    "readlink",
    "realpath",
    "docker",
    "podman",
    "apt",
    "apt-get",
    "dpkg",
    "cargo",
    "gpg",
    "gpg2",
    "openssl",
    "tree",
    "hostname",
    "declare",
    "typeset",
    "local",
    "readonly",
    "export",
    "echo",
    "printf",
    "xxd",
    "hexdump",
    "od",
    "split",
    "shuf",
    "column",
    "nl",
    "fold",
    "iconv",
    "base64",
    "patch",
    "cmp",
    "sha256sum",
    "md5sum",
    "convert",
    "ffmpeg",
    "mysql",
    "psql",
    "sqlite3",
    "redis-cli",
];

/// The packages a grader file's text (comments out) names as the value of a preload option
/// anywhere, read word by word rather than as node's arguments (review 40): a preload
/// option given literally (`-r`, `--require`, `--import`, `--loader`,
/// `--experimental-loader`, `--test-reporter`, `_` for `-`, or glued with `=`), then a
/// literal value that can be a package's name. Where the text builds node's arguments does
/// not matter: in a list put together in pieces (`args.unshift("-r", "x")`,
/// `cmd.insert(1, "--require=x")`, `FLAGS+=(-r x)`, `declare -a F=(-r x)`, a `local`, a
/// typed Python assignment, a list inside a function), in a variable of any name, or for a
/// node started by a name gate does not follow (`$RUN`, `process.argv.at(0)`): review 39,
/// 97c-97x. Not counted: the option of another program that comes first in its command
/// ([`OWN_R`]), one after node's script (that script's own argument: `node a.js -r x`), and
/// a value that is not literal (`["-r", setup]`, `"--require " + path.join(…)`, `"$X"`).
pub(super) fn literal_preloads(text: &str, lang: Lang) -> Vec<String> {
    #[derive(PartialEq)]
    enum W {
        Lit(String),
        Bare(String),
        Sep,
        // `&&`, `||` (and `&`, `|`): a command ends there too.
        AndOr,
        // `NAME=` (`+=`): what follows is a value, whatever came before.
        Assign,
    }
    let mut toks: Vec<W> = Vec::new();
    let chars: Vec<char> = text.replace("\\\n", " ").chars().collect();
    let mut depth = 0usize;
    let mut i = 0;
    let mut word_now = String::new();
    let flush = |bare: &mut String, toks: &mut Vec<W>| {
        if !bare.is_empty() {
            let mut w = std::mem::take(bare);
            // `NAME:` of an object or a typed assignment is a name.
            if w.ends_with(':') {
                w.pop();
            }
            toks.push(if lang == Lang::Shell && !w.starts_with('$') {
                W::Lit(w)
            } else {
                W::Bare(w)
            });
        }
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\'' | '"' | '`' => {
                flush(&mut word_now, &mut toks);
                let mut j = i + 1;
                let mut s = String::new();
                while j < chars.len() && chars[j] != c {
                    if chars[j] == '\\' && !(lang == Lang::Shell && c == '\'') {
                        j += 1;
                    }
                    if let Some(&d) = chars.get(j) {
                        s.push(d);
                    }
                    j += 1;
                }
                // A quoted string is literal text, cut at blanks as a shell would cut
                // `$OPTS` or a command string (`"--require dotenv/config"`).
                toks.extend(s.split_whitespace().map(|p| W::Lit(p.to_string())));
                i = j + 1;
                continue;
            }
            '(' | '{' => depth += 1,
            '[' => {
                depth += 1;
                // `[ -r f ]` is the shell's test.
                if lang == Lang::Shell {
                    flush(&mut word_now, &mut toks);
                    toks.push(W::Bare("[".to_string()));
                }
            }
            ')' | ']' | '}' => {
                depth = depth.saturating_sub(1);
                // A shell `case` pattern (`-r) VERBOSE=1 ;;`) is no option with a value.
                if c == ')' && lang == Lang::Shell {
                    flush(&mut word_now, &mut toks);
                    toks.push(W::Bare(")".to_string()));
                }
            }
            '=' if !word_now.starts_with('-')
                && chars.get(i + 1) != Some(&'=')
                && i > 0
                && !"=!<>".contains(chars[i - 1]) =>
            {
                flush(&mut word_now, &mut toks);
                if matches!(toks.last(), Some(W::Lit(_) | W::Bare(_))) {
                    toks.push(W::Assign);
                }
            }
            _ => {}
        }
        let sep = matches!(c, ';' | '|' | '&') || (c == '\n' && depth == 0);
        // `=` ends a name (`NAME=value`), not an option's value (`--require=x`).
        let glue = c == '=' && word_now.starts_with('-');
        if sep || (!glue && (c.is_whitespace() || "()[]{},<>=+*".contains(c))) {
            flush(&mut word_now, &mut toks);
            if sep && !matches!(toks.last(), Some(W::Sep | W::AndOr)) {
                toks.push(if c == '&' || c == '|' {
                    W::AndOr
                } else {
                    W::Sep
                });
            }
        } else {
            word_now.push(c);
        }
        i += 1;
    }
    flush(&mut word_now, &mut toks);
    fn word(t: &W) -> Option<&str> {
        match t {
            W::Lit(w) | W::Bare(w) => Some(w.as_str()),
            W::Sep | W::AndOr | W::Assign => None,
        }
    }
    let node_start = |w: &str| {
        let n = name_of(w).to_ascii_lowercase();
        n == "node"
            || n == "nodejs"
            || w.contains("execPath")
            || w.contains("argv0")
            || w.contains("execArgv")
            || w.ends_with("NODE_OPTIONS")
    };
    let mut out: Vec<String> = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        let W::Lit(flag) = t else { continue };
        let f = flag.replace('_', "-");
        let value = if PRELOAD_FLAGS.contains(&f.as_str()) {
            match toks.get(k + 1) {
                Some(W::Lit(v)) => v.clone(),
                _ => continue,
            }
        } else if let Some(v) = PRELOAD_FLAGS.iter().find_map(|p| {
            f.strip_prefix(p)
                .and_then(|v| v.strip_prefix('='))
                .map(|_| flag[p.len() + 1..].to_string())
        }) {
            v
        } else {
            continue;
        };
        if !preload_package(&value) || out.contains(&value) {
            continue;
        }
        // In a shell script an option first after `&&` or `||` is no program's: a test's
        // operand (`[[ -f a && -r f ]]`: review 41, 100ae). First on a line it may be a
        // here-document's (`read -r NODE_OPTIONS <<EOF` ⏎ `-r x`: review 38, 90j).
        if lang == Lang::Shell && matches!(k.checked_sub(1).map(|j| &toks[j]), Some(W::AndOr)) {
            continue;
        }
        // Back to the start of the command: node's option, unless another program's comes
        // first, or node's script does.
        let mut theirs = false;
        for (j, back) in toks[..k].iter().enumerate().rev() {
            // A value assigned is node's arguments in the making (`FLAGS=(-r x)`,
            // `declare -a F=(…)`, `env["NODE_OPTIONS"] = "--require x"`).
            let Some(w) = word(back) else { break };
            if node_start(w) {
                break;
            }
            // A file an earlier preload names is no script (`-r ./setup.js -r x`).
            let preloaded = j > 0
                && word(&toks[j - 1])
                    .is_some_and(|p| PRELOAD_FLAGS.contains(&p.replace('_', "-").as_str()));
            // A script is the program, or node's (`python3 prep.py -r x`, `node a.js -r x`:
            // review 41, 100ah).
            let script = [
                "js", "mjs", "cjs", "ts", "mts", "cts", "py", "sh", "bash", "rb", "pl", "php",
                "lua",
            ]
            .iter()
            .any(|e| w.ends_with(&format!(".{e}")));
            if OWN_R.contains(&bare(&name_of(w))) || (script && !preloaded) {
                theirs = true;
                break;
            }
        }
        if !theirs {
            out.push(value);
        }
    }
    out
}

/// The words of a grader file's text that may name what node runs as a program given as
/// text, if it gives node one: inline code (`-e`, `--eval`, `-p`, glued or not: review 37,
/// 80r; review 38, 91b, 91d), whose words are the code's; or a program on node's standard
/// input (`… | node`, `… | timeout 10 node`, `node <<EOF`, `node - < f`: review 38, 91a,
/// 91e; review 39, 97e, 97f, 97s, 97y), where any word of the text may name it. A node
/// that runs a script (`cat out.json | node graders/check.js`: review 39, 96g) gives none.
pub(super) fn node_code_words(text: &str) -> Option<Vec<String>> {
    let mut found = false;
    let mut words = Vec::new();
    for args in node_argument_lists(text) {
        if args[0] == OPTIONS {
            continue;
        }
        let end = node_options_end(&args);
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let code = matches!(
            super::invoke::invocation(&a).map(|i| i.runs),
            Ok(super::invoke::Runs::Code(_))
        ) || args[1..end].iter().any(|w| {
            ["-e", "--eval", "-p", "--print"]
                .iter()
                .any(|f| w == f || w.starts_with(&format!("{f}=")))
        });
        if code {
            found = true;
            words.extend(args[1..].iter().cloned());
        }
    }
    let lines = logical_words(text);
    // A variable set to node's name starts it too (`N=node; $N <<< "$CODE"`: review 39,
    // 97t).
    let node_names: Vec<String> = (lines.iter())
        .filter_map(|w| {
            let w = match w.first().map(String::as_str) {
                Some("export" | "local" | "readonly" | "declare" | "const" | "let" | "var") => {
                    &w[1..]
                }
                _ => &w[..],
            };
            (w.len() >= 3
                && w[1] == "="
                && (w[2..].iter()).any(|v| matches!(name_of(v).as_str(), "node" | "nodejs")))
            .then(|| w[0].to_ascii_lowercase())
        })
        .collect();
    let fed = lines.iter().any(|words| {
        (0..words.len()).any(|i| {
            let name = words[i].trim_start_matches('$').to_ascii_lowercase();
            if !(name == "node"
                || name == "nodejs"
                || (words[i].starts_with('$') && node_names.contains(&name)))
            {
                return false;
            }
            // Back over `timeout 10`, `exec`, `env`: a pipe.
            let mut k = i;
            while k > 0
                && (["timeout", "exec", "env", "nice", "command", "stdbuf"]
                    .contains(&words[k - 1].as_str())
                    || words[k - 1].starts_with('-')
                    || words[k - 1].chars().all(|c| c.is_ascii_digit() || c == '.'))
            {
                k -= 1;
            }
            let piped = k > 0 && words[k - 1] == PIPE;
            // On over node's options: a redirection in, or nothing at all after a pipe.
            let mut j = i + 1;
            while j < words.len() && (words[j].starts_with('-') && words[j] != "-") {
                j += 1;
            }
            let next = words.get(j).map(String::as_str);
            next == Some(REDIRECT)
                || (next == Some("-") && words.get(j + 1).is_none_or(|w| w == REDIRECT || w == END))
                || (piped && matches!(next, None | Some(END) | Some(OR)))
        })
    });
    if fed {
        found = true;
        words.extend(lines.into_iter().flatten());
    }
    found.then_some(words)
}

/// Whether a grader file's text gives node a program as text ([`node_code_words`]).
#[cfg(test)]
pub(super) fn gives_node_code(text: &str) -> bool {
    node_code_words(text).is_some()
}

/// The files node runs or preloads by path in a grader file's text, by the words that name
/// them ([`node_argument_lists`]): the script, and each option's file; with inline code or
/// a program on node's standard input, every word (`node -e "$(cat graders/inline.txt)"`,
/// `cat graders/inline.txt | node`: review 38, 91b, 91e).
pub(super) fn node_run_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    // What node runs as text may be any file the text names (review 38, 91b, 91e).
    if let Some(words) = node_code_words(text) {
        out.extend(words);
    }
    for args in node_argument_lists(text) {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        match super::invoke::invocation(&a) {
            Ok(inv) => {
                match inv.runs {
                    super::invoke::Runs::Script(k) => out.push(args[k].clone()),
                    super::invoke::Runs::Code(_) => out.extend(args[1..].iter().cloned()),
                    _ => {}
                }
                out.extend(inv.loads.iter().map(|(_, v, _)| v.clone()));
            }
            Err(_) => out.extend(args[1..].iter().cloned()),
        }
    }
    out
}

/// `text` with JavaScript's unicode escapes (`\u0065`, `\u{65}`) read as the characters
/// they stand for, wherever they are: an identifier may be spelled so (review 34, 52j:
/// `requir\u0065(n)` is `require(n)`), and a string is (`require("\u0065q")` loads `eq`).
pub(super) fn js_unescape(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("\\u") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("\\u") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let (hex, len) = match after.strip_prefix('{') {
            Some(b) => match b.find('}') {
                Some(e) if e <= 6 => (&b[..e], e + 2),
                _ => ("", 0),
            },
            None => (after.get(..4).unwrap_or(""), 4),
        };
        let c = (!hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()))
            .then(|| u32::from_str_radix(hex, 16).ok().and_then(char::from_u32))
            .flatten();
        match c {
            Some(c) => {
                out.push(c);
                rest = &after[len..];
            }
            None => {
                out.push_str("\\u");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// JavaScript `code` without its comments (`// …` to the end of the line, `/* … */`),
/// strings and template literals kept whole (a `//` inside `"http://x"` is no comment).
/// A regular expression literal holding a quote may throw the reading off; what is left is
/// only read for loads.
pub(super) fn strip_js_comments(code: &str) -> String {
    let c: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let mut k = 0;
    let mut quote: Option<char> = None;
    while k < c.len() {
        let ch = c[k];
        if let Some(q) = quote {
            out.push(ch);
            if ch == '\\' {
                if let Some(&n) = c.get(k + 1) {
                    out.push(n);
                }
                k += 2;
                continue;
            }
            if ch == q {
                quote = None;
            }
            k += 1;
            continue;
        }
        match (ch, c.get(k + 1)) {
            ('"' | '\'' | '`', _) => {
                quote = Some(ch);
                out.push(ch);
                k += 1;
            }
            ('/', Some('/')) => {
                while k < c.len() && c[k] != '\n' {
                    k += 1;
                }
            }
            ('/', Some('*')) => {
                k += 2;
                while k < c.len() && !(c[k] == '*' && c.get(k + 1) == Some(&'/')) {
                    k += 1;
                }
                k += 2;
                out.push(' ');
            }
            _ => {
                out.push(ch);
                k += 1;
            }
        }
    }
    out
}

/// [`computed_module_load`] (`paths` false) or [`built_path_load`] (`paths` true).
fn scan_loads(code: &str, paths: bool) -> bool {
    // Comments say nothing (review 36, 73f: `// --strict (require every key)`).
    let code = &strip_js_comments(code);
    if !paths
        && (code.contains("createRequire")
            || code.contains("_load(")
            || code.contains("_resolveFilename"))
    {
        return true;
    }
    let c: Vec<char> = code.chars().collect();
    // Whitespace and block comments, as node skips them between a name and its `(`.
    let skip = |mut j: usize| loop {
        while c.get(j).is_some_and(|x| x.is_whitespace()) {
            j += 1;
        }
        if c.get(j) == Some(&'/') && c.get(j + 1) == Some(&'*') {
            j += 2;
            while j < c.len() && !(c[j] == '*' && c.get(j + 1) == Some(&'/')) {
                j += 1;
            }
            j += 2;
        } else {
            return j;
        }
    };
    let text = |from: usize, n: usize| -> String {
        c[from.min(c.len())..(from + n).min(c.len())]
            .iter()
            .collect()
    };
    // The argument from `j` on names a path the code builds from its own place.
    let a_path = |j: usize| {
        let arg = text(j, 40);
        let literal_path =
            matches!(c.get(j), Some('"' | '\'' | '`')) && matches!(c.get(j + 1), Some('.' | '/'));
        literal_path
            || [
                "path.join(",
                "path.resolve(",
                "join(__dirname",
                "resolve(__dirname",
                "join(import.meta",
                "resolve(import.meta",
                "__dirname",
                "__filename",
                "new URL(",
                "fileURLToPath(",
                "url.fileURLToPath(",
                "pathToFileURL(",
                "url.pathToFileURL(",
                "import.meta.dirname",
                "import.meta.filename",
            ]
            .iter()
            .any(|p| arg.starts_with(p))
    };
    // The argument from `j` to its closing parenthesis, nested ones included.
    let argument = |j: usize| {
        let mut depth = 0usize;
        let mut e = j;
        while e < c.len() {
            match c[e] {
                '(' => depth += 1,
                ')' if depth == 0 => break,
                ')' => depth -= 1,
                _ => {}
            }
            e += 1;
        }
        c[j.min(c.len())..e].iter().collect::<String>()
    };
    // The argument at `j` is one string literal and nothing more (`"./x.js")`).
    let plain_literal = |j: usize| {
        let Some(&q) = c.get(j).filter(|x| matches!(x, '"' | '\'' | '`')) else {
            return false;
        };
        let mut e = j + 1;
        while e < c.len() && c[e] != q {
            if q == '`' && c[e] == '$' && c.get(e + 1) == Some(&'{') {
                return false;
            }
            e += 1;
        }
        matches!(c.get(skip(e + 1)), Some(')' | ','))
    };
    for (from, k) in ident_words(&c) {
        let word: String = c[from..k].iter().collect();
        let before: String = c[from.saturating_sub(7)..from].iter().collect();
        let mut j = skip(k);
        match word.as_str() {
            "require" => {
                if before.trim_end().ends_with("typeof") {
                    continue;
                }
                if c.get(j) == Some(&'.') {
                    let after = text(j, 12);
                    if [".main", ".cache", ".extensions"]
                        .iter()
                        .any(|p| after.starts_with(p))
                    {
                        continue;
                    }
                    if !after.starts_with(".resolve") {
                        // `require.call(…)`, `require.apply(…)`: a load gate cannot read.
                        if !paths && !after.starts_with(". ") {
                            return true;
                        }
                        continue;
                    }
                    if after.starts_with(".resolve") {
                        j = skip(j + ".resolve".len());
                    }
                }
                // `require?.(…)` is a call too (review 35, 67a, 67b).
                if c.get(j) == Some(&'?') && c.get(j + 1) == Some(&'.') {
                    j = skip(j + 2);
                }
                if c.get(j) != Some(&'(') {
                    // A property of that name (`pkg.require`) is no load. `require` handed
                    // on as a value is: after `=`, `(`, `[`, `,` or `:` (`const load =
                    // require`, `map(require)`, `[require, x]`), or before `)`, `;`, `]`,
                    // `[` (`require["resolve"]`). A word in prose is not ("we require node",
                    // "we require, answer": review 35, 63a, 63b).
                    let prev = c[..from].iter().rev().find(|x| !x.is_whitespace());
                    let value = matches!(prev, Some('=' | '(' | '[' | ',' | ':'))
                        || matches!(c.get(j), Some(')' | ';' | ']' | '['));
                    if value && !(from > 0 && c[from - 1] == '.') && !paths {
                        return true;
                    }
                    continue;
                }
            }
            // `import(…)` only: `import x from "y"` names a literal or nothing.
            "import" if !(from > 0 && c[from - 1] == '.') => {
                if c.get(j) != Some(&'(') {
                    continue;
                }
            }
            _ => continue,
        }
        if c.get(j) != Some(&'(') {
            continue;
        }
        j = skip(j + 1);
        if a_path(j) {
            // A plain literal path (`"./lib/grade.js"`) is [`module_names`]'; one the code
            // builds is not read, unless it is data (`path.join(__dirname,
            // "expected.json")`: review 36, 73c).
            if paths && !plain_literal(j) && !argument(j).contains(".json") {
                return true;
            }
            continue;
        }
        if paths {
            continue;
        }
        match c.get(j) {
            None | Some('"' | '\'' | ')') => {}
            Some('`') => {
                let mut e = j + 1;
                while e < c.len() && c[e] != '`' {
                    if c[e] == '$' && c.get(e + 1) == Some(&'{') {
                        return true;
                    }
                    e += 1;
                }
            }
            Some(_) => return true,
        }
    }
    false
}

/// `text` with the shell's spellings of a script's own folder as `.`: `$(dirname "$0")`,
/// `` `dirname $0` ``, `${0%/*}`, `$(dirname "${BASH_SOURCE[0]}")`, and `$(cd "…" && pwd)`
/// around one of them.
fn script_folder(text: &str) -> String {
    static SPELLINGS: std::sync::OnceLock<[regex::Regex; 2]> = std::sync::OnceLock::new();
    let [inner, outer] = SPELLINGS.get_or_init(|| {
        let me = r#"(?:\$0|\$\{0\}|\$\{BASH_SOURCE(?:\[0\])?\}|\$BASH_SOURCE)"#;
        [
            regex::Regex::new(&format!(
                r#"\$\(\s*dirname\s+(?:--\s+)?"?{me}"?\s*\)|`\s*dirname\s+(?:--\s+)?"?{me}"?\s*`|\$\{{(?:0|BASH_SOURCE(?:\[0\])?)%/\*\}}"#
            ))
            .expect("a valid pattern"),
            regex::Regex::new(r#"\$\(\s*cd\s+(?:-P\s+)?(?:--\s+)?"?\."?\s*(?:&&|;)\s*pwd(?:\s+-P)?\s*\)"#)
                .expect("a valid pattern"),
        ]
    });
    let once = inner.replace_all(text, ".");
    outer.replace_all(&once, ".").into_owned()
}

/// Folders a grader's text changes to by a literal name: a shell's `cd DIR` / `pushd DIR`
/// (in a script, or in a string a program hands a shell), JavaScript's `process.chdir("DIR")`
/// and a spawn option `cwd: "DIR"` / Python's `cwd="DIR"`. A name built at run time
/// (`$VAR`, a substitution, a glob, `~`) is not read: this is a reading of text, a net.
pub(super) fn folders_entered(text: &str) -> Vec<String> {
    let literal = |w: &str| {
        let w = w.trim_matches(|c| c == '"' || c == '\'');
        (!w.is_empty()
            && w != "-"
            && !w.contains(['$', '`', '*', '?', '[', '~', '(', ')', '"', '\'']))
        .then(|| w.to_string())
    };
    // `path.join(`, `join(`, `require("path").join(`, `os.path.join(`,
    // `path.posix.resolve(` (review 55, 30).
    static JOIN: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let join = JOIN.get_or_init(|| {
        regex::Regex::new(
            r#"^(?:[A-Za-z_$][\w$]*(?:\(\s*["'][\w:/.-]+["']\s*\))?\s*\.\s*)*(?:join|resolve)\("#,
        )
        .expect("a valid pattern")
    });
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with('#') || code.starts_with("//") {
            continue;
        }
        // A shell's `cd`: each simple command of the line (split at `&&`, `||`, `;`, `|`,
        // parentheses, braces, and quotes: `bash -c 'cd app && …'`, a JavaScript template
        // `` `cd app && …` ``), its first word after `builtin` or `command`; `env -C DIR`
        // and `env --chdir=DIR` too (review 54, 20).
        // Read once more with the quotes taken off and the script's own folder spelled
        // `.` (`cd "$(dirname "$0")/../app"`, `cd "${0%/*}/app"`: review 56, 50), which the
        // callers take from the grader's folder as well as from the check's.
        let bare = script_folder(code).replace(['"', '\''], "");
        for shell in [code, bare.as_str()] {
            for part in shell.split(['&', '|', ';', '(', ')', '{', '}', '\n', '\'', '"', '`']) {
                // After a shell keyword too: `if cd app; then …`, `! cd app || …` (review 55, 30).
                let words: Vec<&str> = part
                    .split_whitespace()
                    .skip_while(|w| {
                        // And after the assignments of the command (`ROOT=.. env -C app …`).
                        w.split_once('=').is_some_and(|(n, _)| is_name(n))
                            || matches!(*w, "builtin" | "command" | "exec")
                            || KEYWORDS_BEFORE_A_COMMAND.contains(w)
                    })
                    .collect();
                // A tool told where to work by an option: `make -C DIR`, `npm --prefix DIR`,
                // `npm -C DIR`, `yarn --cwd DIR`, `pnpm --dir DIR`, `git -C DIR` (review 55, 30);
                // only these tools: `grep -C 3` and `diff -C 1` give context lines (review 56,
                // H10).
                const TOOLS: &[&str] = &[
                    "env", "make", "gmake", "npm", "npx", "pnpm", "yarn", "git", "bun",
                ];
                let tool = words
                    .first()
                    .is_some_and(|w| TOOLS.contains(&w.rsplit('/').next().unwrap_or(w)));
                if tool {
                    for (i, w) in words.iter().enumerate().skip(1) {
                        let folder = match *w {
                            "-C" | "--prefix" | "--cwd" | "--dir" | "--directory" | "--chdir" => {
                                words.get(i + 1).copied()
                            }
                            _ => ["--prefix=", "--cwd=", "--dir=", "--directory=", "--chdir="]
                                .iter()
                                .find_map(|o| w.strip_prefix(o))
                                .or_else(|| w.strip_prefix("-C").filter(|f| !f.is_empty())),
                        };
                        out.extend(folder.filter(|f| !f.is_empty()).and_then(literal));
                    }
                }
                if let Some("cd" | "pushd") = words.first().copied() {
                    let folder = (words[1..].iter())
                        .find(|w| !w.is_empty() && (!w.starts_with('-') || **w == "-"));
                    out.extend(folder.and_then(|f| literal(f)));
                }
            }
        }
        // `process.chdir("build")`, `{cwd: "build"}`, `cwd="build"`, and a value joined
        // from literals (`cwd: path.join("..", "shared", "app")`, `__dirname` and
        // `process.cwd()` left out: both are places the names are read from).
        for key in ["chdir(", "cwd:", "cwd =", "cwd=", "cwd :"] {
            let mut rest = code;
            while let Some(at) = rest.find(key) {
                rest = &rest[at + key.len()..];
                let value = rest.trim_start();
                let joined = join.find(value).map(|m| &value[m.end()..]);
                if let Some(args) = joined {
                    let args = args.split(')').next().unwrap_or_default();
                    let mut parts = Vec::new();
                    let mut all = true;
                    for a in args.split(',').map(str::trim) {
                        if matches!(a, "__dirname" | "process.cwd(" | "") {
                            continue;
                        }
                        match a
                            .strip_prefix(['"', '\'', '`'])
                            .and_then(|x| x.strip_suffix(['"', '\'', '`']))
                        {
                            Some(x) => parts.push(x),
                            None => all = false,
                        }
                    }
                    if all && !parts.is_empty() {
                        out.extend(literal(&parts.join("/")));
                    }
                    continue;
                }
                let Some(quote) = value
                    .chars()
                    .next()
                    .filter(|c| matches!(c, '"' | '\'' | '`'))
                else {
                    continue;
                };
                let Some(end) = value[1..].find(quote) else {
                    continue;
                };
                out.extend(literal(&value[1..1 + end]));
            }
        }
    }
    // Each once, in the order found (the text is read twice: as written and bare).
    let mut seen = std::collections::HashSet::new();
    out.retain(|f| seen.insert(f.clone()));
    out
}

/// Options of node tools and node itself whose value is a file the tool loads or reads as
/// its configuration, whose name does not say so (`--file`, `--spec`, `tsc -p
/// tsconfig.ci.json`, `mocha --reporter ./r.js`): they count only for a node tool itself,
/// since a grader's own `--file result.txt` names its answer (review 55, H2). With
/// [`CONFIG_NAMED`], the options [`configs_named`] reads.
const CONFIG_OPTIONS: &[&str] = &[
    "-c",
    "--project",
    "-p",
    "-P",
    "--reporter",
    "--reporter-options",
    "--file",
    "--spec",
    "--reporters",
    "--filter",
    "--workspace",
    "--environment",
    // mocha reads the `"mocha"` key of `--package FILE`, and requires `--ui FILE` (review
    // 55, 21, 22).
    "--package",
    "--ui",
    "-u",
];

/// Options whose name says configuration, whatever program takes them (`mocha --config
/// x.js`, a grader script's own `--config ci.json`, `node --env-file .env.ci`).
const CONFIG_NAMED: &[&str] = &[
    "--config",
    "--config-file",
    "--configFile",
    "--tsconfig",
    "--opts",
    "--env-file",
    "--env-file-if-exists",
    "--nycrc-path",
    "--setupFiles",
    "--setup-files",
    "--setupFilesAfterEnv",
    "--globalSetup",
    "--globalTeardown",
    "--testEnvironment",
    "--resolver",
    "--transform",
    "--testRunner",
    "--testSequencer",
    "--testResultsProcessor",
    "--snapshotResolver",
    "--preset",
];

/// Of [`NODE_TOOLS`], those that run a script whose own arguments follow it (`node
/// check.js --file result.txt`): after the script, only [`CONFIG_NAMED`] options count.
const SCRIPT_RUNNERS: &[&str] = &[
    "node",
    "process.execPath",
    "nodejs",
    "bun",
    "deno",
    "tsx",
    "ts-node",
    "babel-node",
];

/// Files a grader's text (or a `check:` line) hands a node tool by an option
/// ([`CONFIG_OPTIONS`], [`CONFIG_NAMED`], node's preloads [`PRELOAD_FLAGS`]: a file only when spelled as a path, `-r ./setup.js`; a bare name is a package, which the packages wall watches) as a literal path (`--config x.js`,
/// `--config=x.js`, `["--config", "x.js"]`): the configuration wall compares them as it
/// compares the names it knows (review 50's open `--config x.js`: a configuration by a name
/// of the user's choosing in a folder the trials write). A value built at run time is not
/// read: a net, like [`folders_entered`].
pub(super) fn configs_named(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let code: Vec<&str> = text
        .lines()
        .map(str::trim_start)
        .filter(|c| !c.starts_with('#') && !c.starts_with("//"))
        .collect();
    // A command goes on past its line after a `\`, and an argument list past a line that
    // ends in `,`, `[` or `(` (review 55, 27, 28: `mocha \` then `-r ./setup.js`; a
    // JavaScript array one element a line): each such run is read as one line, short
    // options too.
    let mut logical: Vec<String> = Vec::new();
    let mut open = false;
    for c in &code {
        let line = c.trim_end();
        let (line, more) = match line.strip_suffix('\\') {
            Some(l) => (l, true),
            None => (line, line.ends_with([',', '[', '('])),
        };
        match logical.last_mut() {
            Some(last) if open => {
                last.push(' ');
                last.push_str(line);
            }
            _ => logical.push(line.to_string()),
        }
        open = more;
    }
    // A long option and its value may be on two lines however they are written: the whole
    // text is read once more as one stream, for long options only (review 54, 16).
    let joined = code.join(" ");
    for (code, long_only) in logical
        .iter()
        .map(|c| (c.as_str(), false))
        .chain([(joined.as_str(), true)])
    {
        // Each simple command of the line on its own: a short option (`-c`, `-p`, `-r`)
        // counts only after a node tool's name in it (`wc -c result.txt`, `mkdir -p out/x`
        // and `python3 -c …` hand no tool a configuration).
        for part in code.split(['&', '|', ';']) {
            // Split at blanks, and read once more with a quoted name kept whole (`--config
            // "ci config.json"`, review 55, 29).
            let plain: Vec<&str> = part
                .split(|c: char| c.is_whitespace() || matches!(c, ',' | '[' | ']' | '(' | ')'))
                .map(|w| w.trim_matches(|c: char| matches!(c, '"' | '\'' | '`')))
                // An assignment's quoted value: `NODE_OPTIONS="--require ./setup.js"` in a
                // grader script (review 55, 20).
                .map(|w| match w.split_once(['"', '\'']) {
                    Some((name, v)) if name.ends_with('=') && !name.starts_with('-') => v,
                    _ => w,
                })
                .filter(|w| !w.is_empty())
                .collect();
            let quoted = split_keeping_quotes(part);
            for words in [plain, quoted.iter().map(String::as_str).collect()] {
                named_in(&words, long_only, &mut out);
            }
        }
    }
    out
}

/// Words of `part` split at blanks and `,[]()` outside quotes, a quoted run kept whole
/// with its quotes taken off: `--config "ci config.json"` is two words.
fn split_keeping_quotes(part: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    for c in part.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if matches!(c, '"' | '\'' | '`') => quote = Some(c),
            None if c.is_whitespace() || matches!(c, ',' | '[' | ']' | '(' | ')') => {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
            }
            None => word.push(c),
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// The configurations `words` (one simple command) hand a node tool by an option
/// ([`configs_named`]), added to `out`; `long_only`: short options are not read.
fn named_in(words: &[&str], long_only: bool, out: &mut Vec<String>) {
    // A long option's value is taken whatever it looks like (`--config ci`: mocha reads a
    // file by that name, review 54, 14); a short option's only where it looks like a path.
    let clean = |w: &str, long: bool| -> Option<String> {
        let w = w.trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | ',' | ';' | '[' | ']'));
        let literal = !w.is_empty()
            && !w.starts_with('-')
            && !w.contains([
                '$', '`', '*', '?', '~', '(', ')', '{', '}', '"', '\'', '=', '<', '>',
            ]);
        (literal && (long || w.contains(['.', '/']))).then(|| w.to_string())
    };
    let mut tool = false;
    let mut runner = false;
    for (i, w) in words.iter().enumerate() {
        let name = w.rsplit('/').next().unwrap_or(w);
        if NODE_TOOLS.contains(&name) {
            tool = true;
            runner = SCRIPT_RUNNERS.contains(&name);
        } else if runner && !w.starts_with('-') && w.contains(['.', '/']) {
            // The script: what follows is its own arguments.
            (tool, runner) = (false, false);
        }
        let (option, glued) = match w.split_once('=') {
            Some((o, v)) if o.starts_with('-') => (o, Some(v)),
            _ => (*w, None),
        };
        let module = PRELOAD_FLAGS.contains(&option);
        let named = module || CONFIG_NAMED.contains(&option);
        if !named && !CONFIG_OPTIONS.contains(&option) {
            continue;
        }
        let long = option.starts_with("--");
        if (!named && !tool) || (!long && long_only) {
            continue;
        }
        let value = glued
            .filter(|v| !v.is_empty())
            .or_else(|| words.get(i + 1).copied())
            .and_then(|v| clean(v, long));
        let Some(value) = value.filter(|v| !matches!(v.as_str(), "." | "..") && !v.ends_with('/'))
        else {
            continue;
        };
        if module && !(value.starts_with('.') || value.starts_with('/')) {
            continue;
        }
        if !out.contains(&value) {
            out.push(value);
        }
    }
}

/// A configuration's text without the lists that name files a tool watches, runs as tests
/// or measures rather than loads (`spec`, `watch-files`, `include`, `testMatch`,
/// `collectCoverageFrom`, …), where the text is JSON: an agent's answer listed there is
/// its answer, not the tool's configuration (review 57, H20).
pub(super) fn loaded_text(text: &str) -> String {
    const LISTS: &[&str] = &[
        "spec",
        "watch-files",
        "watch-ignore",
        "watchFiles",
        "include",
        "exclude",
        "ignore",
        "files",
        "extension",
        "testMatch",
        "testRegex",
        "roots",
        "collectCoverageFrom",
        "coveragePathIgnorePatterns",
        "testPathIgnorePatterns",
        "modulePathIgnorePatterns",
        "watchPathIgnorePatterns",
        "all",
        "src",
    ];
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(o) => {
                o.retain(|k, _| !LISTS.contains(&k.as_str()));
                o.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(mut v) => {
            strip(&mut v);
            v.to_string()
        }
        Err(_) => text.to_string(),
    }
}

/// The relative paths a configuration's text quotes (`"./helper.js"`, `'../x/y'`): files
/// a configuration may load ([`super::state`]'s `named_configs`).
pub(super) fn relative_paths(text: &str) -> Vec<String> {
    static PATHS: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let paths = PATHS.get_or_init(|| {
        regex::Regex::new(r#"["'`](\.\.?/[^"'`\s$*?{}()<>|;&]{1,1024})["'`]"#)
            .expect("a valid pattern")
    });
    let mut out: Vec<String> = Vec::new();
    for c in paths.captures_iter(text) {
        let p = c[1].trim_end_matches('/').to_string();
        if !matches!(p.as_str(), "." | "..") && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// The names of node and the node tools whose short options [`configs_named`] reads.
const NODE_TOOLS: &[&str] = &[
    "node",
    // A JavaScript grader's own node: `spawnSync(process.execPath, ["-r", …])` (review 55, 28).
    "process.execPath",
    "nodejs",
    "npx",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "deno",
    "mocha",
    "_mocha",
    "jest",
    "vitest",
    "tsc",
    "ts-node",
    "tsx",
    "nyc",
    "c8",
    "ava",
    "tap",
    "jasmine",
    "karma",
    "eslint",
    "playwright",
    "cypress",
    "webpack",
    "vite",
    "rollup",
    "esbuild",
    "babel",
    "babel-node",
    "swc",
    "uvu",
];

/// Whether a variable of the environment chooses code or start-up files the programs of a
/// recipe load: `HOME` (a login shell's profile, `~/.config`), `ENV`, `PATH`,
/// `PYTHONPATH` and the interpreters' and loaders' own (review 87, 19 to 21).
pub(super) fn loads_code(name: &str) -> bool {
    matches!(
        name,
        "HOME"
            | "ENV"
            | "BASH_ENV"
            | "PATH"
            | "ZDOTDIR"
            | "GCONV_PATH"
            | "VIRTUAL_ENV"
            | "IPYTHONDIR"
            | "JUPYTER_PATH"
            | "GEM_HOME"
            | "GEM_PATH"
    ) || [
        "BASH_FUNC_",
        "PYTHON",
        "PYTEST_",
        "LD_",
        "NODE_",
        "NPM_CONFIG_",
        "PERL",
        "RUBY",
        "XDG_",
        "COVERAGE_",
        "PIP_",
        "UV_",
        "CONDA",
        "GIT_",
        "TOX_",
    ]
    .iter()
    .any(|p| name.to_ascii_uppercase().starts_with(p))
}

/// Words that open a compound command or a function, refused at a command's start.
pub(super) const COMPOUND: &[&str] = &[
    "for", "while", "until", "if", "then", "else", "elif", "fi", "do", "done", "case", "esac",
    "select", "function", "coproc",
];

/// Shell keywords a simple command's program may follow (`if cd app`, `! node --test`).
pub(super) const KEYWORDS_BEFORE_A_COMMAND: &[&str] = &[
    "if", "then", "else", "elif", "do", "while", "until", "!", "time",
];

/// Builtins that compute what runs, or where, when the line runs.
pub(super) const REFUSED_BUILTINS: &[&str] = &[
    "alias",
    "trap",
    "read",
    "mapfile",
    "readarray",
    "getopts",
    "shift",
    "declare",
    "typeset",
    "local",
    "let",
    "hash",
    "enable",
    "popd",
    "run-parts",
    "parallel",
    // `compgen -W`, `-C`, `-F` and `complete` expand or run text when the line runs
    // (review 94, 59, 60).
    "compgen",
    "complete",
];

/// Prefixes that run the command after their options (`timeout 10 sh grade`).
pub(super) const PREFIXES: &[&str] = &[
    "env", "command", "exec", "nice", "nohup", "time", "timeout", "stdbuf", "builtin", "sudo",
    "setsid", "ionice", "chrt", "unbuffer", "doas", "busybox",
];

/// The index of the program of simple command `words`: after its `NAME=value` words and
/// the command prefixes ([`PREFIXES`]) with their options, as the check line's reader
/// ([`super::grammar`]) reads them.
pub(super) fn program_index(words: &[&str]) -> Option<usize> {
    let mut i = 0;
    while words
        .get(i)?
        .split_once('=')
        .is_some_and(|(k, _)| is_name(k))
    {
        i += 1;
    }
    loop {
        let name = name_of(words.get(i)?);
        if !PREFIXES.contains(&name.as_str()) {
            return Some(i);
        }
        i += 1;
        let mut duration = name == "timeout";
        while let Some(t) = words.get(i) {
            let option = t.starts_with('-') && t.len() > 1;
            let operand = if name == "timeout" {
                !option && std::mem::take(&mut duration)
            } else {
                t.starts_with(|d: char| d.is_ascii_digit())
            };
            let assignment = name == "env" && t.split_once('=').is_some_and(|(k, _)| is_name(k));
            if !(option || operand || assignment) {
                break;
            }
            i += 1;
            if option && prefix_option(&name, t) == Some(true) {
                i += 1;
            }
        }
    }
}

/// Whether Python's `str.strip` strips `c`: Unicode's white space and the separators
/// `\x1c`-`\x1f`.
pub(super) fn python_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Whether Python's `str.splitlines` ends a line at `c` (`\r\n` is one end, of two).
pub(super) fn python_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r'
            | '\x0b'
            | '\x0c'
            | '\x1c'
            | '\x1d'
            | '\x1e'
            | '\u{85}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_any_finds_the_first_listed_word_as_mentions_word_does() {
        let words = ["npm", "pnpm", "node", "nodejs", "tox"];
        for (text, want) in [
            ("pnpm test", Some("pnpm")),
            ("run npm-test; nodejs x", Some("nodejs")),
            ("npm_x pnpm2 xnode tox", Some("tox")),
            ("é npm", Some("npm")),
            ("node-gyp", None),
            ("", None),
        ] {
            assert_eq!(mentions_any(text, &words), want, "{text}");
        }
    }

    /// The folder each command of `line` runs in, from `/w`, as the `cd` readings see it.
    fn folders_of(line: &str) -> Vec<(String, String)> {
        let mut dir = std::path::PathBuf::from("/w");
        let mut folders = Folders::new();
        let mut out = Vec::new();
        for (scope, words) in scoped_commands(&line_tokens(line, &[], 0)) {
            folders.at(&scope, &mut dir);
            if words[0] == "cd" {
                dir = dir.join(&words[1]);
                continue;
            }
            out.push((words[0].clone(), dir.display().to_string()));
        }
        out
    }

    #[test]
    fn a_cd_inside_a_scope_holds_until_the_scope_ends() {
        let at = |line: &str, program: &str| {
            folders_of(line)
                .into_iter()
                .find(|(p, _)| p == program)
                .map(|(_, d)| d)
                .unwrap()
        };
        // Review 78, 11 and 26: quoted data read as a line, and a subshell.
        assert_eq!(
            at("cd out; echo 'x; cd ../tests'; pytest -q", "pytest"),
            "/w/out"
        );
        assert_eq!(at("(cd tests); pytest -q", "pytest"), "/w");
        assert_eq!(at("(cd a); (cd b; make); pytest", "make"), "/w/b");
        assert_eq!(at("(cd a); (cd b; make); pytest", "pytest"), "/w");
        // Inside its scope a `cd` moves what follows; `eval` runs its text in the shell.
        assert_eq!(at("sh -c 'cd app && npm test'; pytest", "npm"), "/w/app");
        assert_eq!(at("sh -c 'cd app && npm test'; pytest", "pytest"), "/w");
        assert_eq!(at("eval 'cd out'; pytest -q", "pytest"), "/w/out");
        assert_eq!(at("cd a && (cd b && (cd c; x); y); z", "x"), "/w/a/b/c");
        assert_eq!(at("cd a && (cd b && (cd c; x); y); z", "y"), "/w/a/b");
        assert_eq!(at("cd a && (cd b && (cd c; x); y); z", "z"), "/w/a");
        // Review 79: a parenthesis in quoted text read as a line opens or closes no scope
        // around that text.
        assert_eq!(
            at(
                "cd tests && (cd ../out && echo 'a )' && pytest -q)",
                "pytest"
            ),
            "/w/tests/../out"
        );
        assert_eq!(
            at(
                "cd tests; echo '( x'; cd ../out; echo 'y )'; pytest -q",
                "pytest"
            ),
            "/w/tests/../out"
        );
        assert_eq!(
            at(
                "cd tests && sh -c 'cd ../out && echo \"a )\" && pytest -q'",
                "pytest"
            ),
            "/w/tests/../out"
        );
        assert_eq!(
            at(
                "(cd tests && echo 'ok :)' && cd unit && pytest -q)",
                "pytest"
            ),
            "/w/tests/unit"
        );
        // A stray `)` of the line itself closes nothing either.
        assert_eq!(at("cd out ) ; pytest -q", "pytest"), "/w/out");
    }

    #[test]
    fn parentheses_in_quoted_text_make_a_bounded_list_of_scopes() {
        // Review 79, 27: 64,000 `(` in quoted text made every command's list of scopes
        // as long as the text (gigabytes in all).
        let line = format!("cd tests; echo '{}'; pytest -q", "(x".repeat(64_000));
        let commands = scoped_commands(&line_tokens(&line, &[], 0));
        assert!(
            commands
                .iter()
                .all(|(scope, _)| scope.len() <= MAX_SCOPES + 1)
        );
        assert_eq!(folders_of(&line).last().unwrap().1, "/w/tests");
    }

    proptest::proptest! {
        /// The one pass finds what a search of each word finds, on texts made of the
        /// words' letters and every kind of boundary.
        #[test]
        fn mentions_any_is_mentions_word_of_each(text in "[npmodejsx_ 9é-]{0,40}") {
            let words = ["npm", "pnpm", "node", "nodejs", "x_9"];
            let each = words.iter().copied().find(|w| mentions_word(&text, w));
            proptest::prop_assert_eq!(mentions_any(&text, &words), each);
        }
    }
}
