//! Issue 29, the second review of `gate ingest`'s readers: each open finding (B3–B12 and
//! the run identity of the JS JSON reports) pinned by a test named after the bug, which
//! fails on the code before its fix.

use std::path::{Path, PathBuf};

use predicates::prelude::*;

use super::common::gate;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p
}

/// A pytest JUnit run, stamped `stamp` (distinct per run), of the given test cases: each is
/// (name, body inside `<testcase>`).
fn pytest_run(stamp: &str, cases: &[(&str, &str)]) -> String {
    let cases: String = cases
        .iter()
        .map(|(name, body)| {
            format!("<testcase classname=\"t\" name=\"{name}\" time=\"0.1\">{body}</testcase>")
        })
        .collect();
    format!(
        "<?xml version=\"1.0\"?><testsuites name=\"pytest tests\"><testsuite name=\"pytest\" \
         timestamp=\"{stamp}\">{cases}</testsuite></testsuites>"
    )
}

/// The attempt rows of `task` in a ledger, as JSON.
fn attempt_rows(ledger: &Path, task: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(ledger)
        .expect("ledger")
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("row"))
        .filter(|r| r["kind"] == "attempt" && r["task"] == task)
        .collect()
}

/// Four runs: `agent` passes in runs 1, 3 and 4 and has no record at all in run 2 (it
/// crashed the runner); `other` is in every run.
fn runs_with_agent_missing_from_run_2(dir: &Path) -> Vec<PathBuf> {
    (1..=4)
        .map(|i| {
            let cases: &[(&str, &str)] = if i == 2 {
                &[("other", "")]
            } else {
                &[("agent", ""), ("other", "")]
            };
            write(
                dir,
                &format!("run-0{i}.xml"),
                &pytest_run(&format!("2026-01-0{i}T00:00:00"), cases),
            )
        })
        .collect()
}

#[test]
fn test_missing_from_a_run_is_a_failed_trial_of_that_run_not_dropped() {
    // B5: the runs without `agent` were dropped, so 3 passes of 4 runs read PASS 3/3.
    let dir = tempfile::tempdir().expect("tempdir");
    let files = runs_with_agent_missing_from_run_2(dir.path());
    gate()
        .arg("ingest")
        .args(&files)
        .args(["--single", "3,0", "--ledger"])
        .arg(dir.path().join("l.jsonl"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("t::agent  FAIL"))
        .stdout(predicate::str::contains("no record of this test in"))
        .stdout(predicate::str::contains("t::other  PASS"));
}

#[test]
fn sequential_rule_sees_a_missing_test_in_its_own_run_not_a_shifted_ordinal() {
    // B5: run 3's pass became ordinal 2, so a sequential rule decided on a sequence the
    // runs never had.
    let dir = tempfile::tempdir().expect("tempdir");
    let files = runs_with_agent_missing_from_run_2(dir.path());
    let ledger = dir.path().join("l.jsonl");
    gate()
        .arg("ingest")
        .args(&files)
        .args([
            "--healthy",
            "0.95",
            "--regressed",
            "0.5",
            "--sampling",
            "sequential",
            "--ledger",
        ])
        .arg(&ledger)
        .assert()
        .stdout(predicate::str::contains("t::agent"));
    let rows = attempt_rows(&ledger, "t::agent");
    let second = rows
        .iter()
        .find(|r| r["trial"] == 2)
        .expect("a trial 2 of t::agent");
    assert_eq!(second["outcome"], "fail", "{second}");
    assert!(
        second["reason"]
            .as_str()
            .is_some_and(|r| r.contains("run-02.xml")),
        "{second}"
    );
    assert_eq!(rows.iter().filter(|r| r["trial"] == 4).count(), 1);
}

#[test]
fn base_pairs_trials_by_run_not_by_ordinal_when_a_run_lacks_the_test() {
    // B5 with `--base`: head's run 3 slid onto base's run 2 when head's run 2 lacked the test.
    let dir = tempfile::tempdir().expect("tempdir");
    let base: Vec<PathBuf> = (1..=3)
        .map(|i| {
            let agent = if i == 3 {
                "<failure message=\"wrong\"/>"
            } else {
                ""
            };
            write(
                dir.path(),
                &format!("base-0{i}.xml"),
                &pytest_run(
                    &format!("2026-02-0{i}T00:00:00"),
                    &[("agent", agent), ("other", "")],
                ),
            )
        })
        .collect();
    let head = |second: &[(&str, &str)]| -> Vec<PathBuf> {
        (1..=3)
            .map(|i| {
                let cases: &[(&str, &str)] = if i == 2 {
                    second
                } else {
                    &[("agent", ""), ("other", "")]
                };
                write(
                    dir.path(),
                    &format!("head-0{i}.xml"),
                    &pytest_run(&format!("2026-03-0{i}T00:00:00"), cases),
                )
            })
            .collect()
    };
    let run = |head: &[PathBuf], ledger: &str| {
        gate()
            .args(["ingest", "--odds-ratio", "3", "--ledger"])
            .arg(dir.path().join(ledger))
            .arg("--base")
            .args(&base)
            .arg("--")
            .args(head)
            .assert()
    };
    // Missing from head's run 2: a head failure paired with base's run 2.
    let missing = head(&[("other", "")]);
    run(&missing, "missing.jsonl").stdout(predicate::str::contains(
        "pairs 3 · both pass 1 · both fail 0 · head only fail 1 · base only fail 1",
    ));
    // Skipped in head's run 2: base's run 2 has no partner; head's run 3 meets base's run 3.
    let skipped = head(&[("agent", "<skipped/>"), ("other", "")]);
    run(&skipped, "skipped.jsonl").stdout(predicate::str::contains(
        "pairs 2 · both pass 1 · both fail 0 · head only fail 0 · base only fail 1",
    ));
}
