//! The run engine against hostile tasks and a hostile environment (issue 8, §1 and §3): a
//! verdict only from the rows gate wrote, one run per ledger, every process group killed on
//! every way out, and no panic on a closed stdout or stderr.

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use predicates::prelude::*;

use crate::common::*;

/// `gate run plan.yaml --ledger out/ledger.jsonl` as a plain child process.
fn spawn_gate(f: &Fixture, extra: &[&str], stdout: Stdio, stderr: Stdio) -> Child {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("gate"))
        .current_dir(f.dir.path())
        .args([
            "run",
            "plan.yaml",
            "--ledger",
            "out/ledger.jsonl",
            "--no-step-summary",
        ])
        .args(extra)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .expect("spawn gate")
}

/// Wait until `cond` holds, at most `limit`.
fn wait_for(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    cond()
}

/// The pids the trials wrote into `dir` (one file per trial).
fn pids_in(dir: &Path) -> Vec<i32> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
                .filter_map(|s| s.trim().parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether none of the processes a trial of `f` recorded as `pids` (with `echo $$`, inside
/// the trial's PID namespace where there is one) is still alive on the host.
fn all_gone(f: &Fixture, pids: &[i32]) -> bool {
    live_trial_processes(f.dir.path(), pids).is_empty()
}

fn wait_exit(child: &mut Child, limit: Duration) -> Option<i32> {
    let end = Instant::now() + limit;
    loop {
        if let Some(st) = child.try_wait().expect("try_wait") {
            return st.code();
        }
        if Instant::now() >= end {
            let _ = child.kill();
            let _ = child.wait();
            panic!("gate did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &Child, sig: libc::c_int) {
    // SAFETY: sends a signal to our own child process.
    unsafe {
        libc::kill(child.id() as i32, sig);
    }
}

#[test]
fn ledger_swapped_during_run_is_a_harness_error() {
    // A forged ledger that says PASS: a real run of an always-passing task.
    let forged = Fixture::new(
        "version: 1\nsampling: {single: {n: 2, c: 0}}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    forged.run(&[]).code(0);
    // The task under test always fails, and on its first trial moves the forgery over the
    // ledger gate is writing.
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 2, c: 0}}\ntasks:\n  - id: t\n    run: 'mv forged.jsonl out/ledger.jsonl; exit 1'\npolicy: {sandbox: off}\n",
    );
    std::fs::copy(forged.ledger_path(), f.path("forged.jsonl")).unwrap();
    f.run(&[])
        .code(4)
        .stderr(predicate::str::contains(
            "no longer matches the rows this run wrote",
        ))
        .stderr(predicate::str::contains("another file"))
        .stdout(predicate::str::contains("PASS").not());
}

#[test]
fn ledger_truncated_during_run_is_a_harness_error() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 3, c: 2}}\ntasks:\n  - id: t\n    run: ': > out/ledger.jsonl'\npolicy: {jobs: 1, sandbox: off}\n",
    );
    f.run(&[]).code(4).stderr(predicate::str::contains(
        "no longer matches the rows this run wrote",
    ));
}

#[test]
fn ledger_edited_during_run_is_a_harness_error() {
    // Same file, same length, one value changed in place: only the hash chain can tell.
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 3, c: 0}}\ntasks:\n  - id: t\n    run: sh edit.sh\npolicy: {jobs: 1, sandbox: off}\n",
    );
    std::fs::write(
        f.path("edit.sh"),
        "off=$(grep -bo '\"jobs\":1' out/ledger.jsonl | head -1 | cut -d: -f1)\n\
         printf '\"jobs\":9' | dd of=out/ledger.jsonl bs=1 seek=\"$off\" conv=notrunc 2>/dev/null\n",
    )
    .unwrap();
    f.run(&[])
        .code(4)
        .stderr(predicate::str::contains(
            "no longer matches the rows this run wrote",
        ))
        .stderr(predicate::str::contains("prev does not match"));
}

#[test]
fn second_run_on_locked_ledger_exits_2_naming_pid() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: t\n    run: 'sleep 30'\n",
    );
    let mut first = spawn_gate(&f, &[], Stdio::null(), Stdio::null());
    let lock = f.path("out/ledger.jsonl.lock");
    assert!(
        wait_for(Duration::from_secs(10), || read(&lock).trim()
            == first.id().to_string()),
        "the first run records its pid in the lock"
    );
    let started = Instant::now();
    for extra in [&[][..], &["--resume"][..]] {
        f.run(extra)
            .code(2)
            .stderr(predicate::str::contains(format!("pid {}", first.id())))
            .stderr(predicate::str::contains("in use by another gate run"));
    }
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "refused at once"
    );
    // The first run's ledger was not moved aside by the refused one.
    assert!(!f.path("out/ledger.jsonl.1").exists());
    signal(&first, libc::SIGINT);
    signal(&first, libc::SIGINT);
    wait_exit(&mut first, Duration::from_secs(10));
    // Once it has ended, the ledger can be resumed.
    f.run(&["--resume"])
        .stderr(predicate::str::contains("in use").not());
}

#[test]
fn closed_stdout_is_not_a_panic() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 3, c: 0}}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    let mut child = spawn_gate(&f, &[], Stdio::piped(), Stdio::piped());
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("gate ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(is_footer(&f.ledger()));
}

#[test]
fn closed_stderr_is_not_a_panic() {
    // A failing verdict, so that the exit code shows the run went on to its verdict.
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 4, c: 0}}\ntasks:\n  - id: t\n    run: 'exit 1'\n",
    );
    let mut child = spawn_gate(&f, &[], Stdio::piped(), Stdio::piped());
    drop(child.stderr.take());
    let out = child.wait_with_output().expect("gate ends");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("FAIL"));
}

/// Run gate with a file-size limit (RLIMIT_FSIZE) and SIGXFSZ ignored, so that a write past
/// the limit fails with EFBIG — a real write failure of the ledger, as a full disk (ENOSPC)
/// would give, without needing a small filesystem.
fn spawn_gate_with_file_limit(f: &Fixture, limit: u64) -> Child {
    use std::os::unix::process::CommandExt;
    let mut cmd = f.std_command(&[]);
    cmd.stdout(Stdio::null()).stderr(Stdio::piped());
    // SAFETY: between fork and exec only async-signal-safe calls: setrlimit and signal.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    cmd.spawn().expect("spawn gate")
}

#[test]
fn enospc_kills_in_flight_trials() {
    // Trials 2-4 record their pid and sleep; trial 1 waits for them, then prints enough
    // that its ledger row no longer fits under the file-size limit.
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 4, c: 3}}\ntasks:\n  - id: t\n    run: |\n      if [ \"$GATE_TRIAL\" = 1 ]; then\n        while [ \"$(ls ../pids | wc -l)\" -lt 3 ]; do sleep 0.05; done\n        head -c 1500 /dev/zero | tr '\\0' x\n      else\n        echo $$ > ../pids/$GATE_TRIAL; exec sleep 60\n      fi\n    cwd: work\npolicy: {jobs: 4, sandbox: {writable: [pids]}}\n",
    );
    std::fs::create_dir_all(f.path("work")).unwrap();
    std::fs::create_dir_all(f.path("pids")).unwrap();
    // The header (about 1 KB here) fits; trial 1's row with 1.5 KB of output does not.
    let mut child = spawn_gate_with_file_limit(&f, 2048);
    let code = wait_exit(&mut child, Duration::from_secs(30));
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(code, Some(4), "{stderr}");
    assert!(stderr.contains("cannot write the ledger"), "{stderr}");
    let pids = pids_in(&f.path("pids"));
    assert_eq!(pids.len(), 3, "the sleeping trials had started");
    assert!(
        wait_for(Duration::from_secs(5), || all_gone(&f, &pids)),
        "trials outlived gate: {:?}",
        live_trial_processes(f.dir.path(), &pids)
    );
}

#[test]
fn double_ctrl_c_leaves_no_orphans() {
    // Trials that ignore SIGTERM; the grace before SIGKILL is long, so only the second
    // Ctrl-C can end them in time.
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 2, c: 0}}\ntasks:\n  - id: t\n    run: \"trap '' TERM; echo $$ > ../pids/$GATE_TRIAL; exec sleep 60\"\n    cwd: work\npolicy: {jobs: 2, kill_grace: 60s, sandbox: {writable: [pids]}}\n",
    );
    std::fs::create_dir_all(f.path("work")).unwrap();
    std::fs::create_dir_all(f.path("pids")).unwrap();
    let mut child = spawn_gate(&f, &[], Stdio::null(), Stdio::piped());
    let pids_dir: PathBuf = f.path("pids");
    assert!(wait_for(Duration::from_secs(10), || pids_in(&pids_dir)
        .len()
        == 2));
    let pids = pids_in(&pids_dir);
    // The trials are found on the host (so that their absence below means they died).
    assert!(
        wait_for(Duration::from_secs(5), || live_trial_processes(
            f.dir.path(),
            &pids
        )
        .len()
            == 2),
        "the two trials run: {:?}",
        live_trial_processes(f.dir.path(), &pids)
    );
    signal(&child, libc::SIGINT);
    std::thread::sleep(Duration::from_millis(300));
    signal(&child, libc::SIGINT);
    let started = Instant::now();
    assert_eq!(wait_exit(&mut child, Duration::from_secs(10)), Some(130));
    assert!(started.elapsed() < Duration::from_secs(5));
    // Both signals are said on stderr, with the sender (this test).
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    let from = format!("SIGINT from pid {}", std::process::id());
    assert!(
        stderr.contains(&format!("gate: {from}")) && stderr.contains("stopping"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("gate: a second {from}")) && stderr.contains("exits 130"),
        "{stderr}"
    );
    assert!(
        wait_for(Duration::from_secs(5), || all_gone(&f, &pids)),
        "trials outlived gate: {:?}",
        live_trial_processes(f.dir.path(), &pids)
    );
}

/// A run stopped from outside says so on stderr, with the signal and the process that sent
/// it. Before, its stderr simply stopped after the last trial (the INCONCLUSIVE "interrupted"
/// went to stdout): a `gate run` ended by a stray SIGTERM in a test harness or a CI job left
/// nothing to tell it from a crash (tests/cli/suite_family.rs, a run that "ended without a
/// verdict" with no error line).
#[test]
fn a_sigterm_is_said_on_stderr_with_its_sender() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 3, c: 0}}\ntasks:\n  - id: t\n    run: 'sleep 30'\npolicy: {kill_grace: 1s}\n",
    );
    let mut child = spawn_gate(&f, &[], Stdio::null(), Stdio::piped());
    // The handlers are in place before the ledger is made.
    assert!(wait_for(Duration::from_secs(10), || f
        .ledger_path()
        .exists()));
    signal(&child, libc::SIGTERM);
    assert_eq!(wait_exit(&mut child, Duration::from_secs(20)), Some(143));
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    let said = format!(
        "gate: SIGTERM from pid {} ({}): stopping",
        std::process::id(),
        std::fs::read_to_string("/proc/self/comm").unwrap().trim()
    );
    assert!(stderr.contains(&said), "{said}\n{stderr}");
    assert!(stderr.contains("exit 143"), "{stderr}");
}

/// A plan whose trial leaves a process that escaped its process group (`setsid`, holding
/// the trial's stdout) and waits until that process has written its pid.
fn escapee_plan(after: &str) -> Fixture {
    let f = Fixture::new(&format!(
        r#"version: 1
sampling: {{single: {{n: 1, c: 0}}}}
tasks:
  - id: t
    run: 'setsid sh -c "echo \$\$ > ../pids/escapee; exec sleep 60" & while [ ! -s ../pids/escapee ]; do sleep 0.01; done; {after}'
    cwd: work
policy: {{kill_grace: 60s, sandbox: {{writable: [pids]}}}}
"#
    ));
    std::fs::create_dir_all(f.path("work")).unwrap();
    std::fs::create_dir_all(f.path("pids")).unwrap();
    f
}

/// Regression (review of issue 8): a process that left the trial's process group with
/// `setsid` outlived `gate run` with ppid 1 — free to rewrite the ledger or the reports after
/// gate had checked them. gate adopts orphans (child subreaper) and kills them at the end.
#[test]
fn a_setsid_escapee_does_not_outlive_the_run() {
    let f = escapee_plan("exit 0");
    let mut child = spawn_gate(&f, &[], Stdio::null(), Stdio::null());
    assert_eq!(wait_exit(&mut child, Duration::from_secs(30)), Some(0));
    let pids = pids_in(&f.path("pids"));
    assert_eq!(pids.len(), 1);
    assert!(
        wait_for(Duration::from_secs(5), || all_gone(&f, &pids)),
        "the escapee {:?} outlived gate",
        live_trial_processes(f.dir.path(), &pids)
    );
}

/// The counts of gate's zombies that the trials wrote to `zombies`, one a line.
fn zombie_counts(f: &Fixture) -> Vec<u32> {
    read(&f.path("zombies"))
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect()
}

/// Regression (review of issue 8, after gate became the trials' subreaper): a trial that left
/// a background process made a zombie of gate that stayed until the end of the run; a long
/// run could fill the process table. Ended orphans are reaped while the run goes on.
#[test]
fn orphans_of_ended_trials_are_reaped_during_the_run() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 8, c: 0}}\ntasks:\n  - id: t\n    run: 'sleep 30 & ps -o stat= --ppid $PPID | grep -c Z >> zombies; exit 0'\n",
    );
    // The box lets a trial write an existing file of the plan's folder, never create one.
    std::fs::write(f.path("zombies"), "").unwrap();
    f.run(&[]).code(0);
    let counts = zombie_counts(&f);
    assert_eq!(counts.len(), 8);
    assert!(
        counts.iter().all(|&z| z <= 1),
        "zombies of gate per trial: {counts:?}"
    );
}

/// Regression (review of the overhead work): with the spawns of parallel lanes outside the
/// registry's lock, a group's end skipped the reaping whenever another lane was spawning —
/// nearly always with quick trials — and hundreds of zombies piled up (211 at `--jobs 16`),
/// enough to hit a CI container's pids limit. The scheduler's thread, the orphans' parent,
/// reaps them whenever it wakes.
#[test]
fn orphans_of_quick_parallel_trials_are_reaped_during_the_run() {
    let f = Fixture::new(
        r#"version: 1
sampling: {single: {n: 1000, c: 0}}
tasks:
  - id: t
    run: |
      (setsid true &)
      if [ $((GATE_TRIAL % 50)) -eq 0 ]; then
        n=0
        for c in $(cat /proc/$PPID/task/*/children 2>/dev/null); do
          [ "$(cut -d' ' -f3 /proc/$c/stat 2>/dev/null)" = Z ] && n=$((n+1))
        done
        echo $n >> zombies
      fi
      exit 0
"#,
    );
    // The box lets a trial write an existing file of the plan's folder, never create one.
    std::fs::write(f.path("zombies"), "").unwrap();
    f.run(&["--jobs", "8"]).code(0);
    let counts = zombie_counts(&f);
    assert_eq!(counts.len(), 20);
    assert!(
        counts.iter().all(|&z| z < 50),
        "zombies of gate at every 50th trial: {counts:?}"
    );
}

/// Regression (review of issue 8): the second Ctrl-C killed the registered process groups
/// but not a process that had escaped its group with `setsid`.
#[test]
fn double_ctrl_c_kills_a_setsid_escapee() {
    let f = escapee_plan("trap \"\" TERM; exec sleep 60");
    let mut child = spawn_gate(&f, &[], Stdio::null(), Stdio::null());
    let pids_dir = f.path("pids");
    assert!(wait_for(Duration::from_secs(10), || pids_in(&pids_dir)
        .len()
        == 1));
    let pids = pids_in(&pids_dir);
    // The escapee is found on the host (so that its absence below means it died).
    assert!(
        wait_for(Duration::from_secs(5), || live_trial_processes(
            f.dir.path(),
            &pids
        )
        .len()
            == 1),
        "the escapee runs: {:?}",
        live_trial_processes(f.dir.path(), &pids)
    );
    // Let the trial reach its `exec sleep`.
    std::thread::sleep(Duration::from_millis(200));
    signal(&child, libc::SIGINT);
    std::thread::sleep(Duration::from_millis(300));
    signal(&child, libc::SIGINT);
    assert_eq!(wait_exit(&mut child, Duration::from_secs(10)), Some(130));
    assert!(
        wait_for(Duration::from_secs(5), || all_gone(&f, &pids)),
        "the escapee {:?} outlived gate",
        live_trial_processes(f.dir.path(), &pids)
    );
}

#[test]
fn unwritable_step_summary_is_a_warning_not_an_exit_code() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 2, c: 0}}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    gate()
        .current_dir(f.dir.path())
        .args(["run", "plan.yaml", "--ledger", "out/ledger.jsonl"])
        .env("GITHUB_STEP_SUMMARY", f.path("no-such-dir/summary.md"))
        .env_remove("GITHUB_ACTIONS")
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "warning: cannot append the summary",
        ));
}

#[test]
fn report_write_failure_during_a_run_is_exit_4() {
    // The task replaces the report's directory with a file: the JSON report is not
    // written, so the verdict was not published as asked, and gate says why.
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: t\n    run: 'rm -rf reports && touch reports'\npolicy: {sandbox: off}\n",
    );
    f.run(&["--json", "reports/r.json"])
        .code(4)
        .stderr(predicate::str::contains(
            "its folder `reports` was moved or replaced since the run started",
        ));
}

#[test]
fn action_stops_with_one_clear_line_on_a_non_linux_runner() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/action.yml"))
        .expect("action.yml");
    let action: serde_json::Value = serde_saphyr::from_str(&text).expect("action.yml parses");
    let first = &action["runs"]["steps"][0];
    assert_eq!(
        first["if"], "runner.os != 'Linux'",
        "the first step guards the OS"
    );
    // Run that step's script as the runner would on macOS.
    let out = std::process::Command::new("bash")
        .args(["-c", first["run"].as_str().expect("a run script")])
        .env("RUNNER_OS", "macOS")
        .output()
        .expect("bash runs");
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("::error title=gate::gate runs on Linux runners only, not on macOS"),
        "{stdout}"
    );
}

#[test]
fn closed_stdout_is_not_a_panic_for_commands_that_only_print() {
    for args in [
        &["plan", "--healthy", "0.9", "--regressed", "0.7"][..],
        &["explain", "--retries", "2"][..],
    ] {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("gate"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn gate");
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("gate ends");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_ne!(out.status.code(), Some(101), "{args:?}: {stderr}");
    }
}

#[test]
fn a_symlinked_ledger_path_shares_the_lock() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: t\n    run: 'sleep 30'\n",
    );
    let mut first = spawn_gate(&f, &[], Stdio::null(), Stdio::null());
    let lock = f.path("out/ledger.jsonl.lock");
    assert!(
        wait_for(Duration::from_secs(10), || read(&lock).trim()
            == first.id().to_string()),
        "the first run records its pid in the lock"
    );
    // The same ledger reached through a symlinked folder and a `..` spelling.
    std::os::unix::fs::symlink(f.path("out"), f.path("alias")).unwrap();
    for spelling in ["alias/ledger.jsonl", "out/../out/ledger.jsonl"] {
        gate()
            .current_dir(f.dir.path())
            .args(["run", "plan.yaml", "--ledger", spelling, "--resume"])
            .args(["--no-step-summary"])
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY")
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!("pid {}", first.id())));
    }
    signal(&first, libc::SIGINT);
    signal(&first, libc::SIGINT);
    wait_exit(&mut first, Duration::from_secs(10));
}

#[test]
fn a_report_over_the_ledger_lock_is_refused() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    f.run(&["--json", "out/ledger.jsonl.lock"])
        .code(2)
        .stderr(predicate::str::contains("lock file"));
    assert!(!f.ledger_path().exists(), "refused before the first trial");
}

/// A trial killed by a signal that dumps core (SIGSEGV, SIGABRT, the seccomp filter's
/// SIGSYS) is recorded with that signal in every box mode, and gate lives on to its verdict.
/// With the PID namespace, the waiter that shares gate's memory no longer dies of the same
/// signal (a core dump before Linux 5.16 kills every process sharing the memory: gate
/// too); it leaves the status in gate's memory (`spawn::Relay`). This kernel does not show
/// the kill itself; the test pins that the relayed status is the task's.
#[test]
fn a_trial_killed_by_a_core_dumping_signal_is_recorded_with_it() {
    let test = "a_trial_killed_by_a_core_dumping_signal_is_recorded_with_it";
    for no_mounts in box_modes(test) {
        for (sig, name) in [
            (libc::SIGSEGV, "SEGV"),
            (libc::SIGABRT, "ABRT"),
            (libc::SIGSYS, "SYS"),
        ] {
            let f = Fixture::new(&format!(
                "version: 1\nsampling: {{single: {{n: 2, c: 0}}}}\ntasks:\n  - id: t\n    run: \"kill -{name} $$\"\n"
            ));
            run_in(&f, no_mounts).code(1);
            let ledger = f.ledger();
            let signals: Vec<Option<i32>> = ledger.attempts().map(|a| a.signal).collect();
            // The first failure decides (n 2, c 0): one attempt or two.
            assert!(
                !signals.is_empty() && signals.iter().all(|s| *s == Some(sig)),
                "SIG{name}, mount layer off: {no_mounts}: {signals:?}"
            );
        }
    }
}
