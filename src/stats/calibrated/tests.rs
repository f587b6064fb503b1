//! Tests of [`super`].

use super::*;

// `Problem::rule` as of 928e3c1, verbatim but for `self` (it calls `Problem::last_at_most`,
// which the faster rule left unchanged): the published lattices come from this code, so the
// faster [`Problem::rule`] must return exactly what `rule_reference` returns, row for row,
// for every pair of multipliers.

/// The rule for multipliers (λ0, λ1), by backward induction; see the module doc.
fn rule_reference(p: &Problem, lambda0: f64, lambda1: f64) -> Boundaries {
    let m = p.max_trials;
    let (p0, q0) = (p.healthy, 1.0 - p.healthy);
    // Continuing can win only for lo < Λ < hi.
    let lo = if lambda1 > 1.0 {
        1.0 / (lambda1 - 1.0)
    } else {
        f64::INFINITY
    };
    let hi = lambda0 - 1.0;
    // The three thresholds of the scans, with their logarithms computed once per rule.
    let (at_swap, at_lo, at_hi) = (lambda0 / lambda1, lo, hi);
    let (ln_swap, ln_lo, ln_hi) = (at_swap.ln(), at_lo.ln(), at_hi.ln());
    let stop = |t: u64, f: u64| {
        let l = p.lambda(t, f);
        (lambda1 * l).min(lambda0)
    };
    let mut rows = vec![
        LatticeRow {
            trials: 0,
            pass_max_failures: None,
            fail_min_failures: None,
        };
        m as usize
    ];
    // Values r(t+1, f) for f in [next_lo, next_lo + next.len()).
    let mut next: Vec<f64> = Vec::new();
    let mut next_lo = 0u64;
    let mut cur: Vec<f64> = Vec::new();
    let mut states: Vec<u8> = Vec::new();
    let mut seen: Vec<(f64, f64)> = Vec::new();
    for t in (1..=m).rev() {
        // The f where PASS and FAIL swap as stopping decisions: λ1 Λ <= λ0.
        let swap = p.last_at_most(t, at_swap, ln_swap);
        // The band where continuing may win (only before the truncation).
        let band = if t < m && lo < hi {
            let first = match p.last_at_most(t, at_lo, ln_lo) {
                Some(f) => f + 1,
                None => 0,
            };
            let last = match p.last_at_most(t, at_hi, ln_hi) {
                Some(f) if p.lambda(t, f) < hi => Some(f),
                Some(f) => f.checked_sub(1),
                None => None,
            };
            match last {
                Some(last) if first <= last => Some((first, last)),
                _ => None,
            }
        } else {
            None
        };
        // Classify a window covering the continuation states and the PASS/FAIL swap,
        // plus one each side. The band is only a necessary condition and, with large
        // multipliers, several times wider than where continuing wins, which lies around
        // the swap (where the two stopping values meet, the worst place to stop). So the
        // window grows from the swap edge through the band and ends after CONTINUE_GAP
        // stopping states in a row; a state left outside is a stop, with its stop value,
        // exactly as the full band would classify it unless continuing won there.
        let swap_edge = swap.map_or(0, |s| s + 1);
        // The continuation value at f and λ1 Λ(t, f), the value of stopping with PASS
        // (the classification below reuses both rather than computing them twice).
        let next_hi = next_lo + next.len() as u64;
        let continuation = |f: u64| {
            let at = |g: u64| {
                if g >= next_lo && g < next_hi {
                    next[(g - next_lo) as usize]
                } else {
                    stop(t + 1, g)
                }
            };
            let l = p.lambda(t, f);
            (1.0 + l + p0 * at(f) + q0 * at(f + 1), lambda1 * l)
        };
        // (continuation value, PASS value) for f in [seen_lo, seen_lo + seen.len()).
        seen.clear();
        let mut seen_lo = 0u64;
        let (w_lo, w_hi) = match band {
            Some((a, b)) => {
                let c = swap_edge.clamp(a, b);
                let (mut lo_f, mut hi_f) = (c, c);
                let (mut f, mut run) = (c, 0u64);
                while f > a && run < CONTINUE_GAP {
                    f -= 1;
                    let (cont, pass_value) = continuation(f);
                    seen.push((cont, pass_value));
                    if cont < pass_value.min(lambda0) {
                        lo_f = f;
                        run = 0;
                    } else {
                        run += 1;
                    }
                }
                seen.reverse();
                seen_lo = f;
                let (mut f, mut run) = (c, 0u64);
                seen.push(continuation(c));
                while f < b && run < CONTINUE_GAP {
                    f += 1;
                    let (cont, pass_value) = continuation(f);
                    seen.push((cont, pass_value));
                    if cont < pass_value.min(lambda0) {
                        hi_f = f;
                        run = 0;
                    } else {
                        run += 1;
                    }
                }
                (lo_f.min(swap_edge), hi_f.max(swap_edge))
            }
            None => (swap_edge, swap_edge),
        };
        let w_lo = w_lo.saturating_sub(1);
        let w_hi = (w_hi + 1).min(t);
        let w_lo = w_lo.min(w_hi);
        cur.clear();
        states.clear();
        for f in w_lo..=w_hi {
            // Every state seen is in the band; any other is classified here.
            let (cont, pass_value) = match f.checked_sub(seen_lo) {
                Some(i) if (i as usize) < seen.len() => {
                    let (cont, pass_value) = seen[i as usize];
                    (Some(cont), pass_value)
                }
                _ if band.is_some_and(|(a, b)| f >= a && f <= b) => {
                    let (cont, pass_value) = continuation(f);
                    (Some(cont), pass_value)
                }
                _ => (None, lambda1 * p.lambda(t, f)),
            };
            let stop_value = pass_value.min(lambda0);
            let (value, state) = if let Some(cont) = cont {
                if cont < stop_value {
                    (cont, 0u8)
                } else if pass_value <= lambda0 {
                    (stop_value, 1)
                } else {
                    (stop_value, 2)
                }
            } else if pass_value <= lambda0 {
                (stop_value, 1)
            } else {
                (stop_value, 2)
            };
            cur.push(value);
            states.push(state);
        }
        // PASS is the run of PASS states from f = 0 (all below the window pass when the
        // window starts at or below the swap); FAIL the run of FAIL states up to f = t.
        let below_pass = w_lo == 0 || swap.is_some_and(|s| w_lo <= s);
        let pass_run = states.iter().take_while(|&&s| s == 1).count() as u64;
        let pass_max = if below_pass {
            if pass_run > 0 {
                Some(w_lo + pass_run - 1)
            } else {
                w_lo.checked_sub(1)
            }
        } else {
            None
        };
        let fail_run = states.iter().rev().take_while(|&&s| s == 2).count() as u64;
        let fail_min = if fail_run > 0 {
            Some(w_hi + 1 - fail_run)
        } else if w_hi < t {
            Some(w_hi + 1)
        } else {
            None
        };
        // At the truncation a non-PASS state is INCONCLUSIVE, not FAIL.
        let fail_min = if t == m { None } else { fail_min };
        let fail_min = match (pass_max, fail_min) {
            (Some(a), Some(b)) if b <= a => Some(a + 1),
            (_, b) => b,
        };
        rows[(t - 1) as usize] = LatticeRow {
            trials: t,
            pass_max_failures: pass_max,
            fail_min_failures: fail_min,
        };
        std::mem::swap(&mut next, &mut cur);
        next_lo = w_lo;
    }
    Boundaries::new(rows).expect("rows are built in order with PASS below FAIL")
}

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
/// of these 30 designs get better (`scripts/compare-designs.sh` against the bisection-only
/// binary, over 216 designs: 110 better, by up to 8.1% of the expected trials, none worse;
/// the bisections often stop with a risk well short of the request).
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

/// The rule for every pair of multipliers the search evaluates, on a grid of designs, is the
/// reference's, row for row.
#[test]
fn the_rule_is_the_reference_rule_along_the_search() {
    for (h, r, a, b) in [
        (0.9, 0.7, 0.05, 0.10),
        (0.95, 0.8, 0.05, 0.05),
        (0.99, 0.89, 0.1, 0.2),
        (0.999, 0.995, 0.01, 0.01),
        (0.65, 0.55, 0.2, 0.2),
        (0.8, 0.75, 0.01, 0.05),
    ] {
        let m = 2 * design::design_single(h, r, a, b).unwrap().n;
        let p = Problem::new(h, r, m);
        let calls = std::cell::Cell::new(0u32);
        let d = tune((h, r, a, b), m, None, [], |l0, l1| {
            calls.set(calls.get() + 1);
            let rule = p.rule(Looks::EveryTrial, l0, l1);
            assert_eq!(
                rule,
                rule_reference(&p, l0, l1),
                "{h}/{r} {a}/{b}: ({l0}, {l1})"
            );
            rule
        });
        assert!(d.is_ok() && calls.get() > 30, "{h}/{r} {a}/{b}");
    }
}

/// Long designs leave the range of doubles (the tables' blocks come into play) and have
/// wide windows: a few multipliers at 0.6 vs 0.595, the slowest default design.
#[test]
fn the_rule_is_the_reference_rule_on_a_long_design() {
    let p = Problem::new(0.6, 0.595, 164_816);
    for (l0, l1) in [(8e5, 8e5), (3e4, 2e6), (1e7, 5e3)] {
        assert_eq!(
            p.rule(Looks::EveryTrial, l0, l1),
            rule_reference(&p, l0, l1),
            "({l0}, {l1})"
        );
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// For random designs and random multipliers over the log range the search uses, the
    /// rule is the reference's, row for row.
    #[test]
    fn the_rule_is_the_reference_rule(
        healthy in 0.3f64..0.999,
        gap in 0.0005f64..0.4,
        max_trials in 1u64..4000,
        x in 0.0f64..32.0,
        y in 0.0f64..32.0,
    ) {
        let regressed = healthy - gap;
        proptest::prop_assume!(regressed > 0.01);
        let p = Problem::new(healthy, regressed, max_trials);
        let (l0, l1) = (x.exp(), y.exp());
        proptest::prop_assert_eq!(p.rule(Looks::EveryTrial, l0, l1), rule_reference(&p, l0, l1));
    }
}

/// Times one rule of the slowest default design (0.6 vs 0.595), new and reference back to
/// back, in CPU time of this thread (the machine is shared):
/// `cargo test --release --lib calibrated::tests::rule_timing -- --ignored --nocapture`.
#[test]
#[ignore]
fn rule_timing() {
    fn cpu_seconds() -> f64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        assert_eq!(rc, 0);
        ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
    }
    let p = Problem::new(0.6, 0.595, 164_816);
    let (l0, l1) = (8e5, 8e5);
    for _ in 0..3 {
        let start = cpu_seconds();
        let new = p.rule(Looks::EveryTrial, l0, l1);
        let fast = cpu_seconds() - start;
        let start = cpu_seconds();
        let old = rule_reference(&p, l0, l1);
        let reference = cpu_seconds() - start;
        assert_eq!(new, old);
        eprintln!(
            "rule {fast:.3} s, reference {reference:.3} s (CPU), ratio {:.2}",
            reference / fast
        );
    }
}

/// Issue 31: a Wald SPRT with shifted thresholds, valid at the same risks and truncation,
/// used fewer expected trials at both rates than the calibrated design (0.6 vs 0.3 at
/// 0.1 / 0.2: 7.78 / 8.90 against 6.10 / 7.70; 0.99 vs 0.89: 16.93 / 12.56 against
/// 15.24 / 9.09). Those rules are candidates now, so the design spends no more at the two
/// rates together than they do.
#[test]
fn calibrated_design_beaten_by_a_wald_with_shifted_thresholds() {
    for (h, r, beaten_by) in [(0.6, 0.3, 6.11 + 7.71), (0.99, 0.89, 15.24 + 9.09)] {
        let d = design_calibrated(h, r, 0.1, 0.2, None).unwrap();
        let cost = d.at_healthy.asn + d.at_regressed.asn;
        assert!(cost <= beaten_by, "{h}/{r}: {d:?}");
        assert!(1.0 - d.at_healthy.p_pass <= 0.1 && d.at_regressed.p_pass <= 0.2);
    }
}

/// The valid Wald SPRTs with thresholds shifted from the textbook ones on `steps` x `steps`
/// points, `step` apart from `offset` on (odd multiples of 0.005 for the grid check), built
/// the way `rule: wald` builds them (nominal risks through `Sprt::new`), independently of
/// [`WaldFamily`]: each that keeps both risks exactly and spends fewer expected trials than
/// `(at_healthy, at_regressed)` at both rates, described.
fn shifted_walds_beating(
    (h, r, a, b): (f64, f64, f64, f64),
    m: u64,
    (offset, step, steps): (f64, f64, i32),
    (at_healthy, at_regressed): (f64, f64),
) -> Vec<String> {
    use super::super::sprt::Sprt;
    let mut beaten = Vec::new();
    let (accept, reject) = ((b / (1.0 - a)).ln(), ((1.0 - b) / a).ln());
    for i in -steps..steps {
        let mut last: Option<Boundaries> = None;
        for j in -steps..steps {
            let (x, y) = (
                (accept + offset + step * f64::from(i)).exp(),
                (reject + offset + step * f64::from(j)).exp(),
            );
            if !(x < 1.0 && y > 1.0) {
                continue;
            }
            let (na, nb) = ((1.0 - x) / (y - x), x * (y - 1.0) / (y - x));
            let Ok(s) = Sprt::new(h, r, na, nb, m) else {
                continue;
            };
            let w = Boundaries::wald(&s);
            // Neighbouring shifts often give the same lattice.
            if last.as_ref() == Some(&w) {
                continue;
            }
            let oc = w.oc_many(&[h, r]);
            let (wh, wr) = (oc[0], oc[1]);
            if 1.0 - wh.p_pass <= a
                && wr.p_pass <= b
                && wh.asn < at_healthy - 1e-9
                && wr.asn < at_regressed - 1e-9
            {
                beaten.push(format!(
                    "{h}/{r} {a}/{b}: Wald at nominal {na}/{nb} spends {} / {} against {at_healthy} / {at_regressed}",
                    wh.asn, wr.asn
                ));
            }
            last = Some(w);
        }
    }
    beaten
}

/// No valid Wald SPRT with thresholds shifted from the textbook ones (odd multiples of 0.01,
/// within 1.0 either way) uses fewer expected trials at both rates than the calibrated
/// design, over a few designs.
#[test]
fn no_valid_wald_with_shifted_thresholds_beats_the_calibrated_design_at_both_rates() {
    for (h, r) in [(0.99, 0.89), (0.9, 0.7), (0.8, 0.6), (0.7, 0.5), (0.6, 0.3)] {
        for (a, b) in [(0.1, 0.2), (0.05, 0.1), (0.2, 0.2), (0.01, 0.1)] {
            let d = design_calibrated(h, r, a, b, None).unwrap();
            let m = d.boundaries.max_trials();
            let beaten = shifted_walds_beating(
                (h, r, a, b),
                m,
                (0.01, 0.02, 50),
                (d.at_healthy.asn, d.at_regressed.asn),
            );
            assert!(beaten.is_empty(), "{}", beaten.join("\n"));
        }
    }
}

/// Issue 31, after the shift grid of 0.02: the full grid check still found valid Wald SPRTs
/// with shifted thresholds (between the grid's points) spending fewer expected trials at both
/// rates than the calibrated design in 5 designs, worst 0.5 vs 0.3 at 0.2 / 0.05 (22.56 /
/// 17.08 against 23.01 / 17.48) and 0.8 vs 0.7 at 0.05 / 0.2 (53.08 / 72.10 against 53.14 /
/// 72.23). The design now weighs [`best_wald`]'s rule, at least as good at both rates as
/// every valid Wald SPRT on its truncation.
#[test]
fn calibrated_design_beaten_at_both_rates_by_a_shifted_wald_between_the_grid_points() {
    for (h, r, a, b) in [
        (0.5, 0.3, 0.2, 0.05),
        (0.8, 0.7, 0.05, 0.2),
        (0.6, 0.3, 0.01, 0.1),
        (0.7, 0.4, 0.01, 0.05),
        (0.99, 0.94, 0.2, 0.2),
    ] {
        let d = design_calibrated(h, r, a, b, None).unwrap();
        let beaten = shifted_walds_beating(
            (h, r, a, b),
            d.boundaries.max_trials(),
            (0.005, 0.01, 100),
            (d.at_healthy.asn, d.at_regressed.asn),
        );
        assert!(beaten.is_empty(), "{}", beaten.join("\n"));
    }
}

/// [`best_wald`]'s rule keeps both risks and spends no more expected trials at either rate
/// than any valid Wald SPRT on the truncation, whatever its thresholds: here every one of a
/// coarse grid of nominal risks far beyond the textbook ones (built by `Sprt::new`, as
/// `rule: wald` builds them), on designs short and long and with rate ratios that put states
/// of different rows on the same LLR (0.8 vs 0.2: ln 4 both ways).
#[test]
fn best_wald_is_at_least_as_good_at_both_rates_as_every_valid_wald() {
    use super::super::sprt::Sprt;
    let mut found = 0;
    for (h, r, a, b, m) in [
        (0.9, 0.7, 0.05, 0.1, 66),
        (0.5, 0.3, 0.2, 0.05, 60),
        (0.8, 0.2, 0.1, 0.1, 12),
        (0.8, 0.7, 0.05, 0.2, 400),
        (0.99, 0.94, 0.2, 0.2, 40),
        (0.6, 0.3, 0.01, 0.1, 40),
    ] {
        // None only when no Wald SPRT on the truncation keeps both risks.
        let best = best_wald(h, r, a, b, m).map(|w| (w.oc(h), w.oc(r)));
        if let Some((bh, br)) = best {
            assert!(
                1.0 - bh.p_pass <= a && br.p_pass <= b,
                "{h}/{r}: {bh:?} {br:?}"
            );
            found += 1;
        }
        for i in 1..60 {
            for j in 1..60 {
                let (na, nb) = (0.4995 * f64::from(i) / 60.0, 0.4995 * f64::from(j) / 60.0);
                let Ok(s) = Sprt::new(h, r, na, nb, m) else {
                    continue;
                };
                let w = Boundaries::wald(&s);
                let (wh, wr) = (w.oc(h), w.oc(r));
                if 1.0 - wh.p_pass <= a && wr.p_pass <= b {
                    let Some((bh, br)) = best else {
                        panic!(
                            "{h}/{r} {a}/{b} at {m}: none found, but Wald at {na}/{nb} is valid"
                        );
                    };
                    assert!(
                        bh.asn <= wh.asn + 1e-9 && br.asn <= wr.asn + 1e-9,
                        "{h}/{r} {a}/{b} at {m}: Wald at {na}/{nb} spends {} / {} against {} / {}",
                        wh.asn,
                        wr.asn,
                        bh.asn,
                        br.asn
                    );
                }
            }
        }
    }
    assert!(found >= 4, "{found}");
}

/// [`WaldFamily::rule`] at a Wald test's own bounds (plus and minus the tie tolerance) is
/// that test's lattice, row for row, so [`best_wald`]'s argument covers the rules gate runs.
#[test]
fn wald_family_rule_is_the_wald_lattice() {
    use super::super::sprt::{Sprt, TIE_TOLERANCE};
    for (h, r, a, b, m) in [
        (0.9, 0.7, 0.05, 0.1, 66),
        (0.8, 0.2, 0.1, 0.1, 30),
        (0.999, 0.995, 0.01, 0.01, 6952),
        (0.5, 0.3, 0.3, 0.02, 200),
    ] {
        let s = Sprt::new(h, r, a, b, m).unwrap();
        let family = WaldFamily::new(h, r, m);
        let rule = family.rule(
            s.accept_llr() + TIE_TOLERANCE,
            s.reject_llr() - TIE_TOLERANCE,
        );
        assert_eq!(rule, Boundaries::wald(&s), "{h}/{r}");
    }
}

/// Issue 31's grid of designs: healthy rates 0.5–0.99 with gaps of 0.05–0.3 to the
/// regressed rate, alpha in {0.01, 0.05, 0.1, 0.2}, beta in {0.05, 0.1, 0.2}. For every
/// design, no valid Wald SPRT whose thresholds are shifted from the textbook ones on a grid
/// of 0.01 (odd multiples of 0.005, within 1.0 either way), built as `rule: wald` builds
/// them, spends fewer expected trials at both rates. Designs truncated beyond
/// [`BEST_WALD_TRIALS`] (whose candidates are the nominal-risk Wald rules only) would be
/// listed, not searched; the grid has none. Minutes in release, so ignored in the suite:
/// `scripts/check-shifted-wald.sh` runs it.
#[test]
#[ignore = "minutes in release: scripts/check-shifted-wald.sh runs it"]
fn no_valid_shifted_wald_beats_the_calibrated_design_over_the_issue_grid() {
    let (mut searched, mut longer, mut beaten) = (0u32, Vec::new(), Vec::new());
    for h in [0.5f64, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99] {
        for gap in [0.05f64, 0.1, 0.2, 0.3] {
            // Rates to two decimals, as a plan writes them.
            let r = ((h - gap) * 100.0).round() / 100.0;
            for a in [0.01f64, 0.05, 0.1, 0.2] {
                for b in [0.05f64, 0.1, 0.2] {
                    let Ok(d) = design_calibrated(h, r, a, b, None) else {
                        continue;
                    };
                    let m = d.boundaries.max_trials();
                    if m > BEST_WALD_TRIALS {
                        longer.push(format!("{h}/{r} {a}/{b}: {m} trials"));
                        continue;
                    }
                    searched += 1;
                    beaten.extend(shifted_walds_beating(
                        (h, r, a, b),
                        m,
                        (0.005, 0.01, 100),
                        (d.at_healthy.asn, d.at_regressed.asn),
                    ));
                    eprintln!(
                        "searched {h}/{r} {a}/{b} ({m} trials): {} beaten so far",
                        beaten.len()
                    );
                }
            }
        }
    }
    eprintln!(
        "{searched} designs searched; {} truncated beyond {BEST_WALD_TRIALS} trials (not searched):\n{}",
        longer.len(),
        longer.join("\n")
    );
    assert!(searched >= 300, "{searched}");
    assert!(beaten.is_empty(), "{}", beaten.join("\n"));
}
