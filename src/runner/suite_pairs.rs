//! A `compare:` suite task: each suite run on head and on base, each test case a pair.
//!
//! Suite run k runs the suite once on each side ([`SuitePairLauncher`]: two
//! [`SuiteLauncher`]s sharing one [`SuiteState`], base in its own `cwd` with its own result
//! folder, `GATE_SIDE=head|base`), both sides at once with `jobs >= 2`, one after the other
//! in the seeded order of [`crate::pair_sampler::base_first`] with `jobs = 1`. Every row of a side
//! carries that side, so test case `SUITE/CASE`'s rows at ordinal k are its pair k: each case
//! is a compare task of its own, judged by its own [`PairSampler`] (the compare rule at the
//! family's share, [`crate::plan::family::design_compare`], fixed by the first side read and
//! recorded on its run's row as for any suite). The suite's runs are driven by the one suite
//! loop ([`super::scheduler::run_suite`]), so scheduling, cancellation and targeted re-runs
//! are a suite's: a later run asks both sides for the undecided cases only
//! (`GATE_SUITE_CASES`).
//!
//! Both sides must record the same test cases: the first side read fixes them, and a side
//! that records a case the other did not, or misses one it was asked for, is a harness error
//! naming the cases (a case on one side only cannot be compared). A resumed run runs again
//! only the sides an interrupted session never finished, at their own ordinal (invariant 1).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, mpsc};

use super::events::EventSink;
use super::launcher::{Launcher, harness_error_row};
use super::redact::Redactor;
use super::retry::TrialMsg;
use super::sandbox::Sandbox;
use super::scheduler::{Cases, TaskConfig, TaskEnd, TaskHistory};
use super::suite::{SuiteLauncher, SuiteState};
use super::sys::Interrupt;
use crate::error::Error;
use crate::ledger::{AttemptRow, DecisionRow, Ledger, suite_of};
use crate::model::{Outcome, Sampling};
use crate::pair_sampler::{PairSampler, Side};
use crate::plan::compare_rule::CompareRule;
use crate::plan::{Policy, Task};
use crate::rule::Decision;

/// How many suite runs of a `compare:` suite run at once with `jobs`: the two sides of a run
/// at once with `jobs >= 2`, so `jobs / 2` runs (at least one). A fixed `suite.results` path
/// is one file per side's folder, so it is refused only when this is above 1.
pub fn lanes(jobs: usize) -> usize {
    (jobs / 2).max(1)
}

/// A `compare:` suite task ready to run: its scheduling, its cases, its two sides.
pub struct SuiteCompare {
    config: TaskConfig,
    cases: SuitePairCases,
    launcher: SuitePairLauncher,
    history: TaskHistory,
}

impl SuiteCompare {
    /// Prepare `task` (a suite task with a `compare:` rule) with the real launchers: head as
    /// the task is written, base from its `base:` side, logs and result files of base under
    /// `run_dir/base`; `prior` is the ledger of an interrupted session (resumed).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        task: &Task,
        policy: &Policy,
        run_id: &str,
        run_dir: &Path,
        redactor: &Redactor,
        sandbox: &Arc<Sandbox>,
        prior: Option<&Ledger>,
    ) -> Result<Self, Error> {
        let (Some(compare), Some(suite)) = (task.compare(), task.suite()) else {
            return Err(Error::Harness(format!(
                "task `{}` is not a compare suite task",
                task.id
            )));
        };
        let lanes = lanes(policy.jobs);
        super::suite::check_jobs(task, lanes)?;
        let sides = (task, compare, policy, run_id);
        let [mut head, mut base] = super::pairs::side_launchers(sides, run_dir, redactor, sandbox);
        for l in [&mut head, &mut base] {
            l.spec.harness_exit_codes.extend(&suite.harness_exit_codes);
        }
        base.spec.check = None;

        let cases = SuitePairCases::new(
            &task.id,
            task.sampling.clone(),
            &compare.rule,
            task.max_unavailable,
            prior,
        )?;
        let (history, done) = history(prior, &task.id);
        // A fixed `results:` path with base in head's own folder is one file for both
        // sides: they then run one after the other, never writing it at once.
        let one_file = suite.results.is_some() && base.spec.cwd == head.spec.cwd;
        let on_side = |launcher, side| {
            let mut l = SuiteLauncher::with_state(launcher, suite, Arc::clone(&cases.state));
            l.side = Some(side);
            l
        };
        let launcher = SuitePairLauncher {
            head: on_side(head, Side::Head),
            base: on_side(base, Side::Base),
            together: policy.jobs >= 2 && !one_file,
            order_seed: super::pairs::order_seed(run_id, &task.id),
            done: Arc::new(done),
        };
        let mut config = TaskConfig::new(task, lanes, None);
        config.sampling =
            crate::ledger::compare_suite_runs_rule(compare.rule.max_pairs, task.max_unavailable);
        // A suite run that is not a run of the suite is a harness error, never unavailable.
        config.max_unavailable = 0;
        Ok(SuiteCompare {
            config,
            cases,
            launcher,
            history,
        })
    }

    /// Run it to the decision of every case (or to an interrupt or a harness error).
    pub fn run(
        mut self,
        interrupt: &Interrupt,
        sink: &mut dyn EventSink,
    ) -> Result<TaskEnd, Error> {
        super::scheduler::run_suite(
            &self.config,
            &self.launcher,
            self.history,
            &mut self.cases,
            interrupt,
            sink,
        )
    }
}

/// What an interrupted session recorded of the suite's runs: a run counts as done when both
/// sides finished (else it runs again, first, at its ordinal), and the sides that finished
/// (a re-run runs only the others).
fn history(prior: Option<&Ledger>, task: &str) -> (TaskHistory, HashSet<(u64, Side)>) {
    let Some(ledger) = prior else {
        return (TaskHistory::default(), HashSet::new());
    };
    let pairs = super::pairs::pair_history(ledger, task);
    let (sides, done) = (&pairs.outcomes, pairs.graded_sides());
    let trials: BTreeSet<u64> = (ledger.attempts())
        .filter(|a| a.task == task && a.attempt == 1)
        .map(|a| a.trial)
        .collect();
    let outcomes = trials
        .into_iter()
        .map(|t| {
            let both = [Side::Head, Side::Base].map(|s| sides.get(&(t, s)).copied());
            let o = match both {
                [Some(h), Some(b)] if h != Outcome::Cancelled && b != Outcome::Cancelled => {
                    if h == Outcome::HarnessError || b == Outcome::HarnessError {
                        Outcome::HarnessError
                    } else {
                        h
                    }
                }
                _ => Outcome::Cancelled,
            };
            (t, o)
        })
        .collect();
    let decided = pairs.decided;
    (TaskHistory { decided, outcomes }, done)
}

/// Runs a compare suite's runs: suite run k on both sides (those not finished by an
/// interrupted session), every row tagged with its side.
#[derive(Debug, Clone)]
pub struct SuitePairLauncher {
    head: SuiteLauncher,
    base: SuiteLauncher,
    /// Both sides at once (`jobs >= 2`), else one after the other in the seeded order.
    together: bool,
    /// The within-pair order's seed, as the ledger header records it.
    order_seed: u64,
    /// Sides an interrupted session finished: not run again.
    done: Arc<HashSet<(u64, Side)>>,
}

impl SuitePairLauncher {
    fn side(&self, side: Side) -> &SuiteLauncher {
        match side {
            Side::Head => &self.head,
            Side::Base => &self.base,
        }
    }

    /// Run suite run `ordinal` on the sides still owed: each side's rows, tagged.
    fn run(
        &self,
        ordinal: u64,
        cancel: &AtomicBool,
        asked: Option<Vec<String>>,
    ) -> Vec<(Side, Vec<AttemptRow>)> {
        let sides: Vec<Side> = super::pairs::order(self.order_seed, ordinal)
            .into_iter()
            .filter(|s| !self.done.contains(&(ordinal, *s)))
            .collect();
        // Where each side stands in its pair: after a side the earlier session finished.
        let first_position = 3 - sides.len() as u8;
        let mut runs: Vec<(Side, Vec<AttemptRow>)> = if self.together && sides.len() == 2 {
            std::thread::scope(|scope| {
                let handles: Vec<_> = sides
                    .iter()
                    .map(|&side| {
                        let asked = asked.clone();
                        scope.spawn(move || {
                            (side, self.side(side).run_asked(ordinal, cancel, asked))
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .zip(&sides)
                    .map(|(h, &side)| {
                        h.join().unwrap_or_else(|_| {
                            let why = "the suite run's thread panicked".into();
                            let task = &self.side(side).inner.spec.task;
                            (side, vec![harness_error_row(task, ordinal, 1, why)])
                        })
                    })
                    .collect()
            })
        } else {
            sides
                .iter()
                .map(|&side| {
                    (
                        side,
                        self.side(side).run_asked(ordinal, cancel, asked.clone()),
                    )
                })
                .collect()
        };
        for (i, (side, rows)) in runs.iter_mut().enumerate() {
            let position = if self.together {
                1
            } else {
                first_position + i as u8
            };
            for row in rows.iter_mut() {
                row.side = Some(*side);
                row.pair_position = Some(position);
                if row.outcome == Outcome::HarnessError
                    && let Some(reason) = &row.detail.reason
                {
                    let one_sided = if reason.contains("recorded other test cases") {
                        " (head and base must record the same test cases: a case on one side only cannot be compared)"
                    } else {
                        ""
                    };
                    row.detail.reason = Some(crate::untrusted::clip(
                        &format!("{} side: {reason}{one_sided}", side.as_str()),
                        crate::untrusted::MAX_REASON_BYTES,
                    ));
                }
            }
        }
        runs
    }
}

impl Launcher for SuitePairLauncher {
    fn launch(&self, ordinal: u64, cancel: Arc<AtomicBool>, tx: mpsc::Sender<TrialMsg>) {
        // Fixed here, on the scheduler's thread, from the decisions it has consumed (as for
        // any suite): both sides are asked for the same cases.
        let asked = self.head.state().ask();
        let this = self.clone();
        let tx_back = tx.clone();
        let started = std::thread::Builder::new()
            .name("gate-suite-pair".into())
            .spawn(move || {
                let runs = this.run(ordinal, &cancel, asked);
                drop(this);
                // The test cases' rows first, then each side's own row, the last of which
                // frees the lane.
                let mut cases = Vec::new();
                let mut own = Vec::new();
                for (_, rows) in runs {
                    for row in rows {
                        if suite_of(&row.task).is_some() {
                            cases.push(row);
                        } else {
                            own.push(row);
                        }
                    }
                }
                let all: Vec<AttemptRow> = cases.into_iter().chain(own).collect();
                let last = all.len().saturating_sub(1);
                if all.is_empty() {
                    let _ = tx.send(TrialMsg::Done(ordinal));
                }
                for (i, row) in all.into_iter().enumerate() {
                    let _ = tx.send(TrialMsg::Attempt {
                        row: Box::new(row),
                        last: i == last,
                    });
                }
            });
        if let Err(e) = started {
            let why = format!("cannot start a thread for the suite run: {e}");
            let task = &self.head.inner.spec.task;
            let _ = tx_back.send(TrialMsg::Attempt {
                row: Box::new(harness_error_row(task, ordinal, 1, why)),
                last: true,
            });
        }
    }

    fn kill_all(&self) {
        super::sys::kill_all_groups();
    }

    fn tidy(&self) {
        super::sys::reap_orphans();
    }
}

/// A compare suite's test cases, each with its own pair sampler.
#[derive(Debug)]
pub struct SuitePairCases {
    max_unavailable: u64,
    /// In order of first appearance.
    cases: Vec<(String, PairSampler)>,
    index: BTreeMap<String, usize>,
    /// (task, trial, side) of every test-case row an earlier session of the ledger holds.
    prior: HashMap<(String, u64, Side), Outcome>,
    /// Test cases whose decision row an earlier session wrote.
    decided: HashSet<String>,
    /// A resumed ledger's test-case rows held back until this session's first side read
    /// fixes the cases and their family design (`SuiteState::resumed`), then consumed first.
    held: Vec<AttemptRow>,
    /// Shared with both sides' runs.
    state: Arc<Mutex<SuiteState>>,
}

impl SuitePairCases {
    /// The test cases of compare suite `suite`, judged by the compare rule `rule` (its
    /// discordant rule `sampling`) or, once the cases are known, by their family design;
    /// `prior` is the ledger of an interrupted session, as for [`super::suite::SuiteCases`].
    pub fn new(
        suite: &str,
        sampling: Sampling,
        rule: &CompareRule,
        max_unavailable: u64,
        prior: Option<&Ledger>,
    ) -> Result<Self, Error> {
        let harness = |e: crate::stats::StatsError| Error::Harness(format!("task `{suite}`: {e}"));
        PairSampler::new(
            sampling.clone(),
            max_unavailable,
            rule.max_pairs,
            rule.loss_route,
        )
        .map_err(harness)?;
        let mut cases = SuitePairCases {
            max_unavailable,
            cases: Vec::new(),
            index: BTreeMap::new(),
            prior: HashMap::new(),
            decided: HashSet::new(),
            held: Vec::new(),
            state: Arc::new(Mutex::new(SuiteState {
                plan_rule: (sampling, None),
                compare: Some(rule.clone()),
                reference: None,
                reference_by: None,
                family: None,
                decided: HashSet::new(),
                filter: true,
                resumed: None,
                ran: BTreeMap::new(),
                unrun_skips: BTreeMap::new(),
                base_gaps: HashSet::new(),
            })),
        };
        let Some(ledger) = prior else {
            return Ok(cases);
        };
        let family = ledger
            .attempts()
            .filter(|r| r.task == suite)
            .find_map(|r| r.suite_run.as_ref().and_then(|s| s.family.clone()));
        cases.state().family = family;
        cases.case_sampler().map_err(|e| {
            Error::Harness(format!("task `{suite}`: the ledger's family design: {e}"))
        })?;
        let rows: Vec<&AttemptRow> = ledger
            .attempts()
            .filter(|r| suite_of(&r.task) == Some(suite))
            .collect();
        let mut known: Vec<String> = rows.iter().map(|r| r.task.clone()).collect();
        known.sort_unstable();
        known.dedup();
        let unrun = super::suite::resumed_unrun(&mut cases.state(), ledger, suite);
        // A design lost with the run row that carried it is designed again by this session's
        // first side read, never replaced by the plan's rule at the full alpha (review 9, a11).
        // A compare suite always owes a family design, so a ledger without the first run's
        // row has none either: `first_run_recorded` adds nothing here.
        let defer = cases.state().defer_resumed(&known, true);
        for row in rows {
            if defer {
                cases.held.push(row.clone());
            } else {
                cases.consume(row);
            }
            if let Some(side) = row.side {
                let key = (row.task.clone(), row.trial, side);
                if row.attempt == 1 {
                    cases.prior.insert(key, row.outcome);
                } else {
                    cases.prior.entry(key).or_insert(row.outcome);
                }
            }
        }
        let known = if defer {
            Vec::new()
        } else {
            let mut known: Vec<String> = cases.cases.iter().map(|(id, _)| id.clone()).collect();
            known.extend(unrun.into_iter().filter(|id| !cases.index.contains_key(id)));
            known
        };
        cases.decided = super::suite::resumed_cases(&cases.state, known, ledger, suite);
        Ok(cases)
    }

    /// Consume the resumed rows held back ([`Self::held`]) once this session's first side
    /// read has fixed the cases (or, `now`, at the end whatever happened).
    fn release_held(&mut self, now: bool) {
        if self.held.is_empty() || !(now || self.state().reference.is_some()) {
            return;
        }
        for row in std::mem::take(&mut self.held) {
            self.consume(&row);
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, SuiteState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A new case's pair sampler: the family's rule once the cases are known, else the
    /// plan's.
    fn case_sampler(&self) -> Result<PairSampler, crate::stats::StatsError> {
        let state = self.state();
        let plan = state
            .compare
            .as_ref()
            .map(|c| (c.max_pairs, c.loss_route))
            .unwrap_or_default();
        let (sampling, (max_pairs, loss_route)) = match &state.family {
            Some(f) => (
                f.sampling.clone(),
                f.pairs.map_or(plan, |p| (p.max_pairs, p.loss_route)),
            ),
            None => (state.plan_rule.0.clone(), plan),
        };
        drop(state);
        PairSampler::new(sampling, self.max_unavailable, max_pairs, loss_route)
    }

    fn consume(&mut self, row: &AttemptRow) {
        let i = match self.index.get(&row.task) {
            Some(&i) => i,
            None => {
                let Ok(sampler) = self.case_sampler() else {
                    return;
                };
                self.cases.push((row.task.clone(), sampler));
                self.index.insert(row.task.clone(), self.cases.len() - 1);
                self.cases.len() - 1
            }
        };
        // A row without a side belongs to no pair: recorded, never consumed.
        let Some(side) = row.side else { return };
        if row.attempt == 1 {
            let sampler = &mut self.cases[i].1;
            let was = sampler.decision().is_some();
            sampler.offer(row.trial, side, row.outcome);
            if !was && sampler.decision().is_some() {
                self.state().decided.insert(row.task.clone());
            }
        }
    }
}

impl Cases for SuitePairCases {
    fn admit(&mut self, row: &AttemptRow) -> Result<bool, String> {
        // The side run that sends a case row was judged, so the cases are fixed by now.
        self.release_held(false);
        if let Some(side) = row.side
            && let Some(&kept) = self.prior.get(&(row.task.clone(), row.trial, side))
        {
            // A change that could only make head look better than the re-run shows — head
            // kept passing and now failing, base kept failing and now passing — is a conflict
            // (review 11, a06); the other way the kept row is the conservative one (review
            // 12, a37).
            let hides = match side {
                Side::Head => kept != Outcome::Fail && row.outcome == Outcome::Fail,
                Side::Base => kept != Outcome::Pass && row.outcome == Outcome::Pass,
            };
            if row.attempt == 1 && hides {
                return Err(super::suite::resumed_conflict(
                    &row.task,
                    row.trial,
                    kept,
                    row.outcome,
                ));
            }
            return Ok(false);
        }
        self.consume(row);
        Ok(true)
    }

    fn all_decided(&self) -> bool {
        // A case one side never ran so far, or whose pairs stop at one base skipped before
        // it first ran the case, cannot be decided by more runs of the others: it does not
        // hold the suite's runs (review 10, a15).
        let state = self.state();
        !self.cases.is_empty()
            && self.cases.iter().all(|(id, s)| {
                s.decision().is_some()
                    || !state.has_run(Some(Side::Base), id)
                    || !state.has_run(Some(Side::Head), id)
                    || state.base_gaps.contains(id)
            })
    }

    fn runs_rule(&self) -> Option<Sampling> {
        let state = self.state();
        let pairs = state.family.as_ref().and_then(|f| f.pairs)?;
        Some(crate::ledger::compare_suite_runs_rule(
            pairs.max_pairs,
            self.max_unavailable,
        ))
    }

    fn decisions(&mut self, undecided: &Decision) -> Vec<DecisionRow> {
        self.release_held(true);
        // A case base skipped in every run is never compared, whatever head's runs of it
        // did: INCONCLUSIVE, named, as a plain suite's case skipped in every run (review 10,
        // a15). Its replay reads it the same way (no base row).
        let never_ran = self.state().never_ran(Some(Side::Base));
        let mut rows: Vec<DecisionRow> = self
            .cases
            .iter()
            .filter(|(id, _)| !self.decided.contains(id))
            .filter(|(id, _)| never_ran.binary_search(id).is_err())
            .map(|(id, s)| {
                let d = s.decision().unwrap_or(undecided);
                DecisionRow {
                    task: id.clone(),
                    verdict: d.verdict.into(),
                    reason: d.reason.clone(),
                    counts: s.counts(),
                    llr: s.rule().llr(),
                }
            })
            .collect();
        rows.extend(
            never_ran
                .into_iter()
                .filter(|id| !self.decided.contains(id))
                .map(|id| DecisionRow {
                    task: id,
                    verdict: crate::model::Verdict::Inconclusive.into(),
                    reason: crate::pair_sampler::SKIPPED_ON_BASE_IN_EVERY_RUN.to_string(),
                    counts: Default::default(),
                    llr: None,
                }),
        );
        rows
    }
}
