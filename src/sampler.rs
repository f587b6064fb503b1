//! Decision rules as state machines: should another trial run, and is there a verdict yet?
//!
//! The sampler knows nothing about processes. It consumes trial outcomes strictly in ordinal
//! order (invariant 2) — the runner buffers outcomes that finish out of order — and answers
//! with a [`Decision`] once the verdict can no longer change. The same code replays a ledger
//! in `gate report` and `gate verify`, which is what makes every verdict recomputable from
//! the ledger alone (invariant 4).

use crate::stats::sprt::{Sprt, SprtState};

pub use crate::model::{Sampling, Tally, TrialOutcome, Verdict};

/// A verdict and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The verdict.
    pub verdict: Verdict,
    /// One sentence: what decided it.
    pub reason: String,
}

/// A sampling rule in progress.
#[derive(Debug, Clone)]
pub struct Sampler {
    sampling: Sampling,
    sprt: Option<Sprt>,
    max_unavailable: u64,
    tally: Tally,
    decision: Option<Decision>,
}

impl Sampler {
    /// A fresh sampler. `max_unavailable` is the budget of unavailable trials; one more makes
    /// the task INCONCLUSIVE. Fails only for a sequential rule whose rates are impossible,
    /// which plan validation has already ruled out.
    pub fn new(sampling: Sampling, max_unavailable: u64) -> Result<Self, crate::stats::StatsError> {
        let sprt = match sampling {
            Sampling::Single { .. } => None,
            Sampling::Sequential {
                healthy,
                regressed,
                alpha,
                beta,
                max_trials,
            } => Some(Sprt::new(healthy, regressed, alpha, beta, max_trials)?),
        };
        Ok(Sampler {
            sampling,
            sprt,
            max_unavailable,
            tally: Tally::default(),
            decision: None,
        })
    }

    /// The rule.
    pub fn sampling(&self) -> Sampling {
        self.sampling
    }

    /// Outcomes consumed so far.
    pub fn tally(&self) -> Tally {
        self.tally
    }

    /// The decision, once reached.
    pub fn decision(&self) -> Option<&Decision> {
        self.decision.as_ref()
    }

    /// The SPRT log-likelihood ratio so far (sequential rules only).
    pub fn llr(&self) -> Option<f64> {
        self.sprt
            .as_ref()
            .map(|s| s.llr(self.tally.passed, self.tally.failed))
    }

    /// The sequential rule's (PASS, FAIL) bounds on the LLR.
    pub fn llr_bounds(&self) -> Option<(f64, f64)> {
        self.sprt.as_ref().map(|s| (s.accept_llr(), s.reject_llr()))
    }

    /// Graded trials that may still be needed before the rule must have decided.
    pub fn remaining_graded(&self) -> u64 {
        if self.decision.is_some() {
            return 0;
        }
        self.sampling
            .max_graded()
            .saturating_sub(self.tally.graded())
    }

    /// Unavailable trials that can still be replaced.
    pub fn remaining_unavailable(&self) -> u64 {
        self.max_unavailable.saturating_sub(self.tally.unavailable)
    }

    /// Consume the next outcome in ordinal order; returns the decision if this one reached it.
    /// Outcomes after a decision are ignored (they are beyond the decision point).
    pub fn consume(&mut self, outcome: TrialOutcome) -> Option<&Decision> {
        if self.decision.is_some() {
            return None;
        }
        match outcome {
            TrialOutcome::Pass => self.tally.passed += 1,
            TrialOutcome::Fail => self.tally.failed += 1,
            TrialOutcome::Unavailable => self.tally.unavailable += 1,
        }
        self.decision = self.evaluate();
        self.decision.as_ref()
    }

    fn evaluate(&self) -> Option<Decision> {
        let t = self.tally;
        if t.unavailable > self.max_unavailable {
            return Some(Decision {
                verdict: Verdict::Inconclusive,
                reason: format!(
                    "{} unavailable trials exceed the budget of {}",
                    t.unavailable, self.max_unavailable
                ),
            });
        }
        match self.sampling {
            Sampling::Single { n, c } => {
                if t.failed > c {
                    Some(Decision {
                        verdict: Verdict::Fail,
                        reason: format!(
                            "{} failures exceed the acceptance number {c} (after {} of {n} trials)",
                            t.failed,
                            t.graded()
                        ),
                    })
                } else if t.passed >= n.saturating_sub(c) {
                    Some(Decision {
                        verdict: Verdict::Pass,
                        reason: format!(
                            "{} passes reach the {} needed; at most {c} of {n} may fail (after {} trials)",
                            t.passed,
                            n - c,
                            t.graded()
                        ),
                    })
                } else {
                    None
                }
            }
            Sampling::Sequential { max_trials, .. } => {
                // Built in `new` for every sequential rule.
                let sprt = self.sprt.as_ref()?;
                let llr = sprt.llr(t.passed, t.failed);
                match sprt.decide(t.passed, t.failed) {
                    SprtState::Continue => None,
                    SprtState::Pass => Some(Decision {
                        verdict: Verdict::Pass,
                        reason: format!(
                            "LLR {llr:.3} reached the PASS bound {:.3} after {} trials ({} failed)",
                            sprt.accept_llr(),
                            t.graded(),
                            t.failed
                        ),
                    }),
                    SprtState::Fail => Some(Decision {
                        verdict: Verdict::Fail,
                        reason: format!(
                            "LLR {llr:.3} reached the FAIL bound {:.3} after {} trials ({} failed)",
                            sprt.reject_llr(),
                            t.graded(),
                            t.failed
                        ),
                    }),
                    SprtState::Truncated => Some(Decision {
                        verdict: Verdict::Inconclusive,
                        reason: format!(
                            "{max_trials} trials spent without reaching a bound (LLR {llr:.3}, {} failed)",
                            t.failed
                        ),
                    }),
                }
            }
        }
    }
}
