//! `compare`: the ordered pair sampler, which decides "is head worse than base?" from pairs.
//!
//! A compare task runs each ordinal twice, once on head and once on base (the two sides of a
//! pair). Concordant pairs (both pass, both fail) say nothing about a difference; among
//! discordant pairs, head loses (head fails, base passes) with probability θ, which is 1/2
//! exactly when the two rates are equal. The decision is a one-sample sequential rule on the
//! discordant stream — a "success" is a pair head wins, a "failure" a pair head loses — so the
//! one [`Sampler`] decides it, on the same lattice `gate plan` publishes (trials = discordant
//! pairs, failures = head losses), with H0 success rate 1/2 and H1 success rate 1/(1+R).
//!
//! This type only orders: pairs are offered in any order, both sides separately, and consumed
//! strictly in pair-ordinal order (invariant 2), exactly as [`crate::sampler::OrderedSampler`]
//! consumes trials. A concordant pair counts towards `max_pairs` but is not offered to the
//! rule; a pair with an unavailable side is void, counts against the unavailable budget and
//! is replaced; a cancelled side cancels its pair; a harness error stops all consumption.
//! `gate run`, the replay behind `gate report` and `gate verify`, and `gate ingest --base`
//! all feed this type, so the rule that decides and the rule that recomputes are one code.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::{Outcome, Sampling, TrialOutcome, Verdict};
use crate::rule::Decision;
use crate::sampler::in_order::{Finished, Gaps, InOrder, Settle};
use crate::sampler::{Disposition, Sampler};
use crate::stats::loss_route::LossRoute;

/// Which side of a pair an attempt ran on.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The revision under review (the task as written).
    Head,
    /// The revision it is compared with (the plan's `base:`).
    Base,
}

impl Side {
    /// `head` or `base`: the value of `GATE_SIDE` and of the ledger's `side`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Head => "head",
            Side::Base => "base",
        }
    }

    /// The other side.
    pub fn other(self) -> Side {
        match self {
            Side::Head => Side::Base,
            Side::Base => Side::Head,
        }
    }
}

/// A compare task as the ledger header records it, beside its discordant rule (the task's
/// `sampling`, a sequential rule of success rate 1/2 against 1/(1+R)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareRecord {
    /// R: head loses R discordant pairs for each one it wins under H1.
    pub odds_ratio: f64,
    /// Producer's risk asked for (the lattice is designed at a share of it, recorded in
    /// the task's `sampling`).
    pub alpha: f64,
    /// Consumer's risk asked for.
    pub beta: f64,
    /// Pairs (concordant or not) after which the task stops INCONCLUSIVE.
    pub max_pairs: u64,
    /// `base` and `regressed` as the plan gave them, when it gave rates instead of R.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rates: Option<CompareRates>,
    /// Seed of the within-pair order: pair k runs base first iff
    /// [`base_first`]`(seed, k)`.
    pub order_seed: u64,
    /// The base side's `run` command, for display (redacted).
    pub base_run: String,
    /// The base side's `check` command, if any, for display (redacted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_check: Option<String>,
    /// The base side's working directory as the plan gave it (relative to the plan file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_cwd: Option<String>,
    /// The size of a regression in points of pass rate (the loss route's D); absent in
    /// ledgers written before the loss route, which replay with the lattice alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop: Option<f64>,
    /// The loss route beside the discordant rule: PASS once head's losses are too rare for
    /// a fall of `drop` points (see [`crate::stats::loss_route`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_route: Option<LossRoute>,
}

/// The base and regressed (head) pass rates a `compare:` rule was written with.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CompareRates {
    /// Base's pass rate.
    pub base: f64,
    /// The head pass rate that must be detected (below `base`).
    pub regressed: f64,
}

/// The success rates of the discordant stream's one-sample rule for odds ratio `r`: H0 1/2
/// (head wins as often as it loses), H1 1/(1+R).
pub fn discordant_rates(r: f64) -> (f64, f64) {
    (0.5, 1.0 / (1.0 + r))
}

/// Whether pair `pair` runs base first, from the recorded seed: one splitmix64 step of
/// `seed ^ pair`, its top bit. Deterministic, so a replay and a resumed run agree.
pub fn base_first(seed: u64, pair: u64) -> bool {
    let mut z =
        (seed ^ pair.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    z >> 63 == 1
}

/// What one pair amounted to, from its two sides' attempt-1 outcomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairOutcome {
    /// Neither side cancelled nor a harness error: the pair is consumed (a void one against
    /// the unavailable budget).
    Graded(PairGrade),
    /// A side was stopped by gate: the pair is skipped, not a gap.
    Cancelled,
    /// The harness could not run a side: nothing from here on is consumed.
    HarnessError,
}

/// What a consumed pair says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairGrade {
    /// Both sides passed.
    BothPass,
    /// Both sides failed.
    BothFail,
    /// Head failed, base passed: head loses (a "failure" of the discordant rule).
    HeadOnlyFail,
    /// Base failed, head passed: head wins (a "success").
    BaseOnlyFail,
    /// A side was unavailable: the pair is void and replaced.
    Void,
}

impl PairOutcome {
    /// The pair of two sides' outcomes. A harness error on either side wins, then a
    /// cancellation, then an unavailable side; only two graded sides make a graded pair.
    pub fn of(head: Outcome, base: Outcome) -> PairOutcome {
        use Outcome::*;
        let grade = match (head, base) {
            (HarnessError, _) | (_, HarnessError) => return PairOutcome::HarnessError,
            (Cancelled, _) | (_, Cancelled) => return PairOutcome::Cancelled,
            (Unavailable, _) | (_, Unavailable) => PairGrade::Void,
            (Pass, Pass) => PairGrade::BothPass,
            (Fail, Fail) => PairGrade::BothFail,
            (Fail, Pass) => PairGrade::HeadOnlyFail,
            (Pass, Fail) => PairGrade::BaseOnlyFail,
        };
        PairOutcome::Graded(grade)
    }
}

/// Complete pairs as the in-order consumer sorts them.
impl Finished for PairOutcome {
    type Graded = PairGrade;

    fn settle(self) -> Settle<PairGrade> {
        match self {
            PairOutcome::Graded(g) => Settle::Consume(g),
            PairOutcome::Cancelled => Settle::Cancelled,
            PairOutcome::HarnessError => Settle::HarnessError,
        }
    }

    fn unavailable(&self) -> bool {
        *self == PairOutcome::Graded(PairGrade::Void)
    }
}

/// `tasks[].pairs` in the JSON report: the pair counts.
// The four counts of graded pairs, and the void ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[schemars(rename = "JsonPairs")]
pub struct PairCounts {
    /// Graded pairs consumed (the sum of the four counts below).
    pub total: u64,
    /// Both sides passed.
    pub both_pass: u64,
    /// Both sides failed.
    pub both_fail: u64,
    /// Head failed, base passed: head losses.
    pub head_only_fail: u64,
    /// Base failed, head passed: head wins.
    pub base_only_fail: u64,
    /// Pairs with an unavailable side (void, replaced, against the unavailable budget).
    pub void: u64,
}

impl PairCounts {
    /// Discordant pairs: the trials of the rule's lattice.
    pub fn discordant(&self) -> u64 {
        self.head_only_fail + self.base_only_fail
    }

    /// Head's naive pass rate over graded pairs (ignores the stopping rule).
    pub fn head_rate(&self) -> Option<f64> {
        (self.total > 0).then(|| (self.both_pass + self.base_only_fail) as f64 / self.total as f64)
    }

    /// Base's naive pass rate over graded pairs (ignores the stopping rule).
    pub fn base_rate(&self) -> Option<f64> {
        (self.total > 0).then(|| (self.both_pass + self.head_only_fail) as f64 / self.total as f64)
    }
}

/// The reason of a compare task with no pair recorded on either side: `gate ingest --base`
/// judges a test case only base records (removed, or skipped in every run, on head) this way,
/// and the replay of its ledger says the same. Missing evidence must not read as no
/// regression, so it is INCONCLUSIVE (review 6, a14).
pub const NO_PAIR_REASON: &str = "no pair recorded: the test case ran on one side only (on base only: removed, or skipped in every run, on head; or on head only and failing there: new, or run on head where base skipped it), so nothing compares head with base; evidence missing is not evidence of no regression";

/// The reason of a compare suite's test case base skipped in every suite run (`gate run`): no
/// pair has a base side, so nothing compares head with base, whatever head's runs did. The
/// same words in its decision row and in the replay (review 10, a15).
pub const SKIPPED_ON_BASE_IN_EVERY_RUN: &str = "skipped on base in every suite run: never compared with base, so never judged (a test enabled on head that base skips); evidence missing is not evidence of no regression, so the gate cannot PASS while it is in the suite";

/// The ordered pair sampler: sides offered in any order, pairs consumed in pair-ordinal
/// order ([`InOrder`]) by the discordant rule, with `max_pairs` truncation.
#[derive(Debug, Clone)]
pub struct PairSampler {
    /// Sides offered, by pair, until both are in.
    sides: BTreeMap<u64, (Option<Outcome>, Option<Outcome>)>,
    /// Complete pairs, consumed in pair order.
    order: InOrder<PairOutcome>,
    /// What consuming a pair does: the counts and the discordant rule.
    rule: PairRule,
}

/// The consuming half of [`PairSampler`]: pair counts, the discordant rule, and the decision
/// in pair terms.
#[derive(Debug, Clone)]
struct PairRule {
    rule: Sampler,
    max_unavailable: u64,
    max_pairs: u64,
    /// The loss route beside the discordant rule, if the task has one.
    loss_route: Option<LossRoute>,
    counts: PairCounts,
    /// The decision in pair terms: the rule's, or INCONCLUSIVE at `max_pairs`.
    decided: Option<Decision>,
}

impl PairSampler {
    /// A fresh pair sampler for a compare task whose discordant rule is `sampling`, with
    /// the loss route `loss_route` beside it (None: the discordant rule alone).
    pub fn new(
        sampling: Sampling,
        max_unavailable: u64,
        max_pairs: u64,
        loss_route: Option<LossRoute>,
    ) -> Result<Self, crate::stats::StatsError> {
        Ok(PairSampler {
            sides: BTreeMap::new(),
            // The discordant rule is sequential: its verdict depends on order.
            order: InOrder::new(Gaps::Stop, None),
            rule: PairRule {
                rule: Sampler::new(sampling, max_unavailable)?,
                max_unavailable,
                max_pairs,
                loss_route,
                counts: PairCounts::default(),
                decided: None,
            },
        })
    }

    /// Offer one side's attempt-1 outcome of pair `pair`. Returns the pairs this settled, in
    /// pair-ordinal order. A side offered twice, or a settled pair, is ignored (invariant 1).
    pub fn offer(&mut self, pair: u64, side: Side, outcome: Outcome) -> Vec<(u64, Disposition)> {
        if outcome == Outcome::HarnessError {
            // One side is enough: consumption stops the moment a harness error arrives.
            self.order.halt();
        }
        if !self.order.accepts(pair) {
            return Vec::new();
        }
        let slot = self.sides.entry(pair).or_default();
        let cell = match side {
            Side::Head => &mut slot.0,
            Side::Base => &mut slot.1,
        };
        if cell.is_some() {
            return Vec::new();
        }
        *cell = Some(outcome);
        let (Some(h), Some(b)) = *slot else {
            return Vec::new();
        };
        self.sides.remove(&pair);
        let rule = &mut self.rule;
        self.order
            .offer(pair, PairOutcome::of(h, b), |p| rule.consume(p))
    }

    /// Every pair below `pair` not complete by now never will be: the rule's verdict depends
    /// on order, so consumption stops at the first such gap.
    pub fn gap_before(&mut self, pair: u64) -> Vec<(u64, Disposition)> {
        let rule = &mut self.rule;
        let settled = self.order.gap_before(pair, |p| rule.consume(p));
        // Half-offered pairs below `pair` will never complete.
        self.sides.retain(|&p, _| p >= pair);
        settled
    }

    /// Stop consuming from now on (rows written after a harness error).
    pub fn halt(&mut self) {
        self.order.halt();
    }

    /// The discordant rule underneath (its tally: head wins, head losses, void pairs).
    pub fn rule(&self) -> &Sampler {
        &self.rule.rule
    }

    /// The pair counts consumed so far.
    pub fn pair_counts(&self) -> PairCounts {
        self.rule.counts
    }

    /// Graded pairs (concordant or not) after which the task is INCONCLUSIVE: the budget of
    /// its runs.
    pub fn max_pairs(&self) -> u64 {
        self.rule.max_pairs
    }

    /// The decision, once reached: the rule's, or INCONCLUSIVE at `max_pairs`.
    pub fn decision(&self) -> Option<&Decision> {
        self.rule.decided.as_ref()
    }

    /// The pair whose outcome reached the decision.
    pub fn decided_at(&self) -> Option<u64> {
        self.order.decided_at()
    }

    /// Whether a harness error stopped consumption.
    pub fn halted(&self) -> bool {
        self.order.halted()
    }

    /// Whether consumption stopped at a gap.
    pub fn blocked_at_gap(&self) -> bool {
        self.order.blocked_at_gap()
    }

    /// Cancelled pairs settled so far.
    pub fn cancelled(&self) -> u64 {
        self.order.cancelled()
    }

    /// Complete pairs never counted: excluded once settled, or waiting behind a lower pair.
    pub fn uncounted_finished(&self) -> u64 {
        self.order.uncounted_finished()
    }

    /// Complete pairs waiting behind a lower pair: (graded, void).
    pub fn waiting(&self) -> (u64, u64) {
        self.order.waiting()
    }

    /// Counts for the decision row: the discordant rule's tally (passed = head wins,
    /// failed = head losses, unavailable = void pairs), pairs cancelled and excluded.
    pub fn counts(&self) -> crate::model::Counts {
        crate::model::Counts::from_tally(
            self.rule().tally(),
            self.cancelled(),
            self.uncounted_finished(),
        )
    }
}

impl PairRule {
    /// Count one pair, offer it to the discordant rule if it is discordant or void, and
    /// decide in pair terms; returns whether the task has decided.
    fn consume(&mut self, pair: PairGrade) -> bool {
        let c = &mut self.counts;
        let offered = match pair {
            PairGrade::BothPass => {
                c.both_pass += 1;
                None
            }
            PairGrade::BothFail => {
                c.both_fail += 1;
                None
            }
            PairGrade::HeadOnlyFail => {
                c.head_only_fail += 1;
                Some(TrialOutcome::Fail)
            }
            PairGrade::BaseOnlyFail => {
                c.base_only_fail += 1;
                Some(TrialOutcome::Pass)
            }
            PairGrade::Void => {
                c.void += 1;
                Some(TrialOutcome::Unavailable)
            }
        };
        if pair != PairGrade::Void {
            c.total += 1;
        }
        if let Some(o) = offered {
            self.rule.consume(o);
        }
        let c = self.counts;
        if let Some(d) = self.rule.decision()
            && self.rule.tally().unavailable > self.max_unavailable
        {
            self.decided = Some(Decision {
                verdict: d.verdict,
                reason: format!(
                    "{} void pairs (a side unavailable) exceed the budget of {}",
                    c.void, self.max_unavailable
                ),
            });
        } else if let Some(d) = self.rule.decision() {
            // The rule speaks of trials and failures: say first what they are here.
            self.decided = Some(Decision {
                verdict: d.verdict,
                reason: format!(
                    "head lost {} of {} discordant pairs ({} pairs); the rule on them: {}",
                    c.head_only_fail,
                    c.discordant(),
                    c.total,
                    d.reason
                ),
            });
        } else if pair != PairGrade::Void
            && let Some(route) = self.loss_route
            && route.passes(c.total, c.head_only_fail)
        {
            // After the lattice, so that a FAIL reached on the same pair stands.
            self.decided = Some(Decision {
                verdict: Verdict::Pass,
                reason: format!(
                    "head lost {} of {} pairs, at most the {} the loss route allows by now \
                     (PASS once losses <= (pairs - {}) / {}): too few for a regression",
                    c.head_only_fail,
                    c.total,
                    route.allowed(c.total).unwrap_or(0),
                    route.first,
                    route.step
                ),
            });
        } else if self.counts.total >= self.max_pairs {
            self.decided = Some(Decision {
                verdict: Verdict::Inconclusive,
                reason: format!(
                    "{} pairs spent without reaching a bound ({} discordant: head lost {}, won {})",
                    self.max_pairs,
                    c.discordant(),
                    c.head_only_fail,
                    c.base_only_fail
                ),
            });
        }
        self.decided.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::SequentialRule;

    fn wald(r: f64, max_pairs: u64) -> PairSampler {
        let (h, l) = discordant_rates(r);
        let sampling = Sampling::Sequential {
            healthy: h,
            regressed: l,
            alpha: 0.05,
            beta: 0.1,
            max_trials: max_pairs,
            rule: SequentialRule::Wald,
        };
        PairSampler::new(sampling, 2, max_pairs, None).unwrap()
    }

    #[test]
    fn the_odds_ratio_of_90_against_80_percent_is_2_25() {
        assert!((crate::stats::compare::odds_ratio_of_rates(0.9, 0.8) - 2.25).abs() < 1e-12);
        assert_eq!(discordant_rates(3.0), (0.5, 0.25));
    }

    #[test]
    fn pairs_are_consumed_in_pair_order_and_concordant_pairs_are_not_offered() {
        let mut s = wald(3.0, 100);
        // Pair 2 completes first: nothing may be consumed before pair 1.
        assert!(s.offer(2, Side::Base, Outcome::Pass).is_empty());
        assert!(s.offer(2, Side::Head, Outcome::Fail).is_empty());
        assert!(s.offer(1, Side::Head, Outcome::Pass).is_empty());
        let settled = s.offer(1, Side::Base, Outcome::Pass);
        assert_eq!(
            settled,
            vec![(1, Disposition::Counted), (2, Disposition::Counted)]
        );
        let c = s.pair_counts();
        assert_eq!((c.total, c.both_pass, c.head_only_fail), (2, 1, 1));
        // The rule saw one discordant pair only.
        assert_eq!(s.rule().tally().graded(), 1);
    }

    #[test]
    fn a_void_pair_counts_against_the_budget_and_max_pairs_truncates() {
        let mut s = wald(3.0, 3);
        for p in 1..=3 {
            s.offer(p, Side::Head, Outcome::Unavailable);
            s.offer(p, Side::Base, Outcome::Pass);
        }
        let d = s.decision().unwrap();
        assert_eq!(d.verdict, Verdict::Inconclusive);
        assert!(d.reason.contains("3 void pairs"), "{}", d.reason);
        let mut s = wald(3.0, 3);
        for p in 1..=3 {
            s.offer(p, Side::Head, Outcome::Pass);
            s.offer(p, Side::Base, Outcome::Pass);
        }
        let d = s.decision().unwrap();
        assert_eq!(d.verdict, Verdict::Inconclusive);
        assert!(d.reason.contains("3 pairs spent"), "{}", d.reason);
        assert_eq!(s.decided_at(), Some(3));
        assert_eq!(
            s.offer(4, Side::Head, Outcome::Pass),
            Vec::<(u64, Disposition)>::new()
        );
        assert_eq!(
            s.offer(4, Side::Base, Outcome::Pass),
            vec![(4, Disposition::Excluded)]
        );
    }

    #[test]
    fn head_losing_every_discordant_pair_fails_and_winning_passes() {
        for (head, verdict) in [
            (Outcome::Fail, Verdict::Fail),
            (Outcome::Pass, Verdict::Pass),
        ] {
            let mut s = wald(3.0, 1000);
            let mut p = 0;
            while s.decision().is_none() {
                p += 1;
                s.offer(p, Side::Head, head);
                s.offer(
                    p,
                    Side::Base,
                    if head == Outcome::Pass {
                        Outcome::Fail
                    } else {
                        Outcome::Pass
                    },
                );
            }
            assert_eq!(s.decision().unwrap().verdict, verdict);
        }
    }

    #[test]
    fn a_cancelled_side_skips_its_pair_and_a_gap_stops_consumption() {
        let mut s = wald(3.0, 100);
        s.offer(1, Side::Head, Outcome::Cancelled);
        assert_eq!(
            s.offer(1, Side::Base, Outcome::Pass),
            vec![(1, Disposition::Cancelled)]
        );
        s.offer(3, Side::Head, Outcome::Fail);
        s.offer(3, Side::Base, Outcome::Pass);
        s.gap_before(3);
        assert!(s.blocked_at_gap());
        assert_eq!(s.pair_counts().total, 0);
    }

    #[test]
    fn the_within_pair_order_is_seeded_and_balanced() {
        let firsts = (1..=10_000).filter(|&k| base_first(42, k)).count();
        assert!((4_700..5_300).contains(&firsts), "{firsts}");
        assert_eq!(base_first(7, 3), base_first(7, 3));
        assert!((1..64).any(|k| base_first(1, k) != base_first(2, k)));
    }

    proptest::proptest! {
        /// Whatever order the sides arrive in, the pair sampler decides exactly as a plain
        /// walk over the pairs in pair order would: the one Sampler fed the discordant
        /// pairs (head loss = failure), void pairs as unavailable, stopping at the rule's
        /// decision or at `max_pairs` graded pairs.
        #[test]
        fn any_arrival_order_decides_as_the_walk_in_pair_order(
            pairs in proptest::collection::vec((0u8..5, 0u8..5), 1..120),
            order in proptest::collection::vec(0usize..10_000, 240),
            max_pairs in 5u64..80,
        ) {
            let outcome = |k: u8| match k {
                0 | 1 => Outcome::Pass,
                2 | 3 => Outcome::Fail,
                _ => Outcome::Unavailable,
            };
            // The reference: in pair order, by hand.
            let (h, l) = discordant_rates(3.0);
            let sampling = Sampling::Sequential {
                healthy: h,
                regressed: l,
                alpha: 0.05,
                beta: 0.1,
                max_trials: max_pairs,
                rule: SequentialRule::Wald,
            };
            let mut rule = Sampler::new(sampling.clone(), 4).unwrap();
            let mut total = 0u64;
            let mut want = None;
            for &(hd, bs) in &pairs {
                let (hd, bs) = (outcome(hd), outcome(bs));
                let grade = match PairOutcome::of(hd, bs) {
                    PairOutcome::Graded(g) => g,
                    _ => unreachable!("the strategy draws pass, fail and unavailable only"),
                };
                let offered = match grade {
                    PairGrade::HeadOnlyFail => Some(TrialOutcome::Fail),
                    PairGrade::BaseOnlyFail => Some(TrialOutcome::Pass),
                    PairGrade::Void => Some(TrialOutcome::Unavailable),
                    PairGrade::BothPass | PairGrade::BothFail => None,
                };
                if grade != PairGrade::Void {
                    total += 1;
                }
                if let Some(o) = offered {
                    rule.consume(o);
                }
                if let Some(d) = rule.decision() {
                    want = Some(d.verdict);
                    break;
                }
                if total >= max_pairs {
                    want = Some(Verdict::Inconclusive);
                    break;
                }
            }
            // The pair sampler, sides offered in a shuffled order.
            let mut sides: Vec<(u64, Side, Outcome)> = pairs
                .iter()
                .enumerate()
                .flat_map(|(i, &(hd, bs))| {
                    let p = i as u64 + 1;
                    [(p, Side::Head, outcome(hd)), (p, Side::Base, outcome(bs))]
                })
                .collect();
            for i in (1..sides.len()).rev() {
                sides.swap(i, order[i] % (i + 1));
            }
            let mut s = PairSampler::new(sampling, 4, max_pairs, None).unwrap();
            for (p, side, o) in sides {
                s.offer(p, side, o);
            }
            proptest::prop_assert_eq!(s.decision().map(|d| d.verdict), want);
        }
    }
}
