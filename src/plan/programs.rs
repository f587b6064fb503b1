//! The programs a `check:` line may name by their bare name (issue 29; reviews 16 and 17).
//!
//! gate follows a check line word by word (`super::grammar`) so that every file it runs or
//! loads is known at load and protected from the trials. That holds only for programs whose
//! words gate reads: the interpreters (`super::invoke`), the tools whose programs and
//! options it reads (`super::tools`: awk, sed, jq, make, git, tar, prove, find, xargs), the
//! test runners it warns about (`super::reach`), and programs that run nothing named by
//! their arguments (grep, diff, cat, …). Any other program may run a command or load a file
//! its arguments name in a way gate does not see: `taskset 1 sh lib/new.sh`, `strace -o x
//! sh lib/new.sh`, `sqlite3 db '.shell sh lib/x.sh'`, `zip -TT 'sh lib/x.sh'`, `gcc
//! -wrapper`, `script -c`: two independent reviews found over 30 such programs after each
//! had been listed one by one. So the list is an allow-list: a program named by its bare
//! name (found on `PATH`), or by a path into a system folder, must be on it, or the line is
//! refused at load with the way out: run it from a grader script in a folder the trials do
//! not write (`sh graders/check.sh`), which is gate's state and protected whole.
//!
//! A program named by a path into the plan's own folders (`./check.sh`, `graders/grade`: a
//! folder the trials write, the plan's folder, the repository that holds it) is the plan's
//! own grader and is protected as such; what it does inside is its author's
//! (docs/trust.md). A program by a path elsewhere that is installed — in a folder on gate's
//! own `PATH` (`/root/.cargo/bin/rustup`), or a version manager (`~/.pyenv/libexec/pyenv`)
//! — is judged by its name like those in the system's folders (review 19: `rustup run` and
//! `pyenv exec` read what to run from the folder the check runs in); any other (a grader
//! kept outside the repository, `/ci/graders/grade`) is the plan's own (review 20).

use std::path::{Path, PathBuf};

/// Programs that run nothing their arguments name (no command, no program file, no module
/// path): builtins, coreutils, text and archive tools. Each one's options were checked for
/// a way to run a command (`zip -TT`, `wget --use-askpass`, `patch`'s ed scripts,
/// `openssl -engine`, `sqlite3 .shell`, `rsync -e`, `tar` (read by `super::tools`) are why
/// those are not here).
const DATA_TOOLS: &[&str] = &[
    // Shell builtins and keywords a check line uses.
    "test",
    "[",
    "true",
    "false",
    ":",
    "echo",
    "printf",
    "exit",
    "return",
    "pwd",
    "sleep",
    "wait",
    "umask",
    "ulimit",
    "unset",
    "type",
    // Comparing and searching.
    "grep",
    "egrep",
    "fgrep",
    "diff",
    "cmp",
    "comm",
    // Reading and shaping text.
    "cat",
    "tac",
    "head",
    "tail",
    "wc",
    "sort",
    "uniq",
    "cut",
    "tr",
    "paste",
    "join",
    "fold",
    "fmt",
    "nl",
    "pr",
    "expand",
    "unexpand",
    "rev",
    "column",
    "tee",
    "shuf",
    "iconv",
    "envsubst",
    "numfmt",
    "od",
    "hexdump",
    "xxd",
    "base64",
    "base32",
    "basenc",
    "strings",
    // Numbers and checksums.
    "expr",
    "seq",
    "bc",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "sum",
    // Files and names.
    "ls",
    "stat",
    "du",
    "df",
    "file",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "mkdir",
    "rmdir",
    "touch",
    "rm",
    "cp",
    "mv",
    "ln",
    "chmod",
    "truncate",
    "mktemp",
    "date",
    "printenv",
    "id",
    "whoami",
    "uname",
    "hostname",
    "nproc",
    "which",
    "ps",
    "pgrep",
    "kill",
    // Compressed data, read or written (no command runs from their options).
    "gzip",
    "gunzip",
    "zcat",
    "bzip2",
    "bunzip2",
    "bzcat",
    "xz",
    "unxz",
    "xzcat",
    "zstd",
    "unzstd",
    "zstdcat",
    "unzip",
    // Structured data and the network.
    "xmllint",
    "curl",
];

/// Tools whose program texts and options `super::tools` and `super::invoke::program_files`
/// read (review 14), and the runners whose definitions `super::reach` warns about.
const READ_TOOLS: &[&str] = &[
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "original-awk",
    "sed",
    "gsed",
    "jq",
    "gojq",
    "jaq",
    "make",
    "gmake",
    "remake",
    "git",
    "tar",
    "gtar",
    "bsdtar",
    "prove",
    "find",
    "xargs",
    "npm",
    "yarn",
    "pnpm",
    "npx",
    "bunx",
    "just",
    "tox",
    "pytest",
    "go",
    "cargo",
];

/// Version managers and tool launchers that run a program or a version a file of the
/// folder they run in names (`rust-toolchain.toml`, `.python-version`, `.tool-versions`):
/// an installed tool wherever it lies (review 19).
const MANAGERS: &[&str] = &[
    "rustup",
    "pyenv",
    "rbenv",
    "nodenv",
    "goenv",
    "jenv",
    "plenv",
    "phpenv",
    "asdf",
    "mise",
    "rtx",
    "volta",
    "nvm",
    "fnm",
    "direnv",
    "uv",
    "uvx",
    "poetry",
    "pipx",
    "pdm",
    "hatch",
    "rye",
    "conda",
    "mamba",
    "micromamba",
    "corepack",
    "proto",
    "pkgx",
    "nix",
    "nix-shell",
    "devbox",
    "bazel",
    "bazelisk",
];

/// The system's program folders: a program named by a path into one is the program of that
/// name, and must be on the list as its bare name must.
const SYSTEM_FOLDERS: &[&str] = &[
    "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/usr", "/etc", "/opt", "/snap",
    "/nix", "/var/lib",
];

/// Why an argument of an allowed data tool makes it run a program: `sort
/// --compress-program=CMD`, in any abbreviation GNU's getopt takes (`--com…`; review 19,
/// a01).
pub(super) fn data_tool_problem(name: &str, args: &[&str]) -> Option<String> {
    if name == "sort"
        && let Some(t) = args.iter().find(|t| t.starts_with("--com"))
    {
        return Some(format!("`sort {t}` (the program sort compresses with)"));
    }
    // Review 19 (a13): curl reads its options from a config file (`-K`, `--config`).
    if name == "curl"
        && let Some(t) = args
            .iter()
            .find(|t| t.starts_with("-K") || t.starts_with("--conf"))
    {
        return Some(format!(
            "`curl {t}` (options read from a file a trial could write)"
        ));
    }
    // Review 19 (a21): `printf -v PATH …` sets a variable, as `PATH=` would, unseen.
    if name == "printf" && args.iter().any(|t| t.starts_with("-v")) {
        return Some("`printf -v` (it sets a shell variable: write `NAME=value`)".into());
    }
    // Review 19 (a13, a16): make's command-line variables that pick its shell or run a
    // command (`SHELL=lib/new`, `.SHELLFLAGS=…`, `X!=cmd`, `$(shell …)`).
    if matches!(name, "make" | "gmake" | "remake")
        && let Some(t) = args.iter().find(|t| {
            let Some((k, v)) = t.split_once('=') else {
                return false;
            };
            !t.starts_with('-')
                && (k.ends_with('!')
                    || v.contains("$(")
                    || v.contains("${")
                    || v.contains('`')
                    || matches!(
                        k.trim_end_matches([':', '+', '?']),
                        "SHELL" | ".SHELLFLAGS" | "MAKESHELL" | "MAKEFLAGS" | "MAKEFILES"
                    ))
        })
    {
        return Some(format!(
            "the make variable `{t}` (it picks make's shell or runs a command)"
        ));
    }
    None
}

/// Why a check line may not name `program` (as written; `name` is its lower-case file
/// name), or `None` when it may. `plan_path` is the plan's own `env: PATH`, if it sets one:
/// a bare name found there in one of the plan's own folders (`project`) is the plan's own
/// program (gate protects it as a grader). Interpreters are not asked (`super::invoke`
/// reads them).
pub(super) fn refused(
    program: &str,
    name: &str,
    dir: &Path,
    plan_path: Option<&str>,
    project: &[PathBuf],
) -> Option<String> {
    if DATA_TOOLS.contains(&name) || READ_TOOLS.contains(&name) {
        return None;
    }
    // Review 19 (a03, a09): the dynamic loader runs the program it is given
    // (`/lib64/ld-linux-x86-64.so.2 /bin/sh lib/new.sh`); it is no data tool, wherever it lies.
    if name.starts_with("ld-") || name.starts_with("ld.so") {
        return Some(format!(
            "`{name}`, the dynamic loader, which runs the program it is given"
        ));
    }
    // Judged where the path leads: a link in the plan's folder to an installed program
    // (`bin/taskset -> /usr/bin/taskset`) is that program. Outside the plan's folders, a
    // program in a folder on gate's own `PATH` (`~/.cargo/bin/rustup`, `~/.local/bin/…`)
    // or a version manager's (`~/.pyenv/libexec/pyenv`) is an installed tool; anywhere
    // else (`/ci/graders/grade`) it is a grader the plan keeps outside its repository.
    let installed = |real: &Path| {
        MANAGERS.contains(&name)
            || real.parent().is_some_and(|folder| {
                std::env::var_os("PATH").is_some_and(|path| {
                    std::env::split_paths(&path)
                        .filter(|d| d.is_absolute())
                        .any(|d| std::fs::canonicalize(&d).unwrap_or(d) == folder)
                })
            })
    };
    let own = |at: &Path| {
        let real = std::fs::canonicalize(at).unwrap_or_else(|_| at.to_path_buf());
        [at, real.as_path()]
            .iter()
            .all(|at| !SYSTEM_FOLDERS.iter().any(|f| at.starts_with(f)))
            && (project.iter().any(|p| real.starts_with(p)) || !installed(&real))
    };
    if program.contains('/') {
        let at = super::invoke::resolve(program, dir);
        // Missing outside the plan's folders (which hold every folder the trials write):
        // nothing a trial could make, and nothing to run (a harness error when it runs).
        // (Read where its nearest existing folder leads: a link into a task's folder.)
        let base = at
            .ancestors()
            .find(|a| a.exists())
            .map(std::fs::canonicalize);
        if at.symlink_metadata().is_err()
            && let Some(Ok(base)) = base
            && !project
                .iter()
                .any(|p| base.starts_with(p) || at.starts_with(p))
        {
            return None;
        }
        if own(&at) {
            // The plan's own program (a grader), protected by the grammar.
            return None;
        }
    } else if let Some(path) = plan_path {
        let found = path
            .split(':')
            .filter(|d| !d.is_empty())
            .map(|d| super::invoke::resolve(d, dir).join(program))
            .find(|p| p.is_file());
        if found.is_some_and(|p| own(&p)) {
            return None;
        }
    }
    Some(format!(
        "`{name}`, a program whose arguments gate does not read (it may run a command or \
         load a file they name, which a trial could write): a check line names an \
         interpreter with its script, a tool gate reads (awk, sed, jq, make, git, tar, find, \
         xargs, prove), a test runner (pytest, npm, npx, go, cargo, …) or a program that runs \
         nothing it is given (grep, diff, cmp, test, cat, wc, …); a program by a path outside \
         the plan's folder, its repository and the task's folders is judged by its name. Run \
         `{name}` from a grader script in a folder the trials do not write (`sh \
         graders/check.sh`)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan's folders of these tests: the check's folder and a repository.
    fn project() -> Vec<PathBuf> {
        vec!["/tmp/plan".into(), "/home/runner/work/x".into()]
    }

    #[test]
    fn a_program_the_reviews_used_to_hide_a_command_is_refused_by_name_and_by_path() {
        let dir = Path::new("/tmp/plan");
        for (program, name) in [
            ("taskset", "taskset"),
            ("strace", "strace"),
            ("sqlite3", "sqlite3"),
            ("zip", "zip"),
            ("script", "script"),
            ("/usr/bin/taskset", "taskset"),
            ("/bin/setpriv", "setpriv"),
        ] {
            assert!(
                refused(program, name, dir, None, &project()).is_some(),
                "{program}"
            );
        }
        // Review 19: an installed tool outside the system's folders and the plan's
        // (`~/.cargo/bin/rustup`), and one missing there (nothing to run: accepted).
        let home = tempfile::tempdir().unwrap();
        let rustup = home.path().join("rustup");
        std::fs::write(&rustup, "").unwrap();
        let rustup = rustup.to_str().unwrap();
        assert!(refused(rustup, "rustup", dir, None, &project()).is_some());
        let missing = home.path().join("pyenv");
        let missing = missing.to_str().unwrap();
        assert_eq!(refused(missing, "pyenv", dir, None, &project()), None);
    }

    #[test]
    fn data_tools_read_tools_and_the_plans_own_programs_are_accepted() {
        let dir = Path::new("/tmp/plan");
        for (program, name) in [
            ("grep", "grep"),
            ("/usr/bin/diff", "diff"),
            ("jq", "jq"),
            ("make", "make"),
            ("./check.sh", "check.sh"),
            ("graders/grade", "grade"),
            ("/home/runner/work/x/graders/grade", "grade"),
            ("/home/runner/work/x/y/tools/bin/lint", "lint"),
        ] {
            assert_eq!(
                refused(program, name, dir, None, &project()),
                None,
                "{program}"
            );
        }
    }
}
