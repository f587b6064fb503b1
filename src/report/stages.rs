//! The stages of a staged run, from its ledgers: which stages are complete, whether the rule
//! decided, and — when it did not and stages remain — that the run must CONTINUE with the
//! next stage.
//!
//! A staged rule (`stage: B` in a plan's `sequential:`) decides only at the stage ends
//! B, 2B, …; each stage runs as its own `gate run --stage S` (whole, or as shards
//! `--shard K/M`), and `gate report` over every ledger so far decides. The replay itself is
//! the ordinary one (the same ordered sampler over the merged rows); this module only checks
//! that the ledgers are a run's stages and nothing else, and refuses — so that no verdict and
//! no CONTINUE is published from them — a stage with missing or duplicated shards or trials,
//! a missing earlier stage, ledgers of different staged series, and a stage run after the
//! decision. One ledger of a stage after the first (or one shard) is a partial view: no
//! refusal, no verdict.

use std::collections::BTreeMap;

use crate::ledger::Ledger;
use crate::model::Shard;
use crate::stats::staged::stage_of;

use super::ReportError;
use super::replay::Replay;

/// One task of a staged run in the JSON contract.
// Where one task of a staged run stands.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[schemars(rename = "JsonTaskStage")]
pub struct TaskStage {
    /// The task's id.
    pub id: String,
    /// Its trials per stage (a single plan's n: it runs whole in stage 1).
    // A staged rule's B.
    pub stage_size: u64,
    /// The most stages it can run.
    // Its truncation, plus stages that only make up for unavailable trials.
    pub last_stage: u64,
    /// The stage its rule decided in, or `null`.
    pub decided_in: Option<u64>,
    /// It ran stages 1 to this (0 for a partial view).
    pub ran_through: u64,
    /// Whether it runs in stage `next`.
    // The run says CONTINUE and the task is undecided.
    pub runs_next: bool,
}

/// A staged run's stages in the JSON contract.
// Where a staged run stands.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[schemars(rename = "JsonStages")]
pub struct StageStatus {
    /// Trials per stage, or `null` when the tasks' stages differ (see `tasks[].stage_size`).
    pub stage_size: Option<u64>,
    /// Stages 1 to this are present and complete (0 for a partial view).
    pub through: u64,
    /// The most stages the rule can run.
    // The largest of its tasks' last stages.
    pub last_stage: u64,
    /// The stage the rule decided in, or `null`.
    // Every task decided (or reached its last stage), or one FAILed, which makes the gate's
    // FAIL certain whatever the others show.
    pub decided_in: Option<u64>,
    /// The stage to run next (decision `CONTINUE`), or `null`.
    // Undecided after `through` complete stages with stages left.
    pub next: Option<u64>,
    /// For one ledger that is only part of the evidence: its stage (its verdict waits for
    /// the other ledgers), else `null`.
    // The model keeps (stage, shard): the ledger is part of a stage, or a stage after the
    // first; the JSON names the stage only.
    #[serde(rename = "partial_stage", serialize_with = "stage_only")]
    #[schemars(with = "Option<u64>")]
    pub partial: Option<(u64, Option<Shard>)>,
    /// Each task, in plan order.
    pub tasks: Vec<TaskStage>,
    /// The task whose FAIL decided the run while others were still undecided, or `null`.
    pub failed_early: Option<String>,
}

/// `partial_stage` of the JSON report: the stage of [`StageStatus::partial`].
fn stage_only<S: serde::Serializer>(
    partial: &Option<(u64, Option<Shard>)>,
    s: S,
) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&partial.map(|p| p.0), s)
}

fn refuse(problem: String) -> ReportError {
    ReportError::Stage { problem }
}

/// Stage → (shard count, shard k → its ledger), refusing a stage whose ledgers disagree on
/// the shard count or give one shard twice from different runs. Only headers are read, so
/// this runs before the replay (whose row conflicts would otherwise hide the cause).
type Stages<'a> = BTreeMap<u64, (u64, BTreeMap<u64, &'a Ledger>)>;

fn group<'a>(distinct: &[&'a Ledger]) -> Result<Stages<'a>, ReportError> {
    // Stage → shard k → the ledger.
    let mut stages: BTreeMap<u64, (u64, BTreeMap<u64, &Ledger>)> = BTreeMap::new();
    for l in distinct {
        let s = l.header().stage.unwrap_or(1);
        let shard = l.header().shard.unwrap_or(Shard { k: 1, m: 1 });
        let entry = stages.entry(s).or_insert((shard.m, BTreeMap::new()));
        if entry.0 != shard.m {
            return Err(refuse(format!(
                "stage {s}: `{}` is a shard of {} but another ledger of the stage is a shard of {}",
                l.path.display(),
                shard.m,
                entry.0
            )));
        }
        if let Some(other) = entry.1.insert(shard.k, l) {
            // The same run's shard twice (one path twice, or a copy) is refused too, not
            // merged: it is bad input that hides the shard it stands in for (docs/running.md).
            let by = if other.header().run_id == l.header().run_id {
                "the same run's ledger"
            } else {
                "different runs"
            };
            return Err(refuse(format!(
                "stage {s}: shard {}/{} is given twice, by {by} (`{}` and `{}`)",
                shard.k,
                shard.m,
                other.path.display(),
                l.path.display()
            )));
        }
    }
    Ok(stages)
}

/// The distinct ledgers (a ledger given twice counts once, as for shards).
fn distinct(ledgers: &[Ledger]) -> Vec<&Ledger> {
    let mut out: Vec<&Ledger> = Vec::new();
    for l in ledgers {
        if !out.iter().any(|d| d.header().run_id == l.header().run_id) {
            out.push(l);
        }
    }
    out
}

/// Refuse, from the headers alone, staged ledgers that cannot be one run's stages (see
/// `group`); `Report::from_ledgers` calls it before the replay.
pub fn check_headers(ledgers: &[Ledger]) -> Result<(), ReportError> {
    // Every ledger, not the distinct ones: a stage's shard given twice is refused (exit 2)
    // rather than read once with its sibling shard missing.
    if ledgers.iter().any(|l| l.header().stage.is_some()) {
        group(&ledgers.iter().collect::<Vec<_>>())?;
    }
    Ok(())
}

/// Refuse an earlier stage's ledger that a later stage given with it did not follow: the
/// later stage's header records the ledgers of its `--after` (run id and chain head), and
/// two executions of one stage in one CI attempt (a retried step, a duplicated matrix leg)
/// are otherwise alike, so merging the stage with the other one would judge trials whose
/// CONTINUE it never saw (review 47, c16). Ledgers written before the field was recorded
/// name nothing and are not checked; a stage given with none of its earlier stages is a
/// partial view or refused as a missing stage. Checked after `status`'s other refusals, so
/// that a more specific one (a stage after the decision, a decided task run again) is said.
fn refuse_not_followed(ledgers: &[Ledger]) -> Result<(), ReportError> {
    let short = |h: &str| h.chars().take(12).collect::<String>();
    for later in ledgers {
        let (Some(stage), after) = (later.header().stage, &later.header().after) else {
            continue;
        };
        if after.is_empty() {
            continue;
        }
        for earlier in ledgers {
            let Some(earlier_stage) = earlier.header().stage.filter(|&s| s < stage) else {
                continue;
            };
            let (run_id, head) = (&earlier.header().run_id, &earlier.last_hash);
            if after.iter().any(|f| &f.run_id == run_id && &f.head == head) {
                continue;
            }
            let followed = after
                .iter()
                .map(|f| format!("run `{}` (head {}…)", f.run_id, short(&f.head)))
                .collect::<Vec<_>>()
                .join(", ");
            let earlier_is = if after.iter().any(|f| &f.run_id == run_id) {
                format!(
                    "run `{run_id}`, whose head is now {}…: changed since the stage read it",
                    short(head)
                )
            } else {
                format!("run `{run_id}`, head {}…", short(head))
            };
            return Err(ReportError::StageNotFollowed {
                later: later.path.clone(),
                stage,
                followed,
                earlier: earlier.path.clone(),
                earlier_stage,
                earlier_is,
            });
        }
    }
    Ok(())
}

/// The stage status of `ledgers` (None when they are not a staged run), given their replay.
///
/// Every undecided task runs in every stage until its rule decides or its last stage ends;
/// the run decides once every task has, or as soon as one task FAILs (the gate's verdict
/// is then FAIL whatever the others show: more stages would only cost trials). Refused, so
/// that no verdict and no CONTINUE is published: a stage or a shard missing; a task's
/// trial missing from a stage it had to run; a stage after the run decided; a stage that
/// ran a task after that task decided (or past its last stage).
pub fn status(ledgers: &[Ledger], replay: &Replay) -> Result<Option<StageStatus>, ReportError> {
    let staged: Vec<&Ledger> = ledgers
        .iter()
        .filter(|l| l.header().stage.is_some())
        .collect();
    let Some(first) = staged.first() else {
        return Ok(None);
    };
    if let Some(whole) = ledgers.iter().find(|l| l.header().stage.is_none()) {
        return Err(refuse(format!(
            "`{}` is a stage of a staged run but `{}` is not: give the ledgers of one staged run",
            first.path.display(),
            whole.path.display()
        )));
    }
    let mut tasks = Vec::with_capacity(replay.tasks.len());
    for task in &replay.tasks {
        let b = task
            .spec
            .sampling
            .stage_length()
            .filter(|_| task.spec.compare.is_none());
        let Some(b) = b else {
            return Err(refuse(format!(
                "`{}` ran a stage, but task `{}` has no staged rule",
                first.path.display(),
                task.spec.id
            )));
        };
        let last_stage = stage_of(
            b,
            task.spec
                .sampling
                .max_graded()
                .saturating_add(task.spec.max_unavailable),
        );
        tasks.push(TaskStage {
            id: task.spec.id.clone(),
            stage_size: b,
            last_stage,
            decided_in: task.decided_at.map(|o| stage_of(b, o)),
            ran_through: 0,
            runs_next: false,
        });
    }
    let stage_size = tasks
        .first()
        .map(|t| t.stage_size)
        .filter(|&b| tasks.iter().all(|t| t.stage_size == b));
    let last_stage = tasks.iter().map(|t| t.last_stage).max().unwrap_or(1);
    // The run's decision: the first stage in which a task FAILed, or the stage in which the
    // last task decided (or ran its last stage).
    let failed = replay
        .tasks
        .iter()
        .zip(&tasks)
        .filter(|(r, _)| r.verdict == crate::model::Judgement::Verdict(crate::model::Verdict::Fail))
        .filter_map(|(r, t)| Some((t.decided_in?, r.spec.id.clone())))
        .min();
    let fail_stage = failed.as_ref().map(|(f, _)| *f);
    // After `through` complete stages: the FAIL's stage, else the stage the last task
    // decided in (or ran its last stage), once every task has.
    let decided_after = |through: u64| {
        fail_stage.or_else(|| {
            tasks
                .iter()
                .map(|t| {
                    t.decided_in
                        .or((through >= t.last_stage).then_some(t.last_stage))
                })
                .collect::<Option<Vec<u64>>>()
                .map(|d| d.into_iter().max().unwrap_or(1))
        })
    };
    let distinct = distinct(ledgers);
    if let [one] = distinct.as_slice() {
        let (s, shard) = (one.header().stage.unwrap_or(1), one.header().shard);
        if s > 1 || shard.is_some_and(|x| x.m > 1) {
            return Ok(Some(StageStatus {
                stage_size,
                through: 0,
                last_stage,
                decided_in: decided_after(0),
                next: None,
                partial: Some((s, shard)),
                tasks,
                failed_early: None,
            }));
        }
    }
    let stages = group(&distinct)?;
    let through = stages.keys().next_back().copied().unwrap_or(0);
    for s in 1..=through {
        let Some((m, shards)) = stages.get(&s) else {
            return Err(refuse(format!(
                "stage {s} is missing: give the ledgers of every stage from 1 to {through}"
            )));
        };
        if let Some(k) = (1..=*m).find(|k| !shards.contains_key(k)) {
            return Err(refuse(format!(
                "stage {s} is missing shard {k}/{m}: give the ledgers of every shard of the stage"
            )));
        }
    }
    let decided_in = decided_after(through);
    let path_of = |s: u64| {
        stages[&s]
            .1
            .values()
            .next()
            .map(|l| l.path.display().to_string())
            .unwrap_or_default()
    };
    if let Some(d) = decided_in
        && through > d
    {
        return Err(refuse(format!(
            "stage {through} (`{}`) ran after the {} decided in stage {d}: a staged run stops at its decision",
            path_of(through),
            if tasks.len() == 1 { "rule" } else { "run" }
        )));
    }
    // Each task runs in stage s while undecided and within its last stage; a ledger of a
    // later stage that lists it ran trials nobody needed (or would shift its evidence).
    let runs_in = |t: &TaskStage, s: u64| s <= t.last_stage && t.decided_in.is_none_or(|d| s <= d);
    for (s, (_, shards)) in &stages {
        for l in shards.values() {
            if let Some(t) = tasks
                .iter()
                .find(|t| !runs_in(t, *s) && l.header().tasks.iter().any(|h| h.id == t.id))
            {
                return Err(refuse(match t.decided_in {
                    Some(d) => format!(
                        "stage {s} (`{}`) ran task `{}`, which decided in stage {d}: a decided task runs nothing in later stages \
                         (give `gate run --stage {s}` the earlier stages' ledgers with `--after`)",
                        l.path.display(),
                        t.id
                    ),
                    None => format!(
                        "stage {s} (`{}`) ran task `{}`, whose last stage is {}",
                        l.path.display(),
                        t.id,
                        t.last_stage
                    ),
                }));
            }
        }
    }
    // Every trial of every stage a task ran must be there, with a graded (or unavailable)
    // first attempt: a hole would make the stage end a different point of the rule.
    for (task, t) in replay.tasks.iter().zip(tasks.iter_mut()) {
        t.ran_through = (1..=through)
            .take_while(|&s| runs_in(t, s))
            .last()
            .unwrap_or(0);
        let recorded: BTreeMap<u64, bool> = task
            .trials
            .iter()
            .map(|r| {
                let usable = r
                    .first
                    .as_ref()
                    .is_some_and(|a| a.row.outcome != crate::model::Outcome::Cancelled);
                (r.ordinal, usable)
            })
            .collect();
        let end = t.ran_through.saturating_mul(t.stage_size);
        let decided_at = task.decided_at.unwrap_or(u64::MAX);
        if let Some(hole) = (1..=end).find(|o| *o <= decided_at && recorded.get(o) != Some(&true)) {
            return Err(refuse(format!(
                "stage {} is missing trial #{hole} of task `{}` (a shard stopped early, or ran without the task?): \
                 every trial of a stage must be recorded",
                stage_of(t.stage_size, hole),
                t.id
            )));
        }
    }
    refuse_not_followed(ledgers)?;
    let harness_error = replay.tasks.iter().any(|t| t.harness_error.is_some());
    let next =
        (decided_in.is_none() && !harness_error && through < last_stage).then_some(through + 1);
    for t in &mut tasks {
        t.runs_next = next.is_some_and(|n| runs_in(t, n));
    }
    let failed_early = failed
        .filter(|(f, _)| tasks.iter().any(|t| t.decided_in.is_none_or(|d| d > *f)))
        .map(|(_, id)| id);
    Ok(Some(StageStatus {
        stage_size,
        through,
        last_stage,
        decided_in,
        next,
        partial: None,
        tasks,
        failed_early,
    }))
}
