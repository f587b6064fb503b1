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
pub mod compare_rule;
pub mod discover;
pub mod family;
mod grammar;
mod invoke;
mod makefile;
mod programs;
pub mod reach;
mod sampling;
pub mod schema;
mod site;
pub mod state;
pub mod suite;
mod tasks;
mod tools;
mod words;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_saphyr::{Location, Spanned};

use crate::ledger::sha256_hex;
use crate::model::{OnInconclusive, Rates, Sampling, Shard, TimeoutPolicy};
use crate::stats::StatsError;
pub use sampling::SuiteAlpha;
use schema::{PlanFile, SamplingSpec};
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

impl PlanError {
    /// An [`PlanError::Invalid`] at the start of a task's line (`line`) of plan `path`: the
    /// refusals of a task's command lines and environment.
    pub(super) fn at_task(path: &str, line: u64, message: String) -> PlanError {
        PlanError::Invalid {
            path: path.to_string(),
            line,
            column: 1,
            message,
        }
    }

    /// An [`PlanError::Invalid`] at the `check:` value (head's or base's, whichever `check`
    /// is) of task `t`, or at the task's line when the plan gave none.
    pub(super) fn at_check(
        path: &str,
        t: &Task,
        check: &CommandLine,
        message: String,
    ) -> PlanError {
        let (line, column) = t.check_at_of(check);
        PlanError::Invalid {
            path: path.to_string(),
            line,
            column,
            message,
        }
    }
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
    /// Line and column of the `check:` value in the plan file, where a refusal of the line
    /// points.
    pub check_at: Option<(u64, u64)>,
    /// Per-attempt timeout (run and check each).
    pub timeout: Duration,
    /// Extra environment.
    pub env: Vec<(String, String)>,
    /// Working directory (absolute or relative to where gate runs).
    pub cwd: PathBuf,
    /// Fixture globs as written.
    pub fixtures: Vec<String>,
    /// The folders beneath `cwd` the trials write (`writes:`, relative, as validated); `None`:
    /// the whole `cwd`.
    pub writes: Option<Vec<String>>,
    /// Unavailable trials tolerated (void pairs, for a compare task).
    pub max_unavailable: u64,
    /// What one run of the task is and what its outcome is read from.
    pub kind: TaskKind,
}

/// The kinds of task, one variant each: what one run is and what its outcome is read from.
/// The runner dispatches on it ([`crate::runner::run_plan`]).
#[derive(Debug, Clone)]
pub enum TaskKind {
    /// Each run is one trial: its exit and its `check:` are the outcome.
    Trials,
    /// `compare:`: head (the task as written) against base, one trial of each per pair.
    Compare(compare_rule::CompareTask),
    /// `suite:`: each run writes a result file (its command is `run`) and each test case in
    /// it is judged.
    Suite(SuiteTask),
    /// `suite:` with `compare:`: each test case, head against base.
    SuiteCompare(SuiteTask, compare_rule::CompareTask),
}

impl TaskKind {
    /// The `compare:` part (rule and base side) of a compare task or compare suite.
    pub fn compare(&self) -> Option<&compare_rule::CompareTask> {
        match self {
            TaskKind::Compare(c) | TaskKind::SuiteCompare(_, c) => Some(c),
            TaskKind::Trials | TaskKind::Suite(_) => None,
        }
    }

    /// The `suite:` part (result file and reader) of a suite task or compare suite.
    pub fn suite(&self) -> Option<&SuiteTask> {
        match self {
            TaskKind::Suite(s) | TaskKind::SuiteCompare(s, _) => Some(s),
            TaskKind::Trials | TaskKind::Compare(_) => None,
        }
    }

    /// This kind with a `compare:` part added: a task becomes a compare task, a suite a
    /// compare suite.
    fn with_compare(self, c: compare_rule::CompareTask) -> TaskKind {
        match self {
            TaskKind::Suite(s) | TaskKind::SuiteCompare(s, _) => TaskKind::SuiteCompare(s, c),
            TaskKind::Trials | TaskKind::Compare(_) => TaskKind::Compare(c),
        }
    }
}

impl Task {
    /// Where `check` (this task's `check:` line or its base's) was written: line and column.
    pub(crate) fn check_at_of(&self, check: &CommandLine) -> (u64, u64) {
        let base = self.compare().filter(|c| {
            c.base
                .check
                .as_ref()
                .is_some_and(|b| std::ptr::eq(b, check))
        });
        base.map_or(self.check_at, |c| c.base.check_at)
            .unwrap_or((self.line, 1))
    }

    /// The `compare:` part of the task, if it has one ([`TaskKind::compare`]).
    pub fn compare(&self) -> Option<&compare_rule::CompareTask> {
        self.kind.compare()
    }

    /// The `suite:` part of the task, if it has one ([`TaskKind::suite`]).
    pub fn suite(&self) -> Option<&SuiteTask> {
        self.kind.suite()
    }

    /// The folders the trials of a side working in `cwd` (the task's, or base's) may write
    /// as a whole: its `writes:` folders beneath `cwd`, or `cwd` itself; links resolved.
    pub fn write_roots(&self, cwd: &Path) -> Vec<PathBuf> {
        let real = |p: PathBuf| std::fs::canonicalize(&p).unwrap_or(p);
        match &self.writes {
            Some(folders) => folders.iter().map(|w| real(cwd.join(w))).collect(),
            None => vec![real(cwd.to_path_buf())],
        }
    }
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
    pub compare: Option<Box<compare_rule::CompareRule>>,
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
    /// The fixture files [`Plan::fixture_hash`] covers, as found when the plan was loaded.
    pub fixture_files: Vec<PathBuf>,
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
    /// The earlier stages' ledgers this stage follows (`--after`, set by
    /// `runner::stages::after_earlier_stages`); the ledger header records them, so a report
    /// merges the stage only with those (review 47, c16).
    pub after: Vec<crate::ledger::Followed>,
}

impl Plan {
    /// Warnings for rates a plan states that are legal but almost surely mistyped (a
    /// healthy or regressed rate below 1%, as `0.9%` for 90% reads), one per rate, with the
    /// task that states it. `gate check` and `gate run` print them on stderr.
    pub fn rate_warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        for task in &self.tasks {
            let Some(r) = &task.rates else { continue };
            for (name, value) in [("healthy", r.healthy), ("regressed", r.regressed)] {
                if let Some(note) = crate::units::small_rate_note(name, value) {
                    out.push(format!("warning: task `{}`: {note}", task.id));
                }
            }
        }
        out
    }

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
            if task.suite().is_some() {
                return Err(format!(
                    "`--stage {stage}`: task `{}` is a suite, whose test cases cannot run in stages; \
                     leave it out of the staged run with `--task ID`",
                    task.id
                ));
            }
            let b = task
                .sampling
                .stage_length()
                .filter(|_| task.compare().is_none());
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
            if t.compare().is_some() {
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

    /// The tasks that name the folders their trials write (`writes:`), by id: what the
    /// ledger's walls record.
    pub fn writes(&self) -> std::collections::BTreeMap<String, Vec<String>> {
        (self.tasks.iter())
            .filter_map(|t| Some((t.id.clone(), t.writes.clone()?)))
            .collect()
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
        (plan.fixture_hash, plan.fixture_files) = tasks::fixture_hash(&shown, &dir, &plan.tasks)?;
        tasks::refuse_unboxed_or_missing_writes(&shown, &plan)?;
        state::refuse_writable_over_a_side(&shown, &plan)?;
        grammar::refuse_unfollowable_check_lines(&shown, &plan)?;
        state::refuse_symlinked_named_files(&shown, &plan)?;
        state::refuse_links_out_of_held_folders(&shown, &plan)?;
        state::refuse_node_graders_without_a_package_json(&shown, &plan)?;
        state::refuse_state_in_a_writable_root(&shown, &plan)?;
        reach::refuse_writable_search_paths(&shown, &plan)?;
        reach::refuse_python_cwd_on_sys_path(&shown, &plan)?;
        reach::refuse_node_from_a_folder_made_in_the_run(&shown, &plan)?;
        reach::refuse_definitions_the_trials_write(&shown, &plan)?;
        site::refuse_python_sites_the_trials_write(&shown, &plan)?;
        state::refuse_nested_repositories(&shown, &plan)?;
        state::refuse_git_without_attribute_source(&shown, &plan)?;
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

impl Validator<'_> {
    fn invalid(&self, at: &Location, message: impl Into<String>) -> PlanError {
        PlanError::Invalid {
            path: self.path.to_string(),
            line: at.line().max(1),
            column: at.column().max(1),
            message: message.into(),
        }
    }

    fn stats_error(&self, at: &Location, id: &str, e: StatsError) -> PlanError {
        self.invalid(at, format!("task `{id}`: {e}"))
    }
}

/// Validate plan text as [`Plan::load`] does, minus the file, its hash and the fixtures, for
/// the unit tests of the validation modules. Relative paths resolve against the crate root.
#[cfg(test)]
fn validate_text(text: &str) -> Result<Plan, PlanError> {
    let file: PlanFile =
        serde_saphyr::from_str(text).map_err(|e| syntax_error("plan.yaml", text, &e))?;
    Validator {
        path: "plan.yaml",
        dir: Path::new("."),
        suite: None,
    }
    .plan(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error's `line:column: message`, or a panic naming the plan that loaded.
    fn refusal(text: &str) -> (u64, u64, String) {
        match validate_text(text) {
            Err(PlanError::Invalid {
                line,
                column,
                message,
                ..
            }) => (line, column, message),
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[test]
    fn command_line_display_quotes_only_what_the_shell_would_split() {
        let argv = CommandLine::Argv(vec!["echo".into(), "a b".into(), "it's".into(), "".into()]);
        assert_eq!(argv.display(), r"echo 'a b' 'it'\''s' ''");
        assert_eq!(CommandLine::Shell("a | b".into()).display(), "a | b");
    }

    #[test]
    fn syntax_errors_name_line_column_and_what_a_design_takes() {
        let text = "version: 1\nsampling:\n  design: {healthy: 0.9}\ntasks: []\n";
        let Err(PlanError::Syntax { line, message, .. }) = validate_text(text) else {
            panic!("a missing `regressed` is a syntax error");
        };
        assert_eq!(line, 3);
        assert!(message.contains("missing field `regressed`"), "{message}");
    }

    #[test]
    fn resolve_rule_gives_the_plan_message_without_a_location() {
        let spec: SamplingSpec = serde_saphyr::from_str("single: {n: 3, c: 3}").unwrap();
        let message = resolve_rule(spec, "--sampling").unwrap_err();
        assert!(message.contains('c'), "{message}");
        assert!(!message.starts_with("command line:"), "{message}");
    }

    fn plan_with(tasks: &[(&str, u64)]) -> Plan {
        let mut text = String::from("version: 1\ntasks:\n");
        for (id, n) in tasks {
            text.push_str(&format!(
                "  - {{id: {id}, run: 'true', sampling: {{single: {{n: {n}, c: 0}}}}}}\n"
            ));
        }
        validate_text(&text).unwrap()
    }

    #[test]
    fn retain_tasks_keeps_file_order_and_names_the_known_ids() {
        let mut plan = plan_with(&[("a", 2), ("b", 2), ("c", 2)]);
        plan.retain_tasks(&["c".into(), "a".into()]).unwrap();
        let ids: Vec<_> = plan.tasks.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["a", "c"]);
        let e = plan.retain_tasks(&["zz".into()]).unwrap_err();
        assert!(e.contains("`--task zz`") && e.contains("`a`, `c`"), "{e}");
    }

    #[test]
    fn check_shard_refuses_more_shards_than_the_largest_task_has_trials() {
        let plan = plan_with(&[("a", 2), ("b", 4)]);
        assert!(plan.check_shard(Shard { k: 1, m: 4 }).is_ok());
        let e = plan.check_shard(Shard { k: 1, m: 5 }).unwrap_err();
        assert!(e.contains("use at most 4 shards"), "{e}");
    }

    #[test]
    fn select_stage_runs_a_single_plan_whole_in_stage_one_and_refuses_a_sequential_one() {
        let mut plan = plan_with(&[("a", 2)]);
        // Its n trials are stage 1; stage 2 makes up for unavailable ones (budget 1 of 2).
        let e = plan.select_stage(3).unwrap_err();
        assert!(
            e.contains("task `a` runs stages 1 to 2 (stages of 2 trials)"),
            "{e}"
        );
        assert_eq!(plan.stage, None);
        plan.select_stage(1).unwrap();
        assert_eq!(plan.stage, Some(1));
        let text = "version: 1\ntasks:\n  - {id: s, run: 'true', sampling: {sequential: {healthy: 0.9, regressed: 0.7}}}\n";
        let mut plan = validate_text(text).unwrap();
        let e = plan.select_stage(1).unwrap_err();
        assert!(e.contains("task `s` has no staged rule"), "{e}");
    }

    #[test]
    fn the_invalid_location_is_one_based_even_when_unknown() {
        let (line, column, _) = refusal("version: 1\ntasks: []\n");
        assert!(line >= 1 && column >= 1);
    }
}
