//! The report model: every figure a report prints, computed once from a [`Replay`] of ledger
//! rows (invariant 4). The renderers (terminal, JSON, JUnit, Markdown, annotations) only
//! format what is here, so they cannot disagree with one another.

//!
//! The types are here; `build.rs` computes them.

use schemars::JsonSchema;
use serde::Serialize;

use crate::model::{Judgement, OnInconclusive, Verdict};
use crate::stats::estimate::Interval;
use crate::stats::zone::Zone;

use super::replay::{Replay, TaskReplay};

mod build;
#[cfg(test)]
mod tests;

/// Confidence of every interval in the reports.
pub const CONFIDENCE: f64 = 0.95;

/// The computed report of one run, or of the merged shards of one run.
#[derive(Debug, Clone)]
pub struct Report {
    /// The replayed ledgers (their tasks moved into [`Report::tasks`]).
    pub replay: Replay,
    /// What an INCONCLUSIVE gate exits with (the recorded policy, or the override).
    pub on_inconclusive: OnInconclusive,
    /// One entry per task, in plan order.
    pub tasks: Vec<TaskReport>,
    /// The gate's multiplicity cost.
    pub multiplicity: Multiplicity,
    /// The exit code the caller actually uses, when it differs from the verdict's (set by
    /// [`Report::with_exit_code`]).
    exit_override: Option<u8>,
    /// Set by [`Report::listing_every_case`] (`--verbose`).
    every_case: bool,
    /// Where a staged run stands, when the ledgers are stages of one.
    pub stages: Option<super::stages::StageStatus>,
    /// The suite tasks: each one family of test cases.
    pub suites: Vec<SuiteSummary>,
}

/// A suite task as one family of test cases: what its design guarantees and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteSummary {
    /// The suite task's id.
    pub id: String,
    /// Test cases (K).
    pub cases: u64,
    /// The family risk the design guarantees: 1 − (1 − a)^K with a the case rule's exact
    /// P(not PASS | healthy) (P(FAIL | healthy) under `on_inconclusive: pass`), a bound for
    /// independent cases each at or above the healthy rate; `None` without a family design
    /// (a fixed `single:` rule, or a ledger of an earlier gate).
    pub alpha: Option<f64>,
    /// The suite's alpha the design was asked to keep, when it has one.
    pub target: Option<f64>,
    /// Suite runs that ran (their results read).
    pub runs: u64,
    /// Test-case executions over those runs.
    pub case_runs: u64,
    /// A `compare:` suite: each case paired head against base (its runs count both sides'),
    /// and "healthy" means head as good as base.
    pub compare: bool,
    /// The rule has a family design, but the ledger records none: it ends before the row of
    /// the suite run that fixed the cases (an interrupted run), so its cases were replayed at
    /// the plan's alpha (review 9, a06: not "the rule states no healthy rate").
    pub undesigned: bool,
}

/// A share.
// A count out of a total, e.g. 12 of 20. In the JSON report it is a [`ShareJson`], which
// adds the ratio.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
// `with`: the schema of what is written, whatever the generator's contract.
#[serde(into = "ShareJson")]
#[schemars(with = "ShareJson", rename = "JsonShare")]
pub struct Share {
    /// Numerator.
    pub num: u64,
    /// Denominator.
    pub den: u64,
}

impl Share {
    /// The ratio, or `None` when the denominator is zero.
    pub fn value(&self) -> Option<f64> {
        (self.den > 0).then(|| self.num as f64 / self.den as f64)
    }
}

/// A share.
// The JSON shape of a [`Share`]: the ratio is derived, so it has no field in the model.
#[derive(Serialize, JsonSchema)]
pub struct ShareJson {
    /// num / den, or `null` when den = 0.
    pub rate: Option<f64>,
    /// Numerator.
    pub num: u64,
    /// Denominator.
    pub den: u64,
}

impl From<Share> for ShareJson {
    fn from(s: Share) -> Self {
        ShareJson {
            rate: s.value(),
            num: s.num,
            den: s.den,
        }
    }
}

/// How the published pass rate accounts for the way the trials stopped (invariant 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EstimateMethod {
    /// The rule decided (PASS, FAIL, or INCONCLUSIVE at its `max_trials`): median-unbiased
    /// estimate and exact interval under the stage-wise ordering of the rule's sample space.
    Stagewise,
    /// The run stopped before the rule decided (unavailable budget, interruption, missing
    /// trials or shards, harness error): the same, for the rule truncated at the graded
    /// trials — valid when that stop did not depend on the grades.
    StagewiseTruncated,
    /// No stopping rule applies (a plan that needs no trial to pass): fixed-n figures.
    FixedN,
}

impl EstimateMethod {
    /// The name in the JSON and JUnit reports.
    pub fn as_str(self) -> &'static str {
        match self {
            EstimateMethod::Stagewise => "stagewise",
            EstimateMethod::StagewiseTruncated => "stagewise_truncated",
            EstimateMethod::FixedN => "fixed_n",
        }
    }
}

/// The naive pass rate.
// The figures that ignore how the trials stopped: biased after a sequential or curtailed
// stop, kept for comparison and labelled naive everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "JsonNaivePassRate")]
pub struct NaivePassRate {
    /// passed / graded.
    pub estimate: f64,
    /// 95% Wilson interval.
    #[serde(rename = "ci95")]
    pub wilson: Interval,
    /// 95% Clopper–Pearson interval.
    // Exact only for a fixed number of trials.
    #[serde(rename = "ci95_clopper_pearson")]
    pub clopper_pearson: Interval,
}

/// The per-trial pass rate: a stopping-aware estimate with its exact 95% interval, and the
/// naive figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PassRate {
    /// Median-unbiased estimate under the rule's stage-wise ordering ([`EstimateMethod`]).
    pub estimate: f64,
    /// Exact 95% interval under the same ordering: coverage >= 95% at every true rate.
    pub ci95: Interval,
    /// How the two above were computed.
    pub method: EstimateMethod,
    /// passed / graded and its fixed-n intervals.
    pub naive: NaivePassRate,
}

/// pass@k and pass^k.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "JsonPassAtK")]
pub struct PassAtK {
    /// k.
    pub k: u64,
    /// P(at least one of k passes), from the stopping-aware pass rate.
    // `1 - (1 - p̃)^k` from the stopping-aware estimate p̃ (median-unbiased, since the map
    // is monotone).
    pub pass_at_k: f64,
    /// P(all k pass), from the stopping-aware pass rate.
    // `p̃^k`.
    pub pass_hat_k: f64,
    /// Exact 95% interval for pass@k.
    // The pass-rate interval mapped through `1 - (1 - p)^k`.
    pub pass_at_k_ci95: Interval,
    /// Exact 95% interval for pass^k.
    // The pass-rate interval mapped through `p^k`.
    pub pass_hat_k_ci95: Interval,
    /// The combinatorial estimators on the graded trials, conditional on the stop.
    pub naive: NaivePassAtK,
}

/// The combinatorial pass@k and pass^k.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "JsonNaivePassAtK")]
pub struct NaivePassAtK {
    /// 1 - C(n-s, k)/C(n, k).
    // Chen et al.: unbiased for a fixed number of trials, conditional on the stop (and
    // biased) after one.
    pub pass_at_k: f64,
    /// C(s, k)/C(n, k).
    // tau-bench's pass^k, conditional on the stop.
    pub pass_hat_k: f64,
}

/// The failure class of a JUnit test case that failed (`gate ingest`).
pub const TEST_CASE_FAILED: &str = "test case failed";

/// A retry setting.
// What a CI retry setting of R would have reported: pass@(R+1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "JsonRetry")]
pub struct RetrySetting {
    /// Extra attempts after a failure.
    pub retries: u64,
    /// pass@(retries + 1), from the stopping-aware pass rate.
    pub p_green: f64,
    /// pass@(retries + 1) by the combinatorial estimator, conditional on the stop.
    pub naive_p_green: f64,
}

/// What uncounted trials cost.
// Trials that were launched but not counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "JsonUncounted")]
pub struct Uncounted {
    /// How many.
    pub trials: u64,
    /// Wall time of all their attempts, seconds.
    #[serde(rename = "duration_s")]
    pub seconds: f64,
    /// Cost their result files reported, or `null`.
    pub cost: Option<Spend>,
    /// Tokens their result files reported, or `null`.
    pub tokens: Option<Spend>,
}

/// A warning that a printed risk assumed no unavailable trials, where the run saw many.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaultRisk {
    /// Unavailable trials consumed.
    pub unavailable: u64,
    /// Trials consumed (graded + unavailable).
    pub drawn: u64,
    /// The budget: one more unavailable trial makes the task INCONCLUSIVE.
    pub budget: u64,
    /// Which risk.
    pub risk: RiskKind,
    /// The true rate the risk is stated at.
    pub rate: f64,
    /// The risk as printed (no unavailable trials).
    pub printed: f64,
    /// The exact risk at the observed unavailable rate, with the budget.
    pub at_observed: f64,
}

impl FaultRisk {
    /// The observed unavailable rate.
    pub fn observed_rate(&self) -> f64 {
        self.unavailable as f64 / self.drawn as f64
    }
}

/// A gate-turning risk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RiskKind {
    /// P(not PASS | healthy): an INCONCLUSIVE fails the gate.
    NotPassHealthy,
    /// P(not FAIL | regressed): an INCONCLUSIVE passes the gate (`on_inconclusive: pass`).
    NotFailRegressed,
}

impl RiskKind {
    /// In words, e.g. `P(not PASS | healthy)`.
    pub fn words(self) -> &'static str {
        match self {
            RiskKind::NotPassHealthy => "P(not PASS | healthy)",
            RiskKind::NotFailRegressed => "P(not FAIL | regressed)",
        }
    }

    /// The name in the JSON report.
    pub fn as_str(self) -> &'static str {
        match self {
            RiskKind::NotPassHealthy => "not_pass_healthy",
            RiskKind::NotFailRegressed => "not_fail_regressed",
        }
    }
}

/// A printed risk is wrong at the observed unavailable rate when the exact risk there is
/// [`FAULT_RISK_GAP`] or more above it, or [`FAULT_RISK_FACTOR`] times it and at least
/// [`FAULT_RISK_MIN_GAP`] above it. (One unavailable trial in 30 moves a 4.2% risk to 4.7%:
/// real, but within what the observed rate itself is unsure of, so no warning.)
pub const FAULT_RISK_GAP: f64 = 0.01;

/// See [`FAULT_RISK_GAP`].
pub const FAULT_RISK_FACTOR: f64 = 1.25;

/// See [`FAULT_RISK_GAP`]: below this absolute gap, no ratio is worth a warning.
pub const FAULT_RISK_MIN_GAP: f64 = 0.001;

/// Failure classes.
// Graded failures, each in one class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(rename = "JsonFailures")]
pub struct FailureShape {
    /// Timed out.
    // Under `timeout: fail`.
    pub timeout: u64,
    /// `run` exited non-zero or was killed.
    pub run_failed: u64,
    /// `check` exited non-zero.
    // `run` exited 0.
    pub check_failed: u64,
    /// The result file said `"pass": false`.
    // Both `run` and `check` exited 0.
    pub result_fail: u64,
    /// A JUnit test case failed (`gate ingest`).
    // No process of gate's own ran it.
    pub test_failed: u64,
    /// Anything else.
    pub other: u64,
}

impl FailureShape {
    /// Each class with its name as every report prints it, in a fixed order.
    pub fn by_class(&self) -> [(&'static str, u64); 6] {
        [
            ("timeout", self.timeout),
            ("run exited non-zero", self.run_failed),
            ("check failed", self.check_failed),
            ("result said pass: false", self.result_fail),
            (TEST_CASE_FAILED, self.test_failed),
            ("other", self.other),
        ]
    }

    /// All graded failures.
    pub fn total(&self) -> u64 {
        self.by_class().iter().map(|(_, n)| n).sum()
    }
}

/// Latency.
// Of graded attempt-1 durations (nearest-rank percentiles).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "JsonLatency")]
pub struct Latency {
    /// Median, seconds.
    pub p50: f64,
    /// 95th percentile, seconds.
    pub p95: f64,
}

/// Cost or tokens.
// As reported in result files, over every attempt of the task. In the JSON report it is a
// [`SpendJson`], which adds the mean.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
// `with`: the schema of what is written, whatever the generator's contract.
#[serde(into = "SpendJson")]
#[schemars(with = "SpendJson", rename = "JsonSpend")]
pub struct Spend {
    /// Sum over the attempts that reported it.
    pub total: f64,
    /// Attempts that reported it.
    pub reporting: u64,
}

impl Spend {
    /// Add one attempt's reported value (ignored when absent or not finite).
    fn add(spend: &mut Option<Spend>, value: Option<f64>) {
        if let Some(v) = value.filter(|v| v.is_finite()) {
            let s = spend.get_or_insert(Spend {
                total: 0.0,
                reporting: 0,
            });
            s.total += v;
            s.reporting += 1;
        }
    }

    /// Mean per reporting attempt.
    pub fn mean(&self) -> f64 {
        if self.reporting == 0 {
            0.0
        } else {
            self.total / self.reporting as f64
        }
    }
}

/// Cost or tokens.
// The JSON shape of a [`Spend`]: the mean is derived, so it has no field in the model.
#[derive(Serialize, JsonSchema)]
pub struct SpendJson {
    /// Sum over reporting attempts.
    pub total: f64,
    /// Mean per reporting attempt.
    pub mean: f64,
    /// Attempts that reported it.
    pub attempts_reporting: u64,
}

impl From<Spend> for SpendJson {
    fn from(s: Spend) -> Self {
        SpendJson {
            total: s.total,
            mean: s.mean(),
            attempts_reporting: s.reporting,
        }
    }
}

/// The score vector.
// How the task succeeds, not only whether.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "JsonScore")]
pub struct ScoreVector {
    /// First-attempt success.
    // Passes on the task's own first internal attempt (`result.attempts` absent or 1), of
    // graded trials.
    pub first_attempt: Share,
    /// Within-budget success.
    // Passes within the task's own budget, of graded trials (with `gate ingest`, a trial
    // whose first attempt failed and a test runner's retry passed counts here).
    pub within_budget: Share,
    /// Recovery rate.
    // Of graded trials that did not pass on their first internal attempt, those that passed.
    pub recovery: Share,
    /// Failures by class.
    pub failures: FailureShape,
    /// `null` without graded trials.
    // Latency of graded trials.
    #[serde(rename = "latency_s")]
    pub latency: Option<Latency>,
    /// `null` when no result file reported it.
    // Cost reported by result files.
    pub cost: Option<Spend>,
    /// `null` when no result file reported it.
    // Tokens reported by result files.
    pub tokens: Option<Spend>,
    /// Unavailable trials consumed.
    pub unavailable: u64,
    /// Later attempts that passed, never promoted.
    // Not promoted to the trial's grade.
    pub retry_passes_refused: u64,
    /// Graded trials that made more than one attempt of their own: a result file reporting
    /// `attempts` above 1, or (with `gate ingest`) a test runner's retry after the graded
    /// failure. Zero for a suite run with retries off: then first-attempt, within-budget and
    /// recovery say nothing the pass rate does not. Not in the JSON report.
    #[serde(skip)]
    pub internal_attempts: u64,
}

/// One OC point.
// One point of the plan's operating characteristic.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "JsonOc")]
pub struct OcPoint {
    /// True success rate.
    // Per trial.
    pub p: f64,
    /// P(PASS | p).
    pub pass: f64,
    /// P(FAIL | p).
    pub fail: f64,
    /// P(INCONCLUSIVE | p).
    // Non-zero only for a truncated sequential plan.
    pub inconclusive: f64,
}

/// A task's report.
#[derive(Debug, Clone)]
pub struct TaskReport {
    /// The replay: spec, trials, verdict, reason, counts.
    pub replay: Box<TaskReplay>,
    /// The plan in words.
    pub plan: std::sync::Arc<str>,
    /// Graded trials (passed + failed).
    pub graded: u64,
    /// The pass rate and its intervals, when at least one trial was graded.
    pub pass_rate: Option<PassRate>,
    /// pass@k and pass^k for k = 1, 3, and 5 when at least 5 trials were graded.
    pub pass_at: std::sync::Arc<[PassAtK]>,
    /// What a CI retry setting of R would have reported on the same data: pass@(R+1), for R
    /// from 1 while R+1 <= graded (at most R = 4).
    pub retry_settings: std::sync::Arc<[RetrySetting]>,
    /// Trials stopped in flight at the decision (cancelled), never counted.
    pub cancelled: Uncounted,
    /// Trials that finished beyond the decision point (excluded), never counted.
    pub excluded: Uncounted,
    /// Trials whose attempt 1 timed out and that were replaced (`timeout: unavailable`).
    pub timeouts_replaced: u64,
    /// Set when the observed unavailable rate makes the printed risk wrong.
    pub fault_risk: Option<FaultRisk>,
    /// The score vector.
    pub score: ScoreVector,
    /// The healthy rate this plan's risk is stated at, when known.
    pub healthy: Option<f64>,
    /// Exact probability that this plan turns the gate red for a healthy agent, when the
    /// healthy rate is known: P(not PASS | healthy) under `on_inconclusive: fail`,
    /// P(FAIL | healthy) under `on_inconclusive: pass` (an INCONCLUSIVE does not fail the
    /// gate there).
    pub alpha: Option<f64>,
    /// The plan's OC curve: one per rule, shared by the tasks of that rule (a suite's cases
    /// are judged by one rule, and a copy per case was 400 bytes of 100,000: issue 30).
    pub oc: std::sync::Arc<[OcPoint]>,
    /// The indifference zone (between the regressed and the healthy rate, or where the OC
    /// crosses 10% and 95% when no rates are stated) and where the rule passes half the time;
    /// `None` for a compare task, whose rule is on discordant pairs, not a pass rate.
    pub zone: Option<Zone>,
    /// Whether the zone's edges are the plan's stated rates.
    pub zone_stated: bool,
    /// A compare task's pairs, rates, θ and verdict in words (boxed: most tasks are not
    /// compare tasks, and inline it was 300 bytes of every suite case's report: issue 30).
    pub compare: Option<Box<super::compare_task::CompareReport>>,
}

impl TaskReport {
    /// The task id.
    pub fn id(&self) -> &str {
        &self.replay.spec.id
    }

    /// The task's verdict, or a harness error.
    pub fn verdict(&self) -> Judgement {
        self.replay.verdict
    }
}

/// The probability that a healthy suite fails somewhere: 1 - prod(1 - alpha_i), where alpha_i
/// is P(not PASS | healthy) under `on_inconclusive: fail` and P(FAIL | healthy) under
/// `on_inconclusive: pass`. A bound, not the rate a suite shows: each alpha_i is the task's
/// exact risk at exactly its healthy rate, and a task above it (a deterministic test case)
/// fails less often; for independent tasks at or above their healthy rates it is at most this.
#[derive(Debug, Clone, PartialEq)]
pub struct Multiplicity {
    /// The policy the alphas are stated under.
    pub on_inconclusive: OnInconclusive,
    /// The cost over the tasks whose alpha is known; `None` if none is.
    pub cost: Option<f64>,
    /// Tasks with a known alpha: (id, alpha).
    pub known: Vec<(String, f64)>,
    /// Tasks whose healthy rate is unknown (a bare `single: {n, c}`): left out of the cost.
    pub unknown: Vec<String>,
    /// Of `known`, the tasks that are not test cases of a suite.
    pub tasks: u64,
    /// Of `known`, the test cases of suites without a family design (a ledger of an earlier
    /// gate), each counted at its own αᵢ.
    pub cases: u64,
    /// Of `known`, the test cases of each suite with a family design, as that family: its
    /// [`SuiteSummary`] figures (id, K, the family risk its design guarantees). Their αᵢ
    /// multiply to that guarantee, so the cost is the same either way; the reports name the
    /// family, whose figure holds for any number of cases.
    pub families: Vec<(String, u64, f64)>,
}

impl Report {
    /// The same report, showing `code` as its exit code (terminal, Markdown, JSON
    /// `exit_code`) instead of the verdict's. For the caller that exits with something else:
    /// `gate run --shard` exits 0 unless FAIL is certain, an interrupted run 130 or 143.
    pub fn with_exit_code(mut self, code: u8) -> Report {
        self.exit_override = Some(code);
        self
    }

    /// The same report, whose terminal and Markdown summary list every test case of a large
    /// suite (`--verbose`) rather than its cases that are not PASS and a count of the rest
    /// ([`crate::report::listing`]).
    pub fn listing_every_case(mut self, every_case: bool) -> Report {
        self.every_case = every_case;
        self
    }

    /// Whether the human-facing reports list every test case ([`Report::listing_every_case`]).
    pub fn lists_every_case(&self) -> bool {
        self.every_case
    }

    /// The exit code set by [`Report::with_exit_code`], if any.
    pub fn exit_override(&self) -> Option<u8> {
        self.exit_override
    }

    /// The exit code the verdict maps to, whatever [`Report::with_exit_code`] set.
    pub fn verdict_exit_code(&self) -> u8 {
        crate::exit::for_verdict(self.verdict(), self.on_inconclusive)
    }

    /// What the box's walls were around the trials, one line per distinct record over the
    /// ledgers and their resumes (`crate::format::sandbox`); empty when no ledger records
    /// a box (schema 1, `gate ingest`).
    pub fn sandbox(&self) -> Vec<String> {
        let mut lines: Vec<String> = Vec::new();
        for l in &self.replay.ledgers {
            for w in &l.sandbox {
                let line = crate::format::sandbox(w);
                if !lines.contains(&line) {
                    lines.push(line);
                }
            }
        }
        lines
    }

    /// Hex SHA-256 of the last row of the ledger (the head of its hash chain), or `None`
    /// when the report merges several ledgers (each has its own, in
    /// [`super::replay::LedgerInfo::head_sha256`]). Recorded elsewhere (a CI log), it
    /// protects the last row, which the chain itself cannot.
    pub fn head_hash(&self) -> Option<&str> {
        match self.replay.ledgers.as_slice() {
            [one] => Some(&one.head_sha256),
            _ => None,
        }
    }

    /// The lone shard this report is of, when it is the ledger of one shard of a sharded run
    /// (its verdict waits for the other shards).
    pub fn lone_shard(&self) -> Option<crate::model::Shard> {
        match self.replay.ledgers.as_slice() {
            [one] => one.shard.filter(|s| s.m > 1),
            _ => None,
        }
    }

    /// Whether the verdict is INCONCLUSIVE only for now: shards of the run are missing.
    pub fn waiting_for_shards(&self) -> bool {
        self.verdict() == Judgement::Verdict(Verdict::Inconclusive)
            && self
                .replay
                .shards
                .as_ref()
                .is_some_and(|s| !s.missing.is_empty())
    }

    /// The gate verdict, or a harness error (no verdict is published).
    pub fn verdict(&self) -> Judgement {
        super::replay::gate_verdict(
            self.tasks.iter().map(TaskReport::verdict),
            self.replay.footer_harness_error,
        )
    }

    /// The exit code shown: the one set by [`Report::with_exit_code`], else the verdict's
    /// (0 PASS, 1 FAIL, 3 INCONCLUSIVE (0 under `on_inconclusive: pass`), 4 harness error).
    pub fn exit_code(&self) -> u8 {
        self.exit_override.unwrap_or_else(|| {
            if self.continue_with().is_some() {
                crate::exit::CONTINUE
            } else {
                self.verdict_exit_code()
            }
        })
    }

    /// The next stage to run, when the ledgers are the complete stages so far of a staged
    /// run whose rule has not decided (the verdict is INCONCLUSIVE only for now).
    pub fn continue_with(&self) -> Option<u64> {
        self.stages.as_ref().and_then(|s| s.next)
    }

    /// Whether this report is a partial view that publishes no verdict of its own: one
    /// shard of a sharded run, or one ledger of a staged run that is not its first whole
    /// stage (the verdict waits for the other ledgers).
    pub fn is_partial(&self) -> bool {
        self.lone_shard().is_some() || self.stages.as_ref().is_some_and(|s| s.partial.is_some())
    }

    /// What a workflow branches on: `PASS`, `FAIL`, `INCONCLUSIVE`, `CONTINUE` (a staged run
    /// must run its next stage) or `HARNESS_ERROR`.
    pub fn decision(&self) -> &'static str {
        match (self.continue_with(), self.verdict()) {
            (Some(_), _) => "CONTINUE",
            (None, Judgement::Verdict(v)) => v.as_str(),
            (None, Judgement::HarnessError) => "HARNESS_ERROR",
        }
    }

    /// Whether a task's verdict turns the gate red (FAIL, INCONCLUSIVE under
    /// `on_inconclusive: fail`, or a harness error).
    pub fn is_red(&self, verdict: Judgement) -> bool {
        match verdict {
            Judgement::HarnessError | Judgement::Verdict(Verdict::Fail) => true,
            Judgement::Verdict(Verdict::Inconclusive) => {
                self.on_inconclusive == OnInconclusive::Fail
            }
            Judgement::Verdict(Verdict::Pass) => false,
        }
    }
}
