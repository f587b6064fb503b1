//! One attempt: a process group, a timeout, captured output, the result protocol, and the
//! classification into an [`AttemptRow`].
//!
//! [`run_attempt`] spawns `run` (then `check`, when `run` exited 0) each in its own process
//! group, with `GATE_TASK`, `GATE_TRIAL`, `GATE_ATTEMPT`, `GATE_RUN_ID` and `GATE_RESULT` set;
//! kills the whole group on timeout or cancellation (SIGTERM, then SIGKILL after the grace
//! period, so no grandchild survives); reads the result file; and classifies the attempt into
//! an [`AttemptRow`] ready for the ledger. Output goes through pipes into a bounded in-memory
//! capture ([`super::capture`]) that keeps a head and a tail while the trial runs; the result
//! file is read as hostile input ([`super::result_file`]).

use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant, SystemTime};

use super::capture::{self, Capture, Reader, Streams};
use super::redact::Redactor;
use super::result_file;
use super::sandbox::{Cell, Sandbox};
use super::spawn::{BaseEnv, ChildWalls, Proc, Spawn};
use super::sys::{self, PidFd, kill_group};
use crate::ledger::{AttemptRow, rfc3339};
use crate::model::{Fault, Outcome, TimeoutPolicy};
use crate::plan::CommandLine;
use crate::untrusted;

/// Bytes of each output stream kept in a log: the first half and the last half of this.
pub const LOG_CAP: u64 = (capture::HEAD_BYTES + capture::TAIL_BYTES) as u64;
/// Lines of each stream kept in the ledger row.
pub const TAIL_LINES: usize = 20;
/// Bytes of each stream kept in the ledger row.
pub const TAIL_BYTES: usize = 2048;

/// Everything needed to run one attempt of one trial.
#[derive(Debug, Clone)]
pub struct AttemptSpec {
    /// Task id.
    pub task: String,
    /// Trial ordinal.
    pub trial: u64,
    /// Attempt number within the trial.
    pub attempt: u32,
    /// Run id (`GATE_RUN_ID`).
    pub run_id: String,
    /// The agent run.
    pub run: CommandLine,
    /// The state check.
    pub check: Option<CommandLine>,
    /// Working directory.
    pub cwd: PathBuf,
    /// The folders the attempt may write as a whole, in place of `cwd` (a task's `writes:`,
    /// resolved beneath this side's `cwd`); `None`: `cwd`.
    pub writes: Option<Vec<PathBuf>>,
    /// Extra environment.
    pub env: Vec<(String, String)>,
    /// Timeout of `run` and of `check`, each.
    pub timeout: Duration,
    /// SIGTERM → SIGKILL grace.
    pub kill_grace: Duration,
    /// What a timeout counts as.
    pub timeout_policy: TimeoutPolicy,
    /// Exit codes of `run` that are transport faults.
    pub transport_exit_codes: Vec<i32>,
    /// Exit codes of `run` that mean the harness failed (`policy.harness_exit_codes`).
    pub harness_exit_codes: Vec<i32>,
    /// Directory for this run's logs (and, unboxed, its result folders), e.g. `gate-out/runs/RUN`.
    pub out_dir: PathBuf,
    /// The run's box; `None` runs the attempt unboxed (unit tests of the runner).
    pub sandbox: Option<Arc<Sandbox>>,
}

impl AttemptSpec {
    /// The folder of trial `trial`'s result file (`$GATE_RESULT`, and a suite run's
    /// `$GATE_JUNIT`): the trial's own, made by its first attempt and removed when the trial
    /// is over, so that no other trial can write the file this trial is graded on. Under the
    /// box it lies in the run's folder of result folders in gate's temporary folder
    /// ([`Sandbox::results_of`]), outside the task's roots: the trial's box is granted it,
    /// no other trial's is. Unboxed (the runner's own tests), beneath the run folder.
    pub fn result_dir(&self, trial: u64) -> PathBuf {
        let task = match &self.sandbox {
            Some(sandbox) => sandbox.results_of(&self.out_dir, &self.task),
            None => self.out_dir.join("results").join(&self.task),
        };
        task.join(format!("{trial:04}"))
    }
}

/// How a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended {
    Exited(ExitStatus),
    TimedOut,
    Cancelled,
}

/// Why a process could not even start.
struct SpawnFailure(String);

/// The interpreter a script's `#!` line names, when the script `program` exists (a path, or a
/// name found on the trial's `PATH`) and that interpreter does not: exec then fails with
/// ENOENT, which reads as "command not found" for a file that is there (review 10, a06).
fn missing_interpreter(program: &str, cwd: &Path, env: &[(String, String)]) -> Option<String> {
    use std::io::Read as _;
    let found = if program.contains('/') {
        Some(cwd.join(program))
    } else {
        let path = env
            .iter()
            .rev()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var("PATH").ok())?;
        path.split(':')
            .filter(|d| !d.is_empty())
            .map(|d| cwd.join(d).join(program))
            .find(|p| p.is_file())
    }?;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(&found).ok()?.read(&mut head).ok()?;
    let first = head[..n].split(|&b| b == b'\n').next()?;
    let rest = first.strip_prefix(b"#!")?;
    let interp = String::from_utf8_lossy(rest)
        .split_whitespace()
        .next()?
        .to_string();
    (!cwd.join(&interp).exists()).then(|| crate::untrusted::one_line(&interp).to_string())
}

/// A shell's report that it could not run a script whose `#!` interpreter is missing: dash
/// says only `sh: 1: ./x.sh: not found` (exit 127) for a script that exists. The script's
/// missing interpreter, when the run's last error lines name such a script.
fn shell_missing_interpreter(stderr: &str, spec: &AttemptSpec) -> Option<(String, String)> {
    stderr.lines().rev().take(4).find_map(|l| {
        let l = l.trim_end().strip_suffix(": not found")?;
        let script = l.rsplit(": ").next()?;
        let interp = missing_interpreter(script, &spec.cwd, &spec.env)?;
        Some((crate::untrusted::one_line(script).to_string(), interp))
    })
}

/// The cache variables of a check process ([`crate::plan::reach::CHECK_CACHES`]), each a
/// place in the check's own `tmpdir`, fresh and empty: set after gate's environment `base`
/// (which may name a cache the trials write) and before the plan's `env:`. npm reads its
/// options in any case (`NPM_CONFIG_CACHE`), so every spelling `base` holds of npm's cache
/// is set too, or npm might take that one.
fn check_caches(tmpdir: &Path, base: &BaseEnv) -> Vec<(OsString, PathBuf)> {
    let mut out = Vec::new();
    for (name, below) in crate::plan::reach::CHECK_CACHES {
        let at = tmpdir.join(below);
        out.push((OsString::from(name), at.clone()));
        if name.starts_with("npm_config_") {
            let spelled = |k: &&OsStr| k.to_str().is_some_and(|k| k.eq_ignore_ascii_case(name));
            for other in base
                .names()
                .filter(spelled)
                .filter(|k| *k != OsStr::new(name))
            {
                out.push((other.to_os_string(), at.clone()));
            }
        }
    }
    out
}

/// Spawn `line` in its own process group with its output going to `streams`, and wait for
/// it, a timeout, or cancellation. The captures come back whatever happened.
fn run_process(
    spec: &AttemptSpec,
    line: &CommandLine,
    result_path: &Path,
    cancel: &AtomicBool,
    margin: usize,
    cell: Option<&Cell>,
) -> (Result<Ended, SpawnFailure>, Option<[Capture; 2]>) {
    let pipes = std::io::pipe().and_then(|out| Ok((out, std::io::pipe()?)));
    let ((out_r, out_w), (err_r, err_w)) = match pipes {
        Ok(p) => p,
        Err(e) => {
            let why = SpawnFailure(format!("cannot capture output: {e}"));
            return (Err(why), None);
        }
    };
    let mut streams = Streams::new(out_r, err_r, margin);
    // Without a box (the runner's own tests) the whole of gate's environment.
    let unboxed;
    let base = match &spec.sandbox {
        Some(sandbox) => sandbox.env(),
        None => {
            unboxed = BaseEnv::inherited(&[]);
            &unboxed
        }
    };
    let (trial, attempt) = (spec.trial.to_string(), spec.attempt.to_string());
    // The box's TMPDIR first: the plan's own `env:` may still set it (or a withheld name).
    // A check's git is pinned to the repository of the run's start, and its version
    // managers to the versions named then (the plan's own `env:` may still name others).
    let is_check = matches!(spec.check.as_ref(), Some(check) if std::ptr::eq(check, line));
    let git: &[(String, String)] = match &spec.sandbox {
        Some(sandbox) if is_check => sandbox.check_env(&spec.cwd),
        _ => &[],
    };
    // A check's tools keep their caches of code in its own fresh `TMPDIR`, not where a
    // trial could have left a compiled grader of its own (review 50).
    let caches = match cell {
        Some(c) if is_check => check_caches(c.tmpdir(), base),
        _ => Vec::new(),
    };
    let env: Vec<(&OsStr, &OsStr)> = cell
        .map(|c| (OsStr::new("TMPDIR"), c.tmpdir().as_os_str()))
        .into_iter()
        .chain(caches.iter().map(|(k, v)| (k.as_os_str(), v.as_os_str())))
        .chain(git.iter().map(|(k, v)| (OsStr::new(k), OsStr::new(v))))
        .chain(spec.env.iter().map(|(k, v)| (OsStr::new(k), OsStr::new(v))))
        .chain([
            (OsStr::new("GATE_TASK"), OsStr::new(&spec.task)),
            (OsStr::new("GATE_TRIAL"), OsStr::new(&trial)),
            (OsStr::new("GATE_ATTEMPT"), OsStr::new(&attempt)),
            (OsStr::new("GATE_RUN_ID"), OsStr::new(&spec.run_id)),
            (OsStr::new("GATE_RESULT"), result_path.as_os_str()),
        ])
        .collect();
    let walls = cell.and_then(Cell::walls).map(|w| w as &dyn ChildWalls);
    // Registered while it lives, so every way out of gate can kill it (invariant 9).
    // A trial cancelled before its process started (the decision came, or gate is stopping)
    // never starts it.
    let spawned = Spawn::new(line, base, &env, &spec.cwd, &out_w, &err_w, walls)
        .and_then(|prepared| sys::spawn_group(prepared, cancel));
    // gate's copy of the pipes' write ends: closed now, or the capture would never see end
    // of file.
    drop((out_w, err_w));
    let (mut child, _group) = match spawned {
        Ok(Some(s)) => s,
        Ok(None) => return (Ok(Ended::Cancelled), Some(streams.finish())),
        Err(e) => {
            let what = line.display();
            let why = match e.kind() {
                std::io::ErrorKind::NotFound if !spec.cwd.is_dir() => {
                    format!("working directory `{}` does not exist", spec.cwd.display())
                }
                std::io::ErrorKind::NotFound => match line {
                    // The program exists, and its `#!` names an interpreter that does not:
                    // exec says ENOENT for the interpreter, not for the script (review 10, a06).
                    CommandLine::Argv(argv) => match argv
                        .first()
                        .and_then(|p| missing_interpreter(p, &spec.cwd, &spec.env))
                    {
                        Some(interp) => format!(
                            "cannot run `{what}`: its `#!` interpreter `{interp}` does not exist"
                        ),
                        None => format!("cannot run `{what}`: command not found"),
                    },
                    CommandLine::Shell(_) => format!("cannot run `{what}`: command not found"),
                },
                _ => format!("cannot run `{what}`: {e}"),
            };
            return (Err(SpawnFailure(why)), Some(streams.finish()));
        }
    };
    let pgid = child.id();
    // Plan validation bounds timeouts; saturate anyway rather than overflow.
    let now = Instant::now();
    let deadline = now
        .checked_add(spec.timeout)
        .unwrap_or_else(|| now + Duration::from_secs(365 * 24 * 3600));
    match PidFd::open(pgid) {
        Some(fd) => {
            let waiter = Waiter {
                fd: &fd,
                pgid,
                grace: spec.kill_grace,
                line,
            };
            let ended = waiter.wait(&mut child, &mut streams, deadline, cancel);
            (ended, Some(streams.finish()))
        }
        None => match Reader::start(streams) {
            Ok(reader) => {
                let ended = wait_thread(child, pgid, deadline, spec.kill_grace, cancel, line);
                (ended, Some(reader.finish()))
            }
            Err(e) => {
                // Without a reader the pipes would fill and the process block: stop it.
                kill_group(pgid, libc::SIGKILL);
                let _ = child.wait();
                let why = format!("cannot capture output: {e}");
                (Err(SpawnFailure(why)), None)
            }
        },
    }
}

/// Check the cancel flag at this interval; a process exit or its output wakes the waiter at
/// once.
const TICK: Duration = Duration::from_millis(20);

/// Waits for one process through its pidfd, pumping its output on the same thread.
struct Waiter<'a> {
    fd: &'a PidFd,
    pgid: u32,
    grace: Duration,
    line: &'a CommandLine,
}

impl Waiter<'_> {
    /// Wait up to `timeout` for the process to exit, reading its output meanwhile; true once
    /// it has exited.
    fn exited_within(&self, streams: &mut Streams, timeout: Duration) -> bool {
        let until = Instant::now() + timeout;
        loop {
            let [out, err] = streams.fds();
            let left = until.saturating_duration_since(Instant::now());
            match sys::poll_readable([Some(self.fd.raw()), out, err], left) {
                Some([exited, out, err]) => {
                    streams.pump([out, err]);
                    if exited {
                        return true;
                    }
                }
                // The time is up.
                None => return false,
            }
            if Instant::now() >= until {
                return false;
            }
        }
    }

    fn reap(&self, child: &mut Proc) -> Result<ExitStatus, SpawnFailure> {
        child
            .wait()
            .map_err(|e| SpawnFailure(format!("waiting for `{}` failed: {e}", self.line.display())))
    }

    /// SIGTERM the group, SIGKILL whatever is left after the grace, and reap the leader.
    fn stop(
        &self,
        child: &mut Proc,
        streams: &mut Streams,
        reason: Ended,
    ) -> Result<Ended, SpawnFailure> {
        kill_group(self.pgid, libc::SIGTERM);
        self.exited_within(streams, self.grace);
        // Whatever ignored SIGTERM (the leader or a grandchild) goes now.
        kill_group(self.pgid, libc::SIGKILL);
        self.reap(child).map(|_| reason)
    }

    fn wait(
        &self,
        child: &mut Proc,
        streams: &mut Streams,
        deadline: Instant,
        cancel: &AtomicBool,
    ) -> Result<Ended, SpawnFailure> {
        loop {
            if cancel.load(Ordering::Relaxed) {
                return self.stop(child, streams, Ended::Cancelled);
            }
            let now = Instant::now();
            if now >= deadline {
                return self.stop(child, streams, Ended::TimedOut);
            }
            if self.exited_within(streams, TICK.min(deadline - now)) {
                // The leader is gone; stragglers it left in its group must not leak into the
                // next trial. Killed before the leader is reaped: until then its pid, the
                // group's id, cannot name another process's group.
                kill_group(self.pgid, libc::SIGKILL);
                let status = self.reap(child)?;
                return Ok(Ended::Exited(status));
            }
        }
    }
}

/// Fallback for kernels without pidfd: a helper thread blocks in `wait`.
fn wait_thread(
    mut child: Proc,
    pgid: u32,
    deadline: Instant,
    grace: Duration,
    cancel: &AtomicBool,
    line: &CommandLine,
) -> Result<Ended, SpawnFailure> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let stop = |reason: Ended| -> Ended {
        kill_group(pgid, libc::SIGTERM);
        let _ = rx.recv_timeout(grace);
        kill_group(pgid, libc::SIGKILL);
        let _ = rx.recv();
        reason
    };
    loop {
        if cancel.load(Ordering::Relaxed) {
            return Ok(stop(Ended::Cancelled));
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(stop(Ended::TimedOut));
        }
        match rx.recv_timeout(TICK.min(deadline - now)) {
            Ok(Ok(status)) => {
                kill_group(pgid, libc::SIGKILL);
                return Ok(Ended::Exited(status));
            }
            Ok(Err(e)) => {
                return Err(SpawnFailure(format!(
                    "waiting for `{}` failed: {e}",
                    line.display()
                )));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(SpawnFailure("the process waiter vanished".to_string()));
            }
        }
    }
}

/// Create `dir` and its missing parents with mode 0700: logs may hold what a task printed.
fn private_dir(dir: &Path) -> std::io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// The last [`TAIL_LINES`] lines (at most [`TAIL_BYTES`] bytes) of some text.
pub fn tail(text: &str) -> String {
    let trimmed = text.trim_end_matches('\n');
    let start = trimmed
        .rmatch_indices('\n')
        .nth(TAIL_LINES - 1)
        .map(|(i, _)| i + 1)
        .unwrap_or(0);
    let mut t = &trimmed[start..];
    if t.len() > TAIL_BYTES {
        let mut cut = t.len() - TAIL_BYTES;
        while !t.is_char_boundary(cut) {
            cut += 1;
        }
        t = &t[cut..];
    }
    t.to_string()
}

/// Run one attempt to its end and classify it. Never panics; every failure to run becomes a
/// harness-error row.
pub fn run_attempt(spec: &AttemptSpec, redactor: &Redactor, cancel: &AtomicBool) -> AttemptRow {
    let started_wall = SystemTime::now();
    let started = Instant::now();
    let log_dir = spec.out_dir.join("logs").join(&spec.task);
    let result_dir = spec.result_dir(spec.trial);
    let stem = format!("{:04}-{}", spec.trial, spec.attempt);

    let result_path = result_dir.join(format!("{stem}.json"));
    let mut row = AttemptRow::started(
        spec.task.clone(),
        spec.trial,
        spec.attempt,
        rfc3339(started_wall),
        Outcome::Fail,
    );
    let harness = |row: &mut AttemptRow, why: String| {
        row.fault = Some(Fault::Harness);
        row.outcome = Outcome::HarnessError;
        row.detail.reason = Some(why);
    };
    let prepared = private_dir(&log_dir)
        .and_then(|_| match &spec.sandbox {
            Some(sandbox) => sandbox.make_result_dir(&result_dir),
            None => private_dir(&result_dir),
        })
        .and_then(|_| match fs::remove_file(&result_path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        });
    if let Err(e) = prepared {
        harness(
            &mut row,
            format!("cannot prepare `{}`: {e}", spec.out_dir.display()),
        );
        return row;
    }
    // The attempt's box (its TMPDIR is removed, or kept empty for the next attempt in the
    // same working folder, when `cell` drops, after both processes).
    let cell = match spec
        .sandbox
        .as_deref()
        .map(|s| s.cell(&spec.cwd, spec.writes.as_deref(), &result_dir))
    {
        None => None,
        Some(Ok(cell)) => Some(cell),
        Some(Err(e)) => {
            harness(&mut row, format!("cannot build the trial's box: {e}"));
            return row;
        }
    };
    let margin = redactor.longest_literal();
    let deadline_of = |from: Instant| {
        from.checked_add(spec.timeout)
            .unwrap_or_else(|| from + Duration::from_secs(365 * 24 * 3600))
    };

    let agent_turn = spec.sandbox.as_deref().and_then(Sandbox::agent_turn);
    let (ended, run_captures) =
        run_process(spec, &spec.run, &result_path, cancel, margin, cell.as_ref());
    drop(agent_turn);
    let mut check_ended = None;
    let mut check_captures: Option<[Capture; 2]> = None;
    match ended {
        Err(SpawnFailure(why)) => harness(&mut row, why),
        Ok(ended) => {
            if let Ended::Exited(st) = ended {
                row.exit_code = st.code();
                row.signal = st.signal();
            }
            // From the first look to the check's end, no other trial runs (review 46).
            let check_turn = (spec.sandbox.as_deref())
                .filter(|_| spec.check.is_some() && ended == Ended::Exited(ExitStatus::from_raw(0)))
                .and_then(Sandbox::check_turn);
            // A process an earlier agent left behind (detached from its group, where no PID
            // namespace ends it with its trial) could write what the looks below look for
            // after they looked, and take it away after the check (review 76, 07): with no
            // agent running in the check's turn, every such orphan dies first.
            let orphans_left = check_turn.is_some() && !sys::kill_orphans_before_check();
            // Before the check, every wall's look (review 26 to review 51): a change a trial
            // made to what the check would load or read refuses it, no verdict published.
            let ok = ended == Ended::Exited(ExitStatus::from_raw(0));
            let refused = (spec.sandbox.as_deref())
                .filter(|_| ok && spec.check.is_some())
                .and_then(Sandbox::check_refusal);
            if orphans_left {
                harness(
                    &mut row,
                    "check: a chain of processes the agents left behind (each detached from \
                     its trial) was still alive after gate's sweep of them, and could write \
                     what the check reads after gate looked; the check was not run and no \
                     verdict is published (the box's PID namespace, where the mount layer \
                     stands, ends every such process with its trial)"
                        .to_string(),
                );
            } else if let Some(why) = refused {
                harness(&mut row, format!("check: {why}"));
            } else if ended == Ended::Exited(ExitStatus::from_raw(0))
                && let Some(check) = &spec.check
            {
                // The check gets a box and a `TMPDIR` of its own, fresh and empty: the
                // trial's holds what it prepared, where a grader's scratch file at a fixed
                // name would be its link (review 25, 16; review 30, 10-11) and where tools
                // keep caches of code they trust (jest's transforms, tsx's: review 46, a15,
                // a22).
                let check_cell = (spec.sandbox.as_deref())
                    .map(|s| s.cell(&spec.cwd, spec.writes.as_deref(), &result_dir))
                    .transpose();
                let (ran, captures) = match &check_cell {
                    Err(e) => (
                        Err(SpawnFailure(format!("cannot build the check's box: {e}"))),
                        None,
                    ),
                    Ok(c) => run_process(spec, check, &result_path, cancel, margin, c.as_ref()),
                };
                drop(check_cell);
                check_captures = captures;
                match ran {
                    Err(SpawnFailure(why)) => harness(&mut row, format!("check: {why}")),
                    Ok(c) => {
                        if let Ended::Exited(st) = c {
                            row.check_exit = st.code().or(st.signal().map(|s| 128 + s));
                        }
                        check_ended = Some(c);
                    }
                }
            }
            drop(check_turn);
            if row.outcome != Outcome::HarnessError {
                // The result file is read within a deadline of its own, as long as an
                // attempt's: a task cannot make gate wait longer than it could itself run.
                classify(
                    spec,
                    &mut row,
                    ended,
                    check_ended,
                    &result_path,
                    deadline_of(Instant::now()),
                );
            }
        }
    }
    row.duration_s = started.elapsed().as_secs_f64();
    // Also when the attempt was cancelled or timed out and the file was never read; whatever
    // the task left there (a FIFO, a symlink) is removed, never followed.
    let _ = fs::remove_file(&result_path);

    // Logs: bounded, redacted before the cut, one file per attempt.
    let [run_out, run_err] = run_captures.map_or([None, None], |[o, e]| [Some(o), Some(e)]);
    let [chk_out, chk_err] = check_captures.map_or([None, None], |[o, e]| [Some(o), Some(e)]);
    let sections = [
        ("stdout", run_out),
        ("stderr", run_err),
        ("check stdout", chk_out),
        ("check stderr", chk_err),
    ];
    let mut log = String::new();
    for (name, capture) in sections {
        let Some(capture) = capture else { continue };
        let text = capture.text(redactor);
        if name == "stdout" {
            row.detail.stdout_tail = tail(&text);
        } else if name == "stderr" {
            row.detail.stderr_tail = tail(&text);
        }
        if name == "stderr"
            && row.exit_code == Some(127)
            && row.detail.reason.as_deref() == Some("run exited 127 (command not found)")
            && let Some((script, interp)) = shell_missing_interpreter(&text, spec)
        {
            // The shell found the script, not its interpreter (review 10, a06).
            row.detail.reason = Some(format!(
                "run exited 127 (`{script}`'s `#!` interpreter `{interp}` does not exist)"
            ));
        }
        if !text.is_empty() {
            log.push_str(&format!("===== {name} =====\n{text}"));
            if !text.ends_with('\n') {
                log.push('\n');
            }
        }
    }
    if !log.is_empty() {
        // A trial re-run at resume reuses its ordinal: keep the earlier attempt's log.
        let mut path = log_dir.join(format!("{stem}.log"));
        let mut n = 1;
        while path.exists() {
            n += 1;
            path = log_dir.join(format!("{stem}.{n}.log"));
        }
        // Mode 0600: the log holds what the task printed, redacted only as far as gate knows
        // the secrets.
        let written = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .and_then(|mut f| std::io::Write::write_all(&mut f, log.as_bytes()));
        if written.is_ok() {
            row.detail.log = Some(path.display().to_string());
        }
    }
    // Redact, then clip: a clip first could cut a secret in half and leave a piece.
    if let Some(r) = row.detail.result.as_mut() {
        r.note = r
            .note
            .as_deref()
            .map(|n| untrusted::clip(&redactor.apply(n), untrusted::MAX_NOTE_BYTES));
        r.fault = r
            .fault
            .as_deref()
            .map(|f| untrusted::clip(&redactor.apply(f), untrusted::MAX_FAULT_BYTES));
    }
    row.detail.reason = row
        .detail
        .reason
        .as_deref()
        .map(|r| untrusted::clip(&redactor.apply(r), untrusted::MAX_REASON_BYTES));
    row.graded = row.attempt == 1 && matches!(row.outcome, Outcome::Pass | Outcome::Fail);
    row
}

/// Decide the outcome of an attempt whose processes ran.
fn classify(
    spec: &AttemptSpec,
    row: &mut AttemptRow,
    ended: Ended,
    check_ended: Option<Ended>,
    result_path: &Path,
    deadline: Instant,
) {
    let fault_outcome = |row: &mut AttemptRow, fault: Fault, outcome: Outcome, why: String| {
        row.fault = Some(fault);
        row.outcome = outcome;
        row.detail.reason = Some(why);
    };
    if ended == Ended::Cancelled || check_ended == Some(Ended::Cancelled) {
        return fault_outcome(
            row,
            Fault::Cancelled,
            Outcome::Cancelled,
            "cancelled by gate".to_string(),
        );
    }
    if ended == Ended::TimedOut || check_ended == Some(Ended::TimedOut) {
        let which = if ended == Ended::TimedOut {
            "run"
        } else {
            "check"
        };
        let outcome = match spec.timeout_policy {
            TimeoutPolicy::Fail => Outcome::Fail,
            TimeoutPolicy::Unavailable => Outcome::Unavailable,
        };
        return fault_outcome(
            row,
            Fault::Timeout,
            outcome,
            format!(
                "{which} exceeded the {:?} timeout; its process group was killed",
                spec.timeout
            ),
        );
    }
    // The result file: optional, but when present it must follow the protocol.
    // The result file is read once and removed: its fields go to the ledger (redacted), and a
    // copy left on disk would keep whatever secret the task wrote into it.
    let read = result_file::read(result_path, deadline);
    let _ = fs::remove_file(result_path);
    match read.and_then(|bytes| bytes.map(|b| result_file::parse(&b)).transpose()) {
        Ok(Some(parsed)) => {
            let mut r = parsed.result.clone();
            r.ignored_keys = parsed.ignored.clone();
            if let Some(w) = result_file::ignored_warning(&parsed) {
                r.warning = Some(w);
            }
            row.detail.result = Some(Box::new(r));
        }
        Ok(None) => {}
        Err(e) => {
            return fault_outcome(row, Fault::Harness, Outcome::HarnessError, e.to_string());
        }
    }
    for (which, code) in [("run", row.exit_code), ("check", row.check_exit)] {
        if let Some(code @ (126 | 127)) = code {
            let why = if code == 127 {
                "command not found"
            } else {
                "command not executable"
            };
            return fault_outcome(
                row,
                Fault::Harness,
                Outcome::HarnessError,
                format!("{which} exited {code} ({why})"),
            );
        }
    }
    // Declared harness codes (pytest's 4 and 5: a typo in a test id, no test collected) say
    // the test never ran: grading them would publish a verdict about nothing.
    if let Some(code) = row.exit_code
        && spec.harness_exit_codes.contains(&code)
    {
        return fault_outcome(
            row,
            Fault::Harness,
            Outcome::HarnessError,
            format!(
                "run exited {code}, a declared harness exit code (`policy.harness_exit_codes`)"
            ),
        );
    }
    let declared = row.detail.result.as_ref().and_then(|r| r.fault.clone());
    match declared.as_deref() {
        Some("transport") => {
            return fault_outcome(
                row,
                Fault::Transport,
                Outcome::Unavailable,
                "result file declared a transport fault".to_string(),
            );
        }
        Some(other) => {
            return fault_outcome(
                row,
                Fault::Harness,
                Outcome::HarnessError,
                format!(
                    "result file has unknown `fault` `{}` (the only fault a task declares is `transport`)",
                    untrusted::one_line(&untrusted::clip(other, 64))
                ),
            );
        }
        None => {}
    }
    if let Some(code) = row.exit_code
        && spec.transport_exit_codes.contains(&code)
    {
        return fault_outcome(
            row,
            Fault::Transport,
            Outcome::Unavailable,
            format!("run exited {code}, a declared transport fault"),
        );
    }
    row.outcome = Outcome::Fail;
    row.detail.reason = Some(match (row.exit_code, row.signal, row.check_exit) {
        (None, Some(sig), _) => format!("run killed by signal {sig}"),
        (Some(code), _, _) if code != 0 => format!("run exited {code}"),
        (_, _, Some(code)) if code != 0 => format!("check exited {code}"),
        _ if row.detail.result.as_ref().and_then(|r| r.pass) == Some(false) => {
            "result file says `pass: false`".to_string()
        }
        _ => {
            row.outcome = Outcome::Pass;
            return row.detail.reason = None;
        }
    });
}

#[cfg(test)]
mod tests {
    //! Attempts of real processes: the attempt's own thread waits for the process and drains
    //! its output at once (no reader thread), so it must keep up with a flood, keep its
    //! deadline while the flood lasts, and not wait for a straggler holding a pipe.

    use super::*;

    fn spec(dir: &Path, run: &str, timeout: Duration) -> AttemptSpec {
        AttemptSpec {
            task: "t".to_string(),
            trial: 1,
            attempt: 1,
            run_id: "test".to_string(),
            run: CommandLine::Shell(run.to_string()),
            check: None,
            cwd: dir.to_path_buf(),
            writes: None,
            env: Vec::new(),
            timeout,
            kill_grace: Duration::from_millis(200),
            timeout_policy: TimeoutPolicy::Fail,
            transport_exit_codes: Vec::new(),
            harness_exit_codes: Vec::new(),
            out_dir: dir.join("out"),
            sandbox: None,
        }
    }

    fn run(dir: &Path, line: &str, timeout: Duration) -> (AttemptRow, Duration) {
        let _shared = sys::process_test();
        let started = Instant::now();
        let row = run_attempt(
            &spec(dir, line, timeout),
            &Redactor::default(),
            &AtomicBool::new(false),
        );
        (row, started.elapsed())
    }

    #[test]
    fn both_streams_flooding_at_once_are_drained_by_the_waiting_thread() {
        // 400 KB on each stream: far beyond a pipe's buffer, so the process would block (and
        // time out) unless the waiting thread drains both while it runs.
        let dir = tempfile::tempdir().unwrap();
        let line = "head -c 400000 /dev/zero | tr '\\0' o; head -c 400000 /dev/zero | tr '\\0' e >&2; echo END";
        let (row, took) = run(dir.path(), line, Duration::from_secs(30));
        assert_eq!(row.outcome, Outcome::Pass, "{row:?}");
        assert!(took < Duration::from_secs(20), "took {took:?}");
        assert!(
            row.detail.stdout_tail.ends_with("END"),
            "{:?}",
            row.detail.stdout_tail
        );
        assert!(row.detail.stderr_tail.ends_with('e'));
        let log = fs::read_to_string(row.detail.log.as_ref().expect("a log")).unwrap();
        assert!(
            log.contains("bytes of output elided by gate"),
            "both streams are cut"
        );
    }

    #[test]
    fn a_flood_does_not_keep_the_attempt_past_its_timeout() {
        let dir = tempfile::tempdir().unwrap();
        let (row, took) = run(dir.path(), "yes flood", Duration::from_millis(300));
        assert_eq!(row.outcome, Outcome::Fail);
        assert_eq!(row.fault, Some(Fault::Timeout), "{row:?}");
        assert!(took < Duration::from_secs(10), "took {took:?}");
        assert!(row.detail.stdout_tail.ends_with("flood"));
    }

    #[test]
    fn a_straggler_holding_stdout_does_not_stall_the_attempt() {
        // The straggler leaves the process group (setsid), so the group kill misses it, and
        // keeps stdout open for seconds; the attempt ends when its leader does.
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("straggler.pid");
        let line = format!(
            "setsid sh -c 'echo $$ > {}; exec sleep 20' & echo hi",
            pidfile.display()
        );
        let (row, took) = run(dir.path(), &line, Duration::from_secs(30));
        if let Some(pid) = (0..200).find_map(|_| {
            std::thread::sleep(Duration::from_millis(10));
            fs::read_to_string(&pidfile)
                .ok()?
                .trim()
                .parse::<i32>()
                .ok()
        }) {
            // SAFETY: kill sends a signal to the straggler this test started.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        assert_eq!(row.outcome, Outcome::Pass, "{row:?}");
        assert_eq!(row.detail.stdout_tail, "hi");
        assert!(took < Duration::from_secs(5), "took {took:?}");
    }
}
