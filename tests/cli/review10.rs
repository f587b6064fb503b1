//! Review 10's findings on suites, shards, readers and exec errors (issue 29/30): a compare
//! suite whose base skips a test head runs (a15), `gate report` over shards whose machines
//! skip a case in every run (a17), a suite case skipped in run 1 and run later (a10).
//!
//! The suites are scripts writing one JUnit file per run, each with a distinct `timestamp`
//! (the run's `$GATE_TRIAL`), so no run's evidence is another's.

use std::path::Path;

use predicates::prelude::*;

use crate::common::{Fixture, gate};

/// A compare suite `s`: head in `head/`, base in `base/` (siblings), both running `suite.sh`,
/// judged by a compare rule. `suite.sh` writes `t::a`, `t::b` (passing) and `t::e` as
/// `$E_HEAD` / `$E_BASE` says for the run (`fail`, `skip` or `pass`, by run: a word per run,
/// the last one for every later run).
fn compare_suite(e_head: &str, e_base: &str) -> Fixture {
    let f = Fixture::new(&format!(
        "version: 1\nbase:\n  cwd: base\n  env: {{E: \"{e_base}\"}}\ntasks:\n  - id: s\n    cwd: head\n    env: {{E: \"{e_head}\"}}\n    suite:\n      run: sh suite.sh\n      assume_retries_off: true\n    sampling:\n      compare: {{odds_ratio: 3, drop: 50%}}\n"
    ));
    for side in ["head", "base"] {
        std::fs::create_dir_all(f.path(side)).unwrap();
        std::fs::write(f.path(&format!("{side}/suite.sh")), SUITE).unwrap();
    }
    f
}

/// Cases `t::a`, `t::b` pass; `t::e` is the word of `$E` for this run (`$GATE_TRIAL`):
/// `fail`, `skip` or `pass`, the last word for every later run.
const SUITE: &str = r#"set -- $E; k=1; w=$1
while [ $k -lt "$GATE_TRIAL" ] && [ $# -gt 1 ]; do shift; k=$((k+1)); w=$1; done
{ printf '<testsuites><testsuite name="s" timestamp="2026-01-0%dT00:%02d:%02d">' ${SH:-1} $((GATE_TRIAL/60%60)) $((GATE_TRIAL%60))
  for c in a b; do printf '<testcase classname="t" name="%s" time="0.01"/>' $c; done
  case $w in
    fail) printf '<testcase classname="t" name="e" time="0.01"><failure message="regressed"/></testcase>';;
    skip) printf '<testcase classname="t" name="e"><skipped message="skipif"/></testcase>';;
    *) printf '<testcase classname="t" name="e" time="0.01"/>';;
  esac
  printf '</testsuite></testsuites>\n'; } > "$GATE_JUNIT"
"#;

fn verify(ledger: &Path) {
    gate().arg("verify").arg(ledger).assert().code(0);
}

#[test]
fn rev10_a15_a_test_base_skips_in_every_run_is_named_inconclusive_not_a_harness_error() {
    // Before: a test skipped on base in every run and run (failing) on head — a test that
    // head enables — made the whole suite a HARNESS ERROR saying base "lacks" `s/t::e`,
    // which base recorded (skipped).
    let f = compare_suite("fail", "skip");
    let why = "skipped on base in every suite run";
    f.command(&["--json", "r.json", "--summary", "r.md", "--junit", "r.xml"])
        .timeout(std::time::Duration::from_secs(240))
        .assert()
        .code(3)
        .stdout(predicate::str::contains("s/t::e  INCONCLUSIVE"))
        .stdout(predicate::str::contains(why))
        .stdout(predicate::str::contains("s/t::a  PASS"))
        .stdout(predicate::str::contains("HARNESS ERROR").not())
        .stdout(predicate::str::contains("gate  INCONCLUSIVE"));
    for report in ["r.json", "r.md", "r.xml"] {
        let text = std::fs::read_to_string(f.path(report)).unwrap();
        assert!(
            text.contains("s/t::e") && text.contains(why),
            "{report} names the case and why: {text}"
        );
    }
    verify(&f.ledger_path());
    gate()
        .args(["report", "--no-step-summary"])
        .arg(f.ledger_path())
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .code(3)
        .stdout(predicate::str::contains("s/t::e  INCONCLUSIVE"))
        .stdout(predicate::str::contains(why));
}

#[test]
fn rev10_a15_a_base_skip_in_run_1_only_never_cancels_heads_failures() {
    // Base skips `t::e` in run 1 only and runs it (passing) after; head fails it in runs
    // 1–3. Before: a HARNESS ERROR for the whole suite. Base's skip is no observation: pair
    // 1 has no base side, so `t::e` is judged up to that gap (nothing) and is never PASS.
    let f = compare_suite("fail fail fail pass", "skip pass");
    f.command(&[])
        .timeout(std::time::Duration::from_secs(240))
        .assert()
        .code(3)
        .stdout(predicate::str::contains("s/t::e  INCONCLUSIVE"))
        .stdout(predicate::str::contains("HARNESS ERROR").not());
    verify(&f.ledger_path());
}

/// A plain suite `s` judged by `sampling`, running `suite.sh` with `E` as given.
fn plain_suite(e: &str, sampling: &str) -> Fixture {
    let f = Fixture::new(&format!(
        "version: 1\ntasks:\n  - id: s\n    env: {{E: \"{e}\"}}\n    suite:\n      run: sh suite.sh\n      assume_retries_off: true\n    sampling: {sampling}\n"
    ));
    std::fs::write(f.path("suite.sh"), SUITE).unwrap();
    f
}

#[test]
fn rev10_a10_a_case_skipped_in_run_1_and_run_later_is_a_failed_trial_in_run_1() {
    // Before: a HARNESS ERROR naming the present case `s/t::e` "new". A skip in a run where
    // other cases ran is a failed trial (review 7, c35), in run 1 as in any later run.
    let f = plain_suite("skip pass", "{single: {n: 3, c: 0}}");
    f.command(&[])
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("s/t::e  FAIL"))
        .stdout(predicate::str::contains(
            "skipped in suite run #1, though a later run (#2) ran it",
        ))
        .stdout(predicate::str::contains("HARNESS ERROR").not());
    verify(&f.ledger_path());
    // Skipped in every run, it is still named and INCONCLUSIVE (review 8, a15).
    let f = plain_suite("skip", "{single: {n: 3, c: 0}}");
    f.command(&[])
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .code(3)
        .stdout(predicate::str::contains("s/t::e  INCONCLUSIVE"))
        .stdout(predicate::str::contains("skipped in every suite run"));
    verify(&f.ledger_path());
}

#[test]
fn rev10_a17_a_shard_whose_machine_skips_a_case_in_every_run_merges() {
    // Shard 1's machine runs `t::e` (it fails), shard 2's skips it in every run. Before:
    // `gate report` refused the two as "`t::e` the other lacks"; shard 2 recorded it.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("suite.sh"), SUITE).unwrap();
    std::fs::write(
        d.join("plan.yaml"),
        "version: 1\ntasks:\n  - id: s\n    suite:\n      run: sh suite.sh\n      assume_retries_off: true\n    sampling: {design: {healthy: 90%, regressed: 50%}}\n",
    )
    .unwrap();
    for (k, e) in [(1, "fail"), (2, "skip")] {
        gate()
            .current_dir(d)
            .args(["run", "plan.yaml", "--no-step-summary", "--shard"])
            .arg(format!("{k}/2"))
            .arg("--ledger")
            .arg(format!("out/l{k}.jsonl"))
            .env("E", e)
            .env("SH", k.to_string())
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY")
            .timeout(std::time::Duration::from_secs(240))
            .assert()
            .code(predicate::in_iter([0, 1, 3]));
    }
    let report = |ledgers: &[&str]| {
        let mut cmd = gate();
        cmd.current_dir(d)
            .args(["report", "--no-step-summary"])
            .args(ledgers)
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY");
        cmd.assert()
    };
    // Judged from shard 1's runs of it, which fail.
    report(&["out/l1.jsonl", "out/l2.jsonl"])
        .code(1)
        .stdout(predicate::str::contains("s/t::e  FAIL"))
        .stdout(predicate::str::contains("2 of 2 present (shards 1, 2)"));
    // Low: shard 2 alone (or twice) is one shard of two present, not "2 of 2".
    for ledgers in [&["out/l2.jsonl"][..], &["out/l2.jsonl", "out/l2.jsonl"]] {
        report(ledgers)
            .code(3)
            .stdout(predicate::str::contains(
                "1 of 2 present (shard 2); missing shard 1",
            ))
            .stdout(predicate::str::contains("2 of 2 present").not());
    }
}

/// Three gotestsum JUnit runs of package `example.com/p` (`TestA`, `TestB`), in the shape of
/// gotestsum's `internal/junitxml/report.go`: the package's `time` (`None`: no `time`
/// attribute) and each case's.
fn gotestsum_runs(dir: &Path, name: &str, package_time: Option<&str>, case_time: &str) {
    for k in 1..=3 {
        let time = package_time.map_or(String::new(), |t| format!(" time=\"{t}\""));
        std::fs::write(
            dir.join(format!("{name}-{k}.xml")),
            format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
                 <testsuites tests=\"2\" failures=\"0\" errors=\"0\" time=\"0.41{k}\">\n\
                 \t<testsuite tests=\"2\" failures=\"0\"{time} name=\"example.com/p\" timestamp=\"2026-01-01T00:00:0{k}Z\">\n\
                 \t\t<properties>\n\t\t\t<property name=\"go.version\" value=\"go1.22.1 linux/amd64\"></property>\n\t\t</properties>\n\
                 \t\t<testcase classname=\"example.com/p\" name=\"TestA\" time=\"{case_time}\"></testcase>\n\
                 \t\t<testcase classname=\"example.com/p\" name=\"TestB\" time=\"{case_time}\"></testcase>\n\
                 \t</testsuite>\n</testsuites>\n"
            ),
        )
        .unwrap();
    }
}

fn ingest3(dir: &Path, name: &str) -> assert_cmd::assert::Assert {
    let files: Vec<String> = (1..=3).map(|k| format!("{name}-{k}.xml")).collect();
    crate::common::ingest_files(dir, &format!("{name}.jsonl"), &files)
}

#[test]
fn rev10_a20_gotestsum_replays_with_package_time_0_001_or_all_cases_0_are_refused() {
    // Before: a package time of 0.001 s over cases of 0.12 s (test2json's conversion taking a
    // millisecond), and a package time of 0 over cases that all show 0.000, were read as
    // three fresh runs: PASS.
    let d = tempfile::tempdir().unwrap();
    gotestsum_runs(d.path(), "ms", Some("0.001"), "0.120");
    ingest3(d.path(), "ms")
        .code(2)
        .stderr(predicate::str::contains(
            "package `example.com/p` took 0.001 s (its `<testsuite>`'s `time`), less than its test `TestB`",
        ))
        .stderr(predicate::str::contains("go test -count=1"));
    gotestsum_runs(d.path(), "fast", Some("0.000"), "0.000");
    ingest3(d.path(), "fast")
        .code(2)
        .stderr(predicate::str::contains(
            "took no time (its `<testsuite>`'s `time` is 0) over its tests",
        ));
    // A fresh fast run (the package took a few ms, its tests 0.00 s) and a slow one are trials;
    // so is a file with no package `time` (nothing to check: docs/ingest.md says so).
    for (name, package, case) in [
        ("fresh_fast", Some("0.004"), "0.000"),
        ("fresh_slow", Some("0.250"), "0.120"),
        ("rounded", Some("0.118"), "0.120"),
        ("no_time", None, "0.120"),
    ] {
        gotestsum_runs(d.path(), name, package, case);
        ingest3(d.path(), name).code(0);
    }
}

#[test]
fn rev10_a06_a_script_whose_interpreter_is_missing_names_the_interpreter() {
    // Before: `cannot run `./bad.sh`: command not found` (argv form) and `run exited 127
    // (command not found)` (shell form), for a script that exists.
    for (run, said) in [
        (
            "[./bad.sh]",
            "cannot run `./bad.sh`: its `#!` interpreter `/nonexistent/interp` does not exist",
        ),
        (
            "./bad.sh",
            "run exited 127 (`./bad.sh`'s `#!` interpreter `/nonexistent/interp` does not exist)",
        ),
    ] {
        let f = Fixture::new(&format!(
            "version: 1\nsampling: {{single: {{n: 1, c: 0}}}}\ntasks:\n  - id: t\n    run: {run}\n"
        ));
        std::fs::write(f.path("bad.sh"), "#!/nonexistent/interp\nexit 0\n").unwrap();
        std::fs::set_permissions(
            f.path("bad.sh"),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        f.command(&[])
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .code(4)
            .stdout(predicate::str::contains(said));
    }
}

#[test]
fn rev10_a14_a_base_duplicate_names_its_one_sided_pair_not_909_unrecorded_ordinals() {
    // Base records `x` twice (a pass and a failure) in runs 1–10 of 20; head fails `x` in
    // runs 1–10. Before: INCONCLUSIVE (right), saying "909 ordinals not recorded (#31–939)"
    // for a 20-run ingest: the pairs past the last recorded, up to `max_pairs`, counted as
    // missing although consumption stopped at the one-sided pair.
    let d = tempfile::tempdir().unwrap();
    for side in ["base", "head"] {
        std::fs::create_dir_all(d.path().join(side)).unwrap();
        for k in 1..=20 {
            let x = match (side, k <= 10) {
                ("base", true) => {
                    "<testcase classname=\"t\" name=\"x\" time=\"0.1\"/><testcase classname=\"t\" name=\"x\"><failure message=\"y\"/></testcase>"
                }
                ("head", true) => {
                    "<testcase classname=\"t\" name=\"x\"><failure message=\"y\"/></testcase>"
                }
                _ => "<testcase classname=\"t\" name=\"x\" time=\"0.1\"/>",
            };
            std::fs::write(
                d.path().join(format!("{side}/run-{k:02}.xml")),
                format!(
                    "<testsuites><testsuite name=\"s\" timestamp=\"2026-01-01T00:{k:02}:00{}\"><testcase classname=\"t\" name=\"ok\" time=\"0.1\"/>{x}</testsuite></testsuites>",
                    if side == "head" { "Z" } else { "" }
                ),
            )
            .unwrap();
        }
    }
    let files = |side: &'static str| (1..=20).map(move |k| format!("{side}/run-{k:02}.xml"));
    crate::common::ingest_compare(
        d.path(),
        &["--odds-ratio", "3", "--drop", "0.5"],
        files("base"),
        files("head"),
    )
    .assert()
    .code(3)
    .stdout(predicate::str::contains("t::x  INCONCLUSIVE"))
    .stdout(predicate::str::contains("has one side only"))
    .stdout(predicate::str::contains("ordinals not recorded").not());
}
