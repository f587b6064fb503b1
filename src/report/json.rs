//! The JSON report (`--json FILE`): a documented, versioned contract (docs/reports.md, "JSON
//! (`--json`): the contract"), serialised from the report model itself. The model's types
//! derive `Serialize` and `JsonSchema` (their doc comments are the schema's descriptions, and
//! `#[schemars(rename)]` keeps the schema's names); the structs below are the views where the
//! document's shape differs from the model's: fields that come from the replay, figures
//! derived at render time, and the large-suite summary. Every field is written, absent
//! values are `null`, and [`SCHEMA`] is bumped on purpose whenever a field changes meaning or
//! shape; `schemas/report.schema.json` pins the schema byte for byte.

use schemars::JsonSchema;
use serde::Serialize;

use crate::ledger::RunStatus;
use crate::model::{Counts, Judgement, OnInconclusive, Sampling, Shard, Verdict};
use crate::pair_sampler::PairCounts;
use crate::stats::estimate::Interval;

use super::compare_task::CompareReport;
use super::model::{
    NaivePassRate, OcPoint, PassAtK, Report, RetrySetting, ScoreVector, TaskReport, Uncounted,
};
use super::stages::StageStatus;

/// Version of the JSON report written by this build. 2: `tasks[].missing` became ranges
/// (`{first, last}`) and every missing ordinal up to n of an undecided task;
/// `ledger_head_sha256` and `ledgers[].head_sha256` added; `alpha` is P(FAIL | healthy) under
/// `on_inconclusive: pass`. 3: `pass_rate.estimate` and `pass_rate.ci95` (and `pass_at_k[]`,
/// `retry_settings[].p_green`) account for the stopping rule; the naive figures moved under
/// `naive`, `pass_rate.method`, `not_counted`, `timeouts_replaced` and `fault_risk` added.
/// `ledgers[].sandbox` (the walls of the box) and `stages` (a staged run, with `tasks[]` per
/// task and `stage_size` null when the tasks' stages differ) were added since, without a
/// bump: new fields that are `null` where they do not apply; and `suites` (empty without
/// suite tasks).
pub const SCHEMA: u32 = 3;

/// Render the JSON report (pretty-printed, with a trailing newline). Non-finite numbers
/// are written as `null` (serde_json's rule).
pub fn render(report: &Report) -> Result<String, serde_json::Error> {
    let mut s = serde_json::to_string_pretty(&JsonReport::from(report))?;
    s.push('\n');
    Ok(s)
}

/// The JSON Schema of the report (`gate schema report`), derived from [`JsonReport`].
pub fn json_schema() -> schemars::Schema {
    schemars::schema_for!(JsonReport<'static>)
}

/// The whole document.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonReport<'a> {
    /// [`SCHEMA`].
    pub schema: u32,
    /// `gate` version that wrote the (first) ledger.
    pub gate_version: &'a str,
    /// The gate verdict; `null` after a harness error.
    #[schemars(with = "Option<Verdict>")]
    pub verdict: Judgement,
    /// The exit code: the verdict's, or the one the command actually exits with when that
    /// differs (`gate run --shard` exits 0 unless FAIL is certain; an interrupted run 130/143).
    pub exit_code: u8,
    /// `fail` or `pass`.
    pub on_inconclusive: OnInconclusive,
    /// The plan file and its hash.
    pub plan: JsonPlanFile<'a>,
    /// Hash of the fixtures.
    pub fixture_hash: &'a str,
    /// Hex SHA-256 of the last row of the ledger (head of its hash chain), or `null` when
    /// several ledgers were merged (see `ledgers[].head_sha256`).
    pub ledger_head_sha256: Option<&'a str>,
    /// The ledgers read.
    pub ledgers: Vec<JsonLedger<'a>>,
    /// Shard coverage, or `null` when the ledgers are not shards.
    pub shards: Option<JsonShards<'a>>,
    /// What a workflow branches on: `PASS`, `FAIL`, `INCONCLUSIVE`, `CONTINUE` (a staged
    /// run must run `stages.next`; exit 5) or `HARNESS_ERROR`.
    pub decision: &'static str,
    /// Where a staged run stands, or `null` when the ledgers are not stages of one.
    pub stages: Option<&'a StageStatus>,
    /// The multiplicity cost of the gate.
    pub multiplicity: JsonMultiplicity<'a>,
    /// The suite tasks, each one family of test cases (empty without suite tasks).
    pub suites: Vec<JsonSuite<'a>>,
    /// One entry per task, in plan order; a suite of more than 50 cases has its passing
    /// cases in `suites[].passed_cases` instead.
    pub tasks: Vec<JsonTask<'a>>,
}

/// The plan file.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonPlanFile<'a> {
    /// As given to `gate run`.
    pub path: &'a str,
    /// Hex SHA-256 of its bytes.
    pub hash: &'a str,
}

/// One ledger.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonLedger<'a> {
    /// Path as given to `gate report` (or written by `gate run`).
    pub path: String,
    /// The run id.
    pub run_id: &'a str,
    /// `{k, m}` or `null`.
    pub shard: Option<Shard>,
    /// `complete`, `harness_error`, `interrupted`, or `null` without a footer.
    pub status: Option<RunStatus>,
    /// `null`, or `file:line: what` of the first row that breaks the hash chain.
    pub chain_break: Option<&'a str>,
    /// Whether an unterminated last line was ignored.
    pub torn_tail: bool,
    /// Hex SHA-256 of its last complete row (head of its hash chain).
    pub head_sha256: &'a str,
    /// The walls of the box around its trials, as its header and resume rows record them;
    /// `null` for a schema-1 ledger and for `gate ingest`, whose trials gate did not run.
    pub sandbox: Option<Vec<JsonSandbox<'a>>>,
}

/// The walls of the box around a run's trials.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonSandbox<'a> {
    /// The walls as recorded.
    #[serde(flatten)]
    pub walls: &'a crate::model::Walls,
    /// The same in one line, as every report states it.
    pub statement: String,
}

/// Shards present and missing.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonShards<'a> {
    /// Number of shards.
    pub m: u64,
    /// Present, ascending.
    pub present: &'a [u64],
    /// Missing, ascending.
    pub missing: &'a [u64],
}

/// A suite task as one family of test cases.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonSuite<'a> {
    /// The suite task's id (its cases are the tasks `ID/CASE`).
    pub id: &'a str,
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
    pub plan: Option<JsonTaskPlan<'a>>,
    /// For a suite of more than 50 cases, its cases that PASS, in the order of its results,
    /// each with its counts only: they are not in `tasks[]`, which holds the suite's other
    /// cases in full (so 100,000 cases stay a report of tens of MB). `null` for a smaller
    /// suite. `gate report` recomputes any case's full figures from the ledger.
    pub passed_cases: Option<Vec<JsonPassedCase<'a>>>,
}

/// A passing case of a large suite: its counts (see `suites[].passed_cases`).
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonPassedCase<'a> {
    /// Task id (`SUITE/CASE`).
    pub id: &'a str,
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
pub struct JsonMultiplicity<'a> {
    /// The cost over tasks with a known alpha, or `null`.
    pub cost: Option<f64>,
    /// Tasks with a known alpha.
    pub tasks: Vec<JsonAlpha<'a>>,
    /// Ids of tasks whose healthy rate is unknown (left out of `cost`).
    pub unknown: &'a [String],
}

/// A task's exact producer's risk.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonAlpha<'a> {
    /// Task id.
    pub id: &'a str,
    /// Exact P(not PASS | healthy) under `on_inconclusive: fail`, P(FAIL | healthy) under
    /// `on_inconclusive: pass`. A `compare:` task's is at head = base with its `max_pairs`
    /// truncation (under `fail`, the largest with at least 10% of pairs discordant).
    pub alpha: f64,
}

/// One task.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonTask<'a> {
    /// Task id.
    pub id: &'a str,
    /// Line of the task in the plan file, or `null`.
    pub line: Option<u64>,
    /// `PASS`, `FAIL`, `INCONCLUSIVE`, or `null` after a harness error.
    #[schemars(with = "Option<Verdict>")]
    pub verdict: Judgement,
    /// Why, in one sentence.
    pub reason: &'a str,
    /// The sampling plan.
    pub plan: JsonTaskPlan<'a>,
    /// Counts from the replay.
    pub trials: JsonCounts,
    /// The ordinal whose outcome reached the decision, or `null`.
    pub decided_at: Option<u64>,
    /// Ordinals with no row at all, as ascending `{first, last}` ranges: gaps below the
    /// highest recorded ordinal and, for an undecided task, every ordinal up to n (max_trials).
    pub missing: &'a [crate::report::replay::OrdinalRange],
    /// SPRT log-likelihood ratio where consumption stopped (sequential), or `null`.
    pub llr: Option<f64>,
    /// The pass rate with its 95% intervals, or `null` with no graded trial.
    pub pass_rate: Option<JsonPassRate<'a>>,
    /// pass@k and pass^k.
    pub pass_at_k: &'a [PassAtK],
    /// What a CI retry setting would have reported on the same data.
    pub retry_settings: &'a [RetrySetting],
    /// Trials launched but never counted, and what they cost.
    pub not_counted: JsonNotCounted<'a>,
    /// Counted trials whose attempt 1 timed out and was replaced (`timeout: unavailable`).
    pub timeouts_replaced: u64,
    /// The risk at the observed unavailable rate when it makes the printed one wrong, else
    /// `null`.
    pub fault_risk: Option<JsonFaultRisk>,
    /// The score vector.
    pub score: &'a ScoreVector,
    /// A `compare:` task's pair counts, else `null` (`trials` then counts the discordant
    /// rule's tally: passed = head wins, failed = head losses, unavailable = void pairs).
    pub pairs: Option<&'a PairCounts>,
    /// A `compare:` task's rates, θ and verdict in words, else `null`.
    pub compare: Option<&'a CompareReport>,
    /// Every trial recorded (both sides of each pair, for a compare task).
    pub trial_list: Vec<JsonTrial<'a>>,
}

/// A task's plan.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonTaskPlan<'a> {
    /// The resolved rule, as in the ledger header.
    pub sampling: &'a Sampling,
    /// In words.
    pub description: &'a str,
    /// Unavailable trials tolerated.
    pub max_unavailable: u64,
    /// The healthy rate the producer's risk is stated at, or `null`.
    pub healthy: Option<f64>,
    /// As [`JsonAlpha::alpha`], or `null` without a healthy rate.
    pub alpha: Option<f64>,
    /// The OC curve.
    pub oc: &'a [OcPoint],
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

/// The per-trial pass rate.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonPassRate<'a> {
    /// Stopping-aware estimate: median-unbiased under the stage-wise ordering of the rule's
    /// sample space (see `method`).
    pub estimate: f64,
    /// Exact 95% interval for the rule that ran: coverage >= 95% at every true rate.
    pub ci95: Interval,
    /// 95% Clopper–Pearson interval of passed / graded, as for a fixed number of trials
    /// (naive after a stop; also in `naive`).
    pub ci95_clopper_pearson: Interval,
    /// `stagewise` (the rule decided), `stagewise_truncated` (the run stopped before the
    /// rule decided: the rule truncated at the graded trials), or `fixed_n`.
    pub method: &'static str,
    /// Figures that ignore the stop (biased after it).
    pub naive: &'a NaivePassRate,
}

/// Trials launched but never counted.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonNotCounted<'a> {
    /// Stopped in flight at the decision.
    pub cancelled: &'a Uncounted,
    /// Finished beyond the decision point.
    pub excluded: &'a Uncounted,
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

/// One trial.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JsonTrial<'a> {
    /// Ordinal.
    pub ordinal: u64,
    /// `counted`, `excluded`, `cancelled`, `harness_error`, `no_first_attempt`.
    pub disposition: &'static str,
    /// Attempt 1's outcome, or `null`.
    pub outcome: Option<crate::model::Outcome>,
    /// Attempt 1's fault class, or `null`.
    pub fault: Option<crate::model::Fault>,
    /// Attempts recorded.
    pub attempts: u64,
    /// Wall time of all attempts, seconds.
    pub duration_s: f64,
    /// `file:line` of attempt 1, or `null`.
    pub row: Option<String>,
    /// The `score` attempt 1's result file reported, or `null`.
    pub score: Option<f64>,
    /// The `note` attempt 1's result file reported (redacted, clipped), or `null`.
    pub note: Option<&'a str>,
    /// gate's warning about attempt 1's result file (unknown keys), or `null`.
    pub warning: Option<&'a str>,
    /// `head` or `base` for a compare task's side (`ordinal` is the pair), else `null`.
    pub side: Option<crate::pair_sampler::Side>,
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

impl<'a> From<&'a Report> for JsonReport<'a> {
    fn from(r: &'a Report) -> Self {
        // Suites of more than `LIST_EVERY_CASE` cases, with their cases' indices.
        let large = super::listing::large_suites(r);
        JsonReport {
            schema: SCHEMA,
            gate_version: &r.replay.gate_version,
            verdict: r.verdict(),
            exit_code: r.exit_code(),
            on_inconclusive: r.on_inconclusive,
            plan: JsonPlanFile {
                path: &r.replay.plan_path,
                hash: &r.replay.plan_hash,
            },
            fixture_hash: &r.replay.fixture_hash,
            ledger_head_sha256: r.head_hash(),
            ledgers: r
                .replay
                .ledgers
                .iter()
                .map(|l| JsonLedger {
                    path: l.path.display().to_string(),
                    run_id: &l.run_id,
                    shard: l.shard,
                    status: l.status,
                    chain_break: l.chain_break.as_deref(),
                    torn_tail: l.torn_tail,
                    head_sha256: &l.head_sha256,
                    sandbox: (!l.sandbox.is_empty()).then(|| {
                        l.sandbox
                            .iter()
                            .map(|w| JsonSandbox {
                                walls: w,
                                statement: crate::format::sandbox(w),
                            })
                            .collect()
                    }),
                })
                .collect(),
            shards: r.replay.shards.as_ref().map(|s| JsonShards {
                m: s.m,
                present: &s.present,
                missing: &s.missing,
            }),
            decision: r.decision(),
            stages: r.stages.as_ref(),
            multiplicity: JsonMultiplicity {
                cost: r.multiplicity.cost,
                tasks: r
                    .multiplicity
                    .known
                    .iter()
                    .map(|(id, alpha)| JsonAlpha { id, alpha: *alpha })
                    .collect(),
                unknown: &r.multiplicity.unknown,
            },
            suites: r
                .suites
                .iter()
                .map(|s| {
                    let large = large.get(s.id.as_str());
                    JsonSuite {
                        id: &s.id,
                        cases: s.cases,
                        alpha: s.alpha,
                        runs: s.runs,
                        case_runs: s.case_runs,
                        plan: large
                            .and_then(|cases| cases.first())
                            .map(|&i| task_plan(&r.tasks[i])),
                        passed_cases: large.map(|cases| {
                            cases
                                .iter()
                                .map(|&i| &r.tasks[i])
                                .filter(|t| passes(t))
                                .map(|t| {
                                    let c = t.replay.counts;
                                    JsonPassedCase {
                                        id: t.id(),
                                        run: c.run,
                                        passed: c.passed,
                                        failed: c.failed,
                                        unavailable: c.unavailable,
                                        excluded: c.excluded,
                                        decided_at: t.replay.decided_at,
                                    }
                                })
                                .collect()
                        }),
                    }
                })
                .collect(),
            tasks: r
                .tasks
                .iter()
                .filter(|t| {
                    // A large suite's passing cases are in its `passed_cases`.
                    !(passes(t)
                        && crate::ledger::suite_of(t.id()).is_some_and(|s| large.contains_key(s)))
                })
                .map(task)
                .collect(),
        }
    }
}

/// Whether a task is PASS.
fn passes(t: &TaskReport) -> bool {
    t.verdict() == Judgement::Verdict(Verdict::Pass)
}

/// A task's plan as the contract states it.
fn task_plan(t: &TaskReport) -> JsonTaskPlan<'_> {
    let r = &t.replay;
    JsonTaskPlan {
        sampling: &r.spec.sampling,
        description: &t.plan,
        max_unavailable: r.spec.max_unavailable,
        healthy: t.healthy,
        alpha: t.alpha,
        oc: &t.oc,
        zone: t.zone.as_ref().map(|z| JsonZone {
            low: z.lo,
            high: z.hi,
            half_pass_rate: z.half,
            stated: t.zone_stated,
            text: crate::format::zone_line(z, t.zone_stated),
        }),
    }
}

fn task(t: &TaskReport) -> JsonTask<'_> {
    let r = &t.replay;
    JsonTask {
        id: &r.spec.id,
        line: r.spec.line,
        verdict: r.verdict,
        reason: &r.reason,
        plan: task_plan(t),
        trials: r.counts.into(),
        decided_at: r.decided_at,
        missing: &r.missing,
        llr: r.llr.filter(|x| x.is_finite()),
        pass_rate: t.pass_rate.as_ref().map(|p| JsonPassRate {
            estimate: p.estimate,
            ci95: p.ci95,
            ci95_clopper_pearson: p.naive.clopper_pearson,
            method: p.method.as_str(),
            naive: &p.naive,
        }),
        pass_at_k: &t.pass_at,
        retry_settings: &t.retry_settings,
        not_counted: JsonNotCounted {
            cancelled: &t.cancelled,
            excluded: &t.excluded,
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
        score: &t.score,
        pairs: t.compare.as_ref().map(|c| &c.pairs),
        compare: t.compare.as_deref(),
        trial_list: r
            .trials
            .iter()
            .map(|tr| {
                // Attempt 1's result file, if it wrote one.
                let result = tr
                    .first
                    .as_ref()
                    .and_then(|a| a.row.detail.result.as_deref());
                JsonTrial {
                    ordinal: tr.ordinal,
                    disposition: tr.disposition.as_str(),
                    outcome: tr.first.as_ref().map(|a| a.row.outcome),
                    fault: tr.first.as_ref().and_then(|a| a.row.fault),
                    attempts: tr.first.iter().count() as u64 + tr.later.len() as u64,
                    duration_s: tr.duration_s(),
                    row: tr.first.as_ref().map(|a| a.source.to_string()),
                    score: result.and_then(|r| r.score),
                    note: result.and_then(|r| r.note.as_deref()),
                    warning: result.and_then(|r| r.warning.as_deref()),
                    side: tr.first.as_ref().and_then(|a| a.row.side),
                }
            })
            .collect(),
    }
}
