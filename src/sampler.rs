//! Sampling as a state machine: should another trial run, and is there a verdict yet?
//!
//! [`Sampler`] tallies outcomes, spends the unavailable budget and asks its [`Rule`] (the
//! lattice, `src/rule.rs`) for the decision. The sampler knows nothing about processes.
//! [`OrderedSampler`] takes outcomes in any order ([`OrderedSampler::offer`]), holds those
//! that arrive early, consumes them strictly in ordinal order (invariant 2), and answers
//! with a [`Decision`] once the verdict can no longer change. The same code replays a ledger
//! in `gate report` and `gate verify`, which is what makes every verdict recomputable from
//! the ledger alone (invariant 4).

pub mod in_order;

use crate::model::{Counts, Outcome, Sampling, Shard, Tally, TrialOutcome, Verdict};
use crate::rule::{Decision, Rule};

pub use in_order::Disposition;

use in_order::{Finished, Gaps, InOrder, Settle};

/// A sampling rule in progress: the tally, the unavailable budget, and the [`Rule`] (its
/// lattice) that decides.
#[derive(Debug, Clone)]
pub struct Sampler {
    sampling: Sampling,
    rule: Rule,
    max_unavailable: u64,
    tally: Tally,
    decision: Option<Decision>,
}

impl Sampler {
    /// A fresh sampler. `max_unavailable` is the budget of unavailable trials; one more makes
    /// the task INCONCLUSIVE. Fails for a spec [`Rule::new`] refuses, which plan validation
    /// (or, for a recorded spec, the replay's header check) has already ruled out.
    pub fn new(sampling: Sampling, max_unavailable: u64) -> Result<Self, crate::stats::StatsError> {
        Ok(Sampler {
            rule: Rule::new(&sampling)?,
            sampling,
            max_unavailable,
            tally: Tally::default(),
            decision: None,
        })
    }

    /// The rule's spec.
    pub fn sampling(&self) -> &Sampling {
        &self.sampling
    }

    /// The rule: its lattice decides.
    pub fn rule(&self) -> &Rule {
        &self.rule
    }

    /// Outcomes consumed so far.
    pub fn tally(&self) -> Tally {
        self.tally
    }

    /// The decision, once reached.
    pub fn decision(&self) -> Option<&Decision> {
        self.decision.as_ref()
    }

    /// The SPRT log-likelihood ratio so far (Wald's rule only).
    pub fn llr(&self) -> Option<f64> {
        self.rule
            .sprt()
            .map(|s| s.llr(self.tally.passed, self.tally.failed))
    }

    /// Wald's (PASS, FAIL) bounds on the LLR.
    pub fn llr_bounds(&self) -> Option<(f64, f64)> {
        self.rule.sprt().map(|s| (s.accept_llr(), s.reject_llr()))
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

    /// The budget first (an exhausted budget ends the task whatever the lattice says),
    /// then the lattice.
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
        self.rule.decide(t.passed, t.failed)
    }
}

/// Trial outcomes as the in-order consumer sorts them.
impl Finished for Outcome {
    type Graded = TrialOutcome;

    fn settle(self) -> Settle<TrialOutcome> {
        match self {
            Outcome::Pass => Settle::Consume(TrialOutcome::Pass),
            Outcome::Fail => Settle::Consume(TrialOutcome::Fail),
            Outcome::Unavailable => Settle::Consume(TrialOutcome::Unavailable),
            Outcome::Cancelled => Settle::Cancelled,
            Outcome::HarnessError => Settle::HarnessError,
        }
    }

    fn unavailable(&self) -> bool {
        *self == Outcome::Unavailable
    }
}

/// The one ordered sampler (invariant 2): trials are offered as they finish, in any order,
/// and consumed strictly in ordinal order. `gate run` offers each trial's attempt-1 outcome
/// as it arrives; the replay behind `gate report` and `gate verify` offers the recorded ones.
/// Both therefore decide by the same rule:
///
/// - an outcome waits until every lower ordinal is settled (finished, cancelled, or known
///   never to come);
/// - a cancelled trial is skipped; an ordinal known never to come ([`OrderedSampler::gap_before`])
///   is skipped by a single plan, whose verdict does not depend on order, and stops a
///   sequential plan, whose verdict does;
/// - a harness error stops all consumption from the moment it arrives;
/// - once the rule decides, later outcomes are excluded.
///
/// The ordering is [`InOrder`]'s, the decision the rule's ([`Sampler`]); this type joins them.
#[derive(Debug, Clone)]
pub struct OrderedSampler {
    sampler: Sampler,
    order: InOrder<Outcome>,
}

impl OrderedSampler {
    /// A fresh ordered sampler for a rule. With a shard, the ordinals the shard does not own
    /// are never waited for (a shard runs single plans only).
    pub fn new(
        sampling: Sampling,
        max_unavailable: u64,
        shard: Option<Shard>,
    ) -> Result<Self, crate::stats::StatsError> {
        let gaps = match sampling {
            Sampling::Sequential { .. } => Gaps::Stop,
            Sampling::Single { .. } => Gaps::Skip,
        };
        Ok(OrderedSampler {
            sampler: Sampler::new(sampling, max_unavailable)?,
            order: InOrder::new(gaps, shard),
        })
    }

    /// Offer trial `ordinal`'s attempt-1 outcome. Returns the trials this settled, in
    /// ordinal order (none while a lower ordinal is still pending). An ordinal already
    /// settled, or offered twice, is ignored: a trial is graded once (invariant 1).
    pub fn offer(&mut self, ordinal: u64, outcome: Outcome) -> Vec<(u64, Disposition)> {
        let sampler = &mut self.sampler;
        self.order
            .offer(ordinal, outcome, |t| sampler.consume(t).is_some())
    }

    /// Every ordinal below `ordinal` that was not offered never will be (no row recorded).
    /// A single plan skips such gaps; a sequential plan stops consuming at the first.
    pub fn gap_before(&mut self, ordinal: u64) -> Vec<(u64, Disposition)> {
        let sampler = &mut self.sampler;
        self.order
            .gap_before(ordinal, |t| sampler.consume(t).is_some())
    }

    /// Stop consuming from now on, as if a harness error had arrived (the replay uses this
    /// for rows written after the harness error, which the run never consumed).
    pub fn halt(&mut self) {
        self.order.halt();
    }

    /// The rule underneath (tally, decision, LLR).
    pub fn rule(&self) -> &Sampler {
        &self.sampler
    }

    /// Outcomes consumed so far.
    pub fn tally(&self) -> Tally {
        self.sampler.tally()
    }

    /// The decision, once reached.
    pub fn decision(&self) -> Option<&Decision> {
        self.sampler.decision()
    }

    /// The ordinal whose outcome reached the decision.
    pub fn decided_at(&self) -> Option<u64> {
        self.order.decided_at()
    }

    /// Whether a harness error stopped consumption.
    pub fn halted(&self) -> bool {
        self.order.halted()
    }

    /// Whether a sequential plan stopped at a gap.
    pub fn blocked_at_gap(&self) -> bool {
        self.order.blocked_at_gap()
    }

    /// Cancelled trials settled so far.
    pub fn cancelled(&self) -> u64 {
        self.order.cancelled()
    }

    /// Finished trials never counted: excluded once settled, or still waiting behind a
    /// lower ordinal that never finished.
    pub fn uncounted_finished(&self) -> u64 {
        self.order.uncounted_finished()
    }

    /// Offered outcomes waiting behind a lower ordinal: (graded, unavailable).
    pub fn waiting(&self) -> (u64, u64) {
        self.order.waiting()
    }

    /// Counts for the decision row.
    pub fn counts(&self) -> Counts {
        Counts::from_tally(self.tally(), self.cancelled(), self.uncounted_finished())
    }
}

#[cfg(test)]
mod ordered_tests {
    use super::*;
    use crate::model::SequentialRule;
    use crate::stats::lattice::State;

    fn single(n: u64, c: u64) -> OrderedSampler {
        OrderedSampler::new(Sampling::Single { n, c }, 2, None).unwrap()
    }

    #[test]
    fn outcomes_are_consumed_in_ordinal_order_not_completion_order() {
        let mut s = single(3, 0);
        // Trial 2 fails first, trial 1 is slow: nothing may be decided before trial 1 lands.
        assert!(s.offer(2, Outcome::Fail).is_empty());
        assert!(s.decision().is_none());
        let settled = s.offer(1, Outcome::Pass);
        assert_eq!(
            settled,
            vec![(1, Disposition::Counted), (2, Disposition::Counted)]
        );
        assert_eq!(s.decision().unwrap().verdict, Verdict::Fail);
        assert_eq!(s.decided_at(), Some(2));
        assert_eq!(s.offer(3, Outcome::Pass), vec![(3, Disposition::Excluded)]);
    }

    #[test]
    fn a_cancelled_trial_is_skipped_and_a_harness_error_halts_on_arrival() {
        let mut s = single(5, 1);
        s.offer(1, Outcome::Cancelled);
        assert_eq!(s.offer(2, Outcome::Fail), vec![(2, Disposition::Counted)]);
        s.offer(4, Outcome::Pass);
        s.offer(5, Outcome::HarnessError);
        assert!(s.halted());
        assert_eq!(
            s.offer(3, Outcome::Pass),
            vec![
                (3, Disposition::Excluded),
                (4, Disposition::Excluded),
                (5, Disposition::HarnessError)
            ]
        );
        assert_eq!(s.tally().graded(), 1);
    }

    #[test]
    fn a_gap_stops_a_sequential_plan_but_not_a_single_plan() {
        let mut s = single(4, 1);
        s.offer(3, Outcome::Pass);
        s.gap_before(3);
        assert_eq!(s.tally().passed, 1);
        let seq = Sampling::Sequential {
            healthy: 0.9,
            regressed: 0.7,
            alpha: 0.05,
            beta: 0.1,
            max_trials: 50,
            rule: SequentialRule::Wald,
        };
        let mut q = OrderedSampler::new(seq, 5, None).unwrap();
        q.offer(1, Outcome::Pass);
        q.offer(3, Outcome::Pass);
        q.gap_before(3);
        assert!(q.blocked_at_gap());
        assert_eq!(q.tally().passed, 1);
    }

    #[test]
    fn a_calibrated_rule_decides_where_its_lattice_says() {
        let lattice = crate::stats::calibrated::design_calibrated(0.9, 0.7, 0.05, 0.1, None)
            .unwrap()
            .boundaries;
        let seq = Sampling::Sequential {
            healthy: 0.9,
            regressed: 0.7,
            alpha: 0.05,
            beta: 0.1,
            max_trials: lattice.max_trials(),
            rule: SequentialRule::Calibrated {
                lattice: lattice.clone(),
            },
        };
        // Every pass path and every all-fail path stops exactly where `decide` says.
        for fail_every in [0u64, 2, 3] {
            let mut s = Sampler::new(seq.clone(), 0).unwrap();
            let (mut t, mut f) = (0u64, 0u64);
            loop {
                t += 1;
                let failed = fail_every != 0 && t % fail_every == 0;
                f += u64::from(failed);
                let outcome = if failed {
                    TrialOutcome::Fail
                } else {
                    TrialOutcome::Pass
                };
                let decided = s.consume(outcome).map(|d| d.verdict);
                let want = match lattice.decide(t, f) {
                    State::Continue => None,
                    State::Pass => Some(Verdict::Pass),
                    State::Fail => Some(Verdict::Fail),
                    State::Truncated => Some(Verdict::Inconclusive),
                };
                assert_eq!(decided, want, "t={t} f={f}");
                if decided.is_some() {
                    break;
                }
            }
        }
        // A recorded lattice that does not end at `max_trials` is refused.
        let mut forged = seq.clone();
        if let Sampling::Sequential { max_trials, .. } = &mut forged {
            *max_trials += 1;
        }
        assert!(Sampler::new(forged, 0).is_err());
    }

    #[test]
    fn a_shard_waits_only_for_its_own_ordinals() {
        let mut s = OrderedSampler::new(
            Sampling::Single { n: 9, c: 0 },
            0,
            Some(Shard { k: 2, m: 3 }),
        )
        .unwrap();
        assert_eq!(s.offer(5, Outcome::Pass), Vec::new());
        assert_eq!(
            s.offer(2, Outcome::Pass),
            vec![(2, Disposition::Counted), (5, Disposition::Counted)]
        );
        assert_eq!(s.offer(8, Outcome::Pass), vec![(8, Disposition::Counted)]);
    }
}

/// The property that lets one lattice decide every rule: the sampler's verdict after any
/// outcome sequence is the one [`Boundaries::decide`] gives on the rule's lattice, with the
/// unavailable budget checked first.
#[cfg(test)]
mod lattice_agreement {
    use super::*;
    use crate::model::SequentialRule;
    use crate::stats::lattice::{Boundaries, State};
    use proptest::prelude::*;

    /// A single, Wald or calibrated rule with random parameters. The calibrated lattice is
    /// an arbitrary valid table (the sampler decides whatever lattice the ledger recorded),
    /// plus, sometimes, a real design.
    fn rule() -> impl Strategy<Value = Sampling> {
        let single = (1u64..80, 0.0f64..1.0).prop_map(|(n, frac)| Sampling::Single {
            n,
            c: ((n as f64) * frac) as u64 % n,
        });
        let wald = (
            0.3f64..0.99,
            0.02f64..0.5,
            1e-4f64..0.3,
            1e-4f64..0.3,
            1u64..250,
        )
            .prop_filter_map("rates out of (0, 1)", |(h, gap, alpha, beta, m)| {
                let r = h - gap;
                (r > 0.01).then_some(Sampling::Sequential {
                    healthy: h,
                    regressed: r,
                    alpha,
                    beta,
                    max_trials: m,
                    rule: SequentialRule::Wald,
                })
            });
        let table = (1usize..120)
            .prop_flat_map(|m| {
                proptest::collection::vec((0u64..6, 0u64..6, 0u64..4), m).prop_map(|steps| {
                    // Rows from random increments: the PASS bound and the FAIL bound each
                    // rise by at most one failure per trial (as a real rule's can), with a
                    // gap of at least one between them; early rows may have neither.
                    let mut rows = Vec::with_capacity(steps.len());
                    for (i, &(a, b, gap)) in steps.iter().enumerate() {
                        let t = i as u64 + 1;
                        let pass = (a > 1).then(|| (t * a / 8).min(t));
                        let fail = (b > 1).then(|| pass.map_or(t * b / 6, |p| p + 1 + gap));
                        rows.push(crate::stats::lattice::LatticeRow {
                            trials: t,
                            pass_max_failures: pass,
                            fail_min_failures: fail,
                        });
                    }
                    Boundaries::new(rows).expect("PASS below FAIL by construction")
                })
            })
            .prop_map(calibrated);
        let designed = (0.8f64..0.97, 0.1f64..0.3).prop_filter_map("no design", |(h, gap)| {
            crate::stats::calibrated::design_calibrated(h, h - gap, 0.05, 0.1, None)
                .ok()
                .map(|d| calibrated(d.boundaries))
        });
        prop_oneof![single, wald, table, designed]
    }

    fn calibrated(lattice: Boundaries) -> Sampling {
        Sampling::Sequential {
            healthy: 0.9,
            regressed: 0.7,
            alpha: 0.05,
            beta: 0.1,
            max_trials: lattice.max_trials(),
            rule: SequentialRule::Calibrated { lattice },
        }
    }

    fn outcome() -> impl Strategy<Value = TrialOutcome> {
        prop_oneof![
            6 => Just(TrialOutcome::Pass),
            3 => Just(TrialOutcome::Fail),
            1 => Just(TrialOutcome::Unavailable),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn the_sampler_decides_as_the_rules_lattice_does(
            sampling in rule(),
            budget in 0u64..5,
            outcomes in proptest::collection::vec(outcome(), 0..300),
        ) {
            let lattice = sampling.lattice().expect("a valid rule has a lattice");
            let mut sampler = Sampler::new(sampling, budget).expect("valid rule");
            let (mut g, mut f, mut u) = (0u64, 0u64, 0u64);
            let mut decided = false;
            for o in outcomes {
                let got = sampler.consume(o).map(|d| d.verdict);
                if decided {
                    // Outcomes beyond the decision point are ignored.
                    prop_assert_eq!(got, None);
                    continue;
                }
                match o {
                    TrialOutcome::Pass => g += 1,
                    TrialOutcome::Fail => (g, f) = (g + 1, f + 1),
                    TrialOutcome::Unavailable => u += 1,
                }
                let want = if u > budget {
                    Some(Verdict::Inconclusive)
                } else {
                    match lattice.decide(g, f) {
                        State::Continue => None,
                        State::Pass => Some(Verdict::Pass),
                        State::Fail => Some(Verdict::Fail),
                        State::Truncated => Some(Verdict::Inconclusive),
                    }
                };
                prop_assert_eq!(got, want, "after {} graded ({} failed), {} unavailable", g, f, u);
                decided = want.is_some();
                prop_assert_eq!(sampler.tally().graded(), g);
            }
        }
    }
}
