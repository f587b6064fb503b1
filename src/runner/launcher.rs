//! Launchers: what starts a trial, and the guard that stops every trial still running.
//!
//! The one loop ([`super::scheduler`]) knows nothing about processes: a [`Launcher`] starts an
//! ordinal (a trial, a suite run, or a pair's two sides through [`super::pairs::PairLauncher`]).
//! The real one, [`ProcessLauncher`], runs attempts as process groups; the loop's unit tests
//! use fakes. `InFlight` is the loop's guard: whatever way the loop is left, it cancels every
//! ordinal still running and has the launcher kill everything it started (invariant 9).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};

use super::redact::Redactor;
use super::retry::{RetryPolicy, TrialMsg, run_trial};
use super::{AttemptSpec, run_attempt};
use crate::ledger::{AttemptRow, now_rfc3339};
use crate::model::{Fault, Outcome};
use crate::plan::{Policy, Task};

/// Starts trials. Implemented by [`ProcessLauncher`] and by test fakes.
pub trait Launcher {
    /// Start trial `ordinal` (on its own thread). It must report every attempt on `tx` and end
    /// with a message marked last (or [`TrialMsg::Done`]); it stops early once `cancel` is set.
    fn launch(&self, ordinal: u64, cancel: Arc<AtomicBool>, tx: mpsc::Sender<TrialMsg>);

    /// Kill at once everything this launcher started that may still run. Called on every
    /// abnormal way out of the loop ([`super::scheduler::run_task`] and its siblings).
    fn kill_all(&self);

    /// Housekeeping on the scheduler's thread, called whenever it wakes (at least every
    /// 50 ms): the real launcher reaps the ended orphans of its trials there.
    fn tidy(&self) {}
}

/// Ordinals whose thread is running, with their cancel flags. Dropping it with some still in
/// flight — an error or a panic left the loop early — cancels them and has the launcher kill
/// everything it started, so no process outlives gate.
pub(super) struct InFlight<'a, L: Launcher + ?Sized> {
    /// Cancel flag of each running ordinal.
    pub(super) flags: BTreeMap<u64, Arc<AtomicBool>>,
    launcher: &'a L,
}

impl<'a, L: Launcher + ?Sized> InFlight<'a, L> {
    /// A guard over nothing yet, for ordinals started by `launcher`.
    pub(super) fn new(launcher: &'a L) -> Self {
        InFlight {
            flags: BTreeMap::new(),
            launcher,
        }
    }

    /// Ask every running ordinal to stop.
    pub(super) fn cancel_all(&self) {
        for f in self.flags.values() {
            f.store(true, Ordering::Relaxed);
        }
    }
}

impl<L: Launcher + ?Sized> Drop for InFlight<'_, L> {
    fn drop(&mut self) {
        if !self.flags.is_empty() {
            self.cancel_all();
            self.launcher.kill_all();
        }
    }
}

/// The real launcher: each trial on its own thread, each attempt a process group
/// ([`run_attempt`]), transport retries by [`run_trial`].
#[derive(Debug, Clone)]
pub struct ProcessLauncher {
    /// The attempt to run; `trial` and `attempt` are set per launch.
    pub spec: AttemptSpec,
    /// Redacts every text the task controls.
    pub redactor: Redactor,
    /// Transport retries.
    pub retry: RetryPolicy,
}

impl ProcessLauncher {
    /// The launcher of `task`'s trials under `policy`, writing logs and result files under
    /// `run_dir`.
    pub fn new(
        task: &Task,
        policy: &Policy,
        run_id: &str,
        run_dir: &Path,
        redactor: Redactor,
    ) -> Self {
        ProcessLauncher {
            spec: AttemptSpec {
                task: task.id.clone(),
                trial: 0,
                attempt: 0,
                run_id: run_id.to_string(),
                run: task.run.clone(),
                check: task.check.clone(),
                cwd: task.cwd.clone(),
                writes: task.writes.is_some().then(|| task.write_roots(&task.cwd)),
                env: task.env.clone(),
                timeout: task.timeout,
                kill_grace: policy.kill_grace,
                timeout_policy: policy.timeout,
                transport_exit_codes: policy.transport_exit_codes.clone(),
                harness_exit_codes: policy.harness_exit_codes.clone(),
                out_dir: run_dir.to_path_buf(),
                sandbox: None,
            },
            redactor,
            retry: RetryPolicy {
                max_retries: policy.transport_max_retries,
                backoff_min: policy.backoff_min,
                backoff_max: policy.backoff_max,
            },
        }
    }
}

impl Launcher for ProcessLauncher {
    fn launch(&self, ordinal: u64, cancel: Arc<AtomicBool>, tx: mpsc::Sender<TrialMsg>) {
        let (spec, redactor, retry) = (self.spec.clone(), self.redactor.clone(), self.retry);
        let tx_back = tx.clone();
        let started = on_a_trial_thread(Box::new(move || {
            // Removed once the trial's attempts are over and their processes gone: with
            // the attempts' closure, before the trial's last message (see `run_trial`).
            let folder = TrialFolder(spec.result_dir(ordinal), spec.sandbox.clone());
            let flag = Arc::clone(&cancel);
            let attempts = move |attempt| {
                let _owned = &folder;
                let spec = AttemptSpec {
                    trial: ordinal,
                    attempt,
                    ..spec.clone()
                };
                attempt_or_internal_error(&spec, &redactor, &flag)
            };
            run_trial(ordinal, retry, &cancel, &tx, attempts);
        }));
        if let Err(e) = started {
            // No thread to be had (a process or memory limit): the trial never ran, which is
            // a harness error (exit 4), not a panic and not a lost trial.
            let why = format!("cannot start a thread for the trial: {e}");
            // The scheduler holds the receiver while any trial is in flight.
            let _ = tx_back.send(TrialMsg::Attempt {
                row: Box::new(harness_error_row(&self.spec.task, ordinal, 1, why)),
                last: true,
            });
        }
    }

    fn kill_all(&self) {
        super::sys::kill_all_groups();
    }

    fn tidy(&self) {
        // The scheduler runs on gate's main thread, the parent of every adopted orphan.
        super::sys::reap_orphans();
    }
}

/// A trial to run on a thread of its own.
type Job = Box<dyn FnOnce() + Send>;

/// The trial threads waiting for work: each a sender to its thread's queue.
static IDLE: std::sync::Mutex<Vec<mpsc::Sender<Job>>> = std::sync::Mutex::new(Vec::new());

/// Run `job` on a trial thread: one left idle by an earlier trial, or a new one. A thread
/// is kept once its trial is over (its processes reaped, its folder released): starting a
/// thread per trial (its stack mapped, its TLS made, then all torn down) was a measurable
/// part of a no-op trial. At most as many are kept as ever ran trials at once, about
/// `--jobs`. A child's death signal fires when the thread that started it ends: a trial
/// thread ends only with gate, after its trials' processes were reaped.
fn on_a_trial_thread(mut job: Job) -> std::io::Result<()> {
    loop {
        let idle = IDLE.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let Some(worker) = idle else { break };
        match worker.send(job) {
            Ok(()) => return Ok(()),
            // That thread is gone (a panic ended it): try the next.
            Err(mpsc::SendError(back)) => job = back,
        }
    }
    let (me, queue) = mpsc::channel::<Job>();
    let again = me.clone();
    std::thread::Builder::new()
        .name("gate-trial".into())
        .spawn(move || {
            job();
            IDLE.lock().unwrap_or_else(|e| e.into_inner()).push(again);
            // `me` is held by this thread (in `IDLE` when idle): the queue never closes.
            while let Ok(job) = queue.recv() {
                job();
                IDLE.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(me.clone());
            }
        })
        .map(drop)
}

/// A trial's result folder, removed (or, boxed, kept empty for the task's next trial) when
/// dropped.
struct TrialFolder(std::path::PathBuf, Option<Arc<super::sandbox::Sandbox>>);

impl Drop for TrialFolder {
    fn drop(&mut self) {
        match &self.1 {
            Some(sandbox) => sandbox.release_result_dir(&self.0),
            None => super::sandbox::remove_folder(&self.0),
        }
    }
}

/// Run one attempt; a bug in gate (a panic) becomes a harness-error row rather than a lost
/// trial, so the run stops with exit 4 and the ledger says why.
pub(super) fn attempt_or_internal_error(
    spec: &AttemptSpec,
    redactor: &Redactor,
    cancel: &AtomicBool,
) -> AttemptRow {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_attempt(spec, redactor, cancel)
    }))
    .unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        let why = format!("internal error in gate (please report it): {what}");
        harness_error_row(&spec.task, spec.trial, spec.attempt, why)
    })
}

/// The row of attempt `attempt` of `task`'s trial `trial`, which gate itself could not run.
pub(super) fn harness_error_row(task: &str, trial: u64, attempt: u32, why: String) -> AttemptRow {
    AttemptRow {
        fault: Some(Fault::Harness),
        detail: crate::ledger::AttemptDetail {
            reason: Some(why),
            ..Default::default()
        }
        .into(),
        ..AttemptRow::started(
            task.into(),
            trial,
            attempt,
            now_rfc3339(),
            Outcome::HarnessError,
        )
    }
}
