//! Shared helpers: write a plan into a temp dir, run `gate`, read the ledger back.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use gate::ledger::{AttemptRow, DecisionRow, Ledger, Row};

/// The environment variable under which a test that cannot run here fails instead of
/// skipping: `1` for every capability, or a comma-separated list of the ones this machine
/// has (`landlock,mounts,userns,setpriv,node,go,python3`). .ci/run sets it to what the CI
/// machine has; README.md ("Develop") lists what each one needs.
pub const NO_SKIP: &str = "GATE_TESTS_NO_SKIP";

/// A test (or the part of one) that cannot run on this machine, because the capability
/// `need` (a kernel feature or a tool, one of the names of [`NO_SKIP`]) is missing, says so:
/// `SKIPPED <test>: <why>` on stderr, uncaptured, and the caller returns. If
/// `GATE_TESTS_NO_SKIP` is `1` or names `need`, it panics instead, so a machine that should
/// run the test cannot pass by skipping it.
pub fn skip_or_fail(test: &str, need: &str, why: &str) {
    let required = std::env::var(NO_SKIP).unwrap_or_default();
    if forbids_skip(&required, need) {
        panic!("{test} cannot run here ({why}), and {NO_SKIP}={required} forbids skipping it");
    }
    // Straight to the process's stderr: libtest captures `eprintln!` of a passing test, and
    // a skip must show in the output of a plain `cargo test`.
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}

/// Whether the value of `GATE_TESTS_NO_SKIP` forbids skipping for want of `need`.
fn forbids_skip(required: &str, need: &str) -> bool {
    required.trim() == "1" || required.split(',').any(|n| n.trim() == need)
}

#[test]
fn gate_tests_no_skip_turns_a_skip_into_a_failure_for_what_it_names() {
    assert!(forbids_skip("1", "landlock"));
    assert!(forbids_skip("landlock, mounts", "mounts"));
    assert!(!forbids_skip("landlock,mounts", "go"));
    assert!(!forbids_skip("", "landlock"));
    assert!(!forbids_skip("0", "landlock"));
}

/// The name of the test running on this thread (libtest names each test's thread after
/// it), for [`skip_or_fail`] in helpers that are not given it.
pub fn current_test() -> String {
    std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string()
}

/// A temp dir holding one plan file.
pub struct Fixture {
    pub dir: tempfile::TempDir,
}

impl Fixture {
    /// A temp dir with `plan.yaml` containing `yaml`.
    pub fn new(yaml: &str) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("plan.yaml"), yaml).expect("write plan");
        Fixture { dir }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn plan(&self) -> PathBuf {
        self.path("plan.yaml")
    }

    pub fn ledger_path(&self) -> PathBuf {
        self.path("out/ledger.jsonl")
    }

    /// `gate run plan.yaml --ledger out/ledger.jsonl ARGS…`, run in the temp dir.
    /// The `gate run` command of [`Fixture::run`], to add to before running it.
    pub fn command(&self, args: &[&str]) -> Command {
        Command::from_std(self.std_command(args))
    }

    /// [`Fixture::command`] as the standard library's, for a test that starts gate and
    /// watches it while it runs.
    pub fn std_command(&self, args: &[&str]) -> std::process::Command {
        #[allow(deprecated)] // as `gate()`: the binary `CARGO_BIN_EXE_gate` names
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("gate"));
        cmd.current_dir(self.dir.path())
            .args([
                "run",
                "plan.yaml",
                "--ledger",
                "out/ledger.jsonl",
                "--no-step-summary",
            ])
            .args(args)
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY");
        for v in HOST_CARGO_VARS {
            cmd.env_remove(v);
        }
        cmd
    }

    pub fn run(&self, args: &[&str]) -> assert_cmd::assert::Assert {
        self.command(args).assert()
    }

    pub fn ledger(&self) -> Ledger {
        Ledger::read(&self.ledger_path()).expect("ledger parses")
    }
}

/// Write each `(path, text)` under `f`'s folder, making the folders on the way.
pub fn write_files(f: &Fixture, files: &[(&str, &str)]) {
    for (file, text) in files {
        std::fs::create_dir_all(f.path(file).parent().unwrap()).unwrap();
        std::fs::write(f.path(file), text).unwrap();
    }
}

/// A finished command's standard output then its standard error, as text.
pub fn both(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The variables of the developer's or CI's own cargo that gate reads from its environment
/// as a check's cargo would (`CARGO_TARGET_DIR` set to build the tests elsewhere moved the
/// target folder of every plan under test out of its `writes:`): the tests start gate
/// without them.
const HOST_CARGO_VARS: [&str; 2] = ["CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR"];

pub fn gate() -> Command {
    let mut cmd = Command::cargo_bin("gate").expect("gate binary");
    for v in HOST_CARGO_VARS {
        cmd.env_remove(v);
    }
    cmd
}

pub fn attempts(l: &Ledger) -> Vec<AttemptRow> {
    l.attempts().cloned().collect()
}

pub fn decision<'a>(l: &'a Ledger, task: &str) -> &'a DecisionRow {
    l.decisions()
        .find(|d| d.task == task)
        .expect("decision row")
}

pub fn is_footer(l: &Ledger) -> bool {
    matches!(l.records.last().map(|r| &r.row), Some(Row::Footer(_)))
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Start `gate run plan.yaml` in the fixture, send SIGINT once `after` has passed and the
/// ledger holds a first attempt row (on a loaded machine gate may not have launched a trial
/// after `after` alone), and return its exit code.
pub fn run_and_interrupt(f: &Fixture, after: std::time::Duration) -> Option<i32> {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("gate"))
        .current_dir(f.dir.path())
        .args([
            "run",
            "plan.yaml",
            "--ledger",
            "out/ledger.jsonl",
            "--no-step-summary",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn gate");
    let started = std::time::Instant::now();
    let ledger = f.ledger_path();
    while started.elapsed() < std::time::Duration::from_secs(60)
        && !read(&ledger).contains("\"kind\":\"attempt\"")
    {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    if let Some(rest) = after.checked_sub(started.elapsed()) {
        std::thread::sleep(rest);
    }
    // SAFETY: sends a signal to our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    child.wait().expect("wait for gate").code()
}

/// `gate SUBCOMMAND ARGS… --format json`, which must succeed, parsed.
pub fn json_of(subcommand: &str, args: &[&str]) -> serde_json::Value {
    let out = gate()
        .arg(subcommand)
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

/// Every process this test can see: its pid and its `/proc/PID` folder.
pub fn host_processes() -> Vec<(i32, PathBuf)> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.parse::<i32>().ok()?;
            Some((pid, entry.path()))
        })
        .collect()
}

/// The pids of the processes whose parent is `parent`.
pub fn children_of(parent: i32) -> Vec<i32> {
    host_processes()
        .into_iter()
        .filter(|(_, dir)| {
            let stat = std::fs::read_to_string(dir.join("stat")).unwrap_or_default();
            // `pid (comm) state ppid …`: the fields after the last `)`.
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|p| p.parse::<i32>().ok())
                == Some(parent)
        })
        .map(|(pid, _)| pid)
        .collect()
}

/// The host pids of the live processes (zombies excluded) whose working folder is `home` or
/// a folder inside it, and whose pid in their own innermost PID namespace is one of `inner`
/// — the pids a trial records with `echo $$`. A trial may run in a PID namespace of its own
/// (`runner/sandbox/pidns.rs`), where `$$` names another process on the host (every trial's
/// first process is pid 2 there); the last field of `NSpid` in the host's
/// `/proc/PID/status` is the pid the process sees itself as, and equals the host pid
/// without a namespace. The working folder keeps other tests' processes out.
pub fn live_trial_processes(home: &Path, inner: &[i32]) -> Vec<i32> {
    let home = std::fs::canonicalize(home).unwrap();
    let mut found = Vec::new();
    for (pid, dir) in host_processes() {
        if !std::fs::read_link(dir.join("cwd")).is_ok_and(|cwd| cwd.starts_with(&home)) {
            continue;
        }
        let Ok(status) = std::fs::read_to_string(dir.join("status")) else {
            continue;
        };
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .map(str::trim)
                .unwrap_or("")
                .to_string()
        };
        if field("State:").starts_with(['Z', 'X']) {
            continue;
        }
        let own = field("NSpid:")
            .split_whitespace()
            .last()
            .and_then(|p| p.parse::<i32>().ok());
        if own.is_some_and(|own| inner.contains(&own)) {
            found.push(pid);
        }
    }
    found
}

/// The box's modes this machine has, as `GATE_SANDBOX_NO_MOUNTS` values: the mount layer
/// (where it can be made) and the Landlock allow-list fallback; none without Landlock.
pub fn box_modes(test: &str) -> Vec<bool> {
    if gate::runner::sandbox::landlock_abi() < 1 {
        skip_or_fail(test, "landlock", "this kernel has no Landlock");
        return Vec::new();
    }
    let mut modes = vec![true];
    match gate::runner::mounts::available() {
        Ok(_) => modes.push(false),
        Err(why) => skip_or_fail(test, "mounts", &format!("no mount layer here: {why}")),
    }
    modes
}

/// `gate run` of `f`, with or without the mount layer.
pub fn run_in(f: &Fixture, no_mounts: bool) -> assert_cmd::assert::Assert {
    let mut cmd = f.command(&[]);
    if no_mounts {
        cmd.env("GATE_SANDBOX_NO_MOUNTS", "1");
    } else {
        cmd.env_remove("GATE_SANDBOX_NO_MOUNTS");
    }
    cmd.timeout(std::time::Duration::from_secs(120)).assert()
}

/// `gate check` of `f` refuses its `check:` line `line` at load (exit 2) as one gate cannot
/// follow, naming `what`.
pub fn assert_refused_at_load(f: &Fixture, line: &str, what: &str) {
    let out = check(f).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "`{line}` not refused:\n{err}");
    assert!(err.contains("which gate cannot follow"), "`{line}`:\n{err}");
    assert!(err.contains(what), "`{line}`: wanted `{what}` in\n{err}");
}

/// `gate run` of `f`, whose `check:` line is `line`, exits `want` (0: PASS, 1: FAIL).
pub fn assert_run_exits(f: &Fixture, line: &str, want: i32) {
    let out = f.command(&[]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(want),
        "`{line}`: wanted exit {want}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `gate check plan.yaml` in `f`'s folder.
pub fn check(f: &Fixture) -> assert_cmd::assert::Assert {
    gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml"])
        .assert()
}

/// A one-task plan of two trials: `run: sh agent.sh`, `check: CHECK`, `EXTRA` lines first.
pub fn plan(extra: &str, check: &str) -> String {
    let check = serde_json::to_string(check).unwrap();
    format!(
        "version: 1\nsampling: {{single: {{n: 2, c: 0}}}}\ntasks:\n  - id: agent\n{extra}    run: sh agent.sh\n    check: {check}\n"
    )
}

/// `plan` (a plan's text) with `policy.sandbox.installs: INSTALLS` (`any`, `[left-pad]`):
/// the new package names a trial may add beside a node check's packages.
pub fn installing(plan: &str, installs: &str) -> String {
    let out = if plan.contains("  sandbox: {") {
        plan.replacen(
            "  sandbox: {",
            &format!("  sandbox: {{installs: {installs}, "),
            1,
        )
    } else if plan.contains("\npolicy:\n") {
        plan.replacen(
            "\npolicy:\n",
            &format!("\npolicy:\n  sandbox: {{installs: {installs}}}\n"),
            1,
        )
    } else {
        plan.replacen(
            "version: 1\n",
            &format!("version: 1\npolicy:\n  sandbox: {{installs: {installs}}}\n"),
            1,
        )
    };
    assert_ne!(out, plan, "no place for `installs` in {plan}");
    out
}

/// Give the plan of `f` `policy.sandbox.installs: INSTALLS` ([`installing`]).
pub fn let_install(f: &Fixture, installs: &str) {
    let text = std::fs::read_to_string(f.plan()).unwrap();
    std::fs::write(f.plan(), installing(&text, installs)).unwrap();
}

/// `gate ingest --single N,0 --assume-retries-off --ledger LEDGER -- FILES…` in `dir`, N the
/// number of files, outside GitHub Actions.
pub fn ingest_files<S: AsRef<std::ffi::OsStr>>(
    dir: &Path,
    ledger: &str,
    files: &[S],
) -> assert_cmd::assert::Assert {
    gate()
        .current_dir(dir)
        .args([
            "ingest",
            "--single",
            &format!("{},0", files.len()),
            "--assume-retries-off",
            "--ledger",
            ledger,
            "--no-step-summary",
            "--",
        ])
        .args(files)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
}

/// `gate ingest --assume-retries-off --ledger l.jsonl --no-step-summary RULE… --base BASE… --
/// HEAD…` in `dir`, outside GitHub Actions: a compare ingest.
pub fn ingest_compare<B, H>(dir: &Path, rule: &[&str], base: B, head: H) -> Command
where
    B: IntoIterator,
    B::Item: AsRef<std::ffi::OsStr>,
    H: IntoIterator,
    H::Item: AsRef<std::ffi::OsStr>,
{
    let mut cmd = gate();
    cmd.current_dir(dir)
        .args([
            "ingest",
            "--assume-retries-off",
            "--ledger",
            "l.jsonl",
            "--no-step-summary",
        ])
        .args(rule)
        .arg("--base")
        .args(base)
        .arg("--")
        .args(head)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY");
    cmd
}

/// Whether `tool` is on the `PATH` (`command -v`).
pub fn has(tool: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `gate check` of `f` refuses the plan at load (exit 2) because a `check:` line reads what
/// decides its grade from a folder the trials write, with no wall comparing it while the
/// run goes on: the message says what (`said`, e.g. "runs `pytest` in `") and names the fix,
/// the task's `writes:` (docs/trust.md, "What is not protected").
pub fn assert_definition_refused(f: &Fixture, said: &str) {
    let out = check(f).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "not refused:\n{err}");
    assert!(
        err.contains(&format!("task `agent`: `check:` {said}")),
        "wanted `{said}` in\n{err}"
    );
    assert!(err.contains("`writes:`"), "the fix is named:\n{err}");
    assert!(
        !err.contains("warning:"),
        "a refusal, not a warning:\n{err}"
    );
}

/// `gate check` of `f`, whose `check:` runs `runner` where the trials write (`said`, e.g.
/// "runs `npm` in `"): node's runners are warned about (a run-time wall compares what they
/// read) and the plan accepted; any other is refused ([`assert_definition_refused`]).
pub fn assert_runner_warned_or_refused(f: &Fixture, runner: &str, said: &str) {
    if runner == "npm" {
        check(f).code(0).stderr(predicates::str::contains(format!(
            "warning: task `agent`: `check:` {said}"
        )));
    } else {
        assert_definition_refused(f, said);
    }
}
