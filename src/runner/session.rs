//! A run's session with its ledger: the lock, the header (or the checks of `--resume`), the
//! rows as they are written, and the verified read-back that every verdict of `gate run`
//! comes from.
//!
//! Trust (docs/ARCHITECTURE.md, "Trust model"): the task under test runs next to the ledger
//! and may replace, truncate or edit it. So a session
//!
//! - holds an exclusive `flock` on `LEDGER.lock` (beside the ledger, because a new run moves
//!   an old ledger aside) for the whole run: a second `gate run` on the same ledger stops at
//!   once with exit 2 naming the holder's pid;
//! - reads a ledger it resumes once, at the start, and holds it;
//! - writes every row through one descriptor, and at the end reads the rows back through
//!   that same descriptor, checks them against the head hash it holds, and checks that the
//!   path still names that file. Any difference is [`Error::LedgerChanged`] (exit 4): no
//!   verdict is published from a file gate did not write (invariant 10).

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::SystemTime;

use super::events::{EventSink, RunEvent};
use super::redact::Redactor;
use super::scheduler::TaskHistory;
use super::sys;
use crate::error::Error;
use crate::ledger::{
    Footer, Header, Ledger, LedgerError, LedgerWriter, Resume, Row, RunStatus, TaskSpec,
    now_rfc3339, sha256_hex,
};
use crate::model::{Outcome, Shard, Walls};
use crate::plan::Plan;

/// The exclusive lock of a ledger, held until dropped (or the process ends).
#[derive(Debug)]
pub struct LedgerLock {
    _file: File,
    path: PathBuf,
}

impl LedgerLock {
    /// Take the lock of `ledger` or fail at once with [`Error::LedgerLocked`] naming the
    /// holder's pid. The lock file is left in place after the run (removing it would let two
    /// runs lock two different files of the same name).
    pub fn acquire(ledger: &Path) -> Result<LedgerLock, Error> {
        let path = crate::ledger::lock_path(ledger);
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::input(format!("cannot create `{}`", dir.display()), e))?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| Error::input(format!("cannot open the lock `{}`", path.display()), e))?;
        let locked = sys::try_lock_exclusive(&file)
            .map_err(|e| Error::input(format!("cannot lock `{}`", path.display()), e))?;
        if !locked {
            let mut pid = String::new();
            let _ = (&file).take(32).read_to_string(&mut pid);
            let pid = pid.trim();
            return Err(Error::LedgerLocked {
                path: ledger.to_path_buf(),
                pid: if pid.chars().all(|c| c.is_ascii_digit()) && !pid.is_empty() {
                    pid.to_string()
                } else {
                    "unknown".to_string()
                },
            });
        }
        file.set_len(0)
            .and_then(|_| writeln!(file, "{}", std::process::id()))
            .map_err(|e| Error::output(format!("cannot write the lock `{}`", path.display()), e))?;
        Ok(LedgerLock { _file: file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// A ledger held by this run.
#[derive(Debug)]
pub struct Session {
    writer: LedgerWriter,
    run_id: String,
    prior: Option<Ledger>,
    /// Syncs attempt rows off the scheduler's thread; `None` once settled (or if no thread
    /// could be started), when every row is synced as it is written.
    syncer: Option<Syncer>,
    _lock: LedgerLock,
}

/// What a session tells the person watching (a ledger kept aside, a torn row dropped).
pub type Notice<'a> = &'a dyn Fn(&str);

impl Session {
    /// Lock `path` and start a new ledger there (an existing one is kept as `PATH.N`) with
    /// the header `header(run_id)` builds: [`header`]'s for `gate run`, its own for `gate
    /// ingest` (no plan tasks to run, the source files instead).
    pub fn create_with(
        path: &Path,
        header: impl FnOnce(&str) -> Header,
        notice: Notice<'_>,
    ) -> Result<Session, Error> {
        let lock = LedgerLock::acquire(path)?;
        let run_id = new_run_id();
        let (mut writer, kept) = LedgerWriter::create(path).map_err(output)?;
        if let Some(old) = kept {
            notice(&format!(
                "gate: the previous ledger at `{}` was kept as `{}`",
                path.display(),
                old.display()
            ));
        }
        writer
            .append(Row::Header(Box::new(header(&run_id))))
            .map_err(output)?;
        Ok(Session {
            syncer: Syncer::start(&writer),
            writer,
            run_id,
            prior: None,
            _lock: lock,
        })
    }

    /// Lock `path` and continue the interrupted ledger there, refusing a changed plan or
    /// fixtures. The ledger is read once, here, and held.
    pub fn resume(
        path: &Path,
        plan: &Plan,
        shard: Option<Shard>,
        argv: &[String],
        sandbox: Option<Walls>,
        notice: Notice<'_>,
    ) -> Result<Session, Error> {
        let lock = LedgerLock::acquire(path)?;
        let ledger = Ledger::read(path).map_err(|e| Error::Context {
            context: format!("`--resume`: cannot read `{}`", path.display()),
            source: Box::new(Error::Ledger(e)),
        })?;
        check_resumable(path, &ledger, plan, shard)?;
        if ledger.torn_tail.is_some() {
            notice(&format!(
                "gate: `{}` ends in an incomplete row (lost when the run died); it is dropped before resuming",
                path.display()
            ));
        }
        let mut writer = LedgerWriter::resume(path, &ledger).map_err(output)?;
        writer
            .append(Row::Resume(Box::new(Resume {
                started_at: now_rfc3339(),
                argv: argv.to_vec(),
                host: crate::ledger::hostname(),
                sandbox,
            })))
            .map_err(output)?;
        Ok(Session {
            syncer: Syncer::start(&writer),
            writer,
            run_id: ledger.header().run_id.clone(),
            prior: Some(ledger),
            _lock: lock,
        })
    }

    /// The run id (`GATE_RUN_ID`).
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The ledger's path.
    pub fn path(&self) -> &Path {
        self.writer.path()
    }

    /// What the resumed ledger already holds for `task` (nothing for a new ledger).
    pub fn history(&self, task: &str) -> TaskHistory {
        self.prior
            .as_ref()
            .map(|l| task_history(l, task))
            .unwrap_or_default()
    }

    /// The resumed ledger as it was found (`None` for a new ledger).
    pub fn prior(&self) -> Option<&Ledger> {
        self.prior.as_ref()
    }

    /// What the resumed ledger already holds for the compare task `task`, by pair and side.
    pub fn pair_history(&self, task: &str) -> super::pairs::PairHistory {
        self.prior
            .as_ref()
            .map(|l| super::pairs::pair_history(l, task))
            .unwrap_or_default()
    }

    /// Append one row, synced before this returns (invariant 5). A write failure, or a
    /// failed background sync of an earlier row, is exit 4.
    pub fn append(&mut self, row: Row) -> Result<(), Error> {
        self.sync_failure()?;
        self.writer.append(row).map(|_| ()).map_err(output)
    }

    /// Append an attempt row: written at once, synced by the background syncer (see
    /// `Syncer`), so that the scheduler's thread, which starts the next trial, never
    /// waits for the disk. Rows stay in order; a decision row is synced before `append`
    /// returns, which syncs every row before it.
    pub fn append_attempt(&mut self, row: Row) -> Result<(), Error> {
        self.sync_failure()?;
        match &self.syncer {
            Some(syncer) => {
                self.writer.append_unsynced(row).map_err(output)?;
                syncer.request();
                Ok(())
            }
            None => self.append(row),
        }
    }

    /// An error if a background sync failed: that row may not be on disk.
    fn sync_failure(&self) -> Result<(), Error> {
        match self.syncer.as_ref().and_then(Syncer::failure) {
            Some(e) => Err(self.sync_error(e)),
            None => Ok(()),
        }
    }

    /// Stop the background syncer once it has synced everything requested, and report
    /// whether every sync succeeded. From then on every row is synced as it is written.
    fn settle(&mut self) -> Result<(), Error> {
        match self.syncer.take().map(Syncer::finish) {
            Some(Err(e)) => Err(self.sync_error(e)),
            _ => Ok(()),
        }
    }

    fn sync_error(&self, source: std::io::Error) -> Error {
        output(LedgerError::Io {
            path: self.writer.path().to_path_buf(),
            source,
        })
    }

    /// Append many rows, synced once at the end (see [`LedgerWriter::append_all`]).
    pub fn append_all(&mut self, rows: impl IntoIterator<Item = Row>) -> Result<(), Error> {
        self.writer.append_all(rows).map_err(output)
    }

    /// The rows this run wrote (and, after `--resume`, the rows it found), read back
    /// through its own descriptor and checked against the head hash it holds; and the path
    /// must still name that file. Anything else is [`Error::LedgerChanged`].
    pub fn verified(&mut self) -> Result<Ledger, Error> {
        // No verdict before every row is known to be on disk.
        self.settle()?;
        let path = self.writer.path().to_path_buf();
        let changed = |what: String| Error::LedgerChanged {
            path: path.clone(),
            what,
        };
        match sys::path_is_file(&path, self.writer.file()) {
            Ok(true) => {}
            Ok(false) => return Err(changed("the path now names another file".to_string())),
            Err(e) => return Err(changed(format!("the path cannot be read: {e}"))),
        }
        // The resumed ledger is no longer needed: keep one copy of the rows in memory.
        self.prior = None;
        match self.writer.read_back().map_err(output)? {
            Ok(ledger) => Ok(ledger),
            Err(t) => Err(changed(t.0)),
        }
    }

    /// The report of this session's own rows ([`Session::verified`]). They were written by
    /// this process, so a report that cannot be made from them is a fault of the `command`
    /// ("run", "ingest"), exit 4, not of the user's input.
    pub fn own_report(&mut self, command: &str) -> Result<crate::report::Report, Error> {
        let ledger = self.verified()?;
        crate::report::Report::from_ledgers(std::slice::from_ref(&ledger), None).map_err(|e| {
            Error::Harness(format!(
                "cannot make a report from this {command}'s own ledger ({e}); no verdict is published"
            ))
        })
    }

    /// Write the footer.
    pub fn close(
        &mut self,
        status: RunStatus,
        verdict: crate::model::Judgement,
        code: u8,
    ) -> Result<(), Error> {
        // The footer states how the run ended: not before every attempt row is on disk.
        self.settle()?;
        self.append(Row::Footer(Box::new(Footer {
            finished_at: now_rfc3339(),
            status,
            verdict,
            exit_code: code,
        })))
    }
}

impl EventSink for Session {
    fn event(&mut self, event: &RunEvent) -> Result<(), Error> {
        match event {
            RunEvent::Attempt { row, .. } => {
                self.append_attempt(Row::Attempt((**row).clone().into()))
            }
            // A suite's test cases are decided together, thousands at once: their rows are
            // synced in batches like attempt rows (one fsync per row cost 100,000 syncs for
            // 100,000 cases); the footer's sync covers the last of them.
            RunEvent::TaskDecided { row, .. } if crate::ledger::suite_of(&row.task).is_some() => {
                self.append_attempt(Row::Decision(Box::new(row.clone())))
            }
            RunEvent::TaskDecided { row, .. } => self.append(Row::Decision(Box::new(row.clone()))),
            RunEvent::TaskStarted { .. }
            | RunEvent::TaskInterrupted { .. }
            | RunEvent::TaskEnded { .. } => Ok(()),
        }
    }
}

/// Syncs the ledger on a thread of its own, in batches: each sync covers every row written
/// before it, and the next one starts no sooner than [`SYNC_GAP`] later, so a burst of quick
/// trials costs one sync per few milliseconds instead of one per row.
///
/// A sync needs a millisecond or more on many disks; on the scheduler's thread, once per
/// row, it held up the start of the next trial and was the largest part of a quick trial's
/// overhead. What invariant 5 protects still holds: a row is in the file when
/// [`Session::append_attempt`] returns, so a crash of gate loses nothing; a crash of the
/// machine loses at most the rows of the last few milliseconds, which `--resume` runs again
/// at their ordinals (nothing they depend on was published); and no decision row, footer or
/// verdict is written before every row before it is synced (those rows are synced as they
/// are written, and [`Session::verified`] settles the syncer first). A failed sync is kept
/// and fails the next append, or the settling, with exit 4: the kernel reports a write-back
/// error once, to whichever descriptor syncs first.
#[derive(Debug)]
struct Syncer {
    shared: Arc<(Mutex<SyncState>, Condvar)>,
    handle: Option<std::thread::JoinHandle<()>>,
}

/// Shortest time between two background syncs.
const SYNC_GAP: std::time::Duration = std::time::Duration::from_millis(5);

#[derive(Debug, Default)]
struct SyncState {
    /// Rows were written since the last sync began.
    pending: bool,
    /// The first failed sync; the thread stops there.
    failed: Option<std::io::Error>,
    /// Stop once everything requested is synced.
    closing: bool,
}

impl Syncer {
    /// A syncer of `writer`'s file, or `None` when no thread or descriptor is to be had
    /// (rows are then synced as they are written).
    fn start(writer: &LedgerWriter) -> Option<Syncer> {
        Syncer::of(writer.file().try_clone().ok()?)
    }

    /// A syncer of `file` (a second descriptor of the ledger).
    fn of(file: File) -> Option<Syncer> {
        let shared = Arc::new((Mutex::new(SyncState::default()), Condvar::new()));
        let theirs = Arc::clone(&shared);
        let handle = std::thread::Builder::new()
            .name("gate-ledger-sync".into())
            .stack_size(64 * 1024)
            .spawn(move || sync_loop(&file, &theirs))
            .ok()?;
        Some(Syncer {
            shared,
            handle: Some(handle),
        })
    }

    fn state(&self) -> MutexGuard<'_, SyncState> {
        self.shared.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Ask for everything written so far to be synced.
    fn request(&self) {
        self.state().pending = true;
        self.shared.1.notify_all();
    }

    /// A copy of the error of a failed sync, if one failed.
    fn failure(&self) -> Option<std::io::Error> {
        self.state()
            .failed
            .as_ref()
            .map(|e| match e.raw_os_error() {
                Some(code) => std::io::Error::from_raw_os_error(code),
                None => std::io::Error::new(e.kind(), e.to_string()),
            })
    }

    /// Wait until everything requested is synced, stop the thread, and say whether every
    /// sync succeeded.
    fn finish(mut self) -> std::io::Result<()> {
        self.close();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
        match self.failure() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn close(&self) {
        self.state().closing = true;
        self.shared.1.notify_all();
    }
}

impl Drop for Syncer {
    fn drop(&mut self) {
        // An early way out (an error): the thread syncs what is pending and ends.
        self.close();
    }
}

/// A guard whether or not another thread panicked holding the lock (the state stays
/// consistent: each update is one statement).
fn relock<'a>(g: std::sync::LockResult<MutexGuard<'a, SyncState>>) -> MutexGuard<'a, SyncState> {
    g.unwrap_or_else(|e| e.into_inner())
}

fn sync_loop(file: &File, shared: &(Mutex<SyncState>, Condvar)) {
    let (lock, cond) = shared;
    let mut st = relock(lock.lock());
    loop {
        while !st.pending && !st.closing {
            st = relock(cond.wait(st));
        }
        if !st.pending {
            return;
        }
        // Rows written from here on wait for the next sync.
        st.pending = false;
        drop(st);
        let result = file.sync_data();
        st = relock(lock.lock());
        if let Err(e) = result {
            st.failed = Some(e);
            return;
        }
        // Let the rows of the next few milliseconds gather for one sync (not when closing).
        st = match cond.wait_timeout_while(st, SYNC_GAP, |st| !st.closing) {
            Ok((g, _)) => g,
            Err(e) => e.into_inner().0,
        };
    }
}

fn output(e: LedgerError) -> Error {
    Error::output("cannot write the ledger", e)
}

fn new_run_id() -> String {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let seed = format!(
        "{nanos}-{}-{}",
        std::process::id(),
        crate::ledger::hostname()
    );
    sha256_hex(seed.as_bytes())[..16].to_string()
}

/// The header row of a new ledger: the plan's resolved rules and policy.
pub fn header(
    plan: &Plan,
    run_id: &str,
    argv: &[String],
    shard: Option<Shard>,
    redactors: &[Redactor],
) -> Header {
    let tasks: Vec<TaskSpec> = plan
        .tasks
        .iter()
        .zip(redactors)
        .map(|(t, r)| TaskSpec {
            id: t.id.clone(),
            line: Some(t.line),
            sampling: t.sampling.clone(),
            rates: t.rates,
            max_unavailable: t.max_unavailable,
            run: r.apply(&t.run.display()),
            check: t.check.as_ref().map(|c| r.apply(&c.display())),
            timeout_s: Some(t.timeout.as_secs_f64()),
            compare: t
                .compare()
                .map(|c| Box::new(super::pairs::record(c, &t.id, run_id, r))),
            suite: t
                .suite()
                .map(|s| Box::new(crate::plan::SuiteTask::record(s))),
        })
        .collect();
    Header {
        schema: crate::ledger::schema_for(&tasks),
        gate_version: env!("CARGO_PKG_VERSION").to_string(),
        run_id: run_id.to_string(),
        plan_path: plan.path.display().to_string(),
        plan_hash: plan.hash.clone(),
        fixture_hash: plan.fixture_hash.clone(),
        programs: crate::plan::state::program_hashes(plan),
        argv: argv.to_vec(),
        started_at: now_rfc3339(),
        host: crate::ledger::hostname(),
        shard,
        stage: plan.stage,
        after: plan.after.clone(),
        jobs: plan.policy.jobs,
        timeout_policy: plan.policy.timeout,
        on_inconclusive: plan.policy.on_inconclusive,
        transport_exit_codes: plan.policy.transport_exit_codes.clone(),
        transport_max_retries: plan.policy.transport_max_retries,
        tasks,
        sources: Vec::new(),
        // Set by `gate run` once the box is probed (`Session::create_with`).
        sandbox: None,
        ci: crate::ledger::CiRun::from_env(),
    }
}

/// Refuse to resume a ledger of another plan, fixtures, shard or task selection, or one that
/// cannot be continued (complete, or invalidated by a harness error).
fn check_resumable(
    path: &Path,
    ledger: &Ledger,
    plan: &Plan,
    shard: Option<Shard>,
) -> Result<(), Error> {
    let h = ledger.header();
    let refuse = |msg: String| Err(Error::Usage(msg));
    if h.plan_hash != plan.hash {
        return refuse(format!(
            "`--resume`: `{}` changed since the ledger `{}` was started (plan hash {}… vs {}…); \
             a resumed run must use the same plan — start a new ledger instead",
            plan.path.display(),
            path.display(),
            &h.plan_hash[..12.min(h.plan_hash.len())],
            &plan.hash[..12.min(plan.hash.len())]
        ));
    }
    if h.fixture_hash != plan.fixture_hash {
        return refuse(format!(
            "`--resume`: the fixtures changed since the ledger `{}` was started; a resumed run must see the same \
             fixtures — start a new ledger instead",
            path.display()
        ));
    }
    if let Some(p) = crate::plan::state::programs_changed(&h.programs, plan).first() {
        return refuse(format!(
            "`--resume`: `{p}` changed since the ledger `{}` was started; a resumed run must run the \
             same programs — start a new ledger instead",
            path.display()
        ));
    }
    if h.stage != plan.stage {
        return refuse("`--resume`: the ledger was started with a different `--stage`".into());
    }
    // The header names the earlier stages' ledgers the stage first followed; trials run now
    // after other ones would be merged with ledgers whose CONTINUE never let them run. A
    // ledger written before `after` was recorded names none and is not compared.
    // In any order: `--after` names a set of ledgers (rev50a 26, an honest resume refused).
    let same_after = h.after.len() == plan.after.len()
        && h.after.iter().all(|a| plan.after.contains(a))
        && plan.after.iter().all(|a| h.after.contains(a));
    if !h.after.is_empty() && !same_after {
        return refuse(
            "`--resume`: the ledger was started `--after` other earlier-stage ledgers (or they \
             changed since); resume with the same `--after` ledgers"
                .into(),
        );
    }
    if h.shard != shard {
        return refuse("`--resume`: the ledger was started with a different `--shard`".into());
    }
    let started: Vec<&str> = h.tasks.iter().map(|t| t.id.as_str()).collect();
    let now: Vec<&str> = plan.tasks.iter().map(|t| t.id.as_str()).collect();
    if started != now {
        let list = |ids: &[&str]| {
            ids.iter()
                .map(|t| format!("`{t}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return refuse(format!(
            "`--resume`: the ledger was started with the tasks {}, but this run selects {}; resume with the same `--task` selection",
            list(&started),
            list(&now)
        ));
    }
    // The same plan can resolve to another rule under another gate (a better design
    // search): the trials still to run must be judged by the rule the ledger records, which
    // is the one `gate report` and `gate verify` replay, so a mismatch is refused.
    if let Some(was) = h
        .tasks
        .iter()
        .zip(&plan.tasks)
        .find_map(|(was, now)| (was.sampling != now.sampling).then_some(was))
    {
        return refuse(format!(
            "`--resume`: the ledger `{}` records a sampling rule for task `{}` other than the one \
             this gate ({}) designs from the same plan: the gate that started it ({}) designed it \
             differently; resume with that gate binary, or start a new ledger",
            path.display(),
            was.id,
            env!("CARGO_PKG_VERSION"),
            h.gate_version
        ));
    }
    if let Some(bad) = ledger
        .attempts()
        .find(|a| a.outcome == Outcome::HarnessError)
    {
        return refuse(format!(
            "`--resume`: `{}` recorded a harness error (task `{}`, trial {}), which invalidates the run; fix the task and start a new ledger",
            path.display(),
            bad.task,
            bad.trial
        ));
    }
    match ledger.footer().map(|f| f.status) {
        Some(RunStatus::Complete) => refuse(format!(
            "`--resume`: `{}` is a complete run; nothing to resume",
            path.display()
        )),
        Some(RunStatus::HarnessError) => refuse(format!(
            "`--resume`: `{}` ended in a harness error, which invalidates the run; fix the task and start a new ledger",
            path.display()
        )),
        Some(RunStatus::Interrupted) | None => Ok(()),
    }
}

/// What an earlier session of the ledger already did for a task.
fn task_history(ledger: &Ledger, task: &str) -> TaskHistory {
    let decided = ledger.decisions().any(|d| d.task == task);
    let mut outcomes = std::collections::BTreeMap::new();
    for a in ledger
        .attempts()
        .filter(|a| a.task == task && a.attempt == 1)
    {
        // A trial re-run at resume has a cancelled row and then a finished one; the finished
        // row is its grade, and nothing replaces a finished row.
        let slot = outcomes.entry(a.trial).or_insert(a.outcome);
        if *slot == Outcome::Cancelled {
            *slot = a.outcome;
        }
    }
    TaskHistory { decided, outcomes }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_background_syncer_syncs_what_was_requested_and_stops() {
        let dir = tempfile::tempdir().unwrap();
        let file = File::create(dir.path().join("l.jsonl")).unwrap();
        let syncer = Syncer::of(file).expect("a syncer");
        for _ in 0..50 {
            syncer.request();
        }
        assert!(syncer.failure().is_none());
        syncer.finish().expect("every sync succeeded");
    }

    #[test]
    fn a_failed_background_sync_is_kept_and_reported() {
        // fdatasync of a pipe fails (EINVAL): it stands for a disk that fails a write-back.
        let (_r, w) = std::io::pipe().unwrap();
        let file = File::from(std::os::fd::OwnedFd::from(w));
        let syncer = Syncer::of(file).expect("a syncer");
        syncer.request();
        let err = syncer
            .finish()
            .expect_err("the failure is reported at the settling");
        assert_eq!(err.raw_os_error(), Some(libc::EINVAL));
    }
}
