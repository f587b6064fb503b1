//! The papercuts a new user met in the first hour (issue 32): rates written as bare
//! percentages, stage runs that continue, `gate ingest --base` with options after `--`,
//! `gate man --out-dir`, the words of a few messages, and the README's own commands.

use predicates::prelude::*;

use crate::common::{Fixture, gate};

#[test]
fn a_rate_given_as_90_suggests_90_percent_or_0_9() {
    gate()
        .args(["plan", "--healthy", "90", "--regressed", "70%"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "`--healthy` must be strictly between 0 and 1, got `90`; did you mean `90%` or `0.9`?",
        ));
    gate()
        .args([
            "plan",
            "--healthy",
            "90%",
            "--regressed",
            "70%",
            "--alpha",
            "5",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "got `5`; did you mean `5%` or `0.05`?",
        ));
}

#[test]
fn a_rate_given_as_0_9_percent_says_it_was_read_as_0_009() {
    gate()
        .args(["plan", "--healthy", "0.9%", "--regressed", "0.7%"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "warning: `--healthy` was read as 0.9% = 0.009; did you mean `90%`?",
        ))
        .stderr(predicate::str::contains(
            "warning: `--regressed` was read as 0.7% = 0.007; did you mean `70%`?",
        ));
    let f = Fixture::new(
        "version: 1\nsampling:\n  design: {healthy: 0.9%, regressed: 0.7%}\ntasks:\n  - id: t\n    run: \"true\"\n",
    );
    gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "warning: task `t`: `healthy` was read as 0.9% = 0.009; did you mean `90%`?",
        ));
    // A rate of 1% or more is read without a word.
    gate()
        .args(["plan", "--healthy", "90%", "--regressed", "70%"])
        .assert()
        .success()
        .stderr(predicate::str::contains("warning").not());
}

#[test]
fn a_bad_top_level_rate_is_blamed_on_the_top_level_sampling_not_a_task() {
    let f = Fixture::new(
        "version: 1\nsampling:\n  design: {healthy: 90, regressed: 70%}\ntasks:\n  - id: t\n    run: \"true\"\n",
    );
    gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "plan.yaml:3:3: the top-level `sampling`: `healthy` must be strictly between 0 and 1, got 90; did you mean `90%` or `0.9`?",
        ))
        .stderr(predicate::str::contains("task `t`").not());
}

const STAGED: &str = "version: 1\nsampling:\n  sequential: {healthy: 0.9, regressed: 0.7, alpha: 0.05, beta: 0.1, stage: 9}\ntasks:\n  - id: t\n    run: 'case $GATE_TRIAL in 3|5) exit 1;; esac'\n";

#[test]
fn a_task_undecided_after_a_stage_says_it_continues_not_trials_missing() {
    let f = Fixture::new(STAGED);
    f.run(&["--stage", "1", "--quiet", "--summary", "out/summary.md"])
        .code(5)
        .stdout(predicate::str::contains(
            "t  CONTINUE: undecided after stage 1 (9 graded trials, 2 failed); it continues in stage 2\n\
             gate  CONTINUE: no verdict after stage 1",
        ))
        .stdout(predicate::str::contains("trials missing").not());
    let md = std::fs::read_to_string(f.path("out/summary.md")).expect("summary");
    assert!(
        md.contains("### t — ⏩ CONTINUE\n\n> undecided after stage 1 (9 graded trials, 2 failed); it continues in stage 2"),
        "{md}"
    );
    assert!(!md.contains("trials missing"), "{md}");
}
