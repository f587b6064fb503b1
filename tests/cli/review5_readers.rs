//! Issue 29, review 5: the readers and the identity of their evidence. Each test is named after the
//! finding it pins (R1, R4, E1, E2, E4, E5c, C1, R3 of /work/scratch/rev5/REPORT.md) and
//! builds the smallest file that showed the break: gate now refuses it (exit 2, naming what it
//! refused) or grades it as the failure it is. Beside each, what must still be read.

use std::path::{Path, PathBuf};

use predicates::prelude::*;

use super::common::gate;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p
}

/// `gate ingest FILES ARGS --ledger DIR/l.jsonl`.
fn ingest(dir: &Path, files: &[&Path], args: &[&str]) -> assert_cmd::assert::Assert {
    gate()
        .arg("ingest")
        .args(files)
        .args(args)
        .arg("--ledger")
        .arg(dir.join("l.jsonl"))
        .assert()
}

#[test]
fn mocha_failure_sharing_a_skipped_tests_full_title_is_refused() {
    // R1: a failing `it("agent refund works")` and `describe("agent") > it.skip("refund
    // works")` share one full title; every record keyed like a pending one was left out
    // before the duplicate-title check, so the failure read as "skipped": PASS.
    let dir = tempfile::tempdir().expect("tempdir");
    let failing = r#"{"title":"agent refund works","fullTitle":"agent refund works","file":"/x/agent.test.js","duration":1,"currentRetry":0,"err":{"message":"wrong answer"}}"#;
    let lookup = r#"{"title":"lookup","fullTitle":"agent lookup","file":"/x/agent.test.js","duration":1,"currentRetry":0,"err":{}}"#;
    let skipped = r#"{"title":"refund works","fullTitle":"agent refund works","file":"/x/agent.test.js","currentRetry":0,"err":{}}"#;
    let report = |tests: &str, pending: &str, failures: &str| {
        format!(
            r#"{{"stats":{{"tests":3}},"tests":[{tests}],"pending":[{pending}],"failures":[{failures}],"passes":[{lookup}]}}"#
        )
    };
    let p = write(
        dir.path(),
        "mocha.json",
        &report(&format!("{failing},{lookup},{skipped}"), skipped, failing),
    );
    ingest(dir.path(), &[&p], &["--single", "1,0"])
        .code(2)
        .stderr(predicate::str::contains(
            "two tests are both `agent.test.js::agent refund works`",
        ));
    // A skipped test with a title of its own is still left out as skipped.
    let other = skipped.replace("agent refund works", "agent refund later");
    let p = write(
        dir.path(),
        "mocha-ok.json",
        &report(&format!("{lookup},{other}"), &other, ""),
    );
    ingest(dir.path(), &[&p], &["--single", "1,0"]).code(0);
}

/// A DeepEval test run of `test_agent.py` with these single-turn and conversational cases.
fn deepeval(cases: &str, conversational: &str, failed: u64) -> String {
    format!(
        r#"{{"testFile":"test_agent.py","testCases":[{cases}],"conversationalTestCases":[{conversational}],"metricsScores":[],"testPassed":1,"testFailed":{failed},"runDuration":0.3}}"#
    )
}

const LOOKUP: &str = r#"{"name":"test_lookup","success":true,"order":0,"runDuration":0.1,"metricsData":[{"name":"Done","threshold":1.0,"success":true,"score":1.0}]}"#;

#[test]
fn deepeval_failing_conversational_case_beside_a_passing_one_is_a_failure() {
    // R4: `conversationalTestCases[]` was never read: a failing multi-turn case beside a
    // passing single-turn one gave PASS, with no note.
    let dir = tempfile::tempdir().expect("tempdir");
    let dialogue = r#"{"name":"test_refund_dialogue","success":false,"order":0,"runDuration":0.2,"metricsData":[{"name":"Conversation Completeness","threshold":0.9,"success":false,"score":0.1,"reason":"never refunded"}]}"#;
    let p = write(dir.path(), "test_run.json", &deepeval(LOOKUP, dialogue, 1));
    ingest(dir.path(), &[&p], &["--single", "1,0"])
        .code(1)
        .stdout(predicate::str::contains("test_agent::test_refund_dialogue"))
        .stdout(predicate::str::contains("FAIL"));
    // Older DeepEval: the failure is on a turn's metric, under a case said to succeed.
    let turns = r#"{"name":"test_refund_dialogue","success":true,"order":0,"metricsData":[],"turns":[{"role":"assistant","content":"no","order":0,"metricsData":[{"name":"Relevancy","success":false,"score":0.2,"threshold":0.5}]}]}"#;
    let p = write(dir.path(), "turns.json", &deepeval(LOOKUP, turns, 0));
    ingest(dir.path(), &[&p], &["--single", "1,0"])
        .code(1)
        .stdout(predicate::str::contains("Relevancy"));
}

#[test]
fn deepeval_case_said_to_succeed_with_a_failed_or_errored_metric_is_a_failure() {
    // R4 (low): `success: true` with failed or errored `metricsData` read as a pass.
    let dir = tempfile::tempdir().expect("tempdir");
    let failed = r#"{"name":"test_refund","success":true,"order":0,"metricsData":[{"name":"Done","threshold":1.0,"success":false,"score":0.0,"reason":"not done"}]}"#;
    let errored = r#"{"name":"test_refund","success":true,"order":0,"metricsData":[{"name":"Safety","success":true,"error":"judge crashed"}]}"#;
    for (name, case, says) in [
        ("failed.json", failed, "Done: score 0 below threshold 1"),
        ("errored.json", errored, "Safety: error: judge crashed"),
    ] {
        let p = write(dir.path(), name, &deepeval(case, "", 0));
        ingest(dir.path(), &[&p], &["--single", "1,0"])
            .code(1)
            .stdout(predicate::str::contains(says));
    }
    // A metric marked `flaky` does not decide a case's success in DeepEval: nor here.
    let flaky = r#"{"name":"test_refund","success":true,"order":0,"metricsData":[{"name":"Tone","flaky":true,"threshold":0.5,"success":false,"score":0.1}]}"#;
    let p = write(dir.path(), "flaky.json", &deepeval(flaky, "", 0));
    ingest(dir.path(), &[&p], &["--single", "1,0"]).code(0);
}

#[test]
fn deepeval_results_in_an_array_the_reader_does_not_read_are_refused() {
    // R4, the class: an array that could hold results and that the reader does not read is
    // refused, not ignored; and fewer failures read than DeepEval's own `testFailed`.
    let dir = tempfile::tempdir().expect("tempdir");
    let unknown = deepeval(LOOKUP, "", 0).replace(
        r#""metricsScores""#,
        r#""agenticTestCases":[{"name":"test_tool_use","success":false}],"metricsScores""#,
    );
    let p = write(dir.path(), "unknown.json", &unknown);
    ingest(dir.path(), &[&p], &["--single", "1,0"])
        .code(2)
        .stderr(predicate::str::contains("`agenticTestCases`"));
    let p = write(dir.path(), "count.json", &deepeval(LOOKUP, "", 1));
    ingest(dir.path(), &[&p], &["--single", "1,0"])
        .code(2)
        .stderr(predicate::str::contains(
            "DeepEval reports 1 failed test case(s) (`testFailed`) but gate reads 0",
        ));
    // Empty or scalar extras hold no result: read as before.
    let extra = deepeval(LOOKUP, "", 0).replace(
        r#""metricsScores""#,
        r#""agenticTestCases":[],"someFlag":true,"metricsScores""#,
    );
    let p = write(dir.path(), "extra.json", &extra);
    ingest(dir.path(), &[&p], &["--single", "1,0"]).code(0);
}

#[test]
fn zero_invocations_is_refused_in_jest_junit_and_jest_json() {
    // C1: `invocations="0"` (jest-junit) and `invocations: 0` (Jest JSON) read as a
    // first-attempt pass: a test that never ran has no result.
    let dir = tempfile::tempdir().expect("tempdir");
    let junit = |n: u32| {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"jest tests\">\n\
             <testsuite name=\"agent\" timestamp=\"2026-11-30T10:57:58\" tests=\"1\">\n\
             <testcase classname=\"agent refund\" name=\"agent refund\" time=\"0\">\n\
             <properties><property name=\"invocations\" value=\"{n}\"/></properties>\n\
             </testcase>\n</testsuite>\n</testsuites>\n"
        )
    };
    let p = write(dir.path(), "zero.xml", &junit(0));
    ingest(dir.path(), &[&p], &["--single", "1,0"])
        .code(2)
        .stderr(predicate::str::contains("zero.xml:4:1"))
        .stderr(predicate::str::contains("its `invocations` property is 0"));
    let p = write(dir.path(), "one.xml", &junit(1));
    ingest(dir.path(), &[&p], &["--single", "1,0"]).code(0);
    let json = |n: u32| {
        format!(
            r#"{{"numFailedTestSuites":0,"numPassedTests":1,"numTotalTests":1,"openHandles":[],"wasInterrupted":false,"success":true,"startTime":1796192970000,"testResults":[{{"name":"/w/agent.test.js","status":"passed","message":"","assertionResults":[{{"ancestorTitles":["agent"],"title":"refund","duration":8,"failureMessages":[],"status":"passed","invocations":{n}}}]}}]}}"#
        )
    };
    let p = write(dir.path(), "zero.json", &json(0));
    ingest(
        dir.path(),
        &[&p],
        &["--format", "jest-json", "--single", "1,0"],
    )
    .code(2)
    .stderr(predicate::str::contains("`invocations: 0`"));
    let p = write(dir.path(), "one.json", &json(1));
    ingest(
        dir.path(),
        &[&p],
        &["--format", "jest-json", "--single", "1,0"],
    )
    .code(0);
}

#[test]
fn junit_unknown_failure_like_element_in_a_testcase_is_refused() {
    // R3 side note: an unknown element in a `<testcase>` was ignored, so `<Failure>` (wrong
    // case), `<failed>` or `<errors>` read as a pass.
    let dir = tempfile::tempdir().expect("tempdir");
    for el in ["Failure", "failed", "errors", "ERROR"] {
        let p = write(
            dir.path(),
            &format!("{el}.xml"),
            &format!(
                "<?xml version=\"1.0\"?>\n<testsuites><testsuite name=\"s\">\n\
                 <testcase classname=\"c\" name=\"t\" time=\"0.1\"><{el} message=\"agent failed\"/></testcase>\n\
                 </testsuite></testsuites>\n"
            ),
        );
        ingest(
            dir.path(),
            &[&p],
            &["--single", "1,0", "--assume-retries-off"],
        )
        .code(2)
        .stderr(predicate::str::contains(format!("{el}.xml:3:")))
        .stderr(predicate::str::contains(format!(
            "unknown element `<{el}>` inside a `<testcase>`"
        )));
    }
    // Other unknown children (a writer's own) are still ignored.
    let p = write(
        dir.path(),
        "own.xml",
        "<?xml version=\"1.0\"?>\n<testsuites><testsuite name=\"s\">\n\
         <testcase classname=\"c\" name=\"t\" time=\"0.1\"><attachments/><system-err>x</system-err></testcase>\n\
         </testsuite></testsuites>\n",
    );
    ingest(
        dir.path(),
        &[&p],
        &["--single", "1,0", "--assume-retries-off"],
    )
    .code(0);
}
