//! Review 9 (issue 29), compare pairing and the readers: a head failure never vanishes from a
//! compare, a skip is no observation on base, promptfoo files cut short are refused, and
//! googletest's disabled tests are skips, other spellings of a JUnit failure are not passes. Each test is named after the attack it pins
//! (/work/scratch/rev9/REPORT.md).

use crate::common::gate;

/// One JUnit run file: test cases from `cases` (`(name, pattern char)`: `P` pass, `F` fail,
/// `S` skipped, `-` absent), a distinct timestamp per (side, run) so that no two runs are
/// one run given twice.
fn junit_run(side: &str, run: usize, cases: &[(&str, char)]) -> String {
    let mut xml = format!(
        "<testsuites><testsuite name=\"s\" timestamp=\"2026-01-01T{}:{:02}:{:02}\">",
        if side == "base" { "01" } else { "02" },
        run / 60,
        run % 60
    );
    for (name, c) in cases {
        match c {
            'P' => xml.push_str(&format!("<testcase classname=\"t\" name=\"{name}\"/>")),
            'F' => xml.push_str(&format!(
                "<testcase classname=\"t\" name=\"{name}\"><failure message=\"boom\"/></testcase>"
            )),
            'S' => xml.push_str(&format!(
                "<testcase classname=\"t\" name=\"{name}\"><skipped/></testcase>"
            )),
            _ => {}
        }
    }
    xml.push_str("</testsuite></testsuites>\n");
    xml
}

/// Writes `runs` files per side (`side/rNNN.xml`; base's count, head's), each from
/// `cases(side, run)` (run from 1), and runs `gate ingest --base … -- … --odds-ratio 3
/// extra…`; returns (exit code, output).
fn ingest_base(
    d: &std::path::Path,
    runs: (usize, usize),
    cases: impl Fn(&str, usize) -> Vec<(&'static str, char)>,
    extra: &[&str],
) -> (Option<i32>, String) {
    let count = |side: &str| if side == "base" { runs.0 } else { runs.1 };
    for side in ["base", "head"] {
        std::fs::create_dir_all(d.join(side)).unwrap();
        for r in 1..=count(side) {
            std::fs::write(
                d.join(format!("{side}/r{r:03}.xml")),
                junit_run(side, r, &cases(side, r)),
            )
            .unwrap();
        }
    }
    let files = |side: &str| -> Vec<String> {
        (1..=count(side))
            .map(|r| format!("{side}/r{r:03}.xml"))
            .collect()
    };
    let out = gate()
        .current_dir(d)
        .args([
            "ingest",
            "--odds-ratio",
            "3",
            "--assume-retries-off",
            "--ledger",
            "l.jsonl",
            "--no-step-summary",
        ])
        .args(extra)
        .arg("--base")
        .args(files("base"))
        .arg("--")
        .args(files("head"))
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), text)
}

/// `gate report` and `gate verify` of the ingest's ledger: the same verdict (exit code), and
/// every decision recomputes (review 9, a21).
fn replay_agrees(d: &std::path::Path, code: i32) {
    gate()
        .current_dir(d)
        .args(["report", "l.jsonl", "--no-step-summary"])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .code(code);
    gate()
        .current_dir(d)
        .args(["verify", "l.jsonl"])
        .assert()
        .code(0);
}

/// The ledger's attempt rows of task `task` on `side` with outcome `outcome`.
fn rows(d: &std::path::Path, task: &str, side: &str, outcome: &str) -> usize {
    std::fs::read_to_string(d.join("l.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| {
            l.contains("\"attempt\"")
                && l.contains(&format!("\"task\":\"{task}\""))
                && l.contains(&format!("\"side\":\"{side}\""))
                && l.contains(&format!("\"outcome\":\"{outcome}\""))
        })
        .count()
}

/// Review 9, a04: base skipped `t::x` in runs 1–50 where head failed it (head 50 %, base
/// 100 %): base's skip was a stand-in base *failure*, so each pair was (fail, fail) and head's
/// failures cancelled: `t::x PASS … 0 of 29 pairs`, exit 0. Base's skip is no observation: the
/// pair has head's side only, a gap no PASS is read across.
#[test]
fn rev9_a04_base_skip_where_head_fails_does_not_pass() {
    let d = tempfile::tempdir().unwrap();
    let (code, text) = ingest_base(
        d.path(),
        (100, 100),
        |side, r| {
            let x = match (side, r <= 50) {
                ("base", true) => 'S',
                ("head", true) => 'F',
                _ => 'P',
            };
            vec![("ok", 'P'), ("x", x)]
        },
        &[],
    );
    assert_eq!(code, Some(3), "{text}");
    assert!(!text.contains("t::x  PASS"), "{text}");
    assert!(
        text.contains("runs with no partner on the other side"),
        "{text}"
    );
    assert!(text.contains("no observation on base"), "{text}");
    // Head's 50 failures are in the ledger; base's skips are not base failures.
    assert_eq!(rows(d.path(), "t::x", "head", "fail"), 50, "{text}");
    assert_eq!(rows(d.path(), "t::x", "base", "fail"), 0, "{text}");
    replay_agrees(d.path(), 3);
}

/// Review 9, a04 (interleaved, and absent rather than skipped): base lacks `t::x` in odd runs,
/// head fails it there. Before: PASS.
#[test]
fn rev9_a04_base_missing_the_test_in_odd_runs_where_head_fails_does_not_pass() {
    let d = tempfile::tempdir().unwrap();
    let (code, text) = ingest_base(
        d.path(),
        (60, 60),
        |side, r| {
            let x = match (side, r % 2 == 1) {
                ("base", true) => '-',
                ("head", true) => 'F',
                _ => 'P',
            };
            vec![("ok", 'P'), ("x", x)]
        },
        &[],
    );
    assert_eq!(code, Some(3), "{text}");
    assert!(!text.contains("t::x  PASS"), "{text}");
    assert_eq!(rows(d.path(), "t::x", "head", "fail"), 30, "{text}");
    replay_agrees(d.path(), 3);
}

/// Review 9, a04/a19/a21: head's run file records `t::x` twice (passing, then failing: Jest's
/// two same-named tests, or a suite appended twice), base once, passing. The first record was
/// paired and the failing one dropped from the verdict and from the ledger: PASS, exit 0, where
/// plain `gate ingest` of the same head files FAILs. The second record is a pair with head's
/// side only: written to the ledger, and no PASS is read across it.
#[test]
fn rev9_a19_a_test_recorded_twice_in_a_head_run_keeps_its_failure() {
    let d = tempfile::tempdir().unwrap();
    let (code, text) = ingest_base(
        d.path(),
        (40, 40),
        |side, _| {
            if side == "head" {
                vec![("ok", 'P'), ("x", 'P'), ("x", 'F')]
            } else {
                vec![("ok", 'P'), ("x", 'P')]
            }
        },
        &[],
    );
    assert_eq!(code, Some(3), "{text}");
    assert!(!text.contains("t::x  PASS"), "{text}");
    assert!(
        text.contains("record #2 of the test in run file #1"),
        "{text}"
    );
    // a21: every failing record reaches the ledger.
    assert_eq!(rows(d.path(), "t::x", "head", "fail"), 40, "{text}");
    replay_agrees(d.path(), 3);
}

/// Review 9, a04/a21: head has 60 run files and base 30, and head fails `t::x` only in its
/// last 30, which have no base partner. That is after the compare rule decided (pair 29), so
/// the PASS stands (ordinary sequential stopping, as runs past a decision in plain ingest),
/// but those 30 failing records never reached the ledger: the audit evidence omitted them.
/// They are now written (excluded, not graded), and the replay agrees.
#[test]
fn rev9_a21_head_runs_without_a_base_partner_reach_the_ledger() {
    let d = tempfile::tempdir().unwrap();
    let (code, text) = ingest_base(
        d.path(),
        (30, 60),
        |side, r| match (side, r > 30) {
            ("head", true) => vec![("ok", 'P'), ("x", 'F')],
            _ => vec![("ok", 'P'), ("x", 'P')],
        },
        &[],
    );
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("t::x  PASS"), "{text}");
    assert_eq!(rows(d.path(), "t::x", "head", "fail"), 30, "{text}");
    replay_agrees(d.path(), 0);
}

/// Review 9, a08: a compare suite read base's `<skipped/>` of a case the runs before it ran as
/// a base *failure* (the c35 rule, right for head, applied to both sides), so it cancelled
/// head's real failure in that pair: head failing `e` in every even run while base skipped it
/// there gave `both fail` pairs and `s/t::e PASS`, exit 0. On base a skip can be neither a
/// failure nor nothing (which would drop head's failure): every pair needs both sides, so it
/// is a harness error naming base, as a case base's run lacks is.
#[test]
fn rev9_a08_a_base_skip_never_cancels_a_head_failure_in_a_compare_suite() {
    let f = crate::common::Fixture::new(
        "version: 1\nbase:\n  cwd: base\n  env: {SIDE: base}\ntasks:\n  - id: s\n    cwd: head\n    env: {SIDE: head}\n    suite:\n      run: sh suite.sh\n      assume_retries_off: true\n    sampling:\n      compare: {odds_ratio: 3, drop: 50%}\n",
    );
    // Even runs: base skips `e`, head fails it; odd runs: both pass it.
    let suite = r#"{ printf '<testsuites><testsuite name="s" timestamp="2026-01-01T00:%02d:%02d">' "$((GATE_TRIAL / 60 % 60))" "$((GATE_TRIAL % 60))"
  for c in a b; do printf '<testcase classname="t" name="%s"/>' "$c"; done
  case "$SIDE:$((GATE_TRIAL % 2))" in
    base:0) printf '<testcase classname="t" name="e"><skipped/></testcase>' ;;
    head:0) printf '<testcase classname="t" name="e"><failure message="x"/></testcase>' ;;
    *) printf '<testcase classname="t" name="e"/>' ;;
  esac
  printf '</testsuite></testsuites>\n'; } > "$GATE_JUNIT"
"#;
    for side in ["head", "base"] {
        std::fs::create_dir(f.path(side)).unwrap();
        std::fs::write(f.path(&format!("{side}/suite.sh")), suite).unwrap();
    }
    let out = f
        .command(&[])
        .timeout(std::time::Duration::from_secs(240))
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{text}");
    assert!(!text.contains("s/t::e  PASS"), "{text}");
    assert!(text.contains("base skipped test case `s/t::e`"), "{text}");
}

/// The repo's promptfoo `results.json` (3 tests × 20 repeats), edited by `edit`, written as
/// `name` in `dir`.
fn promptfoo_json(dir: &std::path::Path, name: &str, edit: impl Fn(&mut serde_json::Value)) {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/evals/promptfoo/results.json"),
    )
    .unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    edit(&mut doc);
    std::fs::write(dir.join(name), doc.to_string()).unwrap();
}

/// `gate ingest --single 3,0 --assume-retries-off -- FILES…` in `dir`.
fn ingest_single(dir: &std::path::Path, files: &[&str]) -> (Option<i32>, String) {
    let out = gate()
        .current_dir(dir)
        .args([
            "ingest",
            "--single",
            "3,0",
            "--assume-retries-off",
            "--ledger",
            "l.jsonl",
            "--no-step-summary",
            "--",
        ])
        .args(files)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), text)
}

/// Review 9, a03: the `results.stats` check ran only when `stats` was complete: a
/// `results.json` cut to its first 20 rows with `stats` removed, or with only `successes`
/// (each missing count read as 0), was accepted, and the cut one PASSed. Every results.json
/// promptfoo writes carries `stats` with `successes` and `failures`.
#[test]
fn rev9_a03_promptfoo_json_without_its_stats_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let cut = |doc: &mut serde_json::Value| {
        doc["results"]["results"]
            .as_array_mut()
            .unwrap()
            .retain(|r| r["testIdx"].as_u64().unwrap() < 20);
    };
    promptfoo_json(d.path(), "nostats.json", |doc| {
        cut(doc);
        doc["results"].as_object_mut().unwrap().remove("stats");
    });
    let (code, text) = ingest_single(d.path(), &["nostats.json"]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("nostats.json"), "{text}");
    assert!(text.contains("no `results.stats`"), "{text}");
    promptfoo_json(d.path(), "partial.json", |doc| {
        cut(doc);
        doc["results"]["stats"] = serde_json::json!({"successes": 38});
    });
    let (code, text) = ingest_single(d.path(), &["partial.json"]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("lacks its `failures` count"), "{text}");
    // An older promptfoo's stats without `errors` are still read.
    promptfoo_json(d.path(), "noerrors.json", |doc| {
        doc["results"]["stats"]
            .as_object_mut()
            .unwrap()
            .remove("errors");
    });
    let (code, text) = ingest_single(d.path(), &["noerrors.json"]);
    assert_eq!(code, Some(1), "{text}");
}

/// Review 9, a03: promptfoo's `.jsonl` has no totals and no closing line, and is streamed
/// while the eval runs, so a killed eval's file cut inside a test PASSed (or judged the short
/// test on fewer runs). A test with fewer rows than the others is refused; a cut exactly
/// between two tests cannot be seen (docs/ingest.md), and results.json is the format to gate on.
#[test]
fn rev9_a03_promptfoo_jsonl_cut_inside_a_test_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/evals/promptfoo/results.jsonl"),
    )
    .unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 60);
    // 45 rows: two whole tests and 5 of the third's 20.
    std::fs::write(d.path().join("cut.jsonl"), lines[..45].join("\n") + "\n").unwrap();
    let (code, out) = ingest_single(d.path(), &["cut.jsonl"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("cut.jsonl"), "{out}");
    assert!(
        out.contains("has 5 rows where other tests have 20"),
        "{out}"
    );
    // The whole file is still read (and FAILs, as its results.json does).
    std::fs::write(d.path().join("whole.jsonl"), &text).unwrap();
    let (code, out) = ingest_single(d.path(), &["whole.jsonl"]);
    assert_eq!(code, Some(1), "{out}");
}

/// Three JUnit runs, each with a passing `t::ok` and the record `bad` given, as `rK.xml`.
fn junit_runs(dir: &std::path::Path, bad: &str) {
    for k in 1..=3 {
        std::fs::write(
            dir.join(format!("r{k}.xml")),
            format!(
                "<testsuites><testsuite name=\"s\" timestamp=\"2026-01-01T00:00:0{k}\"><testcase \
                 classname=\"t\" name=\"ok\"/>{bad}</testsuite></testsuites>\n"
            ),
        )
        .unwrap();
    }
}

/// Review 9, a01/a16: googletest writes a `DISABLED_` test as `status="notrun"
/// result="suppressed"` (gtest.cc `OutputXmlTestInfo`; `status="notrun"` alone before 1.10)
/// with no child, and every googletest file with one was refused (exit 2). It is a skipped
/// test: not a pass, not a failure, and the file's other tests are judged.
#[test]
fn rev9_a16_googletest_disabled_test_is_a_skip_not_a_refusal() {
    for disabled in [
        "<testcase name=\"DISABLED_Slow\" file=\"m.cc\" line=\"9\" status=\"notrun\" result=\"suppressed\" time=\"0\" timestamp=\"2026-01-01T00:00:00.000\" classname=\"t\"/>",
        "<testcase name=\"DISABLED_Slow\" status=\"notrun\" time=\"0\" classname=\"t\"/>",
    ] {
        let d = tempfile::tempdir().unwrap();
        junit_runs(
            d.path(),
            &format!(
                "{disabled}<testcase name=\"Divides\" status=\"run\" result=\"completed\" classname=\"t\"><failure message=\"m.cc:3\"/></testcase>"
            ),
        );
        let (code, text) = ingest_single(d.path(), &["r1.xml", "r2.xml", "r3.xml"]);
        // The real failure is judged; the disabled test is no task.
        assert_eq!(code, Some(1), "{text}");
        assert!(text.contains("t::Divides  FAIL"), "{text}");
        assert!(!text.contains("t::DISABLED_Slow  PASS"), "{text}");
    }
}

/// Review 9, a01: a failure said by another attribute name (`state=`, `verdict=`, `Status=`,
/// `passed="false"`, `failed="true"`) on a childless `<testcase>` read as a pass. Status-like
/// attribute names are read in any case, and an unknown word is refused.
#[test]
fn rev9_a01_failure_said_by_other_attribute_names_is_not_a_pass() {
    for attr in [
        "Status=\"fail\"",
        "state=\"failed\"",
        "verdict=\"fail\"",
        "passed=\"false\"",
        "failed=\"true\"",
        "STATUS=\"passed\" Outcome=\"Failed\"",
        "status=\"failed\" result=\"skipped\"",
    ] {
        let d = tempfile::tempdir().unwrap();
        junit_runs(
            d.path(),
            &format!("<testcase classname=\"t\" name=\"bad\" {attr}/>"),
        );
        let (code, text) = ingest_single(d.path(), &["r1.xml", "r2.xml", "r3.xml"]);
        assert_eq!(code, Some(2), "{attr}: {text}");
        assert!(!text.contains("t::bad  PASS"), "{attr}: {text}");
    }
    // Pass spellings under those names still read as passes.
    let d = tempfile::tempdir().unwrap();
    junit_runs(
        d.path(),
        "<testcase classname=\"t\" name=\"a\" State=\"passed\"/><testcase classname=\"t\" name=\"b\" passed=\"true\" failed=\"false\"/>",
    );
    let (code, text) = ingest_single(d.path(), &["r1.xml", "r2.xml", "r3.xml"]);
    assert_eq!(code, Some(0), "{text}");
}

/// Review 9, a24: a `<failure>`/`<error>` one level below the `<testcase>`, inside a wrapper
/// child, read as a pass (only direct children were read). It is the test's failure.
#[test]
fn rev9_a24_a_failure_nested_inside_a_testcase_is_a_failure() {
    for bad in [
        "<testcase classname=\"t\" name=\"x\"><result><failure message=\"broken\"/></result></testcase>",
        "<testcase classname=\"t\" name=\"x\"><steps><step name=\"1\"><error/></step></steps></testcase>",
    ] {
        let d = tempfile::tempdir().unwrap();
        junit_runs(d.path(), bad);
        let (code, text) = ingest_single(d.path(), &["r1.xml", "r2.xml", "r3.xml"]);
        assert_eq!(code, Some(1), "{bad}: {text}");
        assert!(text.contains("t::x  FAIL"), "{bad}: {text}");
    }
}

/// Review 11, a15: `results.stats` was checked for the number of rows only, so a failing row
/// flipped to `success: true` (or replaced by a copy of a passing row) kept the count and
/// the file read as passing. More passing rows than the file's own `successes` is refused.
#[test]
fn rev11_a15_promptfoo_rows_passing_beyond_the_files_own_successes_are_refused() {
    let d = tempfile::tempdir().unwrap();
    promptfoo_json(d.path(), "flipped.json", |doc| {
        let rows = doc["results"]["results"].as_array_mut().unwrap();
        let failing = rows
            .iter_mut()
            .find(|r| r["success"] == serde_json::json!(false))
            .expect("the fixture has a failing row");
        failing["success"] = serde_json::json!(true);
    });
    let (code, text) = ingest_single(d.path(), &["flipped.json"]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("flipped.json"), "{text}");
    assert!(
        text.contains("of the file's rows pass, but its `results.stats` counts"),
        "{text}"
    );
    // The file as promptfoo wrote it is read.
    promptfoo_json(d.path(), "asis.json", |_| {});
    let (code, text) = ingest_single(d.path(), &["asis.json"]);
    assert_ne!(code, Some(2), "{text}");
}
