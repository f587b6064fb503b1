//! The JSON report's contract: every struct below is a documented object of the `--json`
//! document (docs/reports.md), and [`super::json_schema`] derives the published schema from
//! them. They mirror the report model field by field on purpose: the model may change its
//! shape, the contract changes only with [`super::SCHEMA`].

use schemars::JsonSchema;
use serde::Serialize;

use crate::ledger::{OnInconclusive, RunStatus, Shard};
use crate::model::Judgement;
use crate::sampler::{Sampling, Verdict};

#[allow(unused_imports)] // only for the doc link of `JsonReport::schema`
use super::SCHEMA;

/// One task of a staged run in the JSON contract.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonTaskStage {
    /// The task's id.
    pub id: String,
    /// Its trials per stage (a single plan's n: it runs whole in stage 1).
    pub stage_size: u64,
    /// The most stages it can run.
    pub last_stage: u64,
    /// The stage its rule decided in, or `null`.
    pub decided_in: Option<u64>,
    /// It ran stages 1 to this (0 for a partial view).
    pub ran_through: u64,
    /// Whether it runs in stage `next`.
    pub runs_next: bool,
}

/// A staged run's stages in the JSON contract.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonStages {
    /// Trials per stage, or `null` when the tasks' stages differ (see `tasks[].stage_size`).
    pub stage_size: Option<u64>,
    /// Stages 1 to this are present and complete (0 for a partial view).
    pub through: u64,
    /// The most stages the rule can run.
    pub last_stage: u64,
    /// The stage the rule decided in, or `null`.
    pub decided_in: Option<u64>,
    /// The stage to run next (decision `CONTINUE`), or `null`.
    pub next: Option<u64>,
    /// For one ledger that is only part of the evidence: its stage (its verdict waits for
    /// the other ledgers), else `null`.
    pub partial_stage: Option<u64>,
    /// Each task, in plan order.
    pub tasks: Vec<JsonTaskStage>,
    /// The task whose FAIL decided the run while others were still undecided, or `null`.
    pub failed_early: Option<String>,
}

/// The whole document.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonReport {
    /// [`SCHEMA`].
    pub schema: u32,
    /// `gate` version that wrote the (first) ledger.
    pub gate_version: String,
    /// The gate verdict; `null` after a harness error.
    #[schemars(with = "Option<Verdict>")]
    pub verdict: Judgement,
    /// The exit code: the verdict's, or the one the command actually exits with when that
    /// differs (`gate run --shard` exits 0 unless FAIL is certain; an interrupted run 130/143).
    pub exit_code: u8,
    /// `fail` or `pass`.
    pub on_inconclusive: OnInconclusive,
    /// The plan file and its hash.
    pub plan: JsonPlanFile,
    /// Hash of the fixtures.
    pub fixture_hash: String,
    /// Hex SHA-256 of the last row of the ledger (head of its hash chain), or `null` when
    /// several ledgers were merged (see `ledgers[].head_sha256`).
    pub ledger_head_sha256: Option<String>,
    /// The ledgers read.
    pub ledgers: Vec<JsonLedger>,
    /// Shard coverage, or `null` when the ledgers are not shards.
    pub shards: Option<JsonShards>,
    /// What a workflow branches on: `PASS`, `FAIL`, `INCONCLUSIVE`, `CONTINUE` (a staged
    /// run must run `stages.next`; exit 5) or `HARNESS_ERROR`.
    pub decision: String,
    /// Where a staged run stands, or `null` when the ledgers are not stages of one.
    pub stages: Option<JsonStages>,
    /// The multiplicity cost of the gate.
    pub multiplicity: JsonMultiplicity,
    /// The suite tasks, each one family of test cases (empty without suite tasks).
    pub suites: Vec<JsonSuite>,
    /// One entry per task, in plan order; a suite of more than 50 cases has its passing
    /// cases in `suites[].passed_cases` instead.
    pub tasks: Vec<JsonTask>,
}

/// The plan file.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonPlanFile {
    /// As given to `gate run`.
    pub path: String,
    /// Hex SHA-256 of its bytes.
    pub hash: String,
}

/// One ledger.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonLedger {
    /// Path as given to `gate report` (or written by `gate run`).
    pub path: String,
    /// The run id.
    pub run_id: String,
    /// `{k, m}` or `null`.
    pub shard: Option<Shard>,
    /// `complete`, `harness_error`, `interrupted`, or `null` without a footer.
    pub status: Option<RunStatus>,
    /// `null`, or `file:line: what` of the first row that breaks the hash chain.
    pub chain_break: Option<String>,
    /// Whether an unterminated last line was ignored.
    pub torn_tail: bool,
    /// Hex SHA-256 of its last complete row (head of its hash chain).
    pub head_sha256: String,
    /// The walls of the box around its trials, as its header and resume rows record them;
    /// `null` for a schema-1 ledger and for `gate ingest`, whose trials gate did not run.
    pub sandbox: Option<Vec<JsonSandbox>>,
}

/// The walls of the box around a run's trials.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonSandbox {
    /// The walls as recorded.
    #[serde(flatten)]
    pub walls: crate::ledger::Walls,
    /// The same in one line, as every report states it.
    pub statement: String,
}

/// Shards present and missing.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonShards {
    /// Number of shards.
    pub m: u64,
    /// Present, ascending.
    pub present: Vec<u64>,
    /// Missing, ascending.
    pub missing: Vec<u64>,
}

/// A suite task as one family of test cases.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonSuite {
    /// The suite task's id (its cases are the tasks `ID/CASE`).
    pub id: String,
    /// Test cases in the suite.
    pub cases: u64,
    /// The family risk the design guarantees: P(the suite is not PASS) for independent
    /// cases each at or above the healthy rate is at most this, `1 - (1 - a)^cases` with `a`
    /// the case rule's exact risk (as in `multiplicity`); `null` without a family design (a
    /// fixed `single:` rule states no healthy rate).
    pub alpha: Option<f64>,
    /// Suite runs whose results were read.
    pub runs: u64,
    /// Test-case executions over those runs (only undecided cases run again).
    pub case_runs: u64,
    /// For a suite of more than 50 cases, the rule every case is judged by (each such case
    /// in `tasks[]` repeats it); `null` for a smaller suite, whose cases are all in `tasks[]`.
    pub plan: Option<JsonTaskPlan>,
    /// For a suite of more than 50 cases, its cases that PASS, in the order of its results,
    /// each with its counts only: they are not in `tasks[]`, which holds the suite's other
    /// cases in full (so 100,000 cases stay a report of tens of MB). `null` for a smaller
    /// suite. `gate report` recomputes any case's full figures from the ledger.
    pub passed_cases: Option<Vec<JsonPassedCase>>,
}

/// A passing case of a large suite: its counts (see `suites[].passed_cases`).
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonPassedCase {
    /// Task id (`SUITE/CASE`).
    pub id: String,
    /// Trials recorded: passed + failed + unavailable.
    pub run: u64,
    /// Graded passes.
    pub passed: u64,
    /// Graded failures.
    pub failed: u64,
    /// Unavailable.
    pub unavailable: u64,
    /// Finished beyond the decision point (not counted).
    pub excluded: u64,
    /// The ordinal whose outcome reached the decision, or `null`.
    pub decided_at: Option<u64>,
}

/// 1 - prod(1 - alpha_i).
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonMultiplicity {
    /// The cost over tasks with a known alpha, or `null`.
    pub cost: Option<f64>,
    /// Tasks with a known alpha.
    pub tasks: Vec<JsonAlpha>,
    /// Ids of tasks whose healthy rate is unknown (left out of `cost`).
    pub unknown: Vec<String>,
}

/// A task's exact producer's risk.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonAlpha {
    /// Task id.
    pub id: String,
    /// Exact P(not PASS | healthy) under `on_inconclusive: fail`, P(FAIL | healthy) under
    /// `on_inconclusive: pass`. A `compare:` task's is at head = base with its `max_pairs`
    /// truncation (under `fail`, the largest with at least 10% of pairs discordant).
    pub alpha: f64,
}

/// One task.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonTask {
    /// Task id.
    pub id: String,
    /// Line of the task in the plan file, or `null`.
    pub line: Option<u64>,
    /// `PASS`, `FAIL`, `INCONCLUSIVE`, or `null` after a harness error.
    #[schemars(with = "Option<Verdict>")]
    pub verdict: Judgement,
    /// Why, in one sentence.
    pub reason: String,
    /// The sampling plan.
    pub plan: JsonTaskPlan,
    /// Counts from the replay.
    pub trials: JsonCounts,
    /// The ordinal whose outcome reached the decision, or `null`.
    pub decided_at: Option<u64>,
    /// Ordinals with no row at all, as ascending `{first, last}` ranges: gaps below the
    /// highest recorded ordinal and, for an undecided task, every ordinal up to n (max_trials).
    pub missing: Vec<crate::report::replay::OrdinalRange>,
    /// SPRT log-likelihood ratio where consumption stopped (sequential), or `null`.
    pub llr: Option<f64>,
    /// The pass rate with its 95% intervals, or `null` with no graded trial.
    pub pass_rate: Option<JsonPassRate>,
    /// pass@k and pass^k.
    pub pass_at_k: Vec<JsonPassAtK>,
    /// What a CI retry setting would have reported on the same data.
    pub retry_settings: Vec<JsonRetry>,
    /// Trials launched but never counted, and what they cost.
    pub not_counted: JsonNotCounted,
    /// Counted trials whose attempt 1 timed out and was replaced (`timeout: unavailable`).
    pub timeouts_replaced: u64,
    /// The risk at the observed unavailable rate when it makes the printed one wrong, else
    /// `null`.
    pub fault_risk: Option<JsonFaultRisk>,
    /// The score vector.
    pub score: JsonScore,
    /// A `compare:` task's pair counts, else `null` (`trials` then counts the discordant
    /// rule's tally: passed = head wins, failed = head losses, unavailable = void pairs).
    pub pairs: Option<JsonPairs>,
    /// A `compare:` task's rates, θ and verdict in words, else `null`.
    pub compare: Option<JsonCompare>,
    /// Every trial recorded (both sides of each pair, for a compare task).
    pub trial_list: Vec<JsonTrial>,
}

/// A task's plan.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonTaskPlan {
    /// The resolved rule, as in the ledger header.
    pub sampling: Sampling,
    /// In words.
    pub description: String,
    /// Unavailable trials tolerated.
    pub max_unavailable: u64,
    /// The healthy rate the producer's risk is stated at, or `null`.
    pub healthy: Option<f64>,
    /// As [`JsonAlpha::alpha`], or `null` without a healthy rate.
    pub alpha: Option<f64>,
    /// The OC curve.
    pub oc: Vec<JsonOc>,
    /// The indifference zone: between its edges the verdict can go either way; `null` for
    /// a compare rule, or a rule whose OC never reaches one half.
    pub zone: Option<JsonZone>,
}

/// A task's indifference zone.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonZone {
    /// The lower edge: the regressed rate (or, with no rates stated, where P(PASS) = 10%).
    pub low: f64,
    /// The upper edge: the healthy rate (or, with no rates stated, where P(PASS) = 95%).
    pub high: f64,
    /// The success rate at which the task passes half the time, from the exact OC.
    pub half_pass_rate: f64,
    /// Whether the edges are the plan's stated rates.
    pub stated: bool,
    /// The same, in the one line the terminal and Markdown reports print.
    pub text: String,
}

/// One OC point.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonOc {
    /// True success rate.
    pub p: f64,
    /// P(PASS | p).
    pub pass: f64,
    /// P(FAIL | p).
    pub fail: f64,
    /// P(INCONCLUSIVE | p).
    pub inconclusive: f64,
}

/// Counts.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonCounts {
    /// passed + failed + unavailable.
    pub run: u64,
    /// Graded passes.
    pub passed: u64,
    /// Graded failures.
    pub failed: u64,
    /// Unavailable.
    pub unavailable: u64,
    /// Stopped in flight (not counted).
    pub cancelled: u64,
    /// Finished beyond the decision point (not counted).
    pub excluded: u64,
    /// passed + failed.
    pub graded: u64,
}

/// An interval.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonInterval {
    /// Lower bound.
    pub lo: f64,
    /// Upper bound.
    pub hi: f64,
}

/// The per-trial pass rate.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonPassRate {
    /// Stopping-aware estimate: median-unbiased under the stage-wise ordering of the rule's
    /// sample space (see `method`).
    pub estimate: f64,
    /// Exact 95% interval for the rule that ran: coverage >= 95% at every true rate.
    pub ci95: JsonInterval,
    /// 95% Clopper–Pearson interval of passed / graded, as for a fixed number of trials
    /// (naive after a stop; also in `naive`).
    pub ci95_clopper_pearson: JsonInterval,
    /// `stagewise` (the rule decided), `stagewise_truncated` (the run stopped before the
    /// rule decided: the rule truncated at the graded trials), or `fixed_n`.
    pub method: &'static str,
    /// Figures that ignore the stop (biased after it).
    pub naive: JsonNaivePassRate,
}

/// The naive pass rate.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonNaivePassRate {
    /// passed / graded.
    pub estimate: f64,
    /// 95% Wilson interval.
    pub ci95: JsonInterval,
    /// 95% Clopper–Pearson interval.
    pub ci95_clopper_pearson: JsonInterval,
}

/// pass@k and pass^k.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonPassAtK {
    /// k.
    pub k: u64,
    /// P(at least one of k passes), from the stopping-aware pass rate.
    pub pass_at_k: f64,
    /// P(all k pass), from the stopping-aware pass rate.
    pub pass_hat_k: f64,
    /// Exact 95% interval for pass@k.
    pub pass_at_k_ci95: JsonInterval,
    /// Exact 95% interval for pass^k.
    pub pass_hat_k_ci95: JsonInterval,
    /// The combinatorial estimators on the graded trials, conditional on the stop.
    pub naive: JsonNaivePassAtK,
}

/// The combinatorial pass@k and pass^k.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonNaivePassAtK {
    /// 1 - C(n-s, k)/C(n, k).
    pub pass_at_k: f64,
    /// C(s, k)/C(n, k).
    pub pass_hat_k: f64,
}

/// A retry setting.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonRetry {
    /// Extra attempts after a failure.
    pub retries: u64,
    /// pass@(retries + 1), from the stopping-aware pass rate.
    pub p_green: f64,
    /// pass@(retries + 1) by the combinatorial estimator, conditional on the stop.
    pub naive_p_green: f64,
}

/// Trials launched but never counted.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonNotCounted {
    /// Stopped in flight at the decision.
    pub cancelled: JsonUncounted,
    /// Finished beyond the decision point.
    pub excluded: JsonUncounted,
}

/// What uncounted trials cost.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonUncounted {
    /// How many.
    pub trials: u64,
    /// Wall time of all their attempts, seconds.
    pub duration_s: f64,
    /// Cost their result files reported, or `null`.
    pub cost: Option<JsonSpend>,
    /// Tokens their result files reported, or `null`.
    pub tokens: Option<JsonSpend>,
}

/// The risk at the observed unavailable rate.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonFaultRisk {
    /// `not_pass_healthy` (under `on_inconclusive: fail`) or `not_fail_regressed` (under
    /// `on_inconclusive: pass`).
    pub risk: &'static str,
    /// The true success rate it is stated at.
    pub rate: f64,
    /// Unavailable trials consumed.
    pub unavailable: u64,
    /// Trials consumed (graded + unavailable).
    pub drawn: u64,
    /// unavailable / drawn.
    pub observed_unavailable_rate: f64,
    /// Unavailable trials tolerated.
    pub budget: u64,
    /// The risk with no unavailable trials (as printed).
    pub printed: f64,
    /// The exact risk at the observed unavailable rate, with the budget.
    pub at_observed_rate: f64,
}

/// A share.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonShare {
    /// num / den, or `null` when den = 0.
    pub rate: Option<f64>,
    /// Numerator.
    pub num: u64,
    /// Denominator.
    pub den: u64,
}

/// Failure classes.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonFailures {
    /// Timed out.
    pub timeout: u64,
    /// `run` exited non-zero or was killed.
    pub run_failed: u64,
    /// `check` exited non-zero.
    pub check_failed: u64,
    /// The result file said `"pass": false`.
    pub result_fail: u64,
    /// A JUnit test case failed (`gate ingest`).
    pub test_failed: u64,
    /// Anything else.
    pub other: u64,
}

/// Latency.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonLatency {
    /// Median, seconds.
    pub p50: f64,
    /// 95th percentile, seconds.
    pub p95: f64,
}

/// Cost or tokens.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonSpend {
    /// Sum over reporting attempts.
    pub total: f64,
    /// Mean per reporting attempt.
    pub mean: f64,
    /// Attempts that reported it.
    pub attempts_reporting: u64,
}

/// The score vector.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonScore {
    /// First-attempt success.
    pub first_attempt: JsonShare,
    /// Within-budget success.
    pub within_budget: JsonShare,
    /// Recovery rate.
    pub recovery: JsonShare,
    /// Failures by class.
    pub failures: JsonFailures,
    /// `null` without graded trials.
    pub latency_s: Option<JsonLatency>,
    /// `null` when no result file reported it.
    pub cost: Option<JsonSpend>,
    /// `null` when no result file reported it.
    pub tokens: Option<JsonSpend>,
    /// Unavailable trials consumed.
    pub unavailable: u64,
    /// Later attempts that passed, never promoted.
    pub retry_passes_refused: u64,
}

/// One trial.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonTrial {
    /// Ordinal.
    pub ordinal: u64,
    /// `counted`, `excluded`, `cancelled`, `harness_error`, `no_first_attempt`.
    pub disposition: &'static str,
    /// Attempt 1's outcome, or `null`.
    pub outcome: Option<crate::ledger::Outcome>,
    /// Attempt 1's fault class, or `null`.
    pub fault: Option<crate::ledger::Fault>,
    /// Attempts recorded.
    pub attempts: u64,
    /// Wall time of all attempts, seconds.
    pub duration_s: f64,
    /// `file:line` of attempt 1, or `null`.
    pub row: Option<String>,
    /// The `score` attempt 1's result file reported, or `null`.
    pub score: Option<f64>,
    /// The `note` attempt 1's result file reported (redacted, clipped), or `null`.
    pub note: Option<String>,
    /// gate's warning about attempt 1's result file (unknown keys), or `null`.
    pub warning: Option<String>,
    /// `head` or `base` for a compare task's side (`ordinal` is the pair), else `null`.
    pub side: Option<crate::pairs::Side>,
}

/// `tasks[].pairs` in the JSON report: the pair counts.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonPairs {
    /// Graded pairs consumed (the sum of the four counts below).
    pub total: u64,
    /// Both sides passed.
    pub both_pass: u64,
    /// Both sides failed.
    pub both_fail: u64,
    /// Head failed, base passed: head losses.
    pub head_only_fail: u64,
    /// Base failed, head passed: head wins.
    pub base_only_fail: u64,
    /// Pairs with an unavailable side (void, replaced, against the unavailable budget).
    pub void: u64,
}

/// An estimate with its exact 95% interval in the JSON report.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonEstimate {
    /// Stopping-aware point estimate (median-unbiased, mid-p, under the stage-wise
    /// ordering; at the two extreme states the rate at which that state has probability 1/2,
    /// so θ stays inside (0, 1) and the odds ratio is finite).
    pub estimate: Option<f64>,
    /// Lower end of the exact 95% interval.
    pub lo: Option<f64>,
    /// Upper end of the exact 95% interval (`null` for an unbounded odds ratio: the least
    /// favourable stop of the rule, where `lo` is a finite one-sided 97.5% lower bound).
    pub hi: Option<f64>,
}

/// `tasks[].compare` in the JSON report: what the pairs say about head against base.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonCompare {
    /// The odds ratio R the rule detects.
    pub odds_ratio: f64,
    /// Pairs after which the task is INCONCLUSIVE.
    pub max_pairs: u64,
    /// Head's pass rate over graded pairs, naive (ignores the stopping rule).
    pub head_rate_naive: Option<f64>,
    /// Base's pass rate over graded pairs, naive (ignores the stopping rule).
    pub base_rate_naive: Option<f64>,
    /// θ = P(head fails, base passes | discordant): stopping-aware, exact 95% interval.
    pub theta: Option<JsonEstimate>,
    /// θ / (1 − θ): head losses per head win, the same estimate mapped.
    pub odds_ratio_estimate: Option<JsonEstimate>,
    /// `stagewise` (the rule decided), `stagewise_truncated` (stopped undecided:
    /// conditional on the discordant pairs seen) or `fixed_n`.
    pub method: Option<&'static str>,
    /// The verdict in words.
    pub words: String,
    /// θ1 = R/(1+R): the θ beta is stated at.
    pub theta_regressed: f64,
    /// The discordant rule's P(PASS | θ1): its beta for every regression of odds ratio R,
    /// whatever the fall in points, at every base rate and correlation.
    pub lattice_beta: f64,
    /// The size of a regression in points the loss route covers (`null`: a ledger written
    /// before the loss route).
    pub drop: Option<f64>,
    /// The loss route's P(PASS) when head falls `drop` points (`null` without the route);
    /// `lattice_beta + loss_route_beta` bounds P(PASS) for a regression of odds ratio R that
    /// is also a fall of at least `drop` points.
    pub loss_route_beta: Option<f64>,
    /// P(not PASS | head = base) evaluated at the discordance this run observed (`null`
    /// before any graded pair): exact at that rate, not a bound over rates.
    pub alpha_at_observed: Option<JsonObservedAlpha>,
}

/// `tasks[].compare.alpha_at_observed`: the producer's risk at the observed discordance,
/// computed with the same exact OC as `gate plan --compare --at` (both routes, the
/// `max_pairs` truncation).
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonObservedAlpha {
    /// Discordant pairs over graded pairs.
    pub discordance: f64,
    /// Discordant pairs.
    pub discordant: u64,
    /// Graded pairs.
    pub pairs: u64,
    /// P(not PASS | head = base) at that discordance.
    pub p_not_pass: f64,
    /// P(FAIL | head = base) at that discordance.
    pub p_fail: f64,
}
