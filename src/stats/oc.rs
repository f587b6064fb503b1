//! The single plan's operating characteristic (OC) and its curtailed average sample number.
//!
//! A single plan (n, c) runs n trials and PASSes iff at most c fail. With per-trial success
//! rate p the failures are Binomial(n, 1 - p), so P(PASS | p) = P(F <= c).
//!
//! Curtailment stops as soon as the verdict can no longer change: at the (c+1)-th failure
//! (FAIL) or the (n-c)-th success (PASS). The OC is unchanged; the expected number of trials
//! drops. Both stopping times are negative-binomial, and summing them gives the closed form
//! used by [`curtailed_asn`] (each sum telescopes into a binomial tail on n + 1 trials):
//!
//! ```text
//! ASN(p) = (c+1)/q · P(Bin(n+1, q) >= c+2) + (n-c)/p · P(Bin(n+1, q) <= c),   q = 1 - p
//! ```

use super::binomial;

/// P(PASS | p) of the single plan (n, c): P(failures <= c), failures ~ Binomial(n, 1 - p),
/// where `p` is the per-trial SUCCESS rate. NaN if p is outside [0, 1].
pub fn single_p_pass(n: u64, c: u64, p: f64) -> f64 {
    if !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    binomial::cdf(n, c, 1.0 - p)
}

/// P(FAIL | p) of the single plan (n, c): P(failures > c). Computed directly rather than as
/// `1 - single_p_pass` so that a small producer's risk keeps its relative precision.
pub fn single_p_fail(n: u64, c: u64, p: f64) -> f64 {
    if !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    binomial::sf(n, c, 1.0 - p)
}

/// Expected trials of the fully curtailed single plan (n, c) at success rate `p`: trials stop
/// at the (c+1)-th failure or the (n-c)-th success. A plan with c >= n passes before any
/// trial, so its ASN is 0. NaN if p is outside [0, 1].
pub fn curtailed_asn(n: u64, c: u64, p: f64) -> f64 {
    if !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if c >= n {
        return 0.0;
    }
    let q = 1.0 - p;
    // The closed form divides by p and q; at the ends the stopping time is deterministic.
    if q == 0.0 {
        return (n - c) as f64;
    }
    if p == 0.0 {
        return (c + 1) as f64;
    }
    let by_failures = (c + 1) as f64 / q * binomial::sf(n + 1, c + 1, q);
    let by_successes = (n - c) as f64 / p * binomial::cdf(n + 1, c, q);
    by_failures + by_successes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ASN by brute force: E[T] = sum over t < n of P(no decision after t trials).
    fn curtailed_asn_brute(n: u64, c: u64, p: f64) -> f64 {
        let q = 1.0 - p;
        // dist[f] = P(f failures after t trials and still undecided).
        let mut dist = vec![1.0f64];
        let mut asn = 0.0;
        for t in 0..n {
            asn += dist.iter().sum::<f64>();
            let mut next = vec![0.0; dist.len() + 1];
            for (f, &m) in dist.iter().enumerate() {
                next[f] += m * p;
                next[f + 1] += m * q;
            }
            let t1 = t + 1;
            for (f, m) in next.iter_mut().enumerate() {
                let f = f as u64;
                let successes = t1 - f;
                if f > c || successes >= n - c {
                    *m = 0.0;
                }
            }
            dist = next;
        }
        asn
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
            let c = n - s;
            let h = (single_p_pass(n, c, 0.9) * 1000.0).round() / 10.0;
            let r = (single_p_pass(n, c, 0.7) * 1000.0).round() / 10.0;
            assert_eq!((h, r), (healthy, regressed), "plan ({n}, >= {s})");
        }
    }

    #[test]
    fn pass_and_fail_are_complementary() {
        for (n, c) in [(1u64, 0u64), (33, 6), (200, 30)] {
            for p in [0.0, 0.2, 0.7, 0.9, 1.0] {
                let s = single_p_pass(n, c, p) + single_p_fail(n, c, p);
                assert!((s - 1.0).abs() < 1e-14);
            }
        }
    }

    #[test]
    fn curtailed_asn_matches_brute_force() {
        for (n, c) in [
            (1u64, 0u64),
            (3, 2),
            (5, 2),
            (10, 3),
            (33, 6),
            (50, 9),
            (40, 0),
        ] {
            for p in [0.0, 0.05, 0.3, 0.5, 0.7, 0.9, 0.999, 1.0] {
                let got = curtailed_asn(n, c, p);
                let want = curtailed_asn_brute(n, c, p);
                assert!(
                    (got - want).abs() <= 1e-12 * want.max(1.0),
                    "ASN({n},{c},{p}) {got} vs {want}"
                );
                assert!(got <= n as f64 + 1e-12);
            }
        }
    }

    #[test]
    fn degenerate_plans_and_bad_rates() {
        assert_eq!(curtailed_asn(3, 3, 0.5), 0.0);
        assert!(curtailed_asn(3, 1, 2.0).is_nan());
        assert!(single_p_pass(3, 1, f64::NAN).is_nan());
        assert_eq!(single_p_pass(3, 3, 0.1), 1.0);
    }
}
