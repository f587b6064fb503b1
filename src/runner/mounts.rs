//! The box's mount layer: gate's state read-only in each trial's own mount namespace.
//!
//! Landlock can only allow, so without this layer a folder that holds one of gate's files
//! (the plan's folder, the ledger's) cannot be granted to the task at all: nothing could be
//! created in it, and a task that writes `counter.txt` or pytest's `.pytest_cache` beside
//! its plan fails because of the box. With this layer every process of a trial runs in a
//! mount namespace of its own in which each of gate's protected paths inside the task's
//! writable roots is bind-mounted onto itself read-only; Landlock then grants the roots
//! whole. A read-only mount refuses every write, `truncate`, `chmod` or link through it
//! (`EROFS`, `EXDEV`), and a mount point cannot be removed or renamed (`EBUSY`), so each
//! folder between a root and a protected path is pinned by a bind of itself (else
//! `mv plans plans.old; mkdir plans` would swap a later plan without touching the file).
//!
//! The namespace is made once per set of binds (a task's roots) by a short-lived helper
//! child, and kept open by its nsfs descriptors ([`Space`]); each trial's process joins it
//! between `fork` and `exec` (`setns`, then `chdir` back to its folder). A shared namespace
//! holds no folder of one trial, since every trial in it could write there: an attempt whose
//! own `TMPDIR` or result folder needs a writable bind beneath a read-only one makes its own
//! namespace in the child instead. Either way the namespace is made:
//! - with `CAP_SYS_ADMIN` (gate runs as root): `unshare(CLONE_NEWNS)`;
//! - otherwise `unshare(CLONE_NEWUSER | CLONE_NEWNS)` mapping gate's own uid and gid onto
//!   themselves (`setgroups` denied), so the task's `id -u` is unchanged.
//!
//! Once the mounts are made the task loses, from every set including the bounding set, the
//! capabilities that reach beneath a mount or around a path (`CAP_SYS_ADMIN`: `open_tree`
//! of a mount without its binds, `fsmount`, `setns`; `CAP_DAC_READ_SEARCH`:
//! `open_by_handle_at`; `CAP_MKNOD`, `CAP_SYS_MODULE`, `CAP_SYS_RAWIO`, `CAP_BPF`,
//! `CAP_SYS_PTRACE`), and those that read or steer other processes (`CAP_PERFMON`,
//! `CAP_SYS_NICE`, `CAP_CHECKPOINT_RESTORE`: review 18): a root task keeps the rest
//! (binding a low port, `chown`).
//!
//! The task cannot undo the binds: a Landlock domain that handles filesystem access may not
//! `mount`, `umount` or remount (the sandbox module applies Landlock after this layer).
//!
//! Where the kernel refuses a step (user namespaces restricted, as on GitHub's ubuntu-24.04
//! runners for non-root users, `kernel.apparmor_restrict_unprivileged_userns=1`; a seccomp
//! profile without `mount_setattr`), [`available`] says so once per process, by making a
//! real namespace with a real read-only bind in a forked child, and the box falls back to
//! the Landlock allow-list alone. `GATE_SANDBOX_NO_MOUNTS=1` forces that fallback (for
//! testing both on one machine).
//!
//! The system calls go through `rustix` (raw system calls, no allocation for `&CStr`
//! arguments, so safe to call between `fork` and `exec`), except `fork`, `_exit` and
//! `mount_setattr`, which it does not wrap.

use std::ffi::CString;
use std::fs;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;
use rustix::mount::{MountPropagationFlags, mount_bind_recursive, mount_change};
use rustix::pipe::{PipeFlags, pipe_with};
use rustix::process::{Pid, WaitOptions, getegid, geteuid, waitpid};
use rustix::thread::{
    CapabilitySet, CapabilitySets, LinkNameSpaceType, UnshareFlags, capabilities,
    move_into_link_name_space, remove_capability_from_bounding_set, set_capabilities,
    unshare_unsafe,
};

/// How a trial's mount namespace is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Namespace {
    /// gate holds `CAP_SYS_ADMIN`: a mount namespace alone, then a capability drop.
    Privileged,
    /// A user namespace (gate's uid and gid mapped onto themselves) and a mount namespace.
    User,
}

/// `struct mount_attr` (include/uapi/linux/mount.h).
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}
const MOUNT_ATTR_RDONLY: u64 = 0x1;

/// The capabilities a privileged task loses (see the module doc): by number,
/// `CAP_DAC_READ_SEARCH` 2, `CAP_SYS_MODULE` 16, `CAP_SYS_RAWIO` 17, `CAP_SYS_PTRACE` 19,
/// `CAP_SYS_ADMIN` 21, `CAP_SYS_NICE` 23, `CAP_MKNOD` 27, `CAP_PERFMON` 38, `CAP_BPF` 39,
/// `CAP_CHECKPOINT_RESTORE` 40. Review 18 (A22, A23, A09): `CAP_PERFMON` alone gives a
/// tracer's read access to any process (`perf_event_open` sampling every process's user
/// stack, a token among them; `/proc/PID/maps`), and with `CAP_SYS_NICE`
/// `process_madvise` on the init that shares gate's memory; `CAP_CHECKPOINT_RESTORE` opens
/// other processes' `/proc/PID/map_files`.
const DROPPED_CAPS: [u32; 10] = [2, 16, 17, 19, 21, 23, 27, 38, 39, 40];

/// What one bind does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// A folder bound onto itself as it is: a mount point, so it cannot be renamed.
    Pin,
    /// Bound onto itself, then read-only (with everything beneath it).
    ReadOnly,
    /// A folder of the trial's own beneath a read-only bind, made writable again.
    Writable,
}

/// A mount namespace made once with a [`Layer`]'s binds and kept open, so that each trial
/// with the same binds joins it (`setns`) instead of making its own: a namespace made per
/// trial costs a copy of every mount, the binds and their teardown when its last process
/// exits (about 0.2 ms a trial on an idle machine, several under load; docs/trust.md).
#[derive(Debug)]
pub struct Space {
    /// The user namespace that owns it ([`Namespace::User`] only).
    user: Option<OwnedFd>,
    /// The mount namespace (an nsfs descriptor keeps it alive after its maker exits).
    mnt: OwnedFd,
    /// The folders it holds read-only: a per-attempt folder beneath one of them needs a
    /// writable bind of its own, which a shared namespace cannot give.
    read_only: Vec<PathBuf>,
}

impl Space {
    /// Whether `path` lies beneath a read-only bind of this namespace.
    pub fn covers(&self, path: &Path) -> bool {
        self.read_only.iter().any(|r| path.starts_with(r))
    }
}

/// How a trial's process gets its mount namespace.
#[derive(Debug)]
enum Entry {
    /// Its own: `unshare`, then the binds.
    Make,
    /// A [`Space`] made before: `setns`, then back to its working folder (joining a mount
    /// namespace moves a process to that namespace's root).
    Join(Arc<Space>, CString),
}

/// One process's mount layer, prepared in the parent; [`Layer::enter`] runs in the child.
#[derive(Debug)]
pub struct Layer {
    ns: Namespace,
    entry: Entry,
    /// `"<uid> <uid> 1"` and `"<gid> <gid> 1"` (user namespace only).
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    /// gate's capability sets without [`DROPPED_CAPS`].
    caps: CapabilitySets,
    ops: Vec<(CString, Op)>,
}

/// The namespace the box can make on this machine, probed once per process; `None` when
/// none works (or `GATE_SANDBOX_NO_MOUNTS` is set). `Err` carries why, for `gate check`.
pub fn available() -> Result<Namespace, String> {
    static PROBED: OnceLock<Result<Namespace, String>> = OnceLock::new();
    PROBED.get_or_init(probe_all).clone()
}

fn probe_all() -> Result<Namespace, String> {
    if std::env::var_os("GATE_SANDBOX_NO_MOUNTS").is_some_and(|v| !v.is_empty()) {
        return Err("GATE_SANDBOX_NO_MOUNTS is set".into());
    }
    let mut why = Vec::new();
    let order: &[Namespace] = if has_cap_sys_admin() {
        &[Namespace::Privileged, Namespace::User]
    } else {
        &[Namespace::User]
    };
    for &ns in order {
        match probe(ns) {
            Ok(()) => return Ok(ns),
            Err(e) => why.push(e),
        }
    }
    Err(why.join("; "))
}

/// Whether this thread's effective set holds `CAP_SYS_ADMIN`.
fn has_cap_sys_admin() -> bool {
    capabilities(None).is_ok_and(|c| c.effective.contains(CapabilitySet::SYS_ADMIN))
}

/// One capability of [`DROPPED_CAPS`] as a set (one bit; `CAP_BPF` lies past the first
/// 32-bit word, which `rustix`'s 64-bit sets cover).
fn cap_bit(cap: u32) -> CapabilitySet {
    CapabilitySet::from_bits_retain(1 << cap)
}

/// Make the namespace in a forked child, bind a fresh folder read-only in it and check
/// that a file cannot be created there.
fn probe(ns: Namespace) -> Result<(), String> {
    let name = match ns {
        Namespace::Privileged => "a mount namespace",
        Namespace::User => "a user and mount namespace",
    };
    let dir = std::env::temp_dir().join(format!(
        "gate-probe-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos())
    ));
    fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .map_err(|e| format!("{name}: cannot make a probe folder: {e}"))?;
    let result = (|| {
        let mut layer = Layer::new(ns);
        layer.ops.push((cstring(&dir)?, Op::ReadOnly));
        let inside = cstring(&dir.join("x")).map_err(|e| e.to_string())?;
        // SAFETY: the child runs only async-signal-safe system calls (enter, mkdir, _exit)
        // on memory prepared before the fork, and never returns.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(format!("{name}: fork: {}", io::Error::last_os_error()));
        }
        if pid == 0 {
            // The read-only bind must refuse the mkdir.
            let code = match layer.enter() {
                Err(_) => 1,
                Ok(()) => match rustix::fs::mkdir(inside.as_c_str(), Mode::RWXU) {
                    Ok(()) => 2,
                    Err(Errno::ROFS) => 0,
                    Err(_) => 3,
                },
            };
            // SAFETY: ends the child without running the parent's destructors.
            unsafe { libc::_exit(code) };
        }
        let status = match waitpid(Pid::from_raw(pid), WaitOptions::empty()) {
            Ok(Some((_, status))) => status,
            Ok(None) => return Err(format!("{name}: waitpid: no status")),
            Err(e) => return Err(format!("{name}: waitpid: {}", io::Error::from(e))),
        };
        match status.exit_status() {
            Some(0) => Ok(()),
            Some(1) => Err(format!("{name} is refused on this machine")),
            _ => Err(format!("{name}: a read-only bind did not hold")),
        }
    })();
    let _ = fs::remove_dir(&dir);
    result.map_err(|e| e.to_string())
}

fn cstring(path: &Path) -> Result<CString, String> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| format!("`{}` holds a NUL byte", path.display()))
}

/// Which binds one process of a trial needs.
pub struct Binds<'a> {
    /// gate's files and folders (absolute, links resolved as far as they exist).
    pub protected: &'a [PathBuf],
    /// gate's folders that no trial writes in, where that leaves the task's roots alone
    /// (the ledger's folder, the reports' folders).
    pub state_dirs: &'a [PathBuf],
    /// The task's writable roots (its working folder, `policy.sandbox.writable`).
    pub roots: &'a [PathBuf],
    /// Folders gate made for the trial (its `TMPDIR`, its result file's folder).
    pub holes: &'a [&'a Path],
}

impl Layer {
    fn new(ns: Namespace) -> Layer {
        let (uid, gid) = (geteuid().as_raw(), getegid().as_raw());
        let mut caps = capabilities(None).unwrap_or(CapabilitySets {
            effective: CapabilitySet::empty(),
            permitted: CapabilitySet::empty(),
            inheritable: CapabilitySet::empty(),
        });
        for cap in DROPPED_CAPS {
            caps.effective.remove(cap_bit(cap));
            caps.permitted.remove(cap_bit(cap));
            caps.inheritable.remove(cap_bit(cap));
        }
        Layer {
            ns,
            entry: Entry::Make,
            uid_map: format!("{uid} {uid} 1").into_bytes(),
            gid_map: format!("{gid} {gid} 1").into_bytes(),
            caps,
            ops: Vec::new(),
        }
    }

    /// The layer of one process: the binds `b` calls for (see the module doc).
    pub fn plan(ns: Namespace, b: &Binds) -> io::Result<Layer> {
        let mut layer = Layer::new(ns);
        let beneath_root = |p: &Path| b.roots.iter().any(|r| p != r && p.starts_with(r));
        let holds_root = |p: &Path| b.roots.iter().any(|r| r.starts_with(p));
        // What to make read-only: each protected path, or the nearest folder of it that
        // exists (a report not written yet); and every plan-like file in a folder that
        // holds gate's state (any of them may be a plan a later step runs).
        let mut targets: Vec<PathBuf> = Vec::new();
        for p in b.protected.iter().chain(b.state_dirs) {
            let mut t = p.as_path();
            while fs::symlink_metadata(t).is_err() {
                match t.parent() {
                    Some(parent) => t = parent,
                    None => break,
                }
            }
            targets.push(t.to_path_buf());
        }
        let mut folders: Vec<&Path> = b
            .protected
            .iter()
            .flat_map(|p| p.ancestors().skip(1))
            .filter(|a| b.roots.iter().any(|r| a.starts_with(r)))
            .collect();
        folders.sort();
        folders.dedup();
        for folder in folders {
            let Ok(entries) = fs::read_dir(folder) else {
                continue;
            };
            for e in entries.flatten() {
                if e.file_type().is_ok_and(|k| k.is_file()) && is_yaml(&e.path()) {
                    targets.push(e.path());
                }
            }
        }
        // Only inside the roots (outside them Landlock refuses every write), and never a
        // folder that holds a root (that would take the root from the task).
        targets.retain(|t| beneath_root(t) && !holds_root(t));
        // A target beneath another is covered by it.
        let kept = outermost(&targets);
        let mut pins: Vec<&Path> = kept
            .iter()
            .flat_map(|t| t.ancestors().skip(1))
            .filter(|a| beneath_root(a))
            .collect();
        pins.sort_by_key(|p| (p.components().count(), p.to_path_buf()));
        pins.dedup();
        let err = |e: String| io::Error::new(io::ErrorKind::InvalidInput, e);
        for p in pins {
            layer.ops.push((cstring(p).map_err(err)?, Op::Pin));
        }
        for t in &kept {
            layer.ops.push((cstring(t).map_err(err)?, Op::ReadOnly));
        }
        for h in b.holes {
            if kept.iter().any(|t| h.starts_with(t)) {
                layer.ops.push((cstring(h).map_err(err)?, Op::Writable));
            }
        }
        Ok(layer)
    }

    /// A layer that joins `space` (made by [`Layer::persist`] from a layer of the same
    /// namespace kind) and returns to `cwd`, instead of making a namespace of its own.
    pub fn join(ns: Namespace, space: Arc<Space>, cwd: &Path) -> io::Result<Layer> {
        let cwd = cstring(cwd).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let mut layer = Layer::new(ns);
        layer.entry = Entry::Join(space, cwd);
        Ok(layer)
    }

    /// Make this layer's namespace once, in a forked child that waits until the parent has
    /// opened the namespace's descriptors, then exits (reaped here: no orphan, no zombie;
    /// if gate dies first, the child's read of the pipe ends and so does the child).
    pub fn persist(&self) -> io::Result<Space> {
        let (ready_r, ready_w) = pipe_with(PipeFlags::CLOEXEC)?;
        let (hold_r, hold_w) = pipe_with(PipeFlags::CLOEXEC)?;
        // SAFETY: the child runs only async-signal-safe system calls (the binds, close,
        // write, read, _exit) on memory prepared before the fork, and never returns.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            let mut byte = [0u8; 1];
            // The parent's ends: the child's own copy of the hold pipe's write end would
            // keep its read from ever ending. (Dropping closes them; no allocation.)
            drop(hold_w);
            drop(ready_r);
            if self.make().is_ok() && rustix::io::write(&ready_w, &byte) == Ok(1) {
                // Until the parent closes its end (or dies).
                while rustix::io::read(&hold_r, &mut byte).is_ok_and(|n| n > 0) {}
            }
            // SAFETY: ends the child without running the parent's destructors.
            unsafe { libc::_exit(0) };
        }
        drop(ready_w);
        drop(hold_r);
        let mut byte = [0u8; 1];
        let n = rustix::io::read(&ready_r, &mut byte);
        let open = |what: &str| -> io::Result<OwnedFd> {
            // std opens with O_CLOEXEC.
            Ok(fs::File::open(format!("/proc/{pid}/ns/{what}"))?.into())
        };
        let space = if n == Ok(1) {
            (|| {
                let user = match self.ns {
                    Namespace::User => Some(open("user")?),
                    Namespace::Privileged => None,
                };
                Ok(Space {
                    user,
                    mnt: open("mnt")?,
                    read_only: self
                        .ops
                        .iter()
                        .filter(|(_, op)| *op == Op::ReadOnly)
                        .map(|(p, _)| PathBuf::from(std::ffi::OsStr::from_bytes(p.as_bytes())))
                        .collect(),
                })
            })()
        } else {
            Err(io::Error::other("the mount namespace could not be made"))
        };
        drop(hold_w);
        while matches!(
            waitpid(Pid::from_raw(pid), WaitOptions::empty()),
            Err(Errno::INTR)
        ) {}
        space
    }

    /// Make the namespace and the binds, then drop the capabilities. Runs in
    /// the child between `fork` and `exec`: async-signal-safe system calls only, on memory
    /// prepared before the fork; no allocation.
    pub fn enter(&self) -> io::Result<()> {
        self.enter_namespace()?;
        self.drop_caps()
    }

    /// Enter the namespace (made or joined) and keep the capabilities in it: the PID
    /// namespace of `sandbox::pidns` is made in between. Then [`Layer::drop_caps`].
    pub fn enter_namespace(&self) -> io::Result<()> {
        match &self.entry {
            Entry::Make => self.make()?,
            Entry::Join(space, cwd) => {
                if let Some(user) = &space.user {
                    move_into_link_name_space(user.as_fd(), Some(LinkNameSpaceType::User))?;
                }
                move_into_link_name_space(space.mnt.as_fd(), Some(LinkNameSpaceType::Mount))?;
                rustix::process::chdir(cwd.as_c_str())?;
            }
        }
        Ok(())
    }

    /// A namespace of this process's own, with the binds.
    fn make(&self) -> io::Result<()> {
        let flags = match self.ns {
            Namespace::Privileged => UnshareFlags::NEWNS,
            Namespace::User => UnshareFlags::NEWUSER | UnshareFlags::NEWNS,
        };
        // SAFETY: unsharing namespaces only; without `UnshareFlags::FILES` no descriptor
        // table is split from another thread's (the reason rustix marks it unsafe).
        unsafe { unshare_unsafe(flags) }?;
        if self.ns == Namespace::User {
            write_proc(c"/proc/self/setgroups", b"deny")?;
            write_proc(c"/proc/self/uid_map", &self.uid_map)?;
            write_proc(c"/proc/self/gid_map", &self.gid_map)?;
        }
        // No bind of ours may propagate back to gate's namespace.
        mount_change(
            c"/",
            MountPropagationFlags::REC | MountPropagationFlags::PRIVATE,
        )?;
        for (path, op) in &self.ops {
            mount_bind_recursive(path.as_c_str(), path.as_c_str())?;
            let (set, clr) = match op {
                Op::Pin => continue,
                Op::ReadOnly => (MOUNT_ATTR_RDONLY, 0),
                Op::Writable => (0, MOUNT_ATTR_RDONLY),
            };
            let attr = MountAttr {
                attr_set: set,
                attr_clr: clr,
                propagation: 0,
                userns_fd: 0,
            };
            // rustix does not wrap mount_setattr (a remount could not clear the read-only
            // flag beneath a bind recursively, nor keep the locked flags of a user
            // namespace's mounts).
            // SAFETY: a valid C string and a live `mount_attr` of the size passed.
            let rc = unsafe {
                libc::syscall(
                    libc::SYS_mount_setattr,
                    libc::AT_FDCWD,
                    path.as_ptr(),
                    libc::AT_RECURSIVE as libc::c_uint,
                    &attr as *const MountAttr,
                    std::mem::size_of::<MountAttr>(),
                )
            };
            check(rc as libc::c_int)?;
        }
        Ok(())
    }

    /// Drop [`DROPPED_CAPS`] from every set, the bounding set included.
    pub fn drop_caps(&self) -> io::Result<()> {
        // Also in a user namespace: there gate's root (a container's root without
        // CAP_SYS_ADMIN) keeps every capability of the namespace across `exec`, and the
        // namespace owns the binds.
        drop_caps_to(self.caps)
    }
}

/// Gate's capability sets without [`DROPPED_CAPS`], for a box without the mount layer (the
/// fallback), where gate runs as root or holds one of them: as root the task kept
/// `CAP_SYS_ADMIN` there, and with it pushed input into gate's terminal (`TIOCSTI` on a
/// `/dev/pts` it opened without taking it as its terminal: review 80, 10/c). `None` where
/// there is nothing to drop (another user, no capability).
pub fn fallback_caps() -> Option<CapabilitySets> {
    let mut caps = capabilities(None).ok()?;
    let held = DROPPED_CAPS
        .iter()
        .any(|&c| caps.effective.contains(cap_bit(c)) || caps.permitted.contains(cap_bit(c)));
    // Root regains its bounding set at `exec` whatever its sets hold now.
    if !held && !geteuid().is_root() {
        return None;
    }
    for cap in DROPPED_CAPS {
        caps.effective.remove(cap_bit(cap));
        caps.permitted.remove(cap_bit(cap));
        caps.inheritable.remove(cap_bit(cap));
    }
    Some(caps)
}

/// Drop [`DROPPED_CAPS`] from the bounding set and set `caps` (system calls only: between
/// `clone` and `exec`). Where the bounding set cannot be changed (EPERM: no `CAP_SETPCAP`,
/// as for a root whose capabilities a container dropped; review 82, p02, p06), the drop from
/// the other sets holds at `exec` still: `no_new_privs`, set next by every box, limits what
/// the task's `exec` grants to what it held before.
pub fn drop_caps_to(caps: CapabilitySets) -> io::Result<()> {
    for cap in DROPPED_CAPS {
        // EINVAL: a capability this kernel does not have.
        match remove_capability_from_bounding_set(cap_bit(cap)) {
            Ok(()) | Err(Errno::INVAL) | Err(Errno::PERM) => {}
            Err(e) => return Err(e.into()),
        }
    }
    set_capabilities(None, caps)?;
    Ok(())
}

fn check(rc: libc::c_int) -> io::Result<()> {
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Write `bytes` to a file of `/proc/self` (open, write, close: async-signal-safe).
fn write_proc(path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
    let fd = rustix::fs::open(path, OFlags::WRONLY | OFlags::CLOEXEC, Mode::empty())?;
    // The kernel takes a map file in one write only: a short one is an error.
    match rustix::io::write(&fd, bytes) {
        Ok(n) if n == bytes.len() => Ok(()),
        Ok(_) => Err(io::ErrorKind::WriteZero.into()),
        Err(e) => Err(e.into()),
    }
}

/// Whether a file may be a plan (`*.yaml`, `*.yml`).
pub(super) fn is_yaml(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"))
}

/// `paths` without repeats and without any path beneath another of them, sorted: the
/// outermost ones, each covering those inside it.
pub(crate) fn outermost(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut all = paths.to_vec();
    all.sort();
    all.dedup();
    all.iter()
        .filter(|p| !all.iter().any(|o| o != *p && p.starts_with(o)))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(l: &Layer) -> Vec<(String, Op)> {
        l.ops
            .iter()
            .map(|(p, o)| (p.to_str().unwrap().to_string(), *o))
            .collect()
    }

    #[test]
    fn a_namespace_made_once_is_joined_read_only() {
        let Ok(ns) = available() else {
            eprintln!("skipped: no mount layer here");
            return;
        };
        let d = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(d.path()).unwrap();
        fs::create_dir(root.join("state")).unwrap();
        let layer = Layer::plan(
            ns,
            &Binds {
                protected: &[root.join("state")],
                state_dirs: &[],
                roots: std::slice::from_ref(&root),
                holes: &[],
            },
        )
        .unwrap();
        let space = Arc::new(layer.persist().unwrap());
        assert!(space.covers(&root.join("state/x")) && !space.covers(&root));
        let joined = Layer::join(ns, Arc::clone(&space), &root).unwrap();
        let inside = cstring(&root.join("state/x")).unwrap();
        let beside = cstring(&root.join("y")).unwrap();
        // SAFETY: the child makes only system calls on memory prepared before the fork.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let code = match joined.enter() {
                Err(_) => 1,
                Ok(()) => {
                    let refused =
                        rustix::fs::mkdir(inside.as_c_str(), Mode::RWXU) == Err(Errno::ROFS);
                    let allowed = rustix::fs::mkdir(beside.as_c_str(), Mode::RWXU).is_ok();
                    if refused && allowed { 0 } else { 2 }
                }
            };
            // SAFETY: ends the child without running the parent's destructors.
            unsafe { libc::_exit(code) };
        }
        let (_, status) = waitpid(Pid::from_raw(pid), WaitOptions::empty())
            .unwrap()
            .unwrap();
        assert_eq!(status.exit_status(), Some(0), "{:?}", status);
        assert!(!root.join("state/x").exists() && root.join("y").exists());
    }

    #[test]
    fn the_binds_pin_each_folder_between_a_root_and_gate_state_and_leave_the_root_whole() {
        let d = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(d.path()).unwrap();
        fs::create_dir_all(root.join("plans")).unwrap();
        fs::create_dir_all(root.join("gate-out/runs/r/results/t")).unwrap();
        fs::write(root.join("plans/a.yaml"), "").unwrap();
        fs::write(root.join("plans/b.yml"), "").unwrap();
        fs::write(root.join("plans/notes.txt"), "").unwrap();
        fs::write(root.join("gate-out/ledger.jsonl"), "").unwrap();
        let result = root.join("gate-out/runs/r/results/t");
        let tmp = PathBuf::from("/tmp/elsewhere");
        let protected = [
            root.join("plans/a.yaml"),
            root.join("gate-out/ledger.jsonl"),
            root.join("gate-out/runs"),
            // A report not written yet, directly in the root: no bind can hold its name.
            root.join("r.json"),
        ];
        let layer = Layer::plan(
            Namespace::User,
            &Binds {
                protected: &protected,
                state_dirs: &[root.join("gate-out")],
                roots: std::slice::from_ref(&root),
                holes: &[&tmp, &result],
            },
        )
        .unwrap();
        let s = |p: &str| root.join(p).to_str().unwrap().to_string();
        assert_eq!(
            ops(&layer),
            vec![
                (s("plans"), Op::Pin),
                (s("gate-out"), Op::ReadOnly),
                (s("plans/a.yaml"), Op::ReadOnly),
                (s("plans/b.yml"), Op::ReadOnly),
                (result.to_str().unwrap().to_string(), Op::Writable),
            ]
        );
    }
}
