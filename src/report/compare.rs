//! `compare` tasks in reports: what every renderer shows of a replayed compare task (the
//! four pair counts, both sides' naive rates, θ with its exact interval, the verdict in
//! words). The replay of its pairs is [`super::replay`]'s.
//!
//! The estimate of θ —
//! P(head loses | discordant) — is the stopping-aware estimate of the discordant rule's
//! success rate (head wins) from [`crate::stats::post_stop`], mapped through θ = 1 − p: the
//! rule's sample space in the stage-wise ordering when it decided, the rule truncated at the
//! discordant pairs seen when it did not (`max_pairs`, an interrupt). The naive rates of head
//! and base ignore the stopping rule and are labelled naive.

use super::replay::TaskReplay;
use crate::ledger::{OnInconclusive, TaskSpec};
use crate::model::Judgement;
use crate::pairs::PairCounts;
use crate::sampler::Verdict;
use crate::stats::compare::{DISCORDANCE_FLOOR, oc_of_lattice};
use crate::stats::estimate::Interval;
use crate::stats::lattice::Boundaries;

/// A stopping-aware estimate and its exact 95% interval: of θ = P(head loses | discordant),
/// of the odds ratio R = θ / (1 − θ), or of the discordant rule's win rate they map from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Median-unbiased (mid-p) under the stage-wise ordering, or fixed-n when the stop is
    /// not a state of the rule.
    pub estimate: f64,
    /// Exact 95% interval.
    pub ci95: Interval,
}

/// What reports show of a compare task.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareReport {
    /// The four pair counts, and the void pairs.
    pub pairs: PairCounts,
    /// R the rule detects.
    pub odds_ratio: f64,
    /// Pairs after which the task is INCONCLUSIVE.
    pub max_pairs: u64,
    /// Head's pass rate over graded pairs, naive (ignores the stopping rule).
    pub head_rate_naive: Option<f64>,
    /// Base's pass rate over graded pairs, naive (ignores the stopping rule).
    pub base_rate_naive: Option<f64>,
    /// θ = P(head loses | discordant), stopping-aware, with its exact 95% interval.
    pub theta: Option<Estimate>,
    /// R = θ / (1 − θ) (head losses per head win), the same estimate mapped.
    pub odds_ratio_estimate: Option<Estimate>,
    /// How θ was estimated (`stagewise`, `stagewise_truncated`, `fixed_n`).
    pub method: Option<&'static str>,
    /// The verdict in words, e.g. "head fails 3 discordant pairs for each it wins;
    /// regression detected".
    pub words: String,
}

/// The compare view of a task, from its replay and the stopping-aware estimate of the
/// discordant rule's success rate (head wins) with how it was computed (`stagewise`, …);
/// `None` for other tasks.
pub fn compare_report(
    replay: &TaskReplay,
    win_rate: Option<(Estimate, &'static str)>,
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
    Some(format!(
        "compare head against base: odds ratio {}{rates}, alpha {} asked ({realised}), beta {}, {} rule on the discordant pairs, at most {} pairs",
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
    let two = format!("{r:.2}");
    two.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

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
