//! A stage of a staged run before its first trial (`gate run --stage S --after LEDGER...`):
//! the earlier stages' ledgers, read as `gate report` reads them (`report/stages.rs`), must
//! say CONTINUE with stage S, or no trial is launched (exit 2); the tasks they decided leave
//! the plan, and the ledgers followed are recorded in the stage's header (run id and chain
//! head), so `gate report` merges the stage only with them. A stage's end inside a run is
//! the scheduler's ([`super::scheduler::TaskConfig`]).

use std::path::PathBuf;

use crate::error::Error;
use crate::ledger::{CiRun, Followed, Ledger};
use crate::model::Shard;
use crate::plan::Plan;
use crate::report::Report;
use crate::report::words::verdict_text;

/// Stage `stage` of a staged run starts only after the earlier stages, from their ledgers
/// (`--after`): they must be stages 1 to `stage - 1` of this plan, complete, and say CONTINUE
/// with this stage, or no trial is launched. The tasks already decided (or past their last
/// stage) are dropped from the run, so their later ordinals are never launched; returns a
/// line for each, to print. Stage 1 takes no `--after`.
pub fn after_earlier_stages(
    plan: &mut Plan,
    stage: u64,
    shard: Option<Shard>,
    after: &[PathBuf],
) -> Result<Vec<String>, Error> {
    use crate::error::Context as _;
    if stage == 1 {
        if let Some(l) = after.first() {
            return Err(Error::Usage(format!(
                "`--after {}`: stage 1 has no earlier stages",
                l.display()
            )));
        }
        return Ok(Vec::new());
    }
    let earlier = match stage {
        2 => "stage 1".to_string(),
        _ => format!("stages 1 to {}", stage - 1),
    };
    if after.is_empty() {
        return Err(Error::Usage(format!(
            "`--stage {stage}` needs the ledgers of {earlier} (`--after LEDGER`, repeatable): \
             the stage runs only if they say CONTINUE, and only the tasks they leave undecided"
        )));
    }
    let ledgers = after
        .iter()
        // As `gate report`: only rows the hash chain covers decide what the stage runs.
        .map(|p| Ledger::read(p).map(Ledger::chain_covered))
        .collect::<Result<Vec<_>, _>>()
        .context("`--after`: cannot read ledger")?;
    if let Some(l) = ledgers
        .iter()
        .find(|l| l.header().plan_hash != plan.hash || l.header().fixture_hash != plan.fixture_hash)
    {
        return Err(Error::Usage(format!(
            "`--after {}`: a ledger of another plan or other fixtures than `{}`",
            l.path.display(),
            plan.path.display()
        )));
    }
    for l in &ledgers {
        let changed = crate::plan::state::programs_changed(&l.header().programs, plan);
        if !changed.is_empty() {
            return Err(Error::Usage(format!(
                "`--after {}`: the earlier stage ran other programs than this checkout names: `{}` \
                 changed since; every stage must judge the same agent and graders",
                l.path.display(),
                changed.join("`, `")
            )));
        }
    }
    let report = Report::from_ledgers(&ledgers, None)
        .context("`--after`: the earlier stages' ledgers are not a staged run")?;
    refuse_unmergeable_stage(&ledgers, shard)?;
    let status = match &report.stages {
        Some(s) if s.partial.is_none() => s,
        Some(_) => {
            return Err(Error::Usage(format!(
                "`--after`: give every shard of {earlier}, not one ledger"
            )));
        }
        None => {
            return Err(Error::Usage(
                "`--after`: these ledgers are not stages of a staged run (`gate run --stage`)"
                    .into(),
            ));
        }
    };
    match (report.continue_with(), status.decided_in) {
        (Some(next), _) if next == stage => {}
        (Some(next), _) => {
            return Err(Error::Usage(format!(
                "`--stage {stage}`: the ledgers given are stages 1 to {}, so the next stage is {next}",
                status.through
            )));
        }
        (None, decided) => {
            return Err(Error::Usage(format!(
                "`--stage {stage}`: the staged run {} ({} after stage {}); no later stage runs",
                if decided.is_some() {
                    "already decided"
                } else {
                    "has no next stage"
                },
                report.decision(),
                status.through
            )));
        }
    }
    let mut lines = Vec::new();
    for t in &plan.tasks {
        let Some(s) = status.tasks.iter().find(|s| s.id == t.id) else {
            return Err(Error::Usage(format!(
                "`--stage {stage}`: task `{}` did not run in stages 1 to {} (were they run with `--task`?): \
                 select the same tasks in every stage",
                t.id, status.through
            )));
        };
        if !s.runs_next {
            let why = match (s.decided_in, report.tasks.iter().find(|r| r.id() == t.id)) {
                (Some(d), Some(r)) => format!("{} in stage {d}", verdict_text(r.verdict())),
                _ => format!("its last stage was {}", s.last_stage),
            };
            lines.push(format!("{}: {why}; runs nothing in stage {stage}", t.id));
        }
    }
    // The ledger header records which earlier ledgers this stage followed, by run id and
    // the chain head read here: another execution of an earlier stage in the same CI attempt
    // (a retried step) has a header like theirs, and a report merging this stage with it
    // would judge trials its CONTINUE never asked for (review 47, c16).
    let mut followed: Vec<Followed> = Vec::new();
    for l in &ledgers {
        let f = Followed {
            run_id: l.header().run_id.clone(),
            head: l.last_hash.clone(),
        };
        if !followed.contains(&f) {
            followed.push(f);
        }
    }
    plan.after = followed;
    plan.tasks
        .retain(|t| status.tasks.iter().any(|s| s.id == t.id && s.runs_next));
    if plan.tasks.is_empty() {
        return Err(Error::Usage(format!(
            "`--stage {stage}`: every task selected is decided ({}); nothing runs in stage {stage}",
            lines.join("; ")
        )));
    }
    Ok(lines)
}

/// A stage whose ledger `gate report` could never merge with the earlier stages' is refused
/// before any trial: every trial it ran would be wasted. The report merges shards of one
/// shard count only, never a whole run with shards, and only stages and shards of one attempt
/// of one CI run (the matrix job may differ from stage to stage).
fn refuse_unmergeable_stage(ledgers: &[Ledger], shard: Option<Shard>) -> Result<(), Error> {
    let Some(first) = ledgers.first() else {
        return Ok(());
    };
    let m = |s: Option<Shard>| {
        s.map_or_else(
            || "a whole run".to_string(),
            |s| format!("shards of {}", s.m),
        )
    };
    if first.header().shard.map(|s| s.m) != shard.map(|s| s.m) {
        return Err(Error::Usage(format!(
            "`--after {}`: the earlier stages ran as {}, this stage as {}: every stage of a staged run \
             runs the same number of shards (or every stage whole)",
            first.path.display(),
            m(first.header().shard),
            m(shard)
        )));
    }
    // Every stage of one staged run runs in one attempt of one CI run: a stage-1 ledger of
    // another run is not this run's evidence (break 14 of issue 29).
    let here = CiRun::from_env();
    for l in ledgers {
        if CiRun::attempt(&l.header().ci) != CiRun::attempt(&here) {
            return Err(Error::Usage(format!(
                "`--after {}`: the earlier stage ran {}, this stage {}: `gate report` merges only \
                 the stages and shards of one attempt of one CI run (re-run all jobs of the workflow run)",
                l.path.display(),
                CiRun::words(&l.header().ci),
                CiRun::words(&here)
            )));
        }
    }
    Ok(())
}
