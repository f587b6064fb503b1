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
    // Skipped in head's run 2 while head's other runs ran it: a failed trial in run 2's place
    // (review 7, c35: a skip only in some runs is missing evidence), paired with base's run 2;
    // head's run 3 still meets base's run 3.
    let skipped = head(&[("agent", "<skipped/>"), ("other", "")]);
    run(&skipped, "skipped.jsonl").stdout(predicate::str::contains(
        "pairs 3 · both pass 1 · both fail 0 · head only fail 1 · base only fail 1",
    ));
}

/// `sh -c 'ulimit -v KIB; exec gate ingest FILE --single 1,0 --ledger DIR/l.jsonl'`: gate
/// with its address space bounded, so a reader that allocates per element of a huge list
/// fails (an allocation failure aborts) instead of refusing.
fn ingest_within(dir: &Path, file: &Path, kib: u64) -> assert_cmd::assert::Assert {
    let gate = assert_cmd::cargo::cargo_bin("gate");
    assert_cmd::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {kib} && exec \"$0\" ingest \"$1\" --single 1,0 --assume-retries-off --ledger \"$2\""
        ))
        .arg(gate)
        .arg(file)
        .arg(dir.join("l.jsonl"))
        .assert()
}

/// 512 MiB of address space.
const BOUND_KIB: u64 = 512 * 1024;

#[test]
fn junit_with_millions_of_tiny_test_cases_is_refused_while_streaming_within_512_mib() {
    // B4: a 63 MiB JUnit of 2.7 million tiny test cases reached 5 GB before any refusal.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut xml = String::from("<testsuites name=\"pytest tests\"><testsuite name=\"s\">");
    for i in 0..1_500_000u32 {
        xml.push_str(&format!("<testcase name=\"t{i}\"/>"));
    }
    xml.push_str("</testsuite></testsuites>");
    let p = write(dir.path(), "huge.xml", &xml);
    ingest_within(dir.path(), &p, BOUND_KIB)
        .code(2)
        .stderr(predicate::str::contains(
            "more than 200000 `<testcase>` records in one file",
        ))
        .stderr(predicate::str::contains("huge.xml:1:"));
    // A suite within the cap is read under the same bound.
    let mut small = String::from("<testsuites name=\"pytest tests\"><testsuite name=\"s\">");
    for i in 0..2_000u32 {
        small.push_str(&format!("<testcase name=\"t{i}\"/>"));
    }
    small.push_str("</testsuite></testsuites>");
    let p = write(dir.path(), "small.xml", &small);
    ingest_within(dir.path(), &p, BOUND_KIB).code(0);
}

#[test]
fn many_flaky_failures_each_within_the_per_test_cap_are_refused_per_file() {
    // B4: `<flakyFailure/>`s just within the per-test cap of 10,000, over many tests, wrote a
    // ledger of hundreds of MB.
    let dir = tempfile::tempdir().expect("tempdir");
    let flaky = "<flakyFailure message=\"x\"/>".repeat(9_000);
    let mut xml = String::from("<testsuites name=\"nextest-run\"><testsuite name=\"s\">");
    for i in 0..12 {
        xml.push_str(&format!(
            "<testcase classname=\"a\" name=\"t{i}\">{flaky}</testcase>"
        ));
    }
    xml.push_str("</testsuite></testsuites>");
    let p = write(dir.path(), "flaky.xml", &xml);
    gate()
        .arg("ingest")
        .arg(&p)
        .args(["--single", "1,0", "--ledger"])
        .arg(dir.path().join("l.jsonl"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "more than 100000 attempts after the first",
        ));
    assert!(!dir.path().join("l.jsonl").exists(), "no ledger written");
}

#[test]
fn inspect_error_retries_of_millions_are_refused_while_parsing_within_512_mib() {
    // B4: a 28 KB zstd `.eval` whose sample holds a 21-million-entry `error_retries` reached
    // 2.7 GB before its count was refused. The same list in a `.json` log.
    let dir = tempfile::tempdir().expect("tempdir");
    let entries = "0,".repeat(25_000_000);
    let log = format!(
        r#"{{"version":2,"status":"success","eval":{{"task":"agent_eval","scorers":[{{"name":"done"}}]}},"samples":[{{"id":"refund","epoch":1,"scores":{{"done":{{"value":"C"}}}},"error_retries":[{entries}0]}}]}}"#
    );
    let p = write(dir.path(), "log.json", &log);
    drop(log);
    ingest_within(dir.path(), &p, BOUND_KIB)
        .code(2)
        .stderr(predicate::str::contains(
            "`error_retries` holds more than 10000 entries",
        ));
}

#[test]
fn mocha_test_in_both_failures_and_pending_is_a_failure_not_skipped() {
    // B9: a test listed in `failures[]` and in `pending[]` was read as skipped.
    let dir = tempfile::tempdir().expect("tempdir");
    let test = r#"{"title":"refund","fullTitle":"agent refund","file":"/x/agent.test.js","duration":1,"currentRetry":0,"err":{"message":"wrong answer"}}"#;
    let report = format!(
        r#"{{"stats":{{"tests":1,"passes":0,"failures":1}},"tests":[{test}],"pending":[{test}],"failures":[{test}],"passes":[]}}"#
    );
    let p = write(dir.path(), "mocha.json", &report);
    gate()
        .arg("ingest")
        .arg(&p)
        .args(["--single", "1,0", "--ledger"])
        .arg(dir.path().join("l.jsonl"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("FAIL"));
}

#[test]
fn jest_junit_with_the_invocations_property_twice_is_refused() {
    // B10: the last of two `invocations` properties won (`3` then `1`: a retried test read
    // as a first-attempt pass).
    let dir = tempfile::tempdir().expect("tempdir");
    let xml = r#"<testsuites name="jest tests"><testsuite name="a" tests="1"><testcase classname="agent refund" name="agent refund" time="0.1"><properties><property name="invocations" value="3"/><property name="invocations" value="1"/></properties></testcase></testsuite></testsuites>"#;
    let p = write(dir.path(), "jj.xml", xml);
    gate()
        .arg("ingest")
        .arg(&p)
        .args(["--single", "1,0", "--ledger"])
        .arg(dir.path().join("l.jsonl"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "has the property `invocations` twice",
        ))
        .stderr(predicate::str::contains("jj.xml:1:"));
}

#[test]
fn count_refusal_shows_the_number_as_written_not_saturated() {
    // B12: `invocations="18446744073709551616"` was refused as 18446744073709551615, and
    // every count or cap refusal of a JUnit file said "not JUnit XML".
    let dir = tempfile::tempdir().expect("tempdir");
    let xml = r#"<testsuites name="jest tests"><testsuite name="a" tests="1"><testcase classname="agent refund" name="agent refund" time="0.1"><properties><property name="invocations" value="18446744073709551616"/></properties></testcase></testsuite></testsuites>"#;
    let p = write(dir.path(), "c11.xml", xml);
    gate()
        .arg("ingest")
        .arg(&p)
        .args(["--single", "1,0", "--ledger"])
        .arg(dir.path().join("l.jsonl"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "is 18446744073709551616, more than",
        ))
        .stderr(predicate::str::contains("18446744073709551615").not())
        // Well-formed JUnit, refused for its count: not called "not JUnit XML".
        .stderr(predicate::str::contains("c11.xml:1:"))
        .stderr(predicate::str::contains("not JUnit XML").not());
}

#[test]
fn same_test_id_from_files_of_different_formats_is_refused() {
    // B8: a JUnit file and a mocha JSON report both naming `agent refund` were merged into
    // one test, though only JUnit records what its ids are made of.
    let dir = tempfile::tempdir().expect("tempdir");
    let junit = write(
        dir.path(),
        "run-1.xml",
        &pytest_run("2026-01-01T00:00:00", &[("agent refund", "")]).replace("classname=\"t\" ", ""),
    );
    let t = r#"{"title":"refund","fullTitle":"agent refund","duration":1,"currentRetry":0,"err":{"message":"wrong"}}"#;
    let mocha = write(
        dir.path(),
        "run-2.json",
        &format!(
            r#"{{"stats":{{"tests":1,"start":"2026-01-02T00:00:00.000Z"}},"tests":[{t}],"pending":[],"failures":[{t}],"passes":[]}}"#
        ),
    );
    gate()
        .arg("ingest")
        .args([&junit, &mocha])
        .args(["--single", "2,1", "--ledger"])
        .arg(dir.path().join("l.jsonl"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "the test `agent refund` is named both here",
        ))
        .stderr(predicate::str::contains("run-1.xml"))
        .stderr(predicate::str::contains("run-2.json"));
}

#[test]
fn ids_made_only_of_format_controls_or_private_use_are_refused() {
    // B11: ids of only Egyptian hieroglyph format controls (U+13430…), interlinear
    // annotation marks (U+FFF9…) or private-use code points (U+E000…) were accepted.
    let dir = tempfile::tempdir().expect("tempdir");
    for c in [
        '\u{13430}',
        '\u{1343f}',
        '\u{fff9}',
        '\u{fffb}',
        '\u{e000}',
        '\u{f8ff}',
        '\u{f0000}',
        '\u{0600}',
    ] {
        let xml = format!(
            "<testsuites name=\"nextest-run\"><testsuite name=\"s\" tests=\"1\"><testcase classname=\"{c}\" name=\"{c}{c}\" time=\"0.1\"/></testsuite></testsuites>"
        );
        let p = write(dir.path(), "blank.xml", &xml);
        gate()
            .arg("ingest")
            .arg(&p)
            .args(["--single", "1,0", "--ledger"])
            .arg(dir.path().join("l.jsonl"))
            .assert()
            .code(2)
            .stderr(predicate::str::contains("has no visible name"));
    }
}

#[test]
fn js_json_report_saved_again_with_sorted_keys_is_refused_as_the_same_run() {
    // Item 5: a mocha, Jest, Vitest or Playwright JSON report re-saved with other bytes (keys
    // sorted) counted as a second run: their start times were not part of the run's identity.
    let dir = tempfile::tempdir().expect("tempdir");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/js-json");
    for (rel, format) in [
        ("mocha-runs/run-1.json", "mocha-json"),
        ("jest-runs/run-1.json", "jest-json"),
        ("vitest-runs/run-1.json", "jest-json"),
        ("playwright-retries.json", "playwright-json"),
    ] {
        let text = std::fs::read_to_string(fixtures.join(rel)).expect("fixture");
        let original = write(dir.path(), "original.json", &text);
        // Parsed and written again: keys sorted (serde_json orders a map by key), indented.
        let sorted: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let copy = write(
            dir.path(),
            "sorted.json",
            &serde_json::to_string_pretty(&sorted).expect("serialises"),
        );
        gate()
            .args(["ingest", "--format", format, "--assume-retries-off"])
            .args([&original, &copy])
            .args(["--single", "2,1", "--ledger"])
            .arg(dir.path().join("l.jsonl"))
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "the same run of the suite given twice",
            ));
    }
    // Two real runs of one suite are still two runs.
    let one = fixtures.join("jest-runs/run-1.json");
    let two = fixtures.join("jest-runs/run-2.json");
    gate()
        .args(["ingest", "--format", "jest-json"])
        .args([&one, &two])
        .args(["--single", "2,1", "--ledger"])
        .arg(dir.path().join("l2.jsonl"))
        .assert()
        .stderr(predicate::str::contains("the same run").not());
}
