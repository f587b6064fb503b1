//! The plan's structure: `policy:`, tasks with `run` or `junit`, commands and fixtures.
//!
//! Each check points at the offending value's `Spanned` location; the sampling rule of a
//! task is resolved in [`super::sampling`], its `suite:`, `compare:` and `base:` parts in
//! their own modules, and the policy-wide limits in [`super::bounds`].

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_saphyr::{Location, Spanned};

use super::schema::{self, CommandSpec, PlanFile, SamplingSpec, TaskFile};
use super::{
    CommandLine, DEFAULT_KILL_GRACE, DEFAULT_TIMEOUT, MAX_TRANSPORT_RETRIES, Plan, PlanError,
    Policy, ResolvedRule, Selection, SuiteAlpha, Task, TaskKind, Validator,
};
use crate::ledger::sha256_hex;

impl Validator<'_> {
    pub(super) fn plan(&self, file: PlanFile) -> Result<Plan, PlanError> {
        if file.version.value != 1 {
            return Err(self.invalid(
                &file.version.referenced,
                format!(
                    "unsupported plan `version: {}`; this gate reads `version: 1`",
                    file.version.value
                ),
            ));
        }
        // Policy-wide bounds point at the `policy:` block (or the top of the file).
        let policy_at = file
            .policy
            .as_ref()
            .map_or(file.version.referenced, |p| p.referenced);
        let policy_file = file.policy.map(|p| p.value).unwrap_or_default();
        let policy = self.policy(&policy_file)?;
        if file.tasks.value.is_empty() {
            return Err(self.invalid(
                &file.tasks.referenced,
                "`tasks` is empty: a plan needs at least one task",
            ));
        }
        let mut v = *self;
        if let Some(a) = &policy_file.suite_alpha {
            if !(a.value.0 > 0.0 && a.value.0 < 0.5) {
                return Err(self.invalid(
                    &a.referenced,
                    format!(
                        "`policy.suite_alpha` must be strictly between 0 and 0.5, got {}",
                        a.value.0
                    ),
                ));
            }
            v.suite = Some(SuiteAlpha::new(a.value.0, file.tasks.value.len() as u64));
        }
        let this = &v;
        // The top-level `sampling:` first: a bad rate there is the plan's, not the first
        // task's that inherits it (the task's validation would name the task).
        let default_rule = file
            .sampling
            .as_ref()
            .map(|s| this.rule(s, TOP_LEVEL, &policy_file))
            .transpose()
            .map_err(top_level_error)?;
        let mut ids = BTreeSet::new();
        let mut tasks = Vec::new();
        let mut selections = Vec::new();
        for entry in &file.tasks.value {
            let id = if entry.value.junit.is_some() {
                let s = this.selection(entry, file.sampling.as_ref(), &policy_file)?;
                let id = s.id.clone();
                selections.push(s);
                id
            } else {
                let mut task = this.task(entry, file.sampling.as_ref(), &policy_file)?;
                let spec = this.sampling_entry(entry, file.sampling.as_ref(), &task.id)?;
                let rule = this.rule(spec, &task.id, &policy_file)?.compare;
                this.compare_side(
                    &mut task,
                    rule,
                    &spec.referenced,
                    entry.value.base.as_ref(),
                    file.base.as_ref(),
                )?;
                let id = task.id.clone();
                tasks.push(task);
                id
            };
            if !ids.insert(id.clone()) {
                return Err(self.invalid(
                    &entry.value.id.referenced,
                    format!("duplicate task id `{id}`: ids must be unique"),
                ));
            }
        }
        // A task id that is the JUnit name of a suite's passing cases would give a report two
        // test suites of that name, one of them synthetic (review 6, a18).
        for entry in &file.tasks.value {
            let id = entry.value.id.value.trim();
            if let Some(suite) = tasks
                .iter()
                .filter(|t| t.suite().is_some())
                .find(|t| super::suite::passing_cases_suite(&t.id) == id)
            {
                return Err(self.invalid(
                    &entry.value.id.referenced,
                    format!(
                        "task id `{id}` is the name JUnit reports give the passing cases of suite task `{}` (a suite of more than 50 cases): rename the task",
                        suite.id
                    ),
                ));
            }
        }
        self.bounds(&policy_at, &policy, &file.tasks.value, &tasks)?;
        Ok(Plan {
            path: PathBuf::new(),
            hash: String::new(),
            fixture_hash: String::new(),
            fixture_files: Vec::new(),
            tasks,
            selections,
            default_rule,
            policy,
            stage: None,
            after: Vec::new(),
        })
    }

    pub(super) fn policy(&self, p: &schema::PolicyFile) -> Result<Policy, PlanError> {
        let jobs = match &p.jobs {
            Some(j) if j.value == 0 => {
                return Err(self.invalid(&j.referenced, "`policy.jobs` must be at least 1"));
            }
            Some(j) => j.value,
            None => 1,
        };
        let mut redact = Vec::new();
        for pat in &p.redact {
            let re = regex::Regex::new(&pat.value).map_err(|e| {
                self.invalid(
                    &pat.referenced,
                    format!(
                        "`policy.redact` pattern `{}` is not a valid regular expression: {e}",
                        pat.value
                    ),
                )
            })?;
            redact.push(re);
        }
        let (backoff_min, backoff_max) = match &p.transport.backoff {
            Some(b) if b.value.max.0 < b.value.min.0 => {
                return Err(self.invalid(
                    &b.referenced,
                    "`policy.transport.backoff.max` must be at least `min`",
                ));
            }
            Some(b) => (b.value.min.0, b.value.max.0),
            None => (Duration::from_secs(1), Duration::from_secs(30)),
        };
        let transport_max_retries = match &p.transport.max_retries {
            Some(r) if r.value > MAX_TRANSPORT_RETRIES => {
                return Err(self.invalid(
                    &r.referenced,
                    format!(
                        "`policy.transport.max_retries` must be at most {MAX_TRANSPORT_RETRIES}, got {}",
                        r.value
                    ),
                ));
            }
            Some(r) => r.value,
            None => 0,
        };
        let mut harness_exit_codes = Vec::new();
        for code in &p.harness_exit_codes {
            if code.value == 0 {
                return Err(self.invalid(
                    &code.referenced,
                    "`policy.harness_exit_codes` cannot contain 0: exit 0 is a passing run",
                ));
            }
            if p.transport.exit_codes.contains(&code.value) {
                return Err(self.invalid(
                    &code.referenced,
                    format!(
                        "exit code {} is both in `policy.harness_exit_codes` and in `policy.transport.exit_codes`; a code means one thing",
                        code.value
                    ),
                ));
            }
            harness_exit_codes.push(code.value);
        }
        Ok(Policy {
            timeout: p.timeout,
            transport_exit_codes: p.transport.exit_codes.clone(),
            harness_exit_codes,
            transport_max_retries,
            backoff_min,
            backoff_max,
            on_inconclusive: p.on_inconclusive,
            jobs,
            redact,
            kill_grace: p.kill_grace.map(|d| d.0).unwrap_or(DEFAULT_KILL_GRACE),
            sandbox: self.sandbox(p.sandbox.as_ref())?,
        })
    }

    /// `policy.sandbox`: writable paths resolved against the plan's folder (they must exist:
    /// the box can only grant what is there), variable names checked.
    pub(super) fn sandbox(
        &self,
        s: Option<&schema::SandboxFile>,
    ) -> Result<crate::model::SandboxPolicy, PlanError> {
        use crate::model::{SandboxPolicy, is_withheld};
        let table = match s {
            None => return Ok(SandboxPolicy::default()),
            Some(schema::SandboxFile::Mode(mode)) => {
                return Ok(SandboxPolicy {
                    mode: *mode,
                    ..SandboxPolicy::default()
                });
            }
            Some(schema::SandboxFile::Table(t)) => t,
        };
        let mut writable = Vec::new();
        for w in &table.writable {
            let path = match w.value.strip_prefix("~/") {
                Some(rest) => match std::env::var_os("HOME") {
                    Some(home) => PathBuf::from(home).join(rest),
                    None => {
                        return Err(self.invalid(
                            &w.referenced,
                            format!("`policy.sandbox.writable` `{}`: `HOME` is not set", w.value),
                        ));
                    }
                },
                None => self.dir.join(&w.value),
            };
            if !path.exists() {
                return Err(self.invalid(
                    &w.referenced,
                    format!(
                        "`policy.sandbox.writable` `{}` does not exist (relative to `{}`); create it first",
                        w.value,
                        self.dir.display()
                    ),
                ));
            }
            writable.push(path);
        }
        let mut pass_env = Vec::new();
        for name in &table.pass_env {
            if !is_withheld(&name.value) {
                return Err(self.invalid(
                    &name.referenced,
                    format!(
                        "`policy.sandbox.pass_env` `{}` is not withheld from tasks (only the CI's workflow-command files and tokens are); remove it",
                        name.value
                    ),
                ));
            }
            pass_env.push(name.value.clone());
        }
        Ok(SandboxPolicy {
            mode: table.mode,
            writable,
            pass_env,
            installs: table.installs.0.clone(),
        })
    }

    pub(super) fn command(
        &self,
        spec: &Spanned<CommandSpec>,
        key: &str,
        id: &str,
    ) -> Result<CommandLine, PlanError> {
        match &spec.value {
            CommandSpec::Shell(s) if s.trim().is_empty() => Err(self.invalid(
                &spec.referenced,
                format!("task `{id}`: `{key}` is empty: give a shell command line or an argv list"),
            )),
            CommandSpec::Argv(v) if v.first().is_none_or(|p| p.trim().is_empty()) => Err(self
                .invalid(
                    &spec.referenced,
                    format!("task `{id}`: `{key}` is empty: an argv list needs a program first"),
                )),
            CommandSpec::Shell(s) => Ok(CommandLine::Shell(s.clone())),
            CommandSpec::Argv(v) => Ok(CommandLine::Argv(v.clone())),
        }
    }

    /// A task with `junit: GLOB`: only `id`, `junit` and `sampling` apply.
    pub(super) fn selection(
        &self,
        entry: &Spanned<TaskFile>,
        default_sampling: Option<&Spanned<SamplingSpec>>,
        policy: &schema::PolicyFile,
    ) -> Result<Selection, PlanError> {
        let t = &entry.value;
        let id = t.id.value.trim().to_string();
        let junit = t
            .junit
            .as_ref()
            .expect("selection() is called for `junit:` tasks");
        let extra = [
            ("run", t.run.as_ref().map(|s| &s.referenced)),
            ("check", t.check.as_ref().map(|s| &s.referenced)),
            ("timeout", t.timeout.as_ref().map(|s| &s.referenced)),
            ("cwd", t.cwd.as_ref().map(|s| &s.referenced)),
            ("suite", t.suite.as_ref().map(|s| &s.referenced)),
        ];
        if let Some((key, at)) = extra.iter().find_map(|(k, at)| at.map(|a| (k, a))) {
            return Err(self.invalid(
                at,
                format!("task `{id}` selects JUnit test cases (`junit:`), so `{key}` does not apply: a task has either `run` or `junit`"),
            ));
        }
        if !t.env.is_empty() || !t.fixtures.is_empty() {
            return Err(self.invalid(
                &entry.referenced,
                format!("task `{id}` selects JUnit test cases (`junit:`), so `env` and `fixtures` do not apply"),
            ));
        }
        if t.writes.is_some() {
            return Err(self.invalid(
                &entry.referenced,
                format!("task `{id}` selects JUnit test cases (`junit:`), so `writes` does not apply: no trial runs"),
            ));
        }
        if id.is_empty() || id.chars().any(char::is_control) {
            return Err(self.invalid(
                &t.id.referenced,
                format!(
                    "task id `{}` must be non-empty, without control characters",
                    t.id.value
                ),
            ));
        }
        let pattern = glob::Pattern::new(&junit.value).map_err(|e| {
            self.invalid(
                &junit.referenced,
                format!(
                    "task `{id}`: `junit` glob `{}` is invalid: {e}",
                    junit.value
                ),
            )
        })?;
        let spec = self.sampling_entry(entry, default_sampling, &id)?;
        Ok(Selection {
            line: entry.referenced.line().max(1),
            glob: junit.value.clone(),
            pattern,
            rule: self.rule(spec, &id, policy)?,
            id,
        })
    }

    /// A task's `writes:` folders, checked: each a relative path of plain names (letters,
    /// digits, `-`, `_`, `.`, `+`, `@`; no `..`), an existing folder beneath `cwd` once its
    /// links are resolved. Returned without `./` or a trailing `/`, sorted, once each.
    fn writes(
        &self,
        written: &[Spanned<Option<String>>],
        id: &str,
        cwd: &Path,
        at: &Location,
    ) -> Result<Vec<String>, PlanError> {
        if written.len() > MAX_WRITES {
            return Err(self.invalid(
                at,
                format!(
                    "task `{id}`: `writes` lists {} folders; at most {MAX_WRITES} (name a folder \
                     that holds them)",
                    written.len()
                ),
            ));
        }
        let mut out: Vec<String> = Vec::new();
        for w in written {
            let Some(value) = &w.value else {
                return Err(self.invalid(
                    &w.referenced,
                    format!(
                        "task `{id}`: a `writes` entry is null (`~`): name a folder (`.` is the \
                         whole task folder)"
                    ),
                ));
            };
            let w = Spanned::new(value.clone(), w.referenced, w.defined);
            let fault = writes_fault(&w.value);
            if let Some(why) = fault {
                return Err(self.invalid(
                    &w.referenced,
                    format!(
                        "task `{id}`: `writes` entry `{}` {why}",
                        w.value.escape_debug()
                    ),
                ));
            }
            let path = cwd.join(&w.value);
            let real = std::fs::canonicalize(&path);
            let why = match &real {
                Err(_) => Some("does not exist: create the folder before the run".to_string()),
                Ok(r) if !r.is_dir() => {
                    Some("is not a folder: name the folder the trials write it in".to_string())
                }
                Ok(r) if !r.starts_with(cwd) => Some(format!(
                    "leads outside the task's folder (to `{}`): name a folder there in \
                     `policy.sandbox.writable` instead",
                    r.display()
                )),
                Ok(_) => None,
            };
            if let Some(why) = why {
                return Err(self.invalid(
                    &w.referenced,
                    format!(
                        "task `{id}`: `writes` entry `{}` (in `{}`) {why}",
                        w.value,
                        cwd.display()
                    ),
                ));
            }
            // Recorded, granted and stated as resolved: `dot -> .` is `.`, and `gen ->
            // work/gen` is `work/gen` (review 63, 06, 13).
            let rel = real
                .as_ref()
                .ok()
                .and_then(|r| r.strip_prefix(cwd).ok())
                .map(|r| r.to_string_lossy().into_owned())
                .unwrap_or_default();
            let rel = if rel.is_empty() { ".".to_string() } else { rel };
            if writes_fault(&rel).is_some() {
                return Err(self.invalid(
                    &w.referenced,
                    format!(
                        "task `{id}`: `writes` entry `{}` leads to `{rel}`, a name the entries \
                         may not use; name a folder of plain names",
                        w.value
                    ),
                ));
            }
            if !out.contains(&rel) {
                out.push(rel);
            }
        }
        out.sort();
        Ok(out)
    }

    pub(super) fn task(
        &self,
        entry: &Spanned<TaskFile>,
        default_sampling: Option<&Spanned<SamplingSpec>>,
        policy: &schema::PolicyFile,
    ) -> Result<Task, PlanError> {
        let t = &entry.value;
        let id = t.id.value.trim().to_string();
        // Ids name folders under the run directory: no separators, no `.` or `..`.
        if id.is_empty()
            || id == "."
            || id == ".."
            || id.chars().any(|c| c.is_control() || c == '/' || c == '\\')
        {
            return Err(self.invalid(
                &t.id.referenced,
                format!(
                    "task id `{}` must be non-empty, not `.` or `..`, without `/`, `\\` or control characters",
                    t.id.value
                ),
            ));
        }
        let suite = self.suite(entry, &id, t.sampling.as_ref().or(default_sampling))?;
        let run = t.suite.as_ref().map(|s| &s.value.run).or(t.run.as_ref());
        let run = run.ok_or_else(|| {
            self.invalid(
                &entry.referenced,
                format!(
                    "missing field `run`: task `{id}` needs `run`, or `suite: {{run: …}}` (or, for `gate ingest`, `junit: GLOB`)"
                ),
            )
        })?;
        let run = self.command(run, if suite.is_some() { "suite.run" } else { "run" }, &id)?;
        let check = t
            .check
            .as_ref()
            .map(|c| self.command(c, "check", &id))
            .transpose()?;
        let timeout = match (&t.timeout, &policy.default_timeout) {
            (Some(d), _) | (None, Some(d)) => {
                if d.value.0.is_zero() {
                    return Err(self.invalid(
                        &d.referenced,
                        format!("task `{id}`: `timeout` must be greater than zero"),
                    ));
                }
                d.value.0
            }
            (None, None) => DEFAULT_TIMEOUT,
        };
        let spec = self.sampling_entry(entry, default_sampling, &id)?;
        let ResolvedRule {
            sampling,
            rates,
            designed,
            max_unavailable,
            ..
        } = self.rule(spec, &id, policy)?;
        let cwd = match &t.cwd {
            Some(c) => self.dir.join(&c.value),
            None => self.dir.to_path_buf(),
        };
        if let Some(c) = &t.cwd
            && !cwd.is_dir()
        {
            return Err(self.invalid(
                &c.referenced,
                format!(
                    "task `{id}`: `cwd` `{}` is not a directory (relative to `{}`)",
                    c.value,
                    self.dir.display()
                ),
            ));
        }
        // Trials run in the folder as resolved now: a linked folder the trials re-point
        // later changes nothing (break c1 of issue 29's review).
        let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
        let writes = (t.writes.as_ref())
            .map(|w| self.writes(w, &id, &cwd, &entry.referenced))
            .transpose()?;
        if let (Some(folders), Some(s)) = (&writes, &suite)
            && let Some(results) = &s.results
            && !folders
                .iter()
                .any(|w| w == "." || Path::new(results.trim_start_matches("./")).starts_with(w))
        {
            return Err(self.invalid(
                &entry.referenced,
                format!(
                    "task `{id}`: `suite.results` `{results}` is not in a folder `writes` names, so \
                     the suite could not write it; add its folder to `writes`, or leave \
                     `results` out (gate gives each run a fresh `$GATE_JUNIT` outside the task's \
                     folder)"
                ),
            ));
        }
        Ok(Task {
            id,
            line: entry.referenced.line().max(1),
            sampling,
            rates,
            designed,
            run,
            check,
            check_at: t
                .check
                .as_ref()
                .map(|c| (c.referenced.line().max(1), c.referenced.column().max(1))),
            timeout,
            env: t.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            cwd,
            fixtures: t.fixtures.iter().map(|f| f.value.clone()).collect(),
            writes,
            max_unavailable,
            kind: suite.map_or(TaskKind::Trials, TaskKind::Suite),
        })
    }
}

/// At most this many `writes:` folders per task (each a root of the box's filesystem wall).
pub const MAX_WRITES: usize = 64;

/// Why a `writes:` entry as written is refused, if it is: it must be a relative path of
/// plain names, so that it means one folder beneath the task's and reads safely in every
/// report (terminal, Markdown, JUnit).
pub fn writes_fault(w: &str) -> Option<&'static str> {
    if w.is_empty() {
        return Some("is empty (`.` is the whole task folder)");
    }
    if w.starts_with('/') || w.starts_with('~') {
        return Some("is not relative: name a folder beneath the task's `cwd`");
    }
    if w.split('/').any(|c| c == "..") {
        return Some("has a `..`: name a folder beneath the task's `cwd`");
    }
    if !w
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_.+@/".contains(c))
    {
        return Some("may hold only ASCII letters and digits, `-`, `_`, `.`, `+`, `@` and `/`");
    }
    // Python loads a module's compiled copy from the `__pycache__` beside it when its stamp
    // matches the source's time and size, which a trial can forge: a grader's module would
    // run a trial's code (review 102, a14).
    if w.split('/').any(|c| c == "__pycache__") {
        return Some(
            "is (or lies in) Python's bytecode cache `__pycache__`, where a trial could leave a \
             compiled module that Python runs in place of the source beside it, a grader's \
             included; leave it out (Python skips a cache it cannot write)",
        );
    }
    None
}

/// A plan's `writes:` against the rest of it: the box must stand to narrow it (not under
/// `policy.sandbox: off`), and a compare task's base side must have the same folders beneath
/// its own `cwd` (its trials write those, as head's write head's).
pub(super) fn refuse_unboxed_or_missing_writes(shown: &str, plan: &Plan) -> Result<(), PlanError> {
    let invalid = |task: &Task, message: String| PlanError::Invalid {
        path: shown.to_string(),
        line: task.line,
        column: 1,
        message,
    };
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    // Folders whose trials may make links: `policy.sandbox.writable` and the whole folder
    // of each task without `writes:` (and its base's); and the `writes` folders of every
    // task, where none may.
    // Each with who writes it and how to keep it apart, for the refusal (review 71, 45: the
    // advice named no task, and two tasks sharing a folder went round in circles).
    let mut linked: Vec<(PathBuf, String)> = super::state::sandbox_writable(plan)
        .into_iter()
        .map(|w| {
            let fix = "take it out of `policy.sandbox.writable`, or list it in the task's \
                       `writes:`"
                .to_string();
            (w, format!("`policy.sandbox.writable`; {fix}"))
        })
        .collect();
    // And the folders the box grants every trial whole: a task folder beneath `/dev/shm`
    // would be writable whole through that grant, its `writes:` wall gone (review 69, 06d),
    // and under the mount layer each trial's private `/dev/shm` hides it.
    linked.extend(
        ["/dev/shm", "/dev/pts"]
            .iter()
            .map(Path::new)
            .filter(|p| p.is_dir())
            .map(|p| {
                let why = "the box grants it to every trial; keep the task's folder out of it";
                (real(p), why.to_string())
            }),
    );
    let mut linkless: Vec<(PathBuf, String)> = Vec::new();
    for t in &plan.tasks {
        for cwd in std::iter::once(&t.cwd).chain(t.compare().map(|c| &c.base.cwd)) {
            match &t.writes {
                None => linked.push((
                    real(cwd),
                    format!(
                        "task `{}` writes all of it (it has no `writes:`); give task `{}` the same \
                         `writes:`, or give each task its own `cwd`",
                        t.id, t.id
                    ),
                )),
                Some(_) => linkless.extend(t.write_roots(&real(cwd)).into_iter().map(|r| {
                    let why = format!(
                        "task `{}` lists it in its `writes:`; tasks that share a folder list the \
                         same `writes:`, or give each task its own `cwd`",
                        t.id
                    );
                    (r, why)
                })),
            }
        }
    }
    for t in &plan.tasks {
        let Some(folders) = &t.writes else {
            continue;
        };
        if plan.policy.sandbox.mode == crate::model::SandboxMode::Off {
            return Err(invalid(
                t,
                format!(
                    "task `{}`: `writes` narrows what the box lets the trials write, and \
                     `policy.sandbox: off` turns the box off; drop one of them",
                    t.id
                ),
            ));
        }
        // Other trials' folders (`policy.sandbox.writable`, another task's) that hold this
        // task's folder or lie in it outside its `writes` would write what the report says
        // is read-only (review 64, 02b, 02c); and a `policy.sandbox.writable` folder in a
        // `writes` folder (or the same) would give it back the right to make links (Landlock
        // adds the grants: review 66, 06, 08).
        let sides = std::iter::once(&t.cwd).chain(t.compare().map(|c| &c.base.cwd));
        for cwd in sides {
            let cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.clone());
            let own = t.write_roots(&cwd);
            // Where links may be made, no overlap at all (review 67, 02, 03: another task's
            // folder inside this one's `writes` folder); a `writes` folder of another task
            // only inside this one's.
            let overlaps = |(r, _): &&(PathBuf, String)| cwd.starts_with(r) || r.starts_with(&cwd);
            let other = (linked.iter().find(overlaps)).or_else(|| {
                (linkless.iter())
                    .filter(overlaps)
                    .find(|(r, _)| !own.iter().any(|o| r.starts_with(o)))
            });
            if let Some((r, who)) = other {
                return Err(invalid(
                    t,
                    format!(
                        "task `{}` names the folders its trials write (`writes:`), but other \
                         trials write `{}`, which {} its folder `{}`, so the rest of that folder \
                         would not be read-only: {who}",
                        t.id,
                        r.display(),
                        if cwd.starts_with(r) {
                            "holds"
                        } else {
                            "lies in"
                        },
                        cwd.display()
                    ),
                ));
            }
        }
        let Some(c) = t.compare() else {
            continue;
        };
        let base = std::fs::canonicalize(&c.base.cwd).unwrap_or_else(|_| c.base.cwd.clone());
        for w in folders {
            let real = std::fs::canonicalize(base.join(w));
            let fine = real
                .as_ref()
                .is_ok_and(|r| r.is_dir() && r.starts_with(&base));
            if !fine {
                return Err(invalid(
                    t,
                    format!(
                        "task `{}`: `writes` entry `{w}` is not a folder beneath base's `cwd` \
                         `{}`: base's trials write the same folders of base's checkout as \
                         head's write of head's",
                        t.id,
                        base.display()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// SHA-256 over every fixture file: sorted relative path, NUL, content hash, newline; and
/// the files themselves, in that order.
pub(super) fn fixture_hash(
    shown: &str,
    dir: &Path,
    tasks: &[Task],
) -> Result<(String, Vec<PathBuf>), PlanError> {
    let mut files = BTreeSet::new();
    for task in tasks {
        for pattern in &task.fixtures {
            // `dir/**` is every file beneath `dir`, as in a gitignore-style glob (the glob
            // crate's `**` alone matches folders only: review 5, D1).
            let full = if pattern == "**" || pattern.ends_with("/**") {
                dir.join(format!("{pattern}/*"))
            } else {
                dir.join(pattern)
            };
            let invalid = |message: String| PlanError::Invalid {
                path: shown.to_string(),
                line: task.line,
                column: 1,
                message,
            };
            let paths = glob::glob(&full.to_string_lossy()).map_err(|e| {
                invalid(format!(
                    "task `{}`: fixture glob `{pattern}` is invalid: {e}",
                    task.id
                ))
            })?;
            let mut matched = false;
            for p in paths {
                let p = p.map_err(|e| {
                    invalid(format!("task `{}`: fixture `{pattern}`: {e}", task.id))
                })?;
                if p.is_file() {
                    matched = true;
                    files.insert(p);
                }
            }
            if !matched {
                return Err(invalid(format!(
                    "task `{}`: fixture glob `{pattern}` matches no file (relative to `{}`)",
                    task.id,
                    dir.display()
                )));
            }
        }
    }
    let mut manifest = String::new();
    for f in &files {
        let bytes = std::fs::read(f).map_err(|source| PlanError::Io {
            path: f.display().to_string(),
            source,
        })?;
        let rel = f.strip_prefix(dir).unwrap_or(f);
        manifest.push_str(&format!("{}\0{}\n", rel.display(), sha256_hex(&bytes)));
    }
    Ok((sha256_hex(manifest.as_bytes()), files.into_iter().collect()))
}

/// The id the top-level `sampling:` is validated under; [`top_level_error`] names it as the
/// plan's own key rather than as a task.
const TOP_LEVEL: &str = "sampling";

/// An error of the top-level `sampling:` as the plan's, not a task's: the rule messages say
/// "task `ID`: …", which for the top level would blame a task named `sampling`.
fn top_level_error(e: PlanError) -> PlanError {
    match e {
        PlanError::Invalid {
            path,
            line,
            column,
            message,
        } => PlanError::Invalid {
            path,
            line,
            column,
            message: match message.strip_prefix(&format!("task `{TOP_LEVEL}`: ")) {
                Some(rest) => format!("the top-level `sampling`: {rest}"),
                None => message,
            },
        },
        e => e,
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::{PlanError, validate_text};

    /// `line:column: message` of the refusal of `tasks` under a plan with a top-level rule.
    fn refusal(policy: &str, tasks: &str) -> String {
        let text =
            format!("version: 1\nsampling: {{single: {{n: 3, c: 0}}}}\n{policy}tasks:\n{tasks}");
        match validate_text(&text) {
            Err(PlanError::Invalid {
                line,
                column,
                message,
                ..
            }) => format!("{line}:{column}: {message}"),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    const ONE: &str = "  - {id: a, run: 'true'}\n";

    #[test]
    fn an_empty_task_list_is_refused_at_tasks() {
        let text = "version: 1\nsampling: {single: {n: 3, c: 0}}\ntasks: []\n";
        let Err(e) = validate_text(text) else {
            panic!("an empty plan must be refused");
        };
        assert!(e.to_string().starts_with("plan.yaml:3:"), "{e}");
        assert!(e.to_string().contains("`tasks` is empty"), "{e}");
    }

    #[test]
    fn duplicate_ids_are_refused_at_the_second() {
        let e = refusal("", "  - {id: a, run: 'true'}\n  - {id: a, run: 'true'}\n");
        assert!(e.starts_with("5:"), "{e}");
        assert!(e.contains("duplicate task id `a`"), "{e}");
    }

    /// Review 6, a18: a task with id `s: passing cases` beside a suite task `s` of more than
    /// 50 cases gave the JUnit report two `<testsuite name="s: passing cases">`, the real
    /// task's and the synthetic one holding `s`'s passing cases.
    #[test]
    fn a_task_id_that_is_a_suites_passing_cases_name_is_refused() {
        let e = refusal(
            "",
            "  - {id: s, suite: {run: 'true'}}\n  - {id: 's: passing cases', run: 'false'}\n",
        );
        assert!(e.starts_with("5:"), "{e}");
        assert!(
            e.contains("task id `s: passing cases` is the name JUnit reports give the passing cases of suite task `s`"),
            "{e}"
        );
        // The same words beside no suite of that id are a task id like any other.
        assert!(
            validate_text(
                "version: 1\nsampling: {single: {n: 3, c: 0}}\ntasks:\n  - {id: r, suite: {run: 'true'}}\n  - {id: 's: passing cases', run: 'false'}\n"
            )
            .is_ok()
        );
    }

    #[test]
    fn ids_that_would_escape_the_run_directory_are_refused() {
        for id in ["'..'", "'a/b'", "'.'", "' '"] {
            let e = refusal("", &format!("  - {{id: {id}, run: 'true'}}\n"));
            assert!(
                e.contains("must be non-empty, not `.` or `..`"),
                "{id}: {e}"
            );
        }
    }

    #[test]
    fn empty_commands_are_refused_per_form() {
        let e = refusal("", "  - {id: a, run: '  '}\n");
        assert!(
            e.contains("`run` is empty: give a shell command line"),
            "{e}"
        );
        let e = refusal("", "  - {id: a, run: ['']}\n");
        assert!(e.contains("an argv list needs a program first"), "{e}");
        let e = refusal("", "  - {id: a, run: 'true', check: []}\n");
        assert!(e.contains("`check` is empty"), "{e}");
    }

    #[test]
    fn a_task_without_run_names_the_three_kinds() {
        let e = refusal("", "  - {id: a}\n");
        assert!(
            e.contains("missing field `run`") && e.contains("junit: GLOB"),
            "{e}"
        );
    }

    #[test]
    fn a_zero_timeout_is_refused_in_the_task_and_in_the_policy() {
        let e = refusal("", "  - {id: a, run: 'true', timeout: 0s}\n");
        assert!(e.contains("`timeout` must be greater than zero"), "{e}");
        let e = refusal("policy: {default_timeout: 0s}\n", ONE);
        assert!(e.contains("`timeout` must be greater than zero"), "{e}");
    }

    #[test]
    fn a_cwd_that_is_not_a_directory_is_refused() {
        let e = refusal("", "  - {id: a, run: 'true', cwd: no-such-dir}\n");
        assert!(e.contains("`cwd` `no-such-dir` is not a directory"), "{e}");
    }

    #[test]
    fn policy_values_are_checked_at_their_key() {
        let cases = [
            ("policy: {jobs: 0}\n", "`policy.jobs` must be at least 1"),
            (
                "policy: {redact: ['(']}\n",
                "is not a valid regular expression",
            ),
            (
                "policy: {transport: {backoff: {min: 5s, max: 1s}}}\n",
                "`policy.transport.backoff.max` must be at least `min`",
            ),
            (
                "policy: {transport: {max_retries: 101}}\n",
                "must be at most 100, got 101",
            ),
            (
                "policy: {harness_exit_codes: [0]}\n",
                "cannot contain 0: exit 0 is a passing run",
            ),
            (
                "policy: {harness_exit_codes: [75], transport: {exit_codes: [75]}}\n",
                "a code means one thing",
            ),
        ];
        for (policy, expected) in cases {
            let e = refusal(policy, ONE);
            assert!(e.contains(expected), "{policy}: {e}");
        }
    }

    #[test]
    fn a_junit_selection_refuses_the_keys_of_a_run_task() {
        let e = refusal("", "  - {id: a, junit: 'x.*', run: 'true'}\n");
        assert!(e.contains("so `run` does not apply"), "{e}");
        let e = refusal("", "  - {id: a, junit: 'x.*', env: {K: v}}\n");
        assert!(e.contains("`env` and `fixtures` do not apply"), "{e}");
        let e = refusal(
            "",
            "  - {id: a, junit: '[', sampling: {single: {n: 3, c: 0}}}\n",
        );
        assert!(e.contains("`junit` glob `[` is invalid"), "{e}");
    }

    #[test]
    fn a_task_inherits_the_top_level_rule_and_the_default_budget() {
        let plan = validate_text(&format!(
            "version: 1\nsampling: {{single: {{n: 30, c: 2}}}}\ntasks:\n{ONE}  - {{id: s, junit: 'x.*'}}\n"
        ))
        .unwrap();
        let task = &plan.tasks[0];
        assert_eq!(task.sampling.max_graded(), 30);
        // One unavailable trial per ten graded ones, rounded up.
        assert_eq!(task.max_unavailable, 3);
        assert_eq!(task.timeout, crate::plan::DEFAULT_TIMEOUT);
        assert_eq!(plan.selections[0].id, "s");
        assert!(plan.default_rule.is_some());
    }

    #[test]
    fn a_task_without_any_rule_is_refused_at_the_task() {
        let e = match validate_text("version: 1\ntasks:\n  - {id: a, run: 'true'}\n") {
            Err(e) => e.to_string(),
            Ok(_) => panic!("no rule anywhere must be refused"),
        };
        assert!(e.starts_with("plan.yaml:3:"), "{e}");
        assert!(e.contains("task `a` has no `sampling`"), "{e}");
    }
}
