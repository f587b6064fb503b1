//! The box: what a trial's processes may not touch, raised in the child between `fork` and
//! `exec` of the task.
//!
//! The task under test is an adversary that runs as gate's own user (docs/trust.md). Where
//! the kernel allows, every process of a trial is confined so that it cannot replace gate's
//! binary, rewrite the plan or another plan next to it, touch the ledger, its lock or the
//! reports, stop or kill gate, or forge the CI's workflow-command files:
//!
//! - **Filesystem** (Landlock, unprivileged, Linux ≥ 5.13, and the mount layer of
//!   [`super::mounts`]). The task reads everywhere but writes only beneath its writable
//!   roots: its working directory and the plan's `policy.sandbox.writable` paths, plus a
//!   fresh per-attempt temporary directory (its `TMPDIR`, empty; removed afterwards, or kept
//!   as a spare when it is empty and as made: `folders::Spares`), its trial's
//!   own result folder (of `GATE_RESULT`, in this run's `gate-PID-N-results` beside the
//!   temporary directories: outside the roots, so no sibling trial may write the file a
//!   trial is graded on) and the character devices every shell writes to
//!   (`/dev/null`, …). Never gate's state: with the mount layer (a mount namespace per
//!   process, gate's state in the roots bound read-only, the folders above it pinned) the
//!   roots are granted whole. Without it (user namespaces refused, `GATE_SANDBOX_NO_MOUNTS`)
//!   Landlock alone must keep gate's state out, and since it can only allow, never subtract,
//!   the grant is an allow list: a root that holds none of gate's protected paths is
//!   writable as a whole; a folder that holds one (the plan's folder, the ledger's) is not,
//!   and the same rule is applied to each of its subfolders, while its existing regular
//!   files stay writable except the protected ones and its YAML files (any of them may be a
//!   plan a later step runs). In such a folder nothing can be created, removed or renamed,
//!   so nothing protected can be swapped either. Symbolic links are never followed into a
//!   grant, and device nodes are never granted.
//! - **Signals and tracing**. Landlock (every ABI) refuses `ptrace` of a process outside the
//!   box. With ABI ≥ 6 the box is also signal-scoped (`LANDLOCK_SCOPE_SIGNAL`): no signal
//!   leaves it. Below ABI 6 a seccomp filter refuses `kill`, `tgkill` and
//!   `rt_(tg)sigqueueinfo` aimed at gate's pid, its process group, `-1` or a thread of gate
//!   alive when the attempt started, refuses `tkill`, and answers `pidfd_send_signal` with
//!   `ENOSYS` (callers fall back to `kill`, which the filter sees).
//! - **Environment**: the workflow-command files and the runner's tokens are removed from the
//!   task's environment unless `policy.sandbox.pass_env` names them (also with
//!   `policy.sandbox: off`).
//!
//! [`Sandbox::new`] probes the kernel once per run and returns the [`Walls`] that will stand
//! (the ledger header records them); with `policy.sandbox: required` a missing wall refuses
//! the run. [`Sandbox::cell`] builds one attempt's box in the parent (the mount layer's
//! binds, the Landlock ruleset, the seccomp programs, the temporary directory);
//! [`ChildWalls::install`] raises it in the child with async-signal-safe system calls only
//! ([`super::spawn`] starts the child).
//!
//! Why in the child and not on a thread of gate's that then spawns the task: a thread in the
//! box shares the task's Landlock domain, so the task may signal it, and a signal to any
//! thread's id stops or kills all of gate (`a_task_cannot_kill_gate_or_its_process_group`
//! fails that way). The child is a process of its own (credentials, Landlock domain,
//! seccomp filter, namespaces are per process) even where it shares gate's memory until its
//! `exec` (`CLONE_VM | CLONE_VFORK`, [`super::spawn`]); docs/performance.md measures it.
//!
//! The files: this one holds the walls' probe, the Landlock ruleset and the child's side;
//! `seccomp.rs` the signal filter of kernels without Landlock signal scoping; `folders.rs` the
//! box's folders in gate's temporary folder (`TMPDIR`s, the result folders) and the removal
//! of what a killed gate left there.
//!
//! The parent builds through maintained crates, the child makes raw system calls (issue 29):
//! the Landlock ruleset (the rights each ABI handles, the scopes, the rules) through the
//! `landlock` crate, as a hard requirement so that it never silently drops a right the walls
//! record; the seccomp programs through `seccompiler` (`seccomp.rs`); opening and inspecting
//! a granted path, `no_new_privs` and the seccomp probe through `rustix`. Two Landlock calls
//! stay raw: the ABI probe (the crate keeps the kernel's ABI to itself, and gate records
//! it), and `landlock_restrict_self` in the child, on the descriptor the crate built: the
//! child side must be a few system calls with no allocation and no lock between `fork` and
//! `exec`, which neither crate promises of its own install functions. The seccomp programs
//! are installed with the same `prctl` for the same reason.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

use std::sync::{Arc, Mutex};

use landlock::{
    AccessFs, BitFlags, CompatLevel, Compatible, PathBeneath, Ruleset, RulesetAttr, RulesetCreated,
    RulesetCreatedAttr, Scope,
};

use super::mounts::{self, Binds, Layer, Namespace, Space, is_yaml};
use super::spawn::{BaseEnv, ChildWalls};
pub(crate) use folders::remove_folder;
use folders::{Spares, fresh_dir_from, make_results_root, remove_stale};
use seccomp::signal_filters;

pub mod autoload;
pub mod configs;
mod folders;
pub mod packages;
mod pidns;
mod seccomp;
use crate::model::{
    FilesystemWall, MountWall, SandboxMode, SandboxPolicy, ShmWall, SignalWall, Walls, is_withheld,
};

// Landlock's ABI probe (include/uapi/linux/landlock.h): the `landlock` crate keeps the
// running kernel's ABI to itself on purpose, and gate records it.
const CREATE_RULESET_VERSION: u32 = 1 << 0;

/// The first ABI whose filesystem wall is complete for gate's purpose (truncate handled).
const ABI_TRUNCATE: u32 = 3;
/// The first ABI that scopes signals.
const ABI_SIGNAL: u32 = 6;

/// The Landlock ABI version of the running kernel (0 when Landlock is absent or disabled),
/// capped by `GATE_SANDBOX_MAX_ABI` — a knob for testing the walls of older kernels on a
/// newer one; it can only lower the walls gate records, never claim more.
pub fn landlock_abi() -> u32 {
    // SAFETY: with a null attribute, size 0 and the VERSION flag, the call only returns the
    // ABI version (or an error); no memory is read or written.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            CREATE_RULESET_VERSION,
        )
    };
    let abi = if v < 0 { 0 } else { v as u32 };
    match std::env::var("GATE_SANDBOX_MAX_ABI")
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
    {
        Some(cap) => abi.min(cap),
        None => abi,
    }
}

/// Whether seccomp filters can be installed (`PR_GET_SECCOMP` answers), unless
/// `GATE_SANDBOX_NO_SECCOMP` is set (the same kind of testing knob as above).
fn seccomp_available() -> bool {
    if std::env::var_os("GATE_SANDBOX_NO_SECCOMP").is_some() {
        return false;
    }
    rustix::thread::secure_computing_mode().is_ok()
}

/// The walls this machine raises under `policy` (what `gate check` reports, and what
/// [`Sandbox::new`] records).
pub fn walls(policy: &SandboxPolicy) -> Walls {
    let pass_env = policy.pass_env.clone();
    if policy.mode == SandboxMode::Off {
        return Walls {
            policy: policy.mode,
            landlock_abi: landlock_abi(),
            filesystem: FilesystemWall::Unconfined,
            mounts: MountWall::None,
            signals: SignalWall::Unguarded,
            pass_env,
            environ_erased: crate::runner::sys::environ_erased(),
            sockets_scoped: false,
            pid_namespace: false,
            shm: ShmWall::Unknown,
            installs: policy.installs.clone(),
            writes: Default::default(),
        };
    }
    let abi = landlock_abi();
    let filesystem = match abi {
        0 => FilesystemWall::Unconfined,
        a if a < ABI_TRUNCATE => FilesystemWall::EnforcedExceptTruncate,
        _ => FilesystemWall::Enforced,
    };
    let signals = if abi >= ABI_SIGNAL {
        SignalWall::Scoped
    } else if seccomp_available() {
        SignalWall::Filtered
    } else {
        SignalWall::Unguarded
    };
    // The mount layer needs Landlock: only a Landlock domain keeps a privileged task from
    // unmounting the binds.
    let mounts = if abi > 0 && mounts::available().is_ok() {
        MountWall::StateReadOnly
    } else {
        MountWall::None
    };
    Walls {
        policy: policy.mode,
        landlock_abi: abi,
        filesystem,
        mounts,
        signals,
        pass_env,
        environ_erased: crate::runner::sys::environ_erased(),
        // Raised with the signal scope: both need ABI 6.
        sockets_scoped: signals == SignalWall::Scoped,
        // Made in the mount layer's namespaces, where gate holds CAP_SYS_ADMIN.
        pid_namespace: mounts == MountWall::StateReadOnly,
        // Made with the PID namespace (`pidns`).
        shm: if mounts == MountWall::StateReadOnly {
            ShmWall::Private
        } else {
            ShmWall::Shared
        },
        installs: policy.installs.clone(),
        writes: Default::default(),
    }
}

/// `walls` for a plan that compares head with base (`compares`): without the mount layer
/// (no private `/dev/shm` per trial) `/dev/shm` is not granted to the trials, so head's
/// trials cannot leave state there that base's read (review 5, K1). A plan that needs it
/// anyway names it in `policy.sandbox.writable`.
pub fn for_plan(
    mut walls: Walls,
    compares: bool,
    writable: &[PathBuf],
    writes: BTreeMap<String, Vec<String>>,
) -> Walls {
    walls.writes = writes;
    let granted = writable
        .iter()
        .any(|w| Path::new("/dev/shm").starts_with(resolve(w)));
    if compares
        && walls.shm == ShmWall::Shared
        && walls.filesystem != FilesystemWall::Unconfined
        && !granted
    {
        walls.shm = ShmWall::Withheld;
    }
    walls
}

/// Why the mount layer is not in force, when it is not (for `gate check`).
pub fn mounts_unavailable(walls: &Walls) -> Option<String> {
    if walls.mounts == MountWall::StateReadOnly || walls.policy == SandboxMode::Off {
        return None;
    }
    if walls.landlock_abi == 0 {
        return Some("it needs Landlock".into());
    }
    mounts::available().err()
}

/// Why `walls` falls short of `policy.sandbox: required`, if it does.
pub fn shortfall(walls: &Walls) -> Option<String> {
    let mut missing = Vec::new();
    match walls.filesystem {
        FilesystemWall::Enforced => {}
        // gate's state is on read-only mounts: `truncate` of it fails there too.
        FilesystemWall::EnforcedExceptTruncate if walls.mounts == MountWall::StateReadOnly => {}
        FilesystemWall::EnforcedExceptTruncate => missing.push(format!(
            "its Landlock ABI {} cannot confine truncate (needs ABI {ABI_TRUNCATE}, Linux 6.2)",
            walls.landlock_abi
        )),
        FilesystemWall::Unconfined => {
            missing.push("it has no Landlock (needs Linux 5.13 with Landlock enabled)".into())
        }
    }
    if walls.signals == SignalWall::Unguarded {
        missing
            .push("it can neither scope signals (Landlock ABI 6) nor filter them (seccomp)".into());
    }
    (!missing.is_empty()).then(|| missing.join("; "))
}

/// Why a plan whose tasks name the folders their trials write (`writes:`) cannot run under
/// `walls`: that is a narrower grant of Landlock's filesystem wall, and without the wall the
/// trials would write their whole folder, where the walls of node checks, which look only
/// where the trials write, do not look at all of it.
pub fn writes_refusal(walls: &Walls) -> Option<String> {
    let task = walls.writes.keys().next()?;
    (walls.filesystem == FilesystemWall::Unconfined).then(|| {
        format!(
            "task `{task}` names the folders its trials write (`writes:`), which only Landlock's \
             filesystem wall enforces, and this machine has no Landlock (needs Linux 5.13 with \
             Landlock enabled; drop `writes:` to run with the walls it has)"
        )
    })
}

/// One run's box: the walls, gate's protected paths, and the template of each attempt's
/// confinement.
#[derive(Debug)]
pub struct Sandbox {
    walls: Walls,
    /// Paths no trial may write (absolute, symbolic links resolved where they exist).
    protected: Vec<PathBuf>,
    /// gate's folders (the ledger's, the reports'): read-only to a trial under the mount
    /// layer unless they hold one of its roots.
    state_dirs: Vec<PathBuf>,
    /// The mount layer's namespace, when it is in force.
    ns: Option<Namespace>,
    /// The plans `gate run` without a path would find here (`gate.yaml`, …) that did not
    /// exist when the run started: one a trial creates would shadow the real plan.
    absent_plans: Vec<PathBuf>,
    /// Paths with what each was when the run started (missing, a link and its text, or
    /// another file by its device and inode), which must be the same when a check runs and
    /// when the run ends: where a check's interpreter looks for what it loads
    /// ([`Sandbox::watch`]).
    watched: Vec<(PathBuf, String)>,
    /// `package.json` paths with what each gave node's resolution of a package by name
    /// when the run started ([`Sandbox::watch_manifests`]).
    manifests: Vec<(PathBuf, Option<String>)>,
    /// `package.json` paths with their `scripts` when the run started, on the way of the
    /// checks that run a package manager's script ([`Sandbox::watch_scripts`]).
    scripts: Vec<(PathBuf, Option<String>)>,
    /// The configuration the tools of a node check read from the folders on its way, as it
    /// was when the run started ([`Sandbox::watch_configs`]).
    configs: configs::Configs,
    /// The packages of the `node_modules` folders on the checks' way, as they were when the
    /// run started ([`Sandbox::watch_packages`]).
    packages: packages::Packages,
    /// The files Python or pytest run by themselves in the folders the trials write, as
    /// they were when the run started ([`Sandbox::watch_autoloads`]).
    autoloads: autoload::Autoloads,
    /// Writable roots besides each task's working directory.
    writable: Vec<PathBuf>,
    /// The repository each task folder was in when the run started, as `GIT_DIR`,
    /// `GIT_WORK_TREE` and `GIT_ATTR_SOURCE` for its check, and the versions its version
    /// managers' shims run ([`Sandbox::pin_checks`]).
    check_pins: Vec<(PathBuf, Vec<(String, String)>)>,
    /// Gate's environment less the withheld names, made once per run for every spawn.
    env: BaseEnv,
    /// Where attempts' temporary directories are made.
    tmp_root: PathBuf,
    /// This run's folder of trial result folders (`gate-PID-N-results` in `tmp_root`, mode
    /// 0700, removed when the box drops): outside the task's roots, so that a trial's result
    /// folder is writable by that trial's box alone.
    results: PathBuf,
    /// Holds `flock` on `results` while this run lives.
    _results_lock: fs::File,
    /// The run folders seen (head's, and base's for a compare task), by position: run
    /// folder `k` (from 1) has its trials' result folders in `results/k/`.
    run_dirs: Mutex<Vec<PathBuf>>,
    /// The mount namespaces made so far, by the writable roots whose binds they hold (one
    /// per working folder of a plan's tasks, usually), each joined by every later attempt
    /// with the same roots. At most [`MAX_SPACES`]; past that an attempt makes its own.
    spaces: Mutex<Vec<(Vec<PathBuf>, Arc<Space>)>>,
    /// Empty folders of finished attempts (their `TMPDIR`s) and trials (their result
    /// folders), renamed into the next ones instead of being removed and made again.
    spares: Arc<Spares>,
    /// The paths every attempt's Landlock ruleset grants whatever its roots (the character
    /// devices every shell writes to, `/dev/pts`, `/dev/shm`), opened once per run
    /// (`O_PATH`) instead of per attempt ([`Fixed`]). Those absent or refused at the
    /// start are left out, as each attempt left them out before.
    fixed: Vec<Fixed>,
    /// Taken shared by each trial's agent while it runs and alone by a check the looks guard
    /// from its first look to its end ([`Sandbox::agent_turn`], [`Sandbox::check_turn`]).
    turns: std::sync::RwLock<()>,
}

/// What `p` is, links not followed: missing, a link and its text, or a file of some type by
/// its device and inode ([`Sandbox::watch`]).
fn entry_state(p: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    match fs::symlink_metadata(p) {
        Err(_) => "missing".to_string(),
        // A link by its text and by where it leads now, every link on the way followed: a
        // trial re-points a link the text names (`node_modules -> vendor/nm`, `vendor` a
        // link), or creates a dangling link's target (review 30, 12a-12c).
        Ok(m) if m.file_type().is_symlink() => match (fs::read_link(p), fs::canonicalize(p)) {
            (Ok(to), Ok(at)) => {
                let what = fs::metadata(&at)
                    .map(|m| (m.dev(), m.ino()))
                    .unwrap_or_default();
                format!("link {} to {} {what:?}", to.display(), at.display())
            }
            (Ok(to), Err(_)) => format!("link {}, dangling", to.display()),
            (Err(_), _) => "unreadable link".to_string(),
        },
        Ok(m) => format!("{:?} {} {}", m.file_type(), m.dev(), m.ino()),
    }
}

/// A `package.json` larger than this is not read: node would read it, so it is a change
/// of its own ([`manifest_state`]).
const MANIFEST_BYTES: u64 = 4 << 20;

/// What the `package.json` at `p` gives node's resolution of a package by name: its `name`
/// with its `exports` and `imports` where it has either (self-reference and `#…` names),
/// or `None` where it gives none (missing, or read and holding neither field). Anything
/// else is a state of its own, so that a trial cannot make gate read less than node does
/// (review 42): a file gate cannot read as JSON that node may (a byte order mark, which is
/// taken out first; nesting past the parser's depth; a number out of range; invalid UTF-8)
/// by its hash; a link by its text and what it leads to, read from the link's own folder
/// (node resolves `/proc/self/cwd/…` from the check's folder, not gate's); something not a
/// regular file; a file too large to read.
fn manifest_state(p: &Path) -> Option<String> {
    manifest_state_at(p, 0, &["exports", "imports"])
}

/// What the `package.json` at `p` gives a package manager that runs one of its scripts
/// (`npm test`): its `scripts`, read as [`manifest_state`] reads (review 42, 110l, 110m: a
/// trial that rewrites `scripts.test` to `exit 0`).
fn scripts_state(p: &Path) -> Option<String> {
    manifest_state_at(p, 0, &["scripts"])
}

/// [`manifest_state`] of `fields` (with `name`): `None` where the file is missing or holds
/// none of them.
fn manifest_state_at(p: &Path, depth: usize, fields: &[&str]) -> Option<String> {
    let meta = fs::symlink_metadata(p).ok()?;
    if meta.file_type().is_symlink() {
        let text = fs::read_link(p).ok();
        let inner = match &text {
            Some(t) if depth < 8 && !t.starts_with("/proc") => {
                let at = p.parent().map_or_else(|| t.clone(), |d| d.join(t));
                manifest_state_at(&at, depth + 1, fields)
            }
            _ => None,
        };
        return Some(format!("link {text:?} to {inner:?}"));
    }
    if !meta.is_file() {
        return Some(format!("not a file: {:?}", meta.file_type()));
    }
    if meta.len() > MANIFEST_BYTES {
        return Some(format!("{} bytes", meta.len()));
    }
    // Without blocking, and a regular file by the descriptor opened: with `policy.jobs`
    // above 1 another trial may put a FIFO in its place after the look above.
    let Ok(text) = crate::input::read_regular(p, MANIFEST_BYTES) else {
        return Some("unreadable".to_string());
    };
    let body = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&text);
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) else {
        return Some(format!(
            "not read as JSON: {}",
            crate::ledger::sha256_hex(&text)
        ));
    };
    if fields.iter().all(|f| value.get(f).is_none()) {
        return None;
    }
    let mut kept = serde_json::Map::new();
    kept.insert("name".into(), value.get("name").cloned().into());
    for f in fields {
        kept.insert((*f).into(), value.get(f).cloned().into());
    }
    Some(serde_json::Value::Object(kept).to_string())
}

/// Mount namespaces kept open per run (two descriptors each under a user namespace).
const MAX_SPACES: usize = 64;

impl Sandbox {
    /// Probe the kernel and prepare the run's box. `protected` are gate's paths: its binary,
    /// the plan, the ledger and its lock, the reports, the run's output folder; `state_dirs`
    /// gate's folders (the ledger's, the reports'). Refuses (the reason, one line) when
    /// `policy.sandbox: required` and a wall cannot be raised.
    pub fn new(
        policy: &SandboxPolicy,
        protected: &[PathBuf],
        state_dirs: &[PathBuf],
        compares: bool,
        writes: BTreeMap<String, Vec<String>>,
    ) -> Result<Sandbox, String> {
        let walls = for_plan(walls(policy), compares, &policy.writable, writes);
        if let Some(why) = writes_refusal(&walls) {
            return Err(format!("{why}; no trial was run"));
        }
        if policy.mode == SandboxMode::Required
            && let Some(why) = shortfall(&walls)
        {
            return Err(format!(
                "`policy.sandbox: required`, but this machine cannot box the trials: {why}; \
                 no trial was run (use `policy.sandbox: best_effort` to run with the walls it has)"
            ));
        }
        let ns = (walls.mounts == MountWall::StateReadOnly)
            .then(|| mounts::available().ok())
            .flatten();
        let env = BaseEnv::inherited(&withheld_env(&walls.pass_env));
        let tmp_root = resolve(&std::env::temp_dir());
        remove_stale(&tmp_root);
        let (results, results_lock) = make_results_root(&tmp_root).map_err(|e| {
            format!("cannot make the folder of the trials' result folders: {e}; no trial was run")
        })?;
        let fixed = fixed_paths(&walls);
        Ok(Sandbox {
            walls,
            protected: protected.iter().map(|p| resolve(p)).collect(),
            state_dirs: state_dirs.iter().map(|p| resolve(p)).collect(),
            ns,
            absent_plans: crate::plan::discover::DEFAULT_PLANS
                .iter()
                .map(|p| resolve(Path::new(p)))
                .filter(|p| fs::symlink_metadata(p).is_err())
                .collect(),
            writable: policy.writable.iter().map(|p| resolve(p)).collect(),
            watched: Vec::new(),
            manifests: Vec::new(),
            scripts: Vec::new(),
            configs: configs::Configs::default(),
            packages: packages::Packages::default(),
            autoloads: autoload::Autoloads::default(),
            check_pins: Vec::new(),
            env,
            tmp_root,
            results,
            _results_lock: results_lock,
            run_dirs: Mutex::new(Vec::new()),
            spaces: Mutex::new(Vec::new()),
            spares: Arc::default(),
            fixed,
            turns: std::sync::RwLock::new(()),
        })
    }

    /// The folder holding the result folders of `task`'s trials run from run folder
    /// `run_dir` (see [`crate::runner::AttemptSpec::result_dir`]).
    pub fn results_of(&self, run_dir: &Path, task: &str) -> PathBuf {
        let mut dirs = self.run_dirs.lock().unwrap_or_else(|e| e.into_inner());
        let k = match dirs.iter().position(|d| d == run_dir) {
            Some(i) => i + 1,
            None => {
                dirs.push(run_dir.to_path_buf());
                dirs.len()
            }
        };
        self.results.join(k.to_string()).join(task)
    }

    /// Make trial `dir`'s result folder (a folder of [`Sandbox::results_of`]), mode 0700,
    /// with the folders above it: a spare result folder of the same task renamed to it where
    /// there is one. Nothing when it exists (a later attempt of the trial).
    pub fn make_result_dir(&self, dir: &Path) -> io::Result<()> {
        let key = dir.parent().unwrap_or(dir);
        match self.spares.make(key, dir) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir),
            r => r.map(drop),
        }
    }

    /// Trial `dir`'s result folder is done with (its attempts over, their processes gone):
    /// kept for the task's next trial when it is empty and as gate made it, else removed.
    pub fn release_result_dir(&self, dir: &Path) {
        self.spares.give_back(dir.parent().unwrap_or(dir), dir);
    }

    /// The plans `gate run` without a path would find here that appeared during the run
    /// (a trial created one: a later `gate run` would load it instead of the real plan).
    pub fn planted_plans(&self) -> Vec<&Path> {
        self.absent_plans
            .iter()
            .filter(|p| fs::symlink_metadata(p).is_ok())
            .map(PathBuf::as_path)
            .collect()
    }

    /// Watch `paths` as they are now: where a check's node looks for its packages
    /// ([`crate::plan::state::NodeFolders::watched`]). One a trial creates, removes, or
    /// re-points (a link, a file, a dangling link replaced by a folder of its own) changes
    /// what the check loads. Neither the box nor the end-of-run fingerprints can forbid a
    /// name that is not there, and a later trial could undo it, so each check looks before
    /// it starts ([`Sandbox::moved`]).
    pub fn watch(&mut self, paths: &[PathBuf]) {
        self.watched
            .extend(paths.iter().map(|p| (p.clone(), entry_state(p))));
    }

    /// Watch the `package.json` files at `paths` as they are now: where node resolves a
    /// package a check loads by its name ([`crate::plan::state::NodeFolders::manifests`]).
    /// Only what changes that resolution is compared ([`manifest_state`]): an agent's `npm
    /// install` rewrites the file's dependencies, not its `name`, `exports` or `imports`.
    pub fn watch_manifests(&mut self, paths: &[PathBuf]) {
        self.manifests
            .extend(paths.iter().map(|p| (p.clone(), manifest_state(p))));
    }

    /// The first watched `package.json` ([`Sandbox::watch_manifests`]) whose `name`,
    /// `exports` or `imports` is not what it was when the run started.
    pub fn changed_manifest(&self) -> Option<&Path> {
        self.manifests
            .iter()
            .find(|(p, was)| manifest_state(p) != *was)
            .map(|(p, _)| p.as_path())
    }

    /// Note the files Python or pytest would run by themselves (`sitecustomize`, a `pytest11`
    /// entry point) in `roots`, the folders the trials write, as they are now; a new or
    /// changed one refuses the next check ([`autoload`]: review 75). Returns why it cannot,
    /// if it cannot: then nothing is watched and the caller refuses the run.
    pub fn watch_autoloads(&mut self, roots: &[PathBuf]) -> Option<autoload::Unwatched> {
        match autoload::Autoloads::take(roots) {
            Ok(looks) => {
                self.autoloads = looks;
                None
            }
            Err(why) => Some(why),
        }
    }

    /// Watch the `scripts` of the `package.json` files at `paths` as they are now
    /// ([`crate::plan::state::NodeFolders::scripts`]): where a package manager a check runs
    /// reads the command it runs (`npm test`).
    pub fn watch_scripts(&mut self, paths: &[PathBuf]) {
        self.scripts
            .extend(paths.iter().map(|p| (p.clone(), scripts_state(p))));
    }

    /// The first watched `package.json` ([`Sandbox::watch_scripts`]) whose `scripts` is not
    /// what it was when the run started.
    pub fn changed_scripts(&self) -> Option<&Path> {
        self.scripts
            .iter()
            .find(|(p, was)| scripts_state(p) != *was)
            .map(|(p, _)| p.as_path())
    }

    /// Watch the configuration in `folders` as it is now
    /// ([`crate::plan::state::NodeFolders::configs`], [`configs::Configs`]).
    ///
    /// The check's folder whose walk stopped at its bound, if any ([`configs::Configs::partial`]).
    pub fn watch_configs(
        &mut self,
        folders: &[PathBuf],
        roots: &[(PathBuf, PathBuf)],
        writable: &[PathBuf],
        named: &[PathBuf],
    ) -> Option<&Path> {
        self.configs = configs::Configs::take(folders, roots, writable, named);
        self.configs.partial()
    }

    /// The first configuration file on a node check's way that appeared, went, or changed
    /// since the run started ([`Sandbox::watch_configs`]).
    pub fn changed_config(&self) -> Option<PathBuf> {
        self.configs.changed()
    }

    /// Watch the packages of the `node_modules` at `paths` as they are now
    /// ([`crate::plan::state::NodeFolders::packages`], [`packages::Packages`]), with the
    /// names the checks run through a launcher (a new one in a `.bin` is a change); the
    /// folder past whose first [`packages::PACKAGE_ENTRIES`] entries nothing is watched, if
    /// any.
    pub fn watch_packages(&mut self, paths: &[PathBuf], launched: &[String]) -> Option<&Path> {
        let installs = self.walls().installs.clone();
        self.packages = packages::Packages::take(paths, launched, installs);
        self.packages.partial()
    }

    /// The first path of a watched package ([`Sandbox::watch_packages`]) that is not what it
    /// was when the run started.
    pub fn changed_package(&self) -> Option<PathBuf> {
        self.packages.changed()
    }

    /// The first watched package file, `package.json`, tool configuration or file Python
    /// runs by itself ([`autoload`]) written after `started` (the run's
    /// start, from its ledger's header): what `--resume` would take as the run's start may be
    /// what a trial of the first part wrote.
    pub fn written_since(&self, started: &str) -> Option<PathBuf> {
        use std::os::unix::fs::MetadataExt;
        let configs = || self.configs.written_since(started);
        self.packages
            .written_since(started)
            .or_else(configs)
            .or_else(|| self.autoloads.written_since(started))
            .or_else(|| {
                (self.manifests.iter().chain(&self.scripts))
                    .map(|(p, _)| p)
                    .find(|p| {
                        fs::symlink_metadata(p)
                            .is_ok_and(|m| packages::after((m.ctime(), m.ctime_nsec()), started))
                    })
                    .cloned()
            })
    }

    /// Whether a check runs only after looks at what a trial may have changed where its node
    /// loads from ([`Sandbox::watch`], [`Sandbox::watch_manifests`],
    /// [`Sandbox::watch_packages`]). Such a check trusts that nothing changes between its
    /// looks and its end, which a trial running beside it (`policy.jobs` above 1, a compare's
    /// two sides) could break by planting a package just after the looks and taking it away
    /// before the next (review 42, 110t; review 43, 03b).
    fn looks(&self) -> bool {
        !(self.watched.is_empty()
            && self.manifests.is_empty()
            && self.scripts.is_empty()
            && self.configs.is_empty()
            && self.packages.is_empty()
            && self.autoloads.is_empty())
    }

    /// The turn of a trial's agent, held while it runs: agents run beside each other, never
    /// beside a check that looks ([`Sandbox::check_turn`]). `None` where no check looks.
    pub fn agent_turn(&self) -> Option<std::sync::RwLockReadGuard<'_, ()>> {
        self.looks()
            .then(|| self.turns.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// The turn of a check that looks, held from its first look to its end: no other trial's
    /// agent or check runs meanwhile (the lock prefers a waiting check to a new agent, so
    /// checks are not starved). `None` where no check looks.
    pub fn check_turn(&self) -> Option<std::sync::RwLockWriteGuard<'_, ()>> {
        self.looks()
            .then(|| self.turns.write().unwrap_or_else(|e| e.into_inner()))
    }

    /// [`Sandbox::changed_package`], every path compared: the look at the end of the run.
    pub fn changed_package_since_start(&self) -> Option<PathBuf> {
        self.packages.changed_since_start()
    }

    /// Why the run publishes no verdict when `path` is
    /// [`Sandbox::changed_package_since_start`].
    pub fn package_refusal(&self, path: &Path) -> String {
        self.packages.refusal(path, false)
    }

    /// Why a check may not run now, by the first wall a trial's change reached, or `None`:
    /// a folder on node's way to the check's packages moved ([`Sandbox::moved`]: review 26,
    /// 14; review 29, 01d), a `name`/`exports`/`imports` node reads first changed
    /// ([`Sandbox::changed_manifest`]: review 41), a package script the check runs changed
    /// ([`Sandbox::changed_scripts`]: review 42, 110l, 110m), a tool's configuration changed
    /// ([`Sandbox::changed_config`]: review 46, a20, a24-a27; review 48, c06; review 50), or a
    /// package node may load for the check was rewritten or shadowed
    /// ([`Sandbox::changed_package`]: review 42, 110g-110h), or a trial left a file Python or
    /// pytest would run by itself where a check's Python may look ([`autoload`]: review 75).
    pub fn check_refusal(&self) -> Option<String> {
        if let Some(made) = self.moved() {
            return Some(format!(
                "`{}` changed during the run (it appeared, went, or was re-pointed), where \
                 node looks for the check's packages (a trial did it); the check was not run \
                 and no verdict is published (keep node graders and their packages outside the \
                 folders the trials write)",
                made.display()
            ));
        }
        if let Some(manifest) = self.changed_manifest() {
            return Some(format!(
                "`{}` changed its `name`, `exports` or `imports` during the run (a trial did \
                 it), where node resolves a package a check loads by its name, so the trial's \
                 file would be that package; the check was not run and no verdict is published \
                 (an agent must not change them; keep node graders beside their own \
                 `package.json`)",
                manifest.display()
            ));
        }
        if let Some(manifest) = self.changed_scripts() {
            return Some(format!(
                "`{}` changed its `scripts` during the run (a trial did it), and the check runs \
                 a package manager's script, which would be the trial's; the check was not run \
                 and no verdict is published (an agent must not change them; run the grader by \
                 its path, from its own folder)",
                manifest.display()
            ));
        }
        if let Some(file) = self.changed_config() {
            return Some(self.configs.refusal(&file));
        }
        if let Some(file) = self.changed_package() {
            return Some(self.packages.refusal(&file, true));
        }
        autoload::Autoloads::refusal(&self.autoloads.changed())
    }

    /// The first watched path ([`Sandbox::watch`]) that is not what it was.
    pub fn moved(&self) -> Option<&Path> {
        self.watched
            .iter()
            .find(|(p, was)| entry_state(p) != *was)
            .map(|(p, _)| p.as_path())
    }

    /// The environment every trial starts from: gate's own, less the CI files and tokens
    /// the plan does not pass (`policy.sandbox.pass_env`); `TMPDIR`, the plan's `env:` and
    /// the `GATE_*` names are added per attempt.
    pub(crate) fn env(&self) -> &BaseEnv {
        &self.env
    }

    /// Pin git for the checks of tasks working in `cwds` to the repository each folder was
    /// in before the first trial (reviews 19 to 23): git looks for its repository from the
    /// folder it runs in upward, so a `.git` a trial makes in the task folder, in a sub-folder
    /// a grader changes to, or in place of a worktree's `.git` file would be found first,
    /// whatever runs git (a grader script, a compiled program, a name built at run time).
    /// With `GIT_DIR` and `GIT_WORK_TREE` set, git searches nothing. A folder in no
    /// repository gets a `GIT_DIR` that does not exist: git in its check fails.
    ///
    /// The same holds for the version managers' shims (review 25, 01, 10, 20): a `python`
    /// that is pyenv's shim runs the version a `.python-version` in the folder it runs in (or
    /// one above) names, which a trial can write (a Python 2 whose `input()` evaluates the
    /// answer), however the shim is reached (a grader script's `python`, a shebang
    /// `#!/usr/bin/env python`, the shim's full path). The versions the files name before
    /// the first trial are given to the check as `PYENV_VERSION`, `RBENV_VERSION`,
    /// `NODENV_VERSION` and asdf's `ASDF_<TOOL>_VERSION`
    /// ([`crate::plan::state::version_pins`]), which the shims read before any file.
    pub fn pin_checks(&mut self, cwds: &[PathBuf]) {
        if self.walls.policy == SandboxMode::Off {
            return;
        }
        for cwd in cwds {
            let cwd = resolve(cwd);
            if self.check_pins.iter().any(|(c, _)| *c == cwd) {
                continue;
            }
            let (dir, top) = crate::plan::state::repository_of(&cwd).unwrap_or_else(|| {
                (
                    PathBuf::from("/nonexistent/gate: no repository when the run started"),
                    cwd.clone(),
                )
            });
            // The attributes too (review 24, 02: a trial's `.gitattributes` with `* text`
            // made `git diff` see a file it had rewritten with CRLF as unchanged): read from
            // the commit `HEAD` named when the run started (git 2.40 and later).
            let attributes = crate::plan::state::head_commit(&dir);
            let mut pin = vec![
                ("GIT_DIR".to_string(), dir.to_string_lossy().into_owned()),
                (
                    "GIT_WORK_TREE".to_string(),
                    top.to_string_lossy().into_owned(),
                ),
            ];
            pin.extend(attributes.map(|id| ("GIT_ATTR_SOURCE".to_string(), id)));
            pin.extend(crate::plan::state::version_pins(&cwd, |name| {
                std::env::var_os(name).is_some()
            }));
            self.check_pins.push((cwd, pin));
        }
    }

    /// The variables [`Sandbox::pin_checks`] pins for the checks of a task working in `cwd`
    /// (none with the box off).
    pub fn check_env(&self, cwd: &Path) -> &[(String, String)] {
        let cwd = resolve(cwd);
        self.check_pins
            .iter()
            .find(|(c, _)| *c == cwd)
            .map_or(&[], |(_, pin)| pin.as_slice())
    }

    /// The walls that stand around every trial of this run.
    pub fn walls(&self) -> &Walls {
        &self.walls
    }

    /// Build one attempt's box: a fresh temporary directory, and (unless the policy is
    /// `off`) the Landlock ruleset and seccomp programs for a task working in `cwd` that
    /// writes there (or only in `writes`, its `writes:` folders) and whose result file goes
    /// in `result_dir`.
    pub fn cell(
        &self,
        cwd: &Path,
        writes: Option<&[PathBuf]>,
        result_dir: &Path,
    ) -> io::Result<Cell> {
        let tmpdir = fresh_dir_from(&self.tmp_root, "", Some((&self.spares, cwd)))?;
        // Removed (or kept as a spare of `cwd`) if anything below fails.
        let mut cell = Cell {
            tmpdir,
            cwd: cwd.to_path_buf(),
            spares: Arc::clone(&self.spares),
            _ruleset: None,
            child: Arc::new(ChildBox {
                ruleset: None,
                filters: Vec::new(),
                layer: None,
                pid_ns: None,
                shm: None,
                caps: None,
            }),
        };
        let tmpdir = cell.tmpdir.clone();
        let mut child = ChildBox {
            ruleset: None,
            filters: Vec::new(),
            layer: None,
            pid_ns: self
                .walls
                .pid_namespace
                .then(|| rustix::process::getpid().as_raw_nonzero().get()),
            shm: None,
            caps: crate::runner::mounts::fallback_caps(),
        };
        let mut ruleset = None;
        if self.walls.landlock_abi > 0 && self.walls.filesystem != FilesystemWall::Unconfined {
            // The roots as resolved when the run started, never again: a folder a trial can
            // replace (one root beneath another, `writes: [work, work/sub]`; a working folder
            // inside `policy.sandbox.writable`) must not lead the grant where its new link
            // points (review 63, 01-03, 13). So each is checked to hold no link on its way,
            // and [`Rules::grant`] opens every path it grants without following one.
            let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
            let here = absolute(cwd);
            let own: Vec<PathBuf> = match writes {
                Some(folders) => folders.iter().map(|w| absolute(w)).collect(),
                None => vec![here.clone()],
            };
            let roots: Vec<PathBuf> = own
                .into_iter()
                .chain(self.writable.iter().cloned())
                .collect();
            for root in roots.iter().chain([&here]) {
                unlinked(root)?;
            }
            let result_dir = resolve(result_dir);
            if let Some(ns) = self.ns {
                child.layer = Some(self.layer(ns, &roots, &result_dir, &tmpdir, &here)?);
            }
            let no_links = writes.map_or(0, <[PathBuf]>::len);
            let (fd, shm) = self.ruleset(&roots, no_links, &result_dir, &tmpdir)?;
            child.ruleset = Some(fd.as_raw_fd());
            child.shm = shm;
            ruleset = Some(fd);
        }
        if self.walls.signals == SignalWall::Filtered {
            child.filters = signal_filters()?;
        }
        cell._ruleset = ruleset;
        cell.child = Arc::new(child);
        Ok(cell)
    }

    /// One attempt's mount layer: join the namespace made for the same roots (made now if
    /// this is the first such attempt), unless the attempt's own temporary directory or
    /// result folder lies beneath one of its read-only binds (a `TMPDIR` inside gate's
    /// state): that attempt needs writable binds of its own, in a namespace of its own. (A
    /// namespace shared by the trials of a task holds no folder of one trial: every trial
    /// could write there.)
    fn layer(
        &self,
        ns: Namespace,
        roots: &[PathBuf],
        result_dir: &Path,
        tmpdir: &Path,
        cwd: &Path,
    ) -> io::Result<Layer> {
        let own = |holes: &[&Path]| {
            Layer::plan(
                ns,
                &Binds {
                    protected: &self.protected,
                    state_dirs: &self.state_dirs,
                    roots,
                    holes,
                },
            )
        };
        let mut spaces = self.spaces.lock().unwrap_or_else(|e| e.into_inner());
        let found = spaces
            .iter()
            .find(|(r, _)| r.as_slice() == roots)
            .map(|(_, s)| Arc::clone(s));
        let space = match found {
            Some(space) => space,
            None if spaces.len() >= MAX_SPACES => {
                drop(spaces);
                return own(&[tmpdir, result_dir]);
            }
            None => {
                // Made under the lock: lanes of the same task wait for one namespace rather
                // than each make their own.
                let space = Arc::new(own(&[])?.persist()?);
                spaces.push((roots.to_vec(), Arc::clone(&space)));
                space
            }
        };
        drop(spaces);
        if space.covers(tmpdir) || space.covers(result_dir) {
            return own(&[tmpdir, result_dir]);
        }
        Layer::join(ns, space, cwd)
    }

    /// The Landlock ruleset of one attempt: its roots whole under the mount layer (gate's
    /// state in them is read-only there), else the allow-list of the module doc; the first
    /// `no_links` roots (a task's `writes:` folders) without the right to make a symbolic
    /// link. With it, the rights a trial's private `/dev/shm` gets ([`ChildBox::shm`]).
    ///
    /// Built with the `landlock` crate as a hard requirement: every right and scope asked for
    /// is one the recorded ABI handles (never above the kernel's), so the crate refuses
    /// rather than drop one, and the walls gate states are the walls that stand.
    fn ruleset(
        &self,
        roots: &[PathBuf],
        no_links: usize,
        result_dir: &Path,
        tmpdir: &Path,
    ) -> io::Result<(OwnedFd, Option<u64>)> {
        let (handled, scopes) = handled_access(self.walls.landlock_abi, &self.walls);
        let created = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(handled)
            .and_then(|r| {
                if scopes.is_empty() {
                    Ok(r)
                } else {
                    r.scope(scopes)
                }
            })
            .and_then(Ruleset::create)
            .map_err(|e| io::Error::other(format!("cannot create a Landlock ruleset: {e}")))?;
        let mut rules = Rules {
            ruleset: created,
            // Device nodes are handled but never granted: a privileged task that could make
            // a block device could write the disk beneath every wall.
            dir: handled & !(AccessFs::MakeChar | AccessFs::MakeBlock),
            file: handled & (AccessFs::WriteFile | AccessFs::Truncate),
            protected: &self.protected,
        };
        let all = rules.dir;
        // The task's `writes:` folders get no right to make a symbolic link (review 65): a
        // folder a trial replaces with a link would lead every path through it, `..`
        // included, where the link points, however the check spells that path. A renamed
        // real folder keeps its `..`. And where a trial may make links (its `TMPDIR`, its
        // result folder, `policy.sandbox.writable`), it may not move anything out (no
        // `REFER`): a folder holding a link, made there and renamed into a `writes` folder,
        // would bring the link with it (review 66, 01, 03, 04). `mv` copies instead, and the
        // copy of a link is refused.
        let linked = if no_links > 0 {
            all & !AccessFs::Refer
        } else {
            all
        };
        for (k, root) in roots.iter().enumerate() {
            rules.dir = if k < no_links {
                all & !AccessFs::MakeSym
            } else {
                linked
            };
            if self.ns.is_none() {
                rules.tree(root)?;
            } else if !self.protected.iter().any(|p| root.starts_with(p)) {
                rules.grant_if_present(root, rules.dir)?;
            }
        }
        rules.dir = all;
        // Gate made these for this attempt; they hold nothing of gate's.
        rules.grant(tmpdir, linked)?;
        rules.grant(result_dir, linked)?;
        // `/dev/shm` and `/dev/pts` hold no link or move of a task with `writes:` either: a
        // task folder beneath one would get both rights back from it (review 67, 05).
        let shared_folder = if no_links > 0 {
            linked & !AccessFs::MakeSym
        } else {
            rules.dir
        };
        for fixed in &self.fixed {
            let wanted = if fixed.folder_rights {
                shared_folder
            } else {
                rules.file
            };
            match &fixed.opened {
                // Rights that only folders have are refused on a file, as in `grant`.
                Ok((fd, true)) => rules.add(&fixed.path, fd, wanted)?,
                Ok((fd, false)) => rules.add(&fixed.path, fd, wanted & rules.file)?,
                // Any other failure to open it fails every attempt's box, as it did.
                Err(e) => return Err(io::Error::from_raw_os_error(e.raw_os_error())),
            }
        }
        // Under the mount layer each trial process mounts a `/dev/shm` of its own, after this
        // ruleset is built; the rule above names the machine's, which the trial no longer
        // sees. So the child grants its own the same rights (review 67, 10: POSIX shared
        // memory and semaphores failed with `EACCES` while the sandbox line said "a private
        // /dev/shm").
        let shm = (self.walls.shm == ShmWall::Private).then(|| shared_folder.bits());
        // The child restricts itself with the raw system call on this descriptor (see
        // `ChildBox::install`).
        let fd = Option::<OwnedFd>::from(rules.ruleset).ok_or_else(|| {
            io::Error::other("cannot create a Landlock ruleset: Landlock is not enforced")
        })?;
        Ok((fd, shm))
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        // Every trial has ended (the launchers hold the box while any runs); std's
        // remove_dir_all never follows a link a task left there.
        let _ = fs::remove_dir_all(&self.results);
    }
}

/// The filesystem rights a ruleset handles under Landlock ABI `abi`, and the scopes it
/// raises under `walls`: write-like rights only (the task reads everywhere), `REFER` from
/// ABI 2 (under ABI 1 a file never moves to another folder), `TRUNCATE` from ABI 3, the
/// signal and abstract-socket scopes where the walls record them (ABI 6).
fn handled_access(abi: u32, walls: &Walls) -> (BitFlags<AccessFs>, BitFlags<Scope>) {
    let mut handled = AccessFs::WriteFile
        | AccessFs::RemoveDir
        | AccessFs::RemoveFile
        | AccessFs::MakeChar
        | AccessFs::MakeDir
        | AccessFs::MakeReg
        | AccessFs::MakeSock
        | AccessFs::MakeFifo
        | AccessFs::MakeBlock
        | AccessFs::MakeSym;
    if abi >= 2 {
        handled |= AccessFs::Refer;
    }
    if abi >= ABI_TRUNCATE {
        handled |= AccessFs::Truncate;
    }
    let mut scopes = BitFlags::empty();
    if walls.signals == SignalWall::Scoped {
        scopes |= Scope::Signal;
    }
    if walls.sockets_scoped {
        // A session bus, an X server or a container runtime listening on an abstract name
        // is none of the task's business.
        scopes |= Scope::AbstractUnixSocket;
    }
    (handled, scopes)
}

/// A path every attempt's ruleset grants ([`Sandbox::fixed`]).
#[derive(Debug)]
struct Fixed {
    path: PathBuf,
    /// Granted the rights of a writable folder (else those of a writable file).
    folder_rights: bool,
    /// Its `O_PATH` descriptor and whether it is a folder, or why it could not be opened.
    opened: Result<(OwnedFd, bool), rustix::io::Errno>,
}

/// The fixed paths of every ruleset, opened as [`Rules::grant`] opens a path (`O_PATH`, no
/// link followed); as there, a link, an absent path and one refused (`EACCES`) are left out.
fn fixed_paths(walls: &Walls) -> Vec<Fixed> {
    use rustix::fs::{FileType, Mode, OFlags};
    let mut paths = vec![
        ("/dev/null", false),
        ("/dev/zero", false),
        ("/dev/full", false),
        ("/dev/tty", false),
        ("/dev/ptmx", false),
        ("/dev/pts", true),
    ];
    if walls.shm != ShmWall::Withheld {
        // Under the mount layer a fresh tmpfs of the trial's own (`pidns`).
        paths.push(("/dev/shm", true));
    }
    let open = |path: &str| {
        let fd = rustix::fs::open(
            path,
            OFlags::PATH | OFlags::CLOEXEC | OFlags::NOFOLLOW,
            Mode::empty(),
        )?;
        let kind = FileType::from_raw_mode(rustix::fs::fstat(&fd)?.st_mode);
        Ok((fd, kind))
    };
    paths
        .into_iter()
        .filter_map(|(path, folder_rights)| {
            let opened = match open(path) {
                Err(rustix::io::Errno::NOENT | rustix::io::Errno::ACCESS) => return None,
                Ok((_, FileType::Symlink)) => return None,
                Ok((fd, kind)) => Ok((fd, kind == FileType::Directory)),
                Err(e) => Err(e),
            };
            Some(Fixed {
                path: PathBuf::from(path),
                folder_rights,
                opened,
            })
        })
        .collect()
}

/// Adds the rules of one ruleset.
struct Rules<'a> {
    ruleset: RulesetCreated,
    /// Rights granted on a writable folder (all the handled ones).
    dir: BitFlags<AccessFs>,
    /// Rights granted on a writable file.
    file: BitFlags<AccessFs>,
    protected: &'a [PathBuf],
}

impl Rules<'_> {
    /// Grant `root` minus gate's protected paths (see the module doc).
    fn tree(&mut self, root: &Path) -> io::Result<()> {
        if self.protected.iter().any(|p| root.starts_with(p)) {
            // Inside gate's state: nothing.
            return Ok(());
        }
        if !self.protected.iter().any(|p| p.starts_with(root)) {
            return self.grant_if_present(root, self.dir);
        }
        // `root` holds some of gate's state.
        let Ok(entries) = fs::read_dir(root) else {
            return Ok(());
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                self.tree(&path)?;
            } else if kind.is_file() && !self.protected.contains(&path) && !is_yaml(&path) {
                self.grant_if_present(&path, self.file)?;
            }
            // Symbolic links, sockets, FIFOs and devices in a folder of gate's: no grant.
        }
        Ok(())
    }

    fn grant_if_present(&mut self, path: &Path, access: BitFlags<AccessFs>) -> io::Result<()> {
        match self.grant(path, access) {
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT | libc::EACCES)) => Ok(()),
            r => r,
        }
    }

    /// One rule: `access` beneath `path` (a folder) or on it (a file). A symbolic link is
    /// not followed.
    fn grant(&mut self, path: &Path, access: BitFlags<AccessFs>) -> io::Result<()> {
        use rustix::fs::{FileType, Mode, OFlags, ResolveFlags};
        // O_PATH opens no content; no link is followed, on the way or at the end: every path
        // granted was resolved when the run started, so a link there now is one a trial
        // planted (a link at the end is opened as itself and granted nothing; one on the way
        // fails with ELOOP, and so does the attempt). (A path with a NUL byte fails with
        // EINVAL.)
        let fd = rustix::fs::openat2(
            rustix::fs::CWD,
            path,
            OFlags::PATH | OFlags::CLOEXEC | OFlags::NOFOLLOW,
            Mode::empty(),
            ResolveFlags::NO_SYMLINKS,
        )?;
        let stat = rustix::fs::fstat(&fd)?;
        let access = match FileType::from_raw_mode(stat.st_mode) {
            FileType::Directory => access,
            FileType::Symlink => return Ok(()),
            // Rights that only folders have are refused on a file.
            _ => access & self.file,
        };
        self.add(path, &fd, access)
    }

    /// One rule on an open descriptor (of `path`, for the message).
    fn add(&mut self, path: &Path, fd: &OwnedFd, access: BitFlags<AccessFs>) -> io::Result<()> {
        (&mut self.ruleset)
            .add_rule(PathBeneath::new(fd, access))
            .map_err(|e| {
                io::Error::other(format!(
                    "cannot add a Landlock rule for `{}`: {e}",
                    path.display()
                ))
            })?;
        Ok(())
    }
}

/// `root`, a folder the trials write as it was resolved when the run started, still is one:
/// no link on its way or at its end, else an error that says a trial replaced it. A root
/// that is gone is granted nothing ([`Rules::grant_if_present`]), so it passes here.
fn unlinked(root: &Path) -> io::Result<()> {
    use rustix::fs::{Mode, OFlags, ResolveFlags};
    match rustix::fs::openat2(
        rustix::fs::CWD,
        root,
        OFlags::PATH | OFlags::CLOEXEC | OFlags::DIRECTORY,
        Mode::empty(),
        ResolveFlags::NO_SYMLINKS,
    ) {
        Ok(_) => Ok(()),
        Err(e) if e == rustix::io::Errno::NOENT => Ok(()),
        Err(e) => Err(io::Error::other(format!(
            "`{}`, a folder the trials write, is not the folder it was when the run started \
             (a link is on its way, or it is no folder: {e}); a trial replaced it",
            root.display()
        ))),
    }
}

/// `path` made absolute with symbolic links resolved as far as it exists (a report that is
/// not written yet is protected at the path it will have).
fn resolve(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut existing = abs.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = fs::canonicalize(existing) {
            let mut out = real;
            out.extend(rest.iter().rev());
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return abs,
        }
    }
}

/// The withheld variables present in gate's environment, minus those the plan passes.
fn withheld_env(pass: &[String]) -> Vec<OsString> {
    std::env::vars_os()
        .filter_map(|(k, _)| {
            let name = k.to_str()?;
            (is_withheld(name) && !pass.iter().any(|p| p == name)).then_some(k)
        })
        .collect()
}

/// One attempt's box, built in the parent and installed in the child by
/// [`ChildWalls::install`] ([`Cell::walls`]).
/// Dropping it removes the attempt's temporary directory.
#[derive(Debug)]
pub struct Cell {
    tmpdir: PathBuf,
    /// The working folder the attempt ran in: the key of its `TMPDIR` as a spare.
    cwd: PathBuf,
    spares: Arc<Spares>,
    /// Keeps the descriptor `child.ruleset` names open until the cell drops.
    _ruleset: Option<OwnedFd>,
    child: Arc<ChildBox>,
}

/// What the child installs, prepared in the parent (nothing is allocated after `clone`).
#[derive(Debug)]
pub(crate) struct ChildBox {
    /// The Landlock ruleset's descriptor, inherited through `fork`.
    ruleset: Option<libc::c_int>,
    /// The seccomp programs, installed in order (none: empty).
    filters: Vec<seccompiler::BpfProgram>,
    /// The mount layer, when it is in force.
    layer: Option<Layer>,
    /// gate's pid, when each process runs in a PID namespace of its own (`pidns`).
    pid_ns: Option<libc::pid_t>,
    /// The Landlock rights of the trial's private `/dev/shm` (`pidns` mounts a tmpfs there in
    /// the trial's own mount namespace, after the parent built the ruleset), granted by the
    /// child before it restricts itself.
    shm: Option<u64>,
    /// Without the mount layer, as root: the capability sets the child drops to
    /// ([`crate::runner::mounts::fallback_caps`]).
    caps: Option<rustix::thread::CapabilitySets>,
}

impl ChildWalls for ChildBox {
    fn pid_namespace(&self) -> bool {
        self.layer.is_some() && self.pid_ns.is_some()
    }

    /// The order keeps each wall in force: the mounts first (the namespace and binds need
    /// privileges the later walls take away), the PID namespace ([`pidns::split`]), then
    /// `no_new_privs`, Landlock (from which on no mount can be changed), seccomp.
    unsafe fn install(
        &self,
        stacks: [*mut libc::c_void; 2],
        relay: &crate::runner::spawn::Relay,
        task: &dyn Fn(io::Result<()>),
    ) -> io::Result<()> {
        if let Some(layer) = &self.layer {
            layer.enter_namespace()?;
            if let Some(gate) = self.pid_ns {
                // SAFETY: between clone and exec, as the caller promises.
                return Err(unsafe { pidns::split(gate, stacks, relay, &|| task(self.raise())) });
            }
        }
        self.raise()
    }
}

/// Add to ruleset `ruleset` the rule that grants `access` beneath the `/dev/shm` this process
/// sees (its own tmpfs, under the mount layer), with raw system calls only: this runs between
/// `clone` and `exec`. A machine without `/dev/shm` gets no rule (as the parent's grant).
/// Where `/dev/shm` is a link (to `/run/shm`), `pidns` mounted the tmpfs where it leads, so
/// the link is followed here too: it lies in `/dev`, which no trial writes, and no trial
/// process has run yet in this namespace.
fn grant_own_shm(ruleset: libc::c_int, access: u64) -> io::Result<()> {
    /// `struct landlock_path_beneath_attr` (packed, as the kernel's uapi declares it).
    #[repr(C, packed)]
    struct PathBeneathAttr {
        allowed_access: u64,
        parent_fd: i32,
    }
    // SAFETY: a NUL-terminated literal path; the descriptor is closed below.
    let fd = unsafe {
        libc::open(
            c"/dev/shm".as_ptr(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        let e = io::Error::last_os_error();
        return match e.raw_os_error() {
            Some(libc::ENOENT | libc::ENOTDIR | libc::ELOOP) => Ok(()),
            _ => Err(e),
        };
    }
    let attr = PathBeneathAttr {
        allowed_access: access,
        parent_fd: fd,
    };
    // SAFETY: `attr` lives for the call, laid out as the kernel reads it; `ruleset` is the
    // open ruleset descriptor, `fd` the one opened above.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset,
            1 as libc::c_int, // LANDLOCK_RULE_PATH_BENEATH
            &raw const attr,
            0u32,
        )
    };
    let added = if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    };
    // SAFETY: `fd` is the descriptor opened above, not used after this.
    unsafe { libc::close(fd) };
    added
}

impl ChildBox {
    /// The walls after the namespaces: capabilities, `no_new_privs`, Landlock, seccomp.
    fn raise(&self) -> io::Result<()> {
        if let Some(layer) = &self.layer {
            layer.drop_caps()?;
        } else if let Some(caps) = self.caps {
            crate::runner::mounts::drop_caps_to(caps)?;
        }
        rustix::thread::set_no_new_privs(true)?;
        if let Some(fd) = self.ruleset {
            // The raw call on the descriptor the `landlock` crate built in the parent, not
            // the crate's `RulesetCreated::restrict_self`: that one consumes the ruleset (the
            // child only borrows this box) and nothing in the crate promises it stays free of
            // allocation and locks, which is all that may run between `clone` and `exec`.
            if let Some(access) = self.shm {
                grant_own_shm(fd, access)?;
            }
            // SAFETY: `fd` is the open ruleset descriptor, inherited through the clone.
            if unsafe { libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) } != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        for filter in &self.filters {
            // Not `seccompiler::apply_filter`: its being async-signal-safe today is not
            // something the crate promises, and this runs between `fork` and `exec`.
            let prog = libc::sock_fprog {
                len: filter.len() as u16,
                filter: filter.as_ptr() as *mut libc::sock_filter,
            };
            // SAFETY: `prog` points at the program in this process's memory, valid for the
            // call (seccompiler's `sock_filter` is the kernel's layout: see `seccomp.rs`);
            // the kernel copies it.
            let rc = unsafe {
                libc::prctl(
                    libc::PR_SET_SECCOMP,
                    libc::SECCOMP_MODE_FILTER as libc::c_ulong,
                    &prog as *const libc::sock_fprog,
                )
            };
            if rc != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }
}

impl Cell {
    /// The attempt's temporary directory (its `TMPDIR`).
    pub fn tmpdir(&self) -> &Path {
        &self.tmpdir
    }

    /// The walls to raise in the child between `clone` and `exec` (none with
    /// `policy.sandbox: off`). A wall that cannot be raised there fails the spawn: a trial
    /// never runs with fewer walls than the ledger records.
    pub(crate) fn walls(&self) -> Option<&ChildBox> {
        let child = &*self.child;
        (child.ruleset.is_some() || !child.filters.is_empty() || child.layer.is_some())
            .then_some(child)
    }
}

impl Drop for Cell {
    fn drop(&mut self) {
        // Every process of the attempt is gone. Kept for the next attempt in the same
        // working folder when empty and as made; else removed, never following a link the
        // task left in it.
        self.spares.give_back(&self.cwd, &self.tmpdir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ci_files_and_runner_tokens_are_withheld_and_nothing_else() {
        for name in [
            "GITHUB_OUTPUT",
            "GITHUB_STEP_SUMMARY",
            "ACTIONS_RUNTIME_TOKEN",
            "ACTIONS_ID_TOKEN_REQUEST_URL",
            "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
            "ACTIONS_CACHE_URL",
            "ACTIONS_RESULTS_URL",
            "GITHUB_TOKEN",
        ] {
            assert!(is_withheld(name), "{name}");
        }
        for name in ["GITHUB_SHA", "GITHUB_ACTIONS", "PATH", "HOME", "GATE_TRIAL"] {
            assert!(!is_withheld(name), "{name}");
        }
    }

    #[test]
    fn a_path_not_yet_written_resolves_beneath_its_real_folder() {
        let d = tempfile::tempdir().unwrap();
        let real = fs::canonicalize(d.path()).unwrap();
        std::os::unix::fs::symlink(&real, d.path().join("link")).unwrap();
        assert_eq!(
            resolve(&d.path().join("link/out/report.json")),
            real.join("out/report.json")
        );
    }

    #[test]
    fn required_names_every_missing_wall() {
        let w = Walls {
            policy: SandboxMode::Required,
            landlock_abi: 1,
            filesystem: FilesystemWall::EnforcedExceptTruncate,
            mounts: MountWall::None,
            signals: SignalWall::Unguarded,
            pass_env: Vec::new(),
            environ_erased: false,
            sockets_scoped: false,
            pid_namespace: false,
            shm: ShmWall::Unknown,
            installs: Default::default(),
            writes: Default::default(),
        };
        let why = shortfall(&w).unwrap();
        assert!(why.contains("truncate") && why.contains("signals"), "{why}");
        let full = Walls {
            filesystem: FilesystemWall::Enforced,
            signals: SignalWall::Filtered,
            ..w
        };
        assert_eq!(shortfall(&full), None);
    }

    /// Review 42: what node resolves through a `package.json` is compared, and nothing a
    /// trial writes reads as "none" to gate where node reads a package (110a-110e: a byte
    /// order mark, nesting past the parser's depth, a number out of range, invalid UTF-8;
    /// 110v, 110w: a link through `/proc/self/cwd`); an agent's dependencies are its own.
    #[test]
    fn a_package_json_is_compared_by_what_node_resolves_through_it() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("package.json");
        assert_eq!(manifest_state(&p), None, "missing");
        let evil = br#"{"name":"dotenv","exports":{"./config":"./evil.js"}}"#;
        let write = |bytes: &[u8]| {
            let _ = fs::remove_file(&p);
            fs::write(&p, bytes).unwrap();
            manifest_state(&p)
        };
        assert_eq!(write(br#"{"name":"app","dependencies":{}}"#), None);
        assert_eq!(
            write(br#"{"name":"app","dependencies":{"x":"1"},"version":"2"}"#),
            None
        );
        let plain = write(evil);
        assert!(plain.is_some());
        // A byte order mark is taken out, as node does.
        assert_eq!(write(&[b"\xef\xbb\xbf".as_slice(), evil].concat()), plain);
        let deep = format!(
            r#"{{"name":"dotenv","exports":"./e.js","x":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        for odd in [
            deep.as_bytes().to_vec(),
            br#"{"name":"dotenv","exports":"./e.js","v":1e400}"#.to_vec(),
            b"{\"name\":\"dotenv\",\"exports\":\"./e.js\",\"d\":\"\xff\"}".to_vec(),
        ] {
            let state = write(&odd);
            assert!(
                state.is_some_and(|s| s.starts_with("not read as JSON")),
                "{odd:?}"
            );
        }
        // A link is its text and what it leads to from its own folder.
        let _ = fs::remove_file(&p);
        fs::write(dir.path().join("pj.json"), evil).unwrap();
        std::os::unix::fs::symlink("/proc/self/cwd/pj.json", &p).unwrap();
        assert!(manifest_state(&p).is_some());
        let _ = fs::remove_file(&p);
        std::os::unix::fs::symlink("pj.json", &p).unwrap();
        let linked = manifest_state(&p);
        assert!(
            linked.as_deref().is_some_and(|s| s.contains("dotenv")),
            "{linked:?}"
        );
        let _ = fs::remove_file(&p);
        fs::create_dir(&p).unwrap();
        assert!(manifest_state(&p).is_some(), "a folder");
    }
}
