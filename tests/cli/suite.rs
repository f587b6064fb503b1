//! `gate suite`: a real pytest suite run as each trial, every test case judged from its JUnit
//! file. The flaky tests fail by an invocation counter kept in a file, so every verdict and
//! count below is known in advance. Needs `python3 -m pytest` (scripts/test.sh installs it).

use predicates::prelude::*;

use crate::common::gate;

const SUITE: &str = r#"import os, pathlib

def bump(name):
    p = pathlib.Path(os.environ["COUNTER_DIR"]) / name
    k = int(p.read_text()) + 1 if p.exists() else 1
    p.write_text(str(k))
    return k

def test_lookup():
    assert True

def test_refund():
    # Fails invocations 4, 8, 12, ...: 75% per run.
    k = bump("refund")
    assert k % 4 != 0, f"refund invocation {k}"

def test_broken():
    # Fails invocations 1, 3, 5, ...: 50% per run.
    k = bump("broken")
    assert k % 2 == 0, f"broken invocation {k}"
"#;

pub(crate) const PYTEST: &str = "python3 -m pytest -q -p no:cacheprovider -p no:randomly -p no:rerunfailures --junitxml=\"$GATE_JUNIT\"";

pub(crate) fn project() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("test_agent.py"), SUITE).unwrap();
    std::fs::create_dir(d.path().join("counters")).unwrap();
    d
}

fn suite(d: &std::path::Path, args: &[&str]) -> assert_cmd::Command {
    let mut cmd = gate();
    cmd.current_dir(d)
        .env("COUNTER_DIR", d.join("counters"))
        .env_remove("GITHUB_STEP_SUMMARY")
        .args(["suite", "--no-step-summary"])
        .args(args);
    cmd
}

#[test]
fn suite_judges_every_pytest_test_case_against_its_invocation_counter() {
    assert!(
        std::process::Command::new("python3")
            .args(["-c", "import pytest"])
            .status()
            .is_ok_and(|s| s.success()),
        "this test needs pytest: `python3 -m pip install pytest` (scripts/test.sh does)"
    );
    let d = project();
    // Single plan (8, 1): PASS at 7 passes, FAIL at the 2nd failure.
    let out = suite(
        d.path(),
        &[
            "--single",
            "8,1",
            "--harness-exit-codes",
            "2,3,4,5",
            "--json",
            "report.json",
            PYTEST,
        ],
    )
    .output()
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    // broken fails runs 1 and 3: decided after 3; lookup passes 7 straight; refund fails runs
    // 4 and 8: the suite runs until run 8, when the last test case decides.
    assert!(stderr.contains("suite #008: ran in"), "{stderr}");
    assert!(!stderr.contains("suite #009"), "{stderr}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.path().join("report.json")).unwrap()).unwrap();
    let task = |id: &str| {
        json["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == id)
            .unwrap_or_else(|| panic!("{id} in the report"))
            .clone()
    };
    let expect = [
        // id, verdict, run, passed, failed, excluded
        ("suite/test_agent::test_lookup", "PASS", 7, 7, 0, 1),
        ("suite/test_agent::test_refund", "FAIL", 8, 6, 2, 0),
        ("suite/test_agent::test_broken", "FAIL", 3, 1, 2, 5),
    ];
    for (id, verdict, run, passed, failed, excluded) in expect {
        let t = task(id);
        assert_eq!(t["verdict"], verdict, "{id}");
        let c = &t["trials"];
        assert_eq!(
            (
                c["run"].as_u64(),
                c["passed"].as_u64(),
                c["failed"].as_u64(),
                c["excluded"].as_u64()
            ),
            (Some(run), Some(passed), Some(failed), Some(excluded)),
            "{id}"
        );
    }
    // The counters say each test ran exactly 8 times: one per suite run, no retry.
    for name in ["refund", "broken"] {
        let k = std::fs::read_to_string(d.path().join("counters").join(name)).unwrap();
        assert_eq!(k, "8", "{name}");
    }
    // The ledger verifies and recomputes to the same verdicts.
    gate()
        .current_dir(d.path())
        .args(["verify", "gate-out/ledger.jsonl"])
        .assert()
        .success()
        .stdout(predicate::str::contains("3 decisions recompute"));
    gate()
        .current_dir(d.path())
        .args(["report", "gate-out/ledger.jsonl", "--quiet", "--no-step-summary"])
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "suite/test_agent::test_broken  FAIL: 2 failures exceed the acceptance number 1 (after 3 of 8 trials)",
        ));

    // A collection error is the suite's failure, not a test's: a harness error, no verdict.
    std::fs::write(d.path().join("test_syntax.py"), "def test_x(:\n").unwrap();
    suite(
        d.path(),
        &["--single", "8,1", "--harness-exit-codes", "2,3,4,5", PYTEST],
    )
    .assert()
    .code(4)
    .stderr(predicate::str::contains(
        "suite run #1 could not run the suite: the suite exited 2, a declared harness exit code",
    ));
}

#[test]
fn a_suite_run_that_writes_no_junit_or_no_test_case_is_a_harness_error() {
    let d = project();
    suite(
        d.path(),
        &["--single", "5,1", "echo 'collected 0 items'; exit 0"],
    )
    .assert()
    .code(4)
    .stderr(predicate::str::contains("wrote no result file at"))
    .stderr(predicate::str::contains("it printed: collected 0 items"));
    suite(
        d.path(),
        &["--single", "5,1", "--assume-retries-off", r#"echo '<testsuites><testsuite name="s" tests="0"></testsuite></testsuites>' > "$GATE_JUNIT""#],
    )
    .assert()
    .code(4)
    .stderr(predicate::str::contains("records no test case that ran"));
}

#[test]
fn a_suite_whose_test_cases_change_between_runs_is_a_harness_error() {
    let d = project();
    // Run 2 drops test `b`: its ordinals would no longer line up with the runs.
    let cmd = r#"if [ "$GATE_TRIAL" = 1 ]; then extra='<testcase classname="t" name="b"/>'; else extra=''; fi
echo "<testsuites><testsuite name=\"s\"><testcase classname=\"t\" name=\"a\"/>$extra</testsuite></testsuites>" > "$GATE_JUNIT""#;
    suite(d.path(), &["--single", "5,1", "--assume-retries-off", cmd])
        .assert()
        .code(4)
        .stdout(predicate::str::contains(
            "suite run #2 could not run the suite: this run recorded other test cases than the runs before it",
        ));
}

#[test]
fn the_suite_command_gate_init_offers_for_pytest_runs_and_passes_a_green_suite() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("test_ok.py"),
        "def test_ok():\n    assert True\n",
    )
    .unwrap();
    let out = gate().current_dir(d.path()).arg("init").output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let at = stdout
        .find("  gate suite ")
        .unwrap_or_else(|| panic!("init offers `gate suite`: {stdout}"));
    let offered = &stdout[at..];
    assert!(
        offered.contains("-p no:rerunfailures"),
        "retries off: {offered}"
    );
    // Run the offered line as a user would paste it, with this build's gate first on PATH.
    let bin = assert_cmd::cargo::cargo_bin("gate");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(offered)
        .current_dir(d.path())
        .env("PATH", path)
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert_eq!(
        status.code(),
        Some(0),
        "a suite whose one test always passes gates green"
    );
    gate()
        .current_dir(d.path())
        .args(["verify", "gate-out/ledger.jsonl"])
        .assert()
        .success()
        .stdout(predicate::str::contains("1 decision recomputes"));
}

/// A crate whose `refund` test fails on every 4th invocation (a counter file in the crate).
pub(crate) const CRATE_LIB: &str = r#"#[cfg(test)]
mod tests {
    fn bump(name: &str) -> u64 {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("counters").join(name);
        let k = std::fs::read_to_string(&p).map(|s| s.trim().parse().unwrap()).unwrap_or(0) + 1;
        std::fs::write(&p, k.to_string()).unwrap();
        k
    }
    #[test]
    fn lookup() {}
    #[test]
    fn refund() {
        let k = bump("refund");
        assert!(k % 4 != 0, "refund invocation {k}");
    }
}
"#;

/// The nextest command of docs/runners.md: its JUnit file copied to `$GATE_JUNIT` (removed
/// first, so a failed build cannot leave the previous run's file in its place).
pub(crate) const NEXTEST: &str = r#"rm -f "$CARGO_TARGET_DIR/nextest/ci/junit.xml"; cargo nextest run --profile ci --retries 0 --no-fail-fast; s=$?; cp "$CARGO_TARGET_DIR/nextest/ci/junit.xml" "$GATE_JUNIT" 2>/dev/null; exit $s"#;

#[test]
fn suite_judges_every_nextest_test_case_against_its_invocation_counter() {
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
    // `target/` and the lock file exist first, as in a built project: the box lets the
    // suite create nothing in a folder that holds gate's ledger folder.
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
    assert!(
        std::process::Command::new("cargo")
            .args(["generate-lockfile", "--offline"])
            .current_dir(p)
            .status()
            .unwrap()
            .success()
    );
    let run = |args: &[&str]| {
        let mut cmd = gate();
        cmd.current_dir(p)
            .env("CARGO_TARGET_DIR", p.join("target"))
            .env_remove("GITHUB_STEP_SUMMARY")
            .args(["suite", "--no-step-summary", "--single", "8,1"])
            // nextest: 4 no test ran, 96 setup error, 101 build failed.
            .args(["--harness-exit-codes", "4,96,101"])
            .args(args)
            .arg(NEXTEST);
        cmd
    };
    let out = run(&["--json", "report.json"]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(p.join("report.json")).unwrap()).unwrap();
    let tasks = json["tasks"].as_array().unwrap();
    let task = |id: &str| tasks.iter().find(|t| t["id"] == id).unwrap().clone();
    // refund fails runs 4 and 8 (FAIL at the 2nd failure, after 8); lookup passes 7 straight.
    let refund = task("suite/agentsuite::tests::refund");
    assert_eq!(refund["verdict"], "FAIL");
    assert_eq!(refund["trials"]["failed"], 2);
    assert_eq!(refund["trials"]["run"], 8);
    let lookup = task("suite/agentsuite::tests::lookup");
    assert_eq!(lookup["verdict"], "PASS");
    assert_eq!(lookup["trials"]["passed"], 7);
    assert_eq!(lookup["trials"]["excluded"], 1);
    assert_eq!(
        std::fs::read_to_string(p.join("counters/refund")).unwrap(),
        "8"
    );
    gate()
        .current_dir(p)
        .args(["verify", "gate-out/ledger.jsonl"])
        .assert()
        .success();

    // A build failure is the suite's, not a test's.
    std::fs::write(
        p.join("src/lib.rs"),
        format!("{CRATE_LIB}\nfn broken( {{\n"),
    )
    .unwrap();
    run(&[]).assert().code(4).stderr(predicate::str::contains(
        "the suite exited 101, a declared harness exit code",
    ));
}

#[test]
fn sequential_rules_stop_per_test_case_and_the_suite_stops_when_the_last_decides() {
    let d = tempfile::tempdir().unwrap();
    // `steady` always passes, `down` always fails; the calibrated 90%-vs-70% rule PASSes
    // after 9 straight successes and (at the family's share) FAILs after 4 straight failures.
    let cmd = r#"printf '<testsuites><testsuite name="s" timestamp="%s"><testcase classname="t" name="steady"/><testcase classname="t" name="down"><failure message="no"/></testcase></testsuite></testsuites>' "$GATE_TRIAL" > "$GATE_JUNIT""#;
    let out = gate()
        .current_dir(d.path())
        .env_remove("GITHUB_STEP_SUMMARY")
        .args(["suite", "--no-step-summary", "--assume-retries-off"])
        .args([
            "--healthy",
            "90%",
            "--regressed",
            "70%",
            "--sampling",
            "sequential",
        ])
        .args(["--json", "report.json", cmd])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("suite #003: ran in"), "{stderr}");
    assert!(stderr.contains("2 test cases ran, 1 failed"), "{stderr}");
    assert!(stderr.contains("suite #009: ran"), "{stderr}");
    assert!(!stderr.contains("suite #010"), "{stderr}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.path().join("report.json")).unwrap()).unwrap();
    let tasks = json["tasks"].as_array().unwrap();
    let task = |id: &str| tasks.iter().find(|t| t["id"] == id).unwrap().clone();
    let down = task("suite/t::down");
    assert_eq!(down["verdict"], "FAIL");
    // The two cases are one family, each at alpha 1 − 0.95^(1/2) = 0.0253: `down` FAILs
    // after 4 straight failures (3 at alpha 0.05). The command ignores `GATE_SUITE_CASES`, so
    // the 5 later runs' outcomes are recorded as excluded, not counted.
    assert_eq!(
        (
            down["trials"]["failed"].as_u64(),
            down["trials"]["excluded"].as_u64()
        ),
        (Some(4), Some(5))
    );
    let steady = task("suite/t::steady");
    assert_eq!(steady["verdict"], "PASS");
    assert_eq!(steady["trials"]["passed"], 9);
}

/// `gate init` in a Rust project offers the nextest suite command of docs/runners.md (the one
/// `suite_judges_every_nextest_test_case_against_its_invocation_counter` runs with its own
/// target folder), retries off, with the profile it needs.
#[test]
fn gate_init_offers_the_nextest_suite_command_for_a_cargo_project() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("Cargo.toml"),
        "[package]\nname = \"x\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    let out = gate().current_dir(d.path()).arg("init").output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("  gate suite "), "{stdout}");
    assert!(
        stdout.contains("cargo nextest run --profile ci --retries 0 --no-fail-fast"),
        "{stdout}"
    );
    assert!(stdout.contains("[profile.ci.junit]"), "{stdout}");
    let runners = crate::common::read(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/runners.md"),
    );
    assert!(runners.contains("cargo nextest run --profile ci --retries 0 --no-fail-fast"));
}
