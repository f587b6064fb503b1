//! Review 9's attacks on a suite's family design (issue 30): a resume whose ledger ends
//! between the first run's case rows and the run's own row (which carries the design), for
//! plain suites, compare suites and shards (a06, a11, a25); shards whose machines collect
//! different test cases, merged by `gate report` (a12); and `gate check`'s statement of a
//! compare rule's risk above its alpha at a named rate (a17).
//!
//! The suites are scripts: cases `t::a`, `t::b`, `t::c` pass, `t::e` fails every run (on
//! head only, in a compare suite), and every run writes a distinct `timestamp` (a counter),
//! so no run's evidence is another's.

use std::path::Path;

use crate::common::gate;

/// A suite script: honours `$GATE_SUITE_CASES`; `NOE=1` (a machine that does not collect
/// it) leaves `t::e` out; `SIDE=head` (or no side) fails `t::e`.
const SUITE: &str = r#"n=$(cat .n 2>/dev/null || echo 0); n=$((n+1)); echo $n > .n
all="t::a t::b t::c t::e"
[ -n "$NOE" ] && all="t::a t::b t::c"
if [ -s "$GATE_SUITE_CASES" ]; then want=$(cat "$GATE_SUITE_CASES"); else want=$all; fi
{ printf '<testsuites><testsuite name="s" timestamp="2026-01-0%dT00:%02d:%02d">' ${SH:-1} $((n/60%60)) $((n%60))
  for id in $want; do c=${id#t::}
    if [ "$c" = e ] && [ "${SIDE:-head}" = head ]; then printf '<testcase classname="t" name="e"><failure message="regressed"/></testcase>'
    else printf '<testcase classname="t" name="%s" time="0.01"/>' "$c"; fi
  done; printf '</testsuite></testsuites>\n'; } > "$GATE_JUNIT"
"#;

/// A plain suite task `s` judged by `sampling`.
fn plain(dir: &Path, sampling: &str) {
    std::fs::write(dir.join("suite.sh"), SUITE).unwrap();
    std::fs::write(
        dir.join("gate.yaml"),
        format!(
            "version: 1\ntasks:\n  - id: s\n    suite:\n      run: sh suite.sh\n      assume_retries_off: true\n    sampling: {sampling}\n"
        ),
    )
    .unwrap();
}

/// A compare suite task `s`: head in `head/`, base in `base/`.
fn compare(dir: &Path) {
    for side in ["head", "base"] {
        std::fs::create_dir_all(dir.join(side)).unwrap();
        std::fs::write(dir.join(side).join("suite.sh"), SUITE).unwrap();
    }
    std::fs::write(
        dir.join("gate.yaml"),
        "version: 1\nbase:\n  cwd: base\n  env: {SIDE: base}\ntasks:\n  - id: s\n    cwd: head\n    env: {SIDE: head}\n    suite:\n      run: sh suite.sh\n      assume_retries_off: true\n    sampling:\n      compare: {odds_ratio: 3, drop: 50%}\n",
    )
    .unwrap();
}

fn gate_in(dir: &Path) -> assert_cmd::Command {
    let mut cmd = gate();
    cmd.current_dir(dir).env_remove("GITHUB_STEP_SUMMARY");
    cmd
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The first `lines` lines of ledger `from`, written to `to`: what an interruption leaves.
fn cut(from: &Path, to: &Path, lines: usize) {
    let text = std::fs::read_to_string(from).unwrap();
    let kept: String = text.lines().take(lines).map(|l| format!("{l}\n")).collect();
    std::fs::write(to, kept).unwrap();
}

/// The row kinds of a ledger's first lines, to pin where the cut falls.
fn kinds(path: &Path, lines: usize) -> Vec<(String, String)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .take(lines)
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["kind"].as_str().unwrap_or_default().to_string(),
                v["task"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// What a report says of the suite and its cases: the family risk, and each case's
/// (id, verdict, alpha, rule, run, failed).
fn family_and_cases(r: &serde_json::Value) -> (serde_json::Value, Vec<serde_json::Value>) {
    let cases = r["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            serde_json::json!([
                t["id"],
                t["verdict"],
                t["plan"]["alpha"],
                t["plan"]["description"],
                t["trials"]["run"],
                t["trials"]["failed"]
            ])
        })
        .collect();
    (r["suites"][0]["alpha"].clone(), cases)
}

/// The resumed ledger, its own report and `gate verify` agree with the uninterrupted run.
fn resumed_agrees(p: &Path, full: &serde_json::Value, ledger: &str, resumed: &str) {
    let (family, cases) = family_and_cases(full);
    assert!(family.as_f64().is_some_and(|a| a <= 0.05), "{full:#}");
    let r = json(&p.join(resumed));
    assert_eq!(
        family_and_cases(&r),
        (family.clone(), cases.clone()),
        "{r:#}"
    );
    gate_in(p)
        .args(["report", ledger, "--json", "replayed.json", "--quiet"])
        .assert()
        .code(1);
    assert_eq!(
        family_and_cases(&json(&p.join("replayed.json"))),
        (family, cases)
    );
    gate_in(p).args(["verify", ledger]).assert().success();
}

#[test]
fn rev9_a06_a_resume_cut_before_the_first_suite_row_keeps_the_family_design() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    plain(
        p,
        "{design: {healthy: 90%, regressed: 50%, rule: sequential}}",
    );
    gate_in(p)
        .args([
            "run",
            "--ledger",
            "full.jsonl",
            "--json",
            "full.json",
            "--quiet",
        ])
        .assert()
        .code(1);
    // The header and run 1's four case rows: the suite row with the design is cut off.
    cut(&p.join("full.jsonl"), &p.join("cut.jsonl"), 5);
    let rows = kinds(&p.join("full.jsonl"), 6);
    assert_eq!(rows[4], ("attempt".into(), "s/t::e".into()));
    assert_eq!(rows[5], ("attempt".into(), "s".into()));
    // The cut ledger's own report says why it has no design, not a false reason.
    let out = gate_in(p).args(["report", "cut.jsonl"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("no family design recorded: the ledger ends before the row of the suite run that fixed the test cases"),
        "{stdout}"
    );
    assert!(!stdout.contains("states no healthy rate"), "{stdout}");
    let out = gate_in(p)
        .args([
            "run",
            "--ledger",
            "cut.jsonl",
            "--resume",
            "--json",
            "resumed.json",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(!stdout.contains("states no healthy rate"), "{stdout}");
    assert!(stdout.contains("Šidák's share of 0.05"), "{stdout}");
    resumed_agrees(p, &json(&p.join("full.json")), "cut.jsonl", "resumed.json");
    // A cut inside run 1's case rows: run 1 runs again, every case it records is judged at
    // the family's share.
    cut(&p.join("full.jsonl"), &p.join("cut3.jsonl"), 3);
    gate_in(p)
        .args([
            "run",
            "--ledger",
            "cut3.jsonl",
            "--resume",
            "--json",
            "resumed3.json",
        ])
        .args(["--quiet"])
        .assert()
        .code(1);
    resumed_agrees(
        p,
        &json(&p.join("full.json")),
        "cut3.jsonl",
        "resumed3.json",
    );
}

#[test]
fn rev9_a11_a_compare_suite_resume_cut_before_the_first_suite_rows_keeps_the_family_design() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    compare(p);
    gate_in(p)
        .args([
            "run",
            "--ledger",
            "full.jsonl",
            "--json",
            "full.json",
            "--quiet",
        ])
        .assert()
        .code(1);
    // The header and run 1's eight case rows (both sides): both suite rows are cut off.
    cut(&p.join("full.jsonl"), &p.join("cut.jsonl"), 9);
    let rows = kinds(&p.join("full.jsonl"), 10);
    assert!(
        rows[1..9].iter().all(|(_, t)| t.starts_with("s/")),
        "{rows:?}"
    );
    assert_eq!(rows[9].1, "s");
    let out = gate_in(p)
        .args([
            "run",
            "--ledger",
            "cut.jsonl",
            "--resume",
            "--json",
            "resumed.json",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(!stdout.contains("states no healthy rate"), "{stdout}");
    resumed_agrees(p, &json(&p.join("full.json")), "cut.jsonl", "resumed.json");
}

#[test]
fn rev9_a25_a_resumed_shard_keeps_its_family_and_merges_with_a_whole_one() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    plain(p, "{design: {healthy: 90%, regressed: 50%}}");
    for (k, ledger) in [("1/2", "full1.jsonl"), ("2/2", "l2.jsonl")] {
        let out = gate_in(p)
            .env("SH", &k[..1])
            .args(["run", "--shard", k, "--ledger", ledger, "--quiet"])
            .args(["--json", &format!("{}.json", &ledger[..ledger.len() - 6])])
            .output()
            .unwrap();
        // `t::e` FAILs on each shard alone; the others await the other shard.
        assert_eq!(out.status.code(), Some(1), "{out:?}");
    }
    cut(&p.join("full1.jsonl"), &p.join("l1.jsonl"), 5);
    gate_in(p)
        .env("SH", "1")
        .args(["run", "--shard", "1/2", "--ledger", "l1.jsonl", "--resume"])
        .args(["--json", "l1.json", "--quiet"])
        .assert()
        .code(1);
    // The resumed shard judged its cases by the design of the whole one.
    let whole = json(&p.join("full1.json"));
    assert!(whole["suites"][0]["alpha"].as_f64().is_some(), "{whole:#}");
    assert_eq!(
        family_and_cases(&json(&p.join("l1.json"))),
        family_and_cases(&whole)
    );
    gate_in(p)
        .args(["report", "l1.jsonl", "l2.jsonl", "--json", "merged.json"])
        .args(["--quiet"])
        .assert()
        .code(1);
    gate_in(p)
        .args([
            "report",
            "full1.jsonl",
            "l2.jsonl",
            "--json",
            "merged_whole.json",
        ])
        .args(["--quiet"])
        .assert()
        .code(1);
    assert_eq!(
        family_and_cases(&json(&p.join("merged.json"))),
        family_and_cases(&json(&p.join("merged_whole.json")))
    );
}

#[test]
fn rev9_a12_shards_that_recorded_different_test_cases_are_not_merged() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    plain(p, "{design: {healthy: 90%, regressed: 50%}}");
    gate_in(p)
        .env("SH", "1")
        .args(["run", "--shard", "1/2", "--ledger", "l1.jsonl", "--quiet"])
        .assert()
        .code(1);
    // Shard 2's machine does not collect `t::e`: its family is 3 cases, shard 1's is 4.
    gate_in(p)
        .env("SH", "2")
        .env("NOE", "1")
        .args(["run", "--shard", "2/2", "--ledger", "l2.jsonl", "--quiet"])
        .assert()
        .code(0);
    let out = gate_in(p)
        .args(["report", "l1.jsonl", "l2.jsonl", "--quiet"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    for part in [
        "suite task `s`",
        "`l1.jsonl` records 4 test cases",
        "`l2.jsonl` records 3 test cases, lacking `t::e`",
        "Šidák's share of 0.05 over 4 cases",
        "over 3 cases",
        "the shards of one suite must record the same test cases",
    ] {
        assert!(stderr.contains(part), "{part:?} in {stderr}");
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
    // Each shard alone is one family, and verifies.
    for l in ["l1.jsonl", "l2.jsonl"] {
        gate_in(p).args(["verify", l]).assert().success();
    }
}

#[test]
fn rev9_a17_check_says_a_compare_rules_alpha_is_not_held_where_it_is_above() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    compare(p);
    std::fs::write(
        p.join("gate.yaml"),
        "version: 1\npolicy: {suite_alpha: 0.05}\nbase: {cwd: base}\ntasks:\n  - id: s\n    cwd: head\n    suite: {run: sh suite.sh, assume_retries_off: true}\n    sampling: {compare: {odds_ratio: 3}}\n  - id: p\n    run: \"true\"\n    sampling: {design: {healthy: 90%, regressed: 50%}}\n",
    )
    .unwrap();
    let out = gate_in(p).args(["check", "gate.yaml"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let at97 = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("at 97.0%"))
        .unwrap_or_else(|| panic!("an `at 97.0%` line in {stdout}"));
    // 0.0309 against the task's share 0.0253 of `policy.suite_alpha`.
    assert!(at97.contains("= 0.0309, above alpha 0.0253"), "{at97}");
    assert!(at97.contains("NOT held here"), "{at97}");
    // Where it holds, it says so.
    let at90 = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("at 90.0%"))
        .unwrap();
    assert!(
        at90.contains("within alpha") && !at90.contains("NOT held"),
        "{at90}"
    );
}

/// Review 10, a18: with a fixed `single:` rule (no family design), a ledger cut among run
/// 1's case rows (before the run's own row) could never be resumed: the re-run of run 1
/// was compared with the partial rows' case list ("recorded other test cases than the runs
/// before it"). The cases are fixed by the re-run, as for a lost design; the rows the
/// ledger holds still count.
#[test]
fn rev10_a18_a_resume_cut_among_the_first_runs_case_rows_completes() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    plain(p, "{single: {n: 3, c: 0}}");
    gate_in(p)
        .args(["run", "--ledger", "full.jsonl", "--quiet"])
        .assert()
        .code(1);
    for lines in [2, 3] {
        let name = format!("cut{lines}.jsonl");
        cut(&p.join("full.jsonl"), &p.join(&name), lines);
        let out = gate_in(p)
            .args(["run", "--ledger", &name, "--resume", "--quiet"])
            .output()
            .unwrap();
        // t::e fails every run: FAIL, never a harness error.
        assert_eq!(
            out.status.code(),
            Some(1),
            "cut after {lines} lines: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        gate_in(p).args(["verify", &name]).assert().code(0);
    }
}

/// Review 11, a06: a ledger cut after the first run's test-case rows (its run row lost) and
/// resumed re-runs that run; when a case kept as passing fails in the re-run, the re-run's
/// failure was dropped for the kept pass and the gate PASSed. Now the run is a harness
/// error naming the case (the ledger cannot hold both outcomes of one trial).
#[test]
fn rev11_a06_a_resumed_rerun_that_fails_a_case_kept_as_passing_is_a_harness_error() {
    // `t::e` fails on the calls of the suite listed in `.fails`.
    const FAILS_ON_LISTED_CALLS: &str = r#"n=$(cat .n 2>/dev/null || echo 0); n=$((n+1)); echo $n > .n
{ printf '<testsuites><testsuite name="s" timestamp="2026-01-01T00:00:%02d">' $n
  for c in a b; do printf '<testcase classname="t" name="%s" time="0.01"/>' $c; done
  if grep -qx $n .fails; then printf '<testcase classname="t" name="e"><failure message="regressed"/></testcase>'; else printf '<testcase classname="t" name="e" time="0.01"/>'; fi
  printf '</testsuite></testsuites>\n'; } > "$GATE_JUNIT"
"#;
    for (rule, fails) in [
        ("{single: {n: 3, c: 0}}", "2\n"),
        ("{design: {healthy: 90%, regressed: 30%}}", "2\n3\n4\n"),
    ] {
        let d = tempfile::tempdir().unwrap();
        let p = d.path();
        plain(p, rule);
        std::fs::write(p.join("suite.sh"), FAILS_ON_LISTED_CALLS).unwrap();
        std::fs::write(p.join(".fails"), fails).unwrap();
        // The first call passes every case: the full run's first run is all passes.
        gate_in(p)
            .args(["run", "--ledger", "full.jsonl", "--quiet"])
            .assert()
            .code(1);
        // Header and run 1's three test-case rows; its run row is lost. The next call of
        // the suite (call 2, the re-run of run 1) fails e.
        cut(&p.join("full.jsonl"), &p.join("cut.jsonl"), 4);
        assert_eq!(
            kinds(&p.join("cut.jsonl"), 4)
                .last()
                .map(|(k, t)| (k.as_str(), t.as_str())),
            Some(("attempt", "s/t::e"))
        );
        std::fs::write(p.join(".n"), "1\n").unwrap();
        let out = gate_in(p)
            .args(["run", "--ledger", "cut.jsonl", "--resume", "--quiet"])
            .output()
            .unwrap();
        let err = crate::common::both(&out);
        assert_eq!(out.status.code(), Some(4), "{rule}: {err}");
        assert!(
            err.contains("test case `s/t::e` is failing"),
            "{rule}: {err}"
        );
        // The ledger says why, and `gate verify` finds it sound.
        let report = gate_in(p).args(["report", "cut.jsonl"]).output().unwrap();
        assert_eq!(report.status.code(), Some(4), "{rule}");
        assert!(
            String::from_utf8_lossy(&report.stdout).contains("test case `s/t::e` is failing"),
            "{rule}"
        );
        gate_in(p).args(["verify", "cut.jsonl"]).assert().code(0);
    }
}

/// Review 12, a30: a test case decided, then skipped in later runs (a decided case's skip
/// writes no row) and run again in a later run: its row's ordinal outran the case's row
/// count, and `gate` refused its own ledger as forged ("trial #12 cannot have been run"),
/// exit 4 with no footer, `gate verify` BAD. A case's ordinals are bounded by its suite's runs.
#[test]
fn rev12_a30_a_decided_case_skipped_then_run_again_keeps_its_ledger_readable() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    // c2 fails in runs 1-3, is skipped until run 12, fails there; c3 fails every 3rd run.
    std::fs::write(
        p.join("s3.sh"),
        r#"t=$GATE_TRIAL
if [ $t -le 3 ] || [ $t = 12 ]; then c2='<failure message="f">x</failure>'; else c2='<skipped/>'; fi
c3=''; [ $((t % 3)) = 0 ] && c3='<failure message="g">y</failure>'
printf '<testsuites><testsuite name="s" tests="3" timestamp="2026-01-01T00:00:%02d"><testcase classname="m" name="c1"/><testcase classname="m" name="c2">%s</testcase><testcase classname="m" name="c3">%s</testcase></testsuite></testsuites>' "$t" "$c2" "$c3" > "$GATE_JUNIT"
"#,
    )
    .unwrap();
    let out = gate_in(p)
        .args([
            "suite",
            "--healthy",
            "90%",
            "--regressed",
            "50%",
            "--assume-retries-off",
            "--ledger",
            "l.jsonl",
            "--quiet",
            "--",
            "sh s3.sh",
        ])
        .output()
        .unwrap();
    let text = crate::common::both(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("suite/m::c2  FAIL"), "{text}");
    gate_in(p).args(["verify", "l.jsonl"]).assert().code(0);
    gate_in(p).args(["report", "l.jsonl"]).assert().code(1);
}
