//! Tests of [`super`].

use super::*;
use crate::stats::lattice::State;

fn close(x: f64, y: f64, tol: f64) -> bool {
    (x - y).abs() <= tol * y.abs().max(1.0)
}

/// The run by brute force over (pairs, discordant pairs, head losses), pair by pair,
/// straight from the published rows, the loss route and the four cells: written
/// independently of the negative-binomial folding and of the banded DP. Returns
/// (P(PASS), P(FAIL), P(INCONCLUSIVE), E[pairs]).
fn brute(
    b: &Boundaries,
    route: Option<LossRoute>,
    cells: &PairModel,
    max_pairs: u64,
) -> (f64, f64, f64, f64) {
    let k = b.max_trials() as usize;
    let (loss, win) = (cells.head_only_fail, cells.base_only_fail);
    let same = cells.both_pass + cells.both_fail;
    // mass[t][f]: undecided after some pairs with t discordant, f losses.
    let mut mass = vec![vec![0.0f64; k + 1]; k + 1];
    mass[0][0] = 1.0;
    let (mut pass, mut fail, mut inc, mut pairs) = (0.0, 0.0, 0.0, 0.0);
    for n in 1..=max_pairs {
        let mut next = vec![vec![0.0f64; k + 1]; k + 1];
        for t in 0..=k {
            for f in 0..=t {
                let m = mass[t][f];
                if m == 0.0 {
                    continue;
                }
                next[t][f] += m * same;
                for (df, pr) in [(1usize, loss), (0, win)] {
                    let (t2, f2) = (t + 1, f + df);
                    let mm = m * pr;
                    match b.decide(t2 as u64, f2 as u64) {
                        State::Continue => next[t2][f2] += mm,
                        State::Pass => {
                            pass += mm;
                            pairs += mm * n as f64;
                        }
                        State::Fail => {
                            fail += mm;
                            pairs += mm * n as f64;
                        }
                        State::Truncated => {
                            inc += mm;
                            pairs += mm * n as f64;
                        }
                    }
                }
            }
        }
        // The loss route, after the lattice: f losses in n pairs.
        if let Some(r) = route {
            for row in next.iter_mut() {
                for (f, m) in row.iter_mut().enumerate() {
                    if *m != 0.0 && r.passes(n, f as u64) {
                        pass += *m;
                        pairs += *m * n as f64;
                        *m = 0.0;
                    }
                }
            }
        }
        mass = next;
    }
    let left: f64 = mass.iter().flatten().sum();
    (pass, fail, inc + left, pairs + left * max_pairs as f64)
}

fn design(r: f64, alpha: f64, beta: f64, max_pairs: Option<u64>) -> CompareDesign {
    CompareDesign::new(&CompareSpec {
        alpha,
        beta,
        max_pairs,
        ..CompareSpec::new(Effect::OddsRatio(r))
    })
    .expect("design")
}

#[test]
fn rates_translate_to_the_odds_ratio_and_back() {
    assert!(close(odds_ratio_of_rates(0.9, 0.8), 2.25, 1e-12));
    assert!(close(rate_at_odds_ratio(0.9, 2.25), 0.8, 1e-12));
    let e = Effect::Rates {
        base: 0.9,
        regressed: 0.8,
    };
    assert!(close(e.odds_ratio().unwrap(), 2.25, 1e-12));
    // Under independence θ of those rates is exactly θ1 = R / (1 + R).
    let m = PairModel::independent(0.9, 0.8).unwrap();
    assert!(close(m.theta().unwrap(), 2.25 / 3.25, 1e-12));
    assert!(close(m.discordance(), 0.9 * 0.2 + 0.8 * 0.1, 1e-12));
    assert!(close(m.base_rate(), 0.9, 1e-12) && close(m.head_rate(), 0.8, 1e-12));
}

#[test]
fn bad_effects_are_errors_naming_the_parameter() {
    for r in [1.0, 0.5, -2.0, f64::NAN, f64::INFINITY] {
        assert!(
            matches!(
                Effect::OddsRatio(r).odds_ratio(),
                Err(StatsError::OutOfRange {
                    name: "odds_ratio",
                    ..
                })
            ),
            "{r}"
        );
    }
    let rates = |base, regressed| Effect::Rates { base, regressed }.odds_ratio();
    assert_eq!(
        rates(0.8, 0.9),
        Err(StatsError::NotWorse {
            base: 0.8,
            regressed: 0.9
        })
    );
    assert!(matches!(rates(0.8, 0.8), Err(StatsError::NotWorse { .. })));
    assert!(matches!(
        rates(1.0, 0.8),
        Err(StatsError::OutOfRange { name: "base", .. })
    ));
    assert!(matches!(
        rates(0.9, 0.0),
        Err(StatsError::OutOfRange {
            name: "regressed",
            ..
        })
    ));
    let spec = CompareSpec {
        max_pairs: Some(0),
        ..CompareSpec::new(Effect::OddsRatio(2.0))
    };
    assert!(matches!(
        CompareDesign::new(&spec),
        Err(StatsError::OutOfRange {
            name: "max_pairs",
            ..
        })
    ));
    let spec = CompareSpec {
        max_pairs: Some(5),
        ..CompareSpec::new(Effect::OddsRatio(2.25))
    };
    assert!(matches!(
        CompareDesign::new(&spec),
        Err(StatsError::NoSequential { .. })
    ));
    assert!(PairModel::from_cells(0.5, 0.5, 0.1, 0.0).is_err());
    assert!(PairModel::from_cells(0.5, 0.6, -0.1, 0.0).is_err());
}

#[test]
fn ninety_versus_eighty_meets_every_risk_with_the_default_pairs() {
    let d = CompareDesign::new(&CompareSpec::new(Effect::Rates {
        base: 0.9,
        regressed: 0.8,
    }))
    .unwrap();
    assert!(close(d.odds_ratio, 2.25, 1e-12));
    assert!(d.lattice_realised_alpha() <= d.lattice_alpha);
    assert!(d.realised_alpha() <= 0.05, "{}", d.realised_alpha());
    assert!(d.realised_beta() <= 0.10);
    // The default max_pairs is the smallest that keeps alpha at the floor.
    let by_t = stops_by_discordant(&d.boundaries, 0.5);
    let risk = |m| 1.0 - truncate(&by_t, DISCORDANCE_FLOOR, m).p_pass;
    assert!(risk(d.max_pairs) <= 0.05 && risk(d.max_pairs - 1) > 0.05);
    // The floor for this max_pairs is at or below the design floor.
    let floor = d.min_discordance_for_alpha().unwrap();
    assert!(floor <= DISCORDANCE_FLOOR + 1e-12, "{floor}");
    let (lo, hi) = d.base_range_for_alpha().unwrap();
    assert!(lo < 0.06 && hi > 0.94, "{lo} {hi}");
    // The published lattice decides alone: recompute from its rows.
    let again = Boundaries::new(d.boundaries.rows().to_vec()).unwrap();
    assert_eq!(again.oc(0.5), d.at_null);
    eprintln!(
        "R 2.25: max_trials {}, max_pairs {}, ASN {:.1}/{:.1} vs bound {:?}",
        d.boundaries.max_trials(),
        d.max_pairs,
        d.at_null.asn,
        d.at_alternative.asn,
        d.wald_bound()
    );
    let (r0, r1) = d.asn_ratio();
    assert!(r0 <= 1.10 && r1 <= 1.10, "{r0} {r1}");
}

#[test]
fn alpha_holds_on_a_grid_of_base_rates_and_for_correlated_pairs() {
    for (r, alpha, beta) in [(2.25, 0.05, 0.10), (4.0, 0.1, 0.2), (1.8, 0.05, 0.05)] {
        let d = design(r, alpha, beta, None);
        let floor = d.min_discordance_for_alpha().unwrap();
        // Every third point: each is a full two-route DP over up to max_pairs pairs.
        for i in (1..100).step_by(3) {
            let b = f64::from(i) / 100.0;
            // Independent sides, head = base.
            let m = PairModel::independent(b, b).unwrap();
            let oc = d.oc_pairs(&m);
            assert!(oc.p_fail <= alpha, "{r} at {b}: {oc:?}");
            if m.discordance() >= floor {
                assert!(1.0 - oc.p_pass <= alpha, "{r} at {b}: {oc:?}");
            }
            // Correlated sides with the same rates: any head-only-fail share x with
            // x <= min(b, 1 - b), from perfectly correlated (x = 0) up.
            for j in 0..=10 {
                let x = b.min(1.0 - b) * f64::from(j) / 10.0;
                let m =
                    PairModel::from_cells((b - x).max(0.0), (1.0 - b - x).max(0.0), x, x).unwrap();
                let oc = d.oc_pairs(&m);
                assert!(oc.p_fail <= alpha, "{r} at {b}, {x}: {oc:?}");
                if m.discordance() >= d.min_discordance {
                    assert!(1.0 - oc.p_pass <= alpha, "{r} at {b}, {x}: {oc:?}");
                }
            }
            // The regression to detect, at this base rate: beta for every base rate when
            // the fall is at least `drop` points; the lattice alone keeps its own share
            // (P(PASS | θ1)) whatever the fall.
            let h = rate_at_odds_ratio(b, r);
            let oc = d.oc_independent(b, h).unwrap();
            if b - h >= d.drop {
                assert!(oc.p_pass <= beta, "{r} at {b} vs {h}: {oc:?}");
            }
            let lattice = d.oc_lattice_only(b * (1.0 - h) + h * (1.0 - b), d.theta1());
            assert!(lattice.p_pass <= d.lattice_realised_beta() + 1e-12);
            // A head better than base fails even less often.
            let better = rate_at_odds_ratio(b, 1.0 / r);
            assert!(d.oc_independent(b, better).unwrap().p_fail <= alpha);
        }
    }
}

#[test]
fn the_oc_of_a_recorded_lattice_is_the_designs() {
    let d = design(2.25, 0.05, 0.1, Some(300));
    for (disc, theta) in [(0.1, 0.5), (0.26, 0.69), (1.0, 0.5), (0.0, 0.5)] {
        assert_eq!(
            oc_of_lattice(&d.boundaries, d.loss_route, d.max_pairs, disc, theta),
            d.oc_discordance(disc, theta)
        );
    }
    assert!(
        oc_of_lattice(&d.boundaries, d.loss_route, 300, 1.5, 0.5)
            .p_pass
            .is_nan()
    );
    assert_eq!(
        min_discordance_of_lattice(&d.boundaries, d.max_pairs, d.alpha),
        d.min_discordance_for_alpha()
    );
}

#[test]
fn out_of_pairs_when_nothing_is_ever_discordant() {
    let d = design(2.25, 0.05, 0.1, Some(300));
    // The lattice alone never gets a discordant pair to read.
    let oc = d.oc_lattice_only(0.0, 0.5);
    assert_eq!((oc.p_pass, oc.p_fail, oc.p_out_of_pairs), (0.0, 0.0, 1.0));
    assert_eq!(oc.expected_pairs, 300.0);
    // With the loss route, no loss at all PASSes at its first pair.
    let route = d.loss_route.unwrap();
    let oc = d.oc_independent(1.0, 1.0).unwrap();
    assert_eq!((oc.p_pass, oc.p_fail, oc.p_out_of_pairs), (1.0, 0.0, 0.0));
    assert_eq!(oc.expected_pairs, route.first as f64);
    let oc = d.oc_independent(0.0, 0.0).unwrap();
    assert_eq!((oc.p_pass, oc.expected_pairs), (1.0, route.first as f64));
    // All discordant: pairs are discordant pairs.
    let oc = d.oc_lattice_only(1.0, 0.5);
    let lattice = d.oc_theta(0.5);
    assert!(close(oc.p_pass, lattice.p_pass, 1e-12));
    assert!(close(oc.expected_pairs, lattice.asn, 1e-12));
}

#[test]
fn wald_rule_is_the_sprt_lattice_on_discordant_pairs() {
    let spec = CompareSpec {
        rule: SequentialKind::Wald,
        ..CompareSpec::new(Effect::OddsRatio(3.0))
    };
    let d = CompareDesign::new(&spec).unwrap();
    let s = sprt::Sprt::new(
        0.5,
        0.25,
        d.lattice_alpha,
        d.lattice_beta,
        d.boundaries.max_trials(),
    )
    .unwrap();
    assert_eq!(d.boundaries, Boundaries::wald(&s));
}

/// Run compare pairs the way a runner would: draw a pair's four cells, feed discordant
/// pairs to the published lattice, PASS by the loss route when head's losses are few
/// enough, stop at a verdict or `max_pairs`.
#[test]
fn exact_oc_matches_seeded_monte_carlo() {
    struct SplitMix64(u64);
    impl SplitMix64 {
        fn next_f64(&mut self) -> f64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            (z >> 11) as f64 / (1u64 << 53) as f64
        }
    }
    let d = design(2.25, 0.05, 0.10, Some(400));
    let route = d.loss_route.unwrap();
    let runs = 40_000u32;
    for (seed, base, head) in [
        (7u64, 0.9, 0.9),
        (8, 0.9, 0.8),
        (9, 0.6, 0.5),
        (10, 0.97, 0.97),
        (11, 1.0, 1.0),
        (12, 0.99, 0.99),
    ] {
        let exact = d.oc_independent(base, head).unwrap();
        let mut rng = SplitMix64(seed);
        let (mut pass, mut fail, mut sum, mut sum2) = (0u32, 0u32, 0.0f64, 0.0f64);
        for _ in 0..runs {
            let (mut t, mut f, mut n) = (0u64, 0u64, 0u64);
            let state = loop {
                if n == d.max_pairs {
                    break State::Truncated;
                }
                n += 1;
                let head_pass = rng.next_f64() < head;
                let base_pass = rng.next_f64() < base;
                if head_pass != base_pass {
                    t += 1;
                    f += u64::from(base_pass);
                    match d.boundaries.decide(t, f) {
                        State::Continue => {}
                        s => break s,
                    }
                }
                if route.passes(n, f) {
                    break State::Pass;
                }
            };
            match state {
                State::Pass => pass += 1,
                State::Fail => fail += 1,
                _ => {}
            }
            sum += n as f64;
            sum2 += (n * n) as f64;
        }
        let n = f64::from(runs);
        for (name, count, prob) in [("pass", pass, exact.p_pass), ("fail", fail, exact.p_fail)] {
            let se = (prob * (1.0 - prob) / n).sqrt().max(1e-4);
            let got = f64::from(count) / n;
            assert!(
                (got - prob).abs() <= 4.0 * se,
                "{base}/{head} {name}: {got} vs {prob}"
            );
        }
        let mean = sum / n;
        let se = ((sum2 / n - mean * mean) / n).sqrt();
        assert!(
            (mean - exact.expected_pairs).abs() <= 4.0 * se,
            "{base}/{head} pairs: {mean} vs {}",
            exact.expected_pairs
        );
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20))]

    /// The exact OC with truncation against the brute-force pair DP over random designs,
    /// rules, truncations and (correlated) pair distributions.
    #[test]
    fn exact_oc_matches_the_brute_pair_dp(
        r in 2.5f64..8.0,
        alpha in 0.05f64..0.25,
        beta in 0.05f64..0.25,
        wald in proptest::bool::ANY,
        stretch in 1.0f64..3.0,
        both_pass in 0.0f64..1.0,
        loss in 0.0f64..1.0,
        win in 0.0f64..1.0,
    ) {
        let rule = if wald { SequentialKind::Wald } else { SequentialKind::Calibrated };
        let base = CompareDesign::new(&CompareSpec {
            alpha, beta, rule, ..CompareSpec::new(Effect::OddsRatio(r))
        });
        proptest::prop_assume!(base.is_ok());
        let k = base.unwrap().boundaries.max_trials();
        proptest::prop_assume!(k <= 80);
        let max_pairs = (k as f64 * stretch).round() as u64;
        let d = CompareDesign::new(&CompareSpec {
            alpha, beta, rule, max_pairs: Some(max_pairs),
            ..CompareSpec::new(Effect::OddsRatio(r))
        }).unwrap();
        // Four cells: a concordant share split into both pass / both fail, the rest
        // split into head losses and head wins.
        let concordant = 0.1 + 0.85 * both_pass;
        let total = loss + win;
        proptest::prop_assume!(total > 0.0);
        let disc = 1.0 - concordant;
        let cells = PairModel::from_cells(
            concordant * both_pass, concordant * (1.0 - both_pass),
            disc * loss / total, disc * win / total,
        ).unwrap();
        let got = d.oc_pairs(&cells);
        let (pass, fail, inc, pairs) = brute(&d.boundaries, d.loss_route, &cells, max_pairs);
        proptest::prop_assert!(close(got.p_pass, pass, 1e-10), "{got:?} vs {pass}");
        proptest::prop_assert!(close(got.p_fail, fail, 1e-10), "{got:?} vs {fail}");
        proptest::prop_assert!(close(got.p_inconclusive, inc, 1e-10), "{got:?} vs {inc}");
        proptest::prop_assert!(close(got.expected_pairs, pairs, 1e-9), "{got:?} vs {pairs}");
        // The lattice alone, by the negative-binomial fold, against the same brute force.
        let (disc, theta) = (cells.discordance(), cells.theta().unwrap());
        let got = d.oc_lattice_only(disc, theta);
        let (pass, fail, inc, pairs) = brute(&d.boundaries, None, &cells, max_pairs);
        proptest::prop_assert!(close(got.p_pass, pass, 1e-10), "{got:?} vs {pass}");
        proptest::prop_assert!(close(got.p_fail, fail, 1e-10), "{got:?} vs {fail}");
        proptest::prop_assert!(close(got.p_inconclusive, inc, 1e-10), "{got:?} vs {inc}");
        proptest::prop_assert!(close(got.expected_pairs, pairs, 1e-9), "{got:?} vs {pairs}");
    }
}

/// The whole rule's OC by walking every sequence of pair outcomes (loss, win, concordant)
/// of a short run, deciding each by hand in the order the sampler does (lattice, then the
/// loss route, then `max_pairs`): a plain recursion, no DP. Checked over a grid of base
/// rates, drops and within-pair correlations.
#[test]
fn the_published_oc_over_base_rate_drop_and_correlation_matches_every_sequence() {
    // R 6 at risks .2/.2 keeps the lattice short; `max_pairs` 12 keeps the recursion small;
    // a drop of 40 points puts the loss route inside it.
    let d = CompareDesign::new(&CompareSpec {
        alpha: 0.2,
        beta: 0.2,
        max_pairs: Some(12),
        drop: Some(0.4),
        ..CompareSpec::new(Effect::OddsRatio(6.0))
    })
    .unwrap();
    let route = d.loss_route.expect("the route fits in 12 pairs");
    struct Walk<'a> {
        d: &'a CompareDesign,
        route: LossRoute,
        p: [f64; 3],
        out: [f64; 3],
        pairs: f64,
    }
    fn walk(w: &mut Walk, n: u64, t: u64, f: u64, prob: f64) {
        if prob == 0.0 {
            return;
        }
        if n == w.d.max_pairs {
            w.out[2] += prob;
            w.pairs += prob * n as f64;
            return;
        }
        for kind in 0..3 {
            let q = prob * w.p[kind];
            let (n1, t1, f1) = (n + 1, t + u64::from(kind < 2), f + u64::from(kind == 0));
            let lattice = if kind < 2 {
                w.d.boundaries.decide(t1, f1)
            } else {
                State::Continue
            };
            let end = match lattice {
                State::Pass => Some(0),
                State::Fail => Some(1),
                State::Truncated => Some(2),
                State::Continue if w.route.passes(n1, f1) => Some(0),
                State::Continue => None,
            };
            match end {
                Some(v) => {
                    w.out[v] += q;
                    w.pairs += q * n1 as f64;
                }
                None => walk(w, n1, t1, f1, q),
            }
        }
    }
    for base in [0.5f64, 0.8, 0.95, 1.0] {
        for drop in [0.0f64, 0.2, 0.4, 0.5] {
            let head = base - drop;
            if head < 0.0 {
                continue;
            }
            // Correlation from the least to the most the rates allow: the loss cell ranges
            // over [max(0, base - head), min(base, 1 - head)].
            let (lo, hi) = ((base - head).max(0.0), base.min(1.0 - head));
            for j in 0..=4 {
                let loss = lo + (hi - lo) * f64::from(j) / 4.0;
                let win = loss - (base - head);
                let cells =
                    PairModel::from_cells(base - loss, 1.0 - base - win, loss, win).unwrap();
                let mut w = Walk {
                    d: &d,
                    route,
                    p: [loss, win, 1.0 - loss - win],
                    out: [0.0; 3],
                    pairs: 0.0,
                };
                walk(&mut w, 0, 0, 0, 1.0);
                let got = d.oc_pairs(&cells);
                let at = format!(
                    "base {base} drop {drop} loss {loss}: {got:?} vs {:?} {}",
                    w.out, w.pairs
                );
                assert!(close(got.p_pass, w.out[0], 1e-10), "{at}");
                assert!(close(got.p_fail, w.out[1], 1e-10), "{at}");
                assert!(close(got.p_inconclusive, w.out[2], 1e-10), "{at}");
                assert!(close(got.expected_pairs, w.pairs, 1e-10), "{at}");
            }
        }
    }
}

/// Review 7, c12: with no discordant pair (both sides always pass, or always fail) the loss
/// route PASSes within a fixed number of pairs, so alpha holds at discordance 0 with the
/// default `max_pairs`; the search said "never" there.
#[test]
fn review7_c12_alpha_needs_pairs_at_discordance_zero_is_the_loss_route() {
    let d = design(3.0, 0.05, 0.1, None);
    assert!(
        d.loss_route.is_some(),
        "the default design has a loss route"
    );
    let m = d
        .max_pairs_for_alpha_at(0.0, d.max_pairs)
        .expect("alpha holds at discordance 0");
    assert!(m <= d.max_pairs);
    // It is where the loss route alone reaches P(PASS) >= 1 - alpha: exactly there, one
    // pair fewer does not.
    let p = |n: u64| oc_of_lattice(&d.boundaries, d.loss_route, n, 0.0, 0.5).p_pass;
    assert!(p(m) >= 1.0 - d.alpha && p(m - 1) < 1.0 - d.alpha);
    // Without a loss route nothing decides at discordance 0.
    assert_eq!(
        max_pairs_for_alpha(&d.boundaries, None, 0.0, 0.05, 1000),
        None
    );
}
