//! Starting a trial's process without copying gate (issue 29).
//!
//! The standard library's `Command` forks (copies gate's address space, faults it in
//! copy-on-write in gate's running threads and in the child, and tears the copy down at
//! `exec`) whenever a `pre_exec` step is set, and every trial needs one (the death signal,
//! the terminal detach, the box). Here a trial's process is started with the C library's
//! `clone` wrapper, which runs a function of ours on a stack of ours (no assembly):
//!
//! - **Without a PID namespace** (`policy.sandbox: off`, a box without the mount layer, the
//!   runner's unit tests): `CLONE_VM | CLONE_VFORK`, as `posix_spawn` does. The child shares
//!   gate's memory until its `exec`, and the calling thread sleeps until then: nothing is
//!   copied. The child runs only async-signal-safe system calls on memory prepared before
//!   the `clone` ([`Spawn`]: the argument vectors, the environment, the working folder, the
//!   descriptors, the box), allocates nothing, and writes nothing of gate's but its own
//!   stack, the slot of a script's `/bin/sh` argument vector ([`Spawn::sh_argv`]) and, on
//!   failure, the error slot.
//! - **With a PID namespace** (`sandbox::pidns`): the first process (the waiter) lives as
//!   long as the trial, so it cannot hold the calling thread: `CLONE_VM` without
//!   `CLONE_VFORK`. It shares gate's memory for the whole trial, on stacks gate keeps out of
//!   use until the waiter is reaped ([`Proc`]); gate changes nothing the child reads, and
//!   learns of the task's `exec` (or the error of a step) from an error pipe. The init and
//!   the task share that memory too (`CLONE_VM`, and `CLONE_VFORK` for the task): nothing
//!   of gate is copied for a boxed trial either (a fork was, up to 2026-12-05).
//!
//! Every wall, signal and error is as it was with `Command`: the same steps in the same
//! order (descriptors, working folder, process group, the box, the death signal and its
//! check, the terminal detach, `exec`), the same search of `PATH` (the task's own) and the
//! same `/bin/sh` fallback for a script without `#!` as the C library's `execvp`, and a
//! step that fails makes the spawn fail with its `errno`, the child never running the task.
//! All signals are blocked from before the `clone` until just before the `exec`, so that no
//! handler of gate's ever runs in the child; the task starts with an empty signal mask and
//! SIGPIPE at its default, as `Command` leaves it.

use std::cell::UnsafeCell;
use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::ExitStatus;
use std::sync::atomic::{AtomicI32, AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};

use rustix::io::Errno;
use rustix::process::{Pid, Signal, WaitOptions, getppid, set_parent_process_death_signal};

use crate::plan::CommandLine;

/// The box's side of a spawn, raised in the child between `clone` and `exec`
/// (`sandbox::ChildBox`; a trait so that this file does not depend on the box's).
pub(crate) trait ChildWalls {
    /// Whether the trial's processes get a PID namespace of their own: the spawn then does
    /// not wait for the first one's `exec` (the namespace's waiter lives as long as the
    /// trial).
    fn pid_namespace(&self) -> bool;

    /// Raise the walls. Without a PID namespace the calling process goes on to `exec` the
    /// task. With one, it becomes the namespace's waiter and never returns unless the split
    /// failed; the task, on `stacks[1]` (the init on `stacks[0]`), calls `task` with the
    /// walls' result, and `task` must end with `exec` or `_exit`.
    ///
    /// # Safety
    ///
    /// Only in a spawn's child between `clone` and `exec`, every signal blocked;
    /// async-signal-safe system calls on memory prepared before.
    unsafe fn install(
        &self,
        stacks: [*mut libc::c_void; 2],
        relay: &Relay,
        task: &dyn Fn(io::Result<()>),
    ) -> io::Result<()>;
}

/// Where a PID namespace's waiter leaves the task's wait status when it cannot end the same
/// way (a core-dumping signal: see `sandbox::pidns`), in gate's memory, which the waiter
/// shares; read by [`Proc::wait`] once the waiter is reaped. 0: nothing relayed; otherwise
/// `1 << 32` with the wait status in the low 32 bits.
#[derive(Debug, Default)]
pub(crate) struct Relay(std::sync::atomic::AtomicI64);

impl Relay {
    /// Leave the task's wait status `status` (async-signal-safe: one atomic store).
    pub(crate) fn set(&self, status: i32) {
        self.0
            .store((1 << 32) | i64::from(status as u32), Ordering::SeqCst);
    }

    /// The wait status left, if any.
    fn get(&self) -> Option<i32> {
        let v = self.0.load(Ordering::SeqCst);
        (v != 0).then_some(v as u32 as i32)
    }
}

/// Gate's environment less the names the box withholds, sorted by name, each as the
/// `NAME=value` string `exec` takes. Made once per run ([`super::sandbox::Sandbox::new`]):
/// the standard library copied the whole environment into a map at every spawn.
#[derive(Debug, Default)]
pub struct BaseEnv {
    vars: Vec<(OsString, CString)>,
}

impl BaseEnv {
    /// This process's environment without the names in `withheld`.
    pub fn inherited(withheld: &[OsString]) -> BaseEnv {
        let mut vars: Vec<(OsString, CString)> = std::env::vars_os()
            .filter(|(k, _)| !withheld.contains(k))
            .filter_map(|(k, v)| Some((k.clone(), pair(&k, &v).ok()?)))
            .collect();
        // Stable: of two entries with one name, the later wins, as in `Command`'s map.
        vars.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let mut out: Vec<(OsString, CString)> = Vec::with_capacity(vars.len());
        for v in vars {
            match out.last_mut() {
                Some(last) if last.0 == v.0 => *last = v,
                _ => out.push(v),
            }
        }
        BaseEnv { vars: out }
    }

    /// The names this environment holds.
    pub(crate) fn names(&self) -> impl Iterator<Item = &OsStr> {
        self.vars.iter().map(|(k, _)| k.as_os_str())
    }

    fn get(&self, name: &[u8]) -> Option<&CString> {
        self.vars
            .binary_search_by(|(k, _)| k.as_bytes().cmp(name))
            .ok()
            .map(|i| &self.vars[i].1)
    }
}

/// `name=value` as a C string; an interior NUL fails as `Command`'s spawn did.
fn pair(name: &OsStr, value: &OsStr) -> io::Result<CString> {
    let mut kv = Vec::with_capacity(name.len() + value.len() + 1);
    kv.extend_from_slice(name.as_bytes());
    kv.push(b'=');
    kv.extend_from_slice(value.as_bytes());
    cstring(kv)
}

fn cstring(bytes: impl Into<Vec<u8>>) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "nul byte found in provided data",
        )
    })
}

/// The C library's search path when `PATH` is unset (`confstr(_CS_PATH)`).
const DEFAULT_PATH: &[u8] = b"/bin:/usr/bin";

/// How the processes gate started for trials were made: none yet, each the waiter of a PID
/// namespace of its own, or at least one without (`sys::kill_orphans` watches for
/// stragglers only then).
static TRIAL_PROCESSES: AtomicU8 = AtomicU8::new(NONE_STARTED);
const NONE_STARTED: u8 = 0;
const ALL_IN_PID_NAMESPACES: u8 = 1;
const SOME_OUTSIDE: u8 = 2;

/// Record that gate is about to start a process for a trial, in a PID namespace of its own
/// or not; called before the process exists.
fn started_trial_process(in_pid_namespace: bool) {
    if in_pid_namespace {
        let _ = TRIAL_PROCESSES.compare_exchange(
            NONE_STARTED,
            ALL_IN_PID_NAMESPACES,
            Ordering::SeqCst,
            Ordering::SeqCst,
        );
    } else {
        TRIAL_PROCESSES.store(SOME_OUTSIDE, Ordering::SeqCst);
    }
}

/// Whether gate has started processes for trials and each was the waiter of a PID namespace
/// of its own: none of them can leave gate an orphan but an init, whose own children die
/// with its namespace.
pub(super) fn every_trial_process_in_a_pid_namespace() -> bool {
    TRIAL_PROCESSES.load(Ordering::SeqCst) == ALL_IN_PID_NAMESPACES
}

/// One process to start, prepared in full before the `clone`.
pub(crate) struct Spawn<'a> {
    /// The paths to try in turn: the program itself when it names a path, else each entry
    /// of the task's `PATH` joined with it (`execvp`'s search).
    candidates: Vec<CString>,
    /// Whether the program was searched for (errors then as `execvp`'s search reports them).
    searched: bool,
    _argv: Vec<CString>,
    argv: Vec<*const libc::c_char>,
    /// `/bin/sh`, a slot for the script's path, `argv[1..]`: a file the kernel cannot run
    /// is run by the shell, as `execvp` does. The child fills the slot.
    sh_argv: UnsafeCell<Vec<*const libc::c_char>>,
    _env: Vec<CString>,
    envp: Vec<*const libc::c_char>,
    cwd: CString,
    /// `/dev/null` ([`dev_null`]), the task's stdin.
    stdin: RawFd,
    stdout: RawFd,
    stderr: RawFd,
    /// The box to raise in the child, if any.
    walls: Option<&'a dyn ChildWalls>,
    /// Gate's pid: the child checks it is still gate's child once its death signal is set.
    parent: libc::pid_t,
    /// The child's `errno` when a step failed (shared memory: the `CLONE_VM | CLONE_VFORK`
    /// path).
    failed: AtomicI32,
    /// The tops of the PID namespace's init and task stacks ([`Stacks`]), set by
    /// [`Spawn::spawn`].
    stacks: [*mut libc::c_void; 2],
    /// The [`Relay`] of this spawn's [`Proc`], set by [`Spawn::spawn`].
    relay: *const Relay,
    /// The error pipe of the PID-namespace path: the child writes its `errno` there; the
    /// pipe closes at the task's `exec` (close-on-exec) or when every process of the trial
    /// has it closed. Taken out by [`Spawn::spawn`] before the `clone`: from then on gate
    /// only reads this value, which the child shares.
    err_pipe: Option<(OwnedFd, OwnedFd)>,
    /// The write end of `err_pipe` as the child writes it (-1 without a pipe).
    err_w: RawFd,
}

impl<'a> Spawn<'a> {
    /// Prepare `line` to run in `cwd` with `env` added to `base` (in order; a later name
    /// wins), stdin on `/dev/null`, stdout and stderr on the given descriptors (which must
    /// stay open until [`Spawn::spawn`] returns), inside `walls` when given.
    pub(crate) fn new(
        line: &CommandLine,
        base: &'a BaseEnv,
        env: &[(&OsStr, &OsStr)],
        cwd: &Path,
        stdout: &'a impl AsRawFd,
        stderr: &'a impl AsRawFd,
        walls: Option<&'a dyn ChildWalls>,
    ) -> io::Result<Spawn<'a>> {
        let (program, args): (&OsStr, Vec<&OsStr>) = match line {
            CommandLine::Shell(s) => (
                // An absolute path: no PATH search on every spawn.
                OsStr::new("/bin/sh"),
                vec![OsStr::new("/bin/sh"), OsStr::new("-c"), OsStr::new(s)],
            ),
            CommandLine::Argv(v) => (
                OsStr::new(&v[0]),
                v.iter().map(|a| OsStr::new(a.as_str())).collect(),
            ),
        };
        let argv_own = args
            .iter()
            .map(|a| cstring(a.as_bytes()))
            .collect::<io::Result<Vec<_>>>()?;
        // The added names, the last of each name kept, sorted; then merged with the base.
        let mut added: Vec<(&[u8], CString)> = Vec::with_capacity(env.len());
        for (k, v) in env {
            let kv = pair(k, v)?;
            match added.iter_mut().find(|(n, _)| *n == k.as_bytes()) {
                Some(slot) => slot.1 = kv,
                None => added.push((k.as_bytes(), kv)),
            }
        }
        added.sort_by(|a, b| a.0.cmp(b.0));
        let mut envp = Vec::with_capacity(base.vars.len() + added.len() + 1);
        let mut i = 0;
        for (name, kv) in &base.vars {
            while i < added.len() && added[i].0 < name.as_bytes() {
                envp.push(added[i].1.as_ptr());
                i += 1;
            }
            if i < added.len() && added[i].0 == name.as_bytes() {
                continue;
            }
            envp.push(kv.as_ptr());
        }
        for (_, kv) in &added[i..] {
            envp.push(kv.as_ptr());
        }
        envp.push(std::ptr::null());
        let path_of_task = match added.iter().find(|(n, _)| *n == b"PATH") {
            Some((_, kv)) => Some(kv.as_bytes()),
            None => base.get(b"PATH").map(|kv| kv.as_bytes()),
        }
        .map(|kv| &kv[b"PATH=".len()..]);
        let searched = !program.as_bytes().contains(&b'/');
        let candidates = if !searched {
            vec![cstring(program.as_bytes())?]
        } else if program.is_empty() {
            Vec::new()
        } else {
            let name = cstring(program.as_bytes())?;
            path_of_task
                .unwrap_or(DEFAULT_PATH)
                .split(|&b| b == b':')
                .map(|dir| {
                    if dir.is_empty() {
                        // An empty entry is the working folder.
                        return name.clone();
                    }
                    let mut p = Vec::with_capacity(dir.len() + 1 + program.len());
                    p.extend_from_slice(dir);
                    p.push(b'/');
                    p.extend_from_slice(program.as_bytes());
                    // Neither part holds a NUL (checked above).
                    CString::new(p).unwrap_or_else(|_| name.clone())
                })
                .collect()
        };
        let mut argv: Vec<*const libc::c_char> = argv_own.iter().map(|a| a.as_ptr()).collect();
        argv.push(std::ptr::null());
        let mut sh_argv = vec![c"/bin/sh".as_ptr(), std::ptr::null()];
        sh_argv.extend_from_slice(&argv[1..]);
        let cwd = cstring(cwd.as_os_str().as_bytes())?;
        let pid_ns = walls.is_some_and(|w| w.pid_namespace());
        started_trial_process(pid_ns);
        let err_pipe = if pid_ns {
            let (r, w) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
            Some((r, w))
        } else {
            None
        };
        Ok(Spawn {
            candidates,
            searched,
            _argv: argv_own,
            argv,
            sh_argv: UnsafeCell::new(sh_argv),
            _env: added.into_iter().map(|(_, kv)| kv).collect(),
            envp,
            cwd,
            stdin: dev_null()?,
            stdout: stdout.as_raw_fd(),
            stderr: stderr.as_raw_fd(),
            walls,
            parent: rustix::process::getpid().as_raw_nonzero().get(),
            failed: AtomicI32::new(0),
            stacks: [std::ptr::null_mut(); 2],
            relay: std::ptr::null(),
            err_w: err_pipe.as_ref().map_or(-1, |(_, w)| w.as_raw_fd()),
            err_pipe,
        })
    }

    /// Start the process, the leader of a new process group. Returns when the task has
    /// been `exec`uted (or a step before failed: the error, the child reaped).
    pub(crate) fn spawn(mut self) -> io::Result<Proc> {
        let stacks = Stacks::take()?;
        self.stacks = [stacks.top(1), stacks.top(2)];
        // Boxed, so that its address holds while the waiter lives (it moves with `Proc`).
        let relay = Box::new(Relay::default());
        self.relay = &raw const *relay;
        // Out of `self` before the clone: the child reads `self` (shared memory) until the
        // task's `exec`, so gate changes nothing in it until then.
        let err_pipe = self.err_pipe.take();
        let waiter = err_pipe.is_some();
        // With a PID namespace the first process, the waiter, lives as long as the trial; it
        // shares gate's memory (`CLONE_VM`) but not the calling thread's time: no
        // `CLONE_VFORK`. Without one, the child runs until its `exec` while this thread
        // sleeps (`CLONE_VFORK`), as `posix_spawn` does.
        let flags = if waiter {
            libc::CLONE_VM | libc::SIGCHLD
        } else {
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD
        };
        let this = &self;
        // SAFETY: `child_main` runs on the first of `stacks` (unused by anyone else until
        // they are given back: after the `exec` without a waiter, after the waiter is
        // reaped with one ([`Proc::wait`])) and only reads `this`, which is not changed and
        // outlives the child's reads (until the `exec`: the error pipe's end of file, or
        // the return of the `CLONE_VFORK` clone); signals are blocked around the clone so
        // that no handler of gate's runs in the child, and restored at once.
        let pid = unsafe {
            let mut all: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
            let pid = libc::clone(
                child_main,
                stacks.top(0).cast(),
                flags,
                (&raw const *this).cast_mut().cast(),
            );
            let err = io::Error::last_os_error();
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            if pid < 0 {
                stacks.give_back();
                return Err(err);
            }
            pid
        };
        let (errno, stacks) = match err_pipe {
            None => {
                stacks.give_back();
                (this.failed.load(Ordering::SeqCst), None)
            }
            Some((r, w)) => {
                // Only the trial's processes hold the write end now.
                drop(w);
                let mut buf = [0u8; 4];
                let mut got = 0;
                while got < buf.len() {
                    match rustix::io::read(&r, &mut buf[got..]) {
                        Ok(0) => break,
                        Ok(n) => got += n,
                        Err(Errno::INTR) => {}
                        // The waiter runs on `stacks`: they are not reused (`Stacks` has no
                        // `Drop`: the mapping is left as it is).
                        Err(e) => return Err(e.into()),
                    }
                }
                let errno = if got == buf.len() {
                    i32::from_ne_bytes(buf)
                } else {
                    0
                };
                (errno, Some(stacks))
            }
        };
        let mut proc = Proc {
            pid: pid as u32,
            status: None,
            stacks,
            relay,
        };
        if errno != 0 {
            let _ = proc.wait();
            return Err(io::Error::from_raw_os_error(errno));
        }
        Ok(proc)
    }

    /// Everything the child does; returns only with what failed.
    ///
    /// # Safety
    ///
    /// Only in the child of [`Spawn::spawn`]'s `clone`, with every signal blocked.
    unsafe fn child(&self) -> io::Error {
        // SAFETY (whole body): async-signal-safe system calls on memory prepared before the
        // clone.
        unsafe {
            // gate's handlers (SIGINT, SIGTERM) must not run here; SIGPIPE as `Command`
            // leaves it. (Without CLONE_SIGHAND these are the child's own dispositions.)
            for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGPIPE] {
                libc::signal(sig, libc::SIG_DFL);
            }
            for (fd, to) in [(self.stdin, 0), (self.stdout, 1), (self.stderr, 2)] {
                if libc::dup2(fd, to) < 0 {
                    return io::Error::last_os_error();
                }
            }
            if let Err(e) = rustix::process::chdir(self.cwd.as_c_str()) {
                return e.into();
            }
            if libc::setpgid(0, 0) != 0 {
                return io::Error::last_os_error();
            }
            match self.walls {
                Some(walls) => {
                    // The task of a PID namespace goes on from here, on a stack of its own.
                    let task = |raised: io::Result<()>| {
                        let e = match raised {
                            Ok(()) => self.finish(true),
                            Err(e) => e,
                        };
                        self.fail(e)
                    };
                    // `relay` is boxed by `spawn` and kept until the waiter is reaped.
                    let relay = &*self.relay;
                    match walls.install(self.stacks, relay, &task) {
                        Ok(()) => self.finish(false),
                        Err(e) => e,
                    }
                }
                None => self.finish(false),
            }
        }
    }

    /// The steps after the box: the death signal and its check, the terminal detach, the
    /// signal mask, `exec`. Returns only with what failed.
    unsafe fn finish(&self, in_pid_namespace: bool) -> io::Error {
        // SAFETY (whole body): as in `child`.
        unsafe {
            // If gate dies without killing its trials (SIGKILL, an OOM kill), the kernel
            // kills each trial's first process with it. The death signal fires when the
            // *thread* that started the child ends: every trial process is spawned and
            // waited for by its trial's own thread, which ends only after the process has
            // been reaped. Set after the box, whose credential changes would clear it. If
            // gate died before it, the child has already been re-parented: it must not run.
            if let Err(e) = set_parent_process_death_signal(Some(Signal::KILL)) {
                return e.into();
            }
            // In a trial's PID namespace the parent is the namespace's init; the waiter,
            // gate's child, made this check (`sandbox::pidns`).
            if !in_pid_namespace && getppid().map(|p| p.as_raw_nonzero().get()) != Some(self.parent)
            {
                return io::Error::from_raw_os_error(libc::ESRCH);
            }
            // No controlling terminal: run from a terminal, a task that could open
            // `/dev/tty` could push a command into the user's shell with TIOCSTI, run after
            // gate exits. The child leads its own process group but not a session, so
            // TIOCNOTTY only detaches it (no SIGHUP to anyone); `/dev/tty` then fails with
            // ENXIO in it and in everything it starts. Without a terminal the open fails.
            let tty = libc::open(
                c"/dev/tty".as_ptr(),
                libc::O_RDONLY | libc::O_NOCTTY | libc::O_NONBLOCK | libc::O_CLOEXEC,
            );
            if tty >= 0 {
                let detached = libc::ioctl(tty, libc::TIOCNOTTY);
                libc::close(tty);
                if detached != 0 {
                    return io::Error::last_os_error();
                }
            }
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            libc::pthread_sigmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
            self.exec()
        }
    }

    /// `execvp`'s search over the prepared candidates, with the task's environment.
    unsafe fn exec(&self) -> io::Error {
        // SAFETY (whole body): NULL-terminated vectors of live C strings; the slot written
        // is in a vector prepared for it, read by nobody else meanwhile.
        unsafe {
            let mut eacces = false;
            for path in &self.candidates {
                libc::execve(path.as_ptr(), self.argv.as_ptr(), self.envp.as_ptr());
                let mut e = errno();
                if e == libc::ENOEXEC {
                    let sh = &mut *self.sh_argv.get();
                    sh[1] = path.as_ptr();
                    libc::execve(c"/bin/sh".as_ptr(), sh.as_ptr(), self.envp.as_ptr());
                    e = errno();
                }
                if !self.searched {
                    return io::Error::from_raw_os_error(e);
                }
                match e {
                    libc::EACCES => eacces = true,
                    libc::ENOENT
                    | libc::ESTALE
                    | libc::ENOTDIR
                    | libc::ENODEV
                    | libc::ETIMEDOUT => {}
                    _ => return io::Error::from_raw_os_error(e),
                }
            }
            io::Error::from_raw_os_error(if eacces { libc::EACCES } else { libc::ENOENT })
        }
    }

    /// Report `e` to gate and end the child.
    fn fail(&self, e: io::Error) -> ! {
        let code = e.raw_os_error().filter(|&c| c != 0).unwrap_or(libc::EIO);
        if self.err_w >= 0 {
            // SAFETY: the pipe's write end, open in this process until its `exec` or exit.
            let w = unsafe { std::os::fd::BorrowedFd::borrow_raw(self.err_w) };
            let _ = rustix::io::write(w, &code.to_ne_bytes());
        } else {
            self.failed.store(code, Ordering::SeqCst);
        }
        // SAFETY: ends the child without running gate's destructors.
        unsafe { libc::_exit(1) }
    }
}

/// The child's entry point on its own stack.
extern "C" fn child_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the `Spawn` the parent holds, unchanged, until the task's `exec`.
    let spawn = unsafe { &*(arg as *const Spawn<'_>) };
    // SAFETY: this is that child, signals blocked.
    let e = unsafe { spawn.child() };
    spawn.fail(e)
}

fn errno() -> libc::c_int {
    io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

/// `/dev/null`, opened once per gate process (close-on-exec: the child `dup2`s it to 0).
/// Opened in gate, never in a child: a child sharing gate's memory would leave the
/// descriptor's number here but the descriptor in its own table.
fn dev_null() -> io::Result<RawFd> {
    static NULL: OnceLock<Result<OwnedFd, i32>> = OnceLock::new();
    match NULL.get_or_init(|| {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/null")
            .map(OwnedFd::from)
            .map_err(|e| e.raw_os_error().unwrap_or(libc::ENOENT))
    }) {
        Ok(fd) => Ok(fd.as_raw_fd()),
        Err(e) => Err(io::Error::from_raw_os_error(*e)),
    }
}

/// A started process, reaped by [`Proc::wait`].
#[derive(Debug)]
pub struct Proc {
    pid: u32,
    status: Option<ExitStatus>,
    /// The stacks the waiter and the init of a PID namespace run on in gate's memory, given
    /// back once the waiter is reaped. Dropped unreaped, they stay mapped and unused.
    stacks: Option<Stacks>,
    /// The task's status, when the waiter left it here rather than ending as the task did.
    relay: Box<Relay>,
}

impl Proc {
    /// The process id (and process group id).
    pub fn id(&self) -> u32 {
        self.pid
    }

    /// Wait for the process to end and reap it (once; later calls return the same status).
    pub fn wait(&mut self) -> io::Result<ExitStatus> {
        if let Some(s) = self.status {
            return Ok(s);
        }
        let pid = Pid::from_raw(self.pid as libc::pid_t)
            .ok_or_else(|| io::Error::from_raw_os_error(libc::ECHILD))?;
        loop {
            match rustix::process::waitpid(Some(pid), WaitOptions::empty()) {
                Err(Errno::INTR) => {}
                Err(e) => return Err(e.into()),
                Ok(None) => return Err(io::Error::from_raw_os_error(libc::ECHILD)),
                Ok(Some((_, st))) => {
                    let st = ExitStatus::from_raw(st.as_raw());
                    if let Some(stacks) = self.stacks.take() {
                        stacks.after_waiter(st);
                    }
                    // The waiter exited after leaving the task's status (it is the trial's).
                    let st = self.relay.get().map_or(st, ExitStatus::from_raw);
                    self.status = Some(st);
                    return Ok(st);
                }
            }
        }
    }
}

impl Drop for Proc {
    /// A process dropped unreaped (a panic between its spawn and its reaping) is killed with
    /// its process group and reaped: its trial's thread, kept for later trials, no longer
    /// ends to fire its death signal (review 18, L4). Unreaped, it is still this process's
    /// child, so its pid names it and no other.
    fn drop(&mut self) {
        if self.status.is_some() {
            return;
        }
        if let Some(pid) = Pid::from_raw(self.pid as libc::pid_t) {
            let _ = rustix::process::kill_process_group(pid, Signal::KILL);
            let _ = self.wait();
        }
    }
}

/// Bytes of each child stack (the child's steps need a few KiB), below a guard page.
const STACK_BYTES: usize = 64 * 1024;
/// Stacks per spawn: the child (the waiter), and the init and the task of a PID namespace.
const STACKS: usize = 3;

/// Three child stacks in one mapping, each above a guard page; kept in a pool and reused,
/// so a spawn maps nothing once the lanes have one each.
#[derive(Debug)]
pub(crate) struct Stacks {
    base: *mut u8,
}

// SAFETY: a mapping owned by whoever holds the value; no thread shares it.
unsafe impl Send for Stacks {}

static POOL: Mutex<Vec<Stacks>> = Mutex::new(Vec::new());

impl Stacks {
    fn page() -> usize {
        static PAGE: OnceLock<usize> = OnceLock::new();
        // SAFETY: sysconf reads a constant of the system.
        *PAGE.get_or_init(|| match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
            n if n > 0 => n as usize,
            _ => 4096,
        })
    }

    fn slot() -> usize {
        Self::page() + STACK_BYTES
    }

    fn take() -> io::Result<Stacks> {
        let pooled = POOL.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let stacks = match pooled {
            Some(s) => s,
            None => {
                let len = Self::slot() * STACKS;
                // SAFETY: a fresh anonymous private mapping; the guard pages are made
                // inaccessible inside it.
                let base = unsafe {
                    let p = libc::mmap(
                        std::ptr::null_mut(),
                        len,
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                        -1,
                        0,
                    );
                    if p == libc::MAP_FAILED {
                        return Err(io::Error::last_os_error());
                    }
                    for i in 0..STACKS {
                        libc::mprotect(
                            p.cast::<u8>().add(i * Self::slot()).cast(),
                            Self::page(),
                            libc::PROT_NONE,
                        );
                    }
                    p.cast::<u8>()
                };
                Stacks { base }
            }
        };
        Ok(stacks)
    }

    /// The top (highest address) of stack `i`: stacks grow down.
    pub(crate) fn top(&self, i: usize) -> *mut libc::c_void {
        // SAFETY: within the mapping (`i < STACKS`).
        unsafe { self.base.add((i + 1) * Self::slot()).cast() }
    }

    fn give_back(self) {
        POOL.lock().unwrap_or_else(|e| e.into_inner()).push(self);
    }

    /// The waiter of a PID namespace, which ran on these stacks with its init, has been
    /// reaped with `status`. Having exited, it reaped the init first: the stacks are free.
    /// Killed by a signal (gate's SIGKILL of the group), it may have ended before its init,
    /// which the same SIGKILL (or its death signal) ends at its next return to user mode but
    /// not at a moment gate can wait for: the stacks are unmapped rather than reused, so no
    /// later trial's child ever runs on memory a dying init might still touch.
    fn after_waiter(self, status: ExitStatus) {
        if status.code().is_some() {
            self.give_back();
        } else {
            // SAFETY: the whole mapping of `take`, used by nobody in gate; a dying init that
            // touched it now would fault and die as it is dying anyway.
            unsafe {
                libc::munmap(self.base.cast(), Self::slot() * STACKS);
            }
        }
    }
}

/// A spawn of `argv` with gate's environment, in `/`, its output to `out` (unit tests).
#[cfg(test)]
pub(crate) fn test_spawn<'a>(argv: &[&str], out: &'a std::fs::File) -> Spawn<'a> {
    static BASE: OnceLock<BaseEnv> = OnceLock::new();
    let base = BASE.get_or_init(|| BaseEnv::inherited(&[]));
    let line = CommandLine::Argv(argv.iter().map(|s| s.to_string()).collect());
    Spawn::new(&line, base, &[], Path::new("/"), out, out, None).expect("prepared")
}

#[cfg(test)]
mod tests {
    //! The spawn does what `Command` (the C library's `execvp`) did: the task's own `PATH`,
    //! the `/bin/sh` fallback, the errors, the environment's last-wins merge.

    use super::*;
    use std::io::Read;

    /// Run `line` with `env` over a base of `base`, in `/`; its stdout, or the spawn's error.
    fn run(line: CommandLine, base: &[(&str, &str)], env: &[(&str, &str)]) -> io::Result<String> {
        let _shared = super::super::sys::process_test();
        let base = BaseEnv {
            vars: {
                let mut v: Vec<(OsString, CString)> = base
                    .iter()
                    .map(|(k, v)| (OsString::from(k), pair(k.as_ref(), v.as_ref()).unwrap()))
                    .collect();
                v.sort_by(|a, b| a.0.cmp(&b.0));
                v
            },
        };
        let env: Vec<(&OsStr, &OsStr)> = env
            .iter()
            .map(|(k, v)| (OsStr::new(k), OsStr::new(v)))
            .collect();
        let (mut r, w) = std::io::pipe().unwrap();
        let spawn = Spawn::new(&line, &base, &env, Path::new("/"), &w, &w, None)?;
        let mut proc = spawn.spawn()?;
        drop(w);
        let mut out = String::new();
        r.read_to_string(&mut out).unwrap();
        proc.wait().unwrap();
        Ok(out)
    }

    fn argv(v: &[&str]) -> CommandLine {
        CommandLine::Argv(v.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn a_bare_program_is_searched_in_the_tasks_own_path_not_gates() {
        let dir = tempfile::tempdir().unwrap();
        let prog = dir.path().join("only-here");
        std::fs::write(&prog, "#!/bin/sh\necho found \"$1\"\n").unwrap();
        std::fs::set_permissions(&prog, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let path = format!("/nonexistent:{}", dir.path().display());
        let out = run(
            argv(&["only-here", "x"]),
            &[("PATH", "/bin")],
            &[("PATH", &path)],
        );
        assert_eq!(out.unwrap(), "found x\n");
        // Not in the task's PATH: not found, whatever gate's own PATH holds.
        let e = run(
            argv(&["only-here"]),
            &[("PATH", &path)],
            &[("PATH", "/bin")],
        )
        .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn a_script_without_a_shebang_is_run_by_the_shell_as_execvp_does() {
        let dir = tempfile::tempdir().unwrap();
        let prog = dir.path().join("plain");
        std::fs::write(&prog, "echo plain ran \"$@\"\n").unwrap();
        std::fs::set_permissions(&prog, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let p = prog.to_str().unwrap();
        assert_eq!(
            run(argv(&[p, "a", "b"]), &[], &[]).unwrap(),
            "plain ran a b\n"
        );
    }

    #[test]
    fn a_file_found_but_not_executable_is_permission_denied_not_not_found() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("noexec"), "echo x\n").unwrap();
        let path = dir.path().display().to_string();
        let e = run(argv(&["noexec"]), &[], &[("PATH", &path)]).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EACCES));
        let e = run(argv(&["/nonexistent/x"]), &[], &[]).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn the_added_names_override_the_base_and_the_last_of_a_name_wins() {
        let out = run(
            CommandLine::Shell("echo \"$A $B $C $D\"".into()),
            &[("A", "base-a"), ("B", "base-b"), ("D", "base-d")],
            &[("B", "first"), ("C", "c"), ("B", "second")],
        )
        .unwrap();
        assert_eq!(out, "base-a second c base-d\n");
    }

    #[test]
    fn a_nul_byte_fails_the_spawn_as_command_did() {
        let e = run(argv(&["/bin/true", "a\0b"]), &[], &[]).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(e.to_string(), "nul byte found in provided data");
    }
}
