//! `gate run`: the main job. Wires the plan, the sampler, the runner and the ledger.
//!
//! For each task, trials are launched in ordinal order up to `jobs` at a time, but only as
//! many as the sampler could still need. Attempt rows are appended to the ledger as they
//! end; outcomes are buffered and consumed strictly in ordinal order (invariant 2). Once the
//! sampler decides, trials still in flight are cancelled and recorded as cancelled; trials
//! that finished beyond the decision point are recorded and reported as excluded. The
//! reports at the end are computed from the ledger file alone, like `gate report` does.

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, SystemTime};

use anyhow::{Context, bail};

use crate::cli::RunArgs;
use crate::exit;
use crate::ledger::{
    AttemptRow, Counts, DecisionRow, Fault, Footer, Header, Ledger, LedgerWriter, Outcome, Resume,
    Row, RunStatus, SCHEMA_VERSION, Shard, TaskSpec, now_rfc3339, sha256_hex,
};
use crate::plan::{Plan, Policy, Task};
use crate::progress::Progress;
use crate::runner::redact::Redactor;
use crate::runner::{AttemptSpec, run_attempt};
use crate::sampler::{Decision, Sampler, Sampling, TrialOutcome, Verdict};

/// Execute `gate run`; returns the exit code.
pub fn execute(args: &RunArgs) -> anyhow::Result<u8> {
    let mut plan = Plan::load(&args.plan)?;
    if let Some(j) = args.jobs {
        if j == 0 {
            bail!("`--jobs` must be at least 1");
        }
        plan.policy.jobs = j;
    }
    if let Some(p) = args.on_inconclusive {
        plan.policy.on_inconclusive = p.into();
    }
    if !args.tasks.is_empty() {
        for id in &args.tasks {
            if !plan.tasks.iter().any(|t| &t.id == id) {
                let known: Vec<String> = plan.tasks.iter().map(|t| format!("`{}`", t.id)).collect();
                bail!(
                    "`--task {id}`: no such task in `{}` (tasks: {})",
                    args.plan.display(),
                    known.join(", ")
                );
            }
        }
        plan.tasks.retain(|t| args.tasks.contains(&t.id));
    }
    let shard = args.shard.as_deref().map(parse_shard).transpose()?;
    preflight_outputs(args)?;
    if let Some(s) = shard
        && let Some(t) = plan
            .tasks
            .iter()
            .find(|t| matches!(t.sampling, Sampling::Sequential { .. }))
    {
        bail!(
            "`--shard {}/{}`: task `{}` uses a sequential plan, which decides trial by trial in ordinal order and \
             cannot be split across machines; shard only single (n, c) plans, or run this task unsharded",
            s.k,
            s.m,
            t.id
        );
    }

    // Ctrl-C / SIGTERM only set a flag; the loop below stops launching, cancels what is in
    // flight and closes the ledger.
    // A second signal exits at once (the ledger is then closed as after a crash: every
    // finished row is kept, and `--resume` continues it).
    let signal = Arc::new(AtomicUsize::new(0));
    let once = Arc::new(AtomicBool::new(false));
    for (sig, code) in [
        (signal_hook::consts::SIGINT, exit::INTERRUPTED),
        (signal_hook::consts::SIGTERM, exit::TERMINATED),
    ] {
        // Registration order is execution order: the shutdown check sees the flag as it was
        // before this signal set it.
        signal_hook::flag::register_conditional_shutdown(sig, i32::from(code), Arc::clone(&once))
            .and_then(|_| signal_hook::flag::register(sig, Arc::clone(&once)))
            .and_then(|_| signal_hook::flag::register_usize(sig, Arc::clone(&signal), sig as usize))
            .context("cannot install signal handlers")?;
    }

    let env: Vec<(String, String)> = std::env::vars().collect();
    let redactor = Redactor::new(
        env.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        plan.policy.redact.clone(),
    );
    let argv: Vec<String> = std::env::args().map(|a| redactor.apply(&a)).collect();
    // Each task's redactor also knows the secrets of its own `env:`.
    let task_redactors: Vec<Redactor> = plan
        .tasks
        .iter()
        .map(|t| redactor.with_env(t.env.iter().map(|(k, v)| (k.as_str(), v.as_str()))))
        .collect();
    let out_dir = args
        .ledger
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    // Tasks run in their own directories: every path handed to them must be absolute.
    let out_dir = std::path::absolute(out_dir)
        .with_context(|| format!("cannot resolve `{}`", out_dir.display()))?;
    let progress = Progress::new();

    let (mut writer, run_id, prior) = if args.resume {
        open_resume(&args.ledger, &plan, shard, &argv, &progress)?
    } else {
        let run_id = new_run_id();
        let header = header(&plan, &run_id, &argv, shard, &task_redactors);
        let (mut w, kept) = LedgerWriter::create(&args.ledger)?;
        if let Some(old) = kept {
            progress.println(&format!(
                "gate: the previous ledger at `{}` was kept as `{}`",
                args.ledger.display(),
                old.display()
            ));
        }
        w.append(Row::Header(header))?;
        (w, run_id, None)
    };

    for t in &plan.tasks {
        if let Some(words) = &t.designed {
            progress.println(&format!("{}: {words}", t.id));
        }
    }

    // Logs and result files of each run in their own folder: a later run never overwrites
    // an earlier run's evidence.
    let run_dir = out_dir.join("runs").join(&run_id);
    let mut status = RunStatus::Complete;
    for (task, task_redactor) in plan.tasks.iter().zip(&task_redactors) {
        let resumed = prior
            .as_ref()
            .map(|l| TaskHistory::from_ledger(l, &task.id))
            .unwrap_or_default();
        if resumed.decided {
            continue;
        }
        let ctx = TaskRun {
            task,
            policy: &plan.policy,
            run_id: &run_id,
            out_dir: &run_dir,
            shard,
            redactor: task_redactor.clone(),
            signal: &signal,
        };
        match ctx.run(&mut writer, &progress, resumed)? {
            TaskEnd::Finished => {}
            TaskEnd::HarnessError => {
                status = RunStatus::HarnessError;
                break;
            }
            TaskEnd::Interrupted => {
                status = RunStatus::Interrupted;
                break;
            }
        }
    }

    let interrupted_by = signal.load(Ordering::Relaxed);
    let code = finish(args, &mut writer, status, shard, interrupted_by)?;
    Ok(code)
}

/// Write the footer, print and write the reports, and return the exit code.
fn finish(
    args: &RunArgs,
    writer: &mut LedgerWriter,
    status: RunStatus,
    shard: Option<Shard>,
    signal: usize,
) -> anyhow::Result<u8> {
    let (verdict, code) = match status {
        RunStatus::Interrupted => (
            Some(Verdict::Inconclusive),
            if signal == signal_hook::consts::SIGTERM as usize {
                exit::TERMINATED
            } else {
                exit::INTERRUPTED
            },
        ),
        RunStatus::HarnessError => (None, exit::HARNESS),
        RunStatus::Complete => {
            // The verdict is recomputed from the ledger file, exactly as `gate report` would.
            // This reading is dropped before the one after the footer, which the reports use
            // (they say how the run ended), to keep peak memory to one copy.
            let ledger = Ledger::read(writer.path())?;
            let report = crate::report::Report::from_ledgers(std::slice::from_ref(&ledger), None)?;
            match (shard, report.verdict()) {
                // A shard publishes no verdict of its own unless its trials already make it
                // certain: `gate report` over all shards decides.
                (Some(_), Some(Verdict::Fail)) => (Some(Verdict::Fail), exit::FAIL),
                (Some(_), v) => (v, exit::SUCCESS),
                (None, v) => (v, report.exit_code()),
            }
        }
    };
    writer.append(Row::Footer(Footer {
        finished_at: now_rfc3339(),
        status,
        verdict,
        exit_code: code,
    }))?;
    let ledger = Ledger::read(writer.path())?;
    // The exit code shown is the one gate run uses (a shard exits 0, an interrupt 130).
    let report = crate::report::Report::from_ledgers(std::slice::from_ref(&ledger), None)?
        .with_exit_code(code);
    print!("{}", report.terminal());
    crate::report::emit(&report, &args.reports)?;
    println!("ledger: {}", writer.path().display());
    Ok(code)
}

/// Check the report paths before any trial runs: a typo there must not cost a whole run.
fn preflight_outputs(args: &RunArgs) -> anyhow::Result<()> {
    let files = &args.reports;
    let named = [
        ("--junit", &files.junit),
        ("--summary", &files.summary),
        ("--json", &files.json),
    ];
    for (flag, path) in named.iter().filter_map(|(f, p)| p.as_ref().map(|p| (f, p))) {
        if path.is_dir() {
            bail!(
                "`{flag} {}`: is a directory; give a file path",
                path.display()
            );
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| {
                format!(
                    "`{flag} {}`: cannot create `{}`",
                    path.display(),
                    dir.display()
                )
            })?;
        }
    }
    if args.ledger.is_dir() {
        bail!(
            "`--ledger {}`: is a directory; give a file path",
            args.ledger.display()
        );
    }
    Ok(())
}

/// Parse `K/M` with 1 <= K <= M.
pub fn parse_shard(s: &str) -> anyhow::Result<Shard> {
    let bad =
        || anyhow::anyhow!("`--shard {s}`: expected K/M with 1 <= K <= M, e.g. `--shard 2/3`");
    let (k, m) = s.split_once('/').ok_or_else(bad)?;
    let (k, m): (u64, u64) = (
        k.trim().parse().map_err(|_| bad())?,
        m.trim().parse().map_err(|_| bad())?,
    );
    if k == 0 || m == 0 || k > m {
        return Err(bad());
    }
    Ok(Shard { k, m })
}

fn new_run_id() -> String {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let seed = format!("{nanos}-{}-{}", std::process::id(), hostname());
    sha256_hex(seed.as_bytes())[..16].to_string()
}

/// This machine's host name, or `unknown`.
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into buf.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return "unknown".to_string();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

fn header(
    plan: &Plan,
    run_id: &str,
    argv: &[String],
    shard: Option<Shard>,
    redactors: &[Redactor],
) -> Header {
    Header {
        schema: SCHEMA_VERSION,
        gate_version: env!("CARGO_PKG_VERSION").to_string(),
        run_id: run_id.to_string(),
        plan_path: plan.path.display().to_string(),
        plan_hash: plan.hash.clone(),
        fixture_hash: plan.fixture_hash.clone(),
        argv: argv.to_vec(),
        started_at: now_rfc3339(),
        host: hostname(),
        shard,
        jobs: plan.policy.jobs,
        timeout_policy: plan.policy.timeout,
        on_inconclusive: plan.policy.on_inconclusive,
        transport_exit_codes: plan.policy.transport_exit_codes.clone(),
        transport_max_retries: plan.policy.transport_max_retries,
        tasks: plan
            .tasks
            .iter()
            .zip(redactors)
            .map(|(t, r)| TaskSpec {
                id: t.id.clone(),
                line: Some(t.line),
                sampling: t.sampling,
                rates: t.rates,
                max_unavailable: t.max_unavailable,
                run: r.apply(&t.run.display()),
                check: t.check.as_ref().map(|c| r.apply(&c.display())),
                timeout_s: Some(t.timeout.as_secs_f64()),
            })
            .collect(),
    }
}

/// Open an interrupted ledger for `--resume`, refusing a changed plan or fixtures.
fn open_resume(
    path: &Path,
    plan: &Plan,
    shard: Option<Shard>,
    argv: &[String],
    progress: &Progress,
) -> anyhow::Result<(LedgerWriter, String, Option<Ledger>)> {
    let ledger = Ledger::read(path)
        .with_context(|| format!("`--resume`: cannot read `{}`", path.display()))?;
    let h = ledger.header();
    if h.plan_hash != plan.hash {
        bail!(
            "`--resume`: `{}` changed since the ledger `{}` was started (plan hash {}… vs {}…); \
             a resumed run must use the same plan — start a new ledger instead",
            plan.path.display(),
            path.display(),
            &h.plan_hash[..12.min(h.plan_hash.len())],
            &plan.hash[..12]
        );
    }
    if h.fixture_hash != plan.fixture_hash {
        bail!(
            "`--resume`: the fixtures changed since the ledger `{}` was started; a resumed run must see the same \
             fixtures — start a new ledger instead",
            path.display()
        );
    }
    if h.shard != shard {
        bail!("`--resume`: the ledger was started with a different `--shard`");
    }
    let started: Vec<&str> = h.tasks.iter().map(|t| t.id.as_str()).collect();
    let now: Vec<&str> = plan.tasks.iter().map(|t| t.id.as_str()).collect();
    if started != now {
        bail!(
            "`--resume`: the ledger was started with the tasks {}, but this run selects {}; resume with the same `--task` selection",
            started
                .iter()
                .map(|t| format!("`{t}`"))
                .collect::<Vec<_>>()
                .join(", "),
            now.iter()
                .map(|t| format!("`{t}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if let Some(bad) = ledger
        .attempts()
        .find(|a| a.outcome == Outcome::HarnessError)
    {
        bail!(
            "`--resume`: `{}` recorded a harness error (task `{}`, trial {}), which invalidates the run; fix the task and start a new ledger",
            path.display(),
            bad.task,
            bad.trial
        );
    }
    let run_id = h.run_id.clone();
    match ledger.footer().map(|f| f.status) {
        Some(RunStatus::Complete) => bail!(
            "`--resume`: `{}` is a complete run; nothing to resume",
            path.display()
        ),
        Some(RunStatus::HarnessError) => bail!(
            "`--resume`: `{}` ended in a harness error, which invalidates the run; fix the task and start a new ledger",
            path.display()
        ),
        Some(RunStatus::Interrupted) | None => {}
    }
    if ledger.torn_tail.is_some() {
        progress.println(&format!(
            "gate: `{}` ends in an incomplete row (lost when the run died); it is dropped before resuming",
            path.display()
        ));
    }
    let mut writer = LedgerWriter::resume(path, &ledger)?;
    writer.append(Row::Resume(Resume {
        started_at: now_rfc3339(),
        argv: argv.to_vec(),
        host: hostname(),
    }))?;
    Ok((writer, run_id, Some(ledger)))
}

/// What an earlier (interrupted) run of the same ledger already did for a task.
#[derive(Debug, Default)]
struct TaskHistory {
    /// The task has a decision row: nothing to do.
    decided: bool,
    /// Attempt-1 outcome of each recorded trial: its finished outcome if it has one,
    /// otherwise `Cancelled`.
    outcomes: BTreeMap<u64, Outcome>,
}

impl TaskHistory {
    fn from_ledger(ledger: &Ledger, task: &str) -> Self {
        let decided = ledger.decisions().any(|d| d.task == task);
        let mut outcomes: BTreeMap<u64, Outcome> = BTreeMap::new();
        for a in ledger
            .attempts()
            .filter(|a| a.task == task && a.attempt == 1)
        {
            // A trial re-run at resume has a cancelled row and then a finished one; the
            // finished row is its grade, and nothing replaces a finished row.
            let slot = outcomes.entry(a.trial).or_insert(a.outcome);
            if *slot == Outcome::Cancelled {
                *slot = a.outcome;
            }
        }
        TaskHistory { decided, outcomes }
    }
}

enum TaskEnd {
    Finished,
    HarnessError,
    Interrupted,
}

enum Msg {
    /// An attempt ended; `last` when the trial's thread will send nothing more.
    Attempt { row: Box<AttemptRow>, last: bool },
    /// The trial's thread ended without a final attempt (cancelled during a backoff).
    Done(u64),
}

struct TaskRun<'a> {
    task: &'a Task,
    policy: &'a Policy,
    run_id: &'a str,
    out_dir: &'a Path,
    shard: Option<Shard>,
    redactor: Redactor,
    signal: &'a AtomicUsize,
}

fn sampler_outcome(o: Outcome) -> Option<TrialOutcome> {
    match o {
        Outcome::Pass => Some(TrialOutcome::Pass),
        Outcome::Fail => Some(TrialOutcome::Fail),
        Outcome::Unavailable => Some(TrialOutcome::Unavailable),
        Outcome::Cancelled | Outcome::HarnessError => None,
    }
}

/// Trials in flight and outcomes waiting for their turn.
struct Lanes {
    /// Trials whose thread is running, with their cancel flags.
    in_flight: BTreeMap<u64, Arc<AtomicBool>>,
    /// Ordinals launched in this session whose attempt-1 outcome the sampler has not yet
    /// consumed, in ordinal order, with the outcome once known.
    queue: VecDeque<(u64, Option<Outcome>)>,
    /// Ordinals of an interrupted run that never got a grade: launched again before any new one.
    rerun: VecDeque<u64>,
    /// The next ordinal to launch.
    next_ordinal: u64,
}

impl TaskRun<'_> {
    /// Launch trials up to `jobs`, but only as many as the sampler could still need: graded
    /// trials still owed, minus those in flight or finished but not yet consumed. An
    /// unavailable outcome does not reduce what is owed, so a replacement follows it.
    fn fill(&self, lp: &mut Lanes, sampler: &Sampler, budget: u64, tx: &mpsc::Sender<Msg>) {
        // Re-runs first, whatever is owed: consumption is blocked on them.
        while lp.in_flight.len() < self.policy.jobs
            && let Some(ordinal) = lp.rerun.pop_front()
        {
            lp.in_flight.insert(ordinal, self.launch(ordinal, tx));
        }
        let owed = budget.saturating_sub(sampler.tally().graded());
        while lp.in_flight.len() < self.policy.jobs {
            let pending = lp
                .queue
                .iter()
                .filter(|(_, o)| o.is_none_or(|o| o == Outcome::Pass || o == Outcome::Fail))
                .count() as u64;
            // Unavailable trials that finished but wait behind a slow earlier ordinal free
            // their slots early; past the remaining budget, more trials cannot help (the task
            // will be INCONCLUSIVE once they are consumed), so stop launching.
            let unavailable = lp
                .queue
                .iter()
                .filter(|(_, o)| *o == Some(Outcome::Unavailable))
                .count() as u64;
            if pending >= owed || unavailable > sampler.remaining_unavailable() {
                break;
            }
            while !self.owns(lp.next_ordinal) {
                lp.next_ordinal += 1;
            }
            let ordinal = lp.next_ordinal;
            lp.in_flight.insert(ordinal, self.launch(ordinal, tx));
            lp.queue.push_back((ordinal, None));
            lp.next_ordinal += 1;
        }
    }

    fn owns(&self, ordinal: u64) -> bool {
        self.shard.is_none_or(|s| s.owns(ordinal))
    }

    /// Graded trials this run (or shard) may grade at most.
    fn graded_budget(&self) -> u64 {
        let max = self.task.sampling.max_graded();
        match self.shard {
            None => max,
            // Ordinals k, k + m, k + 2m, … up to max.
            Some(s) if max >= s.k => (max - s.k) / s.m + 1,
            Some(_) => 0,
        }
    }

    fn spec(&self, trial: u64, attempt: u32) -> AttemptSpec {
        AttemptSpec {
            task: self.task.id.clone(),
            trial,
            attempt,
            run_id: self.run_id.to_string(),
            run: self.task.run.clone(),
            check: self.task.check.clone(),
            cwd: self.task.cwd.clone(),
            env: self.task.env.clone(),
            timeout: self.task.timeout,
            kill_grace: self.policy.kill_grace,
            timeout_policy: self.policy.timeout,
            transport_exit_codes: self.policy.transport_exit_codes.clone(),
            out_dir: self.out_dir.to_path_buf(),
        }
    }

    /// Start trial `ordinal` on its own thread: attempt 1, then transport retries if any.
    fn launch(&self, ordinal: u64, tx: &mpsc::Sender<Msg>) -> Arc<AtomicBool> {
        let cancel = Arc::new(AtomicBool::new(false));
        let (spec, redactor, tx, flag) = (
            self.spec(ordinal, 1),
            self.redactor.clone(),
            tx.clone(),
            Arc::clone(&cancel),
        );
        let (retries, min, max) = (
            self.policy.transport_max_retries,
            self.policy.backoff_min,
            self.policy.backoff_max,
        );
        std::thread::spawn(move || {
            // Whatever happens on this thread, the loop hears that the trial is over: a
            // trial that never reports would keep gate waiting forever.
            let mut done = DoneGuard {
                tx: tx.clone(),
                trial: ordinal,
                armed: true,
            };
            let mut spec = spec;
            let mut row = attempt_or_internal_error(&spec, &redactor, &flag);
            loop {
                let retry = row.fault == Some(Fault::Transport)
                    && spec.attempt <= retries
                    && !flag.load(Ordering::Relaxed);
                done.armed = retry;
                let _ = tx.send(Msg::Attempt {
                    row: Box::new(row),
                    last: !retry,
                });
                if !retry || !sleep_unless(backoff(min, max, spec.attempt), &flag) {
                    return;
                }
                spec.attempt += 1;
                row = attempt_or_internal_error(&spec, &redactor, &flag);
            }
        });
        cancel
    }

    fn run(
        &self,
        writer: &mut LedgerWriter,
        progress: &Progress,
        history: TaskHistory,
    ) -> anyhow::Result<TaskEnd> {
        let task = self.task;
        let mut sampler = Sampler::new(task.sampling, task.max_unavailable)
            .with_context(|| format!("task `{}`", task.id))?;
        let budget = self.graded_budget();
        let bar = progress.task(&task.id, budget);
        let sprt_view = |s: &Sampler| s.llr().zip(s.llr_bounds()).map(|(l, (lo, hi))| (l, lo, hi));

        // What an interrupted run already recorded, in ordinal order. Trials that never got
        // a grade there — cancelled at the interrupt, or lost with no row in a crash — are
        // run again at the same ordinal, first: skipping them would drop exactly the slow
        // trials that were still running, the completion-order bias invariant 2 forbids.
        // A cancelled attempt was never graded, so this re-grades nothing.
        let mut outcomes = history.outcomes;
        let (tx, rx) = mpsc::channel::<Msg>();
        let mut lp = Lanes {
            in_flight: BTreeMap::new(),
            queue: VecDeque::new(),
            rerun: VecDeque::new(),
            next_ordinal: outcomes.keys().next_back().map_or(1, |o| o + 1),
        };
        for ordinal in (1..lp.next_ordinal).filter(|&o| self.owns(o)) {
            match outcomes.get(&ordinal) {
                Some(&o) if o != Outcome::Cancelled => lp.queue.push_back((ordinal, Some(o))),
                _ => {
                    lp.queue.push_back((ordinal, None));
                    lp.rerun.push_back(ordinal);
                }
            }
        }
        consume_front(&mut lp.queue, &mut sampler, false);
        let mut harness_error: Option<String> = None;
        let mut stopping = false;

        loop {
            let signalled = self.signal.load(Ordering::Relaxed) != 0;
            let decided = sampler.decision().is_some();
            let shard_done = sampler.tally().graded() >= budget;
            if (signalled || decided || shard_done || harness_error.is_some()) && !stopping {
                stopping = true;
                for f in lp.in_flight.values() {
                    f.store(true, Ordering::Relaxed);
                }
            }
            if !stopping {
                self.fill(&mut lp, &sampler, budget, &tx);
            }
            if lp.in_flight.is_empty() {
                break;
            }
            let mut batch = match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(m) => vec![m],
                Err(mpsc::RecvTimeoutError::Timeout) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            batch.extend(rx.try_iter());
            // Take in the whole batch — free slots, consume outcomes in ordinal order — then
            // refill the slots, and only then sync the rows to disk, so the fsync of one row
            // never holds up the next trial. Rows are still appended in arrival order.
            let mut rows = Vec::with_capacity(batch.len());
            for msg in batch {
                let row = match msg {
                    Msg::Done(trial) => {
                        lp.in_flight.remove(&trial);
                        continue;
                    }
                    Msg::Attempt { row, last } => {
                        if last {
                            lp.in_flight.remove(&row.trial);
                        }
                        *row
                    }
                };
                if row.outcome == Outcome::HarnessError && harness_error.is_none() {
                    harness_error = Some(format!(
                        "trial {} attempt {}: {}",
                        row.trial,
                        row.attempt,
                        row.reason.clone().unwrap_or_default()
                    ));
                }
                if row.attempt == 1 {
                    if let Some(slot) = lp.queue.iter_mut().find(|(o, _)| *o == row.trial) {
                        slot.1 = Some(row.outcome);
                    }
                    let slot = outcomes.entry(row.trial).or_insert(row.outcome);
                    if *slot == Outcome::Cancelled {
                        *slot = row.outcome;
                    }
                }
                consume_front(&mut lp.queue, &mut sampler, harness_error.is_some());
                rows.push((row, sampler.tally(), sprt_view(&sampler)));
            }
            let done = sampler.decision().is_some() || sampler.tally().graded() >= budget;
            if !stopping
                && !done
                && harness_error.is_none()
                && self.signal.load(Ordering::Relaxed) == 0
            {
                self.fill(&mut lp, &sampler, budget, &tx);
            }
            for (row, tally, sprt) in rows {
                writer.append(Row::Attempt(row.clone()))?;
                bar.attempt(&row, tally, sprt);
            }
        }

        let tally = sampler.tally();
        let cancelled = outcomes
            .values()
            .filter(|o| **o == Outcome::Cancelled)
            .count() as u64;
        let finished = outcomes
            .values()
            .filter(|o| sampler_outcome(**o).is_some())
            .count() as u64;
        let counts = Counts::from_tally(
            tally,
            cancelled,
            finished.saturating_sub(tally.passed + tally.failed + tally.unavailable),
        );
        if let Some(why) = harness_error {
            bar.finish("HARNESS ERROR");
            writer.append(Row::Decision(DecisionRow {
                task: task.id.clone(),
                verdict: None,
                reason: format!("harness error: {why}"),
                counts,
                llr: sampler.llr(),
            }))?;
            return Ok(TaskEnd::HarnessError);
        }
        let decision = match sampler.decision() {
            Some(d) => d.clone(),
            None if self.signal.load(Ordering::Relaxed) != 0 => {
                bar.finish("interrupted");
                return Ok(TaskEnd::Interrupted);
            }
            None => match self.shard {
                Some(s) => Decision {
                    verdict: Verdict::Inconclusive,
                    reason: format!(
                        "shard {}/{} ran its {} trials; the verdict needs every shard (`gate report`)",
                        s.k, s.m, budget
                    ),
                },
                None => Decision {
                    verdict: Verdict::Inconclusive,
                    reason: "no decision was reached".to_string(),
                },
            },
        };
        bar.finish(decision.verdict.as_str());
        writer.append(Row::Decision(DecisionRow {
            task: task.id.clone(),
            verdict: Some(decision.verdict),
            reason: decision.reason,
            counts,
            llr: sampler.llr(),
        }))?;
        Ok(TaskEnd::Finished)
    }
}

/// Sends `Done` when a trial's thread ends without having sent its last attempt (cancelled
/// during a backoff, or unwinding from a bug).
struct DoneGuard {
    tx: mpsc::Sender<Msg>,
    trial: u64,
    armed: bool,
}

impl Drop for DoneGuard {
    fn drop(&mut self) {
        if self.armed {
            let _ = self.tx.send(Msg::Done(self.trial));
        }
    }
}

/// Run one attempt; a bug in gate (a panic) becomes a harness-error row rather than a lost
/// trial, so the run stops with exit 4 and the ledger says why.
fn attempt_or_internal_error(
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
        AttemptRow {
            task: spec.task.clone(),
            trial: spec.trial,
            attempt: spec.attempt,
            started_at: now_rfc3339(),
            duration_s: 0.0,
            exit_code: None,
            signal: None,
            check_exit: None,
            fault: Some(Fault::Harness),
            outcome: Outcome::HarnessError,
            graded: false,
            result: None,
            reason: Some(format!("internal error in gate (please report it): {what}")),
            stdout_tail: String::new(),
            stderr_tail: String::new(),
            log: None,
        }
    })
}

/// Feed the sampler the outcomes at the front of the queue, in ordinal order, up to the
/// first trial still running. After a harness error nothing more is consumed (the reports'
/// replay does the same), but the queue still drains.
fn consume_front(
    queue: &mut VecDeque<(u64, Option<Outcome>)>,
    sampler: &mut Sampler,
    harness: bool,
) {
    while let Some((_, Some(outcome))) = queue.front() {
        if !harness && let Some(o) = sampler_outcome(*outcome) {
            sampler.consume(o);
        }
        queue.pop_front();
    }
}

/// Exponential backoff before attempt `after + 1`, with jitter uniform in [50%, 100%].
fn backoff(min: Duration, max: Duration, after: u32) -> Duration {
    let base = min.as_secs_f64() * 2f64.powi(after.saturating_sub(1).min(30) as i32);
    let capped = base.min(max.as_secs_f64());
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    // The jitter only spreads retries in time; it needs no statistical quality.
    let jitter = 0.5 + 0.5 * f64::from(nanos % 1_000_000) / 1_000_000.0;
    Duration::from_secs_f64(capped * jitter)
}

/// Sleep for `d` unless cancelled first; returns false when cancelled.
fn sleep_unless(d: Duration, cancel: &AtomicBool) -> bool {
    let now = std::time::Instant::now();
    let Some(end) = now.checked_add(d) else {
        return false;
    };
    while std::time::Instant::now() < end {
        if cancel.load(Ordering::Relaxed) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20).min(end - std::time::Instant::now()));
    }
    !cancel.load(Ordering::Relaxed)
}
