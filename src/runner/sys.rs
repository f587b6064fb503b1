//! Every call into the operating system that Rust's standard library does not wrap: process
//! groups and their registry, pidfds, non-blocking pipes and poll, advisory locks, the host
//! name, and the interrupt handler. Most go through `rustix` (safe wrappers of the raw
//! system calls); what it does not wrap safely (`waitid` with `__WNOTHREAD`, `poll` and
//! `fcntl` of descriptors the callers pass raw, the `TIOCNOTTY` ioctl, `signal`, `_exit`,
//! the environment block) stays on `libc`, and each `unsafe` block carries a SAFETY note.
//! (The open flags of the result file, `O_NOFOLLOW | O_NONBLOCK`, are passed through the
//! standard library's `OpenOptionsExt`.)
//!
//! The crate is Linux-only (see docs/ARCHITECTURE.md, "Platform"): pidfds and `flock` are
//! used as Linux provides them, and `lib.rs` stops the build with one `compile_error!` on any
//! other target.
//!
//! The registry of live process groups is what makes "every exit path kills every process
//! group it started" (invariant 9) hold. A group leaves the registry only after its final
//! SIGKILL. Spawns run outside the registry's lock (lanes start trials in parallel) but are
//! counted while under way: a sweep ([`kill_all_groups`]; the scheduler's guard on an error
//! or a panic, the second Ctrl-C) stops new spawns and waits for those under way to be
//! registered before it kills, so it can never miss a group being born; a trial already
//! cancelled when no sweep holds it back does not spawn at all. Ended orphans are reaped by
//! the main thread, which is their parent and never spawns a trial ([`reap_orphans`]).

use std::collections::BTreeSet;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use rustix::fs::{FlockOperation, flock};
use rustix::io::Errno;
use rustix::process::{
    Pid, PidfdFlags, Signal, WaitId, WaitIdOptions, WaitOptions, getpgid, getpid, kill_process,
    kill_process_group, pidfd_open, set_child_subreaper, waitid, waitpid,
};

use super::spawn::{Proc, Spawn};
use crate::exit;

/// The process groups this process started, and the spawns under way.
#[derive(Debug)]
struct Registry {
    /// Groups whose leader has not yet been reaped and killed.
    live: BTreeSet<u32>,
    /// Spawns under way: a child may exist that is in no set yet.
    spawning: usize,
    /// Sweeps ([`kill_all_groups`]) under way or, after the second Ctrl-C, for good: no
    /// spawn starts while one runs.
    sweeping: usize,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    live: BTreeSet::new(),
    spawning: 0,
    sweeping: 0,
});

/// Signalled whenever `spawning` or `sweeping` falls.
static CHANGED: Condvar = Condvar::new();

fn registry() -> MutexGuard<'static, Registry> {
    // A panic while holding the lock leaves consistent counts (each update is one statement).
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// A process group in the registry; leaves it when dropped (after its final kill).
#[derive(Debug)]
pub struct Group {
    pgid: u32,
}

impl Group {
    /// The process group id (the leader's pid).
    pub fn pgid(&self) -> u32 {
        self.pgid
    }

    /// Send `sig` to every process in the group.
    pub fn signal(&self, sig: libc::c_int) {
        kill_group(self.pgid, sig);
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        registry().live.remove(&self.pgid);
    }
}

/// Reap the adopted orphans ([`adopt_orphans`]) that have ended. Without this each trial
/// that leaves a background process behind would leave a zombie of gate until the end of
/// the run, and a long run could exhaust the process table (or a CI container's pids
/// limit). One `waitid` when there is nothing to reap.
///
/// It works from the main thread only (elsewhere it does nothing): the kernel hands an
/// orphan to the subreaper's first live thread, its main thread, and the main thread never
/// spawns a trial, so `__WNOTHREAD` (only this thread's own children) can never take a
/// trial leader's exit status from the lane thread that waits for it, whatever spawn is
/// under way. `gate run` calls it from the scheduler, which runs on the main thread.
pub fn reap_orphans() {
    let main_thread = rustix::thread::gettid() == getpid();
    if main_thread {
        reap_own_children();
    }
}

/// Reap the ended children of the calling thread (not of other threads).
fn reap_own_children() {
    loop {
        // SAFETY: waitid writes only into `info`; WNOHANG never blocks; __WNOTHREAD limits
        // it to the calling thread's children (see above).
        let pid = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let flags = libc::WEXITED | libc::WNOHANG | libc::__WNOTHREAD;
            if libc::waitid(libc::P_ALL, 0, &mut info, flags) != 0 {
                return;
            }
            info.si_pid()
        };
        if pid == 0 {
            return;
        }
    }
}

/// Counts a spawn as under way until dropped, also when the spawn unwinds.
struct Spawning;

impl Drop for Spawning {
    fn drop(&mut self) {
        // Only ever reached after a matching increment.
        let mut reg = registry();
        reg.spawning -= 1;
        CHANGED.notify_all();
    }
}

/// Spawn `cmd` as the leader of a new process group and register the group.
///
/// The spawn itself (a `clone` that holds the calling thread until the child has called
/// `exec`, [`Spawn::spawn`]) runs outside the registry's lock, so parallel lanes start their trials in
/// parallel; the registry counts it as under way instead. A sweep ([`kill_all_groups`])
/// waits for the spawns under way to be registered, and no spawn starts while a sweep runs,
/// so a sweep never misses a group being born.
///
/// `None` when `cancel` is set by the time no sweep runs: the trial was cancelled before its
/// process started, so it never starts. (Whoever cancels sets the flags before sweeping, so
/// a trial held back by a sweep cannot start after it.)
pub(crate) fn spawn_group(
    spawn: Spawn<'_>,
    cancel: &AtomicBool,
) -> io::Result<Option<(Proc, Group)>> {
    // The process group, the death signal and its check, the terminal detach are the
    // spawn's own steps in the child (`Spawn`).
    let mut reg = registry();
    while reg.sweeping > 0 {
        reg = CHANGED.wait(reg).unwrap_or_else(|e| e.into_inner());
    }
    if cancel.load(Ordering::SeqCst) {
        return Ok(None);
    }
    reg.spawning += 1;
    drop(reg);
    let under_way = Spawning;
    let spawned = spawn.spawn();
    // Registered before the spawn's count ends (the guard's drop, below): a sweep that
    // waits for the count to fall finds the group in the set.
    let mut reg = registry();
    let child = spawned?;
    reg.live.insert(child.id());
    drop(reg);
    drop(under_way);
    let group = Group { pgid: child.id() };
    Ok(Some((child, group)))
}

/// SIGKILL every registered process group and every adopted orphan ([`kill_orphans`]).
/// Used on every abnormal way out (an error, a panic unwinding, a second Ctrl-C); the normal
/// way out cancels trials one by one and leaves nothing registered. Returns how many groups
/// were signalled.
pub fn kill_all_groups() -> usize {
    sweep(&Sweep::begin().0.live)
}

/// A sweep under way: new spawns wait, those under way have been registered, and the
/// registry is held. Dropping it ends the sweep (also when a sweep unwinds, so spawns are
/// never held back for good by a failed one); the second Ctrl-C never drops its sweep.
struct Sweep(MutexGuard<'static, Registry>);

impl Sweep {
    /// Stop new spawns and wait for those under way to be registered.
    fn begin() -> Sweep {
        let mut reg = registry();
        reg.sweeping += 1;
        while reg.spawning > 0 {
            reg = CHANGED.wait(reg).unwrap_or_else(|e| e.into_inner());
        }
        Sweep(reg)
    }
}

impl Drop for Sweep {
    fn drop(&mut self) {
        self.0.sweeping -= 1;
        CHANGED.notify_all();
    }
}

/// SIGKILL the groups in `live`, wait for their leaders to die, then kill the orphans.
fn sweep(live: &BTreeSet<u32>) -> usize {
    for &pgid in live.iter() {
        kill_group(pgid, libc::SIGKILL);
    }
    await_killed_leaders(live);
    kill_orphans_except(live);
    live.len()
}

/// Make this process the reaper of its orphaned descendants (`PR_SET_CHILD_SUBREAPER`).
///
/// A trial's process can leave its process group (`setsid`, a double fork) and so escape the
/// group kill. Without this it would then be re-parented to init and outlive gate, free to
/// rewrite the ledger or the reports after gate checked them. With it, such a process
/// becomes gate's own child once its parent ends, where [`kill_orphans`] finds it.
pub fn adopt_orphans() -> io::Result<()> {
    // prctl(PR_SET_CHILD_SUBREAPER, 1): rustix passes the pid's value as the flag, and
    // `Pid::INIT` is 1.
    Ok(set_child_subreaper(Some(Pid::INIT))?)
}

/// The children of every thread of this process.
fn children() -> Vec<libc::pid_t> {
    let mut out = Vec::new();
    if let Ok(tasks) = std::fs::read_dir("/proc/self/task") {
        for task in tasks.flatten() {
            if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
                out.extend(
                    list.split_whitespace()
                        .filter_map(|p| p.parse::<libc::pid_t>().ok()),
                );
            }
        }
    }
    out
}

/// Most rounds of [`kill_orphans`]: each round kills the orphans found and reaps them, which
/// hands their own children over for the next round.
const ORPHAN_ROUNDS: usize = 1000;

/// SIGKILL (with its process group) and reap every child of this process that is not the
/// leader of a registered group: the orphans adopted since [`adopt_orphans`]. Returns how
/// many were killed. Called when no trial runs any more (the end of a run) and on every
/// abnormal way out.
pub fn kill_orphans() -> usize {
    kill_orphans_except(&Sweep::begin().0.live).0
}

/// [`kill_orphans`] before a check looks at what trials left (review 76, 07): whether every
/// orphan is gone. A chain of detached processes longer than [`ORPHAN_ROUNDS`] may still
/// have a member alive (review 77, 04), which could write after the looks; then the check
/// is not run.
pub fn kill_orphans_before_check() -> bool {
    kill_orphans_except(&Sweep::begin().0.live).1
}

/// How long [`kill_orphans`] watches for more orphans after the last one: a process killed
/// just before (a straggler of a trial's group) hands its children over only as it dies.
/// Not where every process gate started for a trial was a PID namespace's waiter
/// ([`super::spawn::every_trial_process_in_a_pid_namespace`]): then no trial process can become gate's orphan but an
/// init, whose own children stay in its namespace and die with it, and gate learns of a
/// waiter's end only after its init was handed over; so there is no straggler to watch
/// for, and the 50 ms were a wait at the end of every run.
const ORPHAN_QUIET: Duration = Duration::from_millis(50);

/// Wait until the leaders in `live`, just sent SIGKILL, are dead (without reaping them:
/// their threads do that), by when their children are ours for [`kill_orphans_except`].
fn await_killed_leaders(live: &BTreeSet<u32>) {
    for &pid in live {
        // WNOWAIT leaves the child to be reaped by the thread that owns it, and ECHILD
        // (already reaped) returns at once.
        if let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
            let _ = waitid(
                WaitId::Pid(pid),
                WaitIdOptions::EXITED | WaitIdOptions::NOWAIT,
            );
        }
    }
}

/// The orphans killed, and whether none was left when the rounds ended.
fn kill_orphans_except(live: &BTreeSet<u32>) -> (usize, bool) {
    let mut killed = 0;
    let mut last_seen = std::time::Instant::now();
    for _ in 0..ORPHAN_ROUNDS {
        let orphans: Vec<libc::pid_t> = children()
            .into_iter()
            .filter(|&pid| pid > 1 && !u32::try_from(pid).is_ok_and(|p| live.contains(&p)))
            .collect();
        if orphans.is_empty() {
            let quiet = if super::spawn::every_trial_process_in_a_pid_namespace() {
                Duration::ZERO
            } else {
                ORPHAN_QUIET
            };
            if last_seen.elapsed() >= quiet {
                return (killed, true);
            }
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        last_seen = std::time::Instant::now();
        for &pid in &orphans {
            // `pid` is our own child (not a registered leader, whose thread reaps it), so
            // waiting for it steals no other waiter's status. (pid > 1: never None.)
            if let Some(pid) = Pid::from_raw(pid) {
                if getpgid(Some(pid)) == Ok(pid) {
                    let _ = kill_process_group(pid, Signal::KILL);
                }
                let _ = kill_process(pid, Signal::KILL);
                let _ = waitpid(Some(pid), WaitOptions::empty());
            }
            killed += 1;
        }
    }
    (killed, false)
}

/// Send `sig` to process group `pgid`; ESRCH (group already gone) is fine.
pub fn kill_group(pgid: u32, sig: libc::c_int) {
    // pgid > 1 keeps a bogus value from meaning "every process we may signal"; a stale or
    // empty group yields ESRCH. Every caller passes a named signal (SIGTERM, SIGKILL, …).
    if let Ok(pgid) = libc::pid_t::try_from(pgid)
        && pgid > 1
        && let (Some(pgid), Some(sig)) = (Pid::from_raw(pgid), Signal::from_named_raw(sig))
    {
        let _ = kill_process_group(pgid, sig);
    }
}

/// A Linux pidfd: becomes readable when the process exits, so one thread can poll for an
/// exit, the process's output, a deadline and a cancel flag at once ([`poll_readable`]).
#[derive(Debug)]
pub struct PidFd(File);

impl PidFd {
    /// A pidfd for `pid`, or `None` on kernels without `pidfd_open` (before 5.3).
    pub fn open(pid: u32) -> Option<PidFd> {
        let pid = Pid::from_raw(libc::pid_t::try_from(pid).ok()?)?;
        let fd = pidfd_open(pid, PidfdFlags::empty()).ok()?;
        Some(PidFd(File::from(fd)))
    }

    /// The descriptor, to poll together with others; readable once the process exited.
    pub fn raw(&self) -> RawFd {
        self.0.as_raw_fd()
    }
}

/// Make `fd` non-blocking (a pipe read then returns `WouldBlock` instead of waiting).
pub fn set_nonblocking(fd: RawFd) {
    // SAFETY: fcntl on a descriptor the caller owns, with standard commands; it changes no
    // memory.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
    }
}

/// Wait up to `timeout` until one of `fds` is readable (or at end of file, or in error);
/// `None` entries are not watched. Returns which are ready, or `None` when none is by the
/// timeout (a signal interrupting the wait does not end it early).
pub fn poll_readable<const N: usize>(
    fds: [Option<RawFd>; N],
    timeout: Duration,
) -> Option<[bool; N]> {
    let mut pfds = fds.map(|fd| libc::pollfd {
        // A negative fd is ignored by poll.
        fd: fd.unwrap_or(-1),
        events: libc::POLLIN,
        revents: 0,
    });
    let until = std::time::Instant::now() + timeout;
    loop {
        let left = until.saturating_duration_since(std::time::Instant::now());
        // Rounded up: a wait of 0.4 ms must not become a busy poll of 0 ms.
        let ms = left.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int;
        // SAFETY: N valid pollfd structs and their count; poll writes only their revents.
        let n = unsafe { libc::poll(pfds.as_mut_ptr(), N as libc::nfds_t, ms) };
        if n > 0 {
            return Some(pfds.map(|p| p.revents != 0));
        }
        // A signal (Ctrl-C reaching this thread) interrupts poll whatever SA_RESTART says:
        // wait out the rest, or a drain would stop early and a grace be cut short.
        let interrupted = n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted;
        if !interrupted || left.is_zero() {
            return None;
        }
    }
}

/// Take an exclusive advisory lock on `file` without waiting; `Ok(false)` when another open
/// file description holds it. The lock lasts until the file is closed (or the process ends,
/// however it ends), so a crashed run never leaves a ledger locked.
pub fn try_lock_exclusive(file: &File) -> io::Result<bool> {
    match flock(file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(true),
        Err(Errno::WOULDBLOCK) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Whether two paths or files are the same file: same device and inode.
pub fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// Whether the file at `path` is `file` (not replaced, renamed away or removed).
pub fn path_is_file(path: &Path, file: &File) -> io::Result<bool> {
    let on_disk = std::fs::metadata(path)?;
    Ok(same_file(&on_disk, &file.metadata()?))
}

/// Let a closed stdout end the process quietly (SIGPIPE's default action), the way `cat` and
/// `grep` end in `… | head -1`. For the commands that only print (`plan`, `explain`,
/// `verify`, …); `run`, `ingest` and `report` keep SIGPIPE ignored (Rust's default), get
/// EPIPE from the write, and go on to their verdict and exit code.
pub fn die_quietly_on_closed_stdout() {
    // SAFETY: resets one signal's disposition to its default; no handler is involved.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// One allocator arena for every thread of gate (the C library's `M_ARENA_MAX`), on the GNU
/// C library, which otherwise gives each thread that allocates an arena of its own and
/// keeps what a thread freed there for that arena alone. A suite run's test-case rows are
/// made on a trial's thread: at 100,000 cases the trial threads' arenas held about 130 MB
/// the report built afterwards on the main thread could not reuse (issue 30; measured with
/// `MALLOC_ARENA_MAX=1` in `scripts/bench-suite-scale.sh`). gate's threads mostly wait on
/// processes, so one arena's lock costs nothing measurable. Called first, before any thread.
pub fn one_allocator_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt sets one of the allocator's tunables; nothing is allocated or freed,
    // and no other thread exists yet.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

/// Mark every descriptor gate inherited beyond stdin, stdout and stderr close-on-exec
/// (review 10): a `7<secret.txt` given to gate, or a pipe of the CI runner's, was open in
/// every trial and check. gate opens its own descriptors close-on-exec; a trial gets
/// 0, 1 and 2 only. Called first, while gate has one thread.
pub fn close_inherited_descriptors_on_exec() {
    let Ok(dir) = std::fs::read_dir("/proc/self/fd") else {
        return;
    };
    let fds: Vec<i32> = dir
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .filter(|fd| *fd > 2)
        .collect();
    for fd in fds {
        // SAFETY: F_SETFD on a descriptor number changes only its close-on-exec flag; a
        // number that closed meanwhile (the directory's own) fails with EBADF, ignored.
        unsafe {
            libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
        }
    }
}

/// Erase this process's initial environment block, the bytes `/proc/PID/environ` shows, after
/// moving every variable to the heap. Call it first thing in `main`, before any thread.
///
/// A task running as gate's user (or as root, whose box keeps the ptrace read access that
/// `/proc/PID/environ` needs) can read gate's environment there: `GITHUB_TOKEN`,
/// `ACTIONS_RUNTIME_TOKEN`, cloud keys, everything withheld from the task's own environment.
/// The kernel reads that file from the range `env_start..env_end` of the first stack, not
/// from `environ`; so each variable is set again (the C library copies it to the heap and
/// points `environ` there) and then the range is zeroed. Gate's own view of its environment
/// (`std::env`) is unchanged. Returns whether the block was erased: it is not when the range
/// cannot be read or a variable still points into it (a duplicated name), so that no live
/// string is ever zeroed.
pub fn scrub_initial_environ() -> bool {
    let Some((start, end)) = initial_environ_range() else {
        return false;
    };
    let erased = erase_environ(start, end);
    ENVIRON_ERASED.store(erased, Ordering::SeqCst);
    erased
}

/// Set once [`scrub_initial_environ`] has erased the block.
static ENVIRON_ERASED: AtomicBool = AtomicBool::new(false);

/// Whether this process's initial environment block was erased ([`scrub_initial_environ`]):
/// the ledger records it, and the reports say so.
pub fn environ_erased() -> bool {
    ENVIRON_ERASED.load(Ordering::SeqCst)
}

fn erase_environ(start: usize, end: usize) -> bool {
    let vars: Vec<_> = std::env::vars_os().collect();
    for (k, v) in &vars {
        if k.is_empty() || k.as_encoded_bytes().contains(&b'=') {
            continue;
        }
        // SAFETY: called from `main` before any other thread exists, so nothing reads the
        // environment concurrently.
        unsafe { std::env::set_var(k, v) };
    }
    unsafe extern "C" {
        static environ: *const *const libc::c_char;
    }
    // SAFETY: `environ` is the C library's NULL-terminated array of C strings; no thread
    // changes it meanwhile (see above), and only the pointer values are compared.
    let inside = unsafe {
        let mut p = environ;
        let mut inside = false;
        while !p.is_null() && !(*p).is_null() {
            let a = *p as usize;
            inside |= (start..end).contains(&a);
            p = p.add(1);
        }
        inside
    };
    if inside {
        return false;
    }
    // SAFETY: `start..end` is this process's own initial environment block on its stack
    // (from /proc/self/stat); nothing points into it any more (checked above), and the
    // pages are mapped writable (the strings were written there by `execve`).
    unsafe { std::ptr::write_bytes(start as *mut u8, 0, end - start) };
    true
}

/// `env_start..env_end` of this process, from `/proc/self/stat` (fields 50 and 51).
fn initial_environ_range() -> Option<(usize, usize)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may hold spaces and parentheses: count from the last `)`.
    let rest = stat.get(stat.rfind(')')? + 2..)?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3.
    let start: usize = fields.get(50 - 3)?.parse().ok()?;
    let end: usize = fields.get(51 - 3)?.parse().ok()?;
    (start != 0 && start < end && end - start < (1 << 30)).then_some((start, end))
}

/// The interrupt state of a run: which signal (SIGINT or SIGTERM) asked it to stop, if any.
///
/// The first signal only sets the flag: the scheduler stops launching, cancels what is in
/// flight (SIGTERM, then SIGKILL after the grace) and closes the ledger. A second signal
/// means "now": every registered process group is killed with SIGKILL and gate exits at once
/// with 130 or 143 (the ledger is then closed as after a crash: every finished row is kept,
/// and `--resume` continues it).
#[derive(Debug, Clone)]
pub struct Interrupt {
    signal: Arc<AtomicUsize>,
}

impl Interrupt {
    /// Install the SIGINT/SIGTERM handling for this process (once per run).
    ///
    /// Each signal is said on stderr as it arrives, with the process that sent it: the
    /// verdict an interrupted run prints goes to stdout, and a run stopped from outside (a
    /// CI job's cancel, a test harness, a stray `kill`) otherwise left a stderr that simply
    /// stopped after its last trial, with nothing to say why or who.
    pub fn install() -> io::Result<Interrupt> {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let signal = Arc::new(AtomicUsize::new(0));
        for sig in [SIGINT, SIGTERM] {
            // SAFETY: the action only stores an integer in an atomic (async-signal-safe);
            // it runs before the iterator's own action (registered below, so later).
            unsafe {
                signal_hook_registry::register_sigaction(sig, |info: &libc::siginfo_t| {
                    SENDER.store(info.si_pid(), Ordering::SeqCst);
                })?;
            }
        }
        let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
        let seen = Arc::clone(&signal);
        std::thread::Builder::new()
            .name("gate-signals".into())
            .spawn(move || {
                for sig in signals.forever() {
                    let code = exit::for_signal(sig);
                    let what = signal_and_sender(sig, SENDER.swap(0, Ordering::SeqCst));
                    if seen.swap(sig as usize, Ordering::SeqCst) != 0 {
                        // Said before the sweep, but never waited on for long: a stderr
                        // nobody reads must not keep the second signal from ending the run.
                        let said = say(format!(
                            "gate: a second {what}: every trial is killed now, and gate exits \
                             {code} (the ledger keeps every finished row; `--resume` continues it)"
                        ));
                        let _ = said.recv_timeout(Duration::from_millis(500));
                        kill_all_and_exit(code);
                    }
                    // On a thread of its own: this one must stay free for a second signal.
                    say(format!(
                        "gate: {what}: stopping: no new trial starts, the trials running are \
                         cancelled, and the ledger is closed without a verdict (exit {code}); a \
                         second SIGINT or SIGTERM kills the trials at once"
                    ));
                }
            })?;
        Ok(Interrupt { signal })
    }

    /// An interrupt state that no signal sets (tests, library use).
    pub fn none() -> Interrupt {
        Interrupt {
            signal: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Whether a stop was asked for.
    pub fn requested(&self) -> bool {
        self.signal.load(Ordering::SeqCst) != 0
    }

    /// Ask for a stop as if `sig` had arrived (tests).
    pub fn request(&self, sig: libc::c_int) {
        self.signal.store(sig as usize, Ordering::SeqCst);
    }

    /// The exit code of an interrupted run: 143 after SIGTERM, else 130.
    pub fn exit_code(&self) -> u8 {
        exit::for_signal(self.signal.load(Ordering::SeqCst) as libc::c_int)
    }
}

/// The pid of the process that sent the last SIGINT or SIGTERM (0: none known, as for a
/// Ctrl-C, which the terminal's driver sends), stored by the signal's own action.
static SENDER: AtomicI32 = AtomicI32::new(0);

/// `SIGTERM from pid 123 (timeout)`: the signal, and the process that sent it when known
/// (its command name read while it may still be there).
fn signal_and_sender(sig: libc::c_int, pid: libc::pid_t) -> String {
    let name = if sig == libc::SIGTERM {
        "SIGTERM"
    } else {
        "SIGINT"
    };
    if pid <= 0 {
        return name.to_string();
    }
    match std::fs::read_to_string(format!("/proc/{pid}/comm")) {
        Ok(comm) => format!(
            "{name} from pid {pid} ({})",
            crate::untrusted::one_line(comm.trim())
        ),
        Err(_) => format!("{name} from pid {pid}"),
    }
}

/// Write `line` to stderr on a thread of its own; the receiver hears once it is written.
fn say(line: String) -> std::sync::mpsc::Receiver<()> {
    let (tx, rx) = std::sync::mpsc::channel();
    let _ = std::thread::Builder::new()
        .name("gate-say".into())
        .spawn(move || {
            use std::io::Write;
            let _ = writeln!(std::io::stderr().lock(), "{line}");
            let _ = tx.send(());
        });
    rx
}

/// Kill every registered group and end the process now, holding the registry's lock so that
/// no group can be spawned after the kill.
fn kill_all_and_exit(code: u8) -> ! {
    // The sweep is never ended: no spawn starts between it and the exit.
    let held = std::mem::ManuallyDrop::new(Sweep::begin());
    sweep(&held.0.live);
    // SAFETY: _exit ends the process without running atexit handlers or unwinding other
    // threads (which may hold stdout's lock); every ledger row already written is in the
    // file, which the kernel keeps whatever becomes of this process.
    unsafe { libc::_exit(i32::from(code)) }
}

/// Unit tests that start processes hold this shared; a test that kills every registered
/// group and every child (`kill_all_groups`) holds it alone, so it never kills another
/// test's processes.
#[cfg(test)]
pub(crate) static PROCESS_TESTS: std::sync::RwLock<()> = std::sync::RwLock::new(());

#[cfg(test)]
pub(crate) fn process_test() -> std::sync::RwLockReadGuard<'static, ()> {
    PROCESS_TESTS.read().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::spawn::test_spawn;
    use std::process::Command;

    #[test]
    fn a_spawned_group_is_registered_until_dropped_and_killed_by_kill_all() {
        let _alone = PROCESS_TESTS.write().unwrap_or_else(|e| e.into_inner());
        let out = File::create("/dev/null").unwrap();
        let never = AtomicBool::new(false);
        let (mut child, group) =
            spawn_group(test_spawn(&["/bin/sh", "-c", "sleep 30"], &out), &never)
                .expect("spawn")
                .unwrap();
        assert!(registry().live.contains(&group.pgid()));
        assert!(kill_all_groups() >= 1);
        let status = child.wait().expect("wait");
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(libc::SIGKILL)
        );
        let pgid = group.pgid();
        drop(group);
        assert!(!registry().live.contains(&pgid));
    }

    #[test]
    fn parallel_spawns_never_lose_a_child_to_the_orphan_reaper() {
        let _shared = process_test();
        // Lanes spawn outside the registry's lock while the scheduler's thread reaps ended
        // orphans. A reaper that took any ended child (waitid P_ALL) could take a lane's
        // child before the lane waits for it, leaving the lane with ECHILD (a harness
        // error). Here the reaping thread's own children stand for the orphans the kernel
        // hands to gate's main thread: they are reaped, and no lane loses a child.
        let lanes: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn(|| {
                    let never = AtomicBool::new(false);
                    for _ in 0..150 {
                        let out = File::create("/dev/null").unwrap();
                        let (mut child, group) =
                            spawn_group(test_spawn(&["/bin/true"], &out), &never)
                                .expect("spawn")
                                .expect("not cancelled");
                        let status = child.wait().expect("the child's status is its own");
                        assert!(status.success());
                        drop(group);
                    }
                })
            })
            .collect();
        let mut orphans = Vec::new();
        while lanes.iter().any(|l| !l.is_finished()) {
            // Children of this thread that end and are never waited for, like orphans.
            orphans.push(Command::new("/bin/true").spawn().expect("spawn").id());
            reap_own_children();
        }
        for lane in lanes {
            lane.join().expect("no lane lost a child");
        }
        std::thread::sleep(Duration::from_millis(100));
        reap_own_children();
        for pid in orphans {
            let rc = waitpid(Pid::from_raw(pid as libc::pid_t), WaitOptions::NOHANG);
            assert!(rc.is_err(), "orphan {pid} was reaped");
        }
    }

    /// Regression (review of the overhead work): after a ledger error the scheduler's guard
    /// cancels the trials and sweeps; a trial launched just before, held back by the sweep,
    /// then spawned after it and outlived gate (ppid 1). It sees its cancel flag instead.
    #[test]
    fn a_trial_held_back_by_a_sweep_and_cancelled_meanwhile_never_starts() {
        let _shared = process_test();
        let cancel = std::sync::Arc::new(AtomicBool::new(false));
        let held = Sweep::begin();
        let flag = std::sync::Arc::clone(&cancel);
        let lane = std::thread::spawn(move || {
            let out = File::create("/dev/null").unwrap();
            let spawn = test_spawn(&["/bin/sh", "-c", "sleep 30"], &out);
            spawn_group(spawn, &flag).expect("no error").is_none()
        });
        std::thread::sleep(Duration::from_millis(50));
        // As the guard does: cancel first, then the sweep ends.
        cancel.store(true, Ordering::SeqCst);
        drop(held);
        assert!(
            lane.join().unwrap(),
            "the cancelled trial's process never started"
        );
    }

    #[test]
    fn a_cancelled_trial_never_starts_its_process() {
        let _shared = process_test();
        let out = File::create("/dev/null").unwrap();
        let cancelled = AtomicBool::new(true);
        assert!(
            spawn_group(test_spawn(&["/bin/sh", "-c", "sleep 30"], &out), &cancelled)
                .expect("no error")
                .is_none()
        );
    }

    #[test]
    fn a_second_lock_on_the_same_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l.lock");
        let a = File::create(&path).unwrap();
        let b = File::options().write(true).open(&path).unwrap();
        assert!(try_lock_exclusive(&a).unwrap());
        assert!(!try_lock_exclusive(&b).unwrap());
        drop(a);
        assert!(try_lock_exclusive(&b).unwrap());
    }
}
