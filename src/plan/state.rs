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
//!   a script's extension (`.sh`, `.py`, `.js`, …), resolved against the command's working
//!   folder. A word is found in an argv or a shell line split on blanks, quotes and shell
//!   operators; a word with `$`, a glob or `~` names nothing (it is not known before the run).
//!   What a grader runs in turn (a helper it calls, a data file it reads) is not seen: list
//!   those in `fixtures:` (globs), which are protected too;
//! - every `fixtures:` file.
//!
//! [`Snapshot`] hashes the same files (and `--after` ledgers) before the first trial, so that
//! a change on a kernel without the box's walls is still seen when the run ends: the run then
//! publishes no verdict (exit 4).

use std::path::{Path, PathBuf};

use super::{CommandLine, Plan};
use crate::ledger::sha256_hex;

/// Extensions of files run by an interpreter (`sh check.sh`, `python3 grade.py`).
const SCRIPT_EXTENSIONS: &[&str] = &[
    "sh", "bash", "zsh", "ksh", "fish", "py", "js", "mjs", "cjs", "ts", "mts", "cts", "rb", "pl",
    "pm", "php", "lua", "tcl", "r", "jl", "awk", "sed", "ps1", "exs", "go", "rs",
];

/// The files of `plan` that no trial may write (see the module doc): the programs and
/// scripts its tasks' `run` and `check` name, then its fixtures; absolute, deduplicated.
pub fn named_files(plan: &Plan) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for t in &plan.tasks {
        let mut lines = vec![(&t.run, &t.cwd)];
        lines.extend(t.check.as_ref().map(|c| (c, &t.cwd)));
        if let Some(c) = &t.compare {
            lines.push((&c.base.run, &c.base.cwd));
            lines.extend(c.base.check.as_ref().map(|l| (l, &c.base.cwd)));
        }
        for (line, cwd) in lines {
            files.extend(programs_named(line, cwd));
        }
    }
    files.extend(plan.fixture_files.iter().map(|f| absolute(f)));
    let mut seen = std::collections::BTreeSet::new();
    files.retain(|f| seen.insert(f.clone()));
    files
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

/// The existing programs and scripts `line` names, run from `cwd`.
pub fn programs_named(line: &CommandLine, cwd: &Path) -> Vec<PathBuf> {
    let words = match line {
        CommandLine::Argv(v) => v.iter().flat_map(|a| split_words(a)).collect::<Vec<_>>(),
        CommandLine::Shell(s) => split_words(s),
    };
    words
        .into_iter()
        .filter(|w| !w.is_empty() && !w.contains(['$', '*', '?', '[', '~', '`']))
        .map(|w| absolute(&cwd.join(w)))
        .filter(|p| is_program(p))
        .collect()
}

/// Words of a command line: split on blanks and shell operators, quotes dropped, and the
/// value of `NAME=VALUE` or `--opt=VALUE` taken as a word of its own too.
fn split_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    for raw in line.split(|c: char| c.is_whitespace() || ";&|()<>{}".contains(c)) {
        let w: String = raw.chars().filter(|c| !"'\"\\".contains(*c)).collect();
        if let Some((_, value)) = w.split_once('=') {
            words.push(value.to_string());
        }
        words.push(w);
    }
    words
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

/// The contents of gate's named files as they were before the first trial (a SHA-256 of
/// each, or none for a file that could not be read), to compare with when the run ends.
#[derive(Debug, Default)]
pub struct Snapshot {
    files: Vec<(PathBuf, Option<String>)>,
}

impl Snapshot {
    /// Hash each of `files` now.
    pub fn take(files: &[PathBuf]) -> Snapshot {
        Snapshot {
            files: files.iter().map(|f| (f.clone(), digest(f))).collect(),
        }
    }

    /// The files whose content is not what it was when the snapshot was taken (changed,
    /// removed or replaced).
    pub fn changed(&self) -> Vec<&Path> {
        self.files
            .iter()
            .filter(|(f, d)| digest(f) != *d)
            .map(|(f, _)| f.as_path())
            .collect()
    }
}

fn digest(p: &Path) -> Option<String> {
    std::fs::read(p).ok().map(|b| sha256_hex(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_of_a_shell_line_drop_quotes_and_split_on_operators() {
        assert_eq!(
            split_words("sh 'check.sh'&&X=./a.py ./b"),
            ["sh", "check.sh", "", "./a.py", "X=./a.py", "./b"]
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
            programs_named(&line, d),
            [absolute(&d.join("check.sh")), absolute(&d.join("grade"))]
        );
    }
}
