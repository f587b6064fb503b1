//! The JSON report (`--json FILE`): a documented, versioned contract (docs/reports.md, "JSON
//! (`--json`): the contract"). The structs of `contract.rs` (re-exported here) *are* the
//! contract; this file fills them from the report model and renders them. Every field is
//! written, absent values are `null`, and [`SCHEMA`] is bumped on purpose whenever a field
//! changes meaning or shape.

mod contract;

pub use contract::*;

use crate::ledger::Counts;

use super::compare::{CompareReport, Estimate};
use super::model::{OcPoint, Report, Share, TaskReport, Uncounted};

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

impl From<crate::stats::estimate::Interval> for JsonInterval {
    fn from(i: crate::stats::estimate::Interval) -> Self {
        JsonInterval { lo: i.lo, hi: i.hi }
    }
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

impl From<&Report> for JsonReport {
    fn from(r: &Report) -> Self {
        // Suites of more than `LIST_EVERY_CASE` cases, with their cases' indices.
        let large = super::listing::large_suites(r);
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
            suites: r
                .suites
                .iter()
                .map(|s| {
                    let large = large.get(s.id.as_str());
                    JsonSuite {
                        id: s.id.clone(),
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
                                        id: t.id().to_string(),
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
    t.verdict() == crate::model::Judgement::Verdict(crate::sampler::Verdict::Pass)
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

/// A task's plan as the contract states it.
fn task_plan(t: &TaskReport) -> JsonTaskPlan {
    let r = &t.replay;
    JsonTaskPlan {
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
        plan: task_plan(t),
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
        pairs: t.compare.as_ref().map(pairs),
        compare: t.compare.as_ref().map(compare),
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
    tr.first.as_ref().and_then(|a| a.row.result.as_deref())
}

/// The JSON Schema of the report (`gate schema report`), derived from [`JsonReport`].
pub fn json_schema() -> schemars::Schema {
    schemars::schema_for!(JsonReport)
}

/// `tasks[].pairs`: a compare task's pair counts.
fn pairs(c: &CompareReport) -> JsonPairs {
    let p = c.pairs;
    JsonPairs {
        total: p.total,
        both_pass: p.both_pass,
        both_fail: p.both_fail,
        head_only_fail: p.head_only_fail,
        base_only_fail: p.base_only_fail,
        void: p.void,
    }
}

/// `tasks[].compare`: what a compare task's pairs say about head against base.
fn compare(c: &CompareReport) -> JsonCompare {
    JsonCompare {
        odds_ratio: c.odds_ratio,
        max_pairs: c.max_pairs,
        head_rate_naive: c.head_rate_naive,
        base_rate_naive: c.base_rate_naive,
        theta: c.theta.as_ref().map(json_estimate),
        odds_ratio_estimate: c.odds_ratio_estimate.as_ref().map(json_estimate),
        method: c.method,
        words: c.words.clone(),
        theta_regressed: c.theta1,
        lattice_beta: c.lattice_beta,
        drop: c.drop,
        loss_route_beta: c.loss_route_beta,
        alpha_at_observed: c.alpha_at_observed.map(|a| JsonObservedAlpha {
            discordance: a.discordance,
            discordant: a.discordant,
            pairs: a.pairs,
            p_not_pass: a.p_not_pass,
            p_fail: a.p_fail,
        }),
    }
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

fn json_estimate(e: &Estimate) -> JsonEstimate {
    JsonEstimate {
        estimate: finite(e.estimate),
        lo: finite(e.ci95.lo),
        hi: finite(e.ci95.hi),
    }
}
