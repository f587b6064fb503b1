//! `compare`'s second PASS route: head's losses are too rare for a fall of `drop` points.
//!
//! The discordant rule ([`super::compare`]) reads only discordant pairs, so a task that both
//! sides always pass (or always fail) gives it nothing to read and every run ends
//! INCONCLUSIVE. The **loss route** reads every pair: a pair is a *loss* when head fails and
//! base passes. If head's pass rate h is at least `drop` = D points below base's rate b, then
//! whatever b is and however the two sides are correlated inside a pair,
//!
//! ```text
//! P(loss) = P(base passes, head fails) >= P(base passes) - P(head passes) = b - h >= D
//! ```
//!
//! and pairs are independent, so the loss indicators are independent Bernoulli(ℓ) draws with
//! ℓ >= D. The route PASSes at pair n when the losses so far are at most
//! `a(n) = floor((n - first) / step)` (n >= `first`; no PASS before). Passing needs few
//! losses, so P(the route ever passes within M pairs) falls as ℓ grows: its largest value
//! over every regression of at least D points, every base rate and every correlation, is its
//! value at ℓ = D, computed exactly by a DP over the loss count ([`LossRoute::p_pass`]).
//!
//! The route's shape: `step` = ceil(4 / D), so it keeps passing a head that loses up to a
//! quarter of D of its pairs; `first` is the fewest pairs at which
//! P(pass within M pairs | ℓ = D) <= its share of beta. A task with no loss at all passes at
//! `first` pairs, about ln(1/beta_share) / D: 29 pairs for D = 10% and a share of 0.05.
//!
//! The route only adds PASS verdicts, so P(FAIL | head = base) is the discordant rule's, for
//! every base rate and correlation; P(PASS | regressed) is at most the sum of the two routes'
//! P(PASS) (a union bound, exact as a bound), which is how beta is split between them.

use serde::{Deserialize, Serialize};

use super::StatsError;

/// The size of a regression in points of pass rate when none is given: 10 points.
pub const DEFAULT_DROP: f64 = 0.10;

/// The share of beta given to the loss route; the discordant rule gets the rest.
pub const LOSS_BETA_SHARE: f64 = 0.5;

/// The loss route's boundary: PASS at pair n (n >= `first`) when head's losses so far are at
/// most `(n - first) / step` (integer division).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LossRoute {
    /// The fewest graded pairs at which the route can PASS (with no loss).
    pub first: u64,
    /// Pairs per further loss allowed.
    pub step: u64,
}

impl LossRoute {
    /// The most losses that PASS after `pairs` graded pairs; None before `first`.
    pub fn allowed(&self, pairs: u64) -> Option<u64> {
        (pairs >= self.first).then(|| (pairs - self.first) / self.step.max(1))
    }

    /// Whether `losses` head losses in `pairs` graded pairs PASS by this route.
    pub fn passes(&self, pairs: u64, losses: u64) -> bool {
        self.allowed(pairs).is_some_and(|a| losses <= a)
    }

    /// Design the route for a regression of `drop` points (in (0, 1)), with P(pass within
    /// `max_pairs` pairs | a loss rate of `drop`) <= `beta`. None when no `first` up to
    /// `max_pairs` gets there (the pairs are too few for this route).
    pub fn design(drop: f64, beta: f64, max_pairs: u64) -> Result<Option<Self>, StatsError> {
        check_drop(drop)?;
        if !(beta > 0.0 && beta < 1.0) {
            // No share of beta left for the route (a Wald lattice that spent it all).
            return Ok(None);
        }
        let step = (4.0 / drop).ceil().max(1.0) as u64;
        // With no loss the route passes at `first`: (1 - D)^first <= beta is necessary.
        let mut first = ((beta.ln() / (1.0 - drop).ln()).ceil() as u64).max(1);
        while first <= max_pairs {
            let route = LossRoute { first, step };
            if route.p_pass(drop, max_pairs) <= beta {
                return Ok(Some(route));
            }
            first += 1;
        }
        Ok(None)
    }

    /// P(the route passes within `max_pairs` pairs) when each pair is a loss with
    /// probability `loss`, on its own (no discordant rule beside it). Exact: a DP over the
    /// loss count; counts above `allowed(max_pairs)` can never pass and are dropped.
    pub fn p_pass(&self, loss: f64, max_pairs: u64) -> f64 {
        let Some(cap) = self.allowed(max_pairs) else {
            return 0.0;
        };
        let cap = cap as usize;
        // alive[f]: P(f losses so far and not passed), f <= cap.
        let mut alive = vec![0.0f64; cap + 2];
        alive[0] = 1.0;
        let mut passed = 0.0f64;
        for n in 1..=max_pairs {
            for f in (0..=cap).rev() {
                let p = alive[f];
                alive[f + 1] += p * loss;
                alive[f] = p * (1.0 - loss);
            }
            alive[cap + 1] = 0.0;
            if let Some(a) = self.allowed(n) {
                for slot in alive.iter_mut().take(a as usize + 1) {
                    passed += *slot;
                    *slot = 0.0;
                }
            }
            if alive.iter().all(|&p| p < f64::MIN_POSITIVE) {
                break;
            }
        }
        passed.clamp(0.0, 1.0)
    }
}

/// A drop must be a share of pass rate strictly between 0 and 1.
pub(crate) fn check_drop(drop: f64) -> Result<(), StatsError> {
    if drop.is_finite() && drop > 0.0 && drop < 1.0 {
        Ok(())
    } else {
        Err(StatsError::OutOfRange {
            name: "drop",
            range: "strictly between 0 and 1 (the fall in pass rate, in points, that is a \
                    regression: 0.1 is 10 points)",
            value: drop,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The route's P(pass) by brute force over every loss sequence of `m` pairs.
    fn brute(route: LossRoute, loss: f64, m: u64) -> f64 {
        let mut total = 0.0;
        for bits in 0u64..(1 << m) {
            let mut f = 0;
            let mut prob = 1.0;
            let mut passed = false;
            for n in 1..=m {
                let is_loss = bits >> (n - 1) & 1 == 1;
                prob *= if is_loss { loss } else { 1.0 - loss };
                f += u64::from(is_loss);
                if !passed && route.passes(n, f) {
                    passed = true;
                }
            }
            if passed {
                total += prob;
            }
        }
        total
    }

    #[test]
    fn the_dp_matches_every_loss_sequence() {
        let route = LossRoute { first: 4, step: 3 };
        for loss in [0.0, 0.05, 0.3, 0.7] {
            let (dp, bf) = (route.p_pass(loss, 14), brute(route, loss, 14));
            assert!((dp - bf).abs() < 1e-12, "{loss}: {dp} {bf}");
        }
    }

    #[test]
    fn ten_points_and_a_beta_share_of_five_percent_pass_a_stable_task_at_29_pairs() {
        let route = LossRoute::design(0.1, 0.05, 1000).unwrap().unwrap();
        assert_eq!(
            route,
            LossRoute {
                first: 29,
                step: 40
            }
        );
        assert!(route.p_pass(0.1, 1000) <= 0.05);
        assert_eq!(route.p_pass(0.0, 1000), 1.0);
        // ln(1/0.05)/0.1 = 30.0: "about ln(1/beta)/D".
        assert!((route.first as f64) <= (1.0f64 / 0.05).ln() / 0.1);
    }

    #[test]
    fn larger_loss_rates_pass_less_often() {
        let route = LossRoute::design(0.1, 0.05, 500).unwrap().unwrap();
        let ps: Vec<f64> = [0.1, 0.15, 0.3]
            .iter()
            .map(|&l| route.p_pass(l, 500))
            .collect();
        assert!(ps[0] >= ps[1] && ps[1] >= ps[2], "{ps:?}");
    }

    #[test]
    fn a_drop_outside_zero_to_one_is_an_error_naming_drop() {
        for bad in [0.0, 1.0, -0.1, f64::NAN] {
            let e = LossRoute::design(bad, 0.05, 100).unwrap_err();
            assert!(e.to_string().contains("`drop`"), "{e}");
        }
        assert_eq!(LossRoute::design(0.1, 0.05, 20).unwrap(), None);
    }
}
