//! What a `check:` line reaches besides the programs it names (issue 29, review 7).
//!
//! [`super::state`] protects the files a command line names as programs and their folders.
//! A grader's interpreter reaches further, and a trial could plant what it reaches in a
//! folder it writes; each way below is closed as a class:
//!
//! - **Program text fed to an interpreter** (c07): `sh < graders/grade`, `cat graders/grade
//!   | sh`, `sh -s`, `bash /dev/stdin`, `sh -c "$(cat graders/grade)"`, `eval …`, `python3 -
//!   < …`, `python3 -c "exec(open('graders/grade').read())"`. The interpreter runs whatever
//!   text reaches it, and gate cannot tell which of the files the line names that text
//!   comes from; so on such a line every existing file or folder named anywhere in its text
//!   (a word, or a path-like piece of a quoted string) beneath the task's folder or the
//!   plan's is a grader ([`super::words::text_fed_paths`]): protected with its folder, or refused when it
//!   lies directly in a folder the trials write, like any grader there.
//! - **Search paths in the plan's `env:`** (c29, c34): `PATH`, `PYTHONPATH`, `NODE_PATH`,
//!   `LD_PRELOAD`, … are inherited by the `check:` line, and its interpreter loads what it
//!   finds there first. An entry that is relative (it follows whatever folder the process
//!   is in) or lies in a folder the trials write, and not in a grader's folder (read-only
//!   whole), is refused at load ([`refuse_writable_search_paths`]).
//! - **A check's tool caches** (review 50): gate points them at the check's own `TMPDIR`
//!   ([`CHECK_CACHES`]); npm's options in gate's environment are read as search paths
//!   ([`npm_option`]), and node run from a folder a grader makes is refused
//!   ([`refuse_node_from_a_folder_made_in_the_run`]).
//! - **Python's `sys.path[0]`** (c40): `python -m NAME`, `python -c CODE` and a program read
//!   from stdin put the current folder first on `sys.path`, so a trial that creates
//!   `NAME.py` there (or a module the grader imports) runs in its place, although no such
//!   file existed, and so none was protected, when the run started. Such a `check:` line run
//!   in a folder the trials write is refused at load unless Python is told to leave that
//!   folder out (`-P`, `-I`, or `PYTHONSAFEPATH` in the task's `env:`)
//!   ([`refuse_python_cwd_on_sys_path`]).
//!
//! The refusals say in one line how to fix the plan. Like the refusal of a grader directly
//! in a writable folder they do not apply with `policy.sandbox: off`, where no wall stands.

use super::words::RUNNER_VARS;
use std::path::{Path, PathBuf};

use super::words::{is_python, name_of, simple_commands, tokens_of};
use super::{Plan, PlanError};

/// Variables whose entries a grader's program or interpreter loads from, with what a
/// trial could plant in an entry it writes.
const SEARCH_PATHS: &[(&str, &str)] = &[
    (
        "PATH",
        "a program named like the grader's interpreter (`python3`, `sh`)",
    ),
    (
        "PYTHONPATH",
        "a `sitecustomize.py` that every Python process imports",
    ),
    ("PYTHONHOME", "the standard library Python imports"),
    // Review 25, 05: the name of the folder of the compiled standard modules, as PYTHONHOME.
    (
        "PYTHONPLATLIBDIR",
        "the standard library Python imports (its compiled part)",
    ),
    (
        "PYTHONUSERBASE",
        "a `usercustomize.py` that every Python process imports",
    ),
    ("PYTHONSTARTUP", "a script Python runs first"),
    (
        "PYTHONPYCACHEPREFIX",
        "compiled modules Python loads in place of the sources",
    ),
    ("NODE_PATH", "a package the grader requires"),
    ("LD_LIBRARY_PATH", "a shared library every program loads"),
    ("LD_PRELOAD", "a shared library every program loads"),
    ("LD_AUDIT", "a shared library every program loads"),
    ("PERL5LIB", "a module Perl loads"),
    ("PERLLIB", "a module Perl loads"),
    ("RUBYLIB", "a library Ruby loads"),
    ("GEM_PATH", "a gem Ruby loads"),
    ("GEM_HOME", "a gem Ruby loads"),
    ("CLASSPATH", "a class the JVM loads"),
    ("BASH_ENV", "a script bash sources first"),
    ("ENV", "a script sh sources first"),
    ("ZDOTDIR", "a script zsh sources first"),
    (
        "HOME",
        "a start-up or config file (`usercustomize.py`, `.gitconfig`)",
    ),
    ("XDG_CONFIG_HOME", "a config file the grader's tools read"),
    ("GIT_EXEC_PATH", "a program git runs"),
    ("GIT_CONFIG_GLOBAL", "a git config (a clean filter)"),
    ("GIT_CONFIG_SYSTEM", "a git config (a clean filter)"),
    // Review 9, a09/a20: members of the same class the list above missed.
    (
        "CDPATH",
        "a folder of the same name that `cd` enters in place of the one the line names",
    ),
    (
        "TCL_LIBRARY",
        "the `init.tcl` every Tcl interpreter sources",
    ),
    ("TCLLIBPATH", "a package Tcl loads"),
    (
        "OPENSSL_CONF",
        "an OpenSSL configuration that loads a module of its own",
    ),
    ("OPENSSL_MODULES", "a provider module OpenSSL loads"),
    ("OPENSSL_ENGINES", "an engine OpenSSL loads"),
    ("GCONV_PATH", "a character-set module the C library loads"),
    ("LUA_INIT", "a file Lua runs first"),
    ("LUA_PATH", "a module Lua loads"),
    ("LUA_CPATH", "a module Lua loads"),
    ("PHPRC", "a `php.ini` whose `auto_prepend_file` runs first"),
    (
        "PHP_INI_SCAN_DIR",
        "a `php.ini` whose `auto_prepend_file` runs first",
    ),
    ("R_PROFILE", "a profile R runs first"),
    ("R_PROFILE_USER", "a profile R runs first"),
    ("R_ENVIRON_USER", "an environment file R reads first"),
    ("R_LIBS", "a package R loads"),
    ("R_LIBS_USER", "a package R loads"),
    ("R_LIBS_SITE", "a package R loads"),
    ("JULIA_LOAD_PATH", "a package Julia loads"),
    ("JULIA_DEPOT_PATH", "a package or start-up file Julia loads"),
    ("GIT_DIR", "the repository a git grader reads"),
    ("GIT_WORK_TREE", "the files a git grader compares"),
    // Review 20: the rest of a repository's parts named by a path.
    ("GIT_INDEX_FILE", "the index a git grader compares with"),
    ("GIT_OBJECT_DIRECTORY", "the objects a git grader reads"),
    (
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "the objects a git grader reads",
    ),
    ("GIT_COMMON_DIR", "the repository a git grader reads"),
    ("GIT_GRAFT_FILE", "the history a git grader reads"),
    ("MAKEFILES", "a makefile make reads first"),
    (
        "RUSTC_WRAPPER",
        "a program cargo runs in place of the compiler",
    ),
    ("RUSTC", "a program cargo runs in place of the compiler"),
    ("CARGO_HOME", "a configuration or program cargo runs"),
    (
        "GOCACHE",
        "a cached test result `go test` reports as a pass",
    ),
    ("GOPATH", "a module `go` builds the grader with"),
    ("GOMODCACHE", "a module `go` builds the grader with"),
    // Version managers' shims (`python3` is a pyenv shim on many runners) run hooks and
    // read a version file first (review 10).
    ("PYENV_HOOK_PATH", "a hook the pyenv shim runs"),
    ("PYENV_ROOT", "the interpreter the pyenv shim runs"),
    ("PYENV_DIR", "a `.python-version` the pyenv shim reads"),
    ("RBENV_HOOK_PATH", "a hook the rbenv shim runs"),
    ("RBENV_ROOT", "the interpreter the rbenv shim runs"),
    ("RBENV_DIR", "a `.ruby-version` the rbenv shim reads"),
    ("NODENV_HOOK_PATH", "a hook the nodenv shim runs"),
    ("NODENV_ROOT", "the interpreter the nodenv shim runs"),
    // Review 50 (review 46, a16): caches of code a tool loads in place of the sources. Gate
    // points the first three at the check's own `TMPDIR` ([`CHECK_CACHES`]); a plan's `env:`
    // that names them itself must name a folder no trial writes.
    (
        "BABEL_CACHE_PATH",
        "a compiled file `@babel/register` runs in place of the grader",
    ),
    (
        "CACHE_DIR",
        "a compiled file a tool's cache (`find-cache-dir`: babel-loader, nyc, ava) runs",
    ),
    (
        "XDG_CACHE_HOME",
        "a cached build or package a tool loads (deno's, pip's, a wheel's)",
    ),
    (
        "NODE_COMPILE_CACHE",
        "compiled code node loads in place of the sources",
    ),
];

/// Caches of code a check's tools load, each pointed at a fresh place in the check's own
/// `TMPDIR` for every check process (review 46, a16, a21; review 50): a trial that runs the
/// grader once fills `node_modules/.cache/@babel/register` (find-cache-dir's default, in a
/// folder the trials write), `~/.npm/_npx` or `~/.cache`, rewrites the compiled grader
/// there, and the check ran the rewrite. Name and path below the check's `TMPDIR`. Set
/// after gate's environment and before the plan's `env:`, so a plan that names one keeps
/// its value, which [`refuse_writable_search_paths`] refuses in a folder the trials write
/// (npm's own options in `env:` are refused whatever their value). Not for the agent's
/// `run:`, whose caches are its own business.
pub const CHECK_CACHES: &[(&str, &str)] = &[
    // @babel/register's cache file, wherever find-cache-dir would put it (its version 2,
    // which @babel/register 7 uses, does not read `CACHE_DIR`).
    ("BABEL_CACHE_PATH", "babel.json"),
    // find-cache-dir 3 and later: `node_modules/.cache/NAME` becomes `$CACHE_DIR/NAME`.
    ("CACHE_DIR", "cache"),
    // Not `XDG_CACHE_HOME`: browsers and other tools a check needs live there
    // (`~/.cache/ms-playwright`), and the user's home is no folder a trial writes (rev50c
    // H7: an honest playwright check no longer found its browsers).
    // npm's cache, npx's installs among them (`~/.npm/_npx`). npm reads `npm_config_*`
    // in any case: the runner sets this spelling and any other gate's environment has.
    ("npm_config_cache", "npm-cache"),
];

/// Variables of options that may name a file to load first (`--require ./x.js`, `-r./x`).
const OPTION_VARS: &[&str] = &[
    "NODE_OPTIONS",
    "RUBYOPT",
    "PERL5OPT",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "PYTEST_ADDOPTS",
    "GOFLAGS",
];

/// Variables whose value makes a tool run a command or load a file gate cannot follow
/// (review 14, c14, c27): git config given in the environment (`alias.t=!sh F`,
/// `core.pager`, `diff.external`), git's programs, and Perl's options and debugger. Refused
/// whatever their value.
const RUNS_COMMANDS: &[(&str, &str)] = &[
    (
        "GIT_CONFIG_COUNT",
        "sets git config whose values may run a command",
    ),
    (
        "GIT_CONFIG_PARAMETERS",
        "sets git config whose values may run a command",
    ),
    (
        "GIT_CONFIG",
        "names a git config whose values may run a command",
    ),
    ("GIT_EXTERNAL_DIFF", "names a program git runs"),
    ("GIT_PAGER", "names a program git runs"),
    ("GIT_EDITOR", "names a program git runs"),
    ("GIT_SSH_COMMAND", "names a program git runs"),
    ("GIT_SSH", "names a program git runs"),
    ("GIT_ASKPASS", "names a program git runs"),
    (
        "PERL5OPT",
        "gives every Perl process options (`-Ilib`, `-d`)",
    ),
    ("PERL5DB", "is code Perl's debugger runs"),
    // Review 25, 21: make's options from the environment (`--eval=-include x.mk`, `-f`,
    // `-I`), which the line's own `make` words are refused for.
    (
        "MAKEFLAGS",
        "gives make options (`--eval`, `-f`, `-I`) that read a makefile gate does not",
    ),
    (
        "GNUMAKEFLAGS",
        "gives make options (`--eval`, `-f`, `-I`) that read a makefile gate does not",
    ),
    (
        "MFLAGS",
        "gives make options (`--eval`, `-f`, `-I`) that read a makefile gate does not",
    ),
    // Review 17, e09, e16: options a tool reads from the environment, which may run a
    // command or put a folder on a module path.
    (
        "HARNESS_PERL_SWITCHES",
        "gives the Perl of each test `prove` runs options (`-Ilib`)",
    ),
    (
        "HARNESS_OPTIONS",
        "sets options of the harness `prove` runs tests with",
    ),
    ("HARNESS_SUBCLASS", "names the harness module `prove` loads"),
    (
        "TAR_OPTIONS",
        "gives tar options (`--to-command`, `--use-compress-program`) that run a command",
    ),
    ("ZIPOPT", "gives zip options (`-TT CMD`) that run a command"),
    // tox reads any of its options from `TOX_<OPTION>`: these name the configuration it
    // reads what to run from, or a package it installs (`tox -c`, `--root`, `--installpkg`
    // on the line are refused alike).
    (
        "TOX_CONFIG_FILE",
        "names the configuration tox reads the commands it runs from",
    ),
    (
        "TOX_ROOT_DIR",
        "names the folder tox reads its configuration from",
    ),
    ("TOX_INSTALLPKG", "names a package tox installs and runs"),
    (
        "PERLDB_OPTS",
        "sets Perl's debugger, which runs a `./.perldb`",
    ),
];

/// Why variable `name` is refused outright ([`RUNS_COMMANDS`]; `GIT_CONFIG_KEY_n` and
/// `GIT_CONFIG_VALUE_n` too), or `None`.
fn runs_a_command(name: &str) -> Option<&'static str> {
    if name.starts_with("GIT_CONFIG_KEY_") || name.starts_with("GIT_CONFIG_VALUE_") {
        return Some("sets git config whose values may run a command");
    }
    // Review 19: npm, pnpm and yarn read any option from the environment
    // (`npm_config_script_shell`, `npm_config_userconfig`, `YARN_RC_FILENAME`), case aside.
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("npm_config_") || lower.starts_with("yarn_") || lower.starts_with("pnpm_")
    {
        return Some("sets an option of npm, pnpm or yarn (its shell, its config file)");
    }
    RUNS_COMMANDS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, w)| *w)
}

/// Whether gate sets variable `name` for every check process itself ([`CHECK_CACHES`]; npm's
/// cache in any case npm reads it), so that gate's own value of it does not reach a check.
fn gate_sets_for_the_check(name: &str) -> bool {
    CHECK_CACHES
        .iter()
        .any(|(n, _)| *n == name || (n.starts_with("npm_config_") && n.eq_ignore_ascii_case(name)))
}

/// npm's options in gate's environment that name a file or folder npm reads code or
/// configuration from (review 50; review 46, a17, a21; review 48), with what a trial could
/// put there: the option's name as npm reads it (`npm_config_` in any case, `-` or `_`) and
/// why. In a plan's `env:` or on a `check:` line every npm option is refused whatever its
/// value ([`runs_a_command`]); in gate's own environment (a CI job's `NPM_CONFIG_USERCONFIG`
/// of `actions/setup-node`) only one whose path lies where the trials write.
fn npm_option(name: &str) -> Option<(&'static str, &'static str)> {
    let lower = name.to_ascii_lowercase().replace('-', "_");
    let option = lower.strip_prefix("npm_config_")?;
    Some(match option {
        "userconfig" => (
            "userconfig",
            "an `.npmrc` whose `script-shell` or `node-options` npm runs",
        ),
        "globalconfig" => (
            "globalconfig",
            "an `npmrc` whose `script-shell` or `node-options` npm runs",
        ),
        "node_options" => (
            "node_options",
            "a file node loads first in every script npm runs",
        ),
        "script_shell" => ("script_shell", "the shell npm runs every script with"),
        "prefix" => (
            "prefix",
            "the global packages and the `etc/npmrc` npm reads",
        ),
        "cache" => ("cache", "a package `npx` runs from npm's cache"),
        _ => return None,
    })
}

/// The paths npm option `option` ([`npm_option`]) = `value` names: `node_options`'
/// preloads as `NODE_OPTIONS`'s, a `script_shell` only when it is a path (a bare `bash` is
/// found on `PATH`), the others whole. A leading `~/` is gate's `HOME`, as npm reads it.
fn npm_entries(option: &str, value: &str) -> Vec<String> {
    if value.is_empty() {
        return Vec::new();
    }
    match option {
        "node_options" => entries("NODE_OPTIONS", value),
        "script_shell" if !value.contains('/') => Vec::new(),
        _ => match (value.strip_prefix("~/"), home()) {
            (Some(rest), Some(h)) => vec![format!("{}/{rest}", h.trim_end_matches('/'))],
            _ => vec![value.to_string()],
        },
    }
}

/// What a grader loads through variable `name` ([`SEARCH_PATHS`], [`OPTION_VARS`]), or
/// `None` for a variable that is neither.
fn loads(name: &str) -> Option<&'static str> {
    SEARCH_PATHS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, w)| *w)
        .or(OPTION_VARS
            .contains(&name)
            .then_some("a file it loads first"))
}

/// Why `entry` of a search path is one a trial could fill, or `None` when it is not:
/// relative (it names a folder beneath whatever folder the process is in), or in one of
/// `roots` (the folders the trials write) and not in one of `guarded` (read-only whole).
pub(super) fn writable_entry(
    entry: &str,
    roots: &[PathBuf],
    guarded: &[PathBuf],
) -> Option<&'static str> {
    if !entry.starts_with('/') {
        return Some("is relative, so it names a folder beneath whatever folder a process is in");
    }
    // Review 26, 10c, 19c, 19d: an entry reached through a link in a folder the trials write
    // (`/w/tools -> /shared/tools`, `/w/x/../tools`): its target is outside, but the trial
    // swaps the link for a folder of its own (and back before the run ends).
    if super::state::link_on_the_way(Path::new(entry), roots, true).is_some() {
        return Some(
            "is reached through a link in a folder the trials write (a trial could point it at \
             a folder of its own)",
        );
    }
    let p = resolve(Path::new(entry));
    let writable = roots.iter().any(|r| p.starts_with(r));
    (writable && !guarded.iter().any(|g| p.starts_with(g)))
        .then_some("lies in a folder the trials write")
}

/// `p` with links resolved as far as it exists (a missing tail kept as written). A missing
/// tail's `..` is taken lexically, as node's `path.resolve` takes it (`nope/../../out`,
/// review 97, 40, 41, 46), and a dangling link is followed to where it points, where a
/// trial may make its target (97, 28).
fn resolve(p: &Path) -> PathBuf {
    resolve_within(p, 8)
}

/// [`resolve`], following at most `links` dangling links.
fn resolve_within(p: &Path, links: u32) -> PathBuf {
    // No program opens a path longer than the kernel's `PATH_MAX` (4096 bytes) from a
    // folder of one either: left as written, and not resolved prefix by prefix, which took
    // 36 s for a word of 800 KB (review 90, 60 and 61).
    if p.as_os_str().len() > 2 * 4096 {
        return p.to_path_buf();
    }
    let mut tail = Vec::new();
    let mut head = p.to_path_buf();
    loop {
        if let Ok(real) = std::fs::canonicalize(&head) {
            if let Some(first) = tail.last()
                && links > 0
                && let Ok(target) = std::fs::read_link(real.join(first))
            {
                let rest = tail[..tail.len() - 1].iter().rev();
                let at = rest.fold(real.join(target), |acc: PathBuf, c| acc.join(c));
                return resolve_within(&at, links - 1);
            }
            return tail.iter().rev().fold(real, |acc: PathBuf, c| acc.join(c));
        }
        match (head.file_name().map(|n| n.to_os_string()), head.parent()) {
            (Some(name), Some(parent)) => {
                tail.push(name);
                head = parent.to_path_buf();
            }
            _ => {
                let lexical = lexical(p);
                return if lexical == p {
                    p.to_path_buf()
                } else {
                    resolve_within(&lexical, links)
                };
            }
        }
    }
}

/// `p` with its `.` and `..` taken as names, not as the filesystem takes them.
fn lexical(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            Component::ParentDir if out.has_root() => {}
            other => out.push(other),
        }
    }
    out
}

/// The entries of variable `name` = `value` that name a file or folder to load from.
fn entries(name: &str, value: &str) -> Vec<String> {
    if OPTION_VARS.contains(&name) {
        let words: Vec<&str> = value
            .split(|c: char| c.is_whitespace() || c == '=')
            .collect();
        let mut out = Vec::new();
        for (i, w) in words.iter().enumerate() {
            let after_require = i > 0
                && name == "NODE_OPTIONS"
                && matches!(
                    words[i - 1],
                    "--require" | "-r" | "--import" | "--loader" | "--experimental-loader"
                );
            // A path, or a module node resolves from the folder it runs in.
            let w = w
                .strip_prefix("-r")
                .filter(|_| name == "RUBYOPT")
                .unwrap_or(w);
            if !w.is_empty() && (after_require || w.contains('/') || w.starts_with('.')) {
                out.push(w.to_string());
            }
        }
        return out;
    }
    // An empty `PYTHONPATH` adds nothing to `sys.path` (review 8, a12); an empty entry of
    // a longer one is the current folder.
    if name == "PYTHONPATH" && value.is_empty() {
        return Vec::new();
    }
    if name == "LUA_INIT" {
        // `@file` runs a file; anything else is code the plan itself wrote.
        return value
            .strip_prefix('@')
            .map(|f| vec![f.to_string()])
            .unwrap_or_default();
    }
    if matches!(name, "LUA_PATH" | "LUA_CPATH") {
        // Templates such as `./?.lua;;`: the folder part of each.
        return value
            .split(';')
            .filter(|e| !e.is_empty())
            .map(|e| e.split('?').next().unwrap_or(e).to_string())
            .map(|e| if e.is_empty() { ".".to_string() } else { e })
            .collect();
    }
    let list = value.split(|c: char| c == ':' || (name == "LD_PRELOAD" && c.is_whitespace()));
    match name {
        // An empty entry of a list is the current folder.
        "PATH" | "PYTHONPATH" | "NODE_PATH" | "LD_LIBRARY_PATH" | "PERL5LIB" | "PERLLIB"
        | "RUBYLIB" | "GEM_PATH" | "CLASSPATH" | "CDPATH" => list.map(str::to_string).collect(),
        _ => list.filter(|e| !e.is_empty()).map(str::to_string).collect(),
    }
}

/// A task with a `check:` (or a compare task whose base has one) whose `env:` sets a
/// search path the grader inherits ([`SEARCH_PATHS`], [`OPTION_VARS`]) with an entry a
/// trial could fill is refused (review 7, c29, c34): `env: {PATH: "tools:/usr/bin:/bin"}`
/// lets a trial create `tools/python3`, and `env: {PYTHONPATH: src}` a
/// `src/sitecustomize.py`, and the grader never runs.
pub(super) fn refuse_writable_search_paths(shown: &str, plan: &Plan) -> Result<(), PlanError> {
    if plan.policy.sandbox.mode == crate::model::SandboxMode::Off {
        return Ok(());
    }
    let roots = super::state::writable_roots(plan);
    let guarded = super::state::guarded_folders(plan);
    for t in &plan.tasks {
        let mut sides = Vec::new();
        if t.check.is_some() {
            sides.push(("", &t.env));
        }
        if let Some(c) = t.compare().filter(|c| c.base.check.is_some()) {
            sides.push(("base.", &c.base.env));
        }
        for (side, env) in sides {
            for (name, value) in env {
                if let Some(why) = runs_a_command(name) {
                    return Err(PlanError::at_task(
                        shown,
                        t.line,
                        format!(
                            "task `{}`: `{side}env: {name}` {why}, which gate cannot follow to \
                             protect it; the `check:` grader inherits it: put the logic in a \
                             script under a graders folder and name it on the line",
                            t.id
                        ),
                    ));
                }
                let what = loads(name);
                let Some(what) = what else { continue };
                if name == "PYTHONPATH"
                    && let Some(why) = pythonpath_shadow(t, value, &roots)
                {
                    return Err(PlanError::at_task(
                        shown,
                        t.line,
                        format!("task `{}`: `{side}env: {name}` makes {why}", t.id),
                    ));
                }
                for entry in entries(name, value) {
                    let Some(why) = writable_entry(&entry, &roots, &guarded) else {
                        continue;
                    };
                    return Err(PlanError::at_task(
                        shown,
                        t.line,
                        format!(
                            "task `{}`: `{side}env: {name}` entry `{entry}` {why}, and the `check:` \
                             grader inherits it: a trial could put {what} there; use an absolute \
                             folder outside the task's folders (or a graders' folder), or set it \
                             on the `run:` line only (`run: {name}=… …`)",
                            t.id
                        ),
                    ));
                }
            }
        }
        // Gate's own environment, which the check inherits where the plan does not set the
        // name (review 46, a06, a07: `NODE_PATH` into the task's folder, or `NODE_OPTIONS=
        // --require ./tools/trace.js`, set for the CI job).
        if t.check.is_some() {
            for (name, value) in std::env::vars_os() {
                let (Some(name), Some(value)) = (name.to_str(), value.to_str()) else {
                    continue;
                };
                if t.env.iter().any(|(n, _)| n == name) || crate::model::is_withheld(name) {
                    continue;
                }
                // Gate points these at the check's own `TMPDIR` whatever its environment says.
                if gate_sets_for_the_check(name) {
                    continue;
                }
                // npm's options, in any case npm reads them (review 50; review 48: a
                // `script-shell` in an `.npmrc` the trial writes).
                let npm = npm_option(name);
                let Some(what) = loads(name).or(npm.map(|(_, what)| what)) else {
                    continue;
                };
                let found = match npm {
                    Some((option, _)) => npm_entries(option, value),
                    None => entries(name, value),
                };
                for entry in found {
                    let Some(why) = writable_entry(&entry, &roots, &guarded) else {
                        continue;
                    };
                    // `PATH` cannot be emptied for the task; an activated virtual
                    // environment in the project is the usual way there.
                    let way_out = if name == "PATH" {
                        "take it off `PATH` for gate (deactivate a virtual environment before \
                         `gate run`), or keep that environment outside the task's folders \
                         (`python3 -m venv ~/.venvs/NAME`)"
                            .to_string()
                    } else if npm.is_some() {
                        // A plan's `env:` may not set npm's options at all (above).
                        "run gate without it, or give it a path outside the task's folders"
                            .to_string()
                    } else {
                        format!(
                            "run gate without it, give it an absolute folder outside the task's \
                             folders, or set it for the task (`env: {{{name}: \"\"}}`)"
                        )
                    };
                    return Err(PlanError::at_task(
                        shown,
                        t.line,
                        format!(
                            "task `{}`: `{name}` in gate's environment has entry `{entry}`, which \
                             {why}, and the `check:` grader inherits it: a trial could put {what} \
                             there; {way_out}",
                            t.id
                        ),
                    ));
                }
            }
        }
        // The same variables set on the `check:` line itself (`PYTHONPATH=src python3 g.py`,
        // `export PYTHONPATH=src; …`, `env PYTHONPATH=src …`): the grader gets them just the
        // same (review 8, a01/a17/a24). A relative entry is taken from the check's folder,
        // unless the line changes folder first; then it is refused as relative.
        for (line, cwd, env) in super::state::check_lines(t) {
            let mut set = LineAssignments::default();
            set.read(&tokens_of(line, env));
            for (name, value) in &set.assigned {
                let name = name.as_str();
                if let Some(why) = runs_a_command(name) {
                    return Err(PlanError::at_check(
                        shown,
                        t,
                        line,
                        format!(
                            "task `{}`: the `check:` line sets `{name}`, which {why}, which gate \
                             cannot follow to protect it; put the logic in a script under a \
                             graders folder and name it on the line",
                            t.id
                        ),
                    ));
                }
                let what = loads(name);
                let Some(what) = what else { continue };
                if name == "PYTHONPATH"
                    && let Some(why) = pythonpath_shadow_in(cwd, value, set.moves, &roots)
                {
                    return Err(PlanError::at_check(
                        shown,
                        t,
                        line,
                        format!(
                            "task `{}`: the `check:` line sets `{name}`, which makes {why}",
                            t.id
                        ),
                    ));
                }
                for entry in entries(name, value) {
                    // The value the process inherits (`PATH=/opt/bin:$PATH`) is gate's own
                    // environment, not the plan's: not checked here, as `env:` is not.
                    let Some(entry) = inherited(&entry) else {
                        continue;
                    };
                    let at = if entry.starts_with('/') || set.moves {
                        entry.clone()
                    } else {
                        let dir = std::path::absolute(cwd).unwrap_or_else(|_| cwd.clone());
                        dir.join(&entry).display().to_string()
                    };
                    let Some(why) = writable_entry(&at, &roots, &guarded) else {
                        continue;
                    };
                    return Err(PlanError::at_check(
                        shown,
                        t,
                        line,
                        format!(
                            "task `{}`: the `check:` line sets `{name}` with entry `{entry}`, which {why}: a \
                             trial could put {what} there and the grader would load it; use an absolute \
                             folder outside the task's folders (or a graders' folder)",
                            t.id
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Review 102 (a22, a26, a27): a `PYTHONPATH` whose folders, with the folder the check runs
/// in (first on `sys.path` under `-m` and `-c`), hold a folder the trials write named like a
/// module (the standard library's, or one of those folders'), which a trial's
/// `NAME/__init__.py` would stand in for: why, for the `env:` of task `t`.
fn pythonpath_shadow(t: &super::Task, value: &str, roots: &[PathBuf]) -> Option<String> {
    super::state::check_lines(t)
        .into_iter()
        .find_map(|(_, cwd, _)| pythonpath_shadow_in(cwd, value, false, roots))
}

/// [`pythonpath_shadow`] for a check that runs in `cwd` (`moved`: the line changes folder
/// first, so a relative entry is not read).
fn pythonpath_shadow_in(cwd: &Path, value: &str, moved: bool, roots: &[PathBuf]) -> Option<String> {
    let dir = std::path::absolute(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let mut folders = vec![dir.clone()];
    for entry in value.split(':').filter(|e| !e.is_empty()) {
        if entry.starts_with('/') {
            folders.push(PathBuf::from(entry));
        } else if !moved {
            folders.push(dir.join(entry));
        }
    }
    let writable = |p: &Path| super::state::under_roots(p, roots);
    super::tools::shadow_in_folders(&folders, &writable, false, false)
}

/// Gate's `HOME` where it is absolute: the home its check shares, which `~` names there.
fn home() -> Option<String> {
    std::env::var("HOME").ok().filter(|h| h.starts_with('/'))
}

/// An entry of a value assigned on a `check:` line with what the shell expands there from
/// gate's own environment put in (`~`, `$HOME/x`); `None` for an entry that is exactly an
/// inherited variable (`$PATH` in `PATH=/opt/bin:$PATH`), which the plan does not set.
/// `$PWD` is the check's folder: kept relative. A variable gate does not have stays as
/// written, and so is refused as relative.
fn inherited(entry: &str) -> Option<String> {
    if entry == "~" || entry.starts_with("~/") {
        return Some(match home() {
            Some(h) => format!("{h}{}", &entry[1..]),
            None => entry.to_string(),
        });
    }
    let Some(after) = entry.strip_prefix('$') else {
        return Some(entry.to_string());
    };
    let (name, rest) = match after.strip_prefix('{') {
        Some(inner) => match inner.split_once('}') {
            Some(split) => split,
            None => return Some(entry.to_string()),
        },
        None => {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            after.split_at(end)
        }
    };
    if matches!(name, "PWD" | "OLDPWD") || name.is_empty() {
        return Some(format!(".{rest}"));
    }
    // The trial's own folders (review 10: `HOME=$TMPDIR` ran the agent's `.pth`), taken as
    // relative, as writable as the check's folder. A check's `TMPDIR` is its own since
    // review 46, fresh and empty, so for it this is stricter than it needs to be.
    if name == "TMPDIR" || name.starts_with("GATE_") {
        return Some(format!(".{rest}"));
    }
    if rest.is_empty() {
        return None;
    }
    match std::env::var(name).ok().filter(|v| v.starts_with('/')) {
        Some(v) => Some(format!("{v}{rest}")),
        None => Some(entry.to_string()),
    }
}

/// Where on a `check:` line the shell assigns a variable for what it runs, and whether
/// the line changes folder (review 9, a05/a20/a26): the words before a command's name
/// (`PYTHONPATH=src python3 …`), `env`'s (with its options, glued or not: `env
/// -S"PYTHONPATH=src …"`, `-vS…`, `--split-string=…`), those of `export`, `declare`,
/// `typeset`, `local`, `readonly`, and `make`'s (which exports them to its recipes). A
/// `NAME=value` word after any other command is an argument (`grep -qx PYTHONPATH=src
/// f`), not an assignment. Quoted shell text (`sh -c '…'`) is read as a line of its own.
#[derive(Default)]
struct LineAssignments {
    assigned: Vec<(String, String)>,
    /// `cd`, `pushd`, `popd`, `env -C DIR` / `--chdir`, or any `-C` option.
    moves: bool,
}

/// Where a word stands in its simple command.
#[derive(Clone, Copy, PartialEq)]
enum At {
    /// Before the command's name (or right after a wrapper such as `timeout 10`).
    Lead,
    /// After `env`: its options and assignments, then a command.
    Env,
    /// After a command whose `NAME=value` operands assign (`export`, `make`).
    Exports,
    /// The operands of any other command.
    Operands,
}

/// The `NAME=VALUE` assignments a line makes that its commands inherit (as prefixes, through
/// `env`, `export`), in order.
pub(super) fn line_assignments(tokens: &[super::words::Token]) -> Vec<(String, String)> {
    let mut set = LineAssignments::default();
    set.read(tokens);
    set.assigned
}

impl LineAssignments {
    fn read(&mut self, tokens: &[super::words::Token]) {
        use super::words::Token;
        let mut at = At::Lead;
        // The next word is an option's operand: `-C DIR`, `-u NAME`, `-S STRING`.
        let mut operand: Option<char> = None;
        let mut wrapped = false;
        let mut skip_target = false;
        for (i, t) in tokens.iter().enumerate() {
            let w = match t {
                Token::End | Token::Scope(_) => {
                    (at, operand, wrapped, skip_target) = (At::Lead, None, false, false);
                    continue;
                }
                Token::Input => {
                    skip_target = true;
                    continue;
                }
                Token::Word(w) => w,
            };
            if std::mem::take(&mut skip_target) {
                continue;
            }
            // The tokenizer gives a `NAME=VALUE` word's value as a word of its own first.
            if matches!(tokens.get(i + 1), Some(Token::Word(n)) if n.split_once('=').is_some_and(|(_, v)| v == w))
            {
                continue;
            }
            if w.starts_with("-C") || w.starts_with("--chdir") {
                self.moves = true;
            }
            if let Some(opt) = operand.take() {
                match opt {
                    'C' => self.moves = true,
                    'S' => self.split(w),
                    _ => {}
                }
                continue;
            }
            if matches!(at, At::Lead | At::Env | At::Exports) && assignment(w) {
                if let Some((k, v)) = w.split_once('=') {
                    self.assigned.push((k.to_string(), v.to_string()));
                }
                continue;
            }
            match at {
                At::Env if w.starts_with('-') => {
                    operand = self.env_option(w);
                    continue;
                }
                At::Lead
                    if wrapped
                        && (w.starts_with('-')
                            || w.chars().next().is_some_and(|c| c.is_ascii_digit())) =>
                {
                    continue;
                }
                At::Lead | At::Env => {}
                At::Exports | At::Operands => continue,
            }
            let name = name_of(w);
            at = match name.as_str() {
                "env" => At::Env,
                "export" | "declare" | "typeset" | "local" | "readonly" | "make" | "gmake"
                | "bmake" => At::Exports,
                "cd" | "pushd" | "popd" => {
                    self.moves = true;
                    At::Operands
                }
                n if super::words::WRAPPERS.contains(&n) => {
                    wrapped = true;
                    At::Lead
                }
                _ => At::Operands,
            };
        }
    }

    /// Text `env -S` splits into words of a line of its own.
    fn split(&mut self, text: &str) {
        self.read(&super::words::line_tokens(text, &[], 0));
    }

    /// One of `env`'s options; the option whose operand is the next word, if any.
    fn env_option(&mut self, w: &str) -> Option<char> {
        if let Some(long) = w.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            return match (name, value) {
                ("chdir", _) => {
                    self.moves = true;
                    value.is_none().then_some('C')
                }
                ("split-string", Some(v)) => {
                    self.split(v);
                    None
                }
                ("split-string", None) => Some('S'),
                ("unset", None) => Some('u'),
                _ => None,
            };
        }
        let cluster = &w[1..];
        for (i, c) in cluster.char_indices() {
            let rest = &cluster[i + c.len_utf8()..];
            match c {
                'C' | 'S' | 'u' => {
                    if c == 'C' {
                        self.moves = true;
                    }
                    if rest.is_empty() {
                        return Some(c);
                    }
                    if c == 'S' {
                        self.split(rest);
                    }
                    return None;
                }
                _ => {}
            }
        }
        None
    }
}

/// Whether `w` is a shell assignment `NAME=value`.
fn assignment(w: &str) -> bool {
    w.split_once('=').is_some_and(|(k, _)| {
        !k.is_empty()
            && !k.starts_with(|c: char| c.is_ascii_digit())
            && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// A check that runs node and whose grader changes to a folder that does not exist when the
/// run starts, inside a folder the trials write, is refused at load (review 50; review 46,
/// a09, a10; 110j: `mkdir -p build && cd build && exec node -r eq/config …` in
/// `graders/check.sh`). Node run there reads the `package.json` and `node_modules` a trial
/// made in that folder first, and gate watches only those of the folders there when the run
/// starts (a new folder is the agent's own: a new package of a monorepo). The same words on
/// the `check:` line itself are refused by [`super::grammar`] for every check. Grader text
/// is read for the folder's name ([`super::words::folders_entered`]), so a name built at run time escapes
/// this; the layout that needs no reading runs node from a folder that exists (with a
/// `package.json` of its own) or outside the trials' folders.
pub(super) fn refuse_node_from_a_folder_made_in_the_run(
    shown: &str,
    plan: &Plan,
) -> Result<(), PlanError> {
    if plan.policy.sandbox.mode == crate::model::SandboxMode::Off {
        return Ok(());
    }
    let roots = super::state::writable_roots(plan);
    let guarded = super::state::guarded_folders(plan);
    // Prose and data change to no folder (a README's `cd build`).
    let prose = |f: &Path| {
        f.extension().is_some_and(|e| {
            ["md", "txt", "rst", "json", "yaml", "yml", "csv"].contains(&e.to_str().unwrap_or(""))
        })
    };
    for t in &plan.tasks {
        for (line, cwd, env) in super::state::check_lines(t) {
            if !super::state::check_runs_node(line, cwd, env) {
                continue;
            }
            let cwd = std::path::absolute(cwd).unwrap_or_else(|_| cwd.clone());
            for file in super::state::grader_files(line, &cwd, env) {
                if prose(&file) {
                    continue;
                }
                let Some(text) = super::state::grader_text(&file) else {
                    continue;
                };
                for folder in super::words::folders_entered(&text) {
                    // Taken from the check's folder, where a grader starts, or from the
                    // grader's own (a script that changed there first).
                    let at = cwd.join(&folder);
                    let beside = file.parent().map(|d| d.join(&folder));
                    if at.is_dir() || beside.is_some_and(|b| b.is_dir()) {
                        continue;
                    }
                    let p = resolve(&at);
                    let writable = roots.iter().any(|r| p.starts_with(r))
                        && !guarded.iter().any(|g| p.starts_with(g));
                    if !writable {
                        continue;
                    }
                    let shown_file = file.strip_prefix(&cwd).unwrap_or(&file);
                    return Err(PlanError::at_check(
                        shown,
                        t,
                        line,
                        format!(
                            "task `{}`: grader `{}` changes to `{folder}` and the check runs \
                             node, but that folder does not exist when the run starts, in a \
                             folder the trials write, so gate cannot watch the `package.json` \
                             or `node_modules` node would find there (a trial could make them); \
                             make the folder before the run with a `package.json` of its own \
                             (`{{}}` will do; commit it), or run node from a folder that exists",
                            t.id,
                            shown_file.display()
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// How a `python` command of a `check:` line puts its current folder first on `sys.path`
/// (`-m NAME`, `-c`, a program from stdin), with the module a trial would create there;
/// `None` when it does not (a script operand, `-I`, `-P`, a long option such as
/// `--version`).
pub(super) fn python_cwd_form(words: &[String]) -> Option<String> {
    let mut args = words[1..].iter();
    while let Some(w) = args.next() {
        if w == "-" {
            return Some("json".to_string());
        }
        // A script operand: its own folder is `sys.path[0]`.
        let flags = w.strip_prefix('-')?;
        if flags.starts_with('-') {
            return None;
        }
        if flags.contains('I') || flags.contains('P') {
            return None;
        }
        if flags.ends_with('m') {
            let module = args.next()?;
            return Some(module.split('.').next().unwrap_or(module).to_string());
        }
        if flags.ends_with('c') {
            return Some("json".to_string());
        }
        if matches!(flags, "W" | "X") {
            args.next();
        }
    }
    Some("json".to_string())
}

/// A `check:` line (a task's or base's) that runs Python with its current folder first on
/// `sys.path` (`python3 -m pytest`, `python3 -c …`, a program from stdin) in a folder the
/// trials write is refused unless the task's `env:` sets `PYTHONSAFEPATH` (review 7, c40):
/// a trial creates `pytest.py` there, which did not exist when the run started and so was
/// not protected, and it runs in place of the grader.
pub(super) fn refuse_python_cwd_on_sys_path(shown: &str, plan: &Plan) -> Result<(), PlanError> {
    if plan.policy.sandbox.mode == crate::model::SandboxMode::Off {
        return Ok(());
    }
    let roots = super::state::writable_roots(plan);
    let guarded = super::state::guarded_folders(plan);
    for t in &plan.tasks {
        for (line, cwd, env) in super::state::check_lines(t) {
            let safe = env
                .iter()
                .any(|(k, v)| k == "PYTHONSAFEPATH" && !v.is_empty());
            if safe {
                continue;
            }
            let mut dir = cwd.clone();
            let mut folders = super::words::Folders::new();
            for (scope, words) in super::words::scoped_commands(&tokens_of(line, env)) {
                folders.at(&scope, &mut dir);
                let name = name_of(&words[0]);
                if matches!(name.as_str(), "cd" | "pushd") {
                    if let Some(d) = super::words::cd_folder(&words)
                        .map(|d| dir.join(d))
                        .filter(|d| d.is_dir())
                    {
                        dir = d;
                    }
                    continue;
                }
                if !is_python(&name) {
                    continue;
                }
                let Some(module) = python_cwd_form(&words) else {
                    continue;
                };
                let real = resolve(&std::path::absolute(&dir).unwrap_or_else(|_| dir.clone()));
                let writable = roots.iter().any(|r| real.starts_with(r))
                    && !guarded.iter().any(|g| real.starts_with(g));
                if !writable {
                    continue;
                }
                return Err(PlanError::at_check(
                    shown,
                    t,
                    line,
                    format!(
                        "task `{}`: `check:` runs `{}` in `{}`, a folder the trials write, and \
                         Python puts that folder first on `sys.path`: a trial could create \
                         `{module}.py` there and it would run in place of the grader; write \
                         `{} -I …` or `{} -P …` (Python 3.11 or later), or set `PYTHONSAFEPATH: \
                         \"1\"` in the task's `env:`",
                        t.id,
                        words.join(" "),
                        real.display(),
                        words[0],
                        words[0],
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Task runners whose grader is defined in files a `check:` line does not name, with
/// those files (review 7, c38, c39).
const RUNNERS: &[(&str, &str)] = &[
    ("npm", "`package.json`"),
    ("yarn", "`package.json`"),
    ("pnpm", "`package.json`"),
    ("make", "`Makefile`"),
    (
        "npx",
        "`package.json` or the tool's configuration (`jest.config.js`)",
    ),
    ("bunx", "`package.json` or the tool's configuration"),
    ("just", "`justfile`"),
    ("tox", "`tox.ini`"),
    (
        "pytest",
        "`pytest.ini`, `pyproject.toml`, `tox.ini`, `setup.cfg` or `conftest.py`",
    ),
    // Review 16, N: `cargo test` and `go test` build and run the project's code and read
    // how from its files, as the runners above do.
    ("cargo", "`Cargo.toml`, `build.rs` or `.cargo/config.toml`"),
    (
        "go",
        "`go.mod`, `go.work` or the packages' `_test.go` files",
    ),
];

/// The runner a command starts some other way than by the runner's name (review 20, 13,
/// 14, 23): `python3 -m pytest` in any spelling of the option (`-Im pytest`, `-mpytest`),
/// inline code that imports it (`-c 'import pytest; pytest.main()'`), node running npm's,
/// npx's, yarn's or pnpm's own script (`node …/npm/bin/npm-cli.js test`), `py.test`.
fn runner_of(name: &str, words: &[String]) -> Option<&'static str> {
    // Other names of the same runners (review 68, 01: `gmake -B check`).
    match name {
        "py.test" | "pytest-3" | "py.test-3" => return Some("pytest"),
        "gmake" | "bmake" | "remake" => return Some("make"),
        _ => {}
    }
    if is_python(name) {
        let mut k = 1;
        while let Some(w) = words.get(k) {
            // Python's long options take no value but one (review 21, 10).
            if w.starts_with("--") && w != "--" {
                k += if w == "--check-hash-based-pycs" { 2 } else { 1 };
                continue;
            }
            if w == "--" {
                break;
            }
            // pytest's console script run by its path (`python3 venv/bin/pytest`: review
            // 103, p07) is pytest.
            if !w.starts_with('-') {
                let script = super::words::name_of(w);
                return matches!(
                    script.as_str(),
                    "pytest" | "py.test" | "pytest-3" | "py.test-3"
                )
                .then_some("pytest");
            }
            let flags = &w[1..];
            // Options before `m`/`c`/`W`/`X` in a cluster take no value (`-I`, `-B`, `-u`).
            let Some(at) = flags.find(['m', 'c', 'W', 'X']) else {
                k += 1;
                continue;
            };
            let glued = &flags[at + 1..];
            let value = if glued.is_empty() {
                words.get(k + 1).map_or("", String::as_str)
            } else {
                glued
            };
            match &flags[at..=at] {
                "m" => {
                    return (value == "pytest" || value.starts_with("pytest.")).then_some("pytest");
                }
                "c" => return mentions_pytest(value).then_some("pytest"),
                // `-W arg`, `-X arg`: past the value.
                _ => k += if glued.is_empty() { 2 } else { 1 },
            }
        }
        return None;
    }
    if matches!(name, "node" | "nodejs" | "bun") {
        let script = words.iter().skip(1).find(|w| !w.starts_with('-'))?;
        return match super::words::name_of(script).as_str() {
            "npm-cli.js" | "npm" => Some("npm"),
            "npx-cli.js" | "npx" => Some("npx"),
            "yarn.js" | "yarn.cjs" | "yarn" => Some("yarn"),
            "pnpm.cjs" | "pnpm.js" | "pnpm.mjs" | "pnpm" => Some("pnpm"),
            _ => None,
        };
    }
    None
}

/// The first `--env-file` (or `--env-file-if-exists`) of node command `words` (run in
/// `dir`) that sets a variable choosing code ([`chooses_code`]: `NODE_OPTIONS`, `PATH`, …),
/// with that variable; one gate cannot read counts too.
fn env_file_code_var(words: &[String], dir: &Path) -> Option<(String, String)> {
    let mut k = 1;
    while let Some(w) = words.get(k) {
        k += 1;
        if !w.starts_with('-') {
            break;
        }
        let file = match w.as_str() {
            "--env-file" | "--env-file-if-exists" => words.get(k).cloned(),
            _ => w
                .strip_prefix("--env-file=")
                .or_else(|| w.strip_prefix("--env-file-if-exists="))
                .map(str::to_string),
        };
        let Some(file) = file else { continue };
        let path = dir.join(&file);
        if !path.exists() {
            continue;
        }
        let Some(text) = super::makefile::read_text(&path) else {
            return Some((file, "what it holds".into()));
        };
        for l in text.lines() {
            let l = l.trim();
            let l = l.strip_prefix("export ").unwrap_or(l).trim_start();
            if let Some((name, _)) = l.split_once('=') {
                let name = name.trim();
                if chooses_code(name) || runs_a_command(name).is_some() {
                    return Some((file, name.to_string()));
                }
            }
        }
    }
    None
}

/// What [`js_literals`] reads of JavaScript (or JSON with comments).
#[derive(Default)]
struct JsText {
    /// Each string literal, its escapes decoded, with the key it is the value of (or the
    /// key of the array it lies in), if any.
    strings: Vec<(Option<String>, String)>,
    /// The text without its comments (JSON with comments made JSON).
    plain: String,
    /// A way of making a string gate does not follow (`'o' + 'ut'`, `${…}`,
    /// `String.fromCharCode`, …), where one is seen.
    computed: Option<&'static str>,
    /// A string method ([`js_string_method`]) where one is seen: it builds a string gate
    /// does not follow only where the file's literals hold something to build a path to a
    /// folder the trials write from ([`literals_reach`]).
    method: Option<&'static str>,
}

/// Methods that make a new string of a string (or of an array's strings): where their
/// receiver is a literal, an array, a call's result or a variable the file declares, the
/// string is built at run time (review 97, 01, 02, 10, 11, 38).
const JS_STRING_METHODS: [&str; 25] = [
    "join",
    "split",
    "substring",
    "substr",
    "slice",
    "replace",
    "replaceAll",
    "concat",
    "repeat",
    "toLowerCase",
    "toUpperCase",
    "toLocaleLowerCase",
    "toLocaleUpperCase",
    "trim",
    "trimStart",
    "trimEnd",
    "padStart",
    "padEnd",
    "at",
    "charAt",
    "normalize",
    "reverse",
    "raw",
    "reduce",
    "reduceRight",
];

/// Words after which a `/` starts a regular expression, not a division.
const JS_KEYWORDS_BEFORE_A_VALUE: [&str; 15] = [
    "return",
    "typeof",
    "instanceof",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "case",
    "do",
    "else",
    "yield",
    "await",
    // `class K extends /'/.constructor {}` (review 99, 20).
    "extends",
];

/// Where JavaScript `text` builds a string by a method of [`JS_STRING_METHODS`] (`.m(`,
/// `?.m(`, `['m'](`) on anything but a function's parameter (`(p) => p.replace(…)`: review
/// 97, 99) or a module (`path.join`, whose parts [`js_path_calls`] reads): a literal, an
/// array, a call's result, a member, a variable however declared (98, 04-09).
/// Whether the receiver is itself a literal, an array or a call's result (`'tuo'.split('')`,
/// `['o', 'u', 't'].join('')`): the second of the pair, which counts whatever the file's
/// strings hold (review 100, 01-03); on a name it counts only where they reach
/// ([`literals_reach`]).
fn js_string_method(text: &str) -> Option<(&'static str, bool)> {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    // Modules: `NAME = require(…)`, `NAME = await import(…)`, `import NAME from`.
    let mut modules: Vec<&str> = vec!["path", "posix", "win32"];
    for (at, _) in text
        .match_indices("require(")
        .chain(text.match_indices("import("))
    {
        let before = text[..at].trim_end().trim_end_matches("await").trim_end();
        if let Some(b) = before.strip_suffix('=') {
            let b = b.trim_end();
            let start = b.rfind(|c: char| !ident(c)).map_or(0, |k| k + 1);
            modules.push(&b[start..]);
        }
    }
    for (at, _) in text.match_indices("import ") {
        let rest = &text[at + 7..];
        let end = rest.find(|c: char| !ident(c)).unwrap_or(rest.len());
        modules.push(&rest[..end]);
    }
    // Parameters without a default: `(a, b) =>`, `a =>`, `function f(a, b)`.
    let mut params: Vec<String> = Vec::new();
    let mut add = |list: &str| {
        for p in list.split(',') {
            let p = p.trim();
            if !p.is_empty() && p.chars().all(ident) {
                params.push(p.to_string());
            }
        }
    };
    for (at, _) in text.match_indices("=>") {
        let before = text[..at].trim_end();
        if let Some(inner) = before.strip_suffix(')') {
            if let Some(open) = inner.rfind('(') {
                add(&inner[open + 1..]);
            }
        } else {
            let start = before.rfind(|c: char| !ident(c)).map_or(0, |k| k + 1);
            add(&before[start..]);
        }
    }
    for (at, _) in text.match_indices("function") {
        let rest = &text[at..];
        if let (Some(open), Some(close)) = (rest.find('('), rest.find(')'))
            && open < close
        {
            add(&rest[open + 1..close]);
        }
    }
    for m in JS_STRING_METHODS {
        let forms = [format!(".{m}"), format!("['{m}']"), format!("[\"{m}\"]")];
        for form in &forms {
            for (at, _) in text.match_indices(form.as_str()) {
                let after = text[at + form.len()..].trim_start();
                let called = after.starts_with('(') || after.starts_with('`');
                if !(called || (m == "raw" && form.starts_with('.'))) {
                    continue;
                }
                if form.starts_with('.') && text[at + form.len()..].starts_with(ident) {
                    continue;
                }
                let before = text[..at].trim_end();
                let before = before.strip_suffix('?').unwrap_or(before).trim_end();
                let start = before.rfind(|c: char| !ident(c)).map_or(0, |k| k + 1);
                let name = &before[start..];
                let member = before[..start].ends_with('.');
                let on_value = matches!(
                    before.chars().next_back(),
                    Some('\'' | '"' | '`' | ']' | ')')
                );
                let built = match before.chars().next_back() {
                    Some('\'' | '"' | '`' | ']' | ')') => ![
                        "require('path')",
                        "require(\"path\")",
                        "require('node:path')",
                    ]
                    .iter()
                    .any(|r| before.ends_with(r)),
                    Some(_) if !name.is_empty() => {
                        !modules.contains(&name) && (member || !params.iter().any(|p| p == name))
                    }
                    _ => false,
                };
                if built {
                    let why = match m {
                        "raw" => "`String.raw`",
                        _ => "a string method",
                    };
                    return Some((why, on_value));
                }
            }
        }
    }
    None
}

/// The paths `path.join(…)` and `path.resolve(…)` (or a bare `join(…)`, `resolve(…)`) make
/// in JavaScript `text` of literals and `__dirname`, each as one string (`__dirname` as the
/// marker [`js_literals`] gives it): their parts alone (`'..'`, `'out'`) name nothing
/// (review 98, 01, 02, 34, 35). A call with any other argument is left out. Each with the
/// key it is the value of (`coverageDirectory: path.join(…)`), if any.
fn js_path_calls(text: &str) -> Vec<(Option<String>, String)> {
    let mut out = Vec::new();
    for name in ["join(", "resolve("] {
        for (at, _) in text.match_indices(name) {
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            // The arguments, to the `)` that closes the call (strings skipped).
            let args = &text[at + name.len()..];
            let (mut depth, mut quote, mut end) = (0usize, None::<char>, None);
            let mut escaped = false;
            for (k, c) in args.char_indices() {
                match (quote, c) {
                    (Some(_), _) if escaped => escaped = false,
                    (Some(_), '\\') => escaped = true,
                    (Some(q), c) if c == q => quote = None,
                    (Some(_), _) => {}
                    (None, '\'' | '"' | '`') => quote = Some(c),
                    (None, '(' | '[' | '{') => depth += 1,
                    (None, ')') if depth == 0 => {
                        end = Some(k);
                        break;
                    }
                    (None, ')' | ']' | '}') => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            let Some(end) = end else { continue };
            let mut parts = Vec::new();
            let mut plain = true;
            for arg in args[..end].split(',').map(str::trim) {
                match arg {
                    "__dirname" | "process.cwd()" | "import.meta.dirname" => {
                        parts.push("\u{0}dir".to_string())
                    }
                    a if a.len() >= 2
                        && (a.starts_with('\'') || a.starts_with('"') || a.starts_with('`')) =>
                    {
                        match js_literals(a).strings.as_slice() {
                            [(_, s)] => parts.push(s.clone()),
                            _ => plain = false,
                        }
                    }
                    _ => plain = false,
                }
            }
            if plain && parts.len() > 1 {
                // The key: the word before the `:` before the callee (`path.posix.join`).
                let callee = text[..at].trim_end_matches(|c: char| {
                    c.is_alphanumeric() || c == '_' || c == '$' || c == '.'
                });
                let key = callee.trim_end().strip_suffix(':').map(|k| {
                    let k = k.trim_end().trim_end_matches(['\'', '"']);
                    let start = k
                        .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '-'))
                        .map_or(0, |i| i + 1);
                    k[start..].to_string()
                });
                let mut path = String::new();
                for p in parts {
                    if p.starts_with('/') || p.starts_with('\u{0}') || path.is_empty() {
                        path = p;
                    } else {
                        path = format!("{}/{p}", path.trim_end_matches('/'));
                    }
                }
                out.push((key, path));
            }
        }
    }
    out
}

/// Whether a string literal of a configuration in code (`strings`) holds something a string
/// method could make a path to one of `roots` of: a `..`, or the name of a folder the trials
/// write in any case (`'../OUT/x.js'.toLowerCase()`, `'X../out/x.js'.substring(1)`: reviews
/// 97 and 98). A method where none does (`pkg.name.replace('@acme/', '')`,
/// `mode.toUpperCase()`, `process.argv.slice(2)`: review 99, 80-82, 88) makes no path gate
/// must follow.
fn literals_reach(strings: &[(Option<String>, String)], roots: &[PathBuf]) -> bool {
    let names = root_names(roots);
    strings.iter().any(|(_, s)| {
        let s = s.to_lowercase();
        s.contains("..") || names.iter().any(|n| s.contains(n.as_str()))
    })
}

/// Whether a piece of string `s` (split at `/`, `\\`, blanks and quotes) is the name of a
/// folder of `roots`, in any case (`OUT` where `out` is written).
fn names_a_root_by_name(s: &str, roots: &[PathBuf]) -> bool {
    let names = root_names(roots);
    s.to_lowercase()
        .split(|c: char| {
            matches!(c, '/' | '\\' | '\'' | '"' | '`' | ',' | '=') || c.is_whitespace()
        })
        .any(|piece| names.iter().any(|n| n == piece))
}

/// The names of the folders of `roots` (their last parts), in lower case.
fn root_names(roots: &[PathBuf]) -> Vec<String> {
    roots
        .iter()
        .filter_map(|r| r.file_name())
        .map(|n| n.to_string_lossy().to_lowercase())
        .filter(|n| !n.is_empty())
        .collect()
}

/// Whether JavaScript `plain` (comments removed) may read a value without naming its key,
/// so that a key that names no code cannot be passed over (review 98, 11-13): a literal that
/// spells such a key (`o['\x74imeout']`: 99, 17), or `Object.values`, `Object.entries`,
/// `Object.keys` (any spelling of the member: 99, 16, 18) or `Reflect.ownKeys` of anything
/// but a name whose object literal holds none of those keys (`Object.entries(flags)`: 99,
/// 85).
fn launders_a_key(plain: &str, strings: &[(Option<String>, String)]) -> bool {
    if strings
        .iter()
        .any(|(_, s)| CONFIG_KEYS_NO_CODE.contains(&s.as_str()))
    {
        return true;
    }
    // A key spelled otherwise than as written where it is read (`{'\u0074imeout': …}`
    // read back as `o.timeout`: review 98, 11).
    let as_written = |k: &str| {
        plain.match_indices(k).any(|(at, _)| {
            let rest = plain[at + k.len()..].trim_start_matches(['\'', '"']);
            rest.trim_start().starts_with(':')
        })
    };
    if strings.iter().any(|(k, _)| {
        k.as_deref()
            .is_some_and(|k| CONFIG_KEYS_NO_CODE.contains(&k) && !as_written(k))
    }) {
        return true;
    }
    // A name spelled with an escape in code, not in a string (`o.ig\u006eore`: review 98,
    // 13); one inside a string (`'\u2713 unit'`) names nothing (99, 84).
    let mut quote: Option<char> = None;
    let mut chars = plain.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(_), '\\') => {
                chars.next();
            }
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"' | '`') => quote = Some(c),
            (None, '\\') if chars.peek() == Some(&'u') => return true,
            (None, _) => {}
        }
    }
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let readers = ["values", "entries", "keys", "ownKeys"];
    let mut calls = Vec::new();
    for r in readers {
        for form in [format!(".{r}"), format!("['{r}']"), format!("[\"{r}\"]")] {
            for (at, _) in plain.match_indices(form.as_str()) {
                let before = plain[..at].trim_end();
                if !(before.ends_with("Object") || before.ends_with("Reflect")) {
                    continue;
                }
                calls.push(plain[at + form.len()..].trim_start());
            }
        }
    }
    calls.into_iter().any(|after| {
        let Some(arg) = after.strip_prefix('(') else {
            // Passed on uncalled (`const v = Object.values`): anything may be read.
            return true;
        };
        let arg = arg.trim_start();
        let end = arg.find(|c: char| !ident(c)).unwrap_or(arg.len());
        let (name, rest) = arg.split_at(end);
        if name.is_empty() || !rest.trim_start().starts_with(')') {
            return true;
        }
        // The object literal the name is declared with: `NAME = {…}`.
        let body = plain.match_indices(name).find_map(|(at, _)| {
            let whole = !plain[..at].chars().next_back().is_some_and(ident)
                && !plain[at + name.len()..].chars().next().is_some_and(ident);
            let value = plain[at + name.len()..].trim_start().strip_prefix('=')?;
            let value = value.trim_start();
            if !whole || !value.starts_with('{') {
                return None;
            }
            let mut depth = 0usize;
            for (k, c) in value.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(&value[..=k]);
                        }
                    }
                    _ => {}
                }
            }
            Some(value)
        });
        body.is_none_or(|b| CONFIG_KEYS_NO_CODE.iter().any(|k| word_count(b, k) > 0))
    })
}

/// Where JavaScript `text` reads `process.env` for a value, not only as a condition
/// (`process.env.CI ? a : b`, `if (process.env.CI)`: review 97, 93).
fn js_env_value(text: &str) -> bool {
    text.match_indices("process.env").any(|(at, _)| {
        let rest = &text[at + "process.env".len()..];
        // The member read: `.NAME` or `['NAME']`.
        let rest = match rest.strip_prefix('.') {
            Some(r) => r.trim_start_matches(|c: char| c.is_alphanumeric() || c == '_' || c == '$'),
            None => match rest.strip_prefix('[') {
                Some(r) => r.split_once(']').map_or("", |(_, r)| r),
                None => rest,
            },
        };
        let rest = rest.trim_start();
        let negated = text[..at].trim_end().ends_with('!');
        let condition = ["?", "&&", "||", "==", "!=", ")"]
            .iter()
            .any(|op| rest.starts_with(op) && !rest.starts_with("??"));
        let in_if = {
            let b = text[..at].trim_end();
            b.ends_with("if (") || b.ends_with("if(") || b.ends_with("while (")
        };
        !(negated || (condition && (in_if || !rest.starts_with(')'))))
    })
}

/// The string literals of JavaScript (or JSON with comments) `text`: a configuration in code
/// is read as far as its literals, and one that builds a string any other way is marked
/// (review 96, 01-05; 97, 01-11, 38): concatenation (`+`, `+=`), a template's `${…}` other
/// than `__dirname`, `import.meta.dirname` or `process.cwd()`, a tagged template, a string
/// method on a literal or a variable, character codes, `atob`, `Buffer`, `process.env` read
/// for a value, a file read. Escapes are decoded as JavaScript decodes them (legacy octal,
/// a line continuation: 97, 03, 04); regular expression literals are skipped where a value
/// may start (after an operator, `if (…)` or a keyword: `/'/`, 96, 03; 97, 05, 06), and
/// HTML-like comments (`<!--`, `-->`) are comments (97, 07). A literal's key is the word
/// before its `:`, the key of the array or call it lies in, never a ternary's branch (97, 08).
fn js_literals(text: &str) -> JsText {
    js_literals_of(text, false)
}

/// [`js_literals`] of a script, or (`module`) of an ES module, where `<!--` and `-->` are
/// operators, not comments.
fn js_literals_of(text: &str, module: bool) -> JsText {
    let mut out = JsText::default();
    for (needle, why) in [
        ("fromCharCode", "character codes"),
        ("fromCodePoint", "character codes"),
        ("atob", "`atob`"),
        ("Buffer", "a `Buffer`"),
        ("readFileSync", "a file it reads"),
        ("readFile(", "a file it reads"),
        ("eval(", "`eval`"),
        ("Function(", "`Function`"),
        ("decodeURI", "`decodeURI`"),
        ("unescape", "`unescape`"),
        ("String.raw", "`String.raw`"),
        ("+=", "strings joined with `+=`"),
    ] {
        if text.contains(needle) {
            out.computed = Some(why);
        }
    }
    if js_env_value(text) {
        out.computed = Some("`process.env`");
    }
    match js_string_method(text) {
        Some((why, true)) => out.computed = Some(why),
        Some((why, false)) => out.method = Some(why),
        None => {}
    }
    let chars: Vec<char> = text.chars().collect();
    let mut keys: Vec<Option<String>> = vec![None];
    let mut pending: Option<String> = None;
    let mut word = String::new();
    // The last identifier completed, until something other than a blank follows it.
    let mut last_word = String::new();
    // Whether that word (or the one being read) follows a `.`: a property's name.
    let mut word_dotted = false;
    // Open `(`: whether each is the head of `if`, `while`, `for` or `with` (a `/` after its
    // `)` starts a regular expression).
    let mut parens: Vec<bool> = Vec::new();
    // `?` of a ternary not yet met by its `:`.
    let mut ternaries = 0usize;
    let mut line_blank = true;
    // The last character that is not a blank: decides whether a `/` starts a regex.
    let mut last = '(';
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        k += 1;
        if c == '\n' {
            line_blank = true;
        }
        let starts = |s: &str| {
            s.chars()
                .enumerate()
                .all(|(i, x)| chars.get(k + i) == Some(&x))
        };
        let html_open = !module && c == '<' && starts("!--");
        let html_close = !module && c == '-' && line_blank && starts("->");
        if (c == '/' && chars.get(k) == Some(&'/')) || html_open || html_close {
            while k < chars.len() && chars[k] != '\n' {
                k += 1;
            }
            continue;
        }
        if c == '/' && chars.get(k) == Some(&'*') {
            k += 1;
            while k < chars.len() && !(chars[k - 1] == '*' && chars[k] == '/') {
                k += 1;
            }
            k += 1;
            out.plain.push(' ');
            continue;
        }
        if !c.is_whitespace() {
            line_blank = false;
        }
        let keyword = if word.is_empty() { &last_word } else { &word };
        // A keyword after a `.` is a property's name (`o.return / 1`: review 98, 15).
        let after_keyword = JS_KEYWORDS_BEFORE_A_VALUE.contains(&keyword.as_str()) && !word_dotted;
        // After a `}` (a block's or an object's) or a word that is a keyword only in some
        // code (`of`, `in`, `yield`, `await`), a `/` may start either; where what follows on
        // its line holds a quote or another `/`, gate cannot tell which literals are strings
        // (98, 14, 16).
        if c == '/'
            && chars.get(k) != Some(&'=')
            && (last == '}'
                || (after_keyword && matches!(keyword.as_str(), "of" | "in" | "yield" | "await")))
            && chars[k..]
                .iter()
                .take_while(|x| **x != '\n')
                .any(|x| matches!(x, '\'' | '"' | '`' | '/'))
        {
            out.computed = Some("a `/` gate cannot tell from a regular expression");
        }
        // After a spread (`[.../'/.source]`: review 99, 19) a value starts too.
        let spread = last == '.' && k >= 4 && chars[k - 4..k - 1].iter().all(|x| *x == '.');
        if c == '/' && ("=(,:[!&|?{};+-*%<>~^".contains(last) || after_keyword || spread) {
            // A regular expression: to its closing `/`, past escapes and classes.
            let mut class = false;
            while k < chars.len() {
                let r = chars[k];
                k += 1;
                match r {
                    '\\' => k += 1,
                    '[' => class = true,
                    ']' => class = false,
                    '/' if !class => break,
                    '\n' => break,
                    _ => {}
                }
            }
            last = 'r';
            word.clear();
            last_word.clear();
            out.plain.push_str("/r/");
            continue;
        }
        if matches!(c, '\'' | '"' | '`') {
            // A template right after a name or a call's result is a tagged template: the
            // tag builds the string (97, 38).
            if c == '`' && (last == 'a' && !after_keyword) {
                out.computed = Some("a tagged template");
            }
            word.clear();
            last_word.clear();
            let mut lit = String::new();
            let raw_start = k - 1;
            while k < chars.len() {
                let n = chars[k];
                k += 1;
                if n == '\\' {
                    let Some(&e) = chars.get(k) else { break };
                    k += 1;
                    let hex = |from: usize, len: usize| -> Option<char> {
                        let h: String = chars.get(from..from + len)?.iter().collect();
                        char::from_u32(u32::from_str_radix(&h, 16).ok()?)
                    };
                    let decoded = match e {
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        'b' => '\u{8}',
                        'f' => '\u{c}',
                        'v' => '\u{b}',
                        // A line continuation is nothing.
                        '\n' | '\u{2028}' | '\u{2029}' => continue,
                        '\r' => {
                            if chars.get(k) == Some(&'\n') {
                                k += 1;
                            }
                            continue;
                        }
                        // Legacy octal (`\157` is `o`), up to 255.
                        '0'..='7' => {
                            let mut v = e.to_digit(8).unwrap_or(0);
                            let most = if e <= '3' { 2 } else { 1 };
                            for _ in 0..most {
                                match chars.get(k).and_then(|d| d.to_digit(8)) {
                                    Some(d) => {
                                        v = v * 8 + d;
                                        k += 1;
                                    }
                                    None => break,
                                }
                            }
                            char::from_u32(v).unwrap_or('\0')
                        }
                        'x' => {
                            let d = hex(k, 2).unwrap_or('x');
                            k += 2;
                            d
                        }
                        'u' if chars.get(k) == Some(&'{') => {
                            let close = chars[k..].iter().position(|&x| x == '}').unwrap_or(0);
                            let h: String = chars[k + 1..k + close.max(1)].iter().collect();
                            k += close + 1;
                            u32::from_str_radix(&h, 16)
                                .ok()
                                .and_then(char::from_u32)
                                .unwrap_or('u')
                        }
                        'u' => {
                            let d = hex(k, 4).unwrap_or('u');
                            k += 4;
                            d
                        }
                        e => e,
                    };
                    lit.push(decoded);
                    continue;
                }
                if n == c {
                    break;
                }
                if c == '`' && n == '$' && chars.get(k) == Some(&'{') {
                    let close = chars[k..].iter().position(|&x| x == '}').unwrap_or(0);
                    let inner: String = chars[k + 1..k + close.max(1)].iter().collect();
                    match inner.trim() {
                        "__dirname" | "process.cwd()" | "import.meta.dirname" => {
                            lit.push_str("\u{0}dir")
                        }
                        _ => out.computed = Some("a template's `${…}`"),
                    }
                    k += close + 1;
                    continue;
                }
                lit.push(n);
            }
            // A literal beside a `+` is part of a string built at run time.
            let before = out.plain.trim_end().to_string();
            let after: String = chars[k.min(chars.len())..]
                .iter()
                .take_while(|c| c.is_whitespace() || **c == '+')
                .collect();
            if before.ends_with('+') || after.contains('+') {
                out.computed = Some("strings joined with `+`");
            }
            // Its key: `key: '…'`, or the key of the array or call it lies in.
            let key = if before.ends_with(':') {
                pending.clone()
            } else {
                keys.last().cloned().flatten()
            };
            let colon_follows = chars
                .get(k..)
                .is_some_and(|r| r.iter().find(|c| !c.is_whitespace()) == Some(&':'));
            if colon_follows && ternaries == 0 {
                pending = Some(lit);
            } else {
                out.strings.push((key, lit));
            }
            out.plain.extend(&chars[raw_start..k.min(chars.len())]);
            last = 's';
            continue;
        }
        out.plain.push(c);
        if c.is_alphanumeric() || c == '_' || c == '$' {
            if word.is_empty() {
                last_word.clear();
                word_dotted = last == '.';
            }
            word.push(c);
        } else if c.is_whitespace() {
            if !word.is_empty() {
                last_word = std::mem::take(&mut word);
            }
        } else {
            let name = if word.is_empty() {
                std::mem::take(&mut last_word)
            } else {
                std::mem::take(&mut word)
            };
            last_word.clear();
            match c {
                ':' if ternaries > 0 => ternaries -= 1,
                ':' if !name.is_empty() => pending = Some(name.clone()),
                '?' if !matches!(chars.get(k), Some('.' | '?'))
                    && (k < 2 || chars[k - 2] != '?') =>
                {
                    ternaries += 1
                }
                '[' => keys.push(pending.clone()),
                '(' => {
                    keys.push(pending.clone());
                    parens.push(matches!(name.as_str(), "if" | "while" | "for" | "with"));
                }
                ']' | ')' if keys.len() > 1 => {
                    keys.pop();
                }
                '{' => keys.push(None),
                '}' if keys.len() > 1 => {
                    keys.pop();
                }
                _ => {}
            }
            if c == ')' && parens.pop() == Some(true) {
                last = '(';
                continue;
            }
            // `i++ / 2`: a postfix `++` or `--` ends a value (97, 06).
            if (c == '+' || c == '-') && last == c && k >= 2 && chars[k - 2] == c {
                last = 'a';
                continue;
            }
        }
        if !c.is_whitespace() {
            last = if c.is_alphanumeric() || c == '_' || c == '$' || c == ')' || c == ']' {
                'a'
            } else {
                c
            };
        }
    }
    out
}

/// The strings of a configuration value, but for those under `skip` keys (what only names
/// files to leave out or to write to, not code).
fn config_strings<'a>(v: &'a serde_json::Value, skip: &[&str], out: &mut Vec<&'a str>) {
    match v {
        serde_json::Value::String(s) => out.push(s),
        serde_json::Value::Array(a) => a.iter().for_each(|v| config_strings(v, skip, out)),
        serde_json::Value::Object(o) => {
            for (k, v) in o {
                if !skip.contains(&k.as_str()) {
                    config_strings(v, skip, out);
                }
            }
        }
        _ => {}
    }
}

/// Keys of mocha's, jest's, vitest's and vite's configurations whose values name no code:
/// what to leave out, or where to write.
const CONFIG_KEYS_NO_CODE: [&str; 35] = [
    "ignore",
    "exclude",
    "reporter-option",
    "reporter-options",
    "reporterOption",
    "reporterOptions",
    "timeout",
    "slow",
    "grep",
    "fgrep",
    "extension",
    "watch-files",
    "watch-ignore",
    "coverageDirectory",
    "testPathIgnorePatterns",
    "coveragePathIgnorePatterns",
    "modulePathIgnorePatterns",
    "watchPathIgnorePatterns",
    "transformIgnorePatterns",
    "displayName",
    "outputDirectory",
    "outputFile",
    "outputName",
    "outDir",
    "reportsDirectory",
    "publicDir",
    "testNamePattern",
    // Counts and switches: a `$` value in one (`--maxWorkers=${JEST_WORKERS:-2}`, `--jobs
    // $npm_package_config_jobs`, `--shard=$SHARD`) makes no path (review 99, 86, 87, 89).
    "maxWorkers",
    "jobs",
    "shard",
    "retries",
    "bail",
    "seed",
    "testTimeout",
    "maxConcurrency",
];

/// The configuration files of node's tools gate reads, in a folder and those above it.
const NODE_CONFIGS: [&str; 40] = [
    ".mocharc.js",
    ".mocharc.cjs",
    ".mocharc.mjs",
    ".mocharc.yaml",
    ".mocharc.yml",
    ".mocharc.jsonc",
    ".mocharc.json",
    "jest.config.js",
    "jest.config.ts",
    "jest.config.mjs",
    "jest.config.cjs",
    "jest.config.mts",
    "jest.config.cts",
    "jest.config.json",
    "vitest.config.js",
    "vitest.config.ts",
    "vitest.config.mjs",
    "vitest.config.cjs",
    "vitest.config.mts",
    "vitest.config.cts",
    "vitest.workspace.js",
    "vitest.workspace.ts",
    "vitest.workspace.json",
    "vite.config.js",
    "vite.config.ts",
    "vite.config.mjs",
    "vite.config.cjs",
    "vite.config.mts",
    "vite.config.cts",
    "babel.config.js",
    "babel.config.json",
    "babel.config.cjs",
    "babel.config.mjs",
    "babel.config.cts",
    ".babelrc",
    ".babelrc.json",
    ".babelrc.js",
    ".babelrc.cjs",
    ".babelrc.mjs",
    ".babelrc.cts",
];

/// Keys of node's tools' configurations whose values are folders to search: a value there
/// that holds a folder the trials write widens what the tool collects (`rootDir: '..'`);
/// elsewhere in code a bare `'..'` or `'/'` is a piece of a path or a URL (review 97, 90,
/// 91), read only where it lies in such a folder.
const CONFIG_KEYS_FOLDERS: [&str; 14] = [
    "rootDir",
    "roots",
    "root",
    "dir",
    "spec",
    "projects",
    "modulePaths",
    "moduleDirectories",
    "testMatch",
    "include",
    "workspace",
    "cwd",
    "testDir",
    "preset",
];

/// Whether `option` (`--coverageDirectory`, `--outputFile=…`, `--reporter-option`) names
/// where a node tool writes or what it leaves out, not code: one of [`CONFIG_KEYS_NO_CODE`]
/// in any case or spelling, or node's `--test-reporter-destination` (review 97, 92).
fn no_code_option(option: &str) -> bool {
    let bare = |o: &str| {
        o.trim_start_matches('-')
            .replace(['-', '_'], "")
            .to_ascii_lowercase()
    };
    // Any part of a dotted name (vitest's `--outputFile.junit`, `--coverage.reportsDirectory`).
    let name = option.split_once('=').map_or(option, |(o, _)| o);
    name.split('.').map(bare).any(|name| {
        matches!(
            name.as_str(),
            "testreporterdestination"
                | "reportsdir"
                | "reportdir"
                | "outfile"
                | "output"
                | "outdir"
                | "tempdir"
                | "cachedirectory"
        ) || CONFIG_KEYS_NO_CODE.iter().any(|k| bare(k) == name)
    })
}

/// The path of a `file://` URL, its `%XX` escapes decoded (node loads `file:///…/out/s.mjs`
/// as that path: review 97, 12); any other text as it is.
fn file_url_path(v: &str) -> std::borrow::Cow<'_, str> {
    let Some(rest) = v.strip_prefix("file://") else {
        return v.into();
    };
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut k = 0;
    while k < bytes.len() {
        let hex = bytes
            .get(k + 1..k + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[k], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                k += 3;
            }
            (b, _) => {
                out.push(b);
                k += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned().into()
}

/// How many times `word` stands whole in `text` (not inside a longer name).
fn word_count(text: &str, word: &str) -> usize {
    let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
    text.match_indices(word)
        .filter(|(at, _)| {
            !part(text[..*at].chars().next_back()) && !part(text[at + word.len()..].chars().next())
        })
        .count()
}

/// Whether a check command named `name` may start one of node's test tools: the tool or a
/// package manager by name, a shell, make, or a program by path (a script gate does not
/// read, review 95, 06-09); not Python's, Go's or Rust's runners, whose checks do not read a
/// project's `vite.config.js` (review 96, 90-92, 95).
fn may_run_node_tools(name: &str, words: &[String]) -> bool {
    matches!(
        name,
        "node"
            | "nodejs"
            | "npx"
            | "pnpx"
            | "bunx"
            | "npm"
            | "yarn"
            | "pnpm"
            | "bun"
            | "mocha"
            | "_mocha"
            | "jest"
            | "vitest"
            | "vite"
            | "sh"
            | "bash"
            | "dash"
            | "zsh"
            | "ksh"
            | "make"
            | "gmake"
            | "just"
    ) || words.first().is_some_and(|w| w.contains('/'))
}

/// The configuration node's tools in `dir` read by themselves that names code in one of
/// `roots`, or a folder holding one, with why (reviews 94 to 96): an `.npmrc` (in `dir`, a
/// folder above or gate's `HOME`) whose `node-options` preloads or `script-shell` lies
/// there; a `.yarnrc`'s `yarn-path` or `.yarnrc.yml`'s `yarnPath`; a mocha, jest, vitest,
/// vite or babel configuration ([`NODE_CONFIGS`] up the tree, one an option names,
/// `package.json`'s `mocha` and `jest`, and every configuration file or folder one of them
/// names: jest's `projects` and `preset`, vitest's `projects`) whose values name such a path
/// (a bare `out` or `..` included, as the tools resolve them; `<rootDir>` as its folder); a
/// configuration in code read as far as its string literals, refused where it builds a
/// string otherwise; an option of the line whose value is a folder holding one (`--rootDir
/// ..`, `--root ..`: 96, 09, 10).
fn node_config_code(words: &[String], dir: &Path, roots: &[PathBuf]) -> Option<(PathBuf, String)> {
    let here = resolve(dir);
    let in_root = |p: &Path| roots.iter().any(|r| p.starts_with(r));
    // A value, taken from `folder`: a piece of it (split at `=`, blanks and commas) that lies
    // in a root or, with `holds`, holds one (a glob by its fixed part); a `file://` URL by
    // its path (review 97, 12).
    let names_root = |v: &str, folder: &Path, holds: bool| -> bool {
        let v = v
            .replace("<rootDir>", &folder.to_string_lossy())
            .replace("\u{0}dir", &folder.to_string_lossy());
        v.split(['=', ' ', ',', '\n', '\t']).any(|piece| {
            if piece.is_empty() || piece.len() > 4096 {
                return false;
            }
            let piece = file_url_path(piece);
            let fixed = match piece.find(['*', '?', '[', '{']) {
                Some(at) => piece[..at].rsplit_once('/').map_or("", |(d, _)| d),
                None => &piece,
            };
            // Node and jest take `..` after a link by name, the kernel through it (review
            // 98, 33): both.
            [
                resolve(&folder.join(fixed)),
                resolve(&lexical(&folder.join(fixed))),
            ]
            .iter()
            .any(|at| {
                if holds {
                    overlaps_a_root(at, roots)
                } else {
                    in_root(at)
                }
            })
        })
    };
    let tool = words.first().map(|w| name_of(w)).unwrap_or_default();
    let node_tool = matches!(
        tool.as_str(),
        "node" | "nodejs" | "npx" | "pnpx" | "bunx" | "mocha" | "_mocha" | "jest" | "vitest"
    );
    // A node tool's option value or operand: code it loads where it lies in a folder the
    // trials write (`-r ./out/x.js`, a spec file, `--setupFilesAfterEnv ../out/s.js`,
    // `--reporter ../out/r.mjs`, whether the file is there yet or not: 97, 20-25, 32), or
    // a folder it searches where it holds one (`--rootDir ..`: 96, 09, 10). What names
    // where to write is left (`--coverageDirectory`, `--outputFile`: 97, 92). Node's own:
    // its options before the script (the script and its arguments are read elsewhere), and
    // with `--test` its operands too.
    let node = matches!(tool.as_str(), "node" | "nodejs");
    let node_test = node
        && words
            .iter()
            .any(|w| w == "--test" || w.starts_with("--test="));
    let mut option: Option<&str> = None;
    // After node's script: that script's arguments, data unless the script is a test
    // runner's (`node node_modules/jest/bin/jest.js --rootDir ..`); of a data script's,
    // only a folder that holds one the trials write is refused, as before.
    let mut script_args = false;
    let mut script_seen = false;
    // Only a test runner's words are read so (through `npx`, the tool it starts, or `c8` or
    // `nyc` before one): another tool's operand in `out/` is its input or output (`npx
    // eslint ../out`, `npx esbuild … --outfile=../out/app.js`: review 98, 80-84).
    let runner = |n: &str| {
        matches!(
            n,
            "node" | "nodejs" | "mocha" | "_mocha" | "jest" | "vitest" | "c8" | "nyc"
        )
    };
    let runs_a_runner = runner(&tool)
        || (matches!(tool.as_str(), "npx" | "pnpx" | "bunx")
            && words[1..]
                .iter()
                .find(|w| !w.starts_with('-'))
                .is_some_and(|w| runner(&name_of(w))));
    for w in words.iter().skip(1).filter(|_| node_tool && runs_a_runner) {
        let (named_by, v) = match (w.strip_prefix('-'), w.split_once('=')) {
            (Some(_), Some((o, v))) => (Some(o), v),
            (Some(_), None) => {
                option = Some(w);
                continue;
            }
            (None, _) => (option.take(), w.as_str()),
        };
        if node && !node_test && !w.starts_with('-') {
            let valued = named_by.is_some_and(|o| {
                matches!(
                    o,
                    "-r" | "--require"
                        | "--import"
                        | "--loader"
                        | "--experimental-loader"
                        | "--env-file"
                        | "--test-reporter"
                        | "--test-reporter-destination"
                        | "-C"
                        | "--conditions"
                        | "--input-type"
                        | "--title"
                )
            });
            if !valued && !script_seen {
                let runner = jest_or_vitest(w).is_some() || w.contains("mocha");
                script_args = !(runner && w.contains("node_modules"));
                script_seen = true;
                continue;
            }
        }
        if named_by.is_some_and(no_code_option) || v.is_empty() || v.starts_with('-') {
            continue;
        }
        // A value npm or the shell makes when it runs (`--require $npm_package_config_pre`:
        // review 98, 19, 20).
        if v.contains(['$', '`']) && !script_args {
            return Some((
                here.clone(),
                format!("`{w}`, a value made only when it runs, which may name code anywhere"),
            ));
        }
        let v = file_url_path(v);
        let at = resolve(&here.join(&*v));
        // Node takes `..` after a link by name (`path.resolve`), the kernel through it: both.
        let named = in_root(&at) || in_root(&resolve(&lexical(&here.join(&*v))));
        let widens = at.is_dir() && overlaps_a_root(&at, roots) && !in_root(&here);
        if (named && !script_args) || widens {
            let shown = match named_by {
                Some(o) if !w.starts_with('-') => format!("{o} {v}"),
                _ => w.to_string(),
            };
            return Some((
                here.join(&*v),
                if widens && !in_root(&at) {
                    format!(
                        "`{shown}` widens what it reads to a folder holding one the trials write"
                    )
                } else {
                    format!("`{shown}` names code in a folder the trials write")
                },
            ));
        }
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let npmrcs = here
        .ancestors()
        .map(|a| a.join(".npmrc"))
        .chain(home.map(|h| h.join(".npmrc")));
    for f in npmrcs.filter(|f| f.is_file()) {
        let Some(text) = super::makefile::read_text(&f) else {
            continue;
        };
        let folder = f.parent().unwrap_or(Path::new("/")).to_path_buf();
        if text.len() > super::makefile::MAX_TEXT {
            return Some((f, "a file larger than gate reads".into()));
        }
        for l in text.lines() {
            let l = l.trim();
            if l.starts_with([';', '#']) {
                continue;
            }
            let Some((key, value)) = l.split_once('=') else {
                continue;
            };
            // As npm's `ini` reads a key: quotes and a `[]` suffix taken off (review 95,
            // 10-12); one with `${…}` may be any.
            let key = key.trim();
            let key = key.strip_suffix("[]").unwrap_or(key).trim();
            let key = key.trim_matches(['"', '\'']).trim();
            let value = value.trim().trim_matches(['"', '\'']);
            if key.contains('$') {
                return Some((f, format!("its key `{key}`, which npm expands")));
            }
            let key = key.to_ascii_lowercase().replace('-', "_");
            let Some((option, what)) = npm_option(&format!("npm_config_{key}")) else {
                continue;
            };
            if value.contains('$') {
                return Some((
                    f,
                    format!("its `{key}` is `{value}`, {what}, which npm expands"),
                ));
            }
            if npm_entries(option, value).iter().any(|e| {
                let e = e.strip_prefix("--require=").unwrap_or(e);
                (e.starts_with('.') || e.contains('/')) && in_root(&resolve(&folder.join(e)))
            }) {
                return Some((
                    f,
                    format!("its `{key}` names `{value}`, {what}, in a folder the trials write"),
                ));
            }
        }
    }
    for a in here.ancestors() {
        for (file, key) in [(".yarnrc", "yarn-path"), (".yarnrc.yml", "yarnPath")] {
            let f = a.join(file);
            let Some(text) = super::makefile::read_text(&f) else {
                continue;
            };
            for l in text.lines() {
                let l = l.trim();
                if let Some(v) = l.strip_prefix(key) {
                    let v = v
                        .trim_start_matches([' ', ':', '='])
                        .trim()
                        .trim_matches(['"', '\'']);
                    if v.contains('$') || names_root(v, a, true) {
                        return Some((
                            f,
                            format!(
                                "its `{key}` names `{v}`, the yarn it runs, in a folder the \
                                 trials write"
                            ),
                        ));
                    }
                }
            }
        }
    }
    // The configuration files, each with the folder its relative paths start from.
    let mut files: Vec<(PathBuf, PathBuf)> = here
        .ancestors()
        .flat_map(|a| {
            NODE_CONFIGS
                .iter()
                .map(move |n| (a.join(n), a.to_path_buf()))
        })
        .filter(|(f, _)| f.is_file())
        .collect();
    let mut k = 0;
    while let Some(w) = words.get(k).filter(|_| node_tool) {
        k += 1;
        let named = match w.as_str() {
            "--config" | "--package" | "-c" => words.get(k).cloned(),
            _ => w
                .strip_prefix("--config=")
                .or_else(|| w.strip_prefix("--package="))
                .or_else(|| w.strip_prefix("-c="))
                .map(str::to_string),
        };
        // jest takes its configuration as JSON on the line too (97, 18).
        if let Some(json) = named.as_deref().filter(|n| n.trim_start().starts_with('{')) {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(json) else {
                return Some((
                    here.clone(),
                    "a configuration on the line gate cannot read".into(),
                ));
            };
            let mut strings = Vec::new();
            config_strings(&v, &CONFIG_KEYS_NO_CODE, &mut strings);
            if let Some(s) = strings.iter().find(|s| names_root(s, &here, true)) {
                return Some((
                    here.clone(),
                    format!(
                        "a configuration on the line naming `{s}`, in or above a folder the trials write"
                    ),
                ));
            }
            continue;
        }
        if let Some(n) = named {
            let f = resolve(&here.join(&n));
            if in_root(&f) || n.contains(['$', '`']) {
                return Some((f, "a configuration in a folder the trials write".into()));
            }
            if f.is_file() {
                files.push((f, here.clone()));
            }
        }
    }
    for a in here.ancestors() {
        let f = a.join("package.json");
        if f.is_file() {
            files.push((f, a.to_path_buf()));
        }
    }
    let mut seen = std::collections::HashSet::new();
    let mut at = 0;
    while at < files.len() && at < 128 {
        let (f, folder) = files[at].clone();
        at += 1;
        if !seen.insert((f.clone(), folder.clone())) {
            continue;
        }
        let Some(text) = super::makefile::read_text(&f) else {
            continue;
        };
        if text.len() > super::makefile::MAX_TEXT {
            return Some((f, "a configuration larger than gate reads".into()));
        }
        let ext = f.extension().and_then(|e| e.to_str()).unwrap_or("");
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let package = name == "package.json";
        let data = matches!(ext, "yml" | "yaml" | "json" | "jsonc") || name == ".babelrc";
        // jest's `rootDir` moves `<rootDir>` (96, 11).
        let mut root_dir = folder.clone();
        // Each string, and whether it counts where it holds a folder the trials write too.
        let strings: Vec<(bool, String)> = if data {
            let parsed = if matches!(ext, "yml" | "yaml") {
                serde_saphyr::from_str::<serde_json::Value>(&text).ok()
            } else {
                serde_json::from_str::<serde_json::Value>(&js_literals(&text).plain).ok()
            };
            // A `package.json` that is no JSON gate reads (a lone surrogate, nesting past
            // 128) but may hold a tool's configuration is refused, not passed over (97,
            // 27, 31).
            let Some(v) = parsed else {
                if package
                    && !["\"jest\"", "\"mocha\"", "\"babel\""]
                        .iter()
                        .any(|k| text.contains(k))
                {
                    continue;
                }
                return Some((f, "a configuration gate cannot read".into()));
            };
            let mut out = Vec::new();
            if package {
                for key in ["mocha", "jest", "babel"] {
                    if let Some(v) = v.get(key) {
                        config_strings(v, &CONFIG_KEYS_NO_CODE, &mut out);
                    }
                }
            } else {
                config_strings(&v, &CONFIG_KEYS_NO_CODE, &mut out);
            }
            for r in [
                v.get("rootDir"),
                v.get("jest").and_then(|j| j.get("rootDir")),
            ] {
                if let Some(r) = r.and_then(|r| r.as_str()) {
                    root_dir = folder.join(r);
                }
            }
            out.into_iter().map(|s| (true, s.to_string())).collect()
        } else {
            // In a module `<!--` is `<` and `!--`, not a comment (review 98, 17).
            // A module by its extension or any `export`/`import` statement (`export{c as
            // default}`: review 99, 22).
            let module = matches!(ext, "mjs" | "mts")
                || text.contains("export default")
                || text.lines().any(|l| {
                    let l = l.trim_start();
                    ["export", "import"].iter().any(|k| {
                        l.strip_prefix(k)
                            .is_some_and(|r| r.starts_with([' ', '{', '*', '\t']))
                    })
                });
            let js = js_literals_of(&text, module);
            let method = js.method.filter(|_| literals_reach(&js.strings, roots));
            if let Some(how) = js.computed.or(method) {
                return Some((
                    f,
                    format!(
                        "a configuration in code that builds a string with {how}, which gate \
                         does not follow (write its paths as plain strings, or the \
                         configuration as JSON)"
                    ),
                ));
            }
            if let Some((_, r)) = js
                .strings
                .iter()
                .find(|(k, _)| k.as_deref() == Some("rootDir"))
            {
                root_dir = folder.join(r);
            }
            // A key that names where to write is passed over only where the file reads it
            // nowhere else (`const o = {timeout: '../out/x.js'}; … [o.timeout]`: 97, 09, 43),
            // its comments aside (98, 85), and where no value is read without its key
            // ([`launders_a_key`]). A `path.join` under such a key is passed over as its
            // string would be (99, 83).
            let laundered = launders_a_key(&js.plain, &js.strings);
            let strings: Vec<(bool, String)> = js
                .strings
                .into_iter()
                .chain(js_path_calls(&js.plain))
                .filter(|(key, _)| {
                    !key.as_deref().is_some_and(|k| {
                        CONFIG_KEYS_NO_CODE.contains(&k)
                            && !laundered
                            && word_count(&js.plain, k) == 1
                    })
                })
                .map(|(key, s)| {
                    let folders = key
                        .as_deref()
                        .is_some_and(|k| CONFIG_KEYS_FOLDERS.contains(&k));
                    (folders, s)
                })
                .collect();
            // A bare word named like a folder the trials write, outside a key that names
            // where to write, is where code would start a path to it (`path.join(up, 'out',
            // 'x.js')`: review 99, 01-07). Refused unless it is an exclusion (`'!out'`).
            // Only a bare word: a path-like string is judged as the path it is (`'src/**'`
            // in `app/` is `app/src`: review 100, 80-88), prose and addresses name no folder
            // (90, 92).
            if let Some((_, s)) = strings.iter().find(|(holds, s)| {
                !s.starts_with('!')
                    && !s.contains(['/', '\\', ' ', ':'])
                    && names_a_root_by_name(s, roots)
                    && !names_root(s, &folder, *holds)
                    && !names_root(s, &here, *holds)
            }) {
                return Some((
                    f,
                    format!(
                        "a configuration in code with `{s}`, which names a folder the trials \
                         write but is not a whole path gate reads (write the path as one \
                         plain string, or the configuration as JSON)"
                    ),
                ));
            }
            strings
        };
        // mocha takes a configuration's paths from where it runs, not from the file's
        // folder (97, 48): both are read.
        let mocha = name.starts_with(".mocharc") || package;
        for (holds, s) in &strings {
            let holds = *holds;
            let s = &s.replace("<rootDir>", &root_dir.to_string_lossy());
            if names_root(s, &folder, holds) || (mocha && names_root(s, &here, holds)) {
                return Some((
                    f,
                    format!("a configuration naming `{s}`, in or above a folder the trials write"),
                ));
            }
            // A configuration it names (jest's `projects` and `preset`, vitest's `projects`,
            // a file a JavaScript configuration requires): read in turn (96, 11, 12, 14).
            // A bare name is a file beside it where one is there (`require(path.join(
            // __dirname, 'paths'))`: 97, 50); `${__dirname}/paths` is its folder's (97, 51);
            // a glob names each folder it matches (jest's `projects: ['packages/*']`: 97,
            // 49).
            let s = &s.replace("\u{0}dir", &folder.to_string_lossy());
            let pathlike = s.starts_with('.') || s.contains('/');
            let matches: Vec<PathBuf> = if s.contains(['*', '?']) && s.len() < 4096 {
                glob::glob(&folder.join(s).to_string_lossy())
                    .map(|g| g.flatten().take(256).collect())
                    .unwrap_or_default()
            } else {
                vec![folder.join(s)]
            };
            for named in matches.into_iter().filter(|_| s.len() < 4096) {
                // `require('./paths')` names `paths.js` (96, 04).
                let file = ["", ".js", ".cjs", ".mjs", ".json", ".ts", "/index.js"]
                    .iter()
                    .filter(|e| pathlike || !e.is_empty())
                    .map(|e| PathBuf::from(format!("{}{e}", named.display())))
                    .find(|p| p.is_file());
                // A file a key of folders names (mocha's `spec`, jest's `testMatch`,
                // vitest's `include`) is a test file, not a configuration: read in turn only
                // where it is named as one (`projects: ['packages/*/jest.config.js']`). A test
                // importing the code under test is what a check runs (issue 29's over-refusal
                // audit, 20, 25).
                let configuration = |f: &Path| {
                    f.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                        NODE_CONFIGS.contains(&n)
                            || n == "package.json"
                            || n.starts_with("jest-preset.")
                            || n.starts_with("jest.config.")
                            || n.starts_with("vitest.config.")
                            || n.starts_with("vite.config.")
                            || n.starts_with("vitest.workspace.")
                            || n.starts_with(".mocharc")
                    })
                };
                if let Some(file) = file.filter(|f| !holds || configuration(f)) {
                    // Its paths from its own folder, and (a jest preset's) from this one.
                    let base = file.parent().unwrap_or(&folder).to_path_buf();
                    files.push((file.clone(), base));
                    files.push((file, root_dir.clone()));
                } else if pathlike && named.is_dir() {
                    for n in NODE_CONFIGS
                        .iter()
                        .chain(&["package.json", "jest-preset.json"])
                    {
                        if named.join(n).is_file() {
                            files.push((named.join(n), named.clone()));
                        }
                    }
                }
            }
        }
    }
    None
}

/// [`node_config_code`] of each command of the scripts of the `package.json` in `dir` that
/// `name` (a package manager, run as `words`; through `npx` too: review 98, 23) runs: the
/// one named with its `pre` and `post` scripts, or every one where a script runs another
/// or the command is not one gate reads (review 97, 15, 19, 26, 44; a script's `cd`: 98,
/// 18), and a script's own `NODE_OPTIONS=…` that preloads from a folder the trials write;
/// with `-w`, `--workspaces` or yarn's `workspace`, every workspace's too (98, 21, 22).
fn package_scripts_config_code(
    name: &str,
    words: &[String],
    dir: &Path,
    roots: &[PathBuf],
) -> Option<(PathBuf, String)> {
    let (name, words) = match (name, words.get(1)) {
        ("npx" | "pnpx" | "bunx", Some(w)) => (name_of(w), &words[1..]),
        _ => (name.to_string(), words),
    };
    if !matches!(name.as_str(), "npm" | "yarn" | "pnpm" | "bun") {
        return None;
    }
    let operands: Vec<&str> = words[1..]
        .iter()
        .map(String::as_str)
        .filter(|w| !w.starts_with('-'))
        .collect();
    let script = match operands.first().copied() {
        Some("test" | "t" | "tst") => Some("test"),
        Some("run" | "run-script" | "rum" | "urn") => operands.get(1).copied(),
        Some(s @ ("start" | "stop")) => Some(s),
        Some(s) if name != "npm" => Some(s),
        _ => None,
    };
    // npm runs a script from the nearest folder above that holds a `package.json` (`cd
    // app/src && npm test`: review 99, 23).
    let dir = dir
        .ancestors()
        .take(64)
        .find(|a| a.join("package.json").is_file())
        .unwrap_or(dir);
    // Every spelling (`--workspaces=true`: 99, 24), and an `.npmrc`'s `workspace` (99, 25).
    let npmrc_workspace = super::makefile::read_text(&dir.join(".npmrc"))
        .is_some_and(|t| t.lines().any(|l| l.trim_start().starts_with("workspace")));
    let workspaces = npmrc_workspace
        || words.iter().any(|w| {
            matches!(
                w.as_str(),
                "-w" | "-ws" | "--workspace" | "--workspaces" | "workspace" | "workspaces"
            ) || w.starts_with("--workspace")
                || w.starts_with("-w=")
        });
    let mut folders = vec![dir.to_path_buf()];
    if workspaces {
        folders.extend(workspace_folders(dir).unwrap_or_default());
    }
    folders
        .iter()
        .take(256)
        .find_map(|f| scripts_config_code(f, script, roots))
}

/// Whether a package script's `body` runs another script (through npm, yarn, pnpm, bun, npx,
/// npm-run-all, run-s, run-p or concurrently): then every script is read.
fn runs_another_script(body: &str) -> bool {
    [
        "npm",
        "yarn",
        "pnpm",
        "bun",
        "npx",
        "npm-run-all",
        "run-s",
        "run-p",
        "concurrently",
    ]
    .iter()
    .any(|r| super::words::mentions_word(body, r))
}

/// The commands of a package script's `tokens`, each from its program: past the shell's
/// keywords and groups, its assignments and prefix commands (`timeout 120 node --test`,
/// `env X=1 node --test`: review 94, 36, 37).
fn script_commands(tokens: &[super::words::Token]) -> Vec<Vec<String>> {
    super::words::simple_commands(tokens)
        .into_iter()
        .filter_map(|c| {
            let keywords = c
                .iter()
                .take_while(|w| {
                    matches!(w.as_str(), "{" | "(")
                        || super::words::KEYWORDS_BEFORE_A_COMMAND.contains(&w.as_str())
                })
                .count();
            let c = &c[keywords..];
            let refs: Vec<&str> = c.iter().map(String::as_str).collect();
            let at = super::words::program_index(&refs)?;
            (at < c.len()).then(|| c[at..].to_vec())
        })
        .collect()
}

/// [`package_scripts_config_code`] in one folder: `script` and its `pre` and `post`
/// scripts (every one where `None`, or where one of them runs another).
fn scripts_config_code(
    dir: &Path,
    script: Option<&str>,
    roots: &[PathBuf],
) -> Option<(PathBuf, String)> {
    let file = dir.join("package.json");
    let text = super::makefile::read_text(&file)?;
    let v = serde_json::from_str::<serde_json::Value>(&text).ok()?;
    let none = serde_json::Map::new();
    let scripts = match v.get("scripts") {
        Some(s) => s.as_object()?,
        None => &none,
    };
    let mut bodies: Vec<&str> = match script {
        Some(s) => [s.to_string(), format!("pre{s}"), format!("post{s}")]
            .iter()
            .filter_map(|k| scripts.get(k).and_then(|b| b.as_str()))
            .collect(),
        None => Vec::new(),
    };
    // npm's `start` with no script of that name runs `node server.js` (review 99, 31).
    if script == Some("start") && !scripts.contains_key("start") && dir.join("server.js").is_file()
    {
        bodies.push("node server.js");
    }
    if script.is_none() || bodies.iter().any(|b| runs_another_script(b)) {
        bodies = scripts.values().filter_map(|b| b.as_str()).collect();
    }
    for body in bodies.into_iter().take(256) {
        let tokens = super::words::line_tokens(body, &[], 0);
        // (`simple_commands` leaves a command's assignments out.)
        let here = resolve(dir);
        for w in tokens.iter().filter_map(|t| match t {
            super::words::Token::Word(w) => Some(w),
            _ => None,
        }) {
            // `NODE_PATH=../out mocha --require x`: a bare name found there (review 99, 30).
            if let Some(v) = w.strip_prefix("NODE_PATH=")
                && v.split(':').any(|e| {
                    e.contains(['$', '`'])
                        || roots.iter().any(|r| {
                            let at = resolve(&here.join(e));
                            at.starts_with(r) || r.starts_with(&at)
                        })
                })
            {
                return Some((
                    file,
                    format!("a script's `{w}` makes node find code in a folder the trials write"),
                ));
            }
            if let Some(v) = w.strip_prefix("NODE_OPTIONS=")
                && npm_entries("node_options", v).iter().any(|e| {
                    let e = e.strip_prefix("--require=").unwrap_or(e);
                    (e.starts_with('.') || e.contains('/') || e.contains('$'))
                        && (e.contains('$')
                            || roots.iter().any(|r| resolve(&here.join(e)).starts_with(r)))
                })
            {
                return Some((
                    file,
                    format!("a script's `{w}` preloads code from a folder the trials write"),
                ));
            }
        }
        let mut at_dir = dir.to_path_buf();
        for run in script_commands(&tokens) {
            if matches!(name_of(&run[0]).as_str(), "cd" | "pushd") {
                if let Some(d) = super::words::cd_folder(&run) {
                    at_dir = at_dir.join(d);
                }
                continue;
            }
            let name = name_of(&run[0]);
            if may_run_node_tools(&name, &run)
                && let Some((f, why)) = node_config_code(&run, &at_dir, roots)
            {
                return Some((f, format!("{why} (its script `{body}`)")));
            }
            // A package manager the script runs, in turn (`cd sub && npm test`, `npm
            // --prefix sub test`: review 99, 26, 27), and a program that may start one
            // gate does not read (`node t.js`: 99, 28), by the walk beneath.
            let prefix = run
                .iter()
                .position(|w| w == "--prefix" || w == "-C" || w == "--cwd")
                .and_then(|i| run.get(i + 1))
                .map_or_else(|| at_dir.clone(), |p| at_dir.join(p));
            // Each package manager's command once per look (a script that runs
            // itself, scripts that run each other).
            let first = SCRIPTS_SEEN.with(|seen| {
                let key = (prefix.clone(), run.join(" "));
                seen.borrow_mut().insert(key)
            });
            let nested = SCRIPT_DEPTH.with(|d| {
                if d.get() >= 8 || !first {
                    return None;
                }
                d.set(d.get() + 1);
                let found =
                    package_scripts_config_code(&name, &run, &prefix, roots).or_else(|| {
                        indirect_config_code(&name, &run, &at_dir, roots, &mut Default::default())
                    });
                d.set(d.get() - 1);
                if d.get() == 0 {
                    SCRIPTS_SEEN.with(|seen| seen.borrow_mut().clear());
                }
                found
            });
            if let Some((f, why)) = nested {
                return Some((f, format!("{why} (its script `{body}`)")));
            }
        }
    }
    None
}

thread_local! {
    /// How deep [`scripts_config_code`] has followed scripts that run package managers.
    static SCRIPT_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// The commands it followed so far, by folder: each once.
    static SCRIPTS_SEEN: std::cell::RefCell<std::collections::HashSet<(PathBuf, String)>> =
        std::cell::RefCell::new(std::collections::HashSet::new());
}

/// The node configurations beneath `dir` (`dir` the folder a check line starts in), read as
/// [`node_config_code`] reads them, where `name` (run as `words`) runs commands gate does
/// not read to the end: make, a shell, a program by path, a Python or node script (review
/// 97, 33-37: `make -C app`, a recipe's or a script's `cd app && npx jest`, a grader that
/// starts jest in `app/`). Folders the trials write, `node_modules` and hidden folders are
/// not walked; at most 2,000 folders.
fn indirect_config_code(
    name: &str,
    words: &[String],
    dir: &Path,
    roots: &[PathBuf],
    seen: &mut std::collections::HashMap<PathBuf, Option<(PathBuf, String)>>,
) -> Option<(PathBuf, String)> {
    // What `npx`, `npm exec` or `pnpm exec` starts is the program (`npx node grade.js`,
    // `npm exec -- node grade.js`: review 99, 32-34).
    let (name, words) = {
        let mut at = 0;
        let mut name = name.to_string();
        while matches!(
            name.as_str(),
            "npx" | "pnpx" | "bunx" | "npm" | "pnpm" | "yarn" | "bun"
        ) && at + 1 < words.len()
        {
            let rest = &words[at + 1..];
            let skip = rest
                .iter()
                .position(|w| !w.starts_with('-') && !matches!(w.as_str(), "exec" | "x" | "dlx"))
                .unwrap_or(rest.len());
            if matches!(name.as_str(), "npm" | "pnpm" | "yarn" | "bun")
                && !rest
                    .iter()
                    .take(skip)
                    .any(|w| matches!(w.as_str(), "exec" | "x" | "dlx"))
            {
                break;
            }
            at += 1 + skip;
            match words.get(at) {
                Some(w) => name = name_of(w),
                None => break,
            }
        }
        (name, &words[at.min(words.len())..])
    };
    let name = name.as_str();
    let pytest =
        module_run(words).is_some_and(|m| m == "pytest") || matches!(name, "pytest" | "py.test");
    let indirect = matches!(
        name,
        "make"
            | "gmake"
            | "just"
            | "sh"
            | "bash"
            | "dash"
            | "zsh"
            | "ksh"
            | "node"
            | "nodejs"
            | "perl"
            | "ruby"
            | "php"
            | "lua"
            | "Rscript"
            | "bun"
            | "deno"
            | "tsx"
            | "ts-node"
            | "zx"
            | "tclsh"
            | "wish"
            | "expect"
            | "fish"
            | "csh"
            | "tcsh"
            | "mksh"
            | "busybox"
            | "awk"
            | "gawk"
            | "env"
    ) || (is_python(name) && !pytest)
        || words.first().is_some_and(|w| w.contains('/'));
    if !indirect {
        return None;
    }
    // One walk per folder a line starts in, however many of its commands ask.
    seen.entry(dir.to_path_buf())
        .or_insert_with(|| configs_beneath(dir, roots))
        .clone()
}

/// The most folders [`configs_beneath`] reads beneath a check's folder.
const WALK_FOLDERS: usize = 10_000;

/// The walk of [`indirect_config_code`].
fn configs_beneath(dir: &Path, roots: &[PathBuf]) -> Option<(PathBuf, String)> {
    let mut folders = vec![resolve(dir)];
    let mut at = 0;
    while at < folders.len() {
        // Past the cap a configuration could lie unread: refused, not passed over (review
        // 99, 37).
        if folders.len() > WALK_FOLDERS {
            return Some((
                folders[0].clone(),
                format!(
                    "more than {WALK_FOLDERS} folders beneath where it runs, which gate does \
                     not all read for node's configurations (run the check from a smaller \
                     folder)"
                ),
            ));
        }
        let folder = folders[at].clone();
        at += 1;
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for e in entries.flatten() {
            let n = e.file_name();
            let n = n.to_string_lossy();
            if n == ".git" || n == "node_modules" {
                continue;
            }
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                let p = e.path();
                if !roots.iter().any(|r| p.starts_with(r) || r == &p) {
                    folders.push(p);
                }
            }
        }
    }
    folders.iter().find_map(|f| {
        let has_config = NODE_CONFIGS
            .iter()
            .chain(&["package.json", ".npmrc"])
            .any(|n| f.join(n).is_file());
        has_config
            .then(|| {
                node_config_code(&[], f, roots).or_else(|| scripts_config_code(f, None, roots))
            })
            .flatten()
            .map(|(file, why)| {
                (
                    file,
                    format!("{why} (a node project beneath where it runs)"),
                )
            })
    })
}

/// Whether `dir` is too deep to follow one more `--prefix` into (a chain of them in words
/// gate reads ends there).
fn depth_exceeded(dir: &Path) -> bool {
    dir.components().count() > 64
}

/// `jest` or `vitest` where text `w` (a word, a script) names one.
fn jest_or_vitest(w: &str) -> Option<&'static str> {
    let w = w.to_ascii_lowercase();
    if super::words::mentions_word(&w, "vitest") {
        Some("vitest")
    } else if super::words::mentions_word(&w, "jest") || w.contains("jest-cli") {
        Some("jest")
    } else {
        None
    }
}

/// The test runner that collects every test file beneath its folder which command `words`
/// (run in `dir`) starts, if any: `jest` or `vitest` by name, through `npx`, `bunx`,
/// `pnpm exec`, `yarn`, `npm exec`, by the path of its script (`node
/// node_modules/jest/bin/jest.js`), or as the `package.json` script `npm test` (`npm run
/// X`, `yarn X`, `pnpm X`) runs (review 91).
fn node_collector(words: &[String], dir: &Path, roots: &[PathBuf]) -> Option<&'static str> {
    let tool = jest_or_vitest;
    let name = name_of(words.first()?);
    let operands: Vec<&str> = words[1..]
        .iter()
        .map(String::as_str)
        .filter(|w| !w.starts_with('-'))
        .collect();
    let globbed = operands.iter().any(|w| w.contains(['*', '?', '{']));
    match name.as_str() {
        "jest" | "vitest" => tool(&name),
        // mocha expands a quoted glob itself (`"**/*.spec.js"`: review 92, 32); playwright,
        // ava and tap collect from their folder.
        "mocha" | "_mocha" if globbed => Some("mocha"),
        "playwright" if operands.first() == Some(&"test") => Some("playwright"),
        "ava" => Some("ava"),
        // node-tap, uvu, jasmine, hapi's lab and karma find their test files in folders
        // (their defaults, or the folder named) by a pattern of their own; tape, zora and
        // baretest expand a quoted glob themselves; cypress and deno run every spec they
        // find.
        "tap" | "uvu" | "jasmine" | "lab" | "karma" => Some(match name.as_str() {
            "tap" => "tap",
            "uvu" => "uvu",
            "jasmine" => "jasmine",
            "lab" => "lab",
            _ => "karma",
        }),
        "tape" | "zora" | "baretest" if globbed => Some("tape"),
        // Monorepo runners run a script in every workspace.
        "lerna" | "turbo" | "nx" | "wireit" => Some("a workspace's scripts"),
        "cypress" if operands.first() == Some(&"run") => Some("cypress"),
        "deno" if operands.first() == Some(&"test") => Some("deno test"),
        "npx" | "bunx" | "pnpx" => {
            let rest: Vec<String> = words[1..]
                .iter()
                .skip_while(|w| w.starts_with('-'))
                .cloned()
                .collect();
            if rest.is_empty() {
                return None;
            }
            tool(&name_of(&rest[0])).or_else(|| node_collector(&rest, dir, roots))
        }
        // `node --test` with no path, or a glob, searches its whole folder (review 92, 35).
        // A folder operand is searched as a whole too (`node --test .`, `tests/..`: review 95,
        // 16-18).
        "node" | "nodejs"
            if words.iter().any(|w| w == "--test")
                && (globbed
                    || !operands.iter().any(|w| !w.contains(['*', '?']))
                    || operands.iter().any(|w| {
                        dir.join(w).is_dir() && overlaps_a_root(&resolve(&dir.join(w)), roots)
                    }))
                && !words.iter().any(|w| w == "-e" || w == "--eval") =>
        {
            Some("node --test")
        }
        // A runner's script run by node (`node node_modules/.bin/tap`): read as that runner.
        "node" | "nodejs" | "bun" if operands.first().is_some_and(|w| w.contains('/')) => {
            let first = operands.first()?;
            tool(first).or_else(|| {
                let at = words.iter().position(|w| w == first)?;
                (!matches!(name_of(first).as_str(), "node" | "nodejs" | "bun"))
                    .then(|| node_collector(&words[at..], dir, roots))
                    .flatten()
            })
        }
        "npm" | "yarn" | "pnpm" | "bun" => package_scripts_collector(&name, words, dir, roots),
        _ => None,
    }
}

/// npm's options that take a value as the next word (`npm --loglevel silent test`: review
/// 94, 34, 35); the workspace and folder options are read on their own.
const NPM_VALUED: [&str; 16] = [
    "--loglevel",
    "--registry",
    "--cache",
    "--userconfig",
    "--globalconfig",
    "--tag",
    "--otp",
    "--omit",
    "--include",
    "--before",
    "--location",
    "--scope",
    "--script-shell",
    "--node-options",
    "--shell",
    "--fetch-retries",
];

/// npm commands that run none of a package's scripts.
const NPM_NO_SCRIPTS: [&str; 38] = [
    "ls",
    "list",
    "ll",
    "la",
    "view",
    "v",
    "info",
    "show",
    "outdated",
    "audit",
    "config",
    "get",
    "set",
    "prefix",
    "root",
    "ping",
    "whoami",
    "help",
    "fund",
    "explain",
    "query",
    "search",
    "pkg",
    "doctor",
    "bin",
    "bugs",
    "docs",
    "repo",
    "diff",
    "dist-tag",
    "owner",
    "access",
    "org",
    "sbom",
    "star",
    "stars",
    "unstar",
    "help-search",
];

/// npm commands that run lifecycle scripts of their own (`pack` runs `prepack` and
/// `prepare`, `install` `preinstall` to `prepare`, `version` its three, …): every script of
/// the package is read for them (review 94, 40).
const NPM_LIFECYCLE: [&str; 16] = [
    "pack",
    "publish",
    "install",
    "i",
    "in",
    "add",
    "ci",
    "clean-install",
    "rebuild",
    "rb",
    "version",
    "link",
    "ln",
    "update",
    "up",
    "dedupe",
];

/// Whether running the scripts of the package in `dir` through `npm`, `yarn`, `pnpm` or
/// `bun` (`name`, run as `words`) may start a runner that collects test files
/// ([`node_collector`]): the runner named, or `None`. What gate cannot read to the end (a
/// command or an option it does not know, a `package.json` it cannot parse, a workspace
/// it cannot find, workspaces in folders the trials write) counts as one (review 94).
fn package_scripts_collector(
    name: &str,
    words: &[String],
    dir: &Path,
    roots: &[PathBuf],
) -> Option<&'static str> {
    let tool = jest_or_vitest;
    const UNREAD: &str = "scripts gate cannot read";
    const WORKSPACES: &str = "a workspace's scripts";
    // The words without the workspace options, the operands, and what those options ask.
    let mut rest: Vec<String> = vec![words[0].clone()];
    let mut operands: Vec<&str> = Vec::new();
    let mut named: Vec<String> = Vec::new();
    let mut every = false;
    let mut with_root = false;
    let mut k = 1;
    while let Some(w) = words.get(k) {
        k += 1;
        let (o, glued) = w
            .split_once('=')
            .map_or((w.as_str(), None), |(o, v)| (o, Some(v)));
        match o {
            "-w" | "--workspace" | "--prefix" | "-C" | "--dir" | "--cwd" => {
                let Some(v) = glued.map(str::to_string).or_else(|| words.get(k).cloned()) else {
                    return Some(WORKSPACES);
                };
                if glued.is_none() {
                    k += 1;
                }
                if v.contains(['*', '?', '$', '`']) || depth_exceeded(dir) {
                    return Some(WORKSPACES);
                }
                if matches!(o, "-w" | "--workspace") {
                    named.push(v);
                    continue;
                }
                // Another folder's package (`--prefix sub`, `-C sub`: review 93, 35), read
                // with the rest of the line; one the trials write is theirs.
                let folder = dir.join(&v);
                if overlaps_a_root(&resolve(&folder), roots) {
                    return Some(WORKSPACES);
                }
                let others: Vec<String> = words[..k - 1 - usize::from(glued.is_none())]
                    .iter()
                    .chain(&words[k..])
                    .cloned()
                    .collect();
                return package_scripts_collector(name, &others, &folder, roots);
            }
            "--workspaces" | "-ws" => every = glued != Some("false"),
            "--include-workspace-root" | "-iwr" | "--iwr" => with_root = glued != Some("false"),
            "--filter" | "-F" | "-r" | "--recursive" => return Some(WORKSPACES),
            _ if name == "npm" && glued.is_none() && NPM_VALUED.contains(&o) => {
                rest.push(w.clone());
                if let Some(v) = words.get(k) {
                    rest.push(v.clone());
                }
                k += 1;
            }
            _ => {
                rest.push(w.clone());
                if !w.starts_with('-') {
                    operands.push(w.as_str());
                }
            }
        }
    }
    if !named.is_empty() || every {
        if depth_exceeded(dir) {
            return Some(WORKSPACES);
        }
        // Every workspace the root lists is read, whatever `-w` selects (a name, a folder,
        // a parent folder: review 94, 30, 31, 33): a superset of what npm runs.
        let Some(mut folders) = workspace_folders(dir) else {
            return Some(WORKSPACES);
        };
        for n in &named {
            if n.contains(['*', '?', '$', '`']) {
                return Some(WORKSPACES);
            }
            let f = dir.join(n);
            if f.is_dir() {
                folders.push(f);
            }
        }
        // Workspaces in a folder the trials write: a trial adds or changes one (review
        // 94, 38, 39).
        if folders.iter().any(|f| overlaps_a_root(&resolve(f), roots)) {
            return Some(WORKSPACES);
        }
        if let Some(found) = folders
            .iter()
            .find_map(|f| package_scripts_collector(name, &rest, f, roots))
        {
            return Some(found);
        }
        // npm runs the root's script only with `--include-workspace-root`; `--prefix` and
        // `-C` name the folder itself (among `folders`).
        if !with_root {
            return None;
        }
    }
    let first = operands.first().copied()?;
    // bun's own runner collects as jest does.
    if name == "bun" && first == "test" {
        return Some("bun test");
    }
    // `yarn workspace NAME test` runs that workspace's script; `yarn workspaces foreach`
    // every one's.
    if name == "yarn" && first == "workspace" {
        let run: Vec<String> = std::iter::once(words[0].clone())
            .chain(operands.iter().skip(2).map(|w| w.to_string()))
            .collect();
        let Some(folders) = workspace_folders(dir) else {
            return Some(WORKSPACES);
        };
        if folders.iter().any(|f| overlaps_a_root(&resolve(f), roots)) {
            return Some(WORKSPACES);
        }
        return folders
            .iter()
            .find_map(|f| package_scripts_collector(name, &run, f, roots));
    }
    if name == "yarn" && first == "workspaces" {
        return Some(WORKSPACES);
    }
    if matches!(first, "exec" | "dlx" | "x") {
        let run: Vec<String> = operands[1..].iter().map(|w| w.to_string()).collect();
        return run.first().and_then(|w| tool(&name_of(w))).or_else(|| {
            (!run.is_empty())
                .then(|| node_collector(&run, dir, roots))
                .flatten()
        });
    }
    let all = "\u{0}all";
    let script = match first {
        "test" | "t" | "tst" | "it" | "install-test" | "cit" | "clean-install-test"
        | "install-ci-test" => "test",
        "run" | "run-script" | "rum" | "urn" => operands.get(1).copied()?,
        // `npm start` and `stop` run their scripts, `restart` both (review 93, 31, 34).
        "start" | "stop" => first,
        "restart" => all,
        c if name == "npm" && NPM_LIFECYCLE.contains(&c) => all,
        c if name == "npm" && NPM_NO_SCRIPTS.contains(&c) => return None,
        _ if name == "npm" => return Some(UNREAD),
        other => other,
    };
    if name != "npm" && tool(script).is_some() {
        return tool(script);
    }
    let text = super::makefile::read_text(&dir.join("package.json"))?;
    // A `package.json` gate cannot read (too large, not JSON, `scripts` not an object) may
    // name any runner: counted as one.
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Some(UNREAD);
    };
    let Some(scripts) = v.get("scripts")?.as_object() else {
        return Some(UNREAD);
    };
    // The script, and the `pre`/`post` scripts npm runs around it (review 92, 31); a script
    // that runs another through npm, yarn or pnpm has every script read (30: `test` → `npm
    // run unit` → `jest`).
    let mut bodies: Vec<&str> = [
        script.to_string(),
        format!("pre{script}"),
        format!("post{script}"),
    ]
    .iter()
    .filter_map(|k| scripts.get(k).and_then(|b| b.as_str()))
    .collect();
    if script == all || bodies.iter().any(|b| runs_another_script(b)) {
        bodies = scripts.values().filter_map(|b| b.as_str()).collect();
    }
    bodies.iter().find_map(|body| {
        tool(body).or_else(|| {
            // Read as a check line is (groups, `if`, `sh -c "…"`: review 95, 13-15).
            let tokens = super::words::line_tokens(body, &[], 0);
            script_commands(&tokens).into_iter().find_map(|c| {
                (!matches!(name_of(&c[0]).as_str(), "npm" | "yarn" | "pnpm" | "bun"))
                    .then(|| node_collector(&c, dir, roots))
                    .flatten()
            })
        })
    })
}

/// The folders of the workspaces the `package.json` in `dir` lists (`"workspaces":
/// ["pkgs/a", "libs/*"]` or `{"packages": […]}`), or `None` where gate cannot list them:
/// no list, a pattern other than a plain folder or `folder/*`, a folder it cannot read.
fn workspace_folders(dir: &Path) -> Option<Vec<PathBuf>> {
    let listed = super::makefile::read_text(&dir.join("package.json"))
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| {
            let w = v.get("workspaces")?;
            w.get("packages").unwrap_or(w).as_array().cloned()
        })?;
    let mut folders = Vec::new();
    for pattern in listed.iter().take(64) {
        let pattern = pattern.as_str()?;
        match pattern.strip_suffix("/*") {
            Some(parent) if !parent.contains(['*', '?', '[', '{']) => {
                let entries = std::fs::read_dir(dir.join(parent)).ok()?;
                folders.extend(
                    entries
                        .flatten()
                        .map(|e| e.path())
                        .filter(|p| p.is_dir())
                        .take(256),
                );
                // The parent itself: a trial may add a workspace there.
                folders.push(dir.join(parent));
            }
            _ if !pattern.contains(['*', '?', '[', '{', '!']) => folders.push(dir.join(pattern)),
            _ => return None,
        }
    }
    Some(folders)
}

/// A `check:` line (a task's or base's) that reads what decides its grade from a folder the
/// trials write, where no wall compares it while the run goes on, is refused when the plan
/// is loaded (exit 2), unless `policy.sandbox: off` (where every wall is off and the sandbox
/// line says so): a trial could write that file and decide the grade, and gate publishes no
/// verdict a file of the trials' could have shaped (issue 29). Which lines:
/// [`definition_findings`], those [`Finding::refused`]. The fix the message names is the task's
/// `writes:`, which leaves the rest of the folder read-only by a wall that reads nothing.
/// Until round 4 these were warnings: a `pytest.ini` a trial wrote (`addopts =
/// --collect-only`) turned a wrong answer into PASS, warned about but not stopped.
pub(super) fn refuse_definitions_the_trials_write(
    shown: &str,
    plan: &Plan,
) -> Result<(), PlanError> {
    if plan.policy.sandbox.mode == crate::model::SandboxMode::Off {
        return Ok(());
    }
    let unbuildable = || {
        (plan.tasks.iter())
            .find_map(|t| unbuildable_cargo_check(t).or_else(|| unloadable_vite_config(t)))
    };
    match (definition_findings(plan).into_iter().find(|f| f.refused)).or_else(unbuildable) {
        Some(f) => Err(PlanError::Invalid {
            path: shown.to_string(),
            line: f.at.0,
            column: f.at.1,
            message: f.message,
        }),
        None => Ok(()),
    }
}

/// A boxed check line of `t` that runs cargo to build (`cargo test`, `cargo nextest run`):
/// cargo writes its target folder and `Cargo.lock`, and in the box a check writes only the
/// folders the trials write and its own `TMPDIR` (a target folder among the former is
/// refused above: a trial could plant what cargo runs; one elsewhere is not granted), so
/// every trial would FAIL with a correct agent (issue
/// 29's over-refusal audit, 32). Refused, saying what works.
fn unbuildable_cargo_check(t: &super::Task) -> Option<Finding> {
    const BUILDS: [&str; 17] = [
        "test",
        "t",
        "build",
        "b",
        "run",
        "r",
        "bench",
        "check",
        "c",
        "nextest",
        "doc",
        "d",
        "clippy",
        "fix",
        "install",
        "llvm-cov",
        "tarpaulin",
    ];
    const VALUED: [&str; 7] = [
        "--manifest-path",
        "--config",
        "-Z",
        "-C",
        "--color",
        "--target-dir",
        "--lockfile-path",
    ];
    for (line, _, env) in super::state::check_lines(t) {
        for (_, words) in super::words::scoped_commands(&tokens_of(line, env)) {
            for (run, _) in runs_within(&words) {
                if name_of(&run[0]) != "cargo" {
                    continue;
                }
                let mut rest = run[1..].iter();
                let mut sub = None;
                while let Some(w) = rest.next() {
                    if VALUED.contains(&w.as_str()) {
                        rest.next();
                    } else if !w.starts_with(['-', '+']) {
                        sub = Some(w.as_str());
                        break;
                    }
                }
                if sub.is_some_and(|s| BUILDS.contains(&s)) {
                    return Some(Finding {
                        at: t.check_at_of(line),
                        message: format!(
                            "task `{}`: `check:` runs `cargo {}`, which writes its target \
                             folder and `Cargo.lock`, and in the box a check writes only the \
                             folders the trials write and its own `TMPDIR`, so every trial \
                             would fail; run cargo in the task's `run:` (as `gate \
                             init` writes a Cargo project's plan) and have the check read its \
                             result, or set `policy.sandbox: off`",
                            t.id,
                            sub.unwrap_or_default()
                        ),
                        refused: true,
                    });
                }
            }
        }
    }
    None
}

/// A boxed check line of `t` that runs vitest (or vite) where a configuration in code lies
/// (`vitest.config.mjs`, `vite.config.ts`): vite bundles it into `node_modules/.vite-temp`
/// before it loads it, which the box keeps read-only to the check (the packages wall,
/// `writes:` or not), so every trial would FAIL
/// with a correct agent (issue 29's over-refusal audit, 29). vite 6.1's `--configLoader
/// runner` loads it without that file: accepted where the line or the script says it.
fn unloadable_vite_config(t: &super::Task) -> Option<Finding> {
    const CONFIGS: [&str; 2] = ["vitest.config", "vite.config"];
    const EXTS: [&str; 6] = ["js", "mjs", "cjs", "ts", "mts", "cts"];
    for (line, cwd, env) in super::state::check_lines(t) {
        let mut dir = cwd.clone();
        for (_, words) in super::words::scoped_commands(&tokens_of(line, env)) {
            for (run, _) in runs_within(&words) {
                let name = name_of(&run[0]);
                if matches!(name.as_str(), "cd" | "pushd") {
                    if let Some(d) = super::words::cd_folder(&run) {
                        dir = dir.join(d);
                    }
                    continue;
                }
                let vite = |w: &str| {
                    super::words::mentions_word(w, "vitest")
                        || super::words::mentions_word(w, "vite")
                };
                let direct = run.iter().take(3).any(|w| vite(&name_of(w)));
                // A package manager's script that starts it (`npm test` of `vitest run`).
                let project = dir
                    .ancestors()
                    .take(64)
                    .find(|a| a.join("package.json").is_file())
                    .map(Path::to_path_buf);
                let scripts = (matches!(name.as_str(), "npm" | "yarn" | "pnpm" | "bun"))
                    .then(|| project.as_ref())
                    .flatten()
                    .and_then(|p| super::makefile::read_text(&p.join("package.json")))
                    .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
                    .and_then(|v| {
                        let s = v.get("scripts")?.as_object()?;
                        Some(
                            s.values()
                                .filter_map(|b| b.as_str())
                                .collect::<Vec<_>>()
                                .join("\n"),
                        )
                    })
                    .unwrap_or_default();
                if !(direct || vite(&scripts)) {
                    continue;
                }
                if run.iter().any(|w| w.contains("configLoader"))
                    || scripts.contains("configLoader")
                {
                    continue;
                }
                let folders = [Some(dir.clone()), project].into_iter().flatten();
                let found = folders
                    .flat_map(|f| {
                        CONFIGS.iter().flat_map(move |c| {
                            let f = f.clone();
                            EXTS.iter().map(move |e| f.join(format!("{c}.{e}")))
                        })
                    })
                    .find(|f| f.is_file());
                if let Some(config) = found {
                    return Some(Finding {
                        at: t.check_at_of(line),
                        message: format!(
                            "task `{}`: `check:` runs vitest, which bundles its configuration \
                             `{}` into `node_modules/.vite-temp` before it loads it, and the box \
                             keeps `node_modules` read-only to the check, so every trial would \
                             fail; add `--configLoader runner` (vite 6.1 and later) to the \
                             vitest command, or set `policy.sandbox: off`",
                            t.id,
                            config.display()
                        ),
                        refused: true,
                    });
                }
            }
        }
    }
    None
}

/// The [`definition_findings`] a plan is not refused for, as warnings: `gate check` and `gate
/// run` print them: those not [`Finding::refused`] in a boxed plan, and every one with
/// `policy.sandbox: off`.
pub fn definition_warnings(plan: &Plan) -> Vec<String> {
    let off = plan.policy.sandbox.mode == crate::model::SandboxMode::Off;
    definition_findings(plan)
        .into_iter()
        .filter(|f| off || !f.refused)
        .map(|f| format!("warning: {}", f.message))
        .collect()
}

/// One `check:` line that reads what decides its grade from a folder the trials write.
struct Finding {
    /// Where the `check:` line was written in the plan: line and column.
    at: (u64, u64),
    /// One line saying what, why, and the fix.
    message: String,
    /// Whether the plan is refused for it, else warned about. A warning where a wall compares
    /// what the check reads while the run goes on: node's tools, whose configurations and
    /// packages gate stamps before each check and watches (reviews 41-57), finding them by
    /// reading text, which a trial may spell past. And for a grader whose text moves its
    /// search path (`sys.path.insert`, `PYTHONPATH=`): a reading that cannot tell a folder
    /// the trials write from one gate holds (`sys.path.insert(0, 'graders')`), so a refusal
    /// would refuse honest graders. Any other runner (`make`, `pytest`, `tox`, `cargo`, `go`,
    /// `python -m`) reads files no wall compares: refused.
    refused: bool,
}

/// The runners whose configuration a run-time wall compares (not [`Finding::refused`]).
const NODE_RUNNERS: &[&str] = &[
    "npm", "yarn", "pnpm", "npx", "bunx", "jest", "vitest", "mocha",
];

/// `words` (a simple command) and the commands it runs in turn that gate reads as a runner's:
/// the ones `find -exec` / `-execdir` / `-ok` / `-okdir` runs (up to its `;` or `+`; review
/// 68, 04), their command prefixes stripped as [`simple_commands`] strips them (`-exec xargs
/// pytest`: review 69, 02), and theirs in turn. Each with the folders `find` starts from
/// where it is run in the folder of each file found (`-execdir`, `-okdir`: review 69, 14).
pub(super) fn runs_within(words: &[String]) -> Vec<(Vec<String>, Option<Vec<String>>)> {
    let mut runs = vec![(words.to_vec(), None)];
    if name_of(&words[0]) != "find" {
        return runs;
    }
    // The folders find starts from: the words before its first expression (`.` if none).
    let mut starts: Vec<String> = words[1..]
        .iter()
        .take_while(|w| !w.starts_with('-') && !matches!(w.as_str(), "(" | "!" | "\\(" | "\\!"))
        .cloned()
        .collect();
    if starts.is_empty() {
        starts.push(".".into());
    }
    for (k, w) in words.iter().enumerate() {
        if !matches!(w.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            continue;
        }
        let run: Vec<super::words::Token> = words[k + 1..]
            .iter()
            .take_while(|w| !matches!(w.as_str(), ";" | "\\;" | "+"))
            .map(|w| super::words::Token::Word(w.clone()))
            .collect();
        let inside = matches!(w.as_str(), "-execdir" | "-okdir").then(|| starts.clone());
        for command in simple_commands(&run) {
            for (inner, dirs) in runs_within(&command) {
                runs.push((inner, dirs.or_else(|| inside.clone())));
            }
        }
    }
    runs
}

/// What pytest, run as `words` in `dir` with the task's `env`, reads that a trial may write
/// ([`pytest_reach`]).
enum PytestReach {
    /// Its configuration, from the folders above this path (a path argument, a `-c` file, an
    /// `@file`, its `--rootdir`), which lies in a folder the trials write (review 68, 10).
    Above(PathBuf),
    /// A folder the trials write (the second) beneath what it collects (the first): every
    /// `conftest.py` there runs (review 68, 11).
    Collects(PathBuf, PathBuf),
    /// A link beneath what it collects (the first) into a folder the trials write (review
    /// 69, 12b).
    Link(PathBuf, PathBuf),
    /// A path it is given that the shell makes at run time (`$(echo out)`, `$DIR`, a glob
    /// `o[u]t`): it may name a folder the trials write (review 78).
    Computed(String),
    /// A debugger it starts (`--pdb`, `--trace`, `--pdbcls`), which reads its commands from
    /// the check's input (review 91, 33, 34: `pytest --pdb tests < out/i.py`).
    Debugger(String),
    /// A configuration file it may read that is larger than gate reads.
    Unread(PathBuf),
    /// A folder the trials write that it imports modules from: put on `sys.path` first
    /// (`pythonpath`, `-o pythonpath=`), or the first part of a module it imports by name
    /// (`-p out.plug`, `PYTEST_PLUGINS`, a warning filter's category): a trial's module
    /// there runs in the grader (review 89, 23; review 70, 07, 08; review 91, 02, 18).
    Imports(PathBuf),
    /// Under its default import mode (`prepend`) pytest puts the folder above each test
    /// module's package (the first without an `__init__.py`) first on `sys.path`; there a
    /// folder the trials write is named like a module the tests import (review 102's
    /// console-script case): what [`super::tools::shadow_in_folders`] says.
    Shadows(String),
}

/// Whether word `w`, a path given to a runner, is made by the shell at run time: a
/// substitution or variable gate did not put in, or a glob (in the path part of a pytest
/// node id: `tests/t.py::test_a[1-2]` is a plain path).
fn computed_path(w: &str) -> bool {
    let path = w.split("::").next().unwrap_or(w);
    w.contains(['$', '`']) || path.contains(['*', '?', '['])
}

/// The options of pytest (and of the plugins gate has seen in checks) that take the next
/// word as their value unless it is glued (`--junitxml=x`): that value is no path pytest
/// collects (review 69, 05: `--junitxml out/junit.xml`, `-k out`).
const PYTEST_VALUED: &[&str] = &[
    "-k",
    "-m",
    "-p",
    "-c",
    "-o",
    "-W",
    "-r",
    "-n",
    "--tb",
    "--maxfail",
    "--durations",
    "--durations-min",
    "--junitxml",
    "--junit-xml",
    "--junit-prefix",
    "--basetemp",
    "--rootdir",
    "--confcutdir",
    "--ignore",
    "--ignore-glob",
    "--deselect",
    "--log-file",
    "--log-level",
    "--log-format",
    "--log-date-format",
    "--log-cli-level",
    "--log-file-level",
    "--import-mode",
    "--capture",
    "--cov",
    "--cov-report",
    "--cov-config",
    "--dist",
    "--timeout",
    "--color",
    "--code-highlight",
    "--doctest-glob",
    "--override-ini",
    "--config-file",
    "--show-capture",
    "--assert",
    "--report-log",
    "--html",
    "--json-report-file",
    "--verbosity",
    "--pythonwarnings",
    "--doctest-report",
    "--debug",
];

/// Where pytest, run as `words` in `dir` with the task's `env` (its `PYTEST_ADDOPTS` read
/// first, as pytest reads it), reads what a trial may write (`roots`): a path argument (or
/// `dir`, given none) that lies in one of the folders, or holds one, or holds a link into
/// one; a configuration it is given (`-c`, `--config-file`, `--rootdir`, `--confcutdir`, an
/// `@file` of arguments) that lies in one. A path missing when the plan is loaded counts
/// where it would be (review 69, 04: a trial creates `out/test_agent.py`). With `shell`
/// (words a shell reads), one the shell makes at run time counts as any folder.
fn pytest_reach(
    words: &[String],
    dir: &Path,
    env: &[(String, String)],
    roots: &[PathBuf],
    shell: bool,
) -> Option<PytestReach> {
    // A path made at run time, in words the shell reads (a check line's; a makefile's
    // recipe reads as make's `$(VAR)`, the plan's own, and is not asked).
    let made_at_run_time = |w: &str| shell && !roots.is_empty() && computed_path(w);
    let real = |p: &Path| resolve(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()));
    // Where a path would be: its nearest existing folder resolved, the rest as written.
    let placed = |w: &str| {
        let p = dir.join(w);
        let mut existing = p.as_path();
        let mut rest = Vec::new();
        while !existing.exists() {
            let (Some(parent), Some(name)) = (existing.parent(), existing.file_name()) else {
                break;
            };
            rest.push(name.to_os_string());
            existing = parent;
        }
        rest.into_iter()
            .rev()
            .fold(real(existing), |p, n| p.join(n))
    };
    let in_root = |p: &Path| roots.iter().any(|r| p.starts_with(r));
    let overlaps = |p: &Path| in_root(p) || roots.iter().any(|r| r.starts_with(p));
    // The words after pytest's own name (`pytest`, `python3 -m pytest`, `-mpytest`).
    let from = words
        .iter()
        .position(|w| {
            matches!(
                name_of(w).as_str(),
                "pytest" | "py.test" | "pytest-3" | "py.test-3"
            ) || w.ends_with("mpytest")
        })
        .map_or(1, |k| k + 1);
    // A makefile recipe's own assignments before pytest (`PYTEST_PLUGINS=x pytest`).
    let env: Vec<(String, String)> = (words[..from.saturating_sub(1)].iter())
        .filter(|w| assignment(w))
        .filter_map(|w| w.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .chain(env.iter().cloned())
        .collect();
    // pytest splits it as Python's `shlex` does: quotes and escapes removed as a shell
    // removes them (review 70, 11; review 91, 43, 44: `-p "out".w`, `-p o\ut.w`).
    let addopts: Vec<String> = env
        .iter()
        .filter(|(k, _)| k == "PYTEST_ADDOPTS")
        .flat_map(|(_, v)| python_shlex_split(v))
        .collect();
    // Its configuration file's `addopts` come first, then `PYTEST_ADDOPTS`, then the line
    // (review 91, 14, 16, 46, 47: `addopts = -p out.w` in a read-only `pytest.ini`); the file
    // is chosen by `-c` there or on the line (review 92, 21, 22).
    let chosen: Vec<String> = addopts.iter().chain(&words[from..]).cloned().collect();
    let ini = pytest_configs(&chosen, dir);
    // The folders a configuration's `pythonpath` puts on `sys.path`, whatever the import
    // mode (review 104, p07: `pythonpath = .` over a folder the trials write).
    let mut pythonpath: Vec<PathBuf> = Vec::new();
    for (folder, opts) in &ini {
        if let Some(file) = &opts.unread {
            return Some(PytestReach::Unread(file.clone()));
        }
        // `cache_dir`, expanded as pytest expands it (`os.path.expanduser`, then
        // `os.path.expandvars`): a `$` may name anything, `~user` any home; `~` is the
        // home gate and its check share.
        for w in &opts.cache_dir {
            let w = match (w.strip_prefix('~'), home()) {
                (Some(rest), Some(h)) if rest.is_empty() || rest.starts_with('/') => {
                    format!("{}{rest}", h.trim_end_matches('/'))
                }
                (Some(_), _) => return Some(PytestReach::Computed(w.clone())),
                (None, _) => w.clone(),
            };
            if w.contains('$') {
                return Some(PytestReach::Computed(w));
            }
            let p = resolve(&folder.join(&w));
            if overlaps(&p) {
                return Some(PytestReach::Above(p));
            }
        }
        for w in &opts.pythonpath {
            let p = resolve(&folder.join(w));
            if in_root(&p) {
                return Some(PytestReach::Imports(p));
            }
            pythonpath.push(p);
        }
        for w in &opts.testpaths {
            // pytest expands a glob in `testpaths` (`../o*`: review 93, 09): one without a
            // `..` matches only beneath the folder before its first pattern
            // (`tests/unit*`: review 94, 90), which is then what it may collect.
            let glob = w.contains(['*', '?', '[']);
            if glob && w.split('/').any(|c| c == "..") {
                return Some(PytestReach::Computed(w.clone()));
            }
            let fixed = match w.find(['*', '?', '[']) {
                Some(at) => w[..at].rsplit_once('/').map_or("", |(d, _)| d),
                None => w.as_str(),
            };
            let p = resolve(&folder.join(fixed));
            if overlaps(&p) {
                return Some(PytestReach::Above(p));
            }
        }
        if let Some(m) = opts.filterwarnings.iter().find_map(|f| warning_category(f))
            && module_in_root_at(m, folder, roots)
        {
            return Some(PytestReach::Imports(resolve(
                &folder.join(m.split('.').next().unwrap_or(m)),
            )));
        }
    }
    let mut args: Vec<String> = (ini.into_iter().flat_map(|(_, o)| o.addopts))
        .chain(addopts)
        .chain(words[from..].iter().cloned())
        .collect();
    // A module pytest imports by name (`-p out.plug`, `PYTEST_PLUGINS`, a `--pyargs`
    // argument): where its first part lies in a folder the trials write (review 70, 07, 08).
    let module_in_root = |m: &str| {
        let first = m.split('.').next().unwrap_or(m);
        !first.is_empty() && !m.starts_with("no:") && in_root(&placed(first))
    };
    let plugins = env
        .iter()
        .filter(|(k, _)| k == "PYTEST_PLUGINS")
        .flat_map(|(_, v)| {
            v.split(',')
                .map(|m| m.trim().to_string())
                .collect::<Vec<_>>()
        });
    for m in plugins {
        if module_in_root(&m) {
            return Some(PytestReach::Imports(placed(
                m.split('.').next().unwrap_or(&m),
            )));
        }
    }
    let pyargs = args.iter().any(|w| w == "--pyargs");
    let mut targets = Vec::new();
    let mut k = 0;
    while let Some(w) = args.get(k) {
        k += 1;
        if w == "--pdb" || w == "--trace" || w.starts_with("--pdbcls") {
            return Some(PytestReach::Debugger(w.clone()));
        }
        if let Some(file) = w.strip_prefix('@') {
            // Arguments read from the check's input (`@/dev/stdin < out/args`: review 91,
            // 12, 45) or a descriptor are the line's to feed.
            if made_at_run_time(file)
                || file == "-"
                || super::invoke::is_stdin(file)
                || super::invoke::is_descriptor(file)
            {
                return Some(PytestReach::Computed(w.clone()));
            }
            let p = placed(file);
            if in_root(&p) {
                return Some(PytestReach::Above(p));
            }
            continue;
        }
        if w.starts_with('-') {
            // A cluster of short options (`-qk answer`, `-qcout/pytest.ini`): the first
            // letter that takes a value takes the rest of the word, or the next word (review
            // 70, 04, 06).
            let short = (!w.starts_with("--") && w.len() > 1)
                .then(|| {
                    w.char_indices()
                        .skip(1)
                        .find(|(_, c)| PYTEST_VALUED.contains(&format!("-{c}").as_str()))
                })
                .flatten();
            let cluster;
            let (name, glued) = match (w.split_once('='), short) {
                (Some((n, v)), _) if n.starts_with("--") => (n, Some(v.to_string())),
                (_, Some((at, c))) => {
                    cluster = format!("-{c}");
                    let rest = &w[at + c.len_utf8()..];
                    (
                        cluster.as_str(),
                        (!rest.is_empty()).then(|| rest.to_string()),
                    )
                }
                _ => (w.as_str(), None),
            };
            if !PYTEST_VALUED.contains(&name) {
                continue;
            }
            let value = match glued {
                Some(v) => v,
                None => {
                    k += 1;
                    args.get(k - 1).cloned().unwrap_or_default()
                }
            };
            if matches!(
                name,
                "-c" | "--config-file" | "--rootdir" | "--confcutdir" | "-p"
            ) && made_at_run_time(&value)
            {
                return Some(PytestReach::Computed(value));
            }
            if matches!(name, "-c" | "--config-file" | "--rootdir" | "--confcutdir") {
                let p = placed(&value);
                if in_root(&p) {
                    return Some(PytestReach::Above(p));
                }
            }
            if name == "-p" && module_in_root(&value) {
                return Some(PytestReach::Imports(placed(
                    value.split('.').next().unwrap_or(&value),
                )));
            }
            // A warning filter's category is imported (`-W ignore::out.w.W` imports
            // `out/w.py`: review 91, 02, 18).
            if matches!(name, "-W" | "--pythonwarnings")
                && let Some(m) = warning_category(&value)
                && module_in_root(m)
            {
                return Some(PytestReach::Imports(placed(
                    m.split('.').next().unwrap_or(m),
                )));
            }
            // `-o addopts=out` adds its words as if written here; `-o pythonpath=out`,
            // `testpaths`, `confcutdir` name folders pytest reads (review 89, 23).
            if matches!(name, "-o" | "--override-ini")
                && let Some((key, v)) = value.split_once('=')
            {
                match key.trim() {
                    "addopts" => args.extend(python_shlex_split(v)),
                    "filterwarnings" => {
                        if let Some(m) = warning_category(v)
                            && module_in_root(m)
                        {
                            return Some(PytestReach::Imports(placed(
                                m.split('.').next().unwrap_or(m),
                            )));
                        }
                    }
                    "pythonpath" | "testpaths" | "confcutdir" | "rootdir" | "cache_dir" => {
                        for w in v.split_whitespace() {
                            // The check's own `TMPDIR`, a fresh folder gate makes outside
                            // the ones the trials write (review 91, 86).
                            let own_tmp = ["$TMPDIR", "${TMPDIR}"].iter().any(|t| {
                                w == *t || w.strip_prefix(t).is_some_and(|r| r.starts_with('/'))
                            }) && !env.iter().any(|(k, _)| k == "TMPDIR")
                                && !w.contains("..");
                            if own_tmp {
                                continue;
                            }
                            if made_at_run_time(w) {
                                return Some(PytestReach::Computed(w.to_string()));
                            }
                            let p = placed(w);
                            if in_root(&p) {
                                return Some(if key.trim() == "pythonpath" {
                                    PytestReach::Imports(p)
                                } else {
                                    PytestReach::Above(p)
                                });
                            }
                        }
                    }
                    _ => {}
                }
            }
            continue;
        }
        // A path the shell makes at run time may name any folder (review 78: `pytest
        // $(echo out) tests`, which gate read as `tests` alone).
        if made_at_run_time(w) {
            return Some(PytestReach::Computed(w.clone()));
        }
        if pyargs && module_in_root(w) {
            return Some(PytestReach::Imports(placed(
                w.split('.').next().unwrap_or(w),
            )));
        }
        // `tests/test_x.py::test_one` names a path too. One missing at load counts where
        // it lies in a folder the trials write (a trial may create it); any other missing
        // word is no path pytest collects from (an option's value gate does not know:
        // `--verbosity 2`, review 70, 05), and does not stand for the folder.
        let p = placed(w.split("::").next().unwrap_or(w));
        if p.exists() {
            targets.push(p);
        } else if in_root(&p) {
            return Some(PytestReach::Above(p));
        }
    }
    if targets.is_empty() {
        targets.push(real(dir));
    }
    // `--import-mode=importlib` leaves `sys.path` alone, and `append` puts the folders last
    // (the last given wins). Read from the line and `PYTEST_ADDOPTS` only: which
    // configuration file pytest reads, and whether `-o addopts=` replaces its `addopts`, is
    // not read here (review 103, p16-p18), and an `@file` of arguments may set it again
    // (p04): there the default, `prepend`, counts.
    let mut mode = "prepend";
    for (k, w) in chosen.iter().enumerate() {
        if let Some(m) = w.strip_prefix("--import-mode=") {
            mode = m;
        } else if w == "--import-mode" {
            mode = chosen.get(k + 1).map_or(mode, String::as_str);
        }
    }
    let prepend = mode == "prepend" || chosen.iter().any(|w| w.starts_with('@'));
    {
        // Each `conftest.py` pytest loads from the folders above a target puts its own
        // basedir there too (a `conftest.py` in the task's folder puts that folder first).
        let conftests: Vec<PathBuf> = (targets.iter())
            .flat_map(|t| t.ancestors().skip(1).take(64))
            .map(|d| d.join("conftest.py"))
            .filter(|c| c.is_file())
            .collect();
        let inserted: Vec<PathBuf> = (targets.iter().chain(&conftests))
            .filter_map(|t| pytest_basedir(t))
            .filter(|b| !targets.contains(b))
            .filter(|_| prepend || mode == "append")
            .chain(pythonpath.iter().cloned())
            .collect();
        // First on `sys.path`: the basedirs under `prepend`, `pythonpath` always.
        let first = if prepend { &inserted } else { &pythonpath };
        let writable = |p: &Path| in_root(p);
        if let Some(why) = super::tools::shadow_in_folders(first, &writable, true, false) {
            return Some(PytestReach::Shadows(why));
        }
        // A module the tests import that Python finds nowhere else (an optional `try:
        // import ujson`) is found there under `append` too (review 103, p12, p13).
        let mut texts: Vec<String> = conftests
            .iter()
            .filter_map(|c| super::state::grader_text(c))
            .collect();
        texts.extend(
            super::tools::python_files(&targets, 4_000)
                .iter()
                .filter_map(|f| super::state::grader_text(f)),
        );
        let mut names = super::tools::imported_modules(&texts.join("\n"));
        // Last on `sys.path`, a folder is found only for a module Python has nowhere else.
        names.retain(|n| prepend || !super::tools::python3_stdlib(n));
        if let Some(why) = super::tools::named_in_folders(&inserted, &names, &writable) {
            return Some(PytestReach::Shadows(why));
        }
    }
    for target in targets {
        if in_root(&target) {
            return Some(PytestReach::Above(target));
        }
        if let Some(root) = roots.iter().find(|r| r.starts_with(&target)) {
            return Some(PytestReach::Collects(target, root.clone()));
        }
        // pytest follows a link to a folder as it collects.
        if target.is_dir()
            && let Ok(Some((link, _))) = super::state::link_out_of(&target, &in_root)
        {
            return Some(PytestReach::Link(target, link));
        }
    }
    None
}

/// The folder pytest's `prepend` import mode puts first on `sys.path` for the test modules
/// of `target` (a file — a test module, a `conftest.py` — or a folder it collects): the
/// first folder, from the module's own up, that holds no `__init__.py` (its "basedir").
/// For a folder that is not a package that is the folder itself; the packages beneath it
/// are not read.
fn pytest_basedir(target: &Path) -> Option<PathBuf> {
    let own = if target.is_dir() {
        target
    } else {
        target.parent()?
    };
    own.ancestors()
        .take(64)
        .find(|d| !d.join("__init__.py").exists())
        .map(Path::to_path_buf)
}

/// The category of a warning filter (`action:message:category:module:lineno`), which
/// Python and pytest import when it names a module (`ignore::out.w.W`), or `None`.
fn warning_category(filter: &str) -> Option<&str> {
    let category = filter.split(':').nth(2)?.trim();
    category.contains('.').then_some(category)
}

/// Whether module `m`'s first part, looked up from `folder`, lies in one of `roots`.
fn module_in_root_at(m: &str, folder: &Path, roots: &[PathBuf]) -> bool {
    let first = m.split('.').next().unwrap_or(m);
    !first.is_empty() && {
        let p = resolve(&folder.join(first));
        roots.iter().any(|r| p.starts_with(r))
    }
}

/// What a pytest configuration file sets that decides what pytest loads.
#[derive(Default)]
struct PytestIni {
    /// `addopts`, split as pytest splits it.
    addopts: Vec<String>,
    /// `filterwarnings`, one filter each.
    filterwarnings: Vec<String>,
    /// `pythonpath`, folders put on `sys.path` (from the file's folder).
    pythonpath: Vec<String>,
    /// `testpaths`, folders collected when no path is given.
    testpaths: Vec<String>,
    /// `cache_dir`: `--lf`, `--ff`, `--nf` and `--sw` choose the tests to run from what is
    /// cached there (review 94, 72).
    cache_dir: Vec<String>,
    /// The file, when it is larger than gate reads ([`super::makefile::read_text`]'s bound):
    /// what it sets past that is not known.
    unread: Option<PathBuf>,
}

/// The pytest configuration files pytest may read for arguments `args` run in `dir`, each
/// with its folder and what it sets: every `pytest.ini`, `.pytest.ini`, `pyproject.toml`,
/// `tox.ini` and `setup.cfg` in `dir`, in the folder of each existing path argument and in
/// the folders above them, and the file a `-c` / `--config-file` names. pytest reads the
/// first it finds; reading all of them is stricter, never looser (review 91).
fn pytest_configs(args: &[String], dir: &Path) -> Vec<(PathBuf, PytestIni)> {
    // pytest 9 reads `pytest.toml` and `.pytest.toml` first (review 93, 01, 02).
    const NAMES: [&str; 7] = [
        "pytest.toml",
        ".pytest.toml",
        "pytest.ini",
        ".pytest.ini",
        "pyproject.toml",
        "tox.ini",
        "setup.cfg",
    ];
    let mut files: Vec<PathBuf> = Vec::new();
    let mut starts: Vec<PathBuf> = vec![resolve(dir)];
    let mut k = 0;
    while let Some(w) = args.get(k) {
        k += 1;
        // `-c F`, `-cF`, `--config-file[=]F`, and a cluster whose first valued letter is
        // `c` (`-qc F`, `-qcF`).
        let cluster = (w.starts_with('-') && !w.starts_with("--") && w.len() > 1)
            .then(|| {
                w.char_indices()
                    .skip(1)
                    .find(|(_, c)| PYTEST_VALUED.contains(&format!("-{c}").as_str()))
            })
            .flatten()
            .filter(|(_, c)| *c == 'c')
            .map(|(at, _)| &w[at + 1..]);
        let named = match (w.as_str(), cluster) {
            ("--config-file", _) => args.get(k).cloned(),
            (_, Some("")) => args.get(k).cloned(),
            (_, Some(glued)) => Some(glued.to_string()),
            _ => w.strip_prefix("--config-file=").map(str::to_string),
        };
        if let Some(f) = named {
            files.push(resolve(&dir.join(f)));
            continue;
        }
        let p = dir.join(w.split("::").next().unwrap_or(w));
        if !w.starts_with('-') && p.exists() {
            starts.push(resolve(&p));
        }
    }
    let mut seen = std::collections::HashSet::new();
    for start in starts.iter().take(64) {
        for folder in start.ancestors() {
            if !seen.insert(folder.to_path_buf()) {
                break;
            }
            files.extend(NAMES.iter().map(|n| folder.join(n)).filter(|f| f.is_file()));
        }
    }
    files
        .into_iter()
        .filter_map(|f| {
            let text = super::makefile::read_text(&f)?;
            let folder = f.parent()?.to_path_buf();
            let toml = f.extension().is_some_and(|e| e == "toml");
            let mut ini = if toml {
                pyproject_pytest(&text)
            } else {
                pytest_ini(&text)
            };
            if text.len() > super::makefile::MAX_TEXT {
                ini.unread = Some(f);
            }
            Some((folder, ini))
        })
        .collect()
}

// Python's `str.isspace`: Rust's `is_whitespace` leaves out `\x1c`-`\x1f` (review 94, 06).
use super::words::python_space as py_space;

/// `text` cut into lines as Python's `str.splitlines` cuts it: at `\n`, `\r\n`, a lone `\r`,
/// `\x0b`, `\x0c`, `\x1c`-`\x1e`, `\x85`, U+2028 and U+2029 (review 93, 04-08).
fn py_lines(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut from = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if super::words::python_line_break(c) {
            out.push(&text[from..at]);
            from = at + c.len_utf8();
            if c == '\r' && chars.peek().is_some_and(|&(_, n)| n == '\n') {
                chars.next();
                from += 1;
            }
        }
    }
    if from < text.len() {
        out.push(&text[from..]);
    }
    out
}

/// `text` split into words as Python's `shlex.split` splits it (POSIX mode, no comments),
/// which is how pytest splits `addopts`, `PYTEST_ADDOPTS`, `pythonpath` and `testpaths`:
/// at spaces, tabs and line ends only, quotes and backslashes removed, and nothing else
/// special (a `#` or a `$(…)` is part of a word: review 94, 05, 07-09, 74). An unclosed
/// quote (an error to pytest) keeps what it holds as a word.
fn python_shlex_split(text: &str) -> Vec<String> {
    #[derive(PartialEq)]
    enum At {
        Space,
        Word,
        Single,
        Double,
    }
    let mut out = Vec::new();
    let mut word = String::new();
    let mut at = At::Space;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match at {
            At::Space | At::Word => match c {
                ' ' | '\t' | '\r' | '\n' => {
                    if at == At::Word {
                        out.push(std::mem::take(&mut word));
                    }
                    at = At::Space;
                }
                '\\' => {
                    word.extend(chars.next());
                    at = At::Word;
                }
                '\'' => at = At::Single,
                '"' => at = At::Double,
                c => {
                    word.push(c);
                    at = At::Word;
                }
            },
            At::Single if c == '\'' => at = At::Word,
            At::Double if c == '"' => at = At::Word,
            // In double quotes a backslash escapes only `"` and itself.
            At::Double if c == '\\' => {
                if let Some(n) = chars.next() {
                    if n != '"' && n != '\\' {
                        word.push('\\');
                    }
                    word.push(n);
                }
            }
            At::Single | At::Double => word.push(c),
        }
    }
    if at != At::Space {
        out.push(word);
    }
    out
}

/// What pytest ini configuration `text` sets ([`PytestIni`]): its `[pytest]` or
/// `[tool:pytest]` section (any file named by `-c` is read as one), line by line as
/// `iniconfig` 2.3 parses it (review 94, 01-04, 06, 10): a leading byte order mark
/// dropped; blank lines and lines whose first non-blank is `#` or `;` skipped without
/// ending a value; a line starting `[` is a section when, cut at its first `#` or `;`, it
/// ends with `]`, else it goes on the value before; a line starting with a blank goes on
/// the value before; any other is `key = value` or `key: value`. Of a key given twice (an
/// error to pytest) every value is read.
fn pytest_ini(text: &str) -> PytestIni {
    let mut out = PytestIni::default();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut section = false;
    // The key and value lines of the current entry (`None` after a section line).
    let mut entries: Vec<(String, Vec<String>)> = Vec::new();
    let mut open: Option<usize> = None;
    for line in py_lines(text) {
        let left = line.trim_start_matches(py_space);
        if left.is_empty() || left.starts_with(['#', ';']) {
            continue;
        }
        let line = line.trim_end_matches(py_space);
        let continuation = if line.starts_with('[') {
            let cut = line
                .split(['#', ';'])
                .next()
                .unwrap_or("")
                .trim_end_matches(py_space);
            if let Some(name) = cut.strip_prefix('[').and_then(|n| n.strip_suffix(']')) {
                section = matches!(name.trim_matches(py_space), "pytest" | "tool:pytest");
                open = None;
                continue;
            }
            true
        } else {
            line.starts_with(py_space)
        };
        if continuation {
            if let Some(k) = open {
                entries[k].1.push(line.trim_matches(py_space).to_string());
            }
            continue;
        }
        let (key, value) = match line.split_once('=') {
            Some((k, v)) if !k.contains(':') => (k, v),
            _ => match line.split_once(':') {
                Some(kv) => kv,
                None => {
                    open = None;
                    continue;
                }
            },
        };
        if !section {
            open = None;
            continue;
        }
        let value = value.trim_matches(py_space);
        entries.push((
            key.trim_matches(py_space).to_ascii_lowercase(),
            if value.is_empty() {
                Vec::new()
            } else {
                vec![value.to_string()]
            },
        ));
        open = Some(entries.len() - 1);
    }
    for (key, lines) in entries {
        let value = lines.join("\n");
        match key.as_str() {
            "addopts" => out.addopts.extend(python_shlex_split(&value)),
            "filterwarnings" => out.filterwarnings.extend(
                value
                    .split('\n')
                    .map(|l| l.trim().to_string())
                    .filter(|l| !l.is_empty()),
            ),
            "pythonpath" => out.pythonpath.extend(python_shlex_split(&value)),
            "testpaths" => out.testpaths.extend(python_shlex_split(&value)),
            "cache_dir" => out.cache_dir.push(value),
            _ => {}
        }
    }
    out
}

/// What a `pyproject.toml` sets for pytest ([`PytestIni`]) in `[tool.pytest.ini_options]`
/// or `[tool.pytest]`, read by a TOML parser (review 92: multi-line and escaped strings,
/// quoted and dotted keys, inline tables, which a reading by lines got wrong). A file that
/// is no TOML is no configuration pytest reads either.
fn pyproject_pytest(text: &str) -> PytestIni {
    let mut out = PytestIni::default();
    let Ok(doc) = toml_edit::Document::parse(text) else {
        return out;
    };
    // `[tool.pytest]` of a `pyproject.toml`, `[pytest]` of a `pytest.toml` or of any TOML
    // file `-c` names (review 93, 03): every such table is read.
    let tool = doc.as_item().get("tool").and_then(|t| t.get("pytest"));
    let own = doc.as_item().get("pytest");
    let tables = [tool, own]
        .into_iter()
        .flatten()
        .flat_map(|p| [p.get("ini_options"), Some(p)])
        .flatten();
    for table in tables {
        for key in [
            "addopts",
            "filterwarnings",
            "pythonpath",
            "testpaths",
            "cache_dir",
        ] {
            let Some(item) = table.get(key) else {
                continue;
            };
            // A string is split as its ini form is; an array's items are taken as they are.
            let items: Vec<String> = match (item.as_str(), item.as_array()) {
                (Some(s), _) if key == "filterwarnings" => {
                    s.lines().map(|l| l.trim().to_string()).collect()
                }
                (Some(s), _) if key == "cache_dir" => vec![s.to_string()],
                (Some(s), _) => python_shlex_split(s),
                (_, Some(a)) => a
                    .iter()
                    .filter_map(|v| v.as_str())
                    .map(str::to_string)
                    .collect(),
                _ => Vec::new(),
            };
            match key {
                "addopts" => out.addopts.extend(items),
                "filterwarnings" => out.filterwarnings.extend(items),
                "pythonpath" => out.pythonpath.extend(items),
                "cache_dir" => out.cache_dir.extend(items),
                _ => out.testpaths.extend(items),
            }
        }
    }
    out
}

/// The module a Python command (`words`) runs with `-m` (`-mX`, `-m X`) from its current
/// folder: `None` with `-I` or `-P` before it, which leave that folder off `sys.path`.
fn module_run(words: &[String]) -> Option<String> {
    let mut k = 1;
    while let Some(w) = words.get(k) {
        if w == "--" || !w.starts_with('-') || w.starts_with("--") {
            return None;
        }
        let cut = w.find('m').map_or(w.as_str(), |at| &w[..at]);
        if cut.contains('I') || cut.contains('P') {
            return None;
        }
        if let Some(at) = w.find('m') {
            let glued = &w[at + 1..];
            return Some(if glued.is_empty() {
                words.get(k + 1)?.clone()
            } else {
                glued.to_string()
            });
        }
        // `-c` runs code, `-W`/`-X` take a value.
        if w.contains('c') {
            return None;
        }
        k += if w.contains('W') || w.contains('X') {
            2
        } else {
            1
        };
    }
    None
}

/// Whether `folder` lies in one of `roots` or holds one.
fn overlaps_a_root(folder: &Path, roots: &[PathBuf]) -> bool {
    roots
        .iter()
        .any(|r| folder.starts_with(r) || r.starts_with(folder))
}

/// The folder cargo, run as `words` in `dir` (its manifest's folder `real`) with the task's
/// `env`, builds into: `--target-dir`, else `CARGO_TARGET_DIR`, else
/// `CARGO_BUILD_TARGET_DIR`, else `target` beside the manifest.
fn cargo_target(
    words: &[String],
    env: &[(String, String)],
    dir: &Path,
    real: &Path,
) -> Vec<PathBuf> {
    let option = words.iter().enumerate().find_map(|(k, w)| {
        w.strip_prefix("--target-dir=")
            .map(str::to_string)
            .or_else(|| (w == "--target-dir").then(|| words.get(k + 1).cloned())?)
    });
    if let Some(v) = option {
        return vec![resolve(&dir.join(v))];
    }
    env_folders(
        env,
        &["CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR"],
        dir,
        real.join("target"),
    )
}

/// Every folder the variables `names` may name here (each value [`runners_env`] gives: the
/// line's, the plan's, gate's own; which one a runner sees depends on the command, so each
/// is asked), relative to `dir`, or `default` where none is set.
fn env_folders(
    env: &[(String, String)],
    names: &[&str],
    dir: &Path,
    default: PathBuf,
) -> Vec<PathBuf> {
    let named: Vec<PathBuf> = env
        .iter()
        .filter(|(k, _)| names.contains(&k.as_str()))
        .map(|(_, v)| resolve(&dir.join(v)))
        .collect();
    if named.is_empty() {
        vec![resolve(&default)]
    } else {
        named
    }
}

/// Why `make` run as `words` over makefile `text` (in folder `real`) may run what a trial
/// wrote, or `None`:
/// - the shell it runs every recipe with (`SHELL`) is a path in or relative to the folders
///   the trials write, or computed (review 83, m03: `SHELL = out/grade.sh`); a bare name
///   (`bash`) or `/usr/bin/env bash` is looked up on `PATH`, whose entries gate checks; a
///   `BASH_ENV` is set (m10; `unexport BASH_ENV` is the safe direction);
/// - a runner's variable ([`RUNNER_VARS`]) or `CDPATH` it sets from a value make computes
///   (`$(…)`, a continued line, `.ONESHELL`, `define`), or that make's own words set
///   (`make test PYTEST_ADDOPTS:=out`; review 82): make's expansion is not read. A literal
///   value (`export PYTEST_ADDOPTS := -p no:cacheprovider`) is read as the recipe's
///   environment instead (review 84, c63, c67);
/// - a recipe runs pytest over a folder the trials write ([`recipe_pytest_reach`]);
/// - a recipe runs make over a makefile gate does not read ([`sub_make_reading`]).
///
/// The makefile is read as [`super::makefile::evaluate`] rewrites it: its variables
/// expanded as make expands them (review 85: `py$(E)test`, `$(RUN)` holding `cd out`,
/// `PYTEST_$(A)OPTS`, `.ONE$(E)SHELL`), what make computes refused where it matters.
///
/// The plan's `env:` (`plan_env`) is make's environment: a variable the makefile does not
/// set takes its value from there (review 74: `$(PY)` with `env: {PY: python3}`).
fn make_reading(
    text: &str,
    words: &[String],
    real: &Path,
    plan_env: &[(String, String)],
    runners_env: &[(String, String)],
    roots: &[PathBuf],
) -> Option<String> {
    let mut budget = SUB_MAKES;
    let inherited: Vec<super::makefile::Inherited> = plan_env
        .iter()
        .map(|(k, v)| (k.clone(), super::makefile::Text::literal(v), false))
        .collect();
    make_reading_at(
        text,
        words,
        real,
        runners_env,
        roots,
        &inherited,
        &mut budget,
    )
}

/// Most makefiles one `make` of a check line has read through its recipes' own `make`s
/// (`$(MAKE) -C sub`), counting repeats: an adversarial makefile's `make`s nest and fan out.
const SUB_MAKES: usize = 16;

/// [`make_reading`] of a makefile a make above hands the variables `inherited`, with
/// `budget` makefiles left to read.
fn make_reading_at(
    raw: &str,
    words: &[String],
    real: &Path,
    runners_env: &[(String, String)],
    roots: &[PathBuf],
    inherited: &[super::makefile::Inherited],
    budget: &mut usize,
) -> Option<String> {
    // The makefile as written is read first, as before review 85 (a reference gate cannot
    // tell counts as reaching anything): the evaluated reading below only adds refusals,
    // never takes one away (review 86: where the evaluation and make differ — `$(eval …)`,
    // `$(shell …)` while make reads, `-e`, `MAKEFLAGS`, the line's own variables — the
    // reading as written still refuses).
    if let Some(why) = make_shell_reading(raw) {
        return Some(why);
    }
    if let Some(why) = make_text_reading(raw, words, real, runners_env, roots, true) {
        return Some(why);
    }
    let reading = match super::makefile::evaluate(raw, words, real, inherited, &chooses_code) {
        Ok(r) => r,
        Err(why) => return Some(why),
    };
    make_text_reading(&reading.text, words, real, runners_env, roots, false)
        .or_else(|| recipe_runs_a_trials_file(raw, &reading.text, real, runners_env, roots))
        .or_else(|| code_env_reading(&reading.handed_on, real, roots))
        .or_else(|| code_env_reading(&reading.code_vars, real, roots))
        .or_else(|| sub_make_reading(&reading.text, real, runners_env, roots, &reading, budget))
        .or(reading.computed)
}

/// The shells a makefile's `SHELL` may name for gate to read its recipes as shell text.
const SHELLS: [&str; 7] = ["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"];

/// Why a variable a makefile exports (or a `make` line sets: [`super::makefile::Reading::handed_on`])
/// may have its recipes load code a trial wrote, or `None`: one that chooses code
/// ([`loads_code`]) naming a path in a folder the trials write (`export PYTHONPATH :=
/// $(CURDIR)/out`), or holding what make computes (`$(abspath out)`); the environment's own
/// value (`$(PATH)` in `.venv/bin:$(PATH)`) is the job's, not a trial's.
fn code_env_reading(
    handed_on: &[super::makefile::Inherited],
    real: &Path,
    roots: &[PathBuf],
) -> Option<String> {
    handed_on
        .iter()
        .find_map(|(name, value, _)| code_value_reading(name, value, real, roots, false))
}

/// [`code_env_reading`] of one variable `name` holding `value`, read from folder `real`.
fn code_value_reading(
    name: &str,
    value: &super::makefile::Text,
    real: &Path,
    roots: &[PathBuf],
    shell: bool,
) -> Option<String> {
    // A variable that makes a tool run a command whatever its value (`TAR_OPTIONS`'s
    // `--checkpoint-action=exec=…`, git's config: review 90, 41), refused in a plan's
    // `env:` and on the check line alike.
    // (make's own `MAKEFLAGS` is read by [`super::makefile`], which lets plain options be.)
    if let Some(why) =
        runs_a_command(name).filter(|_| !matches!(name, "MAKEFLAGS" | "GNUMAKEFLAGS" | "MFLAGS"))
    {
        return Some(format!(
            "whose makefile sets `{name}`, which {why}; gate does not read what it runs, so \
             leave it to the check's environment"
        ));
    }
    if !chooses_code(name) {
        return None;
    }
    let t = &value.text;
    let mut start = 0;
    let bytes = t.as_bytes();
    for end in (0..=bytes.len()).filter(|&k| {
        k == bytes.len() || matches!(bytes[k], b':' | b' ' | b'\t' | b',' | b'=' | b';')
    }) {
        let (a, b) = (start, end);
        start = end + 1;
        if a >= b {
            continue;
        }
        let piece = &t[a..b];
        // The variable's own value from the environment (`PATH=.venv/bin:$PATH`), not
        // another variable the shell computes (`$PWD/out`: review 90, 14).
        if shell
            && matches!(piece.strip_prefix('$'), Some(v) if v == name || v.strip_prefix('{').and_then(|v| v.strip_suffix('}')) == Some(name))
        {
            continue;
        }
        let computed = value.computed.iter().any(|(x, y)| *x < b && a < *y);
        // A `$` make left (`$<`, `$(@D)`: what each target makes of it) is not read (review
        // 88, 11, 12); in a recipe's own `NAME=v` it is the shell's (`$PATH`), skipped
        // above as the environment's.
        if !computed && piece.contains('$') {
            return Some(format!(
                "whose makefile sets `{name}` to what make computes for each target or the \
                 shell computes (`{piece}`), a variable that chooses the code its recipes \
                 load, which gate does not read; set it plainly to folders outside the ones \
                 the trials write"
            ));
        }
        if computed {
            let whole_ref = value.computed.iter().any(|(x, y)| *x == a && *y == b)
                && piece
                    .strip_prefix("$(")
                    .and_then(|p| p.strip_suffix(')'))
                    .or_else(|| piece.strip_prefix("${").and_then(|p| p.strip_suffix('}')))
                    .is_some_and(super::words::is_name);
            if whole_ref {
                continue;
            }
            return Some(format!(
                "whose makefile sets `{name}` to what make computes (`{piece}`), a variable \
                 that chooses the code its recipes load, which gate does not read; set it \
                 plainly to folders outside the ones the trials write"
            ));
        }
        // A path, or a module by its dotted name (`ignore::out.w.W` imports `out.w`:
        // review 88, 20).
        let module = piece.split('.').next().unwrap_or(piece);
        let in_roots = |w: &str| {
            let p = resolve(&real.join(w));
            roots.iter().any(|r| p.starts_with(r))
        };
        if in_roots(piece) || (!module.is_empty() && in_roots(module)) {
            return Some(format!(
                "whose makefile sets `{name}` naming `{piece}`, in a folder the trials write: \
                 a variable that chooses the code its recipes load, so a trial could decide \
                 the grade; set it to folders outside the ones the trials write"
            ));
        }
    }
    None
}

/// Why a makefile's recipes (`text` as [`super::makefile::evaluate`] rewrites it; `raw` as
/// written) may run a file the trials write, or `None` (review 86, 21, 24, 25):
/// - a recipe's program is a path in a folder the trials write (`out/tool`, `$(MAKE)` set
///   to `$(CURDIR)/out/tool`), or its script is (`sh out/run.sh`, `python3 out/x.py`): the
///   check line's own programs are refused so at load, a recipe's are now too;
/// - the makefile sets `MAKEFILES`, the makefiles every `make` below reads first, which
///   gate does not follow.
fn recipe_runs_a_trials_file(
    raw: &str,
    text: &str,
    real: &Path,
    runners_env: &[(String, String)],
    roots: &[PathBuf],
) -> Option<String> {
    let fix = "run programs and scripts from folders outside the ones the trials write";
    // `… | xargs pytest`, `parallel make …`: what they run their command on comes at run
    // time (review 89, 20).
    for l in text.lines().filter_map(|l| l.strip_prefix('\t')) {
        let words: Vec<&str> = l.split_whitespace().collect();
        let feeds = words
            .iter()
            .any(|w| matches!(name_of(w).as_str(), "xargs" | "parallel"));
        let runs = words.iter().any(|w| {
            w.contains("pytest")
                || matches!(
                    name_of(w).as_str(),
                    "make" | "gmake" | "sh" | "bash" | "python" | "python3"
                )
        });
        if feeds && runs {
            return Some(format!(
                "whose recipe line `{l}` runs a command on words that come at run time, which \
                 gate does not read; {fix}"
            ));
        }
    }
    if raw
        .lines()
        .any(|l| !l.trim_start().starts_with('#') && super::words::mentions_word(l, "MAKEFILES"))
    {
        return Some(
            "whose makefile names `MAKEFILES`, makefiles every `make` below it reads first, \
             which gate does not follow; run the recipes the check needs from the makefile \
             itself"
                .into(),
        );
    }
    // A recipe line is read command by command below, each line on its own: a here-document
    // or a quote that runs on past the line (under `.ONESHELL` the next lines are its
    // text, not commands: review 90, 34, 35), and the other shell forms the check line's
    // allow-list refuses, are refused.
    for l in text
        .replace("\\\n", " ")
        .lines()
        .filter_map(|l| l.strip_prefix('\t'))
    {
        let l = l.trim().trim_start_matches(['@', '-', '+']);
        // `CDPATH=out; cd tests` goes to `out/tests` (review 90, 33).
        if super::words::mentions_word(l, "CDPATH") {
            return Some(format!(
                "whose recipe line `{l}` sets `CDPATH`, which chooses where each `cd` goes; \
                 {fix}"
            ));
        }
        if let Some(why) = recipe_shell_structure(l, 0) {
            return Some(format!(
                "whose recipe line `{l}` has {why}, which gate does not follow in a recipe; \
                 {fix}"
            ));
        }
    }
    recipe_commands(
        text,
        real,
        runners_env,
        false,
        |_| true,
        |c, dir, env, lost| {
            // A program run in a folder the trials write finds its code there first (`cd
            // out && python3 -m json`, `git status` reading `out/.git/config`: review 89,
            // 11, 13); only what prints or tests a file is let be.
            // (pytest's own reach there is read by `recipe_pytest_reach`: `cd out` then
            // `pytest -q ../tests` collects the tests, review 81, h19; `python3 -m pytest`
            // would import `out/pytest.py` first.)
            let quiet = matches!(
                name_of(&c[0]).as_str(),
                "echo"
                    | "printf"
                    | "true"
                    | ":"
                    | "test"
                    | "["
                    | "false"
                    | "exit"
                    | "pytest"
                    | "py.test"
            );
            // The folder as the kernel finds it (`cd tests/../out`, a link `results ->
            // out`: review 90, 05, 07).
            if !quiet && roots.iter().any(|r| resolve(dir).starts_with(r)) {
                return Some(format!(
                    "whose recipe runs `{}` in a folder the trials write, where it may load \
                     what a trial wrote; {fix}",
                    c.join(" ")
                ));
            }
            // After a `cd` gate cannot follow, the program may run in such a folder as well
            // (review 90, 06: `cd o[u]t && python3 -m json.tool`); make and pytest there
            // are read by their own readings.
            // (A literal folder missing when the plan is loaded, `mkdir -p build && cd
            // build`, is made by the recipe outside the folders the trials write: not lost
            // here.)
            let computed_cd = lost.is_some_and(|cd| {
                let words: Vec<String> = cd.split_whitespace().map(str::to_string).collect();
                !matches!(name_of(&words[0]).as_str(), "cd" | "pushd")
                    || super::words::cd_folder(&words)
                        .is_none_or(|d| d == "-" || d.contains(['*', '?', '[', '$', '`', '~']))
            });
            if let Some(cd) = lost.filter(|_| computed_cd)
                && !quiet
                && !matches!(name_of(&c[0]).as_str(), "make" | "gmake" | "remake")
            {
                return Some(format!(
                    "whose recipe runs `{}` after `{cd}`, whose folder gate cannot tell (it may \
                     be one the trials write); {fix}",
                    c.join(" ")
                ));
            }
            if let Some(why) = recipe_command_problem(c, dir, roots) {
                return Some(format!("whose recipe runs `{}`: {why}; {fix}", c.join(" ")));
            }
            // A program that runs the words it reads or finds (`xargs pytest`, `find -exec
            // make`): what it runs them on is not read (review 89, 05, 20, 21).
            if matches!(name_of(&c[0]).as_str(), "xargs" | "find" | "parallel")
                && c[1..].iter().any(|w| {
                    ["pytest", "make", "gmake", "python", "sh", "bash"]
                        .iter()
                        .any(|p| super::words::mentions_word(w, p) || w.contains("pytest"))
                })
            {
                return Some(format!(
                    "whose recipe runs `{}`, whose arguments come at run time, which gate does \
                     not read; {fix}",
                    c.join(" ")
                ));
            }
            // `MAKEFLAGS=D=out $(MAKE)`: the line's own options for every `make` below
            // (review 89, 16).
            if let Some((name, _)) = env.iter().find(|(n, _)| {
                matches!(
                    n.as_str(),
                    "MAKEFLAGS" | "GNUMAKEFLAGS" | "MFLAGS" | "MAKEOVERRIDES" | "MAKEFILES"
                )
            }) {
                return Some(format!(
                    "whose recipe sets `{name}`, options and variables for every `make` it runs, \
                     which gate does not read; {fix}"
                ));
            }
            // `PYTHONPATH=out pytest`: a variable the line sets that chooses the code its
            // command loads (review 88, 26).
            for (name, value) in env {
                if let Some(why) = code_value_reading(
                    name,
                    &super::makefile::Text::literal(value),
                    dir,
                    roots,
                    true,
                ) {
                    return Some(why.replace("whose makefile sets", "whose recipe sets"));
                }
            }
            None
        },
    )
}

/// Whether a recipe's word is one the shell computes when the line runs: a variable
/// (`$$PWD/out`), a command substitution, a glob (`o[u]t/run.sh`) or `~` (review 90, 12,
/// 13, 17, 20, 21). make's own references are expanded before this reading.
fn shell_computed(w: &str) -> bool {
    w.contains(['$', '`', '*', '?', '[']) || w.starts_with('~')
}

/// Shell text inside a recipe line (`sh -c '…'`, `$(…)`, `eval …`) is read this deep.
const RECIPE_DEPTH: usize = 4;

/// The first shell form of recipe line `l` (make's expansion done, its `@-+` prefixes
/// off) that gate does not follow in a recipe, read from the shell's own structure of the
/// line ([`super::words::lex`]: quoted text is a word, not a line), or `None` (review 90):
/// - a here-document, an unclosed quote (under `.ONESHELL` the lines after it are its
///   text: 34, 35), process substitution;
/// - a compound command's word (`if …; then cd out; fi`, `while`, `do`, `case`) or a
///   builtin that chooses what runs or where when the line runs (`trap 'cd out' …`, `hash
///   -p out/ls ls`, `alias`, `enable -f`): the check line's lists ([`super::grammar`]);
///   a function definition;
/// - a program the shell computes (`$$PWD/out/tool`, `./o[u]t/ls`, `` `…` ``), and an
///   interpreter's script, module or loaded file it computes (`sh "$$PWD/out/run.sh"`,
///   `. $$D/env.sh`);
/// - an interpreter that reads its program from its input (`sh < out/run.sh`, `cat
///   out/run.sh | sh`), or after its script (`python3 -i`);
/// - the same in the text of `sh -c '…'`, `eval …` and each `$(…)`, read in turn.
fn recipe_shell_structure(l: &str, depth: usize) -> Option<String> {
    use super::words::Tok;
    let (toks, error) = super::words::lex(l, &[]);
    if let Some(why) = error.filter(|why| {
        why.starts_with("an unclosed")
            || why.contains("here-document")
            || why.contains("process substitution")
            || why.contains("carriage return")
            // bash evaluates a value as arithmetic, `$(…)` in it included (review 92, 02),
            // in a substring's offset, an array's subscript and an indirect name too
            // (`${x:$(cat out/v)}`, `${a[…]}`, `${!f}`: review 93, 50, 54, 57, 60).
            || why.contains("arithmetic")
            || why.contains("parameter expansion")
    }) {
        return Some(why);
    }
    let mut commands: Vec<Vec<&super::words::Word>> = vec![Vec::new()];
    let (mut opened, mut target) = (false, false);
    for t in &toks {
        match t {
            // What a command reads or writes (`< F`, `> F`) is no word of the command.
            Tok::Word(_) if std::mem::take(&mut target) => {}
            Tok::Word(w) => {
                commands.last_mut()?.push(w);
                opened = false;
            }
            // `f() { …; }`: a name, then `(` and `)` at once.
            Tok::Open if commands.last().is_some_and(|c| c.len() == 1) => {
                opened = true;
            }
            Tok::Close if opened => {
                return Some("a shell function".into());
            }
            Tok::In | Tok::Out => target = true,
            _ => {
                opened = false;
                commands.push(Vec::new());
            }
        }
    }
    let computed = |w: &super::words::Word| {
        w.glob || !w.vars.is_empty() || !w.subst.is_empty() || w.raw.contains(['$', '`'])
    };
    for c in commands.iter().filter(|c| !c.is_empty()) {
        // The text of each `$(…)` is a line of its own.
        for w in c {
            for sub in &w.subst {
                if depth >= RECIPE_DEPTH {
                    return Some("command substitutions nested too deep".into());
                }
                if let Some(why) = recipe_shell_structure(sub, depth + 1) {
                    return Some(why);
                }
            }
        }
        let words: Vec<&str> = c.iter().map(|w| w.text.as_str()).collect();
        // Past `!`, `{`, `}` and the assignments before the program.
        let skip = c
            .iter()
            .take_while(|w| matches!(w.raw.as_str(), "!" | "{" | "}"))
            .count();
        let Some(at) = super::words::program_index(&words[skip..]).map(|k| k + skip) else {
            continue;
        };
        let program = c[at];
        let name = name_of(&program.text);
        // `[[ $$(cat out/v) -eq 42 ]]` evaluates what a trial wrote as arithmetic, whose
        // `a[$(…)]` runs a command (review 92, 01).
        if matches!(name.as_str(), "[[" | "((" | "let") {
            return Some(format!("`{name}`, which evaluates values as arithmetic"));
        }
        // `printf -v 'a[…]'`, `test -v 'a[…]'`: a subscript evaluated as arithmetic (review
        // 93, 51, 52).
        // The name is the next word or glued to the option (`-va[…]`: review 94, 56); a
        // plain name (`test -v CI`, `printf -v stamp`) evaluates nothing (94, 91, 92).
        // Every `-v` of the expression (`test -v HOME -a -v "$(…)"`: review 95, 24, 25).
        if matches!(name.as_str(), "printf" | "test" | "[") {
            for k in (at + 1..words.len()).filter(|&k| words[k].starts_with("-v")) {
                let (var, word) = match &words[k][2..] {
                    "" => (
                        words.get(k + 1).copied().unwrap_or(""),
                        c.get(k + 1).copied(),
                    ),
                    glued => (glued, c.get(k).copied()),
                };
                if var.contains(['[', '$', '`']) || word.is_some_and(computed) {
                    return Some(format!(
                        "`{name} -v`, which evaluates a subscript as arithmetic"
                    ));
                }
            }
        }
        // A program read from a descriptor or stdin (`sh /dev/fd/3 3< out/g.sh`, `awk -f
        // /dev/stdin < out/a.awk`: review 92, 03-07).
        let args_text: Vec<&str> = words[at..].to_vec();
        if (super::invoke::family(&name).is_some()
            || !super::invoke::program_files(&args_text).is_empty())
            && let Some(w) = words[at + 1..].iter().find(|w| {
                **w == "-" || super::invoke::is_stdin(w) || super::invoke::is_descriptor(w)
            })
        {
            return Some(format!(
                "`{name}` reading its program from `{w}`, what the line feeds it"
            ));
        }
        if super::words::COMPOUND.contains(&name.as_str())
            || super::words::REFUSED_BUILTINS.contains(&name.as_str())
        {
            return Some(format!(
                "`{name}`, a compound command or a builtin that chooses what runs or where \
                 when the line runs"
            ));
        }
        if computed(program) {
            return Some(format!(
                "a program the shell computes when the line runs (`{}`)",
                program.raw
            ));
        }
        if name == "eval" {
            if depth >= RECIPE_DEPTH {
                return Some("`eval` nested too deep".into());
            }
            let text = words[at + 1..].join(" ");
            if let Some(why) = recipe_shell_structure(&text, depth + 1) {
                return Some(why);
            }
            continue;
        }
        let args = &words[at..];
        let Some(family) = super::invoke::family(&name) else {
            continue;
        };
        let inv = match super::invoke::invocation(args) {
            Ok(inv) => inv,
            Err(why) => return Some(why),
        };
        let word = |k: usize| c[at + k];
        let bad = |k: usize, what: &str| {
            computed(word(k)).then(|| format!("{what} the shell computes (`{}`)", word(k).raw))
        };
        let found = match &inv.runs {
            super::invoke::Runs::Script(k) => bad(*k, "a script"),
            super::invoke::Runs::Module(k, _) => bad(*k, "a module"),
            super::invoke::Runs::Tests(ks) => ks.iter().find_map(|&k| bad(k, "tests")),
            super::invoke::Runs::Stdin => {
                Some("an interpreter that reads its program from its input".into())
            }
            super::invoke::Runs::Code(codes) if family == super::invoke::Family::Shell => {
                if depth >= RECIPE_DEPTH {
                    return Some("shell text nested too deep".into());
                }
                codes
                    .iter()
                    .find_map(|&k| recipe_shell_structure(&word(k).text, depth + 1))
            }
            _ => None,
        };
        if found.is_some() {
            return found;
        }
        if let Some(why) = inv
            .loads
            .iter()
            .find_map(|(k, _, _)| bad(*k, "a file to load"))
        {
            return Some(why);
        }
        // `python3 -i script` (and `-ic`) reads more program from its input after its
        // script.
        if family == super::invoke::Family::Python
            && inv.options.iter().any(|&k| {
                let o = args[k];
                o.starts_with('-') && !o.starts_with("--") && o[1..].contains('i')
            })
        {
            return Some("`python -i`, which reads more program from its input".into());
        }
    }
    None
}

/// Why recipe command `c` (its words, the program first, run in folder `dir`) may run what
/// a trial wrote, read as the `check:` line's own commands are (review 90), or `None`:
/// - a program in a folder the trials write, or a folder `git -C` names that is one or
///   that the shell computes ([`shell_computed`]);
/// - an interpreter read by [`super::invoke::invocation`]: its script, module (`python3
///   -m out.grade`), test files and the files its options load, each in a folder the
///   trials write; inline code that runs text it reads;
/// - the program files a tool reads (`awk -f`, `sed -f`, `jq -f`) in such a folder, and
///   what [`super::tools::problem`] refuses on the check line (`sed`'s `e`, awk's
///   `system`, `perl -d`).
///
/// `c` comes from [`recipe_commands`], which reads quoted text as a line too (a `cd` in
/// it may move what follows): what the shell computes, and the shell's own forms, are
/// read from the line's real structure by [`recipe_shell_structure`].
fn recipe_command_problem(c: &[String], dir: &Path, roots: &[PathBuf]) -> Option<String> {
    let name = name_of(&c[0]);
    let in_roots = |w: &str| {
        let p = resolve(&dir.join(w));
        roots.iter().any(|r| p.starts_with(r))
    };
    if c[0].contains('/') && in_roots(&c[0]) {
        return Some("a program in a folder the trials write".into());
    }
    let args: Vec<&str> = c.iter().map(String::as_str).collect();
    if super::invoke::family(&name).is_some() && !matches!(name.as_str(), "source" | ".") {
        let inv = match super::invoke::invocation(&args) {
            Ok(inv) => inv,
            Err(why) => return Some(why),
        };
        let named = |k: usize, what: &str| {
            let w = &c[k];
            in_roots(w).then(|| format!("{what} in a folder the trials write (`{w}`)"))
        };
        let ran = match &inv.runs {
            super::invoke::Runs::Script(k) => named(*k, "a script"),
            super::invoke::Runs::Tests(ks) => ks.iter().find_map(|&k| named(k, "tests")),
            // `python3 -m out.grade` imports from the folder it runs in first.
            super::invoke::Runs::Module(_, module) => {
                let top = module.split('.').next().unwrap_or(module);
                if in_roots(top) || roots.iter().any(|r| resolve(dir).starts_with(r)) {
                    Some(format!(
                        "a module in a folder the trials write (`{module}`)"
                    ))
                } else {
                    None
                }
            }
            // Read with the line's real structure ([`recipe_shell_structure`]).
            super::invoke::Runs::Stdin => None,
            super::invoke::Runs::Code(_) => match super::words::program_text(c) {
                super::words::Fed::No => None,
                super::words::Fed::Any(..) => {
                    Some("inline code that runs text it reads, which gate does not read".into())
                }
                super::words::Fed::Loads(literals, _) => literals
                    .iter()
                    .find(|l| in_roots(l))
                    .map(|l| format!("inline code loading `{l}`, in a folder the trials write")),
            },
            super::invoke::Runs::Nothing => None,
        };
        if ran.is_some() {
            return ran;
        }
        if let Some((_, v, _)) = inv.loads.iter().find(|(_, v, _)| in_roots(v)) {
            return Some(format!(
                "an option loading `{v}`, in a folder the trials write"
            ));
        }
    }
    if let Some((_, f, _)) = super::invoke::program_files(&args)
        .into_iter()
        .find(|(_, f, _)| in_roots(f))
    {
        return Some(format!("a program file `{f}` in a folder the trials write"));
    }
    if name == "git" {
        let mut k = 1;
        while let Some(w) = c.get(k) {
            k += 1;
            let folder = match w.as_str() {
                "-C" | "--git-dir" | "--work-tree" => c.get(k).cloned(),
                _ => w
                    .strip_prefix("--git-dir=")
                    .or_else(|| w.strip_prefix("--work-tree="))
                    .map(str::to_string),
            };
            if let Some(f) = folder
                && (shell_computed(&f) || in_roots(&f))
            {
                return Some(format!(
                    "git over `{f}`, a folder the trials write or one the shell computes, whose \
                     git configuration may run what a trial wrote"
                ));
            }
        }
    }
    if name != "make" && name != "gmake" && name != "remake" {
        let writable = |p: &Path| roots.iter().any(|r| resolve(p).starts_with(r));
        let beneath = |p: &Path| roots.iter().any(|r| r.starts_with(resolve(p)));
        if let Some(why) = super::tools::problem(&args, dir, &writable, &beneath) {
            return Some(why);
        }
    }
    None
}

/// [`make_reading`] of a makefile's `text` as [`super::makefile::evaluate`] rewrites it:
/// its shell, its runners' variables, its recipes' pytest.
fn make_text_reading(
    text: &str,
    words: &[String],
    real: &Path,
    runners_env: &[(String, String)],
    roots: &[PathBuf],
    as_written: bool,
) -> Option<String> {
    let fix = "name the test folders in the recipe (`pytest tests/`), outside the folders the \
               trials write";
    for l in text.lines() {
        let t = l.trim_start();
        if t.starts_with('#') || t.starts_with("unexport") {
            continue;
        }
        if super::words::mentions_word(t, "BASH_ENV") {
            return Some(format!(
                "whose makefile sets `BASH_ENV`, a script bash runs before every recipe, which \
                 gate does not follow; {fix}"
            ));
        }
        let t = t.strip_prefix("export ").unwrap_or(t).trim_start();
        let t = t.strip_prefix("override ").unwrap_or(t).trim_start();
        let Some(rest) = t.strip_prefix("SHELL") else {
            continue;
        };
        let Some(value) = ["::=", ":=", "?=", "+=", "!=", "="]
            .iter()
            .find_map(|op| rest.trim_start().strip_prefix(op))
        else {
            continue;
        };
        let value = value.trim();
        // The shell's name (after `env`): a shell, whose recipes are read as shell text
        // (review 87, 32: `SHELL := python3` runs each recipe line as Python).
        let shell = value
            .split_whitespace()
            .map(|w| w.rsplit('/').next().unwrap_or(w))
            .find(|w| *w != "env");
        let safe = !value.contains(['$', '`', '\\'])
            && shell.is_some_and(|w| SHELLS.contains(&w))
            // Its options: the error options only (`sh -l` is a login shell, which reads
            // `$HOME/.profile`: review 88, 10).
            && value
                .split_whitespace()
                .filter_map(|w| w.strip_prefix('-'))
                .all(|o| !o.is_empty() && o.bytes().all(|c| b"euxvo".contains(&c)))
            // `bash`, `/bin/bash`, `/usr/bin/env bash -eu`: absolute paths outside the
            // folders the trials write, names and options; no relative path.
            && value.split_whitespace().all(|w| match w.starts_with('/') {
                true => !roots.iter().any(|r| resolve(Path::new(w)).starts_with(r)),
                false => !w.contains('/'),
            });
        if !safe {
            return Some(format!(
                "whose makefile runs every recipe through `SHELL = {value}`, which may not \
                 be a shell, or be a program the trials write or one make computes; name an \
                 installed shell (`SHELL := /bin/bash`)"
            ));
        }
    }
    if !mentions_pytest(text) {
        return None;
    }
    let mut named: Vec<&str> = RUNNER_VARS.to_vec();
    named.push("CDPATH");
    if let Some(var) = words[1..]
        .iter()
        .find_map(|w| super::words::mentions_any(w, &named))
    {
        return Some(format!(
            "whose own words set `{var}`, a variable that chooses what the recipe's test \
             runner reads; set it in the task's `env:` or the recipe"
        ));
    }
    let oneshell = text.contains(".ONESHELL");
    let joined = text.replace("\\\n", " ");
    let mut env: Vec<(String, String)> = Vec::new();
    for l in joined.lines() {
        let t = l.trim_start().trim_start_matches(['@', '-', '+']);
        if t.starts_with('#') {
            continue;
        }
        let recipe = l.starts_with('\t');
        // A recipe line that only prints (`@echo "set PYTEST_ADDOPTS for more"`).
        if recipe
            && (t.starts_with("echo ") || t.starts_with("printf "))
            && !t.contains(['$', '`', ';', '&', '|', '>'])
        {
            continue;
        }
        let Some(var) = super::words::mentions_any(l, &named) else {
            continue;
        };
        // A plain prefix of a recipe line is read with its line, below.
        if recipe && !oneshell && !l.contains('$') {
            continue;
        }
        // `[export] [override] NAME op literal` outside a recipe: the recipe's environment;
        // a bare `export NAME` only passes it on.
        let a = t.strip_prefix("export ").unwrap_or(t).trim_start();
        if !recipe && a.trim_end() == var {
            continue;
        }
        let a = a.strip_prefix("override ").unwrap_or(a).trim_start();
        let assigned = a.strip_prefix(var).and_then(|rest| {
            ["::=", ":=", "?=", "+=", "="]
                .iter()
                .find_map(|op| rest.trim_start().strip_prefix(op))
        });
        match assigned {
            Some(v) if !recipe && !v.contains(['$', '`']) && !text.contains("define ") => {
                env.push((var.to_string(), v.trim().to_string()));
            }
            _ => {
                return Some(format!(
                    "whose makefile sets `{var}`, a variable that chooses what the recipe's \
                     test runner reads, in a way gate does not read (a value make computes, \
                     a continued or `.ONESHELL` line); set it in the task's `env:`"
                ));
            }
        }
    }
    let env: Vec<(String, String)> = env.into_iter().chain(runners_env.iter().cloned()).collect();
    recipe_pytest_reach(&joined, real, &env, roots, as_written).map(|_| {
        format!(
            "whose recipe runs `pytest` over a folder the trials write (or one that holds \
             one): a trial could write a `conftest.py` there and decide the grade; {fix}"
        )
    })
}

/// Why a `make` a makefile's recipes run (`$(MAKE) -C sub`, `cd sub && make`, `make -f
/// other.mk`; `text` as [`super::makefile::evaluate`] rewrites it, the makefile in `real`)
/// may run what a trial wrote, or `None`: its makefile lies in a folder the trials write, is
/// missing at load or not a regular file, its folder is lost to a `cd` gate cannot tell, or
/// it is read as the check line's makefile is and is refused ([`make_reading_at`]). Each
/// reading spends one of `budget`.
fn sub_make_reading(
    text: &str,
    real: &Path,
    runners_env: &[(String, String)],
    roots: &[PathBuf],
    reading: &super::makefile::Reading,
    budget: &mut usize,
) -> Option<String> {
    let is_make = |w: &str| matches!(name_of(w).as_str(), "make" | "gmake" | "remake");
    let wanted = |l: &str| {
        ["make", "gmake", "remake"]
            .iter()
            .any(|m| super::words::mentions_word(l, m))
    };
    recipe_commands(text, real, runners_env, false, wanted, |c, dir, _, lost| {
        let fix = "run the recipes the check needs from the check line's makefile, outside \
                   the folders the trials write";
        if !is_make(&c[0]) {
            // A `make` a program runs (`env -C out make`, `timeout 60 make`): its folder and
            // words are the program's to choose (review 88, 17).
            // (Any program but one that prints; a program the shell computes, `$$(command
            // -v make)`, on a line that names make: review 89, 05, 06, 07, 15.)
            let prints = matches!(name_of(&c[0]).as_str(), "echo" | "printf" | "true" | ":");
            if !prints && (c[1..].iter().any(|w| is_make(w)) || c[0].contains(['$', '`'])) {
                return Some(format!(
                    "whose recipe runs `make` through `{}`, which gate does not follow; {fix}",
                    c.join(" ")
                ));
            }
            return None;
        }
        if let Some(cd) = lost {
            return Some(format!(
                "whose recipe runs `make` after a `cd` whose folder gate cannot tell (`{cd}`); \
                 {fix}"
            ));
        }
        let (at, file) = match super::makefile::sub_make(c, dir) {
            Ok(x) => x,
            Err(why) => return Some(why),
        };
        let at = resolve(&at);
        let path = match &file {
            Some(f) => resolve(&super::invoke::resolve(f, &at)),
            None => super::invoke::makefiles(&at)
                .into_iter()
                .find(|m| m.exists())
                .map_or_else(|| at.join("Makefile"), |m| resolve(&m)),
        };
        if roots
            .iter()
            .any(|r| at.starts_with(r) || path.starts_with(r))
        {
            return Some(format!(
                "whose recipe runs `{}`, over the makefile `{}` in a folder the trials write: \
                 a trial could write its recipes and decide the grade; {fix}",
                c.join(" "),
                path.display()
            ));
        }
        // A regular file only: a FIFO would hold the load up (review 83, l01, l02).
        let text = super::makefile::read_text(&path);
        let Some(text) = text else {
            return Some(format!(
                "whose recipe runs `{}` over the makefile `{}`, which is not a regular file at \
                 load, so gate cannot read it; {fix}",
                c.join(" "),
                path.display()
            ));
        };
        if *budget == 0 {
            return Some(format!(
                "whose recipes run `make` more than gate reads ({SUB_MAKES} makefiles); {fix}"
            ));
        }
        *budget -= 1;
        make_reading_at(
            &text,
            c,
            &at,
            runners_env,
            roots,
            &reading.handed_on,
            budget,
        )
        .map(|why| {
            format!(
                "whose recipe runs `{}` over `{}`, {why}",
                c.join(" "),
                path.display()
            )
        })
    })
}

/// Each command of a makefile's recipes (`text` as [`super::makefile::evaluate`] rewrites
/// it: a recipe line after a tab; the makefile in `real`) on a line `wanted` or `cd` names,
/// handed to `each` with the folder it runs in, its environment (the line's assignments,
/// then `runners_env`) and the `cd` whose folder gate lost before it, if any; the first
/// answer `each` gives. A line runs in a shell of its own from the makefile's folder, or,
/// under `.ONESHELL`, all of a recipe's lines in one (a `cd` holds for the lines after it).
fn recipe_commands<T>(
    text: &str,
    real: &Path,
    runners_env: &[(String, String)],
    as_written: bool,
    wanted: impl Fn(&str) -> bool,
    mut each: impl FnMut(&[String], &Path, &[(String, String)], Option<&String>) -> Option<T>,
) -> Option<T> {
    let oneshell = text.contains(".ONESHELL");
    let mut dir = real.to_path_buf();
    let mut lost = None;
    for l in text.lines() {
        if !oneshell {
            (dir, lost) = (real.to_path_buf(), None);
        }
        // The rewritten text puts each recipe line after a tab; read as written, every
        // line is (a `t: ; cmd` rule, a moved recipe prefix), as before review 85.
        let l = match l.strip_prefix('\t') {
            Some(l) => l,
            None if as_written && !is_make_assignment(l) => l,
            None => continue,
        };
        // (`pushd out`, `env -C out` change the folder as `cd` does: review 88, 17, 18.)
        if !(wanted(l) || l.contains("cd") || l.contains("pushd") || l.contains("env")) {
            continue;
        }
        // make's own prefixes of a recipe line (`@` silent, `-` errors ignored, `+` always).
        let l = l.trim().trim_start_matches(['@', '-', '+']);
        let tokens = super::words::line_tokens(l, &[], 0);
        // `env -C DIR` / `--chdir` (or a prefix of it) runs its command elsewhere (review
        // 88, 17): the folder is lost to gate from there.
        let words: Vec<&str> = l.split_whitespace().collect();
        if words.iter().enumerate().any(|(k, w)| {
            name_of(w) == "env"
                && words[k + 1..]
                    .iter()
                    .take_while(|o| o.starts_with('-') || o.contains('='))
                    .any(|o| {
                        let opt = o.split('=').next().unwrap_or(o);
                        o.starts_with("-C") || (opt.len() > 3 && "--chdir".starts_with(opt))
                    })
        }) {
            lost = Some(l.to_string());
        }
        let env: Vec<(String, String)> = (line_assignments(&tokens).into_iter())
            .chain(runners_env.iter().cloned())
            .collect();
        let mut folders = super::words::Folders::new();
        for (scope, c) in super::words::scoped_commands(&tokens) {
            folders.at(&scope, &mut dir);
            if matches!(name_of(&c[0]).as_str(), "cd" | "pushd") {
                // `cd -` (the folder before), a glob (`cd [o]ut`) and a folder the shell
                // computes name what gate cannot tell (review 89, 17, 18).
                match super::words::cd_folder(&c)
                    .filter(|d| *d != "-" && !d.contains(['*', '?', '[', '$', '`', '~']))
                    .map(|d| dir.join(d))
                    .filter(|d| d.is_dir())
                {
                    Some(d) => dir = d,
                    None => lost = Some(c.join(" ")),
                }
                continue;
            }
            // `popd`, `eval …`, a sourced script (`. ./go.sh`): the folder after them is the
            // shell's to choose (review 89, 01, 03, 04).
            if matches!(name_of(&c[0]).as_str(), "popd" | "eval" | "." | "source") {
                lost = Some(c.join(" "));
            }
            if let Some(answer) = each(&c, &dir, &env, lost.as_ref()) {
                return Some(answer);
            }
        }
    }
    None
}

/// Why a command make runs while it reads makefile `raw` (`$(shell …)`, `VAR != …`) may run
/// what gate does not read, or `None`: one built from variables (`$(shell $(CMD))`, where
/// `CMD` may hold `cd out && pytest`), or one naming pytest, `cd` or make (review 86, 07-09:
/// its status or output chose the recipe). An assignment's value is read as a value, not as
/// a command ([`is_make_assignment`]), so such commands are read here.
fn make_shell_reading(raw: &str) -> Option<String> {
    for l in raw.lines() {
        let t = l.trim_start();
        if t.starts_with('#') {
            continue;
        }
        let calls = ["$(shell", "${shell"]
            .iter()
            .flat_map(|f| t.match_indices(f).map(|(k, _)| &t[k + 2..]))
            .chain(t.split_once("!=").map(|(_, v)| v));
        for call in calls {
            let named = ["pytest", "cd", "make", "pushd"]
                .iter()
                .any(|w| super::words::mentions_word(call, w))
                || call.contains("pytest");
            if named || call.contains("$(") || call.contains("${") {
                return Some(format!(
                    "whose makefile runs a command while make reads it (`{}`) that names a \
                     test runner or `cd`, or that make builds from variables, which gate \
                     does not read; run it from a recipe, written plainly",
                    t.trim()
                ));
            }
        }
    }
    None
}

/// Whether makefile line `l` (not a recipe line) assigns a variable (`[export] [override]
/// NAME op value`): its value is not a command, though read as one it may look like one
/// (`PYTEST = python3 -m pytest`).
fn is_make_assignment(l: &str) -> bool {
    let t = l.trim_start();
    let t = t.strip_prefix("export ").unwrap_or(t).trim_start();
    let t = t.strip_prefix("override ").unwrap_or(t).trim_start();
    let Some(eq) = t.find('=') else {
        return false;
    };
    let name = t[..eq].trim_end().trim_end_matches([':', '?', '+', '!']);
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// Where a makefile's recipes (`text` as [`super::makefile::evaluate`] rewrites it, the
/// makefile in `real`) run pytest over a folder of `roots` ([`pytest_reach`]), if any. Each
/// recipe line is read with the shell's quoting, with its own assignments
/// (`PYTEST_ADDOPTS='-p x' pytest`, review 81) and its `cd`s ([`recipe_commands`]). A
/// pytest after a `cd` whose folder gate cannot tell (`cd $(DIR)`) counts as reaching
/// anything.
fn recipe_pytest_reach(
    text: &str,
    real: &Path,
    runners_env: &[(String, String)],
    roots: &[PathBuf],
    as_written: bool,
) -> Option<PytestReach> {
    recipe_commands(
        text,
        real,
        runners_env,
        as_written,
        mentions_pytest,
        |c, dir, env, lost| {
            if !c.iter().any(|w| mentions_pytest(w)) {
                return None;
            }
            if let Some(cd) = lost {
                return Some(PytestReach::Computed(cd.clone()));
            }
            pytest_reach(c, dir, env, roots, false)
        },
    )
}

/// Whether a variable a sourced file sets matters to what a check runs or loads: a runner's
/// ([`RUNNER_VARS`]), `CDPATH`, a search path or option variable ([`loads`]: `PATH`,
/// `PYTHONPATH`, `BASH_ENV`, `NODE_OPTIONS`, …), one refused outright ([`runs_a_command`]),
/// or an option of npm, pnpm or yarn.
pub(super) fn line_var_matters(name: &str) -> bool {
    RUNNER_VARS.contains(&name)
        || name == "CDPATH"
        || name == "ENV"
        || name.starts_with("PYTEST")
        || name.starts_with("TOX_")
        || name.starts_with("CARGO")
        || loads(name).is_some()
        || runs_a_command(name).is_some()
}

/// Whether a variable a makefile sets chooses the code its recipes' programs run or load:
/// one of [`super::words::loads_code`] (`PATH`, `HOME`, `PYTHON*`), or one the check line's
/// own environment is read for ([`line_var_matters`]: `RUSTC_WRAPPER`, `JAVA_TOOL_OPTIONS`,
/// `CDPATH`, …; review 90, 42).
fn chooses_code(name: &str) -> bool {
    super::words::loads_code(name) || line_var_matters(name)
}

/// Variables that choose what a test runner reads ([`pytest_reach`]'s `PYTEST_ADDOPTS` and
/// `PYTEST_PLUGINS`, cargo's target folder, tox's work folder), in every value a command
/// of a `check:` line may see: those the line assigns (`PYTEST_PLUGINS=out.plug pytest`,
/// `export …;`, `env …`, make's), the plan's `env:`, and gate's own environment where the
/// plan does not set the name. Each reading that uses it asks every value, so a line that
/// assigns one for a command other than the runner's is read as if it reached the runner
/// too (stricter, never looser).
fn runners_env(env: &[(String, String)], line: &[(String, String)]) -> Vec<(String, String)> {
    let inherited = RUNNER_VARS.iter().filter_map(|name| {
        (!env.iter().any(|(k, _)| k == name))
            .then(|| std::env::var(name).ok().map(|v| (name.to_string(), v)))
            .flatten()
    });
    line.iter()
        .filter(|(k, _)| RUNNER_VARS.contains(&k.as_str()))
        .cloned()
        .chain(env.iter().cloned())
        .chain(inherited)
        .collect()
}

/// The folder of the manifest `cargo --manifest-path PATH` (or `=PATH`) names.
fn cargo_manifest_dir(words: &[String]) -> Option<String> {
    if name_of(&words[0]) != "cargo" {
        return None;
    }
    let path = words.iter().enumerate().find_map(|(k, w)| {
        w.strip_prefix("--manifest-path=")
            .map(str::to_string)
            .or_else(|| (w == "--manifest-path").then(|| words.get(k + 1).cloned())?)
    })?;
    let parent = Path::new(&path).parent()?.to_string_lossy().into_owned();
    Some(if parent.is_empty() {
        ".".into()
    } else {
        parent
    })
}

/// The fix every finding of [`definition_findings`] names.
const WRITES_FIX: &str = "list the folders the trials write in the task's `writes:`, with \
                          what the check reads outside them, and the rest of its folder is \
                          read-only to them (docs/trust.md, \"The folders the trials write\")";

/// Each task (its plan line and one line saying why) whose `check:` line reads what decides
/// the grade from a folder the trials write:
/// - a task runner ([`RUNNERS`]: `npm test`, `make check`, `pytest`, `python3 -m pytest`)
///   run there (review 7, c38, c39): it reads what to run, or its options, from files there
///   or in a folder above (`scripts.test: exit 0`, a `pytest.ini` with `addopts =
///   --collect-only`);
/// - a grader script that runs such a runner there (review 22);
/// - a grader that chooses where its interpreter looks for code there (reviews 25, 26, 28);
/// - any other line that runs node there: node's tools read configuration and packages
///   there that the node walls find by reading text (reviews 56, 57).
fn definition_findings(plan: &Plan) -> Vec<Finding> {
    let roots = super::state::writable_roots(plan);
    let guarded = super::state::guarded_folders(plan);
    let mut out: Vec<Finding> = Vec::new();
    for t in &plan.tasks {
        let first = out.len();
        definition_findings_of(t, &roots, &guarded, &mut out);
        // A task that lists `writes:` already (review 71, 25: `writes: [.]`) is told to
        // narrow the list, not to write one.
        if let Some(writes) = &t.writes {
            let listed = writes
                .iter()
                .map(|w| format!("`{w}`"))
                .collect::<Vec<_>>()
                .join(", ");
            let narrow = format!(
                "narrow the task's `writes:` ({listed}) to the folders the trials write, with \
                 what the check reads outside them (docs/trust.md, \"The folders the trials \
                 write\")"
            );
            for f in &mut out[first..] {
                f.message = f.message.replace(WRITES_FIX, &narrow);
            }
        }
    }
    out
}

/// [`definition_findings`] of one task, pushed on `out`.
fn definition_findings_of(
    t: &super::Task,
    roots: &[PathBuf],
    guarded: &[PathBuf],
    out: &mut Vec<Finding>,
) {
    let mut beneath = std::collections::HashMap::new();
    'lines: for (line, cwd, env) in super::state::check_lines(t) {
        let mut dir = cwd.clone();
        // A `cd` whose folder gate cannot tell (`cd >/dev/null app`: an output
        // redirection ends the words gate reads as the command, review 70, 03).
        let mut lost = false;
        let tokens = tokens_of(line, env);
        let runners_env = runners_env(env, &line_assignments(&tokens));
        let commands = super::words::scoped_commands(&tokens);
        let mut folders = super::words::Folders::new();
        let runs = commands.iter().flat_map(|(scope, c)| {
            runs_within(c)
                .into_iter()
                .map(move |(words, found_in)| (scope, words, found_in))
        });
        for (scope, words, found_in) in runs {
            folders.at(scope, &mut dir);
            let name = name_of(&words[0]);
            if matches!(name.as_str(), "cd" | "pushd") {
                match super::words::cd_folder(&words)
                    .map(|d| dir.join(d))
                    .filter(|d| d.is_dir())
                {
                    Some(d) => dir = d,
                    None => lost = true,
                }
                continue;
            }
            // `python3 -m out.grade`: a module the trials write (review 70, 16).
            if is_python(&name)
                && !env
                    .iter()
                    .any(|(k, v)| k == "PYTHONSAFEPATH" && !v.is_empty())
                && let Some(module) = module_run(&words)
                && let Some(first) = module.split('.').next()
                && let at = resolve(&dir.join(first))
                && roots.iter().any(|r| at.starts_with(r))
                && !guarded.iter().any(|g| at.starts_with(g))
            {
                out.push(Finding {
                    at: t.check_at_of(line),
                    message: format!(
                        "task `{}`: `check:` runs the module `{module}`, which lies in a \
                         folder the trials write: a trial could write it and decide the \
                         grade; keep the grader outside the folders the trials write (the \
                         task's `writes:`)",
                        t.id
                    ),
                    refused: true,
                });
                break 'lines;
            }
            // `node --env-file F` sets the variables F names before node reads them:
            // `NODE_OPTIONS=--require ./out/x.js` there loads what a trial wrote (review
            // 91, 51). A variable there that chooses code is refused, as in `env:`.
            if matches!(name.as_str(), "node" | "nodejs")
                && let Some((file, var)) = env_file_code_var(&words, &dir)
            {
                out.push(Finding {
                    at: t.check_at_of(line),
                    message: format!(
                        "task `{}`: `check:` runs node with `--env-file {file}`, which sets \
                         `{var}`, a variable that chooses the code node loads, which gate \
                         does not read there; set it in the task's `env:`",
                        t.id
                    ),
                    refused: true,
                });
                break 'lines;
            }
            // A configuration npm, yarn or mocha reads by itself that names code in a folder
            // the trials write (review 94, 73: `.npmrc`'s `node-options=--require
            // ./out/x.js`; 76: `.mocharc.yml`'s `require: ./out/x.js`).
            if t.writes.is_some()
                && let Some((file, why)) = (may_run_node_tools(&name, &words))
                    .then(|| node_config_code(&words, &dir, roots))
                    .flatten()
                    .or_else(|| package_scripts_config_code(&name, &words, &dir, roots))
                    .or_else(|| indirect_config_code(&name, &words, cwd, roots, &mut beneath))
            {
                out.push(Finding {
                    at: t.check_at_of(line),
                    message: format!(
                        "task `{}`: `check:` runs `{name}`, which reads `{}`: {why}; a trial \
                         could put code there and decide the grade; point it outside the \
                         folders the trials write, or {WRITES_FIX}",
                        t.id,
                        file.display()
                    ),
                    refused: true,
                });
                break 'lines;
            }
            // jest and vitest collect every test file beneath the folder they run in (their
            // arguments are patterns matched against each path, not folders): a trial's
            // `out/tests/a.test.js` that exits 0 runs with the plan's own (review 91, 62-68).
            if let Some(tool) = node_collector(&words, &dir, roots) {
                // Its root: the nearest folder up from where it runs with a `package.json` or
                // a configuration of its own (`cd tests && npx jest` still collects the
                // task's folder, whose `package.json` it finds), else that folder.
                let here = resolve(&dir);
                let real = here
                    .ancestors()
                    .find(|a| {
                        // `package.json`, or a jest or vitest configuration of
                        // [`NODE_CONFIGS`] (jest's own names but `.mts`/`.cts`).
                        std::iter::once(&"package.json")
                            .chain(NODE_CONFIGS.iter().filter(|n| {
                                (n.starts_with("jest.config.")
                                    && !n.ends_with(".mts")
                                    && !n.ends_with(".cts"))
                                    || n.starts_with("vitest.config.")
                            }))
                            .any(|n| a.join(n).is_file())
                    })
                    .unwrap_or(&here)
                    .to_path_buf();
                if let Some(root) = (!roots.iter().any(|r| real.starts_with(r)))
                    .then(|| roots.iter().find(|r| r.starts_with(&real)))
                    .flatten()
                {
                    out.push(Finding {
                        at: t.check_at_of(line),
                        message: format!(
                            "task `{}`: `check:` runs {} in `{}`, which {} every test file \
                             beneath that folder (its arguments are patterns, not folders), \
                             and `{}` there is a folder the trials write: a trial \
                             could add a test file that exits 0 and decide the grade; run it \
                             from a project (its `package.json`) that holds none of the folders \
                             the trials write, or move them out of it (the task's `writes:`)",
                            t.id,
                            // What gate could not read further names no runner.
                            if tool.starts_with("a workspace") || tool.starts_with("scripts") {
                                tool.to_string()
                            } else {
                                format!("`{tool}`")
                            },
                            real.display(),
                            if tool.starts_with("a workspace") || tool.starts_with("scripts") {
                                "may run a runner that collects"
                            } else {
                                "collects"
                            },
                            root.display()
                        ),
                        refused: true,
                    });
                    break 'lines;
                }
            }
            let runner = runner_of(&name, &words).unwrap_or(name.as_str());
            let Some((runner, files)) = RUNNERS.iter().find(|(r, _)| *r == runner) else {
                continue;
            };
            if lost && !NODE_RUNNERS.contains(runner) {
                out.push(Finding {
                    at: t.check_at_of(line),
                    message: format!(
                        "task `{}`: `check:` runs `{runner}` after a `cd` whose folder gate \
                         cannot tell (`cd >/dev/null DIR`): it may run in a folder the \
                         trials write, where a trial could write its {files}; write the \
                         `cd` plainly (`cd DIR && …`), and {WRITES_FIX}",
                        t.id
                    ),
                    refused: true,
                });
                break 'lines;
            }
            // `make -f F` names its makefile, a grader protected as a script is; `make -C
            // DIR` reads DIR's (review 13, b20), which is named then.
            let named =
                super::invoke::program_files(&words.iter().map(String::as_str).collect::<Vec<_>>());
            if named.iter().any(|(_, _, makefile_of)| !makefile_of) {
                // Its recipes are read all the same (review 86, 23: `make -B -f Makefile
                // test` over `test: ; pytest -q out` was passed over): the makefile make
                // reads, from the folder it runs in.
                // `make -f A -f B` (or `--eval`, `-I`, `-e`) reads text gate does not
                // read: refused, not passed over (review 87, 33).
                if *runner == "make"
                    && let Err(why) = super::makefile::sub_make(&words, &dir)
                {
                    out.push(Finding {
                        at: t.check_at_of(line),
                        message: format!(
                            "task `{}`: `check:` runs `make`, {}",
                            t.id,
                            why.replace("whose recipe runs", "which runs")
                        ),
                        refused: true,
                    });
                    break 'lines;
                }
                if *runner == "make"
                    && let Ok((at, Some(file))) = super::makefile::sub_make(&words, &dir)
                {
                    let at = resolve(&std::path::absolute(&at).unwrap_or(at));
                    let path = resolve(&super::invoke::resolve(&file, &at));
                    // A regular file only (a FIFO would hold the load up); one the trials
                    // write is refused as a grader is.
                    let text = (!roots.iter().any(|r| path.starts_with(r)))
                        .then(|| super::makefile::read_text(&path))
                        .flatten();
                    if let Some(text) = text
                        && let Some(why) =
                            make_reading(&text, &words, &at, env, &runners_env, roots)
                    {
                        out.push(Finding {
                            at: t.check_at_of(line),
                            message: format!("task `{}`: `check:` runs `make`, {why}", t.id),
                            refused: true,
                        });
                        break 'lines;
                    }
                }
                continue;
            }
            let dir = match named.first() {
                Some((_, folder, _)) => super::invoke::resolve(folder, &dir),
                // `cargo --manifest-path app/Cargo.toml` reads `app/` (review 69, 16).
                None => cargo_manifest_dir(&words)
                    .map_or_else(|| dir.clone(), |m| super::invoke::resolve(&m, &dir)),
            };
            let real = resolve(&std::path::absolute(&dir).unwrap_or_else(|_| dir.clone()));
            // The folder a runner builds what it runs into, where the trials write, lets
            // a trial plant it: cargo's test binaries, found up to date in its target
            // folder (review 69, 07: `writes: [src, target]`, each binary replaced by
            // `exit 0`; `--target-dir`, `CARGO_TARGET_DIR`, `CARGO_BUILD_TARGET_DIR`:
            // review 70, 14), tox's environments in `.tox` (a `.pth`: review 71, 47).
            let built = match *runner {
                "cargo" => Some((
                    cargo_target(&words, &runners_env, &dir, &real),
                    "target",
                    "builds its tests into `{}` and runs those it finds up to date there, \
                     in",
                )),
                "tox" => Some((
                    env_folders(&runners_env, &["TOX_WORK_DIR"], &dir, real.join(".tox")),
                    ".tox",
                    "runs the tests from the environments it builds in `{}`,",
                )),
                _ => None,
            };
            if let Some((folders, name, how)) = built
                && !roots.iter().any(|r| real.starts_with(r))
                && let Some(folder) = folders.iter().find(|f| overlaps_a_root(f, roots))
            {
                out.push(Finding {
                    at: t.check_at_of(line),
                    message: format!(
                        "task `{}`: `check:` runs `{runner}`, which {} a folder the trials \
                         write: a trial could plant what it runs there and decide the grade; \
                         {WRITES_FIX}, `{name}` left out of them",
                        t.id,
                        how.replace("{}", &folder.display().to_string())
                    ),
                    refused: true,
                });
                break 'lines;
            }
            // make's recipes (the plan's own makefile, read-only to the trials) that run
            // pytest over a folder the trials write (review 71, 40: `test: ; pytest -q`
            // with `writes: [src]`, a trial's `src/conftest.py`).
            if *runner == "make" && !roots.iter().any(|r| real.starts_with(r)) {
                // (`make -f F` names its makefile, a grader, and was passed over above.)
                let file = super::invoke::makefiles(&real)
                    .into_iter()
                    .find(|m| m.is_file());
                let text = file
                    .and_then(|f| super::makefile::read_text(&f))
                    .unwrap_or_default();
                match make_reading(&text, &words, &real, env, &runners_env, roots) {
                    None => {}
                    Some(why) => {
                        out.push(Finding {
                            at: t.check_at_of(line),
                            message: format!("task `{}`: `check:` runs `make`, {why}", t.id),
                            refused: true,
                        });
                        break 'lines;
                    }
                }
            }
            // `find START -execdir RUNNER`: the runner runs in the folder of each file
            // found beneath START, any of which may be one the trials write.
            if let Some(starts) = &found_in {
                let hit = starts
                    .iter()
                    .map(|s| resolve(&dir.join(s)))
                    .find(|s| overlaps_a_root(s, roots));
                if let Some(start) = hit {
                    out.push(Finding {
                        at: t.check_at_of(line),
                        message: format!(
                            "task `{}`: `check:` runs `{runner}` through `find -execdir` in \
                             the folders it finds beneath `{}`, where the trials write: a \
                             trial could {} and decide the grade; {WRITES_FIX}",
                            t.id,
                            start.display(),
                            format_args!("write its {files} there")
                        ),
                        refused: !NODE_RUNNERS.contains(runner),
                    });
                    break 'lines;
                }
            }
            // A folder gate holds read-only inside one the trials write is no shelter: the
            // runners read their definitions from the folders above too (review 19: `cd
            // graders && npm test` finds the trial's `./node_modules/.bin`, `pytest` its
            // `pytest.ini` and `conftest.py`).
            let held = guarded.iter().any(|g| real.starts_with(g));
            // make reads the makefile of its own folder only (`make -C lib`).
            if roots.iter().any(|r| real.starts_with(r)) && !(held && *runner == "make") {
                let (folder, how) = if held {
                    (
                        "a folder gate holds read-only inside one the trials write",
                        format!("create its {files} in a folder above"),
                    )
                } else {
                    (
                        "a folder the trials write",
                        format!("rewrite or create its {files} there (or in a folder above)"),
                    )
                };
                out.push(Finding {
                    at: t.check_at_of(line),
                    message: format!(
                        "task `{}`: `check:` runs `{runner}` in `{}`, {folder}: a trial \
                         could {how} and decide the grade; {WRITES_FIX}, or name the grader \
                         on the `check:` line (`python3 -I graders/check.py`) and keep its \
                         definition outside the task's folder",
                        t.id,
                        real.display()
                    ),
                    refused: !NODE_RUNNERS.contains(runner),
                });
                break 'lines;
            }
            // pytest reads its configuration from the folders above its arguments, not only
            // above the folder it runs in (review 68, 10: `cd .. && pytest work/tests`), and
            // collects every folder below them, loading each `conftest.py` there (68, 11:
            // `pytest -q` over a task whose `writes: [src]` lets a trial write
            // `src/conftest.py`, whose session hooks decide every test).
            if *runner == "pytest"
                && let Some(reach) = pytest_reach(&words, &dir, &runners_env, roots, true)
            {
                let why = match reach {
                    PytestReach::Collects(target, root) => format!(
                        "collects `{}` and loads every `conftest.py` beneath it, and `{}` \
                         there is a folder the trials write",
                        target.display(),
                        root.display()
                    ),
                    PytestReach::Above(target) => format!(
                        "reads its configuration from `{}` and the folders above it, in a \
                         folder the trials write",
                        target.display()
                    ),
                    PytestReach::Link(target, link) => format!(
                        "collects `{}`, where `{}` is a link into a folder the trials write",
                        target.display(),
                        link.display()
                    ),
                    PytestReach::Computed(word) => format!(
                        "is given `{word}`, a path made only when the check runs (by the \
                         shell, or by pytest as it expands it), which may name a folder the \
                         trials write"
                    ),
                    PytestReach::Debugger(word) => format!(
                        "is given `{word}`, a debugger that runs the Python it reads from the \
                         check's input, which gate does not read; leave it off"
                    ),
                    PytestReach::Unread(file) => format!(
                        "may read its configuration from `{}`, larger than the 1 MiB gate \
                         reads, so what it sets is not known; make it shorter",
                        file.display()
                    ),
                    PytestReach::Shadows(why) => format!(
                        "puts the folder above its test packages on `sys.path` (first under \
                         its default import mode, `prepend`; last under `append`): {why}; or \
                         give pytest \
                         `--import-mode=importlib`, which does not change `sys.path` \
                         (docs/trust.md, \"What is not protected, and how to protect it\")"
                    ),
                    PytestReach::Imports(folder) => format!(
                        "imports Python modules from `{}` (its `pythonpath`, a plugin or a \
                         warning filter's category), a folder the trials write: a trial's \
                         module there, named like one the tests or pytest import, would run \
                         in the grader and decide the grade; keep the folders the trials write (the \
                         task's `writes:`) off `pythonpath` and out of module names (a test that imports the \
                         agent's own code runs it in the grader, which no wall protects: \
                         docs/trust.md, \"What is not protected, and how to protect it\")",
                        folder.display()
                    ),
                };
                let message = if why.ends_with("leave it off")
                    || why.ends_with("make it shorter")
                    || why.ends_with("how to protect it\")")
                {
                    format!("task `{}`: `check:` runs `pytest`, which {why}", t.id)
                } else {
                    format!(
                        "task `{}`: `check:` runs `pytest`, which {why}: a trial could \
                         write a `conftest.py` or a `pytest.ini` there and decide the grade; \
                         name the test folders on the line (`pytest tests/`), outside the \
                         folders the trials write, and {WRITES_FIX}",
                        t.id
                    )
                };
                out.push(Finding {
                    at: t.check_at_of(line),
                    message,
                    refused: true,
                });
                break 'lines;
            }
        }
        // Review 21, 14: pytest started from inside a grader script (`pytest.main(…)` in
        // `graders/run.py`) reads the trial's `pytest.ini` and `conftest.py` all the same.
        let real = resolve(&std::path::absolute(cwd).unwrap_or_else(|_| cwd.clone()));
        // Review 22 (06, 07, 08, 10): any grader file, whatever its name (a shell script
        // running `python3 -m pytest` or `npm test`, a makefile's recipe).
        let by_script = super::state::grader_files(line, cwd, env)
            .into_iter()
            .find_map(|p| grader_runner(&super::state::grader_text(&p)?).map(|r| (p, r)));
        if let Some((script, runner)) = by_script
            && roots.iter().any(|r| real.starts_with(r))
        {
            out.push(Finding {
                at: t.check_at_of(line),
                refused: false,
                message: format!(
                    "task `{}`: `check:` runs `{runner}` (from `{}`) in `{}`, a folder the \
                     trials write: a trial could create or rewrite its configuration there \
                     (`pytest.ini`, `conftest.py`, `package.json`, a `Makefile`, a module \
                     `python -m` runs, …) and decide the grade; {WRITES_FIX}, or give the \
                     runner its configuration from the graders' folder",
                    t.id,
                    script.display(),
                    real.display()
                ),
            });
            break 'lines;
        }
        // Reviews 25 (18), 26 (05) and 28 (06e, 06j, 06k, 06l, 02d–03e): a grader that
        // chooses where its interpreter looks for code (`PYTHONPATH=.`,
        // `sys.path.insert(0, os.getcwd())`, `module.paths`, `Module._load`), or clears
        // the environment that holds gate's pins (`env -i`), loads what gate does not
        // follow. Its author's choice, so a warning, not a refusal.
        // Where the check's folder only holds folders the trials write (`writes: [out]`),
        // such a path may name one of them all the same (review 103, a20, a21:
        // `sys.path.insert(0, os.path.abspath("out"))`, or `"."` and then `chdir("out")`).
        let by_path = super::state::grader_files(line, cwd, env)
            .into_iter()
            .find_map(|p| grader_search_path(&super::state::grader_text(&p)?).map(|w| (p, w)));
        if let Some((script, what)) = by_path
            && roots
                .iter()
                .any(|r| real.starts_with(r) || r.starts_with(&real))
        {
            out.push(Finding {
                at: t.check_at_of(line),
                message: format!(
                    "task `{}`: `check:` runs `{}`, which {what}: in `{}`, a folder the \
                     trials write or one that holds such folders, a trial could prepare what \
                     that leads to and decide the grade; {WRITES_FIX}",
                    t.id,
                    script.display(),
                    real.display()
                ),
                refused: false,
            });
            break 'lines;
        }
        // Any other check that runs node in a folder the trials write: its tools read
        // configuration and packages there that the walls compare by name, a net
        // (reviews 56, 57); `writes:` is the wall that reads nothing.
        if super::state::line_runs_node(line, cwd, env)
            && roots.iter().any(|r| real.starts_with(r))
            && !node_only_from_outside(line, cwd, env, roots)
        {
            out.push(Finding {
                at: t.check_at_of(line),
                message: format!(
                    "task `{}`: `check:` runs node in `{}`, a folder the trials write: gate \
                     compares the configuration and packages node's tools read there before \
                     each check, but finds them by reading text, which a trial may spell \
                     past; {WRITES_FIX}",
                    t.id,
                    real.display()
                ),
                refused: false,
            });
            break 'lines;
        }
    }
}

/// Whether every way `line` runs node is `node SCRIPT …` (or `nodejs`), no option before
/// the script, with `SCRIPT` a file that lies outside every folder the trials write
/// (`roots`), and no `env:` value names node: node reads the packages and the `package.json`
/// of such a script from beside it and the folders above it, not from the current folder,
/// so running it in a folder the trials write reads nothing of theirs but the data the
/// grader opens itself. (An option may load code from the current folder: `--require ./x`,
/// `--import`, `--env-file`; a `cd` moves where a relative script is found: neither is
/// read, so either keeps the refusal.)
fn node_only_from_outside(
    line: &super::CommandLine,
    cwd: &Path,
    env: &[(String, String)],
    roots: &[PathBuf],
) -> bool {
    if env.iter().any(|(_, v)| {
        super::state::NODE_PROGRAMS
            .iter()
            .any(|n| super::words::mentions_word(v, n))
    }) {
        return false;
    }
    let mut ran = false;
    for words in simple_commands(&tokens_of(line, env)) {
        let name = name_of(&words[0]);
        if matches!(name.as_str(), "cd" | "pushd") {
            return false;
        }
        let names_node = words.iter().any(|w| {
            super::state::NODE_PROGRAMS
                .iter()
                .any(|n| super::words::mentions_word(w, n))
        });
        if !names_node {
            continue;
        }
        if !matches!(name.as_str(), "node" | "nodejs") {
            return false;
        }
        let Some(script) = words.get(1).filter(|w| !w.starts_with('-')) else {
            return false;
        };
        let Ok(file) = std::fs::canonicalize(cwd.join(script)) else {
            return false;
        };
        if !file.is_file() || roots.iter().any(|r| file.starts_with(r)) {
            return false;
        }
        ran = true;
    }
    ran
}

/// One line for each program a grader script runs that gate does not hold (review 34, 51e,
/// 51e2): `check: sh ci/check.sh` whose script runs `node graders/check.js` names
/// `graders/check.js` only inside the script, so the box holds `ci/` and not `graders/`,
/// and a trial can rewrite that grader. Gate cannot tell such a grader from the agent's own
/// program a grader script runs (`python3 solution.py`), which the trials must write; so it
/// says so rather than refusing.
///
/// A word of a grader file's code (whole-line comments left out) counts when it names an
/// existing program or script (executable, with a script's extension, or with no extension
/// at all) in a folder the trials write, outside every folder gate holds, from the check's
/// folder, the file's own, or a folder the file names (`cd graders && ./grade.sh`: review
/// 37, 83c); a word built on a variable counts from after it (`"$here/../graders/x"`: 83b2).
pub fn unheld_program_warnings(plan: &Plan) -> Vec<String> {
    if plan.policy.sandbox.mode == crate::model::SandboxMode::Off {
        return Vec::new();
    }
    let roots = super::state::writable_roots(plan);
    let guarded = super::state::guarded_folders(plan);
    let named: Vec<PathBuf> = super::state::named_files(plan)
        .iter()
        .map(|p| resolve(p))
        .collect();
    // A file a script names is a program unless its name says data (review 38, 94c, 94i:
    // `. graders/grade.inc`, `sh graders/grade.sh.in`; 94b: `jq -f graders/check.jq`).
    const DATA: &[&str] = &[
        "json", "txt", "md", "csv", "tsv", "yaml", "yml", "xml", "html", "htm", "log", "out",
        "err", "diff", "patch", "png", "jpg", "jpeg", "gif", "svg", "pdf", "lock", "gz", "zip",
        "tar",
    ];
    let program = |p: &Path| {
        super::state::is_program(p)
            || (p.is_file()
                && !p
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| DATA.contains(&e.to_ascii_lowercase().as_str())))
    };
    let mut out = Vec::new();
    for t in &plan.tasks {
        let mut said: Vec<PathBuf> = Vec::new();
        for (line, cwd, env) in super::state::check_lines(t) {
            for file in super::state::grader_files(line, cwd, env) {
                let Some(text) = super::state::grader_text(&file) else {
                    continue;
                };
                let here = file.parent().map(Path::to_path_buf).unwrap_or_default();
                let code: Vec<&str> = (text.lines())
                    .filter(|l| {
                        let l = l.trim_start();
                        !(l.starts_with('#') && !l.starts_with("#!") || l.starts_with("//"))
                    })
                    .collect();
                // Each word once, and only a path or a script's name: a minified grader has
                // a million `a.b` words, none of them a program. A word built on a variable
                // is read from its first `/` after the variable.
                // A command substitution's `$(` is no variable (review 38, 94j:
                // `r=$(graders/grade.sh)`).
                let words: std::collections::BTreeSet<&str> = (code.iter())
                    .flat_map(|l| l.split(|c: char| c.is_whitespace() || c == '('))
                    .map(|w| match w.rfind('$') {
                        Some(at) => w[at..].find('/').map_or("", |s| &w[at + s + 1..]),
                        None => w,
                    })
                    .flat_map(|w| w.split(|c: char| "\"'`;|&()[]{},=:<>".contains(c)))
                    .filter(|w| {
                        !w.is_empty()
                            && w.len() < 4096
                            && !w.contains(['?', '~'])
                            && (w.contains('/') || super::state::script_extension(Path::new(w)))
                    })
                    .collect();
                // The folders the file names (`cd graders`), as bases too.
                let mut bases = vec![cwd.clone(), here.clone()];
                let folders: std::collections::BTreeSet<&str> = (code.iter())
                    .flat_map(|l| {
                        l.split(|c: char| c.is_whitespace() || "\"'`;|&()[]{},=:<>".contains(c))
                    })
                    .filter(|w| {
                        !w.is_empty() && w.len() < 4096 && !w.contains(['$', '*', '?', '~'])
                    })
                    .collect();
                // Only a word whose first part is an entry of the base (or `..`, `/`) can
                // name a folder there: no `stat` of every word of a large data file.
                let entries = |d: &Path| -> std::collections::HashSet<std::ffi::OsString> {
                    std::fs::read_dir(d)
                        .map(|l| l.flatten().map(|e| e.file_name()).collect())
                        .unwrap_or_default()
                };
                let listed = [
                    (cwd.as_path(), entries(cwd)),
                    (here.as_path(), entries(&here)),
                ];
                for w in folders.iter().chain(&words) {
                    for (base, names) in &listed {
                        let plausible = match Path::new(w).components().next() {
                            Some(std::path::Component::Normal(n)) => names.contains(n),
                            Some(_) => true,
                            None => false,
                        };
                        if !plausible {
                            continue;
                        }
                        let d = base.join(w);
                        if bases.len() < 32 && d.is_dir() && !bases.contains(&d) {
                            bases.push(d);
                        }
                    }
                }
                // A glob's files (`for f in graders/*.sh`, `glob.glob("graders/*.sh")`:
                // review 38, 94a, 94e): those of its folder whose names fit it.
                let mut named_here: Vec<PathBuf> = Vec::new();
                for w in &words {
                    for base in &bases {
                        match w.rsplit_once('/') {
                            Some((dir, pattern)) if pattern.contains('*') && !dir.contains('*') => {
                                let (head, tail) = pattern.split_once('*').unwrap_or((pattern, ""));
                                let tail = tail.trim_start_matches('*');
                                let Ok(entries) = std::fs::read_dir(base.join(dir)) else {
                                    continue;
                                };
                                named_here.extend(
                                    (entries.flatten().take(256))
                                        .filter(|e| {
                                            let n = e.file_name();
                                            let n = n.to_string_lossy();
                                            n.starts_with(head)
                                                && n.ends_with(tail)
                                                && !tail.contains('*')
                                        })
                                        .map(|e| e.path()),
                                );
                            }
                            _ if w.contains('*') => {}
                            _ => named_here.push(base.join(w)),
                        }
                    }
                }
                for at in named_here {
                    {
                        if !program(&at) {
                            continue;
                        }
                        let real = resolve(&at);
                        let open = roots.iter().any(|r| real.starts_with(r))
                            && !guarded.iter().any(|g| real.starts_with(g));
                        if !open || named.contains(&real) || said.contains(&real) {
                            continue;
                        }
                        said.push(real.clone());
                        out.push(format!(
                            "warning: task `{}`: the grader file `{}` names `{}`, a program in \
                             a folder the trials write, which gate does not hold: if it grades, a \
                             trial could rewrite it and decide the grade; move it beside `{}` \
                             (gate holds the folders of the graders the `check:` line names, \
                             and reads what is in them) or name it on the `check:` line \
                             (docs/trust.md, \"What is not protected\")",
                            t.id,
                            file.display(),
                            real.display(),
                            file.display()
                        ));
                    }
                }
            }
        }
    }
    out
}

/// The test runner a grader file's text starts, if it names one: pytest (in any spelling
/// [`mentions_pytest`] finds), or a JavaScript package runner, a test runner, `unittest`
/// or `prove` by its word.
fn grader_runner(text: &str) -> Option<&'static str> {
    if mentions_pytest(text) {
        return Some("pytest");
    }
    // Review 23 (07, 08): `python3 -m unittest` (its `-m` puts the check's folder first on
    // `sys.path`: a trial's `unittest.py`), `prove` (a trial's `.proverc`).
    if let Some(runner) = super::words::mentions_any(
        text,
        &[
            "npm", "npx", "yarn", "pnpm", "jest", "vitest", "mocha", "tox", "nox", "unittest",
            "prove",
        ],
    ) {
        return Some(runner);
    }
    // Review 25, 07: `python3 -m json.tool` in a grader script: `-m` puts the folder it
    // runs in first on `sys.path`, where a trial's `json/tool.py` is found first (`-I` or
    // `-P` leave it out).
    let module_run = text.lines().any(|l| {
        let l = l.split('#').next().unwrap_or("");
        // Only a line with a Python's name (any case), `sys.executable` or a variable can
        // run one: the rest (a data file's lines) are not split into words.
        let b = l.as_bytes();
        if !(l.contains('$')
            || l.contains("sys.executable")
            || b.windows(2)
                .any(|w| w[0] | 0x20 == b'p' && w[1] | 0x20 == b'y'))
        {
            return false;
        }
        let words: Vec<&str> = l
            .split(|c: char| c.is_whitespace() || ",[]()".contains(c))
            .map(|w| w.trim_matches(|c| c == '"' || c == '\''))
            .filter(|w| !w.is_empty())
            .collect();
        words.iter().enumerate().any(|(i, w)| {
            // A Python by its name, `sys.executable`, or a variable that names one (`$PY`).
            // Review 27, 06e: any variable as the program (`$INTERP -m`).
            let python =
                is_python(&name_of(w)) || w.ends_with("sys.executable") || w.starts_with('$');
            // Review 27, 06f, 06g, 06h: a Python given its options in a variable (`python3
            // $ARGS`) or its program on stdin (`python3 -`, `python3 < grade.py`): the
            // folder it runs in is first on `sys.path` as for `-c`.
            let opaque = is_python(&name_of(w))
                && words
                    .get(i + 1)
                    .is_none_or(|o| *o == "-" || o.starts_with('<') || o.starts_with('$'));
            opaque
                || python && {
                    // The options before the module or script: `-W ignore` and `-X dev` take the
                    // next word; `-mjson.tool` and `-c'code'` glue theirs on.
                    let mut flags = String::new();
                    let mut k = i + 1;
                    while let Some(o) = words
                        .get(k)
                        .filter(|o| o.starts_with('-') && !o.starts_with("--"))
                    {
                        let o = &o[1..];
                        let cut = o.find(['m', 'c']).map_or(o, |j| &o[..=j]);
                        flags.push_str(cut);
                        if cut.len() < o.len() || cut.ends_with(['m', 'c']) {
                            break;
                        }
                        k += 1 + usize::from(matches!(o, "W" | "X"));
                    }
                    // A long option with a value (`--check-hash-based-pycs never`) before `-m`.
                    if flags.is_empty() {
                        let long = words.get(k).filter(|o| o.starts_with("--"));
                        if let Some(o) = long {
                            let valued = !o.contains('=') && *o != "--version" && *o != "--help";
                            let next = words
                                .get(k + 1 + usize::from(valued))
                                .copied()
                                .unwrap_or("");
                            if next.starts_with("-m") || next.starts_with("-c") {
                                flags.push('m');
                            }
                        }
                    }
                    (flags.contains('m') || flags.contains('c'))
                        && !flags.contains('I')
                        && !flags.contains('P')
                }
        })
    });
    if module_run {
        return Some("python -m");
    }
    // Review 23 (10): make run from a grader reads the makefiles its makefile `include`s
    // from the check's folder (`include config.mk`). Review 26 (13): by any spelling
    // (`exec make`, `\make`, `${MAKE:-make}`, `/usr/bin/make`, `os.system("make …")`): the
    // word anywhere outside a comment ("make sure" in a message warns too).
    text.lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .any(|l| {
            ["make", "gmake", "MAKE"]
                .iter()
                .any(|m| super::words::mentions_word(l, m))
        })
        .then_some("make")
}

/// What a grader file's text does that moves where its interpreter looks for code, or
/// drops the variables gate pins for a check ([`definition_warnings`]), in words; comments
/// (a line's `#` or `//` part) left out.
fn grader_search_path(text: &str) -> Option<&'static str> {
    // A search path set from the grader's own place (`os.path.dirname(__file__)`,
    // `$(dirname "$0")`, `__dirname`) is not the check's folder; any other is warned about,
    // however it names the check's folder (review 29, 06b-06i: `$(pwd)`, `os.curdir`, a
    // variable set on an earlier line).
    const PATHS: &[(&str, &str)] = &[
        ("PYTHONPATH", "sets Python's search path (`PYTHONPATH`)"),
        ("sys.path", "changes Python's search path (`sys.path`)"),
        (
            "addsitedir",
            "adds a folder to Python's search path (`site.addsitedir`)",
        ),
        ("NODE_PATH", "sets node's search path (`NODE_PATH`)"),
        (
            "module.paths",
            "changes where node looks for packages (`module.paths`)",
        ),
        (
            "HOME=",
            "sets `HOME`, where node and Python look for packages too",
        ),
        (
            "spec_from_file_location",
            "loads a module from a path of its choosing (`spec_from_file_location`)",
        ),
    ];
    // `mktemp` makes a folder of the grader's own (`HOME="$(mktemp -d)"`).
    // Not the bare word `dirname`: `dirname(HERE)` is a folder above (review 33, 33f).
    const OWN: &[&str] = &["__file__", "$0", "BASH_SOURCE", "__dirname", "mktemp"];
    // The pins gate gives a check (`GIT_DIR`, `PYENV_VERSION`, …) cleared or unset.
    const DROPS: &[&str] = &[
        "env -i",
        "env - ",
        "env -u",
        "env --ignore-environment",
        "env --unset",
        "environ.clear",
        "del os.environ",
        "environ.pop(\"GIT_",
        "environ.pop('GIT_",
        "environ.pop(\"PYENV",
        "environ.pop('PYENV",
        "delete process.env",
        "deleteProperty(process.env",
        "os.execve",
        "os.unsetenv",
        "unset -v",
        "export -n",
        "unset GIT_",
        "unset PYENV",
        "unset RBENV",
        "unset NODENV",
        "unset GOENV",
        "unset ASDF",
    ];
    let code = |l: &'_ str| -> String {
        let l = l.split(" #").next().unwrap_or("");
        let l = if l.trim_start().starts_with('#') {
            ""
        } else {
            l
        };
        l.split("//").next().unwrap_or("").to_string()
    };
    // The grader's own place, and not a folder above it (`dirname(__file__) + "/.."`,
    // `Path(__file__).parents[1]`, `dirname "$(dirname "$0")"`, `os.pardir`: reviews 30, 15
    // and 31, 25a-25b), or a name a line set from it (`HERE = dirname(__file__)` and then
    // `join(HERE, "lib")`: review 31, 25s).
    let lines: Vec<String> = text.lines().map(code).collect();
    let above = |l: &str| {
        l.contains("..")
            || l.contains("pardir")
            || l.contains("parents[")
            || l.contains(".parent.parent")
            || l.matches("dirname").count() > 1
            || l.matches("path.split").count() > 1
    };
    // Only a line that names the grader's place itself sets an own name (review 32, 33f:
    // the bare word `dirname` is not one).
    let own_names: Vec<String> = (lines.iter())
        .filter(|l| {
            ["__file__", "$0", "BASH_SOURCE", "__dirname"]
                .iter()
                .any(|o| l.contains(o))
                && !above(l)
        })
        .filter_map(|l| {
            let (name, _) = l.split_once('=')?;
            let name = name.trim().trim_start_matches("export ").trim();
            (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_'))
                .then(|| name.to_string())
        })
        .collect();
    // A name set from the grader's place is its folder: `dirname(HERE)` or `HERE.parent`
    // is the one above (review 32, 33a, 33b).
    let own = |l: &str| {
        let by_marker = OWN.iter().any(|o| l.contains(o));
        let by_name = own_names.iter().any(|n| super::words::mentions_word(l, n));
        !above(l) && (by_marker || by_name && !l.contains(".parent") && !l.contains("dirname("))
    };
    for l in &lines {
        if let Some((_, what)) = (PATHS.iter()).find(|(w, _)| l.contains(w) && !own(l)) {
            return Some(what);
        }
        let flat: String = l.chars().filter(|c| !c.is_whitespace()).collect();
        if DROPS.iter().any(|d| l.contains(d)) {
            return Some("clears or unsets its environment, dropping the pins gate gives a check");
        }
        // A child's environment given whole (`env={"PATH": …}`, node's `{env: {PATH: …}}`),
        // not the grader's own spread into it (`env={**os.environ, …}`, `{...process.env}`)
        // (review 30, 16).
        for at in ["env={", "env:{", "env=dict("] {
            for (k, _) in flat.match_indices(at) {
                // The environment spread anywhere in it, first or last (review 31, 25q, 25r).
                let rest = &flat[k + at.len()..];
                let body = &rest[..rest.find('}').unwrap_or(rest.len())];
                let spread = ["**os.environ", "...process.env", "**dict(os.environ"]
                    .iter()
                    .any(|s| body.contains(s))
                    || rest.starts_with("os.environ");
                if !spread {
                    return Some(
                        "gives a program an environment of its own, dropping the pins gate \
                         gives a check",
                    );
                }
            }
        }
    }
    let flat: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    // Node's module system itself (`Module._load`, `new M(…)`, `M["_lo" + "ad"]`,
    // `require("module")[k]`: reviews 28 and 29) resolves from wherever the grader says;
    // only `createRequire(__filename)` and `createRequire(import.meta.url)` are its own
    // place.
    let imports_module = [
        "require(\"module\")",
        "require('module')",
        "\"node:module\"",
        "'node:module'",
        "from\"module\"",
        "from'module'",
    ]
    .iter()
    .any(|m| flat.contains(m));
    let own_require = flat.contains("createRequire(__filename")
        || flat.contains("createRequire(import.meta.url")
        || flat.contains("createRequire(fileURLToPath(import.meta.url)");
    let internals = [
        "._load",
        "._resolve",
        "._nodeModulePaths",
        "._initPaths",
        "._cache",
        "._extensions",
        "._findPath",
        "newModule(",
        "[\"_",
        "['_",
    ]
    .iter()
    .any(|m| flat.contains(m));
    if imports_module && (!own_require || internals) {
        return Some(
            "uses node's module system itself (`require(\"module\")`), which resolves from where the grader says",
        );
    }
    // `require.resolve(name, {paths: […]})`: resolution from folders of its choosing.
    flat.split("require.resolve(")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .any(|args| args.contains("paths") && !args.contains("__dirname"))
        .then_some(
            "resolves packages from folders of its choosing (`require.resolve` with `paths`)",
        )
}

/// Whether Python code `text` can reach pytest: its name anywhere once quotes, spaces and
/// `+` are taken out (`_pytest.config`, `"py" "test"`, `"py" + "test"`: review 21, 11).
fn mentions_pytest(text: &str) -> bool {
    let joined: String = text
        .chars()
        .filter(|c| !matches!(c, '"' | '\'' | '+') && !c.is_whitespace())
        .collect();
    joined.contains("pytest")
}

#[cfg(test)]
mod tests {
    use super::super::words::{line_tokens, runs_program_text};
    use super::*;

    /// The words CPython 3.11's `shlex.split` makes of each text (printed by it).
    #[test]
    fn python_shlex_split_splits_as_cpython_does() {
        let cases: [(&str, &[&str]); 8] = [
            (
                "--deselect #x -p out.w",
                &["--deselect", "#x", "-p", "out.w"],
            ),
            ("a 'b c' \"d\\\"e\" f\\ g", &["a", "b c", "d\"e", "f g"]),
            ("\"a\\b\" 'x\\y'", &["a\\b", "x\\y"]),
            (
                "--deselect=$(x -p out.w --deselect=)",
                &["--deselect=$(x", "-p", "out.w", "--deselect=)"],
            ),
            ("a\x0bb c\td\ne", &["a\x0bb", "c", "d", "e"]),
            ("''", &[""]),
            ("a\"\"b", &["ab"]),
            ("\\#x y", &["#x", "y"]),
        ];
        for (text, words) in cases {
            assert_eq!(python_shlex_split(text), words, "{text:?}");
        }
    }

    /// What `iniconfig` 2.3.1 (pytest 9.2's) reads from each text, as it printed it.
    #[test]
    fn pytest_ini_reads_as_iniconfig_does() {
        let cases: [(&str, &[&str], &[&str]); 6] = [
            (
                "\u{feff}[pytest]\naddopts = -p out.w\n",
                &["-p", "out.w"],
                &[],
            ),
            (
                "[pytest]\npython_files = test_*.py\n[notes\naddopts = -p out.w\n",
                &["-p", "out.w"],
                &[],
            ),
            (
                "[pytest]\naddopts = -q\n\n    -p out.w\n",
                &["-q", "-p", "out.w"],
                &[],
            ),
            (
                "[pytest]\naddopts = -q\n# c\n ; d\n    -p out.w\n",
                &["-q", "-p", "out.w"],
                &[],
            ),
            (
                "[pytest]\naddopts = -q\n\x1f-p out.w\n",
                &["-q", "-p", "out.w"],
                &[],
            ),
            (
                "[other]\naddopts = -p no\n[pytest]\ntestpaths =\n  a\n  b\n",
                &[],
                &["a", "b"],
            ),
        ];
        for (text, addopts, testpaths) in cases {
            let ini = pytest_ini(text);
            assert_eq!(ini.addopts, addopts, "{text:?}");
            assert_eq!(ini.testpaths, testpaths, "{text:?}");
        }
        assert_eq!(pytest_ini("[pytest] # x\naddopts: a=b\n").addopts, ["a=b"]);
    }

    #[test]
    fn configs_named_reads_the_literal_file_an_option_hands_a_tool() {
        let text = "# mocha --config commented.js\n\
                    exec mocha --config ci.js && jest -c=jest.ci.js\n\
                    spawnSync(\"vitest\", [\"--config\", \"v/ci.mjs\"]);\n\
                    node -r ./setup.js -r ts-node/register --env-file .env.ci t.js\n\
                    tsc -p tsconfig.ci.json; mocha --config \"$DIR/x.js\" --reporter spec\n\
                    bash -c 'cd app && mocha' \n\
                    wc -c result.txt && mkdir -p out/x && python3 -c 'a.b' && tsc -p . \n\
                    mocha --config ci; node --test --test-reporter=./tools/rep.mjs\n\
                    spawnSync(\"mocha\", [\n\
                      \"--config\",\n\
                      \"multi.json\"]);\n";
        assert_eq!(
            super::super::words::configs_named(text),
            [
                "ci.js",
                "jest.ci.js",
                "v/ci.mjs",
                "./setup.js",
                ".env.ci",
                "tsconfig.ci.json",
                "spec",
                "ci",
                "./tools/rep.mjs",
                "multi.json"
            ]
        );
        // Review 55: an assignment's quoted value (20), mocha's `--package`/`--ui` (21,
        // 22), a continued line (27), `process.execPath` over several lines (28), a quoted
        // name with a space (29); a grader's own `--file` after its script is its answer.
        let text = "export NODE_OPTIONS=\"--require ./pre.js\"\n\
                    mocha --package ci/pkg.json --ui ./tools/ui.js\n\
                    exec mocha \\\n  -r ./cont.js \\\n  t.spec.js\n\
                    spawnSync(process.execPath, [\n  \"-r\",\n  \"./arr.js\",\n]);\n\
                    mocha --config \"ci config.json\"\n\
                    node graders/check.js --file result.txt\n\
                    npm test\nwc -c answer.txt\n";
        assert_eq!(
            super::super::words::configs_named(text),
            [
                "./pre.js",
                "ci/pkg.json",
                "./tools/ui.js",
                "./cont.js",
                "./arr.js",
                "ci",
                "ci config.json"
            ]
        );
    }

    #[test]
    fn loaded_text_drops_the_lists_of_files_a_tool_runs_or_measures() {
        let text = r#"{"require": "./h.js", "spec": ["./src/a.spec.js"], "nyc": {"include": ["./src/a.js"]}}"#;
        assert_eq!(
            super::super::words::relative_paths(&super::super::words::loaded_text(text)),
            ["./h.js"]
        );
        // Not JSON: read as it is.
        assert_eq!(super::super::words::loaded_text("spec: ./x"), "spec: ./x");
    }

    #[test]
    fn relative_paths_are_the_quoted_paths_a_configuration_names() {
        let text =
            r#"{"require": "./helper.js", "x": '../a/b/', "g": "./*.js", "n": "pkg", "d": "."}"#;
        assert_eq!(
            super::super::words::relative_paths(text),
            ["./helper.js", "../a/b"]
        );
    }

    #[test]
    fn folders_entered_reads_cd_env_c_quoted_shells_and_joined_literals() {
        let text = "cd ../a && mocha\n\
                    env -C ../b mocha; env --chdir=../c x\n\
                    bash -c 'cd ../d && mocha'\n\
                    execSync(`cd ../e && mocha`);\n\
                    spawnSync(\"mocha\", [], {cwd: path.join(\"..\", \"f\", \"app\")});\n\
                    spawnSync(\"mocha\", [], {cwd: path.join(__dirname, \"..\", \"g\")});\n\
                    cd \"$D\"; spawnSync(\"m\", [], {cwd: path.join(root, \"h\")});\n";
        assert_eq!(
            super::super::words::folders_entered(text),
            ["../a", "../b", "../c", "../d", "../e", "../f/app", "../g"]
        );
        // Review 55, 30: after a shell keyword, a tool's `-C`/`--prefix`, any `….join(`.
        let text = "if cd ../i; then x; fi\n\
                    ! cd ../j || true\n\
                    make -s -C ../k test; npm --prefix ../l test; yarn --cwd=../m t\n\
                    spawnSync(\"m\", [], {cwd: require(\"path\").join(\"..\", \"n\")});\n\
                    subprocess.run([\"m\"], cwd=os.path.join(\"..\", \"o\"))\n\
                    grep -C 3 x r.txt; diff -C 1 a b; R=.. env -C ../p x\n\
                    cd \"$(dirname \"$0\")/../q\"; cd \"${0%/*}/r\"; G=\"$(cd \"$(dirname \"$0\")\" && pwd)\"\n";
        assert_eq!(
            super::super::words::folders_entered(text),
            [
                "../i", "../j", "../k", "../l", "../m", "../n", "../o", "../p", "./../q", "./r"
            ]
        );
    }

    fn commands(line: &str) -> Vec<Vec<String>> {
        simple_commands(&line_tokens(line, &[], 0))
    }

    /// Reviews 25 (18), 26 (05) and 28: a grader that moves its interpreter's search path to
    /// the check's folder, or clears gate's pins, is named; one that adds its own folder is
    /// not.
    #[test]
    fn a_grader_that_moves_its_search_path_to_the_check_s_folder_or_drops_the_pins_is_named() {
        for text in [
            "PYTHONPATH=. python3 graders/grade.py\n",
            "PYTHONPATH=\"$PYTHONPATH:\" python3 graders/grade.py\n",
            "export PYTHONPATH=\"$PWD\"\n",
            "import os, sys\nsys.path.insert(0, os.getcwd())\nimport json\n",
            "import sys, runpy\nsys.path.insert(0, \"\")\nrunpy.run_module(\"json.tool\")\n",
            "const M = require(\"module\");\nM._load(\"eq\", {filename: process.cwd() + \"/x.js\"});\n",
            "module.paths.unshift(process.cwd() + \"/vendor/node_modules\");\n",
            "require(require.resolve(\"eq\", { paths: [process.cwd()] }));\n",
            "env -i PATH=\"$PATH\" python graders/check.py < answer.txt\n",
            "env -u PYENV_VERSION python graders/check.py\n",
            // Review 29: other spellings of the check's folder, node's module system by any
            // name, `NODE_PATH`, `HOME`, and other ways to drop the pins.
            "PYTHONPATH=$(pwd) python3 graders/grade.py\n",
            "import os, sys\nsys.path.insert(0, os.curdir)\n",
            "import os, sys\nhere = os.getcwd()\nsys.path.append(here)\n",
            "const M = require('module');\nconst m = new M(process.cwd() + '/x.js');\n",
            "const M = require(\"module\");\nM[\"_lo\" + \"ad\"](\"eq\");\n",
            "const k = \"create\" + \"Require\";\nrequire(\"module\")[k](process.cwd() + \"/\")(\"eq\");\n",
            "NODE_PATH=\"$PWD/vendor\" node graders/check.js\n",
            "HOME=\"$PWD\" node graders/check.js\n",
            "env - PATH=/usr/bin python3 graders/grade.py\n",
            "unset PYENV_VERSION GIT_DIR\npython3 graders/grade.py\n",
            "import os\ndel os.environ['PYENV_VERSION']\n",
            // Review 31: other spellings of a folder above the grader's own, `os.execve`.
            "sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir))\n",
            "sys.path.insert(0, os.path.split(os.path.split(__file__)[0])[0])\n",
            "os.execve(\"/usr/bin/git\", [\"git\", \"diff\"], {\"PATH\": \"/usr/bin\"})\n",
            // Review 32: the folder above a name set from the grader's place.
            "HERE = os.path.dirname(__file__)\nROOT = os.path.dirname(HERE)\nsys.path.insert(0, ROOT)\n",
            "HERE = Path(__file__).resolve().parent\nsys.path.insert(0, str(HERE.parent))\n",
            // Review 30: a folder above the grader's own, another module loader, and other
            // ways to give a child an environment without gate's pins.
            "sys.path.insert(0, os.path.join(os.path.dirname(__file__), \"..\"))\n",
            "sys.path.insert(0, str(Path(__file__).parents[1]))\n",
            "PYTHONPATH=\"$(dirname \"$(dirname \"$0\")\")\" python3 g.py\n",
            "spec = importlib.util.spec_from_file_location(\"eq\", os.getcwd() + \"/eq.py\")\n",
            "subprocess.run([\"git\", \"diff\"], env={\"PATH\": \"/usr/bin\"})\n",
            "execFileSync(\"git\", [\"diff\"], { env: { PATH: \"/usr/bin\" } });\n",
            "delete process.env.GIT_DIR;\n",
            "os.unsetenv(\"PYENV_VERSION\")\n",
            "unset -v GIT_DIR\n",
            "export -n PYENV_VERSION\n",
            "env = {k: v for k, v in os.environ.items() if not k.startswith(\"GIT\")}\nsubprocess.run(c, env={k: v for k, v in os.environ.items()})\n",
        ] {
            assert!(grader_search_path(text).is_some(), "{text}");
        }
        for text in [
            "import os, sys\nsys.path.insert(0, os.path.dirname(__file__))\n",
            "# PYTHONPATH=. is not needed here\npython3 graders/grade.py\n",
            "const eq = require(\"eq\");\n",
            "cmp -s answer.txt graders/expected.txt\n",
            // Review 29's false warnings.
            "require(require.resolve(\"eq\", {paths: [__dirname]}));\n",
            "cd \"$(dirname \"$0\")\" && PYTHONPATH=. python3 grade.py\n",
            "cache._load(\"x\");\n",
            "python3 graders/grade.py # not env -u here\n",
            "git config --unset core.x\n",
            // Review 30's and 31's false warnings.
            "sys.path.insert(0, str(Path(__file__).resolve().parent / \"lib\"))\n",
            "subprocess.run(c, env={\"LC_ALL\": \"C\", **os.environ})\n",
            "execFileSync(\"node\", [f], { env: { CI: \"1\", ...process.env } });\n",
            "HERE = os.path.dirname(__file__)\nsys.path.insert(0, os.path.join(HERE, \"lib\"))\n",
            "scratch=\"$(mktemp -d)\"\nsort result.txt > \"$scratch/sorted.txt\"\n",
            "os.environ.pop(\"PAGER\", None)\n",
            "test -f \"$TMPDIR/state\"\n",
            "import { createRequire } from \"node:module\";\nimport { fileURLToPath } from \"node:url\";\nconst req = createRequire(fileURLToPath(import.meta.url));\n",
            "HOME=\"$(mktemp -d)\" node graders/check.js\n",
            "subprocess.run(c, env={**os.environ, \"LC_ALL\": \"C\"})\n",
            "execFileSync(\"node\", [f], { env: { ...process.env, CI: \"1\" } });\n",
            "import { createRequire } from \"module\";\nconst require = createRequire(import.meta.url);\nconst xs = [1, 2];\n",
        ] {
            assert!(grader_search_path(text).is_none(), "{text}");
        }
    }

    #[test]
    fn program_text_on_stdin_or_inline_is_seen_and_a_script_operand_is_not() {
        let feeds = |l: &str| commands(l).iter().any(|c| runs_program_text(c));
        for l in [
            "sh < graders/grade",
            "cat graders/grade | sh",
            "sh -c \"$(cat graders/grade)\"",
            "eval \"$(cat graders/grade)\"",
            "bash /dev/stdin < graders/grade",
            "sh -s < graders/grade",
            "python3 < graders/grade",
            "python3 - < graders/grade",
            "python3 -c \"exec(open('graders/grade').read())\"",
            "env X=1 timeout 10 bash -e < g",
        ] {
            assert!(feeds(l), "{l}");
        }
        for l in [
            "sh graders/grade",
            "python3 -u graders/check.py < answer.txt",
            "cat answer.txt | python3 graders/check.py",
            "grep -q 42 answer.txt",
            "python3 -m pytest graders",
            "sh -c 'grep -q 42 answer.txt'",
            "python3 --version",
        ] {
            assert!(!feeds(l), "{l}");
        }
    }

    #[test]
    fn python_forms_that_put_the_cwd_on_sys_path() {
        let form = |l: &str| python_cwd_form(&commands(l)[0]);
        assert_eq!(form("python3 -m pytest -q").as_deref(), Some("pytest"));
        assert_eq!(
            form("python3 -u -m unittest.main").as_deref(),
            Some("unittest")
        );
        assert_eq!(form("python3 -c 'import x'").as_deref(), Some("json"));
        assert_eq!(form("python3").as_deref(), Some("json"));
        assert_eq!(form("python3 -P -m pytest"), None);
        assert_eq!(form("python3 -I -m pytest"), None);
        assert_eq!(form("python3 -Im pytest"), None);
        assert_eq!(form("python3 graders/check.py"), None);
    }

    #[test]
    fn search_path_entries() {
        assert_eq!(entries("PATH", "tools::/bin"), ["tools", "", "/bin"]);
        assert_eq!(entries("HOME", ""), Vec::<String>::new());
        assert_eq!(entries("PYTHONPATH", ""), Vec::<String>::new());
        assert_eq!(entries("PYTHONPATH", ":/x"), ["", "/x"]);
        assert_eq!(
            entries("NODE_OPTIONS", "--require x --max-old-space-size=10"),
            ["x"]
        );
        assert_eq!(entries("LD_PRELOAD", "/a.so ./b.so"), ["/a.so", "./b.so"]);
    }
}
