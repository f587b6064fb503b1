//! `compare` tasks in reports: what every renderer shows of a replayed compare task (the
//! four pair counts, both sides' naive rates, θ with its exact interval, the verdict in
//! words). The replay of its pairs is [`super::replay`]'s.
//!
//! The estimate of θ —
//! P(head loses | discordant) — is the stopping-aware estimate of the discordant rule's
//! success rate (head wins) from [`crate::stats::post_stop`], mapped through θ = 1 − p: the
//! rule's sample space in the stage-wise ordering when it decided, the rule truncated at the
//! discordant pairs seen when it did not (`max_pairs`, an interrupt). Its point is the
//! median-unbiased estimate kept inside (0, 1) at the two extreme states
//! ([`crate::stats::post_stop::StoppedEstimate::median_unbiased_finite`]), so the odds ratio
//! it maps to is finite; its mean bias is stated in docs/statistics.md and pinned by
//! `theta_estimate_bias_is_what_the_docs_state`. The naive rates of head and base ignore the
//! stopping rule and are labelled naive.
//!
//! Alpha after a run: P(not PASS | head = base) depends on how often pairs disagree, so a
//! report also states it at the discordance the run observed ([`ObservedAlpha`]), computed
//! exactly with the same OC as `gate plan --compare --at` ([`oc_of_lattice`], both routes,
//! the `max_pairs` truncation) and labelled as evaluated there, not as a bound.

use super::replay::TaskReplay;
use crate::ledger::TaskSpec;
use crate::model::{Judgement, OnInconclusive, Verdict};
use crate::pair_sampler::PairCounts;
use crate::stats::compare::{DISCORDANCE_FLOOR, oc_of_lattice};
use crate::stats::estimate::{Interval, clopper_pearson};
use crate::stats::lattice::{Boundaries, State};
use crate::stats::post_stop::{SampleSpace, truncated};

/// The confidence of every compare interval.
const CONFIDENCE: f64 = 0.95;

/// An estimate with its exact 95% interval in the JSON report.
// Stopping-aware: of θ = P(head loses | discordant), of the odds ratio R = θ / (1 − θ), or of
// the discordant rule's win rate they map from. In the JSON report it is an [`EstimateJson`].
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, schemars::JsonSchema)]
// `with`: the schema of what is written, whatever the generator's contract.
#[serde(into = "EstimateJson")]
#[schemars(with = "EstimateJson", rename = "JsonEstimate")]
pub struct Estimate {
    /// Median-unbiased (mid-p) under the stage-wise ordering, inside (0, 1) at the extreme
    /// states (so the odds ratio's is finite), or fixed-n when the stop is not a state of
    /// the rule.
    pub estimate: f64,
    /// Exact 95% interval.
    pub ci95: Interval,
}

/// An estimate with its exact 95% interval in the JSON report (see [`Estimate`]).
// The JSON shape of an [`Estimate`]: flat, and `null` where a figure is not finite.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct EstimateJson {
    /// Stopping-aware point estimate (median-unbiased, mid-p, under the stage-wise
    /// ordering; at the two extreme states the rate at which that state has probability 1/2,
    /// so θ stays inside (0, 1) and the odds ratio is finite).
    pub estimate: Option<f64>,
    /// Lower end of the exact 95% interval.
    pub lo: Option<f64>,
    /// Upper end of the exact 95% interval (`null` for an unbounded odds ratio: the least
    /// favourable stop of the rule, where `lo` is a finite one-sided 97.5% lower bound).
    pub hi: Option<f64>,
}

impl From<Estimate> for EstimateJson {
    fn from(e: Estimate) -> Self {
        let finite = |x: f64| x.is_finite().then_some(x);
        EstimateJson {
            estimate: finite(e.estimate),
            lo: finite(e.ci95.lo),
            hi: finite(e.ci95.hi),
        }
    }
}

/// `tasks[].compare` in the JSON report: what the pairs say about head against base.
// What every report shows of a compare task; the pair counts are `tasks[].pairs` in JSON.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
#[schemars(rename = "JsonCompare")]
pub struct CompareReport {
    /// The four pair counts, and the void pairs.
    #[serde(skip)]
    pub pairs: PairCounts,
    /// The odds ratio R the rule detects.
    pub odds_ratio: f64,
    /// Pairs after which the task is INCONCLUSIVE.
    pub max_pairs: u64,
    /// Head's pass rate over graded pairs, naive (ignores the stopping rule).
    pub head_rate_naive: Option<f64>,
    /// Base's pass rate over graded pairs, naive (ignores the stopping rule).
    pub base_rate_naive: Option<f64>,
    /// θ = P(head fails, base passes | discordant): stopping-aware, exact 95% interval.
    pub theta: Option<Estimate>,
    /// θ / (1 − θ): head losses per head win, the same estimate mapped.
    pub odds_ratio_estimate: Option<Estimate>,
    /// `stagewise` (the rule decided), `stagewise_truncated` (stopped undecided:
    /// conditional on the discordant pairs seen) or `fixed_n`.
    pub method: Option<&'static str>,
    /// The verdict in words.
    // E.g. "head fails 3 discordant pairs for each it wins; regression detected".
    pub words: String,
    /// θ1 = R/(1+R): the θ beta is stated at.
    #[serde(rename = "theta_regressed")]
    pub theta1: f64,
    /// The discordant rule's P(PASS | θ1): its beta for every regression of odds ratio R,
    /// whatever the fall in points, at every base rate and correlation.
    pub lattice_beta: f64,
    /// The size of a regression in points the loss route covers (`null`: a ledger written
    /// before the loss route).
    pub drop: Option<f64>,
    /// The loss route's P(PASS) when head falls `drop` points (`null` without the route);
    /// `lattice_beta + loss_route_beta` bounds P(PASS) for a regression of odds ratio R that
    /// is also a fall of at least `drop` points.
    pub loss_route_beta: Option<f64>,
    /// P(not PASS | head = base) evaluated at the discordance this run observed (`null`
    /// before any graded pair): exact at that rate, not a bound over rates.
    pub alpha_at_observed: Option<ObservedAlpha>,
}

/// `tasks[].compare.alpha_at_observed`: the producer's risk at the observed discordance,
/// computed with the same exact OC as `gate plan --compare --at` (both routes, the
/// `max_pairs` truncation).
// Exact for pairs that disagree at that rate (any base rate and correlation giving it), not
// a bound over rates.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, schemars::JsonSchema)]
#[schemars(rename = "JsonObservedAlpha")]
pub struct ObservedAlpha {
    /// Discordant pairs over graded pairs.
    pub discordance: f64,
    /// Discordant pairs.
    pub discordant: u64,
    /// Graded pairs.
    pub pairs: u64,
    /// P(not PASS | head = base) at that discordance.
    pub p_not_pass: f64,
    /// P(FAIL | head = base) at that discordance.
    pub p_fail: f64,
}

/// P(not PASS | head = base) and P(FAIL | head = base) of the recorded rule when pairs are
/// discordant at the rate `counts` shows; None before any graded pair.
pub fn alpha_at_observed(
    counts: PairCounts,
    lattice: &Boundaries,
    spec: &crate::pair_sampler::CompareRecord,
) -> Option<ObservedAlpha> {
    if counts.total == 0 {
        return None;
    }
    let discordance = counts.discordant() as f64 / counts.total as f64;
    let oc = oc_of_lattice(lattice, spec.loss_route, spec.max_pairs, discordance, 0.5);
    Some(ObservedAlpha {
        discordance,
        discordant: counts.discordant(),
        pairs: counts.total,
        p_not_pass: oc.p_fail + oc.p_inconclusive,
        p_fail: oc.p_fail,
    })
}

/// The stopping-aware estimate of the discordant rule's success rate (head wins) after
/// `wins` and `losses`, with how it was computed: in the rule's sample space when it
/// decided there (`stagewise`), in the rule cut off at the discordant pairs seen when it did
/// not (`stagewise_truncated`), else fixed-n (Clopper–Pearson). The point is median-unbiased
/// and inside (0, 1) at the extreme states; None before any discordant pair.
pub fn win_rate(rule: &Boundaries, wins: u64, losses: u64) -> Option<(Estimate, &'static str)> {
    let n = wins + losses;
    if n == 0 {
        return None;
    }
    let stopped = if rule.decide(n, losses) != State::Continue {
        SampleSpace::new(rule)
            .estimate(n, losses, CONFIDENCE)
            .map(|e| (e, "stagewise"))
    } else {
        truncated(rule, n).and_then(|cut| {
            SampleSpace::new(&cut)
                .estimate(n, losses, CONFIDENCE)
                .map(|e| (e, "stagewise_truncated"))
        })
    };
    if let Some((e, method)) = stopped {
        return Some((
            Estimate {
                estimate: e.median_unbiased_finite,
                ci95: e.interval,
            },
            method,
        ));
    }
    // Fixed n: at 0 or n wins, the rate at which that count has probability 1/2.
    let half = 0.5f64.powf(1.0 / n as f64);
    let estimate = match wins {
        0 => 1.0 - half,
        w if w == n => half,
        w => w as f64 / n as f64,
    };
    Some((
        Estimate {
            estimate,
            ci95: clopper_pearson(wins, n, CONFIDENCE)?,
        },
        "fixed_n",
    ))
}

/// The compare view of a task, from its replay and the stopping-aware estimate of the
/// discordant rule's success rate (head wins) with how it was computed (`stagewise`, …);
/// `None` for other tasks.
pub fn compare_report(
    replay: &TaskReplay,
    win_rate: Option<(Estimate, &'static str)>,
    lattice: &Boundaries,
) -> Option<CompareReport> {
    let pairs = replay.pairs?;
    let spec = replay.spec.compare.as_ref()?;
    // θ = 1 − p maps the interval's ends in reverse; median-unbiasedness and coverage are
    // kept by a monotone map.
    let theta = win_rate.map(|(p, _)| Estimate {
        estimate: 1.0 - p.estimate,
        ci95: Interval {
            lo: 1.0 - p.ci95.hi,
            hi: 1.0 - p.ci95.lo,
        },
    });
    let odds = |t: f64| {
        if t >= 1.0 {
            f64::INFINITY
        } else {
            t / (1.0 - t)
        }
    };
    let odds_ratio_estimate = theta.map(|t| Estimate {
        estimate: odds(t.estimate),
        ci95: Interval {
            lo: odds(t.ci95.lo),
            hi: odds(t.ci95.hi),
        },
    });
    Some(CompareReport {
        pairs,
        odds_ratio: spec.odds_ratio,
        max_pairs: spec.max_pairs,
        head_rate_naive: pairs.head_rate(),
        base_rate_naive: pairs.base_rate(),
        theta,
        odds_ratio_estimate,
        method: win_rate.map(|(_, method)| method),
        words: words(pairs, replay.verdict),
        drop: spec.drop,
        theta1: spec.odds_ratio / (1.0 + spec.odds_ratio),
        lattice_beta: lattice.oc(1.0 / (1.0 + spec.odds_ratio)).p_pass,
        loss_route_beta: match (spec.loss_route, spec.drop) {
            (Some(route), Some(drop)) => Some(route.p_pass(drop, spec.max_pairs)),
            _ => None,
        },
        alpha_at_observed: alpha_at_observed(pairs, lattice, spec),
    })
}

/// A compare task's producer's risk, exact with its `max_pairs` truncation: the chance that
/// a head as good as base turns the gate red; `None` for other tasks. Under
/// `on_inconclusive: fail` it is P(not PASS | head = base) at the discordance floor
/// ([`DISCORDANCE_FLOOR`]): the pairs run out more often the fewer are discordant, so that is
/// the largest over every base rate and correlation with at least that share of discordant
/// pairs (the lattice alone, as if pairs never ran out, would understate it). Under `pass`
/// it is P(FAIL | head = base) of the lattice: the truncation only removes verdicts, so that
/// is the largest over every pair distribution.
pub fn alpha(spec: &TaskSpec, lattice: &Boundaries, policy: OnInconclusive) -> Option<f64> {
    let c = spec.compare.as_ref()?;
    Some(match policy {
        OnInconclusive::Fail => {
            1.0 - oc_of_lattice(lattice, None, c.max_pairs, DISCORDANCE_FLOOR, 0.5).p_pass
        }
        OnInconclusive::Pass => lattice.oc(0.5).p_fail,
    })
}

/// What [`alpha`] is stated at, in words, for the reports' producer's-risk line.
pub fn alpha_at(spec: &TaskSpec, policy: OnInconclusive) -> Option<String> {
    let c = spec.compare.as_ref()?;
    Some(match policy {
        OnInconclusive::Fail => format!(
            "head as good as base, θ = 1/2, with the `max_pairs` {} truncation: the largest \
             over every base rate and correlation with at least {}% of pairs discordant",
            c.max_pairs,
            DISCORDANCE_FLOOR * 100.0
        ),
        OnInconclusive::Pass => "head as good as base, θ = 1/2: the largest over every base \
                                 rate and correlation"
            .to_string(),
    })
}

/// A compare task's rule in words, for the `plan` line of every report: the alpha asked
/// for and, labelled, the realised one ([`alpha`]: with the `max_pairs` truncation under
/// `on_inconclusive: fail`), which a small `max_pairs` can put far above the request.
pub fn describe(spec: &TaskSpec, lattice: &Boundaries, policy: OnInconclusive) -> Option<String> {
    let c = spec.compare.as_ref()?;
    let rates = c.rates.map_or(String::new(), |r| {
        format!(
            " (base {} against head {}, independent pairs)",
            crate::format::percent(r.base),
            crate::format::percent(r.regressed)
        )
    });
    let realised = alpha(spec, lattice, policy)?;
    let realised = match policy {
        OnInconclusive::Fail => format!(
            "realised {realised:.4}: P(not PASS | head = base) with the `max_pairs` truncation"
        ),
        OnInconclusive::Pass => format!("realised {realised:.4}: P(FAIL | head = base)"),
    };
    // Beta covers a regression of odds ratio R that is, with the loss route, also a fall of
    // at least `drop` points; it is said with what it covers.
    let theta1 = c.odds_ratio / (1.0 + c.odds_ratio);
    let covers = match (c.drop, c.loss_route) {
        (Some(d), Some(_)) => format!(
            "θ ≥ {theta1:.4} and a fall of at least {} points",
            ratio(d * 100.0)
        ),
        _ => format!("θ ≥ {theta1:.4}"),
    };
    Some(format!(
        "compare head against base: odds ratio {}{rates}, alpha {} asked ({realised}), beta {} ({covers}), {} rule on the discordant pairs, at most {} pairs",
        ratio(c.odds_ratio),
        c.alpha,
        c.beta,
        spec.sampling.rule_name(),
        c.max_pairs
    ))
}

/// The verdict in words, from the discordant counts.
fn words(p: PairCounts, verdict: Judgement) -> String {
    let (lost, won) = (p.head_only_fail, p.base_only_fail);
    let balance = if lost + won == 0 {
        "no discordant pair yet: head and base agreed on every pair".to_string()
    } else {
        // Said from the side with more pairs: "head fails 3 … for each it wins".
        let (more, fewer, all, each, other) = if lost >= won {
            (lost, won, "lost", "fails", "wins")
        } else {
            (won, lost, "won", "wins", "fails")
        };
        if fewer == 0 {
            format!(
                "head {all} all {more} discordant pair{}",
                if more == 1 { "" } else { "s" }
            )
        } else {
            format!(
                "head {each} {} discordant pairs for each it {other}",
                ratio(more as f64 / fewer as f64)
            )
        }
    };
    let verdict = match verdict {
        Judgement::Verdict(Verdict::Fail) => "regression detected",
        Judgement::Verdict(Verdict::Pass) => "no regression (head is not worse than base)",
        Judgement::Verdict(Verdict::Inconclusive) => "undecided",
        Judgement::HarnessError => "no verdict (harness error)",
    };
    format!("{balance}; {verdict}")
}

/// A ratio in words: at most two decimals, without trailing zeros (3, 2.5, 2.25).
fn ratio(r: f64) -> String {
    crate::format::short_ratio(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::compare::{CompareDesign, CompareSpec, Effect};

    /// E[θ̂] and P(θ̂ = 1) over the exact stopping distribution of a design's lattice (as
    /// many pairs as it needs) at θ, for the mid-p estimate and for the finite one.
    fn theta_moments(d: &CompareDesign, theta: f64) -> (f64, f64, f64, f64) {
        let space = SampleSpace::new(&d.boundaries);
        let (mut mid, mut finite, mut at_one, mut at_one_finite) = (0.0, 0.0, 0.0, 0.0);
        for s in space.states() {
            let w = s.prob(1.0 - theta);
            let e = space.estimate(s.trials, s.failures, CONFIDENCE).unwrap();
            mid += w * (1.0 - e.median_unbiased);
            finite += w * (1.0 - e.median_unbiased_finite);
            if 1.0 - e.median_unbiased >= 1.0 - 1e-12 {
                at_one += w;
            }
            if 1.0 - e.median_unbiased_finite >= 1.0 - 1e-12 {
                at_one_finite += w;
            }
        }
        (mid, finite, at_one, at_one_finite)
    }

    /// Issue 31: the stopping-aware θ̂ of the default compare design was 1 (an infinite odds
    /// ratio) with probability 0.10 at θ1; the finite estimate never is, and its mean bias at
    /// θ = 1/2 and θ1, computed exactly over the lattice's stopping distribution, is the one
    /// docs/statistics.md states.
    #[test]
    fn theta_estimate_bias_is_what_the_docs_state() {
        let d = CompareDesign::new(&CompareSpec::new(Effect::OddsRatio(3.0))).unwrap();
        let (mid_null, finite_null, one_null, finite_one_null) = theta_moments(&d, 0.5);
        let (mid_alt, finite_alt, one_alt, finite_one_alt) = theta_moments(&d, d.theta1());
        assert_eq!((finite_one_null, finite_one_alt), (0.0, 0.0));
        assert!(one_null > 0.0);
        let doc = include_str!("../../docs/statistics.md");
        let stated = |x: f64| format!("{x:.3}");
        let sentence = format!(
            "E[θ̂] = {} at θ = 0.5 (bias −{}) and {} at θ1 = 0.75\n(bias +{}); the mid-p estimate it replaces averaged {} and {}, and was 1 (an\ninfinite odds ratio) with probability {} at θ1.",
            stated(finite_null),
            stated(0.5 - finite_null),
            stated(finite_alt),
            stated(finite_alt - 0.75),
            stated(mid_null),
            stated(mid_alt),
            stated(one_alt)
        );
        assert!(
            doc.contains(&sentence),
            "docs/statistics.md should say: {sentence}"
        );
    }

    /// The reports' θ after a run comes from [`win_rate`]: inside (0, 1) at every stop of
    /// the default design, the odds ratio finite, inside the interval, in the stops' order.
    #[test]
    fn win_rate_is_inside_zero_one_at_every_stop() {
        let d = CompareDesign::new(&CompareSpec::new(Effect::OddsRatio(3.0))).unwrap();
        let space = SampleSpace::new(&d.boundaries);
        let mut prev = 0.0;
        for s in space.states() {
            let (e, method) = win_rate(&d.boundaries, s.successes(), s.failures).unwrap();
            assert_eq!(method, "stagewise");
            assert!(e.estimate > 0.0 && e.estimate < 1.0, "{s:?}: {e:?}");
            assert!(
                e.ci95.lo <= e.estimate && e.estimate <= e.ci95.hi,
                "{s:?}: {e:?}"
            );
            assert!(e.estimate >= prev, "{s:?}");
            prev = e.estimate;
        }
        // Stopped undecided (out of pairs): the rule cut off there.
        let (e, method) = win_rate(&d.boundaries, 0, 3).unwrap();
        assert_eq!(method, "stagewise_truncated");
        assert!(e.estimate > 0.0 && e.estimate < 1.0, "{e:?}");
        assert!(win_rate(&d.boundaries, 0, 0).is_none());
    }

    fn counts(lost: u64, won: u64) -> PairCounts {
        PairCounts {
            total: lost + won + 10,
            both_pass: 10,
            head_only_fail: lost,
            base_only_fail: won,
            ..PairCounts::default()
        }
    }

    #[test]
    fn the_verdict_in_words_gives_the_discordant_balance() {
        assert_eq!(
            words(counts(9, 3), Judgement::Verdict(Verdict::Fail)),
            "head fails 3 discordant pairs for each it wins; regression detected"
        );
        assert_eq!(
            words(counts(3, 6), Judgement::Verdict(Verdict::Pass)),
            "head wins 2 discordant pairs for each it fails; no regression (head is not worse than base)"
        );
        assert_eq!(
            words(counts(5, 0), Judgement::Verdict(Verdict::Fail)),
            "head lost all 5 discordant pairs; regression detected"
        );
        assert_eq!(
            words(counts(5, 2), Judgement::Verdict(Verdict::Inconclusive)),
            "head fails 2.5 discordant pairs for each it wins; undecided"
        );
        assert_eq!(
            words(counts(0, 1), Judgement::Verdict(Verdict::Pass)),
            "head won all 1 discordant pair; no regression (head is not worse than base)"
        );
        assert_eq!(
            words(counts(2, 2), Judgement::Verdict(Verdict::Inconclusive)),
            "head fails 1 discordant pairs for each it wins; undecided"
        );
    }
}
