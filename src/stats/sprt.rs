//! Wald's sequential probability ratio test of H0: p = healthy against H1: p = regressed.
//!
//! After s successes and f failures the log-likelihood ratio of H1 to H0 is
//! `s ln(p1/p0) + f ln((1-p1)/(1-p0))`. The test FAILs once it reaches
//! `ln((1-beta)/alpha)`, PASSes once it falls to `ln(beta/(1-alpha))`, and is INCONCLUSIVE
//! when `max_trials` graded trials are spent without reaching either (Wald 1945).
//!
//! [`Sprt`] validates the test, explains it (the LLR and its bounds, which the ledger's
//! decision sentences quote) and builds its lattice ([`Sprt::lattice`],
//! [`Boundaries::wald`](super::lattice::Boundaries::wald)). No run is decided here and no OC is
//! computed here: `gate run` and every replay decide from the lattice, whose OC is exact, as
//! for every other rule. [`Sprt::decide`] is the LLR's own answer after some trials, which
//! the tests compare the lattice with.

use super::StatsError;
use super::lattice::LatticeRow;

/// Where a sequential test stands after some trials.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SprtState {
    /// Neither bound reached and trials remain.
    Continue,
    /// The LLR fell to the PASS (accept H0) bound.
    Pass,
    /// The LLR reached the FAIL (accept H1) bound.
    Fail,
    /// `max_trials` spent without reaching a bound.
    Truncated,
}

/// A validated SPRT.
#[derive(Debug, Clone, PartialEq)]
pub struct Sprt {
    /// p0.
    pub healthy: f64,
    /// p1.
    pub regressed: f64,
    /// Producer's risk.
    pub alpha: f64,
    /// Consumer's risk.
    pub beta: f64,
    /// Truncation.
    pub max_trials: u64,
    /// LLR step of a success (negative).
    step_success: f64,
    /// LLR step of a failure (positive).
    step_failure: f64,
}

impl Sprt {
    /// Validate and build. Rates in (0, 1) with healthy > regressed; alpha, beta in (0, 0.5);
    /// max_trials >= 1.
    pub fn new(
        healthy: f64,
        regressed: f64,
        alpha: f64,
        beta: f64,
        max_trials: u64,
    ) -> Result<Self, StatsError> {
        super::check_rule_rates(healthy, regressed, alpha, beta)?;
        if max_trials < 1 {
            return Err(StatsError::OutOfRange {
                name: "max_trials",
                range: "at least 1",
                value: max_trials as f64,
            });
        }
        Ok(Sprt {
            healthy,
            regressed,
            alpha,
            beta,
            max_trials,
            step_success: (regressed / healthy).ln(),
            step_failure: ((1.0 - regressed) / (1.0 - healthy)).ln(),
        })
    }

    /// The PASS bound `ln(beta / (1 - alpha))` (negative).
    pub fn accept_llr(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// The FAIL bound `ln((1 - beta) / alpha)` (positive).
    pub fn reject_llr(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The LLR of H1 to H0 after `successes` and `failures`.
    pub fn llr(&self, successes: u64, failures: u64) -> f64 {
        successes as f64 * self.step_success + failures as f64 * self.step_failure
    }

    /// The bound the LLR has reached after `successes` and `failures`, ignoring truncation.
    ///
    /// This one rule ([`classify`]) is what [`Sprt::lattice`] tabulates, and the lattice is
    /// what `gate run` decides by and every OC is computed from.
    fn bound_reached(&self, successes: u64, failures: u64) -> Option<SprtState> {
        classify(
            self.llr(successes, failures),
            self.accept_llr(),
            self.reject_llr(),
        )
    }

    /// The fewest graded trials to the earliest PASS (all successes) and to the earliest FAIL
    /// (all failures), ignoring truncation, by the very rule of [`Sprt::decide`].
    ///
    /// A test with `max_trials` below either can never reach that verdict; see
    /// [`Sprt::check_reachable`].
    pub fn min_trials_to_decide(&self) -> (u64, u64) {
        let to_pass = self.first_trial(self.accept_llr() / self.step_success, |t| {
            self.bound_reached(t, 0) == Some(SprtState::Pass)
        });
        let to_fail = self.first_trial(self.reject_llr() / self.step_failure, |t| {
            self.bound_reached(0, t) == Some(SprtState::Fail)
        });
        (to_pass, to_fail)
    }

    /// The smallest t >= 1 with `reached(t)`, where `reached` is monotone in t and `estimate`
    /// is the real-valued crossing point (the bound over the LLR step). The estimate is exact
    /// up to rounding and the tie tolerance, so a few steps either way settle it.
    fn first_trial(&self, estimate: f64, reached: impl Fn(u64) -> bool) -> u64 {
        // Both steps are non-zero and point towards their bound (healthy > regressed), so
        // the estimate is positive and finite; the cast saturates a huge one.
        let mut t = (estimate.ceil().max(1.0) as u64).max(1);
        while t > 1 && reached(t - 1) {
            t -= 1;
        }
        while !reached(t) && t < u64::MAX {
            t += 1;
        }
        t
    }

    /// Refuse a truncation below the fewest trials to either verdict: such a test could
    /// never PASS (or never FAIL), whatever the agent does, yet would look like a plan.
    pub fn check_reachable(&self) -> Result<(), StatsError> {
        let (to_pass, to_fail) = self.min_trials_to_decide();
        if self.max_trials < to_pass || self.max_trials < to_fail {
            Err(StatsError::Unreachable {
                max_trials: self.max_trials,
                to_pass,
                to_fail,
            })
        } else {
            Ok(())
        }
    }

    /// The state after `successes` and `failures` graded trials, by the LLR itself (the
    /// lattice's rows are this, tabulated; the tests compare the two).
    pub fn decide(&self, successes: u64, failures: u64) -> SprtState {
        match self.bound_reached(successes, failures) {
            Some(state) => state,
            None if successes + failures >= self.max_trials => SprtState::Truncated,
            None => SprtState::Continue,
        }
    }

    /// The test as a table a person can read: for each number of graded trials t from 1 to
    /// `max_trials`, the failure counts at which it PASSes and FAILs.
    ///
    /// For fixed t the LLR rises with the failures, so PASS is "at most r_t failures" and
    /// FAIL is "at least a_t failures"; both come from the same predicate as
    /// [`Sprt::decide`]. A row describes where the LLR stands, not whether that state is
    /// reachable without having stopped earlier.
    pub fn lattice(&self) -> Vec<LatticeRow> {
        (1..=self.max_trials)
            .map(|t| {
                // Smallest f in [0, t] with FAIL, by bisection on the monotone predicate.
                let (mut lo, mut hi) = (0u64, t + 1);
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    if self.bound_reached(t - mid, mid) == Some(SprtState::Fail) {
                        hi = mid;
                    } else {
                        lo = mid + 1;
                    }
                }
                let fail_min_failures = (lo <= t).then_some(lo);
                // Number of f in [0, t] with PASS (they form a prefix).
                let (mut lo, mut hi) = (0u64, t + 1);
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    if self.bound_reached(t - mid, mid) == Some(SprtState::Pass) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                let pass_max_failures = lo.checked_sub(1);
                LatticeRow {
                    trials: t,
                    pass_max_failures,
                    fail_min_failures,
                }
            })
            .collect()
    }
}

impl super::lattice::Boundaries {
    /// Wald's truncated SPRT as a lattice (the very rule of [`Sprt::decide`]).
    pub fn wald(sprt: &Sprt) -> Self {
        Self::from_valid_rows(sprt.lattice())
    }
}

impl Sprt {
    /// The largest ASN over true rates between `regressed` and `healthy`, and where it is.
    ///
    /// The ASN peaks where the LLR has no drift, which lies between the two rates. It is
    /// located on a grid of 21 rates and refined by golden-section search inside the best
    /// grid cell (the ASN is smooth and single-peaked there); each evaluation is the exact
    /// OC of the test's lattice.
    pub fn worst_asn(&self) -> WorstAsn {
        let lattice = super::lattice::Boundaries::wald(self);
        worst_asn(self.regressed, self.healthy, |ps| {
            lattice.oc_many(ps).iter().map(|oc| oc.asn).collect()
        })
    }
}

/// Golden-section steps decided per batch of [`worst_asn`]: the 2^k - 1 rates any of the
/// next k steps can ask for, 3 rates for k = 2, one pass of [`super::lattice::Boundaries::oc_many`]
/// (which walks up to 4 rates at about the cost of one).
const STEPS_PER_BATCH: usize = 2;

/// The largest value of an ASN curve over rates in [lo, hi], and where it is: a grid of 21
/// rates, then golden-section search inside the best grid cell (an ASN curve is smooth and
/// single-peaked between the two rates). Shared by every rule's ASN curve; `asn_at` gives
/// the ASN at several rates at once (as [`super::lattice::Boundaries::oc_many`] does).
///
/// The grid's two halves are evaluated on two threads ([`super::join`]). The search asks,
/// per batch, for every rate its next few steps could evaluate, whichever way their
/// comparisons go, and then takes exactly the steps of the plain search, looking the values
/// up; the result is bit-identical to evaluating one rate at a time, in order.
pub fn worst_asn(lo: f64, hi: f64, asn_at: impl Fn(&[f64]) -> Vec<f64> + Sync) -> WorstAsn {
    const GRID: u32 = 20;
    const STEPS: usize = 30;
    let rate = |i: u32| lo + (hi - lo) * f64::from(i) / f64::from(GRID);
    let half = GRID / 2;
    let values = |range: std::ops::RangeInclusive<u32>| {
        let ps: Vec<f64> = range.map(rate).collect();
        let fs = asn_at(&ps);
        ps.into_iter().zip(fs).collect::<Vec<_>>()
    };
    let (low, high) = super::join(|| values(0..=half), || values(half + 1..=GRID));
    let grid: Vec<(f64, f64)> = low.into_iter().chain(high).collect();
    let (best_i, mut best) =
        grid.iter().enumerate().fold(
            (0, grid[0]),
            |acc, (i, &pt)| if pt.1 > acc.1.1 { (i, pt) } else { acc },
        );
    let a = grid[best_i.saturating_sub(1)].0;
    let b = grid[(best_i + 1).min(grid.len() - 1)].0;
    let mut at = Bracket::new(a, b);
    // The two first points, and what the next steps may ask for after either comparison.
    let mut rates = vec![at.x1, at.x2];
    for c in [true, false] {
        at.speculate(c, STEPS_PER_BATCH - 1, &mut rates);
    }
    let mut known: Vec<(f64, f64)> = rates.iter().copied().zip(asn_at(&rates)).collect();
    let lookup = |known: &[(f64, f64)], x: f64| {
        known
            .iter()
            .find(|k| k.0.to_bits() == x.to_bits())
            .map(|k| k.1)
    };
    let (mut f1, mut f2) = (known[0].1, known[1].1);
    // 30 steps shrink the bracket by 0.618^30, below 1e-6 of a grid cell.
    for done in 0..STEPS {
        let keep_low = f1 >= f2;
        let next = at.step(keep_low);
        let x = if keep_low { next.x1 } else { next.x2 };
        let fx = match lookup(&known, x) {
            Some(v) => v,
            None => {
                let mut rates = Vec::new();
                at.speculate(keep_low, STEPS_PER_BATCH.min(STEPS - done), &mut rates);
                known.extend(rates.iter().copied().zip(asn_at(&rates)));
                lookup(&known, x).expect("a batch starts at the next step's rate")
            }
        };
        if keep_low {
            f2 = f1;
            f1 = fx;
        } else {
            f1 = f2;
            f2 = fx;
        }
        at = next;
        for (x, f) in [(at.x1, f1), (at.x2, f2)] {
            if f > best.1 {
                best = (x, f);
            }
        }
    }
    WorstAsn {
        p: best.0,
        asn: best.1,
    }
}

/// A golden-section bracket [a, b] and its two inner points x1 < x2.
#[derive(Debug, Clone, Copy)]
struct Bracket {
    a: f64,
    b: f64,
    x1: f64,
    x2: f64,
}

/// 1/phi: each golden-section step keeps this fraction of the bracket.
fn inv_phi() -> f64 {
    (5f64.sqrt() - 1.0) / 2.0
}

impl Bracket {
    fn new(a: f64, b: f64) -> Self {
        Bracket {
            a,
            b,
            x1: b - inv_phi() * (b - a),
            x2: a + inv_phi() * (b - a),
        }
    }

    /// One step: keep [a, x2] when f(x1) >= f(x2) (`keep_low`), else [x1, b]. The new
    /// inner point (x1 if `keep_low`, else x2) is the one to evaluate.
    fn step(self, keep_low: bool) -> Self {
        let Bracket { a, b, x1, x2 } = self;
        if keep_low {
            let b = x2;
            Bracket {
                a,
                b,
                x1: b - inv_phi() * (b - a),
                x2: x1,
            }
        } else {
            let a = x1;
            Bracket {
                a,
                b,
                x1: x2,
                x2: a + inv_phi() * (b - a),
            }
        }
    }

    /// The rates the next `levels` steps can evaluate, the first taken with `keep_low` and
    /// the later ones either way.
    fn speculate(self, keep_low: bool, levels: usize, out: &mut Vec<f64>) {
        if levels == 0 {
            return;
        }
        let next = self.step(keep_low);
        out.push(if keep_low { next.x1 } else { next.x2 });
        for c in [true, false] {
            next.speculate(c, levels - 1, out);
        }
    }
}

/// Where a sequential test spends the most trials on average.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorstAsn {
    /// The true success rate at which the ASN peaks.
    pub p: f64,
    /// The ASN there.
    pub asn: f64,
}

/// The one decision rule: FAIL at or above the reject bound, PASS at or below the accept
/// bound, each within [`TIE_TOLERANCE`]. The LLR is a sum of rounded logarithms, and a value
/// that equals a bound in exact arithmetic must not be decided by the last bit of rounding.
fn classify(llr: f64, accept: f64, reject: f64) -> Option<SprtState> {
    if llr >= reject - TIE_TOLERANCE {
        Some(SprtState::Fail)
    } else if llr <= accept + TIE_TOLERANCE {
        Some(SprtState::Pass)
    } else {
        None
    }
}

/// LLR distance within which a bound counts as reached; see [`Sprt::decide`]. The LLR and
/// its bounds are of order 1–10, so 1e-9 is far above rounding and far below any step.
pub const TIE_TOLERANCE: f64 = 1e-9;

/// The default truncation: twice the n of the single plan with the same rates and risks
/// (the sequential test then never spends more than two single plans' worth of trials).
pub fn default_max_trials(
    healthy: f64,
    regressed: f64,
    alpha: f64,
    beta: f64,
) -> Result<u64, StatsError> {
    let single = super::design::design_single(healthy, regressed, alpha, beta)?;
    Ok(2 * single.n)
}

#[cfg(test)]
mod tests {
    #[test]
    fn min_trials_to_decide_matches_the_earliest_verdicts() {
        // 0.9 vs 0.7 at 0.05 / 0.1: ln(0.1/0.95) / ln(0.7/0.9) = 8.96, ln(18) / ln(3) = 2.63.
        let s = Sprt::new(0.9, 0.7, 0.05, 0.1, 66).unwrap();
        assert_eq!(s.min_trials_to_decide(), (9, 3));
        assert_eq!(s.decide(9, 0), SprtState::Pass);
        assert_eq!(s.decide(8, 0), SprtState::Continue);
        assert_eq!(s.decide(0, 3), SprtState::Fail);
        assert_eq!(s.decide(0, 2), SprtState::Continue);
        assert!(s.check_reachable().is_ok());
    }

    #[test]
    fn a_sequential_test_that_can_never_decide_is_refused() {
        let s = Sprt::new(0.9, 0.7, 0.05, 0.1, 2).unwrap();
        assert_eq!(oc(&s, 0.9).p_inconclusive, 1.0);
        assert_eq!(
            s.check_reachable(),
            Err(StatsError::Unreachable {
                max_trials: 2,
                to_pass: 9,
                to_fail: 3
            })
        );
        // Enough for FAIL but not PASS is refused too: the test could never pass.
        assert!(
            Sprt::new(0.9, 0.7, 0.05, 0.1, 8)
                .unwrap()
                .check_reachable()
                .is_err()
        );
        assert!(
            Sprt::new(0.9, 0.7, 0.05, 0.1, 9)
                .unwrap()
                .check_reachable()
                .is_ok()
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// The earliest verdicts are where `decide` first says so on the all-success and
        /// all-failure paths.
        #[test]
        fn min_trials_to_decide_is_the_first_decided_trial(
            p1 in 0.05f64..0.9,
            gap in 0.02f64..0.09,
            alpha in 0.01f64..0.2,
            beta in 0.01f64..0.2,
        ) {
            let s = Sprt::new(p1 + gap, p1, alpha, beta, u64::MAX).unwrap();
            let (to_pass, to_fail) = s.min_trials_to_decide();
            proptest::prop_assert_eq!(s.decide(to_pass, 0), SprtState::Pass);
            proptest::prop_assert!(to_pass == 1 || s.decide(to_pass - 1, 0) == SprtState::Continue);
            proptest::prop_assert_eq!(s.decide(0, to_fail), SprtState::Fail);
            proptest::prop_assert!(to_fail == 1 || s.decide(0, to_fail - 1) == SprtState::Continue);
        }
    }

    use super::*;
    use crate::stats::lattice::{Boundaries, Oc};

    /// The test's exact OC: its lattice's.
    fn oc(sprt: &Sprt, p: f64) -> Oc {
        Boundaries::wald(sprt).oc(p)
    }

    fn sprt_90_70() -> Sprt {
        Sprt::new(0.9, 0.7, 0.05, 0.10, 66).expect("valid")
    }

    /// splitmix64: a tiny, well-mixed, seeded generator so the Monte Carlo is reproducible
    /// without a `rand` dependency.
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

    /// Run the test the way `gate run` does: one trial at a time through `decide`.
    fn simulate(sprt: &Sprt, p: f64, rng: &mut SplitMix64) -> (SprtState, u64) {
        let (mut s, mut f) = (0u64, 0u64);
        loop {
            if rng.next_f64() < p {
                s += 1;
            } else {
                f += 1;
            }
            match sprt.decide(s, f) {
                SprtState::Continue => {}
                state => return (state, s + f),
            }
        }
    }

    #[test]
    fn exact_oc_matches_seeded_monte_carlo_within_three_standard_errors() {
        let sprt = sprt_90_70();
        let runs = 100_000u32;
        for (seed, p) in [(1u64, 0.9), (2, 0.8), (3, 0.7), (4, 0.75)] {
            let exact = oc(&sprt, p);
            let mut rng = SplitMix64(seed);
            let (mut pass, mut fail, mut inc) = (0u32, 0u32, 0u32);
            let (mut sum_t, mut sum_t2) = (0.0f64, 0.0f64);
            for _ in 0..runs {
                let (state, t) = simulate(&sprt, p, &mut rng);
                match state {
                    SprtState::Pass => pass += 1,
                    SprtState::Fail => fail += 1,
                    _ => inc += 1,
                }
                sum_t += t as f64;
                sum_t2 += (t * t) as f64;
            }
            let n = f64::from(runs);
            for (name, count, prob) in [
                ("pass", pass, exact.p_pass),
                ("fail", fail, exact.p_fail),
                ("inconclusive", inc, exact.p_inconclusive),
            ] {
                let se = (prob * (1.0 - prob) / n).sqrt().max(1.0 / n);
                let got = f64::from(count) / n;
                assert!(
                    (got - prob).abs() <= 3.0 * se,
                    "p={p} {name}: simulated {got}, exact {prob}, se {se}"
                );
            }
            let mean = sum_t / n;
            let se = ((sum_t2 / n - mean * mean) / n).sqrt();
            assert!(
                (mean - exact.asn).abs() <= 3.0 * se,
                "p={p} ASN: simulated {mean}, exact {}",
                exact.asn
            );
        }
    }

    /// Every path of t outcomes, by enumeration: exact reference for small max_trials.
    fn oc_brute(sprt: &Sprt, p: f64) -> Oc {
        let m = sprt.max_trials;
        let mut out = Oc {
            p_pass: 0.0,
            p_fail: 0.0,
            p_inconclusive: 0.0,
            asn: 0.0,
        };
        for mask in 0u64..(1u64 << m) {
            let (mut s, mut f) = (0u64, 0u64);
            let mut prob = 1.0;
            for bit in 0..m {
                if mask >> bit & 1 == 0 {
                    s += 1;
                    prob *= p;
                } else {
                    f += 1;
                    prob *= 1.0 - p;
                }
                let state = sprt.decide(s, f);
                if state != SprtState::Continue {
                    // Count each stopped path once: only the mask whose remaining bits are 0.
                    if mask >> (bit + 1) == 0 {
                        out.asn += prob * (s + f) as f64;
                        match state {
                            SprtState::Pass => out.p_pass += prob,
                            SprtState::Fail => out.p_fail += prob,
                            _ => out.p_inconclusive += prob,
                        }
                    }
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn exact_oc_matches_path_enumeration() {
        for (h, r, a, b, m) in [
            (0.9, 0.7, 0.05, 0.10, 14u64),
            (0.8, 0.5, 0.10, 0.10, 12),
            (0.6, 0.4, 0.2, 0.2, 16),
        ] {
            let sprt = Sprt::new(h, r, a, b, m).expect("valid");
            for p in [0.0, 0.3, 0.55, 0.7, 0.9, 1.0] {
                let dp = oc(&sprt, p);
                let bf = oc_brute(&sprt, p);
                for (x, y) in [
                    (dp.p_pass, bf.p_pass),
                    (dp.p_fail, bf.p_fail),
                    (dp.p_inconclusive, bf.p_inconclusive),
                    (dp.asn, bf.asn),
                ] {
                    assert!(
                        (x - y).abs() < 1e-12 * y.abs().max(1.0),
                        "{h}/{r} m={m} p={p}: {dp:?} vs {bf:?}"
                    );
                }
                let total = dp.p_pass + dp.p_fail + dp.p_inconclusive;
                assert!((total - 1.0).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn lattice_agrees_with_decide_everywhere() {
        let sprt = sprt_90_70();
        for row in sprt.lattice() {
            let t = row.trials;
            for f in 0..=t {
                let state = sprt.decide(t - f, f);
                let pass = row.pass_max_failures.is_some_and(|r| f <= r);
                let fail = row.fail_min_failures.is_some_and(|a| f >= a);
                assert_eq!(state == SprtState::Pass, pass, "t={t} f={f}");
                assert_eq!(state == SprtState::Fail, fail, "t={t} f={f}");
            }
        }
        // Two failures in a row already reach the FAIL bound: 2 ln 3 >= ln 18.
        let rows = sprt.lattice();
        assert_eq!(rows[0].fail_min_failures, None);
        assert_eq!(rows[2].fail_min_failures, Some(3));
    }

    #[test]
    fn exact_tie_counts_as_reaching_the_bound() {
        // healthy 0.8, regressed 0.2, alpha = beta = 0.2: a failure moves the LLR by ln 4 and
        // the FAIL bound is ln(0.8/0.2) = ln 4, a tie in exact arithmetic.
        let sprt = Sprt::new(0.8, 0.2, 0.2, 0.2, 10).expect("valid");
        assert_eq!(sprt.decide(0, 1), SprtState::Fail);
        assert_eq!(sprt.decide(1, 0), SprtState::Pass);
        // One success and two failures: LLR = ln 4 again.
        assert_eq!(sprt.decide(1, 2), SprtState::Fail);
        let oc = oc(&sprt, 0.5);
        assert!((oc.p_fail - 0.5).abs() < 1e-15 && (oc.asn - 1.0).abs() < 1e-15);
    }

    #[test]
    fn default_truncation_is_twice_the_single_plan() {
        assert_eq!(default_max_trials(0.9, 0.7, 0.05, 0.10), Ok(66));
        assert!(default_max_trials(0.7, 0.9, 0.05, 0.10).is_err());
    }

    #[test]
    fn worst_asn_is_the_peak_between_the_rates() {
        let sprt = sprt_90_70();
        let w = sprt.worst_asn();
        assert!(w.p > 0.7 && w.p < 0.9, "{w:?}");
        for i in 0..=200 {
            let p = 0.7 + 0.2 * f64::from(i) / 200.0;
            assert!(
                oc(&sprt, p).asn <= w.asn + 1e-9,
                "ASN at {p} above the worst"
            );
        }
        assert!(w.asn > oc(&sprt, 0.9).asn && w.asn > oc(&sprt, 0.7).asn);
    }

    #[test]
    fn bad_rate_gives_nan_not_panic() {
        let oc = oc(&sprt_90_70(), 1.5);
        assert!(oc.p_pass.is_nan() && oc.asn.is_nan());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        /// P(PASS) rises and P(FAIL) falls with the true success rate, for the single plan and
        /// the sequential test alike.
        #[test]
        fn oc_is_monotone_in_p(
            healthy in 0.5f64..0.99,
            gap in 0.05f64..0.4,
            alpha in 0.01f64..0.3,
            beta in 0.01f64..0.3,
            max_trials in 1u64..150,
            n in 1u64..200,
            c_frac in 0.0f64..1.0,
        ) {
            let regressed = healthy - gap;
            proptest::prop_assume!(regressed > 0.01);
            let sprt = Sprt::new(healthy, regressed, alpha, beta, max_trials).expect("valid");
            let c = ((n as f64) * c_frac) as u64;
            let mut prev = (0.0f64, 1.0f64, 0.0f64);
            for i in 0..=40 {
                let p = f64::from(i) / 40.0;
                let oc = oc(&sprt, p);
                let single = crate::stats::lattice::single_oc(n, c, p).p_pass;
                proptest::prop_assert!(oc.p_pass >= prev.0 - 1e-12, "sequential PASS at {p}");
                proptest::prop_assert!(oc.p_fail <= prev.1 + 1e-12, "sequential FAIL at {p}");
                proptest::prop_assert!(single >= prev.2 - 1e-12, "single PASS at {p}");
                let total = oc.p_pass + oc.p_fail + oc.p_inconclusive;
                proptest::prop_assert!((total - 1.0).abs() < 1e-9);
                proptest::prop_assert!(oc.asn >= 1.0 - 1e-12 && oc.asn <= max_trials as f64 + 1e-9);
                prev = (oc.p_pass, oc.p_fail, single);
            }
        }
    }
}
