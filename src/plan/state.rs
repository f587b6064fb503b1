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
//!   `cd DIR` earlier on the line. The words are those of the one lexer
//!   ([`super::words::tokens_of`], issue 29), which the allow-list of `check:` lines reads
//!   too: an argv as it is, a shell line split as the shell splits it, with the plan's
//!   `env:` values put in; a `check:` line with another `$`, or a glob or `~` where a program
//!   is named, is refused ([`super::grammar`]), since what it names is not known before the
//!   run. What `<` feeds a command other than an interpreter with no script is data. A data
//!   word (`cmp answer.txt expected.txt`) is not taken: the
//!   task's own output is named on the same lines and may exist from an earlier run.
//!   What a grader runs in turn (a helper it calls, a data file it reads) is not seen: list
//!   those in `fixtures:` (globs), which are protected too;
//! - every `fixtures:` file.
//!
//! A named file that is a symbolic link in a folder the trials may write is refused when the
//! plan is loaded (the box protects what it points to, not the link), unless the link lies
//! in an environment below that is gate's state (a venv's `bin/`, `node_modules/.bin/`),
//! where no trial can re-point it. A `check:` program in a
//! folder the trials write brings its environment as gate's state too (review 8): the venv
//! or `node_modules` it lies in ([`environment_root`]), or the `node_modules` a launcher
//! such as `npx` runs it from.
//!
//! [`Snapshot`] fingerprints the same files (and `--after` ledgers) before the first trial,
//! so that a change on a kernel without the box's walls is still seen when the run ends: the
//! run then publishes no verdict (exit 4). It never follows a link blindly, never blocks on
//! a FIFO and never reads more than [`MAX_SNAPSHOT_BYTES`] of a file.

use std::path::{Path, PathBuf};

use super::words::{INTERPRETERS, Lang, Token, files_under, tokens_of};
use super::{CommandLine, Plan, PlanError};
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
        let mut lines = vec![(&t.run, &t.cwd, &t.env)];
        lines.extend(t.check.as_ref().map(|c| (c, &t.cwd, &t.env)));
        if let Some(c) = t.compare() {
            lines.push((&c.base.run, &c.base.cwd, &c.base.env));
            lines.extend(c.base.check.as_ref().map(|l| (l, &c.base.cwd, &c.base.env)));
        }
        for (line, cwd, env) in lines {
            files.extend(programs_named(line, cwd, env));
        }
        for (line, cwd, env) in check_lines(t) {
            files.extend(super::words::text_fed_paths(
                &plan_dir(plan),
                line,
                cwd,
                env,
            ));
        }
    }
    files.extend(plan.fixture_files.iter().map(|f| absolute(f)));
    let mut seen = std::collections::BTreeSet::new();
    files.retain(|f| seen.insert(f.clone()));
    files
}

/// The programs and scripts the plan's `run` and `check` lines name (its fixtures are in
/// the fixture hash), each by its path (relative to the plan's folder where it lies beneath
/// it) with its fingerprint (`sha256 …`): recorded in the ledger's header, so that a later
/// stage (`--after`) or a resume refuses to go on with other programs than the ledger's
/// trials ran (review 5, V3: a stage 1 of another checkout or an older agent script).
pub fn program_hashes(plan: &Plan) -> std::collections::BTreeMap<String, String> {
    let dir = plan
        .path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dir = absolute(dir);
    let fixtures: Vec<PathBuf> = plan.fixture_files.iter().map(|f| absolute(f)).collect();
    named_files(plan)
        .into_iter()
        .filter(|f| !fixtures.contains(f))
        .map(|f| {
            let key = f.strip_prefix(&dir).unwrap_or(&f).display().to_string();
            (key, fingerprint(&f))
        })
        .collect()
}

/// The programs of `recorded` (a ledger's [`program_hashes`]) whose fingerprint differs
/// from the same program's in `plan` now; a program named by one of them only is left out
/// (a file the plan names only once it exists, such as a build's output).
pub fn programs_changed(
    recorded: &std::collections::BTreeMap<String, String>,
    plan: &Plan,
) -> Vec<String> {
    let now = program_hashes(plan);
    recorded
        .iter()
        .filter(|(k, v)| now.get(*k).is_some_and(|n| n != *v))
        .map(|(k, _)| k.clone())
        .collect()
}

/// What puts a folder among [`state_folders`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holds {
    /// A program or script a `check:` line names.
    Grader,
    /// A `fixtures:` file.
    Fixture,
}

impl Holds {
    fn noun(self) -> &'static str {
        match self {
            Holds::Grader => "the `check:` grader",
            Holds::Fixture => "the fixture",
        }
    }
}

/// The folders that hold plan state, each with a file that put it there: the folder of every
/// program or script a `check:` line names (of a task, or of a compare task's base side) and
/// of every `fixtures:` file; absolute, with links resolved; a folder beneath another one of
/// the list is left out (the outer one holds it).
///
/// A grader loads more than its own file, and looks for it beside itself first: a
/// `__pycache__/*.pyc` whose header matches its source, a `conftest.py` beside a pytest
/// test, a `node_modules/` package, a module on `sys.path[0]` (review 5, P1–P3). A file a
/// trial creates there runs inside the grader, and no list of files can name a file before
/// it exists; so these folders are gate's state *as folders*: read-only to the trials as a
/// whole (a bind of the folder under the mount layer, no right to create under the
/// allow-list), and fingerprinted with every file beneath them for the end-of-run check.
pub fn state_folders(plan: &Plan) -> Vec<(PathBuf, PathBuf, Holds)> {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| absolute(p));
    let mut held: Vec<(PathBuf, PathBuf, Holds)> = Vec::new();
    let mut add = |file: PathBuf, holds: Holds| {
        if let Some(folder) = real(&file).parent() {
            held.push((folder.to_path_buf(), file, holds));
        }
    };
    let roots = writable_roots(plan);
    let mut environments = Vec::new();
    for t in &plan.tasks {
        for (line, cwd, env) in check_lines(t) {
            for f in programs_named(line, cwd, env) {
                // The environment a program brings (a venv, a `node_modules`), with the link
                // that names it if it is one.
                if let Some(root) = environment_root(&link_location(&f), &roots) {
                    environments.push((root, f.clone()));
                }
                add(f, Holds::Grader);
            }
            for f in super::words::text_fed_paths(&plan_dir(plan), line, cwd, env) {
                add(f, Holds::Grader);
            }
            for nm in launched_node_modules(line, cwd, env, &roots) {
                environments.push((nm.clone(), nm.join(".bin")));
            }
        }
    }
    for f in &plan.fixture_files {
        add(absolute(f), Holds::Fixture);
    }
    held.extend(
        environments
            .into_iter()
            .map(|(folder, file)| (folder, file, Holds::Grader)),
    );
    held.sort_by(|a, b| a.0.cmp(&b.0));
    let folders: Vec<PathBuf> = held.iter().map(|h| h.0.clone()).collect();
    held.retain(|(f, _, _)| !folders.iter().any(|o| o != f && f.starts_with(o)));
    held.dedup_by(|a, b| a.0 == b.0);
    held
}

/// `file` with its folder's links resolved and its own name kept: where a link lies.
fn link_location(file: &Path) -> PathBuf {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| absolute(p));
    match (file.parent(), file.file_name()) {
        (Some(dir), Some(name)) => real(dir).join(name),
        _ => absolute(file),
    }
}

/// The environment a program at `at` (a link's location, see [`link_location`]) brings
/// when it lies in one of the writable `roots` (review 8, a02, a27, a28): the nearest
/// folder above it that holds `pyvenv.cfg` (a Python venv, whose `site-packages` runs every
/// `.pth` in it at start-up), or the nearest `node_modules` (whose packages node loads); a
/// folder that is a writable root is never one.
pub(super) fn environment_root(at: &Path, roots: &[PathBuf]) -> Option<PathBuf> {
    let root = roots.iter().find(|r| at.starts_with(r))?;
    for folder in at.ancestors().skip(1) {
        if folder == root || !folder.starts_with(root) {
            return None;
        }
        if folder.join("pyvenv.cfg").is_file()
            || folder.file_name() == Some("node_modules".as_ref())
        {
            return Some(folder.to_path_buf());
        }
    }
    None
}

/// Launchers that run a tool from `./node_modules/.bin` (`npx jest`, `pnpm exec jest`).
pub(super) fn launches_node_tool(words: &[String]) -> bool {
    let name = super::words::name_of(&words[0]);
    let sub = words.get(1).map(String::as_str);
    matches!(name.as_str(), "npx" | "bunx" | "pnpx")
        || (matches!(name.as_str(), "npm" | "pnpm" | "yarn" | "bun")
            && matches!(sub, Some("exec" | "x" | "dlx")))
}

/// The `node_modules` folders a launcher on `line` ([`launches_node_tool`]) runs a tool
/// from: the nearest one above the folder it runs in (after any `cd`), within a writable
/// root; `None` in the list for a launcher that finds none there (see
/// [`super::grammar`]: refused).
pub(super) fn launched_node_modules(
    line: &CommandLine,
    cwd: &Path,
    env: &[(String, String)],
    roots: &[PathBuf],
) -> Vec<PathBuf> {
    launcher_folders(line, cwd, env, roots)
        .into_iter()
        .flatten()
        .collect()
}

/// For each launcher on `line`, the `node_modules` it resolves from in a writable root, or
/// `None` (see [`launched_node_modules`]).
pub(super) fn launcher_folders(
    line: &CommandLine,
    cwd: &Path,
    env: &[(String, String)],
    roots: &[PathBuf],
) -> Vec<Option<PathBuf>> {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| absolute(p));
    let mut dir = cwd.to_path_buf();
    let mut out = Vec::new();
    let mut folders = super::words::Folders::new();
    let tokens = super::words::tokens_of(line, env);
    for (scope, words) in super::words::scoped_commands(&tokens) {
        folders.at(&scope, &mut dir);
        let name = super::words::name_of(&words[0]);
        if matches!(name.as_str(), "cd" | "pushd") {
            let folder = super::words::cd_folder(&words);
            if let Some(d) = folder.map(|d| dir.join(d)).filter(|d| d.is_dir()) {
                dir = d;
            }
            continue;
        }
        if !launches_node_tool(&words) {
            continue;
        }
        let here = real(&dir);
        let Some(root) = roots.iter().find(|r| here.starts_with(r)) else {
            continue;
        };
        let found = here
            .ancestors()
            .take_while(|d| d.starts_with(root))
            .map(|d| d.join("node_modules"))
            .find(|nm| nm.is_dir());
        out.push(found);
    }
    out
}

/// A `check:` line, the folder it runs in and the `env:` it runs with.
pub(super) type CheckLine<'a> = (&'a CommandLine, &'a PathBuf, &'a Vec<(String, String)>);

/// The `check:` lines of task `t` (its own and its base side's), each with the folder it
/// runs in and the `env:` it runs with.
pub(super) fn check_lines(t: &super::Task) -> Vec<CheckLine<'_>> {
    let mut checks = Vec::new();
    checks.extend(t.check.as_ref().map(|c| (c, &t.cwd, &t.env)));
    if let Some(c) = t.compare() {
        checks.extend(c.base.check.as_ref().map(|l| (l, &c.base.cwd, &c.base.env)));
    }
    checks
}

/// The plan file's folder, absolute.
fn plan_dir(plan: &Plan) -> PathBuf {
    let dir = plan.path.parent().filter(|d| !d.as_os_str().is_empty());
    absolute(dir.unwrap_or(Path::new(".")))
}

/// The `.git` folders a `check:` line reads through `git` (review 5, P4): a grader such as
/// `git diff --quiet -- config/prod.yaml` answers from the repository's index and config,
/// which sit in the task's working folder. A task that edits the file and then runs `git
/// update-index --assume-unchanged` on it, or sets a clean filter in `.git/config`, makes
/// the grader see no change. So when a task's `check:` (or base's) runs `git` as a command,
/// the `.git` folder of its working folder is gate's state: read-only to the trials (an
/// agent that must commit cannot be graded this way; grade from a copy). Also when the line
/// names a grader of the plan's own, which may run git however it likes (reviews 21, 22).
pub fn git_folders(plan: &Plan) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for t in &plan.tasks {
        let mut checks = Vec::new();
        checks.extend(t.check.as_ref().map(|c| (c, &t.cwd, &t.env)));
        if let Some(c) = t.compare() {
            checks.extend(c.base.check.as_ref().map(|l| (l, &c.base.cwd, &c.base.env)));
        }
        for (line, cwd, env) in checks {
            // The git folder the check's git is pinned to (`Sandbox::pin_checks`), where its
            // links lead: a `.git` that is a link into the task folder too (review 24, 03).
            let Some(git) =
                repository_of(&absolute(cwd)).and_then(|(dir, _)| std::fs::canonicalize(dir).ok())
            else {
                continue;
            };
            // A grader of the plan's own runs what gate cannot read to the end (a compiled
            // program, a helper it builds a name for): its `.git` is held whenever one is
            // named (review 22).
            if (!own_graders(line, cwd, env).is_empty()
                || invokes_git(line, env)
                || env.iter().any(|(_, v)| super::words::mentions_git(v)))
                && std::fs::symlink_metadata(&git).is_ok_and(|m| m.is_dir())
                && !found.contains(&git)
            {
                found.push(git);
            }
        }
    }
    found
}

/// The `node_modules` folders on node's way from a check to its packages, inside the
/// trials' writable roots ([`node_folders`]).
#[derive(Debug, Default)]
pub struct NodeFolders {
    /// Those that exist: held read-only to the trials while they run (review 22, 14: a
    /// grader's bare `require("yaml-lite")` found in the task's `node_modules`, which the
    /// trial rewrote), and fingerprinted for the end-of-run check (review 28, 01: a package
    /// file hard-linked to a file the trials write changes under its held name).
    pub held: Vec<PathBuf>,
    /// Every `node_modules` path on the walk, as written, whatever it is when the run
    /// starts: one a trial creates is where node looks next for a package the folders below
    /// lack (review 26, 14: an optional `require("eq-native")` inside
    /// `graders/node_modules/eq`), and one that is a link, a file or a dangling link a trial
    /// can replace (review 29, 01d–01g). A check that finds one changed does not run
    /// ([`crate::runner::sandbox::Sandbox::watch`]).
    pub watched: Vec<PathBuf>,
    /// Every `package.json` path on node's way from any check to a package it loads by
    /// name: in the check's folder, each grader's folder and the folders above them, inside
    /// the trials' writable roots, whatever gate reads of the graders (review 41). Node
    /// reads the nearest one first, and a `name` with `exports` there is the package itself
    /// (self-reference), an `imports` map the `#…` names: a trial that writes one makes the
    /// package a grader loads by name its own, however the grader spells the name. A check
    /// that finds those fields changed does not run
    /// ([`crate::runner::sandbox::Sandbox::watch_manifests`]).
    pub manifests: Vec<PathBuf>,
    /// Every `node_modules` path where node looks for a check's packages, whatever gate
    /// reads of its graders (review 42, 110g-110h: a preload spelled so that gate does not
    /// read it): on the way from the check's folder and its graders' (as for
    /// [`NodeFolders::manifests`]), and in every folder below the check's when the run
    /// starts. Those not [`NodeFolders::held`] are watched package by package
    /// ([`crate::runner::sandbox::packages::Packages`]).
    pub packages: Vec<PathBuf>,
    /// A check's folder with more than [`MANIFEST_SCAN_ENTRIES`] entries below it: the
    /// `package.json` files and `node_modules` paths past them are not watched.
    pub partial: Option<PathBuf>,
    /// The folders on the way of every check that runs node (the check's folder and each
    /// grader's, each up to the top of its writable root, as for
    /// [`NodeFolders::manifests`]), where the tools such a check runs read their
    /// configuration from the folder they run in (review 50: `.env` through dotenv,
    /// `tsconfig.json` through tsx, `.npmrc` through npm, `.mocharc.js` through mocha). A
    /// check that finds one of those files changed does not run
    /// ([`crate::runner::sandbox::configs`]).
    pub configs: Vec<PathBuf>,
    /// The folder of every check that runs node: the configuration in every folder below
    /// it is compared too, in those there when the run starts and those made since
    /// (review 50, rev50b 01, 15; rev50c 06-09, 11, 22: a grader that runs its tool from a
    /// folder below, by any spelling, finds what a trial wrote there)
    /// ([`crate::runner::sandbox::configs::Configs::take`]).
    pub config_roots: Vec<(PathBuf, PathBuf)>,
    /// The files a node check's line or graders' text hands a tool by an option as a literal
    /// path (`mocha --config x.js`: [`super::words::configs_named`]), in a folder the trials
    /// write, there or not: compared before each check as the configuration names the wall
    /// knows are ([`crate::runner::sandbox::configs::Configs::take`]).
    pub named_configs: Vec<PathBuf>,
    /// The `package.json` paths on the way of every check that runs a package manager's
    /// script (`npm test`, `yarn build`, an `npm` in a grader's text): there `scripts` is
    /// the command the check runs (review 42, 110l, 110m), compared with the fields of
    /// [`NodeFolders::manifests`]. Only for those checks: an agent's `npm pkg set
    /// scripts.x` under any other check is its own business.
    pub scripts: Vec<PathBuf>,
    /// The names the node checks run through a launcher (`npx jest`, `pnpm exec mocha`,
    /// `yarn vitest`), on the line or in a grader's text: a new name in a watched
    /// `node_modules/.bin` is a change only when it is one of these, or a name a `.bin` on
    /// the way held when the run started (review 46, a17, a18, a18b).
    pub launched: Vec<String>,
}

/// Whether a check line runs a package manager's script (`npm test`, `npm run x`, `yarn
/// x`, `pnpm test`, `bun run x`), or one of its graders names a package manager (a grader
/// script's `npm test`): the project's `package.json` `scripts` is then what runs.
fn runs_package_script(line: &CommandLine, cwd: &Path, env: &[(String, String)]) -> bool {
    let manager = |c: &[String]| {
        let name = super::words::name_of(&c[0]);
        // npm started by its script (`node …/npm/bin/npm-cli.js test`: rev50c 04): its
        // words from the script on.
        if matches!(name.as_str(), "node" | "nodejs" | "bun")
            && let Some(i) = (1..c.len()).find(|&i| !c[i].starts_with('-'))
            && (matches!(
                super::words::name_of(&c[i]).as_str(),
                "npm-cli.js" | "yarn.js" | "yarn.cjs" | "pnpm.cjs" | "pnpm.js" | "pnpm.mjs"
            ) || Path::new(&c[i]).components().any(|p| {
                // A script of npm's, yarn's or pnpm's own package (`…/npm/index.js`: rev50e
                // 01), which runs its command line.
                matches!(
                    p.as_os_str().to_str(),
                    Some("npm" | "yarn" | "pnpm" | "corepack")
                )
            }))
        {
            return !matches!(c.get(i + 1).map(String::as_str), Some("exec" | "x" | "dlx"));
        }
        (matches!(name.as_str(), "npm" | "pnpm" | "yarn") && !launches_node_tool(c))
            || (name == "bun" && c.get(1).is_some_and(|s| s == "run"))
    };
    super::words::simple_commands(&tokens_of(line, env))
        .iter()
        .any(|c| manager(c))
        || grader_files(line, cwd, env).iter().any(|f| {
            grader_text(f).is_some_and(|t| {
                ["npm", "pnpm", "yarn"]
                    .iter()
                    .any(|n| super::words::mentions_word(&t, n))
            })
        })
}

/// The names `text` runs through a launcher that finds them in `node_modules/.bin`
/// (`npx x`, `bunx x`, `pnpx x`, `npm exec x`, `pnpm exec x`, `yarn dlx x`, `yarn x`,
/// `yarn run x`, `pnpm x`), read word by word: text split at blanks, quotes, brackets and
/// commas, so that a JavaScript `execSync("npx x")` or `["npx", "x"]` reads as a shell
/// line does. A name with a version (`x@1`) is its name; a scoped one (`@s/x`) is also its
/// last part (the bin a scoped package usually installs).
fn launched_names(text: &str) -> Vec<String> {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || "\"'`()[]{},;&|".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let base = |w: &str| w.rsplit('/').next().unwrap_or(w).to_string();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let name = base(w);
        let rest = &words[i + 1..];
        let start = match (name.as_str(), rest.first().copied()) {
            ("npx" | "bunx" | "pnpx", _) => 0,
            ("npm" | "pnpm" | "yarn" | "bun", Some("exec" | "x" | "dlx" | "run")) => 1,
            ("yarn" | "pnpm", Some(_)) => 0,
            _ => continue,
        };
        let mut k = start;
        while let Some(o) = rest.get(k) {
            if *o == "--" {
                k += 1;
            } else if matches!(*o, "-p" | "--package" | "-c" | "--call") {
                k += 2;
            } else if o.starts_with('-') {
                k += 1;
            } else {
                break;
            }
        }
        let Some(tool) = rest.get(k) else { continue };
        // `x@1.2`, `@s/x@1`: the version is no part of the name.
        let tool = match tool.rfind('@') {
            Some(at) if at > 0 => &tool[..at],
            _ => tool,
        };
        if tool.is_empty() || tool.contains('=') {
            continue;
        }
        out.push(tool.to_string());
        if let Some((_, last)) = tool.rsplit_once('/') {
            out.push(last.to_string());
        }
    }
    out
}

/// The `node_modules` folders node could load a check's packages from: in the check's
/// folder or a folder above it, or above one of its graders, inside the trials' writable
/// roots, for a check line that runs node (by name, by a grader that is JavaScript, or from a
/// grader whose text names node or `require`).
pub fn node_folders(plan: &Plan) -> NodeFolders {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| absolute(p));
    let roots = task_folder_roots(plan);
    let mut found = NodeFolders::default();
    // What `found.manifests` and `found.packages` hold, for a look that does not grow with
    // them (a task folder of thousands of folders gives as many `node_modules` paths).
    let mut listed: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    // Likewise for `found.configs`, `found.scripts` and `found.launched`.
    let mut config_listed: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    let mut script_listed: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    let mut launched: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut path_lists: std::collections::HashMap<std::ffi::OsString, Vec<String>> =
        std::collections::HashMap::new();
    for t in &plan.tasks {
        for (line, cwd, env) in check_lines(t) {
            let graders = own_graders(line, cwd, env);
            let runs_node = check_runs_node(line, cwd, env);
            let top = roots.iter().find(|r| real(cwd).starts_with(r));
            // A node check whose line or grader text changes to a folder in another writable
            // root (`cd ../shared/app && mocha` with `writable: [shared]`) runs its tools
            // there: that folder is watched as the check's own is, its way up and the whole
            // root below (review 51c: a `.mocharc.yml` a trial wrote there PASSed a wrong
            // answer). Read from text, so a net: a folder named at run time escapes it.
            let entered: Vec<(PathBuf, PathBuf)> = if runs_node {
                other_roots_entered(line, cwd, env, &roots, top)
            } else {
                Vec::new()
            };
            // Node's way up to a package: from the check's folder and each grader's, each
            // folder to the top of its writable root.
            let way: Vec<PathBuf> = std::iter::once(real(cwd))
                .chain((graders.iter()).filter_map(|g| real(g).parent().map(Path::to_path_buf)))
                .chain(entered.iter().map(|(e, _)| e.clone()))
                .filter_map(|start| {
                    let root = roots.iter().find(|r| start.starts_with(r))?;
                    let up = start.ancestors().take_while(|d| d.starts_with(root));
                    Some(up.map(Path::to_path_buf).collect::<Vec<_>>())
                })
                .flatten()
                .collect();
            // Review 41: for every check, since no reading of a grader's text finds every
            // package it loads by name (every one of review 41's 25 attacks wrote one).
            for folder in &way {
                let manifest = folder.join("package.json");
                if listed.insert(manifest.clone()) {
                    found.manifests.push(manifest);
                }
                let modules = folder.join("node_modules");
                if listed.insert(modules.clone()) {
                    found.packages.push(modules);
                }
            }
            // Review 42, 110i-110k: a grader may run node from a folder below the check's
            // (`cd app && node -r …`, `cwd="app"`), whose `package.json` node reads first.
            // Those there when the run starts are watched too; one a trial creates in a
            // folder of its own is not (a new package of an agent's monorepo must stay
            // possible). Not only below the check's folder: below the top of the writable
            // root that holds it, where a grader may run from a sibling folder (`cd ../web
            // && node -r eq/config …` in a monorepo made writable whole: review 46, a11).
            let mut below = Vec::new();
            let starts = top
                .map(|t| (real(cwd), t.clone()))
                .into_iter()
                .chain(entered.clone());
            for (first, root) in starts {
                let (manifests, modules, folders, whole) = node_folders_below(&first, &root);
                below.extend(folders);
                if !whole {
                    found.partial.get_or_insert_with(|| root.clone());
                }
                for manifest in manifests {
                    if listed.insert(manifest.clone()) {
                        found.manifests.push(manifest);
                    }
                }
                for m in modules {
                    if listed.insert(m.clone()) {
                        found.packages.push(m);
                    }
                }
            }
            // What follows is for a check that runs node only (and reads every grader
            // file: not for a check that does not).
            if !runs_node {
                continue;
            }
            // Review 50: the configuration the tools of a node check read from the folder
            // they run in, whatever the graders' text says of them.
            // And in every folder below the check's when the run starts: a grader may
            // run its tool from one (`cd app && mocha`, `cd app && npm test`: review 50,
            // rev50b 01, 15), as node's own look for a `package.json` there (above).
            for folder in &way {
                if config_listed.insert(folder.clone()) {
                    found.configs.push(folder.clone());
                }
            }
            // From the top of the check's writable root (a11, as above).
            for file in named_configs(line, cwd, env, &roots, &entered) {
                if !found.named_configs.contains(&file) {
                    found.named_configs.push(file);
                }
            }
            let from = (real(cwd), top.cloned().unwrap_or_else(|| real(cwd)));
            for from in std::iter::once(from).chain(entered) {
                if !found.config_roots.contains(&from) {
                    found.config_roots.push(from);
                }
            }
            if runs_package_script(line, cwd, env) {
                for folder in way.iter().chain(&below) {
                    let manifest = folder.join("package.json");
                    if script_listed.insert(manifest.clone()) {
                        found.scripts.push(manifest);
                    }
                }
                // npm, yarn and pnpm put `node_modules/.bin` first on the `PATH` of a
                // script and of everything it starts: a new name there is in front of
                // a program the script, a grader or a tool runs by its name (`node`, a
                // tool installed globally: review 50, rev50b 06, 07, where a grader's
                // text started `npm test`). So under a package script a new `.bin` name
                // that is a program on the `PATH` when the run starts, or a word of a
                // `scripts` entry, counts as a name the check runs.
                let path = (env.iter().rev())
                    .find(|(k, _)| k == "PATH")
                    .map(|(_, v)| std::ffi::OsString::from(v))
                    .or_else(|| std::env::var_os("PATH"))
                    .unwrap_or_default();
                // Read once per `PATH`, not once per check line.
                let programs = (path_lists.entry(path))
                    .or_insert_with_key(|p| path_programs(p))
                    .clone();
                for name in programs
                    .into_iter()
                    .chain(way.iter().chain(&below).flat_map(|f| script_words(f)))
                {
                    if launched.insert(name.clone()) {
                        found.launched.push(name);
                    }
                }
            }
            // The grader files, listed and read once for every reading below.
            let files = grader_files(line, cwd, env);
            let mut texts = vec![line.display()];
            texts.extend(files.iter().filter_map(|f| grader_text(f)));
            for name in texts.iter().flat_map(|t| launched_names(t)) {
                if launched.insert(name.clone()) {
                    found.launched.push(name);
                }
            }
            // Review 31, 22d-22e: node looks in a `node_modules` only for a package, so a
            // check whose graders name none (only node's own modules and files by their
            // path) leaves the task's to the trials (a JavaScript task whose agent installs
            // a dependency). A package named anywhere in the graders' files, a preload or
            // inline code on the line, a package runner, or `NODE_OPTIONS` counts.
            // A path into a `node_modules` (`require("../node_modules/eq")`: review 27, 09b)
            // names a package too.
            let bare = |t: &str| names_a_package(t);
            let line_words = super::words::simple_commands(&tokens_of(line, env));
            let line_loads = line_words.iter().flatten().any(|w| {
                [
                    "-r",
                    "--require",
                    "--import",
                    "--loader",
                    "--experimental-loader",
                    "-e",
                    "--eval",
                    "-p",
                    "--print",
                    "--test",
                    "--test-reporter",
                    "npx",
                    "npm",
                    "yarn",
                    "pnpm",
                ]
                .iter()
                .any(|f| {
                    w == f || w.starts_with(&format!("{f}=")) || super::invoke::name_of(w) == *f
                }) || w.starts_with("-r")
            }) || env
                .iter()
                .any(|(k, _)| k == "NODE_OPTIONS" || k == "NODE_PATH");
            // Graders past the files gate reads may name one (review 22, 22a).
            let loads_packages = line_loads
                || files.len() >= GRADER_FILES
                // A package named, or one a grader script preloads by name (review 35, 61c).
                || texts[1..]
                    .iter()
                    .any(|t| bare(t) || !super::words::bare_preloads(t).is_empty());
            if !loads_packages {
                continue;
            }
            for folder in &way {
                let modules = folder.join("node_modules");
                if modules.is_dir() && !found.held.contains(&real(&modules)) {
                    found.held.push(real(&modules));
                }
                if !found.watched.contains(&modules) {
                    found.watched.push(modules);
                }
            }
        }
    }
    // A held folder is read-only to the trials and fingerprinted whole already.
    (found.packages).retain(|m| !found.held.contains(&real(m)));
    found
}

/// The names of the programs in the folders of `path`, the `PATH` a check starts with (the
/// plan's `env:` `PATH`, else gate's own), when the run starts: at most [`PATH_PROGRAMS`].
fn path_programs(path: &std::ffi::OsStr) -> Vec<String> {
    let mut out = Vec::new();
    for dir in std::env::split_paths(path) {
        let Ok(list) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in list.flatten().take(PATH_PROGRAMS.saturating_sub(out.len())) {
            if let Some(n) = e.file_name().to_str() {
                out.push(n.to_string());
            }
        }
    }
    out
}

/// Program names read at most from the `PATH`'s folders ([`path_programs`]).
const PATH_PROGRAMS: usize = 50_000;

/// The words of the `scripts` entries of the `package.json` at `manifest` when the run
/// starts (split as [`launched_names`] splits text): what a package script runs by name.
fn script_words(manifest: &Path) -> Vec<String> {
    if !std::fs::metadata(manifest).is_ok_and(|m| m.is_file() && m.len() <= 4 << 20) {
        return Vec::new();
    }
    let Ok(text) = std::fs::read_to_string(manifest) else {
        return Vec::new();
    };
    let Ok(v) = serde_json::from_str::<serde_json::Value>(text.trim_start_matches('\u{feff}'))
    else {
        return Vec::new();
    };
    let Some(scripts) = v.get("scripts").and_then(|s| s.as_object()) else {
        return Vec::new();
    };
    scripts
        .values()
        .filter_map(|c| c.as_str())
        .flat_map(|c| {
            c.split(|ch: char| ch.is_whitespace() || "\"'`()[]{},;&|=".contains(ch))
                .filter(|w| !w.is_empty() && !w.starts_with('-'))
                .map(|w| w.rsplit('/').next().unwrap_or(w).to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Folders read at most below a check's folder for the `package.json` files there
/// ([`node_folders_below`]).
pub const MANIFEST_SCAN_ENTRIES: usize = 100_000;

/// The `package.json` paths of the folders below `root` (the top of a check's writable
/// root; there or not; those below `first`, the check's folder, read first): not in a
/// `node_modules` (a package's own, which the `node_modules` rules cover), `.git` or a Python environment; at most [`MANIFEST_SCAN_ENTRIES`] entries read.
/// Second, the `node_modules` path of each of those folders, there or not (where node, run
/// in that folder, looks first).
/// Third, those folders (where a grader may run a tool that reads its configuration there).
/// Fourth, whether every entry was read.
fn node_folders_below(
    first: &Path,
    root: &Path,
) -> (Vec<PathBuf>, Vec<PathBuf>, Vec<PathBuf>, bool) {
    let mut found = Vec::new();
    let mut modules = Vec::new();
    let mut folders = Vec::new();
    // `first` (the check's folder) and all below it before the rest of `root`: a large
    // sibling must not push the check's own folders past the bound (review 51b, 06).
    let mut todo = vec![root.to_path_buf(), first.to_path_buf()];
    let mut done: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    let mut seen = 0usize;
    while let Some(dir) = todo.pop() {
        if !done.insert(dir.clone()) {
            continue;
        }
        // Node run from any folder below looks in its `node_modules` first, there or not
        // (review 43, 08: `cd src && node -r …`, the trial creating `src/node_modules`).
        if dir != root {
            modules.push(dir.join("node_modules"));
            // And its `package.json`, there or not: one a trial writes in a folder that had
            // none is the first node reads there (review 46, a10, from a folder that existed
            // without one). A missing file and one without `exports` or `imports` compare
            // alike, so an agent's new package without them runs as before.
            found.push(dir.join("package.json"));
            folders.push(dir.clone());
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            seen += 1;
            if seen > MANIFEST_SCAN_ENTRIES {
                return (found, modules, folders, false);
            }
            let Ok(kind) = e.file_type() else { continue };
            let name = e.file_name();
            if kind.is_dir()
                && !matches!(
                    name.to_str(),
                    Some(
                        "node_modules"
                            | ".git"
                            | ".venv"
                            | "venv"
                            | "__pycache__"
                            | "gate-out"
                            // Yarn's own store (`unplugged`), which Plug'n'Play resolves
                            // through its map, not a `node_modules` walk (review 45, u3).
                            | ".yarn"
                    )
                )
                && e.path().starts_with(root)
            {
                todo.push(e.path());
            }
        }
    }
    (found, modules, folders, true)
}

/// The folders in a writable root other than `top` (the one holding the check's folder
/// `cwd`) that `line` or its graders' text changes to by a literal name
/// ([`super::words::folders_entered`]), taken from `cwd` and from each grader's folder, each
/// with the top of its writable root (`roots`). Folders that do not exist are refused at
/// load where they lie in a folder the trials write
/// ([`super::reach::refuse_node_from_a_folder_made_in_the_run`]).
fn other_roots_entered(
    line: &CommandLine,
    cwd: &Path,
    env: &[(String, String)],
    roots: &[PathBuf],
    top: Option<&PathBuf>,
) -> Vec<(PathBuf, PathBuf)> {
    let files = grader_files(line, cwd, env);
    let mut texts = vec![(line.display(), cwd.to_path_buf())];
    for f in &files {
        if let (Some(t), Some(d)) = (grader_text(f), f.parent()) {
            texts.push((t, d.to_path_buf()));
        }
    }
    let mut out: Vec<(PathBuf, PathBuf)> = Vec::new();
    for (text, dir) in texts {
        for name in super::words::folders_entered(&text) {
            for base in [cwd, dir.as_path()] {
                let Ok(at) = std::fs::canonicalize(base.join(&name)) else {
                    continue;
                };
                if !at.is_dir() {
                    continue;
                }
                let Some(root) = roots.iter().find(|r| at.starts_with(r)) else {
                    continue;
                };
                if Some(root) != top && !out.iter().any(|(e, _)| *e == at) {
                    out.push((at, root.clone()));
                }
            }
        }
    }
    out
}

/// The files `line` or its graders' text hands a node tool by an option
/// ([`super::words::configs_named`]), each taken from the check's folder `cwd`, the
/// grader's own folder and each folder of `entered`, that lie in a writable root (`roots`):
/// those there, or where none is, every place it would be.
fn named_configs(
    line: &CommandLine,
    cwd: &Path,
    env: &[(String, String)],
    roots: &[PathBuf],
    entered: &[(PathBuf, PathBuf)],
) -> Vec<PathBuf> {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| lexical(&absolute(p)));
    let mut texts = vec![(line.display(), None)];
    for f in grader_files(line, cwd, env) {
        if let Some(t) = grader_text(&f) {
            texts.push((t, f.parent().map(Path::to_path_buf)));
        }
    }
    // Under a package script (`npm test`), the command is a `scripts` entry of the
    // `package.json` on the check's way (review 54, 17: `"test": "mocha --config ci.json"`).
    // And of each folder the line or a grader enters (review 55, 24: `cd app && npm test`,
    // `npm --prefix app test`), on its way up too.
    if runs_package_script(line, cwd, env) {
        let mut starts = vec![real(cwd)];
        for (text, _) in &texts {
            starts.extend(
                (super::words::folders_entered(text).into_iter())
                    .map(|e| cwd.join(e))
                    .filter(|e| e.is_dir())
                    .map(|e| real(&e)),
            );
        }
        starts.extend(entered.iter().map(|(e, _)| real(e)));
        let mut dirs: Vec<PathBuf> = Vec::new();
        for start in &starts {
            for d in start
                .ancestors()
                .take_while(|d| roots.iter().any(|r| d.starts_with(r)))
            {
                if !dirs.iter().any(|x| x == d) {
                    dirs.push(d.to_path_buf());
                }
            }
        }
        for dir in dirs {
            let Ok(text) = std::fs::read(dir.join("package.json")) else {
                continue;
            };
            let Ok(serde_json::Value::Object(o)) = serde_json::from_slice(&text) else {
                continue;
            };
            if let Some(serde_json::Value::Object(scripts)) = o.get("scripts") {
                let all: Vec<&str> = scripts.values().filter_map(|v| v.as_str()).collect();
                texts.push((all.join("\n"), Some(dir.to_path_buf())));
            }
        }
    }
    let mut out = Vec::new();
    // A named configuration's own text names more (review 56, 60, 61: an `--env-file`'s
    // `NODE_OPTIONS="--require ./setup.js"`, a `ci.json` whose `require` is
    // `./helper.js`): each one found is read in turn, two deep, for the options above and
    // for every quoted relative path (`"./x"`, `"../x"`) in it.
    let mut queue: Vec<(String, Option<PathBuf>, usize)> =
        texts.into_iter().map(|(t, d)| (t, d, 0)).collect();
    // The tools' own keys of each `package.json` on the check's way (`"mocha": {"require":
    // "./helper.js"}`, jest's `setupFiles`: review 56, 61) are such a configuration too.
    // Not `nyc`'s or `c8`'s: their lists name the sources they measure (review 57, H20).
    const TOOL_KEYS: &[&str] = &["mocha", "jest", "ava", "tap", "babel", "vitest"];
    for dir in real(cwd)
        .ancestors()
        .take_while(|d| roots.iter().any(|r| d.starts_with(r)))
    {
        let Ok(text) = std::fs::read(dir.join("package.json")) else {
            continue;
        };
        if let Ok(serde_json::Value::Object(o)) = serde_json::from_slice(&text) {
            let tools: serde_json::Map<String, serde_json::Value> = (o.into_iter())
                .filter(|(k, _)| TOOL_KEYS.contains(&k.as_str()))
                .collect();
            if !tools.is_empty() {
                let text = serde_json::Value::Object(tools).to_string();
                queue.push((text, Some(dir.to_path_buf()), 1));
            }
        }
    }
    let mut k = 0;
    while k < queue.len() {
        let (text, dir, depth) = queue[k].clone();
        k += 1;
        let entered_here: Vec<PathBuf> = super::words::folders_entered(&text)
            .into_iter()
            .map(|e| cwd.join(e))
            .filter(|e| e.is_dir())
            .collect();
        let mut names = super::words::configs_named(&text);
        if depth > 0 {
            names.extend(super::words::relative_paths(&super::words::loaded_text(
                &text,
            )));
        }
        for name in names {
            let bases = std::iter::once(cwd.to_path_buf())
                .chain(dir.clone())
                .chain(entered_here.iter().cloned())
                .chain(entered.iter().map(|(e, _)| e.clone()));
            // Each place node would look for it too (review 54, 15, 19: `-r ./setup` loads
            // `setup.js`, `-r ./boot` a folder's `index.js` or its `package.json`'s `main`).
            // A folder itself (`tsc -p app`) is read for the names the wall knows: its own
            // state would move with every file made in it.
            // The name as written too, not only where it leads: a link re-pointed
            // (`ln -sfn evil.json ci.json`) is a change of the link (review 55, 23).
            let places: Vec<PathBuf> = bases
                .flat_map(|b| {
                    let p = b.join(&name);
                    let own = lexical(&absolute(&p));
                    let own = match (own.parent(), own.file_name()) {
                        (Some(d), Some(f)) => real(d).join(f),
                        _ => own,
                    };
                    let to = real(&p);
                    std::iter::once(own.clone()).chain((to != own).then_some(to))
                })
                .flat_map(|p| {
                    let mut near: Vec<PathBuf> = ["js", "cjs", "mjs", "json", "node", "ts"]
                        .iter()
                        .map(|x| PathBuf::from(format!("{}.{x}", p.display())))
                        .collect();
                    near.extend(
                        [
                            "index.js",
                            "index.cjs",
                            "index.mjs",
                            "index.json",
                            "package.json",
                        ]
                        .iter()
                        .map(|f| p.join(f)),
                    );
                    std::iter::once(p).chain(near)
                })
                .filter(|p| roots.iter().any(|r| p.starts_with(r)) && !p.is_dir())
                .collect();
            // Every place, there or not: a file made in front of the one there (`setup`
            // before `setup.js`) is what node loads.
            for p in places {
                if out.contains(&p) {
                    continue;
                }
                let small = std::fs::metadata(&p).is_ok_and(|m| m.is_file() && m.len() <= 1 << 20);
                // A `tsconfig.json`'s paths are the sources it compiles, the agent's own.
                let sources = p.file_name().is_some_and(|n| {
                    let n = n.to_string_lossy();
                    (n.starts_with("tsconfig") || n.starts_with("jsconfig")) && n.ends_with(".json")
                });
                if depth < 2
                    && small
                    && !sources
                    && queue.len() < 256
                    && let Ok(t) = std::fs::read_to_string(&p)
                {
                    queue.push((t, p.parent().map(Path::to_path_buf), depth + 1));
                }
                out.push(p);
            }
        }
    }
    out
}

/// Whether a check line runs node: by name on the line or in its environment, by a grader
/// that is JavaScript or TypeScript, or from a grader file whose text names node or
/// `require` (review 30, 12d-12e: a JavaScript file among the graders' files, an `.mjs`
/// another grader starts by a name built at run time, runs under node too).
pub(super) fn check_runs_node(line: &CommandLine, cwd: &Path, env: &[(String, String)]) -> bool {
    let script = |p: &Path| javascript_file(p, true);
    let names_node = |text: &str| names_a_node_program(text) || text.contains("require(");
    super::words::simple_commands(&tokens_of(line, env))
        .iter()
        .any(|c| c.iter().any(|w| names_node(w)))
        || env.iter().any(|(_, v)| names_node(v))
        || own_graders(line, cwd, env).iter().any(|g| script(g))
        || grader_files(line, cwd, env)
            .iter()
            .any(|f| script(f) || grader_text(f).is_some_and(|t| names_node(&t)))
}

/// [`check_runs_node`] from what the line itself names: node (or a node program) among its
/// words or the plan's `env:` values, or a grader it names that is JavaScript or whose text
/// names node; not a JavaScript file that merely lies beside a grader (what the warning of
/// [`super::reach::definition_warnings`] says, which must not fire on a Python grader
/// there: review 64, 09).
pub(super) fn line_runs_node(line: &CommandLine, cwd: &Path, env: &[(String, String)]) -> bool {
    let names_node = |text: &str| names_a_node_program(text) || text.contains("require(");
    super::words::simple_commands(&tokens_of(line, env))
        .iter()
        .any(|c| c.iter().any(|w| names_node(w)))
        || env.iter().any(|(_, v)| names_node(v))
        || own_graders(line, cwd, env)
            .iter()
            .any(|g| javascript_file(g, true) || grader_text(g).is_some_and(|t| names_node(&t)))
}

/// Entries beneath a folder read at most, links looked for ([`link_out_of`]).
pub(super) const LINK_SCAN_ENTRIES: usize = 200_000;

/// A folder holds more than [`LINK_SCAN_ENTRIES`] entries ([`link_out_of`]).
pub(super) struct TooMany;

/// The first link beneath `folder` (links not followed) whose target lies outside it where
/// `writable` says the trials write, with that target: a file a check loads through a
/// folder gate holds read-only, which a trial rewrites through the target (review 27; 09b:
/// `graders/node_modules/eq/index.js -> ../../../lib/eq.js`). More entries than gate reads
/// is an error of its own.
pub(super) fn link_out_of(
    folder: &Path,
    writable: &dyn Fn(&Path) -> bool,
) -> Result<Option<(PathBuf, PathBuf)>, TooMany> {
    let Ok(root) = std::fs::canonicalize(folder) else {
        return Ok(None);
    };
    let mut folders = vec![folder.to_path_buf()];
    let mut seen = 0usize;
    while let Some(at) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&at) else {
            continue;
        };
        for e in entries.flatten() {
            seen += 1;
            if seen > LINK_SCAN_ENTRIES {
                return Err(TooMany);
            }
            let Ok(kind) = e.file_type() else { continue };
            let path = e.path();
            if kind.is_symlink() {
                // A dangling link is read as it is written (review 29, 05c: a trial creates
                // its target).
                let written = at.join(std::fs::read_link(&path).unwrap_or_default());
                let target = std::fs::canonicalize(&path).unwrap_or_else(|_| chase(&path));
                if !target.starts_with(&root) && writable(&target) {
                    return Ok(Some((path, target)));
                }
                // Review 30, 13a-13c: a link on the way there that lies where the trials
                // write (`graders/x -> ../shared/x`, `shared` a link in the task's folder
                // pointing outside when the plan is loaded) is theirs to re-point.
                // `written` itself too: a held link whose target is itself a link where the
                // trials write (`graders/lib -> ../shared`, `shared` a link: review 31, 24a).
                if let Some(hop) = link_on_the_way_where(&written, writable) {
                    return Ok(Some((path, hop)));
                }
            } else if kind.is_dir() {
                folders.push(path);
            }
        }
    }
    Ok(None)
}

/// Where link `path` leads when it (or a link it leads to) dangles: followed hop by hop as
/// the kernel would, each hop's existing part resolved and the rest read as written, so a
/// chain a trial completes (`graders/__pycache__ -> ../pcl`, `pcl -> out/pc`: review 103,
/// c03) is read to its end, not to its first hop.
fn chase(path: &Path) -> PathBuf {
    use std::path::Component;
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut todo: std::collections::VecDeque<std::ffi::OsString> = absolute
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some("..".into()),
            _ => None,
        })
        .collect();
    let mut out = PathBuf::from("/");
    let mut hops = 0;
    while let Some(name) = todo.pop_front() {
        if name == ".." {
            out.pop();
            continue;
        }
        let next = out.join(&name);
        match std::fs::read_link(&next) {
            Ok(to) if hops < 40 => {
                hops += 1;
                if to.is_absolute() {
                    out = PathBuf::from("/");
                }
                let parts: Vec<std::ffi::OsString> = (to.components())
                    .filter_map(|c| match c {
                        Component::Normal(n) => Some(n.to_os_string()),
                        Component::ParentDir => Some("..".into()),
                        _ => None,
                    })
                    .collect();
                for part in parts.into_iter().rev() {
                    todo.push_front(part);
                }
            }
            _ => out = next,
        }
    }
    out
}

/// Whether JavaScript `text` requires or imports a package: a name node looks up in a
/// `node_modules` (not one of node's own modules, not a path), a path into one
/// (`require("../node_modules/eq")`: review 27, 09b), or a name it computes, which may be
/// any package (`require(n)`: review 33, 39i; review 32, 30a).
fn names_a_package(text: &str) -> bool {
    // A whole-line `//` comment names nothing (review 32, 37f: `// require("lodash")`);
    // a line that starts with `/*` or `*` may go on with code (review 33, 39f, 39l).
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    // Code that loads what no reading of its text names may load any package: a module
    // object's member by a computed key (`module["re" + "quire"]`,
    // `process.mainModule[…]`: review 37, 81a, 81c), or code run from text (`eval` of
    // base64: 81e; a function's constructor: review 39, 97a, 97b).
    let code_only = super::words::strip_js_comments(&code);
    let computed_member = [
        "module[",
        "mainModule[",
        "require[",
        "globalThis[",
        "global[",
    ]
    .iter()
    .any(|m| {
        code_only.match_indices(m).any(|(i, _)| {
            !code_only[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
                || m.starts_with("mainModule")
        })
    });
    let from_text = [
        "eval",
        "Function",
        "AsyncFunction",
        "GeneratorFunction",
        "_compile",
    ]
    .iter()
    // Called: `x instanceof Function` runs nothing (review 41, 100ab).
    .any(|w| super::words::calls(&code_only, w))
        || super::words::reaches_a_constructor(&code_only);
    computed_member
        || from_text
        || super::words::computed_module_load(&code)
        || super::words::module_names(&code).iter().any(|n| {
            let top = n
                .trim_start_matches("node:")
                .split('/')
                .next()
                .unwrap_or("");
            n.contains("node_modules")
                || !(n.starts_with('.')
                    || n.starts_with('/')
                    || n.starts_with("node:")
                    || super::words::NODE_BUILTINS.contains(&top))
        })
}

/// Review 32, 35i: node reads the nearest `package.json` above a file that requires a
/// package before any `node_modules`: one named like the package with `exports` is the
/// package itself ("self-reference"). A JavaScript grader file that names a package, however
/// the check starts it (`sh graders/check.sh` running `node graders/check.js`), must find
/// that `package.json` where the trials cannot write or create it: refused when the first
/// folder above it that the trials write (outside gate's held folders) comes before one.
///
/// Which files node runs cannot be read off the graders reliably (review 33: a shebang run
/// as `exec graders/check.js`, `node graders/check` without the extension, `node graders`
/// running `index.js`, `node --test graders/`, a relative require, another extension), so
/// for a check that starts node in a way [`super::tools`] does not follow (see below) every
/// JavaScript or TypeScript file among the graders' files counts, with every
/// file whose first line is a node shebang and every file a grader script names beside
/// node; and a name the code computes (`require(n)`) may be any package.
pub(super) fn refuse_node_graders_without_a_package_json(
    shown: &str,
    plan: &Plan,
) -> Result<(), PlanError> {
    if plan.policy.sandbox.mode == crate::model::SandboxMode::Off {
        return Ok(());
    }
    let roots = writable_roots(plan);
    let guarded = guarded_folders(plan);
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| absolute(p));
    // A file the plan names is held read-only (a `package.json` given as a fixture).
    let named: Vec<PathBuf> = named_files(plan).iter().map(|p| real(p)).collect();
    let script = |p: &Path| javascript_file(p, true);
    let names_node = names_a_node_program;
    for t in &plan.tasks {
        for (line, cwd, env) in check_lines(t) {
            // Prose and data start nothing (review 33, 40e: a README naming `node x.js`).
            let prose = |f: &Path| {
                f.extension().is_some_and(|e| {
                    ["md", "txt", "json", "yaml", "yml", "rst", "csv"]
                        .contains(&e.to_str().unwrap_or(""))
                })
            };
            let files = grader_files(line, cwd, env);
            let unread = files.len() >= GRADER_FILES;
            let (prose_files, files): (Vec<PathBuf>, Vec<PathBuf>) =
                files.into_iter().partition(|f| prose(f));
            let mut texts: Vec<(PathBuf, String)> = (files.into_iter())
                .filter_map(|f| grader_text(&f).map(|t| (f, t)))
                .collect();
            // ... unless a grader has node run it or preload it: node runs a `.txt` main
            // as CommonJS (review 34, 51f, 56f). A file given to the script as data is not
            // (review 37, 84d: `node graders/check.js graders/sample.txt`).
            // A file a grader requires by its path runs whatever its name (review 37, 81h:
            // `require("./helper.txt")`), but data (`.json`) is data (review 38, 93d); an
            // env file node reads is read whatever its name (80h: `--env-file=x.json`).
            let name_of = |w: &str| Path::new(w).file_name().map(|n| n.to_os_string());
            let run_words: Vec<std::ffi::OsString> = (texts.iter())
                .flat_map(|(_, t)| super::words::node_run_words(t))
                .filter_map(|w| name_of(&w))
                .collect();
            let required_words: Vec<std::ffi::OsString> = (texts.iter())
                .flat_map(|(_, t)| super::words::module_names(t))
                .filter(|n| n.starts_with('.'))
                .filter_map(|w| name_of(&w))
                .collect();
            let json = |f: &Path| f.extension().is_some_and(|e| e == "json");
            let (run_by_node, prose_files): (Vec<PathBuf>, Vec<PathBuf>) =
                prose_files.into_iter().partition(|f| {
                    f.file_name().is_some_and(|n| {
                        run_words
                            .iter()
                            .any(|w| w == n || expansion_matches(&w.to_string_lossy(), n))
                            || (!json(f) && required_words.iter().any(|w| w == n))
                    })
                });
            // Node runs these whatever their names say (review 37, 81g: `node graders/$F.txt`).
            let node_runs: Vec<PathBuf> = run_by_node.clone();
            texts.extend((run_by_node.into_iter()).filter_map(|f| grader_text(&f).map(|t| (f, t))));
            // A JSON file may hold the command a grader runs (review 37, 80s: `["node", "-r",
            // …]` read by `json.load`).
            let json_texts: Vec<String> = (prose_files.iter())
                .filter(|f| json(f))
                .filter_map(|f| grader_text(f))
                .collect();
            // An env file node reads may have any name (review 37, 80h2: `--env-file=$F.txt`):
            // a data file's preload option is read as a script's is; documents are not. Read
            // only where the preload rule asks (below).
            let data_file = |f: &&PathBuf| {
                !json(f)
                    && !f
                        .extension()
                        .is_some_and(|e| ["md", "rst"].contains(&e.to_str().unwrap_or("")))
            };
            // A data file's options are node's only where it names node (review 41, 100af,
            // 100ag: test cases of the agent's own CLI, `["-r", "src"]`).
            let for_node = |t: &String| names_node(t) || t.contains("NODE_OPTIONS");
            // A script's comment lines start nothing (review 34, 54g, 56d: `# built with
            // npm`); its shebang does.
            let code_of = |t: &str| -> String {
                t.lines()
                    .enumerate()
                    .filter(|(i, l)| {
                        let l = l.trim_start();
                        !(l.starts_with('#') && !(*i == 0 && l.starts_with("#!")))
                    })
                    .map(|(_, l)| l)
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            let starters: Vec<String> = (texts.iter().filter(|(f, _)| !script(f)))
                .map(|(_, t)| code_of(t))
                .filter(|t| names_node(t))
                .collect();
            // A JavaScript grader that starts node itself (`process.execPath`, node by name
            // through `child_process`, a worker thread, `cluster`, `runMain`: review 34,
            // 51a-51c, 55d; review 35, 62a) or loads a file by a path it builds
            // (`require(path.join(__dirname, f))`: review 35, 60a-60g) may run any file
            // beside it. Modules by their names, not words in comments (review 35, 62d).
            let spawns = texts.iter().any(|(f, t)| {
                if !script(f) {
                    return false;
                }
                let modules = super::words::module_names(t);
                let module = |m: &str| modules.iter().any(|n| n.trim_start_matches("node:") == m);
                // `child_process` by its module name whatever it runs: `fork` starts node
                // without naming it, and so does `process.argv0` (review 36, 55d, 72a,
                // 72b, 72i, 72l; which reopens review 35's over-refusal 62e).
                let calls = |name: &str| super::words::calls(t, name);
                let code = super::words::strip_js_comments(t);
                t.contains("execPath")
                    || t.contains("argv0")
                    || t.contains("runMain")
                    || module("child_process")
                    || module("worker_threads")
                    || module("cluster")
                    || super::words::built_path_load(t)
                    // Review 36, 72c, 72d, 72f: `node:test`'s `run({files})` starts each
                    // file in a child node; code run from text (`eval`, `new Function`,
                    // `vm`) may be any file's; a loader hook (`module.register`) loads its
                    // own files.
                    || (module("test") && calls("run"))
                    || module("vm")
                    // Review 38, 92a-92g: indirect `(0, eval)(…)`, `Reflect.apply(eval, …)`,
                    // the `AsyncFunction` constructor, `module._compile`,
                    // `process.getBuiltinModule("child_process")`.
                    || [
                        "eval",
                        "Function",
                        "AsyncFunction",
                        "GeneratorFunction",
                        "_compile",
                        "compileFunction",
                        "getBuiltinModule",
                    ]
                    .iter()
                    // Not in a comment (review 39, 96j).
                    .any(|w| super::words::mentions_word(&code, w))
                    || (module("module") && calls("register"))
                    || super::words::reaches_a_constructor(&code)
            });
            // A grader that runs code from text may run a prose file it names (review 38,
            // 92a-92g: `eval(fs.readFileSync(…"helper.txt"))`).
            if spawns {
                let named: Vec<PathBuf> = (prose_files.iter())
                    .filter(|f| !json(f))
                    .filter(|f| {
                        f.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                            (texts.iter()).any(|(g, t)| script(g) && t.contains(n))
                        })
                    })
                    .cloned()
                    .collect();
                texts.extend(
                    named
                        .into_iter()
                        .filter_map(|f| grader_text(&f).map(|t| (f, t))),
                );
            }
            let shebang = |text: &str| {
                text.starts_with("#!") && text.lines().next().is_some_and(names_a_node_program)
            };
            // Something must start node in a way `plan::tools` does not follow: node on the
            // line running one script file or inline code is followed there (its requires,
            // transitively, with their `package.json`), so the other files beside it are
            // dormant (review 14's honest `node graders/check.js` beside a `main.js`). Any
            // other start counts: `node --test DIR`, `node graders` (its `index.js`), a
            // script named without its extension (review 33, 39b, 39c, 39e), a package
            // runner, node named in the environment, a JavaScript grader on the line; and
            // a grader script that names node, or a node shebang. A JavaScript file beside
            // graders that start none is dormant too (review 33, 40e: a make grader beside
            // an old `.js`).
            let line_starts = super::words::simple_commands(&tokens_of(line, env))
                .iter()
                .any(|c| {
                    let words: Vec<&str> = c.iter().map(String::as_str).collect();
                    let Some(at) = words.iter().position(|w| names_node(w)) else {
                        // A JavaScript grader run by its path (its shebang starts node).
                        return words.first().is_some_and(|w| script(Path::new(w)));
                    };
                    if !["node", "nodejs"].contains(&super::invoke::name_of(words[at]).as_str()) {
                        return true;
                    }
                    match super::invoke::invocation(&words[at..]).map(|i| i.runs) {
                        Ok(super::invoke::Runs::Script(k)) => {
                            !super::invoke::resolve(words[at + k], cwd).is_file()
                        }
                        Ok(super::invoke::Runs::Code(_) | super::invoke::Runs::Nothing) => false,
                        _ => true,
                    }
                })
                || env.iter().any(|(_, v)| names_node(v));
            if !(line_starts
                || spawns
                || !starters.is_empty()
                || json_texts.iter().any(|t| names_node(t))
                || texts.iter().any(|(_, t)| shebang(t)))
            {
                continue;
            }
            // Review 22, 22a: files past those gate reads may be ones node runs; only a
            // `package.json` in each grader's own folder, which the box holds, is before
            // every file beneath it.
            if unread {
                for g in own_graders(line, cwd, env) {
                    let Some(folder) = real(&g).parent().map(Path::to_path_buf) else {
                        continue;
                    };
                    if !folder.join("package.json").is_file() {
                        return Err(PlanError::Invalid {
                            path: shown.to_string(),
                            line: t.line,
                            column: 1,
                            message: format!(
                                "task `{}`: the check starts node, and the graders' folders \
                                 hold more files than gate reads ({GRADER_FILES}), any of which \
                                 may be what node runs; put a `package.json` (`{{}}` will do) \
                                 beside the grader, in `{}`",
                                t.id,
                                folder.display()
                            ),
                        });
                    }
                }
            }
            // Review 35, 61c: a script that preloads a package by its name into node
            // (`exec node -r dotenv/config graders/check.js`) has node resolve it from the
            // check's folder, where a trial writes the `package.json` node reads first.
            let check_dir = real(cwd);
            let cwd_open = roots.iter().any(|r| check_dir.starts_with(r))
                && !guarded.iter().any(|g| check_dir.starts_with(g));
            // Review 37, 80r: inline code a grader script gives node (`node -e
            // 'require("eq")…'`) resolves its packages from the folder node runs in too.
            // Or from a file the code is read from (`node -e "$(cat graders/inline.txt)"`:
            // review 38, 91b).
            let inline = (texts.iter()).find(|(f, t)| {
                if script(f) {
                    return false;
                }
                let Some(named) = super::words::node_code_words(t) else {
                    return false;
                };
                names_a_package(t)
                    || (texts.iter()).any(|(g, u)| {
                        g.file_name().is_some_and(|n| {
                            named.iter().any(|w| w.ends_with(&*n.to_string_lossy()))
                        }) && names_a_package(u)
                    })
            });
            if cwd_open && let Some((f, _)) = inline {
                return Err(PlanError::Invalid {
                    path: shown.to_string(),
                    line: t.line,
                    column: 1,
                    message: format!(
                        "task `{}`: the grader script `{}` gives node inline code that requires \
                         a package, which node resolves from the folder it runs in, where a \
                         trial can write the `package.json` node reads first; put the code in \
                         a grader file beside a `package.json` (`{{}}` will do)",
                        t.id,
                        f.display()
                    ),
                });
            }
            // Review 40: a preload option's literal value anywhere in a grader's text (or
            // in a JSON file beside it that a grader may read its command from: review 37,
            // 80s), wherever the text builds node's arguments.
            let python = |f: &Path, t: &str| {
                f.extension().is_some_and(|e| e == "py")
                    || t.lines()
                        .next()
                        .is_some_and(|l| l.starts_with("#!") && l.contains("python"))
            };
            if cwd_open
                && let Some(name) = texts
                    .iter()
                    .flat_map(|(f, t)| {
                        // Review 36, 70d-70f, 70n: a Python or JavaScript grader that starts
                        // node with a preload, or sets `NODE_OPTIONS` for it, too.
                        let (code, lang) = if script(f) {
                            (super::words::strip_js_comments(t), Lang::Code)
                        } else if python(f, t) {
                            (code_of(t), Lang::Code)
                        } else {
                            (code_of(t), Lang::Shell)
                        };
                        let mut found = super::words::bare_preloads(&code);
                        // A JavaScript or Python grader passes a preload on only if it
                        // starts a process or sets node's options (review 38, 93l: a
                        // JavaScript grader's own `["-r", "verbose"]`).
                        let starts = [
                            "child_process",
                            "execPath",
                            "argv0",
                            "execArgv",
                            "NODE_OPTIONS",
                            "worker_threads",
                            "cluster",
                            "spawn",
                            "fork",
                            "exec",
                            "subprocess",
                            "system",
                            "popen",
                            "Popen",
                            "pty",
                            "pexpect",
                        ];
                        if lang == Lang::Shell || starts.iter().any(|w| code.contains(w)) {
                            found.extend(super::words::literal_preloads(&code, lang));
                        }
                        found
                    })
                    .chain(
                        (json_texts.iter())
                            .filter(|t| for_node(t))
                            .flat_map(|t| super::words::literal_preloads(t, Lang::Code)),
                    )
                    .chain(
                        (prose_files.iter())
                            .filter(data_file)
                            .filter_map(|f| grader_text(f))
                            .filter(|t| for_node(t))
                            .flat_map(|t| super::words::literal_preloads(&t, Lang::Shell)),
                    )
                    .next()
            {
                return Err(PlanError::Invalid {
                    path: shown.to_string(),
                    line: t.line,
                    column: 1,
                    message: format!(
                        "task `{}`: a grader script preloads `{name}`, a package's name, which \
                         node resolves from the check's folder `{}`, where a trial can write \
                         the `package.json` node reads first; preload the package's file by \
                         its path (`-r ./graders/node_modules/{name}`), or require it from a \
                         grader",
                        t.id,
                        check_dir.display()
                    ),
                });
            }
            // Review 37, 81h, 81h2, 81i: a file a grader requires by its path runs whatever
            // its name (`require("./helper.txt")`, `./helper.dat`, `./helper`).
            let required: Vec<String> = (texts.iter())
                .flat_map(|(_, t)| super::words::module_names(t))
                .filter(|n| n.starts_with('.'))
                .filter_map(|n| {
                    Path::new(&n)
                        .file_name()
                        .and_then(|n| n.to_str())
                        .map(str::to_string)
                })
                .collect();
            // A grader of another language is not one node runs, whatever starts node
            // (review 38, 93f2: a Ruby `require "json"` beside a grader using `vm`).
            let other_language = |f: &Path| script_extension(f) && !javascript_file(f, true);
            let started = |f: &Path| {
                (spawns && !other_language(f))
                    || node_runs.iter().any(|r| r == f)
                    || f.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                        starters.iter().any(|t| t.contains(n)) || required.iter().any(|r| r == n)
                    })
            };
            for (f, text) in &texts {
                if !(script(f) || started(f) || shebang(text)) {
                    continue;
                }
                // The `createRequire` rule a grader named on the line gets (review 32, 35a,
                // 35b).
                if let Some(why) = super::words::create_require_problem(text) {
                    return Err(PlanError::Invalid {
                        path: shown.to_string(),
                        line: t.line,
                        column: 1,
                        message: format!(
                            "task `{}`: the grader `{}`, which node may run for this check, \
                             has {why}",
                            t.id,
                            f.display()
                        ),
                    });
                }
                if !names_a_package(text) {
                    continue;
                }
                let Some(start) = real(f).parent().map(Path::to_path_buf) else {
                    continue;
                };
                for folder in start.ancestors() {
                    let open = roots.iter().any(|r| folder.starts_with(r))
                        && !guarded.iter().any(|g| folder.starts_with(g));
                    let manifest = folder.join("package.json");
                    if manifest.is_file() {
                        // Review 34, 50a-50e, 53a, 53e: the project's own `package.json` in
                        // the task's folder is one a trial rewrites (`"name": "eq"` with
                        // `exports`, an `imports` map, a `type`), unless gate holds it.
                        if open && !named.contains(&real(&manifest)) {
                            return Err(PlanError::Invalid {
                                path: shown.to_string(),
                                line: t.line,
                                column: 1,
                                message: format!(
                                    "task `{}`: the grader `{}` requires a package, and the \
                                     nearest `package.json` above it, `{}`, is one the trials \
                                     write (node reads a package of that name there first); \
                                     put a `package.json` (`{{}}` will do) beside the grader",
                                    t.id,
                                    f.display(),
                                    manifest.display()
                                ),
                            });
                        }
                        break;
                    }
                    if open {
                        return Err(PlanError::Invalid {
                            path: shown.to_string(),
                            line: t.line,
                            column: 1,
                            message: format!(
                                "task `{}`: the grader `{}` requires a package, and the first \
                                 `package.json` above it would be one a trial can create in \
                                 `{}` (node reads a package of that name there first); put a \
                                 `package.json` (`{{}}` will do) beside the grader",
                                t.id,
                                f.display(),
                                folder.display()
                            ),
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

/// Whether file name `name` may be what word `word`, which expands a variable, names
/// (`$F.txt`, `${F}.txt` for `check.txt`: review 37, 81g): each `$NAME` or `${…}` stands
/// for any text. A word without an expansion matches nothing here.
fn expansion_matches(word: &str, name: &std::ffi::OsStr) -> bool {
    if !word.contains('$') {
        return false;
    }
    let Some(name) = name.to_str() else {
        return false;
    };
    // The literal pieces between expansions, in order.
    let mut pieces: Vec<String> = vec![String::new()];
    let chars: Vec<char> = word.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '$' {
            i += 1;
            if chars.get(i) == Some(&'{') {
                while i < chars.len() && chars[i] != '}' {
                    i += 1;
                }
                i += 1;
            } else {
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
            }
            pieces.push(String::new());
        } else {
            pieces
                .last_mut()
                .expect("one piece at least")
                .push(chars[i]);
            i += 1;
        }
    }
    // `$X` alone could be any file: a word that names none.
    if pieces.iter().all(String::is_empty) {
        return false;
    }
    let (first, last) = (&pieces[0], &pieces[pieces.len() - 1]);
    if !name.starts_with(first.as_str()) || name.len() < first.len() + last.len() {
        return false;
    }
    if !name.ends_with(last.as_str()) {
        return false;
    }
    let mut at = first.len();
    let end = name.len() - last.len();
    for piece in &pieces[1..pieces.len() - 1] {
        match name[at..end].find(piece.as_str()) {
            Some(k) => at += k + piece.len(),
            None => return false,
        }
    }
    true
}

/// `p` with `.` and `..` taken out by their names, links not read (as Python's
/// `os.path.abspath` does).
pub(super) fn lexical(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// A folder gate holds read-only for the plan (a grader's or a fixture's: [`guarded_folders`])
/// that holds a link to a file the trials write is refused: the box holds the link, not what
/// it points to, so a grader loading through it (`require("../node_modules/eq")` from
/// `graders/sub/`: review 27, 09b) loads what a trial wrote.
pub(super) fn refuse_links_out_of_held_folders(
    shown: &str,
    plan: &Plan,
) -> Result<(), super::PlanError> {
    if plan.policy.sandbox.mode == crate::model::SandboxMode::Off {
        return Ok(());
    }
    let roots = writable_roots(plan);
    let guarded = guarded_folders(plan);
    // A named file is held read-only wherever it lies.
    let named: Vec<PathBuf> = (named_files(plan).iter())
        .filter_map(|f| std::fs::canonicalize(f).ok())
        .collect();
    let writable = |p: &Path| {
        roots.iter().any(|r| p.starts_with(r))
            && !guarded.iter().any(|g| p.starts_with(g))
            && !named.iter().any(|n| n == p)
    };
    // Review 27, 09b: the grader's own `node_modules` (one in a folder below a writable
    // root, `graders/node_modules`), held read-only too, which a grader may also load from
    // by a relative name (`require("../node_modules/eq")`). A `node_modules` directly in a
    // root is the project's: its links are read when a package resolves through it.
    let own_packages = (node_folders(plan).held.into_iter())
        .filter(|m| m.parent().is_some_and(|p| !roots.iter().any(|r| r == p)));
    for folder in &guarded
        .iter()
        .cloned()
        .chain(own_packages)
        .collect::<Vec<_>>()
    {
        let why = match link_out_of(folder, &writable) {
            Ok(None) => continue,
            Ok(Some((link, target))) => format!(
                "`{}`, in `{}` which gate holds read-only for the plan's graders or fixtures, is \
                 a link to `{}`, which the trials write: the box holds the link, not what it \
                 points to; copy the file in instead of linking it",
                link.display(),
                folder.display(),
                target.display()
            ),
            Err(TooMany) => format!(
                "`{}`, which gate holds read-only for the plan's graders or fixtures, has more \
                 than {LINK_SCAN_ENTRIES} entries to look through for links to where the trials \
                 write; keep the graders in a smaller folder of their own",
                folder.display()
            ),
        };
        return Err(super::PlanError::Invalid {
            path: shown.to_string(),
            line: 1,
            column: 1,
            message: why,
        });
    }
    Ok(())
}

/// The first folder on the way to `at` (each of its leading parts as written, `at` itself
/// included) that is a link lying in one of `roots`: the trials' to point elsewhere and back
/// (review 14, c43; review 20, 12; reviews 25 and 26: `graders -> /shared`, a `PATH` entry
/// `tools -> /shared/tools`). With `environments` false, a link inside a `node_modules` or
/// a Python environment (held read-only whole: `node_modules/.bin`) is passed over.
pub(super) fn link_on_the_way(at: &Path, roots: &[PathBuf], environments: bool) -> Option<PathBuf> {
    link_on_the_way_where(at, &|d: &Path| {
        roots.iter().any(|r| d.starts_with(r))
            && (environments
                || !d.ancestors().any(|e| {
                    e.file_name().is_some_and(|n| n == "node_modules")
                        || e.join("pyvenv.cfg").is_file()
                }))
    })
}

/// The first link met on the way to `at` (`at` itself included, followed as the kernel
/// follows it: a link's text read from its own folder, every link on the way expanded in
/// turn) whose folder, links resolved, `lies` accepts ([`link_on_the_way`]). A link outside
/// the roots whose text runs through a link inside them is met too (review 32, 36a:
/// `graders/lib -> /tmp/ext/hop`, `hop -> $TASK/vendor/lib`, `vendor` the trial's).
fn link_on_the_way_where(at: &Path, lies: &dyn Fn(&Path) -> bool) -> Option<PathBuf> {
    let real = |d: &Path| std::fs::canonicalize(d).unwrap_or_else(|_| d.to_path_buf());
    follow_path(at, &mut |p, link| {
        link && p.parent().map(real).is_some_and(|d| lies(&d))
    })
}

/// Walk `at` (made absolute) as the kernel resolves it, calling `stop(path, is_link)` for
/// each part reached, a link before its text is read; the first part `stop` accepts is
/// returned. `..` after a link goes up from where the link led. At most 40 links are
/// followed (the kernel's `ELOOP`), and nothing is read where `stop` has said to stop
/// (`/proc`: [`crate::runner::sandbox`]'s `TMPDIR` rule).
pub(crate) fn follow_path(at: &Path, stop: &mut dyn FnMut(&Path, bool) -> bool) -> Option<PathBuf> {
    use std::collections::VecDeque;
    use std::ffi::OsString;
    use std::path::Component;
    fn push_front(rest: &mut VecDeque<OsString>, p: &Path) {
        for c in p.components().rev() {
            match c {
                Component::RootDir => rest.push_front("/".into()),
                Component::ParentDir => rest.push_front("..".into()),
                Component::Normal(n) => rest.push_front(n.to_os_string()),
                Component::CurDir | Component::Prefix(_) => {}
            }
        }
    }
    let mut rest = VecDeque::new();
    push_front(&mut rest, &absolute(at));
    let mut cur = PathBuf::from("/");
    let mut links = 0;
    while let Some(c) = rest.pop_front() {
        if c == "/" {
            cur = PathBuf::from("/");
        } else if c == ".." {
            cur.pop();
        } else {
            let next = cur.join(&c);
            let link = next
                .symlink_metadata()
                .is_ok_and(|m| m.file_type().is_symlink());
            if stop(&next, link) {
                return Some(next);
            }
            match std::fs::read_link(&next) {
                Ok(text) if link => {
                    links += 1;
                    if links > 40 {
                        return None;
                    }
                    push_front(&mut rest, &text);
                }
                _ => cur = next,
            }
        }
    }
    None
}

/// Whether `text` names one of [`NODE_PROGRAMS`] as a word.
fn names_a_node_program(text: &str) -> bool {
    super::words::mentions_any(text, NODE_PROGRAMS).is_some()
}

/// Whether `p` is a JavaScript file by its extension (`.js`, `.mjs`, `.cjs`), or with
/// `typescript` a TypeScript one too (`.ts`, `.mts`, `.cts`).
fn javascript_file(p: &Path, typescript: bool) -> bool {
    let e = p.extension().and_then(|e| e.to_str()).unwrap_or("");
    ["js", "mjs", "cjs"].contains(&e) || typescript && ["ts", "mts", "cts"].contains(&e)
}

/// Programs that run JavaScript and load packages from `node_modules`.
pub(super) const NODE_PROGRAMS: &[&str] = &[
    "node", "nodejs", "bun", "deno", "npx", "npm", "pnpm", "yarn", "bunx", "pnpx",
];

/// Refuse a plan whose checks read a repository (the ones [`git_folders`] holds) that
/// records a repository inside it (review 25, 03: `vendor/lib` added with its own `.git`,
/// a gitlink). git compares such a folder by the commit its own `.git` names, which lies in
/// the work tree where the trials write, and a `.gitmodules` the trial writes
/// (`ignore = all`) hides it whatever the commit: a change inside it never shows.
pub(super) fn refuse_nested_repositories(shown: &str, plan: &Plan) -> Result<(), PlanError> {
    if plan.policy.sandbox.mode == crate::model::SandboxMode::Off {
        return Ok(());
    }
    let held = git_folders(plan);
    for t in &plan.tasks {
        for (_, cwd, _) in check_lines(t) {
            let Some((dir, top)) = repository_of(&absolute(cwd)) else {
                continue;
            };
            let Ok(real) = std::fs::canonicalize(&dir) else {
                continue;
            };
            if !held.contains(&real) {
                continue;
            }
            let nested = match gitlinks(&real) {
                Ok(links) => links.into_iter().next(),
                Err(index) => {
                    return Err(PlanError::at_task(
                        shown,
                        t.line,
                        format!(
                            "task `{}`: its check reads the repository in `{}`, whose index \
                             (`{index}`) gate cannot read to see whether it records a repository \
                             inside it (index versions 2 to 4 are read)",
                            t.id,
                            top.display()
                        ),
                    ));
                }
            };
            if let Some(path) = nested {
                return Err(PlanError::at_task(
                    shown,
                    t.line,
                    format!(
                        "task `{}`: its check reads the repository in `{}`, which records a \
                         repository inside it (`{path}`, a submodule or an added folder with its \
                         own `.git`): git reports that folder by the commit its own `.git` names, \
                         which the trials can change (and hide with a `.gitmodules`); keep the \
                         inner repository out of the outer one's index (`git rm --cached \
                         {path}`), or run the task in a repository without one",
                        t.id,
                        top.display()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The paths the index of git folder `dir` records as gitlinks (mode 160000: a submodule or
/// a folder added with its own `.git`), from the index file itself (versions 2 to 4, and
/// the shared index a split index names). An index that does not exist records none.
pub(super) fn gitlinks(dir: &Path) -> Result<Vec<String>, String> {
    let common = std::fs::read_to_string(dir.join("commondir"))
        .ok()
        .map(|c| dir.join(c.trim()));
    let config = |d: &Path| std::fs::read_to_string(d.join("config")).unwrap_or_default();
    let sha256 = std::iter::once(dir.to_path_buf()).chain(common).any(|d| {
        config(&d).lines().any(|l| {
            l.replace(' ', "")
                .eq_ignore_ascii_case("objectformat=sha256")
        })
    });
    let hash = if sha256 { 32 } else { 20 };
    let mut files = vec![dir.join("index")];
    if let Ok(entries) = std::fs::read_dir(dir) {
        files.extend(entries.flatten().map(|e| e.path()).filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("sharedindex."))
        }));
    }
    let mut found = Vec::new();
    for f in files {
        let bytes = match std::fs::read(&f) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("{}: {e}", f.display())),
        };
        found.extend(index_gitlinks(&bytes, hash).ok_or_else(|| format!("{}", f.display()))?);
    }
    Ok(found)
}

/// The gitlink paths of one index file's entries, or `None` where it is not an index
/// gate can read (see git's `Documentation/gitformat-index.txt`).
fn index_gitlinks(b: &[u8], hash: usize) -> Option<Vec<String>> {
    let u32_at =
        |k: usize| -> Option<u32> { Some(u32::from_be_bytes(b.get(k..k + 4)?.try_into().ok()?)) };
    if b.get(..4)? != b"DIRC" {
        return None;
    }
    let version = u32_at(4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = u32_at(8)?;
    let mut at = 12usize;
    let mut previous = Vec::<u8>::new();
    let mut found = Vec::new();
    for _ in 0..count {
        let start = at;
        let mode = u32_at(start + 24)?;
        let flags_at = start + 40 + hash;
        let flags = u16::from_be_bytes(b.get(flags_at..flags_at + 2)?.try_into().ok()?);
        let mut name_at = flags_at + 2;
        if version >= 3 && flags & 0x4000 != 0 {
            name_at += 2;
        }
        let path = if version == 4 {
            // The number of bytes to drop from the previous path (a varint), then the rest.
            let mut k = name_at;
            let mut byte = *b.get(k)?;
            k += 1;
            let mut strip = u64::from(byte & 0x7f);
            while byte & 0x80 != 0 {
                byte = *b.get(k)?;
                k += 1;
                strip = ((strip + 1) << 7) | u64::from(byte & 0x7f);
            }
            let end = k + b.get(k..)?.iter().position(|&c| c == 0)?;
            let keep = previous.len().checked_sub(usize::try_from(strip).ok()?)?;
            let mut p = previous[..keep].to_vec();
            p.extend_from_slice(&b[k..end]);
            at = end + 1;
            p
        } else {
            let end = name_at + b.get(name_at..)?.iter().position(|&c| c == 0)?;
            // Padded with NULs to a multiple of eight bytes from the entry's start.
            let len = end - start;
            at = start + (len + 8) / 8 * 8;
            b[name_at..end].to_vec()
        };
        if mode & 0o170000 == 0o160000 {
            found.push(String::from_utf8_lossy(&path).into_owned());
        }
        previous = path;
    }
    Some(found)
}

/// The plan's own grader files `line` names ([`programs_named`], outside the system's
/// folders).
pub(super) fn own_graders(
    line: &CommandLine,
    cwd: &Path,
    env: &[(String, String)],
) -> Vec<PathBuf> {
    let system = |p: &Path| {
        [
            "/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/nix", "/snap",
        ]
        .iter()
        .any(|f| p.starts_with(f))
    };
    programs_named(line, cwd, env)
        .into_iter()
        .filter(|p| !system(p) && p.is_file())
        .collect()
}

/// The grader files gate reads at most for one check line ([`grader_files`]): a line that
/// reaches this many may have more, which no rule has read.
pub(super) const GRADER_FILES: usize = 512;

/// The plan's own grader files `line` names and every file in their folders and the
/// folders below (not a `node_modules`, a `.git` or a Python environment's), up to 512:
/// what a grader runs inside is not on the line, but a test runner it starts (`pytest.main`
/// in `graders/run.py`, `npm test` in a shell script: reviews 21 and 22) still reads what
/// the trials write. Read one at a time with [`grader_text`].
pub(super) fn grader_files(
    line: &CommandLine,
    cwd: &Path,
    env: &[(String, String)],
) -> Vec<PathBuf> {
    grader_files_from(own_graders(line, cwd, env))
}

/// [`grader_files`] from the grader files `named`.
pub(super) fn grader_files_from(named: Vec<PathBuf>) -> Vec<PathBuf> {
    const FILES: usize = GRADER_FILES;
    let mut files: Vec<PathBuf> = Vec::new();
    let mut folders: Vec<PathBuf> = Vec::new();
    for p in named {
        if !files.contains(&p) {
            files.push(p.clone());
        }
        folders.extend(p.parent().map(Path::to_path_buf));
    }
    let skip = |d: &Path| {
        d.components().any(|c| {
            let n = c.as_os_str();
            n == "node_modules" || n == ".git" || n == "__pycache__"
        }) || d.join("pyvenv.cfg").exists()
            || d.parent().is_some_and(|p| p.join("pyvenv.cfg").exists())
    };
    let mut seen = Vec::new();
    while let Some(d) = folders.pop() {
        if seen.contains(&d) || skip(&d) || files.len() >= FILES {
            continue;
        }
        seen.push(d.clone());
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() {
                folders.push(e.path());
            } else if kind.is_file() && files.len() < FILES && !files.contains(&e.path()) {
                files.push(e.path());
            }
        }
    }
    files
}

/// The text of grader file `p` (its bytes read as UTF-8, lossily: a compiled grader's
/// strings too, with JavaScript's unicode escapes read: [`super::words::js_unescape`]), if
/// it is at most 16 MiB.
pub(super) fn grader_text(p: &Path) -> Option<String> {
    // A regular file only: a line may name `/dev/zero` or a FIFO.
    if !std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() <= 16 << 20) {
        return None;
    }
    std::fs::read(p)
        .ok()
        .map(|bytes| super::words::js_unescape(&String::from_utf8_lossy(&bytes)).into_owned())
}

/// The repository git finds from folder `cwd` now, as its git folder and its work tree's
/// top: a `.git` folder, or the folder a `.git` file (a worktree's, a submodule's) names;
/// `None` outside every repository.
pub fn repository_of(cwd: &Path) -> Option<(PathBuf, PathBuf)> {
    for folder in cwd.ancestors() {
        let dot_git = folder.join(".git");
        let Ok(meta) = std::fs::metadata(&dot_git) else {
            continue;
        };
        if meta.is_dir() {
            return Some((dot_git, folder.to_path_buf()));
        }
        let text = std::fs::read_to_string(&dot_git).ok()?;
        let named = text.lines().next()?.strip_prefix("gitdir:")?.trim();
        return Some((folder.join(named), folder.to_path_buf()));
    }
    None
}

/// The versions the version managers' shims would run in folder `cwd` now, as the
/// variables that pin them for a check (see `Sandbox::pin_checks`): pyenv's
/// `.python-version`, rbenv's `.ruby-version`, nodenv's `.node-version` and goenv's
/// `.go-version` found in `cwd` or the nearest folder above, else the manager's global
/// `version` file, else `system` (the managers' own default);
/// and each tool of asdf's nearest `.tool-versions` (else `~/.tool-versions`) as
/// `ASDF_<TOOL>_VERSION`. A variable `set` says gate's own environment has is left as it
/// is: the shim reads that one before any file.
pub fn version_pins(cwd: &Path, set: impl Fn(&str) -> bool) -> Vec<(String, String)> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    // The nearest `name` in `cwd` or above, as the shims search.
    let nearest = |name: &str| {
        cwd.ancestors()
            .map(|d| d.join(name))
            .find(|f| f.is_file())
            .and_then(|f| std::fs::read_to_string(f).ok())
    };
    // The shims' folders on gate's `PATH`: a manager installed elsewhere than its default
    // root (`/opt/pyenv`) is found by its shims.
    let shims: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter(|d| d.file_name().is_some_and(|n| n == "shims"))
        .filter_map(|d| d.parent().map(Path::to_path_buf))
        .collect();
    let mut pins = Vec::new();
    for (var, file, manager) in [
        ("PYENV_VERSION", ".python-version", "pyenv"),
        ("RBENV_VERSION", ".ruby-version", "rbenv"),
        ("NODENV_VERSION", ".node-version", "nodenv"),
        ("GOENV_VERSION", ".go-version", "goenv"),
    ] {
        if set(var) {
            continue;
        }
        // The manager's root: its `*_ROOT`, its default `~/.pyenv`, or the root of shims on
        // `PATH` that are this manager's (its program in `libexec/`).
        let root_var = format!("{}_ROOT", manager.to_ascii_uppercase());
        let global = std::env::var_os(&root_var)
            .map(PathBuf::from)
            .into_iter()
            .chain(home.as_ref().map(|h| h.join(format!(".{manager}"))))
            .chain(
                shims
                    .iter()
                    .filter(|r| r.join("libexec").join(manager).exists())
                    .cloned(),
            )
            .find_map(|r| std::fs::read_to_string(r.join("version")).ok());
        // pyenv's reading of a version file: its words, `..` and comments left out, joined
        // with `:` (several versions, in order).
        let words = |text: String| {
            let v: Vec<String> = text
                .lines()
                .filter(|l| !l.trim_start().starts_with('#'))
                .flat_map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
                .filter(|w| !w.contains(".."))
                .collect();
            (!v.is_empty()).then(|| v.join(":"))
        };
        let version = nearest(file)
            .and_then(words)
            .or_else(|| global.and_then(words))
            .unwrap_or_else(|| "system".to_string());
        pins.push((var.to_string(), version));
    }
    let tools = nearest(".tool-versions").or_else(|| {
        home.as_ref()
            .and_then(|h| std::fs::read_to_string(h.join(".tool-versions")).ok())
    });
    for line in tools.iter().flat_map(|t| t.lines()) {
        let line = line.split('#').next().unwrap_or("");
        let mut words = line.split_whitespace();
        let (Some(tool), Some(version)) = (words.next(), words.next()) else {
            continue;
        };
        let var = format!(
            "ASDF_{}_VERSION",
            tool.to_ascii_uppercase().replace(['-', '.'], "_")
        );
        if !set(&var) && super::words::is_name(&var) {
            pins.push((var, version.to_string()));
        }
    }
    pins
}

/// The commit `HEAD` of git folder `dir` names now (through a branch, loose or packed, in
/// the folder or, for a worktree's, in the common folder it names), or `None` (no commit).
pub fn head_commit(dir: &Path) -> Option<String> {
    let common = std::fs::read_to_string(dir.join("commondir"))
        .ok()
        .map(|c| dir.join(c.trim()));
    let head = std::fs::read_to_string(dir.join("HEAD")).ok()?;
    let head = head.trim();
    let is_id = |s: &str| matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit());
    let Some(branch) = head.strip_prefix("ref:").map(str::trim) else {
        return is_id(head).then(|| head.to_string());
    };
    for d in std::iter::once(dir.to_path_buf()).chain(common) {
        if let Ok(id) = std::fs::read_to_string(d.join(branch))
            && is_id(id.trim())
        {
            return Some(id.trim().to_string());
        }
        let packed = std::fs::read_to_string(d.join("packed-refs")).unwrap_or_default();
        if let Some(id) = packed.lines().find_map(|l| {
            let (id, name) = l.split_once(' ')?;
            (name == branch && is_id(id)).then(|| id.to_string())
        }) {
            return Some(id);
        }
    }
    None
}

/// Whether `line` runs `git` as a command (the name of a simple command, after any
/// `NAME=VALUE` words and wrappers such as `env`, `command`, `exec`, `xargs`, `sudo`).
/// Also when any word names git (`find . -exec git diff --quiet \;`, inline code that
/// spawns it: review 20, 06 and 07), since a repository is read all the same.
fn invokes_git(line: &CommandLine, env: &[(String, String)]) -> bool {
    super::words::simple_commands(&tokens_of(line, env))
        .iter()
        .any(|c| c.iter().any(|w| super::words::mentions_git(w)))
}

/// The first git release that reads `GIT_ATTR_SOURCE` (2.40): an older one reads the
/// attributes from the work tree, where a trial writes `.gitattributes`, whatever gate pins.
const GIT_ATTR_SOURCE_SINCE: (u64, u64) = (2, 40);

/// Review 25, 09: gate pins a check's git attributes to the commit `HEAD` named when the run
/// started (`GIT_ATTR_SOURCE`, [`crate::runner::sandbox::Sandbox::pin_checks`]), so a
/// trial's `.gitattributes` (`* text`, after rewriting a tracked file with CRLF) cannot make
/// `git diff` see no change. git before 2.40 ignores the variable: a check that runs such a
/// git (named on its line by path, or the `git` its `PATH` finds, for a line or a grader
/// that names git) in a repository with a commit is refused, naming the git and its version.
pub(super) fn refuse_git_without_attribute_source(
    shown: &str,
    plan: &Plan,
) -> Result<(), PlanError> {
    if plan.policy.sandbox.mode == crate::model::SandboxMode::Off {
        return Ok(());
    }
    let mut asked: Vec<PathBuf> = Vec::new();
    for t in &plan.tasks {
        for (line, cwd, env) in check_lines(t) {
            let runs_git = invokes_git(line, env)
                || env.iter().any(|(_, v)| super::words::mentions_git(v))
                || grader_files(line, cwd, env)
                    .iter()
                    .any(|f| grader_text(f).is_some_and(|t| super::words::mentions_git(&t)));
            let pinned =
                repository_of(&absolute(cwd)).is_some_and(|(d, _)| head_commit(&d).is_some());
            if !runs_git || !pinned {
                continue;
            }
            let mut gits: Vec<PathBuf> = super::words::simple_commands(&tokens_of(line, env))
                .iter()
                .flatten()
                .filter(|w| w.contains('/') && super::invoke::name_of(w) == "git")
                .map(|w| super::invoke::resolve(w, cwd))
                .collect();
            // Review 30, 14: a git the line or a grader names another way: `PATH=… git`,
            // `export PATH=…` in a script, `command -p git` (the system's default path), a
            // full path in a script or in Python's `subprocess`.
            let files = grader_files(line, cwd, env);
            let texts =
                std::iter::once(line.display()).chain(files.iter().filter_map(|f| grader_text(f)));
            for text in texts {
                gits.extend(gits_named(&text));
            }
            let path = (env
                .iter()
                .rev()
                .find(|(k, _)| k == "PATH")
                .map(|(_, v)| v.clone()))
            .or_else(|| std::env::var("PATH").ok())
            .unwrap_or_default();
            gits.extend(
                std::env::split_paths(&path)
                    .map(|d| absolute(&cwd.join(d)).join("git"))
                    .find(|g| g.is_file()),
            );
            for git in gits {
                if asked.contains(&git) {
                    continue;
                }
                asked.push(git.clone());
                let Some((version, said)) = git_version(&git) else {
                    continue;
                };
                if version < GIT_ATTR_SOURCE_SINCE {
                    return Err(PlanError::Invalid {
                        path: shown.to_string(),
                        line: t.line,
                        column: 1,
                        message: format!(
                            "task `{}`: `check:` runs git, and `{}` is {said}, older than \
                             2.40: it ignores `GIT_ATTR_SOURCE`, so a trial's `.gitattributes` \
                             would decide what the check's git compares (gate pins the \
                             attributes to the commit of the run's start); run the check with \
                             git 2.40 or later (`env: {{PATH: …}}`), or grade without git",
                            t.id,
                            git.display()
                        ),
                    });
                }
            }
        }
    }
    Ok(())
}

/// The git programs `text` (a check line, a grader's text) names besides the bare `git` on
/// the check's `PATH`: full paths ending in `/git`, `git` in each folder of a `PATH=` value,
/// and the system's default path's (`/usr/bin`, `/bin`) for `command -p`.
fn gits_named(text: &str) -> Vec<PathBuf> {
    // Comments name no program (review 31, 23m).
    let text: String = text
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            // A shebang is no comment (review 32, 34c).
            l.starts_with("#!") || !(l.starts_with('#') || l.starts_with("//"))
        })
        .collect::<Vec<_>>()
        .join("\n");
    let text = text.as_str();
    let stop = |c: char| c.is_whitespace() || "\"'`;|&()[]{},<>=$#!".contains(c);
    let mut out = Vec::new();
    for (k, _) in text.match_indices("/git") {
        let end = k + "/git".len();
        if text[end..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_' || c == '.')
        {
            continue;
        }
        let start = text[..k].rfind(stop).map_or(0, |s| s + 1);
        if text[start..].starts_with('/') {
            out.push(PathBuf::from(&text[start..end]));
        }
    }
    for (k, _) in text.match_indices("PATH=") {
        let value = &text[k + "PATH=".len()..];
        let value = value.trim_start_matches(['"', '\'']);
        let value = &value[..value
            .find(|c: char| c.is_whitespace() || "\"'`;|&)".contains(c))
            .unwrap_or(value.len())];
        // The git that `PATH` finds: the first (review 31, 23k: `/usr/local/bin:/usr/bin`
        // runs the one in `/usr/local/bin`).
        // An entry ends where a variable begins (`/usr/bin${PATH:+:$PATH}`: review 32, 34e).
        out.extend(
            value
                .split(':')
                .map(|d| &d[..d.find('$').unwrap_or(d.len())])
                .filter(|d| d.starts_with('/'))
                .map(|d| Path::new(d).join("git"))
                .find(|g| g.is_file()),
        );
    }
    // `command -p git`: the system's default path (review 31, 23l: not `command -p` of
    // another program).
    // `command -pv git`, `command -p -- git` (review 32, 34a, 34b).
    let command_p = text.lines().any(|l| {
        l.split_once("command -p")
            .is_some_and(|(_, rest)| super::words::mentions_word(rest, "git"))
    });
    if command_p {
        out.extend(
            ["/usr/bin/git", "/bin/git"]
                .map(PathBuf::from)
                .into_iter()
                .find(|g| g.is_file()),
        );
    }
    out.retain(|g| g.is_file());
    out
}

/// `git --version` of the program `git`, as numbers (major, minor) and as it said it
/// (`git version 2.39.5`); `None` when it does not run, or says something else, within 5 s.
fn git_version(git: &Path) -> Option<((u64, u64), String)> {
    let mut child = std::process::Command::new(git)
        .arg("--version")
        .env_clear()
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while child.try_wait().ok()?.is_none() {
        if std::time::Instant::now() >= until {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let mut out = String::new();
    let stdout = child.stdout.take()?;
    std::io::Read::read_to_string(&mut std::io::Read::take(stdout, 4096), &mut out).ok()?;
    let said = out.lines().next()?.trim().to_string();
    let mut numbers = said.strip_prefix("git version ")?.split(['.', ' ']);
    let major = numbers.next()?.parse().ok()?;
    let minor = numbers.next()?.parse().ok()?;
    Some(((major, minor), said))
}

/// Whether `p` lies in one of `roots` (the folders the trials write), read through its
/// nearest existing folder with links resolved: a path not there yet lies where its
/// folder does.
pub(super) fn under_roots(p: &Path, roots: &[PathBuf]) -> bool {
    let existing = p.ancestors().find(|a| a.exists()).unwrap_or(p);
    let real = std::fs::canonicalize(existing).unwrap_or_else(|_| existing.to_path_buf());
    roots.iter().any(|r| real.starts_with(r))
}

/// The folders the trials of `plan` may write as a whole: every task's working folder (and
/// its base side's), or the `writes:` folders beneath it where the task names them, and the
/// `policy.sandbox.writable` roots; links resolved.
pub fn writable_roots(plan: &Plan) -> Vec<PathBuf> {
    roots_of(plan, true)
}

/// [`writable_roots`] with every task's whole working folder (and base's) in place of its
/// `writes:` folders: where the node checks' walls look. A task that narrows `writes` leaves
/// the rest of its folder unwritable under Landlock (a plan with `writes` runs only where it
/// stands), so looking there as well costs a look and nothing else; and node's way from a
/// check's folder to an agent's `node_modules` (`writes: [node_modules]`) starts there.
pub fn task_folder_roots(plan: &Plan) -> Vec<PathBuf> {
    roots_of(plan, false)
}

/// The plan's `policy.sandbox.writable` paths, links resolved.
pub(super) fn sandbox_writable(plan: &Plan) -> Vec<PathBuf> {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| absolute(p));
    plan.policy
        .sandbox
        .writable
        .iter()
        .map(|w| real(w))
        .collect()
}

fn roots_of(plan: &Plan, narrowed: bool) -> Vec<PathBuf> {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| absolute(p));
    let mut roots = sandbox_writable(plan);
    for t in &plan.tasks {
        let sides = std::iter::once(&t.cwd).chain(t.compare().map(|c| &c.base.cwd));
        for cwd in sides {
            if narrowed {
                roots.extend(t.write_roots(&real(cwd)));
            } else {
                roots.push(real(cwd));
            }
        }
    }
    roots.sort();
    roots.dedup();
    roots
}

/// The [`state_folders`] the box must hold read-only, and the end-of-run check fingerprint:
/// those that neither are nor hold a writable root (a folder outside every root is not
/// writable to begin with, but is fingerprinted all the same; one that holds a root would
/// take the root from the task, and the part of it outside the root is not writable).
pub fn guarded_folders(plan: &Plan) -> Vec<PathBuf> {
    let roots = writable_roots(plan);
    state_folders(plan)
        .into_iter()
        .map(|(folder, _, _)| folder)
        .filter(|f| !roots.iter().any(|r| r.starts_with(f)))
        .collect()
}

/// A grader or fixture directly in a folder the trials write as a whole (a task's working
/// folder, a `policy.sandbox.writable` root) is refused unless the box is off: that folder
/// cannot be made read-only without taking it from the task, so a trial could create files
/// beside the grader that it loads (see [`state_folders`]).
pub(super) fn refuse_state_in_a_writable_root(
    shown: &str,
    plan: &Plan,
) -> Result<(), super::PlanError> {
    if plan.policy.sandbox.mode == crate::model::SandboxMode::Off {
        return Ok(());
    }
    let roots = writable_roots(plan);
    for (folder, file, holds) in state_folders(plan) {
        if !roots.contains(&folder) {
            continue;
        }
        let name = file
            .strip_prefix(&folder)
            .unwrap_or(&file)
            .display()
            .to_string();
        return Err(super::PlanError::Invalid {
            path: shown.to_string(),
            line: 1,
            column: 1,
            message: format!(
                "{} `{}` lies directly in `{}`, a folder the trials write, which gate cannot make \
                 read-only: a trial could add files beside it that the grader loads (a \
                 `conftest.py`, a `__pycache__`, a module); move it into a subfolder (e.g. \
                 `graders/{name}`) or outside the task's folder",
                holds.noun(),
                file.display(),
                folder.display(),
            ),
        });
    }
    Ok(())
}

/// A named file that is a symbolic link inside a folder the trials may write is refused:
/// the box makes the file it points to read-only, not the link, so a trial could point the
/// link at a grader of its own (and point it back before the run ends).
pub(super) fn refuse_symlinked_named_files(
    shown: &str,
    plan: &Plan,
) -> Result<(), super::PlanError> {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| absolute(p));
    let guarded = guarded_folders(plan);
    let roots = writable_roots(plan);
    let writable = &roots;
    for f in named_files(plan) {
        let is_link = std::fs::symlink_metadata(&f).is_ok_and(|m| m.file_type().is_symlink());
        // The link's own folder, resolved: a link reached through a linked folder is still
        // in a folder the trials may write when that folder resolves into one.
        let folder = f.parent().map(real).unwrap_or_default();
        // A link in a folder that is gate's state, read-only whole (a venv's `bin/`, a
        // `node_modules/.bin/`), cannot be re-pointed; what it points to is protected
        // unless that lies where trials write outside such a folder (review 8, a27).
        let target = real(&f);
        let held = |p: &Path| guarded.iter().any(|g| p.starts_with(g));
        let target_open = writable.iter().any(|w| target.starts_with(w)) && !held(&target);
        let in_environment = environment_root(&link_location(&f), &roots).is_some_and(|r| held(&r));
        if is_link && in_environment && !target_open {
            continue;
        }
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
        let Some(c) = t.compare() else { continue };
        for w in &plan.policy.sandbox.writable {
            let w = real(w);
            for (side, cwd) in [("head", &t.cwd), ("base", &c.base.cwd)] {
                if real(cwd).starts_with(&w) {
                    return Err(super::PlanError::at_task(
                        shown,
                        t.line,
                        format!(
                            "task `{}`: `policy.sandbox.writable` `{}` holds {side}'s working folder, so the \
                             other side's trials could rewrite it; name folders beside both checkouts instead",
                            t.id,
                            w.display()
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The existing programs and scripts `line` names, run from `cwd` with the plan's `env`
/// (see the module doc for what counts). An interpreter's words are read once, by
/// [`super::invoke::invocation`], the reading the allow-list of `check:` lines follows
/// (review 11): its script, the files its options load and its `-m` module are taken; an
/// option value that loads nothing is not.
pub fn programs_named(line: &CommandLine, cwd: &Path, env: &[(String, String)]) -> Vec<PathBuf> {
    use super::invoke::{Family, Runs, invocation};
    let tokens = tokens_of(line, env);
    let path_dirs: Vec<PathBuf> = env
        .iter()
        .filter(|(k, _)| k == "PATH")
        .flat_map(|(_, v)| v.split(':').map(|d| cwd.join(d)).collect::<Vec<_>>())
        .collect();
    let word = |j: usize| match tokens.get(j) {
        Some(Token::Word(w)) => Some(w.as_str()),
        _ => None,
    };
    // The tokenizer gives the value of `NAME=VALUE` (or `--opt=VALUE`) as a word of its own
    // just before it.
    let value_of_next = |j: usize| {
        word(j).is_some_and(|w| {
            word(j + 1).is_some_and(|n| n.split_once('=').is_some_and(|(_, v)| v == w))
        })
    };
    let mut found = Vec::new();
    let mut dir = cwd.to_path_buf();
    // What the previous words make of this one.
    let mut after_cd = false;
    // Still before the command's name: assignments, wrappers and their options.
    let mut lead = true;
    let mut wrapper = String::new();
    let mut wrapper_value = false;
    let mut duration = false;
    // An interpreter that reads its program from stdin (`sh < grade`, `sh -s < grade`).
    let mut stdin_reader = false;
    let mut consumed = 0;
    let mut target = false;
    for (j, t) in tokens.iter().enumerate() {
        let w = match t {
            Token::End | Token::Scope(_) => {
                (after_cd, lead, stdin_reader, wrapper_value) = (false, true, false, false);
                wrapper.clear();
                continue;
            }
            Token::Input => {
                target = true;
                continue;
            }
            Token::Word(w) => w.clone(),
        };
        if j < consumed {
            continue;
        }
        let was_lead = lead;
        let name = super::words::name_of(&w);
        if lead {
            let assignment = w
                .split_once('=')
                .is_some_and(|(k, _)| super::words::is_name(k));
            let wrapper_word = super::words::WRAPPERS.contains(&name.as_str());
            let value = std::mem::take(&mut wrapper_value);
            // `timeout`'s first operand is its duration, whatever it looks like (`inf`).
            let operand = if wrapper == "timeout" {
                !value && !w.starts_with('-') && std::mem::take(&mut duration)
            } else {
                w.starts_with(|c: char| c.is_ascii_digit())
            };
            let wrapper_arg = !wrapper.is_empty() && (w.starts_with('-') || operand);
            if wrapper_arg {
                wrapper_value = super::words::prefix_option(&wrapper, &w) == Some(true);
            }
            if wrapper_word {
                wrapper = name.clone();
                duration = wrapper == "timeout";
            }
            lead = assignment || wrapper_word || wrapper_arg || value || value_of_next(j);
        }
        if w.is_empty() || w.contains(['$', '*', '?', '[', '~', '`']) {
            target = false;
            continue;
        }
        // The one resolution of a path a line names (review 13): `/proc/self/cwd` is the
        // command's folder, not gate's.
        let p = super::invoke::resolve(&w, &dir);
        if std::mem::take(&mut target) {
            // What `<` feeds an interpreter that has no script is its program (`sh <
            // grade`); what it feeds another command is data (review 10, a09: `[ $(wc -l <
            // result) -eq 1 ]`).
            if stdin_reader && p.is_file() {
                found.push(p);
            }
            continue;
        }
        if std::mem::take(&mut after_cd) {
            // `cd -P graders` (review 11, a27).
            if w.starts_with('-') && w != "-" {
                after_cd = true;
                continue;
            }
            // `cd graders && sh check.sh`: later words are in `graders/`.
            if p.is_dir() {
                dir = p;
            }
            continue;
        }
        if w == "cd" || w == "pushd" {
            after_cd = true;
            continue;
        }
        if is_program(&p) {
            found.push(p.clone());
        } else if !w.contains('/') {
            // A command found through the plan's own `PATH`.
            found.extend(
                path_dirs
                    .iter()
                    .map(|d| absolute(&d.join(&w)))
                    .find(|c| is_program(c)),
            );
        }
        let bare = super::words::bare(&name);
        // A program file named by an option of a command that is not an interpreter
        // (review 13, b11, b24, b20: `awk -f F`, `sed -f F`, `jq -f F`, `make -f F`, `make
        // -C DIR`), whatever its extension.
        if was_lead && !lead {
            let mut args = Vec::new();
            let mut k = j;
            while let Some(Token::Word(a)) = tokens.get(k) {
                if !value_of_next(k) {
                    args.push(a.as_str());
                }
                k += 1;
            }
            // `find … -exec awk -f F {} +` runs the tool after `-exec`.
            let mut starts = vec![0];
            if super::words::name_of(args[0]) == "find" {
                starts.extend(
                    (1..args.len()).filter(|&k| {
                        matches!(args[k - 1], "-exec" | "-execdir" | "-ok" | "-okdir")
                    }),
                );
            }
            let named = starts
                .into_iter()
                .flat_map(|k| super::invoke::program_files(&args[k..]));
            for (_, path, makefile_of) in named {
                if path.contains(['$', '*', '?', '[', '~', '`']) {
                    continue;
                }
                let at = super::invoke::resolve(&path, &dir);
                if makefile_of {
                    found.extend(
                        super::invoke::makefiles(&at)
                            .into_iter()
                            .find(|m| m.is_file()),
                    );
                } else if at.is_file() {
                    found.push(at);
                }
            }
        }
        // `.` and `source` run a script only as a command (`find . -name x` does not),
        // after assignments or `command` too (review 11, a26).
        let sourcing = matches!(name.as_str(), "." | "source");
        if !(INTERPRETERS.contains(&name.as_str()) || INTERPRETERS.contains(&bare))
            || (sourcing && !was_lead)
        {
            continue;
        }
        // The interpreter's words, to the end of its simple command.
        let mut at = vec![j];
        let mut k = j + 1;
        while let Some(Token::Word(_)) = tokens.get(k) {
            if !value_of_next(k) {
                at.push(k);
            }
            k += 1;
        }
        let args: Vec<&str> = at.iter().filter_map(|&k| word(k)).collect();
        let Ok(inv) = invocation(&args) else {
            // Refused as a `check:` line; a `run:` line's words are taken one by one.
            continue;
        };
        consumed = at.get(inv.rest).copied().unwrap_or(k);
        lead = false;
        let node = matches!(inv.family, Family::Node | Family::Deno | Family::Bun);
        for (_, v, _) in &inv.loads {
            take_script(&mut found, &dir, v, node);
        }
        match &inv.runs {
            Runs::Script(i) => take_script(&mut found, &dir, args[*i], node),
            // A folder given to `node --test` is protected whole (review 13, b09).
            Runs::Tests(ts) => {
                for t in ts {
                    take_script(&mut found, &dir, args[*t], node);
                }
            }
            Runs::Module(_, m) => take_module(&mut found, &dir, m),
            Runs::Stdin => stdin_reader = true,
            Runs::Code(_) | Runs::Nothing => {}
        }
    }
    found
}

/// An interpreter's script or a file its option loads, `t` from `dir`: the file; every file
/// beneath it when it is a folder (review 11, a10: `python3 graders/pyg` runs its
/// `__main__.py`); for node, the file with the extension it tries (review 10).
fn take_script(found: &mut Vec<PathBuf>, dir: &Path, t: &str, node: bool) {
    if t.is_empty() || t.contains(['$', '*', '?', '[', '~', '`']) {
        return;
    }
    let p = super::invoke::resolve(t, dir);
    if p.is_file() {
        found.push(p);
    } else if p.is_dir() {
        files_under(&p, found);
    } else if node {
        let candidates = ["js", "mjs", "cjs", "ts", "json", "node"]
            .map(|e| PathBuf::from(format!("{}.{e}", p.display())));
        found.extend(candidates.into_iter().filter(|c| c.is_file()));
    }
}

/// `python3 -m grader`: `grader.py`, or the package folder `grader/`.
fn take_module(found: &mut Vec<PathBuf>, dir: &Path, m: &str) {
    if m.is_empty() || m.contains(['$', '*', '?', '[', '~', '`', '/']) {
        return;
    }
    let rel = PathBuf::from(m.replace('.', "/"));
    let module = absolute(&dir.join(&rel).with_extension("py"));
    if module.is_file() {
        found.push(module);
    }
    let top = absolute(&dir.join(m.split('.').next().unwrap_or_default()));
    if top.is_dir() {
        files_under(&top, found);
    } else if top.with_extension("py").is_file() {
        found.push(top.with_extension("py"));
    }
}

/// A regular file that is executable or has a script's extension.
pub(super) fn is_program(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    let Ok(meta) = std::fs::metadata(p) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    script_extension(p) || meta.permissions().mode() & 0o111 != 0
}

/// Whether `p`'s name ends in a script's extension ([`SCRIPT_EXTENSIONS`]).
pub(super) fn script_extension(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| SCRIPT_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
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
    /// Folders of plan state, with what they held; their fingerprint says nothing of a path
    /// beneath the skipped ones.
    folders: Vec<(PathBuf, String)>,
    skip: Vec<PathBuf>,
}

impl Snapshot {
    /// Fingerprint each of `files` now.
    pub fn take(files: &[PathBuf]) -> Snapshot {
        Snapshot {
            files: files.iter().map(|f| (f.clone(), fingerprint(f))).collect(),
            ..Snapshot::default()
        }
    }

    /// Also fingerprint each of `folders` with everything beneath it (see
    /// [`folder_fingerprint`]), leaving out the paths beneath `skip` (gate's own output,
    /// which changes during the run).
    pub fn with_folders(mut self, folders: &[PathBuf], skip: &[PathBuf]) -> Snapshot {
        let skip: Vec<PathBuf> = skip
            .iter()
            .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| absolute(p)))
            .collect();
        self.folders = folders
            .iter()
            .map(|f| (f.clone(), folder_fingerprint(f, &skip)))
            .collect();
        self.skip = skip;
        self
    }

    /// The first folder of plan state too large to fingerprint (more than
    /// [`MAX_FOLDER_ENTRIES`] entries): a change in it would not be seen (review 29, 01c).
    pub fn blind(&self) -> Option<&Path> {
        let too_many = format!("a folder of more than {MAX_FOLDER_ENTRIES} entries");
        (self.folders.iter())
            .find(|(_, d)| *d == too_many)
            .map(|(f, _)| f.as_path())
    }

    /// The files whose content is not what it was when the snapshot was taken (changed,
    /// removed, replaced, re-pointed, or now of another type).
    pub fn changed(&self) -> Vec<&Path> {
        let files = self.files.iter().filter(|(f, d)| fingerprint(f) != *d);
        let folders =
            (self.folders.iter()).filter(|(f, d)| folder_fingerprint(f, &self.skip) != *d);
        files.chain(folders).map(|(f, _)| f.as_path()).collect()
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

/// At most this many entries beneath a folder of plan state are listed, as many as a link
/// scan reads ([`LINK_SCAN_ENTRIES`]); a folder that holds more is recorded as that, and
/// `gate run` refuses to start ([`Snapshot::blind`]): a change in it would not be seen.
pub const MAX_FOLDER_ENTRIES: usize = LINK_SCAN_ENTRIES;

/// What a folder of plan state holds now: every path beneath it (links not followed, paths
/// beneath `skip` left out), each with its type, size, inode and change time (`ctime`,
/// which a process cannot set back, unlike `mtime`: a forged `.pyc` written over an old one
/// is seen), digested. Contents are not read: the named files among them are hashed on
/// their own.
fn folder_fingerprint(root: &Path, skip: &[PathBuf]) -> String {
    use std::os::unix::fs::MetadataExt as _;
    let Ok(meta) = std::fs::symlink_metadata(root) else {
        return "missing".to_string();
    };
    if !meta.is_dir() {
        return fingerprint(root);
    }
    let mut lines = Vec::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            lines.push(format!("{}\0unreadable", dir.display()));
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            if skip.iter().any(|s| path.starts_with(s)) {
                continue;
            }
            let Ok(m) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if lines.len() >= MAX_FOLDER_ENTRIES {
                return format!("a folder of more than {MAX_FOLDER_ENTRIES} entries");
            }
            lines.push(format!(
                "{}\0{:o}\0{}\0{}\0{}.{}",
                path.display(),
                m.mode(),
                m.len(),
                m.ino(),
                m.ctime(),
                m.ctime_nsec()
            ));
            if m.is_dir() {
                todo.push(path);
            }
        }
    }
    lines.sort();
    format!("folder sha256 {}", sha256_hex(lines.join("\n").as_bytes()))
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
    fn node_preloads_by_name_and_paths_the_code_builds_are_found() {
        use crate::plan::words::{bare_preloads, built_path_load};
        assert_eq!(
            bare_preloads("exec node -r dotenv/config graders/check.js"),
            ["dotenv/config"]
        );
        assert_eq!(bare_preloads("node --import=tsx --test graders/"), ["tsx"]);
        assert_eq!(
            bare_preloads("NODE_OPTIONS=\"--require x\" node a.js"),
            ["x"]
        );
        // Review 36, 70a-70n: the spellings of a script, a Python and a JavaScript grader.
        for text in [
            "NODE=node\nexec \"$NODE\" -r dotenv/config graders/check.js",
            "exec node \\\n  -r dotenv/config \\\n  graders/check.js",
            "exec node --title grader -r dotenv/config graders/check.js",
            "exec node -C development -r dotenv/config graders/check.js",
            "subprocess.run([\"node\",\"-r\",\"dotenv/config\",\"graders/check.js\"])",
            "spawnSync(\"node\", [\"-r\",\"dotenv/config\", path.join(__dirname,\"check.js\")])",
            "spawnSync(process.execPath, [\"--require=dotenv/config\", f])",
            "os.environ[\"NODE_OPTIONS\"] = \"--require dotenv/config\"",
            "out=$(node -r dotenv/config graders/check.js) || exit 1",
            "\\node -r dotenv/config graders/check.js",
            "(node -r dotenv/config graders/check.js)",
            "spawnSync(\"node\", [f], {env: {...process.env, NODE_OPTIONS: \"--require dotenv/config\"}})",
        ] {
            assert_eq!(bare_preloads(text), ["dotenv/config"], "{text}");
        }
        assert_eq!(
            crate::plan::words::js_unescape("requir\\u0065(n); \\u{65}q; \\u00; \\u{}"),
            "require(n); eq; \\u00; \\u{}"
        );
        // Review 37, 80a-80z: variables, arrays, lines of one argument, wrappers.
        for text in [
            "OPTS=\"-r dotenv/config\"\nexec node $OPTS graders/check.js",
            "args=(-r dotenv/config)\nexec node \"${args[@]}\" graders/check.js",
            "PRE=\"--require dotenv/config\"\nexport NODE_OPTIONS=\"$PRE\"",
            "export NODE_OPTIONS=--require\\ dotenv/config",
            "subprocess.run(\n    [\n        \"node\",\n        \"-r\",\n        \"dotenv/config\",\n    ]\n)",
            "preload = [\"-r\", \"dotenv/config\"]\nsubprocess.run([\"node\", *preload, f])",
            "process.env.NODE_OPTIONS = \"--require dotenv/config\";",
            "fork(f, [], { execArgv: [\"-r\", \"dotenv/config\"] })",
            "const flags = [\"-r\", \"dotenv/config\"];\nspawnSync(process.execPath, [...flags, f]);",
            "env = {**os.environ, \"NODE_OPTIONS\": \"--require \" + PRELOAD}\nPRELOAD = \"dotenv/config\"",
            "run_node() { node \"$@\"; }\nrun_node -r dotenv/config graders/check.js",
            "#!/usr/bin/env -S node -r dotenv/config\nrequire(\"./x\");",
        ] {
            assert_eq!(bare_preloads(text), ["dotenv/config"], "{text}");
        }
        // Review 38, 90a-90q: a variable set from itself, one that names node, a list
        // appended to, `function NAME`, `--experimental_loader`, an unset expansion.
        for text in [
            "OPTS=\"-r dotenv/config\"\nOPTS=\"$OPTS --no-warnings\"\nexec node $OPTS c.js",
            "NODE_BIN=$(command -v node)\n\"$NODE_BIN\" -r dotenv/config c.js",
            "js = shutil.which(\"node\")\nsubprocess.run([js, \"-r\", \"dotenv/config\", f])",
            "spawnSync(process.argv[0], [\"-r\", \"dotenv/config\", f])",
            "OPTS=${OPTS:-\"-r dotenv/config\"}\nnode $OPTS c.js",
            "cmd = [\"node\"]\ncmd += [\"-r\", \"dotenv/config\"]\nsubprocess.run(cmd)",
            "const args = [];\nargs.push(\"-r\", \"dotenv/config\");\nspawnSync(\"node\", args);",
            "function run_node { node \"$@\"; }\nrun_node -r dotenv/config c.js",
            "node --experimental_loader=dotenv/config c.js",
            "node $NODE_ARGS -r dotenv/config c.js",
            "node ${DEBUG:+--trace-warnings} -r dotenv/config c.js",
            "set -- -r dotenv/config\nexec node \"$@\" graders/check.js",
            "printf '%s\\n' -r dotenv/config graders/check.js | xargs node",
            // Review 39, 97q: an expression that goes on past `||`.
            "env: { NODE_OPTIONS: (process.env.NODE_OPTIONS || \"\") + \" --require dotenv/config\" }",
        ] {
            assert_eq!(bare_preloads(text), ["dotenv/config"], "{text}");
        }
        for text in [
            "echo 'require(\"eq\")' | node",
            "node <<'EOF'\nrequire(\"eq\")\nEOF",
            "exec node --eval='require(\"eq\")'",
            "exec node -e \"$(cat graders/inline.txt)\"",
            // Review 39, 97e, 97f, 97s, 97y.
            "exec node<<'EOF'\nrequire(\"eq\")\nEOF",
            "echo 'require(\"eq\")' | timeout 10 node",
            "echo 'require(\"eq\")' |  node",
            "exec node --input-type=commonjs <<'EOF'\nrequire(\"eq\")\nEOF",
        ] {
            assert!(crate::plan::words::gives_node_code(text), "{text}");
        }
        for text in [
            "env = {k: v for k, v in os.environ.items() if k != \"NODE_OPTIONS\"}",
            "exec node graders/check.js",
            "\"$NODE\" --version",
            // Review 39, 96g, 96h: node runs a script, or a pipe only in a comment.
            "cat out.json | node graders/check.js",
            "# cat out.json | node\nexec node graders/check.js",
            "node graders/check.js < out.json > got.txt",
        ] {
            assert!(!crate::plan::words::gives_node_code(text), "{text}");
        }
        for text in [
            // Review 38's over-refusals: another program's options near node's name.
            "unset NODE_OPTIONS\ngpg --import graders/pub.asc\nexec node graders/check.js",
            "const a = process.execArgv;\nexecSync(\"grep -r TODO graders\");",
            "check() { node --version; sort -r graders/check.js; }",
            "cmds = [[\"node\", \"--version\"], [\"sort\", \"-r\", \"graders/x\"]]",
            "exec node -r \"$PWD/graders/setup.js\" graders/check.js",
            "exec node --require \"$HERE/setup.js\" graders/check.js",
            // Review 39, 96a, 96b, 96d2, 96d3, 96e, 96p: paths the code or the shell builds.
            "SETUP = os.path.join(HERE, \"setup.js\")\nsubprocess.run([\"node\", \"-r\", SETUP, f])",
            "const setup = path.join(__dirname, \"setup.js\");\nspawnSync(\"node\", [\"-r\", setup, f]);",
            "exec node -r \"$(realpath graders/setup.js)\" graders/check.js",
            "exec node -r \"$(cd \"$(dirname \"$0\")\" && pwd)/setup.js\" graders/check.js",
            "exec node -r \"${PWD}/graders/setup.js\" graders/check.js",
            "const s = require.resolve(\"./setup.js\");\nspawnSync(\"node\", [\"-r\", s, f]);",
            "for node in a b; do ./solve \"$node\" -r 2; done",
            "set -- a b\nexec node graders/check.js \"$@\" -r x",
            "ls graders | xargs -n1 echo; grep -r x graders",
            "env[\"NODE_OPTIONS\"] = \"--require \" + os.path.join(HERE, \"setup.js\")",
            "NODE_OPTIONS: \"--require \" + path.join(__dirname, \"setup.js\")",
        ] {
            assert!(bare_preloads(text).is_empty(), "{text}");
        }
        assert_eq!(
            bare_preloads("exec node --test --test-reporter=@reporters/github graders/"),
            ["@reporters/github"]
        );
        // Another program's `-r`, paths, node's own modules and reporters are none.
        for text in [
            "node_modules/.bin/x -r y; rm -r node_modules",
            "const node = process.versions.node; read -r x",
            "subprocess.run([\"node\", \"graders/check.js\", \"-r\", \"x\"])",
            "grep -r answer out/ && read -r line",
            "node -r ./graders/setup.js graders/check.js",
            "node --test --test-reporter spec graders/",
            "node -r node:fs a.js",
            "rm -r node_modules; node a.js -r x",
            "# was: node -r dotenv/config graders/check.js",
        ] {
            assert!(bare_preloads(text).is_empty(), "{text}");
        }
        for code in [
            "require(path.join(__dirname, f))",
            "require(\"./\" + name)",
            "await import(`./${n}.mjs`)",
            "await import(new URL(spec, import.meta.url))",
        ] {
            assert!(built_path_load(code), "{code}");
        }
        for code in [
            "require(\"./lib/grade.js\")",
            "require(\"eq\")",
            "require(n)",
        ] {
            assert!(!built_path_load(code), "{code}");
        }
    }

    /// Review 40: a preload option's literal value is read wherever the text builds node's
    /// arguments (review 39's 97c-97x, review 38's 90b, 90h, 90j); another program's
    /// option, a script's own argument and a value the code computes are not.
    #[test]
    fn a_literal_preload_is_found_wherever_the_arguments_are_built() {
        use crate::plan::words::{Lang, literal_preloads, reaches_a_constructor};
        for (text, lang) in [
            (
                "args.unshift(\"-r\", \"dotenv/config\");\nspawnSync(process.execPath, args);",
                Lang::Code,
            ),
            (
                "cmd = [\"node\", \"graders/check.js\"]\ncmd.insert(1, \"--require=dotenv/config\")",
                Lang::Code,
            ),
            (
                "PRELOAD: list[str] = [\"-r\", \"dotenv/config\"]",
                Lang::Code,
            ),
            (
                "function main() {\n  const flags = [\"-r\", \"dotenv/config\"];\n}",
                Lang::Code,
            ),
            (
                "N=node\nRUN=$N\nexec $RUN -r dotenv/config graders/check.js",
                Lang::Shell,
            ),
            ("NODE_FLAGS=()\nNODE_FLAGS+=(-r dotenv/config)", Lang::Shell),
            (
                "OPTS=\"--no-warnings\"\nOPTS+=\" -r dotenv/config\"",
                Lang::Shell,
            ),
            ("OPTS=\"\"\nOPTS=\"$OPTS -r dotenv/config\"", Lang::Shell),
            (
                "run() {\n  local flags\n  flags=\"-r dotenv/config\"\n  node $flags x.js\n}",
                Lang::Shell,
            ),
            ("declare -a FLAGS=(-r dotenv/config)", Lang::Shell),
            ("NODE_FLAGS=\"-r dotenv/config\"", Lang::Shell),
            (
                "exec node \\\n  --require ./graders/setup.js \\\n  -r dotenv/config graders/check.js",
                Lang::Shell,
            ),
            (
                "{\"argv\": [\"node\", \"-r\", \"dotenv/config\", \"graders/check.js\"]}",
                Lang::Code,
            ),
            (
                "env = {\"NODE_OPTIONS\": \"--import=dotenv/config\"}",
                Lang::Code,
            ),
            (
                "read -r NODE_OPTIONS <<EOF\n-r dotenv/config\nEOF\nexec node x.js",
                Lang::Shell,
            ),
            (
                "exec make -s -f graders/Makefile NODE_ARGS=\"-r dotenv/config\"",
                Lang::Shell,
            ),
        ] {
            assert_eq!(literal_preloads(text, lang), ["dotenv/config"], "{text}");
        }
        for (text, lang) in [
            (
                "grep -r dotenv src && rm -r build && read -r line",
                Lang::Shell,
            ),
            (
                "if [ -r graders/key.pem ]; then jq -r .answer out.json; fi",
                Lang::Shell,
            ),
            (
                "sed -r 's/a/b/' x; find . | xargs -r node x.js; sort -r data.txt",
                Lang::Shell,
            ),
            (
                "gpg --import graders/pub.asc; ruby -r json x.rb; cargo build -r",
                Lang::Shell,
            ),
            ("exec node graders/check.js -r dotenv/config", Lang::Shell),
            (
                "exec node -r ./graders/setup.js graders/check.js",
                Lang::Shell,
            ),
            (
                "exec node -r \"$SETUP\" -r \"$(realpath x.js)\" graders/check.js",
                Lang::Shell,
            ),
            ("subprocess.run([\"node\", \"-r\", SETUP, f])", Lang::Code),
            (
                "subprocess.run([\"grep\", \"-r\", \"dotenv\", \".\"])",
                Lang::Code,
            ),
            (
                "subprocess.run([\"node\", \"graders/check.js\", \"-r\", \"x\"])",
                Lang::Code,
            ),
            (
                "env[\"NODE_OPTIONS\"] = \"--require \" + os.path.join(HERE, \"setup.js\")",
                Lang::Code,
            ),
            (
                "spawnSync(\"node\", [\"-r\", require.resolve(\"./setup.js\"), f]);",
                Lang::Code,
            ),
            (
                "node -r node:fs a.js; node --test --test-reporter spec graders/",
                Lang::Shell,
            ),
            // Review 41's over-refusals 100ac-100aj.
            (
                "declare -r GRADER=graders/check.js\nexec node \"$GRADER\"",
                Lang::Shell,
            ),
            (
                "case \"${1:-}\" in\n  -r) VERBOSE=1 ;;\nesac\nexec node x.js",
                Lang::Shell,
            ),
            (
                "if [[ -f out.json && -r graders/expected.json ]]; then node x.js; fi",
                Lang::Shell,
            ),
            (
                "python3 graders/prep.py -r report.txt && exec node graders/check.js",
                Lang::Shell,
            ),
            (
                "echo \"usage: $0 -r report.txt\" >&2; exec node graders/check.js",
                Lang::Shell,
            ),
            (
                "xxd -r graders/empty.hex > /dev/null; exec node graders/check.js",
                Lang::Shell,
            ),
        ] {
            assert!(literal_preloads(text, lang).is_empty(), "{text}");
        }
        for code in [
            "const make = (async () => {}).constructor;",
            "const eq = (() => {}).constructor(src)();",
            "const F = f[\"constructor\"];",
        ] {
            assert!(reaches_a_constructor(code), "{code}");
        }
        for code in [
            "class A { constructor(x) { this.x = x; } }",
            "console.log(e.constructor.name);",
            "if (a.constructor !== b.constructor) return false;",
        ] {
            assert!(!reaches_a_constructor(code), "{code}");
        }
    }

    #[test]
    fn a_name_the_code_computes_names_a_package_and_a_literal_is_read() {
        // Computed: any package, the grader's own name included (review 33, 39i).
        for code in [
            "const eq = require(n);",
            "require ( name )",
            "require.resolve(x)",
            "await import(spec)",
            "require(`${x}`)",
            "require([\"e\", \"q\"].join(\"\"))",
            // `require` handed on, or a loader of its own (review 34).
            "const [eq] = names.map(require);",
            "const load = require;\nload(n)",
            "require /* c */ (n)",
            "require.call(null, n)",
            "const req = createRequire(import.meta.url); req(\"eq\")",
            "module.constructor._load(n)",
        ] {
            assert!(names_a_package(code), "{code}");
        }
        // Literal names are read as they are; node's own modules and paths name none.
        for code in [
            "const fs = require(\"fs\");",
            "require('./lib/grade.js')",
            "require(`./lib`)",
            "import x from \"./x.js\";",
            "const m = import.meta.url;",
            "Array.from(xs)",
            "require()",
            "// require(n) in a comment",
            // A path built from the grader's own place (review 34, 54a-54d).
            "require(`./cases/${name}.json`)",
            "require(path.join(__dirname, \"helpers.js\"))",
            "await import(new URL(\"./helpers.mjs\", import.meta.url))",
            // Loads nothing.
            "if (typeof require === \"function\") {}",
            "if (require.main === module) main();",
            "/* we require node 18 */",
            "const x = 1; // --strict (require every key)",
            "const u = \"http://x\"; // require(n) after a string",
        ] {
            assert!(!names_a_package(code), "{code}");
        }
        assert!(names_a_package("import eq from \"eq\";"));
    }

    #[test]
    fn words_of_a_shell_line_drop_quotes_and_split_on_operators() {
        let words = |l: &str| {
            super::super::words::line_tokens(l, &[], 0)
                .into_iter()
                .map(|t| match t {
                    Token::Word(w) => w,
                    Token::End => ";".to_string(),
                    Token::Input => "<".to_string(),
                    Token::Scope(start) => if start { "(" } else { ")" }.to_string(),
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            words("sh 'check.sh'&&X=./a.py ./b"),
            ["sh", "check.sh", ";", "./a.py", "X=./a.py", "./b"]
        );
        assert_eq!(
            words("sh -c 'sh sub/check'"),
            [
                "sh",
                "-c",
                "sh sub/check",
                ";",
                "(",
                "sh",
                "sub/check",
                ";",
                ")",
                ";"
            ]
        );
    }

    #[test]
    fn a_plan_env_value_is_expanded_and_an_unknown_name_is_not() {
        let env = [("GRADER".to_string(), "check.sh".to_string())];
        let words: Vec<Token> =
            super::super::words::line_tokens("sh \"$GRADER\" ${GRADER} $OTHER '$GRADER'", &env, 0);
        let words: Vec<String> = words
            .into_iter()
            .filter_map(|t| match t {
                Token::Word(w) => Some(w),
                _ => None,
            })
            .collect();
        assert_eq!(words, ["sh", "check.sh", "check.sh", "$OTHER", "$GRADER"]);
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
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        assert_eq!(fingerprint(&fifo), "a fifo");
        assert_eq!(fingerprint(Path::new("/dev/zero")), "a device");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert_eq!(fingerprint(&link), "link /dev/zero -> a device");
    }
}
