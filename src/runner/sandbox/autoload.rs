//! What Python runs without being asked, looked for in the folders the trials write before
//! each check (issue 29, review 75).
//!
//! At start-up every Python imports `sitecustomize` and `usercustomize` from the first
//! `sys.path` folder that holds one, and pytest loads as a plugin every `pytest11` entry
//! point of the `*.dist-info` and `*.egg-info` folders it finds there. Where a `sys.path`
//! folder of a check's Python lies in a folder the trials write (an editable install's
//! `.pth` naming `src`), a trial's `src/sitecustomize.py` runs inside the check and decides
//! the grade, whatever the check imports. `plan::site` refuses such a check at load, but
//! only for the Pythons it finds on the check's line and in what that line runs; review 75
//! started Python 17 ways it did not read (a makefile's `$(shell …)` or `SHELL := python3`,
//! an `.npmrc`'s `script-shell`, `py=python3; $py …`, …), each a wrong PASS.
//!
//! So this wall does not depend on reading the line. When the run starts, gate notes every
//! such file in the folders the trials write ([`Autoloads::take`]): a file or folder named
//! `sitecustomize` or `usercustomize` (`.py`, `.pyc`, an extension module, a package), and
//! the `entry_points.txt` of a `*.dist-info` or `*.egg-info` that names a `pytest11` entry
//! point. Before each check it looks again ([`Autoloads::changed`]); one that is new or
//! changed refuses the check: no verdict is published. What was there at the start is the
//! plan author's (a `.venv` with pytest plugins in a task folder) and stays. The look runs
//! in the check's turn ([`super::Sandbox::check_turn`]), so no other trial writes while the
//! check runs.
//!
//! Not walked: `.git`, `node_modules` and `__pycache__` folders (Python imports neither
//! `sitecustomize` nor a plugin from a `__pycache__`, and a `sys.path` folder inside the
//! other two would be the plan author's own doing), and links (the folder a link leads to is
//! walked where it lies in a folder the trials write). Past [`WALK_ENTRIES`] entries the look
//! cannot see what a trial writes further, and the check is refused.

use std::collections::HashMap;
use std::fs;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Most entries one look reads, over every folder the trials write.
pub const WALK_ENTRIES: usize = 500_000;

/// The files Python or pytest would run by themselves in the folders the trials write, as
/// they were when the run started.
#[derive(Debug, Default)]
pub struct Autoloads {
    roots: Vec<PathBuf>,
    start: HashMap<PathBuf, String>,
}

/// What a look found.
#[derive(Debug, PartialEq, Eq)]
pub enum Look {
    /// Every such file is as it was.
    Same,
    /// This one is new or changed.
    Changed(PathBuf),
    /// The folders hold more than [`WALK_ENTRIES`] entries, below this root.
    PastBound(PathBuf),
}

/// Why the look cannot start.
#[derive(Debug, PartialEq, Eq)]
pub enum Unwatched {
    /// The folders hold more than [`WALK_ENTRIES`] entries, below this root.
    PastBound(PathBuf),
    /// Such a file lies outside any `site-packages` or `dist-packages` folder: a trial of an
    /// earlier run may have left it (review 76, 09), and gate cannot tell it from the plan
    /// author's.
    LeftOver(PathBuf),
}

impl Unwatched {
    /// Why no trial is run, in words.
    pub fn refusal(&self) -> String {
        match self {
            Unwatched::PastBound(top) => format!(
                "the folders the trials write below `{}` hold more than {WALK_ENTRIES} entries \
                 outside `.git`, `node_modules` and `__pycache__`: gate looks there before each \
                 check for a `sitecustomize` or a pytest plugin a trial left, which a check's \
                 Python would run, up to that many; no trial was run (narrow the task's \
                 `writes:`, or keep large data and caches outside the folders the trials write)",
                top.display()
            ),
            Unwatched::LeftOver(p) => format!(
                "`{}` lies in a folder the trials write, outside any `site-packages`: a Python \
                 on whose `sys.path` that folder is runs it by itself (a `sitecustomize` or \
                 `usercustomize`, a `pytest11` entry point), and gate cannot tell whether a \
                 trial of an earlier run left it; no trial was run (remove it, or move it out of \
                 the folders the trials write)",
                p.display()
            ),
        }
    }
}

impl Autoloads {
    /// Note what is in `roots` now; `Err` where the walk stopped past its bound, or found
    /// such a file that a trial of an earlier run may have left ([`Unwatched::LeftOver`]).
    /// One inside a `site-packages` or `dist-packages` folder (a `.venv` with pytest plugins
    /// in a task's folder) is the plan author's.
    pub fn take(roots: &[PathBuf]) -> Result<Autoloads, Unwatched> {
        // A root inside another is walked with it.
        let outer = crate::runner::mounts::outermost(roots);
        let start = found(&outer).map_err(Unwatched::PastBound)?;
        let mut outside: Vec<&PathBuf> = start
            .keys()
            .filter(|p| {
                !p.components().any(|c| {
                    matches!(
                        c.as_os_str().to_str(),
                        Some("site-packages" | "dist-packages")
                    )
                })
            })
            .collect();
        outside.sort();
        if let Some(p) = outside.first() {
            return Err(Unwatched::LeftOver((*p).clone()));
        }
        Ok(Autoloads {
            roots: outer,
            start,
        })
    }

    /// Whether a file Python or pytest would run by itself is new or changed since
    /// [`Autoloads::take`].
    pub fn changed(&self) -> Look {
        let now = match found(&self.roots) {
            Ok(now) => now,
            Err(root) => return Look::PastBound(root),
        };
        let mut changed: Vec<&PathBuf> = now
            .iter()
            .filter(|(p, state)| self.start.get(*p) != Some(state))
            .map(|(p, _)| p)
            .collect();
        changed.sort();
        changed
            .first()
            .map_or(Look::Same, |p| Look::Changed((*p).clone()))
    }

    /// The first such file noted at the start that was written after `started` (a resumed
    /// run's first start, from its ledger): `--resume` would take as the plan author's what a
    /// trial of the first part may have left.
    pub fn written_since(&self, started: &str) -> Option<PathBuf> {
        let mut paths: Vec<&PathBuf> = self.start.keys().collect();
        paths.sort();
        paths
            .into_iter()
            .find(|p| {
                fs::symlink_metadata(p)
                    .is_ok_and(|m| super::packages::after((m.ctime(), m.ctime_nsec()), started))
            })
            .cloned()
    }

    /// Whether there is nothing to look at (no folder the trials write).
    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }

    /// Why a check is not run after [`Autoloads::changed`] gave `look`.
    pub fn refusal(look: &Look) -> Option<String> {
        match look {
            Look::Same => None,
            Look::Changed(p) => Some(format!(
                "`{}` appeared or changed during the run (a trial did it): Python runs a \
                 `sitecustomize` or `usercustomize`, and pytest loads a `pytest11` entry point, \
                 from any folder on `sys.path`, so a check's Python could run the trial's code \
                 and decide the grade; the check was not run and no verdict is published (an \
                 agent must not write these; keep the check's Python from reaching the folders \
                 the trials write)",
                p.display()
            )),
            Look::PastBound(root) => Some(format!(
                "the folders the trials write below `{}` hold more than {WALK_ENTRIES} entries \
                 outside `.git`, `node_modules` and `__pycache__`, so gate cannot see whether a \
                 trial left a `sitecustomize` or a pytest plugin there that a check's Python \
                 would run; the check was not run and no verdict is published (narrow the \
                 task's `writes:`)",
                root.display()
            )),
        }
    }
}

/// Modules Python's standard library tries to import on every platform and finds on none
/// but another (review 77, 01-03: `pathlib` asks for `nt`, `subprocess` for `msvcrt` and
/// `_winapi`, `copy` for `org.python.core`), in `try` blocks: on Linux the search goes on to
/// the last `sys.path` folder, an editable install's `src` among them, and a trial's
/// `src/nt.py` runs inside the check's pytest whatever it imports.
const PROBED: &[&str] = &[
    "nt",
    "msvcrt",
    "_winapi",
    "winreg",
    "_winreg",
    "_overlapped",
    "_scproxy",
    "org",
    "java",
];

/// Whether a folder entry named `name` is run by Python by its name alone: a
/// `sitecustomize` or `usercustomize`, or one of the [`PROBED`] modules (`x`, `x.py`,
/// `x.pyc`, `x.cpython-311-….so`).
fn customize(name: &str) -> bool {
    ["sitecustomize", "usercustomize"]
        .iter()
        .chain(PROBED)
        .any(|n| {
            name.strip_prefix(n)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        })
}

/// Whether `name`, inside a folder [`customize`] matched, is what Python would import from
/// it: Python's own files and folders (a Java tree's `org/example/App.java` is not).
fn python_file(name: &str) -> bool {
    [".py", ".pyc", ".pyw", ".so", ".pth"]
        .iter()
        .any(|x| name.ends_with(x))
}

/// The state of the file at `p`: type, mode, device, inode, size and change time (which a
/// process cannot set back), links not followed.
fn state(p: &Path) -> String {
    fs::symlink_metadata(p).map_or_else(
        |_| "unreadable".to_string(),
        |m| super::configs::describe(&m),
    )
}

/// Whether the `entry_points.txt` at `p` may name a `pytest11` entry point: whether its
/// first MiB holds `pytest11` in any case, anywhere (one larger or unreadable counts).
/// Python splits its lines at more characters than `\n`, strips more than whitespace and
/// every `[` and `]` around a group's name (review 76, 02-04, 14: `[[pytest11]]`,
/// `[a]\x0c[pytest11]`, `\x1c[pytest11]`, `[a]\u{2028}[pytest11]`); the word is enough.
fn names_pytest_plugin(p: &Path) -> bool {
    match fs::symlink_metadata(p) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return false,
        // Not opened unless a file: a FIFO would block the look for good (review 77, 05).
        Ok(m) if m.is_file() => {}
        _ => return true,
    }
    let mut text = Vec::new();
    let read = fs::File::open(p).and_then(|f| f.take((1 << 20) + 1).read_to_end(&mut text));
    if read.is_err() || text.len() > 1 << 20 {
        return true;
    }
    text.to_ascii_lowercase()
        .windows(b"pytest11".len())
        .any(|w| w == b"pytest11")
}

/// Every such file below `roots` with its [`state`]; `Err` with the root being walked when
/// the entries passed [`WALK_ENTRIES`].
fn found(roots: &[PathBuf]) -> Result<HashMap<PathBuf, String>, PathBuf> {
    let mut out = HashMap::new();
    let mut entries = 0usize;
    for root in roots {
        // Each folder with whether it lies in a `sitecustomize`/`usercustomize` package,
        // whose every entry is noted (review 76, 17: its `__init__.py` rewritten in place).
        let mut folders = vec![(root.clone(), false)];
        while let Some((dir, inside)) = folders.pop() {
            let Ok(list) = fs::read_dir(&dir) else {
                continue;
            };
            for e in list.flatten() {
                entries += 1;
                if entries > WALK_ENTRIES {
                    return Err(root.clone());
                }
                let name = e.file_name();
                let name = name.to_string_lossy();
                let path = e.path();
                let Ok(kind) = e.file_type() else {
                    continue;
                };
                let top = !inside && customize(&name);
                // Below a matched folder, Python's files; a `PROBED` name that is a folder is
                // only what lies below it (`org/` of a Java tree holds no Python).
                let probed_folder = top && kind.is_dir() && PROBED.iter().any(|n| *n == name);
                let note = if inside {
                    !kind.is_dir() && python_file(&name)
                } else {
                    top && !probed_folder
                };
                if note {
                    out.insert(path.clone(), state(&path));
                }
                let runs = inside || top;
                if !kind.is_dir() {
                    continue;
                }
                // Python's metadata lookup lowers each name first (review 76, 01, 06).
                let lower = name.to_lowercase();
                if lower.ends_with(".dist-info") || lower.ends_with(".egg-info") {
                    let points = path.join("entry_points.txt");
                    if names_pytest_plugin(&points)
                        || fs::symlink_metadata(&points).is_ok_and(|m| !m.is_file())
                    {
                        out.insert(points.clone(), state(&points));
                    }
                }
                if runs || !matches!(name.as_ref(), ".git" | "node_modules" | "__pycache__") {
                    folders.push((path, runs));
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_python_runs_by_themselves_are_exact() {
        for name in [
            "sitecustomize.py",
            "sitecustomize.pyc",
            "sitecustomize",
            "usercustomize.py",
            "sitecustomize.cpython-311-x86_64-linux-gnu.so",
            "sitecustomize.abi3.so",
        ] {
            assert!(customize(name), "{name}");
        }
        for name in [
            "sitecustomizer.py",
            "my_sitecustomize.py",
            "site.py",
            "customize.py",
        ] {
            assert!(!customize(name), "{name}");
        }
    }

    #[test]
    fn a_new_or_changed_autoload_is_seen_and_what_was_there_stays() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let site = root.join(".venv/lib/python3.11/site-packages");
        fs::create_dir_all(site.join("pytest_cov-6.0.dist-info")).unwrap();
        fs::write(
            site.join("pytest_cov-6.0.dist-info/entry_points.txt"),
            "[pytest11]\npytest_cov = pytest_cov.plugin\n",
        )
        .unwrap();
        fs::create_dir_all(root.join("src/agent.egg-info")).unwrap();
        fs::write(
            root.join("src/agent.egg-info/entry_points.txt"),
            "[console_scripts]\nagent = agent:main\n",
        )
        .unwrap();
        let looks = Autoloads::take(std::slice::from_ref(&root)).unwrap();
        assert_eq!(looks.changed(), Look::Same);
        // Ordinary files, a `__pycache__`'s sourceless copy, `.git` and `node_modules`.
        fs::write(root.join("src/answer.txt"), "wrong").unwrap();
        for d in ["src/__pycache__", "src/.git", "src/node_modules"] {
            fs::create_dir_all(root.join(d)).unwrap();
            fs::write(root.join(d).join("sitecustomize.py"), "").unwrap();
        }
        assert_eq!(looks.changed(), Look::Same);
        // A trial's sitecustomize, at any depth.
        let planted = root.join("src/pkg/sitecustomize.py");
        fs::create_dir_all(planted.parent().unwrap()).unwrap();
        fs::write(&planted, "import os\nos._exit(0)\n").unwrap();
        assert_eq!(looks.changed(), Look::Changed(planted.clone()));
        fs::remove_file(&planted).unwrap();
        assert_eq!(looks.changed(), Look::Same);
        // An entry point group turned into a pytest plugin.
        let points = root.join("src/agent.egg-info/entry_points.txt");
        fs::write(&points, "[ pytest11 ]\nx = agent.plugin\n").unwrap();
        assert_eq!(looks.changed(), Look::Changed(points.clone()));
        fs::write(&points, "[console_scripts]\nagent = agent:main\n").unwrap();
        // The plugin that was there, rewritten (the same text, written again).
        let cov = site.join("pytest_cov-6.0.dist-info/entry_points.txt");
        fs::write(&cov, "[pytest11]\npytest_cov = pytest_cov.plugin\n").unwrap();
        assert_eq!(looks.changed(), Look::Changed(cov));
    }

    #[test]
    fn what_python_reads_by_other_spellings_is_seen_too() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        fs::create_dir_all(root.join("src/sitecustomize")).unwrap();
        fs::create_dir_all(root.join("lib/site-packages/sitecustomize")).unwrap();
        fs::write(root.join("lib/site-packages/sitecustomize/__init__.py"), "").unwrap();
        // Outside any `site-packages`: an earlier run's trial may have left it (review 76, 09).
        assert_eq!(
            Autoloads::take(std::slice::from_ref(&root)).unwrap_err(),
            Unwatched::LeftOver(root.join("src/sitecustomize"))
        );
        fs::remove_dir(root.join("src/sitecustomize")).unwrap();
        let looks = Autoloads::take(std::slice::from_ref(&root)).unwrap();
        // A package's file rewritten in place (review 76, 17).
        let init = root.join("lib/site-packages/sitecustomize/__init__.py");
        fs::write(&init, "import os\nos._exit(0)\n").unwrap();
        assert_eq!(looks.changed(), Look::Changed(init.clone()));
        fs::remove_file(&init).unwrap();
        // Upper-case suffixes and every way Python reads a group's name (review 76, 01-06,
        // 14); a metadata folder with no `entry_points.txt` is nothing.
        fs::create_dir_all(root.join("src/quiet-1.0.dist-info")).unwrap();
        // One taken away runs nothing.
        fs::remove_dir_all(root.join("lib/site-packages/sitecustomize")).unwrap();
        assert_eq!(looks.changed(), Look::Same);
        for (folder, text) in [
            ("src/e-0.1.DIST-INFO", "[pytest11]\ne = e\n"),
            ("src/e.EGG-INFO", "[pytest11]\ne = e\n"),
            ("src/e-0.1.dist-info", "[[pytest11]]\ne = e\n"),
            ("src/e-0.1.dist-info", "[a]\x0c[pytest11]\ne = e\n"),
            ("src/e-0.1.dist-info", "\x1c[pytest11]\ne = e\n"),
            ("src/e-0.1.dist-info", "[a]\u{2028}[PyTest11]\ne = e\n"),
        ] {
            let points = root.join(folder).join("entry_points.txt");
            fs::create_dir_all(root.join(folder)).unwrap();
            fs::write(&points, text).unwrap();
            assert_eq!(looks.changed(), Look::Changed(points), "{folder}: {text:?}");
            fs::remove_dir_all(root.join(folder)).unwrap();
        }
        assert_eq!(looks.changed(), Look::Same);
    }

    #[test]
    fn modules_the_standard_library_probes_for_are_seen_and_a_fifo_is_not_opened() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        // A Java tree's `org` and a FIFO where an `entry_points.txt` goes, there at start.
        fs::create_dir_all(root.join("src/main/java/org/example")).unwrap();
        fs::write(
            root.join("src/main/java/org/example/App.java"),
            "class App {}",
        )
        .unwrap();
        fs::create_dir_all(root.join("lib/site-packages/x-1.dist-info")).unwrap();
        let fifo = root.join("lib/site-packages/x-1.dist-info/entry_points.txt");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        let looks = Autoloads::take(std::slice::from_ref(&root)).unwrap();
        assert_eq!(looks.changed(), Look::Same);
        if made.is_ok_and(|s| s.success()) {
            assert!(looks.start.contains_key(&fifo));
        }
        for planted in [
            "src/nt.py",
            "src/msvcrt.cpython-311-x86_64-linux-gnu.so",
            "src/org/python/core.py",
            "src/_winapi/__init__.py",
        ] {
            let p = root.join(planted);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(&p, "import os\nos._exit(0)\n").unwrap();
            assert_eq!(looks.changed(), Look::Changed(p.clone()), "{planted}");
            fs::remove_file(&p).unwrap();
        }
    }

    #[test]
    fn a_walk_past_its_bound_is_said() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Autoloads::take(&[dir.path().to_path_buf()]).is_ok());
        assert!(matches!(
            Autoloads::refusal(&Look::PastBound(dir.path().to_path_buf())),
            Some(m) if m.contains("narrow the task's `writes:`")
        ));
        assert!(
            Unwatched::PastBound(dir.path().to_path_buf())
                .refusal()
                .contains("no trial was run")
        );
    }
}
