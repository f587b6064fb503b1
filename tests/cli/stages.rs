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
