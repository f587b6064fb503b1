//! Estimates after a stop: the per-trial success rate when trials were drawn until a
//! stopping rule decided.
//!
//! A curtailed single plan and a sequential test stop early on extreme data, so the naive
//! p̂ = passes / graded is biased and its Wilson interval under-covers: for Wald's SPRT of
//! 0.9 vs 0.7 (alpha 0.05, beta 0.10, 66 trials) at a true rate of 0.7, E[p̂] = 0.625 and the
//! "95%" Wilson interval covers 0.7 only 83% of the time. This module gives figures that
//! account for the stop (ARCHITECTURE.md, invariant 8):
//!
//! - The rule is a [`Boundaries`] lattice — PASS once failures are at most a_t, FAIL once
//!   they are at least b_t, INCONCLUSIVE at `max_trials` — which covers the curtailed single
//!   plan (n, c), Wald's SPRT and the calibrated sequential rule ([`super::calibrated`]).
//! - [`SampleSpace`]: every terminal state of a rule with the number of paths that reach it
//!   (exact dynamic programming; a state's probability at rate p is
//!   `paths · p^successes · (1-p)^failures`), in the **stage-wise ordering** (Armitage 1957;
//!   Fairbanks & Madsen 1982; Jennison & Turnbull 2000, ch. 8.4): an early PASS is the most
//!   favourable outcome, an early FAIL the least, and states at `max_trials` lie between,
//!   ordered by their failures.
//! - [`SampleSpace::estimate`]: the exact confidence interval under that ordering (the rates
//!   not rejected by either one-sided test at (1 - confidence) / 2) and the median-unbiased
//!   point estimate (mid-p: the rate at which the observed state is the median of the
//!   ordering).
//!
//! Why the stage-wise ordering: for a rule whose PASS region at each t is "failures <= a_t"
//! and whose FAIL region is "failures >= b_t", P_p(outcome at least as favourable as the one
//! observed) rises with p. Couple two runs at rates p < p' trial by trial so that the run at
//! p' has at most as many failures as the run at p after every trial: if the run at p
//! passes by trial t, the run at p' has neither failed before (it would have had fewer
//! failures than a run that had not failed) and has passed by t; the same holds for
//! reaching `max_trials` with at most f failures, and its mirror for FAIL. Monotone tail
//! probabilities make the interval an interval and give it coverage >= confidence at every
//! true rate, which the tests check by exact enumeration. (The sample-mean ordering has no
//! such guarantee on a discrete lattice.)
//!
//! The terminal probabilities come from path counts, which do not depend on p, so the
//! lattice is walked once and each evaluation during root finding is a sum over the
//! terminal states (about one per trial, plus the window at `max_trials`).

use super::check_open;
use super::estimate::{Interval, solve_increasing};
use super::lattice::{Boundaries, State};

/// The same rule stopped after `max_trials` graded trials (INCONCLUSIVE there if undecided):
/// the rule a run followed when it stopped before its rule decided. None when `max_trials`
/// is 0 or beyond the rule's own.
pub fn truncated(rule: &Boundaries, max_trials: u64) -> Option<Boundaries> {
    if max_trials == 0 || max_trials > rule.max_trials() {
        return None;
    }
    Boundaries::from_fn(max_trials, |t| {
        rule.row(t)
            .map_or((None, None), |r| (r.pass_max_failures, r.fail_min_failures))
    })
    .ok()
}

impl SampleSpace {
    /// Every terminal state `rule` can reach, with its path count, in the stage-wise
    /// ordering. Cost O(max_trials × width of the continuation region).
    pub fn new(rule: &Boundaries) -> SampleSpace {
        let mut states = Vec::new();
        // ln(number of paths) to each continuing state (t, lo + i); starts at (0, 0).
        let mut lo = 0u64;
        let mut cur = vec![0.0f64];
        let mut next = Vec::new();
        for t in 1..=rule.max_trials() {
            if cur.is_empty() {
                break;
            }
            // A success keeps f, a failure adds one: f ranges over lo..=lo + len.
            next.clear();
            next.extend((0..=cur.len()).map(|i| {
                let stay = cur.get(i).copied().unwrap_or(f64::NEG_INFINITY);
                let moved = i.checked_sub(1).map_or(f64::NEG_INFINITY, |j| cur[j]);
                ln_add(stay, moved)
            }));
            let mut kept_lo = None;
            let mut kept = Vec::new();
            for (i, &ln_paths) in next.iter().enumerate() {
                let f = lo + i as u64;
                match rule.decide(t, f) {
                    State::Continue => {
                        kept_lo.get_or_insert(f);
                        kept.push(ln_paths);
                    }
                    state => states.push(StopState {
                        trials: t,
                        failures: f,
                        state,
                        ln_paths,
                    }),
                }
            }
            // The continuation region at t is an interval of f, so `kept` is contiguous.
            lo = kept_lo.unwrap_or(lo);
            cur = kept;
        }
        let max = rule.max_trials();
        states.sort_by_key(|s| s.rank(max));
        SampleSpace {
            states,
            max_trials: max,
        }
    }
}

/// `ln(e^a + e^b)` without overflow.
fn ln_add(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if lo == f64::NEG_INFINITY {
        hi
    } else {
        hi + (lo - hi).exp().ln_1p()
    }
}

/// One terminal state of a rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StopState {
    /// Graded trials when the rule stopped.
    pub trials: u64,
    /// Failures among them.
    pub failures: u64,
    /// `Pass`, `Fail` or `Truncated`.
    pub state: State,
    /// ln of the number of trial sequences that reach this state without stopping before.
    pub ln_paths: f64,
}

impl StopState {
    /// Successes.
    pub fn successes(&self) -> u64 {
        self.trials - self.failures
    }

    /// Exact probability of ending here at true success rate `p` (in [0, 1]).
    pub fn prob(&self, p: f64) -> f64 {
        let term = |count: u64, rate: f64| {
            if count == 0 {
                0.0
            } else {
                count as f64 * rate.ln()
            }
        };
        (self.ln_paths + term(self.successes(), p) + term(self.failures, 1.0 - p)).exp()
    }

    /// Sort key of the stage-wise ordering, least favourable first: FAIL before
    /// `max_trials` (earlier is lower; more failures is lower), then every state at
    /// `max_trials` (more failures is lower), then PASS before `max_trials` (earlier is
    /// higher).
    fn rank(&self, max_trials: u64) -> (u8, i128, i128) {
        let (t, f) = (i128::from(self.trials), i128::from(self.failures));
        if self.trials == max_trials {
            (1, 0, -f)
        } else if self.state == State::Fail {
            (0, t, -f)
        } else {
            (2, -t, -f)
        }
    }
}

/// The terminal states of a rule in the stage-wise ordering (least favourable first).
#[derive(Debug, Clone)]
pub struct SampleSpace {
    states: Vec<StopState>,
    max_trials: u64,
}

/// A stopping-aware estimate of the per-trial success rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StoppedEstimate {
    /// Median-unbiased (mid-p) under the stage-wise ordering: the rate at which
    /// P(more favourable) + ½ P(this state) = ½.
    pub median_unbiased: f64,
    /// Exact interval under the stage-wise ordering: coverage >= the confidence asked for at
    /// every true rate.
    pub interval: Interval,
    /// Median-unbiased and strictly inside (0, 1): [`StoppedEstimate::median_unbiased`] at
    /// every state but the two extreme ones, where the mid-p rule puts 0 (the least
    /// favourable state) or 1 (the most favourable); there it is the rate at which the state
    /// has probability 1/2 (the 50% one-sided bound, Lehmann's median-unbiased estimate at an
    /// end of the sample space). So a ratio of it and its complement (compare's odds ratio)
    /// is finite. It keeps the order of the states, and lies inside the interval.
    pub median_unbiased_finite: f64,
}

impl SampleSpace {
    /// The terminal states, least favourable first.
    pub fn states(&self) -> &[StopState] {
        &self.states
    }

    /// The rule's `max_trials`.
    pub fn max_trials(&self) -> u64 {
        self.max_trials
    }

    /// The index of (trials, failures) among the terminal states, if it is one.
    pub fn position(&self, trials: u64, failures: u64) -> Option<usize> {
        self.states
            .iter()
            .position(|s| s.trials == trials && s.failures == failures)
    }

    /// P(ending at index `i` or more favourable | p).
    fn upper(&self, i: usize, p: f64) -> f64 {
        self.states[i..].iter().map(|s| s.prob(p)).sum()
    }

    /// P(ending at index `i` or less favourable | p).
    fn lower(&self, i: usize, p: f64) -> f64 {
        self.states[..=i].iter().map(|s| s.prob(p)).sum()
    }

    /// Stopping-aware estimate after the rule stopped at (trials, failures); None when that
    /// is not a terminal state of the rule or `confidence` is not strictly between 0 and 1.
    pub fn estimate(&self, trials: u64, failures: u64, confidence: f64) -> Option<StoppedEstimate> {
        check_open(
            "confidence",
            confidence,
            0.0,
            1.0,
            "strictly between 0 and 1",
        )
        .ok()?;
        let i = self.position(trials, failures)?;
        let tail = (1.0 - confidence) / 2.0;
        let last = self.states.len() - 1;
        // P(this or more favourable) rises with p; the lower end is where it reaches `tail`.
        let lo = if i == 0 {
            0.0
        } else {
            solve_increasing(|p| self.upper(i, p), tail)
        };
        // P(this or less favourable) falls as p rises; the upper end is where it drops to
        // `tail`.
        let hi = if i == last {
            1.0
        } else {
            solve_increasing(|p| -self.lower(i, p), -tail)
        };
        let here = &self.states[i];
        let median_unbiased = solve_increasing(
            |p| {
                let above = if i == last { 0.0 } else { self.upper(i + 1, p) };
                above + 0.5 * here.prob(p)
            },
            0.5,
        );
        // At an end of the sample space the mid-p equation has its root at 0 or 1; the
        // rate at which the end state itself is the median (P = 1/2) is finite and still
        // median-unbiased: P(estimate <= p) >= 1/2 and P(estimate >= p) >= 1/2 at every p.
        let median_unbiased_finite = if last == 0 {
            median_unbiased
        } else if i == 0 {
            solve_increasing(|p| -self.lower(0, p), -0.5)
        } else if i == last {
            solve_increasing(|p| self.upper(last, p), 0.5)
        } else {
            median_unbiased
        };
        Some(StoppedEstimate {
            median_unbiased,
            interval: Interval { lo, hi },
            median_unbiased_finite,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::estimate::wilson;
    use crate::stats::lattice::single_oc;
    use crate::stats::sprt::Sprt;

    /// Wald's SPRT of 0.9 vs 0.7 at alpha 0.05, beta 0.10, truncated at 66 (the default:
    /// twice the single plan's 33): the rule the audit measured.
    fn sprt_90_70() -> Boundaries {
        Boundaries::wald(&Sprt::new(0.9, 0.7, 0.05, 0.10, 66).unwrap())
    }

    /// The rules every property is checked on.
    fn rules() -> Vec<(&'static str, Boundaries)> {
        vec![
            ("single 33/6", Boundaries::single(33, 6).unwrap()),
            ("single 20/3", Boundaries::single(20, 3).unwrap()),
            ("single 5/0", Boundaries::single(5, 0).unwrap()),
            ("single 50/9", Boundaries::single(50, 9).unwrap()),
            ("sprt 0.9/0.7", sprt_90_70()),
            (
                "sprt 0.9/0.6 at 40",
                Boundaries::wald(&Sprt::new(0.9, 0.6, 0.05, 0.10, 40).unwrap()),
            ),
            (
                "sprt 0.95/0.8 at 12 (often truncated)",
                Boundaries::wald(&Sprt::new(0.95, 0.8, 0.05, 0.10, 12).unwrap()),
            ),
            (
                "sprt 0.6/0.4",
                Boundaries::wald(&Sprt::new(0.6, 0.4, 0.1, 0.1, 80).unwrap()),
            ),
            (
                "calibrated 0.9/0.7",
                crate::stats::calibrated::design_calibrated(0.9, 0.7, 0.05, 0.10, None)
                    .unwrap()
                    .boundaries,
            ),
            (
                "calibrated 0.95/0.85",
                crate::stats::calibrated::design_calibrated(0.95, 0.85, 0.05, 0.10, None)
                    .unwrap()
                    .boundaries,
            ),
            (
                "sprt 0.9/0.7 stopped at 20",
                truncated(&sprt_90_70(), 20).unwrap(),
            ),
        ]
    }

    /// The grid of true rates the audit-style checks run over.
    fn grid() -> Vec<f64> {
        let mut ps: Vec<f64> = (1..=99).map(|i| f64::from(i) / 100.0).collect();
        ps.extend([0.001, 0.005, 0.995, 0.999]);
        ps
    }

    #[test]
    fn terminal_probabilities_sum_to_one_and_match_the_sprt_oc() {
        for (name, rule) in rules() {
            let space = SampleSpace::new(&rule);
            for p in [0.0, 0.1, 0.5, 0.7, 0.9, 1.0] {
                let total: f64 = space.states().iter().map(|s| s.prob(p)).sum();
                assert!((total - 1.0).abs() < 1e-12, "{name} p={p}: {total}");
            }
        }
        let sprt = Sprt::new(0.9, 0.7, 0.05, 0.10, 66).unwrap();
        let space = SampleSpace::new(&Boundaries::wald(&sprt));
        for p in [0.6, 0.7, 0.8, 0.9] {
            let oc = Boundaries::wald(&sprt).oc(p);
            let by = |state| -> f64 {
                space
                    .states()
                    .iter()
                    .filter(|s| s.state == state)
                    .map(|s| s.prob(p))
                    .sum()
            };
            let asn: f64 = space
                .states()
                .iter()
                .map(|s| s.prob(p) * s.trials as f64)
                .sum();
            assert!((by(State::Pass) - oc.p_pass).abs() < 1e-12);
            assert!((by(State::Fail) - oc.p_fail).abs() < 1e-12);
            assert!((by(State::Truncated) - oc.p_inconclusive).abs() < 1e-12);
            assert!((asn - oc.asn).abs() < 1e-10);
        }
    }

    #[test]
    fn the_single_plan_sample_space_is_its_curtailed_stops() {
        let space = SampleSpace::new(&Boundaries::single(20, 3).unwrap());
        // PASS at 17..=20 trials with 0..=3 failures, FAIL at 4..=20 trials with 4 failures.
        assert_eq!(space.states().len(), 4 + 17);
        let p_pass: f64 = space
            .states()
            .iter()
            .filter(|s| s.state == State::Pass)
            .map(|s| s.prob(0.9))
            .sum();
        assert!((p_pass - single_oc(20, 3, 0.9).p_pass).abs() < 1e-13);
    }

    /// The stage-wise ordering's tails are monotone in p (the property the module doc
    /// proves by coupling), checked at every state of every rule.
    #[test]
    fn stagewise_tails_are_monotone_in_the_rate() {
        for (name, rule) in rules() {
            let space = SampleSpace::new(&rule);
            for i in 0..space.states().len() {
                let mut prev = 0.0;
                for k in 0..=100 {
                    let p = f64::from(k) / 100.0;
                    let g = space.upper(i, p);
                    assert!(g >= prev - 1e-12, "{name} state {i} p={p}: {g} < {prev}");
                    prev = g;
                }
            }
        }
    }

    /// Coverage of an interval procedure by exact enumeration of the terminal states.
    fn coverage(space: &SampleSpace, p: f64, ci: impl Fn(&StopState) -> Interval) -> f64 {
        space
            .states()
            .iter()
            .map(|s| {
                let i = ci(s);
                if i.lo <= p && p <= i.hi {
                    s.prob(p)
                } else {
                    0.0
                }
            })
            .sum()
    }

    #[test]
    fn naive_figures_reproduce_the_audit() {
        // The audit: for the SPRT 0.9 vs 0.7 at a true 70%, E[p̂] = 0.625 and the Wilson
        // interval covers 83% of the time; pass^5 at a true 90% averages 0.71 against 0.59.
        let space = SampleSpace::new(&sprt_90_70());
        let mean_naive: f64 = space
            .states()
            .iter()
            .map(|s| s.prob(0.7) * s.successes() as f64 / s.trials as f64)
            .sum();
        assert!((mean_naive - 0.625).abs() < 0.0005, "{mean_naive}");
        let cov = coverage(&space, 0.7, |s| {
            wilson(s.successes(), s.trials, 0.95).unwrap()
        });
        assert!((cov - 0.83).abs() < 0.005, "{cov}");
        let pass5: f64 = space
            .states()
            .iter()
            .map(|s| {
                s.prob(0.9)
                    * // Fewer than 5 graded trials only at an early FAIL with fewer
                    // than 5 successes, where pass^5 is 0.
                    crate::stats::estimate::pass_hat_k(s.trials, s.successes(), 5)
                        .unwrap_or(0.0)
            })
            .sum();
        assert!((pass5 - 0.71).abs() < 0.005, "{pass5}");
        // The stopping-aware pass^5 = p̃^5 is closer to the true 0.9^5 = 0.59 (0.68), and
        // the stopping-aware interval covers 0.7 at least 95% of the time.
        let aware5: f64 = space
            .states()
            .iter()
            .map(|s| {
                let e = space.estimate(s.trials, s.failures, 0.95).unwrap();
                s.prob(0.9) * e.median_unbiased.powi(5)
            })
            .sum();
        assert!((aware5 - 0.9f64.powi(5)).abs() < (pass5 - 0.9f64.powi(5)).abs() - 0.03);
        let cov = coverage(&space, 0.7, |s| {
            space.estimate(s.trials, s.failures, 0.95).unwrap().interval
        });
        assert!(cov >= 0.95, "{cov}");
    }

    #[test]
    fn stopping_aware_interval_covers_at_least_95_percent_at_every_rate() {
        for (name, rule) in rules() {
            let space = SampleSpace::new(&rule);
            let cis: Vec<Interval> = space
                .states()
                .iter()
                .map(|s| space.estimate(s.trials, s.failures, 0.95).unwrap().interval)
                .collect();
            for p in grid() {
                let cov: f64 = space
                    .states()
                    .iter()
                    .zip(&cis)
                    .map(|(s, i)| {
                        if i.lo <= p && p <= i.hi {
                            s.prob(p)
                        } else {
                            0.0
                        }
                    })
                    .sum();
                assert!(cov >= 0.95 - 1e-9, "{name}: coverage {cov} at p={p}");
            }
        }
    }

    #[test]
    fn median_unbiased_estimate_removes_most_of_the_bias() {
        for (name, rule) in rules() {
            let space = SampleSpace::new(&rule);
            let est: Vec<f64> = space
                .states()
                .iter()
                .map(|s| {
                    space
                        .estimate(s.trials, s.failures, 0.95)
                        .unwrap()
                        .median_unbiased
                })
                .collect();
            let (mut worst, mut worst_naive) = (0.0f64, 0.0f64);
            for p in grid() {
                let (mut mean, mut naive, mut below, mut above, mut biggest) =
                    (0.0, 0.0, 0.0, 0.0, 0.0f64);
                for (s, &e) in space.states().iter().zip(&est) {
                    let w = s.prob(p);
                    mean += w * e;
                    naive += w * s.successes() as f64 / s.trials as f64;
                    if e < p {
                        below += w;
                    }
                    if e > p {
                        above += w;
                    }
                    biggest = biggest.max(w);
                }
                worst = worst.max((mean - p).abs());
                worst_naive = worst_naive.max((naive - p).abs());
                // Median-unbiased in the mid-p sense: each side holds at most half the
                // mass plus half of the largest single state.
                let bound = 0.5 + 0.5 * biggest + 1e-9;
                assert!(
                    below <= bound && above <= bound,
                    "{name} p={p}: {below} below, {above} above"
                );
            }
            // 0.75 of the naive worst case for the most extreme rule (5/0 stops at the first
            // failure); about half for the others.
            assert!(
                worst <= 0.8 * worst_naive,
                "{name}: worst bias {worst} vs naive {worst_naive}"
            );
        }
        // The audit's case: the naive bias of -0.075 at a true 0.7 is more than halved.
        let space = SampleSpace::new(&sprt_90_70());
        let mean: f64 = space
            .states()
            .iter()
            .map(|s| {
                s.prob(0.7)
                    * space
                        .estimate(s.trials, s.failures, 0.95)
                        .unwrap()
                        .median_unbiased
            })
            .sum();
        assert!((mean - 0.7).abs() < 0.045, "{mean}");
    }

    #[test]
    fn estimates_order_like_the_states() {
        let space = SampleSpace::new(&sprt_90_70());
        let mut prev = -1.0;
        for s in space.states() {
            let e = space.estimate(s.trials, s.failures, 0.95).unwrap();
            assert!(e.interval.lo <= e.median_unbiased && e.median_unbiased <= e.interval.hi);
            assert!(e.median_unbiased >= prev - 1e-12);
            prev = e.median_unbiased;
        }
        // Not a terminal state: no estimate.
        assert!(space.estimate(5, 1, 0.95).is_none());
        assert!(space.estimate(9, 0, 1.0).is_none());
    }

    #[test]
    fn extreme_states_reach_the_ends() {
        let space = SampleSpace::new(&Boundaries::single(20, 3).unwrap());
        // 17 straight successes: the most favourable state.
        let best = space.estimate(17, 0, 0.95).unwrap();
        assert_eq!(best.interval.hi, 1.0);
        assert!((best.median_unbiased - 1.0).abs() < 1e-9);
        // 4 straight failures: the least favourable.
        let worst = space.estimate(4, 4, 0.95).unwrap();
        assert_eq!(worst.interval.lo, 0.0);
        assert!(worst.median_unbiased < 1e-9);
    }

    #[test]
    fn a_single_plan_that_runs_to_n_uses_the_rule_ordering() {
        // (20, 3) ending at 20 trials with 3 failures PASSes; its interval is not the
        // fixed-n Clopper–Pearson one, because states that passed earlier rank above it.
        let space = SampleSpace::new(&Boundaries::single(20, 3).unwrap());
        let e = space.estimate(20, 3, 0.95).unwrap();
        let i = space.position(20, 3).unwrap();
        assert!((space.upper(i, e.interval.lo) - 0.025).abs() < 1e-12);
        // More favourable: every PASS before trial 20.
        let above: Vec<(u64, u64)> = space.states()[i + 1..]
            .iter()
            .map(|s| (s.trials, s.failures))
            .collect();
        assert_eq!(above, vec![(19, 2), (18, 1), (17, 0)]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

        /// Coverage >= 95% at every rate of a grid, for random sequential and single rules.
        #[test]
        fn coverage_holds_for_random_rules(
            healthy in 0.5f64..0.98,
            gap in 0.08f64..0.4,
            alpha in 0.02f64..0.2,
            beta in 0.02f64..0.2,
            max_trials in 5u64..60,
            n in 1u64..40,
            c_frac in 0.0f64..1.0,
        ) {
            let regressed = healthy - gap;
            proptest::prop_assume!(regressed > 0.02);
            let c = ((n as f64) * c_frac) as u64;
            let mut rules = vec![Boundaries::wald(
                &Sprt::new(healthy, regressed, alpha, beta, max_trials).unwrap(),
            )];
            rules.extend(Boundaries::single(n, c).ok());
            for rule in rules {
                let space = SampleSpace::new(&rule);
                let cis: Vec<Interval> = space
                    .states()
                    .iter()
                    .map(|s| space.estimate(s.trials, s.failures, 0.95).unwrap().interval)
                    .collect();
                for i in 1..40 {
                    let p = f64::from(i) / 40.0;
                    let cov: f64 = space
                        .states()
                        .iter()
                        .zip(&cis)
                        .map(|(s, ci)| if ci.lo <= p && p <= ci.hi { s.prob(p) } else { 0.0 })
                        .sum();
                    proptest::prop_assert!(cov >= 0.95 - 1e-9, "coverage {} at {}", cov, p);
                }
            }
        }
    }
}
