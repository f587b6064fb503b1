//! The `suite:` task kind of a plan file, driven end to end with `gate run`: a real pytest
//! suite and a real cargo-nextest suite as each trial, every test case judged by its own
//! rule. The flaky tests of the pytest and nextest suites fail by an invocation counter kept
//! in a file (in `counters/`, a folder of the plan's that holds none of gate's state, so the
//! box lets the suite write it), so every verdict and count is known in advance. The resume
//! and shard tests use a scripted suite whose outcomes follow `GATE_TRIAL` instead: there a
//! killed run's lost suite run, or two shards running at once, would move an invocation
//! counter, while the ordinal is what resume and shards keep.

use std::path::Path;

use predicates::prelude::*;

use crate::common::gate;
use crate::suite::{CRATE_LIB, NEXTEST, PYTEST};

/// A plan with one suite task running `run`, judged by `single: {n, c}`.
fn plan(run: &str, n: u64, c: u64, extra: &str) -> String {
    let run: String = run.lines().map(|l| format!("        {l}\n")).collect();
    format!(
        "version: 1\nsampling:\n  single: {{n: {n}, c: {c}}}\ntasks:\n  - id: suite\n    suite:\n      run: |\n{run}{extra}    timeout: 120s\n"
    )
}

fn gate_in(dir: &Path) -> assert_cmd::Command {
    let mut cmd = gate();
    cmd.current_dir(dir)
        .env("COUNTER_DIR", dir.join("counters"))
        .env_remove("GITHUB_STEP_SUMMARY");
    cmd
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Every test case's (verdict, run, passed, failed, excluded) as the JSON report gives it.
fn check_cases(report: &serde_json::Value, expect: &[(&str, &str, u64, u64, u64, u64)]) {
    let tasks = report["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), expect.len(), "{report:#}");
    for &(id, verdict, run, passed, failed, excluded) in expect {
        let t = tasks
            .iter()
            .find(|t| t["id"] == id)
            .unwrap_or_else(|| panic!("{id} in the report"));
        let c = &t["trials"];
        assert_eq!(
            (
                t["verdict"].as_str(),
                c["run"].as_u64(),
                c["passed"].as_u64(),
                c["failed"].as_u64(),
                c["excluded"].as_u64()
            ),
            (
                Some(verdict),
                Some(run),
                Some(passed),
                Some(failed),
                Some(excluded)
            ),
            "{id}"
        );
    }
}

/// The pytest suite's truth under the single plan (8, 1): `test_broken` fails invocations 1
/// and 3 (FAIL after 3), `test_lookup` passes 7 straight (PASS, the 8th run excluded),
/// `test_refund` fails invocations 4 and 8 (FAIL after 8, when the suite stops).
const PYTEST_TRUTH: [(&str, &str, u64, u64, u64, u64); 3] = [
    ("suite/test_agent::test_lookup", "PASS", 7, 7, 0, 1),
    ("suite/test_agent::test_refund", "FAIL", 8, 6, 2, 0),
    ("suite/test_agent::test_broken", "FAIL", 3, 1, 2, 5),
];

#[test]
fn a_suite_task_judges_every_pytest_test_case_against_its_invocation_counter() {
    let d = crate::suite::project();
    let p = d.path();
    std::fs::write(
        p.join("gate.yaml"),
        plan(PYTEST, 8, 1, "      harness_exit_codes: [2, 3, 4, 5]\n"),
    )
    .unwrap();
    let out = gate_in(p)
        .args(["run", "--json", "report.json", "--junit", "report.xml"])
        .args(["--summary", "summary.md"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let report = json(&p.join("report.json"));
    check_cases(&report, &PYTEST_TRUTH);
    // One suite run per trial, no retry: each flaky test ran exactly 8 times.
    for name in ["refund", "broken"] {
        let k = std::fs::read_to_string(p.join("counters").join(name)).unwrap();
        assert_eq!(k, "8", "{name}");
    }
    // Each test case has its own plan, OC and zone in every report.
    let refund = &report["tasks"][1];
    assert_eq!(
        refund["plan"]["zone"]["text"],
        "between 59.4% and 95.4% the verdict can go either way: at 79.9% it passes half the time"
    );
    assert!(!refund["plan"]["oc"].as_array().unwrap().is_empty());
    let md = std::fs::read_to_string(p.join("summary.md")).unwrap();
    assert!(md.contains("suite/test_agent::test_refund"), "{md}");
    assert!(
        md.contains("**Zone:** between 59.4% and 95.4% the verdict can go either way"),
        "{md}"
    );
    let xml = std::fs::read_to_string(p.join("report.xml")).unwrap();
    assert!(xml.contains("suite/test_agent::test_broken"), "{xml}");
    // The ledger records each suite run with its result file's digest, verifies, and
    // recomputes to the same verdicts.
    let ledger = std::fs::read_to_string(p.join("gate-out/ledger.jsonl")).unwrap();
    assert_eq!(ledger.matches("\"results_sha256\"").count(), 8);
    gate_in(p)
        .args(["verify", "gate-out/ledger.jsonl"])
        .assert()
        .success()
        .stdout(predicate::str::contains("3 decisions recompute"));
    gate_in(p)
        .args(["report", "gate-out/ledger.jsonl", "--json", "again.json"])
        .assert()
        .code(1);
    check_cases(&json(&p.join("again.json")), &PYTEST_TRUTH);
    gate_in(p).args(["check"]).assert().success();

    // A collection error is the suite's failure, not a test's: a harness error, no verdict.
    std::fs::write(p.join("test_syntax.py"), "def test_x(:\n").unwrap();
    gate_in(p)
        .args(["run", "--json", "broken.json"])
        .assert()
        .code(4)
        .stdout(predicate::str::contains("HARNESS ERROR"));
    assert_eq!(
        json(&p.join("broken.json"))["verdict"],
        serde_json::Value::Null
    );
}

#[test]
fn a_suite_task_judges_every_nextest_test_case_against_its_invocation_counter() {
    assert!(
        std::process::Command::new("cargo")
            .args(["nextest", "--version"])
            .stdout(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success()),
        "this test needs cargo-nextest: `cargo install --locked cargo-nextest` (scripts/test.sh does)"
    );
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    // `target/` exists first too: the box lets a suite create nothing beside the plan file.
    for dir in ["src", ".config", "counters", "target"] {
        std::fs::create_dir(p.join(dir)).unwrap();
    }
    std::fs::write(
        p.join("Cargo.toml"),
        "[package]\nname = \"agentsuite\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    std::fs::write(p.join("src/lib.rs"), CRATE_LIB).unwrap();
    std::fs::write(
        p.join(".config/nextest.toml"),
        "[profile.ci.junit]\npath = \"junit.xml\"\n",
    )
    .unwrap();
    // The box lets a suite create nothing beside the plan file: the lock file exists first.
    assert!(
        std::process::Command::new("cargo")
            .args(["generate-lockfile", "--offline"])
            .current_dir(p)
            .status()
            .unwrap()
            .success()
    );
    // nextest: 4 no test ran, 96 setup error, 101 build failed.
    std::fs::write(
        p.join("gate.yaml"),
        plan(NEXTEST, 8, 1, "      harness_exit_codes: [4, 96, 101]\n"),
    )
    .unwrap();
    let out = gate_in(p)
        .env("CARGO_TARGET_DIR", p.join("target"))
        .args(["run", "--json", "report.json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // refund fails invocations 4 and 8 (FAIL after 8); lookup passes 7 straight.
    check_cases(
        &json(&p.join("report.json")),
        &[
            ("suite/agentsuite::tests::lookup", "PASS", 7, 7, 0, 1),
            ("suite/agentsuite::tests::refund", "FAIL", 8, 6, 2, 0),
        ],
    );
    assert_eq!(
        std::fs::read_to_string(p.join("counters/refund")).unwrap(),
        "8"
    );
    gate_in(p)
        .args(["verify", "gate-out/ledger.jsonl"])
        .assert()
        .success()
        .stdout(predicate::str::contains("2 decisions recompute"));
}

/// A scripted suite of three test cases whose outcomes follow the suite run's ordinal:
/// `steady` always passes, `flaky` fails runs 3 and 6, `broken` fails runs 1 and 2. Each run
/// sleeps `SLEEP` seconds first, so a run can be killed in the middle.
const SCRIPTED: &str = r#"sleep "${SLEEP:-0}"; k=$GATE_TRIAL
tc() { if [ "$2" = 1 ]; then echo "<testcase classname=\"t\" name=\"$1\"><failure message=\"run $k\"/></testcase>"; else echo "<testcase classname=\"t\" name=\"$1\"/>"; fi; }
f=0; [ $((k % 3)) = 0 ] && f=1; b=0; [ "$k" -le 2 ] && b=1
{ echo "<testsuites><testsuite name=\"s\" timestamp=\"$k\">"; tc steady 0; tc flaky $f; tc broken $b; echo '</testsuite></testsuites>'; } > "$GATE_JUNIT""#;

/// The scripted suite's truth under the single plan (8, 1): `broken` FAILs at run 2, `flaky`
/// at run 6, `steady` PASSes at run 7 (7 passes), when the last test case decides and the
/// suite stops: the decided ones' later runs are excluded.
const SCRIPTED_TRUTH: [(&str, &str, u64, u64, u64, u64); 3] = [
    ("suite/t::steady", "PASS", 7, 7, 0, 0),
    ("suite/t::flaky", "FAIL", 6, 4, 2, 1),
    ("suite/t::broken", "FAIL", 2, 0, 2, 5),
];

fn scripted(dir: &Path, extra: &str) {
    std::fs::write(
        dir.join("gate.yaml"),
        plan(
            SCRIPTED,
            8,
            1,
            &format!("      format: junit\n      assume_retries_off: true\n{extra}"),
        ),
    )
    .unwrap();
}

#[test]
fn a_suite_task_killed_mid_run_resumes_to_the_same_verdicts() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    scripted(p, "    env: {SLEEP: '0.3'}\n");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("gate"))
        .current_dir(p)
        .env_remove("GITHUB_STEP_SUMMARY")
        .args(["run", "--quiet"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for three suite runs on disk, then SIGKILL gate in the middle of the fourth.
    let ledger = p.join("gate-out/ledger.jsonl");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::fs::read_to_string(&ledger).map_or(0, |l| l.matches("\"results_sha256\"").count())
        < 3
    {
        assert!(
            std::time::Instant::now() < deadline,
            "no suite runs written"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    child.kill().unwrap();
    child.wait().unwrap();
    let written = std::fs::read_to_string(&ledger).unwrap();
    assert!(
        !written.contains("\"kind\":\"decision\""),
        "killed before any decision"
    );
    // The rows written as each run completed are kept; the rest runs again.
    gate_in(p)
        .args(["run", "--resume", "--json", "report.json"])
        .assert()
        .code(1);
    check_cases(&json(&p.join("report.json")), &SCRIPTED_TRUTH);
    let resumed = std::fs::read_to_string(&ledger).unwrap();
    // Every whole row the killed run wrote is kept (a torn last one would be dropped).
    let whole = &written[..written.rfind('\n').map_or(0, |i| i + 1)];
    assert!(resumed.starts_with(whole), "the killed run's rows are kept");
    assert!(resumed.contains("\"kind\":\"resume\""));
    gate_in(p)
        .args(["verify", "gate-out/ledger.jsonl"])
        .assert()
        .success()
        .stdout(predicate::str::contains("3 decisions recompute"));
}

#[test]
fn a_suite_task_in_shards_merges_to_the_verdicts_of_one_run() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    scripted(p, "");
    for k in ["1/2", "2/2"] {
        let ledger = format!("shard-{}.jsonl", &k[..1]);
        gate_in(p)
            .args(["run", "--shard", k, "--ledger", &ledger, "--quiet"])
            .assert()
            .code(0);
    }
    gate_in(p)
        .args([
            "report",
            "shard-1.jsonl",
            "shard-2.jsonl",
            "--json",
            "merged.json",
        ])
        .assert()
        .code(1);
    // A shard runs its ordinals to the end (the verdict needs both): nothing is excluded at
    // a decision it could not see, so the counts are those of all 8 runs in ordinal order.
    check_cases(
        &json(&p.join("merged.json")),
        &[
            ("suite/t::steady", "PASS", 7, 7, 0, 1),
            ("suite/t::flaky", "FAIL", 6, 4, 2, 2),
            ("suite/t::broken", "FAIL", 2, 0, 2, 6),
        ],
    );
    for l in ["shard-1.jsonl", "shard-2.jsonl"] {
        gate_in(p).args(["verify", l]).assert().success();
    }
    // The same suite with `--jobs 3`: three suite runs at once, each with its own
    // `GATE_JUNIT` and `GATE_TRIAL`, consumed in ordinal order.
    gate_in(p)
        .args(["run", "--jobs", "3", "--json", "jobs.json", "--quiet"])
        .assert()
        .code(1);
    let jobs = json(&p.join("jobs.json"));
    for (id, verdict, run, passed, failed, _) in SCRIPTED_TRUTH {
        let t = jobs["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == id)
            .unwrap();
        assert_eq!(
            (
                t["verdict"].as_str(),
                t["trials"]["run"].as_u64(),
                t["trials"]["passed"].as_u64(),
                t["trials"]["failed"].as_u64()
            ),
            (Some(verdict), Some(run), Some(passed), Some(failed)),
            "{id}"
        );
    }
    gate_in(p)
        .args(["verify", "gate-out/ledger.jsonl"])
        .assert()
        .success();
}

#[test]
fn a_suite_run_that_times_out_or_changes_its_test_cases_is_a_harness_error() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    // Run 2 drops test `b`: its ordinals would no longer line up with the runs.
    let cmd = r#"if [ "$GATE_TRIAL" = 1 ]; then extra='<testcase classname="t" name="b"/>'; else extra=''; fi
echo "<testsuites><testsuite name=\"s\"><testcase classname=\"t\" name=\"a\"/>$extra</testsuite></testsuites>" > "$GATE_JUNIT""#;
    std::fs::write(
        p.join("gate.yaml"),
        plan(cmd, 5, 1, "      assume_retries_off: true\n"),
    )
    .unwrap();
    gate_in(p)
        .args(["run"])
        .assert()
        .code(4)
        .stdout(predicate::str::contains(
            "suite run #2 could not run the suite: this run recorded other test cases than the runs before it",
        ));
    gate_in(p)
        .args(["verify", "gate-out/ledger.jsonl"])
        .assert()
        .success();
    // No result file, and a timeout: the suite's failures, never a test's.
    std::fs::write(
        p.join("gate.yaml"),
        plan("echo collected 0 items", 5, 1, ""),
    )
    .unwrap();
    gate_in(p)
        .args(["run"])
        .assert()
        .code(4)
        .stdout(predicate::str::contains("wrote no result file at"))
        .stdout(predicate::str::contains("collected 0 items"));
    std::fs::write(
        p.join("gate.yaml"),
        plan("sleep 5", 5, 1, "").replace("timeout: 120s", "timeout: 200ms"),
    )
    .unwrap();
    gate_in(p)
        .args(["run"])
        .assert()
        .code(4)
        .stdout(predicate::str::contains("ran past its timeout"));
}

#[test]
fn a_suite_task_with_run_or_check_beside_it_is_refused_at_its_line() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(
        p.join("gate.yaml"),
        plan("pytest", 5, 1, "    check: 'true'\n"),
    )
    .unwrap();
    gate_in(p)
        .args(["check"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "task `suite`: `check` does not apply to a suite task",
        ));
}

#[test]
fn a_suite_task_with_junit_beside_it_is_refused() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("gate.yaml"),
        "version: 1\nsampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: x\n    junit: '*'\n    suite: {run: 'true'}\n",
    )
    .unwrap();
    gate_in(d.path())
        .args(["check"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("so `suite` does not apply"));
}

#[test]
fn suite_harness_exit_code_error_names_suite_harness_exit_codes_not_policy() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(
        p.join("gate.yaml"),
        plan("exit 5", 5, 1, "      harness_exit_codes: [5]\n"),
    )
    .unwrap();
    gate_in(p)
        .args(["run"])
        .assert()
        .code(4)
        .stdout(predicate::str::contains(
            "the suite exited 5, a declared harness exit code (`suite.harness_exit_codes`)",
        ))
        .stdout(predicate::str::contains("policy.harness_exit_codes").not());
}

#[test]
fn a_suite_run_killed_by_a_signal_is_a_harness_error_even_with_a_result_file() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(
        p.join("k.sh"),
        "echo '<testsuites><testsuite name=\"s\"><testcase classname=\"t\" name=\"a\"/></testsuite></testsuites>' > \"$GATE_JUNIT\"; kill -9 $PPID\n",
    )
    .unwrap();
    std::fs::write(
        p.join("gate.yaml"),
        plan("sh k.sh; true", 3, 1, "      assume_retries_off: true\n"),
    )
    .unwrap();
    gate_in(p)
        .args(["run"])
        .assert()
        .code(4)
        .stdout(predicate::str::contains(
            "the command was killed by signal 9",
        ));
}

#[test]
fn a_suite_whose_shell_reports_a_sigkill_as_exit_137_is_a_harness_error() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    // The runner is killed (an OOM kill) after its result file is written; the plan's shell
    // survives and exits 128 + 9: the run crashed, its file proves nothing.
    std::fs::write(
        p.join("k.sh"),
        "echo '<testsuites><testsuite name=\"s\"><testcase classname=\"t\" name=\"a\"/></testsuite></testsuites>' > \"$GATE_JUNIT\"; kill -9 $$\n",
    )
    .unwrap();
    std::fs::write(
        p.join("gate.yaml"),
        plan("sh k.sh", 3, 1, "      assume_retries_off: true\n"),
    )
    .unwrap();
    gate_in(p)
        .args(["run"])
        .assert()
        .code(4)
        .stdout(predicate::str::contains("exited 137"));
}

#[test]
fn a_suite_with_0_in_harness_exit_codes_is_refused_at_its_line() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("gate.yaml"),
        "version: 1\nsampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: x\n    suite: {run: 'true', harness_exit_codes: [0, 2]}\n",
    )
    .unwrap();
    gate_in(d.path())
        .args(["check"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "gate.yaml:5:12: task `x`: `suite.harness_exit_codes` cannot contain 0",
        ));
}

/// Issue 31: a `suite:` task may take `compare:` (tests/cli/suite_compare.rs); its `base:`
/// is checked as any compare task's, so a base inside head's folder is refused.
#[test]
fn a_suite_task_with_compare_has_its_base_checked_as_a_compare_task() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("base")).unwrap();
    std::fs::write(
        d.path().join("gate.yaml"),
        "version: 1\nbase: {cwd: base}\nsampling: {compare: {odds_ratio: 3}}\ntasks:\n  - id: x\n    suite: {run: 'true'}\n",
    )
    .unwrap();
    gate_in(d.path())
        .args(["check"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("task `x`: `base.cwd` `base`"))
        .stderr(predicate::str::contains("check base out beside head"));
}
