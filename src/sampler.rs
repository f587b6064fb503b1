//! Decision rules as state machines: should another trial run, and is there a verdict yet?
//!
//! The sampler knows nothing about processes. It consumes trial outcomes strictly in ordinal
//! order (invariant 2) — the runner buffers outcomes that finish out of order — and answers
//! with a [`Decision`] once the verdict can no longer change. The same code replays a ledger
//! in `gate report` and `gate verify`, which is what makes every verdict recomputable from
//! the ledger alone (invariant 4).

use serde::{Deserialize, Serialize};

use crate::stats::sprt::{Sprt, SprtState};

/// A resolved sampling rule, as recorded in the ledger header for each task.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sampling {
    /// Run `n` trials; PASS iff failures <= `c`. Curtailed: stops once the verdict is certain.
    Single {
        /// Trials to grade.
        n: u64,
        /// Acceptance number: failures tolerated.
        c: u64,
    },
    /// Wald's SPRT of H0: p = healthy against H1: p = regressed, truncated at `max_trials`.
    Sequential {
        /// Healthy per-trial success rate p0.
        healthy: f64,
        /// Regressed per-trial success rate p1 (< p0).
        regressed: f64,
        /// Producer's risk.
        alpha: f64,
        /// Consumer's risk.
        beta: f64,
        /// Graded trials after which the test stops INCONCLUSIVE.
        max_trials: u64,
    },
}

impl Sampling {
    /// The most graded trials this rule can ever consume (n, or max_trials).
    pub fn max_graded(&self) -> u64 {
        match *self {
            Sampling::Single { n, .. } => n,
            Sampling::Sequential { max_trials, .. } => max_trials,
        }
    }

    /// The plan in words, e.g. "33 trials, pass if at most 6 fail".
    pub fn describe(&self) -> String {
        match *self {
            Sampling::Single { n, c } => format!(
                "{n} trial{}, pass if at most {c} fail",
                if n == 1 { "" } else { "s" }
            ),
            Sampling::Sequential {
                healthy,
                regressed,
                alpha,
                beta,
                max_trials,
            } => format!(
                "sequential test of {} vs {} (alpha {}, beta {}), at most {max_trials} trials",
                pct(healthy),
                pct(regressed),
                alpha,
                beta
            ),
        }
    }
}

fn pct(p: f64) -> String {
    let s = format!("{:.4}", p * 100.0);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}%")
}

/// The three-valued verdict, per task and for the whole gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    /// The evidence says healthy.
    Pass,
    /// The evidence says regressed.
    Fail,
    /// The evidence could not decide (budget spent, trials missing, interrupted).
    Inconclusive,
}

impl Verdict {
    /// "PASS", "FAIL" or "INCONCLUSIVE".
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Inconclusive => "INCONCLUSIVE",
        }
    }

    /// The gate's verdict over tasks: FAIL if any FAILs, else INCONCLUSIVE if any is, else PASS.
    pub fn combine(verdicts: impl IntoIterator<Item = Verdict>) -> Verdict {
        let mut out = Verdict::Pass;
        for v in verdicts {
            match v {
                Verdict::Fail => return Verdict::Fail,
                Verdict::Inconclusive => out = Verdict::Inconclusive,
                Verdict::Pass => {}
            }
        }
        out
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The graded (or not) result of one trial, as the sampler sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrialOutcome {
    /// Attempt 1 passed.
    Pass,
    /// Attempt 1 failed.
    Fail,
    /// Attempt 1 was a declared fault: neither pass nor fail; a replacement may be drawn.
    Unavailable,
}

/// A verdict and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The verdict.
    pub verdict: Verdict,
    /// One sentence: what decided it.
    pub reason: String,
}

/// Counts of consumed outcomes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Graded passes.
    pub passed: u64,
    /// Graded failures.
    pub failed: u64,
    /// Unavailable trials (faults under the declared policy).
    pub unavailable: u64,
}

impl Tally {
    /// Graded trials: passes plus failures.
    pub fn graded(&self) -> u64 {
        self.passed + self.failed
    }
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
