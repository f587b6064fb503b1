//! The `check:` lines gate can follow (issue 29, review 8): an allow-list of shell forms.
//!
//! [`super::state`] protects the files a `check:` line runs by reading its words before the
//! run. Anything the shell (or the interpreter of inline code) resolves only when it runs
//! escapes that reading: a variable the line assigns (`G=graders/grade; sh $G`), `set --`
//! and positional parameters, a `for` loop, a glob naming the graders (`sh graders/*.sh`),
//! `env -C DIR`, command substitution building a path, `node -e
//! "require(process.cwd()+'/g.js')"`. A trial then rewrites the grader gate did not see,
//! and a wrong answer passes. So instead of guessing, gate accepts only the forms it follows
//! and refuses the rest when the plan is loaded (exit 2), in one line naming the construct.
//!
//! Accepted: simple commands joined by `&&`, `||`, `;`, `|` and newlines (grouped by `( … )`
//! or `{ …; }`), with redirections; literal words (quoted or escaped as the shell allows);
//! `$VAR` / `${VAR}` where the plan's `env:` gives the value, and in a data word also the
//! variables gate gives every trial (`TMPDIR`, `GATE_TRIAL`, …); leading `NAME=value`
//! assignments and `export NAME=value` (their search paths are checked in
//! [`super::reach`]); `cd DIR` with a literal folder; the prefixes `env` (literal options,
//! not `-C` or `-S`), `command`, `exec`, `nice`, `nohup`, `time`, `timeout`, `stdbuf`, …;
//! `set` with options only; the program-text forms of review 7 (c07: `sh -c "$(cat F)"`,
//! `eval "$(cat F)"`), whose named files are protected whole; in a data word, a command
//! substitution of a line gate follows (`[ $(wc -l < out) -eq 1 ]`) and the numbers `$!`,
//! `$?`, `$$`, `$#` (`sh graders/grade & wait $!`). A glob is refused where it
//! names a program, an interpreter's script or what a line feeds an interpreter as text,
//! and in a data word (`grep -q ok out/*.log`) only when it matches a script that exists.
//! Inline code (`python -c`, `node -e`, `perl -e`, …) is refused when a code-loading or
//! process-spawning call in it (`exec`, `__import__`, `importlib`, `subprocess`,
//! `require`, `import()`, `child_process`, `vm`, …) takes anything but string literals.
//!
//! The allow-list reads a line with the one lexer, [`super::words::lex`] (issue 29): what
//! [`super::state`] protects and [`super::reach`] checks are read from the same tokens
//! ([`super::words::tokens_of`]), so the words protected are the words the allow-list
//! accepted, with the plan's `env:` values put in and split as the shell does.
//!
//! Like the other refusals of [`super::reach`], this applies to the `check:` lines (a
//! task's and a compare task's base side) of a plan whose box is on.

use std::path::{Path, PathBuf};

use super::words::{
    COMPOUND, INTERPRETERS, PREFIXES, REFUSED_BUILTINS, Tok, Word, bare, is_name, lex, name_of,
    program_index, runs_program_text, simple_commands,
};
use super::{CommandLine, Plan, PlanError};

/// Variables gate sets for every trial: a data word may use them (`test -f "$TMPDIR/x"`).
const GATE_VARS: &[&str] = &[
    "TMPDIR",
    "GATE_TASK",
    "GATE_TRIAL",
    "GATE_ATTEMPT",
    "GATE_RUN_ID",
    "GATE_RESULT",
    "GATE_SIDE",
];

/// Programs whose own command language starts commands (`ex -c '!sh G'`, gdb's `shell`,
/// ed's `!`, ssh's `ProxyCommand`): review 14, c02, c34. What they run is not on the line.
const COMMAND_LANGUAGES: &[&str] = &[
    "ex",
    "vi",
    "vim",
    "nvim",
    "view",
    "rview",
    "rvim",
    "gvim",
    "evim",
    "emacs",
    "emacsclient",
    "gdb",
    "lldb",
    "expect",
    "ed",
    "red",
    "dc",
    "less",
    "more",
    "most",
    "ssh",
    "scp",
    "sftp",
    "watch",
    "screen",
    "tmux",
    "at",
    "batch",
    // `script -c CMD` runs a shell line gate does not read (review 17, e12); m4's
    // `syscmd`, sqlite3's `.shell` (e20, e48).
    "script",
    "m4",
    "sqlite3",
    "duckdb",
    "psql",
    "mysql",
];

/// Launchers whose options gate does not read, before the command they run (review 17,
/// e45: `taskset 1 sh lib/new.sh`): the command is not read as one.
const LAUNCHERS: &[&str] = &[
    "taskset",
    "setpriv",
    "prlimit",
    "setarch",
    "linux32",
    "linux64",
    "fakeroot",
    "strace",
    "ltrace",
    "valgrind",
    "ssh-agent",
    "dbus-run-session",
    "firejail",
    "bwrap",
    "unshare",
    "nsenter",
    "chroot",
    "runuser",
    "su",
    "sg",
    "flock",
    "catchsegv",
];

/// Whether `v`, the value of a `NAME=v` line of a sourced file, is a literal the shell
/// takes as it is: one quoted string with no expansion in it (`"postgres://h/db?x=1"`,
/// `'a b'`), or one unquoted word of plain characters, then at most a ` # comment` (review
/// 84, d08, d09).
fn literal_value(v: &str) -> bool {
    let comment_or_end = |rest: &str| {
        rest.is_empty()
            || (rest.starts_with([' ', '\t']) && {
                let r = rest.trim_start();
                r.is_empty() || r.starts_with('#')
            })
    };
    let v = v.trim_end();
    if let Some(inner) = v.strip_prefix('"') {
        return inner.find('"').is_some_and(|end| {
            !inner[..end].contains(['$', '`', '\\']) && comment_or_end(&inner[end + 1..])
        });
    }
    if let Some(inner) = v.strip_prefix('\'') {
        return inner
            .find('\'')
            .is_some_and(|end| comment_or_end(&inner[end + 1..]));
    }
    let end = v.find([' ', '\t']).unwrap_or(v.len());
    v[..end]
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_./:@%+,=-".contains(c))
        && comment_or_end(&v[end..])
}

/// `NAME=value` written as an assignment (the name unquoted).
fn is_assignment(w: &Word) -> bool {
    w.raw.split_once('=').is_some_and(|(k, _)| is_name(k))
}

/// An assignment `env` makes: env reads its arguments after the shell removed the quotes,
/// so `env 'PYTEST_ADDOPTS=-q -x' pytest` assigns as `env PYTEST_ADDOPTS=-q pytest` does.
/// The name must be written out (not expanded from a variable).
fn is_env_assignment(w: &Word) -> bool {
    is_assignment(w)
        || w.text.split_once('=').is_some_and(|(k, _)| {
            is_name(k) && w.raw.trim_start_matches(['\'', '"']).starts_with(k)
        })
}

/// `cat` of literal file names: the command substitution review 7 (c07) reads as program
/// text (`sh -c "$(cat graders/grade)"`), whose files gate protects whole.
fn cat_of_literal_files(inner: &str) -> bool {
    let mut words = inner.split_whitespace();
    words.next() == Some("cat")
        && words.clone().next().is_some()
        && words.all(|w| {
            let w = w.trim_matches(|c| c == '\'' || c == '"');
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_alphanumeric() || "._/-+@%,:".contains(c))
        })
}

/// One simple command: its words, and the words it reads (`<`) and writes (`>`).
#[derive(Default)]
struct Simple {
    words: Vec<Word>,
    reads: Vec<Word>,
    writes: Vec<Word>,
    /// The subshells (`( … )`, a pipeline's element, `&`) it runs in, outermost first,
    /// each by a number of its own: a `cd` in one of them moves only that subshell
    /// (review 11, a18).
    scope: Vec<usize>,
    /// The command before it pipes its output into it (`cat F | sh`).
    piped: bool,
    /// It follows `&&` (`Some(true)`) or `||` (`Some(false)`): it runs or not by the status
    /// of the commands before it.
    cond: Option<bool>,
}

/// The simple commands of `toks`, or the compound construct gate does not follow.
fn commands(toks: Vec<Tok>) -> Result<Vec<Simple>, String> {
    let mut out: Vec<Simple> = Vec::new();
    let mut cur = Simple::default();
    let mut redirect: Option<bool> = None;
    let mut scope: Vec<usize> = Vec::new();
    let mut next_scope = 0;
    let mut after_pipe = false;
    let mut cond: Option<bool> = None;
    // Where the list being read began in `out`, per `{ … }` or `( … )` level: `&` puts the
    // whole list (its `&&`/`||` chain, its groups) in one subshell (review 83, c03, c04:
    // `cd tests && true & pytest -q`, `{ cd tests; } & pytest -q`).
    let mut starts: Vec<usize> = vec![0];
    let fresh = |next_scope: &mut usize| {
        *next_scope += 1;
        *next_scope
    };
    for t in toks {
        match t {
            Tok::Word(w) => {
                if let Some(read) = redirect.take() {
                    if read {
                        cur.reads.push(w);
                    } else {
                        cur.writes.push(w);
                    }
                    continue;
                }
                if cur.words.is_empty() && w.raw == w.text {
                    if COMPOUND.contains(&w.text.as_str()) {
                        return Err(format!("the compound command `{}`", w.text));
                    }
                    if matches!(w.text.as_str(), "{" | "}" | "!") {
                        match w.text.as_str() {
                            "{" => starts.push(out.len()),
                            "}" if starts.len() > 1 => {
                                starts.pop();
                            }
                            _ => {}
                        }
                        continue;
                    }
                }
                cur.words.push(w);
            }
            Tok::Open if !cur.words.is_empty() => {
                return Err("a function definition (`name() { … }`)".into());
            }
            Tok::Sep | Tok::Cond(_) | Tok::Pipe | Tok::Open | Tok::Close | Tok::Bg => {
                cur.scope.clone_from(&scope);
                // A pipeline's elements and a background command run in subshells.
                cur.piped = after_pipe;
                // A newline (or `;`) right after `&&`/`||` ends an empty command: the
                // condition holds for the next command with words (review 82, b22-b24:
                // `false &&⏎cd tests⏎pytest -q`).
                let empty = cur.words.is_empty() && cur.reads.is_empty() && cur.writes.is_empty();
                cur.cond = cond;
                // So does an opening `(`: the group's first command carries the connector
                // before the group (review 83, c02: `false && cd tests; (pytest -q)`).
                cond = match t {
                    Tok::Cond(and) => Some(and),
                    Tok::Sep | Tok::Open if empty => cond,
                    _ => None,
                };
                if std::mem::take(&mut after_pipe) || matches!(t, Tok::Pipe | Tok::Bg) {
                    cur.scope.push(fresh(&mut next_scope));
                }
                after_pipe = matches!(t, Tok::Pipe);
                out.push(std::mem::take(&mut cur));
                if matches!(t, Tok::Bg) {
                    // The list's other commands share the subshell of its last one.
                    let at = scope.len();
                    let id = out.last().and_then(|c| c.scope.get(at).copied());
                    let from = starts.last().copied().unwrap_or(0);
                    let last = out.len() - 1;
                    if let Some(id) = id {
                        for c in &mut out[from..last] {
                            if c.scope.len() >= at && c.scope[..at] == scope[..] {
                                c.scope.insert(at, id);
                            }
                        }
                    }
                }
                match t {
                    Tok::Open => {
                        scope.push(fresh(&mut next_scope));
                        starts.push(out.len());
                    }
                    Tok::Close => {
                        scope.pop();
                        if starts.len() > 1 {
                            starts.pop();
                        }
                    }
                    Tok::Sep | Tok::Bg => {
                        if let Some(s) = starts.last_mut() {
                            *s = out.len();
                        }
                    }
                    _ => {}
                }
            }
            Tok::In => redirect = Some(true),
            Tok::Out => redirect = Some(false),
        }
    }
    cur.scope.clone_from(&scope);
    cur.piped = after_pipe;
    cur.cond = cond;
    if after_pipe {
        cur.scope.push(fresh(&mut next_scope));
    }
    out.push(cur);
    out.retain(|c| !c.words.is_empty() || !c.reads.is_empty() || !c.writes.is_empty());
    Ok(out)
}

/// What a check line is read with: the plan's `env:` names and the folder it runs in.
struct Reader<'a> {
    env: &'a [(String, String)],
    dir: PathBuf,
    /// Names the line assigns anywhere (`G=…`, `export G=…`): a `$G` of them is computed
    /// when the line runs.
    assigned: Vec<String>,
    /// The folders the trials write (`-X pycache_prefix` must lie outside them).
    roots: Vec<PathBuf>,
    /// The folders of the plan's own programs ([`super::programs::refused`]): the writable
    /// roots, the plan's folder and the repository that holds it. A program by a path
    /// elsewhere (`/root/.cargo/bin/rustup`) is an installed one, judged by its name.
    project: Vec<PathBuf>,
    /// The task's folder, whose `.git` gate holds read-only when a check line runs git
    /// ([`super::state::git_folders`]).
    task_dir: PathBuf,
    /// Commands of an enclosing line run after this text (`sh -c 'cd x'; sh g`): a `cd`
    /// here does not move them (review 11, a18).
    later_outside: bool,
    /// The `cd` folder that put the line in a folder a trial could replace with a link (one
    /// the trials write, below a writable root): a `..` after it leads where the link
    /// points (review 64, 03).
    replaceable: Option<String>,
    /// The writable folders in which no trial can make a link (a task's `writes:`): a
    /// folder below one is not [`Reader::replaceable`].
    linkless: Vec<PathBuf>,
}

impl Reader<'_> {
    /// The plan's own `env: PATH`, if it sets one.
    fn plan_path(&self) -> Option<&str> {
        self.env
            .iter()
            .rev()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.as_str())
    }

    fn planned(&self, var: &str) -> bool {
        self.env.iter().any(|(k, _)| k == var)
    }

    /// A word gate must know before the run: a program, an interpreter's script or option,
    /// a folder to change to, a word fed to an interpreter as its program.
    fn exact(&self, w: &Word, what: &str) -> Result<(), String> {
        if let Some(s) = w.subst.first() {
            return Err(format!("the command substitution `$({s})` as {what}"));
        }
        if let Some(v) = w.vars.iter().find(|v| !self.planned(v)) {
            return Err(format!(
                "`${v}` as {what}, a variable the plan's `env:` does not set"
            ));
        }
        if let Some(n) = w.specials.first() {
            return Err(format!(
                "the positional or special parameter `${n}` (its value is known only when the line runs)"
            ));
        }
        if w.glob {
            return Err(format!("the pattern `{}` as {what}", w.raw));
        }
        // The plan's value is expanded unquoted: the shell splits and globs it again
        // (review 10: `G: "graders/gr?de"`, `sh $G`).
        if let Some((k, _)) = self.env.iter().find(|(k, v)| {
            w.vars.contains(k) && v.contains(|c: char| "*?[{~".contains(c) || c.is_whitespace())
        }) {
            return Err(format!(
                "`${k}` as {what}, whose value the shell splits or matches as a pattern"
            ));
        }
        // A descriptor names whatever was opened on it (`exec 3<graders/grade; sh
        // /dev/fd/3`, review 10).
        // Any spelling of it (review 11, a09: `/dev//fd/3`, `/proc/self/./fd/3`; review 13,
        // b25: `/proc/self/root/dev/fd/3`), as the one resolution of a path reads it.
        let path = super::invoke::resolve(&w.text, &self.dir);
        let path = path.to_string_lossy();
        if super::invoke::is_descriptor(&path) && !super::invoke::is_stdin(&path) {
            return Err(format!("the descriptor `{}` as {what}", w.text));
        }
        Ok(())
    }

    /// A data word (`cmp -s out.txt expected.txt`): gate's variables, the numbers `$!`,
    /// `$?`, `$$`, `$#`, and a command substitution of a line gate follows may be in it, and
    /// a glob unless it matches a script that exists.
    fn data(&self, w: &Word) -> Result<(), String> {
        if let Some(s) = w.subst.iter().find(|s| !self.follows(s)) {
            return Err(format!("the command substitution `$({s})`"));
        }
        if let Some(v) =
            (w.vars.iter()).find(|v| !self.planned(v) && !GATE_VARS.contains(&v.as_str()))
        {
            return Err(format!(
                "`${v}`, a variable the plan's `env:` does not set (nor gate)"
            ));
        }
        if w.glob
            && w.vars.is_empty()
            && w.subst.is_empty()
            && let Some(script) = self.glob_names_a_script(&w.text)
        {
            return Err(format!(
                "the pattern `{}`, which matches the script `{}`",
                w.raw,
                script.display()
            ));
        }
        Ok(())
    }

    /// Whether `line`, which a data word's command substitution runs in a subshell, is one
    /// gate follows (review 10, a09: `[ $(wc -l < r) -eq 1 ]`): its output is data, and
    /// what it runs is protected as the words of any line are ([`super::words::tokens`]).
    fn follows(&self, line: &str) -> bool {
        let mut inner = Reader {
            env: self.env,
            dir: self.dir.clone(),
            assigned: self.assigned.clone(),
            roots: self.roots.clone(),
            project: self.project.clone(),
            task_dir: self.task_dir.clone(),
            later_outside: true,
            replaceable: self.replaceable.clone(),
            linkless: self.linkless.clone(),
        };
        inner.shell(line).is_ok()
    }

    /// An assignment `NAME=value`: a data word in which a variable the line does not assign
    /// is also allowed (`PATH=/usr/local/bin:$PATH`, `HOME=$HOME`: the value gate inherits
    /// from the CI step, which is not the plan's and is not checked, review 9, a05/a26); one
    /// the line assigns (`P=src; PYTHONPATH=$P`) is computed as it runs, and refused.
    fn value(&self, w: &Word) -> Result<(), String> {
        let named_ifs = |t: &str| t.split_once('=').is_some_and(|(k, _)| k == "IFS") || t == "IFS";
        if named_ifs(&w.raw) || named_ifs(&w.text) {
            // The shell splits an expanded value on it (review 11, a13).
            return Err("an `IFS` assignment (the shell splits the plan's values on it)".into());
        }
        // `PATH=/opt/bin:$PATH` reads the value before this assignment: its own name
        // counts only when the line assigns it elsewhere too.
        let own = (w.raw.split_once('=').filter(|(k, _)| is_name(k)))
            .or_else(|| w.text.split_once('='))
            .map(|(k, _)| k)
            .unwrap_or_default();
        let assigned = |v: &String| {
            let n = self.assigned.iter().filter(|a| *a == v).count();
            n > usize::from(v == own)
        };
        if let Some(v) = w.vars.iter().find(|v| assigned(v) && !self.planned(v)) {
            return Err(format!("`${v}`, a variable the line itself assigns"));
        }
        let mut inherited = w.clone();
        inherited.vars.clear();
        self.data(&inherited)
    }

    fn glob_names_a_script(&self, pattern: &str) -> Option<PathBuf> {
        if !pattern.contains(['*', '?', '[']) {
            return None;
        }
        let full = self.dir.join(pattern);
        let paths = glob::glob(full.to_str()?).ok()?;
        paths
            .flatten()
            .take(1000)
            .find(|p| super::state::is_program(p))
    }

    /// Each simple command of shell line `line` (see the module doc).
    fn shell(&mut self, line: &str) -> Result<(), String> {
        if line.contains('\r') {
            return Err("a carriage return (`\\r`) in the line".into());
        }
        let (toks, error) = lex(line, self.env);
        if let Some(why) = error {
            return Err(why);
        }
        // What is protected reads these same tokens (issue 29).
        let text_fed = simple_commands(&super::words::tokens(&toks, self.env, 0))
            .iter()
            .any(|c| runs_program_text(c));
        let cmds = commands(toks)?;
        for c in &cmds {
            for w in &c.words {
                // Any word that may assign, as the shell or `env` reads it (stricter: an
                // argument `k=v` of another command counts too).
                if let Some((k, _)) =
                    (w.raw.split_once('=').filter(|(k, _)| is_name(k))).or_else(|| {
                        is_env_assignment(w)
                            .then(|| w.text.split_once('='))
                            .flatten()
                    })
                {
                    self.assigned.push(k.to_string());
                }
            }
        }
        // An input redirection of a group, a subshell or the shell itself (`{ sh; } < F`,
        // `(sh) < F`, `exec < F; sh`) feeds every command in it: with an interpreter that
        // reads its program from stdin there, what it reads is not the command's own to
        // check (review 91, 24b-24d).
        let loose = cmds.iter().any(|c| {
            let texts: Vec<&str> = c.words.iter().map(|w| w.text.as_str()).collect();
            !c.reads.is_empty() && program_index(&texts).is_none()
        });
        if loose {
            for c in &cmds {
                if self.reads_program_on_stdin(&c.words)? {
                    return Err(
                        "an input redirection of a group, a subshell or `exec` (`{ sh; } < F`, \
                         `exec < F`) with an interpreter that reads its program from stdin"
                            .into(),
                    );
                }
            }
        }
        for (k, c) in cmds.iter().enumerate() {
            // What a command hands an interpreter as its program on stdin (`sh < F`, `cat F |
            // sh`, `awk -f - < F`), missing at load in a folder the trials write, is the
            // trial's to create (review 17, e16, e21).
            if self.reads_program_on_stdin(&c.words)? {
                let fed = "what the line feeds an interpreter on stdin";
                for r in &c.reads {
                    self.present(&r.text, fed, false, false)?;
                }
                let feeder = k.checked_sub(1).map(|p| &cmds[p]).filter(|_| c.piped);
                if let Some(p) = feeder {
                    self.feeder(p, fed)?;
                }
                self.python_fed(c, feeder)?;
            }
            // Commands after this one that run outside its subshells.
            let later =
                self.later_outside || cmds[k + 1..].iter().any(|d| !d.scope.starts_with(&c.scope));
            // Inline shell code of this command (`sh -c 'cd graders'`) is a subshell that
            // every later command runs outside.
            let after = self.later_outside || k + 1 < cmds.len();
            // A `cd` after `&&` or `||` may not run: a command after it runs in the folder it
            // moved to only while the `&&` chain from the `cd` holds (`A && cd t && pytest`,
            // and subshells or pipelines inside that chain); once the chain ends (`;`, `||`,
            // a newline), every later command may run in either folder, and only what runs
            // the same anywhere may follow (`|| exit 1`, `; echo done`). Review 81, a01, a33:
            // `false && cd tests; pytest -q`; review 83, c02-c21: `…; (pytest -q)`, `…; true |
            // pytest -q`, `…; echo && pytest -q`.
            if let Some(before) = c.cond
                && c.words
                    .first()
                    .is_some_and(|w| matches!(name_of(&w.text).as_str(), "cd" | "pushd" | "popd"))
            {
                let anywhere = |d: &Simple| {
                    d.reads.is_empty()
                        && d.writes
                            .iter()
                            .all(|w| w.text.chars().all(|c| c.is_ascii_digit()))
                        && d.words.iter().all(|w| w.subst.is_empty())
                        && d.words.first().is_some_and(|w| {
                            matches!(
                                w.raw.as_str(),
                                "exit" | "true" | "false" | ":" | "echo" | "printf"
                            )
                        })
                };
                let mut chain = before;
                let level = c.scope.len();
                let mut entered = std::collections::HashSet::new();
                for d in &cmds[k + 1..] {
                    if !d.scope.starts_with(&c.scope) {
                        // The `cd`'s own subshell ended: it moves nothing after.
                        break;
                    }
                    // A command of the `cd`'s level, or the first of a subshell or pipeline
                    // there, says by its connector whether the chain goes on.
                    let entry = d.scope.get(level).is_none_or(|g| entered.insert(*g));
                    if entry && d.cond != Some(true) {
                        chain = false;
                    }
                    if !chain && !anywhere(d) {
                        let next = d.words.first().map_or("", |w| w.raw.as_str());
                        return Err(format!(
                            "a `cd` after `{}` that may not run, with `{next}` after it running \
                             in either folder (write the `cd` first, `cd DIR && …`, or join \
                             what follows with `&&`)",
                            if before { "&&" } else { "||" }
                        ));
                    }
                }
            }
            self.simple(c, text_fed, later, after)?;
        }
        Ok(())
    }

    /// Whether simple command `words` reads its program on stdin: an interpreter without a
    /// script (`sh`, `sh -s`, `python3 -`, `sh /dev/stdin`), `. /dev/stdin`, or a tool whose
    /// program file is stdin (`awk -f -`). A tcl shell or `expect` fed text on stdin runs
    /// commands gate does not read: refused.
    fn reads_program_on_stdin(&self, words: &[Word]) -> Result<bool, String> {
        let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        let Some(p) = program_index(&texts) else {
            return Ok(false);
        };
        let name = name_of(texts[p]);
        let stdin = |t: &str| {
            t == "-"
                || super::invoke::is_stdin(&super::invoke::resolve(t, &self.dir).to_string_lossy())
        };
        let script = texts[p + 1..].iter().find(|t| !t.starts_with('-'));
        let tcl = matches!(bare(&name), "tclsh" | "wish" | "jimsh" | "expect");
        if tcl && script.is_none_or(|t| stdin(t)) {
            return Err(format!(
                "`{name}`, a Tcl shell whose program (on stdin or in a file) can start commands \
                 gate does not read"
            ));
        }
        if matches!(name.as_str(), "." | "source") {
            return Ok(texts.get(p + 1).is_some_and(|t| stdin(t)));
        }
        if interpreter(texts[p]) {
            let Ok(inv) = super::invoke::invocation(&texts[p..]) else {
                return Ok(false);
            };
            // `python3 -i script` (or `-ic CODE`) goes on to read program from stdin once
            // its script ends (review 91, 35, 52).
            let interactive = inv.family == super::invoke::Family::Python
                && inv.options.iter().any(|&k| {
                    let o = texts[p + k];
                    o.starts_with('-') && !o.starts_with("--") && o[1..].contains('i')
                });
            return Ok(inv.runs == super::invoke::Runs::Stdin || interactive);
        }
        Ok(super::invoke::program_files(&texts[p..])
            .iter()
            .any(|(_, f, _)| stdin(f)))
    }

    /// A file the line's own shell runs (`. FILE`, `source FILE`, `eval "$(cat FILE)"`),
    /// with commands after it (`after`) that run in that shell: what the file does to the
    /// shell (a `cd`, a variable a runner reads, `PATH`, an alias, a function) holds for
    /// them, and gate does not read shell text for that (reviews 81-83: `cd` spelled `c''d`,
    /// `${X}d`, behind `then`; `PATH="$PWD/out:$PATH"`, `alias pytest=…`). So such a file is
    /// accepted only where it is a Python virtual environment's `bin/activate`, or data:
    /// blank lines, comments and `[export] NAME=VALUE` of literal values (no `$`, quote
    /// tricks, `\\`, or shell punctuation) of names no runner or search reads. A file that
    /// is the last the line runs is a grader, read and protected as one is.
    fn sourced(&self, file: &str, shown: &str, after: bool) -> Result<(), String> {
        if !after {
            return Ok(());
        }
        let refuse = |why: &str| {
            Err(format!(
                "`{shown}` with commands after it, {why}; set the variables in the task's \
                 `env:`, or run the file as a script of its own (`sh {file}`)"
            ))
        };
        // dash looks a name without `/` up on `PATH`, not in the folder (review 82, b37).
        if !file.contains('/') {
            return refuse("a file the shell looks up on `PATH`");
        }
        let path = super::invoke::resolve(file, &self.dir);
        let real = std::fs::canonicalize(&path).ok();
        let readable = real.as_ref().filter(|r| {
            !self.roots.iter().any(|root| r.starts_with(root))
                && std::fs::metadata(r).is_ok_and(|m| m.is_file() && m.len() <= 1 << 20)
        });
        let Some(real) = readable else {
            return refuse(
                "a file that is missing at load, lies where the trials write, or is no \
                 regular file of at most 1 MiB",
            );
        };
        // A virtual environment's own script (its `pyvenv.cfg` beside `bin/`), which
        // changes `PATH` to the environment's `bin/` (read by the Python walls).
        let activate = real.file_name().is_some_and(|n| n == "activate")
            && real
                .parent()
                .is_some_and(|b| b.file_name().is_some_and(|n| n == "bin"))
            && real
                .parent()
                .and_then(Path::parent)
                .is_some_and(|v| v.join("pyvenv.cfg").is_file());
        if activate {
            return Ok(());
        }
        let Ok(text) = std::fs::read_to_string(real) else {
            return refuse("a file that is not text");
        };
        for line in text.lines() {
            let l = line.trim();
            if l.is_empty() || l.starts_with('#') {
                continue;
            }
            let assignment = l.strip_prefix("export ").map_or(l, str::trim);
            let (name, value) = assignment.split_once('=').unwrap_or((assignment, ""));
            let literal = literal_value(value);
            if !is_name(name) || !literal {
                return refuse(&format!("whose line `{l}` is more than data gate can read"));
            }
            if super::reach::line_var_matters(name) {
                return refuse(&format!(
                    "which sets `{name}` (it chooses what a program runs or loads)"
                ));
            }
        }
        Ok(())
    }

    /// The files command `c`, whose output a pipe feeds an interpreter as its program, reads:
    /// present when it is one that copies files (`cat F`, `tail -n +1 F`); any other command
    /// but `echo`/`printf` is refused (gate cannot tell which file it reads).
    fn feeder(&self, c: &Simple, what: &str) -> Result<(), String> {
        for r in &c.reads {
            self.present(&r.text, what, false, false)?;
        }
        let texts: Vec<&str> = c.words.iter().map(|w| w.text.as_str()).collect();
        let Some(p) = program_index(&texts) else {
            return Ok(());
        };
        let name = name_of(texts[p]);
        match name.as_str() {
            "echo" | "printf" => Ok(()),
            "cat" | "tac" | "head" | "tail" | "nl" | "rev" => {
                let mut k = p + 1;
                while let Some(t) = texts.get(k) {
                    let valued = matches!(
                        *t,
                        "-n" | "-c" | "--lines" | "--bytes" | "-s" | "--separator"
                    );
                    if !t.starts_with('-') || *t == "-" {
                        self.present(t, what, false, false)?;
                    }
                    k += 1 + usize::from(valued);
                }
                Ok(())
            }
            _ => Err(format!(
                "`{name} … |` feeding an interpreter its program on stdin (gate cannot tell \
                 which file it reads: run the script by its path)"
            )),
        }
    }

    /// A Python that reads its program on stdin, fed by `c`'s input redirections or by the
    /// `feeder` piping into it (`cat F`, `echo CODE`): refused where that program calls
    /// `chdir` ([`super::tools::python_stdin_chdir`]).
    fn python_fed(&self, c: &Simple, feeder: Option<&Simple>) -> Result<(), String> {
        let texts: Vec<&str> = c.words.iter().map(|w| w.text.as_str()).collect();
        let Some(p) = program_index(&texts) else {
            return Ok(());
        };
        let read = |t: &str| {
            super::state::grader_text(&super::invoke::resolve(t, &self.dir)).unwrap_or_default()
        };
        let mut fed: Vec<String> = c.reads.iter().map(|r| read(&r.text)).collect();
        if let Some(f) = feeder {
            fed.extend(f.reads.iter().map(|r| read(&r.text)));
            let words: Vec<&str> = f.words.iter().map(|w| w.text.as_str()).collect();
            if let Some(q) = program_index(&words) {
                // `echo CODE` gives its words; `cat F…` the files it names (an option's
                // value read as a file too: it holds no `chdir`, or it is refused).
                let echo = matches!(name_of(words[q]).as_str(), "echo" | "printf");
                for w in &words[q + 1..] {
                    fed.push(if echo { (*w).to_string() } else { read(w) });
                }
            }
        }
        match super::tools::python_stdin_chdir(&texts[p..], &fed, &self.dir) {
            Some(why) => Err(why),
            None => Ok(()),
        }
    }

    /// One simple command; `text_fed`: the line hands an interpreter its program as text,
    /// so every word may name it.
    fn simple(
        &mut self,
        c: &Simple,
        text_fed: bool,
        later: bool,
        after: bool,
    ) -> Result<(), String> {
        if let Some(folder) = &self.replaceable
            && let Some(w) = (c.words.iter().chain(&c.reads).chain(&c.writes))
                .find(|w| w.text.split('/').any(|part| part == ".."))
        {
            return Err(format!(
                "`{}` after `cd {folder}`, a folder the trials write: a trial can make that \
                 folder a link, and `..` then leads where the link points (name the path from \
                 the task's folder, or `cd` into a folder the trials do not write)",
                w.text
            ));
        }
        for r in &c.reads {
            if text_fed {
                self.exact(r, "what the line feeds an interpreter")?;
            } else {
                self.data(r)?;
            }
        }
        for w in &c.writes {
            self.data(w)?;
        }
        let words = &c.words;
        let mut i = 0;
        while i < words.len() && is_assignment(&words[i]) {
            self.value(&words[i])?;
            i += 1;
        }
        // The prefixes before the program, with their options.
        let mut through: Option<String> = None;
        while let Some(w) = words.get(i) {
            let name = name_of(&w.text);
            if !PREFIXES.contains(&name.as_str()) {
                break;
            }
            if name != "command" {
                through = Some(name.clone());
            }
            self.exact(w, "a command")?;
            i += 1;
            // `command -v NAME` prints where NAME is and runs nothing (review 19, a15).
            if name == "command"
                && words
                    .get(i)
                    .is_some_and(|o| matches!(o.text.as_str(), "-v" | "-V"))
            {
                return Ok(());
            }
            // `timeout`'s first operand is its duration whatever it looks like (strtod reads
            // `inf`, `.9m`, `+5`, ` 5`: review 17, e12); the program is the word after it.
            let mut duration = name == "timeout";
            while let Some(o) = words.get(i) {
                let t = o.text.as_str();
                if name == "env" {
                    let short = t.starts_with('-') && !t.starts_with("--");
                    if t.starts_with("--chdir") || (short && t.contains('C')) {
                        return Err(
                            "`env -C` (write `cd DIR && …` for gate to follow the folder)".into(),
                        );
                    }
                    if t.starts_with("--split-string") || (short && t.contains('S')) {
                        return Err("`env -S` (its string is split, and expanded, by env)".into());
                    }
                }
                let option = t.starts_with('-') && t.len() > 1;
                let number = if name == "timeout" {
                    !option && std::mem::take(&mut duration)
                } else {
                    t.starts_with(|d: char| d.is_ascii_digit())
                };
                if !(option || number || (name == "env" && is_env_assignment(o))) {
                    break;
                }
                if name == "env" && is_env_assignment(o) {
                    self.value(o)?;
                }
                self.exact(o, "an option of a command prefix")?;
                i += 1;
                let valued = if option {
                    match super::words::prefix_option(&name, t) {
                        Some(v) => v,
                        None => {
                            return Err(format!(
                                "the option `{t}` of `{name}`, which gate does not know (it may \
                                 take the next word as its value, and the program be another word)"
                            ));
                        }
                    }
                } else {
                    false
                };
                if valued && let Some(v) = words.get(i) {
                    self.exact(v, "an option of a command prefix")?;
                    i += 1;
                }
            }
        }
        let Some(program) = words.get(i) else {
            return Ok(());
        };
        if text_fed {
            for w in &words[i..] {
                // c07: the substitution `sh -c` and `eval` run is protected whole.
                if !w.subst.is_empty() && w.subst.iter().all(|s| cat_of_literal_files(s)) {
                    continue;
                }
                self.exact(w, "a word of a line that feeds an interpreter its program")?;
            }
        }
        self.exact(program, "the program")?;
        // A program run by its path (`./lib/new.sh`), missing at load in a folder the
        // trials write, is the trial's to create, as a script is (review 17, e23).
        if program.text.contains('/') {
            self.present(&program.text, "the program", false, false)?;
        }
        let name = name_of(&program.text);
        let rest = &words[i + 1..];
        // Through a prefix other than `command`, `cd` is a program of its own, or a builtin
        // in one shell and not in another (`time`, `builtin`): `/bin/sh` (dash) moves no
        // folder, and the line goes on where it was (review 81, a04-a08, a35, a36).
        if let Some(prefix) = &through
            && matches!(name.as_str(), "cd" | "pushd" | "popd")
        {
            return Err(format!(
                "`{prefix} {name}`, which moves the line's folder in one shell and in none in \
                 another (`/bin/sh` runs no builtin through `{prefix}`); write `cd DIR && …`"
            ));
        }
        match name.as_str() {
            "eval" => {
                // c07: `eval "$(cat graders/grade)"`.
                let c07 = !rest.is_empty()
                    && rest.iter().all(|w| {
                        !w.subst.is_empty() && w.subst.iter().all(|s| cat_of_literal_files(s))
                    });
                if !c07 {
                    return Err("`eval` (only `eval \"$(cat FILE)\"` is followed)".into());
                }
                for s in rest.iter().flat_map(|w| &w.subst) {
                    for f in s.split_whitespace().skip(1) {
                        let f = f.trim_matches(|c| c == '\'' || c == '"');
                        self.sourced(f, &format!("eval \"$(cat {f})\""), after)?;
                    }
                }
                return Ok(());
            }
            "." | "source" => {
                if let Some(f) = rest.first() {
                    self.sourced(&f.text, &format!("{name} {}", f.text), after)?;
                }
            }
            "set" => {
                let mut words = rest.iter();
                while let Some(w) = words.next() {
                    let t = w.text.as_str();
                    if t == "--" || t == "-" || !(t.starts_with('-') || t.starts_with('+')) {
                        return Err("`set` with operands (positional parameters)".into());
                    }
                    // `set -P` / `set -o physical`: every later `cd` physical, which
                    // gate does not follow (review 14, c32).
                    let cluster = t.len() >= 2 && t[1..].chars().all(|c| c.is_ascii_alphabetic());
                    if cluster && t.contains('P') {
                        return Err(format!("`set {t}` (a physical `cd`)"));
                    }
                    // `set -k`: a `NAME=value` word anywhere among a command's words is an
                    // assignment, which gate reads as an argument (review 81, a25).
                    if cluster && t.contains('k') {
                        return Err(format!(
                            "`set {t}` (every `NAME=value` word of a command assigns)"
                        ));
                    }
                    // `-o NAME`, also at the end of a cluster (`set -euo pipefail`: review 13).
                    if cluster && t.ends_with('o') {
                        match words.next().map(|o| o.text.as_str()) {
                            Some("physical") => {
                                return Err("`set -o physical` (a physical `cd`)".into());
                            }
                            Some("keyword") => {
                                return Err("`set -o keyword` (every `NAME=value` word of a \
                                            command assigns)"
                                    .into());
                            }
                            _ => {}
                        }
                    }
                }
                return Ok(());
            }
            "export" | "readonly" => {
                for w in rest {
                    if !(is_assignment(w) || is_name(&w.text)) {
                        return Err(format!("`{name} {}`", w.raw));
                    }
                    self.value(w)?;
                }
                return Ok(());
            }
            "pushd" => {
                // dash has no `pushd`: the line goes on in the folder it was in (review
                // 81, a02, a03).
                return Err(
                    "`pushd`, which `/bin/sh` (dash) does not have: the line would go on in \
                     the folder it was in; write `cd DIR && …`"
                        .into(),
                );
            }
            "cd" => {
                if later {
                    // `(cd graders); sh grade` runs `./grade` (review 11, a18).
                    return Err(format!(
                        "`{name}` in a subshell (`( … )`, a pipeline, `&`, `sh -c`) that commands \
                         after it do not run in"
                    ));
                }
                let mut to = None;
                let mut options = true;
                for w in rest {
                    self.exact(w, "the folder of `cd`")?;
                    let t = w.text.as_str();
                    if t == "-" {
                        return Err("`cd -`".into());
                    }
                    if options && t == "--" {
                        options = false;
                    } else if options && t.starts_with('-') {
                        // `cd -P graders` (review 11, a27).
                        // Not `-e`: dash refuses it, and the line goes on where it was
                        // (review 81, a32).
                        if !matches!(t, "-P" | "-L") {
                            return Err(format!("the option `{t}` of `cd`"));
                        }
                    } else if to.is_none() {
                        to = Some(t.to_string());
                        options = false;
                    } else {
                        return Err(format!("`{name}` with more than one folder"));
                    }
                }
                let Some(to) = to else {
                    return Err(format!("`{name}` without a folder (it goes to `$HOME`)"));
                };
                // Read as the shell's default (logical) `cd` reads it, by the one resolution.
                let d = super::invoke::resolve(&to, &self.dir);
                // Where a `..` steps back out of a link, a physical `cd` (`cd -P`, or
                // `..` after `cd lk`) lands elsewhere than the logical one (review 14,
                // c32): refused rather than guessed.
                let real = |q: &Path| std::fs::canonicalize(q).ok();
                if d.is_dir() && real(&self.dir.join(&to)) != real(&d) {
                    return Err(format!(
                        "`{name} {to}`, whose `..` steps back out of a link (name the folder \
                         by its own path)"
                    ));
                }
                if !d.is_dir() && self.writable(&d) {
                    // Review 16, P: `cd sub && sh graders/grade` with `sub/` missing at load
                    // was read in the old folder while the trial creates `sub/graders/grade`.
                    // Where the line goes on is not known before the run.
                    return Err(format!(
                        "`{name} {to}`, a folder that does not exist when the plan is loaded, \
                         in a folder the trials write (the words after it would be read in a \
                         folder a trial could create)"
                    ));
                }
                if d.is_dir() {
                    // Below a writable root, the folder (or one on the way to it) is one a
                    // trial can replace with a link; a root itself it cannot.
                    let here = std::fs::canonicalize(&d).unwrap_or_else(|_| d.clone());
                    let linkless = self.linkless.iter().any(|r| here.starts_with(r));
                    self.replaceable =
                        (self.writable(&d) && !self.roots.contains(&here) && !linkless)
                            .then(|| to.clone());
                    self.dir = d;
                }
                return Ok(());
            }
            "xargs" => {
                if let Some(why) =
                    xargs_program_problem(rest, &self.dir, self.plan_path(), &self.project)
                {
                    return Err(why);
                }
                if let Some(w) = rest.iter().find(|w| interpreter(&w.text)) {
                    return Err(format!(
                        "`xargs` running `{}` (the script comes from its input)",
                        w.text
                    ));
                }
                // Review 17, e41, e50: a tool whose options run commands (`xargs make`, the
                // `--eval` from the input), a command prefix (`xargs env`, `xargs timeout
                // 10`: the program from the input), or no program at all.
                // The program after xargs's options and their values (`xargs -n 1 env`:
                // `env`, not the `1`), as `xargs_program_problem` read it.
                let program = xargs_program(rest)?.map(|k| &rest[k]);
                let tool = program.map(|w| name_of(&w.text));
                // awk stops reading options at its program; GNU getopt tools (sed, make,
                // tar, jq, git, prove) take an option from anywhere in their words.
                let tool_ok = tool.as_deref().is_some_and(|t| {
                    !PREFIXES.contains(&t)
                        && !matches!(
                            bare(t),
                            "sed"
                                | "gsed"
                                | "make"
                                | "gmake"
                                | "remake"
                                | "tar"
                                | "gtar"
                                | "bsdtar"
                                | "jq"
                                | "gojq"
                                | "jaq"
                                | "git"
                                | "prove"
                                // Its test paths and options would come from the input
                                // (review 81, a18, a51: `echo out | xargs pytest -q tests`).
                                | "pytest"
                                | "py.test"
                                | "pytest-3"
                                | "py.test-3"
                        )
                });
                if !tool_ok {
                    return Err(format!(
                        "`xargs` running {} (its program or options come from its input)",
                        tool.map_or("what its input names".to_string(), |t| format!("`{t}`"))
                    ));
                }
                // `xargs awk -f F`: F is named, and a grader (review 13).
                for k in 0..rest.len() {
                    self.program_files(&rest[k..])?;
                }
            }
            "find" => {
                // Review 17, e50: the found file itself (`-exec {} +`) or a command prefix
                // (`-exec env {} \;`) as the program runs each file it finds.
                let exec = rest.windows(2).find(|p| {
                    matches!(p[0].text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")
                        && (interpreter(&p[1].text)
                            || p[1].text.contains("{}")
                            || PREFIXES.contains(&name_of(&p[1].text).as_str()))
                });
                if let Some(p) = exec {
                    return Err(format!(
                        "`find {} {}` (the script is each file it finds)",
                        p[0].text, p[1].text
                    ));
                }
                // The program `-exec` runs must be one gate reads (reviews 16, 17: `find
                // -exec env sh lib/x.sh {} +`).
                for p in rest.windows(2) {
                    if matches!(p[0].text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")
                        && !interpreter(&p[1].text)
                        && let Some(why) = super::programs::refused(
                            &p[1].text,
                            &name_of(&p[1].text),
                            &self.dir,
                            self.plan_path(),
                            &self.project,
                        )
                    {
                        return Err(why);
                    }
                }
                // Review 19 (a22): the allowed program `-exec` runs, with its own options.
                for (k, w) in rest.iter().enumerate() {
                    if matches!(w.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")
                        && let Some(p) = rest.get(k + 1)
                    {
                        let args: Vec<&str> =
                            rest[k + 2..].iter().map(|w| w.text.as_str()).collect();
                        if let Some(why) =
                            super::programs::data_tool_problem(&name_of(&p.text), &args)
                        {
                            return Err(why);
                        }
                    }
                }
                // `find … -exec awk -f F {} +` (review 13).
                for k in 0..rest.len() {
                    self.program_files(&rest[k..])?;
                }
            }
            _ => {}
        }
        if REFUSED_BUILTINS.contains(&name.as_str()) {
            return Err(format!("`{name}`"));
        }
        if LAUNCHERS.contains(&name.as_str()) {
            return Err(format!(
                "`{name}`, a launcher of the command after it whose options gate does not read \
                 (run the command without it)"
            ));
        }
        if COMMAND_LANGUAGES.contains(&name.as_str()) {
            return Err(format!(
                "`{name}`, a program with a command language of its own that can start \
                 commands gate does not read"
            ));
        }
        // Review 101, a20: an interpreter reached by a name gate does not read as one (`bin/py
        // -> python3.11`, `py -m unittest`): its options and what it loads would be read
        // as a plain program's arguments.
        // (Looked up once: a bare name is searched for on `PATH`.)
        let real = (!interpreter(&program.text))
            .then(|| self.real_program(&program.text))
            .flatten();
        if let Some(real) = &real
            && let Some(real_name) = real.file_name().map(|n| n.to_string_lossy().into_owned())
            && interpreter(&real_name)
        {
            return Err(format!(
                "`{}`, which is the interpreter `{}` by another name (gate reads an \
                 interpreter's options only by its own name: name it so, `{real_name}`)",
                program.text,
                real.display()
            ));
        }
        // Review 102, a09: a Python script run by its `#!` line (`./check.py`) puts its
        // folder first on `sys.path`, as `python3 check.py` does.
        if let Some(real) = &real
            && let Some(python) = super::tools::shebang_python(real)
        {
            let script = real.display().to_string();
            let mut texts: Vec<&str> = vec![python.as_str(), script.as_str()];
            texts.extend(rest.iter().map(|w| w.text.as_str()));
            if let Some(why) =
                super::tools::python_shadow(&texts, &self.dir, &|at| self.writable(at))
            {
                return Err(why);
            }
        }
        // Review 20, 12: a program by a path through a link the trials could replace
        // (`tools -> /usr/bin`, `tools/grep`): the program is theirs to choose.
        // (A link as the program's own name, `node_modules/.bin/jest`, is held read-only
        // with its folder: review 8, a27.)
        let at = super::invoke::resolve(&program.text, &self.dir);
        if program.text.contains('/')
            && !interpreter(&program.text)
            && at
                .parent()
                .is_some_and(|folder| self.link_in_writable(folder))
        {
            return Err(format!(
                "the program `{}`, named through a link in a folder the trials write (a trial \
                 could point it elsewhere; name the program by its own path)",
                program.text
            ));
        }
        // Reviews 16 and 17: a program gate does not read the arguments of may run what
        // they name (`taskset 1 sh lib/new.sh`): only those on the allow-list are named.
        if !interpreter(&program.text)
            && let Some(why) = super::programs::refused(
                &program.text,
                &name,
                &self.dir,
                self.plan_path(),
                &self.project,
            )
        {
            return Err(why);
        }
        let args: Vec<&str> = rest.iter().map(|w| w.text.as_str()).collect();
        if let Some(why) = super::programs::data_tool_problem(&name, &args) {
            return Err(why);
        }
        if interpreter(&program.text) {
            self.interpreter(&words[i..], after)?;
            // Review 14: an interpreter's option or module that loads what gate does not
            // follow (`perl -d`, `python -m unittest discover`, `node -r NAME`).
            let texts: Vec<&str> = words[i..].iter().map(|w| w.text.as_str()).collect();
            return super::tools::problem(&texts, &self.dir, &|at| self.writable(at), &|at| {
                self.writes_beneath(at)
            })
            .map_or(Ok(()), Err);
        }
        self.program_files(&words[i..])?;
        for w in rest {
            self.data(w)?;
        }
        Ok(())
    }

    /// An interpreter's words from its name on, read once by [`super::invoke::invocation`]
    /// (review 11): its options, their values and the files they load exact, every inline
    /// code read (see [`inline_code_problem`]), the script exact and present, the script's
    /// arguments data. A line whose script gate cannot tell for certain is refused.
    fn interpreter(&mut self, words: &[Word], after: bool) -> Result<(), String> {
        use super::invoke::{Family, Runs, invocation};
        let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        let inv = invocation(&texts)?;
        for &k in &inv.options {
            self.exact(&words[k], "an interpreter's option")?;
            // `-X pycache_prefix=/abs` in a folder the trials write (review 11, a29), by
            // the one resolution of a path (review 13, b01: `/proc/self/cwd/cache` is the
            // check's folder).
            if let Some((_, dir)) = words[k].text.split_once("pycache_prefix=")
                && self.writable(&super::invoke::resolve(dir, &self.dir))
            {
                return Err(format!(
                    "`-X pycache_prefix={dir}`, a cache of compiled modules in a folder the \
                     trials write (Python loads the standard library's from it; name a folder \
                     outside the task's folder)"
                ));
            }
        }
        self.version_shim(texts[0])?;
        let lang = match inv.family {
            Family::Shell => Lang::Shell,
            Family::Python => Lang::Python,
            Family::Node | Family::Deno | Family::Bun => Lang::Node,
            _ => Lang::Other,
        };
        for (k, v, path) in &inv.loads {
            self.exact(&words[*k], "a file an interpreter's option loads")?;
            // `node --import file:///…/lib/x.mjs`, `data:text/javascript,import "…"`
            // (review 14, c07): a URL is no path gate protects.
            // URL schemes are case-insensitive (review 17, e32, e56: `FILE:`).
            let lower = v.to_ascii_lowercase();
            if lower.starts_with("file:") || lower.starts_with("data:") {
                return Err(format!(
                    "the URL `{v}` as a file an interpreter's option loads (name the file by \
                     its path)"
                ));
            }
            if *path {
                self.present(
                    v,
                    "a file an interpreter's option loads",
                    lang == Lang::Node,
                    true,
                )?;
            }
        }
        match &inv.runs {
            Runs::Code(codes) => {
                for &k in codes {
                    if inv.family == Family::Perl
                        && let Some(why) = perl_search_path_problem(&words[k].text)
                    {
                        return Err(why);
                    }
                    self.code(&words[k], lang, after)?;
                }
            }
            Runs::Script(k) => {
                let w = &words[*k];
                self.exact(w, "an interpreter's script")?;
                // `/proc/self/cwd/../../dev/stdin`: stdin by another spelling.
                let at = super::invoke::resolve(&w.text, &self.dir);
                if super::invoke::is_stdin(&at.to_string_lossy()) {
                    return Err(format!(
                        "the script `{}`, which is stdin by another spelling (write `-` or \
                         `/dev/stdin`)",
                        w.text
                    ));
                }
                self.present(
                    &w.text,
                    "an interpreter's script",
                    lang == Lang::Node,
                    false,
                )?;
            }
            Runs::Module(k, _) => self.exact(&words[*k], "a module Python runs")?,
            Runs::Tests(ts) => {
                for &k in ts {
                    let w = &words[k];
                    self.exact(w, "a test file of `node --test`")?;
                    // A folder is run (and protected) whole; a file must exist.
                    if !self.dir.join(&w.text).is_dir() {
                        self.present(&w.text, "a test file of `node --test`", true, false)?;
                    }
                }
            }
            Runs::Stdin | Runs::Nothing => {}
        }
        for w in words.get(inv.rest..).unwrap_or_default() {
            self.data(w)?;
        }
        Ok(())
    }

    /// One inline code word of language `lang` (`-c`, every `-e`).
    fn code(&mut self, w: &Word, lang: Lang, after: bool) -> Result<(), String> {
        if let Some(v) = w.vars.iter().find(|v| !self.planned(v)) {
            return Err(format!(
                "`${v}` in inline code, a variable the plan's `env:` does not set"
            ));
        }
        if !w.subst.is_empty() {
            // c07: `sh -c "$(cat graders/grade)"`, protected whole.
            if lang == Lang::Shell && w.subst.iter().all(|s| cat_of_literal_files(s)) {
                return Ok(());
            }
            return Err(format!("the command substitution `$({})`", w.subst[0]));
        }
        if lang == Lang::Shell {
            let mut inner = Reader {
                env: self.env,
                dir: self.dir.clone(),
                assigned: self.assigned.clone(),
                roots: self.roots.clone(),
                project: self.project.clone(),
                task_dir: self.task_dir.clone(),
                later_outside: self.later_outside || after,
                replaceable: self.replaceable.clone(),
                linkless: self.linkless.clone(),
            };
            return inner.shell(&w.text);
        }
        // Python reads identifiers NFKC-normalised (`os.ｓｙｓｔｅｍ` is `os.system`, review 17,
        // e55); gate compares them as written: a non-ASCII letter outside string literals
        // is refused.
        if lang == Lang::Python {
            let chars: Vec<char> = w.text.chars().collect();
            let mut inside = vec![false; chars.len()];
            for (open, close, _) in super::words::literals_at(&chars) {
                for f in inside
                    .iter_mut()
                    .take(close.min(chars.len() - 1) + 1)
                    .skip(open)
                {
                    *f = true;
                }
            }
            if let Some(c) = (0..chars.len()).find(|&k| !inside[k] && !chars[k].is_ascii()) {
                return Err(format!(
                    "inline Python code with the character `{}` outside a string (Python reads \
                     identifiers NFKC-normalised; write them in ASCII)",
                    chars[c]
                ));
            }
        }
        if let Some(why) = inline_code_problem(lang, &w.text) {
            return Err(why);
        }
        // Review 20 (06, 07): git started from inline code (`subprocess.call(["git",
        // "diff", "--quiet"])`) reads the repository it finds from here, as on the line.
        if super::words::mentions_git(&w.text) {
            self.git_repository(&["git"])?;
        }
        // `"sh graders/gr\x61de"`: the interpreter reads another text than gate does
        // (review 14, c35–c37).
        if let Some(e) = character_escape(&w.text) {
            return Err(format!(
                "inline code with the escape `{e}`, which the interpreter reads as another \
                 character (write the character itself)"
            ));
        }
        // Review 17, e01, e02, e14: the escapes languages read alike are few (`\\`, `\"`,
        // `\'`, `\n`, `\t`, `\r`); any other (`\a`, `\d`, `\E`, `\l`, `\c7`, a
        // backslash-newline) one interpreter reads as the letter, another as a control
        // character or a case change. In code that runs or loads a file, gate's reading of
        // a path could then differ from the interpreter's.
        let runs_or_loads = super::words::runs_text(&w.text, lang == Lang::Other)
            || !super::words::loader_arguments(&w.text).is_empty();
        // Review 17, e26: an environment built in code for a child process
        // (`os.environ["PYTHONPATH"] = "lib"`, `env={…}`, perl `$ENV{PERL5OPT}`, node
        // `process.env.NODE_OPTIONS = …`, `{env: …}`) puts a folder the trials write on
        // its search path, which the checks of the plan's `env:` never see.
        if super::words::runs_text(&w.text, lang == Lang::Other) {
            let env = [
                "environ",
                "putenv",
                "env=",
                "env =",
                "$ENV{",
                "process.env",
                "env:",
            ]
            .into_iter()
            .find(|e| w.text.contains(e));
            if let Some(e) = env {
                return Err(format!(
                    "inline code that starts a process and sets an environment (`{e}`), whose \
                     search paths gate does not read (set variables in the plan's `env:`, or put \
                     the logic in a grader file under a folder the trials cannot write)"
                ));
            }
        }
        if runs_or_loads && let Some(e) = unsure_escape(&w.text) {
            return Err(format!(
                "inline code that runs or loads a file, with the escape `{e}`, which languages \
                 read differently (write the path without escapes, or put the logic in a \
                 grader file under a folder the trials cannot write, such as `graders/`)"
            ));
        }
        for l in super::words::loader_arguments(&w.text) {
            let lower = l.to_ascii_lowercase();
            if lower.starts_with("file:") || lower.starts_with("data:") {
                return Err(format!(
                    "inline code that loads the URL `{l}` (name the file by its path)"
                ));
            }
        }
        // A command a text runner starts (`system("sh lib/new.sh")`, `execSync(…)`): each
        // path in it, missing at load in a folder the trials write, is the trial's to
        // create (review 14, c42).
        // Review 17: a script is a word in a program's or an interpreter's script position
        // of any literal, whatever call holds it (e13: `open3(…, "sh", "lib/new.sh")`); the
        // other words of a command (`["sed", "-n", "s/x/y/p", "r.txt"]`) are its data (e10).
        let runs_text = super::words::runs_text(&w.text, lang == Lang::Other);
        for word in command_paths(&w.text, runs_text) {
            self.present(&word, "a file inline code runs", lang == Lang::Node, true)?;
        }
        if lang == Lang::Node {
            // A relative `require`/`import` node resolves to nothing now, in a folder the
            // trials write, is the trial's to create (review 13, b03).
            for l in super::words::loader_arguments(&w.text) {
                let relative = l.starts_with("./") || l.starts_with("../");
                if relative && super::words::node_resolve(&self.dir, &l).is_none() {
                    self.present(&l, "a module inline code loads", true, false)?;
                }
            }
            return Ok(());
        }
        // Any other language: a path a loader call names (`runpy.run_path("lib/x.py")`,
        // perl `do "./lib/x.pl"`, ruby `require_relative "lib/x"`), missing now in a folder
        // the trials write, is the trial's to create.
        let named = super::words::loader_arguments(&w.text);
        for l in named
            .iter()
            .filter(|l| l.contains('/') && !l.contains("://"))
        {
            let ruby = std::path::Path::new(l.as_str()).extension().is_none()
                && super::invoke::resolve(&format!("{l}.rb"), &self.dir).is_file();
            if !ruby {
                self.present(l, "a file inline code loads or runs", false, true)?;
            }
        }
        Ok(())
    }

    /// Whether `at` (a path [`super::invoke::resolve`] gave) lies in a folder the trials
    /// write: its nearest existing ancestor, links resolved, is beneath the task's folder or
    /// another writable root.
    fn writable(&self, at: &Path) -> bool {
        if self.link_in_writable(at) {
            return true;
        }
        let Some(existing) = at.ancestors().find(|a| a.exists()) else {
            return false;
        };
        let real = std::fs::canonicalize(existing).unwrap_or_else(|_| existing.to_path_buf());
        self.roots.iter().any(|r| real.starts_with(r))
    }

    /// The file `program` runs, links followed: by its path, or as the plan's `PATH` (else
    /// gate's) finds a bare name.
    fn real_program(&self, program: &str) -> Option<std::path::PathBuf> {
        let found = if program.contains('/') {
            super::invoke::resolve(program, &self.dir)
        } else {
            let path = self
                .plan_path()
                .map(std::ffi::OsString::from)
                .or_else(|| std::env::var_os("PATH"))
                .unwrap_or_default();
            std::env::split_paths(&path)
                .map(|d| super::invoke::resolve(&d.to_string_lossy(), &self.dir).join(program))
                .find(|p| p.is_file())?
        };
        std::fs::canonicalize(found).ok()
    }

    /// Whether a folder the trials write lies at or beneath the folder `at`.
    fn writes_beneath(&self, at: &Path) -> bool {
        let real = std::fs::canonicalize(at).unwrap_or_else(|_| at.to_path_buf());
        self.roots.iter().any(|r| r.starts_with(&real))
    }

    /// Review 22 (09): an interpreter by its bare name that `PATH` (the plan's own, or
    /// gate's) finds as a version manager's shim (`~/.pyenv/shims/python3`, rbenv's,
    /// nodenv's, asdf's, mise's) runs the version a `.python-version` (`.ruby-version`,
    /// `.tool-versions`, …) in the check's folder or one above names, which the trials can
    /// write: an installed Python 2.7 whose `input()` evaluates the answer. A shim of pyenv,
    /// rbenv, nodenv, goenv or asdf is accepted: gate pins their versions for every check
    /// (review 25, `Sandbox::pin_checks`). Another (mise's) is accepted when the plan pins
    /// the version in `env:` (`MISE_…_VERSION`, …) or the check's folder is not one the
    /// trials write.
    fn version_shim(&self, program: &str) -> Result<(), String> {
        if program.contains('/') {
            return Ok(());
        }
        let path = self
            .plan_path()
            .map(std::ffi::OsString::from)
            .or_else(|| std::env::var_os("PATH"))
            .unwrap_or_default();
        let Some(found) = std::env::split_paths(&path)
            .map(|d| super::invoke::resolve(&d.to_string_lossy(), &self.dir).join(program))
            .find(|p| p.is_file())
        else {
            return Ok(());
        };
        // pyenv's, rbenv's, nodenv's, goenv's and asdf's shims (scripts that name their
        // manager) run the version gate pins for every check (`Sandbox::pin_checks`); the
        // others' (mise's, a link to its program) read files gate does not.
        let pinned_by_gate = std::fs::read(&found).is_ok_and(|b| {
            let text = String::from_utf8_lossy(&b[..b.len().min(4096)]).into_owned();
            ["pyenv", "rbenv", "nodenv", "goenv", "asdf"]
                .iter()
                .any(|m| super::words::mentions_word(&text, m))
        });
        let shim = !pinned_by_gate
            && found
                .parent()
                .and_then(Path::file_name)
                .is_some_and(|n| n == "shims");
        let pinned = self.env.iter().any(|(k, _)| {
            matches!(
                k.as_str(),
                "PYENV_VERSION" | "RBENV_VERSION" | "NODENV_VERSION" | "GOENV_VERSION"
            ) || ((k.starts_with("ASDF_") || k.starts_with("MISE_")) && k.ends_with("_VERSION"))
        });
        if shim && !pinned && self.writable(&self.dir) {
            return Err(format!(
                "`{program}`, which `PATH` finds as a version manager's shim (`{}`): it runs \
                 the version a `.python-version` (or `.tool-versions`, …) in a folder the \
                 trials write names; name the interpreter by its path, or pin it in `env:` \
                 (`PYENV_VERSION: \"3.12\"`)",
                found.display()
            ));
        }
        Ok(())
    }

    /// Whether a link on the way to `at` lies in a folder the trials write: theirs to
    /// replace (review 14, c43: `ext -> /outside`, then `sh ext/new.sh`; review 20, 12:
    /// `tools -> /usr/bin`, then `tools/grep`).
    fn link_in_writable(&self, at: &Path) -> bool {
        super::state::link_on_the_way(at, &self.roots, true).is_some()
    }

    /// The first folder on the way to `at` that is a link lying in a folder the trials
    /// write, outside a `node_modules` and a Python environment.
    fn folder_link_in_writable(&self, at: &Path) -> Option<PathBuf> {
        super::state::link_on_the_way(at, &self.roots, false)
    }

    /// A script, a program file or a loaded file must exist when the plan is loaded unless
    /// it would be missing outside every folder the trials write (review 11; review 13:
    /// every spelling, by the one resolution of a path, [`super::invoke::resolve`]: an
    /// absolute path, `/proc/self/cwd/…`, a plan `env:` value). A folder runs a file in it
    /// that gate cannot name for certain (`__main__.py`, package.json's `main`); a missing
    /// one whose nearest existing folder the trials write is the trial's to create. `node`:
    /// with its extensions. `load`: an option's value, which may be a folder (`perl -I lib`,
    /// protected whole).
    fn present(&self, t: &str, what: &str, node: bool, load: bool) -> Result<(), String> {
        if t.contains('$') || t == "-" || t.is_empty() {
            return Ok(());
        }
        let p = super::invoke::resolve(t, &self.dir);
        // The resolution reads `..` as text; the kernel steps back from where a link
        // led. Where the two differ, what gate would protect is not what runs.
        if t.split('/').any(|c| c == "..") {
            let real = |q: &Path| std::fs::canonicalize(q).ok();
            if real(&self.dir.join(t)) != real(&p) {
                return Err(format!(
                    "`{t}` as {what}, whose `..` steps back out of a link (name the file by \
                     its own path)"
                ));
            }
        }
        if p.is_dir() && !load {
            return Err(format!(
                "the folder `{t}` as {what} (the interpreter runs a file inside it that gate \
                 cannot name for certain; name the file)"
            ));
        }
        let found = p.is_file()
            || p.is_dir()
            || (node
                && ["js", "mjs", "cjs", "ts", "json", "node"]
                    .iter()
                    .any(|e| PathBuf::from(format!("{}.{e}", p.display())).is_file()));
        if !found && self.writable(&p) {
            return Err(format!(
                "`{t}` as {what}, which does not exist when the plan is loaded, in a folder the \
                 trials write (a trial could create it; create it before the run, outside the \
                 folders the trials write or in a folder gate protects such as `graders/`)"
            ));
        }
        // Review 25, 12: a file reached through a folder that is a link in a folder the
        // trials write (`graders -> /shared/graders`): a trial swaps the link for a folder
        // of its own, whose grader puts the link back before the run ends, so the end-of-run
        // check sees nothing. (A link inside a package or Python environment gate holds
        // read-only whole, `node_modules/.bin`, is not the trials' to swap.)
        if let Some(link) = p.parent().and_then(|d| self.folder_link_in_writable(d)) {
            return Err(format!(
                "`{t}` as {what}, named through a link in a folder the trials write (`{}`: a \
                 trial could point it at a folder of its own and back); name the file by its \
                 own path",
                link.display()
            ));
        }
        Ok(())
    }

    /// The program files of a command that is not an interpreter, named by an option
    /// ([`super::invoke::program_files`]: `awk -f F`, `sed -f F`, `jq -f F`, `make -f F`,
    /// `make -C DIR`): exact, and present as a script is.
    fn program_files(&self, words: &[Word]) -> Result<(), String> {
        let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        let name = name_of(texts[0]);
        for (k, path, makefile_of) in super::invoke::program_files(&texts) {
            let what = format!("the program file of `{name}`");
            self.exact(&words[k], &what)?;
            // `echo 'BEGIN{system(…)}' | awk -f -` (review 17, e33, e22): the program is
            // text another command writes, which gate does not read (nor its own stdin).
            let at = super::invoke::resolve(&path, &self.dir);
            if path == "-" || super::invoke::is_stdin(&at.to_string_lossy()) {
                return Err(format!(
                    "`{name}` reading its program file from stdin (`{path}`): name the file, \
                     under a folder the trials cannot write"
                ));
            }
            if makefile_of {
                let dir = super::invoke::resolve(&path, &self.dir);
                if !super::invoke::makefiles(&dir).iter().any(|m| m.is_file())
                    && self.writable(&dir)
                {
                    return Err(format!(
                        "`make -C {path}`, whose folder has no makefile when the plan is loaded \
                         and is one the trials write (a trial could create it)"
                    ));
                }
            } else {
                self.present(&path, &what, false, false)?;
            }
        }
        // Review 14: a command run, or a module loaded, from inside the tool's program
        // text or options (awk's `system`, sed's `e`, `make --eval`, `jq -L`, …).
        if let Some(why) =
            super::tools::problem(&texts, &self.dir, &|at| self.writable(at), &|at| {
                self.writes_beneath(at)
            })
        {
            return Err(why);
        }
        if bare(&name) == "git" {
            self.git_repository(&texts)?;
        }
        // Also where a folder the trials write lies beneath make's: a target there
        // (`out/verdict`), written by a trial newer than what it depends on, is up to date
        // (review 69, 08, with `writes: [out]`).
        if matches!(bare(&name), "make" | "gmake" | "bmake" | "remake")
            && let Some(at) = super::tools::make_folder_without_always(&texts, &self.dir)
            && (self.writable(&at) || self.writes_beneath(&at))
        {
            return Err(format!(
                "{COMPLETE}runs `make` without `-B` in a folder the trials write or above one (a \
                 trial's file named like a target there, `touch check` or `out/verdict`, makes \
                 it up to date and nothing runs); add `-B` (`make -B -s check`)"
            ));
        }
        Ok(())
    }

    /// The repository git finds from the folder it runs in (after `cd` and its `-C`
    /// options), searching upward for `.git`: it must be one a trial cannot make or change
    /// (review 17, e19; review 19). A folder on the way that the trials write and that has
    /// no `.git` when the plan is loaded is one where a trial could create a repository
    /// whose config runs a command (`core.fsmonitor`, `core.pager`) or answers for the
    /// grader; a `.git` found in a folder the trials write is gate's state only in the
    /// task's own folder ([`super::state::git_folders`]).
    fn git_repository(&self, words: &[&str]) -> Result<(), String> {
        let mut dir = self.dir.clone();
        let mut i = 1;
        while let Some(t) = words.get(i) {
            if !t.starts_with('-') {
                break;
            }
            let valued = matches!(
                *t,
                "-C" | "-c"
                    | "--git-dir"
                    | "--work-tree"
                    | "--namespace"
                    | "--super-prefix"
                    | "--attr-source"
            );
            if *t == "-C"
                && let Some(d) = words.get(i + 1)
            {
                // git's `chdir` follows a link the trial puts in place of `sub` in `-C
                // sub/..`, where gate reads the path as text (review 21, 19).
                let mut named = false;
                for part in d.split('/') {
                    if part == ".." && named {
                        return Err(format!(
                            "`git -C {d}`, whose `..` comes after a folder the trials could \
                             replace with a link (name the folder without `..`)"
                        ));
                    }
                    named |= !matches!(part, "" | "." | "..");
                }
                dir = super::invoke::resolve(d, &dir);
            }
            // Review 20: `--bare` makes the folder git runs in the repository itself.
            if *t == "--bare" {
                return Err("`git --bare` (the folder it runs in is then the repository)".into());
            }
            i += 1 + usize::from(valued);
        }
        let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        for f in dir.ancestors() {
            let dot_git = f.join(".git");
            match std::fs::symlink_metadata(&dot_git) {
                Ok(m) if m.is_dir() => {
                    // Review 20, 08: a submodule's `.git` is a file in the work tree, and
                    // `.gitmodules` sets how `status` and `diff` see it (`ignore = all`).
                    if self.writable(f) && f.join(".gitmodules").symlink_metadata().is_ok() {
                        return Err(format!(
                            "`git` reading the repository in `{}`, which has submodules (their \
                             `.git` files and `.gitmodules` lie where the trials write)",
                            f.display()
                        ));
                    }
                    if self.writable(f) && real(f) != self.task_dir {
                        return Err(format!(
                            "`git` reading the repository in `{}`, a folder the trials write \
                             (its `.git` is protected only in the task's own folder: run git \
                             there)",
                            f.display()
                        ));
                    }
                    return Ok(());
                }
                // A `.git` file (a worktree's, a submodule's pointer): the check's git is
                // pinned to the folder it named when the run started
                // (`Sandbox::pin_checks`), held read-only where the trials write
                // ([`super::state::git_folders`]); what a trial writes in the file later
                // is not read (review 25, 23: a worktree was refused). The folder it names
                // must exist now: one a trial could create would be the pinned repository.
                Ok(_) => {
                    let named = super::state::repository_of(f).map(|(d, _)| d);
                    if !named.as_ref().is_some_and(|d| d.is_dir()) {
                        return Err(format!(
                            "`git` reading `{}`, a `.git` file (a worktree's or submodule's \
                             pointer) naming a git folder that does not exist when the plan \
                             is loaded",
                            dot_git.display()
                        ));
                    }
                    return Ok(());
                }
                Err(_) if self.writable(f) => {
                    return Err(format!(
                        "`git` run in `{}`, where git looks for its repository first in `{}`, which does \
                         not exist when the plan is loaded, in a folder the trials write (a \
                         trial could create a repository there whose config runs a command); \
                         run git in the repository's top folder, the task's own (`git -C \
                         ..` from a folder below it); outside a repository, compare files \
                         with `cmp` or `diff`",
                        dir.display(),
                        dot_git.display()
                    ));
                }
                Err(_) => {}
            }
        }
        Ok(())
    }
}

/// The index in `rest` (the words after `xargs`) of the program xargs runs, `None` when it
/// runs none of its own (`echo`), past its options and their values; `Err` for an option
/// gate does not know (a long one may be abbreviated, a short one take the next word).
fn xargs_program(rest: &[Word]) -> Result<Option<usize>, String> {
    const VALUED_SHORT: &str = "adEILnPs";
    const VALUED_LONG: &[&str] = &[
        "--arg-file",
        "--delimiter",
        "--eof",
        "--replace",
        "--max-args",
        "--max-procs",
        "--max-chars",
        "--process-slot-var",
    ];
    const FLAGS_LONG: &[&str] = &[
        "--null",
        "--no-run-if-empty",
        "--verbose",
        "--interactive",
        "--open-tty",
        "--exit",
        "--show-limits",
    ];
    let mut i = 0;
    while let Some(w) = rest.get(i) {
        let t = w.text.as_str();
        if t == "--" {
            i += 1;
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            let key = format!("--{}", long.split('=').next().unwrap_or(long));
            if VALUED_LONG.contains(&key.as_str()) {
                i += if long.contains('=') { 1 } else { 2 };
            } else if FLAGS_LONG.contains(&key.as_str()) || key == "--max-lines" {
                // `--max-lines` takes its value glued only (`--max-lines=N`).
                i += 1;
            } else {
                return Err(format!(
                    "the option `{t}` of `xargs`, which gate does not know (a long option may \
                     be written shortened; spell it out)"
                ));
            }
            continue;
        }
        if t.len() > 1 && t.starts_with('-') {
            // A cluster: a valued letter takes the rest of the word, or the next word.
            let letters: Vec<char> = t[1..].chars().collect();
            let mut next = 1;
            for (k, c) in letters.iter().enumerate() {
                if VALUED_SHORT.contains(*c) {
                    if k + 1 == letters.len() {
                        next = 2;
                    }
                    break;
                }
            }
            i += next;
            continue;
        }
        break;
    }
    Ok((i < rest.len()).then_some(i))
}

/// Why the command `xargs` runs (after its options `rest`) may not be named: a program not
/// on the allow-list ([`super::programs`]) or an allowed one with an option that runs a
/// program, or an option of xargs gate does not know ([`xargs_program`]).
fn xargs_program_problem(
    rest: &[Word],
    dir: &Path,
    plan_path: Option<&str>,
    project: &[PathBuf],
) -> Option<String> {
    let i = match xargs_program(rest) {
        Ok(Some(i)) => i,
        Ok(None) => return None,
        Err(why) => return Some(why),
    };
    let program = &rest[i];
    if interpreter(&program.text) {
        return None;
    }
    let name = name_of(&program.text);
    let args: Vec<&str> = rest[i + 1..].iter().map(|w| w.text.as_str()).collect();
    super::programs::refused(&program.text, &name, dir, plan_path, project)
        .or_else(|| super::programs::data_tool_problem(&name, &args))
}

/// The first escape in inline code `code` that names a character by its number or name
/// (`\x61`, `\x{61}`, `\u0061`, `\U…`, `\N{…}`, an octal `\141`), if any: the
/// interpreter reads the character, gate's reading of the literal does not.
fn character_escape(code: &str) -> Option<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i + 1 < chars.len() {
        if chars[i] == '\\' {
            let next = chars[i + 1];
            if next == '\\' {
                i += 2;
                continue;
            }
            if matches!(next, 'x' | 'u' | 'U' | 'N' | '0'..='7') {
                return Some(chars[i..(i + 4).min(chars.len())].iter().collect());
            }
        }
        i += 1;
    }
    None
}

/// The first backslash escape in inline code `code` other than the few every language
/// reads alike (`\\`, `\"`, `\'`, `\n`, `\t`, `\r`), anywhere in the code (gate does not
/// parse each language's literals, comments and regular expressions), if any (review 17).
fn unsure_escape(code: &str) -> Option<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '\\' {
            match chars.get(i + 1) {
                Some('\\' | '"' | '\'' | 'n' | 't' | 'r') => i += 2,
                Some('\n') => return Some("\\<newline>".into()),
                Some(c) => return Some(format!("\\{c}")),
                None => return Some("\\".into()),
            }
            continue;
        }
        i += 1;
    }
    None
}

/// Calls of inline code that start a process from their literal arguments (a command
/// line, or a program and its arguments).
const SPAWNERS: &[&str] = &[
    "system",
    "exec",
    "execl",
    "execle",
    "execlp",
    "execlpe",
    "execv",
    "execve",
    "execvp",
    "execvpe",
    "spawn",
    "spawnl",
    "spawnle",
    "spawnlp",
    "spawnlpe",
    "spawnv",
    "spawnve",
    "spawnvp",
    "spawnvpe",
    "posix_spawn",
    "posix_spawnp",
    "spawnSync",
    "execSync",
    "execFile",
    "execFileSync",
    "fork",
    "popen",
    "Popen",
    "run",
    "call",
    "check_call",
    "check_output",
    "getoutput",
    "getstatusoutput",
    "open3",
    "open2",
    "readpipe",
    "startfile",
    "run_command",
    "capture",
    "capturex",
    "systemx",
    "runx",
];

/// The paths inline code `code` may run through its string literals: the first word of a
/// literal that opens a [`SPAWNERS`] call's arguments (or its list) and the first word
/// after `;`, `|`, `&` in any literal, when it holds a `/` (`"./lib/x.sh"`); and the
/// script of an interpreter a literal names (`"sh", "lib/x.sh"`, `"python3 x.py"`): the
/// first word after it that is not an option, unless an option gives the code (`-c`,
/// `-e`, `-m`). With `runs_text` (the code may run text it reads), every word with a `/`
/// of a literal outside a [`SPAWNERS`] call's arguments too.
fn command_paths(code: &str, runs_text: bool) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    // An interpreter named, whose script is still to come.
    let mut pending = false;
    // The literal is an argument of a [`SPAWNERS`] call.
    let mut in_call = false;
    let mut last_end = 0;
    for (at, close, lit) in super::words::literals_at(&chars) {
        // An interpreter's script follows it in the same list of arguments only.
        let between = chars.get(last_end + 1..at).unwrap_or_default();
        if !between
            .iter()
            .all(|c| c.is_whitespace() || matches!(c, ',' | '[' | '('))
        {
            pending = false;
            in_call = false;
        }
        last_end = close;
        // What precedes the literal: `(`, `[`, or a call name (`system "sh x"`).
        let mut k = at;
        while k > 0 && chars[k - 1].is_whitespace() {
            k -= 1;
        }
        let mut opens_call = false;
        let mut j = k;
        while j > 0 && matches!(chars[j - 1], '(' | '[') {
            j -= 1;
            while j > 0 && chars[j - 1].is_whitespace() {
                j -= 1;
            }
        }
        let end = j;
        while j > 0 && ident(chars[j - 1]) {
            j -= 1;
        }
        let name: String = chars[j..end].iter().collect();
        if SPAWNERS.contains(&name.as_str()) {
            opens_call = true;
            pending = false;
            in_call = true;
        }
        // Code that runs text it reads (`exec(open("lib/x.py").read())`): a literal outside
        // a process's arguments may name that text's file (review 14, c42).
        let any = runs_text && !in_call;
        let mut first = opens_call;
        for segment in lit.split([';', '|', '&', '\n']) {
            let words = segment
                .split(|c: char| c.is_whitespace() || "<>()'\"`".contains(c))
                .filter(|w| !w.is_empty());
            for word in words {
                let path = !word.contains("://") && !word.starts_with('-');
                if pending && !word.starts_with('-') {
                    pending = false;
                    out.push(word.to_string());
                } else if pending && matches!(word, "-c" | "-e" | "-E" | "-p" | "-m" | "--eval") {
                    pending = false;
                } else if (std::mem::take(&mut first) || any) && path && word.contains('/') {
                    out.push(word.to_string());
                }
                if interpreter(word) {
                    pending = true;
                }
            }
            first = true;
        }
    }
    out
}

/// Whether `word` names an interpreter ([`INTERPRETERS`]).
fn interpreter(word: &str) -> bool {
    let name = name_of(word);
    INTERPRETERS.contains(&name.as_str()) || INTERPRETERS.contains(&bare(&name))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    Shell,
    Python,
    Node,
    Other,
}

/// Python calls that load code or start a process: their arguments must be string
/// literals (idents starting with `exec` or `spawn` too: `os.execv`, `os.spawnl`).
const PY_CALLS: &[&str] = &[
    "eval",
    "compile",
    "__import__",
    "import_module",
    "run_path",
    "run_module",
    "system",
    "popen",
    "posix_spawn",
    "posix_spawnp",
    "startfile",
    "chdir",
    "exec_module",
    "load_source",
    "load_module",
    "spec_from_file_location",
    "SourceFileLoader",
];

/// Python modules that load code or start processes: only `import M` and `M.f(literals)`.
const PY_MODULES: &[&str] = &[
    "subprocess",
    "runpy",
    "importlib",
    "pty",
    "ctypes",
    "multiprocessing",
];

/// Names that reach code or a namespace by a computed name: refused in Python.
const PY_REFUSED: &[&str] = &[
    "getattr",
    "setattr",
    "vars",
    "globals",
    "locals",
    "__dict__",
    "__builtins__",
    "builtins",
    "__loader__",
    "addsitedir",
];

const NODE_CALLS: &[&str] = &[
    "require",
    "import",
    "eval",
    "Function",
    "exec",
    "execSync",
    "execFile",
    "execFileSync",
    "spawn",
    "spawnSync",
    "fork",
    "chdir",
    "runInThisContext",
    "runInNewContext",
    "runInContext",
    "compileFunction",
    "Script",
    "dlopen",
    "binding",
    "createRequire",
    "_load",
    "_compile",
];

const NODE_REFUSED: &[&str] = &[
    "globalThis",
    "global",
    "constructor",
    "Reflect",
    "mainModule",
    "__proto__",
    "Worker",
    // Node's module search path (review 13, b08).
    "Module",
    "_initPaths",
    "_nodeModulePaths",
    "_resolveFilename",
    "NODE_PATH",
];

const OTHER_CALLS: &[&str] = &[
    "eval",
    "do",
    "require",
    "require_relative",
    "load",
    "system",
    "exec",
    "spawn",
    "popen",
    "qx",
    "instance_eval",
    "class_eval",
    "send",
    "include",
    "dofile",
    "loadfile",
    "loadstring",
    "execute",
    "shell_exec",
    "passthru",
    "proc_open",
    "open",
    "readpipe",
    "syscall",
];

/// Words after which `[` opens an array, not a member access.
const JS_KEYWORDS: &[&str] = &[
    "const",
    "let",
    "var",
    "return",
    "of",
    "in",
    "typeof",
    "yield",
    "await",
    "case",
    "delete",
    "void",
    "else",
    "do",
    "throw",
    "instanceof",
];

/// Calls that run a string as code: refused whatever their argument, a literal too (review
/// 11, a08: `exec('import os; os.system("sh graders/gr"+"ade")')`), but for the c07 form
/// `exec(open('F').read())`, whose file is protected.
fn runs_code_from_a_string(lang: Lang, ident: &str) -> bool {
    match lang {
        Lang::Python => matches!(
            ident,
            "exec" | "eval" | "compile" | "runsource" | "runcode" | "execfile"
        ),
        Lang::Node => matches!(
            ident,
            "eval"
                | "Function"
                | "runInThisContext"
                | "runInNewContext"
                | "runInContext"
                | "compileFunction"
                | "Script"
        ),
        Lang::Other => matches!(
            ident,
            "eval" | "instance_eval" | "class_eval" | "module_eval" | "evaluate"
        ),
        Lang::Shell => false,
    }
}

/// Whether the call at `chars[at]` is `(open('F').read())` exactly.
fn open_read_call(chars: &[char], at: usize) -> bool {
    let rest: String = chars[at..].iter().collect();
    let rest = rest.trim_start();
    let Some(inner) = rest.strip_prefix("(open(") else {
        return false;
    };
    let c: Vec<char> = inner.chars().collect();
    if !matches!(c.first(), Some('\'' | '"')) {
        return false;
    }
    plain_string(&c, 0, false).is_some_and(|e| {
        let tail: String = c[e..].iter().collect();
        tail.starts_with(").read())")
    })
}

/// A member access by a computed name in JavaScript (`cp['exec'+'Sync']`, `o[k]`, review
/// 10): the content of a `[…]` that follows a name, `)` or `]` and is not a number or one
/// plain string.
fn computed_member(code: &str) -> Option<String> {
    let chars: Vec<char> = code.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if *c != '[' {
            continue;
        }
        let head: String = chars[..i].iter().collect();
        let head = head.trim_end();
        let before = head.chars().next_back();
        // The word before `[`: after a keyword it opens an array (`const [a] = …`, `of [x]`).
        let word: String = {
            let mut w: Vec<char> = head.chars().rev().take_while(|c| ident_char(*c)).collect();
            w.reverse();
            w.into_iter().collect()
        };
        let keyword = JS_KEYWORDS.contains(&word.as_str());
        let Some(end) = chars[i..].iter().position(|c| *c == ']') else {
            return Some(chars[i + 1..].iter().collect());
        };
        let after: String = chars[i + end + 1..].iter().collect();
        // `cp?.[…]` (review 11, a08), and a computed key `{['spawn'+'Sync']: f}`.
        let optional = head.ends_with("?.");
        let key =
            before.is_some_and(|b| matches!(b, '{' | ',')) && after.trim_start().starts_with(':');
        let member = before.is_some_and(|b| ident_char(b) || matches!(b, ')' | ']')) && !keyword;
        if !(member || optional || key) {
            continue;
        }
        let inner: String = chars[i + 1..i + end].iter().collect();
        let inner = inner.trim();
        let number = !inner.is_empty() && inner.chars().all(|c| c.is_ascii_digit());
        let plain = inner.len() >= 2
            && matches!(inner.chars().next(), Some('\'' | '"'))
            && inner.ends_with(inner.chars().next().unwrap_or('"'))
            && !inner[1..inner.len() - 1].contains(['\'', '"', '`', '+', '$']);
        if !(number || plain) {
            return Some(inner.to_string());
        }
    }
    None
}

/// Why perl inline code changes where perl loads modules from (review 13, b03, b08, b22):
/// `@INC` (`push @INC, "lib"`, `$INC[0]`), `use lib` / `no lib`, a `use if … lib`,
/// `lib->import`, `FindBin` (whose only use is a path beside the script). A module then
/// loads from a folder gate cannot name before the run; `-I DIR` names it, and gate
/// protects it.
fn perl_search_path_problem(code: &str) -> Option<String> {
    let fix = "(write `-I DIR`, which gate protects)";
    let chars: Vec<char> = code.chars().collect();
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':';
    let mut words: Vec<(usize, String)> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !word(chars[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && word(chars[i]) {
            i += 1;
        }
        words.push((start, chars[start..i].iter().collect()));
    }
    for (n, (at, w)) in words.iter().enumerate() {
        let w = w.trim_start_matches(':');
        let w = w.strip_prefix("main::").unwrap_or(w);
        let next = words.get(n + 1).map(|(_, x)| x.as_str());
        let after: String = chars[at + words[n].1.chars().count()..].iter().collect();
        let problem = match w {
            "INC" => Some("`INC` (perl's module search path)"),
            "FindBin" | "FindBin::Bin" | "FindBin::RealBin" => Some("`FindBin`"),
            // The bareword right after the keyword (`require "./lib/x.pl"` loads a file).
            "use" | "no" | "require" if bareword_lib(&after) => Some("`use lib`"),
            "use" | "no" if next == Some("if") => {
                let statement = after.split(';').next().unwrap_or_default();
                statement.contains("lib").then_some("`use if … lib`")
            }
            "lib" if after.trim_start().starts_with("->") => Some("`lib->import`"),
            _ if w.starts_with("lib::") => Some("`lib::`"),
            _ => None,
        };
        if let Some(p) = problem {
            return Some(format!(
                "inline perl code that changes where perl loads modules from ({p}) {fix}"
            ));
        }
    }
    None
}

/// Whether perl text `after` (what follows `use`, `no`, `require`) starts with the
/// bareword `lib`.
fn bareword_lib(after: &str) -> bool {
    after.trim_start().strip_prefix("lib").is_some_and(|r| {
        !r.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '/')
    })
}

/// What of `sys` Python inline code may use (review 13, b08): `import sys` and these
/// attributes, none of which changes where modules load from (`sys.path`,
/// `sys.modules`, `sys.meta_path` are not among them).
const PY_SYS_ATTRIBUTES: &[&str] = &[
    "exit",
    "argv",
    "orig_argv",
    "stdin",
    "stdout",
    "stderr",
    "__stdin__",
    "__stdout__",
    "__stderr__",
    "version",
    "version_info",
    "hexversion",
    "implementation",
    "platform",
    "maxsize",
    "maxunicode",
    "byteorder",
    "float_info",
    "int_info",
    "hash_info",
    "flags",
    "executable",
    "getrecursionlimit",
    "setrecursionlimit",
    "getsizeof",
    "getdefaultencoding",
    "getfilesystemencoding",
    "get_int_max_str_digits",
    "set_int_max_str_digits",
    "exc_info",
    "exception",
    "intern",
];

/// Why Python inline code reaches `sys` otherwise than as `import sys` and
/// `sys.ATTRIBUTE` of [`PY_SYS_ATTRIBUTES`] (review 13, b08, b22: `from sys import path`,
/// `import sys as s`, `p = sys`, `sys.path`): it may change where modules load from.
fn python_sys_problem(chars: &[char], start: usize, end: usize) -> Option<String> {
    let before: String = chars[..start].iter().collect();
    let statement = before
        .rsplit([';', '\n'])
        .next()
        .unwrap_or_default()
        .trim_start();
    let after: String = chars[end..].iter().collect();
    let after_t = after.trim_start();
    let imported = statement.starts_with("import ")
        && !after_t.starts_with("as ")
        && !after_t.starts_with("as\t");
    if imported {
        return None;
    }
    if let Some(attr) = after.strip_prefix('.') {
        let name: String = attr
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if PY_SYS_ATTRIBUTES.contains(&name.as_str())
            && !statement.starts_with("from ")
            && !before.trim_end().ends_with("import")
        {
            return None;
        }
        return Some(format!(
            "inline code that uses `sys.{name}` (only `import sys` and `sys.exit`, `sys.argv`, \
             `sys.stdout`, … are read; `sys.path` and `sys.modules` change where modules load \
             from)"
        ));
    }
    Some(
        "inline code that uses `sys` other than as `import sys` and `sys.exit`, `sys.argv`, \
         `sys.stdout`, … (`from sys import path`, `import sys as s`, `x = sys` may change \
         where modules load from)"
            .into(),
    )
}

/// Why inline code `code` may load or run a file gate cannot name before the run: a
/// code-loading or process-spawning call whose argument is not a string literal, or a name
/// that reaches one by a computed name (see the module doc). `None` when every such call
/// takes literals: then [`super::words::text_fed_paths`] protects every file it names.
fn inline_code_problem(lang: Lang, code: &str) -> Option<String> {
    inline_calls_problem(lang, code).or_else(|| {
        (lang == Lang::Node)
            .then(|| computed_member(code))
            .flatten()
            .map(|m| format!("inline code that reaches a member by a computed name (`[{m}]`)"))
    })
}

/// [`inline_code_problem`]'s calls and names.
fn inline_calls_problem(lang: Lang, code: &str) -> Option<String> {
    let chars: Vec<char> = code.chars().collect();
    if lang == Lang::Python {
        for p in ["sys.path", "sys.modules", "sys.meta_path", "sys.path_hooks"] {
            if code.contains(p) {
                return Some(format!("inline code that changes `{p}`"));
            }
        }
        // `__import__("sys")`, `import_module('sys')` (review 13).
        if code.contains("\"sys\"") || code.contains("'sys'") {
            return Some("inline code that names the module `sys` in a string".into());
        }
    }
    // Review 17, e32: after `)` (`if (1) /"/`), `}` or perl's `split`, a `/` opens a regular
    // expression as well: for node, and for perl code that runs or loads a file, every
    // `/` outside a string counts.
    let runs =
        super::words::runs_text(code, true) || !super::words::loader_arguments(code).is_empty();
    if (lang == Lang::Node || (lang == Lang::Other && runs))
        && let Some(re) = regex_with_a_quote(&chars)
    {
        // `const r=/"/; module.paths…; const s=/"/` (review 14, c38): gate reads code
        // and strings by their quotes, and a quote inside a regular expression would make
        // it read code as a string.
        return Some(format!(
            "inline code with the regular expression `{re}`, which holds a quote"
        ));
    }
    if lang == Lang::Node {
        // Node's module search path (review 13, b08): `module.paths`, `require.main.paths`,
        // `require.resolve.paths`, `module["paths"]`, `Module._initPaths()`, `NODE_PATH`.
        for p in ["\"paths\"", "'paths'", "`paths`"] {
            if code.contains(p) {
                return Some("inline code that names `paths` (node's module search path)".into());
            }
        }
    }
    if lang == Lang::Other && code.contains('`') {
        return Some("inline code that runs a command in backquotes".into());
    }
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' || c == '"' || (c == '`' && lang == Lang::Node) {
            i = string_end(&chars, i).unwrap_or(chars.len());
            continue;
        }
        if let Some(end) = perl_quote(&chars, i).filter(|_| lang == Lang::Other) {
            i = end;
            continue;
        }
        if c == '#' && lang == Lang::Python {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if !(c.is_alphabetic() || c == '_') || (i > 0 && ident_char(chars[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && ident_char(chars[i]) {
            i += 1;
        }
        let ident: String = chars[start..i].iter().collect();
        let before: String = chars[..start].iter().collect();
        let qualifier = before.trim_end().strip_suffix('.').map(|b| {
            let b = b.trim_end();
            let q = b.len()
                - b.chars()
                    .rev()
                    .take_while(|c| ident_char(*c))
                    .map(char::len_utf8)
                    .sum::<usize>();
            b[q..].to_string()
        });
        let (calls, refused): (&[&str], &[&str]) = match lang {
            Lang::Python => (PY_CALLS, PY_REFUSED),
            Lang::Node => (NODE_CALLS, NODE_REFUSED),
            _ => (OTHER_CALLS, &[]),
        };
        if refused.contains(&ident.as_str()) {
            return Some(format!("inline code that uses `{ident}`"));
        }
        if lang == Lang::Python
            && ident == "sys"
            && let Some(why) = python_sys_problem(&chars, start, i)
        {
            return Some(why);
        }
        if lang == Lang::Node
            && qualifier.is_some()
            && (ident == "paths" || (ident == "main" && qualifier.as_deref() == Some("require")))
        {
            return Some(format!(
                "inline code that uses `.{ident}` (node's module search path)"
            ));
        }
        if lang == Lang::Python && PY_MODULES.contains(&ident.as_str()) {
            let after: String = chars[i..].iter().collect();
            let after = after.trim_start();
            let imported =
                before.trim_end().ends_with("import") || before.trim_end().ends_with(',');
            let from = before.trim_end().ends_with("from");
            let alias = after.starts_with("as ") || after.starts_with("as\t");
            if from || alias || !(after.starts_with('.') || imported) {
                return Some(format!(
                    "inline code that uses `{ident}` other than as `import {ident}` and \
                     `{ident}.f(\"literal\")`"
                ));
            }
            if after.starts_with('.') {
                // `subprocess.run(`: its arguments, below.
                let j = chars.len() - after.chars().count() + 1;
                let mut k = j;
                while k < chars.len() && ident_char(chars[k]) {
                    k += 1;
                }
                let name: String = chars[j..k].iter().collect();
                if !literal_call(&chars, k, false) {
                    return Some(format!(
                        "inline code that calls `{ident}.{name}` with an argument other than a \
                         string literal"
                    ));
                }
                i = k;
            }
            continue;
        }
        let python_exec =
            lang == Lang::Python && (ident.starts_with("exec") || ident.starts_with("spawn"));
        // `re.compile(pattern)` compiles a pattern, not code.
        let regex = ident == "compile" && qualifier.as_deref() == Some("re");
        if lang == Lang::Node
            && qualifier.as_deref() == Some("Object")
            && matches!(
                ident.as_str(),
                "values"
                    | "entries"
                    | "getOwnPropertyNames"
                    | "getOwnPropertyDescriptor"
                    | "getOwnPropertyDescriptors"
                    | "assign"
            )
        {
            // `Object.values(require('child_process')).find(…)` (review 11, a08).
            return Some(format!("inline code that uses `Object.{ident}`"));
        }
        if (calls.contains(&ident.as_str()) || python_exec)
            && !regex
            && !literal_call(&chars, i, lang == Lang::Other)
        {
            return Some(format!(
                "inline code that calls `{ident}` with an argument other than a string literal"
            ));
        }
        if runs_code_from_a_string(lang, &ident)
            && !regex
            && !(lang == Lang::Python && ident == "exec" && open_read_call(&chars, i))
        {
            return Some(format!(
                "inline code that runs a string as code (`{ident}`)"
            ));
        }
    }
    None
}

fn ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// The index after the string literal that opens at `chars[i]`.
/// The first JavaScript (or perl) regular expression literal in `chars` that holds a quote
/// (`'`, `"` or a backquote), if any. Any `/` outside a string may start one (not `//` or
/// `/*`): after `)`, `}` or a name the language may read a regular expression where gate
/// would read a division (review 17, e32: `if (1) /"/.test(x)`, perl `split /"/`).
fn regex_with_a_quote(chars: &[char]) -> Option<String> {
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if matches!(c, '\'' | '"' | '`') {
            i = string_end(chars, i).unwrap_or(chars.len());
            continue;
        }
        if c == '/' && !matches!(chars.get(i + 1), Some('/' | '*')) {
            let mut j = i + 1;
            let mut class = false;
            while j < chars.len() {
                match chars[j] {
                    '\\' => j += 1,
                    '[' => class = true,
                    ']' => class = false,
                    '/' if !class => break,
                    '\n' => break,
                    _ => {}
                }
                j += 1;
            }
            // Unclosed on its line: a division, not a regular expression.
            if j >= chars.len() || chars[j] == '\n' {
                i += 1;
                continue;
            }
            let body: String = chars[i..=j].iter().collect();
            if body.contains(['\'', '"', '`']) {
                return Some(body);
            }
            i = j + 1;
            continue;
        }
        i += 1;
    }
    None
}

fn string_end(chars: &[char], i: usize) -> Option<usize> {
    let q = chars[i];
    let mut j = i + 1;
    while j < chars.len() {
        match chars[j] {
            '\\' => j += 2,
            d if d == q => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

/// Whether the call whose name ends at `chars[at]` takes only literals: `(…)` holding
/// string literals (not f-strings, not templates with `${`), numbers, `keyword=` / `key:`
/// names, `True`/`False`/`None`/`true`/`false`/`null`, lists and `open('F').read()`; or a
/// single string literal (`require 'x'`, `do "F"`).
fn literal_call(chars: &[char], at: usize, perl: bool) -> bool {
    let mut i = at;
    while i < chars.len() && chars[i].is_whitespace() {
        i += 1;
    }
    match chars.get(i) {
        Some('\'' | '"') => {
            return plain_string(chars, i, perl).is_some_and(|e| ends_here(chars, e));
        }
        Some('q') if perl => return perl_quote(chars, i).is_some_and(|e| ends_here(chars, e)),
        Some('(') => {}
        _ => return false,
    }
    let mut depth = 0;
    let mut j = i;
    while j < chars.len() {
        let c = chars[j];
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return true;
                }
            }
            '\'' | '"' | '`' => {
                // A prefix letter makes it an f-string (or a raw/bytes string).
                let prefix: String = chars[..j]
                    .iter()
                    .rev()
                    .take_while(|c| c.is_alphabetic())
                    .collect();
                if prefix.to_ascii_lowercase().contains('f') {
                    return false;
                }
                match plain_string(chars, j, perl) {
                    Some(end) => {
                        j = end;
                        continue;
                    }
                    None => return false,
                }
            }
            c if c.is_whitespace() || c == ',' || c == ':' => {}
            c if c.is_ascii_digit() => {}
            c if c.is_alphabetic() || c == '_' => {
                if let Some(end) = perl_quote(chars, j).filter(|_| perl) {
                    j = end;
                    continue;
                }
                let start = j;
                while j < chars.len() && ident_char(chars[j]) {
                    j += 1;
                }
                let ident: String = chars[start..j].iter().collect();
                let mut k = j;
                while k < chars.len() && chars[k] == ' ' {
                    k += 1;
                }
                let keyword =
                    matches!(chars.get(k), Some('=' | ':')) && chars.get(k + 1) != Some(&'=');
                let known = matches!(
                    ident.as_str(),
                    "True" | "False" | "None" | "true" | "false" | "null" | "r" | "b" | "rb" | "u"
                ) || (perl && is_filehandle(&ident));
                // `open('F').read()`: the c07 form, its file protected.
                let open_read = ident == "open" && {
                    let mut e = k;
                    let lit = chars.get(e) == Some(&'(')
                        && matches!(chars.get(e + 1), Some('\'' | '"'))
                        && plain_string(chars, e + 1, perl).is_some_and(|x| {
                            e = x;
                            true
                        });
                    let tail: String = chars[e.min(chars.len())..].iter().take(8).collect();
                    lit && tail.starts_with(").read()")
                };
                if open_read {
                    let mut e = k + 1;
                    e = plain_string(chars, e, perl).unwrap_or(e);
                    j = e + ").read()".len();
                    continue;
                }
                if keyword {
                    j = k + 1;
                    continue;
                }
                if !known {
                    return false;
                }
                continue;
            }
            _ => return false,
        }
        j += 1;
    }
    false
}

/// Whether nothing is computed onto a call's one literal argument, given without
/// parentheses, that ends at `chars[at]` (`do "F";`, but not `system "sh ".$g`).
fn ends_here(chars: &[char], at: usize) -> bool {
    let rest: String = chars[at..].iter().collect();
    let rest = rest.trim_start();
    rest.is_empty()
        || rest.starts_with([';', ')', '}'])
        || ["or ", "and ", "||", "&&", "if ", "unless "]
            .iter()
            .any(|w| rest.starts_with(w))
}

/// A Perl bareword filehandle (`F`, `FH`, `STDIN`): upper case, no call (review 10, a09:
/// `open(F, q(result.txt))`).
fn is_filehandle(ident: &str) -> bool {
    ident
        .chars()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// The index after Perl's `q(…)` or `qq(…)` (any delimiter) at `chars[i]` when it is a
/// string with nothing computed in it (a `qq` without `$` or `@`), or `None` (review 10,
/// a01/a02: `require q(graders/check.pl)` is a literal).
fn perl_quote(chars: &[char], i: usize) -> Option<usize> {
    if chars.get(i) != Some(&'q') || (i > 0 && ident_char(chars[i - 1])) {
        return None;
    }
    let qq = chars.get(i + 1) == Some(&'q');
    let at = i + 1 + usize::from(qq);
    let open = *chars.get(at)?;
    if open.is_alphanumeric() || open.is_whitespace() || "_,;=)]}>".contains(open) {
        return None;
    }
    let close = match open {
        '(' => ')',
        '[' => ']',
        '{' => '}',
        '<' => '>',
        c => c,
    };
    let mut depth = 0;
    let mut j = at + 1;
    while let Some(&c) = chars.get(j) {
        match c {
            '\\' => j += 1,
            '$' | '@' if qq => return None,
            c if c == close && depth == 0 => return Some(j + 1),
            c if c == close => depth -= 1,
            c if c == open => depth += 1,
            _ => {}
        }
        j += 1;
    }
    None
}

/// The index after a string literal at `chars[i]` with nothing computed in it (a template
/// literal's `${…}`; with `perl`, Perl's or Ruby's `"…"` that interpolates `$x`, `@x` or
/// `#{…}`: `system("sh $g")`), or `None`.
fn plain_string(chars: &[char], i: usize, perl: bool) -> Option<usize> {
    let end = string_end(chars, i)?;
    let inner: String = chars[i + 1..end - 1].iter().collect();
    let computed = (chars[i] == '`' && inner.contains("${"))
        || (perl && chars[i] == '"' && (inner.contains(['$', '@']) || inner.contains("#{")));
    (!computed).then_some(end)
}

/// Why `line`, run from `cwd` with the plan's `env`, is one gate cannot follow (see the
/// module doc), or `None`. `home` holds the folders of the plan's own programs besides the
/// writable `roots` (the plan's folder and its repository: [`project_folders`]).
pub(super) fn unfollowable(
    line: &CommandLine,
    cwd: &Path,
    env: &[(String, String)],
    roots: &[PathBuf],
    home: &[PathBuf],
    linkless: &[PathBuf],
) -> Option<String> {
    if env.iter().any(|(k, _)| k == "IFS") {
        return Some("`IFS` in `env:` (the shell splits the plan's values on it)".into());
    }
    // `roots` holds the task's own folder, or the folders of it its `writes:` names; a
    // program in the task's folder is the plan's own either way.
    let roots = roots.to_vec();
    let own = std::fs::canonicalize(cwd).ok();
    let project = roots.iter().chain(&own).chain(home).cloned().collect();
    let mut reader = Reader {
        env,
        dir: cwd.to_path_buf(),
        assigned: Vec::new(),
        roots,
        project,
        task_dir: std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf()),
        later_outside: false,
        replaceable: None,
        linkless: linkless.to_vec(),
    };
    match line {
        CommandLine::Shell(s) => reader.shell(s).err(),
        CommandLine::Argv(v) => {
            // No shell: the words are literal, but an interpreter's inline code is read.
            let words: Vec<Word> = v.iter().map(|a| Word::literal(a)).collect();
            let simple = Simple {
                words,
                ..Simple::default()
            };
            reader.simple(&simple, false, false, false).err()
        }
    }
}

/// A `check:` line (a task's, or a compare task's base side) gate cannot follow is refused
/// when the plan is loaded (see the module doc), unless `policy.sandbox: off`.
/// The folders where a plan's own programs live, besides the folders its trials write: the
/// plan's folder and the top of the git repository that holds it (review 19: a program by a
/// path outside them, such as `/root/.cargo/bin/rustup`, is an installed tool, read by its
/// name against [`super::programs`]' list, not a grader of the plan's).
fn project_folders(plan: &Path) -> Vec<PathBuf> {
    let Ok(folder) = std::fs::canonicalize(
        plan.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new(".")),
    ) else {
        return Vec::new();
    };
    let top = folder
        .ancestors()
        .find(|a| a.join(".git").exists())
        .filter(|a| a.parent().is_some())
        .map(Path::to_path_buf);
    std::iter::once(folder).chain(top).collect()
}

/// The start of an [`unfollowable`] reason that is a whole sentence with its own fix, not a
/// construct gate cannot follow.
const COMPLETE: &str = "\u{1}";

pub(super) fn refuse_unfollowable_check_lines(shown: &str, plan: &Plan) -> Result<(), PlanError> {
    if plan.policy.sandbox.mode == crate::model::SandboxMode::Off {
        return Ok(());
    }
    for t in &plan.tasks {
        let mut lines = Vec::new();
        lines.extend(t.check.as_ref().map(|c| ("check", c, &t.cwd, &t.env)));
        if let Some(c) = t.compare() {
            lines.extend(
                (c.base.check.as_ref()).map(|l| ("base.check", l, &c.base.cwd, &c.base.env)),
            );
        }
        let roots = super::state::writable_roots(plan);
        let home = project_folders(&plan.path);
        for (key, line, cwd, env) in lines {
            if super::state::launcher_folders(line, cwd, env, &roots).contains(&None) {
                return Err(PlanError::at_check(
                    shown,
                    t,
                    line,
                    format!(
                        "task `{}`: `{key}:` runs a tool through a launcher (`npx`, `pnpm exec`, \
                         …) that finds no `node_modules` in the task's folder, where a trial could \
                         create one holding the tool it runs; install the tool before the run \
                         (`npm ci`) or name it by path",
                        t.id
                    ),
                ));
            }
            // The task's `writes:` folders, where no trial makes a link (the box grants no
            // right to): a folder below one cannot be replaced by a link.
            let linkless = if t.writes.is_some() {
                t.write_roots(cwd)
            } else {
                Vec::new()
            };
            let Some(why) = unfollowable(line, cwd, env, &roots, &home, &linkless) else {
                continue;
            };
            // A refusal that is not about following the line names its own fix (review 71,
            // 19: the `-B` refusal got the generic tail after its own).
            if let Some(complete) = why.strip_prefix(COMPLETE) {
                return Err(PlanError::at_check(
                    shown,
                    t,
                    line,
                    format!("task `{}`: `{key}:` {complete}", t.id),
                ));
            }
            return Err(PlanError::at_check(
                shown,
                t,
                line,
                format!(
                    "task `{}`: `{key}:` has {why}, which gate cannot follow before the run to \
                     protect the grader it runs; put the logic in a script under a graders \
                     folder and name it on the line (`{key}: sh graders/check.sh`)",
                    t.id
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(line: &str) -> Option<String> {
        let env = [("GRADER".to_string(), "graders/grade".to_string())];
        unfollowable(
            &CommandLine::Shell(line.into()),
            Path::new("/nonexistent"),
            &env,
            &[],
            &[],
            &[],
        )
    }

    #[test]
    fn followable_lines_are_accepted() {
        for l in [
            "sh graders/check.sh",
            "cd graders && sh grade",
            "(cd graders && sh grade)",
            "cd graders; sh grade",
            "sh -c 'cd graders && sh grade'",
            "PYTHONPATH=graders python3 -I graders/check.py > out.txt 2>&1",
            "export X=1; sh graders/check.sh",
            "set -eu; sh graders/a.sh && sh graders/b.sh || exit 1",
            "set -o pipefail; sh graders/a.sh | tee log.txt",
            "timeout -s KILL 10 nice -n 5 env -u X LANG=C sh graders/grade",
            "cmp -s out.txt expected.txt",
            "grep -q foo out/*.log",
            "test -f \"$TMPDIR/x\"",
            "test -f \"$TMPDIR/state\" || { echo \"no booking\" >&2; exit 1; }",
            "sh \"$GRADER\" && sh ${GRADER}",
            "sh < graders/grade",
            "cat graders/grade | sh",
            "sh -c \"$(cat graders/grade)\"",
            "eval \"$(cat graders/grade)\"",
            "test \"$(cat result.txt)\" = right",
            "python3 -I -c \"exec(open('graders/grade').read())\"",
            "python3 -I -c 'import json,sys; d=json.load(open(\"out.json\")); sys.exit(0 if d[\"ok\"] else 1)'",
            "node -e \"require('./graders/check.js')\"",
            "node -e 'process.exit(require(\"fs\").readFileSync(\"r.txt\",\"utf8\").trim()==\"right\"?0:1)'",
            "git diff --quiet -- config/prod.yaml # the config is unchanged",
            "! grep -q error log.txt",
            "python3 -I -m pytest -q graders",
            "pytest -q -p no:cacheprovider graders/test_state.py",
            "'true'",
            "set -euo pipefail; test -s out.txt",
            "set -eo pipefail +u; grep -q right out.txt",
        ] {
            assert_eq!(why(l), None, "{l}");
        }
    }

    #[test]
    fn lines_resolved_only_when_they_run_are_refused() {
        for (l, what) in [
            ("G=graders/grade; sh $G", "`$G`"),
            ("P=src; PYTHONPATH=$P python3 graders/g.py", "`$P`"),
            (
                "set -- graders/grade; sh graders/grade",
                "`set` with operands",
            ),
            ("sh \"$1\"", "`$1`"),
            ("for f in graders/grade; do sh $f; done", "`for`"),
            ("while true; do sh graders/grade; done", "`while`"),
            ("if true; then sh graders/grade; fi", "`if`"),
            ("case x in x) sh graders/grade;; esac", "`case`"),
            ("f() { sh graders/grade; }; f", "function"),
            ("sh graders/*.sh", "pattern `graders/*.sh`"),
            ("sh graders/g?.sh", "pattern"),
            ("sh graders/g[1].sh", "pattern"),
            ("sh graders/{a,b}.sh", "pattern"),
            ("sh ~/grade", "pattern `~/grade`"),
            ("cat graders/*.sh | sh", "pattern"),
            ("env -C graders sh grade", "`env -C`"),
            ("env --chdir=graders sh grade", "`env -C`"),
            ("env -S 'sh graders/grade'", "`env -S`"),
            ("D=graders; cd $D && sh grade", "`$D`"),
            ("sh $(echo graders/grade)", "`$(echo graders/grade)`"),
            ("sh `echo graders/grade`", "`$(echo graders/grade)`"),
            ("echo $((1+1))", "arithmetic"),
            ("eval 'sh graders/grade'", "`eval`"),
            ("sh <<EOF\nexit 0\nEOF", "here-document"),
            ("sh <(cat graders/grade)", "process substitution"),
            ("ls graders | xargs -n1 sh", "`xargs`"),
            (
                "find graders -name '*.sh' -exec sh {} ';'",
                "`find -exec sh`",
            ),
            ("alias g='sh graders/grade'", "`alias`"),
            ("read g < list; sh $g", "`read`"),
            ("sh ${G:-graders/grade}", "parameter expansion"),
            ("bash -c 'G=graders/grade; sh $G'", "`$G`"),
            (
                "node -e \"require(process.cwd()+'/graders/check.js')\"",
                "`require`",
            ),
            ("node -e 'import(p)'", "`import`"),
            (
                "node -e \"require('child_process').execSync('sh '+f)\"",
                "`execSync`",
            ),
            ("node -e 'new Function(code)()'", "`Function`"),
            ("node -e 'globalThis[\"req\"+\"uire\"](x)'", "`globalThis`"),
            (
                "python3 -I -c \"exec(open('graders/'+'grade').read())\"",
                "`exec`",
            ),
            ("python3 -I -c \"__import__(name)\"", "`__import__`"),
            (
                "python3 -I -c 'import importlib; importlib.import_module(m)'",
                "`importlib.import_module`",
            ),
            (
                "python3 -I -c 'import runpy as r; r.run_path(p)'",
                "`runpy`",
            ),
            (
                "python3 -I -c 'from subprocess import run; run(x)'",
                "`subprocess`",
            ),
            (
                "python3 -I -c 'import subprocess; subprocess.run([\"sh\", g])'",
                "`subprocess.run`",
            ),
            (
                "python3 -I -c 'import os; os.system(f\"sh {g}\")'",
                "`system`",
            ),
            ("python3 -I -c 'import os; os.execv(p, [p])'", "`execv`"),
            (
                "python3 -I -c 'import sys; sys.path.insert(0, \"src\")'",
                "`sys.path`",
            ),
            (
                "python3 -I -c 'getattr(__builtins__, \"ex\"+\"ec\")(c)'",
                "`getattr`",
            ),
            ("perl -e 'do $f'", "`do`"),
        ] {
            let got = why(l);
            assert!(
                got.as_deref().is_some_and(|g| g.contains(what)),
                "{l}: {got:?} should name {what}"
            );
        }
    }

    #[test]
    fn review10_data_substitutions_perl_q_strings_and_wait_are_followed() {
        for l in [
            "test -s r && [ $(wc -l < r) -eq 1 ]",
            "[ \"`sh graders/grade`\" = ok ]",
            "sh graders/grade & wait $!",
            "sh graders/grade; [ $? -eq 0 ]",
            "perl -e \"require q(graders/check.pl)\"",
            "perl -e 'require qq[graders/check.pl] or die'",
            "perl -e \"open(F, q(result.txt)); exit(<F> =~ /right/ ? 0 : 1)\"",
        ] {
            assert_eq!(why(l), None, "{l}");
        }
        for (l, what) in [
            ("perl -e 'require qq(graders/$f)'", "`require`"),
            ("perl -e 'system q(sh ).$g'", "`system`"),
            ("perl -e 'open(F, q(sh ).$g)'", "`open`"),
            ("perl -e 'system \"sh graders/gr\".\"ade\"'", "`system`"),
            (
                "perl -e '$g=q(graders/grade); system(\"sh $g\")'",
                "`system`",
            ),
            ("ruby -e 'system(\"sh #{g}\")'", "`system`"),
            ("sh $!", "`$!`"),
            ("wait $1", "`$1`"),
            ("[ $(sh $X) = ok ]", "`$(sh $X)`"),
        ] {
            let got = why(l);
            assert!(
                got.as_deref().is_some_and(|g| g.contains(what)),
                "{l}: {got:?} should name {what}"
            );
        }
    }

    #[test]
    fn the_protected_words_are_the_lexers() {
        use super::super::words::{Token, line_tokens};
        let env = [("G".to_string(), "graders/grade -x".to_string())];
        let words = |l: &str| -> Vec<String> {
            line_tokens(l, &env, 0)
                .into_iter()
                .map(|t| match t {
                    Token::Word(w) => w,
                    Token::End => ";".into(),
                    Token::Input => "<".into(),
                    Token::Scope(start) => if start { "(" } else { ")" }.into(),
                })
                .collect()
        };
        // A continuation, `$"…"`, a comment, `2>&1`, a plan value split unquoted and not
        // quoted, single quotes keeping `$G`, `!`, `{ …; }`.
        assert_eq!(words("sh gr\\\nade # x y"), ["sh", "grade"]);
        assert_eq!(words("sh $\"g\" 2>&1"), ["sh", "g", ";", "1"]);
        assert_eq!(words("sh $'g' x= y=z"), ["sh", "g", "x=", "z", "y=z"]);
        assert_eq!(
            words("sh $G \"$G\" '$G'"),
            [
                "sh",
                "graders/grade",
                "-x",
                "graders/grade -x",
                "$G",
                ";",
                "(",
                "graders/grade",
                "-x",
                ";",
                ")",
                ";"
            ]
        );
        assert_eq!(words("! { sh a; }"), [";", "sh", "a", ";"]);
        assert_eq!(
            words("[ $(wc -l < r) = 1 ]"),
            [
                "[",
                "$(wc -l < r)",
                "=",
                "1",
                "]",
                ";",
                "(",
                "wc",
                "-l",
                "<",
                "r",
                ";",
                ")",
                ";"
            ]
        );
    }

    #[test]
    fn a_literal_spawn_in_inline_code_is_followed() {
        for code in [
            "import subprocess; subprocess.run(['sh', 'graders/grade'], check=True)",
            "import os; os.system('sh graders/grade')",
            "import re; re.compile(pattern)",
        ] {
            assert_eq!(inline_code_problem(Lang::Python, code), None, "{code}");
        }
        for code in [
            "require('child_process').execSync('sh graders/grade', {stdio: 'inherit'})",
            "require(`./graders/check.js`)",
        ] {
            assert_eq!(inline_code_problem(Lang::Node, code), None, "{code}");
        }
        assert!(inline_code_problem(Lang::Node, "require(`./${d}/check.js`)").is_some());
    }
}
