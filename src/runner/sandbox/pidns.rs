//! A PID namespace per trial process: every descendant dies with it, however it detaches.
//!
//! A task can leave its process group (`setsid`, a double fork) and so escape the group kill;
//! gate then adopts the orphans (a subreaper) and kills them round by round, which a chain of
//! detached processes longer than the rounds, or one that forks faster than they run,
//! outlived (issue 29, break 9). Here each process gate starts for a trial runs as the
//! second process of a PID namespace of its own. When the namespace's first process ends,
//! the kernel kills every process left in it, and none can leave it.
//!
//! Three processes, all made between `fork` and `exec` of the task with async-signal-safe
//! system calls only (the namespaces of the box's mount layer already entered, so this
//! holds as root and, in a user namespace, as any user):
//!
//! - the **waiter**, gate's child: it enters the new PID namespace for its children and
//!   forks the init. It closes every descriptor (gate's pipes among them: the task's output
//!   ends when the task's processes end, and gate's spawn learns of the `exec`), ignores the
//!   terminating signals gate sends to the trial's process group (SIGKILL still ends it), and
//!   when the init ends exits as the task did: the same code, or killed by the same signal.
//! - the **init**, pid 1 of the namespace, dies with the waiter (`PR_SET_PDEATHSIG`), mounts
//!   a `/proc` of the namespace in a mount namespace of its own (the task sees its own
//!   processes only; where the kernel refuses the mount, the old `/proc` stays), forwards
//!   SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 to every process of the
//!   namespace (an init ignores a signal it has no handler for, so the grace of a
//!   cancellation still reaches the task), reaps, and when the task ends hands its wait
//!   status to the waiter and exits, which ends the namespace.
//! - the **task**, pid 2, which goes on to raise the rest of the box and `exec`.
//!
//! Before the forks the waiter also enters an IPC namespace of its own and mounts a fresh
//! tmpfs over `/dev/shm`, so that no trial process shares shared memory, semaphores or
//! message queues with another (a compare's head with base above all; review 5, K1).
//!
//! The forks are raw `clone(SIGCHLD)` calls: after a `fork` of a multi-threaded gate, the C
//! library's `fork` could wait for a lock another thread of gate held.
//!
//! The system calls go through `rustix` where it wraps them (raw system calls, no
//! allocation for `&CStr` arguments); the raw `clone`, `close_range`, the signal
//! dispositions and mask, and `_exit` stay on `libc`.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::Ordering;

use rustix::fs::FileType;
use rustix::io::Errno;
use rustix::mount::{MountFlags, mount};
use rustix::pipe::{PipeFlags, pipe_with};
use rustix::process::{
    Pid, Resource, Rlimit, Signal, WaitOptions, getppid, set_parent_process_death_signal,
    setrlimit, waitpid,
};
use rustix::thread::{UnshareFlags, unshare_unsafe};

use crate::runner::sys::IN_PID_NAMESPACE;

/// The signals the init forwards to every process of the namespace.
const FORWARDED: [libc::c_int; 6] = [
    libc::SIGTERM,
    libc::SIGINT,
    libc::SIGHUP,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
];

/// Split the calling process (gate's child, between `fork` and `exec`) into the waiter, the
/// init and the task (see the module doc). Returns in the task only; `gate` is gate's pid.
/// Needs `CAP_SYS_ADMIN` in the current user namespace (call it before the capabilities are
/// dropped).
///
/// # Safety
///
/// Call only in a child between `fork` and `exec`: the waiter and the init never return and
/// end with `_exit`.
pub unsafe fn split(gate: libc::pid_t) -> io::Result<()> {
    // SAFETY (whole body): async-signal-safe system calls on stack memory only.
    unsafe {
        // Entering a user namespace cleared the death signal: set it again, then make sure
        // gate did not die meanwhile.
        set_parent_process_death_signal(Some(Signal::KILL))?;
        if getppid().map(|p| p.as_raw_nonzero().get()) != Some(gate) {
            return Err(io::Error::from_raw_os_error(libc::ESRCH));
        }
        // A mount namespace of the trial's own, for the init's `/proc` and a `/dev/shm` of
        // its own; an IPC namespace of its own (System V shared memory, semaphores, message
        // queues, POSIX message queues). Otherwise these are the machine's, shared by every
        // trial: a compare's head could leave state there for base to read (review 5, K1),
        // and one trial for the next.
        // (No `UnshareFlags::FILES`, the reason rustix marks `unshare` unsafe.)
        unshare_unsafe(UnshareFlags::NEWPID | UnshareFlags::NEWNS | UnshareFlags::NEWIPC)?;
        // A fresh, empty tmpfs over `/dev/shm` (where the machine has one): what a trial
        // leaves there dies with it. Not best effort: the sandbox line says it is private.
        if rustix::fs::stat(c"/dev/shm")
            .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Directory)
        {
            mount(
                c"tmpfs",
                c"/dev/shm",
                c"tmpfs",
                MountFlags::NOSUID | MountFlags::NODEV,
                c"mode=1777",
            )?;
        }
        let (status_r, status_w) = pipe_with(PipeFlags::CLOEXEC)?;
        let init = raw_fork();
        if init < 0 {
            return Err(io::Error::last_os_error());
        }
        if init > 0 {
            waiter(init, status_r);
        }
        // The init.
        let _ = set_parent_process_death_signal(Some(Signal::KILL));
        drop(status_r);
        // The task sees the processes of its namespace only. Best effort: a kernel may
        // refuse a new `/proc` in a user namespace (one partly covered, in a container).
        let _ = mount(
            c"proc",
            c"/proc",
            c"proc",
            MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
            None::<&std::ffi::CStr>,
        );
        let task = raw_fork();
        if task < 0 {
            libc::_exit(127);
        }
        if task > 0 {
            reaper(task, status_w);
        }
        drop(status_w);
        IN_PID_NAMESPACE.store(true, Ordering::SeqCst);
        Ok(())
    }
}

/// `fork` without the C library's fork handlers: a `clone` with SIGCHLD only.
unsafe fn raw_fork() -> libc::pid_t {
    // SAFETY: clone with no new stack behaves as fork; the caller runs only
    // async-signal-safe code afterwards.
    unsafe {
        libc::syscall(
            libc::SYS_clone,
            libc::SIGCHLD as libc::c_ulong,
            0usize,
            0usize,
            0usize,
            0usize,
        ) as libc::pid_t
    }
}

/// Close every descriptor but `keep`.
unsafe fn close_all_but(keep: libc::c_int) {
    // SAFETY: closing descriptors of this process only.
    unsafe {
        let all = libc::c_uint::MAX;
        let k = keep as libc::c_uint;
        if k > 0 {
            libc::syscall(
                libc::SYS_close_range,
                0 as libc::c_uint,
                k - 1,
                0 as libc::c_uint,
            );
        }
        if libc::syscall(libc::SYS_close_range, k + 1, all, 0 as libc::c_uint) != 0 {
            // Kernels before 5.9.
            for fd in 0..4096 {
                if fd != keep {
                    libc::close(fd);
                }
            }
        }
    }
}

/// The waiter: wait for the init, then end as the task ended.
unsafe fn waiter(init: libc::pid_t, status_r: OwnedFd) -> ! {
    // SAFETY: async-signal-safe calls on stack memory.
    unsafe {
        close_all_but(status_r.as_raw_fd());
        for sig in FORWARDED {
            libc::signal(sig, libc::SIG_IGN);
        }
        let mut buf = [0u8; 4];
        let mut got = 0usize;
        while got < buf.len() {
            match rustix::io::read(&status_r, &mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(Errno::INTR) => {}
                Err(_) => break,
            }
        }
        let init_status = loop {
            match waitpid(Pid::from_raw(init), WaitOptions::empty()) {
                Err(Errno::INTR) => {}
                Ok(Some((_, status))) => break status.as_raw(),
                _ => break 0,
            }
        };
        let status = if got == buf.len() {
            libc::c_int::from_ne_bytes(buf)
        } else {
            // The init was killed (gate's SIGKILL of the group): end the same way.
            init_status
        };
        if libc::WIFEXITED(status) {
            libc::_exit(libc::WEXITSTATUS(status));
        }
        if libc::WIFSIGNALED(status) {
            let sig = libc::WTERMSIG(status);
            let _ = setrlimit(
                Resource::Core,
                Rlimit {
                    current: Some(0),
                    maximum: Some(0),
                },
            );
            libc::signal(sig, libc::SIG_DFL);
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
    // SAFETY: kill is async-signal-safe; -1 in an init means every process of its
    // namespace but itself.
    unsafe {
        libc::kill(-1, sig);
    }
}

/// The init: forward signals, reap, and when the task ends hand its status over and exit.
unsafe fn reaper(task: libc::pid_t, status_w: OwnedFd) -> ! {
    // SAFETY: async-signal-safe calls on stack memory; `forward` is a plain handler.
    unsafe {
        close_all_but(status_w.as_raw_fd());
        for sig in FORWARDED {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = forward as extern "C" fn(libc::c_int) as usize;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
        loop {
            let mut status = 0;
            let pid = libc::waitpid(-1, &mut status, 0);
            if pid == task {
                let _ = rustix::io::write(&status_w, &status.to_ne_bytes());
                // Every other process of the namespace is killed as the init exits.
                libc::_exit(0);
            }
            if pid < 0 && *libc::__errno_location() != libc::EINTR {
                libc::_exit(127);
            }
        }
    }
}
