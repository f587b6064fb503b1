//! Issue 29, the readers and the evidence: each break an adversarial test found in `gate
//! ingest`'s readers, pinned by a test named after it. Each builds the smallest file that
//! showed the break and checks that gate now refuses it (exit 2, naming what it refused) or
//! grades it as the failure it is.

use std::path::{Path, PathBuf};

use predicates::prelude::*;

use super::common::gate;

/// A nextest JUnit run of one test, `agent::refund`, passing or failing.
fn nextest(pass: bool) -> String {
    let body = if pass {
        String::new()
    } else {
        "<failure message=\"wrong answer\"/>".into()
    };
    format!(
        "<?xml version=\"1.0\"?>\n<testsuites name=\"nextest-run\"><testsuite name=\"agent\" tests=\"1\">\
         <testcase classname=\"agent\" name=\"refund\" time=\"0.1\">{body}</testcase></testsuite></testsuites>\n"
    )
}

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
fn same_result_file_given_three_times_is_refused() {
    // Break 1: one passing run given three times (or a copy, or a symlink) was PASS 3/3.
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write(dir.path(), "run-01.xml", &nextest(true));
    let copy = dir.path().join("copy.xml");
    std::fs::copy(&p, &copy).expect("copy");
    let link = dir.path().join("link.xml");
    std::os::unix::fs::symlink(&p, &link).expect("symlink");
    for second in [&p, &copy, &link] {
        ingest(dir.path(), &[&p, second], &["--single", "2,0"])
            .code(2)
            .stderr(predicate::str::contains("the same file content"))
            .stderr(predicate::str::contains("run-01.xml"))
            .stderr(predicate::str::contains(
                second.file_name().unwrap().to_str().unwrap(),
            ));
    }
    // Distinct runs read as before.
    let other = write(
        dir.path(),
        "run-02.xml",
        &nextest(true).replace("0.1", "0.2"),
    );
    ingest(dir.path(), &[&p, &other], &["--single", "2,0"]).code(0);
    // `--base` files are evidence too: the same bytes twice there, or in base and head.
    ingest(
        dir.path(),
        &[&p],
        &["--base", link.to_str().unwrap(), "--odds-ratio", "2"],
    )
    .code(2)
    .stderr(predicate::str::contains("the same file content"));
}

#[test]
fn inspect_success_log_with_cancelled_epochs_grades_them_as_failures() {
    // Break 6: status `success`, half the epochs `CancelledError`: dropped, PASS 5/5.
    let dir = tempfile::tempdir().expect("tempdir");
    let samples: Vec<String> = (1..=10)
        .map(|e| {
            if e % 2 == 0 {
                format!(
                    r#"{{"id":"refund","epoch":{e},"scores":{{}},"error":{{"message":"CancelledError: the sample was cancelled","traceback":""}}}}"#
                )
            } else {
                format!(r#"{{"id":"refund","epoch":{e},"scores":{{"done":{{"value":"C"}}}}}}"#)
            }
        })
        .collect();
    let log = format!(
        r#"{{"version":2,"status":"success","eval":{{"task":"agent_eval","dataset":{{"sample_ids":["refund"]}},"scorers":[{{"name":"done"}}]}},"samples":[{}]}}"#,
        samples.join(",")
    );
    let p = write(dir.path(), "log.json", &log);
    ingest(dir.path(), &[&p], &["--single", "5,0"])
        .code(1)
        .stdout(predicate::str::contains("FAIL"));
}

#[test]
fn mocha_test_in_failures_with_an_empty_err_is_a_failure() {
    // Break 7: the agent throws `Object.create(Error.prototype)`; mocha lists the test in
    // `failures[]` but `tests[].err` is `{}`: read as a pass.
    let dir = tempfile::tempdir().expect("tempdir");
    let test = r#"{"title":"refund","fullTitle":"agent refund","file":"/x/agent.test.js","duration":1,"currentRetry":0,"err":{}}"#;
    let report = format!(
        r#"{{"stats":{{"tests":1,"passes":0,"failures":1}},"tests":[{test}],"pending":[],"failures":[{test}],"passes":[]}}"#
    );
    let p = write(dir.path(), "mocha.json", &report);
    ingest(dir.path(), &[&p], &["--single", "1,0"]).code(1);
    // Neither listed as passed nor failed, with an error shape mocha does not write: no pass.
    let odd = r#"{"title":"refund","fullTitle":"agent refund","file":"/x/agent.test.js","duration":1,"currentRetry":0,"err":"boom"}"#;
    let report = format!(
        r#"{{"stats":{{"tests":1,"passes":1,"failures":0}},"tests":[{odd}],"pending":[],"failures":[],"passes":[{odd}]}}"#
    );
    let p = write(dir.path(), "mocha-odd.json", &report);
    ingest(dir.path(), &[&p], &["--single", "1,0"]).code(1);
}

#[test]
fn counts_read_from_a_file_beyond_the_cap_are_refused_before_allocating() {
    // Break 8: `invocations="4000000000"` in a 198-byte jest JUnit aborted on a 256 GB
    // allocation (exit 134); the same through Jest JSON, mocha's `currentRetry` and an
    // Inspect sample's `retries`.
    let dir = tempfile::tempdir().expect("tempdir");
    let huge = "4000000000";
    let junit = format!(
        r#"<testsuites name="jest tests"><testsuite name="a" tests="1"><testcase classname="agent refund" name="agent refund" time="0.1"><properties><property name="invocations" value="{huge}"/></properties></testcase></testsuite></testsuites>"#
    );
    let jest = format!(
        r#"{{"numTotalTests":1,"wasInterrupted":false,"openHandles":[],"testResults":[{{"name":"/x/a.test.js","status":"passed","message":"","assertionResults":[{{"ancestorTitles":["agent"],"title":"refund","status":"passed","failureMessages":[],"invocations":{huge}}}]}}]}}"#
    );
    let t = format!(
        r#"{{"title":"refund","fullTitle":"agent refund","file":"/x/agent.test.js","duration":1,"currentRetry":{huge},"err":{{}}}}"#
    );
    let mocha = format!(
        r#"{{"stats":{{"tests":1}},"tests":[{t}],"pending":[],"failures":[],"passes":[{t}]}}"#
    );
    let inspect = format!(
        r#"{{"version":2,"status":"success","eval":{{"task":"agent_eval","scorers":[{{"name":"done"}}]}},"samples":[{{"id":"refund","epoch":1,"scores":{{"done":{{"value":"C"}}}},"retries":{huge}}}]}}"#
    );
    for (name, text) in [
        ("junit.xml", junit),
        ("jest.json", jest),
        ("mocha.json", mocha),
        ("inspect.json", inspect),
    ] {
        let p = write(dir.path(), name, &text);
        ingest(dir.path(), &[&p], &["--single", "1,0"])
            .code(2)
            .stderr(predicate::str::contains(
                "10000 gate reads from a result file",
            ));
    }
    // At the cap, a count is read: 10,000 retries of a JUnit test are 10,001 attempts.
    let at_cap = write(
        dir.path(),
        "at-cap.xml",
        &format!(
            r#"<testsuites name="jest tests"><testsuite name="a" tests="1"><testcase classname="agent refund" name="agent refund" time="0.1"><properties><property name="invocations" value="{}"/></properties></testcase></testsuite></testsuites>"#,
            gate::ingest::MAX_COUNT
        ),
    );
    ingest(dir.path(), &[&at_cap], &["--single", "1,0"]).code(1);
}

/// `go test -json` events, one per line.
fn go_events(events: &[&str]) -> String {
    events.iter().map(|e| format!("{e}\n")).collect()
}

#[test]
fn go_json_package_failing_after_its_tests_passed_is_refused() {
    // Break 13: every test passes, then the package fails (TestMain, goleak): was PASS.
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write(
        dir.path(),
        "go.json",
        &go_events(&[
            r#"{"Action":"run","Package":"example.com/agent","Test":"TestRefund"}"#,
            r#"{"Action":"pass","Package":"example.com/agent","Test":"TestRefund","Elapsed":0.1}"#,
            r#"{"Action":"output","Package":"example.com/agent","Output":"goleak: Errors on successful test run: found unexpected goroutines\n"}"#,
            r#"{"Action":"fail","Package":"example.com/agent","Elapsed":0.2}"#,
        ]),
    );
    ingest(dir.path(), &[&p], &["--single", "1,0"])
        .code(2)
        .stderr(predicate::str::contains("go.json:4:1"))
        .stderr(predicate::str::contains(
            "package `example.com/agent` failed after every test it ran passed",
        ));
}

#[test]
fn go_json_stream_ending_mid_test_is_refused() {
    // Break 15: a stream that ends inside a test's run: that run was dropped silently.
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write(
        dir.path(),
        "go.json",
        &go_events(&[
            r#"{"Action":"run","Package":"example.com/agent","Test":"TestRefund"}"#,
            r#"{"Action":"pass","Package":"example.com/agent","Test":"TestRefund","Elapsed":0.1}"#,
            r#"{"Action":"run","Package":"example.com/agent","Test":"TestCancel"}"#,
            r#"{"Action":"output","Package":"example.com/agent","Test":"TestCancel","Output":"=== RUN   TestCancel\n"}"#,
        ]),
    );
    ingest(dir.path(), &[&p], &["--single", "1,0"])
        .code(2)
        .stderr(predicate::str::contains("go.json:3:1"))
        .stderr(predicate::str::contains("`example.com/agent::TestCancel`"));
}

#[test]
fn ids_made_only_of_invisible_code_points_are_refused() {
    // Break 17: ids of U+2800, U+3164, U+FFA0, U+115F, U+180E, U+00AD or U+034F were
    // accepted as test names.
    let dir = tempfile::tempdir().expect("tempdir");
    for c in [
        '\u{2800}', '\u{3164}', '\u{ffa0}', '\u{115f}', '\u{180e}', '\u{00ad}', '\u{034f}',
    ] {
        let xml = format!(
            "<testsuites name=\"nextest-run\"><testsuite name=\"s\" tests=\"1\"><testcase classname=\"{c}\" name=\"{c}{c}\" time=\"0.1\"/></testsuite></testsuites>"
        );
        let p = write(dir.path(), "blank.xml", &xml);
        ingest(dir.path(), &[&p], &["--single", "1,0"])
            .code(2)
            .stderr(predicate::str::contains("has no visible name"));
    }
}

#[test]
fn ids_colliding_across_files_are_refused_as_in_one_file() {
    // Break 19: classname `a` + name `b::c` in one file, classname `a::b` + name `c` in
    // another, were merged into one test `a::b::c`.
    let dir = tempfile::tempdir().expect("tempdir");
    let file = |class: &str, name: &str, failure: &str| {
        format!(
            "<testsuites name=\"nextest-run\"><testsuite name=\"s\" tests=\"1\"><testcase classname=\"{class}\" name=\"{name}\" time=\"0.1\">{failure}</testcase></testsuite></testsuites>"
        )
    };
    let one = write(dir.path(), "run-1.xml", &file("a", "b::c", ""));
    let two = write(
        dir.path(),
        "run-2.xml",
        &file("a::b", "c", "<failure message=\"x\"/>"),
    );
    ingest(dir.path(), &[&one, &two], &["--single", "2,1"])
        .code(2)
        .stderr(predicate::str::contains("run-2.xml"))
        .stderr(predicate::str::contains("would both be the test `a::b::c`"));
    // The same test in two files is two runs of it, as before.
    let three = write(
        dir.path(),
        "run-3.xml",
        &file("a", "b::c", "<failure message=\"y\"/>"),
    );
    ingest(dir.path(), &[&one, &three], &["--single", "2,1"]).code(0);
}

#[test]
fn junit_too_large_for_a_ledger_header_gets_a_size_refusal_not_a_tampering_error() {
    // Break 20: 150,000 test cases made a header row over the ledger's row cap, which the
    // read-back then reported as tampering (exit 4). Fewer cases with long ids make the same
    // header size, faster.
    let dir = tempfile::tempdir().expect("tempdir");
    let long = "x".repeat(20_000);
    let mut xml =
        String::from("<testsuites name=\"nextest-run\"><testsuite name=\"s\" tests=\"1800\">\n");
    for i in 0..1800 {
        xml.push_str(&format!(
            "<testcase classname=\"c\" name=\"t{i}_{long}\" time=\"0.1\"/>\n"
        ));
    }
    xml.push_str("</testsuite></testsuites>\n");
    let p = write(dir.path(), "big.xml", &xml);
    ingest(dir.path(), &[&p], &["--single", "1,0"])
        .code(2)
        .stderr(predicate::str::contains(
            "1800 test cases read make a ledger header",
        ))
        .stderr(predicate::str::contains("tamper").not());
}

/// A pytest JUnit run of `test_agent::test_refund` at `stamp`, the test taking `time` s.
fn pytest(stamp: &str, time: &str, pass: bool) -> String {
    let body = if pass {
        String::new()
    } else {
        "<failure message=\"wrong answer\"/>".into()
    };
    format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<testsuites name=\"pytest tests\"><testsuite name=\"pytest\" \
         errors=\"0\" failures=\"0\" skipped=\"0\" tests=\"1\" time=\"{time}\" timestamp=\"{stamp}\" hostname=\"ci\">\
         <testcase classname=\"test_agent\" name=\"test_refund\" time=\"{time}\">{body}</testcase></testsuite></testsuites>\n"
    )
}

#[test]
fn resaved_copy_of_a_run_is_refused_as_the_same_run() {
    // Review 2, B1: the duplicate check compared raw bytes, so one passing run re-saved with a
    // trailing newline, CRLF line endings or a BOM counted as four runs: PASS 4/4.
    let dir = tempfile::tempdir().expect("tempdir");
    let run = pytest("2026-12-01T10:00:00.123456", "0.5", true);
    let p = write(dir.path(), "pass.xml", &run);
    let resaved = [
        write(dir.path(), "newline.xml", &format!("{run}\n")),
        write(dir.path(), "crlf.xml", &run.replace('\n', "\r\n")),
        write(dir.path(), "bom.xml", &format!("\u{feff}{run}")),
    ];
    for copy in &resaved {
        ingest(dir.path(), &[&p, copy], &["--single", "2,0"])
            .code(2)
            .stderr(predicate::str::contains(
                "the same run of the suite given twice",
            ))
            .stderr(predicate::str::contains("pass.xml"))
            .stderr(predicate::str::contains(
                copy.file_name().unwrap().to_str().unwrap(),
            ));
    }
    // Two real runs with the same outcome but their own timestamps are two runs.
    let other = write(
        dir.path(),
        "run-02.xml",
        &pytest("2026-12-01T10:05:00.654321", "0.5", true),
    );
    ingest(dir.path(), &[&p, &other], &["--single", "2,0"]).code(0);
    // A deterministic suite that records no time at all: equal records are not refused
    // (nothing tells two runs from one re-saved; docs/ingest.md says so).
    let a = write(dir.path(), "a.xml", &nextest(true).replace("0.1", "0"));
    let b = write(
        dir.path(),
        "b.xml",
        &nextest(true).replace("0.1", "0").replace("?>\n", "?>\n\n"),
    );
    ingest(dir.path(), &[&a, &b], &["--single", "2,0"]).code(0);
}

#[test]
fn inspect_log_and_its_conversion_sharing_an_eval_id_are_refused_as_the_same_run() {
    // Review 2, B1: an `.eval` log and the same log converted to `.json` (same eval_id and
    // run_id) counted as two evals: 40 trials per sample from one log.
    let dir = tempfile::tempdir().expect("tempdir");
    let log = |ws: &str| {
        format!(
            r#"{{"version":2,"status":"success",{ws}"eval":{{"eval_id":"EVAL1","run_id":"RUN1","task":"t","dataset":{{"sample_ids":["refund"]}},"scorers":[{{"name":"done"}}]}},"samples":[{{"id":"refund","epoch":1,"scores":{{"done":{{"value":"C"}}}}}}]}}"#
        )
    };
    let a = write(dir.path(), "log.json", &log(""));
    let b = write(dir.path(), "converted.json", &log(" "));
    ingest(dir.path(), &[&a, &b], &["--single", "2,0"])
        .code(2)
        .stderr(predicate::str::contains("Inspect eval_id `EVAL1`"))
        .stderr(predicate::str::contains("log.json and"))
        .stderr(predicate::str::contains("converted.json"));
}

#[test]
fn go_json_stream_and_its_cut_off_prefix_are_refused_as_the_same_run() {
    // Review 2, B1: a `go test -json` stream and a prefix of itself counted as two runs.
    let dir = tempfile::tempdir().expect("tempdir");
    let full = [
        r#"{"Time":"2026-12-01T10:00:00.000000001Z","Action":"start","Package":"p"}"#,
        r#"{"Time":"2026-12-01T10:00:00.000000002Z","Action":"run","Package":"p","Test":"TestA"}"#,
        r#"{"Time":"2026-12-01T10:00:00.100000003Z","Action":"pass","Package":"p","Test":"TestA","Elapsed":0.1}"#,
        r#"{"Time":"2026-12-01T10:00:00.100000004Z","Action":"pass","Package":"p","Elapsed":0.1}"#,
    ];
    let a = write(dir.path(), "full.json", &go_events(&full));
    let mut cut = full.to_vec();
    cut.push(r#"{"Time":"2026-12-01T10:00:00.200000005Z","Action":"output","Package":"p","Output":"ok\n"}"#);
    let b = write(dir.path(), "longer.json", &go_events(&cut));
    ingest(dir.path(), &[&a, &b], &["--single", "2,0"])
        .code(2)
        .stderr(predicate::str::contains(
            "the same run of the suite given twice",
        ))
        .stderr(predicate::str::contains("2026-12-01T10:00:00.000000001Z"));
}

#[test]
fn testsuite_written_twice_in_one_file_is_refused() {
    // Review 2, B2: one nextest run's `<testsuite>` pasted twice into its file: PASS 2/2.
    let dir = tempfile::tempdir().expect("tempdir");
    let suite = "<testsuite name=\"agent\" tests=\"1\"><testcase classname=\"agent\" name=\"refund\" \
                 timestamp=\"2026-12-01T10:00:00.148+00:00\" time=\"0.023\"/></testsuite>\n";
    let p = write(
        dir.path(),
        "twice.xml",
        &format!(
            "<?xml version=\"1.0\"?>\n<testsuites name=\"nextest-run\" uuid=\"u-1\">\n{suite}{suite}</testsuites>\n"
        ),
    );
    ingest(dir.path(), &[&p], &["--single", "2,0"])
        .code(2)
        .stderr(predicate::str::contains(
            "the `<testsuite>` at line 4 is the one at line 3 again",
        ));
    // The same test in two suites of one file that ran apart is read as before.
    let other = suite.replace("0.023", "0.031").replace(".148", ".201");
    let p = write(
        dir.path(),
        "two.xml",
        &format!(
            "<?xml version=\"1.0\"?>\n<testsuites name=\"nextest-run\" uuid=\"u-2\">\n{suite}{other}</testsuites>\n"
        ),
    );
    ingest(
        dir.path(),
        &[&p],
        &["--single", "2,0", "--assume-retries-off"],
    )
    .code(0);
}

#[test]
fn go_json_stream_cut_between_tests_is_refused() {
    // Review 2, B6: a stream cut after a test ended and before its package's end event was
    // read silently (the tests after the cut, and a package-level failure, lost).
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write(
        dir.path(),
        "cut.json",
        &go_events(&[
            r#"{"Action":"run","Package":"example.com/agent","Test":"TestRefund"}"#,
            r#"{"Action":"pass","Package":"example.com/agent","Test":"TestRefund","Elapsed":0.1}"#,
        ]),
    );
    ingest(dir.path(), &[&p], &["--single", "1,0"])
        .code(2)
        .stderr(predicate::str::contains("cut.json:2:1"))
        .stderr(predicate::str::contains(
            "the stream ends before package `example.com/agent` ended",
        ));
}

/// Review of issue 29 (B7): a Jest report whose `wasInterrupted` and `openHandles` keys were
/// stripped was read as Vitest's, whose reader ignores `invocations`: a test that failed its
/// first attempt and passed on `jest.retryTimes`' retry (`invocations: 2`) read as a pass.
#[test]
fn jest_report_without_its_top_level_flags_is_still_read_as_jest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fixture = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/js-json/jest-runs/run-1.json"),
    )
    .expect("fixture");
    let mut json: serde_json::Value = serde_json::from_str(&fixture).expect("json");
    let top = json.as_object_mut().expect("object");
    top.remove("wasInterrupted");
    top.remove("openHandles");
    let p = write(dir.path(), "jest-noflags.json", &json.to_string());
    // `agent refund` passed on its second invocation: its first attempt failed.
    ingest(dir.path(), &[&p], &["--single", "1,0", "--no-step-summary"])
        .code(1)
        .stderr(predicate::str::contains("Vitest").not());
}
