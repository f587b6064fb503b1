//! The JSON report (`--json FILE`): a documented, versioned contract (docs/reports.md, "JSON
//! (`--json`): the contract"). The structs below *are* the contract: every field is written,
//! absent values are `null`, and [`SCHEMA`] is bumped on purpose whenever a field changes
//! meaning or shape.

use schemars::JsonSchema;
use serde::Serialize;

use crate::ledger::{Counts, OnInconclusive, RunStatus, Shard};
use crate::model::Judgement;
use crate::sampler::{Sampling, Verdict};

use super::model::{OcPoint, Report, Share, TaskReport, Uncounted};

/// Version of the JSON report written by this build. 2: `tasks[].missing` became ranges
/// (`{first, last}`) and every missing ordinal up to n of an undecided task;
/// `ledger_head_sha256` and `ledgers[].head_sha256` added; `alpha` is P(FAIL | healthy) under
/// `on_inconclusive: pass`. 3: `pass_rate.estimate` and `pass_rate.ci95` (and `pass_at_k[]`,
/// `retry_settings[].p_green`) account for the stopping rule; the naive figures moved under
/// `naive`, `pass_rate.method`, `not_counted`, `timeouts_replaced` and `fault_risk` added.
/// `ledgers[].sandbox` (the walls of the box) and `stages` (a staged run, with `tasks[]` per
/// task and `stage_size` null when the tasks' stages differ) were added since, without a
/// bump: new fields that are `null` where they do not apply.
pub const SCHEMA: u32 = 3;

/// Render the JSON report (pretty-printed, with a trailing newline). Non-finite numbers
/// are written as `null` (serde_json's rule).
pub fn render(report: &Report) -> Result<String, serde_json::Error> {
    let mut s = serde_json::to_string_pretty(&JsonReport::from(report))?;
    s.push('\n');
    Ok(s)
}

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
    /// One entry per task, in plan order.
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
    pub missing: Vec<super::replay::OrdinalRange>,
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
    pub pairs: Option<super::compare::JsonPairs>,
    /// A `compare:` task's rates, θ and verdict in words, else `null`.
    pub compare: Option<super::compare::JsonCompare>,
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

impl From<&OcPoint> for JsonOc {
    fn from(o: &OcPoint) -> Self {
        JsonOc {
            p: o.p,
            pass: o.pass,
            fail: o.fail,
            inconclusive: o.inconclusive,
        }
    }
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

impl From<Counts> for JsonCounts {
    fn from(c: Counts) -> Self {
        JsonCounts {
            run: c.run,
            passed: c.passed,
            failed: c.failed,
            unavailable: c.unavailable,
            cancelled: c.cancelled,
            excluded: c.excluded,
            graded: c.passed + c.failed,
        }
    }
}

/// An interval.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonInterval {
    /// Lower bound.
    pub lo: f64,
    /// Upper bound.
    pub hi: f64,
}

impl From<crate::stats::estimate::Interval> for JsonInterval {
    fn from(i: crate::stats::estimate::Interval) -> Self {
        JsonInterval { lo: i.lo, hi: i.hi }
    }
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

impl From<Share> for JsonShare {
    fn from(s: Share) -> Self {
        JsonShare {
            rate: s.value(),
            num: s.num,
            den: s.den,
        }
    }
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

impl From<&Report> for JsonReport {
    fn from(r: &Report) -> Self {
        JsonReport {
            schema: SCHEMA,
            gate_version: r.replay.gate_version.clone(),
            verdict: r.verdict(),
            exit_code: r.exit_code(),
            on_inconclusive: r.on_inconclusive,
            plan: JsonPlanFile {
                path: r.replay.plan_path.clone(),
                hash: r.replay.plan_hash.clone(),
            },
            fixture_hash: r.replay.fixture_hash.clone(),
            ledger_head_sha256: r.head_hash().map(str::to_string),
            ledgers: r
                .replay
                .ledgers
                .iter()
                .map(|l| JsonLedger {
                    path: l.path.display().to_string(),
                    run_id: l.run_id.clone(),
                    shard: l.shard,
                    status: l.status,
                    chain_break: l.chain_break.clone(),
                    torn_tail: l.torn_tail,
                    head_sha256: l.head_sha256.clone(),
                    sandbox: (!l.sandbox.is_empty()).then(|| {
                        l.sandbox
                            .iter()
                            .map(|w| JsonSandbox {
                                walls: w.clone(),
                                statement: crate::format::sandbox(w),
                            })
                            .collect()
                    }),
                })
                .collect(),
            shards: r.replay.shards.as_ref().map(|s| JsonShards {
                m: s.m,
                present: s.present.clone(),
                missing: s.missing.clone(),
            }),
            decision: r.decision().to_string(),
            stages: r.stages.as_ref().map(|s| JsonStages {
                stage_size: s.stage_size,
                through: s.through,
                last_stage: s.last_stage,
                decided_in: s.decided_in,
                next: s.next,
                partial_stage: s.partial.map(|p| p.0),
                tasks: s
                    .tasks
                    .iter()
                    .map(|t| JsonTaskStage {
                        id: t.id.clone(),
                        stage_size: t.stage_size,
                        last_stage: t.last_stage,
                        decided_in: t.decided_in,
                        ran_through: t.ran_through,
                        runs_next: t.runs_next,
                    })
                    .collect(),
                failed_early: s.failed_early.clone(),
            }),
            multiplicity: JsonMultiplicity {
                cost: r.multiplicity.cost,
                tasks: r
                    .multiplicity
                    .known
                    .iter()
                    .map(|(id, alpha)| JsonAlpha {
                        id: id.clone(),
                        alpha: *alpha,
                    })
                    .collect(),
                unknown: r.multiplicity.unknown.clone(),
            },
            tasks: r.tasks.iter().map(task).collect(),
        }
    }
}

fn spend(sp: Option<super::model::Spend>) -> Option<JsonSpend> {
    sp.map(|sp| JsonSpend {
        total: sp.total,
        mean: sp.mean(),
        attempts_reporting: sp.reporting,
    })
}

impl From<Uncounted> for JsonUncounted {
    fn from(u: Uncounted) -> Self {
        JsonUncounted {
            trials: u.trials,
            duration_s: u.seconds,
            cost: spend(u.cost),
            tokens: spend(u.tokens),
        }
    }
}

fn task(t: &TaskReport) -> JsonTask {
    let r = &t.replay;
    let s = &t.score;
    JsonTask {
        id: r.spec.id.clone(),
        line: r.spec.line,
        verdict: r.verdict,
        reason: r.reason.clone(),
        plan: JsonTaskPlan {
            sampling: r.spec.sampling.clone(),
            description: t.plan.clone(),
            max_unavailable: r.spec.max_unavailable,
            healthy: t.healthy,
            alpha: t.alpha,
            oc: t.oc.iter().map(JsonOc::from).collect(),
            zone: t.zone.as_ref().map(|z| JsonZone {
                low: z.lo,
                high: z.hi,
                half_pass_rate: z.half,
                stated: t.zone_stated,
                text: crate::format::zone_line(z, t.zone_stated),
            }),
        },
        trials: r.counts.into(),
        decided_at: r.decided_at,
        missing: r.missing.clone(),
        llr: r.llr.filter(|x| x.is_finite()),
        pass_rate: t.pass_rate.map(|p| JsonPassRate {
            estimate: p.estimate,
            ci95: p.ci95.into(),
            ci95_clopper_pearson: p.naive.clopper_pearson.into(),
            method: p.method.as_str(),
            naive: JsonNaivePassRate {
                estimate: p.naive.estimate,
                ci95: p.naive.wilson.into(),
                ci95_clopper_pearson: p.naive.clopper_pearson.into(),
            },
        }),
        pass_at_k: t
            .pass_at
            .iter()
            .map(|p| JsonPassAtK {
                k: p.k,
                pass_at_k: p.pass_at_k,
                pass_hat_k: p.pass_hat_k,
                pass_at_k_ci95: p.pass_at_k_ci95.into(),
                pass_hat_k_ci95: p.pass_hat_k_ci95.into(),
                naive: JsonNaivePassAtK {
                    pass_at_k: p.naive_pass_at_k,
                    pass_hat_k: p.naive_pass_hat_k,
                },
            })
            .collect(),
        retry_settings: t
            .retry_settings
            .iter()
            .map(|r| JsonRetry {
                retries: r.retries,
                p_green: r.p_green,
                naive_p_green: r.naive_p_green,
            })
            .collect(),
        not_counted: JsonNotCounted {
            cancelled: t.cancelled.into(),
            excluded: t.excluded.into(),
        },
        timeouts_replaced: t.timeouts_replaced,
        fault_risk: t.fault_risk.map(|f| JsonFaultRisk {
            risk: f.risk.as_str(),
            rate: f.rate,
            unavailable: f.unavailable,
            drawn: f.drawn,
            observed_unavailable_rate: f.observed_rate(),
            budget: f.budget,
            printed: f.printed,
            at_observed_rate: f.at_observed,
        }),
        score: JsonScore {
            first_attempt: s.first_attempt.into(),
            within_budget: s.within_budget.into(),
            recovery: s.recovery.into(),
            failures: JsonFailures {
                timeout: s.failures.timeout,
                run_failed: s.failures.run_failed,
                check_failed: s.failures.check_failed,
                result_fail: s.failures.result_fail,
                test_failed: s.failures.test_failed,
                other: s.failures.other,
            },
            latency_s: s.latency.map(|l| JsonLatency {
                p50: l.p50,
                p95: l.p95,
            }),
            cost: spend(s.cost),
            tokens: spend(s.tokens),
            unavailable: s.unavailable,
            retry_passes_refused: s.retry_passes_refused,
        },
        pairs: t.compare.as_ref().map(|c| c.json_pairs()),
        compare: t.compare.as_ref().map(|c| c.json()),
        trial_list: r
            .trials
            .iter()
            .map(|tr| JsonTrial {
                ordinal: tr.ordinal,
                disposition: tr.disposition.as_str(),
                outcome: tr.first.as_ref().map(|a| a.row.outcome),
                fault: tr.first.as_ref().and_then(|a| a.row.fault),
                attempts: tr.first.iter().count() as u64 + tr.later.len() as u64,
                duration_s: tr.duration_s(),
                row: tr.first.as_ref().map(|a| a.source.to_string()),
                score: result(tr).and_then(|r| r.score),
                note: result(tr).and_then(|r| r.note.clone()),
                warning: result(tr).and_then(|r| r.warning.clone()),
                side: tr.first.as_ref().and_then(|a| a.row.side),
            })
            .collect(),
    }
}

/// Attempt 1's result file, if it wrote one.
fn result(tr: &super::replay::TrialRecord) -> Option<&crate::ledger::TaskResult> {
    tr.first.as_ref().and_then(|a| a.row.result.as_ref())
}

/// The JSON Schema of the report (`gate schema report`), derived from [`JsonReport`].
pub fn json_schema() -> schemars::Schema {
    schemars::schema_for!(JsonReport)
}
