//! Issue 29, review 5: the readers and the evidence identity. Each test is named after the
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

/// A pytest JUnit run of `test_agent::test_lookup` with these suite attributes.
fn pytest(attrs: &str, extra_suite: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<testsuites name=\"pytest tests\">\
         <testsuite name=\"pytest\" errors=\"0\" failures=\"0\" skipped=\"0\" tests=\"1\" time=\"0.088\" {attrs}>\
         <testcase classname=\"test_agent\" name=\"test_lookup\" time=\"0.001\" /></testsuite>{extra_suite}</testsuites>\n"
    )
}

const STAMPED: &str = "timestamp=\"2026-11-30T10:57:15.090192+00:00\" hostname=\"vm\"";
const PAD: &str = "<testsuite name=\"pad\" tests=\"1\" timestamp=\"2026-11-30T10:57:16+00:00\" hostname=\"vm\">\
                   <testcase classname=\"pad\" name=\"test_pad\" time=\"0.001\" /></testsuite>";

#[test]
fn junit_run_padded_with_an_extra_testsuite_is_refused_as_the_same_run() {
    // E1: one pytest run given twice, the copy with one extra `<testsuite>`: its bytes and
    // its whole-file records digest differ, so every real test counted twice.
    let dir = tempfile::tempdir().expect("tempdir");
    let a = write(dir.path(), "run-01.xml", &pytest(STAMPED, ""));
    let b = write(dir.path(), "run-02.xml", &pytest(STAMPED, PAD));
    ingest(dir.path(), &[&a, &b], &["--single", "2,0"])
        .code(2)
        .stderr(predicate::str::contains("run-01.xml and "))
        .stderr(predicate::str::contains(
            "run-02.xml: the same run of the suite given twice",
        ))
        .stderr(predicate::str::contains(
            "the `<testsuite>` at line 2 of the first is the `<testsuite>` at line 2 of the second",
        ));
    // A file split in two with one part given again: the part is the same suite.
    let c = write(
        dir.path(),
        "part.xml",
        &format!("<?xml version=\"1.0\"?>\n<testsuites name=\"pytest tests\">{PAD}</testsuites>\n"),
    );
    ingest(
        dir.path(),
        &[&b, &c],
        &["--single", "2,0", "--assume-retries-off"],
    )
    .code(2)
    .stderr(predicate::str::contains(
        "the same run of the suite given twice",
    ));
    // Another run of the same suite (its own timestamp) beside the padded file is read.
    let other = write(
        dir.path(),
        "run-03.xml",
        &pytest(
            "timestamp=\"2026-11-30T11:02:00.000001+00:00\" hostname=\"vm\"",
            "",
        ),
    );
    ingest(dir.path(), &[&a, &other], &["--single", "2,0"]).code(0);
}

#[test]
fn junit_copy_resaved_without_its_timestamp_is_refused_as_the_same_run() {
    // E2: the copy re-serialised without its `timestamp` (a JUnit merger) was compared by
    // bytes only: one pass counted as two.
    let dir = tempfile::tempdir().expect("tempdir");
    let a = write(dir.path(), "run-01.xml", &pytest(STAMPED, ""));
    let b = write(dir.path(), "run-02.xml", &pytest("hostname=\"vm\"", ""));
    ingest(dir.path(), &[&a, &b], &["--single", "2,0"])
        .code(2)
        .stderr(predicate::str::contains(
            "once with timestamps and once without them",
        ));
    // Two runs that record no timestamp and give equal records are two runs (a deterministic
    // suite; nothing tells them apart: docs/ingest.md says so).
    let c = write(
        dir.path(),
        "run-03.xml",
        &pytest("hostname=\"vm\" time-taken=\"x\"", ""),
    );
    ingest(dir.path(), &[&b, &c], &["--single", "2,0"]).code(0);
}

#[test]
fn base_run_padded_as_a_head_run_is_refused_as_the_same_run() {
    // E5c: `gate ingest --base`, base's run given again as head's with one extra suite:
    // accepted, so every pair was a run paired with itself.
    let dir = tempfile::tempdir().expect("tempdir");
    let base = write(dir.path(), "base.xml", &pytest(STAMPED, ""));
    let head = write(dir.path(), "head.xml", &pytest(STAMPED, PAD));
    ingest(
        dir.path(),
        &[&head],
        &["--base", base.to_str().unwrap(), "--odds-ratio", "3"],
    )
    .code(2)
    .stderr(predicate::str::contains("base.xml and "))
    .stderr(predicate::str::contains(
        "head.xml: the same run of the suite given twice",
    ));
}

/// `go test -json` events of package `example.com/{pkg}`: (nanoseconds, action, test).
fn go_package(pkg: &str, t0: u64, test: &str) -> String {
    let ev = |ns: u64, action: &str, extra: &str| {
        format!(
            "{{\"Time\":\"2026-12-01T18:59:55.{:09}Z\",\"Action\":\"{action}\",\"Package\":\"example.com/{pkg}\"{extra}}}\n",
            t0 + ns
        )
    };
    [
        ev(0, "start", ""),
        ev(10, "run", &format!(",\"Test\":\"{test}\"")),
        ev(30, "pass", &format!(",\"Test\":\"{test}\",\"Elapsed\":0")),
        ev(50, "pass", ",\"Elapsed\":0.01"),
    ]
    .concat()
}

#[test]
fn go_json_stream_and_a_cut_off_suffix_of_it_are_refused_as_the_same_run() {
    // E4: a two-package stream and a suffix of it (only p2's events): the first `Time` and
    // the whole-file digest both differ, so p2's tests counted twice.
    let dir = tempfile::tempdir().expect("tempdir");
    let p1 = go_package("p1", 100, "TestA");
    let p2 = go_package("p2", 200, "TestB");
    let a = write(dir.path(), "run-1.json", &format!("{p1}{p2}"));
    let b = write(dir.path(), "run-1-p2.json", &p2);
    ingest(dir.path(), &[&a, &b], &["--format", "go-json", "--single", "2,0"])
        .code(2)
        .stderr(predicate::str::contains("the same run of the suite given twice"))
        .stderr(predicate::str::contains(
            "the test run that starts at line 6 of the first is the test run that starts at line 2 of the second",
        ));
    // A second run of both packages (their own times) is another run.
    let c = write(
        dir.path(),
        "run-2.json",
        &format!(
            "{}{}",
            go_package("p1", 700, "TestA"),
            go_package("p2", 900, "TestB")
        ),
    );
    ingest(
        dir.path(),
        &[&a, &c],
        &["--format", "go-json", "--single", "2,0"],
    )
    .code(0);
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
