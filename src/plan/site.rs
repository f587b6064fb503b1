//! The folders a check's Python adds to `sys.path` from its site folders (issue 29, review
//! 71, 41-43).
//!
//! Every Python process reads the `*.pth` files of its site folders at start and appends
//! the folders they name to `sys.path`; it then imports `sitecustomize` from the first
//! `sys.path` folder that holds one, and pytest loads as a plugin every `pytest11` entry
//! point of a `*.dist-info` it finds there. An editable install of the agent's package
//! (`pip install -e .`) writes such a `.pth` naming the project's `src`; where the trials
//! write `src`, a trial's `src/sitecustomize.py` runs inside every Python check (`-I`
//! included) and a `src/x.dist-info` with a `pytest11` entry point turns pytest's reports
//! into passes. No file a `check:` line names is involved, so no wall of [`super::state`]
//! stood there; review 71 got a wrong PASS in both box modes.
//!
//! So at load gate asks each Python a `check:` line starts ([`pythons_run`]: the interpreter
//! it names, the one in the `#!` line of a program it names such as `pytest`, those of the
//! makefile recipes and npm scripts it runs, a project runner's `.venv`) for its site
//! folders, reads their `.pth` files, and refuses a site folder, or a folder a `.pth` names,
//! that lies in a folder the trials write. The question is asked with `-S`: Python reads no
//! `.pth` and runs no `sitecustomize` to answer it; and a Python that lies in a folder the
//! trials write is refused without being asked, so nothing a trial left in the checkout runs
//! outside the box (review 72, 09). A Python that cannot answer is refused: gate publishes no
//! verdict it could not check. A `.pth` line that is code (`import …`) is not followed: what
//! it adds is known only by running it (setuptools' editable finders map the agent's own
//! package names, which the check imports anyway).

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::words::{
    is_python, name_of, python_line_break, python_space, simple_commands, tokens_of,
};
use super::{Plan, PlanError};

/// What Python runs to name its site folders, as `site.main()` would find them, without
/// running `site.main()`: the virtual environment's `pyvenv.cfg` decides the prefixes and
/// whether the user's site folder counts, as `site.venv` does (and `sys.prefix` is set to the
/// environment, which Debian's `getsitepackages` reads to add the environment's own
/// `site-packages`: review 72, 01). The current folder (`sys.path[0]` under `-c`) is taken off
/// `sys.path` before anything is imported. A JSON object: `sites`, and `user` (`null` where
/// the environment leaves the user's site folder out).
const PROBE: &str = r#"import sys
del sys.path[0]
import json, os, site
exe = os.path.abspath(sys.executable)
d = os.path.dirname(exe)
pre = os.path.dirname(d)
prefixes = list(site.PREFIXES)
user = True
for c in (os.path.join(d, "pyvenv.cfg"), os.path.join(pre, "pyvenv.cfg")):
    if os.path.isfile(c):
        system = "true"
        with open(c, encoding="utf-8", errors="replace") as f:
            for line in f:
                k, _, v = line.partition("=")
                if k.strip().lower() == "include-system-site-packages":
                    system = v.strip().lower()
        sys.prefix = sys.exec_prefix = pre
        if system == "true":
            prefixes.insert(0, pre)
        else:
            prefixes = [pre]
            user = False
        break
sys.stdout.write(json.dumps({
    "path": sys.path,
    "sites": site.getsitepackages(prefixes),
    "user": site.getusersitepackages() if user else None,
}))
"#;

/// How long one interpreter may take to answer [`PROBE`]; one that does not is refused.
const PROBE_TIMEOUT: Duration = Duration::from_secs(20);

/// The variables of the check's environment the probe runs with (the check's value: the
/// plan's `env:`, else gate's): those that move Python's prefix and user folder, and those a
/// version manager's shim reads to choose the Python (`PYENV_DIR` is set to the check's
/// folder, where the shim would look for `.python-version`: review 72, 04).
const PROBE_VARS: &[&str] = &[
    "PATH",
    "HOME",
    "PYTHONHOME",
    "PYTHONPLATLIBDIR",
    "PYTHONUSERBASE",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "PYENV_DIR",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
];

/// One way a `check:` line starts Python: the interpreter (a path as found, links not
/// followed), the folder it starts in, and how its options move what it reads.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Python {
    program: PathBuf,
    dir: PathBuf,
    /// `-I` or `-E`: Python ignores `PYTHON*` variables (`PYTHONHOME`, `PYTHONNOUSERSITE`).
    ignores_env: bool,
    /// `-I` or `-s`: no user site folder.
    no_user_site: bool,
    /// The grader file whose text starts it, where the line does not name it (review 75).
    from: Option<PathBuf>,
}

/// What gate finds a `check:` line starts.
enum Found {
    Python(Python),
    /// A Python gate cannot name (a `#!` trampoline it cannot read, a project runner where
    /// the trials could make the project's environment): refused, with why.
    Unknown(String),
}

/// Python's answer to [`PROBE`].
#[derive(serde::Deserialize, Clone)]
struct Sites {
    /// `sys.path` without the current folder, as Python starts with `-S`.
    path: Vec<String>,
    sites: Vec<String>,
    user: Option<String>,
}

/// An interpreter with the `env:` it was asked with.
type Asked = (Python, Vec<(String, String)>);

/// Most Pythons the `check:` lines of a plan may run that gate asks for their site folders.
const MAX_PYTHONS: usize = 32;

/// A `check:` line (a task's or base's) that runs a Python whose site folders put a folder
/// the trials write on `sys.path` is refused (see the module doc), as is one gate cannot
/// read. Not with `policy.sandbox: off`, where no wall stands.
pub(super) fn refuse_python_sites_the_trials_write(
    shown: &str,
    plan: &Plan,
) -> Result<(), PlanError> {
    if plan.policy.sandbox.mode == crate::model::SandboxMode::Off {
        return Ok(());
    }
    let mut roots = super::state::writable_roots(plan);
    // Without the mount layer `/dev/shm` is the host's, shared and writable by the trials
    // (review 72, 11): a Python environment there is not the checkout's.
    roots.push(PathBuf::from("/dev/shm"));
    let guarded = super::state::guarded_folders(plan);
    let mut asked: HashMap<Asked, Result<Sites, String>> = HashMap::new();
    for t in &plan.tasks {
        for (line, cwd, env) in super::state::check_lines(t) {
            let refuse = |message: String| {
                PlanError::at_check(
                    shown,
                    t,
                    line,
                    format!("task `{}`: `check:` {message}", t.id),
                )
            };
            for found in pythons_run(line, cwd, env, &roots, &guarded) {
                let python = match found {
                    Found::Python(p) => p,
                    Found::Unknown(why) => return Err(refuse(why)),
                };
                let program = python.program.display().to_string();
                let runs = match &python.from {
                    None => format!("runs Python `{program}`"),
                    Some(f) => format!(
                        "runs Python `{program}` (started in the grader file `{}`)",
                        f.display()
                    ),
                };
                // Gate never runs at load a program a trial could have written (review 72,
                // 09: a `.venv` a trial left in a folder it writes ran as gate's user): the
                // folder that holds it as named (a venv's `bin/python` is a link, in a venv
                // gate holds read-only) and the file it is.
                let folder = python.program.parent().unwrap_or(Path::new("/"));
                let real = std::fs::canonicalize(&python.program)
                    .unwrap_or_else(|_| python.program.clone());
                let writable = [folder, real.as_path()].into_iter().find_map(|p| {
                    super::reach::writable_entry(&p.display().to_string(), &roots, &guarded)
                });
                // A Python in a folder the trials write that a grader file starts is what the
                // grader tests (`subprocess.call(["src/venv/bin/python", …])`: review 76, 19),
                // not the grader's own: never run at load, and not refused (the look before
                // each check stands for what such a Python runs by itself).
                if writable.is_some() && python.from.is_some() {
                    continue;
                }
                if let Some(why) = writable {
                    return Err(refuse(format!(
                        "{runs}, which {why}: a trial could replace it; use a \
                         Python outside the folders the trials write"
                    )));
                }
                // A `._pth` file beside the interpreter replaces its whole `sys.path` before
                // any option is read, `-S` included: Python would import its standard
                // modules from there to answer (review 73, 06).
                for beside in [folder, real.parent().unwrap_or(Path::new("/"))] {
                    if let Some(message) = pth_beside(beside, &roots, &guarded) {
                        return Err(refuse(format!("{runs}, {message}")));
                    }
                }
                if let Some(message) = stdlib_reach(&python, &roots, &guarded) {
                    return Err(refuse(format!(
                        "{runs}, {message}; use a Python whose standard library lies outside the \
                         folders the trials write"
                    )));
                }
                let key = (
                    Python {
                        from: None,
                        ..python.clone()
                    },
                    env.clone(),
                );
                // Each Python is started once, one after another: a plan naming hundreds
                // took 16 s to load (review 91, 97).
                if !asked.contains_key(&key) && asked.len() >= MAX_PYTHONS {
                    return Err(refuse(format!(
                        "{runs}, one of more than {MAX_PYTHONS} Pythons the plan's checks run, \
                         each of which gate starts once to ask where it loads code from; run \
                         the checks with fewer Pythons"
                    )));
                }
                let answer = asked
                    .entry(key)
                    .or_insert_with(|| site_folders(&python, env))
                    .clone();
                let sites = answer.map_err(|why| {
                    refuse(format!(
                        "{runs}, whose site folders gate could not read ({why}), \
                         so it cannot tell whether a `.pth` there names a folder the trials \
                         write; run the check with a Python 3 gate can ask (`{program} -s -S -c \
                         …` must answer within {}s)",
                        PROBE_TIMEOUT.as_secs()
                    ))
                })?;
                // What the interpreter searches before its site folders (its standard
                // library, a `PYTHONHOME`), as it answered.
                for entry in &sites.path {
                    if let Some(why) = super::reach::writable_entry(entry, &roots, &guarded) {
                        return Err(refuse(format!(
                            "{runs}, whose `sys.path` holds `{entry}`, which \
                             {why}: a trial could put a module there that Python imports; give \
                             the check a Python whose folders lie outside the folders the trials \
                             write"
                        )));
                    }
                }
                // A folder the trials write beside a module of its name (`checker/expected/`
                // beside `checker/expected.py`): a package comes before a module of the same
                // folder, so a trial's `expected/__init__.py` is imported in its place
                // wherever that folder is on `sys.path` or a package (review 102, a13).
                if let Some((folder, module)) = roots.iter().find_map(|r| {
                    let name = r.file_name()?.to_string_lossy().into_owned();
                    let module = r.parent()?.join(format!("{name}.py"));
                    (module.is_file() && !roots.iter().any(|o| module.starts_with(o)))
                        .then(|| (r.clone(), module))
                }) {
                    return Err(refuse(format!(
                        "{runs}, and `{}`, a folder the trials write, lies beside the module \
                         `{}`: Python imports a package before a module of the same folder, so \
                         a trial's `__init__.py` there would be imported in its place; rename \
                         the folder (the task's `writes:`)",
                        folder.display(),
                        module.display()
                    )));
                }
                let user = sites
                    .user
                    .clone()
                    .filter(|_| counts_user_site(&python, env));
                if let Some((folder, module)) = shadowed_site_module(&python, &sites, &user, &roots)
                {
                    return Err(refuse(format!(
                        "{runs} in `{}`, where `{}` is a folder the trials write named like \
                         the module `{}` this Python imports from `{}`: the folder it runs in \
                         comes first on `sys.path` (under `-m` and `-c`, and for a script \
                         there), so a trial's `{}/__init__.py` would be imported in its \
                         place; rename the folder (the task's `writes:`), or run the grader \
                         from a folder that holds none the trials write",
                        python.dir.display(),
                        folder.display(),
                        module.0,
                        module.1.display(),
                        module.0
                    )));
                }
                for site in sites.sites.iter().chain(&user) {
                    let Some(message) = site_reach(Path::new(site), &roots, &guarded) else {
                        continue;
                    };
                    return Err(refuse(format!(
                        "{runs}, {message}: a trial's `sitecustomize.py` there \
                         would run inside the check, and a `*.dist-info` there would load as a \
                         pytest plugin; install the agent's package without `-e` (`pip install \
                         .`), or give the check a Python that does not reach that folder"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// A folder the trials write lying directly in the folder `python` starts in, named like a
/// module its site folders hold (PyYAML's `yaml`, pytest's own `py`: review 102, a01-a04):
/// the folder and the module (its name, where it lies). The folder a check runs in comes
/// first on `sys.path` under `-m`, `-c` and stdin, and for a script there. (The standard
/// library's names are read for the `check:` line's own Python by [`super::tools`].)
fn shadowed_site_module(
    python: &Python,
    sites: &Sites,
    user: &Option<String>,
    roots: &[PathBuf],
) -> Option<(PathBuf, (String, PathBuf))> {
    let holders: Vec<PathBuf> = sites.sites.iter().chain(user).map(PathBuf::from).collect();
    let entries = std::fs::read_dir(&python.dir).ok()?;
    for e in entries.flatten().take(20_000) {
        let name = e.file_name().to_string_lossy().into_owned();
        if !super::tools::module_name(&name) {
            continue;
        }
        let path = e.path();
        let dangling = e.file_type().is_ok_and(|k| k.is_symlink()) && !path.exists();
        if !(path.is_dir() || dangling) {
            continue;
        }
        let real = std::fs::canonicalize(&path).unwrap_or_else(|_| {
            let written = std::fs::read_link(&path).unwrap_or_default();
            python.dir.join(written)
        });
        if !roots.iter().any(|r| real.starts_with(r)) {
            continue;
        }
        for holder in &holders {
            let module = [holder.join(&name), holder.join(format!("{name}.py"))]
                .into_iter()
                .find(|m| m.exists())
                .or_else(|| {
                    // An extension module (`NAME.cpython-311-x86_64-linux-gnu.so`).
                    std::fs::read_dir(holder)
                        .ok()?
                        .flatten()
                        .take(20_000)
                        .find_map(|f| {
                            let n = f.file_name().to_string_lossy().into_owned();
                            (n.starts_with(&format!("{name}."))
                                && (n.ends_with(".so") || n.ends_with(".pyc")))
                            .then(|| f.path())
                        })
                });
            if let Some(m) = module
                && !roots.iter().any(|r| m.starts_with(r))
            {
                return Some((path, (name, m)));
            }
        }
    }
    None
}

/// Where this Python looks for its standard library before it runs anything (review 75, 40),
/// if a trial could put one there: CPython takes the `home` of a `pyvenv.cfg` beside the
/// interpreter or in the folder above (a virtual environment), else the interpreter's own
/// folder, and searches from there up, folder by folder, for `lib/pythonX.Y/os.py` (or
/// `lib/pythonXY.zip`, `lib64` where the platform's library folder is that). A `home`
/// inside `src` with `src/lib/python3.11/encodings` made gate's own probe run a trial's code
/// at load, outside the box, then answer with a clean `sys.path`. Read from the files, never
/// asked: nothing of a Python whose library a trial could place runs.
fn stdlib_reach(python: &Python, roots: &[PathBuf], guarded: &[PathBuf]) -> Option<String> {
    let real = std::fs::canonicalize(&python.program).unwrap_or_else(|_| python.program.clone());
    let folders: Vec<&Path> = [python.program.parent(), real.parent()]
        .into_iter()
        .flatten()
        .collect();
    let mut starts: Vec<(PathBuf, String)> = Vec::new();
    for folder in &folders {
        let above = folder.parent().map(|p| p.join("pyvenv.cfg"));
        for cfg in std::iter::once(folder.join("pyvenv.cfg")).chain(above) {
            let Ok(text) = read_bounded(&cfg) else {
                continue;
            };
            if let Some(why) =
                super::reach::writable_entry(&cfg.display().to_string(), roots, guarded)
            {
                return Some(format!("whose `{}` {why}", cfg.display()));
            }
            // As CPython's `getpath` reads it: lines split at `\n` (and, in case, at `\r`),
            // key and value stripped as `str.strip` strips (review 76, 22: a `\x1c` before
            // the value, which Rust's `trim` keeps, made it read as relative), every `home`
            // taken.
            let lines = text.split('\n').chain(text.split(['\n', '\r']));
            for line in lines {
                let Some((key, value)) = line.split_once('=') else {
                    continue;
                };
                if key.trim_matches(python_space).eq_ignore_ascii_case("home") {
                    let value = value.trim_matches(python_space);
                    let home = cfg.parent().unwrap_or(Path::new("/")).join(value);
                    starts.push((home, format!("the `home` of `{}`", cfg.display())));
                }
            }
        }
    }
    if starts.is_empty() {
        starts = folders
            .iter()
            .map(|f| (f.to_path_buf(), "the interpreter's folder".to_string()))
            .collect();
    }
    for (start, from) in &starts {
        let start = std::path::absolute(start).unwrap_or_else(|_| start.clone());
        if let Some(why) =
            super::reach::writable_entry(&start.display().to_string(), roots, guarded)
        {
            return Some(format!(
                "whose standard library is looked for from {from}, `{}`, which {why}: a trial \
                 could put Python's own modules there",
                start.display()
            ));
        }
        for above in start.ancestors() {
            for lib in ["lib", "lib64"] {
                let at = above.join(lib);
                if let Some(why) =
                    super::reach::writable_entry(&at.display().to_string(), roots, guarded)
                {
                    return Some(format!(
                        "whose standard library is looked for from {from} up, in `{}`, which \
                         {why}: a trial could put Python's own modules there (`{}/pythonX.Y/os.py`)",
                        at.display(),
                        at.display()
                    ));
                }
            }
        }
    }
    None
}

/// Whether the user's site folder is on this Python's `sys.path`: not under `-I` or `-s`,
/// nor with `PYTHONNOUSERSITE` set where Python reads its variables (review 72, 15, 17).
fn counts_user_site(python: &Python, env: &[(String, String)]) -> bool {
    let no_user_var =
        !python.ignores_env && check_var(env, "PYTHONNOUSERSITE").is_some_and(|v| !v.is_empty());
    !python.no_user_site && !no_user_var
}

/// The check's value of variable `name`: the plan's `env:`, else gate's own.
fn check_var(env: &[(String, String)], name: &str) -> Option<String> {
    env.iter()
        .rev()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var(name).ok())
}

/// Why Python's site folder `site` reaches a folder the trials write, or `None`: the site
/// folder itself lies in one (a trial could add a `.pth`), one of its `.pth` files is a link
/// into one or to nothing (review 72, 08), a `.pth` gate cannot read, or one whose lines name
/// a folder in one (Python adds it if it exists when the check starts, so a folder missing at
/// load counts too).
fn site_reach(site: &Path, roots: &[PathBuf], guarded: &[PathBuf]) -> Option<String> {
    let shown = site.display().to_string();
    if super::reach::writable_entry(&shown, roots, guarded).is_some() {
        return Some(format!(
            "whose site folder `{shown}` lies in a folder the trials write (a trial could add \
             a `.pth` there)"
        ));
    }
    for pth in files_ending(site, ".pth") {
        if let Ok(target) = std::fs::read_link(&pth) {
            let at = super::state::lexical(&site.join(target))
                .display()
                .to_string();
            let why = super::reach::writable_entry(&at, roots, guarded);
            if let Some(why) = why.or((!Path::new(&at).is_file()).then_some("does not exist")) {
                return Some(format!(
                    "whose `{}` is a link to `{at}`, which {why}",
                    pth.display()
                ));
            }
        }
        let text = match read_bounded(&pth) {
            Ok(text) => text,
            Err(why) => {
                return Some(format!(
                    "whose `{}` gate cannot read ({why})",
                    pth.display()
                ));
            }
        };
        for entry in pth_entries(site, &text) {
            let at = entry.display().to_string();
            if let Some(why) = super::reach::writable_entry(&at, roots, guarded) {
                return Some(format!(
                    "whose `{}` adds `{at}` to `sys.path`, which {why}",
                    pth.display()
                ));
            }
        }
    }
    None
}

/// The entries of `folder` whose names end in `suffix`, sorted (none if it cannot be read).
fn files_ending(folder: &Path, suffix: &str) -> Vec<PathBuf> {
    let Ok(list) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = list
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    found.sort();
    found
}

/// Why a `._pth` file in `folder` (the interpreter's, which CPython reads in place of its
/// search of `sys.path`) reaches a folder the trials write, or `None`: one that names such a
/// folder, or one gate cannot read.
fn pth_beside(folder: &Path, roots: &[PathBuf], guarded: &[PathBuf]) -> Option<String> {
    for pth in files_ending(folder, "._pth") {
        let text = match read_bounded(&pth) {
            Ok(text) => text,
            Err(why) => {
                return Some(format!(
                    "beside which `{}` gate cannot read ({why})",
                    pth.display()
                ));
            }
        };
        // `import site` is a line of its own there; any other line is a folder.
        for entry in pth_entries(folder, &text.replace("import site", "")) {
            let at = entry.display().to_string();
            if let Some(why) = super::reach::writable_entry(&at, roots, guarded) {
                return Some(format!(
                    "beside which `{}` puts `{at}` on `sys.path`, which {why}: a trial could \
                     put a module there that Python imports before any other; keep the \
                     interpreter's folders outside the folders the trials write",
                    pth.display()
                ));
            }
        }
    }
    None
}

/// The text of a `.pth` file (links followed), at most 1 MiB; bytes that are not UTF-8 are
/// read as replacement characters.
fn read_bounded(pth: &Path) -> Result<String, String> {
    // A FIFO would hold the load up at `open` (review 83, l02: `make -f graders/fifo`).
    if !std::fs::metadata(pth).is_ok_and(|m| m.is_file()) {
        return Err("no regular file".into());
    }
    let file = std::fs::File::open(pth).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take((1 << 20) + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() > 1 << 20 {
        return Err("over 1 MiB".into());
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The folders a `.pth` file in `site` names, as `site.addpackage` reads it: a byte-order
/// mark dropped; lines split wherever Python's `str.splitlines` or its universal newlines
/// split them (review 72, 07: `\r`, `\x0c`, `\x85`, …; splitting at more places than one
/// Python version does can only find more); a line that is empty or starts with `#` skipped,
/// one that starts with `import` code (not followed, see the module doc); any other a folder
/// relative to `site`, its trailing white space dropped, normalised.
fn pth_entries(site: &Path, text: &str) -> Vec<PathBuf> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.split(python_line_break)
        .filter(|l| !l.starts_with('#') && !l.trim_matches(python_space).is_empty())
        .filter(|l| !l.starts_with("import ") && !l.starts_with("import\t"))
        .map(|l| super::state::lexical(&site.join(l.trim_end_matches(python_space))))
        .collect()
}

/// Tools that run a command in the project's own virtual environment (`uv run pytest`,
/// `poetry run pytest`), which they find, or make, beside the project's files.
const PROJECT_RUNNERS: &[&str] = &["uv", "uvx", "poetry", "pdm", "pipenv", "hatch", "rye"];

/// The Pythons `line`, run in `cwd` with the plan's `env`, starts by name (see [`Found`]):
/// - the command's program, when it is named like Python or is a link to one (review 72,
///   13);
/// - any other word of the command named exactly like Python (`python3`, `python3.12`,
///   `pypy3`) found on the `PATH`: the operand of a prefix gate does not list as one
///   (`setsid`, `ionice`, `chrt`: review 72, 02);
/// - the interpreter of a program's `#!` line (`pytest`, `#!/usr/bin/env python3`), and of
///   pip's and uv's `#!/bin/sh` trampolines (review 72, 03);
/// - for a project runner ([`PROJECT_RUNNERS`]), the `.venv`/`venv` of the folder it runs
///   in and those above; refused where that folder is one the trials write, where a trial
///   could make the project's environment (review 72, 09, 10).
///
/// Each also inside the commands `find -exec` runs. A `cd` moves where relative names are
/// found; a `PATH` the line sets (`PATH=venv/bin:$PATH`, `export PATH=…`, `env PATH=…`) and
/// a sourced `bin/activate` add their folders to the ones searched (review 72, 21). Python
/// started with `-S` reads no site folder and is left out.
fn pythons_run(
    line: &super::CommandLine,
    cwd: &Path,
    env: &[(String, String)],
    roots: &[PathBuf],
    guarded: &[PathBuf],
) -> Vec<Found> {
    pythons_run_within(line, cwd, env, roots, guarded, 3)
}

/// [`pythons_run`], also in the recipes of the makefile `make` reads and the scripts of the
/// `package.json` npm, yarn and pnpm read (review 72, 06, 19; [`run_definitions`]), and in
/// theirs in turn, `depth` deep (review 73, 02d, 03e: `$(MAKE) -C sub`, `npm --prefix sub
/// test`).
fn pythons_run_within(
    line: &super::CommandLine,
    cwd: &Path,
    env: &[(String, String)],
    roots: &[PathBuf],
    guarded: &[PathBuf],
    depth: u8,
) -> Vec<Found> {
    let tokens = tokens_of(line, env);
    let paths = line_paths(&tokens, cwd, env);
    let mut found: Vec<Found> = Vec::new();
    let push = |f: Found, found: &mut Vec<Found>| {
        let seen = found.iter().any(|g| match (g, &f) {
            (Found::Python(a), Found::Python(b)) => a == b,
            _ => false,
        });
        if !seen {
            found.push(f);
        }
    };
    for (dir, inner) in runs_by_folder(&tokens, cwd) {
        let name = name_of(&inner[0]);
        if PROJECT_RUNNERS.contains(&name.as_str()) {
            let at = std::path::absolute(&dir).unwrap_or_else(|_| dir.clone());
            let projects = project_folders(&at, &inner);
            for project in &projects {
                let shown = project.display().to_string();
                if let Some(why) = super::reach::writable_entry(&shown, roots, guarded) {
                    push(
                        Found::Unknown(format!(
                            "runs `{name}` in `{shown}`, which {why}: a trial could make the \
                             project's Python environment there, and `{name}` would run \
                             the check in it; run the check from a folder the trials do not \
                             write"
                        )),
                        &mut found,
                    );
                }
            }
            for program in project_pythons(&projects, env) {
                let python = Python {
                    program,
                    dir: at.clone(),
                    ignores_env: false,
                    no_user_site: false,
                    from: None,
                };
                push(Found::Python(python), &mut found);
            }
            continue;
        }
        if depth > 0 {
            for (text, at) in run_definitions(&inner, &dir, env) {
                let line = super::CommandLine::Shell(text);
                for f in pythons_run_within(&line, &at, env, roots, guarded, depth - 1) {
                    push(f, &mut found);
                }
            }
        }
        for program in find_everywhere(&inner[0], &dir, &paths) {
            if let Some(f) = python_of(&program, &inner, &dir, &paths, env) {
                push(f, &mut found);
            }
        }
        // Another word named exactly like Python: a prefix's operand.
        for (k, w) in inner.iter().enumerate().skip(1) {
            if w.contains('/') || !python_name(w) {
                continue;
            }
            for program in find_everywhere(w, &dir, &paths) {
                if let Some(f) = python_of(&program, &inner[k..], &dir, &paths, env) {
                    push(f, &mut found);
                }
            }
        }
    }
    // A Python a grader file starts (review 75, 01: `check: sh graders/grade.sh`, the script
    // running `python3 graders/check.py`): the plan's own grader files the line names, and
    // every file in their folders ([`super::state::grader_files`], as the runner readings of
    // reach.rs read them). A shell script is read as lines of the check, in the check's
    // folder and in its own (a script that `cd`s beside itself); in every file, a word that
    // names a program Python is or starts (`subprocess.run(["python3", …])`, `pytest` in a
    // JavaScript grader) is read as that program, run with no option.
    if depth > 0 {
        for f in graders_pythons(line, cwd, env, &paths, roots, guarded, depth - 1) {
            push(f, &mut found);
        }
    }
    found
}

/// Most distinct words of grader files [`graders_pythons`] looks up as programs for one line.
const GRADER_WORDS: usize = 20_000;

/// The Pythons the grader files of `line` start (see [`pythons_run_within`]).
fn graders_pythons(
    line: &super::CommandLine,
    cwd: &Path,
    env: &[(String, String)],
    paths: &[Vec<PathBuf>],
    roots: &[PathBuf],
    guarded: &[PathBuf],
    depth: u8,
) -> Vec<Found> {
    let mut found = Vec::new();
    // Each word with the first file it is in.
    let mut words: HashMap<String, PathBuf> = HashMap::new();
    // Not a program the line finds on its `PATH` (`python3` as a pyenv shim, `pytest`):
    // tools, not the plan's graders; their folders hold other tools' scripts.
    let named = super::state::own_graders(line, cwd, env)
        .into_iter()
        .filter(|g| {
            !paths
                .iter()
                .flatten()
                .any(|d| g.parent() == Some(d.as_path()))
        })
        .collect();
    for file in super::state::grader_files_from(named) {
        let Some(text) = super::state::grader_text(&file) else {
            continue;
        };
        if shell_script(&file, &text) {
            let script = super::CommandLine::Shell(text.clone());
            let own = file.parent().unwrap_or(cwd);
            // A Python the script starts puts the folder it runs in (or its script's) first
            // on `sys.path`, as on the `check:` line (review 102, a10).
            if let Some(why) = script_python_shadow(&script, cwd, env, roots) {
                found.push(Found::Unknown(format!(
                    "has {why} (in the grader file `{}`)",
                    file.display()
                )));
            }
            for dir in [cwd, own] {
                found.extend(
                    pythons_run_within(&script, dir, env, roots, guarded, depth)
                        .into_iter()
                        .map(|f| started_in(f, &file)),
                );
            }
        }
        for word in program_words(&text) {
            if words.len() >= GRADER_WORDS {
                break;
            }
            words
                .entry(word.to_string())
                .or_insert_with(|| file.clone());
        }
    }
    for (word, file) in &words {
        let named = [word.clone()];
        for program in find_everywhere(word, cwd, paths) {
            found.extend(python_of(&program, &named, cwd, paths, env).map(|f| started_in(f, file)));
        }
    }
    found
}

/// The first Python command of a grader shell script (run in `cwd`) whose `sys.path` puts
/// a folder the trials write, named like a module, first ([`super::tools::python_shadow`]).
fn script_python_shadow(
    script: &super::CommandLine,
    cwd: &Path,
    env: &[(String, String)],
    roots: &[PathBuf],
) -> Option<String> {
    let writable = |p: &Path| super::state::under_roots(p, roots);
    let tokens = tokens_of(script, env);
    // What a Python of the script may read as its program on stdin: the script's own text
    // (a here-document, `echo CODE |`) and every file the script redirects into a command
    // (review 102, a33: `python3 - < graders/check.py` that changes folder, then imports).
    // Read once, when a Python of the script reads its program on stdin.
    let fed_once = std::cell::OnceCell::new();
    let fed = || -> Vec<String> {
        let mut fed = vec![match script {
            super::CommandLine::Shell(text) => text.clone(),
            super::CommandLine::Argv(_) => String::new(),
        }];
        let inputs = tokens.windows(2).filter_map(|w| match w {
            [super::words::Token::Input, super::words::Token::Word(f)] => Some(f),
            _ => None,
        });
        fed.extend(inputs.map(|f| super::state::grader_text(&cwd.join(f)).unwrap_or_default()));
        fed
    };
    let safe = env
        .iter()
        .any(|(k, v)| k == "PYTHONSAFEPATH" && !v.is_empty());
    // A `cd` to a folder the shell computes (`cd "$PWD/out"`, `D=out; cd "$D"`) or `env -C
    // DIR`: Python may run in a folder the trials write (review 104, a15, a16, a19).
    let mut elsewhere = false;
    for (_, words) in super::words::scoped_commands(&tokens) {
        let Some(first) = words.first() else { continue };
        let name = name_of(first);
        let computed = matches!(name.as_str(), "cd" | "pushd")
            && words[1..].iter().any(|w| w.contains(['$', '`']));
        elsewhere |= computed;
        let env_moves = env_chdir_before(&tokens, &words);
        let python_here = super::reach::runs_within(&words).iter().any(|(inner, _)| {
            is_python(&name_of(&inner[0])) && super::reach::python_cwd_form(inner).is_some()
        });
        if !safe && (elsewhere || env_moves) && python_here {
            return Some(format!(
                "`{}` run in a folder the shell computes or `env` chooses, which Python puts \
                 first on `sys.path`: a folder the trials write there would give the grader a \
                 trial's modules; name the folder, or run Python with `-I`",
                words.join(" ")
            ));
        }
    }
    runs_by_folder(&tokens, cwd)
        .into_iter()
        .filter(|(_, run)| is_python(&name_of(&run[0])))
        .find_map(|(dir, run)| {
            // Its current folder first on `sys.path` (`-m`, `-c`, a program on stdin) in a
            // folder the trials write that the script moved into: any module it imports may
            // be a trial's (review 103, a23: `cd out && python3 - < ../graders/check.py`),
            // as on the line itself. (In the check's own folder, when the trials write it,
            // the runner warning says so: a plan without `writes:`.)
            let real = std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
            if !safe
                && dir != cwd
                && writable(&real)
                && super::reach::python_cwd_form(&run).is_some()
            {
                return Some(format!(
                    "`{}` run in `{}`, a folder the trials write, which Python puts first on \
                     `sys.path`: a trial's module there would run in place of one the grader \
                     imports; run Python with `-I`",
                    run.join(" "),
                    real.display()
                ));
            }
            let texts: Vec<&str> = run.iter().map(String::as_str).collect();
            super::tools::python_shadow(&texts, &dir, &writable).or_else(|| {
                super::tools::python_stdin_chdir(&texts, fed_once.get_or_init(fed), &dir)
            })
        })
}

/// Whether the command `words` of `tokens` is started by `env` given a folder to run in
/// (`env -C DIR`, `--chdir`), which [`super::words::scoped_commands`] drops with the wrapper.
fn env_chdir_before(tokens: &[super::words::Token], words: &[String]) -> bool {
    use super::words::Token;
    let mut run: Vec<&str> = Vec::new();
    let mut env_c = false;
    for t in tokens {
        match t {
            Token::Word(w) => {
                if name_of(w) == "env" && run.is_empty() {
                    env_c = false;
                }
                let option = w.starts_with("--ch")
                    || (w.starts_with('-') && !w.starts_with("--") && w.contains('C'));
                if run.is_empty() || option {
                    env_c |= option && !run.iter().any(|r| *r != "env" && !r.starts_with('-'));
                }
                run.push(w);
                if env_c && words.first().is_some_and(|f| f == w) {
                    return true;
                }
            }
            _ => {
                run.clear();
                env_c = false;
            }
        }
    }
    false
}

/// Each command `tokens` run (a wrapper's command on its own: [`super::reach::runs_within`])
/// with the folder it runs in, from `cwd` on, as the shell's `cd`s and scopes move it; a
/// `cd` itself, or one to a folder that is not there, is passed over.
fn runs_by_folder(tokens: &[super::words::Token], cwd: &Path) -> Vec<(PathBuf, Vec<String>)> {
    let mut out = Vec::new();
    let mut dir = cwd.to_path_buf();
    let mut folders = super::words::Folders::new();
    for (scope, words) in super::words::scoped_commands(tokens) {
        folders.at(&scope, &mut dir);
        if matches!(name_of(&words[0]).as_str(), "cd" | "pushd") {
            if let Some(d) = super::words::cd_folder(&words)
                .map(|d| dir.join(d))
                .filter(|d| d.is_dir())
            {
                dir = d;
            }
            continue;
        }
        for (inner, _) in super::reach::runs_within(&words) {
            out.push((dir.clone(), inner));
        }
    }
    out
}

/// `found` as started in grader file `file` (the first file that started it stays named).
fn started_in(found: Found, file: &Path) -> Found {
    match found {
        Found::Python(p) => Found::Python(Python {
            from: p.from.or_else(|| Some(file.to_path_buf())),
            ..p
        }),
        Found::Unknown(why) => {
            Found::Unknown(format!("{why} (in the grader file `{}`)", file.display()))
        }
    }
}

/// Whether grader file `file` (its text `text`) is run by a shell: its `#!` line names one,
/// or it has none and is text named like a shell script or not at all (a program with no
/// `#!` line is run by `sh`).
fn shell_script(file: &Path, text: &str) -> bool {
    const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox"];
    if let Some(first) = text.lines().next().and_then(|l| l.strip_prefix("#!")) {
        let mut words = first.split_whitespace();
        let mut interpreter = words.next().map(name_of);
        if interpreter.as_deref() == Some("env") {
            interpreter = words
                .find(|w| !w.starts_with('-') && !w.contains('='))
                .map(name_of);
        }
        return interpreter.is_some_and(|i| SHELLS.contains(&i.as_str()));
    }
    let extension = file.extension().map(|e| e.to_string_lossy().into_owned());
    match extension.as_deref() {
        Some("sh" | "bash" | "zsh" | "ksh") => true,
        None => !text.contains('\0'),
        _ => false,
    }
}

/// The words of a grader file's text that may name a program: runs of letters, digits and
/// `._+-/~` holding a letter (`"python3"`, `.venv/bin/pytest`, `/opt/py/bin/python3.12`).
fn program_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || "._+-/~".contains(c)))
        .map(|w| w.trim_end_matches(['.', '-']))
        .filter(|w| {
            !w.is_empty()
                && w.len() <= 255
                && w.chars().any(|c| c.is_ascii_alphabetic())
                && !w.starts_with('-')
                && !w.ends_with('/')
        })
}

/// The command lines a runner run as `words` in `dir` reads from its definition files, each
/// with the folder it runs in: every recipe line of `make`'s makefiles (in the folder `-C`
/// names; those `-f` names, else the first of `GNUmakefile`, `makefile`, `Makefile`; with
/// `.RECIPEPREFIX`, `target: ; recipe` lines, and the makefile's simple variables and the
/// line's `NAME=value` words expanded, `$(MAKE)` read as `make`: review 73, 02), and every
/// script of the `package.json` files that `npm`, `yarn` and `pnpm` read (the folder's and
/// each `-w`/`--workspace` package's: review 73, 03). All of them, not only the target's:
/// reading more can only find more.
fn run_definitions(
    words: &[String],
    dir: &Path,
    env: &[(String, String)],
) -> Vec<(String, PathBuf)> {
    let name = name_of(&words[0]);
    let read = |p: &Path| read_bounded(p).ok();
    // The value of option `k` (`-C DIR`, `-CDIR`, `--directory=DIR`) and how many words it
    // took, for the options in `names` (short first).
    let valued = |k: usize, names: &[&str]| -> Option<(String, usize)> {
        let w = &words[k];
        for n in names {
            if w == n {
                return words.get(k + 1).map(|v| (v.clone(), 2));
            }
            let glued = if n.starts_with("--") {
                w.strip_prefix(&format!("{n}="))
            } else {
                w.strip_prefix(n)
            };
            if let Some(v) = glued.filter(|v| !v.is_empty()) {
                return Some((v.to_string(), 1));
            }
        }
        None
    };
    match name.as_str() {
        "make" | "gmake" | "bmake" | "remake" => {
            let mut at = dir.to_path_buf();
            let mut named = Vec::new();
            let vars: Vec<(String, String)> = vec![("MAKE".into(), "make".into())];
            let mut set_on_line = Vec::new();
            let mut k = 1;
            while k < words.len() {
                if let Some((d, took)) = valued(k, &["-C", "--directory"]) {
                    at = at.join(d);
                    k += took;
                } else if let Some((f, took)) = valued(k, &["-f", "--file", "--makefile"]) {
                    named.push(f);
                    k += took;
                } else {
                    if let Some((n, v)) = words[k].split_once('=')
                        && super::words::is_name(n)
                    {
                        set_on_line.push((n.to_string(), v.to_string()));
                    }
                    k += 1;
                }
            }
            let files: Vec<PathBuf> = if named.is_empty() {
                super::invoke::makefiles(&at)
                    .into_iter()
                    .find(|m| m.is_file())
                    .into_iter()
                    .collect()
            } else {
                named.iter().map(|f| at.join(f)).collect()
            };
            let mut recipes = Vec::new();
            // The check's environment first: make takes it as variables, and a makefile's
            // assignments win over it (review 74, 01: `$(PY)` with `PY` in `env:`).
            let mut vars: Vec<(String, String)> = std::env::vars()
                .chain(env.iter().cloned())
                .chain(vars)
                .collect();
            for text in files.iter().filter_map(|m| read(m)) {
                let mut prefix = "\t".to_string();
                // A line ending in `\` goes on in the next, as make reads it (review 74, 04).
                let joined = text.replace("\\\n", " ");
                let mut define: Option<(String, Vec<String>)> = None;
                for l in joined.lines() {
                    // `define NAME` … `endef`: a variable of several lines (review 74, 03).
                    if let Some((name, body)) = &mut define {
                        if l.trim() == "endef" {
                            vars.push((name.clone(), body.join("\n")));
                            define = None;
                        } else {
                            body.push(l.trim().to_string());
                        }
                        continue;
                    }
                    if let Some(name) = l.trim().strip_prefix("define ") {
                        let name = name.trim().trim_end_matches(['=', ':', '?', '+']).trim();
                        define = Some((name.to_string(), Vec::new()));
                        continue;
                    }
                    if let Some(recipe) = l.strip_prefix(prefix.as_str()) {
                        recipes.push(recipe.to_string());
                        continue;
                    }
                    let l = l
                        .trim_start_matches("override ")
                        .trim_start_matches("export ");
                    // A target-specific assignment (`test: PY := python3`: review 74, 02)
                    // is read as one for every target.
                    let l = match l.split_once(':') {
                        Some((head, rest))
                            if !head.contains('=')
                                && !rest.starts_with('=')
                                && !rest.starts_with(":=")
                                && rest.contains('=') =>
                        {
                            rest
                        }
                        _ => l,
                    };
                    let assignment = ["::=", ":=", "?=", "+=", "="]
                        .iter()
                        .find_map(|op| l.split_once(op))
                        .filter(|(n, _)| {
                            let n = n.trim();
                            n == ".RECIPEPREFIX" || super::words::is_name(n)
                        });
                    if let Some((n, v)) = assignment {
                        if n.trim() == ".RECIPEPREFIX" {
                            prefix = v.trim().chars().next().map_or("\t".into(), String::from);
                        } else {
                            vars.push((n.trim().to_string(), v.trim().to_string()));
                        }
                    } else if let Some((_, recipe)) = l.split_once(';')
                        && l.split_once(';')
                            .is_some_and(|(head, _)| head.contains(':'))
                    {
                        recipes.push(recipe.to_string());
                    }
                }
            }
            vars.extend(set_on_line);
            recipes
                .into_iter()
                .flat_map(|r| {
                    let mut r = r.trim_start_matches(['@', '-', '+']).to_string();
                    // Later assignments win, as the last one read does in make; three
                    // rounds for a variable whose value names another.
                    for _ in 0..3 {
                        for (n, v) in vars.iter().rev() {
                            r = r
                                .replace(&format!("$({n})"), v)
                                .replace(&format!("${{{n}}}"), v);
                        }
                    }
                    // A `define`d variable's lines are commands of their own.
                    r.lines()
                        .map(|l| {
                            (
                                l.trim_start_matches(['@', '-', '+']).to_string(),
                                at.clone(),
                            )
                        })
                        .collect::<Vec<_>>()
                })
                .collect()
        }
        "npm" | "yarn" | "pnpm" => {
            // npm finds its `package.json` in the folder or the nearest above it (review 74,
            // 08).
            let mut folders: Vec<PathBuf> = dir
                .ancestors()
                .find(|d| d.join("package.json").is_file())
                .map(Path::to_path_buf)
                .into_iter()
                .collect();
            for (k, word) in words.iter().enumerate().skip(1) {
                // Every workspace (review 74, 07, 09): every package beneath the folder.
                let all = ["-ws", "--workspaces", "-r", "--recursive"];
                if all.contains(&word.as_str()) || word.starts_with("--workspaces=") {
                    folders.extend(packages_beneath(dir, 4));
                    continue;
                }
                let option = ["-w", "--workspace", "--prefix", "-C", "--dir", "--cwd"];
                if let Some((w, _)) = valued(k, &option) {
                    folders.push(dir.join(w));
                }
            }
            let mut out = Vec::new();
            for folder in folders {
                let scripts = read(&folder.join("package.json"))
                    .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
                    .and_then(|v| v.get("scripts").and_then(|s| s.as_object()).cloned())
                    .unwrap_or_default();
                out.extend(
                    scripts
                        .values()
                        .filter_map(|v| v.as_str())
                        .map(|v| (v.to_string(), folder.clone())),
                );
            }
            out
        }
        _ => Vec::new(),
    }
}

/// The folders beneath `dir` (not in `node_modules` or hidden folders), `depth` deep, that
/// hold a `package.json`.
fn packages_beneath(dir: &Path, depth: u8) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if depth == 0 {
        return out;
    }
    let Ok(list) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in list.filter_map(|e| e.ok()) {
        let name = e.file_name().to_string_lossy().into_owned();
        let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
        if !is_dir || name == "node_modules" || name.starts_with('.') {
            continue;
        }
        if e.path().join("package.json").is_file() {
            out.push(e.path());
        }
        out.extend(packages_beneath(&e.path(), depth - 1));
    }
    out
}

/// Whether `name` is exactly an interpreter's name: `python`, `python3`, `python3.12`,
/// `pypy3`, `pypy3.10` (not `python_tests` or `python3.py`).
fn python_name(name: &str) -> bool {
    let rest = name
        .strip_prefix("python")
        .or_else(|| name.strip_prefix("pypy"));
    rest.is_some_and(|r| r.chars().all(|c| c.is_ascii_digit() || c == '.')) && !name.ends_with('.')
}

/// The Python `program` is or starts, run as `words` (its name first) in `dir`: itself when
/// it is named like Python or is a link to a file that is; the interpreter of its `#!` line;
/// `None` for any other program.
fn python_of(
    program: &Path,
    words: &[String],
    dir: &Path,
    paths: &[Vec<PathBuf>],
    env: &[(String, String)],
) -> Option<Found> {
    let real = std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf());
    let named = |p: &Path| {
        p.file_name()
            .is_some_and(|n| is_python(&n.to_string_lossy()))
    };
    if named(program) || named(&real) {
        let (no_site, (ignores_env, no_user_site)) = python_flags(&words[1..]);
        return (!no_site).then(|| {
            Found::Python(Python {
                program: program.to_path_buf(),
                dir: dir.to_path_buf(),
                ignores_env,
                no_user_site,
                from: None,
            })
        });
    }
    // A pyenv shim (`pytest` in `~/.pyenv/shims`) runs the program of the version the
    // check's folder selects: asked of pyenv, then read as that program (review 73, 01).
    if let Some(pyenv) = pyenv_of_shim(program) {
        let name = program.file_name()?.to_string_lossy().into_owned();
        let mut command = asked(&pyenv, env, dir);
        command.args(["which", &name]);
        let target = run_bounded(command, PROBE_TIMEOUT)
            .ok()
            .and_then(|out| String::from_utf8(out).ok())
            .map(|t| PathBuf::from(t.trim()))
            .filter(|t| t.is_absolute() && t.is_file() && pyenv_of_shim(t).is_none());
        return match target {
            Some(t) => python_of(&t, words, dir, paths, env),
            None => Some(Found::Unknown(format!(
                "runs `{}`, a pyenv shim for which `{} which {name}` gave no program, so gate \
                 cannot tell which Python it starts; name the program by its path",
                program.display(),
                pyenv.display()
            ))),
        };
    }
    shebang_python(program, dir, paths)
}

/// The `pyenv` a pyenv shim runs (`exec "/…/libexec/pyenv" exec "$program" "$@"`), if
/// `program` is one.
fn pyenv_of_shim(program: &Path) -> Option<PathBuf> {
    let mut head = [0u8; 4096];
    let n = std::fs::File::open(program)
        .and_then(|mut f| f.read(&mut head))
        .ok()?;
    let text = String::from_utf8_lossy(&head[..n]);
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("exec \"") && l.contains("\" exec \"$program\""))?;
    let path = line
        .trim_start()
        .strip_prefix("exec \"")?
        .split('"')
        .next()?;
    (name_of(path) == "pyenv").then(|| PathBuf::from(path))
}

/// The folders a bare program name is looked for in: the check's `PATH`, and each `PATH` the
/// line sets or a sourced `activate` script's folder in front of it.
fn line_paths(
    tokens: &[super::words::Token],
    cwd: &Path,
    env: &[(String, String)],
) -> Vec<Vec<PathBuf>> {
    let base = check_var(env, "PATH").unwrap_or_default();
    let split = |value: &str| -> Vec<PathBuf> {
        value
            .split(':')
            .map(|d| if d.is_empty() { "." } else { d })
            .map(|d| cwd.join(d))
            .collect()
    };
    let mut paths = vec![split(&base)];
    for (name, value) in super::reach::line_assignments(tokens) {
        if name == "PATH" {
            let value = value.replace("${PATH}", &base).replace("$PATH", &base);
            paths.push(split(&value));
        }
    }
    for words in simple_commands(tokens) {
        if matches!(words[0].as_str(), "." | "source")
            && let Some(script) = words.get(1)
            && let Some(bin) = cwd.join(script).parent().map(Path::to_path_buf)
        {
            let mut path = vec![bin];
            path.extend(split(&base));
            paths.push(path);
        }
    }
    paths
}

/// Whether Python's options (the words after its name) include `-S` before the script,
/// `-c` or `-m`; and whether they hold `-I` or `-E` (variables ignored) and `-I` or `-s`
/// (no user site folder).
fn python_flags(args: &[String]) -> (bool, (bool, bool)) {
    let (mut no_site, mut ignores_env, mut no_user) = (false, false, false);
    let mut k = 0;
    'words: while let Some(a) = args.get(k) {
        k += 1;
        if a == "--" || !a.starts_with('-') || a.len() < 2 {
            break;
        }
        if a.starts_with("--") {
            // `--check-hash-based-pycs MODE` takes a value; the other long options none.
            k += usize::from(a == "--check-hash-based-pycs");
            continue;
        }
        // A cluster of single-letter options; `-W` and `-X` take the rest of the cluster, or
        // the next word, as their value; the code of `-c` and the module of `-m` end them.
        for (i, c) in a[1..].char_indices() {
            match c {
                'S' => no_site = true,
                'I' => (ignores_env, no_user) = (true, true),
                'E' => ignores_env = true,
                's' => no_user = true,
                'c' | 'm' => break 'words,
                'W' | 'X' => {
                    k += usize::from(i + 2 == a.len());
                    break;
                }
                _ => {}
            }
        }
    }
    (no_site, (ignores_env, no_user))
}

/// Where `word` names an existing program: a path with a `/` from `dir`, a bare name on
/// `path`. As written (links not followed): a virtual environment's `bin/python` is a link
/// to the base interpreter, and only its own path leads Python to its `pyvenv.cfg`.
fn find_program(word: &str, dir: &Path, path: &[PathBuf]) -> Option<PathBuf> {
    let exists = |p: &Path| {
        p.is_file()
            .then(|| std::path::absolute(p).unwrap_or(p.into()))
    };
    if word.contains('/') {
        return exists(&dir.join(word));
    }
    path.iter().find_map(|d| exists(&d.join(word)))
}

/// [`find_program`] on each of `paths`, each program once.
fn find_everywhere(word: &str, dir: &Path, paths: &[Vec<PathBuf>]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for path in paths {
        if let Some(p) = find_program(word, dir, path).filter(|p| !out.contains(p)) {
            out.push(p);
        }
    }
    out
}

/// The Python of `program`'s `#!` line, if it names one: its path, or through `env`
/// (`#!/usr/bin/env python3`, `#!/usr/bin/env -S PATH=… python3 -u`: review 72, 18) the name
/// found on the `PATH` the line sets, else the check's `paths`. pip's and uv's trampoline for
/// a long path (`#!/bin/sh`, then an `'''exec'` line) is read by [`trampoline`].
fn shebang_python(program: &Path, dir: &Path, paths: &[Vec<PathBuf>]) -> Option<Found> {
    let mut head = [0u8; 4096];
    let n = std::fs::File::open(program)
        .and_then(|mut f| f.read(&mut head))
        .ok()?;
    let mut lines = head[..n].split(|b| *b == b'\n');
    let first = String::from_utf8_lossy(lines.next()?.strip_prefix(b"#!")?).into_owned();
    let mut words = first.split_whitespace();
    let interpreter = words.next()?;
    if matches!(name_of(interpreter).as_str(), "sh" | "bash" | "dash")
        && let Some(second) = lines.next()
        && let Some(rest) = String::from_utf8_lossy(second).strip_prefix("'''exec' ")
    {
        return Some(trampoline(program, rest, dir));
    }
    let mut shebang_path: Option<Vec<PathBuf>> = None;
    let (name, args): (String, Vec<String>) = if name_of(interpreter) == "env" {
        let mut name = None;
        let mut args = Vec::new();
        for w in words {
            if name.is_some() {
                args.push(w.to_string());
            } else if let Some(("PATH", v)) = w.split_once('=') {
                shebang_path = Some(v.split(':').map(|d| dir.join(d)).collect());
            } else if !w.starts_with('-') && !w.contains('=') {
                name = Some(w.to_string());
            }
        }
        (name?, args)
    } else {
        (interpreter.to_string(), words.map(String::from).collect())
    };
    if !is_python(&name_of(&name)) {
        return None;
    }
    let (no_site, (ignores_env, no_user_site)) = python_flags(&args);
    if no_site {
        return None;
    }
    let searched = match shebang_path {
        Some(p) => vec![p],
        None => paths.to_vec(),
    };
    let program = find_everywhere(&name, dir, &searched).into_iter().next()?;
    Some(Found::Python(Python {
        program,
        dir: dir.to_path_buf(),
        ignores_env,
        no_user_site,
        from: None,
    }))
}

/// The Python of a `#!/bin/sh` trampoline's `'''exec'` line (`rest`: what follows it): pip's
/// `"/…/bin/python3" "$0" "$@"`, or uv's `"$(dirname -- "$(realpath -- "$0")")"/'python'`
/// (the program's own folder, links resolved). One gate cannot read is [`Found::Unknown`].
fn trampoline(program: &Path, rest: &str, dir: &Path) -> Found {
    const UV: &str = "\"$(dirname -- \"$(realpath -- \"$0\")\")\"/'";
    let target = if let Some(name) = rest.strip_prefix(UV) {
        let name = name.split('\'').next().unwrap_or_default();
        std::fs::canonicalize(program)
            .ok()
            .and_then(|p| p.parent().map(|d| d.join(name)))
    } else if let Some(quoted) = rest.strip_prefix('"') {
        quoted.split('"').next().map(PathBuf::from)
    } else {
        rest.split_whitespace().next().map(PathBuf::from)
    };
    match target.filter(|t| t.is_absolute() && !t.to_string_lossy().contains('$')) {
        Some(python) => Found::Python(Python {
            program: python,
            dir: dir.to_path_buf(),
            ignores_env: false,
            no_user_site: false,
            from: None,
        }),
        None => Found::Unknown(format!(
            "runs `{}`, whose `#!/bin/sh` trampoline starts a Python gate cannot name, so it \
             cannot read that Python's site folders; name the interpreter on the line \
             (`/…/bin/python -m pytest`)",
            program.display()
        )),
    }
}

/// The Python of each environment a project runner run as `words` in `dir` may use: the
/// `.venv` or `venv` folder of `dir`, of a `--project`/`--directory`/`--cwd` folder, and of
/// the folders above them; the environment `UV_PROJECT_ENVIRONMENT` names (from the
/// project's folder when relative) and the active one, `VIRTUAL_ENV` (review 73, 04). An
/// environment a runner keeps elsewhere, such as poetry's cache, is not found.
fn project_pythons(projects: &[PathBuf], env: &[(String, String)]) -> Vec<PathBuf> {
    let mut environments: Vec<PathBuf> = projects
        .iter()
        .flat_map(|p| p.ancestors().map(Path::to_path_buf).collect::<Vec<_>>())
        .flat_map(|d| [d.join(".venv"), d.join("venv")])
        .collect();
    for name in ["UV_PROJECT_ENVIRONMENT", "VIRTUAL_ENV"] {
        if let Some(v) = check_var(env, name).filter(|v| !v.is_empty()) {
            environments.extend(projects.iter().map(|p| p.join(&v)));
        }
    }
    let mut out: Vec<PathBuf> = Vec::new();
    for e in environments {
        let python = e.join("bin/python");
        if python.is_file() && !out.contains(&python) {
            out.push(python);
        }
    }
    out
}

/// The project folders a project runner run as `words` in `dir` works in: `dir`, and each
/// `--project`, `--directory` or `--cwd` folder.
fn project_folders(dir: &Path, words: &[String]) -> Vec<PathBuf> {
    let mut projects = vec![dir.to_path_buf()];
    for (k, w) in words.iter().enumerate() {
        let value = match w.split_once('=') {
            Some(("--project" | "--directory" | "--cwd", v)) => Some(v),
            _ if matches!(w.as_str(), "--project" | "--directory" | "--cwd") => {
                words.get(k + 1).map(String::as_str)
            }
            _ => None,
        };
        projects.extend(value.map(|v| dir.join(v)));
    }
    projects
}

/// Python's site folders as `python` names them ([`PROBE`]): run with `-I -S` where the check
/// ignores `PYTHON*` variables, else `-s -S` with the check's [`PROBE_VARS`] (so that
/// `PYTHONHOME` moves the prefix as it will for the check: review 72, 14); in `/`, with
/// `PYENV_DIR` the check's folder. An error saying why when it does not answer (not Python
/// 3, a crash, over [`PROBE_TIMEOUT`]).
fn site_folders(python: &Python, env: &[(String, String)]) -> Result<Sites, String> {
    let mut command = asked(&python.program, env, &python.dir);
    let isolation = if python.ignores_env { "-I" } else { "-s" };
    command.args([isolation, "-S", "-c", PROBE]);
    let out = run_bounded(command, PROBE_TIMEOUT)?;
    serde_json::from_slice(&out).map_err(|e| format!("its answer did not parse: {e}"))
}

/// `program` to be asked something at load: an empty environment but the check's
/// [`PROBE_VARS`], and `PYENV_DIR` the check's folder `dir` unless the check sets it.
fn asked(program: &Path, env: &[(String, String)], dir: &Path) -> std::process::Command {
    let mut command = std::process::Command::new(program);
    command.env_clear();
    for name in PROBE_VARS {
        if let Some(v) = check_var(env, name) {
            command.env(name, v);
        }
    }
    if check_var(env, "PYENV_DIR").is_none() {
        command.env("PYENV_DIR", dir);
    }
    command
}

/// Run `command` (stdout piped) in a process group of its own and return what it wrote, at
/// most 1 MiB, once it has ended successfully; an error saying why otherwise. The whole
/// group is killed at `timeout` ([`PROBE_TIMEOUT`]), and the wait for the output ends then too, so a
/// child that leaves a descendant holding its output cannot keep gate waiting (review 73,
/// 09).
fn run_bounded(mut command: std::process::Command, timeout: Duration) -> Result<Vec<u8>, String> {
    use std::os::unix::process::CommandExt;
    let mut child = command
        .process_group(0)
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let group = rustix::process::Pid::from_raw(child.id() as i32);
    let kill_group = || {
        if let Some(g) = group {
            let _ = rustix::process::kill_process_group(g, rustix::process::Signal::KILL);
        }
    };
    let mut stdout = child.stdout.take().ok_or("no output")?;
    // Read on a thread of its own, so that an answer larger than a pipe holds cannot stop
    // the wait below.
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = (&mut stdout).take(1 << 20).read_to_end(&mut out);
        let _ = send.send(out);
    });
    let deadline = Instant::now() + timeout;
    let late = || format!("no answer within {}s", timeout.as_secs());
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                kill_group();
                let _ = child.wait();
                return Err(late());
            }
            Err(e) => {
                kill_group();
                return Err(e.to_string());
            }
        }
    };
    let left = deadline.saturating_duration_since(Instant::now());
    let out = receive.recv_timeout(left).map_err(|_| {
        kill_group();
        late()
    })?;
    if !status.success() {
        return Err(format!("it ended with {status}"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pth_file_is_read_as_site_reads_it() {
        let site = Path::new("/v/lib/python3.12/site-packages");
        let text =
            "# a comment\n\n/w/src\n../../../../w/lib  \nimport x; x.install()\nimport\tfoo\nrel\n";
        assert_eq!(
            pth_entries(site, text),
            vec![
                PathBuf::from("/w/src"),
                PathBuf::from("/w/lib"),
                PathBuf::from("/v/lib/python3.12/site-packages/rel"),
            ]
        );
    }

    #[test]
    fn dash_s_before_the_script_leaves_the_site_folders_out() {
        let w = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        let no_site = |s: &str| python_flags(&w(s)).0;
        assert!(no_site("-S g.py"));
        assert!(no_site("-IS g.py"));
        assert!(no_site("-u -S -m pytest"));
        assert!(!no_site("-I g.py -S"));
        assert!(!no_site("-c -S"));
        assert!(!no_site("-m pytest -S"));
        assert!(!no_site("-W S g.py"));
        assert!(!no_site("-WS g.py"));
        assert!(no_site("-X dev -S g.py"));
        assert!(no_site("--check-hash-based-pycs never -S g.py"));
        assert_eq!(python_flags(&w("-I g.py")).1, (true, true));
        assert_eq!(python_flags(&w("-E g.py")).1, (true, false));
        assert_eq!(python_flags(&w("-s g.py")).1, (false, true));
        assert_eq!(python_flags(&w("g.py -I")).1, (false, false));
    }

    #[test]
    fn a_probe_that_leaves_a_child_holding_its_output_is_cut_off_at_the_timeout() {
        // Its children are not another test's to reap (`runner::sys`'s orphan tests).
        let _shared = crate::runner::sys::process_test();
        let started = Instant::now();
        let mut command = std::process::Command::new("sh");
        command.args(["-c", "(sleep 30) & echo partial"]);
        let e = run_bounded(command, Duration::from_secs(1)).unwrap_err();
        assert_eq!(e, "no answer within 1s");
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "{:?}",
            started.elapsed()
        );
        let mut command = std::process::Command::new("sh");
        command.args(["-c", "sleep 30"]);
        assert_eq!(
            run_bounded(command, Duration::from_secs(1)).unwrap_err(),
            "no answer within 1s"
        );
        let mut command = std::process::Command::new("sh");
        command.args(["-c", "echo ok"]);
        assert_eq!(
            run_bounded(command, Duration::from_secs(10)).unwrap(),
            b"ok\n"
        );
    }

    #[test]
    fn interpreter_names_are_exact() {
        for yes in ["python", "python3", "python3.12", "pypy3", "pypy3.10"] {
            assert!(python_name(yes), "{yes}");
        }
        for no in ["python_tests", "python3.py", "python3.", "pythonic", "py"] {
            assert!(!python_name(no), "{no}");
        }
    }
}
