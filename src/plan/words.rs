//! The words of a command line, as gate reads a `run` or `check` line to find what it runs
//! (issue 29): the words of the one lexer, [`super::grammar::lex`], which the allow-list of
//! `check:` lines reads too (quotes, escapes, continuations, the plan's `env:` values put in
//! and split as the shell does), the simple commands of a line, and the one question
//! review 7 (c07) added: does a line hand an interpreter its program as text (on stdin, or
//! as inline code that loads a file), so that every file it names may be the grader
//! ([`text_fed_paths`]).
//!
//! Only reading: no file is written, no process started. [`super::state`] decides what is
//! protected from these words, [`super::reach`] what is refused.

use std::path::{Path, PathBuf};

use super::CommandLine;

/// Programs whose first operand is a script they run, whatever its name or mode
/// (`sh grade`, `python3 -u grade`); a trailing version (`python3.12`) is ignored.
pub(super) const INTERPRETERS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "python", "pypy", "node", "nodejs",
    "perl", "ruby", "deno", "bun", "php", "lua", "luajit", "tclsh", "rscript", "julia", "elixir",
    "tsx", "ts-node", "source", ".",
];

/// At most this many files of a `-m module` package folder are protected (a larger package
/// is not a grader beside the plan; list what matters in `fixtures:`).
pub(super) const MAX_MODULE_FILES: usize = 1000;

/// A word of a command line, or the end of a simple command (`;`, `&&`, `|`, `>`, …), or
/// an input redirect (`<`: the next word is what it reads).
#[derive(Debug, PartialEq)]
pub(super) enum Token {
    Word(String),
    End,
    Input,
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
    "builtin",
];

/// Shells: `-s` makes them read their program from stdin.
const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"];

/// Inline code that holds one of these may run text it reads from a file (`$(cat F)`,
/// `exec(open(F).read())`, `require(F)`, `do F`): every file it names is a grader.
const LOADERS: &[&str] = &[
    "$(",
    "`",
    "<",
    "exec",
    "eval",
    "compile",
    "runpy",
    "import_module",
    "__import__",
    "require",
    "source",
    "do ",
    "Function(",
    // Starting a process that runs a named file (review 8).
    "subprocess",
    "system",
    "spawn",
    "popen",
    "child_process",
];

/// Shell text inside shell text (`sh -c '…'`, `$(…)`) is read at most this deep.
const MAX_DEPTH: usize = 8;

/// The words of `line` as the shell reads them (see [`tokens`]): a shell line through the
/// one lexer, [`super::grammar::lex`]; an argv's arguments as they are.
pub(super) fn tokens_of(line: &CommandLine, env: &[(String, String)]) -> Vec<Token> {
    match line {
        CommandLine::Shell(s) => line_tokens(s, env, 0),
        CommandLine::Argv(v) => {
            let mut out = Vec::new();
            for a in v {
                field(a, env, 0, &mut out);
            }
            out
        }
    }
}

/// The words of shell text `line`, read `depth` levels deep.
pub(super) fn line_tokens(line: &str, env: &[(String, String)], depth: usize) -> Vec<Token> {
    tokens(&super::grammar::lex(line, env).0, env, depth)
}

/// The words of the tokens the lexer made of a line (issue 29: the allow-list and what is
/// protected read the same tokens): each field the shell makes of a word (the plan's
/// `env:` values put in and split), with the value of `NAME=VALUE` or `--opt=VALUE` as a
/// word of its own before it; the end of a simple command for `;`, `&&`, `|`, `(`, `)`,
/// `{`, `}`, a newline and `>` (the written file starts a command of its own); `<`. A word
/// that may be a shell line of its own (`sh -c 'sh check'`) and the line a command
/// substitution runs are read as lines of their own after it.
pub(super) fn tokens(
    toks: &[super::grammar::Tok],
    env: &[(String, String)],
    depth: usize,
) -> Vec<Token> {
    use super::grammar::Tok;
    let mut out = Vec::new();
    let mut start = true;
    for t in toks {
        match t {
            Tok::Word(w) if w.raw == "{" || w.raw == "}" => end(&mut out),
            Tok::Word(w) if start && w.raw == "!" => {}
            Tok::Word(w) => {
                start = false;
                let mut read = false;
                for f in &w.fields {
                    read |= field(f, env, depth, &mut out);
                }
                // A field read as a line reads its substitutions with it.
                for s in w.subst.iter().filter(|_| !read && depth < MAX_DEPTH) {
                    end(&mut out);
                    out.extend(line_tokens(s, env, depth + 1));
                    end(&mut out);
                }
            }
            Tok::In => out.push(Token::Input),
            Tok::Sep | Tok::Pipe | Tok::Open | Tok::Close | Tok::Out => {
                end(&mut out);
                start = true;
            }
        }
    }
    out
}

/// One field of a word (see [`tokens`]); whether it was read as a line of its own.
fn field(f: &str, env: &[(String, String)], depth: usize, out: &mut Vec<Token>) -> bool {
    if let Some((_, value)) = f.split_once('=').filter(|(_, v)| !v.is_empty()) {
        out.push(Token::Word(value.to_string()));
    }
    out.push(Token::Word(f.to_string()));
    let shell = f.contains(|c: char| c.is_whitespace() || ";&|()<>{}".contains(c));
    if !shell || depth >= MAX_DEPTH {
        return false;
    }
    let toks = super::grammar::lex(f, env).0;
    // A field the lexer reads back as itself (`$(cat F)`) is no line of its own.
    if matches!(toks.as_slice(), [super::grammar::Tok::Word(w)] if w.fields == [f]) {
        return false;
    }
    end(out);
    out.extend(tokens(&toks, env, depth + 1));
    end(out);
    true
}

/// The end of a simple command (once).
fn end(out: &mut Vec<Token>) {
    if out.last() != Some(&Token::End) {
        out.push(Token::End);
    }
}

/// The simple commands of a line, each as its words from the command's name on (leading
/// `NAME=VALUE` words and wrappers such as `env` or `timeout 10` left out; the target of a
/// `<` redirect left out too).
pub(super) fn simple_commands(tokens: &[Token]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut cur: Vec<String> = Vec::new();
    let mut target = false;
    let mut wrapped = false;
    for (i, t) in tokens.iter().enumerate() {
        let w = match t {
            Token::End => {
                out.push(std::mem::take(&mut cur));
                (target, wrapped) = (false, false);
                continue;
            }
            Token::Input => {
                target = true;
                continue;
            }
            Token::Word(w) => w,
        };
        if std::mem::take(&mut target) {
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
            let wrapper_arg = wrapped
                && (w.starts_with('-') || w.chars().next().is_some_and(|c| c.is_ascii_digit()));
            if assignment || wrapper_arg {
                continue;
            }
            if WRAPPERS.contains(&name_of(w).as_str()) {
                wrapped = true;
                continue;
            }
        }
        cur.push(w.clone());
    }
    out.push(cur);
    out.retain(|c| !c.is_empty());
    out
}

/// A command word's program name: its last path component, lower-cased.
pub(super) fn name_of(word: &str) -> String {
    word.rsplit('/').next().unwrap_or(word).to_ascii_lowercase()
}

/// `python3.12` → `python`, `bash5` → `bash`: the name without a trailing version.
pub(super) fn bare(name: &str) -> &str {
    name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
}

pub(super) fn is_python(name: &str) -> bool {
    let b = bare(name);
    b.starts_with("python") || b.starts_with("pypy")
}

/// Whether simple command `words` runs program text an interpreter reads from stdin or
/// from inline code that loads a file (see the module doc): `eval …`; an interpreter given
/// no script operand, or `-`, `-s`, `/dev/stdin`; an interpreter's `-c` / `-e` code that
/// holds one of [`LOADERS`].
pub(super) fn runs_program_text(words: &[String]) -> bool {
    let name = name_of(&words[0]);
    if name == "eval" {
        return true;
    }
    let b = bare(&name);
    let interpreter = INTERPRETERS.contains(&name.as_str()) || INTERPRETERS.contains(&b);
    if !interpreter || matches!(name.as_str(), "source" | ".") {
        return false;
    }
    let shell = SHELLS.contains(&b);
    let python = is_python(&name);
    let mut args = words[1..].iter();
    while let Some(w) = args.next() {
        match w.as_str() {
            "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0" => return true,
            "--eval" | "--print" | "--command" => {
                return args.next().is_some_and(|code| loads_text(code));
            }
            _ => {}
        }
        if let Some(flags) = w.strip_prefix('-').filter(|f| !f.is_empty()) {
            if flags.starts_with('-') {
                // A long option (`--version` runs nothing; others take no program).
                return false;
            }
            if shell && flags.contains('s') {
                return true;
            }
            let inline = ((shell || python) && flags.ends_with('c'))
                || (!shell
                    && !python
                    && (flags.ends_with(['e', 'E']) || matches!(flags, "p" | "pe")));
            if inline {
                return args.next().is_some_and(|code| loads_text(code));
            }
            if python && flags.ends_with('m') {
                // A module: `python -m NAME` (see `refuse_python_cwd_on_sys_path`).
                return false;
            }
            if (python && matches!(flags, "W" | "X")) || (shell && flags == "o") {
                args.next();
            }
            continue;
        }
        // A script operand: `programs_named` takes it as the program.
        return false;
    }
    // No program named: the interpreter reads it from stdin.
    true
}

/// Whether inline code may run text it reads from a file (see [`LOADERS`]).
fn loads_text(code: &str) -> bool {
    LOADERS.iter().any(|l| code.contains(l))
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
    if !simple_commands(&tokens)
        .iter()
        .any(|c| runs_program_text(c))
    {
        return Vec::new();
    }
    let mut candidates = Vec::new();
    for t in tokens {
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
