//! Tests of [`super`].

use super::*;
use crate::stats::sprt::Sprt;

/// Every path of outcomes, by enumeration: the exact reference for small rules.
/// Returns (P(PASS), P(FAIL), P(INCONCLUSIVE), ASN).
fn brute(b: &Boundaries, p: f64) -> (f64, f64, f64, f64) {
    let m = b.max_trials();
    let mut out = (0.0, 0.0, 0.0, 0.0);
    for mask in 0u64..(1u64 << m) {
        let (mut f, mut prob) = (0u64, 1.0);
        for bit in 0..m {
            let failed = mask >> bit & 1 == 1;
            f += u64::from(failed);
            prob *= if failed { 1.0 - p } else { p };
            let state = b.decide(bit + 1, f);
            if state != State::Continue {
                // Count each stopped path once: only the mask whose later bits are 0.
                if mask >> (bit + 1) == 0 {
                    out.3 += prob * (bit + 1) as f64;
                    match state {
                        State::Pass => out.0 += prob,
                        State::Fail => out.1 += prob,
                        _ => out.2 += prob,
                    }
                }
                break;
            }
        }
    }
    out
}

/// The DP written plainly, which [`Boundaries::walk`] is held to bit for bit: every failure
/// count 0..=t at every t (an absorbed state holds 0), each state's fate by
/// [`Boundaries::decide`], the stops in the walk's order, and its rule for ending early.
/// Returns the OC from the stops, summed as [`Boundaries::oc`] sums them, and the stops.
pub(super) fn reference(b: &Boundaries, p: f64) -> (Oc, Vec<Terminal>) {
    let q = 1.0 - p;
    let p = if p < 0.5 { 1.0 - q } else { p };
    let mut stops = Vec::new();
    let mut row = vec![1.0f64];
    for t in 1..=b.max_trials() {
        if (t - 1) % MASS_CHECK == 0 && row.iter().sum::<f64>() < f64::MIN_POSITIVE {
            break;
        }
        let f_max = t as usize;
        // 0 + x is x exactly, so the ends and a state next to an absorbed one take one term.
        row = (0..=f_max)
            .map(|f| {
                let failed = if f > 0 { row[f - 1] * q } else { 0.0 };
                failed + row.get(f).map_or(0.0, |&m| m * p)
            })
            .collect();
        let order = (0..=f_max).map(|f| (f, State::Pass));
        let order = order.chain((0..=f_max).rev().map(|f| (f, State::Fail)));
        for (f, state) in order.chain((0..=f_max).map(|f| (f, State::Truncated))) {
            if b.decide(t, f as u64) == state {
                if row[f] > 0.0 {
                    stops.push(Terminal {
                        trials: t,
                        failures: f as u64,
                        state,
                        prob: row[f],
                    });
                }
                row[f] = 0.0;
            }
        }
    }
    let mut sums = [Sum::default(); 4];
    for s in &stops {
        sums[3].add(s.trials as f64 * s.prob);
        sums[s.state.stop_index()].add(s.prob);
    }
    let oc = Oc::of_sums(sums);
    (oc, stops)
}

fn close(x: f64, y: f64) -> bool {
    (x - y).abs() <= 1e-12 * y.abs().max(1.0)
}

#[test]
fn oc_matches_path_enumeration_for_wald_single_and_odd_rules() {
    let odd = Boundaries::from_fn(9, |t| match t {
        1 => (None, None),
        2 => (None, Some(2)),
        3 => (Some(0), Some(2)),
        4 | 5 => (Some(0), Some(3)),
        6 => (Some(1), Some(2)),
        _ => (Some(1), Some(3)),
    })
    .unwrap();
    let rules = [
        Boundaries::wald(&Sprt::new(0.9, 0.7, 0.05, 0.10, 14).unwrap()),
        Boundaries::single(12, 3).unwrap(),
        odd,
    ];
    for b in &rules {
        for p in [0.0, 0.3, 0.55, 0.7, 0.9, 1.0] {
            let oc = b.oc(p);
            let (pass, fail, inc, asn) = brute(b, p);
            assert!(close(oc.p_pass, pass), "{p}: {oc:?} vs {pass}");
            assert!(close(oc.p_fail, fail), "{p}: {oc:?} vs {fail}");
            assert!(close(oc.p_inconclusive, inc), "{p}: {oc:?} vs {inc}");
            assert!(close(oc.asn, asn), "{p}: {oc:?} vs {asn}");
            let terms: f64 = b.terminals(p).iter().map(|t| t.prob).sum();
            assert!(close(terms, 1.0));
        }
    }
}

#[test]
fn the_single_plans_closed_form_is_its_walk() {
    for (n, c) in [
        (1u64, 0u64),
        (3, 2),
        (5, 2),
        (10, 3),
        (33, 6),
        (50, 9),
        (40, 0),
    ] {
        let b = Boundaries::single(n, c).unwrap();
        assert_eq!(b.single, Some((n, c)));
        for p in [0.0, 0.05, 0.3, 0.5, 0.7, 0.9, 0.999, 1.0] {
            let (fast, walk) = (b.oc(p), b.oc_lanes([p])[0]);
            assert!(close(fast.p_pass, walk.p_pass), "{n} {c} {p}");
            assert!(close(fast.p_fail, walk.p_fail), "{n} {c} {p}");
            assert!(
                close(fast.asn, walk.asn),
                "ASN({n},{c},{p}) {fast:?} vs {walk:?}"
            );
            assert_eq!(fast.p_inconclusive, 0.0);
            assert!(fast.asn <= n as f64 + 1e-12);
            assert!((fast.p_pass + fast.p_fail - 1.0).abs() < 1e-14);
        }
    }
    assert!(Boundaries::single(3, 3).is_err());
    let mut rows = Boundaries::single(10, 2).unwrap().rows().to_vec();
    rows[0].fail_min_failures = Some(1);
    assert_eq!(Boundaries::new(rows).unwrap().single, None);
    let c_at_least_n = single_oc(3, 3, 0.5);
    assert_eq!((c_at_least_n.p_pass, c_at_least_n.asn), (1.0, 0.0));
    assert!(single_oc(3, 1, 2.0).asn.is_nan() && single_oc(3, 1, f64::NAN).p_pass.is_nan());
}

#[test]
fn published_single_plans_at_ninety_vs_seventy() {
    // "Two CI retries turn a 60% agent into a green build": n, pass if at least s succeed,
    // healthy 90% passes, regressed 70% passes (percent, one decimal).
    let table = [
        (5u64, 3u64, 99.1, 83.7),
        (10, 7, 98.7, 65.0),
        (20, 16, 95.7, 23.8),
        (50, 41, 97.5, 4.0),
    ];
    for (n, s, healthy, regressed) in table {
        let b = Boundaries::single(n, n - s).unwrap();
        let h = (b.oc(0.9).p_pass * 1000.0).round() / 10.0;
        let r = (b.oc(0.7).p_pass * 1000.0).round() / 10.0;
        assert_eq!((h, r), (healthy, regressed), "plan ({n}, >= {s})");
    }
}

#[test]
fn compact_form_round_trips_and_rejects_bad_tables() {
    let b = Boundaries::wald(&Sprt::new(0.9, 0.7, 0.05, 0.10, 66).unwrap());
    let json = serde_json::to_string(&b).unwrap();
    assert!(json.starts_with(r#"{"max_trials":66,"changes":[[1,null,null],"#));
    let back: Boundaries = serde_json::from_str(&json).unwrap();
    assert_eq!(back, b);
    for bad in [
        r#"{"max_trials":0,"changes":[[1,null,null]]}"#,
        r#"{"max_trials":5,"changes":[[2,null,null]]}"#,
        r#"{"max_trials":5,"changes":[[1,null,null],[1,0,null]]}"#,
        r#"{"max_trials":5,"changes":[[1,null,null],[6,0,null]]}"#,
        r#"{"max_trials":5,"changes":[[1,2,2]]}"#,
    ] {
        assert!(serde_json::from_str::<Boundaries>(bad).is_err(), "{bad}");
    }
}

#[test]
fn decide_reads_the_rows() {
    let b = Boundaries::single(5, 1).unwrap();
    assert_eq!(b.decide(0, 0), State::Continue);
    assert_eq!(b.decide(2, 2), State::Fail);
    assert_eq!(b.decide(4, 0), State::Pass);
    assert_eq!(b.decide(4, 1), State::Continue);
    assert_eq!(b.decide(5, 1), State::Pass);
    assert_eq!(b.earliest(), (Some(4), Some(2)));
    let odd = Boundaries::from_fn(2, |_| (None, Some(5))).unwrap();
    assert_eq!(odd.decide(2, 1), State::Truncated);
    assert_eq!(odd.earliest(), (None, None));
}

/// The unavailable OC by enumeration over every sequence of pass / fail / unavailable.
fn brute_unavailable(b: &Boundaries, p: f64, u: f64, budget: u64) -> [f64; 5] {
    // [pass, fail, truncated, budget, trials]
    let mut out = [0.0; 5];
    fn go(
        b: &Boundaries,
        probs: [f64; 3],
        budget: u64,
        st: (u64, u64, u64, f64),
        out: &mut [f64; 5],
    ) {
        let (t, f, un, prob) = st;
        for (k, &pk) in probs.iter().enumerate() {
            let (t2, f2, un2) = match k {
                0 => (t + 1, f, un),
                1 => (t + 1, f + 1, un),
                _ => (t, f, un + 1),
            };
            let p2 = prob * pk;
            let trials = (t2 + un2) as f64;
            if un2 > budget {
                out[3] += p2;
                out[4] += p2 * trials;
                continue;
            }
            match if k == 2 {
                State::Continue
            } else {
                b.decide(t2, f2)
            } {
                State::Continue => go(b, probs, budget, (t2, f2, un2, p2), out),
                s => {
                    let i = match s {
                        State::Pass => 0,
                        State::Fail => 1,
                        _ => 2,
                    };
                    out[i] += p2;
                    out[4] += p2 * trials;
                }
            }
        }
    }
    go(
        b,
        [(1.0 - u) * p, (1.0 - u) * (1.0 - p), u],
        budget,
        (0, 0, 0, 1.0),
        &mut out,
    );
    out
}

#[test]
fn unavailable_oc_matches_enumeration() {
    let rules = [
        Boundaries::single(6, 1).unwrap(),
        Boundaries::wald(&Sprt::new(0.8, 0.4, 0.1, 0.1, 7).unwrap()),
    ];
    for b in &rules {
        for (p, u, budget) in [
            (0.8, 0.1, 1u64),
            (0.5, 0.3, 2),
            (0.9, 0.0, 0),
            (0.7, 0.2, 0),
        ] {
            let got = b.oc_unavailable(p, u, budget);
            let want = brute_unavailable(b, p, u, budget);
            let have = [
                got.p_pass,
                got.p_fail,
                got.p_truncated,
                got.p_budget,
                got.asn_trials,
            ];
            for (x, y) in have.iter().zip(want) {
                assert!(
                    (x - y).abs() < 1e-12,
                    "{p} {u} {budget}: {have:?} vs {want:?}"
                );
            }
            if u == 0.0 {
                assert!(close(got.asn_graded, b.oc(p).asn));
            }
        }
    }
}

#[test]
fn launched_with_jobs_adds_the_lanes_in_flight() {
    let b = Boundaries::single(33, 6).unwrap();
    // One lane launches exactly the graded trials.
    assert!(close(b.expected_launched(0.9, 1), b.oc(0.9).asn));
    // By enumeration of the graded stop: E[min(T + 3, 33)].
    let want: f64 = b
        .terminals(0.9)
        .iter()
        .map(|t| t.prob * (t.trials + 3).min(33) as f64)
        .sum();
    assert!(close(b.expected_launched(0.9, 4), want));
    assert!(b.expected_launched(0.9, 100) <= 33.0 + 1e-12);
}
