//! Recompute a `compare` task: the recorded sides go to the same
//! [`crate::pair_sampler::PairSampler`] `gate run` fed, in pair order, so the verdict
//! recomputes from the rows alone (invariant 4).

use std::collections::BTreeMap;

use crate::ledger::TaskSpec;
use crate::pair_sampler::Side;
use crate::sampler::Disposition;

use super::task::{Gaps, HarnessCut, judged, undecided_reason};
use super::{ReportError, TaskReplay, TrialRecord};

/// Replay a compare task: `trials` holds both sides' records, in (pair, side) order.
pub(super) fn replay_pairs(
    spec: TaskSpec,
    trials: Vec<TrialRecord>,
    interrupted: bool,
) -> Result<TaskReplay, ReportError> {
    if spec.suite.is_some() {
        // Shown as a compare task (its pair figures, review 15 F1), counted as its runs were
        // scheduled (the counts its decision row holds).
        let counted = suite_runs(spec.clone(), trials.clone(), interrupted)?;
        let mut shown = pair_replay(spec, trials, interrupted)?;
        shown.counts = counted.counts;
        return Ok(shown);
    }
    pair_replay(spec, trials, interrupted)
}

/// [`replay_pairs`] of a compare task's pairs, on its compare rule.
fn pair_replay(
    spec: TaskSpec,
    mut trials: Vec<TrialRecord>,
    interrupted: bool,
) -> Result<TaskReplay, ReportError> {
    let max_pairs = spec.compare.as_ref().map_or(0, |c| c.max_pairs);
    let mut sampler = spec
        .pair_sampler()
        .map_err(|source| ReportError::Sampling {
            task: spec.id.clone(),
            source,
        })?;
    // As in the runner: nothing written after the first harness error (in file order) is
    // consumed.
    let harness = HarnessCut::of(&trials);

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
    let mut gaps = Gaps::new();
    // The first pair with a side never recorded (review 10, a14, a15).
    let mut one_sided: Option<u64> = None;
    let mut dispositions: BTreeMap<u64, Disposition> = BTreeMap::new();
    let record = |settled: Vec<(u64, Disposition)>, d: &mut BTreeMap<u64, Disposition>| {
        for (pair, s) in settled {
            d.insert(pair, s);
        }
    };
    for (&pair, sides) in &by_pair {
        gaps.see(pair);
        record(sampler.gap_before(pair), &mut dispositions);
        let mut complete = true;
        for (k, side) in [Side::Head, Side::Base].into_iter().enumerate() {
            let Some(first) = sides[k].and_then(|i| trials[i].first.as_ref()) else {
                complete = false;
                continue;
            };
            if harness.after(first) {
                sampler.halt();
            }
            record(
                sampler.offer(pair, side, first.row.outcome),
                &mut dispositions,
            );
        }
        for i in sides.iter().flatten() {
            retry_passes_refused += trials[*i].retry_passes();
        }
        if !complete {
            // A pair with a side never recorded can never complete: a gap.
            gaps.gap = true;
            one_sided.get_or_insert(pair);
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
    // Consumption that stopped at a one-sided pair stopped there, not for want of the pairs
    // after the last recorded: those are not named as missing (review 10, a14: "909
    // ordinals not recorded" for a 20-run ingest).
    let at_one_sided = one_sided.filter(|_| sampler.blocked_at_gap());
    if at_one_sided.is_none() {
        gaps.undecided_through(&harness, decision.as_ref(), max_pairs);
    }
    let pairs = sampler.pair_counts();
    let (verdict, reason) = judged(&harness, decision.as_ref(), || {
        if by_pair.is_empty() && !interrupted {
            // Not a run whose pairs went missing: no row on either side is how `gate ingest
            // --base` records a test case only base has.
            return crate::pair_sampler::NO_PAIR_REASON.to_string();
        }
        let mut reason = undecided_reason(
            pairs.total,
            &gaps.missing,
            interrupted,
            None,
            sampler.blocked_at_gap() && gaps.gap,
        )
        .replace("graded trial", "graded pair");
        if let Some(pair) = at_one_sided {
            reason.push_str(&format!(
                " (pair #{pair} has one side only: the other side recorded no result there (a skip, \
                 or a record one side lacks), so no pair after it is judged)"
            ));
        }
        reason
    });
    Ok(TaskReplay {
        spec,
        trials,
        verdict,
        reason,
        counts: sampler.counts(),
        llr: sampler.rule().llr(),
        decided_at: sampler.decided_at(),
        missing: gaps.missing,
        retry_passes_refused,
        harness_error: harness.text,
        pairs: Some(pairs),
    })
}

/// A `compare:` suite's own rows (left in the ledger when a harness error stopped it): one
/// head and one base row per suite run, consumed as `gate run` scheduled them, one outcome
/// per run on [`crate::ledger::compare_suite_runs_rule`] — a harness error on either side
/// is the run's, else the run passed — never by the cases' compare rule, which counted no
/// run at all (the ledger was refused as forged, `gate verify` said BAD).
fn suite_runs(
    spec: TaskSpec,
    trials: Vec<TrialRecord>,
    interrupted: bool,
) -> Result<TaskReplay, ReportError> {
    // The family design's `max_pairs` once the cases were known, as the scheduler switched to.
    let max_pairs = trials
        .iter()
        .filter_map(|t| t.first.as_ref())
        .find_map(|a| a.row.suite_run.as_ref()?.family.as_ref()?.pairs)
        .map(|p| p.max_pairs)
        .or(spec.compare.as_ref().map(|c| c.max_pairs))
        .unwrap_or(0);
    let rule = crate::ledger::compare_suite_runs_rule(max_pairs, spec.max_unavailable);
    let mut runs: BTreeMap<u64, TrialRecord> = BTreeMap::new();
    for t in &trials {
        let run = runs.entry(t.ordinal).or_insert_with(|| TrialRecord {
            later: Vec::new(),
            first: None,
            ..t.clone()
        });
        run.later.extend(t.later.iter().cloned());
        // The run's outcome is its row `gate run` consumed: the one written first. A
        // harness error on the other side, written after it, stops the replay there, as it
        // stopped the run (the cut is taken over both sides' rows).
        if let Some(f) = &t.first
            && run
                .first
                .as_ref()
                .is_none_or(|kept| f.source.line < kept.source.line)
        {
            run.first = Some(f.clone());
        }
    }
    let one_per_run: Vec<TrialRecord> = runs.into_values().collect();
    let harness = HarnessCut::of(&trials);
    let mut replay =
        super::task::replay_by(spec, rule, 0, one_per_run, harness, interrupted, None)?;
    // Both sides' rows stay the task's records, each with its run's disposition.
    let by_run: BTreeMap<u64, Disposition> = replay
        .trials
        .iter()
        .map(|t| (t.ordinal, t.disposition))
        .collect();
    let mut trials = trials;
    for t in &mut trials {
        t.disposition = by_run
            .get(&t.ordinal)
            .copied()
            .unwrap_or(Disposition::NoFirstAttempt);
    }
    replay.trials = trials;
    Ok(replay)
}
