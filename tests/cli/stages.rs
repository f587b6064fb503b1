//! Staged (group-sequential) rules: `gate plan --stage`, `stage:` in plan files, sharded
//! stages merged by `gate report`, and a Monte Carlo of real staged runs.

use crate::common::json_of;
use gate::stats::lattice::Boundaries;
use gate::stats::staged;
use serde_json::Value;

fn f(v: &Value) -> f64 {
    v.as_f64().expect("a number")
}

/// The staged rule's published stage-end rows as a lattice (every other row continues).
fn staged_lattice(v: &Value) -> Boundaries {
    let st = &v["staged"];
    let m = st["max_trials"].as_u64().unwrap();
    let rows: Vec<(u64, Option<u64>, Option<u64>)> = st["lattice"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["trials"].as_u64().unwrap(),
                r["pass_max_failures"].as_u64(),
                r["fail_min_failures"].as_u64(),
            )
        })
        .collect();
    Boundaries::from_fn(m, |t| {
        rows.iter()
            .find(|r| r.0 == t)
            .map_or((None, None), |r| (r.1, r.2))
    })
    .unwrap()
}

#[test]
fn plan_stage_publishes_trials_stages_and_oc_of_its_own_lattice() {
    let v = json_of(
        "plan",
        &["--healthy", "0.9", "--regressed", "0.7", "--stage", "9"],
    );
    let st = &v["staged"];
    assert_eq!(
        (st["stage"].as_u64(), st["rule"].as_str()),
        (Some(9), Some("calibrated"))
    );
    assert_eq!(st["max_stages"], 8);
    assert!(f(&st["realised_alpha"]) <= 0.05 && f(&st["realised_beta"]) <= 0.10);
    // Every figure recomputes from the published stage-end rows.
    let b = staged_lattice(&v);
    assert!(staged::is_staged(&b, 9));
    let h = b.oc(0.9);
    assert!((h.asn - f(&st["trials_healthy"])).abs() < 1e-9);
    assert!((staged::expected_stages(&b, 9, 0.7) - f(&st["stages_regressed"])).abs() < 1e-9);
    // Fewer rounds than one trial at a time, fewer trials than the single plan.
    assert!(f(&st["stages_healthy"]) < f(&st["sequential_trials_healthy"]) / 4.0);
    assert!(f(&st["trials_healthy"]) < f(&st["single_trials_healthy"]));
    for row in st["oc"].as_array().unwrap() {
        let oc = b.oc(f(&row["p"]));
        assert!((oc.p_pass - f(&row["p_pass"])).abs() < 1e-12);
    }
    // Without --stage there is no staged section.
    let v = json_of("plan", &["--healthy", "0.9", "--regressed", "0.7"]);
    assert!(v["staged"].is_null());
}

#[test]
fn plan_stage_with_too_few_stages_says_which_flag_to_raise() {
    crate::common::gate()
        .args([
            "plan",
            "--healthy",
            "0.9",
            "--regressed",
            "0.7",
            "--stage",
            "4",
            "--max-stages",
            "2",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("raise `--max-stages`"));
}

const STAGED: &str = "version: 1\nsampling:\n  sequential: {healthy: 0.9, regressed: 0.7, alpha: 0.05, beta: 0.1, stage: 9}\ntasks:\n  - id: t\n    run: 'case $GATE_TRIAL in 3|14) exit 1;; esac'\n";

/// `gate run --stage S --shard K/3` into `out/sS-K.jsonl`; a stage's shard exits 0.
fn run_shard(fx: &crate::common::Fixture, stage: u64, k: u64) -> std::path::PathBuf {
    let ledger = fx.path(&format!("out/s{stage}-{k}.jsonl"));
    crate::common::gate()
        .current_dir(fx.dir.path())
        .args(["run", "plan.yaml", "--no-step-summary", "--ledger"])
        .arg(&ledger)
        .args(["--stage", &stage.to_string(), "--shard", &format!("{k}/3")])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .code(0);
    ledger
}

/// `gate report LEDGERS --json -`: (exit code, JSON, stderr).
fn report(fx: &crate::common::Fixture, ledgers: &[std::path::PathBuf]) -> (i32, Value, String) {
    let out = crate::common::gate()
        .current_dir(fx.dir.path())
        .args(["report", "--no-step-summary", "--json", "-"])
        .args(ledgers)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.code().unwrap(),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn sharded_stages_continue_then_decide_and_refuse_what_is_not_a_run() {
    let fx = crate::common::Fixture::new(STAGED);
    let stage1: Vec<_> = (1..=3).map(|k| run_shard(&fx, 1, k)).collect();
    // Trial 3 failed: 1 failure in 9 is neither PASS (0) nor FAIL (4): continue.
    let (code, v, _) = report(&fx, &stage1);
    assert_eq!(code, 5, "{v}");
    assert_eq!(v["decision"], "CONTINUE");
    assert_eq!(v["verdict"], "INCONCLUSIVE");
    assert_eq!(
        (
            v["stages"]["through"].as_u64(),
            v["stages"]["next"].as_u64()
        ),
        (Some(1), Some(2))
    );

    // A stage with a shard missing is refused, naming it.
    let (code, _, err) = report(&fx, &stage1[..2]);
    assert_eq!(code, 2);
    assert!(err.contains("stage 1 is missing shard 3/3"), "{err}");

    let stage2: Vec<_> = (1..=3).map(|k| run_shard(&fx, 2, k)).collect();
    let all: Vec<_> = stage1.iter().chain(&stage2).cloned().collect();
    // 2 failures in 18 is within the PASS bound at the second stage end.
    let (code, v, _) = report(&fx, &all);
    assert_eq!((code, v["decision"].as_str()), (0, Some("PASS")), "{v}");
    assert_eq!(v["stages"]["decided_in"], 2);
    assert!(v["stages"]["next"].is_null());
    assert_eq!(v["tasks"][0]["trials"]["graded"], 18);
    // The estimate is stopping-aware for the staged rule.
    assert_eq!(v["tasks"][0]["pass_rate"]["method"], "stagewise");

    // Stage 2 without stage 1 is no run.
    let (code, _, err) = report(&fx, &stage2);
    assert_eq!(code, 2);
    assert!(err.contains("stage 1 is missing"), "{err}");

    // A stage run after the decision is refused.
    let late = run_shard(&fx, 3, 1);
    let mut more = all.clone();
    more.extend([late, fx.path("out/s3-2.jsonl"), fx.path("out/s3-3.jsonl")]);
    run_shard(&fx, 3, 2);
    run_shard(&fx, 3, 3);
    let (code, _, err) = report(&fx, &more);
    assert_eq!(code, 2);
    assert!(
        err.contains("ran after the rule decided in stage 2"),
        "{err}"
    );

    // The same shard of a stage from two runs is refused.
    let again = fx.path("out/again.jsonl");
    std::fs::copy(&stage1[0], fx.path("out/keep.jsonl")).unwrap();
    crate::common::gate()
        .current_dir(fx.dir.path())
        .args(["run", "plan.yaml", "--no-step-summary", "--ledger"])
        .arg(&again)
        .args(["--stage", "1", "--shard", "1/3"])
        .env_remove("GITHUB_ACTIONS")
        .assert()
        .code(0);
    let mut dup = stage1.clone();
    dup.push(again);
    let (code, _, err) = report(&fx, &dup);
    assert_eq!(code, 2);
    assert!(err.contains("shard 1/3 is given twice"), "{err}");
}

#[test]
fn a_stage_shard_alone_is_a_partial_view_without_annotations() {
    let fx = crate::common::Fixture::new(STAGED);
    let ledger = fx.path("out/s2-1.jsonl");
    let out = crate::common::gate()
        .current_dir(fx.dir.path())
        .args(["run", "plan.yaml", "--no-step-summary", "--ledger"])
        .arg(&ledger)
        .args(["--stage", "2", "--shard", "1/3"])
        .env("GITHUB_ACTIONS", "true")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("INCONCLUSIVE for now: stage 2, shard 1/3 of a staged run"),
        "{stdout}"
    );
    assert!(!stdout.contains("::warning"), "{stdout}");
    // Its ordinals are stage 2's share: 10, 13, 16.
    let l = gate::ledger::Ledger::read(&ledger).unwrap();
    let trials: Vec<u64> = crate::common::attempts(&l)
        .iter()
        .map(|a| a.trial)
        .collect();
    assert_eq!(trials, vec![10, 13, 16]);
}

#[test]
fn stage_flags_are_refused_where_they_cannot_apply() {
    let fx = crate::common::Fixture::new(STAGED);
    // 72 trials in stages of 9, and one more stage for the unavailable budget of 8.
    fx.command(&["--stage", "10"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("runs stages 1 to 9"));
    fx.command(&["--stage", "1", "--shard", "1/10"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("more shards than trials"));
    let single = crate::common::Fixture::new(
        "version: 1\nsampling:\n  single: {n: 5, c: 1}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    single
        .command(&["--stage", "1"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("has no staged rule"));
}
