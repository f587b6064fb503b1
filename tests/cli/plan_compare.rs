//! `gate plan --compare`: the JSON contract recomputed from the published lattice, the text
//! (snapshot) and bad input.

use crate::common::{gate, json_of};
use gate::stats::lattice::{Boundaries, LatticeRow, State};
use serde_json::Value;

fn f(v: &Value) -> f64 {
    v.as_f64().expect("a number")
}

fn plan(args: &[&str]) -> Value {
    let mut all = vec!["--compare"];
    all.extend_from_slice(args);
    json_of("plan", &all)
}

/// The rule from the published `lattice[]` alone.
fn lattice_of(v: &Value) -> Boundaries {
    let rows = v["lattice"]
        .as_array()
        .expect("lattice")
        .iter()
        .map(|r| LatticeRow {
            trials: r["trials"].as_u64().unwrap(),
            pass_max_failures: r["pass_max_failures"].as_u64(),
            fail_min_failures: r["fail_min_failures"].as_u64(),
        })
        .collect();
    Boundaries::new(rows).expect("a valid lattice")
}

/// The published loss route (`compare.loss_route`): (first, step).
fn route_of(v: &Value) -> Option<(u64, u64)> {
    let r = &v["compare"]["loss_route"];
    Some((r["first"].as_u64()?, r["step"].as_u64()?))
}

/// Independent pairs at (base, head), run pair by pair for `max_pairs` pairs through the
/// published lattice, then the published loss route (PASS once losses <=
/// (pairs − first) / step): (P(PASS), P(FAIL), P(INCONCLUSIVE), E[pairs]).
fn pairs_dp(
    b: &Boundaries,
    route: Option<(u64, u64)>,
    base: f64,
    head: f64,
    max_pairs: u64,
) -> [f64; 4] {
    let loss = base * (1.0 - head);
    let win = (1.0 - base) * head;
    let same = 1.0 - loss - win;
    let k = b.max_trials() as usize;
    let mut mass = vec![vec![0.0f64; k + 2]; k + 2];
    mass[0][0] = 1.0;
    let mut out = [0.0f64; 4];
    for n in 1..=max_pairs {
        let mut next = vec![vec![0.0f64; k + 2]; k + 2];
        for t in 0..=k {
            for l in 0..=t {
                let m = mass[t][l];
                if m == 0.0 {
                    continue;
                }
                next[t][l] += m * same;
                for (dl, p) in [(1, loss), (0, win)] {
                    let (t2, l2) = (t + 1, l + dl);
                    let state = b.decide(t2 as u64, l2 as u64);
                    let slot = match state {
                        State::Continue => {
                            next[t2][l2] += m * p;
                            continue;
                        }
                        State::Pass => 0,
                        State::Fail => 1,
                        State::Truncated => 2,
                    };
                    out[slot] += m * p;
                    out[3] += m * p * n as f64;
                }
            }
        }
        if let Some((first, step)) = route
            && n >= first
        {
            let allowed = ((n - first) / step) as usize;
            for row in next.iter_mut() {
                for (l, m) in row.iter_mut().enumerate() {
                    if l <= allowed && *m != 0.0 {
                        out[0] += *m;
                        out[3] += *m * n as f64;
                        *m = 0.0;
                    }
                }
            }
        }
        mass = next;
    }
    let left: f64 = mass.iter().flatten().sum();
    out[2] += left;
    out[3] += left * max_pairs as f64;
    out
}

#[test]
fn json_contract_recomputes_from_the_published_lattice() {
    for rule in ["calibrated", "wald"] {
        let v = plan(&[
            "--odds-ratio",
            "3",
            "--max-pairs",
            "150",
            "--rule",
            rule,
            "--at",
            "0.9,0.9",
            "--at",
            "80%,60%",
            "--at",
            "0.5,0.6",
        ]);
        let c = &v["compare"];
        assert_eq!(f(&c["odds_ratio"]), 3.0);
        assert_eq!(c["max_pairs"], 150);
        assert_eq!(c["rule"], rule);
        let b = lattice_of(&v);
        // The discordant stream: a head win is a success, rate 1/2 under H0, 1/(1+R) under H1.
        let (null, alt) = (b.oc(0.5), b.oc(0.25));
        assert!((f(&c["lattice_realised_beta"]) - alt.p_pass).abs() < 1e-15);
        // Beta is the union bound of the two PASS routes.
        let loss = f(&c["loss_route_beta"]);
        assert!(loss > 0.0);
        assert!((f(&c["realised_beta"]) - (alt.p_pass + loss)).abs() < 1e-15);
        assert!((f(&c["realised_fail_alpha"]) - null.p_fail).abs() < 1e-15);
        assert!((f(&c["discordant_null"]) - null.asn).abs() < 1e-12);
        assert!(f(&c["realised_beta"]) <= f(&c["beta"]));
        assert!(f(&c["realised_fail_alpha"]) <= f(&c["alpha"]));
        // Realised alpha is the pair run at the discordance floor, head = base.
        let floor = f(&c["min_discordance"]);
        assert_eq!(floor, 0.1);
        // The published OC over (base rate, drop), recomputed pair by pair.
        let grid = c["oc_by_drop"].as_array().expect("oc_by_drop rows");
        assert!(grid.len() >= 20);
        for row in grid {
            let (base, drop) = (f(&row["base"]), f(&row["drop"]));
            let want = pairs_dp(&b, route_of(&v), base, base - drop, 150);
            for (key, w) in [
                ("p_pass", want[0]),
                ("p_fail", want[1]),
                ("p_inconclusive", want[2]),
                ("expected_pairs", want[3]),
            ] {
                assert!(
                    (f(&row[key]) - w).abs() <= 1e-10 * w.max(1.0),
                    "{rule} base {base} drop {drop} {key}: {} vs {w}",
                    row[key]
                );
            }
        }
        let at = c["at"].as_array().expect("at rows");
        assert_eq!(at.len(), 3);
        for row in at {
            let (base, head) = (f(&row["base"]), f(&row["head"]));
            let want = pairs_dp(&b, route_of(&v), base, head, 150);
            for (key, w) in [
                ("p_pass", want[0]),
                ("p_fail", want[1]),
                ("p_inconclusive", want[2]),
                ("expected_pairs", want[3]),
            ] {
                assert!(
                    (f(&row[key]) - w).abs() <= 1e-10 * w.max(1.0),
                    "{rule} {base}/{head} {key}: {} vs {w}",
                    row[key]
                );
            }
        }
        assert_eq!((f(&at[1]["base"]), f(&at[1]["head"])), (0.8, 0.6));
        assert_eq!(v["lattice"][0]["trials"], 1);
        assert_eq!(
            v["lattice"].as_array().unwrap().len() as u64,
            c["max_discordant"].as_u64().unwrap()
        );
    }
}

#[test]
fn default_max_pairs_keeps_alpha_at_the_floor_for_every_rate_given() {
    let v = plan(&["--base", "0.9", "--regressed", "0.8"]);
    let c = &v["compare"];
    assert!((f(&c["odds_ratio"]) - 2.25).abs() < 1e-12);
    assert_eq!((f(&c["base"]), f(&c["regressed"])), (0.9, 0.8));
    assert_eq!(c["max_pairs_default"], true);
    assert!(f(&c["realised_alpha"]) <= 0.05 && f(&c["realised_beta"]) <= 0.10);
    let [lo, hi] = [f(&c["alpha_base_range"][0]), f(&c["alpha_base_range"][1])];
    assert!(lo < 0.06 && hi > 0.94, "{lo} {hi}");
    // Without --at: head = base and head regressed, at base's rate.
    let at = c["at"].as_array().unwrap();
    assert_eq!((f(&at[0]["head"]), f(&at[1]["head"])), (0.9, 0.8));
    assert!(1.0 - f(&at[0]["p_pass"]) <= 0.05);
    assert!(f(&at[1]["p_pass"]) <= 0.10);
    // The price against a one-sample plan that knew base's rate.
    let one = &c["one_sample"];
    assert_eq!(f(&one["healthy"]), 0.9);
    assert!((f(&one["runs_healthy"]) - 2.0 * f(&at[0]["expected_pairs"])).abs() < 1e-9);
    // Expected discordant pairs near Wald's bound at the design points.
    assert!(f(&c["discordant_ratio_null"]) <= 1.10);
    assert!(f(&c["discordant_ratio_regressed"]) <= 1.10);
}

#[test]
fn text_at_ninety_versus_eighty() {
    let out = gate()
        .args(["plan", "--compare", "--base", "0.9", "--regressed", "0.8"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(text.contains("odds ratio R = 2.25"));
    assert!(text.contains("Price of not knowing base's rate"));
    insta::assert_snapshot!("plan_compare_90_80", text);
}

#[test]
fn compare_bad_input_exits_two_with_one_clear_line() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--odds-ratio", "1"],
            "`--odds-ratio` must be a number greater than 1",
        ),
        (
            &["--odds-ratio", "0.5"],
            "`--odds-ratio` must be a number greater than 1",
        ),
        (
            &["--odds-ratio", "-3"],
            "`--odds-ratio` must be a number greater than 1",
        ),
        (
            &["--base", "0.8", "--regressed", "0.9"],
            "`--regressed` (0.9) must be below `--base` (0.8)",
        ),
        (
            &["--base", "0.8", "--regressed", "0.8"],
            "`--regressed` (0.8) must be below `--base` (0.8)",
        ),
        (
            &["--base", "1.2", "--regressed", "0.9"],
            "`--base` must be strictly between 0 and 1, got `1.2`",
        ),
        (
            &["--base", "0.9", "--regressed", "0"],
            "`--regressed` must be strictly between 0 and 1, got `0`",
        ),
        (&["--regressed", "0.8"], "needs `--base B`"),
        (&[], "`--compare` needs the regression to detect"),
        (
            &["--odds-ratio", "2", "--max-pairs", "3"],
            "no sequential rule with at most 3 discordant pairs",
        ),
        (
            &["--odds-ratio", "2", "--max-pairs", "0"],
            "`--max-pairs` must be between 1",
        ),
        (
            &["--odds-ratio", "2", "--at", "0.9"],
            "`--at` takes two pass rates",
        ),
        (
            &["--odds-ratio", "2", "--at", "1.2,0.3"],
            "each between 0 and 1",
        ),
        (&["--odds-ratio", "1.0001"], "too close to 1"),
        (
            &["--odds-ratio", "2", "--alpha", "0.5"],
            "`--alpha` must be at least",
        ),
    ];
    for (args, message) in cases {
        let out = gate()
            .args(["plan", "--compare"])
            .args(*args)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(out.stdout.is_empty());
    }
    // Flags of the one-sample plan do not mix with --compare (clap's usage error, exit 2).
    for extra in [
        &["--healthy", "0.9"][..],
        &["--svg", "x.svg"],
        &["--max-trials", "9"],
    ] {
        let out = gate()
            .args(["plan", "--compare", "--odds-ratio", "2"])
            .args(extra)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
    }
}
