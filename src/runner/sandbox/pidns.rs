//! A PID namespace per trial process: every descendant dies with it, however it detaches.
//!
//! A task can leave its process group (`setsid`, a double fork) and so escape the group kill;
//! gate then adopts the orphans (a subreaper) and kills them round by round, which a chain of
//! detached processes longer than the rounds, or one that forks faster than they run,
//! outlived (issue 29, break 9). Here each process gate starts for a trial runs as the
//! second process of a PID namespace of its own. When the namespace's first process ends,
//! the kernel kills every process left in it, and none can leave it.
//!
//! Three processes, all made between `clone` and `exec` of the task with async-signal-safe
//! system calls only (the namespaces of the box's mount layer already entered, so this
//! holds as root and, in a user namespace, as any user):
//!
//! - the **waiter**, gate's child: it enters the new PID namespace for its children and
//!   starts the init. It closes every descriptor (gate's pipes among them: the task's output
//!   ends when the task's processes end, and gate's spawn learns of the `exec`), ignores the
//!   terminating signals gate sends to the trial's process group (SIGKILL still ends it), and
//!   when the init ends exits as the task did: the same code, or killed by the same signal
//!   (a signal that dumps core is left in gate's memory instead, [`Relay`]: a core dump
//!   would kill gate with the waiter on kernels before 5.16).
//! - the **init**, pid 1 of the namespace, dies with the waiter (`PR_SET_PDEATHSIG`), mounts
//!   a `/proc` of the namespace in a mount namespace of its own (the task sees its own
//!   processes only; where the kernel refuses the mount, the old `/proc` stays), forwards
//!   SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 to every process of the
//!   namespace (an init ignores a signal it has no handler for, so the grace of a
//!   cancellation still reaches the task), reaps, and when the task ends leaves its wait
//!   status in the memory it shares with the waiter and exits, which ends the namespace.
//! - the **task**, pid 2, which goes on to raise the rest of the box and `exec`.
//!
//! Before the forks the waiter also enters an IPC namespace of its own and mounts a fresh
//! tmpfs over `/dev/shm`, so that no trial process shares shared memory, semaphores or
//! message queues with another (a compare's head with base above all; review 5, K1).
//!
//! None of the three is a copy of gate. The waiter is gate's child started by the C library's
//! `clone` of a function of ours ([`crate::runner::spawn`]) with `CLONE_VM`: it shares
//! gate's memory for as long as the trial lives, on a stack of its own that gate gives back
//! only once the waiter is reaped. The init shares that memory too (`CLONE_VM`), and the task
//! until its `exec` (`CLONE_VM | CLONE_VFORK`; the init sleeps meanwhile). Copying gate for
//! the waiter (a fork) was the largest single cost of a boxed trial (docs/performance.md).
//! Each has its own descriptor table and signal dispositions (no `CLONE_FILES`, no
//! `CLONE_SIGHAND`). They run at once with gate's threads in one memory, each on its own
//! stack, writing nothing of gate's: they call only system calls that return their error
//! (through `rustix`) where they read it, and from the moment gate's spawn returns (the
//! task's `exec`) none that writes `errno` on failure, which they share with the gate
//! thread that started them (the C library's `errno` is that thread's).
//!
//! The task cannot reach that memory through the waiter or the init: the waiter is outside
//! the task's PID namespace, and both keep the capabilities the task drops before its
//! `exec` (the mount layer's), so the kernel refuses the task `ptrace`, `/proc/PID/mem`,
//! `process_vm_readv` and `pidfd_getfd` on them (a tracer's capabilities must include its
//! tracee's), as it refuses them on gate itself; Landlock's domain refuses them again where
//! it is in force.
//!
//! The system calls go through `rustix` where it wraps them (raw system calls, no
//! allocation for `&CStr` arguments); `clone`, `close_range`, the signal dispositions and
//! mask, and `_exit` stay on `libc`.

use std::io;
use std::os::fd::BorrowedFd;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use rustix::fs::FileType;
use rustix::io::Errno;
use rustix::mount::{MountFlags, mount};
use rustix::process::{
    Pid, Resource, Rlimit, Signal, WaitOptions, getppid, set_parent_process_death_signal,
    setrlimit, waitpid,
};
use rustix::thread::{UnshareFlags, unshare_unsafe};

use crate::runner::spawn::Relay;

/// The signals whose default action dumps core (signal(7)).
const CORE_DUMPING: [libc::c_int; 10] = [
    libc::SIGQUIT,
    libc::SIGILL,
    libc::SIGTRAP,
    libc::SIGABRT,
    libc::SIGBUS,
    libc::SIGFPE,
    libc::SIGSEGV,
    libc::SIGXCPU,
    libc::SIGXFSZ,
    // Also the seccomp filter's kill.
    libc::SIGSYS,
];

/// The signals the init forwards to every process of the namespace.
const FORWARDED: [libc::c_int; 6] = [
    libc::SIGTERM,
    libc::SIGINT,
    libc::SIGHUP,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
];

/// What the init and the task read, on the waiter's stack (which they share).
struct Shared<'a> {
    /// The task's wait status, written by the init before it exits (set: `relayed`), read
    /// by the waiter once it has reaped the init (the init's exit orders the two).
    status: AtomicI32,
    relayed: AtomicBool,
    task_stack: *mut libc::c_void,
    task: &'a dyn Fn(),
}

/// Split the calling process (gate's child, between `fork` and `exec`, every signal
/// blocked) into the waiter, the init and the task (see the module doc). The task runs
/// `task` (which must end with `exec` or `_exit`), on `stacks[1]`; the init runs on `stacks[0]`. Returns only with the error that
/// kept the split from being made (in the calling process); `gate` is gate's pid. Needs
/// `CAP_SYS_ADMIN` in the current user namespace (call it before the capabilities are
/// dropped).
///
/// # Safety
///
/// Call only in a child between `fork` and `exec`, with every signal blocked; `stacks` are
/// two stacks of this process's memory that nothing else uses. The waiter and the init
/// never return and end with `_exit`.
pub unsafe fn split(
    gate: libc::pid_t,
    stacks: [*mut libc::c_void; 2],
    relay: &Relay,
    task: &dyn Fn(),
) -> io::Error {
    // SAFETY (whole body): async-signal-safe system calls on stack memory only.
    unsafe {
        // Entering a user namespace cleared the death signal: set it again, then make sure
        // gate did not die meanwhile.
        if let Err(e) = set_parent_process_death_signal(Some(Signal::KILL)) {
            return e.into();
        }
        if getppid().map(|p| p.as_raw_nonzero().get()) != Some(gate) {
            return io::Error::from_raw_os_error(libc::ESRCH);
        }
        // A mount namespace of the trial's own, for the init's `/proc` and a `/dev/shm` of
        // its own; an IPC namespace of its own (System V shared memory, semaphores, message
        // queues, POSIX message queues). Otherwise these are the machine's, shared by every
        // trial: a compare's head could leave state there for base to read (review 5, K1),
        // and one trial for the next.
        // (No `UnshareFlags::FILES`, the reason rustix marks `unshare` unsafe.)
        if let Err(e) =
            unshare_unsafe(UnshareFlags::NEWPID | UnshareFlags::NEWNS | UnshareFlags::NEWIPC)
        {
            return e.into();
        }
        // A fresh, empty tmpfs over `/dev/shm` (where the machine has one): what a trial
        // leaves there dies with it. Not best effort: the sandbox line says it is private.
        if rustix::fs::stat(c"/dev/shm")
            .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Directory)
            && let Err(e) = mount(
                c"tmpfs",
                c"/dev/shm",
                c"tmpfs",
                MountFlags::NOSUID | MountFlags::NODEV,
                c"mode=1777",
            )
        {
            return e.into();
        }
        let shared = Shared {
            status: AtomicI32::new(0),
            relayed: AtomicBool::new(false),
            task_stack: stacks[1],
            task,
        };
        let arg = (&raw const shared).cast_mut().cast();
        let init = libc::clone(init_main, stacks[0], libc::CLONE_VM | libc::SIGCHLD, arg);
        if init < 0 {
            return io::Error::last_os_error();
        }
        waiter(init, &shared, relay)
    }
}

/// The init's entry point (pid 1 of the namespace), on its own stack in the waiter's memory.
extern "C" fn init_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the `Shared` on the waiter's stack, which lives until the waiter
    // ends (it never returns from `split`); async-signal-safe calls only.
    unsafe {
        let shared = &*(arg as *const Shared<'_>);
        let _ = set_parent_process_death_signal(Some(Signal::KILL));
        // The task sees the processes of its namespace only. Best effort: a kernel may
        // refuse a new `/proc` in a user namespace (one partly covered, in a container).
        let _ = mount(
            c"proc",
            c"/proc",
            c"proc",
            MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
            None::<&std::ffi::CStr>,
        );
        let task = libc::clone(
            task_main,
            shared.task_stack,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            arg,
        );
        if task < 0 {
            libc::_exit(127);
        }
        // The init's core dump would be gate's memory, which it shares: none, and no
        // raising it back (the task has no CAP_SYS_RESOURCE; review 18, L1). Set after the
        // task's clone, so that the task keeps its own limit.
        let _ = setrlimit(
            Resource::Core,
            Rlimit {
                current: Some(0),
                maximum: Some(0),
            },
        );
        reaper(task, shared)
    }
}

/// The task's entry point (pid 2): goes on to raise the rest of the box and `exec`.
extern "C" fn task_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: as in `init_main`; the task has its own descriptor table.
    unsafe {
        let shared = &*(arg as *const Shared<'_>);
        (shared.task)();
        // `task` ends with `exec` or `_exit`; should it ever return, the task ends here.
        libc::_exit(127)
    }
}

/// Close every descriptor.
unsafe fn close_all() {
    // SAFETY: closing descriptors of this process only.
    unsafe {
        if libc::syscall(
            libc::SYS_close_range,
            0 as libc::c_uint,
            libc::c_uint::MAX,
            0 as libc::c_uint,
        ) != 0
        {
            // Kernels before 5.9: rustix's raw `close`, which writes no `errno` for the
            // descriptors that are not open (review 18, L3).
            for fd in 0..4096 {
                if rustix::io::fcntl_getfd(BorrowedFd::borrow_raw(fd)).is_ok() {
                    rustix::io::close(fd);
                }
            }
        }
    }
}

/// The waiter: wait for the init, then end as the task ended.
unsafe fn waiter(init: libc::pid_t, shared: &Shared<'_>, relay: &Relay) -> ! {
    // SAFETY: async-signal-safe calls on stack memory (`shared` is on this stack).
    unsafe {
        close_all();
        for sig in FORWARDED {
            libc::signal(sig, libc::SIG_IGN);
        }
        unblock_all();
        let init_status = loop {
            match waitpid(Pid::from_raw(init), WaitOptions::empty()) {
                Err(Errno::INTR) => {}
                Ok(Some((_, status))) => break status.as_raw(),
                _ => break 0,
            }
        };
        let status = if shared.relayed.load(Ordering::SeqCst) {
            shared.status.load(Ordering::SeqCst)
        } else {
            // The init was killed (gate's SIGKILL of the group): end the same way.
            init_status
        };
        if libc::WIFEXITED(status) {
            libc::_exit(libc::WEXITSTATUS(status));
        }
        if libc::WIFSIGNALED(status) {
            let sig = libc::WTERMSIG(status);
            // A signal whose default action dumps core must not end the waiter: before
            // Linux 5.16 a core dump kills every process that shares the dumping one's
            // memory, and the waiter shares gate's (a task that died of SIGSEGV would have
            // killed gate with it, whatever the core limit). The status is left in gate's
            // memory instead, which gate reads once it has reaped the waiter.
            if CORE_DUMPING.contains(&sig) {
                relay.set(status);
                libc::_exit(128 + sig);
            }
            let _ = setrlimit(
                Resource::Core,
                Rlimit {
                    current: Some(0),
                    maximum: Some(0),
                },
            );
            // SIGKILL's and SIGSTOP's action cannot be set: the call would fail and write
            // `errno` (the C library's, gate's thread's: review 18, L3).
            if sig != libc::SIGKILL && sig != libc::SIGSTOP {
                libc::signal(sig, libc::SIG_DFL);
            }
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, sig);
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            libc::kill(libc::getpid(), sig);
            libc::_exit(128 + sig);
        }
        libc::_exit(127)
    }
}

/// The init's handler: pass the signal on to every other process of the namespace.
extern "C" fn forward(sig: libc::c_int) {
    // `kill(-1, sig)`: in an init, every process of its namespace but itself. Through
    // rustix's raw system call, not the C library's: a failure (ESRCH once the task is gone)
    // must not write `errno`, which lives in the thread of gate that started the trial
    // (the init shares gate's memory and that thread's TLS) and which that thread may be
    // reading at this moment.
    if let Some(sig) = Signal::from_named_raw(sig) {
        let _ = rustix::process::kill_process_group(Pid::INIT, sig);
    }
}

/// The init: forward signals, reap, and when the task ends hand its status over and exit.
unsafe fn reaper(task: libc::pid_t, shared: &Shared<'_>) -> ! {
    // SAFETY: async-signal-safe calls on stack memory (`shared` is on the waiter's stack,
    // which lives until the waiter has reaped this process); `forward` is a plain handler.
    unsafe {
        close_all();
        for sig in FORWARDED {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = forward as extern "C" fn(libc::c_int) as usize;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
        unblock_all();
        loop {
            // rustix's wait returns its error: `errno` is shared with the waiter.
            match waitpid(None, WaitOptions::empty()) {
                Ok(Some((pid, status))) if pid.as_raw_nonzero().get() == task => {
                    shared.status.store(status.as_raw(), Ordering::SeqCst);
                    shared.relayed.store(true, Ordering::SeqCst);
                    // Every other process of the namespace is killed as the init exits.
                    libc::_exit(0);
                }
                Ok(_) | Err(Errno::INTR) => {}
                Err(_) => libc::_exit(127),
            }
        }
    }
}

/// An empty signal mask: the spawn blocked every signal before the `clone`s.
unsafe fn unblock_all() {
    // SAFETY: changes this process's signal mask only.
    unsafe {
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
    }
}
