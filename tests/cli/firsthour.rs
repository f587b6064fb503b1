//! The first hour of a new user (issue 20): the indifference zone stated wherever a plan is
//! shown, and the conventions this audience expects from test tools.

use predicates::prelude::*;

use crate::common::{Fixture, gate};
use gate::stats::{design, oc};

const PLAN_90_70: &str = "version: 1\nsampling:\n  design: {healthy: 90%, regressed: 70%}\ntasks:\n  - id: refund\n    run: \"true\"\n";

#[test]
fn check_states_the_indifference_zone_with_the_half_rate_from_the_exact_oc() {
    let f = Fixture::new(PLAN_90_70);
    gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "  zone       between 70% and 90% the verdict can go either way: at 80.0% it passes half the time\n",
        ));
    let out = gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml", "--format", "json"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let zone = &json["tasks"][0]["zone"];
    let half = zone["half"].as_f64().unwrap();
    // Recomputed from the closed-form binomial OC of (33, 6), not the lattice DP gate used.
    assert!(
        (oc::single_p_pass(33, 6, half) - 0.5).abs() < 1e-9,
        "{half}"
    );
    // Not the midpoint: at 80% the plan passes 50.04% of the time.
    assert!(half < 0.8);
    assert_eq!(zone["lo"].as_f64(), Some(0.7));
    assert_eq!(zone["hi"].as_f64(), Some(0.9));
}

#[test]
fn plan_offers_the_design_that_halves_the_zone_and_what_it_costs() {
    let out = gate()
        .args([
            "plan",
            "--healthy",
            "90%",
            "--regressed",
            "70%",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let n = &json["zone"]["narrower"];
    let want = design::design_single(0.9, 0.8, 0.05, 0.10).unwrap();
    assert_eq!(
        n["regressed"].as_f64().map(|r| (r * 1e9).round()),
        Some(0.8e9)
    );
    assert_eq!(n["single_n"].as_u64(), Some(want.n));
    assert_eq!(n["single_c"].as_u64(), Some(want.c));
    let asn = n["single_curtailed_asn_healthy"].as_f64().unwrap();
    assert!((asn - oc::curtailed_asn(want.n, want.c, 0.9)).abs() < 1e-9);
    assert!(
        n["sequential_asn_healthy"].as_f64().unwrap()
            > json["sequential"]["asn_healthy"].as_f64().unwrap()
    );
    let half = json["zone"]["sequential"]["half"].as_f64().unwrap();
    assert!(half > 0.7 && half < 0.9);

    gate()
        .args(["plan", "--healthy", "90%", "--regressed", "70%"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "  single plan      between 70% and 90% the verdict can go either way: at 80.0% it passes half the time\n",
        ))
        .stdout(predicate::str::contains(
            "to narrow it to 80%–90% at the same risks: a single plan of 109 trials",
        ));
}

#[test]
fn init_states_the_zone_of_the_plan_it_wrote() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("test_a.py"),
        "def test_a():\n    assert True\n",
    )
    .unwrap();
    gate()
        .current_dir(d.path())
        .arg("init")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "note: between 70% and 90% the verdict can go either way: at 80.0% it passes half the time\n",
        ));
}

#[test]
fn the_run_summary_states_the_zone_and_hides_the_score_vector_with_retries_off() {
    let f = Fixture::new(PLAN_90_70);
    f.run(&[])
        .success()
        .stdout(predicate::str::contains(
            "  zone       between 70% and 90% the verdict can go either way",
        ))
        .stdout(predicate::str::contains("within budget").not());
}

#[test]
fn the_score_vector_shows_when_a_task_reports_attempts_of_its_own() {
    let f = Fixture::new(
        "version: 1\nsampling:\n  single: {n: 3, c: 0}\ntasks:\n  - id: refund\n    run: \"echo '{\\\"attempts\\\": 2}' > $GATE_RESULT\"\n",
    );
    f.run(&[])
        .success()
        .stdout(predicate::str::contains(
            "  success    first-attempt 0.0% (0/3) · within budget 100.0% (3/3) · recovery 100.0% (3/3)\n             (3 graded trials retried inside the task",
        ));
}

/// The README quotes `gate verify`'s row count for `plans/examples/single.yaml`: it was 22 or
/// 23 depending on whether a parallel trial was still in flight at the decision.
#[test]
fn readme_verify_row_count_is_the_same_on_every_run() {
    let root = env!("CARGO_MANIFEST_DIR");
    for _ in 0..3 {
        let out = tempfile::tempdir().unwrap();
        let ledger = out.path().join("ledger.jsonl");
        gate()
            .current_dir(root)
            .args([
                "run",
                "plans/examples/single.yaml",
                "--quiet",
                "--no-step-summary",
                "--ledger",
            ])
            .arg(&ledger)
            .env_remove("GITHUB_STEP_SUMMARY")
            .assert()
            .success();
        gate()
            .arg("verify")
            .arg(&ledger)
            .assert()
            .success()
            .stdout(predicate::str::contains(": ok: 22 rows, hash chain intact"));
    }
}
