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

use std::io;
use std::sync::atomic::Ordering;

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
        if libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        ) != 0
        {
            return Err(io::Error::last_os_error());
        }
        if libc::getppid() != gate {
            return Err(io::Error::from_raw_os_error(libc::ESRCH));
        }
        // A mount namespace of the trial's own, for the init's `/proc` and a `/dev/shm` of
        // its own; an IPC namespace of its own (System V shared memory, semaphores, message
        // queues, POSIX message queues). Otherwise these are the machine's, shared by every
        // trial: a compare's head could leave state there for base to read (review 5, K1),
        // and one trial for the next.
        if libc::unshare(libc::CLONE_NEWPID | libc::CLONE_NEWNS | libc::CLONE_NEWIPC) != 0 {
            return Err(io::Error::last_os_error());
        }
        // A fresh, empty tmpfs over `/dev/shm` (where the machine has one): what a trial
        // leaves there dies with it. Not best effort: the sandbox line says it is private.
        let mut st: libc::stat = std::mem::zeroed();
        if libc::stat(c"/dev/shm".as_ptr(), &mut st) == 0
            && st.st_mode & libc::S_IFMT == libc::S_IFDIR
            && libc::mount(
                c"tmpfs".as_ptr(),
                c"/dev/shm".as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV,
                c"mode=1777".as_ptr().cast(),
            ) != 0
        {
            return Err(io::Error::last_os_error());
        }
        let mut status = [0 as libc::c_int; 2];
        if libc::pipe2(status.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(io::Error::last_os_error());
        }
        let [status_r, status_w] = status;
        let init = raw_fork();
        if init < 0 {
            return Err(io::Error::last_os_error());
        }
        if init > 0 {
            waiter(init, status_r);
        }
        // The init.
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        );
        libc::close(status_r);
        // The task sees the processes of its namespace only. Best effort: a kernel may
        // refuse a new `/proc` in a user namespace (one partly covered, in a container).
        libc::mount(
            c"proc".as_ptr(),
            c"/proc".as_ptr(),
            c"proc".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            std::ptr::null(),
        );
        let task = raw_fork();
        if task < 0 {
            libc::_exit(127);
        }
        if task > 0 {
            reaper(task, status_w);
        }
        libc::close(status_w);
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
unsafe fn waiter(init: libc::pid_t, status_r: libc::c_int) -> ! {
    // SAFETY: async-signal-safe calls on stack memory.
    unsafe {
        close_all_but(status_r);
        for sig in FORWARDED {
            libc::signal(sig, libc::SIG_IGN);
        }
        let mut buf = [0u8; 4];
        let mut got = 0usize;
        while got < buf.len() {
            let n = libc::read(status_r, buf[got..].as_mut_ptr().cast(), buf.len() - got);
            if n > 0 {
                got += n as usize;
            } else if n == 0 || *libc::__errno_location() != libc::EINTR {
                break;
            }
        }
        let mut init_status = 0;
        while libc::waitpid(init, &mut init_status, 0) < 0
            && *libc::__errno_location() == libc::EINTR
        {}
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
            let none = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &none);
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
unsafe fn reaper(task: libc::pid_t, status_w: libc::c_int) -> ! {
    // SAFETY: async-signal-safe calls on stack memory; `forward` is a plain handler.
    unsafe {
        close_all_but(status_w);
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
                let bytes = status.to_ne_bytes();
                libc::write(status_w, bytes.as_ptr().cast(), bytes.len());
                // Every other process of the namespace is killed as the init exits.
                libc::_exit(0);
            }
            if pid < 0 && *libc::__errno_location() != libc::EINTR {
                libc::_exit(127);
            }
        }
    }
}
