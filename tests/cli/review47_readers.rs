//! Review 47 (the readers): each break the review found in `gate ingest`'s readers, pinned by
//! a test named after its case (/work/scratch/rev47/cases): a test whose failing repeats in
//! one file are written as skips (c21: `go test -count=N -json`, pytest-repeat, Playwright's
//! `--repeat-each`), a Playwright result that failed where the test expected a skip (c08),
//! retries past the per-file cap in Playwright's JSON and pytest-rerunfailures' records
//! (c20), and a Go or mocha JSON report saved with a UTF-8 BOM (h01, an over-refusal).

use std::path::Path;

use predicates::prelude::*;

use super::common::gate;

/// `gate ingest FILES --single N,C --ledger DIR/l.jsonl`, outside GitHub Actions.
fn ingest(dir: &Path, files: &[&str], single: &str) -> assert_cmd::assert::Assert {
    gate()
        .current_dir(dir)
        .arg("ingest")
        .args(files)
        .args([
            "--single",
            single,
            "--ledger",
            "l.jsonl",
            "--no-step-summary",
        ])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
}

fn ledger(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("l.jsonl")).unwrap_or_default()
}

/// A `go test -count=20 -json` stream of `TestRefund` (and `TestLookup`, which passes): the
/// iterations `k % 3 == 1` end with `bad` (`fail` or `skip`), the others pass. With
/// `lookup_skips`, `TestLookup` skips in every iteration.
fn go_count_stream(bad: &str, lookup_skips: bool) -> String {
    let mut n = 0;
    let mut ev = |action: &str, test: Option<&str>| {
        n += 1;
        let test = test.map_or(String::new(), |t| format!(r#","Test":"{t}""#));
        format!(
            r#"{{"Time":"2026-12-01T10:00:00.{n:09}Z","Action":"{action}","Package":"ex.com/agent"{test},"Elapsed":0}}"#
        )
    };
    let mut lines = vec![ev("start", None)];
    for k in 1..=20 {
        let refund = if k % 3 == 1 { bad } else { "pass" };
        let lookup = if lookup_skips { "skip" } else { "pass" };
        for (test, end) in [("TestRefund", refund), ("TestLookup", lookup)] {
            lines.push(ev("run", Some(test)));
            lines.push(ev(end, Some(test)));
        }
    }
    let end = if bad == "fail" { "fail" } else { "pass" };
    lines.push(ev(end, None));
    lines.join("\n") + "\n"
}

#[test]
fn review47_c21_go_count_stream_skipping_when_it_fails_is_a_failure() {
    // Before: the 7 skipped iterations of 20 were dropped and `TestRefund` PASSed on its 13
    // passes; the same stream with `fail` for `skip` FAILs.
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("go-skip.json"),
        go_count_stream("skip", false),
    )
    .unwrap();
    ingest(d.path(), &["go-skip.json"], "20,1")
        .code(1)
        .stdout(predicate::str::contains("ex.com/agent::TestRefund  FAIL"))
        .stdout(predicate::str::contains("ex.com/agent::TestLookup  PASS"));
    let l = ledger(d.path());
    assert!(
        l.contains(
            "repeat 1 skipped in go-skip.json, though other repeats of this test in that file ran"
        ),
        "the failed trial says why: {l}"
    );
    // A test skipped in every iteration stays a skip, not a failure.
    std::fs::write(d.path().join("go-all.json"), go_count_stream("pass", true)).unwrap();
    ingest(d.path(), &["go-all.json"], "20,1")
        .code(0)
        .stdout(predicate::str::contains("TestLookup").not())
        .stdout(predicate::str::contains(
            "20 skipped test-case record(s) are not trials",
        ));
}

/// A pytest-repeat (`--count 20`) JUnit run of `test_refund`: repeats `k % 3 == 1` carry
/// `bad` (a failure or a skip element), the others pass; `test_lookup` passes once.
fn pytest_repeat(bad: &str) -> String {
    let mut cases = String::new();
    for k in 1..=20 {
        let body = if k % 3 == 1 { bad } else { "" };
        cases.push_str(&format!(
            r#"<testcase classname="test_agent" name="test_refund[{k}-20]" time="0.01">{body}</testcase>"#
        ));
    }
    format!(
        r#"<testsuites name="pytest tests"><testsuite name="pytest" timestamp="2026-12-01T10:00:00.1" hostname="ci">{cases}<testcase classname="test_agent" name="test_lookup" time="0.01"/></testsuite></testsuites>"#
    )
}

#[test]
fn review47_c21_pytest_repeat_skipped_repeats_are_failures() {
    // Before: the `<skipped>` repeats were left out and `test_refund` PASSed.
    let d = tempfile::tempdir().unwrap();
    let skip = r#"<skipped type="pytest.skip" message="backend flaky"/>"#;
    std::fs::write(d.path().join("py-skip.xml"), pytest_repeat(skip)).unwrap();
    ingest(d.path(), &["py-skip.xml"], "20,1")
        .code(1)
        .stdout(predicate::str::contains("test_agent::test_refund  FAIL"));
    assert!(ledger(d.path()).contains("repeat 1 skipped in py-skip.xml"));
    // Every repeat skipped: still a skip.
    let all = pytest_repeat("").replace(
        "time=\"0.01\"></testcase>",
        &format!("time=\"0.01\">{skip}</testcase>"),
    );
    std::fs::write(d.path().join("py-all.xml"), all).unwrap();
    std::fs::remove_file(d.path().join("l.jsonl")).unwrap();
    ingest(d.path(), &["py-all.xml"], "1,0")
        .code(0)
        .stdout(predicate::str::contains("test_refund").not())
        .stdout(predicate::str::contains(
            "20 skipped test-case record(s) are not trials",
        ));
}

/// A Playwright JSON report of one spec, `refund`, one `tests[]` entry per `--repeat-each`
/// repeat: `(expectedStatus, result status)` each.
fn playwright(repeats: &[(&str, &str)], results_per_test: usize, specs: usize) -> String {
    let entries: Vec<String> = repeats
        .iter()
        .map(|(expected, status)| {
            let results = vec![
                format!(r#"{{"status":"{status}","retry":0,"duration":5}}"#);
                results_per_test
            ];
            format!(
                r#"{{"expectedStatus":"{expected}","projectName":"chromium","results":[{}]}}"#,
                results.join(",")
            )
        })
        .collect();
    let specs: Vec<String> = (0..specs)
        .map(|i| format!(r#"{{"title":"refund{i}","tests":[{}]}}"#, entries.join(",")))
        .collect();
    format!(
        r#"{{"config":{{}},"stats":{{"startTime":"2026-12-01T10:00:00.000Z"}},"errors":[],"suites":[{{"title":"agent.spec.ts","specs":[{}]}}]}}"#,
        specs.join(",")
    )
}

#[test]
fn review47_c21_playwright_repeat_each_skipped_repeats_are_failures() {
    // Before: the repeats in which the test called `test.skip()` were left out: PASS.
    let d = tempfile::tempdir().unwrap();
    let mut repeats = vec![("passed", "passed"); 5];
    repeats[0] = ("skipped", "skipped");
    repeats[3] = ("skipped", "skipped");
    std::fs::write(d.path().join("pw.json"), playwright(&repeats, 1, 1)).unwrap();
    ingest(d.path(), &["pw.json"], "5,1")
        .code(1)
        .stdout(predicate::str::contains(
            "agent.spec.ts::refund0 [chromium]  FAIL",
        ));
    assert!(ledger(d.path()).contains("repeat 1 skipped in pw.json"));
}

#[test]
fn review47_c08_playwright_failed_result_of_a_test_marked_skipped_is_a_failure() {
    // Before: `expectedStatus: "skipped"` was read before the result, so a test that failed
    // and then reached `test.skip()` was left out as a skip and the run PASSed. Playwright
    // itself calls it unexpected (status differs from expectedStatus).
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("pw.json"),
        playwright(&[("skipped", "failed")], 1, 1),
    )
    .unwrap();
    ingest(d.path(), &["pw.json"], "1,0")
        .code(1)
        .stdout(predicate::str::contains(
            "agent.spec.ts::refund0 [chromium]  FAIL",
        ));
    assert!(ledger(d.path()).contains("failed (expected skipped)"));
    // `status: "skipped"` is still a skip (and a file of skips alone has nothing to judge).
    std::fs::write(
        d.path().join("pw.json"),
        playwright(&[("skipped", "skipped")], 1, 1),
    )
    .unwrap();
    std::fs::remove_file(d.path().join("l.jsonl")).unwrap();
    gate()
        .current_dir(d.path())
        .args([
            "ingest", "pw.json", "--single", "1,0", "--ledger", "l.jsonl",
        ])
        .args(["--no-step-summary"])
        .env_remove("GITHUB_ACTIONS")
        .assert()
        .stderr(predicate::str::contains(
            "no test case that ran (1 skipped)",
        ));
}

#[test]
fn review47_c20_playwright_retries_past_the_file_cap_are_refused() {
    // Before: 11 tests × 10,000 results (each within the per-test cap) were 110,000 ledger
    // rows; the file's cap is 100,000 attempts after the first.
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("pw.json"),
        playwright(&[("passed", "failed")], 10_000, 11),
    )
    .unwrap();
    ingest(d.path(), &["pw.json"], "1,0")
        .code(2)
        .stderr(predicate::str::contains(
            "the file records more than 100000 attempts after the first",
        ));
    assert!(!d.path().join("l.jsonl").exists(), "no ledger written");
}

#[test]
fn review47_c20_pytest_reruns_past_the_file_cap_are_refused() {
    // Before: 11 tests × 10,000 same-name records (pytest-rerunfailures' reruns, each test
    // within the per-test cap) were 110,000 ledger rows.
    let d = tempfile::tempdir().unwrap();
    let mut xml = String::from(
        r#"<testsuites name="pytest tests"><testsuite name="pytest" timestamp="2026-12-01T10:00:00.1">"#,
    );
    for t in 0..11 {
        for _ in 0..10_000 {
            xml.push_str(&format!(r#"<testcase classname="c" name="t{t}"/>"#));
        }
    }
    xml.push_str("</testsuite></testsuites>");
    std::fs::write(d.path().join("p.xml"), xml).unwrap();
    ingest(d.path(), &["p.xml"], "1,0")
        .code(2)
        .stderr(predicate::str::contains(
            "the file records more than 100000 attempts after the first",
        ));
    assert!(!d.path().join("l.jsonl").exists(), "no ledger written");
}

#[test]
fn review47_h01_go_and_mocha_json_saved_with_a_bom_are_read() {
    // Before: refused as "not a format gate reads", and with `--format go-json` as "not a
    // `go test -json` event" at 1:1 (PowerShell's `Out-File -Encoding utf8` writes a BOM).
    let d = tempfile::tempdir().unwrap();
    let go = go_count_stream("pass", false).replace('\n', "\r\n");
    std::fs::write(d.path().join("go-bom.json"), format!("\u{feff}{go}")).unwrap();
    ingest(d.path(), &["go-bom.json"], "20,0")
        .code(0)
        .stdout(predicate::str::contains("ex.com/agent::TestRefund  PASS"));
    std::fs::remove_file(d.path().join("l.jsonl")).unwrap();
    gate()
        .current_dir(d.path())
        .args(["ingest", "--format", "go-json", "go-bom.json"])
        .args([
            "--single",
            "20,0",
            "--ledger",
            "l.jsonl",
            "--no-step-summary",
        ])
        .env_remove("GITHUB_ACTIONS")
        .assert()
        .code(0);
    let mocha = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/js-json/mocha-runs/run-1.json"),
    )
    .unwrap();
    std::fs::write(d.path().join("m-bom.json"), format!("\u{feff}{mocha}")).unwrap();
    std::fs::remove_file(d.path().join("l.jsonl")).unwrap();
    // Read and judged (this run's `refund` failed its first attempt): a verdict, not exit 2.
    ingest(d.path(), &["m-bom.json"], "1,0")
        .code(1)
        .stdout(predicate::str::contains("agent refund"));
}
