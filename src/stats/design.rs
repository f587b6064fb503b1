//! Designing the single plan: the smallest n, then the smallest c, with
//! P(PASS | healthy) >= 1 - alpha and P(PASS | regressed) <= beta.
//!
//! For a given n the best c is the smallest one meeting the producer's risk (a larger c
//! only raises P(PASS | regressed)), so n is feasible iff that c also meets the consumer's
//! risk. Feasibility is not monotone in n — because c is an integer, n = 33 can work while
//! n = 34 does not — so a bisection over n can overshoot the smallest feasible n.
//!
//! The search here is a left-first divide and conquer over n in `[1, DESIGN_LIMIT]` that
//! prunes whole blocks of n with a bound that is valid for every n in the block: for
//! `a <= n <= b`, the smallest admissible c is at least `c_min(a)` (more trials, more
//! failures), and P(PASS | regressed) at (n, c) is at least its value at (b, `c_min(a)`).
//! So if `P(F <= c_min(a) | b trials, regressed) > beta`, no n in `[a, b]` is feasible. Blocks
//! that cannot be pruned are split; a block of one n is tested exactly. The first feasible n
//! found this way is the smallest one — literally, not up to bisection — and the work is a
//! few hundred binomial tails even when the answer needs thousands of trials.

use super::{StatsError, binomial};

/// The largest n the design searches. A CI gate that needs more than this many trials per
/// task cannot run, and the bound keeps every search finite.
pub const DESIGN_LIMIT: u64 = 100_000;

/// A single plan (n, c) and its exact risks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SingleDesign {
    /// Trials to run.
    pub n: u64,
    /// Acceptance number: PASS iff at most `c` trials fail.
    pub c: u64,
    /// P(PASS | healthy): at least 1 - alpha.
    pub p_pass_healthy: f64,
    /// P(PASS | regressed): at most beta.
    pub p_pass_regressed: f64,
}

impl SingleDesign {
    /// Successes needed to PASS: n - c.
    pub fn min_successes(&self) -> u64 {
        self.n - self.c
    }
}

/// The smallest single plan telling `healthy` from `regressed` with risks `alpha`, `beta`.
///
/// Rates in (0, 1) with healthy > regressed; alpha and beta in (0, 0.5). Returns
/// [`StatsError::NoPlan`] if no n up to [`DESIGN_LIMIT`] works.
pub fn design_single(
    healthy: f64,
    regressed: f64,
    alpha: f64,
    beta: f64,
) -> Result<SingleDesign, StatsError> {
    super::check_rule_rates(healthy, regressed, alpha, beta)?;
    let search = Search {
        q_healthy: 1.0 - healthy,
        q_regressed: 1.0 - regressed,
        alpha,
        beta,
    };
    match search.first_feasible(1, DESIGN_LIMIT) {
        Some((n, c)) => Ok(SingleDesign {
            n,
            c,
            p_pass_healthy: binomial::cdf(n, c, search.q_healthy),
            p_pass_regressed: search.pass_regressed(n, c),
        }),
        None => Err(StatsError::NoPlan {
            limit: DESIGN_LIMIT,
            alpha,
            beta,
        }),
    }
}

/// The feasibility questions of one design problem, in failure rates.
struct Search {
    q_healthy: f64,
    q_regressed: f64,
    alpha: f64,
    beta: f64,
}

impl Search {
    /// The smallest c with P(FAIL | healthy) = P(F > c) <= alpha at n trials. The tail is
    /// compared directly (not 1 - P(PASS)) so a small alpha keeps its precision.
    fn min_c(&self, n: u64) -> u64 {
        // P(F > n) = 0 <= alpha, so the answer lies in [0, n]; P(F > c) falls as c grows.
        let (mut lo, mut hi) = (0u64, n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if binomial::sf(n, mid, self.q_healthy) <= self.alpha {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// P(PASS | regressed) for the plan (n, c).
    fn pass_regressed(&self, n: u64, c: u64) -> f64 {
        binomial::cdf(n, c, self.q_regressed)
    }

    /// The smallest feasible n in `[a, b]` with its c, or None.
    fn first_feasible(&self, a: u64, b: u64) -> Option<(u64, u64)> {
        let c_a = self.min_c(a);
        if a == b {
            return (self.pass_regressed(a, c_a) <= self.beta).then_some((a, c_a));
        }
        // Lower bound on P(PASS | regressed) over the whole block; see the module doc.
        if self.pass_regressed(b, c_a) > self.beta {
            return None;
        }
        let mid = a + (b - a) / 2;
        self.first_feasible(a, mid)
            .or_else(|| self.first_feasible(mid + 1, b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The design by the definition: every n from 1, every c from 0, exact sums.
    fn design_brute(healthy: f64, regressed: f64, alpha: f64, beta: f64) -> (u64, u64) {
        for n in 1..=2000u64 {
            for c in 0..=n {
                let ph = binomial::cdf(n, c, 1.0 - healthy);
                let pr = binomial::cdf(n, c, 1.0 - regressed);
                if binomial::sf(n, c, 1.0 - healthy) <= alpha {
                    if pr <= beta {
                        assert!(ph >= 1.0 - alpha - 1e-15);
                        return (n, c);
                    }
                    break;
                }
            }
        }
        panic!("no plan below 2000 in the brute-force reference");
    }

    #[test]
    fn ninety_versus_seventy_is_thirty_three_trials_six_failures() {
        let d = design_single(0.9, 0.7, 0.05, 0.10).expect("design");
        assert_eq!((d.n, d.c, d.min_successes()), (33, 6, 27));
        assert!(d.p_pass_healthy >= 0.95 && d.p_pass_regressed <= 0.10);
    }

    #[test]
    fn agrees_with_brute_force_on_a_grid() {
        for &(h, r) in &[
            (0.9, 0.7),
            (0.95, 0.8),
            (0.8, 0.5),
            (0.99, 0.9),
            (0.6, 0.3),
            (0.5, 0.2),
            (0.3, 0.1),
            (0.97, 0.85),
        ] {
            for &(a, b) in &[(0.05, 0.10), (0.01, 0.01), (0.10, 0.20), (0.2, 0.05)] {
                let d = design_single(h, r, a, b).expect("design");
                assert_eq!((d.n, d.c), design_brute(h, r, a, b), "{h} vs {r}, {a}/{b}");
            }
        }
    }

    #[test]
    fn extreme_case_is_minimal_and_meets_both_risks() {
        let d = design_single(0.999, 0.995, 0.01, 0.01).expect("design");
        // Confirmed independently with exact rational arithmetic (Python `fractions`):
        // P(F > 8 | n = 3476, q = 0.001) = 0.009438…, P(F <= 8 | q = 0.005) = 0.0099949…,
        // and n = 3475 needs the same c = 8 but lets a regression pass 1.0024% of the time.
        assert_eq!((d.n, d.c), (3476, 8));
        assert!(binomial::sf(d.n, d.c, 1.0 - 0.999) <= 0.01);
        assert!(d.p_pass_regressed <= 0.01);
        let s = Search {
            q_healthy: 1.0 - 0.999,
            q_regressed: 1.0 - 0.995,
            alpha: 0.01,
            beta: 0.01,
        };
        // Literal minimality: every smaller n has no admissible c.
        for n in 1..d.n {
            let c = s.min_c(n);
            assert!(s.pass_regressed(n, c) > 0.01, "n = {n} is feasible too");
        }
    }

    #[test]
    fn no_plan_and_bad_parameters_are_errors() {
        assert!(matches!(
            design_single(0.5, 0.4999, 0.01, 0.01),
            Err(StatsError::NoPlan { .. })
        ));
        assert!(matches!(
            design_single(0.7, 0.9, 0.05, 0.1),
            Err(StatsError::NotSeparated { .. })
        ));
        assert!(design_single(1.0, 0.5, 0.05, 0.1).is_err());
        assert!(design_single(0.9, 0.5, 0.5, 0.1).is_err());
        assert!(design_single(0.9, 0.5, 0.05, f64::NAN).is_err());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// The design meets both risks and no smaller n has an admissible c.
        #[test]
        fn design_is_feasible_and_minimal(
            healthy in 0.55f64..0.995,
            gap in 0.05f64..0.5,
            alpha in 0.01f64..0.3,
            beta in 0.01f64..0.3,
        ) {
            let regressed = healthy - gap;
            proptest::prop_assume!(regressed > 0.01);
            let d = design_single(healthy, regressed, alpha, beta).expect("design");
            proptest::prop_assert!(binomial::sf(d.n, d.c, 1.0 - healthy) <= alpha);
            proptest::prop_assert!(d.p_pass_regressed <= beta);
            // The smallest c at this n: c - 1 would break the producer's risk.
            if d.c > 0 {
                proptest::prop_assert!(binomial::sf(d.n, d.c - 1, 1.0 - healthy) > alpha);
            }
            for n in 1..d.n {
                for c in 0..=n {
                    let admissible = binomial::sf(n, c, 1.0 - healthy) <= alpha;
                    let catches = binomial::cdf(n, c, 1.0 - regressed) <= beta;
                    proptest::prop_assert!(!(admissible && catches), "({n}, {c}) also works");
                }
            }
        }
    }
}
