//! Tests of [`super`].

use super::*;

#[test]
fn wald_bound_at_ninety_versus_seventy() {
    let (b0, b1) = wald_bound(0.9, 0.7, 0.05, 0.10);
    assert!(
        (b0 - 17.15).abs() < 0.01 && (b1 - 15.47).abs() < 0.01,
        "{b0} {b1}"
    );
}

#[test]
fn powers_are_repeated_multiplication() {
    let p = powers(3.0, 5);
    assert_eq!(p, vec![1.0, 3.0, 9.0, 27.0, 81.0, 243.0]);
    assert!((powers(0.9, 100)[100] - 0.9f64.powi(100)).abs() < 1e-15);
}

#[test]
fn ninety_versus_seventy_meets_both_risks_near_the_limit() {
    let d = design_calibrated(0.9, 0.7, 0.05, 0.10, None).unwrap();
    assert!(1.0 - d.at_healthy.p_pass <= 0.05);
    assert!(d.at_regressed.p_pass <= 0.10);
    let (b0, b1) = wald_bound(0.9, 0.7, 0.05, 0.10);
    eprintln!(
        "ASN {:.2} / {:.2}, ratio {:.3} / {:.3}",
        d.at_healthy.asn,
        d.at_regressed.asn,
        d.at_healthy.asn / b0,
        d.at_regressed.asn / b1
    );
    assert!(d.at_healthy.asn <= 1.10 * b0 && d.at_regressed.asn <= 1.10 * b1);
    // The published numbers are the lattice's own: recompute from the rows.
    let again = Boundaries::new(d.boundaries.rows().to_vec()).unwrap();
    assert_eq!(again.oc(0.9), d.at_healthy);
}

#[test]
fn audit_designs_where_wald_broke_its_risks_now_keep_them() {
    // From the audit: Wald's thresholds gave 1.0009%, 1.022% and 20.09% here.
    for (h, r, a, b) in [
        (0.999, 0.995, 0.01, 0.01),
        (0.97, 0.91, 0.2, 0.01),
        (0.65, 0.55, 0.2, 0.2),
    ] {
        let d = design_calibrated(h, r, a, b, None).unwrap();
        assert!(
            1.0 - d.at_healthy.p_pass <= a,
            "{h}/{r}: {:?}",
            d.at_healthy
        );
        assert!(d.at_regressed.p_pass <= b, "{h}/{r}: {:?}", d.at_regressed);
    }
}

/// The audit found Wald's rule with valid risks beating the default: 16.9 / 12.6
/// expected trials against 24.3 / 11.9 at 0.99 vs 0.89, 0.1 / 0.2. Over a grid of
/// designs, the default never spends more at the two rates together than Wald's rule
/// on the same truncation (when that keeps the risks) or the curtailed single plan.
#[test]
fn the_default_is_never_beaten_by_a_rule_gate_builds_with_valid_risks() {
    let d = design_calibrated(0.99, 0.89, 0.1, 0.2, None).unwrap();
    assert!(
        d.at_healthy.asn + d.at_regressed.asn <= 16.93 + 12.56,
        "{d:?}"
    );
    for (h, r) in [
        (0.99, 0.89),
        (0.8, 0.75),
        (0.9, 0.7),
        (0.95, 0.85),
        (0.7, 0.5),
        (0.6, 0.4),
    ] {
        for (a, b) in [
            (0.1, 0.2),
            (0.1, 0.01),
            (0.05, 0.1),
            (0.2, 0.2),
            (0.01, 0.05),
        ] {
            let Ok(d) = design_calibrated(h, r, a, b, None) else {
                continue;
            };
            let m = d.boundaries.max_trials();
            let cost = d.at_healthy.asn + d.at_regressed.asn;
            let wald = Boundaries::wald(&super::super::sprt::Sprt::new(h, r, a, b, m).unwrap());
            let (wh, wr) = (wald.oc(h), wald.oc(r));
            if 1.0 - wh.p_pass <= a && wr.p_pass <= b {
                assert!(
                    cost <= wh.asn + wr.asn + 1e-9,
                    "{h}/{r} {a}/{b}: {cost} vs Wald"
                );
            }
            let single = design::design_single(h, r, a, b).unwrap();
            let curtailed = super::super::lattice::single_oc(single.n, single.c, h).asn
                + super::super::lattice::single_oc(single.n, single.c, r).asn;
            assert!(
                cost <= curtailed + 1e-9,
                "{h}/{r} {a}/{b}: {cost} vs single"
            );
            assert!(1.0 - d.at_healthy.p_pass <= a && d.at_regressed.p_pass <= b);
        }
    }
}

/// Below 10,000 trials the bisections run after the secant search and every candidate of
/// both competes, so no design there is worse than the bisections alone made it. Here 16
/// of these 30 designs get better (checked against the bisection-only binary over 216
/// designs: 110 better, by up to 8.1% of the expected trials, none worse; the bisections
/// often stop with a risk well short of the request).
#[test]
fn below_ten_thousand_trials_no_design_is_worse_than_the_bisections_alone_make_it() {
    let mut better = 0;
    for (h, r) in [
        (0.99, 0.89),
        (0.9, 0.7),
        (0.9, 0.85),
        (0.8, 0.75),
        (0.6, 0.4),
        (0.6, 0.55),
    ] {
        for (a, b) in [
            (0.01, 0.01),
            (0.05, 0.1),
            (0.1, 0.2),
            (0.2, 0.01),
            (0.2, 0.2),
        ] {
            let new = design_calibrated(h, r, a, b, None).unwrap();
            let old = design_searched(h, r, a, b, None, false).unwrap();
            assert!(new.boundaries.max_trials() < SECANT_ONLY_TRIALS);
            let cost = |d: &Calibrated| d.at_healthy.asn + d.at_regressed.asn;
            assert!(
                cost(&new) <= cost(&old),
                "{h}/{r} {a}/{b}: {new:?} vs {old:?}"
            );
            assert!(1.0 - new.at_healthy.p_pass <= a && new.at_regressed.p_pass <= b);
            if cost(&new) < cost(&old) {
                better += 1;
            }
        }
    }
    // The secant search is not idle: it improves a good share of these designs.
    assert!(better >= 10, "{better}");
}

/// On a long design the secant search is the whole search: a handful of backward
/// inductions instead of 37, ending with both exact risks within 0.1% below the request,
/// and fewer expected trials than the bisections alone (90% vs 89%, 16,080 trials: they
/// stop at alpha 4.6%).
#[test]
fn a_long_design_ends_with_both_risks_within_a_tenth_of_a_percent_of_the_request() {
    let (h, r, a, b) = (0.9, 0.89, 0.05, 0.10);
    let d = design_calibrated(h, r, a, b, None).unwrap();
    assert!(d.boundaries.max_trials() >= SECANT_ONLY_TRIALS);
    let (alpha, beta) = (1.0 - d.at_healthy.p_pass, d.at_regressed.p_pass);
    assert!(alpha <= a && alpha >= a * (1.0 - TIGHT), "{alpha}");
    assert!(beta <= b && beta >= b * (1.0 - TIGHT), "{beta}");
    let old = design_searched(h, r, a, b, None, false).unwrap();
    assert!(
        d.at_healthy.asn + d.at_regressed.asn < old.at_healthy.asn + old.at_regressed.asn,
        "{d:?} vs {old:?}"
    );
}

/// The tables keep the plain repeated product bit for bit wherever it stays a normal
/// double, and stay right past it: at 0.6 vs 0.595 (164,840 trials) a plain
/// `pow_failure` overflows at f = 57,137, which made Λ = +inf at every state beyond and
/// the lattice's rows flat from trial ~141,900 on.
#[test]
fn powers_keep_an_unbounded_exponent() {
    for x in [0.9f64, 1.05, 0.595 / 0.6, 0.405 / 0.4, 1e-3, 999.0] {
        let (plain, scaled) = (powers(x, 20_000), Powers::new(x, 20_000));
        let one = Powers::new(1.0, 20_000);
        for (k, &p) in plain.iter().enumerate() {
            let k = k as u64;
            if p.is_normal() {
                assert_eq!(Powers::product(&scaled, k, &one, 0), p, "{x}^{k}");
            }
        }
    }
    let p = Problem::new(0.6, 0.595, 164_840);
    for (t, f) in [
        (141_900u64, 57_137u64),
        (164_840, 66_000),
        (150_000, 60_400),
    ] {
        let llr = (t - f) as f64 * p.ln_success + f as f64 * p.ln_failure;
        let l = p.lambda(t, f);
        assert!((l.ln() - llr).abs() < 1e-6, "Λ({t}, {f}) = {l}, LLR {llr}");
    }
    // Out of range for real: +inf and 0, never NaN.
    assert_eq!(p.lambda(164_840, 164_840), f64::INFINITY);
    assert_eq!(p.lambda(164_840, 0), 0.0);
}

#[test]
fn a_truncation_too_short_for_both_risks_is_an_error() {
    assert_eq!(
        design_calibrated(0.9, 0.7, 0.05, 0.10, Some(8)),
        Err(StatsError::NoSequential {
            max_trials: 8,
            alpha: 0.05,
            beta: 0.10
        })
    );
}

#[test]
fn the_design_is_deterministic() {
    let a = design_calibrated(0.95, 0.8, 0.05, 0.05, None).unwrap();
    let b = design_calibrated(0.95, 0.8, 0.05, 0.05, None).unwrap();
    assert_eq!(a, b);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Realised risks never exceed the requested ones, exactly, and the design is never
    /// worse than the curtailed single plan it can always fall back on.
    #[test]
    fn realised_risks_never_exceed_the_request(
        healthy in 0.6f64..0.98,
        gap in 0.12f64..0.35,
        alpha in 0.02f64..0.25,
        beta in 0.02f64..0.25,
    ) {
        let regressed = healthy - gap;
        proptest::prop_assume!(regressed > 0.05);
        let d = design_calibrated(healthy, regressed, alpha, beta, None).unwrap();
        // Recompute from the lattice alone, as a reader of the JSON would.
        let b = Boundaries::new(d.boundaries.rows().to_vec()).unwrap();
        let (h, r) = (b.oc(healthy), b.oc(regressed));
        proptest::prop_assert!(1.0 - h.p_pass <= alpha, "{h:?}");
        proptest::prop_assert!(r.p_pass <= beta, "{r:?}");
        let single = design::design_single(healthy, regressed, alpha, beta).unwrap();
        let curtailed = super::super::lattice::single_oc(single.n, single.c, healthy).asn
            + super::super::lattice::single_oc(single.n, single.c, regressed).asn;
        proptest::prop_assert!(h.asn + r.asn <= curtailed + 1e-9);
    }
}
