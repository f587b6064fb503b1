//! The report model: every figure a report prints, computed once from a [`Replay`] of ledger
//! rows (invariant 4). The renderers (terminal, JSON, JUnit, Markdown, annotations) only
//! format what is here, so they cannot disagree with one another.

use crate::ledger::{Fault, Ledger, OnInconclusive, Outcome, Rates};
use crate::model::Judgement;
use crate::sampler::{Sampling, Verdict};
use crate::stats::estimate::{Interval, clopper_pearson, pass_at_k, pass_hat_k, wilson};
use crate::stats::lattice::{Boundaries, State};
use crate::stats::post_stop::{SampleSpace, truncated};
use crate::stats::zone::Zone;

use super::ReportError;
use super::replay::{Disposition, Replay, TaskReplay, replay};

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
    /// Where a staged run stands, when the ledgers are stages of one.
    pub stages: Option<super::stages::StageStatus>,
}

/// A count out of a total, e.g. 12 of 20.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// The figures that ignore how the trials stopped: biased after a sequential or curtailed
/// stop, kept for comparison and labelled naive everywhere.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NaivePassRate {
    /// passed / graded.
    pub estimate: f64,
    /// Wilson score interval.
    pub wilson: Interval,
    /// Clopper–Pearson interval (exact only for a fixed number of trials).
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

/// pass@k and pass^k for one k.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PassAtK {
    /// k.
    pub k: u64,
    /// P(at least one of k trials passes): `1 - (1 - p̃)^k` from the stopping-aware estimate
    /// p̃ (median-unbiased, since the map is monotone).
    pub pass_at_k: f64,
    /// P(all k trials pass): `p̃^k`.
    pub pass_hat_k: f64,
    /// Exact 95% interval for pass@k (the pass-rate interval mapped through `1 - (1 - p)^k`).
    pub pass_at_k_ci95: Interval,
    /// Exact 95% interval for pass^k (the pass-rate interval mapped through `p^k`).
    pub pass_hat_k_ci95: Interval,
    /// The combinatorial estimator on the graded trials (Chen et al.): unbiased for a fixed
    /// number of trials, conditional on the stop (and biased) after one.
    pub naive_pass_at_k: f64,
    /// The combinatorial pass^k on the graded trials (tau-bench), conditional on the stop.
    pub naive_pass_hat_k: f64,
}

/// The failure class of a JUnit test case that failed (`gate ingest`).
pub const TEST_CASE_FAILED: &str = "test case failed";

/// What a CI retry setting of R would have reported: pass@(R+1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetrySetting {
    /// R.
    pub retries: u64,
    /// pass@(R+1) from the stopping-aware estimate.
    pub p_green: f64,
    /// pass@(R+1) by the combinatorial estimator, conditional on the stop.
    pub naive_p_green: f64,
}

/// Trials that were launched but not counted, and what they cost.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Uncounted {
    /// How many.
    pub trials: u64,
    /// Wall time of all their attempts, seconds.
    pub seconds: f64,
    /// Cost their result files reported.
    pub cost: Option<Spend>,
    /// Tokens their result files reported.
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

/// Graded failures by class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FailureShape {
    /// Timed out (under `timeout: fail`).
    pub timeout: u64,
    /// `run` exited non-zero or was killed by a signal.
    pub run_failed: u64,
    /// `run` exited 0 but `check` did not.
    pub check_failed: u64,
    /// Both exited 0 but the result file said `"pass": false`.
    pub result_fail: u64,
    /// A JUnit test case failed (`gate ingest`: no process of gate's own ran it).
    pub test_failed: u64,
    /// A failure none of the above explains.
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

/// Latency of graded attempt-1 durations (nearest-rank percentiles), seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Latency {
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
}

/// Cost or tokens as reported in result files, over every attempt of the task.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spend {
    /// Sum over the attempts that reported it.
    pub total: f64,
    /// Attempts that reported it.
    pub reporting: u64,
}

impl Spend {
    /// `total X · mean Y per attempt (N attempts reported)`, as every report prints it.
    pub fn describe(&self) -> String {
        format!(
            "total {} · mean {} per attempt ({} attempts reported)",
            number(self.total),
            number(self.mean()),
            self.reporting
        )
    }

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

/// The score vector: how the task succeeds, not only whether.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreVector {
    /// Passes on the task's own first internal attempt (`result.attempts` absent or 1), of
    /// graded trials.
    pub first_attempt: Share,
    /// Passes within the task's own budget, of graded trials (with `gate ingest`, a trial
    /// whose first attempt failed and a test runner's retry passed counts here).
    pub within_budget: Share,
    /// Of graded trials that did not pass on their first internal attempt, those that passed.
    pub recovery: Share,
    /// Graded failures by class.
    pub failures: FailureShape,
    /// Latency of graded trials.
    pub latency: Option<Latency>,
    /// Cost reported by result files.
    pub cost: Option<Spend>,
    /// Tokens reported by result files.
    pub tokens: Option<Spend>,
    /// Unavailable trials consumed.
    pub unavailable: u64,
    /// Later attempts that passed and were not promoted to the trial's grade.
    pub retry_passes_refused: u64,
    /// Graded trials that made more than one attempt of their own: a result file reporting
    /// `attempts` above 1, or (with `gate ingest`) a test runner's retry after the graded
    /// failure. Zero for a suite run with retries off: then first-attempt, within-budget and
    /// recovery say nothing the pass rate does not.
    pub internal_attempts: u64,
}

/// One point of the plan's operating characteristic.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OcPoint {
    /// True per-trial success rate.
    pub p: f64,
    /// P(PASS | p).
    pub pass: f64,
    /// P(FAIL | p).
    pub fail: f64,
    /// P(INCONCLUSIVE | p): non-zero only for a truncated sequential plan.
    pub inconclusive: f64,
}

/// A task's report.
#[derive(Debug, Clone)]
pub struct TaskReport {
    /// The replay: spec, trials, verdict, reason, counts.
    pub replay: TaskReplay,
    /// The plan in words.
    pub plan: String,
    /// Graded trials (passed + failed).
    pub graded: u64,
    /// The pass rate and its intervals, when at least one trial was graded.
    pub pass_rate: Option<PassRate>,
    /// pass@k and pass^k for k = 1, 3, and 5 when at least 5 trials were graded.
    pub pass_at: Vec<PassAtK>,
    /// What a CI retry setting of R would have reported on the same data: pass@(R+1), for R
    /// from 1 while R+1 <= graded (at most R = 4).
    pub retry_settings: Vec<RetrySetting>,
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
    /// The plan's OC curve.
    pub oc: Vec<OcPoint>,
    /// The indifference zone (between the regressed and the healthy rate, or where the OC
    /// crosses 10% and 95% when no rates are stated) and where the rule passes half the time;
    /// `None` for a compare task, whose rule is on discordant pairs, not a pass rate.
    pub zone: Option<Zone>,
    /// Whether the zone's edges are the plan's stated rates.
    pub zone_stated: bool,
    /// A compare task's pairs, rates, θ and verdict in words.
    pub compare: Option<super::compare::CompareReport>,
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
/// `on_inconclusive: pass`.
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
}

impl Report {
    /// Compute the report of one run (one ledger) or of the shards of one run.
    /// `on_inconclusive` overrides the recorded policy.
    pub fn from_ledgers(
        ledgers: &[Ledger],
        on_inconclusive: Option<OnInconclusive>,
    ) -> Result<Report, ReportError> {
        super::stages::check_headers(ledgers)?;
        let mut replay = replay(ledgers)?;
        let stages = super::stages::status(ledgers, &replay)?;
        let policy = on_inconclusive.unwrap_or(replay.on_inconclusive);
        // The task replays move into the task reports (a large run holds many rows).
        let tasks: Vec<TaskReport> = std::mem::take(&mut replay.tasks)
            .into_iter()
            .map(|t| task_report(t, policy))
            .collect::<Result<_, _>>()?;
        let mut known = Vec::new();
        let mut unknown = Vec::new();
        for t in &tasks {
            match t.alpha {
                Some(a) => known.push((t.id().to_string(), a)),
                None => unknown.push(t.id().to_string()),
            }
        }
        let cost =
            (!known.is_empty()).then(|| 1.0 - known.iter().map(|(_, a)| 1.0 - a).product::<f64>());
        Ok(Report {
            on_inconclusive: policy,
            replay,
            tasks,
            multiplicity: Multiplicity {
                on_inconclusive: policy,
                cost,
                known,
                unknown,
            },
            exit_override: None,
            stages,
        })
    }

    /// The same report, showing `code` as its exit code (terminal, Markdown, JSON
    /// `exit_code`) instead of the verdict's. For the caller that exits with something else:
    /// `gate run --shard` exits 0 unless FAIL is certain, an interrupted run 130 or 143.
    pub fn with_exit_code(mut self, code: u8) -> Report {
        self.exit_override = Some(code);
        self
    }

    /// The exit code set by [`Report::with_exit_code`], if any.
    pub fn exit_override(&self) -> Option<u8> {
        self.exit_override
    }

    /// The exit code the verdict maps to, whatever [`Report::with_exit_code`] set.
    pub fn verdict_exit_code(&self) -> u8 {
        crate::error::exit::for_verdict(self.verdict(), self.on_inconclusive)
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
    pub fn lone_shard(&self) -> Option<crate::ledger::Shard> {
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
                crate::error::exit::CONTINUE
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

fn task_report(replay: TaskReplay, policy: OnInconclusive) -> Result<TaskReport, ReportError> {
    let c = replay.counts;
    let graded = c.passed + c.failed;
    let score = score_vector(&replay);
    let sampling = replay.spec.sampling.clone();
    let healthy = healthy_rate(&sampling, replay.spec.rates.as_ref());
    // Every rule's exact OC comes from its lattice (single, Wald or calibrated alike).
    let lattice = sampling.lattice().map_err(|source| ReportError::Sampling {
        task: replay.spec.id.clone(),
        source,
    })?;
    let oc_at = |p: f64| {
        let oc = lattice.oc(p);
        OcPoint {
            p,
            pass: oc.p_pass,
            fail: oc.p_fail,
            inconclusive: oc.p_inconclusive,
        }
    };
    // What turns the gate red for a healthy agent: any non-PASS, or only a FAIL when an
    // INCONCLUSIVE passes the gate.
    // A compare task's is stated with its `max_pairs` truncation (`report::compare::alpha`).
    let alpha = super::compare::alpha(&replay.spec, &lattice, policy).or_else(|| {
        healthy.map(|h| {
            let o = oc_at(h);
            match policy {
                OnInconclusive::Fail => 1.0 - o.pass,
                OnInconclusive::Pass => o.fail,
            }
        })
    });
    let regressed = replay.spec.rates.map(|r| r.regressed).or(match sampling {
        Sampling::Sequential { regressed, .. } => Some(regressed),
        Sampling::Single { .. } => None,
    });
    let oc = oc_curve(healthy, regressed, oc_at);

    let pass_rate = pass_rate(Some(&lattice), c.passed, c.failed);
    let zone_stated = healthy.is_some() && regressed.is_some();
    let zone = match (healthy, regressed) {
        (Some(h), Some(r)) => Zone::of(&lattice, r, h),
        _ => Zone::unstated(&lattice),
    };
    let pass_at = pass_at(pass_rate.as_ref(), graded, c.passed);
    let retry_settings = (1..=4u64)
        .filter_map(|r| {
            Some(RetrySetting {
                retries: r,
                p_green: pass_rate.map(|pr| at_least_one(pr.estimate, r + 1))?,
                naive_p_green: pass_at_k(graded, c.passed, r + 1)?,
            })
        })
        .collect();
    let fault_risk = Some(&lattice).and_then(|lattice| {
        let (risk, rate) = match policy {
            OnInconclusive::Fail => (RiskKind::NotPassHealthy, healthy?),
            OnInconclusive::Pass => (RiskKind::NotFailRegressed, regressed?),
        };
        fault_risk(
            lattice,
            c.unavailable,
            graded,
            replay.spec.max_unavailable,
            risk,
            rate,
        )
    });
    let uncounted = |d: Disposition| uncounted(&replay, d);
    let (cancelled, excluded) = (
        uncounted(Disposition::Cancelled),
        uncounted(Disposition::Excluded),
    );
    let timeouts_replaced = replay
        .trials
        .iter()
        .filter(|t| t.disposition == Disposition::Counted)
        .filter_map(|t| t.first.as_ref())
        .filter(|a| a.row.outcome == Outcome::Unavailable && a.row.fault == Some(Fault::Timeout))
        .count() as u64;

    let compare = super::compare::compare_report(&replay, pass_rate.as_ref());
    let zone = zone.filter(|_| compare.is_none());
    Ok(TaskReport {
        compare,
        plan: super::compare::describe(&replay.spec).unwrap_or_else(|| sampling.describe()),
        graded,
        pass_rate,
        pass_at,
        retry_settings,
        cancelled,
        excluded,
        timeouts_replaced,
        fault_risk,
        score,
        healthy,
        alpha,
        oc,
        zone,
        zone_stated,
        replay,
    })
}

/// The pass rate after the rule stopped at (graded, failed): stopping-aware when the state is
/// one the rule (or the rule truncated there) ends in, else fixed-n.
fn pass_rate(rule: Option<&Boundaries>, passed: u64, failed: u64) -> Option<PassRate> {
    let graded = passed + failed;
    let naive = NaivePassRate {
        estimate: passed as f64 / graded as f64,
        wilson: wilson(passed, graded, CONFIDENCE)?,
        clopper_pearson: clopper_pearson(passed, graded, CONFIDENCE)?,
    };
    let stopped = rule.and_then(|rule| {
        if rule.decide(graded, failed) != State::Continue {
            let e = SampleSpace::new(rule).estimate(graded, failed, CONFIDENCE)?;
            return Some((e, EstimateMethod::Stagewise));
        }
        // Stopped before the rule decided: condition on where it stopped.
        let cut = truncated(rule, graded)?;
        let e = SampleSpace::new(&cut).estimate(graded, failed, CONFIDENCE)?;
        Some((e, EstimateMethod::StagewiseTruncated))
    });
    Some(match stopped {
        Some((e, method)) => PassRate {
            estimate: e.median_unbiased,
            ci95: e.interval,
            method,
            naive,
        },
        None => PassRate {
            estimate: naive.estimate,
            ci95: naive.clopper_pearson,
            method: EstimateMethod::FixedN,
            naive,
        },
    })
}

/// P(at least one of k passes) at per-trial rate p.
fn at_least_one(p: f64, k: u64) -> f64 {
    1.0 - (1.0 - p).powf(k as f64)
}

/// pass@k and pass^k for k = 1, 3 (and 5 once 5 trials are graded): from the stopping-aware
/// pass rate (monotone maps keep median-unbiasedness and interval coverage), with the
/// combinatorial estimators alongside. Fixed-n: the combinatorial ones are unbiased there.
fn pass_at(rate: Option<&PassRate>, graded: u64, passed: u64) -> Vec<PassAtK> {
    let Some(rate) = rate else {
        return Vec::new();
    };
    let mut ks = vec![1, 3];
    if graded >= 5 {
        ks.push(5);
    }
    ks.into_iter()
        .filter_map(|k| {
            let naive_at = pass_at_k(graded, passed, k)?;
            let naive_hat = pass_hat_k(graded, passed, k)?;
            let kf = k as f64;
            let (at, hat) = match rate.method {
                EstimateMethod::FixedN => (naive_at, naive_hat),
                _ => (at_least_one(rate.estimate, k), rate.estimate.powf(kf)),
            };
            Some(PassAtK {
                k,
                pass_at_k: at,
                pass_hat_k: hat,
                pass_at_k_ci95: Interval {
                    lo: at_least_one(rate.ci95.lo, k),
                    hi: at_least_one(rate.ci95.hi, k),
                },
                pass_hat_k_ci95: Interval {
                    lo: rate.ci95.lo.powf(kf),
                    hi: rate.ci95.hi.powf(kf),
                },
                naive_pass_at_k: naive_at,
                naive_pass_hat_k: naive_hat,
            })
        })
        .collect()
}

/// The risk at the observed unavailable rate, when it makes the printed one wrong.
fn fault_risk(
    lattice: &Boundaries,
    unavailable: u64,
    graded: u64,
    budget: u64,
    risk: RiskKind,
    rate: f64,
) -> Option<FaultRisk> {
    if unavailable == 0 {
        return None;
    }
    let drawn = unavailable + graded;
    let u = unavailable as f64 / drawn as f64;
    // An unavailable rate of 1 leaves nothing to grade: the risk is certain.
    // The risk is one minus the probability of the verdict that keeps the gate right.
    let kept = |u: f64| {
        if u >= 1.0 {
            return 0.0;
        }
        let oc = lattice.oc_unavailable(rate, u, budget);
        match risk {
            RiskKind::NotPassHealthy => oc.p_pass,
            RiskKind::NotFailRegressed => oc.p_fail,
        }
    };
    let (printed, at_observed) = (1.0 - kept(0.0), 1.0 - kept(u));
    let gap = at_observed - printed;
    let wrong = gap >= FAULT_RISK_GAP
        || (at_observed >= printed * FAULT_RISK_FACTOR && gap >= FAULT_RISK_MIN_GAP);
    wrong.then_some(FaultRisk {
        unavailable,
        drawn,
        budget,
        risk,
        rate,
        printed,
        at_observed,
    })
}

/// The trials of one disposition and what they cost (every attempt of each).
fn uncounted(t: &TaskReplay, which: Disposition) -> Uncounted {
    let mut out = Uncounted::default();
    for trial in t.trials.iter().filter(|tr| tr.disposition == which) {
        out.trials += 1;
        out.seconds += trial.duration_s();
        for a in trial.first.iter().chain(trial.later.iter()) {
            let Some(r) = &a.row.result else { continue };
            Spend::add(&mut out.cost, r.cost);
            Spend::add(&mut out.tokens, r.tokens);
        }
    }
    out
}

/// The healthy rate a plan's producer's risk is stated at: the designed rates, or a
/// sequential rule's own p0. A bare `single: {n, c}` has none.
fn healthy_rate(sampling: &Sampling, rates: Option<&Rates>) -> Option<f64> {
    rates.map(|r| r.healthy).or(match *sampling {
        Sampling::Sequential { healthy, .. } => Some(healthy),
        Sampling::Single { .. } => None,
    })
}

/// The OC on a fixed grid of rates plus the plan's own healthy and regressed rates, from the
/// last rate where P(PASS) is still below 0.0005 (the curve left of it is flat at zero).
fn oc_curve(
    healthy: Option<f64>,
    regressed: Option<f64>,
    oc_at: impl Fn(f64) -> OcPoint,
) -> Vec<OcPoint> {
    let mut ps: Vec<f64> = (1..=19).map(|i| f64::from(i) * 0.05).collect();
    ps.push(0.99);
    ps.extend(healthy.into_iter().chain(regressed));
    ps.retain(|p| p.is_finite() && *p > 0.0 && *p < 1.0);
    // Round to 4 decimals so a designed 0.9 and the grid's 0.9000000000000001 are one point.
    let mut ps: Vec<f64> = ps.into_iter().map(|p| (p * 1e4).round() / 1e4).collect();
    ps.sort_by(f64::total_cmp);
    ps.dedup();
    let points: Vec<OcPoint> = ps.into_iter().map(oc_at).collect();
    let start = points.iter().rposition(|pt| pt.pass < 0.0005).unwrap_or(0);
    points[start..].to_vec()
}

fn score_vector(t: &TaskReplay) -> ScoreVector {
    let mut first_attempt = 0;
    let mut passed = 0;
    let mut graded = 0;
    let mut internal_attempts = 0;
    let mut failures = FailureShape::default();
    let mut durations = Vec::new();
    let counted = t
        .trials
        .iter()
        .filter(|tr| tr.disposition == Disposition::Counted);
    for (row, later) in counted.filter_map(|tr| tr.first.as_ref().map(|a| (&a.row, &tr.later))) {
        match row.outcome {
            Outcome::Pass => {
                graded += 1;
                passed += 1;
                let internal = row.result.as_ref().and_then(|r| r.attempts);
                if internal.is_none_or(|a| a <= 1) {
                    first_attempt += 1;
                } else {
                    internal_attempts += 1;
                }
                durations.push(row.duration_s);
            }
            Outcome::Fail => {
                graded += 1;
                durations.push(row.duration_s);
                // A later attempt after a graded failure is a test runner's retry (`gate
                // ingest`; gate's own transport retries follow only unavailable attempts): it
                // passes within the retry budget, never as the grade.
                if later.iter().any(|a| a.row.outcome == Outcome::Pass) {
                    passed += 1;
                }
                let internal = row.result.as_ref().and_then(|r| r.attempts);
                if !later.is_empty() || internal.is_some_and(|a| a > 1) {
                    internal_attempts += 1;
                }
                if row.fault == Some(Fault::Timeout) {
                    failures.timeout += 1;
                } else if row.exit_code.is_none() && row.signal.is_none() && row.fault.is_none() {
                    failures.test_failed += 1;
                } else if row.exit_code != Some(0) {
                    failures.run_failed += 1;
                } else if row.check_exit.is_some_and(|c| c != 0) {
                    failures.check_failed += 1;
                } else if row.result.as_ref().and_then(|r| r.pass) == Some(false) {
                    failures.result_fail += 1;
                } else {
                    failures.other += 1;
                }
            }
            _ => {}
        }
    }

    let mut cost = None::<Spend>;
    let mut tokens = None::<Spend>;
    for trial in &t.trials {
        for a in trial.first.iter().chain(trial.later.iter()) {
            let Some(r) = &a.row.result else { continue };
            Spend::add(&mut cost, r.cost);
            Spend::add(&mut tokens, r.tokens);
        }
    }

    ScoreVector {
        first_attempt: Share {
            num: first_attempt,
            den: graded,
        },
        within_budget: Share {
            num: passed,
            den: graded,
        },
        recovery: Share {
            num: passed - first_attempt,
            den: graded - first_attempt,
        },
        failures,
        latency: latency(durations),
        cost,
        tokens,
        unavailable: t.counts.unavailable,
        retry_passes_refused: t.retry_passes_refused,
        internal_attempts,
    }
}

/// Nearest-rank percentiles: the smallest value with at least q of the values at or below it.
fn latency(mut xs: Vec<f64>) -> Option<Latency> {
    xs.retain(|x| x.is_finite());
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    let rank = |q: f64| {
        let r = (q * xs.len() as f64).ceil() as usize;
        xs[r.clamp(1, xs.len()) - 1]
    };
    Some(Latency {
        p50: rank(0.50),
        p95: rank(0.95),
    })
}

/// Text from a ledger made safe for a terminal: control characters (newlines, escape
/// sequences that could recolour or rewrite the log) are shown escaped, e.g. `\u{1b}`.
pub(crate) fn printable(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    s.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// How a pass rate was computed, in a few words (terminal, JUnit).
pub(crate) fn method_short(m: EstimateMethod) -> &'static str {
    match m {
        EstimateMethod::Stagewise => "exact for the stopping rule",
        EstimateMethod::StagewiseTruncated => "exact for the rule cut off where the run stopped",
        EstimateMethod::FixedN => "Clopper–Pearson",
    }
}

/// How a pass rate was computed, in a sentence fragment (Markdown).
pub(crate) fn method_long(m: EstimateMethod) -> &'static str {
    match m {
        EstimateMethod::Stagewise => {
            "median-unbiased estimate and exact interval for the stopping rule, stage-wise ordering"
        }
        EstimateMethod::StagewiseTruncated => {
            "median-unbiased estimate and exact interval for the rule cut off where the run \
             stopped, before the rule decided; stage-wise ordering"
        }
        EstimateMethod::FixedN => "passed / graded with the Clopper–Pearson interval",
    }
}

/// The trials launched but not counted, e.g. `cancelled 2 in flight at the decision (1.50s,
/// cost 1) · excluded 1 finished after it (750ms)`; None when there are none.
pub(crate) fn uncounted_text(t: &TaskReport) -> Option<String> {
    let part = |u: &Uncounted, label: &str, what: &str| {
        (u.trials > 0).then(|| {
            let mut s = format!("{label} {} {what} ({}", u.trials, seconds(u.seconds));
            for (name, sp) in [("cost", u.cost), ("tokens", u.tokens)] {
                if let Some(sp) = sp {
                    s.push_str(&format!(", {name} {}", number(sp.total)));
                }
            }
            s.push(')');
            s
        })
    };
    let parts: Vec<String> = [
        part(&t.cancelled, "cancelled", "in flight at the decision"),
        part(
            &t.excluded,
            "excluded",
            // Undecided, a trial is excluded only because an earlier ordinal has no row (a
            // shard's or a stage's ledger lacks the others'): a sequential rule stops there.
            if t.replay.decided_at.is_some() {
                "finished after the decision"
            } else {
                "finished behind an earlier trial not counted"
            },
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty()).then(|| parts.join(" · "))
}

/// The warning when the observed unavailable rate makes the printed risk wrong.
pub(crate) fn fault_risk_text(f: &FaultRisk) -> String {
    format!(
        "{} of {} trials ({}) were unavailable: at that rate, with a budget of {}, {} at {} is {}, \
         not the {} stated for no unavailable trials",
        f.unavailable,
        f.drawn,
        percent(f.observed_rate()),
        f.budget,
        f.risk.words(),
        percent(f.rate),
        prob(f.at_observed),
        prob(f.printed)
    )
}

/// Why a graded attempt failed, in words (the JUnit failure and the terminal's first fail).
pub(crate) fn fail_why(a: &crate::ledger::AttemptRow) -> String {
    if a.fault == Some(crate::ledger::Fault::Timeout) {
        return format!("timed out after {}s", number(a.duration_s));
    }
    match (a.exit_code, a.signal, a.check_exit) {
        (_, Some(sig), _) => format!("run was killed by signal {sig}"),
        (Some(code), _, _) if code != 0 => format!("run exited {code}"),
        (_, _, Some(code)) if code != 0 => format!("check exited {code}"),
        _ if a.result.as_ref().and_then(|r| r.pass) == Some(false) => {
            "the result file said pass: false".to_string()
        }
        _ => a.reason.clone().unwrap_or_else(|| "failed".to_string()),
    }
}

/// The note when timeouts were replaced under `timeout: unavailable`.
pub(crate) fn timeouts_text(n: u64) -> String {
    let (trials, were, failures) = if n == 1 {
        ("trial", "was", "a failure")
    } else {
        ("trials", "were", "failures")
    };
    format!(
        "{n} timed-out {trials} {were} replaced instead of counted as {failures} \
         (`timeout: unavailable`): a regression whose failures are slow hides there"
    )
}

/// What a task's αᵢ is under a policy, in words.
pub(crate) fn alpha_words(policy: OnInconclusive) -> &'static str {
    match policy {
        OnInconclusive::Fail => "P(not PASS | healthy)",
        OnInconclusive::Pass => "P(FAIL | healthy)",
    }
}

/// A rate as a percentage with one decimal, e.g. `93.3%` (never `100.0%` for a value that
/// is not 1; see [`crate::format::percent`]).
pub(crate) use crate::format::percent;

/// A share as `93.3% (28/30)`, or `n/a (0/0)`.
pub(crate) fn share_text(s: Share) -> String {
    match s.value() {
        Some(v) => format!("{} ({}/{})", percent(v), s.num, s.den),
        None => "n/a (0/0)".to_string(),
    }
}

/// A duration: milliseconds below one second (`48ms`), else seconds with two decimals
/// (`1.25s`), so that fast tasks do not all read `0.00s`.
pub(crate) fn seconds(x: f64) -> String {
    if x < 1.0 {
        format!("{:.0}ms", x * 1000.0)
    } else {
        format!("{x:.2}s")
    }
}

/// A probability with up to four significant decimals, e.g. `0.0421` or `0.9999`.
pub(crate) fn prob(x: f64) -> String {
    format!("{x:.4}")
}

/// A plain number without trailing zeros: four decimals below 100 (`0.0106`, `1.5`), one
/// from 100 on (`1101.9`), where more digits would be noise.
pub(crate) fn number(x: f64) -> String {
    let s = if x.abs() >= 100.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.4}")
    };
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::{Row, TaskResult};
    use crate::report::fixture::{self, outcomes, sample, single};

    #[test]
    fn pass_rate_pass_at_k_and_exit_code_come_from_the_replay() {
        let d = tempfile::tempdir().unwrap();
        let r = sample(d.path());
        let t = &r.tasks[0];
        // 17 passes reach n - c = 17 after 19 graded trials (failures at 4 and 9).
        assert_eq!((t.replay.counts.passed, t.graded), (17, 19));
        let pr = t.pass_rate.unwrap();
        assert!((pr.naive.estimate - 17.0 / 19.0).abs() < 1e-12);
        let n = pr.naive;
        assert!(n.wilson.lo < n.estimate && n.estimate < n.wilson.hi);
        // The published figures are the stopping rule's: the curtailed (20, 3) passed at 19.
        assert_eq!(pr.method, EstimateMethod::Stagewise);
        let space = SampleSpace::new(&Boundaries::single(20, 3).unwrap());
        let e = space.estimate(19, 2, CONFIDENCE).unwrap();
        assert_eq!((pr.estimate, pr.ci95), (e.median_unbiased, e.interval));
        assert_eq!(
            t.pass_at.iter().map(|p| p.k).collect::<Vec<_>>(),
            vec![1, 3, 5]
        );
        // pass^3 from the pass rate, and the combinatorial C(17,3)/C(19,3) kept as naive.
        let p3 = t.pass_at[1];
        assert!((p3.pass_hat_k - pr.estimate.powi(3)).abs() < 1e-12);
        assert!((p3.pass_hat_k_ci95.lo - pr.ci95.lo.powi(3)).abs() < 1e-12);
        assert!((p3.naive_pass_hat_k - (17.0 * 16.0 * 15.0) / (19.0 * 18.0 * 17.0)).abs() < 1e-12);
        assert!((p3.pass_at_k - (1.0 - (1.0 - pr.estimate).powi(3))).abs() < 1e-12);
        assert_eq!(r.tasks[1].verdict(), Judgement::Verdict(Verdict::Fail));
        assert_eq!(r.verdict(), Judgement::Verdict(Verdict::Fail));
        assert_eq!(r.exit_code(), crate::exit::FAIL);
    }

    #[test]
    fn multiplicity_cost_combines_the_exact_alphas() {
        let d = tempfile::tempdir().unwrap();
        let r = sample(d.path());
        let a0 = 1.0 - crate::stats::lattice::single_oc(20, 3, 0.9).p_pass;
        let a1 = 1.0
            - Boundaries::wald(&crate::stats::sprt::Sprt::new(0.9, 0.6, 0.05, 0.1, 40).unwrap())
                .oc(0.9)
                .p_pass;
        assert!((r.tasks[0].alpha.unwrap() - a0).abs() < 1e-12);
        assert!((r.tasks[1].alpha.unwrap() - a1).abs() < 1e-12);
        let cost = r.multiplicity.cost.unwrap();
        assert!((cost - (1.0 - (1.0 - a0) * (1.0 - a1))).abs() < 1e-12);
        assert!(r.multiplicity.unknown.is_empty());
    }

    #[test]
    fn multiplicity_under_on_inconclusive_pass_counts_only_fail() {
        // A truncated sequential rule is INCONCLUSIVE with real probability; under
        // `on_inconclusive: pass` that does not fail the gate, so alpha is P(FAIL | healthy).
        let d = tempfile::tempdir().unwrap();
        let l = fixture::run(
            &d.path().join("l.jsonl"),
            &[(fixture::sequential("s", 12), outcomes(12, &[]))],
            None,
        );
        let oc = Boundaries::wald(&crate::stats::sprt::Sprt::new(0.9, 0.6, 0.05, 0.1, 12).unwrap())
            .oc(0.9);
        assert!(oc.p_inconclusive > 0.01, "{oc:?}");
        let fail = Report::from_ledgers(std::slice::from_ref(&l), None).unwrap();
        assert!((fail.tasks[0].alpha.unwrap() - (1.0 - oc.p_pass)).abs() < 1e-12);
        let pass = Report::from_ledgers(&[l], Some(OnInconclusive::Pass)).unwrap();
        assert!((pass.tasks[0].alpha.unwrap() - oc.p_fail).abs() < 1e-12);
        assert!((pass.multiplicity.cost.unwrap() - oc.p_fail).abs() < 1e-12);
        assert!(pass.terminal().contains("(αᵢ = P(FAIL | healthy)"));
        assert!(fail.terminal().contains("(αᵢ = P(not PASS | healthy)"));
    }

    #[test]
    fn with_exit_code_overrides_the_exit_code_every_report_shows() {
        let d = tempfile::tempdir().unwrap();
        // A lone shard: INCONCLUSIVE, which `gate report` exits 3 with and `gate run` 0.
        let l = fixture::run(
            &d.path().join("s1.jsonl"),
            &[(single("t", 30, 3), outcomes(30, &[]))],
            Some(crate::ledger::Shard { k: 1, m: 3 }),
        );
        let r = Report::from_ledgers(&[l], None).unwrap();
        assert_eq!(r.exit_code(), crate::exit::INCONCLUSIVE);
        assert!(r.terminal().contains(
            "gate  INCONCLUSIVE for now: shard 1/3 of a sharded run (exit 3; `gate report` over all shards decides)"
        ));
        let r = r.with_exit_code(crate::exit::SUCCESS);
        assert_eq!(r.exit_code(), 0);
        assert_eq!(r.verdict_exit_code(), crate::exit::INCONCLUSIVE);
        let text = r.terminal();
        assert!(
            text.contains(
                "gate  INCONCLUSIVE for now: shard 1/3 of a sharded run (exit 0; `gate report` over all shards decides) · 1 task"
            ),
            "{text}"
        );
        let md = crate::report::markdown::render(&r);
        assert!(md.contains("· exit code 0\n"), "{md}");
        assert!(md.contains("INCONCLUSIVE for now: shard 1/3 of a sharded run (exit 0)"));
        let json: serde_json::Value =
            serde_json::from_str(&crate::report::json::render(&r).unwrap()).unwrap();
        assert_eq!(json["exit_code"], 0);
        assert_eq!(json["verdict"], "INCONCLUSIVE");
    }

    #[test]
    fn a_bare_single_plan_has_unknown_alpha() {
        let d = tempfile::tempdir().unwrap();
        let mut spec = single("bare", 5, 0);
        spec.rates = None;
        let l = fixture::run(&d.path().join("l.jsonl"), &[(spec, outcomes(5, &[]))], None);
        let r = Report::from_ledgers(&[l], None).unwrap();
        assert_eq!(r.multiplicity.cost, None);
        assert_eq!(r.multiplicity.unknown, vec!["bare".to_string()]);
        assert!(!r.tasks[0].oc.is_empty());
    }

    #[test]
    fn the_score_vector_separates_first_attempt_from_within_budget() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("l.jsonl");
        let mut w = fixture::writer(&path);
        w.append(Row::Header(fixture::header(vec![single("t", 7, 3)], None)))
            .unwrap();
        let with = |trial, outcome, internal: Option<u64>, f: &dyn Fn(&mut AttemptRow)| {
            let mut a = fixture::attempt("t", trial, 1, outcome);
            a.result = Some(TaskResult {
                attempts: internal,
                cost: Some(1.5),
                tokens: None,
                ..TaskResult::default()
            });
            a.duration_s = trial as f64;
            f(&mut a);
            Row::Attempt(a)
        };
        use crate::ledger::AttemptRow;
        let rows = [
            with(1, Outcome::Pass, None, &|_| {}),
            with(2, Outcome::Pass, Some(1), &|_| {}),
            with(3, Outcome::Pass, Some(3), &|_| {}),
            with(4, Outcome::Fail, Some(3), &|a| {
                a.fault = Some(Fault::Timeout);
                a.exit_code = None;
                a.signal = Some(9);
            }),
            with(5, Outcome::Fail, None, &|a| {
                a.exit_code = Some(0);
                a.check_exit = Some(1);
            }),
            with(6, Outcome::Fail, None, &|a| {
                a.exit_code = Some(0);
                a.check_exit = Some(0);
                a.result.as_mut().unwrap().pass = Some(false);
            }),
        ];
        for row in rows {
            w.append(row).unwrap();
        }
        let mut retry = fixture::attempt("t", 6, 2, Outcome::Pass);
        retry.result = None;
        w.append(Row::Attempt(retry)).unwrap();
        let l = Ledger::read(&path).unwrap();
        let r = Report::from_ledgers(&[l], None).unwrap();
        let s = &r.tasks[0].score;
        assert_eq!(s.first_attempt, Share { num: 2, den: 6 });
        // Trial 6 failed its graded attempt 1 and passed attempt 2 (a test runner's retry, as
        // `gate ingest` records it): within the budget, never the grade.
        assert_eq!(s.within_budget, Share { num: 4, den: 6 });
        // Not passed on the first internal attempt: trials 3, 4, 5, 6; trials 3 and 6 recovered.
        assert_eq!(s.recovery, Share { num: 2, den: 4 });
        assert_eq!(
            s.failures,
            FailureShape {
                timeout: 1,
                run_failed: 0,
                check_failed: 1,
                result_fail: 1,
                test_failed: 0,
                other: 0
            }
        );
        assert_eq!(s.latency, Some(Latency { p50: 3.0, p95: 6.0 }));
        assert_eq!(
            s.cost,
            Some(Spend {
                total: 9.0,
                reporting: 6
            })
        );
        assert_eq!(s.tokens, None);
        assert_eq!(s.retry_passes_refused, 1);
    }

    #[test]
    fn cancelled_and_excluded_trials_are_costed_separately() {
        let d = tempfile::tempdir().unwrap();
        let r = Report::from_ledgers(&[fixture::faults(d.path())], None).unwrap();
        let t = &r.tasks[0];
        assert_eq!(t.verdict(), Judgement::Verdict(Verdict::Pass));
        assert_eq!(
            t.cancelled,
            Uncounted {
                trials: 1,
                seconds: 1.5,
                cost: None,
                tokens: None
            }
        );
        // Trial 9: 0.25 × (1 + 9 % 4) seconds, and the fixture's cost of 0.5.
        assert_eq!(t.excluded.trials, 1);
        assert!((t.excluded.seconds - 0.5).abs() < 1e-12);
        assert_eq!(
            t.excluded.cost,
            Some(Spend {
                total: 0.5,
                reporting: 1
            })
        );
        assert_eq!(
            uncounted_text(t).unwrap(),
            "cancelled 1 in flight at the decision (1.50s) · excluded 1 finished after the decision (500ms, cost 0.5)"
        );
        assert_eq!(uncounted_text(&r.tasks[1]), None);
    }

    #[test]
    fn an_observed_unavailable_rate_that_changes_the_risk_is_reported() {
        let d = tempfile::tempdir().unwrap();
        let l = fixture::faults(d.path());
        let r = Report::from_ledgers(std::slice::from_ref(&l), None).unwrap();
        let t = &r.tasks[1];
        let f = t.fault_risk.expect("warning");
        assert_eq!((f.unavailable, f.drawn, f.budget), (3, 30, 4));
        assert_eq!(f.risk, RiskKind::NotPassHealthy);
        // Exactly the rule's OC with the budget at u = 0.1: 27.76% against the 4.21% printed.
        let lattice = Boundaries::single(33, 6).unwrap();
        let at = 1.0 - lattice.oc_unavailable(0.9, 0.1, 4).p_pass;
        assert!((f.at_observed - at).abs() < 1e-15);
        assert!((f.printed - t.alpha.unwrap()).abs() < 1e-12);
        assert_eq!(
            (prob(f.at_observed), prob(f.printed)),
            ("0.2776".into(), "0.0417".into())
        );
        // No unavailable trial: no warning.
        assert_eq!(r.tasks[0].fault_risk, None);
        // Under `on_inconclusive: pass` the risk that grows is the consumer's.
        let r = Report::from_ledgers(&[l], Some(OnInconclusive::Pass)).unwrap();
        let f = r.tasks[1].fault_risk.expect("warning");
        assert_eq!((f.risk, f.rate), (RiskKind::NotFailRegressed, 0.7));
        let fail = |u| lattice.oc_unavailable(0.7, u, 4).p_fail;
        assert!((f.printed - (1.0 - fail(0.0))).abs() < 1e-15);
        assert!((f.at_observed - (1.0 - fail(0.1))).abs() < 1e-15);
    }

    #[test]
    fn a_small_unavailable_rate_is_no_warning() {
        // One unavailable trial in 30 barely moves the risk of a budget of 4.
        let lattice = Boundaries::single(33, 6).unwrap();
        assert_eq!(
            fault_risk(&lattice, 1, 29, 4, RiskKind::NotPassHealthy, 0.9),
            None
        );
        assert!(fault_risk(&lattice, 3, 27, 4, RiskKind::NotPassHealthy, 0.9).is_some());
    }

    #[test]
    fn timeouts_replaced_under_timeout_unavailable_are_counted() {
        let d = tempfile::tempdir().unwrap();
        let r = Report::from_ledgers(&[fixture::faults(d.path())], None).unwrap();
        assert_eq!(r.tasks[1].timeouts_replaced, 1);
        assert_eq!(r.tasks[0].timeouts_replaced, 0);
        let text = r.terminal();
        assert!(
            text.contains("  note       1 timed-out trial was replaced instead of counted as a failure (`timeout: unavailable`): a regression whose failures are slow hides there\n"),
            "{text}"
        );
    }

    #[test]
    fn an_early_stop_is_estimated_on_the_rule_cut_off_there() {
        // Interrupted after 3 of a (10, 1) plan's trials: the rule truncated at 3.
        let d = tempfile::tempdir().unwrap();
        let l = fixture::run(
            &d.path().join("l.jsonl"),
            &[(single("t", 10, 1), outcomes(3, &[2]))],
            None,
        );
        let r = Report::from_ledgers(&[l], None).unwrap();
        let pr = r.tasks[0].pass_rate.unwrap();
        assert_eq!(pr.method, EstimateMethod::StagewiseTruncated);
        let cut = truncated(&Boundaries::single(10, 1).unwrap(), 3).unwrap();
        let e = SampleSpace::new(&cut).estimate(3, 1, CONFIDENCE).unwrap();
        assert_eq!((pr.estimate, pr.ci95), (e.median_unbiased, e.interval));
    }

    #[test]
    fn nearest_rank_percentiles() {
        let l = latency((1..=20).map(f64::from).collect()).unwrap();
        assert_eq!((l.p50, l.p95), (10.0, 19.0));
        assert_eq!(latency(vec![]), None);
        let one = latency(vec![2.5]).unwrap();
        assert_eq!((one.p50, one.p95), (2.5, 2.5));
    }

    #[test]
    fn on_inconclusive_pass_turns_exit_3_into_0() {
        let d = tempfile::tempdir().unwrap();
        let l = fixture::run(
            &d.path().join("l.jsonl"),
            &[(single("t", 10, 1), outcomes(3, &[]))],
            None,
        );
        let r = Report::from_ledgers(std::slice::from_ref(&l), None).unwrap();
        assert_eq!(r.verdict(), Judgement::Verdict(Verdict::Inconclusive));
        assert_eq!(r.exit_code(), crate::exit::INCONCLUSIVE);
        let r = Report::from_ledgers(&[l], Some(OnInconclusive::Pass)).unwrap();
        assert_eq!(r.exit_code(), crate::exit::SUCCESS);
    }
}
