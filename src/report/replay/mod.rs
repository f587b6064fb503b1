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

//!
//! The files: `read.rs` merges the ledgers (the checks that they are one run, its shards and its
//! tasks, and the attempt rows by trial); `task.rs` recomputes one task with the ordered
//! sampler; `pairs.rs` recomputes a `compare` task with the pair sampler. The types of the
//! result are here, below both.

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::ledger::{AttemptRow, Ledger, RunStatus, TaskSpec};
use crate::model::{Counts, Judgement, OnInconclusive, Outcome, Shard, Verdict};
use crate::sampler::Disposition;

use super::error::{ReportError, Source};

mod family;
mod pairs;
mod read;
mod task;
#[cfg(test)]
mod tests;

pub use read::check_spec;

/// One attempt row and where it was read.
#[derive(Debug, Clone)]
pub struct SourcedAttempt {
    /// The row: the ledger's own, shared (a suite of 100,000 cases has 900,000 of them, and
    /// a copy of each held the replay's memory twice over: issue 30).
    pub row: std::sync::Arc<AttemptRow>,
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

    /// Its later attempts that passed: recorded, never promoted to the trial's grade.
    pub fn retry_passes(&self) -> u64 {
        self.later
            .iter()
            .filter(|a| a.row.outcome == Outcome::Pass)
            .count() as u64
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
    pub pairs: Option<crate::pair_sampler::PairCounts>,
}

impl TaskReplay {
    /// The trials whose attempt 1 the sampler consumed, in ordinal order.
    pub fn counted(&self) -> impl Iterator<Item = &AttemptRow> {
        self.trials
            .iter()
            .filter(|t| t.disposition == Disposition::Counted)
            .filter_map(|t| t.first.as_ref().map(|a| &*a.row))
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
    /// The 1-based line of a last row left out because no hash covered it (a ledger
    /// without a footer: [`crate::ledger::Ledger::chain_covered`]).
    pub left_out: Option<u64>,
    /// Hex SHA-256 of its last complete line (the head of the hash chain). The chain protects
    /// every row before the last; the last row itself is protected only by comparing this
    /// hash with one recorded elsewhere (e.g. the CI log of the run).
    pub head_sha256: String,
    /// The walls of the box its header and resume rows record, each once (none in a
    /// schema-1 ledger or one of `gate ingest`).
    pub sandbox: Vec<crate::model::Walls>,
}

impl LedgerInfo {
    /// Whether the run it records ended interrupted or without a footer.
    pub fn interrupted(&self) -> bool {
        matches!(self.status, None | Some(RunStatus::Interrupted))
    }
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
    pub tasks: Vec<Box<TaskReplay>>,
    /// A harness error recorded by a footer without any harness_error row to show for it.
    pub footer_harness_error: bool,
}

impl Replay {
    /// Whether any ledger ended interrupted or without a footer.
    pub fn interrupted(&self) -> bool {
        self.ledgers.iter().any(LedgerInfo::interrupted)
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

/// A suite's test case skipped in every run ([`crate::ledger::SuiteRun::never_ran`]): no
/// trial, INCONCLUSIVE, with the reason its decision row gives (review 8, a15).
/// In a `compare:` suite, base skipped it in every run (review 10, a15).
fn skipped_in_every_run(spec: TaskSpec) -> TaskReplay {
    let reason = if spec.compare.is_some() {
        crate::pair_sampler::SKIPPED_ON_BASE_IN_EVERY_RUN
    } else {
        crate::ledger::SKIPPED_IN_EVERY_RUN
    };
    TaskReplay {
        spec,
        trials: Vec::new(),
        verdict: Judgement::Verdict(Verdict::Inconclusive),
        reason: reason.to_string(),
        counts: Counts::default(),
        llr: None,
        decided_at: None,
        missing: Vec::new(),
        retry_passes_refused: 0,
        harness_error: None,
        pairs: None,
    }
}

/// Replay one or more ledgers of the same plan and fixtures.
pub fn replay(ledgers: &[Ledger]) -> Result<Replay, ReportError> {
    let Some(first) = ledgers.first() else {
        return Err(ReportError::NoLedgers);
    };
    let h0 = first.header();
    read::refuse_mixed_runs(ledgers)?;
    let shards = read::shard_coverage(ledgers)?;
    family::refuse_mixed_families(ledgers)?;
    let merged = read::merged_specs(ledgers)?;
    let suites: BTreeSet<String> = merged
        .iter()
        .filter(|s| s.suite.is_some())
        .map(|s| s.id.clone())
        .collect();
    let mut never_ran = BTreeSet::new();
    let specs = read::expand_suites(ledgers, merged, &mut never_ran);
    let mut by_task = read::collect_attempts(ledgers, &specs, &suites)?;

    let infos: Vec<LedgerInfo> = ledgers.iter().map(read::ledger_info).collect();
    let interrupted = infos.iter().any(LedgerInfo::interrupted);
    let footer_harness_error = infos
        .iter()
        .any(|l| l.status == Some(RunStatus::HarnessError));

    let mut tasks = Vec::with_capacity(specs.len());
    for spec in specs {
        let trials = by_task.remove(&spec.id).unwrap_or_default();
        if never_ran.contains(&spec.id) {
            tasks.push(Box::new(skipped_in_every_run(spec)));
            continue;
        }
        if spec.compare.is_some() {
            tasks.push(Box::new(pairs::replay_pairs(spec, trials, interrupted)?));
            continue;
        }
        tasks.push(Box::new(task::replay_task(
            spec,
            trials,
            interrupted,
            shards.as_ref(),
        )?));
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
