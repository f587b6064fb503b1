//! Review 7 (issue 29): evidence has an identity, and a reader never turns a failure into a
//! pass. Each test is named after the attack it pins (/work/scratch/rev7/REPORT.md): a suite
//! whose later runs replay run 1's result file (c19, and base's side of a compare suite, c44),
//! Go test-cache replays (c25), a case the code under test skips when it fails (c35), JUnit
//! totals the records fall short of and a `<testCase>` (c14), an Inspect log that lost epochs
//! (c16), and a reordered copy of a run (c20).

use predicates::prelude::*;

use crate::common::{Fixture, gate};

/// A suite command that behaves like a build cache (Bazel, Nx, Turborepo): run 1 writes the
/// results (case `e` fails only in runs it really executes after the first) and stores them;
/// every later run copies the stored file to `$GATE_JUNIT`, byte for byte. On the side named
/// by `$REPLAY` only (`head`, `base`, or `all`); elsewhere `e` fails on odd runs.
const CACHED_SUITE: &str = r#"cache=.testcache/results.xml
if { [ "$REPLAY" = all ] || [ "$REPLAY" = "$GATE_SIDE" ]; } && [ -f "$cache" ]; then cp "$cache" "$GATE_JUNIT"; exit 0; fi
if [ "$REPLAY" = all ] || [ "$REPLAY" = "$GATE_SIDE" ]; then efail=$([ "$GATE_TRIAL" = 1 ] && echo "$FIRST" || echo 0); else efail=$((GATE_TRIAL % 2)); fi
{ printf '<testsuites><testsuite name="s" timestamp="2026-01-01T00:%02d:%02d">' $((GATE_TRIAL / 60 % 60)) $((GATE_TRIAL % 60))
  for c in a b; do printf '<testcase classname="t" name="%s"/>' $c; done
  if [ "$efail" = 1 ]; then printf '<testcase classname="t" name="e"><failure message="x"/></testcase>'; else printf '<testcase classname="t" name="e"/>'; fi
  printf '</testsuite></testsuites>\n'; } > "$GATE_JUNIT"
mkdir -p .testcache && cp "$GATE_JUNIT" "$cache"
"#;

#[test]
fn review7_c19_suite_replaying_run_one_is_refused() {
    // Before: 10 suite runs, one execution, the same `results_sha256` on every run row: PASS.
    let f = Fixture::new(
        "version: 1\ntasks:\n  - id: s\n    env: {REPLAY: all, FIRST: \"0\"}\n    suite:\n      run: sh suite.sh\n      assume_retries_off: true\n    sampling:\n      design: {healthy: 90%, regressed: 50%}\n",
    );
    std::fs::write(f.path("suite.sh"), CACHED_SUITE).unwrap();
    f.command(&[])
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .code(4)
        .stdout(predicate::str::contains(
            "suite run #2 could not run the suite: its result file is suite run #1's evidence again \
             (the two files are the same, byte for byte",
        ))
        .stdout(predicate::str::contains("--nocache_test_results"))
        .stdout(predicate::str::contains("gate  HARNESS ERROR"));
}

#[test]
fn review7_c44_compare_suite_whose_base_replays_its_first_run_is_refused() {
    // Before: base replays its unlucky run 1 (`e` failed), so every discordant pair was a head
    // win and a 50% regression on head PASSed.
    let f = Fixture::new(
        "version: 1\nbase:\n  cwd: base\n  env: {REPLAY: base, FIRST: \"1\"}\ntasks:\n  - id: s\n    cwd: head\n    env: {REPLAY: base, FIRST: \"1\"}\n    suite:\n      run: sh suite.sh\n      assume_retries_off: true\n    sampling:\n      compare: {odds_ratio: 3}\n",
    );
    for side in ["head", "base"] {
        std::fs::create_dir(f.path(side)).unwrap();
        std::fs::write(f.path(&format!("{side}/suite.sh")), CACHED_SUITE).unwrap();
    }
    f.command(&[])
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .code(4)
        .stdout(predicate::str::contains(
            "its result file is suite run #1's evidence again",
        ))
        .stdout(predicate::str::contains("gate  HARNESS ERROR"));
}

/// One `go test -json` stream of `TestFlaky` passing; `cached`: as Go writes it when the
/// package's result comes from its test cache (no `-count=1`).
fn go_stream(i: u32, cached: bool) -> String {
    let t = format!("2026-01-01T00:00:0{i}.{i}00000000Z");
    let summary = if cached {
        "ok  \\texample.com/p\\t(cached)\\n"
    } else {
        "ok  \\texample.com/p\\t0.012s\\n"
    };
    [
        format!(r#"{{"Time":"{t}","Action":"start","Package":"example.com/p"}}"#),
        format!(r#"{{"Time":"{t}","Action":"run","Package":"example.com/p","Test":"TestFlaky"}}"#),
        format!(
            r#"{{"Time":"{t}","Action":"output","Package":"example.com/p","Test":"TestFlaky","Output":"--- PASS: TestFlaky (0.00s)\n"}}"#
        ),
        format!(
            r#"{{"Time":"{t}","Action":"pass","Package":"example.com/p","Test":"TestFlaky","Elapsed":0}}"#
        ),
        format!(r#"{{"Time":"{t}","Action":"output","Package":"example.com/p","Output":"{summary}"}}"#),
        format!(r#"{{"Time":"{t}","Action":"pass","Package":"example.com/p","Elapsed":0}}"#),
    ]
    .join("\n")
        + "\n"
}

/// `gate ingest --single 3,0 --assume-retries-off -- FILES…` in `dir`.
fn ingest(dir: &std::path::Path, files: &[&str]) -> assert_cmd::assert::Assert {
    crate::common::ingest_files(dir, "l.jsonl", files)
}

#[test]
fn review7_c25_go_test_cache_replay_is_refused() {
    // Before: `example.com/p::TestFlaky PASS: 3 passes` from one execution and two replays.
    let d = tempfile::tempdir().unwrap();
    for i in 1..=3 {
        std::fs::write(d.path().join(format!("go{i}.json")), go_stream(i, i > 1)).unwrap();
    }
    ingest(d.path(), &["go1.json", "go2.json", "go3.json"])
        .code(2)
        .stderr(predicate::str::contains(
            "go2.json:5:1: package `example.com/p` is a replay from Go's test cache (`(cached)`)",
        ))
        .stderr(predicate::str::contains("-count=1"));
    // Three streams that ran are read as three trials.
    for i in 1..=3 {
        std::fs::write(d.path().join(format!("go{i}.json")), go_stream(i, false)).unwrap();
    }
    ingest(d.path(), &["go1.json", "go2.json", "go3.json"]).code(0);
}

/// A JUnit run of `t::ok` and `t::refund` (skipped, or failing when `fail`), stamped `k`.
fn junit_run(k: u32, refund: &str) -> String {
    format!(
        "<testsuites><testsuite name=\"s\" timestamp=\"2026-01-01T00:00:0{k}\">\
         <testcase classname=\"t\" name=\"ok\" time=\"0.1\"/>{refund}</testsuite></testsuites>\n"
    )
}

const SKIPPED: &str = "<testcase classname=\"t\" name=\"refund\"><skipped message=\"refund service unavailable\"/></testcase>";
const PASSED: &str = "<testcase classname=\"t\" name=\"refund\" time=\"0.1\"/>";

#[test]
fn review7_c35_ingest_case_skipped_in_some_runs_is_a_failed_trial() {
    // Before: the runs in which the code under test raised `SkipTest` had no trial, and
    // `t::refund` PASSed on the one run where it did not.
    let d = tempfile::tempdir().unwrap();
    for (k, refund) in [(1, PASSED), (2, SKIPPED), (3, SKIPPED)] {
        std::fs::write(d.path().join(format!("r{k}.xml")), junit_run(k, refund)).unwrap();
    }
    ingest(d.path(), &["r1.xml", "r2.xml", "r3.xml"])
        .code(1)
        .stdout(predicate::str::contains("t::refund  FAIL"))
        .stdout(predicate::str::contains("t::ok  PASS"));
    let ledger = gate_ledger(&d.path().join("l.jsonl"));
    assert!(
        ledger.contains("skipped in r2.xml, though other runs ran it"),
        "the failed trial says why: {ledger}"
    );
    // A case skipped in every run is no trial anywhere: it stays skipped.
    for k in 1..=3 {
        std::fs::write(d.path().join(format!("r{k}.xml")), junit_run(k, SKIPPED)).unwrap();
    }
    std::fs::remove_file(d.path().join("l.jsonl")).unwrap();
    ingest(d.path(), &["r1.xml", "r2.xml", "r3.xml"])
        .code(0)
        .stdout(predicate::str::contains("t::refund").not());
}

fn gate_ledger(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

#[test]
fn review7_c35_suite_case_skipped_in_a_later_run_is_a_failed_trial() {
    // Before: a harness error that named the case as missing; now the run that skipped a case
    // it was asked for (every case: no case decided yet) is that case's failed trial.
    let f = Fixture::new(
        "version: 1\ntasks:\n  - id: s\n    suite:\n      run: sh suite.sh\n      assume_retries_off: true\n    sampling: {single: {n: 3, c: 0}}\n",
    );
    std::fs::write(
        f.path("suite.sh"),
        format!(
            "if [ \"$GATE_TRIAL\" = 1 ]; then r='{PASSED}'; else r='{SKIPPED}'; fi\n\
             printf '<testsuites><testsuite name=\"s\" timestamp=\"T%s\"><testcase classname=\"t\" name=\"ok\"/>%s</testsuite></testsuites>' \"$GATE_TRIAL\" \"$r\" > \"$GATE_JUNIT\"\n"
        ),
    )
    .unwrap();
    f.command(&[])
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("s/t::refund  FAIL"))
        .stdout(predicate::str::contains("s/t::ok  PASS"));
    let ledger = gate_ledger(&f.ledger_path());
    assert!(
        ledger.contains("skipped in suite run #2, though the runs before it ran it"),
        "the failed trial says why: {ledger}"
    );
}

#[test]
fn review7_c14_junit_totals_short_of_their_records_are_refused() {
    // Before: a file whose `failures="1"` record was lost PASSed.
    let d = tempfile::tempdir().unwrap();
    for k in 1..=3 {
        std::fs::write(
            d.path().join(format!("r{k}.xml")),
            format!(
                "<testsuites tests=\"2\" failures=\"1\"><testsuite name=\"s\" tests=\"2\" failures=\"1\" \
                 timestamp=\"2026-01-01T00:00:0{k}\"><testcase classname=\"t\" name=\"ok\"/></testsuite></testsuites>\n"
            ),
        )
        .unwrap();
    }
    ingest(d.path(), &["r1.xml", "r2.xml", "r3.xml"])
        .code(2)
        .stderr(predicate::str::contains(
            "r1.xml:1:36: this `<testsuite>` declares 1 failure(s) and error(s) (`failures` + `errors`), \
             but gate read 0 `<failure>`/`<error>` record(s) in it",
        ));
    // A test that ran, counted in `tests` with no record (failures not declared): refused too.
    std::fs::write(
        d.path().join("r1.xml"),
        "<testsuite name=\"s\" tests=\"2\" skipped=\"0\"><testcase classname=\"t\" name=\"ok\"/></testsuite>\n",
    )
    .unwrap();
    ingest(d.path(), &["r1.xml", "r2.xml", "r3.xml"])
        .code(2)
        .stderr(predicate::str::contains(
            "declares 2 test(s) that ran (`tests` less `skipped`), but gate read 1 `<testcase>` record(s)",
        ));
}

#[test]
fn review7_c14_junit_testcase_spelled_testcase_in_other_case_is_refused() {
    // Before: the failing record spelled `<testCase>` was skipped as an unknown element: PASS.
    let d = tempfile::tempdir().unwrap();
    for k in 1..=3 {
        std::fs::write(
            d.path().join(format!("r{k}.xml")),
            format!(
                "<testsuites><testsuite name=\"s\" timestamp=\"2026-01-01T00:00:0{k}\"><testcase classname=\"t\" \
                 name=\"ok\"/><testCase classname=\"t\" name=\"bad\"><failure message=\"boom\"/></testCase>\
                 </testsuite></testsuites>\n"
            ),
        )
        .unwrap();
    }
    ingest(d.path(), &["r1.xml", "r2.xml", "r3.xml"])
        .code(2)
        .stderr(predicate::str::contains(
            "unknown element `<testCase>`: its name reads as a test case",
        ));
}

#[test]
fn review7_c14_junit_status_attribute_that_says_failed_is_refused() {
    // Before: `<testcase status="failed"/>` with no child (CTest, xunit) was a pass.
    let d = tempfile::tempdir().unwrap();
    for k in 1..=3 {
        std::fs::write(
            d.path().join(format!("r{k}.xml")),
            format!(
                "<testsuites><testsuite name=\"s\" timestamp=\"2026-01-01T00:00:0{k}\"><testcase classname=\"t\" \
                 name=\"bad\" status=\"failed\"/></testsuite></testsuites>\n"
            ),
        )
        .unwrap();
    }
    ingest(d.path(), &["r1.xml", "r2.xml", "r3.xml"])
        .code(2)
        .stderr(predicate::str::contains(
            "test case `bad` has a `status` or `result` attribute that says it failed",
        ));
}

/// The repo's Inspect log (3 samples × 5 epochs), edited by `edit`, written to `log.json`.
fn inspect_log(dir: &std::path::Path, edit: impl Fn(&mut serde_json::Value)) {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/evals/inspect/two-scorers.json"),
    )
    .unwrap();
    // Inspect writes `NaN` for a scorer without a value, which JSON has not: null here, which
    // the reader reads alike.
    let mut log: serde_json::Value =
        serde_json::from_str(&text.replace(": NaN", ": null")).unwrap();
    edit(&mut log);
    std::fs::write(dir.join("log.json"), serde_json::to_string(&log).unwrap()).unwrap();
}

/// Drop the records of `refund` in epochs 1 and 4 (its failing ones) and every `cancel`.
fn drop_failures(log: &mut serde_json::Value) {
    log["samples"].as_array_mut().unwrap().retain(|s| {
        let id = s["id"].as_str().unwrap();
        let epoch = s["epoch"].as_u64().unwrap();
        !(id == "cancel" || (id == "refund" && (epoch == 1 || epoch == 4)))
    });
}

fn ingest_inspect(dir: &std::path::Path) -> assert_cmd::assert::Assert {
    gate()
        .current_dir(dir)
        .args([
            "ingest",
            "--scorer",
            "done",
            "--single",
            "3,0",
            "--ledger",
            "l.jsonl",
            "--no-step-summary",
            "--",
            "log.json",
        ])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
}

#[test]
fn review7_c16_inspect_success_log_missing_epochs_is_refused() {
    // Before: `refund` PASSed on its three passing epochs and `cancel` was never mentioned.
    let d = tempfile::tempdir().unwrap();
    inspect_log(d.path(), drop_failures);
    ingest_inspect(d.path())
        .code(2)
        .stderr(predicate::str::contains(
            "its results count 15 (sample, epoch) records (`results.total_samples`), but it holds 8",
        ));
    // Without `results.total_samples`, the epochs of each listed sample are counted.
    inspect_log(d.path(), |log| {
        drop_failures(log);
        log["results"]
            .as_object_mut()
            .unwrap()
            .remove("total_samples");
    });
    ingest_inspect(d.path())
        .code(2)
        .stderr(predicate::str::contains(
            "with 5 epoch(s) of 3 sample(s) (`eval.config.epochs`, `eval.dataset.sample_ids`), but 7 \
             (sample, epoch) record(s) are missing (`refund` lacks 2, `cancel` lacks 5)",
        ));
    // The whole log is read as before.
    inspect_log(d.path(), |_| {});
    ingest_inspect(d.path())
        .code(1)
        .stdout(predicate::str::contains("agent_eval::lookup  PASS"));
}

#[test]
fn review7_c20_copy_of_a_run_with_its_test_cases_reordered_is_the_same_run() {
    // Before: the digest was over the records in file order, so a sorting merger's copy was a
    // second run.
    let d = tempfile::tempdir().unwrap();
    let a = "<testcase classname=\"t\" name=\"a\" time=\"0.011\"/>";
    let b = "<testcase classname=\"t\" name=\"b\" time=\"0.022\"/>";
    let run = |x: &str, y: &str| {
        format!(
            "<testsuites><testsuite name=\"s\" timestamp=\"2026-01-01T00:00:01\" hostname=\"h\">{x}{y}</testsuite></testsuites>\n"
        )
    };
    std::fs::write(d.path().join("run1.xml"), run(a, b)).unwrap();
    std::fs::write(d.path().join("copy.xml"), run(b, a)).unwrap();
    ingest(d.path(), &["run1.xml", "copy.xml"])
        .code(2)
        .stderr(predicate::str::contains(
            "the same run of the suite given twice",
        ));
}

#[test]
fn review7_c13_deepeval_case_with_a_failed_metric_and_no_success_is_refused() {
    // Before: `success: null` over a failed metric read as skipped: `refund` vanished, PASS.
    let d = tempfile::tempdir().unwrap();
    let case = |name: &str, i: u32, ok: bool| {
        serde_json::json!({
            "name": format!("test_agent[{name}-{i}-3]"), "input": name, "actualOutput": "x",
            "flaky": false, "runDuration": 0.01, "order": 0,
            "success": if ok { serde_json::Value::Bool(true) } else { serde_json::Value::Null },
            "metricsData": [{"name": "Done", "threshold": 1.0, "success": ok,
                "score": if ok { 1.0 } else { 0.0 }, "reason": "r", "strictMode": false, "flaky": false}],
        })
    };
    let cases: Vec<serde_json::Value> = (1..=3)
        .flat_map(|i| [case("lookup", i, true), case("refund", i, false)])
        .collect();
    let run = serde_json::json!({
        "testFile": "test_agent.py", "testCases": cases, "conversationalTestCases": [],
        "metricsScores": [], "testPassed": 3, "testFailed": 0, "runDuration": 1.0, "official": false,
    });
    std::fs::write(d.path().join("run.json"), run.to_string()).unwrap();
    ingest(d.path(), &["run.json"])
        .code(2)
        .stderr(predicate::str::contains(
            "has metric data but no `success` (null or absent)",
        ));
}

/// The repo's promptfoo results (60 rows, `--repeat 20`), edited by `edit`, as `results.json`.
fn promptfoo_results(dir: &std::path::Path, edit: impl Fn(&mut Vec<serde_json::Value>)) {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/evals/promptfoo/results.json"),
    )
    .unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    edit(doc["results"]["results"].as_array_mut().unwrap());
    std::fs::write(dir.join("results.json"), doc.to_string()).unwrap();
}

#[test]
fn review7_c18_promptfoo_gaps_and_success_over_a_failed_grade_are_not_passes() {
    // Before: both edits PASSed (the original FAILs).
    let d = tempfile::tempdir().unwrap();
    let failing = |r: &serde_json::Value| r["success"] == serde_json::Value::Bool(false);
    promptfoo_results(d.path(), |rows| rows.retain(|r| !failing(r)));
    ingest(d.path(), &["results.json"])
        .code(2)
        // Refused by its stats now (review 8, a06), before the gap check.
        .stderr(predicate::str::contains("rows were lost or removed"));
    promptfoo_results(d.path(), |rows| {
        for r in rows.iter_mut().filter(|r| failing(r)) {
            r["success"] = serde_json::Value::Bool(true);
        }
    });
    // Refused by its stats now (review 11, a15: more passing rows than `successes`).
    ingest(d.path(), &["results.json"])
        .code(2)
        .stderr(predicate::str::contains("of the file's rows pass"));
    // With the totals edited to match, the failed grades under `success: true` still FAIL.
    let path = d.path().join("results.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let stats = &mut doc["results"]["stats"];
    let moved = stats["failures"].as_u64().unwrap() + stats["errors"].as_u64().unwrap_or(0);
    stats["successes"] = (stats["successes"].as_u64().unwrap() + moved).into();
    stats["failures"] = 0.into();
    stats["errors"] = 0.into();
    std::fs::write(&path, doc.to_string()).unwrap();
    ingest(d.path(), &["results.json"]).code(1);
}

#[test]
fn review7_c37_inspect_epochs_read_from_the_model_cache_are_refused() {
    // Before: 15 epochs served from Inspect's cache were read as fresh trials, with no note.
    let d = tempfile::tempdir().unwrap();
    inspect_log(d.path(), |log| {
        for s in log["samples"].as_array_mut().unwrap() {
            s["events"].as_array_mut().unwrap().push(serde_json::json!({
                "event": "model", "model": "openai/gpt-4o", "cache": "read", "input": [],
                "output": {"model": "openai/gpt-4o", "choices": []},
            }));
        }
    });
    ingest_inspect(d.path())
        .code(2)
        .stderr(predicate::str::contains(
            "its model output was read from Inspect's cache",
        ));
}

/// Review 8, a04: the status check knew five failure words on two attributes, so
/// `status="timedOut"`, `outcome="Failed"`, `success="false"`, `result="Failed."` and a
/// `failed="1"` total were read as passes. Now a status-like word that is not a pass word
/// needs a failure child, and `failed` counts as `failures`.
#[test]
fn review8_a04_a_status_word_gate_does_not_know_is_not_a_pass() {
    for (attr, total) in [
        ("status=\"timedOut\"", ""),
        ("status=\"broken\"", ""),
        ("outcome=\"Failed\"", ""),
        ("success=\"false\"", ""),
        ("result=\"Failed.\"", ""),
        ("", " failed=\"1\""),
    ] {
        let d = tempfile::tempdir().unwrap();
        for k in 1..=3 {
            std::fs::write(
                d.path().join(format!("r{k}.xml")),
                format!(
                    "<testsuites><testsuite name=\"s\" timestamp=\"2026-01-01T00:00:0{k}\"{total}><testcase \
                     classname=\"t\" name=\"ok\"/><testcase classname=\"t\" name=\"bad\" {attr}/></testsuite></testsuites>\n"
                ),
            )
            .unwrap();
        }
        ingest(d.path(), &["r1.xml", "r2.xml", "r3.xml"]).code(2);
    }
    // The pass words of real writers still read as passes.
    let d = tempfile::tempdir().unwrap();
    for k in 1..=3 {
        std::fs::write(
            d.path().join(format!("r{k}.xml")),
            format!(
                "<testsuites><testsuite name=\"s\" timestamp=\"2026-01-01T00:00:0{k}\"><testcase classname=\"t\" \
                 name=\"ok\" status=\"run\"/><testcase classname=\"t\" name=\"ok2\" result=\"Pass\"/></testsuite></testsuites>\n"
            ),
        )
        .unwrap();
    }
    ingest(d.path(), &["r1.xml", "r2.xml", "r3.xml"]).code(0);
}

/// Review 8, a06: a promptfoo `results.json` cut at its tail leaves no `testIdx` gap, so the
/// rows of whole tests vanished and the rest PASSed; its own `results.stats` says how many
/// rows it wrote.
#[test]
fn review8_a06_promptfoo_rows_short_of_its_stats_are_refused() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/evals/promptfoo/results.json"),
    )
    .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["results"]["results"]
        .as_array_mut()
        .unwrap()
        .retain(|r| r["testIdx"].as_u64().unwrap() < 20);
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("results.json"), v.to_string()).unwrap();
    gate()
        .current_dir(d.path())
        .args([
            "ingest",
            "--healthy",
            "0.9",
            "--regressed",
            "0.5",
            "--assume-retries-off",
            "--ledger",
            "l.jsonl",
            "--no-step-summary",
            "--",
            "results.json",
        ])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "but its `results.stats` counts 60",
        ));
}

/// Review 8, a09: under `gate ingest --base`, a test base skipped in every run (or never had)
/// that fails in every head run was "new on head, not compared" and the gate PASSed. A case
/// only head records and that failed there is judged with no pair: INCONCLUSIVE.
#[test]
fn review8_a09_a_case_only_head_runs_and_fails_is_not_a_pass() {
    let d = tempfile::tempdir().unwrap();
    let a = "<testcase classname=\"t\" name=\"a\" time=\"0.1\"/>";
    for i in 1..=30 {
        for (side, x) in [
            (
                "base",
                "<testcase classname=\"t\" name=\"x\"><skipped/></testcase>",
            ),
            (
                "head",
                "<testcase classname=\"t\" name=\"x\"><failure message=\"boom\"/></testcase>",
            ),
        ] {
            std::fs::create_dir_all(d.path().join(side)).unwrap();
            std::fs::write(
                d.path().join(format!("{side}/r{i:02}.xml")),
                format!(
                    "<testsuites><testsuite name=\"s\" timestamp=\"2026-01-01T{}:{i:02}:00\">{a}{x}</testsuite></testsuites>\n",
                    if side == "base" { "01" } else { "02" }
                ),
            )
            .unwrap();
        }
    }
    let files =
        |side: &str| -> Vec<String> { (1..=30).map(|i| format!("{side}/r{i:02}.xml")).collect() };
    let out = crate::common::ingest_compare(
        d.path(),
        &["--odds-ratio", "3"],
        files("base"),
        files("head"),
    )
    .output()
    .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(text.contains("on head only and failing there"), "{text}");
    gate()
        .current_dir(d.path())
        .args(["verify", "l.jsonl"])
        .assert()
        .code(0);
}

#[test]
fn review8_a15_suite_case_skipped_in_every_run_is_named_and_not_a_pass() {
    // Before: `s/t::refund`, skipped in every suite run (code under test that raises
    // `SkipTest` every time), was listed nowhere — not in the terminal, JSON, Markdown or
    // JUnit report — and the gate PASSed on `s/t::ok` alone ("1 task").
    let f = Fixture::new(
        "version: 1\ntasks:\n  - id: s\n    suite:\n      run: sh suite.sh\n      assume_retries_off: true\n    sampling: {single: {n: 3, c: 0}}\n",
    );
    std::fs::write(
        f.path("suite.sh"),
        format!(
            "printf '<testsuites><testsuite name=\"s\" timestamp=\"T%s\"><testcase classname=\"t\" name=\"ok\"/>%s</testsuite></testsuites>' \"$GATE_TRIAL\" '{SKIPPED}' > \"$GATE_JUNIT\"\n"
        ),
    )
    .unwrap();
    let why = "skipped in every suite run";
    f.command(&["--json", "r.json", "--summary", "r.md", "--junit", "r.xml"])
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .code(3)
        .stdout(predicate::str::contains("s/t::refund  INCONCLUSIVE"))
        .stdout(predicate::str::contains(why))
        .stdout(predicate::str::contains("s/t::ok  PASS"))
        .stdout(predicate::str::contains("gate  INCONCLUSIVE"));
    for report in ["r.json", "r.md", "r.xml"] {
        let text = std::fs::read_to_string(f.path(report)).unwrap();
        assert!(
            text.contains("s/t::refund") && text.contains(why),
            "{report} names the case and why: {text}"
        );
    }
    // The ledger's own replay agrees: `gate verify` finds the case's decision row, and
    // `gate report` says the same.
    gate()
        .args(["verify"])
        .arg(f.ledger_path())
        .assert()
        .code(0);
    gate()
        .args(["report", "--no-step-summary"])
        .arg(f.ledger_path())
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .code(3)
        .stdout(predicate::str::contains("s/t::refund  INCONCLUSIVE"));
}
