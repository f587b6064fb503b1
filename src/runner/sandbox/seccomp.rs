//! The seccomp fallback of the signal wall (Landlock ABI below 6): a classic BPF program that
//! refuses the signals a task aims at gate.

use std::fs;

// Classic BPF, as seccomp runs it (include/uapi/linux/{filter,seccomp,audit}.h).
const BPF_LD_W_ABS: u16 = 0x20;
const BPF_JEQ_K: u16 = 0x15;
const BPF_JGE_K: u16 = 0x35;
const BPF_JA: u16 = 0x05;
const BPF_RET_K: u16 = 0x06;
const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;
const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
/// Offsets in `struct seccomp_data`.
const DATA_NR: u32 = 0;
const DATA_ARCH: u32 = 4;
/// The low 32 bits of the first argument (little-endian targets only).
const DATA_ARG0_LOW: u32 = 16;

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;
/// x32 system calls on x86_64 carry this bit; refused.
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

fn stmt(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jeq(k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter {
        code: BPF_JEQ_K,
        jt,
        jf,
        k,
    }
}

/// The seccomp program that keeps a task's signals off gate (kernels without Landlock
/// signal scoping): see the module doc. Built per attempt, because it names the threads of
/// gate alive at that moment (a pre-6.9 kernel lets `kill` take a thread's id).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(super) fn signal_filter() -> Vec<libc::sock_filter> {
    let eperm = SECCOMP_RET_ERRNO | libc::EPERM as u32;
    let enosys = SECCOMP_RET_ERRNO | libc::ENOSYS as u32;
    // SAFETY: getpid and getpgrp only return ids.
    let (pid, pgid) = unsafe { (libc::getpid(), libc::getpgrp()) };
    // Pid 1 too: in a trial's PID namespace (`pidns`) it is gate's init there, which
    // forwards the signals it handles to the whole namespace and silently drops the others
    // (a `kill -STOP 1` would look like it worked); without the namespace, the host's init.
    let mut targets = vec![
        pid as u32,
        (-pgid) as u32,
        u32::MAX, // -1: everyone
        1,
    ];
    if let Ok(tasks) = fs::read_dir("/proc/self/task") {
        targets.extend(
            tasks
                .flatten()
                .filter_map(|t| t.file_name().to_str()?.parse::<u32>().ok()),
        );
    }
    targets.sort_unstable();
    targets.dedup();
    let mut p = vec![
        stmt(BPF_LD_W_ABS, DATA_ARCH),
        // A foreign architecture's system calls (i386 through int 0x80) would bypass the
        // numbers below: refused.
        jeq(AUDIT_ARCH, 1, 0),
        stmt(BPF_RET_K, enosys),
        stmt(BPF_LD_W_ABS, DATA_NR),
        libc::sock_filter {
            code: BPF_JGE_K,
            jt: 0,
            jf: 1,
            k: X32_SYSCALL_BIT,
        },
        stmt(BPF_RET_K, enosys),
    ];
    let aimed = [
        libc::SYS_kill,
        libc::SYS_tgkill,
        libc::SYS_rt_sigqueueinfo,
        libc::SYS_rt_tgsigqueueinfo,
    ];
    // The jump to the pid check is patched once its position is known.
    let mut to_check = Vec::new();
    for nr in aimed {
        p.push(jeq(nr as u32, 0, 1));
        to_check.push(p.len());
        p.push(stmt(BPF_JA, 0));
    }
    p.push(jeq(libc::SYS_tkill as u32, 0, 1));
    p.push(stmt(BPF_RET_K, eperm));
    p.push(jeq(libc::SYS_pidfd_send_signal as u32, 0, 1));
    p.push(stmt(BPF_RET_K, enosys));
    p.push(stmt(BPF_RET_K, SECCOMP_RET_ALLOW));
    let check = p.len();
    for at in to_check {
        p[at].k = (check - at - 1) as u32;
    }
    p.push(stmt(BPF_LD_W_ABS, DATA_ARG0_LOW));
    for t in targets {
        p.push(jeq(t, 0, 1));
        p.push(stmt(BPF_RET_K, eperm));
    }
    p.push(stmt(BPF_RET_K, SECCOMP_RET_ALLOW));
    p
}

/// No seccomp program on other architectures: the walls record says so
/// ([`super::walls`] finds no filter to install).
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(super) fn signal_filter() -> Vec<libc::sock_filter> {
    Vec::new()
}
