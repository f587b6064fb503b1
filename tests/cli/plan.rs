//! `gate plan`: the JSON contract, the text (snapshots), the SVG chart and flag errors.

use crate::common::{gate, json_of};
use predicates::prelude::*;
use serde_json::Value;

fn plan_json(args: &[&str]) -> Value {
    json_of("plan", args)
}

fn f(v: &Value) -> f64 {
    v.as_f64().expect("a number")
}

#[test]
fn json_contract_at_ninety_vs_seventy() {
    let v = plan_json(&["--healthy", "0.90", "--regressed", "0.70", "--rule", "wald"]);
    assert_eq!((f(&v["healthy"]), f(&v["regressed"])), (0.9, 0.7));
    assert_eq!((f(&v["alpha"]), f(&v["beta"])), (0.05, 0.1));
    let s = &v["single"];
    assert_eq!(s["n"], 33);
    assert_eq!(s["c"], 6);
    assert_eq!(s["min_successes"], 27);
    // Exact binomial sums, recomputed with rational arithmetic outside this project.
    assert!((f(&s["p_pass_healthy"]) - 0.958_296_152_162_173_6).abs() < 1e-14);
    assert!((f(&s["p_pass_regressed"]) - 0.094_445_500_092_211_57).abs() < 1e-14);
    assert!(f(&s["curtailed_asn_healthy"]) < 33.0 && f(&s["curtailed_asn_regressed"]) < 33.0);
    let q = &v["sequential"];
    assert_eq!(q["max_trials"], 66);
    assert!((f(&q["accept_llr"]) - (0.1f64 / 0.95).ln()).abs() < 1e-15);
    assert!((f(&q["reject_llr"]) - (0.9f64 / 0.05).ln()).abs() < 1e-15);
    for side in ["healthy", "regressed"] {
        let total = f(&q[format!("p_pass_{side}")])
            + f(&q[format!("p_fail_{side}")])
            + f(&q[format!("p_inconclusive_{side}")]);
        assert!((total - 1.0).abs() < 1e-12, "{side}: {total}");
    }
    assert!(f(&q["asn_max"]) >= f(&q["asn_healthy"]) && f(&q["asn_max"]) >= f(&q["asn_regressed"]));
    let oc = v["oc"].as_array().expect("oc rows");
    assert!(oc.len() >= 5);
    let ps: Vec<f64> = oc.iter().map(|r| f(&r["p"])).collect();
    assert!(ps.contains(&0.9) && ps.contains(&0.7));
    for row in oc {
        for key in ["single_p_pass", "sequential_p_pass", "sequential_asn"] {
            assert!(row[key].is_number(), "oc row lacks {key}");
        }
    }
    // OC rows at the two rates agree with the plan summaries.
    let at = |p: f64| {
        oc.iter()
            .find(|r| f(&r["p"]) == p)
            .expect("rate on the grid")
    };
    assert_eq!(at(0.9)["single_p_pass"], s["p_pass_healthy"]);
    assert_eq!(at(0.7)["sequential_p_pass"], q["p_pass_regressed"]);
}

#[test]
fn published_plans_are_what_the_design_rejects_or_accepts() {
    // The article's (20, >= 16) plan passes a 70% agent 23.8% of the time: with beta 0.25 it
    // is feasible, and the design must find something at least as small.
    let v = plan_json(&["--healthy", "0.9", "--regressed", "0.7", "--beta", "0.25"]);
    assert!(v["single"]["n"].as_u64().expect("n") <= 20);
}

#[test]
fn max_trials_overrides_the_default_truncation() {
    let v = plan_json(&[
        "--healthy",
        "0.9",
        "--regressed",
        "0.7",
        "--max-trials",
        "10",
        "--rule",
        "wald",
    ]);
    assert_eq!(v["sequential"]["max_trials"], 10);
    assert!(f(&v["sequential"]["p_inconclusive_healthy"]) > 0.1);
}

#[test]
fn extreme_case_needs_thousands_of_trials() {
    let v = plan_json(&[
        "--healthy",
        "0.999",
        "--regressed",
        "0.995",
        "--alpha",
        "0.01",
        "--beta",
        "0.01",
    ]);
    assert_eq!(
        (v["single"]["n"].as_u64(), v["single"]["c"].as_u64()),
        (Some(3476), Some(8))
    );
    assert_eq!(v["sequential"]["max_trials"], 6952);
}

#[test]
fn text_at_ninety_vs_seventy() {
    let out = gate()
        .args(["plan", "--healthy", "0.90", "--regressed", "0.70"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(text.contains("run 33, pass if at most 6 fail, i.e. at least 27 succeed"));
    insta::assert_snapshot!("plan_90_70", text);
}

#[test]
fn text_extreme_case() {
    let out = gate()
        .args([
            "plan",
            "--healthy",
            "0.999",
            "--regressed",
            "0.995",
            "--alpha",
            "0.01",
            "--beta",
            "0.01",
        ])
        .output()
        .expect("runs");
    assert!(out.status.success());
    insta::assert_snapshot!(
        "plan_extreme",
        String::from_utf8(out.stdout).expect("utf-8")
    );
}

#[test]
fn yaml_snippet_parses_as_a_sampling_rule() {
    let out = gate()
        .args(["plan", "--healthy", "0.9", "--regressed", "0.7"])
        .output()
        .expect("runs");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let snippet = text
        .split("Plan file snippet (sampling rule):\n")
        .nth(1)
        .expect("snippet present");
    let doc: serde_json::Value = serde_saphyr::from_str(snippet).expect("valid YAML");
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["sampling"]["single"]["n"], 33);
    assert_eq!(doc["sampling"]["single"]["c"], 6);
    // The commented alternative becomes valid YAML once uncommented.
    let sequential = snippet.replace("  # sequential:", "  sequential:");
    let sequential = sequential.replace("  single: {n: 33, c: 6}\n", "");
    let doc: serde_json::Value = serde_saphyr::from_str(&sequential).expect("valid YAML");
    assert_eq!(doc["sampling"]["sequential"]["max_trials"], 66);
    assert_eq!(doc["sampling"]["sequential"]["healthy"], 0.9);
}

#[test]
fn svg_chart_is_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("oc.svg");
    gate()
        .args(["plan", "--healthy", "0.9", "--regressed", "0.7", "--svg"])
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::str::contains("OC and ASN chart written to"));
    let svg = std::fs::read_to_string(&path).expect("SVG written");
    assert!(svg.starts_with("<svg") && svg.contains("P(PASS)") && svg.contains("healthy 90%"));
}

#[test]
fn svg_to_an_unwritable_path_is_a_usage_error() {
    // A folder that cannot exist (its parent is a regular file): unwritable even for root,
    // which may create `/nonexistent-dir` itself.
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("not-a-folder");
    std::fs::write(&file, "x").expect("file");
    let svg = file.join("oc.svg");
    gate()
        .args(["plan", "--healthy", "0.9", "--regressed", "0.7", "--svg"])
        .arg(&svg)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "`--svg {}`",
            svg.display()
        )))
        .stderr(predicate::str::contains("cannot create"));
    assert!(!svg.exists());
}

#[test]
fn bad_flags_exit_two_with_one_clear_line() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--healthy", "1.2", "--regressed", "0.7"],
            "`--healthy` must be strictly between 0 and 1, got `1.2`",
        ),
        (
            &["--healthy", "0.9", "--regressed", "0"],
            "`--regressed` must be strictly between 0 and 1, got `0`",
        ),
        (
            &["--healthy", "0.9", "--regressed", "-0.1"],
            "`--regressed` must be strictly between 0 and 1, got `-0.1`",
        ),
        (
            &["--healthy", "nan", "--regressed", "0.7"],
            "`--healthy` must be strictly between 0 and 1, got `NaN`",
        ),
        (
            &["--healthy", "0.7", "--regressed", "0.9"],
            "`--healthy` (0.7) must be greater than `--regressed` (0.9)",
        ),
        (
            &["--healthy", "0.7", "--regressed", "0.7"],
            "`--healthy` (0.7) must be greater than `--regressed` (0.7)",
        ),
        (
            &["--healthy", "0.9", "--regressed", "0.7", "--alpha", "0.5"],
            "`--alpha` must be at least 0.000001 (one in a million) and below 0.5, got `0.5`",
        ),
        (
            &["--healthy", "0.9", "--regressed", "0.7", "--beta", "0"],
            "`--beta` must be at least 0.000001 (one in a million) and below 0.5, got `0`",
        ),
        (
            &[
                "--healthy",
                "0.9",
                "--regressed",
                "0.7",
                "--max-trials",
                "0",
            ],
            "`--max-trials` must be between 1 and 1000000, got `0`",
        ),
        (
            &["--healthy", "0.5", "--regressed", "0.4999"],
            "no single plan with at most 100000 trials",
        ),
    ];
    for (args, message) in cases {
        let out = gate().arg("plan").args(*args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"));
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn a_sequential_rule_that_can_never_decide_is_refused() {
    // At most 2 trials: no PASS before 9 straight successes, no FAIL before 3 straight
    // failures. It used to be shown as a plan that "saves 94%".
    gate()
        .args([
            "plan",
            "--healthy",
            "0.9",
            "--regressed",
            "0.7",
            "--max-trials",
            "2",
            "--rule",
            "wald",
        ])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(
            "error: `--max-trials 2` is too small: the sequential test needs at least 9 trials \
             to PASS and 3 to FAIL\n",
        );
    // 8 reaches FAIL but never PASS: refused too; 9 is the smallest plan.
    gate()
        .args([
            "plan",
            "--healthy",
            "0.9",
            "--regressed",
            "0.7",
            "--max-trials",
            "8",
            "--rule",
            "wald",
        ])
        .assert()
        .code(2);
    gate()
        .args([
            "plan",
            "--healthy",
            "0.9",
            "--regressed",
            "0.7",
            "--max-trials",
            "9",
            "--rule",
            "wald",
        ])
        .assert()
        .code(0);
}

/// The lattice form of the SPRT: failure counts per trial, consistent with the LLR bounds
/// (9 ln(7/9) <= ln(0.1/0.95) < 8 ln(7/9); 4 failures in 10 stay just below ln(0.9/0.05)).
#[test]
fn lattice_in_json_and_text() {
    let v = plan_json(&["--healthy", "0.9", "--regressed", "0.7", "--rule", "wald"]);
    let lattice = v["lattice"].as_array().unwrap();
    assert_eq!(
        lattice.len() as u64,
        v["sequential"]["max_trials"].as_u64().unwrap()
    );
    assert_eq!(
        lattice[7]["pass_max_failures"],
        Value::Null,
        "no PASS after 8 trials"
    );
    assert_eq!(
        lattice[8]["pass_max_failures"], 0,
        "PASS after 9 straight successes"
    );
    assert_eq!(
        lattice[2]["fail_min_failures"], 3,
        "FAIL after 3 straight failures"
    );
    assert_eq!(
        lattice[9]["fail_min_failures"], 5,
        "4 of 10 failing is LLR 2.887 < 2.890"
    );
    let out = gate()
        .args([
            "plan",
            "--healthy",
            "0.9",
            "--regressed",
            "0.7",
            "--rule",
            "wald",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("trials t    PASS if failures <=    FAIL if failures >="));
    assert!(text.contains("          10                      0                      5"));
}

/// Rebuild the rule from the published `lattice[]` alone.
fn lattice_of(v: &Value) -> gate::stats::lattice::Boundaries {
    let rows = v["lattice"]
        .as_array()
        .expect("lattice")
        .iter()
        .map(|r| gate::stats::lattice::LatticeRow {
            trials: r["trials"].as_u64().unwrap(),
            pass_max_failures: r["pass_max_failures"].as_u64(),
            fail_min_failures: r["fail_min_failures"].as_u64(),
        })
        .collect();
    gate::stats::lattice::Boundaries::new(rows).expect("a valid lattice")
}

fn same(x: f64, y: f64) -> bool {
    (x - y).abs() <= 1e-15 * y.abs().max(1e-300) || x == y
}

/// Every published sequential probability and expected trial count is the exact value of
/// the published lattice, for both rules and both policies; realised risks never exceed the
/// request for the calibrated rule.
#[test]
fn published_numbers_are_the_exact_values_of_the_published_lattice() {
    for (h, r, a, b) in [
        ("0.9", "0.7", "0.05", "0.1"),
        ("0.97", "0.91", "0.2", "0.01"),
        ("0.65", "0.55", "0.2", "0.2"),
    ] {
        for extra in [
            &[][..],
            &["--rule", "wald"][..],
            &["--on-inconclusive", "pass"][..],
        ] {
            let mut args = vec!["--healthy", h, "--regressed", r, "--alpha", a, "--beta", b];
            args.extend_from_slice(extra);
            let v = plan_json(&args);
            let lattice = lattice_of(&v);
            let q = &v["sequential"];
            let (ph, pr) = (f(&v["healthy"]), f(&v["regressed"]));
            let (oh, or) = (lattice.oc(ph), lattice.oc(pr));
            for (key, want) in [
                ("p_pass_healthy", oh.p_pass),
                ("p_fail_healthy", oh.p_fail),
                ("p_inconclusive_healthy", oh.p_inconclusive),
                ("p_pass_regressed", or.p_pass),
                ("p_fail_regressed", or.p_fail),
                ("p_inconclusive_regressed", or.p_inconclusive),
                ("asn_healthy", oh.asn),
                ("asn_regressed", or.asn),
                ("realised_beta", or.p_pass),
            ] {
                assert!(
                    same(f(&q[key]), want),
                    "{args:?} {key}: {} vs {want}",
                    q[key]
                );
            }
            let alpha = if extra.contains(&"pass") {
                oh.p_fail
            } else {
                1.0 - oh.p_pass
            };
            assert!(same(f(&q["realised_alpha"]), alpha), "{args:?}");
            if q["rule"] == "calibrated" {
                assert!(f(&q["realised_alpha"]) <= f(&v["alpha"]), "{args:?}");
                assert!(f(&q["realised_beta"]) <= f(&v["beta"]), "{args:?}");
            }
        }
    }
}

/// The audit's example: 0.999 vs 0.995 at 1%/1%. Wald's thresholds let a regression pass
/// 1.0009% of the time; the calibrated default stays within 1%, near the information limit.
#[test]
fn calibrated_rule_keeps_the_risks_where_wald_broke_them() {
    let args = [
        "--healthy",
        "0.999",
        "--regressed",
        "0.995",
        "--alpha",
        "0.01",
        "--beta",
        "0.01",
    ];
    let v = plan_json(&args);
    let q = &v["sequential"];
    assert_eq!(q["rule"], "calibrated");
    assert!(f(&q["realised_alpha"]) <= 0.01 && f(&q["realised_beta"]) <= 0.01);
    assert!(f(&q["asn_ratio_healthy"]) < 1.1 && f(&q["asn_ratio_regressed"]) < 1.1);
    let mut wald = args.to_vec();
    wald.extend(["--rule", "wald"]);
    let w = plan_json(&wald);
    assert!(f(&w["sequential"]["realised_beta"]) > 0.01);
    let out = gate().arg("plan").args(&wald).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("warning: the realised beta 1.001% is above the requested 1.000%"),
        "{text}"
    );
}

/// 0.9 vs 0.7 at 0.05 / 0.10: Wald's bound is 17.1 / 15.5 trials; the calibrated rule is
/// within 10% of it at both rates, and its saving is stated against the curtailed single plan.
#[test]
fn plan_prints_the_information_limit_and_the_saving_against_the_curtailed_plan() {
    let v = plan_json(&["--healthy", "0.9", "--regressed", "0.7"]);
    let q = &v["sequential"];
    assert!((f(&q["asn_bound_healthy"]) - 17.15).abs() < 0.01);
    assert!((f(&q["asn_bound_regressed"]) - 15.47).abs() < 0.01);
    assert!(f(&q["asn_ratio_healthy"]) <= 1.1 && f(&q["asn_ratio_regressed"]) <= 1.1);
    let s = &v["single"];
    let saving = 1.0 - f(&q["asn_healthy"]) / f(&s["curtailed_asn_healthy"]);
    assert!(same(f(&q["saving_healthy"]), saving));
}

/// `--jobs J`: expected trials launched = E[min(T + J - 1, max)] over the exact stopping
/// distribution of the published lattice.
#[test]
fn jobs_shows_the_trials_launched_including_those_cancelled() {
    let v = plan_json(&["--healthy", "0.9", "--regressed", "0.7", "--jobs", "4"]);
    let lattice = lattice_of(&v);
    let want: f64 = lattice
        .terminals(0.9)
        .iter()
        .map(|t| t.prob * (t.trials + 3).min(lattice.max_trials()) as f64)
        .sum();
    let got = f(&v["jobs"]["sequential_launched_healthy"]);
    assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    assert!(got > f(&v["sequential"]["asn_healthy"]));
    assert!(f(&v["jobs"]["single_launched_healthy"]) <= 33.0);
}

/// The audit's example: a healthy agent behind a 10%-flaky API with the default budget
/// (10% of n = 4) is INCONCLUSIVE 24.5% of the time, and fails the gate 27.8% of the time
/// where the fault-free plan promises 4.2%.
#[test]
fn unavailable_rate_states_the_risk_at_the_default_budget() {
    let v = plan_json(&[
        "--healthy",
        "0.9",
        "--regressed",
        "0.7",
        "--unavailable-rate",
        "10%",
    ]);
    let u = &v["unavailable"]["single"];
    assert_eq!(u["budget"], 4);
    let single = gate::stats::lattice::Boundaries::single(33, 6).unwrap();
    let want = single.oc_unavailable(0.9, 0.1, 4);
    assert!(same(f(&u["p_budget_healthy"]), want.p_budget));
    assert!(same(f(&u["realised_alpha"]), 1.0 - want.p_pass));
    assert!((f(&u["p_budget_healthy"]) - 0.245).abs() < 0.0005);
    let out = gate()
        .args([
            "plan",
            "--healthy",
            "0.9",
            "--regressed",
            "0.7",
            "--unavailable-rate",
            "0.1",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("single plan      budget 4: alpha 27.8%"),
        "{text}"
    );
    assert!(text.contains("`timeout: unavailable` replaces a timed-out trial"));
}

/// `--evaluate N,C` judges a plan the user already has, exactly.
#[test]
fn evaluate_judges_an_existing_single_plan() {
    let v = plan_json(&[
        "--healthy",
        "0.9",
        "--regressed",
        "0.7",
        "--evaluate",
        "20,4",
    ]);
    assert_eq!((v["n"].as_u64(), v["c"].as_u64()), (Some(20), Some(4)));
    let plan = gate::stats::lattice::Boundaries::single(20, 4).unwrap();
    let want = plan.oc(0.7).p_pass;
    assert!(same(f(&v["realised_beta"]), want));
    assert_eq!(v["meets_beta"], false);
    assert!(same(f(&v["curtailed_asn_healthy"]), plan.oc(0.9).asn));
    gate()
        .args([
            "plan",
            "--healthy",
            "0.9",
            "--regressed",
            "0.7",
            "--evaluate",
            "20,4",
        ])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "beta 23.8%, ABOVE the requested 10.0%",
        ));
    gate()
        .args([
            "plan",
            "--healthy",
            "0.9",
            "--regressed",
            "0.7",
            "--evaluate",
            "5,5",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "`c` (5) must be less than `n` (5)",
        ));
}

/// `--alpha 1e-320` used to blame a `--max-trials` nobody passed and print
/// 18446744073709551615; a risk below one in a million is refused plainly.
#[test]
fn a_risk_below_the_minimum_is_refused_plainly() {
    for (flag, value) in [("--alpha", "1e-320"), ("--beta", "1e-7"), ("--alpha", "0")] {
        gate()
            .args([
                "plan",
                "--healthy",
                "0.9",
                "--regressed",
                "0.7",
                flag,
                value,
            ])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "`{flag}` must be at least 0.000001 (one in a million) and below 0.5"
            )))
            .stderr(predicate::str::contains("max-trials").not())
            .stderr(predicate::str::contains("18446744073709551615").not());
    }
    gate()
        .args([
            "plan",
            "--healthy",
            "0.9",
            "--regressed",
            "0.7",
            "--alpha",
            "1e-6",
        ])
        .assert()
        .code(0);
}

/// `policy.suite_alpha`: each designed task gets Šidák's per-task alpha, so the exact
/// probability that a healthy suite fails somewhere is at most suite_alpha; the per-task
/// value is printed with the rule.
#[test]
fn suite_alpha_sets_each_designed_tasks_alpha_by_sidak() {
    let f = crate::common::Fixture::new(
        "version: 1\nsampling:\n  design: {healthy: 0.9, regressed: 0.7, rule: sequential}\npolicy: {suite_alpha: 0.05}\ntasks:\n  - {id: a, run: 'true'}\n  - {id: b, run: 'true'}\n  - id: c\n    run: 'true'\n    sampling: {design: {healthy: 0.95, regressed: 0.8}}\n",
    );
    let plan = gate::plan::Plan::load(&f.plan()).expect("plan loads");
    let per_task = 1.0 - 0.95f64.powf(1.0 / 3.0);
    let mut healthy_suite_passes = 1.0;
    for t in &plan.tasks {
        let rates = t.rates.expect("designed");
        assert!((rates.alpha - per_task).abs() < 1e-15, "{}", rates.alpha);
        let words = t.designed.as_deref().expect("designed words");
        assert!(
            words.contains("alpha 0.016952 per task from `policy.suite_alpha` 0.05 over 3 tasks"),
            "{words}"
        );
        let oc = t.sampling.lattice().unwrap().oc(rates.healthy);
        assert!(1.0 - oc.p_pass <= per_task);
        healthy_suite_passes *= oc.p_pass;
    }
    assert!(1.0 - healthy_suite_passes <= 0.05);
    // An explicit alpha next to suite_alpha is ambiguous: refused.
    let g = crate::common::Fixture::new(
        "version: 1\nsampling:\n  design: {healthy: 0.9, regressed: 0.7, alpha: 0.01}\npolicy: {suite_alpha: 0.05}\ntasks:\n  - {id: a, run: 'true'}\n",
    );
    let err = gate::plan::Plan::load(&g.plan()).unwrap_err().to_string();
    assert!(
        err.contains("`alpha` and `policy.suite_alpha` both set"),
        "{err}"
    );
}

/// Audit finding: `policy.suite_alpha` with `rule: wald` exceeded the suite's alpha (Wald's
/// thresholds do not bound the exact risk), and a fixed `single:` rule has no designed alpha
/// at all; both are refused with the reason, while calibrated tasks still load.
#[test]
fn suite_alpha_with_a_rule_that_breaks_it_is_refused() {
    let tasks: String = (0..5)
        .map(|i| format!("  - {{id: t{i}, run: 'true'}}\n"))
        .collect();
    let plan = |sampling: &str| {
        crate::common::Fixture::new(&format!(
            "version: 1\npolicy: {{suite_alpha: 0.05}}\nsampling:\n  {sampling}\ntasks:\n{tasks}"
        ))
    };
    // 80% vs 60% with Wald's thresholds at the per-task 0.010206: exactly 1.044% each.
    let f = plan("design: {healthy: 0.8, regressed: 0.6, rule: wald}");
    let err = gate::plan::Plan::load(&f.plan()).unwrap_err().to_string();
    assert!(
        err.contains("exact P(not PASS | healthy) is 0.010445"),
        "{err}"
    );
    assert!(err.contains("use `rule: calibrated`"), "{err}");
    let f = plan("single: {n: 30, c: 3}");
    let err = gate::plan::Plan::load(&f.plan()).unwrap_err().to_string();
    assert!(
        err.contains("cannot hold with a fixed `single: {n: 30, c: 3}` rule"),
        "{err}"
    );
    // Wald's rule where its exact risk is within the share loads; so does the calibrated one.
    for ok in [
        "design: {healthy: 0.9, regressed: 0.7, rule: wald}",
        "design: {healthy: 0.8, regressed: 0.6}",
    ] {
        let f = plan(ok);
        let p = gate::plan::Plan::load(&f.plan()).expect(ok);
        let mut passes = 1.0;
        for t in &p.tasks {
            passes *= t
                .sampling
                .lattice()
                .unwrap()
                .oc(t.rates.unwrap().healthy)
                .p_pass;
        }
        assert!(1.0 - passes <= 0.05, "{ok}: {}", 1.0 - passes);
    }
}

/// Review finding: a `policy.suite_alpha` whose Šidák per-task alpha falls below the design
/// minimum was reported as "`alpha` must be at least 0.000001", blaming an `alpha` the plan
/// never set; the message must name `policy.suite_alpha` and the task count.
#[test]
fn suite_alpha_below_the_minimum_per_task_names_suite_alpha_not_alpha() {
    let mut text = String::from(
        "version: 1\npolicy: {suite_alpha: 0.00001}\nsampling:\n  sequential: {healthy: 0.9, regressed: 0.7}\ntasks:\n",
    );
    for i in 0..20 {
        text.push_str(&format!("  - {{id: t{i}, run: 'true'}}\n"));
    }
    let f = crate::common::Fixture::new(&text);
    let err = gate::plan::Plan::load(&f.plan()).unwrap_err().to_string();
    assert!(
        err.contains(
            "`policy.suite_alpha` 0.00001 over 20 tasks gives each task an alpha of 5.00e-7"
        ),
        "{err}"
    );
    assert!(!err.contains("`alpha` must be"), "{err}");
}

/// Audit finding: small coarse designs sit up to 1.9x / 3.6x above Wald's bound, and nothing
/// said that the lattice's discreteness, not the rule, is the reason; now the text says so
/// when it is (and only then).
#[test]
fn a_coarse_lattice_far_from_the_bound_says_why() {
    let text = |args: &[&str]| {
        let out = gate().arg("plan").args(args).output().expect("runs");
        assert!(out.status.success());
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let coarse = text(&["--healthy", "0.8", "--regressed", "0.3"]);
    assert!(
        coarse.contains("one failure moves the LLR 43% of the way to Wald's FAIL threshold"),
        "{coarse}"
    );
    assert!(coarse.contains("that, not the rule, keeps this design above the bound"));
    let fine = text(&["--healthy", "0.9", "--regressed", "0.7"]);
    assert!(!fine.contains("not the rule"), "{fine}");
}

/// Audit findings: Wald's warning offered "the calibrated rule keeps it" where the calibrated
/// rule refuses that `--max-trials`; `--evaluate` JSON gave `launched` and `unavailable` as
/// unnamed arrays.
#[test]
fn wald_warning_offers_the_calibrated_rule_only_where_it_fits() {
    let text = |args: &[&str]| {
        let out = gate().arg("plan").args(args).output().expect("runs");
        assert!(out.status.success());
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let short = text(&[
        "--healthy",
        "0.9",
        "--regressed",
        "0.7",
        "--rule",
        "wald",
        "--max-trials",
        "20",
    ]);
    assert!(
        short.contains("no\n  calibrated rule fits within these max_trials either"),
        "{short}"
    );
    assert!(!short.contains("keeps it"));
    let long = text(&[
        "--healthy",
        "0.999",
        "--regressed",
        "0.995",
        "--alpha",
        "0.01",
        "--beta",
        "0.01",
        "--rule",
        "wald",
    ]);
    assert!(
        long.contains("calibrated rule (the default) keeps it"),
        "{long}"
    );
    let v = crate::common::json_of(
        "plan",
        &[
            "--healthy",
            "0.9",
            "--regressed",
            "0.7",
            "--evaluate",
            "20,4",
            "--jobs",
            "4",
            "--unavailable-rate",
            "0.1",
        ],
    );
    assert_eq!(v["launched"]["jobs"], 4);
    assert!(v["launched"]["launched_healthy"].as_f64().unwrap() <= 20.0);
    assert_eq!(v["unavailable"]["rate"], 0.1);
    assert_eq!(v["unavailable"]["budget"], 2);
    assert!(v["unavailable"]["realised_alpha"].is_number());
}

/// A rate or a duration in a plan file is a number or a string, read by one shared visitor
/// (plan/schema.rs, `NumberOrString`). Every way such a value can be wrong keeps its message
/// and its file:line:col: a value of another type names the forms, a negative or too large
/// number of seconds and a bad string keep their own words, and a number out of a rate's
/// range is refused later at its location.
#[test]
fn number_or_string_values_keep_their_messages_and_locations() {
    let mut text = String::new();
    for (key, value) in [
        ("timeout", "[30]"),
        ("timeout", "true"),
        ("timeout", "-5"),
        ("timeout", "1.0e12"),
        ("timeout", "soon"),
        ("suite_alpha", "[0.1]"),
        ("suite_alpha", "{a: 1}"),
        ("suite_alpha", "ninety"),
        ("suite_alpha", "-1"),
        ("suite_alpha", "7"),
    ] {
        let line = format!("{key}: {value}\n");
        let yaml = if key == "timeout" {
            format!(
                "version: 1\nsampling: {{single: {{n: 2, c: 0}}}}\ntasks:\n  - id: t\n    run: 'true'\n    {line}"
            )
        } else {
            format!(
                "version: 1\nsampling: {{single: {{n: 2, c: 0}}}}\npolicy:\n  {line}tasks:\n  - id: t\n    run: 'true'\n"
            )
        };
        let out = crate::common::check(&crate::common::Fixture::new(&yaml))
            .get_output()
            .clone();
        text += &format!(
            "{line}{}(exit {})\n\n",
            String::from_utf8_lossy(&out.stderr),
            out.status.code().unwrap_or(-1)
        );
    }
    insta::assert_snapshot!("number_or_string_errors", text);
}
