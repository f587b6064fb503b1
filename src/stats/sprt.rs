//! Wald's sequential probability ratio test of H0: p = healthy against H1: p = regressed.
//!
//! After s successes and f failures the log-likelihood ratio of H1 to H0 is
//! `s ln(p1/p0) + f ln((1-p1)/(1-p0))`. The test FAILs once it reaches
//! `ln((1-beta)/alpha)`, PASSes once it falls to `ln(beta/(1-alpha))`, and is INCONCLUSIVE
//! when `max_trials` graded trials are spent without reaching either (Wald 1945).

use super::{StatsError, check_open};

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
        check_open("healthy", healthy, 0.0, 1.0, "strictly between 0 and 1")?;
        check_open("regressed", regressed, 0.0, 1.0, "strictly between 0 and 1")?;
        check_open("alpha", alpha, 0.0, 0.5, "strictly between 0 and 0.5")?;
        check_open("beta", beta, 0.0, 0.5, "strictly between 0 and 0.5")?;
        if healthy <= regressed {
            return Err(StatsError::NotSeparated { healthy, regressed });
        }
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

    /// The state after `successes` and `failures` graded trials.
    pub fn decide(&self, successes: u64, failures: u64) -> SprtState {
        let llr = self.llr(successes, failures);
        if llr >= self.reject_llr() {
            SprtState::Fail
        } else if llr <= self.accept_llr() {
            SprtState::Pass
        } else if successes + failures >= self.max_trials {
            SprtState::Truncated
        } else {
            SprtState::Continue
        }
    }
}
