//! Recompute one task from its trial records with the ordered sampler `gate run` fed, and
//! the pieces a `compare` task's replay ([`super::pairs`]) shares with it: where the first
//! harness error cuts the rows, the ordinals with no row, the verdict and its reason.

use crate::ledger::{AttemptRow, TaskSpec};
use crate::model::{Judgement, Outcome, Sampling, Verdict};
use crate::report::error::Source;
use crate::rule::Decision;
use crate::sampler::{Disposition, OrderedSampler};

use super::{
    OrdinalRange, ReportError, ShardCoverage, SourcedAttempt, TaskReplay, TrialRecord,
    ordinal_count,
};

/// Replay a task that is not a `compare` task: `trials` in ordinal order.
pub(super) fn replay_task(
    spec: TaskSpec,
    trials: Vec<TrialRecord>,
    interrupted: bool,
    shards: Option<&ShardCoverage>,
) -> Result<TaskReplay, ReportError> {
    // A suite task's own runs (a suite stopped by a harness error) are replayed by the rule
    // `gate run` scheduled them by; its spec keeps its cases' rule, for the reports.
    let rule = match spec.suite {
        Some(_) => crate::ledger::suite_runs_rule(&spec.sampling),
        None => spec.sampling.clone(),
    };
    let max_unavailable = spec.max_unavailable;
    let harness = HarnessCut::of(&trials);
    replay_by(
        spec,
        rule,
        max_unavailable,
        trials,
        harness,
        interrupted,
        shards,
    )
}

/// [`replay_task`] on `rule` with budget `max_unavailable`, cut at `harness` (a compare
/// suite's own runs are replayed on their scheduling rule too, one record per run, cut at
/// the first harness error of either side: [`super::pairs`]).
pub(super) fn replay_by(
    spec: TaskSpec,
    rule: Sampling,
    max_unavailable: u64,
    mut trials: Vec<TrialRecord>,
    harness: HarnessCut,
    interrupted: bool,
    shards: Option<&ShardCoverage>,
) -> Result<TaskReplay, ReportError> {
    // The same ordered sampler `gate run` fed as the trials finished (invariant 2): the rule
    // that decided and the rule that recomputes are one piece of code.
    let sequential = matches!(rule, Sampling::Sequential { .. });
    let max_graded = rule.max_graded();
    let mut sampler = OrderedSampler::new(rule, max_unavailable, None).map_err(|source| {
        ReportError::Sampling {
            task: spec.id.clone(),
            source,
        }
    })?;
    let mut gaps = Gaps::new();
    let mut retry_passes_refused = 0u64;
    // Trials are offered in ascending ordinal order, so each offer settles at once.
    let disposition_of = |settled: Vec<(u64, Disposition)>, trial: &mut TrialRecord| {
        if let Some(&(_, d)) = settled.iter().find(|(o, _)| *o == trial.ordinal) {
            trial.disposition = d;
        }
    };

    for trial in &mut trials {
        gaps.see(trial.ordinal);
        retry_passes_refused += trial.retry_passes();

        // A trial with only later attempts recorded is a gap, like an ordinal with no row.
        let settled = sampler.gap_before(trial.ordinal);
        disposition_of(settled, trial);
        let Some(first) = &trial.first else {
            trial.disposition = Disposition::NoFirstAttempt;
            continue;
        };
        if harness.after(first) {
            sampler.halt();
        }
        let outcome = first.row.outcome;
        let settled = sampler.offer(trial.ordinal, outcome);
        disposition_of(settled, trial);
    }
    let blocked = sampler.blocked_at_gap();
    let decided_at = sampler.decided_at();
    let counts = sampler.counts();
    let sampler = sampler.rule();
    let decision = sampler.decision();
    gaps.undecided_through(&harness, decision, max_graded);
    let graded = sampler.tally().graded();
    let (verdict, reason) = judged(&harness, decision, || {
        undecided_reason(
            graded,
            &gaps.missing,
            interrupted,
            shards,
            sequential && blocked && gaps.gap,
        )
    });

    Ok(TaskReplay {
        spec,
        trials,
        verdict,
        reason,
        counts,
        llr: sampler.llr(),
        decided_at,
        missing: gaps.missing,
        retry_passes_refused,
        harness_error: harness.text,
        pairs: None,
    })
}

/// The first harness error among a task's rows (in file order). The runner stops consuming
/// there: outcomes written after that row are never consumed, and neither is anything after
/// them in ordinal order.
pub(super) struct HarnessCut {
    /// Where and why, in one sentence; `None` without a harness error.
    pub(super) text: Option<String>,
    at: Option<Source>,
}

impl HarnessCut {
    pub(super) fn of(trials: &[TrialRecord]) -> Self {
        let first = trials
            .iter()
            .flat_map(|t| t.first.iter().chain(t.later.iter()))
            .filter(|a| a.row.outcome == Outcome::HarnessError)
            .min_by_key(|a| a.source.line);
        HarnessCut {
            text: first.map(|a| harness_text(&a.row, &a.source)),
            at: first.map(|a| a.source.clone()),
        }
    }

    /// Whether `a` was written after the harness error, in the same ledger.
    pub(super) fn after(&self, a: &SourcedAttempt) -> bool {
        self.at
            .as_ref()
            .is_some_and(|h| h.path == a.source.path && a.source.line > h.line)
    }
}

/// The ordinals (or pairs) with no row, seen in ascending order.
pub(super) struct Gaps {
    /// Ascending ranges of ordinals with no row.
    pub(super) missing: Vec<OrdinalRange>,
    /// The next ordinal in sequence; `None` past `u64::MAX`.
    expected: Option<u64>,
    /// An ordinal below a recorded one has no row (not merely the tail never run).
    pub(super) gap: bool,
}

impl Gaps {
    pub(super) fn new() -> Self {
        Gaps {
            missing: Vec::new(),
            expected: Some(1),
            gap: false,
        }
    }

    /// `ordinal` has a row (the next after the last one seen).
    pub(super) fn see(&mut self, ordinal: u64) {
        if let Some(first) = self.expected.filter(|&e| ordinal > e) {
            self.missing.push(OrdinalRange {
                first,
                last: ordinal - 1,
            });
            self.gap = true;
        }
        self.expected = ordinal.checked_add(1);
    }

    /// Undecided (and no harness error): every ordinal up to the rule's `end` (`max_trials`,
    /// `max_pairs`) that no ledger records is missing too, not only the gaps below the
    /// highest recorded one.
    pub(super) fn undecided_through(
        &mut self,
        harness: &HarnessCut,
        decision: Option<&Decision>,
        end: u64,
    ) {
        if harness.text.is_none()
            && decision.is_none()
            && let Some(first) = self.expected.filter(|&e| e <= end)
        {
            self.missing.push(OrdinalRange { first, last: end });
        }
    }
}

/// The verdict and its reason: the harness error's, the rule's decision, or INCONCLUSIVE
/// for the reason `undecided` gives.
pub(super) fn judged(
    harness: &HarnessCut,
    decision: Option<&Decision>,
    undecided: impl FnOnce() -> String,
) -> (Judgement, String) {
    if let Some(text) = &harness.text {
        (Judgement::HarnessError, text.clone())
    } else if let Some(d) = decision {
        (Judgement::Verdict(d.verdict), d.reason.clone())
    } else {
        (Judgement::Verdict(Verdict::Inconclusive), undecided())
    }
}

fn harness_text(row: &AttemptRow, source: &Source) -> String {
    format!(
        "trial #{} attempt {} could not be run ({source}): {}",
        row.trial,
        row.attempt,
        row.detail.reason.as_deref().unwrap_or("no reason recorded")
    )
}

pub(super) fn undecided_reason(
    graded: u64,
    missing: &[OrdinalRange],
    interrupted: bool,
    shards: Option<&ShardCoverage>,
    stopped_at_gap: bool,
) -> String {
    let after = format!(
        "no verdict is certain after {graded} graded trial{}",
        if graded == 1 { "" } else { "s" }
    );
    if interrupted {
        return format!("interrupted: {after}");
    }
    let mut parts = vec![format!("trials missing: {after}")];
    if let Some(s) = shards.filter(|s| !s.missing.is_empty()) {
        parts.push(format!(
            "shard{} {} of {} absent",
            if s.missing.len() == 1 { "" } else { "s" },
            join_list(&s.missing),
            s.m
        ));
    }
    if !missing.is_empty() {
        let count = ordinal_count(missing);
        parts.push(format!(
            "{count} ordinal{} not recorded ({})",
            if count == 1 { "" } else { "s" },
            ordinal_list(missing)
        ));
    }
    if stopped_at_gap {
        parts.push("a sequential plan stops at its first gap".to_string());
    }
    parts.join("; ")
}

fn join_list(xs: &[u64]) -> String {
    xs.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}

/// At most eight ranges, compactly (`#2–3, #5, #8–33`), then how many ordinals more.
fn ordinal_list(ranges: &[OrdinalRange]) -> String {
    const SHOWN: usize = 8;
    let mut s = ranges
        .iter()
        .take(SHOWN)
        .map(OrdinalRange::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if ranges.len() > SHOWN {
        s.push_str(&format!(" and {} more", ordinal_count(&ranges[SHOWN..])));
    }
    s
}
