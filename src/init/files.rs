//! The files `gate init` reads and writes, shared by the plans it writes for one test
//! ([`super`]), for a suite runner ([`super::suites`]) and for an eval tool
//! ([`super::evals`]): a leaf, so that none of the three imports another for them.

use std::fs;
use std::io::Write as _;
use std::path::{Component, Path, PathBuf};

use crate::error::Error;

/// The `sampling:` block of a plan for a whole suite or eval (every test judged by it): the
/// default risks, written out with what each number means.
pub(crate) const DEFAULT_DESIGN: &str = "\
sampling:
  design:
    healthy: 90%    # the success rate of a test when all is well (per single run)
    regressed: 70%  # a success rate you must not ship; below `healthy`
    alpha: 5%       # tolerated P(gate fails | healthy): false alarms
    beta: 10%       # tolerated P(gate passes | regressed): missed regressions
    rule: single
";

/// Create `path` with `text`, never over an existing file: `create_new` refuses atomically
/// (no check-then-write race). An existing file or one that cannot be created is a usage
/// error (exit 2): the `--output` given cannot be used.
pub(crate) fn create_new(path: &Path, text: &str) -> Result<(), Error> {
    let mut file = match fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(Error::Usage(format!(
                "`{}` already exists; gate init never overwrites a plan (remove it, or pass `--output OTHER.yaml`)",
                path.display()
            )));
        }
        Err(e) => {
            return Err(Error::input(
                format!("cannot create `{}`", path.display()),
                e,
            ));
        }
    };
    file.write_all(text.as_bytes())
        .map_err(|e| Error::input(format!("cannot write `{}`", path.display()), e))
}

/// `to` as a relative path from the directory `from` (both as given, relative to the current
/// directory or absolute), with `/` separators; `.` when they are the same directory. Both are
/// made absolute first (a missing directory is taken as written), so `-o ci/gate.yaml` with
/// `--dir .` gives `..`.
pub(crate) fn relative_to(from: &Path, to: &Path) -> String {
    let abs = |p: &Path| -> PathBuf {
        let p = if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        };
        let joined = if p.is_absolute() {
            p.to_path_buf()
        } else {
            std::env::current_dir().unwrap_or_default().join(p)
        };
        // Lexically normalised (`a/./b/../c` → `a/c`): the directories need not exist yet.
        let mut out = PathBuf::new();
        for c in joined.components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir => {
                    out.pop();
                }
                c => out.push(c),
            }
        }
        out
    };
    let (from, to) = (abs(from), abs(to));
    let a: Vec<_> = from.components().collect();
    let b: Vec<_> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_string(); a.len() - common];
    parts.extend(
        b[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

/// The indifference zone of the plan just written, in one line, so the first thing a new user
/// reads about the plan is that a rate between the two it tells apart can go either way. The
/// plan is read back (not recomputed from the template) so the line is the rule `gate run`
/// will use; a plan that does not load says nothing here (`gate check` will say why).
pub(crate) fn zone_note(path: &Path) {
    let Ok(plan) = crate::plan::Plan::load(path) else {
        return;
    };
    let Ok(check) = crate::plan::check::PlanCheck::of(&plan) else {
        return;
    };
    if let Some((task, zone)) = check.tasks.iter().find_map(|t| Some((t, t.zone?))) {
        println!(
            "note: {}",
            crate::format::zone_line(&zone, task.rates.is_some())
        );
        return;
    }
    // A plan for `gate suite`/`gate ingest`: the rule its `junit:` tasks share.
    let Some(rule) = plan
        .selections
        .first()
        .map(|s| &s.rule)
        .or(plan.default_rule.as_ref())
    else {
        return;
    };
    let Ok(lattice) = rule.sampling.lattice() else {
        return;
    };
    let zone = match rule.rates {
        Some(r) => crate::stats::zone::Zone::of(&lattice, r.regressed, r.healthy),
        None => crate::stats::zone::Zone::unstated(&lattice),
    };
    if let Some(zone) = zone {
        println!(
            "note: {}",
            crate::format::zone_line(&zone, rule.rates.is_some())
        );
    }
}

/// A project file's text, read as [`crate::input::read_project_file`] reads it (regular,
/// bounded, no FIFO, no link out of the project); `None` when it cannot be.
pub(crate) fn project_text(dir: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(dir).unwrap_or(file);
    let bytes = crate::input::read_project_file(dir, rel, PROJECT_FILE_MAX).ok()?;
    String::from_utf8(bytes).ok()
}

/// The most `gate init` reads of one project file: a manifest or test file is far smaller.
const PROJECT_FILE_MAX: u64 = 1 << 20;
