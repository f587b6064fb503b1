//! Replay: recompute every task's verdict and counts from the attempt rows of one or more
//! ledgers (one run, or the shards of one run), exactly as the runner's sampler reached them.
//!
//! The rules, which `gate run`, `gate report` and `gate verify` share:
//!
//! - Rows for the same (task, trial, attempt) that are byte-for-byte the same row are one row
//!   (the same shard given twice). Two different rows for the same key are an error naming
//!   both places — except that a `cancelled` row gives way to a finished one: a cancelled
//!   attempt was never graded, so the run that `--resume` continued may run it again.
//! - Each trial is graded by its attempt 1 only (invariant 1). Later attempts are transport
//!   retries: never consumed; a later attempt that passed is a "retry pass refused promotion".
//! - Ordinals are consumed in ascending order (invariant 2). A single plan skips a missing
//!   ordinal and keeps consuming — its verdict does not depend on order, so it is
//!   decided as soon as it is certain. A sequential plan's verdict does depend on order, so it
//!   stops at the first missing ordinal.
//! - Once the sampler decides, later finished trials are *excluded* (finished, never counted);
//!   trials after a sequential plan's gap are excluded the same way.
//! - A `harness_error` row anywhere in a task invalidates the task and the run: no verdict.
//!   As in the runner, nothing written after that row is consumed.
//! - A cancelled trial is skipped (it was stopped for a reason unrelated to its content), for
//!   either rule; only an ordinal with no row at all is a gap.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::ledger::{
    AttemptRow, Counts, Ledger, OnInconclusive, Outcome, Row, RunStatus, Shard, TaskSpec,
};
use crate::model::Judgement;
use crate::sampler::{Disposition as SettledAs, OrderedSampler, Sampling, Verdict};

use super::error::ReportError;
pub use super::error::Source;

/// What became of a trial in the replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disposition {
    /// Its attempt 1 was consumed by the sampler and is in the counts.
    Counted,
    /// It finished but lies beyond the decision point (or beyond a sequential plan's gap) in
    /// ordinal order: recorded, never counted.
    Excluded,
    /// Stopped by gate before it finished: recorded, never counted.
    Cancelled,
    /// The harness could not run it: the task has no verdict.
    HarnessError,
    /// Only later attempts are recorded; attempt 1 is missing (a damaged ledger).
    NoFirstAttempt,
}

impl Disposition {
    /// Lowercase name used in the JSON and JUnit reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Disposition::Counted => "counted",
            Disposition::Excluded => "excluded",
            Disposition::Cancelled => "cancelled",
            Disposition::HarnessError => "harness_error",
            Disposition::NoFirstAttempt => "no_first_attempt",
        }
    }
}

/// One attempt row and where it was read.
#[derive(Debug, Clone)]
pub struct SourcedAttempt {
    /// The row.
    pub row: AttemptRow,
    /// Where.
    pub source: Source,
}

/// One trial: its graded attempt 1 and any later (transport) attempts.
#[derive(Debug, Clone)]
pub struct TrialRecord {
    /// Ordinal, from 1.
    pub ordinal: u64,
    /// Attempt 1, the trial's frozen grade (absent only in a damaged ledger).
    pub first: Option<SourcedAttempt>,
    /// Attempts 2.., in attempt order: availability evidence, never the grade.
    pub later: Vec<SourcedAttempt>,
    /// What the replay did with it.
    pub disposition: Disposition,
}

impl TrialRecord {
    /// Wall time of all its attempts, seconds.
    pub fn duration_s(&self) -> f64 {
        self.first
            .iter()
            .chain(self.later.iter())
            .map(|a| a.row.duration_s.max(0.0))
            .sum()
    }
}

/// A task replayed.
#[derive(Debug, Clone)]
pub struct TaskReplay {
    /// The task as the ledger header resolved it.
    pub spec: TaskSpec,
    /// Every trial recorded, in ordinal order.
    pub trials: Vec<TrialRecord>,
    /// The verdict, or a harness error that invalidated the task.
    pub verdict: Judgement,
    /// Why, in one sentence.
    pub reason: String,
    /// Counts from the replay.
    pub counts: Counts,
    /// SPRT log-likelihood ratio where consumption stopped (sequential rules).
    pub llr: Option<f64>,
    /// The ordinal whose outcome reached the decision, if the sampler decided.
    pub decided_at: Option<u64>,
    /// Ordinals with no row at all, as ascending ranges: the gaps below the highest recorded
    /// ordinal and, while the task is undecided, every ordinal up to `n` (`max_trials`) that
    /// no ledger records. Ranges, never single ordinals, so a forged ordinal cannot make
    /// this list large.
    pub missing: Vec<OrdinalRange>,
    /// Attempts after the first that passed: recorded, never promoted to the trial's grade.
    pub retry_passes_refused: u64,
    /// The harness error that invalidated the task, if any: where, and why.
    pub harness_error: Option<String>,
    /// A compare task's pair counts (its `trials` are then both sides of each pair, in
    /// (pair, side) order, and `counts` the discordant rule's tally).
    pub pairs: Option<crate::pairs::PairCounts>,
}

impl TaskReplay {
    /// The trials whose attempt 1 the sampler consumed, in ordinal order.
    pub fn counted(&self) -> impl Iterator<Item = &AttemptRow> {
        self.trials
            .iter()
            .filter(|t| t.disposition == Disposition::Counted)
            .filter_map(|t| t.first.as_ref().map(|a| &a.row))
    }
}

/// Consecutive ordinals `first..=last` (`first <= last`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct OrdinalRange {
    /// The first ordinal.
    pub first: u64,
    /// The last ordinal (inclusive).
    pub last: u64,
}

impl OrdinalRange {
    /// How many ordinals the range holds (saturating at `u64::MAX`).
    pub fn count(&self) -> u64 {
        (self.last - self.first).saturating_add(1)
    }
}

impl std::fmt::Display for OrdinalRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.first == self.last {
            write!(f, "#{}", self.first)
        } else {
            write!(f, "#{}–{}", self.first, self.last)
        }
    }
}

/// How many ordinals some ranges hold (saturating).
pub fn ordinal_count(ranges: &[OrdinalRange]) -> u64 {
    ranges.iter().fold(0u64, |n, r| n.saturating_add(r.count()))
}

/// One ledger as the replay saw it.
#[derive(Debug, Clone)]
pub struct LedgerInfo {
    /// Its path.
    pub path: PathBuf,
    /// Its run id.
    pub run_id: String,
    /// Its shard, when run with `--shard`.
    pub shard: Option<Shard>,
    /// How its last footer says the run ended; `None` when it has no footer (the run did not
    /// finish, or the footer was lost in a crash).
    pub status: Option<RunStatus>,
    /// The first row that breaks the hash chain, as `file:line` and what is wrong.
    pub chain_break: Option<String>,
    /// Whether an unterminated last line (a row lost in a crash) was ignored.
    pub torn_tail: bool,
    /// Hex SHA-256 of its last complete line (the head of the hash chain). The chain protects
    /// every row before the last; the last row itself is protected only by comparing this
    /// hash with one recorded elsewhere (e.g. the CI log of the run).
    pub head_sha256: String,
    /// The walls of the box its header and resume rows record, each once (none in a
    /// schema-1 ledger or one of `gate ingest`).
    pub sandbox: Vec<crate::ledger::Walls>,
}

/// Which shards of an `M`-way split are present.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardCoverage {
    /// Number of shards.
    pub m: u64,
    /// Shards present, ascending.
    pub present: Vec<u64>,
    /// Shards absent, ascending.
    pub missing: Vec<u64>,
}

/// The replay of one run (or of the shards of one run).
#[derive(Debug, Clone)]
pub struct Replay {
    /// The plan file as the first ledger names it.
    pub plan_path: String,
    /// Hex SHA-256 of the plan (equal in every ledger).
    pub plan_hash: String,
    /// Hex SHA-256 of the fixtures (equal in every ledger).
    pub fixture_hash: String,
    /// `gate` version that wrote the first ledger.
    pub gate_version: String,
    /// The recorded `on_inconclusive` (`fail` if any ledger says `fail`).
    pub on_inconclusive: OnInconclusive,
    /// The ledgers, in the order given.
    pub ledgers: Vec<LedgerInfo>,
    /// Shard coverage, when the ledgers are shards.
    pub shards: Option<ShardCoverage>,
    /// Tasks, in plan order.
    pub tasks: Vec<TaskReplay>,
    /// A harness error recorded by a footer without any harness_error row to show for it.
    pub footer_harness_error: bool,
}

impl Replay {
    /// Whether any ledger ended interrupted or without a footer.
    pub fn interrupted(&self) -> bool {
        self.ledgers
            .iter()
            .any(|l| matches!(l.status, None | Some(RunStatus::Interrupted)))
    }

    /// Whether a ledger's last footer says the run was interrupted (SIGINT or SIGTERM).
    pub fn interrupted_by_signal(&self) -> bool {
        self.ledgers
            .iter()
            .any(|l| l.status == Some(RunStatus::Interrupted))
    }

    /// The gate verdict: a harness error if any task or footer records one, else FAIL if any
    /// task FAILs, else INCONCLUSIVE if any is, else PASS.
    pub fn verdict(&self) -> Judgement {
        gate_verdict(
            self.tasks.iter().map(|t| t.verdict),
            self.footer_harness_error,
        )
    }
}

/// The gate verdict from the task verdicts: a harness error if any task (or the footer)
/// records one, else [`Verdict::combine`].
pub(crate) fn gate_verdict(
    tasks: impl Iterator<Item = Judgement>,
    footer_harness_error: bool,
) -> Judgement {
    if footer_harness_error {
        return Judgement::HarnessError;
    }
    let verdicts: Option<Vec<Verdict>> = tasks.map(Judgement::verdict).collect();
    verdicts.map(Verdict::combine).into()
}

/// Replay one or more ledgers of the same plan and fixtures.
pub fn replay(ledgers: &[Ledger]) -> Result<Replay, ReportError> {
    let Some(first) = ledgers.first() else {
        return Err(ReportError::NoLedgers);
    };
    let h0 = first.header();
    for l in &ledgers[1..] {
        let h = l.header();
        if h.plan_hash != h0.plan_hash {
            return Err(ReportError::MixedPlan {
                first: first.path.clone(),
                first_hash: h0.plan_hash.clone(),
                other: l.path.clone(),
                other_hash: h.plan_hash.clone(),
            });
        }
        if h.fixture_hash != h0.fixture_hash {
            return Err(ReportError::MixedFixture {
                first: first.path.clone(),
                first_hash: h0.fixture_hash.clone(),
                other: l.path.clone(),
                other_hash: h.fixture_hash.clone(),
            });
        }
    }

    let shards = shard_coverage(ledgers)?;
    let merged = merged_specs(ledgers)?;
    let suites: BTreeSet<String> = merged
        .iter()
        .filter(|s| s.suite.is_some())
        .map(|s| s.id.clone())
        .collect();
    let specs = expand_suites(ledgers, merged);
    let mut by_task = collect_attempts(ledgers, &specs, &suites)?;

    let infos: Vec<LedgerInfo> = ledgers.iter().map(ledger_info).collect();
    let interrupted = infos
        .iter()
        .any(|l| matches!(l.status, None | Some(RunStatus::Interrupted)));
    let footer_harness_error = infos
        .iter()
        .any(|l| l.status == Some(RunStatus::HarnessError));

    let mut tasks = Vec::with_capacity(specs.len());
    for spec in specs {
        let trials = by_task.remove(&spec.id).unwrap_or_default();
        if spec.compare.is_some() {
            tasks.push(super::compare::replay_pairs(spec, trials, interrupted)?);
            continue;
        }
        tasks.push(replay_task(spec, trials, interrupted, shards.as_ref())?);
    }
    // A run stops at its first harness error: tasks after it never ran, and "trials missing"
    // would send the reader looking for a lost shard.
    if let Some(broken) = tasks
        .iter()
        .find(|t| t.harness_error.is_some())
        .map(|t| t.spec.id.clone())
    {
        for t in tasks
            .iter_mut()
            .filter(|t| t.trials.is_empty() && t.harness_error.is_none())
        {
            t.reason = format!("not run: the run stopped at the harness error in task `{broken}`");
        }
    }
    let footer_harness_error =
        footer_harness_error && tasks.iter().all(|t| t.verdict != Judgement::HarnessError);

    let on_inconclusive = if ledgers
        .iter()
        .any(|l| l.header().on_inconclusive == OnInconclusive::Fail)
    {
        OnInconclusive::Fail
    } else {
        OnInconclusive::Pass
    };

    Ok(Replay {
        plan_path: h0.plan_path.clone(),
        plan_hash: h0.plan_hash.clone(),
        fixture_hash: h0.fixture_hash.clone(),
        gate_version: h0.gate_version.clone(),
        on_inconclusive,
        ledgers: infos,
        shards,
        tasks,
        footer_harness_error,
    })
}

fn ledger_info(l: &Ledger) -> LedgerInfo {
    LedgerInfo {
        path: l.path.clone(),
        run_id: l.header().run_id.clone(),
        shard: l.header().shard,
        status: l.footer().map(|f| f.status),
        chain_break: l.first_chain_break().map(|(i, what)| {
            format!(
                "{}: {what}",
                Source {
                    path: l.path.clone(),
                    line: i as u64 + 1
                }
            )
        }),
        torn_tail: l.torn_tail.is_some(),
        head_sha256: l.last_hash.clone(),
        sandbox: ledger_walls(l),
    }
}

/// The walls recorded by a ledger's header and its resume rows, each once, in order.
fn ledger_walls(l: &Ledger) -> Vec<crate::ledger::Walls> {
    let mut out: Vec<crate::ledger::Walls> = Vec::new();
    let recorded = l.records.iter().filter_map(|r| match &r.row {
        Row::Header(h) => h.sandbox.as_ref(),
        Row::Resume(r) => r.sandbox.as_ref(),
        _ => None,
    });
    for w in recorded {
        if !out.contains(w) {
            out.push(w.clone());
        }
    }
    out
}

fn shard_coverage(ledgers: &[Ledger]) -> Result<Option<ShardCoverage>, ReportError> {
    let mut m_seen: Option<(u64, &Path)> = None;
    let mut present = BTreeSet::new();
    let whole = ledgers.iter().find(|l| l.header().shard.is_none());
    for l in ledgers {
        let Some(shard) = l.header().shard else {
            continue;
        };
        // A whole run and a shard would merge into a report that claims shards are missing
        // while the whole run holds them: ambiguous, so refused.
        if let Some(w) = whole {
            return Err(ReportError::WholeAndShard {
                whole: w.path.clone(),
                shard_path: l.path.clone(),
                k: shard.k,
                m: shard.m,
            });
        }
        if shard.m == 0 || shard.k == 0 || shard.k > shard.m {
            return Err(ReportError::BadShard {
                path: l.path.clone(),
                k: shard.k,
                m: shard.m,
            });
        }
        match m_seen {
            Some((m, path)) if m != shard.m => {
                return Err(ReportError::MixedShards {
                    first: path.to_path_buf(),
                    first_m: m,
                    other: l.path.clone(),
                    other_m: shard.m,
                });
            }
            _ => m_seen = Some((shard.m, &l.path)),
        }
        present.insert(shard.k);
    }
    refuse_mixed_ci_runs(ledgers)?;
    Ok(m_seen.map(|(m, _)| ShardCoverage {
        m,
        present: present.iter().copied().collect(),
        missing: (1..=m).filter(|k| !present.contains(k)).collect(),
    }))
}

/// Shards merge only when they ran in one attempt of one CI run (or all outside CI): a shard
/// whose ledger comes from a later attempt was re-run alone until it passed.
fn refuse_mixed_ci_runs(ledgers: &[Ledger]) -> Result<(), ReportError> {
    let key = |l: &Ledger| {
        l.header()
            .ci
            .as_ref()
            .map(|c| (c.run_id.clone(), c.run_attempt.clone()))
    };
    let ran = |l: &Ledger| {
        let shard = l
            .header()
            .shard
            .map_or_else(String::new, |s| format!("{}/{}", s.k, s.m));
        match &l.header().ci {
            Some(c) => format!(
                "(shard {shard}) ran in attempt {} of CI run {}",
                c.run_attempt, c.run_id
            ),
            None => format!("(shard {shard}) ran outside GitHub Actions"),
        }
    };
    let mut shards = ledgers.iter().filter(|l| l.header().shard.is_some());
    let Some(first) = shards.next() else {
        return Ok(());
    };
    for l in shards {
        if key(l) != key(first) {
            return Err(ReportError::MixedCiRuns {
                first: first.path.clone(),
                first_ran: ran(first),
                other: l.path.clone(),
                other_ran: ran(l),
            });
        }
    }
    Ok(())
}

/// The tasks of all headers, in order of first appearance; a task must be resolved the same
/// way wherever it appears.
fn merged_specs(ledgers: &[Ledger]) -> Result<Vec<TaskSpec>, ReportError> {
    let mut specs: Vec<(TaskSpec, &Path)> = Vec::new();
    for l in ledgers {
        for t in &l.header().tasks {
            if let Err(what) = check_spec(t) {
                return Err(ReportError::BadHeader {
                    task: t.id.clone(),
                    what,
                    at: Source {
                        path: l.path.clone(),
                        line: 1,
                    },
                });
            }
            match specs.iter().find(|(s, _)| s.id == t.id) {
                Some((s, path)) if s != t => {
                    return Err(ReportError::MixedTask {
                        task: t.id.clone(),
                        first: path.to_path_buf(),
                        other: l.path.clone(),
                    });
                }
                Some(_) => {}
                None => specs.push((t.clone(), &l.path)),
            }
        }
    }
    Ok(specs.into_iter().map(|(s, _)| s).collect())
}

/// The header's tasks with each suite task replaced by its test cases (`SUITE/CASE`, with
/// the suite's rule), in order of first appearance in the attempt rows. The suite task itself
/// stays, judged on its own runs by [`crate::ledger::suite_runs_rule`] as `gate run`
/// scheduled them, only where one of its runs is not a run of the suite (a harness error),
/// so that error is the suite's and no verdict is published.
fn expand_suites(ledgers: &[Ledger], specs: Vec<TaskSpec>) -> Vec<TaskSpec> {
    if specs.iter().all(|s| s.suite.is_none()) {
        return specs;
    }
    let mut out = Vec::with_capacity(specs.len());
    for spec in specs {
        if spec.suite.is_none() {
            out.push(spec);
            continue;
        }
        let mut seen = BTreeSet::new();
        let mut cases = Vec::new();
        let mut broken = false;
        for a in ledgers.iter().flat_map(|l| l.attempts()) {
            if a.task == spec.id {
                broken |= !matches!(a.outcome, Outcome::Pass | Outcome::Cancelled)
                    || (a.outcome == Outcome::Pass && a.suite_run.is_none());
            } else if crate::ledger::suite_of(&a.task) == Some(spec.id.as_str())
                && seen.insert(a.task.clone())
            {
                let case = &a.task[spec.id.len() + 1..];
                cases.push(spec.suite_case(case));
            }
        }
        if broken || cases.is_empty() {
            out.push(TaskSpec {
                sampling: crate::ledger::suite_runs_rule(&spec.sampling),
                max_unavailable: 0,
                ..spec
            });
        }
        out.extend(cases);
    }
    out
}

/// Check a task as a ledger header records it, with the rules the plan loader applies, so a
/// forged or damaged header cannot make a report print impossible figures (a PASS needing
/// `n - c` passes with `c > n`, a risk computed at a rate of 1.5). Returns what is wrong.
pub fn check_spec(spec: &TaskSpec) -> Result<(), String> {
    // The one validation of a rule (`Rule::new`), as `gate run` applied it before it wrote
    // the header; its limit also keeps a forged header from buying an hour of exact sums.
    spec.sampling.rule().map_err(|e| match spec.sampling {
        Sampling::Single { .. } => format!("single plan: {e}"),
        Sampling::Sequential { .. } => format!("sequential rule: {e}"),
    })?;
    if let Some(c) = &spec.compare {
        // A compare task's rule is the one on its discordant pairs: success rate 1/2 against
        // 1/(1+R), as the plan loader builds it.
        let expected = crate::pairs::discordant_rates(c.odds_ratio);
        let ok_rule = matches!(spec.sampling, Sampling::Sequential { healthy, regressed, .. }
            if healthy == expected.0 && (regressed - expected.1).abs() <= 1e-12);
        if !(c.odds_ratio.is_finite() && c.odds_ratio > 1.0) {
            return Err(format!(
                "compare rule has odds ratio {}, not above 1",
                c.odds_ratio
            ));
        }
        if !(1..=crate::stats::compare::MAX_PAIRS_LIMIT).contains(&c.max_pairs) {
            return Err(format!("compare rule has `max_pairs` {}", c.max_pairs));
        }
        if !ok_rule {
            return Err("compare rule's sampling is not its rule on the discordant pairs".into());
        }
    }
    if let Some(r) = spec.rates {
        // The same ranges as a sequential rule's (and `gate plan`'s): rates in (0, 1) with
        // healthy > regressed, risks in (0, 0.5).
        crate::stats::check_rates(r.healthy, r.regressed, r.alpha, r.beta)
            .map_err(|e| format!("recorded rates: {e}"))?;
    }
    Ok(())
}

/// The ordinals a ledger can hold, from how the runner assigns them.
///
/// The runner launches a task's ordinals (a shard's owned ordinals, `k`, `k + m`, …) in
/// increasing order, one after another, with no ordinal skipped; a replacement for an
/// unavailable trial is the next ordinal, and `--resume` continues after the highest recorded
/// one (or runs a cancelled trial again at its own ordinal). Every launched trial leaves a row
/// unless a crash loses it, and a crash loses at most the trials in flight plus the rows of one
/// batch not yet written: two per parallel job of that session. So the j-th ordinal a ledger
/// owns can appear only if the ledger holds at least j − 2 × (jobs of all sessions) rows of that
/// task. A bound on rows rather than on the plan (n plus the unavailable budget) stays true
/// whatever the unavailable trials and cancellations were, and still refuses an ordinal of a
/// billion in a ledger of a few dozen rows.
struct OrdinalBounds<'a> {
    shard: Option<Shard>,
    /// A staged ledger's stage and each task's stage length: its ordinals are that stage's.
    stage: Option<(u64, BTreeMap<&'a str, u64>)>,
    /// Attempt rows per task in this ledger.
    rows: BTreeMap<&'a str, u64>,
    /// Trials that may have been in flight or unwritten when a session ended: twice the jobs
    /// of every session (the header's, and each `--resume`'s).
    slack: u64,
}

impl<'a> OrdinalBounds<'a> {
    fn of(l: &'a Ledger) -> Self {
        let header_jobs = l.header().jobs as u64;
        let mut rows: BTreeMap<&str, u64> = BTreeMap::new();
        let mut jobs = header_jobs;
        for rec in &l.records {
            match &rec.row {
                Row::Attempt(a) => *rows.entry(a.task.as_str()).or_default() += 1,
                Row::Resume(r) => {
                    jobs = jobs.saturating_add(session_jobs(&r.argv).unwrap_or(header_jobs));
                }
                _ => {}
            }
        }
        let stage = l.header().stage.map(|s| {
            let sizes = l
                .header()
                .tasks
                .iter()
                .filter_map(|t| Some((t.id.as_str(), t.sampling.stage_length()?)))
                .collect();
            (s, sizes)
        });
        OrdinalBounds {
            shard: l.header().shard,
            stage,
            rows,
            slack: jobs.max(1).saturating_mul(2),
        }
    }

    /// Refuse an ordinal this ledger cannot hold. `a.trial` is at least 1.
    fn check(&self, a: &AttemptRow, at: &Source) -> Result<(), ReportError> {
        let (k, m) = self.shard.map_or((1, 1), |s| (s.k, s.m));
        if self.shard.is_some_and(|s| !s.owns(a.trial)) {
            return Err(ReportError::ForeignOrdinal {
                task: a.task.clone(),
                trial: a.trial,
                at: at.clone(),
                k,
                m,
            });
        }
        if let Some((stage, sizes)) = &self.stage {
            // A stage runs exactly its own ordinals, each once: the range is the bound.
            let b = sizes.get(a.task.as_str()).copied().unwrap_or(0);
            let (first, last) = (
                (stage - 1).saturating_mul(b).saturating_add(1),
                stage.saturating_mul(b),
            );
            if !(first..=last).contains(&a.trial) {
                return Err(ReportError::Stage {
                    problem: format!(
                        "{at}: task `{}` trial #{} is not in stage {stage}, which runs trials #{first}–#{last}",
                        a.task, a.trial
                    ),
                });
            }
            return Ok(());
        }
        // The position of `a.trial` among the ordinals this ledger owns, from 1.
        let index = (a.trial - k) / m + 1;
        let rows = self.rows.get(a.task.as_str()).copied().unwrap_or(0);
        let max_index = rows.saturating_add(self.slack);
        if index > max_index {
            return Err(ReportError::ImpossibleOrdinal {
                task: a.task.clone(),
                trial: a.trial,
                at: at.clone(),
                rows,
                limit: k.saturating_add((max_index - 1).saturating_mul(m)),
            });
        }
        Ok(())
    }
}

/// The `--jobs N` (`--jobs=N`, `-j N`, `-jN`) of a recorded command line, if any.
fn session_jobs(argv: &[String]) -> Option<u64> {
    let mut args = argv.iter();
    while let Some(arg) = args.next() {
        let value = match arg.as_str() {
            "--jobs" | "-j" => args.next().map(String::as_str),
            a => a.strip_prefix("--jobs=").or_else(|| {
                a.strip_prefix("-j")
                    .filter(|v| !v.is_empty() && !a.starts_with("--"))
            }),
        };
        if let Some(n) = value.and_then(|v| v.parse::<u64>().ok()) {
            return Some(n);
        }
    }
    None
}

/// A task's attempts by ordinal (and side, for a compare task's pairs). The attempts of one
/// trial are a short `Vec` rather than a map: a map node per trial costs kilobytes, which a
/// 20,000-trial ledger would feel.
type TaskTrials = BTreeMap<(u64, Option<crate::pairs::Side>), Vec<SourcedAttempt>>;

/// Every attempt row of every ledger, by task, ordinal and attempt, de-duplicated.
fn collect_attempts(
    ledgers: &[Ledger],
    specs: &[TaskSpec],
    suites: &BTreeSet<String>,
) -> Result<BTreeMap<String, Vec<TrialRecord>>, ReportError> {
    let mut by_task: BTreeMap<String, TaskTrials> = specs
        .iter()
        .map(|s| (s.id.clone(), TaskTrials::new()))
        .collect();
    for l in ledgers {
        let bounds = OrdinalBounds::of(l);
        for (i, rec) in l.records.iter().enumerate() {
            let Row::Attempt(a) = &rec.row else { continue };
            let source = Source {
                path: l.path.clone(),
                line: i as u64 + 1,
            };
            let Some(trials) = by_task.get_mut(&a.task) else {
                // A suite task judged by its test cases (none of its runs broke): its own
                // rows are the runs, their test cases' rows are what is judged.
                if suites.contains(&a.task) {
                    continue;
                }
                return Err(ReportError::UnknownTask {
                    task: a.task.clone(),
                    at: source,
                });
            };
            if a.trial == 0 || a.attempt == 0 {
                return Err(ReportError::ZeroOrdinal { at: source });
            }
            bounds.check(a, &source)?;
            // Most trials have one attempt; the default capacity of 4 would quadruple memory.
            let attempts = trials
                .entry((a.trial, a.side))
                .or_insert_with(|| Vec::with_capacity(1));
            let fresh = SourcedAttempt {
                row: a.clone(),
                source,
            };
            match attempts.iter_mut().find(|s| s.row.attempt == a.attempt) {
                None => attempts.push(fresh),
                Some(seen) if seen.row == *a => {}
                // A cancelled attempt never finished and was never graded: the finished run
                // of the same attempt (after `--resume`) takes its place.
                Some(seen) if seen.row.outcome == Outcome::Cancelled => *seen = fresh,
                Some(_) if a.outcome == Outcome::Cancelled => {}
                Some(seen) => {
                    return Err(ReportError::Conflict {
                        task: a.task.clone(),
                        trial: a.trial,
                        attempt: a.attempt,
                        first: seen.source.clone(),
                        other: fresh.source,
                    });
                }
            }
        }
    }
    Ok(by_task
        .into_iter()
        .map(|(task, trials)| {
            let records = trials
                .into_iter()
                .map(|((ordinal, _side), mut attempts)| {
                    attempts.sort_by_key(|a| a.row.attempt);
                    let first = match attempts.first() {
                        Some(a) if a.row.attempt == 1 => Some(attempts.remove(0)),
                        _ => None,
                    };
                    attempts.shrink_to_fit();
                    TrialRecord {
                        ordinal,
                        first,
                        later: attempts,
                        disposition: Disposition::NoFirstAttempt,
                    }
                })
                .collect();
            (task, records)
        })
        .collect())
}

fn replay_task(
    spec: TaskSpec,
    mut trials: Vec<TrialRecord>,
    interrupted: bool,
    shards: Option<&ShardCoverage>,
) -> Result<TaskReplay, ReportError> {
    // The same ordered sampler `gate run` fed as the trials finished (invariant 2): the rule
    // that decided and the rule that recomputes are one piece of code.
    let mut sampler = OrderedSampler::new(spec.sampling.clone(), spec.max_unavailable, None)
        .map_err(|source| ReportError::Sampling {
            task: spec.id.clone(),
            source,
        })?;
    let sequential = matches!(spec.sampling, Sampling::Sequential { .. });

    // The runner stops consuming at its first harness error: outcomes written after that row
    // (in file order) are never consumed, and neither is anything after them in ordinal order.
    let harness_at = trials
        .iter()
        .flat_map(|t| t.first.iter().chain(t.later.iter()))
        .filter(|a| a.row.outcome == Outcome::HarnessError)
        .min_by_key(|a| a.source.line);
    let harness_error = harness_at.map(|a| harness_text(&a.row, &a.source));
    let harness_at = harness_at.map(|a| a.source.clone());
    let after_harness = |a: &SourcedAttempt| {
        harness_at
            .as_ref()
            .is_some_and(|h| h.path == a.source.path && a.source.line > h.line)
    };

    let mut missing: Vec<OrdinalRange> = Vec::new();
    // The next ordinal in sequence; `None` past `u64::MAX`.
    let mut expected = Some(1u64);
    // An ordinal below a recorded one has no row (not merely the tail never run).
    let mut gap = false;
    let mut retry_passes_refused = 0u64;
    // Trials are offered in ascending ordinal order, so each offer settles at once.
    let disposition_of = |settled: Vec<(u64, SettledAs)>, trial: &mut TrialRecord| {
        if let Some(&(_, d)) = settled.iter().find(|(o, _)| *o == trial.ordinal) {
            trial.disposition = match d {
                SettledAs::Counted => Disposition::Counted,
                SettledAs::Excluded => Disposition::Excluded,
                SettledAs::Cancelled => Disposition::Cancelled,
                SettledAs::HarnessError => Disposition::HarnessError,
            };
        }
    };

    for trial in &mut trials {
        if let Some(first) = expected.filter(|&e| trial.ordinal > e) {
            missing.push(OrdinalRange {
                first,
                last: trial.ordinal - 1,
            });
            gap = true;
        }
        expected = trial.ordinal.checked_add(1);
        retry_passes_refused += trial
            .later
            .iter()
            .filter(|a| a.row.outcome == Outcome::Pass)
            .count() as u64;

        // A trial with only later attempts recorded is a gap, like an ordinal with no row.
        let settled = sampler.gap_before(trial.ordinal);
        disposition_of(settled, trial);
        let Some(first) = &trial.first else {
            trial.disposition = Disposition::NoFirstAttempt;
            continue;
        };
        if after_harness(first) {
            sampler.halt();
        }
        let outcome = first.row.outcome;
        let settled = sampler.offer(trial.ordinal, outcome);
        disposition_of(settled, trial);
    }
    let blocked = sampler.blocked_at_gap();
    let decided_at = sampler.decided_at();
    let counts = sampler.counts();
    let sampler = sampler.rule();

    // Undecided: every ordinal up to the rule's n (max_trials) that no ledger records is
    // missing too, not only the gaps below the highest recorded one.
    if harness_error.is_none() && sampler.decision().is_none() {
        let end = spec.sampling.max_graded();
        if let Some(first) = expected.filter(|&e| e <= end) {
            missing.push(OrdinalRange { first, last: end });
        }
    }

    let tally = sampler.tally();
    let (verdict, reason) = if let Some(text) = &harness_error {
        (Judgement::HarnessError, text.clone())
    } else if let Some(d) = sampler.decision() {
        (Judgement::Verdict(d.verdict), d.reason.clone())
    } else {
        (
            Judgement::Verdict(Verdict::Inconclusive),
            undecided_reason(
                tally.graded(),
                &missing,
                interrupted,
                shards,
                sequential && blocked && gap,
            ),
        )
    };

    Ok(TaskReplay {
        spec,
        trials,
        verdict,
        reason,
        counts,
        llr: sampler.llr(),
        decided_at,
        missing,
        retry_passes_refused,
        harness_error,
        pairs: None,
    })
}

pub(super) fn harness_text(row: &AttemptRow, source: &Source) -> String {
    format!(
        "trial #{} attempt {} could not be run ({source}): {}",
        row.trial,
        row.attempt,
        row.reason.as_deref().unwrap_or("no reason recorded")
    )
}

pub(super) fn undecided_reason(
    graded: u64,
    missing: &[OrdinalRange],
    interrupted: bool,
    shards: Option<&ShardCoverage>,
    stopped_at_gap: bool,
) -> String {
    let after = format!(
        "no verdict is certain after {graded} graded trial{}",
        if graded == 1 { "" } else { "s" }
    );
    if interrupted {
        return format!("interrupted: {after}");
    }
    let mut parts = vec![format!("trials missing: {after}")];
    if let Some(s) = shards.filter(|s| !s.missing.is_empty()) {
        parts.push(format!(
            "shard{} {} of {} absent",
            if s.missing.len() == 1 { "" } else { "s" },
            join_list(&s.missing),
            s.m
        ));
    }
    if !missing.is_empty() {
        let count = ordinal_count(missing);
        parts.push(format!(
            "{count} ordinal{} not recorded ({})",
            if count == 1 { "" } else { "s" },
            ordinal_list(missing)
        ));
    }
    if stopped_at_gap {
        parts.push("a sequential plan stops at its first gap".to_string());
    }
    parts.join("; ")
}

fn join_list(xs: &[u64]) -> String {
    xs.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}

/// At most eight ranges, compactly (`#2–3, #5, #8–33`), then how many ordinals more.
pub(crate) fn ordinal_list(ranges: &[OrdinalRange]) -> String {
    const SHOWN: usize = 8;
    let mut s = ranges
        .iter()
        .take(SHOWN)
        .map(OrdinalRange::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if ranges.len() > SHOWN {
        s.push_str(&format!(" and {} more", ordinal_count(&ranges[SHOWN..])));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::Shard;
    use crate::report::fixture::{self, outcomes, sequential, single};

    fn dir() -> tempfile::TempDir {
        tempfile::tempdir().expect("tempdir")
    }

    fn only(r: &Replay) -> &TaskReplay {
        &r.tasks[0]
    }

    #[test]
    fn single_plan_curtails_and_matches_the_decision_row() {
        let d = dir();
        // n = 10, c = 1: the second failure at ordinal 4 decides FAIL.
        let l = fixture::run(
            &d.path().join("l.jsonl"),
            &[(single("t", 10, 1), outcomes(10, &[2, 4]))],
            None,
        );
        let r = replay(std::slice::from_ref(&l)).unwrap();
        let t = only(&r);
        assert_eq!(t.verdict, Judgement::Verdict(Verdict::Fail));
        assert_eq!(t.decided_at, Some(4));
        assert_eq!(t.counts.run, 4);
        assert_eq!((t.counts.passed, t.counts.failed), (2, 2));
        let d = l.decisions().next().unwrap();
        assert_eq!((d.verdict, d.counts), (t.verdict, t.counts));
        assert_eq!(r.verdict(), Judgement::Verdict(Verdict::Fail));
    }

    #[test]
    fn sequential_plan_replays_to_the_runner_decision() {
        let d = dir();
        let l = fixture::run(
            &d.path().join("l.jsonl"),
            &[(sequential("s", 60), outcomes(60, &[5, 17]))],
            None,
        );
        let r = replay(std::slice::from_ref(&l)).unwrap();
        let t = only(&r);
        let dec = l.decisions().next().unwrap();
        assert_eq!(t.verdict, dec.verdict);
        assert_eq!(t.counts, dec.counts);
        assert_eq!(t.llr, dec.llr);
        assert_eq!(t.verdict, Judgement::Verdict(Verdict::Pass));
    }

    #[test]
    fn three_shards_merge_to_one_run() {
        let d = dir();
        let tasks = [
            (single("a", 30, 3), outcomes(30, &[3, 11, 20])),
            (single("b", 30, 3), outcomes(30, &[1, 5, 8, 13, 22])),
        ];
        let one = fixture::run(&d.path().join("one.jsonl"), &tasks, None);
        let shards: Vec<Ledger> = (1..=3)
            .map(|k| {
                fixture::run(
                    &d.path().join(format!("s{k}.jsonl")),
                    &tasks,
                    Some(Shard { k, m: 3 }),
                )
            })
            .collect();
        let a = replay(std::slice::from_ref(&one)).unwrap();
        let b = replay(&shards).unwrap();
        assert_eq!(a.verdict(), b.verdict());
        for (x, y) in a.tasks.iter().zip(&b.tasks) {
            assert_eq!(x.verdict, y.verdict, "{}", x.spec.id);
            assert_eq!(x.reason, y.reason, "{}", x.spec.id);
            let (cx, cy) = (x.counts, y.counts);
            assert_eq!(
                (cx.run, cx.passed, cx.failed, cx.unavailable),
                (cy.run, cy.passed, cy.failed, cy.unavailable),
                "{}",
                x.spec.id
            );
        }
        // The shards ran past b's decision point (ordinal 13): those trials are excluded.
        assert_eq!(b.tasks[1].counts.excluded, 30 - 13);
        let cov = b.shards.unwrap();
        assert_eq!((cov.present, cov.missing), (vec![1, 2, 3], vec![]));
    }

    #[test]
    fn a_missing_shard_is_missing_trials_unless_the_verdict_is_certain() {
        let d = dir();
        let tasks = [
            // Four failures among ordinals owned by shards 1 and 2: FAIL is certain.
            (single("certain", 30, 3), outcomes(30, &[1, 2, 4, 5])),
            (single("open", 30, 3), outcomes(30, &[1])),
        ];
        let shards: Vec<Ledger> = (1..=2)
            .map(|k| {
                fixture::run(
                    &d.path().join(format!("s{k}.jsonl")),
                    &tasks,
                    Some(Shard { k, m: 3 }),
                )
            })
            .collect();
        let r = replay(&shards).unwrap();
        assert_eq!(r.tasks[0].verdict, Judgement::Verdict(Verdict::Fail));
        assert_eq!(
            r.tasks[1].verdict,
            Judgement::Verdict(Verdict::Inconclusive)
        );
        assert!(
            r.tasks[1].reason.starts_with("trials missing"),
            "{}",
            r.tasks[1].reason
        );
        assert!(r.tasks[1].reason.contains("shard 3 of 3 absent"));
        assert_eq!(r.shards.as_ref().unwrap().missing, vec![3]);
        assert_eq!(r.verdict(), Judgement::Verdict(Verdict::Fail));
    }

    #[test]
    fn a_sequential_plan_stops_at_its_first_gap() {
        let d = dir();
        let tasks = [(sequential("s", 60), outcomes(60, &[]))];
        let shards: Vec<Ledger> = [1, 3]
            .iter()
            .map(|&k| {
                fixture::run(
                    &d.path().join(format!("s{k}.jsonl")),
                    &tasks,
                    Some(Shard { k, m: 3 }),
                )
            })
            .collect();
        let r = replay(&shards).unwrap();
        let t = only(&r);
        // Ordinal 1 is consumed, ordinal 2 is missing: nothing after it counts.
        assert_eq!(t.counts.run, 1);
        assert_eq!(t.verdict, Judgement::Verdict(Verdict::Inconclusive));
        assert!(t.reason.contains("stops at its first gap"), "{}", t.reason);
        assert_eq!(t.counts.excluded, 40 - 1);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

        /// Any single plan, any outcomes, any number of shards: the merged shards decide as
        /// one run of the same trials, with the same counts (bar trials run past the decision).
        #[test]
        fn shards_merge_like_one_run(
            n in 1u64..40,
            c_frac in 0.0f64..0.5,
            fails in proptest::collection::vec(proptest::bool::weighted(0.25), 40),
            m in 1u64..5,
        ) {
            let c = ((n as f64) * c_frac) as u64;
            let outs: Vec<Outcome> = fails[..n as usize]
                .iter()
                .map(|&f| if f { Outcome::Fail } else { Outcome::Pass })
                .collect();
            let d = dir();
            let tasks = [(single("t", n, c), outs)];
            let one = fixture::run(&d.path().join("one.jsonl"), &tasks, None);
            let shards: Vec<Ledger> = (1..=m)
                .map(|k| fixture::run(
                    &d.path().join(format!("s{k}.jsonl")),
                    &tasks,
                    Some(Shard { k, m }),
                ))
                .collect();
            let a = replay(std::slice::from_ref(&one)).unwrap();
            let b = replay(&shards).unwrap();
            let (x, y) = (only(&a), only(&b));
            proptest::prop_assert_eq!(x.verdict, y.verdict);
            proptest::prop_assert_eq!(&x.reason, &y.reason);
            proptest::prop_assert_eq!(x.decided_at, y.decided_at);
            let (cx, cy) = (x.counts, y.counts);
            proptest::prop_assert_eq!(
                (cx.run, cx.passed, cx.failed, cx.unavailable, cx.cancelled),
                (cy.run, cy.passed, cy.failed, cy.unavailable, cy.cancelled)
            );
            // And the one run's decision row is what the replay recomputes.
            let dec = one.decisions().next().unwrap();
            proptest::prop_assert_eq!((dec.verdict, dec.counts), (x.verdict, x.counts));
        }
    }

    #[test]
    fn missing_ordinals_are_ranges_up_to_n_while_undecided() {
        let d = dir();
        let rows = vec![
            Row::Header(fixture::header(vec![single("t", 1000, 10)], None)),
            Row::Attempt(fixture::attempt("t", 1, 1, Outcome::Pass)),
            Row::Attempt(fixture::attempt("t", 2, 1, Outcome::Pass)),
            Row::Attempt(fixture::attempt("t", 5, 1, Outcome::Pass)),
            Row::Footer(crate::ledger::Footer {
                finished_at: "x".into(),
                status: RunStatus::Complete,
                verdict: Judgement::Verdict(Verdict::Inconclusive),
                exit_code: 3,
            }),
        ];
        let t = replay(&[write(&d.path().join("l.jsonl"), rows)])
            .unwrap()
            .tasks
            .remove(0);
        let r = |first, last| OrdinalRange { first, last };
        assert_eq!(t.missing, vec![r(3, 4), r(6, 1000)]);
        assert_eq!(ordinal_count(&t.missing), 997);
        assert!(
            t.reason
                .contains("997 ordinals not recorded (#3–4, #6–1000)"),
            "{}",
            t.reason
        );
    }

    #[test]
    fn a_decided_task_has_no_trailing_missing_ordinals() {
        let d = dir();
        let l = fixture::run(
            &d.path().join("l.jsonl"),
            &[(single("t", 10, 1), outcomes(10, &[2, 4]))],
            None,
        );
        assert!(replay(&[l]).unwrap().tasks[0].missing.is_empty());
    }

    #[test]
    fn ordinals_within_the_rows_and_the_jobs_of_every_session_are_accepted() {
        let d = dir();
        // Two rows, `--jobs 2` in the header: a crash may have lost up to 4 trials before
        // the highest recorded one, so #6 is possible and #7 is not.
        let mut h = fixture::header(vec![single("t", 30, 3)], None);
        h.jobs = 2;
        let rows = |last| {
            vec![
                Row::Header(h.clone()),
                Row::Attempt(fixture::attempt("t", 1, 1, Outcome::Pass)),
                Row::Attempt(fixture::attempt("t", last, 1, Outcome::Pass)),
            ]
        };
        assert!(replay(&[write(&d.path().join("a.jsonl"), rows(6))]).is_ok());
        let err = replay(&[write(&d.path().join("b.jsonl"), rows(7))]).unwrap_err();
        assert!(
            matches!(
                err,
                ReportError::ImpossibleOrdinal {
                    trial: 7,
                    limit: 6,
                    ..
                }
            ),
            "{err}"
        );
        // A `--resume -j 8` session may have lost more.
        let mut with_resume = rows(7);
        with_resume.insert(
            2,
            Row::Resume(crate::ledger::Resume {
                started_at: "x".into(),
                argv: vec!["gate".into(), "run".into(), "-j".into(), "8".into()],
                host: "ci".into(),
                sandbox: None,
            }),
        );
        assert!(replay(&[write(&d.path().join("c.jsonl"), with_resume)]).is_ok());
    }

    #[test]
    fn session_jobs_reads_every_spelling() {
        let v = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(session_jobs(&v(&["gate", "run", "--jobs", "4"])), Some(4));
        assert_eq!(session_jobs(&v(&["gate", "run", "--jobs=5"])), Some(5));
        assert_eq!(session_jobs(&v(&["gate", "run", "-j", "6"])), Some(6));
        assert_eq!(session_jobs(&v(&["gate", "run", "-j7"])), Some(7));
        assert_eq!(session_jobs(&v(&["gate", "run", "--resume"])), None);
    }

    #[test]
    fn the_same_ledger_twice_is_deduplicated() {
        let d = dir();
        let l = fixture::run(
            &d.path().join("l.jsonl"),
            &[(single("t", 10, 1), outcomes(10, &[3]))],
            None,
        );
        let once = replay(std::slice::from_ref(&l)).unwrap();
        let twice = replay(&[l.clone(), l]).unwrap();
        assert_eq!(once.tasks[0].counts, twice.tasks[0].counts);
        assert_eq!(once.tasks[0].verdict, twice.tasks[0].verdict);
    }

    fn write(path: &std::path::Path, rows: Vec<Row>) -> Ledger {
        let mut w = fixture::writer(path);
        for row in rows {
            w.append(row).unwrap();
        }
        Ledger::read(path).unwrap()
    }

    #[test]
    fn two_different_rows_for_one_attempt_name_both_files() {
        let d = dir();
        let h = || Row::Header(fixture::header(vec![single("t", 5, 1)], None));
        let a = write(
            &d.path().join("a.jsonl"),
            vec![
                h(),
                Row::Attempt(fixture::attempt("t", 1, 1, Outcome::Pass)),
            ],
        );
        let b = write(
            &d.path().join("b.jsonl"),
            vec![
                h(),
                Row::Attempt(fixture::attempt("t", 1, 1, Outcome::Fail)),
            ],
        );
        let err = replay(&[a, b]).unwrap_err().to_string();
        assert!(err.contains("a.jsonl:2"), "{err}");
        assert!(err.contains("b.jsonl:2"), "{err}");
        assert!(err.contains("trial #1 attempt 1"), "{err}");
    }

    #[test]
    fn mixed_plan_or_fixture_hashes_are_refused() {
        let d = dir();
        let mut other = fixture::header(vec![single("t", 5, 1)], None);
        other.plan_hash = "q".repeat(64);
        let a = write(
            &d.path().join("a.jsonl"),
            vec![Row::Header(fixture::header(vec![single("t", 5, 1)], None))],
        );
        let b = write(&d.path().join("b.jsonl"), vec![Row::Header(other.clone())]);
        assert!(matches!(
            replay(&[a.clone(), b]),
            Err(ReportError::MixedPlan { .. })
        ));
        other.plan_hash = "p".repeat(64);
        other.fixture_hash = "g".repeat(64);
        let c = write(&d.path().join("c.jsonl"), vec![Row::Header(other)]);
        assert!(matches!(
            replay(&[a, c]),
            Err(ReportError::MixedFixture { .. })
        ));
    }

    #[test]
    fn a_whole_run_and_a_shard_are_not_merged() {
        let d = dir();
        let tasks = [(single("t", 10, 1), outcomes(10, &[]))];
        let whole = fixture::run(&d.path().join("whole.jsonl"), &tasks, None);
        let shard = fixture::run(
            &d.path().join("s1.jsonl"),
            &tasks,
            Some(Shard { k: 1, m: 2 }),
        );
        let err = replay(&[whole, shard]).unwrap_err().to_string();
        assert!(err.contains("whole.jsonl"), "{err}");
        assert!(err.contains("shard 1/2"), "{err}");
    }

    #[test]
    fn retries_are_never_promoted_and_are_counted() {
        let d = dir();
        let l = write(
            &d.path().join("l.jsonl"),
            vec![
                Row::Header(fixture::header(vec![single("t", 2, 0)], None)),
                Row::Attempt(fixture::attempt("t", 1, 1, Outcome::Unavailable)),
                Row::Attempt(fixture::attempt("t", 1, 2, Outcome::Pass)),
                Row::Attempt(fixture::attempt("t", 2, 1, Outcome::Pass)),
                Row::Attempt(fixture::attempt("t", 3, 1, Outcome::Pass)),
            ],
        );
        let r = replay(&[l]).unwrap();
        let t = only(&r);
        assert_eq!(t.retry_passes_refused, 1);
        assert_eq!(
            (t.counts.passed, t.counts.unavailable, t.counts.run),
            (2, 1, 3)
        );
        assert_eq!(t.verdict, Judgement::Verdict(Verdict::Pass));
    }

    #[test]
    fn a_cancelled_attempt_gives_way_to_its_resumed_run() {
        let d = dir();
        let h = Row::Header(fixture::header(vec![single("t", 2, 0)], None));
        let l = write(
            &d.path().join("l.jsonl"),
            vec![
                h,
                Row::Attempt(fixture::attempt("t", 1, 1, Outcome::Pass)),
                Row::Attempt(fixture::attempt("t", 2, 1, Outcome::Cancelled)),
                Row::Attempt(fixture::attempt("t", 2, 1, Outcome::Fail)),
            ],
        );
        let t = replay(&[l]).unwrap().tasks.remove(0);
        assert_eq!(t.verdict, Judgement::Verdict(Verdict::Fail));
        assert_eq!(t.counts.cancelled, 0);
    }

    #[test]
    fn a_cancelled_trial_is_skipped_not_a_gap_even_for_a_sequential_plan() {
        let d = dir();
        let spec = sequential("s", 60);
        let mut rows = vec![Row::Header(fixture::header(vec![spec], None))];
        rows.push(Row::Attempt(fixture::attempt(
            "s",
            1,
            1,
            Outcome::Cancelled,
        )));
        for o in 2..=40 {
            rows.push(Row::Attempt(fixture::attempt("s", o, 1, Outcome::Pass)));
        }
        let t = replay(&[write(&d.path().join("l.jsonl"), rows)])
            .unwrap()
            .tasks
            .remove(0);
        assert_eq!(t.verdict, Judgement::Verdict(Verdict::Pass));
        assert_eq!(t.counts.cancelled, 1);
        assert!(t.missing.is_empty());
    }

    #[test]
    fn nothing_written_after_a_harness_error_is_consumed() {
        let d = dir();
        // Rows in completion order: #1, #4, #3 (harness error), #2.
        let rows = vec![
            Row::Header(fixture::header(vec![single("t", 10, 1)], None)),
            Row::Attempt(fixture::attempt("t", 1, 1, Outcome::Pass)),
            Row::Attempt(fixture::attempt("t", 4, 1, Outcome::Pass)),
            Row::Attempt(fixture::attempt("t", 3, 1, Outcome::HarnessError)),
            Row::Attempt(fixture::attempt("t", 2, 1, Outcome::Fail)),
        ];
        let t = replay(&[write(&d.path().join("l.jsonl"), rows)])
            .unwrap()
            .tasks
            .remove(0);
        assert_eq!(t.verdict, Judgement::HarnessError);
        assert_eq!(
            (t.counts.run, t.counts.passed, t.counts.excluded),
            (1, 1, 2)
        );
    }

    #[test]
    fn a_harness_error_leaves_no_verdict() {
        let d = dir();
        let l = fixture::run(
            &d.path().join("l.jsonl"),
            &[
                (single("ok", 3, 0), outcomes(3, &[])),
                (
                    single("broken", 3, 0),
                    vec![Outcome::Pass, Outcome::HarnessError],
                ),
            ],
            None,
        );
        let r = replay(&[l]).unwrap();
        assert_eq!(r.tasks[0].verdict, Judgement::Verdict(Verdict::Pass));
        assert_eq!(r.tasks[1].verdict, Judgement::HarnessError);
        assert!(
            r.tasks[1].reason.contains("not found"),
            "{}",
            r.tasks[1].reason
        );
        assert_eq!(r.verdict(), Judgement::HarnessError);
    }

    #[test]
    fn an_unfinished_run_is_interrupted() {
        let d = dir();
        let l = write(
            &d.path().join("l.jsonl"),
            vec![
                Row::Header(fixture::header(vec![single("t", 5, 1)], None)),
                Row::Attempt(fixture::attempt("t", 1, 1, Outcome::Pass)),
                Row::Attempt(fixture::attempt("t", 2, 1, Outcome::Cancelled)),
            ],
        );
        let r = replay(&[l]).unwrap();
        assert!(r.interrupted());
        let t = only(&r);
        assert_eq!(t.verdict, Judgement::Verdict(Verdict::Inconclusive));
        assert!(t.reason.starts_with("interrupted"), "{}", t.reason);
        assert_eq!(t.counts.cancelled, 1);
    }
}
