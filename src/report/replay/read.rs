//! Reading the ledgers of one run into trial records, with the checks that they are one run:
//! the same plan and fixtures, shards of one split from one CI attempt, every task resolved the
//! same way and as the plan loader would, every ordinal one the runner could have written, and
//! no two different rows for one attempt.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::ledger::{AttemptRow, CiRun, Ledger, Row, TaskSpec};
use crate::model::{Outcome, Sampling, Shard};
use crate::report::error::Source;
use crate::sampler::Disposition;

use super::{LedgerInfo, ReportError, ShardCoverage, SourcedAttempt, TrialRecord};

/// Refuse ledgers of different plans or fixtures: they are not one run.
pub(super) fn refuse_mixed_runs(ledgers: &[Ledger]) -> Result<(), ReportError> {
    let Some(first) = ledgers.first() else {
        return Ok(());
    };
    let h0 = first.header();
    for l in &ledgers[1..] {
        let h = l.header();
        if h.plan_hash != h0.plan_hash {
            return Err(ReportError::MixedPlan {
                first: first.path.clone(),
                first_hash: h0.plan_hash.clone(),
                other: l.path.clone(),
                other_hash: h.plan_hash.clone(),
            });
        }
        if h.fixture_hash != h0.fixture_hash {
            return Err(ReportError::MixedFixture {
                first: first.path.clone(),
                first_hash: h0.fixture_hash.clone(),
                other: l.path.clone(),
                other_hash: h.fixture_hash.clone(),
            });
        }
    }

    Ok(())
}

pub(super) fn ledger_info(l: &Ledger) -> LedgerInfo {
    LedgerInfo {
        path: l.path.clone(),
        run_id: l.header().run_id.clone(),
        shard: l.header().shard,
        status: l.footer().map(|f| f.status),
        chain_break: l.first_chain_break().map(|(i, what)| {
            format!(
                "{}: {what}",
                Source {
                    path: std::sync::Arc::new(l.path.clone()),
                    line: i as u64 + 1
                }
            )
        }),
        torn_tail: l.torn_tail.is_some(),
        left_out: l.left_out,
        head_sha256: l.last_hash.clone(),
        sandbox: ledger_walls(l),
    }
}

/// The walls recorded by a ledger's header and its resume rows, each once, in order.
fn ledger_walls(l: &Ledger) -> Vec<crate::model::Walls> {
    let mut out: Vec<crate::model::Walls> = Vec::new();
    let recorded = l.records.iter().filter_map(|r| match &r.row {
        Row::Header(h) => h.sandbox.as_ref(),
        Row::Resume(r) => r.sandbox.as_ref(),
        _ => None,
    });
    for w in recorded {
        if !out.contains(w) {
            out.push(w.clone());
        }
    }
    out
}

pub(super) fn shard_coverage(ledgers: &[Ledger]) -> Result<Option<ShardCoverage>, ReportError> {
    let mut m_seen: Option<(u64, &Path)> = None;
    let mut present = BTreeSet::new();
    let whole = ledgers.iter().find(|l| l.header().shard.is_none());
    for l in ledgers {
        let Some(shard) = l.header().shard else {
            continue;
        };
        // A whole run and a shard would merge into a report that claims shards are missing
        // while the whole run holds them: ambiguous, so refused.
        if let Some(w) = whole {
            return Err(ReportError::WholeAndShard {
                whole: w.path.clone(),
                shard_path: l.path.clone(),
                k: shard.k,
                m: shard.m,
            });
        }
        if shard.m == 0 || shard.k == 0 || shard.k > shard.m {
            return Err(ReportError::BadShard {
                path: l.path.clone(),
                k: shard.k,
                m: shard.m,
            });
        }
        match m_seen {
            Some((m, path)) if m != shard.m => {
                return Err(ReportError::MixedShards {
                    first: path.to_path_buf(),
                    first_m: m,
                    other: l.path.clone(),
                    other_m: shard.m,
                });
            }
            _ => m_seen = Some((shard.m, &l.path)),
        }
        present.insert(shard.k);
    }
    refuse_mixed_ci_runs(ledgers)?;
    Ok(m_seen.map(|(m, _)| ShardCoverage {
        m,
        present: present.iter().copied().collect(),
        missing: (1..=m).filter(|k| !present.contains(k)).collect(),
    }))
}

/// Shards merge only when they ran in one attempt of one CI run (or all outside CI): a shard
/// whose ledger comes from a later attempt was re-run alone until it passed. Stages too: a
/// stage ledger of another CI run (or attempt) is another run's evidence, or a stage
/// re-run until it passed.
fn refuse_mixed_ci_runs(ledgers: &[Ledger]) -> Result<(), ReportError> {
    let ran = |l: &Ledger| {
        let which = match (l.header().stage, l.header().shard) {
            (Some(s), Some(sh)) => format!("(stage {s}, shard {}/{})", sh.k, sh.m),
            (Some(s), None) => format!("(stage {s})"),
            (None, Some(sh)) => format!("(shard {}/{})", sh.k, sh.m),
            (None, None) => "(whole run)".to_string(),
        };
        format!("{which} ran {}", CiRun::words(&l.header().ci))
    };
    let staged = ledgers.iter().any(|l| l.header().stage.is_some());
    let mut parts = ledgers
        .iter()
        .filter(|l| staged || l.header().shard.is_some());
    let Some(first) = parts.next() else {
        return Ok(());
    };
    for l in parts {
        if CiRun::attempt(&l.header().ci) != CiRun::attempt(&first.header().ci) {
            let (first, first_ran, other, other_ran) =
                (first.path.clone(), ran(first), l.path.clone(), ran(l));
            return Err(if staged {
                ReportError::StageCiRuns {
                    first,
                    first_ran,
                    other,
                    other_ran,
                }
            } else {
                ReportError::MixedCiRuns {
                    first,
                    first_ran,
                    other,
                    other_ran,
                }
            });
        }
    }
    Ok(())
}

/// The tasks of all headers, in order of first appearance; a task must be resolved the same
/// way wherever it appears.
pub(super) fn merged_specs(ledgers: &[Ledger]) -> Result<Vec<TaskSpec>, ReportError> {
    let mut specs: Vec<(TaskSpec, &Path)> = Vec::new();
    for l in ledgers {
        for t in &l.header().tasks {
            if let Err(what) = check_spec(t) {
                return Err(ReportError::BadHeader {
                    task: t.id.clone(),
                    what,
                    at: Source {
                        path: std::sync::Arc::new(l.path.clone()),
                        line: 1,
                    },
                });
            }
            match specs.iter().find(|(s, _)| s.id == t.id) {
                Some((s, path)) if s != t => {
                    return Err(ReportError::MixedTask {
                        task: t.id.clone(),
                        first: path.to_path_buf(),
                        other: l.path.clone(),
                    });
                }
                Some(_) => {}
                None => specs.push((t.clone(), &l.path)),
            }
        }
    }
    Ok(specs.into_iter().map(|(s, _)| s).collect())
}

/// The header's tasks with each suite task replaced by its test cases (`SUITE/CASE`, with
/// the suite's rule), in order of first appearance in the attempt rows. The suite task itself
/// stays, judged on its own runs by [`crate::ledger::suite_runs_rule`] as `gate run`
/// scheduled them, only where one of its runs is not a run of the suite (a harness error),
/// so that error is the suite's and no verdict is published. Its spec keeps the rule its
/// cases are judged by (the recorded family design, else the header's), so a report shows
/// the plan the ledger holds, not the scheduling rule.
pub(super) fn expand_suites(
    ledgers: &[Ledger],
    specs: Vec<TaskSpec>,
    never_ran: &mut BTreeSet<String>,
) -> Vec<TaskSpec> {
    if specs.iter().all(|s| s.suite.is_none()) {
        return specs;
    }
    let mut out = Vec::with_capacity(specs.len());
    for spec in specs {
        if spec.suite.is_none() {
            out.push(spec);
            continue;
        }
        let mut seen = BTreeSet::new();
        // In a `compare:` suite, the cases base has a row of: one base skipped in every run
        // has none, and is never compared (review 10, a15).
        let mut seen_base = BTreeSet::new();
        let mut cases = Vec::new();
        let mut broken = false;
        // The family design the run recorded (on the run that fixed the cases): the rule
        // every case was judged by. Shards of one run design the same; if they differ, the
        // suite's runs are not one run's, and the suite is judged broken (no verdict).
        let mut family: Option<&crate::ledger::Family> = None;
        let mut family_ok = true;
        // The cases the run fixing the cases skipped (review 8, a15), in the order recorded.
        let mut skipped: Vec<&str> = Vec::new();
        for a in ledgers.iter().flat_map(|l| l.attempts()) {
            if a.task == spec.id {
                for id in a.suite_run.iter().flat_map(|r| &r.never_ran) {
                    if !skipped.contains(&id.as_str()) {
                        skipped.push(id);
                    }
                }
                broken |= !matches!(a.outcome, Outcome::Pass | Outcome::Cancelled)
                    || (a.outcome == Outcome::Pass && a.suite_run.is_none());
                if let Some(f) = a.suite_run.as_ref().and_then(|r| r.family.as_ref()) {
                    family_ok &= !family.is_some_and(|g| g != f)
                        && check_spec(&TaskSpec {
                            sampling: f.sampling.clone(),
                            ..spec.clone()
                        })
                        .is_ok();
                    family.get_or_insert(f);
                }
            } else if crate::ledger::suite_of(&a.task) == Some(spec.id.as_str()) {
                if a.side == Some(crate::pair_sampler::Side::Base) {
                    seen_base.insert(a.task.clone());
                }
                if seen.insert(a.task.clone()) {
                    cases.push(a.task[spec.id.len() + 1..].to_string());
                }
            }
        }
        broken |= !family_ok;
        // The rule the cases ran by: the recorded design, unless it is not one run's (a
        // suite stopped by a harness error keeps the design its first run recorded).
        let case_spec = match family {
            Some(f) if family_ok => TaskSpec {
                sampling: f.sampling.clone(),
                rates: spec.rates.map(|r| crate::model::Rates {
                    alpha: f.case_alpha,
                    ..r
                }),
                ..spec.clone()
            },
            _ => spec.clone(),
        };
        // A `compare:` suite's cases are compare tasks of their own, on the family's
        // truncation and loss route (`crate::runner::suite_pairs`).
        let case_compare = spec
            .compare
            .clone()
            .map(|c| match family.and_then(|f| f.pairs) {
                Some(p) if !broken => Box::new(crate::pair_sampler::CompareRecord {
                    max_pairs: p.max_pairs,
                    loss_route: p.loss_route,
                    ..*c
                }),
                _ => c,
            });
        // A case skipped in every run (no row of its own: a case some run ran has rows) is
        // a task of the suite too, INCONCLUSIVE, unless the suite itself is judged broken. In
        // a `compare:` suite, a case with no base row: base skipped it in every run, whatever
        // head did (review 10, a15).
        let ran = if spec.compare.is_some() {
            &seen_base
        } else {
            &seen
        };
        if !broken && !cases.is_empty() {
            for id in skipped {
                let case = id
                    .strip_prefix(&format!("{}/", spec.id))
                    .filter(|_| !ran.contains(id));
                if let Some(case) = case {
                    never_ran.insert(id.to_string());
                    if !seen.contains(id) {
                        cases.push(case.to_string());
                    }
                }
            }
        }
        let cases: Vec<TaskSpec> = cases
            .iter()
            .map(|c| TaskSpec {
                compare: case_compare.clone(),
                ..case_spec.suite_case(c)
            })
            .collect();
        if broken || cases.is_empty() {
            // The suite's own row shows the rule the ledger holds for its cases; its runs
            // are scheduled and replayed by `suite_runs_rule` of it (`replay_task`).
            out.push(TaskSpec {
                max_unavailable: 0,
                ..case_spec
            });
        }
        out.extend(cases);
    }
    out
}

/// Check a task as a ledger header records it, with the rules the plan loader applies, so a
/// forged or damaged header cannot make a report print impossible figures (a PASS needing
/// `n - c` passes with `c > n`, a risk computed at a rate of 1.5). Returns what is wrong.
pub fn check_spec(spec: &TaskSpec) -> Result<(), String> {
    // The one validation of a rule (`Rule::new`), as `gate run` applied it before it wrote
    // the header; its limit also keeps a forged header from buying an hour of exact sums.
    spec.sampling.rule().map_err(|e| match spec.sampling {
        Sampling::Single { .. } => format!("single plan: {e}"),
        Sampling::Sequential { .. } => format!("sequential rule: {e}"),
    })?;
    if let Some(c) = &spec.compare {
        // A compare task's rule is the one on its discordant pairs: success rate 1/2 against
        // 1/(1+R), as the plan loader builds it.
        let expected = crate::pair_sampler::discordant_rates(c.odds_ratio);
        let ok_rule = matches!(spec.sampling, Sampling::Sequential { healthy, regressed, .. }
            if healthy == expected.0 && (regressed - expected.1).abs() <= 1e-12);
        if !(c.odds_ratio.is_finite() && c.odds_ratio > 1.0) {
            return Err(format!(
                "compare rule has odds ratio {}, not above 1",
                c.odds_ratio
            ));
        }
        if !(1..=crate::stats::compare::MAX_PAIRS_LIMIT).contains(&c.max_pairs) {
            return Err(format!("compare rule has `max_pairs` {}", c.max_pairs));
        }
        if !ok_rule {
            return Err("compare rule's sampling is not its rule on the discordant pairs".into());
        }
    }
    if let Some(r) = spec.rates {
        // The same ranges as a sequential rule's (and `gate plan`'s): rates in (0, 1) with
        // healthy > regressed, risks in (0, 0.5); a suite case's alpha is its family share,
        // which may be below the user's floor.
        crate::stats::check_rule_rates(r.healthy, r.regressed, r.alpha, r.beta)
            .map_err(|e| format!("recorded rates: {e}"))?;
    }
    Ok(())
}

/// The ordinals a ledger can hold, from how the runner assigns them.
///
/// The runner launches a task's ordinals (a shard's owned ordinals, `k`, `k + m`, …) in
/// increasing order, one after another, with no ordinal skipped; a replacement for an
/// unavailable trial is the next ordinal, and `--resume` continues after the highest recorded
/// one (or runs a cancelled trial again at its own ordinal). Every launched trial leaves a row
/// unless a crash loses it, and a crash loses at most the trials in flight plus the rows of one
/// batch not yet written: two per parallel job of that session. So the j-th ordinal a ledger
/// owns can appear only if the ledger holds at least j − 2 × (jobs of all sessions) rows of that
/// task. A bound on rows rather than on the plan (n plus the unavailable budget) stays true
/// whatever the unavailable trials and cancellations were, and still refuses an ordinal of a
/// billion in a ledger of a few dozen rows.
struct OrdinalBounds<'a> {
    shard: Option<Shard>,
    /// A staged ledger's stage and each task's stage length: its ordinals are that stage's.
    stage: Option<(u64, BTreeMap<&'a str, u64>)>,
    /// Attempt rows per task in this ledger.
    rows: BTreeMap<&'a str, u64>,
    /// Trials that may have been in flight or unwritten when a session ended: twice the jobs
    /// of every session (the header's, and each `--resume`'s).
    slack: u64,
}

impl<'a> OrdinalBounds<'a> {
    fn of(l: &'a Ledger) -> Self {
        let header_jobs = l.header().jobs as u64;
        let mut rows: BTreeMap<&str, u64> = BTreeMap::new();
        let mut jobs = header_jobs;
        for rec in &l.records {
            match &rec.row {
                Row::Attempt(a) => *rows.entry(a.task.as_str()).or_default() += 1,
                Row::Resume(r) => {
                    jobs = jobs.saturating_add(session_jobs(&r.argv).unwrap_or(header_jobs));
                }
                _ => {}
            }
        }
        let stage = l.header().stage.map(|s| {
            let sizes = l
                .header()
                .tasks
                .iter()
                .filter_map(|t| Some((t.id.as_str(), t.sampling.stage_length()?)))
                .collect();
            (s, sizes)
        });
        OrdinalBounds {
            shard: l.header().shard,
            stage,
            rows,
            slack: jobs.max(1).saturating_mul(2),
        }
    }

    /// Refuse an ordinal this ledger cannot hold. `a.trial` is at least 1.
    fn check(&self, a: &AttemptRow, at: &Source) -> Result<(), ReportError> {
        let (k, m) = self.shard.map_or((1, 1), |s| (s.k, s.m));
        if self.shard.is_some_and(|s| !s.owns(a.trial)) {
            return Err(ReportError::ForeignOrdinal {
                task: a.task.clone(),
                trial: a.trial,
                at: at.clone(),
                k,
                m,
            });
        }
        if let Some((stage, sizes)) = &self.stage {
            // A stage runs exactly its own ordinals, each once: the range is the bound.
            let b = sizes.get(a.task.as_str()).copied().unwrap_or(0);
            let (first, last) = (
                (stage - 1).saturating_mul(b).saturating_add(1),
                stage.saturating_mul(b),
            );
            if !(first..=last).contains(&a.trial) {
                return Err(ReportError::Stage {
                    problem: format!(
                        "{at}: task `{}` trial #{} is not in stage {stage}, which runs trials #{first}–#{last}",
                        a.task, a.trial
                    ),
                });
            }
            return Ok(());
        }
        // The position of `a.trial` among the ordinals this ledger owns, from 1.
        let index = (a.trial - k) / m + 1;
        let rows = self.rows.get(a.task.as_str()).copied().unwrap_or(0);
        // A suite's test case runs in the suite's runs, not in every one (a decided case's
        // skips write no row, a runner may skip it): its ordinals are bounded by the suite's
        // runs (review 12, a30).
        let rows = crate::ledger::suite_of(&a.task)
            .and_then(|suite| self.rows.get(suite))
            .map_or(rows, |&runs| rows.max(runs));
        let max_index = rows.saturating_add(self.slack);
        if index > max_index {
            return Err(ReportError::ImpossibleOrdinal {
                task: a.task.clone(),
                trial: a.trial,
                at: at.clone(),
                rows,
                limit: k.saturating_add((max_index - 1).saturating_mul(m)),
            });
        }
        Ok(())
    }
}

/// The `--jobs N` (`--jobs=N`, `-j N`, `-jN`) of a recorded command line, if any.
pub(super) fn session_jobs(argv: &[String]) -> Option<u64> {
    let mut args = argv.iter();
    while let Some(arg) = args.next() {
        let value = match arg.as_str() {
            "--jobs" | "-j" => args.next().map(String::as_str),
            a => a.strip_prefix("--jobs=").or_else(|| {
                a.strip_prefix("-j")
                    .filter(|v| !v.is_empty() && !a.starts_with("--"))
            }),
        };
        if let Some(n) = value.and_then(|v| v.parse::<u64>().ok()) {
            return Some(n);
        }
    }
    None
}

/// The key of a trial: its ordinal, and its side for a compare task's pairs.
type TrialKey = (u64, Option<crate::pair_sampler::Side>);

/// A task's trial records, built in place as the rows are read: `at` says where each
/// trial's record is. The records are the replay's result, sorted once at the end; gathering
/// each trial's attempts in a map of its own and moving them into records afterwards held
/// every row twice at the peak (about half a kilobyte per trial), which a 20,000-trial
/// ledger felt (bench-run's memory target).
#[derive(Default)]
struct TaskTrials {
    at: BTreeMap<TrialKey, usize>,
    records: Vec<TrialRecord>,
}

impl TaskTrials {
    /// The record of trial `key`, made empty the first time it is seen.
    fn record(&mut self, key: TrialKey) -> &mut TrialRecord {
        let records = &mut self.records;
        let i = *self.at.entry(key).or_insert_with(|| {
            records.push(TrialRecord {
                ordinal: key.0,
                first: None,
                later: Vec::new(),
                disposition: Disposition::NoFirstAttempt,
            });
            records.len() - 1
        });
        &mut self.records[i]
    }

    /// The records in (ordinal, side) order, each trial's later attempts in attempt order.
    fn into_records(self) -> Vec<TrialRecord> {
        let mut records = self.records;
        for r in &mut records {
            r.later.sort_by_key(|a| a.row.attempt);
            r.later.shrink_to_fit();
        }
        // Every record holds at least one attempt, all of its own key; keys are unique, so
        // the unstable sort (in place, no scratch copy of the records) is the stable order.
        let key = |r: &TrialRecord| -> TrialKey {
            let side = r
                .first
                .iter()
                .chain(&r.later)
                .next()
                .and_then(|a| a.row.side);
            (r.ordinal, side)
        };
        if !records.is_sorted_by_key(key) {
            records.sort_unstable_by_key(key);
        }
        records.shrink_to_fit();
        records
    }
}

/// Every attempt row of every ledger, by task, ordinal and attempt, de-duplicated.
pub(super) fn collect_attempts(
    ledgers: &[Ledger],
    specs: &[TaskSpec],
    suites: &BTreeSet<String>,
) -> Result<BTreeMap<String, Vec<TrialRecord>>, ReportError> {
    let mut by_task: BTreeMap<String, TaskTrials> = specs
        .iter()
        .map(|s| (s.id.clone(), TaskTrials::default()))
        .collect();
    // Each task's records are sized once, from its rows (one per trial with retries off),
    // rather than grown by doubling: a suite of 20,000 cases of 9 trials each held nearly
    // twice its records' size in spare capacity at the peak (issue 30).
    let mut rows: BTreeMap<&str, usize> = BTreeMap::new();
    for a in ledgers.iter().flat_map(Ledger::attempts) {
        *rows.entry(a.task.as_str()).or_default() += 1;
    }
    for (task, trials) in &mut by_task {
        if let Some(&n) = rows.get(task.as_str()) {
            trials.records.reserve_exact(n);
        }
    }
    drop(rows);
    for l in ledgers {
        let bounds = OrdinalBounds::of(l);
        // One path per ledger, shared by its rows' records (a copy per row was 900,000
        // small allocations for a suite of 100,000 cases: issue 30).
        let path = std::sync::Arc::new(l.path.clone());
        for (i, rec) in l.records.iter().enumerate() {
            let Row::Attempt(a) = &rec.row else { continue };
            let source = Source {
                path: path.clone(),
                line: i as u64 + 1,
            };
            let Some(trials) = by_task.get_mut(&a.task) else {
                // A suite task judged by its test cases (none of its runs broke): its own
                // rows are the runs, their test cases' rows are what is judged.
                if suites.contains(&a.task) {
                    continue;
                }
                return Err(ReportError::UnknownTask {
                    task: a.task.clone(),
                    at: source,
                });
            };
            if a.trial == 0 || a.attempt == 0 {
                return Err(ReportError::ZeroOrdinal { at: source });
            }
            bounds.check(a, &source)?;
            let trial = trials.record((a.trial, a.side));
            let seen = if a.attempt == 1 {
                trial.first.as_mut()
            } else {
                trial.later.iter_mut().find(|s| s.row.attempt == a.attempt)
            };
            let fresh = |source| SourcedAttempt {
                row: std::sync::Arc::clone(a),
                source,
            };
            match seen {
                None if a.attempt == 1 => trial.first = Some(fresh(source)),
                None => trial.later.push(fresh(source)),
                Some(seen) if seen.row == *a => {}
                // A cancelled attempt never finished and was never graded: the finished run
                // of the same attempt (after `--resume`) takes its place.
                Some(seen) if seen.row.outcome == Outcome::Cancelled => *seen = fresh(source),
                Some(_) if a.outcome == Outcome::Cancelled => {}
                Some(seen) => {
                    return Err(ReportError::Conflict {
                        task: a.task.clone(),
                        trial: a.trial,
                        attempt: a.attempt,
                        first: seen.source.clone(),
                        other: source,
                    });
                }
            }
        }
    }
    Ok(by_task
        .into_iter()
        .map(|(task, trials)| (task, trials.into_records()))
        .collect())
}
