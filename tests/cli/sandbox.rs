//! The box (docs/trust.md, "The box"): tasks that try each escape of issue 18 on this
//! machine's kernel. Each test asserts that the attempt failed *and* that the verdict stayed
//! right, and is named after the break it pins.
//!
//! The filesystem walls need Landlock; a test that needs an ABI this kernel lacks says so
//! and checks what the ledger records instead (the walls are then missing, and recorded as
//! missing).

use std::path::Path;
use std::time::Duration;

use gate::model::{FilesystemWall, MountWall, SandboxMode, SignalWall};
use gate::runner::sandbox::landlock_abi;

/// Whether this machine can make the box's mount layer (a mount namespace, or a user and
/// mount namespace); when not, say which test is skipped.
fn mounts_available() -> bool {
    gate::runner::mounts::available().is_ok()
}

fn has_mounts(test: &str) -> bool {
    match gate::runner::mounts::available() {
        Ok(_) => has_abi(1, test),
        Err(why) => {
            skip_or_fail(test, "mounts", &format!("no mount layer here: {why}"));
            false
        }
    }
}
use predicates::prelude::*;

use crate::common::*;

/// A plan whose one task tries `attack` and then exits 1: the verdict must be FAIL (exit 1),
/// whatever the attack did.
fn attack(attack: &str) -> Fixture {
    Fixture::new(&format!(
        "version: 1\nsampling: {{single: {{n: 1, c: 0}}}}\ntasks:\n  - id: attack\n    run: |\n{}\n      exit 1\n",
        indent(attack)
    ))
}

fn indent(script: &str) -> String {
    script
        .lines()
        .map(|l| format!("      {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether this kernel has the Landlock ABI `abi`; when not, say which test is skipped.
fn has_abi(abi: u32, test: &str) -> bool {
    let have = landlock_abi();
    if have < abi {
        skip_or_fail(
            test,
            "landlock",
            &format!("this kernel has Landlock ABI {have} (needs {abi})"),
        );
    }
    have >= abi
}

/// The stdout and stderr the attack's trial printed (its log).
fn trial_log(f: &Fixture) -> String {
    let l = f.ledger();
    let row = &attempts(&l)[0];
    row.detail
        .log
        .as_ref()
        .map(|p| read(Path::new(p)))
        .unwrap_or_default()
}

/// Signals aimed at gate's process group would also reach the test runner (gate shares its
/// group) if the box did not hold: each signal attack first checks that gate is out of its
/// reach, and otherwise exits 7, which fails the test without harming the runner.
const GUARD: &str = "if kill -0 $PPID 2>/dev/null; then echo unconfined; exit 7; fi";

/// Every way a shell writes a file, aimed at `target`; each one that works prints `escaped`.
/// (`: > target` in a subshell: a failed redirection of a special built-in ends a POSIX
/// shell, which would skip the attempts after it.) The last line prints `tried`, so a test
/// sees that every attempt ran.
fn write_attempts(target: &str) -> String {
    format!(
        "printf forged >> {target} && echo escaped\n\
         (: > {target}) && echo escaped\n\
         truncate -s 0 {target} 2>/dev/null && echo escaped\n\
         rm -f {target} && echo escaped\n\
         mv {target} {target}.moved && echo escaped\n\
         ln -sf /dev/null {target} && echo escaped\n\
         echo tried"
    )
}

#[test]
fn a_task_cannot_replace_the_gate_binary() {
    if !has_abi(3, "a_task_cannot_replace_the_gate_binary") {
        return;
    }
    // `cargo run` and a checked-in tools folder put gate's binary inside the task's tree.
    let f = attack(&format!(
        "{}\nprintf '#!/bin/sh\\nexit 0\\n' > tools/gate && echo escaped",
        write_attempts("tools/gate")
    ));
    std::fs::write(
        f.path("b.yaml"),
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: regressed\n    run: exit 1\n",
    )
    .unwrap();
    std::fs::create_dir(f.path("tools")).unwrap();
    let gate_bin = f.path("tools/gate");
    std::fs::copy(assert_cmd::cargo::cargo_bin("gate"), &gate_bin).unwrap();
    let before = std::fs::read(&gate_bin).unwrap();
    let run = |plan: &str| {
        assert_cmd::Command::new(&gate_bin)
            .current_dir(f.dir.path())
            .args([
                "run",
                plan,
                "--ledger",
                "out/ledger.jsonl",
                "--no-step-summary",
            ])
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY")
            .assert()
    };
    run("plan.yaml").code(1);
    assert!(!trial_log(&f).contains("escaped"), "{}", trial_log(&f));
    assert!(trial_log(&f).contains("tried"), "{}", trial_log(&f));
    assert!(
        std::fs::read(&gate_bin).unwrap() == before,
        "the binary is intact"
    );
    // The next plan of the step runs the real gate: its regressed agent fails.
    run("b.yaml")
        .code(1)
        .stdout(predicate::str::contains("FAIL"));
}

#[test]
fn a_task_cannot_write_truncate_or_replace_the_ledger() {
    if !has_abi(3, "a_task_cannot_write_truncate_or_replace_the_ledger") {
        return;
    }
    let f = attack(&write_attempts("out/ledger.jsonl"));
    f.run(&[]).code(1).stdout(predicate::str::contains("FAIL"));
    assert!(!trial_log(&f).contains("escaped"), "{}", trial_log(&f));
    assert!(trial_log(&f).contains("tried"), "{}", trial_log(&f));
    gate()
        .args(["verify", f.ledger_path().to_str().unwrap()])
        .assert()
        .code(0);
}

#[test]
fn a_task_cannot_replace_the_ledger_lock() {
    if !has_abi(3, "a_task_cannot_replace_the_ledger_lock") {
        return;
    }
    let f = attack(&write_attempts("out/ledger.jsonl.lock"));
    f.run(&[]).code(1);
    assert!(!trial_log(&f).contains("escaped"), "{}", trial_log(&f));
    assert!(trial_log(&f).contains("tried"), "{}", trial_log(&f));
    assert!(f.path("out/ledger.jsonl.lock").is_file());
}

#[test]
fn a_task_cannot_plant_a_link_or_a_fifo_at_a_report_path() {
    if !has_abi(3, "a_task_cannot_plant_a_link_or_a_fifo_at_a_report_path") {
        return;
    }
    // Issue 18, break 2: report paths swapped mid-run for links to the plan or the ledger,
    // or a FIFO. The reports' folders hold gate's state: nothing can be created there.
    let f = attack(
        "ln -s ../plan.yaml reports/j.xml && echo escaped\n\
         ln -s ledger.jsonl out/r.json && echo escaped\n\
         mkfifo out/s.md && echo escaped\n\
         mv reports reports.old && echo escaped",
    );
    let plan = read(&f.plan());
    f.run(&[
        "--junit",
        "reports/j.xml",
        "--json",
        "out/r.json",
        "--summary",
        "out/s.md",
    ])
    .code(1);
    assert!(!trial_log(&f).contains("escaped"), "{}", trial_log(&f));
    assert_eq!(read(&f.plan()), plan, "the plan is untouched");
    for report in ["reports/j.xml", "out/r.json", "out/s.md"] {
        let meta = std::fs::symlink_metadata(f.path(report)).unwrap();
        assert!(meta.is_file(), "{report} is gate's own file");
    }
    assert!(read(&f.path("out/r.json")).contains("\"verdict\": \"FAIL\""));
    gate()
        .args(["verify", f.ledger_path().to_str().unwrap()])
        .assert()
        .code(0);
}

#[test]
fn a_task_cannot_rewrite_its_plan() {
    if !has_abi(3, "a_task_cannot_rewrite_its_plan") {
        return;
    }
    let f = attack(&format!(
        "{}\nprintf 'run: \"true\"\\n' > plan.yaml && echo escaped",
        write_attempts("plan.yaml")
    ));
    let plan = read(&f.plan());
    f.run(&[]).code(1);
    assert!(!trial_log(&f).contains("escaped"), "{}", trial_log(&f));
    assert!(trial_log(&f).contains("tried"), "{}", trial_log(&f));
    assert_eq!(read(&f.plan()), plan);
}

#[test]
fn a_task_cannot_rewrite_another_plan_next_to_it() {
    if !has_abi(3, "a_task_cannot_rewrite_another_plan_next_to_it") {
        return;
    }
    // Issue 18, break 1: with `plan: plans/*.yaml`, the first plan's task rewrote the
    // second (`run: "true"`) before it ran.
    let f = attack(
        "printf 'version: 1\\nsampling: {single: {n: 1, c: 0}}\\ntasks:\\n  - id: regressed\\n    run: \"true\"\\n' > b.yaml && echo escaped\n\
         rm -f b.yaml && echo escaped\n\
         mv b.yaml c.yaml && echo escaped",
    );
    let b = "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: regressed\n    run: exit 1\n";
    std::fs::write(f.path("b.yaml"), b).unwrap();
    f.run(&[]).code(1);
    assert!(!trial_log(&f).contains("escaped"), "{}", trial_log(&f));
    assert_eq!(read(&f.path("b.yaml")), b);
    gate()
        .current_dir(f.dir.path())
        .args([
            "run",
            "b.yaml",
            "--ledger",
            "b-out/ledger.jsonl",
            "--no-step-summary",
        ])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("regressed  FAIL"));
}

#[test]
fn a_task_cannot_stop_gate() {
    // Issue 18, break 3: `kill -STOP $PPID` hung the CI job until its timeout. Signals are
    // scoped (Landlock ABI 6) or filtered (seccomp) on every kernel this runs on.
    // In a PID namespace of the trial's own, $PPID is the namespace's init (whose process
    // group reads 0 there: `kill -STOP -0` would stop the task itself) and gate's pid, taken
    // from the path of the result file, names no process or another one; without one, both
    // are gate. Every target is tried, and a group only when it is not the task's own.
    let f = attack(&format!(
        "{GUARD}\n\
         g=$(echo \"$GATE_RESULT\" | sed -n 's|.*/gate-\\([0-9]*\\)-[0-9]*-results/.*|\\1|p')\n\
         [ -n \"$g\" ] || echo 'no gate pid'\n\
         own=$(cut -d' ' -f5 /proc/$$/stat)\n\
         for p in $PPID $g; do\n\
         \x20 kill -STOP $p && echo escaped\n\
         \x20 kill -TSTP $p && echo escaped\n\
         \x20 pg=$(cut -d' ' -f5 /proc/$p/stat 2>/dev/null)\n\
         \x20 if [ -n \"$pg\" ] && [ \"$pg\" -gt 0 ] && [ \"$pg\" != \"$own\" ]; then kill -STOP -$pg && echo escaped; fi\n\
         done\n\
         echo tried"
    ));
    f.command(&[])
        .timeout(Duration::from_secs(60))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("FAIL"));
    let log = trial_log(&f);
    assert!(
        !log.contains("escaped") && !log.contains("no gate pid"),
        "{log}"
    );
    assert!(log.contains("tried"), "{log}");
}

#[test]
fn a_task_cannot_kill_gate_or_its_process_group() {
    let f = attack(&format!(
        "{GUARD}\n\
         kill -KILL $PPID && echo escaped\n\
         kill -KILL -$(cut -d' ' -f5 /proc/$PPID/stat) && echo escaped\n\
         for t in /proc/$PPID/task/*; do kill -KILL $(basename $t) && echo escaped; done"
    ));
    f.command(&[])
        .timeout(Duration::from_secs(60))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("FAIL"));
    assert!(!trial_log(&f).contains("escaped"), "{}", trial_log(&f));
}

#[test]
fn a_task_cannot_kill_every_process() {
    // `kill -9 -1` outside a box would kill every process of this user, the test runner
    // included: the task only tries it once it has seen that gate is out of its reach,
    // and otherwise exits 7 (which fails the test below).
    let f = attack(
        "if kill -0 $PPID 2>/dev/null; then echo unconfined; exit 7; fi\n\
         kill -9 -1\n\
         echo survived",
    );
    f.command(&[])
        .timeout(Duration::from_secs(60))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("FAIL"));
    let log = trial_log(&f);
    assert!(!log.contains("unconfined"), "{log}");
    assert_eq!(attempts(&f.ledger())[0].exit_code, Some(1), "{log}");
}

#[test]
fn signals_are_filtered_by_seccomp_below_landlock_abi_6() {
    // The walls of an older kernel (GitHub's ubuntu-24.04 has ABI 4), on this one.
    let f = attack(&format!(
        "{GUARD}\n\
         kill -STOP $PPID && echo escaped\n\
         kill -KILL -$(cut -d' ' -f5 /proc/$PPID/stat) && echo escaped\n\
         for t in /proc/$PPID/task/*; do kill -STOP $(basename $t) && echo escaped; done"
    ));
    f.command(&[])
        .env("GATE_SANDBOX_MAX_ABI", "4")
        .timeout(Duration::from_secs(60))
        .assert()
        .code(1);
    assert!(!trial_log(&f).contains("escaped"), "{}", trial_log(&f));
    let walls = f.ledger().header().sandbox.clone().expect("walls recorded");
    assert_eq!(walls.signals, SignalWall::Filtered);
    assert_eq!(walls.landlock_abi, landlock_abi().min(4));
}

#[test]
fn a_task_cannot_write_github_output_or_see_the_runner_tokens() {
    // Issue 18, break 4: the task appended `verdict=PASS` to `$GITHUB_OUTPUT`.
    let f = attack(
        "printf 'verdict=PASS\\nexit-code=0\\nx<<exit-code=1\\n' >> \"$GITHUB_OUTPUT\" && echo escaped\n\
         printf 'forged' >> \"$GITHUB_STEP_SUMMARY\" && echo escaped\n\
         printf 'forged' >> \"$KNOWN_OUTPUT\" && echo escaped\n\
         env | grep -E '^(GITHUB_(OUTPUT|ENV|PATH|STATE|STEP_SUMMARY|TOKEN)|ACTIONS_)' && echo escaped\n\
         true",
    );
    let ci = tempfile::tempdir().unwrap();
    let output = ci.path().join("output");
    std::fs::write(&output, "").unwrap();
    f.command(&[])
        .env("GITHUB_OUTPUT", &output)
        .env("GITHUB_ENV", ci.path().join("env"))
        .env("GITHUB_PATH", ci.path().join("path"))
        .env("GITHUB_STATE", ci.path().join("state"))
        .env("GITHUB_TOKEN", "ghs_secret")
        .env("ACTIONS_RUNTIME_TOKEN", "runtime-secret")
        .env(
            "ACTIONS_ID_TOKEN_REQUEST_URL",
            "https://example.invalid/oidc",
        )
        .env("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "oidc-secret")
        .env("ACTIONS_CACHE_URL", "https://example.invalid/cache")
        .env("ACTIONS_RESULTS_URL", "https://example.invalid/results")
        // The path is no secret: a task that knows it still cannot write it.
        .env("KNOWN_OUTPUT", &output)
        .assert()
        .code(1);
    assert!(!trial_log(&f).contains("escaped"), "{}", trial_log(&f));
    assert_eq!(read(&output), "", "the step's outputs are gate's alone");
}

#[test]
fn pass_env_lets_a_listed_variable_through() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: t\n    run: 'test \"$GITHUB_TOKEN\" = ghs_x && test -z \"$ACTIONS_RUNTIME_TOKEN\"'\npolicy:\n  sandbox: {pass_env: [GITHUB_TOKEN]}\n",
    );
    f.command(&[])
        .env("GITHUB_TOKEN", "ghs_x")
        .env("ACTIONS_RUNTIME_TOKEN", "runtime-secret")
        .assert()
        .code(0);
    let walls = f.ledger().header().sandbox.clone().unwrap();
    assert_eq!(walls.pass_env, vec!["GITHUB_TOKEN".to_string()]);
}

/// The check's `TMPDIR` is its own, fresh and empty, not the trial's (review 46).
#[test]
fn the_box_leaves_a_task_its_tmpdir_subfolders_result_file_and_devices() {
    let f = Fixture::new(
        r#"version: 1
sampling: {single: {n: 2, c: 0}}
tasks:
  - id: t
    run: |
      set -e
      echo "$TMPDIR"
      echo scratch > "$TMPDIR/x" && mkdir "$TMPDIR/d"
      mkdir -p work/deep && echo ok > work/deep/f && rm -r work/deep
      echo more >> notes.txt
      echo quiet > /dev/null
      echo '{"pass": true}' > "$GATE_RESULT"
    check: test ! -e "$TMPDIR/x" && test -d "$TMPDIR"
policy:
  sandbox: {writable: [extra]}
"#,
    );
    std::fs::create_dir(f.path("work")).unwrap();
    std::fs::create_dir(f.path("extra")).unwrap();
    std::fs::write(f.path("notes.txt"), "").unwrap();
    f.run(&[]).code(0);
    let l = f.ledger();
    let rows = attempts(&l);
    let tmpdirs: Vec<&str> = rows.iter().map(|r| r.detail.stdout_tail.trim()).collect();
    assert_ne!(tmpdirs[0], tmpdirs[1], "a fresh TMPDIR per attempt");
    for dir in tmpdirs {
        assert!(
            !Path::new(dir).exists(),
            "{dir} is removed after the attempt"
        );
    }
    assert_eq!(read(&f.path("notes.txt")), "more\nmore\n");
}

#[test]
fn policy_sandbox_required_refuses_a_kernel_without_the_walls() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: t\n    run: 'touch work/ran'\npolicy: {sandbox: required}\n",
    );
    std::fs::create_dir(f.path("work")).unwrap();
    f.command(&[])
        .env("GATE_SANDBOX_MAX_ABI", "0")
        .env("GATE_SANDBOX_NO_SECCOMP", "1")
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "`policy.sandbox: required`, but this machine cannot box the trials",
        ));
    assert!(!f.path("work/ran").exists(), "no trial ran");
    assert!(!f.ledger_path().exists(), "no ledger was started");
    // `gate check` says the same before anything runs.
    gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml"])
        .env("GATE_SANDBOX_MAX_ABI", "0")
        .env("GATE_SANDBOX_NO_SECCOMP", "1")
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "`gate run` would refuse this plan here",
        ));
}

#[test]
fn policy_sandbox_off_is_recorded_and_stated() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: t\n    run: 'touch ran'\npolicy:\n  sandbox: off\n",
    );
    f.run(&[]).code(0).stdout(predicate::str::contains(
        "sandbox       off (`policy.sandbox: off`) — the task ran unconfined",
    ));
    assert!(
        f.path("ran").exists(),
        "unboxed, the task writes beside the plan"
    );
    let walls = f.ledger().header().sandbox.clone().unwrap();
    assert_eq!(walls.policy, SandboxMode::Off);
    assert_eq!(walls.filesystem, FilesystemWall::Unconfined);
    assert_eq!(walls.signals, SignalWall::Unguarded);
}

#[test]
fn every_report_states_the_walls() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    let out = f
        .command(&["--json", "r.json", "--junit", "j.xml", "--summary", "s.md"])
        .env("GATE_SANDBOX_MAX_ABI", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let abi = landlock_abi().min(1);
    let statement = if abi == 1 && mounts_available() {
        "landlock ABI 1 — mounts: gate state read-only, filesystem enforced except truncate outside gate state, signals filtered (seccomp), unix sockets outside the box reachable, every descendant dies with its trial (PID namespace), a private /dev/shm and IPC per trial process; CI files and tokens withheld from the task's environment and gate's /proc environ (a parent process's may be readable)"
    } else if abi == 1 {
        "landlock ABI 1 — filesystem: landlock allow-list (mount layer unavailable: the plan, ledger, report and binary folders have no read-only wall, only gate's files and YAML in them are kept; no new files there), except truncate, signals filtered (seccomp), unix sockets outside the box reachable, detached processes killed by gate's bounded orphan sweep, /dev/shm and IPC shared between trials; CI files and tokens withheld from the task's environment and gate's /proc environ (a parent process's is readable)"
    } else {
        "no Landlock on this kernel — filesystem unconfined, signals filtered (seccomp), unix sockets outside the box reachable; CI files and tokens withheld from the task's environment and gate's /proc environ (a parent process's is readable)"
    };
    let terminal = String::from_utf8(out.stdout).unwrap();
    assert!(
        terminal.contains(&format!("  sandbox       {statement}\n")),
        "{terminal}"
    );
    let json: serde_json::Value = serde_json::from_str(&read(&f.path("r.json"))).unwrap();
    let recorded = &json["ledgers"][0]["sandbox"][0];
    assert_eq!(recorded["statement"], statement);
    assert_eq!(recorded["landlock_abi"], abi);
    assert_eq!(recorded["signals"], "filtered");
    let mounts = if abi == 1 && mounts_available() {
        "state_read_only"
    } else {
        "none"
    };
    assert_eq!(recorded["mounts"], mounts);
    // XML writes the apostrophes of "task's" and "gate's" as entities.
    assert!(read(&f.path("j.xml")).contains(&format!(
        "<property name=\"sandbox\" value=\"{}\"/>",
        statement.replace('\'', "&apos;")
    )));
    assert!(read(&f.path("s.md")).contains(&format!("<sub>Sandbox: {statement}</sub>")));
    let walls = f.ledger().header().sandbox.clone().unwrap();
    assert_eq!(walls.landlock_abi, abi);
}

#[test]
fn a_schema_1_ledger_still_replays_and_verifies() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 3, c: 1}}\ntasks:\n  - id: t\n    run: '[ \"$GATE_TRIAL\" != 2 ]'\n",
    );
    f.run(&[]).code(0);
    let old = crate::report::rechain(&f.ledger_path(), &f.path("old.jsonl"), |row| {
        if let gate::ledger::Row::Header(h) = row {
            h.schema = 1;
            h.sandbox = None;
        }
    });
    gate()
        .args(["verify", old.to_str().unwrap()])
        .assert()
        .code(0);
    gate()
        .args(["report", old.to_str().unwrap()])
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("t  PASS"))
        .stdout(predicate::str::contains("sandbox").not());
}

#[test]
fn a_resumed_run_records_the_walls_of_its_own_machine() {
    // The first session is interrupted (Ctrl-C from outside: the task cannot signal gate);
    // the resume runs under the walls of an older kernel, and the reports state both.
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 3, c: 0}}\ntasks:\n  - id: t\n    run: 'if [ \"$GATE_TRIAL\" = 2 ] && [ ! -e work/resumed ]; then touch work/waiting; exec sleep 60; fi'\n",
    );
    std::fs::create_dir(f.path("work")).unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("gate"))
        .current_dir(f.dir.path())
        .args([
            "run",
            "plan.yaml",
            "--ledger",
            "out/ledger.jsonl",
            "--no-step-summary",
        ])
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let waiting = f.path("work/waiting");
    let until = std::time::Instant::now() + Duration::from_secs(30);
    while !waiting.exists() && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(waiting.exists(), "trial 2 started");
    // SAFETY: sends SIGINT to the gate this test started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    assert_eq!(child.wait().unwrap().code(), Some(130));
    std::fs::write(f.path("work/resumed"), "").unwrap();
    f.command(&["--resume", "--json", "r.json"])
        .env("GATE_SANDBOX_MAX_ABI", "4")
        .assert()
        .code(0);
    let json: serde_json::Value = serde_json::from_str(&read(&f.path("r.json"))).unwrap();
    let walls = json["ledgers"][0]["sandbox"].as_array().unwrap();
    assert_eq!(walls.len(), 2, "{walls:?}");
    assert_eq!(walls[0]["landlock_abi"], landlock_abi());
    assert_eq!(walls[1]["landlock_abi"], landlock_abi().min(4));
    assert_eq!(walls[1]["signals"], "filtered");
}

/// Issue 18's box, first round: a task could not create a file in a folder that holds gate's
/// own files (the plan's folder, which also holds the ledger's), so `echo x > counter.txt`,
/// pytest's `--junitxml=report.xml` or its `.pytest_cache` beside the plan failed the trial:
/// a FAIL caused by the box. Under the mount layer the working folder is writable whole and
/// gate's state in it is read-only.
#[test]
fn a_file_created_beside_the_plan_no_longer_fails_the_trial() {
    if !has_mounts("a_file_created_beside_the_plan_no_longer_fails_the_trial") {
        return;
    }
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 2, c: 0}}\ntasks:\n  - id: t\n    run: |\n      set -e\n      echo x >> counter.txt\n      mkdir -p .pytest_cache/v && echo '{}' > .pytest_cache/v/cache\n      echo '<testsuite/>' > report.xml.tmp && mv report.xml.tmp report.xml\n      rm -r .pytest_cache\n",
    );
    f.run(&[])
        .code(0)
        .stdout(predicate::str::contains("t  PASS"));
    assert_eq!(read(&f.path("counter.txt")), "x\nx\n");
    assert!(f.path("report.xml").is_file());
    let walls = f.ledger().header().sandbox.clone().unwrap();
    assert_eq!(walls.mounts, MountWall::StateReadOnly);
}

/// The walls of the mount layer: gate's state in the task's folder is read-only, the folders
/// above it cannot be moved, and the task cannot unmount or remount the binds (a Landlock
/// domain may not change mounts; a privileged task also lost `CAP_SYS_ADMIN`).
#[test]
fn a_task_cannot_unmount_remount_or_move_aside_gate_state() {
    if !has_mounts("a_task_cannot_unmount_remount_or_move_aside_gate_state") {
        return;
    }
    let f = Fixture::new("");
    std::fs::create_dir(f.path("plans")).unwrap();
    // The plan in a folder of the task's tree (its `cwd` is the fixture's root): the folder
    // holds gate's state, so it is pinned, and every plan in it is read-only.
    std::fs::write(
        f.path("plans/a.yaml"),
        format!(
            "version: 1\nsampling: {{single: {{n: 1, c: 0}}}}\ntasks:\n  - id: attack\n    cwd: ..\n    run: |\n{}\n      exit 1\n",
            indent(
                "umount plans/b.yaml && echo escaped\n\
                 umount -l out/ledger.jsonl && echo escaped\n\
                 mount -o remount,rw,bind plans/b.yaml && echo escaped\n\
                 mount --bind /dev/null plans/b.yaml && echo escaped\n\
                 mount -t tmpfs none out && echo escaped\n\
                 printf 'run: \"true\"\\n' >> plans/b.yaml && echo escaped\n\
                 mv plans plans.old && echo escaped\n\
                 mv out out.old && echo escaped\n\
                 mkdir -p plans2 && printf 'run: \"true\"\\n' > plans2/b.yaml && echo created\n\
                 rm -rf plans && echo escaped\n\
                 printf x >> plans/a.yaml && echo escaped\n\
                 touch out/new && echo escaped\n\
                 ln plans/a.yaml hard && echo escaped"
            )
        ),
    )
    .unwrap();
    let b = "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: regressed\n    run: exit 1\n";
    std::fs::write(f.path("plans/b.yaml"), b).unwrap();
    let plan = read(&f.path("plans/a.yaml"));
    gate()
        .current_dir(f.dir.path())
        .args([
            "run",
            "plans/a.yaml",
            "--ledger",
            "out/ledger.jsonl",
            "--no-step-summary",
        ])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("attack  FAIL"));
    let log = trial_log(&f);
    assert!(!log.contains("escaped"), "{log}");
    assert!(
        log.contains("created"),
        "the task's own folders stay writable: {log}"
    );
    assert_eq!(read(&f.path("plans/b.yaml")), b);
    assert_eq!(read(&f.path("plans/a.yaml")), plan);
    gate()
        .args(["verify", f.ledger_path().to_str().unwrap()])
        .assert()
        .code(0);
    gate()
        .current_dir(f.dir.path())
        .args([
            "run",
            "plans/b.yaml",
            "--ledger",
            "b-out/ledger.jsonl",
            "--no-step-summary",
        ])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("regressed  FAIL"));
}

/// Without `CAP_SYS_ADMIN` (any non-root user; here root with it dropped, when the tests run
/// as root) the mount layer is a user namespace that maps the task's uid onto itself: the
/// task's `id -u` is unchanged and the walls are the same.
#[test]
fn the_mount_layer_in_a_user_namespace_keeps_the_uid_and_the_walls() {
    if !has_mounts("the_mount_layer_in_a_user_namespace_keeps_the_uid_and_the_walls") {
        return;
    }
    // SAFETY: getuid only returns an id.
    let uid = unsafe { libc::getuid() };
    let f = attack(&format!(
        "test \"$(id -u)\" = {uid} && echo same-uid\n\
         echo x > counter.txt && echo created\n\
         umount plan.yaml && echo escaped\n\
         printf x >> plan.yaml && echo escaped\n\
         printf x >> out/ledger.jsonl && echo escaped"
    ));
    let mut cmd = if uid == 0 {
        if std::process::Command::new("setpriv")
            .arg("--version")
            .output()
            .is_err()
        {
            skip_or_fail(
                "the_mount_layer_in_a_user_namespace_keeps_the_uid_and_the_walls",
                "setpriv",
                "running as root without setpriv to drop CAP_SYS_ADMIN",
            );
            return;
        }
        let mut c = assert_cmd::Command::new("setpriv");
        c.args(["--bounding-set", "-sys_admin", "--inh-caps", "-sys_admin"])
            .arg(assert_cmd::cargo::cargo_bin("gate"));
        c
    } else {
        gate()
    };
    cmd.current_dir(f.dir.path())
        .args([
            "run",
            "plan.yaml",
            "--ledger",
            "out/ledger.jsonl",
            "--no-step-summary",
        ])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY");
    let probe = std::process::Command::new("sh")
        .args(["-c", "unshare -U true"])
        .status();
    if !probe.is_ok_and(|s| s.success()) {
        skip_or_fail(
            "the_mount_layer_in_a_user_namespace_keeps_the_uid_and_the_walls",
            "userns",
            "user namespaces are refused here",
        );
        return;
    }
    cmd.assert()
        .code(1)
        .stdout(predicate::str::contains("attack  FAIL"));
    let log = trial_log(&f);
    assert!(log.contains("same-uid") && log.contains("created"), "{log}");
    assert!(!log.contains("escaped"), "{log}");
    assert_eq!(
        f.ledger().header().sandbox.clone().unwrap().mounts,
        MountWall::StateReadOnly
    );
}

/// A task may create files in its folder now, so it could plant `gate.yaml` where a later
/// `gate run` without a path finds it first (before `.config/gate.yaml`): the run that saw it
/// appear publishes no verdict.
#[test]
fn a_task_cannot_plant_a_default_plan_for_a_later_gate_run() {
    let f = Fixture::new("");
    std::fs::create_dir(f.path(".config")).unwrap();
    std::fs::write(
        f.path(".config/gate.yaml"),
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: regressed\n    cwd: ..\n    run: |\n      printf 'version: 1\\nsampling: {single: {n: 1, c: 0}}\\ntasks:\\n  - id: regressed\\n    run: \"true\"\\n' > gate.yaml\n      exit 1\n",
    )
    .unwrap();
    gate()
        .current_dir(f.dir.path())
        .args(["run", "--ledger", "out/ledger.jsonl", "--no-step-summary"])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "`gate run` without a plan path would load it next",
        ))
        .stdout(predicate::str::contains("PASS").not());
}

/// Truncate by path is not confined by Landlock before ABI 3 (Linux 6.2; GitHub's
/// ubuntu-22.04 has ABI 1), but gate's state is on read-only mounts: `truncate` fails there.
#[test]
fn below_landlock_abi_3_the_mount_layer_still_refuses_truncating_the_ledger() {
    if !has_mounts("below_landlock_abi_3_the_mount_layer_still_refuses_truncating_the_ledger") {
        return;
    }
    let f = attack(
        "truncate -s 0 out/ledger.jsonl && echo escaped\n\
         truncate -s 0 plan.yaml && echo escaped",
    );
    f.command(&[])
        .env("GATE_SANDBOX_MAX_ABI", "1")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("attack  FAIL"));
    assert!(!trial_log(&f).contains("escaped"), "{}", trial_log(&f));
    gate()
        .args(["verify", f.ledger_path().to_str().unwrap()])
        .assert()
        .code(0);
}

/// Where the mount layer cannot be made (user namespaces refused: GitHub's ubuntu-24.04
/// runners for non-root users), the box falls back to the Landlock allow-list, says so, and
/// every write attack still fails. `GATE_SANDBOX_NO_MOUNTS=1` forces that here.
#[test]
fn without_the_mount_layer_every_write_attack_still_fails() {
    if !has_abi(3, "without_the_mount_layer_every_write_attack_still_fails") {
        return;
    }
    let f = attack(&format!(
        "{}\n{}\n{}\n\
         printf 'run: \"true\"\\n' >> b.yaml && echo escaped\n\
         echo ok > work/f && echo wrote-own-folder",
        write_attempts("out/ledger.jsonl"),
        write_attempts("out/ledger.jsonl.lock"),
        write_attempts("plan.yaml"),
    ));
    std::fs::write(f.path("b.yaml"), "x").unwrap();
    std::fs::create_dir(f.path("work")).unwrap();
    let plan = read(&f.plan());
    f.command(&["--json", "out/r.json"])
        .env("GATE_SANDBOX_NO_MOUNTS", "1")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("filesystem: landlock allow-list"));
    let log = trial_log(&f);
    assert!(!log.contains("escaped") && log.contains("tried"), "{log}");
    assert!(log.contains("wrote-own-folder"), "{log}");
    assert_eq!(read(&f.plan()), plan);
    assert_eq!(read(&f.path("b.yaml")), "x");
    let walls = f.ledger().header().sandbox.clone().unwrap();
    assert_eq!(walls.mounts, MountWall::None);
    assert!(read(&f.path("out/r.json")).contains("\"mounts\": \"none\""));
    gate()
        .args(["verify", f.ledger_path().to_str().unwrap()])
        .assert()
        .code(0);
}

/// Honesty of the fallback: without the mount layer the statement of every report names what
/// has no read-only wall (the folders of the plan, the ledger, the reports and the binary),
/// not only that the layer is missing.
#[test]
fn the_fallback_statement_names_the_folders_that_lost_their_read_only_wall() {
    if !has_abi(
        3,
        "the_fallback_statement_names_the_folders_that_lost_their_read_only_wall",
    ) {
        return;
    }
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    let named = "filesystem: landlock allow-list (mount layer unavailable: the plan, ledger, \
                 report and binary folders have no read-only wall, only gate's files and YAML \
                 in them are kept; no new files there)";
    f.command(&["--json", "out/r.json"])
        .env("GATE_SANDBOX_NO_MOUNTS", "1")
        .assert()
        .code(0)
        .stdout(predicate::str::contains(named));
    let json: serde_json::Value = serde_json::from_str(&read(&f.path("out/r.json"))).unwrap();
    let statement = json["ledgers"][0]["sandbox"][0]["statement"]
        .as_str()
        .unwrap();
    assert!(statement.contains(named), "{statement}");
    // With the layer, the statement says the state is read-only instead.
    if mounts_available() {
        let g = Fixture::new(
            "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: t\n    run: 'true'\n",
        );
        g.command(&[])
            .assert()
            .code(0)
            .stdout(predicate::str::contains("mounts: gate state read-only"))
            .stdout(predicate::str::contains("mount layer unavailable").not());
    }
}

/// The fallback's price: without the mount layer a task may not create a file in a folder
/// that holds gate's own files (here the plan's folder, which also holds the ledger's). Such a
/// FAIL is the box's, not the agent's, so the summary says where a trial may write, and
/// `gate check` names the folder.
#[test]
fn without_the_mount_layer_a_file_beside_the_plan_is_refused_and_the_summary_says_where_to_write() {
    if !has_abi(
        1,
        "without_the_mount_layer_a_file_beside_the_plan_is_refused_and_the_summary_says_where_to_write",
    ) {
        return;
    }
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: t\n    run: echo x > counter.txt\n",
    );
    f.command(&[])
        .env("GATE_SANDBOX_NO_MOUNTS", "1")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("Permission denied"))
        .stdout(predicate::str::contains("hint       a write was refused"))
        .stdout(predicate::str::contains("policy.sandbox.writable"));
    assert!(!f.path("counter.txt").exists());
    let dir = std::fs::canonicalize(f.dir.path()).unwrap();
    gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml"])
        .env("GATE_SANDBOX_NO_MOUNTS", "1")
        .assert()
        .code(0)
        .stderr(predicate::str::contains(format!(
            "filesystem: landlock allow-list — new files cannot be created in {}, which holds gate's state; write to $TMPDIR or a subfolder, or put --out elsewhere",
            dir.display()
        )));
    // In a subfolder free of gate's files the same write works.
    let g = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: t\n    cwd: work\n    run: echo x > counter.txt\n",
    );
    std::fs::create_dir(g.path("work")).unwrap();
    g.command(&[])
        .env("GATE_SANDBOX_NO_MOUNTS", "1")
        .assert()
        .code(0);
    assert_eq!(read(&g.path("work/counter.txt")), "x\n");
}

/// Concurrent trials of one task shared `runs/RUN/results/TASK/`, and the box let every trial
/// write that folder: trial 1 overwrote trial 2's `$GATE_RESULT` with a pass, and trial 2 was
/// graded on it. Each trial now has a result folder of its own that only its box may write,
/// with the mount layer and without it.
#[test]
fn a_trial_cannot_write_a_sibling_trials_result_file() {
    if !has_abi(3, "a_trial_cannot_write_a_sibling_trials_result_file") {
        return;
    }
    // Trial 2 fails through its result file and waits until trial 1 has tried to overwrite
    // it with a pass; trial 1 tries every way at trial 2's path (the ordinal swapped in its
    // own) and at the folder above its own.
    let f = Fixture::new(&format!(
        r#"version: 1
sampling: {{single: {{n: 2, c: 0}}}}
tasks:
  - id: t
    timeout: 60s
    run: |
      wait_for() {{ i=0; while [ ! -e "$1" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; }}
      if [ "$GATE_TRIAL" = 2 ]; then
        printf '{{"pass": false}}' > "$GATE_RESULT"
        touch "work/ready-$RUN"
        wait_for "work/attacked-$RUN"
        exit 0
      fi
      wait_for "work/ready-$RUN"
      own="$GATE_RESULT"
      # Trial 2's file beside this trial's own (one folder per task), or in the folder for
      # ordinal 2 beside this trial's folder (one folder per trial).
      for sibling in "$(dirname "$own")/0002-1.json" "$(dirname "$(dirname "$own")")/0002/0002-1.json"; do
        [ -e "$sibling" ] && echo found-sibling && break
      done
      echo "own $own sibling $sibling"
{}
      printf '{{"pass": true}}' > "$(dirname "$sibling").x" && echo escaped
      mkdir "$(dirname "$own")/../0003" && echo escaped
      printf '{{"pass": true}}' > "$own"
      touch "work/attacked-$RUN"
      exit 0
"#,
        indent(&write_attempts("\"$sibling\""))
    ));
    // The markers go in a folder of the task's own (without the mount layer nothing can be
    // created beside the plan).
    std::fs::create_dir(f.path("work")).unwrap();
    for (run, no_mounts) in [("mounts", false), ("allow-list", true)] {
        if !no_mounts && !mounts_available() {
            eprintln!("a_trial_cannot_write_a_sibling_trials_result_file: no mount layer here");
            continue;
        }
        let mut cmd = f.command(&["--jobs", "2"]);
        cmd.env("RUN", run);
        if no_mounts {
            cmd.env("GATE_SANDBOX_NO_MOUNTS", "1");
        }
        cmd.timeout(Duration::from_secs(120))
            .assert()
            .code(1)
            .stdout(predicate::str::contains("FAIL"));
        let l = f.ledger();
        let rows = attempts(&l);
        let row = |t: u64| rows.iter().find(|r| r.trial == t).expect("a row").clone();
        // Trial 2 is graded on what it wrote itself.
        let second = row(2);
        assert_eq!(
            second.outcome,
            gate::model::Outcome::Fail,
            "{run}: {second:?}"
        );
        assert_eq!(
            second.detail.result.as_ref().and_then(|r| r.pass),
            Some(false),
            "{run}"
        );
        let first = row(1);
        let log = first
            .detail
            .log
            .as_ref()
            .map(|p| read(Path::new(p)))
            .unwrap_or_default();
        assert!(
            log.contains("found-sibling"),
            "{run}: the attack aimed at the real path: {log}"
        );
        assert!(log.contains("tried"), "{run}: {log}");
        assert!(!log.contains("escaped"), "{run}: {log}");
        assert_eq!(
            decision(&l, "t").verdict,
            gate::model::Judgement::Verdict(gate::model::Verdict::Fail)
        );
    }
}

/// The folders gate process `pid` made in the temporary folder `tmp`.
fn folders_of(tmp: &Path, pid: u32) -> Vec<String> {
    std::fs::read_dir(tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!("gate-{pid}-")))
        .collect()
}

/// A SIGKILLed gate (no chance to kill its trials) left its trials running, re-parented, and
/// their `TMPDIR`s and result folders in the temporary folder. Each trial's process now dies
/// with gate (`PR_SET_PDEATHSIG`), and the next `gate run` removes what the dead one left.
#[test]
fn a_sigkilled_gate_leaves_no_trial_running_and_the_next_run_clears_its_folders() {
    let tmp = tempfile::tempdir().unwrap();
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 4, c: 0}}\ntasks:\n  - id: t\n    timeout: 120s\n    run: 'echo $$ > \"work/pid-$GATE_TRIAL\"; exec sleep 30'\n",
    );
    std::fs::create_dir(f.path("work")).unwrap();
    std::fs::write(
        f.path("quick.yaml"),
        "version: 1\nsampling: {single: {n: 2, c: 0}}\ntasks:\n  - id: q\n    run: 'true'\n",
    )
    .unwrap();
    let mut first = std::process::Command::new(assert_cmd::cargo::cargo_bin("gate"))
        .current_dir(f.dir.path())
        .args([
            "run",
            "plan.yaml",
            "--ledger",
            "out/ledger.jsonl",
            "--jobs",
            "2",
        ])
        .args(["--no-step-summary"])
        .env("TMPDIR", tmp.path())
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid_file = |t: u32| f.path(&format!("work/pid-{t}"));
    let until = std::time::Instant::now() + Duration::from_secs(30);
    let pids = loop {
        let pids: Vec<i32> = (1..=2)
            .filter_map(|t| read(&pid_file(t)).trim().parse().ok())
            .collect();
        if pids.len() == 2 {
            break pids;
        }
        assert!(std::time::Instant::now() < until, "both trials started");
        std::thread::sleep(Duration::from_millis(20));
    };
    // `$$` is the trial's pid in its PID namespace, where there is one: the trials are
    // looked up on the host by that pid and their working folder.
    let live = || live_trial_processes(f.dir.path(), &pids);
    assert_eq!(live().len(), 2, "the trials run");
    let gate_pid = first.id();
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(gate_pid as i32, libc::SIGKILL) };
    let _ = first.wait();
    let until = std::time::Instant::now() + Duration::from_secs(3);
    while !live().is_empty() && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        live().is_empty(),
        "trial processes {:?} outlived the SIGKILLed gate",
        live()
    );
    assert!(
        !folders_of(tmp.path(), gate_pid).is_empty(),
        "the killed gate left its folders"
    );
    // The next run (any plan, same temporary folder) removes them, and its own at its end.
    let next = gate()
        .current_dir(f.dir.path())
        .args([
            "run",
            "quick.yaml",
            "--ledger",
            "out/quick.jsonl",
            "--no-step-summary",
        ])
        .env("TMPDIR", tmp.path())
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .code(0);
    drop(next);
    let left: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Review 67, 10: under the mount layer each trial process has a `/dev/shm` of its own (a
/// fresh tmpfs), and the sandbox line says so; Landlock granted the machine's `/dev/shm`,
/// which the trial no longer saw, so POSIX shared memory and semaphores (Python's
/// `multiprocessing.Lock`, a `sem_open`) failed with `EACCES` there. In both box modes a
/// trial now writes `/dev/shm`, and under the mount layer what it leaves there is not the
/// machine's.
#[test]
fn a_trial_writes_its_dev_shm_in_both_box_modes() {
    let test = "a_trial_writes_its_dev_shm_in_both_box_modes";
    if !Path::new("/dev/shm").is_dir() {
        skip_or_fail(test, "devshm", "no /dev/shm here");
        return;
    }
    let marker = format!("gate-shm-probe-{}", std::process::id());
    let f = Fixture::new(&format!(
        r#"version: 1
sampling: {{single: {{n: 2, c: 0}}}}
tasks:
  - id: t
    run: |
      set -e
      echo shared > /dev/shm/{marker}
      test "$(cat /dev/shm/{marker})" = shared
      mkdir /dev/shm/{marker}.d && rmdir /dev/shm/{marker}.d
"#
    ));
    for no_mounts in box_modes(test) {
        let mode = if no_mounts { "allow-list" } else { "mounts" };
        let mut cmd = f.command(&[]);
        if no_mounts {
            cmd.env("GATE_SANDBOX_NO_MOUNTS", "1");
        } else {
            cmd.env_remove("GATE_SANDBOX_NO_MOUNTS");
        }
        let out = cmd
            .timeout(Duration::from_secs(120))
            .assert()
            .get_output()
            .clone();
        let said = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{mode}: {said}{}",
            trial_log(&f)
        );
        let host = Path::new("/dev/shm").join(&marker);
        if no_mounts {
            // The machine's own, shared between trials, as the sandbox line says.
            assert!(
                said.contains("/dev/shm and IPC shared between trials"),
                "{said}"
            );
            assert!(
                host.exists(),
                "allow-list: the trial wrote the machine's /dev/shm"
            );
            std::fs::remove_file(&host).unwrap();
        } else {
            assert!(said.contains("a private /dev/shm"), "{said}");
            assert!(!host.exists(), "mounts: the trial's /dev/shm is its own");
        }
    }
}

/// Review 80, 10/c: in the box without the mount layer (`GATE_SANDBOX_NO_MOUNTS=1`), a task
/// of gate run as root kept `CAP_SYS_ADMIN`, and with it pushed a command into gate's
/// terminal (`TIOCSTI` on a `/dev/pts` it opened without taking it as its terminal), which
/// the shell ran after gate exited. The task now loses the capabilities the mount layer
/// drops (from its effective and bounding sets) there too. The task passes only where
/// `CAP_SYS_ADMIN` (bit 21) is in neither set.
#[test]
fn rev80_10c_a_root_task_without_the_mount_layer_has_no_cap_sys_admin() {
    let test = "rev80_10c_a_root_task_without_the_mount_layer_has_no_cap_sys_admin";
    if !root_or_skip(test) {
        return;
    }
    if !has_abi(1, test) {
        return;
    }
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: caps\n    run: \"for k in CapEff CapBnd; do v=$(awk -v k=$k: '$1 == k {print $2}' /proc/self/status); [ $(( 0x$v >> 21 & 1 )) -eq 0 ] || exit 1; done\"\n",
    );
    for no_mounts in ["1", ""] {
        let mut cmd = f.command(&[]);
        if no_mounts.is_empty() {
            cmd.env_remove("GATE_SANDBOX_NO_MOUNTS");
        } else {
            cmd.env("GATE_SANDBOX_NO_MOUNTS", no_mounts);
        }
        cmd.assert().code(0);
        std::fs::remove_dir_all(f.path("out")).ok();
    }
}

/// Review 82, p02 and p06: the drop of review 80 stopped every trial of a root without
/// `CAP_SETPCAP` (a container that dropped it, or every capability) in the box without the
/// mount layer: dropping from the bounding set needs it. There the drop from the other sets
/// holds (with `no_new_privs`, an `exec` grants nothing back), and an honest task passes.
#[test]
fn rev82_a_root_without_cap_setpcap_still_runs_trials_without_the_mount_layer() {
    let test = "rev82_a_root_without_cap_setpcap_still_runs_trials_without_the_mount_layer";
    if !root_or_skip(test) {
        return;
    }
    if !has("setpriv") {
        skip_or_fail(test, "setpriv", "no setpriv here");
        return;
    }
    if !has_abi(1, test) {
        return;
    }
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 2, c: 0}}\ntasks:\n  - id: t\n    run: \"true\"\n",
    );
    for bounding in ["-setpcap", "-all"] {
        let gate = f.std_command(&[]);
        let mut cmd = std::process::Command::new("setpriv");
        cmd.args(["--bounding-set", bounding, "--inh-caps", "-all", "--"])
            .arg(gate.get_program())
            .args(gate.get_args())
            .current_dir(f.dir.path())
            .env("GATE_SANDBOX_NO_MOUNTS", "1")
            .env_remove("GITHUB_ACTIONS");
        let out = cmd.output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "bounding {bounding}:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::remove_dir_all(f.path("out")).ok();
    }
}

/// Whether test `test` can run here, as root (effective uid 0); saying it skipped (or
/// failing, where `GATE_TESTS_NO_SKIP` names `root`) when not.
fn root_or_skip(test: &str) -> bool {
    let root = runs_as_root();
    if !root {
        skip_or_fail(test, "root", "gate does not run as root here");
    }
    root
}

/// Whether these tests (and the gate they start) run as root: effective uid 0.
fn runs_as_root() -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(2) == Some("0"))
}
