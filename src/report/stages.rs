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

use crate::ledger::{Ledger, Shard};
use crate::stats::staged::stage_of;

use super::ReportError;
use super::replay::Replay;

/// Where a staged run stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageStatus {
    /// Trials per stage.
    pub stage_size: u64,
    /// Stages present, all complete: 1..=through.
    pub through: u64,
    /// The most stages the rule can run (its truncation, plus stages that only make up for
    /// unavailable trials).
    pub last_stage: u64,
    /// The stage the rule decided in, when it did.
    pub decided_in: Option<u64>,
    /// Undecided after `through` complete stages with stages left: run this stage next.
    pub next: Option<u64>,
    /// The one ledger given, when it is only part of a stage or a stage after the first
    /// (its verdict waits for the other ledgers): (stage, shard).
    pub partial: Option<(u64, Option<Shard>)>,
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
            return Err(refuse(format!(
                "stage {s}: shard {}/{} is given twice, by different runs (`{}` and `{}`)",
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
/// [`group`]); `Report::from_ledgers` calls it before the replay.
pub fn check_headers(ledgers: &[Ledger]) -> Result<(), ReportError> {
    let staged = distinct(ledgers);
    if staged.iter().any(|l| l.header().stage.is_some()) {
        group(&staged)?;
    }
    Ok(())
}

/// The stage status of `ledgers` (None when they are not a staged run), given their replay.
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
    // `gate run --stage` runs exactly one task.
    let Some(task) = replay.tasks.first().filter(|_| replay.tasks.len() == 1) else {
        return Err(refuse(
            "a staged run has exactly one task, and these ledgers record several".to_string(),
        ));
    };
    let Some(b) = task.spec.sampling.stage() else {
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
    let decided_in = task.decided_at.map(|o| stage_of(b, o));
    let distinct = distinct(ledgers);
    if let [one] = distinct.as_slice() {
        let (s, shard) = (one.header().stage.unwrap_or(1), one.header().shard);
        if s > 1 || shard.is_some_and(|x| x.m > 1) {
            return Ok(Some(StageStatus {
                stage_size: b,
                through: 0,
                last_stage,
                decided_in,
                next: None,
                partial: Some((s, shard)),
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
    if let Some(d) = decided_in
        && through > d
    {
        let late = stages[&through].1.values().next().map(|l| l.path.clone());
        return Err(refuse(format!(
            "stage {through} (`{}`) ran after the rule decided in stage {d}: a staged run stops at its decision",
            late.map(|p| p.display().to_string()).unwrap_or_default()
        )));
    }
    // Every trial of every stage present must be there, with a graded (or unavailable)
    // first attempt: a hole would make the stage end a different point of the rule.
    let recorded: BTreeMap<u64, bool> = task
        .trials
        .iter()
        .map(|t| {
            let usable = t
                .first
                .as_ref()
                .is_some_and(|a| a.row.outcome != crate::model::Outcome::Cancelled);
            (t.ordinal, usable)
        })
        .collect();
    let end = through.saturating_mul(b);
    let decided_at = task.decided_at.unwrap_or(u64::MAX);
    if let Some(hole) = (1..=end).find(|o| *o <= decided_at && recorded.get(o) != Some(&true)) {
        return Err(refuse(format!(
            "stage {} is missing trial #{hole} of task `{}` (a shard stopped early?): every trial of a stage must be recorded",
            stage_of(b, hole),
            task.spec.id
        )));
    }
    let undecided = task.decided_at.is_none() && task.harness_error.is_none();
    Ok(Some(StageStatus {
        stage_size: b,
        through,
        last_stage,
        decided_in,
        next: (undecided && through < last_stage).then_some(through + 1),
        partial: None,
    }))
}
