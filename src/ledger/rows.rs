//! The ledger's rows: what each line of the JSON Lines file holds.
//!
//! These are the on-disk shapes (their serde names and defaults are the ledger format,
//! versioned by [`super::SCHEMA_VERSION`]): the header with every task's resolved rule, an
//! attempt row per attempt, a decision row per task, resume rows and the footer. Reading,
//! writing and the hash chain are in [`super`].

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::model::{
    Counts, Fault, Judgement, OnInconclusive, Outcome, Rates, Sampling, Shard, TimeoutPolicy, Walls,
};

/// One line of the ledger: its position, the hash of the line before, and the row itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// 0-based position in the file.
    pub seq: u64,
    /// Hex SHA-256 of the previous line's bytes (without its newline), or
    /// [`GENESIS`](crate::ledger::GENESIS).
    pub prev: String,
    /// The row.
    #[serde(flatten)]
    pub row: Row,
}

/// The kinds of row.
///
/// The wide rows are behind pointers so that a row in memory is as small as the ledger's
/// commonest row needs (issue 30: a suite of 100,000 cases holds 900,000 attempt rows): the
/// header, once per run, is boxed, and an attempt row is shared (`Arc`), so that the replay's
/// trial records hold the ledger's rows rather than a copy of each. On the wire a pointer is
/// the row itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Row {
    /// First row: what was run, under which plan and fixtures.
    Header(Box<Header>),
    /// A `--resume` continued the run from here.
    Resume(Box<Resume>),
    /// One execution inside a trial.
    Attempt(#[serde(with = "shared_attempt")] Arc<AttemptRow>),
    /// A task's verdict.
    Decision(Box<DecisionRow>),
    /// Last row of a run (or of an interrupted run).
    Footer(Box<Footer>),
}

/// An `Arc<AttemptRow>` read and written as the row itself (serde's own `Arc` support is
/// behind its `rc` feature, which would rebuild every crate above serde for two functions).
mod shared_attempt {
    use std::sync::Arc;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::AttemptRow;

    pub fn serialize<S: Serializer>(row: &Arc<AttemptRow>, s: S) -> Result<S::Ok, S::Error> {
        row.as_ref().serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<AttemptRow>, D::Error> {
        AttemptRow::deserialize(d).map(Arc::new)
    }
}

/// A task as resolved from the plan file: everything a report needs to recompute its verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskSpec {
    /// Task id.
    pub id: String,
    /// Line of the task in the plan file (for annotations).
    pub line: Option<u64>,
    /// The resolved sampling rule.
    pub sampling: Sampling,
    /// The healthy and regressed rates and risks the plan was designed for, when the plan
    /// file gave them (`design:` or `sequential:`); a bare `single: {n, c}` has none.
    pub rates: Option<Rates>,
    /// Unavailable trials tolerated before the task is INCONCLUSIVE.
    pub max_unavailable: u64,
    /// The `run` command, for display (redacted).
    pub run: String,
    /// The `check` command, if any, for display (redacted).
    pub check: Option<String>,
    /// Per-attempt timeout in seconds.
    pub timeout_s: Option<f64>,
    /// A `compare:` task: R, `max_pairs`, the base side; `sampling` is then the rule on
    /// the discordant stream (see [`crate::pair_sampler`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<Box<crate::pair_sampler::CompareRecord>>,
    /// A suite task: each trial runs the whole suite, and each test case it records is a
    /// task of its own (`ID/CASE`, with this task's rule), whose attempt rows the replay
    /// judges; this task's own attempt rows are the suite runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<Box<SuiteRecord>>,
}

/// How a suite task's runs are read: recorded so a report can say where the verdicts of its
/// test cases came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuiteRecord {
    /// The result file each run writes, as the plan gives it (`$GATE_JUNIT` by default).
    pub results: String,
    /// The format it is read as (`junit`, `go-json`, …), or `None` when detected.
    pub format: Option<String>,
}

impl TaskSpec {
    /// The pair sampler a `compare:` task's pairs are judged by (its discordant rule, void
    /// budget, `max_pairs` and loss route): one construction for `gate ingest --base` and
    /// the replay.
    pub fn pair_sampler(
        &self,
    ) -> Result<crate::pair_sampler::PairSampler, crate::stats::StatsError> {
        crate::pair_sampler::PairSampler::new(
            self.sampling.clone(),
            self.max_unavailable,
            self.compare.as_ref().map_or(0, |c| c.max_pairs),
            self.compare.as_ref().and_then(|c| c.loss_route),
        )
    }

    /// The task of test case `case` of this suite task: the suite's rule, its id `ID/CASE`
    /// (a plan id has no `/`, so the suite is the part before the first one).
    pub fn suite_case(&self, case: &str) -> TaskSpec {
        TaskSpec {
            id: suite_case_id(&self.id, case),
            run: format!("suite `{}`: {case}", self.id),
            check: None,
            compare: None,
            suite: None,
            ..self.clone()
        }
    }
}

/// The rule a suite task's own runs are scheduled by: as many runs as its test cases' rule
/// may need, never deciding before the last (the cases decide). A suite run is `Pass` when
/// the suite ran; any other outcome of it is a harness error. One place, for the scheduler
/// and for the replay of a suite stopped by a harness error.
pub fn suite_runs_rule(cases: &Sampling) -> Sampling {
    Sampling::Single {
        n: cases.max_graded(),
        c: 0,
    }
}

/// The rule a `compare:` suite's runs are scheduled by: as many runs as a case may need (its
/// `max_pairs`, the family design's once the cases are known, plus the void pairs its budget
/// tolerates), never deciding before the last. A run counts once, when both sides ran; a
/// harness error on either side stops it. One place, for the scheduler and for the replay of
/// a compare suite stopped by a harness error.
pub fn compare_suite_runs_rule(max_pairs: u64, max_unavailable: u64) -> Sampling {
    Sampling::Single {
        n: max_pairs.saturating_add(max_unavailable).max(1),
        c: 0,
    }
}

/// Why a suite's test case that the run fixing its cases skipped (and so every run skipped)
/// is INCONCLUSIVE ([`SuiteRun::never_ran`]): the same words in its decision row and in the
/// replay. Review 8, a15: such a case was listed nowhere and the gate PASSed without it.
pub const SKIPPED_IN_EVERY_RUN: &str = "skipped in every suite run: it never ran, so it was never judged (code under test that raises `unittest.SkipTest` or calls `pytest.skip` every time leaves no result); a test meant to be skipped is deselected instead (pytest `--deselect` or `-m`), so its runs leave no record of it";

/// The task id of test case `case` of suite task `suite`.
pub fn suite_case_id(suite: &str, case: &str) -> String {
    format!("{suite}/{case}")
}

/// The suite task a test case's task id belongs to, if it is one (`ID/CASE`).
pub fn suite_of(task: &str) -> Option<&str> {
    task.split_once('/').map(|(s, _)| s)
}

/// The header row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Ledger format version.
    pub schema: u32,
    /// `gate` version that wrote it.
    pub gate_version: String,
    /// Unique id of this run (also `GATE_RUN_ID`).
    pub run_id: String,
    /// The plan file as given.
    pub plan_path: String,
    /// Hex SHA-256 of the plan file bytes.
    pub plan_hash: String,
    /// Hex SHA-256 over the fixture files (paths and contents).
    pub fixture_hash: String,
    /// The programs and scripts the plan's `run` and `check` lines name, by path, each
    /// with its fingerprint (`crate::plan::state::program_hashes`); empty in `gate ingest`'s
    /// ledgers and in ledgers written before it was recorded.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub programs: std::collections::BTreeMap<String, String>,
    /// Command line (redacted).
    pub argv: Vec<String>,
    /// RFC 3339 UTC.
    pub started_at: String,
    /// Host name.
    pub host: String,
    /// Shard, when run with `--shard`.
    pub shard: Option<Shard>,
    /// The stage of a staged rule this ledger ran, when run with `--stage` (its ordinals are
    /// that stage's, or the shard's share of them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<u64>,
    /// The earlier stages' ledgers this stage followed (`--after`), each by run id and
    /// head hash, so that `gate report` merges the stage only with the very ledgers whose
    /// CONTINUE let it run (review 47, c16). Empty, and not written, for a stage 1, a run
    /// without `--stage`, `gate ingest`, and in ledgers written before it was recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<Followed>,
    /// Parallel trials.
    pub jobs: usize,
    /// What a timeout counts as.
    pub timeout_policy: TimeoutPolicy,
    /// What an INCONCLUSIVE gate exits with.
    pub on_inconclusive: OnInconclusive,
    /// Exit codes declared as transport faults.
    pub transport_exit_codes: Vec<i32>,
    /// Transport retries per trial (recorded, never promoted).
    pub transport_max_retries: u32,
    /// The tasks, in plan order.
    pub tasks: Vec<TaskSpec>,
    /// The result files `gate ingest` judged, in ordinal order (empty for `gate run`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<SourceFile>,
    /// Which walls of the box stood around the trials (`gate run`, schema 2 on); absent in
    /// schema-1 ledgers and in `gate ingest`'s, whose trials gate did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<Walls>,
    /// The CI run this ledger was written in, when under GitHub Actions: `gate report`
    /// merges only shards of one attempt of one CI run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci: Option<CiRun>,
}

/// An earlier stage's ledger that a stage followed (`gate run --stage S --after LEDGER`):
/// its run id and the head of its hash chain as the stage read it. Two executions of one
/// stage in one CI attempt (a retried step, a duplicated matrix leg) share every other
/// header field, so only this tells which of them the later stage's CONTINUE came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Followed {
    /// The earlier ledger's `run_id`.
    pub run_id: String,
    /// Hex SHA-256 of its last row the hash chain covers ([`crate::ledger::Ledger::chain_covered`]'s
    /// `last_hash`: what `gate verify` prints as `head sha256` for a ledger that ends in its
    /// footer): a row appended or edited after the stage read it changes it.
    pub head: String,
}

/// The identity of a GitHub Actions run (`GITHUB_RUN_ID`, `GITHUB_RUN_ATTEMPT`,
/// `GITHUB_JOB`). "Re-run failed jobs" re-runs some jobs of a run under a higher attempt while
/// the others keep their first: shards of different attempts are one shard retried until it
/// passed, which a merge would count as one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CiRun {
    /// `GITHUB_RUN_ID`: the same for every attempt of one workflow run.
    pub run_id: String,
    /// `GITHUB_RUN_ATTEMPT`: 1, then one more for each re-run.
    pub run_attempt: String,
    /// `GITHUB_JOB`: the job's id in the workflow (shared by the jobs of one matrix).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub job: String,
}

impl CiRun {
    /// The CI run of this process's environment; `None` outside GitHub Actions (no
    /// `GITHUB_RUN_ID`).
    pub fn from_env() -> Option<CiRun> {
        let var = |n: &str| std::env::var(n).ok().filter(|v| !v.is_empty());
        Some(CiRun {
            run_id: var("GITHUB_RUN_ID")?,
            run_attempt: var("GITHUB_RUN_ATTEMPT").unwrap_or_else(|| "1".into()),
            job: var("GITHUB_JOB").unwrap_or_default(),
        })
    }

    /// The attempt of one workflow run (`run_id`, `run_attempt`) that every shard and stage
    /// of a run shares (its jobs may differ: a matrix); `None` outside GitHub Actions.
    pub fn attempt(ci: &Option<CiRun>) -> Option<(&str, &str)> {
        ci.as_ref()
            .map(|c| (c.run_id.as_str(), c.run_attempt.as_str()))
    }

    /// Where a run ran, in words: `in attempt 1 of CI run 7`, `outside GitHub Actions`.
    pub fn words(ci: &Option<CiRun>) -> String {
        match ci {
            Some(c) => format!("in attempt {} of CI run {}", c.run_attempt, c.run_id),
            None => "outside GitHub Actions".to_string(),
        }
    }
}

/// A result file read by `gate ingest`: its name as given and the SHA-256 of the bytes read,
/// so anyone holding the files can check that the ledger judged exactly them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFile {
    /// The path as given on the command line.
    pub path: String,
    /// Hex SHA-256 of its bytes.
    pub sha256: String,
    /// The test runner that wrote it, as recognised (`cargo-nextest`, `pytest`, …).
    pub writer: String,
}

/// A `--resume` continuation row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resume {
    /// RFC 3339 UTC.
    pub started_at: String,
    /// Command line (redacted).
    pub argv: Vec<String>,
    /// Host name.
    pub host: String,
    /// Which walls of the box stood around the trials of this continuation (schema 2 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<Walls>,
}

/// The result file a task may write at `$GATE_RESULT`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskResult {
    /// The task's own grade; `false` fails a trial whose commands exited 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass: Option<bool>,
    /// A score, recorded for the score vector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// `"transport"` declares a transport fault.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
    /// Cost of the trial (any currency unit, summed as reported).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    /// Tokens used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<f64>,
    /// The task's own internal attempts (1 = succeeded or failed on its first try).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempts: Option<u64>,
    /// Free text (redacted, at most `untrusted::MAX_NOTE_BYTES` bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Keys of the file that gate does not know and ignored (filled by gate, never read from
    /// the result file; at most `result_file::MAX_IGNORED_KEYS` names).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignored_keys: Vec<String>,
    /// A warning about the file that did not invalidate it (filled by gate): the unknown keys
    /// and the allowed ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// One attempt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptRow {
    /// Task id.
    pub task: String,
    /// Trial ordinal, from 1.
    pub trial: u64,
    /// Attempt within the trial, from 1. Only attempt 1 is ever graded.
    pub attempt: u32,
    /// RFC 3339 UTC.
    pub started_at: Stamp,
    /// Wall time of run and check together, seconds.
    pub duration_s: f64,
    /// Exit code of `run`, when it exited.
    pub exit_code: Option<i32>,
    /// Signal that ended `run`, when it was killed.
    pub signal: Option<i32>,
    /// Exit code of `check`, when it ran.
    pub check_exit: Option<i32>,
    /// Fault class, if this attempt is not a plain content grade.
    pub fault: Option<Fault>,
    /// What it amounted to.
    pub outcome: Outcome,
    /// True only for attempt 1 with outcome pass or fail: the trial's frozen grade.
    pub graded: bool,
    /// What an attempt rarely has (a result file, a reason, output, a log), behind one
    /// pointer: a suite of 100,000 cases holds 900,000 rows, nearly all without any of it
    /// (issue 30). On the wire its fields are the row's own, in this place.
    #[serde(flatten)]
    pub detail: Detail,
    /// The side of a `compare:` task's pair this attempt ran on (`trial` is the pair).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<crate::pair_sampler::Side>,
    /// A `compare:` task: 1 if this side was started first in its pair, 2 if second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pair_position: Option<u8>,
    /// A suite task's run: what its result file held (the test cases' rows follow it);
    /// boxed, as only a suite run's own row has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite_run: Option<Box<SuiteRun>>,
}

/// An attempt's start time (RFC 3339) as a row holds it: shared, since every test-case row
/// of a suite run carries the run's start. Rows read one after another with the same time
/// share one copy (a suite of 100,000 cases has 900,000 such rows: issue 30); on the wire it
/// is the string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp(Arc<str>);

impl std::ops::Deref for Stamp {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Stamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<String> for Stamp {
    fn from(s: String) -> Stamp {
        Stamp(s.into())
    }
}

impl From<&str> for Stamp {
    fn from(s: &str) -> Stamp {
        Stamp(s.into())
    }
}

impl Serialize for Stamp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Stamp {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Stamp, D::Error> {
        thread_local! {
            /// The last time read on this thread: the next row's is usually the same.
            static LAST: std::cell::RefCell<Option<Arc<str>>> = const { std::cell::RefCell::new(None) };
        }
        let s = String::deserialize(d)?;
        Ok(Stamp(LAST.with_borrow_mut(|last| match last {
            Some(l) if **l == *s => l.clone(),
            _ => last.insert(Arc::from(s)).clone(),
        })))
    }
}

/// An attempt row's rarely set fields; `None` when every one is empty (see [`AttemptDetail`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Detail(Option<Box<AttemptDetail>>);

/// The fields of an attempt row most rows leave empty.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AttemptDetail {
    /// The parsed result file, if the task wrote one.
    pub result: Option<Box<TaskResult>>,
    /// Why, in words, for faults and harness errors.
    pub reason: Option<String>,
    /// Last lines of stdout, redacted.
    pub stdout_tail: String,
    /// Last lines of stderr, redacted.
    pub stderr_tail: String,
    /// Path of the full (redacted, bounded) log.
    pub log: Option<String>,
}

/// Every field empty: what a row without detail reads as.
static NO_DETAIL: AttemptDetail = AttemptDetail {
    result: None,
    reason: None,
    stdout_tail: String::new(),
    stderr_tail: String::new(),
    log: None,
};

impl std::ops::Deref for Detail {
    type Target = AttemptDetail;
    fn deref(&self) -> &AttemptDetail {
        self.0.as_deref().unwrap_or(&NO_DETAIL)
    }
}

impl std::ops::DerefMut for Detail {
    /// Writing a field allocates the detail (a row with nothing set keeps none).
    fn deref_mut(&mut self) -> &mut AttemptDetail {
        self.0.get_or_insert_with(Default::default)
    }
}

impl From<AttemptDetail> for Detail {
    fn from(d: AttemptDetail) -> Detail {
        Detail((d != AttemptDetail::default()).then(|| Box::new(d)))
    }
}

impl Serialize for Detail {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Detail {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Detail, D::Error> {
        AttemptDetail::deserialize(d).map(Detail::from)
    }
}

impl AttemptRow {
    /// Attempt `attempt` of trial `trial` of `task`, started at `started_at` (RFC 3339), with
    /// nothing observed yet: no exit, no fault, no result, empty captures, no side, not
    /// graded; `outcome` until the attempt is classified. Every producer of rows starts here,
    /// so a new field gets its "nothing recorded" value in one place.
    pub fn started(
        task: String,
        trial: u64,
        attempt: u32,
        started_at: String,
        outcome: Outcome,
    ) -> AttemptRow {
        AttemptRow {
            task,
            trial,
            attempt,
            started_at: started_at.into(),
            duration_s: 0.0,
            exit_code: None,
            signal: None,
            check_exit: None,
            fault: None,
            outcome,
            graded: false,
            detail: Detail::default(),
            side: None,
            pair_position: None,
            suite_run: None,
        }
    }
}

/// What one run of a suite task recorded: the file read, and the test cases in it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteRun {
    /// Hex SHA-256 of the result file's bytes, as read.
    pub results_sha256: String,
    /// Who wrote it (`pytest`, `nextest`, …).
    pub writer: String,
    /// Test cases that ran.
    pub cases: u64,
    /// Of which failed.
    pub failed: u64,
    /// The test cases asked for (`GATE_SUITE_CASES`), when the run was asked for fewer than
    /// all: the undecided ones at its launch. Absent: every case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked: Option<u64>,
    /// The family design, on the run that fixed the number of cases (the first run read):
    /// the rule every test case is judged by from then on (`crate::plan::family`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<Family>,
    /// The cases (task ids) this run skipped while its side had run them in no run read
    /// before: they have no row for this run. A case some later run runs gets a row of its
    /// own (its earlier skips a failed trial each, or, on base, a pair with no base side);
    /// one skipped in every run (no row at all; in a `compare:` suite, no base row) is a task
    /// of its own, INCONCLUSIVE ([`SKIPPED_IN_EVERY_RUN`]), never judged and never left out
    /// (review 8, a15; review 10, a10, a15).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub never_ran: Vec<String>,
}

/// A suite task's test cases as one family (`crate::plan::family`): each case judged at
/// Šidák's share of the suite's alpha, so a suite of healthy independent cases is not PASS
/// with probability at most `alpha`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Family {
    /// Test cases in the suite (K), from its first run.
    pub cases: u64,
    /// The suite's alpha: the family risk the design keeps within.
    pub alpha: f64,
    /// Each case's share, `1 - (1 - alpha)^(1/K)`.
    pub case_alpha: f64,
    /// The rule each test case is judged by (for a `compare:` suite: the rule on each
    /// case's discordant pairs).
    pub sampling: Sampling,
    /// A `compare:` suite's per-case truncation and loss route at the share (each case is
    /// a compare task of its own); absent for a suite whose cases are trials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairs: Option<FamilyPairs>,
}

/// What a `compare:` suite's family design sets beside each case's discordant rule: the
/// pairs after which a case is INCONCLUSIVE and the loss route, both at the share.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FamilyPairs {
    /// Pairs (concordant or not) after which an undecided case is INCONCLUSIVE.
    pub max_pairs: u64,
    /// The loss route beside the discordant rule (`crate::stats::loss_route`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_route: Option<crate::stats::loss_route::LossRoute>,
}

/// A task's decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionRow {
    /// Task id.
    pub task: String,
    /// The verdict, or a harness error that invalidated the task (`null` on the wire).
    pub verdict: Judgement,
    /// Why.
    pub reason: String,
    /// Counts at the decision.
    pub counts: Counts,
    /// SPRT log-likelihood ratio at the decision (sequential rules).
    pub llr: Option<f64>,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Every task reached a decision.
    Complete,
    /// A harness error invalidated the run.
    HarnessError,
    /// SIGINT / SIGTERM; resumable.
    Interrupted,
}

/// The footer row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Footer {
    /// RFC 3339 UTC.
    pub finished_at: String,
    /// How the run ended.
    pub status: RunStatus,
    /// The gate verdict (INCONCLUSIVE when interrupted), or a harness error (`null`).
    pub verdict: Judgement,
    /// Exit code of `gate run`.
    pub exit_code: u8,
}
