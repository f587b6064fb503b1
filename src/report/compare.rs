//! `compare` tasks in reports: the replay of a ledger's pairs, and what every renderer shows
//! of them (the four pair counts, both sides' naive rates, θ with its exact interval, the
//! verdict in words).
//!
//! The replay feeds the recorded sides to the same [`PairSampler`] `gate run` fed, in pair
//! order, so the verdict recomputes from the rows alone (invariant 4). The estimate of θ —
//! P(head loses | discordant) — is the stopping-aware estimate of the discordant rule's
//! success rate (head wins) from [`crate::stats::post_stop`], mapped through θ = 1 − p: the
//! rule's sample space in the stage-wise ordering when it decided, the rule truncated at the
//! discordant pairs seen when it did not (`max_pairs`, an interrupt). The naive rates of head
//! and base ignore the stopping rule and are labelled naive.

use std::collections::BTreeMap;

use super::ReportError;
use super::model::PassRate;
use super::replay::{
    Disposition, OrdinalRange, SourcedAttempt, TaskReplay, TrialRecord, harness_text,
    undecided_reason,
};
use crate::ledger::{OnInconclusive, Outcome, TaskSpec};
use crate::model::Judgement;
use crate::pairs::{PairCounts, PairSampler, Side};
use crate::sampler::{Disposition as SettledAs, Verdict};
use crate::stats::compare::{DISCORDANCE_FLOOR, oc_of_lattice};
use crate::stats::estimate::Interval;
use crate::stats::lattice::Boundaries;

/// Replay a compare task: `trials` holds both sides' records, in (pair, side) order.
pub fn replay_pairs(
    spec: TaskSpec,
    mut trials: Vec<TrialRecord>,
    interrupted: bool,
) -> Result<TaskReplay, ReportError> {
    let max_pairs = spec.compare.as_ref().map_or(0, |c| c.max_pairs);
    let mut sampler = PairSampler::new(spec.sampling.clone(), spec.max_unavailable, max_pairs)
        .map_err(|source| ReportError::Sampling {
            task: spec.id.clone(),
            source,
        })?;
    // As in the runner: nothing written after the first harness error (in file order) is
    // consumed.
    let harness_at = trials
        .iter()
        .flat_map(|t| t.first.iter().chain(t.later.iter()))
        .filter(|a| a.row.outcome == Outcome::HarnessError)
        .min_by_key(|a| a.source.line);
    let harness_error = harness_at.map(|a| harness_text(&a.row, &a.source));
    let harness_at = harness_at.map(|a| a.source.clone());
    let after_harness = |a: &SourcedAttempt| {
        harness_at
            .as_ref()
            .is_some_and(|h| h.path == a.source.path && a.source.line > h.line)
    };

    // Records by pair: the index of each side's record in `trials`.
    let mut by_pair: BTreeMap<u64, [Option<usize>; 2]> = BTreeMap::new();
    for (i, t) in trials.iter().enumerate() {
        let side = t
            .first
            .as_ref()
            .or(t.later.first())
            .and_then(|a| a.row.side);
        let slot = by_pair.entry(t.ordinal).or_default();
        match side {
            Some(Side::Head) => slot[0] = Some(i),
            Some(Side::Base) => slot[1] = Some(i),
            // A row of a compare task without a side cannot belong to a pair: the pair it
            // sits at is a gap, like a side with no row.
            None => {}
        }
    }
    let mut retry_passes_refused = 0u64;
    let mut missing: Vec<OrdinalRange> = Vec::new();
    let mut expected = Some(1u64);
    let mut gap = false;
    let mut dispositions: BTreeMap<u64, Disposition> = BTreeMap::new();
    let record = |settled: Vec<(u64, SettledAs)>, d: &mut BTreeMap<u64, Disposition>| {
        for (pair, s) in settled {
            d.insert(
                pair,
                match s {
                    SettledAs::Counted => Disposition::Counted,
                    SettledAs::Excluded => Disposition::Excluded,
                    SettledAs::Cancelled => Disposition::Cancelled,
                    SettledAs::HarnessError => Disposition::HarnessError,
                },
            );
        }
    };
    for (&pair, sides) in &by_pair {
        if let Some(first) = expected.filter(|&e| pair > e) {
            missing.push(OrdinalRange {
                first,
                last: pair - 1,
            });
            gap = true;
        }
        expected = pair.checked_add(1);
        record(sampler.gap_before(pair), &mut dispositions);
        let mut complete = true;
        for (k, side) in [Side::Head, Side::Base].into_iter().enumerate() {
            let Some(first) = sides[k].and_then(|i| trials[i].first.as_ref()) else {
                complete = false;
                continue;
            };
            if after_harness(first) {
                sampler.halt();
            }
            record(
                sampler.offer(pair, side, first.row.outcome),
                &mut dispositions,
            );
        }
        for i in sides.iter().flatten() {
            retry_passes_refused += trials[*i]
                .later
                .iter()
                .filter(|a| a.row.outcome == Outcome::Pass)
                .count() as u64;
        }
        if !complete {
            // A pair with a side never recorded can never complete: a gap.
            gap = true;
            record(
                sampler.gap_before(pair.saturating_add(1)),
                &mut dispositions,
            );
            dispositions
                .entry(pair)
                .or_insert(Disposition::NoFirstAttempt);
        }
    }
    for t in &mut trials {
        t.disposition = dispositions
            .get(&t.ordinal)
            .copied()
            .unwrap_or(Disposition::NoFirstAttempt);
    }
    let decision = sampler.decision().cloned();
    if harness_error.is_none()
        && decision.is_none()
        && let Some(first) = expected.filter(|&e| e <= max_pairs)
    {
        missing.push(OrdinalRange {
            first,
            last: max_pairs,
        });
    }
    let pairs = sampler.pair_counts();
    let (verdict, reason) = if let Some(text) = &harness_error {
        (Judgement::HarnessError, text.clone())
    } else if let Some(d) = &decision {
        (Judgement::Verdict(d.verdict), d.reason.clone())
    } else {
        (
            Judgement::Verdict(Verdict::Inconclusive),
            undecided_reason(
                pairs.total,
                &missing,
                interrupted,
                None,
                sampler.blocked_at_gap() && gap,
            )
            .replace("graded trial", "graded pair"),
        )
    };
    Ok(TaskReplay {
        spec,
        trials,
        verdict,
        reason,
        counts: sampler.counts(),
        llr: sampler.rule().llr(),
        decided_at: sampler.decided_at(),
        missing,
        retry_passes_refused,
        harness_error,
        pairs: Some(pairs),
    })
}

/// θ = P(head loses | discordant), or the odds ratio R = θ / (1 − θ): a stopping-aware
/// estimate and its exact 95% interval.
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
/// discordant rule's success rate (head wins); `None` for other tasks.
pub fn compare_report(replay: &TaskReplay, win_rate: Option<&PassRate>) -> Option<CompareReport> {
    let pairs = replay.pairs?;
    let spec = replay.spec.compare.as_ref()?;
    // θ = 1 − p maps the interval's ends in reverse; median-unbiasedness and coverage are
    // kept by a monotone map.
    let theta = win_rate.map(|p| Estimate {
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
        method: win_rate.map(|p| p.method.as_str()),
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
            1.0 - oc_of_lattice(lattice, c.max_pairs, DISCORDANCE_FLOOR, 0.5).p_pass
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

/// A compare task's rule in words, for the `plan` line of every report.
pub fn describe(spec: &TaskSpec) -> Option<String> {
    let c = spec.compare.as_ref()?;
    let rates = c.rates.map_or(String::new(), |r| {
        format!(
            " (base {} against head {}, independent pairs)",
            crate::format::percent(r.base),
            crate::format::percent(r.regressed)
        )
    });
    Some(format!(
        "compare head against base: odds ratio {}{rates}, alpha {}, beta {}, {} rule on the discordant pairs, at most {} pairs",
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
    } else if won == 0 {
        format!(
            "head lost all {lost} discordant pair{}",
            if lost == 1 { "" } else { "s" }
        )
    } else if lost == 0 {
        format!(
            "head won all {won} discordant pair{}",
            if won == 1 { "" } else { "s" }
        )
    } else if lost >= won {
        format!(
            "head fails {} discordant pairs for each it wins",
            ratio(lost as f64 / won as f64)
        )
    } else {
        format!(
            "head wins {} discordant pairs for each it fails",
            ratio(won as f64 / lost as f64)
        )
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

/// `tasks[].pairs` in the JSON report: the pair counts.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct JsonPairs {
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

/// An estimate with its exact 95% interval in the JSON report.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct JsonEstimate {
    /// Stopping-aware point estimate (median-unbiased, mid-p, under the stage-wise ordering).
    pub estimate: Option<f64>,
    /// Lower end of the exact 95% interval.
    pub lo: Option<f64>,
    /// Upper end of the exact 95% interval (`null` for an unbounded odds ratio).
    pub hi: Option<f64>,
}

/// `tasks[].compare` in the JSON report: what the pairs say about head against base.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct JsonCompare {
    /// The odds ratio R the rule detects.
    pub odds_ratio: f64,
    /// Pairs after which the task is INCONCLUSIVE.
    pub max_pairs: u64,
    /// Head's pass rate over graded pairs, naive (ignores the stopping rule).
    pub head_rate_naive: Option<f64>,
    /// Base's pass rate over graded pairs, naive (ignores the stopping rule).
    pub base_rate_naive: Option<f64>,
    /// θ = P(head fails, base passes | discordant): stopping-aware, exact 95% interval.
    pub theta: Option<JsonEstimate>,
    /// θ / (1 − θ): head losses per head win, the same estimate mapped.
    pub odds_ratio_estimate: Option<JsonEstimate>,
    /// `stagewise` (the rule decided), `stagewise_truncated` (stopped undecided:
    /// conditional on the discordant pairs seen) or `fixed_n`.
    pub method: Option<&'static str>,
    /// The verdict in words.
    pub words: String,
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

fn json_estimate(e: &Estimate) -> JsonEstimate {
    JsonEstimate {
        estimate: finite(e.estimate),
        lo: finite(e.ci95.lo),
        hi: finite(e.ci95.hi),
    }
}

impl CompareReport {
    /// The JSON `pairs` object.
    pub fn json_pairs(&self) -> JsonPairs {
        let p = self.pairs;
        JsonPairs {
            total: p.total,
            both_pass: p.both_pass,
            both_fail: p.both_fail,
            head_only_fail: p.head_only_fail,
            base_only_fail: p.base_only_fail,
            void: p.void,
        }
    }

    /// The JSON `compare` object.
    pub fn json(&self) -> JsonCompare {
        JsonCompare {
            odds_ratio: self.odds_ratio,
            max_pairs: self.max_pairs,
            head_rate_naive: self.head_rate_naive,
            base_rate_naive: self.base_rate_naive,
            theta: self.theta.as_ref().map(json_estimate),
            odds_ratio_estimate: self.odds_ratio_estimate.as_ref().map(json_estimate),
            method: self.method,
            words: self.words.clone(),
        }
    }

    /// The lines the terminal summary and the Markdown summary show, without indentation:
    /// pairs, naive rates, θ, the verdict in words.
    pub fn lines(&self) -> Vec<String> {
        let p = self.pairs;
        let pct = crate::format::percent;
        let mut out = vec![format!(
            "pairs {} · both pass {} · both fail {} · head only fail {} · base only fail {} · void {}",
            p.total, p.both_pass, p.both_fail, p.head_only_fail, p.base_only_fail, p.void
        )];
        if let (Some(h), Some(b)) = (self.head_rate_naive, self.base_rate_naive) {
            out.push(format!("naive rates: head {} · base {}", pct(h), pct(b)));
        }
        if let Some(t) = &self.theta {
            let r = self.odds_ratio_estimate.as_ref();
            let odds = |x: f64| {
                if x.is_finite() {
                    format!("{x:.2}")
                } else {
                    "∞".to_string()
                }
            };
            out.push(format!(
                "θ = P(head loses | discordant) {:.3} (95% CI {:.3}–{:.3}){} · odds ratio {} (95% CI {}–{}), detects {}",
                t.estimate,
                t.ci95.lo,
                t.ci95.hi,
                if self.method == Some("fixed_n") { ", fixed-n" } else { "" },
                r.map_or("n/a".to_string(), |r| odds(r.estimate)),
                r.map_or("n/a".to_string(), |r| odds(r.ci95.lo)),
                r.map_or("n/a".to_string(), |r| odds(r.ci95.hi)),
                odds(self.odds_ratio)
            ));
        }
        out.push(self.words.clone());
        out
    }
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
    }
}
