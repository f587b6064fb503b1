//! The seccomp fallback of the signal wall (Landlock ABI below 6): the programs that refuse
//! the signals a task aims at gate.
//!
//! The decisions are expressed with `seccompiler` (rust-vmm's maintained filter builder):
//! `kill`, `tgkill`, `rt_sigqueueinfo` and `rt_tgsigqueueinfo` whose first argument (its low
//! 32 bits, as the kernel reads a `pid_t`) names a target answer `EPERM`, `tkill` answers
//! `EPERM`, `pidfd_send_signal` answers `ENOSYS` (callers fall back to `kill`, which the
//! filter sees), everything else is allowed. A seccompiler filter has one action on a match,
//! so the `ENOSYS` answer is a program of its own; the kernel runs every program installed
//! and the refusal wins over an allow.
//!
//! Each program starts with gate's own guard of four instructions, kept hand-written because
//! seccompiler does not express it: a system call of a foreign architecture (i386 through
//! `int 0x80` on x86_64) or an x32 call (the `__X32_SYSCALL_BIT` numbers, which carry the
//! x86_64 audit architecture and would match none of the numbers above) answers `ENOSYS`.
//! seccompiler's own architecture check, which follows, then always passes (its
//! `KILL_PROCESS` on a foreign architecture is never reached).

use std::collections::BTreeMap;
use std::fs;
use std::io;

use seccompiler::{
    BackendError, BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition,
    SeccompFilter, SeccompRule, sock_filter,
};

// The child hands seccompiler's instructions to the kernel as `libc::sock_filter`.
const _: () = assert!(
    size_of::<sock_filter>() == size_of::<libc::sock_filter>()
        && align_of::<sock_filter>() == align_of::<libc::sock_filter>()
);

/// The kernel's limit on one program (`BPF_MAXINSNS`).
const MAX_LEN: usize = 4096;

// Classic BPF and `struct seccomp_data`, for the guard only
// (include/uapi/linux/{bpf_common,seccomp,audit}.h).
const BPF_LD_W_ABS: u16 = 0x20;
const BPF_JEQ_K: u16 = 0x15;
const BPF_JGE_K: u16 = 0x35;
const BPF_RET_K: u16 = 0x06;
const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
const DATA_NR: u32 = 0;
const DATA_ARCH: u32 = 4;

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;
/// x32 system calls on x86_64 carry this bit; refused.
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// The system calls that take a pid (or a tgid) as their first argument and can signal it.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
const AIMED: [libc::c_long; 4] = [
    libc::SYS_kill,
    libc::SYS_tgkill,
    libc::SYS_rt_sigqueueinfo,
    libc::SYS_rt_tgsigqueueinfo,
];

/// The seccomp programs that keep a task's signals off gate (kernels without Landlock signal
/// scoping), to be installed in order: see the module doc. Built per attempt, because they
/// name the threads of gate alive at that moment (a pre-6.9 kernel lets `kill` take a
/// thread's id).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(super) fn signal_filters() -> io::Result<Vec<BpfProgram>> {
    let pid = rustix::process::getpid().as_raw_nonzero().get();
    let pgid = rustix::process::getpgrp().as_raw_nonzero().get();
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
    filters_for(&targets)
        .map_err(|e| io::Error::other(format!("cannot build the seccomp signal filter: {e}")))
}

/// No seccomp program on other architectures: the walls record says so
/// ([`super::walls`] finds no filter to install).
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(super) fn signal_filters() -> io::Result<Vec<BpfProgram>> {
    Ok(Vec::new())
}

/// The programs for these targets (the low 32 bits of the first argument of the
/// [`AIMED`] calls): pure, so the tests can run them.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn filters_for(targets: &[u32]) -> Result<Vec<BpfProgram>, BackendError> {
    let mut targets = targets.to_vec();
    targets.sort_unstable();
    targets.dedup();
    // Gate's threads are mostly made together and have consecutive ids: one rule per run of
    // consecutive targets keeps the programs short (the kernel takes at most 4096
    // instructions per program) even with a thousand lanes.
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for t in targets {
        match runs.last_mut() {
            Some((_, hi)) if hi.checked_add(1) == Some(t) => *hi = t,
            _ => runs.push((t, t)),
        }
    }
    let arg0 = |op, v: u32| SeccompCondition::new(0, SeccompCmpArgLen::Dword, op, u64::from(v));
    let rules = runs
        .iter()
        .map(|&(lo, hi)| {
            SeccompRule::new(if lo == hi {
                vec![arg0(SeccompCmpOp::Eq, lo)?]
            } else {
                vec![arg0(SeccompCmpOp::Ge, lo)?, arg0(SeccompCmpOp::Le, hi)?]
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut refused: Vec<(i64, Vec<SeccompRule>)> =
        AIMED.iter().map(|&nr| (nr, rules.clone())).collect();
    // No rule: refused whatever its arguments.
    refused.push((libc::SYS_tkill, Vec::new()));
    let mut out = Vec::new();
    compile(refused, libc::EPERM, &mut out)?;
    compile(
        vec![(libc::SYS_pidfd_send_signal, Vec::new())],
        libc::ENOSYS,
        &mut out,
    )?;
    Ok(out)
}

/// Compile `calls` (each refused with `errno` where one of its rules matches) into as few
/// programs as fit the kernel's limit: all in one when they fit, else split by call and then
/// by rules. Refusals of several programs add up: the kernel takes any program's refusal
/// over another's allow.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn compile(
    mut calls: Vec<(i64, Vec<SeccompRule>)>,
    errno: i32,
    out: &mut Vec<BpfProgram>,
) -> Result<(), BackendError> {
    #[cfg(target_arch = "x86_64")]
    let arch = seccompiler::TargetArch::x86_64;
    #[cfg(target_arch = "aarch64")]
    let arch = seccompiler::TargetArch::aarch64;
    let filter = SeccompFilter::new(
        calls.iter().cloned().collect::<BTreeMap<_, _>>(),
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        arch,
    )?;
    let too_large = match BpfProgram::try_from(filter) {
        Ok(program) if program.len() + GUARD_LEN <= MAX_LEN => {
            out.push(guarded(program));
            return Ok(());
        }
        Ok(program) => BackendError::FilterTooLarge(program.len() + GUARD_LEN),
        Err(e @ BackendError::FilterTooLarge(_)) => e,
        Err(e) => return Err(e),
    };
    if calls.len() > 1 {
        let rest = calls.split_off(calls.len() / 2);
        compile(calls, errno, out)?;
        return compile(rest, errno, out);
    }
    match calls.pop() {
        Some((nr, mut rules)) if rules.len() > 1 => {
            let rest = rules.split_off(rules.len() / 2);
            compile(vec![(nr, rules)], errno, out)?;
            compile(vec![(nr, rest)], errno, out)
        }
        _ => Err(too_large),
    }
}

/// The length of [`guarded`]'s prefix.
const GUARD_LEN: usize = 6;

/// `program` behind the guard of the module doc. Prepending is sound: classic BPF jumps are
/// relative and forward only, so the program's own jumps land where they did.
fn guarded(program: BpfProgram) -> BpfProgram {
    let stmt = |code, k| sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    };
    let jump = |code, k, jt, jf| sock_filter { code, jt, jf, k };
    let enosys = SECCOMP_RET_ERRNO | libc::ENOSYS as u32;
    let mut p = vec![
        stmt(BPF_LD_W_ABS, DATA_ARCH),
        jump(BPF_JEQ_K, AUDIT_ARCH, 1, 0),
        stmt(BPF_RET_K, enosys),
        stmt(BPF_LD_W_ABS, DATA_NR),
        jump(BPF_JGE_K, X32_SYSCALL_BIT, 0, 1),
        stmt(BPF_RET_K, enosys),
    ];
    debug_assert_eq!(p.len(), GUARD_LEN);
    p.extend(program);
    p
}

#[cfg(all(test, any(target_arch = "x86_64", target_arch = "aarch64")))]
mod tests {
    //! The decisions of the installed programs, pinned by running them: a seccompiler upgrade
    //! that changes what they decide fails here.

    use super::*;

    /// A `struct seccomp_data`: the call's number, architecture and first argument.
    struct Call {
        nr: u32,
        arch: u32,
        arg0: u64,
    }

    fn call(nr: libc::c_long, arg0: u64) -> Call {
        Call {
            nr: nr as u32,
            arch: AUDIT_ARCH,
            arg0,
        }
    }

    /// Classic BPF as seccomp runs it, for the instructions these programs use (any other
    /// fails the test).
    fn run(program: &[sock_filter], c: &Call) -> u32 {
        let word = |off: u32| match off {
            0 => c.nr,
            4 => c.arch,
            16 => c.arg0 as u32,
            20 => (c.arg0 >> 32) as u32,
            _ => panic!("load at offset {off}"),
        };
        let (mut pc, mut acc) = (0usize, 0u32);
        loop {
            let i = &program[pc];
            let cond = |taken: bool| if taken { i.jt } else { i.jf } as usize;
            pc += 1 + match i.code {
                0x20 => {
                    acc = word(i.k);
                    0
                }
                0x05 => i.k as usize,
                0x15 => cond(acc == i.k),
                0x25 => cond(acc > i.k),
                0x35 => cond(acc >= i.k),
                0x45 => cond(acc & i.k != 0),
                0x06 => return i.k,
                code => panic!("instruction {code:#x}"),
            };
        }
    }

    /// The kernel's verdict over every installed program: the most restrictive action, the
    /// most recently installed program first among equals.
    fn verdict(programs: &[BpfProgram], c: &Call) -> u32 {
        let action = |r: u32| (r & 0xffff_0000) as i32;
        programs
            .iter()
            .rev()
            .map(|p| run(p, c))
            .reduce(|a, b| if action(b) < action(a) { b } else { a })
            .expect("a program")
    }

    const ALLOW: u32 = 0x7fff_0000;
    const EPERM: u32 = SECCOMP_RET_ERRNO | libc::EPERM as u32;
    const ENOSYS: u32 = SECCOMP_RET_ERRNO | libc::ENOSYS as u32;

    #[test]
    fn the_signal_filter_refuses_exactly_the_signals_aimed_at_gate() {
        let (pid, pgid) = (4000u32, 3990i32);
        // Gate's threads: a run of consecutive ids and a stray one.
        let mut targets = vec![pid, (-pgid) as u32, u32::MAX, 1, 4007];
        targets.extend(4001..=4005);
        let programs = filters_for(&targets).unwrap();
        for nr in AIMED {
            for t in &targets {
                // The low 32 bits decide, whatever the high half holds (a sign-extended
                // negative pid).
                for high in [0u64, 0xffff_ffff] {
                    let arg0 = high << 32 | u64::from(*t);
                    assert_eq!(verdict(&programs, &call(nr, arg0)), EPERM, "{nr} {t}");
                }
            }
            // Next to the targets, and other processes: allowed.
            for other in [0u32, 2, 3999, 4006, 4008, -3991i32 as u32, -3989i32 as u32] {
                let c = call(nr, u64::from(other));
                assert_eq!(verdict(&programs, &c), ALLOW, "{nr} {other}");
            }
        }
        assert_eq!(verdict(&programs, &call(libc::SYS_tkill, 12345)), EPERM);
        let pidfd = call(libc::SYS_pidfd_send_signal, 3);
        assert_eq!(verdict(&programs, &pidfd), ENOSYS);
        for nr in [libc::SYS_getpid, libc::SYS_write, libc::SYS_openat] {
            assert_eq!(verdict(&programs, &call(nr, u64::from(pid))), ALLOW);
        }
        // A foreign architecture (i386) and x32 calls: ENOSYS, whatever the call.
        for arch in [0x4000_0003u32, 0] {
            let c = Call {
                nr: 37,
                arch,
                arg0: u64::from(pid),
            };
            assert_eq!(verdict(&programs, &c), ENOSYS);
        }
        let x32_kill = X32_SYSCALL_BIT | libc::SYS_kill as u32;
        let c = call(x32_kill as libc::c_long, 7);
        assert_eq!(verdict(&programs, &c), ENOSYS);
    }

    #[test]
    fn the_signal_filter_fits_the_kernel_with_a_thousand_scattered_threads() {
        // The worst case: no two of gate's thread ids consecutive (`jobs` is at most 1024).
        let targets: Vec<u32> = (0..1100u32).map(|i| 10_000 + 2 * i).collect();
        let programs = filters_for(&targets).unwrap();
        assert!(programs.iter().all(|p| p.len() <= MAX_LEN));
        // The kernel's limit over all of a process's programs (MAX_INSNS_PER_PATH: 32768
        // instructions, 4 more per program).
        let total: usize = programs.iter().map(|p| p.len() + 4).sum();
        assert!(total <= 32_768, "{total}");
        for t in [10_000u32, 10_002, 12_198] {
            assert_eq!(
                verdict(&programs, &call(libc::SYS_kill, u64::from(t))),
                EPERM
            );
        }
        assert_eq!(verdict(&programs, &call(libc::SYS_kill, 10_001)), ALLOW);
    }
}
