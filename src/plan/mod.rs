//! Plan files: parse the YAML, validate it, resolve every task's sampling rule → [`Plan`].
//!
//! Syntax and schema errors come from serde-saphyr with file:line:col and a snippet; semantic
//! errors (c >= n, duplicate ids, an empty `run`, a zero timeout, impossible rates) are checked
//! here against the [`serde_saphyr::Spanned`] locations of the offending values, so they read
//! the same way. `design:` rules are designed at load time exactly as `gate plan` would.
//!
//! Paths in a plan (`cwd`, `fixtures`) are relative to the plan file's directory, and commands
//! run there by default, so a plan means the same thing wherever `gate` is started.

pub mod bounds;
pub mod check;
pub mod compare;
pub mod discover;
pub mod schema;
pub mod suite;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_saphyr::{Location, Spanned};

use crate::ledger::{OnInconclusive, Rates, TimeoutPolicy, sha256_hex};
use crate::model::{SequentialRule, Shard};
use crate::sampler::Sampling;
use crate::stats::{self, StatsError};
use schema::{CommandSpec, PlanFile, Rule, SamplingSpec, SequentialKind, TaskFile};
pub use suite::SuiteTask;

/// Default producer's risk of a `design:` or `sequential:` rule.
pub const DEFAULT_ALPHA: f64 = 0.05;
/// Default consumer's risk of a `design:` or `sequential:` rule.
pub const DEFAULT_BETA: f64 = 0.10;
/// Timeout of a task that sets none and whose policy sets no `default_timeout`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// SIGTERM → SIGKILL grace when a process group is stopped.
pub const DEFAULT_KILL_GRACE: Duration = Duration::from_secs(5);
/// Most transport retries a trial may make (they are recorded, never graded).
pub const MAX_TRANSPORT_RETRIES: u32 = 100;

/// A plan file that failed to load. Every variant names the file; most name line and column.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The file could not be read.
    #[error("{path}: cannot read plan file")]
    Io {
        /// The plan file.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// YAML syntax or schema error (unknown field, wrong type, duplicate key).
    #[error("{path}:{line}:{column}: {message}{snippet}")]
    Syntax {
        /// The plan file.
        path: String,
        /// 1-based line.
        line: u64,
        /// 1-based column.
        column: u64,
        /// What was wrong and what was expected.
        message: String,
        /// The offending lines with a caret (starts with a newline), or empty.
        snippet: String,
    },
    /// A value that parses but cannot be run (c >= n, duplicate id, impossible rates, …).
    #[error("{path}:{line}:{column}: {message}")]
    Invalid {
        /// The plan file.
        path: String,
        /// 1-based line.
        line: u64,
        /// 1-based column.
        column: u64,
        /// What was wrong and what is allowed.
        message: String,
    },
}

/// A command ready to spawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandLine {
    /// `sh -c LINE`.
    Shell(String),
    /// Program and arguments.
    Argv(Vec<String>),
}

impl CommandLine {
    /// The command as a person would type it (for display and the ledger header).
    pub fn display(&self) -> String {
        match self {
            CommandLine::Shell(s) => s.clone(),
            CommandLine::Argv(v) => v
                .iter()
                .map(|a| {
                    if a.is_empty()
                        || a.contains(|c: char| c.is_whitespace() || "'\"$\\".contains(c))
                    {
                        format!("'{}'", a.replace('\'', r"'\''"))
                    } else {
                        a.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

/// One validated task.
#[derive(Debug, Clone)]
pub struct Task {
    /// Unique id.
    pub id: String,
    /// Line of the task entry in the plan file.
    pub line: u64,
    /// Resolved rule.
    pub sampling: Sampling,
    /// Rates the rule was designed for, when the plan gave them.
    pub rates: Option<Rates>,
    /// What `design:` produced, in words, to print at the start of a run.
    pub designed: Option<String>,
    /// The agent run.
    pub run: CommandLine,
    /// The state check.
    pub check: Option<CommandLine>,
    /// Per-attempt timeout (run and check each).
    pub timeout: Duration,
    /// Extra environment.
    pub env: Vec<(String, String)>,
    /// Working directory (absolute or relative to where gate runs).
    pub cwd: PathBuf,
    /// Fixture globs as written.
    pub fixtures: Vec<String>,
    /// Unavailable trials tolerated (void pairs, for a compare task).
    pub max_unavailable: u64,
    /// A `compare:` task's rule and base side (head is the task as written).
    pub compare: Option<compare::CompareTask>,
    /// A `suite:` task's result file (its command is `run`): each test case is judged.
    pub suite: Option<SuiteTask>,
}

/// The run policy.
#[derive(Debug, Clone)]
pub struct Policy {
    /// What a timeout counts as.
    pub timeout: TimeoutPolicy,
    /// Exit codes that are transport faults.
    pub transport_exit_codes: Vec<i32>,
    /// Exit codes of `run` that mean the harness failed (the run is a harness error).
    pub harness_exit_codes: Vec<i32>,
    /// Transport retries per trial.
    pub transport_max_retries: u32,
    /// First backoff delay.
    pub backoff_min: Duration,
    /// Largest backoff delay.
    pub backoff_max: Duration,
    /// INCONCLUSIVE → exit 3 or 0.
    pub on_inconclusive: OnInconclusive,
    /// Parallel trials.
    pub jobs: usize,
    /// Redaction patterns.
    pub redact: Vec<regex::Regex>,
    /// SIGTERM → SIGKILL grace.
    pub kill_grace: Duration,
    /// The box around each trial (`policy.sandbox`).
    pub sandbox: crate::model::SandboxPolicy,
}

/// A sampling rule resolved from a `sampling:` entry (or from `gate ingest`'s flags).
#[derive(Debug, Clone)]
pub struct ResolvedRule {
    /// The rule.
    pub sampling: Sampling,
    /// Rates the rule was designed for, when given.
    pub rates: Option<Rates>,
    /// What `design:` produced, in words.
    pub designed: Option<String>,
    /// Unavailable trials tolerated.
    pub max_unavailable: u64,
    /// A `compare:` rule's settings; `sampling` is then its rule on the discordant pairs.
    pub compare: Option<Box<compare::CompareRule>>,
}

/// A plan task that selects JUnit test cases (`junit: GLOB`) for `gate ingest`.
#[derive(Debug, Clone)]
pub struct Selection {
    /// The task's id.
    pub id: String,
    /// Line of the task entry in the plan file.
    pub line: u64,
    /// The glob as written.
    pub glob: String,
    /// The glob, compiled.
    pub pattern: glob::Pattern,
    /// The rule for every test case it selects.
    pub rule: ResolvedRule,
}

/// A validated plan.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The file as given.
    pub path: PathBuf,
    /// Hex SHA-256 of its bytes.
    pub hash: String,
    /// Hex SHA-256 over the fixtures (sorted relative paths and contents).
    pub fixture_hash: String,
    /// Tasks in file order (those with `run`).
    pub tasks: Vec<Task>,
    /// Tasks with `junit: GLOB` instead of `run`, in file order (for `gate ingest`).
    pub selections: Vec<Selection>,
    /// The top-level `sampling:`, resolved: `gate ingest` applies it to the test cases no
    /// selection matches.
    pub default_rule: Option<ResolvedRule>,
    /// Policy.
    pub policy: Policy,
    /// The stage this run runs (`gate run --stage S`, after [`Plan::select_stage`]); the
    /// ledger header records it.
    pub stage: Option<u64>,
}

impl Plan {
    /// Run only stage `stage` of the plan's staged run (`gate run --stage S`). Every task
    /// takes part: a staged rule with its stage-S ordinals, a single (n, c) plan whole in
    /// stage 1 (its n trials are needed whatever happens, so they run in the first round and
    /// its verdict is known there). A fully sequential rule (it decides trial by trial) or a
    /// `compare:` or `suite:` task cannot run in stages and is refused. `stage` must be one some task can
    /// reach; later stages than a truncation allow only make up for unavailable trials, so
    /// the limit counts the unavailable budget too.
    pub fn select_stage(&mut self, stage: u64) -> Result<(), String> {
        let mut most = 0;
        for task in &self.tasks {
            if task.suite.is_some() {
                return Err(format!(
                    "`--stage {stage}`: task `{}` is a suite, whose test cases cannot run in stages; \
                     leave it out of the staged run with `--task ID`",
                    task.id
                ));
            }
            let b = task
                .sampling
                .stage_length()
                .filter(|_| task.compare.is_none());
            let Some(b) = b else {
                return Err(format!(
                    "`--stage {stage}`: task `{}` has no staged rule; add `stage: B` to its `sequential:` sampling, \
                     or leave it out of the staged run with `--task ID`",
                    task.id
                ));
            };
            most = most.max(crate::stats::staged::stage_of(
                b,
                task.sampling
                    .max_graded()
                    .saturating_add(task.max_unavailable),
            ));
        }
        if stage == 0 || stage > most {
            return Err(match self.tasks.as_slice() {
                [task] => format!(
                    "`--stage {stage}`: task `{}` runs stages 1 to {most} (stages of {} trials)",
                    task.id,
                    task.sampling.stage_length().unwrap_or(0)
                ),
                _ => format!("`--stage {stage}`: the tasks of this plan run stages 1 to {most}"),
            });
        }
        self.stage = Some(stage);
        Ok(())
    }

    /// Keep only the tasks named in `ids` (`gate run --task`, in file order); none named
    /// keeps them all. An unknown id is an error that lists the plan's tasks.
    pub fn retain_tasks(&mut self, ids: &[String]) -> Result<(), String> {
        if let Some(id) = ids
            .iter()
            .find(|id| !self.tasks.iter().any(|t| &t.id == *id))
        {
            let known: Vec<String> = self.tasks.iter().map(|t| format!("`{}`", t.id)).collect();
            return Err(format!(
                "`--task {id}`: no such task in `{}` (tasks: {})",
                self.path.display(),
                known.join(", ")
            ));
        }
        if !ids.is_empty() {
            self.tasks.retain(|t| ids.contains(&t.id));
        }
        Ok(())
    }

    /// Whether `shard` can split this plan's tasks: no more shards than the largest task
    /// has trials (a shard owning no trial is a typo, not a plan), and no sequential task
    /// (it decides trial by trial in ordinal order, on one machine).
    pub fn check_shard(&self, shard: Shard) -> Result<(), String> {
        let most = self
            .tasks
            .iter()
            .map(|t| t.sampling.max_graded())
            .max()
            .unwrap_or(0);
        // A staged run shards one stage: no more shards than the largest stage has trials.
        let most = match self.stage {
            Some(_) => self
                .tasks
                .iter()
                .filter_map(|t| t.sampling.stage_length())
                .max()
                .unwrap_or(0),
            None => most,
        };
        if shard.m > most {
            return Err(format!(
                "`--shard {}/{}`: more shards than trials (the largest {} {most}); use at most {most} shards",
                shard.k,
                shard.m,
                if self.stage.is_some() {
                    "stage has"
                } else {
                    "task runs"
                }
            ));
        }
        if let Some(t) = self
            .tasks
            .iter()
            .find(|t| matches!(t.sampling, Sampling::Sequential { .. }))
            .filter(|_| self.stage.is_none())
        {
            if t.compare.is_some() {
                // Both sides of a pair run on one machine, at once, so drift hits both.
                return Err(format!(
                    "`--shard {}/{}`: task `{}` uses a `compare:` rule, which runs both sides of each pair together \
                     on one machine and decides pair by pair in pair order, so it cannot be split across machines; \
                     run it unsharded (a sharded run can pick the other tasks with `--task ID`)",
                    shard.k, shard.m, t.id
                ));
            }
            return Err(format!(
                "`--shard {}/{}`: task `{}` uses a sequential plan, which decides trial by trial in ordinal order and \
                 cannot be split across machines; shard only single (n, c) plans or the stages of a staged rule \
                 (`stage:` and `gate run --stage S`), or run this task unsharded",
                shard.k, shard.m, t.id
            ));
        }
        Ok(())
    }

    /// Read, parse and validate a plan file.
    pub fn load(path: &Path) -> Result<Plan, PlanError> {
        let shown = path.display().to_string();
        let bytes = crate::input::read_regular(path, bounds::MAX_PLAN_BYTES).map_err(|source| {
            PlanError::Io {
                path: shown.clone(),
                source,
            }
        })?;
        let text = String::from_utf8(bytes.clone()).map_err(|e| PlanError::Invalid {
            path: shown.clone(),
            line: 1,
            column: 1,
            message: format!("plan file is not UTF-8 ({e})"),
        })?;
        let file: PlanFile =
            serde_saphyr::from_str(&text).map_err(|e| syntax_error(&shown, &text, &e))?;
        bounds::version_literal(&shown, &text, &file.version)?;
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        let mut plan = Validator {
            path: &shown,
            dir: &dir,
            suite: None,
        }
        .plan(file)?;
        plan.path = path.to_path_buf();
        plan.hash = sha256_hex(&bytes);
        plan.fixture_hash = fixture_hash(&shown, &dir, &plan.tasks)?;
        Ok(plan)
    }
}

/// Resolve a sampling rule given outside a plan file (the flags of `gate ingest`) with the
/// same validation and design as a plan's `sampling:`. `what` names the rule in messages.
pub fn resolve_rule(spec: SamplingSpec, what: &str) -> Result<ResolvedRule, String> {
    let v = Validator {
        path: "command line",
        dir: Path::new("."),
        suite: None,
    };
    let spanned = Spanned::new(spec, Location::UNKNOWN, Location::UNKNOWN);
    v.rule(&spanned, what, &schema::PolicyFile::default())
        .map_err(|e| match e {
            PlanError::Invalid { message, .. } => message,
            other => other.to_string(),
        })
}

/// Turn a serde-saphyr error into file:line:col + message + snippet.
fn syntax_error(path: &str, text: &str, e: &serde_saphyr::Error) -> PlanError {
    let (line, column) = e
        .location()
        .filter(|l| *l != Location::UNKNOWN)
        .map(|l| (l.line(), l.column()))
        .unwrap_or((1, 1));
    let rendered = e.to_string();
    let mut lines = rendered.lines();
    let first = lines.next().unwrap_or_default();
    // serde-saphyr renders "error: line L column C: message"; keep only the message.
    let message = first
        .strip_prefix("error: ")
        .unwrap_or(first)
        .split_once(": ")
        .filter(|(head, _)| head.starts_with("line "))
        .map(|(_, m)| m)
        .unwrap_or(first)
        .to_string();
    // Serde names the missing key only; add what that mapping takes, judged from the text
    // before the error (the nearest enclosing key such as `design:`).
    let before: String = text
        .lines()
        .take(usize::try_from(line).unwrap_or(usize::MAX))
        .enumerate()
        .map(|(i, l)| {
            if i + 1 == usize::try_from(line).unwrap_or(0) {
                l.chars()
                    .take(usize::try_from(column).unwrap_or(0))
                    .collect::<String>()
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let message = match message
        .strip_prefix("missing field `")
        .and_then(|m| m.strip_suffix('`'))
        .and_then(|field| schema::missing_field_hint(field, &before))
    {
        Some(hint) => format!("{message}: {hint}"),
        None => message,
    };
    // A misspelt key or value: name the nearest accepted spelling.
    let message = match crate::suggest::for_serde_message(&message) {
        Some(hint) => format!("{message}; {hint}"),
        None => message,
    };
    let rest: Vec<&str> = lines.collect();
    let snippet = if rest.is_empty() {
        String::new()
    } else {
        format!("\n{}", rest.join("\n").replace("<input>", path))
    };
    PlanError::Syntax {
        path: path.to_string(),
        line,
        column,
        message,
        snippet,
    }
}

#[derive(Clone, Copy)]
struct Validator<'a> {
    path: &'a str,
    dir: &'a Path,
    /// `policy.suite_alpha` turned into each designed task's alpha.
    suite: Option<SuiteAlpha>,
}

/// `policy.suite_alpha` and what it means per task (Šidák): with k tasks each at
/// `1 - (1 - suite_alpha)^(1/k)`, a healthy suite whose every rule is designed this way fails
/// somewhere with probability at most `suite_alpha` (independent tasks).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SuiteAlpha {
    /// The suite-wide producer's risk asked for.
    pub suite_alpha: f64,
    /// Tasks in the plan.
    pub tasks: u64,
    /// Each designed task's alpha.
    pub per_task: f64,
}

impl SuiteAlpha {
    /// Šidák's per-task alpha for `tasks` tasks. `1 - (1 - a)^(1/k)` is computed as
    /// `-expm1(ln_1p(-a) / k)` so a small suite_alpha keeps its precision.
    pub fn new(suite_alpha: f64, tasks: u64) -> Self {
        let k = tasks.max(1) as f64;
        SuiteAlpha {
            suite_alpha,
            tasks,
            per_task: -((-suite_alpha).ln_1p() / k).exp_m1(),
        }
    }
}

impl Validator<'_> {
    fn invalid(&self, at: &Location, message: impl Into<String>) -> PlanError {
        PlanError::Invalid {
            path: self.path.to_string(),
            line: at.line().max(1),
            column: at.column().max(1),
            message: message.into(),
        }
    }

    fn plan(&self, file: PlanFile) -> Result<Plan, PlanError> {
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
        let default_rule = file
            .sampling
            .as_ref()
            .map(|s| self.rule(s, "sampling", &policy_file))
            .transpose()?;
        self.bounds(&policy_at, &policy, &file.tasks.value, &tasks)?;
        Ok(Plan {
            path: PathBuf::new(),
            hash: String::new(),
            fixture_hash: String::new(),
            tasks,
            selections,
            default_rule,
            policy,
            stage: None,
        })
    }

    fn policy(&self, p: &schema::PolicyFile) -> Result<Policy, PlanError> {
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
    fn sandbox(
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
        })
    }

    fn command(
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

    /// The task's own `sampling:`, else the plan's top-level one; neither is an error at the
    /// task.
    fn sampling_entry<'a>(
        &self,
        entry: &'a Spanned<TaskFile>,
        default_sampling: Option<&'a Spanned<SamplingSpec>>,
        id: &str,
    ) -> Result<&'a Spanned<SamplingSpec>, PlanError> {
        entry.value.sampling.as_ref().or(default_sampling).ok_or_else(|| {
            self.invalid(
                &entry.referenced,
                format!("task `{id}` has no `sampling` and the plan sets none at the top level; add e.g. `sampling: {{single: {{n: 20, c: 3}}}}`"),
            )
        })
    }

    /// A resolved rule with the policy's unavailable budget.
    fn rule(
        &self,
        spec: &Spanned<SamplingSpec>,
        id: &str,
        policy: &schema::PolicyFile,
    ) -> Result<ResolvedRule, PlanError> {
        if let SamplingSpec::Compare { .. } = spec.value {
            return self.compare_rule(spec, id, policy);
        }
        let (sampling, rates, designed) = self.sampling(spec, id)?;
        let max_unavailable = policy
            .max_unavailable
            .unwrap_or_else(|| sampling.max_graded().div_ceil(10));
        Ok(ResolvedRule {
            sampling,
            rates,
            designed,
            max_unavailable,
            compare: None,
        })
    }

    /// A task with `junit: GLOB`: only `id`, `junit` and `sampling` apply.
    fn selection(
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

    fn task(
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
        Ok(Task {
            id,
            line: entry.referenced.line().max(1),
            sampling,
            rates,
            designed,
            run,
            check,
            timeout,
            env: t.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            cwd,
            fixtures: t.fixtures.iter().map(|f| f.value.clone()).collect(),
            max_unavailable,
            compare: None,
            suite,
        })
    }

    /// A sequential rule's truncation: as given (bounded), or twice the equal-risk single
    /// plan's n.
    #[allow(clippy::too_many_arguments)]
    fn max_trials(
        &self,
        at: &Location,
        id: &str,
        given: Option<u64>,
        healthy: f64,
        regressed: f64,
        alpha: f64,
        beta: f64,
    ) -> Result<u64, PlanError> {
        // Rates and risks first, with the same messages as `gate plan`.
        stats::check_rates(healthy, regressed, alpha, beta)
            .map_err(|e| self.stats_error(at, id, e))?;
        match given {
            Some(m) => stats::check_trials("max_trials", m)
                .map(|()| m)
                .map_err(|e| self.stats_error(at, id, e)),
            None => stats::sprt::default_max_trials(healthy, regressed, alpha, beta).map_err(|e| {
                self.invalid(
                    at,
                    format!(
                        "task `{id}`: cannot choose a default `max_trials` (twice the single plan's n): {e}; set `max_trials`"
                    ),
                )
            }),
        }
    }

    fn stats_error(&self, at: &Location, id: &str, e: StatsError) -> PlanError {
        self.invalid(at, format!("task `{id}`: {e}"))
    }

    /// Resolve a sequential rule: validate, then design the calibrated lattice or take
    /// Wald's thresholds. Returns the rule and a sentence on what was designed.
    fn sequential(
        &self,
        at: &Location,
        id: &str,
        rates: Rates,
        max_trials: Option<u64>,
        kind: SequentialKind,
    ) -> Result<(Sampling, String), PlanError> {
        let Rates {
            healthy,
            regressed,
            alpha,
            beta,
        } = rates;
        let max_trials = self.max_trials(at, id, max_trials, healthy, regressed, alpha, beta)?;
        let (rule, risks) = match kind {
            SequentialKind::Wald => {
                // Refuses a truncation too short to ever reach PASS or FAIL.
                stats::sprt::Sprt::new(healthy, regressed, alpha, beta, max_trials)
                    .and_then(|sprt| sprt.check_reachable())
                    .map_err(|e| self.stats_error(at, id, e))?;
                (SequentialRule::Wald, None)
            }
            SequentialKind::Calibrated => {
                let d = stats::calibrated::design_calibrated(
                    healthy,
                    regressed,
                    alpha,
                    beta,
                    Some(max_trials),
                )
                .map_err(|e| self.stats_error(at, id, e))?;
                (
                    SequentialRule::Calibrated {
                        lattice: d.boundaries,
                    },
                    Some((d.at_healthy, d.at_regressed)),
                )
            }
        };
        let sampling = Sampling::Sequential {
            healthy,
            regressed,
            alpha,
            beta,
            max_trials,
            rule,
        };
        // The one constructor checks the spec once more as a whole and builds the lattice
        // the run will decide with; its OC is what the sentence below promises.
        let lattice = sampling
            .lattice()
            .map_err(|e| self.stats_error(at, id, e))?;
        let (h, r) = risks.unwrap_or_else(|| (lattice.oc(healthy), lattice.oc(regressed)));
        let words = format!(
            "designed {} (P(pass | {healthy}) = {:.4}, P(pass | {regressed}) = {:.4}, ASN {:.1} / {:.1})",
            sampling.describe(),
            h.p_pass,
            r.p_pass,
            h.asn,
            r.asn
        );
        Ok((sampling, words))
    }

    /// Resolve a staged rule (`stage:` in a `sequential:` block): the calibrated staged
    /// design, or Wald's thresholds consulted only at stage ends. `limits` is
    /// (stage, max_stages, max_trials) as written.
    fn staged(
        &self,
        at: &Location,
        id: &str,
        rates: Rates,
        limits: (u64, Option<u64>, Option<u64>),
        kind: SequentialKind,
    ) -> Result<(Sampling, String), PlanError> {
        let (stage, max_stages, given) = limits;
        let Rates {
            healthy,
            regressed,
            alpha,
            beta,
        } = rates;
        stats::staged::check_stage(stage).map_err(|e| self.stats_error(at, id, e))?;
        if max_stages == Some(0) {
            return Err(self.invalid(at, format!("task `{id}`: `max_stages` must be at least 1")));
        }
        // Rates and risks first; then the default truncation in whole stages.
        stats::sprt::Sprt::new(healthy, regressed, alpha, beta, 1)
            .map_err(|e| self.stats_error(at, id, e))?;
        let single_n = stats::design::design_single(healthy, regressed, alpha, beta)
            .ok()
            .map(|d| d.n);
        let max_trials = stats::staged::staged_max_trials(single_n, stage, given, max_stages)
            .ok_or_else(|| {
                self.invalid(
                    at,
                    format!("task `{id}`: cannot choose a default `max_trials`; set `max_stages`"),
                )
            })?;
        let max_trials =
            self.max_trials(at, id, Some(max_trials), healthy, regressed, alpha, beta)?;
        let (wald, lattice, h, r) = match kind {
            SequentialKind::Wald => {
                let sprt = stats::sprt::Sprt::new(healthy, regressed, alpha, beta, max_trials)
                    .and_then(|sprt| sprt.check_reachable().map(|()| sprt))
                    .map_err(|e| self.stats_error(at, id, e))?;
                let b = stats::staged::wald_staged(&sprt, stage);
                let (h, r) = (b.oc(healthy), b.oc(regressed));
                (true, b, h, r)
            }
            SequentialKind::Calibrated => {
                let d = stats::staged::design_staged(
                    healthy,
                    regressed,
                    alpha,
                    beta,
                    stage,
                    Some(max_trials),
                )
                .map_err(|e| self.stats_error(at, id, e))?;
                (false, d.boundaries, d.at_healthy, d.at_regressed)
            }
        };
        // The design may stop sooner than asked (the single plan at stage ends it falls back
        // on ends at its n): the recorded truncation is the lattice's own.
        let max_trials = lattice.max_trials();
        let stages = |p: f64| stats::staged::expected_stages(&lattice, stage, p);
        let (sh, sr) = (stages(healthy), stages(regressed));
        let sampling = Sampling::Sequential {
            healthy,
            regressed,
            alpha,
            beta,
            max_trials,
            rule: SequentialRule::Staged {
                stage,
                wald,
                lattice,
            },
        };
        let words = format!(
            "designed {} (P(pass | {healthy}) = {:.4}, P(pass | {regressed}) = {:.4}, ASN {:.1} / {:.1}, stages {:.2} / {:.2})",
            sampling.describe(),
            h.p_pass,
            r.p_pass,
            h.asn,
            r.asn,
            sh,
            sr
        );
        Ok((sampling, words))
    }

    /// `policy.suite_alpha` holds only if each task's EXACT alpha (P(not PASS | healthy),
    /// which bounds P(FAIL | healthy) too) is within its Šidák share. The calibrated rule
    /// meets it by design; Wald's thresholds do not bound the exact risk (the audit: five
    /// `rule: wald` tasks failed a healthy suite with probability 0.0576 against 0.05), so a
    /// rule whose realised alpha is above the share is refused, with the numbers.
    fn suite_share(
        &self,
        at: &Location,
        id: &str,
        sampling: &Sampling,
        healthy: f64,
    ) -> Result<(), PlanError> {
        let (Some(s), Ok(lattice)) = (self.suite, sampling.lattice()) else {
            return Ok(());
        };
        let realised = 1.0 - lattice.oc(healthy).p_pass;
        if realised <= s.per_task {
            return Ok(());
        }
        Err(self.invalid(
            at,
            format!(
                "task `{id}`: `policy.suite_alpha` {} gives each of {} tasks an alpha of {:.6}, \
                 but this rule's exact P(not PASS | healthy) is {realised:.6}, so the suite's \
                 alpha would not hold; use `rule: calibrated` (the default, exact within the \
                 request) or remove `policy.suite_alpha`",
                s.suite_alpha, s.tasks, s.per_task
            ),
        ))
    }

    /// A designed rule's alpha: as written, else from `policy.suite_alpha`, else the default.
    /// Both at once is refused: which one holds would be a guess.
    fn alpha(&self, at: &Location, id: &str, given: Option<f64>) -> Result<f64, PlanError> {
        match (given, self.suite) {
            (Some(_), Some(_)) => Err(self.invalid(
                at,
                format!(
                    "task `{id}`: `alpha` and `policy.suite_alpha` both set the producer's risk; \
                     remove one"
                ),
            )),
            (Some(a), None) => Ok(a),
            // Name the setting the user wrote: a per-task alpha below the design minimum
            // comes from suite_alpha and the task count, not from an `alpha` they never set.
            (None, Some(s)) if s.per_task < stats::MIN_RISK => Err(self.invalid(
                at,
                format!(
                    "task `{id}`: `policy.suite_alpha` {} over {} tasks gives each task an \
                     alpha of {:.2e}, below the minimum of 0.000001 (one in a million); raise \
                     `policy.suite_alpha` or split the suite",
                    s.suite_alpha, s.tasks, s.per_task
                ),
            )),
            (None, Some(s)) => Ok(s.per_task),
            (None, None) => Ok(DEFAULT_ALPHA),
        }
    }

    fn sampling(
        &self,
        spec: &Spanned<SamplingSpec>,
        id: &str,
    ) -> Result<(Sampling, Option<Rates>, Option<String>), PlanError> {
        let at = &spec.referenced;
        match spec.value {
            SamplingSpec::Compare { .. } => {
                let r = self.compare_rule(spec, id, &schema::PolicyFile::default())?;
                Ok((r.sampling, None, r.designed))
            }
            SamplingSpec::Single { n, c } => {
                if self.suite.is_some() {
                    // Its alpha depends on a healthy rate the plan does not state.
                    return Err(self.invalid(
                        at,
                        format!(
                            "task `{id}`: `policy.suite_alpha` cannot hold with a fixed \
                             `single: {{n: {n}, c: {c}}}` rule, whose alpha depends on a healthy \
                             rate the plan does not give; design it (`design: {{healthy, \
                             regressed}}`) or remove `policy.suite_alpha`"
                        ),
                    ));
                }
                let sampling = Sampling::Single { n, c };
                sampling.rule().map_err(|e| self.stats_error(at, id, e))?;
                Ok((sampling, None, None))
            }
            SamplingSpec::Sequential {
                healthy,
                regressed,
                alpha,
                beta,
                max_trials,
                rule,
                stage,
                max_stages,
            } => {
                let (healthy, regressed) = (healthy.0, regressed.0);
                let from_suite = alpha.is_none();
                let alpha = self.alpha(at, id, alpha.map(|r| r.0))?;
                let beta = beta.map_or(DEFAULT_BETA, |r| r.0);
                let rates = Rates {
                    healthy,
                    regressed,
                    alpha,
                    beta,
                };
                let (sampling, words) = match (stage, max_stages) {
                    (None, Some(_)) => {
                        return Err(self.invalid(
                            at,
                            format!("task `{id}`: `max_stages` needs `stage` (trials per stage)"),
                        ));
                    }
                    (None, None) => {
                        self.sequential(at, id, rates, max_trials, rule.unwrap_or_default())?
                    }
                    (Some(stage), max_stages) => self.staged(
                        at,
                        id,
                        rates,
                        (stage, max_stages, max_trials),
                        rule.unwrap_or_default(),
                    )?,
                };
                if from_suite {
                    self.suite_share(at, id, &sampling, healthy)?;
                }
                let note = self
                    .suite
                    .filter(|_| from_suite)
                    .map(|s| suite_words(&words, s));
                Ok((sampling, Some(rates), note))
            }
            SamplingSpec::Design {
                healthy,
                regressed,
                alpha,
                beta,
                rule,
                max_trials,
            } => {
                let (healthy, regressed) = (healthy.0, regressed.0);
                let from_suite = alpha.is_none() && self.suite.is_some();
                let alpha = self.alpha(at, id, alpha.map(|r| r.0))?;
                let beta = beta.map_or(DEFAULT_BETA, |r| r.0);
                let rates = Rates {
                    healthy,
                    regressed,
                    alpha,
                    beta,
                };
                match rule {
                    Rule::Single if max_trials.is_some() => Err(self.invalid(
                        at,
                        format!("task `{id}`: `max_trials` applies to `rule: sequential` only; a single plan's n is designed"),
                    )),
                    Rule::Single => {
                        let d = stats::design::design_single(healthy, regressed, alpha, beta)
                            .map_err(|e| self.stats_error(at, id, e))?;
                        let words = format!(
                            "designed single plan: {} (P(pass | {healthy}) = {:.4}, P(pass | {regressed}) = {:.4})",
                            Sampling::Single { n: d.n, c: d.c }.describe(),
                            d.p_pass_healthy,
                            d.p_pass_regressed
                        );
                        let words = match self.suite.filter(|_| from_suite) {
                            Some(suite) => suite_words(&words, suite),
                            None => words,
                        };
                        Ok((
                            Sampling::Single { n: d.n, c: d.c },
                            Some(rates),
                            Some(words),
                        ))
                    }
                    Rule::Sequential | Rule::Calibrated | Rule::Wald => {
                        let kind = if rule == Rule::Wald {
                            SequentialKind::Wald
                        } else {
                            SequentialKind::Calibrated
                        };
                        let (sampling, words) =
                            self.sequential(at, id, rates, max_trials, kind)?;
                        if from_suite {
                            self.suite_share(at, id, &sampling, healthy)?;
                        }
                        let words = match self.suite.filter(|_| from_suite) {
                            Some(suite) => suite_words(&words, suite),
                            None => words,
                        };
                        Ok((sampling, Some(rates), Some(words)))
                    }
                }
            }
        }
    }
}

/// A designed rule's words with the per-task alpha that `policy.suite_alpha` gave it.
fn suite_words(words: &str, s: SuiteAlpha) -> String {
    format!(
        "{words}; alpha {:.6} per task from `policy.suite_alpha` {} over {} tasks (Šidák: \
         1 - (1 - {})^(1/{}))",
        s.per_task, s.suite_alpha, s.tasks, s.suite_alpha, s.tasks
    )
}

/// SHA-256 over every fixture file: sorted relative path, NUL, content hash, newline.
fn fixture_hash(shown: &str, dir: &Path, tasks: &[Task]) -> Result<String, PlanError> {
    let mut files = BTreeSet::new();
    for task in tasks {
        for pattern in &task.fixtures {
            let full = dir.join(pattern);
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
    Ok(sha256_hex(manifest.as_bytes()))
}
