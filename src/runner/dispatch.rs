//! A plan's tasks, each run by its kind: [`run_plan`] gives a plain task (or a stage's share
//! of one: [`TaskConfig::in_stage`]) to [`scheduler::run_task`], a suite task to
//! [`scheduler::run_suite`], a `compare:` task to [`super::pairs::run_compare_task`] and a
//! `compare:` suite to [`super::suite_pairs::SuiteCompare`]. `gate run` opens the session and
//! the box before, and decides and publishes after.

use std::path::PathBuf;
use std::sync::Arc;

use crate::error::Error;
use crate::ledger::RunStatus;
use crate::model::Shard;
use crate::plan::{Plan, TaskKind};

use super::events::{EventSink, Fanout};
use super::launcher::ProcessLauncher;
use super::redact::Redactor;
use super::sandbox::Sandbox;
use super::scheduler::{self, TaskConfig, TaskEnd};
use super::session::Session;
use super::suite::SuiteLauncher;
use super::sys::Interrupt;

/// What [`run_plan`] runs the plan's tasks with, besides the plan.
pub struct RunOptions<'a> {
    /// This process's part of the run, if it is one shard of it.
    pub shard: Option<Shard>,
    /// The folder of this run's logs and result files (its own, even when resumed).
    pub run_dir: PathBuf,
    /// The box every trial's processes run in.
    pub sandbox: Arc<Sandbox>,
    /// Each task's redactor, in plan order (gate's secrets and those of the task's `env:`).
    pub redactors: Vec<Redactor>,
    /// The run's signal flag: the first SIGINT or SIGTERM ends the run as interrupted.
    pub interrupt: &'a Interrupt,
}

/// Refuse a suite task whose runs at once would share what one run writes (a fixed
/// `results:` path). A compare suite runs both sides of a run at once: `jobs / 2` runs at a
/// time, as its runner counts them (`jobs` 2 and 3 once refused a fixed `results:` path).
pub fn check_jobs(plan: &Plan) -> Result<(), Error> {
    for t in &plan.tasks {
        let runs_at_once = match t.kind {
            TaskKind::SuiteCompare(..) => super::suite_pairs::lanes(plan.policy.jobs),
            TaskKind::Trials | TaskKind::Compare(_) | TaskKind::Suite(_) => plan.policy.jobs,
        };
        super::suite::check_jobs(t, runs_at_once)?;
    }
    Ok(())
}

/// Run every task of `plan` in order, each by its kind, its events to `session` (the ledger)
/// and `display`; returns how the run ended. A task the resumed ledger already decided is
/// skipped. When it returns, no trial runs any more and every orphan a trial left is killed.
pub fn run_plan(
    plan: &Plan,
    options: &RunOptions<'_>,
    session: &mut Session,
    display: &mut dyn EventSink,
) -> Result<RunStatus, Error> {
    let (shard, interrupt) = (options.shard, options.interrupt);
    let (run_dir, sandbox) = (options.run_dir.as_path(), &options.sandbox);
    let run_id = session.run_id().to_string();
    let mut status = RunStatus::Complete;
    for (task, redactor) in plan.tasks.iter().zip(&options.redactors) {
        let end = match &task.kind {
            TaskKind::SuiteCompare(..) => {
                let suite = super::suite_pairs::SuiteCompare::new(
                    task,
                    &plan.policy,
                    &run_id,
                    run_dir,
                    redactor,
                    sandbox,
                    session.prior(),
                )?;
                let mut sinks = Fanout(vec![&mut *session, &mut *display]);
                suite.run(interrupt, &mut sinks)?
            }
            TaskKind::Compare(_) => {
                let history = session.pair_history(&task.id);
                if history.decided {
                    continue;
                }
                let mut sinks = Fanout(vec![&mut *session, &mut *display]);
                super::pairs::run_compare_task(
                    task,
                    &plan.policy,
                    &run_id,
                    run_dir,
                    redactor,
                    sandbox,
                    history,
                    interrupt,
                    &mut sinks,
                )?
            }
            TaskKind::Suite(suite) => {
                let mut launcher =
                    ProcessLauncher::new(task, &plan.policy, &run_id, run_dir, redactor.clone());
                launcher.spec.sandbox = Some(Arc::clone(sandbox));
                launcher
                    .spec
                    .harness_exit_codes
                    .extend(&suite.harness_exit_codes);
                let (config, mut cases) =
                    super::suite::plan(task, plan.policy.jobs, shard, session.prior())?;
                let launcher = SuiteLauncher::new(launcher, suite, &cases);
                let history = session.history(&task.id);
                let mut sinks = Fanout(vec![&mut *session, &mut *display]);
                scheduler::run_suite(
                    &config, &launcher, history, &mut cases, interrupt, &mut sinks,
                )?
            }
            TaskKind::Trials => {
                let history = session.history(&task.id);
                if history.decided {
                    continue;
                }
                let config = TaskConfig::new(task, plan.policy.jobs, shard).in_stage(plan.stage);
                let mut launcher =
                    ProcessLauncher::new(task, &plan.policy, &run_id, run_dir, redactor.clone());
                launcher.spec.sandbox = Some(Arc::clone(sandbox));
                let mut sinks = Fanout(vec![&mut *session, &mut *display]);
                scheduler::run_task(&config, &launcher, history, interrupt, &mut sinks)?
            }
        };
        // The first task that ends without its decision ends the run.
        status = match end {
            TaskEnd::Decided => continue,
            TaskEnd::HarnessError => RunStatus::HarnessError,
            TaskEnd::Interrupted => RunStatus::Interrupted,
        };
        break;
    }
    // No trial runs any more: whatever a trial left behind (escaped its process group, so
    // the group kills missed it) dies now, before the ledger is checked and published.
    super::sys::kill_orphans();
    Ok(status)
}
