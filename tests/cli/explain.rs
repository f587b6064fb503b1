//! `gate explain`: the published retry table, the JSON contract, the comparison, errors.

use crate::common::{gate, json_of};
use predicates::prelude::*;
use serde_json::Value;

fn explain_json(args: &[&str]) -> Value {
    json_of("explain", args)
}

#[test]
fn two_retries_json_is_pass_at_three() {
    let v = explain_json(&["--retries", "2"]);
    assert_eq!(v["retries"], 2);
    assert_eq!(v["attempts"], 3);
    assert_eq!(v["measures"], "pass@3");
    assert_eq!(v["equivalent_plan"]["n"], 3);
    assert_eq!(v["equivalent_plan"]["c"], 2);
    assert!(v["comparison"].is_null());
    let rows = v["rows"].as_array().expect("rows");
    let rates: Vec<f64> = rows
        .iter()
        .map(|r| r["rate"].as_f64().expect("rate"))
        .collect();
    assert_eq!(rates, [0.95, 0.9, 0.8, 0.7, 0.6, 0.5]);
    for r in rows {
        let p = r["rate"].as_f64().expect("rate");
        let gate = r["p_gate_passes"].as_f64().expect("number");
        let all = r["pass_hat_k"].as_f64().expect("number");
        assert!((gate - (1.0 - (1.0 - p).powi(3))).abs() < 1e-15);
        assert!((all - p.powi(3)).abs() < 1e-15);
    }
    // The article's figures: 60% -> 93.6%, 90% -> 99.9%.
    assert!((rows[4]["p_gate_passes"].as_f64().expect("n") - 0.936).abs() < 1e-12);
    assert!((rows[1]["p_gate_passes"].as_f64().expect("n") - 0.999).abs() < 1e-12);
}

#[test]
fn comparison_json_sits_beside_the_designed_plan() {
    let v = explain_json(&["--retries", "2", "--healthy", "0.9", "--regressed", "0.7"]);
    let c = &v["comparison"];
    assert_eq!(c["retry_gate"]["n"], 3);
    assert_eq!(c["retry_gate"]["c"], 2);
    assert!((c["retry_gate"]["p_pass_regressed"].as_f64().expect("n") - 0.973).abs() < 1e-12);
    assert_eq!(c["plan"]["n"], 33);
    assert_eq!(c["plan"]["c"], 6);
    assert!(c["plan"]["p_pass_regressed"].as_f64().expect("n") <= 0.1);
}

#[test]
fn text_two_retries() {
    let out = gate()
        .args(["explain", "--retries", "2"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    // The published table, cell for cell.
    for cell in [
        "99.99%", "99.9%", "99.2%", "97.3%", "93.6%", "87.5%", "85.7%", "72.9%", "51.2%", "34.3%",
        "21.6%", "12.5%",
    ] {
        assert!(text.contains(cell), "missing {cell}");
    }
    assert!(text.contains("it accepts even when 2 of 3 sampled"));
    insta::assert_snapshot!("explain_2", text);
}

#[test]
fn text_with_comparison() {
    let out = gate()
        .args([
            "explain",
            "--retries",
            "2",
            "--healthy",
            "0.9",
            "--regressed",
            "0.7",
        ])
        .output()
        .expect("runs");
    assert!(out.status.success());
    insta::assert_snapshot!(
        "explain_2_vs_plan",
        String::from_utf8(out.stdout).expect("utf-8")
    );
}

#[test]
fn zero_retries_is_pass_at_one() {
    let v = explain_json(&["--retries", "0"]);
    assert_eq!(v["measures"], "pass@1");
    assert_eq!(v["equivalent_plan"]["c"], 0);
    gate()
        .args(["explain", "--retries", "0"])
        .assert()
        .success()
        .stdout(predicate::str::contains("(n = 1, c = 0)"));
}

#[test]
fn bad_values_exit_two() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--retries", "101"],
            "`--retries` must be between 0 and 100, got `101`",
        ),
        (
            &["--retries", "18446744073709551615"],
            "`--retries` must be between 0 and 100",
        ),
        (
            &["--retries", "-1"],
            "invalid value '-1' for '--retries <RETRIES>'",
        ),
        (
            &["--retries", "2", "--healthy", "0.7", "--regressed", "0.9"],
            "`--healthy` (0.7) must be greater than `--regressed` (0.9)",
        ),
        (
            &["--retries", "2", "--healthy", "1.5", "--regressed", "0.9"],
            "`--healthy` must be strictly between 0 and 1, got `1.5`",
        ),
        (
            &[
                "--retries",
                "2",
                "--healthy",
                "0.9",
                "--regressed",
                "0.7",
                "--alpha",
                "0.7",
            ],
            "`--alpha` must be at least 0.000001 (one in a million) and below 0.5, got `0.7`",
        ),
        (&["--retries", "2", "--healthy", "0.9"], "--regressed"),
    ];
    for (args, message) in cases {
        let out = gate().arg("explain").args(*args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(!err.contains("panicked"));
    }
}

/// `gate explain --retries 100`: pass@101 at 50% is 1 - 0.5^101, which is 1.0 in floating
/// point but not a certainty; it must never read 100%.
#[test]
fn retries_100_never_rounds_pass_at_101_up_to_100_percent() {
    let out = crate::common::gate()
        .args(["explain", "--retries", "100"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(text.contains("> 99.99%"), "{text}");
    assert!(!text.contains("100.0%"), "{text}");
}
