//! What a plan names is gate's state: the files that decide a verdict besides the task's own
//! work, which no trial may change.
//!
//! A trial runs in the plan's folder and may write there (docs/trust.md, "The box"). Before,
//! that let it rewrite the plan's own `check:` grader (`printf '#!/bin/sh\nexit 0\n' >
//! check.sh`: every later trial passes), its `run:` script (later trials run other code) or
//! a `fixtures:` file (later trials run on other data while the ledger keeps the first hash).
//! So these files join gate's protected paths, which the box makes read-only:
//!
//! - every file a `run` or `check` command line of a task (or of a compare task's base side)
//!   names that exists when the run starts and is a program or a script: executable, or with
//!   a script's extension (`.sh`, `.py`, `.js`, …); the first operand of an interpreter
//!   (`INTERPRETERS`: `sh grade`, `python3 -u grade`) whatever its name or mode; the
//!   `NAME.py` and package files of `python -m NAME`; a command found through the plan's own
//!   `env: PATH`. Words are resolved against the command's working folder, or the folder of a
//!   `cd DIR` earlier on the line. A word is found in an argv or a shell line split on blanks
//!   (outside quotes) and shell operators; `$VAR` / `${VAR}` with a value in the plan's `env:`
//!   is expanded first, and a word with another `$`, a glob or `~` names nothing (it is not
//!   known before the run). A data word (`cmp answer.txt expected.txt`) is not taken: the
//!   task's own output is named on the same lines and may exist from an earlier run.
//!   What a grader runs in turn (a helper it calls, a data file it reads) is not seen: list
//!   those in `fixtures:` (globs), which are protected too;
//! - every `fixtures:` file.
//!
//! A named file that is a symbolic link in a folder the trials may write is refused when the
//! plan is loaded: the box protects what it points to, not the link.
//!
//! [`Snapshot`] fingerprints the same files (and `--after` ledgers) before the first trial,
//! so that a change on a kernel without the box's walls is still seen when the run ends: the
//! run then publishes no verdict (exit 4). It never follows a link blindly, never blocks on
//! a FIFO and never reads more than [`MAX_SNAPSHOT_BYTES`] of a file.

use std::path::{Path, PathBuf};

use super::{CommandLine, Plan};
use crate::ledger::sha256_hex;

/// Extensions of files run by an interpreter (`sh check.sh`, `python3 grade.py`).
const SCRIPT_EXTENSIONS: &[&str] = &[
    "sh", "bash", "zsh", "ksh", "fish", "py", "js", "mjs", "cjs", "ts", "mts", "cts", "rb", "pl",
    "pm", "php", "lua", "tcl", "r", "jl", "awk", "sed", "ps1", "exs", "go", "rs",
];

/// Programs whose first operand is a script they run, whatever its name or mode
/// (`sh grade`, `python3 -u grade`); a trailing version (`python3.12`) is ignored.
const INTERPRETERS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "python", "pypy", "node", "nodejs",
    "perl", "ruby", "deno", "bun", "php", "lua", "luajit", "tclsh", "rscript", "julia", "elixir",
    "tsx", "ts-node", "source", ".",
];

/// At most this many files of a `-m module` package folder are protected (a larger package
/// is not a grader beside the plan; list what matters in `fixtures:`).
const MAX_MODULE_FILES: usize = 1000;

/// The files of `plan` that no trial may write (see the module doc): the programs and
/// scripts its tasks' `run` and `check` name, then its fixtures; absolute, deduplicated.
pub fn named_files(plan: &Plan) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for t in &plan.tasks {
        let mut lines = vec![(&t.run, &t.cwd, &t.env)];
        lines.extend(t.check.as_ref().map(|c| (c, &t.cwd, &t.env)));
        if let Some(c) = &t.compare {
            lines.push((&c.base.run, &c.base.cwd, &c.base.env));
            lines.extend(c.base.check.as_ref().map(|l| (l, &c.base.cwd, &c.base.env)));
        }
        for (line, cwd, env) in lines {
            files.extend(programs_named(line, cwd, env));
        }
    }
    files.extend(plan.fixture_files.iter().map(|f| absolute(f)));
    let mut seen = std::collections::BTreeSet::new();
    files.retain(|f| seen.insert(f.clone()));
    files
}

/// A named file that is a symbolic link inside a folder the trials may write is refused:
/// the box makes the file it points to read-only, not the link, so a trial could point the
/// link at a grader of its own (and point it back before the run ends).
pub(super) fn refuse_symlinked_named_files(
    shown: &str,
    plan: &Plan,
) -> Result<(), super::PlanError> {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| absolute(p));
    let mut writable: Vec<PathBuf> = plan
        .policy
        .sandbox
        .writable
        .iter()
        .map(|w| real(w))
        .collect();
    for t in &plan.tasks {
        writable.push(real(&t.cwd));
        if let Some(c) = &t.compare {
            writable.push(real(&c.base.cwd));
        }
    }
    for f in named_files(plan) {
        let is_link = std::fs::symlink_metadata(&f).is_ok_and(|m| m.file_type().is_symlink());
        // The link's own folder, resolved: a link reached through a linked folder is still
        // in a folder the trials may write when that folder resolves into one.
        let folder = f.parent().map(real).unwrap_or_default();
        if is_link && writable.iter().any(|w| folder.starts_with(w)) {
            return Err(super::PlanError::Invalid {
                path: shown.to_string(),
                line: 1,
                column: 1,
                message: format!(
                    "`{}` is a symbolic link to `{}` in a folder the trials may write: the box \
                     protects the file it points to, not the link, so a trial could point it at a \
                     grader of its own; name `{}` in the plan instead",
                    f.display(),
                    real(&f).display(),
                    real(&f).display()
                ),
            });
        }
    }
    Ok(())
}

/// A compare task whose base folder (or head's) lies beneath a `policy.sandbox.writable`
/// path is refused: the writable roots are both sides', so head's trials could rewrite
/// base's agent there (or base's head's). Each side's own folder is checked when the plan
/// is read (`base.cwd` inside head's is refused there).
pub(super) fn refuse_writable_over_a_side(
    shown: &str,
    plan: &Plan,
) -> Result<(), super::PlanError> {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| absolute(p));
    for t in &plan.tasks {
        let Some(c) = &t.compare else { continue };
        for w in &plan.policy.sandbox.writable {
            let w = real(w);
            for (side, cwd) in [("head", &t.cwd), ("base", &c.base.cwd)] {
                if real(cwd).starts_with(&w) {
                    return Err(super::PlanError::Invalid {
                        path: shown.to_string(),
                        line: t.line,
                        column: 1,
                        message: format!(
                            "task `{}`: `policy.sandbox.writable` `{}` holds {side}'s working folder, so the \
                             other side's trials could rewrite it; name folders beside both checkouts instead",
                            t.id,
                            w.display()
                        ),
                    });
                }
            }
        }
    }
    Ok(())
}

/// A word of a command line, or the end of a simple command (`;`, `&&`, `|`, …).
#[derive(Debug, PartialEq)]
enum Token {
    Word(String),
    End,
}

/// The existing programs and scripts `line` names, run from `cwd` with the plan's `env`
/// (see the module doc for what counts).
pub fn programs_named(line: &CommandLine, cwd: &Path, env: &[(String, String)]) -> Vec<PathBuf> {
    let tokens: Vec<Token> = match line {
        // An argv is one command; an argument may itself be a shell line (`sh -c '…'`).
        CommandLine::Argv(v) => v.iter().flat_map(|a| tokenize(&expand(a, env))).collect(),
        CommandLine::Shell(s) => tokenize(&expand(s, env)),
    };
    let path_dirs: Vec<PathBuf> = env
        .iter()
        .filter(|(k, _)| k == "PATH")
        .flat_map(|(_, v)| v.split(':').map(|d| cwd.join(d)).collect::<Vec<_>>())
        .collect();
    let mut found = Vec::new();
    let mut dir = cwd.to_path_buf();
    // What the previous words make of this one.
    let mut after_cd = false;
    let mut after_m = false;
    let mut interpreter: Option<String> = None;
    let mut first = true;
    for t in tokens {
        let w = match t {
            Token::End => {
                (after_cd, after_m, interpreter, first) = (false, false, None, true);
                continue;
            }
            Token::Word(w) => w,
        };
        if w.is_empty() || w.contains(['$', '*', '?', '[', '~', '`']) {
            continue;
        }
        let p = absolute(&dir.join(&w));
        if std::mem::take(&mut after_cd) {
            // `cd graders && sh check.sh`: later words are in `graders/`.
            if p.is_dir() {
                dir = p;
            }
            continue;
        }
        if std::mem::take(&mut after_m) {
            // `python3 -m grader`: `grader.py`, or the package folder `grader/`.
            let rel = PathBuf::from(w.replace('.', "/"));
            let module = absolute(&dir.join(&rel).with_extension("py"));
            if module.is_file() {
                found.push(module);
            }
            let top = absolute(&dir.join(w.split('.').next().unwrap_or_default()));
            if top.is_dir() {
                files_under(&top, &mut found);
            } else if top.with_extension("py").is_file() {
                found.push(top.with_extension("py"));
            }
            interpreter = None;
            continue;
        }
        if w == "cd" || w == "pushd" {
            after_cd = true;
            continue;
        }
        if let Some(i) = &interpreter {
            let python = i.starts_with("python") || i.starts_with("pypy");
            if python && w == "-m" {
                after_m = true;
                continue;
            }
            let evaluates = matches!(
                i.as_str(),
                "node" | "nodejs" | "perl" | "ruby" | "bun" | "deno"
            );
            if w == "-c" || (evaluates && (w == "-e" || w == "--eval")) {
                // Inline code: no script follows.
                interpreter = None;
                continue;
            }
            if w.starts_with('-') || (matches!(i.as_str(), "deno" | "bun") && w == "run") {
                continue;
            }
        }
        if interpreter.take().is_some() && p.is_file() {
            // The interpreter's script, whatever its name and mode.
            found.push(p);
            continue;
        }
        if is_program(&p) {
            found.push(p);
        } else if !w.contains('/') {
            // A command found through the plan's own `PATH`.
            found.extend(
                path_dirs
                    .iter()
                    .map(|d| absolute(&d.join(&w)))
                    .find(|c| is_program(c)),
            );
        }
        let name = w.rsplit('/').next().unwrap_or(&w).to_ascii_lowercase();
        let bare = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        // `.` and `source` run a script only as a command (`find . -name x` does not).
        let sourcing = matches!(name.as_str(), "." | "source");
        if (INTERPRETERS.contains(&name.as_str()) || INTERPRETERS.contains(&bare))
            && (!sourcing || first)
        {
            interpreter = Some(name);
        }
        first = false;
    }
    found
}

/// The regular files under `dir`, at most [`MAX_MODULE_FILES`] of them (links not followed).
fn files_under(dir: &Path, found: &mut Vec<PathBuf>) {
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

/// `$NAME` and `${NAME}` replaced by their values in the plan's `env` (a name the plan
/// does not set is left as it is, so the word names nothing).
fn expand(line: &str, env: &[(String, String)]) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, len) = if let Some(inner) = after.strip_prefix('{') {
            match inner.find('}') {
                Some(end) => (&inner[..end], end + 2),
                None => ("", 0),
            }
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], end)
        };
        match env
            .iter()
            .rev()
            .find(|(k, _)| !name.is_empty() && k == name)
        {
            Some((_, v)) => out.push_str(v),
            None => out.push_str(&rest[at..at + 1 + len]),
        }
        rest = &after[len..];
    }
    out.push_str(rest);
    out
}

/// Words of a command line: split on blanks (outside quotes) and shell operators, which
/// end a simple command; quotes dropped; the value of `NAME=VALUE` or `--opt=VALUE` taken
/// as a word of its own too.
fn tokenize(line: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let push = |word: &mut String, tokens: &mut Vec<Token>| {
        if word.is_empty() {
            return;
        }
        if let Some((_, value)) = word.split_once('=') {
            tokens.push(Token::Word(value.to_string()));
        }
        let word = std::mem::take(word);
        // A quoted word may be a shell line of its own (`sh -c 'sh check'`): its words too.
        let line = word.contains(|c: char| c.is_whitespace() || ";&|()<>{}".contains(c));
        let inner = if line { tokenize(&word) } else { Vec::new() };
        tokens.push(Token::Word(word));
        if line {
            tokens.push(Token::End);
            tokens.extend(inner);
            tokens.push(Token::End);
        }
    };
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => quote = Some(c),
            (None, '\\') => {}
            (None, c) if c.is_whitespace() => push(&mut word, &mut tokens),
            (None, c) if ";&|()<>{}\n".contains(c) => {
                push(&mut word, &mut tokens);
                if tokens.last() != Some(&Token::End) {
                    tokens.push(Token::End);
                }
            }
            (None, c) => word.push(c),
        }
    }
    push(&mut word, &mut tokens);
    tokens
}

/// A regular file that is executable or has a script's extension.
fn is_program(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    let Ok(meta) = std::fs::metadata(p) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    let script = p
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| SCRIPT_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()));
    script || meta.permissions().mode() & 0o111 != 0
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// At most this many bytes of a named file are hashed; a larger file is recorded by its
/// size only (a grader or fixture that large is not read whole at the end of a run).
pub const MAX_SNAPSHOT_BYTES: u64 = 256 * 1024 * 1024;

/// The contents of gate's named files as they were before the first trial, to compare with
/// when the run ends: of each, what it is (missing, a link and where it points, a regular
/// file's SHA-256, or another kind of file) — read without following a link, without
/// blocking, and no further than [`MAX_SNAPSHOT_BYTES`].
#[derive(Debug, Default)]
pub struct Snapshot {
    files: Vec<(PathBuf, String)>,
}

impl Snapshot {
    /// Fingerprint each of `files` now.
    pub fn take(files: &[PathBuf]) -> Snapshot {
        Snapshot {
            files: files.iter().map(|f| (f.clone(), fingerprint(f))).collect(),
        }
    }

    /// The files whose content is not what it was when the snapshot was taken (changed,
    /// removed, replaced, re-pointed, or now of another type).
    pub fn changed(&self) -> Vec<&Path> {
        self.files
            .iter()
            .filter(|(f, d)| fingerprint(f) != *d)
            .map(|(f, _)| f.as_path())
            .collect()
    }
}

/// What `p` is now (see [`Snapshot`]). A link is followed by hand, each step recorded, at
/// most 40 steps (the kernel's own limit); every open is `O_NOFOLLOW | O_NONBLOCK`, so a
/// FIFO or a device swapped in between the look and the open is seen, never waited on.
fn fingerprint(p: &Path) -> String {
    let mut out = String::new();
    let mut p = p.to_path_buf();
    for _ in 0..40 {
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            out.push_str("missing");
            return out;
        };
        if meta.file_type().is_symlink() {
            let Ok(to) = std::fs::read_link(&p) else {
                out.push_str("unreadable link");
                return out;
            };
            out.push_str(&format!("link {} -> ", to.display()));
            p = p.parent().unwrap_or(Path::new("/")).join(to);
            continue;
        }
        out.push_str(&file_fingerprint(&p, &meta));
        return out;
    }
    out.push_str("too many links");
    out
}

fn file_fingerprint(p: &Path, meta: &std::fs::Metadata) -> String {
    use std::io::Read as _;
    use std::os::unix::fs::{FileTypeExt as _, OpenOptionsExt as _};
    let kind = |t: std::fs::FileType| {
        if t.is_file() {
            "file"
        } else if t.is_dir() {
            "folder"
        } else if t.is_fifo() {
            "fifo"
        } else if t.is_char_device() || t.is_block_device() {
            "device"
        } else if t.is_socket() {
            "socket"
        } else {
            "other"
        }
    };
    if !meta.is_file() {
        return format!("a {}", kind(meta.file_type()));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(p);
    let Ok(file) = file else {
        return "unreadable".to_string();
    };
    // What was opened, not what the path was a moment ago.
    let Ok(meta) = file.metadata() else {
        return "unreadable".to_string();
    };
    if !meta.is_file() {
        return format!("a {}", kind(meta.file_type()));
    }
    if meta.len() > MAX_SNAPSHOT_BYTES {
        return format!("a file of {} bytes", meta.len());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // Bounded even if it grows while read.
    if file
        .take(MAX_SNAPSHOT_BYTES + 1)
        .read_to_end(&mut bytes)
        .is_err()
    {
        return "unreadable".to_string();
    }
    if bytes.len() as u64 > MAX_SNAPSHOT_BYTES {
        return format!("a file of more than {MAX_SNAPSHOT_BYTES} bytes");
    }
    format!("sha256 {}", sha256_hex(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_of_a_shell_line_drop_quotes_and_split_on_operators() {
        let words = |l: &str| {
            tokenize(l)
                .into_iter()
                .map(|t| match t {
                    Token::Word(w) => w,
                    Token::End => ";".to_string(),
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            words("sh 'check.sh'&&X=./a.py ./b"),
            ["sh", "check.sh", ";", "./a.py", "X=./a.py", "./b"]
        );
        assert_eq!(
            words("sh -c 'sh sub/check'"),
            ["sh", "-c", "sh sub/check", ";", "sh", "sub/check", ";"]
        );
    }

    #[test]
    fn a_plan_env_value_is_expanded_and_an_unknown_name_is_not() {
        let env = [("GRADER".to_string(), "check.sh".to_string())];
        assert_eq!(
            expand("sh \"$GRADER\" ${GRADER} $OTHER", &env),
            "sh \"check.sh\" check.sh $OTHER"
        );
    }

    #[test]
    fn a_grader_named_by_check_is_found_and_an_output_file_is_not() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("check.sh"), "exit 0").unwrap();
        std::fs::write(d.join("answer.txt"), "42").unwrap();
        std::fs::write(d.join("grade"), "exit 0").unwrap();
        std::fs::set_permissions(d.join("grade"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let line = CommandLine::Shell("sh check.sh && grep -q 42 answer.txt && ./grade $X".into());
        assert_eq!(
            programs_named(&line, d, &[]),
            [absolute(&d.join("check.sh")), absolute(&d.join("grade"))]
        );
    }

    #[test]
    fn a_fifo_or_a_device_is_fingerprinted_without_blocking_or_reading() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("check.sh");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        assert_eq!(fingerprint(&fifo), "a fifo");
        assert_eq!(fingerprint(Path::new("/dev/zero")), "a device");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert_eq!(fingerprint(&link), "link /dev/zero -> a device");
    }
}
