//! One rule, one place: a sampling spec, validated once, as the lattice that decides it.
//!
//! Every rule `gate` runs is a table of PASS / FAIL boundaries on (graded trials, failures),
//! a [`Boundaries`]. [`Rule::new`] (also [`Sampling::rule`]) is the one constructor: it
//! validates a [`Sampling`] — the plan loader, the ledger replay and the sampler all come
//! through here — and builds that table. Decisions ([`Rule::decide`]), the exact OC and ASN,
//! stopping-aware estimates and the published lattice are then all read off the same table,
//! so what `gate plan` promises is what `gate run` does.
//!
//! A new rule has one arm here: a constructor of its [`Boundaries`] (in `stats/`, pure) and
//! the sentence its decisions are explained with; the other files that still name each rule
//! kind are listed in docs/ARCHITECTURE.md, "Rules". The sentences are recorded in ledgers
//! and must never change for an existing rule: old ledgers are replayed and verified
//! against them byte for byte.

use crate::format::plural;
use crate::model::{Sampling, SequentialRule, Verdict};
use crate::stats::lattice::{Boundaries, State};
use crate::stats::sprt::Sprt;
use crate::stats::{StatsError, check_rule_rates, check_trials};

/// A verdict and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The verdict.
    pub verdict: Verdict,
    /// One sentence: what decided it.
    pub reason: String,
}

/// A validated sampling rule: its lattice, and what its decisions are explained with.
#[derive(Debug, Clone)]
pub struct Rule {
    lattice: Boundaries,
    kind: Kind,
}

/// What a decision's sentence needs besides the lattice.
#[derive(Debug, Clone)]
enum Kind {
    /// A single plan (n, c), curtailed.
    Single { n: u64, c: u64 },
    /// Wald's SPRT: the lattice is built from it, and it explains the LLR.
    Wald(Sprt),
    /// A calibrated lattice, as recorded.
    Calibrated,
    /// A staged lattice ([`crate::stats::staged`]), deciding only at the ends of stages of
    /// this many trials.
    Staged { stage: u64 },
}

impl Sampling {
    /// The rule this spec describes, validated; see [`Rule::new`].
    pub fn rule(&self) -> Result<Rule, StatsError> {
        Rule::new(self)
    }

    /// The rule as a boundary lattice: the table its decisions, OC and estimates all come
    /// from. Fails for a spec [`Rule::new`] refuses.
    pub fn lattice(&self) -> Result<Boundaries, StatsError> {
        Rule::new(self).map(Rule::into_lattice)
    }
}

impl Rule {
    /// Validate a spec and build its lattice. Refuses a single plan with `n` outside
    /// 1..=[`MAX_TRIALS_LIMIT`](crate::stats::MAX_TRIALS_LIMIT) or `c >= n` (every run would
    /// pass), a sequential rule with invalid rates or risks or a truncation outside that
    /// range, and a calibrated lattice that does not end at `max_trials`.
    ///
    /// Whether a Wald truncation can reach both verdicts is a design question
    /// ([`Sprt::check_reachable`]) the plan loader asks; a recorded rule that cannot is
    /// still a rule, and replays as it ran.
    pub fn new(sampling: &Sampling) -> Result<Rule, StatsError> {
        match sampling {
            &Sampling::Single { n, c } => {
                check_trials("n", n)?;
                if c >= n {
                    return Err(StatsError::AcceptsAll { n, c });
                }
                Ok(Rule {
                    lattice: Boundaries::single(n, c)?,
                    kind: Kind::Single { n, c },
                })
            }
            Sampling::Sequential {
                healthy,
                regressed,
                alpha,
                beta,
                max_trials,
                rule,
            } => {
                check_rule_rates(*healthy, *regressed, *alpha, *beta)?;
                check_trials("max_trials", *max_trials)?;
                match rule {
                    SequentialRule::Wald => {
                        let sprt = Sprt::new(*healthy, *regressed, *alpha, *beta, *max_trials)?;
                        Ok(Rule {
                            lattice: Boundaries::wald(&sprt),
                            kind: Kind::Wald(sprt),
                        })
                    }
                    SequentialRule::Calibrated { lattice } => {
                        if lattice.max_trials() != *max_trials {
                            return Err(StatsError::BadLattice {
                                reason: "the lattice's rows do not end at `max_trials`",
                            });
                        }
                        Ok(Rule {
                            lattice: lattice.clone(),
                            kind: Kind::Calibrated,
                        })
                    }
                    SequentialRule::Staged { stage, lattice, .. } => {
                        crate::stats::staged::check_stage(*stage)?;
                        if lattice.max_trials() != *max_trials {
                            return Err(StatsError::BadLattice {
                                reason: "the lattice's rows do not end at `max_trials`",
                            });
                        }
                        if !crate::stats::staged::is_staged(lattice, *stage) {
                            return Err(StatsError::BadLattice {
                                reason: "a staged lattice decides only at its stage ends",
                            });
                        }
                        Ok(Rule {
                            lattice: lattice.clone(),
                            kind: Kind::Staged { stage: *stage },
                        })
                    }
                }
            }
        }
    }

    /// The lattice every decision and figure of this rule comes from.
    pub fn lattice(&self) -> &Boundaries {
        &self.lattice
    }

    /// The lattice, owned.
    pub fn into_lattice(self) -> Boundaries {
        self.lattice
    }

    /// Wald's test, for a Wald rule (its LLR explains the decisions).
    pub fn sprt(&self) -> Option<&Sprt> {
        match &self.kind {
            Kind::Wald(sprt) => Some(sprt),
            _ => None,
        }
    }

    /// The decision after `passed` and `failed` graded trials, read off the lattice, with
    /// the sentence the ledger records; None while the rule goes on.
    pub fn decide(&self, passed: u64, failed: u64) -> Option<Decision> {
        let (g, f) = (passed + failed, failed);
        let state = self.lattice.decide(g, f);
        let verdict = match state {
            State::Continue => return None,
            State::Pass => Verdict::Pass,
            State::Fail => Verdict::Fail,
            State::Truncated => Verdict::Inconclusive,
        };
        let max_trials = self.lattice.max_trials();
        let reason = match &self.kind {
            // A single plan always decides by trial n: never truncated.
            &Kind::Single { n, c } => match state {
                State::Fail => format!(
                    "{} exceed{} the acceptance number {c} (after {g} of {})",
                    plural(f, "failure", "failures"),
                    if f == 1 { "s" } else { "" },
                    plural(n, "trial", "trials")
                ),
                _ => format!(
                    "{} reach{} the {} needed; at most {c} of {n} may fail (after {})",
                    plural(passed, "pass", "passes"),
                    if passed == 1 { "es" } else { "" },
                    n - c,
                    plural(g, "trial", "trials")
                ),
            },
            // One sentence for both lattice rules; a staged one names the stage it ended in.
            // These strings are recorded in ledgers and compared on replay: keep them exact.
            Kind::Calibrated | Kind::Staged { .. } => {
                let row = self.lattice.row(g);
                let (name, at) = match self.kind {
                    Kind::Staged { stage } => (
                        "staged",
                        format!(" (stage {})", crate::stats::staged::stage_of(stage, g)),
                    ),
                    _ => ("calibrated", String::new()),
                };
                match state {
                    State::Pass => format!(
                        "{} in {}{at} {} within the {name} PASS bound (at most {})",
                        plural(f, "failure", "failures"),
                        plural(g, "trial", "trials"),
                        if f == 1 { "is" } else { "are" },
                        row.and_then(|r| r.pass_max_failures).unwrap_or(0)
                    ),
                    State::Fail => format!(
                        "{} in {}{at} reach{} the {name} FAIL bound (at least {})",
                        plural(f, "failure", "failures"),
                        plural(g, "trial", "trials"),
                        if f == 1 { "es" } else { "" },
                        row.and_then(|r| r.fail_min_failures).unwrap_or(0)
                    ),
                    _ => format!(
                        "{max_trials} trials{at} spent without reaching a {name} bound ({f} failed)"
                    ),
                }
            }
            Kind::Wald(sprt) => {
                let llr = sprt.llr(passed, failed);
                match state {
                    State::Pass => format!(
                        "LLR {llr:.3} reached the PASS bound {:.3} after {} ({f} failed)",
                        sprt.accept_llr(),
                        plural(g, "trial", "trials")
                    ),
                    State::Fail => format!(
                        "LLR {llr:.3} reached the FAIL bound {:.3} after {} ({f} failed)",
                        sprt.reject_llr(),
                        plural(g, "trial", "trials")
                    ),
                    _ => format!(
                        "{max_trials} trials spent without reaching a bound (LLR {llr:.3}, {f} failed)"
                    ),
                }
            }
        };
        Some(Decision { verdict, reason })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wald(max_trials: u64) -> Sampling {
        Sampling::Sequential {
            healthy: 0.9,
            regressed: 0.7,
            alpha: 0.05,
            beta: 0.1,
            max_trials,
            rule: SequentialRule::Wald,
        }
    }

    #[test]
    fn one_constructor_refuses_every_impossible_spec() {
        let refused = [
            (
                Sampling::Single { n: 0, c: 0 },
                "`n` must be between 1 and 1000000, got 0",
            ),
            (
                Sampling::Single { n: 2_000_000, c: 0 },
                "`n` must be between 1 and 1000000, got 2000000",
            ),
            (
                Sampling::Single { n: 1, c: 3 },
                "acceptance number `c` (3) must be less than `n` (1); with c >= n every run passes",
            ),
            (wald(0), "`max_trials` must be between 1 and 1000000, got 0"),
            (
                wald(1_000_001),
                "`max_trials` must be between 1 and 1000000, got 1000001",
            ),
        ];
        for (spec, message) in refused {
            assert_eq!(spec.rule().unwrap_err().to_string(), message, "{spec:?}");
        }
        let mut swapped = wald(40);
        if let Sampling::Sequential { healthy, .. } = &mut swapped {
            *healthy = 0.6;
        }
        assert!(matches!(
            swapped.rule(),
            Err(StatsError::NotSeparated { .. })
        ));
        let lattice = Boundaries::single(10, 2).unwrap();
        let short = Sampling::Sequential {
            healthy: 0.9,
            regressed: 0.7,
            alpha: 0.05,
            beta: 0.1,
            max_trials: 11,
            rule: SequentialRule::Calibrated { lattice },
        };
        assert!(matches!(short.rule(), Err(StatsError::BadLattice { .. })));
    }

    /// The sentences old ledgers recorded (written by the three decision paths this module
    /// replaced), byte for byte.
    #[test]
    fn decision_sentences_are_the_recorded_ones() {
        let single = Sampling::Single { n: 10, c: 2 }.rule().unwrap();
        assert_eq!(single.decide(3, 2), None);
        assert_eq!(
            single.decide(4, 3).unwrap().reason,
            "3 failures exceed the acceptance number 2 (after 7 of 10 trials)"
        );
        assert_eq!(
            single.decide(8, 1).unwrap().reason,
            "8 passes reach the 8 needed; at most 2 of 10 may fail (after 9 trials)"
        );
        let w = wald(66).rule().unwrap();
        assert_eq!(
            w.decide(9, 0).unwrap().reason,
            "LLR -2.262 reached the PASS bound -2.251 after 9 trials (0 failed)"
        );
        assert_eq!(
            w.decide(0, 3).unwrap().reason,
            "LLR 3.296 reached the FAIL bound 2.890 after 3 trials (3 failed)"
        );
        let short = wald(4).rule().unwrap();
        assert_eq!(
            short.decide(3, 1).unwrap(),
            Decision {
                verdict: Verdict::Inconclusive,
                reason: "4 trials spent without reaching a bound (LLR 0.345, 1 failed)".into()
            }
        );
        let lattice = Boundaries::from_fn(3, |t| (t.checked_sub(2), Some(2))).unwrap();
        let cal = Sampling::Sequential {
            healthy: 0.9,
            regressed: 0.7,
            alpha: 0.05,
            beta: 0.1,
            max_trials: 3,
            rule: SequentialRule::Calibrated { lattice },
        }
        .rule()
        .unwrap();
        assert_eq!(
            cal.decide(2, 0).unwrap().reason,
            "0 failures in 2 trials are within the calibrated PASS bound (at most 0)"
        );
        assert_eq!(
            cal.decide(0, 2).unwrap().reason,
            "2 failures in 2 trials reach the calibrated FAIL bound (at least 2)"
        );
        assert_eq!(cal.decide(1, 1), None);
        let truncated = Boundaries::from_fn(2, |_| (None, Some(5))).unwrap();
        let cal = Sampling::Sequential {
            healthy: 0.9,
            regressed: 0.7,
            alpha: 0.05,
            beta: 0.1,
            max_trials: 2,
            rule: SequentialRule::Calibrated { lattice: truncated },
        };
        assert_eq!(
            cal.rule().unwrap().decide(1, 1).unwrap().reason,
            "2 trials spent without reaching a calibrated bound (1 failed)"
        );
    }
}
