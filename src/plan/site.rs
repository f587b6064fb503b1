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
//! So at load gate asks each Python a `check:` line starts (the interpreter it names, or
//! the one in the `#!` line of a program it names, such as `pytest`) for its site folders,
//! reads their `.pth` files, and refuses a site folder, or a folder a `.pth` names, that lies
//! in a folder the trials write. The question is asked with `-I -S`: Python reads no `.pth`
//! and runs no `sitecustomize` to answer it, so nothing a trial left in the checkout runs
//! outside the box. A `.pth` line that is code (`import …`) is not followed: what it adds
//! is known only by running it (setuptools' editable finders map the agent's own package
//! names, which the check imports anyway).

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::words::{is_python, name_of, simple_commands, tokens_of};
use super::{Plan, PlanError};

/// What Python runs to name its site folders, as `site.main()` would find them, without
/// running `site.main()`: the virtual environment's `pyvenv.cfg` decides the prefixes and
/// whether the user's site folder counts, as `site.venv` does. Folders separated by NUL.
const PROBE: &str = r#"import os, site, sys
exe = os.path.abspath(sys.executable)
d = os.path.dirname(exe)
pre = os.path.dirname(d)
prefixes = list(site.PREFIXES)
user = not os.environ.get("PYTHONNOUSERSITE")
if hasattr(os, "getuid") and os.getuid() != os.geteuid():
    user = False
for c in (os.path.join(d, "pyvenv.cfg"), os.path.join(pre, "pyvenv.cfg")):
    if os.path.isfile(c):
        system = "true"
        with open(c, encoding="utf-8", errors="replace") as f:
            for line in f:
                k, _, v = line.partition("=")
                if k.strip().lower() == "include-system-site-packages":
                    system = v.strip().lower()
        if system == "true":
            prefixes.insert(0, pre)
        else:
            prefixes = [pre]
            user = False
        break
dirs = site.getsitepackages(prefixes)
if user:
    dirs.append(site.getusersitepackages())
sys.stdout.write("\0".join(dirs))
"#;

/// How long one interpreter may take to answer [`PROBE`]; one that does not is not read.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// An interpreter with the `env:` it was asked with: the user's site folder follows `HOME`
/// and `PYTHONUSERBASE`.
type Asked = (PathBuf, Vec<(String, String)>);

/// A `check:` line (a task's or base's) that runs a Python whose site folders put a folder
/// the trials write on `sys.path` is refused (see the module doc). Not with `policy.sandbox:
/// off`, where no wall stands.
pub(super) fn refuse_python_sites_the_trials_write(
    shown: &str,
    plan: &Plan,
) -> Result<(), PlanError> {
    if plan.policy.sandbox.mode == crate::model::SandboxMode::Off {
        return Ok(());
    }
    let roots = super::state::writable_roots(plan);
    let guarded = super::state::guarded_folders(plan);
    let mut asked: HashMap<Asked, Option<Vec<PathBuf>>> = HashMap::new();
    for t in &plan.tasks {
        for (line, cwd, env) in super::state::check_lines(t) {
            for python in pythons_run(line, cwd, env) {
                let key = (python.clone(), env.clone());
                let sites = asked
                    .entry(key)
                    .or_insert_with(|| site_folders(&python, env))
                    .clone();
                for site in sites.unwrap_or_default() {
                    let Some(message) = site_reach(&site, &roots, &guarded) else {
                        continue;
                    };
                    return Err(PlanError::at_check(
                        shown,
                        t,
                        line,
                        format!(
                            "task `{}`: `check:` runs Python `{}`, {message}: a trial's \
                             `sitecustomize.py` there would run inside the check, and a \
                             `*.dist-info` there would load as a pytest plugin; install the \
                             agent's package without `-e` (`pip install .`), or give the check \
                             a Python that does not reach that folder",
                            t.id,
                            python.display()
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Why Python's site folder `site` reaches a folder the trials write, or `None`: the site
/// folder itself lies in one (a trial could add a `.pth`), or one of its `.pth` files names
/// a folder in one (Python adds it if it exists when the check starts, so a folder missing
/// at load counts too).
fn site_reach(site: &Path, roots: &[PathBuf], guarded: &[PathBuf]) -> Option<String> {
    let shown = site.display().to_string();
    if super::reach::writable_entry(&shown, roots, guarded).is_some() {
        return Some(format!(
            "whose site folder `{shown}` lies in a folder the trials write (a trial could add \
             a `.pth` there)"
        ));
    }
    let Ok(list) = std::fs::read_dir(site) else {
        return None;
    };
    let mut pths: Vec<PathBuf> = list
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "pth"))
        .collect();
    pths.sort();
    for pth in pths {
        let Ok(text) = crate::input::read_regular(&pth, 1 << 20) else {
            continue;
        };
        for entry in pth_entries(site, &String::from_utf8_lossy(&text)) {
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

/// The folders a `.pth` file in `site` names, as `site.addpackage` reads it: a line that
/// is empty or starts with `#` is skipped, one that starts with `import` is code (not
/// followed, see the module doc), any other is a folder relative to `site`, normalised.
fn pth_entries(site: &Path, text: &str) -> Vec<PathBuf> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter(|l| !l.starts_with("import ") && !l.starts_with("import\t"))
        .map(|l| lexical(&site.join(l.trim_end())))
        .collect()
}

/// `p` with `.` and `..` taken lexically, as `os.path.abspath` does.
fn lexical(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The Python interpreters `line`, run in `cwd` with the plan's `env`, starts by name: a
/// program named like Python, and the interpreter of a program whose `#!` line names Python
/// (`pytest`, `.venv/bin/pytest`, `#!/usr/bin/env python3`), each as a path; also inside the
/// commands `find -exec` runs. A `cd` moves where relative names are found. Python started
/// with `-S` reads no site folder and is left out.
fn pythons_run(line: &super::CommandLine, cwd: &Path, env: &[(String, String)]) -> Vec<PathBuf> {
    let path = check_path(cwd, env);
    let mut found: Vec<PathBuf> = Vec::new();
    let mut dir = cwd.to_path_buf();
    for words in simple_commands(&tokens_of(line, env)) {
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
            let Some(program) = find_program(&inner[0], &dir, &path) else {
                continue;
            };
            if PROJECT_RUNNERS.contains(&name_of(&inner[0]).as_str()) {
                for python in project_pythons(&dir) {
                    if !found.contains(&python) {
                        found.push(python);
                    }
                }
                continue;
            }
            let python = if is_python(&name_of(&inner[0])) {
                (!no_site(&inner[1..])).then_some(program)
            } else {
                shebang_python(&program, &dir, &path)
            };
            if let Some(p) = python.filter(|p| !found.contains(p)) {
                found.push(p);
            }
        }
    }
    found
}

/// Tools that run a command in the project's own virtual environment (`uv run pytest`,
/// `poetry run pytest`), which they find, or make, beside the project's files.
const PROJECT_RUNNERS: &[&str] = &["uv", "uvx", "poetry", "pdm", "pipenv", "hatch", "rye"];

/// The Python of each `.venv` or `venv` folder in `dir` and the folders above it, where
/// [`PROJECT_RUNNERS`] look for the project's environment first (an environment they keep
/// elsewhere, such as poetry's cache, is not found).
fn project_pythons(dir: &Path) -> Vec<PathBuf> {
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    dir.ancestors()
        .flat_map(|d| [d.join(".venv/bin/python"), d.join("venv/bin/python")])
        .filter(|p| p.is_file())
        .collect()
}

/// Whether Python's options (the words after its name) include `-S` before the script,
/// `-c` or `-m`.
fn no_site(args: &[String]) -> bool {
    let mut k = 0;
    while let Some(a) = args.get(k) {
        k += 1;
        if a == "--" || !a.starts_with('-') || a.len() < 2 {
            return false;
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
                'S' => return true,
                'c' | 'm' => return false,
                'W' | 'X' => {
                    k += usize::from(i + 2 == a.len());
                    break;
                }
                _ => {}
            }
        }
    }
    false
}

/// The folders of the check's `PATH`: the plan's `env:` value (relative entries from the
/// check's folder), or gate's own.
fn check_path(cwd: &Path, env: &[(String, String)]) -> Vec<PathBuf> {
    let value = env
        .iter()
        .rev()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var("PATH").ok())
        .unwrap_or_default();
    value
        .split(':')
        .map(|d| if d.is_empty() { "." } else { d })
        .map(|d| cwd.join(d))
        .collect()
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

/// The Python interpreter of `program`'s `#!` line, if it names one: its path, or through
/// `env` (`#!/usr/bin/env python3`, `#!/usr/bin/env -S python3 -u`) the name found on the
/// check's `path`.
fn shebang_python(program: &Path, dir: &Path, path: &[PathBuf]) -> Option<PathBuf> {
    let mut head = [0u8; 512];
    let n = std::fs::File::open(program)
        .and_then(|mut f| f.read(&mut head))
        .ok()?;
    let first = head[..n].split(|b| *b == b'\n').next()?;
    let first = std::str::from_utf8(first.strip_prefix(b"#!")?).ok()?;
    let mut words = first.split_whitespace();
    let interpreter = words.next()?;
    let (name, args): (&str, Vec<&str>) = if name_of(interpreter) == "env" {
        let mut rest = words.skip_while(|w| w.starts_with('-') || w.contains('='));
        (rest.next()?, rest.collect())
    } else {
        (interpreter, words.collect())
    };
    if !is_python(&name_of(name)) {
        return None;
    }
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    if no_site(&args) {
        return None;
    }
    find_program(name, dir, path)
}

/// Python's site folders as `python` names them ([`PROBE`]), run with `-I -S` and the
/// check's `env:`; `None` when it does not answer (not Python 3, a crash, over
/// [`PROBE_TIMEOUT`]), so that gate cannot read them.
fn site_folders(python: &Path, env: &[(String, String)]) -> Option<Vec<PathBuf>> {
    let mut child = std::process::Command::new(python)
        .args(["-I", "-S", "-c", PROBE])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    // The answer is read on a thread of its own, so that an interpreter that writes more
    // than a pipe holds cannot stop the wait below.
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = (&mut stdout).take(1 << 20).read_to_end(&mut out);
        out
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() < PROBE_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(5))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let out = reader.join().ok()?;
    if !status?.success() {
        return None;
    }
    let text = String::from_utf8(out).ok()?;
    Some(
        text.split('\0')
            .filter(|d| d.starts_with('/'))
            .map(PathBuf::from)
            .collect(),
    )
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
        assert!(no_site(&w("-S g.py")));
        assert!(no_site(&w("-IS g.py")));
        assert!(no_site(&w("-u -S -m pytest")));
        assert!(!no_site(&w("-I g.py -S")));
        assert!(!no_site(&w("-c -S")));
        assert!(!no_site(&w("-m pytest -S")));
        assert!(!no_site(&w("-W S g.py")));
        assert!(!no_site(&w("-WS g.py")));
        assert!(no_site(&w("-X dev -S g.py")));
        assert!(no_site(&w("--check-hash-based-pycs never -S g.py")));
    }
}
